"""First setup, as a new learner meets it: a fresh clone and empty caches to JupyterLab answering /api/status.

Three ways, alternated in one run (same machine, same minutes, same network), REPEATS times each:

* ``before``: `make lab` of the course before the lock was split (REV_BEFORE: pip installs the whole
  lock, the maintainers' tools included, with --quiet);
* ``pip``:    today's `make lab` with INSTALLER=pip (the learner's lock only; pip is the fallback);
* ``uv``:     today's `make lab` (the learner's lock, installed by uv);
* ``uv-now`` (not in the default ways): today's `make lab COMPILE=now`, uv compiling the bytecode while it
  installs (as before the background compilation): the trade of compiling later, side by side;
* ``before-pypi`` (not in the default ways): ``before`` with pip's configuration files and PIP_FIND_LINKS /
  PIP_*INDEX_URL left out, so pip, like uv and like a learner's pip, downloads everything from PyPI (this
  machine's pip.conf adds local wheel folders that only pip reads).

Each run: ``git clone`` of this repository into a temporary folder, fresh PIP_CACHE_DIR and
UV_CACHE_DIR there, PYTHONDONTWRITEBYTECODE unset (as on a learner's machine: an import writes its .pyc),
then `make lab` with a free port and a token; the clock stops when ``/api/status`` answers 200. Recorded
per run: seconds to "environment ready" (the install) and to JupyterLab answering, the packages installed,
then, with that JupyterLab still running: the first cell (a kernel started through the server, then notebook
00's imports with matplotlib.pyplot and ipywidgets: seconds from the request to the reply), run at once, as a
learner who clicks straight away would; and when the background compilation of the bytecode ended (seconds from
the start; today's `make lab` compiles after installing). The 1-minute load average before each run is kept
(other processes share this machine). The `pip freeze --all` of the ``pip`` and ``uv`` venvs of the first
repeat are compared (they must agree). Goal (issue 14): uv <= 40 % of before.

Results: benchmarks/results/setup.md, with the machine line and the CPU's SIMD level. Takes minutes
and downloads every package each run: `make bench BENCH_ARGS=--setup` (not part of a plain `make bench`).

    python benchmarks/setup.py [--repeats 2] [--before REV] [--ways before,pip,uv] [--append]
"""
from __future__ import annotations

import argparse
import datetime
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, machine  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 900  # seconds for one setup; a stuck download must not hang the benchmark
WAYS = ("before", "pip", "uv")
ALL_WAYS = (*WAYS, "uv-now", "before-pypi")


def rev_before() -> str:
    """The commit before requirements-dev.in appeared (the lock not yet split)."""
    added = subprocess.run(["git", "log", "--diff-filter=A", "--format=%H", "--", "requirements-dev.in"], cwd=ROOT,
                           check=True, capture_output=True, text=True).stdout.split()
    if not added:
        raise SystemExit("requirements-dev.in is not committed yet: pass --before REV")
    return added[-1] + "^"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def status_ok(port: int, token: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


FIRST_CELL = ("import numpy as np\nimport course_utils as cu\nfrom course_utils import doctor\n"
              "import matplotlib, ipywidgets, matplotlib.pyplot as plt")
COMPILE_WAIT = 300  # seconds at most for the background compilation after JupyterLab answered


def first_cell(port: int, token: str) -> float:
    """Seconds to start a python3 kernel through the server and run FIRST_CELL in it (then the kernel is shut down)."""
    import json
    import uuid

    import websocket  # websocket-client, in the learner's lock

    base = f"127.0.0.1:{port}/api/kernels"
    start = time.monotonic()
    request = urllib.request.Request(f"http://{base}?token={token}", data=b'{"name": "python3"}', method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        kernel = json.load(response)["id"]
    ws = websocket.create_connection(f"ws://{base}/{kernel}/channels?token={token}", timeout=180)
    try:
        msg_id = uuid.uuid4().hex
        ws.send(json.dumps({
            "header": {"msg_id": msg_id, "username": "bench", "session": uuid.uuid4().hex,
                       "msg_type": "execute_request", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": FIRST_CELL, "silent": False, "store_history": False, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True}}))
        while True:
            message = json.loads(ws.recv())
            if message.get("msg_type") == "execute_reply" and message["parent_header"].get("msg_id") == msg_id:
                break
        seconds = time.monotonic() - start
        if message["content"]["status"] != "ok":
            raise RuntimeError(f"the first cell failed: {message['content']}")
    finally:
        ws.close()
        urllib.request.urlopen(urllib.request.Request(f"http://{base}/{kernel}?token={token}", method="DELETE"),
                               timeout=30).close()
    return seconds


def wait_for_compilation(venv: Path, start: float) -> float | None:
    """Seconds from `start` until the background compilation's marker is gone (None: there was none); a worker
    still running after COMPILE_WAIT is stopped, so it cannot slow the next run."""
    marker = venv / ".bytecode-pending"
    if not marker.exists():
        return None
    deadline = time.monotonic() + COMPILE_WAIT
    while marker.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    if marker.exists():
        pid = marker.read_text().strip()
        if pid.isdigit():
            os.killpg(int(pid), signal.SIGTERM)  # the worker leads its own session (start_new_session)
        raise RuntimeError(f"the background compilation did not end within {COMPILE_WAIT} s")
    return time.monotonic() - start


def one_setup(way: str, rev: str, work: Path) -> dict:
    """Clone at `rev` into `work`, `make lab` with empty caches; seconds to the environment and to /api/status."""
    course = work / "course"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(course)], check=True)
    subprocess.run(["git", "-c", "advice.detachedHead=false", "checkout", "-q", rev], cwd=course, check=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("VIRTUAL_ENV", "UV_", "COURSE_INSTALLER")) and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PIP_CACHE_DIR=str(work / "pip-cache"), UV_CACHE_DIR=str(work / "uv-cache"),
               INSTALLER="pip" if way == "pip" else "auto", PATH=os.environ["PATH"])
    if way == "before-pypi":  # no pip.conf, no local wheels: PyPI only
        env["PIP_CONFIG_FILE"] = os.devnull
        for name in ("PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CONSTRAINT"):
            env.pop(name, None)
    env.pop("MAKEFLAGS", None)
    env.pop("MAKELEVEL", None)
    port, token = free_port(), "setup-benchmark"
    lab_args = f"--port={port} --ServerApp.token={token} --ServerApp.port_retries=0"
    log = work / "make-lab.log"
    load = os.getloadavg()[0]
    start = time.monotonic()
    with open(log, "w") as out:
        make = ["make", "lab", f"LAB_ARGS={lab_args}", "LAB_BROWSER=--no-browser --allow-root"]
        make += ["COMPILE=now"] if way == "uv-now" else []
        process = subprocess.Popen(make,
                                   cwd=course, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        ready = None
        try:
            while time.monotonic() - start < TIMEOUT:
                if ready is None and "Environment ready in" in log.read_text(errors="replace"):
                    ready = time.monotonic() - start
                if status_ok(port, token):
                    break
                if process.poll() is not None:
                    raise RuntimeError(f"{way}: make lab exited {process.returncode}:\n"
                                       + log.read_text(errors="replace")[-3000:])
                time.sleep(0.2)
            else:
                raise RuntimeError(f"{way}: no answer within {TIMEOUT} s")
            answered = time.monotonic() - start
            cell = first_cell(port, token)
            compiled = wait_for_compilation(course / ".venv", start)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)  # the group this benchmark started: make and jupyter
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
    python = course / ".venv" / "bin" / "python"
    frozen = subprocess.run([str(python), "-m", "pip", "freeze", "--all", "--disable-pip-version-check"],
                            capture_output=True, text=True, check=True).stdout.splitlines()
    frozen = sorted((line.replace(str(course), "<clone>") for line in frozen), key=str.lower)
    used_uv = any((course / ".venv").glob(".uv-*")) and "uv did not work" not in log.read_text(errors="replace")
    installer = "uv" if used_uv else "pip"
    return {"way": way, "ready": ready if ready is not None else answered, "answered": answered,
            "first_cell": cell, "compiled": compiled, "load": load,
            "packages": len(frozen), "freeze": frozen, "installer": installer,
            "phases": uv_phases(log.read_text(errors="replace"))}


def uv_phases(log: str) -> dict:
    """Seconds of uv's phases from its summary lines in a `make lab` log: download (Prepared), install, compile."""
    import re

    phases = {}
    for key, word in (("download", "Prepared"), ("install", "Installed"), ("compile", "Bytecode compiled")):
        for number, unit in re.findall(rf"uv: {word} \d+ (?:packages?|files?) in ([\d.]+)(ms|s)\b", log):
            phases[key] = phases.get(key, 0.0) + float(number) / (1000 if unit == "ms" else 1)
    return phases


def median(values):
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def report(runs: list[dict], rev: str, repeats: int, head: str = "HEAD") -> str:
    by_way = {way: [r for r in runs if r["way"] == way] for way in ALL_WAYS}
    by_way = {way: rs for way, rs in by_way.items() if rs}
    med = {way: median([r["answered"] for r in rs]) for way, rs in by_way.items()}
    lines = [
        "# First setup: fresh clone, empty caches, to JupyterLab answering /api/status",
        "",
        f"Measured {datetime.date.today().isoformat()} by `benchmarks/setup.py` (`make bench BENCH_ARGS=--setup`): "
        f"{repeats} repeat(s) of each way, alternated in one run. `before` is `make lab` at {rev} (pip installs the "
        f"whole lock, maintainers' tools included, bytecode compiled while installing); `pip` is `make lab "
        f"INSTALLER=pip` at {head} (the learner's lock); `uv` is `make lab` at {head} (the learner's lock through uv). "
        "Both install without compiling, then compile the bytecode in the background: the modules a first start "
        "imports first (tools/first_start.txt), the rest at nice 19; `uv-now` is `make lab COMPILE=now` (uv "
        "compiles while installing, as before). "
        "Each run: `git clone`, fresh PIP_CACHE_DIR and UV_CACHE_DIR, PYTHONDONTWRITEBYTECODE unset, `make lab`; "
        "the clock stops when /api/status answers. Then, JupyterLab still running: the first cell (kernel start "
        "through the server + notebook 00's imports, matplotlib.pyplot, ipywidgets) run at once, and the second "
        "the background compilation ended (from the start of the run).",
        "",
        *machine(),
        "- network: pip reads this machine's pip.conf (find-links /opt/wheels and two local file:// indexes beside "
        "PyPI, so pip finds many wheels on local disk); uv reads none of it and downloads everything from PyPI",
        "",
        "| way | run | installer | packages (pip freeze --all) | environment ready (s) | JupyterLab answers (s) "
        "| then first cell (s) | bytecode compiled at (s) | load 1 min before |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        compiled = "while installing" if run["compiled"] is None else f"{run['compiled']:.1f}"
        lines.append(f"| {run['way']} | {run['repeat']} | {run['installer']} | {run['packages']} | "
                     f"{run['ready']:.1f} | {run['answered']:.1f} | {run['first_cell']:.1f} | {compiled} | "
                     f"{run['load']:.2f} |")
    bases = [way for way in ("before", "before-pypi") if way in med]
    lines += ["", "| way | median to JupyterLab (s) | " + " | ".join(f"ratio to {b}" for b in bases)
              + " | median first cell (s) | median to JupyterLab + first cell (s) |",
              "|---|---|" + "---|" * len(bases) + "---|---|"]
    for way, value in med.items():
        cell = median([r["first_cell"] for r in by_way[way]])
        both = median([r["answered"] + r["first_cell"] for r in by_way[way]])
        lines.append(f"| {way} | {value:.1f} | " + " | ".join(f"{value / med[b]:.2f}" for b in bases)
                     + f" | {cell:.1f} | {both:.1f} |")
    for base in bases if "uv" in med else []:
        verdict = "met" if med["uv"] <= 0.4 * med[base] else "NOT met"
        lines += ["", f"Goal uv <= 0.40 x {base}: {med['uv'] / med[base]:.2f} ({verdict})."]
    for way in ("uv", "uv-now"):
        if way in by_way:
            lines += ["", f"Where the {way} runs' time goes (uv's own summary lines, seconds): "
                      + "; ".join(f"run {r['repeat']}: " + ", ".join(f"{k} {v:.1f}" for k, v in r["phases"].items())
                                  for r in by_way[way]) + ". The rest: the venv, fetching uv, JupyterLab's start."]
    for other in ("pip", "uv-now"):
        if "uv" in by_way and other in by_way:
            a, b = set(by_way["uv"][0]["freeze"]), set(by_way[other][0]["freeze"])
            same = "the same" if a == b else f"DIFFERENT (uv only: {sorted(a - b)}, {other} only: {sorted(b - a)})"
            lines += ["", f"uv and {other} installed {same} {len(a)} distributions (`pip freeze --all` of the first "
                      "repeat)."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--before", help="the commit of the `before` way (default: before the lock was split)")
    parser.add_argument("--append", action="store_true", help="add this run to setup.md instead of replacing it")
    parser.add_argument("--ways", default=",".join(WAYS), help="comma-separated, of " + ", ".join(ALL_WAYS))
    args = parser.parse_args(argv)
    ways = [w for w in args.ways.split(",") if w]
    before = args.before or rev_before()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout.strip()
    runs = []
    for repeat in range(1, args.repeats + 1):
        order = ways if repeat % 2 else ways[::-1]  # alternate: no way always first
        for way in order:
            rev = before if way.startswith("before") else head
            with tempfile.TemporaryDirectory(prefix=f"setup-{way}-") as tmp:
                result = one_setup(way, rev, Path(tmp))
            result["repeat"] = repeat
            runs.append(result)
            print(f"{way} #{repeat}: environment {result['ready']:.1f} s, JupyterLab {result['answered']:.1f} s, "
                  f"first cell {result['first_cell']:.1f} s, compiled {result['compiled']} "
                  f"({result['packages']} distributions, {result['installer']}, load {result['load']:.2f})", flush=True)
    before_label = subprocess.run(["git", "rev-parse", "--short", before], cwd=ROOT, check=True,
                                  capture_output=True, text=True).stdout.strip()
    text = report(runs, before_label, args.repeats, head)
    RESULTS.mkdir(exist_ok=True)
    if args.append and (RESULTS / "setup.md").exists():
        text = (RESULTS / "setup.md").read_text() + "\n## Another run\n\n" + text.split("\n", 2)[2]
    (RESULTS / "setup.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
