"""More wrong answers to notebook 05 (plot_diagnoses, contributions, removal_effects, capstone_layer), issue 24.

Written from the notebook's exercise texts before reading the checkers, as a new learner would, and
from the mistakes earlier learner trials found. ``kind="other"`` unless the mistake is one the
checker already names (then ``kind="variant"``).
"""
import numpy as np

import course_utils as cu
from learner_answers import answer

#: Answers this module's checkers get wrong today (issue 24), by answer id, with what goes wrong. The
#: precision test runs them as xfail(strict=True): it fails once a fix lands, and the entry must go.
KNOWN_GAPS = {}

_RIGHT = {"P": "future leak", "Q": "one-hot rows", "R": "padding leak", "S": "looks fine", "T": "diagonal",
          "U": "uniform rows"}


# ============================================================================ my_plot_diagnoses()
@answer("plot_diagnoses", note="short diagnosis words ('future', 'padding') instead of the six strings")
def more_diagnoses_short_words():
    return {**_RIGHT, "P": "future", "R": "padding"}



@answer("plot_diagnoses", note="forgot plot U")
def more_diagnoses_missing_u():
    return {key: value for key, value in _RIGHT.items() if key != "U"}


@answer("plot_diagnoses", note="calls the future leak P a padding leak")
def more_diagnoses_p_padding():
    return {**_RIGHT, "P": "padding leak"}


@answer("plot_diagnoses", note="calls the fine plot S a future leak (the lower triangle looks 'full')")
def more_diagnoses_s_future():
    return {**_RIGHT, "S": "future leak"}


# ============================================================================ my_contributions(weights, values)
@answer("contributions", note="np.outer(weights, values): (T, T * d_v)")
def more_contrib_outer(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return np.outer(weights, values)


@answer("contributions", note="loop into np.zeros_like(weights): a (T,) array cannot hold a row")
def more_contrib_zeros_like_weights(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    out = np.zeros_like(weights)
    for j in range(len(weights)):
        out[j] = weights[j] * values[j]
    return out


@answer("contributions", note="loop into an int array: every contribution truncated to an integer")
def more_contrib_int_array(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    out = np.zeros(values.shape, dtype=int)
    for j in range(len(weights)):
        out[j] = weights[j] * values[j]
    return out


@answer("contributions", note="multiplies by the weight twice (weights squared)")
def more_contrib_weights_squared(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return (weights ** 2)[:, None] * values


@answer("contributions", note="contributions as fractions of the output (divides by the output)")
def more_contrib_fraction_of_output(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    contrib = weights[:, None] * values
    return contrib / contrib.sum(axis=0)


# ============================================================================ my_removal_effects(scores, values)
@answer("removal_effects", note="earlier trial: the effects sorted (largest first) instead of by key")
def more_removal_sorted(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output = cu.softmax(scores) @ values
    effects = []
    for j in range(len(scores)):
        masked = scores.copy()
        masked[j] = -np.inf
        effects.append(np.linalg.norm(output - cu.softmax(masked) @ values))
    return np.array(sorted(effects, reverse=True))


@answer("removal_effects", note="earlier trial: one copy made outside the loop: removals pile up")
def more_removal_copy_outside_loop(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output = cu.softmax(scores) @ values
    effects = np.zeros(len(scores))
    masked = scores.copy()
    for j in range(len(scores)):
        masked[j] = -np.inf
        effects[j] = np.linalg.norm(output - cu.softmax(masked) @ values)
    return effects


@answer("removal_effects", note="no copy at all: masks the caller's scores in place, removals pile up")
def more_removal_no_copy(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output = cu.softmax(scores) @ values
    effects = np.zeros(len(scores))
    for j in range(len(scores)):
        masked = scores
        masked[j] = -np.inf
        effects[j] = np.linalg.norm(output - cu.softmax(masked) @ values)
    return effects


@answer("removal_effects", note="the norm of the output without the key, not of the change")
def more_removal_norm_of_new_output(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    effects = np.zeros(len(scores))
    for j in range(len(scores)):
        masked = scores.copy()
        masked[j] = -np.inf
        effects[j] = np.linalg.norm(cu.softmax(masked) @ values)
    return effects


@answer("removal_effects", note="the effects normalised to sum to one")
def more_removal_normalised(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output = cu.softmax(scores) @ values
    effects = np.zeros(len(scores))
    for j in range(len(scores)):
        masked = scores.copy()
        masked[j] = -np.inf
        effects[j] = np.linalg.norm(output - cu.softmax(masked) @ values)
    return effects / effects.sum()


# ============================================================================ my_capstone_layer(...)
def _layer(x, lengths, w_q, w_k, w_v, w_o, num_heads, mask, *, guard=True):
    """The rest of a correct layer, given the learner's (B, 1, T, T) mask."""
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    weights = cu.softmax(scores)
    if guard:
        weights = np.where(np.any(mask, axis=-1, keepdims=True), weights, 0.0)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", note="earlier trial: key padding off by one via a loop, mask[b, :n + 1] = True")
def more_capstone_padding_loop_plus_one(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, _ = x.shape
    real = np.zeros((B, T), dtype=bool)
    for b in range(B):
        real[b, :lengths[b] + 1] = True
    causal = np.tril(np.ones((T, T), dtype=bool))
    mask = (causal[None] & real[:, None, :])[:, None]
    return _layer(x, lengths, w_q, w_k, w_v, w_o, num_heads, mask)


@answer("capstone_layer", note="earlier trial: assumes left padding (real tokens at the end)")
def more_capstone_left_padding(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, _ = x.shape
    pos = np.arange(T)
    real = pos[None, :] >= (T - lengths)[:, None]
    causal = pos[None, :] <= pos[:, None]
    mask = (causal[None] & real[:, None, :])[:, None]
    return _layer(x, lengths, w_q, w_k, w_v, w_o, num_heads, mask)


@answer("capstone_layer", expect="future instead of past", note="earlier trial: transposed causal mask (j >= i), built with comparisons")
def more_capstone_causal_transposed(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, _ = x.shape
    pos = np.arange(T)
    causal = pos[None, :] >= pos[:, None]
    real = pos[None, :] < lengths[:, None]
    mask = (causal[None] & real[:, None, :])[:, None]
    return _layer(x, lengths, w_q, w_k, w_v, w_o, num_heads, mask)


@answer("capstone_layer", expect="each token sees only itself", note="earlier trial: causal mask built with np.eye (each token sees only itself)")
def more_capstone_causal_eye(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, _ = x.shape
    real = np.arange(T)[None, :] < lengths[:, None]
    mask = (np.eye(T, dtype=bool)[None] & real[:, None, :])[:, None]
    return _layer(x, lengths, w_q, w_k, w_v, w_o, num_heads, mask)


@answer("capstone_layer", expect="mask without a head axis", note="issue 24: mask[None] gives (1, B, T, T), not (B, 1, T, T)")
def more_capstone_mask_none_front(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, _ = x.shape
    pos = np.arange(T)
    mask = (pos[None, :] <= pos[:, None])[None] & (pos[None, :] < lengths[:, None])[:, None, :]
    return _layer(x, lengths, w_q, w_k, w_v, w_o, num_heads, mask[None])


@answer("capstone_layer", expect="zero then renormalise", note="earlier trial: zeroes the weights after the softmax, then renormalises")
def more_capstone_zero_then_renormalise(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, _ = x.shape
    pos = np.arange(T)
    mask = ((pos[None, :] <= pos[:, None])[None] & (pos[None, :] < lengths[:, None])[:, None, :])[:, None]
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    weights = cu.softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])) * mask
    total = weights.sum(axis=-1, keepdims=True)
    weights = np.where(total > 0, weights / np.where(total > 0, total, 1.0), 0.0)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", note="earlier trial: returns the masked raw scores as the weights")
def more_capstone_raw_scores(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, _ = x.shape
    pos = np.arange(T)
    mask = ((pos[None, :] <= pos[:, None])[None] & (pos[None, :] < lengths[:, None])[:, None, :])[:, None]
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), 0.0)
    return cu.merge_heads(scores @ v) @ w_o, scores


@answer("capstone_layer", expect="weights averaged over heads",
        note="issue 24: splits heads, but returns the weights averaged over the heads")
def more_capstone_weights_mean_heads(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, _ = x.shape
    pos = np.arange(T)
    mask = ((pos[None, :] <= pos[:, None])[None] & (pos[None, :] < lengths[:, None])[:, None, :])[:, None]
    output, weights = _layer(x, lengths, w_q, w_k, w_v, w_o, num_heads, mask)
    return output, weights.mean(axis=1)
