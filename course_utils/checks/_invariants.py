"""What a wrong answer breaks, said as facts, for the hint when no known mistake explains it.

``statements(exercise, expected, got, case, output_names)`` reads them off the answer and the expected one, so
each is true by construction: two axes swapped, an axis too many or missing, which outputs are right, nan or inf
and where, rows of attention weights that do not sum to one (or to zero where no key is permitted), weight on a
hidden key, rows of a gradient of the scores that do not sum to zero, an integer dtype, and (given the learner's
``fn``, run again) a batch item whose result changes when it is run alone, an output that changes when the heads
are reversed. ``DECLARED`` says what each exercise's outputs and arguments hold.
"""
from dataclasses import dataclass

import numpy as np

from course_utils.checks._calls import call_learner
from course_utils.checks._compare import ATOL, RTOL
from course_utils.checks._format import fmt_value

__all__ = ["DECLARED", "Declared", "statements"]


@dataclass(frozen=True)
class Declared:
    """weights, gradient : the output holding attention weights, or a gradient with respect to the scores ("result"
    for a single output); hidden : the expected weights are exactly 0 only at keys the case hides; batch :
    ((argument index, its number of axes when it holds a batch on axis 0), ...); single : a single output's name;
    heads : the indices of the arguments w_q, w_k, w_v, w_o and num_heads (the output named "output" must not
    change when the heads are reversed)."""

    weights: str = None
    hidden: bool = False
    batch: tuple = ()
    single: str = "result"
    gradient: str = None
    heads: tuple = ()


DECLARED = {
    "softmax": Declared("result"),
    "attention_row": Declared("weights"),
    "self_attention": Declared("weights"),
    "masked_attention": Declared("weights", hidden=True, batch=((0, 3), (1, 3), (2, 3), (3, 3))),
    "multi_head_attention": Declared("weights", hidden=True, batch=((0, 3), (6, 3)), heads=(1, 2, 3, 4, 5)),
    "capstone_layer": Declared("weights", hidden=True, batch=((0, 3), (1, 1)), heads=(2, 3, 4, 5, 6)),
    "split_heads": Declared(batch=((0, 3),)),
    "merge_heads": Declared(batch=((0, 4),)),
    **dict.fromkeys(("causal_mask", "padding_mask"), Declared(single="mask")),
    **dict.fromkeys(("softmax_backward", "grad_scores"), Declared(gradient="result")),
}
_MOST = 3  # statements said at most
_TOL = 1e-6  # a row sum or a hidden weight further than this from the expected one is reported
_WEIGHT_SUMS = ((1, "Attention weights sum to 1 over the keys"),
                (0, "Attention weights sum to 0 over the keys where no key is permitted"))
_GRADIENT_SUMS = ((0, "A gradient with respect to the scores sums to 0 over each row (adding one number to every "
                      "score of a row changes no weight)"),)


def statements(exercise, expected, got, case, output_names=None, *, fn=None, time_limit=None):
    """The sentences (a list, maybe empty) saying what ``got`` breaks; ``fn`` (the learner's function) is
    called again only when the exercise declares a batch or heads, under ``time_limit``."""
    declared = DECLARED.get(exercise, Declared())
    items = _items(expected, got, output_names, declared.single)
    said = [s for name, e, g in items if e.shape != g.shape for s in _shape(name, e, g)]
    items = [(name, e, g) for name, e, g in items if e.shape == g.shape]
    if said or not items:
        return said[:_MOST]
    said = _right_parts(items) if len(items) > 1 else []
    for name, e, g in items:
        said += _swapped(name, e, g) + (_mask_rows(name, e, g) if e.dtype.kind == g.dtype.kind == "b" else [])
        if e.dtype.kind != "f" or g.dtype.kind not in "iuf":
            continue
        said += _nonfinite(name, e, g)
        if name == declared.weights and g.ndim:
            said += _row_sums(name, e, g, _WEIGHT_SUMS[: 1 + declared.hidden]) + (
                _hidden(name, e, g) if declared.hidden else [])
        if name == declared.gradient and g.ndim:
            said += _row_sums(name, e, g, _GRADIENT_SUMS)
        if g.dtype.kind != "f":
            said.append(f"The dtype of its {name} is {g.dtype}, whole numbers only; expected floats.")
    if fn is not None and (declared.batch or declared.heads) and len(said) < _MOST:
        said += _reruns(fn, case.args, declared, expected, output_names, items, time_limit)
    return said[:_MOST]


def _items(expected, got, output_names, single):
    """[(name, expected array, got array)] of the outputs that are arrays of numbers (or of bool: a mask)."""
    if not isinstance(expected, tuple):
        pairs = [(single, expected, got)]
    elif isinstance(got, (tuple, list)) and len(got) == len(expected):
        pairs = zip(output_names or [f"item {i}" for i in range(len(expected))], expected, got)
    else:
        return []
    items = []
    for name, e, g in pairs:
        try:
            e, g = np.asarray(e), np.asarray(g)
        except Exception:  # ragged lists, objects that refuse conversion
            continue
        if e.dtype.kind in "iufb" and g.dtype.kind in "iufb":
            items.append((name, e, g))
    return items


def _shape(name, e, g):
    """What the problem line ("axis 1 has size 4, not 3", "3 axes instead of 4") does not say already."""
    if g.ndim == e.ndim:
        return _swapped(name, e, g)
    more, less = (g, e) if g.ndim > e.ndim else (e, g)
    axes = [i for i in range(more.ndim) if more.shape[:i] + more.shape[i + 1:] == less.shape]  # all of one size
    if len(axes) > 1:  # which of them is not known: (1, 1, 3) for (1, 3)
        return [f"Its {name} has {'one axis' if more is g else 'one axis fewer'} of size {more.shape[axes[0]]} "
                f"{'too many' if more is g else 'than expected'}."]
    if axes and more is g:
        return [f"Without its axis {axes[0]} (of size {g.shape[axes[0]]}), its {name} would have the expected shape."]
    if axes:
        return [f"Its {name} lacks axis {axes[0]} of the expected shape {e.shape} (of size {e.shape[axes[0]]})."]
    return [f"Its {name} holds as many values as expected ({g.size}), in another shape."] if g.size == e.size else []


def _swapped(name, e, g):
    """Two axes swapped: the values are the expected ones with those axes exchanged."""
    if g.ndim != e.ndim or g.dtype.kind not in "iuf" or (g.shape == e.shape and _close(e, g)):
        return []
    return [f"Swapping axes {i} and {j} of its {name} gives the expected values." for i in range(g.ndim)
            for j in range(i + 1, g.ndim) if np.swapaxes(g, i, j).shape == e.shape and _close(e, np.swapaxes(g, i, j))][:1]


def _mask_rows(name, e, g):
    """The first row of a boolean mask with another number of True entries than expected."""
    got, want = g.sum(axis=-1), e.sum(axis=-1)
    rows = [tuple(r) for r in np.argwhere(got != want)] if g.ndim else []
    return [f"Row {_at(name, rows[0])} has {got[rows[0]]} True {'entry' if got[rows[0]] == 1 else 'entries'}; "
            f"expected {want[rows[0]]}."] if rows else []


def _right_parts(items):
    """'Its k and v are right; its q is not.'"""
    right = [name for name, e, g in items if _close(e, g)]
    wrong = [name for name, e, g in items if name not in right]
    if not right or not wrong:
        return []
    return [f"Its {' and '.join(right)} {_are(right)} right; its {' and '.join(wrong)} {_are(wrong)} not."]


def _nonfinite(name, e, g):
    parts = []
    for word, found in (("nan (not a number)", np.isnan(g)), ("inf", np.isposinf(g)), ("-inf", np.isneginf(g))):
        rows = list(dict.fromkeys(tuple(p[: max(g.ndim - 1, 1)]) for p in np.argwhere(found & np.isfinite(e))))
        if rows:
            more = f" and {len(rows) - 2} more" if len(rows) > 2 else ""
            where = " and ".join(_at(name, r) for r in rows[:2])
            parts.append(f"{word} {'at' if g.ndim == 1 else 'in row'} {where}{more}" if g.ndim else word)
    has = "have" if _are([name]) == "are" else "has"
    return [f"Its {name} {has} {' and '.join(parts)}, where the expected values are finite."] if parts else []


def _row_sums(name, e, g, targets):
    """For each (target, opening): the first row of ``g`` that does not sum to ``target`` where the expected does."""
    sums, scale = g.sum(axis=-1, dtype=float), np.maximum(1, np.abs(g).max(axis=-1, initial=0))
    said = []
    for target, opening in targets:
        bad = np.isfinite(sums) & (np.abs(e.sum(axis=-1) - target) < _TOL) & (np.abs(sums - target) > _TOL * scale)
        if bad.any():
            row = tuple(np.argwhere(bad)[0])
            which = f"{_at(name, row)} sums" if row else f"its {name} {'sum' if _are([name]) == 'are' else 'sums'}"
            more = f" ({int(bad.sum())} of its {bad.size} rows do not sum to {target})" if bad.sum() > 1 else ""
            said.append(f"{opening}, but {which} to {_number(sums[row], target)}{more}.")
    return said


def _hidden(name, e, g):
    """The first place where ``g`` puts weight on a key whose expected weight is exactly 0."""
    leak = (e == 0) & np.isfinite(g) & (np.abs(g) > _TOL)
    if g.ndim < 2 or not leak.any():
        return []
    *_, i, j = place = tuple(np.argwhere(leak)[0])
    later = f"; key {j} comes after query {i}" if j > i else ""
    more = f", one of {int(leak.sum())} such places" if leak.sum() > 1 else ""
    return [f"Weight on a hidden key: {_at(name, place)} is {_number(g[place], 0)} where the expected weight is 0 "
            f"(key {j} is hidden{later}){more}."]


def _reruns(fn, args, declared, expected, output_names, items, time_limit):
    """What running ``fn`` again shows: a batch item whose result changes when it is run alone, an output that
    changes when the heads are reversed. Nothing when the same input gives another result (a random function)."""
    def differ(new_args, part=slice(None), only=None):
        """The outputs (named ``only``, or all) of ``fn(*new_args)`` other than ``got[part]``; None if the call fails."""
        call = call_learner(fn, new_args, time_limit=time_limit)
        if call.changed or not call.ran or call.error is not None:
            return None
        outputs = {name: g for name, _, g in _items(expected, call.value, output_names, declared.single)}
        return [name for name, _, g in items if only in (None, name) and name in outputs
                and outputs[name].shape == g[part].shape and not _close(g[part], outputs[name])]

    if differ(args) != []:
        return []
    sizes = {np.shape(args[i])[0] if np.ndim(args[i]) == ndim else None for i, ndim in declared.batch}
    size = sizes.pop() if len(sizes) == 1 and None not in sizes else 0
    for b in range(size if size > 1 else 0):
        alone = differ(tuple(a[b:b + 1] if i in dict(declared.batch) else a for i, a in enumerate(args)), slice(b, b + 1))
        if alone:
            return [f"Batch item {b} run alone (a batch of 1) gets another {alone[0]} than inside the batch of "
                    f"{size}: the result for one item depends on the other items or on their number."]
    if declared.heads and int(args[declared.heads[-1]]) > 1:
        *blocks, h = declared.heads
        order = np.arange(np.shape(args[blocks[0]])[1]).reshape(int(args[h]), -1)[::-1].ravel()  # heads reversed
        turned = {**{i: np.asarray(args[i])[:, order] for i in blocks[:3]}, blocks[3]: np.asarray(args[blocks[3]])[order]}
        if differ(tuple(turned.get(i, a) for i, a in enumerate(args)), only="output"):
            return ["With the heads in reverse order (their column blocks of w_q, w_k and w_v and row blocks of w_o), "
                    "its output changes; a multi-head layer's output does not depend on the order of its heads."]
    return []


def _close(e, g):
    return bool(np.allclose(np.asarray(g, float), np.asarray(e, float), rtol=RTOL, atol=ATOL, equal_nan=True))


def _at(name, index):
    return f"{name}[{', '.join(str(int(i)) for i in index)}]"


def _number(value, target):
    """The value with 4 decimals, or with more when 4 would show the target itself."""
    text = fmt_value(float(value))
    return text if float(text) != target else f"{float(value):.8g}"


def _are(names):
    return "are" if len(names) > 1 or names[0].endswith("s") else "is"
