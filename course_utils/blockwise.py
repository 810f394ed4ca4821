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

The shift only guards ``exp`` against overflow. When a bound shows every score is small enough that
``exp`` can neither overflow nor underflow (``attention.scores_are_small``), blockwise_attention keeps
the shift at m = 0 for every block: nothing to rescale, and no pass over each tile for its maximum. The
output is the same up to rounding.
"""
import math
import numbers

import numpy as np

from course_utils._blas import split_rows
from course_utils._validate import as_mask, as_scale, check_qkv
from course_utils.attention import scores_are_small, scores_cannot_overflow

__all__ = ["blockwise_attention", "online_softmax_update", "DEFAULT_BLOCK_SIZE"]

#: (block_q, block_k) used when blockwise_attention is given no block_size: the fastest pair of a
#: measured sweep (float32, batch 4, 8 heads, width 64, T = 1024 to 4096; `python
#: benchmarks/attention.py`, table in benchmarks/results/attention.md). A tile then holds at most
#: block_q x block_k scores per head, whatever T is.
DEFAULT_BLOCK_SIZE = (512, 2048)


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
        Default ``DEFAULT_BLOCK_SIZE`` = (512, 2048), the fastest of a measured sweep (blocks
        larger than T shrink to T).
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

    Notes
    -----
    The loop is the one of the module docstring: for each block of queries, for each block of
    keys, one tile of scores, then ``online_softmax_update`` (written out in place). Five things
    make it fast without changing what it computes (each measured, benchmarks/attention.py):

    - every tile, and m, l, o, live in buffers made once and reused (no new array per tile);
    - the scale multiplies each key block as it is copied, transposed, into its buffer (the
      BLAS multiplies q by a contiguous k^T faster than by a transposed view), not every tile;
    - o and l are kept side by side, (..., block_q, d_v + 1), and each key block is copied beside
      a column of ones, so one product ``p @ [v, 1]`` adds the tile's ``p v`` to o and its row
      sums to l (no separate pass over the tile for the sums);
    - the query rows are split between the cores (``_blas.split_rows``, each share on a
      one-thread BLAS): each share takes its rows of every tile, so together they still hold
      one tile of scores; numpy's exp, max and sums use one core each, so one share left the
      other core idle for half of every tile;
    - the overflow check runs per tile only when a cheap bound says the scores might overflow.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.normal(size=(3, 10, 4))
    >>> from course_utils.attention import scaled_dot_product_attention
    >>> bool(np.allclose(blockwise_attention(q, k, v, 3), scaled_dot_product_attention(q, k, v)[0]))
    True
    >>> bool(np.allclose(blockwise_attention(q, k, v), scaled_dot_product_attention(q, k, v)[0]))
    True
    """
    q, k, v, lead = check_qkv(q, k, v)
    d_k = q.shape[-1]
    block_q, block_k = _block_sizes(DEFAULT_BLOCK_SIZE if block_size is None else block_size)
    t_q, t_k = q.shape[-2], k.shape[-2]
    if mask is not None:
        mask = as_mask(mask, lead + (t_q, t_k))
        lead = tuple(np.broadcast_shapes(mask.shape, lead + (t_q, t_k))[:-2])  # a mask may add dims
    scale = as_scale(scale, d_k)  # a Python float, so float32 inputs stay float32
    return _blockwise_unchecked(q, k, v, lead, block_q, block_k, mask, scale)


def _blockwise_unchecked(q, k, v, lead, block_q, block_k, mask, scale):
    """blockwise_attention on validated inputs: ``lead`` is the broadcast leading shape of q, k, v
    and the mask; mask is None or an ndarray as ``as_mask`` returns it; scale a Python float."""
    t_q, t_k, d_v = q.shape[-2], k.shape[-2], v.shape[-1]
    out_dtype = np.result_type(q, k, v)
    if mask is not None and mask.dtype.kind == "f":
        out_dtype = np.result_type(out_dtype, mask.dtype)
    # float16 tops out at 65,504: its running sum l would overflow after that many keys. Work in
    # float32 then (the output is cast back at the end).
    dtype = np.dtype(np.float32) if out_dtype == np.float16 else out_dtype
    output = np.empty(lead + (t_q, d_v), dtype=dtype)  # (..., T_q, d_v)
    if t_q == 0 or d_v == 0:
        return output.astype(out_dtype, copy=False)
    if t_k == 0:  # no key at all: every row has no permitted key
        return np.zeros(lead + (t_q, d_v), dtype=out_dtype)
    q, k, v = (x.astype(dtype, copy=False) for x in (q, k, v))  # float16 -> float32; else no copy
    unshifted = scores_are_small(q, k, scale, dtype, mask)  # small scores: shift by 0 throughout, no running maximum
    check_tiles = not unshifted and not scores_cannot_overflow(q, k, scale, dtype)  # huge inputs: check every tile
    if mask is not None:
        mask = mask.reshape((1,) * (2 - mask.ndim) + mask.shape)  # at least (..., T_q or 1, T_k or 1)
        rows = (lambda a, b: slice(None)) if mask.shape[-2] == 1 else slice
        cols = (lambda a, b: slice(None)) if mask.shape[-1] == 1 else slice

    # Buffers made once and reused for every tile; a block at the end of T uses their first rows.
    block_q_here, block_k_here = min(block_q, t_q), min(block_k, t_k)
    s_buf = np.empty(lead + (block_q_here, block_k_here), dtype=dtype)  # one tile of scores, then of exp(...)
    ol_buf = np.empty(lead + (block_q_here, d_v + 1), dtype=dtype)  # running [o, l] side by side: (bq, d_v + 1)
    add_buf = np.empty_like(ol_buf)  # this tile's p @ [v, 1]
    m_buf = np.empty(lead + (block_q_here,), dtype=dtype)  # running maximum of each query row
    m_new_buf, alpha_buf = np.empty_like(m_buf), np.empty_like(m_buf)

    def part(a, b):
        """Rows a:b of every block of queries, in rows a:b of the tile and of the running m, l, o.

        The shares of a call split each tile between them (rows a:b each): together they hold one tile of scores, as
        one share does; each walks every block of keys for its rows, with its own copy of the scaled key block."""
        k_buf = np.empty(k.shape[:-2] + (q.shape[-1], block_k_here), dtype=dtype)  # scale * (key block)^T
        v1_buf = np.ones(v.shape[:-2] + (block_k_here, d_v + 1), dtype=dtype)  # [value block, column of ones]
        for i_block in range(0, t_q, block_q_here):
            i0, i1 = i_block + a, min(i_block + b, t_q)
            if i0 >= i1:
                break
            bq = i1 - i0
            m, ol = m_buf[..., a:a + bq], ol_buf[..., a:a + bq, :]  # (..., bq), (..., bq, d_v + 1)
            m.fill(-np.inf)  # nothing seen yet
            ol.fill(0)  # o = 0 and l = 0
            for j0 in range(0, t_k, block_k_here):
                j1 = min(j0 + block_k_here, t_k)
                s = s_buf[..., a:a + bq, :j1 - j0]  # (..., bq, bk)
                k_t = k_buf[..., :j1 - j0]  # (..., d_k, bk)
                v_1 = v1_buf[..., :j1 - j0, :]  # (..., bk, d_v + 1)
                v_1[..., :d_v] = v[..., j0:j1, :]  # the value block beside its column of ones
                with np.errstate(over="ignore", invalid="ignore"):
                    np.multiply(np.swapaxes(k[..., j0:j1, :], -1, -2), scale, out=k_t)  # the scale, in the copy
                    np.matmul(q[..., i0:i1, :], k_t, out=s)  # (..., bq, d_k) @ (..., d_k, bk) -> (..., bq, bk)
                if check_tiles and not np.isfinite(s).all():
                    raise ValueError(
                        f"the scores q @ k^T * scale overflowed (largest |q| = {np.abs(q).max():.3g}, "
                        f"|k| = {np.abs(k).max():.3g}, scale = {scale:.3g}); rescale q and k"
                    )
                if mask is not None:
                    tile = mask[..., rows(i0, i1), cols(j0, j1)]  # broadcastable to (..., bq, bk)
                    if mask.dtype == np.bool_:
                        np.copyto(s, -np.inf, where=~tile)  # False -> -inf
                    else:
                        with np.errstate(over="ignore"):
                            s += tile  # a float bias (its dtype is no wider than s's)
                        if np.isposinf(s).any():
                            raise ValueError("scores + mask overflowed to +inf; the float mask is too large")
                if unshifted:  # the shift stays 0: nothing to rescale
                    with np.errstate(under="ignore"):
                        np.exp(s, out=s)  # (..., bq, bk): this tile's unnormalised weights p
                else:  # the online softmax update (as online_softmax_update, but in place on this tile)
                    m_new = m_new_buf[..., a:a + bq]
                    np.max(s, axis=-1, out=m_new)  # (..., bq): this tile's row maxima
                    np.maximum(m, m_new, out=m_new)  # (..., bq): the running maximum
                    shift = m_new
                    if mask is not None and np.isneginf(m_new).any():  # no permitted key yet: shift by 0
                        shift = np.where(np.isneginf(m_new), 0.0, m_new).astype(dtype, copy=False)
                    alpha = alpha_buf[..., a:a + bq]
                    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
                        np.subtract(m, shift, out=alpha)
                        np.exp(alpha, out=alpha)  # (..., bq): exp(m_old - m_new) rescales l and o; exp(-inf) = 0
                        np.subtract(s, shift[..., None], out=s)
                        np.exp(s, out=s)  # (..., bq, bk): this tile's unnormalised weights p
                    m[...] = m_new
                    ol *= alpha[..., None]  # (..., bq, d_v + 1): rescales o and l together
                add = add_buf[..., a:a + bq, :]
                np.matmul(s, v_1, out=add)  # (..., bq, bk) @ (..., bk, d_v + 1): [p v, sum of p]
                ol += add  # o += p v and l += sum(p) in one step
            # (..., bq, d_v): normalise once at the end; rows with no permitted key (l = 0) stay zero
            block_out = output[..., i0:i1, :]  # (..., bq, d_v): a view of the output
            block_out.fill(0)
            o, l = ol[..., :d_v], ol[..., d_v:]  # (..., bq, d_v), (..., bq, 1)
            np.divide(o, l, out=block_out, where=l > 0)

    # One share per core (split_rows, each on a one-thread BLAS), each taking its rows of every tile: numpy's
    # exp, max and sums run on one core, so a single share left the other core idle for half of each tile. The
    # shares split one tile between them rather than holding one each: blockwise attention promises one tile
    # at a time (notebook 07 measures its peak as the output plus one tile). A share holds at least 2^18 of a
    # tile's scores: below that, threads cost more than they save.
    split_rows(part, block_q_here, min_rows=-(-2 ** 18 // max(1, math.prod(lead) * block_k_here)))
    return output.astype(out_dtype, copy=False)
