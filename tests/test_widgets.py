"""The contract every dashboard keeps, tested once for each of them; the base class's own mechanics.

Every subclass of ``Dashboard`` that ``course_utils.widgets`` exports is tested here against the same
contract (one test function per item, parametrised over the dashboards):

- it builds its figure once, outside pyplot, and draws the default values;
- its controls update on release and sit in one box;
- a change of any control redraws once, in place (the same figure, axes and artists), and changes the picture;
- displayed, it shows the controls (with one sentence as their text stand-in) and one picture (``<img alt>`` +
  PNG), and each change replaces that picture, and its alt, by its display id;
- ``set`` changes several controls with one redraw and refuses unknown names and out-of-range values;
- going back to the default values gives back the same picture, byte for byte;
- outside IPython (a static view, pytest) nothing fails and the text fallbacks hold no memory address;
- no control is cut or squeezed (``layout_problems``); closed, it stops redrawing.

What each dashboard's picture shows is tested in its own file (test_widgets_row.py, ..._masks.py, ...).
"""
import matplotlib

matplotlib.use("Agg")

import base64  # noqa: E402
import html  # noqa: E402
import inspect  # noqa: E402
import io  # noqa: E402
import re  # noqa: E402
import warnings  # noqa: E402

import ipywidgets  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from PIL import Image  # noqa: E402
from widget_helpers import (  # noqa: E402  (tests/widget_helpers.py)
    NEEDS_ARGUMENTS,
    RecordingHandle,
    dashboard_classes,
    make_dashboard,
)

from course_utils.widgets import AttentionRowDashboard, Dashboard, float_slider  # noqa: E402
from course_utils.widgets._base import control_phrase, layout_problems  # noqa: E402

PNG_MAGIC = b"\x89PNG"

# --------------------------------------------------------------------------- the dashboards under contract
#: Every dashboard course_utils.widgets exports (the training dashboard gets a short training run).
DASHBOARDS = dashboard_classes()


@pytest.fixture(params=DASHBOARDS, ids=lambda cls: cls.__name__)
def dashboard(request):
    d = make_dashboard(request.param)
    yield d
    d.close()


def test_every_dashboard_of_the_package_is_under_contract():
    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    defined = {cls for cls in subclasses(Dashboard) if cls.__module__.startswith("course_utils.widgets.")}
    assert len(DASHBOARDS) >= 8
    assert defined <= set(DASHBOARDS), f"export these from course_utils.widgets: {defined - set(DASHBOARDS)}"
    for cls in DASHBOARDS:
        required = [p.name for p in inspect.signature(cls).parameters.values()
                    if p.default is inspect.Parameter.empty and p.kind is p.POSITIONAL_OR_KEYWORD]
        assert not required or cls.__name__ in NEEDS_ARGUMENTS, (
            f"{cls.__name__} needs {required}: add a way to build it to NEEDS_ARGUMENTS"
        )


def other_value(control):
    """A valid value of ``control`` different from its current one."""
    if isinstance(control, ipywidgets.Checkbox):
        return not control.value
    if isinstance(control, (ipywidgets.ToggleButtons, ipywidgets.SelectionSlider, ipywidgets.Dropdown)):
        values = [option[1] if isinstance(option, tuple) else option for option in control.options]
        return next(v for v in reversed(values) if v != control.value)  # the last: e.g. the most heads
    if isinstance(control, (ipywidgets.IntSlider, ipywidgets.FloatSlider)):
        return control.max if control.value != control.max else control.min
    raise AssertionError(f"no rule for a {type(control).__name__}: add one to other_value")


def between(control):
    """Up to two values of a slider strictly between its current value and ``other_value`` (none for a switch)."""
    if not isinstance(control, (ipywidgets.IntSlider, ipywidgets.FloatSlider, ipywidgets.SelectionSlider)):
        return []
    if isinstance(control, ipywidgets.SelectionSlider):
        values = [option[1] if isinstance(option, tuple) else option for option in control.options]
        return values[1:-1][:2]
    low, high = sorted((control.value, other_value(control)))
    inside = {low + round((high - low) * fraction / control.step) * control.step for fraction in (0.25, 0.5)}
    return [type(control.value)(value) for value in sorted(inside) if low < value < high]


def artists(fig):
    """Every artist a dashboard draws with, by identity (ticks aside: set_xticks may renew them)."""
    found = [("figure text", id(t)) for t in fig.texts] + [("legend", id(leg)) for leg in fig.legends]
    for ax in fig.axes:
        for kind in ("images", "patches", "lines", "collections", "texts", "containers"):
            found += [(kind, id(artist)) for artist in getattr(ax, kind)]
        found.append(("title", id(ax.title)))
    return found


# --------------------------------------------------------------------------- the contract
def recording(cls, calls):
    """Versions of cls.build and cls.draw that note their calls in ``calls``."""
    build, draw = cls.build, cls.draw

    def recording_build(self, fig):
        calls.append(("build", plt.isinteractive(), fig))
        return build(self, fig)

    def recording_draw(self, **values):
        calls.append(("draw", values))
        return draw(self, **values)

    return recording_build, recording_draw


def test_builds_its_figure_once_outside_pyplot_and_draws_the_default_values(monkeypatch):
    for cls in DASHBOARDS:
        calls = []
        recording_build, recording_draw = recording(cls, calls)
        monkeypatch.setattr(cls, "build", recording_build)
        monkeypatch.setattr(cls, "draw", recording_draw)
        before = plt.get_fignums()
        with plt.ion(), warnings.catch_warnings():
            warnings.simplefilter("error")  # e.g. pyplot's "More than 20 figures", a layout warning
            d = make_dashboard(cls)
        monkeypatch.undo()
        try:
            assert [c[0] for c in calls] == ["build", "draw"], cls.__name__
            assert calls[0][1] is False, f"{cls.__name__}: build ran with pyplot interactive"
            assert calls[0][2] is d.fig and isinstance(d.fig, Figure) and isinstance(d.fig.canvas, FigureCanvasAgg)
            assert calls[1][1] == d.values  # the picture at the controls' default values
            assert plt.get_fignums() == before, f"{cls.__name__} made a pyplot figure"
            assert d.update_count == 0 and d.last_update_seconds is None
        finally:
            d.close()


def test_controls_update_on_release_and_sit_in_one_box(dashboard):
    assert dashboard.controls and all(isinstance(c, ipywidgets.DOMWidget) for c in dashboard.controls.values())
    for name, control in dashboard.controls.items():
        if hasattr(control, "continuous_update"):
            assert control.continuous_update is False, f"{name} redraws while dragged"
    box_class = {"vbox": ipywidgets.VBox, "hbox": ipywidgets.HBox}[dashboard.controls_layout]
    assert isinstance(dashboard.box, box_class)
    assert list(dashboard.box.children) == [*dashboard.controls.values(), dashboard.handle_names]


def test_every_control_redraws_once_in_place_and_changes_the_picture(dashboard):
    fig, axes, drawn = dashboard.fig, list(dashboard.fig.axes), artists(dashboard.fig)
    for name in list(dashboard.controls):
        control, count, png = dashboard.controls[name], dashboard.update_count, dashboard.render_png()
        control.value = other_value(control)  # what a user's move does: the observer fires
        assert dashboard.update_count == count + 1, f"{name}: {dashboard.update_count - count} redraws"
        assert dashboard.last_update_seconds > 0
        assert dashboard.render_png() != png, f"moving {name} left the picture unchanged"
        # built once: the same figure, axes and artists, updated in place
        assert dashboard.fig is fig and dashboard.fig.axes == axes, name
        assert artists(dashboard.fig) == drawn, f"moving {name} added or replaced artists"


def test_displays_the_controls_then_one_png_and_replaces_it_by_display_id(dashboard, monkeypatch):
    import IPython.display

    displayed, handles = [], []

    def display(obj, display_id=None):
        displayed.append((obj, display_id))
        if display_id:
            handles.append(RecordingHandle())
            return handles[-1]
        return None

    monkeypatch.setattr("course_utils.widgets._base._in_ipython", lambda: True)
    monkeypatch.setattr(IPython.display, "display", display)
    assert dashboard.show() is dashboard
    assert len(displayed) == 2
    controls, display_id = displayed[0]
    assert display_id is None
    bundle = controls._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == dashboard.box.model_id
    assert bundle["text/plain"] == repr(dashboard) and "VBox(" not in bundle["text/plain"]
    picture, display_id = displayed[1]
    assert display_id is True  # so that updates replace this output, not add one
    first = picture._repr_mimebundle_()
    assert base64.b64decode(first["image/png"]) == dashboard.render_png(compact=True)  # the stored one: compact
    assert first["text/html"] == f'<img alt="{html.escape(dashboard.describe(), quote=True)}" ' \
                                 f'src="data:image/png;base64,{first["image/png"]}">'
    (handle,) = handles
    name = next(iter(dashboard.controls))
    dashboard.controls[name].value = other_value(dashboard.controls[name])
    dashboard.set(**{name: other_value(dashboard.controls[name])})
    assert len(displayed) == 2  # nothing new displayed: the one picture was updated
    assert len(handle.pngs) == 2 and all(png.startswith(PNG_MAGIC) for png in handle.pngs)
    assert handle.pngs[0] != handle.pngs[1] and handle.pngs[1] == dashboard.render_png()
    assert dashboard.describe() in html.unescape(handle.bundles[1]["text/html"])  # the alt follows the picture


def test_set_changes_several_controls_with_one_redraw_and_checks_its_arguments(dashboard):
    new = {name: other_value(control) for name, control in dashboard.controls.items()}
    names = re.escape(str(list(dashboard.controls)))
    with pytest.raises(ValueError, match=rf"unknown control\(s\) \['no_such_control'\]; this dashboard has {names}"):
        dashboard.set(no_such_control=1)
    ranged = [(name, c) for name, c in dashboard.controls.items() if hasattr(c, "min") and hasattr(c, "max")]
    if ranged:
        name, control = ranged[0]
        with pytest.raises(ValueError, match=re.escape(f"{name}={control.max + 100} lies outside") + r".*"
                           + re.escape(f"[{control.min}, {control.max}]")):
            dashboard.set(**{name: control.max + 100})
    assert dashboard.update_count == 0  # a refused call changes nothing
    assert dashboard.set(**new) is dashboard
    assert dashboard.update_count == 1
    values = dashboard.values
    dashboard.set(**values)  # no change, no redraw
    assert dashboard.update_count == 1


def test_going_back_to_the_default_values_restores_the_same_bytes(dashboard):
    default, png = dashboard.values, dashboard.render_png()
    dashboard.set(**{name: other_value(control) for name, control in dashboard.controls.items()})
    assert dashboard.render_png() != png
    dashboard.set(**default)
    assert dashboard.values == default
    assert dashboard.render_png() == png  # Agg output is deterministic: the same bytes


def test_every_update_has_the_pixels_a_plain_agg_render_gives(dashboard):
    """An update draws a cached background and the changed artists over it (widgets/_background.py): the pixels must
    stay those of a full render by matplotlib's own ``FigureCanvasAgg`` (a fresh one per picture), bit for bit, with
    matplotlib 3.11 and 3.10 alike (the py310 lock; .ci/py310 runs this file there). Not
    ``fig.draw(RendererAgg(...))``: with matplotlib 3.10 that differs from a canvas's render in ~13,000 pixels of
    AttentionRowDashboard."""
    def plain_pixels():
        own = dashboard.fig.canvas
        try:
            plain = FigureCanvasAgg(dashboard.fig)  # a fresh canvas (it becomes the figure's canvas...)
            plain.draw()
            return np.asarray(plain.buffer_rgba()).copy()
        finally:
            dashboard.fig.set_canvas(own)  # ...until the dashboard's own is put back

    def shown_pixels(png):
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))

    renders = 0
    for name in list(dashboard.controls):
        control = dashboard.controls[name]
        first = control.value
        for value in (other_value(control), first, other_value(control), *between(control)):  # new, back, again
            control.value = value
            png = dashboard.render_png()
            renders += 1
            assert np.array_equal(shown_pixels(png), plain_pixels()), f"{name}={value!r}: pixels differ"
    assert type(dashboard.fig.canvas) is FigureCanvasAgg
    # the cached background is in use, and drawn again only for a new state of the figure
    assert dashboard.background is not None and 0 < dashboard.background.background_renders < renders


def recorded_displays(monkeypatch, in_ipython):
    """IPython's ``display`` replaced by a recorder: the list of what it was asked to display, and the
    ``RecordingHandle`` it gave each picture (display id) as a front end's handle."""
    import IPython.display

    displayed = []

    def display(obj, display_id=None):
        displayed.append(RecordingHandle() if display_id else obj)
        return displayed[-1] if display_id else None

    monkeypatch.setattr("course_utils.widgets._base._in_ipython", lambda: in_ipython)
    monkeypatch.setattr(IPython.display, "display", display)
    return displayed


def test_outside_ipython_nothing_fails_and_the_text_fallback_is_stable(dashboard, monkeypatch):
    displayed = recorded_displays(monkeypatch, in_ipython=False)
    assert dashboard.show() is dashboard
    dashboard._ipython_display_()
    assert displayed == []  # nothing displayed outside IPython
    name = next(iter(dashboard.controls))
    dashboard.controls[name].value = other_value(dashboard.controls[name])
    assert dashboard.update_count == 1  # still redraws the figure
    sentence = repr(dashboard)  # the controls' stand-in in a static view: one sentence, every control's value
    assert re.fullmatch(r"[A-Z][^\n]*: [^\n]+\.", sentence) and "0x" not in sentence, sentence
    for control in dashboard.controls.values():
        assert control_phrase(control) in sentence
    from course_utils.widgets._base import _FigurePicture

    picture = _FigurePicture(dashboard)  # what a static view (GitHub, nbconvert) and nbval get
    assert re.fullmatch(rf"<Figure size [\d.]+x[\d.]+ with {len(dashboard.fig.axes)} Axes>", repr(picture))
    png = picture._repr_png_()
    assert png.startswith(PNG_MAGIC)
    size = (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big"))  # the PNG header's width, height
    assert size == dashboard.fig.canvas.get_width_height()  # the figure's own size, not a tight crop


def test_no_control_is_cut_or_squeezed(dashboard):
    assert dashboard.layout_problems() == []


def test_closed_it_stops_redrawing(dashboard, monkeypatch):
    displayed = recorded_displays(monkeypatch, in_ipython=True)
    dashboard.show()
    picture = displayed[-1]  # the picture's handle
    name = next(iter(dashboard.controls))
    dashboard.close()
    dashboard.controls[name].value = other_value(dashboard.controls[name])
    assert dashboard.update_count == 0 and picture.pngs == []  # no redraw, the displayed picture left alone
    dashboard.close()  # a second close does nothing (the fixture closes once more)


# --------------------------------------------------------------------------- the base class's mechanics
def test_many_dashboards_use_no_pyplot_figures():
    before = plt.get_fignums()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "More than 20 figures" would be a RuntimeWarning
        dashboards = [AttentionRowDashboard() for _ in range(25)]
    assert plt.get_fignums() == before
    assert all(isinstance(d.fig, Figure) for d in dashboards)
    for d in dashboards:
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


def test_an_update_png_has_the_canvas_pixels_and_keeps_transparency():
    """``render_png``'s update picture: every pixel of the canvas, RGB when opaque, RGBA (alpha kept) when not."""
    from matplotlib.patches import Rectangle

    class SquareDashboard(Dashboard):
        figsize = (1.0, 0.8)

        def make_controls(self):
            return {"size": float_slider("size", 1.0, min=0.0, max=2.0)}

        def build(self, fig):
            self.patch = fig.add_subplot().add_patch(Rectangle((0, 0), 1, 1))

        def draw(self, size):
            self.patch.set_width(size / 2)

    d = SquareDashboard()
    for transparent in (False, True):
        d.fig.patch.set_alpha(0.0 if transparent else 1.0)
        png = d.render_png()
        seen = Image.open(io.BytesIO(png))
        pixels = np.asarray(d.fig.canvas.buffer_rgba())
        assert seen.mode == ("RGBA" if transparent else "RGB")
        assert np.array_equal(np.asarray(seen), pixels if transparent else pixels[..., :3])
        assert d.render_png() == png  # deterministic
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


# --------------------------------------------------------------------------- real kernel
KERNEL_CELLS = [
    # 0: the dashboard as a cell's last expression (how the notebooks show it)
    "from course_utils.widgets import AttentionRowDashboard\nd = AttentionRowDashboard()\nd",
    # 1: a programmatic move: must replace cell 0's picture, not add a new one
    "d.set(score_3=4.0)\nprint(d.update_count)",
    # 2: the same state reached in a fresh dashboard, for comparison (an update: the same PNG as cell 0's update)
    "AttentionRowDashboard().show().set(score_3=4.0);",
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


def test_every_slider_handle_gets_a_name_from_its_label_or_its_key(dashboard):
    """The browser test checks the names in the page; here: what Python sends for them."""
    from course_utils.widgets._handle_names import _ESM, SLIDERS

    sliders = [c for c in dashboard.controls.values() if isinstance(c, SLIDERS)]
    names = dashboard.handle_names.names
    assert len(names) == len(sliders), f"{len(names)} names for {len(sliders)} sliders"
    assert all(name.strip() for name in names), names
    for slider, name in zip(sliders, names):
        if slider.description:
            assert name in re.sub(r"\$|\\", "", slider.description) or name == slider.description
    assert dashboard.handle_names.layout.display == "none"  # invisible, never a Tab stop
    assert "export default" in _ESM and "aria-labelledby" in _ESM and "http" not in _ESM  # inline, offline


def test_a_slider_without_a_description_is_named_after_its_key():
    from course_utils.widgets._handle_names import slider_names

    controls = {"key_scale": ipywidgets.FloatSlider(), "causal": ipywidgets.Checkbox(description="causal"),
                "width": ipywidgets.IntSlider(description="width of a head")}
    assert slider_names(controls) == ["key scale", "width of a head"]


def test_a_cached_background_keeps_matplotlibs_order_within_an_axes_and_draws_in_full_with_a_layout_engine():
    """``_background.CachedBackground`` by itself: a dynamic artist under static ones (they are drawn again over it),
    a change of the view limits (a new background), and a figure with a layout engine (always drawn in full)."""
    from course_utils.widgets._background import CachedBackground

    def plain_pixels(fig):
        own = fig.canvas
        try:
            plain = FigureCanvasAgg(fig)
            plain.draw()
            return np.asarray(plain.buffer_rgba()).copy()
        finally:
            fig.set_canvas(own)

    for layout in (None, "constrained"):
        fig = Figure(figsize=(4, 3), layout=layout)
        canvas = FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        (moving,) = ax.plot([0, 1], [0, 1], linewidth=8, zorder=1)  # dynamic, under the next two
        ax.plot([0, 1], [1, 0], linewidth=8, zorder=2)
        ax.text(0.5, 0.5, "over", fontsize=20, zorder=3)
        title = fig.suptitle("")
        background = CachedBackground([moving, title])
        for step, top in enumerate([1.0, 0.5, 1.0, 0.5, 0.5]):
            moving.set_ydata([0, top])
            title.set_text(f"step {step}")
            if step == 4:
                ax.set_ylim(-1, 2)  # a new view: a new background
            background.render(canvas)
            assert np.array_equal(np.asarray(canvas.buffer_rgba()), plain_pixels(fig)), (layout, step)
        assert background.background_renders == (0 if layout else 2)


def test_view_bundle_without_repr_mimebundle_is_ipywidgets_7s_view():
    """ipywidgets 7 (Colab's 7.7.1) widgets have no _repr_mimebundle_ (the Colab run's AttributeError): the view
    data is written as ipywidgets 7's _ipython_display_ writes it, with our text stand-in."""
    from course_utils.widgets._base import view_bundle

    class Widget7:  # what an ipywidgets 7 widget offers: a model id, display through _ipython_display_
        model_id = "abc123"

        def _ipython_display_(self):  # pragma: no cover - never called
            raise AssertionError

    bundle = view_bundle(Widget7(), "three sliders")
    assert bundle == {"application/vnd.jupyter.widget-view+json":
                      {"version_major": 2, "version_minor": 0, "model_id": "abc123"},
                      "text/plain": "three sliders"}
    slider = ipywidgets.FloatSlider()
    eight = view_bundle(slider, "one slider")
    assert eight["application/vnd.jupyter.widget-view+json"]["model_id"] == slider.model_id
    assert eight["text/plain"] == "one slider"
    slider.close()


def test_under_ipywidgets_7_the_box_holds_only_the_controls(monkeypatch):
    """Colab's page draws no anywidget (the handle-names helper) unless told to load it from Google: under
    ipywidgets 7 the box holds the controls alone, and closing still works."""
    from course_utils.widgets import _base

    monkeypatch.setattr(_base, "IPYWIDGETS_MAJOR", 7)
    dashboard = AttentionRowDashboard()
    assert dashboard.handle_names is None
    assert list(dashboard.box.children) == list(dashboard.controls.values())
    dashboard.close()
