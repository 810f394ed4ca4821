"""Checkers for notebook 06 (learned attention): the gradient through softmax and through one attention row."""
import re

import numpy as np

import course_utils as cu
from course_utils.checks._framework import Case, KnownMistake, checker, run_check
from course_utils.checks._learner_code import BROADCAST_ERROR, MATMUL_ERROR, shifted_softmax

__all__ = ["SOFTMAX_BACKWARD_MISTAKES", "GRAD_SCORES_MISTAKES"]


# ---------------------------------------------------------------- buggy softmax backward passes
def _softmax_backward_mistakes(backward_of):
    """The softmax-backward mistakes, for a function whose arguments lead to (w, g) via backward_of."""
    def lift(bug):
        return lambda *args: bug(*backward_of(*args))

    return (
        KnownMistake(
            "no subtraction",
            "You return `weights * grad_weights`: that is only the diagonal part `diag(w)` of the "
            "Jacobian. Raising one weight lowers all the others (they must still add up to 1), which "
            "is the `- w w^T` part: subtract each row's `np.sum(weights * grad_weights, axis=-1, "
            "keepdims=True)` from grad_weights before multiplying by the weights.",
            reproduce=lift(lambda w, g: w * g),
        ),
        KnownMistake(
            "diagonal only",
            "`w * (1 - w) * g` uses only the diagonal of the Jacobian, `dw_i/ds_i = w_i (1 - w_i)`. "
            "Each score moves every weight: `dw_j/ds_i = -w_i w_j` for j != i. Together: "
            "`weights * (grad_weights - np.sum(weights * grad_weights, axis=-1, keepdims=True))`.",
            reproduce=lift(lambda w, g: w * (1 - w) * g),
        ),
        KnownMistake(
            "no weight factor",
            "You subtract the weighted sum but forget to multiply by the weights: the result is "
            "`weights * (grad_weights - sum)`, not `grad_weights - sum`.",
            reproduce=lift(lambda w, g: g - np.sum(w * g, axis=-1, keepdims=True)),
        ),
        KnownMistake(
            "wrong axis",
            "The sum `np.sum(weights * grad_weights, ...)` runs over each row's keys: "
            "`axis=-1, keepdims=True`. Over axis 0 (or the whole array) it mixes different query rows; "
            "so does one Jacobian `np.diag(w) - np.outer(w, w)` built from the whole flattened array: "
            "each row has a Jacobian of its own.",
            reproduce=(lift(lambda w, g: w * (g - np.sum(w * g, axis=0, keepdims=True))),
                       lift(lambda w, g: w * (g - np.sum(w * g)))),
        ),
        KnownMistake(
            "missing keepdims",
            "For rows of shape (n, T), `np.sum(..., axis=-1)` has shape (n,): it lines up with the "
            "columns, not the rows. Add `keepdims=True` so it has shape (n, 1).",
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
    KnownMistake(
        "full Jacobian of the whole array",
        "`np.diag` of a 2-D array takes its diagonal instead of building a matrix, and `np.outer` "
        "flattens both arrays into an (nT, nT) matrix: the Jacobian `np.diag(w) - np.outer(w, w)` "
        "belongs to ONE row. Build it row by row (and multiply it by that row of grad_weights), "
        "or better, use the formula without it: `weights * (grad_weights - np.sum(weights * "
        "grad_weights, axis=-1, keepdims=True))`.",
        error=_square_shape_in_message,
    ),
) + _softmax_backward_mistakes(lambda w, g: (w, g)) + (
    KnownMistake(
        "returns grad_weights",
        "You return grad_weights unchanged: that is the gradient with respect to the weights. "
        "The exercise asks for the gradient with respect to the scores, one step further back "
        "through the softmax.",
        reproduce=lambda w, g: g,
    ),
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
    KnownMistake(
        "returns grad_weights",
        "You return `grad_output @ v.T`, the gradient with respect to the weights. One more step: "
        "pass it back through the softmax, `weights * (gw - np.sum(weights * gw, axis=-1, keepdims=True))`.",
        reproduce=lambda w, v, g: g @ v.T,
    ),
    KnownMistake(
        "Jacobian transposed",
        "output = weights @ v, so d(output)/d(weights) pairs each weight with its value row: "
        "dL/d(weights) = `grad_output @ v.T`, shape (n, T). `grad_output @ v` or `v @ grad_output.T` "
        "uses the matrix the wrong way round.",
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
