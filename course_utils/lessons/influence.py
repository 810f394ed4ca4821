"""What a key does to one attention row's output (notebook 05): contributions and removal effects.

An attention output is ``weights @ values``: a sum over the keys of ``weight_j * value_j``. Two
measures of how much one key matters, both for a single query row:

- its **contribution** ``weight_j * value_j`` (a vector, shape ``(d_v,)``): its share of the sum;
- its **removal effect**: mask the key out (score -> -inf), let the softmax renormalise the
  weights over the remaining keys, recompute the output, and take the (Euclidean) norm of the
  change. A little algebra gives ``effect_j = weight_j / (1 - weight_j) * |value_j - output|``:
  a key whose value is close to the output moves it little, whatever its weight.

A heatmap shows only the weights. Both measures also depend on the values, which the heatmap
does not show; and both say something about this layer's output for this input, not about what
later layers do with it.

The made-up row of notebook 05's experiment (``EXPERIMENT_*``) lives with every other toy input
in :mod:`course_utils.lessons.data`.
"""
import numpy as np

from course_utils._validate import check_score_row
from course_utils.attention import attention_row
from course_utils.softmax import softmax

__all__ = [
    "contributions",
    "removal_outputs",
    "removal_effects",
]

def contributions(weights, values):
    """Each key's share of one attention output: ``weights[j] * values[j]``.

    The rows add up to the output: ``contributions(w, v).sum(axis=0) == w @ v``.

    Parameters
    ----------
    weights : array_like, shape (T,)
        One query's attention weights.
    values : array_like, shape (T, d_v)
        One value vector per key.

    Returns
    -------
    ndarray, shape (T, d_v)
        Row j is key j's contribution. Its norm is ``weights[j] * |values[j]|``.

    Raises
    ------
    ValueError
        If weights is not 1-D, values is not 2-D, their T differ, or an entry is NaN/inf.
    TypeError
        If an input is not real-valued.

    Examples
    --------
    >>> contributions([0.75, 0.25], [[1.0, 0.0], [0.0, 2.0]])
    array([[0.75, 0.  ],
           [0.  , 0.5 ]])
    """
    weights, values = check_score_row(weights, values, name="weights", what="weight", neginf_ok=False)
    return weights[:, None] * values  # (T, 1) * (T, d_v) -> (T, d_v)


def removal_outputs(scores, values):
    """The output of one attention row with each key removed in turn.

    Removing key j masks its score (-inf) before the softmax, so the remaining keys' weights are
    renormalised to sum to one. If no permitted key is left (a row with a single key), the output
    is all zeros, the convention of ``course_utils.softmax`` and PyTorch's
    ``scaled_dot_product_attention`` for a query with no permitted key.

    Parameters
    ----------
    scores : array_like, shape (T,)
        One query's (already scaled) scores; -inf marks a key that is already masked.
    values : array_like, shape (T, d_v)

    Returns
    -------
    ndarray, shape (T, d_v)
        Row j is ``softmax(scores with scores[j] = -inf) @ values``.

    Raises
    ------
    ValueError
        If scores is not 1-D, values is not 2-D, their T differ, or an entry is NaN/inf
        (scores may hold -inf).
    TypeError
        If an input is not real-valued.
    """
    scores, values = check_score_row(scores, values)
    T = scores.shape[0]
    removed = np.eye(T, dtype=bool)  # (T, T): row j removes key j
    masked = np.where(removed, -np.inf, scores[None, :])  # (T, T): one masked copy of the row per key
    weights = softmax(masked, -1)  # (T, T); a row with nothing left -> zeros
    return weights @ values  # (T, T) @ (T, d_v) -> (T, d_v)


def removal_effects(scores, values):
    """How far one attention row's output moves when each key is removed: ``|output - output_without_j|``.

    Parameters
    ----------
    scores : array_like, shape (T,)
        One query's (already scaled) scores; -inf marks a key that is already masked (its
        removal effect is 0).
    values : array_like, shape (T, d_v)

    Returns
    -------
    ndarray, shape (T,)
        Entry j is the Euclidean norm of ``output - removal_outputs(scores, values)[j]``, where
        ``output = softmax(scores) @ values``. With a single key, removing it leaves no permitted
        key, the output becomes zero, and the effect is the norm of the output.

    Raises
    ------
    ValueError, TypeError
        As ``removal_outputs``.

    Notes
    -----
    For a key with weight ``w_j < 1``, ``effect_j = w_j / (1 - w_j) * |values[j] - output|``.
    So the weight alone does not rank the keys: a large weight on a value close to the output
    moves it little, and a small weight on a value far from it can move it a lot.

    Examples
    --------
    >>> removal_effects([1.0, 1.0], [[1.0, 0.0], [-1.0, 0.0]])
    array([1., 1.])
    """
    scores, values = check_score_row(scores, values)
    output, _ = attention_row(scores, values)  # (d_v,)
    without = removal_outputs(scores, values)  # (T, d_v)
    return np.linalg.norm(output[None, :] - without, axis=-1)  # (T,)
