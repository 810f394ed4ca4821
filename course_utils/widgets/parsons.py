"""A Parsons problem: put an exercise's given lines in order, indent them, leave the wrong ones out, press Check.

``Parsons("03-masked-attention")`` shows the problem's lines (``course_utils.lessons.parsons``, their one home) in a
list, the learner's function in another, and buttons. Everything works from the keyboard: Tab reaches a list, the
arrow keys choose a line in it, Tab reaches the buttons, Enter or Space presses one (Use, Leave out, Move up,
Move down, Indent, Outdent, Check). The function assembled so far is shown as text under the buttons.

Check says, as text: for each wrong line in the function, its own feedback (the known mistake it is); else Python's
complaint about a line it cannot read (its indentation, most often); else how many needed lines are missing; else the
exercise's checker runs the function on the exercise's cases, so every order that computes the right thing is
accepted. The function runs with numpy as ``np`` and nothing else; a failure of the course's own code says so.
A page without a kernel shows the lines as text, with a solution folded. Tests drive it from Python:
``use("d_k = q.shape[-1]")``, ``move(2, "up")``, ``indent(3)``, ``leave_out(0)``, ``check()``.
"""
from __future__ import annotations

import linecache
import re

import ipywidgets
import numpy as np

from course_utils.checks import CHECKERS, CORRECT
from course_utils.checks._levels import ATTEMPTS
from course_utils.lessons import parsons
from course_utils.widgets._base import WidgetView
from course_utils.widgets._questions import esc

__all__ = ["Parsons"]

#: The deepest indent a line can get (1: the body of the def).
MAX_INDENT = 3
BUTTONS = ("Use", "Leave out", "Move up", "Move down", "Indent", "Outdent", "Check")
STYLE = "<style>.course-parsons select, .course-parsons pre {font-family: monospace;}</style>"
NBSP = "\u00a0"


class Parsons:
    """The Parsons problem ``key`` (parsons.toml) as two lists, seven buttons, the code as text and the feedback.

    Attributes
    ----------
    problem : course_utils.lessons.parsons.Problem
    given : tuple of Line
        Every line shown, correct and wrong, in the pool's order.
    pool : list of int
        The lines not used (indices into ``given``), in the pool's order.
    program : list of [int, int]
        The learner's function: [index into ``given``, indent] per line.
    lines, function : ipywidgets.Select
        The pool and the function (values: an index into ``given``; a position in the function).
    buttons : dict of str to ipywidgets.Button
    text, status, feedback : ipywidgets.HTML
        The function as text, what the last action did, the feedback of Check.
    box : ipywidgets.VBox
    """

    def __init__(self, key):
        self.problem = parsons.get(key)
        self.given = self.problem.shown()
        self.pool, self.program = list(range(len(self.given))), []
        rows = len(self.given)
        wide = ipywidgets.Layout(width="95%")
        self.lines = ipywidgets.Select(description="Lines to use", rows=rows, layout=wide,
                                       style={"description_width": "initial"})
        self.function = ipywidgets.Select(description="Your function", rows=rows, layout=wide,
                                          style={"description_width": "initial"})
        self.buttons = {name: ipywidgets.Button(description=name, layout=ipywidgets.Layout(width="auto"))
                        for name in BUTTONS}
        actions = {"Use": self._use_chosen, "Leave out": lambda: self.leave_out(self.function.value),
                   "Move up": lambda: self.move(self.function.value, "up"),
                   "Move down": lambda: self.move(self.function.value, "down"),
                   "Indent": lambda: self.indent(self.function.value, 1),
                   "Outdent": lambda: self.indent(self.function.value, -1), "Check": self.check}
        for name, button in self.buttons.items():
            button.on_click(lambda _, act=actions[name]: self._press(act))
        self.text, self.status, self.feedback = (ipywidgets.HTML("") for _ in range(3))
        intro = ipywidgets.HTML(
            STYLE + f"<p>Build <code>{esc(self.problem.function_name)}</code> from the lines below: choose a line "
            "(arrow keys), press <b>Use</b>, put it in place with <b>Move up</b>/<b>Move down</b> and "
            "<b>Indent</b>/<b>Outdent</b>. Some lines are wrong: leave them out. Then press <b>Check</b>.</p>")
        self.box = ipywidgets.VBox([intro, self.lines, ipywidgets.HBox(list(self.buttons.values())),
                                    ipywidgets.HTML(f"<code>{esc(self.problem.def_line)}</code>"), self.function,
                                    self.text, self.status, self.feedback])
        self.box.add_class("course-parsons")
        self._refresh()

    # ------------------------------------------------------------------ the Python API (the buttons call it)
    def use(self, line, at=None):
        """Move ``line`` (its code, or its position in the pool) into the function at position ``at`` (default:
        after the chosen line of the function, else at the end), indented once."""
        index = self._given_index(line)
        at = (self.function.value + 1 if self.function.value is not None else len(self.program)) if at is None else at
        spot = self.pool.index(index)
        self.pool.remove(index)
        self.program.insert(at, [index, 1])
        self._refresh(f"Line {at + 1} is now {self.given[index].code}", chosen=at)
        self.lines.value = self.pool[min(spot, len(self.pool) - 1)] if self.pool else None  # the next line to use

    def leave_out(self, position):
        """Put line ``position`` (0-based) of the function back in the pool."""
        index, _ = self.program.pop(self._position(position))
        self.pool = sorted([*self.pool, index])
        self._refresh(f"Left out: {self.given[index].code}", chosen=min(position, len(self.program) - 1))

    def move(self, position, direction):
        """Move line ``position`` of the function one place ``"up"`` or ``"down"``."""
        position = self._position(position)
        if direction not in ("up", "down"):
            raise ValueError(f"direction must be 'up' or 'down'; got {direction!r}")
        to = position - 1 if direction == "up" else position + 1
        if not 0 <= to < len(self.program):
            return self._refresh(f"Line {position + 1} is already the {'first' if to < 0 else 'last'}.", position)
        self.program[position], self.program[to] = self.program[to], self.program[position]
        self._refresh(f"Line {to + 1} is now {self.given[self.program[to][0]].code}", chosen=to)

    def indent(self, position, by=1):
        """Indent line ``position`` of the function ``by`` levels more (-1: outdent), between 1 and MAX_INDENT."""
        entry = self.program[self._position(position)]
        entry[1] = min(max(entry[1] + by, 1), MAX_INDENT)
        self._refresh(f"Line {position + 1} is indented {entry[1]} level{'s' * (entry[1] > 1)}.", chosen=position)

    def code(self):
        """The function assembled so far, as source."""
        return parsons.source(self.problem, self._chosen_lines())

    def check(self):
        """Judge the function (see the module docstring); the feedback as plain text, also shown under it."""
        correct, text, hint = self._judge()
        head = "Correct" if correct else "Not yet right"
        self.feedback.value = (f"<div role='status'><b>{head}.</b><pre>{esc(text)}</pre>"
                               + (f"<p><b>Hint:</b> {esc(hint)}</p>" if hint else "") + "</div>")
        return f"{head}. {text}" + (f"\nHint: {hint}" if hint else "")

    # ------------------------------------------------------------------ judging
    def _judge(self):
        lines = self._chosen_lines()
        if not lines:
            return False, "Your function has no lines yet: choose one in the list and press Use.", None
        wrong = [f"Line {n}, {line.code}: {line.feedback}" for n, line in enumerate(lines, 1)
                 if isinstance(line, parsons.Distractor)]
        if wrong:
            return False, "\n".join(wrong), "Leave out the wrong line" + "s" * (len(wrong) > 1) + ", then check again."
        source = parsons.source(self.problem, lines)
        name = f"<parsons {self.problem.key}>"
        try:
            compiled = compile(source, name, "exec")
        except SyntaxError as err:
            n = min(max((err.lineno or 2) - 1, 1), len(lines))
            said = re.sub(r"line (\d+)", lambda m: f"line {int(m.group(1)) - 1}", err.msg)
            return False, f"Python cannot read line {n}, {lines[n - 1].code}: {said}.", (
                "Indent the lines that belong to the def or if above them; a line after them at the same level "
                "ends them.")
        missing = sum(1 for index in self.pool if not isinstance(self.given[index], parsons.Distractor))
        if missing:
            return False, f"{missing} more of the lines in the list are needed.", "Every right line is used once."
        try:
            result = self._run(compiled, source, name)
        except Exception as exc:  # our own code failed, not the learner's order
            return False, (f"The course could not check your order ({type(exc).__name__}: {exc}). This is a problem "
                           "in the course, not in your order: please report it."), None
        if result.status == CORRECT:
            return True, (f"Your function passes all {result.total} cases of {self.problem.exercise}'s checker. "
                          "Now write it yourself in the exercise below."), None
        return False, result.message, result.hint

    def _run(self, compiled, source, name):
        """The exercise's checker on the function (its hint levels left as they were: this is not the exercise)."""
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)  # the report shows the line
        namespace = {"np": np, "__name__": "parsons"}
        exec(compiled, namespace)  # defines the function, nothing else
        exercise = self.problem.exercise
        before = ATTEMPTS.get(exercise)
        try:
            return CHECKERS[exercise].function(namespace[self.problem.function_name])
        finally:
            ATTEMPTS.pop(exercise, None)
            if before is not None:
                ATTEMPTS[exercise] = before

    # ------------------------------------------------------------------ the view
    def _chosen_lines(self):
        return [parsons.Line(self.given[index].code, indent) if not isinstance(self.given[index], parsons.Distractor)
                else self.given[index] for index, indent in self.program]

    def _given_index(self, line):
        if isinstance(line, str):
            found = [index for index in self.pool if self.given[index].code == line.strip()]
        else:
            found = [self.pool[line]] if isinstance(line, int) and 0 <= line < len(self.pool) else []
        if not found:
            raise ValueError(f"{line!r} is not a line in the list (use its code or its position 0-{len(self.pool) - 1})")
        return found[0]

    def _position(self, position):
        if not isinstance(position, int) or not 0 <= position < len(self.program):
            raise ValueError(f"choose a line of your function first (0-{len(self.program) - 1}); got {position!r}")
        return position

    def _use_chosen(self):
        if self.lines.value is None:
            raise ValueError("choose a line in the list first")
        self.use(self.pool.index(self.lines.value))

    def _press(self, action):
        try:
            action()
        except ValueError as err:
            self.status.value = f"<p>{esc(err)}</p>"

    def _refresh(self, said="", chosen=None):
        self.lines.options = [(self.given[index].code, index) for index in self.pool]
        self.function.options = [(f"{n}. " + NBSP * 4 * (indent - 1) + self.given[index].code, n - 1)
                                 for n, (index, indent) in enumerate(self.program, 1)]
        self.function.value = chosen if chosen is not None and 0 <= chosen < len(self.program) else None
        self.text.value = f"<p>Your function as text:</p><pre>{esc(self.code())}</pre>"
        self.status.value = f"<p>{esc(said)}</p>" if said else ""
        self.feedback.value = ""

    def _ipython_display_(self):
        from IPython.display import display

        display(WidgetView(self))
        display(_StaticParsons(self))

    def close(self):
        """Close every widget of the problem."""
        for widget in [self.lines, self.function, *self.buttons.values(), self.text, self.status, self.feedback,
                       self.box]:
            widget.close()

    def __repr__(self):
        return (f"Parsons problem, whose controls work in a running notebook: {len(self.given)} given lines for "
                f"{self.problem.function_name}, some of them wrong, {len(self.program)} in your function (the lines "
                "are listed as text below, a solution folded).")


class _StaticParsons:
    """The given lines as text, a solution folded in a <details>: what a page without a kernel shows."""

    def __init__(self, owner):
        self._problem, self._given = owner.problem, owner.given

    def _text(self):
        return "\n".join([f"Put these lines in order after {self._problem.def_line} (some are wrong):",
                          *(f"  {line.code}" for line in self._given)])

    def _repr_mimebundle_(self, include=None, exclude=None):
        problem = self._problem
        wrong = "".join(f"<li><code>{esc(line.code)}</code>: {esc(line.feedback)}</li>" for line in problem.distractors)
        html = (f"<details><summary>The lines as text (for a page without a running notebook)</summary>"
                f"<p>Put these lines in order after <code>{esc(problem.def_line)}</code>; some are wrong:</p>"
                f"<pre>{esc(chr(10).join(line.code for line in self._given))}</pre>"
                f"<details><summary>A solution (try first)</summary>"
                f"<pre>{esc(parsons.source(problem, problem.lines))}</pre><p>The wrong lines:</p><ul>{wrong}</ul>"
                "</details></details>")
        return {"text/html": html, "text/plain": self._text()}
