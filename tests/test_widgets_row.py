"""The notebook-01 dashboard (course_utils.widgets.row): what its picture shows, headless (Agg).

The contract every dashboard keeps (built once, updated in place, one display, ...) is tested in test_widgets.py.
"""
import matplotlib

matplotlib.use("Agg")

import ipywidgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.path import Path  # noqa: E402

from course_utils.attention import attention_row  # noqa: E402
from course_utils.lessons.data import ARTICLE_VALUES  # noqa: E402
from course_utils.plots import convex_hull  # noqa: E402
from course_utils.softmax import softmax  # noqa: E402
from course_utils.widgets import AttentionRowDashboard  # noqa: E402


@pytest.fixture
def dashboard():
    d = AttentionRowDashboard()
    yield d
    d.close()


def bar_heights(d):
    return np.array([bar.get_height() for bar in d.bars])


def output_point(d):
    x, y = d.hull["output"].get_data()
    return np.array([x[0], y[0]])


def scores(d):
    return np.array([d.controls[f"score_{i}"].value for i in (1, 2, 3)])


def test_controls_are_three_score_sliders(dashboard):
    assert list(dashboard.controls) == ["score_1", "score_2", "score_3"]
    for i, slider in enumerate(dashboard.controls.values(), start=1):
        assert isinstance(slider, ipywidgets.FloatSlider)
        assert slider.description == f"score of token {i}"
        assert (slider.min, slider.max, slider.step) == (-5.0, 5.0, 0.1)


def test_initial_picture_is_the_article_example(dashboard):
    np.testing.assert_allclose(scores(dashboard), [2.0, 1.0, 0.0])
    np.testing.assert_allclose(bar_heights(dashboard), softmax(np.array([2.0, 1.0, 0.0])))
    np.testing.assert_allclose(output_point(dashboard), [0.935, 0.579], atol=5e-4)
    assert dashboard.summary.get_text() == (
        "weights = [0.665, 0.245, 0.090]    output = [0.935, 0.579]"
    )


def test_a_slider_move_shows_the_new_weights_and_output_inside_the_hull(dashboard):
    dashboard.controls["score_3"].value = 3.5  # what a user's move does: the observer fires

    new_scores = np.array([2.0, 1.0, 3.5])
    expected_output, expected_weights = attention_row(new_scores, ARTICLE_VALUES)
    np.testing.assert_allclose(bar_heights(dashboard), softmax(new_scores))
    np.testing.assert_allclose(bar_heights(dashboard), expected_weights)
    np.testing.assert_allclose(output_point(dashboard), expected_output)
    np.testing.assert_allclose(dashboard.output, expected_output)
    assert Path(convex_hull(ARTICLE_VALUES)).contains_point(output_point(dashboard))
    assert f"{expected_output[0]:.3f}" in dashboard.summary.get_text()


def test_moving_a_slider_back_restores_the_numbers(dashboard):
    heights, point, text = bar_heights(dashboard), output_point(dashboard), dashboard.summary.get_text()
    dashboard.controls["score_1"].value = -4.2
    assert not np.allclose(bar_heights(dashboard), heights)
    dashboard.controls["score_1"].value = 2.0
    np.testing.assert_array_equal(bar_heights(dashboard), heights)
    np.testing.assert_array_equal(output_point(dashboard), point)
    assert dashboard.summary.get_text() == text


def test_set_moves_several_scores(dashboard):
    dashboard.set(score_1=0.0, score_3=1.5)
    np.testing.assert_allclose(scores(dashboard), [0.0, 1.0, 1.5])
    np.testing.assert_allclose(bar_heights(dashboard), softmax(np.array([0.0, 1.0, 1.5])))


def test_constructor_checks_inputs():
    with pytest.raises(ValueError, match=r"labels has 2 labels.*T=3"):
        AttentionRowDashboard(labels=("a", "b"))
    with pytest.raises(ValueError, match=r"\(T, 2\).*\(3, 3\)"):
        AttentionRowDashboard(values=np.eye(3))
    with pytest.raises(ValueError, match=r"outside the slider range"):
        AttentionRowDashboard(scores=[9.0, 0.0, 0.0])
    d = AttentionRowDashboard(values=[[0, 0], [1, 0], [0, 1], [1, 1]], scores=[0, 0, 0, 1],
                              labels="abcd")
    assert list(d.controls) == ["score_1", "score_2", "score_3", "score_4"]
    assert d.controls["score_4"].description == "score of d"
    d.close()
