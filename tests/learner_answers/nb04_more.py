"""More wrong answers to notebook 04 (split_heads, merge_heads, multi_head_attention), issue 24.

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


# ============================================================================ my_split_heads(x, num_heads)
@answer("split_heads", kind="variant", expect="only for one sequence",
        note="earlier trial: written for 2-D input only (T, d_model = x.shape)")
def more_split_2d_only(x, num_heads):
    x = np.asarray(x, dtype=float)
    T, d_model = x.shape
    d_head = d_model // num_heads
    return x.reshape(T, num_heads, d_head).transpose(1, 0, 2)


@answer("split_heads", expect="transpose for a fixed number of axes", note="earlier trial: the 4-D-only .transpose(0, 2, 1, 3) of notebook 04's cell")
def more_split_transpose_0213(x, num_heads):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    x = x.reshape(*lead, T, num_heads, d_model // num_heads)
    return x.transpose(0, 2, 1, 3)


@answer("split_heads", note="np.split into heads, np.stack on axis 0: the heads end up in front of the batch")
def more_split_stack_axis0(x, num_heads):
    x = np.asarray(x, dtype=float)
    return np.stack(np.split(x, num_heads, axis=-1))


@answer("split_heads", note="always returns 4-D: a (T, d_model) input gets a batch axis of 1")
def more_split_always_4d(x, num_heads):
    x = np.asarray(x, dtype=float)
    T, d_model = x.shape[-2:]
    return x.reshape(-1, T, num_heads, d_model // num_heads).swapaxes(1, 2)


@answer("split_heads", note="np.moveaxis(..., -2, 0): heads moved to the very front")
def more_split_moveaxis_front(x, num_heads):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    x = x.reshape(*lead, T, num_heads, d_model // num_heads)
    return np.moveaxis(x, -2, 0)


# ============================================================================ my_merge_heads(x)
@answer("merge_heads", expect="transpose for a fixed number of axes", note="earlier trial: the 4-D-only .transpose(0, 2, 1, 3), given a 3-D input")
def more_merge_transpose_0213(x):
    x = np.asarray(x, dtype=float)
    *lead, h, T, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(*lead, T, h * d_head)


@answer("merge_heads", expect="only for one sequence", note="np.concatenate(x, axis=-1): right for 3-D, concatenates the batch for 4-D")
def more_merge_concatenate_first_axis(x):
    x = np.asarray(x, dtype=float)
    return np.concatenate(list(x), axis=-1)


@answer("merge_heads", expect="only for one sequence", note="np.hstack(x): right for one sequence only")
def more_merge_hstack(x):
    x = np.asarray(x, dtype=float)
    return np.hstack(x)


@answer("merge_heads", note="swapaxes then reshape(T, -1): written for one sequence")
def more_merge_reshape_t_minus_one(x):
    x = np.asarray(x, dtype=float)
    T = x.shape[-2]
    return np.swapaxes(x, -3, -2).reshape(T, -1)


@answer("merge_heads", note="concatenates the heads in reverse order")
def more_merge_reversed_heads(x):
    x = np.asarray(x, dtype=float)
    h = x.shape[-3]
    return np.concatenate([x[..., i, :, :] for i in reversed(range(h))], axis=-1)


# ============================================================================ my_multi_head_attention(...)
def _split(a, h):
    return cu.split_heads(a, h)


@answer("multi_head_attention", expect="zero then renormalise", note="earlier trial: zeroes masked weights after the softmax, then renormalises "
        "(03 teaches 'mask first')")
def more_mha_zero_then_renormalise(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = _split(x @ w_q, num_heads), _split(x @ w_k, num_heads), _split(x @ w_v, num_heads)
    weights = cu.softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]))
    if mask is not None:
        weights = weights * np.asarray(mask, bool)[..., None, :, :]
        weights = weights / weights.sum(axis=-1, keepdims=True)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", expect="transpose for a fixed number of axes", note="earlier trial: own split with the 4-D-only .transpose(0, 2, 1, 3)")
def more_mha_own_split_0213(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    d_head = d_model // num_heads

    def split(a):
        return a.reshape(*lead, T, num_heads, d_head).transpose(0, 2, 1, 3)

    q, k, v = split(x @ w_q), split(x @ w_k), split(x @ w_v)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", note="earlier trial: returns the raw scores as the weights (rows do not sum to one)")
def more_mha_raw_scores(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = _split(x @ w_q, num_heads), _split(x @ w_k, num_heads), _split(x @ w_v, num_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, 0.0)
    return cu.merge_heads(scores @ v) @ w_o, scores


@answer("multi_head_attention", note="earlier trial: weights divided by sqrt(d_head) after the softmax")
def more_mha_scale_after_softmax(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = _split(x @ w_q, num_heads), _split(x @ w_k, num_heads), _split(x @ w_v, num_heads)
    scores = q @ np.swapaxes(k, -1, -2)
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores) / np.sqrt(q.shape[-1])
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", expect="no max shift", note="own softmax without the max shift")
def more_mha_softmax_no_shift(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = _split(x @ w_q, num_heads), _split(x @ w_k, num_heads), _split(x @ w_v, num_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", expect="k.T on a batch", note="k.T on the split keys (reverses every axis)")
def more_mha_k_dot_t(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = _split(x @ w_q, num_heads), _split(x @ w_k, num_heads), _split(x @ w_v, num_heads)
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


@answer("multi_head_attention", note="the output projection applied twice (once after merging, once more by habit)")
def more_mha_wo_twice(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q, k, v = _split(x @ w_q, num_heads), _split(x @ w_k, num_heads), _split(x @ w_v, num_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores)
    merged = cu.merge_heads(weights @ v)
    return merged @ w_o @ w_o, weights
