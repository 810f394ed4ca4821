"""Safe writes and clear errors (course_utils.safe_files) in make reset, make notebooks BUILD_ARGS=--force and
make update, on a read-only or full notebooks/ or backups/.

Each case is provoked twice:
- for real, in a private mount namespace (``unshare -m``): a tiny tmpfs that fills up, and a read-only bind
  mount (chmod does not stop root); skipped, with a message, where the machine does not allow mounting;
- by an injected OSError (always): a write that stops half way with "no space left", or a read-only folder.

Every time: the command prints one sentence naming the path and the fix, exits 1 without a traceback, leaves
the learner's notebook as it was, and leaves no partial file, no 0-byte backup and no hidden temporary file.
"""
from __future__ import annotations

import errno
import os
import shlex
import subprocess
import sys
from pathlib import Path

import build as B
import pytest
import reset as R
import update as U
from course_repos import (
    Course,
    answer,
    git,
    no_identity,  # noqa: F401  (a fixture)
    notebook_path,
    run_and_save,
    snapshot,
    write_course,
)
from nbformat.v4 import new_output
from test_update import course_changes

from course_utils import safe_files as _files

ROOT = Path(__file__).resolve().parents[1]
NAME = "01-first.ipynb"
BIG_OUTPUT = "0123456789abcdef" * 1500  # 24 kB of saved output: more than the tiny disk holds


# ---------------------------------------------------------------------------------------------
# A learner's folder: notebooks/ with a run and edited notebook 01
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def folders(tmp_path):
    course = tmp_path / "course"
    write_course(course)
    nb = B.read_notebook(course / "notebooks" / NAME)
    nb.cells[2].source = nb.cells[2].source.replace("raise NotImplementedError()", "return x  # mine")
    nb.cells[3].outputs = [new_output("stream", name="stdout", text=BIG_OUTPUT)]
    nb.cells[3].execution_count = 1
    B.write_notebook(nb, course / "notebooks" / NAME)
    return course / "solutions", course / "notebooks", tmp_path / "backups"


def reset_args(solutions, notebooks, backups):
    return ["01", "--solutions", str(solutions), "--notebooks", str(notebooks), "--backup-dir", str(backups)]


def force_args(solutions, notebooks, backups):
    return ["--force", "01", "--solutions", str(solutions), "--notebooks", str(notebooks),
            "--backup-dir", str(backups)]


def assert_one_sentence(err: str, path_fragment: str, fix_fragment: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err and lines[0].startswith(("error: cannot write", "make update: cannot write"))
    assert path_fragment in lines[0] and fix_fragment in lines[0], lines[0]


def no_leftovers(folder: Path, expected=()) -> None:
    """Only ``expected`` names in ``folder`` (and no hidden or empty file)."""
    names = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    assert names == sorted(expected), names
    for path in folder.iterdir() if folder.exists() else ():
        assert path.stat().st_size > 0, path


# ---------------------------------------------------------------------------------------------
# Injected errors (always run)
# ---------------------------------------------------------------------------------------------


def half_write_then_disk_full(fd, data):
    os.write(fd, data[: len(data) // 2])
    raise OSError(errno.ENOSPC, "No space left on device")


def test_write_bytes_leaves_nothing_behind_when_the_disk_fills(tmp_path, monkeypatch):
    target = tmp_path / "file.ipynb"
    target.write_bytes(b"the old content")
    monkeypatch.setattr(_files, "_write_all", half_write_then_disk_full)
    with pytest.raises(_files.WriteError) as info:
        _files.write_bytes(target, b"x" * 10_000)
    assert target.read_bytes() == b"the old content"
    with pytest.raises(_files.WriteError):
        _files.write_bytes(tmp_path / "new.ipynb", b"x" * 10_000, exclusive=True)
    no_leftovers(tmp_path, ["file.ipynb"])
    message = str(info.value)
    assert message.startswith("cannot write ") and "file.ipynb" in message and "no space left" in message
    assert "free some space" in message


def test_write_new_never_replaces_and_verifies(tmp_path):
    first = _files.write_new(tmp_path, "a", "20261201-000000", ".ipynb", b"one")
    second = _files.write_new(tmp_path, "a", "20261201-000000", ".ipynb", b"two")
    assert (first.name, second.name) == ("a.20261201-000000.ipynb", "a.20261201-000000-1.ipynb")
    assert (first.read_bytes(), second.read_bytes()) == (b"one", b"two")
    assert oct(first.stat().st_mode & 0o777) == oct(0o666 & ~_files._umask())
    no_leftovers(tmp_path, [first.name, second.name])


def test_write_new_never_replaces_on_a_file_system_without_hard_links(tmp_path, monkeypatch):
    def no_links(src, dst):  # FAT, some network shares
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(_files.os, "link", no_links)
    first = _files.write_new(tmp_path, "a", "20261201-000000", ".json", b"one")
    second = _files.write_new(tmp_path, "a", "20261201-000000", ".json", b"two")
    assert (first.read_bytes(), second.read_bytes()) == (b"one", b"two")
    with pytest.raises(FileExistsError):
        _files.write_bytes(first, b"three", exclusive=True)
    assert first.read_bytes() == b"one"
    no_leftovers(tmp_path, [first.name, second.name])


def test_reset_with_a_full_backups_folder(folders, monkeypatch, capsys):
    solutions, notebooks, backups = folders
    before = (notebooks / NAME).read_bytes()
    monkeypatch.setattr(_files, "_write_all", half_write_then_disk_full)
    assert R.main(reset_args(solutions, notebooks, backups)) == 1
    assert_one_sentence(capsys.readouterr().err, "backups/01-first.", "free some space")
    assert (notebooks / NAME).read_bytes() == before
    no_leftovers(backups)
    no_leftovers(notebooks, [NAME, "02-second.ipynb", "03-third.ipynb", "04-fourth.ipynb"])


def read_only(folder: Path):
    """mkstemp fails in ``folder`` as on a read-only file system; elsewhere it works."""
    real = _files.tempfile.mkstemp

    def mkstemp(*args, dir=None, **kwargs):
        if Path(dir).resolve() == folder.resolve():
            raise OSError(errno.EROFS, "Read-only file system")
        return real(*args, dir=dir, **kwargs)
    return mkstemp


def test_reset_with_a_read_only_notebooks_folder(folders, monkeypatch, capsys):
    solutions, notebooks, backups = folders
    before = (notebooks / NAME).read_bytes()
    monkeypatch.setattr(_files.tempfile, "mkstemp", read_only(notebooks))
    assert R.main(reset_args(solutions, notebooks, backups)) == 1
    err = capsys.readouterr().err
    assert_one_sentence(err, f"notebooks/{NAME}", "writable copy of the course")
    assert "is as it was; a copy is in" in err
    assert (notebooks / NAME).read_bytes() == before
    (backup,) = backups.iterdir()
    assert backup.read_bytes() == before  # the verified copy stays: it is the learner's notebook


def test_build_force_with_a_full_backups_folder(folders, monkeypatch, capsys):
    solutions, notebooks, backups = folders
    before = (notebooks / NAME).read_bytes()
    monkeypatch.setattr(_files, "_write_all", half_write_then_disk_full)
    assert B.main(force_args(solutions, notebooks, backups)) == 1
    assert_one_sentence(capsys.readouterr().err, "backups/01-first.", "not overwritten")
    assert (notebooks / NAME).read_bytes() == before
    no_leftovers(backups)


def test_build_force_with_a_read_only_notebooks_folder(folders, monkeypatch, capsys):
    solutions, notebooks, backups = folders
    before = (notebooks / NAME).read_bytes()
    monkeypatch.setattr(_files.tempfile, "mkstemp", read_only(notebooks))
    assert B.main(force_args(solutions, notebooks, backups)) == 1
    assert_one_sentence(capsys.readouterr().err, f"notebooks/{NAME}", "read-only file system")
    assert (notebooks / NAME).read_bytes() == before


@pytest.fixture
def learner(tmp_path, no_identity, monkeypatch):  # noqa: F811
    """A learner's clone with an answer in 01 and 02 run, and a course change to both."""
    course = Course(tmp_path)
    monkeypatch.setattr(U, "COURSE_ROOT_COMMIT", course.first_commit)
    clone = course.clone("learner")
    answer(clone, "01", "nb01-ex2", "return w @ v  # mine")
    run_and_save(clone, "02")
    nb = B.read_notebook(notebook_path(clone, "02"))
    nb.cells[3].outputs[0]["text"] = BIG_OUTPUT
    B.write_notebook(nb, notebook_path(clone, "02"))
    course_changes(course)
    return course, clone


def test_update_with_a_full_backups_folder_changes_nothing(learner, monkeypatch, capsys):
    _, clone = learner
    before = snapshot(clone)
    monkeypatch.setattr(_files, "_write_all", half_write_then_disk_full)
    assert U.main(["--repo", str(clone)]) == 1
    assert_one_sentence(capsys.readouterr().err, "backups/notebooks/", "nothing was updated")
    assert snapshot(clone) == before
    no_leftovers(clone / "backups" / "notebooks")


def test_update_with_a_read_only_notebooks_folder_changes_nothing(learner, monkeypatch, capsys):
    _, clone = learner
    head = git(clone, "rev-parse", "HEAD")
    notebooks_before = {p.name: p.read_bytes() for p in (clone / "notebooks").iterdir()}
    monkeypatch.setattr(_files.tempfile, "mkstemp", read_only(clone / "notebooks"))
    monkeypatch.setattr(U.tempfile, "mkstemp", read_only(clone / "notebooks"))
    assert U.main(["--repo", str(clone)]) == 1
    assert_one_sentence(capsys.readouterr().err, "notebooks", "writable copy of the course")
    assert git(clone, "rev-parse", "HEAD") == head
    assert {p.name: p.read_bytes() for p in (clone / "notebooks").iterdir()} == notebooks_before


def test_an_interrupted_update_is_finished_by_the_next_run(learner, monkeypatch, capsys):
    """The branch moved, then writing the learner's work back failed: the next make update finishes it."""
    course, clone = learner
    real = _files.write_bytes

    def fail_on_notebooks(path, data, **kwargs):
        if Path(path).parent.name == "notebooks":
            raise _files.WriteError(path, OSError(errno.ENOSPC, "No space left on device"))
        return real(path, data, **kwargs)

    monkeypatch.setattr(U, "write_bytes", fail_on_notebooks)
    assert U.main(["--repo", str(clone)]) == 1
    err = capsys.readouterr().err
    assert "run make update again: it finishes" in err and "Traceback" not in err
    assert git(clone, "rev-parse", "HEAD") == course.head()
    monkeypatch.setattr(U, "write_bytes", real)
    assert U.main(["--repo", str(clone)]) == 0
    assert "Finished the update that was interrupted" in capsys.readouterr().out
    assert "return w @ v  # mine" in notebook_path(clone, "01").read_text()
    assert not (clone / ".git" / U.JOURNAL_NAME).exists()


# ---------------------------------------------------------------------------------------------
# The real thing: a tiny tmpfs and a read-only bind mount in a private mount namespace
# ---------------------------------------------------------------------------------------------


def _unshare_prefix():
    return ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-r", "-m"]


@pytest.fixture(scope="module")
def mounts(tmp_path_factory):
    """Skip unless this machine lets the tests mount a tmpfs in a private mount namespace."""
    probe = tmp_path_factory.mktemp("mount-probe")
    try:
        proc = subprocess.run(_unshare_prefix() + ["sh", "-c", f"mount -t tmpfs -o size=4k tmpfs {probe}"],
                              capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as err:
        pytest.skip(f"cannot run unshare here ({err}); the injected-error tests above cover these cases")
    if proc.returncode != 0:
        pytest.skip("this machine does not allow mounting in a private namespace (needs root or user "
                    f"namespaces: {proc.stderr.strip()}); the injected-error tests above cover these cases")


def in_namespace(setup: str, command: list[str], inspect: list[Path], tmp_path: Path):
    """Run ``setup`` (mounts) then ``command`` in a private mount namespace; list ``inspect`` from inside."""
    listing = tmp_path / "listing.txt"
    finds = " ".join(f"find {shlex.quote(str(d))} -mindepth 1 -printf '%s %p\\n' >> {listing};" for d in inspect)
    script = f"set -e; {setup}; set +e; {shlex.join(command)}; rc=$?; {finds} exit $rc"
    proc = subprocess.run(_unshare_prefix() + ["sh", "-c", script], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    entries = {}
    for line in listing.read_text().splitlines() if listing.exists() else []:
        size, path = line.split(" ", 1)
        entries[Path(path)] = int(size)
    return proc, entries


def tiny_tmpfs(folder: Path, size="8k") -> str:
    return f"mount -t tmpfs -o size={size} tmpfs {shlex.quote(str(folder))}"


def read_only_bind(folder: Path) -> str:
    q = shlex.quote(str(folder))
    return f"mount --bind {q} {q}; mount -o remount,bind,ro {q}"


def full_tmpfs_holding(folder: Path, staging: Path) -> str:
    """``folder`` becomes a 128 kB tmpfs holding the files of ``staging``, then filled up."""
    q, s = shlex.quote(str(folder)), shlex.quote(str(staging))
    return (f"mount -t tmpfs -o size=128k tmpfs {q}; cp -p {s}/* {q}/; "
            f"(head -c 1000000 /dev/zero > {q}/zz-filler.bin 2>/dev/null || true)")


def tool(module: str, args: list[str]) -> list[str]:
    return [sys.executable, str(ROOT / "tools" / f"{module}.py"), *args]


def test_mounted_reset_on_a_full_backups_tmpfs(mounts, folders, tmp_path):
    solutions, notebooks, backups = folders
    backups.mkdir()
    before = (notebooks / NAME).read_bytes()
    proc, entries = in_namespace(tiny_tmpfs(backups), tool("reset", reset_args(solutions, notebooks, backups)),
                                 [backups], tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert_one_sentence(proc.stderr, "01-first.", "free some space")
    assert entries == {}  # no truncated backup, no 0-byte one, no hidden temporary file
    assert (notebooks / NAME).read_bytes() == before


def test_mounted_reset_on_a_read_only_notebooks_folder(mounts, folders, tmp_path):
    solutions, notebooks, backups = folders
    before = {p.name: p.read_bytes() for p in notebooks.iterdir()}
    proc, _ = in_namespace(read_only_bind(notebooks), tool("reset", reset_args(solutions, notebooks, backups)),
                           [notebooks], tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert_one_sentence(proc.stderr, NAME, "writable copy of the course")
    assert {p.name: p.read_bytes() for p in notebooks.iterdir()} == before
    assert [p.read_bytes() for p in backups.iterdir()] == [before[NAME]]  # the verified copy


def test_mounted_build_force_on_a_full_notebooks_tmpfs(mounts, folders, tmp_path):
    solutions, notebooks, backups = folders
    staging = tmp_path / "staging"
    staging.mkdir()
    for path in notebooks.iterdir():
        (staging / path.name).write_bytes(path.read_bytes())
    before = (staging / NAME).read_bytes()
    proc, entries = in_namespace(full_tmpfs_holding(notebooks, staging),
                                 tool("build", force_args(solutions, notebooks, backups)), [notebooks], tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert_one_sentence(proc.stderr, NAME, "free some space")
    assert sorted(p.name for p in entries) == sorted([*(p.name for p in staging.iterdir()), "zz-filler.bin"])
    assert entries[notebooks / NAME] == len(before)  # the learner's notebook, whole
    assert [p.read_bytes() for p in backups.iterdir()] == [before]


def test_mounted_build_force_on_a_read_only_backups_folder(mounts, folders, tmp_path):
    solutions, notebooks, backups = folders
    backups.mkdir()
    before = (notebooks / NAME).read_bytes()
    proc, entries = in_namespace(read_only_bind(backups), tool("build", force_args(solutions, notebooks, backups)),
                                 [backups], tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert_one_sentence(proc.stderr, "backups", "not overwritten")
    assert entries == {} and (notebooks / NAME).read_bytes() == before


def update_command(clone: Path) -> list[str]:
    """make update on ``clone``, taking the test course's first commit for the course's."""
    code = (f"import sys; sys.path.insert(0, {str(ROOT / 'tools')!r}); import update as U; U.COURSE_ROOT_COMMIT = sys.argv[1]; "
            "sys.exit(U.main(sys.argv[2:]))")
    root = git(clone, "rev-list", "--max-parents=0", "HEAD")
    return [sys.executable, "-c", code, root, "--repo", str(clone)]


def test_mounted_update_on_a_full_backups_tmpfs(mounts, learner, tmp_path):
    _, clone = learner
    (clone / "backups").mkdir()
    before = snapshot(clone)
    proc, entries = in_namespace(tiny_tmpfs(clone / "backups"), update_command(clone), [clone / "backups"], tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert_one_sentence(proc.stderr, "backups/notebooks/", "nothing was updated")
    # Copies that fit are whole (and verified); none is partial, empty or hidden.
    learner_files = {p.name: p.read_bytes() for p in (clone / "notebooks").iterdir()}
    for path, size in entries.items():
        if path.name != "notebooks":
            stem = path.name.split(".")[0]
            assert not path.name.startswith(".") and size == len(learner_files[f"{stem}.ipynb"]), path
    assert snapshot(clone) == before


def test_mounted_update_on_a_read_only_notebooks_folder(mounts, learner, tmp_path):
    _, clone = learner
    head = git(clone, "rev-parse", "HEAD")
    before = {p.name: p.read_bytes() for p in (clone / "notebooks").iterdir()}
    proc, _ = in_namespace(read_only_bind(clone / "notebooks"), update_command(clone), [], tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert_one_sentence(proc.stderr, "notebooks", "writable copy of the course")
    assert git(clone, "rev-parse", "HEAD") == head
    assert {p.name: p.read_bytes() for p in (clone / "notebooks").iterdir()} == before


def test_mounted_update_on_a_full_notebooks_tmpfs(mounts, learner, tmp_path):
    _, clone = learner
    notebooks = clone / "notebooks"
    staging = tmp_path / "staging"
    staging.mkdir()
    for path in notebooks.iterdir():
        (staging / path.name).write_bytes(path.read_bytes())
    head = git(clone, "rev-parse", "HEAD")
    proc, entries = in_namespace(full_tmpfs_holding(notebooks, staging), update_command(clone), [notebooks], tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert_one_sentence(proc.stderr, "notebooks", "free some space")
    assert git(clone, "rev-parse", "HEAD") == head
    for path in staging.iterdir():  # every notebook whole, nothing else but the filler
        assert entries[notebooks / path.name] == path.stat().st_size
    assert len(entries) == len(list(staging.iterdir())) + 1
