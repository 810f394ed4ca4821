"""Checkers for notebook 05 (reading attention plots): the "what is wrong here?" exercise (with the
mystery heatmaps it shows), per-key contributions, removal effects, and the capstone layer.

The reference code is ``course_utils``: ``influence.contributions``, ``influence.removal_effects``,
and, for the capstone, ``multi_head_attention`` with ``causal_mask(T) & padding_mask(lengths, T)``.
"""
from dataclasses import dataclass

import numpy as np

import course_utils as cu
from course_utils import content
from course_utils.checks._catalogue import catalogued
from course_utils.checks._choice_answers import ChoiceAnswers
from course_utils.checks._framework import (
    Case,
    KnownMistake,
    checker,
    error_message_contains,
    run_check,
    variants,
)
from course_utils.checks._learner_code import (
    BROADCAST_ERROR,
    K_DOT_T_ERROR,
    MATMUL_ERROR,
    Q_AT_K_LINE,
    SOFTMAXES,
    course_softmax,
    matmul_error_on_line,
    swapped_outputs,
)
from course_utils.checks.heads import LARGE_SCORES, multi_head_variant
from course_utils.lessons.data import (
    ARTICLE_SCORES,
    ARTICLE_VALUES,
    EXPERIMENT_SCORES,
    EXPERIMENT_VALUES,
    TICKETS,
    padded_batch,
    stand_in_projections,
)

__all__ = [
    "DIAGNOSES",
    "PLOT_MYSTERIES",
    "PlotMystery",
    "CONTRIBUTIONS_MISTAKES",
    "REMOVAL_EFFECTS_MISTAKES",
    "CAPSTONE_MISTAKES",
]


# ================================================================ what is wrong here?
#: The diagnoses the learner chooses from, in the order the notebook's gallery shows them.
DIAGNOSES = ("looks fine", "future leak", "padding leak", "uniform rows", "one-hot rows", "diagonal")


@dataclass(frozen=True)
class PlotMystery:
    """One heatmap of the "what is wrong here?" exercise (what the notebook draws; no verdict).

    label : "P", "Q", ... (what the learner's answer uses).
    tokens : the T labels of the rows and columns ("<pad>" at padded positions).
    weights : ndarray, shape (T, T), the attention weights drawn.
    intended : the mask the layer should have used, in words (shown above the plots).

    The diagnosis of each plot is the checker's answer key (``_VERDICTS``), kept out of these
    objects so that the notebook's namespace does not carry the answers.
    """

    label: str
    tokens: tuple
    weights: np.ndarray
    intended: str


@dataclass(frozen=True)
class _Verdict:
    """The answer key for one plot: its diagnosis (one of ``DIAGNOSES``), why (shown once all is
    right), and where to look (the hint when it is misjudged)."""

    diagnosis: str
    why: str
    look: str


def _mystery_weights(ticket, *, side="right", mask="both", q_scale=1.0, k_scale=1.0, seed=5, T=6):
    """Weights of a stand-in self-attention layer over one padded ticket (d_model = 4).

    mask: "both" (causal & padding), "causal" (causal only), "next" (np.tril(k=1) & padding:
    every token also sees the next one), "self" (np.eye & padding: each token sees only itself).
    """
    n = len(ticket)
    x_right, _, _ = padded_batch([ticket], length=T)  # (1, T, 4)
    real = np.arange(T) < n  # (T,)
    x = x_right[0]
    if side == "left":
        x = np.roll(x, T - n, axis=0)  # the padding (zeros) moves to the front
        real = np.roll(real, T - n)
    tokens = ["<pad>"] * T
    for position, token in zip(np.flatnonzero(real), ticket):
        tokens[position] = token
    causal = np.tril(np.ones((T, T), dtype=bool))
    pattern = {
        "both": causal,
        "causal": causal,
        "next": np.tril(np.ones((T, T), dtype=bool), k=1),
        "self": np.eye(T, dtype=bool),
    }[mask]
    full = pattern if mask == "causal" else pattern & real[None, :]
    w_q, w_k, w_v = stand_in_projections(3, 4, seed)
    _, weights = cu.scaled_dot_product_attention(x @ (q_scale * w_q), x @ (k_scale * w_k), x @ w_v, full)
    return tuple(tokens), weights


def _mysteries():
    intended = "a generating model: causal mask and padding mask (right padding unless the labels say otherwise)"
    specs = [  # label, ticket, how the layer is broken (the diagnosis, why and where to look: answers.toml)
        ("P", TICKETS[1], dict(mask="next")),  # np.tril(..., k=1): each token sees the next one
        ("Q", TICKETS[2], dict(k_scale=10.0, seed=9)),  # keys 10 times too large
        ("R", TICKETS[1], dict(side="left", mask="causal")),  # left padding, causal mask only
        ("S", TICKETS[1], dict()),  # the intended mask
        ("T", TICKETS[2], dict(mask="self")),  # np.eye instead of np.tril
        ("U", TICKETS[0], dict(q_scale=0.0)),  # a dead query projection
    ]
    key = content.read("answers")["plot_diagnoses"]
    mysteries, verdicts = [], {}
    for label, ticket, kwargs in specs:
        tokens, weights = _mystery_weights(ticket, **kwargs)
        mysteries.append(PlotMystery(label, tokens, weights, intended))
        verdicts[label] = _Verdict(key[label]["diagnosis"], key[label]["why"], key[label]["look"])
    return tuple(mysteries), verdicts


#: The six heatmaps of the "what is wrong here?" exercise, in the notebook's order (data only).
PLOT_MYSTERIES, _VERDICTS = _mysteries()


def _normalise_diagnosis(value):
    if not isinstance(value, str):
        return None
    text = " ".join(value.strip().lower().replace("_", " ").replace("-", " ").split())
    for name in DIAGNOSES:
        if text == " ".join(name.replace("-", " ").split()):
            return name
    return None


_DIAGNOSIS_ANSWERS = ChoiceAnswers(
    keys=[m.label for m in PLOT_MYSTERIES],
    entry="plot",
    example='`return {"P": "looks fine", "Q": "uniform rows", ...}`',
    read_key=lambda key: str(key).strip().upper(),
    read_value=_normalise_diagnosis,
    show=lambda answer: f"you said {answer!r}",
    valid="one of the diagnoses " + ", ".join(f'"{d}"' for d in DIAGNOSES),
    look=lambda label, said, right: _VERDICTS[label].look,
    why=lambda label: f"{_VERDICTS[label].diagnosis}. {_VERDICTS[label].why}",
    key_word="label",
)


@checker("plot_diagnoses")
def check_plot_diagnoses(plot_diagnoses):
    """Check the "what is wrong here?" exercise: a function of no arguments returning a dict, plot label
    ("P", "Q", ...) -> one of ``DIAGNOSES`` (case and hyphens do not matter)."""
    return run_check(
        plot_diagnoses, reference=lambda: {k: v.diagnosis for k, v in _VERDICTS.items()},
        cases=(Case("your answers", ()),), arg_names=(), compare=_DIAGNOSIS_ANSWERS,
    )


# ================================================================ contributions
def _w(*values):
    return np.array(values, dtype=float)


_CONTRIBUTION_CASES = (
    Case("one key", (_w(1.0), _w([2.0, -1.0]))),
    Case("two keys, d_v = 2 (square: T = d_v)", (_w(0.75, 0.25), _w([1.0, 2.0], [3.0, 4.0]))),
    Case("notebook 01's row: 3 keys, d_v = 2",
         (np.round(course_softmax(ARTICLE_SCORES), 3), ARTICLE_VALUES.copy())),
    Case("5 keys, d_v = 3, one masked key (weight 0)",
         (_w(0.1, 0.0, 0.5, 0.15, 0.25),
          _w([1.0, 0.0, -1.0], [9.0, 9.0, 9.0], [0.5, 2.0, 0.0], [-2.0, 1.0, 1.0], [0.0, 0.0, 4.0]))),
)

CONTRIBUTIONS_MISTAKES = (
    KnownMistake(
        "summed too early",
        "You returned the output, `weights @ values`: the contributions already added up. Keep one "
        "row per key: multiply each value vector by its own weight, `weights[:, None] * values`, "
        "shape (T, d_v). Summing those rows (`.sum(axis=0)`) gives the output back.",
        reproduce=(
            lambda w, v: w @ v,
            lambda w, v: (w[:, None] * v).sum(axis=0),
        ),
    ),
    KnownMistake(
        "summed each contribution",
        "You returned one number per key: each contribution's coordinates added up (a sum over the "
        "last axis, `axis=-1` or `axis=1`). Keep the vectors: row j of the result is "
        "`weights[j] * values[j]`, so the answer is `weights[:, None] * values`, shape (T, d_v), "
        "without a sum.",
        reproduce=(
            lambda w, v: (w[:, None] * v).sum(axis=-1),
            lambda w, v: w * v.sum(axis=-1),
        ),
    ),
    KnownMistake(
        "norms instead of vectors",
        "You returned one number per key, the length of each contribution. The exercise asks for the "
        "contribution *vectors*, shape (T, d_v): `weights[:, None] * values`. (Their lengths, "
        "`np.linalg.norm(..., axis=-1)`, are the |contribution| column of the table.)",
        reproduce=(
            lambda w, v: np.linalg.norm(w[:, None] * v, axis=-1),
            lambda w, v: w * np.linalg.norm(v, axis=-1),
        ),
    ),
    KnownMistake(
        "weights along the wrong axis",
        "`weights * values` lines the weights up with the *columns* of values (numpy broadcasts from "
        "the last axis), so each coordinate, not each key, gets a weight; it only runs when T equals "
        "d_v. Give the weights a column shape: `weights[:, None] * values`, (T, 1) * (T, d_v).",
        reproduce=(lambda w, v: w * v, lambda w, v: w[None, :] * v),
        error=BROADCAST_ERROR,
    ),
    KnownMistake(
        "transposed",
        "Your result has one row per coordinate and one column per key, (d_v, T). Return one row per "
        "key, (T, d_v): `weights[:, None] * values`, without `.T`.",
        reproduce=(lambda w, v: (w[:, None] * v).T, lambda w, v: w * v.T),
    ),
    KnownMistake(
        "matrix product",
        "`@` sums over an axis, but a contribution is an elementwise product: each value vector "
        "times one number. Use `*`: `weights[:, None] * values`.",
        error=MATMUL_ERROR,
    ),
)

_CONTRIBUTION_HINTS = {
    "values": "Row j of the result is `weights[j] * values[j]`: in one line, `weights[:, None] * values`.",
    "shape": "The result has one row per key and one column per value coordinate: shape (T, d_v).",
}


@checker("contributions", mistakes=CONTRIBUTIONS_MISTAKES)
def check_contributions(contributions):
    """Check a learner's ``contributions(weights, values) -> (T, d_v)``, ``weights[j] * values[j]``."""
    return run_check(
        contributions, reference=cu.lessons.influence.contributions, cases=_CONTRIBUTION_CASES,
        arg_names=("weights", "values"), hints=_CONTRIBUTION_HINTS,
    )


# ================================================================ removal effects
def _removed(scores, values, *, fill=-np.inf, softmax="course"):
    """(output, outputs without each key) with key j's score replaced by ``fill``."""
    scores, values = np.asarray(scores, dtype=float), np.asarray(values, dtype=float)
    sm = SOFTMAXES[softmax]
    output = sm(scores) @ values  # (d_v,)
    T = scores.shape[0]
    masked = np.where(np.eye(T, dtype=bool), fill, scores[None, :])  # (T, T)
    return output, sm(masked) @ values  # (d_v,), (T, d_v)


def _effects(scores, values, **knobs):
    output, without = _removed(scores, values, **knobs)
    return np.linalg.norm(output - without, axis=-1)


def _diffs(scores, values):
    output, without = _removed(scores, values)
    return output - without  # (T, d_v)


_REMOVAL_CASES = (
    Case("two keys", (_w(1.0, 0.0), _w([1.0, 0.0], [0.0, 2.0]))),
    Case("notebook 01's row", (ARTICLE_SCORES.copy(), ARTICLE_VALUES.copy())),
    Case("one key: removing it leaves no permitted key", (_w(0.3), _w([1.0, 2.0]))),
    Case("a key that is already masked (score -inf)",
         (_w(1.0, -np.inf, 0.5, 0.0), _w([1.0, 0.0], [5.0, 5.0], [0.0, 1.0], [-1.0, -1.0]))),
    Case("the experiment's row (5 keys)", (EXPERIMENT_SCORES.copy(), EXPERIMENT_VALUES.copy())),
    Case("large scores", (_w(1000.0, 999.0, 990.0), _w([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 9.0]))),
)

REMOVAL_EFFECTS_MISTAKES = (
    KnownMistake(
        "not renormalised",
        "Your effects are `weight * |value|`, the length of each contribution: the output minus that "
        "key's share, with the other weights left as they were. That is what zeroing a *weight* does. "
        "Removing a key means masking its *score* (-inf) before the softmax, so the remaining weights "
        "are renormalised to sum to one again; then recompute the output and take the norm of the "
        "change.",
        reproduce=lambda s, v: course_softmax(np.asarray(s, dtype=float)) * np.linalg.norm(v, axis=-1),
    ),
    KnownMistake(
        "weight as effect",
        "You returned the weights themselves. The effect of a key is measured, not read off the "
        "heatmap: remove the key (its score to -inf), recompute the output, and take "
        "`np.linalg.norm(output - output_without)`.",
        reproduce=lambda s, v: course_softmax(np.asarray(s, dtype=float)),
    ),
    KnownMistake(
        "signed difference",
        "An effect is a size, one non-negative number per key: the Euclidean norm of the change, "
        "`np.linalg.norm(output - output_without)`. A signed difference (or its sum over the "
        "coordinates) lets changes in opposite directions cancel, and its sign depends on the order "
        "of the subtraction.",
        reproduce=(
            lambda s, v: _diffs(s, v),
            lambda s, v: -_diffs(s, v),
            lambda s, v: _diffs(s, v).sum(axis=-1),
            lambda s, v: -_diffs(s, v).sum(axis=-1),
        ),
    ),
    KnownMistake(
        "difference of norms",
        "You compare the lengths of the two outputs, `|output| - |output_without|`. Two outputs of the "
        "same length can point in different directions: take the length of the difference instead, "
        "`np.linalg.norm(output - output_without)`.",
        reproduce=(
            lambda s, v: np.linalg.norm(_removed(s, v)[0]) - np.linalg.norm(_removed(s, v)[1], axis=-1),
            lambda s, v: np.linalg.norm(_removed(s, v)[1], axis=-1) - np.linalg.norm(_removed(s, v)[0]),
            lambda s, v: np.abs(np.linalg.norm(_removed(s, v)[0]) - np.linalg.norm(_removed(s, v)[1], axis=-1)),
        ),
    ),
    KnownMistake(
        "squared norm",
        "You return the *squared* length of the change, `((output - output_without) ** 2).sum()`. "
        "Take its square root: `np.linalg.norm(output - output_without)`, so that an effect is in the "
        "same units as the output.",
        reproduce=lambda s, v: (_diffs(s, v) ** 2).sum(axis=-1),
    ),
    KnownMistake(
        "other norm",
        "Measure the change with the Euclidean norm, `np.linalg.norm(output - output_without)` (the "
        "square root of the sum of squares), not the sum or the largest of the absolute differences.",
        reproduce=(lambda s, v: np.abs(_diffs(s, v)).sum(axis=-1), lambda s, v: np.abs(_diffs(s, v)).max(axis=-1)),
    ),
    catalogued("large negative number in an empty row", reproduce=lambda s, v: _effects(s, v, fill=-1e9)),
    KnownMistake(
        "score set to 0",
        "Setting the removed key's *score* to 0 does not remove it: exp(0) = 1, so it still gets "
        "weight (often more than before). A removed key's score must be -inf, "
        "`np.where(np.arange(T) == j, -np.inf, scores)`, so that its weight is exactly 0.",
        reproduce=lambda s, v: _effects(s, v, fill=0.0),
    ),
    catalogued("nan in an empty row", reproduce=lambda s, v: _effects(s, v, softmax="shifted")),
    catalogued("no max shift", reproduce=(lambda s, v: _effects(s, v, softmax="naive"),
                                          lambda s, v: _effects(s, v, softmax="naive, empty rows handled"))),
)

_REMOVAL_HINTS = {
    "values": (
        "For each key j: copy the scores, set score j to -np.inf, softmax, multiply by the values, and "
        "take `np.linalg.norm(output - output_without_j)`, where `output = cu.softmax(scores) @ values`."
    ),
    "shape": "Return one effect per key: an array of shape (T,).",
}


@checker("removal_effects", mistakes=REMOVAL_EFFECTS_MISTAKES)
def check_removal_effects(removal_effects):
    """Check a learner's ``removal_effects(scores, values) -> (T,)``: scores (T,), values (T, d_v)."""
    return run_check(
        removal_effects, reference=cu.lessons.influence.removal_effects, cases=_REMOVAL_CASES,
        arg_names=("scores", "values"), hints=_REMOVAL_HINTS,
    )


# ================================================================ capstone layer
def _reference_capstone(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    T = np.asarray(x).shape[-2]
    mask = cu.causal_mask(T)[None, :, :] & cu.padding_mask(np.asarray(lengths), T)[:, None, :]  # (B, T, T)
    return cu.multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, mask=mask)


def _layer(x, lengths, w_q, w_k, w_v, w_o, num_heads, *, masks="both", combine="and", pad_axis="keys",
           invert=False, diagonal=0, causal="tril", heads=True, softmax="course", **attention):
    """The capstone layer with one knob per mistake (the buggy versions the checker recognises): the mask it
    builds from ``lengths``, then notebook 04's ``multi_head_variant`` with the ``attention`` knobs (e.g.
    ``mask_at="weights"``: an unmasked softmax, then the blocked weights set to 0; renormalising each row after
    that gives the right weights wherever a row has a permitted key: not a mistake of its own).
    """
    x = np.asarray(x, dtype=float)
    B, T, _ = x.shape
    positions = np.arange(T)
    lower = positions[None, :] <= positions[:, None] + diagonal  # (T, T); diagonal 1: sees the next token
    causal = {"tril": lower, "triu": lower.T, "eye": np.eye(T, dtype=bool)}[causal]
    real = positions[None, :] < np.asarray(lengths)[:, None]  # (B, T)
    pad = real[:, None, :] if pad_axis == "keys" else real[:, :, None]  # (B, 1, T) or (B, T, 1)
    if masks == "causal":
        mask = np.broadcast_to(causal, (B, T, T))
    elif masks == "padding":
        mask = np.broadcast_to(pad, (B, T, T))
    else:
        mask = (causal & pad) if combine == "and" else (causal | pad)  # (B, T, T)
    if invert:
        mask = ~mask
    mask = None if masks == "none" else mask
    output, weights = multi_head_variant(x, w_q, w_k, w_v, w_o, num_heads if heads else 1, mask,
                                         softmax=SOFTMAXES[softmax], **attention)  # weights (B, h, T, T)
    return output, weights if heads else weights[:, 0]  # one head: (B, T, T)


def _names_scores_shape(exc, args):
    """True if the error message names the scores' shape (B, h, T, T) of this case: the error came
    from meeting the scores (not from building the mask itself)."""
    B, T, _ = np.shape(args[0])
    h = int(args[-1])
    return f"({B},{h},{T},{T})" in str(exc).replace(" ", "")


def _variants(**fixed):
    """Buggy layers sharing ``fixed`` knobs, with each usual way of handling a row with no key."""
    return variants(_layer, (dict(), dict(softmax="shifted"), dict(fill=-1e9)), **fixed)


def _inputs(seed, B, T, d_model, lengths, x=None):
    rng = np.random.default_rng(seed)
    if x is None:
        x = rng.normal(size=(B, T, d_model)).round(2)
    ws = [(rng.normal(size=(d_model, d_model)) / np.sqrt(d_model)).round(2) for _ in range(4)]
    return (x, np.array(lengths, dtype=int), *ws)


def _capstone_cases():
    tickets_x, tickets_lengths, _ = padded_batch()  # (4, 6, 4), lengths (4,)
    return (
        Case("one ticket of length 2 padded to 3, one head (d_model = 2)",
             (*_inputs(50, 1, 3, 2, [2]), 1)),
        Case("two tickets of lengths 3 and 1, two heads (d_model = 4)",
             (*_inputs(51, 2, 3, 4, [3, 1]), 2)),
        Case("a ticket of length 0: every key is padding, so its rows have no permitted key",
             (*_inputs(52, 2, 3, 4, [2, 0]), 2)),
        Case("the four toy tickets of notebook 03 padded to 6, two heads",
             (*_inputs(53, 4, 6, 4, tickets_lengths, x=tickets_x), 2)),
        Case("three tickets of lengths 5, 0, 2, four heads (d_model = 8)",
             (*_inputs(54, 3, 5, 8, [5, 0, 2]), 4)),
        # 04's large scores: in head 0 query 0 scores the future key 2 about 3700 above key 0, query 2 about 815
        Case("large scores: a later key scores far above the permitted ones, two heads (d_model = 4)",
             (LARGE_SCORES[0][None].copy(), np.array([3]), *(a.copy() for a in LARGE_SCORES[1:]), np.eye(4),
              np.eye(4), 2)),
    )


_CAPSTONE_CASES = _capstone_cases()

CAPSTONE_MISTAKES = (
    catalogued("no output projection", reproduce=_variants(out="none")),
    catalogued("swapped W_K and W_V", reproduce=_variants(swap_kv=True)),
    catalogued("nan in an empty row", reproduce=lambda *a: _layer(*a, softmax="shifted")),
    catalogued("large negative number in an empty row",
               reproduce=(lambda *a: _layer(*a, fill=-1e9), lambda *a: _layer(*a, fill=-1e9, additive=True))),
    catalogued("no max shift", reproduce=(lambda *a: _layer(*a, softmax="naive"),
                                          lambda *a: _layer(*a, softmax="naive, empty rows handled"))),
    KnownMistake(
        "causal only",
        "You use the causal mask only: the padding mask is missing. With right padding the causal mask "
        "already hides the <pad> keys from the real tokens, but the <pad> queries still attend to <pad> "
        "keys, and a ticket of length 0 must have no permitted key at all. Build the key padding mask "
        "too, `np.arange(T)[None, :] < lengths[:, None]` (B, T), and combine: "
        "`causal[None, :, :] & real_keys[:, None, :]` (B, T, T).",
        reproduce=_variants(masks="causal"),
    ),
    catalogued("sees the next token", reproduce=_variants(diagonal=1)),
    catalogued("cannot see itself", reproduce=_variants(diagonal=-1)),
    catalogued("future instead of past", reproduce=_variants(causal="triu")),
    catalogued("each token sees only itself", reproduce=_variants(causal="eye")),
    KnownMistake(
        "padding only",
        "You use the padding mask only: the causal mask is missing, so every token sees the tokens "
        "after it. Build it too (`np.arange(T)[None, :] <= np.arange(T)[:, None]`, (T, T)) and combine "
        "the two with `&`.",
        reproduce=_variants(masks="padding"),
    ),
    KnownMistake(
        "padding on the queries",
        "Your padding mask blocks the <pad> *queries* (rows) instead of the <pad> *keys* (columns): "
        "`real[:, :, None]` where it should be `real[:, None, :]`. A key padding mask has shape "
        "(B, 1, T): the same columns blocked for every query.",
        reproduce=_variants(pad_axis="queries"),
    ),
    KnownMistake(
        "combined with or",
        "You combine the masks with `|` (or): a key is then allowed if it is earlier *or* real, so "
        "tokens see later real tokens and <pad> keys. A key must pass both masks: `causal & padding`.",
        reproduce=_variants(combine="or"),
    ),
    catalogued("inverted mask", reproduce=_variants(invert=True)),
    catalogued("mask ignored", reproduce=_variants(masks="none")),
    catalogued("mask multiplied into the scores", reproduce=_variants(mask_at="multiply")),
    catalogued("boolean mask added to the scores", reproduce=_variants(mask_at="add")),
    KnownMistake(
        "mask without a head axis",
        # not "your mask is (B, T, T)": `mask[None]`, (1, B, T, T), gives the same result
        "The scores of every head have shape (B, h, T, T), and your mask's batch axis meets their head "
        "axis (a (B, T, T) mask, or `mask[None]` of shape (1, B, T, T)): numpy lines shapes up from the "
        "right, so ticket b's mask lands on head b (or the shapes do not broadcast). Put the head axis "
        "after the batch axis: `mask[:, None, :, :]`, shape (B, 1, T, T), shared by every head.",
        reproduce=_variants(head_axis=False),
        error=lambda exc, args: BROADCAST_ERROR(exc) and _names_scores_shape(exc, args),
    ),
    catalogued("mask after the softmax", reproduce=lambda *a: _layer(*a, mask_at="weights")),
    catalogued("zero then renormalise", reproduce=(lambda *a: _layer(*a, mask_at="renormalise"),
                                                   lambda *a: _layer(*a, mask_at="renormalise safely"))),
    catalogued("sqrt of d_model", reproduce=_variants(scale="d_model")),
    catalogued("no scale", reproduce=_variants(scale="none")),
    catalogued("divide by d_k", reproduce=_variants(scale="d_head plain")),
    catalogued("sqrt of the number of keys", reproduce=_variants(scale="keys")),
    catalogued("softmax over the wrong axis", reproduce=_variants(axis=-2) + _variants(axis=0) + _variants(axis=1)),
    catalogued("softmax over the whole array", reproduce=_variants(softmax="whole")),
    # q @ k and q @ k.T raise alike on the heads: the learner's line tells them apart (as in 04)
    catalogued("k.T on a batch", error=K_DOT_T_ERROR),
    catalogued("k not transposed", error=matmul_error_on_line(Q_AT_K_LINE)),
    catalogued("split without the transpose", reproduce=_variants(split="no transpose")),
    catalogued("interleaved columns", reproduce=_variants(split="interleave")),
    catalogued("transpose for a fixed number of axes",
               error=error_message_contains("axes don't match array", error_type=ValueError)),
    catalogued("merge without the transpose", reproduce=_variants(merge="no transpose")),
    catalogued("heads interleaved", reproduce=_variants(merge="interleave")),
    KnownMistake(
        "one head",
        "Your weights have no head axis, shape (B, T, T): one attention over all d_model columns. Split the "
        "projections into heads, `cu.split_heads(x @ w_q, num_heads)` (B, h, T, d_head), attend in every "
        "head, then `cu.merge_heads` the head outputs, and return the weights of every head, (B, h, T, T).",
        reproduce=_variants(heads=False),
    ),
    # a mistake of its own: told to split, a learner who did split would undo right code
    catalogued("weights averaged over heads", reproduce=lambda *a: _layer(*a, weights="mean")),
    catalogued("no softmax", reproduce=_variants(softmax="none")),
    swapped_outputs(_layer),
)

_CAPSTONE_HINTS = {
    "values": (
        "Go step by step on the failing input: build the (B, T, T) mask and print it as 0/1; compare it "
        "with `cu.causal_mask(T)[None] & cu.padding_mask(lengths, T)[:, None, :]`; then check the split into "
        "heads (reshape to (B, T, h, d_head), then swap the T and h axes: `cu.split_heads` does both), the "
        "softmax's axis (-1, over the keys), the scale (sqrt(d_head)) and the output projection."
    ),
    "structure": "The layer returns two things: `return output, weights`.",
    "shape": "output has shape (B, T, d_model) and weights (B, num_heads, T, T).",
    "nonfinite": (
        "nan appears where a row has no permitted key (a ticket of length 0) and the softmax divides "
        "0 by 0. Give such rows zero weights: `cu.softmax` does."
    ),
}


@checker("capstone_layer", mistakes=CAPSTONE_MISTAKES)
def check_capstone_layer(capstone_layer):
    """Check the capstone ``capstone_layer(x, lengths, w_q, w_k, w_v, w_o, num_heads) -> (output, weights)``.

    The expected result is ``cu.multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, mask)`` with
    ``mask = cu.causal_mask(T)[None] & cu.padding_mask(lengths, T)[:, None, :]``; a query with no
    permitted key (a ticket of length 0) has zero weights and a zero output row. A layer that calls
    ``cu.multi_head_attention``, ``cu.scaled_dot_product_attention``, ``cu.causal_mask`` or
    ``cu.padding_mask`` (the answer itself) is told so, kindly, and not called correct.
    """
    return run_check(
        capstone_layer, reference=_reference_capstone, cases=_CAPSTONE_CASES, hints=_CAPSTONE_HINTS,
        arg_names=("x", "lengths", "w_q", "w_k", "w_v", "w_o", "num_heads"), output_names=("output", "weights"),
    )
