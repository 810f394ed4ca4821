"""Recall set for notebook 04: realistic variants of the known mistakes of check_split_heads,
check_merge_heads and check_multi_head_attention (``kind="variant"``).

Each function makes exactly one known mistake, written differently from the mutants of
tests/test_checks_heads.py, and reproduces that mistake's result on every case the checker runs.
"""
import numpy as np

import course_utils as cu
from learner_answers import answer


# ============================================================================ split_heads(x, num_heads)
# -- reshape without transpose
@answer("split_heads", kind="variant", expect="split without the transpose",
        note="reshape straight to (..., h, T, -1) using x.shape[:-2]")
def var_split_reshape_minus_one(x, num_heads):
    x = np.asarray(x, dtype=float)
    return x.reshape(*x.shape[:-2], num_heads, x.shape[-2], -1)


@answer("split_heads", kind="variant", expect="split without the transpose",
        note="np.reshape with a shape tuple built from the leading axes")
def var_split_np_reshape_tuple(x, num_heads):
    x = np.asarray(x, dtype=float)
    T, d_model = x.shape[-2:]
    new_shape = x.shape[:-2] + (num_heads, T, d_model // num_heads)
    return np.reshape(x, new_shape)


# -- interleaved columns
@answer("split_heads", kind="variant", expect="interleaved columns",
        note="reshape to (..., T, d_head, h), then einsum to (..., h, T, d_head)")
def var_split_einsum_interleaved(x, num_heads):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    d_head = d_model // num_heads
    r = x.reshape(*lead, T, d_head, num_heads)
    return np.einsum("...tdh->...htd", r)


@answer("split_heads", kind="variant", expect="interleaved columns",
        note="loop picking columns i, i + h, i + 2h, ... with fancy indexing")
def var_split_fancy_index_stride(x, num_heads):
    x = np.asarray(x, dtype=float)
    d_model = x.shape[-1]
    heads = []
    for i in range(num_heads):
        heads.append(x[..., np.arange(i, d_model, num_heads)])
    return np.stack(heads, axis=-3)


# -- forgot the transpose
@answer("split_heads", kind="variant", expect="forgot the transpose",
        note="reshape (..., T, h, -1) and stops there")
def var_split_reshape_heads_second(x, num_heads):
    x = np.asarray(x, dtype=float)
    return x.reshape(*x.shape[:-1], num_heads, -1)


@answer("split_heads", kind="variant", expect="forgot the transpose",
        note="np.split into column blocks, stacked on axis -2 instead of -3")
def var_split_stack_axis_minus_2(x, num_heads):
    x = np.asarray(x, dtype=float)
    blocks = np.split(x, num_heads, axis=-1)
    return np.stack(blocks, axis=-2)


# -- transposed the wrong axes
@answer("split_heads", kind="variant", expect="transposed the wrong axes",
        note="np.moveaxis(..., -1, -2) after the reshape")
def var_split_moveaxis_last_two(x, num_heads):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    r = x.reshape(*lead, T, num_heads, d_model // num_heads)
    return np.moveaxis(r, -1, -2)


@answer("split_heads", kind="variant", expect="transposed the wrong axes",
        note="transpose listing every axis, the last two exchanged")
def var_split_transpose_last_two(x, num_heads):
    x = np.asarray(x, dtype=float)
    r = x.reshape(*x.shape[:-1], num_heads, x.shape[-1] // num_heads)
    n = r.ndim
    return r.transpose(*range(n - 2), n - 1, n - 2)


# -- only for one sequence
@answer("split_heads", kind="variant", expect="only for one sequence",
        note="T = x.shape[0] and d_model = x.shape[1]: right for 2-D input only")
def var_split_shape_indices_2d(x, num_heads):
    x = np.asarray(x, dtype=float)
    T = x.shape[0]
    d_head = x.shape[1] // num_heads
    return x.reshape(T, num_heads, d_head).transpose(1, 0, 2)


@answer("split_heads", kind="variant", expect="transpose for a fixed number of axes",
        note="np.transpose(..., (1, 0, 2)) after a reshape that keeps the leading axes")
def var_split_np_transpose_102(x, num_heads):
    x = np.asarray(x, dtype=float)
    r = x.reshape(*x.shape[:-1], num_heads, -1)
    return np.transpose(r, (1, 0, 2))


@answer("split_heads", kind="variant", expect="transpose for a fixed number of axes",
        note="notebook 04's batch cell: .transpose(0, 2, 1, 3), 4-D only, fails without a batch")
def var_split_transpose_0213(x, num_heads):
    *lead, T, d_model = x.shape
    return x.reshape(*lead, T, num_heads, d_model // num_heads).transpose(0, 2, 1, 3)


# -- float d_head
@answer("split_heads", kind="variant", expect="float d_head",
        note="preallocates np.zeros with d_model / num_heads, then fills it")
def var_split_zeros_float_d_head(x, num_heads):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    d_head = d_model / num_heads
    out = np.zeros((*lead, num_heads, T, d_head))
    for h in range(num_heads):
        out[..., h, :, :] = x[..., int(h * d_head):int((h + 1) * d_head)]
    return out


@answer("split_heads", kind="variant", expect="float d_head",
        note="np.reshape with d_model / num_heads in the shape")
def var_split_np_reshape_float(x, num_heads):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    parts = np.reshape(x, (*lead, T, num_heads, d_model / num_heads))
    return np.swapaxes(parts, -3, -2)


# -- split the positions
@answer("split_heads", kind="variant", expect="split the positions",
        note="np.array of np.split along axis -2 (the rows)")
def var_split_array_of_row_split(x, num_heads):
    x = np.asarray(x, dtype=float)
    return np.array(np.split(x, num_heads, axis=-2))


@answer("split_heads", kind="variant", expect="split the positions",
        note="np.split along axis x.ndim - 2, collected in a list comprehension")
def var_split_rows_comprehension(x, num_heads):
    x = np.asarray(x, dtype=float)
    chunks = [chunk for chunk in np.split(x, num_heads, axis=x.ndim - 2)]
    return np.stack(chunks)


# ============================================================================ merge_heads(x)
# -- reshape without transpose
@answer("merge_heads", kind="variant", expect="merge without the transpose",
        note="reshape to (..., T, -1) straight away")
def var_merge_reshape_minus_one(x):
    x = np.asarray(x, dtype=float)
    return x.reshape(*x.shape[:-3], x.shape[-2], -1)


@answer("merge_heads", kind="variant", expect="merge without the transpose",
        note="np.reshape with a shape tuple, no axis swap")
def var_merge_np_reshape_tuple(x):
    x = np.asarray(x, dtype=float)
    num_heads, T, d_head = x.shape[-3:]
    return np.reshape(x, x.shape[:-3] + (T, num_heads * d_head))


# -- heads interleaved
@answer("merge_heads", kind="variant", expect="heads interleaved",
        note="einsum moving the heads axis last before the reshape")
def var_merge_einsum_heads_last(x):
    x = np.asarray(x, dtype=float)
    *lead, h, T, d = x.shape
    return np.einsum("...htd->...tdh", x).reshape(*lead, T, h * d)


@answer("merge_heads", kind="variant", expect="heads interleaved",
        note="stacks the heads on the last axis, then flattens the last two")
def var_merge_stack_last_axis(x):
    x = np.asarray(x, dtype=float)
    heads = [x[..., i, :, :] for i in range(x.shape[-3])]
    stacked = np.stack(heads, axis=-1)  # (..., T, d_head, h)
    return stacked.reshape(*stacked.shape[:-2], -1)


# -- summed or averaged the heads
@answer("merge_heads", kind="variant", expect="summed or averaged the heads",
        note="loop adding the heads up")
def var_merge_loop_sum(x):
    x = np.asarray(x, dtype=float)
    total = np.zeros_like(x[..., 0, :, :])
    for i in range(x.shape[-3]):
        total += x[..., i, :, :]
    return total


@answer("merge_heads", kind="variant", expect="summed or averaged the heads",
        note="sum over the heads axis divided by the number of heads")
def var_merge_sum_over_count(x):
    x = np.asarray(x, dtype=float)
    return x.sum(axis=x.ndim - 3) / x.shape[-3]


# -- stacked the heads as rows
@answer("merge_heads", kind="variant", expect="stacked the heads as rows",
        note="np.concatenate of the heads along axis -2 (the rows)")
def var_merge_concatenate_rows(x):
    x = np.asarray(x, dtype=float)
    return np.concatenate([x[..., i, :, :] for i in range(x.shape[-3])], axis=-2)


@answer("merge_heads", kind="variant", expect="stacked the heads as rows",
        note="reshape keeping d_head as the last axis: (..., h * T, d_head)")
def var_merge_reshape_keep_d_head(x):
    x = np.asarray(x, dtype=float)
    return x.reshape(*x.shape[:-3], -1, x.shape[-1])


# -- only for one sequence
@answer("merge_heads", kind="variant", expect="only for one sequence",
        note="loop over the first axis (the heads, for 3-D input), concatenated on the last")
def var_merge_loop_first_axis(x):
    x = np.asarray(x, dtype=float)
    parts = []
    for i in range(x.shape[0]):
        parts.append(x[i])
    return np.concatenate(parts, axis=-1)


@answer("merge_heads", kind="variant", expect="transpose for a fixed number of axes",
        note="np.transpose(x, (1, 0, 2)) then reshape: 3-D input only")
def var_merge_np_transpose_102(x):
    x = np.asarray(x, dtype=float)
    T = x.shape[-2]
    return np.transpose(x, (1, 0, 2)).reshape(T, -1)


# ============================================================================ multi_head_attention
def _split(a, h):
    return np.swapaxes(a.reshape(*a.shape[:-1], h, a.shape[-1] // h), -3, -2)


def _merge(a):
    return np.swapaxes(a, -3, -2).reshape(*a.shape[:-3], a.shape[-2], -1)


def _heads_mask(mask):
    return np.asarray(mask, dtype=bool)[..., None, :, :]


def _softmax(s, axis=-1):
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _attend(x, w_q, w_k, w_v, num_heads, mask):
    """Correct per-head attention: heads (..., h, T, d_head), weights (..., h, T, T)."""
    q, k, v = _split(x @ w_q, num_heads), _split(x @ w_k, num_heads), _split(x @ w_v, num_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(_heads_mask(mask), scores, -np.inf)
    weights = cu.softmax(scores, axis=-1)
    return weights @ v, weights


def _loop_heads(x, w_q, w_k, w_v, num_heads, mask):
    """Correct loop over heads: lists of per-head outputs (..., T, d_head) and weights (..., T, T)."""
    d_head = x.shape[-1] // num_heads
    outs, ws = [], []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        q, k, v = x @ w_q[:, cols], x @ w_k[:, cols], x @ w_v[:, cols]
        s = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)
        if mask is not None:
            s = np.where(mask, s, -np.inf)
        w = _softmax(s)
        outs.append(w @ v)
        ws.append(w)
    return outs, ws


# -- swapped outputs
@answer("multi_head_attention", kind="variant", expect="swapped outputs",
        note="the notebook's steps, `return weights, output`")
def var_mha_notebook_swapped(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    heads, weights = _attend(x, w_q, w_k, w_v, num_heads, mask)
    output = cu.merge_heads(heads) @ w_o
    return weights, output


@answer("multi_head_attention", kind="variant", expect="swapped outputs",
        note="loop over heads, returns [weights, output]")
def var_mha_loop_list_swapped(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    outs, ws = _loop_heads(x, w_q, w_k, w_v, num_heads, mask)
    return [np.stack(ws, axis=-3), np.concatenate(outs, axis=-1) @ w_o]


# -- no output projection
@answer("multi_head_attention", kind="variant", expect="no output projection",
        note="loop over heads, concatenated, W_O forgotten")
def var_mha_loop_no_w_o(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    outs, ws = _loop_heads(x, w_q, w_k, w_v, num_heads, mask)
    return np.concatenate(outs, axis=-1), np.stack(ws, axis=-3)


@answer("multi_head_attention", kind="variant", expect="no output projection",
        note="own split/merge, returns the merged heads")
def var_mha_own_merge_no_w_o(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    heads, weights = _attend(x, w_q, w_k, w_v, num_heads, mask)
    merged = _merge(heads)
    return merged, weights


# -- W_O per head
@answer("multi_head_attention", kind="variant", expect="W_O per head",
        note="loop: each head times its diagonal block of W_O, concatenated")
def var_mha_loop_block_diagonal(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    d_head = x.shape[-1] // num_heads
    outs, ws = _loop_heads(x, w_q, w_k, w_v, num_heads, mask)
    projected = []
    for h, out in enumerate(outs):
        block = w_o[h * d_head:(h + 1) * d_head, h * d_head:(h + 1) * d_head]
        projected.append(out @ block)
    return np.concatenate(projected, axis=-1), np.stack(ws, axis=-3)


@answer("multi_head_attention", kind="variant", expect="W_O per head",
        note="each head times its rows of W_O, accumulated and divided by num_heads")
def var_mha_rows_accumulated_averaged(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    d_head = x.shape[-1] // num_heads
    heads, weights = _attend(x, w_q, w_k, w_v, num_heads, mask)
    total = 0.0
    for h in range(num_heads):
        total = total + heads[..., h, :, :] @ w_o[h * d_head:(h + 1) * d_head, :]
    return total / num_heads, weights


# -- scaled by sqrt(d_model)
@answer("multi_head_attention", kind="variant", expect="sqrt of d_model",
        note="d_k taken from w_q.shape[1] (= d_model)")
def var_mha_d_k_from_w_q(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    d_k = w_q.shape[1]
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(_heads_mask(mask), scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="sqrt of d_model",
        note="loop over heads dividing by sqrt(x.shape[-1])")
def var_mha_loop_sqrt_d_model(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    d_model = x.shape[-1]
    d_head = d_model // num_heads
    outs, ws = [], []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        s = (x @ w_q[:, cols]) @ np.swapaxes(x @ w_k[:, cols], -1, -2) / np.sqrt(d_model)
        if mask is not None:
            s = np.where(mask, s, -np.inf)
        w = _softmax(s)
        outs.append(w @ (x @ w_v[:, cols]))
        ws.append(w)
    return np.concatenate(outs, axis=-1) @ w_o, np.stack(ws, axis=-3)


# -- other scale
@answer("multi_head_attention", kind="variant", expect="divide by d_k",
        note="divides by d_head, not its square root")
def var_mha_divide_by_d_head(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = np.einsum("...qd,...kd->...qk", q, k) / q.shape[-1]
    if mask is not None:
        scores = np.where(_heads_mask(mask), scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="scaled by sqrt(num_heads)",
        note="divides by sqrt(num_heads)")
def var_mha_sqrt_num_heads(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (_split(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(num_heads)
    if mask is not None:
        scores = np.where(_heads_mask(mask), scores, -np.inf)
    weights = _softmax(scores)
    return _merge(weights @ v) @ w_o, weights


# -- softmax over the wrong axis
@answer("multi_head_attention", kind="variant", expect="softmax over the wrong axis",
        note="cu.softmax(scores, axis=-3): across the heads")
def var_mha_softmax_axis_minus_3(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(_heads_mask(mask), scores, -np.inf)
    weights = cu.softmax(scores, axis=-3)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="softmax over the wrong axis",
        note="hand-written softmax with max and sum over axis 0")
def var_mha_own_softmax_axis_0(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(_heads_mask(mask), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=0, keepdims=True))
    weights = e / e.sum(axis=0, keepdims=True)
    return cu.merge_heads(weights @ v) @ w_o, weights


# -- heads merged in the wrong order
@answer("multi_head_attention", kind="variant", expect="merge without the transpose",
        note="merges with a plain reshape to (..., T, d_model)")
def var_mha_merge_plain_reshape(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    heads, weights = _attend(x, w_q, w_k, w_v, num_heads, mask)
    T, d_model = x.shape[-2:]
    merged = heads.reshape(*heads.shape[:-3], T, d_model)
    return merged @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="heads interleaved",
        note="merges with the heads axis moved last (einsum), then reshape")
def var_mha_merge_einsum_heads_last(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    heads, weights = _attend(x, w_q, w_k, w_v, num_heads, mask)
    merged = np.einsum("...htd->...tdh", heads).reshape(x.shape)
    return merged @ w_o, weights


# -- split without transpose
@answer("multi_head_attention", kind="variant", expect="split without the transpose",
        note="own split: reshape straight to (..., h, T, d_head)")
def var_mha_split_plain_reshape(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)

    def split(a):
        return a.reshape(*a.shape[:-2], num_heads, a.shape[-2], -1)

    q, k, v = split(x @ w_q), split(x @ w_k), split(x @ w_v)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(_heads_mask(mask), scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="interleaved columns",
        note="loop over heads with strided columns w[:, h::num_heads]")
def var_mha_loop_strided_columns(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    outs, ws = [], []
    for h in range(num_heads):
        q, k, v = x @ w_q[:, h::num_heads], x @ w_k[:, h::num_heads], x @ w_v[:, h::num_heads]
        s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
        if mask is not None:
            s = np.where(mask, s, -np.inf)
        w = cu.softmax(s)
        outs.append(w @ v)
        ws.append(w)
    return np.concatenate(outs, axis=-1) @ w_o, np.stack(ws, axis=-3)


# -- split and merge without transpose
@answer("multi_head_attention", kind="variant", expect="split and merge without transpose",
        note="split_heads and merge_heads helpers, each one reshape with the sizes read from the shape")
def var_mha_reshape_helpers_both_ways(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    B_T = x.shape[:-1]
    d_head = x.shape[-1] // num_heads

    def to_heads(a):
        return a.reshape(*B_T[:-1], num_heads, B_T[-1], d_head)

    def from_heads(a):
        return a.reshape(*B_T, num_heads * d_head)

    q, k, v = to_heads(x @ w_q), to_heads(x @ w_k), to_heads(x @ w_v)
    scores = np.matmul(q, np.swapaxes(k, -1, -2)) / np.sqrt(d_head)
    if mask is not None:
        scores = np.where(_heads_mask(mask), scores, -np.inf)
    weights = cu.softmax(scores, axis=-1)
    return from_heads(weights @ v) @ w_o, weights


# -- mask ignored
@answer("multi_head_attention", kind="variant", expect="mask ignored",
        note="builds the masked scores but takes the softmax of the unmasked ones")
def var_mha_masked_copy_unused(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        masked_scores = np.where(_heads_mask(mask), scores, -np.inf)  # noqa: F841 - never used
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="mask ignored",
        note="loop over heads that never looks at mask")
def var_mha_loop_without_mask(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    outs, ws = _loop_heads(x, w_q, w_k, w_v, num_heads, None)
    return np.concatenate(outs, axis=-1) @ w_o, np.stack(ws, axis=-3)


# -- mask after the softmax
@answer("multi_head_attention", kind="variant", expect="mask after the softmax",
        note="own split and softmax; weights *= mask (with its heads axis) after the softmax")
def var_mha_weights_times_mask(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = _split(x @ w_q, num_heads), _split(x @ w_k, num_heads), _split(x @ w_v, num_heads)
    weights = _softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]))
    if mask is not None:
        weights *= _heads_mask(mask)                      # blocked keys get weight 0
    return cu.merge_heads(weights @ v) @ w_o, weights


# -- mask without a heads axis
@answer("multi_head_attention", kind="variant", expect="mask without a heads axis",
        note="np.where(mask, scores, -1e9) without a heads axis, own softmax")
def var_mha_mask_no_heads_axis_large_negative(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (_split(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    weights = _softmax(scores)
    return _merge(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="mask without a heads axis",
        note="adds an additive mask np.where(mask, 0, -inf) without a heads axis")
def var_mha_additive_mask_no_heads_axis(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores + np.where(mask, 0.0, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


# -- weights averaged over heads
@answer("multi_head_attention", kind="variant", expect="weights averaged over heads",
        note="sums the weights over the heads axis and divides by num_heads")
def var_mha_weights_sum_over_heads(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    heads, weights = _attend(x, w_q, w_k, w_v, num_heads, mask)
    return cu.merge_heads(heads) @ w_o, weights.sum(axis=-3) / num_heads


@answer("multi_head_attention", kind="variant", expect="weights averaged over heads",
        note="loop over heads, returns sum(weights) / len(weights)")
def var_mha_loop_average_weights(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    outs, ws = _loop_heads(x, w_q, w_k, w_v, num_heads, mask)
    return np.concatenate(outs, axis=-1) @ w_o, sum(ws) / len(ws)


# -- product refuses the shapes (recognised by its error only)
@answer("multi_head_attention", kind="variant", expect="product refuses the shapes",
        note="head h uses the rows w[cols, :] of each projection (right only with one head)")
def var_mha_rows_of_projections(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    d_head = x.shape[-1] // num_heads
    outs, ws = [], []
    for h in range(num_heads):
        rows = slice(h * d_head, (h + 1) * d_head)
        q, k, v = np.dot(x, w_q[rows, :]), np.dot(x, w_k[rows, :]), np.dot(x, w_v[rows, :])
        s = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)
        if mask is not None:
            s = np.where(mask, s, -np.inf)
        w = cu.softmax(s)
        outs.append(w @ v)
        ws.append(w)
    return np.concatenate(outs, axis=-1) @ w_o, np.stack(ws, axis=-3)


@answer("multi_head_attention", kind="variant", expect="k.T on a batch",
        note="np.matmul(q, k.T) on the (..., h, T, d_head) heads")
def var_mha_matmul_k_dot_T(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (_split(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = np.matmul(q, k.T) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(_heads_mask(mask), scores, -np.inf)
    weights = cu.softmax(scores)
    return _merge(weights @ v) @ w_o, weights


# -- transpose written for one sequence
@answer("multi_head_attention", kind="variant", expect="transpose for a fixed number of axes",
        note="np.transpose(k, (0, 2, 1)) for the keys")
def var_mha_np_transpose_021(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.transpose(k, (0, 2, 1)) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(_heads_mask(mask), scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="transpose for a fixed number of axes",
        note="own merge with heads.transpose(1, 0, 2): 3-D heads only")
def var_mha_merge_transpose_102(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    heads, weights = _attend(x, w_q, w_k, w_v, num_heads, mask)
    merged = heads.transpose(1, 0, 2).reshape(x.shape[-2], -1)
    return merged @ w_o, weights


# -- the catalogue's scale, softmax, mask and batch mistakes in a multi-head layer
def _mha_with(x, w_q, w_k, w_v, w_o, num_heads, mask, *, divisor=None, softmax=cu.softmax, after=None, keys_t=None):
    """The notebook's layer with one step written another way (``after``: the mask applied to the weights)."""
    x = np.asarray(x, dtype=float)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    k_t = keys_t(k) if keys_t else np.swapaxes(k, -1, -2)
    scores = q @ k_t / (np.sqrt(q.shape[-1]) if divisor is None else divisor(q, k))
    if mask is not None and after is None:
        scores = np.where(_heads_mask(mask), scores, -np.inf)
    weights = softmax(scores)
    if mask is not None and after is not None:
        weights = after(weights, _heads_mask(mask))
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="no scale", note="scores q @ k^T, never divided")
def var_mha_unscaled(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    return _mha_with(x, w_q, w_k, w_v, w_o, num_heads, mask, divisor=lambda q, k: 1.0)


@answer("multi_head_attention", kind="variant", expect="sqrt of the number of keys", note="divides by sqrt(T)")
def var_mha_sqrt_T(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    T = x.shape[-2]
    return _mha_with(x, w_q, w_k, w_v, w_o, num_heads, mask, divisor=lambda q, k: T ** 0.5)


@answer("multi_head_attention", kind="variant", expect="no max shift", note="own softmax: exp(s) / sum, no shift")
def var_mha_softmax_no_shift(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    def softmax(s):
        e = np.exp(s)
        return e / e.sum(axis=-1, keepdims=True)
    return _mha_with(x, w_q, w_k, w_v, w_o, num_heads, mask, softmax=softmax)


@answer("multi_head_attention", kind="variant", expect="softmax over the whole array",
        note="own softmax with one max and one sum over every head")
def var_mha_softmax_whole(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    def softmax(s):
        e = np.exp(s - s.max())
        return e / e.sum()
    return _mha_with(x, w_q, w_k, w_v, w_o, num_heads, mask, softmax=softmax)


@answer("multi_head_attention", kind="variant", expect="zero then renormalise",
        note="softmax over all keys, blocked weights zeroed, rows divided by their sum")
def var_mha_zero_renormalise(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    def after(weights, mask):
        kept = weights * mask
        return kept / kept.sum(axis=-1, keepdims=True)
    return _mha_with(x, w_q, w_k, w_v, w_o, num_heads, mask, after=after)


@answer("multi_head_attention", kind="variant", expect="k.T on a batch", note="q @ k.T on the (..., h, T, d_head) keys")
def var_mha_k_dot_T(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    q, k, v = (cu.split_heads(np.asarray(x, float) @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(_heads_mask(mask), scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="k not transposed", note="np.matmul(q, k): the keys not transposed")
def var_mha_q_at_k(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    q, k, v = (cu.split_heads(np.asarray(x, float) @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = np.matmul(q, k) / np.sqrt(q.shape[-1])
    weights = cu.softmax(scores if mask is None else np.where(_heads_mask(mask), scores, -np.inf))
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="mask multiplied into the scores",
        note="every head's scores multiplied by the mask")
def var_mha_scores_times_mask(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    q, k, v = (cu.split_heads(np.asarray(x, float) @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores * _heads_mask(mask)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="boolean mask added to the scores",
        note="the boolean mask added to the scores, as a float mask would be")
def var_mha_scores_plus_mask(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    q, k, v = (cu.split_heads(np.asarray(x, float) @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores + _heads_mask(mask)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", kind="variant", expect="no softmax", note="each head's scores used as its weights")
def var_mha_no_softmax(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    return _mha_with(x, w_q, w_k, w_v, w_o, num_heads, mask, softmax=lambda scores: scores)


@answer("multi_head_attention", kind="variant", expect="swapped W_K and W_V", note="keys from w_v, values from w_k")
def var_mha_k_v_swapped(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    return _mha_with(x, w_q, w_v, w_k, w_o, num_heads, mask)
