"""What a wrong answer breaks, said as facts, for the hint when no known mistake explains it.

``statements(exercise, expected, got, case, output_names)`` reads them off the learner's answer and the expected
one, so each is true by construction: which axis of a shape differs, rows of attention weights that do not sum to
one (or to zero where no key is permitted), weight on a hidden key, where nan or inf appears, an integer dtype,
and (given the learner's ``fn``) a batch item whose result changes when it is run alone. ``DECLARED`` says per
exercise which output holds attention weights, whether the exact zeros of the expected weights are hidden keys
(a mask or a causal structure in every case) and which arguments carry a batch on axis 0.
"""
from dataclasses import dataclass

import numpy as np

from course_utils.checks._calls import call_learner
from course_utils.checks._compare import ATOL, RTOL
from course_utils.checks._format import fmt_value
from course_utils.checks._guard import course_snapshot, put_back

__all__ = ["DECLARED", "Declared", "statements"]


@dataclass(frozen=True)
class Declared:
    """weights : the name of the output holding attention weights ("result" for a single output), or None.
    hidden : True if the expected weights are exactly 0 only at keys the case hides.
    batch : ((argument index, its number of axes when it holds a batch), ...).
    single : what a single output is called in sentences."""

    weights: str = None
    hidden: bool = False
    batch: tuple = ()
    single: str = "result"


DECLARED = {
    "softmax": Declared("result"),
    "attention_row": Declared("weights"),
    "self_attention": Declared("weights"),
    "masked_attention": Declared("weights", hidden=True, batch=((0, 3), (1, 3), (2, 3), (3, 3))),
    "multi_head_attention": Declared("weights", hidden=True, batch=((0, 3), (6, 3))),
    "capstone_layer": Declared("weights", hidden=True, batch=((0, 3), (1, 1))),
    "split_heads": Declared(batch=((0, 3),)),
    "merge_heads": Declared(batch=((0, 4),)),
    "causal_mask": Declared(single="mask"),
    "padding_mask": Declared(single="mask"),
}
_MOST = 3  # statements said at most
_TOL = 1e-6  # a row sum or a hidden weight further than this from the expected one is reported


def statements(exercise, expected, got, case, output_names=None, *, fn=None, time_limit=None):
    """The sentences (a list, maybe empty) saying what ``got`` breaks; ``fn`` (the learner's function) is
    called again, on each item of a batch alone, only when the exercise declares a batch."""
    declared = DECLARED.get(exercise, Declared())
    items = _items(expected, got, output_names, declared.single)
    said = [s for name, e, g in items for s in _shape(name, e, g)]
    items = [(name, e, g) for name, e, g in items if e.shape == g.shape]
    if not said and items:
        said = [s for name, e, g in items for s in _nonfinite(name, e, g)]
        said += [s for name, e, g in items if name == declared.weights for s in _weights(name, e, g, declared)]
        said += [s for name, e, g in items for s in _dtype(name, e, g)]
        if fn is not None and declared.batch and len(said) < _MOST:
            said += _batch(fn, case.args, declared, expected, output_names, items, time_limit)
    return said[:_MOST]


def _items(expected, got, output_names, single):
    """[(name, expected array, got array)] of the outputs that are arrays of numbers."""
    if isinstance(expected, tuple):
        if not isinstance(got, (tuple, list)) or len(got) != len(expected):
            return []
        pairs = zip(output_names or [f"item {i}" for i in range(len(expected))], expected, got)
    else:
        pairs = [(single, expected, got)]
    items = []
    for name, e, g in pairs:
        try:
            e, g = np.asarray(e), np.asarray(g)
        except Exception:
            continue
        if e.dtype.kind in "iufb" and g.dtype.kind in "iufb":  # bool: a mask (its shape is all that is read)
            items.append((name, e, g))
    return items


def _shape(name, e, g):
    if g.shape == e.shape:
        return []
    if g.ndim == e.ndim:
        differ = [i for i in range(g.ndim) if g.shape[i] != e.shape[i]]
        if len(differ) == 2 and np.swapaxes(e, *differ).shape == g.shape and g.dtype.kind in "iuf" \
                and np.allclose(np.swapaxes(e, *differ), g, rtol=RTOL, atol=ATOL, equal_nan=True):
            return [f"Swapping axes {differ[0]} and {differ[1]} of its {name} gives the expected values."]
        return [f"Axis {i} of its {name} has size {g.shape[i]}; expected {e.shape[i]}." for i in differ[:2]]
    for i in range(max(g.ndim, e.ndim)):
        if g.ndim > e.ndim and g.shape[:i] + g.shape[i + 1:] == e.shape:
            return [f"Without its axis {i} (of size {g.shape[i]}), its {name} would have the expected shape."]
        if e.ndim > g.ndim and e.shape[:i] + e.shape[i + 1:] == g.shape:
            return [f"Its {name} lacks axis {i} of the expected shape {e.shape} (of size {e.shape[i]})."]
    return [f"Its {name} holds as many values as expected ({g.size}), in another shape."] if g.size == e.size else []


def _nonfinite(name, e, g):
    if g.dtype.kind != "f" or e.dtype.kind != "f":
        return []
    parts = []
    for word, found in (("nan (not a number)", np.isnan(g)), ("inf", np.isposinf(g)), ("-inf", np.isneginf(g))):
        found = found & np.isfinite(e)
        if found.any():
            parts.append(f"{word} {_where(name, np.argwhere(found), g.ndim)}")
    has = _verb(name, "has", "have")
    return [f"Its {name} {has} {' and '.join(parts)}, where the expected values are finite."] if parts else []


def _where(name, positions, ndim):
    """'at result[2]', 'in row weights[0, 1]' (rows: every axis but the last), up to two places, 'and N more'."""
    if ndim == 0:
        return ""
    places = list(dict.fromkeys(tuple(int(i) for i in p[: max(ndim - 1, 1)]) for p in positions))
    shown = " and ".join(f"{name}[{', '.join(map(str, p))}]" for p in places[:2])
    more = f" and {len(places) - 2} more" if len(places) > 2 else ""
    return f"{'at' if ndim == 1 else 'in row'} {shown}{more}"


def _weights(name, e, g, declared):
    """Rows that do not sum to 1 (or to 0 where no key is permitted) and weight on hidden keys."""
    if g.ndim == 0 or g.dtype.kind not in "iuf" or e.dtype.kind != "f":
        return []
    said = []
    sums, want = g.sum(axis=-1, dtype=float), e.sum(axis=-1, dtype=float)
    for target, why in ((1, ""), (0, " where no key is permitted"))[: 1 + declared.hidden]:
        bad = np.isfinite(sums) & (np.abs(want - target) < _TOL) & (np.abs(sums - target) > _TOL)
        if bad.any():
            row = tuple(int(i) for i in np.argwhere(bad)[0])
            which = f"{name}[{', '.join(map(str, row))}] sums" if row else f"its {name} {_verb(name, 'sums', 'sum')}"
            more = f" ({int(bad.sum())} of its {bad.size} rows do not sum to {target})" if bad.sum() > 1 else ""
            said.append(f"Attention weights sum to {target} over the keys{why}, but {which} to "
                        f"{_number(sums[row], target)}{more}.")
    if declared.hidden and g.ndim >= 2:
        leak = (e == 0) & np.isfinite(g) & (np.abs(g) > _TOL)
        if leak.any():
            *_, i, j = place = tuple(int(k) for k in np.argwhere(leak)[0])
            later = f"; key {j} comes after query {i}" if j > i else ""
            more = f", one of {int(leak.sum())} such places" if leak.sum() > 1 else ""
            said.append(f"Weight on a hidden key: {name}[{', '.join(map(str, place))}] is "
                        f"{_number(g[place], 0)} where the expected weight is 0 (key {j} is hidden{later}){more}.")
    return said


def _number(value, target):
    """The value with 4 decimals, or with more when 4 would show the target itself."""
    text = fmt_value(float(value))
    return text if float(text) != target else f"{float(value):.8g}"


def _verb(name, one, many):
    return many if name.endswith("s") else one


def _dtype(name, e, g):
    if e.dtype.kind == "f" and g.dtype.kind in "iub":
        return [f"The dtype of its {name} is {g.dtype}, whole numbers only; expected floats (dtype {e.dtype})."]
    return []


def _batch(fn, args, declared, expected, output_names, items, time_limit):
    """A batch item whose result, run alone (a batch of 1), differs from its result inside the batch."""
    sizes = {np.shape(args[i])[0] if np.ndim(args[i]) == ndim else None for i, ndim in declared.batch}
    size = sizes.pop() if len(sizes) == 1 else None
    batched = {i for i, _ in declared.batch}
    for b in range(size if size and size > 1 else 0):
        course = course_snapshot()
        call = call_learner(fn, tuple(a[b:b + 1] if i in batched else a for i, a in enumerate(args)),
                            time_limit=time_limit)
        if put_back(course) or not call.ran or call.error is not None:
            return []
        alone = {name: g for name, _, g in _items(expected, call.value, output_names, declared.single)}
        for name, _, g in items:
            g1, g = alone.get(name), g[b:b + 1]
            if g1 is not None and g1.shape == g.shape and not np.allclose(g1, g, rtol=RTOL, atol=ATOL, equal_nan=True):
                return [f"Batch item {b} run alone (a batch of 1) gets another {name} than inside the batch of "
                        f"{size}: the result for one item depends on the other items or on their number."]
    return []
