"""End-to-end: every learner notebook in a real JupyterLab, driven in headless Chromium.

For each notebook in notebooks/ (copied to a scratch folder, so nothing is saved into the
repository): open it, Run All, wait for the kernel, assert no cell raised, then move every
slider and click every toggle, and assert the picture of its dashboard changes. Screenshots of every dashboard
before and after go to test-artifacts/browser/.

Needs Debian's `chromium` (apt-get install chromium) and the `playwright` package (in the
lock). Without a browser the test is skipped with a message, unless COURSE_REQUIRE_BROWSER=1
(set by .ci/run), where a missing browser fails the run.
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
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium")
TOKEN = "course-browser-test"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
LEARNER_NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _missing_browser_reason():
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (it is in requirements.lock: run `make env`)"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return (f"no Chromium at {CHROMIUM}: install Debian's chromium (`sudo apt-get install chromium`) "
                "or set COURSE_CHROMIUM to a Chromium binary to run the browser test")
    return None


@pytest.fixture(scope="module")
def browser_page():
    reason = _missing_browser_reason()
    if reason:
        if os.environ.get("COURSE_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser test required (COURSE_REQUIRE_BROWSER=1) but {reason}")
        pytest.skip(f"browser test skipped: {reason}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        yield page
        browser.close()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory):
    """A JupyterLab server on a scratch copy of notebooks/, with throwaway settings."""
    if _missing_browser_reason():  # let browser_page decide between skip and fail
        yield None
        return
    scratch = tmp_path_factory.mktemp("lab")
    work = scratch / "work"
    shutil.copytree(ROOT / "notebooks", work / "notebooks")
    settings = scratch / "settings"
    (settings / "@jupyterlab" / "apputils-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false"}))
    (settings / "@jupyterlab" / "notebook-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        json.dumps({"windowingMode": "none"}))  # render every cell (no virtualised off-screen cells)
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(scratch / "workspaces"))
    port = _free_port()
    log = open(scratch / "lab.log", "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--ServerApp.token={TOKEN}", "--allow-root", "--LabApp.expose_app_in_browser=True",
         f"--ServerApp.root_dir={work}", "--ContentsManager.checkpoints_kwargs={'root_dir': '" + str(scratch / "ckpt") + "'}"],
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=2)
            break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail("JupyterLab did not start:\n" + (scratch / "lab.log").read_text()[-3000:])
            time.sleep(0.3)
    yield base
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
    log.close()


def _wait_idle(page, timeout_ms=120_000):
    """Wait until the current notebook's kernel is connected and idle (the toolbar's indicator
    says "idle" while the kernel is still initialising, so ask the session itself)."""
    page.wait_for_function(
        """() => {
            const widget = window.jupyterapp.shell.currentWidget;
            const kernel = widget && widget.sessionContext && widget.sessionContext.session
                           && widget.sessionContext.session.kernel;
            return !!kernel && kernel.connectionStatus === 'connected' && kernel.status === 'idle';
        }""", timeout=timeout_ms)


@pytest.mark.parametrize("notebook", LEARNER_NOTEBOOKS, ids=[p.stem for p in LEARNER_NOTEBOOKS])
def test_notebook_runs_and_sliders_redraw(browser_page, lab_url, notebook):
    page = browser_page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    # ?reset: a fresh workspace, so earlier notebooks' tabs are not restored beside this one
    page.goto(f"{lab_url}/lab/tree/notebooks/{notebook.name}?reset&token={TOKEN}")
    page.wait_for_function(
        "(name) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " return !!w && !!w.context && w.context.path.endsWith(name) && w.content.widgets.length > 0; }",
        arg=notebook.name, timeout=60_000)
    _wait_idle(page)
    panel_id = page.evaluate("() => window.jupyterapp.shell.currentWidget.id")
    panel = page.locator(f'[id="{panel_id}"]')  # every query below stays inside this notebook's tab

    started = time.monotonic()
    # the command's promise settles when every cell has run (false if one failed)
    all_ran = page.evaluate("async () => await window.jupyterapp.commands.execute('notebook:run-all-cells')")
    _wait_idle(page)
    prompts = panel.evaluate(
        "(node) => [...node.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')].map(p => p.textContent.trim())")
    unrun = [i for i, text in enumerate(prompts) if not re.fullmatch(r"\[\d+\]:?", text)]
    assert prompts and not unrun, f"{notebook.name}: code cells {unrun} did not run (prompts {prompts})"
    run_all_seconds = time.monotonic() - started
    page.screenshot(path=str(ARTIFACTS / f"{notebook.stem}-run-all.png"))

    assert all_ran, f"{notebook.name}: Run All reported a failing cell"
    errors = panel.evaluate(
        """(node) => [...node.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
                 .map(e => e.textContent).filter(t => /Traceback|Error/.test(t))""")
    assert not errors, f"{notebook.name}: a cell raised in JupyterLab:\n" + "\n---\n".join(e[:1500] for e in errors)

    cells = panel.locator(".jp-CodeCell", has=page.locator(".widget-slider"))
    sliders_moved = toggles_clicked = 0
    for c in range(cells.count()):
        cell = cells.nth(c)
        cell.scroll_into_view_if_needed()
        cell.screenshot(path=str(ARTIFACTS / f"{notebook.stem}-dashboard{c + 1}-before.png"))
        handles = cell.locator(".widget-slider .noUi-handle")
        for h in range(handles.count()):
            picture = cell.locator(".jp-OutputArea-output img").first
            before_src = picture.get_attribute("src")
            handle = handles.nth(h)
            before_value = handle.get_attribute("aria-valuenow")
            handle.focus()
            for _ in range(h + 1):  # slider h moves h + 1 steps, so the moves do not cancel out
                handle.press("ArrowRight")
            if handle.get_attribute("aria-valuenow") == before_value:  # at its maximum: step back instead
                handle.press("ArrowLeft")
            assert handle.get_attribute("aria-valuenow") != before_value, f"slider {h + 1} of dashboard {c + 1} did not move"
            # the dashboard replaces its picture (a new <img>) in the same cell; wait until it is decoded
            page.wait_for_function(
                """([cell, old]) => {
                    const img = cell.querySelector('.jp-OutputArea-output img');
                    return img !== null && img.getAttribute('src') !== old && img.complete && img.naturalWidth > 0;
                }""", arg=[cell.element_handle(), before_src], timeout=15_000)
            sliders_moved += 1
        # toggles too: every checkbox and every unselected toggle button must redraw the picture
        toggles = cell.locator(".widget-checkbox input, .widget-toggle-button:not(.mod-active)")
        for t in range(toggles.count()):
            before_src = cell.locator(".jp-OutputArea-output img").first.get_attribute("src")
            toggles.nth(t).click()
            page.wait_for_function(
                """([cell, old]) => {
                    const img = cell.querySelector('.jp-OutputArea-output img');
                    return img !== null && img.getAttribute('src') !== old && img.complete && img.naturalWidth > 0;
                }""", arg=[cell.element_handle(), before_src], timeout=15_000)
            toggles_clicked += 1
        # let the last picture finish decoding and painting before the screenshot
        cell.evaluate("""async (cell) => {
            const img = cell.querySelector('.jp-OutputArea-output img');
            if (img) { await img.decode(); }
        }""")
        page.wait_for_timeout(500)  # headless Chromium paints large images in tiles, a little later
        cell.screenshot(path=str(ARTIFACTS / f"{notebook.stem}-dashboard{c + 1}-after.png"))
    (ARTIFACTS / f"{notebook.stem}.txt").write_text(
        f"run all: {run_all_seconds:.1f} s; dashboards: {cells.count()}; sliders moved and redrawn: {sliders_moved}; "
        f"toggles clicked and redrawn: {toggles_clicked}\n")
    print(f"{notebook.name}: run all {run_all_seconds:.1f} s, {sliders_moved} sliders and {toggles_clicked} toggles redrawn")
