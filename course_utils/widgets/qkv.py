"""The notebook-02 dashboard: a d_k slider and a scale toggle over one seeded random attention row."""
import ipywidgets
import numpy as np

from course_utils import style
from course_utils.alt_text import fixed, labelled_values
from course_utils.lessons.scaling import DEFAULT_MAX_D_K, entropy, query_and_keys, row_weights
from course_utils.plots import attention_row_bars, update_row_bars
from course_utils.widgets._base import Dashboard, axis_below, slider

__all__ = ["ScalingDashboard", "D_K_OPTIONS"]

#: The key widths the slider offers: powers of two from 1 to 1024.
D_K_OPTIONS = tuple(2**i for i in range(11))


class ScalingDashboard(Dashboard):
    """One random query against T random keys: the scores and the softmax weights, for any d_k.

    The query and keys are the first d_k standard-normal coordinates of fixed seeded vectors
    (``lessons.scaling.query_and_keys``), so the d_k slider adds coordinates to the same vectors. Unscaled, the
    scores spread like sqrt(d_k) and the weights pile onto one key; divided by sqrt(d_k), they stay spread out.

    ``num_keys`` is T, the number of keys (bars); ``d_k`` must be one of ``D_K_OPTIONS``.

    Attributes
    ----------
    weights : ndarray, shape (T,)
        The weights currently drawn.
    scores : ndarray, shape (T,)
        The scores currently drawn (scaled or not, as the softmax received them).
    score_bars, weight_bars : BarContainer
    summary : matplotlib.text.Text

    Controls: ``d_k`` (powers of two) and ``scaled``: ``dashboard.set(d_k=256, scaled=True)``.
    """

    figsize = (10.0, 4.4)

    def __init__(self, d_k=64, scaled=False, num_keys=8, seed=0):
        if d_k not in D_K_OPTIONS:
            raise ValueError(f"d_k={d_k!r} is not one of the slider's values {D_K_OPTIONS}")
        self.initial_d_k, self.initial_scaled = int(d_k), bool(scaled)
        self.num_keys, self.seed = int(num_keys), int(seed)
        self.labels = [f"k{j}" for j in range(1, self.num_keys + 1)]
        # Validates num_keys and seed, and fixes the random vectors once.
        self._q_full, self._k_full = query_and_keys(DEFAULT_MAX_D_K, self.num_keys, self.seed)
        self.max_entropy = float(np.log(self.num_keys))
        super().__init__()

    def make_controls(self):
        d_k = slider(ipywidgets.SelectionSlider, "key width d_k", 420, options=list(D_K_OPTIONS), value=self.initial_d_k)
        scaled = ipywidgets.Checkbox(
            value=self.initial_scaled, description="divide the scores by \u221ad_k",
            indent=False,
        )
        return {"d_k": d_k, "scaled": scaled}

    def query_and_keys(self, d_k):
        """q (d_k,) and k (T, d_k): the first d_k coordinates of the dashboard's fixed vectors."""
        return self._q_full[:d_k], self._k_full[:, :d_k]

    def build(self, fig):
        grid = fig.add_gridspec(1, 2, left=0.08, right=0.98, bottom=0.2, top=0.86, wspace=0.28)
        self.ax_scores, ax_weights = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])
        x = np.arange(self.num_keys)
        self.score_bars = self.ax_scores.bar(x, np.zeros(self.num_keys), color=style.VERMILLION, width=0.6)
        self.ax_scores.axhline(0.0, color=style.DARK_GREY, linewidth=0.8)
        # Scores within a few units of each other still give a soft (spread) softmax.
        self.ax_scores.axhspan(-2.0, 2.0, color=style.LIGHT_GREY, zorder=0)
        self.ax_scores.text(0.01, 0.98, "grey band: scores from -2 to 2", transform=self.ax_scores.transAxes,
                            ha="left", va="top", fontsize=style.FONT_NOTE, color=style.DARK_GREY)
        self.ax_scores.set_xticks(x, self.labels)
        self.ax_scores.set_xlabel("key")
        self.ax_scores.set_ylabel("score given to softmax")
        self.ax_scores.spines[["top", "right"]].set_visible(False)
        self.weight_bars = attention_row_bars(
            np.full(self.num_keys, 1.0 / self.num_keys), self.labels, ax=ax_weights,
            title="weights = softmax(scores)",
        )
        self.summary = fig.text(0.5, 0.03, "", ha="center", va="bottom", fontsize=style.FONT_TITLE,
                                family="monospace")
        axis_below(self.ax_scores, ax_weights)  # ticks in the cached background, under the bars

    def dynamic_artists(self):
        bars = self.weight_bars
        return [*self.score_bars.patches, self.ax_scores.title, *bars.patches, *bars.value_labels, self.summary]

    def draw(self, d_k, scaled):
        q, k = self.query_and_keys(d_k)
        weights, scores = row_weights(q, k, scaled=scaled)  # (T,), (T,)
        for rect, s in zip(self.score_bars.patches, scores):
            rect.set_height(s)  # a negative height draws the bar downwards
        limit = max(3.0, 1.15 * float(np.abs(scores).max()))
        self.ax_scores.set_ylim(-limit, limit)
        self.ax_scores.set_title(
            ("scores = q\u00b7k / \u221ad_k" if scaled else "scores = q\u00b7k (unscaled)")
            + f"   spread (std) {scores.std():.2f}",
            pad=16,
        )
        update_row_bars(self.weight_bars, weights)
        h = float(entropy(weights))
        self.summary.set_text(
            f"d_k = {d_k}, {'scaled' if scaled else 'unscaled'}: largest weight {weights.max():.3f}, "
            f"entropy {h:.3f} nats (even spread: {self.max_entropy:.3f}, one key: 0)"
        )
        self.weights, self.scores, self.entropy = weights, scores, h
        self.d_k, self.scaled = d_k, scaled

    def describe(self):
        how = "divided by sqrt(d_k)" if self.scaled else "not divided by sqrt(d_k)"
        return (
            f"Key width d_k = {self.d_k}, scores {how}. Left, bar chart of the {self.num_keys} scores q·k"
            f"{' / sqrt(d_k)' if self.scaled else ''} (a grey band marks -2 to 2): "
            f"{labelled_values(self.labels, self.scores, 2)}; their spread (std) is {fixed(self.scores.std(), 2)}. "
            f"Right, bar chart of the weights softmax(scores): {labelled_values(self.labels, self.weights, 3)}. "
            f"Largest weight {fixed(self.weights.max(), 3)}, entropy {fixed(self.entropy, 3)} nats "
            f"(even spread: {fixed(self.max_entropy, 3)}, one key: 0)."
        )
