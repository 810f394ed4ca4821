"""Attention benchmark: course_utils against a naive per-query loop and PyTorch's CPU attention.

Same inputs for every implementation: batch 4, 8 heads, head width 64, float32 and float64, T from 64 to
4096. Time is the median of repeats (fewer at large T); peak memory is tracemalloc's peak for the numpy
implementations, in a separate, untimed call (tracemalloc cannot see torch's allocator: "n/a").
Writes benchmarks/results/attention.md and attention.png.

    python benchmarks/attention.py [--quick] [--mem-cap-gib 8]
"""
import argparse
import functools
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

import course_utils as cu  # noqa: E402
from course_utils.lessons.measure import peak_bytes, time_call  # noqa: E402

B, H, D = 4, 8, 64
LENGTHS = (64, 128, 256, 512, 1024, 2048, 4096)
NAIVE_MAX_T = 256  # the per-query Python loop is capped here (B * H * T Python iterations)
BLOCK = (128, 512)  # blockwise tiles: 128 queries x 512 keys (the fastest of those tried at T = 1024)
GiB = 2 ** 30


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
    """name -> (callable building the output, memory of its (B, H, T, T) intermediates in bytes or 0)."""
    itemsize = np.dtype(dtype).itemsize
    full = B * H * t * t * itemsize
    impls = {
        "course_utils sdpa": (lambda q, k, v, tq, tk, tv: cu.scaled_dot_product_attention(q, k, v)[0], 3 * full),
        f"course_utils blockwise {BLOCK[0]}x{BLOCK[1]}": (lambda q, k, v, tq, tk, tv: cu.blockwise_attention(q, k, v, BLOCK), 0),
    }
    if t <= NAIVE_MAX_T:
        impls["naive loop"] = (lambda q, k, v, tq, tk, tv: naive_loop(q, k, v), 0)
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return impls
    scale = 1.0 / math.sqrt(D)

    def torch_fused(q, k, v, tq, tk, tv):
        with torch.no_grad():
            return F.scaled_dot_product_attention(tq, tk, tv)

    def torch_unfused(q, k, v, tq, tk, tv):
        with torch.no_grad():
            return torch.softmax((tq @ tk.transpose(-1, -2)) * scale, dim=-1) @ tv

    impls["torch fused sdpa"] = (torch_fused, 0)
    impls["torch unfused"] = (torch_unfused, 2 * full)
    return impls


def repeats_for(t, quick):
    if quick:
        return 1
    return 5 if t <= 512 else 3 if t <= 1024 else 1


def run(quick=False, mem_cap=8 * GiB, lengths=LENGTHS):
    try:
        import torch
    except ImportError:
        torch = None
    rng = np.random.default_rng(0)
    results = []  # dicts: dtype, T, impl, median, p95, peak (bytes or None), note
    for dtype in ("float32", "float64"):
        for t in lengths:
            q, k, v = rng.normal(size=(3, B, H, t, D)).astype(dtype)  # (B, H, T, D) each
            tq, tk, tv = (torch.from_numpy(x) for x in (q, k, v)) if torch is not None else (None,) * 3
            reference = None
            for name, (fn, intermediates) in implementations(dtype, t).items():
                row = {"dtype": dtype, "T": t, "impl": name, "median": None, "p95": None, "peak": None, "note": ""}
                if intermediates > mem_cap:
                    row["note"] = f"skipped: needs about {intermediates / GiB:.1f} GiB (cap {mem_cap / GiB:.0f} GiB)"
                    results.append(row)
                    print(f"{dtype} T={t:>5} {name:<34} {row['note']}", flush=True)
                    continue
                call = functools.partial(fn, q, k, v, tq, tk, tv)
                out = np.asarray(call())
                if reference is None:
                    reference = out
                tol = 1e-3 if dtype == "float32" else 1e-9
                if not np.allclose(out, reference, rtol=tol, atol=tol):
                    row["note"] = "OUTPUT DIFFERS from course_utils sdpa"
                repeats = repeats_for(t, quick)
                if t <= 1024 and not quick:
                    row["median"], row["p95"] = time_call(call, repeats)
                else:  # large T: the check call above was the warm-up
                    row["median"], row["p95"] = time_call(call, repeats, warmup=False)
                if not name.startswith("torch"):
                    row["peak"] = peak_bytes(call)
                results.append(row)
                peak = f"{row['peak'] / 2**20:9.1f} MiB" if row["peak"] is not None else "      n/a"
                print(f"{dtype} T={t:>5} {name:<34} {row['median'] * 1000:10.1f} ms  peak {peak} {row['note']}", flush=True)
            del q, k, v, tq, tk, tv, reference
    return results


def blockwise_16k():
    """Peak memory (tracemalloc) of blockwise attention at T = 16384, one head of width 64, float64."""
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(3, 1, 1, 16384, D))  # (1, 1, T, D) each: 8 MiB each
    seconds, _ = time_call(lambda: cu.blockwise_attention(q, k, v, BLOCK), repeats=1, warmup=False)
    return peak_bytes(lambda: cu.blockwise_attention(q, k, v, BLOCK)), seconds


def report(results, peak_16k, seconds_16k, path_md, path_png):
    by = {(r["dtype"], r["T"], r["impl"]): r for r in results}
    impls = list(dict.fromkeys(r["impl"] for r in results))
    header = ["dtype", "T"] + [f"{name} (ms)" for name in impls] + ["x fused (course_utils sdpa / blockwise)",
                                                                    "x unfused (blockwise)"]
    rows = []
    for (dtype, t) in dict.fromkeys((r["dtype"], r["T"]) for r in results):
        cells = [dtype, t]
        for name in impls:
            r = by.get((dtype, t, name))
            cells.append("-" if r is None else (r["note"] or "-") if r["median"] is None else f"{r['median'] * 1000:.1f}")
        fused = by.get((dtype, t, "torch fused sdpa"))
        unfused = by.get((dtype, t, "torch unfused"))
        sdpa = by.get((dtype, t, "course_utils sdpa"))
        block = by.get((dtype, t, f"course_utils blockwise {BLOCK[0]}x{BLOCK[1]}"))

        def ratio(a, b):
            return f"{a['median'] / b['median']:.2f}" if a and b and a["median"] and b["median"] else "-"

        cells.append(f"{ratio(sdpa, fused)} / {ratio(block, fused)}")
        cells.append(ratio(block, unfused))
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
    lines = [
        "# Attention benchmark",
        "",
        f"Inputs: batch {B}, {H} heads, head width {D}; q, k, v of shape (B, H, T, {D}), same for every implementation.",
        "Time: median wall time of the repeats (5 up to T = 512, 3 up to 1024, 1 above; one warm-up call first).",
        "Ratios: time / time of PyTorch's fused `scaled_dot_product_attention` (or of unfused "
        "`softmax(QK^T/sqrt d) V` in PyTorch), measured in the same run. Below 1 = faster than PyTorch.",
        f"The naive per-query Python loop runs only up to T = {NAIVE_MAX_T}.",
        "",
        "## Machine",
        *_common.machine(),
        "",
        "## Time (ms)",
        _common.markdown_table(header, rows),
        "",
        "## Peak memory (tracemalloc, numpy implementations; torch's allocator is invisible to it)",
        _common.markdown_table(mem_header, mem_rows),
        "",
        f"Blockwise attention at T = 16384 (one head, width {D}, float64, tiles {BLOCK[0]} x {BLOCK[1]}): "
        f"peak {peak_16k / 2**20:.1f} MiB ({'under' if peak_16k < GiB else 'OVER'} 1 GiB), {seconds_16k:.1f} s. "
        "The full scores matrix alone would take 2048 MiB.",
        "",
    ]
    path_md.write_text("\n".join(lines), encoding="utf-8")
    _plot(results, impls, path_png)


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
    parser.add_argument("--quick", action="store_true", help="one repeat, T up to 1024 (a smoke run)")
    parser.add_argument("--mem-cap-gib", type=float, default=8.0,
                        help="skip an implementation whose (B, H, T, T) intermediates exceed this (default 8)")
    args = parser.parse_args(argv)
    _common.RESULTS.mkdir(parents=True, exist_ok=True)
    lengths = tuple(t for t in LENGTHS if t <= 1024) if args.quick else LENGTHS
    results = run(quick=args.quick, mem_cap=args.mem_cap_gib * GiB, lengths=lengths)
    peak_16k, seconds_16k = blockwise_16k()
    print(f"blockwise T=16384 one head: peak {peak_16k / 2**20:.1f} MiB, {seconds_16k:.1f} s")
    report(results, peak_16k, seconds_16k, _common.RESULTS / "attention.md", _common.RESULTS / "attention.png")
    print(f"wrote {_common.RESULTS / 'attention.md'} and attention.png")


if __name__ == "__main__":
    main()
