"""The tools' messages name the command the learner ran: `make X`, or `py course.py X` / `python3 course.py X` where
course.py started them without make (it sets COURSE_LAUNCHER for every program it runs, unless make called it:
MAKELEVEL). doctor.course_command is the one home of that; doctor, update, reset and clean_env use it.

Each changed message is provoked with COURSE_LAUNCHER="py course.py" (the Windows form: no Windows here) and
MAKELEVEL unset: it names `py course.py ...` and never make. Under make (MAKELEVEL set, COURSE_LAUNCHER too) every
message is byte for byte the one without COURSE_LAUNCHER. Only a clone's messages change: a hub's stay as they are.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import clean_env as C
import pytest
import reset as R
import update as U

from course_utils import doctor
from course_utils.doctor import CourseEnv, Finding

ROOT = Path(__file__).resolve().parents[1]
WINDOWS = "py course.py"
MAKE = re.compile(r"\bmake\b")
#: What makes place() say anything but "clone".
ELSEWHERE = ("JUPYTERHUB_USER", "JUPYTERHUB_API_URL", "BINDER_LAUNCH_HOST", "BINDER_REQUEST", "BINDER_REPO_URL",
             "COLAB_RELEASE_TAG")


@pytest.fixture
def launched(monkeypatch):
    """As course.py runs a program on Windows, on the learner's own machine (a clone): set the launcher."""
    for name in ELSEWHERE + ("MAKELEVEL",):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COURSE_LAUNCHER", WINDOWS)
    return monkeypatch


# ---------------------------------------------------------------------------------------------
# The one home: how a command is run here
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def make_on_path(tmp_path):
    """A PATH holding a `make` (a machine with make)."""
    (tmp_path / "bin").mkdir()
    make = tmp_path / "bin" / "make"
    make.write_text("#!/bin/sh\n")
    make.chmod(0o755)
    return str(tmp_path / "bin")


def test_make_by_default_and_always_under_make(make_on_path):
    plain = {"PATH": make_on_path}
    assert doctor.course_command("lab", plain) == "make lab"
    assert doctor.course_command("reset", plain, NB="01") == "make reset NB=01"
    assert doctor.course_command("env", plain, PYTHON="python3.11") == "make env PYTHON=python3.11"
    under_make = {"MAKELEVEL": "1", "COURSE_LAUNCHER": WINDOWS}  # course.py called by make: make's names
    assert doctor.course_command("env", under_make, PYTHON="python3.11") == "make env PYTHON=python3.11"
    assert doctor.launcher(under_make) is None and doctor.launcher({"COURSE_LAUNCHER": "", "PATH": make_on_path}) is None


def test_without_make_on_the_path_course_py_is_named(tmp_path):
    """The new-learner trial: `python tools/doctor.py` run by hand with no make told them `make env`."""
    (tmp_path / "empty").mkdir()
    no_make = {"PATH": str(tmp_path / "empty")}
    expected = "py course.py" if os.name == "nt" else "python3 course.py"
    assert doctor.launcher(no_make) == expected
    assert doctor.course_command("env", no_make) == f"{expected} env"


def test_course_py_forms_of_makes_variables():
    windows, elsewhere = {"COURSE_LAUNCHER": WINDOWS}, {"COURSE_LAUNCHER": "python3 course.py"}
    assert doctor.course_command("lab", windows) == "py course.py lab"
    assert doctor.course_command("reset", elsewhere, NB="01") == "python3 course.py reset 01"
    assert doctor.course_command("reset", windows, NB="01 02") == "py course.py reset 01 02"
    # make's PYTHON is the Python that runs course.py: Windows's py takes the version as an option
    assert doctor.course_command("env", windows, PYTHON="python3.11") == "py -3.11 course.py env"
    assert doctor.course_command("env", elsewhere, PYTHON="python3.11") == "python3.11 course.py env"
    assert doctor.course_command("env", windows, PYTHON="C:/Python312/python.exe") == "C:/Python312/python.exe course.py env"
    with pytest.raises(ValueError, match="no form of make's LAB_ARGS"):
        doctor.course_command("lab", windows, LAB_ARGS="--port=8890")


def test_windows_activates_the_venv_its_own_way(launched):
    assert doctor._activate("nt") == r".venv\Scripts\activate"
    assert doctor._activate("posix") == "source .venv/bin/activate"
    launched.delenv("COURSE_LAUNCHER")
    assert doctor._activate("nt") == "source .venv/bin/activate"  # as before course.py (make: Git Bash)


# ---------------------------------------------------------------------------------------------
# doctor
# ---------------------------------------------------------------------------------------------


def _broken_figure():
    raise RuntimeError("no backend")


def said(finding: Finding) -> str:
    return f"{finding.message} | fix: {finding.fix}"


def doctor_messages(env: CourseEnv, monkeypatch, capsys) -> dict:
    """Every doctor message of a clone that names a command of the course, provoked with fake inputs."""
    lock = env.repo / "requirements.lock"
    no_venv = CourseEnv(env.repo, None, sys.executable, "clone")
    other_lab = {"dists": {"jupyterlab": "4.6.6"}, "widget_labextensions": [], "executable": "/srv/other/bin/python"}
    found = {
        "too old": doctor.diagnose_python((3, 9, 7), str(env.venv), env.python, env).fix,
        "other python": doctor.diagnose_python((3, 11, 2), "/usr", "/usr/bin/python3", env).fix,
        "kernel": doctor.diagnose_kernel_python("/usr/bin/python3", "/usr", env).fix,
        "no stamp": said(doctor.diagnose_stamp(env, lock)),
        "figure": doctor.diagnose_figure(_broken_figure, env).fix,
        "other jupyterlab": doctor.diagnose_server_widgets(other_lab, "jupyter on PATH", "8.1.9", env, False).fix,
    }
    stamp = env.venv / f".installed-{lock.name}"
    stamp.touch()
    os.utime(lock, (1_700_000_100, 1_700_000_100))
    os.utime(stamp, (1_700_000_200, 1_700_000_200))
    found["stamp ok"] = said(doctor.diagnose_stamp(env, lock))
    os.utime(stamp, (1_700_000_000, 1_700_000_000))
    found["stale stamp"] = said(doctor.diagnose_stamp(env, lock))
    stamp.unlink()
    if not doctor._is_conda(sys.prefix):  # conda's fix names conda
        found["no venv"] = no_venv.fix_packages
    with monkeypatch.context() as patch:
        # no jupyter anywhere (make is there)
        patch.setattr(doctor.shutil, "which", lambda name, path=None: "/usr/bin/make" if name == "make" else None)
        (found["no jupyter"],) = [r.fix for r in doctor.server_diagnoses("shell", no_venv)]
    doctor.summary([Finding("x", False, "broken", "fix it")], env, width=500)
    found["run again"] = capsys.readouterr().out
    doctor.summary([], env, width=500)
    found["all set"] = capsys.readouterr().out
    return found


def test_doctor_messages_name_course_py_where_it_ran_them(fake_env, launched, capsys):
    found = doctor_messages(fake_env, launched, capsys)
    for what, text in found.items():
        assert WINDOWS in text and not MAKE.search(text), f"{what}: {text}"
    assert found["too old"].endswith("`py course.py clean-env`, then `py -3.11 course.py env`")
    assert "`py course.py doctor` (or `.venv/bin/python tools/doctor.py`)" in found["other python"]
    assert "start it with `py course.py lab` in the course folder" in found["kernel"]
    assert "never completed by `py course.py env`" in found["no stamp"] and found["no stamp"].endswith(
        "fix: `py course.py env`")
    assert "built by `py course.py env` after requirements.lock last changed" in found["stamp ok"]
    assert "fix: `py course.py env` (it reinstalls exactly the lock)" in found["stale stamp"]
    assert found["figure"] == "Reinstall the environment: `py course.py clean-env`, then `py course.py env`"
    assert found["other jupyterlab"].startswith("Start JupyterLab with `py course.py lab` (the course's own")
    if "no venv" in found:
        assert found["no venv"] == "py course.py env     (builds .venv from the lock file; then use `py course.py lab`)"
    assert found["no jupyter"] == "py course.py env, then start the course with `py course.py lab`"
    assert "then run `py course.py doctor` again:" in found["run again"]
    assert "Start the course with `py course.py lab`." in found["all set"]


def test_under_make_the_doctor_says_what_it_said_before_course_py(fake_env, monkeypatch, capsys):
    for name in ELSEWHERE + ("MAKELEVEL", "COURSE_LAUNCHER"):
        monkeypatch.delenv(name, raising=False)
    before = doctor_messages(fake_env, monkeypatch, capsys)
    assert "`make clean-env && make env PYTHON=python3.11`" in before["too old"]
    assert "Start the course with `make lab`." in before["all set"]
    monkeypatch.setenv("MAKELEVEL", "1")
    monkeypatch.setenv("COURSE_LAUNCHER", WINDOWS)
    under_make = doctor_messages(fake_env, monkeypatch, capsys)
    assert under_make == before


@pytest.mark.parametrize("where", ["hub", "binder"])
def test_a_hubs_messages_do_not_change(fake_env, launched, capsys, where):
    env = doctor.course_env(fake_env.repo, where=where)
    old = doctor.diagnose_python((3, 9, 7), "/opt/hub", "/opt/hub/bin/python", env)
    assert WINDOWS not in old.fix and old.fix == doctor.ASK_THE_ADMIN[where]
    doctor.summary([old], env, width=500)
    assert f"then run {doctor.DOCTOR_AGAIN[where]} again" in capsys.readouterr().out
    doctor.summary([], env, width=500)
    assert doctor.START[where] in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------
# update, reset, clean_env
# ---------------------------------------------------------------------------------------------


def test_update_names_course_py_update_and_its_env(launched, tmp_path, capsys):
    report = U.UpdateReport("a" * 40, "b" * 40, environment_changed=["requirements.lock"])
    assert U._command() == "py course.py update"
    text = report.text()
    assert ("The course changed its packages (requirements.lock): py course.py update now rebuilds the environment "
            "(py course.py env).") in text and not MAKE.search(text)
    assert U.main(["--repo", str(tmp_path)]) == 1  # not a clone: refused, with the command to run again
    err = capsys.readouterr().err
    assert err.startswith("py course.py update: ") and not MAKE.search(err), err
    launched.setenv("MAKELEVEL", "1")  # course.py run by make update
    assert "make update now rebuilds the environment (make env)." in report.text()
    assert U._command() == "make update"
    launched.delenv("MAKELEVEL")
    launched.setenv("JUPYTERHUB_USER", "learner-1")  # course.py in a hub's terminal: the hub's words, as before
    assert "tell your instructor" in report.text() and WINDOWS not in report.text()
    assert U._command() == "python tools/update.py"


def test_reset_gives_course_pys_example(launched, capsys):
    assert R.main(["99"]) == 2
    err = capsys.readouterr().err
    assert "no notebook '99'" in err and "py course.py reset 01   (or: python tools/reset.py 01)" in err
    assert not MAKE.search(err), err
    launched.setenv("MAKELEVEL", "1")
    assert R.usage_example() == "make reset NB=01   (or: python tools/reset.py 01)"


def a_venv(folder: Path) -> Path:
    (folder / "bin").mkdir(parents=True)
    (folder / "pyvenv.cfg").write_text("home = /usr/bin\n")
    return folder


def test_clean_env_names_course_py(launched, tmp_path):
    repo = tmp_path / "course"
    a_venv(repo / ".venv")
    with pytest.raises(C.Refused) as refused:
        C.course_venv(str(tmp_path), repo)
    assert "run `py course.py clean-env` without --venv" in str(refused.value) and "VENV" not in str(refused.value)
    launched.setenv("MAKELEVEL", "1")
    with pytest.raises(C.Refused, match=re.escape("`unset VENV`, or run `make clean-env VENV=.venv`")):
        C.course_venv(str(tmp_path), repo)


def _bare_script(tmp_path, *names) -> Path:
    """A clone holding only these files (clean_env.py and _checkout.py of tools/, doctor.py of course_utils/); the
    path of its clean_env.py."""
    clone = tmp_path / "clone"
    for name in names:
        source = ROOT / ("course_utils" if name == "doctor.py" else "tools") / name
        (clone / source.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copy(source, clone / source.parent.name / name)
    return clone / "tools" / "clean_env.py"


@pytest.mark.parametrize("makelevel", [None, "1"], ids=["course.py", "make"])
def test_the_bare_script_names_course_py_through_doctor_py_beside_it(launched, tmp_path, makelevel):
    """As course.py runs it (a bare script, isolated: no course_utils package, no numpy), doctor.py loaded by path."""
    if makelevel:
        launched.setenv("MAKELEVEL", makelevel)
    script = _bare_script(tmp_path, "clean_env.py", "_checkout.py", "doctor.py")
    venv = a_venv(script.parents[1] / ".venv")
    done = subprocess.run([sys.executable, "-E", "-s", str(script), ".venv"], cwd=script.parents[1], capture_output=True,
                          text=True)
    assert done.returncode == 0 and not venv.exists(), done.stderr
    if makelevel:
        assert "(make env, make lab or make test creates it again)." in done.stdout, done.stdout
    else:
        assert "(py course.py env, py course.py lab or py course.py test creates it again)." in done.stdout
        assert not MAKE.search(done.stdout), done.stdout
    outside = a_venv(tmp_path / "mine")
    done = subprocess.run([sys.executable, "-E", "-s", str(script), str(outside)], cwd=script.parents[1],
                          capture_output=True, text=True)
    assert done.returncode == 1 and (outside / "pyvenv.cfg").exists()
    prefix = "make clean-env" if makelevel else "py course.py clean-env"
    assert done.stderr.startswith(f"{prefix}: not removing anything: "), done.stderr


def test_clean_env_alone_names_make(launched, tmp_path):
    """A copy of clean_env.py without course_utils/doctor.py still works: its messages then name make."""
    script = _bare_script(tmp_path, "clean_env.py", "_checkout.py")
    a_venv(script.parents[1] / ".venv")
    done = subprocess.run([sys.executable, "-E", "-s", str(script), ".venv"], cwd=script.parents[1], capture_output=True,
                          text=True)
    assert done.returncode == 0 and "(make env, make lab or make test creates it again)." in done.stdout, done.stderr
