"""The notebook-05 dashboard (course_utils.widgets.reading): what its picture shows, headless (Agg).

The contract every dashboard keeps (built once, updated in place, one display, ...) is tested in test_widgets.py.
"""
import matplotlib

matplotlib.use("Agg")

import ipywidgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import course_utils as cu  # noqa: E402
from course_utils.lessons.data import EXPERIMENT_SCORES, EXPERIMENT_TOKENS, EXPERIMENT_VALUES  # noqa: E402
from course_utils.lessons.influence import removal_effects  # noqa: E402
from course_utils.widgets import ValueScaleDashboard  # noqa: E402


@pytest.fixture
def dashboard():
    d = ValueScaleDashboard()
    yield d
    d.close()


def heights(bars):
    return np.array([bar.get_height() for bar in bars])


def scaled_values(key, scale):
    values = EXPERIMENT_VALUES.copy()
    values[EXPERIMENT_TOKENS.index(key)] *= scale
    return values


def test_controls(dashboard):
    assert list(dashboard.controls) == ["key", "scale"]
    key, scale = dashboard.controls["key"], dashboard.controls["scale"]
    assert isinstance(key, ipywidgets.ToggleButtons)
    assert list(key.options) == list(EXPERIMENT_TOKENS) and key.value == "please"
    assert isinstance(scale, ipywidgets.FloatSlider)
    assert (scale.min, scale.max, scale.step, scale.value) == (0.0, 3.0, 0.1, 1.0)


def test_initial_picture_is_the_experiment(dashboard):
    weights = cu.softmax(EXPERIMENT_SCORES)
    effects = removal_effects(EXPERIMENT_SCORES, EXPERIMENT_VALUES)
    np.testing.assert_allclose(heights(dashboard.weight_bars), weights)
    np.testing.assert_allclose(heights(dashboard.effect_bars), effects)
    assert [label.get_text() for label in dashboard.effect_labels] == [f"{e:.3f}" for e in effects]
    assert dashboard.summary.get_text() == (
        "value of 'please' x 1.0 (length 5.00);  output = [0.440, 0.227];  largest weight: 'charger', "
        "largest effect: 'please'"
    )
    assert dashboard.effect_bars[4].get_linewidth() == 2.0  # the scaled key is outlined
    assert dashboard.effect_bars[1].get_linewidth() == 0.0


def test_moving_the_slider_changes_effects_not_weights(dashboard):
    weights_before = heights(dashboard.weight_bars)

    dashboard.controls["scale"].value = 2.5  # what a user's move does: the observer fires

    np.testing.assert_array_equal(heights(dashboard.weight_bars), weights_before)  # the weights stay put
    expected = removal_effects(EXPERIMENT_SCORES, scaled_values("please", 2.5))
    np.testing.assert_allclose(heights(dashboard.effect_bars), expected)
    np.testing.assert_allclose(dashboard.output, cu.softmax(EXPERIMENT_SCORES) @ scaled_values("please", 2.5))
    assert "x 2.5 (length 12.50)" in dashboard.summary.get_text()


def test_choosing_another_key(dashboard):
    dashboard.set(key="charger", scale=3.0)
    expected = removal_effects(EXPERIMENT_SCORES, scaled_values("charger", 3.0))
    np.testing.assert_allclose(heights(dashboard.effect_bars), expected)
    np.testing.assert_allclose(dashboard.values_now[4], EXPERIMENT_VALUES[4])  # please is back to x 1
    assert dashboard.effect_bars[1].get_linewidth() == 2.0 and dashboard.effect_bars[4].get_linewidth() == 0.0
    assert dashboard.summary.get_text().endswith("largest weight: 'charger', largest effect: 'charger'")


def test_scale_zero_removes_a_value_but_not_its_weight(dashboard):
    dashboard.set(scale=0.0)
    np.testing.assert_allclose(heights(dashboard.weight_bars)[4], cu.softmax(EXPERIMENT_SCORES)[4])
    np.testing.assert_array_equal(dashboard.values_now[4], [0.0, 0.0])
    assert dashboard.effects[4] < 0.05


def test_effect_axis_is_fixed_and_holds_every_bar(dashboard):
    top = dashboard.ax_effects.get_ylim()[1]
    for key in EXPERIMENT_TOKENS:
        dashboard.set(key=key, scale=3.0)
        assert heights(dashboard.effect_bars).max() < top
        assert dashboard.ax_effects.get_ylim()[1] == top


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(key="refund"), "not one of the labels"),
        (dict(scale=4.0), r"outside \[0.0, 3.0\]"),
        (dict(labels=("a", "b")), "labels has 2 labels"),
        (dict(labels=("a", "a", "b", "c", "d")), "distinct"),
    ],
)
def test_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ValueScaleDashboard(**kwargs)


def test_other_rows_work():
    d = ValueScaleDashboard(scores=[2.0, 1.0, 0.0], values=[[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]],
                            labels=("a", "b", "c"), key="b", scale=0.5)
    np.testing.assert_allclose(heights(d.effect_bars),
                               removal_effects([2.0, 1.0, 0.0], [[1.0, 0.0], [0.0, 1.0], [3.0, 1.0]]))
    d.close()
