"""The notebook-05 dashboard, ``ValueScaleDashboard``: scale one value vector, watch the weights stay put and the
effects move (``attention_row`` and ``lessons.influence.removal_effects``)."""
import ipywidgets
import numpy as np

from course_utils import style
from course_utils.alt_text import fixed, labelled_values
from course_utils.attention import attention_row
from course_utils.lessons.data import EXPERIMENT_SCORES, EXPERIMENT_TOKENS, EXPERIMENT_VALUES
from course_utils.lessons.influence import removal_effects
from course_utils.plots import attention_row_bars, update_row_bars
from course_utils.widgets._base import Dashboard, axis_below, float_slider

__all__ = ["ValueScaleDashboard"]

#: The outline of the chosen key's bars.
_HIGHLIGHT = "black"


class ValueScaleDashboard(Dashboard):
    """Scale one key's value vector: the weights stay, the output and the removal effects change.

    Left: the attention weights (all a heatmap shows; they depend on the scores only). Right: each key's removal
    effect (mask the key, renormalise, recompute the output, take the length of the change). Controls: ``key``
    (whose value to scale) and ``scale`` (the factor, 0 to 3); every other key keeps its original value.

    Parameters
    ----------
    scores : array_like, shape (T,)
        One query's (already scaled) scores. Default: notebook 05's experiment.
    values : array_like, shape (T, d_v)
        One value vector per key. Default: notebook 05's experiment (d_v = 2).
    labels : sequence of str, length T
        The keys' tokens. Default: "my charger is missing please".

    Attributes
    ----------
    scores : ndarray, shape (T,)
    base_values : ndarray, shape (T, d_v)
        The values as given.
    weights : ndarray, shape (T,)
    values_now : ndarray, shape (T, d_v)
        The values drawn now (one row scaled).
    output : ndarray, shape (d_v,)
    effects : ndarray, shape (T,)
    weight_bars, effect_bars : BarContainer
    effect_labels : list of Annotation
    summary : Text
    """

    figsize = (11.0, 4.6)
    scale_range = (0.0, 3.0)

    def __init__(self, scores=EXPERIMENT_SCORES, values=EXPERIMENT_VALUES, labels=EXPERIMENT_TOKENS,
                 key="please", scale=1.0):
        output, weights = attention_row(scores, values)  # validates shapes and values
        self.scores = np.array(scores, dtype=float)  # (T,)
        self.base_values = np.array(values, dtype=float)  # (T, d_v)
        self.labels = [str(label) for label in labels]
        if len(self.labels) != len(self.scores):
            raise ValueError(
                f"labels has {len(self.labels)} labels but scores has T={len(self.scores)} entries "
                f"(scores shape {self.scores.shape})"
            )
        if len(set(self.labels)) != len(self.labels):
            raise ValueError(f"labels must be distinct to choose a key by name; got {self.labels}")
        if key not in self.labels:
            raise ValueError(f"key {key!r} is not one of the labels {self.labels}")
        low, high = self.scale_range
        if not low <= scale <= high:
            raise ValueError(f"scale={scale} lies outside [{low}, {high}]")
        self.weights, self.output = weights, output
        self._initial = dict(key=key, scale=float(scale))
        # A fixed y-range for the effects: the largest effect any key reaches at the largest factor.
        self.effect_max = max(
            float(removal_effects(self.scores, self._scaled(i, high)).max()) for i in range(len(self.labels))
        )
        super().__init__()

    def _scaled(self, index, scale):
        values = self.base_values.copy()
        values[index] = scale * values[index]  # (d_v,)
        return values

    def make_controls(self):
        low, high = self.scale_range
        return {
            "key": ipywidgets.ToggleButtons(
                options=self.labels, value=self._initial["key"], description="scale the value of",
                style={"description_width": "initial", "button_width": "80px"},
            ),
            "scale": float_slider("factor", self._initial["scale"], min=low, max=high, step=0.1),
        }

    def build(self, fig):
        grid = fig.add_gridspec(1, 2, left=0.07, right=0.98, bottom=0.13, top=0.8, wspace=0.22)
        ax_weights, self.ax_effects = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])
        self.weight_bars = attention_row_bars(
            self.weights, self.labels, ax=ax_weights, title="attention weights (what a heatmap shows)"
        )
        x = np.arange(len(self.labels))
        self.effect_bars = self.ax_effects.bar(x, np.zeros(len(x)), color=style.VERMILLION, width=0.6)
        self.ax_effects.set_xticks(x, self.labels)
        self.ax_effects.set_ylim(0.0, 1.15 * self.effect_max)
        self.ax_effects.set_xlabel("key")
        self.ax_effects.set_ylabel("|output - output without the key|")
        self.ax_effects.set_title("removal effects (what each key does)", pad=16)
        self.ax_effects.spines[["top", "right"]].set_visible(False)
        self.effect_labels = [
            self.ax_effects.annotate("", xy=(xi, 0.0), xytext=(0, 3), textcoords="offset points",
                                     ha="center", va="bottom", fontsize=style.FONT_LABEL,
                                     annotation_clip=False)
            for xi in x
        ]
        self.summary = fig.text(0.5, 0.975, "", ha="center", va="top", fontsize=style.FONT_TITLE)
        axis_below(ax_weights, self.ax_effects)  # ticks in the cached background, under the bars

    def dynamic_artists(self):
        bars = self.weight_bars
        return [*bars.patches, *bars.value_labels, *self.effect_bars.patches, *self.effect_labels, self.summary]

    def draw(self, key, scale):
        index = self.labels.index(key)
        values = self._scaled(index, scale)
        output, weights = attention_row(self.scores, values)
        effects = removal_effects(self.scores, values)  # (T,)
        update_row_bars(self.weight_bars, weights)
        for i, (bar, weight_bar, label, effect) in enumerate(zip(self.effect_bars, self.weight_bars,
                                                                  self.effect_labels, effects)):
            chosen = i == index  # the chosen key's bars outlined
            bar.set_height(effect)
            bar.set_edgecolor(_HIGHLIGHT if chosen else style.VERMILLION)
            weight_bar.set_edgecolor(_HIGHLIGHT if chosen else "none")
            for outlined in (bar, weight_bar):
                outlined.set_linewidth(2.0 if chosen else 0.0)
            label.xy = (bar.get_x() + bar.get_width() / 2, effect)
            label.set_text(f"{effect:.3f}")
        length = float(np.linalg.norm(values[index]))
        self.summary.set_text(
            f"value of {key!r} x {scale:.1f} (length {length:.2f});  output = "
            f"[{', '.join(f'{o:.3f}' for o in output)}];  largest weight: "
            f"{self.labels[int(np.argmax(weights))]!r}, largest effect: {self.labels[int(np.argmax(effects))]!r}"
        )
        self.values_now, self.weights, self.output, self.effects = values, weights, output, effects
        self.key, self.scale = key, scale

    def describe(self):
        index = self.labels.index(self.key)
        length = float(np.linalg.norm(self.values_now[index]))
        return (
            f"The value vector of “{self.key}” multiplied by {fixed(self.scale, 1)} (its length now {fixed(length, 2)}). "
            f"Left, bar chart of the attention weights, which the factor does not change: "
            f"{labelled_values(self.labels, self.weights, 3)}. Right, bar chart of each key's removal effect "
            f"|output - output without the key|: {labelled_values(self.labels, self.effects, 3)}. Output = "
            f"[{', '.join(fixed(o, 3) for o in self.output)}]; largest weight: “{self.labels[int(np.argmax(self.weights))]}”, "
            f"largest effect: “{self.labels[int(np.argmax(self.effects))]}”."
        )
