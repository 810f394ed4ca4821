"""The checker framework: cases, known mistakes and the loop that runs a learner's function.

A checker is a few lines built on ``run_check``::

    @checker("softmax", mistakes=[KnownMistake("no max shift", "Subtract the max ...", reproduce=...)])
    def check_softmax(softmax):
        return run_check(
            softmax, reference=reference_softmax, arg_names=("x",),
            cases=[Case("one score", (np.array([0.0]),)), ...],
        )

``run_check`` passes copies of each case's inputs to the learner's function, smallest case
first, and runs every case, also after the first failure (each call under the same time limit
and cap on printed output, see ``_calls``). It reports the first failing case, described by a
``Problem`` (an error, None, a wrong structure/type/shape, nan/inf, wrong values, or an input
changed in place), with expected and got.

Hint precision. A known mistake is named only when it explains the learner's result on *every*
case: one of its ``reproduce`` functions gives the learner's output on each case that returned
something (passing cases included), and each error the learner's function raised is recognised
by its ``error`` predicate (or raised alike by that reproduce function). A mistake's ``error``
predicate alone explains a learner whose other cases all pass. When no mistake explains every case, the
hint says what the answer breaks (``_invariants``: facts read off the answer, such as a row of weights not
summing to one), or else that it is not a usual mistake, then gives the exercise's generic hint for the kind
of problem: a wrong specific hint sends a learner to fix code that is right, a generic one never does.

How answers are judged and shown is pluggable (``compare=``, a ``Comparison``): arrays of real
numbers by default; boolean masks, dicts of labels and rule-judged answers have their own.
"""
import contextvars
import copy
import functools
import inspect
import sys
from dataclasses import dataclass

import numpy as np

from course_utils import content
from course_utils.checks._calls import (
    TIME_LIMIT,
    call_learner,
    changed_args,
    error_text,
    learner_line,
    raising_function_name,
    stub_lines_after,
)
from course_utils.checks._compare import Comparison, Problem
from course_utils.checks._deadline import OutOfTime, deadline
from course_utils.checks._format import describe, field, fmt_value
from course_utils.checks._invariants import statements as invariant_statements
from course_utils.checks._levels import levelled
from course_utils.checks._own_answers import own_answers
from course_utils.checks._result import CORRECT, NOT_ATTEMPTED, WRONG, CheckResult

_FEEDBACK = content.read("feedback")
#: Generic hint for each kind of problem, used when no known mistake explains the failure; and what is said before
#: it when the exercise has known mistakes but none explains the answer (both in content/feedback.toml).
DEFAULT_HINTS = _FEEDBACK["generic"]
NOT_A_USUAL_MISTAKE = _FEEDBACK["not_a_usual_mistake"]
# The hints of the results about a whole answer, not one case (content/feedback.toml's [answer]).
_ANSWER_HINTS = _FEEDBACK["answer"]

# Problem kinds for which a known mistake may be named (the others have one cause each).
_NAMEABLE = ("exception", "structure", "type", "shape", "nonfinite", "values", "dtype")
# Kinds whose generic hint says that no usual mistake explains the answer (wrong numbers, not a
# wrong format: for those the generic hint is about the format itself).
_SAY_NOT_USUAL = ("shape", "nonfinite", "values")


@dataclass(frozen=True)
class Case:
    """One input for the learner's function.

    label : a few words shown to the learner, e.g. "large scores".
    args : positional arguments (each call receives deep copies).
    """

    label: str
    args: tuple


@dataclass(frozen=True)
class Outcome:
    """What happened on one case: the call, the expected answer and the problem found (None: passed)."""

    index: int
    case: Case
    expected: object
    call: object
    problem: Problem = None
    details: object = None  # () -> the detail lines of a failure (formatted only when reported)

    @property
    def passed(self):
        return self.problem is None


@dataclass(frozen=True)
class KnownMistake:
    """A mistake learners make, recognised from its output or its error, with a specific hint.

    name : short identifier (for tests and maintainers; not shown; ``CheckResult.mistake``).
    hint : shown to the learner: a str, or ``hint(got, args) -> str`` of the answer and the inputs
        of the case reported.
    reproduce : a function, or a tuple of them, with the learner function's signature, computing the
        buggy result. The mistake is named when ONE of them gives the learner's output on every case
        (see the module docstring).
    error : optional ``error(exception) -> bool``: recognises the mistake from an exception the
        learner's function raised (see ``error_message_contains``); ``error(exception, args)`` also
        gets the case's inputs, for a message whose sizes must fit them.
    matches : optional ``matches(got, args) -> bool``, or a tuple of them: recognises the mistake from
        a property of the learner's answer (for answers judged by a rule, or for a mistake seen in
        one part of the answer whatever the rest does). Named when ONE of them holds on every case.
    """

    name: str
    hint: object
    reproduce: object = ()
    error: object = None
    matches: object = ()

    def __post_init__(self):
        for name in ("reproduce", "matches"):
            value = getattr(self, name)
            object.__setattr__(self, name, (value,) if callable(value) else tuple(value or ()))

    def explains(self, outcomes, comparison=None):
        """True if this mistake explains the learner's result on every one of ``outcomes``."""
        comparison = comparison or Comparison()
        if not outcomes or not all(o.call.ran for o in outcomes):
            return False
        if any(all(self._variant_explains(buggy, o, comparison) for o in outcomes) for buggy in self.reproduce):
            return True
        if any(all(self._matches_explains(rule, o) for o in outcomes) for rule in self.matches):
            return True
        # by its error alone: every error recognised, every other case right
        return self.error is not None and all(
            self.explains_error(o.call.error, o.case.args) if o.call.error is not None else o.passed
            for o in outcomes
        )

    def _variant_explains(self, buggy, outcome, comparison):
        call = outcome.call
        if call.error is not None and self.explains_error(call.error, outcome.case.args):
            return True
        reproduced, error = _reproduced(buggy, outcome.case.args)
        if error is not None or call.error is not None:  # alike only if both fail with the same error
            return error is not None and call.error is not None and _same_error(call.error, error)
        return bool(comparison.same(call.value, reproduced))

    def _matches_explains(self, rule, outcome):
        if outcome.call.error is not None:
            return self.explains_error(outcome.call.error, outcome.case.args)
        if outcome.problem is not None and outcome.problem.kind in ("none", "structure", "type", "shape"):
            return False  # a rule reads the parts of a well-formed answer only
        try:
            return bool(rule(outcome.call.value, outcome.case.args))
        except Exception:
            return False

    def explains_output(self, got, args):
        """True if one of the reproduce functions returns ``got`` for these args (one case only)."""
        results = (_reproduced(buggy, args) for buggy in self.reproduce)
        return any(error is None and Comparison().same(got, value) for value, error in results)

    def explains_error(self, exc, args=None):
        """True if the error predicate recognises the exception (raised on a case with ``args``)."""
        if self.error is None or exc is None:
            return False
        try:
            return bool(self.error(exc, args) if _takes_two(self.error) else self.error(exc))
        except Exception:
            return False

    def hint_text(self, got, args):
        return self.hint(got, args) if callable(self.hint) else self.hint


def variants(buggy, handlings, **fixed):
    """``buggy(*args, **handling, **fixed)`` for each dict of ``handlings``, for ``KnownMistake.reproduce``: one
    mistake (``fixed``) written each usual way (e.g. of handling a row with no permitted key)."""
    return tuple((lambda *args, kw={**handling, **fixed}: buggy(*args, **kw)) for handling in handlings)


def _reproduced(buggy, args):
    """(output, None) of a buggy version on deep copies of a case's ``args``, or (None, the error it raised)."""
    try:
        with np.errstate(all="ignore"):
            return buggy(*copy.deepcopy(tuple(args))), None
    except Exception as exc:
        return None, exc


def _takes_two(predicate):
    """True if ``predicate`` accepts two positional arguments (exception, args)."""
    try:
        inspect.signature(predicate).bind(None, None)
    except (TypeError, ValueError):
        return False
    return True


def _same_error(a, b):
    """Two exceptions of the same type whose messages start alike (first line)."""
    return type(a) is type(b) and str(a).split("\n")[0] == str(b).split("\n")[0]


def error_message_contains(*fragments, error_type=Exception):
    """Predicate for ``KnownMistake.error``: an ``error_type`` whose message contains any fragment."""

    def predicate(exc):
        text = str(exc)
        return isinstance(exc, error_type) and any(f in text for f in fragments)

    return predicate


def error_on_line(pattern, *fragments, error_type=Exception):
    """Predicate for ``KnownMistake.error``: ``error_message_contains(*fragments)``, raised on a line of
    the learner's code matching the regular expression ``pattern`` (case-insensitive).

    Several lines can raise the same error (a broadcast in a product, or in a division); the line
    the learner wrote tells which one did, so the hint names the right step.
    """
    import re

    regex = re.compile(pattern, re.IGNORECASE)
    message = error_message_contains(*fragments, error_type=error_type)

    def predicate(exc):
        if not message(exc):
            return False
        line = learner_line(exc) or ""
        return bool(regex.search(line.partition(": ")[2]))

    return predicate


@dataclass(frozen=True)
class Checker:
    """One registered exercise checker (``CHECKERS[name]``).

    name : the exercise's name ("softmax"); the function is ``check_<name>``.
    function : the checker itself, guarded (see ``checker``).
    mistakes : its known mistakes (a tuple of KnownMistake; empty when it recognises none by name).
    module : the module that defines it (its notebook's topic).
    """

    name: str
    function: object
    mistakes: tuple
    module: str


#: Every exercise checker, by exercise name, in the order the notebooks define them. Filled by
#: ``@checker``: registering a new checker is that decorator and nothing else
#: (``course_utils.checks`` exports ``check_<name>`` from here).
CHECKERS = {}

# The registration (a Checker) of the checker now running, set by ``@checker`` for run_check to read.
_RUNNING = contextvars.ContextVar("running checker", default=None)


def checker(name, *, mistakes=()):
    """Decorator that makes the function ``check_<name>`` an exercise checker and registers it in
    ``CHECKERS`` with ``mistakes``, the known mistakes it names (tests and tools read them from there,
    and ``run_check`` called inside the checker by default).

    Any unexpected error inside the checker becomes a short message instead of a traceback.
    """

    def decorate(check):
        if check.__name__ != f"check_{name}":
            raise ValueError(f"a checker for {name!r} must be called check_{name}, not {check.__name__}")
        if name in CHECKERS and CHECKERS[name].module != check.__module__:
            raise ValueError(f"two checkers for {name!r}: in {CHECKERS[name].module} and {check.__module__}")

        @functools.wraps(check)
        def guarded(*args, **kwargs):
            running = _RUNNING.set(CHECKERS[name])
            try:
                with np.errstate(all="ignore"):  # the learner's call sets its own errstate
                    answer = args[0] if args else next(iter(kwargs.values()), None)
                    result = levelled(name, answer, check(*args, **kwargs))  # a wrong one: its level's texts too
            except Exception as exc:  # a bug in the checker, not in the learner's code
                result = internal_error(name, exc)
            finally:
                _RUNNING.reset(running)
            if not sys._getframe(1).f_globals.get("__name__", "").startswith("course_utils"):
                result.show()  # a learner's check cell: shown even when it is not the cell's last line
            return result

        CHECKERS[name] = Checker(name, guarded, tuple(mistakes), check.__module__)
        return guarded

    return decorate


def unreadable_answer(name, exc):
    """The result when reading what the learner's function returned or raised ran the learner's own code (a
    ``__repr__``, ``__str__`` or ``__eq__`` of a class of theirs) and that code failed (``exc``) or never ended."""
    what = f"failed ({error_text(exc)}, in {learner_line(exc)})" if exc is not None else "did not finish"
    return CheckResult(
        WRONG,
        f"Not yet right: {name} returned or raised an object whose own code {what} when the checker read it.",
        hint=_ANSWER_HINTS["unreadable"],
    )


def changed_the_course(name, changed):
    """The result when the learner's function assigned to names of course_utils (put back, ``Call.changed``)."""
    names = ", ".join(f"`{label}`" for label in changed[:3]) + (" and more" if len(changed) > 3 else "")
    return CheckResult(
        WRONG,
        f"Not yet right: {name} changed the course's own code ({names}) while it ran, so its answers cannot be "
        "checked. That code is as it was again.",
        hint=_ANSWER_HINTS["changed_the_course"].format(name=name),
    )


def internal_error(name, exc):
    """Result reported when the checker itself fails (status "wrong", so it is never mistaken for a pass)."""
    return CheckResult(
        WRONG,
        f"Could not check {name}: the checker itself hit an unexpected error ({error_text(exc)}).\n"
        "This is most likely a problem in the course material, not in your code. Please report it; "
        "meanwhile compare your function with the examples in the notebook.",
    )


def not_attempted(name, total=0, fn=None):
    """The result for a function that still raises NotImplementedError (the build tool's stub).

    The message says exactly what to replace: the line ``raise NotImplementedError()`` under
    ``# YOUR CODE HERE``, and which lines after it to keep (read from ``fn``'s source).
    """
    stubs, keep = stub_lines_after(fn) if fn is not None else (0, ())
    which = ("each line `raise NotImplementedError()` under a `# YOUR CODE HERE`" if stubs > 1 else
             "the line `raise NotImplementedError()` under `# YOUR CODE HERE`")
    text = f"Not attempted yet: your {name} function still raises NotImplementedError. Replace {which} with your code"
    if keep:
        shown = " and ".join(f"`{line}`" for line in keep[:2]) + (" ..." if len(keep) > 2 else "")
        text += f" (keep {shown} below {'the last' if stubs > 1 else 'it'})"
    text += ", run the cell, then run this check again."
    return CheckResult(NOT_ATTEMPTED, text, total=total)


def not_callable(name, value):
    """The result when the checker is given something other than a function."""
    return CheckResult(
        WRONG,
        f"Not yet right: check_{name} needs your function itself, but it received {describe(value)}.",
        hint=_ANSWER_HINTS["not_callable"].format(name=name),  # the notebooks name each exercise's function my_<name>
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
    reference,
    cases,
    arg_names,
    name=None,
    output_names=None,
    known_mistakes=None,
    hints=None,
    compare=None,
    forbidden=None,
    time_limit=TIME_LIMIT,
):
    """Run the learner's ``fn`` on every case and report the first failure, with a precise hint.

    reference : same signature as fn; gives the expected output (an array, or a tuple of arrays when
        fn must return several things; whatever ``compare`` judges).
    cases : a sequence of Case, from the smallest input to the largest, edge cases included.
    arg_names : the names of fn's parameters, for showing the inputs.
    name : fn's name in the exercise (used in messages). Default: the name of the ``@checker``
        function running this call (``CHECKERS[name]``); outside one it must be given.
    output_names : the names of the items of a tuple output, e.g. ("output", "weights").
    known_mistakes : KnownMistakes tried in order; the first that explains the result on every case
        gives the hint. Default: the ``mistakes`` of the ``@checker`` running this call (none outside one).
    hints : generic hints by problem kind (str, or callable ``hint(got, args)``), overriding ``DEFAULT_HINTS``.
    compare : a Comparison, how answers are judged and shown (default: arrays of real numbers).
    forbidden : ``{"cu.multi_head_attention": function, ...}``, functions that would hand the learner
        the answer, besides the course's own answer to exercise ``name`` (``_own_answers``). If the
        learner's function calls one, a right answer is not called correct, and the report says which.
    time_limit : seconds per call (None: no limit; see ``_calls.call_learner``).
    """
    running = _RUNNING.get()
    if name is None and running is None:
        raise TypeError("run_check needs name= when it is not called by an @checker function")
    name = running.name if name is None else name
    if known_mistakes is None:
        known_mistakes = running.mistakes if running is not None else ()
    try:
        with np.errstate(all="ignore"):  # comparing nan/inf outputs must not warn or raise
            return _Run(
                fn, name=name, reference=reference, cases=tuple(cases), arg_names=tuple(arg_names),
                output_names=output_names, known_mistakes=tuple(known_mistakes),
                hints={**DEFAULT_HINTS, **(hints or {})}, compare=compare or Comparison(),
                forbidden={**own_answers(name), **(forbidden or {})}, time_limit=time_limit,
            ).result()
    except OutOfTime:  # reading what the learner's function returned or raised ran its own code, for ever
        return unreadable_answer(name, None)
    except Exception as exc:  # a bug in the checker or a reference refusing a case, or the learner's own code
        return unreadable_answer(name, exc) if learner_line(exc) else internal_error(name, exc)


class _Run:
    """One run of run_check (see there): call every case, pick the case to report, pick the hint."""

    def __init__(self, fn, *, name, reference, cases, arg_names, output_names, known_mistakes, hints,
                 compare, forbidden, time_limit):
        self.fn, self.name, self.reference, self.cases = fn, name, reference, cases
        self.arg_names, self.output_names, self.known_mistakes = arg_names, output_names, known_mistakes
        self.hints, self.compare, self.forbidden, self.time_limit = hints, compare, forbidden, time_limit
        self.total = len(cases)

    # ------------------------------------------------------------------ the calls
    def result(self):
        if not callable(self.fn):
            return not_callable(self.name, self.fn)
        # The expected answers first: the learner's function could change the reference (see _calls).
        try:
            self.expected = [self.reference(*copy.deepcopy(tuple(case.args))) for case in self.cases]
        except Exception as exc:  # the course's reference refusing a case: a bug in the course
            return internal_error(self.name, exc)
        calls = []
        for index, case in enumerate(self.cases, start=1):
            call = call_learner(self.fn, case.args, time_limit=self.time_limit, watch=self.forbidden)
            if call.changed:
                return changed_the_course(self.name, call.changed)
            if index == 1 and call.stub_raised:
                return not_attempted(self.name, self.total, self.fn)
            calls.append(call)
            if call.timed_out:  # the next cases would most likely use up their time too
                break
        with deadline(self.time_limit) as finished:  # reading the answers runs their own code (__repr__, __eq__)
            result = self._judge(calls)
            finished()
        return result

    def _judge(self, calls):
        self.compare = self.compare.for_run([c.value for c in calls if c.ran and c.error is None])
        outcomes = [Outcome(index, case, expected, call, *self._diagnose(call, expected, case))
                    for index, (case, call, expected) in enumerate(zip(self.cases, calls, self.expected), start=1)]
        failing = [o for o in outcomes if not o.passed]
        if not failing:
            return self._passed(outcomes)
        deferred = self.compare.deferred_kinds
        reported = next((o for o in failing if o.problem.kind not in deferred), failing[0])
        return self._wrong(reported, outcomes, failing)

    def _diagnose(self, call, expected, case):
        """(Problem, a function giving the detail lines) for one call, or (None, None) if it passed.

        The detail lines are formatted only for the case reported (a large wrong answer is not
        formatted once per case)."""
        name, compare, names = self.name, self.compare, self.output_names
        if call.timed_out:
            problem = Problem("time", f"{name} did not finish within {self.time_limit:g} s on this small input.")
            return problem, lambda: [field("expected", compare.fmt_output(expected, names))]
        if call.error is not None:
            if isinstance(call.error, NotImplementedError):  # the stub itself, or a stub the function calls
                text = (f"{name} raised NotImplementedError on this input." if call.stub_raised else
                        f"{name} calls {raising_function_name(call.error)}, which still raises NotImplementedError.")
                problem = Problem("not implemented", text)
            else:
                problem = Problem("exception", f"{name} raised an error.")

            def error_details():
                lines = [field("expected", compare.fmt_output(expected, names)), field("error", error_text(call.error))]
                return lines + ([field("where", call.where)] if call.where else [])

            return problem, error_details
        problem = compare.problem(call.value, expected, name=name, output_names=names)
        if problem is None:
            changed = changed_args(case.args, call.args_after, self.arg_names)
            if not changed:
                return None, None
            arg, before, after = changed[0]
            problem = Problem("inplace", f"{name} changed its input {arg} in place (the result itself is right).")
            return problem, lambda: [*compare.details(call.value, expected, names),
                                     field(f"{arg} before", fmt_value(before)),
                                     field(f"{arg} after", fmt_value(after))]
        return problem, lambda: compare.details(call.value, expected, names)

    # ------------------------------------------------------------------ the reports
    def _passed(self, outcomes):
        used = _called(outcomes)
        if used:
            return self._forbidden_result(used)
        return self.compare.correct_text(self.total, [o.call.value for o in outcomes]) or correct(self.total)

    def _forbidden_result(self, used):
        names = _and(used)
        return CheckResult(
            WRONG,
            f"Not yet right: your {self.name} gives the right numbers on all {self.total} cases, but it "
            f"calls {names}, which would do the exercise for you.",
            hint=_ANSWER_HINTS["forbidden"].format(names=names),
            passed=self.total, total=self.total, case=f"calls {names}",
        )

    def _wrong(self, reported, outcomes, failing):
        name, case, index = self.name, reported.case, reported.index
        problem, call = reported.problem, reported.call
        inputs = self.compare.fmt_inputs(self.arg_names, case.args)
        passed = index - 1
        answer_only = self.total == 1 and not self.arg_names  # a function of no arguments: one answer
        if answer_only:
            headline = f"Not yet right: {problem.text}"
        else:
            before = {0: "", 1: "; case 1 passed"}.get(passed, f"; cases 1-{passed} passed")
            headline = f"Not yet right: {name} fails case {index} of {self.total} ({case.label}){before}."
        lines = [headline, *([] if answer_only else [field("input", inputs)]), *reported.details()]
        if problem.kind != "exception" and not answer_only:  # an error's lines say it all
            lines.append(field("problem", problem.text))
        others = [o.index for o in failing if o is not reported]
        if len(outcomes) < self.total:
            lines.append(field("not run", f"cases {len(outcomes) + 1}-{self.total} (after the time limit)"
                               if len(outcomes) + 1 < self.total else f"case {self.total} (after the time limit)"))
        if others:
            lines.append(field("also fails", ", ".join(f"case {i}" for i in others)))
        if call.warnings and problem.kind != "inplace":
            lines.append(field("warning", "\n".join(call.warnings[:2])))
        if call.printed:
            lines.append(field("printed", call.printed))
        hint, mistake = self._hint(reported, outcomes)
        used = _called(outcomes)
        if used:
            hint += " " + _ANSWER_HINTS["also_forbidden"].format(names=_and(used))
        return CheckResult(
            WRONG, "\n".join(lines), hint=hint, passed=passed, total=self.total,
            case=case.label if answer_only else f"case {index} of {self.total} ({case.label}): {inputs}",
            mistake=mistake,
        )

    def _hint(self, reported, outcomes):
        """(hint text, name of the known mistake it names or None)."""
        kind, call, args = reported.problem.kind, reported.call, reported.case.args
        got = call.value
        extra = self.compare.extra_hint(kind, got) if call.error is None and call.ran else ""
        if kind in _NAMEABLE:
            complete = len(outcomes) == self.total
            for mistake in self.known_mistakes:
                if complete and mistake.explains(outcomes, self.compare):
                    return mistake.hint_text(got, args) + extra, mistake.name
        computed = self.compare.hint(kind, got, reported.expected, args) if call.ran and call.error is None else None
        if computed:  # worked out from the answer itself: precise by construction
            return computed + extra, None
        generic = self.hints.get(kind) or DEFAULT_HINTS["values"]
        if callable(generic):
            generic = generic(got, args)
        said = invariant_statements(self.name, reported.expected, got, reported.case, self.output_names, fn=self.fn,
                                     time_limit=self.time_limit) if kind in _SAY_NOT_USUAL and call.ran else ()
        if said:  # what the answer breaks, said instead of "not a usual mistake"
            generic = " ".join([*said, generic])
        elif kind in _SAY_NOT_USUAL and self.known_mistakes:
            generic = f"{NOT_A_USUAL_MISTAKE} {generic}"
        return generic + extra, None


def _and(names):
    """`a`, `b` and `c`."""
    quoted = [f"`{n}`" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _called(outcomes):
    """The watched functions the learner's function called on any case, in order of first call."""
    return list(dict.fromkeys(name for o in outcomes for name in o.call.called))


__all__ = [
    "CHECKERS",
    "Case",
    "Checker",
    "KnownMistake",
    "Outcome",
    "DEFAULT_HINTS",
    "NOT_A_USUAL_MISTAKE",
    "checker",
    "correct",
    "error_message_contains",
    "error_on_line",
    "internal_error",
    "not_attempted",
    "not_callable",
    "run_check",
    "variants",
]
