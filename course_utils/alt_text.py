"""Text alternatives of the course's figures, and how a figure is published with one (issue 12).

Every picture reaches the page as ``<img alt="..." src="data:image/png;base64,...">`` (text/html, ranked above a PNG
by JupyterLab, Notebook 7 and nbconvert, and read by a screen reader) and as the same PNG under image/png: a
256-colour palette PNG (``compact_png``), a third of matplotlib's bytes.

The alt (``description``), first found wins: words given by ``describe(fig_or_ax, text)``; what the course's plot
functions ``record`` (read at publishing time, so an update in place is described as it is now); else composed from
the axes, with ``GENERIC`` as the last resort. ``register_formatter`` makes ``plt.show()`` and ``display(fig)``
publish ``figure_bundle(fig)``. At import only the standard library and numpy load.
"""
import base64
import colorsys
import html
import io
import re
import sys
import weakref

import numpy as np

__all__ = [
    "GENERIC",
    "describe",
    "description",
    "record",
    "recorded",
    "number",
    "fixed",
    "plain",
    "labelled_values",
    "matrix_rows",
    "heatmap_phrase",
    "colour_word",
    "colour_scale",
    "compact_png",
    "figure_png",
    "picture_bundle",
    "figure_bundle",
    "display_figure",
    "register_formatter",
]

#: The alt of a figure about which nothing could be said (no course figure may carry it; tests check).
GENERIC = "A matplotlib figure; no description of it could be composed."

#: Lists longer than this are summarised (how many, the range) instead of read out in full.
MAX_LISTED = 15

_TEXTS = weakref.WeakKeyDictionary()  # Figure or Axes -> the words describe() was given
_PARTS = weakref.WeakKeyDictionary()  # Axes -> [part(): str], recorded by the course's plot functions
_OWNED = weakref.WeakSet()  # artists that a recorded part speaks for: the composition skips them


# --------------------------------------------------------------------------- words for numbers and text
def number(value, digits=3):
    """``value`` with ``digits`` significant digits, no "-0": 1024 -> "1024", 0.0312 -> "0.0312" (below 1e-4: 2.5e-07).

    >>> number(1024.0), number(0.031249), number(-0.0), number(2.5e-07)
    ('1024', '0.0312', '0', '2.5e-07')
    """
    value = float(value)
    if not np.isfinite(value):
        return {np.inf: "infinity", -np.inf: "minus infinity"}.get(value, "not a number")
    if value == round(value) and abs(value) < 1e15:
        return str(int(round(value)))
    if abs(value) < 1e-4:
        return f"{value:.1e}"
    text = np.format_float_positional(value, precision=digits, unique=False, fractional=False, trim="-")
    return "0" if float(text) == 0 else text


def fixed(value, decimals):
    """``value`` with exactly ``decimals`` decimals (as a plot prints it), never "-0.00".

    >>> fixed(0.6652, 3), fixed(-0.0001, 2)
    ('0.665', '0.00')
    """
    text = f"{float(value):.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


_MATH = [
    (re.compile(r"([_^])\{([^{}]*)\}"), r"\1\2"),
    (re.compile(r"\\sqrt\{([^{}]*)\}"), r"sqrt(\1)"),
    (re.compile(r"\s*\\cdot\s*"), "·"),
    (re.compile(r"\\propto\b"), "proportional to"),
    (re.compile(r"\\times\b"), "×"),
    (re.compile(r"\\(?:mathrm|text|mathit|mathbf|mathdefault)\{([^{}]*)\}"), r"\1"),
    (re.compile(r"\\([A-Za-z]+)"), r"\1"),
]


def plain(text):
    """Figure text as a screen reader should get it: mathtext unwrapped, one line, single spaces.

    >>> plain(r"measured std of $q\\cdot k / \\sqrt{d_k}$")
    'measured std of q·k / sqrt(d_k)'
    >>> plain("future leak\\n(causal mask forgotten)")
    'future leak (causal mask forgotten)'
    """
    text = str(text)
    if "$" in text:
        for pattern, replacement in _MATH:
            text = pattern.sub(replacement, text)
        text = text.replace("$", "").replace("{", "").replace("}", "")
    return " ".join(text.split())


def _plural(word, n):
    if n == 1:
        return word
    return word[:-1] + "ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else word + "s"


def labelled_values(labels, values, decimals=None):
    """"a 0.665, b 0.245": each label with its value (``decimals`` fixed, or 3 significant digits).

    >>> labelled_values(["token 1", "token 2"], [0.6652, 0.2447], 3)
    'token 1 0.665, token 2 0.245'
    """
    show = (lambda v: fixed(v, decimals)) if decimals is not None else number
    return ", ".join(f"{label} {show(value)}" for label, value in zip(labels, values))


def _runs(words):
    """Runs of "masked" written once with a count: ["1.00", "masked", "masked"] -> ["1.00", "masked ×2"]."""
    out = []
    for word in words:
        if word == "masked" and out and out[-1].startswith("masked"):
            count = int(out[-1].partition("×")[2] or 1) + 1
            out[-1] = f"masked ×{count}"
        else:
            out.append(word)
    return out


def matrix_rows(values, row_labels, allowed=None, decimals=2):
    """Each row as "label: v1, v2, ...", rows joined by "; "; cells where ``allowed`` is False read "masked".

    A row with no allowed cell reads "no permitted key (all masked)".

    >>> matrix_rows([[1.0, 0.0], [0.25, 0.75]], ["a", "b"], allowed=[[True, False], [True, True]])
    'a: 1.00, masked; b: 0.25, 0.75'
    """
    values = np.asarray(values, dtype=float)
    allowed = None if allowed is None else np.broadcast_to(np.asarray(allowed, dtype=bool), values.shape)
    rows = []
    for i, label in enumerate(row_labels):
        if allowed is not None and not allowed[i].any():
            rows.append(f"{label}: no permitted key (all masked)")
            continue
        cells = [fixed(v, decimals) if allowed is None or allowed[i, j] else "masked" for j, v in enumerate(values[i])]
        rows.append(f"{label}: {', '.join(_runs(cells))}")
    return "; ".join(rows)


def heatmap_phrase(weights, row_labels, col_labels, *, allowed=None, what="attention weights", row_word="query",
                   col_word="key", decimals=2):
    """What an attention heatmap shows, with its numbers: its size, its labels, the masked cells, each row's weights.

    Up to 100 cells every weight is read out (the heatmap prints them too); larger ones give each row's largest
    weight (up to ``MAX_LISTED`` * 2 rows), or the range.

    >>> heatmap_phrase([[1.0, 0.0], [0.4, 0.6]], ["a", "b"], ["a", "b"], allowed=[[True, False], [True, True]])
    'heatmap of attention weights, 2 queries (rows: a, b) by 2 keys (columns: the same tokens); hatched: masked (1 cell). \
Weights of each query over the keys in order: a: 1.00, masked; b: 0.40, 0.60'
    """
    weights = np.asarray(weights, dtype=float)
    t_q, t_k = weights.shape
    row_labels, col_labels = [str(r) for r in row_labels], [str(c) for c in col_labels]
    same = row_labels == col_labels
    text = (f"heatmap of {what}, {t_q} {_plural(row_word, t_q)} (rows: {', '.join(row_labels)}) by {t_k} "
            f"{_plural(col_word, t_k)} (columns: {'the same tokens' if same else ', '.join(col_labels)})")
    blocked = 0
    if allowed is not None:
        allowed = np.broadcast_to(np.asarray(allowed, dtype=bool), weights.shape)
        blocked = int((~allowed).sum())
    if blocked:
        text += f"; hatched: masked ({blocked} {_plural('cell', blocked)})"
    if t_q * t_k <= 100:
        return (f"{text}. Weights of each {row_word} over the {_plural(col_word, 2)} in order: "
                f"{matrix_rows(weights, row_labels, allowed, decimals)}")
    shown = np.where(allowed, weights, -np.inf) if allowed is not None else weights
    if t_q <= 2 * MAX_LISTED:
        best = [f"{label} -> {col_labels[int(np.argmax(row))]} {fixed(row.max(), decimals)}"
                for label, row in zip(row_labels, shown) if np.isfinite(row.max())]
        return f"{text}. The largest weight of each {row_word}: {'; '.join(best)}"
    return f"{text}. Weights from {fixed(np.nanmin(weights), decimals)} to {fixed(np.nanmax(weights), decimals)}"


_HUES = ((15, "red"), (45, "orange"), (70, "yellow"), (160, "green"), (195, "teal"), (255, "blue"),
         (300, "purple"), (340, "magenta"), (360, "red"))


def colour_word(rgba):
    """A colour in words, from its hue and lightness: "dark blue", "yellow", "light grey", ...

    >>> colour_word((0.0, 0.14, 0.3)), colour_word((1.0, 0.92, 0.27)), colour_word((0.5, 0.5, 0.5))
    ('dark blue', 'yellow', 'medium grey')
    """
    r, g, b = (float(c) for c in rgba[:3])
    hue, lightness, saturation = colorsys.rgb_to_hls(r, g, b)
    if saturation < 0.15 or max(r, g, b) - min(r, g, b) < 0.08:
        for limit, word in ((0.12, "black"), (0.35, "dark grey"), (0.7, "medium grey"), (0.92, "light grey")):
            if lightness < limit:
                return word
        return "white"
    name = next(word for limit, word in _HUES if hue * 360 < limit)
    return ("dark " if lightness < 0.3 else "light " if lightness > 0.75 else "") + name


def colour_scale(cmap, vmin, vmax):
    """A colour scale in words, from a matplotlib Colormap (or its name) and its ends: "0 (dark blue) to 1 (yellow)"."""
    from matplotlib import colormaps

    cmap = colormaps[cmap] if isinstance(cmap, str) else cmap
    return f"{number(vmin)} ({colour_word(cmap(0.0))}) to {number(vmax)} ({colour_word(cmap(1.0))})"


# --------------------------------------------------------------------------- the registry
def _target(obj):
    """The Figure or Axes that ``obj`` stands for (a Heatmap, a BarContainer, value_hull_plot's dict...)."""
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.container import Container
    from matplotlib.figure import FigureBase

    if isinstance(obj, (Axes, FigureBase, Artist)):
        return obj
    if isinstance(obj, dict) and isinstance(obj.get("ax"), Axes):
        return obj["ax"]
    if isinstance(getattr(obj, "ax", None), Axes):
        return obj.ax
    if isinstance(obj, Container) and len(obj) and isinstance(getattr(obj[0], "axes", None), Axes):
        return obj[0].axes
    hint = " (for an array of axes, describe each Axes or the whole figure)" if isinstance(obj, np.ndarray) else ""
    raise TypeError("describe needs a matplotlib Figure or Axes, or what a course plot function returned; "
                    f"got {type(obj).__name__}{hint}")


def describe(target, text):
    """Say what a figure, or one of its axes, shows, with its key numbers: the words become (part of) its alt text.

    E.g. ``describe(ax, f"loss from {losses[0]:.2f} to {losses[-1]:.2f} over {len(losses)} steps")``. Words given to
    a figure are its whole alt; to an axes, they replace what would be composed for it (titles and other panels
    still come in); to one artist (e.g. what ``ax.scatter`` returned), only the phrase composed for it.

    `target` is a matplotlib Figure, Axes or Artist, or what a course plot function returned; anything else (e.g.
    the array of axes ``plt.subplots`` returns) is a TypeError, an empty `text` a ValueError.
    """
    key = _target(target)
    text = " ".join(str(text).split())
    if not text:
        raise ValueError("describe needs a non-empty text: what the plot shows and its key numbers")
    _TEXTS[key] = text


def record(ax, part, artists=()):
    """For the course's plot functions: ``part()`` says what they drew on ``ax``; ``artists`` are what it covers.

    ``part`` is called each time the figure is described, so it should read the artists' current state (keep
    weak references to them: a strong one would keep the figure alive, the registry being keyed by the axes).
    """
    _PARTS.setdefault(ax, []).append(part)
    for artist in artists:
        if artist is not None:
            _OWNED.add(artist)


def recorded(ax):
    """The parts the course's plot functions recorded for ``ax`` (a list; empty when none)."""
    return list(_PARTS.get(ax, ()))


def _is_colorbar(ax):
    return ax.get_label() == "<colorbar>"


def description(target):
    """The alt text of a figure or axes (or what ``describe`` accepts): given words, recorded parts, else composed
    from the axes; never empty (``GENERIC`` when nothing can be said)."""
    from matplotlib.axes import Axes
    from matplotlib.figure import FigureBase

    key = _target(target)
    if isinstance(key, Axes):
        return _axes_text(key) or GENERIC
    if isinstance(key, FigureBase):
        return _figure_text(key) or GENERIC
    return _TEXTS.get(key) or GENERIC  # one artist: only words given to it


def _sentence(text):
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def _figure_text(fig):
    if fig in _TEXTS:
        return _TEXTS[fig]
    sentences = []
    suptitle = plain(fig.get_suptitle()) if hasattr(fig, "get_suptitle") else ""
    if suptitle:
        sentences.append(_sentence(f"Figure titled “{suptitle}”"))
    visible = [ax for ax in fig.axes if ax.get_visible()]
    panels = [ax for ax in visible if not _is_colorbar(ax)]
    bars = [ax for ax in visible if _is_colorbar(ax)]
    if len(panels) == 1:
        sentences.append(_sentence(_axes_text(panels[0])))
    elif panels:
        sentences.append(f"{len(panels)} panels.")
        sentences += [_sentence(f"Panel {i}, {_axes_text(ax)}") for i, ax in enumerate(panels, start=1)]
    sentences += [_sentence(_axes_text(ax)) for ax in bars]
    notes = [note for note in (plain(t.get_text()) for t in fig.texts if t.get_visible()) if note and note != suptitle]
    if notes:
        sentences.append(_sentence("Text on the figure: " + "; ".join(notes)))
    for legend in getattr(fig, "legends", ()):
        labels = [plain(t.get_text()) for t in legend.get_texts()]
        if labels:
            sentences.append(_sentence("Legend: " + ", ".join(labels)))
    return " ".join(s for s in sentences if s)


def _axes_text(ax):
    if _is_colorbar(ax) and ax not in _PARTS and ax not in _TEXTS:
        return _colorbar_text(ax)
    title = plain(" ".join(t for t in (ax.get_title(loc) for loc in ("left", "center", "right")) if t))
    if ax in _TEXTS:  # given words replace the composed ones; the title still comes first
        body = _TEXTS[ax]
    else:
        phrases = [phrase for phrase in (part() for part in _PARTS.get(ax, ())) if phrase]
        if not (_is_colorbar(ax) and phrases):  # a recorded colour bar says it all
            phrases += _automatic(ax, axes_too=not phrases)
        body = "; ".join(phrases)
    if title:
        return f"“{title}”: {body}" if body else f"titled “{title}”"
    return body


# --------------------------------------------------------------------------- composed from the axes
def _floats(data):
    try:
        return np.asarray(data, dtype=float).ravel()
    except (TypeError, ValueError):
        return None


def _range(arr):
    """ "from lo to hi", both rounded to 3 significant digits of the larger one (so 1.8e-05 to 3 reads 0 to 3)."""
    finite = arr[np.isfinite(arr)]
    if not finite.size:
        return "no finite values"
    lo, hi = finite.min(), finite.max()
    scale = max(abs(lo), abs(hi))
    if scale > 0:
        decimals = int(2 - np.floor(np.log10(scale)))
        lo, hi = round(float(lo), decimals), round(float(hi), decimals)
    return number(lo) if lo == hi else f"from {number(lo)} to {number(hi)}"


def _tick_names(axis, positions):
    """The tick label at each position (a bar's centre), or the position as a number."""
    locs = np.asarray(axis.get_majorticklocs(), dtype=float)
    labels = [plain(t.get_text()) for t in axis.get_majorticklabels()]
    names = []
    for p in positions:
        hits = [label for loc, label in zip(locs, labels) if abs(loc - p) < 1e-6 and label]
        names.append(hits[0] if hits else number(p))
    return names


def _name(artist):
    label = artist.get_label()
    return f" “{plain(label)}”" if label and not str(label).startswith("_") else ""


def _line_text(line):
    x, y = _floats(line.get_xdata()), _floats(line.get_ydata())
    name = _name(line)
    if x is None or y is None or not y.size:
        return f"a line{name}"
    if y.size == 2 and y[0] == y[1] and tuple(x) == (0.0, 1.0):
        return f"a horizontal line{name} at y = {number(y[0])}"
    if x.size == 2 and x[0] == x[1] and tuple(y) == (0.0, 1.0):
        return f"a vertical line{name} at x = {number(x[0])}"
    markers_only = line.get_linestyle() in ("None", "none", "", " ")
    kind = "points" if markers_only else "a line"
    if y.size <= MAX_LISTED and x.size == y.size:
        return f"{kind}{name} at " + ", ".join(f"({number(a)}, {number(b)})" for a, b in zip(x, y))
    return (f"{kind}{name} of {y.size} points, x {_range(x)}, y {_range(y)} "
            f"(first {number(y[0])}, last {number(y[-1])})")


def _bars_text(bars, ax):
    rects = list(bars.patches)
    vertical = getattr(bars, "orientation", "vertical") != "horizontal"
    values = [r.get_height() if vertical else r.get_width() for r in rects]
    centres = [r.get_x() + r.get_width() / 2 if vertical else r.get_y() + r.get_height() / 2 for r in rects]
    names = _tick_names(ax.xaxis if vertical else ax.yaxis, centres)
    name = _name(bars)
    if len(rects) <= MAX_LISTED:
        return f"{len(rects)} {'' if vertical else 'horizontal '}bars{name}: {labelled_values(names, values)}"
    return f"{len(rects)} bars{name}, heights {_range(np.asarray(values, dtype=float))}"


def _collection_text(collection):
    from matplotlib.collections import LineCollection, PathCollection, PolyCollection, QuadMesh

    name = _name(collection)
    if isinstance(collection, PathCollection):
        xy = np.asarray(collection.get_offsets(), dtype=float).reshape(-1, 2)
        if not len(xy):
            return ""
        if len(xy) <= MAX_LISTED:
            return f"{len(xy)} points{name} at " + ", ".join(f"({number(a)}, {number(b)})" for a, b in xy)
        return f"{len(xy):,} points{name}, x {_range(xy[:, 0])}, y {_range(xy[:, 1])}"
    if isinstance(collection, QuadMesh):
        return f"a colour grid{name} of values {_range(np.asarray(collection.get_array(), dtype=float).ravel())}"
    if isinstance(collection, PolyCollection):
        return f"a shaded area{name}"
    if isinstance(collection, LineCollection):
        segments = len(collection.get_segments())
        return f"{segments} line segments{name}" if segments else ""
    return f"a {type(collection).__name__}{name}"


def _image_text(image):
    data = np.ma.getdata(image.get_array())
    if data is None:
        return ""
    data = np.asarray(data, dtype=float)
    shape = " × ".join(str(n) for n in data.shape[:2])
    if data.ndim == 3:
        return f"a {shape} picture"
    scale = colour_scale(image.get_cmap(), image.norm.vmin, image.norm.vmax)
    return f"an image of {shape} cells, values {_range(data.ravel())}, colour scale {scale}"


def _is_number_text(text):
    """A tick label that is a number: "0.5", "−2", "1,024", "10^2", "1e-3", "50%"."""
    text = text.replace("−", "-").replace(",", "").rstrip("%")
    if re.fullmatch(r"-?\d+\^-?\d+", text):
        return True
    try:
        float(text)
    except ValueError:
        return False
    return True


def _axis_text(axis, which, label):
    ticks = [plain(t.get_text()) for t in axis.get_majorticklabels() if t.get_visible()]
    ticks = [t for t in ticks if t]
    words = f"{which} axis" + (f" “{label}”" if label else "")
    numeric = all(_is_number_text(t) for t in ticks)
    if ticks and not numeric:
        shown = ticks if len(ticks) <= MAX_LISTED else ticks[:MAX_LISTED] + ["..."]
        return f"{words}: {', '.join(shown)}"
    lo, hi = sorted(axis.get_view_interval())
    scale = axis.get_scale()
    return f"{words} from {number(lo)} to {number(hi)}" + (f" ({scale} scale)" if scale != "linear" else "")


def _automatic(ax, axes_too):
    """Phrases for what is on ``ax`` that no recorded part covers (an artist given words says those)."""
    from matplotlib.container import BarContainer
    from matplotlib.text import Annotation

    def composed(artists, compose):  # each visible one no part covers: its given words, or compose(it)
        return [_TEXTS.get(a) or compose(a) for a in artists if a.get_visible() and a not in _OWNED]

    phrases = composed(ax.lines, _line_text)
    for container in ax.containers:  # a bar chart is known by its first bar
        if isinstance(container, BarContainer) and container.patches and container.patches[0] not in _OWNED:
            phrases.append(_TEXTS.get(container.patches[0]) or _bars_text(container, ax))
    phrases += composed(ax.collections, _collection_text) + composed(ax.images, _image_text)
    texts, arrows = [], 0
    for text in ax.texts:
        if not text.get_visible() or text in _OWNED:
            continue
        words = plain(text.get_text())
        if words:
            texts.append(words)
        elif isinstance(text, Annotation) and text.arrow_patch is not None:
            arrows += 1
    if arrows:
        phrases.append(f"{arrows} {_plural('arrow', arrows)}")
    if texts:
        shown = texts if len(texts) <= MAX_LISTED else texts[:MAX_LISTED] + [f"and {len(texts) - MAX_LISTED} more"]
        phrases.append("texts: " + "; ".join(shown))
    legend = ax.get_legend()
    if legend is not None and legend.get_visible():
        labels = [plain(t.get_text()) for t in legend.get_texts()]
        if labels:
            phrases.append("legend: " + ", ".join(labels))
    phrases = [p for p in phrases if p]
    if axes_too and (phrases or ax.get_xlabel() or ax.get_ylabel()):
        for axis, which, label in ((ax.xaxis, "x", ax.get_xlabel()), (ax.yaxis, "y", ax.get_ylabel())):
            if axis.get_visible() and (label or phrases):
                phrases.append(_axis_text(axis, which, plain(label)))
    return phrases


def _colorbar_text(ax):
    vertical = ax.get_position().height >= ax.get_position().width
    label = plain(ax.get_ylabel() if vertical else ax.get_xlabel())
    lo, hi = sorted((ax.get_ylim() if vertical else ax.get_xlim()))
    cmaps = [c.get_cmap() for c in ax.collections if hasattr(c, "get_cmap")]
    ends = colour_scale(cmaps[0], lo, hi) if cmaps else f"{number(lo)} to {number(hi)}"
    return "a colour bar" + (f" “{label}”" if label else "") + f": {ends}"


# --------------------------------------------------------------------------- pictures
def compact_png(image, *, optimize=True):
    """The same picture as a small PNG: 256 colours in a palette chosen by Pillow (maximum coverage, no dithering: on
    the course's figures every channel stays within 7/255). Transparency is kept; when the result is not smaller,
    the original PNG is returned.

    Parameters
    ----------
    image : bytes or array_like
        PNG bytes, or an (H, W, 4) / (H, W, 3) uint8 array (e.g. ``fig.canvas.buffer_rgba()``).
    optimize : bool, default True
        Pillow's smallest encoding. False (zlib level 6): about 9 % more bytes, 25-45 ms less per picture.

    Returns
    -------
    bytes
        A PNG; the same size in pixels. Deterministic: the same picture gives the same bytes.
    """
    from PIL import Image

    original = None
    if isinstance(image, (bytes, bytearray)):
        original = bytes(image)
        picture = Image.open(io.BytesIO(original))
        picture.load()
    else:
        picture = Image.fromarray(np.ascontiguousarray(np.asarray(image, dtype=np.uint8)))
    if picture.mode not in ("RGB", "RGBA"):
        picture = picture.convert("RGBA")
    picture = _rgb_if_opaque(picture)  # opaque (every course figure): the best quantiser applies
    method = Image.Quantize.MAXCOVERAGE if picture.mode == "RGB" else Image.Quantize.FASTOCTREE
    palette = picture.quantize(colors=256, method=method, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    palette.save(buffer, format="PNG", **({"optimize": True} if optimize else {"compress_level": 6}))
    small = buffer.getvalue()
    return original if original is not None and len(original) <= len(small) else small


def _rgb_if_opaque(picture):
    """An RGBA Pillow image with no transparent pixel as RGB (a quarter fewer bytes); any other image as it is."""
    if picture.mode == "RGBA" and picture.getchannel("A").getextrema() == (255, 255):
        return picture.convert("RGB")
    return picture


def exact_png(pixels, *, level=1):
    """The (H, W, 4) or (H, W, 3) uint8 `pixels` as a PNG, every pixel as given (zlib `level`; opaque as RGB), the
    same bytes for the same pixels: what a dashboard sends on every control move."""
    from PIL import Image

    picture = _rgb_if_opaque(Image.fromarray(np.ascontiguousarray(np.asarray(pixels, dtype=np.uint8))))
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG", compress_level=level)
    return buffer.getvalue()


def _inline_print_kwargs():
    """The inline backend's print_figure_kwargs (bbox_inches="tight" by default)."""
    config = sys.modules.get("matplotlib_inline.config")
    if config is not None and config.InlineBackend.initialized():
        return dict(config.InlineBackend.instance().print_figure_kwargs)
    return {"bbox_inches": "tight"}


def figure_png(fig):
    """The PNG IPython's inline backend would show for ``fig`` (its dpi and crop, by its ``print_figure``), made
    compact with ``compact_png(..., optimize=False)``; None for a figure with nothing drawn, as the backend shows."""
    from IPython.core.pylabtools import print_figure

    if not fig.axes and not fig.lines:  # as print_figure: nothing to show
        return None
    png = print_figure(fig, "png", **_inline_print_kwargs())
    return None if png is None else compact_png(png, optimize=False)


def picture_bundle(png, alt, text=None):
    """The display data of one picture: text/html ``<img alt>`` and image/png, sharing one base64 encoding of the
    `png` bytes. `alt` says what the picture shows (ValueError when empty); `text` is the text/plain stand-in (e.g.
    ``repr(fig)``; without it IPython adds the object's repr)."""
    if not alt or not alt.strip():
        raise ValueError("a picture needs a non-empty alt text")
    encoded = base64.b64encode(png).decode("ascii")
    img = f'<img alt="{html.escape(alt, quote=True)}" src="data:image/png;base64,{encoded}">'
    bundle = {"text/html": img, "image/png": encoded}
    if text is not None:
        bundle["text/plain"] = text
    return bundle


def figure_bundle(fig):
    """What ``plt.show()`` / ``display(fig)`` publish: ``<img alt>`` + PNG (+ text/plain ``<Figure size ...>``); the
    PNG drawn first, so the description reads the ticks and texts as drawn."""
    png = figure_png(fig)
    if png is None:
        return {"text/plain": repr(fig)}
    try:
        alt = description(fig)
    except Exception:  # never lose a learner's figure for want of words
        alt = GENERIC
    return picture_bundle(png, alt, text=repr(fig))


def display_figure(fig):
    """Publish ``figure_bundle(fig)`` as one display_data output (the formatter ``register_formatter`` installs)."""
    from IPython.display import publish_display_data

    publish_display_data(figure_bundle(fig))


def register_formatter(shell=None):
    """Make IPython (`shell`, default the running one) show every matplotlib Figure as ``figure_bundle(fig)``.

    Registered with IPython's highest-priority display formatter by the Figure's qualified name (matplotlib need
    not be imported yet), so the inline backend's PNG formatter, which it reinstalls whenever configured, never
    runs for a figure. Idempotent; does nothing outside IPython; returns nothing.
    """
    if shell is None:
        ipython = sys.modules.get("IPython")  # not imported: certainly not running under IPython
        shell = ipython.get_ipython() if ipython is not None else None
        if shell is None:
            return
    formatter = shell.display_formatter.ipython_display_formatter
    try:
        if formatter.lookup_by_type("matplotlib.figure.Figure") is display_figure:
            return
    except KeyError:
        pass
    formatter.for_type_by_name("matplotlib.figure", "Figure", display_figure)
