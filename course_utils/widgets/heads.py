"""The notebook-04 dashboard, ``HeadsDashboard``: how many heads, which head, and every head's attention weights,
computed with the reference ``split_heads``, ``scaled_dot_product_attention`` and ``merge_heads``.
"""
import ipywidgets
import numpy as np
from matplotlib.patches import Rectangle

from course_utils import style
from course_utils.alt_text import colour_scale, fixed, heatmap_phrase, number
from course_utils.attention import scaled_dot_product_attention
from course_utils.lessons.data import TICKET, embed_wide, random_projections
from course_utils.lessons.heads import head_columns
from course_utils.masks import causal_mask
from course_utils.multihead import merge_heads, split_heads
from course_utils.plots import attention_heatmap, blocked_cell_grid, update_heatmap, weight_colorbar
from course_utils.widgets._base import Dashboard, axis_below, slider

__all__ = ["HeadsDashboard", "HEAD_OPTIONS"]

#: The numbers of heads the slider offers (each divides d_model = 8).
HEAD_OPTIONS = (1, 2, 4, 8)


def _check_heads(num_heads, head):
    if num_heads not in HEAD_OPTIONS:
        raise ValueError(f"num_heads={num_heads!r} is not one of the slider's values {HEAD_OPTIONS}")
    if not 0 <= head < num_heads:
        raise ValueError(f"head={head!r} must lie in [0, {num_heads - 1}] for num_heads={num_heads}")


class HeadsDashboard(Dashboard):
    """Every head's attention weights for 1, 2, 4 or 8 heads of one fixed set of matrices.

    ``tokens`` (default: the ticket "my charger is missing please") through ``embed_wide`` (d_model = 8, seeded by
    ``embedding_seed``) and W_Q, W_K, W_V, W_O of ``random_projections(seed)``. Top: every head's weights (8 small
    heatmaps, the unused ones hidden). Bottom left: the selected head, large, with its numbers and a colour bar.
    Bottom right: the heads' outputs side by side, (T, d_model), before W_O, the selected head's columns outlined.
    The matrices never change: ``num_heads`` only decides how their 8 columns are cut into heads, so the parameter
    count stays 4 * 8 * 8.

    Attributes
    ----------
    x : ndarray, shape (T, d_model)
    W_Q, W_K, W_V, W_O : ndarray, shape (d_model, d_model)
    weights : ndarray, shape (num_heads, T, T)
        Every head's weights, as drawn now.
    concat : ndarray, shape (T, d_model)
        The heads' outputs side by side, before W_O.
    output : ndarray, shape (T, d_model)
        ``concat @ W_O``, the multi-head output.
    mask : ndarray of bool, shape (T, T), or None
    head : int
        The head drawn large (the slider's value, clamped to num_heads - 1).
    small_axes, small_images : lists of length 8
        The small heatmaps; only the first num_heads are visible.
    big_heatmap : course_utils.plots.Heatmap
    weight_bar : matplotlib.colorbar.Colorbar
    concat_image : AxesImage
    block_lines : list of 7 Line2D
        Separators between the heads' column blocks in the concatenation.
    selection_box : Rectangle
    summary : Text

    Controls: ``num_heads`` (1, 2, 4, 8), ``head`` (its maximum follows num_heads - 1) and ``causal``.
    """

    figsize = (12.0, 7.0)
    name_in_words = "Multi-head attention dashboard"
    max_heads = max(HEAD_OPTIONS)

    def __init__(self, tokens=TICKET, num_heads=4, head=0, causal=False, seed=0, embedding_seed=0):
        self.tokens = tuple(str(t) for t in tokens)
        if not self.tokens:
            raise ValueError("tokens is empty; give at least one token")
        _check_heads(num_heads, head)
        self.x = embed_wide(self.tokens, seed=embedding_seed)  # (T, d_model); KeyError for unknown tokens
        self.d_model = self.x.shape[-1]
        self.W_Q, self.W_K, self.W_V, self.W_O = random_projections(self.d_model, seed)
        self._initial = dict(num_heads=int(num_heads), head=int(head), causal=bool(causal))
        self._computed = {}  # (num_heads, causal) -> compute's results
        # The concatenation's colour scale: fixed over every layout, so colours compare.
        largest = max(np.abs(self.compute(h, causal)[1]).max() for h in HEAD_OPTIONS for causal in (False, True))
        self._concat_limit = float(np.ceil(largest))
        super().__init__()

    # ---------------------------------------------------------------- numbers
    def compute(self, num_heads, causal):
        """(weights (h, T, T), concat (T, d_model), output (T, d_model), mask) with the reference code, computed once
        per (num_heads, causal) and kept (read-only arrays): a ``head`` move changes none of them."""
        key = (int(num_heads), bool(causal))
        num_heads, causal = key
        if key not in self._computed:
            mask = causal_mask(len(self.tokens)) if causal else None
            q, k, v = (split_heads(self.x @ W, num_heads) for W in (self.W_Q, self.W_K, self.W_V))  # (h, T, d_head)
            heads, weights = scaled_dot_product_attention(q, k, v, mask)  # (h, T, d_head), (h, T, T)
            concat = merge_heads(heads)  # (T, h * d_head) = (T, d_model)
            output = concat @ self.W_O  # (T, d_model), as multi_head_attention gives
            for array in (weights, concat, output, mask):
                if array is not None:
                    array.setflags(write=False)
            self._computed[key] = weights, concat, output, mask
        return self._computed[key]

    # ---------------------------------------------------------------- controls
    def make_controls(self):
        init = self._initial
        return {
            "num_heads": slider(ipywidgets.SelectionSlider, "number of heads", 380, options=list(HEAD_OPTIONS),
                                value=init["num_heads"]),
            "head": slider(ipywidgets.IntSlider, "selected head", 380, value=init["head"], min=0, max=init["num_heads"] - 1),
            "causal": ipywidgets.Checkbox(
                value=init["causal"], description="causal mask (shared by every head)", indent=False,
            ),
        }

    def set(self, **values):
        """``Dashboard.set``, with a new ``num_heads`` applied first, so ``head`` may use the range it allows
        (``set(num_heads=8, head=5)``); a num_heads not in ``HEAD_OPTIONS`` is a ValueError too."""
        self._check_names(values)
        if "num_heads" in values:
            _check_heads(values["num_heads"], values.get("head", 0))
            self._set_maximum("head", values["num_heads"] - 1)  # the head slider's range for the new number
        return super().set(**values)

    # ---------------------------------------------------------------- figure
    def build(self, fig):
        T, n = len(self.tokens), self.max_heads
        blank = np.zeros((T, T))
        # Top: one small heatmap per head, at most 8 in a row (ticks would crowd them; the large
        # heatmap below has the labels). The unused ones are hidden.
        top = fig.add_gridspec(1, n, left=0.03, right=0.99, bottom=0.66, top=0.88, wspace=0.3)
        self.small_axes, self.small_images, self.small_hatches = [], [], []
        for i in range(n):
            ax = fig.add_subplot(top[0, i])
            image = ax.imshow(blank, cmap=style.HEATMAP_CMAP, vmin=0.0, vmax=1.0, aspect="equal")
            ax.set_xticks([])
            ax.set_yticks([])
            self.small_axes.append(ax)
            self.small_images.append(image)
            self.small_hatches.append(blocked_cell_grid(ax, T))
        bottom = fig.add_gridspec(1, 2, left=0.1, right=0.97, bottom=0.14, top=0.55, wspace=0.28,
                                  width_ratios=[1.0, 1.25])
        self.ax_big = fig.add_subplot(bottom[0, 0])
        self.big_heatmap = attention_heatmap(blank, self.tokens, self.tokens, ax=self.ax_big, annotate=True)
        self.big_hatches = blocked_cell_grid(self.ax_big, T)
        # What a shade means, 0 to 1: static, so it stays in the cached background (no dynamic artist in its axes).
        self.weight_bar = weight_colorbar(self.big_heatmap, shrink=0.8, pad=0.03)
        self.ax_concat = fig.add_subplot(bottom[0, 1])
        limit = self._concat_limit
        self.concat_image = self.ax_concat.imshow(
            np.zeros((T, self.d_model)), cmap=style.SIGNED_CMAP, vmin=-limit, vmax=limit, aspect="equal",
        )
        self.ax_concat.set_yticks(range(T), self.tokens)
        self.ax_concat.set_xticks(range(self.d_model))
        self.ax_concat.set_xlabel(f"column of the concatenation (d_model = {self.d_model})")
        fig.colorbar(self.concat_image, ax=self.ax_concat, shrink=0.8, pad=0.02, label="head output entry")
        self.block_lines = [
            self.ax_concat.axvline(j - 0.5, color="black", linewidth=2.0) for j in range(1, self.d_model)
        ]
        self.selection_box = Rectangle(
            (-0.5, -0.5), 1.0, T, fill=False, edgecolor=style.VERMILLION, linewidth=3.0, zorder=4, clip_on=False,
        )
        self.ax_concat.add_patch(self.selection_box)
        self.summary = fig.text(0.5, 0.99, "", ha="center", va="top", fontsize=style.FONT_TITLE)
        fig.text(0.5, 0.945,
                 "every head's weights (rows: queries, columns: keys, in the order and colour scale of the large plot)",
                 ha="center", va="top", fontsize=style.FONT_NOTE, color=style.DARK_GREY)
        axis_below(self.ax_big, self.ax_concat)  # tick labels in the cached background, under the images

    def dynamic_artists(self):
        """What the selected head changes: the small heatmaps' frames and titles, the large heatmap (image, numbers,
        title; its hatched cells are drawn again with it), the concatenation's title and outline.

        The rest depends on (num_heads, causal) alone (``background_key``), so it stays in the cached background:
        a move to a state seen before draws 66 artists, not the 96 of a whole update (issue 14).
        """
        texts = [t for t in self.big_heatmap.cell_texts.flat if t is not None]
        frames = [spine for ax in self.small_axes for spine in ax.spines.values()]
        return [*frames, *(ax.title for ax in self.small_axes), self.big_heatmap.image, *texts, self.ax_big.title,
                self.ax_concat.title, self.selection_box]

    def background_key(self, num_heads, head, causal):
        """(num_heads, causal): every head's weights, the hatching, the concatenation and its block lines, the summary
        line and the large heatmap's axis label; ``head`` changes only the dynamic artists."""
        return (num_heads, causal)

    def draw(self, num_heads, head, causal):
        self._set_maximum("head", num_heads - 1)
        head = min(int(head), num_heads - 1)
        weights, concat, output, mask = self.compute(num_heads, causal)
        T = len(self.tokens)
        d_head = self.d_model // num_heads
        blocked = np.zeros((T, T), dtype=bool) if mask is None else ~mask
        for i, (ax, image, hatches) in enumerate(zip(self.small_axes, self.small_images, self.small_hatches)):
            ax.set_visible(i < num_heads)
            if i >= num_heads:
                continue
            image.set_data(weights[i])
            for (r, c), is_blocked in np.ndenumerate(blocked):
                hatches[r, c].set_visible(is_blocked)
            selected = i == head
            for spine in ax.spines.values():
                spine.set_edgecolor(style.VERMILLION if selected else "black")
                spine.set_linewidth(3.0 if selected else 0.8)
            cols = head_columns(i, num_heads, self.d_model)
            ax.set_title(f"head {i}\ncolumns {cols.start}:{cols.stop}", fontsize=style.FONT_NOTE,
                         color=style.VERMILLION if selected else "black",
                         fontweight="bold" if selected else "normal")
        update_heatmap(self.big_heatmap, weights[head])
        for (r, c), is_blocked in np.ndenumerate(blocked):
            self.big_hatches[r, c].set_visible(is_blocked)
            if is_blocked:
                self.big_heatmap.cell_texts[r, c].set_text("")  # no number in a masked cell
        cols = head_columns(head, num_heads, self.d_model)
        self.ax_big.set_title(f"head {head} of {num_heads}, large", fontsize=style.FONT_TITLE, color=style.VERMILLION)
        self.ax_big.set_xlabel("key (attended to)" + ("; hatched = masked out" if causal else ""))
        self.concat_image.set_data(concat)
        for j, line in enumerate(self.block_lines, start=1):
            line.set_visible(j % d_head == 0)
        self.selection_box.set_x(cols.start - 0.5)
        self.selection_box.set_width(d_head)
        what = "the one head's output" if num_heads == 1 else f"the {num_heads} heads' outputs side by side"
        self.ax_concat.set_title(
            f"{what} (T x d_model), before W_O;\nhead {head} fills columns {cols.start}:{cols.stop}",
            fontsize=style.FONT_LABEL,
        )
        per_head = 3 * self.d_model * d_head + d_head * self.d_model
        self.summary.set_text(
            f"{num_heads} head{'s' if num_heads > 1 else ''} of width d_head = {d_head}: "
            f"{num_heads} x (3 x 8 x {d_head} + {d_head} x 8) = {num_heads * per_head} parameters in "
            f"W_Q, W_K, W_V, W_O; causal mask {'on' if causal else 'off'}"
        )
        self.weights, self.concat, self.output, self.mask, self.head = weights, concat, output, mask, head
        self.num_heads = num_heads

    def describe(self):
        T, h = len(self.tokens), self.num_heads
        d_head = self.d_model // h
        cols = head_columns(self.head, h, self.d_model)
        causal = self.mask is not None
        strongest = []
        for i, weights in enumerate(self.weights):
            shown = weights if self.mask is None else np.where(self.mask, weights, -np.inf)
            pairs = ", ".join(f"{q} → {self.tokens[int(np.argmax(row))]} {fixed(row.max(), 2)}"
                              for q, row in zip(self.tokens, shown))
            strongest.append(f"head {i}: {pairs}")
        return (
            f"{h} head{'s' if h > 1 else ''} of width d_head = {d_head} (the same {4 * self.d_model * self.d_model} "
            f"parameters in W_Q, W_K, W_V, W_O), causal mask {'on' if causal else 'off'}. Top: a small heatmap of "
            f"each head's weights; each query's largest weight, head by head: {'; '.join(strongest)}. Bottom left, "
            f"head {self.head} large, {heatmap_phrase(self.weights[self.head], self.tokens, self.tokens, allowed=self.mask)} "
            f"(colour bar: attention weight from {colour_scale(style.HEATMAP_CMAP, 0.0, 1.0)}, for every heatmap above too). "
            f"Bottom right: the heads' outputs side by side before W_O, {T} × {self.d_model} values from "
            f"{number(self.concat.min())} to {number(self.concat.max())} (colour bar from {number(-self._concat_limit)} "
            f"to {number(self._concat_limit)}); head {self.head} fills columns {cols.start}:{cols.stop}."
        )
