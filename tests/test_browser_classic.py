"""End-to-end in classic Notebook 6.5 with ipywidgets 7's JavaScript (widgetsnbextension 3.6): the widget stack
Colab's page follows (issue 22). Every learner notebook, as a learner who uploaded it would run it.

The server is ``python -m notebook`` (6.5.7) from the Colab-like venv (tests/colab_helpers.py: Colab's published
pins, ipywidgets 7.7.1, widgetsnbextension 3.6.10, Python 3.13 where the machine has it), on a scratch folder where
each notebook sits alone in a folder of its own. course_utils is taken out of the venv first (a fresh runtime) and
``COURSE_PACKAGE`` names a clean copy of the course (tracked files as in the work tree), so the first notebook's
first cell pip-installs the course into the kernel's Python, as it does in Colab. Headless Chromium (playwright, as
tests/test_browser.py launches it) drives the page through its ``Jupyter.notebook``. For each notebook:

- open it, Run All (``Jupyter.notebook.execute_all_cells()``), wait until every code cell ran (numbered from 1: a
  fresh kernel) and the kernel is idle; no cell raised or printed a traceback;
- as many dashboards show (``.course-dashboard``, kept by ipywidgets 7) as the solved notebook stores, each with a
  decoded picture;
- every control of every dashboard changed from the keyboard (the first focused, the others reached with Tab from
  it; a slider PageUp, a toggle button Space or Enter, a checkbox Space), and the first slider's track clicked with
  the mouse: after each, the picture (the ``img`` below the controls) is replaced and its alt text changes;
- every *Myth or fact?* card shows, hides its verdict, and says it in words after a choice;
- the concept inventory (00 and 08) shows its radio buttons, takes an answer to each question and Submit writes the
  answer file into the notebook's own folder (``inventory/``, where an installed course writes it);
- the kernel is shut down before the next notebook opens.

Screenshots of each dashboard before and after go to test-artifacts/browser-classic/, with one line of timings per
notebook (``<notebook>.txt`` and ``timings.txt``).

What this cannot show of Colab: Colab's own page and widget manager (its output frames, its
``enable_custom_widget_manager``), its runtime's Python and files; only the same ipywidgets 7 JavaScript and
Colab's Python packages.

Needs Debian's ``chromium`` and ``playwright`` (as tests/test_browser.py: skipped without them, failed when
COURSE_REQUIRE_BROWSER=1), and the Colab-like venv (a Python 3.10 or newer and git: skipped without, failed when
COURSE_REQUIRE_COLAB=1).
"""
from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import colab_helpers  # noqa: E402
from browser_helpers import answer_myths, answer_reviews, cells_calling, take_inventory  # noqa: E402
from classic_helpers import (  # noqa: E402
    TOKEN,
    ClassicServer,
    cell_errors,
    dashboard_cells,
    environment,
    open_notebook,
    operate_dashboard,
    printed,
    run_all,
    run_cell_of,
    screenshot,
    shut_down_kernels,
    wait_for_dashboards,
)
from test_browser import CHROMIUM, CHROMIUM_ARGS, _missing_browser_reason, skip_or_fail, stored_dashboards  # noqa: E402

from course_utils.lessons import reviews  # noqa: E402  (the review questions each notebook shows)

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts" / "browser-classic"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
WHAT = "classic Notebook browser test"
COLAB_REQUIRE = "COURSE_REQUIRE_COLAB"
NICKNAME = "browser-classic"
#: The interpreter of another Colab-like venv to run the server from, instead of .venv-colab (debugging: the test
#: takes course_utils out of that venv and the first cell installs it again).
PYTHON_VARIABLE = "COURSE_CLASSIC_PYTHON"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Classic:
    """The module's classic Notebook server, Chromium page and timing lines."""

    def __init__(self, python, choice, copy, server, page, versions):
        self.python, self.choice, self.copy, self.server, self.page = python, choice, copy, server, page
        self.versions = versions
        self.lines = []


@pytest.fixture(scope="module")
def classic():
    skip_or_fail(_missing_browser_reason(), WHAT)
    choice = colab_helpers.find_python()
    if choice.path is None:
        skip_or_fail(f"no Python for the Colab-like venv ({choice.note})", WHAT, COLAB_REQUIRE)
    if shutil.which("git") is None:
        skip_or_fail("git is not installed (the clean copy of the course is a git commit)", WHAT, COLAB_REQUIRE)
    try:
        python = Path(os.environ.get(PYTHON_VARIABLE) or colab_helpers.colab_python(choice))
    except RuntimeError as err:
        skip_or_fail(f"the Colab-like venv could not be built: {err}", WHAT, COLAB_REQUIRE)
    scratch = Path(tempfile.mkdtemp(prefix="course-classic-"))
    started = time.monotonic()
    copy = colab_helpers.clean_copy(scratch / "course")
    colab_helpers.uninstall_course(python)  # a fresh runtime: the first notebook's first cell installs the course
    env = colab_helpers.kernel_env(copy.source)
    env.pop("COURSE_INVENTORY_DIR", None)  # the installed course's own default: inventory/ of the working folder
    server = ClassicServer(python, scratch / "server", NOTEBOOKS, env)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = chromium.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.on("dialog", lambda dialog: dialog.accept())  # never block on a "leave page?" question
        try:
            server.wait_ready()
            state = Classic(python, choice, copy, server, page, environment(python))
            state.lines.append(f"set-up (clean copy, server) {time.monotonic() - started:.1f} s; {choice.note}; "
                               + ", ".join(f"{k} {v}" for k, v in state.versions.items()))
            yield state
        finally:
            chromium.close()
            server.stop()
            (ARTIFACTS / "server.log").write_text(server.log_path.read_text(errors="replace"))
            if "state" in locals():
                state.lines.append(f"total {time.monotonic() - started:.1f} s")
                (ARTIFACTS / "timings.txt").write_text("\n".join(state.lines) + "\n")
                print("\n" + "\n".join(state.lines))
            colab_helpers.uninstall_course(python)  # leave the venv as a fresh runtime, as the Colab test expects it
            shutil.rmtree(scratch, ignore_errors=True)


def test_the_frontend_is_classic_notebook_with_ipywidgets_7(classic):
    """What the page runs is what the issue asks for: notebook 6.5, widgetsnbextension 3.6, ipywidgets 7."""
    versions = classic.versions
    assert versions["notebook"].startswith("6.5."), versions
    assert versions["widgetsnbextension"].startswith("3.6."), versions
    assert versions["ipywidgets"].startswith("7."), versions
    page = classic.page
    page.goto(f"{classic.server.base}/tree?token={TOKEN}")
    extensions = page.evaluate("async () => { const r = await fetch('/api/config/notebook'); return await r.json(); }")
    loaded = extensions.get("load_extensions", {})
    assert loaded.get("jupyter-js-widgets/extension") is True, f"ipywidgets 7's nbextension is not enabled: {loaded}"


#: A stand-in for classic Notebook's page: ``Jupyter.notebook`` with no cell, then (after ``later`` ms, if given) one
#: cell showing a dashboard box of one control, its picture, and a widget manager whose ``get_model`` is async.
_FAKE_CLASSIC_PAGE = """(later) => {
    const cells = [];
    const model = {get: (key) => key === '_dom_classes' ? ['course-dashboard'] : ['IPY_MODEL_slider']};
    window.Jupyter = {notebook: {get_cells: () => cells,
                                 kernel: {widget_manager: {get_model: async (id) => model}}}};
    if (later === null) { return; }
    setTimeout(() => {
        const element = document.createElement('div');
        element.innerHTML = '<div class="output_area"><div class="course-dashboard"><span></span></div>'
            + '<img src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7" ></div>';
        document.body.appendChild(element);
        cells.push({element: [element], output_area: {outputs: [
            {data: {'application/vnd.jupyter.widget-view+json': {model_id: 'box'}}}]}});
    }, later);
}"""


def test_waiting_for_dashboards_waits_until_they_show(classic):
    """The report: a clean-clone run counted 0 dashboards in 01 right after ``wait_for_dashboards`` (Playwright's
    ``wait_for_function`` takes an async predicate's promise for a truthy value and returns at once). A page of its
    own in the module's browser (one sync Playwright at a time)."""
    page = classic.page.context.new_page()
    try:
        page.set_content("<body></body>")
        page.evaluate(_FAKE_CLASSIC_PAGE, 600)
        started = time.monotonic()
        wait_for_dashboards(page, 1, timeout_ms=10_000)
        waited = time.monotonic() - started
        assert page.locator(".course-dashboard").count() == 1, f"returned after {waited:.2f} s with no dashboard"
        assert waited >= 0.5, f"returned after {waited:.2f} s, before the dashboard was drawn (600 ms)"

        page.set_content("<body></body>")
        page.evaluate(_FAKE_CLASSIC_PAGE, None)  # never a dashboard
        with pytest.raises(TimeoutError):
            wait_for_dashboards(page, 1, timeout_ms=500)
    finally:
        page.close()


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[nb.stem for nb in NOTEBOOKS])
def test_notebook_runs_and_every_control_redraws_in_classic_notebook(classic, notebook):
    page, server = classic.page, classic.server
    name = notebook.stem
    timings, problems = {}, []
    others = server.kernels()
    assert others == [], f"kernels still running before {notebook.name}: {others}"

    page_errors = []

    def on_error(error):  # an exception the page's JavaScript did not catch
        page_errors.append(error)

    page.on("pageerror", on_error)
    started = time.monotonic()
    open_notebook(page, server, notebook.name)
    timings["open"] = time.monotonic() - started
    myths = inventory = None
    reached, keys, focus_lost = {}, [], 0
    try:
        started = time.monotonic()
        prompts = run_all(page)
        timings["run all"] = time.monotonic() - started
        errors = cell_errors(page)
        assert not errors, (f"{name}: {len(errors)} cell(s) raised in classic Notebook (ipywidgets 7):\n"
                            + "\n---\n".join(f"cell {i}: {ANSI.sub('', text)[:1500]}" for i, text in errors))
        assert prompts == list(range(1, len(prompts) + 1)), f"{name}: the cells ran as {prompts}, not 1, 2, ... in order"
        first_code = page.evaluate("() => Jupyter.notebook.get_cells().findIndex(c => c.cell_type === 'code')")
        install_note = printed(page, first_code).strip()

        expected = stored_dashboards(ROOT / "solutions" / notebook.name)
        started = time.monotonic()
        if expected:
            wait_for_dashboards(page, expected)
        timings["dashboards shown"] = time.monotonic() - started
        cells = dashboard_cells(page)
        assert cells.count() == expected, f"{name}: {cells.count()} dashboards on the page, the solved notebook shows {expected}"

        started = time.monotonic()
        for c in range(cells.count()):
            cell = cells.nth(c)
            cell.scroll_into_view_if_needed()
            screenshot(cell, ARTIFACTS / f"{name}-dashboard{c + 1}-before.png")
            counts, pressed, lost, found = operate_dashboard(page, cell, f"{name} dashboard {c + 1}")
            focus_lost += lost
            for kind, n in counts.items():
                reached[kind] = reached.get(kind, 0) + n
            keys += pressed
            problems += found
            screenshot(cell, ARTIFACTS / f"{name}-dashboard{c + 1}-after.png")
        timings["controls"] = time.monotonic() - started
        if expected:
            assert reached.get("slider"), f"{name}: no slider reached in its {expected} dashboard(s)"

        started = time.monotonic()
        myths, found = answer_myths(page, page, redraw=run_cell_of)
        problems += [f"{name}: {problem}" for problem in found]
        redrawn = answer_myths.redrawn
        expected_myths = cells_calling(notebook, "MythOrFact(")
        if myths != expected_myths:
            problems.append(f"{name}: {myths} myth cards on the page, the notebook makes {expected_myths}")
        reviewed, found = answer_reviews(page, page)
        problems += [f"{name}: {problem}" for problem in found]
        expected_reviews = len(reviews.REVIEWS.get(Path(notebook).stem, ()))  # questions (content/reviews.toml)
        if reviewed != expected_reviews:
            problems.append(f"{name}: {reviewed} review questions answered by keyboard, expected {expected_reviews}")
        if cells_calling(notebook, "ConceptInventory(") and page.locator(".course-inventory").count() == 0:
            problems.append(f"{name}: the concept inventory form does not show")
        if myths:
            page.locator(".cell.code_cell", has=page.locator(".course-myth")).first.screenshot(
                path=str(ARTIFACTS / f"{name}-myth1-answered.png"))
        if page.locator(".course-inventory").count():
            radios = page.locator(".course-inventory .widget-radio-box input[type=radio]")
            if radios.count() == 0 or not radios.first.is_visible():
                problems.append(f"{name}: the concept inventory shows no radio buttons")
        inventory = take_inventory(page, page, nickname=NICKNAME)
        if inventory is not None:  # the form's cell after Submit (classic Notebook scrolls a long output in a box)
            page.locator(".cell.code_cell", has=page.locator(".course-inventory")).first.screenshot(
                path=str(ARTIFACTS / f"{name}-inventory-submitted.png"))
        if inventory is not None:
            questions, feedback, found = inventory
            problems += [f"{name}: {problem}" for problem in found]
            expected_feedback = 0 if name.startswith("00") else questions
            if feedback != expected_feedback:
                problems.append(f"{name}: the inventory showed {feedback} feedback blocks after Submit, expected "
                                f"{expected_feedback} of {questions} questions")
            answers = server.folders[notebook.name] / "inventory"
            if not list(answers.glob(f"{NICKNAME}*.json")):
                problems.append(f"{name}: Submit wrote no answer file in the notebook's folder ({answers})")
        timings["questions"] = time.monotonic() - started
    finally:
        started = time.monotonic()
        kernels = shut_down_kernels(page, server)
        timings["shutdown"] = time.monotonic() - started
        page.remove_listener("pageerror", on_error)
    problems += [f"{name}: the page's JavaScript raised: {str(error)[:300]}" for error in page_errors]

    line = (f"{notebook.name}: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items())
            + f" (total {sum(timings.values()):.1f} s); dashboards {cells.count()}, controls reached {reached}, "
            f"actions {len(keys)} ({', '.join(sorted(set(keys)))}), focus lost after {focus_lost} toggle button presses "
            f"(ipywidgets 7 draws them anew); myth cards {myths}"
            + (f" ({redrawn} drawn incomplete, whole after their cell ran again)" if redrawn else "") + "; inventory "
            f"{'-' if inventory is None else f'{inventory[0]} questions, {inventory[1]} feedback'}"
            + (f"; first cell: {install_note.splitlines()[0][:120]}" if install_note else ""))
    classic.lines.append(line)
    (ARTIFACTS / f"{name}.txt").write_text(line + "\n")
    print(line)
    assert kernels[1] == 0, f"{name}: the server still runs {kernels[1]} kernel(s) after shutting them down"
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems)

