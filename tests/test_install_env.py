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
    assert progress("Installing collected packages: a, b, c") == "pip: installing and compiling 3 packages"


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
