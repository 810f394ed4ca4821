"""A small course in git, and learners' clones of it, for the tests of updates (make update, the README's
recipe, nbgitpuller).

Every git command of a maintainer runs with a fixed identity given in its environment; a learner has none:
``no_identity`` (a fixture) points HOME at an empty folder whose git configuration forbids guessing one
(``user.useConfigOnly``), as on a JupyterHub or Binder where nobody ran ``git config user.email``.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import build as B
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

MAINTAINER = {
    "GIT_AUTHOR_NAME": "Course maintainer", "GIT_AUTHOR_EMAIL": "maintainer@course.example",
    "GIT_COMMITTER_NAME": "Course maintainer", "GIT_COMMITTER_EMAIL": "maintainer@course.example",
}
IDENTITY_VARIABLES = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL",
                      "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")


@pytest.fixture
def no_identity(tmp_path, monkeypatch):
    """The whole test runs as a learner without a git identity (and without the machine's git configuration)."""
    home = tmp_path / "home"
    home.mkdir()
    config = home / ".gitconfig"
    config.write_text("[user]\n\tuseConfigOnly = true\n[init]\n\tdefaultBranch = main\n"
                      "[advice]\n\tdetachedHead = false\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for name in IDENTITY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return home


def git(cwd, *args, identity=False, check=True) -> str:
    """Run git in ``cwd``; ``identity=True`` for a maintainer's commit. Returns stdout."""
    env = dict(os.environ, LC_ALL="C", **(MAINTAINER if identity else {}))
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed in {cwd}:\n{proc.stdout}{proc.stderr}")
    return proc.stdout.strip()


# ---------------------------------------------------------------------------------------------
# The course: four small solved notebooks, their learner versions, a lock file
# ---------------------------------------------------------------------------------------------

EXERCISE_1 = '''def my_softmax(x):
    """Softmax of x."""
    ### BEGIN SOLUTION
    e = np.exp(x - x.max())
    return e / e.sum()
    ### END SOLUTION
'''
EXERCISE_2 = '''def my_row(w, v):
    """The weighted sum of the values."""
    ### BEGIN SOLUTION
    return w @ v
    ### END SOLUTION
'''


def solved(number: str):
    """Solved notebook ``number`` (``"01"`` ... ``"04"``): ids nbNN-..., one or two exercises."""
    cells = [new_markdown_cell(f"# Notebook {number}", id=f"nb{number}-title"),
             new_code_cell("import numpy as np", id=f"nb{number}-setup"),
             new_code_cell(EXERCISE_1, id=f"nb{number}-ex1"),
             new_code_cell("print(my_softmax(np.array([1.0, 2.0])))", id=f"nb{number}-check1")]
    if number == "01":
        cells.append(new_code_cell(EXERCISE_2, id="nb01-ex2"))
    cells.append(new_markdown_cell("## Key points\n\nSoftmax rows sum to one.", id=f"nb{number}-end"))
    return new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                              "language": "python"}})


NAMES = {"01": "01-first", "02": "02-second", "03": "03-third", "04": "04-fourth"}


def write_course(folder: Path, solutions: dict | None = None, lock="numpy==2.3.0\n") -> None:
    """solutions/, the notebooks/ built from them, requirements.lock and .gitignore, in ``folder``."""
    solutions = solutions or {number: solved(number) for number in NAMES}
    (folder / "solutions").mkdir(parents=True, exist_ok=True)
    (folder / "notebooks").mkdir(exist_ok=True)
    for number, nb in solutions.items():
        name = f"{NAMES[number]}.ipynb"
        B.write_notebook(nb, folder / "solutions" / name)
        B.write_notebook(B.learner_notebook(nb, source_name=name), folder / "notebooks" / name)
    (folder / "requirements.lock").write_text(lock)
    (folder / ".gitignore").write_text("backups/\n.ipynb_checkpoints/\n")


class Course:
    """A bare upstream (what learners clone) and the maintainers' clone of it, where the course changes."""

    def __init__(self, root: Path):
        self.root = root
        self.upstream = root / "upstream.git"
        self.work = root / "maintainers"
        git(root, "init", "--quiet", "--bare", "--initial-branch=main", str(self.upstream))
        git(root, "clone", "--quiet", str(self.upstream), str(self.work))
        git(self.work, "checkout", "--quiet", "-B", "main")
        write_course(self.work)
        self.commit("The course")
        self.first_commit = git(self.work, "rev-list", "--max-parents=0", "HEAD")

    @property
    def url(self) -> str:
        return self.upstream.as_uri()  # file://, as a hub clones it (a path would ignore --depth)

    def commit(self, message: str) -> str:
        git(self.work, "add", "-A")
        git(self.work, "commit", "--quiet", "-m", message, identity=True)
        git(self.work, "push", "--quiet", "origin", "main")
        return self.head()

    def head(self) -> str:
        return git(self.work, "rev-parse", "HEAD")

    def solution(self, number: str):
        return B.read_notebook(self.work / "solutions" / f"{NAMES[number]}.ipynb")

    def change(self, number: str, edits: dict, append=None) -> None:
        """Change solved notebook ``number``: ``edits`` maps cell id -> new source; ``append``: a new cell."""
        nb = self.solution(number)
        for cell in nb.cells:
            if cell.id in edits:
                cell.source = edits[cell.id]
        if append is not None:
            nb.cells.append(append)
        name = f"{NAMES[number]}.ipynb"
        B.write_notebook(nb, self.work / "solutions" / name)
        B.write_notebook(B.learner_notebook(nb, source_name=name), self.work / "notebooks" / name)

    def clone(self, name: str) -> Path:
        """A learner's clone (``git clone``, no identity needed)."""
        target = self.root / name
        git(self.root, "clone", "--quiet", self.url, str(target))
        return target


# ---------------------------------------------------------------------------------------------
# A learner at work in JupyterLab
# ---------------------------------------------------------------------------------------------


def notebook_path(clone: Path, number: str) -> Path:
    return clone / "notebooks" / f"{NAMES[number]}.ipynb"


def answer(clone: Path, number: str, cell_id: str, code: str) -> None:
    """The learner replaces the placeholder of an exercise cell with their code, and saves."""
    path = notebook_path(clone, number)
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.id == cell_id)
    assert "raise NotImplementedError()" in cell.source
    cell.source = cell.source.replace("# YOUR CODE HERE\n    raise NotImplementedError()", code)
    nbformat.write(nb, path)


def append_cell(clone: Path, number: str, source: str, cell_id: str) -> None:
    path = notebook_path(clone, number)
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(new_code_cell(source, id=cell_id))
    nbformat.write(nb, path)


def run_and_save(clone: Path, number: str) -> bytes:
    """The learner runs every cell and saves: outputs and execution counts, no cell changed."""
    path = notebook_path(clone, number)
    nb = nbformat.read(path, as_version=4)
    for count, cell in enumerate((c for c in nb.cells if c.cell_type == "code"), start=1):
        cell.execution_count = count
        cell.outputs = [new_output("stream", name="stdout", text=f"output {count} of {path.stem}\n")]
    nbformat.write(nb, path)
    return path.read_bytes()


def cells(path) -> dict:
    """Cell id -> source of a notebook file (or of notebook bytes)."""
    text = path.decode() if isinstance(path, bytes) else Path(path).read_text(encoding="utf-8")
    return {c["id"]: "".join(c["source"]) for c in json.loads(text)["cells"]}


def files_with_conflict_markers(folder: Path) -> list[str]:
    """Files under ``folder`` (not .git) holding a line git writes for a conflict."""
    found = []
    for path in folder.rglob("*"):
        if ".git" in path.relative_to(folder).parts or not path.is_file():
            continue
        lines = path.read_bytes().decode("utf-8", "replace").splitlines()
        if any(line.startswith(("<<<<<<< ", ">>>>>>> ")) or line == "=======" for line in lines):
            found.append(str(path.relative_to(folder)))
    return found


def snapshot(folder: Path) -> dict:
    """Every file's bytes under ``folder`` except .git's internals, plus where HEAD is."""
    files = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*")
             if p.is_file() and ".git" not in p.relative_to(folder).parts}
    files["<HEAD>"] = git(folder, "rev-parse", "HEAD").encode()
    return files
