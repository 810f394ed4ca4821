"""The notebooks the tests walk, derived from the course's data, never from a list kept in a test.

- the course's own: ``course_utils/content/notebooks.toml``, in its order, in ``solutions/`` and ``notebooks/``;
- each translation: a folder ``solutions/<language>/`` of translated solved notebooks and its learner versions in
  ``notebooks/<language>/`` (what tools/build.py's ``translations`` builds).

A test that applies to every notebook walks ``SOLVED`` or ``ALL``; one tied to the course's own words walks
``COURSE_SOLVED`` (the instructor guide's schedule, the myths' verdict cells written from myths.toml) and finds the
words of a notebook's language with ``words(path)``.
"""
from __future__ import annotations

from pathlib import Path

import build  # tools/build.py (conftest.py puts tools/ on sys.path)

from course_utils import content

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
LEARNER = ROOT / "notebooks"

#: The course's notebooks, in order (notebooks.toml).
COURSE = content.notebooks()
COURSE_SOLVED = [SOLUTIONS / f"{notebook.stem}.ipynb" for notebook in COURSE]
COURSE_LEARNER = [LEARNER / f"{notebook.stem}.ipynb" for notebook in COURSE]
#: Every translated solved notebook, and its learner version.
TRANSLATED_SOLVED = [path for solved, _ in build.translations(SOLUTIONS, LEARNER) for path in sorted(solved.glob("*.ipynb"))]
TRANSLATED_LEARNER = [LEARNER / path.relative_to(SOLUTIONS) for path in TRANSLATED_SOLVED]
#: Every solved notebook (the course's, then the translations'), every learner notebook, and both.
SOLVED = COURSE_SOLVED + TRANSLATED_SOLVED
LEARNERS = COURSE_LEARNER + TRANSLATED_LEARNER
ALL = SOLVED + LEARNERS


def name(path: Path) -> str:
    """A notebook as a test id: ``solutions/01-one-attention-row``, ``notebooks/fr/01-one-attention-row``."""
    return path.relative_to(ROOT).with_suffix("").as_posix()


def language(path: Path) -> str:
    """A translation's folder name (``solutions/fr/...`` is ``"fr"``); else the course's own, ``"en"`` (a copy in a
    test's scratch folder too)."""
    return path.parent.name if path.parent.parent in (SOLUTIONS, LEARNER) else content.LANGUAGE


def entry(path: Path) -> content.Notebook | None:
    """The notebooks.toml entry of a notebook (a translation's: that of the notebook it translates), or None."""
    return next((notebook for notebook in COURSE if notebook.stem == path.stem), None)


def solved_of(path: Path) -> Path:
    """The solved notebook a learner notebook is generated from (the same path under solutions/)."""
    return SOLUTIONS / path.relative_to(LEARNER) if LEARNER in path.parents else path


def words(path: Path) -> dict:
    """The words a notebook's parts are named with in its language (notebooks.toml's [words.<language>])."""
    return content.words(language(path))
