"""Tests for tools/build.py, the learner-notebook generator.

All in tmp_path: small notebooks, and copies of the real solved notebook 01 and of a learner notebook
from git history (tests/data/).
"""

import ast
import datetime as dt
import json
import re
import shutil
from pathlib import Path

import build as B
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

SOLVED_FUNCTION = '''\
import numpy as np

def normalise(x):
    """Scale x to unit sum."""
    x = np.asarray(x, dtype=float)
    ### BEGIN SOLUTION
    total = x.sum()
    return x / total
    ### END SOLUTION
'''


@pytest.fixture(autouse=True)
def _no_backups_in_repo(tmp_path, monkeypatch):
    """Default backups go to tmp_path, never to the real repository."""
    monkeypatch.setattr(B, "BACKUP_DIR", tmp_path / "default-backups")


def solved_notebook(extra_source="x = 1"):
    cells = [
        new_markdown_cell("# Title\n\n### BEGIN SOLUTION stays in markdown\n"),
        new_code_cell(SOLVED_FUNCTION, execution_count=1, outputs=[],
                      metadata={"execution": {"iopub.execute_input": "2026-11-29T10:00:00Z"}}),
        new_code_cell("print(normalise([1, 3]))", execution_count=2,
                      outputs=[new_output("stream", name="stdout", text="[0.25 0.75]\n")],
                      metadata={"tags": ["nbval-check-output"], "ExecuteTime": {"end_time": "x"}}),
        new_code_cell(extra_source),
    ]
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    return nb


@pytest.fixture
def course(tmp_path):
    """A solutions/ folder with two solved notebooks and an empty notebooks/ path."""
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    nbformat.write(solved_notebook(), solutions / "01-first.ipynb")
    nbformat.write(solved_notebook("y = 2"), solutions / "02-second.ipynb")
    return solutions, tmp_path / "notebooks", tmp_path / "backups"


def run_cells(path):
    """Simulate a learner running every cell: outputs, execution counts, timings, widget state."""
    nb = nbformat.read(path, as_version=4)
    for count, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        cell.execution_count = count + 1
        cell.outputs = [new_output("stream", name="stdout", text=f"ran {count}\n")]
        cell.metadata["execution"] = {"shell.execute_reply": "2026-11-30T09:00:00Z"}
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    nbformat.write(nb, path)


def edit_cell(path, index, source):
    nb = nbformat.read(path, as_version=4)
    nb.cells[index].source = source
    nbformat.write(nb, path)


# ---------------------------------------------------------------------------------------------
# strip_solutions
# ---------------------------------------------------------------------------------------------


def test_region_replaced_by_placeholder_and_rest_kept():
    source = "a = 1\n### BEGIN SOLUTION\nb = a + 1\n### END SOLUTION\nprint(b)"
    assert B.strip_solutions(source) == (
        "a = 1\n# YOUR CODE HERE\nraise NotImplementedError()\nprint(b)"
    )


def test_placeholder_takes_the_indentation_of_the_begin_marker():
    source = "def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n"
    assert B.strip_solutions(source) == (
        "def f():\n    # YOUR CODE HERE\n    raise NotImplementedError()\n"
    )


def test_several_regions_in_one_cell_and_trailing_whitespace_on_markers():
    source = (
        "### BEGIN SOLUTION  \nx = 1\n### END SOLUTION\n"
        "keep = True\n"
        "for i in range(2):\n\t### BEGIN SOLUTION\n\tpass\n\t### END SOLUTION\n"
    )
    assert B.strip_solutions(source) == (
        "# YOUR CODE HERE\nraise NotImplementedError()\n"
        "keep = True\n"
        "for i in range(2):\n\t# YOUR CODE HERE\n\traise NotImplementedError()\n"
    )


def test_source_without_markers_is_unchanged():
    source = "x = 1  # ### BEGIN SOLUTION is not alone on its line\ny = '### END SOLUTION'\n"
    assert B.strip_solutions(source) == source


@pytest.mark.parametrize("source, fragment", [
    ("### BEGIN SOLUTION\nx = 1\n", "line 1: '### BEGIN SOLUTION' is never closed"),
    ("x = 1\n### END SOLUTION\n", "line 2: '### END SOLUTION' without a matching"),
    ("### BEGIN SOLUTION\n### BEGIN SOLUTION\nx\n### END SOLUTION\n", "line 2: '### BEGIN SOLUTION' inside"),
    ("## BEGIN SOLUTION\nx = 1\n## END SOLUTION\n", "line 1: '## BEGIN SOLUTION' looks like a solution marker"),
    ("### end solution\n", "looks like a solution marker"),
])
def test_malformed_markers_are_errors(source, fragment):
    with pytest.raises(B.SolutionMarkerError) as info:
        B.strip_solutions(source)
    assert fragment in str(info.value)


def test_learner_version_of_a_function_compiles_and_raises_not_implemented():
    learner_source = B.strip_solutions(SOLVED_FUNCTION)
    ast.parse(learner_source)
    namespace = {}
    exec(compile(learner_source, "<learner>", "exec"), namespace)
    with pytest.raises(NotImplementedError):
        namespace["normalise"]([1, 3])
    # The solved version itself works, so the region was the only difference.
    solved = {}
    exec(SOLVED_FUNCTION, solved)
    assert list(solved["normalise"]([1, 3])) == [0.25, 0.75]


# ---------------------------------------------------------------------------------------------
# learner_notebook
# ---------------------------------------------------------------------------------------------


def test_learner_notebook_strips_outputs_and_volatile_metadata_keeps_tags_ids_markdown():
    solved = solved_notebook()
    before = json.dumps(solved, sort_keys=True)
    learner = B.learner_notebook(solved, source_name="01-first.ipynb")

    assert json.dumps(solved, sort_keys=True) == before, "the solved notebook must not be modified"
    assert [c.id for c in learner.cells] == [c.id for c in solved.cells]
    assert learner.cells[0] == solved.cells[0]  # markdown untouched, marker text included
    for cell in learner.cells[1:]:
        assert cell.outputs == [] and cell.execution_count is None
        assert "execution" not in cell.metadata and "ExecuteTime" not in cell.metadata
    assert learner.cells[2].metadata["tags"] == ["nbval-check-output"]
    assert "### BEGIN SOLUTION" not in learner.cells[1].source
    assert "raise NotImplementedError()" in learner.cells[1].source
    assert "widgets" not in learner.metadata
    assert learner.metadata["kernelspec"] == solved.metadata["kernelspec"]
    record = learner.metadata["course_build"]
    assert record["source"] == "01-first.ipynb"
    assert record["fingerprint"] == B.fingerprint(learner)
    assert re.fullmatch(r"v1:sha256:[0-9a-f]{64}", record["fingerprint"])


def test_malformed_marker_error_names_notebook_and_cell():
    solved = solved_notebook(extra_source="### BEGIN SOLUTION\nz = 3\n")
    with pytest.raises(B.SolutionMarkerError) as info:
        B.learner_notebook(solved, source_name="03-broken.ipynb")
    message = str(info.value)
    assert "03-broken.ipynb" in message and "cell 4" in message and "never closed" in message


def test_fingerprint_ignores_outputs_but_not_sources():
    learner = B.learner_notebook(solved_notebook(), "01-first.ipynb")
    ran = nbformat.from_dict(json.loads(json.dumps(learner)))
    ran.cells[1].outputs = [new_output("stream", name="stdout", text="hi\n")]
    ran.cells[1].execution_count = 7
    assert B.fingerprint(ran) == B.fingerprint(learner)
    assert B.has_learner_edits(ran) is False
    ran.cells[1].source += "\n# my note"
    assert B.has_learner_edits(ran) is True
    del ran.metadata["course_build"]
    assert B.has_learner_edits(ran) is None


# ---------------------------------------------------------------------------------------------
# fingerprint versions
# ---------------------------------------------------------------------------------------------

#: notebooks/01-one-attention-row.ipynb exactly as commit 7dde366 generated it (`git show
#: 7dde366:notebooks/01-one-attention-row.ipynb`): a learner's copy from before fingerprints had a
#: version, recording "sha256:<hex>". Stored as .json so that ruff and nbval leave it alone.
OLD_LEARNER = Path(__file__).parent / "data" / "learner-01-one-attention-row.7dde366.ipynb.json"
OLD_NAME = "01-one-attention-row.ipynb"


def old_learner():
    return B.read_notebook(OLD_LEARNER)


def learner_ran(nb):
    """A copy of `nb` after a learner ran every cell and JupyterLab saved it."""
    ran = nbformat.from_dict(json.loads(json.dumps(nb)))
    for count, cell in enumerate((c for c in ran.cells if c.cell_type == "code"), start=1):
        cell.execution_count = count
        cell.outputs = [new_output("stream", name="stdout", text=f"ran {count}\n")]
        cell.metadata["execution"] = {"shell.execute_reply": "2026-11-30T09:00:00Z"}
    ran.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    return ran


def an_edit(nb):
    """A copy of `nb` with the learner's answer in its first exercise cell."""
    edited = nbformat.from_dict(json.loads(json.dumps(nb)))
    cell = next(c for c in edited.cells if "raise NotImplementedError()" in c.source)
    cell.source = cell.source.replace("raise NotImplementedError()", "return my_answer")
    return edited


def with_fingerprint(nb, value):
    copy = nbformat.from_dict(json.loads(json.dumps(nb)))
    copy.metadata["course_build"]["fingerprint"] = value
    return copy


def test_versions():
    nb = solved_notebook()
    assert B.fingerprint(nb) == f"v{B.FINGERPRINT_VERSION}:" + B._body(nb) and B.FINGERPRINT_VERSION == 1
    body = "sha256:" + "ab" * 32
    assert B.parse_fingerprint(body) == body == B.parse_fingerprint("v1:" + body)


def test_old_learner_notebook_unedited_is_not_edited():
    old = old_learner()
    recorded = old.metadata["course_build"]["fingerprint"]
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", recorded)  # no version: it reads as version 1
    assert B.parse_fingerprint(recorded) == recorded
    assert B.has_learner_edits(old) is False
    assert B.has_learner_edits(learner_ran(old)) is False  # running and saving is not an edit


def test_old_learner_notebook_edited_is_edited():
    old = old_learner()
    assert B.has_learner_edits(an_edit(old)) is True
    assert B.has_learner_edits(learner_ran(an_edit(old))) is True
    for change in ("delete", "append", "move"):
        changed = nbformat.from_dict(json.loads(json.dumps(old)))
        if change == "delete":
            del changed.cells[-1]
        elif change == "append":
            changed.cells.append(new_code_cell("my_note = 1"))
        else:
            changed.cells[1], changed.cells[2] = changed.cells[2], changed.cells[1]
        assert B.has_learner_edits(changed) is True, change


@pytest.fixture
def course_01(tmp_path):
    """solutions/ holding today's solved notebook 01 (the real one), and an empty notebooks/."""
    solutions, notebooks = tmp_path / "solutions", tmp_path / "notebooks"
    solutions.mkdir()
    notebooks.mkdir()
    shutil.copy(B.SOLUTIONS_DIR / OLD_NAME, solutions / OLD_NAME)
    return solutions, notebooks, tmp_path / "backups"


def test_build_updates_an_unedited_old_learner_notebook(course_01):
    """What a learner's saved notebook 01 from commit 7dde366 meets in `make notebooks` today."""
    solutions, notebooks, backups = course_01
    B.write_notebook(learner_ran(old_learner()), notebooks / OLD_NAME)

    (result,) = B.build(solutions, notebooks, backup_dir=backups)

    assert result.status == "updated", result.message
    assert not backups.exists()
    new = B.read_notebook(notebooks / OLD_NAME)
    assert new.metadata["course_build"]["fingerprint"] == B.fingerprint(new)
    assert new.metadata["course_build"]["fingerprint"].startswith("v1:sha256:")
    assert B.out_of_date(solutions, notebooks) == []


def test_build_keeps_an_edited_old_learner_notebook(course_01, capsys):
    solutions, notebooks, backups = course_01
    B.write_notebook(learner_ran(an_edit(old_learner())), notebooks / OLD_NAME)
    before = (notebooks / OLD_NAME).read_bytes()

    status = B.main(["--solutions", str(solutions), "--notebooks", str(notebooks), "--backup-dir", str(backups)])

    assert status == 0  # skipping a learner's work is what the build should do: not an error
    assert (notebooks / OLD_NAME).read_bytes() == before
    assert "edited since it was generated, so not overwritten" in capsys.readouterr().out


def test_notebook_generated_before_versions_with_unchanged_cells_is_updated(course):
    """A learner notebook from the commit before versions (same cells, "sha256:<hex>") is not edited."""
    solutions, notebooks, backups = course
    B.build(solutions, notebooks, backup_dir=backups)
    path = notebooks / "01-first.ipynb"
    current = B.read_notebook(path)
    unversioned = current.metadata["course_build"]["fingerprint"].removeprefix("v1:")
    B.write_notebook(learner_ran(with_fingerprint(current, unversioned)), path)
    assert B.has_learner_edits(B.read_notebook(path)) is False
    assert [p.name for p in B.out_of_date(solutions, notebooks)] == ["01-first"]
    assert "metadata.course_build" in str(B.out_of_date(solutions, notebooks)[0])

    results = {r.name: r.status for r in B.build(solutions, notebooks, backup_dir=backups)}

    assert results == {"01-first": "updated", "02-second": "unchanged"}
    assert B.read_notebook(path).metadata["course_build"]["fingerprint"] == "v1:" + unversioned
    assert not backups.exists()


@pytest.mark.parametrize("recorded, why", [
    ("v2:sha256:" + "0" * 64, "has format version 2, which this course does not know (it reads version 1)"),
    ("v99:blake3:abc", "has format version 99, which this course does not know"),
    ("sha256:not-hex", "is not a valid version 1 fingerprint"),
    ("v1:md5:" + "0" * 32, "is not a valid version 1 fingerprint"),
    (42, "is not a string"),
])
def test_unreadable_fingerprint_is_reported_not_taken_for_an_edit(recorded, why):
    nb = with_fingerprint(B.learner_notebook(solved_notebook(), "01-first.ipynb"), recorded)
    with pytest.raises(B.UnknownFingerprint, match=re.escape(why)) as info:
        B.has_learner_edits(nb)
    assert info.value.fingerprint == recorded
    with pytest.raises(B.UnknownFingerprint):
        B.fingerprint_matches(nb, recorded)


def test_build_leaves_a_notebook_of_an_unknown_version_alone_and_says_why(course, capsys):
    solutions, notebooks, backups = course
    B.build(solutions, notebooks, backup_dir=backups)
    path = notebooks / "01-first.ipynb"
    B.write_notebook(with_fingerprint(B.read_notebook(path), "v3:sha512:" + "0" * 128), path)
    edit_cell(solutions / "01-first.ipynb", 3, "x = 42")
    before = path.read_bytes()
    common = ["--solutions", str(solutions), "--notebooks", str(notebooks), "--backup-dir", str(backups)]

    assert B.main(common) == 0
    assert path.read_bytes() == before
    out = capsys.readouterr().out
    assert "01-first.ipynb" in out and "format version 3" in out and "newer version of the course" in out
    assert "whether it was edited cannot be told, so not overwritten" in out and "--force 01-first" in out

    (result,) = B.build(solutions, notebooks, force=True, names=["01"], backup_dir=backups)
    assert result.status == "overwritten" and "unreadable fingerprint" in result.message
    assert result.backup.read_bytes() == before
    assert B.read_notebook(path).cells[3].source == "x = 42"


# ---------------------------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------------------------


def test_build_creates_learner_notebooks_with_same_names(course):
    solutions, notebooks, backups = course
    results = B.build(solutions, notebooks, backup_dir=backups)
    assert [(r.name, r.status) for r in results] == [("01-first", "created"), ("02-second", "created")]
    learner = nbformat.read(notebooks / "01-first.ipynb", as_version=4)
    assert "raise NotImplementedError()" in learner.cells[1].source
    assert all(c.get("outputs", []) == [] for c in learner.cells)
    nbformat.validate(learner)


def test_build_output_is_deterministic(course, tmp_path):
    solutions, notebooks, backups = course
    B.build(solutions, notebooks, backup_dir=backups)
    B.build(solutions, tmp_path / "again", backup_dir=backups)
    for name in ("01-first.ipynb", "02-second.ipynb"):
        first = (notebooks / name).read_bytes()
        assert first == (tmp_path / "again" / name).read_bytes()
        assert first.endswith(b"\n") and b"2026-11-29" not in first  # no timings carried over
    again = B.build(solutions, notebooks, backup_dir=backups)
    assert {r.status for r in again} == {"unchanged"}


def test_build_updates_unedited_notebook_when_solution_changes(course):
    solutions, notebooks, backups = course
    B.build(solutions, notebooks, backup_dir=backups)
    edit_cell(solutions / "01-first.ipynb", 3, "x = 42")
    results = {r.name: r.status for r in B.build(solutions, notebooks, backup_dir=backups)}
    assert results == {"01-first": "updated", "02-second": "unchanged"}
    assert nbformat.read(notebooks / "01-first.ipynb", as_version=4).cells[3].source == "x = 42"
    assert not backups.exists()


def test_edited_learner_notebook_is_not_overwritten_without_force(course, capsys):
    solutions, notebooks, backups = course
    B.build(solutions, notebooks, backup_dir=backups)
    edit_cell(notebooks / "01-first.ipynb", 3, "my_answer = 1")
    edit_cell(solutions / "01-first.ipynb", 3, "x = 42")
    before = (notebooks / "01-first.ipynb").read_bytes()

    status = B.main(["--solutions", str(solutions), "--notebooks", str(notebooks),
                     "--backup-dir", str(backups)])

    assert status == 0, "`make notebooks` that only skipped a learner's notebook is not an error"
    assert (notebooks / "01-first.ipynb").read_bytes() == before
    assert not backups.exists()
    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if "01-first.ipynb" in line]  # one line per skipped notebook
    assert line.startswith("skipped") and "edited" in line
    assert 'make notebooks BUILD_ARGS="--force 01-first"' in line


def test_force_overwrites_after_backup_holding_the_learners_edit(course):
    solutions, notebooks, backups = course
    B.build(solutions, notebooks, backup_dir=backups)
    edit_cell(notebooks / "01-first.ipynb", 3, "my_answer = 1")

    results = {r.name: r for r in B.build(solutions, notebooks, force=True, backup_dir=backups)}

    assert results["01-first"].status == "overwritten"
    assert results["02-second"].status == "unchanged"
    backup = results["01-first"].backup
    assert backup.parent == backups
    assert re.fullmatch(r"01-first\.\d{8}-\d{6}\.ipynb", backup.name)
    assert nbformat.read(backup, as_version=4).cells[3].source == "my_answer = 1"
    assert nbformat.read(notebooks / "01-first.ipynb", as_version=4).cells[3].source == "x = 1"
    assert B.out_of_date(solutions, notebooks) == []


def test_force_uses_default_backup_folder(course):
    solutions, notebooks, _ = course
    B.build(solutions, notebooks)
    edit_cell(notebooks / "02-second.ipynb", 3, "mine = 1")
    (result,) = B.build(solutions, notebooks, force=True, names=["02"])
    assert result.status == "overwritten" and result.backup.parent == B.BACKUP_DIR
    assert nbformat.read(result.backup, as_version=4).cells[3].source == "mine = 1"


def test_running_cells_is_not_an_edit(course):
    solutions, notebooks, backups = course
    B.build(solutions, notebooks, backup_dir=backups)
    run_cells(notebooks / "01-first.ipynb")
    ran = (notebooks / "01-first.ipynb").read_bytes()

    # Solution unchanged: the learner's outputs are left alone and check() is satisfied.
    assert {r.name: r.status for r in B.build(solutions, notebooks, backup_dir=backups)}["01-first"] == "unchanged"
    assert (notebooks / "01-first.ipynb").read_bytes() == ran
    assert B.out_of_date(solutions, notebooks) == []

    # Solution changed: the notebook is updated (not skipped) with no --force needed.
    edit_cell(solutions / "01-first.ipynb", 3, "x = 42")
    results = {r.name: r.status for r in B.build(solutions, notebooks, backup_dir=backups)}
    assert results["01-first"] == "updated"
    assert nbformat.read(notebooks / "01-first.ipynb", as_version=4).cells[3].source == "x = 42"


def test_notebook_without_fingerprint_is_protected_only_if_its_cells_differ(course):
    solutions, notebooks, backups = course
    B.build(solutions, notebooks, backup_dir=backups)
    for name, source in (("01-first.ipynb", None), ("02-second.ipynb", "hand edit")):
        nb = nbformat.read(notebooks / name, as_version=4)
        del nb.metadata["course_build"]
        if source:
            nb.cells[3].source = source
        nbformat.write(nb, notebooks / name)
    results = {r.name: r.status for r in B.build(solutions, notebooks, backup_dir=backups)}
    assert results == {"01-first": "updated", "02-second": "skipped"}


def test_malformed_markers_write_nothing(course):
    solutions, notebooks, backups = course
    nbformat.write(solved_notebook("### END SOLUTION"), solutions / "03-broken.ipynb")
    with pytest.raises(B.SolutionMarkerError, match=r"03-broken\.ipynb, cell 4"):
        B.build(solutions, notebooks, backup_dir=backups)
    assert not notebooks.exists() or list(notebooks.iterdir()) == []


def test_names_restrict_the_build(course):
    solutions, notebooks, backups = course
    results = B.build(solutions, notebooks, names=["solutions/02-second.ipynb"], backup_dir=backups)
    assert [r.name for r in results] == ["02-second"]
    assert sorted(p.name for p in notebooks.iterdir()) == ["02-second.ipynb"]
    with pytest.raises(B.UsageError, match="matches no notebook"):
        B.build(solutions, notebooks, names=["99-nothing"], backup_dir=backups)
    with pytest.raises(B.UsageError, match="matches several"):
        B.build(solutions, notebooks, names=["0"], backup_dir=backups)


def test_orphan_learner_notebook_is_left_alone(course):
    solutions, notebooks, backups = course
    B.build(solutions, notebooks, backup_dir=backups)
    (solutions / "02-second.ipynb").unlink()
    results = {r.name: r.status for r in B.build(solutions, notebooks, backup_dir=backups)}
    assert results == {"01-first": "unchanged", "02-second": "orphan"}
    assert (notebooks / "02-second.ipynb").exists()


# ---------------------------------------------------------------------------------------------
# backup_notebook
# ---------------------------------------------------------------------------------------------


def test_backup_never_overwrites_an_existing_backup(tmp_path):
    notebook = tmp_path / "01-first.ipynb"
    when = dt.datetime(2026, 11, 29, 14, 5, 9)
    paths = []
    for content in (b"first", b"second", b"third"):
        notebook.write_bytes(content)
        paths.append(B.backup_notebook(notebook, tmp_path / "bk", now=when))
    assert [p.name for p in paths] == [
        "01-first.20261129-140509.ipynb",
        "01-first.20261129-140509-1.ipynb",
        "01-first.20261129-140509-2.ipynb",
    ]
    assert [p.read_bytes() for p in paths] == [b"first", b"second", b"third"]


# ---------------------------------------------------------------------------------------------
# check and main
# ---------------------------------------------------------------------------------------------


def test_check_up_to_date(course, capsys):
    solutions, notebooks, backups = course
    B.build(solutions, notebooks, backup_dir=backups)
    assert B.out_of_date(solutions, notebooks) == []
    assert B.main(["--up-to-date", "--solutions", str(solutions), "--notebooks", str(notebooks)]) == 0
    assert "learner notebooks are up to date (2 notebooks)" in capsys.readouterr().out


def test_check_reports_missing_stale_and_orphan_and_writes_nothing(course, capsys):
    solutions, notebooks, backups = course
    B.build(solutions, notebooks, backup_dir=backups)
    (notebooks / "02-second.ipynb").unlink()
    edit_cell(solutions / "01-first.ipynb", 3, "x = 42")
    (notebooks / "00-old.ipynb").write_text((notebooks / "01-first.ipynb").read_text())
    nbformat.write(solved_notebook(), solutions / "03-third.ipynb")
    snapshot = {p.name: p.read_bytes() for p in notebooks.iterdir()}

    problems = B.out_of_date(solutions, notebooks)
    assert sorted((p.name, p.kind) for p in problems) == [
        ("00-old", "orphan"), ("01-first", "stale"), ("02-second", "missing"), ("03-third", "missing"),
    ]
    assert "cell 4 source differs" in next(str(p) for p in problems if p.kind == "stale")

    assert B.main(["--check", "--solutions", str(solutions), "--notebooks", str(notebooks)]) == 1
    out = capsys.readouterr().out
    for name in ("00-old.ipynb", "01-first.ipynb", "02-second.ipynb", "03-third.ipynb"):
        assert name in out
    assert {p.name: p.read_bytes() for p in notebooks.iterdir()} == snapshot


def test_check_detects_changed_tags(course):
    solutions, notebooks, backups = course
    B.build(solutions, notebooks, backup_dir=backups)
    nb = nbformat.read(solutions / "02-second.ipynb", as_version=4)
    nb.cells[3].metadata["tags"] = ["raises-exception"]
    nbformat.write(nb, solutions / "02-second.ipynb")
    assert [(p.name, p.kind) for p in B.out_of_date(solutions, notebooks)] == [("02-second", "stale")]


def test_main_exit_codes(course, capsys):
    solutions, notebooks, backups = course
    common = ["--solutions", str(solutions), "--notebooks", str(notebooks), "--backup-dir", str(backups)]
    assert B.main(common) == 0
    assert "2 notebooks: 2 created" in capsys.readouterr().out
    assert B.main(common + ["99-nothing"]) == 2
    assert B.main(["--check", "--force"] + common) == 2
    assert B.main(["--solutions", str(solutions / "missing")]) == 2
    assert B.main(["--no-such-option"]) == 2
    nbformat.write(solved_notebook("### BEGIN SOLUTION"), solutions / "03-broken.ipynb")
    assert B.main(common) == 2
    assert "03-broken.ipynb, cell 4" in capsys.readouterr().err


def test_execute_solutions_stores_outputs_and_regenerates(course):
    solutions, notebooks, backups = course
    (solutions / "data.txt").write_text("from the solutions folder")
    cells = [new_code_cell("print(open('data.txt').read())"),
             new_code_cell("### BEGIN SOLUTION\nanswer = 6 * 7\n### END SOLUTION\nanswer")]
    nbformat.write(new_notebook(cells=cells), solutions / "01-first.ipynb")
    failing = new_notebook(cells=[new_code_cell("1 / 0")])
    nbformat.write(failing, solutions / "02-second.ipynb")
    failing_bytes = (solutions / "02-second.ipynb").read_bytes()

    status = B.main(["--execute-solutions", "--solutions", str(solutions),
                     "--notebooks", str(notebooks), "--backup-dir", str(backups)])

    assert status == 1  # 02 failed
    assert (solutions / "02-second.ipynb").read_bytes() == failing_bytes
    executed = nbformat.read(solutions / "01-first.ipynb", as_version=4)
    assert executed.cells[0].outputs[0]["text"] == "from the solutions folder\n"
    assert executed.cells[1].outputs[0]["data"]["text/plain"] == "42"
    assert all(c.execution_count for c in executed.cells)
    assert all("execution" not in c.metadata for c in executed.cells)
    assert "widgets" not in executed.metadata
    learner = nbformat.read(notebooks / "01-first.ipynb", as_version=4)
    assert learner.cells[1].outputs == [] and "NotImplementedError" in learner.cells[1].source
    assert B.out_of_date(solutions, notebooks) == []


def test_a_translation_in_its_own_folder_is_built_and_checked_as_the_courses_own(course, monkeypatch, capsys):
    """Issue 23's trial: a French copy of 01 in solutions/fr/ got no learner version, and `make notebooks` said
    nothing. Now a folder of solutions/ that holds notebooks gives the folder of the same name in notebooks/."""
    solutions, notebooks, backups = course
    (solutions / "fr").mkdir()
    nbformat.write(solved_notebook("x = 1  # en français"), solutions / "fr" / "01-first.ipynb")
    (solutions / "_drafts").mkdir()  # a folder of one's own (hidden or _-named) is no translation
    nbformat.write(solved_notebook(), solutions / "_drafts" / "01-first.ipynb")
    for name, value in (("SOLUTIONS_DIR", solutions), ("NOTEBOOKS_DIR", notebooks), ("BACKUP_DIR", backups)):
        monkeypatch.setattr(B, name, value)
    assert B.translations() == [(solutions / "fr", notebooks / "fr")]

    assert B.main([]) == 0
    built = nbformat.read(notebooks / "fr" / "01-first.ipynb", as_version=4)
    assert "en français" in built.cells[3].source and "YOUR CODE HERE" in "".join(c.source for c in built.cells)
    assert not (notebooks / "_drafts").exists()
    assert "3 notebooks" in capsys.readouterr().out
    assert B.main(["--check"]) == 0

    (notebooks / "fr" / "01-first.ipynb").unlink()
    assert B.main(["--check"]) == 1
    assert "missing: " in capsys.readouterr().out


def test_a_named_notebook_or_folder_builds_the_courses_own_only(course, monkeypatch):
    solutions, notebooks, backups = course
    (solutions / "fr").mkdir()
    nbformat.write(solved_notebook(), solutions / "fr" / "01-first.ipynb")
    for name, value in (("SOLUTIONS_DIR", solutions), ("NOTEBOOKS_DIR", notebooks), ("BACKUP_DIR", backups)):
        monkeypatch.setattr(B, name, value)
    assert B.main(["01"]) == 0
    assert (notebooks / "01-first.ipynb").exists() and not (notebooks / "fr").exists()
