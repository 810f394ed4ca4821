"""Run time of every solved notebook, executed top to bottom in a fresh kernel with nbclient (nothing is
written back to the notebooks), today's against an older commit's ("before"), in one run.

"Before" is a git ref (checked out into a temporary worktree) or a directory: its own solutions/ run with its own
course_utils (its root first on the kernel's PYTHONPATH; a last cell checks which course_utils the kernel imported),
in this environment. Today's run the same way, with this checkout first on PYTHONPATH. The two alternate notebook by
notebook, in rounds (before first in one round, after first in the next), so a burst of load from the other
processes of a shared machine hits both alike; a notebook's time is its median over the rounds. The kernels get
the environment as the machine set it, as a learner's do: this process's, with back what `make bench` unset for the
other parts (COURSE_BENCH_MACHINE_ENV: "NAME=value ..." as the machine had them).

Reported: per-notebook seconds before and after, their ratio, the totals and their ratio (also per round), the
median notebook and each notebook's ratio to it; where the time goes (kernel start, the slowest cells); the machine
and its load. Goals (issue 14): total after <= 0.6 x total before; no notebook over 2 x the median notebook.

    python benchmarks/notebooks.py [NN ...] [--rounds 3] [--before REF_OR_DIR | --no-before] [--after REF_OR_DIR]

--after REF times a commit instead of this checkout's working tree (which others sharing it may be editing).

Writes benchmarks/results/notebooks.md.
"""
import argparse
import contextlib
import os
import statistics
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

ROOT = _common.ROOT
BEFORE_REF = "3de3da7"  # the parent of issue 14's first commit (c02c0eb)
TOTAL_GOAL = 0.6  # total after <= this x total before
SPREAD_GOAL = 2.0  # no notebook over this x the median notebook
PROBE = "import course_utils as _cu\nprint(_cu.__file__)"


def machine_env():
    """This process's environment with the variables `make bench` unset put back as the machine had them."""
    env = {k: v for k, v in os.environ.items() if k != "COURSE_BENCH_MACHINE_ENV"}
    for pair in os.environ.get("COURSE_BENCH_MACHINE_ENV", "").split():
        name, _, value = pair.partition("=")
        env[name] = value
    return env


def run_one(path, tree):
    """Execute one notebook in a fresh kernel whose course_utils is ``tree``'s: seconds, where they went, status."""
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    marks = {}
    cells = {}

    def cell_start(cell, cell_index, **_):
        marks.setdefault("first_cell", time.perf_counter())
        marks["cell"] = time.perf_counter()

    def cell_done(cell, cell_index, **_):
        if cell_index < len(nb.cells) - 1:
            cells[cell.get("id") or f"cell {cell_index}"] = time.perf_counter() - marks["cell"]

    client = NotebookClient(nb, timeout=600, kernel_name="python3", on_cell_start=cell_start,
                            on_cell_executed=cell_done, resources={"metadata": {"path": str(path.parent)}})
    env = machine_env()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tree), env.get("PYTHONPATH")) if p)
    start = time.perf_counter()
    try:
        client.execute(env=env)
        printed = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("name") == "stdout").strip()
        status = "ok" if Path(printed).resolve().is_relative_to(Path(tree).resolve()) else f"wrong course_utils: {printed}"
    except Exception as exc:  # report, do not stop the other notebooks
        status = f"error: {type(exc).__name__}"
    seconds = time.perf_counter() - start
    kernel_start = marks.get("first_cell", start) - start
    return {"seconds": seconds, "start": kernel_start, "cells": cells, "status": status}


def run(prefixes, trees, rounds):
    """trees: label -> root. Returns label -> stem -> list of run dicts (one per round)."""
    paths = {label: {p.stem: p for p in sorted((root / "solutions").glob("[0-9][0-9]-*.ipynb"))
                     if not prefixes or p.name[:2] in prefixes} for label, root in trees.items()}
    stems = sorted(set().union(*paths.values()))
    runs = {label: {stem: [] for stem in paths[label]} for label in trees}
    for r in range(rounds):
        for i, stem in enumerate(stems):
            order = list(trees) if (r + i) % 2 == 0 else list(trees)[::-1]
            for label in order:
                if stem not in paths[label]:
                    continue
                result = run_one(paths[label][stem], trees[label])
                runs[label][stem].append(result)
                print(f"round {r + 1} {label:<6} {stem:<34} {result['seconds']:6.1f} s "
                      f"(kernel start {result['start']:.1f} s)  {result['status']}", flush=True)
    return runs


def summary(runs_of_label):
    """stem -> median seconds, the total, the median notebook, per-round totals."""
    medians = {stem: statistics.median(r["seconds"] for r in rs) for stem, rs in runs_of_label.items()}
    rounds = min(len(rs) for rs in runs_of_label.values())
    per_round = [sum(rs[i]["seconds"] for rs in runs_of_label.values()) for i in range(rounds)]
    return medians, sum(medians.values()), statistics.median(medians.values()), per_round


def profile_rows(runs_of_label, top=3):
    """Per notebook: median kernel start, median of the rest, and its slowest cells (median seconds)."""
    rows = []
    for stem, rs in runs_of_label.items():
        start = statistics.median(r["start"] for r in rs)
        cell_ids = rs[0]["cells"].keys()
        cell_medians = {c: statistics.median(r["cells"].get(c, 0.0) for r in rs) for c in cell_ids}
        slowest = sorted(cell_medians.items(), key=lambda kv: -kv[1])[:top]
        rows.append([stem, f"{start:.2f}", f"{sum(cell_medians.values()):.2f}",
                     ", ".join(f"`{c}` {s:.2f}" for c, s in slowest)])
    return rows


def report(runs, before_name, after_name, rounds, load):
    after_medians, after_total, after_median, after_rounds = summary(runs["after"])
    has_before = "before" in runs
    if has_before:
        before_medians, before_total, before_median, before_rounds = summary(runs["before"])
    stems = sorted(set(after_medians) | (set(before_medians) if has_before else set()))
    rows = []
    for stem in stems:
        a = after_medians.get(stem)
        row = [stem]
        if has_before:
            b = before_medians.get(stem)
            row += [f"{b:.1f}" if b is not None else "-", f"{b / before_median:.2f}" if b is not None else "-"]
        row += [f"{a:.1f}" if a is not None else "-", f"{a / after_median:.2f}" if a is not None else "-"]
        if has_before:
            row.append(f"{a / b:.2f}" if a is not None and b is not None else "-")
        statuses = {r["status"] for label in runs for r in runs[label].get(stem, [])}
        row.append(", ".join(sorted(statuses)))
        rows.append(row)
    header = ["notebook"] + (["before (s)", "before / median"] if has_before else []) + ["after (s)", "after / median"]
    header += (["after / before"] if has_before else []) + ["status"]
    worst_stem = max(after_medians, key=after_medians.get)
    worst = after_medians[worst_stem] / after_median
    lines = [
        "| total | " + (f"{before_total:.1f} | | " if has_before else "") + f"{after_total:.1f} | | "
        + (f"{after_total / before_total:.2f} |" if has_before else "") + " |",
        "| median notebook | " + (f"{before_median:.1f} | 1.00 | " if has_before else "") + f"{after_median:.1f} | 1.00 | "
        + (f"{after_median / before_median:.2f} |" if has_before else "") + " |",
    ]
    goals = []
    if has_before:
        ratio = after_total / before_total
        per_round = [a / b for a, b in zip(after_rounds, before_rounds)]
        goals.append(f"- Total: after {after_total:.1f} s / before {before_total:.1f} s = **{ratio:.2f}** (goal <= "
                     f"{TOTAL_GOAL}: {_common.verdict(ratio <= TOTAL_GOAL, 'notebooks-total')}); per round "
                     + ", ".join(f"{x:.2f}" for x in per_round) + ".")
        before_worst = max(before_medians, key=before_medians.get)
        goals.append(f"- Before, the slowest notebook: {before_worst}, {before_medians[before_worst] / before_median:.2f} "
                     f"x the median notebook ({before_median:.1f} s).")
    goals.append(f"- After, the slowest notebook: {worst_stem}, **{worst:.2f}** x the median notebook "
                 f"({after_median:.1f} s) (goal <= {SPREAD_GOAL}: {_common.verdict(worst <= SPREAD_GOAL)}).")
    text = [
        "# Notebook run times",
        "",
        "Each solved notebook executed top to bottom in a fresh python3 kernel (nbclient), kernel start-up and "
        "shut-down included, with this process's environment as the machine set it. "
        + (f"Before: `{before_name}`, its own solutions/ and course_utils, in the same environment and the same run; "
           "before and after alternate notebook by notebook (before first in one round, after first in the next). "
           if has_before else "")
        + (f"After: `{after_name}`, checked out the same way. " if after_name else "After: this checkout. ")
        + f"Seconds: the median of {rounds} round{'s' if rounds != 1 else ''}. Ratio to the median: the notebook's "
        "seconds over the median notebook's of the same column.",
        "",
        "## Machine",
        *_common.machine(),
        f"- load: {load}",
        "- the kernels' environment: as the machine set it; of the variables above, "
        + ", ".join(f"{k}={machine_env().get(k, '(unset)')}" for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
                                                                       "PYTHONDONTWRITEBYTECODE")),
        "",
        "## Run times",
        "",
        _common.markdown_table(header, rows),
        *lines,
        "",
        *goals,
        "",
        "## Where the time goes (after)",
        "",
        "Median seconds: from asking for a kernel until it answers (kernel start), in the notebook's cells (cells), "
        "and its three slowest cells by id; the rest of a notebook's time is nbclient's own and the kernel's shut-down.",
        "",
        _common.markdown_table(["notebook", "kernel start", "cells", "slowest cells (s)"], profile_rows(runs["after"])),
        "",
    ]
    if has_before:
        text += ["## Where the time went (before)", "",
                 _common.markdown_table(["notebook", "kernel start", "cells", "slowest cells (s)"],
                                        profile_rows(runs["before"])), ""]
    return "\n".join(text), goals


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="*", help="notebook numbers, e.g. 01 07 (default: all)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each notebook per side (default 3)")
    parser.add_argument("--before", default=BEFORE_REF,
                        help=f"git ref or directory of the course to compare with (default {BEFORE_REF})")
    parser.add_argument("--no-before", action="store_true", help="time only today's notebooks")
    parser.add_argument("--after", help="git ref or directory of today's course (default: this checkout as it is)")
    parser.add_argument("--output", type=Path, default=_common.RESULTS / "notebooks.md")
    args = parser.parse_args(argv)
    meter = _common.LoadMeter()
    load_start = os.getloadavg()[0]
    with contextlib.ExitStack() as stack:
        trees = {} if args.no_before else {"before": stack.enter_context(_common.checkout(args.before))}
        trees["after"] = stack.enter_context(_common.checkout(args.after)) if args.after else ROOT
        runs = run(set(args.prefixes), trees, args.rounds)
    others = meter.cores_used_by_others()
    load = (f"1-minute load average {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; "
            + (f"other processes kept about {others:.2f} of the {os.cpu_count()} cores busy during the run (/proc/stat)"
               if others is not None else "CPU use of other processes unknown"))
    text, goals = report(runs, args.before, args.after, args.rounds, load)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(load)
    print("\n".join(goals))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
