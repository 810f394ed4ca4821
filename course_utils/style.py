"""The course's look, in one place: the colours, colour maps and font sizes of every plot and dashboard.

Colours come from the Okabe-Ito palette (Okabe and Ito 2008), chosen to stay distinct for readers
with the common colour-vision deficiencies; heatmaps use ``cividis``, a colour map that is monotone
in lightness and readable with those deficiencies. Notebooks use the same names
(``cu.style.BLUE``) instead of typing colours, so a change here changes every picture.
"""

__all__ = [
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
    "FONT_CELL",
    "FONT_SMALL",
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

#: Font sizes in points: numbers inside heatmap cells, small notes, axis labels and value labels, titles.
FONT_CELL = 9
FONT_SMALL = 8
FONT_LABEL = 10
FONT_TITLE = 11
