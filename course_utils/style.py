"""The course's look, in one place: the colours, colour maps and font sizes of every plot and dashboard.

Colours come from the Okabe-Ito palette (Okabe and Ito 2008), chosen to stay distinct for readers
with the common colour-vision deficiencies; heatmaps use ``cividis``, a colour map that is monotone
in lightness and readable with those deficiencies (every continuous map is of the viridis family). Notebooks
use the same names (``cu.style.BLUE``) instead of typing colours, so a change here changes every picture.

Measured, not assumed (tests/test_figure_colours_and_text.py): in every figure of the course, any two colours
that mean different things differ by a CIEDE2000 of at least 10 with protanopia, deuteranopia and tritanopia
simulated, and no text is smaller than 8 pt.
"""
from types import MappingProxyType

__all__ = [
    "INK",
    "CHECK_BOX_COLOURS",
    "BLUE",
    "ORANGE",
    "VERMILLION",
    "SKY",
    "GREEN",
    "YELLOW",
    "PURPLE",
    "GREY",
    "LIGHT_GREY",
    "DARK_GREY",
    "HEATMAP_CMAP",
    "SIGNED_CMAP",
    "BLOCKED_CELL_STYLE",
    "FONT_CELL",
    "FONT_CELL_DENSE",
    "FONT_SMALL",
    "FONT_NOTE",
    "FONT_LABEL",
    "FONT_TITLE",
]

# Okabe-Ito colours
BLUE = "#0072B2"
ORANGE = "#E69F00"
VERMILLION = "#D55E00"
SKY = "#56B4E9"
GREEN = "#009E73"
YELLOW = "#F0E442"
PURPLE = "#CC79A7"
#: Neutral greys: for "everything else", unused cells and secondary text.
GREY = "#999999"
LIGHT_GREY = "#D9D9D9"
DARK_GREY = "#4D4D4D"

#: The colour map of every attention heatmap (weights from 0 to 1).
HEATMAP_CMAP = "cividis"
#: The colour map of signed values (notebook 04's concatenated head outputs, on a scale symmetric about 0):
#: ``viridis``, dark purple for the most negative, teal-green near 0, yellow for the most positive. Like cividis
#: of the viridis family (see above); its other hues keep these values from being read as attention weights.
SIGNED_CMAP = "viridis"

#: How a masked-out (blocked) heatmap cell looks in every picture: light grey, hatched in dark grey, so it
#: reads as "blocked" by its pattern, not by its colour alone. Read-only: ``Rectangle(..., **BLOCKED_CELL_STYLE)``.
BLOCKED_CELL_STYLE = MappingProxyType(
    dict(facecolor=LIGHT_GREY, edgecolor=DARK_GREY, hatch="///", linewidth=0.0)
)

# Font sizes in points (at the figure's dpi); none below 8 pt (see above).
#: Numbers inside heatmap cells.
FONT_CELL = 9
#: Numbers inside the small cells of a dense dashboard heatmap (notebook 03's mask explorer: up to 10 x 10 cells
#: of 0.5 inch).
FONT_CELL_DENSE = 8
#: Tick labels and numbers crowded beside small cells (a dashboard's row sums).
FONT_SMALL = 8
#: Notes, captions and legends on a figure; the titles of small panels.
FONT_NOTE = 9
#: Axis labels and the values printed on bars and points; titles of crowded panels.
FONT_LABEL = 10
#: Titles, and the summary line of a dashboard.
FONT_TITLE = 11

# The checkers' result box (HTML, in the notebooks). The label word, not the colour, is the primary cue;
# the colours only repeat it (dark borders on light backgrounds, text contrast above 7:1).
#: Text ink of the box.
INK = "#1a1a1a"
#: status -> (border, background) of the box: green for correct, red for not yet right, amber for not attempted.
CHECK_BOX_COLOURS = MappingProxyType({
    "correct": ("#2e7d32", "#e8f5e9"),
    "wrong": ("#c62828", "#fdecea"),
    "not attempted": ("#8d6e00", "#fff8e1"),
})
