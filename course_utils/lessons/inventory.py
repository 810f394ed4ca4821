"""The concept inventory: twelve multiple-choice items on what the course teaches, taken before and after.

One home for the items, their answers and their feedback (the widget in ``course_utils.widgets.inventory``,
notebooks 00 and 08, the report ``python tools/inventory_report.py`` and the tests all read
them from here), for the order the choices are shown in, and for the answer files.

Each item has exactly one right choice. Every other choice is a **named misconception**: the statement a
notebook's *Myth or fact?* section names (``named_in="myth 03"``) or a mistake a checker recognises by name
(``named_in="checker masked_attention"``), so the report's "most chosen distractor" says which myth or mistake
to address. Every choice carries its own elaborated feedback and the cell that demonstrates it (``Where``).

The same items are taken twice: at the end of notebook 00 ("pre": no feedback, it must not teach) and in
notebook 08 ("post": per-item feedback). The choices are shuffled differently for the two attempts, by a
fixed seed (``choice_order``), so a learner cannot answer the second time by position.

Answers are saved locally only, one new JSON file per attempt (``save``; never overwritten), in
``inventory/`` of the course folder (git-ignored); nothing is sent anywhere.
"""
from __future__ import annotations

import json
import os
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from course_utils._validate import check_seed

__all__ = [
    "ANSWERS_DIR", "ATTEMPTS", "CORRECT", "FORMAT", "ITEMS", "SEED", "VERSION", "Choice", "InventoryFileError",
    "Item", "Where", "answers_dir", "choice_order", "item_by_key", "make_record", "nickname_key", "normalised_gain", "plain_name",
    "read_record", "save", "score",
]

#: The course folder this package lies in (a clone: it holds ``requirements.lock`` beside ``course_utils/``), or
#: None when the package was installed on its own (Colab, a plain ``pip install``: it lies in site-packages).
_COURSE_FOLDER = Path(__file__).resolve().parents[2]
#: The folder of the answer files in a clone: ``inventory/`` in the course folder (listed in .gitignore). None for
#: an installed package, whose answer files go to ``inventory/`` in the working folder (``answers_dir``), never
#: into site-packages. The environment variable ``COURSE_INVENTORY_DIR``, when set, names another folder.
ANSWERS_DIR = _COURSE_FOLDER / "inventory" if (_COURSE_FOLDER / "requirements.lock").is_file() else None
#: The two attempts: before the course (end of notebook 00) and after it (notebook 08).
ATTEMPTS = ("pre", "post")
#: The seed of the choice orders (the same for every learner, so a room sees the same letters).
SEED = 15
#: What a file stores as ``chosen`` for the right choice (a distractor is stored by its misconception's name).
CORRECT = "correct"
#: The answer files' format name and version.
FORMAT = "self-attention-hands-on concept inventory"
VERSION = 1


@dataclass(frozen=True)
class Where:
    """The cell that demonstrates a point: ``notebook`` (stem in solutions/), its ``section`` number, its cell id."""

    notebook: str
    section: str
    cell: str

    def __str__(self):
        return f"notebook {self.notebook[:2]}, section {self.section} (cell {self.cell})"

    @property
    def path(self):
        """The notebook a learner opens: ``notebooks/<stem>.ipynb``."""
        return f"notebooks/{self.notebook}.ipynb"


@dataclass(frozen=True)
class Choice:
    """One choice of an item.

    Attributes
    ----------
    text : str
        What the learner reads.
    feedback : str
        Why it is right, or what is wrong with it, in a few sentences (shown in notebook 08 only).
    misconception : str or None
        None for the right choice; else the misconception's name, as its notebook or checker names it.
    named_in : str or None
        Where that name comes from: ``"myth NN"`` (a *Myth or fact?* statement of notebook NN) or
        ``"checker NAME"`` (a known mistake of ``course_utils.checks.CHECKERS[NAME]``).
    see : Where or None
        The cell that demonstrates it; None: the item's.
    """

    text: str
    feedback: str
    misconception: str | None = None
    named_in: str | None = None
    see: Where | None = None

    @property
    def correct(self):
        return self.misconception is None

    @property
    def key(self):
        """What an answer file stores for this choice: ``CORRECT`` or the misconception's name."""
        return CORRECT if self.correct else self.misconception


@dataclass(frozen=True)
class Item:
    """One question: ``key`` (stable, used in the files), its ``topic``, the ``stem``, the ``choices``.

    ``choices`` are in a canonical order (the right one first); learners see them in ``choice_order``.
    ``see`` is where the whole point is demonstrated.
    """

    key: str
    topic: str
    stem: str
    choices: tuple
    see: Where

    @property
    def answer(self):
        """The right choice."""
        (right,) = [c for c in self.choices if c.correct]
        return right

    def choice(self, key):
        """The choice stored as ``key`` (``CORRECT`` or a misconception's name).

        Raises
        ------
        KeyError
            For a key that is none of this item's choices.
        """
        for c in self.choices:
            if c.key == key:
                return c
        raise KeyError(f"item {self.key!r} has no choice {key!r}; its choices are {[c.key for c in self.choices]}")

    def where(self, choice):
        """The cell that demonstrates ``choice`` (its own, else the item's)."""
        return choice.see or self.see


def _myth(statement, notebook, feedback, see=None):
    return Choice(statement, feedback, misconception=statement, named_in=f"myth {notebook}", see=see)


ITEMS = (
    Item(
        "softmax-row", "a softmax row",
        "One query has the scores [2, 1, 0] for three keys. What are its attention weights?",
        (
            Choice("About [0.665, 0.245, 0.09]: every key keeps some weight, and the three add up to 1.",
                   "Softmax turns each score s into exp(s) and divides by the sum of the exponentials: "
                   "7.39, 2.72 and 1 over 11.1. The largest score gets the largest weight, every key with a "
                   "finite score keeps a positive one, and the row sums to 1."),
            Choice("[1, 0, 0]: the key with the largest score takes all the weight.",
                   "That is the misconception \"Attention picks the best key.\" Softmax is soft: the key with "
                   "score 2 gets about two thirds (0.665), the others keep 0.245 and 0.09. Only a very large "
                   "gap makes the choice nearly, never exactly, hard.",
                   "Attention picks the best key.", "myth 01", Where("01-one-attention-row", "7", "nb01-myth-hard-code")),
            Choice("About [7.39, 2.72, 1.0]: the exponentials of the scores.",
                   "These are the exponentials before they are normalised (the checker's mistake \"exp only\"). "
                   "Weights must add up to 1: divide each exponential by their sum, 11.1.",
                   "exp only", "checker softmax"),
            Choice("About [0.667, 0.333, 0]: each score divided by the sum of the scores.",
                   "Dividing the raw scores by their sum skips the exponential (the checker's mistake \"no exp\"): "
                   "a score of 0 would get no weight at all, and negative scores would give negative weights. "
                   "Softmax exponentiates first.",
                   "no exp", "checker softmax"),
        ),
        Where("01-one-attention-row", "2", "nb01-byhand"),
    ),
    Item(
        "max-shift", "the max shift",
        "A stable softmax subtracts the row's largest score from every score before taking exp. "
        "What does that change?",
        (
            Choice("Nothing in the weights; it only stops exp from overflowing to inf (and inf / inf = nan).",
                   "Adding the same constant to every score of a row multiplies numerator and denominator "
                   "by the same factor, so the weights are exactly the same: [1000, 999, 998] gives the weights of "
                   "[2, 1, 0]. After the shift every score is at most 0 and exp stays between 0 and 1."),
            _myth("Subtracting the maximum is an approximation.", "01",
                  "It is exact algebra, not an approximation: exp(s - m) / sum exp(s - m) = exp(s) / sum exp(s), "
                  "because the factor exp(-m) cancels. The weights do not move at all (section 4 shifts a row by "
                  "-500 to 1e6 and prints the same weights).",
                  Where("01-one-attention-row", "4", "nb01-invariance")),
            Choice("Subtracting the smallest score would work just as well: any shift leaves the weights unchanged.",
                   "Any shift leaves the weights unchanged in exact arithmetic, but subtracting the minimum makes "
                   "the largest score larger still (the checker's mistake \"min shift\"), so exp(1000) still "
                   "overflows. Only the maximum guarantees every exponent is at most 0.",
                   "min shift", "checker softmax", Where("01-one-attention-row", "4", "nb01-naive")),
            Choice("For a batch of rows, subtract the largest score of the whole batch once.",
                   "A row whose scores all lie far below the batch's maximum then gets exp(...) = 0 everywhere, "
                   "and 0 / 0 = nan (the checker's mistake \"global max shift\"). Each row must subtract its own "
                   "maximum: x.max(axis=-1, keepdims=True).",
                   "global max shift", "checker softmax"),
        ),
        Where("01-one-attention-row", "4", "nb01-shifted"),
    ),
    Item(
        "self", "what \"self\" means",
        "Self-attention runs over the ticket \"my charger is missing please\". Which statement is right?",
        (
            Choice("Queries, keys and values all come from this one ticket, so \"missing\" can draw on \"charger\".",
                   "\"Self\" names the shared source: Q, K and V are three projections of the same "
                   "sequence. A token's weight may go anywhere in it; in notebook 02 no token puts its largest "
                   "weight on itself."),
            _myth("Self-attention means each token attends to itself.", "02",
                  "\"Self\" describes where Q, K and V come from, not where the weight goes. With the hand-made "
                  "matrices of notebook 02, no row puts its largest weight on its own token; \"missing\" draws "
                  "mostly on \"charger\".",
                  Where("02-queries-keys-values", "7", "nb02-myth-self-code")),
            _myth("The model was told that missing relates to charger.", "06",
                  "No rule is written anywhere: the weights come from the learned matrices W_Q and W_K. In "
                  "notebook 02 random matrices give weights that follow no story; in notebook 06 a model "
                  "trained on tickets finds where \"missing\" should look, and reversing the tickets makes it "
                  "learn the opposite.",
                  Where("02-queries-keys-values", "4", "nb02-self-table")),
            _myth("The output is a blend of the input tokens.", "01",
                  "The output mixes value vectors (x W_V), lists of numbers, not tokens or their IDs. Change "
                  "the values and the output moves; renumber the tokens and nothing happens.",
                  Where("01-one-attention-row", "5", "nb01-ids")),
        ),
        Where("02-queries-keys-values", "4", "nb02-self-row"),
    ),
    Item(
        "qkv-roles", "the roles of Q, K and V",
        "What are the query, key and value of a token?",
        (
            Choice("Three projections of its vector (x W_Q, x W_K, x W_V): queries are dotted with keys to "
                   "give the weights, and the weights mix the values.",
                   "The roles are computational: a query and a key only meet in a dot product, and a "
                   "value is what gets mixed. Rotate every query and key by the same rotation and nothing "
                   "changes, which a \"meaning\" in the numbers would not survive."),
            _myth("The query is a question the token asks, in some readable form.", "02",
                  "A query is a vector that means something only relative to the keys it is dotted with: "
                  "rotate all queries and keys by the same random rotation and every query becomes different "
                  "numbers, yet every score, weight and output is unchanged.",
                  Where("02-queries-keys-values", "7", "nb02-myth-query-code")),
            _myth("A key is looked up like a dictionary key.", "02",
                  "A dictionary returns the value of the one key that matches exactly. Attention matches "
                  "nothing exactly: the query of \"missing\" equals none of the keys, and still every key gets "
                  "a positive weight.",
                  Where("02-queries-keys-values", "7", "nb02-myth-key-code")),
            _myth("Values are facts about the tokens.", "02",
                  "A value is x W_V: change W_V and the \"value of charger\" changes, though the token did not. "
                  "Hand-made values can be read as (item, problem) only because they were written that way.",
                  Where("02-queries-keys-values", "7", "nb02-myth-value-code")),
        ),
        Where("02-queries-keys-values", "7", "nb02-myth-query-code"),
    ),
    Item(
        "sqrt-dk", "why divide by sqrt(d_k)",
        "Why are the scores divided by sqrt(d_k), the width of the queries and keys?",
        (
            Choice("Dot products of d_k numbers spread like sqrt(d_k); dividing keeps the softmax from saturating "
                   "as d_k grows, and does not change which key scores highest.",
                   "With unit-variance coordinates q . k has standard deviation sqrt(d_k): four times "
                   "the width, twice the spread. Unscaled, the largest weight creeps towards 1 as d_k grows. "
                   "Dividing a row by one positive number keeps the order of its scores."),
            Choice("Dividing by sqrt(d_k) decides which key wins.",
                   "It divides a whole row by one positive number, so the order of the scores, and the winner, "
                   "stay the same. What it controls is how peaked the weights are.",
                   "Dividing by $\\sqrt{d_k}$ decides which key wins.", "myth 02",
                   Where("02-queries-keys-values", "6", "nb02-winner")),
            Choice("To average the d_k products: dividing by d_k would do the same job.",
                   "Dividing by d_k shrinks the scores too much (the checker's mistake \"divide by d_k\"): their "
                   "spread falls like 1 / sqrt(d_k), and the weights flatten towards uniform as d_k grows. "
                   "sqrt(d_k) is what keeps the spread at about 1.",
                   "divide by d_k", "checker scaled_scores"),
            Choice("It is optional: softmax normalises the row anyway, so the weights come out the same.",
                   "Normalising does not undo a scale: softmax of 8 s is much more peaked than softmax of s "
                   "(the checker's mistake \"no scale\"). Without the division the weights saturate as d_k grows.",
                   "no scale", "checker scaled_scores", Where("02-queries-keys-values", "6", "nb02-saturation")),
        ),
        Where("02-queries-keys-values", "6", "nb02-std"),
    ),
    Item(
        "mask-before", "masking before vs zeroing after",
        "Some keys must be hidden from a query. How do you hide them?",
        (
            Choice("Give their scores -inf before the softmax, so the weights of the permitted keys are "
                   "normalised among themselves.",
                   "The softmax then runs over the permitted keys only: each row still sums to 1, and "
                   "a hidden key has no influence at all, not even through the normaliser."),
            _myth("Zeroing the blocked weights after the softmax is just another way to mask.", "03",
                  "After the softmax the hidden keys have already taken their share of the normaliser: the row "
                  "no longer sums to 1 (\"my\" keeps 0.176 of its weight in notebook 03), and changing a hidden "
                  "token still changes the visible weights.",
                  Where("03-masks", "5", "nb03-order")),
            Choice("Multiply the scores by the 0/1 mask before the softmax.",
                   "A score of 0 is not hidden: exp(0) = 1, so a \"masked\" key still gets weight, often more "
                   "than a key with a negative score (the checker's mistake \"mask multiplied into the scores\"). "
                   "Hidden keys need -inf.",
                   "mask multiplied into the scores", "checker masked_attention", Where("03-masks", "1", "nb03-row-vector")),
            Choice("Zero their weights after the softmax, then divide by the row's new sum: the safe way.",
                   "In exact arithmetic this equals masking first, but in floating point it can fail: when a "
                   "hidden key scores far higher, the visible weights underflow to 0 and 0 / 0 = nan (the "
                   "checker's mistake \"renormalised weights underflow\"). Masking first is one step and never "
                   "underflows like this.",
                   "renormalised weights underflow", "checker masked_attention",
                   Where("03-masks", "5", "nb03-order-underflow")),
        ),
        Where("03-masks", "5", "nb03-order-renorm"),
    ),
    Item(
        "empty-row", "a query with no permitted key",
        "After masking, one query has no permitted key at all: every score in its row is -inf. What then?",
        (
            Choice("A plain softmax gives nan for that row, and the nan spreads into later layers; avoid such rows, "
                   "or handle them explicitly (course_utils gives them all-zero weights).",
                   "The max shift meets -inf - (-inf) = nan. Such rows must be avoided (pad on the right "
                   "with a causal mask) or handled on purpose: course_utils returns all-zero weights, a "
                   "convention that says \"nothing to attend to\"."),
            _myth("A large negative number such as -1e9 masks as well as -inf.", "03",
                  "True where a row has a permitted key, but in a row without one every score is about -1e9, "
                  "and the softmax spreads the weight evenly over keys that should be hidden: the bug hides "
                  "instead of failing.",
                  Where("03-masks", "8", "nb03-myth-big-code")),
            Choice("Nothing to handle: the nan stays in that one row and never reaches a real token.",
                   "nan does not stay put: in the next layer a real token mixes that row's output with weight 0, "
                   "and 0 * nan = nan (the checker's mistake \"empty row gives nan\"). One empty row can turn a "
                   "whole sequence into nan.",
                   "empty row gives nan", "checker masked_attention", Where("03-masks", "6", "nb03-empty-spread")),
            _myth("A padding mask must block the padded queries too.", "03",
                  "Blocking the padded keys already protects every real token. Blocking the <pad> queries as "
                  "well changes no real output and is exactly what creates rows with no permitted key.",
                  Where("03-masks", "8", "nb03-myth-rows-code")),
        ),
        Where("03-masks", "6", "nb03-empty-nan"),
    ),
    Item(
        "causal-padding", "causal vs padding masks",
        "What do a padding mask and a causal mask each hide?",
        (
            Choice("Padding: the filler positions added so that sequences have the same length. Causal: for each "
                   "position, the positions after it.",
                   "A padded batch of a generation model needs both, combined with \"and\": a key may be "
                   "seen only if it is real and not in the future."),
            Choice("A causal mask already hides the padding, wherever the padding is.",
                   "Only when the padding is on the right: then every <pad> lies in the future of every real "
                   "token. Padded on the left, <pad> comes first, and a causal mask lets the real tokens see it "
                   "(the checker's mistake \"causal only\").",
                   "causal only", "checker capstone_layer", Where("03-masks", "4", "nb03-explorer")),
            Choice("A padding mask also stops a position from seeing the tokens after it.",
                   "A padding mask hides only filler: every real token still sees every later real token "
                   "(the checker's mistake \"padding only\"). Changing the last token of the ticket changes "
                   "every position's output until the causal mask is added.",
                   "padding only", "checker capstone_layer", Where("03-masks", "3", "nb03-causal-test")),
            Choice("In the course's masks (as in PyTorch's scaled_dot_product_attention), True marks a hidden key.",
                   "The other way round: True means \"may attend\". Read the other way, the mask hides the real "
                   "keys and shows the padding (the checker's mistake \"inverted mask\").",
                   "inverted mask", "checker masked_attention"),
        ),
        Where("03-masks", "2", "nb03-pad-mask"),
    ),
    Item(
        "heads", "what heads split and what W_O does",
        "Multi-head attention with d_model = 8 and 4 heads: what do the heads split, and what does W_O do?",
        (
            Choice("Each head gets its own 2 of the 8 columns of Q, K and V and its own softmax; the heads' outputs "
                   "are concatenated and W_O mixes them into every output column.",
                   "Splitting only groups columns; concatenating puts them back side by side; W_O is the "
                   "only step where one head's output reaches another head's columns."),
            _myth("Splitting into heads throws information away.", "04",
                  "Splitting and merging only move entries: merge_heads(split_heads(Q)) gives Q back exactly. "
                  "Each head sees its own columns, together they see all of them, and W_O mixes all outputs.",
                  Where("04-multi-head-attention", "4", "nb04-roundtrip")),
            Choice("W_O is optional: the concatenated heads already are the layer's output.",
                   "Without W_O each output column comes from one head only (the checker's mistake \"no output "
                   "projection\"). W_O is part of the definition: it mixes the heads, so that removing one head "
                   "changes every output column.",
                   "no output projection", "checker multi_head_attention", Where("04-multi-head-attention", "2", "nb04-wo")),
            Choice("The heads split the sequence: each head attends over a quarter of the tokens.",
                   "Every head attends over every token: the split is along the feature axis, d_model, not along "
                   "the positions (the checker's mistake \"split the positions\").",
                   "split the positions", "checker split_heads", Where("04-multi-head-attention", "4", "nb04-split-demo")),
        ),
        Where("04-multi-head-attention", "2", "nb04-loop"),
    ),
    Item(
        "parameters", "the parameter count",
        "With d_model = 8 (no biases), how many parameters do W_Q, W_K, W_V and W_O hold with 1 head, "
        "and with 4 heads?",
        (
            Choice("256 in both cases: four 8 x 8 matrices, whatever the number of heads.",
                   "The number of heads decides how the columns are grouped into softmaxes, not how many "
                   "there are: 4 heads of width 2 use the same 4 x 8 x 8 = 256 numbers as 1 head of width 8."),
            _myth("More heads means more parameters.", "04",
                  "Each head does not get its own four 8 x 8 matrices: it gets 2 columns of the shared ones. "
                  "The count is 256 for 1, 2, 4 or 8 heads; what changes is the function (the same parameters "
                  "give different outputs).",
                  Where("04-multi-head-attention", "8", "nb04-myth-params-code")),
            Choice("256 with 1 head, 448 with 4: one W_Q, W_K and W_V, and one 8 x 8 W_O for each head.",
                   "There is one W_O for the whole layer, applied to the concatenated heads (a W_O per head is "
                   "the checker's mistake \"W_O per head\"). So 4 x 64 = 256 with any number of heads.",
                   "W_O per head", "checker multi_head_attention"),
            Choice("192 in both cases: W_Q, W_K and W_V; W_O is not part of attention.",
                   "W_O is part of multi-head attention (leaving it out is the checker's mistake \"no output "
                   "projection\"): 3 x 64 + 64 = 256.",
                   "no output projection", "checker multi_head_attention"),
        ),
        Where("04-multi-head-attention", "3", "nb04-params"),
    ),
    Item(
        "head-job", "heads have no assigned job",
        "In a trained model, head 3 puts most of its weight on the previous token. What can you conclude?",
        (
            Choice("Only what was measured: this head, on these inputs, looks there. The number 3 carries no job, "
                   "and the pattern must be checked on other inputs before it is named.",
                   "Relabelling the heads gives the same model with a different \"head 3\"; random, "
                   "untrained heads already draw tidy patterns, and a \"previous-token\" look can vanish on "
                   "another input. What a head does must be measured."),
            _myth("Head 3 is the syntax head.", "04",
                  "A head's number is only the order of its column blocks: move the blocks and \"head 3\" is "
                  "another head of the same model, with the same output.",
                  Where("04-multi-head-attention", "6", "nb04-relabel")),
            _myth("Heads must attend differently.", "04",
                  "Nothing forces heads apart: give two heads the same columns and they draw identical weights. "
                  "Trained models often have redundant heads.",
                  Where("04-multi-head-attention", "8", "nb04-myth-different-code")),
            _myth("A head that attends to X uses X.", "05",
                  "Attending decides how much of X's value is mixed in; if that value carries nothing, nothing "
                  "arrives, and the heatmap looks exactly the same.",
                  Where("05-reading-attention-plots", "7", "nb05-myth-uses-code")),
        ),
        Where("04-multi-head-attention", "6", "nb04-random"),
    ),
    Item(
        "plots", "plots diagnose, they do not explain",
        "A heatmap shows that \"missing\" puts its largest weight on \"charger\". What does the plot tell you?",
        (
            Choice("Where that query's weight went in this layer: good for spotting mask bugs and odd patterns, "
                   "but on its own not the reason for the prediction.",
                   "A plot shows weights, not what was mixed or what later layers read. A claim about why "
                   "the model predicted something needs an intervention: remove or change something, rerun, "
                   "measure."),
            _myth("The brightest cell is the reason for the prediction.", "05",
                  "In notebook 05 the brightest key, \"charger\" (0.432), has one of the smallest effects on the "
                  "output, and a dim key moves it most: a key's effect depends on its value, not only on its "
                  "weight.",
                  Where("05-reading-attention-plots", "4", "nb05-table")),
            _myth("If the attention plot looks right, the model is right.", "03",
                  "A plot shows where weight went, which is what a mask bug changes, so it is a good diagnostic. "
                  "It does not show what was mixed: the same weights mix different values into different outputs.",
                  Where("03-masks", "8", "nb03-myth-plot-code")),
            _myth("Then attention plots are useless.", "05",
                  "Plots find mask bugs and collapsed softmaxes at a glance (weight above the diagonal, in <pad> "
                  "columns, uniform or one-hot rows), and they are a fine place to start a hypothesis, which you "
                  "then test by intervening.",
                  Where("05-reading-attention-plots", "2", "nb05-numbers")),
        ),
        Where("05-reading-attention-plots", "3", "nb05-contrib"),
    ),
)


def plain_name(name):
    """A misconception's name as a sentence quotes it: ``$\\sqrt{d_k}$`` read as ``sqrt(d_k)``, no final full stop."""
    return name.replace("$\\sqrt{d_k}$", "sqrt(d_k)").rstrip(".")


def item_by_key(key):
    """The item whose ``key`` is ``key``.

    Raises
    ------
    KeyError
        Naming the keys there are.
    """
    for item in ITEMS:
        if item.key == key:
            return item
    raise KeyError(f"no inventory item {key!r}; the items are {[i.key for i in ITEMS]}")


def _check_attempt(attempt):
    if attempt not in ATTEMPTS:
        raise ValueError(f"attempt must be one of {ATTEMPTS}; got {attempt!r}")
    return attempt


def choice_order(number, attempt, seed=SEED, n_choices=4):
    """The order in which item ``number``'s choices are shown in ``attempt``: a permutation of their indices.

    Deterministic (the same for every learner and every run), and different for "pre" and "post".

    Parameters
    ----------
    number : int
        The item's index in ``ITEMS`` (0-based).
    attempt : {"pre", "post"}
    seed : int, default SEED
    n_choices : int, default 4
        How many choices the item has.

    Returns
    -------
    tuple of int, length n_choices
        ``order[k]`` is the canonical index of the choice shown in position k.

    Raises
    ------
    ValueError
        For an unknown attempt, or fewer than 2 choices (they could not differ).
    """
    _check_attempt(attempt)
    seed = check_seed(seed)
    if n_choices < 2:
        raise ValueError(f"n_choices must be at least 2 for two different orders; got {n_choices}")
    rng = np.random.default_rng([seed, int(number)])
    pre = tuple(int(i) for i in rng.permutation(n_choices))       # (n_choices,)
    if attempt == "pre":
        return pre
    post = pre
    while post == pre:                                              # another order: never the one of "pre"
        post = tuple(int(i) for i in rng.permutation(n_choices))   # (n_choices,)
    return post


def score(chosen):
    """The percentage of ``ITEMS`` answered right.

    Parameters
    ----------
    chosen : dict
        item key -> the chosen choice's key (``CORRECT`` or a misconception's name), or None when
        unanswered. A missing item counts as unanswered.

    Returns
    -------
    float
        Between 0 and 100 (an unanswered item counts as wrong).
    """
    right = sum(chosen.get(item.key) == CORRECT for item in ITEMS)
    return 100.0 * right / len(ITEMS)


def normalised_gain(pre, post):
    """Hake's normalised gain ``(post - pre) / (100 - pre)``, for scores in percent.

    Returns
    -------
    float or None
        None when ``pre`` is 100 (nothing left to gain: such a learner is left out of a class's gain
        and counted).

    Raises
    ------
    ValueError
        For a score outside [0, 100].
    """
    for name, value in (("pre", pre), ("post", post)):
        if not 0 <= value <= 100:
            raise ValueError(f"{name} must be a percentage between 0 and 100; got {name}={value}")
    if pre >= 100:
        return None
    return (post - pre) / (100 - pre)


def nickname_key(nickname):
    """How nicknames are matched between attempts: stripped, spaces collapsed, case-folded ("Ada L" = "ada l")."""
    return " ".join(str(nickname).split()).casefold()


def _slug(nickname):
    """A file-name-safe form of a nickname (letters, digits, '-'), at most 40 characters."""
    text = unicodedata.normalize("NFKD", nickname_key(nickname)).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")[:40] or "learner"


def _check_nickname(nickname):
    if not isinstance(nickname, str) or not nickname.strip():
        raise ValueError("nickname must be a non-empty text: the name you will type again in notebook 08 "
                         f"(it matches your two attempts); got {nickname!r}")
    if len(nickname.strip()) > 60:
        raise ValueError(f"nickname must be at most 60 characters; got {len(nickname.strip())}")
    return " ".join(nickname.split())


def make_record(nickname, attempt, chosen, *, positions=None, now=None):
    """The content of one answer file (a dict ready for JSON).

    Parameters
    ----------
    nickname : str
        Chosen by the learner; matches the two attempts (``nickname_key``).
    attempt : {"pre", "post"}
    chosen : dict
        item key -> the chosen choice's key, or None (unanswered).
    positions : dict, optional
        item key -> the 1-based position at which the chosen choice was shown (for the record only).
    now : datetime, optional
        When it was saved (default: now, UTC).

    Returns
    -------
    dict
        ``format``, ``version``, ``nickname``, ``attempt``, ``saved_at`` (ISO 8601), ``score`` (percent),
        ``items``: one ``{"key", "chosen", "correct", "position"}`` per item of ``ITEMS``.

    Raises
    ------
    ValueError
        For an empty nickname, an unknown attempt, an unknown item key, or a choice an item does not have.
    """
    nickname = _check_nickname(nickname)
    _check_attempt(attempt)
    unknown = sorted(set(chosen) - {item.key for item in ITEMS})
    if unknown:
        raise ValueError(f"chosen names items that do not exist: {unknown}")
    positions = positions or {}
    items = []
    for item in ITEMS:
        key = chosen.get(item.key)
        if key is not None:
            try:
                item.choice(key)
            except KeyError as err:
                raise ValueError(str(err.args[0])) from None
        items.append({"key": item.key, "chosen": key, "correct": key == CORRECT,
                      "position": positions.get(item.key)})
    now = now or datetime.now(timezone.utc)
    return {"format": FORMAT, "version": VERSION, "nickname": nickname, "attempt": attempt,
            "saved_at": now.isoformat(timespec="seconds"), "score": score(chosen), "items": items}


def answers_dir():
    """Where answer files go by default: ``$COURSE_INVENTORY_DIR`` when set and not empty, else ``ANSWERS_DIR``
    (a clone's ``inventory/``), else ``inventory/`` in the working folder (an installed package: Colab, pip)."""
    override = os.environ.get("COURSE_INVENTORY_DIR", "").strip()
    if override:
        return Path(override).expanduser()
    return ANSWERS_DIR if ANSWERS_DIR is not None else Path.cwd() / "inventory"


def save(record, folder=None):
    """Write ``record`` to a new file ``<folder>/<nickname>.<attempt>.<YYYYmmdd-HHMMSS>.json``; return its path.

    Never replaces a file: a second attempt in the same second gets ``-1``, ``-2``, ... after the stamp.
    Written the course's one safe way (``course_utils.safe_files.write_new``: temporary file, fsync, read
    back, exclusive rename), so a full disk never leaves half a file.

    Parameters
    ----------
    record : dict
        From ``make_record``.
    folder : path, optional
        Default ``answers_dir()`` (``inventory/`` in the course folder, or in the working folder).

    Raises
    ------
    course_utils.safe_files.WriteError
        When the folder or the file cannot be written (the message says the path and the fix).
    """
    from course_utils.safe_files import write_new

    folder = Path(folder) if folder is not None else answers_dir()
    stamp = datetime.fromisoformat(record["saved_at"]).strftime("%Y%m%d-%H%M%S")
    data = (json.dumps(record, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    return write_new(folder, f"{_slug(record['nickname'])}.{record['attempt']}", stamp, ".json", data)


class InventoryFileError(ValueError):
    """A file that is not a readable answer file of this inventory; the message names the file and why."""


def read_record(path):
    """Read and check one answer file.

    Returns
    -------
    dict
        The record, with ``chosen`` re-checked against ``ITEMS`` (``correct`` and ``score`` recomputed
        from it, never trusted from the file).

    Raises
    ------
    InventoryFileError
        Not JSON, another format or version, an unknown attempt or item, or a choice an item does not have.
    """
    path = Path(path)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InventoryFileError(f"{path}: not a readable JSON file ({err})") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise InventoryFileError(f"{path}: not an answer file of the concept inventory (format {FORMAT!r})")
    if record.get("version") != VERSION:
        raise InventoryFileError(f"{path}: version {record.get('version')!r}; this course reads version {VERSION}")
    try:
        chosen = {entry["key"]: entry["chosen"] for entry in record["items"]}
        clean = make_record(record["nickname"], record["attempt"], chosen,
                            now=datetime.fromisoformat(record["saved_at"]))
    except (KeyError, TypeError, ValueError) as err:
        raise InventoryFileError(f"{path}: {err}") from None
    clean["items"] = [dict(entry, position=p.get("position"))
                      for entry, p in zip(clean["items"], _by_key(record["items"]))]
    return clean


def _by_key(entries):
    by_key = {entry.get("key"): entry for entry in entries}
    return [by_key.get(item.key, {}) for item in ITEMS]
