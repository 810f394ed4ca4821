"""A dashboard's figure drawn as a cached background plus the artists its controls change (issue 14).

Only matplotlib's public API: the figure's own ``FigureCanvasAgg`` draws the background (``canvas.draw()``, with the
artists drawn over it marked ``set_animated(True)`` for that draw, which matplotlib's draw leaves out), keeps it
(``canvas.copy_from_bbox``) and puts it back (``canvas.restore_region``); the other artists are drawn over it with
``Artist.draw(canvas.get_renderer())``: matplotlib's blitting, as its animation guide describes, with the order of
drawing kept (see ``CachedBackground``). The pixels equal a plain ``FigureCanvasAgg`` render: tests/test_widgets.py
compares every update of every control of every dashboard with one, bit for bit, with matplotlib 3.11 and 3.10
(also checked by hand on Colab's matplotlib 3.10.0).
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

    Why (issue 14): an update would otherwise lay out and draw every artist (axes, ticks, titles, legends), most of
    them as in the picture before. Within each container (the figure, or one of its axes) matplotlib draws its
    artists in order of zorder; ``CachedBackground`` cuts every container's list at its first *dynamic* artist (one
    the dashboard's ``draw`` changes). What comes before the cuts is the background, drawn once and kept; the artists
    after the cuts, changed or not, are drawn over it in matplotlib's order. The pixels equal a full render as long
    as nothing drawn after a container (a later axes, the figure's texts) overlaps what it draws after its cut.

    A background holds for one *state*: the dashboard's key, the canvas size and dpi, each axes' position, view
    limits and visibility, and where the cuts fall; the last ``MAX_BACKGROUNDS`` states are kept (a new one costs a
    plain render and a copy). A figure with a layout engine (constrained, tight) is always drawn in full.
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
