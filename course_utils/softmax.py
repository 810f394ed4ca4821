"""Numerically stable softmax (notebook 01)."""
import numbers

import numpy as np

from course_utils._validate import as_float_array


def softmax(x, axis=-1):
    """Softmax along one axis, stable for any finite input.

    The largest entry of each slice is subtracted before exponentiating, so ``exp`` never
    overflows (``softmax([1000, 999, 998])`` equals ``softmax([2, 1, 0])``, and 1e300 is fine).
    The shift leaves the probabilities unchanged: exp(x - m) / sum(exp(x - m)) = exp(x) / sum(exp(x)).

    Entries equal to -inf get weight 0 (that is how a mask removes a key). A slice whose entries
    are all -inf has no permitted entry: its softmax is undefined, and this function returns all
    zeros for it (not NaN), the convention PyTorch's scaled_dot_product_attention follows for a
    query with no permitted key. No numpy RuntimeWarning is emitted for any allowed input.

    Parameters
    ----------
    x : array_like, shape (..., n, ...)
        Real scores. May contain -inf; NaN and +inf are refused.
    axis : int, default -1
        The axis to normalise over (the key axis for attention scores).

    Returns
    -------
    ndarray, same shape as x
        Non-negative weights; each slice along ``axis`` sums to one, except all -inf slices
        (all zeros) and empty slices. Float32 input gives float32 output; bool and int give float64.

    Raises
    ------
    ValueError
        If x contains NaN or +inf (the message gives the index), or ``axis`` is out of range.
    TypeError
        If x is not real-valued (complex, string, object) or ``axis`` is not an int.

    Examples
    --------
    >>> softmax([2.0, 1.0, 0.0]).round(3)
    array([0.665, 0.245, 0.09 ])
    """
    x, axis = _checked(x, axis)
    if x.shape[axis] == 0:
        return np.zeros_like(x)  # empty slices: nothing to normalise
    if x.dtype == np.float16:
        # float16 tops out at 65,504: a sum of more exp(...) <= 1 than that would overflow. Add up in float32.
        return softmax(x.astype(np.float32), axis).astype(np.float16)
    row_max = np.max(x, axis=axis, keepdims=True)  # (..., 1, ...): each slice's largest entry
    row_max[np.isneginf(row_max)] = 0  # an all -inf slice: shift by 0, as -inf - (-inf) would be NaN
    with np.errstate(over="ignore", under="ignore"):  # x - max may overflow to -inf (-1e308 - 1e308): exp gives 0
        e = np.exp(x - row_max)  # same shape as x; entries in [0, 1], the largest of each slice 1
    total = np.sum(e, axis=axis, keepdims=True)  # (..., 1, ...): at least 1, or 0 for an all -inf slice
    total[total == 0] = 1  # an all -inf slice is all zeros already: divide it by 1, not 0
    return e / total


def _checked(x, axis):
    """``x`` as a floating ndarray (NaN and +inf refused, -inf kept) and ``axis`` as an int in range, or an error
    naming what was wrong."""
    x = as_float_array(x, "x", neginf_ok=True)
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"axis must be an int; got {axis!r} of type {type(axis).__name__}")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(
            f"axis={axis} is out of range for x with {x.ndim} dimension(s) (shape {x.shape})"
        )
    return x, int(axis)
