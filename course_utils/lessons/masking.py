"""Masks of one padded sequence and the three ways of applying a mask (notebook 03), lesson support.

- :func:`mask_layout`: the padding (and causal) mask of one sequence, padded on the right or the left;
- :func:`masked_weights`: attention weights under a mask, applied the right way (mask the scores
  before the softmax) or one of the two look-alikes notebook 03 compares (zero the weights after
  the softmax; zero them and renormalise). The one home of these variants: the notebook-03
  dashboards draw them and the notebook-03 checker recognises them from here.
"""
import numpy as np

from course_utils.masks import causal_mask
from course_utils.softmax import softmax as _course_softmax

__all__ = ["MASKING_METHODS", "mask_layout", "masked_weights"]

#: The three ways of applying a mask to a row of scores that MaskBeforeAfterDashboard compares.
MASKING_METHODS = {
    "before": "mask before softmax",
    "zero": "zero after softmax",
    "renormalise": "zero after, then renormalise",
}


def mask_layout(length, padding, causal, side="right"):
    """The mask of one sequence of ``length`` real tokens and ``padding`` padding positions.

    Parameters
    ----------
    length : int
        Real tokens, at least 0.
    padding : int
        Padding positions, at least 0; ``length + padding`` must be positive.
    causal : bool
        Combine with a causal mask (``&``).
    side : {"right", "left"}
        Where the padding goes: after the real tokens (right) or before them (left).

    Returns
    -------
    mask : ndarray of bool, shape (T, T), T = length + padding
        True = the query (row) may attend to the key (column). Padded *keys* are masked for every
        query; the rows of padded queries are kept (their outputs are thrown away later).
    real : ndarray of bool, shape (T,)
        True at the real positions.

    Raises
    ------
    ValueError
        If a length is negative, T is 0, or side is not "right"/"left".
    """
    if length < 0 or padding < 0 or length + padding == 0:
        raise ValueError(
            f"need length >= 0, padding >= 0 and length + padding > 0; got length={length}, padding={padding}"
        )
    if side not in ("right", "left"):
        raise ValueError(f"side must be 'right' or 'left'; got {side!r}")
    T = length + padding
    real = np.zeros(T, dtype=bool)  # (T,)
    if side == "right":
        real[:length] = True
    else:
        real[padding:] = True
    mask = np.broadcast_to(real[None, :], (T, T)).copy()  # (T_q, T_k): padded keys blocked
    if causal:
        mask &= causal_mask(T)
    return mask, real


def masked_weights(scores, mask, method, *, softmax=_course_softmax):
    """Attention weights of ``scores`` under a boolean ``mask``, by one of three methods.

    Parameters
    ----------
    scores : array_like, shape (..., T_q, T_k)
    mask : array_like of bool, broadcastable to scores; True = may attend
    method : {"before", "zero", "renormalise"}
        "before": ``softmax(where(mask, scores, -inf))`` (the right way).
        "zero": ``softmax(scores) * mask`` (rows no longer sum to one).
        "renormalise": the zeroed weights divided by their row sums (equal to "before" for every
        row with a permitted key; a row without one gives 0 / 0 and is set to zeros here).
    softmax : callable, default ``course_utils.softmax``
        ``softmax(x, axis=-1)``; another one (e.g. without the max shift) gives what a learner's
        own softmax gives, for the checkers.

    Returns
    -------
    ndarray, shape (..., T_q, T_k)

    Raises
    ------
    ValueError
        For an unknown method.
    """
    scores = np.asarray(scores, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    if method == "before":
        return softmax(np.where(mask, scores, -np.inf), axis=-1)
    zeroed = softmax(scores, axis=-1) * mask  # (..., T_q, T_k)
    if method == "zero":
        return zeroed
    if method == "renormalise":
        sums = zeroed.sum(axis=-1, keepdims=True)  # (..., T_q, 1)
        return np.divide(zeroed, sums, out=np.zeros_like(zeroed), where=sums > 0)
    raise ValueError(f"method must be one of {list(MASKING_METHODS)}; got {method!r}")
