"""A Parsons problem: put an exercise's given lines in order, indent them, leave the wrong ones out, press Check.

``Parsons("03-masked-attention")`` shows the problem's lines (``course_utils.lessons.parsons``, their one home) in one
list and the learner's function in another, each line a radio button, with seven buttons. The keyboard alone does it
all: Tab reaches a line, Space chooses it, Tab reaches a button, Enter or Space presses it (the lines are radio
buttons, not a select list: JupyterLab and Notebook 7 take the arrow keys to move between cells). The function so
far is shown as text.

Check says, as text: each wrong line in the function with its own feedback (the known mistake it is); else the line
Python cannot read (its indentation, most often); else how many needed lines are missing; else what the exercise's
checker says of the function on the exercise's cases, so every order that computes the right thing is accepted. The
function runs with numpy as ``np`` and nothing else, and the exercise's hint levels are left as they were; a failure
of the course's own code says so. A page without a kernel shows the lines as text, a solution folded. Tests drive
it from Python: ``use("d_k = q.shape[-1]")``, ``move(2, "up")``, ``indent(3)``, ``leave_out(0)``, ``check()``, a
position counting the body's lines from 0 (the lists number the lines as Python does: the def is line 1).
"""
from __future__ import annotations

import dataclasses
import re

import ipywidgets

from course_utils.lessons import parsons
from course_utils.widgets._base import Form
from course_utils.widgets._questions import QUESTIONS_CLASS, esc
from course_utils.widgets._questions import STYLE as RADIO_STYLE

__all__ = ["Parsons"]

#: The deepest indent a line can get (1: the body of the def).
MAX_INDENT = 3
BUTTONS = ("Use", "Leave out", "Move up", "Move down", "Indent", "Outdent", "Check")
STYLE = RADIO_STYLE + ("<style>.course-parsons .widget-radio-box label, .course-parsons pre {font-family: monospace;}"
                       " .course-parsons pre {white-space: pre-wrap; word-break: normal;}</style>")


class Parsons(Form):
    """The Parsons problem ``key`` (parsons.toml): the lines, the learner's function, the buttons, the feedback.

    Attributes
    ----------
    problem : course_utils.lessons.parsons.Problem
    given : tuple of Line
        Every line shown, right and wrong, in the list's order.
    pool, program : list
        The lines not used (indices into ``given``), and the function: ``[index into given, indent]`` per line.
    lines, function : ipywidgets.RadioButtons
        The two lists (values: an index into ``given``; a position in the function; None: none chosen).
    buttons : dict of str to ipywidgets.Button
    text, status, feedback : ipywidgets.HTML
        The function as text, what the last press did, the feedback of Check.
    """

    def __init__(self, key):
        self.problem = parsons.get(key)
        self.given = self.problem.shown()
        self.pool, self.program = list(range(len(self.given))), []
        self.lines, self.function = (ipywidgets.RadioButtons(options=[], value=None, description=label,
                                                             layout={"width": "95%"}, style={"description_width": "initial"})
                                     for label in ("Lines to use", ""))  # the function's: its heading above
        self.buttons = {name: ipywidgets.Button(description=name, layout={"width": "auto"}) for name in BUTTONS}
        at = self.function  # its value, the chosen line of the function, is read when a button is pressed
        actions = {"Use": self._use_chosen, "Leave out": lambda: self.leave_out(at.value),
                   "Move up": lambda: self.move(at.value, "up"), "Move down": lambda: self.move(at.value, "down"),
                   "Indent": lambda: self.indent(at.value, 1), "Outdent": lambda: self.indent(at.value, -1),
                   "Check": self.check}
        for name, button in self.buttons.items():
            button.on_click(lambda _, act=actions[name]: self._press(act))
        self.text, self.status, self.feedback = (ipywidgets.HTML("") for _ in range(3))
        intro = ipywidgets.HTML(
            STYLE + f"<p>Build <code>{esc(self.problem.function_name)}</code>: choose a line (Tab, Space), press "
            "<b>Use</b>, put it in place with <b>Move up</b>, <b>Move down</b>, <b>Indent</b> and <b>Outdent</b>. "
            "Some lines are wrong: leave them out. Then press <b>Check</b>.</p>")
        heading = ipywidgets.HTML(f"Your function<br><code>1. {esc(self.problem.def_line)}</code>")
        self.box = ipywidgets.VBox([intro, self.lines, ipywidgets.HBox(list(self.buttons.values())), heading,
                                    self.function, self.text, self.status, self.feedback])
        self.box.add_class("course-parsons")
        self.box.add_class(QUESTIONS_CLASS)  # radio labels as long as their text
        self._refresh()

    # ------------------------------------------------------------------ what the buttons do
    def use(self, line, at=None):
        """Move ``line`` (its code, or its position in the list) into the function at position ``at`` (default:
        after the chosen line of the function, else at the end), indented once."""
        found = [n for n in self.pool if self.given[n].code == line.strip()] if isinstance(line, str) else (
            [self.pool[line]] if isinstance(line, int) and 0 <= line < len(self.pool) else [])
        if not found:
            raise ValueError(f"{line!r} is not a line in the list (its code, or its position 0-{len(self.pool) - 1})")
        spot = self.pool.index(found[0])
        at = (len(self.program) if self.function.value is None else self.function.value + 1) if at is None else at
        self.pool.remove(found[0])
        self.program.insert(at, [found[0], 1])
        self._refresh(f"Line {at + 2} is now {self.given[found[0]].code}", chosen=at)
        self.lines.value = self.pool[min(spot, len(self.pool) - 1)] if self.pool else None  # the next one to use

    def leave_out(self, position):
        """Put line ``position`` (0-based) of the function back in the list."""
        index, _ = self.program.pop(self._position(position))
        self.pool = sorted([*self.pool, index])
        self._refresh(f"Left out: {self.given[index].code}", chosen=min(position, len(self.program) - 1))

    def move(self, position, direction):
        """Move line ``position`` of the function one place ``"up"`` or ``"down"``."""
        if direction not in ("up", "down"):
            raise ValueError(f"direction must be 'up' or 'down'; got {direction!r}")
        to = self._position(position) + (1 if direction == "down" else -1)
        if not 0 <= to < len(self.program):
            return self._refresh(f"Line {position + 2} is already the {'first' if to < 0 else 'last'}.", position)
        self.program[position], self.program[to] = self.program[to], self.program[position]
        self._refresh(f"Line {to + 2} is now {self.given[self.program[to][0]].code}", chosen=to)

    def indent(self, position, by=1):
        """Indent line ``position`` of the function ``by`` levels more (-1: outdent), between 1 and MAX_INDENT."""
        entry = self.program[self._position(position)]
        entry[1] = min(max(entry[1] + by, 1), MAX_INDENT)
        self._refresh(f"Line {position + 2} is indented {entry[1]} level{'s' * (entry[1] > 1)}.", chosen=position)

    def code(self):
        """The function assembled so far, as source."""
        return parsons.source(self.problem, self._chosen_lines())

    def check(self):
        """Judge the function (see the module docstring); the feedback as plain text, also shown under it."""
        missing = sum(not isinstance(self.given[n], parsons.Distractor) for n in self.pool)
        correct, text, hint = parsons.judge(self.problem, self._chosen_lines(), missing)
        head = "Correct" if correct else "Not yet right"
        self.feedback.value = (f"<div><b>{head}.</b><pre>{esc(text)}</pre>"
                               + (f"<p><b>Hint:</b> {esc(hint)}</p>" if hint else "") + "</div>")
        return f"{head}. {text}" + (f"\nHint: {hint}" if hint else "")

    # ------------------------------------------------------------------ the view
    def _chosen_lines(self):
        return [dataclasses.replace(self.given[index], indent=indent) for index, indent in self.program]

    def _position(self, position):
        if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position < len(self.program):
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
        self.function.options = [(f"{n + 2}. " + "\u00a0" * 4 * (indent - 1) + self.given[index].code, n)
                                 for n, (index, indent) in enumerate(self.program)]  # line 1: the def
        self.function.value = chosen if chosen is not None and 0 <= chosen < len(self.program) else None
        self.text.value = f"<p>Your function as text:</p><pre>{esc(self.code())}</pre>"
        self.status.value, self.feedback.value = (f"<p>{esc(said)}</p>" if said else ""), ""

    def static_bundle(self):
        """What a page without a kernel shows: the given lines as text, a solution folded in a <details>."""
        problem, codes = self.problem, [line.code for line in self.given]
        wrong = "".join(f"<li><code>{esc(line.code)}</code>: {_code_spans(line.feedback)}</li>"
                        for line in problem.distractors)
        page = ("<details><summary>The lines as text (for a page without a running notebook)</summary>"
                f"<p>Put these lines in order after <code>{esc(problem.def_line)}</code>; some are wrong:</p>"
                f"<pre>{esc(chr(10).join(codes))}</pre><details><summary>A solution (try first)</summary>"
                f"<pre>{esc(parsons.source(problem, problem.lines))}</pre><p>The wrong lines:</p><ul>{wrong}</ul>"
                "</details></details>")
        text = "\n".join([f"Put these lines in order after {problem.def_line} (some are wrong):",
                          *(f"  {code}" for code in codes)])
        return {"text/html": page, "text/plain": text}

    def __repr__(self):
        return (f"Parsons problem dashboard, whose controls work in a running notebook: {len(self.given)} given lines for "
                f"{self.problem.function_name}, some of them wrong, {len(self.program)} in your function (the lines "
                "are listed as text below, a solution folded).")


def _code_spans(text):
    """``text`` as HTML, its `code` spans in <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", esc(text))
