"""Notebook 07 checker (one online-softmax update) against the reference, the stub and learner mistakes.

Each mutant is a function a learner plausibly writes; the test asserts the checker calls it wrong at
the expected (first failing) case with the hint for that mistake.
"""
import numpy as np
import pytest
from checker_helpers import assert_wrong as assert_wrong_with_hint  # tests/checker_helpers.py

from course_utils.checks import ONLINE_UPDATE_MISTAKES, check_online_update


def stub(m, l, o, scores_block, v_block):
    # YOUR CODE HERE
    raise NotImplementedError()


# -- correct versions
def solution(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    shift = 0.0 if m_new == -np.inf else m_new
    alpha = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def with_isneginf(m, l, o, scores_block, v_block):
    m_new = np.maximum(m, np.max(scores_block))
    if np.isneginf(m_new):
        return m_new, l, o
    scale = np.exp(m - m_new)
    weights = np.exp(scores_block - m_new)
    return m_new, l * scale + weights.sum(), o * scale + weights @ v_block


@pytest.mark.parametrize("fn", [solution, with_isneginf])  # the course's own update: tests/test_checks_own_answer.py
def test_correct(fn):
    result = check_online_update(fn)
    assert result.status == "correct" and result
    assert result.message == "Correct: all 7 cases passed."


def test_stub_not_attempted():
    result = check_online_update(stub)
    assert result.status == "not attempted"


# -- the mistakes learners write
def no_rescale(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    p = np.exp(scores_block - m_new)
    return m_new, l + p.sum(), o + p @ v_block


def rescale_sum_only(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    p = np.exp(scores_block - m_new)
    return m_new, np.exp(m - m_new) * l + p.sum(), o + p @ v_block


def wrong_sign(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    alpha = np.exp(m_new - m)
    p = np.exp(scores_block - m_new)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def max_not_updated(m, l, o, scores_block, v_block):
    alpha = 1.0
    p = np.exp(scores_block - m) if m != -np.inf else np.exp(scores_block - scores_block.max())
    return m, alpha * l + p.sum(), alpha * o + p @ v_block


def block_max_only(m, l, o, scores_block, v_block):
    m_new = scores_block.max()
    alpha = np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def no_neginf_guard(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    alpha = np.exp(m - m_new)  # exp(-inf - -inf) = nan on an all-masked first block
    p = np.exp(scores_block - m_new)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def normalised_inside(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    shift = 0.0 if m_new == -np.inf else m_new
    alpha = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    l_new = alpha * l + p.sum()
    return m_new, l_new, (alpha * o + p @ v_block) / l_new


def normalised_with_wrong_sign(m, l, o, scores_block, v_block):
    """Keeps o normalised (divides by l in every update) and rescales by exp(m_new - m)."""
    m_new = max(m, scores_block.max())
    alpha = np.exp(m_new - m)
    p = np.exp(scores_block - m_new)
    l_new = alpha * l + p.sum()
    o_new = (alpha * l * o + p @ v_block) / l_new
    return m_new, l_new, o_new


def wrong_sign_with_early_return(m, l, o, scores_block, v_block):
    """Handles the all-masked first block by returning early (right there), rescales by exp(m_new - m)."""
    m_new = max(m, scores_block.max())
    if m_new == -np.inf:
        return m_new, l, o
    alpha = np.exp(m_new - m)
    p = np.exp(scores_block - m_new)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def normalised_inside_with_early_return(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    if m_new == -np.inf:
        return m_new, l, o
    alpha = np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    l_new = alpha * l + p.sum()
    return m_new, l_new, (alpha * o + p @ v_block) / l_new


def kept_normalised(m, l, o, scores_block, v_block):
    """Keeps o normalised, correctly for that convention (the old o times l), with the right sign."""
    m_new = max(m, scores_block.max())
    shift = 0.0 if m_new == -np.inf else m_new
    alpha = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    l_new = alpha * l + p.sum()
    return m_new, l_new, (alpha * l * o + p @ v_block) / l_new if l_new > 0 else o


def wrong_sign_guarding_the_rescale_only(m, l, o, scores_block, v_block):
    """The wrong sign, with the rescale set to 0 while m is -inf (so the first block comes out right)."""
    m_new = max(m, scores_block.max())
    shift = 0.0 if m_new == -np.inf else m_new
    alpha = np.exp(shift - m) if m > -np.inf else 0.0
    p = np.exp(scores_block - shift)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def p_by_old_max(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    shift = 0.0 if m_new == -np.inf else m_new
    alpha = np.exp(m - shift)
    p = np.exp(scores_block - m)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def guard_tests_old_m(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    shift = 0.0 if m == -np.inf else m_new
    alpha = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def early_return_on_old_m(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    if m == -np.inf:
        return m_new, l, o
    alpha = np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def max_set_to_zero_when_all_masked(m, l, o, scores_block, v_block):
    """Hint 2's "use a shift of 0" read as "set m_new to 0"."""
    m_new = max(m, scores_block.max())
    if m_new == -np.inf:
        m_new = 0.0
    alpha = np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def guard_on_the_rescale_only(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    alpha = 0.0 if m == -np.inf else np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def python_max_of_an_array(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block)
    alpha = np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def if_on_the_whole_block(m, l, o, scores_block, v_block):
    """The all-masked test written on the array itself (a learner's first way to write the guard)."""
    if scores_block == -np.inf:
        return m, l, o
    m_new = max(m, scores_block.max())
    alpha = np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def all_masked_block_gives_start_values(m, l, o, scores_block, v_block):
    """A learner's trial answer: the all-masked test returns the start values, also for a later block (trailing
    padding), which the 6 cases before case 7 accepted."""
    if np.all(np.isneginf(scores_block)):
        return -np.inf, 0.0, np.zeros_like(o)
    m_new = max(m, scores_block.max())
    alpha = np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def all_masked_block_zeroes_o(m, l, o, scores_block, v_block):
    if np.all(np.isneginf(scores_block)):
        return m, l, np.zeros_like(o)
    m_new = max(m, scores_block.max())
    alpha = np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def np_max_of_two_numbers(m, l, o, scores_block, v_block):
    m_new = np.max(m, scores_block.max())
    alpha = np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


def guard_written_with_is(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    shift = 0.0 if m_new is -np.inf else m_new
    alpha = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


@pytest.mark.parametrize("fn, case, hint_word", [
    (np_max_of_two_numbers, 1, "its second argument is an axis"),
    (guard_written_with_is, 5, "`is -np.inf` is False for a computed -inf"),
    (all_masked_block_gives_start_values, 7, "does not erase the blocks before it"),
    (all_masked_block_zeroes_o, 7, "does not erase the blocks before it"),
    (if_on_the_whole_block, 1, "compare one number: `m_new == -np.inf`"),
    (python_max_of_an_array, 1, "`m_new = max(m, scores_block.max())`"),
    (max_set_to_zero_when_all_masked, 5, "m_new is -inf: it is the running maximum"),
    (guard_on_the_rescale_only, 5, "a guard on one of them is not enough"),
    (guard_tests_old_m, 3, "tests the old m"),
    (early_return_on_old_m, 3, "tests the old m"),
    (wrong_sign_guarding_the_rescale_only, 1, "wrong sign"),
    (p_by_old_max, 1, "by the new maximum"),
    (kept_normalised, 1, "You keep o normalised"),
    (wrong_sign_with_early_return, 1, "wrong sign"),
    (normalised_inside_with_early_return, 1, "Keep o unnormalised"),
    (no_rescale, 1, "multiply both by"),
    (rescale_sum_only, 1, "multiply both by"),
    (wrong_sign, 1, "wrong sign"),
    (max_not_updated, 1, "running maximum must become"),
    (block_max_only, 2, "running maximum must become"),
    (no_neginf_guard, 5, "exp(-inf - (-inf))"),
    (normalised_inside, 1, "Keep o unnormalised"),
    (normalised_with_wrong_sign, 1, "the wrong sign"),
], ids=lambda x: getattr(x, "__name__", str(x)))
def test_mistakes_get_their_hint(fn, case, hint_word):
    assert_wrong_with_hint(check_online_update(fn), case, hint_word)


def test_every_known_mistake_is_tested():
    names = {m.name for m in ONLINE_UPDATE_MISTAKES}
    assert names == {"no rescale", "wrong sign", "max not updated", "nan on an all-masked first block",
                     "normalised inside", "kept normalised", "normalised inside, wrong sign",
                     "p shifted by the old maximum", "guard tests m, not m_new", "m_new set to 0",
                     "an array where a number is needed", "an all-masked block resets the running values",
                     "np.max of two numbers"}


def test_normalised_with_wrong_sign_is_told_both_mistakes():
    result = check_online_update(normalised_with_wrong_sign)
    assert result.mistake == "normalised inside, wrong sign", result.text
    assert "without dividing" in result.hint and "np.exp(m - m_new)" in result.hint


def test_returning_two_things_is_a_structure_problem():
    result = check_online_update(lambda m, l, o, s, v: (m, l))
    assert result.status == "wrong"
    assert "m_new, l_new, o_new" in result.hint
