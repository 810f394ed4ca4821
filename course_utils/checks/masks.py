"""Checkers for notebook 03 (masks): causal_mask, padding_mask, masked_attention, and the
diagnostic exercise "find the buggy mask" (with the candidate masks it shows).

Masks follow PyTorch's ``scaled_dot_product_attention``: boolean, True = the query may attend to
the key. The two mask checkers judge True/False patterns with ``MaskComparison``, and the diagnostic
exercise judges a dict of labels with ``ChoiceAnswers``, whose answer key stays inside this module.
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
    Q_AT_K_LINE,
    course_softmax,
    matmul_error_on_line,
    naive_softmax,
    naive_softmax_empty_rows_zero,
    no_softmax,
    shifted_softmax,
    swapped_outputs,
    whole_softmax,
)
from course_utils.checks._mask_answers import MaskComparison
from course_utils.lessons.data import TICKET, TICKETS
from course_utils.lessons.masking import masked_weights

__all__ = [
    "CAUSAL_MASK_MISTAKES",
    "PADDING_MASK_MISTAKES",
    "MASKED_ATTENTION_MISTAKES",
    "MASK_SITUATIONS",
    "MaskCandidate",
    "MaskSituation",
]


# ================================================================ causal_mask
def _tril(T, k=0):
    return np.tril(np.ones((T, T), dtype=bool), k=k)


_CAUSAL_CASES = (
    Case("T = 1", (1,)),
    Case("T = 2", (2,)),
    Case("T = 3", (3,)),
    Case("T = 5 (the ticket 'my charger is missing please')", (5,)),
)


CAUSAL_MASK_MISTAKES = (
    own("causal_mask", "inverted", reproduce=lambda T: ~_tril(T)),
    catalogued("future instead of past", reproduce=lambda T: _tril(T).T),
    catalogued("sees the next token", reproduce=lambda T: _tril(T, 1)),
    catalogued("cannot see itself", reproduce=lambda T: _tril(T, -1)),
    catalogued("each token sees only itself", reproduce=lambda T: np.eye(T, dtype=bool)),
    own(
        "causal_mask", "tril of a number",
        error=lambda exc: isinstance(exc, (TypeError, ValueError)) and (
            "tri()" in str(exc) or "at least 2-d" in str(exc)
        ),
    ),
)

@checker("causal_mask", mistakes=CAUSAL_MASK_MISTAKES)
def check_causal_mask(causal_mask):
    """Check a learner's ``causal_mask(T)``: (T, T) bool, True (may attend) on and below the diagonal."""
    return run_check(
        causal_mask, reference=cu.causal_mask, cases=_CAUSAL_CASES, arg_names=("T",), hints=own_hints("causal_mask"),
        compare=MaskComparison(own_texts("causal_mask")["bool mask"]),
    )


# ================================================================ padding_mask
def _lengths(*values):
    return np.array(values, dtype=int)


_PADDING_CASES = (
    Case("one sequence, no padding", (_lengths(1), 1)),
    Case("two sequences", (_lengths(2, 1), 3)),
    Case("a sequence of length 0", (_lengths(3, 0, 2), 4)),
    Case("the four tickets of notebook 03", (_lengths(*(len(t) for t in TICKETS)), 6)),
    Case("T longer than every sequence", (_lengths(2, 3), 5)),
)


def _pad_compare(op):
    def buggy(lengths, T):
        return op(np.arange(T)[None, :], np.asarray(lengths)[:, None])  # (1, T) against (B, 1) -> (B, T)

    return buggy


PADDING_MASK_MISTAKES = (
    own("padding_mask", "inverted", reproduce=(_pad_compare(np.greater_equal), _pad_compare(np.greater))),
    own("padding_mask", "one padding position too many", reproduce=_pad_compare(np.less_equal)),
    own(
        "padding_mask", "one real position too few",
        reproduce=lambda lengths, T: _pad_compare(np.less)(np.asarray(lengths) - 1, T),
    ),
    own("padding_mask", "transposed", reproduce=lambda lengths, T: _pad_compare(np.less)(lengths, T).T),
    own(
        "padding_mask", "longest sequence instead of T",
        reproduce=lambda lengths, T: _pad_compare(np.less)(lengths, int(np.max(lengths))),
    ),
    own(
        "padding_mask", "one row for all sequences",
        reproduce=lambda lengths, T: np.arange(T) < np.asarray(lengths),
        error=BROADCAST_ERROR,
    ),
)

@checker("padding_mask", mistakes=PADDING_MASK_MISTAKES)
def check_padding_mask(padding_mask):
    """Check a learner's ``padding_mask(lengths, T)``: lengths (B,) ints -> (B, T) bool,
    ``mask[b, t] = t < lengths[b]`` (True at the real positions)."""
    return run_check(
        padding_mask, reference=cu.padding_mask, cases=_PADDING_CASES, arg_names=("lengths", "T"),
        hints=own_hints("padding_mask"),
        compare=MaskComparison(own_texts("padding_mask")["bool mask"]),
    )


# ================================================================ masked_attention
def _arr(rows):
    return np.array(rows, dtype=float)


_CAUSAL_3 = np.tril(np.ones((3, 3), dtype=bool))

_ATTENTION_CASES = (
    Case(
        "one query, one permitted key",
        (_arr([[1.0, 0.0]]), _arr([[0.5, 1.0]]), _arr([[2.0, -1.0]]), np.array([[True]])),
    ),
    Case(
        "causal mask, 3 positions",
        (
            _arr([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
            _arr([[1.0, 0.0], [0.5, 0.5], [0.0, 2.0]]),
            _arr([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]),
            _CAUSAL_3.copy(),
        ),
    ),
    Case(
        "key padding shared by every query, mask shape (1, 4)",
        (
            _arr([[1.0, 0.0], [0.0, 1.0], [1.0, -1.0], [0.5, 0.5]]),
            _arr([[1.0, 1.0], [-1.0, 0.0], [0.0, 2.0], [3.0, 3.0]]),
            _arr([[1.0, 0.0, 2.0], [0.0, 1.0, 0.0], [1.0, 1.0, 1.0], [9.0, 9.0, 9.0]]),
            np.array([[True, True, True, False]]),
        ),
    ),
    Case(
        "a batch of 2 with key padding, mask shape (2, 1, 3)",
        (
            _arr([[[1, 0, 0, 1], [0, 1, 0, 0], [1, 1, 1, 1]], [[0, 0, 1, 0], [1, -1, 0, 0], [0, 2, 0, 1]]]),
            _arr([[[1, 1, 0, 0], [0, 0, 1, 1], [2, 0, 0, 0]], [[0, 1, 0, 1], [1, 0, 1, 0], [0, 0, 0, 2]]]),
            _arr([[[1, 0], [0, 1], [5, 5]], [[1, 2], [3, 4], [5, 6]]]),
            np.array([[[True, True, False]], [[True, True, True]]]),
        ),
    ),
    Case(
        "a query with no permitted key (left padding + causal mask)",
        (
            _arr([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
            _arr([[1.0, 0.0], [0.5, 0.5], [0.0, 2.0]]),
            _arr([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]),
            _CAUSAL_3 & np.array([[False, True, True]]),
        ),
    ),
    Case(
        "large scores, causal mask",
        (
            _arr([[50.0, 0.0], [0.0, 50.0], [50.0, 50.0]]),
            _arr([[25.0, 0.0], [25.0, 0.05], [0.0, 25.05]]),
            _arr([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]),
            _CAUSAL_3.copy(),
        ),
    ),
)


def _attend(q, k, v, mask, *, fill=-np.inf, how="before", softmax=course_softmax, scale="sqrt",
            invert=False, axis=-1):
    """Masked attention with one knob per mistake (the buggy versions the checker recognises).

    how: "before" (blocked scores set to ``fill``), "zero" (softmax of all scores, then blocked
    weights set to 0), "renormalise" (zero, then divide by the row sums; "renormalise safely": rows
    summing to 0 stay 0), "multiply" (scores * mask),
    "add" (scores + mask), "additive" (scores + fill * ~mask), "ignore" (no mask at all).
    """
    q, k, v = (np.asarray(a, dtype=float) for a in (q, k, v))
    mask = np.asarray(mask, dtype=bool)
    if invert:
        mask = ~mask
    d_k, t_k, d_v = q.shape[-1], k.shape[-2], v.shape[-1]
    divisor = {"sqrt": np.sqrt(d_k), "none": 1.0, "d_k": d_k, "sqrt_T": np.sqrt(t_k), "sqrt_d_v": np.sqrt(d_v)}[scale]
    scores = q @ np.swapaxes(k, -1, -2) / divisor  # (..., T_q, T_k)
    weights = {
        "before": lambda: softmax(np.where(mask, scores, fill), axis=axis),
        # the look-alikes of notebook 03 (one home: course_utils.lessons.masking)
        "zero": lambda: masked_weights(scores, mask, "zero", softmax=softmax),
        "renormalise safely": lambda: masked_weights(scores, mask, "renormalise", softmax=softmax),
        "renormalise": lambda: (zeroed := masked_weights(scores, mask, "zero", softmax=softmax))
        / zeroed.sum(axis=-1, keepdims=True),  # 0 / 0 = nan where nothing is left
        "multiply": lambda: softmax(scores * mask, axis=axis),
        "add": lambda: softmax(scores + mask, axis=axis),
        "additive": lambda: softmax(scores + fill * ~mask, axis=axis),
        "ignore": lambda: softmax(scores, axis=axis),
    }[how]()
    weights = np.broadcast_to(weights, np.broadcast_shapes(weights.shape, scores.shape))
    return weights @ v, weights  # (..., T_q, d_v), (..., T_q, T_k)


def _variants(**fixed):
    """Buggy versions sharing ``fixed`` knobs, over the usual ways of handling an empty row."""
    handlings = (
        dict(),                                   # -inf and a softmax that returns zeros
        dict(softmax=shifted_softmax),           # -inf and a max-shifted softmax: nan
        dict(softmax=naive_softmax),             # -inf and exp / sum: nan
        dict(fill=-1e9),                          # a large negative number: uniform weights
        dict(how="additive", fill=-1e9),          # scores - 1e9 at blocked keys
    )
    if fixed.get("how") in ("zero", "renormalise", "multiply", "add", "ignore"):
        handlings = [h for h in handlings if "fill" not in h]  # fill plays no part there
    return variants(_attend, handlings, **fixed)


MASKED_ATTENTION_MISTAKES = (
    catalogued("mask ignored", reproduce=_variants(how="ignore")),
    catalogued("mask after the softmax", reproduce=(
        lambda q, k, v, m: _attend(q, k, v, m, how="zero"),
        lambda q, k, v, m: _attend(q, k, v, m, how="zero", softmax=shifted_softmax),
    )),
    catalogued("inverted mask", reproduce=_variants(invert=True) + (
        lambda q, k, v, m: _attend(q, k, v, m, how="zero", invert=True),
    )),
    # (exp / sum without the shift gives the same nan row, but it also overflows on large scores: "no max shift")
    catalogued("nan in an empty row", reproduce=lambda q, k, v, m: _attend(q, k, v, m, softmax=shifted_softmax)),
    catalogued("zero then renormalise", reproduce=(
        lambda q, k, v, m: _attend(q, k, v, m, how="renormalise"),
        lambda q, k, v, m: _attend(q, k, v, m, how="renormalise safely"),
    )),
    catalogued("large negative number in an empty row", reproduce=(
        lambda q, k, v, m: _attend(q, k, v, m, fill=-1e9),
        lambda q, k, v, m: _attend(q, k, v, m, how="additive", fill=-1e9),
    )),
    catalogued("no max shift", reproduce=(
        lambda q, k, v, m: _attend(q, k, v, m, softmax=naive_softmax),
        lambda q, k, v, m: _attend(q, k, v, m, softmax=naive_softmax_empty_rows_zero),  # empty rows handled
    )),
    catalogued("mask multiplied into the scores", reproduce=_variants(how="multiply")),
    catalogued("boolean mask added to the scores", reproduce=_variants(how="add")),
    own(
        "masked_attention", "scaled by sqrt(d_v)",
        fill=lambda got, args: {"d_v": np.shape(args[2])[-1], "d_k": np.shape(args[0])[-1]},
        reproduce=_variants(scale="sqrt_d_v"),
    ),
    catalogued("no scale", reproduce=_variants(scale="none")),
    catalogued("divide by d_k", reproduce=_variants(scale="d_k")),
    catalogued("sqrt of the number of keys", reproduce=_variants(scale="sqrt_T")),
    catalogued("softmax over the wrong axis", reproduce=_variants(axis=-2) + _variants(axis=0)),
    catalogued("softmax over the whole array", reproduce=_variants(softmax=whole_softmax)),
    catalogued("no softmax", reproduce=_variants(softmax=no_softmax)),
    swapped_outputs(_attend),
    # the batch case has B=2, T=3, d_k=4: q (2, 3, 4) @ k.T (4, 3, 2) fails with exactly this
    catalogued("k.T on a batch", error=error_message_contains("(size 3 is different from 4)", error_type=ValueError)),
    catalogued("transpose for a fixed number of axes",
               error=error_message_contains("axes don't match array", error_type=ValueError)),
    # every case makes q @ k raise, as alike as `v @ weights` does: the learner's line tells them apart
    catalogued("k not transposed", error=matmul_error_on_line(Q_AT_K_LINE)),
    own(
        "masked_attention", "matmul shapes",
        error=error_message_contains("matmul", "not aligned", error_type=ValueError),
    ),
)

@checker("masked_attention", mistakes=MASKED_ATTENTION_MISTAKES)
def check_masked_attention(masked_attention):
    """Check a learner's ``masked_attention(q, k, v, mask) -> (output, weights)``.

    q (..., T_q, d_k), k (..., T_k, d_k), v (..., T_k, d_v), mask bool broadcastable to (..., T_q, T_k),
    True = may attend -> output (..., T_q, d_v), weights (..., T_q, T_k). A query with no permitted key
    must get zero weights and a zero output (not NaN); masking with a large negative number (e.g. -1e9)
    is accepted where its results match.
    """
    return run_check(
        masked_attention,
        reference=cu.scaled_dot_product_attention,
        cases=_ATTENTION_CASES,
        arg_names=("q", "k", "v", "mask"),
        output_names=("output", "weights"),
        hints=own_hints("masked_attention"),
    )


# ================================================================ find the buggy mask
@dataclass(frozen=True)
class MaskCandidate:
    """One candidate mask of the diagnostic exercise (what the notebook draws; no verdict).

    label : "A", "B" or "C".
    mask : ndarray of bool, shape (T, T), True = may attend.
    """

    label: str
    mask: np.ndarray


@dataclass(frozen=True)
class MaskSituation:
    """A situation of the diagnostic exercise: one ticket, the intended mask, three candidates.

    key : the name the learner's answer uses, e.g. "causal".
    title : one line for the plot.
    ticket : the real tokens; they are padded (at the end) to length T.
    T : the padded length.
    intended : what the mask should do, in words.
    candidates : tuple of MaskCandidate.

    Which candidates are buggy, and why, is the checker's answer key (``_VERDICTS``), kept out of
    these objects so that the notebook's namespace does not carry the answers.
    """

    key: str
    title: str
    ticket: tuple
    T: int
    intended: str
    candidates: tuple


@dataclass(frozen=True)
class _Verdict:
    """The answer key for one candidate: buggy or not, why (shown once all is right), where to look."""

    buggy: bool
    why: str
    look: str


#: The answer key of the diagnostic exercise (course_utils/content/answers.toml): situation -> label -> buggy, why,
#: look; and the rule shown with the hints.
_ANSWER_KEY = content.read("answers")["buggy_masks"]


def _situations():
    t5 = _tril(5)
    pad2 = np.arange(5) < 2  # "refund please" + 3 padding positions
    pad3 = np.arange(5) < 3  # "cable broken please" + 2 padding positions
    causal = MaskSituation(
        "causal", "causal mask for a 5-token ticket (no padding)", TICKET, 5,
        "each token may attend to itself and the tokens before it, never to a later token",
        (MaskCandidate("A", _tril(5, 1)), MaskCandidate("B", t5), MaskCandidate("C", ~t5)),
    )
    padding = MaskSituation(
        "padding", "padding mask for 'refund please' padded to 5 (no causal mask)", TICKETS[3], 5,
        "the real tokens attend to the real tokens only; the outputs at <pad> positions are thrown away",
        (
            MaskCandidate("A", np.broadcast_to(pad2[None, :], (5, 5)).copy()),  # the padded keys
            MaskCandidate("B", np.broadcast_to(pad2[:, None], (5, 5)).copy()),  # the padded queries instead
            MaskCandidate("C", pad2[:, None] & pad2[None, :]),  # keys and queries
        ),
    )
    both = MaskSituation(
        "causal + padding", "causal + padding mask for 'cable broken please' padded to 5 (right padding)",
        TICKETS[1][:3], 5,
        "causal among the real tokens; no real token sees a <pad>",
        (
            MaskCandidate("A", t5 | pad3[None, :]),  # | instead of &
            MaskCandidate("B", t5.copy()),  # the causal mask alone
            MaskCandidate("C", _tril(5, -1) & pad3[None, :]),  # k=-1: no token sees itself
        ),
    )
    return (causal, padding, both)


#: The three situations of the diagnostic exercise, in the notebook's order (data only).
MASK_SITUATIONS = _situations()
#: {(situation key, label): _Verdict}, from the answer key.
_VERDICTS = {
    (s.key, c.label): _Verdict(*(_ANSWER_KEY[s.key][c.label][part] for part in ("buggy", "why", "look")))
    for s in MASK_SITUATIONS for c in s.candidates
}


def _normalise_labels(value):
    """A set of upper-case labels from "A", "a, c", ["A", "C"], ("B",), {"A"}, "" or []; None if unreadable."""
    if value is None:
        return None
    if isinstance(value, str):
        parts = value.replace(",", " ").split()
    elif isinstance(value, (list, tuple, set, frozenset)):
        parts = list(value)
    else:
        return None
    if not all(isinstance(part, str) for part in parts):
        return None
    return {part.strip().upper() for part in parts} - {""}


def _buggy_labels(situation_key):
    return frozenset(label for (key, label), v in _VERDICTS.items() if key == situation_key and v.buggy)


def _answer_key():
    """The right answer of the exercise: situation key -> set of buggy labels."""
    return {s.key: _buggy_labels(s.key) for s in MASK_SITUATIONS}


def _look(situation_key, named, buggy):
    """Where to look in each misjudged candidate of a situation: [("causal, C", text), ...]."""
    return [(f"{key}, {label}", v.look) for (key, label), v in _VERDICTS.items()
            if key == situation_key and (label in named) != v.buggy]


_BUGGY_ANSWERS = ChoiceAnswers(
    keys=[s.key for s in MASK_SITUATIONS],
    entry="situation",
    example=own_texts("buggy_masks")["example"],
    read_value=lambda v: None if (labels := _normalise_labels(v)) is None or not labels <= {"A", "B", "C"}
    else frozenset(labels),
    show=lambda labels: "you named " + (", ".join(sorted(labels)) or "none"),
    valid=own_texts("buggy_masks")["valid"],
    look=_look,
    why=lambda key: [(f"{key}, {label}", v.why) for (k, label), v in _VERDICTS.items() if k == key],
    rule=_ANSWER_KEY["rule"],
)


@checker("buggy_masks")
def check_buggy_masks(buggy_masks):
    """Check the diagnostic exercise: a function of no arguments returning a dict, situation key
    ("causal", "padding", "causal + padding") -> the labels of the buggy candidates ("A", "B", "C"),
    as a string ("A" or "A, C") or a list/tuple/set of strings; empty for none."""
    return run_check(
        buggy_masks, reference=_answer_key, cases=(Case("your answers", ()),), arg_names=(), compare=_BUGGY_ANSWERS,
    )
