"""Attention benchmark: what the plain reference costs at notebook 07's sizes, and how blockwise memory grows.

Issue 23 retired the speed goals beside PyTorch (docs/performance.md, "Attention"): the reference is the plainest
correct numpy, and nothing here is a goal. What still informs: whether a learner waits for the reference at the
sizes notebook 07 uses, and that blockwise attention's peak memory grows like T, not T^2.

For q, k, v of shape (4 heads, T, 64), float64 and float32, T = 128 to 2048: the median time of
``scaled_dot_product_attention`` and of ``blockwise_attention`` in 128 x 128 tiles (notebook 07's), and tracemalloc's
peak of one call of each; and blockwise attention's peak at T = 16384 (one head, float64, 128 x 128 tiles). The calls
run with OPENBLAS_NUM_THREADS=1 unless it is set, as in the notebooks (their setup cell sets it).

``--before REF`` (a git ref, checked out into a temporary worktree, or a directory holding course_utils): the same
calls of that course_utils too, in a subprocess, in alternating rounds (before first in one round, after first in
the next; each side in a fresh process), so a burst of load from the other processes of a shared machine hits both
alike; each time is the median over the rounds, and each ratio after / before is also given per round (median and
range).

    python benchmarks/attention.py [--quick] [--rounds 5] [--before REF] [--output PATH]

Writes benchmarks/results/attention.md.
"""
import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

HEADS, D = 4, 64
LENGTHS = (128, 256, 512, 1024, 2048)
DTYPES = ("float64", "float32")
BLOCK = 128  # notebook 07's tiles
LONG_T = 16384
SDPA, BLOCKWISE = "scaled_dot_product_attention", f"blockwise_attention ({BLOCK} x {BLOCK})"


def calls(cu, dtype, t):
    """name -> a call of no argument, on q, k, v of shape (HEADS, t, D) of ``dtype`` (the same for every run)."""
    q, k, v = np.random.default_rng(t).normal(size=(3, HEADS, t, D)).astype(dtype)  # (heads, T, D) each
    return {SDPA: lambda: cu.scaled_dot_product_attention(q, k, v), BLOCKWISE: lambda: cu.blockwise_attention(q, k, v, BLOCK)}


def measure(lengths, repeats, long=False):
    """One round with the course_utils this process imports: {"course_utils": its path, "times": {key: median
    seconds}, "peaks": {key: bytes}}, key "dtype T name"; with ``long``, also "long peak": blockwise at LONG_T."""
    import course_utils as cu
    from course_utils.lessons.measure import peak_bytes, time_call

    found = {"course_utils": cu.__file__, "times": {}, "peaks": {}}
    for dtype in DTYPES:
        for t in lengths:
            for name, call in calls(cu, dtype, t).items():
                key = f"{dtype} {t} {name}"
                found["times"][key] = time_call(call, repeats)[0]
                found["peaks"][key] = peak_bytes(call)
                print(f"  {key:<52} {found['times'][key] * 1000:8.1f} ms  peak {found['peaks'][key] / 2**20:7.2f} MiB",
                      flush=True)
    if long:
        q, k, v = np.random.default_rng(LONG_T).normal(size=(3, 1, LONG_T, D))  # (1, T, D) each: 8 MiB each
        found["long peak"] = peak_bytes(lambda: cu.blockwise_attention(q, k, v, BLOCK))
    return found


def measure_in(tree, lengths, repeats, long):
    """``measure`` with the course_utils of ``tree`` (this checkout's for "after"), in a fresh subprocess (its root
    first on PYTHONPATH), so that both sides start alike."""
    with tempfile.TemporaryDirectory(prefix="bench-attention-") as tmp:
        out = Path(tmp) / "found.json"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(tree), os.environ.get("PYTHONPATH")) if p))
        env.setdefault("OPENBLAS_NUM_THREADS", "1")  # as every notebook's setup cell sets it (unless set)
        command = [sys.executable, __file__, "--json", str(out), "--repeats", str(repeats),
                   "--lengths", *map(str, lengths), *(["--long"] if long else [])]
        subprocess.run(command, check=True, env=env, cwd=tmp)
        found = json.loads(out.read_text(encoding="utf-8"))
    if not Path(found["course_utils"]).resolve().is_relative_to(Path(tree).resolve()):
        raise RuntimeError(f"the before run imported {found['course_utils']}, not the course_utils of {tree}")
    return found


def summary(rounds_after, rounds_before):
    """Rows [dtype, T, name, after ms, after peak MiB, before ms, before peak MiB, after / before, per round]."""
    rows = []
    for key in rounds_after[0]["times"]:
        dtype, t, name = key.split(" ", 2)
        after = [r["times"][key] for r in rounds_after]
        row = [dtype, t, name, f"{statistics.median(after) * 1000:.1f}", f"{rounds_after[0]['peaks'][key] / 2**20:.2f}"]
        if rounds_before:
            before = [r["times"][key] for r in rounds_before]
            per_round = [a / b for a, b in zip(after, before)]
            row += [f"{statistics.median(before) * 1000:.1f}", f"{rounds_before[0]['peaks'][key] / 2**20:.2f}",
                    f"{statistics.median(after) / statistics.median(before):.2f}",
                    f"{statistics.median(per_round):.2f} ({min(per_round):.2f}-{max(per_round):.2f})"]
        rows.append(row)
    return rows


def report(rounds_after, rounds_before, before_name, load, path):
    header = ["dtype", "T", "call", "time (ms)", "peak (MiB)"]
    if rounds_before:
        header += [f"before ({before_name}): time (ms)", "before: peak (MiB)", "time after / before",
                   "per round: median (range)"]
    long_peaks = f"{rounds_after[0]['long peak'] / 2**20:.1f} MiB" + (
        f" (before: {rounds_before[0]['long peak'] / 2**20:.1f} MiB)" if rounds_before else "")
    lines = [
        "# Attention benchmark",
        "",
        f"What the plain reference costs at notebook 07's sizes: q, k, v of shape ({HEADS} heads, T, {D}); the median "
        f"of 3 timed calls after a warm-up, the median of that over {len(rounds_after)} round(s); peak memory is "
        f"tracemalloc's, in one more call; OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '1')}, as in "
        "the notebooks. No goal: issue 23 retired the speed goals beside PyTorch "
        "([docs/performance.md](../../docs/performance.md#attention)).",
        "" if not rounds_before else
        f"Before: `{before_name}`, run in a subprocess in the same rounds, alternating which side goes first.",
        "",
        "## Machine",
        *_common.machine(),
        f"- load: {load}",
        "",
        "## Time and peak memory",
        _common.markdown_table(header, summary(rounds_after, rounds_before)),
        "",
        f"Blockwise attention at T = {LONG_T} (one head, width {D}, float64, {BLOCK} x {BLOCK} tiles): peak "
        f"{long_peaks}; the full scores matrix alone would take {LONG_T ** 2 * 8 / 2**20:.0f} MiB.",
        "",
    ]
    path.write_text("\n".join(lines), encoding="utf-8")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one round, T up to 512 (a smoke run)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of every call (default 5)")
    parser.add_argument("--before", help="a git ref or a directory: its course_utils is timed too, side by side")
    parser.add_argument("--output", type=Path, default=_common.RESULTS / "attention.md")
    # what a --before run's subprocess is given (internal)
    parser.add_argument("--json", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--repeats", type=int, default=3, help=argparse.SUPPRESS)
    parser.add_argument("--lengths", type=int, nargs="+", default=LENGTHS, help=argparse.SUPPRESS)
    parser.add_argument("--long", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.json:
        args.json.write_text(json.dumps(measure(args.lengths, args.repeats, args.long)), encoding="utf-8")
        return
    lengths = tuple(t for t in LENGTHS if t <= 512) if args.quick else LENGTHS
    rounds = 1 if args.quick else args.rounds
    meter = _common.LoadMeter()
    load_before = os.getloadavg()
    rounds_after, rounds_before = [], []
    with contextlib.ExitStack() as stack:
        tree = stack.enter_context(_common.checkout(args.before)) if args.before else None
        for index in range(rounds):
            sides = [("after", _common.ROOT)] + ([("before", tree)] if tree is not None else [])
            for label, side_tree in sides if index % 2 else sides[::-1]:
                print(f"round {index + 1}, {label}", flush=True)
                found = measure_in(side_tree, lengths, 3, long=index == 0)
                (rounds_after if label == "after" else rounds_before).append(found)
    others = meter.cores_used_by_others()
    load = (f"1-minute load average {load_before[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; "
            + (f"other processes kept about {others:.2f} of the {os.cpu_count()} cores busy during the run (/proc/stat)"
               if others is not None else "CPU use of other processes unknown"))
    print(load)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    report(rounds_after, rounds_before, args.before, load, args.output)
    print(_common.markdown_table(["dtype", "T", "call", "ms", "MiB", *(["before ms", "before MiB", "ratio", "per round"]
                                                                     if rounds_before else [])],
                                 summary(rounds_after, rounds_before)))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
