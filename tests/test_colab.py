"""Every notebook as a learner opens it in Colab: uploaded alone, in an environment of Colab's own packages.

Colab's runtime cannot be started here; its package set can (tests/colab_helpers.py: tests/colab/
requirements-colab.lock, Colab's published pins, in ``.venv-colab`` with Python 3.13, else the nearest Python
found, said in the output). For each of the 18 notebooks (solutions/ and notebooks/):

- course_utils is taken out of the venv first (a fresh runtime), and the notebook is copied alone into an empty
  folder, the kernel's working folder (an uploaded notebook sits so in ``/content``);
- it runs top to bottom (nbclient from this environment, the kernel from ``.venv-colab``) with ``COURSE_PACKAGE``
  naming a clean copy of the course (tracked files as in the work tree, one commit: :func:`colab_helpers.clean_copy`),
  so the notebook's own first cell pip-installs the course as it does in Colab, there from the commit it pins;
- checked: no cell raised (but cells tagged ``raises-exception``, as nbval allows them); every key-number cell
  (tagged ``nbval-check-output``) shows what the solved notebook stores, compared as the nbval run compares it
  (tests/nbval_sanitize.cfg; a learner notebook is compared with its solved one, as conftest.py does); the first
  cell printed one line, naming what it installed, and the course is installed after it, moving none of the lock's
  pins; the notebook wrote nothing into the venv's site-packages but course_utils's own install (answer files belong
  in the working folder).

One line per notebook (its time, the first cell's share of it) is printed at the end of the module and written to
test-artifacts/colab/timings.txt; a failing notebook's executed copy is saved there too.
The notebooks run in the background from the first test on, two at a time (the machine's two cores;
``COURSE_COLAB_WORKERS`` changes it), each worker in a venv of its own (``.venv-colab``, ``.venv-colab-2``: the same
lock, the second built by uv from its cache in seconds), so that one runtime's install and uninstall never race the
other's; each test waits for its notebook's result.

Alone, for debugging (the venv is built the first time, in seconds when uv's cache holds the packages)::

    .venv/bin/python -m pytest tests/test_colab.py -q -k "solutions/01"

CI (.ci/run) sets ``COURSE_REQUIRE_COLAB=1``: there a missing Python 3.13, git, or a venv that cannot be built fails
instead of skipping (or, for the Python, running on the nearest version).
"""
from __future__ import annotations

import contextlib
import copy
import json
import os
import queue
import re
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbval.plugin import coalesce_streams, get_sanitize_patterns, transform_streams_for_comparison

sys.path.insert(0, str(Path(__file__).resolve().parent))
import colab_helpers  # noqa: E402
from test_browser import skip_or_fail  # noqa: E402

ROOT = colab_helpers.ROOT
SOLUTIONS = ROOT / "solutions"
LEARNER = ROOT / "notebooks"
NOTEBOOKS = sorted(SOLUTIONS.glob("*.ipynb")) + sorted(LEARNER.glob("*.ipynb"))
ARTIFACTS = ROOT / "test-artifacts" / "colab"
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
CHECK_TAG = "nbval-check-output"
ALLOWED_ERROR_TAG = "raises-exception"
REQUIRE = "COURSE_REQUIRE_COLAB"
WHAT = "Colab-like test"
#: What nbval never compares (nbval 0.11's IPyNbFile.skip_compare, without --nbdime): the same fields are left out here.
SKIP_COMPARE = ("metadata", "traceback", "prompt_number", "output_type", "name", "execution_count",
                "application/vnd.jupyter.widget-view+json", "image/png", "image/jpeg")
CELL_TIMEOUT = 600
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def _workers(selected: int) -> int:
    """How many notebooks run at once: ``COURSE_COLAB_WORKERS``, else the cores (at most 2), at most ``selected``."""
    wanted = int(os.environ.get("COURSE_COLAB_WORKERS") or min(2, os.cpu_count() or 1))
    return max(1, min(wanted, selected))


class Runs:
    """The selected notebooks, run in the background ``len(pythons)`` at a time, each worker in a venv of its own;
    :meth:`result` waits for one notebook's."""

    def __init__(self, paths: list[Path], pythons: list[Path], source: str, scratch: Path, pins: dict):
        self.source, self.scratch, self.pins = source, scratch, pins
        self.patterns = get_sanitize_patterns(SANITIZE.read_text())
        self.free = queue.Queue()
        for python in pythons:
            self.free.put(python)
        self.results: list[dict] = []
        self.pool = ThreadPoolExecutor(len(pythons), thread_name_prefix="colab")
        self.futures = {path: self.pool.submit(self._one, path) for path in paths}

    def _one(self, path: Path) -> dict:
        stored = stored_key_outputs(path)
        python = self.free.get()
        try:
            folder = Path(tempfile.mkdtemp(dir=self.scratch)) / "content"
            run = run_notebook(path, python, self.source, folder, self.scratch / "kernels")
            run["now"], run["origin"] = colab_helpers.installed(python), colab_helpers.installed_from(python)
            problems = problems_of(run, stored, self.patterns, self.pins, self.source)
        finally:
            self.free.put(python)
        result = {"id": _id(path), "ok": not problems, "problems": problems, "nb": run["nb"],
                  "seconds": run["seconds"], "first_cell": run["first_cell"], "key_cells": len(stored),
                  "cells": sum(c.cell_type == "code" for c in run["nb"].cells), "venv": python.parent.parent.name}
        self.results.append(result)
        return result

    def result(self, path: Path) -> dict:
        return self.futures[path].result()

    def close(self) -> None:
        for future in self.futures.values():
            future.cancel()
        self.pool.shutdown(wait=True)


@pytest.fixture(scope="module")
def colab(request, tmp_path_factory):
    """{"choice": the Python, "runs": :class:`Runs` of the selected notebooks, "copy": the clean copy}."""
    choice = colab_helpers.find_python()
    if choice.path is None:
        skip_or_fail(choice.note, WHAT, REQUIRE)
    if not choice.is_colabs and os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{WHAT} required ({REQUIRE}=1) but {choice.note}")
    if shutil.which("git") is None:
        skip_or_fail("git is not installed (the first cell installs the course with pip from a git repository)",
                     WHAT, REQUIRE)
    here = Path(__file__).resolve()
    selected = [item.callspec.params["path"] for item in request.session.items
                if item.path == here and hasattr(item, "callspec") and "path" in item.callspec.params]
    start = time.monotonic()
    try:
        pythons = [colab_helpers.colab_python(choice, venv=colab_helpers.VENV if worker == 1 else
                                              colab_helpers.VENV.with_name(f"{colab_helpers.VENV.name}-{worker}"))
                   for worker in range(1, _workers(len(selected)) + 1)]
    except RuntimeError as err:
        skip_or_fail(f"the Colab-like venv could not be built: {err}", WHAT, REQUIRE)
    built = time.monotonic() - start
    scratch = tmp_path_factory.mktemp("colab")
    clean = colab_helpers.clean_copy(scratch / "course")
    runs = Runs(selected, pythons, clean.source, scratch, colab_helpers.pins(colab_helpers.LOCK.read_text().splitlines()))
    try:
        yield {"choice": choice, "runs": runs, "copy": clean}
    finally:
        runs.close()
        reporter = request.config.pluginmanager.get_plugin("terminalreporter")
        capture = request.config.pluginmanager.get_plugin("capturemanager")
        with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
            _report(choice, clean, runs.results, built, time.monotonic() - start, len(pythons),
                    reporter.write_line if reporter else print)


def _report(choice, clean, results, built: float, wall: float, workers: int, write=print) -> None:
    """One line per notebook and a total, written to test-artifacts/colab/timings.txt and with ``write``."""
    if not results:
        return
    lines = [f"Colab-like run: {choice.note}; the course from {clean.source}",
             f"venvs ready in {built:.1f} s; {workers} notebooks at a time"]
    lines += [f"{r['id']:<40} {'ok' if r['ok'] else 'FAILED':<7} {r['seconds']:6.1f} s "
              f"(first cell {r['first_cell']:.1f} s), {r['cells']} code cells, {r['key_cells']} key numbers"
              for r in sorted(results, key=lambda r: r["id"])]
    lines.append(f"{len(results)} notebooks, {sum(not r['ok'] for r in results)} failed: {wall:.0f} s from the "
                 f"start of the set-up to the last notebook ({sum(r['seconds'] for r in results):.0f} s of notebook "
                 f"time, each from its kernel's start to its last cell)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "timings.txt").write_text("\n".join(lines) + "\n")
    write("")
    for line in lines:
        write(line)


# ------------------------------------------------------------------------------------------------ one notebook
def site_packages_state(python: Path) -> dict[str, tuple[int, int]]:
    """{path relative to site-packages: (size, mtime_ns)} of every file in ``python``'s venv's site-packages."""
    lib = python.parent.parent / "lib"
    state = {}
    for site in lib.glob("python3*/site-packages"):
        for folder, _, files in os.walk(site):
            for name in files:
                path = Path(folder) / name
                stat = path.stat()
                state[str(path.relative_to(site))] = (stat.st_size, stat.st_mtime_ns)
    return state


def _course_install(relative: str) -> bool:
    """A file of course_utils's own install (its package and its dist-info)."""
    top = relative.split(os.sep)[0]
    return top == "course_utils" or (top.startswith("course_utils-") and top.endswith(".dist-info"))


def comparable(outputs: list, patterns: list[tuple[str, str]]) -> dict[str, list]:
    """Outputs as nbval's comparison sees them: streams coalesced, every field but SKIP_COMPARE, mime types flattened,
    strings sanitized with ``patterns``; {field: [values in order]}."""
    found: dict[str, list] = {}

    def sanitize(value):
        if isinstance(value, str):
            for regex, replace in patterns:
                value = re.sub(regex, replace, value)
        return value

    for output in transform_streams_for_comparison(coalesce_streams(copy.deepcopy(outputs))):
        for key, value in output.items():
            if key in SKIP_COMPARE:
                continue
            if key == "data":
                for mime, data in value.items():
                    if mime not in SKIP_COMPARE:
                        found.setdefault(mime, []).append(sanitize(data))
            else:
                found.setdefault(key, []).append(sanitize(value))
    return found


def stored_key_outputs(path: Path) -> dict[str, list]:
    """{cell id: stored outputs} of the notebook's tagged cells; a learner notebook's come from its solved one."""
    nb = nbformat.read(path, as_version=4)
    if path.parent == LEARNER:
        from conftest import graft_key_outputs  # the nbval run's own rule (conftest.py)

        graft_key_outputs(nb, SOLUTIONS / path.name)
    return {cell.get("id"): cell.outputs for cell in nb.cells
            if cell.cell_type == "code" and CHECK_TAG in cell.metadata.get("tags", [])}


def _text(output) -> str:
    if output.get("output_type") == "stream":
        return output.get("text", "")
    if output.get("output_type") == "error":
        return ANSI.sub("", "\n".join(output.get("traceback", [])))
    return str(output.get("data", {}).get("text/plain", ""))


def run_notebook(path: Path, python: Path, source: str, folder: Path, kernels: Path) -> dict:
    """Run ``path`` copied alone into ``folder`` with a kernel of ``python``'s venv (course_utils uninstalled first,
    ``COURSE_PACKAGE=source``); what it did: {"nb", "seconds", "first_cell", "before", "after"}."""
    colab_helpers.uninstall_course(python)
    folder.mkdir(parents=True)
    uploaded = folder / path.name
    shutil.copyfile(path, uploaded)
    spec = kernels / python.parent.parent.name
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({"argv": [str(python), "-m", "ipykernel_launcher", "-f",
                                                           "{connection_file}"],
                                                  "display_name": "Python 3 (Colab-like)", "language": "python"}))
    km = KernelManager(kernel_name=spec.name, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))
    # Unix sockets, not TCP ports: two kernels starting at once cannot take the port the other one chose.
    km.transport, km.ip = "ipc", str(Path(tempfile.mkdtemp(dir=kernels, prefix="ipc-")) / "k")
    nb = nbformat.read(uploaded, as_version=4)
    before = site_packages_state(python)
    client = NotebookClient(nb, km=km, timeout=CELL_TIMEOUT, startup_timeout=120, allow_errors=True,
                            resources={"metadata": {"path": str(folder)}})
    first_cell = [0.0]
    original = client.async_execute_cell

    async def timed(cell, cell_index, *args, **kwargs):
        start = time.monotonic()
        try:
            return await original(cell, cell_index, *args, **kwargs)
        finally:
            if cell.cell_type == "code" and not first_cell[0]:
                first_cell[0] = time.monotonic() - start

    client.async_execute_cell = timed
    start = time.monotonic()
    client.execute(env=colab_helpers.kernel_env(source), cwd=str(folder))
    seconds = time.monotonic() - start
    return {"nb": nb, "seconds": seconds, "first_cell": first_cell[0], "before": before,
            "after": site_packages_state(python)}


def problems_of(run: dict, stored: dict, patterns, pins: dict, source: str) -> list[str]:
    """Every way a notebook's ``run`` (:func:`run_notebook`) differs from a good one, as sentences (empty: it passed).

    Parameters
    ----------
    run : dict
        ``nb`` (the executed notebook), ``before`` and ``after`` (:func:`site_packages_state` around the run),
        ``now`` ({name: version} installed after it, :func:`colab_helpers.installed`) and ``origin`` (where the
        installed course_utils came from, :func:`colab_helpers.installed_from`).
    stored : dict
        {cell id: stored outputs} of its key-number cells (:func:`stored_key_outputs`).
    patterns : list of (str, str)
        The sanitize rules (tests/nbval_sanitize.cfg).
    pins : dict
        {name: version} of the lock.
    source : str
        The pip source the first cell was to install.
    """
    problems = []
    code = [cell for cell in run["nb"].cells if cell.cell_type == "code"]
    for number, cell in enumerate(code, 1):
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        if errors and ALLOWED_ERROR_TAG not in cell.metadata.get("tags", []):
            problems.append(f"code cell {number} (id {cell.get('id')}) raised {errors[0].ename}: {errors[0].evalue}\n"
                            f"{cell.source[:400]}\n{_text(errors[0])[-3000:]}")
    for number, cell in enumerate(code, 1):
        if cell.get("id") in stored:
            want, got = comparable(stored[cell.get("id")], patterns), comparable(cell.outputs, patterns)
            if want != got:
                problems.append(f"key-number cell {number} (id {cell.get('id')}) differs from the stored output:\n"
                                f"stored: {want}\ngot:    {got}")
    missing_keys = set(stored) - {cell.get("id") for cell in code}
    if missing_keys:
        problems.append(f"key-number cells not in the notebook run: {sorted(missing_keys)}")
    lines = [line for o in (code[0].outputs if code else []) if o.get("output_type") == "stream"
             for line in o.get("text", "").splitlines() if line.strip()]
    if len(lines) != 1 or source not in lines[0]:
        problems.append(f"the first cell printed {len(lines)} lines, not one saying what it installed ({source}): "
                        f"{lines}")
    now, origin = run["now"], run["origin"] or {}
    if colab_helpers.normalise(colab_helpers.DISTRIBUTION) not in now:
        problems.append(f"course_utils is not installed after the run (the first cell should install {source})")
    elif f"git+{origin.get('url')}@{origin.get('vcs_info', {}).get('commit_id')}" != source:
        problems.append(f"the installed course_utils did not come from {source} (COURSE_PACKAGE) but from {origin}")
    moved = {name: (version, now.get(name)) for name, version in pins.items() if now.get(name) != version}
    if moved:
        problems.append(f"the course's install moved pins of Colab's set (name: (lock, now)): {moved}")
    written = sorted(p for p in set(run["after"]) - set(run["before"]) if not _course_install(p))
    changed = sorted(p for p in set(run["after"]) & set(run["before"]) if run["after"][p] != run["before"][p])
    if written or changed:
        problems.append(f"the notebook wrote into the venv's site-packages (answer files belong in the working "
                        f"folder): new {written[:20]}, changed {changed[:20]}")
    return problems


# ------------------------------------------------------------------------------------------------ the test
@pytest.mark.parametrize("path", NOTEBOOKS, ids=_id)
def test_notebook_runs_as_an_uploaded_notebook_in_colabs_environment(path, colab):
    result = colab["runs"].result(path)
    if result["problems"]:
        saved = ARTIFACTS / f"{path.parent.name}-{path.name}"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        nbformat.write(result["nb"], saved)
        pytest.fail(f"{_id(path)} under Colab's packages ({colab['choice'].note}):\n- " + "\n- ".join(result["problems"])
                    + f"\n(executed copy: {saved.relative_to(ROOT)})")


# ------------------------------------------------------------------------------------------------ the checks, checked
def _cell(source, outputs=(), tags=(), cell_id=None):
    cell = nbformat.v4.new_code_cell(source, id=cell_id)
    cell.metadata["tags"] = list(tags)
    cell.outputs = [nbformat.from_dict(o) for o in outputs]
    return cell


def _stream(text):
    return {"output_type": "stream", "name": "stdout", "text": text}


def _good_run():
    nb = nbformat.v4.new_notebook()
    nb.cells = [_cell("setup", [_stream("Installed course_utils 1.0.0 from git+file:///x@abc\n")], cell_id="setup"),
                _cell("exercise", [{"output_type": "error", "ename": "NotImplementedError", "evalue": "",
                                    "traceback": []}], tags=[ALLOWED_ERROR_TAG], cell_id="exercise"),
                _cell("key", [_stream("<object at 0x7f00aa> [0.5 0.5]\n"),
                              {"output_type": "display_data", "metadata": {},
                               "data": {"image/png": "AAAA", "text/plain": "<Figure size 640x480 with 1 Axes>"}}],
                      tags=[CHECK_TAG], cell_id="key")]
    stored = {"key": [nbformat.from_dict(_stream("<object at 0x55bb01> [0.5 0.5]\n")),
                      nbformat.from_dict({"output_type": "display_data", "metadata": {},
                                          "data": {"image/png": "BBBB",
                                                   "text/plain": "<Figure size 640x480 with 1 Axes>"}})]}
    state = {"numpy/__init__.py": (10, 1)}
    run = {"nb": nb, "before": dict(state),
           "after": {**state, "course_utils/__init__.py": (5, 2), "course_utils-1.0.0.dist-info/RECORD": (5, 2)},
           "now": {"numpy": "2.1.3", "course-utils": "1.0.0"},
           "origin": {"url": "file:///x", "vcs_info": {"vcs": "git", "commit_id": "abc"}}}
    return run, stored, {"numpy": "2.1.3"}


PATTERNS = get_sanitize_patterns(SANITIZE.read_text())


def test_a_good_run_has_no_problems():
    run, stored, pins = _good_run()
    assert problems_of(run, stored, PATTERNS, pins, "git+file:///x@abc") == []


def test_a_course_installed_from_elsewhere_is_named():
    run, stored, pins = _good_run()
    run["origin"]["vcs_info"]["commit_id"] = "def"                               # the notebook's own pin, say
    assert problems_of(run, stored, PATTERNS, pins, "git+file:///x@abc") == [
        "the installed course_utils did not come from git+file:///x@abc (COURSE_PACKAGE) but from "
        "{'url': 'file:///x', 'vcs_info': {'vcs': 'git', 'commit_id': 'def'}}"]


def test_each_kind_of_problem_is_named():
    run, stored, pins = _good_run()
    key = run["nb"].cells[2]
    key.outputs[0].text = "<object at 0x7f00aa> [0.5 0.4]\n"                     # a key number changed
    run["nb"].cells[1].metadata["tags"] = []                                   # an error no tag allows
    run["nb"].cells[0].outputs.append(nbformat.from_dict(_stream("WARNING: pip says more\n")))
    run["after"]["inventory/answers-00.json"] = (3, 3)                         # an answer file in site-packages
    run["after"]["numpy/__init__.py"] = (11, 4)
    run["now"] = {"numpy": "2.4.0"}                                            # no course_utils, a pin moved
    problems = problems_of(run, stored, PATTERNS, pins, "git+file:///x@abc")
    text = "\n".join(problems)
    assert "code cell 2 (id exercise) raised NotImplementedError" in text
    assert "key-number cell 3 (id key) differs" in text and "[0.5 0.4]" in text
    assert "the first cell printed 2 lines" in text
    assert "course_utils is not installed after the run" in text
    assert "moved pins of Colab's set" in text and "'numpy': ('2.1.3', '2.4.0')" in text
    assert "new ['inventory/answers-00.json'], changed ['numpy/__init__.py']" in text
    assert len(problems) == 6


def test_comparison_leaves_out_what_nbval_leaves_out():
    stored = [nbformat.from_dict({"output_type": "execute_result", "execution_count": 3, "metadata": {},
                                  "data": {"text/plain": "array([1.])", "image/png": "x"}})]
    got = [nbformat.from_dict({"output_type": "execute_result", "execution_count": 9, "metadata": {"a": 1},
                               "data": {"text/plain": "array([1.])", "image/png": "y"}})]
    assert comparable(stored, PATTERNS) == comparable(got, PATTERNS) == {"text/plain": ["array([1.])"]}
    got[0].data["text/plain"] = "array([2.])"
    assert comparable(stored, PATTERNS) != comparable(got, PATTERNS)


def test_learner_notebooks_are_compared_with_the_solved_key_numbers():
    learner = stored_key_outputs(LEARNER / "01-one-attention-row.ipynb")
    solved = stored_key_outputs(SOLUTIONS / "01-one-attention-row.ipynb")
    assert learner and learner.keys() == solved.keys()
    assert all(outputs for outputs in learner.values())


@pytest.mark.parametrize("versions, chosen, colabs", [
    ({"a": (3, 11, 7), "b": (3, 13, 0), "c": (3, 12, 1)}, "b", True),
    ({"a": (3, 11, 7), "b": (3, 14, 2), "c": (3, 12, 1), "d": (3, 9, 1)}, "b", False),   # a tie: the newer
    ({"a": (3, 11, 7), "d": (3, 9, 1)}, "a", False),
])
def test_python_313_else_the_nearest_with_a_note(monkeypatch, versions, chosen, colabs):
    monkeypatch.setattr(colab_helpers, "_candidates", lambda: list(versions))
    monkeypatch.setattr(colab_helpers, "_version_of", versions.get)
    choice = colab_helpers.find_python()
    assert (str(choice.path), choice.is_colabs) == (chosen, colabs)
    assert ("the nearest" in choice.note) is not colabs and ".".join(map(str, versions[chosen])) in choice.note


def test_the_venv_is_built_once_and_again_when_its_lock_changes(tmp_path):
    """colab_python's cache: a second call keeps the venv, a changed lock builds it anew (a tiny lock, this Python)."""
    choice = colab_helpers.PythonChoice(Path(sys.executable), tuple(sys.version_info[:3]), "this Python")
    lock, venv = tmp_path / "tiny.lock", tmp_path / "venv"
    lock.write_text("six==1.17.0\n")
    try:
        python = colab_helpers.colab_python(choice, venv=venv, lock=lock)
    except RuntimeError as err:
        skip_or_fail(f"a venv could not be built here: {err}", WHAT, REQUIRE)
    assert colab_helpers.installed(python).get("six") == "1.17.0"
    (venv / "kept").touch()
    assert colab_helpers.colab_python(choice, venv=venv, lock=lock) == python and (venv / "kept").exists()
    lock.write_text("six==1.16.0\n")
    assert colab_helpers.colab_python(choice, venv=venv, lock=lock) == python and not (venv / "kept").exists()
    assert colab_helpers.installed(python).get("six") == "1.16.0"
