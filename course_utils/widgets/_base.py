"""Slider dashboards for the notebooks (ipywidgets + matplotlib): the mechanics every ``Dashboard`` shares.

* The controls (``continuous_update=False``) show first, in a VBox/HBox; where no widget can show (GitHub,
  nbconvert HTML, the stored notebook) their stand-in is one sentence naming each control's value
  (``repr(dashboard)``).
* The figure is built once, on a ``matplotlib.figure.Figure`` that pyplot never sees (the inline backend does not
  show it twice, and many dashboards never trigger "More than 20 figures"), and shown below the controls with a
  display id as ``<img alt>`` (text/html) and the same PNG (image/png); the alt is ``describe()``, what the picture
  shows now with its numbers.
* A control change updates the existing artists (``draw``) and replaces that output with a fresh picture and alt
  (``DisplayHandle.update``); the figure is never rebuilt.

Why a picture object and not ``display(fig)``: ``display(fig)`` gives an image only once a figure formatter is
registered; ``_FigurePicture`` renders on the figure's own ``FigureCanvasAgg`` whatever the backend (inline, ipympl,
none). A dashboard that names the artists its ``draw`` changes (``dynamic_artists``) is rendered as a cached
background with those artists drawn over it (``_background.CachedBackground``: the same pixels as a full render).
Issue 23 asks an update (draw + PNG) to take at most 0.5x the time of re-creating and rendering a simple figure;
``make bench`` (benchmarks/widgets.py) measures both, and docs/performance.md says which controls stay over it.

Controls are sized from their text (``slider``, ``float_slider``, ``slider_style_and_layout``, ``toggle_buttons``):
a label shows in full, a track stays usable, a button is as wide as its longest label. ``layout_problems`` checks
that without a browser, from text widths estimated with constants measured in JupyterLab 4.6.
"""
import contextlib
import math
import re
import time

import ipywidgets
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from course_utils.alt_text import compact_png, description, exact_png, picture_bundle, plain
from course_utils.widgets._background import CachedBackground
from course_utils.widgets._handle_names import SLIDERS, SliderHandleNames, slider_names

__all__ = [
    "IPYWIDGETS_MAJOR",
    "Dashboard",
    "Form",
    "WidgetView",
    "axis_below",
    "control_phrase",
    "float_slider",
    "layout_problems",
    "slider",
    "slider_style_and_layout",
    "text_px",
    "toggle_buttons",
    "view_bundle",
]

#: zlib level of an update's PNG (``Dashboard.render_png``): level 1, the fastest; a PNG goes once to the browser.
UPDATE_PNG_LEVEL = 1

#: ipywidgets' major version: 8 in the course's lock; 7 in Colab, whose page runs ipywidgets 7's JavaScript.
IPYWIDGETS_MAJOR = int(ipywidgets.__version__.split(".")[0])


def view_bundle(widget, text):
    """The MIME bundle of ``widget``'s view, with ``text`` as the text/plain a page without widgets shows.

    ipywidgets 7 (Colab's 7.7.1) has no ``_repr_mimebundle_``: its ``_ipython_display_`` publishes the view data
    written here, so one display shows the widget and carries our own text stand-in under both versions.
    """
    if hasattr(widget, "_repr_mimebundle_"):  # ipywidgets 8
        bundle = dict(widget._repr_mimebundle_())
    else:  # ipywidgets 7
        bundle = {"application/vnd.jupyter.widget-view+json":
                  {"version_major": 2, "version_minor": 0, "model_id": widget.model_id}}
    bundle["text/plain"] = text
    return bundle

# Widget geometry, measured in JupyterLab 4.6.6 + ipywidgets 8.1.9 in Chromium (tests/test_browser.py's setup).
#: Pixels allowed per character of a label or button text. Widget text is JupyterLab's 13 px sans-serif UI
#: font: 6.4 to 6.8 px per character measured; 7 leaves a margin for other fonts.
TEXT_PX_PER_CHAR = 7.0
#: What a horizontal slider takes besides its label and its track: the readout and the margins (96 px measured).
SLIDER_EXTRA_PX = 96
#: The track a dashboard slider gets (the notebook-01 sliders' track, 220 px).
SLIDER_TRACK_PX = 220
#: Below this a track is hard to use (the notebook-03 slider that prompted the rule had 42 px).
MIN_TRACK_PX = 150
#: A toggle button's padding and border around its text.
BUTTON_PADDING_PX = 24
#: A slider's width when its layout sets none (ipywidgets' --jp-widgets-inline-width).
DEFAULT_WIDGET_PX = 300


def text_px(text):
    """Pixels to allow for ``text`` in a widget label or button (``TEXT_PX_PER_CHAR`` per character)."""
    return math.ceil(len(str(text)) * TEXT_PX_PER_CHAR)


def slider_style_and_layout(*descriptions, track_px=SLIDER_TRACK_PX):
    """``(style, layout)`` for sliders whose labels show in full and whose tracks are ``track_px`` wide.

    The label is as wide as the longest of the descriptions (at least one), so sliders made with the same
    descriptions line up their tracks; the layout is label + track + readout wide, at most the output area's width
    (a narrow window shortens the track, never the label).
    """
    if not descriptions:
        raise ValueError("slider_style_and_layout needs at least one description")
    label = max(text_px(d) for d in descriptions)
    style = {"description_width": f"{label}px"}
    return style, ipywidgets.Layout(width=f"{label + track_px + SLIDER_EXTRA_PX}px", max_width="100%")


def toggle_buttons(options, value, *, description="", **kwargs):
    """A ToggleButtons whose buttons are all as wide as the longest label needs (no "..." cut).

    ``options`` are (label, value) pairs, or labels; ``kwargs`` go to ``ipywidgets.ToggleButtons`` (a ``style``
    given keeps its other keys).
    """
    labels = [option[0] if isinstance(option, tuple) else str(option) for option in options]
    style = dict(kwargs.pop("style", {}))
    style["button_width"] = f"{max(text_px(label) for label in labels) + BUTTON_PADDING_PX}px"
    if description:
        style.setdefault("description_width", "initial")
    return ipywidgets.ToggleButtons(options=options, value=value, description=description, style=style, **kwargs)


def _px(size, default=None):
    """A number of pixels from a CSS size such as "420px"; ``default`` for None, "", "initial"."""
    if size is None or size in ("", "initial", "auto"):
        return default
    size = str(size).strip()
    if size.endswith("px"):
        return float(size[:-2])
    return None  # "100%", "30em", ...: not measurable without a browser


def layout_problems(controls):
    """What a browser would show cut or squeezed in ``controls`` (name -> control), one sentence per problem.

    A slider's track (width - label - readout) must be at least ``MIN_TRACK_PX`` and a fixed label width must hold
    its description; each button of a ToggleButtons must hold its label (text widths from ``text_px``).
    """
    problems = []
    for name, control in controls.items():
        if isinstance(control, SLIDERS):
            if getattr(control, "orientation", "horizontal") != "horizontal":
                continue
            width = _px(control.layout.width, DEFAULT_WIDGET_PX)
            needed = text_px(control.description) if control.description else 0
            label = _px(getattr(control.style, "description_width", None), needed)
            if width is None or label is None:
                continue
            if label < needed:
                problems.append(f"{name}: the label {control.description!r} needs about {needed} px "
                                f"but has {label:.0f} px: it is cut")
            track = width - label - SLIDER_EXTRA_PX
            if track < MIN_TRACK_PX:
                problems.append(f"{name}: the slider's track is about {track:.0f} px wide "
                                f"(width {width:.0f} px, label {label:.0f} px): at least {MIN_TRACK_PX} px needed")
        elif isinstance(control, ipywidgets.ToggleButtons):
            button = _px(getattr(control.style, "button_width", None))
            if button is None:
                continue
            for label in control._options_labels:
                needed = text_px(label) + BUTTON_PADDING_PX
                if needed > button:
                    problems.append(f"{name}: the button {label!r} needs about {needed} px but is {button:.0f} px "
                                    f"wide: its label is cut")
    return problems


def float_slider(description, value, *, min=-5.0, max=5.0, step=0.1, **kwargs):
    """A FloatSlider made by ``slider`` (label in full, a ``SLIDER_TRACK_PX`` track unless ``style`` or ``layout``
    are given), readout ".1f"; ``kwargs`` go to it. A value outside [min, max] is a ValueError (ipywidgets would
    silently clip it)."""
    if not min <= value <= max:
        raise ValueError(f"{description}: value {value} lies outside the slider range [{min}, {max}]")
    kwargs.setdefault("readout_format", ".1f")
    return slider(ipywidgets.FloatSlider, description, value=value, min=min, max=max, step=step, **kwargs)


def slider(kind, description, width_px=None, *, align=(), **kwargs):
    """An ipywidgets slider of class ``kind`` that updates on release (``continuous_update=False``).

    ``width_px``: its whole width, its label as wide as its text. None: ``slider_style_and_layout(description,
    *align)``, its label in full and its track lined up with sliders described by ``align``. ``kwargs`` go to
    ``kind`` (they may replace ``continuous_update``, ``style`` and ``layout``).
    """
    if width_px is None:
        style, layout = slider_style_and_layout(description, *align)
    else:
        style, layout = {"description_width": "initial"}, ipywidgets.Layout(width=f"{width_px}px")
    return kind(description=description, **{"continuous_update": False, "style": style, "layout": layout, **kwargs})


def axis_below(*axes):
    """Draw each axes' x and y axis (ticks, labels, grid lines) first (zorder -1), under its data.

    An axes' artists after its first dynamic one are drawn on every update; drawn first, its ticks and labels stay in
    the cached background. Ticks point outwards, so nothing a heatmap or a bar shows changes.
    """
    for ax in axes:
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_zorder(-1)


def _in_ipython():
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return False
    return get_ipython() is not None


class _FigurePicture:
    """What is displayed for a dashboard's figure: ``<img alt>`` + PNG, rendered and described when displayed."""

    def __init__(self, dashboard, compact=False):
        self._dashboard = dashboard
        self._compact = compact  # the first picture (stored in the notebook): compact; updates: quick

    def _repr_mimebundle_(self, include=None, exclude=None):
        return picture_bundle(self._dashboard.render_png(compact=self._compact), self._dashboard.describe())

    def _repr_png_(self):  # for a consumer that asks for the PNG alone
        return self._dashboard.render_png(compact=self._compact)

    def __repr__(self):  # text/plain fallback; stable (no memory address) for nbval
        return repr(self._dashboard.fig)


class WidgetView:
    """What is displayed for the controls of ``owner`` (a dashboard, the inventory form): the view of ``owner.box``,
    with ``repr(owner)``, one sentence, as its text stand-in (not the box's ``VBox(children=...)``)."""

    def __init__(self, owner):
        self._owner = owner

    def _repr_mimebundle_(self, include=None, exclude=None):
        return view_bundle(self._owner.box, repr(self._owner))

    def __repr__(self):
        return repr(self._owner)


class Form:
    """A form of widgets in ``box`` (the inventory, a review, a Parsons problem): its view, with ``repr(self)`` as
    the text stand-in, then ``static_bundle()``, what a page without a kernel shows instead."""

    def show(self):
        """Display the form, then its text for a page without a kernel (folded away)."""
        from IPython.display import display

        display(WidgetView(self))
        display(self.static_bundle(), raw=True)
        return self

    def _ipython_display_(self):
        self.show()

    def close(self):
        """Close every widget of the form."""
        close_widgets(self.box)


def close_widgets(widget):
    """Close ``widget`` and every widget inside it."""
    for child in getattr(widget, "children", ()):
        close_widgets(child)
    widget.close()


def control_phrase(control):
    """One control and its value in words: "score of token 1: 2.0", "causal mask: on", "'pad on the left' chosen"."""
    label = plain(getattr(control, "description", "") or "")
    if isinstance(control, ipywidgets.Checkbox):
        value = "on" if control.value else "off"
    elif isinstance(control, (ipywidgets.ToggleButtons, ipywidgets.Dropdown, ipywidgets.RadioButtons)):
        options = ", ".join(control._options_labels)
        return f"{label}: {control.label} (of {options})" if label else f"“{control.label}” chosen (of {options})"
    elif isinstance(control, ipywidgets.FloatSlider):
        try:
            value = format(control.value, control.readout_format)
        except (TypeError, ValueError):
            value = f"{control.value:g}"
    else:
        value = str(control.value)
    return f"{label}: {value}" if label else value


class Dashboard:
    """Base class: controls above one figure that is built once and updated in place.

    Subclasses implement three methods:

    ``make_controls(self) -> dict``
        name -> ipywidgets control (e.g. ``float_slider(...)``). The names are the keyword
        arguments ``draw`` receives and ``set`` accepts.
    ``build(self, fig)``
        Create axes and artists on ``fig`` (a ``matplotlib.figure.Figure`` of size ``figsize``)
        and keep the artists ``draw`` needs on ``self``. Called once, inside ``plt.ioff()``.
    ``draw(self, **control_values)``
        Update the artists for these control values, in place (never clear or rebuild).

    and ``describe(self) -> str``, the picture's alt: what it shows and its numbers now. A subclass's parameters
    named like its controls are the controls' initial values.

    Attributes
    ----------
    controls : dict
        name -> widget. Setting ``controls[name].value`` redraws exactly as a user's move does.
    fig : matplotlib.figure.Figure
        The one figure; it is the same object for the dashboard's whole life.
    box : ipywidgets.Box
        The controls, laid out as ``controls_layout`` says ("vbox" or "hbox").
    update_count : int
        How many control changes have been drawn.
    last_update_seconds : float or None
        Wall time of the last update: ``draw`` plus, when displayed, the PNG render and the display update.
    background : course_utils.widgets._background.CachedBackground or None
        None when ``dynamic_artists`` names none: every picture is then a full render.
    """

    #: Figure size in inches; the displayed PNG is this times the figure's dpi (fixed size).
    figsize = (9.0, 4.0)
    #: "vbox" (controls stacked) or "hbox" (side by side).
    controls_layout = "vbox"
    #: The dashboard's name in words, for the controls' text stand-in; default: from the class name.
    name_in_words = None

    def __init__(self):
        self.controls = dict(self.make_controls())
        self.update_count = 0
        self.last_update_seconds = None
        self._handles = []
        self._batch = False
        self._closed = False
        with plt.ioff():  # nothing here is shown by the backend on its own
            self.fig = Figure(figsize=self.figsize)
            FigureCanvasAgg(self.fig)  # made once: render_png draws it directly, without savefig's bookkeeping
            self.build(self.fig)
        dynamic = self.dynamic_artists()
        self.background = None if dynamic is None else CachedBackground(dynamic)
        self.draw(**self.values)
        box_class = {"vbox": ipywidgets.VBox, "hbox": ipywidgets.HBox}[self.controls_layout]
        # The controls, then an invisible widget that names each slider handle after its label (_handle_names says
        # why). Not under ipywidgets 7 (Colab): its page draws no third-party widget, and a box holding one would
        # not draw at all.
        names = [SliderHandleNames(slider_names(self.controls))] if IPYWIDGETS_MAJOR >= 8 else []
        self.handle_names = names[0] if names else None
        self.box = box_class([*self.controls.values(), *names])
        self.box.add_class("course-dashboard")  # how a page (the browser test) tells a dashboard from other widgets
        for control in self.controls.values():
            control.observe(self._on_change, names="value")

    # -- to implement -----------------------------------------------------------------
    def make_controls(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def build(self, fig):  # pragma: no cover - abstract
        raise NotImplementedError

    def draw(self, **control_values):  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self):
        """What the picture shows now, with its key numbers (the ``<img>``'s alt); default: composed from the axes."""
        return description(self.fig)

    def dynamic_artists(self):
        """The artists ``draw`` changes (each a child of the figure or of one of its axes), drawn over a cached
        background (``_background.CachedBackground``); None (the default): every render draws the whole figure."""
        return None

    def background_key(self, **control_values):
        """What the background (the artists before the dynamic ones) shows for these control values, as a key:
        equal keys must give equal backgrounds (tick labels, axis labels...). ``CachedBackground`` adds the canvas
        size and each axes' position, limits and visibility. Default: the background never changes."""
        return ()

    # -- mechanics ----------------------------------------------------------------------
    @property
    def values(self):
        """dict: the controls' current values, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def _on_change(self, change):
        if not self._batch:
            self.refresh()

    def refresh(self):
        """Redraw for the current control values and update every display of the figure."""
        start = time.perf_counter()
        self.draw(**self.values)
        for handle in self._handles:
            handle.update(_FigurePicture(self))
        self.last_update_seconds = time.perf_counter() - start
        self.update_count += 1

    def set(self, **values):
        """Change controls (one redraw, as if a user had moved them): ``dashboard.set(score_1=-1.0, score_3=2.5)``.
        An unknown control name, or a value outside a slider's [min, max], is a ValueError."""
        self._check_names(values)
        for name, value in values.items():
            control = self.controls[name]
            low, high = getattr(control, "min", None), getattr(control, "max", None)
            if low is not None and high is not None and not low <= value <= high:
                raise ValueError(f"{name}={value} lies outside the control's range [{low}, {high}]")
        changed = any(self.controls[name].value != value for name, value in values.items())
        with self._no_redraw():
            for name, value in values.items():
                self.controls[name].value = value
        if changed:
            self.refresh()
        return self

    def _check_names(self, values):
        unknown = sorted(set(values) - set(self.controls))
        if unknown:
            raise ValueError(f"unknown control(s) {unknown}; this dashboard has {list(self.controls)}")

    @contextlib.contextmanager
    def _no_redraw(self):
        """Control changes inside this block draw nothing (the caller redraws once, or is ``draw`` itself)."""
        was, self._batch = self._batch, True
        try:
            yield
        finally:
            self._batch = was

    def _set_maximum(self, name, maximum):
        """Set slider ``name``'s maximum (a slider whose range follows another control), its value clamped into
        range, without a redraw."""
        control = self.controls[name]
        if control.max != maximum:
            with self._no_redraw():
                control.value = min(control.value, maximum)
                control.max = maximum

    def render_png(self, compact=False):
        """The figure as PNG bytes at its dpi, of a fixed size (no tight crop: the picture never jumps when a label's
        length changes); the same state gives the same bytes.

        ``compact=False`` (a control move's update): every pixel exact, zlib level ``UPDATE_PNG_LEVEL``
        (``exact_png``). True (the first picture, the one a notebook stores): a palette PNG of about a third of the
        bytes (``compact_png``, 15-40 ms slower).
        """
        canvas = self.fig.canvas  # the figure's own Agg canvas, at fig.dpi
        if self.background is None:
            canvas.draw()
        else:  # a cached background, and the artists after the first dynamic one drawn over it
            self.background.render(canvas, self.background_key(**self.values))
        pixels = np.asarray(canvas.buffer_rgba())  # (H, W, 4)
        return compact_png(pixels, optimize=False) if compact else exact_png(pixels, level=UPDATE_PNG_LEVEL)

    def show(self):
        """Display the controls, then the figure (an ``<img alt>`` + PNG output that updates in place); outside
        IPython nothing is displayed, and the controls still redraw ``self.fig``."""
        if not _in_ipython():
            return self
        from IPython.display import display

        display(WidgetView(self))
        self._handles.append(display(_FigurePicture(self, compact=True), display_id=True))
        return self

    def layout_problems(self):
        """Controls a browser would show cut or squeezed (``layout_problems``); empty when none."""
        return layout_problems(self.controls)

    def _ipython_display_(self):
        self.show()

    def close(self):
        """Close the controls (their widget models) and stop updating the displays; again: nothing."""
        if self._closed:
            return
        self._closed = True
        for control in self.controls.values():
            control.unobserve(self._on_change, names="value")
        close_widgets(self.box)  # the controls and the handle names
        self._handles.clear()

    def __repr__(self):
        """One sentence: the dashboard and each control's value (the controls' stand-in in a static view)."""
        title = self.name_in_words or re.sub(r"(?<!^)(?=[A-Z])", " ", type(self).__name__).capitalize()
        phrases = "; ".join(control_phrase(control) for control in self.controls.values())
        return f"{title}, whose controls work in a running notebook: {phrases}."
