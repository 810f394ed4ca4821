"""``import course_utils as cu`` gives the reference at once and every other module on first use (``cu.plots``,
``cu.lessons.data``): the names notebooks and learners reach through ``cu.``."""
import importlib

import pytest

import course_utils as cu


@pytest.mark.parametrize("name", cu.LAZY_MODULES)
def test_cu_attribute_access_reaches_every_public_module(name):
    assert importlib.import_module(f"course_utils.{name}") is getattr(cu, name)


@pytest.mark.parametrize("package, names", [
    ("lessons", ("data", "scaling", "masking", "heads", "influence", "training", "online_softmax", "measure")),
])
def test_subpackage_attribute_access(package, names):
    sub = getattr(cu, package)
    for name in names:
        assert getattr(sub, name) is importlib.import_module(f"course_utils.{package}.{name}")


@pytest.mark.parametrize("old", ["tickets", "heads", "tools"])
def test_no_module_path_from_before_the_arrangement_answers(old):
    """The old paths (course_utils.tickets, .heads: never in a release; .tools: until release 1.2.0, now the root
    tools/ folder, which a kernel does not import) are gone, with a clear error, not a module rebuilt behind the
    learner's back."""
    with pytest.raises(AttributeError, match=f"no attribute '{old}'"):
        getattr(cu, old)
    with pytest.raises(ModuleNotFoundError, match=f"course_utils.{old}"):
        importlib.import_module(f"course_utils.{old}")


#: Run in a fresh kernel: what a package's import could change outside itself, before and after ``import course_utils``.
STATE_CELL = '''
import sys, threading, warnings
import numpy as np
from IPython import get_ipython

def global_state():
    shell = get_ipython()
    display = shell.display_formatter
    printers = {f"{name} formatter": (sorted(map(repr, f.type_printers)), sorted(map(repr, f.deferred_printers)))
                for name, f in [*display.formatters.items(), ("ipython_display", display.ipython_display_formatter),
                                ("mimebundle", display.mimebundle_formatter)]}
    return {**printers, "meta_path": [repr(f) for f in sys.meta_path],
            "path_hooks": [repr(h) for h in sys.path_hooks], "threads": threading.active_count(),
            "numpy print options": np.get_printoptions(), "numpy errors": np.geterr(), "warnings": len(warnings.filters),
            "events": {name: len(c) for name, c in shell.events.callbacks.items()},
            "hooks": (sys.displayhook, sys.excepthook)}

before = global_state()
'''
IMPORT_CELL = '''
import course_utils as cu
after = global_state()
print({key: (before[key], after[key]) for key in before if before[key] != after[key]})
'''
FIGURE_CELL = '''
import matplotlib.pyplot as plt
plt.plot([0, 1], [1, 0])
plt.show()
'''


def test_importing_course_utils_changes_nothing_outside_it_in_a_kernel():
    """Issue 23: the import installed a display formatter for every figure and set numpy's BLAS threads. Now a
    notebook turns on what it needs in its imports cell (tests/test_course_path.py); the import alone changes no
    formatter, import hook, thread, numpy setting or warning filter, and a figure is shown as the inline backend
    shows it (a PNG, no ``<img alt>``)."""
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in (STATE_CELL, IMPORT_CELL, FIGURE_CELL)])
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=120).execute()
    (printed,) = nb.cells[1].outputs
    assert printed.text.strip() == "{}", printed.text
    (figure,) = nb.cells[2].outputs
    assert "image/png" in figure.data and "text/html" not in figure.data
