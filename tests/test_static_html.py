"""The static HTML of the course (``python tools/html_pages.py``) reads fully offline, in a real browser.

1. Export. The command writes a page for every solved notebook, run in a fresh network namespace when one can
   be made here (``unshare --net``; ``unshare --map-root-user --net`` when not root; ``COURSE_OFFLINE_MODE=guard``
   or no ``unshare`` skips it), so the export itself needs no network. Its pages load no remote file (static scan).

2. Reading. Each page is opened in headless Chromium (Debian's ``/usr/bin/chromium``, through Playwright), with
   the network cut twice over: Chromium runs in its own network namespace (same rule as above), and every
   request that is not a ``file:`` or ``data:`` URL is recorded and aborted. Then, for every notebook:

   - no request tried to leave the machine, and the page logged no console error nor uncaught exception;
   - every figure a code cell stored (PNG, JPEG, SVG, or an HTML ``<img>``) is an ``<img>`` in that cell's output
     area that loaded (``naturalWidth > 0``): the dashboards at their starting values included;
   - every such ``<img>`` has an alt text of its own (not empty, and not the placeholder nbconvert writes when a
     figure has none);
   - the maths is rendered: each markdown cell holds as many ``<math>`` elements as its source has TeX
     expressions, laid out by the browser as MathML (computed ``display`` of ``math``/``block math``, a size
     greater than zero, no ``<merror>``), and its visible text (code left aside) holds no raw TeX (``$...$``,
     ``\\(``, ``\\[``, ``\\frac``, ...);
   - the text a dashboard leaves in a static view is not the widget's repr (``VBox(children=...``);
   - ``index.html`` links every page.

   A probe page (a remote image and script) proves that the recorder sees and stops what the pages must not do.

Screenshots of each notebook's first cell with display maths (else any maths) and of its first dashboard go to
``test-artifacts/static-html/``.

Needs Debian's ``chromium`` and the ``playwright`` package (in the lock). Without them the browser tests are
skipped with a message, unless COURSE_REQUIRE_BROWSER=1 (set in CI), where a missing browser fails the run.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import html_pages as static_html
import pytest

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
ARTIFACTS = ROOT / "test-artifacts" / "static-html"
CHROMIUM = os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [  # as tests/test_browser.py
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
#: What nbconvert writes as the alt of an <img> that has none: it is no description.
NBCONVERT_PLACEHOLDER_ALT = "No description has been provided for this image"
LOCAL_SCHEMES = ("file:", "data:", "about:", "blob:")
FIGURE_MIMES = ("image/png", "image/jpeg", "image/svg+xml")
#: Raw TeX in a markdown cell's visible text: $...$, $$, \( \) \[ \] and any \command.
RAW_TEX = re.compile(r"\$[^$\s][^$]*\$|\$\$|\\[()\[\]]|\\[A-Za-z]+")
WIDGET_REPR = re.compile(r"\b\w*(?:Box|Tab|Accordion)\(children=|\blayout=Layout\(")

# ---------------------------------------------------------------------------------------------
# What the notebooks hold (the expectations)
# ---------------------------------------------------------------------------------------------

_FENCED_CODE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
_INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
_TEX = [  # nbconvert's delimiters, display ones first (as its markdown parser matches them)
    re.compile(r"(?<!\\)\$\$.+?(?<!\\)\$\$", re.S),
    re.compile(r"(?<!\\)\\\[.+?(?<!\\)\\\]", re.S),
    re.compile(r"\\begin\{([a-z]*\*?)\}.*?\\end\{\1\}", re.S),
    re.compile(r"(?<!\\)\\\(.+?(?<!\\)\\\)", re.S),
    re.compile(r"(?<![$\\])\$.+?(?<![$\\])\$", re.S),
]


def tex_count(markdown: str) -> int:
    """How many TeX expressions a markdown source holds (code spans and blocks left aside)."""
    text = _INLINE_CODE.sub(" ", _FENCED_CODE.sub(" ", markdown))
    count = 0
    for pattern in _TEX:
        count += len(pattern.findall(text))
        text = pattern.sub(" ", text)
    return count


def _source(value) -> str:
    return value if isinstance(value, str) else "".join(value)


def expected(path: Path) -> dict:
    """Per cell id: the figures stored (code cells), the TeX expressions (markdown cells), dashboards."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    figures, maths, dashboards = {}, {}, []
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            maths[cell["id"]] = tex_count(_source(cell["source"]))
        elif cell["cell_type"] == "code":
            count = 0
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                if "text/html" in data:  # shown before any picture of the same output (nbconvert's priority)
                    count += len(re.findall(r"<img\b", _source(data["text/html"]), re.I))
                elif any(mime in data for mime in FIGURE_MIMES):
                    count += 1
                if "application/vnd.jupyter.widget-view+json" in data and cell["id"] not in dashboards:
                    dashboards.append(cell["id"])
            figures[cell["id"]] = count
    return {"figures": figures, "maths": maths, "dashboards": dashboards}


@pytest.mark.parametrize("markdown, count", [
    ("no maths, but `$x$` in code and $5 alone", 0),
    ("$a$ and $b$, then $$c = d$$", 3),
    ("display \\[x\\] and inline \\(y\\)", 2),
    ("\\begin{align}a &= b\\end{align} then $c$", 2),
    ("```\n$not maths$\n```\nbut $this$ is", 1),
    ("a price of \\$5 and \\$6", 0),
])
def test_tex_count(markdown, count):
    assert tex_count(markdown) == count


# ---------------------------------------------------------------------------------------------
# A network namespace for the export and for Chromium
# ---------------------------------------------------------------------------------------------


def namespace_prefix():
    """``[unshare, --net]`` (or ``--map-root-user --net``) when a network namespace can be made here, else None."""
    if os.environ.get("COURSE_OFFLINE_MODE") == "guard":
        return None
    unshare = shutil.which("unshare")
    if not unshare:
        return None
    prefix = [unshare, "--net"] if os.geteuid() == 0 else [unshare, "--map-root-user", "--net"]
    try:
        done = subprocess.run(prefix + ["true"], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return prefix if done.returncode == 0 else None


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    """Run the command (in a network namespace when possible) into a scratch folder; return what it did."""
    out = tmp_path_factory.mktemp("static-html")
    prefix = namespace_prefix() or []
    started = time.monotonic()
    done = subprocess.run([*prefix, sys.executable, "tools/html_pages.py", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    seconds = time.monotonic() - started
    print(f"\nstatic HTML: export of {len(SOLUTIONS)} notebooks took {seconds:.1f} s "
          f"({'in a network namespace' if prefix else 'no network namespace here'})")
    return {"out": out, "done": done, "seconds": seconds, "namespace": bool(prefix)}


def test_the_command_writes_every_page_offline(export):
    done = export["done"]
    assert done.returncode == 0, f"python tools/html_pages.py failed:\n{done.stdout}\n{done.stderr}"
    written = sorted(p.name for p in export["out"].glob("*.html"))
    assert written == sorted([f"{p.stem}.html" for p in SOLUTIONS] + ["index.html"])


@pytest.mark.parametrize("notebook", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_the_page_loads_no_remote_file(export, notebook):
    page = export["out"] / f"{notebook.stem}.html"
    assert page.exists(), export["done"].stderr
    text = page.read_text(encoding="utf-8")
    assert static_html.remote_loads(text) == []
    assert "<script" not in text, "a static page needs no script (maths is MathML, figures are pictures)"


def test_tex_that_cannot_be_converted_names_the_notebook_and_the_cell(tmp_path):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("broken: $\\frac{1}{$", id="the-cell")]
    path = tmp_path / "99-broken.ipynb"
    nbformat.write(nb, path)
    with pytest.raises(static_html.MathConversionError, match=r"99-broken\.ipynb.*the-cell.*frac"):
        static_html.export_notebook(path, tmp_path / "out")
    assert static_html.main([str(path.stem), "--solutions", str(tmp_path), "--out", str(tmp_path / "out")]) == 1


def test_an_unknown_notebook_name_is_bad_usage(tmp_path):
    assert static_html.main(["99-no-such-notebook", "--out", str(tmp_path)]) == 2


def test_links_between_notebooks_point_to_pages(export):
    text = (export["out"] / "01-one-attention-row.html").read_text(encoding="utf-8")
    assert 'href="02-queries-keys-values.html"' in text
    assert 'href="02-queries-keys-values.ipynb"' not in text


# ---------------------------------------------------------------------------------------------
# The browser
# ---------------------------------------------------------------------------------------------


def _missing_browser_reason():
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (it is in requirements-dev.lock: run `make env-dev`)"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return (f"no Chromium at {CHROMIUM}: install Debian's chromium (`sudo apt-get install chromium`) "
                "or set COURSE_CHROMIUM to a Chromium binary to run the static-HTML browser test")
    return None


# Everything the assertions need, read from the page in one call: per cell, the maths (markdown) or the
# pictures and the text (code) of its output area.
READ_PAGE = """() => [...document.querySelectorAll('.jp-Cell')].map(cell => {
    const id = (cell.id || '').replace(/^cell-id=/, '');
    if (cell.classList.contains('jp-MarkdownCell')) {
        const rendered = cell.querySelector('.jp-RenderedMarkdown') || cell;
        const visible = rendered.cloneNode(true);
        visible.querySelectorAll('code, pre, math, .anchor-link').forEach(node => node.remove());
        const maths = [...rendered.querySelectorAll('math')].map(m => {
            const box = m.getBoundingClientRect();
            return {display: getComputedStyle(m).display, width: box.width, height: box.height,
                    errors: m.querySelectorAll('merror').length, tex: m.getAttribute('alttext') || ''};
        });
        return {id, kind: 'markdown', text: visible.textContent, maths};
    }
    const area = cell.querySelector('.jp-OutputArea');
    const images = area ? [...area.querySelectorAll('img')].map(img => ({
        alt: img.getAttribute('alt'), naturalWidth: img.naturalWidth, complete: img.complete})) : [];
    const texts = area ? [...area.querySelectorAll('.jp-OutputArea-output')].map(o => o.innerText) : [];
    return {id, kind: cell.classList.contains('jp-CodeCell') ? 'code' : 'other', images, texts};
})"""


@pytest.fixture(scope="module")
def browser(export, tmp_path_factory):
    reason = _missing_browser_reason()
    if reason:
        if os.environ.get("COURSE_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser test required (COURSE_REQUIRE_BROWSER=1) but {reason}")
        pytest.skip(f"static-HTML browser test skipped: {reason}")
    from playwright.sync_api import sync_playwright

    executable = CHROMIUM
    prefix = namespace_prefix()
    if prefix:  # Chromium in its own network namespace (Playwright talks to it over a pipe, not the network)
        wrapper = tmp_path_factory.mktemp("chromium") / "chromium-without-network"
        wrapper.write_text(f'#!/bin/sh\nexec {shlex.join([*prefix, shutil.which(CHROMIUM) or CHROMIUM])} "$@"\n')
        wrapper.chmod(0o755)
        executable = str(wrapper)
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield {"browser": launched, "namespace": bool(prefix)}
        launched.close()


def open_offline(browser, url: str, read: str = READ_PAGE) -> dict:
    """Open ``url`` with every non-local request recorded and aborted; return what the page holds and logged."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    record = {"requests": [], "aborted": [], "console_errors": [], "page_errors": []}

    def route(handle):
        url_ = handle.request.url
        if url_.startswith(LOCAL_SCHEMES):
            handle.continue_()
        else:
            record["aborted"].append(url_)
            handle.abort()

    context.route("**/*", route)
    context.on("request", lambda request: record["requests"].append(request.url))
    page = context.new_page()
    page.on("console", lambda message: message.type == "error" and record["console_errors"].append(message.text))
    page.on("pageerror", lambda error: record["page_errors"].append(str(error)))
    page.goto(url, wait_until="load")
    page.wait_for_function("() => [...document.images].every(img => img.complete)", timeout=30_000)
    record["cells"] = page.evaluate(read)
    record["page"], record["context"] = page, context
    return record


@pytest.fixture(scope="module")
def pages(browser, export):
    """Every page (and the index) opened offline; screenshots of maths and dashboards in test-artifacts/."""
    assert export["done"].returncode == 0, export["done"].stderr
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    found = {}
    for notebook in SOLUTIONS:
        record = open_offline(browser["browser"], (export["out"] / f"{notebook.stem}.html").as_uri())
        record["expected"] = expected(notebook)
        page = record["page"]
        with_maths = [c["id"] for c in record["cells"] if c["kind"] == "markdown" and c["maths"]]
        with_display = [c["id"] for c in record["cells"] if c["kind"] == "markdown"
                        and any("block" in m["display"] for m in c["maths"])]
        for name, ids in (("maths", with_display or with_maths), ("dashboard", record["expected"]["dashboards"])):
            if ids:
                page.locator(f'[id="cell-id={ids[0]}"]').screenshot(path=str(ARTIFACTS / f"{notebook.stem}-{name}.png"))
        record["context"].close()
        found[notebook.stem] = record
    index = open_offline(browser["browser"], (export["out"] / "index.html").as_uri(),
                         read="() => [...document.querySelectorAll('a')].map(a => a.getAttribute('href'))")
    index["context"].close()
    found["index"] = index
    print(f"\nstatic HTML: {len(SOLUTIONS)} pages and the index read in Chromium in {time.monotonic() - started:.1f} s "
          f"({'Chromium in a network namespace, ' if browser['namespace'] else ''}non-file requests aborted)")
    return found


IDS = [p.stem for p in SOLUTIONS]


def test_the_recorder_catches_remote_loads(browser, tmp_path):
    """A probe page with a remote image and script: both are recorded, aborted, and logged as errors."""
    probe = tmp_path / "probe.html"
    probe.write_text('<!DOCTYPE html><html><body><img src="https://example.com/x.png" alt="remote">'
                     '<script src="https://cdn.example.com/x.js"></script></body></html>')
    record = open_offline(browser["browser"], probe.as_uri(), read="() => []")
    record["context"].close()
    assert sorted(record["aborted"]) == ["https://cdn.example.com/x.js", "https://example.com/x.png"]
    assert len(record["console_errors"]) == 2


def test_the_maths_check_sees_raw_tex(browser, tmp_path):
    """nbconvert's own page, offline: MathJax and require.js are stopped, and the maths check sees raw TeX."""
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter(template_name="lab").from_filename(str(SOLUTIONS[1]))
    page = tmp_path / "plain-nbconvert.html"
    page.write_text(body, encoding="utf-8")
    record = open_offline(browser["browser"], page.as_uri())
    record["context"].close()
    assert any("mathjax" in url.lower() for url in record["aborted"])
    assert any("require" in url.lower() for url in record["aborted"])
    markdown = _cells(record, "markdown")
    assert not any(cell["maths"] for cell in markdown.values())
    assert any(RAW_TEX.search(cell["text"]) for cell in markdown.values())


@pytest.mark.parametrize("stem", IDS)
def test_no_request_leaves_the_machine(pages, stem):
    record = pages[stem]
    remote = [url for url in record["requests"] if not url.startswith(LOCAL_SCHEMES)]
    assert not remote and not record["aborted"], f"{stem}.html tried to fetch: {remote or record['aborted']}"


@pytest.mark.parametrize("stem", IDS)
def test_no_console_error(pages, stem):
    record = pages[stem]
    assert not record["console_errors"] and not record["page_errors"], (
        f"{stem}.html logged errors: {record['console_errors'] + record['page_errors']}")


def _cells(record, kind):
    return {c["id"]: c for c in record["cells"] if c["kind"] == kind}


@pytest.mark.parametrize("stem", IDS)
def test_every_figure_is_a_picture_that_loaded(pages, stem):
    record = pages[stem]
    cells = _cells(record, "code")
    problems = []
    for cell_id, count in record["expected"]["figures"].items():
        images = cells.get(cell_id, {}).get("images", [])
        if len(images) != count:
            problems.append(f"cell {cell_id}: {count} stored figure(s) but {len(images)} <img> in its output area")
        problems += [f"cell {cell_id}: an <img> did not load" for img in images if not img["naturalWidth"] > 0]
    assert sum(record["expected"]["figures"].values()) > 0, f"{stem}: no figure stored at all?"
    assert not problems, f"{stem}.html:\n" + "\n".join(problems)


@pytest.mark.parametrize("stem", IDS)
def test_every_figure_has_alt_text(pages, stem):
    record = pages[stem]
    missing = [f"cell {cell_id}: alt={img['alt']!r}"
               for cell_id, cell in _cells(record, "code").items() for img in cell["images"]
               if not (img["alt"] or "").strip() or img["alt"].strip() == NBCONVERT_PLACEHOLDER_ALT]
    assert not missing, (f"{stem}.html: figures without an alt text of their own ({len(missing)}); the notebook "
                         "should store each figure as an HTML <img alt=...> output:\n" + "\n".join(missing))


@pytest.mark.parametrize("stem", IDS)
def test_the_maths_is_rendered(pages, stem):
    record = pages[stem]
    cells = _cells(record, "markdown")
    problems = []
    for cell_id, count in record["expected"]["maths"].items():
        cell = cells.get(cell_id)
        if cell is None:
            problems.append(f"cell {cell_id}: not in the page")
            continue
        if len(cell["maths"]) != count:
            problems.append(f"cell {cell_id}: {count} TeX expression(s) in the source, {len(cell['maths'])} <math>")
        for math in cell["maths"]:
            if math["display"] not in ("math", "block math", "inline math") or not (math["width"] > 0 and math["height"] > 0):
                problems.append(f"cell {cell_id}: {math['tex']!r} is not laid out as MathML "
                                f"(display {math['display']!r}, {math['width']:.0f}x{math['height']:.0f} px)")
            if math["errors"]:
                problems.append(f"cell {cell_id}: {math['tex']!r} holds a MathML error")
        raw = RAW_TEX.findall(cell["text"])
        if raw:
            problems.append(f"cell {cell_id}: raw TeX in the text: {raw[:5]}")
    assert not problems, f"{stem}.html:\n" + "\n".join(problems)


@pytest.mark.parametrize("stem", IDS)
def test_dashboards_stand_in_as_readable_text(pages, stem):
    record = pages[stem]
    cells = _cells(record, "code")
    problems = []
    for cell_id in record["expected"]["dashboards"]:
        texts = [text.strip() for text in cells[cell_id]["texts"] if text.strip()]
        reprs = [text[:80] for text in texts if WIDGET_REPR.search(text)]
        if reprs:
            problems.append(f"cell {cell_id}: the widget's repr instead of a sentence: {reprs}")
    assert not problems, f"{stem}.html:\n" + "\n".join(problems)


def test_the_index_links_every_page(pages):
    links = pages["index"]["cells"]
    assert links == [f"{p.stem}.html" for p in SOLUTIONS]
    assert not pages["index"]["aborted"] and not pages["index"]["console_errors"]


# ---------------------------------------------------------------------------------------------
# No live script (issue 25): what a notebook's markdown or outputs could run is cleaned away
# ---------------------------------------------------------------------------------------------
RAN = "window.__ran.push"  # what every hostile construct calls; the browser test gives each page window.__ran = []
HOSTILE_MARKDOWN = [  # (construct, markdown): each tries to run when the page loads or when it is clicked
    ("script element", f"<script>{RAN}('script')</script>"),
    ("onerror", f"<img src=\"missing.png\" onerror=\"{RAN}('onerror')\">"),
    ("onload", f"<svg onload=\"{RAN}('onload')\"></svg>"),
    ("ontoggle", f"<details open ontoggle=\"{RAN}('ontoggle')\"><summary>s</summary>t</details>"),
    ("onclick", f"<p onclick=\"{RAN}('onclick')\">click this</p><button onclick=\"{RAN}('button')\">b</button>"),
    ("javascript: link", f"<a href=\"javascript:{RAN}('js link')\">a link</a>"),
    ("markdown javascript: link", f"[a markdown link](javascript:{RAN}(7))"),  # no quotes: markdown's own link
    ("iframe srcdoc", f"<iframe srcdoc=\"<script>parent.{RAN.split('.', 1)[1]}('srcdoc')</script>\"></iframe>"),
    ("object and embed", "<object data=\"data:text/html,<script>parent.__ran.push('object')</script>\"></object>"
                         "<embed src=\"data:text/html,<script>parent.__ran.push('embed')</script>\">"),
    ("data: html link", "<a href=\"data:text/html,<script>alert(1)</script>\">a data link</a>"),
    ("form action", f"<form action=\"javascript:{RAN}('form')\"><input type=\"submit\" value=\"go\"></form>"),
    ("meta refresh", "<meta http-equiv=\"refresh\" content=\"0;url=javascript:window.__ran.push('meta')\">"),
    ("MathML link", f"<math><mi href=\"javascript:{RAN}('mathml')\">x</mi></math>"),
    ("style url", "<div style=\"background:url(javascript:window.__ran.push('style'))\">styled</div>"),
]
HOSTILE_OUTPUTS = [  # (construct, output)
    ("HTML output", {"text/html": f"<b>result</b><script>{RAN}('html out')</script>"
                                  f"<img src=\"x.png\" onerror=\"{RAN}('html onerror')\">", "text/plain": "r"}),
    ("javascript output", {"application/javascript": f"{RAN}('js out')", "text/plain": "j"}),
    ("markdown output", {"text/markdown": f"<script>{RAN}('md out')</script> *text*", "text/plain": "m"}),
    ("SVG output", {"image/svg+xml": f"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>{RAN}('svg')</script>"
                                     "<rect width=\"10\" height=\"10\"/></svg>", "text/plain": "s"}),
]


def _hostile_notebook(folder: Path) -> Path:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(f"## {name}\n\n{source}") for name, source in HOSTILE_MARKDOWN]
    for name, data in HOSTILE_OUTPUTS:
        cell = nbformat.v4.new_code_cell(f"# {name}")
        cell.outputs = [nbformat.v4.new_output("display_data", data=data)]
        nb.cells.append(cell)
    tagged = nbformat.v4.new_code_cell("# a hostile cell tag")
    tagged.metadata["tags"] = [f"x\"><script>{RAN}('tag')</script>"]
    nb.cells.append(tagged)
    path = folder / "99-hostile.ipynb"
    nbformat.write(nb, path)
    return path


def test_every_hostile_construct_is_seen_by_the_page_check():
    """The check the export ends with (``live_script``) finds each construct as nbconvert renders it when not cleaning
    (so it can fail): a markdown link is HTML only once rendered."""
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    missed = [name for name, source in HOSTILE_MARKDOWN if not static_html.live_script(markdown2html_mistune(source))]
    missed += [name for name, data in HOSTILE_OUTPUTS[:1] if not static_html.live_script(data["text/html"])]
    assert not missed, f"live_script misses: {missed}"


def test_a_hostile_notebook_gives_a_page_that_runs_nothing(tmp_path):
    page = static_html.export_notebook(_hostile_notebook(tmp_path), tmp_path / "out")  # raises LiveScript if not
    body = page.path.read_text(encoding="utf-8")
    assert static_html.live_script(body) == []
    for name, _ in HOSTILE_MARKDOWN:
        assert name in body, f"the cell of {name!r} is gone: cleaning must keep what is harmless"
    assert "&lt;script&gt;" in body, "a removed script shows as text, so a reader sees what was taken out"


def _normalised(area) -> tuple:
    """An output or markdown area's elements and text, with CSS quotes and spacing made alike (what a browser sees)."""
    elements = []
    for element in area.find_all(True):
        attrs = {}
        for key, value in element.attrs.items():
            value = " ".join(value) if isinstance(value, list) else value
            if key == "style":
                value = ";".join(sorted(d.strip().replace(" ", "").replace("'", '"') for d in value.split(";") if d.strip()))
            attrs[key] = value
        elements.append((element.name, tuple(sorted(attrs.items()))))
    return elements, area.get_text()


def test_cleaning_changes_nothing_in_the_course_pages(export, tmp_path):
    """Every markdown cell and output of the course's own pages is the same with and without cleaning."""
    from bs4 import BeautifulSoup

    assert export["done"].returncode == 0, export["done"].stderr
    raw = static_html._make_exporter()
    raw.sanitize_html = False  # nbconvert's template then writes cells and outputs as they are
    areas = ".jp-RenderedMarkdown, .jp-RenderedHTML, .jp-OutputArea-output"
    changed = []
    for notebook in SOLUTIONS:
        body = static_html.export_notebook(notebook, tmp_path, exporter=raw).path.read_text(encoding="utf-8")
        cleaned = (export["out"] / f"{notebook.stem}.html").read_text(encoding="utf-8")
        before = [_normalised(a) for a in BeautifulSoup(body, "html.parser").select(areas)]
        after = [_normalised(a) for a in BeautifulSoup(cleaned, "html.parser").select(areas)]
        changed += [f"{notebook.stem}: area {i}" for i, (b, a) in enumerate(zip(before, after)) if b != a]
        if len(before) != len(after):
            changed.append(f"{notebook.stem}: {len(before)} areas before, {len(after)} after")
    assert not changed, "cleaning changed the course's own pages:\n" + "\n".join(changed[:20])


def _what_ran(browser, path: Path) -> list:
    context = browser.new_context()
    context.add_init_script("window.__ran = [];")
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.dismiss())
    page.goto(path.as_uri(), wait_until="load")
    for selector in ("a", "p", "button", "input", "summary", "mi", "div"):
        for element in page.locator(selector).all():
            try:
                element.click(timeout=500, no_wait_after=True)
            except Exception:  # noqa: BLE001 - hidden or covered: the next one
                pass
            if page.url != path.as_uri():
                page.go_back()
    page.wait_for_timeout(300)
    ran = page.evaluate("() => window.__ran")
    context.close()
    return ran


def test_the_hostile_page_runs_nothing_in_a_browser_that_runs_the_raw_one(browser, tmp_path):
    """In Chromium, with every link, button and summary clicked: the cleaned page runs none of the constructs;
    the same notebook exported without cleaning runs some (the probe sees script that runs)."""
    notebook = _hostile_notebook(tmp_path)
    cleaned = static_html.export_notebook(notebook, tmp_path / "cleaned").path
    raw_exporter = static_html._make_exporter()
    raw_exporter.sanitize_html = False
    raw_body, _ = raw_exporter.from_filename(str(notebook))
    raw = tmp_path / "raw.html"
    raw.write_text(raw_body, encoding="utf-8")
    assert _what_ran(browser["browser"], raw), "the probe saw nothing run in the raw page: it cannot see script"
    assert _what_ran(browser["browser"], cleaned) == []
