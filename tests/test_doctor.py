"""course_utils.doctor: every failure it must find is provoked with fake inputs (versions, kernelspec
JSON, script files, stamp times), then the real command runs on the real environment (exit 0) and
with a fake kernelspec and widget extension on JUPYTER_PATH (exit 1, both reported)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import doctor as doctor_tool  # tools/doctor.py (conftest.py puts tools/ on sys.path): make doctor's kernelspec check
import pytest

import course_utils
from course_utils import doctor
from course_utils.doctor import CourseEnv, Finding

ROOT = Path(__file__).resolve().parent.parent
LOCK_PINS = doctor.parse_lock((ROOT / doctor.lock_name(sys.version_info)).read_text())
EDITABLE_HERE = {"url": ROOT.as_uri(), "dir_info": {"editable": True}}


# fake_env (a course folder with a .venv): conftest.py, shared with tests/test_launcher_messages.py


@pytest.fixture
def real_env():
    return doctor.course_env(ROOT)


# -- lock files -----------------------------------------------------------------------------------
def test_lock_name_picks_the_py310_lock_only_on_python_310():
    assert doctor.lock_name((3, 10, 14)) == "requirements-py310.lock"
    assert doctor.lock_name((3, 11, 7)) == "requirements.lock"
    assert doctor.lock_name((3, 13, 0)) == "requirements.lock"


def test_parse_lock_normalises_names_and_skips_comments():
    pins = doctor.parse_lock("# header\nJinja2==3.1.6\njupyter_core==5.9.1  # note\n\nzipp==3.1 ; python_version<'3.12'\n")
    assert pins == {"jinja2": "3.1.6", "jupyter-core": "5.9.1", "zipp": "3.1"}


def test_find_repo_from_the_notebooks_folder():
    assert doctor.find_repo(ROOT / "notebooks") == ROOT
    assert doctor.course_env(ROOT).repo == ROOT


# -- 1. wrong Python ------------------------------------------------------------------------------
def test_python_older_than_310_is_a_problem_with_the_rebuild_command(fake_env):
    result = doctor.diagnose_python((3, 9, 7), str(fake_env.venv), fake_env.python, fake_env)
    assert not result.ok
    assert "Python 3.9.7 is too old: the course needs 3.10 or newer" in result.message
    assert "make clean-env && make env PYTHON=python3.11" in result.fix


def test_a_python_other_than_the_venvs_is_a_problem(fake_env):
    result = doctor.diagnose_python((3, 11, 2), "/usr", "/usr/bin/python3", fake_env)
    assert not result.ok
    assert "this is /usr/bin/python3 (Python 3.11.2), not the course's Python (.venv/bin/python)" in result.message
    assert "`make doctor`" in result.fix and "source .venv/bin/activate" in result.fix


def test_the_venvs_python_passes_and_without_a_venv_any_new_python_passes(fake_env):
    assert doctor.diagnose_python((3, 11, 7), str(fake_env.venv), fake_env.python, fake_env).ok
    no_venv = CourseEnv(fake_env.repo, None, "/opt/conda/bin/python")
    result = doctor.diagnose_python((3, 12, 1), "/opt/conda", "/opt/conda/bin/python", no_venv)
    assert result.ok and "no .venv here" in result.message


def test_a_kernel_from_another_environment_is_a_problem(fake_env):
    result = doctor.diagnose_kernel_python("/usr/bin/python3", "/usr", fake_env)
    assert not result.ok
    assert "this notebook's kernel runs /usr/bin/python3, not the course's Python" in result.message
    assert "make lab" in result.fix and "Kernel > Change Kernel" in result.fix
    assert doctor.diagnose_kernel_python(fake_env.python, str(fake_env.venv), fake_env).ok


# -- 4. stale install -----------------------------------------------------------------------------
def test_installed_versions_that_differ_from_the_lock_are_listed_with_the_reinstall_command(real_env):
    installed = dict(LOCK_PINS, numpy="1.26.4")
    del installed["ipywidgets"]
    result = doctor.diagnose_packages(LOCK_PINS, installed, "requirements.lock", real_env)
    assert not result.ok
    assert result.message.startswith("2 packages differ from requirements.lock: ")
    assert f"ipywidgets missing (lock: {LOCK_PINS['ipywidgets']})" in result.message
    assert f"numpy 1.26.4 (lock: {LOCK_PINS['numpy']})" in result.message
    assert result.fix == f".venv/bin/python -m pip install --no-deps -r {doctor.lock_name(sys.version_info)}"


def test_packages_match_and_extra_packages_are_ignored(real_env):
    installed = dict(LOCK_PINS, torch="2.13.0+cpu")
    result = doctor.diagnose_packages(LOCK_PINS, installed, "requirements.lock", real_env)
    assert result.ok and result.message == f"{len(LOCK_PINS)} packages match requirements.lock"


def test_without_a_venv_only_the_direct_requirements_are_compared(real_env):
    installed = dict(LOCK_PINS, anyio="0.0.1")  # a transitive package conda resolved differently
    assert doctor.diagnose_packages(LOCK_PINS, installed, "requirements.lock", real_env, only=["numpy", "ipywidgets"]).ok
    installed["numpy"] = "1.0"
    assert not doctor.diagnose_packages(LOCK_PINS, installed, "requirements.lock", real_env, only=["numpy"]).ok


def test_course_utils_from_another_clone_is_a_problem(real_env, tmp_path):
    other = tmp_path / "old-clone" / "course_utils" / "__init__.py"
    result = doctor.diagnose_course_utils(str(other), None, EDITABLE_HERE, real_env)
    assert not result.ok
    assert f"imported from {other.parent}, not from this repository ({ROOT})" in result.message
    assert result.fix == "In the course folder: `.venv/bin/python -m pip install --no-deps -e .`"


def test_course_utils_not_installed_or_installed_as_a_copy_is_a_problem(real_env, tmp_path):
    here = course_utils.__file__
    missing = doctor.diagnose_course_utils(here, None, None, real_env)
    assert not missing.ok and "ModuleNotFoundError" in missing.message
    copy = doctor.diagnose_course_utils(here, None, {"url": tmp_path.as_uri(), "dir_info": {}}, real_env)
    assert not copy.ok and f"a copy from {tmp_path}" in copy.message
    not_editable = doctor.diagnose_course_utils(here, None, {"url": ROOT.as_uri()}, real_env)
    assert not not_editable.ok
    failed = doctor.diagnose_course_utils(None, "ModuleNotFoundError: No module named 'numpy'", None, real_env)
    assert not failed.ok and "pip install --no-deps -r" in failed.fix
    assert doctor.diagnose_course_utils(here, None, EDITABLE_HERE, real_env).ok


def test_a_stamp_older_than_the_lock_or_missing_is_a_problem(fake_env):
    lock = fake_env.repo / "requirements.lock"
    missing = doctor.diagnose_stamp(fake_env, lock)
    assert not missing.ok and "never completed by `make env`" in missing.message and missing.fix == "`make env`"
    stamp = fake_env.venv / ".installed-requirements.lock"
    stamp.touch()
    os.utime(stamp, (1_700_000_000, 1_700_000_000))
    os.utime(lock, (1_700_000_100, 1_700_000_100))
    stale = doctor.diagnose_stamp(fake_env, lock)
    assert not stale.ok and "requirements.lock changed" in stale.message and "`make env`" in stale.fix
    assert re.search(r"changed \(\d{4}-\d\d-\d\d \d\d:\d\d\) after the environment was built \(", stale.message)
    os.utime(stamp, (1_700_000_000, 1_700_000_000))  # 22:13:20 UTC
    os.utime(lock, (1_700_000_030, 1_700_000_030))   # 22:13:50 UTC: the same minute, so the seconds tell them apart
    close = doctor.diagnose_stamp(fake_env, lock).message
    times = re.findall(r"\((\d{4}-\d\d-\d\d [\d:]+)\)", close)
    assert len(times) == 2 and times[0] != times[1] and all(t.count(":") == 2 for t in times), close
    os.utime(stamp, (1_700_000_200, 1_700_000_200))
    assert doctor.diagnose_stamp(fake_env, lock).ok


# -- matplotlib -----------------------------------------------------------------------------------
def test_a_non_inline_backend_in_a_notebook_is_a_problem():
    result = doctor.diagnose_matplotlib_backend("agg")
    assert not result.ok and "backend is 'agg'" in result.message and "%matplotlib inline" in result.fix
    assert doctor.diagnose_matplotlib_backend("module://matplotlib_inline.backend_inline").ok
    assert doctor.diagnose_matplotlib_backend("module://ipympl.backend_nbagg").ok


def test_a_figure_that_cannot_be_drawn_is_a_problem():
    def broken():
        raise RuntimeError("no fonts")
    result = doctor.diagnose_figure(draw=broken)
    assert not result.ok and "RuntimeError: no fonts" in result.message
    assert not doctor.diagnose_figure(draw=lambda: b"GIF89a").ok
    assert doctor.diagnose_figure().ok


# -- reading scripts and processes -----------------------------------------------------------------
@pytest.mark.parametrize("head, expected", [
    ("#!/opt/env/bin/python3.11\nimport sys\n", "/opt/env/bin/python3.11"),
    ("#!/bin/sh\n'''exec' \"/very/long/path/bin/python\" \"$0\" \"$@\"\n' '''\n", "/very/long/path/bin/python"),
    ("#!/usr/bin/env bash\nexec pyenv exec jupyter \"$@\"\n", None),  # a pyenv shim
    ("MZ\x90\x00binary", None),
])
def test_interpreter_from_script(tmp_path, head, expected):
    script = tmp_path / "jupyter"
    script.write_text(head)
    assert doctor.interpreter_from_script(script) == expected


def test_interpreter_from_an_env_shebang_is_looked_up_on_path(tmp_path):
    script = tmp_path / "jupyter"
    script.write_text("#!/usr/bin/env python3\n")
    found = doctor.interpreter_from_script(script)
    assert found is None or os.path.basename(found).startswith("python3")


@pytest.mark.parametrize("cmdline, expected", [
    (["/repo/.venv/bin/python", ".venv/bin/jupyter-lab", "--no-browser"], "/repo/.venv/bin/python"),
    (["/opt/py/bin/python", "-m", "jupyterlab", "--port=9000"], "/opt/py/bin/python"),
    (["/srv/conda/bin/python", "/srv/conda/bin/jupyterhub-singleuser"], "/srv/conda/bin/python"),
    (["/repo/.venv/bin/python", "-m", "pytest", "-q"], None),
    (["/repo/.venv/bin/python", "tools/build.py", "--execute-solutions"], None),
    (["/usr/share/code/code", "--type=utility"], None),
    ([], None),
])
def test_server_from_cmdline(cmdline, expected):
    assert doctor.server_from_cmdline(cmdline) == expected


def test_kernel_argv_python_means_the_servers_own_interpreter():
    server = {"executable": "/srv/env/bin/python", "version": [3, 11, 7]}
    assert doctor_tool.kernel_interpreter(["python", "-m", "ipykernel_launcher"], server) == "/srv/env/bin/python"
    assert doctor_tool.kernel_interpreter(["python3.11", "-m", "ipykernel_launcher"], server) == "/srv/env/bin/python"
    assert doctor_tool.kernel_interpreter(["/usr/bin/python3", "-m", "ipykernel_launcher"], server) == "/usr/bin/python3"


# -- 2. widgets in the server's environment ----------------------------------------------------------
def _server(prefix="/srv/other", manager=("/srv/other/share/jupyter/labextensions/@jupyter-widgets/"
                                           "jupyterlab-manager/package.json", "5.0.16"), lab="4.6.6"):
    return {"executable": f"{prefix}/bin/python", "prefix": prefix, "version": [3, 11, 7], "jupyter_path": "",
            "dists": {"jupyterlab": lab}, "widget_labextensions": [list(manager)] if manager else []}


def test_a_jupyterlab_without_jupyterlab_widgets_is_a_problem(real_env):
    result = doctor.diagnose_server_widgets(_server(manager=None), "jupyter on PATH: /srv/other/bin/jupyter",
                                         "8.1.9", real_env, is_course_server=False, widgets_pin="3.0.17")
    assert not result.ok
    assert "cannot draw widgets: jupyterlab_widgets is not installed in its environment (/srv/other/bin/python)" \
        in result.message
    assert "IntSlider(value=0)" in result.message
    assert "`make lab`" in result.fix
    assert '`/srv/other/bin/python -m pip install "jupyterlab_widgets==3.0.17"`' in result.fix


def test_the_course_jupyterlab_without_the_extension_gets_the_lock_reinstalled(real_env):
    result = doctor.diagnose_server_widgets(_server(manager=None), ".venv/bin/jupyter", "8.1.9", real_env,
                                         is_course_server=True)
    assert not result.ok and result.fix.startswith(".venv/bin/python -m pip install --no-deps -r ")


def test_a_widget_extension_for_ipywidgets_7_is_a_problem(real_env):
    in_env = _server(manager=("/srv/other/share/jupyter/labextensions/@jupyter-widgets/jupyterlab-manager/"
                              "package.json", "3.1.9"))
    result = doctor.diagnose_server_widgets(in_env, "jupyter on PATH", "8.1.9", real_env, is_course_server=False)
    assert not result.ok and "widget extension 3.1.9" in result.message and "cannot draw ipywidgets 8.1.9" in result.message
    assert "`make lab`" in result.fix
    # a stray old copy in the user's folder comes first on the search path: remove it
    stray = "/home/me/.local/share/jupyter/labextensions/@jupyter-widgets/jupyterlab-manager"
    user = _server(prefix=str(ROOT / ".venv"), manager=(stray + "/package.json", "3.0.1"))
    result = doctor.diagnose_server_widgets(user, ".venv/bin/jupyter", "8.1.9", real_env, is_course_server=True)
    assert not result.ok and result.fix.endswith(f"`rm -r '{stray}'`")


def test_no_jupyterlab_or_a_too_old_one_is_a_problem(real_env):
    assert not doctor.diagnose_server_widgets(_server(lab=None), "x", "8.1.9", real_env, False).ok
    assert not doctor.diagnose_server_widgets(_server(lab="2.3.2"), "x", "8.1.9", real_env, False).ok
    ok = doctor.diagnose_server_widgets(_server(), "x", "8.1.9", real_env, False)
    assert ok.ok and ok.message == "JupyterLab 4.6.6 with widget extension 5.0.16: sliders can render"


# -- 3. a kernel from another environment --------------------------------------------------------------
def _specs(argv0, resource_dir):
    return {"python3": {"resource_dir": resource_dir, "spec": {"argv": [argv0, "-m", "ipykernel_launcher"]}}}


def _never(*_):
    raise AssertionError("the course's own interpreter needs no probe")


def test_the_course_kernel_passes_without_probing(real_env):
    server = dict(_server(prefix=str(ROOT / ".venv")), executable=real_env.python,
                  kernelspecs=_specs("python", str(ROOT / ".venv/share/jupyter/kernels/python3")))
    result = doctor_tool.diagnose_kernelspec(server, ".venv/bin/jupyter", real_env, "2.4.6", True, probe=_never)
    assert result.ok and result.message == "its python3 kernel runs .venv/bin/python, the course's Python"


def test_a_user_kernelspec_naming_another_python_is_a_problem_with_the_rm_fix(real_env):
    spec_dir = "/home/me/.local/share/jupyter/kernels/python3"
    server = dict(_server(prefix=str(ROOT / ".venv")), kernelspecs=_specs("/usr/bin/python3", spec_dir))
    found = {"numpy": None, "course_utils": None, "ipykernel": True}
    result = doctor_tool.diagnose_kernelspec(server, ".venv/bin/jupyter", real_env, "2.4.6", True, probe=lambda *_: found)
    assert not result.ok
    assert result.message == ("its python3 kernel runs /usr/bin/python3, which cannot import course_utils and has "
                              f"no numpy (the course's: 2.4.6) (kernelspec: {spec_dir})")
    assert f"`rm -r '{spec_dir}'`" in result.fix


def test_a_kernel_with_a_different_numpy_from_jupyter_path_is_a_problem(real_env):
    server = dict(_server(prefix=str(ROOT / ".venv")), jupyter_path="/shared/jupyter",
                  kernelspecs=_specs("/opt/conda/bin/python", "/shared/jupyter/kernels/python3"))
    found = {"numpy": "1.26.4", "course_utils": course_utils.__file__, "ipykernel": True}
    result = doctor_tool.diagnose_kernelspec(server, ".venv/bin/jupyter", real_env, "2.4.6", True, probe=lambda *_: found)
    assert not result.ok and "has numpy 1.26.4 (the course's: 2.4.6)" in result.message
    assert "`unset JUPYTER_PATH`" in result.fix


def test_the_python3_kernel_of_another_jupyterlab_is_a_problem_fixed_by_make_lab(real_env):
    server = dict(_server(), kernelspecs=_specs("python", "/srv/other/share/jupyter/kernels/python3"))
    found = {"numpy": None, "course_utils": None, "ipykernel": True}
    result = doctor_tool.diagnose_kernelspec(server, "jupyter on PATH", real_env, "2.4.6", False, probe=lambda *_: found)
    assert not result.ok and "runs /srv/other/bin/python" in result.message
    assert result.fix.startswith("Start JupyterLab with `make lab`")


def test_missing_interpreter_missing_spec_and_another_good_env(real_env):
    server = dict(_server(), kernelspecs=_specs("/gone/bin/python", "/gone/kernels/python3"))
    gone = doctor_tool.diagnose_kernelspec(server, "x", real_env, "2.4.6", False)  # the real probe: file does not exist
    assert not gone.ok and "which does not exist" in gone.message
    no_spec = doctor_tool.diagnose_kernelspec(dict(_server(), kernelspecs={}), "x", real_env, "2.4.6", False)
    assert not no_spec.ok and "no python3 kernel" in no_spec.message
    good = {"numpy": "2.4.6", "course_utils": course_utils.__file__, "ipykernel": True}
    conda = dict(_server(), kernelspecs=_specs("/opt/conda/envs/course/bin/python", "/x/kernels/python3"))
    assert doctor_tool.diagnose_kernelspec(conda, "x", real_env, "2.4.6", False, probe=lambda *_: good).ok


# -- the whole run ----------------------------------------------------------------------------------
def test_main_prints_one_line_per_check_then_the_fixes_and_exits_1(monkeypatch, capsys):
    results = [Finding("python", True, "Python 3.11.7"),
               Finding("kernel (x)", False, "its python3 kernel runs /usr/bin/python3", "`rm -r '/k'`")]
    monkeypatch.setattr(doctor, "diagnose_all", lambda context, env, kernels=None: results)
    assert doctor.main([]) == 1
    out = capsys.readouterr().out
    assert "ok       python: Python 3.11.7\nPROBLEM  kernel (x): its python3 kernel runs /usr/bin/python3\n" in out
    assert "1 problem found." in out and "1. kernel (x): its python3 kernel runs /usr/bin/python3\n   fix: `rm -r '/k'`" in out
    monkeypatch.setattr(doctor, "diagnose_all", lambda context, env, kernels=None: results[:1])
    assert doctor.main([]) == 0
    assert "All set: 1 checks passed." in capsys.readouterr().out


# -- wrapping (issue 10: notebook 00's line broke inside "5.0.16") -------------------------------
WIDGETS_LINE = Finding("widgets (the JupyterLab showing this page, run by .venv/bin/python)", True,
                           "JupyterLab 4.6.6 with widget extension 5.0.16: sliders can render")


def _words(text):
    return text.split()


@pytest.mark.parametrize("width", [40, 60, doctor.NOTEBOOK_WIDTH, 122])
def test_show_wraps_between_words_within_the_width(capsys, width):
    doctor.show([WIDGETS_LINE], width=width)
    out = capsys.readouterr().out
    lines = out.rstrip("\n").split("\n")
    assert all(len(line) <= width for line in lines), lines
    assert _words(out) == _words(WIDGETS_LINE.line())  # no word split, none lost
    assert "5.0.16:" in _words(out) and "4.6.6" in _words(out)
    assert lines[0].startswith("ok       widgets")
    assert all(line.startswith(" " * 9) and line[9] != " " for line in lines[1:])  # under the check's name


def test_the_reported_line_no_longer_exceeds_the_notebook_width(capsys):
    assert len(WIDGETS_LINE.line()) > doctor.NOTEBOOK_WIDTH  # the line of the report: JupyterLab broke it
    doctor.show([WIDGETS_LINE], width=doctor.NOTEBOOK_WIDTH)
    lines = capsys.readouterr().out.rstrip("\n").split("\n")
    assert len(lines) == 2 and max(map(len, lines)) <= doctor.NOTEBOOK_WIDTH


def test_wrap_keeps_commands_and_short_lines_whole():
    fix = "run `.venv/bin/python -m pip install --no-deps -r requirements.lock` then `make doctor` again"
    wrapped = doctor.wrap("   fix: " + fix, width=50, indent=8)
    assert "`.venv/bin/python -m pip install --no-deps -r requirements.lock`" in wrapped  # one line, too long
    assert "`make doctor`" in wrapped
    assert wrapped.startswith("   fix: run")
    assert all(line.startswith(" " * 8) for line in wrapped.split("\n")[1:])
    assert doctor.wrap("ok       python: Python 3.11.7", width=100) == "ok       python: Python 3.11.7"
    assert doctor.wrap("", width=10) == ""


def test_summary_wraps_the_problems_and_their_fixes(capsys):
    problem = Finding("widgets (.venv/bin/jupyter)", False, "JupyterLab 4.6.6 has no widget extension "
                          "(ipywidgets 8.1.9 needs jupyterlab_widgets 3.0.17)",
                          "`.venv/bin/python -m pip install --no-deps -r requirements.lock`, then restart JupyterLab")
    assert doctor.summary([problem], width=60) is False
    out = capsys.readouterr().out
    assert all(len(line) <= 60 or "`" in line for line in out.splitlines())
    assert _words(out)[-len(_words(problem.fix)):] == _words(problem.fix)
    assert "1. widgets (.venv/bin/jupyter): JupyterLab 4.6.6 has no\n   widget extension" in out


class _KernelApp:
    """ipykernel.kernelapp as a running kernel has it (``IPKernelApp.initialized()`` is True)."""

    class IPKernelApp:
        @staticmethod
        def initialized():
            return True


def test_output_width_is_the_notebook_width_in_a_kernel(monkeypatch):
    monkeypatch.setitem(sys.modules, "ipykernel.kernelapp", _KernelApp)
    assert doctor.output_width() == doctor.NOTEBOOK_WIDTH
    monkeypatch.delitem(sys.modules, "ipykernel.kernelapp")
    monkeypatch.setitem(sys.modules, "ipykernel", sys.modules.get("ipykernel", object()))  # imported, no kernel running
    monkeypatch.delenv("COLUMNS", raising=False)
    assert doctor.output_width() is None  # ipywidgets 7 imports ipykernel in a terminal too
    monkeypatch.setenv("COLUMNS", "77")
    assert doctor.output_width() == 77
    monkeypatch.delenv("COLUMNS")
    assert doctor.output_width() is None  # pytest captures stdout: a file, not a terminal
    assert doctor.wrap(WIDGETS_LINE.line()) == WIDGETS_LINE.line()  # one line, as before


def test_kernel_context_checks_pass_in_this_environment(real_env):
    results = doctor.python_diagnoses("kernel", real_env) + doctor.package_diagnoses("kernel", real_env)
    assert all(r.ok for r in results), "\n".join(map(str, results))


def _run_doctor(*args, env_update=None, python=sys.executable):
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    env.pop("JUPYTER_PATH", None)
    env.update(env_update or {})
    return subprocess.run([python, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_make_doctor_passes_on_this_environment():
    done = _run_doctor("tools/doctor.py")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [l for l in done.stdout.splitlines() if l.startswith(("ok ", "PROBLEM "))]
    assert len(lines) >= 7 and all(l.startswith("ok ") for l in lines), done.stdout
    assert "All set" in done.stdout


def test_a_foreign_kernelspec_and_an_old_widget_extension_on_jupyter_path_are_reported(tmp_path):
    # The venv's base interpreter: a real Python that cannot import course_utils.
    other = _base_python() or "/usr/bin/python3"
    kernel = tmp_path / "kernels" / "python3"
    kernel.mkdir(parents=True)
    (kernel / "kernel.json").write_text(json.dumps(
        {"argv": [other, "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": "Python 3",
         "language": "python"}))
    manager = tmp_path / "labextensions" / "@jupyter-widgets" / "jupyterlab-manager"
    manager.mkdir(parents=True)
    (manager / "package.json").write_text(json.dumps({"name": "@jupyter-widgets/jupyterlab-manager", "version": "3.0.1"}))

    done = _run_doctor("tools/doctor.py", env_update={"JUPYTER_PATH": str(tmp_path)})
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert f"PROBLEM  kernel (.venv/bin/jupyter): its python3 kernel runs {other}, which cannot import course_utils" in out
    assert f"`rm -r '{kernel}'`" in out and "`unset JUPYTER_PATH`" in out
    assert "PROBLEM  widgets (.venv/bin/jupyter): JupyterLab" in out and "widget extension 3.0.1" in out
    assert "ok       python:" in out and "ok       packages:" in out


def _base_python():
    """The Python this venv was made from (``sys._base_executable`` is the venv's own python on 3.10)."""
    if sys.prefix == sys.base_prefix:
        return None
    candidate = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    return str(candidate) if candidate.exists() else None


def test_run_as_a_script_by_another_python_it_says_so():
    other = _base_python()
    if not other:
        pytest.skip("not running in a venv: no other Python at hand")
    done = _run_doctor("tools/doctor.py", python=other)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"PROBLEM  python: this is {other}" in done.stdout
    assert "fix: Use the course's Python: `make doctor`" in done.stdout


def _old_python():
    """A Python older than 3.10 on this machine (on PATH, or beside this venv's base Python, as pyenv keeps them)."""
    candidates = [shutil.which(f"python3.{minor}") for minor in (9, 8, 7)]
    candidates += sorted(str(p) for p in Path(sys.base_prefix).parent.glob("3.[789].*/bin/python3"))
    for python in filter(None, candidates):
        probe = subprocess.run([python, "-c", "import sys; sys.exit(sys.version_info[:2] >= (3, 10))"], capture_output=True)
        if probe.returncode == 0:
            return python
    return None


def test_run_by_a_python_older_than_310_it_says_too_old_instead_of_a_traceback():
    """tools/doctor.py must run with any Python (standard library only) to tell a learner theirs is too old."""
    old = _old_python()
    if not old:
        pytest.skip("no Python older than 3.10 on this machine")
    done = _run_doctor("tools/doctor.py", python=old)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stdout + done.stderr
    assert re.search(r"PROBLEM  python: Python 3\.[789]\.\d+ is too old: the course needs 3\.10 or newer", done.stdout)


# -- where the course runs: every fix names one that exists there (issue 21) ------------------------------------
HUB_VARIABLES = {"JUPYTERHUB_USER": "learner-1", "JUPYTERHUB_API_URL": "http://127.0.0.1:8081/hub/api"}
BINDER_VARIABLES = {**HUB_VARIABLES, "BINDER_LAUNCH_HOST": "https://mybinder.org/", "BINDER_REQUEST": "v2/gh/o/r/main"}


def test_place_tells_a_clone_from_a_hub_and_from_binder():
    assert doctor.place({}) == "clone"
    assert doctor.place({"PATH": "/usr/bin"}) == "clone"
    assert doctor.place(HUB_VARIABLES) == "hub"
    assert doctor.place({"JUPYTERHUB_API_URL": "http://hub/api"}) == "hub"
    assert doctor.place(BINDER_VARIABLES) == "binder"  # Binder runs on a JupyterHub: asked first


@pytest.mark.parametrize("where", ["hub", "binder"])
def test_on_a_hub_a_venv_in_the_clone_is_ignored_and_no_fix_needs_make(fake_env, where, monkeypatch, capsys):
    """A learner who ran `make env` in a hub terminal leaves a .venv in the clone: the notebooks still run on the
    hub's Python, so the checks must not send them to `make lab` or `make doctor` (the hub has neither)."""
    env = doctor.course_env(fake_env.repo, where=where)
    assert env.venv is None and env.where == where and env.python == sys.executable
    assert doctor.diagnose_kernel_python("/opt/hub/bin/python", "/opt/hub", env).ok
    stamp = doctor.diagnose_stamp(env, env.repo / "requirements.lock")
    assert stamp.ok and ("the hub's environment" if where == "hub" else "Binder's environment") in stamp.message
    packages = doctor.diagnose_packages({"numpy": "2.4.6"}, {"numpy": "1.26.4"}, "requirements.lock", env)
    assert not packages.ok and "make" not in packages.fix
    assert ("instructor" in packages.fix) if where == "hub" else ("Binder link" in packages.fix)
    old = doctor.diagnose_python((3, 9, 7), "/opt/hub", "/opt/hub/bin/python", env)
    assert not old.ok and "make" not in old.fix
    widgets = doctor.diagnose_server_widgets({"dists": {"jupyterlab": "4.6.6"}, "widget_labextensions": []},
                                             "the JupyterLab showing this page", "8.1.9", env, True, "3.0.17")
    assert not widgets.ok and "make" not in widgets.fix and "jupyterlab_widgets==3.0.17" in widgets.fix
    doctor.summary([packages], env, width=200)
    printed = capsys.readouterr().out
    assert "make doctor" not in printed and "python tools/doctor.py" in printed
    doctor.summary([], env, width=200)
    assert "make lab" not in capsys.readouterr().out


def test_on_a_clone_the_fixes_still_name_make(fake_env, capsys):
    env = doctor.course_env(fake_env.repo, where="clone")
    assert env.venv == fake_env.venv
    doctor.summary([Finding("x", False, "broken", "fix it")], env, width=200)
    assert "then run `make doctor` again" in capsys.readouterr().out
    doctor.summary([], env, width=200)
    assert "Start the course with `make lab`." in capsys.readouterr().out


def test_course_utils_needs_no_installation_where_there_is_no_venv(fake_env):
    """On a hub nothing installs course_utils: found in the course folder, it is all right."""
    env = doctor.course_env(fake_env.repo, where="hub")
    here = str(fake_env.repo / "course_utils" / "__init__.py")
    assert doctor.diagnose_course_utils(here, None, None, env).ok
    elsewhere = doctor.diagnose_course_utils("/opt/hub/lib/course_utils/__init__.py", None, None, env)
    assert not elsewhere.ok and "notebooks/" in elsewhere.fix and "pip install" not in elsewhere.fix
    # where make built a .venv, the editable install is still expected there
    assert not doctor.diagnose_course_utils(here, None, None, fake_env).ok


def test_the_hub_setup_the_messages_name_is_a_heading_of_the_guide():
    title = doctor.HUB_SETUP.split(", ", 1)[1].strip('"')
    guide = (ROOT / "docs" / "instructor-guide.md").read_text(encoding="utf-8")
    assert f"#### {title}\n" in guide
    notebook = json.loads((ROOT / "solutions" / "00-before-you-start.ipynb").read_text(encoding="utf-8"))
    setup = "".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    assert f'docs/instructor-guide.md, \\"{title}\\"' in setup  # notebook 00's own message, without course_utils
