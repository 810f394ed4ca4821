"""More wrong answers to notebook 02 (shapes, project, scaled_scores, self_attention), issue 24.

Written from the notebook's exercise texts before reading the checkers, as a new learner would, and
from the mistakes earlier learner trials found. ``kind="other"`` unless the mistake is one the
checker already names (then ``kind="variant"``).
"""
import math

import numpy as np

import course_utils as cu
from learner_answers import answer

#: Answers this module's checkers get wrong today (issue 24), by answer id, with what goes wrong. The
#: precision test runs them as xfail(strict=True): it fails once a fix lands, and the entry must go.
KNOWN_GAPS = {}


# ============================================================================ my_shapes(T, d_model, d_k, d_v)
def _table(T, d_model, d_k, d_v, **change):
    shapes = {"X": (T, d_model), "W_Q": (d_model, d_k), "W_K": (d_model, d_k), "W_V": (d_model, d_v),
              "Q": (T, d_k), "K": (T, d_k), "V": (T, d_v), "scores": (T, T), "weights": (T, T),
              "output": (T, d_v)}
    shapes.update(change)
    return shapes


@answer("shapes", note="every weight matrix written (d_k, d_model), as in 'maps d_model to d_k'")
def more_shapes_weights_transposed(T, d_model, d_k, d_v):
    return _table(T, d_model, d_k, d_v, W_Q=(d_k, d_model), W_K=(d_k, d_model), W_V=(d_v, d_model))


@answer("shapes", note="V and output of width d_k (assumes d_v = d_k)")
def more_shapes_v_width_dk(T, d_model, d_k, d_v):
    return _table(T, d_model, d_k, d_v, W_V=(d_model, d_k), V=(T, d_k), output=(T, d_k))


@answer("shapes", note="lower-case keys w_q, w_k, w_v")
def more_shapes_lower_case(T, d_model, d_k, d_v):
    shapes = _table(T, d_model, d_k, d_v)
    for name in ("W_Q", "W_K", "W_V"):
        shapes[name.lower()] = shapes.pop(name)
    return shapes


@answer("shapes", note="output of width d_model (thinks attention keeps the embedding width)")
def more_shapes_output_dmodel(T, d_model, d_k, d_v):
    return _table(T, d_model, d_k, d_v, output=(T, d_model))


# ============================================================================ my_project(x, w_q, w_k, w_v)
@answer("project", expect="k from w_q", note="earlier trial: w_q used for both q and k (copy-paste)")
def more_project_wq_twice(x, w_q, w_k, w_v):
    q = x @ w_q
    k = x @ w_q
    v = x @ w_v
    return q, k, v


@answer("project", expect="weights on the left", note="x @ w.T for every projection (square case runs)")
def more_project_weights_transposed(x, w_q, w_k, w_v):
    return x @ w_q.T, x @ w_k.T, x @ w_v.T


@answer("project", note="returns a dict instead of the tuple q, k, v")
def more_project_dict(x, w_q, w_k, w_v):
    return {"q": x @ w_q, "k": x @ w_k, "v": x @ w_v}


@answer("project", note="w_k used for both k and v")
def more_project_wk_twice(x, w_q, w_k, w_v):
    q, k, v = np.dot(x, w_q), np.dot(x, w_k), np.dot(x, w_k)
    return q, k, v


@answer("project", note="returns only q and k (forgot v)")
def more_project_two_outputs(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k


# ============================================================================ my_scaled_scores(q, k)
@answer("scaled_scores", kind="variant", expect="sqrt of the number of queries",
        note="earlier trial: divides by sqrt(len(q)), the number of queries")
def more_scaled_len_q(q, k):
    return q @ k.T / np.sqrt(len(q))


@answer("scaled_scores", expect="sqrt of every entry of q", note="earlier trial: divides by sqrt(q.size), all entries of q")
def more_scaled_q_size(q, k):
    return (q @ k.T) / np.sqrt(q.size)


@answer("scaled_scores", expect="sqrt of the number of keys", note="earlier trial: divides by sqrt of the number of keys, k.shape[0]")
def more_scaled_number_of_keys(q, k):
    n_keys = k.shape[0]
    return np.matmul(q, k.T) / math.sqrt(n_keys)


@answer("scaled_scores", note="d_k taken from the ticket (4), not from the arrays")
def more_scaled_hardcoded_dk(q, k):
    return q @ k.T / np.sqrt(4)


@answer("scaled_scores", note="divides by sqrt(d_k + d_k): adds the widths of q and k")
def more_scaled_sum_of_widths(q, k):
    return q @ k.T / np.sqrt(q.shape[1] + k.shape[1])


@answer("scaled_scores", note="divides by the norm of each query (a cosine-like scale)")
def more_scaled_query_norm(q, k):
    return q @ k.T / np.linalg.norm(q, axis=-1, keepdims=True)


# ============================================================================ my_self_attention(x, w_q, w_k, w_v)
@answer("self_attention", expect="sqrt of d_model", note="earlier trial: scales by sqrt(d_model) (x.shape[-1]) instead of sqrt(d_k)")
def more_self_sqrt_dmodel(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(x.shape[-1])
    weights = cu.softmax(scores)
    return weights @ v, weights


@answer("self_attention", kind="variant", expect="softmax over the wrong axis",
        note="earlier trial: softmax over axis 0")
def more_self_softmax_axis0(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(k.shape[1])
    weights = cu.softmax(scores, axis=0)
    return weights @ v, weights


@answer("self_attention", expect="softmax over the whole array", note="earlier trial: softmax over the whole matrix (all T*T entries sum to one)")
def more_self_softmax_whole_matrix(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max())
    weights = e / e.sum()
    return weights @ v, weights


@answer("self_attention", expect="no max shift", note="earlier trial: own softmax without the max shift (overflows on large scores)")
def more_self_softmax_no_shift(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(q.shape[-1])
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights


@answer("self_attention", note="earlier trial: w_q used for both q and k")
def more_self_wq_twice(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_q, x @ w_v
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return weights @ v, weights


@answer("self_attention", note="earlier trial: weights divided by sqrt(d_k) after the softmax (rows do not sum to one)")
def more_self_scale_after_softmax(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = cu.softmax(q @ k.T) / np.sqrt(q.shape[-1])
    return weights @ v, weights


@answer("self_attention", expect="output product order", note="softmax over the rows, then the weights transposed before mixing the values")
def more_self_weights_transposed_in_mix(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return weights.T @ v, weights
