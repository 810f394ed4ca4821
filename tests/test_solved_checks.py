"""Every check cell of a solved notebook shows "Correct": the solutions pass their own checkers.

The stored outputs are those of the last `make solutions` run; a checker change that would call a
solution wrong shows up here once the solutions are re-executed (CI's nbval run executes them, and
tests/test_notebook_sync.py keeps the learner notebooks in step).
"""
import ast
import json
from pathlib import Path

import pytest

SOLUTIONS = Path(__file__).resolve().parent.parent / "solutions"
SOLVED = sorted(SOLUTIONS.glob("*.ipynb"))


def check_cells(path):
    """(cell id, source, text of its outputs) for each code cell calling a check_... function."""
    cells = []
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id.startswith("check_")]
        if not calls:
            continue
        text = []
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            text.append("".join(data.get("text/plain", output.get("text", ""))))
        cells.append((cell.get("id"), source, "\n".join(text)))
    return cells


@pytest.mark.parametrize("path", SOLVED, ids=lambda p: p.stem)
def test_every_stored_check_says_correct(path):
    for cell_id, source, text in check_cells(path):
        assert text.strip(), f"{path.name} {cell_id}: no stored output for {source!r}"
        assert text.lstrip().startswith("Correct"), f"{path.name} {cell_id}: {text[:300]}"


def test_the_rule_finds_the_check_cells():
    """Every exercise (a cell holding ``### BEGIN SOLUTION`` that defines a function) has its check cell found."""
    for path in SOLVED:
        cells = json.loads(path.read_text())["cells"]
        exercises = sum(c["cell_type"] == "code" and "### BEGIN SOLUTION" in "".join(c["source"]) for c in cells)
        assert len(check_cells(path)) >= exercises, path.name
