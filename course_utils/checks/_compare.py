"""Compare a learner's output with the expected one and name the first problem found."""
from dataclasses import dataclass

import numpy as np

from course_utils.checks._format import (
    describe,
    field,
    fmt_mask,
    fmt_named,
    fmt_value,
    number_word,
    plural,
    shape_difference,
)

RTOL = 1e-5
ATOL = 1e-8


@dataclass(frozen=True)
class Problem:
    """What is wrong with an output.

    kind : one of "none", "structure", "type", "shape", "nonfinite", "values" (and, set by the
        runner, "exception", "not implemented", "inplace"); selects the generic hint.
    text : one sentence for the learner.
    """

    kind: str
    text: str


def _array_problem(got, expected, item, name):
    """Problem of one returned array (``item`` says which, e.g. "weights" or "result")."""
    what = f"its {item}"
    as_item = "" if item == "result" else f"As {item}, "
    expected = np.asarray(expected)
    if got is None:
        return Problem("none", f"{name} returned None as {item}.")
    if isinstance(got, (tuple, list)) and _holds_arrays(got):
        return Problem(
            "type",
            f"{as_item}{name} returned {describe(got)}; expected one array of shape {expected.shape}.",
        )
    try:
        arr = np.asarray(got)
    except Exception:  # ragged lists, objects that refuse conversion
        arr = None
    if arr is None or arr.dtype.kind not in "iuf":
        detail = describe(got)
        if arr is not None and arr.dtype.kind == "b":
            detail = "an array of True/False values"
        elif arr is not None and arr.dtype.kind == "c":
            detail = "an array of complex numbers"
        return Problem("type", f"{as_item}{name} returned {detail}, not an array of real numbers.")
    if arr.shape != expected.shape:
        return Problem("shape", f"The shape of {what} is {arr.shape}; expected {expected.shape}: "
                                f"{shape_difference(arr.shape, expected.shape)}.")
    bad = ~np.isfinite(arr) & np.isfinite(expected)
    if np.any(bad):
        nonfinite = arr[bad]
        kinds = [kind for kind, found in (("inf", np.isinf(nonfinite).any()), ("nan", np.isnan(nonfinite).any())) if found]
        note = " (nan means 'not a number')" if "nan" in kinds else ""  # explained only where there is one
        return Problem("nonfinite", f"Its {item} contains {' and '.join(kinds)} at {bad.sum()} of {arr.size} "
                                    f"position(s){note}.")
    if not np.allclose(arr, expected, rtol=RTOL, atol=ATOL, equal_nan=True):
        with np.errstate(all="ignore"):
            diff = np.abs(arr.astype(float) - expected.astype(float))
        diff = np.where(np.isnan(diff), np.inf, diff)
        if diff.ndim == 0:
            where_text, biggest = "", float(diff)
        else:
            where = np.unravel_index(int(np.argmax(diff)), diff.shape)
            biggest = float(diff[where])
            where_text = f" at index {where[0] if len(where) == 1 else tuple(int(i) for i in where)}"
        return Problem(
            "values",
            f"The values of {what} are off: largest difference {fmt_value(biggest)}{where_text}.",
        )
    return None


def outputs_match(got, reproduced):
    """True if ``got`` equals ``reproduced`` (same structure, same shapes, close values; nan == nan).

    ``reproduced`` is the output of a known mistake; a tuple there requires a tuple or list of
    the same length in ``got``.
    """
    if isinstance(reproduced, tuple):
        return (
            isinstance(got, (tuple, list))
            and len(got) == len(reproduced)
            and all(outputs_match(g, r) for g, r in zip(got, reproduced))
        )
    if got is None or reproduced is None:
        return got is reproduced
    if isinstance(got, (tuple, list)) and _holds_arrays(got):
        return False
    try:
        x, y = np.asarray(got), np.asarray(reproduced)
    except Exception:
        return False
    if x.dtype.kind not in "iuf" or y.dtype.kind not in "iuf" or x.shape != y.shape:
        return False
    with np.errstate(all="ignore"):
        return bool(np.allclose(x, y, rtol=RTOL, atol=ATOL, equal_nan=True))


def _holds_arrays(seq):
    """True for a list/tuple holding arrays (e.g. (output, weights)), not plain numbers."""
    return any(isinstance(v, np.ndarray) and v.ndim > 0 for v in seq)


class Comparison:
    """How ``run_check`` judges and shows one kind of answer (the default: arrays of real numbers).

    A checker whose answers are not arrays of numbers (boolean masks, dicts of labels, a few
    scores judged by a rule) passes its own subclass as ``run_check(..., compare=...)``. The
    runner asks it four things:

    * ``problem(got, expected, name=, output_names=)``: the Problem of one answer, or None;
    * ``same(got, reproduced)``: does a known mistake's output equal the learner's answer?
    * ``details(got, expected, output_names)``: the report lines for a failing case (by default
      ``expected:`` and ``got:``);
    * ``fmt_inputs(arg_names, args)``: the ``input:`` text of a case.

    and, optionally, ``for_run(values)`` (a comparison adapted to every answer of this run, e.g.
    "this learner writes additive masks"), ``hint(kind, got, expected, args)`` (a hint computed
    from the answer itself, overriding the generic one of that kind), ``extra_hint(kind, got)`` (a sentence
    added to any hint) and ``correct_text(total, values)`` (the result of a pass). ``deferred_kinds`` are
    problem kinds reported only when no case has another problem (a right pattern in the wrong dtype).
    """

    deferred_kinds = ()

    def for_run(self, values):
        return self

    def problem(self, got, expected, *, name, output_names=None):
        """First problem of ``got`` (what the learner's function returned) against ``expected``, or None if
        they agree (within ``RTOL`` and ``ATOL``).

        ``expected`` is an ndarray, or a tuple of them when the function must return that many things
        (named by ``output_names``, e.g. ("output", "weights")); ``name`` is the function's name in sentences
        ("softmax returned None").
        """
        if got is None:
            return Problem("none", f"{name} returned None.")
        if isinstance(expected, tuple):
            n = len(expected)
            names = tuple(output_names or (f"item {i}" for i in range(n)))
            if not isinstance(got, (tuple, list)) or len(got) != n:
                returned = plural(len(got), "item") if isinstance(got, (tuple, list)) else describe(got)
                return Problem("structure", f"{name} should return {number_word(n)}, ({', '.join(names)}), "
                                            f"but it returned {returned}.")
            problems = (_array_problem(g, e, item_name, name) for item_name, g, e in zip(names, got, expected))
            return next((problem for problem in problems if problem is not None), None)
        return _array_problem(got, expected, "result", name)

    def same(self, got, reproduced):
        return outputs_match(got, reproduced)

    def fmt_output(self, value, output_names=None):
        if output_names and isinstance(value, (tuple, list)) and len(value) == len(output_names):
            return fmt_named(output_names, value)
        if isinstance(value, (tuple, list)) and any(isinstance(v, np.ndarray) for v in value):
            return "(" + ", ".join(fmt_value(v) for v in value) + ")"
        return fmt_value(value)

    def details(self, got, expected, output_names=None):
        return [field("expected", self.fmt_output(expected, output_names)),
                field("got", self.fmt_output(got, output_names))]

    def fmt_inputs(self, arg_names, args):
        """The inputs, one per line; a boolean array (a mask) reads as 0/1 with a note."""
        return fmt_named(arg_names, args, fmt=lambda v: fmt_mask(v) if isinstance(v, np.ndarray) else fmt_value(v))

    def hint(self, kind, got, expected, args):
        return None

    def extra_hint(self, kind, got):
        return ""

    def correct_text(self, total, values):
        return None
