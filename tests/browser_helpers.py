"""Driving JupyterLab and Notebook 7 in headless Chromium (the pieces of tests/test_browser.py).

- ``Frontend``, ``FRONTENDS``: how each frontend is started and where it opens a notebook;
- ``Server``: one Jupyter server per frontend on a scratch copy of notebooks/, shared by every notebook;
- ``open_notebook``, ``run_all``, ``shut_down_kernel``: a notebook's life in the page;
- ``operate_by_keyboard``: every control of one dashboard reached with Tab and changed with its keys;
- ``axe_scan``: axe-core over the outputs and widgets, violations counted by impact.

Keys (measured in JupyterLab 4.6.6 and Notebook 7.6.5 with ipywidgets 8.1.9, see docs/accessibility.md):
Tab / Shift+Tab reach every control; a slider moves with PageUp/PageDown (and Home/End) in both frontends,
with the arrow keys in JupyterLab only (Notebook 7 handles keys before the widget does: an arrow moves to
another cell); a button (ToggleButtons) takes Space or Enter, a checkbox Space.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

TOKEN = "course-browser-test"
#: How often a wait re-checks its condition in the page, in ms. Playwright's default re-checks on every animation frame,
#: which keeps Chromium's renderer drawing frames for the whole wait (during Run All, seconds per notebook).
POLL_MS = 50


@dataclass(frozen=True)
class Frontend:
    key: str                #: in test ids and artifact names
    title: str
    module: str             #: python -m <module> starts its server
    expose_app: str         #: the flag that exposes window.jupyterapp
    notebook_url: str       #: path of a notebook page, {path} relative to the server's root
    slider_keys: tuple      #: (step up, step down): keys that move a slider in this frontend
    arrows_move_sliders: bool
    opens_in_place: bool    #: can open the next notebook without loading a page


#: Both frontends. Keys that work in both are the ones the test presses on every control.
FRONTENDS = {
    "lab": Frontend("lab", "JupyterLab", "jupyterlab", "--LabApp.expose_app_in_browser=True",
                    "/lab/tree/{path}?reset", ("PageUp", "PageDown"), arrows_move_sliders=True, opens_in_place=True),
    "notebook7": Frontend("notebook7", "Notebook 7", "notebook", "--JupyterNotebookApp.expose_app_in_browser=True",
                          "/notebooks/{path}", ("PageUp", "PageDown"), arrows_move_sliders=False, opens_in_place=False),
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A Jupyter server (``python -m jupyterlab`` or ``python -m notebook``) on ``root``, started at once.

    Settings: a throwaway ``JUPYTERLAB_SETTINGS_DIR`` that only renders every cell (no virtualised
    off-screen cells) and a throwaway workspaces folder. The news pop-up is *not* turned off here: the
    course's environment does it (tools/jupyter_settings.py, run by `make env`), and the test checks it.
    ``extra_env``: more environment variables for the server (e.g. ``JUPYTER_CONFIG_PATH``: a folder whose
    ``labconfig/page_config.json`` disables a frontend extension, tests/test_browser_no_anywidget.py).
    """

    def __init__(self, frontend: Frontend, scratch: Path, notebooks: Path, extra_env: dict | None = None):
        self.frontend = frontend
        self.root = scratch / "work"
        self.root.mkdir(parents=True)
        shutil.copytree(notebooks, self.root / "notebooks")
        settings = scratch / "settings" / "@jupyterlab" / "notebook-extension"
        settings.mkdir(parents=True)
        (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
        env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(scratch / "settings"),
                   JUPYTERLAB_WORKSPACES_DIR=str(scratch / "workspaces"))
        self.inventory_dir = scratch / "inventory"  # the concept inventory's answer files, never the checkout's
        env["COURSE_INVENTORY_DIR"] = str(self.inventory_dir)
        env.pop("JUPYTERLAB_DIR", None)  # the environment's own app dir, where its settings overrides live
        env.update(extra_env or {})
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = scratch / "server.log"
        self._log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", frontend.module, "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
             f"--ServerApp.token={TOKEN}", "--allow-root", frontend.expose_app, f"--ServerApp.root_dir={self.root}",
             "--ContentsManager.checkpoints_kwargs={'root_dir': '" + str(scratch / "ckpt") + "'}"],
            cwd=self.root, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        self._ready = False

    def wait_ready(self, timeout=60):
        """Block until the server answers (once); raise RuntimeError with its log if it does not."""
        deadline = time.monotonic() + timeout
        while not self._ready:
            try:
                urllib.request.urlopen(f"{self.base}/api/status?token={TOKEN}", timeout=2)
                self._ready = True
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"{self.frontend.title} did not start:\n" + self.log_path.read_text()[-3000:]) from None
                time.sleep(0.2)
        return self

    def api(self, path):
        with urllib.request.urlopen(f"{self.base}{path}?token={TOKEN}", timeout=10) as response:
            return json.load(response)

    def kernels(self):
        """The kernels the server is running (its /api/kernels)."""
        return self.api("/api/kernels")

    def start_kernel_ahead(self, relative_path, kernel_name):
        """Start the session of notebook ``relative_path`` (a fresh ``kernel_name`` kernel) through the server's
        /api/sessions, as the frontend does when it opens the notebook, without waiting for the kernel to boot. The
        frontend that opens the notebook later connects to this session (it looks for one of that path first), so
        the kernel boots while the test still drives the notebook before. Returns the kernel's id."""
        body = json.dumps({"path": relative_path, "type": "notebook", "name": "",
                           "kernel": {"name": kernel_name}}).encode()
        request = urllib.request.Request(f"{self.base}/api/sessions?token={TOKEN}", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)["kernel"]["id"]

    def url(self, notebook_path):
        sep = "&" if "?" in self.frontend.notebook_url else "?"
        return self.base + self.frontend.notebook_url.format(path=notebook_path) + f"{sep}token={TOKEN}"

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


# ------------------------------------------------------------------------------------------ a notebook's life
def wait_until(page, predicate, arg=None, timeout_ms=30_000, polling_ms=POLL_MS):
    """Wait until ``predicate`` (JavaScript, called with ``arg``; it may be ``async``) gives a truthy value; return it.

    Playwright's ``wait_for_function`` does not await a predicate's promise: an ``async`` predicate returns a promise,
    which is truthy, so that wait ends at once (a classic Notebook run once counted 0 dashboards right after such a
    "wait"). ``page.evaluate`` does await, so this polls it. Raises ``TimeoutError`` after ``timeout_ms``.
    """
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        value = page.evaluate(predicate, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"still false after {timeout_ms / 1000:.0f} s: {predicate.strip()[:120]}")
        time.sleep(polling_ms / 1000)


def wait_idle(page, timeout_ms=120_000):
    """Wait until the current notebook's kernel is connected and idle (the toolbar's indicator says "idle"
    while the kernel is still initialising, so ask the session itself)."""
    page.wait_for_function(
        """() => {
            const widget = window.jupyterapp && window.jupyterapp.shell.currentWidget;
            const kernel = widget && widget.sessionContext && widget.sessionContext.session
                           && widget.sessionContext.session.kernel;
            return !!kernel && kernel.connectionStatus === 'connected' && kernel.status === 'idle';
        }""", timeout=timeout_ms, polling=POLL_MS)


def open_notebook(page, server, relative_path):
    """Open a notebook in this server's frontend and wait for its kernel; return the notebook panel's locator.

    JupyterLab opens the next notebook in the page it already shows (File > Open; no reload, about 1.5 s
    less each); Notebook 7 shows one notebook per page, so it loads the notebook's page.
    """
    in_place = server.frontend.opens_in_place and page.url.startswith(server.base) and page.evaluate(
        "() => !!window.jupyterapp && !!window.jupyterapp.shell")
    if in_place:
        page.evaluate("""async (path) => {
            const app = window.jupyterapp;
            for (const widget of [...app.shell.widgets('main')]) { widget.dispose(); }  // kernels already shut down
            await app.commands.execute('docmanager:open', {path});
        }""", relative_path)
    else:
        page.goto(server.url(relative_path))
    page.wait_for_function(
        "(name) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " return !!w && !!w.context && w.context.path.endsWith(name) && w.content.widgets.length > 0; }",
        arg=Path(relative_path).name, timeout=60_000, polling=POLL_MS)
    wait_idle(page)
    panel_id = page.evaluate("() => window.jupyterapp.shell.currentWidget.id")
    return page.locator(f'[id="{panel_id}"]')  # every query stays inside this notebook


def run_all(page):
    """Run > Run All Cells; True when every cell ran (the command's promise settles when all have run)."""
    ran = page.evaluate("async () => await window.jupyterapp.commands.execute('notebook:run-all-cells')")
    wait_idle(page)
    return ran


def wait_for_dashboards(page, timeout_ms=30_000):
    """Wait until every dashboard cell (a widget view and a picture) shows its controls and a decoded picture (widget
    views render a little after Run All's promise settles); return how many such cells there are."""
    return page.wait_for_function("""() => {
        const notebook = window.jupyterapp.shell.currentWidget.content;
        const outputs = cell => cell.model.type === 'code' ? cell.model.outputs.toJSON() : [];
        const cells = notebook.widgets.filter(cell =>  // a dashboard: widget controls and a picture
            outputs(cell).some(o => o.data && o.data['application/vnd.jupyter.widget-view+json'])
            && outputs(cell).some(o => o.data && o.data['image/png']));
        const shown = cells.every(cell => {
            const img = cell.node.querySelector('.jp-OutputArea-output img');
            return cell.node.querySelector('.course-dashboard') && img && img.complete && img.naturalWidth > 0;
        });
        return shown ? {count: cells.length} : false;
    }""", timeout=timeout_ms, polling=POLL_MS).json_value()["count"]


def news_setting(page):
    """The default of fetchNews that this frontend received from the server (overrides applied) and
    whether the news question is on the page."""
    return page.evaluate("""async () => {
        const plugin = await window.jupyterapp.serviceManager.settings.fetch('@jupyterlab/apputils-extension:notification');
        return {fetchNewsDefault: plugin.schema.properties.fetchNews.default,
                userSettings: plugin.raw,
                asked: document.body.textContent.includes('official Jupyter news')};
    }""")


def shut_down_kernel(page, server, timeout=15, keep=()):
    """Shut down the current notebook's kernel (as File > Close and Shut Down Notebook does), mark the notebook
    clean (nothing is saved: no "leave page?" question), and wait until the server runs no kernel but those whose
    ids are in ``keep`` (the next notebook's, started ahead).

    Returns (kernels before, kernels after): the counts from the server's /api/kernels, ``keep`` left out.
    """
    def others():
        return [kernel for kernel in server.kernels() if kernel["id"] not in keep]

    before = len(others())
    page.evaluate("""async () => {
        const widget = window.jupyterapp.shell.currentWidget;
        if (!widget || !widget.sessionContext) { return; }
        widget.context.model.dirty = false;
        await widget.sessionContext.shutdown();
    }""")
    deadline = time.monotonic() + timeout
    while others() and time.monotonic() < deadline:
        time.sleep(0.1)
    return before, len(others())


# ------------------------------------------------------------------------------------------ the dashboards
#: Every kind of control the dashboards use, as the browser shows it, and the element that takes focus.
CONTROL_SELECTOR = ".noUi-handle[role=slider], .widget-toggle-button, .widget-checkbox input[type=checkbox]"
#: Focusable parts of a widget that are not controls of their own: a slider's readout (a text field).
NOT_A_CONTROL = ".widget-readout"

_PICTURE = """(cell) => { const img = cell.querySelector('.jp-OutputArea-output img');
    return img ? {src: img.getAttribute('src'), alt: img.getAttribute('alt'), ready: img.complete && img.naturalWidth > 0}
               : null; }"""

_FOCUS = """(cell) => {
    const e = document.activeElement;
    if (!e || !cell.contains(e)) { return {inCell: false}; }
    const kind = e.matches('.noUi-handle[role=slider]') ? 'slider'
               : e.matches('.widget-toggle-button') ? 'button'
               : e.matches('.widget-checkbox input[type=checkbox]') ? 'checkbox'
               : e.matches('.widget-readout') ? 'readout' : 'other';
    const state = kind === 'slider' ? e.getAttribute('aria-valuenow')
                : kind === 'checkbox' ? String(e.checked)
                : kind === 'button' ? String(e.classList.contains('mod-active')) : null;
    return {inCell: true, kind, state, id: e.getAttribute('data-course-control'),
            max: e.getAttribute('aria-valuemax'), inWidgets: !!e.closest('.jupyter-widgets'),
            html: e.outerHTML.slice(0, 120)};
}"""


def dashboard_cells(panel):
    """The code cells holding a dashboard (its controls' box has the class ``course-dashboard``), in notebook order."""
    return panel.locator(".jp-CodeCell", has=panel.page.locator(".course-dashboard"))


def select_cell_in_command_mode(page, panel, cell):
    """Make ``cell`` the active cell in command mode, focus on the cell (where a keyboard user is after
    moving with ArrowUp/ArrowDown or J/K): the starting point of the Tab presses."""
    index = panel.evaluate("(node, cell) => [...node.querySelectorAll('.jp-Notebook-cell')].indexOf(cell)",
                           cell.element_handle())
    page.evaluate("""(index) => {
        const notebook = window.jupyterapp.shell.currentWidget.content;
        notebook.mode = 'command';
        notebook.activeCellIndex = index;
        notebook.activeCell.node.focus();  // as in command mode; activate() keeps a focus already inside the notebook
    }""", index)
    page.wait_for_function("(cell) => document.activeElement === cell", arg=cell.element_handle(), timeout=5_000,
                           polling=POLL_MS)


def _wait_for_new_picture(page, cell, old_src, timeout_ms=15_000):
    page.wait_for_function(
        """([cell, old]) => { const img = cell.querySelector('.jp-OutputArea-output img');
            return img !== null && img.getAttribute('src') !== old && img.complete && img.naturalWidth > 0; }""",
        arg=[cell.element_handle(), old_src], timeout=timeout_ms, polling=POLL_MS)


def operate_by_keyboard(page, panel, cell, frontend, label, *, arrows_on_first_slider=False):
    """Reach every control of the dashboard in ``cell`` with Tab from its cell, change each with its keys.

    After each key press the picture must be replaced; its alt text must change too; focus must stay on
    the control. Returns (counts by kind of control, keys pressed, problems): problems are sentences, for
    the test to report together at the end.
    """
    controls = cell.evaluate(f"""(cell) => {{ const found = [...cell.querySelectorAll({json.dumps(CONTROL_SELECTOR)})];
        found.forEach((e, i) => e.setAttribute('data-course-control', String(i)));
        return found.length; }}""")
    problems, reached, pressed = [], set(), []
    counts = Counter()
    select_cell_in_command_mode(page, panel, cell)
    button_presses = 0
    for _ in range(6 + 3 * controls):  # a slider is two Tab stops (handle, readout); a margin for the cell's toolbar
        page.keyboard.press("Tab")
        focus = cell.evaluate(_FOCUS)
        if not focus["inCell"]:
            break
        if focus["kind"] in ("readout",) or not focus["inWidgets"]:
            continue  # a slider's readout (type a value + Enter also works), the cell's own toolbar
        if focus["kind"] == "other":
            problems.append(f"{label}: Tab reached a widget part the test has no keys for: {focus['html']}")
            continue
        if focus["id"] is None or focus["id"] in reached:
            continue
        reached.add(focus["id"])
        counts[focus["kind"]] += 1
        keys = []  # a slider's pair of keys: the first unless the slider is at its maximum
        if focus["kind"] == "slider":
            keys.append(frontend.slider_keys)
            if arrows_on_first_slider and counts["slider"] == 1:
                keys.append(("ArrowRight", "ArrowLeft"))
        elif focus["kind"] == "button":
            if focus["state"] == "true":
                continue  # the selected option: pressing it changes nothing
            keys.append(("Space", "Enter")[button_presses % 2])  # both activate a button; use both
            button_presses += 1
        else:  # checkbox
            keys.append("Space")
        for key in keys:
            if isinstance(key, tuple):
                key = key[1] if focus["state"] == focus["max"] else key[0]
            picture = cell.evaluate(_PICTURE)
            if picture is None:
                problems.append(f"{label}: no picture in the dashboard's cell")
                return counts, pressed, problems
            page.keyboard.press(key)
            pressed.append(f"{focus['kind']}:{key}")
            what = f"{label}: {focus['kind']} {int(focus['id']) + 1} ({key})"
            try:
                _wait_for_new_picture(page, cell, picture["src"])
            except Exception:  # playwright's TimeoutError
                after = cell.evaluate(_FOCUS)
                problems.append(f"{what}: the picture was not replaced within 15 s (control state {focus['state']} -> "
                                f"{after.get('state')}, focus {'kept' if after.get('id') == focus['id'] else 'lost'})")
                continue
            new = cell.evaluate(_PICTURE)
            if not new["alt"]:
                problems.append(f"{what}: the picture has no alt text")
            elif new["alt"] == picture["alt"]:
                problems.append(f"{what}: the alt text did not change ({new['alt'][:80]!r})")
            after = cell.evaluate(_FOCUS)
            if after.get("id") != focus["id"]:
                problems.append(f"{what}: focus left the control after the redraw")
            elif after["state"] == focus["state"]:
                problems.append(f"{what}: the control's state did not change ({focus['state']})")
            focus = after
    missing = controls - len(reached)
    if missing:
        problems.append(f"{label}: {missing} of {controls} controls were never reached with Tab")
    return counts, pressed, problems


def settle_and_screenshot(cell, path, picture=".jp-OutputArea-output img"):
    """Screenshot a cell once its picture (CSS selector; classic Notebook's: ``.output_area img``) is decoded and
    painted (two animation frames)."""
    cell.evaluate("""async (cell, picture) => {
        const img = cell.querySelector(picture);
        if (img) { await img.decode(); }
        await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
    }""", picture)
    cell.screenshot(path=str(path))


# ------------------------------------------------------------------------------------------ axe-core
#: Where the scan looks: the outputs and widgets of the notebook (same class in both frontends).
AXE_CONTEXT = ".jp-OutputArea"
#: Violations the course cannot fix and only documents (docs/accessibility.md), matched exactly: rule id ->
#: (a marker every offending node's HTML contains, why). None today: the one ipywidgets 8.1.9 leaves, an unnamed
#: slider handle, is named by course_utils/widgets/_handle_names.py, so axe must find no aria-input-field-name.
KNOWN: dict = {}


def axe_scan(page, context=AXE_CONTEXT):
    """axe-core over ``context``; returns a summary dict (counts by impact, each violation with its nodes)."""
    from axe_playwright_python.sync_playwright import Axe

    response = Axe().run(page, context=context).response
    violations = []
    for v in response["violations"]:
        marker = KNOWN.get(v["id"], (None,))[0]
        known = marker is not None and all(marker in node["html"] for node in v["nodes"])
        violations.append({"id": v["id"], "impact": v["impact"], "nodes": len(v["nodes"]), "known": known,
                           "help": v["help"], "first": v["nodes"][0]["html"][:160]})
    counts = Counter(v["impact"] for v in violations)
    nodes = Counter()
    for v in violations:
        nodes[v["impact"]] += v["nodes"]
    images = page.evaluate("""(sel) => {
        const imgs = [...document.querySelectorAll(sel + ' img')];
        const inDashboard = (img) => { const cell = img.closest('.jp-CodeCell');
                                       return !!cell && !!cell.querySelector('.jupyter-widgets'); };
        return {dashboard: imgs.filter(inDashboard).length, other: imgs.filter(i => !inDashboard(i)).length,
                dashboardWithoutAlt: imgs.filter(i => inDashboard(i) && !i.getAttribute('alt')).length,
                otherWithoutAlt: imgs.filter(i => !inDashboard(i) && !i.getAttribute('alt')).length};
    }""", context)
    return {"context": context, "violations": violations, "rules_by_impact": dict(counts),
            "nodes_by_impact": dict(nodes), "images": images}


def format_axe(summary):
    """One line: rules (nodes) by impact, then each violation."""
    order = ["critical", "serious", "moderate", "minor"]
    by_impact = ", ".join(f"{impact} {summary['rules_by_impact'].get(impact, 0)} ({summary['nodes_by_impact'].get(impact, 0)})"
                          for impact in order)
    each = "; ".join(f"{v['id']} {v['impact']} x{v['nodes']}{' known' if v['known'] else ''}" for v in summary["violations"])
    return f"axe over {summary['context']}: rules (nodes) by impact: {by_impact}" + (f" [{each}]" if each else "")


def blocking(summary):
    """Critical and serious violations that are not known upstream limits."""
    return [v for v in summary["violations"] if v["impact"] in ("critical", "serious") and not v["known"]]


# ------------------------------------------------------------------------------------------ questions
def answer_myths(page, panel, timeout_ms=15_000, redraw=None):
    """Every *Myth or fact?* question (``.course-myth``): its verdict must be empty before a choice and appear,
    in words, after the first button is pressed. Returns (questions found, problems).

    ``redraw(question)``, when given, is what a learner does when a card's view came out incomplete (its verdict
    part missing after ``timeout_ms``: seen once in classic Notebook, under ipywidgets 7): run its cell again. It is
    tried once, and said in the problems' place only if the card is still incomplete after it; ``redrawn`` counts
    the cards it was needed for (the caller prints it)."""
    questions = panel.locator(".course-myth")
    problems = []
    answer_myths.redrawn = 0
    for n in range(questions.count()):
        question = questions.nth(n)
        question.scroll_into_view_if_needed()
        verdict = question.locator(".course-myth-verdict")
        try:
            verdict.wait_for(state="attached", timeout=timeout_ms)
        except Exception:  # playwright's TimeoutError: the card's view is incomplete
            html = question.inner_html()[:300]
            if redraw is None:
                problems.append(f"myth question {n + 1}: its verdict part never rendered: {html!r}")
                continue
            redraw(question)
            answer_myths.redrawn += 1
            question = questions.nth(n)
            verdict = question.locator(".course-myth-verdict")
            try:
                verdict.wait_for(state="attached", timeout=timeout_ms)
            except Exception:
                problems.append(f"myth question {n + 1}: its verdict part never rendered, not even after its cell "
                                f"ran again: {html!r}")
                continue
        if verdict.inner_text().strip():
            problems.append(f"myth question {n + 1}: the verdict shows before any choice: {verdict.inner_text()[:80]!r}")
        question.locator(".course-myth-choice button").first.click()
        try:
            verdict.locator("text=/Correct\\.|Not quite\\./").wait_for(timeout=timeout_ms)
        except Exception:  # playwright's TimeoutError
            problems.append(f"myth question {n + 1}: no verdict (Correct. / Not quite.) after choosing")
    return questions.count(), problems


def cells_calling(path, call: str) -> int:
    """How many code cells of a stored notebook call ``call`` (e.g. ``MythOrFact(``)."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    return sum(cell["cell_type"] == "code" and call in "".join(cell["source"]) for cell in cells)


def answer_reviews(page, panel, timeout_ms=15_000):
    """Every review (``.course-review``, notebooks 02-05), by the keyboard alone: each question's first choice
    focused and chosen with Space, then Tab to the next choice and Space again (the frontends take the arrow keys
    for moving between cells, docs/accessibility.md). The feedback must be empty before a choice and name the choice
    in words after each (``Right (`` or ``Not this one (``), changing with it. Returns (questions, problems)."""
    problems, answered = [], 0
    for form in panel.locator(".course-review").all():
        form.scroll_into_view_if_needed()
        for n, box in enumerate(form.locator(".course-question").all(), 1):
            note = box.locator(".course-question-feedback")
            radios = box.locator("input[type=radio]")
            if note.inner_text().strip():
                problems.append(f"review question {n}: feedback before any choice: {note.inner_text()[:60]!r}")
            seen = [""]
            for k, keys in enumerate((("Space",), ("Tab", "Space"))):
                if k == 0:
                    radios.first.focus()
                for key in keys:
                    page.keyboard.press(key)
                if not radios.nth(k).evaluate("(input) => input === document.activeElement && input.checked"):
                    problems.append(f"review question {n}: {' then '.join(keys)} did not choose choice {k + 1}")
                    break
                deadline = time.monotonic() + timeout_ms / 1000
                text = note.inner_text().strip()
                while text == seen[-1] and time.monotonic() < deadline:  # the kernel's answer takes a moment
                    time.sleep(0.1)
                    text = note.inner_text().strip()
                if text == seen[-1]:
                    problems.append(f"review question {n}: the feedback did not change after choice {k + 1}")
                elif not re.search(r"Right \(|Not this one \(", text):
                    problems.append(f"review question {n}: after choice {k + 1} the feedback reads {text[:80]!r}")
                seen.append(text)
            answered += 1
    return answered, problems


def take_inventory(page, panel, nickname, timeout_ms=15_000):
    """Answer the concept inventory (``.course-inventory``) if the notebook has one: the first choice of every
    question, a nickname, Submit. Returns None without a form, else (questions, feedback blocks shown, problems)."""
    form = panel.locator(".course-inventory")
    if form.count() == 0:
        return None
    form = form.first
    form.scroll_into_view_if_needed()
    problems = []
    questions = form.locator(".widget-radio-box")
    for n in range(questions.count()):
        questions.nth(n).locator("label").first.click()
    form.locator(".widget-text input[type=text]").fill(nickname)
    form.locator("button", has_text="Submit my answers").click()
    try:
        form.locator("text=Saved in").wait_for(timeout=timeout_ms)
    except Exception:  # playwright's TimeoutError
        problems.append("inventory: no 'Saved in' line after Submit")
    feedback = form.locator(".widget-html", has_text=re.compile(r"Right \(|Not this one|Not answered")).count()
    return questions.count(), feedback, problems
