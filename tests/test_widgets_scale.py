"""The notebook-07 dashboard (course_utils.widgets.scale): what its picture shows, headless (Agg).

The contract every dashboard keeps (built once, updated in place, one display, ...) is tested in test_widgets.py.
"""
import matplotlib

matplotlib.use("Agg")

import ipywidgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import course_utils as cu  # noqa: E402
from course_utils.lessons.data import ONLINE_SCORES  # noqa: E402
from course_utils.lessons.online_softmax import online_states  # noqa: E402
from course_utils.widgets import OnlineSoftmaxDashboard  # noqa: E402


@pytest.fixture
def dashboard():
    d = OnlineSoftmaxDashboard()
    yield d
    d.close()


def heights(bars):
    return np.array([bar.get_height() for bar in bars])


def test_controls(dashboard):
    assert list(dashboard.controls) == ["block_size", "step"]
    size, step = dashboard.controls["block_size"], dashboard.controls["step"]
    assert isinstance(size, ipywidgets.IntSlider) and isinstance(step, ipywidgets.IntSlider)
    assert (size.value, size.min, size.max) == (4, 1, 12)
    assert (step.value, step.min, step.max) == (1, 0, 3)


def test_initial_picture_is_the_first_block(dashboard):
    first = ONLINE_SCORES[:4]
    assert dashboard.m == first.max()
    np.testing.assert_allclose(dashboard.l, np.exp(first - first.max()).sum())
    np.testing.assert_allclose(heights(dashboard.weight_bars)[:4], cu.softmax(first))
    assert np.all(heights(dashboard.weight_bars)[4:] == 0)
    assert dashboard.summary.get_text().startswith("after 1 of 3 blocks: m = 1.20")


def test_the_last_step_shows_the_exact_softmax(dashboard):
    dashboard.controls["step"].value = 3  # a user's move: all blocks
    np.testing.assert_allclose(heights(dashboard.weight_bars), cu.softmax(ONLINE_SCORES))
    assert dashboard.m == ONLINE_SCORES.max()
    np.testing.assert_allclose(dashboard.max_line.get_ydata(), [ONLINE_SCORES.max()] * 2)
    assert "exact softmax" in dashboard.summary.get_text()


def test_block_size_sets_the_step_range_with_one_redraw(dashboard):
    dashboard.controls["step"].value = 3
    dashboard.controls["block_size"].value = 5  # 3 blocks of 5, 5, 2
    assert dashboard.controls["step"].max == 3 and dashboard.update_count == 2
    dashboard.controls["block_size"].value = 12  # one block: the step is clamped to 1
    assert dashboard.controls["step"].max == 1 and dashboard.controls["step"].value == 1
    assert dashboard.update_count == 3
    np.testing.assert_allclose(heights(dashboard.weight_bars), cu.softmax(ONLINE_SCORES))
    dashboard.controls["block_size"].value = 1
    assert dashboard.controls["step"].max == 12


def test_step_zero_shows_nothing_seen(dashboard):
    dashboard.set(step=0)
    assert dashboard.m == -np.inf and dashboard.l == 0
    assert not dashboard.max_line.get_visible()
    assert np.all(heights(dashboard.weight_bars) == 0)


def test_online_states_end_at_the_true_max_and_sum():
    for block_size in (1, 3, 5, 12):
        states = online_states(ONLINE_SCORES, block_size)
        assert states[0] == (-np.inf, 0.0)
        m, l = states[-1]
        assert m == ONLINE_SCORES.max()
        np.testing.assert_allclose(l, np.exp(ONLINE_SCORES - m).sum())


def test_bad_scores():
    with pytest.raises(ValueError, match="1-D"):
        OnlineSoftmaxDashboard(scores=np.zeros((2, 2)))
