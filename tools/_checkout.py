"""The checkout a tool runs from: its root, put first on ``sys.path``.

Every tool in this folder is run by its path (``python tools/build.py``, as the Makefile and course.py do), so
Python puts this folder, not the checkout, on ``sys.path``. Importing this module puts the checkout first, so that
a tool imports this checkout's own ``course_utils`` whether or not it is installed (a JupyterHub's environment
has no course_utils installed; the notebooks' first cell does the same), and gives the tools one ``REPO_ROOT``.

``doctor()`` loads course_utils/doctor.py by its path, without the course_utils package (whose import needs numpy):
the tools that must run with any Python, a broken environment included (``doctor.py``, ``clean_env.py``), use it.
"""
import functools
import importlib.util
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent  # tools/_checkout.py -> the checkout

if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))


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
