"""Plausible wrong answers to notebook 01 (softmax, attention_row, scores_for_third_value).

Written as beginner learners would write them, independently of the checkers' mistake tables
(the precision set: ``kind="other"``). Each function is one complete, wrong attempt.
"""
import numpy as np

import course_utils as cu
from learner_answers import answer

# --------------------------------------------------------------------------------------------
# Exercise 1 · my_softmax(x)
# --------------------------------------------------------------------------------------------

@answer("softmax", kind="variant", expect="no max shift", note="textbook formula, no shift: overflows to nan on [1000, 999, 998]")
def softmax_no_shift(x):
    x = np.asarray(x, dtype=float)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


@answer("softmax", kind="variant", expect="softmax over the whole array", note="shifts by the max of the whole array and sums the whole array (2-D wrong)")
def softmax_whole_array(x):
    x = np.asarray(x, dtype=float)
    exps = np.exp(x - np.max(x))
    return exps / np.sum(exps)


@answer("softmax", kind="variant", expect="softmax over the wrong axis", note="normalises along axis 0 (columns) instead of the last axis")
def softmax_axis_zero(x):
    x = np.asarray(x, dtype=float)
    shifted = x - x.max(axis=0, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=0, keepdims=True)


@answer("softmax", note="returns the log-softmax (forgot to exponentiate at the end)")
def softmax_log_domain(x):
    x = np.asarray(x, dtype=float)
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


@answer("softmax", note="shifted numerator but unshifted denominator")
def softmax_inconsistent_shift(x):
    x = np.asarray(x, dtype=float)
    m = x.max(axis=-1, keepdims=True)
    top = np.exp(x - m)
    bottom = np.exp(x).sum(axis=-1, keepdims=True)
    return top / bottom


@answer("softmax", note="divides the scores by the largest score instead of subtracting it")
def softmax_divide_scores_by_max(x):
    x = np.asarray(x, dtype=float)
    scaled = x / np.abs(x).max(axis=-1, keepdims=True)
    e = np.exp(scaled)
    return e / e.sum(axis=-1, keepdims=True)


@answer("softmax", note="clips the scores to +-500 to avoid overflow instead of shifting")
def softmax_clip_scores(x):
    x = np.asarray(x, dtype=float)
    x = np.clip(x, -500, 500)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


@answer("softmax", kind="variant", expect="missing keepdims", note="max and sum along the last axis but without keepdims")
def softmax_no_keepdims(x):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=-1))
    return e / e.sum(axis=-1)


@answer("softmax", note="rounds the weights to 3 decimals, like the notebook's printout")
def softmax_rounded(x):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return np.round(e / e.sum(axis=-1, keepdims=True), 3)


@answer("softmax", note="python loop over the scores: only works on 1-D rows")
def softmax_python_loop(x):
    x = np.asarray(x, dtype=float)
    if x.ndim == 2:
        # a 2-D input: the learner "flattens it to be safe"
        x = x.ravel()
    largest = max(x)
    exps = [np.exp(s - largest) for s in x]
    total = sum(exps)
    return np.array([e / total for e in exps])


@answer("softmax", note="confuses softmax with the sigmoid: 1 / (1 + exp(-x)) per score")
def softmax_sigmoid(x):
    x = np.asarray(x, dtype=float)
    return 1.0 / (1.0 + np.exp(-x))


@answer("softmax", note="shifts in place with x -= max: changes the caller's array")
def softmax_shift_in_place(x):
    x = np.asarray(x, dtype=float)
    x -= x.max(axis=-1, keepdims=True)      # "saves memory"
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


@answer("softmax", note="shifts by each column's max (axis=0) but normalises each row")
def softmax_column_max_shift(x):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@answer("softmax", note="reshape(-1, 1) instead of keepdims: a 1-D row comes back 2-D")
def softmax_reshape_column(x):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=-1).reshape(-1, 1))
    return e / e.sum(axis=-1).reshape(-1, 1)


# --------------------------------------------------------------------------------------------
# Exercise 2 · my_attention_row(scores, values)
# --------------------------------------------------------------------------------------------

@answer("attention_row", kind="variant", expect="swapped outputs", note="returns (weights, output) instead of (output, weights)")
def attention_row_swapped_return(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = weights @ values
    return weights, output


@answer("attention_row", note="multiplies each value by its weight but never sums over keys")
def attention_row_no_sum(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = weights[:, None] * values
    return output, weights


@answer("attention_row", note="returns the raw scores as the weights")
def attention_row_returns_scores(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    return weights @ values, scores


@answer("attention_row", note="sums the weighted values over the value axis instead of the keys")
def attention_row_sum_wrong_axis(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = (weights[:, None] * values).sum(axis=1)
    return output, weights


@answer("attention_row", kind="variant", expect="no softmax", note="mixes the values with the scores, not the softmax weights")
def attention_row_mix_with_scores(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = scores @ values
    return output, weights


@answer("attention_row", kind="variant", expect="unweighted sum", note="output is the plain average of the values (weights computed, unused)")
def attention_row_plain_average(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = np.mean(values, axis=0)
    return output, weights


@answer("attention_row", note="keeps a batch axis: output shape (1, d_v)")
def attention_row_keeps_row_axis(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores[None, :])         # "softmax wants 2-D"
    output = weights @ values
    return output, weights[0]


@answer("attention_row", note="divides the output by the number of keys (an extra average)")
def attention_row_divides_by_T(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = weights @ values / len(scores)
    return output, weights


@answer("attention_row", note="hard attention: picks the value of the best key (argmax)")
def attention_row_argmax(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = values[np.argmax(weights)]
    return output, weights


@answer("attention_row", note="loop over the keys from 1 (maths-style indexing): skips the first key")
def attention_row_loop_from_one(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = np.zeros(values.shape[1])
    for i in range(1, len(scores)):
        output += weights[i] * values[i]
    return output, weights


@answer("attention_row", note="divides the scores by sqrt(number of keys) before the softmax")
def attention_row_scaled_by_T(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores / np.sqrt(len(scores)))
    output = weights @ values
    return output, weights


# --------------------------------------------------------------------------------------------
# Exercise 3 · my_scores_for_third_value()
# --------------------------------------------------------------------------------------------

@answer("scores_for_third_value", kind="variant", expect="gap too small", note="gap of 2: only about 79% on the third key")
def third_value_gap_two():
    return [0.0, 0.0, 2.0]


@answer("scores_for_third_value", kind="variant", expect="gap too small", note="increasing scores 1, 2, 3: about 67% on the third key")
def third_value_increasing():
    return [1.0, 2.0, 3.0]


@answer("scores_for_third_value", kind="variant", expect="returned weights", note="writes the desired weights instead of scores")
def third_value_gives_weights():
    return [0.05, 0.05, 0.9]


@answer("scores_for_third_value", kind="variant", expect="third not largest", note="puts the large score on the first key")
def third_value_first_key():
    return [3.0, 0.0, 0.0]


@answer("scores_for_third_value", kind="variant", expect="gap too small", note="large scores, but the gap is still only 2")
def third_value_big_but_close():
    return [10.0, 10.0, 12.0]


@answer("scores_for_third_value", kind="variant", expect="gap too small", note="uneven other scores: 0, 1, 3 gives about 84%")
def third_value_uneven_others():
    return [0.0, 1.0, 3.0]


@answer("scores_for_third_value", kind="variant", expect="gap too small", note="solved e^g/(1+e^g) >= 0.9 (forgot one key): g = ln 9")
def third_value_forgot_a_key():
    g = np.log(9)                  # 2.197...
    return [0.0, 0.0, g]


@answer("scores_for_third_value", note="returns only two scores")
def third_value_two_scores():
    return [0.0, 5.0]


@answer("scores_for_third_value", note="a 2-D array: one row of three scores, shape (1, 3)")
def third_value_row_matrix():
    return np.array([[0.0, 0.0, 3.0]])


@answer("scores_for_third_value", note="four numbers: one score too many")
def third_value_four_scores():
    return [0.0, 0.0, 3.0, 0.0]


@answer("scores_for_third_value", note="a dict of named scores instead of a list")
def third_value_dict():
    return {"key 1": 0.0, "key 2": 0.0, "key 3": 3.0}


@answer("scores_for_third_value", note="the scores typed as strings")
def third_value_strings():
    return ["0", "0", "3"]


@answer("scores_for_third_value", note="'switches off' the other two keys with -inf")
def third_value_minus_inf_others():
    return [-np.inf, -np.inf, 0.0]


@answer("scores_for_third_value", kind="variant", expect="returned weights", note="returns the softmax of good scores (the weights), not the scores")
def third_value_softmax_of_scores():
    scores = np.array([0.0, 0.0, 3.0])
    return cu.softmax(scores)


@answer("scores_for_third_value", note="prints the scores instead of returning them")
def third_value_prints():
    print([0.0, 0.0, 3.0])
