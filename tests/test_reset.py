"""Tests for tools/reset.py (`make reset NB=01`), on copies of the real notebooks in tmp_path."""

import datetime as dt
import json
import re
import shutil
import subprocess
from pathlib import Path

import build as B
import pytest
import reset as R

NOW = dt.datetime(2026, 11, 29, 14, 30, 0)
EDIT = "# my own note, which must survive a reset"


@pytest.fixture(autouse=True)
def _no_backups_in_repo(tmp_path, monkeypatch):
    """Default backups go to tmp_path, never to the real repository."""
    monkeypatch.setattr(B, "BACKUP_DIR", tmp_path / "default-backups")


@pytest.fixture
def course(tmp_path):
    """Copies of the real solutions/ with freshly generated learner notebooks; returns the three folders."""
    solutions, notebooks, backups = tmp_path / "solutions", tmp_path / "notebooks", tmp_path / "backups"
    shutil.copytree(B.SOLUTIONS_DIR, solutions)
    B.build(solutions, notebooks)
    return solutions, notebooks, backups


def first_stem(solutions):
    return sorted(p.stem for p in solutions.glob("*.ipynb"))[0]


def edit(path, text=EDIT):
    """Simulate a learner: append a code cell and save, as JupyterLab would."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["cells"].append({"cell_type": "code", "id": "mine", "metadata": {}, "execution_count": 1,
                        "outputs": [], "source": [text]})
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    return path.read_bytes()


def generated_bytes(solutions, stem, tmp_path):
    """The bytes tools/build.py writes for a fresh learner notebook."""
    out = tmp_path / "fresh" / f"{stem}.ipynb"
    out.parent.mkdir(exist_ok=True)
    B.write_notebook(B.learner_notebook(B.read_notebook(solutions / f"{stem}.ipynb"),
                                        source_name=f"{stem}.ipynb"), out)
    return out.read_bytes()


def test_reset_keeps_the_edit_in_a_backup_and_restores_the_generated_notebook(course, tmp_path):
    solutions, notebooks, backups = course
    stem = first_stem(solutions)
    target = notebooks / f"{stem}.ipynb"
    edited = edit(target)

    result = R.reset(stem[:2], solutions, notebooks, backups, now=NOW)

    assert result.status == "reset" and result.path == target
    assert result.backup == backups / f"{stem}.20261129-143000.ipynb"
    assert result.backup.read_bytes() == edited and EDIT in result.backup.read_text(encoding="utf-8")
    assert target.read_bytes() == generated_bytes(solutions, stem, tmp_path)
    assert not B.out_of_date(solutions, notebooks)
    assert str(result.backup.name) in result.message
    assert sorted(p.name for p in notebooks.iterdir()) == sorted(p.name for p in solutions.glob("*.ipynb")), \
        "no temporary file is left behind"  # (solutions/ may hold a translation's folder: notebooks/ gets none here)


def test_the_reset_notebook_is_byte_for_byte_the_committed_one(course):
    """So that `git pull` runs cleanly after `make reset` (the README says so)."""
    solutions, notebooks, backups = course
    for path in sorted(notebooks.glob("*.ipynb")):
        edit(path)
        R.reset(path.stem, solutions, notebooks, backups)
        assert path.read_bytes() == (B.NOTEBOOKS_DIR / path.name).read_bytes(), path.name


def test_repeated_resets_never_overwrite_earlier_backups(course):
    solutions, notebooks, backups = course
    stem = first_stem(solutions)
    target = notebooks / f"{stem}.ipynb"
    saved = []
    for attempt in range(3):  # same second each time: the names must still differ
        saved.append(edit(target, f"# attempt {attempt}"))
        result = R.reset(stem, solutions, notebooks, backups, now=NOW)
        assert result.status == "reset"
    expected = [backups / f"{stem}.20261129-143000{s}.ipynb" for s in ("", "-1", "-2")]
    assert sorted(backups.glob(f"{stem}.*.ipynb")) == sorted(expected)
    assert [p.read_bytes() for p in expected] == saved


def test_an_untouched_notebook_is_left_alone_without_a_backup(course):
    solutions, notebooks, backups = course
    stem = first_stem(solutions)
    before = (notebooks / f"{stem}.ipynb").stat().st_mtime_ns
    result = R.reset(stem, solutions, notebooks, backups)
    assert result.status == "unchanged" and result.backup is None
    assert (notebooks / f"{stem}.ipynb").stat().st_mtime_ns == before
    assert not backups.exists()


def test_only_run_outputs_count_as_work_too(course):
    """A notebook whose cells were only run (outputs saved) differs in bytes: it is backed up."""
    solutions, notebooks, backups = course
    stem = first_stem(solutions)
    target = notebooks / f"{stem}.ipynb"
    nb = json.loads(target.read_text(encoding="utf-8"))
    code = next(c for c in nb["cells"] if c["cell_type"] == "code")
    code["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["ran it\n"]}]
    code["execution_count"] = 1
    target.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    ran = target.read_bytes()
    result = R.reset(stem, solutions, notebooks, backups)
    assert result.status == "reset" and result.backup.read_bytes() == ran


def test_a_missing_notebook_is_created(course):
    solutions, notebooks, backups = course
    stem = first_stem(solutions)
    (notebooks / f"{stem}.ipynb").unlink()
    result = R.reset(f"{stem}.ipynb", solutions, notebooks, backups)
    assert result.status == "created" and result.backup is None
    assert not B.out_of_date(solutions, notebooks)


def test_a_broken_notebook_file_is_backed_up_byte_for_byte(course):
    solutions, notebooks, backups = course
    stem = first_stem(solutions)
    target = notebooks / f"{stem}.ipynb"
    target.write_bytes(b'{"cells": [ half a notebook')
    result = R.reset(stem, solutions, notebooks, backups)
    assert result.backup.read_bytes() == b'{"cells": [ half a notebook'
    assert not B.out_of_date(solutions, notebooks)


@pytest.mark.parametrize("damage", ["different bytes", "missing"])
def test_an_unverified_backup_leaves_the_notebook_untouched(course, monkeypatch, damage):
    solutions, notebooks, backups = course
    stem = first_stem(solutions)
    target = notebooks / f"{stem}.ipynb"
    edited = edit(target)
    real_backup = B.backup_notebook

    def faulty_backup(path, backup_dir=None, **kwargs):
        copy = real_backup(path, backup_dir, **kwargs)
        if damage == "missing":
            copy.unlink()
        else:
            copy.write_bytes(copy.read_bytes()[:-10])  # a truncated copy (disk full, ...)
        return copy

    monkeypatch.setattr(B, "backup_notebook", faulty_backup)
    with pytest.raises(R.BackupError, match="NOT replaced"):
        R.reset(stem, solutions, notebooks, backups)
    assert target.read_bytes() == edited
    monkeypatch.setattr(B, "backup_notebook", real_backup)
    code = R.main([stem, "--solutions", str(solutions), "--notebooks", str(notebooks),
                   "--backup-dir", str(backups)])
    assert code == 0 and target.read_bytes() != edited


@pytest.mark.parametrize("name", ["01", "1", "01-one-attention-row", "01-one-attention-row.ipynb",
                                  "notebooks/01-one-attention-row.ipynb", "01-one"])
def test_names_accepted(name):
    assert R.resolve_name(name) == "01-one-attention-row"


def test_no_name_explains_the_usage_and_lists_the_notebooks(capsys):
    assert R.main([]) == 2
    err = capsys.readouterr().err
    assert "make reset NB=01" in err
    for path in B.SOLUTIONS_DIR.glob("*.ipynb"):
        assert path.stem in err


def test_an_unknown_name_lists_the_notebooks(capsys):
    assert R.main(["99"]) == 2
    err = capsys.readouterr().err
    assert "no notebook '99'" in err and "make reset NB=01" in err
    for path in B.SOLUTIONS_DIR.glob("*.ipynb"):
        assert path.stem in err


def test_an_ambiguous_name_lists_the_candidates(tmp_path, capsys):
    solutions = tmp_path / "solutions"
    shutil.copytree(B.SOLUTIONS_DIR, solutions)
    stem = first_stem(solutions)
    shutil.copy(solutions / f"{stem}.ipynb", solutions / f"{stem}-copy.ipynb")
    B.build(solutions, tmp_path / "notebooks")
    code = R.main([stem[:4], "--solutions", str(solutions), "--notebooks", str(tmp_path / "notebooks")])
    assert code == 2
    err = capsys.readouterr().err
    assert "matches several notebooks" in err and stem in err and f"{stem}-copy" in err


def test_a_bad_name_among_several_resets_nothing(course, capsys):
    solutions, notebooks, backups = course
    stem = first_stem(solutions)
    edited = edit(notebooks / f"{stem}.ipynb")
    code = R.main([stem, "nonsense", "--solutions", str(solutions), "--notebooks", str(notebooks),
                   "--backup-dir", str(backups)])
    assert code == 2 and (notebooks / f"{stem}.ipynb").read_bytes() == edited
    assert not backups.exists()


def test_make_reset_runs_the_module_with_nb():
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    root = Path(B.__file__).resolve().parents[1]  # tools/build.py -> the repository
    out = subprocess.run(["make", "-n", "--no-print-directory", "reset", "NB=02"], cwd=root,
                         capture_output=True, text=True, check=True).stdout
    assert re.search(r"tools/reset\.py '?02'?$", out, re.M), out  # quoted once the Makefile quotes NB


def test_several_names_in_one_argument(course):
    """`make reset NB="01 02"` passes one quoted argument: it names two notebooks."""
    solutions, notebooks, backups = course
    stems = sorted(p.stem for p in solutions.glob("*.ipynb"))[:2]
    for stem in stems:
        edit(notebooks / f"{stem}.ipynb")
    code = R.main([f"{stems[0][:2]} {stems[1][:2]}", "--solutions", str(solutions), "--notebooks", str(notebooks),
                   "--backup-dir", str(backups)])
    assert code == 0
    assert sorted(p.name.split(".")[0] for p in backups.iterdir()) == stems
