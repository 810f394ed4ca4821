"""Recall set for notebook 07: realistic variants of the known mistakes of check_online_update
(``kind="variant"``).

Each function makes exactly one known mistake, written differently from the mutants of
tests/test_checks_scale.py, and reproduces that mistake's result on every case the checker runs.
The cases include a first block (m = -inf) and an all-masked first block (every score -inf), so a
variant of a mistake other than "nan on an all-masked first block" keeps the guard against
exp(-inf - (-inf)) (the mistake tables reproduce those mistakes with the guard in place).
"""
import math

import numpy as np

from learner_answers import answer


# -- nan on an all-masked first block
@answer("online_update", kind="variant", expect="nan on an all-masked first block",
        note="math.exp for the rescale factor, no guard for m_new = -inf")
def var_online_math_exp_no_guard(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    alpha = math.exp(m - m_new)  # -inf - (-inf) is nan, and math.exp(nan) is nan
    p = np.exp(scores_block - m_new)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


@answer("online_update", kind="variant", expect="nan on an all-masked first block",
        note="loop over the block's keys, no guard")
def var_online_key_loop_no_guard(m, l, o, scores_block, v_block):
    m_new = np.maximum(m, scores_block.max())
    alpha = np.exp(m - m_new)
    l_new = alpha * l
    o_new = alpha * np.asarray(o, dtype=float)
    for s, v_row in zip(scores_block, v_block):
        p = np.exp(s - m_new)
        l_new = l_new + p
        o_new = o_new + p * v_row
    return m_new, l_new, o_new


# -- no rescale
@answer("online_update", kind="variant", expect="no rescale",
        note="guards the all -inf case, but never rescales l and o")
def var_online_guarded_no_rescale(m, l, o, scores_block, v_block):
    m_new = max(m, np.max(scores_block))
    if m_new == -np.inf:  # nothing seen yet
        return m_new, l, o
    p = np.exp(scores_block - m_new)
    return m_new, l + np.sum(p), o + p @ v_block


@answer("online_update", kind="variant", expect="no rescale",
        note="rescales o but forgets l")
def var_online_rescale_o_only(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    shift = m_new if np.isfinite(m_new) else 0.0
    alpha = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    return m_new, l + p.sum(), alpha * o + np.dot(p, v_block)


# -- wrong sign
@answer("online_update", kind="variant", expect="wrong sign", note="alpha = 1 / exp(m - m_new)")
def var_online_reciprocal_alpha(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    alpha = 1 / np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


@answer("online_update", kind="variant", expect="wrong sign", note="alpha = exp(-(m - m_new)), with the guard")
def var_online_negated_exponent_guarded(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    shift = 0.0 if m_new == -np.inf else m_new
    alpha = np.exp(-(m - shift))
    p = np.exp(scores_block - shift)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


# -- max not updated
@answer("online_update", kind="variant", expect="max not updated",
        note="m_new is this block's max only (Python max), with the guard")
def var_online_block_max_guarded(m, l, o, scores_block, v_block):
    m_new = max(scores_block)
    shift = m_new if np.isfinite(m_new) else 0.0
    alpha = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    return m_new, alpha * l + p.sum(), alpha * o + p @ v_block


@answer("online_update", kind="variant", expect="max not updated",
        note="never computes m_new: keeps m as the shift (guarded) and returns it")
def var_online_keeps_old_max(m, l, o, scores_block, v_block):
    shift = m if m > -np.inf else 0.0
    alpha = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    return m, alpha * l + p.sum(), alpha * o + p @ v_block


@answer("online_update", kind="variant", expect="max not updated",
        note="m_new = float(scores_block.max()), no guard")
def var_online_block_max_unguarded(m, l, o, scores_block, v_block):
    m_new = float(scores_block.max())
    rescale = np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    return m_new, rescale * l + p.sum(), rescale * o + p @ v_block


# -- normalised inside
@answer("online_update", kind="variant", expect="normalised inside",
        note="o_new /= l_new before returning (guard in place)")
def var_online_divide_in_place(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    shift = 0.0 if m_new == -np.inf else m_new
    alpha = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    l_new = alpha * l + p.sum()
    o_new = alpha * o + p @ v_block
    o_new /= l_new
    return m_new, l_new, o_new


@answer("online_update", kind="variant", expect="normalised inside",
        note="np.true_divide of the output by the new sum, no guard")
def var_online_true_divide_unguarded(m, l, o, scores_block, v_block):
    m_new = np.maximum(m, np.max(scores_block))
    alpha = np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    l_new = alpha * l + np.sum(p)
    return m_new, l_new, np.true_divide(alpha * o + p @ v_block, l_new)


# -- normalised inside, wrong sign
@answer("online_update", kind="variant", expect="normalised inside, wrong sign",
        note="keeps o as the running average (old share of the total times o, plus the new terms), "
             "rescale = exp(m_new - m)")
def var_online_running_average_inverted_rescale(m, l, o, scores_block, v_block):
    m_new = np.maximum(m, np.max(scores_block))
    w = np.exp(scores_block - m_new)
    old = np.exp(m_new - m) * l                       # the old total, rescaled
    total = old + w.sum()
    return m_new, total, (old / total) * o + (w @ v_block) / total   # o stays a weighted average


@answer("online_update", kind="variant", expect="normalised inside, wrong sign",
        note="o_new built in place then divided by the new sum; rescale = exp(m_new - m), guard in place")
def var_online_in_place_divide_inverted_rescale(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    shift = 0.0 if m_new == -np.inf else m_new
    p = np.exp(scores_block - shift)
    o_new = o * np.exp(shift - m)
    o_new += p @ v_block
    l_new = l * np.exp(shift - m) + np.sum(p)
    o_new /= l_new
    return m_new, l_new, o_new


# -- p shifted by the old maximum
@answer("online_update", kind="variant", expect="p shifted by the old maximum",
        note="weights of the new keys taken relative to the max known before the block (0 before any)")
def var_online_new_terms_by_old_max(m, l, o, scores_block, v_block):
    new_max = max(m, float(np.max(scores_block)))
    if new_max == -np.inf:
        return new_max, l, o
    base = m if m > -np.inf else 0.0                # nothing seen yet: no shift
    weights = np.exp(scores_block - base)           # relative to the old maximum
    factor = np.exp(m - new_max)
    return new_max, factor * l + np.sum(weights), factor * o + weights @ v_block


# -- m_new set to 0
@answer("online_update", kind="variant", expect="m_new set to 0",
        note="replaces a maximum of -inf by 0 before the exps, and returns that 0")
def var_online_max_replaced_by_zero(m, l, o, scores_block, v_block):
    top = np.max(np.append(scores_block, m))
    top = top if np.isfinite(top) else 0.0
    scale_old = np.exp(m - top)
    e = np.exp(scores_block - top)
    return top, scale_old * l + e.sum(), scale_old * o + e @ v_block


# -- guard tests m, not m_new
@answer("online_update", kind="variant", expect="guard tests m, not m_new",
        note="nothing to fold in while the running maximum is still -inf: returns the inputs on every first block")
def var_online_skips_first_block(m, l, o, scores_block, v_block):
    biggest = max(m, float(np.max(scores_block)))
    if np.isneginf(m):
        return biggest, l, o
    w = np.exp(scores_block - biggest)
    r = np.exp(m - biggest)
    return biggest, r * l + w.sum(), r * o + w @ v_block


@answer("online_update", kind="variant", expect="guard tests m, not m_new",
        note="the shift of 0 chosen by looking at the old maximum")
def var_online_shift_chosen_by_old_m(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    shift = m_new if m > -np.inf else 0.0
    weights = np.exp(scores_block - shift)
    alpha = np.exp(m - shift)
    return m_new, alpha * l + weights.sum(), alpha * o + weights @ v_block


# -- an array where a number is needed
@answer("online_update", kind="variant", expect="an array where a number is needed",
        note="the guard compares the whole block with -inf in an if")
def var_online_if_on_the_block(m, l, o, scores_block, v_block):
    if scores_block == -np.inf:                     # every key masked?
        return m, l, o
    m_new = max(m, float(np.max(scores_block)))
    a = np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    return m_new, a * l + p.sum(), a * o + p @ v_block


# -- an all-masked block resets the running values
@answer("online_update", kind="variant", expect="an all-masked block resets the running values",
        note="'nothing permitted in this block' answered with the start values, whatever came before")
def var_online_masked_block_starts_over(m, l, o, scores_block, v_block):
    if not np.isfinite(scores_block).any():         # every key of the block masked
        return float("-inf"), 0.0, 0 * o
    top = max(m, float(np.max(scores_block)))
    shrink = np.exp(m - top)
    e = np.exp(scores_block - top)
    return top, shrink * l + e.sum(), shrink * o + e @ v_block


# -- np.max of two numbers
@answer("online_update", kind="variant", expect="np.max of two numbers",
        note="np.max(m, block maximum), taking np.max for Python's max")
def var_online_np_max_pair(m, l, o, scores_block, v_block):
    new = np.max(m, np.max(scores_block))
    if new == -np.inf:
        return new, l, o
    r = np.exp(m - new)
    w = np.exp(scores_block - new)
    return new, r * l + w.sum(), r * o + w @ v_block


# -- kept normalised
@answer("online_update", kind="variant", expect="kept normalised",
        note="a normalised running output, updated by weighting the old one by l / l_new (the right sign)")
def var_online_weighted_average(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    if m_new == -np.inf:
        return m_new, l, o  # nothing permitted yet
    alpha = np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    l_new = alpha * l + p.sum()
    return m_new, l_new, (alpha * l / l_new) * o + (p / l_new) @ v_block
