"""Numpy helpers for notebook 04 (multi-head attention), lesson support.

- :func:`head_columns`: the columns of W_Q, W_K, W_V (and rows of W_O) that belong to one head
- :func:`permute_heads`: relabel the heads of a model without changing what it computes
- :func:`pattern_scores`: three simple measures of what one attention map looks like

The inputs of notebook 04 (the wider seeded embeddings and the stand-in projections) live with
every other toy input in :mod:`course_utils.lessons.data`.
"""
import numbers

import numpy as np

from course_utils._validate import as_float_array, check_min_ndim, check_positive_int

__all__ = [
    "PATTERNS",
    "head_columns",
    "permute_heads",
    "pattern_scores",
]

#: The names of the measures returned by ``pattern_scores``, with what each one measures.
PATTERNS = {
    "itself": "mean weight a query puts on its own position (the diagonal)",
    "previous": "mean weight a query puts on the position just before it",
    "one key": "largest mean weight that a single key receives from all the queries (a column)",
}


def head_columns(head, num_heads, d_model):
    """The columns of W_Q, W_K, W_V (and the rows of W_O) that belong to one head.

    Parameters
    ----------
    head : int
        The head's index, 0 <= head < num_heads.
    num_heads : int
        A positive int dividing d_model.
    d_model : int

    Returns
    -------
    slice
        ``slice(head * d_head, (head + 1) * d_head)`` with ``d_head = d_model // num_heads``.

    Raises
    ------
    ValueError
        If num_heads does not divide d_model, head is out of range, or d_model / num_heads is not positive.
    TypeError
        If head, num_heads or d_model is not an int.
    """
    d_model = check_positive_int(d_model, "d_model")
    num_heads = check_positive_int(num_heads, "num_heads")
    if d_model % num_heads:
        raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
    if isinstance(head, (bool, np.bool_)) or not isinstance(head, numbers.Integral):
        raise TypeError(f"head must be an int; got {head!r} of type {type(head).__name__}")
    if not 0 <= head < num_heads:
        raise ValueError(f"head={head} is out of range for num_heads={num_heads} (0 <= head < {num_heads})")
    d_head = d_model // num_heads
    return slice(int(head) * d_head, (int(head) + 1) * d_head)


def permute_heads(w_q, w_k, w_v, w_o, num_heads, order):
    """Relabel the heads: new head i is old head ``order[i]``.

    The column blocks of w_q, w_k and w_v and the matching row blocks of w_o move together, so
    the model computes the same output (up to floating-point rounding in the final sum); only
    the heads' numbers change. Its weights come out in the new order:
    ``new_weights[..., i, :, :] == old_weights[..., order[i], :, :]``.

    Parameters
    ----------
    w_q, w_k, w_v, w_o : array_like, shape (d_model, d_model)
    num_heads : int
        A positive int dividing d_model.
    order : sequence of int, length num_heads
        A permutation of ``range(num_heads)``.

    Returns
    -------
    tuple of four ndarrays, each (d_model, d_model)
        The relabelled w_q, w_k, w_v, w_o.

    Raises
    ------
    ValueError
        If a matrix is not square of one common size or holds NaN/inf, num_heads does not divide d_model,
        or order is not a sequence of ints (a string, floats, bools) that is a permutation of range(num_heads).
    TypeError
        If num_heads is not an int or a matrix is not real-valued.
    """
    mats = [as_float_array(w, name) for w, name in zip((w_q, w_k, w_v, w_o), ("w_q", "w_k", "w_v", "w_o"))]
    d_model = mats[0].shape[0] if mats[0].ndim == 2 else -1
    for w, name in zip(mats, ("w_q", "w_k", "w_v", "w_o")):
        if w.ndim != 2 or w.shape != (d_model, d_model):
            raise ValueError(
                f"{name} must have shape (d_model, d_model) like w_q {mats[0].shape}; got {name} shape {w.shape}"
            )
    num_heads = check_positive_int(num_heads, "num_heads")
    if d_model % num_heads:
        raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
    try:
        items = [] if isinstance(order, str) else list(order)
    except TypeError:
        items = []
    if not items or any(isinstance(i, (bool, np.bool_)) or not isinstance(i, numbers.Integral) for i in items):
        # a string ("10") or floats (0.5) were read as ints before: int("1"), int(0.5)
        raise ValueError(f"order must be a sequence of ints; got {order!r}")
    order_list = [int(i) for i in items]
    if sorted(order_list) != list(range(num_heads)):
        raise ValueError(f"order must be a permutation of range({num_heads}); got {order_list}")
    d_head = d_model // num_heads
    index = np.concatenate([np.arange(h * d_head, (h + 1) * d_head) for h in order_list])  # (d_model,)
    w_q, w_k, w_v, w_o = mats
    return w_q[:, index], w_k[:, index], w_v[:, index], w_o[index, :]


def pattern_scores(weights):
    """Three simple measures of what attention maps look like (see ``PATTERNS``).

    Parameters
    ----------
    weights : array_like, shape (..., T, T)
        Attention weights of self-attention (square: queries and keys are the same positions),
        e.g. the (num_heads, T, T) weights of ``multi_head_attention``.

    Returns
    -------
    dict of str -> ndarray of shape (...)
        ``"itself"``: mean of the diagonal; ``"previous"``: mean of ``weights[i, i - 1]`` over
        i >= 1 (0.0 when T == 1); ``"one key"``: the largest column mean. For uniform weights
        each is 1 / T.

    Raises
    ------
    ValueError
        If weights has fewer than 2 dims, is not square in its last two, or holds NaN/inf.
    TypeError
        If weights is not real-valued.
    """
    w = as_float_array(weights, "weights")
    check_min_ndim(w, "weights", 2, "(..., T, T)")
    if w.shape[-1] != w.shape[-2] or w.shape[-1] == 0:
        raise ValueError(f"weights must be square, (..., T, T) with T > 0; got shape {w.shape}")
    T = w.shape[-1]
    itself = np.diagonal(w, axis1=-2, axis2=-1).mean(axis=-1)  # (...,)
    if T > 1:
        previous = np.diagonal(w, offset=-1, axis1=-2, axis2=-1).mean(axis=-1)  # (...,)
    else:
        previous = np.zeros(w.shape[:-2])
    one_key = w.mean(axis=-2).max(axis=-1)  # (...,): column means, then the largest
    return {"itself": itself, "previous": previous, "one key": one_key}
