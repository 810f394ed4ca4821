"""More wrong answers to notebook 06 (softmax_backward, grad_scores), issue 24.

Written from the notebook's exercise texts before reading the checkers, as a new learner would, and
from the mistakes earlier learner trials found. ``kind="other"`` unless the mistake is one the
checker already names (then ``kind="variant"``).
"""
import numpy as np

from learner_answers import answer


# ============================================================================ my_softmax_backward(weights, grad_weights)
@answer("softmax_backward", note="earlier trial: the weighted sum with np.dot, right for one row only")
def more_backward_np_dot(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return weights * (grad_weights - np.dot(weights, grad_weights))


@answer("softmax_backward", note="the bracket the wrong way round: sum minus g (every sign flipped)")
def more_backward_sign_flipped(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return weights * (np.sum(weights * grad_weights, axis=-1, keepdims=True) - grad_weights)


@answer("softmax_backward", note="the mean of w * g instead of its sum")
def more_backward_mean(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return weights * (grad_weights - np.mean(weights * grad_weights, axis=-1, keepdims=True))


@answer("softmax_backward", note="subtracts the plain sum of g (forgot the weights inside the sum)")
def more_backward_unweighted_sum(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    return weights * (grad_weights - grad_weights.sum(axis=-1, keepdims=True))


@answer("softmax_backward", note="a loop over rows for 2-D; a 1-D input is iterated number by number")
def more_backward_loop_2d_only(weights, grad_weights):
    weights = np.asarray(weights, dtype=float)
    grad_weights = np.asarray(grad_weights, dtype=float)
    out = np.zeros_like(weights)
    for i in range(len(weights)):
        w, g = weights[i], grad_weights[i]
        out[i] = w * (g - np.sum(w * g))
    return out


# ============================================================================ my_grad_scores(weights, v, grad_output)
@answer("grad_scores", note="earlier trial: the weighted sum with np.dot (right for one row only)")
def more_grad_np_dot(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    grad_weights = grad_output @ v.T
    return weights * (grad_weights - np.dot(weights, grad_weights.T))


@answer("grad_scores", note="grad_weights divided by T (an average over the keys)")
def more_grad_divided_by_t(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    grad_weights = grad_output @ v.T / v.shape[0]
    return weights * (grad_weights - np.sum(weights * grad_weights, axis=-1, keepdims=True))


@answer("grad_scores", note="the bracket the wrong way round (every sign flipped)")
def more_grad_sign_flipped(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    grad_weights = grad_output @ v.T
    return weights * (np.sum(weights * grad_weights, axis=-1, keepdims=True) - grad_weights)


@answer("grad_scores", note="grad_weights from the weights: weights @ v times grad_output summed")
def more_grad_from_output(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    output = weights @ v
    grad_weights = (output * grad_output).sum(axis=-1, keepdims=True) * np.ones_like(weights)
    return weights * (grad_weights - np.sum(weights * grad_weights, axis=-1, keepdims=True))


@answer("grad_scores", note="the plain sum of grad_weights subtracted (no weights inside the sum)")
def more_grad_unweighted_sum(weights, v, grad_output):
    weights, v, grad_output = (np.asarray(a, dtype=float) for a in (weights, v, grad_output))
    grad_weights = grad_output @ v.T
    return weights * (grad_weights - grad_weights.sum(axis=-1, keepdims=True))
