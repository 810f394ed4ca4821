"""A real JupyterHub on loopback, five learners in headless Chromium, and what docs/instructor-guide.md promises
("JupyterHub with nbgitpuller"): one click, then Run All works; a learner's answers survive the course's changes;
a change the merge drops comes back with ``python tools/update.py``.

Set up once for the module (tests/hub_helpers.py, everything bound to 127.0.0.1 and stopped at the end, even on
failure, each wait bounded):

- the course as a hub clones it: this checkout's history plus, when the work tree differs from HEAD, one commit of
  its tracked files as they are, in a bare repository served over git's smart HTTP (``git http-backend`` under
  ``python -m http.server --cgi``); nbgitpuller clones it shallow, as from GitHub;
- the hub's environment: the course's ``.venv`` (learner lock + maintainers' lock, which holds jupyterhub and
  nbgitpuller) *without* its editable install of course_utils. ``.venv`` has course_utils installed editable from
  this checkout, which would let every notebook import course_utils whatever the learner's clone holds, and hide a
  notebook that cannot find it there (the old guide's order: before a ``pip install -e .`` in a terminal, notebook
  00's first cell raised ModuleNotFoundError). So the single-user servers and their kernels run a venv of their own
  whose site-packages links every package of ``.venv`` but course_utils's dist-info and editable hook
  (:func:`hub_helpers.hub_environment`, which checks that ``import course_utils`` fails in it). No learner runs pip:
  a notebook finds course_utils in the clone (its setup cell puts the course folder first on sys.path), or fails;
- JupyterHub 6 with configurable-http-proxy from npm (tests/hub/package-lock.json), DummyAuthenticator (a shared
  password) and SimpleLocalProcessSpawner (a home per learner in the scratch folder); JupyterLab renders every cell
  (a settings folder with ``windowingMode: none`` only; the environment's news pop-up setting applies as it is).

Then, in one Chromium with a browser context per learner (at most :data:`AT_ONCE` at a time on this 2-core machine):

1. each learner opens the link of :func:`tools/hub_link.py`'s ``hub_link`` (what ``make hub-link`` prints):
   login page, spawn, nbgitpuller's clone, JupyterLab on notebook 00. Run All of 00 (no error output, every code
   cell ran, "All set" printed), then of 01 (no error output); answers exercises 1 and 2 (``nb01-ex1``, the stable
   softmax, and ``nb01-ex2``: each placeholder replaced by a correct answer), runs them and their check cells
   ("correct"), saves;
2. the course pushes one commit, made as the guide tells maintainers to ship fixes or warns against: (a) a line of
   01's title cell (markdown, no learner edits it), (b) the line just above the placeholder of ``nb01-ex1`` (the
   cell the learners answered: a line next to theirs, so git's merge sees a conflict), (c) the message of every
   checker that passes (course_utils/checks/_framework.py);
3. each learner clicks the link again, then reopens 01: its kernel is the one still running from step 1 (its check
   cell re-run shows whether (c) reached it without a restart: reported, not asserted), then it restarts the kernel
   and runs all (a fresh kernel must show (c));
4. each learner runs ``python tools/update.py`` in their clone as a hub terminal would (the hub
   environment's Python, their HOME, no git identity): (b) arrives, their answer to exercise 1 is kept in backups/,
   their answer to exercise 2 is back in its cell, and the report's line for 01 says "answers carried over" and
   names the cell "which the course changed".

The tests then check each promise, per learner. A hub that cannot start, a learner stuck on a page (the error names
what was awaited, the page's address and text) or an error output in 00 or 01 fails. Artifacts in
test-artifacts/hub/: ``timings.txt`` (every run), and on failure the hub's log, each single-user server's log, the
git server's log and a screenshot of each learner's page where a step failed.

Needs Debian's chromium and playwright (as tests/test_browser.py), jupyterhub and nbgitpuller (requirements-dev.lock),
node and ``npm ci --prefix tests/hub`` (make test runs it when npm is on PATH). Without them the module is skipped
with a message, unless COURSE_REQUIRE_HUB=1 (set by .ci/run), where it fails.
"""
from __future__ import annotations

import asyncio
import json
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import hub_helpers as H  # tests/hub_helpers.py
import pytest
from browser_helpers import POLL_MS  # tests/browser_helpers.py
from test_browser import CHROMIUM, CHROMIUM_ARGS, _missing_browser_reason, skip_or_fail

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts" / "hub"
LEARNERS = [f"learner{n}" for n in range(1, 6)]
#: How many learners the browser drives at the same time (2 cores: more only queue for the CPU).
AT_ONCE = 3
COURSE = "self-attention-hands-on"  #: the served repository's name, so the clone's folder (hub_link's targetpath)
NB00 = "notebooks/00-before-you-start.ipynb"
NB01 = "notebooks/01-one-attention-row.ipynb"
EXERCISE, CHECK = "nb01-ex1", "nb01-ex1-check"  #: the exercise whose cell the course changes (b)
OTHER, OTHER_CHECK = "nb01-ex2", "nb01-ex2-check"  #: an exercise the course leaves alone
PLACEHOLDER = "    # YOUR CODE HERE\n    raise NotImplementedError()"
#: What the course's changes (a), (b) and (c) of step 2 append to the line each changes.
MARK_A, MARK_B, MARK_C = "[workshop fix a]", "[workshop fix b]", "[workshop fix c]"
FRAMEWORK = "course_utils/checks/_framework.py"  #: change (c): the message every passing checker prints
CHECKER_MESSAGE = 'f"Correct: all {total} cases passed."'
#: Seconds for each wait (2 cores, up to AT_ONCE learners at once, maybe beside the rest of `make test`).
FIRST_OPEN_S = 240  # login, spawn, clone, JupyterLab with notebook 00 and its kernel ready
RUN_ALL_S = 240
STEP_S = 90  # opening a notebook, a kernel restart, running a cell, a save
UPDATE_S = 120
LEARNER_STEP_S = 600  # one learner's whole step (a click and what follows it), whatever its waits add up to


def answer(learner: str, exercise: str = EXERCISE) -> str:
    """The learner's correct answer to exercise 1 (a stable softmax) or 2 (one attention row), marked with their name."""
    if exercise == EXERCISE:
        return (f"    # {learner}'s answer\n"
                "    e = np.exp(x - x.max(axis=-1, keepdims=True))\n"
                "    return e / e.sum(axis=-1, keepdims=True)")
    return (f"    # {learner}'s answer\n"
            "    weights = np.exp(scores - scores.max())\n"
            "    weights = weights / weights.sum()\n"
            "    return weights @ values, weights")


# ------------------------------------------------------------------------------------------------ skip or fail
def _missing_reason() -> str | None:
    return _missing_browser_reason() or H.missing()


def _skip_or_fail_without_a_hub():
    skip_or_fail(_missing_reason(), "hub test", "COURSE_REQUIRE_HUB")


# ------------------------------------------------------------------------------------------------ in the page
_NOTEBOOK_SHOWN = """(name) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    return !!w && !!w.context && w.context.path.endsWith(name) && w.content.widgets.length > 0; }"""
#: After a click on the link: the notebook shown, or the text of an error page on the way (nbgitpuller's, the hub's).
_LINK_LANDED = """(name) => {
    const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    if (!!w && !!w.context && w.context.path.endsWith(name) && w.content.widgets.length > 0) { return 'shown'; }
    const text = document.body ? document.body.innerText : '';
    const failed = (location.pathname.includes('/git-pull') && text.includes('Error:')) || text.includes('Spawn failed');
    return failed ? 'error page: ' + text.replace(/\\s+/g, ' ').slice(0, 600) : false; }"""
_KERNEL_IDLE = """() => {
    const widget = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const kernel = widget && widget.sessionContext && widget.sessionContext.session && widget.sessionContext.session.kernel;
    return !!kernel && kernel.connectionStatus === 'connected' && kernel.status === 'idle'; }"""
_CODE_CELLS = """() => window.jupyterapp.shell.currentWidget.content.widgets
    .filter(cell => cell.model.type === 'code')
    .map(cell => ({id: cell.model.id, count: cell.model.executionCount, outputs: cell.model.outputs.toJSON()}))"""
_RUN_ALL = "async () => await window.jupyterapp.commands.execute('notebook:run-all-cells')"
_RUN_CELLS = """async (ids) => {
    const notebook = window.jupyterapp.shell.currentWidget.content;
    for (const id of ids) {
        const index = notebook.widgets.findIndex(cell => cell.model.id === id);
        if (index < 0) { return `no cell ${id}`; }
        notebook.activeCellIndex = index;
        notebook.deselectAll();
        await window.jupyterapp.commands.execute('notebook:run-cell');
    }
    return null; }"""
_SET_SOURCE = """([id, old, replacement]) => {
    const cell = window.jupyterapp.shell.currentWidget.content.widgets.find(cell => cell.model.id === id);
    if (!cell) { return `no cell ${id}`; }
    const source = cell.model.sharedModel.getSource();
    if (!source.includes(old)) { return `cell ${id} has no placeholder: ${JSON.stringify(source)}`; }
    cell.model.sharedModel.setSource(source.replace(old, replacement));
    return null; }"""
_SAVE = """async () => { const widget = window.jupyterapp.shell.currentWidget;
    await window.jupyterapp.commands.execute('docmanager:save'); return widget.context.model.dirty; }"""
_OPEN_IN_PLACE = """async (path) => {
    const app = window.jupyterapp;
    for (const widget of [...app.shell.widgets('main')]) {
        if (widget.context && widget.context.path === path) { continue; }  // its kernel (if running) stays
        if (widget.sessionContext) { widget.context.model.dirty = false; await widget.sessionContext.shutdown(); }
        widget.dispose();
    }
    await app.commands.execute('docmanager:open', {path}); }"""
_RESTART = "async () => { await window.jupyterapp.shell.currentWidget.sessionContext.restartKernel(); }"
_KERNEL_ID = "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.id"


def output_text(output: dict) -> str:
    """The text a learner reads in one output (stream text, text/plain, or an error's name and value)."""
    if output.get("output_type") == "error":
        return f"{output.get('ename')}: {output.get('evalue')}"
    text = output.get("text") if output.get("output_type") == "stream" else output.get("data", {}).get("text/plain", "")
    return "".join(text) if isinstance(text, list) else (text or "")


def errors_in(cells: list) -> list[str]:
    """``cell id: ename: evalue`` of every error output."""
    return [f"{cell['id']}: {output_text(o)}" for cell in cells for o in cell["outputs"] if o.get("output_type") == "error"]


def cell_text(cells: list, cell_id: str) -> str:
    return "".join(output_text(o) for cell in cells if cell["id"] == cell_id for o in cell["outputs"])


def check_status(cells: list, cell_id: str) -> str | None:
    """The status a checker's output shows (its HTML carries ``data-check-status``), or None."""
    for cell in cells:
        for output in cell["outputs"] if cell["id"] == cell_id else []:
            html = output.get("data", {}).get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            if 'data-check-status="' in html:
                return html.split('data-check-status="', 1)[1].split('"', 1)[0]
    return None


def notebook_cells(path: Path) -> dict:
    """Cell id -> source of a notebook file."""
    return {c["id"]: "".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]}


@dataclass
class Learner:
    """One learner: their browser page and what each step saw."""

    name: str
    page: object = None
    seconds: dict = field(default_factory=dict)    #: step -> seconds
    laps: dict = field(default_factory=dict)       #: part of a step -> seconds (:meth:`lap`)
    errors: dict = field(default_factory=dict)     #: step -> what went wrong (a timeout, a missing cell)
    seen: dict = field(default_factory=dict)       #: what the steps recorded, for the tests

    async def wait(self, what: str, js: str, arg=None, timeout_s: float = STEP_S):
        """Wait (polling every POLL_MS) until ``js`` is true in the page; AssertionError naming ``what`` and where the
        page is."""
        try:
            return await self.page.wait_for_function(js, arg=arg, timeout=timeout_s * 1000, polling=POLL_MS)
        except Exception as error:  # playwright's TimeoutError, or the page navigated away
            raise AssertionError(f"{self.name}: no {what} within {timeout_s:.0f} s ({type(error).__name__}); "
                                 f"{await self.where()}") from None

    async def run_js(self, what: str, js: str, arg=None, timeout_s: float = STEP_S):
        """``page.evaluate`` bounded in time (Playwright's waits for the page's promise without a limit)."""
        try:
            return await asyncio.wait_for(self.page.evaluate(js, arg), timeout_s)
        except asyncio.TimeoutError:
            raise AssertionError(f"{self.name}: {what} did not finish within {timeout_s:.0f} s; "
                                 f"{await self.where()}") from None

    async def where(self) -> str:
        try:
            text = " ".join((await asyncio.wait_for(self.page.inner_text("body"), 10)).split())[:600]
        except Exception:  # noqa: BLE001 - the page is gone or busy: the address alone
            text = "?"
        return f"page at {self.page.url}: {text!r}"

    async def notebook_ready(self, name: str, what: str, timeout_s: float = STEP_S, after_link=False):
        """Wait until notebook ``name`` is shown with an idle kernel (``after_link``: fail at once on an error page
        of nbgitpuller or of the hub on the way)."""
        if after_link:
            landed = await (await self.wait(what, _LINK_LANDED, Path(name).name, timeout_s)).json_value()
            assert landed == "shown", f"{self.name}: {what}: {landed}"
        else:
            await self.wait(what, _NOTEBOOK_SHOWN, Path(name).name, timeout_s)
        await self.wait(f"idle kernel of {Path(name).name}", _KERNEL_IDLE, timeout_s=timeout_s)

    async def run_all(self, name: str) -> list:
        """Run All in the notebook shown; its code cells (id, execution count, outputs) once the kernel is idle."""
        await self.run_js(f"Run All of {name}", _RUN_ALL, timeout_s=RUN_ALL_S)
        await self.wait(f"idle kernel after Run All of {name}", _KERNEL_IDLE, timeout_s=RUN_ALL_S)
        return await self.run_js("reading the outputs", _CODE_CELLS)

    async def run_cells(self, ids: list) -> list:
        problem = await self.run_js(f"running cells {ids}", _RUN_CELLS, ids)
        assert problem is None, f"{self.name}: {problem}"
        await self.wait(f"idle kernel after running {ids}", _KERNEL_IDLE)
        return await self.run_js("reading the outputs", _CODE_CELLS)

    def lap(self, part: str) -> None:
        """The time since the step began or since the last lap, as ``part``'s."""
        now = time.monotonic()
        self.laps[part] = round(now - self._last, 1)
        self._last = now

    async def step(self, name: str, work) -> None:
        """Run ``work()`` as step ``name``: its time, and any failure recorded (with a screenshot), not raised."""
        started = self._last = time.monotonic()
        try:
            try:
                await asyncio.wait_for(work(), LEARNER_STEP_S)
            except asyncio.TimeoutError:
                raise AssertionError(f"{self.name}: the step took more than {LEARNER_STEP_S} s; {await self.where()}"
                                     ) from None
        except Exception as error:  # noqa: BLE001 - reported by the test of that step
            self.errors[name] = f"{type(error).__name__}: {error}"
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            try:
                await asyncio.wait_for(self.page.screenshot(path=str(ARTIFACTS / f"{self.name}-{name}.png")), 20)
            except Exception:  # noqa: BLE001 - no screenshot, the error stays
                pass
        finally:
            self.seconds[name] = round(time.monotonic() - started, 1)


# ------------------------------------------------------------------------------------------------ the workshop
class Workshop:
    """Everything of the module: the git server, the hub, the learners, the course's changes; :meth:`run` plays the
    four steps of the module's docstring; each learner's observations are in ``learners``."""

    def __init__(self, scratch: Path):
        self.scratch = scratch
        self.seconds: dict = {}
        self.learners = {name: Learner(name) for name in LEARNERS}
        self.git = self.hub = None
        self.served: dict = {}
        self.hidden: tuple = ()
        self.course_head = None
        self.processes: list = []
        self.forced: list = []

    def clone(self, learner: str) -> Path:
        return self.hub.home(learner) / COURSE

    def timed(self, name: str, started: float) -> None:
        self.seconds[name] = round(time.monotonic() - started, 1)

    # -- set-up
    def start(self) -> None:
        started = time.monotonic()
        env = H.hub_environment(self.scratch / "hub-env")
        self.hidden = env.hidden
        self.git = H.GitServer(self.scratch / "git").start()
        self.served = H.serve_course(self.git.repository(COURSE), self.scratch / "serve")
        self.hub = H.Hub(self.scratch / "hub", env, start_timeout=FIRST_OPEN_S, http_timeout=FIRST_OPEN_S - 30,
                         lab_settings={"@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"}}).start()
        from hub_link import hub_link

        self.link = hub_link(self.hub.url, self.git.url(COURSE))
        self.timed("start (environment, course, git server, hub)", started)

    def stop(self) -> None:
        started = time.monotonic()
        try:
            if self.hub is not None:
                self.forced = self.hub.stop()
        finally:
            if self.git is not None:
                self.git.stop()
        self.timed("stop", started)

    # -- step 1
    async def first_click(self, learner: Learner) -> None:
        page = learner.page
        await page.goto(self.link, timeout=STEP_S * 1000)
        await page.fill("input[name=username]", learner.name, timeout=STEP_S * 1000)
        await page.fill("input[name=password]", H.PASSWORD)
        await page.click("[type=submit]")
        await learner.notebook_ready(NB00, "JupyterLab with notebook 00 after login, spawn and clone", FIRST_OPEN_S,
                                     after_link=True)
        learner.lap("link to 00 shown (login, spawn, clone, JupyterLab)")
        learner.seen["00"] = await learner.run_all(NB00)
        learner.lap("Run All 00")
        await learner.run_js("opening notebook 01", _OPEN_IN_PLACE, f"{COURSE}/{NB01}")
        await learner.notebook_ready(NB01, "notebook 01")
        learner.seen["01"] = await learner.run_all(NB01)
        learner.lap("open 01 (new kernel) and Run All 01")
        learner.seen["first kernel"] = await learner.run_js("the kernel's id", _KERNEL_ID)
        for exercise in (EXERCISE, OTHER):
            problem = await learner.run_js(f"answering {exercise}", _SET_SOURCE,
                                           [exercise, PLACEHOLDER, answer(learner.name, exercise)])
            assert problem is None, f"{learner.name}: {problem}"
        learner.seen["answered"] = await learner.run_cells([EXERCISE, CHECK, OTHER, OTHER_CHECK])
        dirty = await learner.run_js("saving notebook 01", _SAVE)
        assert dirty is False, f"{learner.name}: notebook 01 is still unsaved after File > Save"
        learner.seen["saved"] = notebook_cells(self.clone(learner.name) / NB01)
        learner.lap("answer 2 exercises, run them and their checks, save")

    # -- step 2
    def push_course_changes(self) -> None:
        """The maintainers' commit of step 2, pushed to the served repository (a clone with a git identity)."""
        work = self.scratch / "maintainers"
        env = H.clean_env(GIT_CONFIG_NOSYSTEM="1", HOME=str(self.scratch), **H.MAINTAINER)
        H.run(["git", "clone", "--quiet", self.git.repository(COURSE), work], env=env)
        for folder in ("notebooks", "solutions"):
            path = work / folder / Path(NB01).name
            replace_line(path, "nb01-title", None, MARK_A, required=folder == "notebooks")
            replace_line(path, EXERCISE, "    # YOUR CODE HERE" if folder == "notebooks" else "    ### BEGIN SOLUTION",
                         MARK_B, required=folder == "notebooks", before=True)
        framework = work / FRAMEWORK
        text = framework.read_text(encoding="utf-8")
        assert text.count(CHECKER_MESSAGE) == 1, (
            f"{framework.relative_to(work)} no longer holds {CHECKER_MESSAGE} once: change (c) of tests/test_hub.py "
            "needs another message a passing checker prints")
        framework.write_text(text.replace(CHECKER_MESSAGE, CHECKER_MESSAGE[:-2] + f' {MARK_C}"'), encoding="utf-8")
        H.run(["git", "commit", "--quiet", "-am", "Fixes during the workshop (tests/test_hub.py)"], cwd=work, env=env)
        H.run(["git", "push", "--quiet", "origin", "HEAD:main"], cwd=work, env=env)
        self.course_head = H.run(["git", "rev-parse", "HEAD"], cwd=work, env=env).stdout.strip()
        self.course_01 = notebook_cells(work / NB01)

    # -- step 3
    async def second_click(self, learner: Learner) -> None:
        await learner.page.goto(self.link, timeout=STEP_S * 1000)
        await learner.notebook_ready(NB00, "JupyterLab with notebook 00 after the second click", FIRST_OPEN_S,
                                     after_link=True)
        learner.lap("second click to 00 shown (pull, JupyterLab)")
        learner.seen["pulled"] = notebook_cells(self.clone(learner.name) / NB01)
        learner.seen["pulled framework"] = (self.clone(learner.name) / FRAMEWORK).read_text(encoding="utf-8")
        learner.seen["pulled log"] = H.run(["git", "log", "--format=%s", "-4"], cwd=self.clone(learner.name)).stdout
        await learner.run_js("reopening notebook 01", _OPEN_IN_PLACE, f"{COURSE}/{NB01}")
        await learner.notebook_ready(NB01, "notebook 01 reopened")
        learner.seen["same kernel"] = await learner.run_js("the kernel's id", _KERNEL_ID)
        learner.seen["running kernel"] = await learner.run_cells([CHECK])
        learner.lap("reopen 01 on its running kernel, run a check cell")
        await learner.run_js("restarting the kernel of 01", _RESTART)
        await learner.wait("idle kernel after the restart", _KERNEL_IDLE)
        learner.seen["fresh kernel"] = await learner.run_all(NB01)
        learner.lap("restart the kernel, Run All 01")

    # -- step 4
    def update(self, learner: Learner) -> None:
        """``cd ~/REPO && python tools/update.py`` as in the learner's terminal on the hub."""
        started = time.monotonic()
        home = self.hub.home(learner.name)
        env = H.clean_env(**self.hub.learner_env(), HOME=str(home), USER=learner.name)
        try:
            done = H.run([self.hub.env.python, "tools/update.py"], cwd=self.clone(learner.name),
                         env=env, timeout=UPDATE_S, check=False)
            learner.seen["update"] = {"code": done.returncode, "out": done.stdout, "err": done.stderr}
            learner.seen["updated"] = notebook_cells(self.clone(learner.name) / NB01)
            learner.seen["backups"] = {p.name: notebook_cells(p) for p in
                                       sorted((self.clone(learner.name) / "backups").rglob("01-one-attention-row.*"))}
            learner.seen["head"] = H.run(["git", "rev-parse", "HEAD"], cwd=self.clone(learner.name), env=env).stdout.strip()
        except Exception as error:  # noqa: BLE001 - reported by the test
            learner.errors["update"] = f"{type(error).__name__}: {error}"
        learner.seconds["update"] = round(time.monotonic() - started, 1)

    async def play(self) -> None:
        from playwright.async_api import async_playwright

        at_once = asyncio.Semaphore(AT_ONCE)

        async def each(step, work):
            async def one(learner):
                async with at_once:
                    await learner.step(step, lambda: work(learner))
            started = time.monotonic()
            await asyncio.gather(*(one(learner) for learner in self.learners.values()))
            self.timed(step, started)

        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                for learner in self.learners.values():
                    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
                    learner.page = await context.new_page()
                    learner.page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
                await each("first click", self.first_click)
                started = time.monotonic()
                self.push_course_changes()
                self.timed("course pushes", started)
                await each("second click", self.second_click)
                self.processes = self.hub.processes()
            finally:
                await browser.close()  # no page left to autosave a notebook while the update tool runs

    def run(self) -> None:
        asyncio.run(self.play())
        started = time.monotonic()
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(self.update, self.learners.values()))
        self.timed("update tool", started)

    def save_logs(self) -> None:
        """The hub's log, each single-user server's and the git server's, into test-artifacts/hub/."""
        for log in [*sorted((self.scratch / "hub" / "logs").glob("*.log")), self.scratch / "git" / "git-server.log"]:
            if log.exists():
                shutil.copy(log, ARTIFACTS / log.name)

    def report(self) -> str:
        lines = [f"served: {self.served}; left out of the hub's environment: {list(self.hidden)}"]
        lines += [f"{step}: {seconds} s" for step, seconds in self.seconds.items()]
        parts = {}
        for learner in self.learners.values():
            for part, seconds in learner.laps.items():
                parts.setdefault(part, []).append(seconds)
        lines += [f"  {part}: mean {sum(times) / len(times):.1f} s, max {max(times)} s over {len(times)} learners"
                  for part, times in parts.items()]
        for learner in self.learners.values():
            steps = ", ".join(f"{step} {seconds} s" for step, seconds in learner.seconds.items())
            lines.append(f"{learner.name}: {steps}" + (f"; errors: {learner.errors}" if learner.errors else ""))
        running = {name: MARK_C in cell_text(learner.seen.get("running kernel", []), CHECK)
                   for name, learner in self.learners.items()}
        lines.append(f"(c) seen by the kernel still running since the first click, without a restart: {running}")
        if self.forced:
            lines.append(f"ended by hand after the hub stopped: {self.forced}")
        return "\n".join(lines)


def replace_line(path: Path, cell_id: str, anchor: str | None, mark: str, required: bool, before=False) -> None:
    """Append `` mark`` to one source line of cell ``cell_id`` in a notebook file, changing only that line of the
    JSON: the line that starts with ``anchor`` (``before=True``: the line above it), or the middle line of the cell.
    """
    text = path.read_text(encoding="utf-8")
    cell = next((c for c in json.loads(text)["cells"] if c.get("id") == cell_id), None)
    lines = [] if cell is None else cell["source"]
    if anchor is None:
        index = len(lines) // 2 if lines else None
    else:
        index = next((i for i, line in enumerate(lines) if line.startswith(anchor)), None)
        index = None if index is None else index - 1 if before else index
    if index is None or index < 0:
        assert not required, f"{path.name}: no cell {cell_id} with a line to change (anchor {anchor!r})"
        return
    old = lines[index]
    new = old[:-1] + f" {mark}\n" if old.endswith("\n") else old + f" {mark}"
    encoded_old, encoded_new = json.dumps(old, ensure_ascii=False), json.dumps(new, ensure_ascii=False)
    assert text.count(encoded_old) == 1, f"{path.name}: the line {old!r} is not unique in the file's JSON"
    path.write_text(text.replace(encoded_old, encoded_new), encoding="utf-8")


@pytest.fixture(scope="module")
def workshop(tmp_path_factory, request):
    """The module's whole run (see the docstring); the hub and the git server are stopped before the tests check."""
    _skip_or_fail_without_a_hub()
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    failed_before = request.session.testsfailed
    started = time.monotonic()
    run = Workshop(tmp_path_factory.mktemp("hub"))
    set_up = False
    try:
        run.start()
        run.run()
        set_up = True
    finally:
        run.stop()
        run.timed("whole module", started)
        (ARTIFACTS / "timings.txt").write_text(run.report() + "\n")
        if not set_up:
            run.save_logs()
    yield run
    if request.session.testsfailed > failed_before or any(learner.errors for learner in run.learners.values()):
        run.save_logs()


def _no_errors(workshop, step: str):
    problems = {name: learner.errors[step] for name, learner in workshop.learners.items() if step in learner.errors}
    assert not problems, f"{step}: " + "\n".join(f"{name}: {error}" for name, error in problems.items())


# ------------------------------------------------------------------------------------------------ the tests
def test_one_click_then_run_all_of_00_and_01_has_no_error(workshop):
    """The first click opens notebook 00 in JupyterLab, and Run All works there and in 01: no error output, every
    code cell ran, 00 says "All set" (the old order, with course_utils installed later by the learner, fails here)."""
    _no_errors(workshop, "first click")
    for name, learner in workshop.learners.items():
        for notebook in ("00", "01"):
            cells = learner.seen[notebook]
            assert not errors_in(cells), f"{name}: Run All of {notebook} gave errors: {errors_in(cells)}"
            not_run = [cell["id"] for cell in cells if cell["count"] is None]
            assert not not_run, f"{name}: Run All of {notebook} left cells unrun: {not_run}"
        texts = "".join(output_text(o) for cell in learner.seen["00"] for o in cell["outputs"])
        assert "All set" in texts, f"{name}: notebook 00 did not print 'All set':\n{texts[-2000:]}"


def test_the_answer_is_checked_correct_and_saved_in_the_clone(workshop):
    _no_errors(workshop, "first click")
    for name, learner in workshop.learners.items():
        answered = learner.seen["answered"]
        assert not errors_in(answered), f"{name}: {errors_in(answered)}"
        for exercise, check in ((EXERCISE, CHECK), (OTHER, OTHER_CHECK)):
            assert check_status(answered, check) == "correct", f"{name}: {check} said {cell_text(answered, check)!r}"
            assert answer(name, exercise) in learner.seen["saved"][exercise], f"{name}: the saved 01 lacks {exercise}"


def test_second_click_keeps_the_answer_and_brings_the_changes_outside_it(workshop):
    """Guide: a change in a cell the learner did not edit arrives, and so does a change in course_utils."""
    _no_errors(workshop, "second click")
    assert MARK_A in workshop.course_01["nb01-title"] and MARK_B in workshop.course_01[EXERCISE]  # the course's own
    for name, learner in workshop.learners.items():
        pulled = learner.seen["pulled"]
        for exercise in (EXERCISE, OTHER):
            assert answer(name, exercise) in pulled[exercise], f"{name}: the answer to {exercise} is gone"
        assert MARK_A in pulled["nb01-title"], f"{name}: change (a) in the title cell did not arrive"
        assert MARK_C in learner.seen["pulled framework"], f"{name}: change (c) in course_utils did not arrive"
        log = learner.seen["pulled log"]
        assert "Automatic commit by nbgitpuller" in log, f"{name}: no nbgitpuller commit of the learner's work:\n{log}"


def test_a_change_next_to_the_learners_edit_is_dropped_by_the_merge(workshop):
    """Guide: where the course changed lines next to the learner's, the learner's cell stays as it was."""
    _no_errors(workshop, "second click")
    for name, learner in workshop.learners.items():
        assert MARK_B not in learner.seen["pulled"][EXERCISE], f"{name}: change (b) reached the edited cell"
        assert learner.seen["pulled"][EXERCISE] == learner.seen["saved"][EXERCISE]


def test_a_fresh_kernel_uses_the_changed_course_utils(workshop):
    """After the second click, a restarted kernel imports the clone's new course_utils; Run All still has no error."""
    _no_errors(workshop, "second click")
    for name, learner in workshop.learners.items():
        fresh = learner.seen["fresh kernel"]
        assert not errors_in(fresh), f"{name}: Run All after the restart gave errors: {errors_in(fresh)}"
        assert check_status(fresh, CHECK) == "correct" and MARK_C in cell_text(fresh, CHECK), (
            f"{name}: the fresh kernel's checker said {cell_text(fresh, CHECK)!r}")
        assert learner.seen["same kernel"] == learner.seen["first kernel"], (
            f"{name}: reopened 01 did not connect to its running kernel")


def test_every_learner_has_one_server_and_the_hub_sees_its_processes(workshop):
    roles = {}
    for process in workshop.processes:
        roles.setdefault(process.role, []).append(process.user)
    assert len(roles.get("hub", [])) == 1 and len(roles.get("proxy", [])) == 1, roles
    assert sorted(roles.get("server", [])) == LEARNERS, roles
    assert set(roles.get("kernel", [])) == set(LEARNERS), roles


def test_the_update_tool_brings_the_dropped_change_and_keeps_the_answer_in_backups(workshop):
    """Guide: ``python tools/update.py`` brings every change, keeps the learner's code of a changed cell
    in backups/ and says so on the notebook's line."""
    _no_errors(workshop, "update")
    for name, learner in workshop.learners.items():
        done = learner.seen["update"]
        assert done["code"] == 0, f"{name}: the update tool exited {done['code']}:\n{done['out']}{done['err']}"
        assert MARK_B in learner.seen["updated"][EXERCISE], f"{name}: change (b) did not arrive:\n{done['out']}"
        assert MARK_A in learner.seen["updated"]["nb01-title"]
        assert answer(name, OTHER) in learner.seen["updated"][OTHER], f"{name}: the answer to {OTHER} was not put back"
        assert any(answer(name) in cells.get(EXERCISE, "") for cells in learner.seen["backups"].values()), (
            f"{name}: no backup of 01 holds the answer: {sorted(learner.seen['backups'])}\n{done['out']}")
        line = next((line for line in done["out"].splitlines() if f" {NB01}: " in line), None)
        assert line is not None, f"{name}: the report has no line for {NB01}:\n{done['out']}"
        assert line.startswith("answers carried over ") and "which the course changed" in line and EXERCISE in line, (
            f"{name}: {line}")
        assert learner.seen["head"] == workshop.course_head, f"{name}: the clone is not on the course's commit"
