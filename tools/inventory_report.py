"""What a room learned: the concept inventory's answer files, before and after, summed up for the instructor.

    python tools/inventory_report.py FILES_OR_FOLDERS... [--figure PATH]
    make inventory-report FILES="inventory/ handed-in/*.json"

Reads the files that notebooks 00 ("pre") and 08 ("post") wrote (``course_utils.lessons.inventory``; a folder
stands for the ``*.json`` files in it) and prints:

* per item, the share of learners right before and after, and the most chosen wrong answer each time: the
  named misconception to address (a myth of the notebooks or a mistake the checkers name);
* the class's normalised gain ``<g> = (<post> - <pre>) / (100 - <pre>)`` (Hake 1998), from the mean scores of
  the learners with both attempts (matched by nickname, ``nickname_key``); a learner whose "pre" score is 100
  has nothing left to gain and is left out of ``<g>``, and counted; with a 95 % bootstrap interval over learners;
* the average of the individual gains ``(post_i - pre_i) / (100 - pre_i)`` over the same learners;
* what a same-day, same-items ``<g>`` can and cannot claim.

A learner's first "pre" and first "post" count (a second "post" came after the feedback of the first). Files
that are not answer files are listed and skipped. One figure (PNG): per item, right before and after.
Nothing here sends or fetches anything.
"""
from __future__ import annotations

import argparse
import shlex
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import _checkout  # noqa: F401  (this checkout's course_utils first)
import numpy as np

from course_utils.lessons import inventory as inv

__all__ = ["CLAIMS", "Report", "collect", "draw", "main", "make_report", "report_lines"]

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
    "one answer is 8 points on one learner's score; see the interval); or the whole room (only the learners who "
    "took both attempts under the same nickname count, and those who left before notebook 08 may differ).",
)


@dataclass
class Report:
    """The numbers of one report (see ``make_report``)."""

    files: int
    skipped: list
    pre: dict                     # nickname key -> the first "pre" record
    post: dict                    # nickname key -> the first "post" record
    extra_attempts: int           # attempts beyond a learner's first of each kind (not counted)
    item_rates: list              # per item: (share right before or None, share right after or None), percent
    top_wrong: list               # per item: (Counter before, Counter after) of the misconceptions chosen
    matched: list                 # nickname keys with both attempts
    perfect_pre: list             # of those, the ones left out of g (pre score 100)
    mean_pre: float | None = None
    mean_post: float | None = None
    class_gain: float | None = None
    class_gain_interval: tuple | None = None
    mean_individual_gain: float | None = None
    individual_gains: dict = field(default_factory=dict)


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
    rates, wrong = [], []
    for n in range(len(inv.ITEMS)):
        pair_rates, pair_wrong = [], []
        for group in (pre, post):
            chosen = [record["items"][n]["chosen"] for record in group.values()]
            pair_rates.append(100.0 * sum(c == inv.CORRECT for c in chosen) / len(chosen) if chosen else None)
            pair_wrong.append(Counter(c for c in chosen if c is not None and c != inv.CORRECT))
        rates.append(tuple(pair_rates))
        wrong.append(tuple(pair_wrong))
    matched = sorted(set(pre) & set(post))
    perfect = [key for key in matched if pre[key]["score"] >= 100]
    counted = [key for key in matched if key not in perfect]
    report = Report(files=len(records) if files is None else files, skipped=list(skipped), pre=pre, post=post,
                    extra_attempts=extra_pre + extra_post, item_rates=rates, top_wrong=wrong, matched=matched,
                    perfect_pre=perfect)
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


def _percent(value):
    return "  -  " if value is None else f"{value:3.0f} %"


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
    for n, (item, (before, after), (wrong_pre, wrong_post)) in enumerate(
            zip(inv.ITEMS, report.item_rates, report.top_wrong), 1):
        out.append(f"{n:2d}. {item.topic:<42s} {_percent(before)} -> {_percent(after)}")
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
    out += list(CLAIMS)
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
