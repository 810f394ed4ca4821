"""Tests of the notebook-06 dashboard (course_utils.widgets.learned), headless (Agg)."""
import matplotlib

matplotlib.use("Agg")

import ipywidgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course_utils import training as tr  # noqa: E402
from course_utils.widgets import TrainingDashboard  # noqa: E402
from widget_helpers import RecordingHandle  # noqa: E402  (tests/widget_helpers.py)


@pytest.fixture(scope="module")
def run_and_probe():
    tokens, query_pos, labels = tr.make_tickets(256, seed=0)
    probe = tr.make_tickets(5, seed=1)
    run = tr.train(tr.init_params(seed=0), tokens, query_pos, labels, steps=60, probe=probe[:2],
                   snapshot_every=10)
    return run, probe[0]


@pytest.fixture
def dashboard(run_and_probe):
    d = TrainingDashboard(*run_and_probe)
    yield d
    d.close()


def test_controls(dashboard):
    step = dashboard.controls["step"]
    assert isinstance(step, ipywidgets.IntSlider)
    assert (step.min, step.max, step.step, step.value) == (0, 60, 10, 0)
    assert step.continuous_update is False


def test_moving_the_slider_updates_the_artists_in_place(dashboard, run_and_probe):
    run, _ = run_and_probe
    handle = RecordingHandle()
    dashboard._handles.append(handle)
    fig, image = dashboard.fig, dashboard.image
    before = dashboard.render_png()
    assert np.allclose(image.get_array(), run.snapshots[0])
    dashboard.set(step=40)
    assert dashboard.fig is fig and dashboard.image is image
    assert np.allclose(image.get_array(), run.snapshots[4])
    assert list(dashboard.marker.get_xdata()) == [40, 40]
    assert dashboard.title.get_text() == "where 'missing' looks, step 40"
    assert len(handle.pngs) == 1 and handle.pngs[0] != before


def test_snapshot_index_and_errors(dashboard, run_and_probe):
    assert dashboard.snapshot_index(0) == 0 and dashboard.snapshot_index(35) == 3
    assert dashboard.snapshot_index(60) == 6
    run, probe = run_and_probe
    with pytest.raises(ValueError, match="snapshots"):
        TrainingDashboard(run, probe[:2])
