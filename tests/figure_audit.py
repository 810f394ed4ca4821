"""What a rendered matplotlib figure shows, read from its artists: the colours of its categories, its colour maps,
and the size of every text drawn. Used by tests/test_figure_colours_and_text.py, in the test process (dashboards,
plots) and inside the notebooks' kernels (``install_notebook_hook``), so it needs only matplotlib and numpy.

What counts as a category (the rule the colour test applies; ``categories``)
-------------------------------------------------------------------------
A category is a colour that tells one kind of thing from another: its colour differs from the figure's other
category colours and means something different. Colours are compared opaque (a colour drawn transparent is the
same category as the opaque one: the hull's pale fill and its outline are one category).

- Always a category, grey or black included (a grey that must be told apart from coloured marks counts): the face
  colour of bars and other filled data patches (the hull, an arrow's head), an arrow's line, scatter points and
  filled collections, lines and markers that carry a legend label (a line's colour when it is drawn, a marker's
  face colour, its edge colour only when the marker is hollow), every legend handle, and the colours that a
  categorical image (a colour map of at most 16 colours, such as the mask's "blocked / may attend") draws.
- A category only when it is chromatic (not a grey, black or white): text colours, unlabelled lines (reference
  lines, the hull's spokes, a step marker), patch outlines, spines, background spans. Black and grey text, grids,
  frames, axis lines and neutral reference lines are the figure's ink, not categories.
- Never a category: the shades of a continuous colour map (images, colour bars, colour-mapped collections: those
  are checked to be in the viridis/cividis family instead), hatched patches and the grey under them (blocked
  cells: their hatching carries the meaning; a categorical image's colour equal to the face colour of a visible
  hatched patch in the same axes is left out), the white or grey background of axes, figure, legend and text boxes.

Texts (``rendered_texts``): every Text the figure draws when rendered (titles, axis labels, tick labels that are
drawn, annotations, legend texts, cell numbers, colour-bar labels), with its size in points at the figure's dpi
(the picture shown at 100 %).
"""
import json
from pathlib import Path

import matplotlib.colors as mcolors
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import Collection
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure, SubFigure
from matplotlib.image import AxesImage
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch
from matplotlib.spines import Spine
from matplotlib.text import Annotation, Text

__all__ = ["CONTINUOUS_FAMILY", "categories", "colour_maps", "rendered_texts", "audit", "install_notebook_hook"]

#: The continuous colour maps allowed (the perceptually uniform viridis family), and their reverses.
CONTINUOUS_FAMILY = ("viridis", "cividis", "plasma", "inferno", "magma")
#: A ListedColormap with at most this many colours is categorical (its colours are categories).
MAX_CATEGORICAL = 16


def _rgb(colour):
    """Opaque (r, g, b) of a colour, or None when it draws nothing ("none", alpha 0)."""
    if colour is None or (isinstance(colour, str) and colour.lower() == "none"):
        return None
    rgba = mcolors.to_rgba(colour)
    if rgba[3] == 0:
        return None
    return tuple(float(c) for c in rgba[:3])


def _is_neutral(rgb):
    return max(rgb) - min(rgb) < 1e-3


def _hex(rgb):
    return mcolors.to_hex(rgb).upper()


def _axes_name(ax, index):
    label = ax.get_title() or ax.get_ylabel() or ax.get_xlabel()
    label = " ".join(label.split())
    return f"axes {index}" + (f" ({label[:40]})" if label else "")


class _Walker:
    def __init__(self, fig):
        self.fig = fig
        self.found = {}  # hex -> set of descriptions
        self.maps = []  # (colour map name, description)
        self.seen = set()
        self.bars = set()  # ids of the patches of every bar container
        self.axes_index = {id(ax): i for i, ax in enumerate(fig.get_axes())}

    def add(self, colour, what, always):
        rgb = _rgb(colour)
        if rgb is None:
            return
        if always or not _is_neutral(rgb):
            self.found.setdefault(_hex(rgb), set()).add(what)

    def walk(self, artist, ax=None, in_legend=False):
        if id(artist) in self.seen or not artist.get_visible():
            return
        self.seen.add(id(artist))
        if isinstance(artist, Axes):
            ax = artist
            self.seen.add(id(ax.patch))  # the axes' background
            for container in ax.containers:
                self.bars.update(id(p) for p in getattr(container, "patches", []) if p is not None)
        where = self.where(ax, in_legend)
        if isinstance(artist, Legend):
            in_legend = True
            self.seen.add(id(artist.legendPatch))  # the legend's frame
            where = self.where(ax, True)
        if isinstance(artist, (Figure, SubFigure)):
            self.seen.add(id(artist.patch))
        elif isinstance(artist, AxesImage):
            self.image(artist, ax, where)
        elif isinstance(artist, Collection):
            self.collection(artist, where, in_legend)
        elif isinstance(artist, Spine):
            self.add(artist.get_edgecolor(), f"{where}: spine", always=False)
        elif isinstance(artist, Patch):
            self.patch(artist, ax, where, in_legend)
        elif isinstance(artist, Line2D):
            self.line(artist, where, in_legend)
        elif isinstance(artist, Text):
            if artist.get_text():
                self.add(artist.get_color(), f"{where}: text {self.short(artist)}", always=False)
            if isinstance(artist, Annotation) and artist.arrow_patch is not None:
                self.walk(artist.arrow_patch, ax, in_legend)
        for child in artist.get_children():
            self.walk(child, ax, in_legend)

    def where(self, ax, in_legend):
        name = "figure" if ax is None else _axes_name(ax, self.axes_index.get(id(ax), "?"))
        return f"{name}, legend" if in_legend else name

    @staticmethod
    def short(text):
        return repr(" ".join(text.get_text().split())[:30])

    def image(self, image, ax, where):
        cmap = image.get_cmap()
        if isinstance(cmap, ListedColormap) and cmap.N <= MAX_CATEGORICAL:
            data = np.ma.masked_invalid(np.ma.asarray(image.get_array(), dtype=float)).compressed()
            hatched = set()
            for patch in ax.patches if ax is not None else []:
                if patch.get_visible() and patch.get_hatch():
                    rgb = _rgb(patch.get_facecolor())
                    if rgb is not None:
                        hatched.add(_hex(rgb))
            for value in np.unique(data):
                rgb = _rgb(cmap(image.norm(value)))
                if rgb is not None and _hex(rgb) not in hatched:
                    self.add(rgb, f"{where}: categorical image", always=True)
        else:
            self.maps.append((cmap.name, f"{where}: image"))

    def collection(self, collection, where, in_legend):
        if collection.get_array() is not None:  # coloured through a colour map (a colour bar's strip, ...)
            cmap = collection.get_cmap()
            if not (isinstance(cmap, ListedColormap) and cmap.N <= MAX_CATEGORICAL):
                self.maps.append((cmap.name, f"{where}: {type(collection).__name__}"))
                return
        kind = type(collection).__name__
        for colour in collection.get_facecolors():
            self.add(colour, f"{where}: {kind} face", always=True)
        for colour in collection.get_edgecolors():
            self.add(colour, f"{where}: {kind} edge", always=in_legend)

    def patch(self, patch, ax, where, in_legend):
        if patch.get_hatch() or isinstance(patch, FancyBboxPatch):  # blocked cells; text boxes, legend frames
            return
        if isinstance(patch, FancyArrowPatch):  # an arrow is its line (and head)
            self.add(patch.get_edgecolor(), f"{where}: arrow", always=True)
            if patch.get_fill():
                self.add(patch.get_facecolor(), f"{where}: arrow head", always=True)
            return
        background = patch.get_zorder() <= 0 and not in_legend
        kind = "bar" if id(patch) in self.bars else "legend patch" if in_legend else type(patch).__name__
        if patch.get_fill():
            self.add(patch.get_facecolor(), f"{where}: {kind}", always=not background)
        if patch.get_linewidth() > 0:
            self.add(patch.get_edgecolor(), f"{where}: {kind} outline", always=False)

    def line(self, line, where, in_legend):
        label = str(line.get_label())
        named = bool(label) and not label.startswith("_")  # tick marks and grid lines have "", others "_child3"
        labelled = in_legend or named
        what = f"{where}: line {label!r}" if named else f"{where}: line"
        if line.get_linestyle() not in ("None", "none", "", " ") and line.get_linewidth() > 0:
            self.add(line.get_color(), what, always=labelled)
        if line.get_marker() not in (None, "None", "none", "", " "):
            face = _rgb(line.get_markerfacecolor())
            if face is not None:
                self.add(face, f"{what} marker", always=labelled)
            else:
                self.add(line.get_markeredgecolor(), f"{what} marker", always=labelled)


def categories(fig):
    """{hex colour: sorted descriptions of what draws it} of a figure's categories (see the module docstring)."""
    walker = _Walker(fig)
    walker.walk(fig)
    return {colour: sorted(whats) for colour, whats in sorted(walker.found.items())}


def colour_maps(fig):
    """[(colour map name, where)] of every continuous colour map a figure draws with."""
    walker = _Walker(fig)
    walker.walk(fig)
    return sorted(set(walker.maps))


def rendered_texts(fig):
    """[(text, size in points at the figure's dpi, where, extent)] of every text drawn when the figure is rendered.

    ``extent`` is (x0, y0, x1, y1), in pixels from the figure's lower left corner. The figure is drawn once on its
    canvas (as its picture is made); ``Text.draw`` is watched meanwhile.
    """
    drawn = []
    original = Text.draw

    def watching_draw(self, renderer):
        result = original(self, renderer)
        if self.get_visible() and self.get_text():
            scale = renderer.dpi / self.figure.dpi if self.figure is not None else 1.0
            drawn.append((self, float(self.get_fontsize()) * scale, self.get_window_extent(renderer).extents))
        return result

    if not isinstance(fig.canvas, FigureCanvasAgg):  # a bare Figure's canvas draws nothing: give it Agg's
        FigureCanvasAgg(fig)
    Text.draw = watching_draw
    try:
        fig.canvas.draw()
    finally:
        Text.draw = original
    axes_index = {id(ax): i for i, ax in enumerate(fig.get_axes())}
    out = []
    for text, size, extent in drawn:
        ax = text.axes
        where = "figure" if ax is None else _axes_name(ax, axes_index.get(id(ax), "?"))
        out.append((" ".join(text.get_text().split())[:40], round(size, 2), where, [round(float(v), 1) for v in extent]))
    return out


def audit(fig, name):
    """A JSON-able record of one figure: its categories, continuous colour maps and drawn texts."""
    texts = rendered_texts(fig)  # draws first: layout engines and tick labels are then up to date
    return {
        "figure": name,
        "categories": categories(fig),
        "colour_maps": colour_maps(fig),
        "texts": texts,
        "size_inches": [round(float(v), 2) for v in fig.get_size_inches()],
        "size_px": [round(float(v), 1) for v in fig.bbox.size],
        "dpi": float(fig.dpi),
    }


# --------------------------------------------------------------------------- inside a notebook's kernel
_RECORDS = []
_STATE = {"cell": None, "count": {}}


def _record(fig, kind):
    cell = _STATE["cell"]
    index = _STATE["count"].get(cell, 0) + 1
    _STATE["count"][cell] = index
    record = audit(fig, kind)
    record["cell_source"] = cell
    record["index"] = index
    _RECORDS.append(record)


def install_notebook_hook(render=False):
    """Record every figure a notebook draws (pyplot figures at ``plt.show()`` or at the end of their cell; dashboards
    at the end of the cell that built them), for ``dump_records``.

    ``render=False``: the figures are recorded, not rendered (pyplot's show and the inline backend's end-of-cell
    rendering are replaced: nothing reads these pictures). ``render=True`` (the kernel nbval runs, conftest.py): each
    figure is recorded first, then shown and closed as without the hook, so the cells' outputs are the usual ones.
    """
    import matplotlib.pyplot as plt
    from IPython import get_ipython
    from matplotlib._pylab_helpers import Gcf

    from course_utils.widgets import _base

    ip = get_ipython()
    plt.close(plt.figure())  # loads the backend now, so that its end-of-cell hook is registered before we look
    recorded = []  # the pyplot figures recorded during this cell (render=True: they stay open until shown)

    def record_open_figures():
        # in number order, as plt.get_fignums(); unlike plt.figure(n), this leaves the current figure alone
        for manager in sorted(Gcf.get_all_fig_managers(), key=lambda manager: manager.num):
            fig = manager.canvas.figure
            if not any(fig is done for done in recorded):
                _record(fig, "figure")
                if render:
                    recorded.append(fig)
        if not render:
            plt.close("all")  # recorded, not rendered: nothing reads these pictures

    original_show = plt.show

    def show(*args, **kwargs):
        record_open_figures()
        if render:
            return original_show(*args, **kwargs)

    plt.show = show
    pending = []
    original_init = _base.Dashboard.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        pending.append(self)

    _base.Dashboard.__init__ = init

    def pre_run_cell(info):
        _STATE["cell"] = info.raw_cell
        recorded.clear()

    def post_execute():
        record_open_figures()
        while pending:
            dashboard = pending.pop(0)
            _record(dashboard.fig, f"dashboard {type(dashboard).__name__}")

    if not render:
        for callback in list(ip.events.callbacks["post_execute"]):
            if getattr(callback, "__name__", "") == "flush_figures":  # the inline backend's: would render and close
                ip.events.unregister("post_execute", callback)
    ip.events.register("pre_run_cell", pre_run_cell)
    ip.events.register("post_execute", post_execute)
    if render:  # before the inline backend's flush_figures, which shows and closes the cell's figures
        ip.events.callbacks["post_execute"].remove(post_execute)
        ip.events.callbacks["post_execute"].insert(0, post_execute)


def dump_records(path):
    """Write the records of this kernel to ``path`` (JSON)."""
    Path(path).write_text(json.dumps(_RECORDS), encoding="utf-8")

