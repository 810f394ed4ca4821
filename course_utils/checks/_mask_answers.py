"""Boolean masks as answers: the ``Comparison`` that ``run_check`` uses for causal_mask and
padding_mask (notebook 03).

Masks follow PyTorch's ``scaled_dot_product_attention``: boolean, True = the query may attend to
the key. A learner's mask is read as True/False also when it is written another way: 0/1 numbers
(int or float), or an additive float mask of 0 and -inf (0 = keep). The pattern is what is
compared (with the reference and with each known mistake); a right pattern in another dtype is
still a failure ("dtype"), reported only when no case has a wrong pattern, and a remark about
the dtype is added to any hint.
"""
import numpy as np

from course_utils.checks._catalogue import own_texts
from course_utils.checks._compare import Comparison, Problem
from course_utils.checks._format import describe, field, fmt_mask, shape_difference

__all__ = ["MaskComparison", "read_mask"]

#: The remarks on a mask of another dtype (hints.toml).
_TEXTS = own_texts("boolean masks")


def read_mask(value, additive_style=False):
    """(bool array or None, kind, sentence) for what a mask function returned.

    kind: "bool" (a boolean array), "01" (numbers that are all 0 or 1), "additive" (floats that
    are all 0 or -inf: an additive mask, 0 = keep), or "bad" (None, not an array, other numbers).
    A float array of zeros only is ambiguous; it is read as additive when ``additive_style`` (the
    function returned -inf entries on some case), else as 0/1.
    """
    if value is None:
        return None, "bad", "returned None."
    try:
        arr = np.asarray(value)
    except Exception:
        return None, "bad", f"returned {describe(value)}, not an array of True/False values."
    kind = arr.dtype.kind
    if kind == "b":
        return arr, "bool", ""
    if kind not in "iuf":
        return None, "bad", f"returned {describe(value)}, not an array of True/False values."
    additive = kind == "f" and bool((np.isneginf(arr) | (arr == 0)).all())
    if additive and (additive_style or np.isneginf(arr).any()):
        return arr == 0, "additive", ""
    if np.isin(arr, (0, 1)).all():
        return arr != 0, "01", ""
    return None, "bad", (
        f"returned an array of dtype {arr.dtype} holding numbers other than 0 and 1, not a mask of "
        "True/False values."
    )


class MaskComparison(Comparison):
    """Compare True/False patterns (see the module docstring); ``bool_example`` is how to build the mask
    as bool, in backticks, for the dtype remark."""

    deferred_kinds = ("dtype",)

    def __init__(self, bool_example, additive_style=False):
        super().__init__()
        self.bool_example = bool_example
        self.additive_style = additive_style

    def for_run(self, values):
        """The comparison for this learner: additive style when one answer is a 0/-inf float mask."""
        return MaskComparison(self.bool_example, any(read_mask(v)[1] == "additive" for v in values))

    def read(self, value):
        return read_mask(value, self.additive_style)

    def problem(self, got, expected, *, name, output_names=None):
        mask, kind, sentence = self.read(got)
        if mask is None:
            return Problem("none" if got is None else "type", f"{name} {sentence}")
        expected = np.asarray(expected)
        if mask.shape != expected.shape:
            return Problem("shape", f"The shape of the mask is {mask.shape}; expected {expected.shape}: "
                                    f"{shape_difference(mask.shape, expected.shape)}.")
        if not np.array_equal(mask, expected):
            wrong = int((mask != expected).sum())
            return Problem("values", f"{wrong} of {mask.size} entries differ from the expected mask.")
        if kind != "bool":
            return Problem("dtype", f"The True/False pattern is right, but the dtype is {np.asarray(got).dtype}, not bool.")
        return None

    def same(self, got, reproduced):
        mask = self.read(got)[0]
        try:
            other = np.asarray(reproduced)
        except Exception:
            return False
        return mask is not None and other.dtype.kind == "b" and mask.shape == other.shape and np.array_equal(mask, other)

    def details(self, got, expected, output_names=None):
        return [field("expected", fmt_mask(expected)), field("got", fmt_mask(got))]

    def hint(self, kind, got, expected, args):
        return self._dtype_remark(got) if kind == "dtype" else None

    def extra_hint(self, kind, got):
        if kind == "dtype":  # the hint is the remark itself
            return ""
        mask, how, _ = self.read(got)
        if mask is None or how == "bool":
            return ""
        return " Also, " + self._dtype_remark(got, also=True)

    def _dtype_remark(self, value, also=False):
        kind = self.read(value)[1]
        dtype = np.asarray(value).dtype
        if kind == "additive":
            text = _TEXTS["additive"].format(example=self.bool_example)
            return text if also else text[:1].upper() + text[1:]
        opening = _TEXTS["0/1 opening, after another hint" if also else "0/1 opening"]
        return _TEXTS["0/1"].format(opening=opening, dtype=dtype, example=self.bool_example)
