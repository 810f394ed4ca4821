"""Every figure has a text alternative that says what it shows, with its key numbers (issue 12).

- the course's plots record what they drew (a heatmap's weights row by row and its masked cells, the bars, the
  hull) and the record follows in-place updates; ``describe`` gives words to a figure, an axes or one artist;
  a figure nobody described is described from its axes; the registry never keeps a figure alive;
- a figure is published as ``<img alt="..." src="data:image/png;base64,...">`` (text/html) plus the same PNG
  (image/png), one encoding for both, a compact palette PNG that looks the same;
- the IPython formatter: nothing outside IPython, registered once, and in a real kernel ``plt.show()`` and
  ``display(fig)`` publish that pair, also after ``%matplotlib inline`` reconfigures the backend;
- every dashboard says what its picture shows, and the words change when any control moves;
- every figure stored in solutions/ carries a specific alt, and the solved notebooks stay within 25 % of their
  size before the change.
"""
import matplotlib

matplotlib.use("Agg")

import base64  # noqa: E402
import gc  # noqa: E402
import html  # noqa: E402
import io  # noqa: E402
import re  # noqa: E402
import types  # noqa: E402
import weakref  # noqa: E402
from pathlib import Path  # noqa: E402

import course_notebooks  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from PIL import Image  # noqa: E402
from test_widgets import other_value  # noqa: E402  (tests/test_widgets.py)
from widget_helpers import dashboard_classes, make_dashboard  # noqa: E402  (tests/widget_helpers.py)

import course_utils as cu  # noqa: E402
from course_utils import alt_text, plots  # noqa: E402
from course_utils.widgets import Dashboard  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SOLVED = course_notebooks.SOLVED  # the course's and every translation's
IMG = re.compile(r'^<img alt="([^"]*)" src="data:image/png;base64,([A-Za-z0-9+/=]+)">$')


def alt_and_png(bundle):
    """(alt, base64 PNG) of a text/html picture; fails unless it is exactly one <img alt> with a data URL."""
    text = bundle["text/html"]
    text = "".join(text) if isinstance(text, list) else text
    match = IMG.match(text)
    assert match, text[:300]
    return html.unescape(match.group(1)), match.group(2)


def figure():
    return Figure(figsize=(4, 3))


# --------------------------------------------------------------------------- what the course's plots record
def test_a_heatmap_says_its_weights_row_by_row_its_masked_cells_and_follows_updates():
    weights = cu.softmax(np.where(cu.causal_mask(3), [[0.0, 1, 2], [1, 2, 0], [0.5, 0, 1]], -np.inf))
    fig = figure()
    heatmap = plots.attention_heatmap(weights, ["a", "b", "c"], ["a", "b", "c"], ax=fig.subplots(),
                                      mask=cu.causal_mask(3), title="causal")
    text = alt_text.description(fig)
    assert text == (
        "“causal”: heatmap of attention weights, 3 queries (rows: a, b, c) by 3 keys (columns: the same tokens); "
        "hatched: masked (3 cells). Weights of each query over the keys in order: a: 1.00, masked ×2; "
        "b: 0.27, 0.73, masked; c: 0.31, 0.19, 0.51."
    )
    plots.update_heatmap(heatmap, np.eye(3))
    assert "a: 1.00, masked ×2; b: 0.00, 1.00, masked; c: 0.00, 0.00, 1.00" in alt_text.description(fig)


def test_a_row_with_no_permitted_key_and_a_large_heatmap_are_said_so():
    allowed = np.array([[True, False], [False, False]])
    assert alt_text.matrix_rows([[1.0, 0.0], [0.0, 0.0]], ["x", "y"], allowed) == \
        "x: 1.00, masked; y: no permitted key (all masked)"
    big = np.full((12, 12), 1 / 12)
    big[:, 3] = 0.5
    text = alt_text.heatmap_phrase(big, list("abcdefghijkl"), list("abcdefghijkl"))
    assert "12 queries" in text and "The largest weight of each query: a -> d 0.50;" in text


def test_bars_hull_and_colour_bar_say_their_numbers():
    fig = Figure(figsize=(12, 4), layout="constrained")
    bars_ax, hull_ax, heat_ax = fig.subplots(1, 3)
    bars = plots.attention_row_bars([0.665, 0.245, 0.09], ["t1", "t2", "t3"], ax=bars_ax, title="weights")
    hull = plots.value_hull_plot([[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]], [0.665, 0.245, 0.09], ["t1", "t2", "t3"],
                                 ax=hull_ax)
    plots.attention_heatmap(np.eye(2), ax=heat_ax)
    plots.weight_colorbar(heat_ax)
    text = alt_text.description(fig)
    assert text.startswith("3 panels. Panel 1, “weights”: bar chart of the attention weights over 3 keys")
    assert "t1 0.665, t2 0.245, t3 0.090" in text
    assert "t1 (1, 0), t2 (0, 2), t3 (3, 1); shaded: their convex hull, a triangle" in text
    assert "output weights @ values = (0.935, 0.580), inside the hull" in text
    assert text.endswith("One colour bar for the heatmap, attention weight from 0 (dark blue) to 1 (yellow).")
    plots.update_row_bars(bars, [0.1, 0.2, 0.7])
    plots.update_value_hull(hull, [0.1, 0.2, 0.7])
    text = alt_text.description(fig)
    assert "t1 0.100, t2 0.200, t3 0.700" in text and "with weights 0.100, 0.200, 0.700" in text


def test_the_registry_keeps_no_figure_alive():
    fig = Figure()
    ax = fig.subplots()
    plots.attention_heatmap(np.eye(2), ax=ax, mask=np.eye(2, dtype=bool))
    plots.weight_colorbar(ax)
    alt_text.describe(ax, "two cells")
    alive = weakref.ref(fig)
    del fig, ax
    gc.collect()
    assert alive() is None


# --------------------------------------------------------------------------- describe, and composed words
def test_describe_gives_words_to_a_figure_an_axes_or_one_artist():
    fig = figure()
    ax = fig.subplots()
    dots = ax.scatter(np.arange(100.0), np.arange(100.0) ** 2)
    ax.set_title("squares")
    assert "100 points, x from 0 to 99, y from 0 to 9800" in alt_text.description(fig)
    alt_text.describe(dots, "100 squares  of\n the first numbers")
    assert alt_text.description(ax).startswith("“squares”: 100 squares of the first numbers; x axis")
    alt_text.describe(ax, "rising dots")
    assert alt_text.description(fig) == "“squares”: rising dots."
    alt_text.describe(fig, "a parabola of dots")
    assert alt_text.description(fig) == "a parabola of dots"
    assert cu.plots.describe is alt_text.describe  # what notebooks call
    with pytest.raises(TypeError, match="describe each Axes or the whole figure"):
        alt_text.describe(np.array([ax, ax]), "two")
    with pytest.raises(ValueError, match="non-empty"):
        alt_text.describe(ax, "  ")


def test_a_figure_nobody_described_is_described_from_its_axes():
    fig = Figure(figsize=(8, 3))
    left, right = fig.subplots(1, 2)
    left.plot([1, 2, 4], [0.5, 1.0, 2.0], "o", label=r"measured $\sqrt{d_k}$")
    left.axhline(1.0)
    left.set_xscale("log")
    left.legend()
    left.set_xlabel("d_k")
    right.bar(["k1", "k2"], [0.25, 0.75])
    right.set_ylabel("weight")
    right.set_title("two bars")
    fig.suptitle("a test")
    fig.canvas.draw()  # the ticks are read as drawn
    text = alt_text.description(fig)
    assert text.startswith("Figure titled “a test”. 2 panels. Panel 1, points “measured sqrt(d_k)” at (1, 0.5), "
                           "(2, 1), (4, 2); a horizontal line at y = 1; legend: measured sqrt(d_k); x axis “d_k” from")
    assert "(log scale)" in text
    assert "Panel 2, “two bars”: 2 bars: k1 0.25, k2 0.75; x axis: k1, k2; y axis “weight” from 0 to" in text
    assert alt_text.description(Figure()) == alt_text.GENERIC


def test_numbers_and_words():
    assert [alt_text.number(v) for v in (3.0, 0.1234, -0.0, 12345.6, 1e-7)] == ["3", "0.123", "0", "12300", "1.0e-07"]
    assert alt_text.fixed(-0.0004, 3) == "0.000"
    assert alt_text.plain("$q\\cdot k$\n/ $\\sqrt{d_k}$") == "q·k / sqrt(d_k)"
    assert [alt_text.colour_word(c) for c in ((0, 0.14, 0.3), (1, 0.92, 0.27), (0, 0, 0), (1, 1, 1))] == \
        ["dark blue", "yellow", "black", "white"]


# --------------------------------------------------------------------------- publishing
def test_the_picture_is_one_img_with_its_alt_and_the_same_png():
    png = alt_text.compact_png(np.zeros((2, 3, 4), dtype=np.uint8) + 255)
    bundle = alt_text.picture_bundle(png, 'weights "a" < b & c', text="<Figure>")
    alt, encoded = alt_and_png(bundle)
    assert alt == 'weights "a" < b & c' and encoded == bundle["image/png"] and base64.b64decode(encoded) == png
    assert bundle["text/plain"] == "<Figure>"
    with pytest.raises(ValueError, match="non-empty alt"):
        alt_text.picture_bundle(png, " ")


def test_the_compact_png_looks_the_same_and_weighs_less_than_half():
    fig = Figure(figsize=(6, 4), layout="constrained")
    axes = fig.subplots(1, 2)
    rng = np.random.default_rng(0)
    for ax in axes:
        plots.attention_heatmap(cu.softmax(rng.normal(size=(6, 6))), ax=ax)
    plots.weight_colorbar(axes)
    full = io.BytesIO()
    fig.savefig(full, format="png")
    small = alt_text.compact_png(full.getvalue())
    assert len(small) < 0.5 * len(full.getvalue())
    before = np.asarray(Image.open(io.BytesIO(full.getvalue())).convert("RGB"), dtype=int)
    after = np.asarray(Image.open(io.BytesIO(small)).convert("RGB"), dtype=int)
    assert before.shape == after.shape and np.abs(before - after).max() <= 10  # measured: 7 on the course's figures
    assert alt_text.compact_png(full.getvalue()) == small  # deterministic
    clear = np.zeros((4, 4, 4), dtype=np.uint8)
    clear[0, 0] = (255, 0, 0, 255)
    kept = Image.open(io.BytesIO(alt_text.compact_png(clear))).convert("RGBA")
    assert kept.getpixel((1, 1))[3] == 0 and kept.getpixel((0, 0)) == (255, 0, 0, 255)  # transparency stays


def test_figure_bundle_publishes_what_the_inline_backend_would_draw_with_an_alt():
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.bar(["a", "b"], [0.3, 0.7])
    try:
        bundle = alt_text.figure_bundle(fig)
    finally:
        plt.close(fig)
    alt, encoded = alt_and_png(bundle)
    assert alt == "2 bars: a 0.3, b 0.7; x axis: a, b; y axis from 0 to 0.735."
    assert encoded == bundle["image/png"] and bundle["text/plain"] == "<Figure size 300x200 with 1 Axes>"
    assert alt_text.figure_bundle(Figure()) == {"text/plain": "<Figure size 640x480 with 0 Axes>"}  # nothing drawn


# --------------------------------------------------------------------------- the IPython formatter
def test_the_formatter_does_nothing_outside_ipython():
    from IPython import get_ipython
    from IPython.core.interactiveshell import InteractiveShell

    assert get_ipython() is None
    alt_text.register_formatter()
    assert get_ipython() is None and not InteractiveShell.initialized()  # no shell made to register in


def test_the_formatter_is_registered_once_and_publishes_one_picture(monkeypatch):
    from IPython.core.formatters import DisplayFormatter

    formatter = DisplayFormatter()
    shell = types.SimpleNamespace(display_formatter=formatter)
    alt_text.register_formatter(shell)
    alt_text.register_formatter(shell)  # again: nothing changes
    printers = formatter.ipython_display_formatter
    registered = [f for f in [*printers.type_printers.values(), *printers.deferred_printers.values()]
                  if f is alt_text.display_figure]
    assert len(registered) == 1
    published = []
    monkeypatch.setattr("IPython.display.publish_display_data", lambda data, metadata=None: published.append(data))
    fig = Figure(figsize=(2, 2))
    fig.subplots().plot([0, 1], [1, 0])
    assert formatter.format(fig) == ({}, {})  # handled: no other formatter runs
    alt_text.register_formatter(shell)
    formatter.format(fig)
    assert len(published) == 2 and published[0] == published[1]
    alt, encoded = alt_and_png(published[0])
    assert alt.startswith("A line at (0, 1), (1, 0)") and encoded == published[0]["image/png"]


KERNEL_CELLS = [
    # 0: plt.show() after the notebooks' imports: course_utils, and the formatter turned on
    "import matplotlib.pyplot as plt\nimport course_utils as cu\ncu.alt_text.register_formatter()\nfig, ax = plt.subplots()\n"
    "ax.plot([0, 1, 2], [0.0, 0.5, 2.0])\nax.set_title('rising')\nplt.show()",
    # 1: a course heatmap; the formatter registered again, then the backend reconfigured: still one picture
    "cu.alt_text.register_formatter()\n%matplotlib inline\nfig, ax = plt.subplots()\n"
    "cu.plots.attention_heatmap([[1, 0], [0.25, 0.75]], ['a', 'b'], ['a', 'b'], ax=ax, mask=[[True, False], [True, True]])\n"
    "plt.show()",
    # 2: display(fig) of a figure pyplot does not know
    "from IPython.display import display\nfrom matplotlib.figure import Figure\nf = Figure()\n"
    "f.subplots().bar(['x', 'y'], [1, 2])\ndisplay(f)",
]


def test_plt_show_and_display_publish_an_img_with_alt_and_the_png_in_a_real_kernel():
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in KERNEL_CELLS])
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=120).execute()
    alts = []
    for cell in nb.cells:
        assert len(cell.outputs) == 1, cell.outputs
        (output,) = cell.outputs
        assert output.output_type == "display_data" and set(output.data) == {"text/html", "image/png", "text/plain"}
        alt, encoded = alt_and_png(output.data)
        assert encoded == output.data["image/png"]
        alts.append(alt)
    assert alts[0].startswith("“rising”: a line at (0, 0), (1, 0.5), (2, 2)")
    assert alts[1] == ("Heatmap of attention weights, 2 queries (rows: a, b) by 2 keys (columns: the same tokens); "
                       "hatched: masked (1 cell). Weights of each query over the keys in order: a: 1.00, masked; "
                       "b: 0.25, 0.75.")
    assert alts[2].startswith("2 bars: x 1, y 2")


# --------------------------------------------------------------------------- dashboards
DASHBOARDS = dashboard_classes()


@pytest.mark.parametrize("cls", DASHBOARDS, ids=lambda cls: cls.__name__)
def test_every_dashboard_says_what_its_picture_shows_and_moving_any_control_changes_it(cls):
    assert cls.describe is not Dashboard.describe, f"{cls.__name__} needs its own describe()"
    d = make_dashboard(cls)
    try:
        alt, encoded = alt_and_text(d)
        assert base64.b64decode(encoded) == d.render_png()
        for name, control in d.controls.items():
            control.value = other_value(control)  # what a user's move does
            moved, _ = alt_and_text(d)
            assert moved != alt, f"{cls.__name__}: moving {name} left the alt unchanged: {alt}"
            alt = moved
    finally:
        d.close()


def alt_and_text(dashboard):
    from course_utils.widgets._base import _FigurePicture

    alt, encoded = alt_and_png(_FigurePicture(dashboard)._repr_mimebundle_())
    assert alt == dashboard.describe() and len(alt) > 80 and len(re.findall(r"\d+\.\d+", alt)) >= 3, alt
    assert alt != alt_text.GENERIC
    return alt, encoded


def test_the_dashboards_describe_their_start_in_words_and_numbers():
    from course_utils.widgets import AttentionRowDashboard, MaskExplorerDashboard

    row = AttentionRowDashboard()
    assert "the scores 2.0, 1.0, 0.0 give the weights token 1 0.665, token 2 0.245, token 3 0.090" in row.describe()
    row.set(score_3=4.0)
    assert "the scores 2.0, 1.0, 4.0" in row.describe()
    explorer = MaskExplorerDashboard()
    explorer.set(side="left", causal=True)
    assert "padding on the left" in explorer.describe() and "no permitted key (all masked)" in explorer.describe()
    for d in (row, explorer):
        d.close()


# --------------------------------------------------------------------------- the stored notebooks
#: Words a figure's alt must hold, by cell id (where a cell gives its own words or a course plot is special).
EXPECTED = {
    "nb00-plot": ["one row of attention weights", "key 1 0.665"],
    "nb01-hull": ["10,000 outputs of random score rows", "inside the triangle", "(0.935, 0.579)"],
    "nb02-std-plot": ["measured std of q·k", "(1024, "],
    "nb03-pad-plot": ["hatched: masked", "refund: 0.50, 0.50, masked ×4"],
    "nb03-explorer": ["2 padding on the right", "Row sums: the 1.00"],
    "nb05-gallery": ["future leak (causal mask forgotten)", "diagonal (mask built with np.eye)"],
    "nb05-contrib-plot": ["each arrow's length: my 0.079", "(0.440, 0.227), a yellow star outlined in black"],
    "nb06-loss-plot": ["first below 0.1 at step", "ln 3 = 1.099"],
    "nb07-memory-measure": ["peak memory of one attention call", "blockwise, 128 x 128 tiles"],
}


def stored_pictures(path):
    """(cell id, cell source, output) for every stored output of a solved notebook that holds a picture."""
    for cell in nbformat.read(path, as_version=4).cells:
        for output in cell.get("outputs", []):
            if {"image/png", "text/html"} & set(output.get("data", {})):
                yield cell.get("id"), cell.source, output


@pytest.mark.parametrize("path", SOLVED, ids=course_notebooks.name)
def test_every_stored_figure_has_an_img_with_a_specific_alt_and_its_png(path):
    seen = set()
    for cell_id, source, output in stored_pictures(path):
        if "<img" not in "".join(output.data.get("text/html", "")):
            continue  # other HTML (a checker's result box)
        assert "image/png" in output.data, f"{cell_id}: an <img> without the PNG for static viewers"
        alt, encoded = alt_and_png(output.data)
        assert encoded == output.data["image/png"], f"{cell_id}: the HTML and the PNG differ"
        assert alt != alt_text.GENERIC and len(alt) >= 60, f"{cell_id}: {alt!r}"
        assert len(re.findall(r"\d", alt)) >= 3, f"{cell_id}: no key numbers in {alt!r}"
        if "attention_heatmap" in source:  # the course's own plot: its recorded words, not the composed ones
            assert "heatmap of attention weights" in alt and "Weights of each query" in alt, f"{cell_id}: {alt!r}"
        for words in EXPECTED.get(cell_id, []):
            assert words in alt, f"{cell_id}: {words!r} missing from {alt!r}"
        seen.add(cell_id)
    for cell_id, _, output in stored_pictures(path):
        assert "image/png" not in output.data or cell_id in seen, f"{cell_id}: a PNG without an <img alt>"
    assert seen >= {cell_id for cell_id in EXPECTED if cell_id.startswith(f"nb{path.stem[:2]}-")}


@pytest.mark.parametrize("path", SOLVED, ids=course_notebooks.name)
def test_every_stored_dashboard_shows_its_controls_as_one_sentence_in_static_views(path):
    for cell in nbformat.read(path, as_version=4).cells:
        for output in cell.get("outputs", []):
            if "application/vnd.jupyter.widget-view+json" in output.get("data", {}):
                text = output.data["text/plain"]
                assert "VBox(" not in text and "HBox(" not in text and text.endswith(".") and "\n" not in text, text
                assert "dashboard, whose controls work in a running notebook: " in text, text


@pytest.mark.parametrize("path", SOLVED, ids=course_notebooks.name)
def test_every_stored_picture_is_a_compact_palette_png(path):
    """What a notebook stores is ``compact_png``'s palette PNG (about a third of matplotlib's RGBA PNG), whether a
    plot's or a dashboard's first picture: not an exact-pixel update PNG, not matplotlib's own."""
    for cell_id, _, output in stored_pictures(path):
        if "image/png" in output.data:
            picture = Image.open(io.BytesIO(base64.b64decode(output.data["image/png"])))
            assert picture.mode == "P", f"{cell_id}: a {picture.mode} PNG stored; keep it compact (alt_text.compact_png)"
