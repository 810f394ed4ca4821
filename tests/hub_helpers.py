"""A real JupyterHub on loopback, serving the course from a local git server: the machinery of tests/test_hub.py,
reusable by a benchmark that drives many learners over plain HTTP.

Pieces, each started and stopped by its owner (all bound to 127.0.0.1, on free ports):

- :func:`missing` says why the hub cannot run here (no jupyterhub or nbgitpuller, no configurable-http-proxy from
  ``npm ci --prefix tests/hub``, no node), or None;
- :func:`hub_environment` makes the hub's Python environment: the course's ``.venv`` *without* its editable install
  of course_utils (see its docstring), so a notebook reaches course_utils only through the learner's clone;
- :func:`serve_course` makes the course repository a hub clones: this checkout's history, plus one commit holding the
  work tree's tracked files when they differ from HEAD (uncommitted work is what gets tested);
- :class:`GitServer`: bare repositories over git's smart HTTP (``git http-backend`` as a CGI script under
  ``python -m http.server --cgi``), which nbgitpuller's shallow clone needs;
- :class:`Hub`: JupyterHub with a generated configuration (configurable-http-proxy from tests/hub/node_modules,
  DummyAuthenticator with :data:`PASSWORD` and allow_all, SimpleLocalProcessSpawner with one home per user in the
  scratch folder, sqlite), its processes read from /proc (:meth:`Hub.processes`), its REST API through a service token
  (:meth:`Hub.api`, :meth:`Hub.user_token`), and :meth:`Hub.stop`, which ends the hub, the proxy, every single-user
  server and every kernel, bounded in time.

A benchmark's use (the test's is the same, with a browser per learner)::

    scratch = Path(tempfile.mkdtemp())
    git = GitServer(scratch / "git").start()
    served = serve_course(git.repository("self-attention-hands-on"), scratch / "serve")  # {"first", "head", ...}
    hub = Hub(scratch / "hub", hub_environment(scratch / "hub-env"), start_timeout=300, http_timeout=240).start()
    try:
        link = hub_link.hub_link(hub.url, git.url("self-attention-hands-on"))
        ...  # hub.user_token(name), hub.api("POST", f"users/{name}/server"), hub.processes(), ...
    finally:
        hub.stop()
        git.stop()
"""
from __future__ import annotations

import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: configurable-http-proxy as `npm ci --prefix tests/hub` installs it (version pinned by tests/hub/package-lock.json).
PROXY = ROOT / "tests" / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"
#: The shared password of DummyAuthenticator (any user name logs in with it).
PASSWORD = "course-hub-test"
#: The identity the course's maintainers commit with (learners have none: :meth:`Hub.learner_env`).
MAINTAINER = {
    "GIT_AUTHOR_NAME": "Course maintainer", "GIT_AUTHOR_EMAIL": "maintainer@course.example",
    "GIT_COMMITTER_NAME": "Course maintainer", "GIT_COMMITTER_EMAIL": "maintainer@course.example",
}
#: Variables of the test's environment that must not reach the hub, its single-user servers or a learner's git.
_DROPPED = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "JUPYTER_PATH", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR",
            "JUPYTER_RUNTIME_DIR", "JUPYTERLAB_DIR", "JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR",
            "IPYTHONDIR", "MPLBACKEND", "EMAIL", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_GLOBAL",
            *MAINTAINER)


def missing() -> str | None:
    """Why a hub cannot run on this machine (a sentence naming the fix), or None."""
    for module, where in (("jupyterhub", "requirements-dev.lock: run `make env-dev`"),
                          ("nbgitpuller", "requirements-dev.lock: run `make env-dev`")):
        if importlib.util.find_spec(module) is None:
            return f"the {module} package is not installed ({where})"
    if shutil.which("node") is None:
        return "node is not installed (configurable-http-proxy runs on it: `apt-get install nodejs npm`)"
    if not PROXY.exists():
        return f"no {PROXY.relative_to(ROOT)}: run `npm ci --prefix tests/hub` (make test does when npm is on PATH)"
    if shutil.which("git") is None:
        return "git is not installed"
    return None


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition, timeout: float, what: str, every: float = 0.1):
    """Call ``condition()`` until it returns something true (returned); AssertionError naming ``what`` after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


def run(args, cwd=None, env=None, timeout=120, check=True) -> subprocess.CompletedProcess:
    """A subprocess, bounded in time; AssertionError with its output when it fails."""
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, args))} failed ({done.returncode}) in {cwd}:\n"
                             f"{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return done


def clean_env(**extra) -> dict:
    """The test's environment without what would leak into the hub (a PYTHONPATH, Jupyter folders, a git identity)."""
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED and not k.startswith(("COVERAGE_", "PYTEST_"))}
    env.update(LC_ALL="C.UTF-8", LANG="C.UTF-8")
    env.update(extra)
    return env


# ------------------------------------------------------------------------------------------------ the hub's Python
@dataclass(frozen=True)
class HubEnvironment:
    """The hub's Python environment (:func:`hub_environment`)."""

    prefix: Path       #: the venv's folder
    python: Path       #: its interpreter: runs the single-user servers, their kernels and a learner's terminal
    hidden: tuple      #: the course venv's site-packages entries left out (course_utils's install)

    @property
    def bin(self) -> Path:
        return self.prefix / "bin"


def _is_course_install(entry: Path, repo: Path) -> bool:
    """An entry of site-packages that makes course_utils importable or installed: its dist-info, an editable
    install's hook (setuptools' ``__editable__*`` finder and .pth, uv's ``_course_utils.pth``), or any .pth naming
    the repository or course_utils."""
    name = entry.name.lower()
    if name.startswith(("course_utils", "course-utils", "__editable__", "_course_utils")) or name.endswith(".egg-link"):
        return True
    if name.endswith(".pth"):
        text = entry.read_text(encoding="utf-8", errors="replace")
        return str(repo) in text or "course_utils" in text
    return False


def hub_environment(target: Path, source: Path | None = None, repo: Path = ROOT) -> HubEnvironment:
    """A venv at ``target`` holding the course venv's packages (``source``, default: the running one) but not
    course_utils: what a hub's user environment is, the course's two locks and nothing of the instructor's clone.

    The course's ``.venv`` has course_utils installed editable (pointing at this checkout), so a single-user server
    run by ``.venv/bin/python`` would import course_utils from here whatever the learner's clone holds, and hide a
    notebook that cannot find its course_utils. So the hub gets a venv of its own (``python -m venv --without-pip``,
    same base interpreter) whose site-packages holds a symlink to every entry of the course venv's site-packages
    except course_utils's install (its dist-info and the editable hook; :func:`_is_course_install`), and whose
    ``share`` and ``etc`` are links to the course venv's (JupyterLab's extensions and settings overrides, the server
    extensions' configuration, the python3 kernelspec). Other .pth files are linked, so they work as they do in
    ``.venv``. The kernel runs the server's interpreter (jupyter_client starts kernelspec ``python`` as
    ``sys.executable``), so it gets this environment too.

    Checked here: ``import course_utils`` fails in it (from a folder that holds no course_utils).

    Returns
    -------
    HubEnvironment
    """
    source = Path(source or sys.prefix)
    source_python = source / "bin" / "python"
    run([source_python, "-m", "venv", "--without-pip", target])
    paths = json.loads(run([source_python, "-c", "import json, sysconfig; print(json.dumps(sysconfig.get_paths()))"]
                           ).stdout)
    mine = json.loads(run([target / "bin" / "python", "-c",
                           "import json, sysconfig; print(json.dumps(sysconfig.get_paths()))"]).stdout)
    hidden = []
    for key in dict.fromkeys(("purelib", "platlib")):
        theirs, ours = Path(paths[key]), Path(mine[key])
        ours.mkdir(parents=True, exist_ok=True)
        for entry in sorted(theirs.iterdir()):
            if _is_course_install(entry, repo):
                hidden.append(entry.name)
            elif not (ours / entry.name).exists():
                (ours / entry.name).symlink_to(entry)
    for folder in ("share", "etc"):
        if (source / folder).exists():
            (target / folder).symlink_to(source / folder)
    env = HubEnvironment(Path(target), Path(target) / "bin" / "python", tuple(dict.fromkeys(hidden)))
    probe = run([env.python, "-c", "import course_utils; print(course_utils.__file__)"], cwd=target, check=False,
                env=clean_env())
    if probe.returncode == 0 or "No module named 'course_utils'" not in probe.stderr:
        raise AssertionError(f"the hub's environment {target} still imports course_utils ({probe.stdout.strip()}"
                             f"{probe.stderr.strip()[-300:]}): hidden were {hidden}")
    return env


# ------------------------------------------------------------------------------------------------ the course in git
def serve_course(bare: Path, scratch: Path, source: Path = ROOT, branch: str = "main") -> dict:
    """Make ``bare`` (a new bare repository) the course a hub clones: ``source``'s history, its HEAD as ``branch``,
    plus, when ``source``'s tracked files differ from its HEAD, one commit holding them as they are in the work tree
    (untracked files are left out). ``source`` is only read (its index is not touched: a temporary one in
    ``scratch`` is used). The course's first commit stays the first (the update tool checks it).

    Returns
    -------
    dict
        ``first`` (the root commit), ``head`` (``branch``'s commit), ``work_tree_commit`` (True when one was added).
    """
    scratch.mkdir(parents=True, exist_ok=True)
    run(["git", "clone", "--quiet", "--bare", "--no-local", source, bare], env=clean_env())
    head = run(["git", "-C", source, "rev-parse", "HEAD"]).stdout.strip()
    git_env = clean_env(GIT_DIR=str(bare), GIT_WORK_TREE=str(source), GIT_INDEX_FILE=str(scratch / "index"),
                        **MAINTAINER)
    run(["git", "read-tree", head], env=git_env)
    run(["git", "-c", "core.bare=false", "add", "--update", "--", "."], cwd=source, env=git_env)
    tree = run(["git", "write-tree"], env=git_env).stdout.strip()
    added = tree != run(["git", "rev-parse", f"{head}^{{tree}}"], env=git_env).stdout.strip()
    if added:
        head = run(["git", "commit-tree", tree, "-p", head, "-m",
                    "The work tree's tracked files as they are (uncommitted changes), for the hub test"],
                   env=git_env).stdout.strip()
    run(["git", "-C", bare, "update-ref", f"refs/heads/{branch}", head])
    run(["git", "-C", bare, "symbolic-ref", "HEAD", f"refs/heads/{branch}"])
    first = run(["git", "-C", bare, "rev-list", "--max-parents=0", head]).stdout.split()
    return {"first": first[-1], "head": head, "work_tree_commit": added}


class GitServer:
    """Bare repositories served over git's smart HTTP on 127.0.0.1 (:meth:`url`), until :meth:`stop`.

    ``python -m http.server --cgi`` runs ``cgi-bin/git.sh``, which runs ``git http-backend`` with
    ``GIT_PROJECT_ROOT`` and ``GIT_HTTP_EXPORT_ALL``. As root, http.server runs a CGI script as ``nobody``: so the
    repositories live in a world-readable folder of their own under the system's temporary folder (:attr:`root`,
    removed by :meth:`stop`; a pytest ``tmp_path`` is private to root), and the script gives git a HOME of its own and
    ``safe.directory=*`` (the repositories belong to root). The server's log is ``scratch/git-server.log``.
    """

    def __init__(self, scratch: Path):
        self.root = Path(tempfile.mkdtemp(prefix="course-git-"))
        self.root.chmod(0o755)
        self.port = free_port()
        Path(scratch).mkdir(parents=True, exist_ok=True)
        self.log_path = Path(scratch) / "git-server.log"
        self.process = None

    def repository(self, name: str) -> Path:
        """Where the bare repository ``name`` (served at :meth:`url`) lives; not created."""
        return self.root / f"{name}.git"

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/cgi-bin/git.sh/{name}.git"

    def start(self, timeout: float = 30) -> "GitServer":
        cgi = self.root / "cgi-bin"
        cgi.mkdir(exist_ok=True)
        script = cgi / "git.sh"
        script.write_text(
            "#!/bin/sh\n"
            f"export GIT_PROJECT_ROOT='{self.root}' GIT_HTTP_EXPORT_ALL=1 HOME='{self.root}' GIT_CONFIG_NOSYSTEM=1\n"
            "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'\n"
            "exec git http-backend\n")
        script.chmod(0o755)
        self._log = open(self.log_path, "w")
        self.process = subprocess.Popen([sys.executable, "-m", "http.server", "--cgi", "--bind", "127.0.0.1",
                                         str(self.port)], cwd=self.root, stdout=self._log, stderr=subprocess.STDOUT,
                                        env=clean_env(), stdin=subprocess.DEVNULL)
        wait_until(lambda: self._answers() or self.process.poll() is not None, timeout,
                   f"the git server on port {self.port}")
        if self.process.poll() is not None:
            raise AssertionError(f"the git server did not start:\n{self.log_path.read_text()[-2000:]}")
        return self

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def stop(self, timeout: float = 10) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=timeout)
        if self.process is not None:
            self._log.close()
        shutil.rmtree(self.root, ignore_errors=True)


# ------------------------------------------------------------------------------------------------ processes
@dataclass(frozen=True)
class Process:
    """One process of the hub's tree (:meth:`Hub.processes`)."""

    pid: int
    start: int          #: start time in clock ticks since boot (/proc/PID/stat field 22): tells a reused pid apart
    role: str           #: "hub", "proxy", "server" (a single-user server), "kernel" or "other" (git, a probe...)
    user: str | None    #: the hub user of a server or kernel (its server's JUPYTERHUB_USER)
    cmdline: tuple


def _stat(pid: int):
    """(parent pid, start time) of a process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return int(fields[1]), int(fields[19])


def _cmdline(pid: int) -> tuple:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return tuple(a.decode("utf-8", "replace") for a in handle.read().split(b"\0") if a)
    except OSError:
        return ()


def _environ_user(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            for item in handle.read().split(b"\0"):
                if item.startswith(b"JUPYTERHUB_USER="):
                    return item.split(b"=", 1)[1].decode()
    except OSError:
        pass
    return None


def process_tree(root_pid: int) -> list[tuple[int, int, int]]:
    """(pid, parent pid, start time) of ``root_pid`` and every descendant alive now, parents first."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            found = _stat(int(entry))
            if found:
                table[int(entry)] = found
    if root_pid not in table:
        return []
    children = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = [], [root_pid]
    while todo:
        pid = todo.pop(0)
        out.append((pid, table[pid][0], table[pid][1]))
        todo.extend(sorted(children.get(pid, [])))
    return out


def _alive(pid: int, start: int) -> bool:
    found = _stat(pid)
    return found is not None and found[1] == start and not _zombie(pid)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read().decode("utf-8", "replace")
        return text[text.rindex(")") + 2:].split()[0] in ("Z", "X")
    except OSError:
        return True


# ------------------------------------------------------------------------------------------------ the hub
class Hub:
    """JupyterHub on 127.0.0.1 with a generated configuration in ``scratch`` (started by :meth:`start`).

    Parameters
    ----------
    scratch : Path
        A new folder: configuration, sqlite database, cookie secret, pid files, ``homes/<user>`` (each user's home,
        where nbgitpuller clones), ``logs/hub.log`` and ``logs/<user>.log`` (each single-user server's output).
    env : HubEnvironment
        The Python that runs the single-user servers and kernels (:func:`hub_environment`).
    start_timeout, http_timeout : float
        The spawner's: seconds for a single-user server to start, and then to answer over HTTP.
    concurrent_spawn_limit : int
        How many servers may be starting at once (JupyterHub's default is 100).
    lab_settings : dict or None
        ``{"plugin/id": {settings}}`` written into a JupyterLab settings folder shared by every user
        (``JUPYTERLAB_SETTINGS_DIR``); None: JupyterLab's own folder in each home. The settings overrides of the
        environment (the course's "no news pop-up") apply either way.
    expose_app : bool
        ``--LabApp.expose_app_in_browser=True`` (``window.jupyterapp``, for a browser test).

    Attributes
    ----------
    url : str
        ``http://127.0.0.1:<proxy port>``: what learners open (the proxy).
    proxy_port, proxy_api_port, hub_port : int
    process : subprocess.Popen
        The hub (``python -m jupyterhub``); :meth:`processes` lists its whole tree.
    """

    def __init__(self, scratch: Path, env: HubEnvironment, *, start_timeout: float = 120, http_timeout: float = 90,
                 concurrent_spawn_limit: int = 100, lab_settings: dict | None = None, expose_app: bool = True):
        self.scratch = Path(scratch)
        self.env = env
        self.homes = self.scratch / "homes"
        self.logs = self.scratch / "logs"
        for folder in (self.homes, self.logs):
            folder.mkdir(parents=True, exist_ok=True)
        self.proxy_port, self.proxy_api_port, self.hub_port = free_port(), free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.proxy_port}"
        self.service_token = secrets.token_hex(24)
        self.log_path = self.logs / "hub.log"
        self.gitconfig = self.scratch / "learner.gitconfig"
        self.gitconfig.write_text("[user]\n\tuseConfigOnly = true\n[init]\n\tdefaultBranch = main\n"
                                  "[advice]\n\tdetachedHead = false\n")
        self.process = None
        self._known: dict[int, int] = {}  # pid -> start time of every process seen in the tree
        settings_dir = None
        if lab_settings is not None:
            settings_dir = self.scratch / "lab-settings"
            for plugin, values in lab_settings.items():
                package, _, name = plugin.rpartition("/")
                path = settings_dir / package / f"{name}.jupyterlab-settings"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(values))
        self.config_path = self.scratch / "jupyterhub_config.py"
        self.config_path.write_text(self._config(start_timeout, http_timeout, concurrent_spawn_limit, settings_dir,
                                                 expose_app))

    # -- configuration
    def learner_env(self) -> dict:
        """The environment a learner's server, kernels and terminals get (the spawner adds JUPYTERHUB_* and USER,
        HOME, SHELL): the hub environment's ``bin`` first on PATH, git without an identity (its configuration
        forbids guessing one) and without the machine's system configuration."""
        return {
            "PATH": os.pathsep.join([str(self.env.bin), "/usr/local/bin", "/usr/bin", "/bin"]),
            "GIT_CONFIG_GLOBAL": str(self.gitconfig),
            "GIT_CONFIG_NOSYSTEM": "1",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
        }

    def home(self, user: str) -> Path:
        return self.homes / user

    def server_log(self, user: str) -> Path:
        return self.logs / f"{user}.log"

    def _config(self, start_timeout, http_timeout, spawn_limit, settings_dir, expose_app) -> str:
        wrapper = self.scratch / "singleuser.sh"  # one log file per user; exec: the spawner's pid is the server's
        wrapper.write_text("#!/bin/sh\n"
                           f"exec '{self.env.python}' -m jupyterhub.singleuser \"$@\" "
                           f">>'{self.logs}'/\"$JUPYTERHUB_USER\".log 2>&1\n")
        wrapper.chmod(0o755)
        # The read-only extension manager: JupyterLab's default one searches PyPI (traffic beyond loopback).
        args = ["--LabApp.extension_manager=readonly"]
        if expose_app:
            args.append("--LabApp.expose_app_in_browser=True")
        if os.geteuid() == 0:
            args.append("--allow-root")
        environment = self.learner_env()
        if settings_dir is not None:
            environment["JUPYTERLAB_SETTINGS_DIR"] = str(settings_dir)
        roles = [{"name": "course-tests", "services": ["course-tests"],
                  "scopes": ["admin:users", "admin:servers", "tokens", "list:users", "read:users", "access:servers",
                             "read:servers"]}]
        settings = {
            "JupyterHub.ip": "127.0.0.1", "JupyterHub.port": self.proxy_port,
            "JupyterHub.hub_ip": "127.0.0.1", "JupyterHub.hub_port": self.hub_port,
            "JupyterHub.db_url": f"sqlite:///{self.scratch / 'jupyterhub.sqlite'}",
            "JupyterHub.cookie_secret_file": str(self.scratch / "jupyterhub_cookie_secret"),
            "JupyterHub.pid_file": str(self.scratch / "jupyterhub.pid"),
            "JupyterHub.cleanup_servers": True, "JupyterHub.cleanup_proxy": True,
            "JupyterHub.concurrent_spawn_limit": spawn_limit,
            "JupyterHub.authenticator_class": "dummy",
            "JupyterHub.spawner_class": "simple",
            "JupyterHub.services": [{"name": "course-tests", "api_token": self.service_token}],
            "JupyterHub.load_roles": roles,
            "ConfigurableHTTPProxy.command": [str(PROXY)],
            "ConfigurableHTTPProxy.api_url": f"http://127.0.0.1:{self.proxy_api_port}",
            "ConfigurableHTTPProxy.auth_token": secrets.token_hex(24),
            "ConfigurableHTTPProxy.pid_file": str(self.scratch / "proxy.pid"),
            "DummyAuthenticator.password": PASSWORD,
            "Authenticator.allow_all": True,
            "SimpleLocalProcessSpawner.home_dir_template": str(self.homes / "{username}"),
            "Spawner.cmd": [str(wrapper)],
            "Spawner.args": args,
            "Spawner.ip": "127.0.0.1",
            "Spawner.default_url": "/lab",
            "Spawner.environment": environment,
            "Spawner.start_timeout": int(start_timeout),
            "Spawner.http_timeout": int(http_timeout),
        }
        lines = ["# Generated by tests/hub_helpers.py for one run; loopback only.", "c = get_config()  # noqa"]
        lines += [f"c.{key} = {value!r}" for key, value in settings.items()]
        return "\n".join(lines) + "\n"

    # -- life
    def start(self, timeout: float = 60) -> "Hub":
        """Start the hub (which starts the proxy) and wait until its API answers through the proxy."""
        self._log = open(self.log_path, "w")
        self.process = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(self.config_path)],
                                        cwd=self.scratch, stdout=self._log, stderr=subprocess.STDOUT,
                                        env=clean_env(), stdin=subprocess.DEVNULL)

        def answers():
            if self.process.poll() is not None:
                raise AssertionError(f"JupyterHub exited ({self.process.returncode}) while starting:\n"
                                     f"{self.log_path.read_text()[-4000:]}")
            try:
                return self.api("GET", "")
            except (OSError, urllib.error.HTTPError):
                return None
        try:
            wait_until(answers, timeout, f"JupyterHub's API at {self.url}/hub/api/", every=0.2)
        except BaseException:
            self.stop()
            raise
        self.processes()  # remember the proxy's pid
        return self

    def api(self, method: str, path: str, body=None, token: str | None = None, timeout: float = 30):
        """A request to the hub's REST API (``/hub/api/<path>``) with the service token (or ``token``); its JSON."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.url}/hub/api/{path}", data=data, method=method, headers={
            "Authorization": f"token {token or self.service_token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read()
        return json.loads(text) if text else {}

    def user_token(self, user: str) -> str:
        """A new API token of ``user`` (the user is created if new): ``Authorization: token ...`` opens their server's
        REST API (``{url}/user/<user>/api/...``) and the hub's, without a browser."""
        try:
            self.api("POST", f"users/{user}")
        except urllib.error.HTTPError as error:
            if error.code != 409:  # 409: exists already
                raise
        return self.api("POST", f"users/{user}/tokens", {"note": "hub_helpers", "expires_in": 3600})["token"]

    def processes(self) -> list[Process]:
        """Every process of the hub's tree now (the hub, the proxy, each single-user server and kernel, and any
        short-lived helper such as git), for reading /proc/PID/status or /proc/PID/stat."""
        if self.process is None:
            return []
        tree = process_tree(self.process.pid)
        users, out = {}, []
        for pid, ppid, start in tree:
            self._known[pid] = start
            cmd = _cmdline(pid)
            text = " ".join(cmd)
            if pid == self.process.pid:
                role, user = "hub", None
            elif "configurable-http-proxy" in text:
                role, user = "proxy", None
            elif "jupyterhub.singleuser" in text:
                role, user = "server", _environ_user(pid)
            elif "ipykernel_launcher" in text:
                role, user = "kernel", users.get(ppid)
            else:
                role, user = "other", users.get(ppid)
            users[pid] = user
            out.append(Process(pid, start, role, user, cmd))
        return out

    def stop(self, timeout: float = 30) -> list[str]:
        """Stop the hub (it stops the proxy and every single-user server; their kernels go with them), then end
        whatever of its tree is still alive (TERM, then KILL), each step bounded. Returns what had to be ended
        by hand (for the report)."""
        if self.process is None:
            return []
        self.processes()  # remember the whole tree before it goes
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        forced = []
        left = [(pid, start) for pid, start in self._known.items() if _alive(pid, start)]
        for pid, _ in left:
            forced.append(" ".join(_cmdline(pid))[:120])
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
        deadline = time.monotonic() + 10
        while any(_alive(pid, start) for pid, start in left) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid, start in left:
            if _alive(pid, start):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        self._log.close()
        return forced
