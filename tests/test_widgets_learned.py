"""The notebook-06 dashboard (course_utils.widgets.learned): what its picture shows, headless (Agg).

The contract every dashboard keeps (built once, updated in place, one display, ...) is tested in test_widgets.py.
"""
import matplotlib

matplotlib.use("Agg")

import ipywidgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from widget_helpers import small_training_run  # noqa: E402  (tests/widget_helpers.py)

from course_utils import style  # noqa: E402
from course_utils.widgets import TrainingDashboard  # noqa: E402


@pytest.fixture
def run_and_probe():
    return small_training_run()


@pytest.fixture
def dashboard(run_and_probe):
    d = TrainingDashboard(*run_and_probe)
    yield d
    d.close()


def test_controls(dashboard):
    step = dashboard.controls["step"]
    assert isinstance(step, ipywidgets.IntSlider)
    assert (step.min, step.max, step.step, step.value) == (0, 60, 10, 0)


def test_moving_the_slider_shows_that_steps_snapshot(dashboard, run_and_probe):
    run, _ = run_and_probe
    assert np.allclose(dashboard.image.get_array(), run.snapshots[0])
    dashboard.set(step=40)
    assert np.allclose(dashboard.image.get_array(), run.snapshots[4])
    assert list(dashboard.marker.get_xdata()) == [40, 40]
    assert dashboard.title.get_text() == "where 'missing' looks, step 40"


def test_words_contrast_with_their_cells(dashboard):
    """Issue 11: the heatmap uses the course's colour map, and each word is black or white for contrast."""
    assert dashboard.image.get_cmap().name == style.HEATMAP_CMAP
    dashboard.set(step=60)
    by_colour = {"black": [], "white": []}
    for row_texts, row in zip(dashboard.texts, dashboard.weights):
        for text, w in zip(row_texts, row):
            by_colour[text.get_color()].append(w)
    assert by_colour["black"] and by_colour["white"]
    assert min(by_colour["black"]) > max(by_colour["white"])  # cividis is dark at 0, light at 1


def test_snapshot_index_and_errors(dashboard, run_and_probe):
    assert dashboard.snapshot_index(0) == 0 and dashboard.snapshot_index(35) == 3
    assert dashboard.snapshot_index(60) == 6
    run, probe = run_and_probe
    with pytest.raises(ValueError, match="snapshots"):
        TrainingDashboard(run, probe[:2])
