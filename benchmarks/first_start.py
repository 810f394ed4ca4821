"""Record which modules a first start imports, in order, into tools/first_start.txt (maintainers; after `make lock`).

`make lab` installs the learner's lock without compiling its bytecode, then tools/install_env.py's worker
compiles in the background: first the modules listed in tools/first_start.txt (at normal priority, in
that order, while JupyterLab starts), then the rest at nice 19. This script makes that list: it starts
JupyterLab from the course's .venv with PYTHONPYCACHEPREFIX pointing at an empty folder (Python then reads
and writes every .pyc there, so the .venv's own are ignored and every import leaves one), waits for
/api/status, runs the first cell of benchmarks/setup.py (a kernel through the server; notebook 00's imports,
matplotlib.pyplot, ipywidgets), stops, and lists the site-packages modules that got a .pyc, oldest first.

    .venv/bin/python benchmarks/first_start.py [--check]   # --check: compare with the file, write nothing
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from setup import first_cell, free_port, status_ok  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LIST = ROOT / "tools" / "first_start.txt"
HEADER = """\
# The modules (relative to site-packages) JupyterLab's server, then the first notebook's kernel and first cell
# import as they start, in the order their .pyc was first written. tools/install_env.py's worker compiles these
# first, at normal priority while the server starts, then the rest of the environment at nice 19.
# Written by `.venv/bin/python benchmarks/first_start.py` (re-run after `make lock`) from the course's .venv, where
# the maintainers' additions add a few (nbgitpuller's server extension); a module missing from the environment is
# skipped, so a stale line costs nothing but its place.
"""


def record(venv: Path) -> list[str]:
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    with tempfile.TemporaryDirectory(prefix="first-start-") as tmp:
        prefix = Path(tmp) / "pyc"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(prefix)
        port, token = free_port(), "first-start"
        server = subprocess.Popen([str(python), "-m", "jupyterlab", "--no-browser", "--allow-root", f"--port={port}",
                                   f"--ServerApp.token={token}", "--ServerApp.port_retries=0",
                                   f"--ServerApp.root_dir={tmp}"],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
        try:
            deadline = time.monotonic() + 180
            while not status_ok(port, token):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("JupyterLab did not answer")
                time.sleep(0.2)
            first_cell(port, token)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
        mirror = prefix / site.relative_to(site.anchor)
        written = sorted(mirror.rglob("*.pyc"), key=lambda pyc: (pyc.stat().st_mtime_ns, str(pyc)))
        modules = []
        for pyc in written:
            relative = pyc.relative_to(mirror)
            source = relative.with_name(relative.name.split(".")[0] + ".py")
            if (site / source).is_file():
                modules.append(source.as_posix())
        return modules


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv")
    parser.add_argument("--check", action="store_true", help="compare with tools/first_start.txt; write nothing")
    args = parser.parse_args(argv)
    modules = record(args.venv)
    if args.check:
        listed = [line for line in LIST.read_text().splitlines() if line and not line.startswith("#")]
        print(f"{len(modules)} modules now; {len(set(modules) - set(listed))} not listed, "
              f"{len(set(listed) - set(modules))} listed but not imported")
        return 0
    LIST.write_text(HEADER + "\n".join(modules) + "\n")
    print(f"{len(modules)} modules written to {LIST.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
