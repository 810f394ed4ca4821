"""Plots of attention weights and of the value vectors they mix (matplotlib only).

Every function draws on the ``ax`` it is given, or on a new figure when ``ax`` is None (never pyplot's "current
axes"). For every function: ``labels``, ``query_labels`` and ``key_labels`` (one str per key or query) default to
"0", "1", ...; ``title`` is the axes' title (none by default); labels of the wrong length, or weights or values of
the wrong shape, are a ValueError naming the lengths and shapes. The plots a dashboard moves are updated in place
(each ``update_*`` takes what its builder returned and weights of the shape first drawn):

==========================  ===========================
build                       update in place
==========================  ===========================
``attention_heatmap``       ``update_heatmap``
``attention_row_bars``      ``update_row_bars``
``value_hull_plot``         ``update_value_hull``
==========================  ===========================

Every heatmap uses one fixed colour scale (0 to 1, ``cividis``), so one colour bar (``weight_colorbar``) reads
for several. Colours and font sizes come from ``course_utils.style``.

Every plot records what it shows, with its numbers, for the figure's alt text (``course_utils.alt_text``); the
record is read when the figure is shown, so the ``update_*`` functions need do nothing for it.
``describe(fig_or_ax, text)`` gives the words for a plot drawn with plain matplotlib; ``description(fig)`` is the alt.
"""
import weakref
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.image import AxesImage
from matplotlib.patches import PathPatch, Polygon, Rectangle
from matplotlib.path import Path
from matplotlib.ticker import MaxNLocator

from course_utils import alt_text, style
from course_utils.alt_text import describe, description

__all__ = [
    "describe",
    "description",
    "Heatmap",
    "attention_heatmap",
    "update_heatmap",
    "weight_colorbar",
    "cell_text_colour",
    "contrasting_text_colour",
    "blocked_cell_patch",
    "blocked_cell_grid",
    "attention_row_bars",
    "update_row_bars",
    "value_hull_plot",
    "update_value_hull",
    "convex_hull",
]

#: Heatmaps whose larger side has at most this many cells print their values by default.
ANNOTATE_MAX_T = 10

#: Without labels, heatmaps up to this size get one tick per position; larger ones get a few.
TICK_EVERY_POSITION_MAX_T = 20


# --------------------------------------------------------------------------- input checks
def _as_float(x, name):
    """``x`` as a float ndarray, or a TypeError naming ``name``."""
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers; got dtype {arr.dtype}")
    return arr.astype(float)


def _check_labels(labels, n, name, what, shape, of="weights"):
    """Labels as a list of str of length n (default: "0".."n-1"), or a ValueError naming lengths: "``name`` has 3
    labels but ``of`` has ``what`` (``of`` shape ``shape``)"."""
    if labels is None:
        return [str(i) for i in range(n)]
    labels = [str(label) for label in labels]
    if len(labels) != n:
        raise ValueError(f"{name} has {len(labels)} labels but {of} has {what} ({of} shape {tuple(shape)})")
    return labels


def _new_axes(figsize):
    """A new pyplot figure and axes (shown by the notebook's backend like any plot)."""
    _, ax = plt.subplots(figsize=figsize)
    return ax


def contrasting_text_colour(rgba):
    """"black" or "white", whichever contrasts more (WCAG luminance) with a cell of colour ``rgba``: 3 or 4 channels
    in [0, 1], shape (3,) or (4,) (a str), or (..., 3|4) (an array of str of shape (...))."""
    rgb = np.asarray(rgba, dtype=float)[..., :3]
    linear = np.where(rgb <= 0.03928, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    luminance = linear[..., 0] * 0.2126 + linear[..., 1] * 0.7152 + linear[..., 2] * 0.0722
    colours = np.where(luminance > 0.179, "black", "white")
    return str(colours) if colours.ndim == 0 else colours


def cell_text_colour(image, value):
    """The colour ("black" or "white", ``contrasting_text_colour``) of a number printed in the cell of ``image`` that
    shows ``value``.

    Parameters
    ----------
    image : matplotlib.image.AxesImage
        Any image drawn with a colour map (``ax.imshow``), e.g. ``Heatmap.image``.
    value : float or array_like of float
        One value, or many (a dashboard's whole grid: one call instead of one per cell).

    Returns
    -------
    str or ndarray of str
        For an array of values, an array of the same shape.
    """
    return contrasting_text_colour(image.cmap(image.norm(value)))


def blocked_cell_patch(i, j, **kwargs):
    """A square over heatmap cell (row i, column j), above the image, looking as ``style.BLOCKED_CELL_STYLE`` says;
    ``kwargs`` go to ``Rectangle``."""
    return Rectangle((j - 0.5, i - 0.5), 1.0, 1.0, zorder=2, **style.BLOCKED_CELL_STYLE, **kwargs)


class _BlockedCells(PathPatch):
    """The visible squares among ``cells`` (``blocked_cell_patch`` squares, not in the axes) drawn as one hatched path.

    Why (issue 14): Agg draws each patch's hatch on its own; 20 hatched squares took ~30 ms of a 10 x 10 dashboard
    heatmap's update, one path of them about one square's time. The pattern is anchored to the canvas, so it looks
    the same, with no seam between neighbouring cells.
    """

    def __init__(self, cells):
        super().__init__(Path(np.zeros((1, 2))), zorder=2, **style.BLOCKED_CELL_STYLE)
        self.cells = cells
        self._shown = None

    def draw(self, renderer):
        shown = tuple(index for index, cell in np.ndenumerate(self.cells) if cell.get_visible())
        if not shown:
            return
        if shown != self._shown:
            corners = np.array([(*self.cells[index].get_xy(), self.cells[index].get_width(),
                                 self.cells[index].get_height()) for index in shown])  # (n, 4): x, y, w, h
            x, y, w, h = corners.T
            vertices = np.stack([np.stack(corner, axis=-1) for corner in
                                 ((x, y), (x + w, y), (x + w, y + h), (x, y + h), (x, y))], axis=1)  # (n, 5, 2)
            codes = np.tile([Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY], len(shown))
            self.set_path(Path(vertices.reshape(-1, 2), codes))
            self._shown = shown
        super().draw(renderer)


def blocked_cell_grid(ax, n):
    """An (n, n) grid of hidden blocked-cell squares over a heatmap: a dashboard shows a cell's square
    (``patches[i, j].set_visible(True)``) when the mask blocks it. One patch in ``ax`` draws the visible ones.

    Returns
    -------
    ndarray of Rectangle, shape (n, n)
    """
    patches = np.empty((n, n), dtype=object)
    for i, j in np.ndindex(n, n):
        patches[i, j] = blocked_cell_patch(i, j, visible=False)
    ax.add_patch(_BlockedCells(patches))
    return patches


def _allowed_from_mask(mask, shape):
    """Boolean (T_q, T_k) array, True = may attend, from a boolean or float (0 / -inf) mask."""
    arr = np.asarray(mask)
    if arr.dtype.kind == "b":
        allowed = arr
    elif arr.dtype.kind == "f":
        allowed = arr != -np.inf  # a float mask is added to the scores: -inf removes a key
    else:
        raise TypeError(
            f"mask must be boolean (True = may attend) or float (0 or -inf); got dtype {arr.dtype}"
        )
    try:
        return np.broadcast_to(allowed, shape)
    except ValueError:
        raise ValueError(
            f"mask shape {arr.shape} does not broadcast to the weights shape {tuple(shape)}"
        ) from None


# --------------------------------------------------------------------------- heatmap
@dataclass(frozen=True, repr=False, eq=False)
class Heatmap:
    """What ``attention_heatmap`` drew; give it to ``update_heatmap`` to show new weights in place.

    Attributes
    ----------
    image : matplotlib.image.AxesImage
        The weights' image (``image.get_array()`` holds the weights drawn now).
    cell_texts : ndarray of object, shape (T_q, T_k)
        The number printed in each cell (a ``matplotlib.text.Text``), or None where nothing is printed.
    blocked_patches : tuple of matplotlib.patches.Rectangle
        The squares over the cells the mask blocks (drawn as one hatched patch; a hidden square leaves its cell out).
    """

    image: AxesImage
    cell_texts: np.ndarray
    blocked_patches: tuple = ()

    @property
    def ax(self):
        """matplotlib.axes.Axes: where the heatmap is drawn."""
        return self.image.axes

    @property
    def shape(self):
        """(T_q, T_k): the shape of the weights."""
        return self.cell_texts.shape

    def __repr__(self):  # no memory addresses (a notebook cell may end with a heatmap)
        t_q, t_k = self.shape
        return f"Heatmap({t_q} x {t_k}, {len(self.blocked_patches)} blocked cells)"


def attention_heatmap(
    weights,
    query_labels=None,
    key_labels=None,
    *,
    ax=None,
    title=None,
    annotate=None,
    cmap=style.HEATMAP_CMAP,
    vmin=0.0,
    vmax=1.0,
    colorbar=False,
    mask=None,
):
    """Draw an attention-weight matrix: one row per query, one column per key.

    Parameters
    ----------
    weights : array_like, shape (T_q, T_k)
        Attention weights; row i holds how much query i attends to each key.
    query_labels, key_labels : sequence of str, lengths T_q and T_k, optional
        Row (y-axis) labels, the tokens that attend; column (x-axis) labels, the tokens attended to.
    annotate : bool, optional
        Print each weight (2 decimals) in its cell, in black or white for contrast with the cell.
        Default: True when max(T_q, T_k) <= 10.
    cmap : str or Colormap, default ``course_utils.style.HEATMAP_CMAP`` ("cividis")
    vmin, vmax : float, default 0 and 1
        Colour scale limits (fixed, so two plots of weights compare by colour).
    colorbar : bool, default False
        Add a colour bar labelled "attention weight" beside this heatmap (several heatmaps: ``weight_colorbar``).
    mask : array_like of bool, broadcastable to (T_q, T_k), optional
        True = the query may attend to the key (PyTorch's convention); a float mask
        (0 = keep, -inf = remove) is accepted too. Blocked cells are drawn grey and hatched,
        with no number printed in them. A mask that does not broadcast is a ValueError.

    Returns
    -------
    Heatmap
        The image, the printed numbers and the hatched cells (``update_heatmap`` shows new weights in place).
    """
    weights = _as_float(weights, "weights")
    if weights.ndim != 2:
        raise ValueError(
            f"weights must be 2-D, shape (T_q, T_k); got {weights.ndim}-D weights of shape "
            f"{weights.shape}"
        )
    t_q, t_k = weights.shape
    given_query_labels, given_key_labels = query_labels is not None, key_labels is not None
    query_labels = _check_labels(query_labels, t_q, "query_labels", f"{t_q} rows (T_q)", weights.shape)
    key_labels = _check_labels(key_labels, t_k, "key_labels", f"{t_k} columns (T_k)", weights.shape)
    allowed = None if mask is None else _allowed_from_mask(mask, weights.shape)
    if annotate is None:
        annotate = max(t_q, t_k) <= ANNOTATE_MAX_T

    if ax is None:
        ax = _new_axes((min(2.0 + 0.6 * t_k, 12.0), min(1.6 + 0.5 * t_q, 10.0)))
    image = ax.imshow(weights, cmap=cmap, vmin=vmin, vmax=vmax, aspect="equal")

    # x = keys (columns), y = queries (rows).
    if given_key_labels or t_k <= TICK_EVERY_POSITION_MAX_T:
        rotate = max((len(label) for label in key_labels), default=0) > 3
        ax.set_xticks(
            range(t_k), key_labels, rotation=45 if rotate else 0,
            ha="right" if rotate else "center", rotation_mode="anchor",
        )
    else:  # many unnamed positions: a few integer ticks
        ax.xaxis.set_major_locator(MaxNLocator(nbins=10, integer=True))
    if given_query_labels or t_q <= TICK_EVERY_POSITION_MAX_T:
        ax.set_yticks(range(t_q), query_labels)
    else:
        ax.yaxis.set_major_locator(MaxNLocator(nbins=10, integer=True))
    masked = allowed is not None and not allowed.all()
    ax.set_xlabel("key (attended to)" + ("; hatched = masked out" if masked else ""))
    ax.set_ylabel("query (attending)")
    if title is not None:
        ax.set_title(title)

    blocked_patches = ()
    if masked:
        cells = np.empty(int((~allowed).sum()), dtype=object)
        cells[:] = [blocked_cell_patch(i, j) for i, j in zip(*np.nonzero(~allowed))]
        ax.add_patch(_BlockedCells(cells))  # one hatched patch in ax.patches draws them all
        blocked_patches = tuple(cells)

    texts = np.full(weights.shape, None, dtype=object)  # (T_q, T_k) Text or None
    if annotate:
        for i, j in np.ndindex(t_q, t_k):
            if allowed is not None and not allowed[i, j]:
                continue
            # in_layout=False: a number sits inside its cell, within the axes, so a layout (constrained,
            # tight) and a tight crop need not measure it (issue 14: ~100 texts per figure of three heatmaps)
            texts[i, j] = ax.text(
                j, i, "", ha="center", va="center", fontsize=style.FONT_CELL, zorder=3, in_layout=False,
            )
    heatmap = Heatmap(image=image, cell_texts=texts, blocked_patches=blocked_patches)
    _set_cell_texts(heatmap, weights)
    alt_text.record(ax, _Words(_heatmap_words, image, row_labels=query_labels, col_labels=key_labels,
                               allowed=None if allowed is None else np.array(allowed, dtype=bool)),
                    artists=[image, *blocked_patches, *(t for t in texts.flat if t is not None)])

    if colorbar:
        weight_colorbar(ax)
    return heatmap


class _Words:
    """A part of an axes' alt text (``alt_text.record``): ``compose(*artists, **state)``, read when the figure is
    described; "" once an artist is gone. Weak references: the registry is keyed by the axes, which must not be kept
    alive by its own words."""

    def __init__(self, compose, *artists, **state):
        self.compose, self.refs, self.state = compose, [weakref.ref(artist) for artist in artists], state

    def __call__(self):
        artists = [ref() for ref in self.refs]
        return "" if any(artist is None for artist in artists) else self.compose(*artists, **self.state)


def _heatmap_words(image, **phrase_args):
    weights = np.asarray(np.ma.getdata(image.get_array()), dtype=float)  # (T_q, T_k), as drawn now
    return alt_text.heatmap_phrase(weights, **phrase_args)


def weight_colorbar(axes, *, label="attention weight", **kwargs):
    """One colour bar, labelled with what the colours mean, for one or several heatmaps.

    A row or grid of heatmaps reads from one bar: they share a fixed scale unless told otherwise. Use a figure made
    with ``layout="constrained"`` (``plt.subplots(..., layout="constrained")``) when the bar spans several axes: it
    makes room for the bar and the panels' labels (``tight_layout`` does not handle a bar shared by several axes, and
    matplotlib warns).

    Parameters
    ----------
    axes : matplotlib.axes.Axes or Heatmap, or a sequence or array of them
        Axes on which ``attention_heatmap`` drew (each holds the heatmap's image), or the heatmaps
        it returned.
    label : str, default "attention weight"
    **kwargs
        Passed to ``Figure.colorbar`` (e.g. ``shrink=0.8``).

    An Axes that holds no heatmap, or heatmaps of different colour scales (one bar would misread some of them), is
    a ValueError.
    """
    axes_list = list(np.ravel(np.asarray(axes, dtype=object)))
    if not axes_list:
        raise ValueError("weight_colorbar needs at least one Axes holding a heatmap")
    axes_list = [item.ax if isinstance(item, Heatmap) else item for item in axes_list]
    images = []
    for position, ax in enumerate(axes_list):
        if not ax.images:
            raise ValueError(
                f"axes number {position} of {len(axes_list)} holds no heatmap; draw one with "
                "attention_heatmap(..., ax=ax) before adding the colour bar"
            )
        images.append(ax.images[0])
    scales = {(image.norm.vmin, image.norm.vmax, image.get_cmap().name) for image in images}
    if len(scales) > 1:
        raise ValueError(
            f"the heatmaps use {len(scales)} different colour scales (vmin, vmax, cmap): {sorted(scales)}; "
            "one colour bar would misread some of them: give each heatmap colorbar=True instead"
        )
    target = axes_list[0] if len(axes_list) == 1 else axes_list
    bar = axes_list[0].figure.colorbar(images[0], ax=target, label=label, **kwargs)
    vmin, vmax, cmap = scales.pop()
    ends = alt_text.colour_scale(cmap, vmin, vmax)
    which = {1: "the heatmap", 2: "both heatmaps"}.get(len(axes_list), f"all {len(axes_list)} heatmaps")
    words = f"one colour bar for {which}, {alt_text.plain(label)} from {ends}"
    alt_text.record(bar.ax, lambda: words)
    return bar


def _set_cell_texts(heatmap, weights):
    """Each printed number and its colour (``cell_text_colour`` for every cell in one call: once per cell, the colour
    map took half of HeadsDashboard's draw)."""
    colours = cell_text_colour(heatmap.image, weights)  # (T_q, T_k)
    for (i, j), text in np.ndenumerate(heatmap.cell_texts):
        if text is None:
            continue
        text.set_text(f"{weights[i, j]:.2f}")
        text.set_color(str(colours[i, j]))


def update_heatmap(heatmap, weights):
    """Show new weights in a heatmap drawn by ``attention_heatmap``, in place; returns the same heatmap.

    The image and the printed numbers change; the blocked cells stay as drawn (another mask needs a new heatmap, or
    ``blocked_cell_grid``). Anything but a ``Heatmap`` is a TypeError.

    Parameters
    ----------
    heatmap : Heatmap
    weights : array_like, shape (T_q, T_k)
        Same shape as the weights first drawn.
    """
    if not isinstance(heatmap, Heatmap):
        raise TypeError(
            f"update_heatmap needs the Heatmap that attention_heatmap returned; got {type(heatmap).__name__}"
        )
    weights = _as_float(weights, "weights")
    if weights.shape != heatmap.shape:
        raise ValueError(
            f"weights shape {weights.shape} differs from the heatmap's shape {heatmap.shape}; "
            f"draw a new heatmap for a different size"
        )
    heatmap.image.set_data(weights)
    _set_cell_texts(heatmap, weights)
    return heatmap


# --------------------------------------------------------------------------- one row as bars
def _check_row(weights, n=None, but=""):
    """One row of weights as a float ndarray (T,); a ValueError when it is not 1-D, or when ``n`` is given and T
    differs from it ("weights has 4 entries but ``but``")."""
    weights = _as_float(weights, "weights")
    if weights.ndim != 1:
        raise ValueError(
            f"weights must be 1-D, shape (T,): one row of attention weights; got shape {weights.shape}"
        )
    if n is not None and weights.shape[0] != n:
        raise ValueError(f"weights has {weights.shape[0]} entries but {but}")
    return weights


def attention_row_bars(weights, labels=None, *, ax=None, title=None):
    """Bar chart of one query's attention weights, each value printed above its bar.

    Parameters
    ----------
    weights : array_like, shape (T,)
        One row of attention weights (each in [0, 1]).
    labels : sequence of str, length T, optional
        The key tokens.

    Returns
    -------
    matplotlib.container.BarContainer
        The bars; pass them to ``update_row_bars`` to show new weights in place. Its
        ``value_labels`` attribute holds the printed values (one Annotation per bar).
    """
    weights = _check_row(weights)
    (t,) = weights.shape
    labels = _check_labels(labels, t, "labels", f"{t} entries (T)", weights.shape)
    if ax is None:
        ax = _new_axes((max(3.0, 1.0 + 0.8 * t), 3.0))
    x = np.arange(t)
    bars = ax.bar(x, weights, color=style.BLUE, width=0.6)
    ax.set_xticks(x, labels)
    ax.set_ylim(0.0, 1.0)
    ax.set_yticks(np.linspace(0.0, 1.0, 6))
    ax.set_ylabel("attention weight")
    ax.set_xlabel("key")
    ax.spines[["top", "right"]].set_visible(False)
    if title is not None:
        ax.set_title(title, pad=16)
    bars.value_labels = [
        ax.annotate(
            "", xy=(xi, 0.0), xytext=(0, 3), textcoords="offset points",
            ha="center", va="bottom", fontsize=style.FONT_LABEL, annotation_clip=False,
        )
        for xi in x
    ]
    _set_bar_labels(bars, weights)
    alt_text.record(ax, _Words(_bar_words, *bars.patches, labels=labels), artists=[*bars.patches, *bars.value_labels])
    return bars


def _bar_words(*rects, labels):
    heights = [rect.get_height() for rect in rects]
    return (f"bar chart of the attention weights over {len(rects)} {'key' if len(rects) == 1 else 'keys'} "
            f"(0 to 1), each printed above its bar: {alt_text.labelled_values(labels, heights, 3)}")


def _set_bar_labels(bars, weights):
    for rect, label, w in zip(bars.patches, bars.value_labels, weights):
        label.xy = (rect.get_x() + rect.get_width() / 2, w)
        label.set_text(f"{w:.3f}")


def update_row_bars(bars, weights):
    """Set the heights and printed values of bars drawn by ``attention_row_bars``, in place; returns the same bars.

    Parameters
    ----------
    bars : matplotlib.container.BarContainer
    weights : array_like, shape (T,)
        One weight per bar.
    """
    weights = _check_row(weights, len(bars.patches), f"there are {len(bars.patches)} bars (weights shape "
                         f"{np.shape(weights)})")
    for rect, w in zip(bars.patches, weights):
        rect.set_height(w)
    bars.datavalues = weights
    _set_bar_labels(bars, weights)
    return bars


# --------------------------------------------------------------------------- value hull
def convex_hull(points):
    """Vertices of the convex hull of 2-D points, counter-clockwise (Andrew's monotone chain).

    Parameters
    ----------
    points : array_like, shape (T, 2)

    Returns
    -------
    ndarray, shape (H, 2)
        The hull's corners, H <= T. Collinear or repeated points give a segment (H = 2) or a
        single point (H = 1).
    """
    pts = np.unique(np.asarray(points, dtype=float), axis=0)  # sorted by x, then y
    if len(pts) <= 2:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def half(seq):
        chain = []
        for p in seq:
            while len(chain) >= 2 and cross(chain[-2], chain[-1], p) <= 0:
                chain.pop()
            chain.append(p)
        return chain

    lower, upper = half(pts), half(pts[::-1])
    return np.array(lower[:-1] + upper[:-1])


def value_hull_plot(values, weights, labels=None, *, ax=None):
    """Draw 2-D value vectors, their convex hull, and the output ``weights @ values``.

    With weights from a softmax (non-negative, summing to one) the output is a convex
    combination of the value vectors, so it always lies inside the shaded hull (for three
    values, the triangle).

    Parameters
    ----------
    values : array_like, shape (T, 2)
        One 2-D value vector per key.
    weights : array_like, shape (T,)
        One query's attention weights.
    labels : sequence of str, length T, optional
        The key tokens.

    Returns
    -------
    dict
        The artists ``update_value_hull`` needs: "points" (PathCollection of the values),
        "point_labels" (list of Text), "hull" (Polygon), "spokes" (list of Line2D from each value
        to the output, wider for a larger weight), "output" (Line2D, one star marker),
        "output_label" (Text above the axes with the output's coordinates), "values" (ndarray copy, (T, 2)),
        "ax".
    """
    values = _as_float(values, "values")
    if values.ndim != 2 or values.shape[1] != 2:
        raise ValueError(
            f"values must have shape (T, 2): one 2-D value vector per key; got shape {values.shape}"
        )
    t = values.shape[0]
    weights = _check_row(weights, t, f"values has T={t} rows (weights shape {np.shape(weights)}, values shape "
                                     f"{values.shape})")
    labels = _check_labels(labels, t, "labels", f"T={t} rows", values.shape, of="values")
    if ax is None:
        ax = _new_axes((4.5, 4.0))

    hull_xy = convex_hull(values)
    hull = Polygon(
        hull_xy, closed=True, facecolor=style.ORANGE, alpha=0.25, edgecolor=style.ORANGE, linewidth=1.5,
        zorder=1, label="convex hull of the values",
    )
    ax.add_patch(hull)
    output = weights @ values  # (T,) @ (T, 2) -> (2,)
    spokes = [
        ax.plot([v[0], output[0]], [v[1], output[1]], color=style.GREY, zorder=2,
                solid_capstyle="round")[0]
        for v in values
    ]
    points = ax.scatter(values[:, 0], values[:, 1], s=60, color=style.BLUE, zorder=3,
                        label="value vectors")
    point_labels = [
        ax.annotate(
            f"{label}\n({v[0]:g}, {v[1]:g})", xy=v, xytext=(6, 6), textcoords="offset points",
            fontsize=style.FONT_NOTE, color=style.BLUE, zorder=4,
            # a light backing keeps the label readable over the hull and anything drawn on it
            bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.75),
        )
        for label, v in zip(labels, values)
    ]
    (output_marker,) = ax.plot(
        [output[0]], [output[1]], marker="*", markersize=16, color=style.VERMILLION,
        markeredgecolor="black", markeredgewidth=0.6, linestyle="none", zorder=5,
        label="output = weights @ values",
    )
    # The output's coordinates sit above the axes, where they never hide a point.
    output_label = ax.text(
        0.5, 1.03, "", transform=ax.transAxes, ha="center", va="bottom", fontsize=style.FONT_LABEL,
        color=style.VERMILLION,
    )

    # Fixed limits around the values (room for labels), so moving the output never rescales.
    lo, hi = values.min(axis=0), values.max(axis=0)
    pad = np.maximum(0.15 * (hi - lo).max(), 0.5)
    ax.set_xlim(lo[0] - pad, hi[0] + 2 * pad)
    ax.set_ylim(lo[1] - pad, hi[1] + pad)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("value dimension 1")
    ax.set_ylabel("value dimension 2")
    ax.grid(True, alpha=0.3)

    alt_text.record(ax, _Words(_hull_words, output_marker, values=values.copy(), labels=labels, weights=None),
                    artists=[hull, points, output_marker, output_label, *spokes, *point_labels])
    artists = {
        "ax": ax,
        "values": values.copy(),
        "points": points,
        "point_labels": point_labels,
        "hull": hull,
        "spokes": spokes,
        "output": output_marker,
        "output_label": output_label,
    }
    update_value_hull(artists, weights)
    return artists


def update_value_hull(artists, weights):
    """Move the output point of a ``value_hull_plot`` to ``weights @ values``, in place.

    Parameters
    ----------
    artists : dict
        What ``value_hull_plot`` returned.
    weights : array_like, shape (T,)

    Returns
    -------
    ndarray, shape (2,)
        The new output.
    """
    values = artists["values"]
    weights = _check_row(weights, len(values), f"the plot has T={len(values)} values (weights shape "
                                                f"{np.shape(weights)})")
    output = weights @ values  # (T,) @ (T, 2) -> (2,)
    artists["output"].set_data([output[0]], [output[1]])
    artists["output_label"].set_text(
        f"\u2605 output = weights @ values = ({output[0]:.3f}, {output[1]:.3f})"
    )
    for spoke, v, w in zip(artists["spokes"], values, weights):
        spoke.set_data([v[0], output[0]], [v[1], output[1]])
        spoke.set_linewidth(0.5 + 5.0 * float(np.clip(w, 0.0, 1.0)))
    for part in alt_text.recorded(artists["ax"]):  # the alt's weights: those that made the output
        if isinstance(part, _Words) and part.compose is _hull_words and part.refs[0]() is artists["output"]:
            part.state["weights"] = weights.copy()
    return output


def _hull_words(marker, values, labels, weights):
    """The values, their hull, the output and the weights that made it (None: nothing said yet)."""
    if weights is None:
        return ""
    n = alt_text.number
    output = np.asarray(marker.get_xydata(), dtype=float)[0]
    points = ", ".join(f"{label} ({n(v[0])}, {n(v[1])})" for label, v in zip(labels, values))
    corners = len(convex_hull(values))
    shape = {1: "a single point", 2: "a segment", 3: "a triangle"}.get(corners, f"a polygon with {corners} corners")
    inside = ", inside the hull" if (weights >= 0).all() and abs(weights.sum() - 1.0) < 1e-9 else ""
    return (f"the value vectors as points in the plane: {points}; shaded: their convex hull, {shape}; "
            f"star: the output weights @ values = ({alt_text.fixed(output[0], 3)}, {alt_text.fixed(output[1], 3)})"
            f"{inside}, with weights {', '.join(alt_text.fixed(w, 3) for w in weights)} (grey lines from each value "
            "to the output, thicker for a larger weight)")
