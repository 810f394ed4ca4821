"""Every notebook finds the course's own course_utils with no installation step (issue 21).

The report: on a JupyterHub, the course's link clones the course and opens notebook 00, whose kernel starts at
once; course_utils was installed afterwards from a terminal (the guide's step 3), into a user site folder that
kernel never saw, so the first Run All failed for every learner with ``ModuleNotFoundError: course_utils``.
Now the first code cell of every notebook puts the course folder (the first folder above the notebook's, where the
kernel starts, that holds course_utils/) first on ``sys.path``: the clone's course_utils is used whatever is
installed, and a course update pulled into the clone is what the next kernel imports.

Here a kernel's Python is imitated by a fresh interpreter started in the notebook's folder with the editable
install's finder removed (as in a hub's environment, where course_utils is not installed); tests/test_hub.py
does the same on a real JupyterHub, in a browser.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import course_notebooks
import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The lines every notebook's first code cell begins with, after its imports: the course folder is the first folder
#: above the notebook's that holds course_utils/ (notebooks/ and solutions/ are one below it, a translation in
#: solutions/<language>/ two); where there is none (Colab, an uploaded copy), the parent, which holds no course.
COURSE_PATH_LINES = (
    'course = next((p for p in Path.cwd().parents if (p / "course_utils").is_dir()), Path.cwd().parent)  # the course folder',
    "sys.path.insert(0, str(course))  # first on the path: its course_utils is used, installed or not",
)
#: The line after it: numpy's BLAS on one thread, set before numpy loads (issue 23: no longer by ``import course_utils``
#: through ctypes); a user's own OPENBLAS_NUM_THREADS stands.
BLAS_LINE = ('os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads: one thread per matrix product '
             '(faster on a busy machine)')
#: The line every notebook's imports cell (its second code cell) holds: it turns on the figures' alt text (each
#: figure that plt.show() draws published as an <img alt> beside its PNG, course_utils.alt_text), which importing
#: course_utils does not do (issue 23: the import changes nothing outside the package).
FORMATTER_LINE = "cu.alt_text.register_formatter()  # every figure shown below comes with its alt text (what it shows, in words)"
NOTEBOOKS = course_notebooks.ALL  # the course's, solved and learner, and every translation's

#: Run in a fresh interpreter before a setup cell: no editable install (a hub's environment), and optionally a
#: module that cannot be imported (a kernel that is not the course's environment).
PRELUDE = """
import sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path[:] = [p for p in sys.path if p not in ("", ".")]
BLOCKED = {blocked!r}
class _Blocker:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, _Blocker)
"""


def code_cells(path: Path) -> list[str]:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]


def setup_cell(path: Path) -> str:
    """The setup cell (the first code cell: the course folder on the path, the Colab install) and the imports
    cell after it, as one source."""
    return "\n".join(code_cells(path)[:2])


def run_setup(path: Path, source: str | None = None, blocked=(), hub=False, cwd=None):
    """Run a notebook's setup cell (or ``source``) as a fresh kernel would, from the notebook's folder (or ``cwd``),
    without the editable install; then print where course_utils came from."""
    code = PRELUDE.format(blocked=set(blocked)) + (source if source is not None else setup_cell(path)) + \
        "\nimport course_utils\nprint('FROM', course_utils.__file__)\n"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTERHUB_", "BINDER_", "COURSE_PACKAGE"))}
    if hub:
        env.update(JUPYTERHUB_USER="learner", JUPYTERHUB_API_URL="http://127.0.0.1:8081/hub/api")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd or path.parent, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=course_notebooks.name)
def test_every_setup_cell_puts_the_course_folder_first(path):
    lines = code_cells(path)[0].splitlines()
    assert COURSE_PATH_LINES[0] in lines, f"{path.name}: its first code cell lacks the course-folder lines"
    position = lines.index(COURSE_PATH_LINES[0])
    assert tuple(lines[position:position + 2]) == COURSE_PATH_LINES, f"{path.name}: the course-folder lines differ"
    imports_before = [line for line in lines[:position] if line.strip()]
    assert set(imports_before) <= {"import importlib.util", "import marshal", "import os", "import sys",
                                   "from pathlib import Path"}, \
        imports_before
    assert not any("course_utils" in line for line in lines[:position])


def test_the_setup_cell_is_one_and_the_same_in_every_notebook():
    """One home by test: the setup cell (course folder, Colab install) cannot live in course_utils, which it
    installs; so every notebook, solved and learner, carries the very same cell, its pin included."""
    cells = {path.relative_to(ROOT).as_posix(): code_cells(path)[0] for path in NOTEBOOKS}
    first = cells["solutions/00-before-you-start.ipynb"]
    assert 'PACKAGE = "git+' in first
    assert [name for name, cell in cells.items() if cell != first] == []


#: Run after a setup cell: numpy's OpenBLAS's thread count (ctypes, here in a test only), or "no OpenBLAS".
BLAS_THREADS = """
import ctypes
import numpy

def openblas_threads():
    with open("/proc/self/maps", encoding="utf-8") as maps:
        libraries = sorted({line.split()[-1] for line in maps if "openblas" in line.lower() and ".so" in line})
    for library in map(ctypes.CDLL, libraries):
        for name in ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads", "openblas_get_num_threads64_",
                     "openblas_get_num_threads"):
            if hasattr(library, name):
                return getattr(library, name)()
    return "no OpenBLAS"

print("THREADS", openblas_threads())
"""


def test_the_setup_cell_sets_one_blas_thread_before_numpy_loads():
    lines = code_cells(ROOT / "solutions" / "00-before-you-start.ipynb")[0].splitlines()
    assert BLAS_LINE in lines
    assert not any("numpy" in line for line in lines if line != BLAS_LINE)  # the setup cell never loads numpy


@pytest.mark.skipif(not Path("/proc/self/maps").exists() or (os.cpu_count() or 1) < 2,
                    reason="needs Linux's /proc and more than one core (one core gives one thread anyway)")
@pytest.mark.parametrize("case", ["setup cell", "without the line", "the user's choice"])
def test_after_the_setup_cell_numpy_multiplies_on_one_thread_unless_the_user_chose(case):
    """A kernel starts without numpy (measured: ipykernel 7.4 loads neither numpy nor matplotlib); the setup cell
    then sets OPENBLAS_NUM_THREADS, which OpenBLAS reads when numpy loads it."""
    path = ROOT / "notebooks" / "01-one-attention-row.ipynb"
    setup = code_cells(path)[0]
    if case == "without the line":
        setup = setup.replace(BLAS_LINE, "")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")}
    if case == "the user's choice":
        env["OPENBLAS_NUM_THREADS"] = "2"
    done = subprocess.run([sys.executable, "-c", setup + BLAS_THREADS], cwd=path.parent, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    threads = done.stdout.split("THREADS ")[-1].strip()
    if threads == "no OpenBLAS":
        pytest.skip("numpy does not use OpenBLAS here")
    assert (threads == "1") is (case == "setup cell"), (case, threads)
    if case == "the user's choice":
        assert threads == "2"


def imports_cell_problem(path: Path) -> str | None:
    """What is wrong with the notebook's imports cell (its second code cell), or None: it must hold FORMATTER_LINE,
    after ``import course_utils as cu`` (the line uses ``cu``)."""
    lines = code_cells(path)[1].splitlines()
    if FORMATTER_LINE not in lines:
        return f"{path.name}: its imports cell lacks the line that turns on the figures' alt text: {FORMATTER_LINE}"
    imports = [i for i, line in enumerate(lines) if line.strip() == "import course_utils as cu"]
    if not imports or imports[0] > lines.index(FORMATTER_LINE):
        return f"{path.name}: its imports cell turns on the figures' alt text before `import course_utils as cu`"
    return None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=course_notebooks.name)
def test_every_imports_cell_turns_on_the_figures_alt_text(path):
    assert imports_cell_problem(path) is None


@pytest.mark.parametrize("damage", ["line removed", "line before the import"])
def test_the_imports_rule_catches_a_notebook_without_the_line(tmp_path, damage):
    notebook = json.loads((ROOT / "solutions" / "08-what-you-learned.ipynb").read_text(encoding="utf-8"))
    cell = [c for c in notebook["cells"] if c["cell_type"] == "code"][1]
    lines = [line for line in "".join(cell["source"]).splitlines() if line != FORMATTER_LINE]
    if damage == "line before the import":
        lines.insert(0, FORMATTER_LINE)
    cell["source"] = "\n".join(lines)
    damaged = tmp_path / "08-damaged.ipynb"
    damaged.write_text(json.dumps(notebook), encoding="utf-8")
    assert imports_cell_problem(damaged) is not None


FIGURE_CELL = "import matplotlib.pyplot as plt\nplt.plot([0, 1], [1, 0])\nplt.show()"


@pytest.mark.parametrize("with_line", [True, False], ids=["as committed", "without the line"])
def test_the_imports_cell_gives_figures_their_alt_text_in_a_kernel(with_line):
    """Notebook 08's first two cells as a learner runs them, then a figure: an <img alt> beside the PNG; the same cells
    without the line show a bare PNG (what every notebook would show, since the import alone turns on nothing)."""
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    path = ROOT / "notebooks" / "08-what-you-learned.ipynb"
    setup, imports = code_cells(path)[:2]
    if not with_line:
        imports = imports.replace(FORMATTER_LINE, "")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in (setup, imports, FIGURE_CELL)])
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=120,
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    assert nb.cells[1].outputs == []  # the imports cell shows nothing
    (figure,) = nb.cells[2].outputs
    assert "image/png" in figure.data
    assert ('<img alt="A line at (0, 1), (1, 0)' in figure.data.get("text/html", "")) is with_line


def test_a_lone_copy_outside_colab_names_the_fix_and_installs_nothing(tmp_path):
    """A notebook with no course folder around it (an uploaded copy, VS Code on the file alone), not in Colab and
    with no COURSE_PACKAGE: no pip run behind the learner's back; the error names both fixes, the pip command with
    this kernel's Python and the pinned package."""
    path = ROOT / "notebooks" / "01-one-attention-row.ipynb"
    (tmp_path / "alone").mkdir()
    done = run_setup(path, code_cells(path)[0], cwd=tmp_path / "alone")
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError: This kernel cannot import course_utils"), last
    assert "notebooks/ folder" in last and f'"{sys.executable}" -m pip install "git+' in last
    assert "Traceback" in done.stderr and done.stderr.count("File ") <= 1  # the cell's own raise, nothing deeper


@pytest.mark.parametrize("folder", ["notebooks", "solutions"])
def test_notebook_00_imports_the_clones_course_utils_without_an_installation(folder):
    done = run_setup(ROOT / folder / "00-before-you-start.ipynb")
    assert done.returncode == 0, done.stderr
    assert f"FROM {ROOT / 'course_utils' / '__init__.py'}" in done.stdout


def test_a_notebook_two_folders_down_finds_the_course_too(tmp_path):
    """A translation sits in solutions/<language>/ (issue 23's trial: Path.cwd().parent was solutions/, and without
    the editable install its first cell failed). Its setup cell, run from such a folder of a course (here one whose
    course_utils/ is a link to this one's), imports that course's own."""
    course = tmp_path / "course"
    (course / "solutions" / "fr").mkdir(parents=True)
    (course / "course_utils").symlink_to(ROOT / "course_utils", target_is_directory=True)
    copy = course / "solutions" / "fr" / "01-one-attention-row.ipynb"
    copy.write_bytes((ROOT / "solutions" / "01-one-attention-row.ipynb").read_bytes())
    done = run_setup(copy)
    assert done.returncode == 0, done.stderr
    assert f"FROM {course / 'course_utils' / '__init__.py'}" in done.stdout
    old = run_setup(copy, setup_cell(copy).replace(COURSE_PATH_LINES[0], "course = Path.cwd().parent"))
    assert old.returncode != 0 and "cannot import course_utils" in old.stderr  # the cell before: solutions/, no course


def test_without_the_line_notebook_00_fails_as_reported():
    """The mutant: the old setup cell (no course-folder line) in the same kernel fails, as on the hub."""
    path = ROOT / "notebooks" / "00-before-you-start.ipynb"
    old = setup_cell(path).replace(COURSE_PATH_LINES[1], "")
    done = run_setup(path, old, hub=True)
    assert done.returncode != 0
    assert "cannot import course_utils" in done.stderr
    assert "open this notebook from the course's notebooks/ folder" in done.stderr


@pytest.mark.parametrize("hub", [True, False], ids=["hub", "own machine"])
def test_a_kernel_without_numpy_gets_the_fix_for_where_it_runs(hub):
    done = run_setup(ROOT / "notebooks" / "00-before-you-start.ipynb", blocked={"numpy"}, hub=hub)
    assert done.returncode != 0
    message = done.stderr.strip().splitlines()[-2:]
    assert "cannot import 'numpy'" in message[0]
    if hub:
        assert "tell your instructor" in message[1] and "make lab" not in message[1]
        assert '"Setting up the hub"' in message[1]
    else:
        assert "`make lab`" in message[1] and "instructor" not in message[1]
