"""Run a measurement in a Python process of its own: what tracemalloc sees there is that code's alone.

tracemalloc counts every allocation of its process, and pytest's process is not quiet: the browser tests drive
their notebooks from a thread of it from the session's start (tests/test_browser.py), so a peak measured there
grows by whatever that thread allocated meanwhile (the re-trial saw blockwise attention's "same bytes at every
length" differ by 420 kB in a full run, and by 128 bytes alone).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_alone(code: str, timeout: float = 120):
    """Run ``code`` in a fresh interpreter of this environment; it prints one JSON value on its last line, returned."""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])
