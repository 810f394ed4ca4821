"""alt_text.figure_png lays a figure out once and, when it can, draws it once, cropped as bbox_inches="tight"
would crop it (issue 14)."""
import io

import matplotlib
import numpy as np
import pytest
from IPython.core.pylabtools import print_figure
from matplotlib.figure import Figure
from PIL import Image

from course_utils import alt_text, plots

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)


def heatmaps(xlabel="query"):
    fig, axes = plt.subplots(1, 3, figsize=(12, 4), layout="constrained")
    tokens = ["my", "charger", "is", "missing"]
    for h, ax in enumerate(axes):
        weights = np.random.default_rng(h).random((4, 4))
        plots.attention_heatmap(weights / weights.sum(1, keepdims=True), tokens, tokens, ax=ax, title=f"head {h}")
        ax.set_xlabel(xlabel)
    plots.weight_colorbar(axes)
    fig.suptitle("three heads")
    return fig


def beyond_the_edge():
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1])
    ax.text(1.5, 0.5, "far to the right, outside the figure", transform=ax.transAxes)
    return fig


def pixels(png):
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA")).astype(int)


def both(make):
    """savefig's tight PNG and ours, each from a fresh figure (constrained layout moves things a little on every
    draw, in savefig as here)."""
    first, second = make(), make()
    try:
        return pixels(print_figure(first, "png", bbox_inches="tight")), pixels(alt_text._tight_png(second))
    finally:
        plt.close(first)
        plt.close(second)


def savefigs_and_ours_drawn_once(make, monkeypatch):
    """savefig's tight picture of one fresh figure, then ours of another with savefig refused; and that figure."""
    reference = pixels(print_figure(make(), "png", bbox_inches="tight"))
    plt.close("all")

    def refuse(*args, **kwargs):
        raise AssertionError("this figure's tight box fits its canvas: drawn once, without savefig")

    import IPython.core.pylabtools

    monkeypatch.setattr(IPython.core.pylabtools, "print_figure", refuse)
    fig = make()
    return reference, pixels(alt_text._tight_png(fig)), fig


MATPLOTLIB_VERSION = tuple(int(part) for part in matplotlib.__version__.split(".")[:2])


@pytest.mark.skipif(MATPLOTLIB_VERSION >= (3, 11), reason="matplotlib < 3.11 only")
def test_before_matplotlib_3_11_savefig_does_the_work():
    fig = heatmaps()
    try:
        assert alt_text._tight_png(fig) is None
        assert alt_text.figure_png(fig).startswith(b"\x89PNG")
    finally:
        plt.close(fig)


@pytest.mark.skipif(MATPLOTLIB_VERSION < (3, 11), reason="drawn once with matplotlib >= 3.11 only")
def test_drawn_once_it_is_savefigs_tight_picture_to_within_a_pixel(monkeypatch):
    reference, ours, _ = savefigs_and_ours_drawn_once(heatmaps, monkeypatch)
    plt.close("all")
    assert ours.shape == reference.shape
    # the same picture, shifted by under a pixel: text and lines are antialiased a little differently; the palette
    # (compact_png) moves each channel by a few levels at most
    assert np.abs(ours - reference).mean() < 3.0
    assert (ours[0] >= 250).all() and (ours[:, -1] >= 250).all()  # the padding: the figure's white face


@pytest.mark.skipif(MATPLOTLIB_VERSION < (3, 11), reason="drawn once with matplotlib >= 3.11 only")
def test_an_artist_beyond_the_edge_is_painted_by_savefig_with_the_layout_done():
    reference, ours = both(beyond_the_edge)
    assert ours.shape == reference.shape and ours.shape[1] > 3 * 100  # the crop reaches out to the text
    assert np.abs(ours - reference).max() <= 8  # the same drawing; only the palette differs


def test_the_layout_engine_is_back_afterwards_and_the_png_is_deterministic():
    fig = heatmaps()
    engine = fig.get_layout_engine()
    try:
        png = alt_text.figure_png(fig)
        assert fig.get_layout_engine() is engine
    finally:
        plt.close(fig)
    other = heatmaps()
    try:
        assert alt_text.figure_png(other) == png
    finally:
        plt.close(other)


def test_a_figure_without_agg_canvas_or_with_nothing_drawn():
    assert alt_text.figure_png(Figure()) is None
    fig = Figure(figsize=(2, 2))
    fig.subplots().plot([0, 1])
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    FigureCanvasSVG(fig)
    assert alt_text._tight_png(fig) is None  # another canvas: print_figure does the work
    assert alt_text.figure_png(fig).startswith(b"\x89PNG")


def hanging_note():
    """A figure whose tight box reaches ~6 px below its bottom edge but is smaller than the figure (as a heatmap's
    x label after a constrained layout)."""
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], color="black")
    fig.text(0.5, 0.0, "a note hanging off the bottom edge", ha="center", va="center")
    return fig


@pytest.mark.skipif(MATPLOTLIB_VERSION < (3, 11), reason="drawn once with matplotlib >= 3.11 only")
def test_a_text_a_few_pixels_over_the_edge_is_drawn_once_shifted_not_by_savefig(monkeypatch):
    reference, ours, fig = savefigs_and_ours_drawn_once(hanging_note, monkeypatch)
    assert ours.shape == reference.shape
    assert np.abs(ours - reference).mean() < 3.0
    assert (ours[:, :, :3].min(axis=(1, 2)) < 100)[-25:-10].any()  # the note's glyphs, near the crop's bottom
    assert (ours[-1] >= 250).all()  # then the padding, in the figure's face colour (no transparent strip)
    # the figure is back where it was: a second picture is the same
    assert fig.transFigure.transform((0, 0)) == pytest.approx((0, 0))
    assert fig.patch.get_bbox().bounds == (0, 0, 1, 1)
    assert (pixels(alt_text._tight_png(fig)) == ours).all()
    plt.close("all")


@pytest.mark.skipif(MATPLOTLIB_VERSION < (3, 11), reason="drawn once with matplotlib >= 3.11 only")
def test_laid_out_once_and_drawn_once(monkeypatch):
    """The layout engine runs once and the figure is drawn once: no draw that paints nothing before it."""
    from matplotlib.figure import Figure as FigureClass
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    counts = {"draw": 0, "layout": 0}
    draw, execute = FigureClass.draw, ConstrainedLayoutEngine.execute

    def counting_draw(self, renderer):
        counts["draw"] += 1
        return draw(self, renderer)

    def counting_execute(self, fig):
        counts["layout"] += 1
        return execute(self, fig)

    fig = heatmaps()
    monkeypatch.setattr(FigureClass, "draw", counting_draw)
    monkeypatch.setattr(ConstrainedLayoutEngine, "execute", counting_execute)
    try:
        assert alt_text._tight_png(fig).startswith(b"\x89PNG")
    finally:
        plt.close(fig)
    assert counts == {"draw": 1, "layout": 1}


@pytest.mark.parametrize("low, high, size, shift", [
    (4.2, 1341.1, 1350, 0), (-3.2, 455.8, 460, 4), (10.0, 1355.0, 1350, -5), (-0.4, 460.4, 460, 0),
    (-3.0, 460.0, 460, None), (-10.0, 1500.0, 1350, None),
])
def test_shift_into_moves_a_box_onto_the_canvas_by_whole_pixels(low, high, size, shift):
    assert alt_text._shift_into(low, high, size) == shift
