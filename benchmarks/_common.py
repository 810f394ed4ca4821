"""Shared helpers of the benchmarks: timing, machine description, the BLAS kernel that ran."""
import contextlib
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = RESULTS.parent.parent
#: Where a goal that is not met is explained (measured best, what was tried, why it stops), relative to RESULTS.
PERFORMANCE_DOC = "../../docs/performance.md"


def verdict(ok, why=None):
    """"goal met", or "not met" linked to the section ``why`` (a heading's anchor) of docs/performance.md."""
    if ok:
        return "goal met"
    return f"not met ([why]({PERFORMANCE_DOC}#{why}))" if why else "not met"


def blas_info():
    """Which BLAS library and kernel numpy uses: threadpoolctl if installed, else numpy's config."""
    try:
        from threadpoolctl import threadpool_info  # not in the lock: optional
    except ImportError:
        threadpool_info = None
    if threadpool_info is not None:
        rows = [f"{i.get('internal_api')} {i.get('version')} ({i.get('architecture', '?')}, "
                f"{i.get('num_threads')} threads)" for i in threadpool_info() if i.get("user_api") == "blas"]
        if rows:
            return "threadpoolctl: " + "; ".join(rows)
    try:
        config = np.show_config(mode="dicts")
        blas = config.get("Build Dependencies", {}).get("blas", {})
        simd = config.get("SIMD Extensions", {})
        text = f"numpy.show_config: {blas.get('name')} {blas.get('version')}"
        if simd:
            text += f"; SIMD found: {', '.join(simd.get('found', []))}"
    except Exception as exc:  # older numpy: no mode="dicts"
        text = f"numpy.show_config unavailable ({exc})"
    try:  # OpenBLAS reports the kernel it chose at run time
        import ctypes

        for lib in _loaded_openblas():
            handle = ctypes.CDLL(lib)
            handle.openblas_get_corename.restype = ctypes.c_char_p
            handle.openblas_get_config.restype = ctypes.c_char_p
            text += (f"; OpenBLAS core at run time: {handle.openblas_get_corename().decode()} "
                     f"({handle.openblas_get_config().decode()})")
            break
    except Exception:
        pass
    return text


def _loaded_openblas():
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            return sorted({line.split()[-1] for line in maps if "openblas" in line.lower() and ".so" in line})
    except OSError:
        return []


def machine():
    """A few lines describing the machine and the environment of this run."""
    env = {name: os.environ.get(name, "(unset)") for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
                                                              "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                                              "PYTHONDONTWRITEBYTECODE")}
    lines = [
        f"- machine: {platform.machine()}, {os.cpu_count()} logical cores, {platform.platform()}",
        f"- processor: {_cpu_model()}",
        f"- Python {sys.version.split()[0]}, numpy {np.__version__}",
        f"- BLAS: {blas_info()}",
        "- environment: " + ", ".join(f"{k}={v}" for k, v in env.items()),
    ]
    try:
        import torch

        lines.append(f"- torch {torch.__version__}, {torch.get_num_threads()} threads")
    except ImportError:
        lines.append("- torch: not installed (its columns are skipped)")
    return lines


def _cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def markdown_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(out)


class LoadMeter:
    """CPU time used by other processes while the benchmark runs: the load caveat, measured.

    This process and the children it has waited for (kernels, subprocesses) count as its own."""

    def __init__(self):
        self.start = self._read()

    @staticmethod
    def _read():
        try:
            with open("/proc/stat", encoding="utf-8") as stat:
                fields = [int(x) for x in stat.readline().split()[1:]]
            busy = sum(fields) - fields[3] - fields[4]  # all but idle and iowait, in clock ticks
            ticks = os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None
        own = os.times()
        return time.monotonic(), busy / ticks, own.user + own.system + own.children_user + own.children_system

    def cores_used_by_others(self):
        """Average number of cores kept busy by other processes since the start (None where unknown)."""
        now = self._read()
        if now is None or self.start is None:
            return None
        wall = now[0] - self.start[0]
        return max(0.0, ((now[1] - self.start[1]) - (now[2] - self.start[2])) / wall) if wall > 0 else None


@contextlib.contextmanager
def checkout(before):
    """The tree of ``before``: a directory holding course_utils as it is, else a git ref checked out (detached) into
    a temporary worktree, removed afterwards. Yields the tree's root."""
    path = Path(before)
    if (path / "course_utils").is_dir():
        yield path.resolve()
        return
    with tempfile.TemporaryDirectory(prefix="bench-before-") as tmp:
        worktree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(worktree), before],
                       check=True)
        try:
            yield worktree
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)], check=False)
