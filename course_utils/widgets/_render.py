"""How a dashboard's figure becomes pixels quickly: an Agg canvas that keeps the text it has rasterised.

Why (issue 14): a dashboard update is ``draw`` (about 2 ms) and then rendering the whole figure, of which
text is the larger part: every label, tick label and cell number is laid out by FreeType and rasterised
glyph by glyph on every render (measured on HeadsDashboard: ~130 texts, 60 % of the render time), although
nearly all of them are the same string at the same place as in the picture before.

``TextCachingCanvas`` is matplotlib's own ``FigureCanvasAgg`` whose renderer remembers, for each text it
drew, the glyph bitmaps FreeType made and where they went. When the same string is drawn again with the same
font, size, angle and antialiasing at the same position (the same float pixel coordinates, the same canvas
height and dpi), the remembered bitmaps are composited again with the text's current colour, through the
same Agg call matplotlib makes (``draw_text_image``). Nothing else changes: layout, colours, clipping and
the order of drawing are matplotlib's, so the pixels are identical to a plain ``FigureCanvasAgg`` render
(tests/test_widgets.py compares them bit for bit over every control of every dashboard).

Where matplotlib draws a text by other means (mathtext, another matplotlib version whose ``draw_text`` calls
something other than ``draw_text_image`` with an array), that text is not remembered and is drawn as usual.
"""
import matplotlib as mpl
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg

__all__ = ["Layers", "TextCachingCanvas"]

#: At most this many remembered texts per canvas (a few hundred per dashboard state; the cache is emptied when
#: full, never grown without bound).
MAX_CACHED_TEXTS = 20_000
#: Renderers kept per canvas, one per figure size (each holds a canvas-sized RGBA buffer).
MAX_RENDERERS = 3


class _Recorder:
    """Stands in for the C++ Agg renderer while one text is drawn: forwards every call, keeps the glyph images."""

    def __init__(self, inner):
        self._inner = inner
        self.calls = []
        self.cacheable = True

    def draw_text_image(self, image, x, y, angle, gc):
        if isinstance(image, np.ndarray):
            self.calls.append((image.copy(), x, y, angle))  # FreeType's buffer may be reused: keep a copy
        else:  # e.g. an FT2Font (older matplotlib): nothing we can replay safely
            self.cacheable = False
        return self._inner.draw_text_image(image, x, y, angle, gc)

    def __getattr__(self, name):  # any other drawing call: forward it, but do not cache this text
        self.cacheable = False
        return getattr(self._inner, name)


def _font_key(prop):
    """The font properties that decide the glyphs (what ``FontProperties.__hash__`` hashes), as a tuple."""
    return (tuple(prop.get_family()), prop.get_style(), prop.get_variant(), prop.get_weight(), prop.get_stretch(),
            prop.get_size_in_points(), prop.get_file(), prop.get_math_fontfamily())


class _TextCachingRenderer(RendererAgg):
    """``RendererAgg`` whose ``draw_text`` replays the glyph images of a text it drew before (same pixels)."""

    _text_cache = None  # set by TextCachingCanvas.get_renderer: one dict per canvas, kept across resizes

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        cache = self._text_cache
        if ismath or cache is None:
            return super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
        extra = None
        if mtext is not None:
            features = mtext.get_fontfeatures() if hasattr(mtext, "get_fontfeatures") else None
            extra = (tuple(features) if features else None,
                     mtext.get_language() if hasattr(mtext, "get_language") else None)
        key = (s, _font_key(prop), angle, x, y, self.width, self.height, self.dpi,
               bool(gc.get_antialiased()), extra, mpl.rcParams["text.hinting"], mpl.rcParams["text.hinting_factor"],
               mpl.rcParams["text.kerning_factor"])
        calls = cache.get(key)
        if calls is not None:
            for image, image_x, image_y, image_angle in calls:
                self._renderer.draw_text_image(image, image_x, image_y, image_angle, gc)
            return None
        inner = self._renderer
        recorder = self._renderer = _Recorder(inner)
        try:
            super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
        finally:
            self._renderer = inner
        if recorder.cacheable:
            if len(cache) >= MAX_CACHED_TEXTS:
                cache.clear()
            cache[key] = recorder.calls
        return None


class TextCachingCanvas(FigureCanvasAgg):
    """``FigureCanvasAgg`` that remembers rasterised text between renders (see the module's docstring).

    Use it as ``TextCachingCanvas(fig)`` on a figure pyplot never sees; ``canvas.draw()``,
    ``buffer_rgba()`` and ``print_png`` work as for ``FigureCanvasAgg``.
    """

    def __init__(self, figure=None):
        super().__init__(figure)
        self._text_cache = {}
        self._renderers = {}  # (width, height, dpi) -> renderer, the last few sizes

    def get_renderer(self, *args, **kwargs):
        # A renderer per size, kept: a dashboard that resizes its figure back and forth (notebook 03's) finds the
        # renderer of a size it had, and with it matplotlib's text metrics, cached per renderer (issue 14).
        key = (*self.get_width_height(physical=True), self.figure.dpi)  # as FigureCanvasAgg.get_renderer
        if key != self._lastKey and key in self._renderers:
            self.renderer, self._lastKey = self._renderers[key], key
        renderer = super().get_renderer(*args, **kwargs)
        if type(renderer) is RendererAgg:  # a new renderer (first render, or the figure was resized)
            renderer.__class__ = _TextCachingRenderer
            renderer._text_cache = self._text_cache
            while len(self._renderers) >= MAX_RENDERERS:
                self._renderers.pop(next(iter(self._renderers)))
            self._renderers[key] = renderer
        return renderer


# --------------------------------------------------------------------------- a cached background
#: Backgrounds kept per dashboard (least recently used dropped first): enough for a control moved back and forth
#: between a few states; each is the figure's size in RGBA (1-4 MB).
MAX_BACKGROUNDS = 4

#: Whether dashboards use ``Layers``: with matplotlib 3.11 (requirements.lock), every update's pixels are tested equal
#: to a plain render. With 3.10 (requirements-py310.lock) a dashboard's picture did not change when a control moved
#: (tests/test_widgets.py, run in the py310 environment), so there every update draws the whole figure, as before.
LAYERS_SUPPORTED = tuple(int(part) for part in mpl.__version__.split(".")[:2]) >= (3, 11)


def _draw_list(container):
    """The artists ``container`` (the figure or one of its axes) draws, in matplotlib's order (its patch aside)."""
    from matplotlib.axes import Axes

    artists = container.get_children()
    artists.remove(container.patch)
    if isinstance(container, Axes):  # as Axes.draw: no frame, no axis when they are off
        if not (container.axison and container.get_frame_on()):
            for spine in container.spines.values():
                artists.remove(spine)
        if not container.axison:
            for axis in (container.xaxis, container.yaxis):
                artists.remove(axis)
    return sorted((artist for artist in artists if not artist.get_animated()), key=lambda artist: artist.get_zorder())


class Layers:
    """A figure rendered as a cached background plus the artists drawn after the first one that changes.

    Why (issue 14): after the text cache, a dashboard's update still lays out and draws every artist of the figure:
    axes, ticks and tick labels, titles, legends, most of which are the same as in the picture before. Within each
    container (the figure, or one of its axes) matplotlib draws its artists in order of zorder, each over what is
    below it; ``Layers`` cuts every container's list at its first *dynamic* artist (one that the dashboard's
    ``draw`` changes). Everything before the cuts is the background: drawn once (a full matplotlib render with the
    rest left out), kept as a copy of the canvas (``copy_from_bbox``), and put back with ``restore_region``; the
    artists after the cuts, changed or not, are drawn over it in matplotlib's order. So within a container the
    order of drawing is matplotlib's, and the pixels equal a full render as long as nothing drawn after a container
    (a later axes, the figure's texts and legends) overlaps what that container draws after its cut
    (tests/test_widgets.py compares every update with a plain render, over every control).

    A background holds for one *state* of the figure: the key the dashboard gives (what its static artists show,
    e.g. the tick labels), the canvas size and dpi, each axes' position, view limits and visibility, and where the
    cuts fall. A new state draws a new background (a render of the background and of the rest: slower than one
    plain render by the copy, about a millisecond); the last ``MAX_BACKGROUNDS`` states are kept. A figure with a
    layout engine (constrained or tight layout, which place axes from every text's size) is always drawn in full.
    """

    def __init__(self, dynamic, max_backgrounds=MAX_BACKGROUNDS):
        self.dynamic = {id(artist) for artist in dynamic}
        self._keep = list(dynamic)  # the ids above stay valid while the artists live
        self.max_backgrounds = max_backgrounds
        self.backgrounds = {}  # key -> BufferRegion, oldest first
        self.background_renders = 0  # how many backgrounds were drawn (tests, benchmarks)

    def _after_cut(self, artists):
        """The artists from the first dynamic one on (empty when none is dynamic)."""
        for index, artist in enumerate(artists):
            if id(artist) in self.dynamic:
                return artists[index:]
        return []

    def render(self, canvas, key=()):
        """Draw ``canvas.figure`` on ``canvas`` (an Agg canvas): the background for ``key``, then the rest."""
        from matplotlib.axes import Axes

        fig = canvas.figure
        if fig.get_layout_engine() is not None:
            canvas.draw()
            return
        renderer = canvas.get_renderer()
        for ax in fig.axes:  # where each axes is now, as Figure.draw places it
            locator = ax.get_axes_locator()
            ax.apply_aspect(locator(ax, renderer) if locator else None)
        top = _draw_list(fig)
        top_rest = self._after_cut(top)
        rest = []  # the artists drawn over the background, in matplotlib's order
        for artist in top:
            if top_rest and artist is top_rest[0]:
                rest += top_rest  # from here on, whole containers are drawn over the background
                break
            if isinstance(artist, Axes) and artist.get_visible():
                rest += self._after_cut(_draw_list(artist))
        state = (key, renderer.width, renderer.height, fig.dpi,
                 tuple((tuple(ax.get_position().bounds), tuple(ax.viewLim.bounds), ax.get_visible())
                       for ax in fig.axes),
                 tuple(id(artist) for artist in rest))
        background = self.backgrounds.pop(state, None)
        if background is None:
            animated = [artist.get_animated() for artist in rest]
            for artist in rest:
                artist.set_animated(True)  # matplotlib's draw leaves animated artists out
            try:
                canvas.draw()
            finally:
                for artist, was in zip(rest, animated):
                    artist.set_animated(was)
            background = canvas.copy_from_bbox(fig.bbox)
            self.background_renders += 1
            while len(self.backgrounds) >= self.max_backgrounds:
                self.backgrounds.pop(next(iter(self.backgrounds)))
        else:
            canvas.restore_region(background)
        self.backgrounds[state] = background  # the most recently used last
        for artist in rest:
            artist.draw(renderer)
        fig.stale = False
