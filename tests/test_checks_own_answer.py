"""No checker says "Correct" for a function that hands the exercise to the course's own answer (issue 25).

The report: 12 of 21 checkers said Correct for ``return cu.softmax(x)``, ``cu.causal_mask(T)``,
``cu.multi_head_attention(...)``, ...; only the capstone refused it. The notebooks use those functions in the cells
around the exercises, so a learner who calls one learns nothing and is told the exercise is done. Each answer below
is what such a learner writes: the checker must not pass it, and must say which function did the work. A learner may
still call course functions that are not the exercise's subject (04's exercise 3 may call cu.split_heads; 01's
attention row may call cu.softmax): those answers stay Correct.
"""
from __future__ import annotations

import numpy as np
import pytest

import course_utils as cu
from course_utils import checks
from course_utils.blockwise import _online_softmax_update
from course_utils.lessons import influence, training


def _one_row(update, m, l, o, scores_block, v_block):
    """The exercise's update for one query row (m and l numbers) through the course's update for rows (..., 1)."""
    m_new, l_new, o_new = update(np.array([m]), np.array([l]), o, scores_block, v_block)
    return m_new[0], l_new[0], o_new


def _masked(q, k, v, mask):
    return cu.scaled_dot_product_attention(q, k, v, mask)


def _layer(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    return cu.multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, mask)


#: checker -> (the learner's function that calls the course's answer, the name the message must give)
OWN_ANSWERS = {
    "check_softmax": (lambda x: cu.softmax(x), "cu.softmax"),
    "check_attention_row": (lambda scores, values: cu.attention_row(scores, values), "cu.attention_row"),
    "check_self_attention": (lambda x, w_q, w_k, w_v: cu.scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v),
                             "cu.scaled_dot_product_attention"),
    "check_causal_mask": (lambda T: cu.causal_mask(T), "cu.causal_mask"),
    "check_padding_mask": (lambda lengths, T: cu.padding_mask(lengths, T), "cu.padding_mask"),
    "check_masked_attention": (_masked, "cu.scaled_dot_product_attention"),
    "check_split_heads": (lambda x, num_heads: cu.split_heads(x, num_heads), "cu.split_heads"),
    "check_merge_heads": (lambda x: cu.merge_heads(x), "cu.merge_heads"),
    "check_multi_head_attention": (_layer, "cu.multi_head_attention"),
    "check_contributions": (lambda weights, values: influence.contributions(weights, values),
                            "contributions"),
    "check_removal_effects": (lambda scores, values: influence.removal_effects(scores, values),
                              "removal_effects"),
    "check_softmax_backward": (lambda weights, grad_weights: training.softmax_backward(weights, grad_weights),
                               "softmax_backward"),
    "check_grad_scores": (lambda weights, v, grad_output: training.grad_scores(weights, v, grad_output),
                          "grad_scores"),
    "check_online_update": (lambda m, l, o, s, v: _one_row(cu.blockwise.online_softmax_update, m, l, o, s, v),
                            "online_softmax_update"),
}

#: The same, through a door a learner finds with tab completion: the unchecked core, or another of the course's
#: functions that computes the exercise's subject.
SIDE_DOORS = {
    "check_online_update": lambda m, l, o, s, v: _one_row(_online_softmax_update, m, l, o, s, v),
    "check_removal_effects": lambda scores, values: np.linalg.norm(
        influence.removal_outputs(scores, values) - cu.attention_row(scores, values)[0], axis=-1),
}

#: Answers that use a course function that is not the exercise's subject: still Correct.
ALLOWED = {
    "check_attention_row": lambda scores, values: (cu.softmax(scores) @ np.asarray(values, float), cu.softmax(scores)),
    "check_multi_head_attention": lambda x, w_q, w_k, w_v, w_o, num_heads, mask=None: _heads_by_hand(
        x, w_q, w_k, w_v, w_o, num_heads, mask),
}


def _heads_by_hand(x, w_q, w_k, w_v, w_o, num_heads, mask):
    """04's exercise 3 as the notebook allows it: cu.split_heads, cu.merge_heads and cu.softmax, the rest by hand."""
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))  # (..., h, T, d_head)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])  # (..., h, T, T)
    if mask is not None:
        mask = np.asarray(mask)
        mask = mask[..., None, :, :] if mask.ndim >= 2 else mask
        scores = np.where(mask, scores, -np.inf) if mask.dtype == bool else scores + mask
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@pytest.mark.parametrize("checker", sorted(OWN_ANSWERS))
def test_the_courses_own_answer_is_not_correct(checker):
    answer, named = OWN_ANSWERS[checker]
    result = getattr(checks, checker)(answer)
    text = f"{result.message}\n{result.hint}"
    assert result.status == "wrong", text
    assert named in text, f"{checker}: the message must name {named}:\n{text}"
    assert "would do the exercise for you" in text


@pytest.mark.parametrize("checker", sorted(SIDE_DOORS))
def test_a_side_door_to_the_answer_is_not_correct_either(checker):
    result = getattr(checks, checker)(SIDE_DOORS[checker])
    assert result.status == "wrong" and "would do the exercise for you" in result.message, result.message


@pytest.mark.parametrize("checker", sorted(ALLOWED))
def test_course_helpers_that_are_not_the_subject_are_allowed(checker):
    result = getattr(checks, checker)(ALLOWED[checker])
    assert result.status == "correct", f"{result.message}\n{result.hint}"


def test_every_checker_with_a_course_answer_is_covered():
    """Each checker whose exercise the course's code also computes has its own-answer case here: the checkers the
    notebooks use, minus those whose answer is a choice or a value (no function of the course computes it)."""
    without = {"check_scores_for_third_value", "check_shapes", "check_buggy_masks", "check_plot_diagnoses",
               "check_project", "check_scaled_scores", "check_capstone_layer"}  # the capstone: its own tests
    used = {name for name in checks.__all__ if name.startswith("check_")}
    assert used - without == set(OWN_ANSWERS), sorted(used - without ^ set(OWN_ANSWERS))
