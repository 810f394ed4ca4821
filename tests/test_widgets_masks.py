"""The notebook-03 dashboards (course_utils.widgets.masks): what their pictures show, and their helpers
(course_utils.lessons.masking, stand_in_projections), headless (Agg).

The contract every dashboard keeps (built once, updated in place, one display, ...) is tested in test_widgets.py.
"""
import matplotlib

matplotlib.use("Agg")

import ipywidgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import course_utils as cu  # noqa: E402
from course_utils import style  # noqa: E402
from course_utils.lessons.data import TICKET, TICKETS, embed, stand_in_projections  # noqa: E402
from course_utils.lessons.masking import MASKING_METHODS, mask_layout, masked_weights  # noqa: E402
from course_utils.widgets import MaskBeforeAfterDashboard, MaskExplorerDashboard  # noqa: E402
from course_utils.widgets._base import (  # noqa: E402
    BUTTON_PADDING_PX,
    SLIDER_EXTRA_PX,
    SLIDER_TRACK_PX,
    layout_problems,
    text_px,
)


# --------------------------------------------------------------------------- helpers
def test_stand_in_projections_match_a_notebooks_first_draw():
    expected = np.random.default_rng(0).normal(size=(3, 4, 4))
    np.testing.assert_array_equal(stand_in_projections(3, 4, 0), expected)
    assert stand_in_projections(3, 4, 1).shape == (3, 4, 4)
    assert not np.allclose(stand_in_projections(3, 4, 1), expected)


def test_mask_layout_right_padding_masks_keys_only():
    mask, real = mask_layout(2, 1, causal=False, side="right")
    np.testing.assert_array_equal(real, [True, True, False])
    np.testing.assert_array_equal(mask, [[1, 1, 0], [1, 1, 0], [1, 1, 0]])
    assert mask.dtype == bool


def test_mask_layout_left_padding_with_causal_has_empty_rows():
    mask, real = mask_layout(2, 2, causal=True, side="left")
    np.testing.assert_array_equal(real, [False, False, True, True])
    np.testing.assert_array_equal(mask, [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 1, 1]])
    right, _ = mask_layout(2, 2, causal=True, side="right")
    assert right.any(axis=-1).all()  # right padding: every row has a permitted key


def test_mask_layout_matches_the_course_masks():
    for length, padding in [(1, 0), (3, 2), (6, 4)]:
        T = length + padding
        mask, _ = mask_layout(length, padding, causal=True)
        np.testing.assert_array_equal(mask, cu.causal_mask(T) & cu.padding_mask([length], T)[0][None, :])


@pytest.mark.parametrize(
    "args, match",
    [((-1, 2, False), "length >= 0"), ((0, 0, False), "length \\+ padding > 0"),
     ((2, 1, False, "middle"), "'right' or 'left'")],
)
def test_mask_layout_errors(args, match):
    with pytest.raises(ValueError, match=match):
        mask_layout(*args)


def test_masked_weights_methods():
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(2, 4, 4))
    mask = cu.causal_mask(4)[None] & np.array([[[True, True, True, False]], [[True, True, True, True]]])
    before = masked_weights(scores, mask, "before")
    q = np.eye(4)[None].repeat(2, axis=0)  # q @ k^T / sqrt(d) = scores when k = scores^T * 2
    _, reference = cu.scaled_dot_product_attention(q, np.swapaxes(scores, -1, -2) * 2.0, np.zeros((2, 4, 1)), mask)
    np.testing.assert_allclose(before, reference)
    zero = masked_weights(scores, mask, "zero")
    assert (zero.sum(axis=-1)[..., :-1] < 1).all()  # every row but the full last one loses weight
    np.testing.assert_allclose(masked_weights(scores, mask, "renormalise"), before, atol=1e-12)
    with pytest.raises(ValueError, match="method must be one of"):
        masked_weights(scores, mask, "after")


def test_masked_weights_empty_row_gives_zeros_for_every_method():
    scores = np.array([[1.0, 2.0], [3.0, 0.0]])
    mask = np.array([[False, False], [True, True]])
    for method in MASKING_METHODS:
        weights = masked_weights(scores, mask, method)
        np.testing.assert_array_equal(weights[0], [0.0, 0.0])
        assert np.isfinite(weights).all()


# --------------------------------------------------------------------------- MaskExplorerDashboard
@pytest.fixture
def explorer():
    d = MaskExplorerDashboard()
    yield d
    d.close()


def reference_weights(d, length, padding, causal, side):
    mask, real = mask_layout(length, padding, causal, side)
    T = length + padding
    x = np.zeros((T, 4))
    x[real] = embed(d.tokens[:length])
    W_Q, W_K, W_V = stand_in_projections(3, 4, 0)
    _, weights = cu.scaled_dot_product_attention(x @ W_Q, x @ W_K, x @ W_V, mask)
    return mask, weights


def visible(patches):
    return np.array([[p.get_visible() for p in row] for row in patches])


def test_explorer_controls(explorer):
    assert list(explorer.controls) == ["length", "padding", "side", "causal"]
    assert isinstance(explorer.controls["length"], ipywidgets.IntSlider)
    assert (explorer.controls["length"].min, explorer.controls["length"].max) == (1, 6)
    assert (explorer.controls["padding"].min, explorer.controls["padding"].max) == (0, 4)
    assert isinstance(explorer.controls["side"], ipywidgets.ToggleButtons)
    assert isinstance(explorer.controls["causal"], ipywidgets.Checkbox)
    assert explorer.tokens == TICKETS[2] and explorer.max_T == 10


def test_explorer_initial_picture(explorer):
    mask, weights = reference_weights(explorer, 4, 2, True, "right")
    np.testing.assert_array_equal(explorer.mask, mask)
    np.testing.assert_allclose(explorer.weights, weights)
    data = explorer.weight_image.get_array()
    assert data.shape == (10, 10)  # always drawn at the largest size
    np.testing.assert_allclose(np.asarray(data)[:6, :6], weights)
    assert np.isnan(np.asarray(data)[6:, :]).all() and np.isnan(np.asarray(data)[:, 6:]).all()
    expected_hatch = np.zeros((10, 10), dtype=bool)
    expected_hatch[:6, :6] = ~mask
    np.testing.assert_array_equal(visible(explorer.weight_patches), expected_hatch)
    np.testing.assert_array_equal(visible(explorer.mask_patches), expected_hatch)
    assert explorer.labels == ["the", "box", "is", "missing", "<pad>", "<pad>"]
    assert [t.get_text() for t in explorer.ax_weights.get_xticklabels()] == explorer.labels  # T ticks, no blank ones
    assert explorer.empty_rows == 0
    assert explorer.summary.get_text().endswith("rows with no permitted key: 0")
    assert explorer.cell_texts[1, 0].get_text() == f"{weights[1, 0]:.2f}"
    assert explorer.cell_texts[0, 1].get_text() == ""  # blocked: no number
    assert [t.get_text() for t in explorer.row_sums[:7]] == ["1.00"] * 6 + [""]
    assert explorer.ax_weights.get_xlabel() == "key (attended to)"
    assert explorer.ax_weights.get_ylabel() == "query (attending)"


def test_explorer_left_padding_with_causal_shows_empty_rows(explorer):
    explorer.set(side="left", padding=3)
    mask, weights = reference_weights(explorer, 4, 3, True, "left")
    np.testing.assert_array_equal(explorer.mask, mask)
    np.testing.assert_allclose(np.asarray(explorer.weight_image.get_array())[:7, :7], weights)
    assert explorer.empty_rows == 3
    assert [t.get_text() for t in explorer.row_sums[:4]] == ["0.00 no key"] * 3 + ["1.00"]
    assert "rows with no permitted key: 3" in explorer.summary.get_text()
    assert (weights[:3] == 0).all()
    assert [t.get_color() for t in explorer.row_sums[:4]] == [style.VERMILLION] * 3 + ["black"]


def test_explorer_causal_toggle_and_length(explorer):
    explorer.controls["causal"].value = False  # a user's click
    mask, weights = reference_weights(explorer, 4, 2, False, "right")
    np.testing.assert_array_equal(explorer.mask, mask)
    np.testing.assert_allclose(explorer.weights, weights)
    assert visible(explorer.mask_patches)[:6, :4].sum() == 0  # only the <pad> columns are hatched
    explorer.controls["length"].value = 6
    explorer.controls["padding"].value = 4
    assert explorer.mask.shape == (10, 10)
    _, weights = reference_weights(explorer, 6, 4, False, "right")
    np.testing.assert_allclose(explorer.weights, weights)


def shown_cells(ax):
    """(rows, columns) of heatmap cells inside the axes' view."""
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    return round(abs(y0 - y1)), round(abs(x1 - x0))


def test_explorer_panels_hold_exactly_the_sequence_and_the_figure_fits_it(explorer):
    """Issue 10: the figure was a fixed 10 x 10 canvas; at T = 6 about 40 % of each panel was blank."""
    sizes = {}
    for length, padding in [(1, 0), (4, 2), (6, 4), (2, 2)]:
        explorer.set(length=length, padding=padding)
        T = length + padding
        for ax in (explorer.ax_mask, explorer.ax_weights):
            assert shown_cells(ax) == (T, T)
            shown = np.asarray(ax.images[0].get_array())[:T, :T]
            assert not np.isnan(shown).any()  # no blank cell in view
            width_in, height_in = ax.get_position().width * explorer.fig.get_figwidth(), \
                ax.get_position().height * explorer.fig.get_figheight()
            assert width_in == pytest.approx(height_in)  # square cells
            assert width_in == pytest.approx(max(T * explorer.cell_inches, explorer.min_panel_inches))
        sizes[T] = tuple(explorer.fig.get_size_inches())
        assert len([t for t in explorer.row_sums if t.get_text()]) == T
    assert sizes[6][0] < sizes[10][0] and sizes[6][1] < sizes[10][1]  # the figure grows with T
    assert sizes[4] == sizes[1]  # small T: the smallest panel that holds the titles
    explorer.fig.canvas.draw()  # the figure still draws after resizing
    # the two panels never overlap, and both lie inside the figure
    left, right = explorer.ax_mask.get_position(), explorer.ax_weights.get_position()
    assert left.x1 < right.x0 and left.x0 > 0 and right.x1 < 1


def test_explorer_png_size_follows_t(explorer):
    import io

    from matplotlib.image import imread

    heights = {}
    for padding in (0, 4):
        explorer.set(padding=padding)
        heights[padding] = imread(io.BytesIO(explorer.render_png())).shape[0]
    assert heights[0] < heights[4]
    assert heights[4] == round(explorer.fig.get_figheight() * explorer.fig.dpi)


def test_mask_dashboards_show_full_labels_and_usable_sliders(explorer, before_after):
    """Issue 10: the before/after slider's track was squeezed to ~40 px by its label, and the button
    "zero after, then renormalise" was cut to "zero after, then renormali..." (layout_problems() of every
    dashboard: test_widgets.py)."""
    button = int(before_after.controls["method"].style.button_width.removesuffix("px"))
    assert button >= text_px("zero after, then renormalise") + BUTTON_PADDING_PX
    slider = before_after.controls["hidden"]
    width = int(slider.layout.width.removesuffix("px"))
    label = int(slider.style.description_width.removesuffix("px"))
    assert label >= text_px(slider.description)
    assert width - label - SLIDER_EXTRA_PX >= SLIDER_TRACK_PX
    # the explorer's two sliders line up: same label width, same track
    length, padding = explorer.controls["length"], explorer.controls["padding"]
    assert length.style.description_width == padding.style.description_width
    assert length.layout.width == padding.layout.width


def test_layout_problems_reproduce_the_reported_controls():
    """The controls as they were before issue 10, measured the same way, are flagged."""
    squeezed = ipywidgets.FloatSlider(description="add to the scores of the hidden (later) keys",
                                      style={"description_width": "initial"}, layout=ipywidgets.Layout(width="420px"))
    cut = ipywidgets.ToggleButtons(options=list(MASKING_METHODS.values()), style={"button_width": "200px"})
    default_width = ipywidgets.IntSlider(description="padding positions", style={"description_width": "initial"})
    problems = layout_problems({"hidden": squeezed, "method": cut, "padding": default_width})
    assert len(problems) == 3
    assert problems[0].startswith("hidden: the slider's track is about")
    assert "'zero after, then renormalise'" in problems[1] and "cut" in problems[1]
    assert problems[2].startswith("padding: the slider's track")


def test_explorer_constructor_checks():
    with pytest.raises(ValueError, match=r"length=7 must lie in \[1, 6\]"):
        MaskExplorerDashboard(length=7)
    with pytest.raises(ValueError, match=r"padding=5"):
        MaskExplorerDashboard(padding=5)
    with pytest.raises(ValueError, match="'right' or 'left'"):
        MaskExplorerDashboard(side="both")
    with pytest.raises(KeyError, match="no embedding"):
        MaskExplorerDashboard(tokens=("my", "laptop"))
    d = MaskExplorerDashboard(tokens=TICKET, length=5, padding=0, causal=False)
    assert d.max_T == 9 and d.weights.shape == (5, 5)
    d.close()


# --------------------------------------------------------------------------- MaskBeforeAfterDashboard
@pytest.fixture
def before_after():
    d = MaskBeforeAfterDashboard()
    yield d
    d.close()


def reference_scores():
    x = embed(TICKET)
    W_Q, W_K, _ = stand_in_projections(3, 4, 0)
    return (x @ W_Q) @ (x @ W_K).T / 2.0


def bar_widths(d):
    return np.array([bar.get_width() for bar in d.bars])


def test_before_after_controls_and_initial_picture(before_after):
    assert list(before_after.controls) == ["method", "hidden"]
    assert before_after.controls["method"].options == tuple(
        (label, key) for key, label in MASKING_METHODS.items()
    )
    np.testing.assert_allclose(before_after.scores, reference_scores())
    expected = cu.softmax(np.where(cu.causal_mask(5), reference_scores(), -np.inf))
    np.testing.assert_allclose(before_after.weights, expected)
    np.testing.assert_allclose(before_after.heatmap.image.get_array(), expected)
    np.testing.assert_allclose(bar_widths(before_after), 1.0)
    assert before_after.leak == 0.0
    assert before_after.bar_texts[0].get_text() == "1.000"


def test_before_after_zeroing_shrinks_rows_and_leaks(before_after):
    before_after.set(method="zero")
    zeroed = cu.softmax(reference_scores()) * cu.causal_mask(5)
    np.testing.assert_allclose(before_after.heatmap.image.get_array(), zeroed)
    assert before_after.heatmap.cell_texts[1, 0].get_text() == f"{zeroed[1, 0]:.2f}"
    assert before_after.heatmap.cell_texts[0, 1] is None  # a blocked cell prints no number
    np.testing.assert_allclose(bar_widths(before_after), zeroed.sum(axis=-1))
    assert bar_widths(before_after)[0] == pytest.approx(0.176, abs=5e-4)
    assert before_after.leak == 0.0  # hidden scores not moved yet
    before_after.controls["hidden"].value = 2.0
    assert before_after.leak > 0.1
    assert "moved by up to" in before_after.summary.get_text()
    assert before_after.summary.get_color() == style.VERMILLION


@pytest.mark.parametrize("method", ["before", "renormalise"])
def test_before_after_hidden_scores_change_nothing_when_masking_first(before_after, method):
    before_after.set(method=method)
    start = before_after.weights.copy()
    for hidden in (-3.0, 1.5, 3.0):
        before_after.set(hidden=hidden)
        np.testing.assert_allclose(before_after.weights, start, atol=1e-12)
        assert before_after.leak < 1e-12
        np.testing.assert_allclose(bar_widths(before_after), 1.0)


def test_before_after_constructor_checks():
    with pytest.raises(ValueError, match="method must be one of"):
        MaskBeforeAfterDashboard(method="after")
    with pytest.raises(ValueError, match="outside the slider range"):
        MaskBeforeAfterDashboard(hidden=9.0)
