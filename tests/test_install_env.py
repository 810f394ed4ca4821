"""tools/install_env.py: what it says while it installs, and pip when uv cannot be had (no network used here)."""
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("install_env", ROOT / "tools" / "install_env.py")
install_env = importlib.util.module_from_spec(spec)
spec.loader.exec_module(install_env)


def test_lock_packages_reads_pins_and_skips_comments(tmp_path):
    lock = tmp_path / "x.lock"
    lock.write_text("# header\nnumpy==2.4.6\n\nsix==1.17.0  # why\n")
    assert install_env.lock_packages(lock) == ["numpy==2.4.6", "six==1.17.0"]


def test_uv_shows_its_summary_lines_not_one_line_per_package():
    assert install_env.uv_lines("Prepared 118 packages in 12.31s") == "uv: Prepared 118 packages in 12.31s"
    assert install_env.uv_lines(" + numpy==2.4.6") is None
    assert install_env.uv_lines("Downloading numpy (16.1MiB)") is None
    assert install_env.uv_lines("Downloaded numpy") == "uv: Downloaded numpy"
    assert install_env.uv_lines("") is None


def test_pip_progress_reports_every_tenth_and_the_install_phase():
    progress = install_env.PipProgress(20)
    shown = [progress(f"Collecting pkg{i}==1.0 (from -r x.lock (line {i}))") for i in range(20)]
    reported = [line for line in shown if line]
    assert reported[0] == "pip: 2/20 packages downloaded or found"
    assert reported[-1] == "pip: 20/20 packages downloaded or found" and len(reported) == 10
    assert progress("  Downloading pkg-1.0-py3-none-any.whl (10 kB)") is None
    assert progress("Installing collected packages: a, b, c") == "pip: installing 3 packages"


def test_estimate_grows_with_the_lock_and_is_shorter_for_uv():
    assert install_env.estimate(10, "uv") != install_env.estimate(200, "uv")
    low = {name: int(install_env.estimate(118, name).split()[1].split("-")[0]) for name in ("uv", "pip")}
    assert low["uv"] < low["pip"]


def test_a_failing_uv_falls_back_to_pip_with_one_line(tmp_path, monkeypatch, capsys):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)  # exists: no venv is created
    lock = tmp_path / "requirements.lock"
    lock.write_text("six==1.17.0\n")
    calls = []

    def no_uv(*args):
        raise install_env.InstallError("pip install uv failed (exit code 1): pip install uv==0.13.8\nno network")

    monkeypatch.setattr(install_env, "bootstrap_uv", no_uv)
    monkeypatch.setattr(install_env, "install_pip", lambda *args: calls.append(args))
    assert install_env.main(["--venv", str(venv), "--installer", "auto", str(lock)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Installing 1 packages (requirements.lock) into") and "with uv" in out[0]
    assert out[1].startswith("uv did not work (pip install uv failed (exit code 1)") and "with pip instead" in out[1]
    assert "no network" not in "\n".join(out)  # one line, not the installer's whole output
    assert calls and calls[0][1] == [lock]
    assert out[-1].startswith("Installed requirements.lock into") and "with pip in" in out[-1]


def test_a_forced_uv_fails_instead_of_falling_back(tmp_path, monkeypatch):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    lock = tmp_path / "requirements.lock"
    lock.write_text("six==1.17.0\n")
    monkeypatch.setattr(install_env, "bootstrap_uv", lambda *a: (_ for _ in ()).throw(install_env.InstallError("x")))
    monkeypatch.setattr(install_env, "install_pip", lambda *args: pytest.fail("pip must not run"))
    with pytest.raises(install_env.InstallError):
        install_env.main(["--venv", str(venv), "--installer", "uv", str(lock)])


def test_run_prints_a_heartbeat_while_the_command_is_silent(monkeypatch, capsys):
    monkeypatch.setattr(install_env, "HEARTBEAT", 0.5)
    start = install_env.time.monotonic()
    install_env.run([sys.executable, "-c", "import time; time.sleep(1.2)"], "sleeping", start)
    assert "  ... sleeping: still working" in capsys.readouterr().out


def test_run_raises_with_the_commands_last_lines():
    with pytest.raises(install_env.InstallError, match="(?s)exit code 3.*boom"):
        install_env.run([sys.executable, "-c", "print('boom'); raise SystemExit(3)"], "failing", 0.0)


def test_a_venv_whose_ensurepip_fails_is_removed_with_the_fix(tmp_path):
    # Debian without python3-venv: `venv --without-pip` works, ensurepip does not; no pip-less venv may stay behind
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    fake = venv / "bin" / "python"
    fake.write_text("#!/bin/sh\necho 'No module named ensurepip' >&2\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(SystemExit, match="(?s)No module named ensurepip.*python3-venv"):
        install_env.EnsurePip(venv).wait()
    assert not venv.exists()


def test_compile_later_installs_without_compiling_then_starts_the_background_worker(tmp_path, monkeypatch, capsys):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    lock = tmp_path / "requirements.lock"
    lock.write_text("six==1.17.0\n")
    calls, started = [], []
    monkeypatch.setattr(install_env, "bootstrap_uv", lambda *a: Path("uv"))
    monkeypatch.setattr(install_env, "install_uv", lambda *args: calls.append(args))
    monkeypatch.setattr(install_env, "compile_in_background", lambda v: started.append(v) or True)
    assert install_env.main(["--venv", str(venv), "--compile", "later", str(lock)]) == 0
    assert calls[0][5] is False and started == [venv]  # compile_now=False, then the worker
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("Compiling the bytecode in the background (under a minute;")
    calls.clear()
    started.clear()
    assert install_env.main(["--venv", str(venv), str(lock)]) == 0  # make env-dev: compiled while installing
    assert calls[0][5] is True and started == []


def test_the_installers_commands_compile_or_not(tmp_path, monkeypatch):
    commands = []
    monkeypatch.setattr(install_env, "run", lambda command, *a, **k: commands.append(command))
    monkeypatch.setattr(install_env.sys.stdout, "isatty", lambda: False)
    lock = tmp_path / "x.lock"
    lock.write_text("six==1.17.0\n")
    for compile_now in (True, False):
        install_env.install_uv(Path("uv"), tmp_path, [lock], None, 0.0, compile_now)
        install_env.install_pip(tmp_path, [lock], None, 0.0, compile_now)
    uv_now, pip_now, uv_later, pip_later = commands
    assert "--compile-bytecode" in uv_now and "--compile-bytecode" not in uv_later
    assert "--no-compile" not in pip_now and "--no-compile" in pip_later


def _pyc_count(folder):
    return len(list(folder.rglob("*.pyc")))


@pytest.mark.skipif(sys.platform == "win32", reason="the worker's lock and nice are POSIX")
def test_the_background_worker_compiles_everything_once_and_a_second_one_leaves(tmp_path):
    import subprocess
    import time

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = install_env.venv_python(venv)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    for package in ("numpy", "somepkg"):  # one of FIRST_START, one not
        (site / package / "sub").mkdir(parents=True)
        (site / package / "__init__.py").write_text("X = 1\n")
        (site / package / "sub" / "mod.py").write_text("def f():\n    return 2\n")
    (site / "single.py").write_text("Y = 3\n")
    assert install_env.main(["--venv", str(venv), "--compile-in-background"]) == 0  # nothing pending: nothing
    assert not (venv / install_env.PENDING).exists()
    assert install_env.compile_in_background(venv)
    assert (venv / install_env.PENDING).exists()
    assert not install_env.compile_in_background(venv) or not (venv / install_env.PENDING).exists()  # locked
    deadline = time.monotonic() + 60
    while (venv / install_env.PENDING).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not (venv / install_env.PENDING).exists(), (venv / install_env.COMPILE_LOG).read_text()
    assert _pyc_count(site) == 5
    log = (venv / install_env.COMPILE_LOG).read_text()
    assert "bytecode compiled in" in log and "did not compile" not in log
    # the same .pyc as `python -m compileall` (and so uv, which runs compileall) writes: same header, same code
    single = next(site.rglob("single.cpython-*.pyc"))
    written = single.read_bytes()
    single.unlink()
    subprocess.run([str(python), "-m", "compileall", "-q", str(site / "single.py")], check=True)
    assert single.read_bytes() == written
    # a later `make lab` finds nothing pending and starts nothing
    assert install_env.main(["--venv", str(venv), "--compile-in-background"]) == 0
    assert install_env.compile_worker(venv) == 0 and _pyc_count(site) == 5


def test_a_new_venv_gets_the_pip_of_ensurepip_from_its_wheels_in_uvs_command(tmp_path, monkeypatch):
    wheels = install_env.bundled_pip_wheels()
    if not wheels:
        pytest.skip("this Python keeps no ensurepip wheels in ensurepip/_bundled")
    assert any(w.name.startswith("pip-") for w in wheels)
    venv = tmp_path / "venv"
    lock = tmp_path / "requirements.lock"
    lock.write_text("six==1.17.0\n")
    calls = []
    monkeypatch.setattr(install_env, "bootstrap_uv", lambda *a: Path("uv"))
    monkeypatch.setattr(install_env, "install_uv", lambda *args: calls.append(args))
    monkeypatch.setattr(install_env, "EnsurePip", lambda v: pytest.fail("ensurepip must not run when uv installs pip"))
    assert install_env.main(["--venv", str(venv), str(lock)]) == 0
    assert calls[0][6] == wheels


def test_pip_installed_from_its_wheel_freezes_as_a_version_not_a_file(tmp_path):
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    for name in ("pip-23.2.1", "six-1.17.0"):
        (site / f"{name}.dist-info").mkdir(parents=True)
        (site / f"{name}.dist-info" / "direct_url.json").write_text("{}")
    install_env.forget_wheel_paths(tmp_path / "venv", [Path("/x/pip-23.2.1-py3-none-any.whl")])
    assert not (site / "pip-23.2.1.dist-info" / "direct_url.json").exists()
    assert (site / "six-1.17.0.dist-info" / "direct_url.json").exists()


def test_a_new_venv_whose_uv_fails_gets_pip_from_ensurepip(tmp_path, monkeypatch):
    venv = tmp_path / "venv"
    lock = tmp_path / "requirements.lock"
    lock.write_text("six==1.17.0\n")
    events = []

    class FakeEnsurePip:
        def __init__(self, v):
            events.append("ensurepip")

        def wait(self):
            events.append("waited")

    monkeypatch.setattr(install_env, "EnsurePip", FakeEnsurePip)
    monkeypatch.setattr(install_env, "bootstrap_uv", lambda *a: (_ for _ in ()).throw(install_env.InstallError("x")))
    monkeypatch.setattr(install_env, "install_pip", lambda *args: events.append("pip"))
    assert install_env.main(["--venv", str(venv), str(lock)]) == 0
    assert events[:3] == ["ensurepip", "waited", "pip"]


def test_the_first_start_list_is_read_in_order_and_missing_modules_skipped(tmp_path, monkeypatch):
    listed = tmp_path / "first_start.txt"
    listed.write_text("# comment\nb/__init__.py\nmissing.py\na.py\n")
    (tmp_path / "site" / "b").mkdir(parents=True)
    (tmp_path / "site" / "b" / "__init__.py").write_text("")
    (tmp_path / "site" / "a.py").write_text("")
    monkeypatch.setattr(install_env, "FIRST_START", listed)
    site = tmp_path / "site"
    assert install_env.first_start_modules(site) == [site / "b" / "__init__.py", site / "a.py"]
    monkeypatch.setattr(install_env, "FIRST_START", tmp_path / "none.txt")
    assert install_env.first_start_modules(site) == []


def test_the_first_start_list_fits_the_locked_environment():
    # stale after `make lock`? re-run benchmarks/first_start.py (a missing module is only skipped, not an error)
    import sysconfig

    site = Path(sysconfig.get_paths()["purelib"])
    if not (site / "jupyterlab").is_dir():
        pytest.skip("no JupyterLab in this environment")
    modules = install_env.first_start_modules(site)
    listed = [line for line in install_env.FIRST_START.read_text().splitlines() if line and not line.startswith("#")]
    assert len(listed) > 500 and len(modules) >= 0.95 * len(listed)
    assert listed.index("jupyter_server/serverapp.py") < listed.index("ipykernel/kernelapp.py")
