"""notebooks/ is exactly what course_utils.tools.build generates from solutions/."""
import ast

import nbformat

from course_utils.tools import build


def test_learner_notebooks_are_up_to_date():
    problems = build.out_of_date()
    assert not problems, "learner notebooks are out of date; run `make notebooks`:\n" + "\n".join(map(str, problems))


def test_there_is_a_learner_notebook_for_every_solution():
    solutions = sorted(p.name for p in build.SOLUTIONS_DIR.glob("*.ipynb"))
    learners = sorted(p.name for p in build.NOTEBOOKS_DIR.glob("*.ipynb"))
    assert solutions, "solutions/ holds no notebook"
    assert solutions == learners


def test_learner_notebooks_carry_no_outputs_and_no_solutions():
    for path in sorted(build.NOTEBOOKS_DIR.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for number, cell in enumerate(nb.cells, 1):
            where = f"{path.name} cell {number}"
            assert "BEGIN SOLUTION" not in cell.source and "END SOLUTION" not in cell.source, where
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, where
                ast.parse(cell.source.replace("%matplotlib", "#"))  # every code cell still parses


def test_every_solution_notebook_has_exercises_and_stored_key_outputs():
    for path in sorted(build.SOLUTIONS_DIR.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        if not path.stem.startswith("00"):  # 00 is the setup check: no exercise
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
        assert build.parse_fingerprint(recorded)[0] == build.FINGERPRINT_VERSION, path.name
        assert recorded == build.fingerprint(nb) and build.has_learner_edits(nb) is False, path.name
