"""Plausible wrong answers to notebook 06 (softmax_backward, grad_scores).

Written as beginner learners would write them, independently of the checkers' mistake tables
(the precision set: ``kind="other"``). Each function is one complete, wrong attempt.
"""
import numpy as np

from learner_answers import answer

# --------------------------------------------------------------------------------------------
# Exercise 1 · my_softmax_backward(weights, grad_weights)
# --------------------------------------------------------------------------------------------

@answer("softmax_backward", kind="variant", expect="wrong axis", note="one-row formula: the sum runs over the whole 2-D array")
def softmax_backward_global_sum(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return weights * (grad_weights - np.sum(weights * grad_weights))


@answer("softmax_backward", kind="variant", expect="no subtraction", note="forgets the subtracted term: w * g")
def softmax_backward_no_subtraction(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return weights * grad_weights


@answer("softmax_backward", kind="variant", expect="diagonal only", note="only the diagonal of the Jacobian: w * (1 - w) * g")
def softmax_backward_diagonal_only(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return weights * (1 - weights) * grad_weights


@answer("softmax_backward", kind="variant", expect="no weight factor", note="forgets the leading factor w: g - sum(w * g)")
def softmax_backward_no_leading_w(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return grad_weights - np.sum(weights * grad_weights, axis=-1, keepdims=True)


@answer("softmax_backward", note="subtracts sum(g) instead of sum(w * g)")
def softmax_backward_sum_of_g(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return weights * (grad_weights - grad_weights.sum(axis=-1, keepdims=True))


@answer("softmax_backward", kind="variant", expect="wrong axis", note="builds the Jacobian with np.diag/np.outer: flattens 2-D input")
def softmax_backward_jacobian(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    w = weights.ravel()
    J = np.diag(w) - np.outer(w, w)
    return (J @ grad_weights.ravel()).reshape(weights.shape)


@answer("softmax_backward", kind="variant", expect="wrong axis", note="sum over axis 0 (columns) with keepdims")
def softmax_backward_axis0(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    s = np.sum(weights * grad_weights, axis=0, keepdims=True)
    return weights * (grad_weights - s)


@answer("softmax_backward", note="sign flipped: (w w^T - diag w) g")
def softmax_backward_sign_flipped(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    weighted = np.sum(weights * grad_weights, axis=-1, keepdims=True)
    return weights * (weighted - grad_weights)


@answer("softmax_backward", kind="variant", expect="missing keepdims", note="row sum without keepdims")
def softmax_backward_no_keepdims(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return weights * (grad_weights - np.sum(weights * grad_weights, axis=-1))


@answer("softmax_backward", note="subtracts the mean of g (as if the weights were uniform)")
def softmax_backward_mean_g(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return weights * (grad_weights - grad_weights.mean(axis=-1, keepdims=True))


@answer("softmax_backward", note="loop over the rows with the Jacobian of each: breaks on a 1-D row")
def softmax_backward_row_loop(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    out = np.zeros_like(weights)
    for i in range(len(weights)):
        w = weights[i]
        J = np.diag(w) - np.outer(w, w)
        out[i] = J @ grad_weights[i]
    return out


@answer("softmax_backward", note="np.dot(weights, grad_weights) for the weighted sum: right for one row only")
def softmax_backward_np_dot(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    weighted_sum = np.dot(weights, grad_weights)
    return weights * (grad_weights - weighted_sum)


@answer("softmax_backward", note="parentheses dropped: w * g - sum(w * g)")
def softmax_backward_missing_parentheses(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    weighted_sum = np.sum(weights * grad_weights, axis=-1, keepdims=True)
    return weights * grad_weights - weighted_sum


# --------------------------------------------------------------------------------------------
# Exercise 2 · my_grad_scores(weights, v, grad_output)
# --------------------------------------------------------------------------------------------

def _softmax_backward(w, gw):
    return w * (gw - np.sum(w * gw, axis=-1, keepdims=True))


@answer("grad_scores", kind="variant", expect="Jacobian transposed", note="grad_output @ v without the transpose")
def grad_scores_no_transpose(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    gw = grad_output @ v
    return _softmax_backward(weights, gw)


@answer("grad_scores", note="v @ grad_output.T: result transposed, (T, n)")
def grad_scores_transposed(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    gw = v @ grad_output.T
    return _softmax_backward(weights.T, gw)


@answer("grad_scores", kind="variant", expect="returns grad_weights", note="stops at the weights: returns dL/dw, no softmax backward")
def grad_scores_stops_at_weights(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    return grad_output @ v.T


@answer("grad_scores", kind="variant", expect="wrong axis", note="softmax backward with the sum over axis 0")
def grad_scores_sum_axis0(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    gw = grad_output @ v.T
    return weights * (gw - np.sum(weights * gw, axis=0, keepdims=True))


@answer("grad_scores", note="returns the gradient with respect to v, weights.T @ grad_output")
def grad_scores_grad_of_v(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    return weights.T @ grad_output


@answer("grad_scores", kind="variant", expect="no subtraction", note="multiplies by the weights but forgets the subtraction")
def grad_scores_times_weights(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    return weights * (grad_output @ v.T)


@answer("grad_scores", kind="variant", expect="wrong axis", note="one-row softmax backward: sum over every row at once")
def grad_scores_global_sum(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    gw = grad_output @ v.T
    return weights * (gw - np.sum(weights * gw))


@answer("grad_scores", note="carries the forward 1/sqrt scale into dL/dw (divides by sqrt(d_v))")
def grad_scores_extra_scale(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    gw = grad_output @ v.T / np.sqrt(v.shape[-1])
    return _softmax_backward(weights, gw)


@answer("grad_scores", note="loop over rows with the full Jacobian, but J @ g uses the wrong row")
def grad_scores_loop_stale_row(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    n = weights.shape[0]
    out = np.zeros_like(weights)
    for i in range(n):
        w = weights[i]
        J = np.diag(w) - np.outer(w, w)
        gw = v @ grad_output[0]                    # (T,) - meant grad_output[i]
        out[i] = J @ gw
    return out


@answer("grad_scores", note="parentheses dropped in the softmax step: w * gw - sum(w * gw)")
def grad_scores_missing_parentheses(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    gw = grad_output @ v.T
    return weights * gw - np.sum(weights * gw, axis=-1, keepdims=True)


@answer("grad_scores", note="takes the weights for scores: applies softmax to them first")
def grad_scores_softmax_of_weights(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    e = np.exp(weights - weights.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return _softmax_backward(w, grad_output @ v.T)


@answer("grad_scores", note="softmax step subtracts the plain row sum of gw, not the weighted one")
def grad_scores_unweighted_sum(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    gw = grad_output @ v.T
    return weights * (gw - gw.sum(axis=-1, keepdims=True))
