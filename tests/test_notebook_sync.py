"""notebooks/ is exactly what tools/build.py generates from solutions/.

These tests check the course as shipped. In a learner's own clone, where notebooks/ holds their answers and
runs, they fail by design: the messages say so, point to `make test-mine` (the learner's notebooks, as they are)
and `make update`, and never to `make notebooks` for an edited notebook (it keeps those as they are, so the advice
would loop).
"""
import ast

import build
import nbformat

IN_YOUR_CLONE = (
    "\nIn your own clone, where notebooks/ holds your answers (or notebooks you ran and saved), this failure is "
    "expected: `make test` checks the course as shipped, not your copy. To check that your notebooks run, use "
    "`make test-mine`. To take the course's latest version without losing your work: `make update`; to start one "
    "notebook afresh (your copy kept in backups/notebooks/): `make reset NB=NN`."
)


def _edited(path) -> bool:
    try:
        return build.has_learner_edits(build.read_notebook(path)) is not False
    except (build.NotebookReadError, build.UnknownFingerprint):
        return True


def sync_failure_message(problems) -> str:
    """What to do, by notebook: an edited one is the learner's (make notebooks keeps it, so it is not the fix)."""
    edited = [p for p in problems if p.kind == "stale" and _edited(p.path)]
    others = [p for p in problems if p not in edited]
    text = "notebooks/ differs from what the course generates from solutions/:"
    if edited:
        text += ("\nedited since they were generated (answers or notes: yours, or a hand edit):\n"
                 + "\n".join(f"  {p}" for p in edited) + IN_YOUR_CLONE
                 + "\nMaintainers: edit solutions/, never notebooks/, then `make notebooks BUILD_ARGS=--force` "
                   "(a copy of the edited notebook goes to backups/notebooks/ first).")
    if others:
        text += ("\nnot edited, only out of date (solutions/ changed, or a notebook is missing or has no solution):\n"
                 + "\n".join(f"  {p}" for p in others) + "\nRegenerate them with `make notebooks` (it keeps any "
                 "notebook you edited as it is).")
    return text


def test_learner_notebooks_are_up_to_date():
    problems = build.out_of_date()
    for solved, learner in build.translations():  # a translation's notebooks/<language>/, as the build makes it
        problems += build.out_of_date(solved, learner)
    assert not problems, sync_failure_message(problems)


def test_there_is_a_learner_notebook_for_every_solution():
    solutions = sorted(p.name for p in build.SOLUTIONS_DIR.glob("*.ipynb"))
    learners = sorted(p.name for p in build.NOTEBOOKS_DIR.glob("*.ipynb"))
    assert solutions, "solutions/ holds no notebook"
    assert solutions == learners, (
        f"notebooks/ and solutions/ hold different notebooks (only in notebooks/: "
        f"{sorted(set(learners) - set(solutions))}; only in solutions/: {sorted(set(solutions) - set(learners))})."
        + IN_YOUR_CLONE + " A notebook of your own in notebooks/ (a copy, Untitled.ipynb) fails this test too: "
        "keep such notebooks in another folder.")


def test_learner_notebooks_carry_no_outputs_and_no_solutions():
    for path in sorted(build.NOTEBOOKS_DIR.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for number, cell in enumerate(nb.cells, 1):
            where = f"{path.name} cell {number}"
            assert "BEGIN SOLUTION" not in cell.source and "END SOLUTION" not in cell.source, where
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, (
                    f"{where} holds outputs: the course ships learner notebooks without any." + IN_YOUR_CLONE)
                ast.parse(cell.source.replace("%matplotlib", "#"))  # every code cell still parses


def test_every_solution_notebook_has_exercises_and_stored_key_outputs():
    for path in sorted(build.SOLUTIONS_DIR.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        if not path.stem.startswith(("00", "08")):  # 00 is the setup check, 08 the concept inventory: no exercise
            assert any("### BEGIN SOLUTION" in c.source for c in code), f"{path.name} has no exercise"
        tagged = [c for c in code if "nbval-check-output" in c.metadata.get("tags", [])]
        assert tagged, f"{path.name} compares no key numbers (no cell tagged nbval-check-output)"
        unrun = [c.id for c in code if c.execution_count is None]
        assert not unrun, f"{path.name}: cells never executed (run `make solutions`): {unrun}"
        empty = [c.id for c in tagged if not c.outputs]
        assert not empty, f"{path.name}: tagged cells with no stored output: {empty}"


def test_learner_notebooks_record_a_current_fingerprint_of_their_cells():
    for path in sorted(build.NOTEBOOKS_DIR.glob("*.ipynb")):
        nb = build.read_notebook(path)
        recorded = nb.metadata["course_build"]["fingerprint"]
        assert recorded.startswith(f"v{build.FINGERPRINT_VERSION}:") and build.parse_fingerprint(recorded), path.name
        assert recorded == build.fingerprint(nb) and build.has_learner_edits(nb) is False, (
            f"{path.name} was edited since it was generated." + IN_YOUR_CLONE)


def test_the_advice_for_an_edited_notebook_does_not_loop(tmp_path):
    """In a learner's clone: the message for an edited notebook does not send them to `make notebooks` (which
    skips it), and does name make test-mine and make update; an unedited stale one gets `make notebooks`."""
    solutions, notebooks = tmp_path / "solutions", tmp_path / "notebooks"
    solutions.mkdir()
    for name in ("01-a.ipynb", "02-b.ipynb"):
        solved = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1", id="c1")])
        build.write_notebook(solved, solutions / name)
    build.build(solutions, notebooks)
    nb = build.read_notebook(notebooks / "01-a.ipynb")
    nb.cells[0].source = "x = 2  # my answer"
    build.write_notebook(nb, notebooks / "01-a.ipynb")
    solved = build.read_notebook(solutions / "02-b.ipynb")
    solved.cells[0].source = "x = 3"
    build.write_notebook(solved, solutions / "02-b.ipynb")

    message = sync_failure_message(build.out_of_date(solutions, notebooks))

    edited_part, stale_part = message.split("not edited, only out of date")
    assert "01-a.ipynb" in edited_part and "02-b.ipynb" not in edited_part
    assert "make test-mine" in edited_part and "make update" in edited_part
    assert "`make notebooks`" not in edited_part  # the loop: make notebooks keeps an edited notebook as it is
    assert "02-b.ipynb" in stale_part and "`make notebooks`" in stale_part
    (result,) = [r for r in build.build(solutions, notebooks) if r.name == "02-b"]
    assert result.status == "updated"  # the advice for the unedited one works


def test_changed_key_numbers_end_the_run_with_what_to_do(monkeypatch):
    """Issue 23: one number changed in lessons/data.py gave 51 failures, none saying `make solutions`. nbval reports a
    tagged cell whose output changed as "Cell outputs differ"; the run then ends with one line of advice."""
    import inspect

    import nbval.plugin

    import conftest

    assert "Cell outputs differ" in inspect.getsource(nbval.plugin)  # the message the hook recognises
    monkeypatch.setattr(conftest, "_KEY_NUMBERS_DIFFER", [])

    class Report:
        nodeid, fspath, when, failed, duration = "solutions/01-x.ipynb::Cell 7", "solutions/01-x.ipynb", "call", True, 0.1
        longrepr = "Notebook cell execution failed\nCell outputs differ\n- 0.665\n+ 0.667"

    class Terminal:
        lines = []

        def write_line(self, line):
            self.lines.append(line)

    conftest.pytest_runtest_logreport(Report())
    terminal = Terminal()
    conftest.pytest_terminal_summary(terminal)
    (advice,) = [line for line in terminal.lines if "key-number" in line]
    assert advice.startswith("1 key-number cell(s) printed other numbers") and "`make solutions`" in advice
