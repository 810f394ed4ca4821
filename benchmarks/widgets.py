"""Dashboard latency against the naive way, before and after, alternated in one run.

For every Dashboard subclass exported by course_utils.widgets, built with its defaults, each control is moved
back and forth between two values and "control change -> new picture bytes ready" is timed (setting
``control.value``, which calls ``draw``, then ``render_png``: what a live kernel does before sending the picture).
Between two moves the naive way is timed once: one generic figure, 10 x 4.6 in at 100 dpi, a 3-bar chart with value
labels beside a filled triangle with a point, made with pyplot, saved as a PNG and closed, as a notebook that
re-creates its figure on every move does. Each control's ratio is its median over the naive median measured
between its own moves, so a machine that slows down during the run (2 shared cores) slows both alike.

Goal (issue 23; issue 14 asked 0.4x): every control's median <= 0.5x the naive time.

"Before" is an older course_utils (a git commit, checked out into a temporary worktree, or a directory holding
course_utils), "after" this checkout; each side is measured in a subprocess of its own, in rounds alternated (before,
after; after, before; ...), so both see the same machine. A control's ratio is the median of its rounds' ratios
(their range in the table). Also measured, not part of the goal: a sweep of sliders through values not shown before
(each move to a new value, so a new picture where a dashboard caches one per state).

    python benchmarks/widgets.py [--moves 20] [--rounds 2] [--before REF_OR_DIR | --no-before] [--dashboard NAME ...]

Writes benchmarks/results/widgets.md; with ``--dashboard`` (a quicker look at some dashboards, e.g.
``--dashboard HeadsDashboard --before HEAD``) it prints the table and leaves the results file alone.
"""
import argparse
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: The goal (issue 23): a control's median update at most this fraction of the naive time measured in the same run.
GOAL_RATIO = 0.5
#: The code before the glyph-replaying canvas went (issue 23): dashboards drawn by _render.TextCachingCanvas, with
#: the cached background only on matplotlib >= 3.11. (Issue 23's first before, each update's PNG written by a
#: hand-made encoder, was 0a560b9; issue 14's, a palette PNG per update and no text cache, 51b5563.)
BEFORE_REF = "b108507"


def naive_update():
    """One update done the naive way: a new pyplot figure (10 x 4.6 in, 100 dpi), drawn, saved as PNG, closed.

    Returns
    -------
    bytes
        The PNG.
    """
    import matplotlib.pyplot as plt

    fig, (ax_bars, ax_hull) = plt.subplots(1, 2, figsize=(10, 4.6), dpi=100)
    bars = ax_bars.bar(["t1", "t2", "t3"], [0.2, 0.5, 0.3])
    ax_bars.bar_label(bars, fmt="%.2f")
    ax_hull.fill([1.0, 0.0, 3.0], [0.0, 2.0, 1.0], alpha=0.3)
    ax_hull.plot([1.4], [1.0], "o")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return buffer.getvalue()


def dashboards(names=None):
    """The Dashboard classes course_utils.widgets exports (only those named in ``names``, when given)."""
    import course_utils.widgets as widgets
    from course_utils.widgets import Dashboard

    found = [obj for name in widgets.__all__ if isinstance(obj := getattr(widgets, name), type)
             and issubclass(obj, Dashboard) and obj is not Dashboard]
    if names:
        unknown = sorted(set(names) - {cls.__name__ for cls in found})
        if unknown:
            raise SystemExit(f"no dashboard named {unknown}; there are {[cls.__name__ for cls in found]}")
        found = [cls for cls in found if cls.__name__ in names]
    return found


def _options(control):
    return [o[1] if isinstance(o, tuple) else o for o in control.options]


def other_value(control):
    """A valid value different from the control's current one (None if there is none)."""
    value = control.value
    if hasattr(control, "options") and control.options:
        for option in _options(control):
            if option != value:
                return option
        return None
    if isinstance(value, bool):
        return not value
    low, high = getattr(control, "min", None), getattr(control, "max", None)
    if low is None or high is None or low == high:
        return None
    step = getattr(control, "step", None) or (high - low) / 10
    candidate = value + step if value + step <= high else value - step
    return type(value)(candidate)


def sweep_values(control, count):
    """Up to ``count`` values of a slider not equal to its current one, in order from it (None for a switch)."""
    value = control.value
    if isinstance(value, bool):
        return None
    if hasattr(control, "options") and control.options:
        values = _options(control)
    else:
        low, high = getattr(control, "min", None), getattr(control, "max", None)
        if low is None or high is None:
            return None
        step = getattr(control, "step", None) or (high - low) / 10
        n = int(round((high - low) / step))
        values = [type(value)(round(low + i * step, 10)) for i in range(n + 1)]
    values = [v for v in values if v != value]
    if len(values) < 3:
        return None  # two or three states: every move soon shows one seen before
    start = min(range(len(values)), key=lambda i: abs(values[i] - value) if not isinstance(value, str) else 0)
    ordered = values[start:] + values[:start][::-1]
    return ordered[:count]


def _timed(action):
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def measure_control(dashboard, name, moves):
    """Back-and-forth moves of one control, each followed by one naive update: (update times, naive times)."""
    control = dashboard.controls[name]
    first, second = control.value, other_value(control)
    if second is None:
        return None
    updates, naive = [], []

    def move(target):
        control.value = target  # observe -> refresh -> draw
        dashboard.render_png()

    for i in range(moves):
        target = second if i % 2 == 0 else first
        updates.append(_timed(lambda target=target: move(target)))
        naive.append(_timed(naive_update))
    control.value = first
    return updates, naive


def measure_sweep(dashboard, name, moves):
    """Moves of a slider to values not shown before, each followed by one naive update (None for a switch)."""
    control = dashboard.controls[name]
    first, values = control.value, sweep_values(control, moves)
    if values is None:
        return None
    updates, naive = [], []

    def move(target):
        control.value = target
        dashboard.render_png()

    for target in values:
        updates.append(_timed(lambda target=target: move(target)))
        naive.append(_timed(naive_update))
    control.value = first
    return updates, naive


def _training_dashboard(cls):
    """TrainingDashboard needs a training run: the one notebook 06 makes (200 steps, ~0.6 s)."""
    from course_utils.lessons import training as tr

    tokens, pos, labels = tr.make_tickets(512, seed=0)
    probe_tokens, probe_pos, _ = tr.make_tickets(1000, seed=1)
    probe = (probe_tokens[:6], probe_pos[:6])
    params = tr.init_params(d_model=8, d_k=8, length=6, seed=0)
    run = tr.train(params, tokens, pos, labels, steps=200, lr=0.005, probe=probe, snapshot_every=5)
    return cls(run, probe[0])


#: Dashboards that cannot be built without arguments, and how to build them as their notebook does.
BUILDERS = {"TrainingDashboard": _training_dashboard}


def _ms(times):
    return statistics.median(times) * 1000


def measure(moves, label="", names=None):
    """Every dashboard (or those named in ``names``) and control of the course_utils this process imports.

    Returns
    -------
    dict
        ``{"rows": [...], "naive_ms": float}``; each row: dashboard, control, median_ms, p95_ms, naive_ms (the naive
        median between its moves), sweep_ms / sweep_naive_ms (or None), note.
    """
    rows, all_naive = [], []
    naive_update()  # warm up pyplot and the font cache
    for cls in dashboards(names):
        try:
            dashboard = BUILDERS[cls.__name__](cls) if cls.__name__ in BUILDERS else cls()
        except Exception as exc:  # a dashboard that needs arguments
            rows.append(dict(dashboard=cls.__name__, control="-", note=f"cannot build with defaults: {exc}"))
            continue
        dashboard.render_png()  # the first picture, as show() makes it
        for name in list(dashboard.controls):
            measured = measure_control(dashboard, name, moves)
            if measured is None:
                rows.append(dict(dashboard=cls.__name__, control=name, note="no other value"))
                continue
            updates, naive = measured
            all_naive += naive
            updates_sorted = sorted(updates)
            row = dict(dashboard=cls.__name__, control=name, median_ms=_ms(updates), naive_ms=_ms(naive),
                       p95_ms=updates_sorted[min(len(updates) - 1, round(0.95 * (len(updates) - 1)))] * 1000,
                       sweep_ms=None, sweep_naive_ms=None, note="")
            swept = measure_sweep(dashboard, name, moves)
            if swept is not None:
                row["sweep_ms"], row["sweep_naive_ms"] = _ms(swept[0]), _ms(swept[1])
            rows.append(row)
            print(f"{label}{cls.__name__:<26} {name:<10} median {row['median_ms']:6.1f} ms  naive "
                  f"{row['naive_ms']:6.1f} ms  ratio {row['median_ms'] / row['naive_ms']:.2f}", flush=True)
        size = dashboard.fig.get_size_inches()
        rows.append(dict(dashboard=cls.__name__, control="(picture)", note=(
            f"{size[0]:.1f} x {size[1]:.1f} in at {dashboard.fig.dpi:.0f} dpi; update PNG "
            f"{len(dashboard.render_png()) // 1024} KiB")))
        dashboard.close()
    return {"rows": rows, "naive_ms": _ms(all_naive) if all_naive else None}


def measure_tree(tree, moves, names=None, label=""):
    """``measure(moves, names=names)`` for the course_utils of ``tree`` (a directory), in a subprocess."""
    with tempfile.TemporaryDirectory(prefix="bench-widgets-") as tmp:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]))
        out = Path(tmp) / "measured.json"
        only = [arg for name in names or () for arg in ("--dashboard", name)]
        subprocess.run([sys.executable, __file__, "--moves", str(moves), "--json", str(out), "--label", label, *only],
                       check=True, env=env, cwd=tmp)
        return json.loads(out.read_text(encoding="utf-8"))


def alternated(before, moves, rounds, names=None):
    """(after's rounds, before's rounds): each a list of ``measure`` results, the sides alternated round by round
    (before first in even rounds, after first in odd ones). ``before`` is None (not measured), a directory or a ref."""
    afters, befores = [], []
    with contextlib.ExitStack() as stack:
        old = None if before is None else stack.enter_context(_common.checkout(before))
        for index in range(rounds):
            sides = [("after", ROOT, afters)] + ([] if old is None else [("before", old, befores)])
            for side, tree, results in (sides if index % 2 else sides[::-1]):
                print(f"== round {index + 1} of {rounds}: {side}", flush=True)
                results.append(measure_tree(tree, moves, names, label=f"{side} {index + 1}: "))
    return afters, befores


def combine(rounds):
    """One side's rounds as one ``measure`` result: per control, the medians over the rounds of its median, p95,
    naive and sweep times, and its rounds' ratios (``ratios``, ``sweep_ratios``); notes from the first round."""
    if not rounds:
        return None
    rows = []
    for index, first in enumerate(rounds[0]["rows"]):
        same = [r["rows"][index] for r in rounds]
        if "median_ms" not in first:
            rows.append(dict(first))
            continue
        row = dict(first)
        for key in ("median_ms", "p95_ms", "naive_ms"):
            row[key] = statistics.median(r[key] for r in same)
        row["ratios"] = [r["median_ms"] / r["naive_ms"] for r in same]
        swept = [r for r in same if r["sweep_ms"] is not None]
        row["sweep_ratios"] = [r["sweep_ms"] / r["sweep_naive_ms"] for r in swept]
        row["sweep_ms"] = statistics.median(r["sweep_ms"] for r in swept) if swept else None
        rows.append(row)
    return {"rows": rows, "naive_ms": statistics.median(r["naive_ms"] for r in rounds if r["naive_ms"] is not None)}


def _ratio(ratios):
    """The median of a control's rounds' ratios, with their range when there are several: "0.41, 0.39-0.44"."""
    text = f"{statistics.median(ratios):.2f}"
    return text if len(ratios) < 2 else f"{text}, {min(ratios):.2f}-{max(ratios):.2f}"


def table(after, before):
    """Markdown rows: per dashboard and control, before and after (ms, and ratio to the naive time), goal met or not."""
    old = {(r["dashboard"], r["control"]): r for r in before["rows"]} if before else {}
    rows = []
    for row in after["rows"]:
        key = (row["dashboard"], row["control"])
        if "median_ms" not in row:
            prior = old.get(key, {}).get("note", "")
            rows.append([row["dashboard"], row["control"], prior, row["note"], "", "", "", ""])
            continue
        prior = old.get(key)
        ratio = statistics.median(row["ratios"])
        sweep = "-" if row["sweep_ms"] is None else f"{row['sweep_ms']:.1f} ({_ratio(row['sweep_ratios'])})"
        rows.append([
            row["dashboard"], row["control"],
            f"{prior['median_ms']:.1f} ({_ratio(prior['ratios'])})" if prior and "median_ms" in prior else "-",
            f"{row['median_ms']:.1f} ({_ratio(row['ratios'])})", f"{row['p95_ms']:.1f}", f"{row['naive_ms']:.1f}",
            _common.verdict(ratio <= GOAL_RATIO, why="dashboards"), sweep,
        ])
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2, help="rounds of each side, alternated (default 2)")
    parser.add_argument("--before", default=BEFORE_REF,
                        help=f"git ref or directory of the code to compare with (default {BEFORE_REF})")
    parser.add_argument("--no-before", action="store_true", help="measure only the current code")
    parser.add_argument("--dashboard", action="append", metavar="NAME",
                        help="measure only this dashboard class (repeatable); the results file is left alone")
    parser.add_argument("--json", type=Path, help=argparse.SUPPRESS)  # a subprocess measuring one side, one round
    parser.add_argument("--label", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.json:
        args.json.write_text(json.dumps(measure(args.moves, label=args.label, names=args.dashboard)), encoding="utf-8")
        return
    load = _common.LoadMeter()
    afters, befores = alternated(None if args.no_before else args.before, args.moves, args.rounds, args.dashboard)
    after, before = combine(afters), combine(befores)
    others = load.cores_used_by_others()
    rows = table(after, before)
    ratios = [statistics.median(r["ratios"]) for r in after["rows"] if "ratios" in r]
    met = sum(ratio <= GOAL_RATIO for ratio in ratios)
    header = ["dashboard", "control", "before ms (ratio)", "after ms (ratio)", "after p95 ms", "naive ms",
              f"after <= {GOAL_RATIO}", "sweep ms (ratio)"]
    summary = f"Goal met for {met} of {len(ratios)} controls; largest ratio {max(ratios):.2f}." if ratios else ""
    if args.dashboard:  # a part of the run: printed, the results file keeps the full run
        print(_common.markdown_table(header, rows))
        print(f"load: other processes kept {'?' if others is None else f'{others:.2f}'} of {os.cpu_count()} cores "
              f"busy; naive median {after['naive_ms']:.1f} ms. {summary}")
        return
    _common.RESULTS.mkdir(parents=True, exist_ok=True)
    text = "\n".join([
        "# Dashboard update latency",
        "",
        f"Each control moved {args.moves} times back and forth between two values; time from setting "
        "`control.value` to the new picture's PNG bytes (`draw` + `render_png`). After each move the naive way is "
        "timed once: a new pyplot figure, 10 x 4.6 in at 100 dpi, a 3-bar chart with value labels beside a filled "
        "triangle with a point, saved as PNG and closed. Ratio = the control's median / the naive median measured "
        f"between its moves. Goal (issue 23): ratio <= {GOAL_RATIO}. "
        + ("Before: not measured." if before is None else
           f"Before: `{args.before}`, after: this checkout, each measured {args.rounds} times in a subprocess of its "
           "own, the sides alternated (before, after; after, before; ...); ms are medians over the rounds, a ratio "
           "is the median of the rounds' ratios, then their range, in brackets.")
        + " Sweep (not part of the goal): a slider moved to values not shown before, median ms (ratio).",
        "",
        "## Machine",
        *_common.machine(),
        f"- load: other processes kept {'?' if others is None else f'{others:.2f}'} of {os.cpu_count()} cores busy "
        "on average during the run (before and after alike: the ratios compare times taken moments apart)",
        "",
        _common.markdown_table(header, rows),
        "",
        f"Naive update, median over the run: {after['naive_ms']:.1f} ms"
        + ("" if before is None else f" (before's rounds: {before['naive_ms']:.1f} ms)") + ".",
        summary,
        "",
    ])
    (_common.RESULTS / "widgets.md").write_text(text, encoding="utf-8")
    print(_common.markdown_table(header, rows))
    print(f"wrote {_common.RESULTS / 'widgets.md'}")


if __name__ == "__main__":
    main()
