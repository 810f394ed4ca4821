"""The course's commands without make: any Python 3.10 or newer, on Windows, macOS and Linux.

Run it from a terminal, in the course's folder or elsewhere (``py`` on Windows, ``python3`` elsewhere)::

    py course.py lab            # = make lab: the environment when missing, then the course in JupyterLab
    py course.py notebook7      # = make notebook7: the same in Notebook 7
    py course.py doctor         # = make doctor: checks this machine's setup, prints each fix
    py course.py update         # = make update: the course's latest version, your answers kept
    py course.py reset 01       # = make reset NB=01: notebook 01 afresh, your copy in backups/notebooks/
    py course.py notebooks      # = make notebooks: regenerate notebooks/ from solutions/
    py course.py test-mine      # = make test-mine: your own notebooks run as saved
    py course.py env            # = make env: the learner's environment (.venv, from the lock)
    py course.py env-dev        # = make env-dev: plus the maintainers' additions
    py course.py test           # = make test, less the JupyterHub test's proxy (npm): that test skips without it
    py course.py clean-env      # = make clean-env: remove .venv (and nothing else), to build it again

Each creates or updates the environment in ``.venv`` first, when it is missing or older than its lock, exactly as the
Makefile's target of the same name does: the Makefile calls this file for that (``install-learner``,
``install-dev``: one home for the environment's logic), and for starting JupyterLab and Notebook 7. The venv's
programs are ``.venv\\Scripts\\*.exe`` on Windows and ``.venv/bin/*`` elsewhere (tools/install_env.py's
``bin_dir``); every program runs from an argument list, never through a shell, and make is never needed.

Options of every command: ``--installer auto|uv|pip`` (make's ``INSTALLER``), ``--compile later|now`` (``COMPILE``),
``--venv DIR``. Any other argument goes to the program the command runs, in order (``--`` passes the rest as is)::

    py course.py lab --port=8890                # = make lab LAB_ARGS=--port=8890
    py course.py notebooks --force              # = make notebooks BUILD_ARGS=--force
    py course.py test-mine -x                   # = make test-mine PYTEST_ARGS=-x

Standard library only. Exit code: the command's own (1 when an installation failed, with its message).
"""
import sys

if sys.version_info < (3, 10):  # first: the whole file parses on Python 3.6 and newer
    sys.exit("The course needs Python 3.10 or newer; found {} ({}). Install a newer Python (python.org), then run "
             "this file with it: `py -3.12 course.py lab` on Windows, `python3.12 course.py lab` elsewhere{}."
             .format(sys.version.split()[0], sys.executable,
                     " (with make: `make PYTHON=python3.12 lab`)" if "MAKELEVEL" in __import__("os").environ else ""))

import argparse  # noqa: E402 - after the version check, on purpose
import importlib.util  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shlex  # noqa: E402
import subprocess  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent
TOOLS = ROOT / "tools"
FIRST_NOTEBOOK = Path("notebooks") / "00-before-you-start.ipynb"
INSTALL_SCRIPT = Path("tools") / "install_env.py"  # run in the course's folder, as make runs it
SETTINGS_SCRIPT = Path("tools") / "jupyter_settings.py"
#: What a learner types before a command, where the course runs without make (the tools' messages may name it:
#: it is in the environment of every program this file runs, as COURSE_LAUNCHER, unless make called this file).
LAUNCHER = "py course.py" if os.name == "nt" else "python3 course.py"


def _tool(name):
    """The standard-library-only script ``tools/<name>.py``, imported by its path (tools/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"course_tools_{name}", TOOLS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


install_env = _tool("install_env")  # the venv's layout (bin_dir, venv_python) and the installers
jupyter_settings = _tool("jupyter_settings")  # where the settings overrides go


class CommandFailed(Exception):
    """A step failed; ``code`` is the exit code to leave with (its program already said why)."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


# ---------------------------------------------------------------------------------------------
# The environment (make's $(STAMP), $(DEV_STAMP) and $(OVERRIDES) rules)
# ---------------------------------------------------------------------------------------------


def lock_name(version=None) -> str:
    """The learner's lock for a Python version: ``requirements-py310.lock`` on 3.10 (numpy 2.4 and IPython 9 need
    3.11), ``requirements.lock`` on 3.11 and newer.

    Parameters
    ----------
    version : tuple of int, optional
        ``sys.version_info`` of the Python that builds the environment (default: this one).
    """
    version = tuple(sys.version_info if version is None else version)
    return "requirements-py310.lock" if version[:2] == (3, 10) else "requirements.lock"


def dev_lock_name(lock: str) -> str:
    """The maintainers' additions that go on top of ``lock``: ``requirements.lock`` -> ``requirements-dev.lock``."""
    return lock.replace("requirements", "requirements-dev", 1)


def stamp(venv: Path, lock: str) -> Path:
    """The file that says ``lock`` was installed into ``venv`` completely (the doctor reads it too)."""
    return venv / f".installed-{lock}"


def stale(target: Path, *sources: Path) -> bool:
    """make's rule: ``target`` is remade when it is missing or a source is newer than it."""
    if not target.exists():
        return True
    built = target.stat().st_mtime
    return any(source.exists() and source.stat().st_mtime > built for source in sources)


def shown(path: Path) -> str:
    """``path`` for messages: relative to the course's folder when inside it (``.venv``), else as it is. Symlinks are
    not followed (``.venv/bin/python`` links to the Python that made the venv)."""
    path = Path(os.path.abspath(path))
    for root in (Path(os.path.abspath(__file__)).parent, ROOT):
        if path == root or root in path.parents:
            return str(path.relative_to(root))
    return str(path)


def _say(message: str) -> None:
    print(message, flush=True)


def _environ() -> dict:
    """The environment of the programs this file runs: COURSE_LAUNCHER says how the learner runs commands (make sets
    MAKELEVEL instead, and then the tools name make's targets, as without this file)."""
    environ = dict(os.environ)
    if "MAKELEVEL" not in environ:
        environ["COURSE_LAUNCHER"] = LAUNCHER
    return environ


def _call(command, echo=False) -> None:
    """Run ``command`` (an argument list, no shell) in the course's folder; CommandFailed with its exit code.

    A Ctrl-C reaches the program too (same console): this waits until it has finished its own way."""
    if echo:
        _say(_display(command))
    process = subprocess.Popen([str(part) for part in command], cwd=ROOT, env=_environ())
    while True:
        try:
            code = process.wait()
            break
        except KeyboardInterrupt:
            continue
    if code != 0:
        raise CommandFailed(code)


def _display(command) -> str:
    """A command as a line for the learner (paths inside the course relative to it, as make shows them; a relative
    path already is)."""
    parts = [shown(part) if isinstance(part, Path) and part.is_absolute() else str(part) for part in command]
    return subprocess.list2cmdline(parts) if os.name == "nt" else shlex.join(parts)


def _venv_arg(venv: Path) -> str:
    """``venv`` as tools/install_env.py gets it (run in the course's folder): ``.venv`` when inside the course."""
    return shown(venv)


def install_learner(venv: Path, installer=None, compile="later") -> None:
    """Install the learner's lock and course_utils (editable) into ``venv`` now, creating it when missing; then
    stamp it (make's ``$(STAMP)`` rule: ``make`` decides when, by the stamp's time; :func:`ensure_env` here).

    Every older stamp goes first (a reinstalled venv needs the maintainers' additions again)."""
    lock = lock_name()
    command = [sys.executable, INSTALL_SCRIPT, "--venv", _venv_arg(venv), "--compile", compile]
    command += ["--installer", installer] if installer else []
    _call(command + ["--editable", ".", lock])
    for old in venv.glob(".installed-*"):
        old.unlink()
    stamp(venv, lock).touch()
    _say(f"Environment ready in {shown(venv)} (from {lock}).")


def install_dev(venv: Path, installer=None) -> None:
    """Install the maintainers' additions (``requirements-dev.lock``) on top, now; then stamp them (make's
    ``$(DEV_STAMP)`` rule). Compiled while installing."""
    dev_lock = dev_lock_name(lock_name())
    command = [sys.executable, INSTALL_SCRIPT, "--venv", _venv_arg(venv)]
    command += ["--installer", installer] if installer else []
    _call(command + [dev_lock])
    stamp(venv, dev_lock).touch()
    _say(f"Maintainers' additions ready in {shown(venv)} (from {dev_lock}).")


def write_settings(venv: Path) -> None:
    """JupyterLab's and Notebook 7's settings overrides into ``venv``, by tools/jupyter_settings.py run with the
    venv's Python (make's ``$(OVERRIDES)`` rule; the command is shown, as make shows it)."""
    _call([install_env.venv_python(venv), SETTINGS_SCRIPT], echo=True)


def ensure_env(venv: Path, dev=False, settings=True, installer=None, compile="later", tell_up_to_date=False) -> None:
    """Bring ``venv`` up to date the way make's prerequisites do: the learner's lock when its stamp is missing or
    older than the lock or pyproject.toml, then (``dev``) the maintainers' additions when their stamp is missing or
    older than the learner's stamp or their lock, then (``settings``) the settings overrides when missing or older
    than the learner's stamp or tools/jupyter_settings.py. Nothing happens when all is up to date.

    Parameters
    ----------
    venv : Path
        The environment (``.venv`` in the course's folder by default).
    dev : bool
        Also the maintainers' additions (make's env-dev, test, test-mine).
    settings : bool
        Also the settings overrides (make's env, env-dev, lab, notebook7, test).
    installer : {None, "auto", "uv", "pip"}
        None: tools/install_env.py's default (COURSE_INSTALLER, else auto).
    compile : {"later", "now"}
        When the learner's lock is compiled to bytecode (make's COMPILE).
    tell_up_to_date : bool
        Say so in one line when there was nothing to do (``env``, ``env-dev``).

    Raises
    ------
    CommandFailed
        An installation failed (its message is printed above).
    """
    lock = lock_name()
    done = False
    if stale(stamp(venv, lock), ROOT / lock, ROOT / "pyproject.toml"):
        install_learner(venv, installer, compile)
        done = True
    if dev:
        dev_lock = dev_lock_name(lock)
        if stale(stamp(venv, dev_lock), stamp(venv, lock), ROOT / dev_lock):
            install_dev(venv, installer)
            done = True
    if settings and stale(jupyter_settings.overrides_path(venv), stamp(venv, lock), ROOT / SETTINGS_SCRIPT):
        write_settings(venv)
        done = True
    if tell_up_to_date and not done:
        what = f"{lock} + {dev_lock_name(lock)}" if dev else lock
        _say(f"The environment in {shown(venv)} is up to date ({what}).")


def compile_pending(venv: Path) -> None:
    """Start the background bytecode compilation again when an earlier one was stopped before it finished (make
    lab's COMPILE_PENDING): tools/install_env.py --compile-in-background, when <venv>/.bytecode-pending exists."""
    if (venv / install_env.PENDING).exists():
        _call([sys.executable, INSTALL_SCRIPT, "--venv", _venv_arg(venv), "--compile-in-background"])


# ---------------------------------------------------------------------------------------------
# JupyterLab and Notebook 7
# ---------------------------------------------------------------------------------------------


_THIS_MACHINE = object()


def browser_flags(environ=None, platform=None, euid=_THIS_MACHINE) -> list:
    """The flags make lab adds: ``--no-browser`` on Linux without a display (a server, a container, CI: Windows and
    macOS always have one), ``--allow-root`` as root (containers, WSL: JupyterLab refuses root otherwise).

    Parameters
    ----------
    environ : mapping, optional
        The environment variables (default: ``os.environ``); DISPLAY or WAYLAND_DISPLAY mean a display.
    platform : str, optional
        ``sys.platform`` (default: this machine's).
    euid : int or None, optional
        The effective user id, None where there is none (Windows); default: this process's.
    """
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if euid is _THIS_MACHINE:
        euid = os.geteuid() if hasattr(os, "geteuid") else None
    flags = []
    if platform not in ("win32", "darwin") and not (environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")):
        flags.append("--no-browser")
    if euid == 0:
        flags.append("--allow-root")
    return flags


FRONTENDS = {"lab": "lab", "notebook7": "notebook"}  # command -> `jupyter <subcommand>`


def jupyter_command(frontend: str, venv: Path, extra=(), flags=None, os_name=None) -> list:
    """The command that opens the course: the venv's ``jupyter lab`` (or ``notebook``), :func:`browser_flags` not
    already in ``extra``, the course's folder as the root, ``extra``, then the first notebook.

    Parameters
    ----------
    frontend : {"lab", "notebook"}
    venv : Path or PurePath
    extra : sequence of str
        The learner's own arguments (make's LAB_ARGS), e.g. ``--port=8890``.
    flags : list of str, optional
        Default: :func:`browser_flags`.
    os_name : str, optional
        ``os.name`` of the machine (default: this one's): ``"nt"`` gives ``<venv>\\Scripts\\jupyter.exe``.
    """
    flags = browser_flags() if flags is None else flags
    jupyter = install_env.venv_program(venv, "jupyter", os_name)
    return ([jupyter, frontend] + [flag for flag in flags if flag not in extra]
            + [f"--ServerApp.root_dir={ROOT}"] + list(extra) + [FIRST_NOTEBOOK])


def running_servers(venv: Path) -> list:
    """The Jupyter servers (JupyterLab or Notebook 7) already serving this course folder, as (pid, url) pairs, from
    ``jupyter server list --json`` of the venv (it reads the servers' runtime files and skips those whose process
    has ended); empty when none runs or the list cannot be read."""
    jupyter = install_env.venv_program(venv.resolve(), "jupyter")
    try:
        listed = subprocess.run([str(jupyter), "server", "list", "--json"], capture_output=True, text=True,
                                timeout=60, env=_environ())
    except (OSError, subprocess.SubprocessError):
        return []
    found = []
    for line in listed.stdout.splitlines():
        try:
            server = json.loads(line)
            if Path(server["root_dir"]).resolve() == ROOT:
                found.append((server["pid"], f"{server['url']}?token={server.get('token', '')}"))
        except (ValueError, KeyError, TypeError, OSError):
            continue
    return found


def open_course(frontend: str, venv: Path, extra) -> int:
    """Start JupyterLab or Notebook 7 in the course's folder, shown first as make shows it. On Linux and macOS this
    process becomes the server (exec: Ctrl-C, signals and the exit code are the server's own); on Windows it
    waits for the server."""
    running = running_servers(venv)
    if running:
        pid, url = running[0]
        _say(f"A Jupyter server is already running for this course folder (process {pid}): open {url}\n"
             "A second one would save the same notebooks over the first one's. To start afresh, stop that one first "
             f"(Ctrl-C twice in its terminal, or `kill {pid}`), then run this again.")
        return 1
    compile_pending(venv)
    command = jupyter_command(frontend, venv, extra)
    _say(_display(command))
    program = [str(install_env.venv_program(venv.resolve(), "jupyter"))] + [str(part) for part in command[1:]]
    if os.name == "nt":
        try:
            _call(program)
        except CommandFailed as failed:
            return failed.code
        return 0
    os.chdir(ROOT)
    os.execve(program[0], program, _environ())
    return 1  # not reached


# ---------------------------------------------------------------------------------------------
# The commands
# ---------------------------------------------------------------------------------------------


def _module(venv: Path, module: str, args) -> int:
    """The venv's Python runs ``-m module args`` in the course's folder; its exit code."""
    return _script(venv, "-m", module, args)


def _script(venv: Path, *program_and_args) -> int:
    """The venv's Python runs ``program_and_args`` (a tool's path, or ``-m`` and a module, then the last item: its
    arguments) in the course's folder; its exit code."""
    *program, args = program_and_args
    try:
        _call([install_env.venv_python(venv.resolve()), *program] + list(args))
    except CommandFailed as failed:
        return failed.code
    return 0


def cmd_env(opts, extra):
    ensure_env(opts.venv, installer=opts.installer, compile=opts.compile, tell_up_to_date=True)
    return 0


def cmd_env_dev(opts, extra):
    ensure_env(opts.venv, dev=True, installer=opts.installer, compile=opts.compile, tell_up_to_date=True)
    return 0


def cmd_lab(opts, extra):
    ensure_env(opts.venv, installer=opts.installer, compile=opts.compile)
    return open_course(FRONTENDS[opts.command], opts.venv, extra)


def cmd_doctor(opts, extra):
    ensure_env(opts.venv, settings=False, installer=opts.installer, compile=opts.compile)
    return _script(opts.venv, TOOLS / "doctor.py", extra)


def cmd_notebooks(opts, extra):
    ensure_env(opts.venv, settings=False, installer=opts.installer, compile=opts.compile)
    return _script(opts.venv, TOOLS / "build.py", extra)


def cmd_reset(opts, extra):
    ensure_env(opts.venv, settings=False, installer=opts.installer, compile=opts.compile)
    return _script(opts.venv, TOOLS / "reset.py", extra)


def cmd_update(opts, extra):
    """The update tool (with the environment first when there is none), then the environment brought up to date:
    the course may have changed its lock (make update)."""
    if not install_env.venv_python(opts.venv).exists():
        ensure_env(opts.venv, installer=opts.installer, compile=opts.compile)
    code = _script(opts.venv, TOOLS / "update.py", extra)
    if code == 0:
        ensure_env(opts.venv, installer=opts.installer, compile=opts.compile)
    return code


def cmd_test_mine(opts, extra):
    ensure_env(opts.venv, dev=True, settings=False, installer=opts.installer, compile=opts.compile)
    return _module(opts.venv, "pytest", ["--mine", "notebooks"] + list(extra))


def cmd_html(opts, extra):
    ensure_env(opts.venv, dev=True, settings=False, installer=opts.installer, compile=opts.compile)
    return _script(opts.venv, TOOLS / "html_pages.py", extra)


HUB_PROXY = Path("tests") / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"


def cmd_test(opts, extra):
    ensure_env(opts.venv, dev=True, installer=opts.installer, compile=opts.compile)
    if not (ROOT / HUB_PROXY).exists():
        _say(f"No {HUB_PROXY.as_posix()}: the JupyterHub test will be skipped (make test installs it with npm).")
    code = _module(opts.venv, "ruff", ["check", "."])
    return code or _module(opts.venv, "pytest", extra)


def cmd_clean_env(opts, extra):
    """tools/clean_env.py (standard library only: the environment may be broken) with this Python."""
    try:
        _call([sys.executable, TOOLS / "clean_env.py", opts.venv])
    except CommandFailed as failed:
        return failed.code
    return 0


def cmd_install_learner(opts, extra):
    install_learner(opts.venv, opts.installer, opts.compile)
    return 0


def cmd_install_dev(opts, extra):
    install_dev(opts.venv, opts.installer)
    return 0


def cmd_lock_name(opts, extra):
    print(lock_name())
    return 0


#: command -> (function, what it does, whether it passes other arguments on). The last three are make's steps.
COMMANDS = {
    "lab": (cmd_lab, "the environment when missing, then the course in JupyterLab (make lab)", True),
    "notebook7": (cmd_lab, "the same in Notebook 7 (make notebook7)", True),
    "doctor": (cmd_doctor, "check this machine's setup; prints each problem with its fix (make doctor)", True),
    "update": (cmd_update, "the course's latest version, your answers kept, then the environment (make update)",
               True),
    "reset": (cmd_reset, "reset 01 [03 ...]: a notebook afresh, your copy kept in backups/notebooks/ (make reset NB=01)",
              True),
    "notebooks": (cmd_notebooks, "regenerate notebooks/ from solutions/ (make notebooks)", True),
    "test-mine": (cmd_test_mine, "run your own notebooks as you saved them (make test-mine)", True),
    "html": (cmd_html, "the solved notebooks as offline HTML pages in build/html/ (make html)", True),
    "env": (cmd_env, "create or update the learner's environment in .venv (make env)", False),
    "env-dev": (cmd_env_dev, "the same plus the maintainers' additions (make env-dev)", False),
    "test": (cmd_test, "ruff, then every test and notebook (make test; no JupyterHub proxy)", True),
    "clean-env": (cmd_clean_env, "remove .venv, and nothing else (make clean-env)", False),
    "install-learner": (cmd_install_learner, None, False),
    "install-dev": (cmd_install_dev, None, False),
    "lock-name": (cmd_lock_name, None, False),
}
#: This file's own options (each takes a value); any other argument goes to the program a command runs.
OWN_OPTIONS = ("--venv", "--installer", "--compile")


def split_arguments(args):
    """``(own, passed_on)``: this file's options (:data:`OWN_OPTIONS`, ``-h``), and the rest in order (all of it
    after ``--``)."""
    own, passed = [], []
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            passed.extend(rest)
            break
        if arg.split("=", 1)[0] in OWN_OPTIONS:
            own.append(arg)
            value = None if "=" in arg else next(rest, None)
            own += [] if value is None else [value]
        elif arg in ("-h", "--help"):
            own.append(arg)
        else:
            passed.append(arg)
    return own, passed


def _parser() -> argparse.ArgumentParser:
    public = [name for name, (_, about, _) in COMMANDS.items() if about]
    parser = argparse.ArgumentParser(
        prog=LAUNCHER, allow_abbrev=False,
        usage="%(prog)s COMMAND [--venv DIR] [--installer auto|uv|pip] [--compile later|now] [ARGUMENTS ...]",
        description=__doc__.splitlines()[0],
        epilog="Commands:\n" + "\n".join(f"  {name:<10} {COMMANDS[name][1]}" for name in public)
        + "\n\nAny other argument goes to the program the command runs (e.g. `lab --port=8890`).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", metavar="COMMAND", choices=list(COMMANDS), help=", ".join(public))
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv", help="the environment (default: .venv here)")
    parser.add_argument("--installer", choices=["auto", "uv", "pip"], default=None,
                        help="uv when it can be had, else pip (auto, the default: COURSE_INSTALLER), or one of them")
    parser.add_argument("--compile", choices=["later", "now"], default="later",
                        help="the learner's lock's bytecode: in the background after installing (later) or now")
    return parser


def main(argv=None) -> int:
    """Run one command; its exit code (2: a command or option this file does not know)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = _parser()
    public = ", ".join(name for name, (_, about, _) in COMMANDS.items() if about)
    if not argv or argv[0].startswith("-"):
        if "-h" in argv or "--help" in argv:
            parser.print_help()
            return 0
        parser.error(f"name a command first: {public}")
    if argv[0] not in COMMANDS:
        parser.error(f"no command {argv[0]!r}; the commands: {public}")
    own, passed = split_arguments(argv[1:])
    opts = parser.parse_args([argv[0]] + own)
    opts.venv = opts.venv.absolute()  # a --venv relative to where it was typed (make: the course's folder)
    run, _, passes_on = COMMANDS[opts.command]
    if passed and not passes_on:
        parser.error(f"`{opts.command}` takes no other arguments; got {' '.join(passed)}")
    try:
        return run(opts, passed)
    except CommandFailed as failed:
        return failed.code
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
