"""Scaled dot-product attention (notebooks 01-03).

    scores  = Q K^T / sqrt(d_k)
    weights = softmax(scores + mask)       (over the keys of each query row)
    output  = weights V
"""
import numpy as np

from course_utils._validate import as_mask, as_scale, check_array_size, check_qkv, check_score_row, check_scores_finite
from course_utils.softmax import softmax


def attention_row(scores, values):
    """Attention for one query: softmax the scores, then mix the value vectors.

    This is the one-row case of notebook 01: the scores are already computed (and scaled).

    Parameters
    ----------
    scores : array_like, shape (T,)
        One query's score against each of T keys. May contain -inf (a masked key).
    values : array_like, shape (T, d_v)
        One value vector per key.

    Returns
    -------
    output : ndarray, shape (d_v,)
        ``weights @ values``: a weighted combination of the value vectors.
    weights : ndarray, shape (T,)
        ``softmax(scores)``; sums to one, or is all zeros if every score is -inf
        (then the output is all zeros too).

    Raises
    ------
    ValueError
        If scores is not 1-D, values is not 2-D, their T differ, or an entry is NaN/inf
        (scores may hold -inf).
    TypeError
        If an input is not real-valued.

    Examples
    --------
    >>> from course_utils.lessons.data import ARTICLE_SCORES, ARTICLE_VALUES
    >>> output, weights = attention_row(ARTICLE_SCORES, ARTICLE_VALUES)
    >>> weights.round(3), output.round(3)
    (array([0.665, 0.245, 0.09 ]), array([0.935, 0.579]))
    """
    scores, values = check_score_row(scores, values)
    weights = softmax(scores, 0)  # (T,)
    output = weights @ values  # (T,) @ (T, d_v) -> (d_v,)
    return output, weights


def scaled_dot_product_attention(q, k, v, mask=None, *, scale=None):
    """Scaled dot-product attention, ``softmax(q k^T * scale + mask) v``, batched.

    Parameters
    ----------
    q : array_like, shape (..., T_q, d_k)
        Queries, one row per receiving position.
    k : array_like, shape (..., T_k, d_k)
        Keys, one row per key position.
    v : array_like, shape (..., T_k, d_v)
        Values, one row per key position.
    mask : array_like, optional, broadcastable to (..., T_q, T_k)
        Boolean: True = the query may attend to the key (PyTorch's scaled_dot_product_attention
        convention); a False entry sets that score to -inf. Floating: added to the scores (0 to
        keep, -inf to remove, or any finite bias). Integer masks are refused as ambiguous.
        The mask may add leading (batch) dims.
    scale : float, optional
        Multiplies the scores; defaults to ``1 / sqrt(d_k)``.

    Returns
    -------
    output : ndarray, shape (..., T_q, d_v)
        ``weights @ v``.
    weights : ndarray, shape (..., T_q, T_k)
        Softmax over the keys of each query row; each row with a permitted key sums to one.

    Notes
    -----
    The leading dims of q, k, v and mask broadcast against each other, e.g. q of shape
    (2, 1, 5, 4) with k and v of shape (3, 5, 4) gives output (2, 3, 5, 4).

    A query row with no permitted key (all False, or all -inf after the mask) has no defined
    softmax. Here such a row gets all-zero weights and therefore an all-zero output row, never
    NaN. This is what PyTorch's ``torch.nn.functional.scaled_dot_product_attention`` returns for
    such a row. Better still, avoid building such rows.

    Raises
    ------
    ValueError
        If an input has fewer than 2 dims, d_k of q and k differ, T_k of k and v differ, the
        leading dims do not broadcast, d_k is 0, an input holds NaN/inf, a float mask holds NaN
        or +inf, the mask does not broadcast to (..., T_q, T_k), the scores overflow, or the scores (three
        arrays of them) would not fit in the memory free (the message suggests ``blockwise_attention``).
    TypeError
        If an input is not real-valued, the mask is not bool/float, or scale is not a real number.

    Examples
    --------
    >>> q = k = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> v = np.array([[10.0], [20.0]])
    >>> output, weights = scaled_dot_product_attention(q, k, v, scale=1.0)
    >>> weights.round(3), output.round(2)
    (array([[0.731, 0.269],
           [0.269, 0.731]]), array([[12.69],
           [17.31]]))
    """
    q, k, v, lead = check_qkv(q, k, v)
    if mask is not None:
        mask = as_mask(mask, lead + (q.shape[-2], k.shape[-2]))
    check_array_size(lead + (q.shape[-2], k.shape[-2]), np.result_type(q, k).itemsize,  # scores, exp, weights
                     f"attention of {q.shape[-2]} queries over {k.shape[-2]} keys", copies=3,
                     instead="; cu.blockwise_attention (notebook 07) gives the same output holding one tile at a time")
    scale = as_scale(scale, q.shape[-1])  # a Python float, so float32 inputs stay float32

    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported just below, naming q and k
        scores = q @ np.swapaxes(k, -1, -2) * scale  # (..., T_q, d_k) @ (..., d_k, T_k) -> (..., T_q, T_k)
    check_scores_finite(scores, q, k, scale)
    scores = apply_mask(scores, mask)  # (..., T_q, T_k): a key the mask removes scores -inf
    weights = softmax(scores, -1)  # (..., T_q, T_k): over the keys; a row with no permitted key -> zeros
    output = weights @ v  # (..., T_q, T_k) @ (..., T_k, d_v) -> (..., T_q, d_v)
    return output, weights


def apply_mask(scores, mask):
    """The scores with an attention mask applied (notebook 03), for masks that ``as_mask`` has checked.

    Parameters
    ----------
    scores : ndarray, shape (..., T_q, T_k)
    mask : None or ndarray, broadcastable to (..., T_q, T_k)
        Boolean: False sets the score to -inf (True = may attend). Floating: added to the scores.

    Returns
    -------
    ndarray, shape (..., T_q, T_k), or larger when the mask adds leading dims
        ``scores`` itself when mask is None.

    Raises
    ------
    ValueError
        If a float mask pushes a score to +inf.
    """
    if mask is None:
        return scores
    if mask.dtype == np.bool_:
        return np.where(mask, scores, -np.inf)  # (..., T_q, T_k): False -> -inf
    with np.errstate(over="ignore"):  # reported just below
        scores = scores + mask  # (..., T_q, T_k)
    if np.isposinf(scores).any():
        raise ValueError("scores + mask overflowed to +inf; the float mask is too large")
    return scores
