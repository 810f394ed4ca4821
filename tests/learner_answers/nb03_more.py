"""More wrong answers to notebook 03 (padding_mask, causal_mask, masked_attention, buggy_masks), issue 24.

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


# ============================================================================ my_padding_mask(lengths, T)
@answer("padding_mask", note="assumes left padding: the real tokens at the end of each row")
def more_padding_left(lengths, T):
    lengths = np.asarray(lengths)
    return np.arange(T)[None, :] >= (T - lengths)[:, None]


@answer("padding_mask", expect="one row for all sequences", note="compares with lengths without a new axis: works only when B == T")
def more_padding_no_axis(lengths, T):
    lengths = np.asarray(lengths)
    return np.arange(T) < lengths


@answer("padding_mask", note="returns (B, 1, T), ready for broadcasting, instead of (B, T)")
def more_padding_extra_axis(lengths, T):
    lengths = np.asarray(lengths)
    return (np.arange(T)[None, :] < lengths[:, None])[:, None, :]


@answer("padding_mask", expect="one padding position too many", note="loop with mask[b, :n + 1] = True (one <pad> position too many)")
def more_padding_loop_plus_one(lengths, T):
    lengths = np.asarray(lengths)
    mask = np.zeros((len(lengths), T), dtype=bool)
    for b, n in enumerate(lengths):
        mask[b, :n + 1] = True
    return mask


@answer("padding_mask", expect="inverted", note="marks the <pad> positions True (the 'True = hidden' convention) via a loop")
def more_padding_true_means_pad(lengths, T):
    lengths = np.asarray(lengths)
    mask = np.zeros((len(lengths), T), dtype=bool)
    for b in range(len(lengths)):
        mask[b, lengths[b]:] = True
    return mask


# ============================================================================ my_causal_mask(T)
@answer("causal_mask", expect="each token sees only itself", note="earlier trial: np.eye: each token sees only itself")
def more_causal_eye(T):
    return np.eye(T, dtype=bool)


@answer("causal_mask", note="issue 24: the mask of size T - 1 (a range that stops one short)")
def more_causal_size_minus_one(T):
    return np.tril(np.ones((T - 1, T - 1), dtype=bool))


@answer("causal_mask", note="returns the additive float mask (0 and -inf) instead of a boolean one")
def more_causal_additive(T):
    return np.triu(np.full((T, T), -np.inf), k=1)


@answer("causal_mask", note="all True: thinks the softmax handles the order")
def more_causal_all_true(T):
    return np.ones((T, T), dtype=bool)


@answer("causal_mask", expect="cannot see itself", note="j < i with a double loop (no token sees itself)")
def more_causal_loop_strict(T):
    mask = np.zeros((T, T), dtype=bool)
    for i in range(T):
        for j in range(T):
            mask[i, j] = j < i
    return mask


@answer("causal_mask", expect="future instead of past", note="transposed: True where j >= i, via np.triu")
def more_causal_triu(T):
    return np.triu(np.ones((T, T), dtype=bool))


# ============================================================================ my_masked_attention(q, k, v, mask)
def _scores(q, k):
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])


def _own_softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@answer("masked_attention", kind="variant", expect="nan in an empty row",
        note="earlier trial: np.where(mask, scores, -np.inf) then an own softmax: nan on an empty row")
def more_masked_where_inf_own_softmax(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = np.where(mask, _scores(q, k), -np.inf)
    weights = _own_softmax(scores)
    return weights @ v, weights


@answer("masked_attention", note="earlier trial: returns the masked raw scores as the weights (rows do not sum to one)")
def more_masked_raw_scores(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = np.where(mask, _scores(q, k), 0.0)
    return scores @ v, scores


@answer("masked_attention", note="earlier trial: weights divided by sqrt(d_k) after the softmax")
def more_masked_scale_after_softmax(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2), -np.inf)
    weights = cu.softmax(scores) / np.sqrt(q.shape[-1])
    return weights @ v, weights


@answer("masked_attention", expect="mask multiplied into the scores", note="masks with 0 instead of -inf (a blocked key still gets weight)")
def more_masked_with_zero(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    weights = cu.softmax(np.where(mask, _scores(q, k), 0.0))
    return weights @ v, weights


@answer("masked_attention", note="boolean indexing scores[~mask] = -inf: fails when the mask only broadcasts")
def more_masked_boolean_index(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = _scores(q, k)
    scores[~mask] = -np.inf
    weights = cu.softmax(scores)
    return weights @ v, weights


@answer("masked_attention", note="the mask applied to the values (zeroes masked value rows) instead of the scores")
def more_masked_on_values(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    weights = cu.softmax(_scores(q, k))
    weights = weights * mask
    return weights @ v, cu.softmax(np.where(mask, _scores(q, k), -np.inf))


@answer("masked_attention", expect="matmul shapes", note="1-D-only np.dot-style: q @ k.T with np.dot, wrong for a batch")
def more_masked_np_dot(q, k, v, mask):
    q, k, v, mask = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float), np.asarray(mask)
    scores = np.dot(q, k.T) / np.sqrt(q.shape[-1])
    weights = cu.softmax(np.where(mask, scores, -np.inf))
    return np.dot(weights, v), weights


# ============================================================================ my_buggy_masks()
@answer("buggy_masks", note="only one buggy mask per situation")
def more_buggy_one_each():
    return {"causal": ["A"], "padding": ["B"], "causal + padding": ["A"]}




@answer("buggy_masks", note="lists the correct masks instead of the buggy ones")
def more_buggy_lists_correct_ones():
    return {"causal": ["B"], "padding": ["A", "C"], "causal + padding": ["B"]}


@answer("buggy_masks", note="situation names without spaces")
def more_buggy_key_names():
    return {"causal": ["A", "C"], "padding": ["B"], "causal+padding": ["A", "C"]}


@answer("buggy_masks", note="calls every candidate buggy, to be safe")
def more_buggy_all():
    return {"causal": ["A", "B", "C"], "padding": ["A", "B", "C"], "causal + padding": ["A", "B", "C"]}


@answer("buggy_masks", note="misses C in 'causal + padding' (cannot see itself looks like a causal mask)")
def more_buggy_misses_diagonal():
    return {"causal": ["A", "C"], "padding": ["B"], "causal + padding": ["A"]}
