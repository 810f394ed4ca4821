"""No checker crashes on an answer (issue 24): whatever a learner's function returns, every one of the 21 checkers
answers with a learner-facing message, never with "the checker itself hit an unexpected error" (kept for bugs in
the course).

Hypothesis feeds each checker learner functions returning wrong answers: random values (arrays of every dtype and
of any shape, 0-size ones included, nested lists, tuples of any length, None, strings, dicts, objects, generators,
huge ints, nan/inf, scalars), and realistic answers (tests/learner_answers/) whose output is then broken (the
right shape in another dtype, a 0-size slice, a tuple one item short, nan, an input changed in place, ...),
and errors of every type carrying random values; one answer for every case, or a different one on each case.
The examples are fixed (``derandomize``), so CI runs the same ones every time.
"""
import copy
import decimal
import fractions
import functools
import itertools
import os
import warnings
from dataclasses import dataclass

import numpy as np
import pytest
from hint_registry import EXERCISES, checker_and_mistakes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as npst
from learner_answers import all_answers

from course_utils.checks import CheckResult
from course_utils.checks._framework import internal_error, unreadable_answer

INTERNAL = "the checker itself hit an unexpected error"
UNREADABLE = "an object whose own code"
# the texts this test looks for
assert INTERNAL in internal_error("softmax", ValueError("x")).message
assert UNREADABLE in unreadable_answer("softmax", None).message

ANSWERS = {exercise: [a.fn for a in all_answers() if a.exercise == exercise] for exercise in EXERCISES}
# per checker (CI: about 0.5 s each); NO_CRASH_EXAMPLES=500 explores further (derandomized all the same)
EXAMPLES = int(os.environ.get("NO_CRASH_EXAMPLES", "30"))


class Plain:
    """A learner's own object with no numeric meaning."""


class Fresh:
    """Built anew at each call (a generator, an iterator: each can be read once only)."""

    def __init__(self, make, label):
        self.make, self.label = make, label

    def __repr__(self):
        return self.label


# ------------------------------------------------------------------ random values
DTYPES = [np.float64, np.float32, np.float16, np.longdouble, np.int64, np.int8, np.uint8, np.uint64, np.bool_,
          np.complex128, np.complex64, np.dtype("U3"), np.dtype("S2"), np.dtype("M8[s]"), np.dtype("m8[s]"), object]
SHAPES = npst.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=3)
NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(min_value=-10**40, max_value=10**40),
    st.complex_numbers(allow_nan=True), st.booleans(),
)
with warnings.catch_warnings():  # numpy discourages np.matrix; a learner may still return one
    warnings.simplefilter("ignore", PendingDeprecationWarning)
    MATRIX = np.matrix([[1.0, 2.0]])
OBJECTS = st.sampled_from([
    Plain(), object(), print, np.float64, Ellipsis, slice(1), {1, 2}, frozenset(), range(3), b"01", bytearray(2),
    decimal.Decimal("1.5"), fractions.Fraction(1, 3), NotImplemented, np.zeros((300, 400)),
    np.ma.masked_array([1.0, 2.0], mask=[True, False]), MATRIX, np.array([np.array([1.0]), None], dtype=object),
    Fresh(lambda: (i for i in range(3)), "a generator"), Fresh(lambda: iter([1.0, 2.0]), "an iterator"),
    Fresh(lambda: map(float, [1, 2]), "a map object"), np.array([[1.0, 2.0], [3.0]], dtype=object),
    np.zeros(3, dtype=[("a", float), ("b", int)]), np.rec.array([(1.0, 2)], dtype=[("a", float), ("b", int)]),
    np.longdouble("1e4000"),  # finite where the platform's long double reaches it, else inf
])


def _array(dtype):
    elements = st.one_of(st.none(), NUMBERS, st.text(max_size=2)) if dtype is object else None
    return npst.arrays(dtype, SHAPES, elements=elements)


ARRAYS = st.sampled_from(DTYPES).flatmap(_array)
LEAVES = st.one_of(st.none(), NUMBERS, st.text(max_size=4), ARRAYS, OBJECTS)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.one_of(st.text(max_size=3), st.integers()), inner, max_size=3),
    ),
    max_leaves=6,
)


# ------------------------------------------------------------------ a realistic answer, broken
def _each(fn):
    """Apply ``fn`` to every item of a tuple answer (output, weights), or to the answer itself."""
    return lambda out: tuple(fn(o) for o in out) if isinstance(out, tuple) else fn(out)


def _arr(out):
    return np.asarray(out)


BREAKS = {
    "complex": _each(lambda o: _arr(o).astype(complex)),
    "bool": _each(lambda o: _arr(o).astype(bool)),
    "object": _each(lambda o: _arr(o).astype(object)),
    "str": _each(lambda o: _arr(o).astype(str)),
    "float16": _each(lambda o: _arr(o).astype(np.float16)),
    "int8": _each(lambda o: _arr(o).astype(np.int8)),
    "list": _each(lambda o: _arr(o).tolist()),
    "transposed": _each(lambda o: _arr(o).T),
    "flattened": _each(lambda o: _arr(o).ravel()),
    "extra axis": _each(lambda o: _arr(o)[None]),
    "0-size": _each(lambda o: _arr(o)[..., :0] if _arr(o).ndim else _arr(o).reshape(1)[:0]),
    "one short": _each(lambda o: _arr(o)[..., :-1] if _arr(o).ndim else _arr(o)),
    "summed": _each(lambda o: _arr(o).sum()),
    "nan": _each(lambda o: np.full(_arr(o).shape, np.nan)),
    "inf": _each(lambda o: np.full(_arr(o).shape, -np.inf)),
    "huge int": _each(lambda o: np.full(_arr(o).shape, 10**30, dtype=object)),
    "int64 max": _each(lambda o: np.full(_arr(o).shape, np.iinfo(np.int64).max)),
    "huge float": _each(lambda o: np.full(_arr(o).shape, -1.7e308)),
    "item short": lambda out: tuple(out)[:-1] if isinstance(out, (tuple, list)) else (out,),
    "item more": lambda out: (*out, None) if isinstance(out, tuple) else (out, out),
    "items swapped": lambda out: tuple(reversed(out)) if isinstance(out, tuple) else [out],
    "None inside": lambda out: (None, *tuple(out)[1:]) if isinstance(out, tuple) else [None, out],
    "dict": lambda out: {"result": out},
    "generator": lambda out: (o for o in (out if isinstance(out, tuple) else [out])),
}


@dataclass(frozen=True)
class Broken:
    """A realistic answer whose output has ``breaks`` applied, in order (none: the answer as written)."""

    answer: object
    breaks: tuple
    filler: object = None  # a random value, for the breaks "one entry" and "every entry"
    edit: str = None  # a change made in place to the first array argument, after the answer (MUTATIONS)

    def __call__(self, *args):
        out = self.answer(*args)
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        if self.edit and arrays:
            MUTATIONS[self.edit](arrays[0])
        for name in self.breaks:
            out = self._fill(out, name) if name in FILLS else BREAKS[name](out)
        return out

    def _fill(self, out, name):
        """One entry (or every entry) of a dict or tuple answer replaced by the filler; another answer: the filler."""
        if isinstance(out, dict):
            keys = list(out)[:1] if name == "one entry" else list(out)
            return {**out, **{k: _fresh(self.filler) for k in keys}}
        if isinstance(out, tuple) and out:
            return (_fresh(self.filler), *out[1:]) if name == "one entry" else tuple(_fresh(self.filler) for _ in out)
        return _fresh(self.filler)


FILLS = ("one entry", "every entry")


def _set(a, attribute, value):
    setattr(a, attribute, value)


MUTATIONS = {
    "nan": lambda a: a.fill(np.nan) if a.dtype.kind == "f" else a.fill(1),
    "flattened": lambda a: _set(a, "shape", (a.size,)),
    "emptied": lambda a: a.resize((0,), refcheck=False),
    "dtype view": lambda a: _set(a, "dtype", np.int64 if a.dtype.itemsize == 8 else np.uint8),
    "read-only": lambda a: a.setflags(write=False),
}


def broken(exercise):
    return st.builds(Broken, st.sampled_from(ANSWERS[exercise]),
                     st.lists(st.sampled_from(sorted(BREAKS) + list(FILLS)), max_size=2).map(tuple), VALUES,
                     st.one_of(st.none(), st.sampled_from(sorted(MUTATIONS))))


@dataclass(frozen=True)
class Raises:
    """A learner's function that raises ``error(*args)`` (any exception but KeyboardInterrupt, which the checks
    let through on purpose so that a learner can stop a function that hangs)."""

    error: type
    args: tuple

    def __call__(self, *_):
        raise self.error(*_fresh(self.args))


ERRORS = [ValueError, TypeError, IndexError, KeyError, ZeroDivisionError, AttributeError, RuntimeError,
          AssertionError, StopIteration, RecursionError, NotImplementedError, np.linalg.LinAlgError, OverflowError,
          FloatingPointError, UnicodeError, SystemExit, GeneratorExit, Exception]
RAISES = st.builds(Raises, st.sampled_from(ERRORS), st.lists(VALUES, max_size=2).map(tuple))


# ------------------------------------------------------------------ the learner
def learner(behaviours):
    """A learner's function whose n-th call behaves as ``behaviours[n % len(behaviours)]``: a value to return,
    a Broken answer's output (whatever it raises is raised) or a Raises."""
    calls = itertools.count()

    def fn(*args):
        behaviour = behaviours[next(calls) % len(behaviours)]
        return behaviour(*args) if isinstance(behaviour, (Broken, Raises)) else _fresh(behaviour)

    return fn


def _fresh(value):
    """The value to return, its generators made anew (and a copy, so one call cannot change the next)."""
    if isinstance(value, Fresh):
        return value.make()
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_fresh(v) for v in value)
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


def behaviours(exercise):
    one = st.one_of(VALUES, broken(exercise), RAISES)
    return st.one_of(one.map(lambda b: [b]), st.lists(one, min_size=2, max_size=3))


def assert_answers(check, fn):
    result = check(fn)
    assert isinstance(result, CheckResult)
    text = result.text
    assert INTERNAL not in text, text
    assert UNREADABLE not in text, text  # no value here has code of its own that could fail
    assert "Traceback" not in text, text
    assert result.message.startswith(("Not yet right", "Correct", "Not attempted yet")), text
    assert result.status != "wrong" or result.hint, text  # a wrong answer always gets a hint
    result._repr_html_()  # the notebook's view of it


@pytest.mark.parametrize("exercise", EXERCISES)
def test_no_checker_crashes_on_a_wrong_answer(exercise):
    check, _ = checker_and_mistakes(exercise)

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(behaviours(exercise))
    def run(chosen):
        assert_answers(check, learner(chosen))

    run()


class CallableObject:
    def __call__(self, *args):
        return np.zeros(3)


#: What a learner may pass instead of their own function: a value, a builtin, numpy's functions, a class, ...
NOT_MINE = [None, 3, "my_softmax", np.zeros(3), [], {}, print, len, max, np.sum, np.zeros, np.tril, np.exp, np.add,
            dict, Plain, CallableObject(), functools.partial(np.full, fill_value=1.0), lambda: 1, lambda *a, **k: a,
            np.vectorize(lambda x: x), iter, type]


@pytest.mark.parametrize("exercise", EXERCISES)
def test_no_checker_crashes_on_what_is_passed_instead_of_a_function(exercise):
    check, _ = checker_and_mistakes(exercise)
    for passed in NOT_MINE:
        assert_answers(check, passed)


def test_every_exercise_has_answers_to_break():
    assert len(EXERCISES) == 21
    assert all(ANSWERS[exercise] for exercise in EXERCISES)
