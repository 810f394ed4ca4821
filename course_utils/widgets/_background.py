"""A dashboard's figure drawn as a cached background plus the artists its controls change (issue 14).

Only matplotlib's public API: the figure's own ``FigureCanvasAgg`` draws the background (``canvas.draw()``, with the
artists drawn over it marked ``set_animated(True)`` for that draw, which matplotlib's draw leaves out), keeps it
(``canvas.copy_from_bbox``) and puts it back (``canvas.restore_region``); the other artists are drawn over it with
``Artist.draw(canvas.get_renderer())``: matplotlib's blitting, as its animation guide describes, with the order of
drawing kept (see ``CachedBackground``). The pixels equal a plain ``FigureCanvasAgg`` render: tests/test_widgets.py
compares every update of every control of every dashboard with one, bit for bit, with matplotlib 3.11
(requirements.lock) and 3.10 (requirements-py310.lock, in .ci/py310); the same comparison run by hand on Colab's
package set (matplotlib 3.10.0) found no pixel different either (issue 23).

Until issue 23 it was used with matplotlib >= 3.11 only: on 3.10 a dashboard's picture did not change when a
control moved. The cause was the glyph-replaying canvas it was drawn on then (``_render.TextCachingCanvas``, gone):
its ``get_renderer`` kept a renderer per size under the whole-pixel size, while matplotlib 3.10's
``FigureCanvasAgg.get_renderer`` compares ``figure.bbox.size`` (460.00000000000006 pixels high for a 4.6 in figure
at 100 dpi), so each call made a new renderer (2 per update, measured): the background went onto one, the changed
artists onto another, and the canvas showed the first. Matplotlib's own canvas makes one renderer per size in 3.10
and 3.11 alike (0 per update, measured).
"""
__all__ = ["CachedBackground"]

#: Backgrounds kept per dashboard (least recently used dropped first): enough for a control moved back and forth
#: between a few states; each is the figure's size in RGBA (1-4 MB).
MAX_BACKGROUNDS = 4


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


class CachedBackground:
    """A figure rendered as a cached background plus the artists drawn after the first one that changes.

    Why (issue 14): a dashboard's update would otherwise lay out and draw every artist of the figure: axes, ticks and
    tick labels, titles, legends, most of which are the same as in the picture before. Within each
    container (the figure, or one of its axes) matplotlib draws its artists in order of zorder, each over what is
    below it; ``CachedBackground`` cuts every container's list at its first *dynamic* artist (one that the dashboard's
    ``draw`` changes). Everything before the cuts is the background, drawn once and kept (the module's docstring
    says how); the artists after the cuts, changed or not, are drawn over it in matplotlib's order. So within a
    container the order of drawing is matplotlib's, and the pixels equal a full render as long as nothing drawn after
    a container (a later axes, the figure's texts and legends) overlaps what that container draws after its cut.

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
