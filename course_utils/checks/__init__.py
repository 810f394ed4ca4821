"""Exercise checkers: ``check_<name>(your_function)`` reports not attempted / wrong / correct.

Each checker runs the learner's function on copies of a few inputs and returns a ``CheckResult`` that prints as plain
text and shows as a coloured box in Jupyter. How it runs them, reports a failure and names a known mistake only when
that mistake explains every case is told once, in ``_framework``; docs/architecture.md maps the modules: one per
notebook topic (``TOPICS``, the names of ``course_utils.widgets``) and the framework they share.

Every ``check_<name>`` registered with ``@checker`` is exported here, and each topic module's public data (mistake
tables, the pictures of the diagnosis exercises).
"""
import importlib

from course_utils.checks._framework import (
    CHECKERS,
    DEFAULT_HINTS,
    NOT_A_USUAL_MISTAKE,
    Case,
    Checker,
    KnownMistake,
    checker,
    correct,
    error_message_contains,
    error_on_line,
    internal_error,
    not_attempted,
    not_callable,
    run_check,
)
from course_utils.checks._result import CORRECT, NOT_ATTEMPTED, WRONG, CheckResult

#: The checker modules, one per notebook topic, in the course's order.
TOPICS = ("row", "qkv", "masks", "heads", "reading", "learned", "scale")


def _export_topics():
    """Import every topic module; export its public names and every registered checker."""
    exported = []
    for topic in TOPICS:
        module = importlib.import_module(f"{__name__}.{topic}")
        for name in getattr(module, "__all__", ()):
            globals()[name] = getattr(module, name)
            exported.append(name)
    for entry in CHECKERS.values():
        globals()[f"check_{entry.name}"] = entry.function
        exported.append(f"check_{entry.name}")
    return list(dict.fromkeys(exported))


__all__ = [
    "CHECKERS", "Checker", "CheckResult", "Case", "KnownMistake", "run_check", "checker", "correct",
    "not_attempted", "not_callable", "internal_error", "error_message_contains", "error_on_line",
    "DEFAULT_HINTS", "NOT_A_USUAL_MISTAKE", "CORRECT", "WRONG", "NOT_ATTEMPTED",
]
__all__ += _export_topics()
