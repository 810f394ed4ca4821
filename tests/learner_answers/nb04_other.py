"""Plausible wrong answers to notebook 04 (split_heads, merge_heads, multi_head_attention).

Written as beginner learners would write them, independently of the checkers' mistake tables
(the precision set: ``kind="other"``). Each function is one complete, wrong attempt.
"""
import numpy as np

import course_utils as cu
from learner_answers import answer

# --------------------------------------------------------------------------------------------
# Exercise 1 · my_split_heads(x, num_heads)
# --------------------------------------------------------------------------------------------

@answer("split_heads", kind="variant", expect="split without the transpose", note="reshapes straight to (..., h, T, d_head), no swap")
def split_heads_reshape_only(x, num_heads):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    return x.reshape(*lead, num_heads, T, d_model // num_heads)


@answer("split_heads", kind="variant", expect="only for one sequence", note="written for 2-D input only: reshape(T, h, d_head)")
def split_heads_2d_only(x, num_heads):
    x = np.asarray(x, dtype=float)
    T, d_model = x.shape[-2], x.shape[-1]
    d_head = d_model // num_heads
    x = x.reshape(T, num_heads, d_head)
    return x.transpose(1, 0, 2)


@answer("split_heads", note="swaps axes 0 and 1 (counted from the front): wrong on a batch")
def split_heads_swap_front_axes(x, num_heads):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    d_head = d_model // num_heads
    x = x.reshape(*lead, T, num_heads, d_head)
    return np.swapaxes(x, 0, 1)


@answer("split_heads", kind="variant", expect="interleaved columns", note="reshape to (..., T, d_head, h): heads get every h-th column")
def split_heads_strided_columns(x, num_heads):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    d_head = d_model // num_heads
    x = x.reshape(*lead, T, d_head, num_heads)
    return np.moveaxis(x, -1, -3)


@answer("split_heads", note="np.split + np.stack(axis=0): heads end up in front of the batch")
def split_heads_split_and_stack(x, num_heads):
    x = np.asarray(x, dtype=float)
    pieces = np.split(x, num_heads, axis=-1)       # num_heads arrays (..., T, d_head)
    return np.stack(pieces, axis=0)


@answer("split_heads", note="mixes up h and d_head in the reshape: (..., T, d_head, h) then swap")
def split_heads_h_and_dhead_swapped(x, num_heads):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    d_head = d_model // num_heads
    x = x.reshape(*lead, T, d_head, num_heads)
    return np.swapaxes(x, -3, -2)


@answer("split_heads", kind="variant", expect="forgot the transpose", note="forgot the swap: returns (..., T, h, d_head)")
def split_heads_no_swap(x, num_heads):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    return x.reshape(*lead, T, num_heads, d_model // num_heads)


@answer("split_heads", kind="variant", expect="float d_head", note="d_head with / (float): reshape refuses a float size")
def split_heads_float_division(x, num_heads):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    d_head = d_model / num_heads
    x = x.reshape(*lead, T, num_heads, d_head)
    return np.swapaxes(x, -3, -2)


@answer("split_heads", note="x.T after the reshape (reverses every axis)")
def split_heads_full_transpose(x, num_heads):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    d_head = d_model // num_heads
    return x.reshape(*lead, T, num_heads, d_head).T


@answer("split_heads", note="returns the list from np.split (one array per head), never stacked")
def split_heads_list_of_heads(x, num_heads):
    x = np.asarray(x, dtype=float)
    return np.split(x, num_heads, axis=-1)


@answer("split_heads", note="np.stack(np.split(...), axis=1): axis counted from the front")
def split_heads_stack_axis_one(x, num_heads):
    x = np.asarray(x, dtype=float)
    heads = np.split(x, num_heads, axis=-1)       # num_heads arrays (..., T, d_head)
    return np.stack(heads, axis=1)


@answer("split_heads", note="d_head hard-coded to 2, the notebook example's head width: reshape fails for other widths")
def split_heads_hardcoded_dhead(x, num_heads):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    d_head = 2
    x = x.reshape(*lead, T, num_heads, d_head)
    return np.swapaxes(x, -3, -2)


# --------------------------------------------------------------------------------------------
# Exercise 2 · my_merge_heads(x)
# --------------------------------------------------------------------------------------------

@answer("merge_heads", kind="variant", expect="merge without the transpose", note="reshape without swapping back first")
def merge_heads_reshape_only(x):
    x = np.asarray(x, dtype=float)
    *lead, num_heads, T, d_head = x.shape
    return x.reshape(*lead, T, num_heads * d_head)


@answer("merge_heads", kind="variant", expect="only for one sequence", note="np.concatenate(list(x), axis=-1): right without a batch only")
def merge_heads_concatenate_list(x):
    x = np.asarray(x, dtype=float)
    return np.concatenate(list(x), axis=-1)


@answer("merge_heads", note="swapaxes(0, 1) from the front: wrong on a batch")
def merge_heads_swap_front(x):
    x = np.asarray(x, dtype=float)
    *lead, num_heads, T, d_head = x.shape
    x = np.swapaxes(x, 0, 1)
    return x.reshape(*lead, T, num_heads * d_head)


@answer("merge_heads", kind="variant", expect="heads interleaved", note="moves heads to the end: columns interleaved (T, d_head, h)")
def merge_heads_interleaved(x):
    x = np.asarray(x, dtype=float)
    *lead, num_heads, T, d_head = x.shape
    x = np.moveaxis(x, -3, -1)                         # (..., T, d_head, h)
    return x.reshape(*lead, T, num_heads * d_head)


@answer("merge_heads", kind="variant", expect="stacked the heads as rows", note="stacks the heads as extra rows: np.vstack")
def merge_heads_vstack(x):
    x = np.asarray(x, dtype=float)
    return np.vstack(x)


@answer("merge_heads", kind="variant", expect="summed or averaged the heads", note="adds the heads together instead of putting them side by side")
def merge_heads_sum(x):
    x = np.asarray(x, dtype=float)
    return x.sum(axis=-3)


@answer("merge_heads", note="swaps the last two axes (T and d_head) before the reshape")
def merge_heads_swap_last_two(x):
    x = np.asarray(x, dtype=float)
    *lead, num_heads, T, d_head = x.shape
    x = np.swapaxes(x, -1, -2)
    return x.reshape(*lead, T, num_heads * d_head)


@answer("merge_heads", kind="variant", expect="stacked the heads as rows", note="loop over heads, concatenated along the token axis")
def merge_heads_concat_tokens(x):
    x = np.asarray(x, dtype=float)
    num_heads = x.shape[-3]
    heads = [x[..., h, :, :] for h in range(num_heads)]
    return np.concatenate(heads, axis=-2)


@answer("merge_heads", note="swap right, then reshape(T, -1): folds the batch into the columns")
def merge_heads_reshape_T_minus_one(x):
    x = np.asarray(x, dtype=float)
    T = x.shape[-2]
    x = np.swapaxes(x, -3, -2)                         # (..., T, h, d_head)
    return x.reshape(T, -1)


@answer("merge_heads", note="einsum 'htd->thd' written for 3-D input only")
def merge_heads_einsum_3d(x):
    x = np.asarray(x, dtype=float)
    num_heads, T, d_head = x.shape[-3:]
    return np.einsum("htd->thd", x).reshape(T, num_heads * d_head)


@answer("merge_heads", note="returns the list of the heads, never concatenated")
def merge_heads_list_of_heads(x):
    x = np.asarray(x, dtype=float)
    return [x[..., h, :, :] for h in range(x.shape[-3])]


@answer("merge_heads", note="mixes up the axis names: unpacks x.shape as (T, h, d_head)")
def merge_heads_axes_misnamed(x):
    x = np.asarray(x, dtype=float)
    *lead, T, num_heads, d_head = x.shape
    x = np.swapaxes(x, -3, -2)
    return x.reshape(*lead, T, num_heads * d_head)


@answer("merge_heads", note="num_heads hard-coded to 4, the notebook example's number of heads")
def merge_heads_hardcoded_four_heads(x):
    x = np.asarray(x, dtype=float)
    *lead, num_heads, T, d_head = x.shape
    x = np.swapaxes(x, -3, -2)                         # (..., T, h, d_head)
    return x.reshape(*lead, T, 4 * d_head)


# --------------------------------------------------------------------------------------------
# Exercise 3 · my_multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, mask=None)
# --------------------------------------------------------------------------------------------

@answer("multi_head_attention", kind="variant", expect="sqrt of d_model", note="scales by sqrt(d_model) instead of sqrt(d_head)")
def mha_scale_dmodel(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q = cu.split_heads(x @ w_q, num_heads)
    k = cu.split_heads(x @ w_k, num_heads)
    v = cu.split_heads(x @ w_v, num_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(x.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="no output projection", note="forgot the output projection w_o")
def mha_no_output_projection(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores, axis=-1)
    return cu.merge_heads(weights @ v), weights


@answer("multi_head_attention", kind="variant", expect="mask without a heads axis", note="mask used without a heads axis (fine for (T, T), not (B, 1, T))")
def mha_mask_no_head_axis(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = cu.softmax(scores, axis=-1)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="split and merge without transpose",
        note="own split: reshape straight to heads, no transpose (and merged back by one reshape)")
def mha_reshape_split(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    d_head = d_model // num_heads

    def split(a):
        return a.reshape(*lead, num_heads, T, d_head)

    q, k, v = split(x @ w_q), split(x @ w_k), split(x @ w_v)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores)
    heads = weights @ v
    return heads.reshape(*lead, T, d_model) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="softmax over the wrong axis", note="softmax over axis -2 (queries)")
def mha_softmax_wrong_axis(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores, axis=-2)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="transpose for a fixed number of axes", note="k.transpose(0, 2, 1) assumes (h, T, d_head): breaks with a batch")
def mha_fixed_transpose(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    d_head = q.shape[-1]
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(d_head)     # (h, T, d_head) -> (h, d_head, T)
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", note="splits the input x's columns per head (block-diagonal projections)")
def mha_split_input_columns(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    d_model = x.shape[-1]
    d_head = d_model // num_heads
    outs, all_w = [], []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        xh = x[..., cols]                               # this head's part of the input
        q = xh @ w_q[cols, cols]
        k = xh @ w_k[cols, cols]
        v = xh @ w_v[cols, cols]
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        w = cu.softmax(scores)
        outs.append(w @ v)
        all_w.append(w)
    return np.concatenate(outs, axis=-1) @ w_o, np.stack(all_w, axis=-3)


@answer("multi_head_attention", kind="variant", expect="weights averaged over heads", note="returns weights averaged over heads (nn.MultiheadAttention default)")
def mha_average_weights(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores)
    output = cu.merge_heads(weights @ v) @ w_o
    return output, weights.mean(axis=-3)


@answer("multi_head_attention", kind="variant", expect="mask after the softmax",
        note="applies the mask by zeroing weights after the softmax")
def mha_mask_after_softmax(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    weights = cu.softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]))
    if mask is not None:
        weights = weights * np.asarray(mask, bool)[..., None, :, :]
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", note="loop over heads slicing rows of W_Q/W_K/W_V instead of columns")
def mha_loop_slices_rows(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    d_model = x.shape[-1]
    d_head = d_model // num_heads
    outs, all_w = [], []
    for h in range(num_heads):
        rows = slice(h * d_head, (h + 1) * d_head)
        q = x @ w_q[rows, :].T                          # (..., T, d_head)
        k = x @ w_k[rows, :].T
        v = x @ w_v[rows, :].T
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        w = cu.softmax(scores)
        outs.append(w @ v)
        all_w.append(w)
    return np.concatenate(outs, axis=-1) @ w_o, np.stack(all_w, axis=-3)


@answer("multi_head_attention", note="w_o applied before the attention, to the values")
def mha_wo_on_values(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q = cu.split_heads(x @ w_q, num_heads)
    k = cu.split_heads(x @ w_k, num_heads)
    v = cu.split_heads(x @ w_v @ w_o, num_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v), weights


@answer("multi_head_attention", kind="variant", expect="scaled by sqrt(num_heads)", note="scales by sqrt(num_heads) instead of sqrt(d_head)")
def mha_scale_num_heads(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(num_heads)
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", note="loop over heads; stacks the weights on axis 0 (in front of the batch)")
def mha_loop_stack_axis0(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    d_model = x.shape[-1]
    d_head = d_model // num_heads
    q_all, k_all, v_all = x @ w_q, x @ w_k, x @ w_v
    outs, all_w = [], []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        q, k, v = q_all[..., cols], k_all[..., cols], v_all[..., cols]
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        w = cu.softmax(scores)
        outs.append(w @ v)
        all_w.append(w)
    return np.concatenate(outs, axis=-1) @ w_o, np.stack(all_w)


@answer("multi_head_attention", note="d_model read from x.shape[1] (that is T for a batch)")
def mha_dmodel_from_axis1(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    d_model = x.shape[1]
    d_head = d_model // num_heads
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="inverted mask", note="nn.MultiheadAttention convention: -inf where the mask is True")
def mha_mask_true_is_blocked(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], -np.inf, scores)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", note="adds the residual x to the output (transformer-block habit)")
def mha_residual(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores)
    return x + cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="mask without a heads axis", note="heads axis inserted as mask[:, None]: right for (B, 1, T), not for a (T, T) mask")
def mha_mask_axis_one(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[:, None], scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", note="scale hard-coded to sqrt(2), the notebook example's d_head")
def mha_hardcoded_scale(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(2)
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights
