"""The course works offline: every notebook runs with the network cut off, and none loads remote files.

1. Running. Every solved notebook runs top to bottom in a fresh kernel with the network cut off, and fails on any
   attempt to reach it. That run is nbval's, in the same session (conftest.py's ``OfflineKernels`` starts the kernel
   of every notebook it collects; this module is moved after the notebooks and reads what their runs recorded), so no
   notebook is executed twice. A solved notebook the session did not run in full (``pytest tests/test_offline.py``
   alone, or a run of some cells only) is run here, through the same kernels, cell after cell. The network is cut:

   - in a new network namespace when ``unshare`` and ``ip`` work here (as root: ``unshare -n``; otherwise
     ``unshare -rn``, where unprivileged user namespaces are allowed). It holds only the loopback interface,
     brought up with ``ip link set lo up``; the kernel talks to pytest over Unix sockets (zmq's ipc transport),
     which the namespace leaves working;
   - in every case by a guard, ``tests/offline_guard/sitecustomize.py`` put on PYTHONPATH (so the kernel and any
     Python it starts load it), which makes ``socket.getaddrinfo``/``gethostbyname*``, ``socket.connect``/
     ``connect_ex``/``sendto`` raise on any non-loopback host and logs each attempt, one log per notebook. A
     notebook fails if a cell fails (nbval's report of the cell is shown), and also if it tried at all (an attempt
     caught by a ``try`` is still in the log).

   Without a namespace (e.g. a CI runner that forbids user namespaces) the guard alone does the job.
   ``COURSE_OFFLINE_MODE=guard`` forces that fallback. The probes below run in kernels started the same way, and
   prove that the guard blocks and logs ``urllib.request.urlopen("http://example.com")`` and a raw connect, logs an
   attempt a ``try`` swallowed, lets loopback through, and (when there is a namespace) that the namespace blocks on
   its own too. No probe reaches the network: inside the namespace nothing can, and outside it the guard stops the
   call first.

   The learner notebooks (notebooks/) run in the same offline kernels under nbval; this module checks the solved
   ones, whose code the learner notebooks share outside the exercise functions (whose bodies become
   ``raise NotImplementedError()``).

2. Static scan: no notebook, in solutions/ or notebooks/, loads a remote image, script, stylesheet, font
   or frame from its markdown or its stored outputs; nor do README.md, CONTRIBUTING.md and docs/ (no
   badges). Plain links (``[text](https://...)``) are fine: a learner may follow them, but nothing breaks
   when they cannot.
"""
from __future__ import annotations

import re
import time
from pathlib import Path

import course_notebooks
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
LEARNER = ROOT / "notebooks"
GUARD = ROOT / "tests" / "offline_guard" / "sitecustomize.py"
CELL_TIMEOUT = 120  # seconds per cell, as tools/build.py --execute-solutions
KERNEL_NAME = ":nbval-parent-env"  # this environment's Python, as nbval's --nbval-current-env

# Probes, run one after the other in one offline kernel: (name, code, must the cell fail?, text the guard log must hold
# for it or None)
PROBES = {
    "probe-urlopen": ('import urllib.request\n'
                      'urllib.request.urlopen("http://example.com", timeout=5).read()',
                      True, "resolve example.com"),
    "probe-raw-connect": ('import socket\n'
                          's = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n'
                          's.settimeout(3)\n'
                          's.connect(("192.0.2.1", 80))   # TEST-NET-1: a documentation address',
                          True, "connect 192.0.2.1:80"),
    "probe-swallowed": ('import urllib.request\n'
                        'try:\n'
                        '    urllib.request.urlopen("http://example.com", timeout=5)\n'
                        'except OSError as err:\n'
                        '    print("offline:", type(err).__name__)',
                        False, "resolve example.com"),
    "probe-loopback": ('import socket, threading\n'
                       'server = socket.create_server(("127.0.0.1", 0))\n'
                       'port = server.getsockname()[1]\n'
                       'threading.Thread(target=lambda: server.accept()[0].sendall(b"hi"), daemon=True).start()\n'
                       'with socket.create_connection(("localhost", port), timeout=5) as client:\n'
                       '    assert client.recv(2) == b"hi"\n'
                       'print("loopback ok")',
                       False, None),
}

NOTEBOOKS = course_notebooks.SOLVED  # the course's and every translation's solved notebooks


def run_cells(kernels, cells: dict[str, str], log: Path, cwd: Path, guard: bool = True,
              stop_on_error: bool = False) -> dict:
    """Run code ``cells`` ({name: source}) in order in one offline kernel (``kernels``: conftest's OfflineKernels).

    Returns
    -------
    dict
        {name: {"ok": bool, "error": str or None, "attempts": [guard log lines written while it ran]}}; with
        ``stop_on_error`` the cells after a failing one are left out.
    """
    kernel = kernels.kernel(kernels.manager(KERNEL_NAME, log, guard=guard), cwd)
    results = {}
    try:
        for name, source in cells.items():
            seen = len(log.read_text(encoding="utf-8").splitlines()) if log.exists() else 0
            try:
                reply = kernel.kc.execute_interactive(source, timeout=CELL_TIMEOUT, output_hook=lambda msg: None,
                                                      store_history=False)
                content = reply["content"]
                error = (None if content["status"] == "ok"
                         else f"{content.get('ename')}: {content.get('evalue')}")
            except TimeoutError:
                error = f"the cell did not finish in {CELL_TIMEOUT} s"
            attempts = log.read_text(encoding="utf-8").splitlines()[seen:] if log.exists() else []
            results[name] = {"ok": error is None, "error": error, "attempts": attempts}
            if error and stop_on_error:
                break
    finally:
        kernel.stop()
    return results


def run_notebook_here(kernels, path: Path, workdir: Path) -> dict:
    """A solved notebook the session did not run in full: its code cells in one offline kernel, up to a failure."""
    nb = nbformat.read(path, as_version=4)
    cells = {f"cell {number} (id {cell.get('id')})": cell.source
             for number, cell in enumerate(nb.cells, 1) if cell.cell_type == "code"}
    results = run_cells(kernels, cells, workdir / f"{path.parent.name}-{path.stem}.log", path.parent, stop_on_error=True)
    failed = [f"{name}: {result['error']}" for name, result in results.items() if not result["ok"]]
    return {"failed": failed, "attempts": [line for result in results.values() for line in result["attempts"]],
            "where": "run by tests/test_offline.py (the session did not run it in full)"}


@pytest.fixture(scope="module")
def offline(offline_kernels, tmp_path_factory):
    """The offline result of every solved notebook (the session's nbval run, or one run here) and of the probes."""
    workdir = tmp_path_factory.mktemp("offline")
    start = time.perf_counter()
    notebooks = {}
    for path in NOTEBOOKS:
        record = offline_kernels.record(path)
        if record is not None and record["complete"]:
            notebooks[path] = {"failed": record["failed"], "attempts": record["attempts"],
                               "where": "run by nbval in this session"}
        else:
            notebooks[path] = run_notebook_here(offline_kernels, path, workdir)
    probes = run_cells(offline_kernels, {name: code for name, (code, _, _) in PROBES.items()},
                       workdir / "probes.log", workdir)
    print(f"\noffline ({offline_kernels.mode}): {time.perf_counter() - start:.1f} s here for the probes and "
          f"{sum(n['where'].startswith('run by tests') for n in notebooks.values())} of {len(NOTEBOOKS)} notebooks "
          "(the others were run by nbval)")
    return {"kernels": offline_kernels, "mode": offline_kernels.mode, "notebooks": notebooks, "probes": probes,
            "workdir": workdir}


def test_there_are_notebooks():
    assert NOTEBOOKS, f"no notebook in {SOLUTIONS}"


def test_the_guard_is_where_the_kernels_load_it():
    assert GUARD.name == "sitecustomize.py" and "NetworkAccessBlocked" in GUARD.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=course_notebooks.name)
def test_notebook_runs_offline(offline, path):
    result = offline["notebooks"][path]
    assert not result["failed"], (f"{path.name} failed with the network cut off ({offline['mode']}; "
                                  f"{result['where']}):\n" + "\n".join(result["failed"]))
    assert not result["attempts"], (
        f"{path.name} tried to reach the network (the course must run offline; {result['where']}): "
        f"{result['attempts']}")


@pytest.mark.parametrize("name", list(PROBES))
def test_guard_probe(offline, name):
    """The guard blocks urlopen and raw connects, logs even a swallowed attempt, and lets loopback through."""
    _, must_fail, logged = PROBES[name]
    result = offline["probes"][name]
    if must_fail:
        assert not result["ok"], f"{name} reached no error: the network was not cut off"
        assert "NetworkAccessBlocked" in result["error"] or "blocked by the offline test" in result["error"], (
            f"{name} failed, but not because of the guard:\n{result['error']}")
    else:
        assert result["ok"], f"{name} should run:\n{result['error']}"
    if logged:
        assert any(logged in line for line in result["attempts"]), result["attempts"]
    else:
        assert result["attempts"] == []


def test_namespace_alone_cuts_the_network(offline):
    """Inside the namespace, with the guard switched off, the probes still cannot reach the network."""
    kernels = offline["kernels"]
    if kernels.prefix is None:
        pytest.skip("no network namespace here (unshare/ip missing or not permitted): the guard alone is used")
    names = ("probe-urlopen", "probe-raw-connect", "probe-loopback")
    report = run_cells(kernels, {name: PROBES[name][0] for name in names}, offline["workdir"] / "noguard.log",
                       offline["workdir"], guard=False)
    for name in ("probe-urlopen", "probe-raw-connect"):
        result = report[name]
        assert not result["ok"], f"{name} ran inside the namespace: the network was reachable"
        assert "NetworkAccessBlocked" not in result["error"]
        assert result["attempts"] == []  # the guard was off
    assert report["probe-loopback"]["ok"], "loopback must work inside the namespace"


def _ask(kernel, expression):
    """The repr of ``expression`` evaluated in ``kernel`` (an OfflineKernel), run outside any cell."""
    reply = kernel.kc.execute_interactive("", timeout=CELL_TIMEOUT, store_history=False, output_hook=lambda msg: None,
                                          user_expressions={"value": expression})
    return reply["content"]["user_expressions"]["value"]["data"]["text/plain"]


def test_a_kernel_started_ahead_is_its_own_notebooks_fresh_offline_kernel(offline_kernels, tmp_path):
    """conftest.py starts the next notebook's kernel while one runs (``OfflineKernels.prestart``): the notebook set up
    next gets that kernel, fresh (no name from the notebook before, its own process, its notebook's folder), offline
    (the guard logs into that notebook's own record), and a kernel no notebook took is shut down by ``close()``."""
    kernels = type(offline_kernels)()  # a launcher of its own: close() here must not end the session's
    first, second, unused = (tmp_path / name / f"{name}.ipynb" for name in ("first", "second", "unused"))
    for path in (first, second, unused):
        path.parent.mkdir()
    running = []
    try:
        kernels.prestart(first, KERNEL_NAME)
        kernels.prestart(second, KERNEL_NAME)
        running.append(kernels.start(first, KERNEL_NAME, cells=1))
        kc = running[0].kc
        kc.execute_interactive(PROBES["probe-swallowed"][0] + "\nleft_behind = 1", timeout=CELL_TIMEOUT,
                               output_hook=lambda msg: None)
        first_pid = _ask(running[0], "__import__('os').getpid()")
        running.append(kernels.start(second, KERNEL_NAME, cells=1))
        assert _ask(running[1], "'left_behind' in globals()") == "False"
        assert _ask(running[1], "__import__('os').getpid()") != first_pid
        assert _ask(running[1], "__import__('os').getcwd()") == repr(str(second.parent))
        assert any("resolve example.com" in line for line in kernels.record(first)["attempts"])
        assert kernels.record(second)["attempts"] == []
        kernels.prestart(unused, KERNEL_NAME)
        (_, manager, _), = kernels._prestarted.values()
        assert manager.is_alive()
    finally:
        for kernel in running:
            kernel.stop()
        kernels.close()
    assert not manager.is_alive(), "close() left a kernel started ahead running"


# ---------------------------------------------------------------------------------------------
# Static scan: no remote images, scripts, stylesheets, fonts or frames
# ---------------------------------------------------------------------------------------------

_REMOTE = r"""\s*["']?\s*(?:https?:)?//"""
REMOTE_RESOURCE_PATTERNS = {
    "remote image (markdown)": re.compile(r"!\[[^\]]*\]\(\s*<?(?:https?:)?//", re.I),
    "remote image/media/frame (html src)":
        re.compile(r"<(?:img|iframe|video|audio|source|embed|input|track)\b[^>]*?\bsrc\s*=" + _REMOTE, re.I),
    "srcset with a remote image": re.compile(r"\bsrcset\s*=\s*[\"'][^\"']*(?:https?:)?//", re.I),
    "script loaded from a file (<script src=...>)": re.compile(r"<script\b[^>]*?\bsrc\s*=", re.I),
    "remote stylesheet or font (<link href=...>)": re.compile(r"<link\b[^>]*?\bhref\s*=" + _REMOTE, re.I),
    "remote object data": re.compile(r"<object\b[^>]*?\bdata\s*=" + _REMOTE, re.I),
    "CSS @import of a remote file": re.compile(r"@import\s+(?:url\()?" + _REMOTE, re.I),
    "CSS url(...) of a remote file (font, background)": re.compile(r"\burl\(" + _REMOTE, re.I),
    "SVG image with a remote href": re.compile(r"<image\b[^>]*?\bhref\s*=" + _REMOTE, re.I),
}
_REFERENCE_DEFINITION = re.compile(r"^\s{0,3}\[([^\]]+)\]:\s*<?(?:https?:)?//", re.I | re.M)
_REFERENCE_IMAGE = re.compile(r"!\[[^\]]*\]\[([^\]]*)\]")


def remote_resources(text: str) -> list[str]:
    """What in ``text`` (markdown, HTML, SVG or CSS) would load a file from the network.

    Returns
    -------
    list of str
        One description (the pattern's name and the matching text) per finding; empty when none.
    """
    found = [f"{what}: {match.group(0)[:120]!r}"
             for what, pattern in REMOTE_RESOURCE_PATTERNS.items() for match in pattern.finditer(text)]
    remote_refs = {label.lower() for label in _REFERENCE_DEFINITION.findall(text)}
    for match in _REFERENCE_IMAGE.finditer(text):
        if (match.group(1) or "").lower() in remote_refs:
            found.append(f"remote image (markdown reference): {match.group(0)[:120]!r}")
    return found


def _texts(nb):
    """(where, text) for every markdown/raw source and every stored text-like output of a notebook."""
    for number, cell in enumerate(nb.cells, 1):
        where = f"cell {number} (id {cell.get('id')})"
        if cell.cell_type in ("markdown", "raw"):
            yield where, cell.source
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                continue  # printed text is not rendered as HTML
            for mime, data in output.get("data", {}).items():
                if mime.startswith("text/") or mime.endswith(("+xml", "javascript")):
                    yield f"{where} output {mime}", data if isinstance(data, str) else "".join(data)


@pytest.mark.parametrize("path", course_notebooks.ALL, ids=course_notebooks.name)
def test_notebook_loads_no_remote_resource(path):
    nb = nbformat.read(path, as_version=4)
    findings = [f"{where}: {found}" for where, text in _texts(nb) for found in remote_resources(text)]
    assert not findings, (f"{path.parent.name}/{path.name} loads files from the network, which fails "
                          "offline (ship the file in the repository, or use a plain link):\n"
                          + "\n".join(findings))


DOCS = sorted([*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md")])


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_document_loads_no_remote_resource(path):
    """README, CONTRIBUTING and docs/ too: no badge or other remote image (plain links are fine)."""
    findings = remote_resources(path.read_text(encoding="utf-8"))
    assert not findings, f"{path.relative_to(ROOT)} loads files from the network:\n" + "\n".join(findings)


@pytest.mark.parametrize("text", [
    '<img src="https://example.com/a.png">',
    "<img alt='x' src='http://example.com/a.png'/>",
    "<img src=//cdn.example.com/a.png>",
    "![diagram](https://example.com/a.png)",
    "![diagram]( <http://example.com/a.png> )",
    "![diagram][fig]\n\n[fig]: https://example.com/a.png",
    '<script src="https://cdn.example.com/lib.js"></script>',
    '<script type="text/javascript" src="lib.js"></script>',
    '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">',
    "<style>@import url(https://fonts.googleapis.com/css2?family=Inter);</style>",
    "<style>@import 'https://example.com/x.css';</style>",
    "@font-face { font-family: X; src: url('https://example.com/x.woff2') format('woff2'); }",
    '<div style="background: url(http://example.com/bg.png)"></div>',
    '<iframe src="https://www.youtube.com/embed/x"></iframe>',
    '<svg><image href="https://example.com/a.png"/></svg>',
    '<img srcset="https://example.com/a.png 2x">',
])
def test_the_scan_finds_remote_resources(text):
    assert remote_resources(text), text


@pytest.mark.parametrize("text", [
    "See [the paper](https://arxiv.org/abs/1706.03762) and <https://example.com>.",
    "[Vaswani et al.](http://papers.nips.cc/) [ref]: https://example.com",
    '<a href="https://example.com">a plain link</a>',
    "![a local figure](figures/heatmap.png)",
    '<img src="data:image/png;base64,iVBORw0KGgo=">',
    '<img src="figures/local.png">',
    "`softmax(x)` with url in prose: the url (https://example.com) is only text",
    "![diagram][fig]\n\n[fig]: figures/local.png",
])
def test_the_scan_allows_plain_links_and_local_files(text):
    assert remote_resources(text) == [], text
