"""Masks of one padded sequence and the three ways of applying a mask (notebook 03), lesson support.

- :func:`mask_layout`: the padding (and causal) mask of one sequence, padded on the right or the left;
- :func:`masked_weights`: attention weights under a mask, applied the right way (mask the scores
  before the softmax) or one of the two look-alikes notebook 03 compares (zero the weights after
  the softmax; zero them and renormalise). The one home of these variants: the notebook-03
  dashboards draw them and the notebook-03 checker recognises them from here.
"""
import numpy as np

from course_utils._validate import as_float_array, check_seed
from course_utils.masks import causal_mask
from course_utils.softmax import softmax as _course_softmax

__all__ = ["MASKING_METHODS", "mask_layout", "masked_weights"]

#: The three ways of applying a mask to a row of scores that MaskBeforeAfterDashboard compares.
MASKING_METHODS = {
    "before": "mask before softmax",
    "zero": "zero after softmax",
    "renormalise": "zero after, then renormalise",
}

# The longest sequence mask_layout builds (its dashboard shows at most a dozen positions; T = 10,000 is a
# 100 MB mask).
_MAX_T = 10_000


def mask_layout(length, padding, causal, side="right"):
    """The mask of one sequence of ``length`` real tokens and ``padding`` padding positions.

    Parameters
    ----------
    length : int
        Real tokens, at least 0.
    padding : int
        Padding positions, at least 0; ``length + padding`` must be positive and at most 10,000.
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
    TypeError
        If length or padding is not an int, or causal not a bool.
    ValueError
        If a length is negative, T is 0 or more than 10,000, or side is not "right"/"left".
    """
    try:
        length, padding = check_seed(length, "length"), check_seed(padding, "padding")  # TypeError: not an int
        negative = False
    except ValueError:
        negative = True
    if negative or length + padding == 0:
        raise ValueError(
            f"need length >= 0, padding >= 0 and length + padding > 0; got length={length}, padding={padding}"
        )
    if length + padding > _MAX_T:
        raise ValueError(f"length + padding = {length + padding:,} (length={length}, padding={padding}) is more than "
                         f"the limit T <= {_MAX_T:,}: a (T, T) mask that large is not meant to be drawn")
    if not isinstance(causal, (bool, np.bool_)):
        raise TypeError(f"causal must be True or False; got {causal!r} of type {type(causal).__name__}")
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
    TypeError
        If scores is not real-valued, or mask is neither boolean nor integer 0s and 1s (a float mask, e.g. an
        additive 0 / -inf one, is refused: read as bool its -inf would mean "may attend").
    ValueError
        For an unknown method, NaN or +inf in scores (-inf is allowed), or a mask that does not broadcast to scores.
    """
    if method not in tuple(MASKING_METHODS):
        raise ValueError(f"method must be one of {list(MASKING_METHODS)}; got {method!r}")
    scores = np.asarray(as_float_array(scores, "scores", neginf_ok=True), dtype=float)
    mask = _as_bool_mask(mask, scores.shape)
    if method == "before":
        return softmax(np.where(mask, scores, -np.inf), axis=-1)
    zeroed = softmax(scores, axis=-1) * mask  # (..., T_q, T_k)
    if method == "zero":
        return zeroed
    sums = zeroed.sum(axis=-1, keepdims=True)  # (..., T_q, 1)
    return np.divide(zeroed, sums, out=np.zeros_like(zeroed), where=sums > 0)


def _as_bool_mask(mask, scores_shape):
    """``mask`` as a boolean array that broadcasts to ``scores_shape``, or an error naming mask and both shapes."""
    try:
        arr = np.asarray(mask)
    except (ValueError, TypeError) as err:
        raise ValueError(f"mask could not be converted to an array ({err})") from None
    if arr.dtype.kind in "iu" and np.isin(arr, (0, 1)).all():
        arr = arr.astype(bool)
    if arr.dtype != np.bool_:
        hint = (": for an additive mask (0 = may attend, -inf = blocked) pass mask == 0, for 0s and 1s mask.astype(bool)"
                if arr.dtype.kind == "f" else "")
        raise TypeError(f"mask must be boolean (True = may attend); got dtype {arr.dtype}, shape {arr.shape}{hint}")
    try:
        fits = np.broadcast_shapes(arr.shape, scores_shape) == tuple(scores_shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"mask shape {arr.shape} does not broadcast to the scores shape {tuple(scores_shape)}")
    return arr
