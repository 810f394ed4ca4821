"""Sizing for a JupyterHub: what one learner costs in memory and CPU. Writes benchmarks/results/sizing.md.

Measured, on Linux (read from /proc/<pid>/status VmHWM, the process's peak resident memory, and
/proc/<pid>/stat, its CPU time):

1. **A kernel per notebook**: each solved notebook run top to bottom in a fresh python3 kernel (nbclient), then
   every dashboard the notebook made has each of its controls moved back and forth (``--moves`` times; each
   move redraws and sends the new picture, as in a browser). Peak memory of the kernel process, and its CPU
   seconds for start-up and for the run.
2. **The Jupyter server of one learner**: ``jupyter lab --no-browser`` on a free port; over its REST API and
   websocket (as JupyterLab does), each notebook of a learner's session is opened, run top to bottom and its
   dashboards moved, one after the other, *without shutting the earlier kernels down* (JupyterLab keeps a
   kernel running when its tab is closed). Peak memory of the server process, and the resident memory of the
   server and all its kernels at the end of the session (what one learner holds at worst).

From these, the per-user memory limit and guarantee and the sizing table for 30, 100 and 300 learners;
docs/instructor-guide.md gives the table with each number marked measured or assumed.

    python benchmarks/sizing.py [--moves 4] [--no-server] [--no-write] [NN ...]
    python benchmarks/sizing.py --from-json     # sizing.md again from the last run's figures (sizing.json)
"""
from __future__ import annotations

import argparse
import ast
import json
import math
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
BENCHMARKS = Path(__file__).resolve().parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
MIB = 1024 * 1024
RAW = _common.RESULTS / "sizing.json"  # the measured figures, so sizing.md can be written again without a run

#: The workshop's notebooks (00-05, and 08 when it exists: taken after 05) and the optional follow-ups.
OPTIONAL = ("06", "07")


# -- reading a process ---------------------------------------------------------------------------------------

def proc_status(pid):
    """VmHWM (peak resident) and VmRSS (resident now) of a process, in bytes, from /proc/<pid>/status."""
    values = {}
    with open(f"/proc/{pid}/status", encoding="utf-8") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                values[key] = int(rest.split()[0]) * 1024  # reported in kB
    return values


def cpu_seconds(pid):
    """User + system CPU seconds of a process and of its children it has waited for (/proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    utime, stime, cutime, cstime = (int(v) for v in fields[11:15])  # fields 14-17 of proc(5)
    return (utime + stime + cutime + cstime) / CLOCK_TICKS


def children(pid):
    """Direct child processes of ``pid`` (from /proc/*/stat)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


# -- moving every dashboard ----------------------------------------------------------------------------------

def _function_source(path, name):
    """The source of a top-level function of a file and of the top-level functions it calls, in file order (so
    the kernel runs the benchmarks' own helper, whatever helpers it is made of)."""
    text = path.read_text(encoding="utf-8")
    functions = {n.name: n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}
    needed, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current in needed:
            continue
        needed.add(current)
        todo += [n.id for n in ast.walk(functions[current]) if isinstance(n, ast.Name) and n.id in functions]
    nodes = sorted((functions[n] for n in needed), key=lambda node: node.lineno)
    return "\n\n".join(ast.get_source_segment(text, node) for node in nodes)


def move_code(moves):
    """Code run in the kernel after Run All: every live Dashboard gets each control moved ``moves`` times
    (between its value and benchmarks/widgets.py's ``other_value``), each move redrawing and updating the
    displayed picture; prints a JSON list of the controls moved."""
    return "\n".join([
        "import gc as _gc, json as _json",
        "from course_utils.widgets import Dashboard as _Dashboard",
        _function_source(BENCHMARKS / "widgets.py", "other_value"),
        "_moved = []",
        "for _d in [_o for _o in _gc.get_objects() if isinstance(_o, _Dashboard)]:",
        "    for _name, _control in list(_d.controls.items()):",
        "        _first, _second = _control.value, other_value(_control)",
        "        if _second is None:",
        "            continue",
        f"        for _i in range({moves}):",
        "            _control.value = _second if _i % 2 == 0 else _first",
        "        _control.value = _first",
        "        _moved.append(type(_d).__name__ + '.' + _name)",
        "print(_json.dumps(_moved))",
    ])


def notebooks(prefixes=()):
    return [p for p in sorted(SOLUTIONS.glob("[0-9][0-9]-*.ipynb")) if not prefixes or p.name[:2] in prefixes]


# -- 1. a kernel per notebook --------------------------------------------------------------------------------

def measure_kernel(path, moves):
    """Run one solved notebook in a fresh kernel, move its dashboards; the kernel's peak memory and CPU."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    row = {"notebook": path.stem}
    with client.setup_kernel():
        pid = client.km.provisioner.pid
        row["start_cpu"] = cpu_seconds(pid)
        row["start_hwm"] = proc_status(pid)["VmHWM"]
        start = time.perf_counter()
        try:
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index)
            probe = nbformat.v4.new_code_cell(move_code(moves))
            nb.cells.append(probe)
            client.execute_cell(probe, len(nb.cells) - 1)
            printed = "".join(o.get("text", "") for o in probe.outputs if o.get("name") == "stdout")
            row["moved"] = json.loads(printed.strip().splitlines()[-1])
            row["status"] = "ok"
        except Exception as exc:  # report, do not stop the other notebooks
            row["moved"], row["status"] = [], short_error(exc)
        row["seconds"] = time.perf_counter() - start
        row["cpu"] = cpu_seconds(pid) - row["start_cpu"]
        status = proc_status(pid)
        row["peak"], row["end_rss"] = status["VmHWM"], status["VmRSS"]
    print(f"{path.stem:<34} kernel peak {row['peak'] / MIB:6.0f} MiB (idle {row['start_hwm'] / MIB:4.0f})  "
          f"CPU {row['start_cpu']:4.1f} s start + {row['cpu']:5.1f} s run  "
          f"{len(row['moved'])} controls moved  {row['status']}", flush=True)
    return row


# -- 2. the Jupyter server of one learner --------------------------------------------------------------------

def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """``jupyter lab --no-browser`` on a free port with a throwaway token, settings and runtime folders."""

    def __init__(self, root):
        import requests  # in the lock (jupyter_server's dependency)

        self.requests = requests
        self.port, self.token = free_port(), secrets.token_hex(16)
        self.tmp = Path(tempfile.mkdtemp(prefix="sizing-server-"))
        env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(self.tmp / "runtime"),
                   JUPYTERLAB_SETTINGS_DIR=str(self.tmp / "settings"),
                   JUPYTERLAB_WORKSPACES_DIR=str(self.tmp / "workspaces"))
        jupyter = Path(sys.executable).parent / "jupyter"
        self.log = open(self.tmp / "server.log", "w", encoding="utf-8")  # closed in stop()
        self.process = subprocess.Popen(
            [str(jupyter), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
             f"--ServerApp.token={self.token}", f"--ServerApp.root_dir={root}", "--allow-root"],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if self.get("/api/status").ok:
                    break
            except requests.ConnectionError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"jupyter lab did not start; see {self.tmp / 'server.log'}")
            time.sleep(0.2)
        self.pid = self.process.pid

    def get(self, path, **kwargs):
        return self.requests.get(self.base + path, params={"token": self.token, **kwargs}, timeout=60)

    def post(self, path, body):
        return self.requests.post(self.base + path, params={"token": self.token}, json=body, timeout=60)

    def open_notebook(self, rel):
        """What JupyterLab does when a notebook is opened: read it, start a session (and its kernel)."""
        self.get(f"/api/contents/{rel}", content=1).raise_for_status()
        reply = self.post("/api/sessions", {"path": rel, "name": Path(rel).name, "type": "notebook",
                                            "kernel": {"name": "python3"}})
        reply.raise_for_status()
        return reply.json()["kernel"]["id"]

    def run(self, kernel_id, codes, timeout=600):
        """Execute code cells one by one on the kernel through the server's websocket, as JupyterLab does."""
        import websocket  # websocket-client, in the lock (jupyter_server's dependency)

        url = f"ws://127.0.0.1:{self.port}/api/kernels/{kernel_id}/channels?token={self.token}"
        ws = websocket.create_connection(url, timeout=timeout)
        session, printed = uuid.uuid4().hex, []
        try:
            for code in codes:
                msg_id = uuid.uuid4().hex
                ws.send(json.dumps({
                    "header": {"msg_id": msg_id, "username": "learner", "session": session,
                               "msg_type": "execute_request", "version": "5.3"},
                    "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                    "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                                "allow_stdin": False, "stop_on_error": True}}))
                replied = idle = False
                while not (replied and idle):
                    msg = json.loads(ws.recv())
                    if msg.get("parent_header", {}).get("msg_id") != msg_id:
                        continue
                    kind = msg["msg_type"]
                    if kind == "execute_reply":
                        replied = True
                        if msg["content"]["status"] != "ok":
                            raise RuntimeError(f"{msg['content'].get('ename')}: {msg['content'].get('evalue')}")
                    elif kind == "status" and msg["content"]["execution_state"] == "idle":
                        idle = True
                    elif kind == "stream" and msg["content"]["name"] == "stdout":
                        printed.append(msg["content"]["text"])
        finally:
            ws.close()
        return "".join(printed)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def measure_server(paths, moves):
    """One learner's session on one server: every notebook opened, run, its dashboards moved; earlier kernels
    kept running. Returns the server's peak memory after each notebook, and the whole session's memory."""
    paths = sorted(paths, key=lambda p: (p.name[:2] in OPTIONAL, p.name))  # the workshop's first, then 06, 07
    server = Server(ROOT)
    rows = []
    try:
        idle = proc_status(server.pid)["VmHWM"]
        server.get("/lab").raise_for_status()  # the page a learner's browser loads
        kernels = {}
        for path in paths:
            rel = path.relative_to(ROOT).as_posix()
            before = set(children(server.pid))
            kernel_id = server.open_notebook(rel)
            nb = nbformat.read(path, as_version=4)
            codes = [cell.source for cell in nb.cells if cell.cell_type == "code"] + [move_code(moves)]
            status, moved = "ok", []
            try:
                moved = json.loads(server.run(kernel_id, codes).strip().splitlines()[-1])
            except Exception as exc:
                status = short_error(exc)
            new = sorted(set(children(server.pid)) - before)
            kernels[path.stem] = new[0] if new else None
            alive = [pid for pid in kernels.values() if pid and Path(f"/proc/{pid}").exists()]
            server_status = proc_status(server.pid)
            total_rss = server_status["VmRSS"] + sum(proc_status(pid)["VmRSS"] for pid in alive)
            rows.append({"notebook": path.stem, "server_peak": server_status["VmHWM"],
                         "kernel_peak": proc_status(kernels[path.stem])["VmHWM"] if kernels[path.stem] else None,
                         "kernels_alive": len(alive), "session_rss": total_rss, "moved": len(moved),
                         "status": status})
            print(f"server after {path.stem:<30} server peak {server_status['VmHWM'] / MIB:5.0f} MiB; "
                  f"{len(alive)} kernels alive, server + kernels resident {total_rss / MIB:6.0f} MiB  {status}",
                  flush=True)
        server_cpu = cpu_seconds(server.pid)
    finally:
        server.stop()
    return {"idle_peak": idle, "rows": rows, "server_cpu": server_cpu}


# -- from measurements to sizes ------------------------------------------------------------------------------

def short_error(exc):
    """One line for a table cell: the exception's type and the first line of its message."""
    name, text = getattr(exc, "ename", None) or type(exc).__name__, getattr(exc, "evalue", None) or str(exc)
    first = (text.strip().splitlines() or [""])[0].replace("|", "/")
    return f"error: {name}: {first[:80]}"


def mib(value):
    return f"{value / MIB:.0f}"


def round_up(value_bytes, step_mib=128):
    """Bytes rounded up to a multiple of ``step_mib`` MiB, in MiB."""
    return int(math.ceil(value_bytes / MIB / step_mib) * step_mib)


HEADROOM = 0.3  # on top of the measured peaks (TLJH's documentation suggests 20-40 %)

#: Assumptions of the sizing table, each stated in the results and in docs/instructor-guide.md.
ROOM_SIZES = (30, 100, 300)
TLJH_MAX_USERS = 100  # The Littlest JupyterHub's documentation: "1-100 users on a single server"
TLJH_OVERHEAD_MIB = 128  # TLJH's resource-estimation page: 128 MB for TLJH and its services
Z2JH_HUB_MIB = 512  # JupyterHub's capacity-planning page: ~500 MB is generous for the hub and the proxy
OS_MIB = 1024  # the operating system and page cache of a machine or node (assumed)
CONCURRENCY = 1.0  # a live workshop: every learner at once (TLJH suggests 40-60 % for a term-long class)
BURST_SECONDS = 30  # the whole room presses Run All at once: done within this many seconds (assumed target)


def plan(kernel_rows, server, headroom=HEADROOM):
    """Per-user memory for the workshop notebooks ("core": 00-05 and 08) and with the optional 06-07.

    Two ways a learner's session ends, from the measured peaks:

    - nothing closed: the server and every kernel of the session alive at its peak (JupyterLab keeps a kernel
      when its tab closes); x (1 + headroom), rounded up to 128 MiB, is the **limit** to set;
    - closing as they go (File > Close and Shut Down Notebook, or kernels culled): the server and the two
      largest kernels (the notebook in use and the previous one); x (1 + headroom), rounded up, is the
      **guarantee** to set.

    Returns {} when any notebook failed (sizes from an incomplete session would be too small).
    """
    if any(row["status"] != "ok" for row in kernel_rows + server["rows"]):
        return {}
    peaks = {row["notebook"][:2]: row["peak"] for row in kernel_rows}
    out = {}
    for name, keep in (("core", lambda n: n not in OPTIONAL), ("core + optional", lambda n: True)):
        chosen = sorted((p for n, p in peaks.items() if keep(n)), reverse=True)
        server_peaks = [r["server_peak"] for r in server["rows"] if keep(r["notebook"][:2])]
        if not chosen or not server_peaks:
            continue
        server_peak = max(server_peaks)
        out[name] = {
            "notebooks": sorted(n for n in peaks if keep(n)),
            "server_peak": server_peak,
            "all_alive": server_peak + sum(chosen),
            "two_alive": server_peak + sum(chosen[:2]),
            "limit_mib": round_up((server_peak + sum(chosen)) * (1 + headroom)),
            "guarantee_mib": round_up((server_peak + sum(chosen[:2])) * (1 + headroom)),
        }
    return out


def table(kernel_rows, sizes):
    """The sizing rows for 30, 100 and 300 learners (workshop notebooks), from the per-user figures.

    memory = concurrent users x per-user memory (limit: nothing closed; guarantee: closing as they go)
             + the hub's overhead (TLJH's 128 MB, or Zero to JupyterHub's hub and proxy) + the OS.
    CPU cores: enough that the whole room's Run All of the heaviest workshop notebook (its measured CPU
    seconds x users) is done within BURST_SECONDS.
    """
    core = sizes.get("core")
    runs = [r for r in kernel_rows if r["status"] == "ok" and r["notebook"][:2] not in OPTIONAL]
    if not core or not runs:
        return []
    heaviest = max(runs, key=lambda r: r["cpu"])
    rows = []
    for learners in ROOM_SIZES:
        users = math.ceil(learners * CONCURRENCY)
        tljh = learners <= TLJH_MAX_USERS
        overhead = TLJH_OVERHEAD_MIB if tljh else Z2JH_HUB_MIB
        rows.append({
            "learners": learners, "users": users,
            "hub": "The Littlest JupyterHub, one machine" if tljh else "Zero to JupyterHub (Kubernetes)",
            "nothing_closed_gib": (users * core["limit_mib"] + overhead + OS_MIB) / 1024,
            "closing_gib": (users * core["guarantee_mib"] + overhead + OS_MIB) / 1024,
            "overhead_mib": overhead,
            "cores": max(2, math.ceil(users * heaviest["cpu"] / BURST_SECONDS)),
            "burst_cpu": users * heaviest["cpu"], "heaviest": heaviest["notebook"], "heaviest_cpu": heaviest["cpu"],
        })
    return rows


GUIDE_BEGIN = "<!-- sizing: generated by benchmarks/sizing.py from benchmarks/results/sizing.json -->"
GUIDE_END = "<!-- sizing: end -->"


def _gib(mib_value):
    return f"{mib_value / 1024:.0f} GiB" if mib_value >= 10 * 1024 else f"{mib_value / 1024:.1f} GiB"


def guide_block(kernel_rows, sizes):
    """The sizing section's tables for docs/instructor-guide.md, every number marked measured, documented
    (taken from a hub's documentation) or assumed. Empty when the figures are incomplete."""
    rows = table(kernel_rows, sizes)
    if not rows:
        return ""
    core, everything = sizes["core"], sizes.get("core + optional")
    peaks = {r["notebook"][:2]: r["peak"] for r in kernel_rows}

    def kernels(group):
        chosen = [peaks[n] for n in group["notebooks"]]
        return f"{len(chosen)} kernels, {mib(min(chosen))}-{mib(max(chosen))} MiB each"

    per_user = [
        ["workshop notebooks " + ", ".join(core["notebooks"]), f"{mib(core['server_peak'])} MiB", kernels(core),
         f"**{core['limit_mib']} MiB**", f"**{core['guarantee_mib']} MiB**"],
    ]
    if everything:
        per_user.append(["with the optional " + ", ".join(n for n in everything["notebooks"] if n in OPTIONAL),
                         f"{mib(everything['server_peak'])} MiB", kernels(everything),
                         f"**{everything['limit_mib']} MiB**", f"**{everything['guarantee_mib']} MiB**"])
    room = [[r["learners"], r["hub"], f"{r['users']}", f"{_gib(r['nothing_closed_gib'] * 1024)}",
             f"{_gib(r['closing_gib'] * 1024)}", f"{r['cores']}"] for r in rows]
    first = rows[0]
    return "\n".join([
        "Per learner (measured: a Jupyter server and one kernel per notebook, Run All and every dashboard moved; "
        f"+{HEADROOM:.0%} headroom, assumed, as TLJH's documentation advises 20-40 %):",
        "",
        _common.markdown_table(
            ["notebooks", "Jupyter server (measured)", "kernels (measured)",
             "limit: server + every kernel", "guarantee: server + 2 kernels"], per_user),
        "",
        f"For the room (concurrent learners: all of them, assumed for a live workshop; memory = concurrent x per "
        f"learner + {TLJH_OVERHEAD_MIB} MiB for TLJH or {Z2JH_HUB_MIB} MiB for the hub and proxy of Zero to "
        f"JupyterHub (documented) + {OS_MIB // 1024} GiB for the system (assumed); CPU cores: the whole room "
        f"pressing Run All on {first['heaviest']} ({first['heaviest_cpu']:.1f} CPU s each, measured) is done "
        f"within {BURST_SECONDS} s, assumed target):",
        "",
        _common.markdown_table(
            ["learners", "hub", "concurrent (assumed)", "memory, nothing closed (limit)",
             "memory, closing as they go (guarantee)", "CPU cores"], room),
        "",
        "Settings for the workshop notebooks (M = MiB in both):",
        "",
        "```text",
        "# The Littlest JupyterHub: a limit only (no guarantee: the machine's memory is what users share)",
        f"sudo tljh-config set limits.memory {core['limit_mib']}M",
        "sudo tljh-config reload",
        "",
        "# Zero to JupyterHub: config.yaml",
        "singleuser:",
        "  memory:",
        f"    limit: {core['limit_mib']}M",
        f"    guarantee: {core['guarantee_mib']}M",
        "```",
    ])


def write(kernel_rows, server, moves, sizes, machine):
    lines = [
        "# Sizing for a JupyterHub: memory and CPU of one learner",
        "",
        "Measured by `benchmarks/sizing.py` (`make bench`). Peak resident memory is the process's VmHWM "
        "(/proc/<pid>/status); CPU seconds are user + system time (/proc/<pid>/stat). 1 MiB = 1,048,576 bytes.",
        "",
        "## Machine",
        *machine,
        "",
        "## 1. A kernel per notebook",
        "",
        f"Each solved notebook run top to bottom in a fresh python3 kernel (nbclient), then every dashboard's "
        f"controls moved {moves} times each (each move redraws and sends the picture). *Idle* is the kernel "
        "just started (numpy and the course not yet imported).",
        "",
        _common.markdown_table(
            ["notebook", "kernel peak (MiB)", "idle kernel (MiB)", "CPU s, start", "CPU s, run + moves",
             "wall s", "controls moved", "status"],
            [[r["notebook"], mib(r["peak"]), mib(r["start_hwm"]), f"{r['start_cpu']:.1f}", f"{r['cpu']:.1f}",
              f"{r['seconds']:.1f}", len(r["moved"]), r["status"]] for r in kernel_rows]),
        "",
    ]
    ok = [r for r in kernel_rows if r["status"] == "ok"]
    if ok:
        core = [r for r in ok if r["notebook"][:2] not in OPTIONAL]
        lines += [f"Largest kernel peak: {mib(max(r['peak'] for r in ok))} MiB "
                  f"({max(ok, key=lambda r: r['peak'])['notebook']}); workshop notebooks "
                  f"({', '.join(r['notebook'][:2] for r in core)}): CPU {sum(r['cpu'] for r in core):.1f} s "
                  f"for all their runs + moves, {sum(r['start_cpu'] for r in core):.1f} s for their kernels' "
                  "start-up.", ""]
    if server:
        lines += [
            "## 2. The Jupyter server of one learner",
            "",
            "`jupyter lab --no-browser` on a free port; the notebooks opened one after the other over its REST API, "
            f"each run over the kernel websocket and its dashboards moved ({moves} moves per control), earlier "
            "kernels left running (JupyterLab does not shut a kernel down when its tab closes). *Session resident* "
            "is the server's and all live kernels' resident memory summed (shared library pages counted once per "
            "process: an over-estimate).",
            "",
            f"Server just started: peak {mib(server['idle_peak'])} MiB. Server CPU for the whole session: "
            f"{server['server_cpu']:.1f} s.",
            "",
            _common.markdown_table(
                ["after notebook", "server peak (MiB)", "its kernel's peak (MiB)", "controls moved", "kernels alive",
                 "session resident (MiB)", "status"],
                [[r["notebook"], mib(r["server_peak"]), mib(r["kernel_peak"]) if r["kernel_peak"] else "-",
                  r["moved"], r["kernels_alive"], mib(r["session_rss"]), r["status"]] for r in server["rows"]]),
            "",
        ]
    if server and not sizes:
        lines += ["No per-user sizes: a notebook failed above (sizes from an incomplete session would be too small).", ""]
    if sizes:
        lines += [
            f"## Per-user memory (the peaks above, +{HEADROOM:.0%} headroom, rounded up to 128 MiB)",
            "",
            "- nothing closed: the server and every kernel of the session at its peak -> the **limit**",
            "- closing as they go: the server and the two largest kernels (the notebook in use and the previous one) "
            "-> the **guarantee**",
            "",
            _common.markdown_table(
                ["notebooks", "server peak (MiB)", "nothing closed (MiB)", "limit (MiB)", "closing as they go (MiB)",
                 "guarantee (MiB)"],
                [[f"{name}: {', '.join(s['notebooks'])}", mib(s["server_peak"]), mib(s["all_alive"]), s["limit_mib"],
                  mib(s["two_alive"]), s["guarantee_mib"]] for name, s in sizes.items()]),
            "",
        ]
    block = guide_block(kernel_rows, sizes)
    if block:
        lines += ["## For docs/instructor-guide.md", "",
                  "The guide's sizing section holds this block as it is (tests/test_sizing.py compares them).",
                  "", GUIDE_BEGIN, block, GUIDE_END, ""]
    _common.RESULTS.mkdir(parents=True, exist_ok=True)
    path = _common.RESULTS / "sizing.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="*", help="notebook numbers, e.g. 01 07 (default: all)")
    parser.add_argument("--moves", type=int, default=4, help="moves per dashboard control (default 4)")
    parser.add_argument("--no-server", action="store_true", help="skip the Jupyter server measurement")
    parser.add_argument("--no-write", action="store_true",
                        help="print the figures only; leave benchmarks/results/ as it is (a smoke run)")
    parser.add_argument("--from-json", action="store_true",
                        help=f"no measurement: write sizing.md again from the figures of the last run ({RAW.name})")
    args = parser.parse_args(argv)
    if args.from_json:
        raw = json.loads(RAW.read_text(encoding="utf-8"))
    else:
        if not Path("/proc/self/status").exists():
            print("sizing: needs Linux (/proc); skipped")
            return
        paths = notebooks(set(args.prefixes))
        kernel_rows = [measure_kernel(path, args.moves) for path in paths]
        server = None if args.no_server else measure_server(paths, args.moves)
        raw = {"moves": args.moves, "machine": _common.machine(), "kernels": kernel_rows, "server": server}
        if args.no_write:
            return
        _common.RESULTS.mkdir(parents=True, exist_ok=True)
        RAW.write_text(json.dumps(raw, indent=1) + "\n", encoding="utf-8")
    sizes = plan(raw["kernels"], raw["server"]) if raw["server"] else {}
    write(raw["kernels"], raw["server"], raw["moves"], sizes, raw["machine"])


if __name__ == "__main__":
    main()
