"""The online softmax of one query row, block by block (notebook 07), lesson support.

:func:`online_states` lists the running maximum and normaliser after each block of keys: what the
notebook-07 dashboard draws. The update itself is the reference one,
``course_utils.blockwise.online_softmax_update``.
"""
import numpy as np

from course_utils._validate import as_float_array, check_ndim, check_positive_int
from course_utils.blockwise import online_softmax_update

__all__ = ["online_states"]


def online_states(scores, block_size):
    """Running maximum and normaliser of one query row after each block of keys.

    Parameters
    ----------
    scores : array_like, shape (T,)
    block_size : int

    Returns
    -------
    list of (m, l) float pairs, length ceil(T / block_size) + 1
        Entry i: after i blocks (entry 0: m = -inf, l = 0, nothing seen yet).

    Raises
    ------
    ValueError
        If scores is not 1-D or holds NaN/+inf (-inf is allowed: a masked key), or block_size is not positive.
    TypeError
        If scores is not real-valued or block_size not an int.
    """
    scores = as_float_array(scores, "scores", neginf_ok=True)  # (T,)
    check_ndim(scores, "scores", 1, "(T,): one query's score for each key")
    block_size = check_positive_int(block_size, "block_size")
    m, l, o = np.array([-np.inf]), np.array([0.0]), np.zeros(1)
    ones = np.ones((len(scores), 1))  # (T, 1): dummy values, only m and l are shown
    states = [(float(m[0]), float(l[0]))]
    for j0 in range(0, len(scores), block_size):
        m, l, o = online_softmax_update(m, l, o, scores[j0:j0 + block_size], ones[j0:j0 + block_size])
        states.append((float(m[0]), float(l[0])))
    return states
