"""Blockwise attention with an online softmax (notebook 07).

The max-shift trick of notebook 01, carried across blocks of keys: for each block of queries
we keep, per query row,

    m   the largest score seen so far           (running maximum)
    l   sum_j exp(score_j - m) so far           (running normaliser)
    o   sum_j exp(score_j - m) v_j so far       (running, unnormalised output)

When a new block of keys arrives with scores s, the new maximum is m_new = max(m, max(s)); the
old sum and output were computed with the shift m, so they are rescaled by exp(m - m_new)
before the new block's terms are added (``online_softmax_update``). After the last block,
output = o / l. The result is exact attention (up to rounding): the T_q x T_k matrix of scores
is never held, only one (block_q x block_k) tile at a time.
"""
import numbers

import numpy as np

from course_utils._validate import as_float_array, as_mask, as_scale, check_qkv, check_scores_finite
from course_utils.attention import apply_mask

__all__ = ["blockwise_attention", "online_softmax_update", "DEFAULT_BLOCK_SIZE"]

#: Queries and keys per block when blockwise_attention is given no block_size: the 128 x 128 tiles of notebook 07.
#: A tile of 128 x 128 scores is 128 KiB in float64, whatever T is; blocks much smaller make the Python loop take
#: many more steps for the same arithmetic, blocks much larger hold more memory per step.
DEFAULT_BLOCK_SIZE = 128


def _block_sizes(block_size):
    """(block_q, block_k) from an int or a pair of ints, each >= 1."""
    if isinstance(block_size, np.ndarray) and block_size.ndim >= 2:  # a mask passed as the 4th argument
        raise TypeError(f"block_size (the 4th argument) must be an int or a pair of ints; got an array of shape "
                        f"{block_size.shape}: a mask goes after it, or by name: blockwise_attention(q, k, v, mask=...)")
    if isinstance(block_size, (tuple, list)):
        if len(block_size) != 2:
            raise ValueError(
                f"block_size must be an int or a pair (block_q, block_k); got {block_size!r}"
            )
        pair = tuple(block_size)
    else:
        pair = (block_size, block_size)
    for b in pair:
        if isinstance(b, (bool, np.bool_)) or not isinstance(b, numbers.Integral):
            raise TypeError(f"block_size must hold ints; got {b!r} of type {type(b).__name__}")
        if b < 1:
            raise ValueError(f"block_size must be at least 1; got {b}")
    return int(pair[0]), int(pair[1])


def online_softmax_update(m, l, o, scores_block, v_block):
    """One step of the online softmax: fold a new block of keys into the running statistics.

    Parameters
    ----------
    m : ndarray, shape (..., 1)
        Running maximum of the scores seen so far (``-inf`` before the first block).
    l : ndarray, shape (..., 1)
        Running sum of ``exp(score - m)`` (0 before the first block).
    o : ndarray, shape (..., d_v)
        Running sum of ``exp(score - m) * value`` (zeros before the first block); not normalised.
    scores_block : ndarray, shape (..., B)
        The scores of this block of keys (may hold ``-inf`` for masked keys).
    v_block : ndarray, shape (..., B, d_v) or (B, d_v)
        The value vectors of this block of keys.

    Returns
    -------
    m_new, l_new, o_new : ndarrays of the shapes of m, l, o
        ``m_new = max(m, max(scores_block))``; the old ``l`` and ``o`` are rescaled by
        ``exp(m - m_new)`` and the block's terms ``exp(scores_block - m_new)`` are added.
        While every score seen is ``-inf`` (a row with no permitted key yet), the shift used is 0,
        so no ``exp(-inf - -inf) = NaN`` appears and ``l`` stays 0.

    Raises
    ------
    ValueError
        If an argument holds NaN (or +inf, where only ``m`` and ``scores_block`` may hold -inf), ``l`` is negative,
        or the shapes do not fit together as above (the message names the arguments and their shapes).
    TypeError
        If an argument does not hold real numbers.

    Notes
    -----
    The final output of a row is ``o / l`` (zeros where ``l == 0``, a row with no permitted key).
    """
    return _online_softmax_update(*_check_update(m, l, o, scores_block, v_block))


def _online_softmax_update(m, l, o, scores_block, v_block):
    """:func:`online_softmax_update` without its checks: the inner loop of blockwise_attention, on arrays it made."""
    m_new = np.maximum(m, np.max(scores_block, axis=-1, keepdims=True))  # (..., 1)
    shift = np.where(np.isneginf(m_new), 0.0, m_new).astype(m_new.dtype, copy=False)  # (..., 1)
    with np.errstate(under="ignore", over="ignore"):
        rescale = np.exp(m - shift)  # (..., 1): rescales the old statistics; exp(-inf) = 0
        p = np.exp(scores_block - shift)  # (..., B): this block's unnormalised weights
    l_new = rescale * l + np.sum(p, axis=-1, keepdims=True)  # (..., 1)
    o_new = rescale * o + p @ v_block  # (..., d_v): (..., B) @ (..., B, d_v)
    return m_new, l_new, o_new


def _check_update(m, l, o, scores_block, v_block):
    """online_softmax_update's arguments as float arrays, or the error that names the one at fault."""
    m = as_float_array(m, "m", neginf_ok=True)
    l = as_float_array(l, "l")
    o = as_float_array(o, "o")
    scores_block = as_float_array(scores_block, "scores_block", neginf_ok=True)
    v_block = as_float_array(v_block, "v_block")
    shapes = f"(m {m.shape}, l {l.shape}, o {o.shape}, scores_block {scores_block.shape}, v_block {v_block.shape})"
    if m.ndim == 0 or m.shape[-1] != 1 or l.shape != m.shape:
        raise ValueError(f"m and l must both have shape (..., 1), one running value per query row; got {shapes}")
    if (l < 0).any():
        raise ValueError(f"l is a sum of exponentials, never negative; got {l.min()} {shapes}")
    if o.shape[:-1] != m.shape[:-1] or scores_block.shape[:-1] != m.shape[:-1]:
        raise ValueError(f"o (..., d_v) and scores_block (..., B) must have the query rows of m (..., 1); got {shapes}")
    if v_block.ndim < 2 or v_block.shape[-2] != scores_block.shape[-1] or v_block.shape[-1] != o.shape[-1]:
        raise ValueError(f"v_block must have shape (..., B, d_v): B keys as in scores_block, d_v as in o; got {shapes}")
    return m, l, o, scores_block, v_block


def blockwise_attention(q, k, v, block_size=None, mask=None, *, scale=None):
    """Exact scaled dot-product attention, computed block by block with an online softmax.

    Same result as ``scaled_dot_product_attention(q, k, v, mask)[0]`` (up to rounding), but the
    scores are only ever held one tile of shape (..., block_q, block_k) at a time, so the extra
    memory per step is O(block_q x block_k) instead of O(T_q x T_k).

    Parameters
    ----------
    q : array_like, shape (..., T_q, d_k)
    k : array_like, shape (..., T_k, d_k)
    v : array_like, shape (..., T_k, d_v)
    block_size : int or (int, int), optional
        Rows per block: one int for both, or ``(block_q, block_k)``. Need not divide T.
        Default ``DEFAULT_BLOCK_SIZE`` = 128 for both.
    mask : array_like, optional, broadcastable to (..., T_q, T_k)
        Boolean (True = may attend) or floating (added to the scores), exactly as in
        ``scaled_dot_product_attention``.
    scale : float, optional
        Multiplies the scores; defaults to ``1 / sqrt(d_k)``.

    Returns
    -------
    output : ndarray, shape (..., T_q, d_v)
        The attention output. A query row with no permitted key gives an all-zero row.
        (The weights are not returned: never building them is the point.)

    Raises
    ------
    ValueError
        As ``scaled_dot_product_attention`` (shapes, NaN/inf, overflowing scores, masks), or if a
        block size is below 1.
    TypeError
        As ``scaled_dot_product_attention``, or if block_size is not an int or a pair of ints.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.normal(size=(3, 10, 4))
    >>> from course_utils.attention import scaled_dot_product_attention
    >>> bool(np.allclose(blockwise_attention(q, k, v, 3), scaled_dot_product_attention(q, k, v)[0]))
    True
    """
    q, k, v, lead = check_qkv(q, k, v)
    block_q, block_k = _block_sizes(DEFAULT_BLOCK_SIZE if block_size is None else block_size)
    t_q, t_k, d_v = q.shape[-2], k.shape[-2], v.shape[-1]
    out_dtype = np.result_type(q, k, v)
    if mask is not None:
        mask = as_mask(mask, lead + (t_q, t_k))
        mask = np.broadcast_to(mask, np.broadcast_shapes(mask.shape, lead + (t_q, t_k)))  # (..., T_q, T_k): a view
        lead = mask.shape[:-2]  # a mask may add leading dims
        if mask.dtype != np.bool_:
            out_dtype = np.result_type(out_dtype, mask)  # a float64 bias on float32 scores gives float64, as in sdpa
    scale = as_scale(scale, q.shape[-1])  # a Python float, so float32 inputs stay float32
    dtype = np.result_type(out_dtype, np.float32)  # float16 is added up in float32: l would overflow past 65,504 keys
    q, k, v = (x.astype(dtype, copy=False) for x in (q, k, v))

    output = np.zeros(lead + (t_q, d_v), dtype=dtype)  # (..., T_q, d_v)
    for i in range(0, t_q, block_q):
        q_block = q[..., i:i + block_q, :]  # (..., bq, d_k): a view
        rows = q_block.shape[-2]  # bq, fewer in the last block
        m = np.full(lead + (rows, 1), -np.inf, dtype=dtype)  # (..., bq, 1): nothing seen yet
        l = np.zeros(lead + (rows, 1), dtype=dtype)  # (..., bq, 1)
        o = np.zeros(lead + (rows, d_v), dtype=dtype)  # (..., bq, d_v)
        for j in range(0, t_k, block_k):
            k_block, v_block = k[..., j:j + block_k, :], v[..., j:j + block_k, :]  # (..., bk, d_k), (..., bk, d_v)
            with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported just below
                scores = q_block @ np.swapaxes(k_block, -1, -2) * scale  # (..., bq, d_k) @ (..., d_k, bk) -> (..., bq, bk)
            check_scores_finite(scores, q, k, scale)
            if mask is not None:
                scores = apply_mask(scores, mask[..., i:i + block_q, j:j + block_k])  # (..., bq, bk)
            m, l, o = _online_softmax_update(m, l, o, scores, v_block)  # checked arrays: no second check
        # (..., bq, d_v): normalise once at the end; a row with no permitted key (l = 0) stays zero
        np.divide(o, l, out=output[..., i:i + block_q, :], where=l > 0)
    return output.astype(out_dtype, copy=False)
