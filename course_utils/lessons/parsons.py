"""The Parsons problems of 03 and 04: an exercise's lines to put in order, with wrong lines among them.

The problems have one home, ``course_utils/content/parsons.toml`` (its header says what each field means); each is
checked as it is read: a known exercise, distinct lines, each wrong line with its mistake and its feedback (that the
mistake is one its checker names is tests/test_parsons.py's to say: a checker renaming one must not stop the
notebooks). ``judge`` judges the learner's function by running the exercise's checker on it, so any order that computes
the right thing is accepted. The widget is ``course_utils.widgets.Parsons``.
"""
from __future__ import annotations

import linecache
import random
import re
from dataclasses import dataclass

import numpy as np

from course_utils import content
from course_utils.checks import CHECKERS, CORRECT
from course_utils.checks._levels import kept

__all__ = ["PROBLEMS", "Distractor", "Line", "Problem", "get", "judge", "source"]

#: Spaces per indent level.
INDENT = 4


@dataclass(frozen=True)
class Line:
    """One given line: its code and its indent (1: the body of the def)."""

    code: str
    indent: int = 1


@dataclass(frozen=True)
class Distractor(Line):
    """A wrong line: the checker's ``mistake`` it reproduces, the ``feedback`` shown when it is used, the correct
    line it stands in for (``instead_of``) and where it would go (``after``, a correct line; None: in its place)."""

    mistake: str = ""
    feedback: str = ""
    instead_of: str = ""
    after: str | None = None


@dataclass(frozen=True)
class Problem:
    """One Parsons problem (see parsons.toml's header for the fields)."""

    key: str
    notebook: str
    exercise: str
    def_line: str
    lines: tuple
    distractors: tuple

    @property
    def function_name(self):
        return re.match(r"def (\w+)", self.def_line).group(1)

    def shown(self):
        """Every given line, correct and wrong, in the order the pool shows them: shuffled with the problem's key as
        seed (the same for everyone), never in the solution's order."""
        given = [*self.lines, *self.distractors]
        order = list(range(len(given)))
        random.Random(self.key).shuffle(order)
        if order[:len(self.lines)] == list(range(len(self.lines))):
            order = order[1:] + order[:1]
        return tuple(given[i] for i in order)

    def swapped(self, distractor):
        """The solution with ``distractor`` in place of the line it stands in for (after ``after`` if given)."""
        body = list(self.lines)
        codes = [line.code for line in body]
        if distractor.after is None:
            body[codes.index(distractor.instead_of)] = distractor
        else:
            body.insert(codes.index(distractor.after) + 1, distractor)
            body.remove(self.lines[codes.index(distractor.instead_of)])
        return body


def source(problem, lines):
    """The function's source: the def line, then each of ``lines`` (Line) indented by its level."""
    return "\n".join([problem.def_line, *(" " * INDENT * line.indent + line.code for line in lines)]) + "\n"


def judge(problem, lines, missing=0):
    """``(correct, text, hint)`` for the function ``lines`` (Line, the learner's order and indents) make, ``missing``
    right lines not used: each wrong line with its feedback; else the line Python cannot read; else the count of
    missing lines; else what the exercise's checker says of the function on its cases (numpy as ``np`` and nothing
    else in its namespace; the exercise's hint levels left as they were). A failure of the course's own code says so.
    """
    if not lines:
        return False, "Your function has no lines yet: choose one in the list and press Use.", None
    used = [(n, line) for n, line in enumerate(lines, 2) if isinstance(line, Distractor)]
    wrong = (False, "\n".join(f"Line {n}, {line.code}: {line.feedback}" for n, line in used),
             "Leave out the wrong line" + "s" * (len(used) > 1) + ", then check again.")
    code, name = source(problem, lines), f"<parsons {problem.key}>"
    try:
        compiled = compile(code, name, "exec")
    except SyntaxError as err:  # lines are numbered as Python does: 1 is the def
        if used:
            return wrong
        n = min(max(err.lineno or 2, 2), len(lines) + 1)
        return False, f"Python cannot read line {n}, {lines[n - 2].code}: {err.msg}.", (
            "Indent the lines that belong to the def or if above them; a line after them at the same level ends them.")
    if missing:
        return wrong if used else (False, f"{missing} more {'line' if missing == 1 else 'lines'} from the list "
                                          f"{'is' if missing == 1 else 'are'} needed.",
                                   "Every right line is used once.")
    try:
        result = _run(problem, compiled, code, name)
    except Exception as exc:  # the course's own code failed, not the learner's order
        return False, (f"The course could not check your order ({type(exc).__name__}: {exc}). This is a problem in "
                       "the course, not in your order: please report it."), None
    if result.status == CORRECT:  # judged by what it computes: a wrong line where it changes nothing is no error
        harmless = "".join(f" Line {n}, {line.code}, is one of the wrong lines, but where you put it, it changes "
                           "nothing." for n, line in used)
        return True, (f"Your function passes all {result.total} cases of {problem.exercise}'s checker.{harmless} "
                      "Now write it yourself in the exercise below."), None
    if used:
        return wrong
    text = result.message.removeprefix("Not yet right: ")
    if re.search(r"\b(UnboundLocalError|NameError)\b", text):  # a line put above the one defining its name
        return False, text, ("The line under 'where' uses a name before the line that gives the name its value: move "
                             "that line above it.")
    return False, text, result.hint


def _run(problem, compiled, code, name):
    """The exercise's checker on the function, the exercise's hint levels left as they were (this is not it)."""
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)  # a report shows the learner's line
    namespace = {"np": np, "__name__": "parsons"}
    exec(compiled, namespace)  # defines the function, nothing else
    with kept(problem.exercise):
        return CHECKERS[problem.exercise].function(namespace[problem.function_name])


def _problem(entry, where):
    missing = [field for field in ("key", "notebook", "exercise", "def", "lines") if not entry.get(field)]
    if missing:
        raise content.ContentError(f"{where}: no {', '.join(missing)}")
    if entry["exercise"] not in CHECKERS:
        raise content.ContentError(f"{where}: no exercise {entry['exercise']!r} (CHECKERS names the exercises)")
    if not re.match(r"def \w+\(.*\):$", entry["def"]):
        raise content.ContentError(f"{where}: def must be the function's first line, 'def name(...):'")
    lines = tuple(Line(line["code"], int(line.get("indent", 1))) for line in entry["lines"])
    codes = {line.code for line in lines}
    distractors = []
    for wrong in entry.get("distractor", []):
        if wrong.get("instead_of") not in codes or wrong.get("after", wrong["instead_of"]) not in codes:
            raise content.ContentError(f"{where}: the wrong line {wrong.get('code')!r}: instead_of and after must be "
                                       "lines of the problem")
        if not wrong.get("mistake") or not wrong.get("feedback"):  # the mistake's name: tests/test_parsons.py checks it
            raise content.ContentError(f"{where}: the wrong line {wrong.get('code')!r} needs its mistake and its feedback")
        distractors.append(Distractor(wrong["code"], int(wrong.get("indent", 1)), wrong["mistake"],
                                      wrong["feedback"], wrong["instead_of"], wrong.get("after")))
    every = [line.code for line in (*lines, *distractors)]
    if len(set(every)) != len(every) or any(line.indent < 1 for line in (*lines, *distractors)):
        raise content.ContentError(f"{where}: every line must differ from the others and have an indent of 1 or more")
    return Problem(entry["key"], entry["notebook"], entry["exercise"], entry["def"], lines, tuple(distractors))


def _problems():
    problems = {}
    for n, entry in enumerate(content.read("parsons").get("problem", []), 1):
        problem = _problem(entry, f"course_utils/content/parsons.toml, problem {n} ({entry.get('key', 'no key')})")
        if problem.key in problems:
            raise content.ContentError(f"course_utils/content/parsons.toml: the key {problem.key!r} is used twice")
        problems[problem.key] = problem
    return problems


#: key -> Problem, in the file's order.
PROBLEMS = _problems()


def get(key):
    """The problem ``key``; a KeyError naming the keys there are."""
    try:
        return PROBLEMS[key]
    except KeyError:
        raise KeyError(f"no Parsons problem {key!r}; there are {sorted(PROBLEMS)}") from None
