"""Recall set for notebook 06: realistic variants of the known mistakes of check_softmax_backward
and check_grad_scores (``kind="variant"``).

Each function makes exactly one known mistake, written differently from the mutants of
tests/test_checks_learned.py, and reproduces that mistake's result on every case the checker runs.
"""
import numpy as np

from learner_answers import answer


# ============================================================================ softmax_backward(weights, grad_weights)
# -- full Jacobian of the whole array (recognised by its error only)
@answer("softmax_backward", kind="variant", expect="full Jacobian of the whole array",
        note="np.dot(np.diag(w) - np.outer(w, w), g): right for one row, fails on 2-D input")
def var_sb_jacobian_np_dot(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return np.dot(np.diag(weights) - np.outer(weights, weights), grad_weights)


@answer("softmax_backward", kind="variant", expect="full Jacobian of the whole array",
        note="Jacobian built as -outer, diagonal added with +=, then grad @ jacobian")
def var_sb_jacobian_in_place(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    jacobian = -np.outer(weights, weights)
    jacobian += np.diag(weights)
    return grad_weights @ jacobian  # the Jacobian is symmetric


# -- no subtraction
@answer("softmax_backward", kind="variant", expect="no subtraction", note="np.multiply(weights, grad_weights)")
def var_sb_np_multiply(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return np.multiply(weights, grad_weights)


@answer("softmax_backward", kind="variant", expect="no subtraction",
        note="einsum '...t,...t->...t': only the diagonal term")
def var_sb_einsum_diag_term(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return np.einsum("...t,...t->...t", weights, grad_weights)


# -- diagonal only
@answer("softmax_backward", kind="variant", expect="diagonal only", note="(w - w ** 2) * g")
def var_sb_w_minus_w_squared(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return (weights - weights ** 2) * grad_weights


@answer("softmax_backward", kind="variant", expect="diagonal only",
        note="per-row Jacobian, but only its diagonal times the gradient")
def var_sb_row_jacobian_diagonal(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    w2, g2 = np.atleast_2d(weights), np.atleast_2d(grad_weights)
    out = np.empty_like(w2)
    for i, (w, g) in enumerate(zip(w2, g2)):
        jacobian = np.diag(w) - np.outer(w, w)
        out[i] = np.diag(jacobian) * g
    return out.reshape(weights.shape)


# -- no weight factor
@answer("softmax_backward", kind="variant", expect="no weight factor",
        note="einsum row dot products subtracted, the factor weights forgotten")
def var_sb_einsum_no_weight_factor(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    dot = np.einsum("...t,...t->...", weights, grad_weights)[..., None]
    return grad_weights - dot


@answer("softmax_backward", kind="variant", expect="no weight factor", note="loop over rows: g - w @ g")
def var_sb_row_loop_no_weight_factor(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    w2, g2 = np.atleast_2d(weights), np.atleast_2d(grad_weights)
    rows = [g - w @ g for w, g in zip(w2, g2)]
    return np.array(rows).reshape(weights.shape)


# -- wrong axis
@answer("softmax_backward", kind="variant", expect="wrong axis",
        note="np.vdot: one dot product over the whole (flattened) array")
def var_sb_vdot(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return weights * (grad_weights - np.vdot(weights, grad_weights))


@answer("softmax_backward", kind="variant", expect="wrong axis",
        note="sum over axis 0 without keepdims (broadcasts along the rows)")
def var_sb_sum_axis_0(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    s = np.sum(weights * grad_weights, axis=0)
    return weights * grad_weights - weights * s


# -- missing keepdims
@answer("softmax_backward", kind="variant", expect="missing keepdims",
        note="the row sums without keepdims, distributed over two products")
def var_sb_distributed_no_keepdims(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    dot = (weights * grad_weights).sum(axis=-1)
    return weights * grad_weights - weights * dot


@answer("softmax_backward", kind="variant", expect="missing keepdims",
        note="einsum row dot products without [..., None]")
def var_sb_einsum_no_new_axis(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return weights * (grad_weights - np.einsum("...t,...t->...", weights, grad_weights))


# -- returns grad_weights
@answer("softmax_backward", kind="variant", expect="returns grad_weights",
        note="computes the right answer, returns the wrong variable")
def var_sb_returns_wrong_variable(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    grad_scores = weights * (grad_weights - np.sum(weights * grad_weights, axis=-1, keepdims=True))  # noqa: F841
    return grad_weights


@answer("softmax_backward", kind="variant", expect="returns grad_weights",
        note="'the softmax passes the gradient through': np.array(grad_weights)")
def var_sb_passes_gradient_through(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    return np.array(grad_weights, dtype=float)


# ============================================================================ grad_scores(weights, v, grad_output)
def _prepare(weights, v, grad_output):
    return tuple(np.asarray(a, dtype=float) for a in (weights, v, grad_output))


# -- returns grad_weights
@answer("grad_scores", kind="variant", expect="returns grad_weights", note="einsum 'nd,td->nt' and nothing else")
def var_gs_einsum_grad_weights(weights, v, grad_output):
    weights, v, grad_output = _prepare(weights, v, grad_output)
    return np.einsum("nd,td->nt", grad_output, v)


@answer("grad_scores", kind="variant", expect="returns grad_weights", note="(v @ grad_output.T).T")
def var_gs_transposed_product(weights, v, grad_output):
    weights, v, grad_output = _prepare(weights, v, grad_output)
    grad_weights = (v @ grad_output.T).T
    return grad_weights


# -- Jacobian transposed
@answer("grad_scores", kind="variant", expect="Jacobian transposed",
        note="np.matmul(grad_output, v) without the transpose, softmax backward right")
def var_gs_matmul_no_transpose(weights, v, grad_output):
    weights, v, grad_output = _prepare(weights, v, grad_output)
    grad_weights = np.matmul(grad_output, v)
    return weights * (grad_weights - np.sum(weights * grad_weights, axis=-1, keepdims=True))


@answer("grad_scores", kind="variant", expect="Jacobian transposed",
        note="np.dot(grad_output, v), then the backward pass written with einsum")
def var_gs_dot_no_transpose(weights, v, grad_output):
    weights, v, grad_output = _prepare(weights, v, grad_output)
    gw = np.dot(grad_output, v)
    dot = np.einsum("nt,nt->n", weights, gw)[:, None]
    return weights * gw - weights * dot


# -- no subtraction
@answer("grad_scores", kind="variant", expect="no subtraction", note="weights * einsum grad_weights")
def var_gs_einsum_no_subtraction(weights, v, grad_output):
    weights, v, grad_output = _prepare(weights, v, grad_output)
    return weights * np.einsum("nd,td->nt", grad_output, v)


@answer("grad_scores", kind="variant", expect="no subtraction", note="row loop: w * (v @ g)")
def var_gs_loop_no_subtraction(weights, v, grad_output):
    weights, v, grad_output = _prepare(weights, v, grad_output)
    out = np.zeros_like(weights)
    for i in range(weights.shape[0]):
        out[i] = weights[i] * (v @ grad_output[i])
    return out


# -- diagonal only
@answer("grad_scores", kind="variant", expect="diagonal only", note="(w - w ** 2) * grad_weights")
def var_gs_w_minus_w_squared(weights, v, grad_output):
    weights, v, grad_output = _prepare(weights, v, grad_output)
    grad_weights = grad_output @ v.T
    return (weights - weights ** 2) * grad_weights


@answer("grad_scores", kind="variant", expect="diagonal only",
        note="row loop with the Jacobian's diagonal only")
def var_gs_loop_jacobian_diagonal(weights, v, grad_output):
    weights, v, grad_output = _prepare(weights, v, grad_output)
    rows = []
    for w, g in zip(weights, grad_output):
        jacobian = np.diag(w) - np.outer(w, w)
        rows.append(np.diag(jacobian) * (v @ g))
    return np.array(rows)


# -- no weight factor
@answer("grad_scores", kind="variant", expect="no weight factor", note="row loop: gw - w @ gw")
def var_gs_loop_no_weight_factor(weights, v, grad_output):
    weights, v, grad_output = _prepare(weights, v, grad_output)
    out = np.zeros_like(weights)
    for i, (w, g) in enumerate(zip(weights, grad_output)):
        gw = v @ g
        out[i] = gw - w @ gw
    return out


@answer("grad_scores", kind="variant", expect="no weight factor",
        note="einsum row dot products subtracted, weights factor forgotten")
def var_gs_einsum_no_weight_factor(weights, v, grad_output):
    weights, v, grad_output = _prepare(weights, v, grad_output)
    gw = grad_output @ v.T
    return gw - np.einsum("nt,nt->n", weights, gw)[:, None]


# -- wrong axis
@answer("grad_scores", kind="variant", expect="wrong axis", note="np.vdot over the whole array")
def var_gs_vdot(weights, v, grad_output):
    weights, v, grad_output = _prepare(weights, v, grad_output)
    gw = grad_output @ v.T
    return weights * (gw - np.vdot(weights, gw))


@answer("grad_scores", kind="variant", expect="wrong axis", note="sum over axis 0 without keepdims")
def var_gs_sum_axis_0(weights, v, grad_output):
    weights, v, grad_output = _prepare(weights, v, grad_output)
    gw = np.dot(grad_output, v.T)
    return weights * (gw - (weights * gw).sum(axis=0))


# -- missing keepdims
@answer("grad_scores", kind="variant", expect="missing keepdims", note="sum over axis 1 without keepdims")
def var_gs_sum_axis_1_no_keepdims(weights, v, grad_output):
    weights, v, grad_output = _prepare(weights, v, grad_output)
    gw = grad_output @ v.T
    return weights * (gw - (weights * gw).sum(axis=1))


@answer("grad_scores", kind="variant", expect="missing keepdims",
        note="einsum row dot products without [:, None]")
def var_gs_einsum_no_new_axis(weights, v, grad_output):
    weights, v, grad_output = _prepare(weights, v, grad_output)
    gw = grad_output @ v.T
    return weights * gw - weights * np.einsum("nt,nt->n", weights, gw)
