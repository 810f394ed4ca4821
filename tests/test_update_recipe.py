"""The README's manual update (for a clone that has no `make update` yet), run exactly as written.

A learner without a git identity changed two notebooks that the course changed too (and ran a third), so a plain
`git pull` refuses. The README's command, run by bash in that clone, must copy every notebook, take the course's
version, and leave nothing lost; the fallback for a `main` with commits of its own must work as written too.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from course_repos import (
    NAMES,
    Course,
    answer,
    cells,
    files_with_conflict_markers,
    git,
    no_identity,  # noqa: F401  (a fixture)
    notebook_path,
    run_and_save,
)
from test_update import course_changes

README = Path(__file__).resolve().parents[1] / "README.md"
MARKER = "<!-- tests/test_update_recipe.py runs this block as it is written"


def readme_recipes() -> list[str]:
    """The bash blocks that follow the marker, in order."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(re.escape(MARKER) + r".*?-->\n```bash\n(.*?)```", text, re.S)
    assert len(blocks) == 2, "README: the manual update and its fallback, each after the marker"
    return blocks


def run(recipe: str, clone: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", recipe], cwd=clone, capture_output=True, text=True, timeout=60)


@pytest.fixture
def blocked(tmp_path, no_identity):  # noqa: F811
    """A learner whose `git pull` is refused: answers in 01 and 02, 03 run and saved; the course changed all three."""
    course = Course(tmp_path)
    clone = course.clone("learner")
    answer(clone, "01", "nb01-ex2", "return w @ v  # my answer in 01")
    answer(clone, "02", "nb02-ex1", "return np.exp(x) / np.exp(x).sum()  # my answer in 02")
    run_and_save(clone, "03")
    mine = {number: notebook_path(clone, number).read_bytes() for number in NAMES}
    course_changes(course)
    pull = subprocess.run(["git", "pull"], cwd=clone, capture_output=True, text=True)
    assert pull.returncode != 0 and "would be overwritten" in pull.stderr
    assert git(clone, "config", "user.email", check=False) == ""  # no identity
    return course, clone, mine


def test_the_manual_update_keeps_every_notebook_and_updates(blocked):
    course, clone, mine = blocked
    recipe, _ = readme_recipes()
    proc = run(recipe, clone)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert git(clone, "rev-parse", "HEAD") == course.head()
    assert git(clone, "status", "--porcelain") == ""
    (copy,) = (clone / "backups").glob("before-update-*")
    for number, data in mine.items():
        assert (copy / "notebooks" / f"{NAMES[number]}.ipynb").read_bytes() == data
        assert notebook_path(clone, number).read_bytes() == (course.work / "notebooks" /
                                                              f"{NAMES[number]}.ipynb").read_bytes()
    assert (copy / "solutions").is_dir()
    assert files_with_conflict_markers(clone) == []


def test_a_copy_that_fails_stops_before_anything_is_restored(blocked):
    course, clone, mine = blocked
    recipe, _ = readme_recipes()
    (clone / "backups").write_text("a file where the folder should be")  # mkdir -p fails
    proc = run(recipe, clone)
    assert proc.returncode != 0
    assert {n: notebook_path(clone, n).read_bytes() for n in NAMES} == mine
    assert git(clone, "rev-parse", "HEAD") != course.head()


def test_the_fallback_for_commits_of_ones_own(blocked):
    course, clone, _ = blocked
    git(clone, "commit", "--quiet", "-am", "my answers", identity=True)  # made when they had an identity
    committed = git(clone, "rev-parse", "HEAD")
    recipe, fallback = readme_recipes()
    proc = run(recipe, clone)
    assert proc.returncode != 0 and "Not possible to fast-forward" in proc.stderr  # nothing lost: it stops
    proc = run(fallback, clone)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert git(clone, "rev-parse", "HEAD") == course.head()
    assert git(clone, "rev-parse", "my-work") == committed
    shown = git(clone, "show", "my-work:notebooks/02-second.ipynb")
    assert "my answer in 02" in "".join(cells(shown.encode())["nb02-ex1"])
