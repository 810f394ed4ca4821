"""Recall set for notebook 02: realistic variants of the known mistakes of check_project,
check_scaled_scores and check_self_attention (``kind="variant"``).

Each function makes exactly one known mistake, written differently from the mutants of
tests/test_checks_qkv.py, and reproduces that mistake's result on every case the checker runs.
(check_shapes has no mistake table: no variants here.)
"""
import math

import numpy as np

import course_utils as cu
from learner_answers import answer


# ============================================================================ project(x, w_q, w_k, w_v)
# -- swapped W_K and W_V
@answer("project", kind="variant", expect="swapped W_K and W_V",
        note="np.dot, with k and v assigned from each other's matrix")
def var_project_dot_k_v_swapped(x, w_q, w_k, w_v):
    q = np.dot(x, w_q)
    v = np.dot(x, w_k)
    k = np.dot(x, w_v)
    return q, k, v


@answer("project", kind="variant", expect="swapped W_K and W_V",
        note="loop over the matrices listed as (w_q, w_v, w_k)")
def var_project_loop_k_v_swapped(x, w_q, w_k, w_v):
    out = []
    for w in (w_q, w_v, w_k):
        out.append(np.matmul(x, w))
    return tuple(out)


# -- swapped W_Q and W_K
@answer("project", kind="variant", expect="swapped W_Q and W_K",
        note="unpacks the projections in the order k, q, v")
def var_project_unpack_k_q_v(x, w_q, w_k, w_v):
    k, q, v = x @ w_q, x @ w_k, x @ w_v
    return q, k, v


@answer("project", kind="variant", expect="swapped W_Q and W_K",
        note="dict of projections with the q and k matrices exchanged")
def var_project_dict_q_k_swapped(x, w_q, w_k, w_v):
    projections = {"q": x @ w_k, "k": x @ w_q, "v": x @ w_v}
    return projections["q"], projections["k"], projections["v"]


# -- other order
@answer("project", kind="variant", expect="other order",
        note="right projections, returned as (k, v, q)")
def var_project_returns_k_v_q(x, w_q, w_k, w_v):
    q = np.matmul(x, w_q)
    k = np.matmul(x, w_k)
    v = np.matmul(x, w_v)
    return k, v, q


@answer("project", kind="variant", expect="other order",
        note="right projections, returned as (v, q, k)")
def var_project_returns_v_q_k(x, w_q, w_k, w_v):
    q, k, v = (x @ w for w in (w_q, w_k, w_v))
    return v, q, k


# -- one matrix for all
@answer("project", kind="variant", expect="one matrix for all",
        note="loop over the three matrices but multiplies by w_q every time")
def var_project_loop_always_w_q(x, w_q, w_k, w_v):
    out = []
    for w in (w_q, w_k, w_v):  # noqa: B007 - w is never used
        out.append(x @ w_q)
    return out[0], out[1], out[2]


@answer("project", kind="variant", expect="k from w_q",
        note="copy-paste slip: k uses w_q too")
def var_project_copy_paste_k(x, w_q, w_k, w_v):
    q = np.dot(x, w_q)
    k = np.dot(x, w_q)
    v = np.dot(x, w_v)
    return q, k, v


# -- weights on the left
@answer("project", kind="variant", expect="weights on the left",
        note="np.dot(w, x): the matrix first")
def var_project_dot_weights_first(x, w_q, w_k, w_v):
    return np.dot(w_q, x), np.dot(w_k, x), np.dot(w_v, x)


@answer("project", kind="variant", expect="weights on the left",
        note="np.matmul(x, np.transpose(w)): transposes the matrices")
def var_project_matmul_transposed_weights(x, w_q, w_k, w_v):
    return tuple(np.matmul(x, np.transpose(w)) for w in (w_q, w_k, w_v))


# -- elementwise product
@answer("project", kind="variant", expect="elementwise product",
        note="np.multiply instead of a matrix product")
def var_project_np_multiply(x, w_q, w_k, w_v):
    return np.multiply(x, w_q), np.multiply(x, w_k), np.multiply(x, w_v)


@answer("project", kind="variant", expect="elementwise product",
        note="`*` in a comprehension")
def var_project_star_comprehension(x, w_q, w_k, w_v):
    q, k, v = [x * w for w in (w_q, w_k, w_v)]
    return q, k, v


# ============================================================================ scaled_scores(q, k)
# -- no scale
@answer("scaled_scores", kind="variant", expect="no scale", note="einsum dot products, no division")
def var_scores_einsum_no_scale(q, k):
    return np.einsum("id,jd->ij", q, k)


@answer("scaled_scores", kind="variant", expect="no scale", note="double loop of np.dot, no division")
def var_scores_loop_no_scale(q, k):
    scores = np.zeros((q.shape[0], k.shape[0]))
    for i in range(q.shape[0]):
        for j in range(k.shape[0]):
            scores[i, j] = np.dot(q[i], k[j])
    return scores


# -- divide by d_k
@answer("scaled_scores", kind="variant", expect="divide by d_k",
        note="einsum, divided by k.shape[1] without the square root")
def var_scores_einsum_divide_by_dk(q, k):
    d_k = k.shape[1]
    return np.einsum("id,jd->ij", q, k) / d_k


@answer("scaled_scores", kind="variant", expect="divide by d_k", note="(q @ k.T) / len(q[0])")
def var_scores_len_of_a_row(q, k):
    return (q @ k.T) / len(q[0])


# -- multiply by sqrt(d_k)
@answer("scaled_scores", kind="variant", expect="multiply by sqrt(d_k)", note="* d_k ** 0.5")
def var_scores_times_power_half(q, k):
    d_k = q.shape[-1]
    return q @ k.T * d_k ** 0.5


@answer("scaled_scores", kind="variant", expect="multiply by sqrt(d_k)",
        note="divides by 1 / sqrt(d_k), i.e. multiplies")
def var_scores_divide_by_inverse_sqrt(q, k):
    scale = 1 / np.sqrt(q.shape[1])
    return np.matmul(q, k.T) / scale


# -- sqrt of the number of queries, of the keys
@answer("scaled_scores", kind="variant", expect="sqrt of the number of queries",
        note="unpacks q.shape the wrong way round: d_k is the number of queries")
def var_scores_unpack_shape_reversed(q, k):
    d_k, n_queries = q.shape
    return q @ k.T / math.sqrt(d_k)


@answer("scaled_scores", kind="variant", expect="sqrt of the number of keys", note="sqrt(len(k)): the number of keys")
def var_scores_sqrt_len_k(q, k):
    return np.dot(q, k.T) / np.sqrt(len(k))


# -- k not transposed
@answer("scaled_scores", kind="variant", expect="k not transposed", note="np.matmul(q, k) without .T")
def var_scores_matmul_no_transpose(q, k):
    return np.matmul(q, k) / np.sqrt(q.shape[1])


@answer("scaled_scores", kind="variant", expect="k not transposed", note="np.dot(q, k) without .T")
def var_scores_dot_no_transpose(q, k):
    d_k = k.shape[-1]
    return np.dot(q, k) / d_k ** 0.5


# -- reshape instead of transpose
@answer("scaled_scores", kind="variant", expect="reshape instead of transpose",
        note="k.reshape(k.shape[::-1]) as the 'transpose'")
def var_scores_reshape_reversed_shape(q, k):
    k_t = k.reshape(k.shape[::-1])
    return q @ k_t / np.sqrt(q.shape[-1])


@answer("scaled_scores", kind="variant", expect="reshape instead of transpose",
        note="np.reshape(k, (d_k, -1))")
def var_scores_np_reshape(q, k):
    d_k = q.shape[-1]
    return np.matmul(q, np.reshape(k, (d_k, -1))) / np.sqrt(d_k)


# -- transposed scores
@answer("scaled_scores", kind="variant", expect="transposed scores",
        note="computes the right scores, then transposes them")
def var_scores_transposed_result(q, k):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    return scores.T


@answer("scaled_scores", kind="variant", expect="transposed scores",
        note="double loop filling scores[j, i] (rows are keys)")
def var_scores_loop_keys_as_rows(q, k):
    d_k = q.shape[1]
    scores = np.zeros((k.shape[0], q.shape[0]))
    for i in range(q.shape[0]):
        for j in range(k.shape[0]):
            scores[j, i] = q[i] @ k[j] / np.sqrt(d_k)
    return scores


# -- softmax applied
@answer("scaled_scores", kind="variant", expect="softmax applied", note="cu.softmax of the scaled scores")
def var_scores_cu_softmax(q, k):
    return cu.softmax(q @ k.T / np.sqrt(q.shape[-1]), axis=-1)


@answer("scaled_scores", kind="variant", expect="softmax applied",
        note="hand-written softmax over each row at the end")
def var_scores_own_softmax(q, k):
    scores = np.einsum("id,jd->ij", q, k) / np.sqrt(k.shape[1])
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# -- elementwise product
@answer("scaled_scores", kind="variant", expect="elementwise product", note="np.multiply(q, k) / sqrt(d_k)")
def var_scores_np_multiply(q, k):
    return np.multiply(q, k) / np.sqrt(q.shape[-1])


@answer("scaled_scores", kind="variant", expect="elementwise product", note="q * k scaled by d_k ** -0.5")
def var_scores_star_power(q, k):
    d_k = k.shape[-1]
    return q * k * d_k ** -0.5


# ============================================================================ self_attention(x, w_q, w_k, w_v)
def _row_softmax(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# -- swapped outputs
@answer("self_attention", kind="variant", expect="swapped outputs",
        note="right computation, returns [weights, output]")
def var_sa_list_weights_first(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]), axis=-1)
    return [weights, weights @ v]


@answer("self_attention", kind="variant", expect="swapped outputs",
        note="own softmax; `return weights, np.matmul(weights, v)`")
def var_sa_own_softmax_swapped(x, w_q, w_k, w_v):
    q, k, v = np.matmul(x, w_q), np.matmul(x, w_k), np.matmul(x, w_v)
    weights = _row_softmax(np.matmul(q, k.T) / np.sqrt(k.shape[1]))
    return weights, np.matmul(weights, v)


# -- no scale
@answer("self_attention", kind="variant", expect="no scale", note="einsum scores without the 1/sqrt(d_k)")
def var_sa_einsum_no_scale(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = np.einsum("id,jd->ij", q, k)
    weights = cu.softmax(scores, axis=-1)
    return weights @ v, weights


@answer("self_attention", kind="variant", expect="no scale", note="own row softmax of q @ k.T, unscaled")
def var_sa_own_softmax_no_scale(x, w_q, w_k, w_v):
    q = x @ w_q
    k = x @ w_k
    v = x @ w_v
    weights = _row_softmax(q @ k.T)
    output = weights @ v
    return output, weights


# -- divide by d_k
@answer("self_attention", kind="variant", expect="divide by d_k", note="divides the scores by k.shape[-1]")
def var_sa_divide_by_key_width(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / k.shape[-1]
    weights = cu.softmax(scores)
    return weights @ v, weights


@answer("self_attention", kind="variant", expect="divide by d_k",
        note="d_k read from w_q.shape[1], used without the square root")
def var_sa_divide_by_w_q_width(x, w_q, w_k, w_v):
    d_k = w_q.shape[1]
    q, k, v = np.dot(x, w_q), np.dot(x, w_k), np.dot(x, w_v)
    weights = _row_softmax(np.dot(q, k.T) / d_k)
    return np.dot(weights, v), weights


# -- k not transposed
@answer("self_attention", kind="variant", expect="k not transposed", note="np.matmul(q, k) for the scores")
def var_sa_matmul_q_k(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = np.matmul(q, k) / np.sqrt(q.shape[-1])
    weights = cu.softmax(scores)
    return weights @ v, weights


@answer("self_attention", kind="variant", expect="k not transposed",
        note="queries @ keys with long variable names, no transpose")
def var_sa_long_names_no_transpose(x, w_q, w_k, w_v):
    queries, keys, values = x @ w_q, x @ w_k, x @ w_v
    scores = queries @ keys / np.sqrt(queries.shape[-1])
    weights = _row_softmax(scores)
    return weights @ values, weights


# -- softmax over the wrong axis, over the whole array
@answer("self_attention", kind="variant", expect="softmax over the wrong axis", note="cu.softmax(scores, axis=0)")
def var_sa_cu_softmax_axis_0(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]), axis=0)
    return weights @ v, weights


@answer("self_attention", kind="variant", expect="softmax over the whole array",
        note="softmax of the flattened score matrix, reshaped back")
def var_sa_softmax_of_flattened_scores(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(q.shape[-1])
    weights = cu.softmax(scores.ravel()).reshape(scores.shape)
    return weights @ v, weights


# -- swapped W_K and W_V
@answer("self_attention", kind="variant", expect="swapped W_K and W_V",
        note="unpacks the projections as q, v, k")
def var_sa_unpack_q_v_k(x, w_q, w_k, w_v):
    q, v, k = x @ w_q, x @ w_k, x @ w_v
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return weights @ v, weights


@answer("self_attention", kind="variant", expect="swapped W_K and W_V",
        note="loop over (w_q, w_v, w_k), own softmax")
def var_sa_loop_q_v_k(x, w_q, w_k, w_v):
    q, k, v = [x @ w for w in (w_q, w_v, w_k)]
    weights = _row_softmax(q @ k.T / np.sqrt(q.shape[1]))
    return weights @ v, weights


# -- scores transposed (or W_Q and W_K swapped)
@answer("self_attention", kind="variant", expect="scores transposed (or W_Q and W_K swapped)",
        note="einsum with the query and key indices exchanged")
def var_sa_einsum_keys_first(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = np.einsum("id,jd->ij", k, q) / np.sqrt(q.shape[-1])
    weights = cu.softmax(scores)
    return weights @ v, weights


@answer("self_attention", kind="variant", expect="scores transposed (or W_Q and W_K swapped)",
        note="transposes the right scores before the softmax")
def var_sa_scores_transposed_before_softmax(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = (q @ k.T).T / np.sqrt(q.shape[-1])
    weights = _row_softmax(scores)
    return weights @ v, weights


# -- weights on the left
@answer("self_attention", kind="variant", expect="weights on the left",
        note="loop `W @ x` over the three matrices")
def var_sa_loop_w_at_x(x, w_q, w_k, w_v):
    projections = []
    for W in (w_q, w_k, w_v):
        projections.append(W @ x)
    q, k, v = projections
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return weights @ v, weights


@answer("self_attention", kind="variant", expect="weights on the left", note="x @ w.T for each projection")
def var_sa_x_times_w_transposed(x, w_q, w_k, w_v):
    q = x @ w_q.T
    k = x @ w_k.T
    v = x @ w_v.T
    weights = _row_softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return weights @ v, weights


# -- no softmax
@answer("self_attention", kind="variant", expect="no softmax", note="np.dot(scores, v); scores returned as weights")
def var_sa_dot_scores(x, w_q, w_k, w_v):
    q, k, v = np.dot(x, w_q), np.dot(x, w_k), np.dot(x, w_v)
    scores = np.dot(q, k.T) / np.sqrt(q.shape[1])
    return np.dot(scores, v), scores


@answer("self_attention", kind="variant", expect="no softmax", note="einsum scores used directly as weights")
def var_sa_einsum_no_softmax(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = np.einsum("id,jd->ij", q, k) / np.sqrt(k.shape[-1])
    output = np.einsum("ij,jd->id", weights, v)
    return output, weights


# -- output product order
@answer("self_attention", kind="variant", expect="output product order",
        note="einsum that sums over the query index: weights.T @ v")
def var_sa_einsum_output_over_queries(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]))
    output = np.einsum("ij,id->jd", weights, v)
    return output, weights


@answer("self_attention", kind="variant", expect="output product order", note="(v.T @ weights).T")
def var_sa_transposed_product(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = _row_softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return (v.T @ weights).T, weights


@answer("self_attention", kind="variant", expect="output product order", note="np.matmul(v, weights)")
def var_sa_matmul_values_first(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return np.matmul(v, weights), weights


# -- values not projected
@answer("self_attention", kind="variant", expect="values not projected",
        note="computes v but mixes the inputs x")
def var_sa_mixes_inputs(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # noqa: F841 - v never used
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return weights @ x, weights


@answer("self_attention", kind="variant", expect="values not projected",
        note="einsum mixing x, own softmax")
def var_sa_einsum_mixes_inputs(x, w_q, w_k, w_v):
    q, k = x @ w_q, x @ w_k
    weights = _row_softmax(np.einsum("id,jd->ij", q, k) / np.sqrt(q.shape[-1]))
    return np.einsum("ij,jm->im", weights, x), weights


# -- product refuses the shapes (recognised by its error only)
@answer("self_attention", kind="variant", expect="product refuses the shapes",
        note="treats x as (d_model, T): x.T @ w (right only on the first case, where x is symmetric)")
def var_sa_x_transposed_projections(x, w_q, w_k, w_v):
    q, k, v = x.T @ w_q, x.T @ w_k, x.T @ w_v
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return weights @ v, weights


@answer("self_attention", kind="variant", expect="product refuses the shapes",
        note="np.dot(x.T, w) for each projection (right only when x is symmetric)")
def var_sa_dot_x_transposed(x, w_q, w_k, w_v):
    q = np.dot(x.T, w_q)
    k = np.dot(x.T, w_k)
    v = np.dot(x.T, w_v)
    weights = _row_softmax(np.dot(q, k.T) / np.sqrt(q.shape[1]))
    return np.dot(weights, v), weights


# -- sqrt of d_model, sqrt of the number of keys, no max shift (the catalogue's scale and softmax mistakes)
@answer("self_attention", kind="variant", expect="sqrt of d_model", note="d_k read from x: x.shape[1]")
def var_sa_scale_by_x_width(x, w_q, w_k, w_v):
    T, d = x.shape
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = cu.softmax(q @ k.T / math.sqrt(d))
    return weights @ v, weights


@answer("self_attention", kind="variant", expect="sqrt of the number of keys", note="scaled by sqrt(len(k))")
def var_sa_scale_by_len_k(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = cu.softmax(np.dot(q, k.T) / np.sqrt(len(k)))
    return weights @ v, weights


@answer("self_attention", kind="variant", expect="no max shift", note="own softmax: exp over the row sum, no shift")
def var_sa_softmax_without_shift(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    e = np.exp(q @ k.T / np.sqrt(k.shape[1]))
    weights = e / e.sum(axis=1, keepdims=True)
    return weights @ v, weights
