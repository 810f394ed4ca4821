"""Checker for notebook 07 (attention at scale): one step of the online softmax.

``my_online_update(m, l, o, scores_block, v_block) -> (m_new, l_new, o_new)`` for one query row:
``m`` the running maximum (a float, ``-inf`` before the first block), ``l`` the running sum of
``exp(score - m)`` (a float), ``o`` the running unnormalised output, shape (d_v,); a new block
brings ``scores_block`` (B,) and ``v_block`` (B, d_v). The reference is
``course_utils.blockwise.online_softmax_update``.
"""
import numpy as np

import course_utils as cu
from course_utils.checks._framework import (
    Case,
    KnownMistake,
    checker,
    error_message_contains,
    error_on_line,
    run_check,
)

__all__ = ["ONLINE_UPDATE_MISTAKES"]

_NEG_INF = float("-inf")
_V2 = np.array([[1.0, 0.0], [0.0, 2.0]])
_V3 = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]])

_CASES = (
    Case("a second block with a new, larger maximum",
         (1.0, 1.5, np.array([0.5, 0.25]), np.array([2.0, 0.0]), _V2.copy())),
    Case("a block whose scores all lie below the running maximum",
         (3.0, 1.25, np.array([1.0, -0.5]), np.array([1.0, 2.0]), _V2.copy())),
    Case("the first block: m = -inf, l = 0, o = 0",
         (_NEG_INF, 0.0, np.zeros(2), np.array([2.0, 1.0, 0.0]), _V3.copy())),
    Case("a block with a masked key (score -inf)",
         (0.5, 2.0, np.array([1.0, 1.0]), np.array([1.0, _NEG_INF, 3.0]), _V3.copy())),
    Case("a first block whose keys are all masked (every score -inf)",
         (_NEG_INF, 0.0, np.zeros(2), np.array([_NEG_INF, _NEG_INF]), _V2.copy())),
    Case("large scores",
         (999.0, 1.0, np.array([2.0, 1.0]), np.array([1000.0, 998.0]), _V2.copy())),
    Case("a later block whose keys are all masked (padding at the end): nothing changes",
         (1.0, 1.5, np.array([0.5, 0.25]), np.array([_NEG_INF, _NEG_INF]), _V2.copy())),
)


def _reference(m, l, o, scores_block, v_block):
    m_new, l_new, o_new = cu.blockwise.online_softmax_update(
        np.array([m], float), np.array([l], float), np.asarray(o, float),
        np.asarray(scores_block, float), np.asarray(v_block, float),
    )
    return float(m_new[0]), float(l_new[0]), o_new  # (1,) -> a float


def _parts(m, scores_block, *, sign=1.0, keep_max=False, block_max_only=False, guard=True, rescale_guard=False,
           p_by_old_max=False, zero_max=False):
    """(m_new, rescale, p) of a (possibly buggy) update (``rescale``, the notebook's name for exp(m - m_new)).
    rescale_guard: ``rescale = 0.0`` while m is -inf (``... if m > -np.inf else 0.0``, learners' guard of the
    rescale alone). p_by_old_max: the block's scores shifted by the old m (by 0 while m is -inf, with ``guard``).
    zero_max: ``if m_new == -np.inf: m_new = 0.0`` (the shift of 0 taken as the maximum itself)."""
    block_max = float(np.max(scores_block))
    m_new = m if keep_max else block_max if block_max_only else max(m, block_max)
    if zero_max and m_new == _NEG_INF:
        m_new = 0.0
    if guard == "on m":  # tests the old m instead of m_new: also the first block with scores is shifted by 0
        shift = 0.0 if m == _NEG_INF else m_new
    else:
        shift = 0.0 if (guard and m_new == _NEG_INF) else m_new
    rescale = np.exp(sign * (m - shift)) if sign > 0 else np.exp(shift - m)
    if rescale_guard and m == _NEG_INF:
        rescale = 0.0
    if p_by_old_max:  # the old m's shift (0 while m is -inf, when guarded)
        shift = 0.0 if (guard and m == _NEG_INF) else m
    p = np.exp(scores_block - shift)
    return m_new, rescale, p


def _m_new(got):
    """The m_new a learner returned, as a float (raises for anything else, so no rule matches)."""
    return float(np.asarray(got[0], dtype=float).reshape(()))


def _update(rescale_l=True, rescale_o=True, normalise=False, **kw):
    """A (possibly buggy) update. normalise: False; True (``o_new / l_new``, the old o taken as a
    sum); "kept normalised" (o taken as normalised: ``(rescale * l * o + p @ v_block) / l_new``).
    guard (passed on to ``_parts``): True (shift by 0 while m_new is -inf), False (no guard), or
    "early return" (``if m_new == -np.inf: return m_new, l, o``, the other way learners handle it); wrong guards:
    "on m" (``shift = 0.0 if m == -np.inf else m_new``) and "early return on m" (``if m == -np.inf: return ...``),
    which also treat the first block that has scores as if all its keys were masked."""
    def buggy(m, l, o, scores_block, v_block):
        m_new, rescale, p = _parts(m, scores_block, **kw)
        if kw.get("guard") == "early return" and m_new == _NEG_INF:
            return m_new, l, o
        if kw.get("guard") == "early return on m" and m == _NEG_INF:
            return m_new, l, o
        l_new = (rescale * l if rescale_l else l) + p.sum()
        old_o = o * l if normalise == "kept normalised" else o
        o_new = (rescale * old_o if rescale_o else old_o) + p @ v_block
        if normalise:
            o_new = o_new / l_new
        return m_new, l_new, o_new

    return buggy


def _reset_when_all_masked(keep):
    """A right update, except that a block whose keys are all masked returns the start values (-inf, 0, zeros)
    for what is not in ``keep`` (names among "m", "l"): the running values thrown away."""
    def buggy(m, l, o, scores_block, v_block):
        if np.all(scores_block == _NEG_INF):
            return (m if "m" in keep else _NEG_INF), (l if "l" in keep else 0.0), np.zeros_like(o)
        return _update()(m, l, o, scores_block, v_block)

    return buggy


# The ways a learner's update treats a first block whose keys are all masked (see _update).
_GUARDS = (True, False, "early return")

ONLINE_UPDATE_MISTAKES = (
    # Tried in this order on the failing case. The NaN mistake only shows on the all-masked first
    # block, where an unguarded wrong sign also gives NaN: there the missing guard is the real bug.
    KnownMistake(
        "nan on an all-masked first block",
        "When every score seen so far is -inf (m = -inf and the block's scores are all -inf), "
        "m_new is -inf too, and both `np.exp(m - m_new)` and `np.exp(scores_block - m_new)` hold "
        "exp(-inf - (-inf)) = exp(nan) = nan: a guard on one of them is not enough. Shift by "
        "0 in that case: `shift = 0.0 if m_new == -np.inf else m_new` (test with `==`: `is -np.inf` is "
        "False for a computed -inf, and `if m_new` is True for it), then use "
        "`np.exp(m - shift)` and `np.exp(scores_block - shift)`: l stays 0 and o stays zeros.",
        reproduce=_update(guard=False),
    ),
    KnownMistake(
        "no rescale",
        "The old sum l and the old output o were computed with the old maximum m as the shift. When "
        "the maximum grows to m_new, multiply both by `rescale = np.exp(m - m_new)` before adding the "
        "new block: `l_new = rescale * l + p.sum()` and `o_new = rescale * o + p @ v_block`, with "
        "`p = np.exp(scores_block - m_new)`.",
        reproduce=tuple(
            # with and without the guard for an all-masked first block (most first attempts have none)
            _update(**knobs, guard=guard)
            for knobs in (dict(rescale_l=False, rescale_o=False), dict(rescale_l=False), dict(rescale_o=False))
            for guard in (True, False)
        ),
    ),
    KnownMistake(
        "wrong sign",
        "The rescaling factor has the wrong sign: it is `np.exp(m - m_new)`, which is at most 1 "
        "(the old terms shrink when the maximum grows), not `np.exp(m_new - m)`.",
        reproduce=tuple(_update(sign=-1.0, guard=guard) for guard in _GUARDS)
        + (_update(sign=-1.0, rescale_guard=True),),  # exp(m_new - m) if m > -np.inf else 0.0
    ),
    KnownMistake(
        "max not updated",
        "The running maximum must become `m_new = max(m, scores_block.max())`: the largest score "
        "seen in ANY block so far. Keeping the old m, or taking only this block's maximum, returns "
        "the wrong m_new (and with the old m, exp of a larger new score can overflow).",
        reproduce=(_update(keep_max=True), _update(keep_max=True, guard=False),
                   _update(block_max_only=True), _update(block_max_only=True, guard=False)),
        # the m_new it returns is enough to tell, whatever its l_new and o_new: the old m on every
        # case, or only this block's maximum on every case
        matches=(lambda got, args: _m_new(got) == float(args[0]),
                 lambda got, args: _m_new(got) == float(np.max(args[3]))),
    ),
    KnownMistake(
        "p shifted by the old maximum",
        "Shift the new block's scores by the new maximum: `p = np.exp(scores_block - m_new)`. After the "
        "rescaling, the old l and o count their terms as exp(score - m_new); terms shifted by the old m are "
        "on another scale (and while m is still -inf, nothing can be shifted by it).",
        reproduce=(_update(p_by_old_max=True), _update(p_by_old_max=True, guard=False)),
    ),
    KnownMistake(
        "m_new set to 0",
        "When every score so far is -inf, m_new is -inf: it is the running maximum, and the next block "
        "needs it. Do not replace -inf by 0 in m or m_new; use a separate shift for the exps: "
        "`shift = 0.0 if m_new == -np.inf else m_new`, then `np.exp(m - shift)` and "
        "`np.exp(scores_block - shift)`.",
        reproduce=_update(zero_max=True),
    ),
    KnownMistake(
        "guard tests m, not m_new",
        "Your guard for the all-masked case tests the old m, which is -inf on every first block, also when "
        "this block has real scores: then m_new is finite and p must be `np.exp(scores_block - m_new)`, added "
        "to l and o. Test the new maximum: `shift = 0.0 if m_new == -np.inf else m_new` (or return early only "
        "when `m_new == -np.inf`).",
        reproduce=(_update(guard="on m"), _update(guard="early return on m")),
    ),
    KnownMistake(
        "normalised inside",
        "Keep o unnormalised: `o_new = rescale * o + p @ v_block`. Divide by l only once, after the "
        "last block (`output = o / l`). Dividing inside the update mixes a normalised old o with "
        "unnormalised new terms.",
        reproduce=tuple(_update(normalise=True, guard=guard) for guard in _GUARDS),
    ),
    KnownMistake(
        "kept normalised",
        "You keep o normalised: the old o times l, plus the new terms, divided by l_new. That is a "
        "sound algorithm, but not this exercise's: here o is the running *unnormalised* output (the o "
        "you are given is a plain weighted sum, and the division by l comes once, after the last "
        "block). Return `o_new = rescale * o + p @ v_block`, without dividing.",
        reproduce=tuple(_update(normalise="kept normalised", guard=guard) for guard in _GUARDS),
    ),
    KnownMistake(
        "normalised inside, wrong sign",
        "Two things. You divide by l inside the update, to keep o normalised: here o is the running "
        "*unnormalised* output (the o you are given is a plain weighted sum), so add the new block "
        "to it without dividing; the division by l comes once, after the last block. And the "
        "rescaling factor has the wrong sign: it is `np.exp(m - m_new)`, at most 1 (the old terms "
        "shrink when the maximum grows), not `np.exp(m_new - m)`.",
        reproduce=tuple(_update(sign=-1.0, normalise=how, guard=guard)
                        for how in ("kept normalised", True) for guard in _GUARDS),
    ),
    KnownMistake(
        "an all-masked block resets the running values",
        "A block whose keys are all masked adds nothing, and it does not erase the blocks before it: "
        "return m, l and o as they are (`m_new = m`). They are -inf, 0 and zeros only when nothing has "
        "been seen yet (an all-masked first block). Trailing padding makes the last blocks all masked.",
        reproduce=tuple(_reset_when_all_masked(keep) for keep in ((), ("m",), ("m", "l"))),
    ),
    KnownMistake(
        "np.max of two numbers",
        "`np.max(a, b)` takes the maximum of ONE array, and its second argument is an axis (hence the error about "
        "an integer). For the larger of two numbers use Python's `max(m, scores_block.max())`, or "
        "`np.maximum(m, scores_block.max())`.",
        error=error_on_line(r"np\.(max|amax)\(", "cannot be interpreted as an integer", error_type=TypeError),
    ),
    KnownMistake(
        "an array where a number is needed",
        "The line shown above uses a whole array where Python needs one number: in `max(...)`, or in an "
        "`if` (also `... if ... else ...`). For the maximum, take the block's as one number: "
        "`m_new = max(m, scores_block.max())`. For a test, compare one number: `m_new == -np.inf` is true "
        "exactly when every score so far is -inf (`(scores_block == -np.inf).all()` tests the block alone); "
        "`np.where(...)` chooses element by element.",
        error=error_message_contains("truth value of an array with more than one element is ambiguous",
                                     error_type=ValueError),
    ),
)

_HINTS = {
    "values": (
        "Three steps: `m_new = max(m, scores_block.max())`; `rescale = np.exp(m - m_new)` and "
        "`p = np.exp(scores_block - m_new)`; `l_new = rescale * l + p.sum()`, "
        "`o_new = rescale * o + p @ v_block`. Check each on this input."
    ),
    "structure": "Return three things: `return m_new, l_new, o_new`.",
    "shape": "m_new and l_new are single numbers; o_new has the shape of o, (d_v,).",
}


@checker("online_update", mistakes=ONLINE_UPDATE_MISTAKES)
def check_online_update(online_update):
    """Check a learner's ``online_update(m, l, o, scores_block, v_block) -> (m_new, l_new, o_new)`` (the
    arguments are described in the module docstring)."""
    return run_check(
        online_update,
        reference=_reference,
        cases=_CASES,
        arg_names=("m", "l", "o", "scores_block", "v_block"),
        output_names=("m_new", "l_new", "o_new"),
        hints=_HINTS,
    )
