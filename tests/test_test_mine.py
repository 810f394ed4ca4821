"""`make test-mine` (``pytest --mine notebooks``): a learner's own notebooks run as saved, nothing compared.

Two tiny notebooks in tmp_path, run in one pytest process: one whose tagged key-number cell stored another output
than it prints (a learner's edit, or a run of theirs) passes, since nothing is compared; one whose cell raises fails.
"""
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

ROOT = Path(__file__).resolve().parents[1]
KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}


def test_mine_runs_every_cell_and_compares_nothing(tmp_path):
    runs = new_notebook(cells=[new_code_cell("print(1 + 1)", id="key", execution_count=1,
                                             outputs=[new_output("stream", name="stdout", text="3\n")],
                                             metadata={"tags": ["nbval-check-output"]})],
                        metadata={"kernelspec": KERNEL})
    nbformat.write(runs, tmp_path / "01-mine.ipynb")
    fails = new_notebook(cells=[new_code_cell("1 / 0", id="oops")], metadata={"kernelspec": KERNEL})
    nbformat.write(fails, tmp_path / "02-mine.ipynb")
    # -p conftest: the course's conftest.py, which defines --mine, for notebooks outside the repository.
    proc = subprocess.run([sys.executable, "-m", "pytest", "-c", "pyproject.toml", "-p", "conftest", "--mine",
                           "-q", "-rA", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    out = proc.stdout
    assert proc.returncode == 1, out
    assert "PASSED" in out and "01-mine.ipynb::Cell 0" in out.split("PASSED", 1)[1].splitlines()[0]
    assert "FAILED" in out and "02-mine.ipynb::Cell 0" in out.split("FAILED", 1)[1].splitlines()[0]
    assert "1 failed, 1 passed" in out


def test_mine_says_each_exercise_verdict_not_only_passed(tmp_path):
    """Issue 26: a notebook with a wrong and an unattempted exercise gave only "N passed". The summary names each
    exercise's verdict, as the checker printed it, and says that "passed" means the cells ran."""
    cells = [new_code_cell("import numpy as np\nfrom course_utils.checks import check_softmax, check_attention_row"),
             new_code_cell("def my_softmax(x):\n    return np.exp(x) / np.exp(x).sum()\ncheck_softmax(my_softmax)"),
             new_code_cell("def my_row(scores, values):\n    raise NotImplementedError()\n"
                           "check_attention_row(my_row)"),
             new_code_cell("def right(x):\n    e = np.exp(x - x.max(axis=-1, keepdims=True))\n"
                           "    return e / e.sum(axis=-1, keepdims=True)\ncheck_softmax(right)")]
    nbformat.write(new_notebook(cells=cells, metadata={"kernelspec": KERNEL}), tmp_path / "01-mine.ipynb")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-c", "pyproject.toml", "-p", "conftest", "--mine",
                           "-q", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    out = proc.stdout
    assert proc.returncode == 0 and "4 passed" in out, out
    summary = out.split("Your exercises", 1)[1]
    assert "not that an answer is right" in summary.splitlines()[0], out
    lines = [line.strip() for line in summary.splitlines()[1:4]]
    assert lines == ["01-mine.ipynb: softmax: not yet right", "01-mine.ipynb: attention_row: not attempted yet",
                     "01-mine.ipynb: softmax: correct"], out


def test_make_test_mine_target():
    """The Makefile line (added by the Makefile's owner): `make -n test-mine` runs pytest --mine over notebooks/."""
    if "\ntest-mine:" not in (ROOT / "Makefile").read_text():
        pytest.skip("the Makefile has no `test-mine` target yet (issue 13: the lines are in the report)")
    out = subprocess.run(["make", "-n", "--no-print-directory", "test-mine"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    assert "-m pytest --mine notebooks" in out
