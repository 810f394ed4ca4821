"""More wrong answers to notebook 01 (softmax, attention_row, scores_for_third_value), issue 24.

Written from the notebook's exercise texts before reading the checkers, as a new learner would, and
from the mistakes earlier learner trials found. ``kind="other"`` unless the mistake is one the
checker already names (then ``kind="variant"``).
"""
import numpy as np

import course_utils as cu
from learner_answers import answer


# ============================================================================ my_softmax(x)
@answer("softmax", note="subtracts the max in place: np.asarray does not copy a float array, so the caller's x changes")
def more_softmax_in_place(x):
    x = np.asarray(x, dtype=float)
    x -= x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


@answer("softmax", note="powers of 2 instead of e")
def more_softmax_base_two(x):
    x = np.asarray(x, dtype=float)
    p = 2.0 ** (x - x.max(axis=-1, keepdims=True))
    return p / p.sum(axis=-1, keepdims=True)


@answer("softmax", expect="softmax over the whole array", note="per-row shift, but divides by the sum of the whole array (2-D rows sum to less than one)")
def more_softmax_row_shift_total_sum(x):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum()


@answer("softmax", note="a sigmoid of each score (no normalisation over the row)")
def more_softmax_sigmoid(x):
    x = np.asarray(x, dtype=float)
    return 1.0 / (1.0 + np.exp(-x))


@answer("softmax", note="written for 2-D input: a loop over the rows, a 1-D row is taken as numbers")
def more_softmax_loop_rows_2d_only(x):
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        row = x[i] - np.max(x[i])
        out[i] = np.exp(row) / np.sum(np.exp(row))
    return out


@answer("softmax", note="exp of the shifted scores divided by the row's largest exp plus one")
def more_softmax_divide_by_largest_plus_one(x):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / (1.0 + e.max(axis=-1, keepdims=True))


# ============================================================================ my_attention_row(scores, values)
@answer("attention_row", expect="no exp", note="earlier trial: 'softmax' as scores / scores.sum(), no exp")
def more_row_scores_over_sum(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = scores / scores.sum()
    return weights @ values, weights


@answer("attention_row", kind="variant", expect="no max shift",
        note="earlier trial: own softmax without the max shift, nan on large scores")
def more_row_own_softmax_no_shift(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    e = np.exp(scores)
    weights = e / np.sum(e)
    output = np.zeros(values.shape[1])
    for t in range(len(scores)):
        output += weights[t] * values[t]
    return output, weights


@answer("attention_row", note="weights times values summed over the value axis: one number per key")
def more_row_sum_wrong_axis(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    return (weights[:, None] * values).sum(axis=1), weights


@answer("attention_row", note="loop over the keys starts at 1 (skips the first key's value)")
def more_row_loop_from_one(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = np.zeros(values.shape[-1])
    for t in range(1, len(weights)):
        output = output + weights[t] * values[t]
    return output, weights


@answer("attention_row", note="softmax of the values instead of the scores")
def more_row_softmax_of_values(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    return (cu.softmax(values, axis=0) * values).sum(axis=0), weights


@answer("attention_row", note="mean of the weighted values instead of their sum")
def more_row_mean(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    return (weights[:, None] * values).mean(axis=0), weights


# ============================================================================ my_scores_for_third_value()
@answer("scores_for_third_value", expect="gap too small", note="0, 1, 2: the third is largest but gets about 67 %")
def more_third_counting():
    return [0, 1, 2]


@answer("scores_for_third_value", note="'100 %' by an infinite score: the softmax gives nan")
def more_third_infinite():
    return [0.0, 0.0, np.inf]


@answer("scores_for_third_value", note="only the third key's score")
def more_third_one_number():
    return 5.0


@answer("scores_for_third_value", expect="gap too small", note="0, 0, 2.5: about 86 %, short of 90 %")
def more_third_almost():
    return np.array([0.0, 0.0, 2.5])


@answer("scores_for_third_value", expect="third not largest", note="puts the weight on the first key (counts from the right)")
def more_third_reversed():
    return [4.0, 0.0, 0.0]


@answer("scores_for_third_value", note="four scores, one for each position of the ticket")
def more_third_four_scores():
    return [0.0, 0.0, 4.0, 0.0]
