"""Numpy helpers for notebook 04 (multi-head attention).

The toy tickets of notebooks 02-03 have hand-made 4-d embeddings with named coordinates. Four
coordinates split into few heads, so notebook 04 gives every token of the same vocabulary a
wider, **seeded random** embedding of ``d_model = 8`` unnamed coordinates (a stand-in for a
learned embedding table: the same token always gets the same vector). Nothing in notebook 04
needs to read the coordinates.

- :func:`wide_embeddings`, :func:`embed_wide`, :func:`padded_batch_wide`: the wider embeddings
- :func:`random_projections`: seeded stand-ins for W_Q, W_K, W_V, W_O, each (d_model, d_model)
- :func:`head_columns`: the columns of W_Q, W_K, W_V (and rows of W_O) that belong to one head
- :func:`permute_heads`: relabel the heads of a model without changing what it computes
- :func:`pattern_scores`: three simple measures of what one attention map looks like
"""
import numbers

import numpy as np

from course_utils._validate import as_float_array, check_min_ndim, check_positive_int
from course_utils.tickets import EMBEDDINGS, TICKETS

__all__ = [
    "D_MODEL",
    "VOCABULARY",
    "PROJECTION_SCALE",
    "PATTERNS",
    "wide_embeddings",
    "embed_wide",
    "padded_batch_wide",
    "random_projections",
    "head_columns",
    "permute_heads",
    "pattern_scores",
]

#: Width of the wider toy embeddings of notebook 04.
D_MODEL = 8

#: Standard deviation of the entries of ``random_projections``.
PROJECTION_SCALE = 0.7

#: The toy vocabulary (every token of ``course_utils.tickets.EMBEDDINGS``), in a fixed order:
#: row i of the seeded embedding table belongs to ``VOCABULARY[i]``.
VOCABULARY = tuple(sorted(EMBEDDINGS))

#: The names of the measures returned by ``pattern_scores``, with what each one measures.
PATTERNS = {
    "itself": "mean weight a query puts on its own position (the diagonal)",
    "previous": "mean weight a query puts on the position just before it",
    "one key": "largest mean weight that a single key receives from all the queries (a column)",
}


def _check_seed(seed):
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise TypeError(f"seed must be a non-negative int; got {seed!r} of type {type(seed).__name__}")
    return int(seed)


def wide_embeddings(d_model=D_MODEL, seed=0):
    """A seeded random embedding table for the toy vocabulary.

    Parameters
    ----------
    d_model : int, default 8
        Width of each embedding.
    seed : int, default 0

    Returns
    -------
    dict
        token -> ndarray of shape (d_model,), standard-normal coordinates. Row i of
        ``np.random.default_rng(seed).normal(size=(len(VOCABULARY), d_model))`` belongs to
        ``VOCABULARY[i]``. Each call returns fresh copies.

    Raises
    ------
    TypeError, ValueError
        If d_model is not a positive int or seed not a non-negative int.
    """
    d_model = check_positive_int(d_model, "d_model")
    seed = _check_seed(seed)
    table = np.random.default_rng(seed).normal(size=(len(VOCABULARY), d_model))  # (V, d_model)
    return {token: row.copy() for token, row in zip(VOCABULARY, table)}


def embed_wide(tokens, d_model=D_MODEL, seed=0):
    """Stack the wide embeddings of a sequence of tokens.

    Parameters
    ----------
    tokens : sequence of str, length T
        Tokens from ``VOCABULARY``.
    d_model : int, default 8
    seed : int, default 0
        Seed of the embedding table (``wide_embeddings``).

    Returns
    -------
    ndarray, shape (T, d_model)

    Raises
    ------
    KeyError
        If a token is not in the vocabulary (the message lists the known tokens).
    """
    if isinstance(tokens, str):
        raise TypeError(f"tokens must be a sequence of tokens, not the string {tokens!r}; "
                        f"e.g. ({tokens!r},) or {tokens.split()!r}")
    table = wide_embeddings(d_model, seed)
    unknown = [t for t in tokens if t not in table]
    if unknown:
        raise KeyError(f"no embedding for {unknown}; known tokens: {list(VOCABULARY)}")
    if len(tokens) == 0:
        return np.zeros((0, d_model))
    return np.stack([table[t] for t in tokens])  # (T, d_model)


def padded_batch_wide(tickets=TICKETS, pad_vector=None, length=None, d_model=D_MODEL, seed=0):
    """Embed several tickets with the wide embeddings and pad them (at the end) to one length.

    The d_model = 8 counterpart of ``course_utils.tickets.padded_batch``.

    Parameters
    ----------
    tickets : sequence of sequences of str, length B
    pad_vector : array_like, shape (d_model,), optional
        What to put at the padded positions (default zeros). With a padding mask the real
        tokens' outputs must not depend on it.
    length : int, optional
        The padded length T (default: the longest ticket).
    d_model : int, default 8
    seed : int, default 0
        Seed of the embedding table.

    Returns
    -------
    x : ndarray, shape (B, T, d_model)
    lengths : ndarray of int, shape (B,)
    tokens : list of B lists of str, each of length T, with "<pad>" at the padded positions

    Raises
    ------
    ValueError
        If there is no ticket, length is shorter than the longest ticket, or pad_vector does
        not have shape (d_model,).
    """
    if len(tickets) == 0:
        raise ValueError("tickets is empty; pass at least one ticket")
    lengths = np.array([len(t) for t in tickets], dtype=int)  # (B,)
    T = int(lengths.max()) if length is None else check_positive_int(length, "length")
    if (lengths > T).any():
        raise ValueError(f"length={T} is shorter than the longest ticket ({lengths.max()} tokens)")
    pad = np.zeros(d_model) if pad_vector is None else as_float_array(pad_vector, "pad_vector")
    if pad.shape != (d_model,):
        raise ValueError(f"pad_vector must have shape ({d_model},); got shape {pad.shape}")
    x = np.tile(pad, (len(tickets), T, 1))  # (B, T, d_model): all padding to start with
    tokens = []
    for b, ticket in enumerate(tickets):
        if len(ticket):
            x[b, : len(ticket)] = embed_wide(ticket, d_model, seed)  # (len, d_model)
        tokens.append(list(ticket) + ["<pad>"] * (T - len(ticket)))
    return x, lengths, tokens


def random_projections(d_model=D_MODEL, seed=0, scale=PROJECTION_SCALE):
    """Seeded stand-ins for the four learned matrices of multi-head attention.

    ``scale * np.random.default_rng(seed).normal(size=(4, d_model, d_model))``: random, not
    trained. With the default scale 0.7 and the standard-normal embeddings of ``embed_wide``,
    the scores of a head have a standard deviation of about 8 * 0.7**2 = 3.9, whatever d_head:
    the weights are neither close to uniform nor all one-hot.

    Parameters
    ----------
    d_model : int, default 8
    seed : int, default 0
    scale : float, default 0.7
        Standard deviation of the entries.

    Returns
    -------
    ndarray, shape (4, d_model, d_model)
        W_Q, W_K, W_V, W_O stacked: ``W_Q, W_K, W_V, W_O = random_projections()``. Multiply on
        the right (``Q = X @ W_Q``); the same matrices serve any number of heads dividing d_model.
    """
    d_model = check_positive_int(d_model, "d_model")
    seed = _check_seed(seed)
    real = not isinstance(scale, (bool, np.bool_)) and isinstance(scale, numbers.Real)
    if not real or not np.isfinite(scale) or scale < 0:
        raise ValueError(f"scale must be a finite non-negative number; got {scale!r}")
    return float(scale) * np.random.default_rng(seed).normal(size=(4, d_model, d_model))


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
        If num_heads does not divide d_model or head is out of range.
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
        If a matrix is not square of one common size, num_heads does not divide d_model, or
        order is not a permutation of range(num_heads).
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
        order_list = [int(i) for i in order]
    except (TypeError, ValueError):
        raise ValueError(f"order must be a sequence of ints; got {order!r}") from None
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
        If weights has fewer than 2 dims or is not square in its last two.
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
