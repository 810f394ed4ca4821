"""alt_text.figure_png draws a figure once and crops it as bbox_inches="tight" would (issue 14)."""
import io

import matplotlib
import numpy as np
import pytest
from IPython.core.pylabtools import print_figure
from matplotlib.figure import Figure
from PIL import Image

from course_utils import alt_text, plots

matplotlib.use("Agg")


def heatmaps():
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(12, 4), layout="constrained")
    tokens = ["my", "charger", "is", "missing"]
    for h, ax in enumerate(axes):
        weights = np.random.default_rng(h).random((4, 4))
        plots.attention_heatmap(weights / weights.sum(1, keepdims=True), tokens, tokens, ax=ax, title=f"head {h}")
    plots.weight_colorbar(axes)
    fig.suptitle("three heads")
    return fig


def pixels(png):
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA")).astype(int)


def test_one_draw_gives_savefigs_tight_picture_to_within_a_pixel():
    import matplotlib.pyplot as plt

    # a fresh figure each: constrained layout moves things a little on every draw, in savefig as here
    fig, other = heatmaps(), heatmaps()
    try:
        reference = pixels(print_figure(fig, "png", bbox_inches="tight"))
        ours = alt_text._tight_pixels(other).astype(int)
    finally:
        plt.close(fig)
        plt.close(other)
    assert ours.shape == reference.shape
    # the same picture, shifted by under a pixel: text and lines are antialiased a little differently
    assert np.abs(ours - reference).mean() < 2.0
    assert (ours.reshape(-1, 4) != ours[0, 0]).any(axis=1).mean() == pytest.approx(
        (reference.reshape(-1, 4) != reference[0, 0]).any(axis=1).mean(), abs=0.01)  # as much ink
    # the padding is the figure's face colour, as in savefig's
    assert (ours[0] == np.array([255, 255, 255, 255])).all() and (ours[:, -1] == 255).all()


def test_figure_png_is_the_compact_png_of_that_picture():
    import matplotlib.pyplot as plt

    fig, other = heatmaps(), heatmaps()
    try:
        png = alt_text.figure_png(fig)
        expected = alt_text.compact_png(alt_text._tight_pixels(other), optimize=False)
    finally:
        plt.close(fig)
        plt.close(other)
    assert png == expected


def test_an_artist_beyond_the_edge_goes_through_savefig():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1])
    ax.text(1.5, 0.5, "far to the right, outside the figure", transform=ax.transAxes)
    try:
        assert alt_text._tight_pixels(fig) is None
        png = alt_text.figure_png(fig)
        width = Image.open(io.BytesIO(png)).size[0]
        assert width > 3 * fig.dpi  # savefig's tight crop reaches out to the text
    finally:
        plt.close(fig)


def test_a_figure_without_agg_canvas_or_with_nothing_drawn():
    empty = Figure()
    assert alt_text.figure_png(empty) is None
    fig = Figure(figsize=(2, 2))
    fig.subplots().plot([0, 1])
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    FigureCanvasSVG(fig)
    assert alt_text._tight_pixels(fig) is None  # another canvas: print_figure does the work
    assert alt_text.figure_png(fig).startswith(b"\x89PNG")
