"""The doctor where the course is a pip-installed package, not a clone: Google Colab, and "installed" (a plain
``pip install``, a lone notebook in VS Code). Issue 22.

There it checks what matters to the running Python: its version, every requirement course_utils declares (within its
bounds, not the lock's pins), where course_utils imports from, figures, and that ipywidgets imports; never a lock, a
``.venv``, a kernelspec or a JupyterLab server. Each fix names that place's own action (Colab's Runtime menu, pip with
the kernel's own Python). Fakes first; then the real doctor in a subprocess of this Python with the course
pip-installed (``pip install --target``) and no course folder around it.
"""
from __future__ import annotations

import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from course_utils import doctor
from course_utils.doctor import CourseEnv

ROOT = Path(__file__).resolve().parent.parent
HUB = {"JUPYTERHUB_USER": "learner-1", "JUPYTERHUB_API_URL": "http://127.0.0.1:8081/hub/api"}
BINDER = {**HUB, "BINDER_LAUNCH_HOST": "https://mybinder.org/"}
COLAB_MODULES = {"google.colab": object()}
#: What a clone's checks name; none of it exists where the course is an installed package.
CLONE_WORDS = ("make ", "`make", ".venv", "requirements.lock", "lock", "kernelspec", "JupyterLab", "course folder")


def _env(where, repo=None):
    return CourseEnv(repo, None, sys.executable, where)


def _nothing_of_a_clone(*texts):
    said = " ".join(texts).replace(sys.executable, "PYTHON")  # this Python's path may hold anything
    assert not [w for w in CLONE_WORDS if w in said], said


# -- where ------------------------------------------------------------------------------------------------------
def test_place_tells_colab_and_an_installed_package_from_the_clone_places():
    assert doctor.place({}, {}, folder=ROOT) == "clone"
    assert doctor.place({}, COLAB_MODULES, folder=None) == "colab"
    assert doctor.place({"COLAB_RELEASE_TAG": "release-colab_20260819-060000"}, {}, folder=None) == "colab"
    assert doctor.place({"COLAB_RELEASE_TAG": "x"}, {}, folder=ROOT) == "colab"  # a clone in Colab: still Colab's
    assert doctor.place({}, {}, folder=None) == "installed"
    assert doctor.place(HUB, {}, folder=None) == "installed"  # a lone notebook on a hub: nothing of the clone's
    assert doctor.place(HUB, {}, folder=ROOT) == "hub"  # a hub clone stays a hub
    assert doctor.place(BINDER, {}, folder=ROOT) == "binder"


def test_place_looks_for_the_course_folder_itself(monkeypatch):
    assert doctor.place({}, {}) == "clone"  # this checkout is found (from course_utils' own location)
    monkeypatch.setattr(doctor, "find_repo", lambda start=None: None)
    assert doctor.place({}, {}) == "installed"
    env = doctor.course_env()
    assert env == CourseEnv(None, None, sys.executable, "installed")
    assert env.show("/opt/py/bin/python") == "/opt/py/bin/python"
    with pytest.raises(FileNotFoundError):
        doctor.course_env(where="hub")


# -- what course_utils declares -----------------------------------------------------------------------------------
DECLARED = ["numpy>=2.0", "matplotlib>=3.10", "ipywidgets>=7.7.1", "anywidget>=0.9", 'tomli>=1; python_version < "3.0"',
            'nbconvert>=7; extra == "maintainers"']
COLABS = {"numpy": "2.1.3", "matplotlib": "3.10.0", "ipywidgets": "7.7.1", "anywidget": "0.9.21"}


@pytest.mark.parametrize("where", doctor.PACKAGE_PLACES)
def test_colabs_own_versions_meet_the_declared_bounds(where):
    result = doctor.diagnose_requirements(DECLARED, COLABS, dict(COLABS), "course_utils 1.2.0", _env(where))
    assert result.ok, result
    assert result.message == ("the 4 packages course_utils 1.2.0 needs meet its bounds: numpy 2.1.3, "
                              "matplotlib 3.10.0, ipywidgets 7.7.1, anywidget 0.9.21")  # no tomli, no nbconvert
    _nothing_of_a_clone(result.message)


def test_a_package_below_its_bound_or_missing_is_a_problem_fixed_with_pip_in_the_kernels_python():
    installed = dict(COLABS, numpy="1.26.4")
    del installed["anywidget"]
    result = doctor.diagnose_requirements(DECLARED, installed, {}, "course_utils 1.2.0", _env("installed"))
    assert not result.ok
    assert result.message == ("2 of the 4 packages course_utils 1.2.0 needs are not as it needs them: numpy 1.26.4 "
                              "(needs >=2.0), anywidget missing (needs >=0.9)")
    assert result.fix.startswith(f'`"{sys.executable}" -m pip install "numpy>=2.0" "anywidget>=0.9"`, then restart')
    _nothing_of_a_clone(result.message, result.fix)


def test_in_colab_the_fix_is_a_pip_cell_then_restart_session():
    result = doctor.diagnose_requirements(["numpy>=2.0"], {"numpy": "1.26.4"}, {}, "course_utils", _env("colab"))
    assert result.fix == ('Run `%pip install "numpy>=2.0"` in a cell, then Runtime > Restart session, then run this '
                          "notebook again")


@pytest.mark.parametrize("where, restart", [("colab", "Runtime > Restart session"),
                                            ("installed", "Restart the notebook's kernel")])
def test_a_package_pip_changed_after_it_was_imported_needs_a_restart(where, restart):
    result = doctor.diagnose_requirements(["numpy>=2.0"], {"numpy": "2.2.0"}, {"numpy": "2.1.3"}, "course_utils",
                                          _env(where))
    assert not result.ok and "numpy 2.1.3 is loaded, 2.2.0 is installed" in result.message
    assert result.fix.startswith(restart)
    same = doctor.diagnose_requirements(["numpy>=2.0"], {"numpy": "2.1.3"}, {"numpy": "2.1.3"}, "x", _env(where))
    assert same.ok


def test_without_metadata_or_with_an_unreadable_requirement_it_says_so():
    missing = doctor.diagnose_requirements(None, COLABS, {}, "course_utils", _env("colab"))
    assert not missing.ok and "not installed as a package" in missing.message and missing.fix == doctor.COLAB_FRESH
    bad = doctor.diagnose_requirements(["numpy>>2"], COLABS, {}, "course_utils 1.2.0", _env("colab"))
    assert not bad.ok and "cannot read" in bad.message and "maintainers" in bad.fix


# -- course_utils itself ------------------------------------------------------------------------------------------
SITE = "/usr/local/lib/python3.13/dist-packages"
FROM_GIT = {"version": "1.2.0", "init": f"{SITE}/course_utils/__init__.py", "editable": False,
            "source": "git+https://github.com/OWNER/REPO@0123abc"}


def test_course_utils_from_the_installed_package_is_ok_and_named_with_its_version_and_source():
    result = doctor.diagnose_installed_course_utils(FROM_GIT["init"], None, FROM_GIT, _env("colab"))
    assert result.ok
    assert result.message == (f"course_utils 1.2.0 imported from {Path(SITE).resolve() / 'course_utils'}, installed "
                              "from git+https://github.com/OWNER/REPO@0123abc")


def test_a_folder_named_course_utils_that_hides_the_installed_one_is_a_problem(tmp_path):
    stray = tmp_path / "course_utils" / "__init__.py"
    result = doctor.diagnose_installed_course_utils(str(stray), None, FROM_GIT, _env("colab"))
    assert not result.ok and f"imported from {stray.parent}, not from the installed course_utils 1.2.0" in result.message
    assert result.fix == f"Rename or move the folder {stray.parent}, then Runtime > Restart session, then run this " \
                         "notebook again"


def test_course_utils_that_does_not_import_is_installed_again():
    failed = doctor.diagnose_installed_course_utils(None, "ModuleNotFoundError: No module named 'course_utils'", None,
                                                    _env("colab"))
    assert not failed.ok and failed.fix == doctor.COLAB_FRESH
    here = doctor.diagnose_installed_course_utils(__file__, None, None, _env("installed"))
    assert here.ok and "not installed as a package" in here.message


def test_installed_reinstalls_from_the_source_pip_recorded(monkeypatch):
    env = _env("installed")
    monkeypatch.setattr(doctor, "_installed_course_utils", lambda: FROM_GIT)
    assert doctor.reinstall_fix(env).startswith(
        f'`"{sys.executable}" -m pip install --force-reinstall --no-deps "git+https://github.com/OWNER/REPO@0123abc"`')
    monkeypatch.setattr(doctor, "_installed_course_utils", lambda: dict(FROM_GIT, source="/home/me/course", editable=True))
    assert '--no-deps -e "/home/me/course"`' in doctor.reinstall_fix(env)
    monkeypatch.setattr(doctor, "_installed_course_utils", lambda: None)
    assert doctor.reinstall_fix(env).startswith(f"Install the course again with pip into this Python ({sys.executable})")


def test_the_pip_source_is_read_from_direct_url_json():
    vcs = {"url": "https://github.com/OWNER/REPO", "vcs_info": {"vcs": "git", "commit_id": "0123abc" * 5}}
    assert doctor._pip_source(vcs) == f"git+https://github.com/OWNER/REPO@{'0123abc' * 5}"
    assert doctor._pip_source({"url": "file:///home/me/course", "dir_info": {}}) == "/home/me/course"
    assert doctor._pip_source({"url": "https://example.org/course.zip", "archive_info": {}}) == \
        "https://example.org/course.zip"
    assert doctor._pip_source({}) is None and doctor._pip_source(None) is None


# -- Python, widgets, figures -------------------------------------------------------------------------------------
def test_python_is_judged_by_its_version_alone_with_the_places_fix():
    ok = doctor.diagnose_python((3, 13, 0), "/usr", "/usr/bin/python3", _env("colab"))
    assert ok.ok and ok.message == "Python 3.13.0 at /usr/bin/python3 (this Colab runtime's Python)"
    old = doctor.diagnose_python((3, 9, 18), "/usr", "/usr/bin/python3", _env("colab"))
    assert not old.ok and old.fix == doctor.COLAB_FRESH
    old = doctor.diagnose_python((3, 9, 18), "/usr", "/usr/bin/python3", _env("installed"))
    assert not old.ok and "pick it as the notebook's kernel" in old.fix
    _nothing_of_a_clone(old.fix)


def test_widgets_say_what_was_checked_and_what_to_look_for():
    result = doctor.diagnose_widgets_import("7.7.1", None, _env("colab"))
    assert result.ok and result.message.startswith("ipywidgets 7.7.1 imports; the page's own widget support cannot be "
                                                   "checked from Python: moving a slider must redraw its picture")
    assert "can render" not in result.message  # no claim about a page that was not looked at
    requirement = doctor.parse_requirement("ipywidgets>=7.7.1")
    failed = doctor.diagnose_widgets_import(None, "ModuleNotFoundError: No module named 'ipywidgets'", _env("colab"),
                                            requirement)
    assert not failed.ok and failed.fix.startswith('Run `%pip install "ipywidgets>=7.7.1"` in a cell')


def test_a_figure_that_cannot_be_drawn_is_reinstalled_with_pip_at_its_version():
    def broken():
        raise RuntimeError("no fonts")
    result = doctor.diagnose_figure(draw=broken, env=_env("installed"))
    assert not result.ok
    assert f'-m pip install --force-reinstall --no-deps "matplotlib=={metadata.version("matplotlib")}"`' in result.fix


# -- the gatherers notebook 00 calls, and the summary ---------------------------------------------------------------
def _no_server(*_args, **_kwargs):
    raise AssertionError("no Jupyter server is probed where the course is an installed package")


@pytest.mark.parametrize("where", doctor.PACKAGE_PLACES)
def test_notebook_00s_calls_pass_here_as_an_installed_package(where, monkeypatch, capsys):
    monkeypatch.setattr(doctor, "probe_server", _no_server)
    monkeypatch.setattr(doctor, "probe_server_commands", _no_server)
    monkeypatch.setattr(doctor, "find_repo", lambda start=None: None)
    import matplotlib  # its backend, as a kernel sets it (the one of this process is chosen once, by whoever drew first)
    monkeypatch.setattr(matplotlib, "get_backend", lambda: "module://matplotlib_inline.backend_inline")
    if where == "colab":
        monkeypatch.setenv("COLAB_RELEASE_TAG", "release-colab_20260819-060000")
    env = doctor.course_env()
    assert env.where == where and env.repo is None
    results = (doctor.python_diagnoses("kernel") + doctor.package_diagnoses("kernel") + doctor.server_diagnoses("kernel")
               + doctor.matplotlib_diagnoses("kernel"))
    assert [r.name for r in results] == ["python", "packages", "course_utils", "widgets", "matplotlib"]
    assert all(r.ok for r in results), "\n".join(map(str, results))
    _nothing_of_a_clone(*(r.message for r in results))
    assert doctor.summary(results, next_step="Go on to notebook 01.") is True
    assert capsys.readouterr().out == "All set: 5 checks passed. Go on to notebook 01.\n"


def test_the_summary_of_a_problem_in_colab_names_colabs_way_to_run_it_again(capsys):
    problem = doctor.Finding("packages", False, "numpy missing", "Run `%pip install numpy` in a cell")
    assert doctor.summary([problem], _env("colab"), width=200) is False
    out = capsys.readouterr().out
    assert out.startswith("1 problem found. Fix it, then run notebook 00 (or `!python -m course_utils.doctor` "
                          "in a cell) again:")
    _nothing_of_a_clone(out)
    doctor.summary([], _env("installed"), width=200)
    assert capsys.readouterr().out == "All set: 0 checks passed. Open the course's notebooks with this Python as " \
                                      "their kernel.\n"


# -- the first cell's note -----------------------------------------------------------------------------------------
SOURCE = "git+https://github.com/OWNER/REPO@0123abc"


def test_installed_note_names_the_version_the_source_and_where_it_went(monkeypatch):
    version = metadata.version("course_utils")
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    assert doctor.installed_note(SOURCE) == (f"Installed the course's code: course_utils {version} from {SOURCE} (pip, "
                                             f"into {sys.executable}).")
    monkeypatch.setitem(sys.modules, "google.colab", object())
    assert doctor.installed_note(SOURCE).split("\n") == [
        f"Installed the course's code: course_utils {version} from {SOURCE} (pip, into this runtime's Python).",
        "A Colab runtime forgets it and every file saved here when it stops: File > Download keeps your notebook."]


def test_installed_note_without_metadata_still_prints_its_line(monkeypatch):
    def missing(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(metadata, "version", missing)
    monkeypatch.setenv("COLAB_RELEASE_TAG", "x")
    assert doctor.installed_note(SOURCE).startswith(f"Installed the course's code: course_utils (version unknown) from "
                                                    f"{SOURCE}")


# -- the real doctor on the course pip-installed, with no course folder around it ----------------------------------
@pytest.fixture(scope="module")
def installed_copy(tmp_path_factory):
    """The course pip-installed (``pip install --no-deps --target``) from a copy of its package files: a site folder
    to put first on PYTHONPATH, where course_utils and its metadata lie with no course folder around them."""
    scratch = tmp_path_factory.mktemp("doctor-installed")
    source = scratch / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        (source / name).write_bytes((ROOT / name).read_bytes())
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "course_utils"], capture_output=True, check=True)
    for name in filter(None, listed.stdout.decode().split("\0")):
        if (ROOT / name).exists():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            (source / name).write_bytes((ROOT / name).read_bytes())
    site = scratch / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                           str(source)], capture_output=True, text=True, timeout=600, cwd=scratch)
    if done.returncode != 0 and any(s in done.stdout + done.stderr for s in ("No matching distribution", "connection",
                                                                              "Could not find a version")):
        pytest.skip(f"pip cannot fetch the build backend (setuptools) here: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stdout + done.stderr
    (scratch / "work").mkdir()
    return site, scratch / "work"


def _run_installed(installed_copy, args, **variables):
    site, work = installed_copy
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COLAB_RELEASE_TAG", "MPLBACKEND", "JUPYTER_PATH")}
    env.update(PYTHONPATH=str(site), COLUMNS="300", **variables)
    return subprocess.run([sys.executable, *args], cwd=work, env=env, capture_output=True, text=True, timeout=300)


def _checks(out):
    return [line for line in out.splitlines() if line.startswith(("ok ", "PROBLEM "))]


def test_python_m_doctor_on_an_installed_course_checks_only_what_matters_there(installed_copy):
    site, _ = installed_copy
    done = _run_installed(installed_copy, ["-m", "course_utils.doctor"])
    assert done.returncode == 0, done.stdout + done.stderr
    requires = metadata.Distribution.at(next(site.glob("course_utils-*.dist-info"))).requires or []
    checks = _checks(done.stdout)
    assert [line.split(":")[0].split()[-1] for line in checks] == ["python", "packages", "course_utils", "matplotlib",
                                                                   "widgets"], done.stdout
    assert all(line.startswith("ok ") for line in checks), done.stdout
    declared = len([r for r in map(doctor.parse_requirement, requires) if r.applies()])
    assert f"ok       packages: the {declared} packages course_utils " in done.stdout
    assert f"imported from {(site / 'course_utils').resolve()}" in done.stdout
    assert "All set: 5 checks passed. Open the course's notebooks with this Python as their kernel." in done.stdout
    _nothing_of_a_clone("\n".join(checks))


def test_notebook_00s_calls_in_colab_on_an_installed_course(installed_copy):
    code = ("from course_utils import doctor\n"
            "print('place', doctor.place())\n"
            "results = (doctor.python_diagnoses('kernel') + doctor.package_diagnoses('kernel')\n"
            "           + doctor.server_diagnoses('kernel') + doctor.matplotlib_diagnoses('kernel'))\n"
            "doctor.show(results)\n"
            "doctor.summary(results, next_step='Go on to notebook 01.')\n")
    done = _run_installed(installed_copy, ["-c", code], COLAB_RELEASE_TAG="release-colab_20260819-060000",
                          MPLBACKEND="module://matplotlib_inline.backend_inline")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "place colab" in done.stdout
    assert len(_checks(done.stdout)) == 5 and all(line.startswith("ok ") for line in _checks(done.stdout)), done.stdout
    assert "(this Colab runtime's Python)" in done.stdout
    assert "All set: 5 checks passed. Go on to notebook 01." in done.stdout


def test_an_unmet_declared_requirement_is_reported_with_the_kernels_pip(installed_copy):
    site, _ = installed_copy
    metadata_file = next(site.glob("course_utils-*.dist-info")) / "METADATA"
    original = metadata_file.read_text()
    head, _, body = original.partition("\n\n")
    metadata_file.write_text(head + "\nRequires-Dist: numpy>=99\nRequires-Dist: no-such-package-for-the-doctor\n\n"
                             + body)
    try:
        done = _run_installed(installed_copy, ["-m", "course_utils.doctor"])
    finally:
        metadata_file.write_text(original)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "are not as it needs them: numpy " in done.stdout and "(needs >=99)" in done.stdout
    assert "no-such-package-for-the-doctor missing (needs any version)" in done.stdout
    assert f'fix: `"{sys.executable}" -m pip install "numpy>=99" "no-such-package-for-the-doctor"`' in done.stdout
    assert "1 problem found. Fix it, then run notebook 00 (or `python -m course_utils.doctor` with the Python " \
           "the course is in) again:" in done.stdout
