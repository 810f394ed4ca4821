"""alt_text.figure_png: the picture IPython's inline backend shows for a figure, as a compact palette PNG.

It is IPython's own ``print_figure`` (the inline backend's settings: a tight crop by default), then ``compact_png``;
these tests pin that it is that picture, that a figure with nothing drawn shows nothing, and that the figure is left
as it was (its layout engine, its size), so the course's figures look in a notebook as they do anywhere else.
"""
import io

import matplotlib
import numpy as np
from IPython.core.pylabtools import print_figure
from matplotlib.figure import Figure
from PIL import Image

from course_utils import alt_text, plots

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)


def heatmaps():
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


def test_it_is_print_figures_tight_picture_made_compact():
    first, second = heatmaps(), heatmaps()  # two fresh figures: a layout engine moves a figure it lays out again
    try:
        expected = alt_text.compact_png(print_figure(first, "png", bbox_inches="tight"), optimize=False)
        png = alt_text.figure_png(second)
    finally:
        plt.close(first)
        plt.close(second)
    assert png.startswith(b"\x89PNG") and (pixels(png) == pixels(expected)).all()
    assert Image.open(io.BytesIO(png)).mode == "P"  # a palette PNG: a third of the bytes


def test_a_figure_with_nothing_drawn_shows_nothing():
    assert alt_text.figure_png(Figure()) is None


def test_the_figure_is_left_as_it_was_and_the_png_is_deterministic():
    figures = heatmaps(), heatmaps()
    try:
        engine, size = figures[0].get_layout_engine(), tuple(figures[0].get_size_inches())
        first, second = (alt_text.figure_png(fig) for fig in figures)
        assert figures[0].get_layout_engine() is engine and tuple(figures[0].get_size_inches()) == size
    finally:
        for fig in figures:
            plt.close(fig)
    assert first == second  # the same figure made twice: the same bytes
