"""Attention benchmark: course_utils against a naive per-query loop and PyTorch's CPU attention.

Same inputs for every implementation: batch 4, 8 heads, head width 64, float32 and float64, T from 64 to
4096. The implementations of one (dtype, T) are timed in interleaved rounds (each round calls every one
once, in turn), so a burst of load from other processes hits all of them alike; time is the median over
the rounds, and each ratio is also given per round (its median and range). Peak memory is tracemalloc's
peak for the numpy implementations, in a separate, untimed call (tracemalloc cannot see torch's
allocator: "n/a").

It prints and writes the goals of issue 14 with "goal met" / "not met":
- blockwise_attention with its default block sizes <= 1.5x PyTorch's fused scaled_dot_product_attention,
  float32, T = 1024, 2048, 4096;
- course_utils scaled_dot_product_attention (which returns the weights too) <= 1.0x PyTorch's unfused
  softmax(QK^T/sqrt d) V at every T >= 256, float32 and float64;
and the block-size sweep the default was chosen from (float32, T = 1024, 2048, 4096).
Writes benchmarks/results/attention.md and attention.png.

    python benchmarks/attention.py [--quick] [--mem-cap-gib 8] [--no-sweep]
"""
import argparse
import functools
import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

import course_utils as cu  # noqa: E402
from course_utils.blockwise import DEFAULT_BLOCK_SIZE  # noqa: E402
from course_utils.lessons.measure import peak_bytes, time_call  # noqa: E402

B, H, D = 4, 8, 64
LENGTHS = (64, 128, 256, 512, 1024, 2048, 4096)
SETTLE_MAX_T = 1024  # up to here each timed call follows an untimed call of itself (see interleaved)
NAIVE_MAX_T = 256  # the per-query Python loop is capped here (B * H * T Python iterations)
GiB = 2 ** 30
SDPA = "course_utils sdpa"
BLOCKWISE = "course_utils blockwise (default {}x{})".format(*DEFAULT_BLOCK_SIZE)
FUSED, UNFUSED = "torch fused sdpa", "torch unfused"
BLOCKWISE_GOAL = (1.5, ("float32",), (1024, 2048, 4096))  # (at most x fused, dtypes, lengths)
SDPA_GOAL = (1.0, ("float32", "float64"), 256)  # (at most x unfused, dtypes, from this T on)
SWEEP_LENGTHS = (1024, 2048, 4096)
SWEEP_BLOCKS = ((64, 512), (128, 512), (128, 1024), (256, 512), (256, 1024), (256, 2048), (512, 1024),
                (512, 2048), (1024, 1024))


def naive_loop(q, k, v):
    """One query at a time, in Python: scores, stable softmax, weighted sum of the values."""
    out = np.empty(q.shape[:-1] + (v.shape[-1],), dtype=q.dtype)  # (B, H, T, d_v)
    scale = 1.0 / math.sqrt(q.shape[-1])
    for b in range(q.shape[0]):
        for h in range(q.shape[1]):
            for i in range(q.shape[2]):
                s = (k[b, h] @ q[b, h, i]) * scale  # (T,)
                e = np.exp(s - s.max())
                out[b, h, i] = (e / e.sum()) @ v[b, h]  # (T,) @ (T, d_v) -> (d_v,)
    return out


def implementations(dtype, t):
    """name -> (callable(q, k, v, tq, tk, tv) building the output, bytes of its (B, H, T, T) arrays at peak)."""
    full = B * H * t * t * np.dtype(dtype).itemsize
    impls = {
        SDPA: (lambda q, k, v, tq, tk, tv: cu.scaled_dot_product_attention(q, k, v)[0], full),
        BLOCKWISE: (lambda q, k, v, tq, tk, tv: cu.blockwise_attention(q, k, v), 0),
    }
    if t <= NAIVE_MAX_T:
        impls["naive loop"] = (lambda q, k, v, tq, tk, tv: naive_loop(q, k, v), 0)
    torch = _torch()
    if torch is None:
        return impls
    import torch.nn.functional as F

    scale = 1.0 / math.sqrt(D)

    def torch_fused(q, k, v, tq, tk, tv):
        with torch.no_grad():
            return F.scaled_dot_product_attention(tq, tk, tv)

    def torch_unfused(q, k, v, tq, tk, tv):
        with torch.no_grad():
            return torch.softmax((tq @ tk.transpose(-1, -2)) * scale, dim=-1) @ tv

    impls[FUSED] = (torch_fused, 0)
    impls[UNFUSED] = (torch_unfused, 2 * full)
    return impls


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def rounds_for(t, quick):
    """Rounds at length t: more where a call takes milliseconds and a burst of load moves its median most."""
    if quick:
        return 1
    return 20 if t <= 256 else 10 if t <= 512 else 5 if t <= 1024 else 3


def available_bytes():
    """MemAvailable from /proc/meminfo (other processes use memory too), or None where unknown."""
    try:
        with open("/proc/meminfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def interleaved(calls, rounds, *, settle=False):
    """Time ``calls`` (name -> callable) in interleaved rounds: name -> list of seconds, one per round.

    ``settle=True``: each turn calls the callable once untimed, then times its second call, which runs right after
    itself, as a learner's calls in a loop do. Without it, a call that runs right after a PyTorch call shares the
    cores with PyTorch's OpenMP threads, which keep spinning for a while after their call: measured here,
    course_utils' sdpa at T = 256 (float32) took 13.0-14.2 ms right after PyTorch's unfused path and 9.0-10.4 ms
    right after itself; in a fixed order the implementation after PyTorch's would always pay for that. It matters
    for calls of milliseconds, not for those of a second.
    """
    times = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            if settle:
                call()
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return times


def run(quick=False, mem_cap=8 * GiB, lengths=LENGTHS):
    torch = _torch()
    rng = np.random.default_rng(0)
    results = []  # dicts: dtype, T, impl, times (list, s), median, peak (bytes or None), note
    for dtype in ("float32", "float64"):
        for t in lengths:
            q, k, v = rng.normal(size=(3, B, H, t, D)).astype(dtype)  # (B, H, T, D) each
            tq, tk, tv = (torch.from_numpy(x) for x in (q, k, v)) if torch is not None else (None,) * 3
            calls, rows = {}, {}
            reference = None
            for name, (fn, intermediates) in implementations(dtype, t).items():
                row = {"dtype": dtype, "T": t, "impl": name, "times": [], "median": None, "peak": None, "note": ""}
                rows[name] = row
                results.append(row)
                free = available_bytes()
                if intermediates > mem_cap or (free is not None and intermediates > 0.8 * free):
                    row["note"] = (f"skipped: needs about {intermediates / GiB:.1f} GiB (cap {mem_cap / GiB:.0f} GiB, "
                                   f"available {free / GiB if free else float('nan'):.1f} GiB)")
                    print(f"{dtype} T={t:>5} {name:<40} {row['note']}", flush=True)
                    continue

                call = functools.partial(fn, q, k, v, tq, tk, tv)
                out = np.asarray(call())  # also the warm-up call
                if reference is None:
                    reference = out
                tol = 1e-3 if dtype == "float32" else 1e-9
                if not np.allclose(out, reference, rtol=tol, atol=tol):
                    row["note"] = f"OUTPUT DIFFERS from {SDPA}"
                del out
                calls[name] = call
            for name, seconds in interleaved(calls, rounds_for(t, quick), settle=t <= SETTLE_MAX_T).items():
                row = rows[name]
                row["times"], row["median"] = seconds, statistics.median(seconds)
                if not name.startswith("torch"):
                    row["peak"] = peak_bytes(calls[name])
                peak = f"{row['peak'] / 2**20:9.1f} MiB" if row["peak"] is not None else "      n/a"
                print(f"{dtype} T={t:>5} {name:<40} {row['median'] * 1000:10.1f} ms  peak {peak} {row['note']}",
                      flush=True)
            del q, k, v, tq, tk, tv, reference, calls
    return results


def sweep(quick=False, lengths=SWEEP_LENGTHS, blocks=SWEEP_BLOCKS):
    """blockwise_attention at each block size against torch's fused kernel, float32, interleaved rounds.

    Returns a list of dicts: T, block (pair or "fused"), times (s, one per round).
    """
    torch = _torch()
    rng = np.random.default_rng(2)
    out = []
    for t in lengths:
        q, k, v = rng.normal(size=(3, B, H, t, D)).astype(np.float32)  # (B, H, T, D) each
        calls = {block: functools.partial(cu.blockwise_attention, q, k, v, block) for block in blocks}
        if torch is not None:
            fused = implementations("float32", t)[FUSED][0]
            calls = {"fused": functools.partial(fused, q, k, v, *(torch.from_numpy(x) for x in (q, k, v))),
                     **calls}
        for call in calls.values():  # warm-up
            call()
        rounds = 1 if quick else 3
        for block, seconds in interleaved(calls, rounds).items():
            out.append({"T": t, "block": block, "times": seconds})
            label = block if block == "fused" else f"{block[0]}x{block[1]}"
            print(f"sweep float32 T={t:>5} {label:<10} {statistics.median(seconds) * 1000:9.1f} ms", flush=True)
    return out


def blockwise_16k():
    """Peak memory (tracemalloc) and time of blockwise attention (default blocks) at T = 16384, one head,
    width 64, float64."""
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(3, 1, 1, 16384, D))  # (1, 1, T, D) each: 8 MiB each
    seconds, _ = time_call(lambda: cu.blockwise_attention(q, k, v), repeats=1, warmup=False)
    return peak_bytes(lambda: cu.blockwise_attention(q, k, v)), seconds


def _ratio(a, b):
    """(ratio of the medians, median of the per-round ratios, smallest, largest) or None."""
    if not (a and b and a["median"] and b["median"]):
        return None
    per_round = [x / y for x, y in zip(a["times"], b["times"])]
    return a["median"] / b["median"], statistics.median(per_round), min(per_round), max(per_round)


def _fmt(r):
    return "-" if r is None else f"{r[0]:.2f}"


def goal_rows(results):
    """The two goals of issue 14 as table rows: [goal, dtype, T, ours ms, torch ms, ratio, per round, verdict]."""
    by = {(r["dtype"], r["T"], r["impl"]): r for r in results}
    rows = []
    limit, dtypes, lengths = BLOCKWISE_GOAL
    for dtype in dtypes:
        for t in lengths:
            rows.append(_goal_row(f"blockwise (default) / fused <= {limit}", limit, dtype, t,
                                  by.get((dtype, t, BLOCKWISE)), by.get((dtype, t, FUSED)), why="blockwise-attention"))
    limit, dtypes, t_min = SDPA_GOAL
    for dtype in dtypes:
        for t in sorted({r["T"] for r in results if r["T"] >= t_min}):
            rows.append(_goal_row(f"sdpa (with weights) / unfused <= {limit}", limit, dtype, t,
                                  by.get((dtype, t, SDPA)), by.get((dtype, t, UNFUSED)), why="scaled-dot-product-attention"))
    return rows


def _goal_row(goal, limit, dtype, t, ours, theirs, why=None):
    r = _ratio(ours, theirs)
    ms = ["-" if x is None or x["median"] is None else f"{x['median'] * 1000:.1f}" for x in (ours, theirs)]
    if r is None:
        note = (ours or {}).get("note") or (theirs or {}).get("note") or "not measured"
        return [goal, dtype, t, *ms, "-", "-", f"not measured ({note})"]
    return [goal, dtype, t, *ms, f"{r[0]:.2f}", f"{r[1]:.2f} ({r[2]:.2f}-{r[3]:.2f})", _common.verdict(r[0] <= limit, why)]


def sweep_rows(sweep_results):
    """Per block size: ms and x fused at each T, and the geometric mean of the ratios; the best marked."""
    lengths = sorted({r["T"] for r in sweep_results})
    blocks = list(dict.fromkeys(r["block"] for r in sweep_results if r["block"] != "fused"))
    med = {(r["T"], r["block"]): statistics.median(r["times"]) for r in sweep_results}
    have_fused = all((t, "fused") in med for t in lengths)
    table = []
    for block in blocks:
        cells = [f"{block[0]} x {block[1]}"]
        ratios = []
        for t in lengths:
            ms = med[(t, block)] * 1000
            if have_fused:
                ratios.append(med[(t, block)] / med[(t, "fused")])
                cells.append(f"{ms:.0f} ({ratios[-1]:.2f})")
            else:
                cells.append(f"{ms:.0f}")
        geo = math.exp(statistics.mean(math.log(x) for x in ratios)) if ratios else None
        cells.append("-" if geo is None else f"{geo:.2f}")
        table.append((geo if geo is not None else med[(lengths[-1], block)], block, cells))
    best = min(table)[1] if table else None
    rows = [cells + ["fastest" if block == best else ("default" if block == DEFAULT_BLOCK_SIZE else "")]
            for _, block, cells in table]
    for row, (_, block, _) in zip(rows, table):
        if block == DEFAULT_BLOCK_SIZE and block == best:
            row[-1] = "fastest, default"
    fused_row = ["torch fused sdpa"] + [f"{med[(t, 'fused')] * 1000:.0f}" for t in lengths if have_fused] + ["1.00", ""]
    header = ["block_q x block_k"] + [f"T = {t}: ms (x fused)" for t in lengths] + ["geometric mean x fused", ""]
    return header, ([fused_row] if have_fused else []) + rows, best


def report(results, sweep_results, peak_16k, seconds_16k, load, path_md, path_png):
    by = {(r["dtype"], r["T"], r["impl"]): r for r in results}
    impls = list(dict.fromkeys(r["impl"] for r in results))
    header = ["dtype", "T"] + [f"{name} (ms)" for name in impls] + [
        "x fused (sdpa / blockwise)", "x unfused (sdpa / blockwise)"]
    rows = []
    for (dtype, t) in dict.fromkeys((r["dtype"], r["T"]) for r in results):
        cells = [dtype, t]
        for name in impls:
            r = by.get((dtype, t, name))
            cells.append("-" if r is None else (r["note"] or "-") if r["median"] is None else f"{r['median'] * 1000:.1f}")
        sdpa, block = by.get((dtype, t, SDPA)), by.get((dtype, t, BLOCKWISE))
        fused, unfused = by.get((dtype, t, FUSED)), by.get((dtype, t, UNFUSED))
        cells.append(f"{_fmt(_ratio(sdpa, fused))} / {_fmt(_ratio(block, fused))}")
        cells.append(f"{_fmt(_ratio(sdpa, unfused))} / {_fmt(_ratio(block, unfused))}")
        rows.append(cells)
    mem_header = ["dtype", "T"] + [f"{name} peak (MiB)" for name in impls if not name.startswith("torch")]
    mem_rows = []
    for (dtype, t) in dict.fromkeys((r["dtype"], r["T"]) for r in results):
        cells = [dtype, t]
        for name in impls:
            if name.startswith("torch"):
                continue
            r = by.get((dtype, t, name))
            cells.append("-" if r is None or r["peak"] is None else f"{r['peak'] / 2**20:.1f}")
        mem_rows.append(cells)
    goals = goal_rows(results)
    goal_header = ["goal", "dtype", "T", "course_utils (ms)", "torch (ms)", "ratio of medians",
                   "per round: median (range)", "verdict"]
    lines = [
        "# Attention benchmark",
        "",
        f"Inputs: batch {B}, {H} heads, head width {D}; q, k, v of shape (B, H, T, {D}), same for every implementation.",
        "Time: the implementations of one (dtype, T) run in interleaved rounds (each round calls each once; "
        "20 rounds up to T = 256, 10 up to 512, 5 up to 1024, 3 above; one warm-up call first; up to "
        f"T = {SETTLE_MAX_T} each timed call follows an untimed call of the same implementation, so that none pays "
        "for PyTorch's threads, which spin on for a while after a call); the time is the median over the rounds.",
        "Ratios: time / time of PyTorch's fused `scaled_dot_product_attention` (or of unfused "
        "`softmax(QK^T/sqrt d) V` in PyTorch), measured in the same run. Below 1 = faster than PyTorch.",
        f"The naive per-query Python loop runs only up to T = {NAIVE_MAX_T}. "
        f"blockwise runs with its default block sizes, {DEFAULT_BLOCK_SIZE[0]} x {DEFAULT_BLOCK_SIZE[1]} "
        "(`course_utils.blockwise.DEFAULT_BLOCK_SIZE`, chosen from the sweep below).",
        "",
        "## Machine",
        *_common.machine(),
        f"- load: {load}",
        "",
        "**Load caveat.** Other processes share these 2 cores. OpenBLAS splits each matrix product over its "
        "threads and waits for all of them, so when another process holds a core, every one of numpy's "
        "many small products waits for it; PyTorch's kernels split the work once per call and suffer far "
        "less. Under load the numpy columns (blockwise most, with its many tiles) can be several times "
        "slower while torch's barely move: read the ratios together with the load line above, and rerun "
        "on a quiet machine before drawing conclusions.",
        "",
        "## Goals (issue 14)",
        _common.markdown_table(goal_header, goals),
        "",
        "## Time (ms)",
        _common.markdown_table(header, rows),
        "",
    ]
    if sweep_results:
        s_header, s_rows, best = sweep_rows(sweep_results)
        lines += [
            "## Block-size sweep (blockwise_attention, float32)",
            f"Median of interleaved rounds; in brackets x torch's fused kernel in the same rounds. "
            f"Fastest here (geometric mean over T): {best[0]} x {best[1]}; the default is "
            f"{DEFAULT_BLOCK_SIZE[0]} x {DEFAULT_BLOCK_SIZE[1]}.",
            _common.markdown_table(s_header, s_rows),
            "",
        ]
    lines += [
        "## Peak memory (tracemalloc, numpy implementations; torch's allocator is invisible to it)",
        _common.markdown_table(mem_header, mem_rows),
        "",
        f"Blockwise attention at T = 16384 (one head, width {D}, float64, default blocks "
        f"{DEFAULT_BLOCK_SIZE[0]} x {DEFAULT_BLOCK_SIZE[1]}): peak {peak_16k / 2**20:.1f} MiB "
        f"({'under' if peak_16k < GiB else 'OVER'} 1 GiB), {seconds_16k:.1f} s. "
        "The full scores matrix alone would take 2048 MiB.",
        "",
    ]
    path_md.write_text("\n".join(lines), encoding="utf-8")
    _plot(results, impls, path_png)
    return goals


def _plot(results, impls, path_png):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, dtype in zip(axes, ("float32", "float64")):
        for name in impls:
            pts = [(r["T"], r["median"] * 1000) for r in results
                   if r["dtype"] == dtype and r["impl"] == name and r["median"] is not None]
            if pts:
                ax.loglog(*zip(*pts), "o-", label=name)
        ax.set(title=f"{dtype}: batch {B}, {H} heads, width {D}", xlabel="sequence length T",
               ylabel="median time (ms)")
        ax.minorticks_off()
        ax.set_xticks(LENGTHS, [str(t) for t in LENGTHS])
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path_png, dpi=100)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one round, T up to 1024, sweep at T = 1024 (a smoke run)")
    parser.add_argument("--mem-cap-gib", type=float, default=8.0,
                        help="skip an implementation whose (B, H, T, T) arrays exceed this (default 8)")
    parser.add_argument("--no-sweep", action="store_true", help="skip the block-size sweep")
    args = parser.parse_args(argv)
    _common.RESULTS.mkdir(parents=True, exist_ok=True)
    meter = _common.LoadMeter()
    load_before = os.getloadavg()
    lengths = tuple(t for t in LENGTHS if t <= 1024) if args.quick else LENGTHS
    results = run(quick=args.quick, mem_cap=args.mem_cap_gib * GiB, lengths=lengths)
    sweep_results = [] if args.no_sweep else sweep(
        quick=args.quick, lengths=(1024,) if args.quick else SWEEP_LENGTHS)
    peak_16k, seconds_16k = blockwise_16k()
    print(f"blockwise T=16384 one head: peak {peak_16k / 2**20:.1f} MiB, {seconds_16k:.1f} s")
    others = meter.cores_used_by_others()
    load = (f"1-minute load average {load_before[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; "
            + ("other processes kept about {:.2f} of the {} cores busy during the run (/proc/stat)".format(
                others, os.cpu_count()) if others is not None else "CPU use of other processes unknown"))
    print(load)
    goals = report(results, sweep_results, peak_16k, seconds_16k, load,
                   _common.RESULTS / "attention.md", _common.RESULTS / "attention.png")
    for goal, dtype, t, _, _, ratio, per_round, verdict in goals:
        print(f"{goal:<40} {dtype} T={t:>5}: {ratio:>5} ({per_round})  {verdict}")
    print(f"wrote {_common.RESULTS / 'attention.md'} and attention.png")


if __name__ == "__main__":
    main()
