"""`make clean-env` removes the course's own virtual environment and nothing else (tools/clean_env.py)."""
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import clean_env as C
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "clean_env.py"
#: A bare Python: no environment variables, no user site (``-I`` would also drop the script's folder from sys.path,
#: which a tool run by its path imports its neighbour ``_checkout.py`` from, as any script does).
BARE = ("-E", "-s")


def a_venv(folder: Path) -> Path:
    (folder / "bin").mkdir(parents=True)
    (folder / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (folder / ".installed-requirements.lock").write_text("")
    return folder


@pytest.fixture
def repo(tmp_path):
    repo = tmp_path / "course"
    (repo / "solutions").mkdir(parents=True)
    (repo / "solutions" / "01.ipynb").write_text("{}")
    return repo


def test_removes_a_venv_inside_the_repository(repo):
    venv = a_venv(repo / ".venv")
    assert C.course_venv(".venv", repo) == venv.resolve()
    assert C.course_venv(str(venv), repo) == venv.resolve()


@pytest.mark.parametrize("where, why", [
    ("outside", "not a folder inside this repository"),
    ("root", "not a folder inside this repository"),
    ("no-cfg", "no pyvenv.cfg"),
    ("link", "symbolic link"),
    ("empty", "VENV is empty"),
])
def test_refuses_anything_else(repo, tmp_path, where, why):
    outside = a_venv(tmp_path / "home" / "important")
    venv = {"outside": str(outside), "root": ".", "no-cfg": "solutions", "link": "venv-link", "empty": " "}[where]
    if where == "link":
        os.symlink(outside, repo / "venv-link")
    with pytest.raises(C.Refused, match=re.escape(why)):
        C.course_venv(venv, repo)
    assert (outside / "pyvenv.cfg").exists() and (repo / "solutions" / "01.ipynb").exists()


def test_a_missing_venv_is_nothing_to_remove(repo):
    assert C.course_venv(".venv", repo) is None


def test_the_bare_script_refuses_an_exported_venv_outside_the_repository(tmp_path):
    """As `make clean-env` runs it, with VENV exported to a folder of the learner's: nothing is removed."""
    precious = a_venv(tmp_path / "my-env")
    proc = subprocess.run([sys.executable, *BARE, str(SCRIPT), str(precious)], capture_output=True, text=True)
    assert proc.returncode == 1 and "not removing anything" in proc.stderr and "unset VENV" in proc.stderr
    assert (precious / "pyvenv.cfg").exists()


def test_the_bare_script_removes_the_course_venv(tmp_path):
    """A copy of the script in a repository of its own, as in a clone (stdlib only: no course_utils import)."""
    repo = tmp_path / "clone"
    script = repo / "tools" / "clean_env.py"
    script.parent.mkdir(parents=True)
    script.write_bytes(SCRIPT.read_bytes())
    (script.parent / "_checkout.py").write_bytes((SCRIPT.parent / "_checkout.py").read_bytes())
    venv = a_venv(repo / ".venv")
    proc = subprocess.run([sys.executable, *BARE, str(script), ".venv"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert not venv.exists() and "Removed the environment" in proc.stdout


def test_make_clean_env_runs_the_guard():
    """The Makefile lines (added by the Makefile's owner): `make -n clean-env VENV=...` runs the guard, never rm -rf."""
    makefile = (ROOT / "Makefile").read_text()
    if "clean_env.py" not in makefile:
        pytest.skip("the Makefile's clean-env has no guard yet (issue 13: the lines are in the report)")
    out = subprocess.run(["make", "-n", "--no-print-directory", "clean-env", "VENV=/home/me/it's"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "clean_env.py" in out and "rm -rf" not in out
    assert "clean_env.py '/home/me/it'" + "\\" + "''s'" in out  # one argument, quoted for the shell


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="POSIX process groups")
def test_the_background_compilation_is_stopped_before_the_venv_goes(repo):
    venv = a_venv(repo / ".venv")
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "--compile-worker"],
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 10  # until the child has exec'd: before, its command line is pytest's
        while not C._is_compile_worker(worker.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        (venv / ".bytecode-pending").write_text(f"{worker.pid}\n")
        assert C.stop_compiling(venv)
        assert worker.wait(timeout=10) == -15  # SIGTERM
    finally:
        if worker.poll() is None:
            worker.kill()


def test_another_process_named_in_the_marker_is_left_alone(repo):
    venv = a_venv(repo / ".venv")
    (venv / ".bytecode-pending").write_text(f"{os.getpid()}\n")  # pytest itself: not a worker
    assert not C.stop_compiling(venv)
    (venv / ".bytecode-pending").write_text("")  # the worker had not written its pid yet
    assert not C.stop_compiling(venv)
