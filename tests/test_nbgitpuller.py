"""What a JupyterHub workshop (nbgitpuller) does to a course fix, measured with nbgitpuller's own merge.

nbgitpuller (``nbgitpuller.pull.GitPuller``) commits the learner's changes and merges the course with
``-Xours``: where the learner and the course changed the same lines of a notebook's JSON, the learner's win.
So a fix inside a cell the learner edited never reaches that learner, nor does a cell the course appends where
the learner appended one. A fix in ``course_utils`` (which the learner does not edit) always arrives. That is
the rule docs/instructor-guide.md gives: during a workshop, ship fixes in course_utils, not in edited cells.

The course is a bare repository in tmp_path, cloned through a file:// URL (shallow, as on a hub).
"""
from __future__ import annotations

import nbformat
import pytest
import update as U
from course_repos import (
    EXERCISE_2,
    Course,
    answer,
    append_cell,
    cells,
    files_with_conflict_markers,
    git,
    no_identity,  # noqa: F401  (a fixture)
    notebook_path,
)
from nbformat.v4 import new_markdown_cell
from nbgitpuller.pull import GitPuller

FIXED_DOCSTRING = "The weighted sum of the values: w (T,), v (T, d) -> (d,). FIXED"
HELPER_BUG = "def scale(x):\n    return x  # forgot to scale\n"
HELPER_FIX = "def scale(x):\n    return x / 2  # fixed\n"


def click_the_link(course: Course, clone) -> str:
    """What a learner's click on the nbgitpuller link runs; returns its log."""
    return "".join(GitPuller(course.url, str(clone), branch="main").pull())


@pytest.fixture
def workshop(tmp_path, no_identity, monkeypatch):  # noqa: F811
    """A learner on a hub mid-workshop: answered 01's second exercise and appended a note to 01; then the
    course ships fixes: one in that exercise cell, one appended cell, one in course_utils, one in 02."""
    monkeypatch.setenv("NBGITPULLER_DEPTH", "1")
    course = Course(tmp_path)
    (course.work / "course_utils").mkdir()
    (course.work / "course_utils" / "helpers.py").write_text(HELPER_BUG)
    course.commit("A helper")
    clone = tmp_path / "hub-home" / "course"
    click_the_link(course, clone)
    answer(clone, "01", "nb01-ex2", "return w @ v  # my answer")
    append_cell(clone, "01", "print('my note')", "my-note")

    course.change("01", {"nb01-ex2": EXERCISE_2.replace("The weighted sum of the values.", FIXED_DOCSTRING)},
                  append=new_markdown_cell("## What comes next (added during the workshop)", id="nb01-next"))
    course.change("02", {"nb02-title": "# Notebook 02, FIXED title"})
    (course.work / "course_utils" / "helpers.py").write_text(HELPER_FIX)
    course.commit("Fixes during the workshop")
    log = click_the_link(course, clone)
    return course, clone, log


def test_a_fix_in_a_cell_the_learner_edited_is_lost(workshop):
    course, clone, log = workshop
    assert "Automatic commit by nbgitpuller" in log and "merge -Xours" in log
    nb01 = cells(notebook_path(clone, "01"))
    assert "return w @ v  # my answer" in nb01["nb01-ex2"]
    assert FIXED_DOCSTRING not in nb01["nb01-ex2"]  # the course's fix in that cell: dropped
    assert FIXED_DOCSTRING in cells(course.work / "notebooks" / "01-first.ipynb")["nb01-ex2"]


def test_a_cell_appended_where_the_learner_appended_one_is_lost(workshop):
    _, clone, _ = workshop
    nb01 = cells(notebook_path(clone, "01"))
    assert "my-note" in nb01 and "nb01-next" not in nb01
    nbformat.validate(nbformat.read(notebook_path(clone, "01"), as_version=4))  # still a valid notebook


def test_a_fix_in_course_utils_arrives(workshop):
    _, clone, _ = workshop
    assert (clone / "course_utils" / "helpers.py").read_text() == HELPER_FIX


def test_a_fix_in_a_notebook_the_learner_did_not_edit_arrives(workshop):
    _, clone, _ = workshop
    assert cells(notebook_path(clone, "02"))["nb02-title"] == "# Notebook 02, FIXED title"
    assert files_with_conflict_markers(clone) == []


def test_make_update_brings_the_lost_fixes_and_keeps_the_learners_code(workshop, monkeypatch):
    """The way out for a learner on a hub: `make update` in a terminal. The fix and the appended cell
    arrive; the learner's code of the fixed cell is in the backup, their own cell stays."""
    course, clone, _ = workshop
    monkeypatch.setattr(U, "COURSE_ROOT_COMMIT", course.first_commit)
    report = U.update(clone)
    nb01 = cells(notebook_path(clone, "01"))
    assert FIXED_DOCSTRING in nb01["nb01-ex2"] and "nb01-next" in nb01 and "my-note" in nb01
    line = next(line for line in report.lines if line.path == "notebooks/01-first.ipynb")
    assert line.status == "answers carried over" and "nb01-ex2" in line.detail and "which the course changed" in line.detail
    backups = list((clone / "backups" / "notebooks").glob("01-first.*.ipynb"))
    assert any("return w @ v  # my answer" in cells(p)["nb01-ex2"] for p in backups)
    assert git(clone, "rev-parse", "HEAD") == course.head()
