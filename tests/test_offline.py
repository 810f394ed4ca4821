"""The course works offline: every notebook runs with the network cut off, and none loads remote files.

1. Running. Every solved notebook is executed top to bottom (nbclient, a fresh kernel each, one process,
   one after the other) with the network cut off, and fails on any attempt to reach it:

   - a new network namespace when ``unshare`` and ``ip`` work here (as root: ``unshare -n``; otherwise
     ``unshare -rn``, where unprivileged user namespaces are allowed). It holds only the loopback
     interface, brought up with ``ip link set lo up`` because the kernel talks to its client over it;
   - in every case a guard, a ``sitecustomize`` module put on PYTHONPATH (so the kernel and any Python it
     starts load it), which makes ``socket.getaddrinfo``/``gethostbyname*``, ``socket.connect``/
     ``connect_ex``/``sendto`` raise on any non-loopback host and logs each attempt. A notebook fails if a
     cell raises, and also if it tried at all (an attempt caught by a ``try`` is still in the log).

   Without a namespace (e.g. a CI runner that forbids user namespaces) the guard alone does the job.
   ``COURSE_OFFLINE_MODE=guard`` forces that fallback. The probe notebooks below prove that the guard
   blocks and logs ``urllib.request.urlopen("http://example.com")`` and a raw connect, lets loopback
   through, and (when there is a namespace) that the namespace blocks on its own too. No probe reaches
   the network: inside the namespace nothing can, and outside it the guard stops the call first.

   The learner notebooks (notebooks/) are not run here: they are generated from the solved ones and
   differ only inside the exercise functions, whose bodies become ``raise NotImplementedError()``, so
   they run the same non-exercise code (nbval runs them online in the main suite).

2. Static scan: no notebook, in solutions/ or notebooks/, loads a remote image, script, stylesheet, font
   or frame from its markdown or its stored outputs; nor do README.md, CONTRIBUTING.md and docs/ (no
   badges). Plain links (``[text](https://...)``) are fine: a learner may follow them, but nothing breaks
   when they cannot.

Run as a script (``python tests/test_offline.py --run OUT.json NOTEBOOK...``) this file is the runner
that executes notebooks and writes a JSON report; the tests start it in the namespace.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
LEARNER = ROOT / "notebooks"
CELL_TIMEOUT = 120  # seconds per cell, as course_utils.tools.build --execute-solutions

GUARD_SOURCE = r'''
"""Network guard for the offline test (tests/test_offline.py): any non-loopback access raises and is logged."""
import ipaddress
import os
import socket

_LOCAL_NAMES = {None, "", b"", "localhost", "localhost.localdomain", "ip6-localhost"}


class NetworkAccessBlocked(OSError):
    """Raised by the offline test's guard: the course must not reach the network."""


def _is_local(host):
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if host in _LOCAL_NAMES:
        return True
    try:
        address = ipaddress.ip_address(str(host).split("%")[0])
    except ValueError:
        return False  # a host name other than localhost: resolving it is a network access
    if getattr(address, "ipv4_mapped", None):
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def _blocked(what):
    log = os.environ.get("COURSE_NET_GUARD_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(what + "\n")
    raise NetworkAccessBlocked(f"network access blocked by the offline test: {what}")


def _install():
    real_getaddrinfo = socket.getaddrinfo
    real_gethostbyname = socket.gethostbyname
    real_gethostbyname_ex = socket.gethostbyname_ex
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_sendto = socket.socket.sendto

    def _check_address(sock, address, verb):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple):
            if not _is_local(address[0]):
                _blocked(f"{verb} {address[0]}:{address[1] if len(address) > 1 else ''}")

    def getaddrinfo(host, *args, **kwargs):
        if not _is_local(host):
            _blocked(f"resolve {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    def gethostbyname(host):
        if not _is_local(host):
            _blocked(f"resolve {host}")
        return real_gethostbyname(host)

    def gethostbyname_ex(host):
        if not _is_local(host):
            _blocked(f"resolve {host}")
        return real_gethostbyname_ex(host)

    def connect(self, address):
        _check_address(self, address, "connect")
        return real_connect(self, address)

    def connect_ex(self, address):
        _check_address(self, address, "connect")
        return real_connect_ex(self, address)

    def sendto(self, data, *args):
        if args:
            _check_address(self, args[-1], "sendto")
        return real_sendto(self, data, *args)

    socket.getaddrinfo = getaddrinfo
    socket.gethostbyname = gethostbyname
    socket.gethostbyname_ex = gethostbyname_ex
    socket.socket.connect = connect
    socket.socket.connect_ex = connect_ex
    socket.socket.sendto = sendto


if os.environ.get("COURSE_NET_GUARD", "1") != "0":
    _install()
'''

# Probe notebooks: (name, code cells, must the run fail?, text the guard log must hold or None)
PROBES = {
    "probe-urlopen": (['import urllib.request\n'
                       'urllib.request.urlopen("http://example.com", timeout=5).read()'],
                      True, "resolve example.com"),
    "probe-raw-connect": (['import socket\n'
                           's = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n'
                           's.settimeout(3)\n'
                           's.connect(("192.0.2.1", 80))   # TEST-NET-1: a documentation address'],
                          True, "connect 192.0.2.1:80"),
    "probe-swallowed": (['import urllib.request\n'
                         'try:\n'
                         '    urllib.request.urlopen("http://example.com", timeout=5)\n'
                         'except OSError as err:\n'
                         '    print("offline:", type(err).__name__)'],
                        False, "resolve example.com"),
    "probe-loopback": (['import socket, threading\n'
                        'server = socket.create_server(("127.0.0.1", 0))\n'
                        'port = server.getsockname()[1]\n'
                        'threading.Thread(target=lambda: server.accept()[0].sendall(b"hi"), daemon=True).start()\n'
                        'with socket.create_connection(("localhost", port), timeout=5) as client:\n'
                        '    assert client.recv(2) == b"hi"\n'
                        'print("loopback ok")'],
                       False, None),
}


# ---------------------------------------------------------------------------------------------
# The runner (executed as a script, inside the namespace when there is one)
# ---------------------------------------------------------------------------------------------


def _run_notebooks(out_path: str, paths: list[str]) -> None:
    """Execute each notebook in a fresh kernel; write {path: {ok, error, seconds, attempts}} to out_path."""
    sys.path.insert(0, str(ROOT))
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    from course_utils.tools import build

    manager_class = build._current_env_kernel_manager_class()
    report = {}
    for index, path in enumerate(map(Path, paths)):
        log = Path(out_path).with_name(f"attempts-{index}.log")
        log.unlink(missing_ok=True)
        os.environ["COURSE_NET_GUARD_LOG"] = str(log)  # the kernel inherits this environment
        nb = build.read_notebook(path)
        client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name=build.KERNEL_NAME,
                                kernel_manager_class=manager_class, record_timing=False,
                                resources={"metadata": {"path": str(path.parent)}})
        start = time.perf_counter()
        try:
            client.execute()
            error = None
        except (CellExecutionError, CellTimeoutError, DeadKernelError) as err:
            error = str(err)[-3000:]
        attempts = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
        report[str(path)] = {"ok": error is None, "error": error, "attempts": attempts,
                             "seconds": round(time.perf_counter() - start, 2)}
    Path(out_path).write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__" and len(sys.argv) > 2 and sys.argv[1] == "--run":
    _run_notebooks(sys.argv[2], sys.argv[3:])
    sys.exit(0)


# ---------------------------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------------------------

import nbformat  # noqa: E402  (after the runner: the script path needs neither)
import pytest  # noqa: E402

NOTEBOOKS = sorted(SOLUTIONS.glob("*.ipynb"))


def _ip_command():
    extra = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
    return shutil.which("ip", path=extra)


def namespace_prefix():
    """The command prefix that runs a program in a fresh network namespace with loopback up, or None.

    Returns ``None`` (fall back to the guard alone) when ``COURSE_OFFLINE_MODE=guard``, when ``unshare``
    or ``ip`` is missing, or when a namespace cannot be made or its loopback cannot carry a connection.
    """
    if os.environ.get("COURSE_OFFLINE_MODE") == "guard":
        return None
    unshare, ip = shutil.which("unshare"), _ip_command()
    if not unshare or not ip:
        return None
    flags = ["--net"] if os.geteuid() == 0 else ["--map-root-user", "--net"]
    prefix = [unshare, *flags, "sh", "-c", f'"{ip}" link set lo up && exec "$0" "$@"']
    probe = ("import socket\n"
             "server = socket.create_server(('127.0.0.1', 0))\n"
             "socket.create_connection(server.getsockname(), timeout=5).close()\n"
             "print('loopback ok')")
    try:
        done = subprocess.run(prefix + [sys.executable, "-c", probe], capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return prefix if done.returncode == 0 and "loopback ok" in done.stdout else None


def run_offline(paths, workdir: Path, prefix, guard: bool = True) -> dict:
    """Run the notebooks (one runner process, one after the other) offline; return the runner's report."""
    guard_dir = workdir / "guard"
    guard_dir.mkdir(exist_ok=True)
    (guard_dir / "sitecustomize.py").write_text(GUARD_SOURCE, encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(guard_dir), env.get("PYTHONPATH")]))
    env["COURSE_NET_GUARD"] = "1" if guard else "0"
    out = workdir / f"report-{'guard' if guard else 'noguard'}.json"
    command = [*(prefix or []), sys.executable, str(Path(__file__).resolve()), "--run", str(out),
               *map(str, paths)]
    done = subprocess.run(command, env=env, cwd=workdir, capture_output=True, text=True,
                          timeout=60 + 120 * len(paths))
    assert done.returncode == 0 and out.exists(), (
        f"the offline runner failed (exit {done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def write_probes(folder: Path) -> dict:
    folder.mkdir(exist_ok=True)
    paths = {}
    for name, (cells, _, _) in PROBES.items():
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in cells])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        paths[name] = folder / f"{name}.ipynb"
        nbformat.write(nb, paths[name])
    return paths


@pytest.fixture(scope="module")
def offline(tmp_path_factory):
    """One offline run of every solved notebook and every probe: (mode, report, probe paths, seconds)."""
    workdir = tmp_path_factory.mktemp("offline")
    prefix = namespace_prefix()
    probes = write_probes(workdir / "probes")
    start = time.perf_counter()
    report = run_offline([*NOTEBOOKS, *probes.values()], workdir, prefix)
    seconds = time.perf_counter() - start
    mode = "network namespace + guard" if prefix else "guard only (no network namespace here)"
    print(f"\noffline run ({mode}): {seconds:.1f} s for {len(NOTEBOOKS)} notebooks and {len(probes)} probes; "
          + ", ".join(f"{Path(p).stem[:2]} {r['seconds']} s" for p, r in report.items()))
    return {"prefix": prefix, "report": report, "probes": probes, "workdir": workdir, "mode": mode}


def test_there_are_notebooks():
    assert NOTEBOOKS, f"no notebook in {SOLUTIONS}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_offline(offline, path):
    result = offline["report"][str(path)]
    assert result["ok"], f"{path.name} failed with the network cut off ({offline['mode']}):\n{result['error']}"
    assert not result["attempts"], (
        f"{path.name} tried to reach the network (the course must run offline): {result['attempts']}")


@pytest.mark.parametrize("name", list(PROBES))
def test_guard_probe(offline, name):
    """The guard blocks urlopen and raw connects, logs even a swallowed attempt, and lets loopback through."""
    _, must_fail, logged = PROBES[name]
    result = offline["report"][str(offline["probes"][name])]
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
    if offline["prefix"] is None:
        pytest.skip("no network namespace here (unshare/ip missing or not permitted): the guard alone is used")
    probes = offline["probes"]
    report = run_offline([probes["probe-urlopen"], probes["probe-raw-connect"], probes["probe-loopback"]],
                         offline["workdir"], offline["prefix"], guard=False)
    for name in ("probe-urlopen", "probe-raw-connect"):
        result = report[str(probes[name])]
        assert not result["ok"], f"{name} ran inside the namespace: the network was reachable"
        assert "blocked by the offline test" not in result["error"]
        assert result["attempts"] == []  # the guard was off
    assert report[str(probes["probe-loopback"])]["ok"], "loopback must work inside the namespace"


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


@pytest.mark.parametrize("path", sorted(SOLUTIONS.glob("*.ipynb")) + sorted(LEARNER.glob("*.ipynb")),
                         ids=lambda p: f"{p.parent.name}/{p.stem}")
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
