"""course_utils.style is the one home of the course's look (issue 11).

- style.py holds the Okabe-Ito colours, neutral greys, the colour maps and the font sizes;
- no other module of course_utils, and no solved notebook's code, types a hex colour or a named matplotlib
  colour map, or gives a colour argument (``color=``, ``cmap=``, ...) a typed colour other than black or white:
  they use ``style.BLUE``, ``cu.style.BLUE``, ...;
- every dashboard and plot draws only with those colours (or neutral greys) and colour maps, so each picture
  keeps a look that readers with a colour-vision deficiency can read;
- every plotting cell of a solved notebook stores its picture (nbval runs them all; it never compares pictures).
"""
import matplotlib

matplotlib.use("Agg")

import ast  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

import course_notebooks  # noqa: E402
import matplotlib.colors as mcolors  # noqa: E402
import nbformat  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import Collection  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.image import AxesImage  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from widget_helpers import dashboard_classes, make_dashboard  # noqa: E402  (tests/widget_helpers.py)

import course_utils as cu  # noqa: E402
from course_utils import plots, style  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "course_utils"
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts and p.name != "style.py")
SOLVED = course_notebooks.SOLVED  # the course's and every translation's

#: Modules that still type colours, with the reason; the test below fails once one no longer does (then
#: remove it here). checks/ is not part of issue 11's change.
NOT_YET = {}

OKABE_ITO = {"BLUE": "#0072B2", "ORANGE": "#E69F00", "VERMILLION": "#D55E00", "SKY": "#56B4E9",
             "GREEN": "#009E73", "YELLOW": "#F0E442", "PURPLE": "#CC79A7"}
NEUTRAL_WORDS = {"black", "white", "none", "k", "w"}
#: Keyword arguments that take a colour or a colour map (matplotlib's names and short forms).
COLOUR_KEYWORDS = {"color", "colors", "c", "facecolor", "edgecolor", "fc", "ec", "markerfacecolor",
                   "markeredgecolor", "mfc", "mec", "cmap", "labelcolor", "hatch_color"}
HEX = re.compile(r"#(?:[0-9a-fA-F]{6}(?:[0-9a-fA-F]{2})?)\b")
HEX_ALONE = re.compile(r"#[0-9a-fA-F]{3,4}")


def colour_problems(source):
    """Typed colours in Python source: hex colours, named colour maps, colour arguments given a colour by name."""
    tree = ast.parse(source)
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if HEX.search(text) or HEX_ALONE.fullmatch(text):
                problems.append(f"line {node.lineno}: hex colour {text!r}")
            elif text in matplotlib.colormaps:
                problems.append(f"line {node.lineno}: colour map {text!r}")
        elif isinstance(node, ast.keyword) and node.arg in COLOUR_KEYWORDS:
            value = node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value not in NEUTRAL_WORDS \
                    and not HEX.search(value.value) and value.value not in matplotlib.colormaps:  # (found above)
                problems.append(f"line {value.lineno}: {node.arg}={value.value!r}")
    return problems


def code_of(path):
    """The solved notebook's code cells, by id."""
    return {cell.get("id"): cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"}


# --------------------------------------------------------------------------- the rule, in the sources
@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_no_module_but_style_types_a_colour(path):
    problems = colour_problems(path.read_text())
    key = path.relative_to(ROOT).as_posix()
    if key in NOT_YET:
        assert problems, f"{key} types no colour any more: remove it from NOT_YET"
        return
    assert not problems, f"{key}: use course_utils.style's names instead: {problems}"


@pytest.mark.parametrize("path", SOLVED, ids=course_notebooks.name)
def test_no_solved_notebook_types_a_colour(path):
    problems = {cell_id: found for cell_id, source in code_of(path).items() if (found := colour_problems(source))}
    assert not problems, f"{path.name}: use cu.style.BLUE, cu.style.GREY, ... instead: {problems}"


@pytest.mark.parametrize("source, found", [
    ('ax.bar(x, y, color="#0072B2")', ["hex colour '#0072B2'"]),
    ('_BLUE = "#0072b2"', ["hex colour '#0072b2'"]),
    ('mask = ListedColormap(["#ccc", BLUE])', ["hex colour '#ccc'"]),
    ('ax.imshow(w, cmap="viridis")', ["colour map 'viridis'"]),
    ('colormaps["cividis"]', ["colour map 'cividis'"]),
    ('ax.plot(x, color="tab:blue")', ["color='tab:blue'"]),
    ('ax.plot(x, color="C1")', ["color='C1'"]),
    ('ax.scatter(x, y, color="0.35")', ["color='0.35'"]),
    ('ax.axhline(0, color="grey")', ["colour map 'grey'"]),
    ('ax.text(0, 0, "s", color="red")', ["color='red'"]),
    ('ax.plot(x, color=cu.style.BLUE, markeredgecolor="black")', []),
    ('print("issue #12 and #123: not colours")', []),
    ('ax.set_title("weights, cividis scale")', []),
])
def test_the_rule_catches_typed_colours(source, found):
    assert [problem.split(": ", 1)[1] for problem in colour_problems(source)] == found


# --------------------------------------------------------------------------- the names
def test_style_holds_the_okabe_ito_colours_neutral_greys_and_colour_blind_safe_maps():
    for name, hex_colour in OKABE_ITO.items():
        assert getattr(style, name).upper() == hex_colour
    for name in ("GREY", "LIGHT_GREY", "DARK_GREY"):
        red, green, blue = mcolors.to_rgb(getattr(style, name))
        assert red == green == blue
    assert mcolors.to_rgb(style.LIGHT_GREY)[0] > mcolors.to_rgb(style.GREY)[0] > mcolors.to_rgb(style.DARK_GREY)[0]
    assert style.HEATMAP_CMAP == "cividis" and style.SIGNED_CMAP == "viridis"  # the viridis family (issue 12)
    for name in style.__all__:
        if name.startswith("FONT_"):
            assert 8 <= getattr(style, name) <= 14, name  # no figure text below 8 pt (issue 12)
    public = {name for name in vars(style) if name.isupper()}
    assert public == set(style.__all__)


def test_blocked_cells_read_by_their_pattern_and_the_style_cannot_be_changed_by_accident():
    blocked = style.BLOCKED_CELL_STYLE
    assert blocked["hatch"] and blocked["facecolor"] == style.LIGHT_GREY and blocked["edgecolor"] == style.DARK_GREY
    with pytest.raises(TypeError):
        blocked["facecolor"] = "red"


def test_notebooks_reach_the_style_as_cu_style():
    assert cu.style is style and cu.style.BLUE == style.BLUE


# --------------------------------------------------------------------------- the pictures
def allowed_colour(rgba):
    """An Okabe-Ito colour or a neutral grey (black and white included); alpha aside."""
    red, green, blue = mcolors.to_rgb(rgba)
    if max(red, green, blue) - min(red, green, blue) < 1e-6:
        return True
    return mcolors.to_hex((red, green, blue)).upper() in set(OKABE_ITO.values())


def allowed_colour_map(cmap):
    if cmap.name in (style.HEATMAP_CMAP, style.SIGNED_CMAP):
        return True
    return isinstance(cmap, ListedColormap) and cmap.N <= 16 and all(allowed_colour(c) for c in cmap.colors)


def off_palette(fig):
    """(artist, colour) pairs of a figure drawn with a colour outside the palette, or with another colour map."""
    found = []
    for artist in fig.findobj():
        if not artist.get_visible():
            continue
        if isinstance(artist, AxesImage):
            colours = [] if allowed_colour_map(artist.get_cmap()) else [artist.get_cmap().name]
        elif isinstance(artist, Line2D):
            colours = [artist.get_color(), artist.get_markerfacecolor(), artist.get_markeredgecolor()]
        elif isinstance(artist, Patch):
            colours = [artist.get_facecolor(), artist.get_edgecolor()]
        elif isinstance(artist, Text):
            colours = [artist.get_color()] if artist.get_text() else []
        elif isinstance(artist, Collection):
            if artist.get_array() is not None:  # coloured by its colour map (a colour bar's strip)
                colours = [] if allowed_colour_map(artist.get_cmap()) else [artist.get_cmap().name]
            else:
                colours = list(artist.get_facecolors()) + list(artist.get_edgecolors())
        else:
            continue
        for colour in colours:
            if isinstance(colour, str) and colour in matplotlib.colormaps:
                found.append((type(artist).__name__, colour))
            elif not (isinstance(colour, str) and colour == "none") and mcolors.to_rgba(colour)[3] > 0 \
                    and not allowed_colour(colour):
                found.append((type(artist).__name__, mcolors.to_hex(colour)))
    return sorted(set(found))


@pytest.mark.parametrize("cls", dashboard_classes(), ids=lambda cls: cls.__name__)
def test_every_dashboard_draws_with_the_course_colours_only(cls):
    d = make_dashboard(cls)
    try:
        d.set(**{name: control.value for name, control in d.controls.items()})
        assert off_palette(d.fig) == []
    finally:
        d.close()


def test_every_plot_draws_with_the_course_colours_only():
    weights = cu.softmax(np.where(cu.causal_mask(3), np.arange(9.0).reshape(3, 3), -np.inf))
    fig = Figure(figsize=(12, 4))
    heat_ax, bars_ax, hull_ax = fig.subplots(1, 3)
    plots.attention_heatmap(weights, ax=heat_ax, mask=cu.causal_mask(3), colorbar=True)
    plots.attention_row_bars(weights[-1], ax=bars_ax)
    plots.value_hull_plot([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], weights[-1], ax=hull_ax)
    assert off_palette(fig) == []
    extra = fig.add_subplot()  # the check itself catches a typed colour and another colour map
    extra.plot([0, 1], color="tab:green")
    extra.imshow(weights, cmap="jet")
    assert off_palette(fig) == [("AxesImage", "jet"), ("Line2D", "#2ca02c")]


@pytest.mark.parametrize("path", SOLVED, ids=course_notebooks.name)
def test_every_plotting_cell_of_a_solved_notebook_stores_its_picture(path):
    missing = []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code" and ("plt.show()" in cell.source or "Dashboard(" in cell.source):
            if not any("image/png" in output.get("data", {}) for output in cell.get("outputs", [])):
                missing.append(cell.get("id"))
    assert not missing, f"{path.name}: no picture stored for cells {missing}; re-execute the notebook"
