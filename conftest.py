"""Collect the docstring examples of course_utils, and every notebook in solutions/ and notebooks/.

Docstring examples: each module of course_utils/ is collected as ``pytest --doctest-modules``
would collect it, and only those modules (not the test modules, the benchmarks or tools/), so a
plain ``pytest`` (testpaths in pyproject.toml) or ``pytest course_utils`` runs them. Each runs
with numpy's default print options, whatever a test or an earlier example set, and an example
that sets print options changes them for its own docstring only.

Notebooks: each is an nbval test. Each code cell must run without error in a fresh kernel. Only
cells tagged ``nbval-check-output`` (the key numbers) have their output compared with the
stored one: nbval's "lax" mode, turned on here so that a plain ``pytest`` is
enough (no --nbval flag).

``pytest --mine PATH`` (``make test-mine``) runs the notebooks under PATH as a learner saved them
instead: every cell must run, and nothing is compared (see :class:`LearnersOwnNotebook`).

Learner notebooks are committed without outputs, so before their cells run the
stored outputs of their tagged cells are taken from the solved notebook of the
same name (cells are matched by id). A learner notebook therefore fails when a
key number differs from the solved version, as the solved one does.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbval.plugin import IPyNbFile

ROOT = Path(__file__).resolve().parent
PACKAGE = ROOT / "course_utils"
SOLUTIONS = ROOT / "solutions"
LEARNER = ROOT / "notebooks"
CHECK_TAG = "nbval-check-output"
# numpy's print options before any test ran (numpy's defaults): docstring examples print with these.
NUMPY_PRINT_OPTIONS = np.get_printoptions()


def pytest_addoption(parser):
    parser.addoption(
        "--mine", action="store_true", default=False,
        help="run the notebooks named on the command line as they are (a learner's own, `make test-mine`): every "
             "cell must run; no output is compared, nothing is taken from solutions/")


def pytest_collect_file(file_path: Path, parent):
    opt = parent.config.option
    if opt.mine:
        return LearnersOwnNotebook.from_parent(parent, path=file_path) if file_path.suffix == ".ipynb" else None
    if file_path.suffix == ".py" and PACKAGE in file_path.parents:
        return package_doctests(file_path, parent)
    if opt.nbval or opt.nbval_lax:  # nbval's own collector is on: leave it to nbval
        return None
    if file_path.suffix == ".ipynb" and file_path.parent in (SOLUTIONS, LEARNER):
        return CourseNotebook.from_parent(parent, path=file_path)
    return None


def package_doctests(file_path: Path, parent):
    """The docstring examples of one course_utils module, as --doctest-modules collects them."""
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

    def collect(self):
        items = list(super().collect())  # reads self.nb; items keep references to its cells
        if self.path.parent == LEARNER:
            graft_key_outputs(self.nb, SOLUTIONS / self.path.name)
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
