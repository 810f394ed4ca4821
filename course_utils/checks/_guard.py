"""The course's own code as it was before a learner's function ran, put back after it.

A learner's function runs in the checker's process, so it can assign to any name of ``course_utils``: replace the
reference it is compared with (``cu.softmax = ...``) or the framework's diagnosis (``_Run._diagnose = ...``), after
which every later check in the kernel would say Correct. ``course_snapshot()`` records the names of every loaded
module of course_utils and of the classes they define; ``put_back(snapshot)`` restores them and returns what had
changed, so the check reports it instead of a verdict. In-process checking cannot be made cheat-proof (a function can
still read the expected values through frames or ``gc``): this closes the cheap routes.
"""
import sys

__all__ = ["course_snapshot", "put_back"]


def _course_namespaces():
    """(label, namespace object) for each loaded course_utils module and each class it defines."""
    found = []
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "course_utils" or name.startswith("course_utils.")):
            continue
        found.append((name, module))
        for attribute, value in list(vars(module).items()):
            if isinstance(value, type) and value.__module__ == name:
                found.append((f"{name}.{attribute}", value))
    return found


def course_snapshot():
    """Every course namespace with a copy of its names."""
    return [(label, space, dict(vars(space))) for label, space in _course_namespaces()]


def put_back(snapshot):
    """Restore the names of each namespace in ``snapshot``; returns the labels of the names that had changed
    (``"course_utils.softmax.softmax"``), empty when nothing had."""
    changed = []
    for label, space, names in snapshot:
        now = vars(space)
        for name in [n for n in now if n not in names and not n.startswith("__")]:
            if isinstance(now[name], type(sys)):  # a submodule the call imported: not a change
                continue
            changed.append(f"{label}.{name}")
            delattr(space, name)
        for name, value in names.items():
            if now.get(name, _MISSING) is not value and not name.startswith("__"):
                changed.append(f"{label}.{name}")
                setattr(space, name, value)
    return changed


_MISSING = object()
