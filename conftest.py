"""Collect the docstring examples of course_utils, and every notebook in solutions/ and notebooks/.

Docstring examples: each module of course_utils/ and each tool of tools/ is collected as ``pytest
--doctest-modules`` would collect it, and only those modules (not the test modules or the benchmarks), so a
plain ``pytest`` (testpaths in pyproject.toml) or ``pytest course_utils tools`` runs them. Each runs
with numpy's default print options, whatever a test or an earlier example set, and an example
that sets print options changes them for its own docstring only.

Notebooks: each is an nbval test. Each code cell must run without error in a fresh kernel. Only
cells tagged ``nbval-check-output`` (the key numbers) have their output compared with the
stored one: nbval's "lax" mode, turned on here so that a plain ``pytest`` is
enough (no --nbval flag).

``pytest --mine PATH`` (``make test-mine``) runs the notebooks under PATH as a learner saved them
instead: every cell must run, and nothing is compared (see :class:`LearnersOwnNotebook`).

Learner notebooks are committed without outputs, so before their cells run the stored outputs of their tagged
cells are taken from the solved notebook of the same name (cells are matched by id; a translation's learner
notebook, notebooks/fr/X, from solutions/fr/X). A learner notebook therefore fails when a key number differs from
the solved version, as the solved one does; the run then ends with what to do (``KEY_NUMBERS_ADVICE``).

Translations: a folder solutions/<language>/ of translated notebooks (and notebooks/<language>/, its learner
versions) is collected as the course's own (``is_course_notebook``).

Offline: every notebook's kernel runs with the network cut off (:class:`OfflineKernels`), so this one run is also
the offline check of tests/test_offline.py (which reads what it recorded instead of executing every notebook again):
the kernel starts in a new network namespace holding only loopback when ``unshare`` and ``ip`` work here (talking to
pytest over Unix sockets, zmq's ipc transport, which a network namespace does not cut), and in every case with the
network guard of tests/offline_guard/ on PYTHONPATH, which makes any non-loopback access raise and logs it, one log
per notebook. ``COURSE_OFFLINE_MODE=guard`` forces the guard alone. A cell that reaches for the network fails here
with the guard's ``NetworkAccessBlocked``; an attempt a ``try`` swallowed fails test_offline's check of the log.
When tests/test_offline.py runs in the same session as the notebooks it is moved after them.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import numpy as np
import pytest
from jupyter_client.manager import KernelManager
from nbval.kernel import CURRENT_ENV_KERNEL_NAME, NbvalKernelspecManager, RunningKernel
from nbval.plugin import IPyNbCell, IPyNbFile

ROOT = Path(__file__).resolve().parent
TOOLS = ROOT / "tools"
# The tools of tools/ are scripts run by their path (`python tools/build.py`); the tests import them as the scripts
# import each other: by their file name (`import build`), with tools/ on sys.path.
sys.path.insert(0, str(TOOLS))
PACKAGE = ROOT / "course_utils"
SOLUTIONS = ROOT / "solutions"
LEARNER = ROOT / "notebooks"
CHECK_TAG = "nbval-check-output"
GUARD_DIR = ROOT / "tests" / "offline_guard"  # sitecustomize.py: the network guard
FIGURE_AUDIT = ROOT / "tests" / "figure_audit.py"  # records the figures of a kernel (test_figure_colours_and_text)
FIGURE_TEST = ROOT / "tests" / "test_figure_colours_and_text.py"
BROWSER_TEST = ROOT / "tests" / "test_browser.py"
HUB_TEST = ROOT / "tests" / "test_hub.py"
COLAB_TEST = ROOT / "tests" / "test_colab.py"
NO_ANYWIDGET_TEST = ROOT / "tests" / "test_browser_no_anywidget.py"
CLASSIC_TEST = ROOT / "tests" / "test_browser_classic.py"
OFFLINE_TEST = ROOT / "tests" / "test_offline.py"
# numpy's print options before any test ran (numpy's defaults): docstring examples print with these.
NUMPY_PRINT_OPTIONS = np.get_printoptions()


def pytest_addoption(parser):
    parser.addoption(
        "--mine", action="store_true", default=False,
        help="run the notebooks named on the command line as they are (a learner's own, `make test-mine`): every "
             "cell must run; no output is compared, nothing is taken from solutions/")


def pytest_configure(config):
    # `python3 course.py test` sets COURSE_LAUNCHER for what it runs: the tools' messages would name course.py, and
    # the tests expect make's wording unless they set it themselves (tests/test_launcher_messages.py).
    os.environ.pop("COURSE_LAUNCHER", None)
    config.course_offline = OfflineKernels()


def pytest_unconfigure(config):
    kernels = getattr(config, "course_offline", None)
    if kernels is not None:
        kernels.close()


@pytest.fixture
def fake_env(tmp_path):
    """A course folder with a .venv, as the doctor sees it (nothing installed: only the paths matter); for
    tests/test_doctor.py and tests/test_launcher_messages.py."""
    from course_utils.doctor import CourseEnv

    (tmp_path / "course_utils").mkdir()
    (tmp_path / "course_utils" / "__init__.py").write_text("")
    (tmp_path / "requirements.lock").write_text("numpy==2.4.6\n")
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.7\n")
    return CourseEnv(tmp_path, venv, str(venv / "bin" / "python"))


@pytest.fixture(scope="session")
def offline_kernels(request) -> "OfflineKernels":
    """The session's offline kernel launcher and what it recorded of each notebook's run (tests/test_offline.py)."""
    return request.config.course_offline


def pytest_collection_modifyitems(session, config, items):
    """tests/test_offline.py and tests/test_figure_colours_and_text.py after the notebooks when they run together:
    they read what the notebooks' runs recorded (each module kept in one piece: their fixtures are module-scoped).
    tests/test_browser.py then: its notebooks are driven in the background from the session's start
    (:func:`pytest_collection_finish`), and each of its tests waits for its notebook's result; tests/test_colab.py
    just before them (the Colab-like run's two kernels at a time come after every other test's, while the browser's
    notebooks may still be driven; its test checks that only the hub test follows its own). The other two browser
    tests after the browser's (JupyterLab without anywidget's front-end, then classic Notebook on the Colab-like
    venv, which the Colab-like run has finished with by then). tests/test_hub.py last
    of all, once the browser's notebooks are done: its learners' Chromium pages and kernels would compete with them
    for the same cores."""
    if any(isinstance(item, IPyNbCell) and isinstance(item.parent, CourseNotebook) for item in items):
        readers = (FIGURE_TEST, OFFLINE_TEST)
        moved = [item for reader in readers for item in items if item.path == reader]
        if moved:
            items[:] = [item for item in items if item.path not in readers] + moved
    for last in (COLAB_TEST, BROWSER_TEST, NO_ANYWIDGET_TEST, CLASSIC_TEST, HUB_TEST):
        moved = [item for item in items if item.path == last]
        if moved:
            items[:] = [item for item in items if item.path != last] + moved


def pytest_collection_finish(session):
    """Start the browser test's notebooks (tests/test_browser.py's ``start_in_background``) before the first test
    runs, so that they are driven in both frontends while the other tests run."""
    browser = [item for item in session.items if item.path == BROWSER_TEST]
    if browser and not session.config.option.collectonly:
        session.config.course_browser = browser[0].module.start_in_background(browser)
    session.config.course_tests_started = time.monotonic()  # (tests/test_browser.py checks the order)


def pytest_sessionfinish(session):
    """Stop the browser test's servers and browsers; its time goes into the time summary."""
    background = getattr(session.config, "course_browser", None)
    if background is not None:
        session.config.course_browser = None
        _BACKGROUND_SECONDS["browser"] = background.stop()


#: Where the suite's time goes (printed at the end of a run): part -> seconds of setup, call and teardown, summed.
_SECONDS_BY_PART = {}
_SECONDS_BY_FILE = {}
#: part -> seconds it ran in the background, alongside the other tests (the browser test: from the start to its end)
_BACKGROUND_SECONDS = {}


def part_of(path: str) -> str:
    """The part of the suite a test file belongs to, for the time summary (``path`` relative to the root)."""
    if path.endswith(".ipynb"):
        return "notebooks (nbval)"
    return {"tests/test_browser.py": "browser", "tests/test_hub.py": "JupyterHub", "tests/test_offline.py": "offline",
            "tests/test_colab.py": "Colab-like",
            "tests/test_figure_colours_and_text.py": "figures' colours and text"}.get(path, "the rest")


#: The key-number cells whose output differed from the stored one in this session (nbval's "Cell outputs differ").
_KEY_NUMBERS_DIFFER: list[str] = []
#: What to do when key numbers differ: printed once at the end of the run.
KEY_NUMBERS_ADVICE = (
    "{count} key-number cell(s) printed other numbers than the solved notebooks store ({first}). If you changed "
    "course_utils or the toy data (course_utils/lessons/data.py) on purpose: `make solutions` re-executes the solved "
    "notebooks and stores their new key numbers (then `make test` again: tests/test_notebook_structure.py names any "
    "number in the text that the cells no longer print). If you did not mean to change them, the change broke them.")


#: ``--mine``: (notebook, exercise, status) of each check cell run, in order (status None: the cell gave no verdict).
_EXERCISE_VERDICTS: list[tuple[str, str, str | None]] = []
_CHECK_CALL = re.compile(r"\bcheck_(\w+)\(")
_STATUS_ATTRIBUTE = re.compile(r'data-check-status="([a-z ]+)"')  # course_utils/checks/_result.py's box
#: Status -> the label a learner sees in the notebook (_result.py's labels).
_VERDICT_WORDS = {"correct": "correct", "wrong": "not yet right", "not attempted": "not attempted yet",
                  None: "no verdict (the cell failed or did not run)"}


def exercise_verdicts(cell_source: str, outputs) -> list[tuple[str, str | None]]:
    """The checker calls of one code cell with the verdict each printed: [(exercise, status or None), ...]."""
    names = _CHECK_CALL.findall(cell_source)
    statuses = [match for out in outputs or () for match in
                _STATUS_ATTRIBUTE.findall(str(out.get("data", {}).get("text/html", "")))]
    return [(name, statuses[i] if i < len(statuses) else None) for i, name in enumerate(names)]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """``--mine``: note the verdict of each exercise whose check cell ran (the summary lists them)."""
    report = yield
    if call.when == "call" and isinstance(item.parent, LearnersOwnNotebook):
        for exercise, status in exercise_verdicts(item.cell.source, item.test_outputs):
            _EXERCISE_VERDICTS.append((item.parent.path.name, exercise, status))
    return report


def pytest_terminal_summary(terminalreporter):
    """Time per part of the suite and the slowest files (module fixtures count in their first and last test); what to
    do when key numbers differ from the stored ones; with ``--mine``, each exercise's verdict."""
    if _EXERCISE_VERDICTS:
        terminalreporter.write_line("Your exercises (\"passed\" above means a cell ran without an error, not that an "
                                    "answer is right):")
        for notebook, exercise, status in _EXERCISE_VERDICTS:
            terminalreporter.write_line(f"  {notebook}: {exercise}: {_VERDICT_WORDS[status]}")
    if _KEY_NUMBERS_DIFFER:
        terminalreporter.write_line(KEY_NUMBERS_ADVICE.format(count=len(_KEY_NUMBERS_DIFFER), first=_KEY_NUMBERS_DIFFER[0]))
    if not _SECONDS_BY_PART:
        return
    parts = sorted(_SECONDS_BY_PART.items(), key=lambda item: -item[1])
    terminalreporter.write_line("time per part: " + ", ".join(f"{part} {seconds:.0f} s" for part, seconds in parts)
                                + f" (total {sum(_SECONDS_BY_PART.values()):.0f} s)")
    for part, seconds in _BACKGROUND_SECONDS.items():
        terminalreporter.write_line(f"{part}: driven in the background for {seconds:.0f} s, alongside the other tests "
                                    f"(its tests' own time above is the wait for results left at the end)")
    slowest = sorted(_SECONDS_BY_FILE.items(), key=lambda item: -item[1])[:8]
    terminalreporter.write_line("slowest files: " + ", ".join(f"{path} {seconds:.0f} s" for path, seconds in slowest))


def pytest_runtest_logreport(report):
    """Add the report's time to its part (the time summary); record each failing cell of a notebook run by
    :class:`CourseNotebook` (the offline record)."""
    path = report.nodeid.split("::")[0]
    _SECONDS_BY_PART[part_of(path)] = _SECONDS_BY_PART.get(part_of(path), 0.0) + report.duration
    _SECONDS_BY_FILE[path] = _SECONDS_BY_FILE.get(path, 0.0) + report.duration
    if report.when == "call" and report.fspath.endswith(".ipynb"):
        record = _OFFLINE_RECORDS.get(str((ROOT / report.fspath).resolve()))
        if record is not None:
            record["cells_run"] += 1
            if report.failed:
                record["failed"].append(f"{report.nodeid}:\n{str(report.longrepr)[-3000:]}")
        if report.failed and "Cell outputs differ" in str(report.longrepr):
            _KEY_NUMBERS_DIFFER.append(report.nodeid)


def pytest_collect_file(file_path: Path, parent):
    opt = parent.config.option
    if opt.mine:
        return LearnersOwnNotebook.from_parent(parent, path=file_path) if file_path.suffix == ".ipynb" else None
    if file_path.suffix == ".py" and (PACKAGE in file_path.parents or file_path.parent == TOOLS):
        return package_doctests(file_path, parent)
    if opt.nbval or opt.nbval_lax:  # nbval's own collector is on: leave it to nbval
        return None
    if file_path.suffix == ".ipynb" and is_course_notebook(file_path):
        return CourseNotebook.from_parent(parent, path=file_path)
    return None


def is_course_notebook(path: Path) -> bool:
    """A notebook of solutions/ or notebooks/, or of a translation's folder in them (solutions/fr/; tools/build.py's
    ``translations``: a hidden or ``_``-named folder is none)."""
    return path.parent in (SOLUTIONS, LEARNER) or (
        path.parent.parent in (SOLUTIONS, LEARNER) and not path.parent.name.startswith((".", "_")))


def package_doctests(file_path: Path, parent):
    """The docstring examples of one module of course_utils or tools/, as --doctest-modules collects them."""
    doctest_plugin = parent.config.pluginmanager.getplugin("doctest")
    if doctest_plugin is None or parent.config.option.doctestmodules:  # off, or pytest collects them itself
        return None
    return doctest_plugin.DoctestModule.from_parent(parent, path=file_path)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    doctest_plugin = item.config.pluginmanager.getplugin("doctest")
    if doctest_plugin is None or not isinstance(item, doctest_plugin.DoctestItem):
        return (yield)
    with np.printoptions(**NUMPY_PRINT_OPTIONS):  # restored afterwards, whatever the example set
        return (yield)


class CourseNotebook(IPyNbFile):
    """An nbval notebook in lax mode; learner notebooks get the solved key outputs."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.compare_outputs = False  # lax: compare only cells tagged nbval-check-output

    def setup(self):
        """nbval's setup, with the kernel started offline (:class:`OfflineKernels`)."""
        option = self.config.option
        kernel_name = CURRENT_ENV_KERNEL_NAME if option.nbval_current_env else (
            option.nbval_kernel_name or self.nb.metadata.get("kernelspec", {}).get("name", "python"))
        runs = self.config.course_offline
        cells = sum(cell.cell_type == "code" for cell in self.nb.cells)
        self.kernel = runs.start(self.path, kernel_name, cells, startup_timeout=option.nbval_kernel_startup_timeout)
        following = self.next_notebook()
        if following is not None:  # its fresh kernel boots on the other core while this notebook runs
            runs.prestart(following.path, kernel_name)
        if self.path.parent == SOLUTIONS:
            runs.audit_figures(self.path, self.kernel)
        self.setup_sanitize_files()
        if getattr(option, "cov_source", None):
            from nbval.plugin import setup_coverage
            setup_coverage(self.config, self.kernel, getattr(self, "fspath", None))

    def next_notebook(self) -> "CourseNotebook | None":
        """The notebook whose cells run after this one's in this session, if any."""
        parents = list(dict.fromkeys(item.parent for item in self.session.items))
        later = parents[parents.index(self) + 1:] if self in parents else []
        return next((parent for parent in later if isinstance(parent, CourseNotebook)), None)

    def teardown(self):
        try:
            self.config.course_offline.finish(self.path, self.kernel)
        finally:
            super().teardown()

    def collect(self):
        items = list(super().collect())  # reads self.nb; items keep references to its cells
        if LEARNER in self.path.parents:
            graft_key_outputs(self.nb, SOLUTIONS / self.path.relative_to(LEARNER))
        return items


class LearnersOwnNotebook(IPyNbFile):
    """A learner's notebook as they saved it (``--mine``): every cell runs, no output is compared.

    The stored outputs are dropped before the run (nbval compares a cell only when it holds a stored
    output), so neither the learner's own outputs nor the course's key numbers are checked: a learner
    who changed a printed number, or never ran the notebook, still passes when every cell runs.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.compare_outputs = False

    def collect(self):
        items = list(super().collect())  # items keep references to the cells of self.nb
        for cell in self.nb.cells:
            if cell.cell_type == "code":
                cell.outputs = []
                cell.execution_count = None
        return items


def graft_key_outputs(learner_nb, solution_path: Path) -> None:
    """Copy the stored outputs of tagged cells from the solved notebook into `learner_nb`."""
    if not solution_path.exists():
        raise pytest.UsageError(f"{solution_path.name}: learner notebook has no solved version in solutions/")
    solved = {cell.get("id"): cell for cell in nbformat.read(solution_path, as_version=4).cells}
    for cell in learner_nb.cells:
        if cell.cell_type != "code" or CHECK_TAG not in cell.metadata.get("tags", []):
            continue
        source = solved.get(cell.get("id"))
        if source is None:
            raise pytest.UsageError(
                f"{solution_path.name}: tagged cell {cell.get('id')!r} of the learner notebook has no "
                "counterpart in the solved notebook; run `make notebooks`")
        cell.outputs = source.outputs
        cell.execution_count = source.execution_count


# ---------------------------------------------------------------------------------------------
# Offline kernels
# ---------------------------------------------------------------------------------------------

#: What each notebook's offline run left: {resolved path: {"mode", "log", "failed": [...], "done": bool}}.
_OFFLINE_RECORDS: dict[str, dict] = {}


def namespace_prefix() -> list[str] | None:
    """The command prefix that runs a program in a fresh network namespace with loopback up, or None.

    ``None`` (the guard alone) when ``COURSE_OFFLINE_MODE=guard``, when ``unshare`` or ``ip`` is missing, or when a
    namespace cannot be made or its loopback cannot carry a connection (a CI runner without user namespaces).
    As root ``unshare --net``, otherwise ``unshare --map-root-user --net``.
    """
    if os.environ.get("COURSE_OFFLINE_MODE") == "guard":
        return None
    unshare = shutil.which("unshare")
    ip = shutil.which("ip", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"]))
    if not unshare or not ip:
        return None
    flags = ["--net"] if os.geteuid() == 0 else ["--map-root-user", "--net"]
    prefix = [unshare, *flags, "sh", "-c", f'"{ip}" link set lo up && exec "$0" "$@"']
    probe = ("import socket\n"
             "server = socket.create_server(('127.0.0.1', 0))\n"
             "socket.create_connection(server.getsockname(), timeout=5).close()\n"
             "print('loopback ok')")
    try:
        done = subprocess.run(prefix + [sys.executable, "-c", probe], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return prefix if done.returncode == 0 and "loopback ok" in done.stdout else None


class PrefixedKernelManager(KernelManager):
    """A kernel manager whose kernel runs behind ``prefix`` (the namespace's ``unshare``) with environment ``env``."""

    def __init__(self, *args, prefix=(), env=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.command_prefix = list(prefix)
        self.kernel_env = env

    def format_kernel_cmd(self, extra_arguments=None):
        return [*self.command_prefix, *super().format_kernel_cmd(extra_arguments)]

    def start_kernel(self, **kwargs):
        if self.kernel_env is not None:
            kwargs.setdefault("env", self.kernel_env)
        return super().start_kernel(**kwargs)


class OfflineKernel(RunningKernel):
    """nbval's running kernel, started by a given kernel manager (see :meth:`OfflineKernels.manager`), or already
    started by it (``started=True``: :meth:`OfflineKernels.prestart`)."""

    def __init__(self, km, cwd, startup_timeout=60, started=False):
        if not started:
            km.start_kernel(stderr=subprocess.DEVNULL, cwd=cwd)
        kc = km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=startup_timeout)
        except RuntimeError:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
            raise
        self.km, self.kc = km, kc
        self._ensure_iopub_up()


class OfflineKernels:
    """Starts kernels with the network cut off, and keeps the record of each notebook's run.

    A kernel gets the guard (tests/offline_guard/sitecustomize.py on PYTHONPATH, ``COURSE_NET_GUARD_LOG`` naming
    its own log) and, when :func:`namespace_prefix` finds one, a new network namespace; it then talks to its client
    over zmq's ipc transport (Unix sockets in a scratch folder), which the namespace leaves working.
    """

    def __init__(self):
        self._prefix = False  # not looked for yet
        self._scratch = None
        self._logs = 0
        #: Kernels started ahead for a notebook not set up yet: {resolved path: (kernel name, manager, log)}.
        self._prestarted: dict[str, tuple] = {}

    @property
    def prefix(self) -> list[str] | None:
        if self._prefix is False:
            self._prefix = namespace_prefix()
        return self._prefix

    @property
    def mode(self) -> str:
        return "network namespace + guard" if self.prefix else "guard only (no network namespace here)"

    @property
    def scratch(self) -> Path:
        if self._scratch is None:  # short: a Unix socket's path is at most 107 bytes
            self._scratch = Path(tempfile.mkdtemp(prefix="offline-"))
        return self._scratch

    def manager(self, kernel_name: str, log: Path, guard: bool = True) -> PrefixedKernelManager:
        """A kernel manager (not started) whose kernel runs offline and logs any network attempt to ``log``
        (``guard=False``: the namespace alone, for the probe that shows it cuts the network on its own)."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(GUARD_DIR), env.get("PYTHONPATH")]))
        env["COURSE_NET_GUARD"] = "1" if guard else "0"
        env["COURSE_NET_GUARD_LOG"] = str(log)
        km = PrefixedKernelManager(kernel_name=kernel_name, kernel_spec_manager=NbvalKernelspecManager(),
                                   prefix=self.prefix or (), env=env)
        if self.prefix:
            km.transport = "ipc"
            km.ip = str(Path(tempfile.mkdtemp(dir=self.scratch)) / "k")
        return km

    def _new_log(self) -> Path:
        self._logs += 1
        return self.scratch / f"attempts-{self._logs}.log"

    def prestart(self, path: Path, kernel_name: str) -> None:
        """Start the fresh offline kernel of notebook ``path`` now, without waiting for it: :meth:`start` takes it
        (a kernel takes 2-3 s to boot, which then overlaps the notebook running before). No cell runs in it before
        :meth:`start`; :meth:`close` shuts down any that no notebook took."""
        key = str(Path(path).resolve())
        if key in self._prestarted:
            return
        log = self._new_log()
        km = self.manager(kernel_name, log)
        km.start_kernel(stderr=subprocess.DEVNULL, cwd=str(Path(path).parent))
        self._prestarted[key] = (kernel_name, km, log)

    def start(self, path: Path, kernel_name: str, cells: int, startup_timeout: int = 60) -> OfflineKernel:
        """The kernel for notebook ``path`` (``cells`` code cells), started offline (or taken from
        :meth:`prestart`); its run is recorded until :meth:`finish`."""
        key = str(Path(path).resolve())
        ahead = self._prestarted.pop(key, None)
        if ahead is not None and ahead[0] != kernel_name:  # started for another kernel: not this one
            ahead[1].shutdown_kernel(now=True)
            ahead = None
        log = ahead[2] if ahead else self._new_log()
        _OFFLINE_RECORDS[key] = {"mode": self.mode, "log": log, "failed": [], "cells": cells, "cells_run": 0,
                                 "done": False, "figures": None, "prestarted": ahead is not None}
        if ahead is not None:
            return OfflineKernel(ahead[1], cwd=str(Path(path).parent), startup_timeout=startup_timeout, started=True)
        return self.kernel(self.manager(kernel_name, log), cwd=Path(path).parent, startup_timeout=startup_timeout)

    @staticmethod
    def kernel(km: PrefixedKernelManager, cwd: Path, startup_timeout: int = 60) -> OfflineKernel:
        """Start the kernel of ``km`` (from :meth:`manager`) in folder ``cwd``; stop it with its ``stop()``."""
        return OfflineKernel(km, cwd=str(cwd), startup_timeout=startup_timeout)

    def audit_figures(self, path: Path, kernel: OfflineKernel) -> None:
        """Record the figures of the notebook's run (tests/figure_audit.py, drawn as usual), for
        tests/test_figure_colours_and_text.py: one run serves nbval, the offline check and the figures' audit."""
        if not FIGURE_AUDIT.exists():
            return
        record = _OFFLINE_RECORDS[str(Path(path).resolve())]
        record["figures"] = record["log"].with_suffix(".figures.json")
        tests = str(FIGURE_AUDIT.parent)
        _quiet_execute(kernel, f"if True:  # no name is left in the notebook's namespace\n"
                               f"    __import__('sys').path.insert(0, {tests!r})\n"
                               f"    __import__('figure_audit').install_notebook_hook(render=True)\n"
                               f"    __import__('sys').path.remove({tests!r})\n")

    def finish(self, path: Path, kernel: OfflineKernel | None) -> None:
        """The notebook's run is over: its figures' records are written (while ``kernel`` is alive)."""
        record = _OFFLINE_RECORDS.get(str(Path(path).resolve()))
        if record is None:
            return
        if record["figures"] is not None and kernel is not None and kernel.is_alive():
            _quiet_execute(kernel, f"__import__('figure_audit').dump_records({str(record['figures'])!r})")
        record["done"] = True

    def figure_records(self, path: Path) -> Path | None:
        """The JSON file of the figures recorded in the notebook's run in this session, or None (not run in full
        here, or not recorded)."""
        record = _OFFLINE_RECORDS.get(str(Path(path).resolve()))
        if not _complete(record) or record["figures"] is None or not record["figures"].exists():
            return None
        return record["figures"]

    def record(self, path: Path) -> dict | None:
        """{"mode", "complete", "failed": [cell reports], "attempts": [logged attempts]} for a notebook run in
        this session (complete: every code cell ran, and the notebook's teardown is over), or None when it did not
        run here."""
        record = _OFFLINE_RECORDS.get(str(Path(path).resolve()))
        if record is None:
            return None
        log = record["log"]
        attempts = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
        return {"mode": record["mode"], "complete": _complete(record), "failed": list(record["failed"]),
                "attempts": attempts}

    def close(self):
        for _, km, _ in self._prestarted.values():  # started for a notebook that never ran (-x, an error)
            km.shutdown_kernel(now=True)
        self._prestarted.clear()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)



def _quiet_execute(kernel: OfflineKernel, code: str, timeout: int = 120) -> None:
    """Run ``code`` in the kernel outside any cell (no history, output dropped); raise if it fails."""
    reply = kernel.kc.execute_interactive(code, timeout=timeout, store_history=False, output_hook=lambda msg: None)
    if reply["content"]["status"] != "ok":
        raise RuntimeError(f"{code!r} failed in the kernel: {reply['content'].get('ename')}: "
                           f"{reply['content'].get('evalue')}")


def _complete(record: dict | None) -> bool:
    return record is not None and record["done"] and record["cells_run"] == record["cells"]
