"""The notebook-03 dashboards: ``MaskExplorerDashboard`` (padding and causal masks, and a query with no permitted
key) and ``MaskBeforeAfterDashboard`` (masking before the softmax or zeroing after it), both computed with the
reference code on the toy tickets and seeded stand-in projections (``lessons.data.stand_in_projections``).
"""
import ipywidgets
import numpy as np
from matplotlib import colormaps
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch, Rectangle

from course_utils import style
from course_utils.alt_text import fixed, heatmap_phrase, labelled_values
from course_utils.attention import scaled_dot_product_attention
from course_utils.lessons.data import FEATURES, TICKET, TICKETS, embed, stand_in_projections
from course_utils.lessons.masking import MASKING_METHODS, mask_layout, masked_weights
from course_utils.masks import causal_mask
from course_utils.plots import attention_heatmap, blocked_cell_grid, cell_text_colour, update_heatmap
from course_utils.widgets._base import Dashboard, axis_below, float_slider, slider, toggle_buttons

__all__ = ["MaskExplorerDashboard", "MaskBeforeAfterDashboard"]


class MaskExplorerDashboard(Dashboard):
    """Padding and causal masks for one ticket: the mask (left) and the weights it gives (right).

    Controls: ``length`` (real tokens, at most those of ``tokens``), ``padding`` (padding positions), ``side``
    ("right" or "left": where the padding goes) and ``causal``. Blocked cells are hatched; each weight row shows its
    sum, in red with "no key" when the query has no permitted key (left padding + causal). The figure is resized for
    every T = length + padding (``layout_for``): cells keep one size, nothing blank. ``seed``: of the stand-in
    projections.

    Attributes
    ----------
    mask, weights : ndarray, shapes (T, T)
        What is currently drawn (T = length + padding).
    real : ndarray of bool, shape (T,)
    labels : list of str, length T
    empty_rows : int
        Rows with no permitted key.
    mask_image, weight_image : AxesImage, (max_T, max_T)
        Drawn once at the largest size; the axes show their first T rows and columns.
    mask_patches, weight_patches : ndarray of Rectangle, (max_T, max_T)
    cell_texts : ndarray of Text, (max_T, max_T)
    row_sums : list of Text, length max_T
    summary : Text
    """

    figsize = (12.0, 6.2)  # replaced by layout_for(T) at every draw
    max_padding = 4
    #: Side of one cell, in inches: a weight printed at ``style.FONT_CELL_DENSE`` (8 pt) takes half of it, so
    #: numbers stay apart (at T = 10 the figure is 12.95 x 7.05 in).
    cell_inches = 0.5
    #: The smallest panel side, in inches: room for the title, the summary line and the legend.
    min_panel_inches = 2.3
    #: Margins around the two panels, in inches: left (tick labels, axis label), gap between the panels,
    #: right (the row sums), top (summary line, titles), bottom (rotated tick labels, axis label, legend).
    margins_inches = dict(left=1.0, gap=1.05, right=0.95, top=0.9, bottom=1.15)

    def __init__(self, tokens=TICKETS[2], length=4, padding=2, causal=True, side="right", seed=0):
        self.tokens = tuple(str(t) for t in tokens)
        if not self.tokens:
            raise ValueError("tokens is empty; give at least one token")
        embed(self.tokens)  # KeyError naming unknown tokens
        if not 1 <= length <= len(self.tokens):
            raise ValueError(
                f"length={length} must lie in [1, {len(self.tokens)}] (the ticket has {len(self.tokens)} tokens)"
            )
        if not 0 <= padding <= self.max_padding:
            raise ValueError(f"padding={padding} must lie in [0, {self.max_padding}]")
        if side not in ("right", "left"):
            raise ValueError(f"side must be 'right' or 'left'; got {side!r}")
        self.max_T = len(self.tokens) + self.max_padding
        self.W_Q, self.W_K, self.W_V = stand_in_projections(3, len(FEATURES), seed)
        self._initial = dict(length=int(length), padding=int(padding), causal=bool(causal), side=side)
        super().__init__()

    def make_controls(self):
        init, both = self._initial, ("real tokens", "padding positions")  # their tracks line up
        return {
            "length": slider(ipywidgets.IntSlider, "real tokens", align=both, value=init["length"], min=1,
                             max=len(self.tokens)),
            "padding": slider(ipywidgets.IntSlider, "padding positions", align=both, value=init["padding"], min=0,
                              max=self.max_padding),
            "side": toggle_buttons([("pad on the right", "right"), ("pad on the left", "left")], init["side"]),
            "causal": ipywidgets.Checkbox(value=init["causal"], description="causal mask", indent=False),
        }

    def compute(self, length, padding, causal, side):
        """(mask, real, labels, weights) for these control values, with the reference attention."""
        mask, real = mask_layout(length, padding, causal, side)
        T = length + padding
        x = np.zeros((T, len(FEATURES)))  # (T, d_model); padding vectors are zeros
        x[real] = embed(self.tokens[:length])
        labels = ["<pad>"] * T
        for position, token in zip(np.flatnonzero(real), self.tokens[:length]):
            labels[position] = token
        q, k, v = x @ self.W_Q, x @ self.W_K, x @ self.W_V  # (T, d_model) each
        _, weights = scaled_dot_product_attention(q, k, v, mask)  # (T, T)
        return mask, real, labels, weights

    def layout_for(self, T):
        """``(figsize, mask_rect, weights_rect)`` for T positions: the figure's width and height in inches, and each
        panel's (left, bottom, width, height) in figure fractions, a square of ``max(T * cell_inches,
        min_panel_inches)``."""
        m = self.margins_inches
        panel = max(T * self.cell_inches, self.min_panel_inches)
        width = m["left"] + panel + m["gap"] + panel + m["right"]
        height = m["top"] + panel + m["bottom"]
        mask_rect = (m["left"] / width, m["bottom"] / height, panel / width, panel / height)
        weights_rect = ((m["left"] + panel + m["gap"]) / width, m["bottom"] / height, panel / width, panel / height)
        return (width, height), mask_rect, weights_rect

    def build(self, fig):
        n = self.max_T
        self.ax_mask, self.ax_weights = fig.add_axes((0.1, 0.2, 0.35, 0.6)), fig.add_axes((0.55, 0.2, 0.35, 0.6))
        blank = np.full((n, n), np.nan)
        # False = the blocked cells' grey, True = blue; nan = an unused cell, white
        mask_cmap = ListedColormap([style.BLOCKED_CELL_STYLE["facecolor"], style.BLUE]).with_extremes(bad="white")
        weight_cmap = colormaps[style.HEATMAP_CMAP].with_extremes(bad="white")
        self.mask_image = self.ax_mask.imshow(blank, cmap=mask_cmap, vmin=0, vmax=1, aspect="equal")
        self.weight_image = self.ax_weights.imshow(blank, cmap=weight_cmap, vmin=0, vmax=1, aspect="equal")
        self.mask_patches = blocked_cell_grid(self.ax_mask, n)
        self.weight_patches = blocked_cell_grid(self.ax_weights, n)
        self.cell_texts = np.empty((n, n), dtype=object)
        for i, j in np.ndindex(n, n):
            self.cell_texts[i, j] = self.ax_weights.text(
                j, i, "", ha="center", va="center", fontsize=style.FONT_CELL_DENSE, zorder=3,
            )
        # the row sums sit right of the weights panel, in axes x (1 = its right edge) and data y (the rows)
        beside = self.ax_weights.get_yaxis_transform()
        self.row_sums = [
            self.ax_weights.text(1.03, i, "", ha="left", va="center", fontsize=style.FONT_SMALL, clip_on=False,
                                 transform=beside)
            for i in range(n)
        ]
        self.ax_weights.text(1.03, 1.01, "row sum", ha="left", va="bottom", fontsize=style.FONT_SMALL, clip_on=False,
                             transform=self.ax_weights.transAxes)
        self.frames = []
        for ax, title in [(self.ax_mask, "mask: may the query attend to the key?"),
                          (self.ax_weights, "attention weights")]:
            ax.set_title(title, fontsize=style.FONT_TITLE)
            ax.set_xlabel("key (attended to)")
            ax.set_ylabel("query (attending)")
            ax.tick_params(labelsize=style.FONT_SMALL)
            frame = Rectangle((-0.5, -0.5), n, n, fill=False, edgecolor="black", linewidth=1.2, zorder=4)
            ax.add_patch(frame)
            self.frames.append(frame)
        fig.legend(
            handles=[Patch(facecolor=style.BLUE, label="may attend (True)"),
                     Patch(label="masked out (False)", **style.BLOCKED_CELL_STYLE)],
            loc="lower center", ncol=2, frameon=False, fontsize=style.FONT_NOTE,
        )
        # above the legend (they never overlap): the legend stays in the cached background
        self.summary = fig.text(0.5, 0.97, "", ha="center", va="top", fontsize=style.FONT_TITLE, zorder=6)
        axis_below(self.ax_mask, self.ax_weights)  # tick labels in the cached background, under the images

    def dynamic_artists(self):
        """The two images, the numbers, the row sums, the frames, the summary line (the hatched cells, drawn after
        the images, are drawn again with them)."""
        return [self.mask_image, self.weight_image, *self.cell_texts.flat, *self.row_sums, *self.frames, self.summary]

    def background_key(self, length, padding, causal, side):
        """The tick labels (and the figure's size) follow the sequence: its length, padding and side."""
        return length, padding, side

    def draw(self, length, padding, causal, side):
        mask, real, labels, weights = self.compute(length, padding, causal, side)
        n, T = self.max_T, length + padding
        for image, data in ((self.mask_image, mask), (self.weight_image, weights)):
            shown = np.full((n, n), np.nan)  # nan: an unused cell, white
            shown[:T, :T] = data
            image.set_data(shown)
        blocked = np.zeros((n, n), dtype=bool)
        blocked[:T, :T] = ~mask
        colours = cell_text_colour(self.weight_image, weights)  # (T, T): every number's colour in one call
        for (i, j), is_blocked in np.ndenumerate(blocked):
            self.mask_patches[i, j].set_visible(is_blocked)
            self.weight_patches[i, j].set_visible(is_blocked)
            text = self.cell_texts[i, j]
            if i < T and j < T and mask[i, j]:
                text.set_text(f"{weights[i, j]:.2f}")
                text.set_color(str(colours[i, j]))
            else:
                text.set_text("")
        sums = weights.sum(axis=-1)  # (T,)
        for i, text in enumerate(self.row_sums):
            if i >= T:
                text.set_text("")
            elif mask[i].any():
                text.set_text(f"{sums[i]:.2f}")
                text.set_color("black")
            else:
                text.set_text(f"{sums[i]:.2f} no key")
                text.set_color(style.VERMILLION)
        figsize, mask_rect, weights_rect = self.layout_for(T)
        self.fig.set_size_inches(*figsize)
        self.summary.set_y(1.0 - 0.15 / figsize[1])  # 0.15 in below the top edge, whatever the height
        for ax, rect in ((self.ax_mask, mask_rect), (self.ax_weights, weights_rect)):
            ax.set_position(rect)
            ax.set_xlim(-0.5, T - 0.5)  # exactly the T positions: nothing blank
            ax.set_ylim(T - 0.5, -0.5)  # row 0 at the top
            ax.set_xticks(range(T), labels, rotation=45, ha="right", rotation_mode="anchor")
            ax.set_yticks(range(T), labels)
        for frame in self.frames:
            frame.set_width(T)
            frame.set_height(T)
        empty = int((~mask.any(axis=-1)).sum())
        self.summary.set_text(
            f"T = {T}: {length} real + {padding} padding ({side}), causal mask {'on' if causal else 'off'}; "
            f"rows with no permitted key: {empty}"
        )
        self.summary.set_color(style.VERMILLION if empty else "black")
        self.mask, self.real, self.labels, self.weights, self.empty_rows = mask, real, labels, weights, empty
        self.drawn = dict(length=length, padding=padding, causal=causal, side=side)

    def describe(self):
        d, T = self.drawn, len(self.labels)
        sums = self.weights.sum(axis=-1)  # (T,)
        return (
            f"T = {T} positions: {d['length']} real tokens and {d['padding']} padding on the {d['side']}, causal mask "
            f"{'on' if d['causal'] else 'off'}; rows with no permitted key: {self.empty_rows}. Left: the mask, blue "
            "where the query may attend, hatched grey where it is masked out (the masked cells below). Right, "
            f"{heatmap_phrase(self.weights, self.labels, self.labels, allowed=self.mask)}. "
            f"Row sums: {labelled_values(self.labels, sums, 2)}."
        )


class MaskBeforeAfterDashboard(Dashboard):
    """Mask before the softmax, zero after it, or zero and renormalise: weights and row sums.

    Scores of ``tokens`` (stand-in projections of ``seed``), causal mask. Controls: ``method`` ("before", "zero",
    "renormalise"; see ``masked_weights``) and ``hidden``, a number added to the scores of the hidden (later) keys,
    which changes the visible weights only with "zero" (whose rows no longer sum to one either).

    Attributes
    ----------
    scores : ndarray, shape (T, T)
        The scaled scores before any mask (``hidden`` not added).
    mask : ndarray of bool, shape (T, T)
    weights : ndarray, shape (T, T)
        The weights drawn now.
    row_totals : ndarray, shape (T,)
        Their row sums.
    leak : float
        The largest change of a visible weight caused by ``hidden`` (0 for "before"/"renormalise").
    heatmap : course_utils.plots.Heatmap, bars : BarContainer (row sums), bar_texts : list of Text,
    summary : Text
    """

    figsize = (11.0, 5.0)
    name_in_words = "Masking before or after the softmax dashboard"

    def __init__(self, tokens=TICKET, method="before", hidden=0.0, seed=0):
        self.tokens = tuple(str(t) for t in tokens)
        x = embed(self.tokens)  # (T, d_model); KeyError for unknown tokens
        if method not in MASKING_METHODS:
            raise ValueError(f"method must be one of {list(MASKING_METHODS)}; got {method!r}")
        W_Q, W_K, _ = stand_in_projections(3, len(FEATURES), seed)
        q, k = x @ W_Q, x @ W_K  # (T, d_model) each
        self.scores = q @ k.T / np.sqrt(k.shape[-1])  # (T, T)
        self.mask = causal_mask(len(self.tokens))  # (T, T)
        self._initial = dict(method=method, hidden=float(hidden))
        super().__init__()

    def make_controls(self):
        return {
            "method": toggle_buttons([(label, key) for key, label in MASKING_METHODS.items()],
                                     self._initial["method"]),
            "hidden": float_slider(
                "add to the scores of the hidden (later) keys", self._initial["hidden"],
                min=-3.0, max=3.0, step=0.5,
            ),
        }

    def weights_for(self, method, hidden):
        """The (T, T) weights for a method, with ``hidden`` added to the blocked scores."""
        scores = np.where(self.mask, self.scores, self.scores + hidden)  # (T, T)
        return masked_weights(scores, self.mask, method)

    def build(self, fig):
        T = len(self.tokens)
        grid = fig.add_gridspec(1, 2, width_ratios=[1.3, 1.0], left=0.1, right=0.97, bottom=0.2,
                                top=0.84, wspace=0.45)
        ax_heat, self.ax_bars = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])
        start = self.weights_for(self._initial["method"], self._initial["hidden"])
        self.heatmap = attention_heatmap(start, self.tokens, self.tokens, ax=ax_heat, mask=self.mask,
                                         title="attention weights")
        y = np.arange(T)
        self.bars = self.ax_bars.barh(y, np.ones(T), color=style.BLUE, height=0.6)
        self.ax_bars.axvline(1.0, color="black", linestyle="--", linewidth=1)
        self.ax_bars.set_xlim(0.0, 1.25)
        self.ax_bars.set_ylim(T - 0.5, -0.5)  # row 0 at the top, as in the heatmap
        self.ax_bars.set_yticks(y, self.tokens)
        self.ax_bars.set_xlabel("sum of the row's weights")
        self.ax_bars.set_ylabel("query (attending)")
        self.ax_bars.set_title("row sums (dashed: 1)", fontsize=style.FONT_TITLE)
        self.ax_bars.spines[["top", "right"]].set_visible(False)
        self.bar_texts = [self.ax_bars.text(0, i, "", va="center", ha="left", fontsize=style.FONT_CELL) for i in y]
        self.summary = fig.text(0.5, 0.975, "", ha="center", va="top", fontsize=style.FONT_LABEL)
        axis_below(ax_heat, self.ax_bars)  # tick labels in the cached background, under the image and bars

    def dynamic_artists(self):
        heatmap = self.heatmap
        return [heatmap.image, *(t for t in heatmap.cell_texts.flat if t is not None), *self.bars.patches,
                *self.bar_texts, self.summary]

    def draw(self, method, hidden):
        weights = self.weights_for(method, hidden)
        reference = self.weights_for(method, 0.0)
        update_heatmap(self.heatmap, weights)
        totals = weights.sum(axis=-1)  # (T,)
        for bar, text, total in zip(self.bars, self.bar_texts, totals):
            bar.set_width(total)
            text.set_x(total + 0.02)
            text.set_text(f"{total:.3f}")
        self.leak = float(np.abs(weights - reference)[self.mask].max())
        self.weights, self.row_totals = weights, totals
        self.summary.set_text(
            f"{MASKING_METHODS[method]}: hidden scores {hidden:+.1f}; the visible weights moved by up to "
            f"{self.leak:.3f} (compared with hidden scores +0.0)"
        )
        self.summary.set_color(style.VERMILLION if self.leak > 1e-12 else "black")
        self.method, self.hidden = method, hidden

    def describe(self):
        return (
            f"Method “{MASKING_METHODS[self.method]}”, with {fixed(self.hidden, 1)} added to the scores of the hidden (later) "
            f"keys. Left, {heatmap_phrase(self.weights, self.tokens, self.tokens, allowed=self.mask)}. Right, bar "
            f"chart of the row sums (dashed line at 1): {labelled_values(self.tokens, self.row_totals, 3)}. The "
            f"visible weights moved by up to {fixed(self.leak, 3)} compared with adding 0."
        )
