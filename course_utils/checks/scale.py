"""Checker for notebook 07 (attention at scale): one step of the online softmax.

``my_online_update(m, l, o, scores_block, v_block) -> (m_new, l_new, o_new)`` for one query row:
``m`` the running maximum (a float, ``-inf`` before the first block), ``l`` the running sum of
``exp(score - m)`` (a float), ``o`` the running unnormalised output, shape (d_v,); a new block
brings ``scores_block`` (B,) and ``v_block`` (B, d_v). The reference is
``course_utils.blockwise.online_softmax_update``.
"""
import numpy as np

import course_utils as cu
from course_utils.checks._catalogue import own, own_hints
from course_utils.checks._framework import (
    Case,
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
    own("online_update", "nan on an all-masked first block", reproduce=_update(guard=False)),
    own(
        "online_update", "no rescale",
        reproduce=tuple(
            # with and without the guard for an all-masked first block (most first attempts have none)
            _update(**knobs, guard=guard)
            for knobs in (dict(rescale_l=False, rescale_o=False), dict(rescale_l=False), dict(rescale_o=False))
            for guard in (True, False)
        ),
    ),
    own(
        "online_update", "wrong sign",
        reproduce=tuple(_update(sign=-1.0, guard=guard) for guard in _GUARDS)
        + (_update(sign=-1.0, rescale_guard=True),),  # exp(m_new - m) if m > -np.inf else 0.0
    ),
    own(
        "online_update", "max not updated",
        reproduce=(_update(keep_max=True), _update(keep_max=True, guard=False),
                   _update(block_max_only=True), _update(block_max_only=True, guard=False)),
        # the m_new it returns is enough to tell, whatever its l_new and o_new: the old m on every
        # case, or only this block's maximum on every case
        matches=(lambda got, args: _m_new(got) == float(args[0]),
                 lambda got, args: _m_new(got) == float(np.max(args[3]))),
    ),
    own(
        "online_update", "p shifted by the old maximum",
        reproduce=(_update(p_by_old_max=True), _update(p_by_old_max=True, guard=False)),
    ),
    own("online_update", "m_new set to 0", reproduce=_update(zero_max=True)),
    own(
        "online_update", "guard tests m, not m_new",
        reproduce=(_update(guard="on m"), _update(guard="early return on m")),
    ),
    own(
        "online_update", "normalised inside",
        reproduce=tuple(_update(normalise=True, guard=guard) for guard in _GUARDS),
    ),
    own(
        "online_update", "kept normalised",
        reproduce=tuple(_update(normalise="kept normalised", guard=guard) for guard in _GUARDS),
    ),
    own(
        "online_update", "normalised inside, wrong sign",
        reproduce=tuple(_update(sign=-1.0, normalise=how, guard=guard)
                        for how in ("kept normalised", True) for guard in _GUARDS),
    ),
    own(
        "online_update", "an all-masked block resets the running values",
        reproduce=tuple(_reset_when_all_masked(keep) for keep in ((), ("m",), ("m", "l"))),
    ),
    own(
        "online_update", "np.max of two numbers",
        error=error_on_line(r"np\.(max|amax)\(", "cannot be interpreted as an integer", error_type=TypeError),
    ),
    own(
        "online_update", "an array where a number is needed",
        error=error_message_contains("truth value of an array with more than one element is ambiguous",
                                     error_type=ValueError),
    ),
)

_HINTS = own_hints("online_update")


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
