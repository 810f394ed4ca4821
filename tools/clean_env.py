"""Remove the course's own virtual environment, and nothing else (``make clean-env``).

``make clean-env`` used to run ``rm -rf $(VENV)``: with ``VENV`` exported in the shell (``export
VENV=$HOME``, a conda or pyenv habit) it would have deleted that folder. This removes ``VENV`` only when
it is a virtual environment (it holds ``pyvenv.cfg``) inside this repository (not the repository itself, not
a symbolic link, holding no file git tracks); otherwise it removes nothing and says why.

Runs with the standard library only, as a bare script, since the environment it removes may be broken::

    python3 tools/clean_env.py .venv

``python3 course.py clean-env`` runs it too (with the course's .venv, or its ``--venv``); the messages name the
command the learner ran (doctor.py's ``course_command``, loaded by its path: standard library only as well).

Exit codes: 0 removed, or nothing to remove; 1 refused (nothing removed); 2 bad usage.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from _checkout import REPO_ROOT, doctor


class Refused(Exception):
    """The folder is not the course's virtual environment: nothing was removed."""


def _command(target: str) -> str:
    """``make <target>``, or what the learner typed instead (``python3 course.py <target>``)."""
    module = doctor()  # None for a copy of this file without course_utils/doctor.py: its messages then name make
    return module.course_command(target) if module else f"make {target}"


def course_venv(venv, repo=None) -> Path | None:
    """The folder ``venv`` names, when it is a virtual environment inside the repository.

    Parameters
    ----------
    venv : str or Path
        ``VENV`` as make passes it: relative to the repository, or absolute.
    repo : str or Path, optional
        The repository (default: the one this file belongs to).

    Returns
    -------
    Path or None
        The folder to remove; None when it does not exist.

    Raises
    ------
    Refused
        When it is anything else; the message says why.
    """
    repo = Path(repo or REPO_ROOT).resolve()
    text = str(venv).strip()
    if not text:
        raise Refused(f"VENV is empty: nothing to remove ({_command('clean-env')} removes the course's .venv)")
    path = Path(text).expanduser()
    path = path if path.is_absolute() else repo / path
    if path.is_symlink():
        raise Refused(f"{path} is a symbolic link: remove the link yourself if you mean to (rm {path})")
    if not path.exists():
        return None
    real = path.resolve()
    if real == repo or repo not in real.parents:
        module = doctor()
        if module and module.launcher():  # course.py: its --venv named this folder
            raise Refused(f"{real} is not a folder inside this repository ({repo}): run `{_command('clean-env')}` "
                          "without --venv, which removes the course's own .venv")
        raise Refused(f"{real} is not a folder inside this repository ({repo}): is VENV set in your shell "
                      f"(`echo $VENV`)? `unset VENV`, or run `make clean-env VENV=.venv`")
    if not (real / "pyvenv.cfg").is_file():
        raise Refused(f"{real} holds no pyvenv.cfg, so it is not a virtual environment: remove it yourself if "
                      "you mean to")
    try:
        tracked = subprocess.run(["git", "ls-files", "--", str(real)], cwd=repo, capture_output=True, text=True)
    except OSError:  # no git: the two checks above stand
        tracked = None
    if tracked is not None and tracked.returncode == 0 and tracked.stdout.strip():
        raise Refused(f"{real} holds files of the course that git tracks: it is not the course's environment")
    return real


def _is_compile_worker(pid: int) -> bool:
    """Whether process `pid` is tools/install_env.py's background compilation (not a pid reused by another)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # no /proc (macOS): ask ps
        try:
            command = subprocess.run(["ps", "-o", "command=", "-p", str(pid)], capture_output=True).stdout
        except OSError:
            return False
    return b"--compile-worker" in command


def stop_compiling(venv: Path, wait: float = 5.0) -> bool:
    """Stop the background compilation of the environment's bytecode if it still runs (``make lab`` starts it
    after installing; its pid is in ``.bytecode-pending``), so that it writes nothing into the folder being
    removed. True when there was one to stop."""
    try:
        pid = int((venv / ".bytecode-pending").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return False
    if not hasattr(os, "killpg") or not _is_compile_worker(pid):
        return False
    try:
        os.killpg(pid, signal.SIGTERM)  # the worker leads its own session: its compiling children go too
    except OSError:
        return False
    deadline = time.monotonic() + wait
    while _is_compile_worker(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return True


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python3 tools/clean_env.py VENV", file=sys.stderr)
        return 2
    try:
        venv = course_venv(argv[0])
    except Refused as err:
        print(f"{_command('clean-env')}: not removing anything: {err}.", file=sys.stderr)
        return 1
    if venv is None:
        print(f"No environment at {argv[0]}: nothing to remove.")
        return 0
    stop_compiling(venv)
    shutil.rmtree(venv)
    print(f"Removed the environment {venv} ({_command('env')}, {_command('lab')} or {_command('test')} creates it "
          "again).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
