"""Notebook 03 checkers against the reference, the stub, and the wrong answers learners write.

Each mutant is a function a learner plausibly writes. The test asserts the checker calls it
wrong, at the expected (first failing) case, with the hint for that mistake (None: a generic hint).
"""
from functools import partial

import checker_helpers  # tests/checker_helpers.py: the shared assertions
import numpy as np
import pytest
from checker_helpers import stub

import course_utils as cu
from course_utils.checks import (
    CAUSAL_MASK_MISTAKES,
    MASK_SITUATIONS,
    MASKED_ATTENTION_MISTAKES,
    PADDING_MASK_MISTAKES,
    check_buggy_masks,
    check_causal_mask,
    check_masked_attention,
    check_padding_mask,
)
from course_utils.checks._catalogue import CATALOGUE
from course_utils.checks._mask_answers import read_mask as _interpret_mask
from course_utils.checks.masks import _VERDICTS, _answer_key, _buggy_labels

# these checkers may read a mistake from several cases, so `passed` is not asserted
assert_wrong = partial(checker_helpers.assert_wrong, check_passed=False)
check_mutant = partial(checker_helpers.check_mutant, check_passed=False)


def tril(T, k=0, dtype=bool):
    return np.tril(np.ones((T, T), dtype=dtype), k=k)


# ============================================================================ causal_mask
def causal_comparison(T):
    positions = np.arange(T)
    return positions[None, :] <= positions[:, None]


def causal_loop(T):
    mask = np.zeros((T, T), dtype=bool)
    for i in range(T):
        for j in range(i + 1):
            mask[i, j] = True
    return mask


def causal_tri(T):
    return np.tri(T, dtype=bool)


def causal_nested_lists(T):
    return [[j <= i for j in range(T)] for i in range(T)]


@pytest.mark.parametrize("fn", [cu.causal_mask, tril, causal_comparison, causal_loop, causal_tri, causal_nested_lists])
def test_causal_correct(fn):
    result = check_causal_mask(fn)
    assert result.status == "correct", result.text
    assert result.message == "Correct: all 4 cases passed."


def test_causal_stub_not_attempted():
    result = check_causal_mask(stub)
    assert result.status == "not attempted"
    assert "causal_mask function still raises NotImplementedError" in result.message


def causal_triu_k1(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


def causal_negated(T):
    return ~np.tril(np.ones((T, T), dtype=bool))


def causal_triu(T):
    return np.triu(np.ones((T, T), dtype=bool))


def causal_wrong_comparison(T):
    positions = np.arange(T)
    return positions[None, :] >= positions[:, None]


def causal_k_plus_1(T):
    return np.tril(np.ones((T, T), dtype=bool), k=1)


def causal_k_minus_1(T):
    return np.tril(np.ones((T, T), dtype=bool), k=-1)


def causal_strict_comparison(T):
    positions = np.arange(T)
    return positions[None, :] < positions[:, None]


def causal_float(T):
    return np.tril(np.ones((T, T)))


def causal_int(T):
    return np.tril(np.ones((T, T), dtype=int))


def causal_float_k_plus_1(T):
    return np.tril(np.ones((T, T)), k=1)


def causal_additive(T):
    return np.where(np.tril(np.ones((T, T), dtype=bool)), 0.0, -np.inf)


def causal_tril_of_T(T):
    return np.tril(T)


def causal_no_return(T):
    np.tril(np.ones((T, T), dtype=bool))


def causal_full(T):
    return np.ones((T, T), dtype=bool)


def causal_eye(T):
    return np.eye(T, dtype=bool)


CAUSAL_MUTANTS = [
    # (learner function, first failing case, known mistake (None: generic hint), a word of the hint)
    (causal_triu_k1, 1, "inverted", "inverted"),
    (causal_negated, 1, "inverted", "inverted"),
    (causal_triu, 2, "future instead of past", "np.triu"),
    (causal_wrong_comparison, 2, "future instead of past", "np.triu"),
    (causal_k_plus_1, 2, "sees the next token", "k=1)"),
    (causal_k_minus_1, 1, "cannot see itself", "k=-1)"),
    (causal_strict_comparison, 1, "cannot see itself", "k=-1)"),
    (causal_float_k_plus_1, 2, "sees the next token", "Also, your mask holds 0/1 numbers of dtype float64"),
    (causal_tril_of_T, 1, "tril of a number", "needs a 2-D array"),
    (causal_eye, 2, "each token sees only itself", "np.eye"),
    (causal_full, 2, None, "lower triangle"),
    (causal_no_return, 1, None, "`return"),
]


@pytest.mark.parametrize("mutant, case_number, mistake, hint_word", CAUSAL_MUTANTS,
                         ids=[m[0].__name__ for m in CAUSAL_MUTANTS])
def test_causal_mutant(mutant, case_number, mistake, hint_word):
    check_mutant(check_causal_mask, CAUSAL_MASK_MISTAKES, mutant, case_number, mistake, hint_word)


@pytest.mark.parametrize("mutant, dtype", [(causal_float, "float64"), (causal_int, "int64")])
def test_causal_number_masks_are_called_out(mutant, dtype):
    result = check_causal_mask(mutant)
    assert_wrong(result, 1, f"0/1 numbers of dtype {dtype}")
    assert result.hint.startswith("Your mask has the right pattern")
    assert "PyTorch *adds* a float mask" in result.hint
    assert f"the dtype is {dtype}, not bool" in result.message


def test_causal_additive_mask_is_called_out():
    result = check_causal_mask(causal_additive)
    assert_wrong(result, 1, "additive float mask")


def test_every_causal_known_mistake_has_a_mutant():
    assert {m.name for m in CAUSAL_MASK_MISTAKES} == {m for _, _, m, _ in CAUSAL_MUTANTS} - {None}


def test_causal_inverted_and_off_by_one_are_told_apart_on_a_1x1_mask():
    """Both give [[False]] for T = 1; the checker looks at every case before naming the mistake."""
    inverted, itself = check_causal_mask(causal_triu_k1), check_causal_mask(causal_k_minus_1)
    assert "inverted" in inverted.hint and "k=-1" not in inverted.hint
    assert "k=-1" in itself.hint and "inverted" not in itself.hint


def test_causal_message_shows_masks_as_numbers():
    text = check_causal_mask(causal_k_plus_1).text
    assert "expected: [[1, 0],\n             [1, 1]]  (1 = True = may attend, 0 = False = blocked)" in text
    assert "got:      [[1, 1]," in text
    assert "1 of 4 entries differ" in text


# ============================================================================ padding_mask
def padding_comparison(lengths, T):
    return np.arange(T)[None, :] < lengths[:, None]


def padding_reversed_comparison(lengths, T):
    return lengths[:, None] > np.arange(T)


def padding_loop(lengths, T):
    mask = np.zeros((len(lengths), T), dtype=bool)
    for b, n in enumerate(lengths):
        mask[b, :n] = True
    return mask


def padding_list_comprehension(lengths, T):
    return np.array([[t < n for t in range(T)] for n in lengths])


@pytest.mark.parametrize(
    "fn", [cu.padding_mask, padding_comparison, padding_reversed_comparison, padding_loop, padding_list_comprehension]
)
def test_padding_correct(fn):
    result = check_padding_mask(fn)
    assert result.status == "correct", result.text
    assert result.message == "Correct: all 5 cases passed."


def test_padding_stub_not_attempted():
    assert check_padding_mask(stub).status == "not attempted"


def padding_greater_equal(lengths, T):
    return np.arange(T)[None, :] >= lengths[:, None]


def padding_greater(lengths, T):
    return np.arange(T)[None, :] > lengths[:, None]


def padding_negated(lengths, T):
    return ~(np.arange(T)[None, :] < lengths[:, None])


def padding_less_equal(lengths, T):
    return np.arange(T)[None, :] <= lengths[:, None]


def padding_positions_from_one(lengths, T):
    return np.arange(1, T + 1)[None, :] < lengths[:, None]


def padding_transposed(lengths, T):
    return np.arange(T)[:, None] < lengths[None, :]


def padding_longest(lengths, T):
    return np.arange(max(lengths))[None, :] < lengths[:, None]


def padding_same_axis(lengths, T):
    return np.arange(T) < lengths


def padding_float(lengths, T):
    return (np.arange(T)[None, :] < lengths[:, None]).astype(float)


def padding_int_loop(lengths, T):
    mask = np.zeros((len(lengths), T), dtype=int)
    for b, n in enumerate(lengths):
        mask[b, :n] = 1
    return mask


def padding_float_transposed(lengths, T):
    return (np.arange(T)[:, None] < lengths[None, :]).astype(np.float32)


PADDING_MUTANTS = [
    (padding_greater_equal, 1, "inverted", "`>=` instead of `<`"),
    (padding_greater, 1, "inverted", "`>=` instead of `<`"),
    (padding_negated, 1, "inverted", "inverted"),
    (padding_less_equal, 2, "one padding position too many", "one True too many"),
    (padding_positions_from_one, 1, "one real position too few", "np.arange(1, T + 1)"),
    (padding_transposed, 2, "transposed", "(T, B)"),
    (padding_float_transposed, 2, "transposed", "Also, your mask holds 0/1 numbers of dtype float32"),
    (padding_longest, 2, "longest sequence instead of T", "not `np.arange(max(lengths))`"),
    (padding_same_axis, 1, "one row for all sequences", "different axes"),
]


@pytest.mark.parametrize("mutant, case_number, mistake, hint_word", PADDING_MUTANTS,
                         ids=[m[0].__name__ for m in PADDING_MUTANTS])
def test_padding_mutant(mutant, case_number, mistake, hint_word):
    check_mutant(check_padding_mask, PADDING_MASK_MISTAKES, mutant, case_number, mistake, hint_word)


@pytest.mark.parametrize("mutant, dtype", [(padding_float, "float64"), (padding_int_loop, "int64")])
def test_padding_number_masks_are_called_out(mutant, dtype):
    result = check_padding_mask(mutant)
    assert_wrong(result, 1, f"0/1 numbers of dtype {dtype}")
    assert "np.arange(T)[None, :] < lengths[:, None]" in result.hint


def test_every_padding_known_mistake_has_a_mutant():
    assert {m.name for m in PADDING_MASK_MISTAKES} == {m for _, _, m, _ in PADDING_MUTANTS} - {None}


def test_padding_same_axis_error_on_a_batch_is_recognised_too():
    """np.arange(T) < lengths raises when B != T; its error alone names the mistake."""
    mistake = next(m for m in PADDING_MASK_MISTAKES if m.name == "one row for all sequences")
    with pytest.raises(ValueError) as info:
        _ = np.arange(3) < np.array([2, 1])
    assert mistake.explains_error(info.value)


def test_padding_message_shows_lengths_and_T():
    text = check_padding_mask(padding_less_equal).text
    assert "input:    lengths = [2, 1]\n            T = 3" in text


def test_interpret_mask_kinds():
    assert _interpret_mask(np.array([True, False]))[1] == "bool"
    assert _interpret_mask(np.array([1, 0]))[1] == "01"
    assert _interpret_mask(np.array([0.0, -np.inf]))[1] == "additive"
    assert _interpret_mask(np.array([0.0, 0.0]))[1] == "01"
    assert _interpret_mask(np.array([0.0, 0.0]), additive_style=True)[1] == "additive"
    assert _interpret_mask(np.array([0.5, 1.0]))[1] == "bad"
    assert _interpret_mask("mask")[1] == "bad"
    assert _interpret_mask(None)[1] == "bad"


def test_mask_checkers_report_bad_returns_without_tracebacks():
    for fn, word in [(lambda T: "tril", "not an array of True/False values"),
                     (lambda T: np.full((T, T), 0.5), "numbers other than 0 and 1")]:
        result = check_causal_mask(fn)
        assert result.status == "wrong" and word in result.message, result.text


# ============================================================================ masked_attention
def notebook_solution(q, k, v, mask):
    d_k = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)
    has_key = mask.any(axis=-1, keepdims=True)
    scores = np.where(mask, scores, -np.inf)
    scores = np.where(has_key, scores, 0.0)
    weights = np.where(has_key, cu.softmax(scores), 0.0)
    return weights @ v, weights


def own_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def scores_of(q, k):
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])


def relies_on_cu_softmax(q, k, v, mask):
    weights = cu.softmax(np.where(mask, scores_of(q, k), -np.inf))
    return weights @ v, weights


def large_negative_then_zero_rows(q, k, v, mask):
    weights = own_softmax(np.where(mask, scores_of(q, k), -1e9))
    weights = np.where(mask.any(axis=-1, keepdims=True), weights, 0.0)
    return weights @ v, weights


def large_negative_then_multiply(q, k, v, mask):
    weights = own_softmax(np.where(mask, scores_of(q, k), -1e9)) * mask
    return weights @ v, weights


def finfo_min_then_zero_rows(q, k, v, mask):
    weights = own_softmax(np.where(mask, scores_of(q, k), np.finfo(float).min))
    weights = weights * mask.any(axis=-1, keepdims=True)
    return weights @ v, weights


def zero_then_safe_renormalise(q, k, v, mask):  # right for small scores, underflows for large ones
    zeroed = own_softmax(scores_of(q, k)) * mask
    sums = zeroed.sum(axis=-1, keepdims=True)
    weights = np.divide(zeroed, sums, out=np.zeros_like(zeroed), where=sums > 0)
    return weights @ v, weights


def transposes_with_transpose_method(q, k, v, mask):
    scores = np.matmul(q, k.transpose(*range(k.ndim - 2), -1, -2)) / np.sqrt(q.shape[-1])
    weights = cu.softmax(np.where(mask, scores, -np.inf))
    return np.einsum("...qk,...kd->...qd", weights, v), weights


@pytest.mark.parametrize(
    "fn",
    [cu.scaled_dot_product_attention, notebook_solution, relies_on_cu_softmax, large_negative_then_zero_rows,
     large_negative_then_multiply, finfo_min_then_zero_rows, transposes_with_transpose_method],
    ids=["reference", "notebook", "cu.softmax", "-1e9 + zero rows", "-1e9 * mask", "finfo.min",
         "transpose + einsum"],
)
def test_masked_attention_correct(fn):
    result = check_masked_attention(fn)
    assert result.status == "correct", result.text
    assert result.message == "Correct: all 6 cases passed."


def test_masked_attention_stub_not_attempted():
    assert check_masked_attention(stub).status == "not attempted"


def zero_after(q, k, v, mask):
    weights = own_softmax(scores_of(q, k)) * mask
    return weights @ v, weights


def zero_after_with_where(q, k, v, mask):
    weights = np.where(mask, cu.softmax(scores_of(q, k)), 0.0)
    return weights @ v, weights


def inverted(q, k, v, mask):
    weights = cu.softmax(np.where(mask, -np.inf, scores_of(q, k)))
    return weights @ v, weights


def inverted_large_negative(q, k, v, mask):
    weights = own_softmax(np.where(mask, -1e9, scores_of(q, k)))
    return weights @ v, weights


def no_empty_row_handling(q, k, v, mask):
    weights = own_softmax(np.where(mask, scores_of(q, k), -np.inf))
    return weights @ v, weights


def zero_then_renormalise(q, k, v, mask):
    zeroed = own_softmax(scores_of(q, k)) * mask
    weights = zeroed / zeroed.sum(axis=-1, keepdims=True)
    return weights @ v, weights


def large_negative(q, k, v, mask):
    weights = own_softmax(np.where(mask, scores_of(q, k), -1e9))
    return weights @ v, weights


def large_negative_added(q, k, v, mask):
    weights = own_softmax(scores_of(q, k) + (~mask) * -1e9)
    return weights @ v, weights


def multiplies_mask(q, k, v, mask):
    weights = cu.softmax(scores_of(q, k) * mask)
    return weights @ v, weights


def sets_blocked_to_zero(q, k, v, mask):
    weights = cu.softmax(np.where(mask, scores_of(q, k), 0.0))
    return weights @ v, weights


def adds_bool_mask(q, k, v, mask):
    weights = cu.softmax(scores_of(q, k) + mask)
    return weights @ v, weights


def no_scale(q, k, v, mask):
    weights = cu.softmax(np.where(mask, q @ np.swapaxes(k, -1, -2), -np.inf))
    return weights @ v, weights


def scale_by_d_k(q, k, v, mask):
    weights = cu.softmax(np.where(mask, q @ np.swapaxes(k, -1, -2) / q.shape[-1], -np.inf))
    return weights @ v, weights


def scale_by_sqrt_d_v(q, k, v, mask):
    d_v = v.shape[-1]
    weights = cu.softmax(np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(d_v), -np.inf))
    return weights @ v, weights


def softmax_over_queries(q, k, v, mask):
    weights = cu.softmax(np.where(mask, scores_of(q, k), -np.inf), axis=-2)
    return weights @ v, weights


def scale_by_sqrt_num_keys(q, k, v, mask):
    weights = cu.softmax(np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(k.shape[-2]), -np.inf))
    return weights @ v, weights


def values_on_the_left(q, k, v, mask):
    weights = cu.softmax(np.where(mask, scores_of(q, k), -np.inf))
    return v @ weights, weights


def softmax_over_whole_array(q, k, v, mask):
    scores = np.where(mask, scores_of(q, k), -np.inf)
    e = np.exp(scores - scores.max())
    weights = e / e.sum()
    return weights @ v, weights


def swapped_outputs(q, k, v, mask):
    weights = cu.softmax(np.where(mask, scores_of(q, k), -np.inf))
    return weights, weights @ v


def k_dot_T(q, k, v, mask):
    weights = cu.softmax(np.where(mask, q @ k.T / np.sqrt(q.shape[-1]), -np.inf))
    return weights @ v, weights


def no_transpose(q, k, v, mask):
    weights = cu.softmax(np.where(mask, q @ k / np.sqrt(q.shape[-1]), -np.inf))
    return weights @ v, weights


def no_max_shift(q, k, v, mask):
    e = np.exp(np.where(mask, scores_of(q, k), -np.inf))
    total = e.sum(axis=-1, keepdims=True)
    weights = np.where(mask.any(axis=-1, keepdims=True), e / np.where(total == 0, 1.0, total), 0.0)
    return weights @ v, weights


def returns_output_only(q, k, v, mask):
    weights = cu.softmax(np.where(mask, scores_of(q, k), -np.inf))
    return weights @ v


ATTENTION_MUTANTS = [
    (zero_after, 2, "mask after the softmax", "*after* the softmax"),
    (zero_after_with_where, 2, "mask after the softmax", "*after* the softmax"),
    (inverted, 1, "inverted mask", "inverted"),
    (inverted_large_negative, 2, "inverted mask", "inverted"),
    (no_empty_row_handling, 5, "nan in an empty row", "no permitted key"),
    (zero_then_renormalise, 5, "zero then renormalise", "nothing left to renormalise"),
    (zero_then_safe_renormalise, 6, "zero then renormalise", "underflow to 0"),
    (large_negative, 5, "large negative number in an empty row", "-1e9"),
    (large_negative_added, 5, "large negative number in an empty row", "-1e9"),
    (multiplies_mask, 2, "mask multiplied into the scores", "exp(0) = 1"),
    (sets_blocked_to_zero, 2, "mask multiplied into the scores", "exp(0) = 1"),
    (adds_bool_mask, 2, "boolean mask added to the scores", "True counts as 1"),
    (no_scale, 2, "no scale", "sqrt(d_k)"),
    (scale_by_d_k, 2, "divide by d_k", "square root"),
    (scale_by_sqrt_d_v, 3, "scaled by sqrt(d_v)", "values' width"),
    (softmax_over_queries, 2, "softmax over the wrong axis", "`axis=-1`"),
    (softmax_over_whole_array, 2, "softmax over the whole array", "whole array"),
    (scale_by_sqrt_num_keys, 2, "sqrt of the number of keys", "number of keys"),
    (swapped_outputs, 1, "swapped outputs", "output first"),
    (k_dot_T, 4, "k.T on a batch", "np.swapaxes(k, -1, -2)"),
    (no_transpose, 1, "k not transposed", "Transpose the keys"),
    (values_on_the_left, 1, "matmul shapes", "`v @ weights`"),
    (no_max_shift, 6, "no max shift", "overflows"),
    (returns_output_only, 1, None, "must return two things"),
]


@pytest.mark.parametrize("mutant, case_number, mistake, hint_word", ATTENTION_MUTANTS,
                         ids=[m[0].__name__ for m in ATTENTION_MUTANTS])
def test_masked_attention_mutant(mutant, case_number, mistake, hint_word):
    check_mutant(check_masked_attention, MASKED_ATTENTION_MISTAKES, mutant, case_number, mistake, hint_word)


def test_every_attention_known_mistake_has_a_mutant():
    """The catalogue's mistakes have theirs in tests/test_mistake_matrix.py too."""
    assert {m.name for m in MASKED_ATTENTION_MISTAKES} - set(CATALOGUE) <= {m for _, _, m, _ in ATTENTION_MUTANTS}


def test_empty_row_case_expects_zeros_and_the_message_shows_nan():
    text = check_masked_attention(no_empty_row_handling).text
    assert "a query with no permitted key" in text
    assert "weights = [[0.0000, 0.0000, 0.0000]," in text
    assert "nan" in text and "invalid value encountered" in text


def test_masked_attention_input_shows_the_mask_as_numbers():
    result = check_masked_attention(zero_after)
    assert "mask = [[1, 0, 0],\n" in result.message
    assert "(1 = True = may attend, 0 = False = blocked)" in result.message
    assert "True, False" not in result.message
    assert "mask = [[1, 0, 0]" in result.case


def test_reference_cases_have_no_nan():
    from course_utils.checks.masks import _ATTENTION_CASES

    for case in _ATTENTION_CASES:
        output, weights = cu.scaled_dot_product_attention(*case.args)
        assert np.isfinite(output).all() and np.isfinite(weights).all()
    output, weights = cu.scaled_dot_product_attention(*_ATTENTION_CASES[4].args)
    assert (weights[0] == 0).all() and (output[0] == 0).all()



def test_attention_cases_have_values_wider_than_the_keys():
    """sqrt(d_v) instead of sqrt(d_k) shows only where the widths differ: the first such case is case 3."""
    from course_utils.checks.masks import _ATTENTION_CASES

    differ = [i for i, case in enumerate(_ATTENTION_CASES, start=1)
              if np.shape(case.args[2])[-1] != np.shape(case.args[0])[-1]]
    assert differ[:1] == [3] and len(differ) >= 2
# ============================================================================ find the buggy masks
ANSWER = {"causal": ["A", "C"], "padding": ["B"], "causal + padding": ["A", "C"]}


@pytest.mark.parametrize(
    "answer",
    [ANSWER,
     {"causal": "A, C", "padding": "b", "causal + padding": ("c", "a")},
     {"causal": {"A", "C"}, "padding": ("B",), "causal + padding": "A C"}],
    ids=["lists", "strings", "sets and tuples"],
)
def test_buggy_masks_correct(answer):
    result = check_buggy_masks(lambda: answer)
    assert result.status == "correct", result.text
    assert result.message.startswith("Correct: all 3 situations right.")
    assert "causal + padding, B: B is the causal mask alone" in result.message


def test_buggy_masks_stub_not_attempted():
    assert check_buggy_masks(stub).status == "not attempted"


@pytest.mark.parametrize(
    "answer, right, looks",
    [
        ({**ANSWER, "causal": ["A"]}, 2, ["causal, C"]),
        ({**ANSWER, "padding": ["B", "C"]}, 2, ["padding, C"]),
        ({**ANSWER, "causal + padding": ["A", "B", "C"]}, 2, ["causal + padding, B"]),
        ({"causal": [], "padding": [], "causal + padding": []}, 0,
         ["causal, A", "causal, C", "padding, B", "causal + padding, A", "causal + padding, C"]),
    ],
    ids=["missed the inverted mask", "blamed keys-and-queries", "blamed causal-only", "none"],
)
def test_buggy_masks_wrong_answers_point_at_the_misjudged_candidates(answer, right, looks):
    result = check_buggy_masks(lambda: answer)
    assert result.status == "wrong", result.text
    assert result.message.startswith(f"Not yet right: {right} of 3 situations right.")
    assert "Rows of <pad> queries do not matter" in result.hint
    for look in looks:
        assert f"\n{look}: " in result.hint, result.text
    assert result.hint.count("\n") == len(looks)


def raises_inside():
    return {"causal": ["A"]}["padding"]


@pytest.mark.parametrize(
    "fn, word",
    [(lambda: ["A", "C"], "should return a dict"),
     (lambda: {"causal": ["A"]}, "missing situation(s) ['padding', 'causal + padding']"),
     (lambda: {**ANSWER, "causal+padding": []}, "unknown key(s) ['causal+padding']"),
     (lambda: {**ANSWER, "causal": ["D"]}, 'is not a list of the labels "A", "B", "C"'),
     (lambda: {**ANSWER, "causal": [0, 2]}, "is not a list of the labels"),
     (raises_inside, "raised an error")],
)
def test_buggy_masks_bad_answers(fn, word):
    result = check_buggy_masks(fn)
    assert result.status == "wrong" and word in result.message, result.text
    assert "Traceback" not in result.text


def test_the_notebook_namespace_carries_no_answers():
    """MASK_SITUATIONS is imported into notebook 03: it holds the masks, not which are buggy."""
    for situation in MASK_SITUATIONS:
        assert set(vars(situation)) == {"key", "title", "ticket", "T", "intended", "candidates"}
        for candidate in situation.candidates:
            assert set(vars(candidate)) == {"label", "mask"}
    assert set(_answer_key()) == {s.key for s in MASK_SITUATIONS}


def test_situations_are_consistent():
    assert [s.key for s in MASK_SITUATIONS] == ["causal", "padding", "causal + padding"]
    for situation in MASK_SITUATIONS:
        assert [c.label for c in situation.candidates] == ["A", "B", "C"]
        assert 1 <= len(_buggy_labels(situation.key)) < 3
        for candidate in situation.candidates:
            assert candidate.mask.shape == (situation.T, situation.T) and candidate.mask.dtype == bool


def test_buggy_means_a_real_output_changes():
    """The definition the exercise states, checked numerically: a candidate is buggy exactly when
    some real token's output differs from the output under the intended mask."""
    from course_utils.lessons.data import padded_batch

    rng = np.random.default_rng(1)
    W_Q, W_K, W_V = rng.normal(size=(3, 4, 4))
    intended = {
        "causal": cu.causal_mask(5),
        "padding": np.broadcast_to(np.arange(5) < 2, (5, 5)),
        "causal + padding": cu.causal_mask(5) & (np.arange(5) < 3)[None, :],
    }
    for situation in MASK_SITUATIONS:
        x, lengths, _ = padded_batch([situation.ticket], length=situation.T)
        x = x[0]
        n = int(lengths[0])
        expected, _ = cu.scaled_dot_product_attention(x @ W_Q, x @ W_K, x @ W_V, intended[situation.key])
        for candidate in situation.candidates:
            got, _ = cu.scaled_dot_product_attention(x @ W_Q, x @ W_K, x @ W_V, candidate.mask)
            differs = not np.allclose(got[:n], expected[:n])
            assert differs == _VERDICTS[(situation.key, candidate.label)].buggy, (situation.key, candidate.label)


def test_checkers_refuse_a_non_function_politely():
    for check in (check_causal_mask, check_padding_mask, check_masked_attention, check_buggy_masks):
        result = check(np.array([1.0]))
        assert result.status == "wrong" and "needs your function itself" in result.message
