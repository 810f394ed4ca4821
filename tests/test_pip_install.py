"""A plain ``pip install`` of the course, no lock: enough to run notebook 01 (issue 22).

What a learner without ``make`` does: a fresh virtual environment (``python -m venv``), ``pip install COURSE``
(a clean copy of the course: the files git tracks, as they are in the work tree; not editable, no lock, no
``--no-deps``: pip resolves pyproject.toml's ``dependencies`` against the package index alone), then a notebook
run with that environment's own kernel. Then:

- ``pip check`` finds no broken requirement;
- the learner's notebook 01 (notebooks/01-one-attention-row.ipynb) runs top to bottom in a kernel of that
  environment (``<venv>/bin/python -m ipykernel_launcher``, driven by nbclient from the test's environment), with
  no error outside a cell tagged ``raises-exception``;
- every key number (cells tagged ``nbval-check-output``) equals the solved notebook's stored one, compared as nbval
  compares them (streams merged per name, tests/nbval_sanitize.cfg applied, pictures and widget views left out);
- the course that ran is the INSTALLED one. The notebook is copied alone into an empty folder, as a downloaded or
  uploaded notebook sits: its first cell puts the folder above it on ``sys.path`` (a clone's course_utils would win
  there), and that folder holds no course_utils. A cell added at the end of the copy proves it: the kernel's Python
  is the venv's, ``course_utils`` and every submodule the notebook imported come from the venv's site-packages, and
  the distribution is installed from a directory, not editable. (Run from its place in a clone, the notebook would
  use the clone's course_utils and prove nothing about the package.)

Needs the package index pip is configured with (pip's own configuration: ``pip config list``). When it cannot be
reached the test is skipped with a message, unless ``COURSE_REQUIRE_PIP=1``, where it fails. Artifacts (pip's log,
the installed versions, the executed notebook, the timings) go to test-artifacts/pip-install/. A cold run (empty
pip cache): ``PIP_CACHE_DIR=$(mktemp -d) .venv/bin/python -m pytest tests/test_pip_install.py``.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError
from nbval.plugin import coalesce_streams, get_sanitize_patterns
from test_browser import skip_or_fail  # tests/test_browser.py

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = "01-one-attention-row.ipynb"
LEARNER = ROOT / "notebooks" / NOTEBOOK
SOLVED = ROOT / "solutions" / NOTEBOOK
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
ARTIFACTS = ROOT / "test-artifacts" / "pip-install"
VARIABLE = "COURSE_REQUIRE_PIP"
CHECK_TAG = "nbval-check-output"
ERROR_TAG = "raises-exception"
#: What nbval leaves out of a comparison (its IPyNbFile.skip_compare, without --nbdime).
SKIP_COMPARE = ("metadata", "traceback", "prompt_number", "output_type", "name", "execution_count",
                "application/vnd.jupyter.widget-view+json", "image/png", "image/jpeg")
DEFAULT_INDEX = "https://pypi.org/simple"
#: The cell added at the end of the copy: which Python ran, and where course_utils came from.
PROBE = """\
import importlib.metadata, json, sys, sysconfig
print("PROBE" + json.dumps({
    "executable": sys.executable, "prefix": sys.prefix, "purelib": sysconfig.get_paths()["purelib"],
    "course_utils": sys.modules["course_utils"].__file__,
    "modules": {name: getattr(module, "__file__", None) for name, module in sorted(sys.modules.items())
                if name == "course_utils" or name.startswith("course_utils.")},
    "direct_url": importlib.metadata.distribution("course_utils").read_text("direct_url.json"),
}))
"""


def clean_environment() -> dict:
    """This process's environment without what would reach into the course's checkout or venv."""
    dropped = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "JUPYTER_PATH", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR",
               "IPYTHONDIR", "MPLBACKEND", "PIP_REQUIRE_VIRTUALENV",
               "COURSE_PACKAGE")  # the notebooks' setup cell would install that if course_utils were missing
    return {k: v for k, v in os.environ.items() if k not in dropped and not k.startswith(("PYTEST_", "COVERAGE_"))}


def index_url(python: Path) -> str:
    """The index pip installs from (``PIP_INDEX_URL``, else pip's configuration, else PyPI)."""
    if os.environ.get("PIP_INDEX_URL"):
        return os.environ["PIP_INDEX_URL"]
    done = subprocess.run([str(python), "-m", "pip", "config", "list"], capture_output=True, text=True, timeout=60)
    for line in done.stdout.splitlines():
        key, _, value = line.partition("=")
        if key.split(".")[-1] == "index-url" and value.strip("'\""):
            return value.strip("'\"")
    return DEFAULT_INDEX


def unreachable_reason(url: str) -> str | None:
    """Why the package index at ``url`` cannot be used (None: it answered for pip's own project page)."""
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/pip/", timeout=20) as reply:
            reply.read(1)
    except Exception as error:  # noqa: BLE001 - any failure means: no index
        return f"pip's package index {url} cannot be reached ({error})"
    return None


def copy_tracked_files(destination: Path) -> int:
    """The files git tracks, as they are in the work tree (uncommitted changes too), into ``destination``."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    count = 0
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if not source.exists() and not source.is_symlink():  # deleted in the work tree
            continue
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
        count += 1
    return count


def run(command, log: Path, timeout: float, env: dict, cwd: Path | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=cwd)
    with log.open("a", encoding="utf-8") as handle:
        handle.write(f"$ {' '.join(map(str, command))}\n{done.stdout}{done.stderr}(exit {done.returncode})\n\n")
    return done


def venv_kernel_manager(python: Path, scratch: Path) -> AsyncKernelManager:
    """A kernel manager whose kernel is ``python -m ipykernel_launcher`` (the venv's), whatever kernelspecs exist."""
    spec = KernelSpec(argv=[str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                      display_name="pip-installed course", language="python", resource_dir=str(scratch))

    class VenvKernelSpecs(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return spec

    return AsyncKernelManager(kernel_name="pip-venv", kernel_spec_manager=VenvKernelSpecs())


def comparable(outputs, patterns) -> dict[str, list]:
    """A cell's outputs as nbval compares them: key -> sanitized values (streams merged per name)."""
    flat: dict[str, list] = {}
    for output in coalesce_streams(nbformat.from_dict(outputs)):
        if output.output_type == "stream":
            items = [(output.name, output.text)]
        else:
            items = [(key, value) for key, value in output.items() if key != "data"]
            items += list(output.get("data", {}).items())
        for key, value in items:
            if key in SKIP_COMPARE:
                continue
            if isinstance(value, str):
                for regex, replace in patterns:
                    value = __import__("re").sub(regex, replace, value)
            flat.setdefault(key, []).append(value)
    return flat


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The venv with the course pip-installed from a clean copy: (its python, scratch folder, timings)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.iterdir():
        old.unlink()
    log = ARTIFACTS / "pip.log"
    scratch = tmp_path_factory.mktemp("pip-install")
    env = clean_environment()
    timings = {}

    url = index_url(Path(sys.executable))  # pip's configuration: the same for this pip and the venv's
    skip_or_fail(unreachable_reason(url), "pip-install test", VARIABLE)

    start = time.monotonic()
    copied = copy_tracked_files(scratch / "course")
    timings["copy"] = time.monotonic() - start

    start = time.monotonic()
    venv = scratch / "venv"
    done = run([sys.executable, "-m", "venv", venv], log, 300, env)
    assert done.returncode == 0, f"python -m venv failed:\n{done.stderr[-2000:]}"
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    timings["venv"] = time.monotonic() - start

    start = time.monotonic()
    done = run([python, "-m", "pip", "install", scratch / "course"], log, 1200, env)
    timings["pip install"] = time.monotonic() - start
    assert done.returncode == 0, f"pip install of the course failed (log: {log}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    frozen = run([python, "-m", "pip", "list", "--format=freeze"], log, 120, env, cwd=scratch)
    (ARTIFACTS / "installed.txt").write_text(frozen.stdout, encoding="utf-8")
    (ARTIFACTS / "timings.txt").write_text(
        f"index: {url}; pip cache: {os.environ.get('PIP_CACHE_DIR', 'default')}; Python {sys.version.split()[0]}; "
        f"{copied} tracked files copied\n" + "".join(f"{part}: {seconds:.1f} s\n" for part, seconds in timings.items()),
        encoding="utf-8")
    return python, scratch, timings, env


def test_pip_install_alone_resolves_a_consistent_environment(installed):
    python, scratch, _, env = installed
    done = run([python, "-m", "pip", "check"], ARTIFACTS / "pip.log", 120, env, cwd=scratch)
    assert done.returncode == 0, f"pip check found broken requirements after `pip install COURSE`:\n{done.stdout}"
    names = {line.split("==")[0].lower().replace("_", "-") for line in (ARTIFACTS / "installed.txt").read_text().split()}
    # what the notebooks need at run time: the kernel, the dashboards (anywidget too) and the figures
    missing = {"course-utils", "ipykernel", "ipywidgets", "anywidget", "numpy", "matplotlib", "pillow"} - names
    assert not missing, f"`pip install COURSE` did not install {sorted(missing)}"


def test_notebook_01_runs_on_the_installed_package_alone(installed):
    python, scratch, timings, env = installed
    folder = scratch / "learner" / "notebooks"  # nothing else in it, nor in the folder above it
    folder.mkdir(parents=True)
    shutil.copy2(LEARNER, folder / NOTEBOOK)
    nb = nbformat.read(folder / NOTEBOOK, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    kernel_env = {**env, "PATH": os.pathsep.join([str(python.parent), env.get("PATH", "")])}
    client = NotebookClient(nb, km=venv_kernel_manager(python, scratch), timeout=600, allow_errors=False,
                            record_timing=False, resources={"metadata": {"path": str(folder)}})
    start = time.monotonic()
    try:
        client.execute(env=kernel_env)
    except (CellExecutionError, CellTimeoutError) as error:
        nbformat.write(nb, ARTIFACTS / NOTEBOOK)
        pytest.fail(f"notebook 01 failed in the pip-installed environment (the run so far: {ARTIFACTS / NOTEBOOK}):\n"
                    f"{str(error)[-4000:]}")
    finally:
        timings["notebook 01"] = time.monotonic() - start
        with (ARTIFACTS / "timings.txt").open("a", encoding="utf-8") as handle:
            handle.write(f"notebook 01 (kernel start included): {timings['notebook 01']:.1f} s\n")
    nbformat.write(nb, ARTIFACTS / NOTEBOOK)

    # the installed package ran, in the venv's kernel
    text = "".join(output.get("text", "") for output in nb.cells[-1].outputs if output.output_type == "stream")
    assert "PROBE" in text, f"the probe cell printed nothing: {nb.cells[-1].outputs}"
    probe = json.loads(text.split("PROBE", 1)[1])
    assert Path(probe["prefix"]).resolve() == (python.parent.parent).resolve(), (
        f"the kernel ran {probe['executable']}, not the venv's Python {python}")
    purelib = Path(probe["purelib"]).resolve()
    elsewhere = {name: path for name, path in probe["modules"].items()
                 if path is None or purelib not in Path(path).resolve().parents}
    assert not elsewhere, f"course_utils modules not from the venv's site-packages {purelib}: {elsewhere}"
    assert len(probe["modules"]) > 5, f"the notebook imported too few course_utils modules: {probe['modules']}"
    direct = json.loads(probe["direct_url"] or "{}")
    assert not direct.get("dir_info", {}).get("editable"), f"course_utils is an editable install: {direct}"
    assert direct.get("url") == (scratch / "course").as_uri(), f"course_utils was not installed from the copy: {direct}"

    # no error outside a raises-exception cell (nbclient stops at any other), and every key number as stored
    patterns = get_sanitize_patterns(SANITIZE.read_text(encoding="utf-8"))
    solved = {cell.get("id"): cell for cell in nbformat.read(SOLVED, as_version=4).cells}
    checked, differ = 0, []
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors or ERROR_TAG in tags, f"cell {cell.get('id')} raised {errors[0].ename}: {errors[0].evalue}"
        if CHECK_TAG not in tags:
            continue
        reference = solved.get(cell.get("id"))
        assert reference is not None, f"tagged cell {cell.get('id')} has no counterpart in {SOLVED.name}"
        checked += 1
        got, want = comparable(cell.outputs, patterns), comparable(reference.outputs, patterns)
        if got != want:
            differ.append(f"cell {cell.get('id')}:\n  stored: {want}\n  got:    {got}")
    assert checked >= 5, f"only {checked} key-number cells compared"
    assert not differ, "key numbers differ from the solved notebook's:\n" + "\n".join(differ)
