"""The checkout a tool runs from: its root, put first on ``sys.path``.

Every tool in this folder is run by its path (``python tools/build.py``, as the Makefile and course.py do), so
Python puts this folder, not the checkout, on ``sys.path``. Importing this module puts the checkout first, so that
a tool imports this checkout's own ``course_utils`` whether or not it is installed (a JupyterHub's environment
has no course_utils installed; the notebooks' first cell does the same), and gives the tools one ``REPO_ROOT``.
It also deletes any compiled file of course_utils that was cut short (a disk that filled while Python wrote it:
every import then fails with "marshal data too short" until it is gone); Python compiles that module again. The
notebooks' first cell does the same.

``doctor()`` loads course_utils/doctor.py by its path, without the course_utils package (whose import needs numpy):
the tools that must run with any Python, a broken environment included (``doctor.py``, ``clean_env.py``), use it.

The other tools need the course's environment (``NEEDS``). Run by a Python without it (a bare ``python3``), such a
tool stops at once with one sentence naming the Python to run it with, instead of a traceback.
"""
from __future__ import annotations

import functools
import importlib.util
import marshal
import os
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent  # tools/_checkout.py -> the checkout

if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))


def drop_cut_bytecode(package=REPO_ROOT / "course_utils") -> list:
    """Delete the compiled files under ``package`` whose code does not load (cut short); returns their paths."""
    dropped = []
    for cached in package.glob(f"**/__pycache__/*.{sys.implementation.cache_tag}.pyc"):  # this Python's only
        try:
            marshal.loads(cached.read_bytes()[16:])  # the code after the 16-byte header, whole or not
        except (EOFError, ValueError, TypeError):
            cached.unlink(missing_ok=True)
            dropped.append(cached)
        except OSError:  # unreadable: Python will say so itself when it imports the module
            pass
    return dropped


drop_cut_bytecode()


@functools.lru_cache(maxsize=None)
def doctor():
    """course_utils/doctor.py as a module of its own (standard library only), or None where it is missing."""
    path = REPO_ROOT / "course_utils" / "doctor.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("course_doctor", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


#: The tools that need the course's environment, and a package they import that only it is sure to have.
NEEDS = {"build": "nbformat", "reset": "nbformat", "update": "nbformat", "myths": "nbformat", "html_pages": "nbconvert",
         "inventory_report": "numpy", "release": "nbformat"}


def missing_environment(script, python=sys.executable, arguments=()) -> str | None:
    """What to say when ``script`` (a tool of this folder, run as ``__main__``) cannot run on this Python: None when
    it can, or needs nothing (doctor.py, clean_env.py, hub_link.py run with any Python)."""
    package = NEEDS.get(Path(script).stem)
    if package is None:
        return None
    try:
        if importlib.util.find_spec(package) is not None:
            return None
    except (ImportError, ValueError):  # a broken install of it: the same as none
        pass
    venv_python = Path(".venv", *(("Scripts", "python.exe") if os.name == "nt" else ("bin", "python")))
    command = " ".join([str(Path("tools", Path(script).name)), *arguments])
    where = "" if Path.cwd().resolve() == REPO_ROOT else f", in the course folder {REPO_ROOT}"
    run = f"`{venv_python} {command}`{where}"
    if (REPO_ROOT / venv_python).exists():
        fix = f"run it with the course's Python: {run}"
    else:
        module = doctor()
        env = module.course_command("env") if module else "make env"
        fix = f"build the course's environment first (`{env}`), then run {run}"
    return f"{command} needs the course's Python (this one, {python}, has no {package}): {fix}"


_script = getattr(sys.modules.get("__main__"), "__file__", None)  # None under `python -c` or an interactive prompt
if _script and Path(_script).resolve().parent == Path(__file__).resolve().parent:
    _said = missing_environment(_script, arguments=sys.argv[1:])
    if _said:
        sys.exit(_said)
