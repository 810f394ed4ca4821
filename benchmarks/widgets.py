"""Dashboard latency: for every Dashboard subclass exported by course_utils.widgets, built with its
defaults, move each control back and forth and time "control change -> redrawn PNG bytes"
(draw + render_png, what a live kernel does before sending the image). Median and 95th percentile.
Writes benchmarks/results/widgets.md.

    python benchmarks/widgets.py [--moves 20]
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

import course_utils.widgets as widgets  # noqa: E402
from course_utils.widgets import Dashboard  # noqa: E402

GOAL_MS = 50.0


def dashboards():
    return [obj for name in widgets.__all__ if isinstance(obj := getattr(widgets, name), type)
            and issubclass(obj, Dashboard) and obj is not Dashboard]


def other_value(control):
    """A valid value different from the control's current one (None if there is none)."""
    value = control.value
    if hasattr(control, "options") and control.options:
        options = [o[1] if isinstance(o, tuple) else o for o in control.options]
        for option in options:
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


def time_moves(dashboard, name, moves):
    control = dashboard.controls[name]
    first = control.value
    second = other_value(control)
    if second is None:
        return None
    times = []
    for i in range(moves):
        target = second if i % 2 == 0 else first
        start = time.perf_counter()
        control.value = target  # observe -> refresh -> draw
        dashboard.render_png()
        times.append(time.perf_counter() - start)
    control.value = first
    return times


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


def run(moves):
    rows, all_medians = [], []
    for cls in dashboards():
        try:
            dashboard = BUILDERS[cls.__name__](cls) if cls.__name__ in BUILDERS else cls()
        except Exception as exc:  # a dashboard that needs arguments
            rows.append([cls.__name__, "-", f"cannot build with defaults: {exc}", "", ""])
            continue
        for name in list(dashboard.controls):
            times = time_moves(dashboard, name, moves)
            if times is None:
                rows.append([cls.__name__, name, "no other value", "", ""])
                continue
            times.sort()
            median = statistics.median(times) * 1000
            p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))] * 1000
            all_medians.append(median)
            rows.append([cls.__name__, name, f"{median:.1f}", f"{p95:.1f}",
                         "yes" if median < GOAL_MS else "NO"])
            print(f"{cls.__name__:<28} {name:<16} median {median:6.1f} ms  p95 {p95:6.1f} ms", flush=True)
        png = len(dashboard.render_png())
        rows.append([cls.__name__, f"(PNG {png // 1024} KiB, {dashboard.fig.get_size_inches()[0]:.1f} x "
                     f"{dashboard.fig.get_size_inches()[1]:.1f} in at {dashboard.fig.dpi:.0f} dpi)", "", "", ""])
        dashboard.close()
    return rows, all_medians


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=20)
    args = parser.parse_args(argv)
    rows, medians = run(args.moves)
    _common.RESULTS.mkdir(parents=True, exist_ok=True)
    text = "\n".join([
        "# Dashboard update latency",
        "",
        f"Each control moved {args.moves} times (back and forth between two values); time from setting "
        "`control.value` to the redrawn PNG bytes (`draw` + `render_png`). Goal: median under "
        f"{GOAL_MS:.0f} ms.",
        "",
        "## Machine",
        *_common.machine(),
        "",
        _common.markdown_table(["dashboard", "control", "median (ms)", "p95 (ms)", f"< {GOAL_MS:.0f} ms"], rows),
        "",
        f"Slowest median: {max(medians):.1f} ms." if medians else "",
        "",
    ])
    (_common.RESULTS / "widgets.md").write_text(text, encoding="utf-8")
    print(f"wrote {_common.RESULTS / 'widgets.md'}")


if __name__ == "__main__":
    main()
