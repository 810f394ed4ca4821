"""The course's lesson content as data: text files a person edits without Python.

One TOML file per kind of content, in this folder, each with a header that says what its fields mean:

``notebooks.toml``  the notebooks of the course, in order (what the tests and tools walk: ``notebooks()``)
``myths.toml``      the *Myth or fact?* claims of the notebooks (``course_utils.lessons.myths`` reads it)
``inventory.toml``  the concept inventory's items, choices and feedback (``course_utils.lessons.inventory``)
``answers.toml``    the answer keys of the diagnosis exercises of 03 and 05 (their checkers read it; the keys stay
                    out of the notebooks' namespace)
``parsons.toml``   the Parsons problems of 03 and 04: the lines, the wrong ones and their feedback
                    (``course_utils.lessons.parsons``)
``hint_levels.toml`` each exercise's hints after the first failed check: the idea and the cell that shows it, a step,
                    where to compare with the solved notebook (``course_utils.checks._levels`` reads it)
``feedback.toml``   the checkers' generic hints, by kind of problem (``course_utils.checks._framework``)
``mistakes.toml``   the course-wide catalogue of known mistakes and the steps each exercise performs (``mistakes()``,
                    ``exercise_steps()``; the checkers build their known mistakes from it)
``hints.toml``      each exercise's own hints: its known mistakes' and its generic ones by kind of problem
                    (``course_utils.checks._catalogue`` reads it; with mistakes.toml and hint_levels.toml, every
                    hint a checker shows)

Every text is read with its line breaks as spaces (``" ".join(text.split())``), so a long text can be wrapped in
the file as it reads best.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: tomli, the same parser (pyproject.toml declares it there)
    import tomli as tomllib

__all__ = ["FOLDER", "LANGUAGE", "ContentError", "Mistake", "Notebook", "exercise_steps", "mistakes", "notebooks", "read",
           "words"]

#: The folder of the content files (inside the package: a pip install carries them).
FOLDER = Path(__file__).resolve().parent
#: The course's own language (its notebooks in solutions/; a translation's folder names its own).
LANGUAGE = "en"
#: The words a language gives in notebooks.toml's [words.<language>].
WORDS = ("objectives", "prerequisites", "time", "key_points", "myths", "verdict", "question", "answer", "predict")


class ContentError(ValueError):
    """A content file that cannot be read, or an entry that lacks what the course needs; the message names both."""


def read(name: str) -> dict:
    """The data of ``<name>.toml`` in this folder, every text's line breaks made spaces; a ContentError giving the
    path, line and column when the file is missing or not valid TOML."""
    path = FOLDER / f"{name}.toml"
    try:
        with path.open("rb") as file:
            data = tomllib.load(file)
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise ContentError(f"{path}: {err}") from None
    return _spaced(data)


def _spaced(value):
    """``value`` with every string's runs of white space (line breaks included) made one space."""
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, dict):
        return {key: _spaced(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_spaced(item) for item in value]
    return value


@dataclass(frozen=True)
class Notebook:
    """One notebook of the course, as ``notebooks.toml`` lists it: its file name without ``.ipynb`` (``stem``), the
    ``minutes`` its first cell gives, whether a workshop may leave it out (``optional``) and has ``exercises``."""


    stem: str
    minutes: int
    optional: bool = False
    exercises: bool = True

    @property
    def number(self) -> str:
        """``"01"``: how myths, the inventory and the hints name the notebook."""
        return self.stem[:2]


def notebooks() -> list[Notebook]:
    """The course's notebooks, in order (``notebooks.toml``), each checked.

    Raises
    ------
    ContentError
        An entry without a stem "NN-name" or a whole number of minutes, a field the file's header does not name,
        or a number used twice.
    """
    found = []
    for position, entry in enumerate(read("notebooks").get("notebook", []), 1):
        where = f"course_utils/content/notebooks.toml, notebook {position} ({entry.get('stem', 'no stem')})"
        unknown = sorted(set(entry) - {"stem", "minutes", "optional", "exercises"})
        if unknown:
            raise ContentError(f"{where}: unknown field(s) {unknown}")
        if not re.fullmatch(r"\d\d-[\w-]+", str(entry.get("stem", ""))):
            raise ContentError(f"{where}: stem must be the file name without .ipynb, \"NN-name\"")
        if not isinstance(entry.get("minutes"), int) or entry["minutes"] < 1:
            raise ContentError(f"{where}: minutes must be a whole number of minutes; got {entry.get('minutes')!r}")
        notebook = Notebook(entry["stem"], entry["minutes"], bool(entry.get("optional", False)),
                            bool(entry.get("exercises", True)))
        if notebook.number in (other.number for other in found):
            raise ContentError(f"{where}: the number {notebook.number} is used twice")
        found.append(notebook)
    return found


def words(language: str = LANGUAGE) -> dict:
    """The words the notebooks of ``language`` name their parts with (``notebooks.toml``'s ``[words.<language>]``).

    Raises
    ------
    ContentError
        No such table (a translation's folder without its words), or one without every word of ``WORDS``.
    """
    table = read("notebooks").get("words", {}).get(language)
    where = f"course_utils/content/notebooks.toml, [words.{language}]"
    if table is None:
        raise ContentError(f"{where}: missing; a translation in solutions/{language}/ gives the words its notebooks "
                           f"use for {', '.join(WORDS)} (see [words.{LANGUAGE}])")
    missing = [word for word in WORDS if not table.get(word)]
    if missing:
        raise ContentError(f"{where}: no {', '.join(missing)}")
    return table


@dataclass(frozen=True)
class Mistake:
    """One mistake of the catalogue (``mistakes.toml``): its ``id`` (what a checker names), the ``steps`` it belongs
    to (a tuple), the learner-facing ``hint`` and a ``description`` for maintainers."""

    id: str
    steps: tuple
    hint: str
    description: str


def exercise_steps() -> dict:
    """{exercise name: tuple of the steps its reference performs} (``mistakes.toml``'s ``[exercises]``)."""
    return {name: tuple(steps) for name, steps in read("mistakes").get("exercises", {}).items()}


def mistakes() -> dict:
    """{id: Mistake} of the catalogue, in the file's order, each checked.

    Raises
    ------
    ContentError
        An entry with a field the file's header does not name, without a hint or steps, or with a step no exercise
        performs.
    """
    known = {step for steps in exercise_steps().values() for step in steps}
    found = {}
    for name, entry in read("mistakes").get("mistake", {}).items():
        where = f"course_utils/content/mistakes.toml, mistake {name!r}"
        unknown = sorted(set(entry) - {"steps", "hint", "description"})
        if unknown:
            raise ContentError(f"{where}: unknown field(s) {unknown}")
        if not entry.get("hint") or not entry.get("steps"):
            raise ContentError(f"{where}: needs a hint and its steps")
        if not set(entry["steps"]) <= known:
            raise ContentError(f"{where}: no exercise performs the step(s) {sorted(set(entry['steps']) - known)}")
        found[name] = Mistake(name, tuple(entry["steps"]), entry["hint"], entry.get("description", ""))
    return found
