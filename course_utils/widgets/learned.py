"""The notebook-06 dashboard: a training-step slider over the attention snapshots kept by ``train``."""
import ipywidgets
import numpy as np

from course_utils import style
from course_utils.alt_text import fixed
from course_utils.lessons.training import ticket_words
from course_utils.plots import cell_text_colour
from course_utils.widgets._base import Dashboard, axis_below, slider

__all__ = ["TrainingDashboard"]


class TrainingDashboard(Dashboard):
    """Where the "missing" token looks, step by step during training.

    Left: one row per probe ticket, one column per position, coloured by the weight of that ticket's "missing" on
    that position (the word written in the cell). Right: the training loss, a line at the chosen step. The slider
    picks a snapshot kept by ``lessons.training.train``; nothing is recomputed.

    Parameters
    ----------
    run : course_utils.lessons.training.TrainingRun
        Must hold snapshots (``train(..., probe=...)``).
    probe_tokens : array of int, shape (n, T)
        The probe tickets the snapshots belong to.

    Attributes
    ----------
    image : matplotlib.image.AxesImage
    marker : matplotlib.lines.Line2D -- the line on the loss curve.
    title : matplotlib.text.Text
    weights : ndarray, shape (n, T) -- the snapshot currently drawn.

    Control: ``step`` (IntSlider over the snapshot steps).
    """

    figsize = (10.0, 4.2)

    def __init__(self, run, probe_tokens):
        self.steps = np.asarray(run.snapshot_steps, dtype=int)
        self.snapshots = np.asarray(run.snapshots, dtype=float)
        self.losses = np.asarray(run.losses, dtype=float)
        self.probe_tokens = np.asarray(probe_tokens)
        if self.steps.size < 2 or self.snapshots.shape[:2] != (self.steps.size, self.probe_tokens.shape[0]) \
                or self.snapshots.shape[2] != self.probe_tokens.shape[1]:
            raise ValueError(
                f"need at least 2 snapshots of shape (n, T) matching probe_tokens {self.probe_tokens.shape}; "
                f"got snapshots {self.snapshots.shape} at steps {self.steps.shape}")
        self.weights = self.snapshots[0]
        super().__init__()

    def make_controls(self):
        return {"step": slider(ipywidgets.IntSlider, "training step", 420, value=0, min=int(self.steps[0]),
                               max=int(self.steps[-1]), step=int(self.steps[1] - self.steps[0]))}

    def snapshot_index(self, step):
        """Index of the last snapshot taken at or before ``step``."""
        return int(np.clip(np.searchsorted(self.steps, step, side="right") - 1, 0, self.steps.size - 1))

    def build(self, fig):
        grid = fig.add_gridspec(1, 2, width_ratios=(1.5, 1), left=0.09, right=0.98, bottom=0.14,
                                top=0.86, wspace=0.25)
        ax, ax_loss = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])
        n, T = self.probe_tokens.shape
        self.image = ax.imshow(self.weights, cmap=style.HEATMAP_CMAP, vmin=0.0, vmax=1.0, aspect="auto")
        self.texts = [[ax.text(t, i, word, ha="center", va="center", fontsize=style.FONT_CELL)
                       for t, word in enumerate(ticket_words(row))] for i, row in enumerate(self.probe_tokens)]
        ax.set_xticks(range(T), [f"pos {t}" for t in range(T)])
        ax.set_yticks(range(n), [f"ticket {i + 1}" for i in range(n)])
        fig.colorbar(self.image, ax=ax, fraction=0.04, pad=0.02, label="weight of 'missing'")
        self.title = ax.set_title("")
        ax_loss.plot(np.arange(self.losses.size), self.losses, color=style.BLUE)
        ax_loss.set_xlabel("training step")
        ax_loss.set_title("training loss")
        self.marker = ax_loss.axvline(0, color=style.VERMILLION, lw=1.5)
        axis_below(ax)  # its tick labels in the cached background, under the heatmap

    def dynamic_artists(self):
        """The heatmap, its words (their colours follow the weights), its title, the step's marker."""
        return [self.image, *(text for row in self.texts for text in row), self.title, self.marker]

    def draw(self, step):
        index = self.snapshot_index(step)
        self.weights = self.snapshots[index]
        self.image.set_data(self.weights)
        colours = cell_text_colour(self.image, self.weights)  # every word's colour in one call
        for row_texts, row_colours in zip(self.texts, colours):
            for text, colour in zip(row_texts, row_colours):
                text.set_color(str(colour))
        shown = int(self.steps[index])
        self.marker.set_xdata([shown, shown])
        self.title.set_text(f"where 'missing' looks, step {shown}")
        self.shown_step = shown

    def describe(self):
        tickets = []
        for i, (row, weights) in enumerate(zip(self.probe_tokens, self.weights), start=1):
            words = ticket_words(row)
            tickets.append(f"ticket {i}: " + ", ".join(f"{w} {fixed(x, 2)}" for w, x in zip(words, weights)))
        last = self.losses.size - 1
        at = min(self.shown_step, last)
        return (
            f"Training step {self.shown_step} (snapshots from step {self.steps[0]} to {self.steps[-1]}). Left, heatmap "
            f"of the weight of “missing” on each position of {len(tickets)} probe tickets (one row each, the word "
            f"written in its cell), word by word: {'; '.join(tickets)}. Right: the training loss, from "
            f"{fixed(self.losses[0], 3)} at step 0 to {fixed(self.losses[-1], 3)} at step {last}, with a line at step "
            f"{self.shown_step} (loss {fixed(self.losses[at], 3)})."
        )
