"""A compiled file of course_utils cut short is deleted and compiled again, by the notebooks and by the tools (issue 25).

The report: a disk that filled during an import (a 60 MB file system with 40 KB free) left a truncated ``.pyc`` in
``course_utils/__pycache__`` (Python writes it beside the old one and renames it, but does not check that the whole
of it was written); afterwards every ``import course_utils`` and every ``make update`` died with ``EOFError: marshal
data too short`` until the folder was deleted by hand. Here a course folder with two such files (the package's own
and a module's) is opened by a notebook's first cells and by a tool: both work, and the files are whole again.
"""
from __future__ import annotations

import compileall
import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_course_path import PRELUDE, setup_cell

ROOT = Path(__file__).resolve().parents[1]
CUT = ("__init__", "safe_files")  # the package itself and a module every tool imports


@pytest.fixture
def course(tmp_path):
    """A copy of the course's code, compiled, with the compiled files of CUT cut to half their length."""
    course = tmp_path / "course"
    for folder in ("course_utils", "tools"):
        shutil.copytree(ROOT / folder, course / folder, ignore=shutil.ignore_patterns("__pycache__"))
    (course / "notebooks").mkdir()
    shutil.copy(ROOT / "notebooks" / "01-one-attention-row.ipynb", course / "notebooks")
    assert compileall.compile_dir(course / "course_utils", quiet=1)
    for name in CUT:
        (cached,) = (course / "course_utils" / "__pycache__").glob(f"{name}.*.pyc")
        data = cached.read_bytes()
        cached.write_bytes(data[: len(data) // 2])
    return course


def run(code: str, cwd: Path, *arguments: str) -> subprocess.CompletedProcess:
    """``python -c code`` (or, with arguments, ``python code arguments``) that writes compiled files as usual."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    command = [sys.executable, code, *arguments] if arguments else [sys.executable, "-c", code]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def whole(course: Path) -> list:
    """The compiled files of CUT that load (written again by the import)."""
    found = []
    for name in CUT:
        for cached in (course / "course_utils" / "__pycache__").glob(f"{name}.*.pyc"):
            marshal.loads(cached.read_bytes()[16:])
            found.append(name)
    return found


def test_the_cut_files_break_the_import_without_the_first_cells_loop(course):
    """The report: the same folder, imported without the loop, fails as it did."""
    done = run(f"import sys; sys.path.insert(0, {str(course)!r}); import course_utils.safe_files", course)
    assert done.returncode != 0 and "marshal data too short" in done.stderr


def test_a_notebooks_first_cells_delete_them_and_the_import_works(course):
    notebook = course / "notebooks" / "01-one-attention-row.ipynb"
    code = PRELUDE.format(blocked=set()) + setup_cell(notebook) + "\nimport course_utils.safe_files\nprint('OK')\n"
    done = run(code, notebook.parent)
    assert done.returncode == 0 and "OK" in done.stdout, done.stderr
    assert whole(course) == list(CUT)


def test_a_tool_deletes_them_and_runs(course):
    done = run(str(course / "tools" / "reset.py"), course, "--help")  # reset imports course_utils.safe_files
    assert done.returncode == 0, done.stderr
    assert "usage" in done.stdout.lower()
    assert whole(course) == list(CUT)
