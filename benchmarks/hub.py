"""Hub sizing (issue 21): a room of learners on a real JupyterHub, each driven over HTTP, measured from /proc.

A JupyterHub 6 on loopback (tests/hub_helpers.py: configurable-http-proxy, SimpleLocalProcessSpawner,
DummyAuthenticator, nbgitpuller; the course served by git's smart HTTP from a bare clone of this checkout) gets
``--learners`` learners at once (a thread each, started ``--stagger`` seconds apart). Each does what a learner's
browser does, with requests and websocket-client instead of a browser (a browser per learner is too heavy here):

1. **minute one**: opens the link ``make hub-link`` prints (tools/hub_link.py), logs in on the hub's
   form, waits on the spawn-pending page's progress stream, lands on nbgitpuller's page and reads its pull stream
   (the clone) to the end, loads JupyterLab's page and what a browser fetches for it (recorded once from a learner
   in headless Chromium before the room, replayed), opens notebook 00 (a session and its kernel) and runs it cell by
   cell over the kernel's websocket;
2. then each workshop notebook (00-05, 08; 06 and 07 with ``--optional``) in turn: opened, Run All (cell by cell),
   then every dashboard's controls moved ``--moves`` times; earlier kernels are left running, as JupyterLab does,
   unless ``--keep-kernels`` says fewer (chosen from the free memory when not given: the run says so).

The code run in each learner's notebook is the *solved* notebook's (solutions/ in the learner's clone), in the
session of the learner version (notebooks/ in the clone, so the kernel's folder is the learner's): the upper bound
of a learner's Run All (the learner versions' exercise cells raise NotImplementedError at once and stop Run All).

Two flows side by side, learners alternating: **new** (today: nothing to install, every notebook's first cell puts
the clone first on sys.path) and **old** (before commit 18bce55: the same plus the old guide's step 3, typed into a
JupyterLab terminal once JupyterLab is open: ``cd`` into the clone, ``python -m pip install --no-deps -e .`` with the
hub environment's python; here into the learner's home with ``--prefix ~/.local --ignore-installed``, since
``--user`` is refused in a venv and the environment the learners share must not change).

The Chromium learner (when playwright and Chromium are here) also runs notebook 00 alone before the room: its minute
one and server peak go beside the HTTP learners' in hub.md, a check of the HTTP driver.

Measured (Linux /proc, benchmarks/sizing.py's readers): per learner, the single-user server's peak resident memory
(VmHWM) and CPU seconds (with the children it waited for: the git clone), each kernel's peak and CPU seconds of its
start, its Run All and its dashboard moves; **minute one** = from the click to notebook 00 done: the server's CPU,
00's kernel's CPU (start included) and, in the old flow, the terminal's (its shell, pip and pip's build), and its wall
seconds; the hub's and the proxy's peak memory and CPU (at the end of the room's minute one and of the run). The
memory floor (MEMORY_FLOOR_MIB available) and ``--timeout`` stop the room early; everything started is stopped.

    python benchmarks/hub.py [--learners 30] [--optional] [--moves 2] [--keep-kernels K] [--no-write]
    python benchmarks/hub.py --from-json     # hub.md and the guide's sizing block again from hub.json

Writes benchmarks/results/hub.json (raw), hub.md, and the sizing block of docs/instructor-guide.md
(benchmarks/sizing.py).
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
import sizing  # noqa: E402

ROOT = _common.ROOT
RAW = _common.RESULTS / "hub.json"
REPORT = _common.RESULTS / "hub.md"
MIB = sizing.MIB
COURSE = "self-attention-hands-on"  # the repository's name: the clone's folder in each home
OPTIONAL = sizing.OPTIONAL
WORKSHOP = tuple(n for n in sizing.LISTED if n not in OPTIONAL)  # the notebooks a workshop runs
FLOWS = ("new", "old")
DONE = "__command_done__"  # echoed in a terminal after a command, with its exit status
SHELLS = ("bash", "sh", "dash", "zsh")  # a terminal's process
#: Rough per-process figures used only to choose how many kernels each learner keeps when memory is short.
SERVER_GUESS_MIB, KERNEL_GUESS_MIB = 160, 150
#: Seconds without a message on a websocket before the learner asks the server whether the kernel is still there.
QUIET_SECONDS = 60
#: Stop the run (every learner) when the machine's available memory falls under this: other work shares it.
MEMORY_FLOOR_MIB = 1536


class Stopped(RuntimeError):
    """The run was stopped (global timeout, memory floor): a learner's thread ends at its next step."""


class KernelDied(RuntimeError):
    """The kernel restarted or died under a request, or its websocket was closed (seen here: a port taken by another
    process between the server choosing it and the kernel binding it, with 30 servers starting kernels at once; every
    restart reuses the ports, and the server closes the websocket of a kernel it removes)."""


# -- a learner's browser, over HTTP -----------------------------------------------------------------------------

class Learner:
    """One learner's browser as far as the server sees it: cookies, redirects, the pages' streams, the kernel
    websocket. Every request is bounded by ``timeout`` seconds; ``stop`` (a threading.Event) ends it early."""

    def __init__(self, hub_url, name, password, stop, timeout=600):
        import requests  # in the lock (jupyter_server's dependency)

        self.http_error = requests.HTTPError
        self.hub_url, self.name, self.password = hub_url.rstrip("/"), name, password
        self.stop, self.timeout = stop, timeout
        self.http = requests.Session()
        self.base = f"{self.hub_url}/user/{name}"
        self.session_id = uuid.uuid4().hex  # the client session of every kernel message (one browser tab)

    # -- pages
    def get(self, url, **kwargs):
        if self.stop.is_set():
            raise Stopped("stopped")
        return self.http.get(urljoin(self.hub_url + "/", url), allow_redirects=False, timeout=self.timeout, **kwargs)

    def follow(self, url, limit=20):
        """GET ``url`` and follow its redirects (at most ``limit``), as a browser does; the last response."""
        for _ in range(limit):
            reply = self.get(url)
            if not reply.is_redirect:
                reply.raise_for_status()
                return reply
            url = urljoin(reply.url, reply.headers["location"])
        raise RuntimeError(f"more than {limit} redirects from {url}")

    def click(self, link):
        """Open the hub link: the login form (DummyAuthenticator), the spawn, nbgitpuller's page. Returns that
        page's query (repo, branch, targetpath, urlpath)."""
        page = self.follow(link)
        if urlsplit(page.url).path.endswith("/hub/login"):
            page = self.log_in(page)
        if "/hub/spawn-pending/" in page.url:
            self.wait_for_spawn()
            page = self.follow(parse_qs(urlsplit(page.url).query)["next"][0])
        if "/git-pull" not in urlsplit(page.url).path:
            raise RuntimeError(f"expected nbgitpuller's page, got {page.url}")
        return {key: values[0] for key, values in parse_qs(urlsplit(page.url).query).items()}

    def log_in(self, form):
        """Post the login form with the hub's _xsrf cookie; follow to where the hub sends the learner."""
        reply = self.http.post(form.url, data={"username": self.name, "password": self.password,
                                               "_xsrf": self.http.cookies.get("_xsrf", path="/hub/")},
                               allow_redirects=False, timeout=self.timeout)
        if not reply.is_redirect:
            raise RuntimeError(f"login refused for {self.name}: HTTP {reply.status_code}")
        return self.follow(urljoin(reply.url, reply.headers["location"]))

    def events(self, url, params=None):
        """The data of a server-sent event stream (the spawn progress, nbgitpuller's pull), decoded from JSON."""
        headers = {"X-XSRFToken": self.http.cookies.get("_xsrf", path="/hub/") or ""}
        with self.http.get(urljoin(self.hub_url + "/", url), params=params, headers=headers, stream=True,
                           timeout=self.timeout) as stream:
            stream.raise_for_status()
            for line in stream.iter_lines(decode_unicode=True):
                if self.stop.is_set():
                    raise Stopped("stopped")
                if line and line.startswith("data:"):
                    yield json.loads(line[len("data:"):])

    def wait_for_spawn(self):
        """What the spawn-pending page does: read the progress stream until the server is ready."""
        for event in self.events(f"/hub/api/users/{self.name}/server/progress"):
            if event.get("failed"):
                raise RuntimeError(f"spawn failed: {event.get('message')}")
            if event.get("ready"):
                return
        raise RuntimeError("the spawn progress stream ended before the server was ready")

    def pull(self, query):
        """What nbgitpuller's page does: its event-stream API, read until it reports the end; the output lines."""
        params = {key: query[key] for key in ("repo", "branch", "targetpath") if key in query}
        lines = []
        for event in self.events(f"{self.base}/git-pull/api", params=params):
            if event.get("output"):
                lines.append(event["output"].rstrip())
            if event.get("phase") == "error":
                raise RuntimeError(f"nbgitpuller: {event.get('message')}")
            if event.get("phase") == "finished":
                return lines
        raise RuntimeError("nbgitpuller's stream ended without 'finished'")

    def open_lab(self, urlpath, replay=None):
        """JupyterLab's page and what a browser fetches for it: ``replay`` (paths under the user's prefix, recorded
        from a real browser by :func:`browser_probe`), else the page's own scripts and the REST calls the
        application makes on start (a browser also fetches about a hundred lazily loaded chunks). How many GETs."""
        page = self.follow(f"{self.base}/{urlpath}")
        if replay:
            for path in replay:
                self.follow(f"{self.base}/{path}")
            return len(replay)
        scripts = re.findall(r'<script[^>]+src="([^"]+)"', page.text)
        folder = urlpath.split("lab/tree/", 1)[-1].rsplit("/", 1)[0]
        calls = ["api/me", "lab/api/settings", "lab/api/translations", "api/kernelspecs", "api/sessions", "api/kernels",
                 "api/terminals", "lab/api/workspaces", f"api/contents/{folder}?content=1"]
        for url in scripts + [f"{self.base}/{path}" for path in calls]:
            self.follow(url)
        return len(scripts) + len(calls)

    # -- the single-user server's REST API and kernels
    def api(self, method, path, body=None):
        """A REST call to the learner's server with its cookie and the _xsrf header JupyterLab sends."""
        if self.stop.is_set():
            raise Stopped("stopped")
        reply = self.http.request(method, f"{self.base}/{path}", json=body, timeout=self.timeout,
                                  headers={"X-XSRFToken": self.http.cookies.get("_xsrf", path=f"/user/{self.name}/")
                                           or ""})
        reply.raise_for_status()
        return reply.json() if reply.content else None

    def open_notebook(self, rel):
        """What JupyterLab does when a notebook is opened: read it, start a session (and its kernel). The session."""
        self.api("GET", f"api/contents/{rel}?content=1")
        return self.api("POST", "api/sessions", {"path": rel, "name": Path(rel).name, "type": "notebook",
                                                 "kernel": {"name": "python3"}})

    def connect(self, kernel_id):
        """The kernel's websocket, as JupyterLab opens it, once the kernel answers (kernel_info, as JupyterLab asks
        first): the kernel has started when this returns."""
        import websocket

        try:
            ws = self._websocket(f"api/kernels/{kernel_id}/channels")
        except websocket.WebSocketBadStatusException as error:
            raise KernelDied(f"the kernel's websocket was refused: {error}") from error
        ws.kernel_id = kernel_id
        try:
            self._request(ws, "kernel_info_request", {}, kernel_id)
        except BaseException:
            ws.close()
            raise
        return ws

    def run(self, ws, codes):
        """Execute code cells one by one over the kernel's websocket, as JupyterLab's Run All does (stopping at the
        first error: RuntimeError naming it). Returns what the cells printed."""
        return "".join(self._request(ws, "execute_request", {
            "code": code, "silent": False, "store_history": True, "user_expressions": {}, "allow_stdin": False,
            "stop_on_error": True}, getattr(ws, "kernel_id", None)) for code in codes)

    def _request(self, ws, kind, content, kernel_id=None):
        """Send one shell request; wait for its reply and for the kernel to be idle again. What it printed.
        KernelDied when the kernel restarts or dies meanwhile (JupyterLab would say so; the request is lost)."""
        import websocket

        msg_id = uuid.uuid4().hex
        ws.send(json.dumps({
            "header": {"msg_id": msg_id, "username": self.name, "session": self.session_id, "msg_type": kind,
                       "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [], "content": content}))
        replied = idle = False
        printed = []
        deadline = time.monotonic() + self.timeout
        while not (replied and idle):
            if self.stop.is_set():
                raise Stopped("stopped")
            try:
                msg = json.loads(ws.recv())
            except websocket.WebSocketTimeoutException:
                self._check_alive(kernel_id, deadline)
                continue
            except websocket.WebSocketConnectionClosedException as error:
                raise KernelDied(f"the kernel's websocket closed during {kind} ({self.kernel_state(kernel_id)})") \
                    from error
            state = msg["content"].get("execution_state") if msg["msg_type"] == "status" else None
            if state in ("restarting", "dead", "autorestarting"):
                raise KernelDied(f"the kernel went {state} during {kind}")
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == kind.replace("_request", "_reply"):
                replied = True
                if msg["content"].get("status", "ok") != "ok":
                    raise RuntimeError(f"{msg['content'].get('ename')}: {msg['content'].get('evalue')}")
            elif state == "idle":
                idle = True
            elif msg["msg_type"] == "stream" and msg["content"]["name"] == "stdout":
                printed.append(msg["content"]["text"])
        return "".join(printed)

    def kernel_state(self, kernel_id):
        """The kernel's execution state as its server reports it ("gone" when it has no such kernel)."""
        if kernel_id is None:
            return "unknown"
        reply = self.http.get(f"{self.base}/api/kernels/{kernel_id}", timeout=60)
        if reply.status_code == 404:
            return "gone"
        return reply.json().get("execution_state", "unknown") if reply.ok else f"HTTP {reply.status_code}"

    def _check_alive(self, kernel_id, deadline):
        """A quiet minute on the websocket: KernelDied when the server no longer has the kernel, RuntimeError after
        ``deadline``; else keep waiting (a long cell on a crowded machine)."""
        state = self.kernel_state(kernel_id)
        if state in ("gone", "dead"):
            raise KernelDied(f"the server's kernel is {state}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"no reply from the kernel in {self.timeout:.0f} s")

    def open_terminal(self):
        """File > New > Terminal: a terminal (a login shell under the server) and its websocket."""
        return self._websocket(f"terminals/websocket/{self.api('POST', 'api/terminals')['name']}")

    def _websocket(self, path):
        """A websocket to the learner's server (``path`` under its prefix) with the server's cookies, as a browser."""
        import websocket  # websocket-client, in the lock (jupyter_server's dependency)

        cookies = "; ".join(f"{c.name}={c.value}" for c in self.http.cookies if not c.path.startswith("/hub"))
        return websocket.create_connection(self.base.replace("http", "ws", 1) + f"/{path}",
                                           header=[f"Cookie: {cookies}"], timeout=QUIET_SECONDS)

    def type_command(self, ws, command):
        """Type ``command`` into a terminal and wait until it has finished; its exit status (from a marker echoed
        after it) and what the terminal showed."""
        import websocket

        ws.send(json.dumps(["stdin", f"{command}; echo {DONE}$?\r"]))
        shown, deadline = "", time.monotonic() + self.timeout
        while True:
            if self.stop.is_set():
                raise Stopped("stopped")
            try:
                message = json.loads(ws.recv())
            except websocket.WebSocketTimeoutException:  # a quiet minute (pip building): wait on, bounded
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the terminal command did not finish in {self.timeout:.0f} s") from None
                continue
            if message[0] == "stdout":
                shown += message[1]
                found = re.search(DONE + r"(\d+)", shown)  # the echoed command shows the marker with $?, not digits
                if found:
                    return int(found.group(1)), shown
            elif message[0] == "disconnect":
                raise RuntimeError(f"the terminal closed: {shown[-300:]}")

    def shut_down(self, session_id, missing_ok=False):
        """File > Close and Shut Down Notebook: the session and its kernel go (``missing_ok``: it may be gone)."""
        try:
            self.api("DELETE", f"api/sessions/{session_id}")
        except self.http_error as error:
            if not (missing_ok and error.response is not None and error.response.status_code == 404):
                raise


RUN_ALL_DONE = """() => {
    const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const kernel = panel && panel.sessionContext && panel.sessionContext.session && panel.sessionContext.session.kernel;
    if (!kernel || kernel.status !== 'idle') return false;
    const cells = panel.content.model.cells;
    for (let i = 0; i < cells.length; i++) {
        const cell = cells.get(i);
        if (cell.type === 'code' && cell.executionCount == null) return false;
    }
    return true;
}"""


def browser_probe(hub, link, name="browser-probe", timeout=300):
    """One learner in headless Chromium (playwright), alone on the hub before the room: the link, the login, then
    *Run All* on notebook 00 (the learner version) from JupyterLab's command. Records what JupyterLab fetched until
    00's kernel was first idle (the GETs under the learner's prefix after the page itself: the HTTP learners replay
    them), and this learner's minute one measured the same way as theirs, for comparison. The probe's server is
    stopped afterwards. None when playwright or Chromium is missing."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        return None
    prefix, seen = f"{hub.url}/user/{name}/", []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        try:
            page = browser.new_page()
            page.on("request", lambda request: seen.append((request.method, request.url)))
            start = time.monotonic()
            page.goto(link, timeout=timeout * 1000)
            page.fill("input[name=username]", name)
            page.fill("input[name=password]", hub_password())
            page.click("[type=submit]")
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=timeout * 1000)
            page.wait_for_timeout(3000)  # the requests that follow the first render
            paths = lab_paths(seen, prefix)
            page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_function(RUN_ALL_DONE, timeout=timeout * 1000, polling=200)
            wall = time.monotonic() - start
            server, kernel = find_process(hub, "server", name), find_process(hub, "kernel", name)
            server_cpu, kernel_cpu = sizing.cpu_seconds(server), sizing.cpu_seconds(kernel)
            probe = {"paths": paths, "server_peak": sizing.proc_status(server)["VmHWM"], "server_cpu": server_cpu,
                     "kernel_cpu": kernel_cpu, "minute_one_cpu": server_cpu + kernel_cpu, "wall": wall}
        finally:
            browser.close()
    hub.api("DELETE", f"users/{name}/server")
    return probe


def lab_paths(requests, prefix):
    """The GETs of ``requests`` [(method, url)] under ``prefix`` that follow the JupyterLab page, relative to
    ``prefix``; nbgitpuller's, the login's and the page's own requests left out."""
    paths, after_page = [], False
    for method, url in requests:
        if not url.startswith(prefix) or method != "GET":
            continue
        path = url[len(prefix):]
        if path.startswith("lab/tree/"):
            after_page = True
            continue
        if after_page:
            paths.append(path)
    return paths


# -- reading the hub's processes --------------------------------------------------------------------------------

def find_process(hub, role, user=None, needle=None, shell=False, timeout=60):
    """The pid of a process of the hub's tree with this role (and user, and ``needle`` in its command line; with
    ``shell``, a shell: a terminal's)."""
    deadline = time.monotonic() + timeout
    while True:
        for process in hub.processes():
            if process.role == role and (user is None or process.user == user) and \
                    (needle is None or any(needle in part for part in process.cmdline)) and \
                    (not shell or (process.cmdline and Path(process.cmdline[0]).name.lstrip("-") in SHELLS)):
                return process.pid
        if time.monotonic() > deadline:
            raise RuntimeError(f"no {role} process{' of ' + user if user else ''} found")
        time.sleep(0.2)


def peak_and_cpu(pid):
    """(VmHWM in bytes, CPU seconds with waited-for children) of a live process."""
    return sizing.proc_status(pid)["VmHWM"], sizing.cpu_seconds(pid)


def solved_codes(clone, stem):
    """The code cells of the solved notebook ``stem`` in the learner's clone (solutions/), in order."""
    import nbformat

    nb = nbformat.read(clone / "solutions" / f"{stem}.ipynb", as_version=4)
    return [cell.source for cell in nb.cells if cell.cell_type == "code"]


def old_flow_install(learner, hub, user, clone):
    """The old guide's step 3, as a learner did it: a terminal in JupyterLab, then ``cd`` into the clone and
    ``python -m pip install --no-deps -e .`` with the hub environment's python (its absolute path: a login shell may
    reset PATH), installed into the learner's home (``--prefix ~/.local``: ``--user`` is refused in a venv) with
    ``--ignore-installed``, so that nothing of the environment the learners share changes. The terminal is left open,
    as learners did. Returns (CPU seconds of the terminal's shell and everything it waited for: pip and its build,
    wall seconds)."""
    start = time.monotonic()
    ws = learner.open_terminal()
    try:
        shell = find_process(hub, "other", user, shell=True)
        status, shown = learner.type_command(ws, f"cd {clone} && {hub.env.python} -m pip install --no-deps "
                                                 "--ignore-installed -e . --prefix ~/.local --no-warn-script-location")
        if status != 0:
            raise RuntimeError(f"pip install -e . failed ({status}): {shown.strip()[-300:]}")
        return sizing.cpu_seconds(shell), time.monotonic() - start
    finally:
        ws.close()


# -- one learner's session ----------------------------------------------------------------------------------------

def learner_session(hub, link, name, flow, stems, moves, keep, stop, marks, replay=None):
    """Everything one learner does and what it costs (a dict for hub.json). ``marks`` (shared) gets the time the
    learner's notebook 00 was done (the room's minute one ends when the last learner's is)."""
    row = {"name": name, "flow": flow, "status": "ok", "kernels": [], "phases": {}}
    learner = Learner(hub.url, name, hub_password(), stop)
    start = time.monotonic()
    try:
        query = learner.click(link)
        row["phases"]["spawned"] = time.monotonic() - start
        learner.pull(query)
        row["phases"]["pulled"] = time.monotonic() - start
        server_pid = find_process(hub, "server", name)
        clone = hub.home(name) / query["targetpath"]
        row["lab_gets"] = learner.open_lab(query["urlpath"], replay)
        row["phases"]["lab"] = time.monotonic() - start
        if flow == "old":
            row["pip_cpu"], row["pip_wall"] = old_flow_install(learner, hub, name, clone)
            row["phases"]["installed"] = time.monotonic() - start
        open_sessions = []
        for stem in stems:
            row["kernels"].append(run_notebook(learner, hub, name, clone, stem, moves, open_sessions, keep))
            if stem.startswith("00"):
                kernel = row["kernels"][-1]
                row["minute_one"] = minute_one(start, server_pid, kernel, row.get("pip_cpu", 0.0))
                marks[name] = time.monotonic()
            if row["kernels"][-1]["status"] != "ok":
                row["status"] = row["kernels"][-1]["status"]
        row["server_peak"] = sizing.proc_status(server_pid)["VmHWM"]
        # its own CPU, and its children's until minute one (the clone): later, kernels shut down join its children
        row["server_cpu"] = sizing.cpu_parts(server_pid)[0] + row["minute_one"]["server_children_cpu"]
    except Exception as exc:  # one learner's failure is reported, the room goes on
        row["status"] = sizing.short_error(exc)
        row["log_tail"] = log_tail(hub, name)
    row["wall"] = time.monotonic() - start
    print(f"{name} ({flow}): {row['status']}, {row['wall']:.0f} s", flush=True)
    return row


def minute_one(start, server_pid, kernel, pip_cpu):
    """Minute one of a learner, read when notebook 00 is done (before any kernel is shut down, so the server's
    waited-for children are the clone's git): CPU of the server (with the clone),
    of 00's kernel (start and run) and of the old flow's pip install; wall seconds since the click."""
    own, children = sizing.cpu_parts(server_pid)
    kernel_cpu = kernel["start_cpu"] + kernel["run_cpu"]
    return {"cpu": own + children + kernel_cpu + pip_cpu, "server_cpu": own + children, "server_children_cpu": children,
            "kernel_cpu": kernel_cpu, "pip_cpu": pip_cpu, "wall": time.monotonic() - start,
            "server_peak": sizing.proc_status(server_pid)["VmHWM"]}


def run_notebook(learner, hub, name, clone, stem, moves, open_sessions, keep):
    """Open a notebook of the clone, Run All (the solved code), move its dashboards; the kernel's figures. First shuts
    the oldest sessions down so that at most ``keep`` are open with this one (None: never, as JupyterLab). A kernel
    that dies is replaced once, as a learner would (the session shut down, the notebook opened again: ``restarts``)."""
    while keep is not None and len(open_sessions) >= keep:
        learner.shut_down(open_sessions.pop(0))
    rel = f"{clone.name}/notebooks/{stem}.ipynb"
    reasons = []
    for attempt in range(2):
        session = learner.open_notebook(rel)
        try:
            row = run_in_kernel(learner, hub, name, clone, stem, moves, session["kernel"]["id"])
        except (KernelDied, OSError) as exc:  # OSError: its /proc entry went
            learner.shut_down(session["id"], missing_ok=True)
            reasons.append(f"{sizing.short_error(exc)} | server log: {log_tail(hub, name)}")
            if attempt:
                return {"notebook": stem, "status": sizing.short_error(exc), "restarts": attempt, "moved": 0,
                        "reasons": reasons}
            continue
        row["restarts"], row["reasons"] = attempt, reasons
        open_sessions.append(session["id"])
        return row


def log_tail(hub, name, lines=6):
    """The last warnings and errors of a learner's server log, on one line (what a failure looked like there)."""
    if hub is None:
        return "-"
    try:
        text = hub.server_log(name).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "-"
    picked = [line.strip()[:160] for line in text if line.startswith(("[W", "[E")) or "Error" in line]
    return " / ".join(picked[-lines:]) or "-"


def run_in_kernel(learner, hub, name, clone, stem, moves, kernel_id):
    """Run All of the solved ``stem`` and the dashboard moves in the kernel ``kernel_id``; its CPU and peak."""
    pid = find_process(hub, "kernel", name, needle=kernel_id)
    row = {"notebook": stem, "status": "ok", "moved": 0}
    ws = learner.connect(kernel_id)
    try:
        row["start_cpu"] = sizing.cpu_seconds(pid)
        started = time.monotonic()
        try:
            learner.run(ws, solved_codes(clone, stem))
            row["run_wall"], row["run_cpu"] = time.monotonic() - started, sizing.cpu_seconds(pid) - row["start_cpu"]
            printed = learner.run(ws, [sizing.move_code(moves)])
            row["moved"] = len(json.loads(printed.strip().splitlines()[-1]))
            row["moves_cpu"] = sizing.cpu_seconds(pid) - row["start_cpu"] - row["run_cpu"]
        except (Stopped, KernelDied):
            raise
        except Exception as exc:  # a cell's error: recorded, as Run All stops there
            row["status"] = sizing.short_error(exc)
            row.setdefault("run_wall", time.monotonic() - started)
            row.setdefault("run_cpu", sizing.cpu_seconds(pid) - row["start_cpu"])
        row["peak"] = sizing.proc_status(pid)["VmHWM"]
    finally:
        ws.close()
    return row


def hub_password():
    import hub_helpers  # tests/hub_helpers.py, on sys.path by start_room

    return hub_helpers.PASSWORD


# -- the room -------------------------------------------------------------------------------------------------------

def memory_available():
    """MemAvailable of /proc/meminfo, in bytes."""
    with open("/proc/meminfo", encoding="utf-8") as info:
        for line in info:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no MemAvailable in /proc/meminfo")


def choose_keep(learners, kernels, available_bytes, share=0.7):
    """How many kernels each learner may keep running so that the room fits in ``share`` of the available memory
    (rough per-process guesses); None when all of them fit (nothing is shut down, as JupyterLab)."""
    budget = share * available_bytes / MIB / learners - SERVER_GUESS_MIB
    fits = int(budget // KERNEL_GUESS_MIB)
    if fits >= kernels:
        return None
    if fits < 1:
        raise RuntimeError(f"{learners} learners do not fit in {available_bytes / 2**30:.1f} GiB available, even with "
                           "one kernel each: give fewer --learners")
    return fits


def start_room(scratch):
    """The git server serving this checkout, the hub's environment and the hub; (git, hub, link)."""
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT))
    import hub_helpers
    from hub_link import hub_link

    reason = hub_helpers.missing()
    if reason:
        raise RuntimeError(f"no hub here: {reason}")
    git = hub_helpers.GitServer(scratch / "git").start()
    try:
        hub_helpers.serve_course(git.repository(COURSE), scratch / "serve")
        env = hub_helpers.hub_environment(scratch / "hub-env")
        hub = hub_helpers.Hub(scratch / "hub", env, start_timeout=1200, http_timeout=1200, expose_app=True).start()
    except BaseException:
        git.stop()
        raise
    return git, hub, hub_link(hub.url, git.url(COURSE))


def hub_figures(hub):
    """{"hub": {peak, cpu}, "proxy": {peak, cpu}} now."""
    out = {}
    for process in hub.processes():
        if process.role in ("hub", "proxy") and process.role not in out:
            peak, cpu = peak_and_cpu(process.pid)
            out[process.role] = {"peak": peak, "cpu": cpu}
    return out


def run_room(learners, stems, moves, keep, stagger, timeout):
    """A room of ``learners`` on a fresh hub, alternating new/old flows; the raw figures."""
    scratch = Path(tempfile.mkdtemp(prefix="bench-hub-"))
    stop, marks, rows = threading.Event(), {}, {}
    lowest = [memory_available()]
    begin = time.monotonic()
    git, hub, link = start_room(scratch)
    try:
        probe = browser_probe(hub, link)
        replay = probe["paths"] if probe else None
        print(f"JupyterLab's requests: {f'{len(replay)} recorded from Chromium' if replay else 'not recorded'}",
              flush=True)
        at_start = hub_figures(hub)
        names = [f"learner-{i + 1:02d}" for i in range(learners)]

        def one(index, name):
            rows[name] = learner_session(hub, link, name, FLOWS[index % len(FLOWS)], stems, moves, keep, stop, marks,
                                         replay)

        threads = []
        room_start = time.monotonic()
        for index, name in enumerate(names):
            threads.append(threading.Thread(target=one, args=(index, name), daemon=True, name=name))
            threads[-1].start()
            time.sleep(stagger)
        minute_one_end = watch(threads, names, marks, hub, stop, lowest, room_start + timeout)
        at_end = hub_figures(hub)
        room_seconds = time.monotonic() - room_start
    finally:
        stop.set()
        forced = hub.stop()
        git.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    return {"learners": [rows.get(n, {"name": n, "status": "error: did not finish"}) for n in names],
            "hub_at_start": at_start, "hub_at_minute_one": minute_one_end, "hub_at_end": at_end,
            "room_seconds": room_seconds, "total_seconds": time.monotonic() - begin, "lab_replay": replay,
            "browser_probe": probe,
            "lowest_available": lowest[0], "forced_stops": forced}


def watch(threads, names, marks, hub, stop, lowest, deadline):
    """Wait for the learners (until ``deadline``), stopping them when memory runs short; the hub's and proxy's
    figures when the last learner's notebook 00 was done (the end of the room's minute one)."""
    at_minute_one = None
    while any(t.is_alive() for t in threads):
        lowest[0] = min(lowest[0], memory_available())
        if lowest[0] < MEMORY_FLOOR_MIB * MIB:
            print(f"available memory under {MEMORY_FLOOR_MIB} MiB: stopping the room", flush=True)
            stop.set()
        if time.monotonic() > deadline:
            print("global timeout: stopping the room", flush=True)
            stop.set()
        if at_minute_one is None and all(n in marks or not t.is_alive() for n, t in zip(names, threads)):
            at_minute_one = hub_figures(hub)
        if stop.is_set():
            for thread in threads:
                thread.join(timeout=30)
            break
        time.sleep(0.5)
    return at_minute_one or hub_figures(hub)


# -- from the raw figures to the summary ---------------------------------------------------------------------------

def spread(values):
    """{"median", "min", "max", "mean", "n"} of a list of numbers (None when empty)."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "mean": statistics.fmean(values), "n": len(values)}


def summarise(raw):
    """The figures sizing needs, from the learners that finished ok (a learner with an error is left out of
    every figure and counted). Peaks: the largest over learners; CPU: spreads (the room's total is mean x N)."""
    ok = [row for row in raw["learners"] if row["status"] == "ok"]
    stems = [k["notebook"] for k in ok[0]["kernels"]] if ok else []
    kernels = {stem: [next(k for k in row["kernels"] if k["notebook"] == stem) for row in ok] for stem in stems}
    m1 = raw["hub_at_minute_one"]
    start = raw["hub_at_start"]
    hub_proxy_m1_cpu = sum(m1[role]["cpu"] - start[role]["cpu"] for role in ("hub", "proxy"))
    return {
        "learners": len(raw["learners"]), "ok": len(ok),
        "minute_one": {flow: {"cpu": spread([r["minute_one"]["cpu"] for r in ok if r["flow"] == flow]),
                              "wall": spread([r["minute_one"]["wall"] for r in ok if r["flow"] == flow]),
                              "server_cpu": spread([r["minute_one"]["server_cpu"] for r in ok if r["flow"] == flow]),
                              "kernel_cpu": spread([r["minute_one"]["kernel_cpu"] for r in ok if r["flow"] == flow]),
                              "pip_cpu": spread([r["minute_one"]["pip_cpu"] for r in ok if r["flow"] == flow])}
                       for flow in FLOWS},
        "server_peak": spread([r["server_peak"] for r in ok]),
        "server_cpu": spread([r["server_cpu"] for r in ok]),
        "kernels": {stem[:2]: {"name": stem, "peak": spread([k["peak"] for k in rows]),
                               "start_cpu": spread([k["start_cpu"] for k in rows]),
                               "run_cpu": spread([k["run_cpu"] for k in rows]),
                               "run_wall": spread([k["run_wall"] for k in rows]),
                               "moves_cpu": spread([k.get("moves_cpu") for k in rows])}
                    for stem, rows in kernels.items()},
        "hub_peak": raw["hub_at_end"]["hub"]["peak"], "proxy_peak": raw["hub_at_end"]["proxy"]["peak"],
        "hub_proxy_minute_one_cpu": hub_proxy_m1_cpu / max(1, len(raw["learners"])),
    }


def sizing_figures(summary, machine):
    """What benchmarks/sizing.py sizes from (see sizing.plan and sizing.table): the largest peaks over the learners,
    the mean CPU per learner (the room's total is the mean x its size), the machine in one line."""
    return {
        "learners": summary["learners"],
        "machine": machine_summary(machine),
        "server_peak": summary["server_peak"]["max"],
        "kernel_peaks": {nb: k["peak"]["max"] for nb, k in summary["kernels"].items()},
        "notebook_cpu": {nb: k["start_cpu"]["mean"] + k["run_cpu"]["mean"] for nb, k in summary["kernels"].items()},
        "notebook_names": {nb: k["name"] for nb, k in summary["kernels"].items()},
        "minute_one_cpu": {flow: (m["cpu"] or {}).get("mean") for flow, m in summary["minute_one"].items()},
        "minute_one_wall": {key: (summary["minute_one"]["new"]["wall"] or {}).get(key) for key in ("median", "max")},
        "hub_proxy_minute_one_cpu": summary["hub_proxy_minute_one_cpu"],
        "hub_proxy_peak": summary["hub_peak"] + summary["proxy_peak"],
    }


def machine_summary(lines):
    """"<processor>, <n> logical cores, numpy SIMD <levels>" from _common.machine()'s lines."""
    text = "\n".join(lines)
    processor = re.search(r"processor: (.*)", text)
    cores = re.search(r"(\d+) logical cores", text)
    simd = re.search(r"SIMD found: ([^;\n]*)", text)
    return ", ".join([processor.group(1).strip() if processor else "unknown processor",
                      f"{cores.group(1)} logical cores" if cores else "cores unknown",
                      f"numpy SIMD {simd.group(1).strip()}" if simd else "numpy SIMD not reported"])


# -- hub.md ----------------------------------------------------------------------------------------------------------

def _s(value, digits=1):
    return "-" if value is None else f"{value:.{digits}f}"


def _range(stats, scale=1.0, digits=1):
    """"median (min-max)" of a spread, scaled (MiB: scale=MIB)."""
    if not stats:
        return "-"
    return (f"{stats['median'] / scale:.{digits}f} ({stats['min'] / scale:.{digits}f}-"
            f"{stats['max'] / scale:.{digits}f})")


def report(raw, summary, sizes):
    """hub.md: how it was measured, the machine, minute one side by side, per notebook, per learner, hub/proxy."""
    settings = raw["settings"]
    lines = [
        "# Sizing from a real JupyterHub: a room of learners, measured",
        "",
        f"Measured by `benchmarks/hub.py` (`make bench`, part `hub`): {summary['learners']} learners at once on "
        f"JupyterHub {settings['jupyterhub']} (configurable-http-proxy, SimpleLocalProcessSpawner, nbgitpuller "
        f"{settings['nbgitpuller']}, JupyterLab {settings['jupyterlab']}) on loopback, each driven over HTTP "
        f"(requests + websocket-client: the pages, streams and REST/websocket calls a browser makes; {lab_sentence(raw)}), "
        "started "
        f"{settings['stagger']} s apart, flows alternating (new, old, new, ...). Every notebook runs the *solved* "
        "notebook's code cell by cell (the upper bound of a Run All; a learner version stops at its first "
        f"exercise), then each dashboard control is moved {settings['moves']} times. "
        + keep_sentence(settings) +
        " Peak memory is the process's VmHWM (/proc/<pid>/status), CPU is user + system seconds with the children "
        "a process waited for (/proc/<pid>/stat). 1 MiB = 1,048,576 bytes.",
        "",
        f"Whole run: {raw['total_seconds']:.0f} s ({raw['room_seconds']:.0f} s from the first click to the last "
        f"learner's end); {summary['ok']} of {summary['learners']} learners finished without an error. Lowest "
        f"available memory during the run: {raw['lowest_available'] / 2**30:.1f} GiB. {restarts_sentence(raw)}",
        "",
        "## Machine",
        *raw["machine"],
        "",
        "## Minute one: from the click to notebook 00 done, per learner",
        "",
        "New: today's flow (nothing installed). Old: the same plus the old guide's step 3, typed into a JupyterLab "
        "terminal once JupyterLab is open: `cd` into the clone and `python -m pip install --no-deps -e .` (here with "
        "`--prefix ~/.local --ignore-installed`: `--user` is refused in a venv, and the environment the learners share "
        "must not change). CPU = the single-user server's (the clone included) + notebook 00's kernel (start and run) "
        "+ the terminal's (its shell and pip); median (min-max) over the learners of each flow.",
        "",
        _common.markdown_table(
            ["flow", "learners", "CPU s", "server CPU s", "kernel 00 CPU s", "terminal + pip CPU s", "wall s"],
            [[flow, (m["cpu"] or {}).get("n", 0), _range(m["cpu"]), _range(m["server_cpu"]), _range(m["kernel_cpu"]),
              _range(m["pip_cpu"]) if flow == "old" else "-", _range(m["wall"], digits=0)]
             for flow, m in summary["minute_one"].items()]),
        "",
        goal_sentence(summary),
        "",
        *probe_lines(raw),
        f"The hub and the proxy used {summary['hub_proxy_minute_one_cpu']:.1f} CPU s per learner from the hub's "
        "start to the end of the room's minute one (the last learner's notebook 00 done): login, spawn, OAuth, "
        "proxying.",
        "",
        "## Per notebook (Run All of the solved code, then the dashboards moved)",
        "",
        _common.markdown_table(
            ["notebook", "kernel peak MiB, median (min-max)", "CPU s, kernel start", "CPU s, Run All", "wall s, Run All",
             "CPU s, moves"],
            [[k["name"], _range(k["peak"], MIB, 0), _range(k["start_cpu"]), _range(k["run_cpu"]),
              _range(k["run_wall"], digits=0), _range(k["moves_cpu"])] for k in summary["kernels"].values()]),
        "",
        "## The single-user server, the hub and the proxy",
        "",
        f"- single-user server (`jupyterhub-singleuser`: JupyterLab, nbgitpuller, terminals): peak "
        f"{_range(summary['server_peak'], MIB, 0)} MiB, median (min-max) over learners; CPU for the whole session "
        f"{_range(summary['server_cpu'])} s",
        f"- hub (`jupyterhub`): peak {summary['hub_peak'] / MIB:.0f} MiB; proxy (configurable-http-proxy, node): peak "
        f"{summary['proxy_peak'] / MIB:.0f} MiB; CPU for the whole run: hub {raw['hub_at_end']['hub']['cpu']:.1f} s, "
        f"proxy {raw['hub_at_end']['proxy']['cpu']:.1f} s",
        "",
        "## Every learner",
        "",
        _common.markdown_table(
            ["learner", "flow", "minute one CPU s", "minute one wall s", "server peak MiB", "server CPU s",
             "kernel peaks MiB", "Run All CPU s", "status"],
            [learner_row(row) for row in raw["learners"]]),
        "",
    ]
    if sizes:
        lines += sizing_section(sizes)
    return "\n".join(lines)


def restarts_sentence(raw):
    """How many kernels died and were replaced (the notebook opened again), and whose."""
    died = [(row["name"], k["notebook"][:2], k.get("reasons", ["?"])[0].split(" | ")[0])
            for row in raw["learners"] for k in row.get("kernels", []) if k.get("restarts")]
    if not died:
        return "No kernel died."
    return (f"{len(died)} kernel(s) died or lost their websocket and the notebook was opened again, as a learner "
            f"would ({'; '.join(f'{name}: {nb}, {why}' for name, nb, why in died)}); their figures are the second "
            "kernel's (the server logs' last warnings are in hub.json).")


def probe_lines(raw):
    """A Chromium learner's minute one beside the HTTP learners' (new flow), as a check of the HTTP driver."""
    probe = raw.get("browser_probe")
    if not probe:
        return []
    new = [r for r in raw["learners"] if r["status"] == "ok" and r["flow"] == "new"]
    peaks = spread([r["minute_one"].get("server_peak") for r in new])
    return [
        f"Check of the HTTP driver: one learner in headless Chromium, alone on the hub before the room (the link, "
        f"the login, JupyterLab's Run All command on notebook 00): minute one {probe['minute_one_cpu']:.1f} "
        f"CPU s (server {probe['server_cpu']:.1f}, kernel {probe['kernel_cpu']:.1f}) in {probe['wall']:.0f} s, server "
        f"peak {probe['server_peak'] / MIB:.0f} MiB at that point; the new-flow HTTP learners, in the room: server peak "
        f"at notebook 00 done {_range(peaks, MIB, 0)} MiB.",
        "",
    ]


def lab_sentence(raw):
    replay = raw.get("lab_replay")
    if replay:
        return (f"JupyterLab's page and the {len(replay)} GETs a headless Chromium made for it, recorded once on the "
                "same hub and replayed by each learner; not the periodic polls")
    return "JupyterLab's page, its scripts and start-up REST calls only (no browser to record the rest here)"


def keep_sentence(settings):
    if settings["keep_kernels"] is None:
        return "Earlier kernels were left running, as JupyterLab does."
    why = (f"chosen so that the room fit in the memory available at the start "
           f"({settings['available_at_start'] / 2**30:.1f} GiB)" if settings.get("keep_auto") else "as asked")
    return (f"Each learner kept at most {settings['keep_kernels']} kernels running (the oldest shut down before the "
            f"next opened), {why}; a kernel's peak does not depend on the others, so the limit below still sums every "
            "kernel.")


def goal_sentence(summary):
    new = summary["minute_one"]["new"]["cpu"]
    old = summary["minute_one"]["old"]["cpu"]
    if not new:
        return "Goal (issue 21): minute one at most 8 CPU s per learner: no new-flow learner finished."
    met = new["max"] <= 8.0
    text = (f"Goal (issue 21): minute one at most 8 CPU s per learner: {_common.verdict(met)} (new flow: median "
            f"{new['median']:.1f}, largest {new['max']:.1f} CPU s")
    if old:
        text += f"; old flow: median {old['median']:.1f}, {old['median'] / new['median']:.1f}x the new"
    return text + ")."


def learner_row(row):
    if "minute_one" not in row:
        return [row["name"], row.get("flow", "-"), "-", "-", "-", "-", "-", "-", row["status"]]
    kernels = row["kernels"]
    return [row["name"], row["flow"], _s(row["minute_one"]["cpu"]), _s(row["minute_one"]["wall"], 0),
            _s(row["server_peak"] / MIB, 0) if "server_peak" in row else "-", _s(row.get("server_cpu")),
            " ".join(f"{k['peak'] / MIB:.0f}" for k in kernels), _s(sum(k["run_cpu"] for k in kernels)), row["status"]]


def sizing_section(sizes):
    return [
        "## Per-user memory and the room (benchmarks/sizing.py)",
        "",
        _common.markdown_table(
            ["notebooks", "server peak (MiB)", "nothing closed (MiB)", "limit (MiB)", "closing as they go (MiB)",
             "guarantee (MiB)"],
            [[f"{name}: {', '.join(s['notebooks'])}", sizing.mib(s["server_peak"]), sizing.mib(s["all_alive"]),
              s["limit_mib"], sizing.mib(s["two_alive"]), s["guarantee_mib"]] for name, s in sizes.items()]),
        "",
        "The guide's sizing block (docs/instructor-guide.md) is generated from these figures "
        "(`python benchmarks/hub.py --from-json` writes it again; tests/test_sizing.py checks it).",
        "",
    ]


# -- main -------------------------------------------------------------------------------------------------------------

def versions():
    from importlib.metadata import version

    return {name: version(name) for name in ("jupyterhub", "nbgitpuller", "jupyterlab")}


def write(raw):
    """hub.md and the guide's block from the raw figures (hub.json)."""
    summary = summarise(raw)
    figures = sizing_figures(summary, raw["machine"])
    sizes = sizing.plan(figures) if summary["ok"] == summary["learners"] else {}
    _common.RESULTS.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(report(raw, summary, sizes), encoding="utf-8")
    print(f"wrote {REPORT}")
    if sizes:
        sizing.write_guide(figures, sizes)
    else:
        print("a learner failed: the guide's sizing block is left as it was")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=30, help="learners at once (default 30)")
    parser.add_argument("--optional", action="store_true", help="also run the optional notebooks 06 and 07")
    parser.add_argument("--moves", type=int, default=2, help="moves per dashboard control (default 2)")
    parser.add_argument("--keep-kernels", type=int, default=None,
                        help="kernels each learner keeps running (default: all, unless memory is short)")
    parser.add_argument("--stagger", type=float, default=1.0, help="seconds between two learners' clicks (default 1)")
    parser.add_argument("--timeout", type=float, default=5400, help="the whole room's time limit, s (default 5400)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave benchmarks/results/ alone")
    parser.add_argument("--from-json", action="store_true", help=f"no run: hub.md and the guide from {RAW.name}")
    args = parser.parse_args(argv)
    if args.from_json:
        write(json.loads(RAW.read_text(encoding="utf-8")))
        return
    if not Path("/proc/self/status").exists():
        print("hub: needs Linux (/proc); skipped")
        return
    stems = [p.stem for p in sorted((ROOT / "solutions").glob("[0-9][0-9]-*.ipynb"))
             if p.name[:2] in WORKSHOP or (args.optional and p.name[:2] in OPTIONAL)]
    stems.sort(key=lambda s: (s[:2] in OPTIONAL, s))  # the workshop's first, then 06, 07
    available = memory_available()
    keep = args.keep_kernels if args.keep_kernels is not None else choose_keep(args.learners, len(stems), available)
    print(f"hub: {args.learners} learners, notebooks {', '.join(s[:2] for s in stems)}, kernels kept: "
          f"{keep or 'all'} ({available / 2**30:.1f} GiB available)", flush=True)
    raw = run_room(args.learners, stems, args.moves, keep, args.stagger, args.timeout)
    raw["settings"] = {"learners": args.learners, "notebooks": stems, "moves": args.moves, "keep_kernels": keep,
                       "keep_auto": args.keep_kernels is None, "stagger": args.stagger,
                       "available_at_start": available, **versions()}
    raw["machine"] = _common.machine()
    summary = summarise(raw)
    for flow, m in summary["minute_one"].items():
        if m["cpu"]:
            print(f"minute one, {flow} flow: CPU s median {m['cpu']['median']:.1f} "
                  f"({m['cpu']['min']:.1f}-{m['cpu']['max']:.1f}), n={m['cpu']['n']}", flush=True)
    print(f"room: {raw['room_seconds']:.0f} s; whole run {raw['total_seconds']:.0f} s", flush=True)
    if args.no_write:  # a smoke run: the report on the terminal, benchmarks/results/ left alone
        print(report(raw, summary, {}))
        return
    _common.RESULTS.mkdir(parents=True, exist_ok=True)
    RAW.write_text(json.dumps(raw, indent=1) + "\n", encoding="utf-8")
    write(raw)


if __name__ == "__main__":
    main()
