"""A second `make lab` in the same course folder says where the first one is, instead of starting another (issue 25).

The report: a second `make lab` started a second server on port 8889 without a word, two servers saving the same
notebooks. Here a real JupyterLab serves this folder, with its runtime files in a folder of the test's own; then
`python course.py lab` (what `make lab` runs) stops at once with the first server's process and address, and no
second server starts.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
JUPYTER = VENV / "bin" / "jupyter"

pytestmark = pytest.mark.skipif(not JUPYTER.exists(), reason="needs the course's environment (.venv)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def servers_in(runtime: Path) -> list:
    return [json.loads(p.read_text()) for p in runtime.glob("jpserver-*.json")]


@pytest.fixture
def runtime(tmp_path, monkeypatch):
    folder = tmp_path / "runtime"
    folder.mkdir()
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(folder))
    return folder


@pytest.fixture
def first_lab(runtime):
    """JupyterLab serving the course folder, as the first `make lab` starts it (no browser)."""
    as_root = ["--allow-root"] if getattr(os, "geteuid", lambda: 1)() == 0 else []
    server = subprocess.Popen([str(JUPYTER), "lab", "--no-browser", f"--port={free_port()}", "--ServerApp.token=first",
                               f"--ServerApp.root_dir={ROOT}", *as_root], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 90
    while not servers_in(runtime):
        assert server.poll() is None and time.monotonic() < deadline, "the first JupyterLab did not start"
        time.sleep(0.2)
    yield server
    server.terminate()
    server.wait(30)


def test_a_second_lab_names_the_first_and_starts_nothing(first_lab, runtime):
    (first,) = servers_in(runtime)
    done = subprocess.run([sys.executable, str(ROOT / "course.py"), "lab", "--", "--no-browser"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert f"already running for this course folder (process {first_lab.pid})" in said
    assert f"{first['url']}?token=first" in said
    assert len(servers_in(runtime)) == 1, "a second server started"


def test_a_server_that_has_ended_is_not_named(runtime):
    """A runtime file left by a server that was killed (its process gone) is not a running server."""
    sys.path.insert(0, str(ROOT))
    import course

    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(ended.stdout)
    (runtime / f"jpserver-{pid}.json").write_text(json.dumps({
        "pid": pid, "root_dir": str(ROOT), "url": "http://localhost:8888/", "token": "old", "port": 8888,
        "base_url": "/", "hostname": "localhost", "password": False, "secure": False, "sock": "", "version": "2"}))
    assert course.running_servers(VENV) == []
    (runtime / f"jpserver-{os.getpid()}.json").write_text(json.dumps({
        "pid": os.getpid(), "root_dir": str(ROOT / "notebooks"), "url": "http://localhost:8890/", "token": "x",
        "port": 8890, "base_url": "/", "hostname": "localhost", "password": False, "secure": False, "sock": "",
        "version": "2"}))
    assert course.running_servers(VENV) == [], "a server of another folder is not this course's"
