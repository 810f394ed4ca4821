"""The checker framework: cases, known mistakes and the loop that runs a learner's function.

A checker is a few lines built on ``run_check``::

    @checker("softmax")
    def check_softmax(softmax):
        return run_check(
            softmax, name="softmax", reference=reference_softmax, arg_names=("x",),
            cases=[Case("one score", (np.array([0.0]),)), ...],
            known_mistakes=[KnownMistake("no max shift", "Subtract the max ...", reproduce=...)],
        )

``run_check`` passes copies of each case's inputs to the learner's function, smallest case
first, and stops at the first case that fails. A failure is described by a ``Problem`` (an
error, None, a wrong structure/type/shape, nan/inf, wrong values, or an input changed in
place). Its hint comes from the first known mistake that explains it (a mistake's
``reproduce`` function gives the same output as the learner's, or its ``error`` predicate
recognises the exception), else from a generic hint for the kind of problem.
"""
import copy
import functools
from dataclasses import dataclass

import numpy as np

from course_utils.checks._calls import call_learner, changed_args, error_text, raising_function_name
from course_utils.checks._compare import ATOL, RTOL, Problem, find_problem, outputs_match
from course_utils.checks._format import describe, field, fmt_named, fmt_value
from course_utils.checks._result import CORRECT, NOT_ATTEMPTED, WRONG, CheckResult

#: Generic hint for each kind of problem, used when no known mistake explains the failure.
DEFAULT_HINTS = {
    "exception": (
        "Read the last line of the error: it names the problem. To see it happen, call your "
        "function on the input above in a new cell and print the `.shape` of each intermediate array."
    ),
    "not implemented": (
        "Replace every `raise NotImplementedError()` your code reaches with your own code."
    ),
    "none": (
        "A function without a `return` line gives back None (and `print(...)` shows a value "
        "without returning it). End your function with `return ...`."
    ),
    "structure": "Return the things asked for, in the order asked for, separated by commas.",
    "type": "Return a numpy array of numbers, for example the result of a numpy computation.",
    "shape": (
        "Print the `.shape` of each intermediate array: a sum or max over the wrong axis, or a "
        "missing `keepdims=True`, changes the shape."
    ),
    "nonfinite": (
        "nan comes from 0/0, inf/inf or inf - inf, and inf from a number too large for a float "
        "(`np.exp(710)` is already inf). Print the intermediate arrays to see where it first appears."
    ),
    "values": (
        "Work through this input by hand, or print each intermediate array, and compare with "
        "the expected result above."
    ),
    "inplace": (
        "Build new arrays (`y = x - m`) instead of updating the input (`x -= m` or `x[...] = ...`): "
        "the caller's array must keep its values."
    ),
}


@dataclass(frozen=True)
class Case:
    """One input for the learner's function.

    label : a few words shown to the learner, e.g. "large scores".
    args : positional arguments (each call receives deep copies).
    """

    label: str
    args: tuple


@dataclass(frozen=True)
class KnownMistake:
    """A mistake learners make, recognised from its output or its error, with a specific hint.

    Parameters
    ----------
    name : str
        Short identifier (for tests and maintainers; not shown).
    hint : str or callable
        Shown to the learner. A callable is called as ``hint(got, args)`` and returns the text.
    reproduce : callable or tuple of callables
        Functions with the learner function's signature that compute the buggy result. The
        mistake is recognised when one of them returns the same output as the learner's
        function on the failing case (same structure and shapes, values close, nan == nan).
    error : callable, optional
        ``error(exception) -> bool``: recognises the mistake from the exception the learner's
        function raised (see ``error_message_contains``).
    """

    name: str
    hint: object
    reproduce: object = ()
    error: object = None

    def __post_init__(self):
        if callable(self.reproduce):
            object.__setattr__(self, "reproduce", (self.reproduce,))
        else:
            object.__setattr__(self, "reproduce", tuple(self.reproduce))

    def explains_output(self, got, args, rtol=RTOL, atol=ATOL):
        """True if one of the reproduce functions returns ``got`` for these args."""
        for buggy in self.reproduce:
            try:
                with np.errstate(all="ignore"):
                    reproduced = buggy(*copy.deepcopy(tuple(args)))
            except Exception:  # this variant cannot even run on the case: it does not explain it
                continue
            if outputs_match(got, reproduced, rtol, atol):
                return True
        return False

    def explains_error(self, exc):
        """True if the error predicate recognises the exception."""
        if self.error is None:
            return False
        try:
            return bool(self.error(exc))
        except Exception:
            return False

    def hint_text(self, got, args):
        return self.hint(got, args) if callable(self.hint) else self.hint


def error_message_contains(*fragments, error_type=Exception):
    """Predicate for ``KnownMistake.error``: an ``error_type`` whose message contains any fragment."""

    def predicate(exc):
        text = str(exc)
        return isinstance(exc, error_type) and any(f in text for f in fragments)

    return predicate


def checker(name):
    """Decorator for ``check_<name>`` functions: any unexpected error inside the checker becomes a
    short message instead of a traceback."""

    def decorate(check):
        @functools.wraps(check)
        def guarded(*args, **kwargs):
            try:
                with np.errstate(all="ignore"):  # the learner's call sets its own errstate
                    return check(*args, **kwargs)
            except Exception as exc:  # a bug in the checker, not in the learner's code
                return internal_error(name, exc)

        return guarded

    return decorate


def internal_error(name, exc):
    """Result reported when the checker itself fails (status "wrong", so it is never mistaken for a pass)."""
    return CheckResult(
        WRONG,
        f"Could not check {name}: the checker itself hit an unexpected error ({error_text(exc)}).\n"
        "This is most likely a problem in the course material, not in your code. Please report it; "
        "meanwhile compare your function with the examples in the notebook.",
    )


def not_attempted(name, total=0):
    """The result for a function that still raises NotImplementedError (the build tool's stub)."""
    return CheckResult(
        NOT_ATTEMPTED,
        f"Not attempted yet: your {name} function still raises NotImplementedError. Replace the two lines under "
        "# YOUR CODE HERE with your code, run the cell, then run this check again.",
        total=total,
    )


def not_callable(name, value):
    """The result when the checker is given something other than a function."""
    return CheckResult(
        WRONG,
        f"Not yet right: check_{name} needs your function itself, but it received {describe(value)}.",
        hint=f"Pass the function's name without parentheses: `check_{name}({name})`, "
        f"not `check_{name}({name}(...))`.",
    )


def correct(total, extra=""):
    """The result when every case passed; ``extra`` adds a sentence."""
    text = f"Correct: all {total} cases passed." if total != 1 else "Correct: 1 of 1 case passed."
    if extra:
        text = f"{text} {extra}"
    return CheckResult(CORRECT, text, passed=total, total=total)


def run_check(
    fn,
    *,
    name,
    reference,
    cases,
    arg_names,
    output_names=None,
    known_mistakes=(),
    hints=None,
    rtol=RTOL,
    atol=ATOL,
):
    """Run the learner's ``fn`` on ``cases`` (smallest first) and report the first failure.

    Parameters
    ----------
    fn : callable
        The learner's function.
    name : str
        Its name in the exercise (used in messages).
    reference : callable
        Same signature as fn; gives the expected output (an array, or a tuple of arrays when fn
        must return several things).
    cases : sequence of Case
        Ordered from smallest to largest input, edge cases included.
    arg_names : sequence of str
        Names of fn's parameters, for showing the inputs.
    output_names : sequence of str, optional
        Names of the items of a tuple output, e.g. ("output", "weights").
    known_mistakes : sequence of KnownMistake
        Tried in order on the failing case; the first that explains it gives the hint.
    hints : dict, optional
        Generic hints by problem kind, overriding ``DEFAULT_HINTS``.
    rtol, atol : float
        Tolerances of ``np.allclose``.

    Returns
    -------
    CheckResult
    """
    try:
        with np.errstate(all="ignore"):  # comparing nan/inf outputs must not warn or raise
            return _run_cases(fn, name, reference, cases, arg_names, output_names, known_mistakes, hints, rtol, atol)
    except Exception as exc:  # a bug in the checker or a reference refusing a case
        return internal_error(name, exc)


def _run_cases(fn, name, reference, cases, arg_names, output_names, known_mistakes, hints, rtol, atol):
    """The loop of run_check (see there), without its safety net."""
    if not callable(fn):
        return not_callable(name, fn)
    all_hints = {**DEFAULT_HINTS, **(hints or {})}
    total = len(cases)
    for index, case in enumerate(cases, start=1):
        expected = reference(*copy.deepcopy(tuple(case.args)))
        call = call_learner(fn, case.args)
        if index == 1 and call.stub_raised:
            return not_attempted(name, total)
        problem, details = _diagnose(call, expected, case, name, arg_names, output_names, rtol, atol)
        if problem is None:
            continue
        after = []
        if call.warnings and problem.kind != "inplace":
            after.append(field("warning", "\n".join(call.warnings[:2])))
        hint = _pick_hint(problem, call, case, known_mistakes, all_hints, rtol, atol)
        return _wrong(name, index, total, case, arg_names, problem, details, after, hint)
    return correct(total)


def _diagnose(call, expected, case, name, arg_names, output_names, rtol, atol):
    """(Problem, detail lines) for one call, or (None, None) if it passed."""
    exp_text = _fmt_output(expected, output_names)
    if call.error is not None:
        if isinstance(call.error, NotImplementedError):
            inner = raising_function_name(call.error)
            if call.stub_raised:
                text = f"{name} raised NotImplementedError on this input."
            else:
                text = f"{name} calls {inner}, which still raises NotImplementedError."
            problem = Problem("not implemented", text)
        else:
            problem = Problem("exception", f"{name} raised an error.")
        details = [field("expected", exp_text), field("error", error_text(call.error))]
        if call.where:
            details.append(field("where", call.where))
        return problem, details
    problem = find_problem(call.value, expected, name=name, output_names=output_names, rtol=rtol, atol=atol)
    if problem is None:
        changed = changed_args(case.args, call.args_after, arg_names)
        if not changed:
            return None, None
        arg, before, after = changed[0]
        problem = Problem("inplace", f"{name} changed its input {arg} in place (the result itself is right).")
        details = [
            field("expected", exp_text),
            field("got", _fmt_output(call.value, output_names)),
            field(f"{arg} before", fmt_value(before)),
            field(f"{arg} after", fmt_value(after)),
        ]
        return problem, details
    details = [field("expected", exp_text), field("got", _fmt_output(call.value, output_names))]
    return problem, details


def _pick_hint(problem, call, case, known_mistakes, all_hints, rtol, atol):
    if problem.kind == "exception":
        for mistake in known_mistakes:
            if mistake.explains_error(call.error):
                return mistake.hint_text(call.value, case.args)
    elif problem.kind in ("structure", "type", "shape", "nonfinite", "values"):
        for mistake in known_mistakes:
            if mistake.explains_output(call.value, case.args, rtol, atol):
                return mistake.hint_text(call.value, case.args)
    return all_hints.get(problem.kind)


def _wrong(name, index, total, case, arg_names, problem, details, after, hint):
    inputs = fmt_named(arg_names, case.args)
    passed = index - 1
    if passed == 0:
        headline = f"Not yet right: {name} fails case 1 of {total} ({case.label})."
    elif passed == 1:
        headline = f"Not yet right: {name} fails case 2 of {total} ({case.label}); case 1 passed."
    else:
        headline = f"Not yet right: {name} fails case {index} of {total} ({case.label}); cases 1-{passed} passed."
    lines = [headline, field("input", inputs), *details]
    if problem.kind != "exception":  # for an error, the error and where lines say it all
        lines.append(field("problem", problem.text))
    lines.extend(after)
    return CheckResult(
        WRONG,
        "\n".join(lines),
        hint=hint,
        passed=passed,
        total=total,
        case=f"case {index} of {total} ({case.label}): {inputs}",
    )


def _fmt_output(value, output_names):
    if output_names and isinstance(value, (tuple, list)) and len(value) == len(output_names):
        return fmt_named(output_names, value)
    if isinstance(value, (tuple, list)) and any(isinstance(v, np.ndarray) for v in value):
        return "(" + ", ".join(fmt_value(v) for v in value) + ")"
    return fmt_value(value)


__all__ = [
    "Case",
    "KnownMistake",
    "DEFAULT_HINTS",
    "checker",
    "correct",
    "error_message_contains",
    "internal_error",
    "not_attempted",
    "not_callable",
    "run_check",
]


def call_for_answers(fn, name, total, example, one_entry_per):
    """Call a learner's zero-argument function whose answer is a dict (a diagnosis exercise).

    Parameters
    ----------
    fn : callable
        The learner's function, e.g. ``buggy_masks()`` returning ``{"causal": ["A"], ...}``.
    name : str
        The exercise's name in messages.
    total : int
        How many answers the dict should hold (for the result's ``total``).
    example : str
        A one-line example of a valid return statement, shown in hints.
    one_entry_per : str
        What each key stands for ("situation", "plot"), for the hint.

    Returns
    -------
    (dict, None) when the function returned a dict; (None, CheckResult) otherwise: not callable,
    not attempted (stub), raised an error, or returned something other than a dict.
    """
    if not callable(fn):
        return None, not_callable(name, fn)
    call = call_learner(fn, ())
    if call.stub_raised:
        return None, not_attempted(name, total=total)
    if call.error is not None:
        lines = [f"Not yet right: {name}() raised an error.", field("error", error_text(call.error))]
        if call.where:
            lines.append(field("where", call.where))
        return None, CheckResult(WRONG, "\n".join(lines),
                                 hint=f"The function takes no arguments and returns a dict, e.g. {example}.",
                                 total=total, case=f"{name}() raised an error")
    if not isinstance(call.value, dict):
        return None, CheckResult(
            WRONG, f"Not yet right: {name} should return a dict, but it returned {describe(call.value)}.",
            hint=f"Return one entry per {one_entry_per}, e.g. {example}.", total=total,
            case=f"{name}() returned {describe(call.value)}",
        )
    return call.value, None


def wrong_answer_keys(given, expected, total, example, *, entry, key_word="key"):
    """The "wrong" result when a diagnosis dict's keys are not exactly `expected`, else None.

    Parameters
    ----------
    given : iterable of str
        The keys the learner's dict has (after any normalisation the checker applies).
    expected : list of str
        The keys it must have, in order.
    total : int
    example : str
        A one-line example of a valid return statement, shown in the hint.
    entry : str
        What a key stands for in messages ("situation", "plot").
    key_word : str
        What an unexpected key is called in messages ("key", "label").
    """
    given = list(given)
    missing = [k for k in expected if k not in given]
    unknown = [k for k in given if k not in expected]
    if not (missing or unknown):
        return None
    parts = []
    if missing:
        parts.append(f"missing {entry}(s) {missing}")
    if unknown:
        parts.append(f"unknown {key_word}(s) {unknown}")
    return CheckResult(
        WRONG, f"Not yet right: the dict has {' and '.join(parts)}; its keys must be {list(expected)}.",
        hint=f"Use exactly these keys, e.g. {example}.", total=total, case="keys of the dict",
    )
