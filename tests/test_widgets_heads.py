"""The notebook-04 dashboard (course_utils.widgets.heads): what its picture shows, headless (Agg).

The contract every dashboard keeps (built once, updated in place, one display, ...) is tested in test_widgets.py.
"""
import matplotlib

matplotlib.use("Agg")

import ipywidgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import course_utils as cu  # noqa: E402
from course_utils.lessons.data import TICKET, embed_wide, random_projections  # noqa: E402
from course_utils.widgets import HeadsDashboard  # noqa: E402
from course_utils.widgets.heads import HEAD_OPTIONS  # noqa: E402


@pytest.fixture
def dashboard():
    d = HeadsDashboard()
    yield d
    d.close()


def reference(num_heads, causal=False):
    x = embed_wide(TICKET)
    W_Q, W_K, W_V, W_O = random_projections()
    mask = cu.causal_mask(len(TICKET)) if causal else None
    output, weights = cu.multi_head_attention(x, W_Q, W_K, W_V, W_O, num_heads, mask=mask)
    concat = output @ np.linalg.inv(W_O)  # the merged heads, before W_O
    return output, weights, concat


def visible_axes(d):
    return [ax.get_visible() for ax in d.small_axes]


def hatched(patches):
    return np.array([[p.get_visible() for p in row] for row in patches])


def test_controls(dashboard):
    assert list(dashboard.controls) == ["num_heads", "head", "causal"]
    num_heads = dashboard.controls["num_heads"]
    assert isinstance(num_heads, ipywidgets.SelectionSlider)
    assert tuple(num_heads.options) == HEAD_OPTIONS == (1, 2, 4, 8)
    head = dashboard.controls["head"]
    assert isinstance(head, ipywidgets.IntSlider) and (head.min, head.max) == (0, 3)
    assert isinstance(dashboard.controls["causal"], ipywidgets.Checkbox)


def test_initial_picture_is_the_reference(dashboard):
    output, weights, concat = reference(4)
    np.testing.assert_allclose(dashboard.output, output)
    np.testing.assert_allclose(dashboard.weights, weights)
    np.testing.assert_allclose(dashboard.concat, concat, atol=1e-10)
    assert len(dashboard.small_axes) == 8 and visible_axes(dashboard) == [True] * 4 + [False] * 4
    for h in range(4):
        np.testing.assert_allclose(dashboard.small_images[h].get_array(), weights[h])
    np.testing.assert_allclose(dashboard.big_heatmap.image.get_array(), weights[0])
    np.testing.assert_allclose(dashboard.concat_image.get_array(), concat, atol=1e-10)
    assert dashboard.big_heatmap.cell_texts[0, 2].get_text() == f"{weights[0, 0, 2]:.2f}"
    assert [line.get_visible() for line in dashboard.block_lines] == [False, True, False, True, False, True, False]
    assert dashboard.selection_box.get_x() == -0.5 and dashboard.selection_box.get_width() == 2
    assert dashboard.small_axes[0].spines["left"].get_linewidth() == 3.0
    assert dashboard.small_axes[1].spines["left"].get_linewidth() == 0.8
    assert "256 parameters" in dashboard.summary.get_text()
    assert not hatched(dashboard.big_hatches).any()


def test_more_heads_shows_every_head(dashboard):
    dashboard.controls["num_heads"].value = 8  # a user's move
    output, weights, concat = reference(8)
    np.testing.assert_allclose(dashboard.weights, weights)
    assert visible_axes(dashboard) == [True] * 8
    for h in range(8):
        np.testing.assert_allclose(dashboard.small_images[h].get_array(), weights[h])
    assert all(line.get_visible() for line in dashboard.block_lines)
    assert dashboard.controls["head"].max == 7
    assert "8 heads of width d_head = 1" in dashboard.summary.get_text()
    assert "256 parameters" in dashboard.summary.get_text()


def test_selecting_a_head(dashboard):
    dashboard.controls["head"].value = 2
    _, weights, _ = reference(4)
    assert dashboard.head == 2
    np.testing.assert_allclose(dashboard.big_heatmap.image.get_array(), weights[2])
    assert dashboard.selection_box.get_x() == 3.5 and dashboard.selection_box.get_width() == 2
    assert dashboard.small_axes[2].spines["left"].get_linewidth() == 3.0
    assert dashboard.small_axes[0].spines["left"].get_linewidth() == 0.8
    assert "head 2 of 4" in dashboard.ax_big.get_title()
    assert "columns 4:6" in dashboard.ax_concat.get_title()


def test_fewer_heads_clamps_the_selected_head_with_one_redraw(dashboard):
    dashboard.set(head=3)
    count = dashboard.update_count
    dashboard.controls["num_heads"].value = 1
    assert dashboard.update_count == count + 1  # the clamp of the head slider does not redraw twice
    assert dashboard.controls["head"].max == 0 and dashboard.controls["head"].value == 0
    assert dashboard.head == 0
    _, weights, _ = reference(1)
    np.testing.assert_allclose(dashboard.big_heatmap.image.get_array(), weights[0])
    assert visible_axes(dashboard) == [True] + [False] * 7
    assert not any(line.get_visible() for line in dashboard.block_lines)
    assert dashboard.selection_box.get_width() == 8
    assert dashboard.ax_concat.get_title().startswith("the one head's output")


def test_set_applies_num_heads_before_head(dashboard):
    dashboard.set(num_heads=8, head=6)
    assert dashboard.head == 6 and dashboard.controls["head"].max == 7
    _, weights, _ = reference(8)
    np.testing.assert_allclose(dashboard.big_heatmap.image.get_array(), weights[6])
    with pytest.raises(ValueError, match=r"head=4 must lie in \[0, 1\] for num_heads=2"):
        dashboard.set(num_heads=2, head=4)
    with pytest.raises(ValueError, match="num_heads=3 is not one of"):
        dashboard.set(num_heads=3)
    with pytest.raises(ValueError, match="unknown control"):
        dashboard.set(heads=2)


def test_causal_mask_hatches_every_head(dashboard):
    dashboard.set(num_heads=2)
    dashboard.controls["causal"].value = True
    _, weights, concat = reference(2, causal=True)
    np.testing.assert_allclose(dashboard.weights, weights)
    np.testing.assert_allclose(dashboard.concat, concat, atol=1e-10)
    upper = ~cu.causal_mask(5)
    for h in range(2):
        np.testing.assert_array_equal(hatched(dashboard.small_hatches[h]), upper)
        assert (dashboard.weights[h][upper] == 0).all()
    np.testing.assert_array_equal(hatched(dashboard.big_hatches), upper)
    assert dashboard.big_heatmap.cell_texts[0, 1].get_text() == ""  # no number in a masked cell
    assert dashboard.big_heatmap.cell_texts[1, 0].get_text() == f"{weights[0, 1, 0]:.2f}"
    assert "hatched" in dashboard.ax_big.get_xlabel()
    dashboard.controls["causal"].value = False
    assert not hatched(dashboard.big_hatches).any()
    assert dashboard.big_heatmap.cell_texts[0, 1].get_text() != ""


def test_constructor_checks():
    with pytest.raises(ValueError, match="num_heads=3 is not one of"):
        HeadsDashboard(num_heads=3)
    with pytest.raises(ValueError, match=r"head=4 must lie in \[0, 3\]"):
        HeadsDashboard(head=4)
    with pytest.raises(KeyError, match="no embedding"):
        HeadsDashboard(tokens=("my", "laptop"))
    with pytest.raises(ValueError, match="tokens is empty"):
        HeadsDashboard(tokens=())
    d = HeadsDashboard(tokens=("refund", "please"), num_heads=8, head=7, causal=True, seed=3)
    assert d.weights.shape == (8, 2, 2) and d.head == 7
    d.close()


def weight_bars(d):
    """The colour bars of the dashboard's figure drawn for the large heatmap's image (its norm), found through each
    image's ``colorbar`` (a colour bar added on a move would add an axes too: the caller checks the axes)."""
    bars = {id(image.colorbar): image.colorbar for ax in d.fig.axes for image in ax.get_images()
            if image.colorbar is not None}
    return [bar for bar in bars.values() if bar.mappable is d.big_heatmap.image or bar.norm is d.big_heatmap.image.norm]


def assert_one_weight_bar_from_0_to_1(d, moved):
    bars = weight_bars(d)
    assert len(bars) == 1, f"after {moved}: {len(bars)} colour bars tied to the large heatmap's norm (1 expected)"
    bar = bars[0]
    assert bar.ax.get_visible() and bar.ax in d.fig.axes, moved
    assert (bar.norm.vmin, bar.norm.vmax) == (0.0, 1.0) == (d.big_heatmap.image.norm.vmin, d.big_heatmap.image.norm.vmax)
    assert tuple(sorted(bar.ax.get_ylim())) == (0.0, 1.0), moved
    assert bar.cmap.name == cu.style.HEATMAP_CMAP and "weight" in bar.ax.get_ylabel(), moved


def test_the_large_heatmap_has_its_own_colour_bar_from_0_to_1_after_every_control(dashboard):
    """A learner reads what a shade of the large heatmap means (weights 0 to 1) at every setting."""
    assert_one_weight_bar_from_0_to_1(dashboard, "the start")
    axes_before = list(dashboard.fig.axes)
    for name, value in [("num_heads", 8), ("head", 5), ("causal", True), ("num_heads", 1), ("causal", False)]:
        dashboard.controls[name].value = value  # a user's move
        dashboard.render_png()
        assert_one_weight_bar_from_0_to_1(dashboard, f"{name}={value}")
        assert dashboard.fig.axes == axes_before, "a move added or removed an axes: the figure is built once"
    (bar,) = weight_bars(dashboard)
    # drawn in the cached background: nothing of the bar is redrawn on a move
    assert not {id(bar.ax), *map(id, bar.ax.get_children())} & dashboard.background.dynamic
