"""Notebook 06 checkers against the reference, the stub, and the wrong answers learners write.

Each mutant is a function a learner plausibly writes; the test asserts the checker calls it wrong,
at the expected (first failing) case, with the hint of that mistake.
"""
import numpy as np
import pytest
from checker_helpers import assert_wrong as assert_wrong_with_hint  # tests/checker_helpers.py
from checker_helpers import stub

from course_utils.checks import (
    GRAD_SCORES_MISTAKES,
    SOFTMAX_BACKWARD_MISTAKES,
    check_grad_scores,
    check_softmax_backward,
)
from course_utils.lessons.training import grad_scores as reference_grad_scores
from course_utils.lessons.training import softmax_backward as reference_softmax_backward


# ============================================================================ softmax_backward
def sb_jacobian_loop(weights, grad_weights):
    w2, g2 = np.atleast_2d(weights), np.atleast_2d(grad_weights)
    rows = [(np.diag(w) - np.outer(w, w)) @ g for w, g in zip(w2, g2)]
    return np.array(rows).reshape(np.shape(weights))


def sb_einsum(weights, grad_weights):
    dot = np.einsum("...t,...t->...", weights, grad_weights)[..., None]
    return weights * grad_weights - weights * dot


@pytest.mark.parametrize("fn", [reference_softmax_backward, sb_jacobian_loop, sb_einsum],
                         ids=["reference", "jacobian-per-row", "einsum"])
def test_softmax_backward_correct(fn):
    result = check_softmax_backward(fn)
    assert result.status == "correct" and result, result.text
    assert result.message == "Correct: all 5 cases passed."


def test_softmax_backward_stub_not_attempted():
    result = check_softmax_backward(stub)
    assert result.status == "not attempted"
    assert "softmax_backward function still raises NotImplementedError" in result.message


def sb_no_subtraction(weights, grad_weights):
    return weights * grad_weights


def sb_diagonal_only(weights, grad_weights):
    return weights * (1 - weights) * grad_weights


def sb_no_weight_factor(weights, grad_weights):
    return grad_weights - np.sum(weights * grad_weights, axis=-1, keepdims=True)


def sb_axis0(weights, grad_weights):
    return weights * (grad_weights - np.sum(weights * grad_weights, axis=0, keepdims=True))


def sb_sum_all(weights, grad_weights):
    return weights * (grad_weights - np.sum(weights * grad_weights))


def sb_no_keepdims(weights, grad_weights):
    return weights * (grad_weights - np.sum(weights * grad_weights, axis=-1))


def sb_returns_grad_weights(weights, grad_weights):
    return grad_weights.copy()


def sb_whole_array_jacobian(weights, grad_weights):
    jacobian = np.diag(weights) - np.outer(weights, weights)
    return jacobian @ grad_weights


SB_MUTANTS = [
    # (mutant, first failing case, mistake name, a word of its hint)
    (sb_no_subtraction, 1, "no subtraction", "diag(w)"),
    (sb_diagonal_only, 1, "diagonal only", "w_i (1 - w_i)"),
    (sb_no_weight_factor, 1, "no weight factor", "forget to multiply"),
    (sb_axis0, 4, "wrong axis", "axis=-1"),  # on 1-D input axis 0 is the right axis
    (sb_sum_all, 4, "wrong axis", "mixes different query rows"),
    (sb_no_keepdims, 4, "missing keepdims", "keepdims=True"),
    (sb_returns_grad_weights, 1, "returns grad_weights", "with respect to the weights"),
    (sb_whole_array_jacobian, 4, "full Jacobian of the whole array", "ONE row"),
]


@pytest.mark.parametrize("mutant, case_number, mistake, hint_word", SB_MUTANTS,
                         ids=[m[0].__name__ for m in SB_MUTANTS])
def test_softmax_backward_mutant(mutant, case_number, mistake, hint_word):
    assert_wrong_with_hint(check_softmax_backward(mutant), case_number, hint_word)


def test_every_softmax_backward_mistake_has_a_mutant():
    assert {m[2] for m in SB_MUTANTS} == {k.name for k in SOFTMAX_BACKWARD_MISTAKES}


# ============================================================================ grad_scores
def gs_two_steps(weights, v, grad_output):
    grad_weights = grad_output @ v.T
    return reference_softmax_backward(weights, grad_weights)


def gs_loop(weights, v, grad_output):
    out = np.zeros_like(weights)
    for i, (w, g) in enumerate(zip(weights, grad_output)):
        gw = v @ g
        out[i] = w * (gw - w @ gw)
    return out


@pytest.mark.parametrize("fn", [reference_grad_scores, gs_two_steps, gs_loop],
                         ids=["reference", "two-steps", "loop"])
def test_grad_scores_correct(fn):
    result = check_grad_scores(fn)
    assert result.status == "correct" and result, result.text
    assert result.message == "Correct: all 3 cases passed."


def test_grad_scores_stub_not_attempted():
    result = check_grad_scores(stub)
    assert result.status == "not attempted"


def gs_returns_grad_weights(weights, v, grad_output):
    return grad_output @ v.T


def gs_transposed(weights, v, grad_output):
    gw = grad_output @ v
    return weights * (gw - np.sum(weights * gw, axis=-1, keepdims=True))


def gs_no_subtraction(weights, v, grad_output):
    return weights * (grad_output @ v.T)


def gs_diagonal_only(weights, v, grad_output):
    return weights * (1 - weights) * (grad_output @ v.T)


def gs_no_weight_factor(weights, v, grad_output):
    gw = grad_output @ v.T
    return gw - np.sum(weights * gw, axis=-1, keepdims=True)


def gs_axis0(weights, v, grad_output):
    gw = grad_output @ v.T
    return weights * (gw - np.sum(weights * gw, axis=0, keepdims=True))


def gs_no_keepdims(weights, v, grad_output):
    gw = grad_output @ v.T
    return weights * (gw - np.sum(weights * gw, axis=-1))


GS_MUTANTS = [
    (gs_returns_grad_weights, 1, "returns grad_weights", "gradient with respect to the weights"),
    (gs_transposed, 1, "Jacobian transposed", "wrong way round"),
    (gs_no_subtraction, 1, "no subtraction", "diag(w)"),
    (gs_diagonal_only, 1, "diagonal only", "w_i (1 - w_i)"),
    (gs_no_weight_factor, 1, "no weight factor", "forget to multiply"),
    (gs_axis0, 1, "wrong axis", "axis=-1"),
    (gs_no_keepdims, 1, "missing keepdims", "keepdims=True"),
]


@pytest.mark.parametrize("mutant, case_number, mistake, hint_word", GS_MUTANTS,
                         ids=[m[0].__name__ for m in GS_MUTANTS])
def test_grad_scores_mutant(mutant, case_number, mistake, hint_word):
    assert_wrong_with_hint(check_grad_scores(mutant), case_number, hint_word)


def test_every_grad_scores_mistake_has_a_mutant():
    assert {m[2] for m in GS_MUTANTS} == {k.name for k in GRAD_SCORES_MISTAKES}
