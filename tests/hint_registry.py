"""Every exercise checker with its known mistakes, by exercise name (for the hint-precision test and
tools/feedback_report.py), read from the checkers' own registry, ``course_utils.checks.CHECKERS``.

An exercise name is the checker's name without ``check_`` (``"softmax"`` for ``check_softmax``),
the name the answers in tests/learner_answers/ register under.
"""
from course_utils.checks import CHECKERS

#: The exercise names, in the course's order.
EXERCISES = tuple(CHECKERS)


def checker_and_mistakes(exercise):
    """(check function, tuple of KnownMistake) of an exercise (an empty tuple when it has no table)."""
    entry = CHECKERS[exercise]
    return entry.function, entry.mistakes


def has_mistake_table(exercise):
    """False for the exercises whose hints are all worked out from the answer (no named mistakes)."""
    return bool(CHECKERS[exercise].mistakes)
