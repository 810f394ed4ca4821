"""Checkers for notebook 06 (learned attention): the gradient through softmax and through one attention row."""
import re

import numpy as np

import course_utils as cu
from course_utils.checks._catalogue import own
from course_utils.checks._framework import Case, checker, run_check
from course_utils.checks._learner_code import BROADCAST_ERROR, MATMUL_ERROR, shifted_softmax

__all__ = ["SOFTMAX_BACKWARD_MISTAKES", "GRAD_SCORES_MISTAKES"]


# ---------------------------------------------------------------- buggy softmax backward passes
def _softmax_backward_mistakes(backward_of):
    """The softmax-backward mistakes, for a function whose arguments lead to (w, g) via backward_of."""
    def lift(bug):
        return lambda *args: bug(*backward_of(*args))

    return (
        own("softmax_backward", "no subtraction", reproduce=lift(lambda w, g: w * g)),
        own("softmax_backward", "diagonal only", reproduce=lift(lambda w, g: w * (1 - w) * g)),
        own(
            "softmax_backward", "no weight factor",
            reproduce=lift(lambda w, g: g - np.sum(w * g, axis=-1, keepdims=True)),
        ),
        own(
            "softmax_backward", "wrong axis",
            reproduce=(lift(lambda w, g: w * (g - np.sum(w * g, axis=0, keepdims=True))),
                       lift(lambda w, g: w * (g - np.sum(w * g)))),
        ),
        own(
            "softmax_backward", "missing keepdims",
            reproduce=lift(lambda w, g: w * (g - np.sum(w * g, axis=-1))),
            error=BROADCAST_ERROR,
        ),
    )


# ================================================================ softmax_backward
_SB_CASES = (
    Case("two keys", (np.array([0.75, 0.25]), np.array([1.0, 0.0]))),
    Case("one row of three", (shifted_softmax(np.array([2.0, 1.0, 0.0])), np.array([0.5, -1.0, 2.0]))),
    Case("a one-hot row", (np.array([0.0, 1.0, 0.0]), np.array([3.0, -1.0, 2.0]))),
    Case("two rows of three", (shifted_softmax(np.array([[2.0, 1.0, 0.0], [0.0, 0.0, 0.0]])),
                               np.array([[1.0, 2.0, -1.0], [0.5, 0.0, 1.5]]))),
    Case("three rows of three", (shifted_softmax(np.array([[1.0, 0.0, -1.0], [0.0, 2.0, 0.0], [3.0, 1.0, 1.0]])),
                                 np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 1.0], [2.0, 0.0, -1.0]]))),
)


def _square_shape_in_message(exc, args):
    """The error of a Jacobian built from a whole (n, T) array: np.outer (and np.diagflat) give an
    (nT, nT) matrix, so the message names the size nT, the number of weights, which is neither n
    nor T (unlike, say, the (n, n) of a product `w @ g.T`)."""
    weights = np.asarray(args[0])
    if not isinstance(exc, ValueError) or weights.ndim < 2 or weights.size in weights.shape:
        return False
    return str(weights.size) in re.findall(r"\d+", str(exc))


SOFTMAX_BACKWARD_MISTAKES = (
    # First: its error is also a broadcasting error, but with a square (nT, nT) shape in it.
    own("softmax_backward", "full Jacobian of the whole array", error=_square_shape_in_message),
) + _softmax_backward_mistakes(lambda w, g: (w, g)) + (
    own("softmax_backward", "returns grad_weights", reproduce=lambda w, g: g),
)


@checker("softmax_backward", mistakes=SOFTMAX_BACKWARD_MISTAKES)
def check_softmax_backward(softmax_backward):
    """Check a learner's ``softmax_backward(weights, grad_weights) -> grad_scores``.

    weights and grad_weights have shape (T,) or (n, T); the result has the same shape.
    """
    return run_check(
        softmax_backward,
        reference=cu.lessons.training.softmax_backward,
        cases=_SB_CASES,
        arg_names=("weights", "grad_weights"),
    )


# ================================================================ grad_scores
_GS_CASES = (
    Case("two rows, two keys", (np.array([[0.75, 0.25], [0.5, 0.5]]),
                                np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]]),
                                np.array([[1.0, -1.0, 0.5], [0.0, 2.0, 1.0]]))),
    Case("two rows, three keys", (
        shifted_softmax(np.array([[2.0, 1.0, 0.0], [0.0, 0.5, 1.0]])),
        np.array([[1.0, 0.0], [0.0, 2.0], [-1.0, 1.0]]),
        np.array([[1.0, 0.5], [-1.0, 2.0]]))),
    Case("three rows, three keys, d_v = 3", (
        shifted_softmax(np.array([[1.0, 0.0, -1.0], [0.0, 2.0, 0.0], [3.0, 1.0, 1.0]])),
        np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [2.0, 3.0, 0.0]]),
        np.array([[1.0, 0.0, 1.0], [0.5, -1.0, 0.0], [0.0, 2.0, 1.0]]))),
)

GRAD_SCORES_MISTAKES = (
    own("grad_scores", "returns grad_weights", reproduce=lambda w, v, g: g @ v.T),
    own(
        "grad_scores", "Jacobian transposed",
        reproduce=(
            lambda w, v, g: cu.lessons.training.softmax_backward(w, g @ v),
            lambda w, v, g: cu.lessons.training.softmax_backward(w, (v @ g.T).T),
            lambda w, v, g: (v @ g.T),
            lambda w, v, g: g @ v,
        ),
        error=MATMUL_ERROR,
    ),
) + _softmax_backward_mistakes(lambda w, v, g: (w, g @ v.T))  # (weights, grad_weights)


@checker("grad_scores", mistakes=GRAD_SCORES_MISTAKES)
def check_grad_scores(grad_scores):
    """Check a learner's ``grad_scores(weights, v, grad_output) -> dL/d(scores)``.

    weights (n, T), v (T, d_v), grad_output (n, d_v); the result has shape (n, T).
    """
    return run_check(
        grad_scores,
        reference=cu.lessons.training.grad_scores,
        cases=_GS_CASES,
        arg_names=("weights", "v", "grad_output"),
    )
