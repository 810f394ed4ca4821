"""Measuring time and memory of a call (notebook 07 and benchmarks/): one home for both.

Timings are reported, never asserted: they vary with the machine and its load.
"""
import statistics
import time
import tracemalloc

__all__ = ["time_call", "peak_bytes"]


def time_call(fn, repeats=5, *, warmup=True):
    """Wall time of ``fn()``: (median, 95th percentile) in seconds over ``repeats`` calls.

    Parameters
    ----------
    fn : callable
        Called with no arguments.
    repeats : int, default 5
        Timed calls (at least 1).
    warmup : bool, default True
        Make one untimed call first (caches, lazy imports, memory first touched).

    Returns
    -------
    median, p95 : float
        With few repeats the 95th percentile is the slowest call.
    """
    if warmup:
        fn()
    times = []
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    times.sort()
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    return statistics.median(times), p95


def peak_bytes(fn):
    """Peak memory allocated while ``fn()`` runs, in bytes, as ``tracemalloc`` sees it.

    tracemalloc sees numpy's and Python's allocations, not those of other allocators
    (PyTorch's, for example).
    """
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
