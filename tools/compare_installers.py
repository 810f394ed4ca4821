"""uv and pip install the same packages from the same locks: both build a venv, their `pip freeze --all` must agree.

Builds two throwaway venvs with tools/install_env.py (``--installer uv``, ``--installer pip``) from the
learner's lock and the dev lock of this Python, with course_utils editable, and compares
``pip freeze --all`` (every distribution and version, pip's own included). Exit code 1 and the
differences when they disagree. `.ci/run` runs it (not `make test`: it installs everything twice);
benchmarks/setup.py uses :func:`freeze` the same way.

Usage: python3 tools/compare_installers.py [--keep DIR] [LOCK ...]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTALL_ENV = ROOT / "tools" / "install_env.py"


def default_locks() -> list[Path]:
    """The learner's lock and the dev lock for the running Python."""
    suffix = "-py310" if sys.version_info[:2] == (3, 10) else ""
    return [ROOT / f"requirements{suffix}.lock", ROOT / f"requirements-dev{suffix}.lock"]


def freeze(venv: Path) -> list[str]:
    """`pip freeze --all` of a venv: every distribution, one ``name==version`` (or ``-e ...``) line each."""
    out = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "freeze", "--all", "--disable-pip-version-check"],
                         check=True, capture_output=True, text=True).stdout
    return sorted(out.splitlines(), key=str.lower)


def build(venv: Path, installer: str, locks: list[Path]) -> float:
    """Install `locks` (and course_utils, editable) into a new venv with `installer`; the seconds it took."""
    start = time.monotonic()
    subprocess.run([sys.executable, str(INSTALL_ENV), "--venv", str(venv), "--installer", installer,
                    "--editable", str(ROOT), *map(str, locks)], check=True)
    return time.monotonic() - start


def differences(a: list[str], b: list[str]) -> list[str]:
    """Lines in only one of two freezes, marked ``uv only:`` / ``pip only:``."""
    return [f"uv only:  {line}" for line in sorted(set(a) - set(b))] + \
           [f"pip only: {line}" for line in sorted(set(b) - set(a))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("locks", nargs="*", type=Path, help="default: the learner's and the dev lock of this Python")
    args = parser.parse_args(argv)
    locks = args.locks or default_locks()
    with tempfile.TemporaryDirectory(prefix="installers-") as tmp:
        seconds, frozen = {}, {}
        for installer in ("uv", "pip"):
            venv = Path(tmp) / installer
            seconds[installer] = build(venv, installer, locks)
            frozen[installer] = freeze(venv)
    diff = differences(frozen["uv"], frozen["pip"])
    names = " + ".join(lock.name for lock in locks)
    if diff:
        print(f"uv and pip installed different packages from {names}:", *diff, sep="\n  ")
        return 1
    print(f"uv and pip installed the same {len(frozen['uv'])} distributions from {names} "
          f"(uv {seconds['uv']:.0f} s, pip {seconds['pip']:.0f} s, caches as they were)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
