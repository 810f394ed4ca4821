"""Checkers for notebook 05 (reading attention plots): the "what is wrong here?" exercise (with the
mystery heatmaps it shows), per-key contributions, removal effects, and the capstone layer.

The reference code is ``course_utils``: ``influence.contributions``, ``influence.removal_effects``,
and, for the capstone, ``multi_head_attention`` with ``causal_mask(T) & padding_mask(lengths, T)``.
"""
from dataclasses import dataclass

import numpy as np

import course_utils as cu
from course_utils import content
from course_utils.checks._catalogue import catalogued, own, own_hints, own_texts
from course_utils.checks._choice_answers import ChoiceAnswers
from course_utils.checks._framework import (
    Case,
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
    example=own_texts("plot_diagnoses")["example"],
    read_key=lambda key: str(key).strip().upper(),
    read_value=_normalise_diagnosis,
    show=lambda answer: f"you said {answer!r}",
    valid=own_texts("plot_diagnoses")["valid"].format(diagnoses=", ".join(f'"{d}"' for d in DIAGNOSES)),
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
    own(
        "contributions", "summed too early",
        reproduce=(
            lambda w, v: w @ v,
            lambda w, v: (w[:, None] * v).sum(axis=0),
        ),
    ),
    own(
        "contributions", "summed each contribution",
        reproduce=(
            lambda w, v: (w[:, None] * v).sum(axis=-1),
            lambda w, v: w * v.sum(axis=-1),
        ),
    ),
    own(
        "contributions", "norms instead of vectors",
        reproduce=(
            lambda w, v: np.linalg.norm(w[:, None] * v, axis=-1),
            lambda w, v: w * np.linalg.norm(v, axis=-1),
        ),
    ),
    own(
        "contributions", "weights along the wrong axis",
        reproduce=(lambda w, v: w * v, lambda w, v: w[None, :] * v),
        error=BROADCAST_ERROR,
    ),
    own("contributions", "transposed", reproduce=(lambda w, v: (w[:, None] * v).T, lambda w, v: w * v.T)),
    own("contributions", "matrix product", error=MATMUL_ERROR),
)

@checker("contributions", mistakes=CONTRIBUTIONS_MISTAKES)
def check_contributions(contributions):
    """Check a learner's ``contributions(weights, values) -> (T, d_v)``, ``weights[j] * values[j]``."""
    return run_check(
        contributions, reference=cu.lessons.influence.contributions, cases=_CONTRIBUTION_CASES,
        arg_names=("weights", "values"), hints=own_hints("contributions"),
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
    own(
        "removal_effects", "not renormalised",
        reproduce=lambda s, v: course_softmax(np.asarray(s, dtype=float)) * np.linalg.norm(v, axis=-1),
    ),
    own("removal_effects", "weight as effect", reproduce=lambda s, v: course_softmax(np.asarray(s, dtype=float))),
    own(
        "removal_effects", "signed difference",
        reproduce=(
            lambda s, v: _diffs(s, v),
            lambda s, v: -_diffs(s, v),
            lambda s, v: _diffs(s, v).sum(axis=-1),
            lambda s, v: -_diffs(s, v).sum(axis=-1),
        ),
    ),
    own(
        "removal_effects", "difference of norms",
        reproduce=(
            lambda s, v: np.linalg.norm(_removed(s, v)[0]) - np.linalg.norm(_removed(s, v)[1], axis=-1),
            lambda s, v: np.linalg.norm(_removed(s, v)[1], axis=-1) - np.linalg.norm(_removed(s, v)[0]),
            lambda s, v: np.abs(np.linalg.norm(_removed(s, v)[0]) - np.linalg.norm(_removed(s, v)[1], axis=-1)),
        ),
    ),
    own("removal_effects", "squared norm", reproduce=lambda s, v: (_diffs(s, v) ** 2).sum(axis=-1)),
    own(
        "removal_effects", "other norm",
        reproduce=(lambda s, v: np.abs(_diffs(s, v)).sum(axis=-1), lambda s, v: np.abs(_diffs(s, v)).max(axis=-1)),
    ),
    catalogued("large negative number in an empty row", reproduce=lambda s, v: _effects(s, v, fill=-1e9)),
    own("removal_effects", "score set to 0", reproduce=lambda s, v: _effects(s, v, fill=0.0)),
    catalogued("nan in an empty row", reproduce=lambda s, v: _effects(s, v, softmax="shifted")),
    catalogued("no max shift", reproduce=(lambda s, v: _effects(s, v, softmax="naive"),
                                          lambda s, v: _effects(s, v, softmax="naive, empty rows handled"))),
)

@checker("removal_effects", mistakes=REMOVAL_EFFECTS_MISTAKES)
def check_removal_effects(removal_effects):
    """Check a learner's ``removal_effects(scores, values) -> (T,)``: scores (T,), values (T, d_v)."""
    return run_check(
        removal_effects, reference=cu.lessons.influence.removal_effects, cases=_REMOVAL_CASES,
        arg_names=("scores", "values"), hints=own_hints("removal_effects"),
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
    own("capstone_layer", "causal only", reproduce=_variants(masks="causal")),
    catalogued("sees the next token", reproduce=_variants(diagonal=1)),
    catalogued("cannot see itself", reproduce=_variants(diagonal=-1)),
    catalogued("future instead of past", reproduce=_variants(causal="triu")),
    catalogued("each token sees only itself", reproduce=_variants(causal="eye")),
    own("capstone_layer", "padding only", reproduce=_variants(masks="padding")),
    own("capstone_layer", "padding on the queries", reproduce=_variants(pad_axis="queries")),
    own("capstone_layer", "combined with or", reproduce=_variants(combine="or")),
    catalogued("inverted mask", reproduce=_variants(invert=True)),
    catalogued("mask ignored", reproduce=_variants(masks="none")),
    catalogued("mask multiplied into the scores", reproduce=_variants(mask_at="multiply")),
    catalogued("boolean mask added to the scores", reproduce=_variants(mask_at="add")),
    own(
        "capstone_layer", "mask without a head axis",
        # not "your mask is (B, T, T)": `mask[None]`, (1, B, T, T), gives the same result
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
    own("capstone_layer", "one head", reproduce=_variants(heads=False)),
    # a mistake of its own: told to split, a learner who did split would undo right code
    catalogued("weights averaged over heads", reproduce=lambda *a: _layer(*a, weights="mean")),
    catalogued("no softmax", reproduce=_variants(softmax="none")),
    swapped_outputs(_layer),
)

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
        capstone_layer, reference=_reference_capstone, cases=_CAPSTONE_CASES, hints=own_hints("capstone_layer"),
        arg_names=("x", "lengths", "w_q", "w_k", "w_v", "w_o", "num_heads"), output_names=("output", "weights"),
    )
