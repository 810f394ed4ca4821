"""Recall set for notebook 05: realistic variants of the known mistakes of check_contributions,
check_removal_effects and check_capstone_layer (``kind="variant"``).

Each function makes exactly one known mistake, written differently from the mutants of
tests/test_checks_reading.py, and reproduces that mistake's result on every case the checker runs.
(check_plot_diagnoses has no mistake table: no variants here.)
"""
import numpy as np

import course_utils as cu
from learner_answers import answer


# ============================================================================ contributions(weights, values)
# -- summed too early
@answer("contributions", kind="variant", expect="summed too early", note="einsum 't,td->d': the output")
def var_contrib_einsum_summed(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return np.einsum("t,td->d", weights, values)


@answer("contributions", kind="variant", expect="summed too early",
        note="loop accumulating weights[j] * values[j] into one vector")
def var_contrib_loop_accumulates(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    total = np.zeros(values.shape[1])
    for j in range(len(weights)):
        total += weights[j] * values[j]
    return total


# -- norms instead of vectors
@answer("contributions", kind="variant", expect="norms instead of vectors",
        note="sqrt of the summed squares of each weighted row")
def var_contrib_row_lengths(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    contrib = weights[:, None] * values
    return np.sqrt((contrib ** 2).sum(axis=1))


@answer("contributions", kind="variant", expect="norms instead of vectors",
        note="loop: weight times the length of its value vector")
def var_contrib_loop_weight_times_norm(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return np.array([w * np.linalg.norm(v) for w, v in zip(weights, values)])


# -- weights along the wrong axis
@answer("contributions", kind="variant", expect="weights along the wrong axis", note="np.multiply(weights, values)")
def var_contrib_np_multiply(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return np.multiply(weights, values)


@answer("contributions", kind="variant", expect="weights along the wrong axis",
        note="weights reshaped to a row (1, T) before multiplying")
def var_contrib_weights_as_row(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return values * weights.reshape(1, -1)


# -- transposed
@answer("contributions", kind="variant", expect="transposed", note="einsum 't,td->dt'")
def var_contrib_einsum_transposed(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return np.einsum("t,td->dt", weights, values)


@answer("contributions", kind="variant", expect="transposed", note="weights * np.transpose(values)")
def var_contrib_times_transposed_values(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return weights * np.transpose(values)


# -- matrix product (recognised by its error only)
@answer("contributions", kind="variant", expect="matrix product",
        note="np.dot of the weights as a column with the values")
def var_contrib_dot_column(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return np.dot(weights.reshape(-1, 1), values)


@answer("contributions", kind="variant", expect="matrix product",
        note="np.matmul(weights[:, np.newaxis], values)")
def var_contrib_matmul_newaxis(weights, values):
    weights, values = np.asarray(weights, dtype=float), np.asarray(values, dtype=float)
    return np.matmul(weights[:, np.newaxis], values)


# ============================================================================ removal_effects(scores, values)
def _outputs_without(scores, values, fill=-np.inf, softmax=cu.softmax):
    """Output with every key, and the output without each key j (its score set to ``fill``)."""
    output = softmax(scores) @ values
    without = []
    for j in range(len(scores)):
        masked = scores.copy()
        masked[j] = fill
        without.append(softmax(masked) @ values)
    return output, np.array(without)


# -- not renormalised
@answer("removal_effects", kind="variant", expect="not renormalised",
        note="length of weights[j] * values[j] in a comprehension")
def var_removal_contribution_lengths(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    weights = cu.softmax(scores)
    return np.array([np.linalg.norm(weights[j] * values[j]) for j in range(len(scores))])


@answer("removal_effects", kind="variant", expect="not renormalised",
        note="weights times sqrt of the summed squares of each value")
def var_removal_weights_times_value_lengths(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    return cu.softmax(scores) * np.sqrt((values ** 2).sum(axis=1))


# -- weight as effect
@answer("removal_effects", kind="variant", expect="weight as effect",
        note="computes the output, returns a copy of the weights")
def var_removal_returns_weights_copy(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output, weights = cu.attention_row(scores, values)  # noqa: F841 - output never used
    return weights.copy()


@answer("removal_effects", kind="variant", expect="weight as effect",
        note="own shifted softmax of the scores as the effects")
def var_removal_own_softmax_weights(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    e = np.exp(scores - scores.max())
    return e / e.sum()


# -- signed difference
@answer("removal_effects", kind="variant", expect="signed difference",
        note="loop collecting output - output_without (vectors)")
def var_removal_loop_signed_vectors(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output = cu.softmax(scores) @ values
    effects = []
    for j in range(len(scores)):
        masked = scores.copy()
        masked[j] = -np.inf
        effects.append(output - cu.softmax(masked) @ values)
    return np.array(effects)


@answer("removal_effects", kind="variant", expect="signed difference",
        note="sum of output_without - output over the coordinates")
def var_removal_signed_sum_reversed(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output, without = _outputs_without(scores, values)
    return np.array([(w - output).sum() for w in without])


# -- difference of norms
@answer("removal_effects", kind="variant", expect="difference of norms",
        note="loop: norm(output) - norm(output_without)")
def var_removal_loop_norm_difference(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output, without = _outputs_without(scores, values)
    effects = np.zeros(len(scores))
    for j in range(len(scores)):
        effects[j] = np.linalg.norm(output) - np.linalg.norm(without[j])
    return effects


@answer("removal_effects", kind="variant", expect="difference of norms",
        note="absolute difference of the two lengths")
def var_removal_abs_norm_difference(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output, without = _outputs_without(scores, values)
    return np.abs(np.linalg.norm(without, axis=1) - np.linalg.norm(output))


# -- squared norm
@answer("removal_effects", kind="variant", expect="squared norm", note="diff @ diff for each key")
def var_removal_dot_with_itself(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output, without = _outputs_without(scores, values)
    effects = []
    for w in without:
        diff = output - w
        effects.append(diff @ diff)
    return np.array(effects)


@answer("removal_effects", kind="variant", expect="squared norm", note="np.linalg.norm(...) ** 2")
def var_removal_norm_squared(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output, without = _outputs_without(scores, values)
    return np.linalg.norm(output - without, axis=1) ** 2


# -- other norm
@answer("removal_effects", kind="variant", expect="other norm", note="np.linalg.norm with ord=1")
def var_removal_ord_1(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output, without = _outputs_without(scores, values)
    return np.array([np.linalg.norm(output - w, ord=1) for w in without])


@answer("removal_effects", kind="variant", expect="other norm", note="largest absolute coordinate change")
def var_removal_max_abs(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output, without = _outputs_without(scores, values)
    return np.max(np.abs(output - without), axis=1)


# -- large negative number in an empty row
@answer("removal_effects", kind="variant", expect="large negative number in an empty row",
        note="loop setting the removed score to -1e9, cu.softmax")
def var_removal_loop_minus_1e9(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output, without = _outputs_without(scores, values, fill=-1e9)
    return np.linalg.norm(output - without, axis=1)


@answer("removal_effects", kind="variant", expect="large negative number in an empty row",
        note="subtracts 1e9 from the removed key's score")
def var_removal_subtract_1e9(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    T = len(scores)
    output = cu.softmax(scores) @ values
    effects = np.zeros(T)
    for j in range(T):
        lowered = scores - 1e9 * (np.arange(T) == j)
        effects[j] = np.linalg.norm(output - cu.softmax(lowered) @ values)
    return effects


# -- score set to 0
@answer("removal_effects", kind="variant", expect="score set to 0",
        note="all removals at once: np.eye puts a 0 score on the diagonal")
def var_removal_eye_zero_scores(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    T = len(scores)
    output = cu.softmax(scores) @ values
    masked = np.where(np.eye(T, dtype=bool), 0.0, scores[None, :])  # (T, T): row j without key j
    without = cu.softmax(masked, axis=-1) @ values
    return np.linalg.norm(output[None, :] - without, axis=-1)


@answer("removal_effects", kind="variant", expect="score set to 0", note="loop: masked[j] = 0 to 'switch the key off'")
def var_removal_loop_zero_score(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output, without = _outputs_without(scores, values, fill=0.0)
    return np.array([np.linalg.norm(output - w) for w in without])


# -- nan when nothing is left
def _shifted_softmax(s):
    e = np.exp(s - np.max(s, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


@answer("removal_effects", kind="variant", expect="nan in an empty row",
        note="all removals at once with np.eye and a hand-written shifted softmax")
def var_removal_eye_own_softmax(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    T = len(scores)
    output = _shifted_softmax(scores) @ values
    masked = np.where(np.eye(T, dtype=bool), -np.inf, scores[None, :])
    return np.linalg.norm(output - _shifted_softmax(masked) @ values, axis=-1)


@answer("removal_effects", kind="variant", expect="nan in an empty row",
        note="loop over keys with a hand-written shifted softmax, no rule for an empty row")
def var_removal_loop_own_softmax(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output, without = _outputs_without(scores, values, softmax=_shifted_softmax)
    return np.sqrt(((output - without) ** 2).sum(axis=1))


# -- no max shift
def _plain_softmax(s):
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)


@answer("removal_effects", kind="variant", expect="no max shift",
        note="loop with exp / sum (no shift, no rule for an empty row)")
def var_removal_loop_plain_softmax(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    output, without = _outputs_without(scores, values, softmax=_plain_softmax)
    return np.linalg.norm(output - without, axis=1)


@answer("removal_effects", kind="variant", expect="no max shift",
        note="all removals at once with np.eye and exp / sum")
def var_removal_eye_plain_softmax(scores, values):
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    T = len(scores)
    e = np.exp(scores)
    output = (e / e.sum()) @ values
    masked = np.where(np.eye(T, dtype=bool), -np.inf, scores[None, :])
    return np.linalg.norm(output - _plain_softmax(masked) @ values, axis=-1)


# ============================================================================ capstone_layer
def _masks(lengths, T):
    positions = np.arange(T)
    causal = positions[None, :] <= positions[:, None]  # (T, T)
    real = positions[None, :] < np.asarray(lengths)[:, None]  # (B, T)
    return causal, real


def _heads_attention(x, w_q, w_k, w_v, num_heads, mask4, *, scale=None, fill=-np.inf, softmax=None):
    """Per-head attention with a (B, 1, T, T) (or broadcastable) mask; empty rows as `softmax` gives them."""
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    d_head = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / (np.sqrt(d_head) if scale is None else scale)
    scores = np.where(mask4, scores, fill)
    weights = (softmax or cu.softmax)(scores)
    return weights @ v, weights


def _right_mask4(lengths, T):
    causal, real = _masks(lengths, T)
    return (causal[None, :, :] & real[:, None, :])[:, None, :, :]


# -- masked after the softmax
@answer("capstone_layer", kind="variant", expect="mask after the softmax",
        note="loop over heads, each head's weights multiplied by the mask after cu.softmax")
def var_capstone_loop_mask_after(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    d_head = d_model // num_heads
    causal, real = _masks(lengths, T)
    mask = causal[None] & real[:, None, :]  # (B, T, T)
    outs, ws = [], []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        q, k, v = x @ w_q[:, cols], x @ w_k[:, cols], x @ w_v[:, cols]
        w = cu.softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)) * mask
        outs.append(w @ v)
        ws.append(w)
    return np.concatenate(outs, axis=-1) @ w_o, np.stack(ws, axis=1)


# -- no output projection
@answer("capstone_layer", kind="variant", expect="no output projection",
        note="loop over heads with cu.scaled_dot_product_attention, concatenated, no W_O")
def var_capstone_loop_sdpa_no_w_o(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    d_head = d_model // num_heads
    causal, real = _masks(lengths, T)
    mask = causal[None] & real[:, None, :]
    outs, ws = [], []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        o, w = cu.scaled_dot_product_attention(x @ w_q[:, cols], x @ w_k[:, cols], x @ w_v[:, cols], mask)
        outs.append(o)
        ws.append(w)
    return np.concatenate(outs, axis=-1), np.stack(ws, axis=1)


@answer("capstone_layer", kind="variant", expect="no output projection",
        note="has_key zeroing done right, returns the merged heads")
def var_capstone_has_key_no_w_o(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    T = x.shape[1]
    mask4 = _right_mask4(lengths, T)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = np.where(mask4, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    has_key = mask4.any(axis=-1, keepdims=True)
    weights = np.where(has_key, cu.softmax(np.where(has_key, scores, 0.0)), 0.0)
    return cu.merge_heads(weights @ v), weights


# -- nan rows
def _own_softmax(s):
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)


@answer("capstone_layer", kind="variant", expect="nan in an empty row",
        note="hand-written softmax, no rule for a query with no permitted key")
def var_capstone_own_softmax(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    heads, weights = _heads_attention(x, w_q, w_k, w_v, num_heads, _right_mask4(lengths, x.shape[1]),
                                      softmax=_own_softmax)
    return cu.merge_heads(heads) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="nan in an empty row",
        note="own split with reshape/transpose, np.max/np.sum softmax with [..., None]")
def var_capstone_reshape_softmax_newaxis(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    B, T, d_model = x.shape
    d_head = d_model // num_heads

    def heads(a):
        return a.reshape(B, T, num_heads, d_head).transpose(0, 2, 1, 3)

    q, k, v = heads(x @ w_q), heads(x @ w_k), heads(x @ w_v)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d_head)
    scores = np.where(_right_mask4(lengths, T), scores, -np.inf)
    e = np.exp(scores - np.max(scores, axis=-1)[..., None])
    weights = e / np.sum(e, axis=-1)[..., None]
    merged = (weights @ v).transpose(0, 2, 1, 3).reshape(B, T, d_model)
    return merged @ w_o, weights


# -- large negative number in an empty row
@answer("capstone_layer", kind="variant", expect="large negative number in an empty row",
        note="np.finfo(float).min for the blocked scores, own softmax")
def var_capstone_finfo_min(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    heads, weights = _heads_attention(x, w_q, w_k, w_v, num_heads, _right_mask4(lengths, x.shape[1]),
                                      fill=np.finfo(float).min, softmax=_own_softmax)
    return cu.merge_heads(heads) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="large negative number in an empty row",
        note="np.where(mask, scores, -1e9) with cu.softmax")
def var_capstone_minus_1e9_cu_softmax(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    heads, weights = _heads_attention(x, w_q, w_k, w_v, num_heads, _right_mask4(lengths, x.shape[1]), fill=-1e9)
    return cu.merge_heads(heads) @ w_o, weights


# -- causal only
@answer("capstone_layer", kind="variant", expect="causal only",
        note="np.tril mask only, with [None, None] for batch and heads")
def var_capstone_tril_only(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    T = x.shape[1]
    mask4 = np.tril(np.ones((T, T), dtype=bool))[None, None]
    heads, weights = _heads_attention(x, w_q, w_k, w_v, num_heads, mask4)
    return cu.merge_heads(heads) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="causal only",
        note="cu.multi_head_attention with cu.causal_mask(T) only")
def var_capstone_mha_causal_only(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    return cu.multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, mask=cu.causal_mask(x.shape[1]))


# -- padding only
@answer("capstone_layer", kind="variant", expect="padding only",
        note="cu.padding_mask(lengths, T)[:, None, None, :] as the only mask")
def var_capstone_padding_mask_only(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    mask4 = cu.padding_mask(lengths, x.shape[1])[:, None, None, :]
    heads, weights = _heads_attention(x, w_q, w_k, w_v, num_heads, mask4)
    return cu.merge_heads(heads) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="padding only",
        note="key padding only, empty rows zeroed with has_key")
def var_capstone_padding_only_has_key(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    _, real = _masks(lengths, x.shape[1])
    mask4 = real[:, None, None, :]
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = np.where(mask4, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -1e9)
    weights = _own_softmax(scores) * mask4.any(axis=-1, keepdims=True)
    return cu.merge_heads(weights @ v) @ w_o, weights


# -- padding on the queries
@answer("capstone_layer", kind="variant", expect="padding on the queries",
        note="causal & padding_mask[:, :, None]: blocks the <pad> rows")
def var_capstone_padding_rows_cu(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    T = x.shape[1]
    mask = cu.causal_mask(T)[None] & cu.padding_mask(lengths, T)[:, :, None]  # (B, T, T)
    heads, weights = _heads_attention(x, w_q, w_k, w_v, num_heads, mask[:, None])
    return cu.merge_heads(heads) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="padding on the queries",
        note="real[:, :, np.newaxis] combined with the causal mask, has_key zeroing")
def var_capstone_padding_rows_has_key(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    causal, real = _masks(lengths, x.shape[1])
    mask4 = (causal[np.newaxis] & real[:, :, np.newaxis])[:, np.newaxis]
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = np.where(mask4, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    has_key = mask4.any(axis=-1, keepdims=True)
    weights = np.where(has_key, cu.softmax(scores), 0.0)
    return cu.merge_heads(weights @ v) @ w_o, weights


# -- combined with or
@answer("capstone_layer", kind="variant", expect="combined with or", note="np.logical_or of the two masks")
def var_capstone_logical_or(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    causal, real = _masks(lengths, x.shape[1])
    mask = np.logical_or(causal[None, :, :], real[:, None, :])
    heads, weights = _heads_attention(x, w_q, w_k, w_v, num_heads, mask[:, None])
    return cu.merge_heads(heads) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="combined with or",
        note="adds the two boolean masks (+ on bools is or)")
def var_capstone_bool_plus(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    causal, real = _masks(lengths, x.shape[1])
    mask = causal[None] + real[:, None, :]
    heads, weights = _heads_attention(x, w_q, w_k, w_v, num_heads, mask[:, None], softmax=_own_softmax)
    return cu.merge_heads(heads) @ w_o, weights


# -- inverted mask
@answer("capstone_layer", kind="variant", expect="inverted mask",
        note="np.where(mask, -inf, scores): True read as 'blocked'")
def var_capstone_where_mask_blocks(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    mask4 = _right_mask4(lengths, x.shape[1])
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    weights = cu.softmax(np.where(mask4, -np.inf, scores))
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="inverted mask",
        note="builds a 'blocked' mask (later OR padding), then keeps the scores where it is True")
def var_capstone_blocked_mask_kept(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    T = x.shape[1]
    positions = np.arange(T)
    later = positions[None, :] > positions[:, None]  # (T, T)
    pad = positions[None, :] >= lengths[:, None]  # (B, T)
    blocked = later[None] | pad[:, None, :]  # (B, T, T)
    heads, weights = _heads_attention(x, w_q, w_k, w_v, num_heads, blocked[:, None])
    return cu.merge_heads(heads) @ w_o, weights


# -- mask without a head axis
@answer("capstone_layer", kind="variant", expect="mask without a head axis",
        note="(B, T, T) mask used directly with the (B, h, T, T) scores")
def var_capstone_mask_3d(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    causal, real = _masks(lengths, x.shape[1])
    mask = causal[None] & real[:, None, :]
    heads, weights = _heads_attention(x, w_q, w_k, w_v, num_heads, mask)
    return cu.merge_heads(heads) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="mask without a head axis",
        note="adds an additive (B, T, T) mask of 0 / -inf to the scores")
def var_capstone_additive_3d(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    causal, real = _masks(lengths, x.shape[1])
    additive = np.where(causal[None] & real[:, None, :], 0.0, -np.inf)  # (B, T, T)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]) + additive
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


# -- scale with d_model
@answer("capstone_layer", kind="variant", expect="sqrt of d_model", note="divides by sqrt(x.shape[-1])")
def var_capstone_sqrt_x_width(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    heads, weights = _heads_attention(x, w_q, w_k, w_v, num_heads, _right_mask4(lengths, x.shape[1]),
                                      scale=np.sqrt(x.shape[-1]))
    return cu.merge_heads(heads) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="sqrt of d_model",
        note="d_k read from w_q.shape[1] (= d_model), -1e9 for blocked keys, empty rows zeroed")
def var_capstone_d_k_from_w_q(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    d_k = w_q.shape[1]
    mask4 = _right_mask4(lengths, x.shape[1])
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = np.where(mask4, q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k), -1e9)
    weights = _own_softmax(scores) * mask4.any(axis=-1, keepdims=True)
    return cu.merge_heads(weights @ v) @ w_o, weights


# -- one head
@answer("capstone_layer", kind="variant", expect="one head",
        note="cu.scaled_dot_product_attention on the full projections, num_heads ignored")
def var_capstone_sdpa_one_head(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    T = x.shape[1]
    mask = cu.causal_mask(T)[None] & cu.padding_mask(lengths, T)[:, None, :]
    output, weights = cu.scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)
    return output @ w_o, weights


@answer("capstone_layer", kind="variant", expect="one head",
        note="single-head attention written out, own softmax, has_key zeroing")
def var_capstone_single_head_written_out(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    causal, real = _masks(lengths, x.shape[1])
    mask = causal[None] & real[:, None, :]
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    weights = _own_softmax(np.where(mask, scores, -1e9))
    weights = np.where(mask.any(axis=-1, keepdims=True), weights, 0.0)
    return (weights @ v) @ w_o, weights


# -- swapped outputs
@answer("capstone_layer", kind="variant", expect="swapped outputs",
        note="cu.multi_head_attention with the right mask, returns (weights, output)")
def var_capstone_mha_swapped(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    T = x.shape[1]
    mask = cu.causal_mask(T)[None] & cu.padding_mask(lengths, T)[:, None, :]
    output, weights = cu.multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, mask=mask)
    return weights, output


@answer("capstone_layer", kind="variant", expect="swapped outputs",
        note="the step-by-step layer returning [weights, output]")
def var_capstone_list_swapped(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
    heads, weights = _heads_attention(x, w_q, w_k, w_v, num_heads, _right_mask4(lengths, x.shape[1]))
    return [weights, cu.merge_heads(heads) @ w_o]


# ---------------------------------------------------------------------------- contributions: summed each contribution
@answer("contributions", kind="variant", expect="summed each contribution", note="loop: one sum per key")
def var_contributions_loop_sums(weights, values):
    out = []
    for j in range(len(weights)):
        out.append(np.sum(weights[j] * values[j]))
    return np.array(out)


@answer("contributions", kind="variant", expect="summed each contribution", note="weight times the sum of each value row")
def var_contributions_weight_times_row_sum(weights, values):
    return weights * values.sum(axis=1)


# -- the catalogue's scale, softmax, mask, batch and heads mistakes in the capstone
def _capstone(x, lengths, w_q, w_k, w_v, w_o, num_heads, *, split=None, merge=None, divisor=None, softmax=None,
              keys_t=None, after=None, apply=None):
    """The capstone written step by step, one step replaceable (``after``: the mask applied to the weights)."""
    x = np.asarray(x, dtype=float)
    B, T, d_model = x.shape
    split = split or cu.split_heads
    q, k, v = (split(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ (keys_t(k) if keys_t else np.swapaxes(k, -1, -2))
    scores = scores / (divisor(q, x) if divisor else np.sqrt(q.shape[-1]))
    mask4 = _right_mask4(lengths, T)
    masked = apply(scores, mask4) if apply else np.where(mask4, scores, -np.inf)
    weights = (softmax or cu.softmax)(scores if after else masked)
    if after:
        weights = after(weights, mask4)
    return (merge or cu.merge_heads)(weights @ v) @ w_o, weights


def _split_reshape_only(a, h):
    B, T, d = a.shape
    return a.reshape(B, h, T, d // h)


def _split_strided(a, h):
    return np.stack([a[..., i::h] for i in range(h)], axis=1)


def _split_3d_transpose(a, h):
    *lead, T, d = a.shape
    return a.reshape(*lead, T, h, d // h).transpose(1, 0, 2)


def _merge_reshape_only(heads):
    B, h, T, d = heads.shape
    return heads.reshape(B, T, h * d)


def _merge_heads_last(heads):
    B, h, T, d = heads.shape
    return np.einsum("bhtd->btdh", heads).reshape(B, T, h * d)


def _exp_over_sum(s):
    e = np.exp(s)
    total = e.sum(axis=-1, keepdims=True)
    return np.where(total > 0, e / np.where(total > 0, total, 1.0), 0.0)  # empty rows handled, no shift


def _whole_softmax(s):
    e = np.exp(s - s.max())
    return e / e.sum()


def _zero_renormalise(weights, mask4):
    kept = np.where(mask4, weights, 0.0)
    total = kept.sum(axis=-1, keepdims=True)
    return np.where(total > 0, kept / np.where(total > 0, total, 1.0), 0.0)


def _causal_mask_of(causal, name):
    def layer(x, lengths, w_q, w_k, w_v, w_o, num_heads):
        x, lengths = np.asarray(x, dtype=float), np.asarray(lengths)
        T = x.shape[1]
        real = np.arange(T)[None, :] < lengths[:, None]
        mask4 = (causal(T)[None] & real[:, None, :])[:, None]
        heads, weights = _heads_attention(x, w_q, w_k, w_v, num_heads, mask4)
        return cu.merge_heads(heads) @ w_o, weights

    layer.__name__ = name
    return layer


@answer("capstone_layer", kind="variant", expect="swapped W_K and W_V", note="q, v, k unpacked from (w_q, w_k, w_v)")
def var_capstone_unpack_q_v_k(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    return _capstone(x, lengths, w_q, w_v, w_k, w_o, num_heads)


var_capstone_eye = answer("capstone_layer", kind="variant", expect="each token sees only itself",
                          note="causal part from np.eye")(
    _causal_mask_of(lambda T: np.eye(T, dtype=bool), "var_capstone_eye"))
var_capstone_tri_k1 = answer("capstone_layer", kind="variant", expect="sees the next token",
                             note="causal part from np.tri(T, k=1)")(
    _causal_mask_of(lambda T: np.tri(T, k=1) > 0, "var_capstone_tri_k1"))

@answer("capstone_layer", kind="variant", expect="k.T on a batch", note="q @ k.T on the (B, h, T, d_head) keys")
def var_capstone_k_dot_T(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    q, k, v = (cu.split_heads(np.asarray(x, float) @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = np.where(_right_mask4(lengths, x.shape[1]), q @ k.T / np.sqrt(q.shape[-1]), -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("capstone_layer", kind="variant", expect="k not transposed", note="q @ k: the keys not transposed")
def var_capstone_q_at_k(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    q, k, v = (cu.split_heads(np.asarray(x, float) @ w, num_heads) for w in (w_q, w_k, w_v))
    weights = cu.softmax(np.where(_right_mask4(lengths, x.shape[1]), q @ k / np.sqrt(q.shape[-1]), -np.inf))
    return cu.merge_heads(weights @ v) @ w_o, weights


for _expect, _note, _knobs in [
    ("no scale", "scores never divided", dict(divisor=lambda q, x: 1.0)),
    ("divide by d_k", "divided by d_head itself", dict(divisor=lambda q, x: q.shape[-1])),
    ("sqrt of the number of keys", "divided by sqrt(T)", dict(divisor=lambda q, x: np.sqrt(x.shape[1]))),
    ("no max shift", "own softmax exp / sum, empty rows handled", dict(softmax=_exp_over_sum)),
    ("softmax over the whole array", "one max and one sum over the whole (B, h, T, T) array",
     dict(softmax=_whole_softmax)),
    ("split without the transpose", "own split: reshape straight to (B, h, T, d_head)", dict(split=_split_reshape_only)),
    ("interleaved columns", "own split with strided columns a[..., i::h]", dict(split=_split_strided)),
    ("transpose for a fixed number of axes", "own split with .transpose(1, 0, 2) on (B, T, h, d_head)",
     dict(split=_split_3d_transpose)),
    ("merge without the transpose", "own merge: reshape straight to (B, T, d_model)", dict(merge=_merge_reshape_only)),
    ("heads interleaved", "own merge with the heads axis moved last", dict(merge=_merge_heads_last)),
    ("no softmax", "the masked scores used as the weights", dict(softmax=lambda s: s)),
    ("mask ignored", "no mask at all: the mask is built but never applied", dict(apply=lambda s, m: s)),
    ("mask multiplied into the scores", "scores * mask", dict(apply=lambda s, m: s * m)),
    ("boolean mask added to the scores", "scores + mask (a PyTorch float-mask habit)", dict(apply=lambda s, m: s + m)),
    ("zero then renormalise", "softmax over all keys, blocked weights zeroed, rows renormalised (empty rows 0)",
     dict(softmax=cu.softmax, after=_zero_renormalise)),
]:
    def _layer(x, lengths, w_q, w_k, w_v, w_o, num_heads, _knobs=_knobs):
        return _capstone(x, lengths, w_q, w_k, w_v, w_o, num_heads, **_knobs)

    _layer.__name__ = "var_capstone_" + _expect.replace(" ", "_").replace(".", "")
    answer("capstone_layer", kind="variant", expect=_expect, note=_note)(_layer)
