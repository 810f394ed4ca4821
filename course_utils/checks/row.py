"""Checkers for notebook 01 (one attention row): softmax, attention_row, the prediction exercise."""
import numpy as np

import course_utils as cu
from course_utils.checks._catalogue import catalogued, own, own_hints
from course_utils.checks._compare import Comparison, Problem
from course_utils.checks._format import describe, field, fmt_value, is_numeric_array_like
from course_utils.checks._framework import (
    Case,
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
    own("softmax", "min shift", reproduce=lambda x: _row_normalised(_exp(x - np.min(x, axis=-1, keepdims=True)))),
    own("softmax", "exp only", reproduce=_exp),
    own(
        "softmax", "divide by max",
        reproduce=(
            lambda x: _exp(x - np.max(x, axis=-1, keepdims=True)),
            lambda x: _exp(x - np.max(x)),
            lambda x: _exp(x) / np.max(_exp(x), axis=-1, keepdims=True),
            lambda x: _exp(x) / np.max(_exp(x)),
        ),
    ),
    own(
        "softmax", "no exp",
        reproduce=(
            lambda x: x / x.sum(axis=-1, keepdims=True),
            lambda x: x / x.sum(),
            lambda x: x / x.sum(axis=0, keepdims=True),  # Python's sum(x): over the rows of a 2-D x
            lambda x: _row_normalised(x - np.min(x, axis=-1, keepdims=True)),
            lambda x: _row_normalised(x - np.max(x, axis=-1, keepdims=True)),
            lambda x: (x - np.max(x)) / (x - np.max(x)).sum(),
        ),
    ),
    own("softmax", "missing keepdims", error=BROADCAST_ERROR),
    own(
        "softmax", "axis 1 on 1-D input",
        error=error_message_contains("out of bounds for array of dimension", error_type=IndexError),
    ),
    own("softmax", "global max shift", reproduce=lambda x: _row_normalised(_exp(x - np.max(x)))),
)

@checker("softmax", mistakes=SOFTMAX_MISTAKES)
def check_softmax(softmax):
    """Check a learner's ``softmax(x)``: scores (n,) or (m, n) -> weights of the same shape, each row
    summing to one (1-D cases first, then 2-D: softmax along the last axis)."""
    return run_check(
        softmax,
        reference=cu.softmax,
        cases=_SOFTMAX_CASES,
        arg_names=("x",),
        hints=own_hints("softmax"),
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
    own(
        "attention_row", "mixes positions",
        reproduce=(
            _with_softmax(lambda w, s, v: w @ np.arange(len(s))),
            _with_softmax(lambda w, s, v: w @ np.arange(1, len(s) + 1)),
        ),
    ),
    catalogued("no softmax", reproduce=(lambda s, v: (s @ v, s), _with_softmax(lambda w, s, v: s @ v))),
    own(  # a learner's trial: scores / scores.sum() as the weights got the generic hint
        "softmax", "no exp", reproduce=tuple(lambda s, v, norm=norm: (norm(s) @ v, norm(s)) for norm in (
            lambda s: s / s.sum(axis=-1, keepdims=True), lambda s: s / np.sum(s))),
    ),
    own(
        "attention_row", "unweighted sum",
        reproduce=(
            _with_softmax(lambda w, s, v: v.sum(axis=0)),
            _with_softmax(lambda w, s, v: v.mean(axis=0)),
        ),
    ),
    own(
        "attention_row", "shape slip",
        reproduce=(
            _with_softmax(lambda w, s, v: v @ w),
            _with_softmax(lambda w, s, v: w @ v.T),
        ),
        error=MATMUL_ERROR,
    ),
    own(
        "attention_row", "broadcast slip",
        reproduce=(_with_softmax(lambda w, s, v: (w * v).sum(axis=0)),
                   _with_softmax(lambda w, s, v: (w * v).sum(axis=1))),
        error=BROADCAST_ERROR,
    ),
    own(
        "attention_row", "not normalised",
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
        hints=own_hints("attention_row"),
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


_SCORES_HINTS = own_hints("scores_for_third_value")


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
    own("scores_for_third_value", "returned weights", matches=lambda got, args: _look_like_weights(got)),
    own(
        "scores_for_third_value", "equal scores",
        matches=lambda got, args: bool(np.all(_scores(got) == _scores(got)[0])),
    ),
    own(
        "scores_for_third_value", "third not largest", fill=lambda got, args: {"weight": _third_weight(got)},
        matches=lambda got, args: bool(_scores(got)[2] < _scores(got)[:2].max()),
    ),
    own(
        "scores_for_third_value", "tie for largest",
        matches=lambda got, args: bool(_scores(got)[2] == _scores(got)[:2].max()),
    ),
    own(
        "scores_for_third_value", "gap too small", fill=lambda got, args: {"weight": _third_weight(got)},
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
