"""Private input checks shared by the core modules (softmax, attention, blockwise, masks, multihead).

Every check raises a ValueError or TypeError whose message names the argument and what it got
(its shape, dtype, or the position of the offending entry), so a learner never has to read a bare
numpy traceback to find out which input was wrong.
"""
import numbers
import os

import numpy as np

_MASK_DTYPE_HINT = (
    "use a boolean mask (True = may attend) or a float mask (0 or -inf added to the scores)"
)


def as_float_array(x, name, *, nan_ok=False, posinf_ok=False, neginf_ok=False):
    """Convert ``x`` to a floating ndarray, or raise an error that names ``name``.

    Parameters
    ----------
    x : array_like
        Real numbers: a list or an ndarray of bool, integer or floating dtype.
    name : str
        The argument's name, used in error messages.
    nan_ok, posinf_ok, neginf_ok : bool, default False
        Whether NaN, +inf or -inf entries are allowed.

    Returns
    -------
    ndarray
        Same shape as ``x``: float64 from bool and integers, else its own float dtype (no copy).

    Raises
    ------
    TypeError
        If ``x`` holds anything that is not a real number (complex numbers, strings, objects).
    ValueError
        If ``x`` is ragged, or holds a NaN / inf not allowed (the message gives the first one's index).
    """
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError(
            f"{name} is a numpy masked array; its mask would be lost here. Pass a plain array "
            f"({name}.filled(...)), and say which keys are hidden with an attention mask (mask=...)"
        )
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as err:
        raise ValueError(
            f"{name} could not be converted to a numeric array ({err}); "
            f"pass a rectangular list or an ndarray of real numbers"
        ) from None
    if arr.dtype.kind == "O":
        arr = _numbers_as_float(arr, name)
    kind = arr.dtype.kind
    if kind in "biu":
        arr = arr.astype(np.float64)
    elif kind != "f":
        raise TypeError(
            f"{name} must hold real numbers (bool, int or float); got dtype {arr.dtype}"
            + (" (complex numbers are not supported)" if kind == "c" else "")
        )
    if not (nan_ok and posinf_ok and neginf_ok):
        _check_nonfinite(arr, name, nan_ok=nan_ok, posinf_ok=posinf_ok, neginf_ok=neginf_ok)
    return arr


def _numbers_as_float(arr, name):
    """An object array of Python numbers (e.g. ints too large for int64) as float64, or raise naming
    the first entry that is not a real number or too large for a float."""
    out = np.empty(arr.shape, dtype=np.float64)
    for index, value in np.ndenumerate(arr):
        where = f"{name}[{', '.join(map(str, index))}]" if index else name
        if not isinstance(value, numbers.Real):
            raise TypeError(f"{where} = {value!r} is not a real number (type {type(value).__name__})")
        try:
            out[index] = float(value)
        except OverflowError:
            digits = len(str(abs(int(value))))
            raise ValueError(f"{where} is an integer of {digits} digits, too large for a float "
                             "(at most about 1.8e308)") from None
    return out


def _check_nonfinite(arr, name, *, nan_ok, posinf_ok, neginf_ok, what=""):
    """Raise ValueError at the first NaN / +inf / -inf entry of ``arr`` that is not allowed."""
    if np.isfinite(arr).all():
        return
    allowed = {"NaN": (nan_ok, np.isnan), "+inf": (posinf_ok, np.isposinf), "-inf": (neginf_ok, np.isneginf)}
    for label, (ok, test) in allowed.items():
        bad = test(arr)
        if not ok and bad.any():
            where = tuple(int(i) for i in np.unravel_index(np.flatnonzero(bad)[0], arr.shape))  # e.g. (1, 2)
            count = int(bad.sum())
            raise ValueError(
                f"{name} contains {label} at index {where} ({count} such entr"
                f"{'y' if count == 1 else 'ies'} in shape {arr.shape}){what}"
            )


def check_min_ndim(arr, name, min_ndim, layout):
    """Raise ValueError unless ``arr.ndim >= min_ndim``; ``layout`` describes the expected axes."""
    if arr.ndim < min_ndim:
        raise ValueError(
            f"{name} must have at least {min_ndim} dimension{'s' if min_ndim != 1 else ''} "
            f"{layout}; got shape {arr.shape} ({arr.ndim}-D)"
        )


def check_ndim(arr, name, ndim, layout):
    """Raise ValueError unless ``arr.ndim == ndim``; ``layout`` describes the expected axes."""
    if arr.ndim != ndim:
        raise ValueError(
            f"{name} must be {ndim}-D {layout}; got shape {arr.shape} ({arr.ndim}-D)"
        )


def free_memory_bytes():
    """The memory free for new arrays: Linux's MemAvailable, else the machine's physical memory, else None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # Windows has no sysconf
        return None


def check_array_size(shape, itemsize, what, copies=1, instead=""):
    """Raise a ValueError that names ``what`` when ``copies`` arrays of ``shape`` need more than the memory free
    (or 1 TiB): numpy's own "array is too big" or MemoryError would not say which argument is to blame, and an
    array just below the memory would make the machine swap for minutes. ``instead`` ends the message (what to do)."""
    size = 1
    for n in shape:
        size *= int(n)
    nbytes = size * int(itemsize) * copies
    if nbytes <= 2**28:  # 256 MiB: fits anywhere the course runs, not worth asking the machine
        return
    free = free_memory_bytes()
    limit = min(2**40, free) if free else 2**40
    if nbytes > limit:
        arrays = "an array" if copies == 1 else f"{copies} arrays"
        room = f"the {limit / 2**30:,.1f} GiB free on this machine" if limit < 2**40 else "1 TiB"
        raise ValueError(f"{what} would need {arrays} of shape {tuple(shape)}: {nbytes / 2**30:,.1f} GiB, more than "
                         f"{room}{instead}")


def check_positive_int(value, name, *, at_most=None, why="", minimum=1):
    """Return ``value`` as an int if it is a positive integer, else raise a TypeError (not an integer: floats such
    as 2.0 and bools are refused) or a ValueError (zero or negative, or more than ``at_most`` when given: a size far
    beyond what the course uses, which would take minutes or swap; ``why`` is added to that message).
    ``minimum=0`` accepts 0 too and words the errors "a non-negative int" (``check_seed``)."""
    kind = "positive" if minimum > 0 else "non-negative"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a {kind} int; got {value!r} of type {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be a {kind} int; got {name}={value}")
    if at_most is not None and value > at_most:
        raise ValueError(f"{name}={int(value):,} is more than the limit {name} <= {at_most:,}{why}")
    return int(value)


def check_seed(seed, name="seed"):
    """Return ``seed`` as an int if it is a non-negative integer, else raise as ``check_positive_int`` does (the one
    seed check of the package, so every function that takes a seed words the same mistake the same way)."""
    return check_positive_int(seed, name, minimum=0)


def as_mask(mask, scores_shape, name="mask"):
    """Check an attention mask against the scores shape and return it as an ndarray.

    Parameters
    ----------
    mask : array_like
        Boolean (True = may attend) or floating (added to the scores: 0 or -inf, or any finite
        bias). Must broadcast to ``(..., T_q, T_k)``; it may add leading (batch) dims.
    scores_shape : tuple of int
        ``(..., T_q, T_k)``, the shape of the scores the mask applies to.
    name : str
        The argument's name for error messages.

    Returns
    -------
    ndarray
        The mask, of bool or floating dtype, unchanged in shape.

    Raises
    ------
    TypeError
        If the mask's dtype is not bool or float.
    ValueError
        If a float mask holds NaN or +inf, or only 0s and 1s (meant as a boolean mask), or it does not broadcast.
    """
    try:
        arr = np.asarray(mask)
    except (ValueError, TypeError) as err:
        raise ValueError(f"{name} could not be converted to an array ({err})") from None
    kind = arr.dtype.kind
    if kind in "iu":
        raise TypeError(
            f"{name} has integer dtype {arr.dtype}, which is ambiguous; {_MASK_DTYPE_HINT}"
        )
    if kind not in "bf":
        raise TypeError(f"{name} has dtype {arr.dtype}; {_MASK_DTYPE_HINT}")
    if kind == "f":
        _check_nonfinite(
            arr, name, nan_ok=False, posinf_ok=False, neginf_ok=True,
            what="; a float mask is added to the scores, so it may hold 0, finite values or -inf",
        )
        if arr.size and (arr == 1).any() and np.isin(arr, (0.0, 1.0)).all():
            raise ValueError(
                f"{name} holds only 0s and 1s, as floats (np.tril(np.ones(...)) gives float64): a float mask is "
                f"added to the scores, so its 1s would add 1, not allow; for 1 = may attend pass {name}.astype(bool)"
            )
    scores_shape = tuple(scores_shape)
    try:
        full = tuple(np.broadcast_shapes(arr.shape, scores_shape))
    except ValueError:
        full = None
    if full is None or full[-2:] != scores_shape[-2:]:
        raise ValueError(
            f"{name} shape {arr.shape} does not broadcast to the scores shape "
            f"(..., T_q, T_k) = {scores_shape}"
        )
    if arr.ndim == 2 and len(scores_shape) > 2 and arr.shape[0] == scores_shape[-3] > 1 and _padding_rows(arr):
        raise ValueError(
            f"{name} has shape {arr.shape} and the scores {scores_shape}: its rows look like a padding mask (B, T_k) "
            f"of {arr.shape[0]} sequences (each row permits the keys up to a length, then none), but a 2-D mask "
            f"applies to every sequence's query rows, not one row per sequence. Pass a padding mask as "
            f"{name}[:, None, :] (shape (B, 1, T_k)); a mask meant per query row, the same for every sequence, "
            f"as {name}[None] (shape (1, T_q, T_k))"
        )
    return arr


def _padding_rows(mask) -> bool:
    """Whether a 2-D mask's rows permit the first n_b keys each, some fewer than all, in no causal staircase:
    what ``padding_mask(lengths, T)`` gives, and no mask meant per query row (a causal one rises by one a row)."""
    permitted = mask if mask.dtype == np.bool_ else ~np.isneginf(mask)  # (R, T_k)
    counts = permitted.sum(axis=-1)  # (R,)
    prefix = np.array_equal(permitted, np.arange(mask.shape[-1]) < counts[:, None])
    staircase = np.array_equal(counts, np.minimum(np.arange(1, len(counts) + 1), mask.shape[-1]))
    return prefix and bool((counts < mask.shape[-1]).any()) and not staircase


def check_qkv(q, k, v):
    """Validate attention inputs: q (..., T_q, d_k), k (..., T_k, d_k), v (..., T_k, d_v).

    Returns
    -------
    q, k, v : ndarray
        Float arrays (no NaN or inf).
    lead : tuple of int
        The broadcast leading (batch) shape of q, k and v.

    Raises
    ------
    ValueError
        Fewer than 2 dims, d_k of q and k differ, T_k of k and v differ, d_k = 0, leading dims
        that do not broadcast, or NaN/inf in an input (each message names the shapes).
    TypeError
        If an input is not real-valued.
    """
    q = as_float_array(q, "q")
    k = as_float_array(k, "k")
    v = as_float_array(v, "v")
    check_min_ndim(q, "q", 2, "(..., T_q, d_k)")
    check_min_ndim(k, "k", 2, "(..., T_k, d_k)")
    check_min_ndim(v, "v", 2, "(..., T_k, d_v)")
    d_k = q.shape[-1]
    if k.shape[-1] != d_k:
        raise ValueError(
            f"k has d_k={k.shape[-1]} but q has d_k={d_k} (q shape {q.shape}, k shape {k.shape})"
        )
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(
            f"v has T_k={v.shape[-2]} rows but k has T_k={k.shape[-2]} "
            f"(k shape {k.shape}, v shape {v.shape}); each key needs one value"
        )
    if d_k == 0:
        raise ValueError(f"q and k have d_k=0 (q shape {q.shape}, k shape {k.shape})")
    try:
        lead = tuple(np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2]))
    except ValueError:
        raise ValueError(
            f"the leading (batch) dims do not broadcast: q {q.shape[:-2]}, k {k.shape[:-2]}, v {v.shape[:-2]} "
            f"(q shape {q.shape}, k shape {k.shape}, v shape {v.shape}); each leading dim must be equal or 1"
        ) from None
    return q, k, v, lead


def as_scale(scale, d_k):
    """The score scale as a Python float: ``1 / sqrt(d_k)`` when None, else a finite real number.

    A Python float (not a numpy scalar) keeps float32 inputs float32.
    """
    if scale is None:
        return float(1.0 / np.sqrt(d_k))
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, numbers.Real):
        raise TypeError(f"scale must be a real number; got {scale!r} of type {type(scale).__name__}")
    if not np.isfinite(scale):
        raise ValueError(f"scale must be finite; got scale={scale}")
    return float(scale)


def check_scores_finite(scores, q, k, scale):
    """Raise a ValueError naming q and k when the scores ``q @ k^T * scale`` overflowed (an inf or a NaN among them)."""
    if not np.isfinite(scores).all():
        raise ValueError(
            f"the scores q @ k^T * scale overflowed (largest |q| = {np.abs(q).max():.3g}, "
            f"|k| = {np.abs(k).max():.3g}, scale = {scale:.3g}); rescale q and k"
        )


def check_score_row(scores, values, *, name="scores", what="score", neginf_ok=True):
    """Validate one query's row, ``name`` (T,), and its values (T, d_v); return both as float arrays.

    The row is a row of scores by default (it may hold -inf, a masked key); notebook 05's contributions pass a row
    of weights (``name="weights", what="weight", neginf_ok=False``). Raises as :func:`as_float_array` does, and a
    ValueError for wrong dims or a T of the row and values that differ.
    """

    row = as_float_array(scores, name, neginf_ok=neginf_ok)
    values = as_float_array(values, "values")
    check_ndim(row, name, 1, f"(T,): one query's {what} for each key")
    check_ndim(values, "values", 2, "(T, d_v): one value vector per key")
    if row.shape[0] != values.shape[0]:
        raise ValueError(
            f"{name} has T={row.shape[0]} keys but values has T={values.shape[0]} rows "
            f"({name} shape {row.shape}, values shape {values.shape})"
        )
    return row, values
