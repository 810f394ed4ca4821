"""Plausible wrong answers to notebook 02 (shapes, project, scaled_scores, self_attention).

Written as beginner learners would write them, independently of the checkers' mistake tables
(the precision set: ``kind="other"``). Each function is one complete, wrong attempt.
"""
import numpy as np

import course_utils as cu
from learner_answers import answer

# --------------------------------------------------------------------------------------------
# Exercise A · my_shapes(T, d_model, d_k, d_v)
# --------------------------------------------------------------------------------------------

@answer("shapes", note="PyTorch nn.Linear convention: weight matrices stored (out, in)")
def shapes_torch_linear_weights(T, d_model, d_k, d_v):
    shapes = {"X": (T, d_model)}
    shapes["W_Q"] = (d_k, d_model)
    shapes["W_K"] = (d_k, d_model)
    shapes["W_V"] = (d_v, d_model)
    shapes["Q"] = (T, d_k)
    shapes["K"] = (T, d_k)
    shapes["V"] = (T, d_v)
    shapes["scores"] = (T, T)
    shapes["weights"] = (T, T)
    shapes["output"] = (T, d_v)
    return shapes


@answer("shapes", note="scores and weights keep the query width: (T, d_k)")
def shapes_scores_T_by_dk(T, d_model, d_k, d_v):
    shapes = {"X": (T, d_model)}
    shapes.update({
        "W_Q": (d_model, d_k), "W_K": (d_model, d_k), "W_V": (d_model, d_v),
        "Q": (T, d_k), "K": (T, d_k), "V": (T, d_v),
        "scores": (T, d_k), "weights": (T, d_k),
        "output": (T, d_v),
    })
    return shapes


@answer("shapes", note="output has the model width (T, d_model), as in a residual stream")
def shapes_output_model_width(T, d_model, d_k, d_v):
    shapes = {"X": (T, d_model)}
    shapes["W_Q"] = shapes["W_K"] = (d_model, d_k)
    shapes["W_V"] = (d_model, d_v)
    shapes["Q"] = shapes["K"] = (T, d_k)
    shapes["V"] = (T, d_v)
    shapes["scores"] = shapes["weights"] = (T, T)
    shapes["output"] = (T, d_model)
    return shapes


@answer("shapes", note="assumes d_v = d_k: uses d_k for W_V, V and output")
def shapes_dv_equals_dk(T, d_model, d_k, d_v):
    shapes = {"X": (T, d_model)}
    for name in ("W_Q", "W_K", "W_V"):
        shapes[name] = (d_model, d_k)
    for name in ("Q", "K", "V"):
        shapes[name] = (T, d_k)
    shapes["scores"] = (T, T)
    shapes["weights"] = (T, T)
    shapes["output"] = (T, d_k)
    return shapes


@answer("shapes", note="lower-case keys w_q, q, ... instead of the names in the comment")
def shapes_lowercase_keys(T, d_model, d_k, d_v):
    shapes = {"X": (T, d_model)}
    shapes["w_q"] = (d_model, d_k)
    shapes["w_k"] = (d_model, d_k)
    shapes["w_v"] = (d_model, d_v)
    shapes["q"] = (T, d_k)
    shapes["k"] = (T, d_k)
    shapes["v"] = (T, d_v)
    shapes["scores"] = (T, T)
    shapes["weights"] = (T, T)
    shapes["output"] = (T, d_v)
    return shapes


@answer("shapes", note="K stored already transposed: (d_k, T)")
def shapes_K_transposed(T, d_model, d_k, d_v):
    shapes = {"X": (T, d_model)}
    shapes["W_Q"] = (d_model, d_k)
    shapes["W_K"] = (d_model, d_k)
    shapes["W_V"] = (d_model, d_v)
    shapes["Q"] = (T, d_k)
    shapes["K"] = (d_k, T)                 # "so that Q @ K works"
    shapes["V"] = (T, d_v)
    shapes["scores"] = (T, T)
    shapes["weights"] = (T, T)
    shapes["output"] = (T, d_v)
    return shapes


@answer("shapes", note="weights are one row per token: (T,)")
def shapes_weights_one_row(T, d_model, d_k, d_v):
    shapes = {"X": (T, d_model)}
    shapes["W_Q"] = (d_model, d_k)
    shapes["W_K"] = (d_model, d_k)
    shapes["W_V"] = (d_model, d_v)
    shapes["Q"] = (T, d_k)
    shapes["K"] = (T, d_k)
    shapes["V"] = (T, d_v)
    shapes["scores"] = (T, T)
    shapes["weights"] = (T,)
    shapes["output"] = (T, d_v)
    return shapes


@answer("shapes", note="forgot the W_V entry and the output entry")
def shapes_missing_entries(T, d_model, d_k, d_v):
    shapes = {"X": (T, d_model)}
    shapes["W_Q"] = (d_model, d_k)
    shapes["W_K"] = (d_model, d_k)
    shapes["Q"] = (T, d_k)
    shapes["K"] = (T, d_k)
    shapes["V"] = (T, d_v)
    shapes["scores"] = (T, T)
    shapes["weights"] = (T, T)
    return shapes


@answer("shapes", note="all projections square (d_model, d_model), Q/K/V of width d_model")
def shapes_square_projections(T, d_model, d_k, d_v):
    shapes = {"X": (T, d_model)}
    for name in ("W_Q", "W_K", "W_V"):
        shapes[name] = (d_model, d_model)
    for name in ("Q", "K", "V"):
        shapes[name] = (T, d_model)
    shapes["scores"] = (T, T)
    shapes["weights"] = (T, T)
    shapes["output"] = (T, d_model)
    return shapes


# --------------------------------------------------------------------------------------------
# Exercise 1 · my_project(x, w_q, w_k, w_v)
# --------------------------------------------------------------------------------------------

@answer("project", kind="variant", expect="weights on the left", note="matrix on the left: w_q @ x")
def project_matrix_on_left(x, w_q, w_k, w_v):
    q = w_q @ x
    k = w_k @ x
    v = w_v @ x
    return q, k, v


@answer("project", kind="variant", expect="weights on the left", note="PyTorch nn.Linear habit: x @ w.T")
def project_torch_transpose(x, w_q, w_k, w_v):
    return x @ w_q.T, x @ w_k.T, x @ w_v.T


@answer("project", kind="variant", expect="swapped W_K and W_V", note="returns q, v, k (wrong order)")
def project_wrong_order(x, w_q, w_k, w_v):
    q = x @ w_q
    k = x @ w_k
    v = x @ w_v
    return q, v, k


@answer("project", kind="variant", expect="k from w_q", note="copy-paste bug: k computed with w_q")
def project_copy_paste(x, w_q, w_k, w_v):
    q = x @ w_q
    k = x @ w_q
    v = x @ w_v
    return q, k, v


@answer("project", kind="variant", expect="elementwise product", note="elementwise product x * w instead of a matrix product")
def project_elementwise(x, w_q, w_k, w_v):
    return x * w_q, x * w_k, x * w_v


@answer("project", note="over-engineering: already divides q by sqrt(d_k)")
def project_prescaled_query(x, w_q, w_k, w_v):
    d_k = w_q.shape[1]
    q = (x @ w_q) / np.sqrt(d_k)
    k = x @ w_k
    v = x @ w_v
    return q, k, v


@answer("project", kind="variant", expect="weights on the left", note="transposes x first: x.T @ w")
def project_transpose_x(x, w_q, w_k, w_v):
    xt = x.T
    return xt @ w_q, xt @ w_k, xt @ w_v


@answer("project", kind="variant", expect="weights on the left", note="loop over tokens with np.dot(w, row)")
def project_row_loop(x, w_q, w_k, w_v):
    q, k, v = [], [], []
    for row in x:
        q.append(np.dot(w_q, row))
        k.append(np.dot(w_k, row))
        v.append(np.dot(w_v, row))
    return np.array(q), np.array(k), np.array(v)


@answer("project", note="returns one stacked array np.array([q, k, v]) instead of three arrays")
def project_stacked_array(x, w_q, w_k, w_v):
    q = x @ w_q
    k = x @ w_k
    v = x @ w_v
    return np.array([q, k, v])


@answer("project", note="preallocates q, k, v with np.zeros_like(x) (width d_model) and fills them row by row")
def project_zeros_like_x(x, w_q, w_k, w_v):
    q, k, v = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)
    for t in range(x.shape[0]):
        q[t] = x[t] @ w_q
        k[t] = x[t] @ w_k
        v[t] = x[t] @ w_v
    return q, k, v


@answer("project", note="normalises each token vector first (layer-norm habit), then projects")
def project_normalises_x(x, w_q, w_k, w_v):
    x = (x - x.mean(axis=-1, keepdims=True)) / x.std(axis=-1, keepdims=True)
    return x @ w_q, x @ w_k, x @ w_v


@answer("project", note="returns a dict {'q': ..., 'k': ..., 'v': ...}")
def project_dict(x, w_q, w_k, w_v):
    return {"q": x @ w_q, "k": x @ w_k, "v": x @ w_v}


@answer("project", kind="variant", expect="transposed result", note="column-vector habit: returns the projections transposed, one column per token")
def project_one_column_per_token(x, w_q, w_k, w_v):
    q = (x @ w_q).T
    k = (x @ w_k).T
    v = (x @ w_v).T
    return q, k, v


# --------------------------------------------------------------------------------------------
# Exercise 2 · my_scaled_scores(q, k)
# --------------------------------------------------------------------------------------------

@answer("scaled_scores", kind="variant", expect="divide by d_k", note="divides by d_k instead of sqrt(d_k)")
def scaled_scores_divide_by_dk(q, k):
    d_k = q.shape[-1]
    return q @ k.T / d_k


@answer("scaled_scores", kind="variant", expect="sqrt of the number of queries", note="takes d_k from the number of queries, len(q)")
def scaled_scores_len_q(q, k):
    d_k = len(q)
    return q @ k.T / np.sqrt(d_k)


@answer("scaled_scores", kind="variant", expect="k not transposed", note="forgot the transpose: q @ k")
def scaled_scores_no_transpose(q, k):
    return q @ k / np.sqrt(q.shape[-1])


@answer("scaled_scores", kind="variant", expect="transposed scores", note="keys times queries: k @ q.T")
def scaled_scores_keys_first(q, k):
    return k @ q.T / np.sqrt(k.shape[-1])


@answer("scaled_scores", kind="variant", expect="multiply by sqrt(d_k)", note="multiplies by sqrt(d_k) instead of dividing")
def scaled_scores_multiply(q, k):
    return (q @ k.T) * np.sqrt(q.shape[1])


@answer("scaled_scores", kind="variant", expect="divide by d_k", note="scales both q and k by 1/sqrt(d_k): divides by d_k in total")
def scaled_scores_scale_both(q, k):
    scale = 1 / np.sqrt(q.shape[-1])
    return (q * scale) @ (k * scale).T


@answer("scaled_scores", kind="variant", expect="sqrt of every entry of q", note="uses q.size (all entries) as d_k")
def scaled_scores_size(q, k):
    return np.dot(q, k.T) / np.sqrt(q.size)


@answer("scaled_scores", note="d_k hard-coded to the ticket's 3")
def scaled_scores_hardcoded(q, k):
    d_k = 3
    return q @ k.T / np.sqrt(d_k)


@answer("scaled_scores", kind="variant", expect="softmax applied", note="goes one step too far: returns the softmax weights")
def scaled_scores_softmaxed(q, k):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    return cu.softmax(scores)


@answer("scaled_scores", note="cosine similarity: normalises q and k to unit length first")
def scaled_scores_cosine(q, k):
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    k = k / np.linalg.norm(k, axis=-1, keepdims=True)
    return q @ k.T / np.sqrt(q.shape[-1])


@answer("scaled_scores", note="already subtracts each row's max (softmax habit from notebook 01)")
def scaled_scores_minus_row_max(q, k):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    return scores - scores.max(axis=-1, keepdims=True)


@answer("scaled_scores", note="typo: floor division // by sqrt(d_k)")
def scaled_scores_floor_division(q, k):
    d_k = q.shape[-1]
    return q @ k.T // np.sqrt(d_k)


@answer("scaled_scores", note="einsum 'ij,ij->i': pairs query i with key i only")
def scaled_scores_einsum_diagonal(q, k):
    d_k = q.shape[-1]
    return np.einsum("ij,ij->i", q, k) / np.sqrt(d_k)


@answer("scaled_scores", note="d_k = q.shape (forgot the index): divides by sqrt of both sizes")
def scaled_scores_shape_tuple(q, k):
    d_k = q.shape
    return q @ k.T / np.sqrt(d_k)


# --------------------------------------------------------------------------------------------
# Exercise 3 · my_self_attention(x, w_q, w_k, w_v)
# --------------------------------------------------------------------------------------------

@answer("self_attention", kind="variant", expect="softmax over the wrong axis", note="softmax over axis 0 (the queries) instead of each row")
def self_attention_softmax_axis0(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(q.shape[-1])
    weights = cu.softmax(scores, axis=0)
    return weights @ v, weights


@answer("self_attention", kind="variant", expect="no scale", note="forgot to divide by sqrt(d_k)")
def self_attention_unscaled(x, w_q, w_k, w_v):
    q = x @ w_q
    k = x @ w_k
    v = x @ w_v
    weights = cu.softmax(q @ k.T)
    output = weights @ v
    return output, weights


@answer("self_attention", kind="variant", expect="swapped outputs", note="returns (weights, output)")
def self_attention_swapped_return(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return weights, weights @ v


@answer("self_attention", kind="variant", expect="values not projected", note="mixes the inputs x instead of the values")
def self_attention_mix_inputs(x, w_q, w_k, w_v):
    q, k = x @ w_q, x @ w_k
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]))
    output = weights @ x
    return output, weights


@answer("self_attention", kind="variant", expect="output product order", note="output = weights.T @ v")
def self_attention_transposed_weights_in_mix(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return weights.T @ v, weights


@answer("self_attention", expect="sqrt of d_model", note="scales by sqrt(d_model) (x's width) instead of sqrt(d_k)")
def self_attention_scale_by_dmodel(x, w_q, w_k, w_v):
    d_model = x.shape[-1]
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = cu.softmax(q @ k.T / np.sqrt(d_model))
    return weights @ v, weights


@answer("self_attention", kind="variant", expect="softmax over the whole array", note="one softmax over the whole (T, T) matrix")
def self_attention_global_softmax(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max())
    weights = e / e.sum()
    return weights @ v, weights


@answer("self_attention", kind="variant", expect="weights on the left", note="projects with x @ w.T (PyTorch Linear habit)")
def self_attention_torch_linear(x, w_q, w_k, w_v):
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return weights @ v, weights


@answer("self_attention", note="loops over query rows but reuses the first query for every row")
def self_attention_loop_stale_query(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    d_k = q.shape[1]
    T = x.shape[0]
    weights = np.zeros((T, T))
    query = q[0]
    for i in range(T):
        row = k @ query / np.sqrt(d_k)
        weights[i] = cu.softmax(row)
    return weights @ v, weights


@answer("self_attention", note="scales by sqrt(d_v), the width of the values")
def self_attention_scale_by_dv(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = cu.softmax(q @ k.T / np.sqrt(v.shape[-1]))
    return weights @ v, weights


@answer("self_attention", note="adds the residual x to the output (transformer-block habit)")
def self_attention_residual(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return x + weights @ v, weights


@answer("self_attention", note="softmax applied twice (normalises the weights again)")
def self_attention_double_softmax(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(q.shape[-1])
    weights = cu.softmax(scores)
    weights = cu.softmax(weights)
    return weights @ v, weights


@answer("self_attention", note="returns the scores as the second item instead of the weights")
def self_attention_returns_scores(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(q.shape[-1])
    weights = cu.softmax(scores)
    return weights @ v, scores


@answer("self_attention", note="thinks a token should not attend to itself: blocks the diagonal")
def self_attention_no_self(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(q.shape[-1])
    np.fill_diagonal(scores, -np.inf)
    weights = cu.softmax(scores)
    return weights @ v, weights
