"""Tests of course_utils.widgets, headless (Agg), plus one run in a real kernel (nbclient)."""
import matplotlib

matplotlib.use("Agg")

import warnings  # noqa: E402

import ipywidgets  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.path import Path  # noqa: E402

from course_utils.attention import attention_row  # noqa: E402
from course_utils.lessons.data import ARTICLE_VALUES  # noqa: E402
from course_utils.plots import convex_hull  # noqa: E402
from course_utils.softmax import softmax  # noqa: E402
from course_utils.widgets import AttentionRowDashboard, Dashboard, float_slider  # noqa: E402
from course_utils.widgets._base import layout_problems  # noqa: E402
from widget_helpers import RecordingHandle  # noqa: E402  (tests/widget_helpers.py)


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
        assert slider.continuous_update is False
    assert isinstance(dashboard.box, ipywidgets.VBox)
    assert list(dashboard.box.children) == list(dashboard.controls.values())


def test_initial_picture_is_the_article_example(dashboard):
    np.testing.assert_allclose(scores(dashboard), [2.0, 1.0, 0.0])
    np.testing.assert_allclose(bar_heights(dashboard), softmax(np.array([2.0, 1.0, 0.0])))
    np.testing.assert_allclose(output_point(dashboard), [0.935, 0.579], atol=5e-4)
    assert dashboard.summary.get_text() == (
        "weights = [0.665, 0.245, 0.090]    output = [0.935, 0.579]"
    )
    assert dashboard.update_count == 0


def test_slider_move_updates_artists_in_place_and_changes_the_image(dashboard):
    fig, bars, marker = dashboard.fig, list(dashboard.bars), dashboard.hull["output"]
    png_before = dashboard.render_png()

    dashboard.controls["score_3"].value = 3.5  # what a user's move does: the observer fires

    assert dashboard.update_count == 1 and dashboard.last_update_seconds > 0
    new_scores = np.array([2.0, 1.0, 3.5])
    expected_output, expected_weights = attention_row(new_scores, ARTICLE_VALUES)
    np.testing.assert_allclose(bar_heights(dashboard), softmax(new_scores))
    np.testing.assert_allclose(bar_heights(dashboard), expected_weights)
    np.testing.assert_allclose(output_point(dashboard), expected_output)
    np.testing.assert_allclose(dashboard.output, expected_output)
    assert Path(convex_hull(ARTICLE_VALUES)).contains_point(output_point(dashboard))
    assert f"{expected_output[0]:.3f}" in dashboard.summary.get_text()
    assert dashboard.render_png() != png_before
    # built once: the same figure, bars and marker objects, no new axes
    assert dashboard.fig is fig and len(fig.axes) == 2
    assert list(dashboard.bars) == bars and dashboard.hull["output"] is marker


def test_moving_a_slider_back_restores_the_original_picture(dashboard):
    heights, point, text = bar_heights(dashboard), output_point(dashboard), dashboard.summary.get_text()
    png = dashboard.render_png()
    dashboard.controls["score_1"].value = -4.2
    assert not np.allclose(bar_heights(dashboard), heights)
    dashboard.controls["score_1"].value = 2.0
    assert dashboard.update_count == 2
    np.testing.assert_array_equal(bar_heights(dashboard), heights)
    np.testing.assert_array_equal(output_point(dashboard), point)
    assert dashboard.summary.get_text() == text
    assert dashboard.render_png() == png  # Agg output is deterministic: the same bytes


def test_set_changes_several_controls_with_one_redraw(dashboard):
    assert dashboard.set(score_1=0.0, score_3=1.5) is dashboard
    assert dashboard.update_count == 1
    np.testing.assert_allclose(scores(dashboard), [0.0, 1.0, 1.5])
    np.testing.assert_allclose(bar_heights(dashboard), softmax(np.array([0.0, 1.0, 1.5])))
    dashboard.set(score_1=0.0)  # no change, no redraw
    assert dashboard.update_count == 1


def test_set_rejects_unknown_names_and_out_of_range_values(dashboard):
    with pytest.raises(ValueError, match=r"unknown control.*score_4.*score_1"):
        dashboard.set(score_4=1.0)
    with pytest.raises(ValueError, match=r"score_2=7.0.*\[-5.0, 5.0\]"):
        dashboard.set(score_2=7.0)
    assert dashboard.update_count == 0


def test_each_update_refreshes_the_same_display_with_a_new_png(dashboard):
    handle = RecordingHandle()
    dashboard._handles.append(handle)  # what show() records in IPython
    dashboard.set(score_2=4.0)
    dashboard.set(score_2=-1.0)
    assert len(handle.pngs) == 2
    assert handle.pngs[0].startswith(b"\x89PNG") and handle.pngs[0] != handle.pngs[1]
    assert handle.pngs[1] == dashboard.render_png()


def test_show_outside_ipython_does_not_fail(dashboard):
    assert dashboard.show() is dashboard
    dashboard._ipython_display_()
    dashboard.controls["score_1"].value = 1.0  # still redraws the figure
    assert dashboard.update_count == 1
    assert repr(dashboard) == "AttentionRowDashboard(score_1=1.0, score_2=1.0, score_3=0.0)"


def test_dashboards_use_no_pyplot_figures():
    before = plt.get_fignums()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "More than 20 figures" would be a RuntimeWarning
        dashboards = [AttentionRowDashboard() for _ in range(25)]
    assert plt.get_fignums() == before
    assert all(isinstance(d.fig, Figure) for d in dashboards)
    for d in dashboards:
        d.close()


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


def test_base_class_mechanics_for_a_custom_dashboard():
    class LineDashboard(Dashboard):
        figsize = (3.0, 2.0)
        controls_layout = "hbox"

        def make_controls(self):
            return {"slope": float_slider("slope", 1.0), "flip": ipywidgets.Checkbox(value=False)}

        def build(self, fig):
            self.builds = getattr(self, "builds", 0) + 1
            self.interactive_during_build = plt.isinteractive()
            (self.line,) = fig.add_subplot().plot([0, 1], [0, 1])
            self.drawn = []

        def draw(self, slope, flip):
            self.drawn.append((slope, flip))
            self.line.set_ydata([0, -slope if flip else slope])

    with plt.ion():
        d = LineDashboard()
    assert d.builds == 1 and d.interactive_during_build is False
    assert isinstance(d.box, ipywidgets.HBox)
    assert d.drawn == [(1.0, False)]  # the picture at the default values, drawn at construction
    d.controls["flip"].value = True
    d.set(slope=2.5)
    assert d.drawn[1:] == [(1.0, True), (2.5, True)]
    np.testing.assert_allclose(d.line.get_ydata(), [0, -2.5])
    assert d.builds == 1 and d.update_count == 2
    d.close()


def test_float_slider_defaults():
    slider = float_slider("x", 0.5, min=0, max=1, step=0.05)
    assert slider.continuous_update is False and slider.value == 0.5
    assert float_slider("y", 0.0, continuous_update=True).continuous_update is True


def test_float_slider_gives_a_long_label_room_and_keeps_its_track():
    """Issue 10: a long description used to squeeze a fixed 420 px slider's track to ~40 px."""
    from course_utils.widgets._base import SLIDER_EXTRA_PX, SLIDER_TRACK_PX, text_px

    for description in ("x", "score of token 1", "add to the scores of the hidden (later) keys"):
        slider = float_slider(description, 0.0)
        label = int(slider.style.description_width.removesuffix("px"))
        width = int(slider.layout.width.removesuffix("px"))
        assert label >= text_px(description)
        assert width - label - SLIDER_EXTRA_PX == SLIDER_TRACK_PX
        assert layout_problems({"s": slider}) == []
    custom = float_slider("z", 0.0, layout=ipywidgets.Layout(width="500px"))
    assert custom.layout.width == "500px"


def test_toggle_buttons_are_as_wide_as_their_longest_label():
    from course_utils.widgets._base import BUTTON_PADDING_PX, text_px, toggle_buttons

    buttons = toggle_buttons([("short", 1), ("a much longer label, with a comma", 2)], 2, description="pick")
    assert buttons.value == 2 and buttons.description == "pick"
    assert buttons.style.button_width == f"{text_px('a much longer label, with a comma') + BUTTON_PADDING_PX}px"
    assert layout_problems({"b": buttons}) == []


def _default_dashboards():
    import inspect

    import course_utils.widgets as widgets

    found = []
    for name in widgets.__all__:
        cls = getattr(widgets, name)
        if inspect.isclass(cls) and issubclass(cls, Dashboard) and cls is not Dashboard:
            required = [p for p in inspect.signature(cls).parameters.values()
                        if p.default is inspect.Parameter.empty and p.kind is p.POSITIONAL_OR_KEYWORD]
            if not required:  # TrainingDashboard needs a training run
                found.append(cls)
    return found


@pytest.mark.parametrize("cls", _default_dashboards(), ids=lambda cls: cls.__name__)
def test_no_dashboard_cuts_a_label_or_squeezes_a_slider(cls):
    d = cls()
    try:
        assert d.layout_problems() == []
    finally:
        d.close()


# --------------------------------------------------------------------------- real kernel
KERNEL_CELLS = [
    # 0: the dashboard as a cell's last expression (how the notebooks show it)
    "from course_utils.widgets import AttentionRowDashboard\nd = AttentionRowDashboard()\nd",
    # 1: a programmatic move: must replace cell 0's picture, not add a new one
    "d.set(score_3=4.0)\nprint(d.update_count)",
    # 2: the same state built fresh, for comparison
    "AttentionRowDashboard(scores=[2.0, 1.0, 4.0]).show();",
    # 3: the default state built fresh
    "AttentionRowDashboard()",
    # 4: many dashboards: no pyplot figures, no warnings
    "import warnings\nimport matplotlib.pyplot as plt\n"
    "with warnings.catch_warnings():\n"
    "    warnings.simplefilter('error')\n"
    "    many = [AttentionRowDashboard() for _ in range(25)]\n"
    "    for m in many:\n        m.show()\n"
    "print(len(plt.get_fignums()))",
]


def test_display_and_update_in_a_real_kernel():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in KERNEL_CELLS])
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=120).execute()
    outs = [cell.outputs for cell in nb.cells]

    def picture(cell_outputs):
        images = [o for o in cell_outputs if "image/png" in o.get("data", {})]
        assert len(images) == 1, cell_outputs
        return images[0].data["image/png"]

    # controls (a widget view) above the picture (a plain PNG output), nothing else
    assert len(outs[0]) == 2
    assert "application/vnd.jupyter.widget-view+json" in outs[0][0].data
    assert outs[0][1].data["text/plain"] == "<Figure size 1000x460 with 2 Axes>"
    assert outs[1][0].text.strip() == "1"
    # cell 0's picture was updated in place to the moved state
    assert picture(outs[0]) == picture(outs[2])
    assert picture(outs[0]) != picture(outs[3])
    assert all(o.output_type != "error" and o.get("name") != "stderr" for c in outs for o in c)
    assert outs[4][-1].text.strip() == "0"
