"""Checkers for notebook 04 (multi-head attention): split_heads, merge_heads and a complete
multi_head_attention with an optional mask shared by every head.

Many of the mistakes they recognise keep the shapes right and scramble the numbers (a reshape without
its transpose), or work for one sequence but not for a batch.
"""
import numpy as np

import course_utils as cu
from course_utils.checks._catalogue import catalogued, own, own_hints
from course_utils.checks._framework import Case, checker, error_message_contains, run_check, variants
from course_utils.checks._learner_code import (
    K_DOT_T_ERROR,
    MATMUL_ERROR,
    Q_AT_K_LINE,
    course_softmax,
    matmul_error_on_line,
    naive_softmax,
    no_softmax,
    rounded_normal,
    shifted_softmax,
    swapped_outputs,
    whole_softmax,
)
from course_utils.lessons.data import TICKET, embed_wide, random_projections

__all__ = [
    "SPLIT_HEADS_MISTAKES",
    "MERGE_HEADS_MISTAKES",
    "MULTI_HEAD_ATTENTION_MISTAKES",
]


# ================================================================ buggy building blocks
def _error_on_a_batch(ndim):
    """Predicate for "only for one sequence": an error of code written for one sequence (unpacking
    the shape, a fixed transpose, a reshape to fixed sizes), raised on a case whose input x has
    ``ndim`` axes or more, i.e. carries a batch axis. (The same errors on a case without a batch
    have another cause.)"""
    message = error_message_contains("too many values to unpack", "axes don't match array", "cannot reshape array")

    def predicate(exc, args):
        return np.ndim(args[0]) >= ndim and message(exc)

    return predicate


def _split(x, num_heads, how="ok"):
    """(..., T, d_model) -> (..., h, T, d_head), correctly or as a known mistake does it.

    how: "ok"; "no transpose" (reshape straight to (..., h, T, d_head)); "interleave" (reshape
    to (..., T, d_head, h): head i gets columns i, i + h, ...); "forgot transpose" (stops at
    (..., T, h, d_head)); "wrong swap" (swaps the last two axes: (..., T, d_head, h)).
    """
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    h = int(num_heads)
    d = d_model // h
    return {
        "ok": lambda: np.swapaxes(x.reshape(*lead, T, h, d), -3, -2),  # (..., h, T, d)
        "no transpose": lambda: x.reshape(*lead, h, T, d),  # (..., h, T, d) but rows and columns scrambled
        "interleave": lambda: np.moveaxis(x.reshape(*lead, T, d, h), -1, -3),  # (..., h, T, d), columns i::h
        "forgot transpose": lambda: x.reshape(*lead, T, h, d),  # (..., T, h, d)
        "wrong swap": lambda: np.swapaxes(x.reshape(*lead, T, h, d), -1, -2),  # (..., T, d, h)
    }[how]()


def _merge(x, how="ok"):
    """(..., h, T, d_head) -> (..., T, h * d_head), correctly or as a known mistake does it.

    how: "ok"; "no transpose" (reshape straight away: heads and positions interleave);
    "interleave" (heads moved last: column j * h + i is column j of head i); "sum", "mean"
    (over the heads); "rows" (heads stacked below each other, (h * T, d_head));
    "batch" (``np.concatenate(x, axis=-1)`` on a batch: concatenates the batch, not the heads).
    """
    x = np.asarray(x, dtype=float)
    *lead, h, T, d = x.shape
    return {
        "ok": lambda: np.swapaxes(x, -3, -2).reshape(*lead, T, h * d),
        "no transpose": lambda: x.reshape(*lead, T, h * d),
        "interleave": lambda: np.moveaxis(x, -3, -1).reshape(*lead, T, h * d),
        "sum": lambda: x.sum(axis=-3),
        "mean": lambda: x.mean(axis=-3),
        "rows": lambda: x.reshape(*lead, h * T, d),
        "batch": lambda: np.concatenate(list(x), axis=-1),
    }[how]()


def _heads_mask(mask):
    """The mask with a heads axis inserted before (T_q, T_k): (..., 1, T_q, T_k)."""
    m = np.asarray(mask, dtype=bool)
    if m.ndim < 2:
        m = m.reshape((1,) * (2 - m.ndim) + m.shape)
    return m[..., None, :, :]


def multi_head_variant(x, w_q, w_k, w_v, w_o, num_heads, mask=None, *, split="ok", merge="ok", out="ok",
                       scale="d_head", axis=-1, use_mask=True, mask_at="scores", weights="per head",
                       softmax=course_softmax, fill=-np.inf, additive=False, head_axis=True, invert=False, swap_kv=False):
    """Multi-head attention with one knob per known mistake (also those of 05's capstone); returns (output, weights).

    mask_at: "scores" (blocked scores set to ``fill`` before the softmax, or with ``additive`` ``fill`` added
    to them), "weights" (the softmax of all scores, then the blocked weights set to 0, not renormalised),
    "renormalise" (then each row divided by its sum: 0 / 0 where nothing is left) or "renormalise safely"
    (rows summing to 0 stay 0), "multiply" (scores * mask) or "add" (scores + mask). invert: the mask's ~.
    head_axis False: the mask meets the scores (..., h, T, T) without a heads axis inserted. swap_kv: k from w_v,
    v from w_k.
    """
    x = np.asarray(x, dtype=float)
    d_model = x.shape[-1]
    h = int(num_heads)
    d = d_model // h
    projections = (w_q, w_v, w_k) if swap_kv else (w_q, w_k, w_v)
    q, k, v = (_split(x @ np.asarray(w, dtype=float), h, split) for w in projections)  # (..., h, T, d)
    divisor = {"d_head": np.sqrt(d), "d_model": np.sqrt(d_model), "none": 1.0, "d_head plain": float(d),
               "heads": np.sqrt(h), "keys": np.sqrt(x.shape[-2])}[scale]
    scores = q @ np.swapaxes(k, -1, -2) / divisor  # (..., h, T, T)
    blocked = mask is not None and use_mask
    m = (_heads_mask(mask) if head_axis else np.asarray(mask, dtype=bool)) if blocked else None
    m = ~m if blocked and invert else m
    if blocked and mask_at in ("multiply", "add"):
        scores = scores * m if mask_at == "multiply" else scores + m
    if blocked and mask_at == "scores":
        scores = scores + np.where(m, 0.0, fill) if additive else np.where(m, scores, fill)
    w = softmax(scores, axis=axis)  # (..., h, T, T)
    if blocked and mask_at not in ("scores", "multiply", "add"):
        w = np.where(m, w, 0.0)  # (..., h, T, T): rows no longer sum to one
        total = w.sum(axis=-1, keepdims=True)
        if mask_at == "renormalise":
            w = w / total
        elif mask_at == "renormalise safely":
            w = np.where(total > 0, w / np.where(total > 0, total, 1.0), 0.0)
    heads = w @ v  # (..., h, T, d)
    w_o = np.asarray(w_o, dtype=float)
    if out == "ok":
        output = _merge(heads, merge) @ w_o  # (..., T, d_model)
    elif out == "none":
        output = _merge(heads, merge)
    elif out in ("block diagonal", "averaged", "first rows", "concatenated"):
        parts = []
        for i in range(h):
            cols = slice(i * d, (i + 1) * d)
            w_head = {"block diagonal": w_o[cols, cols], "first rows": w_o[:d, :]}.get(out, w_o[cols, :])  # head i's W_O
            parts.append(heads[..., i, :, :] @ w_head)  # (..., T, d) for the block diagonal, else (..., T, d_model)
        if out in ("block diagonal", "concatenated"):
            output = np.concatenate(parts, axis=-1)  # (..., T, d_model) or (..., T, h * d_model)
        else:  # "averaged" or "first rows"
            output = sum(parts) / (h if out == "averaged" else 1)
    else:  # pragma: no cover
        raise ValueError(out)
    weights_out = w if weights == "per head" else w.mean(axis=-3)
    return output, weights_out


# ================================================================ split_heads
def _arange(*shape):
    return np.arange(int(np.prod(shape)), dtype=float).reshape(shape)


_TICKET_Q = (embed_wide(TICKET) @ random_projections()[0]).round(2)  # (5, 8): the notebook's queries, rounded

_SPLIT_CASES = (
    Case("T=3, d_model=4, 2 heads (d_head=2)", (_arange(3, 4), 2)),
    Case("T=4, d_model=6, 3 heads (d_head=2)", (_arange(4, 6), 3)),
    Case("one head: d_head = d_model = 4", (_arange(3, 4), 1)),
    Case("as many heads as columns: 4 heads of d_head=1", (_arange(2, 4), 4)),
    Case("a batch: x of shape (B, T, d_model) = (2, 3, 4), 2 heads", (_arange(2, 3, 4), 2)),
    Case("the ticket's queries: T=5, d_model=8, 4 heads", (_TICKET_Q.copy(), 4)),
)

SPLIT_HEADS_MISTAKES = (
    catalogued("split without the transpose", reproduce=lambda x, h: _split(x, h, "no transpose")),
    catalogued("interleaved columns", reproduce=lambda x, h: _split(x, h, "interleave")),
    own("split_heads", "forgot the transpose", reproduce=lambda x, h: _split(x, h, "forgot transpose")),
    own(
        "split_heads", "transposed the wrong axes",
        reproduce=(lambda x, h: _split(x, h, "wrong swap"),
                   lambda x, h: np.asarray(x, float).reshape(x.shape[-2], h, -1).T,
                   # written for 2-D input (raises on a batch, as the learner's does)
                   lambda x, h: np.asarray(x, float).reshape(x.shape[-2], h, x.shape[-1] // h).T),
    ),
    catalogued("transpose for a fixed number of axes",
               error=error_message_contains("axes don't match array", error_type=ValueError)),
    own(
        "split_heads", "only for one sequence", choose=lambda got, args: "batch" if np.ndim(args[0]) > 2 else "one sequence",
        reproduce=lambda x, h: np.swapaxes(np.asarray(x, float).reshape(-1, h, x.shape[-1] // h), 0, 1),
        error=_error_on_a_batch(3),
    ),
    own(
        "split_heads", "float d_head",
        error=error_message_contains("cannot be interpreted as an integer", error_type=TypeError),
    ),
    own(
        "split_heads", "split the positions",
        reproduce=lambda x, h: np.stack(np.split(np.asarray(x, float), h, axis=-2)),
        error=error_message_contains("does not result in an equal division"),
    ),
)

@checker("split_heads", mistakes=SPLIT_HEADS_MISTAKES)
def check_split_heads(split_heads):
    """Check ``split_heads(x, num_heads)``: (..., T, d_model) -> (..., num_heads, T, d_head), head h
    holding columns ``h * d_head:(h + 1) * d_head``. The inputs are numbered entries 0, 1, 2, ... so that
    misplaced ones can be read off."""
    return run_check(
        split_heads, reference=cu.split_heads, cases=_SPLIT_CASES, arg_names=("x", "num_heads"), hints=own_hints("split_heads"),
    )


# ================================================================ merge_heads
_TICKET_V = (embed_wide(TICKET) @ random_projections()[2]).round(2)  # (5, 8): the notebook's values, rounded

_MERGE_CASES = (
    Case("2 heads, T=3, d_head=2: x of shape (2, 3, 2)", (_arange(2, 3, 2),)),
    Case("3 heads, T=4, d_head=2: x of shape (3, 4, 2)", (_arange(3, 4, 2),)),
    Case("one head: x of shape (1, 3, 4)", (_arange(1, 3, 4),)),
    Case("a batch: x of shape (B, h, T, d_head) = (2, 2, 3, 2)", (_arange(2, 2, 3, 2),)),
    Case("the ticket's values split into 4 heads: x of shape (4, 5, 2)", (cu.split_heads(_TICKET_V, 4),)),
)



MERGE_HEADS_MISTAKES = (
    catalogued("transpose for a fixed number of axes",
               error=error_message_contains("axes don't match array", error_type=ValueError)),
    catalogued("merge without the transpose", reproduce=lambda x: _merge(x, "no transpose")),
    catalogued("heads interleaved", reproduce=(
        lambda x: _merge(x, "interleave"),
        lambda x: np.asarray(x, float).T.reshape(x.shape[-2], -1),
        # written for 3-D input (raises on a batch, as the learner's does)
        lambda x: np.asarray(x, float).transpose(1, 2, 0).reshape(x.shape[1], -1),
    )),
    own(
        "merge_heads", "summed or averaged the heads",
        reproduce=(lambda x: _merge(x, "sum"), lambda x: _merge(x, "mean"),
                   # axis=0, written for 3-D input: on a batch it sums the batch instead
                   lambda x: np.asarray(x, float).sum(axis=0), lambda x: np.asarray(x, float).mean(axis=0)),
    ),
    own(
        "merge_heads", "stacked the heads as rows",
        reproduce=(lambda x: _merge(x, "rows"),
                   # stacking the first axis, written for 3-D input (on a batch it stacks the batch)
                   lambda x: np.concatenate(list(np.asarray(x, float)), axis=0)),
    ),
    own(
        "merge_heads", "only for one sequence", choose=lambda got, args: "batch" if np.ndim(args[0]) > 3 else "one sequence",
        reproduce=(lambda x: _merge(x, "batch"), lambda x: np.hstack(np.asarray(x, float))),
        error=_error_on_a_batch(4),
    ),
)

@checker("merge_heads", mistakes=MERGE_HEADS_MISTAKES)
def check_merge_heads(merge_heads):
    """Check ``merge_heads(x)``: (..., num_heads, T, d_head) -> (..., T, num_heads * d_head), the heads
    side by side (head h fills columns ``h * d_head:(h + 1) * d_head``)."""
    return run_check(
        merge_heads, reference=cu.merge_heads, cases=_MERGE_CASES, arg_names=("x",), hints=own_hints("merge_heads"),
    )


# ================================================================ multi_head_attention
def _mha_case(label, seed, T, d_model, num_heads, mask=None, lead=()):
    x = rounded_normal(seed, *lead, T, d_model, decimals=1)
    ws = tuple(rounded_normal(seed + i, d_model, d_model, scale=0.7, decimals=1) for i in range(1, 5))
    return Case(label, (x, *ws, num_heads, mask))


#: (x, w_q, w_k) for 2 heads of width 2 whose head 0 scores [[-1018, -1290, 2647], [-984, -1165, 2070],
#: [815, 543, 815]] (no weight of the causal softmax is 0) and head 1 zeros; 05's capstone uses them too.
LARGE_SCORES = (
    np.array([[-3.0, 3.0, 0.0, 0.0], [-2.0, 3.0, 0.0, 0.0], [-3.0, -3.0, 0.0, 0.0]]),
    np.pad(np.array([[12.0, 4.0], [-12.0, 12.0]]), ((0, 2), (0, 2))),
    np.pad(np.array([[8.0, 8.0], [12.0, 0.0]]), ((0, 2), (0, 2))),
)

_MHA_CASES = (
    _mha_case("T=3, d_model=4, 2 heads, no mask", 10, 3, 4, 2),
    _mha_case("T=4, d_model=6, 3 heads, no mask", 20, 4, 6, 3),
    _mha_case("causal mask, T=4, d_model=4, 2 heads", 30, 4, 4, 2, mask=np.tril(np.ones((4, 4), dtype=bool))),
    _mha_case("one head: d_head = d_model = 4, T=3", 40, 3, 4, 1),
    _mha_case("a batch of 2 with key padding: x (2, 4, 8), 4 heads, mask (2, 1, 4)", 50, 4, 8, 4,
              mask=np.array([[[True, True, True, True]], [[True, True, False, False]]]), lead=(2,)),  # lengths 4, 2
    Case("the ticket (T=5, d_model=8) with the notebook's matrices, 4 heads, causal mask",
         (embed_wide(TICKET), *random_projections(), 4, np.tril(np.ones((5, 5), dtype=bool)))),
    # in head 0 query 0 scores the blocked key 2 about 3700 above its permitted key 0; query 2 scores about 815
    Case("large scores, causal mask: a blocked later key scores far above the permitted ones, 2 heads",
         (*(a.copy() for a in LARGE_SCORES), np.eye(4), np.eye(4), 2, np.tril(np.ones((3, 3), dtype=bool)))),
)


def _bug(**knobs):
    """Buggy multi-head attentions sharing ``knobs``, with the course softmax and a hand-written one."""
    return variants(multi_head_variant, ({}, {"softmax": shifted_softmax}), **knobs)



MULTI_HEAD_ATTENTION_MISTAKES = (
    swapped_outputs(multi_head_variant),
    catalogued("no output projection", reproduce=_bug(out="none")),
    catalogued("swapped W_K and W_V", reproduce=_bug(swap_kv=True)),
    own(
        "multi_head_attention", "W_O per head",
        reproduce=(_bug(out="block diagonal") + _bug(out="averaged") + _bug(out="first rows")
                   + _bug(out="concatenated")),
    ),
    catalogued("sqrt of d_model", reproduce=_bug(scale="d_model")),
    catalogued("no scale", reproduce=_bug(scale="none")),
    catalogued("divide by d_k", reproduce=_bug(scale="d_head plain")),
    catalogued("sqrt of the number of keys", reproduce=_bug(scale="keys")),
    own("multi_head_attention", "scaled by sqrt(num_heads)", reproduce=_bug(scale="heads")),
    catalogued("no max shift", reproduce=_bug(softmax=naive_softmax)),
    catalogued("softmax over the wrong axis", reproduce=_bug(axis=-2) + _bug(axis=-3) + _bug(axis=0)),
    catalogued("softmax over the whole array", reproduce=_bug(softmax=whole_softmax)),
    catalogued("merge without the transpose", reproduce=_bug(merge="no transpose")),
    catalogued("heads interleaved", reproduce=_bug(merge="interleave")),
    catalogued("split without the transpose", reproduce=_bug(split="no transpose")),
    catalogued("interleaved columns", reproduce=_bug(split="interleave")),
    own(
        "multi_head_attention", "split and merge without transpose",
        reproduce=_bug(split="no transpose", merge="no transpose"),
    ),
    catalogued("mask ignored", reproduce=_bug(use_mask=False)),
    catalogued("mask after the softmax", reproduce=_bug(mask_at="weights")),
    catalogued("inverted mask", reproduce=_bug(invert=True)),
    catalogued("mask multiplied into the scores", reproduce=_bug(mask_at="multiply")),
    catalogued("boolean mask added to the scores", reproduce=_bug(mask_at="add")),
    catalogued("zero then renormalise", reproduce=_bug(mask_at="renormalise") + _bug(mask_at="renormalise safely")),
    own(
        "multi_head_attention", "mask without a heads axis", fill=lambda got, args: {"mask_shape": np.shape(args[6])},
        error=error_message_contains("could not be broadcast", "does not broadcast to the scores shape",
                                     error_type=ValueError),
    ),
    catalogued("weights averaged over heads", reproduce=_bug(weights="mean")),
    catalogued("no softmax", reproduce=_bug(softmax=no_softmax)),
    # q @ k and q @ k.T raise alike on the heads (both pair T with d_head): the learner's line tells them apart
    catalogued("k.T on a batch", error=K_DOT_T_ERROR),
    catalogued("k not transposed", error=matmul_error_on_line(Q_AT_K_LINE)),
    own("multi_head_attention", "product refuses the shapes", error=MATMUL_ERROR),
    catalogued("transpose for a fixed number of axes",
               error=error_message_contains("axes don't match array", error_type=ValueError)),
)

@checker("multi_head_attention", mistakes=MULTI_HEAD_ATTENTION_MISTAKES)
def check_multi_head_attention(multi_head_attention):
    """Check ``multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, mask=None) -> (output, weights)``.

    x (T, d_model) or (B, T, d_model); w_q, w_k, w_v, w_o (d_model, d_model); num_heads dividing d_model;
    mask None or bool broadcastable to (..., T, T), True = may attend, shared by every head -> output
    (..., T, d_model), weights (..., num_heads, T, T).
    """
    return run_check(
        multi_head_attention, reference=cu.multi_head_attention, cases=_MHA_CASES, hints=own_hints("multi_head_attention"),
        arg_names=("x", "w_q", "w_k", "w_v", "w_o", "num_heads", "mask"), output_names=("output", "weights"),
    )
