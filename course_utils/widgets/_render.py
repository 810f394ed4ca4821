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

__all__ = ["TextCachingCanvas"]

#: At most this many remembered texts per canvas (a few hundred per dashboard state; the cache is emptied when
#: full, never grown without bound).
MAX_CACHED_TEXTS = 20_000


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

    def get_renderer(self, *args, **kwargs):
        renderer = super().get_renderer(*args, **kwargs)
        if type(renderer) is RendererAgg:  # a new renderer (first render, or the figure was resized)
            renderer.__class__ = _TextCachingRenderer
            renderer._text_cache = self._text_cache
        return renderer
