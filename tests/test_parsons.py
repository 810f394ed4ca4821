"""The Parsons problems of 03 and 04 (issue 27): given lines to order and indent, wrong lines among them.

The content (course_utils/content/parsons.toml): every wrong line names a real mistake of its exercise's checker,
and swapped into the solution it makes that checker name that very mistake; the solution passes the checker. The
widget (course_utils.widgets.Parsons): a wrong line used shows its own feedback, a right order is accepted in every
equivalent form and a wrong one is not, an indentation error names its line, everything works through the buttons
and the lists alone (the keyboard's path), the exercise's hint levels are left alone, and a failure of the course
says so. The static view lists the lines and folds a solution; each notebook shows its problem before Exercise 3.
"""
from __future__ import annotations

import html
import re

import ipywidgets
import numpy as np
import pytest
from course_notebooks import LEARNER, SOLUTIONS
from test_content import folder, replace  # noqa: F401 - the fixture
from test_inventory import notebook

from course_utils import content
from course_utils.checks import CHECKERS, CORRECT, Checker
from course_utils.checks._levels import ATTEMPTS
from course_utils.lessons import parsons
from course_utils.widgets import Parsons
from course_utils.widgets.parsons import BUTTONS

PROBLEMS = list(parsons.PROBLEMS.values())
KEYS = [problem.key for problem in PROBLEMS]
DISTRACTORS = [(problem, wrong) for problem in PROBLEMS for wrong in problem.distractors]


def build(widget, lines):
    """Put ``lines`` (Line) into the widget's function, in order, through its Python API."""
    for line in lines:
        widget.use(line.code, at=len(widget.program))
        widget.indent(len(widget.program) - 1, line.indent - 1)
    return widget


def run(problem, lines):
    """The exercise's checker on the function ``lines`` make (numpy as np only)."""
    namespace = {"np": np}
    exec(parsons.source(problem, lines), namespace)
    return CHECKERS[problem.exercise].function(namespace[problem.function_name])


def test_03_and_04_each_have_a_problem_on_their_main_exercise():
    assert [(p.notebook, p.exercise) for p in PROBLEMS] == [("03-masks", "masked_attention"),
                                                            ("04-multi-head-attention", "multi_head_attention")]
    for problem in PROBLEMS:
        assert 2 <= len(problem.distractors) <= 3
        assert sorted(line.code for line in problem.shown()) == sorted(
            line.code for line in (*problem.lines, *problem.distractors))
        assert [line.code for line in problem.shown()][:len(problem.lines)] != [line.code for line in problem.lines]


@pytest.mark.parametrize("problem", PROBLEMS, ids=KEYS)
def test_the_given_order_passes_the_exercises_checker(problem):
    assert run(problem, problem.lines).status == CORRECT
    widget = build(Parsons(problem.key), problem.lines)
    assert widget.code() == parsons.source(problem, problem.lines)
    assert widget.check().startswith("Correct.") and "Correct" in widget.feedback.value


@pytest.mark.parametrize("problem, wrong", DISTRACTORS, ids=[f"{p.key}: {w.mistake}" for p, w in DISTRACTORS])
def test_each_wrong_line_is_a_named_mistake_and_shows_its_own_feedback(problem, wrong):
    assert wrong.mistake in {mistake.name for mistake in CHECKERS[problem.exercise].mistakes}
    program = problem.swapped(wrong)
    assert wrong in program and len(program) == len(problem.lines)
    result = run(problem, program)  # the line is that mistake: the checker names it on the swapped-in function
    assert result.status != CORRECT and result.mistake == wrong.mistake
    said = build(Parsons(problem.key), program).check()
    assert said.startswith(f"Not yet right. Line {program.index(wrong) + 2}, {wrong.code}: {wrong.feedback}")
    others = [other.feedback for other in problem.distractors if other is not wrong]
    assert not [text for text in others if text in said]


# orders other than the file's that compute the same function
EQUIVALENT = {
    "03-masked-attention": [[2, 0, 1, 3, 4, 5, 6, 7, 8],   # has_key first
                            [0, 1, 3, 2, 4, 5, 6, 7, 8]],  # has_key after the -inf line
    "04-multi-head-attention": [[2, 3, 0, 1, 4, 5, 6, 7, 8, 9, 10, 11],   # def split first
                                [0, 2, 3, 1, 4, 5, 6, 7, 8, 9, 10, 11]],  # def split before d_head
}
# orders that look right and are not
WRONG_ORDERS = {
    "03-masked-attention": [0, 1, 2, 3, 4, 5, 7, 6, 8],   # the output mixed before the weights are normalised
    "04-multi-head-attention": [0, 1, 2, 3, 4, 5, 8, 6, 7, 9, 10, 11],   # the mask after the exp
}


@pytest.mark.parametrize("problem", PROBLEMS, ids=KEYS)
def test_equivalent_orders_are_accepted_and_a_wrong_one_is_not(problem):
    for order in EQUIVALENT[problem.key]:
        assert order != list(range(len(problem.lines)))
        said = build(Parsons(problem.key), [problem.lines[n] for n in order]).check()
        assert said.startswith("Correct."), said
    said = build(Parsons(problem.key), [problem.lines[n] for n in WRONG_ORDERS[problem.key]]).check()
    assert said.startswith("Not yet right.") and "Hint:" in said
    assert not [wrong.feedback for wrong in problem.distractors if wrong.feedback in said]


def test_an_indentation_error_names_its_line_in_the_learners_numbering():
    problem = parsons.get("04-multi-head-attention")
    flat = [parsons.Line(line.code, 1) for line in problem.lines]  # the split's return not indented
    said = build(Parsons(problem.key), flat).check()
    assert said.startswith("Not yet right. Python cannot read line 5, return np.swapaxes(")
    assert "after function definition on line 4" in said
    widget = build(Parsons(problem.key), problem.lines)
    widget.indent(7, -1)  # the masked scores out of the if
    assert "cannot read line 9" in widget.check()


def test_a_name_used_before_its_line_is_said_so():
    problem = parsons.get("03-masked-attention")
    said = build(Parsons(problem.key), [problem.lines[n] for n in [1, 0, 2, 3, 4, 5, 6, 7, 8]]).check()
    assert said.startswith("Not yet right. masked_attention fails case 1 of 6") and "Not yet right: " not in said
    assert "where:    masked_attention, line 2: scores = q @ np.swapaxes(k" in said  # as the list numbers it
    assert said.endswith("Hint: The line under 'where' uses a name before the line that gives the name its value: "
                         "move that line above it.")


def test_missing_lines_are_counted_before_the_checker_runs():
    problem = parsons.get("03-masked-attention")
    said = build(Parsons(problem.key), problem.lines[:-2]).check()
    assert said.startswith("Not yet right. 2 more lines from the list are needed.")
    assert Parsons(problem.key).check().startswith("Not yet right. Your function has no lines yet")


@pytest.mark.parametrize("problem", PROBLEMS, ids=KEYS)
def test_the_keyboard_path_alone_builds_and_checks_the_function(problem):
    """What Space on a Tab-reached line (a radio button's value) and Enter on a Tab-reached button (Button.click) do,
    and nothing else. Radio buttons, not a select list: JupyterLab and Notebook 7 take the arrow keys (tests/test_browser.py
    presses the real keys)."""
    widget = Parsons(problem.key)
    assert all(isinstance(radios, ipywidgets.RadioButtons) for radios in (widget.lines, widget.function))
    assert all(isinstance(button, ipywidgets.Button) for button in widget.buttons.values())
    assert set(widget.buttons) == set(BUTTONS) and {"Use", "Move up", "Indent", "Outdent", "Leave out",
                                                    "Check"} <= set(BUTTONS)
    press = {name: button.click for name, button in widget.buttons.items()}
    index = {line.code: n for n, line in enumerate(widget.given)}
    wrong = problem.distractors[0]
    widget.lines.value = index[wrong.code]                         # arrow keys to a wrong line, Tab, Enter on Use
    press["Use"]()
    for line in problem.lines:
        widget.lines.value = index[line.code]
        press["Use"]()                                             # after the chosen line, which it then is
        for _ in range(line.indent - 1):
            press["Indent"]()
    widget.function.value = 0                                      # the wrong line, at the top, where it breaks it
    press["Check"]()
    assert "Not yet right" in widget.feedback.value and html.escape(wrong.feedback[:30]) in widget.feedback.value
    for _ in range(len(problem.lines)):                            # down to the end, after the return
        press["Move down"]()
    assert widget.program[-1][0] == index[wrong.code] and widget.function.value == len(problem.lines)
    press["Check"]()                                               # there it changes nothing: judged by what it computes
    assert "<b>Correct.</b>" in widget.feedback.value and "changes nothing" in widget.feedback.value
    press["Leave out"]()                                           # the wrong line is still the chosen one
    widget.function.value = 1
    press["Move up"]()
    press["Move down"]()                                           # and back
    widget.function.value = 0
    press["Outdent"]()                                             # the body's level is the least
    press["Check"]()
    assert "<b>Correct.</b>" in widget.feedback.value, widget.feedback.value
    assert html.escape(problem.lines[1].code) in widget.text.value  # the function as text
    assert widget.function.options[0][0] == f"2. {problem.lines[0].code}"  # numbered as Python does: 1 is the def
    widget.function.value = None
    press["Move up"]()                                             # nothing chosen: said, not raised
    assert "choose a line of your function first" in widget.status.value


def test_a_check_leaves_the_exercises_hint_levels_as_they_were():
    problem = parsons.get("03-masked-attention")
    before = ATTEMPTS.get(problem.exercise)
    widget = build(Parsons(problem.key), [problem.lines[n] for n in WRONG_ORDERS[problem.key]])
    widget.check()
    widget.check()
    assert ATTEMPTS.get(problem.exercise) == before


def test_a_failure_of_the_course_is_not_blamed_on_the_order(monkeypatch):
    problem = parsons.get("04-multi-head-attention")

    def broken(function):
        raise RuntimeError("a bug in the course")

    monkeypatch.setitem(CHECKERS, problem.exercise, Checker(problem.exercise, broken, (), "tests"))
    said = build(Parsons(problem.key), problem.lines).check()
    assert said.startswith("Not yet right. The course could not check your order") and "not in your order" in said


@pytest.mark.parametrize("problem", PROBLEMS, ids=KEYS)
def test_the_static_view_lists_the_lines_and_folds_a_solution(problem):
    widget = Parsons(problem.key)
    bundle = widget.static_bundle()
    page, text = bundle["text/html"], bundle["text/plain"]
    assert page.startswith("<details>") and "<summary>A solution (try first)</summary>" in page
    folded = page.split("<summary>A solution (try first)</summary>", 1)
    assert html.escape(parsons.source(problem, problem.lines)) in folded[1]
    assert html.escape(parsons.source(problem, problem.lines)) not in folded[0]
    for line in widget.given:
        assert html.escape(line.code) in folded[0] and line.code in text
    assert "Parsons problem" in repr(widget) and f"{len(widget.given)} given lines" in repr(widget)


@pytest.mark.parametrize("old, new, said", [
    ('mistake = "k.T on a batch"\n', '', r"the wrong line 'scores = q @ k\.T / np\.sqrt\(d_k\)' needs its mistake"),
    ('exercise = "masked_attention"', 'exercise = "masked"', r"no exercise 'masked'"),
    ('code = "d_k = v.shape[-1]"', 'code = "d_k = q.shape[-1]"', r"every line must differ"),
    ('instead_of = "d_k = q.shape[-1]"', 'instead_of = "d_k = q.shape[1]"',
     r"the wrong line 'd_k = v\.shape\[-1\]': instead_of and after must be lines"),
])
def test_a_mistake_in_the_file_is_named(folder, old, new, said):  # noqa: F811 - the fixture
    replace(folder / "parsons.toml", old, new)
    with pytest.raises(content.ContentError, match=r"parsons\.toml, problem 1 \(03-masked-attention\): " + said):
        parsons._problems()


@pytest.mark.parametrize("problem", PROBLEMS, ids=KEYS)
def test_each_notebook_shows_its_problem_right_before_exercise_3(problem):
    for folder_ in (SOLUTIONS, LEARNER):
        cells = notebook(folder_ / f"{problem.notebook}.ipynb").cells
        calls = [n for n, c in enumerate(cells) if c.cell_type == "code" and f'Parsons("{problem.key}")' in c.source]
        exercise = next(n for n, c in enumerate(cells) if c.cell_type == "markdown"
                        and re.search(r"^### Exercise 3 ·", c.source, re.M))
        before = [n for n, c in enumerate(cells) if c.cell_type == "code" and "check_" in c.source and n < exercise]
        assert len(calls) == 1 and before[-1] < calls[0] < exercise, f"{folder_.name}/{problem.notebook}"


def test_a_wrong_line_where_it_changes_nothing_is_judged_by_what_the_function_computes():
    """A new learner's trial: the line that masks the weights, put between the exponentials and the normalising line
    (the scores already masked), computes the right thing; 'every order that computes the right thing is
    accepted', so it passes, and the learner is told that the line changes nothing there."""
    problem = parsons.get("03-masked-attention")
    wrong = next(w for w in problem.distractors if w.mistake == "mask after the softmax")
    lines = list(problem.lines)
    at = next(n for n, line in enumerate(lines) if line.code.startswith("weights = np.exp(")) + 1
    lines.insert(at, wrong)
    assert run(problem, lines).status == CORRECT  # it really computes the right thing
    said = build(Parsons(problem.key), lines).check()
    assert said.startswith("Correct.") and f"Line {at + 2}, {wrong.code}, is one of the wrong lines" in said, said
    assert wrong.feedback not in said
