"""The checker framework: three outcomes, learner bugs reported (never raised), result display."""
import numpy as np
import pytest

from course_utils.checks import (
    CHECKERS,
    DEFAULT_HINTS,
    NOT_A_USUAL_MISTAKE,
    Case,
    CheckResult,
    KnownMistake,
    checker,
    error_message_contains,
    run_check,
)
from course_utils.checks._format import fmt_array, fmt_value

# A toy exercise: double(x) -> 2 * x, three cases from small to large.
CASES = (
    Case("one number", (np.array([1.0]),)),
    Case("two numbers", (np.array([1.0, -2.0]),)),
    Case("a 2-D array", (np.array([[1.0, 2.0], [3.0, 4.0]]),)),
)
MISTAKES = (
    KnownMistake("squares", "You squared instead of doubling.", reproduce=lambda x: x**2),
    KnownMistake(
        "crashing variant",  # a reproduce function that raises is simply not a match
        "never shown",
        reproduce=lambda x: 1 / 0,
    ),
    KnownMistake(
        "list method",
        lambda got, args: f"Arrays have no append ({len(args)} argument).",
        error=error_message_contains("append", error_type=AttributeError),
    ),
)


def check_double(fn):
    return run_check(
        fn,
        name="double",
        reference=lambda x: 2 * x,
        cases=CASES,
        arg_names=("x",),
        known_mistakes=MISTAKES,
    )


def check_pair(fn):
    """A toy checker of a function returning two things: (2 * x, x.sum())."""
    return run_check(
        fn,
        name="pair",
        reference=lambda x: (2 * x, np.asarray(x.sum())),
        cases=CASES[:2],
        arg_names=("x",),
        output_names=("doubled", "total"),
    )


def double_stub(x):
    # YOUR CODE HERE
    raise NotImplementedError()


def assert_wrong(result, case_number):
    assert result.status == "wrong"
    assert not result
    assert result.message.startswith("Not yet right")
    assert result.case.startswith(f"case {case_number} of ")
    assert result.passed == case_number - 1
    assert result.total == len(CASES) or result.total == 2
    assert "Traceback" not in result.text


# ----------------------------------------------------------------------------- three outcomes
def test_correct_function_passes_all_cases():
    result = check_double(lambda x: 2 * x)
    assert result.status == "correct"
    assert bool(result) is True
    assert result.message == "Correct: all 3 cases passed."
    assert (result.passed, result.total, result.case, result.hint) == (3, 3, None, None)


def test_numeric_list_output_is_accepted():
    assert check_double(lambda x: (2 * x).tolist()).status == "correct"


def test_stub_is_not_attempted():
    result = check_double(double_stub)
    assert result.status == "not attempted"
    assert bool(result) is False
    assert result.message.startswith("Not attempted yet: your double function still raises NotImplementedError.")
    assert "# YOUR CODE HERE" in result.message
    assert result.passed == 0 and result.total == 3


def test_first_failing_case_is_reported_with_expected_and_got():
    def only_1d(x):
        return 2 * x if x.ndim == 1 else x

    result = check_double(only_1d)
    assert_wrong(result, 3)
    assert "cases 1-2 passed" in result.message
    assert "expected: [[2., 4.]," in result.message
    assert "got:      [[1., 2.]," in result.message
    assert "largest difference 4." in result.message
    assert result.hint == f"{NOT_A_USUAL_MISTAKE} {DEFAULT_HINTS['values']}"
    assert result.mistake is None


# ----------------------------------------------------------------------------- learner bugs
def test_crash_reports_type_message_and_learner_line():
    def crashes(x):
        scale = 0
        return x / scale if False else 1 / scale

    result = check_double(crashes)
    assert_wrong(result, 1)
    assert "error:    ZeroDivisionError: division by zero" in result.message
    line = crashes.__code__.co_firstlineno + 2
    assert f"where:    crashes, line {line}: return x / scale if False else 1 / scale" in result.message


def test_error_inside_numpy_points_at_the_learners_line():
    def bad_reshape(x):
        return np.reshape(x, (5, 7)) * 2

    result = check_double(bad_reshape)
    assert_wrong(result, 1)
    assert "ValueError: cannot reshape" in result.message
    line = bad_reshape.__code__.co_firstlineno + 1
    assert f"where:    bad_reshape, line {line}: return np.reshape(x, (5, 7)) * 2" in result.message


@pytest.mark.parametrize("exc_type", [KeyError, IndexError, RuntimeError, SystemExit, RecursionError])
def test_any_other_error_is_reported_not_raised(exc_type):
    def raises(x):
        raise exc_type("boom")

    result = check_double(raises)
    assert_wrong(result, 1)
    assert exc_type.__name__ in result.message


def test_keyboard_interrupt_is_not_swallowed():
    def interrupted(x):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check_double(interrupted)


def test_returning_none_is_wrong():
    def forgot_return(x):
        y = 2 * x  # noqa: F841

    result = check_double(forgot_return)
    assert_wrong(result, 1)
    assert "problem:  double returned None." in result.message
    assert "`return" in result.hint


def test_wrong_shape_is_wrong():
    result = check_double(lambda x: (2 * x).reshape(-1, 1))
    assert_wrong(result, 1)
    assert "The shape of its result is (1, 1); expected (1,): 2 axes instead of 1." in result.message
    assert ".shape" in result.hint


@pytest.mark.parametrize(
    "returned, words",
    [("two", "a value of type str"), ({"a": 1}, "a value of type dict"), (True, "True/False")],
)
def test_wrong_type_is_wrong(returned, words):
    result = check_double(lambda x: returned)
    assert_wrong(result, 1)
    assert words in result.message


def test_bool_array_is_wrong_type():
    result = check_double(lambda x: x > 0)
    assert_wrong(result, 1)
    assert "True/False" in result.message


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_or_inf_output_is_wrong(bad):
    result = check_double(lambda x: np.full_like(x, bad))
    assert_wrong(result, 1)
    assert ("nan" if np.isnan(bad) else "inf") + " at 1 of 1 position" in result.message
    assert "0/0" in result.hint


def test_numpy_warnings_are_shown_without_noise():
    def overflows(x):
        return 2 * x + np.exp(np.full_like(x, 1000.0)) * 0

    with np.errstate(all="raise"):  # the learner's own errstate settings do not leak into the check
        result = check_double(overflows)
    assert_wrong(result, 1)
    assert "warning:  RuntimeWarning: overflow encountered in exp" in result.message


def test_in_place_modification_is_wrong_even_with_right_values():
    def doubles_in_place(x):
        x *= 2
        return x.copy()

    result = check_double(doubles_in_place)
    assert_wrong(result, 1)
    assert "double changed its input x in place" in result.message
    assert "x before: [1.]" in result.message and "x after:  [2.]" in result.message
    assert "instead of updating the input" in result.hint


def test_each_call_gets_copies_so_case_data_survive():
    seen = []

    def destroys(x):
        seen.append(x)
        x[...] = 0
        return np.zeros_like(x)

    check_double(destroys)
    check_double(destroys)
    assert CASES[0].args[0][0] == 1.0
    assert seen[0] is not seen[1] and seen[0] is not CASES[0].args[0]


def test_not_implemented_in_a_helper_is_wrong_and_names_it():
    def helper(x):
        # YOUR CODE HERE
        raise NotImplementedError()

    def uses_helper(x):
        return helper(x)

    result = check_double(uses_helper)
    assert_wrong(result, 1)
    assert "double calls helper, which still raises NotImplementedError." in result.message


def test_not_implemented_on_a_later_case_is_wrong():
    def only_1d(x):
        if x.ndim > 1:
            raise NotImplementedError("2-D")
        return 2 * x

    result = check_double(only_1d)
    assert_wrong(result, 3)
    assert "raised NotImplementedError on this input" in result.message


def test_not_a_function():
    result = check_double(np.array([2.0]))
    assert result.status == "wrong"
    assert "needs your function itself" in result.message
    assert "without parentheses" in result.hint
    assert "`check_double(my_double)`" in result.hint


def test_the_not_a_function_hint_names_the_function_the_notebooks_pass():
    """Every check call in the solved notebooks passes my_<name> to check_<name>, the name the hint shows."""
    import re
    from pathlib import Path

    import nbformat

    from course_utils.checks._framework import not_callable

    calls = set()
    for path in sorted((Path(__file__).resolve().parents[1] / "solutions").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                calls |= set(re.findall(r"^check_(\w+)\((\w+)\)", cell.source, flags=re.MULTILINE))
    assert len(calls) >= 15, calls
    for name, passed in sorted(calls):
        assert passed == f"my_{name}", f"check_{name}({passed}): the hint would say my_{name}"
        assert f"`check_{name}(my_{name})`" in not_callable(name, 3).hint


# ----------------------------------------------------------------------------- known mistakes
def test_known_mistake_recognised_from_its_output():
    result = check_double(lambda x: x**2)
    assert_wrong(result, 1)
    assert result.hint == "You squared instead of doubling."


def test_known_mistake_recognised_from_its_error_and_callable_hint():
    def appends(x):
        x.append(2)
        return x

    result = check_double(appends)
    assert_wrong(result, 1)
    assert result.hint == "Arrays have no append (1 argument)."


def test_unrecognised_mistake_gets_the_generic_hint():
    result = check_double(lambda x: 3 * x)
    assert result.hint == f"{NOT_A_USUAL_MISTAKE} {DEFAULT_HINTS['values']}"


def test_known_mistake_matching_rules():
    mistake = KnownMistake("m", "h", reproduce=(lambda x: 1 / 0, lambda x: x + np.nan))
    x = np.array([1.0, 2.0])
    assert mistake.explains_output(np.array([np.nan, np.nan]), (x,))  # nan matches nan
    assert not mistake.explains_output(np.array([np.nan]), (x,))  # shapes must agree
    assert not mistake.explains_output(None, (x,))
    assert not mistake.explains_error(ValueError("x"))  # no error predicate
    pair = KnownMistake("p", "h", reproduce=lambda x: (x, x))
    assert pair.explains_output([x, x], (x,)) and not pair.explains_output(x, (x,))


# ----------------------------------------------------------------------------- hint precision
def test_every_case_runs_after_the_first_failure():
    calls = []

    def learner(x):
        calls.append(x.shape)
        return x**2

    result = check_double(learner)
    assert len(calls) == len(CASES)  # not stopped at the first failure
    assert "also fails: case 2, case 3" in result.message


def test_a_mistake_is_named_only_when_it_explains_every_case():
    """x**2 on 1-D input but 3*x on 2-D: "squares" explains the first failure, not the last case."""
    def squares_then_triples(x):
        return x**2 if x.ndim == 1 else 3 * x

    result = check_double(squares_then_triples)
    assert result.case.startswith("case 1 of ")
    assert result.mistake is None and "squared" not in result.hint
    assert result.hint.startswith(NOT_A_USUAL_MISTAKE)
    squares = check_double(lambda x: x**2)
    assert squares.mistake == "squares" and squares.hint == "You squared instead of doubling."


def test_passing_cases_must_be_reproduced_too():
    """Right on case 1 (where x**2 == 2 * x would not hold), squares afterwards: not the mistake."""
    def right_then_squares(x):
        return 2 * x if x.size == 1 else x**2

    result = check_double(right_then_squares)
    assert result.case.startswith("case 2 of ")
    assert result.mistake is None


def test_an_error_predicate_alone_explains_a_learner_right_elsewhere():
    mistakes = (KnownMistake("no 2-D", "Handle 2-D input.", error=error_message_contains("2-D")),)

    def learner(x):
        if x.ndim == 2:
            raise ValueError("cannot do 2-D")
        return 2 * x

    result = run_check(learner, name="double", reference=lambda x: 2 * x, cases=CASES, arg_names=("x",),
                       known_mistakes=mistakes)
    assert result.mistake == "no 2-D"

    def wrong_and_raises(x):
        if x.ndim == 2:
            raise ValueError("cannot do 2-D")
        return 3 * x

    result = run_check(wrong_and_raises, name="double", reference=lambda x: 2 * x, cases=CASES,
                       arg_names=("x",), known_mistakes=mistakes)
    assert result.mistake is None  # the error is recognised, but case 1 is wrong too


def test_an_error_predicate_may_read_the_case_inputs():
    seen = []

    def predicate(exc, args):
        seen.append(args[0].shape)
        return "bad" in str(exc)

    mistakes = (KnownMistake("bad", "The hint.", error=predicate),)
    result = run_check(lambda x: (_ for _ in ()).throw(ValueError("bad")), name="double",
                       reference=lambda x: 2 * x, cases=CASES, arg_names=("x",), known_mistakes=mistakes)
    assert result.mistake == "bad" and seen[0] == (1,)


def test_a_matches_rule_names_a_mistake_from_a_part_of_the_answer():
    mistakes = (KnownMistake("first wrong", "The first item is off.", matches=lambda got, args: np.ravel(got)[0] == 0),)

    def learner(x):
        out = 2 * x.ravel()
        out[0] = 0.0
        return out.reshape(x.shape)

    result = run_check(learner, name="double", reference=lambda x: 2 * x, cases=CASES, arg_names=("x",),
                       known_mistakes=mistakes)
    assert result.mistake == "first wrong"
    # a rule reads well-formed answers only: a wrong shape is not "first wrong"
    result = run_check(lambda x: np.zeros(7), name="double", reference=lambda x: 2 * x, cases=CASES,
                       arg_names=("x",), known_mistakes=mistakes)
    assert result.mistake is None


def test_a_function_that_does_not_finish_is_stopped():
    def forever(x):
        while True:
            pass

    result = run_check(forever, name="double", reference=lambda x: 2 * x, cases=CASES, arg_names=("x",),
                       known_mistakes=MISTAKES, time_limit=0.2)
    assert result.status == "wrong"
    assert "double did not finish within 0.2 s" in result.message
    assert "not run:  cases 2-3 (after the time limit)" in result.message
    assert result.hint == DEFAULT_HINTS["time"] and result.mistake is None


def test_the_time_limit_leaves_the_alarm_as_it_was():
    import signal

    def handler(signum, frame):  # pragma: no cover - never fires
        pass

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        check_double(lambda x: 2 * x)
        assert signal.getsignal(signal.SIGALRM) is handler
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    finally:
        signal.signal(signal.SIGALRM, previous)


def test_a_later_case_out_of_time_names_no_mistake():
    def squares_then_hangs(x):
        while x.ndim == 2:
            pass
        return x**2

    result = run_check(squares_then_hangs, name="double", reference=lambda x: 2 * x, cases=CASES,
                       arg_names=("x",), known_mistakes=MISTAKES, time_limit=0.2)
    assert result.case.startswith("case 1 of ") and result.mistake is None


def test_printed_output_is_kept_capped_and_shown_with_the_failure(capsys):
    def chatty(x):
        for i in range(100):
            print("step", i)
        return 3 * x

    result = check_double(chatty)
    assert capsys.readouterr().out == ""  # nothing printed while the checker ran it
    assert "printed:  step 0" in result.message
    assert "step 11" in result.message and "step 12" not in result.message
    assert "(cut: 100 lines printed in all)" in result.message


def test_calls_to_forbidden_functions_are_told_kindly():
    def reference(x):
        return 2 * x

    def helper_calls_reference(x):  # stands for a course function that calls another one
        return reference(x)

    cheat = run_check(lambda x: reference(x), name="double", reference=reference, cases=CASES,
                      arg_names=("x",), forbidden={"cu.double": reference})
    assert cheat.status == "wrong" and "gives the right numbers on all 3 cases" in cheat.message
    assert "`cu.double`" in cheat.message and cheat.hint.startswith("Well done")
    honest = run_check(lambda x: x + x, name="double", reference=reference, cases=CASES, arg_names=("x",),
                       forbidden={"cu.double": reference})
    assert honest.status == "correct"


def test_not_attempted_names_the_line_to_replace_and_the_lines_to_keep():
    def stub_with_return(x):
        y = 2
        # YOUR CODE HERE
        raise NotImplementedError()
        return y

    text = check_double(stub_with_return).message
    assert "Replace the line `raise NotImplementedError()` under `# YOUR CODE HERE` with your code" in text
    assert "(keep `return y` below it)" in text
    assert "(keep" not in check_double(double_stub).message


def test_not_attempted_with_two_stubs_says_each_and_keeps_only_what_follows_the_last():
    """A faded cell leaves two steps, each a stub: the report once said to replace "the line" and to keep the
    second `raise NotImplementedError()` (a learner's trial)."""
    def two_steps(x):
        # YOUR CODE HERE
        raise NotImplementedError()
        # YOUR CODE HERE
        raise NotImplementedError()
        return x

    text = check_double(two_steps).message
    assert "Replace each line `raise NotImplementedError()` under a `# YOUR CODE HERE` with your code" in text
    assert "(keep `return x` below the last)" in text and "keep `raise" not in text


# ----------------------------------------------------------------------------- tuple outputs
def test_tuple_checker_correct_and_structure_problems():
    assert check_pair(lambda x: (2 * x, x.sum())).status == "correct"
    single = check_pair(lambda x: 2 * x)
    assert single.status == "wrong"
    assert "pair should return two things, (doubled, total), but it returned a single array" in single.message
    three = check_pair(lambda x: (2 * x, x.sum(), 0))
    assert "but it returned 3 items" in three.message
    swapped = check_pair(lambda x: (x.sum(), 2 * x))
    assert "got:      doubled = 1." in swapped.message and "total = [2.]" in swapped.message


# ----------------------------------------------------------------------------- checker errors
def test_internal_error_becomes_a_short_message():
    def broken_reference(x):
        raise RuntimeError("reference exploded")

    result = run_check(lambda x: x, name="f", reference=broken_reference, cases=CASES, arg_names=("x",))
    assert result.status == "wrong" and not result
    assert result.message.startswith("Could not check f: the checker itself hit an unexpected error")
    assert "RuntimeError: reference exploded" in result.message


def test_checker_decorator_catches_bugs_in_a_checker():
    @checker("thing")
    def check_thing(fn):
        return {}["missing"]

    result = check_thing(lambda: None)
    assert isinstance(result, CheckResult)
    assert "Could not check thing" in result.message and "KeyError" in result.message


def test_run_check_in_a_checker_takes_its_name_and_mistakes_from_the_registration():
    @checker("tripled", mistakes=(KnownMistake("doubled", "Times three, not two.", reproduce=lambda x: 2 * x),))
    def check_tripled(fn):
        return run_check(fn, reference=lambda x: 3 * x, cases=CASES, arg_names=("x",))

    try:
        result = check_tripled(lambda x: x + x)
    finally:
        del CHECKERS["tripled"]
    assert result.message.startswith("Not yet right: tripled fails case 1 of 3")
    assert (result.mistake, result.hint) == ("doubled", "Times three, not two.")
    with pytest.raises(TypeError, match="run_check needs name="):
        run_check(lambda x: x, reference=lambda x: x, cases=CASES, arg_names=("x",))


# ----------------------------------------------------------------------------- display
def test_repr_str_and_bool():
    wrong = check_double(lambda x: x**2)
    assert repr(wrong) == str(wrong) == wrong.text == f"{wrong.message}\nHint: {wrong.hint}"
    right = check_double(lambda x: 2 * x)
    assert repr(right) == "Correct: all 3 cases passed."
    assert [bool(right), bool(wrong), bool(check_double(double_stub))] == [True, False, False]


@pytest.mark.parametrize(
    "fn, label, colour",
    [
        (lambda x: 2 * x, "Correct", "#2e7d32"),
        (lambda x: x**2, "Not yet right", "#c62828"),
        (double_stub, "Not attempted yet", "#8d6e00"),
    ],
)
def test_html_box_is_coloured_labelled_and_self_contained(fn, label, colour):
    page = fn and check_double(fn)._repr_html_()
    assert page.startswith("<div style=") and page.endswith("</div>")
    assert f"<strong>{label}</strong>" in page
    assert colour in page
    for remote in ("http", "<script", "src=", "<link", "<style", "class="):
        assert remote not in page


def test_html_escapes_text_and_marks_code():
    result = CheckResult("wrong", "Not yet right: got <b>bold</b>\n  x = [1, 2]", hint="use `a < b`")
    page = result._repr_html_()
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "<b>" not in page
    assert "<code" in page and "a &lt; b</code>" in page
    assert "<pre" in page and "x = [1, 2]" in page


def test_status_must_be_one_of_three():
    with pytest.raises(ValueError, match="status must be one of"):
        CheckResult("almost", "message")


@pytest.mark.parametrize(
    "value, text",
    [
        (np.array([0.66524096, 0.24472847, 0.09003057]), "[0.6652, 0.2447, 0.0900]"),
        (np.array([1000.0, 999.0, 998.0]), "[1000., 999., 998.]"),
        (np.array([np.nan, 0.5]), "[nan, 0.5]"),
        (np.array([-1e-12, 1.0]), "[0., 1.]"),
        (np.array([[1.0, -2.5], [3.0, 4.0]]), "[[ 1.0, -2.5],\n [ 3.0,  4.0]]"),
        (np.array([1, 2]), "[1, 2]"),
        (0.5, "0.5"),
        ([1.0, 2.0], "[1., 2.]"),
        ("abc", "'abc'"),
    ],
)
def test_number_formatting(value, text):
    assert fmt_value(value) == text


def test_long_arrays_are_summarised():
    assert "..." in fmt_array(np.arange(500.0))


def test_a_whole_float_reads_with_its_zero_in_a_sentence():
    """The learner trial: "largest difference 1.." (numpy's "1." then the sentence's full stop)."""
    assert fmt_value(1.0) == "1.0" and fmt_value(np.float64(2.0)) == "2.0" and fmt_value(0.9482) == "0.9482"


def test_a_check_that_is_not_its_cells_last_line_still_shows_once():
    """A new learner's trial: `check_softmax(my_softmax)` followed by another line showed nothing (the report was
    only the return value's display). In a kernel the checker displays its report as it returns; the cell's own
    display of the returned result is then skipped, so a check on the last line shows once. A checker the course
    itself calls (a Parsons problem's Check) shows nothing of its own."""
    import nbclient
    from nbformat.v4 import new_code_cell, new_notebook

    code = ("import numpy as np\nfrom course_utils.checks import check_softmax\n"
            "def s(x):\n    return np.exp(x) / np.exp(x).sum()\n")
    nb = new_notebook(cells=[new_code_cell(code + "check_softmax(s)\nx = 1"),
                             new_code_cell("for f in (s, s):\n    check_softmax(f)"),
                             new_code_cell("check_softmax(s)"),
                             new_code_cell("from course_utils.lessons import parsons\n"  # a checker the course calls
                                           "problem = parsons.get('03-masked-attention')\n"
                                           "parsons.judge(problem, list(problem.lines))[0]")],
                      metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    nbclient.NotebookClient(nb, timeout=120).execute()
    shown = [[o.get("data", {}).get("text/plain", "")[:13] for o in cell.outputs] for cell in nb.cells]
    assert shown == [["Not yet right"], ["Not yet right"] * 2, ["Not yet right"], ["True"]], shown  # not shown there
    assert 'data-check-status="wrong"' in nb.cells[2].outputs[0]["data"]["text/html"]
