"""Plain-text formatting of numbers, values and errors for checker messages."""
import numpy as np

PRECISION = 4          # decimals shown for floats
_MAX_REPR = 80         # longest repr shown for a value that is not an array
_LABEL_WIDTH = 10      # "expected: " is 10 characters


def fmt_array(a):
    """Format an array of numbers (any shape) with fixed precision and comma separators, like a Python
    list: ``[0.6652, 0.2447, 0.0900]`` or ``[1000., 999., 998.]``.

    Floats are shown with at most 4 decimals, all entries with the same number of decimals
    (``0.6652``, ``0.0900``; ``0.5``; ``1000.`` when every entry is a whole number), in
    scientific notation when they are huge; nan and inf as such.
    Columns of 2-D and larger arrays are aligned, for a text starting at column 0 (use
    ``indent_after_first`` to place it elsewhere); long arrays are summarised with ``...``.
    """
    a = np.asarray(a)
    if a.dtype.kind == "f":
        fmt = _float_formatter(a)
    elif a.dtype.kind in "iu":
        fmt = str
    else:
        return _short_repr(a.tolist() if a.dtype.kind == "b" else a)
    if a.ndim == 0:
        return fmt(a.item())
    width = 0
    if a.ndim > 1 and 0 < a.size <= 60:  # an empty array (a (0, 0) mask) has no entry to align
        width = max(len(fmt(v)) for v in a.ravel().tolist())
    kind = "float_kind" if a.dtype.kind == "f" else "int_kind"
    return np.array2string(
        a,
        formatter={kind: lambda v: fmt(v).rjust(width)},
        separator=", ",
        threshold=60,
        edgeitems=3,
        max_line_width=100,
    )


def _float_formatter(a):
    """A function formatting one float the same way for every entry of a."""
    finite = _shown(a)
    finite = finite[np.isfinite(finite)].astype(float)
    biggest = float(np.max(np.abs(finite))) if finite.size else 0.0
    if biggest >= 1e6:
        body = lambda v: f"{v:.{PRECISION}g}"  # noqa: E731
    else:
        # As many decimals as the most precise entry needs, at most PRECISION ("maxprec_equal").
        decimals = max((len(f"{v:.{PRECISION}f}".rstrip("0").split(".")[1]) for v in finite.ravel().tolist()),
                       default=0)
        if decimals == 0:
            body = lambda v: f"{v:.0f}."  # noqa: E731
        else:
            body = lambda v, d=decimals: f"{v:.{d}f}"  # noqa: E731

    def fmt(v):
        v = float(v)
        if not np.isfinite(v):
            return str(v)
        text = body(v)
        if text.startswith("-") and not text.strip("-0.e+"):
            text = text[1:]  # -0.0000: a tiny negative number shown as zero
        return text

    return fmt


def _shown(a, edge=3, threshold=60):
    """The entries of ``a`` that a summarised print shows (its first and last ``edge`` entries along
    every axis), so that formatting a huge array costs as much as formatting a small one."""
    if a.size <= threshold:
        return a.ravel()
    for axis in range(a.ndim):
        if a.shape[axis] > 2 * edge:
            a = np.concatenate([np.take(a, range(edge), axis=axis), np.take(a, range(-edge, 0), axis=axis)], axis=axis)
    return a.ravel()


def _fmt_scalar(v):
    if isinstance(v, (bool, np.bool_)):
        return repr(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        text = fmt_array(np.float64(v))
        return text + "0" if text.endswith(".") else text  # "1.0", not numpy's "1." (a sentence ends "1..")
    return _short_repr(v)


def _short_repr(v):
    text = repr(v)
    if len(text) > _MAX_REPR:
        text = text[: _MAX_REPR - 3] + "..."
    return text


def is_numeric_array_like(v):
    """True if v is an ndarray, a number, or a (nested) list/tuple that numpy turns into real numbers."""
    if isinstance(v, (str, bytes, dict, set)) or v is None:
        return False
    try:
        a = np.asarray(v)
    except Exception:  # ragged lists, objects refusing conversion
        return False
    return a.dtype.kind in "iuf"


def indent_after_first(text, n):
    """Indent every line of text but the first by n spaces."""
    return text.replace("\n", "\n" + " " * n)


def fmt_value(v):
    """Format any value: numeric arrays and numbers with fixed precision, others by a short repr."""
    if isinstance(v, np.ndarray) and v.dtype.kind in "iufb":
        return fmt_array(v)
    if isinstance(v, (int, float, np.integer, np.floating, np.bool_, bool)):
        return _fmt_scalar(v)
    if isinstance(v, (list, tuple)) and is_numeric_array_like(v):
        return fmt_array(np.asarray(v))
    return _short_repr(v)


#: How a boolean mask is shown as 0/1.
BOOL_NOTE = "(1 = True = may attend, 0 = False = blocked)"


def fmt_mask(value):
    """A mask shown as 0/1 with the note saying what 1 means; other values as usual."""
    try:
        arr = np.asarray(value)
    except Exception:
        return fmt_value(value)
    if arr.dtype.kind == "b":
        return f"{fmt_array(arr.astype(int))}  {BOOL_NOTE}" if arr.ndim else fmt_value(bool(arr))
    return fmt_value(value)


def describe(v):
    """A few words saying what v is, e.g. 'a single array of shape (2,)' or 'None'."""
    if v is None:
        return "None"
    if isinstance(v, np.ndarray):
        return f"a single array of shape {v.shape}"
    if isinstance(v, (bool, np.bool_)):
        return f"the bool {v!r}"
    if isinstance(v, (int, float, np.integer, np.floating)):
        return f"a single number ({_fmt_scalar(v)})"
    if isinstance(v, (tuple, list)):
        return f"a {type(v).__name__} of {plural(len(v), 'item')}"
    return f"a value of type {type(v).__name__}"


def field(label, text):
    """One aligned report line: ``  expected: [..]``, later lines of text aligned under its start."""
    label = label + ":"
    head = "  " + (label.ljust(_LABEL_WIDTH) if len(label) < _LABEL_WIDTH else label + " ")
    return head + indent_after_first(str(text), len(head))


def fmt_named(names, values, fmt=fmt_value):
    """Format several named values, one per line: ``output = [..]`` / ``weights = [..]`` (each by ``fmt``)."""
    lines = []
    for name, value in zip(names, values):
        prefix = f"{name} = "
        lines.append(prefix + indent_after_first(fmt(value), len(prefix)))
    return "\n".join(lines)


def shape_difference(got, expected):
    """How shape ``got`` differs from ``expected``, axis by axis: "axis 1 has size 3, not 4", "axes 0 and 1 have
    size 0, not 1" or "3 axes instead of 4" (true by construction, so it can be said of any wrong shape)."""
    got, expected = tuple(got), tuple(expected)
    if len(got) != len(expected):
        axes = "no axis (a single number)" if not got else "1 axis" if len(got) == 1 else f"{len(got)} axes"
        return f"{axes} instead of {len(expected) or 'none (a single number)'}"
    wrong = [i for i, (g, e) in enumerate(zip(got, expected)) if g != e]
    if len({(got[i], expected[i]) for i in wrong}) == 1:
        which = f"axis {wrong[0]} has" if len(wrong) == 1 else f"axes {', '.join(map(str, wrong[:-1]))} and {wrong[-1]} have"
        return f"{which} size {got[wrong[0]]}, not {expected[wrong[0]]}"
    text = "; ".join(f"axis {i} has size {got[i]}, not {expected[i]}" for i in wrong)
    return text + (" (the expected sizes, in another order)" if sorted(got) == sorted(expected) else "")


def plural(n, word):
    return f"{n} {word}{'' if n == 1 else 's'}"


def number_word(n):
    words = {1: "one thing", 2: "two things", 3: "three things", 4: "four things"}
    return words.get(n, f"{n} things")
