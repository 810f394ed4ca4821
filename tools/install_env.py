"""Install lock files into the course's virtual environment: with uv when it can be had, else with pip.

``make env`` (and so ``make lab``, ``make test``, ...) runs this script with the system's Python::

    python3 tools/install_env.py --venv .venv --editable . requirements.lock
    python3 tools/install_env.py --venv .venv requirements-dev.lock       # on top (make env-dev)

1. Creates the venv with this Python when it is missing (``python -m venv --without-pip``, then
   ``python -m ensurepip`` in the background: the same pip ``python -m venv`` puts there, which the
   doctor's fixes use).
2. Says in one line what it installs and about how long that takes.
3. Installs every lock and the editable project in one command with ``--no-deps`` (the environment
   is exactly the locks) and compiles the bytecode (without it every first import is slower):

   * uv (``uv pip install``), version UV_VERSION, fetched into ``<venv>/.uv-<version>/`` (outside
     site-packages: the venv holds exactly the locks either way): its wheel downloaded from PyPI and
     checked against the index's sha256 where UV_WHEELS knows the machine, else installed by pip;
   * pip (``python -m pip install``) when uv cannot be had or fails: one line says why, then pip
     installs the same locks.

   uv reads its own configuration (``UV_INDEX_URL``, ``UV_CACHE_DIR``, ...), never pip's; pip reads
   pip's. Both give the same packages (``.ci/run`` compares their ``pip freeze``).
4. Shows progress all along: uv's progress on a terminal; otherwise a line per phase with the seconds
   elapsed, and a line at least every HEARTBEAT seconds while an installer works silently.

``--installer pip`` / ``--installer uv`` (or COURSE_INSTALLER=pip|uv) forces one; ``uv`` then fails
instead of falling back. Standard library only; runs with Python 3.10 and newer.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

UV_VERSION = "0.13.8"
HEARTBEAT = 15  # seconds without a line before "still working" is printed
#: (uv, pip) seconds per package of a first installation with empty caches, measured by
#: benchmarks/setup.py (benchmarks/results/setup.md); the one-line estimate scales them by the lock's size.
SECONDS_PER_PACKAGE = {"uv": 0.25, "pip": 0.8}


class InstallError(RuntimeError):
    """An installer step failed; the message says which command."""


def say(message: str) -> None:
    print(message, flush=True)


def lock_packages(lock: Path) -> list[str]:
    """The ``name==version`` lines of a lock file."""
    return [line.split("#")[0].strip() for line in lock.read_text().splitlines()
            if "==" in line.split("#")[0]]


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def run(command: list, label: str, start: float, show=None, env=None) -> None:
    """Run `command`; print the lines `show` returns for its output (None: nothing), a heartbeat while
    it is silent, and raise InstallError with its last lines when it fails."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=env, bufsize=1)
    tail: list[str] = []
    last = [time.monotonic()]
    done = threading.Event()

    def heartbeat():
        while not done.wait(0.25):
            if time.monotonic() - last[0] >= HEARTBEAT:
                say(f"  ... {label}: still working ({time.monotonic() - start:.0f} s)")
                last[0] = time.monotonic()

    thread = threading.Thread(target=heartbeat, daemon=True)
    thread.start()
    try:
        for line in process.stdout:
            line = line.rstrip()
            tail = (tail + [line])[-15:]
            shown = show(line) if show else None
            if shown:
                say(f"  {shown} ({time.monotonic() - start:.0f} s)")
                last[0] = time.monotonic()
        code = process.wait()
    finally:
        done.set()
        thread.join()
    if code != 0:
        raise InstallError(f"{label} failed (exit code {code})\n{' '.join(map(str, command))}\n" + "\n".join(tail))


def uv_lines(line: str) -> str | None:
    """uv's summary lines (Resolved, Prepared, Installed, Bytecode compiled, warnings); not one per package."""
    if re.match(r"\s*[+\-~] ", line) or not line.strip() or line.lstrip().startswith("Downloading "):
        return None  # "Downloaded <name>" says the same a moment later
    return "uv: " + line.strip()


class PipProgress:
    """pip's output, one line per tenth of the packages collected, then its installing phase."""

    def __init__(self, total: int):
        self.total, self.collected, self.shown = max(total, 1), 0, 0

    def __call__(self, line: str) -> str | None:
        if line.startswith(("Collecting ", "Requirement already satisfied", "Obtaining ", "Processing ")):
            self.collected += 1
            if self.collected * 10 // self.total > self.shown or self.collected == self.total:
                self.shown = self.collected * 10 // self.total
                return f"pip: {self.collected}/{self.total} packages downloaded or found"
        elif line.startswith("Installing collected packages"):
            return f"pip: installing and compiling {line.count(',') + 1} packages"
        elif line.startswith(("Successfully installed", "ERROR", "error")):
            return "pip: " + line[:160] + ("..." if len(line) > 160 else "")
        return None


#: The uv wheel for this machine, by (sys.platform, machine): a part of its file name on PyPI. Elsewhere
#: (Windows, musl, other CPUs) pip fetches uv (it picks the wheel itself).
UV_WHEELS = {
    ("linux", "x86_64"): "-manylinux_2_17_x86_64.",
    ("linux", "aarch64"): "-manylinux_2_17_aarch64.",
    ("darwin", "x86_64"): "-macosx_10_12_x86_64.",
    ("darwin", "arm64"): "-macosx_11_0_arm64.",
}
PYPI_SIMPLE = "https://pypi.org/simple/uv/"


def uv_wheel_part() -> str | None:
    """The part of the uv wheel's file name that fits this machine, or None (then pip fetches uv)."""
    import platform

    if sys.platform == "linux" and platform.libc_ver()[0] != "glibc":
        return None
    return UV_WHEELS.get((sys.platform, platform.machine().lower()))


def download_uv(home: Path, part: str) -> None:
    """uv's executable from its wheel on PyPI (the index's sha256 checked) into home/bin/uv: one download,
    no pip (pip takes ~10 s to fetch it here)."""
    import hashlib
    import io
    import json
    import urllib.request
    import zipfile

    request = urllib.request.Request(PYPI_SIMPLE, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=15) as response:
        files = json.load(response)["files"]
    prefix = f"uv-{UV_VERSION}-"
    chosen = [f for f in files if f["filename"].startswith(prefix) and part in f["filename"]]
    if len(chosen) != 1:
        raise InstallError(f"{len(chosen)} uv {UV_VERSION} wheels on PyPI match {part!r}")
    with urllib.request.urlopen(chosen[0]["url"], timeout=60) as response:
        data = response.read()
    if hashlib.sha256(data).hexdigest() != chosen[0]["hashes"]["sha256"]:
        raise InstallError(f"{chosen[0]['filename']}: sha256 differs from PyPI's")
    with zipfile.ZipFile(io.BytesIO(data)) as wheel:
        binary = wheel.read(f"uv-{UV_VERSION}.data/scripts/uv")
    (home / "bin").mkdir(parents=True, exist_ok=True)
    partial = home / "bin" / "uv.partial"
    partial.write_bytes(binary)
    partial.chmod(0o755)
    partial.replace(home / "bin" / "uv")


def bootstrap_uv(venv: Path, start: float, pip_ready=lambda: None) -> Path:
    """uv UV_VERSION in <venv>/.uv-<version>/ (outside site-packages), fetched the first time; its executable.

    Downloads the wheel from PyPI where UV_WHEELS knows this machine; else, or when that fails, the venv's pip
    installs it (``pip_ready`` waits until the venv has its pip)."""
    home = venv / f".uv-{UV_VERSION}"
    uv = home / "bin" / ("uv.exe" if os.name == "nt" else "uv")
    if uv.exists():
        return uv
    part = uv_wheel_part()
    if part is not None:
        say(f"  fetching uv {UV_VERSION} (the fast installer) from PyPI ({time.monotonic() - start:.0f} s)")
        try:
            download_uv(home, part)
            return uv
        except (OSError, ValueError, KeyError, InstallError) as err:
            say(f"  could not download uv ({err}); asking pip for it")
    else:
        say(f"  fetching uv {UV_VERSION} (the fast installer) with pip ({time.monotonic() - start:.0f} s)")
    pip_ready()
    run([str(venv_python(venv)), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--target", str(home), f"uv=={UV_VERSION}"], "pip install uv", start)
    if not uv.exists():
        raise InstallError(f"pip installed uv but {uv} is missing")
    return uv


def install_uv(uv: Path, venv: Path, locks: list[Path], editable: Path | None, start: float) -> None:
    """Every lock and the editable project in one `uv pip install` (the project builds while wheels download)."""
    command = [str(uv), "pip", "install", "--python", str(venv_python(venv)), "--no-deps", "--compile-bytecode"]
    command += [arg for lock in locks for arg in ("-r", str(lock))]
    command += ["--editable", str(editable)] if editable is not None else []
    if sys.stdout.isatty():  # uv's own progress bars
        if subprocess.run(command).returncode != 0:
            raise InstallError("uv could not install " + " + ".join(lock.name for lock in locks))
    else:
        run(command, "uv installing", start, show=uv_lines)


def install_pip(venv: Path, locks: list[Path], editable: Path | None, start: float) -> None:
    """Every lock and the editable project in one `pip install --no-deps`."""
    command = [str(venv_python(venv)), "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar",
               "off", "--no-deps"]
    command += [arg for lock in locks for arg in ("-r", str(lock))]
    command += ["--editable", str(editable)] if editable is not None else []
    total = sum(len(lock_packages(lock)) for lock in locks) + (editable is not None)
    run(command, "pip installing", start, show=PipProgress(total))


class EnsurePip:
    """pip put into a new venv (``python -m ensurepip``, what ``python -m venv`` does) in the background, while
    uv is fetched and installs; :meth:`wait` before pip is needed, and at the end."""

    def __init__(self, venv: Path):
        self.venv = venv
        self.process = subprocess.Popen([str(venv_python(venv)), "-m", "ensurepip", "--upgrade", "--default-pip"],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def wait(self) -> None:
        if self.process is None:
            return
        output, _ = self.process.communicate()
        code, self.process = self.process.returncode, None
        if code != 0:  # remove the venv made a moment ago: a venv without pip must not pass for a finished one
            import shutil

            if (self.venv / "pyvenv.cfg").is_file():
                shutil.rmtree(self.venv)
            raise SystemExit(f"error: the new venv has no pip (`python -m ensurepip` failed: {output.strip()[-500:]}).\n"
                             "On Debian/Ubuntu install the python3-venv package (`sudo apt install python3-venv`), "
                             "then try again.")


class _Ready:
    def wait(self) -> None:
        pass


def estimate(packages: int, installer: str) -> str:
    """About how long a first installation of `packages` packages takes (empty caches), as words."""
    seconds = packages * SECONDS_PER_PACKAGE[installer]
    low, high = max(5, round(seconds * 0.7 / 5) * 5), max(10, round(seconds * 1.5 / 5) * 5)
    return f"about {low}-{high} s the first time, seconds when the packages are cached"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("locks", nargs="+", type=Path, help="lock files, installed in this order")
    parser.add_argument("--venv", type=Path, default=Path(".venv"))
    parser.add_argument("--editable", type=Path, help="a project to install editable (--no-deps) after the locks")
    parser.add_argument("--installer", choices=["auto", "uv", "pip"],
                        default=os.environ.get("COURSE_INSTALLER") or "auto")
    args = parser.parse_args(argv)
    start = time.monotonic()
    python = venv_python(args.venv)
    pip = _Ready()
    if not python.exists():
        say(f"Creating the virtual environment {args.venv} (Python {sys.version.split()[0]})")
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(args.venv)], check=True)
        pip = EnsurePip(args.venv)  # pip, as `python -m venv` puts it, while the rest goes on
    packages = sum(len(lock_packages(lock)) for lock in args.locks)
    names = " + ".join(lock.name for lock in args.locks) + (" + course_utils" if args.editable else "")
    installer = "pip" if args.installer == "pip" else "uv"
    say(f"Installing {packages} packages ({names}) into {args.venv} with {installer}: "
        f"{estimate(packages, installer)}.")
    if installer == "uv":
        try:
            install_uv(bootstrap_uv(args.venv, start, pip.wait), args.venv, args.locks, args.editable, start)
            installer_used = f"uv {UV_VERSION}"
        except (InstallError, OSError) as err:
            if args.installer == "uv":
                raise
            first = str(err).splitlines()[0]
            say(f"uv did not work ({first}); installing with pip instead "
                f"({estimate(packages, 'pip')}).")
            pip.wait()
            install_pip(args.venv, args.locks, args.editable, start)
            installer_used = "pip"
    else:
        pip.wait()
        install_pip(args.venv, args.locks, args.editable, start)
        installer_used = "pip"
    pip.wait()
    say(f"Installed {names} into {args.venv} with {installer_used} in {time.monotonic() - start:.0f} s.")
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except InstallError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(1) from None
