"""The notebook-02 dashboard (course_utils.widgets.qkv): what its picture shows, headless (Agg).

The contract every dashboard keeps (built once, updated in place, one display, ...) is tested in test_widgets.py.
"""
import matplotlib

matplotlib.use("Agg")

import ipywidgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_utils.lessons.scaling import entropy, query_and_keys, row_weights  # noqa: E402
from course_utils.widgets import ScalingDashboard  # noqa: E402
from course_utils.widgets.qkv import D_K_OPTIONS  # noqa: E402


@pytest.fixture
def dashboard():
    d = ScalingDashboard()
    yield d
    d.close()


def heights(bars):
    return np.array([bar.get_height() for bar in bars])


def expected(d_k, scaled, num_keys=8, seed=0):
    q, k = query_and_keys(d_k, num_keys=num_keys, seed=seed)
    return row_weights(q, k, scaled=scaled)


def test_controls(dashboard):
    assert list(dashboard.controls) == ["d_k", "scaled"]
    slider, box = dashboard.controls["d_k"], dashboard.controls["scaled"]
    assert isinstance(slider, ipywidgets.SelectionSlider)
    assert tuple(slider.options) == D_K_OPTIONS == (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
    assert slider.value == 64
    assert isinstance(box, ipywidgets.Checkbox) and box.value is False
    assert "d_k" in box.description


def test_initial_picture_is_the_unscaled_row(dashboard):
    weights, scores = expected(64, False)
    np.testing.assert_allclose(heights(dashboard.weight_bars), weights)
    np.testing.assert_allclose(heights(dashboard.score_bars), scores)
    assert dashboard.weights.max() > 0.99  # saturated: the point of the picture
    text = dashboard.summary.get_text()
    assert text.startswith("d_k = 64, unscaled: largest weight 0.999, entropy 0.0")
    assert "even spread: 2.079" in text


def test_toggling_the_scale_keeps_the_scores_spread_near_one(dashboard):
    dashboard.controls["scaled"].value = True  # a user's click

    weights, scores = expected(64, True)
    np.testing.assert_allclose(heights(dashboard.weight_bars), weights)
    np.testing.assert_allclose(heights(dashboard.score_bars), scores)
    np.testing.assert_allclose(dashboard.entropy, float(entropy(weights)))
    assert dashboard.weights.max() < 0.6
    assert "scaled: largest weight" in dashboard.summary.get_text()
    assert "\u221ad_k" in dashboard.ax_scores.get_title()


def test_moving_d_k_changes_the_spread(dashboard):
    dashboard.set(d_k=1)
    small = dashboard.scores.std()
    dashboard.set(d_k=1024)
    large = dashboard.scores.std()
    assert large > 10 * small
    np.testing.assert_allclose(heights(dashboard.weight_bars), expected(1024, False)[0])
    ylim = dashboard.ax_scores.get_ylim()
    assert ylim[1] >= np.abs(dashboard.scores).max()  # every bar fits


def test_scaled_spread_stays_near_one_for_every_d_k(dashboard):
    entropies = []
    for d_k in D_K_OPTIONS[2:]:
        dashboard.set(d_k=d_k, scaled=True)
        entropies.append(dashboard.entropy)
        assert 0.3 < dashboard.scores.std() < 2.0
    unscaled = []
    for d_k in D_K_OPTIONS[2:]:
        dashboard.set(d_k=d_k, scaled=False)
        unscaled.append(dashboard.entropy)
    assert min(entropies) > 0.8 and unscaled[-1] < 0.05


def test_constructor_options_and_errors():
    d = ScalingDashboard(d_k=4, scaled=True, num_keys=3, seed=7)
    assert len(d.weight_bars) == 3 and d.labels == ["k1", "k2", "k3"]
    np.testing.assert_allclose(heights(d.weight_bars), expected(4, True, num_keys=3, seed=7)[0])
    assert repr(d).endswith(": key width d_k: 4; divide the scores by √d_k: on.")  # the controls in words
    d.close()
    with pytest.raises(ValueError, match="d_k=5 is not one of the slider's values"):
        ScalingDashboard(d_k=5)
    with pytest.raises(ValueError, match="d_k=2048 lies outside|not one of"):
        ScalingDashboard(d_k=2048)


