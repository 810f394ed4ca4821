"""Measuring time and memory of a call (notebook 07 and benchmarks/): one home for both.

Timings are reported, never asserted: they vary with the machine and its load.
"""
import statistics
import time
import tracemalloc

import numpy as np

from course_utils._validate import check_positive_int

__all__ = ["time_call", "peak_bytes"]

# The most timed calls ``time_call`` makes (notebook 07 and the benchmarks time 3 to 5).
_MAX_REPEATS = 10_000


def _check_fn(fn):
    if not callable(fn):
        raise TypeError(f"fn must be a function called with no arguments, e.g. lambda: f(x) (not f(x), its result); "
                        f"got {fn!r} of type {type(fn).__name__}")


def time_call(fn, repeats=5, *, warmup=True):
    """Wall time of ``fn()``: (median, 95th percentile) in seconds over ``repeats`` calls.

    Parameters
    ----------
    fn : callable
        Called with no arguments.
    repeats : int, default 5
        Timed calls, 1 <= repeats <= 10,000.
    warmup : bool, default True
        Make one untimed call first (caches, lazy imports, memory first touched).

    Returns
    -------
    median, p95 : float
        With few repeats the 95th percentile is the slowest call.

    Raises
    ------
    TypeError
        If fn is not callable, repeats is not an int or warmup not a bool.
    ValueError
        If repeats is not in [1, 10,000].
    """
    _check_fn(fn)
    repeats = check_positive_int(repeats, "repeats", at_most=_MAX_REPEATS)
    if not isinstance(warmup, (bool, np.bool_)):
        raise TypeError(f"warmup must be True or False; got {warmup!r} of type {type(warmup).__name__}")
    if warmup:
        fn()
    times = []
    for _ in range(repeats):
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

    Raises
    ------
    TypeError
        If fn is not callable.
    """
    _check_fn(fn)
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
