"""Check that a machine is ready for the course, and say exactly how to fix what is not.

The same diagnoses run from a terminal and from notebook 00 ("Before you start")::

    make doctor                              # creates the environment when missing, then diagnoses it
    python3 tools/doctor.py                  # the same without make, even with a Python lacking the packages
    python -m course_utils.doctor            # Colab (`!python ...` in a cell) or a pip install

Output: one ``ok`` or ``PROBLEM`` line per diagnosis (a ``Finding``), wrapped between words (never inside a
version, a path or a `command`) to the terminal's width or ``NOTEBOOK_WIDTH``, then each problem's fix. Exit code 0
when all is ok, else 1. (This module *diagnoses* the setup; ``course_utils.checks`` *checks* answers.)

What is checked
---------------
In a clone: python (3.10 or newer; the ``.venv``'s Python where there is one), packages (equal to the lock that
fits this Python), course_utils (imported from this repository; editable in ``.venv``), environment (``.venv``'s
stamp newer than the lock), matplotlib (draws; inline in a notebook), widgets (the serving JupyterLab has the widget
extension matching ipywidgets) and, run by tools/doctor.py, kernel (the ``python3`` kernel is the course's Python). In
Colab or a pip install (:data:`PACKAGE_PLACES`) the running Python is the course's environment: its version, every
requirement course_utils declares (installed, within bounds, loaded as installed), where course_utils imports from,
figures, and that ipywidgets imports (the page's widget support cannot be probed from Python there).

Each fix is worded for where the course runs (:func:`place`): ``make`` in a clone (course.py's form without make:
:func:`course_command`), the admin on a JupyterHub or Binder, Colab's Runtime menu, ``python -m pip`` for an
installed package. Every diagnosis is a small function of its inputs, so each failure can be provoked in tests. The
module imports only the standard library at import time, so loaded by its path it runs under any Python.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

__all__ = [
    "Finding",
    "CourseEnv",
    "MIN_PYTHON",
    "PACKAGE_PLACES",
    "Requirement",
    "diagnose_installed_course_utils",
    "diagnose_requirements",
    "diagnose_widgets_import",
    "in_kernel",
    "installed_note",
    "parse_requirement",
    "same_version",
    "reinstall_fix",
    "diagnose_course_utils",
    "diagnose_figure",
    "diagnose_kernel_python",
    "diagnose_matplotlib_backend",
    "diagnose_packages",
    "diagnose_python",
    "diagnose_server_widgets",
    "diagnose_stamp",
    "course_env",
    "course_command",
    "launcher",
    "place",
    "find_repo",
    "interpreter_from_script",
    "lock_name",
    "main",
    "matplotlib_diagnoses",
    "NOTEBOOK_WIDTH",
    "output_width",
    "package_diagnoses",
    "parse_lock",
    "python_diagnoses",
    "diagnose_all",
    "server_diagnoses",
    "server_from_cmdline",
    "show",
    "summary",
    "wrap",
]

MIN_PYTHON = (3, 10)
WIDGET_MANAGER = "@jupyter-widgets/jupyterlab-manager"
# ipywidgets major version -> (major version of the JupyterLab extension that renders it, and of
# the Python package that ships that extension: jupyterlab_widgets).
WIDGETS_MAJORS = {8: (5, 3), 7: (3, 1)}
SUBPROCESS_TIMEOUT = 60  # seconds; a cold first import can be slow, a hung one must not block

OK, PROBLEM = "ok", "PROBLEM"


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------
@dataclass
class Finding:
    """The outcome of one diagnosis: its ``name`` ("python", "packages", "widgets (.venv/bin/jupyter)", ...),
    whether it is ``ok`` (nothing wrong), what was found in one sentence (``message``) and the exact ``fix``
    (commands to run, or clicks; empty when ``ok``)."""

    name: str
    ok: bool
    message: str
    fix: str = ""

    def line(self) -> str:
        return f"{OK if self.ok else PROBLEM:<8} {self.name}: {self.message}"

    __str__ = line


def _ok(name, message):
    return Finding(name, True, message)


def _problem(name, message, fix):
    return Finding(name, False, message, fix)


#: Where an admin finds the hub's one-time setup (docs/instructor-guide.md).
HUB_SETUP = "docs/instructor-guide.md, \"Setting up the hub\""


#: The places where the course is a package pip installed into the running Python, not a clone: the checks there
#: are what that Python needs (its version, what course_utils declares, figures, widgets), never a lock, a ``.venv``,
#: a kernelspec or a JupyterLab server.
PACKAGE_PLACES = ("colab", "installed")
_LOOK = object()  # place()'s default folder: look for it


def place(environ=None, modules=None, folder=_LOOK) -> str:
    """Where the course runs: ``"colab"``, ``"installed"``, ``"binder"``, ``"hub"`` or ``"clone"``, asked in order.

    ``"colab"``: ``google.colab`` imported or ``COLAB_RELEASE_TAG`` set (even with a clone in the runtime);
    ``"installed"``: no course folder (:func:`find_repo`), so a pip-installed package; ``"binder"``: a ``BINDER_*``
    variable (asked before the hub: Binder runs on one); ``"hub"``: ``JUPYTERHUB_API_URL`` or ``JUPYTERHUB_USER``;
    ``"clone"``: anything else, a clone on the learner's machine where ``make`` works. `environ`, `modules` and
    `folder` (the course folder, None for none) default to ``os.environ``, ``sys.modules`` and :func:`find_repo`'s.
    """
    environ = os.environ if environ is None else environ
    modules = sys.modules if modules is None else modules
    if "google.colab" in modules or "COLAB_RELEASE_TAG" in environ:
        return "colab"
    if (find_repo() if folder is _LOOK else folder) is None:
        return "installed"
    if any(name in environ for name in ("BINDER_LAUNCH_HOST", "BINDER_REQUEST", "BINDER_REPO_URL")):
        return "binder"
    if "JUPYTERHUB_API_URL" in environ or "JUPYTERHUB_USER" in environ:
        return "hub"
    return "clone"


def launcher(environ=None) -> str | None:
    """What the learner types before a course command where make is not used: course.py's COURSE_LAUNCHER
    (inherited by everything it starts, kernels too), or with no ``make`` on the PATH this system's course.py form
    (``py course.py`` on Windows, else ``python3 course.py``). None under make (MAKELEVEL set) or with make at hand.
    `environ` defaults to ``os.environ``, here and in :func:`course_command`."""
    environ = os.environ if environ is None else environ
    if "MAKELEVEL" in environ:
        return None
    if environ.get("COURSE_LAUNCHER"):
        return environ["COURSE_LAUNCHER"]
    if shutil.which("make", path=environ.get("PATH", os.defpath)) is None:
        return "py course.py" if os.name == "nt" else "python3 course.py"
    return None


def course_command(target: str, environ=None, **variables) -> str:
    """How the learner runs the course's command ``target`` (make's target, course.py's command of the same name:
    ``lab``, ``env``, ``reset``, ...) here: ``make <target> NAME=value ...`` with make's `variables` (``NB``,
    ``PYTHON``), or course.py's form where :func:`launcher` says make is not used (``NB=01`` becomes an argument,
    ``PYTHON=python3.11`` the Python that runs course.py, ``py -3.11`` with Windows's py). Raises ValueError for a
    variable that has no course.py form.

    Examples
    --------
    >>> course_command("reset", {}, NB="01")
    'make reset NB=01'
    >>> course_command("reset", {"COURSE_LAUNCHER": "python3 course.py"}, NB="01")
    'python3 course.py reset 01'
    >>> course_command("env", {"COURSE_LAUNCHER": "py course.py"}, PYTHON="python3.11")
    'py -3.11 course.py env'
    >>> course_command("lab", {"COURSE_LAUNCHER": "py course.py", "MAKELEVEL": "1"})
    'make lab'
    """
    launched = launcher(environ)
    if launched is None:
        return " ".join([f"make {target}"] + [f"{name}={value}" for name, value in variables.items()])
    python, _, script = launched.partition(" ")
    arguments = []
    for name, value in variables.items():
        if name == "NB":
            arguments.append(value)
        elif name == "PYTHON":
            version = re.fullmatch(r"python(\d+(?:\.\d+)*)", value)
            python = f"py -{version.group(1)}" if python == "py" and version else value
        else:
            raise ValueError(f"course.py has no form of make's {name}=...: give course_command one")
    return " ".join(word for word in [python, script, target, *arguments] if word)


def _in_turn(*commands: str) -> str:
    """Commands run one after the other, quoted: joined by ``&&`` under make, else by ", then" (PowerShell 5)."""
    if launcher() is None:
        return "`" + " && ".join(commands) + "`"
    return ", then ".join(f"`{command}`" for command in commands)


def _activate(os_name=None) -> str:
    """The command that activates ``.venv`` in a terminal (``.venv\\Scripts\\activate`` under course.py on Windows)."""
    windows = (os.name if os_name is None else os_name) == "nt"
    return ".venv\\Scripts\\activate" if windows and launcher() else "source .venv/bin/activate"


#: What to do next once all is set, where the course runs (in a clone: :func:`start_step`).
START = {
    "hub": "Open the course with its link (it opens notebook 00).",
    "binder": "Open notebooks/00-before-you-start.ipynb in JupyterLab's file browser.",
    "colab": "Open the course's next notebook with its Open in Colab link.",
    "installed": "Open the course's notebooks with this Python as their kernel.",
}
#: How to run these checks again where there is no make (in a clone: :func:`doctor_again`).
_NO_MAKE_AGAIN = "notebook 00 (or `python tools/doctor.py` in a terminal, in the course folder)"
DOCTOR_AGAIN = {"hub": _NO_MAKE_AGAIN, "binder": _NO_MAKE_AGAIN,
                "colab": "notebook 00 (or `!python -m course_utils.doctor` in a cell)",
                "installed": "notebook 00 (or `python -m course_utils.doctor` with the Python the course is in)"}


def start_step(where: str) -> str:
    """What to do next once all is set: :data:`START`, or in a clone the command that opens the course."""
    return f"Start the course with `{course_command('lab')}`." if where == "clone" else START[where]


def doctor_again(where: str) -> str:
    """How to run these checks again: :data:`DOCTOR_AGAIN`, or in a clone the command that runs them."""
    return f"`{course_command('doctor')}`" if where == "clone" else DOCTOR_AGAIN[where]
#: In Colab: what gives a fresh runtime, where the notebook's first cell installs the course again.
COLAB_FRESH = ("Runtime > Disconnect and delete runtime, then run this notebook again (its first cell installs the "
               "course afresh)")
#: The fix for anything wrong with the environment itself, where a learner cannot repair it.
ASK_THE_ADMIN = {
    "hub": ("This hub's Python environment is not the course's, and only its admin can change it: tell your "
            f"instructor (the admin's one-time setup: {HUB_SETUP})"),
    "binder": ("This Binder was built from another environment: open the course's Binder link again (File > Hub "
               "Control Panel > Stop My Server first); if it persists, report it to the course's maintainers"),
}


@dataclass
class CourseEnv:
    """Where the course lives on this machine: ``repo``, the repository's root folder (None for an installed package
    with no course folder); ``venv``, ``repo/.venv`` when ``make`` built it (else None: conda, a hub, Binder, Colab,
    pip); ``python``, the course's interpreter (``.venv``'s, or the running Python); and ``where`` the course runs
    (:func:`place`), for which the fixes are worded."""

    repo: Path | None
    venv: Path | None
    python: str
    where: str = "clone"

    def show(self, path) -> str:
        """`path` relative to the repository when it lies inside it (as the user types it)."""
        if path is None:
            return "?"
        path = str(path)
        if self.repo is None:
            return path
        try:
            rel = os.path.relpath(path, self.repo)
        except ValueError:  # another drive (Windows)
            return path
        return path if rel.startswith("..") else rel

    @property
    def python_shown(self) -> str:
        return self.show(self.python)

    @property
    def fix_packages(self) -> str:
        """The fix for the course's packages: the lock into the course's environment, or the course reinstalled."""
        if self.where in PACKAGE_PLACES:
            return reinstall_fix(self)
        if self.venv is not None:
            return f"{self.python_shown} -m pip install --no-deps -r {lock_name(_python_version(self))}"
        if self.where in ASK_THE_ADMIN:
            return ASK_THE_ADMIN[self.where]
        if _is_conda(sys.prefix):
            return "conda env update -f environment.yml --prune && pip install --no-deps -e ."
        return f"{course_command('env')}     (builds .venv from the lock file; then use `{course_command('lab')}`)"


def _python_version(env: CourseEnv):
    """The course interpreter's (major, minor): the running one, or the venv's from pyvenv.cfg."""
    if env.venv is None or _inside(sys.prefix, env.venv):
        return sys.version_info[:2]
    try:
        text = (env.venv / "pyvenv.cfg").read_text()
        match = re.search(r"^version(?:_info)?\s*=\s*(\d+)\.(\d+)", text, re.MULTILINE)
        if match:
            return int(match.group(1)), int(match.group(2))
    except OSError:
        pass
    return sys.version_info[:2]


def _is_conda(prefix) -> bool:
    return os.path.isdir(os.path.join(prefix, "conda-meta"))


def _same_dir(a, b) -> bool:
    return os.path.realpath(str(a)) == os.path.realpath(str(b))


def _inside(path, folder) -> bool:
    path, folder = os.path.realpath(str(path)), os.path.realpath(str(folder))
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _same_interpreter(a, b) -> bool:
    """Two interpreter paths of the same environment: both python*, in the same bin folder (the file's own symlink
    is not followed: ``.venv/bin/python`` links to the base interpreter, another environment)."""
    if not a or not b:
        return False
    base_a, base_b = os.path.basename(str(a)).lower(), os.path.basename(str(b)).lower()
    return (base_a.startswith("python") and base_b.startswith("python")
            and _same_dir(os.path.dirname(os.path.abspath(str(a))), os.path.dirname(os.path.abspath(str(b)))))


# ---------------------------------------------------------------------------------------------
# Where is the course, which lock applies
# ---------------------------------------------------------------------------------------------
def find_repo(start=None) -> Path | None:
    """The first of `start` (default: the working folder), its parents and this module's parent (an editable
    install) that holds ``course_utils/__init__.py`` and ``requirements.lock``; else None."""
    start = Path(start if start is not None else os.getcwd()).resolve()
    candidates = [start, *start.parents, Path(__file__).resolve().parents[1]]  # course_utils/doctor.py
    for folder in candidates:
        if (folder / "course_utils" / "__init__.py").is_file() and (folder / "requirements.lock").is_file():
            return folder
    return None


def course_env(repo=None, where=None) -> CourseEnv:
    """The course's environment as seen from here (see :class:`CourseEnv`).

    `where` defaults to :func:`place`. Only in a clone is ``.venv`` the course's environment: on a hub or Binder the
    notebooks run on the service's environment, in Colab or a pip install on the running Python. Raises
    FileNotFoundError when `where` is a clone, a hub or Binder and no course folder is found.
    """
    repo = Path(repo) if repo is not None else find_repo()
    where = place(folder=repo) if where is None else where
    if where in PACKAGE_PLACES:
        return CourseEnv(repo, None, sys.executable, where)
    if repo is None:
        raise FileNotFoundError(
            "cannot find the course folder (one holding course_utils/ and requirements.lock): "
            "run this from inside the course's folder")
    venv = repo / ".venv"
    if where != "clone" or not (venv / "pyvenv.cfg").is_file():
        return CourseEnv(repo, None, sys.executable, where)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    return CourseEnv(repo, venv, str(python), where)


def lock_name(version_info) -> str:
    """The lock file for a Python version: ``requirements-py310.lock`` on 3.10, else ``requirements.lock``."""
    return "requirements-py310.lock" if tuple(version_info[:2]) == (3, 10) else "requirements.lock"


def normalise(name: str) -> str:
    """A package name in PEP 503 form (``Jinja2`` -> ``jinja2``, ``jupyter_core`` -> ``jupyter-core``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_lock(text: str) -> dict:
    """``{normalised name: version}`` from the text of a lock file (``name==version`` lines)."""
    pins = {}
    for line in text.splitlines():
        line = line.split("#")[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            pins[normalise(name.strip())] = version.split(";")[0].strip()
    return pins


def _direct_names(repo: Path) -> list:
    try:
        text = (repo / "requirements.in").read_text()
    except OSError:
        return []
    return [normalise(line.split("#")[0].strip()) for line in text.splitlines() if line.split("#")[0].strip()]


def installed_versions() -> dict:
    """``{normalised name: version}`` of the distributions the running Python sees (first wins; none before 3.8)."""
    try:
        from importlib import metadata
    except ImportError:
        return {}
    versions = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            versions.setdefault(normalise(name), dist.version)
    return versions


def _version(name: str) -> str | None:
    """The installed version of distribution `name`, None when it is not installed or has no metadata."""
    try:
        from importlib import metadata
        return metadata.version(name)
    except Exception:  # noqa: BLE001 - not installed, or no metadata at all
        return None


def _lock_pins(path) -> dict:
    """:func:`parse_lock` of the file at `path`, empty when it cannot be read."""
    try:
        return parse_lock(Path(path).read_text())
    except OSError:
        return {}


# ---------------------------------------------------------------------------------------------
# What course_utils declares (PEP 508), read with `packaging`: installed wherever the package is, the only places
# these are read (a clone compares lock pins as text, so the doctor runs with a bare Python there).
# ---------------------------------------------------------------------------------------------
class Requirement:
    """One requirement a package declares (PEP 508): ``name`` (normalised), ``specifier`` (a ``packaging``
    SpecifierSet, empty for any version), ``marker`` (or None) and ``text`` as written."""

    def __init__(self, parsed, text: str):
        self.name, self.specifier, self.marker, self.text = normalise(parsed.name), parsed.specifier, parsed.marker, text

    @property
    def bound(self) -> str:
        """The version bounds as pip writes them (``>=2.0``), or ``any version``."""
        return str(self.specifier) or "any version"

    @property
    def pip_argument(self) -> str:
        """The requirement for a pip command line, quoted (``"numpy>=2.0"``)."""
        return f'"{self.name}{self.specifier}"'

    def applies(self, environment: dict | None = None) -> bool:
        """Its marker holds here (always, without a marker); ``environment`` overrides this Python's marker values."""
        return self.marker is None or self.marker.evaluate(environment)

    def met_by(self, version: str | None) -> bool:
        """An installed `version` (None: not installed) satisfies every bound (pre-releases count, as in pip)."""
        return version is not None and self.specifier.contains(version, prereleases=True)


def parse_requirement(text: str) -> Requirement:
    """A requirement line of a package's metadata (``numpy>=2.0``, ``tomli>=1.1; python_version < "3.11"``) as a
    :class:`Requirement`. Raises ValueError when it is not well formed."""
    from packaging.requirements import InvalidRequirement
    from packaging.requirements import Requirement as Parsed

    try:
        return Requirement(Parsed(text), text.strip())
    except InvalidRequirement as error:
        raise ValueError(f"cannot read the requirement {text!r}: {error}") from None


def same_version(a: str, b: str) -> bool:
    """Whether two version strings name the same version (``2.0`` and ``2.0.0``; text equality if unreadable)."""
    from packaging.version import InvalidVersion, Version

    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


# ---------------------------------------------------------------------------------------------
# The diagnoses: small functions of their inputs
# ---------------------------------------------------------------------------------------------
def diagnose_python(version_info, prefix, executable, env: CourseEnv) -> Finding:
    """Python new enough (`version_info`), and (when ``.venv`` exists) the course's own Python (`prefix`)."""
    version = ".".join(str(v) for v in version_info[:3])
    if tuple(version_info[:2]) < MIN_PYTHON:
        return _problem(
            "python", f"Python {version} is too old: the course needs 3.10 or newer",
            ASK_THE_ADMIN.get(env.where) or NEWER_PYTHON.get(env.where) or
            "Install Python 3.11 or newer (python.org, pyenv, or your system's packages), then rebuild "
            "the environment with it: "
            + _in_turn(course_command("clean-env"), course_command("env", PYTHON="python3.11")))
    if env.where in PACKAGE_PLACES:
        return _ok("python", f"Python {version} at {executable} ({PACKAGE_PYTHON[env.where]})")
    if env.venv is not None and not _same_dir(prefix, env.venv):
        return _problem(
            "python", f"this is {executable} (Python {version}), not the course's Python ({env.python_shown})",
            f"Use the course's Python: `{course_command('doctor')}` "
            f"(or `{env.python_shown if launcher() else '.venv/bin/python'} tools/doctor.py`); "
            f"in a terminal, run `{_activate()}` first so that `python` and `jupyter` are the course's")
    where = "the course's environment" if env.venv is not None else "no .venv here: checking this environment"
    return _ok("python", f"Python {version} at {env.show(executable)} ({where})")


def diagnose_kernel_python(executable, prefix, env: CourseEnv) -> Finding:
    """Inside a notebook: the kernel runs the course's Python."""
    if env.venv is not None and not _same_dir(prefix, env.venv):
        return _problem(
            "kernel", f"this notebook's kernel runs {executable}, not the course's Python ({env.python_shown})",
            f"Save, close JupyterLab (File > Shut Down), then start it with `{course_command('lab')}` in the course "
            "folder; "
            "or pick the course's kernel: Kernel > Change Kernel...")
    return _ok("kernel", f"this notebook runs on {env.show(executable)}, the course's Python")


def diagnose_packages(pins: dict, installed: dict, lock: str, env: CourseEnv, only=None) -> Finding:
    """Installed versions (:func:`installed_versions`) equal the pins of the file `lock` (:func:`parse_lock`); with
    `only` (without a ``.venv``, e.g. conda: the direct requirements) just those names."""
    names = sorted(pins) if only is None else sorted(n for n in only if n in pins)
    wrong = [(n, installed.get(n), pins[n]) for n in names if installed.get(n) != pins[n]]
    if not pins:
        return _problem("packages", f"{lock} is missing or empty", "Restore it: `git checkout -- " + lock + "`")
    if not wrong:
        return _ok("packages", f"{len(names)} packages match {lock}")
    shown = ", ".join(f"{n} {got or 'missing'} (lock: {want})" for n, got, want in wrong[:6])
    more = f", and {len(wrong) - 6} more" if len(wrong) > 6 else ""
    plural = "s differ" if len(wrong) > 1 else " differs"
    return _problem("packages", f"{len(wrong)} package{plural} from {lock}: {shown}{more}", env.fix_packages)


def diagnose_course_utils(module_file, import_error, install: dict | None, env: CourseEnv) -> Finding:
    """course_utils imports from this repository; where ``make`` built a ``.venv``, it is installed editable there.

    The notebooks put the course folder first on their path, so they need no installation; only ``make``'s
    ``.venv`` holds one (for Python started outside a notebook), and a copy rather than a link is stale after an
    update. `module_file` is ``course_utils.__file__`` (None when the import failed with `import_error`); `install`
    the installed distribution's ``direct_url.json`` (``{}`` without one, None when not installed).
    """
    fix = f"In the course folder: `{env.python_shown} -m pip install --no-deps -e .`"
    if env.venv is None:  # the notebooks find it in the course folder; nothing to install
        fix = ("Open the notebooks from the course folder's notebooks/ (they put the course folder first on their "
               "path), or run this from inside the course folder")
    if module_file is None:
        return _problem("course_utils", f"cannot import course_utils ({import_error})",
                        env.fix_packages if "course_utils" not in str(import_error) else fix)
    package_dir = Path(module_file).resolve().parent
    if not _same_dir(package_dir, env.repo / "course_utils"):
        return _problem("course_utils", f"imported from {package_dir}, not from this repository ({env.repo})", fix)
    if env.venv is None:
        return _ok("course_utils", "imported from this repository (the course folder; no installation needed)")
    if install is None:
        return _problem("course_utils", "not installed in this environment: notebooks stop at "
                        "`import course_utils` with ModuleNotFoundError", fix)
    url = install.get("url", "")
    source = _url_path(url) if url.startswith("file:") else url
    editable = bool(install.get("dir_info", {}).get("editable"))
    if not source or not _same_dir(source, env.repo) or not editable:
        what = f"a copy from {source}" if source else "a copy"
        return _problem("course_utils", f"installed as {what}, not linked to this repository: "
                        "notebooks use that copy, not the files here", fix)
    return _ok("course_utils", "imported from this repository, installed editable")


def diagnose_stamp(env: CourseEnv, lock_path) -> Finding:
    """``.venv`` was completed by ``make env`` (its last step touches ``.venv/.installed-<lock>``) after the lock
    last changed."""
    lock_path = Path(lock_path)
    name = "environment"
    if env.venv is None:
        where = {"hub": "the hub's environment", "binder": "Binder's environment"}.get(env.where, "conda or Binder")
        return _ok(name, f"no .venv ({where}): nothing to compare")
    stamp = env.venv / f".installed-{lock_path.name}"
    make_env = course_command("env")
    if not stamp.exists():
        return _problem(name, f"{env.show(env.venv)} was never completed by `{make_env}` for {lock_path.name} "
                        f"(no {env.show(stamp)})", f"`{make_env}`")
    if lock_path.exists() and stamp.stat().st_mtime < lock_path.stat().st_mtime:
        # To the minute; to the second when both fall in the same minute (else "changed (00:55) after ... (00:55)").
        same_minute = int(stamp.stat().st_mtime // 60) == int(lock_path.stat().st_mtime // 60)
        shape = "%Y-%m-%d %H:%M:%S" if same_minute else "%Y-%m-%d %H:%M"

        def when(p):
            return time.strftime(shape, time.localtime(p.stat().st_mtime))
        return _problem(name, f"{lock_path.name} changed ({when(lock_path)}) after the environment was built "
                        f"({when(stamp)})", f"`{make_env}` (it reinstalls exactly the lock)")
    return _ok(name, f"built by `{make_env}` after {lock_path.name} last changed")


def diagnose_matplotlib_backend(backend: str) -> Finding:
    """Inside a notebook: figures appear below the cell (inline, or the ipympl widget)."""
    low = (backend or "").lower()
    if "inline" in low or "ipympl" in low or low in {"widget", "nbagg", "module://ipympl.backend_nbagg"}:
        return _ok("matplotlib", "figures draw below the cells (inline)")
    return _problem(
        "matplotlib", f"figures will not appear below the cells: matplotlib's backend is {backend!r}",
        "Run `%matplotlib inline` in a cell. For good: unset MPLBACKEND, and delete the `backend:` line of "
        "your matplotlibrc (`import matplotlib; print(matplotlib.matplotlib_fname())` in a cell prints where it is)")


def _draw_png() -> bytes:
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1, 1), dpi=50)
    FigureCanvasAgg(fig)
    fig.add_subplot().plot([0, 1], [0, 1])
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def diagnose_figure(draw=_draw_png, env: CourseEnv | None = None) -> Finding:
    """matplotlib draws a small figure to PNG (this also builds its font cache, once)."""
    if env is not None and env.where in ASK_THE_ADMIN:
        fix = ASK_THE_ADMIN[env.where]
    elif env is not None and env.where in PACKAGE_PLACES:
        installed = _version("matplotlib")  # the same version again
        pinned = f'"matplotlib=={installed}"' if installed else '"matplotlib"'
        fix = reinstall_fix(env, ["--force-reinstall", "--no-deps", pinned])
    elif env is None or env.venv:
        fix = "Reinstall the environment: " + _in_turn(course_command("clean-env"), course_command("env"))
    else:
        fix = "Reinstall matplotlib from the lock: " + env.fix_packages
    try:
        png = draw()
    except Exception as error:  # noqa: BLE001 - any failure is the finding
        return _problem("matplotlib", f"cannot draw a figure ({type(error).__name__}: {error})", fix)
    if not png.startswith(b"\x89PNG"):
        return _problem("matplotlib", "drew something that is not a PNG image", fix)
    return _ok("matplotlib", "draws a figure")


# ---------------------------------------------------------------------------------------------
# Colab and a pip install: the running Python is the course's environment, judged by what course_utils declares
# ---------------------------------------------------------------------------------------------
#: Whose Python runs the checks, where the course is an installed package.
PACKAGE_PYTHON = {"colab": "this Colab runtime's Python", "installed": "the Python the course is installed in"}
#: The fix for a Python older than 3.10, where the course is an installed package.
NEWER_PYTHON = {
    "colab": COLAB_FRESH,
    "installed": ("Install Python 3.11 or newer (python.org, or your system's packages), install the course with it "
                  "as you did with this one (`python3.11 -m pip install ...`), and pick it as the notebook's kernel"),
}
#: What makes the running Python load again what pip changed on disk.
RESTART = {
    "colab": "Runtime > Restart session, then run this notebook again",
    "installed": "restart the notebook's kernel (Kernel > Restart Kernel; in VS Code: Restart), then run it again",
}


def _pip_source(direct_url: dict | None) -> str | None:
    """What pip installed a distribution from, as a pip argument (``git+https://...@<commit>``, a folder, a URL),
    from its ``direct_url.json``; None when unknown (an index)."""
    if not direct_url or not direct_url.get("url"):
        return None
    url = direct_url["url"]
    vcs = direct_url.get("vcs_info")
    if vcs:
        revision = vcs.get("commit_id") or vcs.get("requested_revision")
        return f"{vcs.get('vcs', 'git')}+{url}" + (f"@{revision}" if revision else "")
    return _url_path(url) if url.startswith("file:") else url


def _url_path(url: str) -> str:
    """The local path of a ``file:`` URL (``file:///C:/x`` -> ``C:/x`` on Windows)."""
    source = unquote(urlparse(url).path)
    if os.name == "nt" and re.match(r"^/[A-Za-z]:", source):
        source = source[1:]
    return source


def _installed_course_utils(skip=()) -> dict | None:
    """The installed course_utils distribution, first on ``sys.path`` past the folders `skip` (a clone's working
    folder and root hold the source tree's own egg-info): ``version``, ``requires``, ``init`` (its
    ``course_utils/__init__.py``, None when editable), ``direct_url`` (its direct_url.json, ``{}`` without one),
    ``source`` and ``editable``; None when not installed."""
    from importlib import metadata

    skip = {os.path.realpath(str(folder)) for folder in skip}
    paths = [p for p in sys.path if os.path.realpath(p) not in skip]  # "" is the working folder
    dist = next((d for d in metadata.distributions(path=paths) if normalise(d.metadata["Name"] or "") == "course-utils"),
                None)
    if dist is None:
        return None
    init = None
    if any(str(f).replace("\\", "/") == "course_utils/__init__.py" for f in dist.files or ()):
        init = str(dist.locate_file("course_utils/__init__.py"))
    text = dist.read_text("direct_url.json")
    direct_url = json.loads(text) if text else {}
    return {"version": dist.version, "requires": dist.requires or [], "init": init, "direct_url": direct_url,
            "source": _pip_source(direct_url), "editable": bool((direct_url.get("dir_info") or {}).get("editable"))}


def reinstall_fix(env: CourseEnv, arguments=()) -> str:
    """The fix that pip-installs `arguments` (Requirements or pip arguments) into the running Python, where the
    course is an installed package (``env.where`` "colab" or "installed"); with none, the course itself again (in
    Colab a fresh runtime, whose first cell installs it; elsewhere from the source pip used)."""
    words = " ".join(a.pip_argument if isinstance(a, Requirement) else str(a) for a in arguments)
    if env.where == "colab":
        return f"Run `%pip install {words}` in a cell, then {RESTART['colab']}" if words else COLAB_FRESH
    if not words:
        found = _installed_course_utils()
        if not (found and found["source"]):
            return (f"Install the course again with pip into this Python ({env.python}), as it was first installed, "
                    f"then {RESTART['installed']}")
        words = f'--force-reinstall --no-deps {"-e " if found["editable"] else ""}"{found["source"]}"'
    return f'`"{env.python}" -m pip install {words}`, then {RESTART["installed"]}'


def diagnose_requirements(declared, installed: dict, loaded: dict, owner: str, env: CourseEnv,
                          environment: dict | None = None) -> Finding:
    """Every requirement course_utils declares is installed, within its bounds (not the lock's pins: Colab and pip
    bring their own versions), and loaded as installed.

    `declared` is its requirement lines (``importlib.metadata.requires("course_utils")``; None when it has no
    metadata); `installed` and `loaded` are ``{normalised name: version}`` installed, and of the modules already
    imported (pip may have changed them); `owner` names who declares them in the messages (``"course_utils
    1.1.0"``); `environment` holds marker values overriding this Python's (tests: another Python version).
    """
    name = "packages"
    if declared is None:
        return _problem(name, "course_utils is not installed as a package here: what it needs cannot be read",
                        reinstall_fix(env))
    try:
        requirements = [r for r in map(parse_requirement, declared) if r.applies(environment)]
    except ValueError as error:
        return _problem(name, f"{owner} declares a requirement this check cannot read: {error}",
                        "Report it to the course's maintainers, with this line")
    unmet = [(r, installed.get(r.name)) for r in requirements if not r.met_by(installed.get(r.name))]
    if unmet:
        shown = ", ".join(f"{r.name} {got or 'missing'} (needs {r.bound})" for r, got in unmet)
        return _problem(name, f"{len(unmet)} of the {len(requirements)} packages {owner} needs "
                        f"{'are' if len(unmet) > 1 else 'is'} not as it needs them: {shown}",
                        reinstall_fix(env, [r for r, _ in unmet]))

    stale = [(r.name, loaded[r.name], installed[r.name]) for r in requirements
             if loaded.get(r.name) and not same_version(loaded[r.name], installed[r.name])]
    if stale:
        shown = ", ".join(f"{n} {was} is loaded, {now} is installed" for n, was, now in stale)
        return _problem(name, f"pip changed packages this Python had already imported: {shown}",
                        RESTART[env.where][0].upper() + RESTART[env.where][1:])
    listed = ", ".join(f"{r.name} {installed[r.name]}" for r in requirements)
    return _ok(name, f"the {len(requirements)} packages {owner} needs meet its bounds: {listed}")


def diagnose_installed_course_utils(module_file, import_error, installed: dict | None, env: CourseEnv) -> Finding:
    """course_utils imports, from the installed package (not from a stray folder named course_utils that hides it).

    `module_file` is ``course_utils.__file__`` (None when the import failed with `import_error`); `installed` is
    :func:`_installed_course_utils`'s answer.
    """
    name = "course_utils"
    if module_file is None:
        return _problem(name, f"cannot import course_utils ({import_error})", reinstall_fix(env))
    package_dir = Path(module_file).resolve().parent
    if installed is None:
        return _ok(name, f"imported from {package_dir} (not installed as a package: no version)")
    version = installed["version"]
    if installed["init"] and not _same_dir(package_dir, Path(installed["init"]).parent):
        return _problem(name, f"imported from {package_dir}, not from the installed course_utils {version} "
                        f"({Path(installed['init']).parent}): the notebooks use that folder instead",
                        f"Rename or move the folder {package_dir}, then {RESTART[env.where]}")
    source = ""
    if installed.get("source"):
        source = f", installed from {installed['source']}" + (" (editable)" if installed.get("editable") else "")
    return _ok(name, f"course_utils {version} imported from {package_dir}{source}")


def diagnose_widgets_import(version, import_error, env: CourseEnv, requirement=None) -> Finding:
    """ipywidgets imports in this Python (`version`, or `import_error`; `requirement`, what course_utils declares,
    goes into the fix). Whether the page draws widgets cannot be probed from the kernel in Colab or an editor: the
    line says what to look for instead."""
    if import_error is not None:
        return _problem("widgets", f"cannot import ipywidgets ({import_error}): no slider can show",
                        reinstall_fix(env, [requirement or '"ipywidgets"']))
    return _ok("widgets", f"ipywidgets {version} imports; the page's own widget support cannot be checked from "
               "Python: moving a slider must redraw its picture (notebook 00, section 3)")


def installed_note(source: str) -> str:
    """The line a notebook's first cell prints after it pip-installed the course (from `source`) into the running
    Python; in Colab a second line says that the runtime forgets it, and every file saved there, when it stops.

    Examples
    --------
    >>> note = installed_note("git+https://github.com/OWNER/REPO@0123abc")
    >>> note.startswith("Installed the course's code: course_utils ")
    True
    """
    version = _version("course_utils") or "(version unknown)"  # rather than fail the first cell
    if place() == "colab":
        into = "this runtime's Python"
        after = ("\nA Colab runtime forgets it and every file saved here when it stops: File > Download keeps your "
                 "notebook.")
    else:
        into, after = sys.executable, ""
    return f"Installed the course's code: course_utils {version} from {source} (pip, into {into}).{after}"


# ---------------------------------------------------------------------------------------------
# Jupyter server and kernel
# ---------------------------------------------------------------------------------------------
def interpreter_from_script(script) -> str | None:
    """The Python that runs a console script such as ``jupyter``, from its ``#!/path/python``, ``#!/usr/bin/env
    python3`` or pip's ``#!/bin/sh`` + ``'''exec' "/path/python"`` lines; None for a pyenv shim or a Windows .exe."""
    try:
        with open(script, "rb") as handle:
            head = handle.read(1024).decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    if not head or not head[0].startswith("#!"):
        return None
    words = head[0][2:].strip().split()
    if not words:
        return None
    if os.path.basename(words[0]) in ("sh", "bash") and len(head) > 1:
        match = re.search(r"exec'?\s+\"?([^\"\s]+)\"?", head[1])
        if match and os.path.basename(match.group(1)).startswith("python"):
            return match.group(1)
        return None
    if os.path.basename(words[0]) == "env":
        args = [w for w in words[1:] if not w.startswith("-")]
        return shutil.which(args[0]) if args and args[0].startswith("python") else None
    return words[0] if os.path.basename(words[0]).startswith("python") else None


def server_from_cmdline(cmdline) -> str | None:
    """The Python of a Jupyter server process from its command line (``make lab``'s: ``['/repo/.venv/bin/python',
    '/repo/.venv/bin/jupyter-lab', ...]``), None if it is not a Jupyter server (pytest, nbclient, VS Code...)."""
    if not cmdline:
        return None
    first = cmdline[0]
    names = [os.path.basename(a).lower() for a in cmdline[:2]]
    module = cmdline[cmdline.index("-m") + 1] if "-m" in cmdline[:3] and cmdline.index("-m") + 1 < len(cmdline) else ""
    is_server = (any(n.startswith("jupyter") for n in names)
                 or module.split(".")[0] in {"jupyter", "jupyterlab", "notebook", "jupyter_server", "jupyterhub"})
    if not is_server:
        return None
    found = first if os.path.isabs(first) else shutil.which(first)
    if names[0].startswith("python") or found is None:
        return found
    return interpreter_from_script(found)


# Run by a server's Python: what its JupyterLab would load (uses only what every Jupyter installation has). The
# head (up to `out`) starts tools/doctor.py's probe of a kernel's Python too.
_PROBE_HEAD = r"""
import importlib.util, json, os, sys
def version(name):
    try:
        from importlib import metadata
        return metadata.version(name)
    except Exception:
        return None
out = {"executable": sys.executable, "prefix": sys.prefix, "version": list(sys.version_info[:3])}
"""
_PROBE = _PROBE_HEAD + r"""
names = ("jupyterlab", "jupyterlab_widgets", "ipywidgets", "notebook", "jupyter_server", "ipykernel")
out["dists"] = {name: version(name) for name in names}
try:
    from jupyter_core.paths import jupyter_path
    found = []
    for folder in jupyter_path("labextensions"):
        path = os.path.join(folder, "@jupyter-widgets", "jupyterlab-manager", "package.json")
        if os.path.isfile(path):
            with open(path) as handle:
                found.append([path, json.load(handle).get("version")])
    out["widget_labextensions"] = found
    out["jupyter_path"] = os.environ.get("JUPYTER_PATH", "")
except Exception as error:
    out["widget_labextensions"] = None
    out["error"] = repr(error)
if "--kernelspecs" in sys.argv:
    try:
        from jupyter_client.kernelspec import KernelSpecManager
        out["kernelspecs"] = KernelSpecManager().get_all_specs()
    except Exception as error:
        out["kernelspecs"] = None
        out["kernelspec_error"] = repr(error)
print("DOCTOR-JSON" + json.dumps(out))
"""


def _run_probe(python, code, args=(), cwd=None) -> dict:
    try:
        done = subprocess.run([python, "-c", code, *args], capture_output=True, text=True,
                              timeout=SUBPROCESS_TIMEOUT, cwd=cwd)
    except (OSError, subprocess.TimeoutExpired) as error:
        return {"error": f"cannot run {python}: {error}"}
    for line in done.stdout.splitlines():
        if line.startswith("DOCTOR-JSON"):
            return json.loads(line[len("DOCTOR-JSON"):])
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return {"error": f"{python} failed: {tail}"}


def probe_server(python, kernelspecs=True) -> dict:
    """What the Jupyter server run by `python` would load: package versions, the widget extension(s) on its path and
    (``kernelspecs=True``) its kernelspecs as ``jupyter kernelspec list --json`` has them; ``{"error": ...}``."""
    return _run_probe(python, _PROBE, ["--kernelspecs"] if kernelspecs else [])


def probe_server_commands(jupyter) -> dict:
    """:func:`probe_server` through two runs of the `jupyter` command, when its Python cannot be read (a shim)."""
    out = {"executable": None, "version": None, "dists": {}, "widget_labextensions": [],
           "jupyter_path": os.environ.get("JUPYTER_PATH", "")}
    try:
        specs = subprocess.run([jupyter, "kernelspec", "list", "--json"], capture_output=True, text=True,
                               timeout=SUBPROCESS_TIMEOUT)
        out["kernelspecs"] = json.loads(specs.stdout).get("kernelspecs") if specs.returncode == 0 else None
        exts = subprocess.run([jupyter, "labextension", "list"], capture_output=True, text=True,
                              timeout=SUBPROCESS_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired, ValueError) as error:
        return {"error": f"cannot run {jupyter}: {error}"}
    text = exts.stdout + exts.stderr
    lab = re.search(r"JupyterLab v(\S+)", text)
    out["dists"]["jupyterlab"] = lab.group(1) if lab else None
    manager = re.search(re.escape(WIDGET_MANAGER) + r"\s+v(\S+)", text)
    if manager:
        out["widget_labextensions"] = [[WIDGET_MANAGER, manager.group(1)]]
    sibling = os.path.join(os.path.dirname(jupyter), "python")
    out["executable"] = sibling if os.path.exists(sibling) else None
    return out


def _major(version) -> int | None:
    match = re.match(r"(\d+)", str(version or ""))
    return int(match.group(1)) if match else None


def _server_fix(server_label_is_course: bool, env: CourseEnv, server_python=None, package=None) -> str:
    if env.where in ASK_THE_ADMIN:  # the hub's JupyterLab: its admin installs what it lacks
        return ASK_THE_ADMIN[env.where] + (f"; it needs `{package}`" if package else "")
    if server_label_is_course:
        return env.fix_packages
    fix = (f"Start JupyterLab with `{course_command('lab')}` (the course's own JupyterLab), not `jupyter lab`; or "
           f"activate the course's environment first: `{_activate()}`")
    if server_python and package:
        fix += f". To repair that other JupyterLab instead: `{server_python} -m pip install \"{package}\"`"
    return fix


def diagnose_server_widgets(server: dict, label: str, ipywidgets_version, env: CourseEnv,
                         is_course_server: bool, widgets_pin=None) -> Finding:
    """The JupyterLab behind a `jupyter` command can render the course's widgets.

    `server` is what :func:`probe_server` found, `label` names the `jupyter` in the messages, `ipywidgets_version`
    is the kernel side's, `is_course_server` is True for ``.venv/bin/jupyter``, and `widgets_pin` (the lock's
    jupyterlab_widgets) goes into the fix.
    """
    name = f"widgets ({label})"
    python = server.get("executable")
    if "error" in server and not server.get("dists"):
        return _problem(name, server["error"], _server_fix(is_course_server, env))
    dists = server.get("dists") or {}
    lab = dists.get("jupyterlab")
    if not lab:
        return _problem(name, f"no JupyterLab in the environment of this `jupyter` ({python or '?'})",
                        _server_fix(is_course_server, env))
    if (_major(lab) or 0) < 3:
        return _problem(name, f"JupyterLab {lab} is too old for the course's widgets (needs 3 or newer)",
                        _server_fix(is_course_server, env, python, "jupyterlab>=4"))
    want_manager, want_package = WIDGETS_MAJORS.get(_major(ipywidgets_version), (None, None))
    package = f"jupyterlab_widgets=={widgets_pin}" if widgets_pin else f"jupyterlab_widgets~={want_package}.0"
    found = server.get("widget_labextensions")
    if not found:
        return _problem(name, f"JupyterLab {lab} cannot draw widgets: jupyterlab_widgets is not installed in its "
                        f"environment ({python or '?'}); sliders show as text such as IntSlider(value=0)",
                        _server_fix(is_course_server, env, python, package))
    where, version = found[0]
    if want_manager is not None and _major(version) != want_manager:
        ext_dir = os.path.dirname(where) if where.endswith("package.json") else None
        if ext_dir and server.get("prefix") and not _inside(ext_dir, server["prefix"]):
            # a stray copy outside the server's environment (JUPYTER_PATH, ~/.local, /usr/local) comes first
            fix = _stray_fix(ext_dir, server, "widget extension", "hides the one JupyterLab needs")
        else:
            fix = _server_fix(is_course_server, env, python, package)
        return _problem(name, f"JupyterLab {lab} has widget extension {version} ({ext_dir or where}), which cannot "
                        f"draw ipywidgets {ipywidgets_version}: sliders show as text or 'Error displaying widget'",
                        fix)
    return _ok(name, f"JupyterLab {lab} with widget extension {version}: sliders can render")


def _stray_fix(folder, server: dict, what: str, effect: str) -> str:
    """The fix for a kernelspec or extension folder found outside the server's environment."""
    jupyter_path = _jupyter_path(server)
    if any(_inside(folder, p) for p in jupyter_path):
        return (f"This {what} comes from JUPYTER_PATH ({os.pathsep.join(jupyter_path)}): `unset JUPYTER_PATH` "
                f"(and remove it from your shell profile), or delete it: `rm -r '{folder}'`")
    return f"Another installation left a {what} in {folder} that {effect}: remove it with `rm -r '{folder}'`"


def _jupyter_path(server: dict) -> list:
    return [p for p in (server.get("jupyter_path") or "").split(os.pathsep) if p]


# ---------------------------------------------------------------------------------------------
# Gathering: the diagnoses with their real inputs, for a terminal ("shell") or a notebook ("kernel")
# ---------------------------------------------------------------------------------------------
def _context(context):
    if context in ("shell", "kernel"):
        return context
    if context is not None:
        raise ValueError(f"context must be 'shell', 'kernel' or None, not {context!r}")
    return "kernel" if in_kernel() else "shell"


def in_kernel() -> bool:
    """True inside a running Jupyter kernel. Having imported ipykernel is not enough: ipywidgets 7 (Colab's) imports
    it in any Python, a terminal's too."""
    app = sys.modules.get("ipykernel.kernelapp")
    try:
        return bool(app and app.IPKernelApp.initialized())
    except Exception:  # noqa: BLE001 - another ipykernel than expected: not a kernel we can tell
        return False


def python_diagnoses(context=None, env: CourseEnv | None = None) -> list:
    """Python version and environment (terminal), or this notebook's kernel (notebook)."""
    env = env or course_env()
    if _context(context) == "kernel" and env.where not in PACKAGE_PLACES:
        return [diagnose_kernel_python(sys.executable, sys.prefix, env)]
    return [diagnose_python(sys.version_info, sys.prefix, sys.executable, env)]


def package_diagnoses(context=None, env: CourseEnv | None = None) -> list:
    """Package versions against the lock, course_utils, and the environment's stamp; where the course is an
    installed package (Colab, a pip install), against what course_utils declares, and where it is imported from."""
    env = env or course_env()
    if env.where in PACKAGE_PLACES:
        return _package_place_diagnoses(env)
    lock = lock_name(sys.version_info)
    lock_path = env.repo / lock
    only = None if env.venv is not None else _direct_names(env.repo)
    module_file, error = _import_course_utils()
    try:
        found = _installed_course_utils(skip=(os.getcwd(), env.repo))
    except ImportError:  # no importlib.metadata (Python 3.7)
        found = None
    return [diagnose_packages(_lock_pins(lock_path), installed_versions(), lock, env, only=only),
            diagnose_course_utils(module_file, error, found and found["direct_url"], env), diagnose_stamp(env, lock_path)]


def _import_course_utils():
    """(``course_utils.__file__``, None), or (None, the import's error)."""
    try:
        import course_utils
        return course_utils.__file__, None
    except Exception as exc:  # noqa: BLE001 - the failure is the finding
        return None, f"{type(exc).__name__}: {exc}"


def _package_place_diagnoses(env: CourseEnv) -> list:
    """package_diagnoses in Colab or a pip install: what course_utils declares, and where it imports from."""
    found = _installed_course_utils()
    loaded = {}
    for name in (requirement.name for requirement in _declared(found)):
        with warnings.catch_warnings():  # some packages deprecate their __version__
            warnings.simplefilter("ignore")
            version = getattr(sys.modules.get(name.replace("-", "_")), "__version__", None)
        if isinstance(version, str):
            loaded[name] = version
    owner = f"course_utils {found['version']}" if found else "course_utils"
    module_file, error = _import_course_utils()
    return [diagnose_requirements(found and found["requires"], installed_versions(), loaded, owner, env),
            diagnose_installed_course_utils(module_file, error, found, env)]


def matplotlib_diagnoses(context=None, env: CourseEnv | None = None) -> list:
    """matplotlib draws (terminal), or draws inline (notebook)."""
    if _context(context) == "kernel":
        try:
            import matplotlib
            return [diagnose_matplotlib_backend(matplotlib.get_backend())]
        except Exception as exc:  # noqa: BLE001
            return [_problem("matplotlib", f"cannot import matplotlib ({exc})", (env or course_env()).fix_packages)]
    return [diagnose_figure(env=env)]


def _parent_cmdline():
    ppid = os.getppid()
    try:
        import psutil
        return psutil.Process(ppid).cmdline()
    except Exception:  # noqa: BLE001 - psutil missing, or no access
        pass
    try:
        with open(f"/proc/{ppid}/cmdline", "rb") as handle:
            return [a.decode("utf-8", "replace") for a in handle.read().split(b"\0") if a]
    except OSError:
        return []


def server_diagnoses(context=None, env: CourseEnv | None = None, kernels=None) -> list:
    """The JupyterLab that serves (or would serve) the notebooks: widgets, and (terminal) its python3 kernel.

    Terminal: ``.venv/bin/jupyter``, and the ``jupyter`` on PATH when it is another. Notebook: the server that started
    this kernel, told from the parent process (else ``.venv/bin/jupyter``). For an installed package there is no
    server to probe: only that ipywidgets imports. `kernels` (terminal only; ``make doctor``'s
    ``diagnose_kernelspec``, in tools/doctor.py) judges each server's python3 kernel: ``kernels(server, label, env,
    course_numpy, is_course_server)`` returns a Finding; None skips that check."""
    env = env or course_env()
    context = _context(context)
    if env.where in PACKAGE_PLACES:
        return [_widgets_import_diagnosis(env)]
    pins = _lock_pins(env.repo / lock_name(_python_version(env)))
    ipywidgets, widgets_pin = _version("ipywidgets") or pins.get("ipywidgets"), pins.get("jupyterlab-widgets")
    course_numpy = _version("numpy")

    venv_jupyter = None
    if env.venv is not None:
        candidate = Path(env.python).parent / ("jupyter.exe" if os.name == "nt" else "jupyter")
        venv_jupyter = str(candidate) if candidate.exists() else None

    servers = []  # (label, python or None, jupyter script or None, is_course_server)
    parent = server_from_cmdline(_parent_cmdline()) if context == "kernel" else None
    if parent:
        is_course = env.venv is None or _same_interpreter(parent, env.python)
        servers.append((f"the JupyterLab showing this page, run by {env.show(parent)}", parent, None, is_course))
    elif venv_jupyter:
        servers.append((env.show(venv_jupyter), None, venv_jupyter, True))
    on_path = shutil.which("jupyter") if context == "shell" else None
    if on_path and not (venv_jupyter and _same_dir(on_path, venv_jupyter)):
        servers.append((f"jupyter on PATH: {on_path}", None, on_path, env.venv is None))
    if not servers and context == "shell":
        return [_problem("jupyter", "no `jupyter` command found (neither .venv/bin/jupyter nor on PATH)",
                         env.fix_packages if env.venv or env.where in ASK_THE_ADMIN
                         else f"{course_command('env')}, then start the course with `{course_command('lab')}`")]

    results = []
    for label, python, script, is_course in servers:
        if python is None and script is not None:
            python = interpreter_from_script(script)
        want_specs = context == "shell" and kernels is not None
        server = probe_server(python, kernelspecs=want_specs) if python else probe_server_commands(script)
        results.append(diagnose_server_widgets(server, label, ipywidgets, env, is_course, widgets_pin))
        if want_specs:
            results.append(kernels(server, label, env, course_numpy, is_course))
    return results


def _declared(found) -> list:
    """The requirements an installed course_utils (:func:`_installed_course_utils`) declares that can be read (the
    others are reported by :func:`diagnose_requirements`)."""
    requirements = []
    for line in (found["requires"] if found else []):
        try:
            requirements.append(parse_requirement(line))
        except ValueError:
            continue
    return requirements


def _widgets_import_diagnosis(env: CourseEnv) -> Finding:
    requirement = next((r for r in _declared(_installed_course_utils()) if r.name == "ipywidgets" and not r.marker), None)
    try:
        import ipywidgets
        return diagnose_widgets_import(getattr(ipywidgets, "__version__", "?"), None, env, requirement)
    except Exception as exc:  # noqa: BLE001 - the failure is the finding
        return diagnose_widgets_import(None, f"{type(exc).__name__}: {exc}", env, requirement)


def diagnose_all(context=None, env: CourseEnv | None = None, kernels=None) -> list:
    """Every diagnosis, in the order they are printed. `context`: "shell", "kernel" or None (guess); `kernels`: see
    :func:`server_diagnoses`."""
    try:
        env = env or course_env()
    except FileNotFoundError as error:
        return [_problem("course folder", str(error), "`cd` into the course's folder (the clone of the repository)")]
    first = python_diagnoses(context, env)
    if all(result.ok for result in first) or env.where in PACKAGE_PLACES:  # there, the running Python is the course's
        here = package_diagnoses(context, env) + matplotlib_diagnoses(context, env)
    else:  # the running Python is the wrong one: its packages say nothing about the course's
        here = [diagnose_stamp(env, env.repo / lock_name(_python_version(env)))]
    return first + here + server_diagnoses(context, env, kernels)


# ---------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------
#: Characters per line in notebook 00: JupyterLab 4.6's output area holds 74 monospace characters at 1024 px, 90 at
#: 1152 px, 107 at 1280 px (file browser open, 13 px font, Chromium) and breaks longer lines anywhere, even inside a
#: version. 88 fits every window from 1152 px up.
NOTEBOOK_WIDTH = 88
_RESULT_INDENT = len(f"{PROBLEM:<8} ")  # continuation lines start under the check's name
# A word: a run of non-blanks, where a `quoted command` (blanks and all) counts as part of its word.
_WORD = re.compile(r"(?:[^\s`]*`[^`]*`)+[^\s`]*|\S+")


def output_width() -> int | None:
    """Characters per line: ``NOTEBOOK_WIDTH`` in a notebook's kernel, the terminal's width in a terminal
    (or ``$COLUMNS``); None (no wrapping) when the output goes to a file or another program."""
    if in_kernel():
        return NOTEBOOK_WIDTH
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit():
        return max(40, int(columns))
    try:
        if sys.stdout.isatty():
            return max(40, shutil.get_terminal_size().columns)
    except (AttributeError, ValueError):  # a replaced or closed stdout
        pass
    return None


def wrap(text: str, width: int | None = None, indent: int = 0) -> str:
    """``text`` broken between words (never inside a version, a path or a `quoted command`) into lines of at most
    ``width`` characters (default ``output_width()``; a longer word gets its own line), continued after `indent`."""
    width = output_width() if width is None else width
    if not width:  # output to a file or a program: keep one line
        return text
    lines, line, end = [], None, 0
    for match in _WORD.finditer(text):
        gap, word = text[end:match.start()], match.group()  # the blanks before the word, kept as they are
        end = match.end()
        if line is None:
            line = gap + word  # the first word keeps the text's own indent
        elif len(line) + len(gap) + len(word) > width:
            lines.append(line)
            line = " " * indent + word
        else:
            line += gap + word
    lines.append(text if line is None else line)
    return "\n".join(lines)


def show(results, width: int | None = None) -> None:
    """Print one line per diagnosis: ``ok`` or ``PROBLEM``, its name and what was found (wrapped, see ``wrap``)."""
    for result in results:
        print(wrap(result.line(), width, _RESULT_INDENT))


def summary(results, env: CourseEnv | None = None, next_step=None, width: int | None = None) -> bool:
    """Print "All set" or the numbered list of problems with their fixes; return True when all set.

    `next_step` follows "All set" (default: how to start the course where it runs, :func:`start_step`)."""
    problems = [r for r in results if not r.ok]
    try:
        env = env or course_env()
        where, again = f" (in a terminal, in the course folder: cd {env.repo})", doctor_again(env.where)
        if env.where in PACKAGE_PLACES:  # each fix says where it is carried out
            where = ""
    except FileNotFoundError:
        where, again = "", doctor_again(place())
    if not problems:
        start = start_step(env.where if env else place())
        print(wrap(f"All set: {len(results)} checks passed. {next_step or start}", width))
        return True
    print(wrap(f"{len(problems)} problem{'s' if len(problems) > 1 else ''} found. "
               f"Fix {'them' if len(problems) > 1 else 'it'}{where}, then run {again} again:", width))
    for number, problem in enumerate(problems, 1):
        print(wrap(f"{number}. {problem.name}: {problem.message}", width, len(f"{number}. ")))
        print(wrap(f"   fix: {problem.fix}", width, len("   fix: ")))
    return False


def main(argv=None, kernels=None) -> int:
    """Command line: print every diagnosis and the fixes; return 0 when all is fine, 1 otherwise. `kernels`: see
    :func:`server_diagnoses` (tools/doctor.py passes its kernelspec check)."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] in ("-h", "--help"):
        print(__doc__.split("What is checked")[0].strip())
        return 0
    started = time.perf_counter()
    try:
        env = course_env()
        if env.where in PACKAGE_PLACES:
            print(f"Checking the course's package for {PACKAGE_PYTHON[env.where]}, {env.python} ...")
        else:
            print(f"Checking the course setup in {env.repo} ...")
    except FileNotFoundError:
        env = None
    results = diagnose_all("shell", env, kernels)
    show(results)
    print()
    all_set = summary(results, env)
    print(f"(checked in {time.perf_counter() - started:.1f} s)")
    return 0 if all_set else 1


if __name__ == "__main__":
    sys.exit(main())
