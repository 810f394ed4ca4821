"""More wrong answers to notebook 07 (online_update), issue 24.

Written from the notebook's exercise text before reading the checker, as a new learner would.
``kind="other"`` unless the mistake is one the checker already names (then ``kind="variant"``).
"""
import numpy as np

from learner_answers import answer


def _shift(m_new):
    return 0.0 if m_new == -np.inf else m_new


@answer("online_update", note="updates o in place (o *= rescale), though the text asks for new values")
def more_online_in_place(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    rescale = np.exp(m - _shift(m_new))
    p = np.exp(scores_block - _shift(m_new))
    o *= rescale
    o += p @ v_block
    return m_new, rescale * l + p.sum(), o


@answer("online_update", expect="no rescale", note="rescales the running sum l but not the running output o")
def more_online_rescale_l_only(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    rescale = np.exp(m - _shift(m_new))
    p = np.exp(scores_block - _shift(m_new))
    return m_new, rescale * l + p.sum(), o + p @ v_block


@answer("online_update", expect="no rescale", note="rescales the running output o but not the running sum l")
def more_online_rescale_o_only(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    rescale = np.exp(m - _shift(m_new))
    p = np.exp(scores_block - _shift(m_new))
    return m_new, l + p.sum(), rescale * o + p @ v_block


@answer("online_update", note="the running max is the block's mean (a 'typical' score)")
def more_online_mean_not_max(m, l, o, scores_block, v_block):
    finite = scores_block[np.isfinite(scores_block)]
    m_new = max(m, float(finite.mean())) if finite.size else m
    rescale = np.exp(m - _shift(m_new))
    p = np.exp(scores_block - _shift(m_new))
    return m_new, rescale * l + p.sum(), rescale * o + p @ v_block


@answer("online_update", note="the new block's terms are added to o without the values (p.sum() instead of p @ v)")
def more_online_no_values(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    rescale = np.exp(m - _shift(m_new))
    p = np.exp(scores_block - _shift(m_new))
    return m_new, rescale * l + p.sum(), rescale * o + p.sum()


@answer("online_update", note="tracks m but exponentiates the raw scores (no shift): inf on large scores")
def more_online_p_unshifted(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    rescale = np.exp(m - _shift(m_new))
    p = np.exp(scores_block)
    return m_new, rescale * l + p.sum(), rescale * o + p @ v_block


@answer("online_update", expect="max not updated", note="the old maximum m returned instead of m_new")
def more_online_returns_old_m(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    rescale = np.exp(m - _shift(m_new))
    p = np.exp(scores_block - _shift(m_new))
    return m, rescale * l + p.sum(), rescale * o + p @ v_block
