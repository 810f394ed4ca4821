"""Old module paths, kept working so that saved notebooks still import (no file at the old path).

Until the package was arranged by audience, lesson data, lesson helpers and the tools sat at its top
level (``course_utils.tickets``, ``course_utils.heads``, ``course_utils.doctor``, ...). A learner's
saved notebook may still say ``from course_utils.lessons.data import TICKET``. ``install()`` puts a
finder in front of Python's import system that answers for exactly the paths in ``OLD_PATHS``: the
old module is built on import from the new modules' public names (the same objects, no copies, no
warning). Nothing else goes through it; ``tests/test_old_paths.py`` imports every old name.

The tools at their old paths (``course_utils.doctor``, ``.build``, ``.reset``) serve imports only;
run them at their new paths (``python -m course_utils.tools.doctor``, or, without numpy,
``python3 course_utils/tools/doctor.py``).
"""
import importlib
import importlib.abc
import importlib.util
import sys

#: old module path -> the new modules whose public names (``__all__``) it re-exports.
OLD_PATHS = {
    "course_utils.examples": ("course_utils.lessons.data",),
    "course_utils.tickets": ("course_utils.lessons.data",),
    "course_utils.heads": ("course_utils.lessons.heads", "course_utils.lessons.data"),
    "course_utils.influence": ("course_utils.lessons.influence", "course_utils.lessons.data"),
    "course_utils.scaling": ("course_utils.lessons.scaling",),
    "course_utils.measure": ("course_utils.lessons.measure",),
    "course_utils.training": ("course_utils.lessons.training",),
    "course_utils.doctor": ("course_utils.tools.doctor",),
    "course_utils.build": ("course_utils.tools.build",),
    "course_utils.reset": ("course_utils.tools.reset",),
    "course_utils.widgets.online_softmax": (
        "course_utils.widgets.scale", "course_utils.lessons.online_softmax", "course_utils.lessons.data",
    ),
    "course_utils.widgets.scaling": ("course_utils.widgets.qkv",),
    "course_utils.widgets.influence": ("course_utils.widgets.reading",),
    "course_utils.widgets.training": ("course_utils.widgets.learned",),
}


#: Names renamed since (old module path -> {old name: new name}); the old module offers both.
OLD_NAMES = {
    "course_utils.doctor": {
        "CheckResult": "Finding",
        "check_python": "diagnose_python",
        "check_kernel_python": "diagnose_kernel_python",
        "check_packages": "diagnose_packages",
        "check_course_utils": "diagnose_course_utils",
        "check_stamp": "diagnose_stamp",
        "check_matplotlib_backend": "diagnose_matplotlib_backend",
        "check_figure": "diagnose_figure",
        "check_server_widgets": "diagnose_server_widgets",
        "check_kernelspec": "diagnose_kernelspec",
        "python_checks": "python_diagnoses",
        "package_checks": "package_diagnoses",
        "matplotlib_checks": "matplotlib_diagnoses",
        "server_checks": "server_diagnoses",
        "run_checks": "diagnose_all",
    },
    "course_utils.build": {"Problem": "OutOfDate", "check": "out_of_date"},
}


class _OldPathFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds and builds the modules of ``OLD_PATHS`` (and nothing else)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in OLD_PATHS:
            return importlib.util.spec_from_loader(fullname, self, is_package=False)
        return None

    def create_module(self, spec):
        return None  # the default module object

    def exec_module(self, module):
        sources = OLD_PATHS[module.__name__]
        names = []
        for source in sources:
            new = importlib.import_module(source)
            for name in new.__all__:
                if name not in names:
                    setattr(module, name, getattr(new, name))
                    names.append(name)
        for old, new in OLD_NAMES.get(module.__name__, {}).items():
            setattr(module, old, getattr(module, new))
            names.append(old)
        module.__all__ = names
        module.__doc__ = f"Old path of {', '.join(sources)}: re-exports their public names (see course_utils._compat)."


_FINDER = _OldPathFinder()


def install():
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _OldPathFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _FINDER)
