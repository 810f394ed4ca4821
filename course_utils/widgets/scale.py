"""The notebook-07 dashboard: the online softmax of one query row, block by block."""
import ipywidgets
import numpy as np

from course_utils import style
from course_utils.alt_text import fixed, labelled_values
from course_utils.lessons.data import ONLINE_SCORES
from course_utils.lessons.online_softmax import online_states
from course_utils.softmax import softmax
from course_utils.widgets._base import Dashboard, axis_below, slider

__all__ = ["OnlineSoftmaxDashboard"]

#: Score bars: the blocks already processed, the block just added, the keys not reached yet.
_DONE, _NEW, _LATER = style.BLUE, style.ORANGE, style.LIGHT_GREY


class OnlineSoftmaxDashboard(Dashboard):
    """Block size and step sliders over one query row's scores: the running maximum and normaliser.

    Left: the scores, blue for the blocks processed, orange for the block just added, grey for the rest; dashed:
    the running maximum m. Right: the weights known so far, ``exp(score - m) / l`` (bars), against the final
    softmax weights (ticks): they agree once every block is in (``lessons.online_softmax.online_states``).

    Parameters
    ----------
    scores : array_like, shape (T,)
        One query's scores. Default: ``ONLINE_SCORES`` (12 keys).

    Attributes
    ----------
    m, l : float
        The running maximum and normaliser currently drawn.
    score_bars, weight_bars : BarContainer
    max_line : Line2D
    summary : matplotlib.text.Text

    Controls: ``block_size`` (1 .. T) and ``step`` (blocks processed; its maximum follows the block size).
    """

    figsize = (8.0, 3.4)

    def __init__(self, scores=ONLINE_SCORES):
        self.scores = np.array(scores, dtype=float)  # (T,)
        if self.scores.ndim != 1 or self.scores.size == 0 or not np.isfinite(self.scores).all():
            raise ValueError(f"scores must be a non-empty 1-D array of finite numbers; got shape {self.scores.shape}")
        self.final_weights = softmax(self.scores)  # (T,)
        super().__init__()

    def make_controls(self):
        t = len(self.scores)
        return {
            "block_size": slider(ipywidgets.IntSlider, "block size", 380, value=min(4, t), min=1, max=t),
            "step": slider(ipywidgets.IntSlider, "blocks processed", 380, value=1, min=0, max=-(-t // min(4, t))),
        }

    def build(self, fig):
        t = len(self.scores)
        grid = fig.add_gridspec(1, 2, left=0.08, right=0.98, bottom=0.25, top=0.88, wspace=0.28)
        ax_s, ax_w = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])
        keys = np.arange(1, t + 1)
        self.score_bars = ax_s.bar(keys, self.scores, color=_LATER)
        self.max_line = ax_s.axhline(0.0, color="black", linestyle="--", linewidth=1.2)
        ax_s.axhline(0.0, color=style.GREY, linewidth=0.6)
        ax_s.set(title="scores; dashed: running max m", xlabel="key", xticks=keys)
        ax_s.set_ylim(min(0.0, self.scores.min()) - 0.3, self.scores.max() + 0.6)
        self.weight_bars = ax_w.bar(keys, np.zeros(t), color=_DONE)
        ax_w.plot(keys, self.final_weights, "_", color="black", markersize=14, markeredgewidth=2)
        ax_w.set(title="exp(score - m) / l so far; ticks: final", xlabel="key", xticks=keys)
        ax_w.set_ylim(0, 1.05)
        for ax in (ax_s, ax_w):
            ax.tick_params(labelsize=style.FONT_SMALL)
            ax.title.set_fontsize(style.FONT_LABEL)
        self.summary = fig.text(0.5, 0.03, "", ha="center", va="bottom", fontsize=style.FONT_LABEL,
                                family="monospace")
        axis_below(ax_s, ax_w)  # ticks in the cached background, under the bars

    def dynamic_artists(self):
        return [*self.score_bars.patches, self.max_line, *self.weight_bars.patches, self.summary]

    def draw(self, block_size, step):
        t = len(self.scores)
        n_blocks = -(-t // block_size)
        self._set_maximum("step", n_blocks)
        step = min(step, n_blocks)
        m, l = online_states(self.scores, block_size)[step]
        seen = min(step * block_size, t)  # keys processed so far
        new_from = (step - 1) * block_size if step else seen
        for j, bar in enumerate(self.score_bars):
            bar.set_color(_DONE if j < new_from else _NEW if j < seen else _LATER)
        so_far = np.zeros(t)
        if l > 0:
            so_far[:seen] = np.exp(self.scores[:seen] - m) / l  # (seen,)
        for bar, height in zip(self.weight_bars, so_far):
            bar.set_height(height)
        self.max_line.set_visible(np.isfinite(m))
        if np.isfinite(m):
            self.max_line.set_ydata([m, m])
        self.summary.set_text(
            f"after {step} of {n_blocks} blocks: m = {m:.2f}, l = {l:.3f}"
            + ("   (all keys: exact softmax)" if step == n_blocks else "")
        )
        self.m, self.l = m, l
        self.drawn = dict(block_size=block_size, step=step, n_blocks=n_blocks, seen=seen, new_from=new_from,
                          so_far=so_far)

    def describe(self):
        d, t = self.drawn, len(self.scores)
        keys = [str(j) for j in range(1, t + 1)]
        progress = []
        if d["new_from"] > 0:
            progress.append(f"keys 1 to {d['new_from']} processed before (blue)")
        if d["seen"] > d["new_from"]:
            progress.append(f"keys {d['new_from'] + 1} to {d['seen']} the block just added (orange)")
        progress = ", ".join(progress) or "no key processed yet"
        done = "; all keys are in: the exact softmax" if d["step"] == d["n_blocks"] else ""
        m = "minus infinity" if not np.isfinite(self.m) else fixed(self.m, 2)
        return (
            f"Block size {d['block_size']}: {d['step']} of {d['n_blocks']} blocks processed; running maximum m = {m}, "
            f"normaliser l = {fixed(self.l, 3)}{done}. Left, bar chart of the {t} scores by key, {progress}, the "
            f"others grey, a dashed line at m: {labelled_values(keys, self.scores, 1)}. Right, bar chart of the "
            f"weights known so far, exp(score - m) / l (0 for keys not reached): {labelled_values(keys, d['so_far'], 3)}; "
            f"ticks at the final softmax weights: {labelled_values(keys, self.final_weights, 3)}."
        )
