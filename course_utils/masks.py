"""Boolean attention masks (notebook 03). True = the query may attend to the key (PyTorch's
scaled_dot_product_attention convention)."""
import numbers

import numpy as np

from course_utils._validate import check_array_size, check_positive_int


def causal_mask(T):
    """Causal mask: query i may attend to keys 0..i (itself and earlier positions).

    Parameters
    ----------
    T : int
        Sequence length, a positive int.

    Returns
    -------
    ndarray of bool, shape (T, T)
        True on and below the diagonal, False above it (the later keys are hidden).

    Raises
    ------
    TypeError
        If T is not an int (floats and bools are refused).
    ValueError
        If T is not positive.

    Examples
    --------
    >>> causal_mask(3)
    array([[ True, False, False],
           [ True,  True, False],
           [ True,  True,  True]])
    """
    T = check_positive_int(T, "T")
    check_array_size((T, T), 1, f"causal_mask(T={T})")
    try:
        return np.tril(np.ones((T, T), dtype=bool))  # (T_q, T_k)
    except MemoryError:
        raise MemoryError(f"causal_mask(T={T}) needs a ({T}, {T}) array, {T * T / 2**30:.1f} GiB: "
                          "more memory than is free") from None


def padding_mask(lengths, T):
    """Padding mask: True at the real positions of each sequence, False at the padding.

    Sequence b is real at positions 0..lengths[b]-1 and padded after that. To mask the keys of
    attention scores of shape (B, T_q, T_k), use ``padding_mask(lengths, T)[:, None, :]``
    (shape (B, 1, T_k), shared by every query row).

    Parameters
    ----------
    lengths : sequence of int, shape (B,)
        The real length of each sequence, each in [0, T]. A length of 0 gives an all-False row
        (a sequence with no real key: attention then returns zeros for it).
    T : int
        The padded length, a positive int.

    Returns
    -------
    ndarray of bool, shape (B, T)
        ``mask[b, t] = t < lengths[b]``.

    Raises
    ------
    TypeError
        If T or an entry of lengths is not an int.
    ValueError
        If T is not positive, lengths is not 1-D, or a length is outside [0, T] (the message
        names the offending entry).

    Examples
    --------
    >>> padding_mask([2, 3], 4)
    array([[ True,  True, False, False],
           [ True,  True,  True, False]])
    """
    T = check_positive_int(T, "T")
    if isinstance(lengths, np.ma.MaskedArray):
        raise TypeError("lengths is a numpy masked array; pass a plain list or array of ints")
    if not isinstance(lengths, np.ndarray):
        try:
            entries = list(lengths)
        except TypeError:
            entries = []
        for i, length in enumerate(entries):
            if isinstance(length, (bool, np.bool_)):  # numpy would read True as 1 without a word
                raise TypeError(f"lengths[{i}] = {length!r} is a bool, not a length; give each length as an int")
    try:
        arr = np.asarray(lengths)
    except (ValueError, TypeError) as err:
        raise ValueError(f"lengths could not be converted to an array ({err})") from None
    if arr.ndim != 1:
        raise ValueError(
            f"lengths must be a 1-D sequence of ints (one length per sequence); "
            f"got shape {arr.shape}"
        )
    if arr.size == 0:
        return np.zeros((0, T), dtype=bool)  # no sequences; [] converts to float64, accept it
    if arr.dtype.kind == "O":
        for i, length in enumerate(arr):
            if isinstance(length, (bool, np.bool_)) or not isinstance(length, numbers.Integral):
                raise TypeError(
                    f"lengths[{i}] = {length!r} is not an int (type {type(length).__name__})"
                )
        # Python ints too large for int64 still compare correctly against T below.
        for i, length in enumerate(arr):
            if not 0 <= length <= T:
                raise ValueError(f"lengths[{i}] = {length} is outside [0, T={T}]")
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "iu":
        raise TypeError(f"lengths must hold ints; got dtype {arr.dtype} (lengths = {arr.tolist()})")
    bad = np.flatnonzero((arr < 0) | (arr > T))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"lengths[{i}] = {arr[i]} is outside [0, T={T}]")
    check_array_size((arr.size, T), 1, f"padding_mask(lengths of {arr.size} sequences, T={T})")
    return np.arange(T)[None, :] < arr[:, None]  # (1, T) < (B, 1) -> (B, T)
