"""Plausible wrong answers to notebook 03 (padding_mask, causal_mask, masked_attention, buggy_masks).

Written as beginner learners would write them, independently of the checkers' mistake tables
(the precision set: ``kind="other"``). Each function is one complete, wrong attempt.
"""
import numpy as np

import course_utils as cu
from learner_answers import answer

# --------------------------------------------------------------------------------------------
# Exercise 1 · my_padding_mask(lengths, T)
# --------------------------------------------------------------------------------------------

@answer("padding_mask", kind="variant", expect="one padding position too many", note="off by one: t <= lengths[b]")
def padding_mask_less_equal(lengths, T):
    lengths = np.asarray(lengths)
    positions = np.arange(T)
    return positions[None, :] <= lengths[:, None]


@answer("padding_mask", note="returns 0/1 integers instead of booleans")
def padding_mask_as_int(lengths, T):
    lengths = np.asarray(lengths)
    return (np.arange(T)[None, :] < lengths[:, None]).astype(int)


@answer("padding_mask", kind="variant", expect="transposed", note="broadcasts the wrong way round: shape (T, B)")
def padding_mask_transposed(lengths, T):
    lengths = np.asarray(lengths)
    return np.arange(T)[:, None] < lengths[None, :]


@answer("padding_mask", kind="variant", expect="inverted", note="True at the padding (the blocked positions)")
def padding_mask_true_at_pad(lengths, T):
    lengths = np.asarray(lengths)
    return np.arange(T)[None, :] >= lengths[:, None]


@answer("padding_mask", note="loop filling a float zeros array")
def padding_mask_float_loop(lengths, T):
    lengths = np.asarray(lengths)
    mask = np.zeros((len(lengths), T))
    for b in range(len(lengths)):
        for t in range(T):
            if t < lengths[b]:
                mask[b, t] = 1
    return mask


@answer("padding_mask", kind="variant", expect="one real position too few", note="positions counted from 1: np.arange(1, T + 1)")
def padding_mask_positions_from_one(lengths, T):
    lengths = np.asarray(lengths)
    positions = np.arange(1, T + 1)
    return positions[None, :] < lengths[:, None]


@answer("padding_mask", kind="variant", expect="longest sequence instead of T", note="uses the longest length instead of T for the width")
def padding_mask_width_max_length(lengths, T):
    lengths = np.asarray(lengths)
    positions = np.arange(lengths.max())
    return positions[None, :] < lengths[:, None]


@answer("padding_mask", note="already adds the key axis: returns (B, 1, T)")
def padding_mask_with_key_axis(lengths, T):
    lengths = np.asarray(lengths)
    mask = np.arange(T)[None, :] < lengths[:, None]
    return mask[:, None, :]


@answer("padding_mask", kind="variant", expect="one real position too few", note="slice loop mask[b, :lengths[b] - 1] (drops the last real token)")
def padding_mask_slice_minus_one(lengths, T):
    lengths = np.asarray(lengths)
    mask = np.zeros((len(lengths), T), dtype=bool)
    for b, n in enumerate(lengths):
        if n > 0:
            mask[b, :n - 1] = True
    return mask


@answer("padding_mask", note="positions taken from the batch size: np.arange(len(lengths)) instead of T")
def padding_mask_positions_from_B(lengths, T):
    lengths = np.asarray(lengths)
    positions = np.arange(len(lengths))
    return positions[None, :] < lengths[:, None]


@answer("padding_mask", note="list of lists [[False] * T] * B: every row is the same list")
def padding_mask_aliased_rows(lengths, T):
    lengths = np.asarray(lengths)
    mask = [[False] * T] * len(lengths)
    for b, n in enumerate(lengths):
        for t in range(n):
            mask[b][t] = True
    return np.array(mask)


@answer("padding_mask", note="assumes left padding: marks the last n positions with mask[b, -n:]")
def padding_mask_left_padding(lengths, T):
    lengths = np.asarray(lengths)
    mask = np.zeros((len(lengths), T), dtype=bool)
    for b, n in enumerate(lengths):
        mask[b, -n:] = True
    return mask


# --------------------------------------------------------------------------------------------
# Exercise 2 · my_causal_mask(T)
# --------------------------------------------------------------------------------------------

@answer("causal_mask", kind="variant", expect="future instead of past", note="upper triangle with np.triu")
def causal_mask_triu(T):
    return np.triu(np.ones((T, T), dtype=bool))


@answer("causal_mask", kind="variant", expect="cannot see itself", note="strictly below the diagonal: np.tril(k=-1)")
def causal_mask_strict_lower(T):
    return np.tril(np.ones((T, T), dtype=bool), k=-1)


@answer("causal_mask", note="np.tril of float ones: returns 1.0 / 0.0")
def causal_mask_float(T):
    return np.tril(np.ones((T, T)))


@answer("causal_mask", note="additive float mask: 0 where allowed, -inf where blocked")
def causal_mask_additive(T):
    allowed = np.tril(np.ones((T, T), dtype=bool))
    return np.where(allowed, 0.0, -np.inf)


@answer("causal_mask", kind="variant", expect="inverted", note="PyTorch nn.Transformer convention: True = blocked")
def causal_mask_true_blocked(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


@answer("causal_mask", kind="variant", expect="future instead of past", note="compares positions the wrong way round: j >= i")
def causal_mask_compare_reversed(T):
    i = np.arange(T)
    return i[:, None] <= i[None, :]


@answer("causal_mask", kind="variant", expect="cannot see itself", note="loop with j < i (forgets the diagonal)")
def causal_mask_loop_strict(T):
    mask = np.zeros((T, T), dtype=bool)
    for i in range(T):
        for j in range(T):
            mask[i, j] = j < i
    return mask


@answer("causal_mask", note="np.tri(T) returns floats")
def causal_mask_np_tri(T):
    return np.tri(T)


@answer("causal_mask", kind="variant", expect="sees the next token", note="k=1 diagonal: each token also sees the next one")
def causal_mask_sees_next(T):
    return np.tril(np.ones((T, T), dtype=bool), 1)


@answer("causal_mask", note="misplaced parenthesis: dtype=bool passed to np.tril instead of np.ones")
def causal_mask_dtype_in_tril(T):
    return np.tril(np.ones((T, T)), dtype=bool)


@answer("causal_mask", note="loop starts at 1 (maths-style): the first row stays all False")
def causal_mask_loop_from_one(T):
    mask = np.zeros((T, T), dtype=bool)
    for i in range(1, T):
        mask[i, : i + 1] = True
    return mask


@answer("causal_mask", note="forgot to cut the triangle: a (T, T) array of True")
def causal_mask_all_true(T):
    return np.ones((T, T), dtype=bool)


@answer("causal_mask", note="flips np.triu upside down to get 'the lower triangle'")
def causal_mask_flipped_triu(T):
    return np.flipud(np.triu(np.ones((T, T), dtype=bool)))


# --------------------------------------------------------------------------------------------
# Exercise 3 · my_masked_attention(q, k, v, mask)
# --------------------------------------------------------------------------------------------

def _scores(q, k):
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])


@answer("masked_attention", kind="variant", expect="mask after the softmax", note="masks after the softmax: zeroes the blocked weights")
def masked_attention_zero_after(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    weights = cu.softmax(_scores(q, k))
    weights = weights * mask
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="k.T on a batch", note="k.T for the keys: wrong on a batch")
def masked_attention_k_dot_T(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = q @ k.T / np.sqrt(q.shape[-1])
    scores = np.where(mask, scores, -np.inf)
    weights = cu.softmax(scores)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="large negative number in an empty row", note="-1e9 instead of -inf, empty rows not handled (uniform weights)")
def masked_attention_big_negative(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = np.where(mask, _scores(q, k), -1e9)
    weights = cu.softmax(scores)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="nan in an empty row", note="own softmax with max shift: NaN on rows with no permitted key")
def masked_attention_own_softmax_nan(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = np.where(mask, _scores(q, k), -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="inverted mask", note="np.where arguments swapped: -inf where the mask is True")
def masked_attention_where_swapped(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = np.where(mask, -np.inf, _scores(q, k))
    weights = cu.softmax(scores)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="no scale", note="forgot the 1/sqrt(d_k) scale")
def masked_attention_unscaled(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = q @ np.swapaxes(k, -1, -2)
    scores = np.where(mask, scores, -np.inf)
    weights = cu.softmax(scores)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="mask multiplied into the scores", note="multiplies the scores by the mask (blocked score 0, not -inf)")
def masked_attention_multiply_scores(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = _scores(q, k) * mask
    weights = cu.softmax(scores)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="boolean mask added to the scores", note="adds the boolean mask to the scores (PyTorch float-mask habit)")
def masked_attention_add_mask(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = _scores(q, k) + mask
    weights = cu.softmax(scores)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="zero then renormalise", note="zero after softmax, then renormalise: 0/0 = NaN on empty rows")
def masked_attention_renormalise(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    weights = cu.softmax(_scores(q, k)) * mask
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="sqrt of the number of keys", note="scales by sqrt of the number of keys instead of d_k")
def masked_attention_scale_by_Tk(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    T_k = k.shape[-2]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(T_k)
    weights = cu.softmax(np.where(mask, scores, -np.inf))
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="softmax over the wrong axis", note="softmax over the queries (axis -2)")
def masked_attention_softmax_axis_minus2(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = np.where(mask, _scores(q, k), -np.inf)
    weights = cu.softmax(scores, axis=-2)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="large negative number in an empty row", note="handles empty rows by giving them uniform weights")
def masked_attention_empty_rows_uniform(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = _scores(q, k)
    has_key = mask.any(axis=-1, keepdims=True)
    scores = np.where(mask | ~has_key, scores * has_key, -np.inf)   # empty rows: all scores 0
    weights = cu.softmax(scores)
    return weights @ v, weights


@answer("masked_attention", note="zeroes empty rows' outputs but returns their NaN weights")
def masked_attention_fix_output_only(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = np.where(mask, _scores(q, k), -np.inf)
    with np.errstate(invalid="ignore"):
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights = e / e.sum(axis=-1, keepdims=True)
    output = np.nan_to_num(weights) @ v
    return output, weights


@answer("masked_attention", note="divides the weights by sqrt(d_k) after the softmax instead of the scores")
def masked_attention_scale_after_softmax(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = q @ np.swapaxes(k, -1, -2)
    weights = cu.softmax(np.where(mask, scores, -np.inf)) / np.sqrt(q.shape[-1])
    return weights @ v, weights


@answer("masked_attention", note="transposes the mask (mask.T), thinking it is stored (keys, queries)")
def masked_attention_mask_transposed(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = np.where(mask.T, _scores(q, k), -np.inf)
    weights = cu.softmax(scores)
    return weights @ v, weights


@answer("masked_attention", note="loop over query rows indexing mask[i]: fails for a (1, T_k) mask")
def masked_attention_row_loop(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    T_q = q.shape[-2]
    weights = np.zeros(q.shape[:-1] + (k.shape[-2],))
    for i in range(T_q):
        row = q[..., i, :] @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
        weights[..., i, :] = cu.softmax(np.where(mask[i], row, -np.inf))
    return weights @ v, weights


@answer("masked_attention", note="cleans the NaN weights with nan_to_num, but only after computing the output")
def masked_attention_clean_after_output(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = np.where(mask, _scores(q, k), -np.inf)
    with np.errstate(invalid="ignore"):
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights = e / e.sum(axis=-1, keepdims=True)
    output = weights @ v
    weights = np.nan_to_num(weights)
    return output, weights


@answer("masked_attention", note="own softmax divides by the sum of the whole array (no axis)")
def masked_attention_sum_whole_array(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = np.where(mask, _scores(q, k), -np.inf)
    has_key = mask.any(axis=-1, keepdims=True)
    scores = np.where(has_key, scores, 0.0)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = np.where(has_key, e / e.sum(), 0.0)
    return weights @ v, weights


@answer("masked_attention", kind="variant", expect="matmul shapes", note="np.swapaxes(k, 0, 1): axes counted from the front, fails on a batch")
def masked_attention_swap_front_axes(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = q @ np.swapaxes(k, 0, 1) / np.sqrt(q.shape[-1])
    weights = cu.softmax(np.where(mask, scores, -np.inf))
    return weights @ v, weights


# --------------------------------------------------------------------------------------------
# Exercise 4 · my_buggy_masks()
# --------------------------------------------------------------------------------------------

@answer("buggy_masks", note="misses the inverted causal mask C")
def buggy_masks_miss_inverted():
    return {
        "causal": ["A"],
        "padding": ["B"],
        "causal + padding": ["A", "C"],
    }


@answer("buggy_masks", note="key spelled 'causal+padding' (no spaces)")
def buggy_masks_key_spelling():
    return {
        "causal": ["A", "C"],
        "padding": ["B"],
        "causal+padding": ["A", "C"],
    }


@answer("buggy_masks", note="lists the correct masks instead of the buggy ones")
def buggy_masks_lists_good_ones():
    return {
        "causal": ["B"],
        "padding": ["A", "C"],
        "causal + padding": ["B"],
    }


@answer("buggy_masks", note="thinks blocking the <pad> queries too (padding C) is a bug")
def buggy_masks_padding_C_too():
    return {
        "causal": ["A", "C"],
        "padding": ["B", "C"],
        "causal + padding": ["A", "C"],
    }


@answer("buggy_masks", note="misses the off-by-one causal mask A")
def buggy_masks_miss_off_by_one():
    return {
        "causal": ["C"],
        "padding": ["B"],
        "causal + padding": ["A", "C"],
    }


@answer("buggy_masks", note="only one label per situation")
def buggy_masks_one_each():
    return {
        "causal": ["C"],
        "padding": ["B"],
        "causal + padding": ["A"],
    }


@answer("buggy_masks", note="marks all three causal candidates buggy (B is the correct one)")
def buggy_masks_all_causal():
    return {
        "causal": ["A", "B", "C"],
        "padding": ["B"],
        "causal + padding": ["A", "C"],
    }


@answer("buggy_masks", note="thinks padding A (padded rows may see real keys) is buggy, not B")
def buggy_masks_padding_A():
    return {
        "causal": ["A", "C"],
        "padding": ["A"],
        "causal + padding": ["A", "C"],
    }


@answer("buggy_masks", note="misses the 'cannot see itself' mask C in causal + padding")
def buggy_masks_miss_no_self():
    return {
        "causal": ["A", "C"],
        "padding": ["B"],
        "causal + padding": ["A"],
    }
