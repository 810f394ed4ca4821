"""The dashboards without anywidget's front-end: they still draw and redraw; the slider handles' names are the only loss.

Where anywidget's JavaScript does not load (VS Code offline, which fetches third-party widget code from a CDN; a
JupyterLab whose anywidget extension is missing or disabled), the one anywidget of each dashboard, the invisible
helper that names the slider handles (course_utils/widgets/_handle_names.py), cannot be drawn. Everything else is
ipywidgets and a picture, and must work as usual (issue 22).

One JupyterLab of its own (tests/browser_helpers.py's ``Server``) with anywidget's front-end disabled the way a user
or an administrator does it: ``{"disabledExtensions": {"anywidget": true}}`` in ``labconfig/page_config.json`` of a
folder on ``JUPYTER_CONFIG_PATH``. On a scratch copy of solutions/03-masks.ipynb (its dashboards have sliders, toggle
buttons and a checkbox), in headless Chromium:

- anywidget's front-end really is off: the page's configuration lists it as disabled and JupyterLab has no
  ``anywidget:plugin`` registered;
- Run All: no cell raises, and every dashboard of the stored notebook shows its controls and its picture;
- the page shows no widget error (no "Error displaying widget", no "Failed to load model class"...): a learner
  must not see a red box where the handle names' helper would have been;
- every control of every dashboard, moved from the keyboard as in tests/test_browser.py, replaces the picture and
  changes its alt text, focus staying on the control;
- the loss is the expected one: no slider handle got its name from the helper (``aria-labelledby`` unset).

Screenshots of each dashboard before and after, and of any widget error, go to test-artifacts/browser-no-anywidget/,
with record.json (the front-end's state, the controls moved, the handles' names, the page's console) and timings.txt.
Skipped without Chromium or playwright, unless COURSE_REQUIRE_BROWSER=1 (set by .ci/run), where it fails.
"""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from browser_helpers import (  # tests/browser_helpers.py
    FRONTENDS,
    Server,
    dashboard_cells,
    open_notebook,
    operate_by_keyboard,
    run_all,
    settle_and_screenshot,
    shut_down_kernel,
    wait_for_dashboards,
)
from test_browser import CHROMIUM, CHROMIUM_ARGS, _missing_browser_reason, skip_or_fail, stored_dashboards

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "solutions" / "03-masks.ipynb"
ARTIFACTS = ROOT / "test-artifacts" / "browser-no-anywidget"
EXTENSION = "anywidget"  # the labextension's name (share/jupyter/labextensions/anywidget)
PLUGIN = "anywidget:plugin"  # the JupyterLab plugin it registers
#: Text a widget manager shows where it cannot draw a widget (ipywidgets' error view and its messages).
WIDGET_ERRORS = ("Error displaying widget", "Failed to load model class", "Failed to create view",
                 "Could not create a view", "Could not create a model", "Model not found", "No version of module")

#: Where such an error shows: ipywidgets' error view, and text on stderr.
ERROR_VIEWS = ".widget-error, .jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']"

_FRONTEND_STATE = """() => {
    const app = window.jupyterapp;
    const config = JSON.parse(document.getElementById('jupyter-config-data').textContent);
    return {disabled: config.disabledExtensions || [],
            hasPlugin: app.hasPlugin(PLUGIN),
            activated: app.hasPlugin(PLUGIN) && app.isPluginActivated(PLUGIN),
            plugins: app.listPlugins().filter(id => id.startsWith('anywidget'))};
}""".replace("PLUGIN", json.dumps(PLUGIN))

_ERRORS_SHOWN = """(panel) => {
    const texts = WIDGET_ERRORS;
    const errorViews = [...panel.querySelectorAll(ERROR_VIEWS)];
    const text = panel.textContent;
    return {views: errorViews.map(e => e.textContent.trim().slice(0, 300)),
            texts: texts.filter(t => text.includes(t)).map(t => {
                const i = text.indexOf(t); return text.slice(Math.max(0, i - 40), i + 200).replace(/\\s+/g, ' ');
            })};
}""".replace("WIDGET_ERRORS", json.dumps(list(WIDGET_ERRORS))).replace("ERROR_VIEWS", json.dumps(ERROR_VIEWS))

_HANDLES = """(panel) => [...panel.querySelectorAll('.course-dashboard .noUi-handle')].map(h => ({
    labelledby: h.getAttribute('aria-labelledby'), label: h.getAttribute('aria-label')}))"""


def _cell_errors(page):
    """[(cell index, ename: evalue)] of the error outputs in the current notebook's model."""
    return page.evaluate("""() => {
        const found = [];
        window.jupyterapp.shell.currentWidget.content.widgets.forEach((cell, i) => {
            if (cell.model.type !== 'code') { return; }
            for (const o of cell.model.outputs.toJSON()) {
                if (o.output_type === 'error') { found.push([i, `${o.ename}: ${o.evalue}`]); }
            }
        });
        return found;
    }""")


def test_dashboards_draw_and_redraw_without_anywidgets_frontend(tmp_path):
    skip_or_fail(_missing_browser_reason())
    from playwright.sync_api import sync_playwright

    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    timings = {}
    start = time.monotonic()
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    shutil.copy2(NOTEBOOK, notebooks / NOTEBOOK.name)
    config = tmp_path / "jupyter-config"
    (config / "labconfig").mkdir(parents=True)
    (config / "labconfig" / "page_config.json").write_text(json.dumps({"disabledExtensions": {EXTENSION: True}}))
    frontend = FRONTENDS["lab"]
    server = Server(frontend, tmp_path / "server", notebooks, extra_env={"JUPYTER_CONFIG_PATH": str(config)})
    problems, record = [], {}
    try:
        server.wait_ready()
        timings["server"] = time.monotonic() - start
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                page.on("dialog", lambda dialog: dialog.accept())
                console = []  # what the page logged: where the missing front-end shows, if anywhere
                page.on("console", lambda message: console.append(f"{message.type}: {message.text}"[:500]))
                mark = time.monotonic()
                panel = open_notebook(page, server, f"notebooks/{NOTEBOOK.name}")
                state = record["frontend"] = page.evaluate(_FRONTEND_STATE)
                assert EXTENSION in state["disabled"] and not state["activated"] and not state["plugins"], (
                    f"anywidget's front-end is not off, so this test would prove nothing: {state}")

                assert run_all(page), "Run All did not run every cell"
                errors = _cell_errors(page)
                assert not errors, f"cells raised without anywidget's front-end: {errors}"
                count = wait_for_dashboards(page)
                timings["open and run all"] = time.monotonic() - mark
                assert count == stored_dashboards(NOTEBOOK) > 0, (
                    f"{count} dashboards drawn; the stored notebook has {stored_dashboards(NOTEBOOK)}")

                mark = time.monotonic()
                cells = dashboard_cells(panel)
                for i in range(cells.count()):
                    cell = cells.nth(i)
                    cell.scroll_into_view_if_needed()
                    settle_and_screenshot(cell, ARTIFACTS / f"dashboard-{i + 1}-before.png")
                    counts, pressed, found = operate_by_keyboard(page, panel, cell, frontend, f"dashboard {i + 1}")
                    settle_and_screenshot(cell, ARTIFACTS / f"dashboard-{i + 1}-after.png")
                    problems += found
                    record[f"dashboard {i + 1}"] = {"controls": dict(counts), "keys pressed": pressed}
                    if not pressed:
                        problems.append(f"dashboard {i + 1}: no control was moved ({dict(counts)})")
                timings["every control moved"] = time.monotonic() - mark

                shown = panel.evaluate(_ERRORS_SHOWN)
                if shown["views"] or shown["texts"]:
                    first = panel.locator(ERROR_VIEWS)
                    target = first.first if first.count() else panel
                    target.scroll_into_view_if_needed()
                    target.screenshot(path=str(ARTIFACTS / "widget-error.png"))
                    problems.append(f"the page shows a widget error where the handle names' helper would be "
                                    f"(screenshot {ARTIFACTS / 'widget-error.png'}): {shown}")
                handles = record["slider handles"] = panel.evaluate(_HANDLES)
                named = [h for h in handles if h["labelledby"]]
                if not handles:
                    problems.append("no slider handle in the dashboards")
                elif named:  # the helper's work: it cannot have run without anywidget's front-end
                    problems.append(f"{len(named)} of {len(handles)} slider handles were named by the helper, so "
                                    f"anywidget's front-end ran: {named[:3]}")
                shut_down_kernel(page, server)
            finally:
                browser.close()
                record["console"] = console
    finally:
        server.stop()
        shutil.copy2(server.log_path, ARTIFACTS / "server.log")
        timings["total"] = time.monotonic() - start
        (ARTIFACTS / "timings.txt").write_text("".join(f"{k}: {v:.1f} s\n" for k, v in timings.items()))
        (ARTIFACTS / "record.json").write_text(json.dumps(record, indent=1))
    assert not problems, "\n".join(problems)
