"""Plausible wrong answers to notebook 05 (plot_diagnoses, contributions, removal_effects, capstone_layer).

Written as beginner learners would write them, independently of the checkers' mistake tables
(the precision set: ``kind="other"``). Each function is one complete, wrong attempt.
"""
import numpy as np

import course_utils as cu
from learner_answers import answer

# --------------------------------------------------------------------------------------------
# Exercise 1 · my_plot_diagnoses()
# --------------------------------------------------------------------------------------------

@answer("plot_diagnoses", note="misses P's small off-by-one leak: two plots 'looks fine'")
def diagnoses_two_look_fine():
    return {
        "P": "looks fine",
        "Q": "one-hot rows",
        "R": "padding leak",
        "S": "looks fine",
        "T": "diagonal",
        "U": "uniform rows",
    }


@answer("plot_diagnoses", note="reads R (left padding) as fine and S as the padding leak")
def diagnoses_R_and_S_swapped():
    return {
        "P": "future leak",
        "Q": "one-hot rows",
        "R": "looks fine",
        "S": "padding leak",
        "T": "diagonal",
        "U": "uniform rows",
    }


@answer("plot_diagnoses", note="calls the one-hot plot Q 'diagonal' and T 'one-hot rows'")
def diagnoses_Q_and_T_swapped():
    return {
        "P": "future leak",
        "Q": "diagonal",
        "R": "padding leak",
        "S": "looks fine",
        "T": "one-hot rows",
        "U": "uniform rows",
    }


@answer("plot_diagnoses", note="reads the <pad> rows of P: calls P 'uniform rows'")
def diagnoses_P_uniform_from_pad_rows():
    return {
        "P": "uniform rows",
        "Q": "one-hot rows",
        "R": "padding leak",
        "S": "looks fine",
        "T": "diagonal",
        "U": "uniform rows",
    }


@answer("plot_diagnoses", note="calls the left-padded plot R a future leak")
def diagnoses_R_future_leak():
    return {
        "P": "future leak",
        "Q": "one-hot rows",
        "R": "future leak",
        "S": "looks fine",
        "T": "diagonal",
        "U": "uniform rows",
    }


@answer("plot_diagnoses", note="U's uniform rows taken as a healthy causal plot")
def diagnoses_U_looks_fine():
    return {
        "P": "future leak",
        "Q": "one-hot rows",
        "R": "padding leak",
        "S": "uniform rows",
        "T": "diagonal",
        "U": "looks fine",
    }


@answer("plot_diagnoses", note="T (a diagonal) read as one-hot rows: both plots one-hot")
def diagnoses_T_one_hot():
    return {
        "P": "future leak",
        "Q": "one-hot rows",
        "R": "padding leak",
        "S": "looks fine",
        "T": "one-hot rows",
        "U": "uniform rows",
    }


@answer("plot_diagnoses", note="only fills in the plots it was sure about")
def diagnoses_incomplete():
    return {
        "Q": "one-hot rows",
        "T": "diagonal",
        "U": "uniform rows",
    }


@answer("plot_diagnoses", note="P read as a padding leak (rows of <pad> queries spread weight)")
def diagnoses_P_padding():
    return {
        "P": "padding leak",
        "Q": "one-hot rows",
        "R": "padding leak",
        "S": "looks fine",
        "T": "diagonal",
        "U": "uniform rows",
    }


# --------------------------------------------------------------------------------------------
# Exercise 2 · my_contributions(weights, values)
# --------------------------------------------------------------------------------------------

@answer("contributions", kind="variant", expect="summed too early", note="returns the sum of the contributions (the output)")
def contributions_summed(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return weights @ values


@answer("contributions", kind="variant", expect="weights along the wrong axis", note="weights * values without a column axis (broadcasts over columns)")
def contributions_no_column(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return weights * values


@answer("contributions", kind="variant", expect="norms instead of vectors", note="returns the length of each contribution, |w_j v_j|")
def contributions_norms(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return np.linalg.norm(weights[:, None] * values, axis=1)


@answer("contributions", kind="variant", expect="transposed", note="transposed result: (d_v, T)")
def contributions_transposed(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return values.T * weights


@answer("contributions", note="running sum (cumsum) of the contributions")
def contributions_cumsum(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return np.cumsum(weights[:, None] * values, axis=0)


@answer("contributions", note="applies softmax to the weights again")
def contributions_softmax_again(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    w = cu.softmax(weights)
    return w[:, None] * values


@answer("contributions", note="outer product: every weight times every value")
def contributions_outer(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return np.outer(weights, values)


@answer("contributions", note="loop that multiplies by the weight of the previous key (off by one)")
def contributions_loop_off_by_one(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    out = np.zeros_like(values)
    for j in range(len(weights)):
        out[j] = weights[j - 1] * values[j]
    return out


@answer("contributions", note="absolute values of the contributions (sizes, like the |contribution| column)")
def contributions_absolute(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return np.abs(weights[:, None] * values)


@answer("contributions", note="drops the masked keys (weight 0) from the result")
def contributions_drop_masked(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    keep = weights > 0
    return weights[keep][:, None] * values[keep]


@answer("contributions", note="sorts the rows by weight, largest first, like the notebook's table")
def contributions_sorted(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    order = np.argsort(-weights)
    return weights[order][:, None] * values[order]


# --------------------------------------------------------------------------------------------
# Exercise 3 · my_removal_effects(scores, values)
# --------------------------------------------------------------------------------------------

@answer("removal_effects", kind="variant", expect="not renormalised", note="zeroes the key's weight without renormalising")
def removal_no_renormalise(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = weights @ values
    effects = []
    for j in range(len(scores)):
        w = weights.copy()
        w[j] = 0.0
        effects.append(np.linalg.norm(output - w @ values))
    return np.array(effects)


@answer("removal_effects", kind="variant", expect="score set to 0", note="sets the removed score to 0 instead of -inf")
def removal_score_zero(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output = cu.softmax(scores) @ values
    effects = np.zeros(len(scores))
    for j in range(len(scores)):
        s = scores.copy()
        s[j] = 0.0
        effects[j] = np.linalg.norm(output - cu.softmax(s) @ values)
    return effects


@answer("removal_effects", kind="variant", expect="squared norm", note="squared norm of the change")
def removal_squared_norm(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output = cu.softmax(scores) @ values
    effects = np.zeros(len(scores))
    for j in range(len(scores)):
        s = scores.copy()
        s[j] = -np.inf
        diff = output - cu.softmax(s) @ values
        effects[j] = np.sum(diff ** 2)
    return effects


@answer("removal_effects", kind="variant", expect="signed difference", note="returns the change vectors (T, d_v), not their lengths")
def removal_change_vectors(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output = cu.softmax(scores) @ values
    changes = []
    for j in range(len(scores)):
        s = scores.copy()
        s[j] = -np.inf
        changes.append(output - cu.softmax(s) @ values)
    return np.array(changes)


@answer("removal_effects", note="no copy: masks in place, so removals pile up")
def removal_in_place(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output = cu.softmax(scores) @ values
    effects = np.zeros(len(scores))
    masked = scores                       # "a copy"
    for j in range(len(scores)):
        masked[j] = -np.inf
        effects[j] = np.linalg.norm(output - cu.softmax(masked) @ values)
    return effects


@answer("removal_effects", kind="variant", expect="nan in an empty row", note="closed form w/(1-w)*|v-o|: inf/nan when a key has all the weight")
def removal_closed_form(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = weights @ values
    with np.errstate(divide="ignore", invalid="ignore"):
        return weights / (1 - weights) * np.linalg.norm(values - output, axis=1)


@answer("removal_effects", kind="variant", expect="nan in an empty row", note="own softmax with max shift: NaN when nothing is left")
def removal_own_softmax(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)

    def softmax(s):
        e = np.exp(s - s.max())
        return e / e.sum()

    output = softmax(scores) @ values
    effects = np.zeros(len(scores))
    with np.errstate(invalid="ignore"):
        for j in range(len(scores)):
            s = scores.copy()
            s[j] = -np.inf
            effects[j] = np.linalg.norm(output - softmax(s) @ values)
    return effects


@answer("removal_effects", kind="variant", expect="other norm", note="L1 distance (sum of absolute differences) instead of the norm")
def removal_l1(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output = cu.softmax(scores) @ values
    effects = np.zeros(len(scores))
    for j in range(len(scores)):
        s = scores.copy()
        s[j] = -np.inf
        effects[j] = np.abs(output - cu.softmax(s) @ values).sum()
    return effects


@answer("removal_effects", note="measures how much the weights change, not the output")
def removal_weight_change(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    effects = np.zeros(len(scores))
    for j in range(len(scores)):
        s = scores.copy()
        s[j] = -np.inf
        effects[j] = np.linalg.norm(weights - cu.softmax(s))
    return effects


@answer("removal_effects", kind="variant", expect="large negative number in an empty row", note="removes with -1e9: a single key can never be removed")
def removal_big_negative(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output = cu.softmax(scores) @ values
    effects = np.zeros(len(scores))
    for j in range(len(scores)):
        s = scores.copy()
        s[j] = -1e9
        effects[j] = np.linalg.norm(output - cu.softmax(s) @ values)
    return effects


@answer("removal_effects", note="loop stops one key early: range(len(scores) - 1)")
def removal_loop_off_by_one(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output = cu.softmax(scores) @ values
    effects = np.zeros(len(scores))
    for j in range(len(scores) - 1):
        s = scores.copy()
        s[j] = -np.inf
        effects[j] = np.linalg.norm(output - cu.softmax(s) @ values)
    return effects


@answer("removal_effects", note="deletes the key's score but keeps all the values (misaligned)")
def removal_delete_score_only(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output = cu.softmax(scores) @ values
    effects = np.zeros(len(scores))
    for j in range(len(scores)):
        rest = np.delete(scores, j)
        w = cu.softmax(rest)
        effects[j] = np.linalg.norm(output - w @ values[: len(w)])
    return effects


@answer("removal_effects", note="renormalises with a softmax of the remaining *weights* (np.delete), not of the scores")
def removal_softmax_of_weights(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    output = weights @ values
    effects = np.zeros(len(scores))
    for j in range(len(scores)):
        w = cu.softmax(np.delete(weights, j))
        effects[j] = np.linalg.norm(output - w @ np.delete(values, j, axis=0))
    return effects


@answer("removal_effects", note="relative change: divides by the length of the output")
def removal_relative(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output = cu.softmax(scores) @ values
    effects = np.zeros(len(scores))
    for j in range(len(scores)):
        s = scores.copy()
        s[j] = -np.inf
        effects[j] = np.linalg.norm(output - cu.softmax(s) @ values) / np.linalg.norm(output)
    return effects


@answer("removal_effects", note="normalises the effects to sum to 1, to compare them with the weights")
def removal_normalised_to_one(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output = cu.softmax(scores) @ values
    effects = np.zeros(len(scores))
    for j in range(len(scores)):
        s = scores.copy()
        s[j] = -np.inf
        effects[j] = np.linalg.norm(output - cu.softmax(s) @ values)
    return effects / effects.sum()


# --------------------------------------------------------------------------------------------
# Capstone · my_capstone_layer(x, lengths, w_q, w_k, w_v, w_o, num_heads)
# --------------------------------------------------------------------------------------------

def _heads(x, w_q, w_k, w_v, num_heads):
    return (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))


@answer("capstone_layer", kind="variant", expect="padding on the queries", note="padding mask on the queries (rows) instead of the keys")
def capstone_padding_on_queries(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    pos = np.arange(T)
    causal = pos[None, :] <= pos[:, None]
    real = pos[None, :] < lengths[:, None]
    mask = causal[None, :, :] & real[:, :, None]          # (B, T, 1): the query rows
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    scores = np.where(mask[:, None], scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="combined with or", note="combines the masks with | instead of &")
def capstone_or_masks(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    pos = np.arange(T)
    causal = pos[None, :] <= pos[:, None]
    real_keys = pos[None, :] < lengths[:, None]
    mask = causal[None] | real_keys[:, None, :]
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    weights = cu.softmax(np.where(mask[:, None], scores, -np.inf))
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="sqrt of d_model", note="divides by sqrt(d_model) instead of sqrt(d_head)")
def capstone_scale_dmodel(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    pos = np.arange(T)
    mask = (pos[None, :] <= pos[:, None])[None] & (pos[None, :] < lengths[:, None])[:, None, :]
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_model)
    weights = cu.softmax(np.where(mask[:, None], scores, -np.inf))
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="nan in an empty row", note="own softmax: NaN for the ticket of length 0")
def capstone_nan_empty_ticket(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    pos = np.arange(T)
    mask = (pos[None, :] <= pos[:, None])[None] & (pos[None, :] < lengths[:, None])[:, None, :]
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = np.where(mask[:, None], q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    with np.errstate(invalid="ignore"):
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights = e / e.sum(axis=-1, keepdims=True)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="cannot see itself", note="causal mask with < (no token sees itself)")
def capstone_causal_strict(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    pos = np.arange(T)
    causal = pos[None, :] < pos[:, None]
    real_keys = pos[None, :] < lengths[:, None]
    mask = (causal[None] & real_keys[:, None, :])[:, None]
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    has_key = mask.any(axis=-1, keepdims=True)
    weights = np.where(has_key, cu.softmax(scores), 0.0)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", note="key padding with <= lengths (one <pad> key too many)")
def capstone_padding_off_by_one(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    pos = np.arange(T)
    causal = pos[None, :] <= pos[:, None]
    real_keys = pos[None, :] <= lengths[:, None]
    mask = (causal[None] & real_keys[:, None, :])[:, None]
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="mask without a head axis", note="(B, T, T) mask used without a head axis")
def capstone_mask_no_head_axis(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    pos = np.arange(T)
    mask = (pos[None, :] <= pos[:, None])[None] & (pos[None, :] < lengths[:, None])[:, None, :]
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="no output projection", note="forgot the output projection w_o")
def capstone_no_wo(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    pos = np.arange(T)
    mask = ((pos[None, :] <= pos[:, None])[None] & (pos[None, :] < lengths[:, None])[:, None, :])[:, None]
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v), weights


@answer("capstone_layer", kind="variant", expect="large negative number in an empty row", note="masks with -1e9: a length-0 ticket gets uniform weights")
def capstone_big_negative(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    pos = np.arange(T)
    mask = ((pos[None, :] <= pos[:, None])[None] & (pos[None, :] < lengths[:, None])[:, None, :])[:, None]
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -1e9)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="future instead of past", note="causal part built with np.triu (upper triangle)")
def capstone_triu(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    causal = np.triu(np.ones((T, T), dtype=bool))
    real_keys = np.arange(T)[None, :] < lengths[:, None]
    mask = (causal[None] & real_keys[:, None, :])[:, None]
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="weights averaged over heads", note="returns the weights averaged over the heads, (B, T, T)")
def capstone_average_heads(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    pos = np.arange(T)
    mask = ((pos[None, :] <= pos[:, None])[None] & (pos[None, :] < lengths[:, None])[:, None, :])[:, None]
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights.mean(axis=1)


@answer("capstone_layer", note="own split_heads by plain reshape (no swap)")
def capstone_reshape_split(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    d_head = d_model // num_heads
    pos = np.arange(T)
    mask = ((pos[None, :] <= pos[:, None])[None] & (pos[None, :] < lengths[:, None])[:, None, :])[:, None]
    q = (x @ w_q).reshape(B, num_heads, T, d_head)
    k = (x @ w_k).reshape(B, num_heads, T, d_head)
    v = (x @ w_v).reshape(B, num_heads, T, d_head)
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head), -np.inf)
    weights = cu.softmax(scores)
    return (weights @ v).reshape(B, T, d_model) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="mask after the softmax",
        note="zeroes the blocked weights after the softmax (a known mistake since a new learner met it)")
def capstone_mask_after_softmax(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    pos = np.arange(T)
    mask = ((pos[None, :] <= pos[:, None])[None] & (pos[None, :] < lengths[:, None])[:, None, :])[:, None]
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    weights = cu.softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])) * mask
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="causal only", note="causal mask only: forgot the key padding mask")
def capstone_causal_only(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    causal = np.tril(np.ones((T, T), dtype=bool))
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = np.where(causal, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", note="key padding as np.arange(T) < lengths (no [:, None]): one row for all tickets")
def capstone_lengths_without_axis(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    pos = np.arange(T)
    causal = pos[None, :] <= pos[:, None]                   # (T, T)
    real_keys = pos[None, :] < lengths                      # (B, T)
    mask = (causal[None] & real_keys[:, None, :])[:, None]  # (B, 1, T, T)
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="softmax over the wrong axis", note="softmax over axis -2 (the queries)")
def capstone_softmax_queries(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    pos = np.arange(T)
    mask = ((pos[None, :] <= pos[:, None])[None] & (pos[None, :] < lengths[:, None])[:, None, :])[:, None]
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    weights = cu.softmax(scores, axis=-2)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", note="adds the residual x to the output (transformer-block habit)")
def capstone_residual(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    pos = np.arange(T)
    mask = ((pos[None, :] <= pos[:, None])[None] & (pos[None, :] < lengths[:, None])[:, None, :])[:, None]
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    weights = cu.softmax(scores)
    return x + cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", note="finds the padding from all-zero embeddings in x instead of using lengths")
def capstone_padding_from_zero_rows(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    pos = np.arange(T)
    causal = pos[None, :] <= pos[:, None]
    real_keys = np.any(x != 0, axis=-1)                     # (B, T): a <pad> embedding is all zeros
    mask = (causal[None] & real_keys[:, None, :])[:, None]
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights
