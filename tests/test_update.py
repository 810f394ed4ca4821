"""`make update` (tools/update.py) against a real upstream in tmp_path.

The course is a bare repository with a maintainers' clone where the course changes; learners clone it and
have no git identity. Small synthetic notebooks (four, with ids nbNN-...) keep it fast.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import update as U
from course_repos import (
    NAMES,
    Course,
    answer,
    append_cell,
    cells,
    files_with_conflict_markers,
    git,
    no_identity,  # noqa: F401  (a fixture)
    notebook_path,
    run_and_save,
    snapshot,
)
from nbformat.v4 import new_code_cell, new_markdown_cell
from nbgitpuller.pull import GitPuller

ROOT = Path(__file__).resolve().parents[1]
MY_SOFTMAX = "e = np.exp(x - np.max(x))  # my answer to 1\n    return e / np.sum(e)"
MY_ROW = "return np.dot(w, v)  # my answer to 2"
MY_02 = "z = np.exp(x - x.max())  # my answer in 02\n    return z / z.sum()"
MY_NOTE = "# my own notes\nprint('mine')"


@pytest.fixture
def course(tmp_path, no_identity, monkeypatch):  # noqa: F811
    course = Course(tmp_path)
    monkeypatch.setattr(U, "COURSE_ROOT_COMMIT", course.first_commit)
    return course


def course_changes(course: Course) -> str:
    """What the course changes: in 01 the learner's exercise cell and cells beside it (and appends a
    cell where the learner appended one); in 02 only cells beside the learner's; 03's text; the lock."""
    course.change("01", {
        "nb01-ex1": "def my_softmax(x):\n    \"\"\"Softmax of x, along the last axis (fixed docstring).\"\"\"\n"
                    "    ### BEGIN SOLUTION\n    e = np.exp(x - x.max())\n    return e / e.sum()\n    ### END SOLUTION\n",
        "nb01-check1": "print(my_softmax(np.array([1.0, 2.0, 3.0])))  # a longer check",
        "nb01-title": "# Notebook 01, corrected",
    }, append=new_markdown_cell("## New: what comes next", id="nb01-next"))
    course.change("02", {"nb02-title": "# Notebook 02 (new intro)", "nb02-setup": "import numpy as np  # fixed"})
    course.change("03", {"nb03-end": "## Key points\n\nA corrected key point."})
    (course.work / "requirements.lock").write_text("numpy==2.3.5\n")
    return course.commit("Fixes in 01, 02 and 03; numpy 2.3.5")


def a_learner_at_work(course: Course, name="learner") -> tuple[Path, dict]:
    clone = course.clone(name)
    answer(clone, "01", "nb01-ex1", MY_SOFTMAX)
    answer(clone, "01", "nb01-ex2", MY_ROW)
    append_cell(clone, "01", MY_NOTE, "my-note")
    answer(clone, "02", "nb02-ex1", MY_02)
    saved = {"03": run_and_save(clone, "03"), "04": run_and_save(clone, "04")}
    return clone, saved


def backups_of(clone: Path, number: str) -> list[Path]:
    return sorted((clone / "backups" / "notebooks").glob(f"{NAMES[number]}.*.ipynb"))


def new_version(course: Course, number: str) -> dict:
    return cells(course.work / "notebooks" / f"{NAMES[number]}.ipynb")


# ---------------------------------------------------------------------------------------------
# The main scenario
# ---------------------------------------------------------------------------------------------


def test_update_keeps_every_answer_takes_every_course_change_and_is_idempotent(course, capsys):
    clone, saved = a_learner_at_work(course)
    old_versions = {n: cells(course.work / "notebooks" / f"{NAMES[n]}.ipynb") for n in NAMES}
    new_commit = course_changes(course)
    pull = subprocess.run(["git", "pull", "--ff-only"], cwd=clone, capture_output=True, text=True)
    assert pull.returncode != 0 and "would be overwritten" in pull.stderr  # plain git refuses
    assert git(clone, "rev-parse", "HEAD") != new_commit

    assert U.main(["--repo", str(clone)]) == 0
    out = capsys.readouterr().out

    assert git(clone, "rev-parse", "HEAD") == new_commit
    assert git(clone, "rev-parse", "--abbrev-ref", "HEAD") == "main"
    # 01: the course changed the learner's first exercise cell: the new cell, and the answer in the backup;
    # the second answer and the learner's own cell are carried; the course's appended cell is in too.
    nb01, course01 = cells(notebook_path(clone, "01")), new_version(course, "01")
    (backup01,) = backups_of(clone, "01")
    assert nb01["nb01-ex1"] == course01["nb01-ex1"]
    assert MY_SOFTMAX in cells(backup01)["nb01-ex1"]
    assert MY_ROW in nb01["nb01-ex2"] and nb01["my-note"] == MY_NOTE
    # The course's order; the learner's cell right after the cell it followed (the course's new one after it).
    assert list(nb01) == ["nb01-title", "nb01-setup", "nb01-ex1", "nb01-check1", "nb01-ex2", "nb01-end",
                          "my-note", "nb01-next"]
    assert list(course01) == [cell_id for cell_id in nb01 if cell_id != "my-note"]
    # 02: the course changed only cells beside the answer: carried.
    nb02 = cells(notebook_path(clone, "02"))
    assert MY_02 in nb02["nb02-ex1"] and len(backups_of(clone, "02")) == 1
    # 03: only run, and changed by the course: the course's new version; the outputs in the backup.
    assert notebook_path(clone, "03").read_bytes() == (course.work / "notebooks" / "03-third.ipynb").read_bytes()
    assert [b.read_bytes() for b in backups_of(clone, "03")] == [saved["03"]]
    # 04: only run, not changed by the course: as the learner had it.
    assert notebook_path(clone, "04").read_bytes() == saved["04"]

    # Every course change is in: each cell is the course's new one, except the cells that carry answers,
    # which the course did not change.
    for number in NAMES:
        now, new, old = cells(notebook_path(clone, number)), new_version(course, number), old_versions[number]
        for cell_id, source in new.items():
            assert now[cell_id] == source or old.get(cell_id) == source, (number, cell_id)
    # Every learner answer is in the new notebook or in its backup.
    for number, text in (("01", MY_SOFTMAX), ("01", MY_ROW), ("01", MY_NOTE), ("02", MY_02)):
        kept = [notebook_path(clone, number)] + backups_of(clone, number)
        assert any(text in source for p in kept for source in cells(p).values()), (number, text)
    assert files_with_conflict_markers(clone) == []
    for number in NAMES:
        nbformat.validate(nbformat.read(notebook_path(clone, number), as_version=4))
    assert (clone / "requirements.lock").read_text() == "numpy==2.3.5\n"

    lines = {line.split()[-1].rstrip(":"): line for line in out.splitlines() if line[:1].isalpha()}
    by_notebook = {n: next(line for line in out.splitlines() if f"notebooks/{NAMES[n]}.ipynb:" in line)
                   for n in NAMES}
    assert by_notebook["01"].startswith("answers carried over")
    assert "nb01-ex2" in by_notebook["01"] and "my-note" in by_notebook["01"]
    assert "not in cell nb01-ex1 `def my_softmax(x):`, which the course changed" in by_notebook["01"]
    assert "backups/notebooks/01-first." in by_notebook["01"]
    assert by_notebook["02"].startswith("answers carried over") and "nb02-ex1" in by_notebook["02"]
    assert by_notebook["03"].startswith("updated") and "only run it" in by_notebook["03"]
    assert by_notebook["04"].startswith("kept as you had it")
    assert "requirements.lock" in out and "make env" in out
    assert lines  # printed something per file
    assert "Reload Notebook from Disk" in out

    # A second run changes nothing.
    before = snapshot(clone)
    assert U.main(["--repo", str(clone)]) == 0
    assert "Already up to date" in capsys.readouterr().out
    assert snapshot(clone) == before
    # `make notebooks` now keeps the notebooks with answers (they are edited), and says so without failing.
    status = subprocess.run([sys.executable, "tools/build.py", "--solutions",
                             str(clone / "solutions"), "--notebooks", str(clone / "notebooks"),
                             "--backup-dir", str(clone / "backups" / "notebooks")],
                            cwd=ROOT, capture_output=True, text=True)
    assert status.returncode == 0, status.stderr
    assert snapshot(clone) == before


def test_nothing_new_from_the_course_changes_nothing(course, capsys):
    clone, _ = a_learner_at_work(course)
    before = snapshot(clone)
    assert U.main(["--repo", str(clone)]) == 0
    assert "Already up to date" in capsys.readouterr().out
    assert snapshot(clone) == before


def test_a_learner_who_changed_nothing_gets_the_new_version(course):
    clone = course.clone("fresh")
    new_commit = course_changes(course)
    report = U.update(clone)
    assert git(clone, "rev-parse", "HEAD") == new_commit and report.backups == []
    assert git(clone, "status", "--porcelain") == ""
    statuses = {line.path: line.status for line in report.lines}
    assert statuses == {"notebooks/01-first.ipynb": "updated", "notebooks/02-second.ipynb": "updated",
                        "notebooks/03-third.ipynb": "updated", "notebooks/04-fourth.ipynb": "unchanged"}


def test_backups_are_never_overwritten(course):
    clone, _ = a_learner_at_work(course)
    course_changes(course)
    fixed = U._dt.datetime(2026, 12, 1, 9, 0, 0)
    existing = clone / "backups" / "notebooks" / "01-first.20261201-090000.ipynb"
    existing.parent.mkdir(parents=True)
    existing.write_bytes(b"an earlier backup")
    U.update(clone, now=fixed)
    assert existing.read_bytes() == b"an earlier backup"
    assert (existing.parent / "01-first.20261201-090000-1.ipynb").exists()


def test_other_changed_files_are_kept_or_replaced_with_a_copy(course):
    clone = course.clone("tinkerer")
    (clone / "requirements.lock").write_text("numpy==1.0  # mine\n")  # the course changes it too
    (clone / ".gitignore").write_text("backups/\n.ipynb_checkpoints/\nscratch/\n")  # the course does not
    (clone / "notebooks" / "Untitled.ipynb").write_text("{}")  # not the course's: left alone
    course_changes(course)
    (course.work / "notebooks" / "05-new.ipynb").write_text("{}")  # a new file of the course...
    course.commit("A new notebook")
    (clone / "notebooks" / "05-new.ipynb").write_text("my own 05")  # ...where the learner has one of that name

    report = U.update(clone)

    statuses = {line.path: line.status for line in report.lines}
    assert statuses["requirements.lock"] == "replaced"
    assert statuses[".gitignore"] == "kept as you had it"
    assert statuses["notebooks/05-new.ipynb"] == "moved aside"
    assert (clone / "requirements.lock").read_text() == "numpy==2.3.5\n"
    assert (clone / ".gitignore").read_text().endswith("scratch/\n")
    assert (clone / "notebooks" / "Untitled.ipynb").read_text() == "{}"
    assert (clone / "notebooks" / "05-new.ipynb").read_text() == "{}"
    assert [p.read_text() for p in (clone / "backups").glob("requirements.*.lock")] == ["numpy==1.0  # mine\n"]
    assert [p.read_text() for p in (clone / "backups" / "notebooks").glob("05-new.*")] == ["my own 05"]


def test_an_unreadable_notebook_is_kept_as_backup_only(course):
    clone = course.clone("broken")
    notebook_path(clone, "01").write_text('{"cells": [ half a notebook')
    course_changes(course)
    report = U.update(clone)
    line = next(line for line in report.lines if line.path == "notebooks/01-first.ipynb")
    assert line.status == "kept as backup only" and "not readable as a notebook" in line.detail
    assert notebook_path(clone, "01").read_bytes() == (course.work / "notebooks" / "01-first.ipynb").read_bytes()
    assert [p.read_text() for p in backups_of(clone, "01")] == ['{"cells": [ half a notebook']


# ---------------------------------------------------------------------------------------------
# nbgitpuller's commits are the learner's work; any other commit stops the update
# ---------------------------------------------------------------------------------------------


def pull_with_nbgitpuller(course: Course, target: Path) -> None:
    for _ in GitPuller(course.url, str(target), branch="main").pull():
        pass


def test_commits_nbgitpuller_made_are_backed_up_and_carried(course, monkeypatch, capsys):
    monkeypatch.setenv("NBGITPULLER_DEPTH", "1")  # as on a hub: a shallow clone
    clone = course.root / "hub-learner"
    pull_with_nbgitpuller(course, clone)
    assert git(clone, "rev-parse", "--is-shallow-repository") == "true"
    answer(clone, "01", "nb01-ex2", MY_ROW)
    answer(clone, "02", "nb02-ex1", MY_02)
    course.change("02", {"nb02-title": "# Notebook 02, first fix"})
    course.commit("A first fix in 02")
    pull_with_nbgitpuller(course, clone)  # the learner clicks the link again: nbgitpuller commits and merges
    authors = git(clone, "log", "--format=%ae", "origin/main..HEAD").split()
    assert authors and set(authors) == {U.NBGITPULLER_EMAIL}
    committed01 = notebook_path(clone, "01").read_bytes()
    answer(clone, "01", "nb01-ex1", MY_SOFTMAX)  # more work, not committed
    new_commit = course_changes(course)

    assert U.main(["--repo", str(clone)]) == 0
    out = capsys.readouterr().out

    assert git(clone, "rev-parse", "HEAD") == new_commit  # main is the course's commit: nbgitpuller's are gone
    assert git(clone, "rev-parse", "--is-shallow-repository") == "false"  # the history, to check the root
    assert git(clone, "log", "--format=%ae", f"{new_commit}..HEAD") == ""
    nb01, nb02 = cells(notebook_path(clone, "01")), cells(notebook_path(clone, "02"))
    assert MY_ROW in nb01["nb01-ex2"] and MY_02 in nb02["nb02-ex1"]
    assert nb02["nb02-title"] == "# Notebook 02 (new intro)"
    assert any(MY_SOFTMAX in cells(p)["nb01-ex1"] for p in backups_of(clone, "01"))
    committed_copies = list((clone / "backups" / "notebooks").glob("01-first.nbgitpuller-commit.*.ipynb"))
    assert [p.read_bytes() for p in committed_copies] == [committed01]
    assert "answers carried over" in out
    assert files_with_conflict_markers(clone) == []
    before = snapshot(clone)
    assert U.main(["--repo", str(clone)]) == 0 and snapshot(clone) == before


def test_a_learner_commit_of_their_own_stops_the_update_and_says_how_to_keep_it(course, capsys):
    clone, _ = a_learner_at_work(course)
    git(clone, "commit", "--quiet", "-am", "my answers", identity=True)  # a learner who has an identity
    answer(clone, "03", "nb03-ex1", "return x  # not committed")
    course_changes(course)
    before = snapshot(clone)

    assert U.main(["--repo", str(clone)]) == 1

    err = capsys.readouterr().err
    assert "my answers" in err and "git branch my-work-" in err and "git reset --soft" in err
    assert "nothing was changed" in err and "Traceback" not in err
    assert snapshot(clone) == before and not (clone / "backups").exists()


def test_the_advice_for_own_commits_works(course, capsys):
    """Follow the printed commands: the commits stay on a branch, and make update carries their answers."""
    clone, _ = a_learner_at_work(course)
    git(clone, "commit", "--quiet", "-am", "my answers", identity=True)
    course_changes(course)
    assert U.main(["--repo", str(clone)]) == 1
    commands = [line.strip().split("  ")[0] for line in capsys.readouterr().err.splitlines()
                if line.strip().startswith("git ")]
    for command in commands:
        git(clone, *command.split()[1:])
    assert U.main(["--repo", str(clone)]) == 0
    assert MY_02 in cells(notebook_path(clone, "02"))["nb02-ex1"]
    assert git(clone, "log", "--format=%s", "-1", commands[0].split()[-1]) == "my answers"


# ---------------------------------------------------------------------------------------------
# Refusals: nothing is changed, and the message says why and what to do
# ---------------------------------------------------------------------------------------------


def refused(clone: Path, capsys) -> str:
    before = snapshot(clone)
    assert U.main(["--repo", str(clone)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Nothing was changed" in err or "nothing was changed" in err
    assert snapshot(clone) == before
    return err


def test_refuses_a_repository_that_is_not_the_course(course, monkeypatch, capsys):
    clone, _ = a_learner_at_work(course)
    course_changes(course)
    monkeypatch.setattr(U, "COURSE_ROOT_COMMIT", U.COURSE_ROOT_COMMIT.__class__("f" * 40))
    err = refused(clone, capsys)
    assert "not a clone of the course" in err and course.first_commit[:7] in err


def test_the_course_root_commit_is_this_repositorys_first_commit():
    if git(ROOT, "rev-parse", "--is-shallow-repository") == "true":
        pytest.skip("this checkout is shallow: its first commit is not known here")
    assert git(ROOT, "rev-list", "--max-parents=0", "HEAD") == U.COURSE_ROOT_COMMIT


def test_refuses_a_folder_that_is_not_a_clone(tmp_path, capsys):
    assert U.main(["--repo", str(tmp_path)]) == 1
    assert "is not a git clone" in capsys.readouterr().err


def test_refuses_a_detached_head(course, capsys):
    clone, _ = a_learner_at_work(course)
    course_changes(course)
    git(clone, "checkout", "--quiet", "--detach")
    assert "HEAD is detached" in refused(clone, capsys)


def test_refuses_without_an_upstream(course, capsys):
    clone, _ = a_learner_at_work(course)
    course_changes(course)
    git(clone, "branch", "--unset-upstream")
    assert "--set-upstream-to=origin/main" in refused(clone, capsys)
    git(clone, "remote", "remove", "origin")
    assert "no remote" in refused(clone, capsys)


def test_refuses_while_a_merge_is_under_way(course, capsys):
    clone = course.clone("merging")
    git(clone, "checkout", "--quiet", "-b", "other")
    answer(clone, "02", "nb02-ex1", "return 1")
    git(clone, "commit", "--quiet", "-am", "one side", identity=True)
    git(clone, "checkout", "--quiet", "main")
    answer(clone, "02", "nb02-ex1", "return 2")
    git(clone, "commit", "--quiet", "-am", "other side", identity=True)
    git(clone, "merge", "other", check=False, identity=True)
    assert (clone / ".git" / "MERGE_HEAD").exists()
    course_changes(course)
    assert "git merge --abort" in refused(clone, capsys)


def test_refuses_unresolved_conflicts_of_a_stash_pop(course, capsys):
    clone = course.clone("stasher")
    answer(clone, "02", "nb02-ex1", "return 1")
    git(clone, "stash", "--quiet")
    course_changes(course)
    git(clone, "pull", "--quiet", "--ff-only")
    answer(clone, "02", "nb02-ex1", "return 2")
    git(clone, "add", "-A")
    git(clone, "commit", "--quiet", "-m", "x", identity=True)  # the same lines changed on both sides
    git(clone, "stash", "pop", check=False)
    assert git(clone, "diff", "--name-only", "--diff-filter=U")
    err = refused(clone, capsys)
    assert "unresolved conflicts" in err and "git stash list" in err


def test_refuses_when_the_course_cannot_be_fetched(course, capsys):
    clone, _ = a_learner_at_work(course)
    git(clone, "remote", "set-url", "origin", str(course.root / "gone.git"))
    assert "cannot fetch the course" in refused(clone, capsys)


def test_make_update_target_runs_the_module():
    """The Makefile line (added by the Makefile's owner): `make -n update` runs this module, then `make env`."""
    makefile = (ROOT / "Makefile").read_text()
    if "\nupdate:" not in makefile:
        pytest.skip("the Makefile has no `update` target yet (issue 13: the lines are in the report)")
    out = subprocess.run(["make", "-n", "--no-print-directory", "update"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    assert "tools/update.py" in out and "env" in out


# ---------------------------------------------------------------------------------------------
# merge_notebook on its own
# ---------------------------------------------------------------------------------------------


def nb_bytes(*cells_):
    return nbformat.writes(nbformat.v4.new_notebook(cells=list(cells_))).encode()


def test_merge_cells_by_id():
    base = nb_bytes(new_code_cell("a = 1", id="a"), new_code_cell("raise NotImplementedError()", id="ex"),
                    new_code_cell("c = 1", id="c"))
    mine = nb_bytes(new_code_cell("raise NotImplementedError()", id="ex"),  # moved up, answered below
                    new_code_cell("a = 1", id="a"), new_code_cell("c = 2  # mine", id="c"),
                    new_code_cell("mine = 1", id="m"))
    mine = mine.replace(b"raise NotImplementedError()", b"return 42")
    new = nb_bytes(new_code_cell("a = 2", id="a"), new_code_cell("raise NotImplementedError()", id="ex"),
                   new_code_cell("c = 3", id="c"), new_code_cell("d = 1", id="d"))
    result = U.merge_notebook(base, mine, new)
    got = {c.id: c.source for c in result.notebook.cells}
    assert [c.id for c in result.notebook.cells] == ["a", "ex", "c", "m", "d"]
    assert got == {"a": "a = 2", "ex": "return 42", "c": "c = 3", "m": "mine = 1", "d": "d = 1"}
    assert result.carried == ["ex"] and result.added == ["m"] and result.lost == [("c", "the course changed this cell")]


def test_merge_only_outputs_and_a_clashing_id():
    base = nb_bytes(new_code_cell("a = 1", id="a"))
    ran = json.loads(base)
    ran["cells"][0]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "1\n"}]
    ran["cells"][0]["execution_count"] = 1
    assert U.merge_notebook(base, json.dumps(ran).encode(), base).only_outputs
    mine = nb_bytes(new_code_cell("a = 1", id="a"), new_code_cell("mine", id="x"))
    new = nb_bytes(new_code_cell("a = 1", id="a"), new_code_cell("course's", id="x"))
    merged = U.merge_notebook(base, mine, new).notebook
    assert [(c.id, c.source) for c in merged.cells] == [("a", "a = 1"), ("x-mine", "mine"), ("x", "course's")]


def test_the_environment_sentence_says_who_rebuilds_it(monkeypatch):
    report = U.UpdateReport("a" * 40, "b" * 40, environment_changed=["requirements.lock"])
    monkeypatch.setenv("MAKELEVEL", "1")  # run by `make update`, whose next step is `make env`
    assert "make update now rebuilds the environment" in report.text()
    monkeypatch.delenv("MAKELEVEL")
    assert "rebuild the environment with `make env`" in report.text()


def test_on_a_hub_every_message_names_the_module_not_make(monkeypatch, tmp_path, capsys):
    """On a JupyterHub there is no `make update` (and `make` would build a .venv the hub never uses): the
    messages name `python tools/update.py`, and a changed lock goes to the hub's admin."""
    report = U.UpdateReport("a" * 40, "b" * 40, environment_changed=["requirements.lock"])
    monkeypatch.delenv("MAKELEVEL", raising=False)
    monkeypatch.setenv("JUPYTERHUB_USER", "learner-1")
    text = report.text()
    assert "make" not in text.replace("makes", "") and "tell your instructor" in text
    assert U.main(["--repo", str(tmp_path)]) == 1  # not a clone: refused, with the command to run again
    err = capsys.readouterr().err
    assert err.startswith("python tools/update.py: ") and "make" not in err
    monkeypatch.delenv("JUPYTERHUB_USER")
    assert U.main(["--repo", str(tmp_path)]) == 1
    assert capsys.readouterr().err.startswith("make update: ")
