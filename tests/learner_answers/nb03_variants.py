"""Recall set for notebook 03: realistic variants of the known mistakes of check_causal_mask,
check_padding_mask and check_masked_attention (``kind="variant"``).

Each function makes exactly one known mistake, written differently from the mutants of
tests/test_checks_masks.py, and reproduces that mistake's result on every case the checker runs.

The mask checkers also recognise a mask with the right True/False pattern in a 0/1 (int or
float) or additive (0 / -inf) dtype. That is not a KnownMistake but a remark of the checker
(a "dtype" problem in the reworked framework); its variants use ``expect=DTYPE_REMARK``. A
pattern mistake written with a 0/1 dtype expects the pattern mistake (the checker names it and
appends the dtype remark).
"""
import math

import numpy as np

import course_utils as cu
from learner_answers import answer

#: ``expect`` of the answers whose only fault is the mask's dtype (the checker's dtype remark).
DTYPE_REMARK = "dtype"


# ============================================================================ causal_mask(T)
# -- inverted
@answer("causal_mask", kind="variant", expect="each token sees only itself",
        note="np.identity: the diagonal, as in 05's gallery")
def var_causal_identity(T):
    return np.identity(T) == 1


@answer("causal_mask", kind="variant", expect="inverted",
        note="loop setting True for the keys after the query (the blocked ones)")
def var_causal_loop_future_true(T):
    mask = np.zeros((T, T), dtype=bool)
    for i in range(T):
        for j in range(i + 1, T):
            mask[i, j] = True
    return mask


@answer("causal_mask", kind="variant", expect="inverted", note="key position > query position")
def var_causal_strictly_greater(T):
    positions = np.arange(T)
    return positions[None, :] > positions[:, None]


@answer("causal_mask", kind="variant", expect="inverted", note="np.logical_not of np.tri")
def var_causal_logical_not_tri(T):
    return np.logical_not(np.tri(T, dtype=bool))


@answer("causal_mask", kind="variant", expect="inverted",
        note="upper triangle above the diagonal as 0/1 ints (inverted, and not bool)")
def var_causal_int_triu_k1(T):
    return np.triu(np.ones((T, T), dtype=int), k=1)


# -- future instead of past
@answer("causal_mask", kind="variant", expect="future instead of past", note="np.tri(...).T: the upper triangle")
def var_causal_tri_transposed(T):
    return np.tri(T, dtype=bool).T


@answer("causal_mask", kind="variant", expect="future instead of past", note="nested lists with j >= i")
def var_causal_lists_j_ge_i(T):
    return np.array([[j >= i for j in range(T)] for i in range(T)])


# -- sees the next token
@answer("causal_mask", kind="variant", expect="sees the next token", note="np.tri with k=1")
def var_causal_tri_k1(T):
    return np.tri(T, k=1, dtype=bool)


@answer("causal_mask", kind="variant", expect="sees the next token", note="key <= query + 1")
def var_causal_compare_plus_one(T):
    positions = np.arange(T)
    return positions[None, :] <= positions[:, None] + 1


@answer("causal_mask", kind="variant", expect="sees the next token",
        note="loop over keys 0..i+1 (capped at T)")
def var_causal_loop_one_too_far(T):
    mask = np.zeros((T, T), dtype=bool)
    for i in range(T):
        mask[i, :i + 2] = True
    return mask


# -- cannot see itself
@answer("causal_mask", kind="variant", expect="cannot see itself", note="np.tri with k=-1")
def var_causal_tri_k_minus_1(T):
    return np.tri(T, k=-1, dtype=bool)


@answer("causal_mask", kind="variant", expect="cannot see itself", note="loop over the keys before i only")
def var_causal_loop_strictly_before(T):
    mask = np.zeros((T, T), dtype=bool)
    for i in range(T):
        for j in range(i):
            mask[i, j] = True
    return mask


@answer("causal_mask", kind="variant", expect="cannot see itself",
        note="float lower triangle without the diagonal (and not bool)")
def var_causal_float_strict_lower(T):
    return np.tril(np.ones((T, T)), k=-1)


# -- tril of a number
@answer("causal_mask", kind="variant", expect="tril of a number", note="np.tril(T, k=0) == 1")
def var_causal_tril_of_T_compared(T):
    return np.tril(T, k=0) == 1


@answer("causal_mask", kind="variant", expect="tril of a number", note="np.tril of a 0-d bool array built from T")
def var_causal_tril_of_array_T(T):
    return np.tril(np.array(T, dtype=bool))


# -- the dtype remark: right pattern, not bool
@answer("causal_mask", kind="variant", expect=DTYPE_REMARK, note="np.tri(T): float 0/1 (its default dtype)")
def var_causal_np_tri_float(T):
    return np.tri(T)


@answer("causal_mask", kind="variant", expect=DTYPE_REMARK,
        note="np.tril of a 1-D np.ones(T): numpy broadcasts it to (T, T), float 0/1")
def var_causal_tril_of_1d_ones(T):
    return np.tril(np.ones(T))


@answer("causal_mask", kind="variant", expect=DTYPE_REMARK,
        note="comparison turned into int8 with .astype")
def var_causal_compare_int8(T):
    positions = np.arange(T)
    return (positions[None, :] <= positions[:, None]).astype(np.int8)


@answer("causal_mask", kind="variant", expect=DTYPE_REMARK,
        note="additive float mask: 0 on the lower triangle, -inf above")
def var_causal_additive_triu(T):
    return np.triu(np.full((T, T), -np.inf), k=1)


# ============================================================================ padding_mask(lengths, T)
# -- inverted
@answer("padding_mask", kind="variant", expect="inverted",
        note="loop: all True, then the real positions set to False")
def var_padding_loop_real_false(lengths, T):
    lengths = np.asarray(lengths)
    mask = np.ones((len(lengths), T), dtype=bool)
    for b, n in enumerate(lengths):
        mask[b, :n] = False
    return mask


@answer("padding_mask", kind="variant", expect="inverted", note="position >= length, with np.newaxis")
def var_padding_newaxis_ge(lengths, T):
    lengths = np.asarray(lengths)
    return np.arange(T)[np.newaxis, :] >= lengths[:, np.newaxis]


@answer("padding_mask", kind="variant", expect="inverted", note="np.logical_not of the right mask")
def var_padding_logical_not(lengths, T):
    lengths = np.asarray(lengths)
    return np.logical_not(np.arange(T)[None, :] < lengths[:, None])


# -- one padding position too many
@answer("padding_mask", kind="variant", expect="one padding position too many",
        note="loop marking positions 0..n (n + 1 of them)")
def var_padding_loop_n_plus_one(lengths, T):
    lengths = np.asarray(lengths)
    mask = np.zeros((len(lengths), T), dtype=bool)
    for b, n in enumerate(lengths):
        mask[b, :n + 1] = True
    return mask


@answer("padding_mask", kind="variant", expect="one padding position too many", note="lengths[:, None] >= positions")
def var_padding_length_ge_position(lengths, T):
    lengths = np.asarray(lengths)
    return lengths[:, None] >= np.arange(T)[None, :]


# -- one real position too few
@answer("padding_mask", kind="variant", expect="one real position too few",
        note="loop over range(n - 1): the last real token is left out")
def var_padding_loop_n_minus_one(lengths, T):
    lengths = np.asarray(lengths)
    mask = np.zeros((len(lengths), T), dtype=bool)
    for b, n in enumerate(lengths):
        for t in range(n - 1):
            mask[b, t] = True
    return mask


@answer("padding_mask", kind="variant", expect="one real position too few",
        note="counts positions from 1: position + 1 < length")
def var_padding_position_plus_one(lengths, T):
    lengths = np.asarray(lengths)
    return np.arange(T)[None, :] + 1 < lengths[:, None]


# -- transposed
@answer("padding_mask", kind="variant", expect="transposed", note="the right mask, then .T")
def var_padding_right_then_T(lengths, T):
    lengths = np.asarray(lengths)
    return (np.arange(T)[None, :] < lengths[:, None]).T


@answer("padding_mask", kind="variant", expect="transposed",
        note="loop filling a (T, B) array, one column per sequence")
def var_padding_loop_columns(lengths, T):
    lengths = np.asarray(lengths)
    mask = np.zeros((T, len(lengths)), dtype=bool)
    for b, n in enumerate(lengths):
        mask[:n, b] = True
    return mask


# -- longest sequence instead of T
@answer("padding_mask", kind="variant", expect="longest sequence instead of T",
        note="comprehension over range(lengths.max())")
def var_padding_comprehension_longest(lengths, T):
    lengths = np.asarray(lengths)
    longest = lengths.max()
    return np.array([[t < n for t in range(longest)] for n in lengths])


@answer("padding_mask", kind="variant", expect="longest sequence instead of T",
        note="loop filling a (B, max(lengths)) array")
def var_padding_loop_longest(lengths, T):
    lengths = np.asarray(lengths)
    mask = np.zeros((len(lengths), int(np.max(lengths))), dtype=bool)
    for b, n in enumerate(lengths):
        mask[b, :n] = True
    return mask


# -- one row for all sequences
@answer("padding_mask", kind="variant", expect="one row for all sequences", note="np.less(np.arange(T), lengths)")
def var_padding_np_less_same_axis(lengths, T):
    lengths = np.asarray(lengths)
    return np.less(np.arange(T), lengths)


@answer("padding_mask", kind="variant", expect="one row for all sequences", note="lengths > np.arange(T), no new axes")
def var_padding_lengths_greater_same_axis(lengths, T):
    lengths = np.asarray(lengths)
    return lengths > np.arange(T)


# -- a pattern mistake in 0/1 dtype
@answer("padding_mask", kind="variant", expect="inverted", note=">= cast to float (inverted, and not bool)")
def var_padding_float_ge(lengths, T):
    lengths = np.asarray(lengths)
    return (np.arange(T)[None, :] >= lengths[:, None]).astype(float)


# -- the dtype remark: right pattern, not bool
@answer("padding_mask", kind="variant", expect=DTYPE_REMARK, note="loop filling np.zeros((B, T)) with 1.0")
def var_padding_float_loop(lengths, T):
    lengths = np.asarray(lengths)
    mask = np.zeros((len(lengths), T))
    for b in range(len(lengths)):
        mask[b, :lengths[b]] = 1.0
    return mask


@answer("padding_mask", kind="variant", expect=DTYPE_REMARK, note="comparison .astype(np.int32)")
def var_padding_int32(lengths, T):
    lengths = np.asarray(lengths)
    return (np.arange(T)[None, :] < lengths[:, None]).astype(np.int32)


@answer("padding_mask", kind="variant", expect=DTYPE_REMARK, note="additive mask: 0 at real tokens, -inf at padding")
def var_padding_additive(lengths, T):
    lengths = np.asarray(lengths)
    return np.where(np.arange(T)[None, :] < lengths[:, None], 0.0, -np.inf)


# ============================================================================ masked_attention(q, k, v, mask)
def _prepare(q, k, v, mask):
    return np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)


def _scores(q, k):
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])


def _softmax_rows(s):
    """Hand-written softmax over the last axis: a row of -inf gives nan."""
    s = s - s.max(axis=-1, keepdims=True)
    return np.exp(s) / np.exp(s).sum(axis=-1, keepdims=True)


# -- zero after softmax
@answer("masked_attention", kind="variant", expect="mask after the softmax",
        note="cu.softmax of all scores, then the blocked weights set to 0 by boolean indexing")
def var_ma_zero_by_indexing(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    weights = cu.softmax(_scores(q, k))
    weights[~np.broadcast_to(mask, weights.shape)] = 0.0
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="mask after the softmax",
        note="own softmax with /=, then multiplied by the mask")
def var_ma_own_softmax_then_mask(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    scores = np.matmul(q, np.swapaxes(k, -1, -2)) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    weights = weights * mask
    return weights @ v, weights


# -- inverted mask
@answer("masked_attention", kind="variant", expect="inverted mask",
        note="np.where(~mask, scores, -inf) with cu.softmax")
def var_ma_where_not_mask(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    weights = cu.softmax(np.where(~mask, _scores(q, k), -np.inf))
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="inverted mask",
        note="reads True as 'hide': sets the True positions to -inf, own softmax")
def var_ma_true_means_hide(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    scores = _scores(q, k)
    scores[np.broadcast_to(mask, scores.shape)] = -np.inf
    weights = _softmax_rows(scores)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="inverted mask",
        note="PyTorch habit: adds mask * -1e9 (a penalty where the mask is True)")
def var_ma_penalty_where_true(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    weights = cu.softmax(_scores(q, k) + mask * -1e9)
    return weights @ v, weights


# -- empty row gives nan
@answer("masked_attention", kind="variant", expect="nan in an empty row",
        note="inner softmax helper with the max shift, no rule for a row with no permitted key")
def var_ma_inner_softmax_nan_rows(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)

    def softmax(z):
        z = z - np.max(z, axis=-1)[..., None]
        e = np.exp(z)
        return e / np.sum(e, axis=-1)[..., None]

    scores = np.where(mask, _scores(q, k), -np.inf)
    weights = softmax(scores)
    return np.matmul(weights, v), weights


@answer("masked_attention", kind="variant", expect="nan in an empty row",
        note="einsum products and a hand-written shifted softmax")
def var_ma_einsum_nan_rows(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    scores = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(q.shape[-1])
    scores = np.where(mask, scores, -np.inf)
    weights = _softmax_rows(scores)
    return np.einsum("...qk,...kd->...qd", weights, v), weights


# -- renormalised weights underflow
@answer("masked_attention", kind="variant", expect="zero then renormalise",
        note="zero after the softmax, renormalise, rows summing to 0 divided by 1 instead")
def var_ma_renormalise_guarded(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    weights = cu.softmax(_scores(q, k)) * mask
    totals = weights.sum(axis=-1, keepdims=True)
    weights = weights / np.where(totals == 0, 1.0, totals)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="zero then renormalise",
        note="zero after the softmax, renormalise, np.nan_to_num for the 0 / 0 rows")
def var_ma_renormalise_nan_to_num(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    weights = np.where(mask, _softmax_rows(_scores(q, k)), 0.0)
    weights = np.nan_to_num(weights / weights.sum(axis=-1, keepdims=True))
    return weights @ v, weights


# -- large negative number in an empty row
@answer("masked_attention", kind="variant", expect="large negative number in an empty row",
        note="np.finfo(float).min for the blocked scores, own softmax")
def var_ma_finfo_min(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    scores = np.where(mask, _scores(q, k), np.finfo(float).min)
    weights = _softmax_rows(scores)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="large negative number in an empty row",
        note="subtracts 1e9 * (1 - mask) from the scores, cu.softmax")
def var_ma_subtract_penalty(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    scores = _scores(q, k) - 1e9 * (1 - mask)
    weights = cu.softmax(scores)
    return weights @ v, weights


# -- no max shift
@answer("masked_attention", kind="variant", expect="no max shift",
        note="exp of the -inf-masked scores divided by the row sum, no shift")
def var_ma_exp_over_sum(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    e = np.exp(np.where(mask, _scores(q, k), -np.inf))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="no max shift",
        note="exp of all scores, blocked exponentials replaced by 0, divided by the row sum")
def var_ma_exp_then_where_zero(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    e = np.exp(_scores(q, k))
    e = np.where(mask, e, 0.0)
    weights = e / np.sum(e, axis=-1, keepdims=True)
    return weights @ v, weights


# -- mask multiplied into the scores
@answer("masked_attention", kind="variant", expect="mask multiplied into the scores",
        note="np.multiply(scores, mask) then cu.softmax")
def var_ma_np_multiply_mask(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    weights = cu.softmax(np.multiply(_scores(q, k), mask))
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="mask multiplied into the scores",
        note="blocked scores set to 0, then exp / sum without the shift")
def var_ma_zero_scores_no_shift(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    e = np.exp(np.where(mask, _scores(q, k), 0.0))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights


# -- boolean mask added to the scores
@answer("masked_attention", kind="variant", expect="boolean mask added to the scores",
        note="scores += mask (in place), cu.softmax")
def var_ma_add_in_place(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    scores = _scores(q, k)
    scores += mask
    weights = cu.softmax(scores)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="boolean mask added to the scores",
        note="np.add(scores, mask.astype(float)), own softmax")
def var_ma_np_add_float_mask(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    weights = _softmax_rows(np.add(_scores(q, k), mask.astype(float)))
    return weights @ v, weights


# -- scale
@answer("masked_attention", kind="variant", expect="no scale",
        note="the notebook's solution without the division by sqrt(d_k)")
def var_ma_notebook_no_scale(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    scores = q @ np.swapaxes(k, -1, -2)
    has_key = mask.any(axis=-1, keepdims=True)
    scores = np.where(mask, scores, -np.inf)
    scores = np.where(has_key, scores, 0.0)
    weights = np.where(has_key, cu.softmax(scores), 0.0)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="sqrt of the number of keys",
        note="divides by sqrt of the number of keys (k.shape[-2]), -1e9 and has_key handling")
def var_ma_sqrt_num_keys(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(k.shape[-2])
    weights = _softmax_rows(np.where(mask, scores, -1e9))
    weights = weights * mask.any(axis=-1, keepdims=True)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="divide by d_k", note="einsum scores divided by d_k, cu.softmax")
def var_ma_einsum_divide_dk(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    scores = np.einsum("...id,...jd->...ij", q, k) / q.shape[-1]
    weights = cu.softmax(np.where(mask, scores, -np.inf))
    return weights @ v, weights


# -- scaled by sqrt(d_v)
@answer("masked_attention", kind="variant", expect="scaled by sqrt(d_v)",
        note="the notebook's steps, with the scale read from v: d = v.shape[-1]")
def var_ma_scale_from_values(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    d = v.shape[-1]
    scores = np.matmul(q, np.swapaxes(k, -1, -2)) / math.sqrt(d)
    scores = np.where(mask, scores, -np.inf)
    weights = cu.softmax(scores, axis=-1)
    return np.matmul(weights, v), weights


# -- softmax over queries
@answer("masked_attention", kind="variant", expect="softmax over the wrong axis",
        note="own softmax with axis=-2 throughout")
def var_ma_own_softmax_axis_minus_2(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    scores = np.where(mask, _scores(q, k), -1e9)
    e = np.exp(scores - scores.max(axis=-2, keepdims=True))
    weights = e / e.sum(axis=-2, keepdims=True)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="softmax over the wrong axis",
        note="cu.softmax of the transposed scores, transposed back")
def var_ma_softmax_of_transpose(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    masked = np.where(mask, _scores(q, k), -np.inf)
    weights = np.swapaxes(cu.softmax(np.swapaxes(masked, -1, -2)), -1, -2)
    return weights @ v, weights


# -- transpose for a fixed number of axes
@answer("masked_attention", kind="variant", expect="transpose for a fixed number of axes",
        note="k.transpose(0, 2, 1), written for the batch: fails on 2-D input")
def var_ma_keys_transpose_021(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    weights = cu.softmax(np.where(mask, q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1]), -np.inf))
    return weights @ v, weights


# -- mask ignored
@answer("masked_attention", kind="variant", expect="mask ignored", note="the mask argument never used")
def var_ma_mask_unused(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    weights = cu.softmax(_scores(q, k))
    return weights @ v, weights


# -- no softmax
@answer("masked_attention", kind="variant", expect="no softmax", note="the masked scores used as the weights")
def var_ma_masked_scores_as_weights(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    weights = np.where(mask, _scores(q, k), -np.inf)
    return weights @ v, weights


# -- softmax over the whole array
@answer("masked_attention", kind="variant", expect="softmax over the whole array",
        note="own softmax with one max and one sum over the whole array")
def var_ma_softmax_whole_array(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    scores = np.where(mask, _scores(q, k), -np.inf)
    e = np.exp(scores - scores.max())
    weights = e / e.sum()
    return weights @ v, weights


# -- swapped outputs
@answer("masked_attention", kind="variant", expect="swapped outputs",
        note="the notebook's solution returning [weights, output]")
def var_ma_notebook_list_swapped(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    scores = _scores(q, k)
    has_key = mask.any(axis=-1, keepdims=True)
    scores = np.where(has_key, np.where(mask, scores, -np.inf), 0.0)
    weights = np.where(has_key, cu.softmax(scores), 0.0)
    return [weights, weights @ v]


@answer("masked_attention", kind="variant", expect="swapped outputs",
        note="-1e9, empty rows zeroed, weights returned first")
def var_ma_large_negative_swapped(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    weights = _softmax_rows(np.where(mask, _scores(q, k), -1e9))
    weights = np.where(mask.any(axis=-1, keepdims=True), weights, 0.0)
    output = np.matmul(weights, v)
    return weights, output


# -- k.T on a batch
@answer("masked_attention", kind="variant", expect="k.T on a batch", note="np.matmul(q, np.transpose(k))")
def var_ma_matmul_np_transpose(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    scores = np.matmul(q, np.transpose(k)) / np.sqrt(q.shape[-1])
    weights = cu.softmax(np.where(mask, scores, -np.inf))
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="k.T on a batch",
        note="k.transpose() with no arguments, has_key handling")
def var_ma_transpose_no_args(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    scores = q @ k.transpose() / np.sqrt(q.shape[-1])
    has_key = mask.any(axis=-1, keepdims=True)
    weights = _softmax_rows(np.where(mask, scores, -1e9)) * has_key
    return weights @ v, weights


# -- matmul shapes
@answer("masked_attention", kind="variant", expect="matmul shapes", note="np.matmul(v, weights) for the output")
def var_ma_matmul_v_weights(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    weights = cu.softmax(np.where(mask, _scores(q, k), -np.inf))
    return np.matmul(v, weights), weights


@answer("masked_attention", kind="variant", expect="k not transposed", note="np.matmul(q, k) without swapping k's axes")
def var_ma_matmul_q_k(q, k, v, mask):
    q, k, v, mask = _prepare(q, k, v, mask)
    scores = np.matmul(q, k) / np.sqrt(q.shape[-1])
    weights = cu.softmax(np.where(mask, scores, -np.inf))
    return weights @ v, weights
