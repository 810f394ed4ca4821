"""course.py: every learner's make target as `python3 course.py ...` (`py course.py ...` on Windows), without make.

Most tests run the real commands in one copy of the course (a clone of this checkout, with the files git tracks as
they are in the work tree), with a PATH that holds git and nothing else (no make), from another folder, by the Python
that built this test's environment (not a venv: as a learner's Python before any .venv exists):

- ``env`` creates .venv for real (uv from the uv cache; the uv executable is copied from this checkout's .venv so
  that nothing is downloaded), stamps it, writes the settings overrides; a second ``env`` does nothing;
- ``doctor`` exits 0 with "All set", or 1 naming each problem;
- ``reset 01`` keeps an edited notebook in backups/notebooks/ and restores the original;
- ``notebooks`` regenerates a deleted learner notebook;
- ``lab`` starts JupyterLab on the course's folder (its /api answers), then stops on SIGTERM;
- ``update`` with no network answers as the update tool does; with a new commit changing the lock, it updates and
  then rebuilds the environment;
- ``test-mine`` installs the maintainers' additions and runs a learner notebook through nbval;
- the tools' messages name what the learner typed (``python3 course.py env``), never make (COURSE_LAUNCHER).

The Windows paths (``Scripts\\python.exe``) are checked with PureWindowsPath: no Windows runs here. The GitHub
workflow's learner-path job runs env, doctor, lab and test-mine on Windows and macOS runners, which cannot run here.
"""
import ast
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path, PureWindowsPath

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("course_cli", ROOT / "course.py")
course = importlib.util.module_from_spec(spec)
spec.loader.exec_module(course)
install_env = course.install_env
#: The Python a learner has before any .venv: the one that made this test's venv.
BASE_PYTHON = getattr(sys, "_base_executable", None) or sys.executable
UV_HOME = f".uv-{install_env.UV_VERSION}"


# ---------------------------------------------------------------------------------------------
# Without a machine: Windows paths, the flags, the arguments, no shell
# ---------------------------------------------------------------------------------------------


def test_the_venvs_programs_on_windows_are_in_scripts_with_exe():
    venv = PureWindowsPath(r"C:\Users\ada\self-attention\.venv")
    assert install_env.venv_python(venv, os_name="nt") == PureWindowsPath(
        r"C:\Users\ada\self-attention\.venv\Scripts\python.exe")
    assert install_env.bin_dir(venv, os_name="nt") == venv / "Scripts"
    command = course.jupyter_command("lab", venv, flags=[], os_name="nt")
    assert command[0] == PureWindowsPath(r"C:\Users\ada\self-attention\.venv\Scripts\jupyter.exe")
    assert install_env.uv_name("nt") == "uv.exe" and install_env.uv_name("posix") == "uv"
    # and elsewhere bin/, no suffix
    assert install_env.venv_python(Path("/c/.venv"), os_name="posix") == Path("/c/.venv/bin/python")
    assert course.jupyter_command("notebook", Path("/c/.venv"), flags=[], os_name="posix")[0] == Path(
        "/c/.venv/bin/jupyter")


def test_uv_is_downloaded_for_windows_from_its_own_wheel():
    assert install_env.UV_WHEELS[("win32", "amd64")] == "-win_amd64."  # platform.machine() says AMD64 there


def test_the_browser_flags_follow_the_display_and_root():
    assert course.browser_flags({}, "linux", 0) == ["--no-browser", "--allow-root"]
    assert course.browser_flags({"DISPLAY": ":0"}, "linux", 1000) == []
    assert course.browser_flags({"WAYLAND_DISPLAY": "wayland-0"}, "linux", 1000) == []
    assert course.browser_flags({}, "darwin", 501) == []  # macOS and Windows always have a display
    assert course.browser_flags({}, "win32", None) == []  # no user id on Windows


def test_the_jupyter_command_opens_the_first_notebook_in_the_course_folder():
    command = course.jupyter_command("lab", Path(".venv"), ["--port=8890", "--no-browser"],
                                     flags=["--no-browser", "--allow-root"], os_name="posix")
    assert [str(part) for part in command] == [
        ".venv/bin/jupyter", "lab", "--allow-root", f"--ServerApp.root_dir={ROOT}", "--port=8890", "--no-browser",
        "notebooks/00-before-you-start.ipynb"]  # a flag the learner gave is not given twice


def test_own_options_are_taken_and_the_rest_passed_on_in_order():
    own, passed = course.split_arguments(["-k", "01 or 02", "--venv", "v", "-x", "--installer=pip", "--", "--venv"])
    assert own == ["--venv", "v", "--installer=pip"]
    assert passed == ["-k", "01 or 02", "-x", "--venv"]


def test_stale_is_makes_rule(tmp_path):
    source, target = tmp_path / "lock", tmp_path / "stamp"
    source.write_text("x")
    assert course.stale(target, source)  # missing
    target.touch()
    os.utime(source, (1000, 1000))
    os.utime(target, (1000, 1000))
    assert not course.stale(target, source)  # same time: up to date, as for make
    os.utime(source, (1001, 1001))
    assert course.stale(target, source)


def test_the_locks_follow_the_python():
    assert course.lock_name((3, 10, 13)) == "requirements-py310.lock"
    assert course.lock_name((3, 11, 7)) == course.lock_name((3, 13, 0)) == "requirements.lock"
    assert course.dev_lock_name("requirements-py310.lock") == "requirements-dev-py310.lock"
    for lock in ("requirements.lock", "requirements-py310.lock"):
        assert (ROOT / lock).is_file() and (ROOT / course.dev_lock_name(lock)).is_file()


def test_no_shell_in_the_entry_point_and_the_installer():
    """Every program runs from an argument list: no shell=True, os.system or os.popen (Windows has no sh)."""
    for path in (ROOT / "course.py", ROOT / "tools" / "install_env.py", ROOT / "tools" / "jupyter_settings.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                shell = [k for k in node.keywords if k.arg == "shell"]
                assert not shell, f"{path.name}:{node.lineno} passes shell="
                name = ast.unparse(node.func)
                assert name not in ("os.system", "os.popen"), f"{path.name}:{node.lineno} calls {name}"


def test_an_unknown_command_names_the_commands(capsys):
    with pytest.raises(SystemExit) as stop:
        course.main(["labb"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "no command 'labb'" in err and "lab, notebook7, doctor, update, reset, notebooks, test-mine" in err


def test_a_python_older_than_3_10_is_told_what_to_do():
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [str(p) for p in sorted(pyenv.glob("3.[6-9].*/bin/python3"))]
    candidates += [p for p in (shutil.which(f"python3.{minor}") for minor in (9, 8, 7, 6)) if p]
    old = next((p for p in candidates if subprocess.run([p, "-c", ""], capture_output=True).returncode == 0), None)
    if old is None:
        pytest.skip("no Python 3.6-3.9 here")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    done = subprocess.run([old, str(ROOT / "course.py"), "lab"], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 1 and "The course needs Python 3.10 or newer; found 3." in done.stderr, done.stderr
    assert "py -3.12 course.py lab" in done.stderr and "make" not in done.stderr


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_makefile_calls_course_py_for_the_environment_and_jupyter(tmp_path):
    """One home: make's environment rules and lab/notebook7 run course.py (make keeps the stamps that say when)."""
    venv = tmp_path / "v"  # a venv that does not exist: every rule is due
    for target in ("env", "lab", "notebook7", "test-mine"):
        out = subprocess.run(["make", "-n", "--no-print-directory", target, f"VENV={venv}"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
        assert f"course.py install-learner --venv {venv} " in out, out
        assert ("tools/install_env.py" in out) is False, out  # only through course.py
    out = subprocess.run(["make", "-n", "--no-print-directory", "lab", f"VENV={venv}", "LAB_ARGS=--port=8890"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    out = " ".join(out.split())  # an empty LAB_BROWSER leaves two spaces
    assert f"course.py lab --venv {venv} -- --port=8890" in out and "bin/jupyter" not in out, out
    out = subprocess.run(["make", "-n", "--no-print-directory", "env-dev", f"VENV={venv}"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert f"course.py install-dev --venv {venv} " in out, out


# ---------------------------------------------------------------------------------------------
# A copy of the course, and the commands run in it without make
# ---------------------------------------------------------------------------------------------


def _git(*args, cwd=ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A clone of this checkout holding the tracked files as they are in the work tree, a PATH without make, and the
    folder the learner types in (not the course's)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    top = tmp_path_factory.mktemp("no-make")
    copy = top / "course"
    _git("clone", "--quiet", str(ROOT), str(copy))
    for name in _git("ls-files", "-z").split("\0"):
        if not name:
            continue
        source, target = ROOT / name, copy / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        elif target.exists():
            target.unlink()  # deleted in the work tree
    uv = ROOT / ".venv" / UV_HOME
    if uv.is_dir():  # the uv executable a first `env` would download from PyPI
        shutil.copytree(uv, copy / ".venv" / UV_HOME)
    bin_dir = top / "bin"  # git and nothing else
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(shutil.which("git"))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MAKE", "MFLAGS", "VIRTUAL_ENV", "DISPLAY", "WAYLAND_DISPLAY", "JUPYTER", "COURSE_LAUNCHER"))}
    env.update(PATH=str(bin_dir), JUPYTER_RUNTIME_DIR=str(top / "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(top / "workspaces"))
    assert shutil.which("make", path=env["PATH"]) is None
    elsewhere = top / "home"
    elsewhere.mkdir()
    yield {"course": copy, "env": env, "cwd": elsewhere, "top": top}
    from clean_env import stop_compiling

    stop_compiling(copy / ".venv")  # the background compilation, if it still runs


def run(world, *args, timeout=600):
    """`python course.py ARGS` in the copy, typed from another folder, without make."""
    return subprocess.run([BASE_PYTHON, str(world["course"] / "course.py"), *args], cwd=world["cwd"], env=world["env"],
                          capture_output=True, text=True, timeout=timeout)


def names_make(world, text) -> bool:
    """Whether ``text`` names make (the copy's folder, ``no-make<n>``, aside)."""
    return re.search(r"\bmake\b", text.replace(str(world["top"]), "<copy>")) is not None


def out_of(done) -> str:
    return f"exit code {done.returncode}\n--- stdout\n{done.stdout[-6000:]}\n--- stderr\n{done.stderr[-6000:]}"


@pytest.fixture(scope="module")
def built(world):
    """The copy after `python course.py env`: a real .venv from the lock (once for the module)."""
    start = time.monotonic()
    done = run(world, "env")
    world["env_seconds"] = time.monotonic() - start
    world["first_env"] = done
    assert done.returncode == 0, out_of(done)
    return world


def test_env_creates_the_environment_as_make_env_does(built):
    done, venv = built["first_env"], built["course"] / ".venv"
    lock = course.lock_name()
    assert done.stdout.startswith("Creating the virtual environment .venv (Python 3."), out_of(done)
    assert f"Environment ready in .venv (from {lock})." in done.stdout
    assert ".venv/bin/python tools/jupyter_settings.py" in done.stdout  # shown as make shows its command
    assert (venv / f".installed-{lock}").is_file() and (venv / "pyvenv.cfg").is_file()
    overrides = course.jupyter_settings.overrides_path(venv)
    assert json.loads(overrides.read_text()) == course.jupyter_settings.OVERRIDES
    where = subprocess.run([str(install_env.venv_python(venv)), "-c", "import course_utils; print(course_utils.__file__)"],
                           capture_output=True, text=True, check=True, env=built["env"], cwd=built["cwd"]).stdout
    assert Path(where.strip()).resolve().is_relative_to(built["course"].resolve()), where  # the copy's, editable
    again = run(built, "env")
    assert again.returncode == 0 and again.stdout.strip() == f"The environment in .venv is up to date ({lock}).", \
        out_of(again)


def test_doctor_says_all_set_or_names_each_problem(built):
    done = run(built, "doctor")
    assert done.returncode in (0, 1), out_of(done)
    assert "Traceback" not in done.stdout + done.stderr, out_of(done)
    if done.returncode == 0:
        assert "All set" in done.stdout, out_of(done)
    else:
        assert "PROBLEM" in done.stdout or "problem" in done.stdout.lower(), out_of(done)
    assert "ok       python:" in done.stdout and ".venv" in done.stdout, out_of(done)
    said = " ".join(done.stdout.split())  # lines wrap at COLUMNS
    if done.returncode == 0:
        assert f"Start the course with `{course.LAUNCHER} lab`." in said, out_of(done)
    else:
        assert f"then run `{course.LAUNCHER} doctor` again" in said, out_of(done)
    assert f"built by `{course.LAUNCHER} env` after" in said and not names_make(built, said), out_of(done)


def test_reset_keeps_a_backup_then_restores_the_original(built):
    notebook = built["course"] / "notebooks" / "01-one-attention-row.ipynb"
    original = notebook.read_bytes()
    edited = original.replace(b"# YOUR CODE HERE", b"# my answer", 1)
    assert edited != original
    notebook.write_bytes(edited)
    done = run(built, "reset", "01")
    assert done.returncode == 0, out_of(done)
    assert notebook.read_bytes() == original, out_of(done)
    backups = list((built["course"] / "backups" / "notebooks").glob("01-one-attention-row.*.ipynb"))
    assert [b.read_bytes() for b in backups] == [edited], out_of(done)
    assert "Your previous version is kept in backups/notebooks/01-one-attention-row." in done.stdout
    unknown = run(built, "reset", "99")
    assert unknown.returncode == 2 and f"Example: {course.LAUNCHER} reset 01 " in unknown.stderr, out_of(unknown)
    assert not names_make(built, unknown.stderr), out_of(unknown)


def test_notebooks_regenerates_a_deleted_learner_notebook(built):
    notebook = built["course"] / "notebooks" / "02-queries-keys-values.ipynb"
    notebook.unlink()
    done = run(built, "notebooks")
    assert done.returncode == 0 and notebook.is_file(), out_of(done)
    assert "created   notebooks/02-queries-keys-values.ipynb" in done.stdout, out_of(done)
    again = run(built, "notebooks")
    assert "unchanged notebooks/02-queries-keys-values.ipynb" in again.stdout, out_of(again)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or os.name == "nt", reason="POSIX: course.py becomes the server")
def test_lab_starts_jupyterlab_on_the_course_then_stops(built):
    port, token = _free_port(), "no-make-test"
    log = built["top"] / "lab.log"
    with open(log, "w") as handle:
        server = subprocess.Popen([BASE_PYTHON, str(built["course"] / "course.py"), "lab", f"--port={port}",
                                   f"--IdentityProvider.token={token}", "--ServerApp.ip=127.0.0.1"],
                                  cwd=built["cwd"], env=built["env"], stdout=handle, stderr=subprocess.STDOUT)
    try:
        deadline, status = time.monotonic() + 90, None
        while status is None and time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents/notebooks?token={token}",
                                            timeout=5) as answer:
                    status = json.load(answer)
            except OSError:
                time.sleep(0.3)
        text = log.read_text()
        assert status is not None, f"JupyterLab did not answer on port {port} within 90 s:\n{text[-4000:]}"
        assert "00-before-you-start.ipynb" in {item["name"] for item in status["content"]}  # the course's folder
        first = text.splitlines()[0]
        assert first.startswith(".venv/bin/jupyter lab --no-browser") and "notebooks/00-before-you-start.ipynb" in first
        assert f"--ServerApp.root_dir={built['course']}" in first, first
        assert f"http://127.0.0.1:{port}/lab?token=" in text
    finally:
        server.send_signal(signal.SIGTERM)  # course.py became the server (exec): the server itself stops
        code = server.wait(timeout=30)
    assert code in (0, -signal.SIGTERM), log.read_text()[-3000:]


def test_update_without_network_answers_as_the_update_tool(built):
    copy = built["course"]
    port = _free_port()  # nothing listens there: the course cannot be fetched
    url = _git("remote", "get-url", "origin", cwd=copy).strip()
    _git("remote", "set-url", "origin", f"http://127.0.0.1:{port}/course.git", cwd=copy)
    try:
        done = run(built, "update")
        tool = subprocess.run([str(install_env.venv_python(copy / ".venv")), "tools/update.py"],
                              cwd=copy, env=built["env"], capture_output=True, text=True, timeout=120)
    finally:
        _git("remote", "set-url", "origin", url, cwd=copy)
    assert done.returncode == tool.returncode == 1, out_of(done)
    assert "cannot fetch the course" in done.stderr and "Nothing was changed" in done.stderr, out_of(done)
    # The tool run by hand answers the same: with no make on the PATH it names course.py too (doctor.launcher).
    # git's reason carries curl's timing ("Failed to connect ... after 1 ms"), which differs between two runs.
    def untimed(text):
        return re.sub(r"after \d+ ms", "after N ms", text)
    assert untimed(done.stderr) == untimed(tool.stderr), (done.stderr, tool.stderr)
    assert f"run {course.LAUNCHER} update again" in done.stderr and not names_make(built, done.stderr), out_of(done)
    assert "Environment ready" not in done.stdout  # a refused update does not go on to the environment


def test_update_brings_a_new_lock_then_rebuilds_the_environment(built):
    """The course's next commit changes the lock: `update` takes it, then the environment is installed again."""
    copy, top = built["course"], built["top"]
    upstream = top / "upstream"
    _git("clone", "--quiet", str(copy), str(upstream))
    lock = course.lock_name()
    with open(upstream / lock, "a") as handle:
        handle.write("# the course's next version\n")
    _git("-c", "user.name=Course", "-c", "user.email=course@example.org", "commit", "--quiet", "-am",
         "The course's next version", cwd=upstream)
    _git("remote", "set-url", "origin", str(upstream), cwd=copy)
    done = run(built, "update")
    assert done.returncode == 0, out_of(done)
    assert "Updated from the course:" in done.stdout and lock in done.stdout, out_of(done)
    assert (copy / lock).read_text().endswith("# the course's next version\n")
    assert f"Environment ready in .venv (from {lock})." in done.stdout, out_of(done)  # rebuilt: the lock changed
    assert f"{course.LAUNCHER} update now rebuilds the environment ({course.LAUNCHER} env)." in done.stdout, \
        out_of(done)
    again = run(built, "update")
    assert again.returncode == 0 and "Already up to date" in again.stdout and "Installing" not in again.stdout, \
        out_of(again)


def test_test_mine_adds_the_maintainers_tools_and_runs_a_notebook(built):
    done = run(built, "test-mine", "-q", "-k", "01-one-attention-row")
    assert done.returncode == 0, out_of(done)
    assert f"Maintainers' additions ready in .venv (from {course.dev_lock_name(course.lock_name())})." in done.stdout
    assert " passed" in done.stdout and "deselected" in done.stdout, out_of(done)


def test_the_workflows_learner_path_job_runs_here_without_make(built):
    """The GitHub job for Windows and macOS (which cannot run here): its steps use course.py, never make, and its
    JupyterLab step (a Python script) passes on this Linux copy without make."""
    import yaml

    job = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())["jobs"]["learner-path"]
    assert set(job["strategy"]["matrix"]["os"]) == {"windows-latest", "macos-latest"}
    steps = [step for step in job["steps"] if "run" in step]
    commands = [step["run"].strip() for step in steps if step.get("shell") != "python"]
    assert commands == ["python course.py env", "python course.py doctor", "python course.py test-mine"], commands
    (script,) = [step["run"] for step in steps if step.get("shell") == "python"]
    assert "make" not in script
    path = built["top"] / "lab_step.py"
    path.write_text(script)
    done = subprocess.run([BASE_PYTHON, str(path)], cwd=built["course"], env=built["env"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0 and "JupyterLab answered on port" in done.stdout, out_of(done)
    assert "lab stopped, exit code 0" in done.stdout, out_of(done)


def test_clean_env_removes_the_environment(built):
    """Last (the copy has no .venv after it): the doctor's fix for a broken environment is clean-env, then env (the
    first test built one from nothing)."""
    venv = built["course"] / ".venv"
    done = run(built, "clean-env")
    assert done.returncode == 0 and not venv.exists(), out_of(done)
    assert "Removed the environment" in done.stdout, out_of(done)
    again = f"({course.LAUNCHER} env, {course.LAUNCHER} lab or {course.LAUNCHER} test creates it again)."
    assert again in done.stdout and not names_make(built, done.stdout), out_of(done)


def test_html_without_make_runs_the_html_tool_with_its_arguments(monkeypatch, tmp_path):
    """README's table: `make html` is `py course.py html` (the maintainers' environment, then tools/html_pages.py)."""
    calls = []
    monkeypatch.setattr(course, "ensure_env", lambda venv, **how: calls.append(("env", how.get("dev"))))
    monkeypatch.setattr(course, "_script", lambda venv, script, extra: calls.append((Path(script).name, list(extra)))
                        or 0)
    assert course.main(["html", "--out", str(tmp_path)]) == 0
    assert calls == [("env", True), ("html_pages.py", ["--out", str(tmp_path)])], calls
    readme = (ROOT / "README.md").read_text()
    assert "| `make html` (`HTML_ARGS=...`) | `py course.py html` |" in readme
