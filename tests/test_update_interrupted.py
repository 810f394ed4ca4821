"""`make update` stopped half way (issue 25): killed right after each of its steps, and by SIGKILL at random moments.

The reports: a SIGKILL after the work was back but before a line was printed left a clean clone whose next run said
"Already up to date", the answers named nowhere (once in make test; the plan is now removed only after the report
is printed). And a SIGKILL in the 0-60 ms after the plan (``.git/course-update.json``) was written, while the learner's
changed files were being put back to the branch's version for the move, left the answers only in backups/; the next
``make update`` said "updated ...: the course's new version" and never named the copies, and twice stopped on the
``.git/index.lock`` of the killed git. Here every stop ends, after one more ``make update``, with every answer in
its notebook or in a copy the printed lines name, no lock left, and no plan left.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import update as U
from course_repos import NAMES, cells, git, no_identity, notebook_path  # noqa: F401  (a fixture)
from test_update import MY_02, MY_NOTE, MY_ROW, MY_SOFTMAX, a_learner_at_work, course_changes

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = (("01", MY_SOFTMAX), ("01", MY_ROW), ("01", MY_NOTE), ("02", MY_02))


class Killed(BaseException):
    """Stands for SIGKILL: nothing in update.py catches it, no finally-block of its own runs after it."""


@pytest.fixture
def learner(tmp_path, no_identity, monkeypatch):  # noqa: F811
    from course_repos import Course

    course = Course(tmp_path)
    monkeypatch.setattr(U, "COURSE_ROOT_COMMIT", course.first_commit)
    clone, _ = a_learner_at_work(course)
    return course, clone, course_changes(course)


def answers_lost(clone: Path, printed: str) -> list:
    """The answers that are neither in their notebook nor in a copy whose name the printed text gives."""
    named = [clone / m for m in re.findall(r"backups/[^\s,;()]+\.ipynb", printed)]
    lost = []
    for number, text in ANSWERS:
        places = [notebook_path(clone, number)] + [p for p in named if p.is_file() and NAMES[number] in p.name]
        if not any(text in source for p in places for source in cells(p).values()):
            lost.append((number, text.splitlines()[0]))
    return lost


def finish(clone: Path, capsys) -> str:
    """The learner's next `make update`: it must succeed; returns what it printed."""
    code = U.main(["--repo", str(clone)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in out + err
    return out + err


def kill_after(monkeypatch, target, name, when="after"):
    real = getattr(target, name)

    def stopped(*args, **kwargs):
        if when == "before":
            raise Killed(name)
        real(*args, **kwargs)
        raise Killed(name)

    monkeypatch.setattr(target, name, stopped)


def half_a_move(monkeypatch, clone: Path, new: str):
    """git's fast-forward killed half way: half the files it writes written, its index.lock left behind."""
    real = U._Git.run

    def run(self, *args, **kwargs):
        if args[0] in ("merge", "reset"):
            moved = real(self, "diff", "--name-only", "HEAD", new).stdout.split()
            for path in moved[: len(moved) // 2 + 1]:
                (clone / path).write_bytes(self.blob(new, path) or b"")
            (clone / ".git" / "index.lock").write_bytes(b"")
            raise Killed("git " + args[0])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(U._Git, "run", run)


STOPS = ["after the plan", "after putting files back to the branch", "git killed half way", "after the move",
         "half way through writing the work back", "after the work was back, before the learner was told"]


@pytest.mark.parametrize("stop", STOPS)
def test_an_update_stopped_after_each_step_loses_no_answer(learner, monkeypatch, capsys, stop):
    course, clone, new = learner
    journal = clone / ".git" / U.JOURNAL_NAME
    if stop == "after the plan":
        real = U.write_bytes

        def write(path, data, **kwargs):
            real(path, data, **kwargs)
            if Path(path) == journal:
                raise Killed("after the plan")

        monkeypatch.setattr(U, "write_bytes", write)
    elif stop == "after putting files back to the branch":
        kill_after(monkeypatch, U, "_restore")
    elif stop == "git killed half way":
        half_a_move(monkeypatch, clone, new)
    elif stop == "after the move":
        kill_after(monkeypatch, U, "_finish", when="before")
    elif stop == "after the work was back, before the learner was told":  # a SIGKILL seen once in make test
        kill_after(monkeypatch, U, "_finish")
    else:
        real = U.write_bytes
        written = []

        def write(path, data, **kwargs):
            if Path(path).suffix == ".ipynb" and written:
                raise Killed("second notebook")
            real(path, data, **kwargs)
            written.append(path)

        monkeypatch.setattr(U, "write_bytes", write)
    with pytest.raises(Killed):
        U.update(clone)
    assert journal.exists(), "the stop comes after the plan was written"
    monkeypatch.undo()
    monkeypatch.setattr(U, "COURSE_ROOT_COMMIT", course.first_commit)

    printed = finish(clone, capsys)
    assert answers_lost(clone, printed) == [], printed
    assert git(clone, "rev-parse", "HEAD") == new
    assert not journal.exists() and not (clone / ".git" / "index.lock").exists()
    assert git(clone, "diff", "--name-only", "--diff-filter=U") == ""
    if stop in ("after the plan", "after putting files back to the branch", "git killed half way"):
        assert "An earlier update was stopped before it moved the branch" in printed
        assert MY_ROW in cells(notebook_path(clone, "01"))["nb01-ex2"], "the answer the course did not touch"
        assert MY_02 in cells(notebook_path(clone, "02"))["nb02-ex1"]
    if stop == "after the work was back, before the learner was told":
        assert "Finished the update that was interrupted" in printed
        assert "Copies of your files as they were:" in printed, "the copies are named"
    # And a further run has nothing left to do.
    assert "Already up to date" in finish(clone, capsys)


KILLS = int(os.environ.get("COURSE_UPDATE_KILLS", "12"))  # 50 for the measure; 12 in make test


def test_sigkill_at_random_moments_loses_no_answer(learner, tmp_path, capsys):
    """SIGKILL of a real `python tools/update.py` at KILLS moments spread over an uninterrupted run's time."""
    course, clone, new = learner
    pristine = tmp_path / "pristine"
    shutil.copytree(clone, pristine, symlinks=True)
    env = dict(os.environ, PYTHONPATH=f"{ROOT / 'tools'}{os.pathsep}{ROOT}")
    script = ("import sys, update; update.COURSE_ROOT_COMMIT = sys.argv[2]; "
              "sys.exit(update.main(['--repo', sys.argv[1]]))")

    def run(folder, kill_at=None):
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", script, str(folder), course.first_commit], cwd=ROOT,
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if kill_at is not None:
            try:
                proc.wait(kill_at)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        return proc.returncode, out, time.perf_counter() - start

    timing = tmp_path / "timing"
    shutil.copytree(pristine, timing, symlinks=True)
    code, out, whole = run(timing)
    assert code == 0, out
    # Python's start-up is the first ~40 %: the moments cover the update's own steps more densely.
    moments = np.random.default_rng(25).uniform(0.3 * whole, whole, KILLS)
    outcomes = []
    for i, moment in enumerate(moments):
        folder = tmp_path / f"kill{i}"
        shutil.copytree(pristine, folder, symlinks=True)
        killed, first, _ = run(folder, kill_at=moment)
        code, printed, _ = run(folder)
        printed = first + printed  # the terminal shows both: a run killed after it printed its lines told them
        again, second, _ = run(folder)
        if answers_lost(folder, printed):
            print(f"--- killed at {moment:.3f} s (rc {killed}):", first, "--- then:", printed, sep="\n")
        outcomes.append((round(moment, 3), killed, code, answers_lost(folder, printed),
                         (folder / ".git" / "index.lock").exists(), (folder / ".git" / U.JOURNAL_NAME).exists(),
                         git(folder, "rev-parse", "HEAD") == new, "Already up to date" in second))
    bad = [o for o in outcomes if o[2] != 0 or o[3] or o[4] or o[5] or not o[6] or not o[7]]
    assert not bad, "(moment s, kill rc, rerun rc, lost answers, lock left, plan left, on new, then no-op):\n" + \
        "\n".join(map(str, bad))
    killed = sum(o[1] == -signal.SIGKILL for o in outcomes)
    print(f"{killed} of {KILLS} runs killed (an uninterrupted run: {whole:.2f} s); every answer kept")
    assert killed, "no run was killed: the moments missed the update"
