"""Checkers for notebook 01 (one attention row): softmax, attention_row, the prediction exercise."""
import numpy as np

import course_utils as cu
from course_utils.checks._catalogue import catalogued
from course_utils.checks._compare import Comparison, Problem
from course_utils.checks._format import describe, field, fmt_value, is_numeric_array_like
from course_utils.checks._framework import (
    Case,
    KnownMistake,
    checker,
    correct,
    error_message_contains,
    run_check,
)
from course_utils.checks._learner_code import BROADCAST_ERROR, MATMUL_ERROR, shifted_softmax, swapped_outputs
from course_utils.lessons.data import ARTICLE_SCORES, ARTICLE_VALUES

__all__ = ["SOFTMAX_MISTAKES", "ATTENTION_ROW_MISTAKES", "SCORES_FOR_THIRD_VALUE_MISTAKES"]


# ---------------------------------------------------------------- helpers for the buggy versions
def _exp(x):
    return np.exp(np.asarray(x, dtype=float))


def _row_normalised(e):
    return e / e.sum(axis=-1, keepdims=True)


# ================================================================ softmax
_SOFTMAX_CASES = (
    Case("one score", (np.array([0.0]),)),
    Case("two equal scores", (np.array([1.0, 1.0]),)),
    Case("the article's scores", (ARTICLE_SCORES.copy(),)),
    Case("negative scores", (np.array([-3.0, -1.0, -2.0]),)),
    Case("large scores", (np.array([1000.0, 999.0, 998.0]),)),
    Case("very negative scores", (np.array([-1000.0, -1001.0]),)),
    Case("scores far apart", (np.array([0.0, -1000.0]),)),
    Case("2-D input: one row of scores per query", (np.array([[2.0, 1.0, 0.0], [0.0, 1.0, 3.0]]),)),
    Case("2-D input: rows on very different scales", (np.array([[1000.0, 999.0, 998.0], [0.0, -1.0, -2.0]]),)),
)


def _softmax_wrong_axis_variants(whole):
    """exp(x - shift) normalised over the whole array (``whole``) or over axis 0, for every usual max shift.

    (Without a shift, the code fails on the 1-D large scores before reaching a 2-D case.)
    """
    shifts = (
        lambda x: np.max(x),
        lambda x: np.max(x, axis=-1, keepdims=True),
        lambda x: np.max(x, axis=0, keepdims=True),
    )
    if whole:
        return tuple(lambda x, s=s: _exp(x - s(x)) / _exp(x - s(x)).sum() for s in shifts)
    return tuple(lambda x, s=s: _exp(x - s(x)) / _exp(x - s(x)).sum(axis=0, keepdims=True) for s in shifts)


#: One hint for the scores divided by their sum in place of a softmax, wherever a checker names it.
_NO_EXP_HINT = ("Apply exp before normalising: softmax divides `np.exp(x - x.max(axis=-1, keepdims=True))` by "
                "its sum. Dividing the raw scores by their sum breaks on zero or negative scores (0 / 0 is nan, "
                "and weights can come out negative).")

SOFTMAX_MISTAKES = (
    # Tried in this order; the first whose buggy output equals the learner's gives the hint.
    # The axis mistakes only differ from softmax on 2-D input, so they go first: there, the
    # normalisation is the mistake that shows, whatever else the code does.
    catalogued("softmax over the whole array", reproduce=_softmax_wrong_axis_variants(whole=True)),
    catalogued("softmax over the wrong axis", reproduce=_softmax_wrong_axis_variants(whole=False)),
    catalogued("no max shift", reproduce=(
        lambda x: _row_normalised(_exp(x)),
        # without the shift, a 1-D habit also sums the whole array: the per-row hint covers both
        lambda x: _exp(x) / _exp(x).sum(),
    )),
    KnownMistake(
        "min shift",
        "Subtract the max, not the min: `x - x.min()` makes the largest score bigger (here it "
        "becomes 1000), so exp overflows to inf. After `x - x.max()` every score is at most 0 and "
        "exp stays between 0 and 1.",
        reproduce=lambda x: _row_normalised(_exp(x - np.min(x, axis=-1, keepdims=True))),
    ),
    KnownMistake(
        "exp only",
        "You return the exponentials themselves. Divide them by their sum so that the weights add "
        "up to 1: `e / e.sum(axis=-1, keepdims=True)`.",
        reproduce=_exp,
    ),
    KnownMistake(
        "divide by max",
        "Your largest weight is exactly 1: that is what `np.exp(x - x.max())` gives on its own, and "
        "what dividing the exponentials by their max gives. Divide by their sum instead, so that "
        "the weights add up to 1.",
        reproduce=(
            lambda x: _exp(x - np.max(x, axis=-1, keepdims=True)),
            lambda x: _exp(x - np.max(x)),
            lambda x: _exp(x) / np.max(_exp(x), axis=-1, keepdims=True),
            lambda x: _exp(x) / np.max(_exp(x)),
        ),
    ),
    KnownMistake(
        "no exp",
        _NO_EXP_HINT,
        reproduce=(
            lambda x: x / x.sum(axis=-1, keepdims=True),
            lambda x: x / x.sum(),
            lambda x: x / x.sum(axis=0, keepdims=True),  # Python's sum(x): over the rows of a 2-D x
            lambda x: _row_normalised(x - np.min(x, axis=-1, keepdims=True)),
            lambda x: _row_normalised(x - np.max(x, axis=-1, keepdims=True)),
            lambda x: (x - np.max(x)) / (x - np.max(x)).sum(),
        ),
    ),
    KnownMistake(
        "missing keepdims",
        "For a (2, 3) input, `x.max(axis=-1)` and `e.sum(axis=-1)` have shape (2,): they do "
        "not line up with (2, 3). Add `keepdims=True` so they have shape (2, 1) and apply to each row.",
        error=BROADCAST_ERROR,
    ),
    KnownMistake(
        "axis 1 on 1-D input",
        "A 1-D array has only axis 0, so `axis=1` fails on it. Use `axis=-1`, the last axis: it is "
        "the axis of the scores for 1-D input and the rows' axis for 2-D input.",
        error=error_message_contains("out of bounds for array of dimension", error_type=IndexError),
    ),
    KnownMistake(
        "global max shift",
        "Subtract each row's own max: `x.max(axis=-1, keepdims=True)`. With the max of the whole "
        "array, a row whose scores are all far below it gets exp(...) = 0 everywhere, and 0 / 0 is nan.",
        reproduce=lambda x: _row_normalised(_exp(x - np.max(x))),
    ),
)

_SOFTMAX_HINTS = {
    "values": (
        "Check the three steps on this input: subtract the largest score, exponentiate, divide by "
        "the sum. For a 2-D input, do all three along the last axis (each row on its own)."
    ),
    "shape": (
        "The weights must have the same shape as x. Print the `.shape` of each intermediate array: "
        "a max or sum without `axis=-1, keepdims=True` changes it."
    ),
}


@checker("softmax", mistakes=SOFTMAX_MISTAKES)
def check_softmax(softmax):
    """Check a learner's ``softmax(x)``: scores (n,) or (m, n) -> weights of the same shape, each row
    summing to one (1-D cases first, then 2-D: softmax along the last axis)."""
    return run_check(
        softmax,
        reference=cu.softmax,
        cases=_SOFTMAX_CASES,
        arg_names=("x",),
        hints=_SOFTMAX_HINTS,
    )


# ================================================================ attention_row
_ATTENTION_ROW_CASES = (
    Case("one key", (np.array([0.5]), np.array([[2.0, -1.0]]))),
    Case("the article's example", (ARTICLE_SCORES.copy(), ARTICLE_VALUES.copy())),
    Case(
        "value vectors of width 3",
        (np.array([1.0, -1.0, 0.5]), np.array([[1.0, 0.0, 2.0], [0.0, 3.0, -1.0], [2.0, 1.0, 1.0]])),
    ),
    Case("large scores", (np.array([1000.0, 998.0, 999.0]), np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))),
)


def _with_softmax(make_output):
    """A buggy attention_row returning (make_output(weights, scores, values), softmax weights)."""
    return lambda s, v: (make_output(shifted_softmax(s), s, v), shifted_softmax(s))


ATTENTION_ROW_MISTAKES = (
    swapped_outputs(_with_softmax(lambda w, s, v: w @ v)),
    KnownMistake(
        "mixes positions",
        "The output mixes the value vectors, not token positions or IDs: multiply the weights by "
        "`values` (`weights @ values`), which gives one vector of length d_v.",
        reproduce=(
            _with_softmax(lambda w, s, v: w @ np.arange(len(s))),
            _with_softmax(lambda w, s, v: w @ np.arange(1, len(s) + 1)),
        ),
    ),
    catalogued("no softmax", reproduce=(lambda s, v: (s @ v, s), _with_softmax(lambda w, s, v: s @ v))),
    KnownMistake(  # a learner's trial: scores / scores.sum() as the weights got the generic hint
        "no exp", _NO_EXP_HINT,
        reproduce=tuple(lambda s, v, norm=norm: (norm(s) @ v, norm(s)) for norm in (
            lambda s: s / s.sum(axis=-1, keepdims=True), lambda s: s / np.sum(s))),
    ),
    KnownMistake(
        "unweighted sum",
        "Each value vector must be multiplied by its weight before adding them up: `weights @ values`. "
        "A plain sum or mean of the values ignores the scores.",
        reproduce=(
            _with_softmax(lambda w, s, v: v.sum(axis=0)),
            _with_softmax(lambda w, s, v: v.mean(axis=0)),
        ),
    ),
    KnownMistake(
        "shape slip",
        "Mind the order of the factors: weights has shape (T,) and values (T, d_v), so "
        "`weights @ values` gives shape (d_v,). `values @ weights` or `weights @ values.T` pairs "
        "the wrong axes.",
        reproduce=(
            _with_softmax(lambda w, s, v: v @ w),
            _with_softmax(lambda w, s, v: w @ v.T),
        ),
        error=MATMUL_ERROR,
    ),
    KnownMistake(
        "broadcast slip",
        "`weights * values` lines up weights (T,) with the last axis of values (d_v), not with its "
        "rows. Use `(weights[:, None] * values).sum(axis=0)`, or simply `weights @ values`.",
        reproduce=(_with_softmax(lambda w, s, v: (w * v).sum(axis=0)),
                   _with_softmax(lambda w, s, v: (w * v).sum(axis=1))),
        error=BROADCAST_ERROR,
    ),
    KnownMistake(
        "not normalised",
        "The weights must add up to 1: divide the exponentials by their sum (that is softmax) "
        "before mixing the values.",
        reproduce=(
            lambda s, v: (_exp(s) @ v, _exp(s)),
            lambda s, v: (_exp(s) @ v, shifted_softmax(s)),
            # shifted by the max, but still not divided by the sum
            lambda s, v: (_exp(s - np.max(s)) @ v, _exp(s - np.max(s))),
        ),
    ),
    catalogued("no max shift", reproduce=(
        lambda s, v: (_exp(s) / _exp(s).sum() @ v, _exp(s) / _exp(s).sum()),
        lambda s, v: (_exp(s) / _exp(s).sum() @ v, shifted_softmax(s)),
    )),
)

_ATTENTION_ROW_HINTS = {
    "structure": (
        "attention_row must return two things: end it with `return output, weights` "
        "(the output first, then the weights)."
    ),
    "values": (
        "Two steps: `weights = softmax(scores)`, then `output = weights @ values`. Check each on "
        "this input."
    ),
    "shape": (
        "output should have shape (d_v,) and weights shape (T,): print the `.shape` of each "
        "intermediate array."
    ),
}


@checker("attention_row", mistakes=ATTENTION_ROW_MISTAKES)
def check_attention_row(attention_row):
    """Check a learner's ``attention_row(scores, values) -> (output, weights)``: scores (T,), values
    (T, d_v) -> output (d_v,), weights (T,), with ``weights = softmax(scores)``, ``output = weights @ values``."""
    return run_check(
        attention_row,
        reference=cu.attention_row,
        cases=_ATTENTION_ROW_CASES,
        arg_names=("scores", "values"),
        output_names=("output", "weights"),
        hints=_ATTENTION_ROW_HINTS,
    )


# ================================================================ predict: scores for the third value
TARGET_WEIGHT = 0.9


def _third_weight(scores):
    return float(cu.softmax(np.asarray(scores, dtype=float))[2])


class _ThirdWeightRule(Comparison):
    """Judges the prediction exercise by its rule: three finite scores whose softmax gives the
    third key at least ``TARGET_WEIGHT`` (there is no single right answer to compare with)."""

    def problem(self, got, expected, *, name, output_names=None):
        problem = _scores_problem(got, name)
        if problem is not None:
            return Problem(problem[0], problem[1])
        third = _third_weight(got)
        if third >= TARGET_WEIGHT - 1e-9:
            return None
        return Problem("values", f"the third key gets {third:.4f} of the weight; at least {TARGET_WEIGHT} is needed.")

    def details(self, got, expected, output_names=None):
        if _scores_problem(got) is not None:
            return [field("got", fmt_value(got))]
        scores = np.asarray(got, dtype=float)
        return [field("scores", fmt_value(scores)), field("weights", fmt_value(cu.softmax(scores)))]

    def hint(self, kind, got, expected, args):
        return _SCORES_HINTS.get(kind)

    def correct_text(self, total, values):
        third = _third_weight(values[0])
        result = correct(1, f"The third key gets {third:.4f} of the weight ({third:.1%}).")
        result.message = "\n".join([result.message, *self.details(values[0], None)])
        return result


def _scores_problem(got, name=None):
    """(kind, sentence about the exercise ``name``) if got is not three finite numbers, else None."""
    if got is None:
        return "none", f"{name} returned None."
    if not is_numeric_array_like(got):
        return "type", f"{name} should return three numbers, but it returned {describe(got)}."
    shape = np.shape(got)
    if shape != (3,):
        return "shape", f"{name} should return three scores, one per key, but it returned shape {shape}."
    if not np.all(np.isfinite(np.asarray(got, dtype=float))):
        return "nonfinite", "the scores must be ordinary finite numbers (no nan or inf)."
    return None


_SCORES_HINTS = {
    "none": "End the function with `return [s1, s2, s3]`, your three scores.",
    "type": "Return a list of three numbers, for example `return [s1, s2, s3]`.",
    "shape": "The article's example has three keys: return exactly three numbers, `[s1, s2, s3]`.",
    "nonfinite": "A finite gap of a few units between the scores is enough.",
    "exception": (
        "Read the last line of the error. The function takes no arguments and ends with "
        "`return [s1, s2, s3]`."
    ),
}


def _scores(got):
    """Three finite scores as floats; raises for anything else (so no rule matches it)."""
    if _scores_problem(got) is not None:
        raise ValueError("not three finite scores")
    return np.asarray(got, dtype=float)


def _look_like_weights(got):
    scores = _scores(got)
    return bool(np.all((scores >= 0) & (scores <= 1)) and np.isclose(scores.sum(), 1.0))


SCORES_FOR_THIRD_VALUE_MISTAKES = (
    # Recognised from the scores themselves (``matches``); each describes what the learner returned.
    # Tried in order: three numbers that look like weights are read as weights first.
    KnownMistake(
        "returned weights",
        "Your three numbers are between 0 and 1 and add up to 1: they look like weights, not scores. "
        "The exercise asks for the scores, which softmax then turns into weights; the softmax of numbers "
        "between 0 and 1 cannot give any key 0.9. Return the scores themselves, e.g. two equal scores "
        "and a third one about 3 larger.",
        matches=lambda got, args: _look_like_weights(got),
    ),
    KnownMistake(
        "equal scores",
        "Equal scores give equal weights, 1/3 each. Make the third score the largest.",
        matches=lambda got, args: bool(np.all(_scores(got) == _scores(got)[0])),
    ),
    KnownMistake(
        "third not largest",
        lambda got, args: (
            f"The largest score is not the third one, so the third key gets only {_third_weight(got):.4f}. "
            "Softmax gives the most weight to the largest score: make the third score the largest."
        ),
        matches=lambda got, args: bool(_scores(got)[2] < _scores(got)[:2].max()),
    ),
    KnownMistake(
        "tie for largest",
        "The third score ties with another one for the largest, so they share the weight. "
        "Make the third score larger than both others.",
        matches=lambda got, args: bool(_scores(got)[2] == _scores(got)[:2].max()),
    ),
    KnownMistake(
        "gap too small",
        lambda got, args: (
            f"The third score is the largest, but its weight is only {_third_weight(got):.4f}. The gap between "
            "the scores matters, not their size (adding the same number to all three changes nothing): if "
            "the other two are equal, the third must beat them by about ln(18) ≈ 2.9 to get 0.9 of "
            "the weight."
        ),
        matches=lambda got, args: bool(_scores(got)[2] > _scores(got)[:2].max()),
    ),
)


@checker("scores_for_third_value", mistakes=SCORES_FOR_THIRD_VALUE_MISTAKES)
def check_scores_for_third_value(choose_scores):
    """Check the prediction exercise: a function of no arguments returning three scores (list or array)
    whose softmax gives the third key at least 0.9 of the weight; every message shows the weights."""
    return run_check(
        choose_scores, reference=lambda: None, cases=(Case("your three scores", ()),), arg_names=(),
        hints=_SCORES_HINTS, compare=_ThirdWeightRule(),
    )
