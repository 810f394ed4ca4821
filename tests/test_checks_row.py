"""Notebook 01 checkers against the reference, the stub, and the wrong answers learners write.

Each mutant below is a function a learner plausibly writes. The test asserts the checker calls
it wrong, at the expected (first failing) case, with the hint for that mistake.
"""
import math
from functools import partial

import checker_helpers  # tests/checker_helpers.py: the shared assertions
import numpy as np
import pytest
from checker_helpers import stub

from course_utils.attention import attention_row as reference_attention_row
from course_utils.checks import (
    ATTENTION_ROW_MISTAKES,
    SOFTMAX_MISTAKES,
    check_attention_row,
    check_scores_for_third_value,
    check_softmax,
)
from course_utils.softmax import softmax as reference_softmax

assert_wrong_with_hint = checker_helpers.assert_wrong
check_mutant = partial(checker_helpers.check_mutant, exact_hint=True)


# ============================================================================ softmax
def softmax_one_liner(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def softmax_float32(x):
    x = np.asarray(x, dtype=np.float32)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_rowwise_loop(x):
    rows = np.atleast_2d(x)
    out = np.empty_like(rows)
    for i, row in enumerate(rows):
        e = np.exp(row - row.max())
        out[i] = e / e.sum()
    return out.reshape(x.shape)


@pytest.mark.parametrize(
    "softmax",
    [reference_softmax, softmax_one_liner, softmax_float32],
    ids=["reference", "one-liner", "float32"],
)
def test_softmax_correct(softmax):
    result = check_softmax(softmax)
    assert result.status == "correct" and result
    assert result.message == "Correct: all 9 cases passed."


def test_softmax_stub_not_attempted():
    result = check_softmax(stub)
    assert result.status == "not attempted"
    assert "softmax function still raises NotImplementedError" in result.message


# -- the wrong answers
def no_max_shift(x):
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def no_max_shift_1d_style(x):
    return np.exp(x) / np.sum(np.exp(x))


def min_shift(x):
    e = np.exp(x - np.min(x, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def exp_only(x):
    return np.exp(x)


def shift_and_exp_only(x):
    return np.exp(x - np.max(x, axis=-1, keepdims=True))


def divide_by_max(x):
    e = np.exp(x)
    return e / e.max(axis=-1, keepdims=True)


def no_exp(x):
    return x / x.sum(axis=-1, keepdims=True)


def no_exp_but_shifted(x):
    shifted = x - x.max()
    return shifted / shifted.sum()


def sum_over_whole_array(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def sum_over_axis_0(x):
    e = np.exp(x - x.max(axis=0))
    return e / e.sum(axis=0)


def sum_without_keepdims(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / e.sum(axis=-1)


def max_without_keepdims(x):
    e = np.exp(x - x.max(axis=-1))
    return e / e.sum(axis=-1, keepdims=True)


def uses_axis_1(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def global_max_row_sums(x):
    e = np.exp(x - x.max())
    return e / e.sum(axis=-1, keepdims=True)


def shifts_in_place(x):
    x -= x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def forgot_return(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    print(e / e.sum(axis=-1, keepdims=True)) if False else None  # computed, never returned


def python_loop_1d_only(x):
    m = max(x)
    exps = [math.exp(v - m) for v in x]
    total = sum(exps)
    return np.array([v / total for v in exps])


SOFTMAX_MUTANTS = [
    # (learner function, first failing case, known mistake it must be recognised as (None: a
    #  generic hint), a distinctive word of the hint)
    (no_max_shift, 5, "no max shift", "overflows"),
    (no_max_shift_1d_style, 5, "no max shift", "overflows"),
    (min_shift, 7, "min shift", "not the min"),
    (exp_only, 2, "exp only", "exponentials themselves"),
    (shift_and_exp_only, 2, "divide by max", "largest weight is exactly 1"),
    (divide_by_max, 2, "divide by max", "largest weight is exactly 1"),
    (no_exp, 1, "no exp", "Apply exp"),
    (no_exp_but_shifted, 1, "no exp", "Apply exp"),
    (sum_over_whole_array, 8, "softmax over the whole array", "whole array"),
    (sum_over_axis_0, 8, "softmax over the wrong axis", "another axis"),
    (sum_without_keepdims, 8, "missing keepdims", "do not line up"),
    (max_without_keepdims, 8, "missing keepdims", "do not line up"),
    (uses_axis_1, 1, "axis 1 on 1-D input", "`axis=-1`"),
    (global_max_row_sums, 9, "global max shift", "own max"),
    (shifts_in_place, 2, None, "instead of updating the input"),
    (forgot_return, 1, None, "`return"),
    (python_loop_1d_only, 8, None, "Read the last line of the error"),
]


@pytest.mark.parametrize("mutant, case_number, mistake, hint_word", SOFTMAX_MUTANTS, ids=[m[0].__name__ for m in SOFTMAX_MUTANTS])
def test_softmax_mutant(mutant, case_number, mistake, hint_word):
    check_mutant(check_softmax, SOFTMAX_MISTAKES, mutant, case_number, mistake, hint_word)


def test_every_softmax_known_mistake_has_a_mutant():
    assert {m.name for m in SOFTMAX_MISTAKES} == {mistake for _, _, mistake, _ in SOFTMAX_MUTANTS} - {None}


def test_softmax_no_shift_message_shows_nan_and_overflow():
    text = check_softmax(no_max_shift).text
    assert "x = [1000., 999., 998.]" in text
    assert "expected: [0.6652, 0.2447, 0.0900]" in text
    assert "got:      [nan, nan, nan]" in text
    assert "overflow encountered in exp" in text


def test_softmax_in_place_message():
    text = check_softmax(shifts_in_place).text
    assert "softmax changed its input x in place" in text
    assert "x after:  [0., 0.]" in text


def test_softmax_loop_error_names_the_learners_line():
    text = check_softmax(python_loop_1d_only).text
    assert "where:    python_loop_1d_only, line" in text


def test_softmax_rowwise_loop_is_correct():
    assert check_softmax(softmax_rowwise_loop).status == "correct"


# ============================================================================ attention_row
def attention_row_learner(scores, values):
    weights = reference_softmax(scores)
    output = weights @ values
    return output, weights


def attention_row_transposed(scores, values):
    weights = reference_softmax(scores)
    return values.T @ weights, weights  # (d_v, T) @ (T,): also right


def attention_row_list(scores, values):
    weights = reference_softmax(scores)
    return [np.sum(weights[:, None] * values, axis=0), weights]


@pytest.mark.parametrize(
    "fn",
    [reference_attention_row, attention_row_learner, attention_row_transposed, attention_row_list],
    ids=["reference", "learner", "values.T @ weights", "list"],
)
def test_attention_row_correct(fn):
    result = check_attention_row(fn)
    assert result.status == "correct", result.text
    assert result.message == "Correct: all 4 cases passed."


def test_attention_row_stub_not_attempted():
    assert check_attention_row(stub).status == "not attempted"


def test_attention_row_reports_an_unfinished_softmax_it_calls():
    def softmax(x):
        # YOUR CODE HERE
        raise NotImplementedError()

    def attention_row(scores, values):
        weights = softmax(scores)
        return weights @ values, weights

    result = check_attention_row(attention_row)
    assert result.status == "wrong"
    assert "attention_row calls softmax, which still raises NotImplementedError" in result.message


# -- the wrong answers
def swapped_order(scores, values):
    weights = reference_softmax(scores)
    output = weights @ values
    return weights, output


def mixes_positions(scores, values):
    weights = reference_softmax(scores)
    positions = np.arange(len(scores))
    return weights @ positions, weights


def mixes_token_ids(scores, values):
    weights = reference_softmax(scores)
    token_ids = np.array([i + 1 for i in range(len(scores))])
    return weights @ token_ids, weights


def forgets_softmax(scores, values):
    return scores @ values, scores


def forgets_softmax_in_output(scores, values):
    weights = reference_softmax(scores)
    return scores @ values, weights


def sums_values(scores, values):
    weights = reference_softmax(scores)
    return values.sum(axis=0), weights


def averages_values(scores, values):
    weights = reference_softmax(scores)
    return np.mean(values, axis=0), weights


def values_times_weights(scores, values):
    weights = reference_softmax(scores)
    return values @ weights, weights


def weights_times_values_transposed(scores, values):
    weights = reference_softmax(scores)
    return weights @ values.T, weights


def elementwise_without_new_axis(scores, values):
    weights = reference_softmax(scores)
    return (weights * values).sum(axis=0), weights


def not_normalised(scores, values):
    weights = np.exp(scores)
    return weights @ values, weights


def own_softmax_without_shift(scores, values):
    weights = np.exp(scores) / np.exp(scores).sum()
    return weights @ values, weights


def scores_over_their_sum(scores, values):
    weights = scores / scores.sum()
    return weights @ values, weights


def returns_output_only(scores, values):
    weights = reference_softmax(scores)
    return weights @ values


def returns_three_things(scores, values):
    weights = reference_softmax(scores)
    return weights @ values, weights, scores


ATTENTION_ROW_MUTANTS = [
    (swapped_order, 1, "swapped outputs", "output first"),
    (mixes_positions, 1, "mixes positions", "not token positions or IDs"),
    (mixes_token_ids, 1, "mixes positions", "not token positions or IDs"),
    (forgets_softmax, 1, "no softmax", "softmax first"),
    (forgets_softmax_in_output, 1, "no softmax", "softmax first"),
    (sums_values, 2, "unweighted sum", "multiplied by its weight"),
    (averages_values, 2, "unweighted sum", "multiplied by its weight"),
    (values_times_weights, 1, "shape slip", "order of the factors"),
    (weights_times_values_transposed, 1, "shape slip", "order of the factors"),
    (elementwise_without_new_axis, 2, "broadcast slip", "weights[:, None]"),
    (not_normalised, 1, "not normalised", "add up to 1"),
    (own_softmax_without_shift, 4, "no max shift", "overflows"),
    (scores_over_their_sum, 2, "no exp", "Apply exp before normalising"),
    (returns_output_only, 1, None, "must return two things"),
    (returns_three_things, 1, None, "must return two things"),
]


@pytest.mark.parametrize(
    "mutant, case_number, mistake, hint_word", ATTENTION_ROW_MUTANTS, ids=[m[0].__name__ for m in ATTENTION_ROW_MUTANTS]
)
def test_attention_row_mutant(mutant, case_number, mistake, hint_word):
    check_mutant(check_attention_row, ATTENTION_ROW_MISTAKES, mutant, case_number, mistake, hint_word)


def test_every_attention_row_known_mistake_has_a_mutant():
    assert {m.name for m in ATTENTION_ROW_MISTAKES} == {mistake for _, _, mistake, _ in ATTENTION_ROW_MUTANTS} - {None}


def test_attention_row_single_array_message():
    text = check_attention_row(returns_output_only).text
    assert "attention_row should return two things, (output, weights), but it returned a single array of shape (2,)" in text


def test_attention_row_article_numbers_appear_when_it_fails_there():
    text = check_attention_row(sums_values).text
    assert "output = [0.9353, 0.5795]" in text  # the article rounds to [0.935, 0.579]
    assert "weights = [0.6652, 0.2447, 0.0900]" in text


def test_square_shape_slips_are_recognised_silently_too():
    """With T == d_v, values @ weights runs without error; the reproduce variants catch it."""
    scores, values = np.array([1.0, -1.0, 0.5]), np.array([[1.0, 0.0, 2.0], [0.0, 3.0, -1.0], [2.0, 1.0, 1.0]])
    slip = {m.name: m for m in ATTENTION_ROW_MISTAKES}
    for fn, name in [
        (values_times_weights, "shape slip"),
        (weights_times_values_transposed, "shape slip"),
        (elementwise_without_new_axis, "broadcast slip"),
    ]:
        got = fn(scores.copy(), values.copy())
        assert slip[name].explains_output(got, (scores, values))
        assert not slip["swapped outputs"].explains_output(got, (scores, values))


# ============================================================================ scores for the third value
@pytest.mark.parametrize(
    "scores",
    [[0.0, 0.0, 3.0], (1, 1, 5), np.array([-2.0, 0.0, 4.0]), [0.0, 0.0, 2.9]],
    ids=["list", "tuple", "array", "just-enough"],
)
def test_scores_correct(scores):
    result = check_scores_for_third_value(lambda: scores)
    assert result.status == "correct", result.text
    assert result.message.startswith("Correct: 1 of 1 case passed. The third key gets 0.9")
    assert "weights:" in result.message
    assert (result.passed, result.total) == (1, 1)


def test_scores_correct_reports_the_weight():
    result = check_scores_for_third_value(lambda: [0, 0, 3])
    assert "0.9094 of the weight (90.9%)" in result.message
    assert "weights:  [0.0453, 0.0453, 0.9094]" in result.message


def test_scores_stub_not_attempted():
    result = check_scores_for_third_value(stub)
    assert result.status == "not attempted"
    assert "scores_for_third_value function still raises NotImplementedError" in result.message


def raises_inside():
    scores = [0, 0, 3]
    return scores[3]


def takes_an_argument(scores):
    return [0, 0, 3]


SCORES_MUTANTS = [
    # (what choose_scores returns or does, a word of the expected hint, weights shown?)
    (lambda: [1.0, 2.0, 3.0], "gap", True),
    (lambda: [10.0, 10.0, 11.0], "ln(18)", True),
    (lambda: [0.0, 0.0, 2.8], "ln(18)", True),
    (lambda: [1.0, 1.0, 1.0], "1/3 each", True),
    (lambda: [3.0, 2.0, 1.0], "largest score is not the third", True),
    (lambda: [0.0, 5.0, 1.0], "largest score is not the third", True),
    (lambda: [3.0, 0.0, 3.0], "ties", True),
    (lambda: [1.0, 2.0], "exactly three", False),
    (lambda: [[0.0, 0.0, 3.0]], "exactly three", False),
    (lambda: None, "`return", False),
    (lambda: [0.0, 0.0, np.inf], "finite", False),
    (lambda: [np.nan, 0.0, 3.0], "finite", False),
    (lambda: "0, 0, 3", "list of three numbers", False),
    (raises_inside, "Read the last line of the error", False),
    (takes_an_argument, "no arguments", False),
]


@pytest.mark.parametrize("fn, hint_word, shows_weights", SCORES_MUTANTS)
def test_scores_mutant(fn, hint_word, shows_weights):
    result = check_scores_for_third_value(fn)
    assert result.status == "wrong", result.text
    assert not result and result.message.startswith("Not yet right")
    assert hint_word in result.hint, result.text
    assert ("weights:" in result.message) == shows_weights
    assert "Traceback" not in result.text


def test_scores_gap_message_reports_the_weight():
    result = check_scores_for_third_value(lambda: [1, 2, 3])
    assert "the third key gets 0.6652 of the weight; at least 0.9 is needed" in result.message
    assert "its weight is only 0.6652" in result.hint


def test_scores_error_names_the_line():
    text = check_scores_for_third_value(raises_inside).text
    assert "IndexError" in text and "where:    raises_inside, line" in text


def test_checkers_refuse_a_non_function_politely():
    for check, value in [(check_softmax, np.array([1.0])), (check_scores_for_third_value, [0, 0, 3])]:
        result = check(value)
        assert result.status == "wrong" and "needs your function itself" in result.message


def test_html_of_each_outcome():
    assert "<strong>Correct</strong>" in check_softmax(reference_softmax)._repr_html_()
    assert "<strong>Not yet right</strong>" in check_softmax(no_max_shift)._repr_html_()
    assert "<strong>Not attempted yet</strong>" in check_attention_row(stub)._repr_html_()
