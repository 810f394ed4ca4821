"""One BLAS thread in the course's kernels (issue 14): the course's matrix products are small, so threads gain little,
and on a busy machine (2 shared cores, a JupyterHub node) they wait for each other: measured on 2 cores with other
programs busy, 8 heads of attention at T = 128 took 180 ms with numpy's OpenBLAS on 2 threads and 2.7 ms on one;
blockwise attention at T = 2048 in 128 x 128 tiles 1.26 s against 0.086 s.

``course_utils`` calls :func:`limit_in_kernel` on import: inside a Jupyter kernel it sets numpy's OpenBLAS to
``COURSE_BLAS_THREADS`` threads (default 1), unless ``OPENBLAS_NUM_THREADS``, ``GOTO_NUM_THREADS`` or
``OMP_NUM_THREADS`` is set (OpenBLAS already obeys those: your choice stands). Outside a kernel (scripts, tests,
benchmarks) nothing changes. Where numpy does not use OpenBLAS (Accelerate on macOS, MKL) nothing changes either.

The same reason makes the reference's large attention split its work itself (:func:`split_rows`): a few threads of
its own, each taking one contiguous share of the query rows with a one-thread BLAS (:func:`one_blas_thread`), so the
threads meet once per call instead of at every matrix product. Measured on 2 cores with other programs busy (about
one core's worth), float64 attention at T = 1024 (batch 4, 8 heads, width 64): 1103 ms with OpenBLAS's 2 threads,
636 ms with one, 557 ms with two row shares on one BLAS thread each (benchmarks/results/attention.md).
"""
import contextlib
import ctypes
import functools
import os
import sys
import threading
from pathlib import Path

__all__ = ["blas_threads", "set_blas_threads", "limit_in_kernel", "one_blas_thread", "split_rows", "USER_SETTINGS"]

#: Environment variables through which a user chose OpenBLAS's threads: when one is set, the course leaves them be.
USER_SETTINGS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")

# numpy's wheels bundle OpenBLAS with prefixed symbols (scipy-openblas, 64-bit integers); older or system builds
# export the plain names.
_PREFIXES = ("scipy_openblas_", "openblas_")
_SUFFIXES = ("64_", "")


def _openblas_paths():
    """Paths of the OpenBLAS libraries numpy loaded (Linux: from /proc/self/maps), else those bundled with numpy."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            loaded = sorted({line.split()[-1] for line in maps if "openblas" in line.lower() and ".so" in line})
        if loaded:
            return loaded
    except OSError:
        pass
    import numpy

    site = Path(numpy.__file__).resolve().parent
    return sorted(str(p) for folder in (site.parent / "numpy.libs", site / ".dylibs") if folder.is_dir()
                  for p in folder.iterdir() if "openblas" in p.name.lower())


@functools.cache
def _function(verb):
    """numpy's OpenBLAS's ``openblas_{verb}_num_threads`` (whatever its symbols' prefix and suffix), or None."""
    import numpy  # noqa: F401  (loads numpy's BLAS)

    for path in _openblas_paths():
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in _PREFIXES:
            for suffix in _SUFFIXES:
                function = getattr(library, f"{prefix}{verb}_num_threads{suffix}", None)
                if function is not None:
                    return function
    return None


def blas_threads():
    """The number of threads of numpy's OpenBLAS, or None when numpy uses another BLAS (or none was found)."""
    getter = _function("get")
    if getter is None:
        return None
    getter.argtypes, getter.restype = [], ctypes.c_int
    return getter()


def set_blas_threads(threads):
    """Set the number of threads of numpy's OpenBLAS.

    Parameters
    ----------
    threads : int
        At least 1.

    Returns
    -------
    bool
        True when an OpenBLAS was found and set; False otherwise (numpy uses another BLAS, or none was found).
    """
    if int(threads) < 1:
        raise ValueError(f"threads must be at least 1; got {threads}")
    setter = _function("set")
    if setter is None:
        return False
    setter.argtypes, setter.restype = [ctypes.c_int], None
    setter(int(threads))
    return True


def _in_kernel():
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None


def limit_in_kernel(environ=None):
    """Inside a Jupyter kernel: numpy's OpenBLAS to ``COURSE_BLAS_THREADS`` threads (default 1), unless the user chose.

    Returns
    -------
    int or None
        The threads set, or None when nothing was changed (not in a kernel, a user setting, no OpenBLAS, or
        ``COURSE_BLAS_THREADS`` not a positive whole number).
    """
    environ = os.environ if environ is None else environ
    if not _in_kernel() or any(environ.get(name) for name in USER_SETTINGS):
        return None
    try:
        threads = int(environ.get("COURSE_BLAS_THREADS") or "1")  # empty counts as unset
        return threads if threads >= 1 and set_blas_threads(threads) else None
    except (ValueError, OSError, AttributeError):  # never stop a notebook's first cell for a speed setting
        return None


_one_thread_lock = threading.Lock()
_one_thread_holders = 0  # calls inside one_blas_thread now (several Python threads may be)
_one_thread_saved = None  # the threads to restore when the last of them leaves


@contextlib.contextmanager
def one_blas_thread():
    """Within this block numpy's OpenBLAS runs one thread; the former number is restored after it.

    The setting is process-wide: nested or concurrent blocks share it, and the last to leave restores the
    number the first found. Where numpy does not use OpenBLAS, nothing changes.
    """
    global _one_thread_holders, _one_thread_saved
    with _one_thread_lock:
        if _one_thread_holders == 0:
            _one_thread_saved = blas_threads()
            if _one_thread_saved not in (None, 1):
                set_blas_threads(1)
        _one_thread_holders += 1
    try:
        yield
    finally:
        with _one_thread_lock:
            _one_thread_holders -= 1
            if _one_thread_holders == 0 and _one_thread_saved not in (None, 1):
                set_blas_threads(_one_thread_saved)


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


@functools.cache
def _pool(workers):
    from concurrent.futures import ThreadPoolExecutor  # imported on first use: course_utils' import stays light

    return ThreadPoolExecutor(max_workers=workers, thread_name_prefix="course_utils")


def split_rows(work, rows, *, min_rows=1):
    """Call ``work(start, stop)`` over contiguous shares of ``range(rows)``, one per core, with a one-thread BLAS.

    One share runs in the calling thread, the others in a pool of threads kept for later calls; numpy's matrix
    products and ufuncs release the GIL, so the shares run side by side. ``work`` must write only its own rows.
    Each share has at least ``min_rows`` rows: fewer rows than that (or one core) make one share, run here.
    An exception raised by a share is raised here, after every share has finished.
    """
    shares = max(1, min(_cores(), rows // max(1, min_rows)))
    cuts = [rows * i // shares for i in range(shares + 1)]
    with one_blas_thread():
        if shares == 1:
            work(0, rows)
            return
        futures = [_pool(shares - 1).submit(work, a, b) for a, b in zip(cuts[1:-1], cuts[2:])]
        try:
            work(cuts[0], cuts[1])
        finally:
            errors = [f.exception() for f in futures]  # waits for every share
        for error in errors:
            if error is not None:
                raise error
