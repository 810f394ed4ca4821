"""Why scores are divided by sqrt(d_k): small numpy experiments (notebook 02).

If the d_k coordinates of a query q and a key k are independent with mean 0 and variance 1,
the dot product ``q . k`` is a sum of d_k products, each with mean 0 and variance 1, so it has
variance d_k and standard deviation sqrt(d_k). Unscaled scores therefore spread out as the key
width grows, and softmax of widely spread scores puts almost all the weight on one key.
Dividing by sqrt(d_k) brings the spread back to about 1 whatever d_k is.

- :func:`dot_product_std` measures the spread of ``q . k`` for several d_k.
- :func:`entropy` measures how spread out a row of weights is (0: all on one key; ln T: even).
- :func:`query_and_keys` and :func:`row_weights` give one seeded random attention row (the
  notebook-02 dashboard draws it).
- :func:`saturation_stats` averages the largest weight and the entropy over many random rows,
  with and without the scale.

Everything random takes a seed and is reproducible.
"""
import numbers

import numpy as np

from course_utils._validate import as_float_array, check_ndim, check_positive_int, check_seed
from course_utils.softmax import softmax

__all__ = [
    "dot_product_std",
    "entropy",
    "query_and_keys",
    "row_weights",
    "saturation_stats",
    "DEFAULT_MAX_D_K",
]

#: Width of the fixed random vectors ``query_and_keys`` takes its first d_k coordinates from.
DEFAULT_MAX_D_K = 1024

# At most this many numbers are drawn at once (keeps memory small for large d_k).
_CHUNK_ELEMENTS = 1 << 20

# Limits far beyond the notebooks' sizes (d_k up to 1024, 10,000 pairs, 2,000 rows of 8 keys): past them a call
# would run for minutes or swap, so it is refused with a message naming the argument and the limit.
_MAX_D_K = 65_536
_MAX_COUNT = 10_000_000  # n_pairs, n_rows
_MAX_KEYS = 10_000  # num_keys
_MAX_DRAWN = 2**30  # random numbers drawn by one call: about 10 s
_MAX_KEPT = 2**24  # numbers kept at once (n_rows * num_keys scores, query_and_keys' vectors)


def _d_k_list(d_k_values):
    """The d_k values as a list of positive ints, or an error naming the bad one."""
    if isinstance(d_k_values, numbers.Integral):
        d_k_values = [d_k_values]
    if isinstance(d_k_values, str):
        raise TypeError(f"d_k_values must be an int or a sequence of ints, not the string {d_k_values!r}")
    try:
        values = list(d_k_values)
    except TypeError:
        raise TypeError(f"d_k_values must be an int or a sequence of ints, e.g. [4, 16, 64]; got {d_k_values!r} "
                        f"of type {type(d_k_values).__name__}") from None
    if not values:
        raise ValueError("d_k_values is empty; give at least one key width, e.g. [4, 16, 64]")
    return [check_positive_int(int(d) if isinstance(d, np.integer) else d, "d_k", at_most=_MAX_D_K) for d in values]


def _check_drawn(total, what, count_name):
    """Refuse a call that would draw more than _MAX_DRAWN random numbers; ``what`` names the arguments."""
    if total > _MAX_DRAWN:
        raise ValueError(f"{what} would draw {total:,} random numbers, more than the limit {_MAX_DRAWN:,} "
                         f"(about 10 s); lower {count_name} or the d_k values")


def _chunks(total, width):
    """Row counts whose sum is ``total``, each chunk holding at most _CHUNK_ELEMENTS numbers."""
    rows = max(1, _CHUNK_ELEMENTS // max(width, 1))
    done = 0
    while done < total:
        n = min(rows, total - done)
        yield n
        done += n


def dot_product_std(d_k_values, n_pairs=10_000, seed=0):
    """Measured standard deviation of ``q . k`` for random unit-variance q and k, per key width.

    For each d_k, ``n_pairs`` pairs of vectors with independent standard-normal coordinates
    (mean 0, variance 1) are drawn and the standard deviation of their dot products is
    measured. Theory says it is sqrt(d_k).

    Parameters
    ----------
    d_k_values : int or sequence of int, length n
        Key widths (positive, at most 65,536).
    n_pairs : int, default 10_000
        Pairs drawn per d_k. The relative error of the estimate is about 1 / sqrt(2 n_pairs)
        (0.7% for the default). At most 10,000,000, and ``2 * n_pairs * sum(d_k_values)`` at most 2**30.
    seed : int, default 0
        Each d_k draws from ``np.random.default_rng([seed, d_k])``, so a d_k's result does not
        depend on the other values in the list.

    Returns
    -------
    ndarray, shape (n,)
        The measured standard deviations, in the order of ``d_k_values``.

    Raises
    ------
    ValueError
        If a d_k or n_pairs is not positive or over its limit, d_k_values is empty, or seed is negative.
    TypeError
        If a d_k, n_pairs or seed is not an int, or d_k_values is not an int or a sequence.

    Examples
    --------
    >>> dot_product_std([1, 100]).round(2)  # sqrt(1) = 1 and sqrt(100) = 10, up to the sampling error
    array([0.98, 9.86])
    """
    d_ks = _d_k_list(d_k_values)
    n_pairs = check_positive_int(n_pairs, "n_pairs", at_most=_MAX_COUNT)
    seed = check_seed(seed)
    _check_drawn(2 * n_pairs * sum(d_ks), f"n_pairs={n_pairs:,} with d_k_values {d_ks}", "n_pairs")
    stds = []
    for d_k in d_ks:
        rng = np.random.default_rng([seed, d_k])
        dots = []
        for n in _chunks(n_pairs, 2 * d_k):
            q = rng.standard_normal((n, d_k))  # (n, d_k)
            k = rng.standard_normal((n, d_k))  # (n, d_k)
            dots.append(np.einsum("nd,nd->n", q, k))  # (n,): one dot product per pair
        stds.append(np.concatenate(dots).std())
    return np.array(stds)


def entropy(weights, axis=-1):
    """Shannon entropy, in nats, of rows of attention weights.

    ``H = -sum_j w_j ln w_j`` with ``0 ln 0 = 0``. For T keys it lies between 0 (all the weight on
    one key) and ln T (the same weight, 1/T, on every key): a small entropy means a peaked,
    "saturated" row, a large one a spread-out row.

    Parameters
    ----------
    weights : array_like, shape (..., T)
        Non-negative weights, each row summing to one (e.g. a softmax output).
    axis : int, default -1
        The key axis, -weights.ndim <= axis < weights.ndim.

    Returns
    -------
    ndarray, shape (...)  (the input shape without ``axis``)
        A 0-d array for a single row (use ``float(...)``).

    Raises
    ------
    ValueError
        If weights holds NaN, inf or negative entries, or axis is out of range for its shape.
    TypeError
        If weights is not real-valued or axis not an int.

    Examples
    --------
    >>> round(float(entropy([0.25, 0.25, 0.25, 0.25])), 4)  # ln 4
    1.3863
    >>> float(entropy([1.0, 0.0, 0.0]))  # all the weight on one key
    0.0
    """
    w = as_float_array(weights, "weights")
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"axis must be an int; got {axis!r} of type {type(axis).__name__}")
    if not -w.ndim <= axis < w.ndim:
        raise ValueError(f"axis={axis} is out of range for weights of shape {w.shape} ({w.ndim}-D)")
    if (w < 0).any():
        where = tuple(int(i) for i in np.unravel_index(int(np.argmax(w < 0)), w.shape))
        raise ValueError(f"weights must be non-negative; weights{list(where)} = {w[where]} (shape {w.shape})")
    safe = np.where(w > 0, w, 1.0)  # log(1) = 0, so zero weights add nothing
    # + 0.0 turns the -0.0 of a one-key row (minus a sum of zeros) into 0.0; it changes no other value.
    return -np.sum(w * np.log(safe), axis=axis) + 0.0


def query_and_keys(d_k, num_keys=8, seed=0, max_d_k=DEFAULT_MAX_D_K):
    """One seeded random query and ``num_keys`` keys, with standard-normal coordinates.

    The vectors are the first d_k coordinates of fixed random vectors of width ``max_d_k``, so
    increasing d_k adds coordinates to the same vectors instead of drawing new ones (a slider
    over d_k then changes one thing only).

    Parameters
    ----------
    d_k : int
        Key width, 1 <= d_k <= max_d_k.
    num_keys : int, default 8
        T, the number of keys, at most 10,000.
    seed : int, default 0
    max_d_k : int, default 1024
        At most 65,536, and ``(num_keys + 1) * max_d_k`` at most 2**24.

    Returns
    -------
    q : ndarray, shape (d_k,)
    k : ndarray, shape (num_keys, d_k)

    Raises
    ------
    ValueError
        If d_k is not in [1, max_d_k], num_keys is not positive, or num_keys or max_d_k is over its limit.
    TypeError
        If d_k, num_keys, max_d_k or seed is not an int.
    """
    d_k = check_positive_int(d_k, "d_k")
    num_keys = check_positive_int(num_keys, "num_keys", at_most=_MAX_KEYS)
    max_d_k = check_positive_int(max_d_k, "max_d_k", at_most=_MAX_D_K)
    if d_k > max_d_k:
        raise ValueError(f"d_k={d_k} is larger than max_d_k={max_d_k}")
    if (num_keys + 1) * max_d_k > _MAX_KEPT:
        raise ValueError(f"(num_keys + 1) * max_d_k = {(num_keys + 1) * max_d_k:,} numbers (num_keys={num_keys}, "
                         f"max_d_k={max_d_k}) is more than the limit {_MAX_KEPT:,}")
    rng = np.random.default_rng(check_seed(seed))
    q_full = rng.standard_normal(max_d_k)  # (max_d_k,)
    k_full = rng.standard_normal((num_keys, max_d_k))  # (T, max_d_k)
    return q_full[:d_k].copy(), k_full[:, :d_k].copy()


def row_weights(q, k, scaled=True):
    """One attention row: ``softmax(k @ q / sqrt(d_k))``, or ``softmax(k @ q)`` when not scaled.

    Parameters
    ----------
    q : array_like, shape (d_k,)
        One query.
    k : array_like, shape (T, d_k)
        The keys.
    scaled : bool, default True
        Divide the scores by sqrt(d_k) before the softmax.

    Returns
    -------
    weights : ndarray, shape (T,)
        Sum to one.
    scores : ndarray, shape (T,)
        What the softmax received (scaled or not).

    Raises
    ------
    ValueError
        If q is not 1-D, k is not 2-D, their d_k differ, or an entry is NaN/inf.
    TypeError
        If q or k is not real-valued, or scaled not a bool.
    """
    if not isinstance(scaled, (bool, np.bool_)):
        raise TypeError(f"scaled must be True or False; got {scaled!r} of type {type(scaled).__name__}")
    q = as_float_array(q, "q")
    k = as_float_array(k, "k")
    check_ndim(q, "q", 1, "(d_k,): one query")
    check_ndim(k, "k", 2, "(T, d_k): one key per row")
    if k.shape[1] != q.shape[0]:
        raise ValueError(f"k has d_k={k.shape[1]} but q has d_k={q.shape[0]} (q shape {q.shape}, k shape {k.shape})")
    scores = k @ q  # (T, d_k) @ (d_k,) -> (T,)
    if scaled:
        scores = scores / np.sqrt(q.shape[0])
    return softmax(scores, 0), scores


def saturation_stats(d_k_values, num_keys=8, n_rows=2_000, seed=0):
    """How peaked softmax rows get as d_k grows, with and without dividing by sqrt(d_k).

    For each d_k, ``n_rows`` rows are drawn, each a random query and ``num_keys`` random keys
    (standard-normal coordinates), and the weights ``softmax(q . k)`` and
    ``softmax(q . k / sqrt(d_k))`` are computed.

    Parameters
    ----------
    d_k_values : int or sequence of int, length n
    num_keys : int, default 8
        T, keys per row. A row spread evenly has entropy ln T. At most 10,000.
    n_rows : int, default 2000
        At most 10,000,000, ``n_rows * num_keys`` at most 2**24, and
        ``n_rows * (num_keys + 1) * sum(d_k_values)`` at most 2**30.
    seed : int, default 0
        Each d_k draws from ``np.random.default_rng([seed, d_k])``.

    Returns
    -------
    dict of str -> ndarray, each of shape (n,)
        "d_k"; "max_weight_unscaled", "max_weight_scaled": the mean over rows of the largest
        weight; "entropy_unscaled", "entropy_scaled": the mean entropy in nats;
        "score_std_unscaled", "score_std_scaled": the standard deviation of the scores.

    Raises
    ------
    ValueError
        If a d_k, num_keys or n_rows is not positive or over its limit, d_k_values is empty, or seed is negative.
    TypeError
        If one of them is not an int, or d_k_values is not an int or a sequence.
    """
    d_ks = _d_k_list(d_k_values)
    num_keys = check_positive_int(num_keys, "num_keys", at_most=_MAX_KEYS)
    n_rows = check_positive_int(n_rows, "n_rows", at_most=_MAX_COUNT)
    seed = check_seed(seed)
    if n_rows * num_keys > _MAX_KEPT:
        raise ValueError(f"n_rows * num_keys = {n_rows * num_keys:,} scores (n_rows={n_rows:,}, num_keys={num_keys}) "
                         f"is more than the limit {_MAX_KEPT:,}")
    _check_drawn(n_rows * (num_keys + 1) * sum(d_ks), f"n_rows={n_rows:,} rows of num_keys={num_keys} keys with "
                 f"d_k_values {d_ks}", "n_rows")
    names = ("max_weight_unscaled", "max_weight_scaled", "entropy_unscaled", "entropy_scaled",
             "score_std_unscaled", "score_std_scaled")
    out = {name: [] for name in names}
    for d_k in d_ks:
        rng = np.random.default_rng([seed, d_k])
        scores = []
        for n in _chunks(n_rows, (num_keys + 1) * d_k):
            q = rng.standard_normal((n, 1, d_k))  # (n, 1, d_k)
            k = rng.standard_normal((n, num_keys, d_k))  # (n, T, d_k)
            scores.append(np.einsum("nqd,ntd->nt", q, k))  # (n, T): one row of scores per query
        unscaled = np.concatenate(scores)  # (n_rows, T)
        for label, s in (("unscaled", unscaled), ("scaled", unscaled / np.sqrt(d_k))):
            w = softmax(s, -1)  # (n_rows, T)
            out[f"max_weight_{label}"].append(w.max(axis=-1).mean())
            out[f"entropy_{label}"].append(entropy(w).mean())
            out[f"score_std_{label}"].append(s.std())
    result = {"d_k": np.array(d_ks)}
    result.update({name: np.array(values) for name, values in out.items()})
    return result
