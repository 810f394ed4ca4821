"""What a room learned: the concept inventory's answer files, before and after, summed up for the instructor.

    python tools/inventory_report.py FILES_OR_FOLDERS... [--figure PATH]
    make inventory-report FILES="inventory/ handed-in/*.json"

Reads the files that notebooks 00 ("pre") and 08 ("post") wrote (``course_utils.lessons.inventory``; a folder
stands for the ``*.json`` files in it) and prints:

* per item, the share of learners right before and after (a question left blank counts as not right and is
  counted apart: "blank" when every learner left it blank), and the most chosen wrong answer each time: the
  named misconception to address (a myth of the notebooks or a mistake the checkers name);
* with at least ``ITEM_ANALYSIS_MIN`` learners in an attempt, the standard item analysis of that attempt: each
  item's difficulty (the share right, 0 to 1) and its discrimination (upper-lower groups: the share right among
  the top 27 % of learners by total score minus the share among the bottom 27 %);
* the class's normalised gain ``<g> = (<post> - <pre>) / (100 - <pre>)`` (Hake 1998), from the mean scores of
  the learners with both attempts (matched by nickname, ``nickname_key``); a learner whose "pre" score is 100
  has nothing left to gain and is left out of ``<g>``, and counted; with a 95 % bootstrap interval over learners;
* the average of the individual gains ``(post_i - pre_i) / (100 - pre_i)`` over the same learners;
* what a same-day, same-items ``<g>`` can and cannot claim (the interval it refers to is the one printed above;
  without one, it refers to none);
* the delayed retake (notebook 08 answered again a day or more later, saved as "delayed"): per item, the share
  right just after the course and days later among the learners with both (what was forgotten), the days between,
  and what a same-items retake can and cannot claim.

A learner's first "pre", first "post" and first "delayed" count (a second "post" came after the feedback of the
first). Files
that are not answer files are listed and skipped. One figure (PNG): per item, right before and after.
Nothing here sends or fetches anything.
"""
from __future__ import annotations

import argparse
import shlex
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import _checkout  # noqa: F401  (this checkout's course_utils first)
import numpy as np

from course_utils.lessons import inventory as inv

__all__ = [
    "CLAIMS", "DELAYED_CLAIMS", "GROUP_SHARE", "ITEM_ANALYSIS_MIN", "Report", "claims", "collect", "draw",
    "item_analysis", "main", "make_report", "report_lines",
]

#: The fewest learners in an attempt for the item analysis (difficulty and discrimination): below that, the top and
#: bottom groups are one or two learners and the numbers say nothing.
ITEM_ANALYSIS_MIN = 10
#: The share of learners in each of the upper and lower groups of the discrimination index (Kelley's 27 %).
GROUP_SHARE = 0.27
#: A discrimination below this is commonly read as an item to revise (Ebel's guideline: 0.4 and above very good,
#: 0.3 good, 0.2 marginal).
LOW_DISCRIMINATION = 0.2

#: What <g> from this inventory, taken before and after on the same day with the same items, can and cannot say.
CLAIMS = (
    "What this <g> can claim: how far this room moved on these twelve items between the start and the end of the "
    "day, as a share of what it could still gain; which items, and which named misconceptions, are still held "
    "(address those first); and, read with care, whether a change to the workshop moved the same items next time.",
    "What it cannot claim: lasting learning (same day: the post-test measures what is fresh, not what stays); a "
    "gain caused by the course rather than by sitting the same questions twice (same items: the pre-test showed "
    "the questions, learners may have looked them up or talked about them; shuffling the choices stops answering "
    "by position, not recognising a question); a comparison with other courses (no control group, and this "
    "inventory is not validated: Hake's 0.23 for lectures and 0.48 for interactive engagement come from the Force "
    "Concept Inventory, a physics test validated on thousands of students); a precise number (with a room of 30, "
    "one answer is 8 points on one learner's score{interval}); or the whole room (only the learners who "
    "took both attempts under the same nickname count, and those who left before notebook 08 may differ).",
)


#: What the delayed retake (the same items again, days later) can and cannot say.
DELAYED_CLAIMS = (
    "What the delayed retake can claim: which of these items the learners who came back still answer right days "
    "later, and which they have lost since the end of the course (revisit those).",
    "What it cannot claim: learning that lasts for months (days, not a term); that the course alone kept it (the "
    "feedback of the first attempt in 08 gave every answer, and these are the same items a third time: recognising "
    "a question is not recalling an idea); or the whole room (those who came back may be the keener ones).",
)


def claims(report):
    """``CLAIMS`` for this report: the second one points to the interval printed above, or, when none was computed,
    to none."""
    interval = "; see the 95 % interval above" if report.class_gain_interval is not None else ""
    return tuple(text.format(interval=interval) for text in CLAIMS)


@dataclass
class Report:
    """The numbers of one report (see ``make_report``)."""

    files: int
    skipped: list
    pre: dict                     # nickname key -> the first "pre" record
    post: dict                    # nickname key -> the first "post" record
    extra_attempts: int           # attempts beyond a learner's first of each kind (not counted)
    item_rates: list              # per item: (share right before or None, share right after or None), percent
    blanks: list                  # per item: (learners who left it blank before, after)
    top_wrong: list               # per item: (Counter before, Counter after) of the misconceptions chosen
    matched: list                 # nickname keys with both attempts
    perfect_pre: list             # of those, the ones left out of g (pre score 100)
    mean_pre: float | None = None
    mean_post: float | None = None
    class_gain: float | None = None
    class_gain_interval: tuple | None = None
    mean_individual_gain: float | None = None
    individual_gains: dict = field(default_factory=dict)
    item_analysis: dict = field(default_factory=dict)   # attempt -> item_analysis(...) of its learners (10 or more)
    delayed: dict = field(default_factory=dict)         # nickname key -> the first "delayed" record
    retained: list = field(default_factory=list)        # nickname keys with a "post" and a "delayed"
    retention: list = field(default_factory=list)       # per item: (share right just after, days later), percent
    delay_days: list = field(default_factory=list)      # per retained learner: days from "post" to "delayed"


def collect(paths):
    """The answer files under ``paths`` (files, or folders whose ``*.json`` are read), read and checked.

    Returns
    -------
    records : list of dict
        ``course_utils.lessons.inventory.read_record`` of each readable file.
    skipped : list of str
        One sentence per file that is not an answer file (or a path that does not exist).
    """
    records, skipped = [], []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files = sorted(path.rglob("*.json"))
        elif path.exists():
            files = [path]
        else:
            skipped.append(f"{path}: no such file or folder")
            continue
        for file in files:
            try:
                records.append(inv.read_record(file))
            except inv.InventoryFileError as err:
                skipped.append(str(err))
    return records, skipped


def _first_by_learner(records, attempt):
    first, extra = {}, 0
    for record in sorted((r for r in records if r["attempt"] == attempt), key=lambda r: r["saved_at"]):
        key = inv.nickname_key(record["nickname"])
        if key in first:
            extra += 1
        else:
            first[key] = record
    return first, extra


def _gain_of_means(pre_scores, post_scores):
    mean_pre = float(np.mean(pre_scores))
    return (float(np.mean(post_scores)) - mean_pre) / (100.0 - mean_pre)


def item_analysis(records):
    """Difficulty and discrimination of each item over ``records`` (one per learner), the standard item analysis.

    Returns
    -------
    dict
        ``group``: the size of the upper and the lower group, ``round(GROUP_SHARE * len(records))`` (at least 1);
        ``items``: per item of ``ITEMS``, ``(difficulty, discrimination)``: the share right (0 to 1, a blank is not
        right), and the share right among the ``group`` learners with the highest total scores minus the share
        among the ``group`` with the lowest. Learners with equal scores are ordered by nickname, so the groups are
        the same on every run.
    """
    ranked = sorted(records, key=lambda r: (r["score"], inv.nickname_key(r["nickname"])))
    group = max(1, round(GROUP_SHARE * len(ranked)))
    lower, upper = ranked[:group], ranked[-group:]
    def share(learners, n):
        return sum(r["items"][n]["chosen"] == inv.CORRECT for r in learners) / len(learners)

    items = [(share(ranked, n), share(upper, n) - share(lower, n)) for n in range(len(inv.ITEMS))]
    return {"group": group, "items": items}


def make_report(records, skipped=(), *, files=None, seed=0, resamples=2000):
    """Sum up answer records (from ``collect``).

    Parameters
    ----------
    records : list of dict
    skipped : list of str
    files : int, optional
        How many files were read (default ``len(records)``).
    seed : int, default 0
        For the bootstrap interval of ``<g>`` (resampling learners), so the report is the same every time.
    resamples : int, default 2000

    Returns
    -------
    Report
    """
    pre, extra_pre = _first_by_learner(records, "pre")
    post, extra_post = _first_by_learner(records, "post")
    delayed, extra_delayed = _first_by_learner(records, inv.DELAYED)
    rates, wrong, blanks = [], [], []
    for n in range(len(inv.ITEMS)):
        pair_rates, pair_wrong, pair_blanks = [], [], []
        for group in (pre, post):
            chosen = [record["items"][n]["chosen"] for record in group.values()]
            pair_rates.append(100.0 * sum(c == inv.CORRECT for c in chosen) / len(chosen) if chosen else None)
            pair_wrong.append(Counter(c for c in chosen if c is not None and c != inv.CORRECT))
            pair_blanks.append(sum(c is None for c in chosen))
        rates.append(tuple(pair_rates))
        wrong.append(tuple(pair_wrong))
        blanks.append(tuple(pair_blanks))
    matched = sorted(set(pre) & set(post))
    perfect = [key for key in matched if pre[key]["score"] >= 100]
    counted = [key for key in matched if key not in perfect]
    report = Report(files=len(records) if files is None else files, skipped=list(skipped), pre=pre, post=post,
                    extra_attempts=extra_pre + extra_post + extra_delayed, item_rates=rates, blanks=blanks,
                    top_wrong=wrong, matched=matched, perfect_pre=perfect, delayed=delayed)
    report.retained = sorted(set(post) & set(delayed))
    if report.retained:
        def share_right(group, n):
            return 100.0 * sum(group[key]["items"][n]["correct"] for key in report.retained) / len(report.retained)

        report.retention = [(share_right(post, n), share_right(delayed, n)) for n in range(len(inv.ITEMS))]
        report.delay_days = [(datetime.fromisoformat(delayed[key]["saved_at"])
                              - datetime.fromisoformat(post[key]["saved_at"])).total_seconds() / 86400
                             for key in report.retained]
    for attempt, group in (("pre", pre), ("post", post)):
        if len(group) >= ITEM_ANALYSIS_MIN:
            report.item_analysis[attempt] = item_analysis(list(group.values()))
    if counted:
        pre_scores = np.array([pre[key]["score"] for key in counted])      # (L,)
        post_scores = np.array([post[key]["score"] for key in counted])    # (L,)
        report.mean_pre, report.mean_post = float(pre_scores.mean()), float(post_scores.mean())
        report.class_gain = _gain_of_means(pre_scores, post_scores)
        report.individual_gains = {key: inv.normalised_gain(pre[key]["score"], post[key]["score"])
                                   for key in counted}
        report.mean_individual_gain = float(np.mean(list(report.individual_gains.values())))
        if len(counted) >= 2:
            rng = np.random.default_rng(seed)
            picks = rng.integers(0, len(counted), size=(resamples, len(counted)))   # (resamples, L)
            means_pre = pre_scores[picks].mean(axis=1)                              # (resamples,)
            means_post = post_scores[picks].mean(axis=1)                            # (resamples,)
            gains = (means_post - means_pre) / (100.0 - means_pre)                   # (resamples,)
            low, high = np.percentile(gains, [2.5, 97.5])
            report.class_gain_interval = (float(low), float(high))
    return report


def _percent(value, blank=0, learners=0):
    """A share right as printed: "  -  " for no learner, "blank" when every learner left the question blank."""
    if value is None:
        return "  -  "
    if learners and blank == learners:
        return "blank"
    return f"{value:3.0f} %"


def _blank_note(before, after, n_pre, n_post):
    """What the per-item line adds about blanks: nothing when no one left it blank."""
    parts = [f"{count} of {total} {when}" for count, total, when in ((before, n_pre, "before"), (after, n_post, "after"))
             if count]
    return f"   left blank: {', '.join(parts)}" if parts else ""


def _top(counter, total):
    if not counter:
        return "none"
    name, count = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    ties = [n for n, c in counter.items() if c == count and n != name]
    tie = f" (tied with {len(ties)} other{'s' if len(ties) > 1 else ''})" if ties else ""
    return f"\u201c{inv.plain_name(name)}\u201d ({count} of {total}){tie}"


def report_lines(report):
    """The report as lines of text (what the command prints)."""
    out = [f"Concept inventory: {report.files} answer file{'s' if report.files != 1 else ''} read; "
           f"{len(report.pre)} learner{'s' if len(report.pre) != 1 else ''} before, {len(report.post)} after, "
           f"{len(report.matched)} with both (matched by nickname)."]
    if report.extra_attempts:
        out.append(f"{report.extra_attempts} later attempt(s) by the same nickname not counted "
                   "(a learner's first before and first after count).")
    for reason in report.skipped:
        out.append(f"skipped: {reason}")
    out.append("")
    out.append("Per item: share right before -> after; the most chosen wrong answer (the misconception to address).")
    n_pre, n_post = len(report.pre), len(report.post)
    for n, (item, (before, after), (blank_pre, blank_post), (wrong_pre, wrong_post)) in enumerate(
            zip(inv.ITEMS, report.item_rates, report.blanks, report.top_wrong), 1):
        out.append(f"{n:2d}. {item.topic:<42s} {_percent(before, blank_pre, n_pre)} -> "
                   f"{_percent(after, blank_post, n_post)}{_blank_note(blank_pre, blank_post, n_pre, n_post)}")
        out.append(f"      wrong answer chosen most: before {_top(wrong_pre, len(report.pre))}; "
                   f"after {_top(wrong_post, len(report.post))}")
    out.append("")
    if report.class_gain is None:
        reason = ("no learner took both attempts under the same nickname" if not report.matched
                  else "every learner with both attempts had a perfect score before")
        out.append(f"Normalised gain: not computed ({reason}).")
    else:
        counted = len(report.individual_gains)
        interval = ("" if report.class_gain_interval is None else
                    " (95 % bootstrap interval over learners: {:.2f} to {:.2f})".format(*report.class_gain_interval))
        out.append(f"Class normalised gain <g> = (<post> - <pre>) / (100 - <pre>) = {report.class_gain:.2f}{interval}, "
                   f"over {counted} learner{'s' if counted != 1 else ''} with both attempts: mean before "
                   f"{report.mean_pre:.1f} %, mean after {report.mean_post:.1f} %.")
        out.append(f"Average of the individual gains (post_i - pre_i) / (100 - pre_i): "
                   f"{report.mean_individual_gain:.2f} over the same {counted}.")
    out.append(f"Left out of both (a perfect score before, nothing left to gain): {len(report.perfect_pre)}.")
    out.append("")
    out += _item_analysis_lines(report)
    out += list(claims(report))
    out += [""] + _delayed_lines(report)
    return out


def _delayed_lines(report):
    """The delayed retake: per item, right just after the course and days later, for the learners with both."""
    if not report.retained:
        return [f"Delayed retake: none in these files ({len(report.delayed)} delayed, none with a first answer after "
                "the course to compare with). Notebook 08 answered again a day or more later, under the same "
                "nickname, writes one."]
    n, days = len(report.retained), report.delay_days
    out = [f"Delayed retake: {n} learner{'s' if n != 1 else ''} answered notebook 08 again, {min(days):.1f} to "
           f"{max(days):.1f} days (median {float(np.median(days)):.1f}) after their first answers there. Per item: "
           "share right just after the course -> days later (a fall is what was forgotten)."]
    for k, (item, (after, later)) in enumerate(zip(inv.ITEMS, report.retention), 1):
        fall = "   <- forgotten by some" if later < after else ""
        out.append(f"{k:2d}. {item.topic:<42s} {after:3.0f} % -> {later:3.0f} %{fall}")
    mean_after = float(np.mean([report.post[key]["score"] for key in report.retained]))
    mean_later = float(np.mean([report.delayed[key]["score"] for key in report.retained]))
    out.append(f"Mean score of these {n}: {mean_after:.1f} % just after, {mean_later:.1f} % days later.")
    return out + list(DELAYED_CLAIMS)


def _item_analysis_lines(report):
    """The item analysis of each attempt with enough learners, or one line saying why there is none."""
    sizes = {"pre": len(report.pre), "post": len(report.post)}
    if not report.item_analysis:
        return [f"Item analysis (difficulty, discrimination): not computed; it needs at least {ITEM_ANALYSIS_MIN} "
                f"learners in an attempt ({sizes['pre']} before, {sizes['post']} after).", ""]
    out = []
    for attempt, when in (("pre", "before"), ("post", "after")):
        analysis = report.item_analysis.get(attempt)
        if analysis is None:
            out.append(f"Item analysis {when}: not computed ({sizes[attempt]} learners, fewer than {ITEM_ANALYSIS_MIN}).")
            out.append("")
            continue
        group = analysis["group"]
        out.append(f"Item analysis {when} ({sizes[attempt]} learners): difficulty = the share right (0 to 1); "
                   f"discrimination = the share right among the top {GROUP_SHARE * 100:.0f} % by total score ({group} "
                   f"learner{'s' if group != 1 else ''}) minus the share among the bottom {GROUP_SHARE * 100:.0f} % ({group}); "
                   f"below {LOW_DISCRIMINATION:.1f}, the item tells strong and weak learners apart poorly: revise it.")
        for n, (item, (difficulty, discrimination)) in enumerate(zip(inv.ITEMS, analysis["items"]), 1):
            flag = "   <- low" if discrimination < LOW_DISCRIMINATION else ""
            out.append(f"{n:2d}. {item.topic:<42s} difficulty {difficulty:4.2f}   discrimination "
                       f"{discrimination:+5.2f}{flag}")
        out.append("")
    return out


def draw(report, path):
    """One figure: per item, the share of learners right before and after; written to ``path`` (PNG).

    Returns
    -------
    Path
        ``path`` (written the tools' safe way: temporary file, read back, rename).
    """
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from course_utils import style
    from course_utils.safe_files import make_dirs, write_bytes

    n = len(inv.ITEMS)
    rows = np.arange(n)                                                      # (n,)
    before = np.array([np.nan if b is None else b for b, _ in report.item_rates])   # (n,)
    after = np.array([np.nan if a is None else a for _, a in report.item_rates])    # (n,)
    fig = Figure(figsize=(7.5, 0.42 * n + 1.6), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    height = 0.38
    ax.barh(rows - height / 2, np.nan_to_num(before), height, color=style.SKY, hatch="//",
            edgecolor=style.DARK_GREY, label=f"before (n = {len(report.pre)})")
    ax.barh(rows + height / 2, np.nan_to_num(after), height, color=style.BLUE,
            edgecolor=style.DARK_GREY, label=f"after (n = {len(report.post)})")
    ax.set_yticks(rows, [f"{k}. {item.topic}" for k, item in enumerate(inv.ITEMS, 1)], fontsize=style.FONT_NOTE)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("learners right (%)", fontsize=style.FONT_LABEL)
    gain = "not computed" if report.class_gain is None else f"{report.class_gain:.2f}"
    ax.set_title(f"Concept inventory: right before and after (class <g> = {gain})", fontsize=style.FONT_TITLE)
    ax.legend(loc="lower right", fontsize=style.FONT_NOTE)
    ax.tick_params(axis="x", labelsize=style.FONT_NOTE)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    path = Path(path)
    make_dirs(path.parent)
    return write_bytes(path, buffer.getvalue())


def main(argv=None):
    """The command line: print the report, draw the figure. Exit code 0, or 2 when no answer file was read."""
    parser = argparse.ArgumentParser(
        prog="python tools/inventory_report.py",
        description="Per-item rates, misconceptions and normalised gain from the concept inventory's answer files.")
    parser.add_argument("files", nargs="*", metavar="FILE_OR_FOLDER",
                        help="answer files (inventory/*.json) or folders holding them")
    parser.add_argument("--names", default="", metavar="TEXT",
                        help="more of them in one text, split as a shell splits words (quotes keep a name with "
                             "spaces) and never run: make's FILES=... arrives here")
    parser.add_argument("--figure", default="inventory-report.png",
                        help="where to write the figure (PNG; default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        files = args.files + shlex.split(args.names)
    except ValueError as err:  # an unclosed quote
        parser.error(f"--names: {err}")
    if not files:
        parser.error("give the answer files, or their folder (make inventory-report FILES=handed-in/)")
    records, skipped = collect(files)
    report = make_report(records, skipped)
    for line in report_lines(report):
        print(line)
    if not records:
        print("No answer file was read: give the files learners handed in, or their folder.", file=sys.stderr)
        return 2
    print(f"\nFigure: {draw(report, args.figure)}")
    return 0


if __name__ == "__main__":  # pragma: no cover - the command line
    sys.exit(main())
