"""Install lock files into the course's virtual environment: with uv when it can be had, else with pip.

``python3 course.py env`` (and so ``make env``, ``make lab``, ``make test``, ... which call it) runs this script with
the system's Python, on Linux, macOS and Windows alike (paths from :func:`bin_dir`, no shell)::

    python3 tools/install_env.py --venv .venv --compile later --editable . requirements.lock
    python3 tools/install_env.py --venv .venv requirements-dev.lock       # on top (course.py env-dev, make env-dev)

1. Creates the venv with this Python when it is missing (``python -m venv --without-pip``). Its pip (which
   the doctor's fixes use) is the one ``python -m venv`` puts there: with uv, the wheels of this Python's
   ensurepip go into uv's one command with the locks (ensurepip itself spent ~7 s of CPU installing and
   compiling them); else, or when uv fails, ``python -m ensurepip`` (in the background while uv is fetched).
2. Says in one line what it installs and about how long that takes.
3. Installs every lock and the editable project in one command with ``--no-deps`` (the environment
   is exactly the locks) and compiles the bytecode (without it every import is ~2.3x slower when Python
   may not write it):

   * uv (``uv pip install``), version UV_VERSION, fetched into ``<venv>/.uv-<version>/`` (outside
     site-packages: the venv holds exactly the locks either way): its wheel downloaded from PyPI and
     checked against the index's sha256 where UV_WHEELS knows the machine, else installed by pip;
   * pip (``python -m pip install``) when uv cannot be had or fails: one line says why, then pip
     installs the same locks.

   uv reads its own configuration (``UV_INDEX_URL``, ``UV_CACHE_DIR``, ...), never pip's; pip reads
   pip's. Both give the same packages (``.ci/run`` compares their ``pip freeze``).
4. Shows progress all along: uv's progress on a terminal; otherwise a line per phase with the seconds
   elapsed, and a line at least every HEARTBEAT seconds while an installer works silently.

``--compile later`` (what ``make env`` and ``make lab`` pass for the learner's lock) installs without compiling
and compiles the bytecode in the background instead, once the packages are in: compiling was ~8 of the ~13 s
uv took to install, and JupyterLab starts meanwhile. The packages JupyterLab and the first notebook import come
first (tools/first_start.txt, in the order they are imported, at normal priority), the rest at low
priority (nice 19). Until it is done, a module imported
for the first time is compiled by the import itself (Python writes its .pyc as usual).
The worker runs this script with the venv's Python (``--compile-worker``); it holds a lock on
``<venv>/.bytecode-pending`` and removes that file when done (log: ``<venv>/.bytecode.log``), so
``--compile-in-background`` (``make lab`` runs it while the file exists) starts it again only when an earlier
one was stopped before it finished. Its .pyc files are the ones ``uv --compile-bytecode`` writes (the same files,
compileall's default invalidation mode, the same absolute paths; compared: byte for byte but for marshal's
reference flags in a few, with equal code objects). ``--compile now`` (the default, ``make env-dev``) compiles
during the installation.

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
SECONDS_PER_PACKAGE = {"uv": 0.2, "pip": 0.8}
#: How long the background compilation of the learner's lock takes after the installation (benchmarks/results/setup.md:
#: 29-36 s on 2 cores shared with other work, load 2.4-5.3; uv compiled the same files in 8 s on an idle machine).
COMPILE_ESTIMATE = "under a minute"


class InstallError(RuntimeError):
    """An installer step failed; the message says which command."""


def say(message: str) -> None:
    print(message, flush=True)


def lock_packages(lock: Path) -> list[str]:
    """The ``name==version`` lines of a lock file."""
    return [line.split("#")[0].strip() for line in lock.read_text().splitlines()
            if "==" in line.split("#")[0]]


def bin_dir(venv: Path, os_name: str | None = None) -> Path:
    """The folder of a venv's programs: ``Scripts`` on Windows (``os_name == "nt"``), ``bin`` elsewhere.

    Parameters
    ----------
    venv : Path or PurePath
        The venv; a ``PureWindowsPath`` with ``os_name="nt"`` gives Windows paths on any machine.
    os_name : str, optional
        ``os.name`` of the machine the venv is for (default: this one's).
    """
    return venv / ("Scripts" if (os.name if os_name is None else os_name) == "nt" else "bin")


def venv_program(venv: Path, name: str, os_name: str | None = None) -> Path:
    """A venv's program ``name`` (``python``, ``jupyter``, ...): ``Scripts\\<name>.exe`` on Windows, ``bin/<name>``
    elsewhere (see :func:`bin_dir`)."""
    nt = (os.name if os_name is None else os_name) == "nt"
    return bin_dir(venv, os_name) / (f"{name}.exe" if nt else name)


def venv_python(venv: Path, os_name: str | None = None) -> Path:
    """The venv's Python: ``.venv\\Scripts\\python.exe`` on Windows, ``.venv/bin/python`` elsewhere."""
    return venv_program(venv, "python", os_name)


def run(command: list, label: str, start: float, show=None, env=None) -> None:
    """Run `command`; print the lines `show` returns for its output (None: nothing), a heartbeat while
    it is silent, and raise InstallError with its last lines when it fails."""
    # errors="replace": an installer's line in another encoding than this console's (Windows) is shown, not fatal
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               errors="replace", env=env, bufsize=1)
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
            return f"pip: installing {line.count(',') + 1} packages"
        elif line.startswith(("Successfully installed", "ERROR", "error")):
            return "pip: " + line[:160] + ("..." if len(line) > 160 else "")
        return None


#: The uv wheel for this machine, by (sys.platform, machine): a part of its file name on PyPI. Elsewhere
#: (musl, other CPUs) pip fetches uv (it picks the wheel itself).
UV_WHEELS = {
    ("linux", "x86_64"): "-manylinux_2_17_x86_64.",
    ("linux", "aarch64"): "-manylinux_2_17_aarch64.",
    ("darwin", "x86_64"): "-macosx_10_12_x86_64.",
    ("darwin", "arm64"): "-macosx_11_0_arm64.",
    ("win32", "amd64"): "-win_amd64.",  # platform.machine() says AMD64 / ARM64 on Windows
    ("win32", "arm64"): "-win_arm64.",
}
PYPI_SIMPLE = "https://pypi.org/simple/uv/"


def uv_wheel_part() -> str | None:
    """The part of the uv wheel's file name that fits this machine, or None (then pip fetches uv)."""
    import platform

    if sys.platform == "linux" and platform.libc_ver()[0] != "glibc":
        return None
    return UV_WHEELS.get((sys.platform, platform.machine().lower()))


def uv_name(os_name: str | None = None) -> str:
    """The file name of uv's executable: ``uv.exe`` on Windows, ``uv`` elsewhere."""
    return "uv.exe" if (os.name if os_name is None else os_name) == "nt" else "uv"


def download_uv(home: Path, part: str) -> None:
    """uv's executable from its wheel on PyPI (the index's sha256 checked) into home/bin/uv (uv.exe on Windows): one
    download, no pip (pip takes ~10 s to fetch it here)."""
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
        binary = wheel.read(f"uv-{UV_VERSION}.data/scripts/{uv_name()}")
    (home / "bin").mkdir(parents=True, exist_ok=True)
    partial = home / "bin" / "uv.partial"
    partial.write_bytes(binary)
    partial.chmod(0o755)
    partial.replace(home / "bin" / uv_name())


def bootstrap_uv(venv: Path, start: float, pip_ready=lambda: None) -> Path:
    """uv UV_VERSION in <venv>/.uv-<version>/ (outside site-packages), fetched the first time; its executable.

    Downloads the wheel from PyPI where UV_WHEELS knows this machine; else, or when that fails, the venv's pip
    installs it (``pip_ready`` waits until the venv has its pip)."""
    home = venv / f".uv-{UV_VERSION}"
    # `pip install --target` puts scripts in home/bin on Windows too (its "home" scheme is posix_home there)
    uv = home / "bin" / uv_name()
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


def install_uv(uv: Path, venv: Path, locks: list[Path], editable: Path | None, start: float,
               compile_now: bool = True, wheels: list[Path] = ()) -> None:
    """Every lock, `wheels` (local files) and the editable project in one `uv pip install` (the project builds
    while wheels download)."""
    command = [str(uv), "pip", "install", "--python", str(venv_python(venv)), "--no-deps"]
    command += ["--compile-bytecode"] if compile_now else []
    command += [arg for lock in locks for arg in ("-r", str(lock))]
    command += [str(wheel) for wheel in wheels]
    command += ["--editable", str(editable)] if editable is not None else []
    if sys.stdout.isatty():  # uv's own progress bars
        if subprocess.run(command).returncode != 0:
            raise InstallError("uv could not install " + " + ".join(lock.name for lock in locks))
    else:
        run(command, "uv installing", start, show=uv_lines)


def install_pip(venv: Path, locks: list[Path], editable: Path | None, start: float,
                compile_now: bool = True) -> None:
    """Every lock and the editable project in one `pip install --no-deps`."""
    command = [str(venv_python(venv)), "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar",
               "off", "--no-deps"]
    command += [] if compile_now else ["--no-compile"]
    command += [arg for lock in locks for arg in ("-r", str(lock))]
    command += ["--editable", str(editable)] if editable is not None else []
    total = sum(len(lock_packages(lock)) for lock in locks) + (editable is not None)
    run(command, "pip installing", start, show=PipProgress(total))


#: The marker of a background compilation not finished yet, in the venv (the worker holds a lock on it).
PENDING = ".bytecode-pending"
COMPILE_LOG = ".bytecode.log"
#: The modules JupyterLab's server, then the first notebook's kernel and first cell import as they start, in that
#: order (1166 of the ~4600 .pyc; written by benchmarks/first_start.py): the worker compiles them first.
FIRST_START = Path(__file__).resolve().with_name("first_start.txt")


def first_start_modules(folder: Path) -> list[Path]:
    """The FIRST_START modules present in site-packages `folder`, in order."""
    try:
        lines = FIRST_START.read_text().splitlines()
    except OSError:
        return []
    return [folder / line for line in lines if line and not line.startswith("#") and (folder / line).is_file()]


def _lock(handle) -> bool:
    """An exclusive lock on the open file `handle` without waiting; False when another process holds it."""
    try:
        import fcntl
    except ImportError:  # Windows: no lock, at worst two workers (the second finds every file compiled)
        return True
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False


def compile_in_background(venv: Path) -> bool:
    """Start the worker that compiles the venv's bytecode at low priority, detached (it outlives make and survives
    Ctrl-C); <venv>/.bytecode-pending stays until it is done. False when a worker is already at it."""
    marker = venv / PENDING
    handle = open(marker, "a+")  # the lock passes to the worker with the descriptor: never a moment without one
    try:
        if not _lock(handle):
            return False
        command = [str(venv_python(venv)), str(Path(__file__).resolve()), "--venv", str(venv.resolve()),
                   "--compile-worker"]
        if os.name != "nt":
            command += ["--lock-fd", str(handle.fileno())]
            inherit = {"pass_fds": (handle.fileno(),), "start_new_session": True}
        else:  # its own process group (a Ctrl-C in the console does not reach it), no console window
            inherit = {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.DETACHED_PROCESS}
        with open(venv / COMPILE_LOG, "a") as log:
            subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, **inherit)
        return True
    finally:
        handle.close()


def site_packages() -> list[Path]:
    """This Python's site-packages folders (purelib, platlib)."""
    import sysconfig

    paths = sysconfig.get_paths()
    return list(dict.fromkeys(Path(paths[key]) for key in ("purelib", "platlib") if Path(paths[key]).is_dir()))


def compile_worker(venv: Path, lock_fd: int | None = None) -> int:
    """Compile every module of this Python's site-packages (run with the venv's Python): the FIRST_START modules
    at normal priority, the rest at nice 19; remove <venv>/.bytecode-pending at the end. A second worker leaves."""
    import compileall

    marker = venv / PENDING
    if lock_fd is not None:
        handle = os.fdopen(lock_fd, "a+")  # locked by compile_in_background
    elif marker.exists():
        handle = open(marker, "a+")
        if not _lock(handle):
            handle.close()
            return 0
    else:
        return 0
    with handle:
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        start = time.monotonic()
        ok = True
        first_files = [str(path) for folder in site_packages() for path in first_start_modules(folder)]
        if first_files:  # in order, on every core: ahead of the server's own imports
            from concurrent.futures import ProcessPoolExecutor
            from functools import partial

            with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
                ok &= all(pool.map(partial(compileall.compile_file, quiet=1), first_files, chunksize=4))
        first = time.monotonic() - start
        if hasattr(os, "nice"):
            os.nice(19)  # the rest only when nothing else wants the processor
        for folder in site_packages():
            ok &= compileall.compile_dir(folder, quiet=1, workers=0)
        if os.name == "nt":
            handle.close()  # Windows removes no file that is open (no lock to keep there: see _lock)
        marker.unlink(missing_ok=True)  # failures (a vendored Python 2 file) stay failures: no retry
        say(f"bytecode compiled in {time.monotonic() - start:.1f} s (JupyterLab's and the first notebook's packages "
            f"in {first:.1f} s)" + ("" if ok else "; some files did not compile (see above), as with pip and uv"))
    return 0


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


class _PipWhenNeeded:
    """ensurepip started only when pip is needed after all (uv could not be had or failed)."""

    def __init__(self, venv: Path):
        self.venv, self.pip = venv, None

    def wait(self) -> None:
        if self.pip is None:
            self.pip = EnsurePip(self.venv)
        self.pip.wait()


def forget_wheel_paths(venv: Path, wheels: list[Path]) -> None:
    """Remove the direct_url.json uv writes for a wheel installed from a file, so that `pip freeze` says
    ``pip==23.2.1``, as after ensurepip, not ``pip @ file:///...``."""
    for wheel in wheels:
        name, version = wheel.name.split("-")[:2]
        for record in venv.glob(f"[Ll]ib/**/site-packages/{name}-{version}.dist-info/direct_url.json"):
            record.unlink()


def bundled_pip_wheels() -> list[Path]:
    """The wheels ``python -m ensurepip`` of this Python installs (pip; setuptools too before Python 3.12), or []
    when they are not where CPython keeps them (Debian's python3-venv keeps them elsewhere: ensurepip then)."""
    try:
        import ensurepip
    except ImportError:
        return []
    wheels = sorted((Path(ensurepip.__file__).parent / "_bundled").glob("*.whl"))
    return wheels if any(wheel.name.startswith("pip-") for wheel in wheels) else []


def estimate(packages: int, installer: str) -> str:
    """About how long a first installation of `packages` packages takes (empty caches), as words."""
    seconds = packages * SECONDS_PER_PACKAGE[installer]
    low, high = max(5, round(seconds * 0.7 / 5) * 5), max(10, round(seconds * 1.5 / 5) * 5)
    return f"about {low}-{high} s the first time, seconds when the packages are cached"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("locks", nargs="*", type=Path, help="lock files, installed in this order")
    parser.add_argument("--venv", type=Path, default=Path(".venv"))
    parser.add_argument("--editable", type=Path, help="a project to install editable (--no-deps) after the locks")
    parser.add_argument("--installer", choices=["auto", "uv", "pip"],
                        default=os.environ.get("COURSE_INSTALLER") or "auto")
    parser.add_argument("--compile", choices=["now", "later"], default="now",
                        help="compile the bytecode while installing (now) or in the background afterwards (later)")
    parser.add_argument("--compile-in-background", action="store_true",
                        help="no installation: start the background compilation again if one was left unfinished")
    parser.add_argument("--compile-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--lock-fd", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.compile_worker:
        return compile_worker(args.venv, args.lock_fd)
    if args.compile_in_background:
        if (args.venv / PENDING).exists() and venv_python(args.venv).exists() and compile_in_background(args.venv):
            say(f"Compiling the rest of the bytecode in {args.venv} in the background (an earlier run stopped before "
                "it finished): JupyterLab starts meanwhile.")
        return 0
    if not args.locks:
        parser.error("name at least one lock file")
    compile_now = args.compile == "now"
    start = time.monotonic()
    python = venv_python(args.venv)
    pip = _Ready()
    installer = "pip" if args.installer == "pip" else "uv"
    pip_wheels: list[Path] = []
    if not python.exists():
        say(f"Creating the virtual environment {args.venv} (Python {sys.version.split()[0]})")
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(args.venv)], check=True)
        pip_wheels = bundled_pip_wheels() if installer == "uv" else []
        # pip, as `python -m venv` puts it: from its wheels in uv's command, else ensurepip while the rest goes on
        pip = _PipWhenNeeded(args.venv) if pip_wheels else EnsurePip(args.venv)
    packages = sum(len(lock_packages(lock)) for lock in args.locks)
    names = " + ".join(lock.name for lock in args.locks) + (" + course_utils" if args.editable else "")
    say(f"Installing {packages} packages ({names}) into {args.venv} with {installer}: "
        f"{estimate(packages, installer)}.")
    if installer == "uv":
        try:
            install_uv(bootstrap_uv(args.venv, start, pip.wait), args.venv, args.locks, args.editable, start,
                       compile_now, pip_wheels)
            installer_used = f"uv {UV_VERSION}"
            if pip_wheels:
                pip = _Ready()  # uv put pip there
                forget_wheel_paths(args.venv, pip_wheels)
        except (InstallError, OSError) as err:
            if args.installer == "uv":
                raise
            first = str(err).splitlines()[0]
            say(f"uv did not work ({first}); installing with pip instead "
                f"({estimate(packages, 'pip')}).")
            pip.wait()
            install_pip(args.venv, args.locks, args.editable, start, compile_now)
            installer_used = "pip"
    else:
        pip.wait()
        install_pip(args.venv, args.locks, args.editable, start, compile_now)
        installer_used = "pip"
    pip.wait()
    say(f"Installed {names} into {args.venv} with {installer_used} in {time.monotonic() - start:.0f} s.")
    if not compile_now:
        compile_in_background(args.venv)
        say(f"Compiling the bytecode in the background ({COMPILE_ESTIMATE}; what JupyterLab and the first notebook "
            "import first, the rest at low priority): JupyterLab starts meanwhile, and a module imported before then "
            "is compiled by that import.")
    return 0


if __name__ == "__main__":
    for stream in (sys.stdout, sys.stderr):  # a character this console cannot show (Windows' cp1252) is replaced
        stream.reconfigure(errors="replace")
    try:
        raise SystemExit(main())
    except InstallError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(1) from None
