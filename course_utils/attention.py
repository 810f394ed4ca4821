"""Scaled dot-product attention (notebooks 01-03).

    scores  = Q K^T / sqrt(d_k)
    weights = softmax(scores + mask)       (over the keys of each query row)
    output  = weights V
"""
import math

import numpy as np

from course_utils._blas import split_rows
from course_utils._validate import as_mask, as_scale, check_qkv, check_score_row
from course_utils.softmax import softmax_of_shifted, softmax_unchecked


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
    weights = softmax_unchecked(scores, 0)  # (T,)
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

    Large inputs are computed in shares of query rows side by side, one per core, each with a
    one-thread BLAS (``course_utils._blas.split_rows``): the same numbers as in one piece, but the
    cores meet once per call instead of at every matrix product, which is what makes a busy machine
    slow (benchmarks/results/attention.md).

    Raises
    ------
    ValueError
        If an input has fewer than 2 dims, d_k of q and k differ, T_k of k and v differ, the
        leading dims do not broadcast, d_k is 0, an input holds NaN/inf, a float mask holds NaN
        or +inf, the mask does not broadcast to (..., T_q, T_k), or the scores overflow.
    TypeError
        If an input is not real-valued, the mask is not bool/float, or scale is not a real number.
    """
    q, k, v, lead = check_qkv(q, k, v)
    d_k = q.shape[-1]
    t_q, t_k = q.shape[-2], k.shape[-2]
    if mask is not None:
        mask = as_mask(mask, lead + (t_q, t_k))
    scale = as_scale(scale, d_k)  # a Python float, so float32 inputs stay float32

    if mask is None or (np.broadcast_shapes(lead + (t_q, t_k), mask.shape) == lead + (t_q, t_k)
                        and np.result_type(q, k, mask) == np.result_type(q, k)):
        return _sdpa_by_rows(q, k, v, lead, mask, scale)
    # Here the mask adds leading dims, or is a float64 bias on float32 scores: masking gives a new, larger
    # array of scores, as numpy's broadcasting would, so this is done in one piece.
    # The scale multiplies q (T_q x d_k numbers) instead of the scores (T_q x T_k): the same scores.
    with np.errstate(over="ignore", invalid="ignore"):
        q_scaled = q * scale  # (..., T_q, d_k)
        scores = q_scaled @ np.swapaxes(k, -1, -2)  # (..., T_q, d_k) @ (..., d_k, T_k) -> (..., T_q, T_k)
    # A cheap bound says when the scores cannot overflow; only otherwise are all of them checked.
    if not scores_cannot_overflow(q, k, scale, scores.dtype) and not np.isfinite(scores).all():
        raise _overflow_error(q, k, scale)
    if mask.dtype == np.bool_:
        scores = np.where(mask, scores, -np.inf)  # (..., T_q, T_k): False -> -inf
    else:
        with np.errstate(over="ignore"):
            scores = scores + mask  # (..., T_q, T_k)
        if np.isposinf(scores).any():
            raise ValueError("scores + mask overflowed to +inf; the float mask is too large")
    # The scores are ours and not needed after: the softmax overwrites them with the weights.
    weights = softmax_unchecked(scores, -1, overwrite=True)  # (..., T_q, T_k); empty rows -> zeros
    output = weights @ v  # (..., T_q, T_k) @ (..., T_k, d_v) -> (..., T_q, d_v)
    return output, weights


def _overflow_error(q, k, scale):
    return ValueError(
        f"the scores q @ k^T * scale overflowed (largest |q| = {np.abs(q).max():.3g}, "
        f"|k| = {np.abs(k).max():.3g}, scale = {scale:.3g}); rescale q and k"
    )


def _sdpa_by_rows(q, k, v, lead, mask, scale):
    """scaled_dot_product_attention on validated inputs whose mask (None, or as ``as_mask`` returns it) fits
    the scores' shape (..., T_q, T_k) and dtype, computed in shares of query rows side by side.

    Each share of rows (``_blas.split_rows``: one per core, each on a one-thread BLAS) writes its scores
    into its rows of the weights, masks and softmaxes them there, and multiplies them by v into its rows
    of the output: no array of the scores' size besides the weights, no pass over memory twice for the
    scale. Every row's numbers are those of the one-piece computation, up to rounding where the shift below
    is skipped.

    The softmax's shift: subtracting each row's maximum keeps ``exp`` from overflowing (notebook 01). When
    ``scores_are_small`` shows that no score can be large enough for ``exp`` to overflow or underflow, that
    shift is skipped: no pass over the scores for their maximum and none to subtract it, the same weights up
    to rounding (the shift cancels in the softmax). Otherwise, and for a float mask (which may add any
    bias), each row is shifted by its maximum, as ``softmax`` does.
    """
    t_q, t_k = q.shape[-2], k.shape[-2]
    dtype = np.result_type(q, k)  # of the scores (scale is a Python float)
    weights = np.empty(lead + (t_q, t_k), dtype=dtype)  # (..., T_q, T_k): the scores, then the weights
    output = np.empty(lead + (t_q, v.shape[-1]), dtype=np.result_type(weights, v))  # (..., T_q, d_v)
    unshifted = scores_are_small(q, k, scale, dtype, mask)
    check = not unshifted and not scores_cannot_overflow(q, k, scale, dtype)  # huge inputs: check every score
    k_t = np.swapaxes(k, -1, -2)  # (..., d_k, T_k): a view
    if mask is not None:
        mask = mask.reshape((1,) * (2 - mask.ndim) + mask.shape)  # at least (..., T_q or 1, T_k or 1)
        one_mask_row = mask.shape[-2] == 1

    def rows(a, b):
        scores = weights[..., a:b, :]  # (..., b - a, T_k)
        # The scale multiplies q (T_q x d_k numbers) instead of the scores (T_q x T_k): the same scores.
        with np.errstate(over="ignore", invalid="ignore"):
            np.matmul(q[..., a:b, :] * scale, k_t, out=scores)  # (..., rows, d_k) @ (..., d_k, T_k)
        if check and not np.isfinite(scores).all():
            raise _overflow_error(q, k, scale)
        if mask is not None:
            tile = mask if one_mask_row else mask[..., a:b, :]  # broadcastable to (..., rows, T_k)
            if mask.dtype == np.bool_:
                np.copyto(scores, -np.inf, where=~tile)  # False -> -inf
            else:
                with np.errstate(over="ignore"):
                    scores += tile  # a float bias (its dtype is no wider than the scores')
                if np.isposinf(scores).any():
                    raise ValueError("scores + mask overflowed to +inf; the float mask is too large")
        if unshifted:
            softmax_of_shifted(scores, -1)  # (..., rows, T_k); empty rows -> zeros
        else:
            softmax_unchecked(scores, -1, overwrite=True)  # (..., rows, T_k); empty rows -> zeros
        np.matmul(scores, v, out=output[..., a:b, :])  # (..., rows, T_k) @ (..., T_k, d_v) -> (..., rows, d_v)

    # A share holds at least 2^18 scores: below that, threads cost more than they save.
    split_rows(rows, t_q, min_rows=-(-2 ** 18 // max(1, math.prod(lead) * t_k)))
    return output, weights


def scores_are_small(q, k, scale, dtype, mask=None):
    """Whether every score is so small that its softmax needs no shift by the row's maximum.

    By Cauchy-Schwarz every score ``|q_i . k_j * scale|`` is at most ``c = max_i |q_i| * max_j |k_j| * |scale|``.
    When ``c <= log(largest number of dtype) / 4`` (22.2 in float32, 177 in float64), every ``exp(score)``
    lies in [exp(-c), exp(c)]: far from overflow (even summed over 2^60 keys) and from underflow. Then
    ``exp(s) / sum(exp(s))`` is computed as accurately as with the maximum subtracted first: the shift only
    guards against large scores.

    Parameters
    ----------
    q, k, scale, dtype
        As for ``scores_cannot_overflow`` (below); only float32 and float64 scores are considered.
    mask : None or ndarray, optional
        The attention mask, as ``as_mask`` returns it: a boolean mask only removes scores (-inf, exp 0),
        a float mask may add any bias, so with one the answer is False.

    Returns
    -------
    bool
        True: no shift is needed. False: a score may be large (long vectors; norms that overflow; a float
        mask), the dtype is another, or there is no score at all.
    """
    if mask is not None and mask.dtype != np.bool_:
        return False
    if dtype not in (np.float32, np.float64) or q.size == 0 or k.size == 0:
        return False
    with np.errstate(over="ignore", invalid="ignore"):
        # |x_i|^2 for each row; inf where it overflows (the test below is then False)
        q_largest, k_largest = (float(np.einsum("...d,...d->...", x, x).max()) for x in (q, k))
    bound = math.sqrt(q_largest) * math.sqrt(k_largest) * abs(scale)  # inf or nan if a norm overflowed
    return bound <= math.log(float(np.finfo(dtype).max)) / 4  # False for NaN


def scores_cannot_overflow(q, k, scale, dtype):
    """Whether no score ``(q @ k^T) * scale`` can overflow in ``dtype``: a bound, not a pass over the scores.

    Every score, and every partial sum of its dot product, is at most
    ``d_k * max|q| * max|k| * |scale|`` in size. When that bound (worked out in Python floats) is
    below half the largest number of ``dtype``, no score can be inf or NaN and the check over all
    T_q x T_k scores can be skipped; otherwise (huge inputs) the caller checks the scores themselves.

    Parameters
    ----------
    q : ndarray, shape (..., T_q, d_k)
    k : ndarray, shape (..., T_k, d_k)
    scale : float
    dtype : numpy dtype
        The dtype the scores are computed in.

    Returns
    -------
    bool
        True: the scores cannot overflow. False: they might (check them).
    """
    if q.size == 0 or k.size == 0:
        return True
    # max|x| as max(x.max(), -x.min()): two reductions, no temporary array of x's size
    largest_q, largest_k = (max(float(x.max()), -float(x.min())) for x in (q, k))
    bound = q.shape[-1] * largest_q * largest_k * abs(scale)  # inf if huge
    return bound < float(np.finfo(dtype).max) / 2
