"""Plausible wrong answers to notebook 07 (online_update).

Written as beginner learners would write them, independently of the checkers' mistake tables
(the precision set: ``kind="other"``). Each function is one complete, wrong attempt.
"""
import numpy as np

from learner_answers import answer

# --------------------------------------------------------------------------------------------
# Exercise · my_online_update(m, l, o, scores_block, v_block)
# --------------------------------------------------------------------------------------------

@answer("online_update", kind="variant", expect="normalised inside", note="divides the running output by l at every step")
def online_normalises_each_step(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    shift = 0.0 if m_new == -np.inf else m_new
    rescale = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    l_new = rescale * l + p.sum()
    o_new = (rescale * o + p @ v_block) / l_new
    return m_new, l_new, o_new


@answer("online_update", kind="variant", expect="no rescale", note="never rescales the old l and o")
def online_no_rescale(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    shift = 0.0 if m_new == -np.inf else m_new
    p = np.exp(scores_block - shift)
    return m_new, l + p.sum(), o + p @ v_block


@answer("online_update", kind="variant", expect="wrong sign",
        note="rescale factor upside down: exp(m_new - m), guarded by `if m != -np.inf else 0.0`")
def online_rescale_inverted(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    shift = 0.0 if m_new == -np.inf else m_new
    rescale = np.exp(shift - m) if m != -np.inf else 0.0
    p = np.exp(scores_block - shift)
    return m_new, rescale * l + p.sum(), rescale * o + p @ v_block


@answer("online_update", kind="variant", expect="no rescale", note="rescales l but forgets to rescale o")
def online_rescale_l_only(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    shift = 0.0 if m_new == -np.inf else m_new
    rescale = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    return m_new, rescale * l + p.sum(), o + p @ v_block


@answer("online_update", kind="variant", expect="nan on an all-masked first block", note="textbook three lines: NaN when the first block is all masked")
def online_no_inf_guard(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block.max())
    rescale = np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    return m_new, rescale * l + p.sum(), rescale * o + p @ v_block


@answer("online_update", kind="variant", expect="max not updated", note="m_new is the block's max only (forgets the old m)")
def online_forgets_old_max(m, l, o, scores_block, v_block):
    m_new = float(np.max(scores_block))
    shift = 0.0 if m_new == -np.inf else m_new
    rescale = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    return m_new, rescale * l + p.sum(), rescale * o + p @ v_block


@answer("online_update", kind="variant", expect="p shifted by the old maximum",
        note="new block's terms shifted by the old m")
def online_shift_by_old_max(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    shift_old = 0.0 if m == -np.inf else m
    shift_new = 0.0 if m_new == -np.inf else m_new
    rescale = np.exp(shift_old - shift_new) if m != -np.inf else 0.0
    p = np.exp(scores_block - shift_old)
    return m_new, rescale * l + p.sum(), rescale * o + p @ v_block


@answer("online_update", note="rescales the new block's terms too: rescale * (l + sum p)")
def online_rescale_everything(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    shift = 0.0 if m_new == -np.inf else m_new
    rescale = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    return m_new, rescale * (l + p.sum()), rescale * (o + p @ v_block)


@answer("online_update", kind="variant", expect="m_new set to 0",
        note="replaces m = -inf by 0 at the start, and returns that 0 as the max")
def online_start_at_zero(m, l, o, scores_block, v_block):
    if m == -np.inf:
        m = 0.0
    m_new = max(m, float(np.max(scores_block)))
    rescale = np.exp(m - m_new)
    p = np.exp(scores_block - m_new)
    return m_new, rescale * l + p.sum(), rescale * o + p @ v_block


@answer("online_update", note="np.maximum(m, scores_block): m_new becomes an array")
def online_elementwise_max(m, l, o, scores_block, v_block):
    m_new = np.maximum(m, scores_block)
    shift = np.where(np.isneginf(m_new), 0.0, m_new)
    rescale = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    return m_new, rescale * l + p.sum(), rescale[:, None] * o + p @ v_block


@answer("online_update", note="adds the block's mean value weighted by sum(p), not each value")
def online_mean_value(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    shift = 0.0 if m_new == -np.inf else m_new
    rescale = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    return m_new, rescale * l + p.sum(), rescale * o + p.sum() * v_block.mean(axis=0)


@answer("online_update", note="guards -inf with nan_to_num on l only; o keeps the NaN")
def online_partial_nan_fix(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    with np.errstate(invalid="ignore"):
        rescale = np.exp(m - m_new)
        p = np.exp(scores_block - m_new)
    l_new = float(np.nan_to_num(rescale * l + p.sum()))
    o_new = rescale * o + p @ v_block
    return m_new, l_new, o_new


@answer("online_update", note="stores log(l) instead of l (log-sum-exp habit)")
def online_log_l(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    shift = 0.0 if m_new == -np.inf else m_new
    rescale = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    l_new = np.log(rescale * l + p.sum()) if rescale * l + p.sum() > 0 else -np.inf
    return m_new, l_new, rescale * o + p @ v_block


@answer("online_update", note="p * v_block without the sum over the block's keys")
def online_no_sum_over_block(m, l, o, scores_block, v_block):
    m_new = max(m, float(np.max(scores_block)))
    shift = 0.0 if m_new == -np.inf else m_new
    rescale = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    return m_new, rescale * l + p.sum(), rescale * o + p * v_block


@answer("online_update", kind="variant", expect="an array where a number is needed",
        note="max(m, scores_block): Python's max of a number and an array")
def online_python_max_of_array(m, l, o, scores_block, v_block):
    m_new = max(m, scores_block)
    shift = 0.0 if m_new == -np.inf else m_new
    rescale = np.exp(m - shift)
    p = np.exp(scores_block - shift)
    return m_new, rescale * l + p.sum(), rescale * o + p @ v_block
