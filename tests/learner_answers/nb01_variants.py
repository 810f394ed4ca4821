"""Recall set for notebook 01: realistic variants of the known mistakes of check_softmax and
check_attention_row (``kind="variant"``).

Each function makes exactly one known mistake, written differently from the mutants of
tests/test_checks_row.py (other names, a loop, an extra harmless step, ...), and reproduces that
mistake's result on every case the checker runs (not only on the first failing one).
"""
import numpy as np

import course_utils as cu
from learner_answers import answer


# ============================================================================ softmax(x)
# -- softmax over the whole array, over the wrong axis
@answer("softmax", kind="variant", expect="softmax over the whole array",
        note="global max and a sum with keepdims but no axis: normalises the whole 2-D array")
def var_softmax_whole_array_keepdims(x):
    x = np.asarray(x, dtype=float)
    exps = np.exp(x - np.max(x))
    return exps / exps.sum(keepdims=True)


@answer("softmax", kind="variant", expect="softmax over the wrong axis",
        note="row max shift is right, but the sum runs over axis 0 (columns)")
def var_softmax_row_shift_column_sum(x):
    x = np.asarray(x, dtype=float)
    shifted = x - x.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    column_totals = e.sum(axis=0)
    return e / column_totals


# -- no max shift
@answer("softmax", kind="variant", expect="no max shift",
        note="loop over the rows, exp / sum without subtracting the max")
def var_softmax_row_loop_no_shift(x):
    x = np.asarray(x, dtype=float)
    rows = np.atleast_2d(x)
    out = np.empty_like(rows)
    for i in range(rows.shape[0]):
        exps = np.exp(rows[i])
        out[i] = exps / np.sum(exps)
    return out.reshape(x.shape)


@answer("softmax", kind="variant", expect="no max shift",
        note="no shift; row sums with [..., np.newaxis] instead of keepdims")
def var_softmax_newaxis_no_shift(x):
    x = np.asarray(x, dtype=float)
    numerators = np.exp(x)
    denominators = numerators.sum(axis=-1)[..., np.newaxis]
    return numerators / denominators


# -- min shift
@answer("softmax", kind="variant", expect="min shift",
        note="subtracts the row minimum ([..., None] instead of keepdims)")
def var_softmax_min_newaxis(x):
    x = np.asarray(x, dtype=float)
    smallest = x.min(axis=-1)[..., None]
    e = np.exp(x - smallest)
    return e / np.sum(e, axis=-1, keepdims=True)


@answer("softmax", kind="variant", expect="min shift",
        note="sorts each row and takes the first entry as 'the largest' (it is the smallest)")
def var_softmax_sorted_first_entry(x):
    x = np.asarray(x, dtype=float)
    largest = np.sort(x, axis=-1)[..., :1]  # sort is ascending: this is the minimum
    e = np.exp(x - largest)
    return e / e.sum(axis=-1, keepdims=True)


# -- exp only
@answer("softmax", kind="variant", expect="exp only",
        note="computes the row sums but returns the exponentials")
def var_softmax_sum_computed_not_used(x):
    x = np.asarray(x, dtype=float)
    exps = np.exp(x)
    total = exps.sum(axis=-1, keepdims=True)  # noqa: F841 - never used
    return exps


@answer("softmax", kind="variant", expect="exp only", note="np.e ** x, nothing else")
def var_softmax_e_power(x):
    x = np.asarray(x, dtype=float)
    return np.e ** x


# -- divide by max
@answer("softmax", kind="variant", expect="divide by max",
        note="shifts by the row max, then divides by the max of the exponentials (1) instead of the sum")
def var_softmax_shift_then_divide_by_max(x):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.max(axis=-1, keepdims=True)


@answer("softmax", kind="variant", expect="divide by max",
        note="loop over rows: exp(row - row.max()), the division forgotten")
def var_softmax_row_loop_shift_only(x):
    x = np.asarray(x, dtype=float)
    rows = np.atleast_2d(x)
    out = np.zeros_like(rows)
    for i, row in enumerate(rows):
        out[i] = np.exp(row - row.max())
    return out.reshape(x.shape)


# -- no exp
@answer("softmax", kind="variant", expect="no exp",
        note="loop over rows dividing the raw scores by their sum")
def var_softmax_row_loop_no_exp(x):
    x = np.asarray(x, dtype=float)
    rows = np.atleast_2d(x)
    out = np.empty_like(rows)
    for i, row in enumerate(rows):
        out[i] = row / row.sum()
    return out.reshape(x.shape)


@answer("softmax", kind="variant", expect="no exp",
        note="subtracts the row max, then normalises without exponentiating")
def var_softmax_row_shift_no_exp(x):
    x = np.asarray(x, dtype=float)
    shifted = x - np.max(x, axis=-1, keepdims=True)
    return shifted / shifted.sum(axis=-1, keepdims=True)


# -- missing keepdims
@answer("softmax", kind="variant", expect="missing keepdims",
        note="max and sum along the last axis, both without keepdims")
def var_softmax_no_keepdims_both(x):
    x = np.asarray(x, dtype=float)
    m = x.max(axis=-1)
    e = np.exp(x - m)
    s = e.sum(axis=-1)
    return e / s


@answer("softmax", kind="variant", expect="missing keepdims",
        note="np.divide by the sum over axis x.ndim - 1, without keepdims")
def var_softmax_divide_last_axis_no_keepdims(x):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return np.divide(e, np.sum(e, axis=x.ndim - 1))


# -- axis 1 on 1-D input
@answer("softmax", kind="variant", expect="axis 1 on 1-D input",
        note="positional axis 1 in np.amax and np.sum")
def var_softmax_positional_axis_1(x):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.amax(x, 1, keepdims=True))
    return e / np.sum(e, 1, keepdims=True)


@answer("softmax", kind="variant", expect="axis 1 on 1-D input",
        note="np.apply_along_axis over axis 1 (right for rows, fails on 1-D input)")
def var_softmax_apply_along_axis_1(x):
    x = np.asarray(x, dtype=float)

    def one_row(row):
        e = np.exp(row - row.max())
        return e / e.sum()

    return np.apply_along_axis(one_row, 1, x)


# -- global max shift
@answer("softmax", kind="variant", expect="global max shift",
        note="x.max(keepdims=True) (no axis) as the shift, row sums right")
def var_softmax_global_max_keepdims(x):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@answer("softmax", kind="variant", expect="global max shift",
        note="loop over rows, each shifted by the max of the whole array")
def var_softmax_row_loop_global_max(x):
    x = np.asarray(x, dtype=float)
    biggest = np.max(x)
    rows = np.atleast_2d(x)
    out = np.empty_like(rows)
    for i, row in enumerate(rows):
        e = np.exp(row - biggest)
        out[i] = e / e.sum()
    return out.reshape(x.shape)


# ============================================================================ attention_row(scores, values)
def _own_softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


# -- swapped outputs
@answer("attention_row", kind="variant", expect="swapped outputs",
        note="returns [weights, output] as a list, weights first")
def var_attention_row_list_weights_first(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = np.dot(weights, values)
    return [weights, output]


@answer("attention_row", kind="variant", expect="swapped outputs",
        note="own softmax and einsum, then `return weights, output`")
def var_attention_row_einsum_swapped(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = _own_softmax(scores)
    output = np.einsum("t,td->d", weights, values)
    return weights, output


# -- mixes positions
@answer("attention_row", kind="variant", expect="mixes positions",
        note="weighted sum of the positions 0..T-1 in a Python loop")
def var_attention_row_sum_of_positions(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    positions = list(range(len(scores)))
    output = sum(w * p for w, p in zip(weights, positions))
    return output, weights


@answer("attention_row", kind="variant", expect="mixes positions",
        note="weights times the token numbers 1..T, summed")
def var_attention_row_token_numbers(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    token_numbers = np.arange(1, scores.shape[0] + 1)
    return (weights * token_numbers).sum(), weights


# -- no softmax
@answer("attention_row", kind="variant", expect="no softmax",
        note="uses the scores as weights (einsum)")
def var_attention_row_scores_as_weights(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = scores
    output = np.einsum("t,td->d", weights, values)
    return output, weights


@answer("attention_row", kind="variant", expect="no softmax",
        note="softmax computed for the weights, but the loop mixes the values with the raw scores")
def var_attention_row_loop_with_scores(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = np.zeros(values.shape[1])
    for t in range(len(scores)):
        output += scores[t] * values[t]
    return output, weights


# -- unweighted sum
@answer("attention_row", kind="variant", expect="unweighted sum",
        note="adds up the value rows in a loop, ignoring the weights")
def var_attention_row_loop_sum_values(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = np.zeros(values.shape[1])
    for row in values:
        output += row
    return output, weights


@answer("attention_row", kind="variant", expect="unweighted sum",
        note="np.average over the keys without passing weights=")
def var_attention_row_average_without_weights(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = np.average(values, axis=0)
    return output, weights


# -- shape slip
@answer("attention_row", kind="variant", expect="shape slip",
        note="np.dot(values, weights): values first")
def var_attention_row_dot_values_first(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    return np.dot(values, weights), weights


@answer("attention_row", kind="variant", expect="shape slip",
        note="np.matmul(weights, np.transpose(values))")
def var_attention_row_matmul_values_transposed(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = _own_softmax(scores)
    output = np.matmul(weights, np.transpose(values))
    return output, weights


# -- broadcast slip
@answer("attention_row", kind="variant", expect="broadcast slip",
        note="np.multiply(weights, values) without a new axis, summed over axis 0")
def var_attention_row_multiply_no_new_axis(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    return np.sum(np.multiply(weights, values), axis=0), weights


@answer("attention_row", kind="variant", expect="broadcast slip",
        note="values * weights (values first), then the sum over the keys")
def var_attention_row_values_times_weights(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = _own_softmax(scores)
    weighted = values * weights
    return weighted.sum(0), weights


# -- not normalised
@answer("attention_row", kind="variant", expect="not normalised",
        note="exp of the scores as weights, output as values.T @ weights")
def var_attention_row_exp_weights_transposed_product(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = np.exp(scores)
    return values.T @ weights, weights


@answer("attention_row", kind="variant", expect="not normalised",
        note="exp of each score in a comprehension, no division")
def var_attention_row_exp_comprehension(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = np.array([np.exp(s) for s in scores])
    output = np.einsum("t,td->d", weights, values)
    return output, weights


# -- no max shift
@answer("attention_row", kind="variant", expect="no max shift",
        note="an inner softmax helper without the max shift")
def var_attention_row_inner_softmax_no_shift(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)

    def softmax(z):
        return np.exp(z) / np.sum(np.exp(z))

    weights = softmax(scores)
    return weights @ values, weights


@answer("attention_row", kind="variant", expect="no max shift",
        note="exp / sum without the shift, output as values.T @ weights")
def var_attention_row_no_shift_transposed_product(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    e = np.exp(scores)
    weights = e / e.sum()
    output = values.T @ weights
    return output, weights


# ---------------------------------------------------------------------------- scores_for_third_value
# (its mistakes are properties of the three scores the learner returns)
@answer("scores_for_third_value", kind="variant", expect="equal scores", note="all three scores the same")
def var_third_value_all_equal():
    score = 5.0
    return [score, score, score]


@answer("scores_for_third_value", kind="variant", expect="equal scores", note="zeros as a numpy array")
def var_third_value_zeros_array():
    return np.zeros(3)


@answer("scores_for_third_value", kind="variant", expect="tie for largest", note="third ties with the second")
def var_third_value_tie():
    return np.array([0.0, 4.0, 4.0])


@answer("scores_for_third_value", kind="variant", expect="tie for largest", note="third ties with the first, as a tuple")
def var_third_value_tie_first():
    return (10, 1, 10)


@answer("attention_row", kind="variant", expect="no exp", note="a learner's trial: the raw scores over their sum as weights")
def row_scores_over_their_sum(scores, values):
    weights = scores / np.sum(scores)
    return weights @ values, weights
