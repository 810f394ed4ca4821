"""Every pin of a learner's lock installs on the oldest Python that lock is for, and the locks keep the constraints.

The report: on Debian 12 (python3 is 3.11.2) `python3 course.py env` failed with "No matching distribution found for
soupsieve==4.1.3": soupsieve 3.0.2 and newer need Python 3.11.5, and the lock had been resolved on 3.11.7.
requirements-constraints.txt now bounds it, tools/lock.py applies that file to every resolution, and here pip is asked
for each pin's wheel as the oldest Python would ask (``--python-version``: pip then refuses a release whose
Requires-Python excludes it, as it did on Debian; a pin yanked for that Python, as soupsieve 3.0.1 is for Pythons
before 3.11.5, fails too). It needs the package index (pip's cache serves most of it): without
one it skips, unless COURSE_REQUIRE_PIP=1 (CI).
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_browser import skip_or_fail  # noqa: E402
from test_pip_install import VARIABLE, clean_environment, index_url, unreachable_reason  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / "requirements-constraints.txt"
#: Each learner's lock and the oldest Python it is for (the Makefile and course.py pick it by Python version).
OLDEST = {"requirements.lock": "3.11.0", "requirements-py310.lock": "3.10.0"}
LOCKS = ["requirements.lock", "requirements-py310.lock", "requirements-dev.lock", "requirements-dev-py310.lock"]


def pins(path: Path) -> dict:
    return {m[1].lower().replace("_", "-"): m[2]
            for m in re.finditer(r"^([A-Za-z0-9_.-]+)==(\S+)", path.read_text(encoding="utf-8"), re.M)}


def constraints() -> list[Requirement]:
    lines = [line.split("#")[0].strip() for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines()]
    return [Requirement(line) for line in lines if line]


@pytest.mark.parametrize("lock", LOCKS)
def test_every_lock_keeps_the_constraints(lock):
    found = pins(ROOT / lock)
    broken = [f"{req.name}=={found[req.name]} (wants {req})" for req in constraints()
              if req.name in found and found[req.name] not in req.specifier]
    assert broken == [], f"{lock} breaks requirements-constraints.txt: {broken}"


def test_the_lock_tool_applies_the_constraints(monkeypatch):
    """Every pip install tools/lock.py runs is constrained by requirements-constraints.txt (its commands recorded,
    nothing installed)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import lock

    commands = []

    def run(command, **kwargs):
        commands.append([str(part) for part in command])
        return subprocess.CompletedProcess(command, 0, stdout="", stderr="")

    monkeypatch.setattr(lock.subprocess, "run", run)
    lock.resolve(sys.executable, keep=[])
    installs = [command for command in commands if "install" in command]
    assert len(installs) == 2, commands
    for command in installs:
        constraints = [command[i + 1] for i, part in enumerate(command) if part == "-c"]
        assert str(CONSTRAINTS) in constraints, command


@pytest.mark.parametrize("lock", sorted(OLDEST))
def test_every_pin_installs_on_the_oldest_python_of_its_lock(lock, tmp_path):
    python = Path(sys.executable)
    skip_or_fail(unreachable_reason(index_url(python)), "lock-on-oldest-Python test", VARIABLE)
    done = subprocess.run([str(python), "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                           "--python-version", OLDEST[lock], "--dest", str(tmp_path), "-r", str(ROOT / lock)],
                          capture_output=True, text=True, timeout=600, env=clean_environment())
    refused = re.findall(r"No matching distribution found for (\S+)", done.stderr)
    assert done.returncode == 0, (f"{lock} on Python {OLDEST[lock]}: pip finds no wheel for {refused or '?'}\n"
                                  + done.stderr[-2000:])
    yanked = re.findall(r"yanked version: '([^']+)' candidate \(version (\S+)", done.stderr)
    assert "yanked" not in done.stderr, f"{lock} on Python {OLDEST[lock]}: yanked pins {yanked}\n{done.stderr[-2000:]}"
