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


def _d_k_list(d_k_values):
    """The d_k values as a list of positive ints, or an error naming the bad one."""
    if isinstance(d_k_values, numbers.Integral):
        d_k_values = [d_k_values]
    values = list(d_k_values)
    if not values:
        raise ValueError("d_k_values is empty; give at least one key width, e.g. [4, 16, 64]")
    return [check_positive_int(int(d) if isinstance(d, np.integer) else d, "d_k") for d in values]


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
        Key widths (positive).
    n_pairs : int, default 10_000
        Pairs drawn per d_k. The relative error of the estimate is about 1 / sqrt(2 n_pairs)
        (0.7% for the default).
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
        If a d_k or n_pairs is not positive, d_k_values is empty, or seed is negative.
    TypeError
        If a d_k, n_pairs or seed is not an int.

    Examples
    --------
    >>> dot_product_std([1, 100]).round(2)  # sqrt(1) = 1 and sqrt(100) = 10, up to the sampling error
    array([0.98, 9.86])
    """
    d_ks = _d_k_list(d_k_values)
    n_pairs = check_positive_int(n_pairs, "n_pairs")
    seed = check_seed(seed)
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
        The key axis.

    Returns
    -------
    ndarray, shape (...)  (the input shape without ``axis``)
        A 0-d array for a single row (use ``float(...)``).

    Raises
    ------
    ValueError
        If weights holds NaN, inf or negative entries.

    Examples
    --------
    >>> round(float(entropy([0.25, 0.25, 0.25, 0.25])), 4)  # ln 4
    1.3863
    >>> float(entropy([1.0, 0.0, 0.0]))  # all the weight on one key
    0.0
    """
    w = as_float_array(weights, "weights")
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
        T, the number of keys.
    seed : int, default 0
    max_d_k : int, default 1024

    Returns
    -------
    q : ndarray, shape (d_k,)
    k : ndarray, shape (num_keys, d_k)

    Raises
    ------
    ValueError
        If d_k is not in [1, max_d_k] or num_keys is not positive.
    """
    d_k = check_positive_int(d_k, "d_k")
    num_keys = check_positive_int(num_keys, "num_keys")
    max_d_k = check_positive_int(max_d_k, "max_d_k")
    if d_k > max_d_k:
        raise ValueError(f"d_k={d_k} is larger than max_d_k={max_d_k}")
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
        If q is not 1-D, k is not 2-D, or their d_k differ.
    """
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
        T, keys per row. A row spread evenly has entropy ln T.
    n_rows : int, default 2000
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
        If a d_k, num_keys or n_rows is not positive, d_k_values is empty, or seed is negative.
    TypeError
        If one of them is not an int.
    """
    d_ks = _d_k_list(d_k_values)
    num_keys = check_positive_int(num_keys, "num_keys")
    n_rows = check_positive_int(n_rows, "n_rows")
    seed = check_seed(seed)
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
