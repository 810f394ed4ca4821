"""End-to-end: every learner notebook in a real JupyterLab and a real Notebook 7, driven in headless Chromium.

One server per frontend (``python -m jupyterlab``, ``python -m notebook``) on a scratch copy of notebooks/,
so nothing is saved into the repository; every notebook of a frontend opens in that one server. Both frontends are
driven in the background from the start of the session (conftest.py calls :func:`start_in_background` once the
tests are collected), each in a thread of its own with its own Chromium (``Alongside``), while pytest's thread runs
the other tests: on 2 cores the browser test alone keeps them about 96 % busy, the rest of the suite about half,
and each alone leaves gaps the other fills. conftest.py runs these tests last; each waits for its own notebook's
result and reports it (its summary line, or the very error the notebook raised). For each
notebook, in each frontend:

- open it, Run All, wait for the kernel, assert no cell raised;
- the news question ("Would you like to get notified about official Jupyter news?") is not asked: the
  course's environment turns it off (tools/jupyter_settings.py, written by `make env`), and the frontend
  must have received that default from the server; the test sets nothing for it;
- axe-core (axe-playwright-python) over the outputs and widgets (``.jp-OutputArea``, the same in both
  frontends): counts by impact printed; no critical or serious violation allowed (the slider handles,
  unnamed by ipywidgets 8.1.9, are named after their labels by course_utils/widgets/_handle_names.py, and
  every handle's name is checked against its label);
- keyboard only: from the dashboard's cell (selected in command mode), every control is reached with Tab
  key presses and changed with keys that work in both frontends (a slider: PageUp, or PageDown at its
  maximum; a toggle button: Space or Enter; a checkbox: Space; in JupyterLab also ArrowRight on the first
  slider of each dashboard); after each press the picture must be replaced, its alt text must change and
  focus must stay on the control;
- the notebook's kernel is shut down before the next notebook opens, and the server must run no kernel but the
  next notebook's: once a notebook has run, the next one's session is started through the server's API (its kernel
  boots while this notebook is driven), and the frontend must connect to that fresh kernel when it opens the
  notebook (same kernel id; its first cell runs as [1]).

Screenshots of every dashboard before and after go to test-artifacts/browser/, with the axe results
(``axe-<frontend>-<notebook>.json``) and a line of timings per notebook.

Needs Debian's `chromium` (apt-get install chromium) and the `playwright` and `axe-playwright-python`
packages (in the lock). Without a browser the test is skipped with a message, unless
COURSE_REQUIRE_BROWSER=1 (set by .ci/run), where a missing browser fails the run.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest
from browser_helpers import (  # tests/browser_helpers.py
    FRONTENDS,
    Server,
    answer_myths,
    answer_reviews,
    axe_scan,
    blocking,
    dashboard_cells,
    format_axe,
    news_setting,
    open_notebook,
    operate_by_keyboard,
    run_all,
    settle_and_screenshot,
    shut_down_kernel,
    take_inventory,
    wait_for_dashboards,
)

from course_utils.lessons import reviews

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
LEARNER_NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: Every notebook in JupyterLab first, then every notebook in Notebook 7.
CASES = [(frontend, notebook) for frontend in FRONTENDS for notebook in LEARNER_NOTEBOOKS]


def stored_dashboards(path):
    """How many cells of a stored notebook show a dashboard (a widget view and a picture among their outputs)."""
    count = 0
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        kinds = {kind for output in cell.get("outputs", []) for kind in output.get("data", {})}
        count += {"application/vnd.jupyter.widget-view+json", "image/png"} <= kinds
    return count


def _missing_browser_reason():
    try:
        import axe_playwright_python  # noqa: F401
        import playwright.sync_api  # noqa: F401
    except ImportError as error:
        return f"the {error.name} package is not installed (it is in requirements-dev.lock: run `make env-dev`)"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return (f"no Chromium at {CHROMIUM}: install Debian's chromium (`sudo apt-get install chromium`) "
                "or set COURSE_CHROMIUM to a Chromium binary to run the browser test")
    return None


def skip_or_fail(reason: str | None, what: str = "browser test", variable: str = "COURSE_REQUIRE_BROWSER") -> None:
    """Skip the test with ``reason`` (what is missing), or fail when ``variable`` is 1 (CI requires it); nothing when
    ``reason`` is None. tests/test_hub.py uses it with its own name and variable."""
    if reason:
        if os.environ.get(variable) == "1":
            pytest.fail(f"{what} required ({variable}=1) but {reason}")
        pytest.skip(f"{what} skipped: {reason}")


def _skip_or_fail_without_a_browser():
    skip_or_fail(_missing_browser_reason())


class Pages:
    """frontend key -> a page of its own (a fresh browser context each), made on first use."""

    def __init__(self, browser):
        self.browser, self.made = browser, {}

    def __call__(self, key):
        if key not in self.made:
            page = self.browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            page.on("dialog", lambda dialog: dialog.accept())  # never block on a "leave page?" question
            self.made[key] = page
        return self.made[key]

    def close(self):
        for page in self.made.values():
            page.context.close()


def selected_cases(items):
    """(frontend, notebook) of every browser test among ``items`` (a session's), in order."""
    return [(item.callspec.params["frontend"], item.callspec.params["notebook"]) for item in items
            if item.path == Path(__file__) and hasattr(item, "callspec") and "frontend" in item.callspec.params]


class Alongside:
    """Drives every notebook of one frontend in a thread of its own (its own Playwright and Chromium). Each test of
    that frontend waits for its notebook's result and reports it: the summary line, or the very exception (an
    assertion's included) the notebook raised."""

    def __init__(self, frontend, notebooks, work, launch=True):
        """``work(pages, kernels_ahead, notebook, following)`` drives one notebook and returns its summary line;
        ``launch=False`` starts no browser (``pages`` is then None)."""
        import threading

        self.frontend, self.notebooks, self.work, self.launch = frontend, notebooks, work, launch
        self.results, self.done = {}, {nb: threading.Event() for nb in notebooks}
        self.stopping = threading.Event()
        self.finished = None  #: time.monotonic() when the last notebook was done
        self.thread = threading.Thread(target=self._run, name=f"browser-{frontend}", daemon=True)
        self.thread.start()

    def _each(self, pages):
        ahead = {}
        for index, notebook in enumerate(self.notebooks):
            if self.stopping.is_set():
                break
            following = self.notebooks[index + 1] if index + 1 < len(self.notebooks) else None
            try:
                self.results[notebook] = ("summary", self.work(pages, ahead, notebook, following))
            except BaseException as error:  # noqa: BLE001 - reported by the notebook's own test
                self.results[notebook] = ("error", error)
            self.done[notebook].set()

    def _run(self):
        try:
            if not self.launch:
                return self._each(None)
            from playwright.sync_api import sync_playwright

            with sync_playwright() as p:
                chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                pages = Pages(chromium)
                try:
                    self._each(pages)
                finally:
                    pages.close()
                    chromium.close()
        except BaseException as error:  # noqa: BLE001 - Playwright or Chromium failed to start: every test says so
            for notebook, event in self.done.items():
                self.results.setdefault(notebook, ("error", error))
                event.set()
        finally:
            self.finished = time.monotonic()

    def result(self, notebook, timeout=900):
        """The summary line of ``notebook``'s run; raise what the run raised."""
        if not self.done[notebook].wait(timeout):
            pytest.fail(f"{FRONTENDS[self.frontend].title}: {notebook.name} gave no result within {timeout} s")
        kind, value = self.results[notebook]
        if kind == "error":
            raise value
        return value

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=120)


class Background:
    """Every selected notebook of every frontend, driven from the start of the session (see
    :func:`start_in_background`): one server and one :class:`Alongside` per frontend, all at the same time."""

    def __init__(self, cases, scratch: Path):
        self.scratch, self.started = scratch, time.monotonic()
        order = list(dict.fromkeys(frontend for frontend, _ in cases))
        self.servers = {key: Server(FRONTENDS[key], scratch / key, ROOT / "notebooks") for key in order}
        self.runners = {key: Alongside(key, [nb for f, nb in cases if f == key], self._work_in(key)) for key in order}

    def _work_in(self, frontend):
        return lambda pages, ahead, notebook, following: drive(pages, self.servers, ahead, frontend, notebook, following)

    def result(self, frontend, notebook):
        return self.runners[frontend].result(notebook)

    def stop(self) -> float:
        """Stop the runners (after the notebook each is driving), then the servers; the seconds from the start until
        the last runner was done (or until now, when one was still running)."""
        for runner in self.runners.values():
            runner.stop()
        for server in self.servers.values():
            server.stop()
        ends = [runner.finished or time.monotonic() for runner in self.runners.values()]
        shutil.rmtree(self.scratch, ignore_errors=True)
        return max(ends, default=self.started) - self.started


def start_in_background(items) -> Background | None:
    """Called by conftest.py once the session's tests are collected, before the first one runs: when ``items``
    include browser tests and the browser is at hand, start driving their notebooks now, in threads, while the
    other tests run in pytest's thread (on 2 cores the browser test alone leaves about one core idle: it mostly
    waits on its kernels and pages). conftest.py moves the browser tests to the end of the session, where each
    waits for its notebook's result. None when there is nothing to start (the tests then skip or fail)."""
    import tempfile

    cases = selected_cases(items)
    if not cases or _missing_browser_reason():
        return None
    return Background(cases, Path(tempfile.mkdtemp(prefix="course-browser-")))


@pytest.fixture(scope="module")
def background(request):
    """The session's :class:`Background` (started by conftest.py through :func:`start_in_background`)."""
    _skip_or_fail_without_a_browser()
    started = getattr(request.config, "course_browser", None)
    assert started is not None, "conftest.py did not start the browser test's notebooks (start_in_background)"
    return started


def test_a_frontend_driven_alongside_reports_each_notebooks_own_result_in_its_test():
    """Alongside (no browser here): every notebook is driven in order with the one after it, and each test gets its
    own notebook's summary, or the very error it raised, whatever the notebooks before and after it did."""
    seen = []

    def work(pages, ahead, notebook, following):
        seen.append((notebook, following))
        ahead[notebook] = True
        assert notebook != "b", "b's own problem"
        return f"{notebook} ran"

    runner = Alongside("notebook7", ["a", "b", "c"], work, launch=False)
    try:
        assert runner.result("c") == "c ran" and runner.result("a") == "a ran"
        with pytest.raises(AssertionError, match="b's own problem"):
            runner.result("b")
    finally:
        runner.stop()
    assert seen == [("a", "b"), ("b", "c"), ("c", None)]
    assert runner.finished is not None


def test_the_browser_tests_run_last_with_their_notebooks_started_at_the_session_start(request):
    """conftest.py moves this module's tests after every other test but the other browser tests' and the JupyterHub
    test's (which wait until the browser's notebooks are done), and starts their notebooks (one runner per frontend
    selected) before the first test of the session ran."""
    items = request.session.items
    after = [Path(__file__).with_name(name) for name in
             ("test_browser_no_anywidget.py", "test_browser_classic.py", "test_hub.py")]
    mine = [item for item in items if item.path == Path(__file__)]
    later = [item for path in after for item in items if item.path == path]
    assert items[len(items) - len(mine) - len(later):] == mine + later, \
        "a test of another module runs after the browser tests"
    frontends = {frontend for frontend, _ in selected_cases(items)}
    background = getattr(request.config, "course_browser", None)
    if not frontends or _missing_browser_reason():
        assert background is None
        return
    assert background is not None and set(background.runners) == frontends
    assert background.started <= request.config.course_tests_started, "started after the first test"


def kernel_name(notebook):
    return json.loads(notebook.read_text(encoding="utf-8"))["metadata"]["kernelspec"]["name"]


@pytest.mark.parametrize(("frontend", "notebook"), CASES, ids=[f"{f}-{nb.stem}" for f, nb in CASES])
def test_notebook_runs_and_every_control_works_from_the_keyboard(background, frontend, notebook):
    print(background.result(frontend, notebook))


def drive(pages, servers, kernels_ahead, frontend, notebook, following):
    """Everything the test does with ``notebook`` in ``frontend`` (``following``: the notebook this frontend opens
    next, whose kernel is started ahead); returns the summary line, raises AssertionError on a problem."""
    server = servers[frontend].wait_ready()
    page = pages(frontend)
    front = FRONTENDS[frontend]
    name = f"{frontend}-{notebook.stem}"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    timings, problems = {}, []
    ahead = kernels_ahead.pop(frontend, None)
    ahead_id = ahead[1] if ahead and ahead[0] == notebook.name else None
    others = [kernel for kernel in server.kernels() if kernel["id"] != ahead_id]
    assert others == [], f"{front.title}: kernels still running before {notebook.name}: {others}"

    started = time.monotonic()
    panel = open_notebook(page, server, f"notebooks/{notebook.name}")
    timings["open"] = time.monotonic() - started
    kernels = None
    try:
        if ahead_id is not None:
            used = page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.id")
            assert used == ahead_id, (f"{name}: {front.title} started kernel {used} instead of connecting to the one "
                                      f"started ahead for this notebook ({ahead_id})")
        started = time.monotonic()
        all_ran = run_all(page)
        timings["run all"] = time.monotonic() - started
        prompts = panel.evaluate(
            "(node) => [...node.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')].map(p => p.textContent.trim())")
        unrun = [i for i, text in enumerate(prompts) if not re.fullmatch(r"\[\d+\]:?", text)]
        assert prompts and not unrun, f"{name}: code cells {unrun} did not run (prompts {prompts})"
        assert re.fullmatch(r"\[1\]:?", prompts[0]), f"{name}: the first cell ran as {prompts[0]}: not a fresh kernel"
        assert all_ran, f"{name}: Run All reported a failing cell"
        errors = panel.evaluate(
            """(node) => [...node.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
                     .map(e => e.textContent).filter(t => /Traceback|Error/.test(t))""")
        assert not errors, f"{name}: a cell raised in {front.title}:\n" + "\n---\n".join(e[:1500] for e in errors)
        if following is not None:  # the next notebook's fresh kernel boots while this one is driven
            kernels_ahead[frontend] = (following.name, server.start_kernel_ahead(
                f"notebooks/{following.name}", kernel_name(following)))

        started = time.monotonic()
        expected_dashboards = wait_for_dashboards(page)
        timings["dashboards shown"] = time.monotonic() - started
        news = news_setting(page)
        assert news["fetchNewsDefault"] == "false" and not news["asked"], (
            f"{front.title} asks about Jupyter news or did not receive the course's default ({news}): `make env` "
            "writes it into the environment (tools/jupyter_settings.py)")

        started = time.monotonic()
        axe = axe_scan(page)
        timings["axe"] = time.monotonic() - started
        (ARTIFACTS / f"axe-{name}.json").write_text(json.dumps(axe, indent=1) + "\n")
        problems += [f"{name}: axe {v['impact']} {v['id']} on {v['nodes']} node(s): {v['help']}; e.g. {v['first']}"
                     for v in blocking(axe)]

        # Each slider handle (what takes the focus) is named after its slider's visible label
        # (course_utils/widgets/_handle_names.py; ipywidgets alone leaves it unnamed).
        handles = panel.evaluate("""(node) => [...node.querySelectorAll('.widget-slider')].map(s => {
            const h = s.querySelector('.noUi-handle'), label = s.querySelector('.widget-label');
            const by = h && h.getAttribute('aria-labelledby');
            const name = h ? (by ? (document.getElementById(by) || {}).textContent : h.getAttribute('aria-label')) : null;
            return {name: (name || '').trim(), label: (label ? label.textContent : '').trim()}; })""")
        unnamed = [h for h in handles if not h["name"] or (h["label"] and h["name"] != h["label"])]
        problems += [f"{name}: a slider handle is named {h['name']!r}, its label reads {h['label']!r}" for h in unnamed]
        stored = stored_dashboards(ROOT / "solutions" / notebook.name)
        assert expected_dashboards == stored, (
            f"{name}: {expected_dashboards} dashboards on the page, the solved notebook shows {stored}")
        assert handles or not stored, f"{name}: no slider found in its {stored} dashboard(s)"

        started = time.monotonic()
        cells = dashboard_cells(panel)
        reached, keys = {}, []
        for c in range(cells.count()):
            cell = cells.nth(c)
            cell.scroll_into_view_if_needed()
            settle_and_screenshot(cell, ARTIFACTS / f"{name}-dashboard{c + 1}-before.png")
            counts, pressed, found = operate_by_keyboard(
                page, panel, cell, front, f"{name} dashboard {c + 1}", arrows_on_first_slider=front.arrows_move_sliders)
            for kind, n in counts.items():
                reached[kind] = reached.get(kind, 0) + n
            keys += pressed
            problems += found
            settle_and_screenshot(cell, ARTIFACTS / f"{name}-dashboard{c + 1}-after.png")
        timings["keyboard"] = time.monotonic() - started
        assert cells.count() == expected_dashboards, (
            f"{name}: {cells.count()} dashboards found, {expected_dashboards} cells display one")

        # Predict before reveal: every myth question hides its verdict until a choice, then says it in words.
        started = time.monotonic()
        myths, found = answer_myths(page, panel)
        problems += [f"{name}: {problem}" for problem in found]
        # The review that opens 02-05: chosen by the keyboard alone, feedback in words for each choice.
        reviewed, found = answer_reviews(page, panel)
        problems += [f"{name}: {problem}" for problem in found]
        expected_reviews = len(reviews.REVIEWS.get(notebook.stem, ()))  # questions (content/reviews.toml)
        if reviewed != expected_reviews:
            problems.append(f"{name}: {reviewed} review questions answered on the page, expected {expected_reviews}")
        # The concept inventory (00: before, no feedback; 08: after, feedback for every question).
        inventory = take_inventory(page, panel, nickname=f"browser-{frontend}")
        if inventory is not None:
            questions, feedback, found = inventory
            problems += [f"{name}: {problem}" for problem in found]
            expected_feedback = 0 if notebook.name.startswith("00") else questions
            if feedback != expected_feedback:
                problems.append(f"{name}: the inventory showed {feedback} feedback blocks after Submit, "
                                f"expected {expected_feedback} of {questions} questions")
            files = sorted(p.name for p in server.inventory_dir.glob(f"browser-{frontend}*.json"))
            if not files:
                problems.append(f"{name}: Submit wrote no answer file in {server.inventory_dir}")
        timings["questions"] = time.monotonic() - started
    finally:
        started = time.monotonic()
        kept = {kernels_ahead[frontend][1]} if frontend in kernels_ahead else set()
        kernels = shut_down_kernel(page, server, keep=kept)
        timings["shutdown"] = time.monotonic() - started

    summary = (f"{front.title} {notebook.name}: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items())
               + f"; dashboards {cells.count()}, controls reached by Tab {reached}, keys {len(keys)} "
               f"({', '.join(sorted(set(keys)))}); myth questions answered {myths}; review questions {reviewed}; "
               f"inventory {'-' if inventory is None else f'{inventory[0]} questions, {inventory[1]} feedback'}; "
               f"{format_axe(axe)}; "
               f"kernels running before shutdown {kernels[0]}, after {kernels[1]} (the next notebook's left out); "
               f"kernel started ahead: {'yes' if ahead_id else 'no'}")
    (ARTIFACTS / f"{name}.txt").write_text(summary + "\n")
    assert kernels[1] == 0, f"{name}: the server still runs {kernels[1]} kernel(s) after shutting this notebook's down"
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems)
    return summary
