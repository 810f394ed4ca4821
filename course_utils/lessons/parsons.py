"""The Parsons problems of 03 and 04: an exercise's lines to put in order, with wrong lines among them.

The problems have one home, ``course_utils/content/parsons.toml`` (its header says what each field means); each is
checked as it is read: a known exercise, distinct lines, every wrong line a named mistake of that exercise's
checker. The widget is ``course_utils.widgets.Parsons``; it judges an order by running the exercise's checker on it,
so any order that computes the right thing is accepted.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from course_utils import content

__all__ = ["PROBLEMS", "Distractor", "Line", "Problem", "get", "source"]

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


def _problem(entry, where):
    from course_utils.checks import CHECKERS  # the checkers import lessons: read them when a problem is read

    missing = [field for field in ("key", "notebook", "exercise", "def", "lines") if not entry.get(field)]
    if missing:
        raise content.ContentError(f"{where}: no {', '.join(missing)}")
    if entry["exercise"] not in CHECKERS:
        raise content.ContentError(f"{where}: no exercise {entry['exercise']!r} (CHECKERS names the exercises)")
    if not re.match(r"def \w+\(.*\):$", entry["def"]):
        raise content.ContentError(f"{where}: def must be the function's first line, 'def name(...):'")
    lines = tuple(Line(line["code"], int(line.get("indent", 1))) for line in entry["lines"])
    known = {mistake.name for mistake in CHECKERS[entry["exercise"]].mistakes}
    codes = {line.code for line in lines}
    distractors = []
    for wrong in entry.get("distractor", []):
        if wrong.get("mistake") not in known:
            raise content.ContentError(f"{where}: the wrong line {wrong.get('code')!r} names {wrong.get('mistake')!r}, "
                                       f"not a mistake of check_{entry['exercise']} ({sorted(known)})")
        if wrong.get("instead_of") not in codes or wrong.get("after", wrong["instead_of"]) not in codes:
            raise content.ContentError(f"{where}: the wrong line {wrong.get('code')!r}: instead_of and after must be "
                                       "lines of the problem")
        if not wrong.get("feedback"):
            raise content.ContentError(f"{where}: the wrong line {wrong.get('code')!r} has no feedback")
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
