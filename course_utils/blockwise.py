"""Blockwise attention with an online softmax (notebook 07).

The max-shift trick of notebook 01, carried across blocks of keys: for each block of queries
we keep, per query row,

    m   the largest score seen so far           (running maximum)
    l   sum_j exp(score_j - m) so far           (running normaliser)
    o   sum_j exp(score_j - m) v_j so far       (running, unnormalised output)

When a new block of keys arrives with scores s, the new maximum is m_new = max(m, max(s)); the
old sum and output were computed with the shift m, so they are rescaled by exp(m - m_new)
before the new block's terms are added. After the last block, output = o / l. The result is
exact attention (up to rounding): the T_q x T_k matrix of scores is never held, only one
(block_q x block_k) tile at a time.
"""
import numbers

import numpy as np

from course_utils._validate import as_mask, as_scale, check_qkv

__all__ = ["blockwise_attention", "online_softmax_update"]


def _block_sizes(block_size):
    """(block_q, block_k) from an int or a pair of ints, each >= 1."""
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

    Notes
    -----
    The final output of a row is ``o / l`` (zeros where ``l == 0``, a row with no permitted key).
    """
    m_new = np.maximum(m, np.max(scores_block, axis=-1, keepdims=True))  # (..., 1)
    shift = np.where(np.isneginf(m_new), 0.0, m_new).astype(m_new.dtype, copy=False)  # (..., 1)
    with np.errstate(under="ignore", over="ignore"):
        alpha = np.exp(m - shift)  # (..., 1): rescales the old statistics; exp(-inf) = 0
        p = np.exp(scores_block - shift)  # (..., B): this block's unnormalised weights
    l_new = alpha * l + np.sum(p, axis=-1, keepdims=True)  # (..., 1)
    o_new = alpha * o + p @ v_block  # (..., d_v): (..., B) @ (..., B, d_v)
    return m_new, l_new, o_new


def blockwise_attention(q, k, v, block_size, mask=None, *, scale=None):
    """Exact scaled dot-product attention, computed block by block with an online softmax.

    Same result as ``scaled_dot_product_attention(q, k, v, mask)[0]`` (up to rounding), but the
    scores are only ever held one tile of shape (..., block_q, block_k) at a time, so the extra
    memory per step is O(block_q x block_k) instead of O(T_q x T_k).

    Parameters
    ----------
    q : array_like, shape (..., T_q, d_k)
    k : array_like, shape (..., T_k, d_k)
    v : array_like, shape (..., T_k, d_v)
    block_size : int or (int, int)
        Rows per block: one int for both, or ``(block_q, block_k)``. Need not divide T.
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
    d_k = q.shape[-1]
    block_q, block_k = _block_sizes(block_size)
    t_q, t_k, d_v = q.shape[-2], k.shape[-2], v.shape[-1]
    if mask is not None:
        mask = as_mask(mask, lead + (t_q, t_k))
        lead = tuple(np.broadcast_shapes(mask.shape, lead + (t_q, t_k))[:-2])  # a mask may add dims
    scale = as_scale(scale, d_k)  # a Python float, so float32 inputs stay float32

    out_dtype = np.result_type(q, k, v)
    if mask is not None and mask.dtype.kind == "f":
        out_dtype = np.result_type(out_dtype, mask.dtype)
    # float16 tops out at 65,504: its running sum l would overflow after that many keys. Work in
    # float32 then (the output is cast back at the end).
    dtype = np.float32 if out_dtype == np.float16 else out_dtype
    if dtype != out_dtype:
        q, k, v = q.astype(dtype), k.astype(dtype), v.astype(dtype)
    output = np.zeros(lead + (t_q, d_v), dtype=dtype)  # (..., T_q, d_v)
    if mask is not None:
        mask = mask.reshape((1,) * (2 - mask.ndim) + mask.shape)  # at least (..., T_q or 1, T_k or 1)
        rows = (lambda a, b: slice(None)) if mask.shape[-2] == 1 else slice
        cols = (lambda a, b: slice(None)) if mask.shape[-1] == 1 else slice
    k_t = np.swapaxes(k, -1, -2)  # (..., d_k, T_k): a view, no copy
    for i0 in range(0, t_q, block_q):
        i1 = min(i0 + block_q, t_q)
        q_blk = q[..., i0:i1, :]  # (..., bq, d_k)
        m = np.full(lead + (i1 - i0, 1), -np.inf, dtype=dtype)  # (..., bq, 1) running maximum
        l = np.zeros(lead + (i1 - i0, 1), dtype=dtype)  # (..., bq, 1) running normaliser
        o = np.zeros(lead + (i1 - i0, d_v), dtype=dtype)  # (..., bq, d_v) running output
        for j0 in range(0, t_k, block_k):
            j1 = min(j0 + block_k, t_k)
            with np.errstate(over="ignore", invalid="ignore"):
                s = q_blk @ k_t[..., j0:j1]  # (..., bq, d_k) @ (..., d_k, bk) -> (..., bq, bk)
                s *= scale  # in place: float32 stays float32
                block_max = np.max(s, axis=-1, keepdims=True)  # (..., bq, 1)
            # NaN and +inf show in the row maxima, -inf in the smallest entry: two cheap reductions
            if not (np.isfinite(block_max).all() and np.isfinite(np.min(s))):
                raise ValueError(
                    f"the scores q @ k^T * scale overflowed (largest |q| = {np.abs(q).max():.3g}, "
                    f"|k| = {np.abs(k).max():.3g}, scale = {scale:.3g}); rescale q and k"
                )
            if mask is not None:
                tile = mask[..., rows(i0, i1), cols(j0, j1)]  # broadcastable to (..., bq, bk)
                if mask.dtype == np.bool_:
                    s = np.where(tile, s, -np.inf).astype(dtype, copy=False)  # False -> -inf
                else:
                    with np.errstate(over="ignore"):
                        s = (s + tile).astype(dtype, copy=False)
                    if np.isposinf(s).any():
                        raise ValueError("scores + mask overflowed to +inf; the float mask is too large")
                block_max = np.max(s, axis=-1, keepdims=True)  # (..., bq, 1), -inf for a fully masked row
            if s.shape[:-1] != m.shape[:-1]:  # v or the mask adds leading dims
                s = np.broadcast_to(s, m.shape[:-1] + s.shape[-1:]).copy()
            # The online softmax update (as online_softmax_update, but in place on this tile):
            m_new = np.maximum(m, block_max)  # (..., bq, 1) running maximum
            shift = m_new
            if np.isneginf(m_new).any():  # no permitted key yet in some rows: shift them by 0
                shift = np.where(np.isneginf(m_new), 0.0, m_new).astype(dtype, copy=False)
            with np.errstate(under="ignore", over="ignore"):
                alpha = np.exp(m - shift)  # (..., bq, 1): exp(m_old - m_new) rescales l and o
                s -= shift
                np.exp(s, out=s)  # (..., bq, bk): this tile's unnormalised weights
            l *= alpha
            l += np.sum(s, axis=-1, keepdims=True)  # (..., bq, 1)
            o *= alpha
            o += s @ v[..., j0:j1, :]  # (..., bq, bk) @ (..., bk, d_v) -> (..., bq, d_v)
            m = m_new
            del s  # free this tile now: otherwise it lives on while the next one is computed (two tiles at once)
        # (..., bq, d_v): normalise once at the end; rows with no permitted key (l = 0) stay zero
        np.divide(o, l, out=output[..., i0:i1, :], where=l > 0)
    return output.astype(out_dtype, copy=False)
