"""Pieces of code as learners write them, shared by the checkers' buggy versions and cases: the softmaxes
learners write (``SOFTMAXES`` names them), the two numpy shape errors most mistakes raise (``MATMUL_ERROR``,
``BROADCAST_ERROR``, as ``KnownMistake.error`` predicates), seeded case inputs that read well in a checker's
message, and the "swapped outputs" mistake every attention exercise shares.
"""
import numpy as np

import course_utils as cu
from course_utils.checks._catalogue import catalogued
from course_utils.checks._framework import error_message_contains, error_on_line

__all__ = [
    "course_softmax",
    "shifted_softmax",
    "naive_softmax",
    "naive_softmax_empty_rows_zero",
    "whole_softmax",
    "no_softmax",
    "SOFTMAXES",
    "MATMUL_ERROR",
    "BROADCAST_ERROR",
    "matmul_error_on_line",
    "Q_AT_K_LINE",
    "K_DOT_T_ERROR",
    "rounded_normal",
    "small_ints",
    "swapped_outputs",
]


def course_softmax(x, axis=-1):
    """The course's softmax (max shift; an all -inf row gives zeros)."""
    return cu.softmax(x, axis=axis)


def shifted_softmax(x, axis=-1):
    """exp(x - max) / sum along ``axis``: right, except nan for an all -inf row."""
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def naive_softmax(x, axis=-1):
    """exp(x) / sum without the shift: overflows on large scores, nan for an all -inf row."""
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def naive_softmax_empty_rows_zero(x, axis=-1):
    """exp(x) / sum without the shift, but zeros for a row with nothing left: overflows on large scores."""
    e = np.exp(x)
    total = e.sum(axis=axis, keepdims=True)
    return np.where(total == 0, 0.0, e / np.where(total == 0, 1.0, total))


def whole_softmax(x, axis=None):
    """One max and one sum over the whole array, whatever ``axis`` says (a softmax written without an axis)."""
    e = np.exp(x - np.max(x))
    return e / e.sum()


def no_softmax(x, axis=-1):
    """The scores themselves, used as weights (the softmax forgotten)."""
    return x


#: The softmaxes by the name the buggy versions' knobs use.
SOFTMAXES = {
    "course": course_softmax,
    "shifted": shifted_softmax,
    "naive": naive_softmax,
    "naive, empty rows handled": naive_softmax_empty_rows_zero,
    "whole": whole_softmax,
    "none": no_softmax,
}

#: A matrix product refusing its shapes (``@``, ``np.matmul``, ``np.dot``).
MATMUL_ERROR = error_message_contains("matmul", "not aligned", "mismatch in its core dimension", error_type=ValueError)

def matmul_error_on_line(pattern):
    """Predicate: a matrix-product shape error raised on a learner's line matching ``pattern`` (see ``error_on_line``):
    where errors alone cannot tell two mistakes apart (``q @ k`` and ``q @ k.T`` on heads raise alike)."""
    return error_on_line(pattern, "matmul", "not aligned", "mismatch in its core dimension", error_type=ValueError)


#: A line with ``q @ k`` (or ``np.matmul(q, k)``) without a transpose, and a line with ``k.T``.
Q_AT_K_LINE = r"@\s*k\b(?!\s*\.\s*T)|(?:matmul|dot)\(\s*q\w*\s*,\s*k\w*\s*\)"
#: ``q @ k.T`` refused on a line with ``k.T`` (on 4-D heads the reversed axes may not even broadcast).
K_DOT_T_ERROR = error_on_line(r"\bk\w*\s*\.\s*T\b", "matmul", "not aligned", "mismatch in its core dimension",
                              "could not be broadcast", error_type=ValueError)

#: An elementwise operation refusing its shapes.
BROADCAST_ERROR = error_message_contains("could not be broadcast", error_type=ValueError)


def rounded_normal(seed, *shape, scale=1.0, decimals=2):
    """Seeded normal numbers rounded to ``decimals`` (short and exact in a checker's message)."""
    return (scale * np.random.default_rng(seed).standard_normal(shape)).round(decimals)


def small_ints(seed, *shape):
    """Seeded whole numbers in [-2, 2] as floats: easy to read in a checker's message."""
    return np.random.default_rng(seed).integers(-2, 3, size=shape).astype(float)


def swapped_outputs(attention):
    """The known mistake ``return weights, output``, for an exercise whose right ``attention`` returns
    (output, weights)."""
    return catalogued("swapped outputs", reproduce=lambda *args: attention(*args)[::-1])
