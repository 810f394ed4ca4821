"""The notebook-01 dashboard: three score sliders, the weights and the output in the values' triangle."""
import numpy as np

from course_utils import style
from course_utils.alt_text import fixed, labelled_values, number
from course_utils.attention import attention_row
from course_utils.lessons.data import ARTICLE_SCORES, ARTICLE_TOKENS, ARTICLE_VALUES
from course_utils.plots import (
    attention_row_bars,
    update_row_bars,
    update_value_hull,
    value_hull_plot,
)
from course_utils.widgets._base import Dashboard, axis_below, float_slider

__all__ = ["AttentionRowDashboard"]


class AttentionRowDashboard(Dashboard):
    """One query's attention (``attention_row``): a slider per score, the weights as bars (left), the output
    ``weights @ values`` as a star that stays inside the triangle of values (right).

    Parameters
    ----------
    values : array_like, shape (T, 2)
        One 2-D value vector per key. Default: the article's example.
    scores : array_like, shape (T,)
        Initial scores, each in [-5, 5]. Default: the article's [2, 1, 0].
    labels : sequence of str, length T
        Default ("token 1", "token 2", "token 3").

    Attributes
    ----------
    weights : ndarray, shape (T,)
        The weights currently drawn.
    output : ndarray, shape (2,)
        The output currently drawn.
    bars : BarContainer
    hull : dict
        The artists of ``value_hull_plot``.
    summary : matplotlib.text.Text

    Controls are named ``score_1`` ... ``score_T``: ``dashboard.set(score_1=-1.0)``.
    """

    figsize = (10.0, 4.6)
    score_range = (-5.0, 5.0)

    def __init__(self, values=ARTICLE_VALUES, scores=ARTICLE_SCORES, labels=ARTICLE_TOKENS):
        output, weights = attention_row(scores, values)  # validates shapes, NaN, ...
        self.value_vectors = np.array(values, dtype=float)  # (T, 2)
        if self.value_vectors.shape[1] != 2:
            raise ValueError(
                f"values must have shape (T, 2) to be drawn in the plane; got shape "
                f"{self.value_vectors.shape}"
            )
        self.initial_scores = np.array(scores, dtype=float)  # (T,)
        self.labels = [str(label) for label in labels]
        if len(self.labels) != len(self.initial_scores):
            raise ValueError(
                f"labels has {len(self.labels)} labels but scores has T={len(self.initial_scores)} "
                f"entries (scores shape {self.initial_scores.shape})"
            )
        self.weights, self.output = weights, output
        super().__init__()

    def make_controls(self):
        low, high = self.score_range
        return {
            f"score_{i}": float_slider(f"score of {label}", float(score), min=low, max=high, step=0.1)
            for i, (label, score) in enumerate(zip(self.labels, self.initial_scores), start=1)
        }

    def build(self, fig):
        grid = fig.add_gridspec(1, 2, left=0.07, right=0.97, bottom=0.22, top=0.86, wspace=0.3)
        ax_bars, ax_hull = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])
        self.bars = attention_row_bars(
            self.weights, self.labels, ax=ax_bars, title="weights = softmax(scores)"
        )
        self.hull = value_hull_plot(self.value_vectors, self.weights, self.labels, ax=ax_hull)
        axis_below(ax_bars)  # its ticks in the cached background, under the bars
        self.summary = fig.text(0.5, 0.03, "", ha="center", va="bottom", fontsize=style.FONT_TITLE,
                                family="monospace")

    def dynamic_artists(self):
        hull = self.hull
        return [*self.bars.patches, *self.bars.value_labels, *hull["spokes"], hull["output"], hull["output_label"],
                self.summary]

    def scores_from(self, control_values):
        """The scores, shape (T,), in key order, from control values by name."""
        return np.array([control_values[f"score_{i}"] for i in range(1, len(self.labels) + 1)])

    def draw(self, **control_values):
        output, weights = attention_row(self.scores_from(control_values), self.value_vectors)
        update_row_bars(self.bars, weights)
        update_value_hull(self.hull, weights)
        fmt = ", ".join
        self.summary.set_text(
            f"weights = [{fmt(f'{w:.3f}' for w in weights)}]    "
            f"output = [{fmt(f'{o:.3f}' for o in output)}]"
        )
        self.weights, self.output = weights, output

    def describe(self):
        scores = self.scores_from(self.values)
        values = ", ".join(f"{label} ({number(v[0])}, {number(v[1])})" for label, v in zip(self.labels, self.value_vectors))
        return (
            f"Left, bar chart “weights = softmax(scores)”: the scores {', '.join(fixed(s, 1) for s in scores)} give the "
            f"weights {labelled_values(self.labels, self.weights, 3)}. Right: the value vectors {values} as points, "
            f"their convex hull shaded, and the output weights @ values = ({fixed(self.output[0], 3)}, "
            f"{fixed(self.output[1], 3)}) as a star inside it; grey lines join each value to the output, thicker for a "
            "larger weight."
        )
