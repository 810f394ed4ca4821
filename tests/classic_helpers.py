"""Driving classic Notebook 6.5 (ipywidgets 7's JavaScript, the widget stack Colab's page follows) in headless Chromium.

The pieces of tests/test_browser_classic.py:

- ``ClassicServer``: ``python -m notebook`` (6.5.7, from the Colab-like venv) on a scratch folder holding each notebook
  alone in a folder of its own, as an uploaded notebook sits; Jupyter's and IPython's user folders are scratch ones
  (nothing of this machine's own configuration or kernels is seen);
- ``open_notebook``, ``run_all``, ``cell_errors``, ``shut_down_kernels``: a notebook's life in the page, through the
  page's ``Jupyter.notebook`` (classic Notebook has no ``jupyterapp``);
- ``operate_dashboard``: every control of one dashboard focused and changed from the keyboard (the first one focused,
  the others reached with Tab from it), then the first slider's track clicked with the mouse; after each the picture
  must be replaced and its alt text must change.

Measured with notebook 6.5.7, widgetsnbextension 3.6.10 and ipywidgets 7.7.1 in Chromium: a slider is jQuery UI's
(``.ui-slider-handle``, a ``span`` with ``tabindex=0`` and no ARIA role or value), and takes PageUp/PageDown,
the arrows and Home/End when focused; its value shows in ``.widget-readout``. Tab from a selected cell does *not*
reach the cell's widgets: classic Notebook gives every cell ``tabindex=2``, and positive tab indexes come first in
the page's tab order, so Tab walks the cells. Within a dashboard, Tab from one control reaches the next.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

from browser_helpers import TOKEN, Frontend, Server, free_port, settle_and_screenshot, wait_until

POLL_MS = 50
#: Classic Notebook as browser_helpers describes a frontend (its keys are the ones measured here, see above).
CLASSIC = Frontend("classic", "classic Notebook 6.5", "notebook", "", "/notebooks/{path}", ("PageUp", "PageDown"),
                   arrows_move_sliders=True, opens_in_place=False)

#: Every kind of control the dashboards use, as ipywidgets 7 draws it, and the element that takes focus.
CONTROL_SELECTOR = (".ui-slider-handle, .widget-toggle-button, .widget-checkbox input[type=checkbox], "
                    ".widget-dropdown select")


class ClassicServer(Server):
    """Classic Notebook (``python -m notebook``, notebook 6.5) from ``python``'s environment, started at once
    (waiting, the API, stopping: browser_helpers.Server's).

    Each of ``notebooks`` is copied alone into ``<scratch>/work/<its stem>/``; the server's root is
    ``<scratch>/work``, so a kernel's working folder is its notebook's folder and its parent holds no course
    (as in Colab, where an uploaded notebook sits in ``/content``). ``env`` is the server's (and so its kernels')
    environment; ``JUPYTER_CONFIG_DIR``, ``JUPYTER_DATA_DIR``, ``JUPYTER_RUNTIME_DIR`` and ``IPYTHONDIR`` are
    set to scratch folders: the server sees only its own environment's nbextensions and kernel.
    """

    def __init__(self, python: Path, scratch: Path, notebooks, env: dict):
        self.frontend = CLASSIC
        self.root = scratch / "work"
        self.folders = {}  #: notebook file name -> the folder it sits alone in
        for notebook in notebooks:
            folder = self.root / Path(notebook).stem
            folder.mkdir(parents=True)
            shutil.copy2(notebook, folder / Path(notebook).name)
            self.folders[Path(notebook).name] = folder
        env = dict(env)
        for variable, name in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                               ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython")):
            env[variable] = str(scratch / name)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = scratch / "server.log"
        self._log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [str(python), "-m", "notebook", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
             f"--NotebookApp.token={TOKEN}", "--allow-root", f"--NotebookApp.notebook_dir={self.root}"],
            cwd=self.root, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        self._ready = False

    def notebook_url(self, name):
        """The page of notebook ``name`` (a file name of ``notebooks``), in its own folder."""
        return self.url(f"{Path(name).stem}/{name}")

    def delete(self, path):
        """DELETE ``path`` of the server's API (e.g. a kernel)."""
        request = urllib.request.Request(f"{self.base}{path}?token={TOKEN}", method="DELETE")
        urllib.request.urlopen(request, timeout=30).close()


# ------------------------------------------------------------------------------------------ a notebook's life
_KERNEL_READY = """() => {
    const nb = window.Jupyter && Jupyter.notebook;
    const kernel = nb && nb.kernel;
    return !!kernel && kernel.is_connected() && !!kernel.info_reply && !!kernel.info_reply.status
           && !!document.querySelector('#kernel_indicator_icon.kernel_idle_icon');
}"""


def open_notebook(page, server, name, timeout_ms=120_000):
    """Load notebook ``name``'s page and wait until its kernel is connected, has answered and is idle."""
    page.goto(server.notebook_url(name))
    page.wait_for_function(_KERNEL_READY, timeout=timeout_ms, polling=POLL_MS)


_PROMPTS = """() => Jupyter.notebook.get_cells().map((c, i) => [i, c.cell_type, c.input_prompt_number,
                                                               c.get_text().split('\\n')[0].slice(0, 80)])
                                         .filter(c => c[1] === 'code')"""


def run_all(page, timeout_ms=300_000):
    """Cell > Run All (``Jupyter.notebook.execute_all_cells()``), then wait until no code cell is queued or running
    (``[*]``) and the kernel is idle. Returns the prompts (one per code cell: a number, or None for a cell that did
    not run: classic Notebook drops the cells queued after one that raised); raises AssertionError naming the cells
    not run yet when that takes more than ``timeout_ms``."""
    page.evaluate("() => Jupyter.notebook.execute_all_cells()")  # every code cell shows [*] at once
    try:
        page.wait_for_function(
            """() => Jupyter.notebook.get_cells().every(c => c.cell_type !== 'code' || c.input_prompt_number !== '*')
                     && !!document.querySelector('#kernel_indicator_icon.kernel_idle_icon')""",
            timeout=timeout_ms, polling=100)
    except Exception as error:  # playwright's TimeoutError
        pending = [f"cell {i} [{prompt}] {line!r}" for i, _, prompt, line in page.evaluate(_PROMPTS)
                   if prompt == "*"]
        raise AssertionError(f"Run All did not finish within {timeout_ms / 1000:.0f} s; not run yet: "
                             + "; ".join(pending[:5]) + f" ({len(pending)} cells)") from error
    return [prompt for *_, prompt, _ in page.evaluate(_PROMPTS)]


def run_cell_of(element, timeout_ms=60_000):
    """Run again the code cell that holds ``element`` (a locator), as a learner whose widget came out incomplete
    would (Shift+Enter on it), and wait until it has run and the kernel is idle."""
    index = element.evaluate("""(el) => {
        const cell = el.closest('.cell');
        return Jupyter.notebook.get_cells().findIndex(c => c.element[0] === cell);
    }""")
    page = element.page
    page.evaluate("(i) => Jupyter.notebook.execute_cells([i])", index)
    page.wait_for_function(
        """(i) => Jupyter.notebook.get_cell(i).input_prompt_number !== '*'
                 && !!document.querySelector('#kernel_indicator_icon.kernel_idle_icon')""",
        arg=index, timeout=timeout_ms, polling=100)


def cell_errors(page):
    """What each code cell raised or wrote as a traceback: [(cell index, text)], from the outputs' models."""
    return page.evaluate("""() => {
        const found = [];
        Jupyter.notebook.get_cells().forEach((cell, i) => {
            if (cell.cell_type !== 'code') { return; }
            for (const o of cell.output_area.outputs) {
                if (o.output_type === 'error') {
                    found.push([i, `${o.ename}: ${o.evalue}\\n` + (o.traceback || []).join('\\n')]);
                } else if (o.output_type === 'stream' && o.name === 'stderr' && /Traceback|Error/.test(o.text)) {
                    found.push([i, o.text]);
                }
            }
        });
        return found;
    }""")


def printed(page, cell_index):
    """The text a code cell printed (its stdout streams)."""
    return page.evaluate("""(i) => Jupyter.notebook.get_cell(i).output_area.outputs
        .filter(o => o.output_type === 'stream' && o.name === 'stdout').map(o => o.text).join('')""", cell_index)


def shut_down_kernels(page, server, timeout=15):
    """Mark the notebook clean (no "leave page?" question), shut down every kernel of the server (Kernel > Shutdown
    does so for one) and wait until none runs. Returns (kernels before, kernels after)."""
    page.evaluate("() => { if (window.Jupyter && Jupyter.notebook) { Jupyter.notebook.set_dirty(false); } }")
    kernels = server.kernels()
    for kernel in kernels:
        server.delete(f"/api/kernels/{kernel['id']}")
    deadline = time.monotonic() + timeout
    while server.kernels() and time.monotonic() < deadline:
        time.sleep(0.1)
    return len(kernels), len(server.kernels())


# ------------------------------------------------------------------------------------------ the dashboards
def dashboard_cells(page):
    """The code cells showing a dashboard (its controls' box has the class ``course-dashboard``), in order."""
    return page.locator(".cell.code_cell", has=page.locator(".course-dashboard"))


def wait_for_dashboards(page, count, timeout_ms=90_000):
    """Wait until ``count`` dashboard cells each show every control of their box (ipywidgets 7 draws a box's
    children one by one, after the box: as many as the box's model holds) and a decoded picture below them."""
    wait_until(page, """async (count) => {
        const cells = Jupyter.notebook.get_cells().filter(c => c.element[0].querySelector('.course-dashboard'));
        if (cells.length < count) { return false; }
        const manager = Jupyter.notebook.kernel.widget_manager;
        for (const cell of cells) {
            const img = cell.element[0].querySelector('.output_area img');
            if (!img || !img.complete || img.naturalWidth === 0) { return false; }
            for (const output of cell.output_area.outputs) {
                const view = output.data && output.data['application/vnd.jupyter.widget-view+json'];
                const model = view && await manager.get_model(view.model_id);
                if (!model || !(model.get('_dom_classes') || []).includes('course-dashboard')) { continue; }
                const box = cell.element[0].querySelector('.course-dashboard');
                if (box.children.length < model.get('children').length) { return false; }
            }
        }
        return true;
    }""", count, timeout_ms)


_PICTURE = """(cell) => { const img = cell.querySelector('.output_area img');
    return img ? {src: img.getAttribute('src'), alt: img.getAttribute('alt'), ready: img.complete && img.naturalWidth > 0}
               : null; }"""

#: The state of control number ``i`` of a cell (a fresh query: ipywidgets 7 draws a ToggleButtons' buttons anew on
#: every change): its kind, a slider's readout, a checkbox's tick, a button's pressed state, a dropdown's value;
#: ``focused``: it has the focus; ``atMax``: a slider's handle at the end of its track, a dropdown at its last option.
_CONTROL = """(cell, [selector, i]) => {
    const e = cell.querySelectorAll(selector)[i];
    if (!e) { return null; }
    const kind = e.matches('.ui-slider-handle') ? 'slider'
               : e.matches('.widget-toggle-button') ? 'button'
               : e.matches('.widget-checkbox input[type=checkbox]') ? 'checkbox' : 'dropdown';
    const slider = e.closest('.widget-slider');
    const readout = slider && slider.querySelector('.widget-readout');
    const state = kind === 'slider' ? (readout ? readout.textContent.trim() : e.style.left)
                : kind === 'checkbox' ? String(e.checked)
                : kind === 'button' ? String(e.classList.contains('mod-active'))
                : e.value;
    const atMax = kind === 'slider' ? e.style.left === '100%'
                : kind === 'dropdown' ? e.selectedIndex === e.options.length - 1 : false;
    return {kind, state, atMax, focused: document.activeElement === e};
}"""
_FOCUSED = """(cell) => { const e = document.activeElement;
    return {inCell: !!e && cell.contains(e), readout: !!e && e.matches('.widget-readout'),
            html: e ? e.outerHTML.slice(0, 120) : null}; }"""
#: The keys that change each kind of control: (key, key at the maximum). A slider gets PageUp, and ArrowRight when
#: PageUp did not move it (jQuery UI moves a fifth of the range, rounded to the step: nothing on a short range).
KEYS = {"slider": ("PageUp", "PageDown"), "checkbox": ("Space", "Space"), "dropdown": ("ArrowDown", "ArrowUp")}
SLIDER_FALLBACK = ("ArrowRight", "ArrowLeft")


def _control(cell, i):
    return cell.evaluate(_CONTROL, [CONTROL_SELECTOR, i])


def _tab_to(page, cell, i, tries=3):
    """Press Tab (over a slider's readout) until control ``i`` has the focus; True when it got there."""
    for _ in range(tries):
        page.keyboard.press("Tab")
        if _control(cell, i)["focused"]:
            return True
        if not cell.evaluate(_FOCUSED)["readout"]:
            return False
    return False


def operate_dashboard(page, cell, label):
    """Change every control of the dashboard in ``cell`` from the keyboard, then click its first slider's track.

    The first control is focused (as a click or a screen reader would); each other one must be reached with Tab
    from the one before (a slider's readout, a Tab stop of its own, passed over). A slider gets PageUp (PageDown at
    its maximum; then ArrowRight or ArrowLeft if PageUp did not move it); a toggle button that is not the selected
    one, Space or Enter in turn; a checkbox, Space; a dropdown, ArrowDown (ArrowUp at its last option). After each
    key the picture must be replaced, its alt text must change and the control's state must change.

    Focus after a redraw: a slider, a checkbox and a dropdown must keep it. ipywidgets 7 draws a ToggleButtons'
    buttons anew on every change, so the pressed button leaves the page and the focus falls to the page's body
    (the same with a click): counted in ``focus_lost`` (an upstream limitation, not a problem here), and the next
    control is then focused directly.

    Returns (counts by kind of control, actions, focus_lost, problems).
    """
    total = cell.evaluate(f"(cell) => cell.querySelectorAll({json.dumps(CONTROL_SELECTOR)}).length")
    problems, actions, counts, focus_lost = [], [], {}, 0
    if total == 0:
        return counts, actions, focus_lost, [f"{label}: no control found in the dashboard"]
    button_presses, lost = 0, True
    for i in range(total):
        if not lost and not _tab_to(page, cell, i):
            problems.append(f"{label}: control {i + 1} of {total} was not reached with Tab from control {i} "
                            f"(focus on {cell.evaluate(_FOCUSED)['html']})")
            lost = True
        if lost:
            cell.evaluate(f"(cell) => cell.querySelectorAll({json.dumps(CONTROL_SELECTOR)})[{i}].focus()")
            lost = False
        control = _control(cell, i)
        counts[control["kind"]] = counts.get(control["kind"], 0) + 1
        if control["kind"] == "button":
            if control["state"] == "true":
                continue  # the selected option: pressing it changes nothing
            keys = [("Space", "Enter")[button_presses % 2]]
            button_presses += 1
        else:
            keys = [KEYS[control["kind"]][control["atMax"]]]
            if control["kind"] == "slider":
                keys.append(SLIDER_FALLBACK[control["atMax"]])
        before = cell.evaluate(_PICTURE)
        if before is None:
            return counts, actions, focus_lost, problems + [f"{label}: no picture in the dashboard's cell"]
        for n, key in enumerate(keys):
            page.keyboard.press(key)
            actions.append(f"{control['kind']}:{key}")
            if n + 1 == len(keys) or _state_changed(page, cell, i, control["state"]):
                break
        what = f"{label}: {control['kind']} {i + 1} ({'+'.join(keys[:n + 1])})"
        found = _changed(page, cell, before, what)
        problems += found
        after = _control(cell, i)
        if not found and after["state"] == control["state"]:
            problems.append(f"{what}: the control's state did not change ({control['state']})")
        if not after["focused"]:
            lost = True
            if control["kind"] == "button":
                focus_lost += 1
            else:
                problems.append(f"{what}: focus left the control after the redraw ({cell.evaluate(_FOCUSED)['html']})")
    problems += click_first_track(page, cell, label, actions)
    return counts, actions, focus_lost, problems


def _state_changed(page, cell, i, old, timeout_ms=1_000):
    """True when control ``i``'s state differs from ``old`` within ``timeout_ms`` (its readout follows the key at
    once, before the kernel answers)."""
    try:
        page.wait_for_function(f"([cell, selector, i, old]) => ({_CONTROL})(cell, [selector, i]).state !== old",
                               arg=[cell.element_handle(), CONTROL_SELECTOR, i, old], timeout=timeout_ms, polling=POLL_MS)
        return True
    except Exception:  # playwright's TimeoutError
        return False


def _wait_for_new_picture(page, cell, old_src, timeout_ms=15_000):
    page.wait_for_function(
        """([cell, old]) => { const img = cell.querySelector('.output_area img');
            return img !== null && img.getAttribute('src') !== old && img.complete && img.naturalWidth > 0; }""",
        arg=[cell.element_handle(), old_src], timeout=timeout_ms, polling=POLL_MS)


def _changed(page, cell, before, what):
    """Wait for the picture to be replaced after an action; the problems found (sentences)."""
    try:
        _wait_for_new_picture(page, cell, before["src"])
    except Exception:  # playwright's TimeoutError
        return [f"{what}: the picture was not replaced within 15 s"]
    new = cell.evaluate(_PICTURE)
    if not new["alt"]:
        return [f"{what}: the picture has no alt text"]
    if new["alt"] == before["alt"]:
        return [f"{what}: the alt text did not change ({new['alt'][:80]!r})"]
    return []


def click_first_track(page, cell, label, pressed):
    """Click the first slider's track a fifth of the way from the end its handle is farther from (a mouse user's
    move): the picture must be replaced and its alt text change. No slider: nothing to do."""
    track = cell.locator(".widget-slider .ui-slider").first
    if track.count() == 0:
        return []
    track.scroll_into_view_if_needed()  # Tab out of the dashboard may have scrolled the notebook
    box = track.bounding_box()
    handle = cell.locator(".widget-slider .ui-slider-handle").first.bounding_box()
    right = handle["x"] + handle["width"] / 2 < box["x"] + box["width"] / 2
    x = box["x"] + box["width"] * (0.8 if right else 0.2)
    before = cell.evaluate(_PICTURE)
    page.mouse.click(x, box["y"] + box["height"] / 2)
    pressed.append("slider:click")
    return _changed(page, cell, before, f"{label}: slider 1 (a click on its track)")


def screenshot(cell, path):
    """Screenshot a cell once its picture is decoded and painted (browser_helpers' way, classic's selector)."""
    settle_and_screenshot(cell, path, picture=".output_area img")


def environment(python: Path) -> dict:
    """{package: version} of the frontend's pieces in ``python``'s environment, for the summary."""
    code = ("import importlib.metadata as m\n"
            "for n in ('notebook', 'widgetsnbextension', 'ipywidgets', 'ipykernel', 'ipython', 'anywidget'):\n"
            "    try: print(n, m.version(n))\n"
            "    except m.PackageNotFoundError: print(n, '-')\n")
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=os.path.dirname(str(python)))
    return dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
