"""The five misleading messages a new learner reported (issue 24), one test each, written as that learner
wrote the answer: each would fail on the message the checker gave then.
"""
import numpy as np
import pytest

import course_utils as cu
from course_utils.checks import (
    check_capstone_layer,
    check_causal_mask,
    check_online_update,
    check_padding_mask,
)
from course_utils.checks._format import shape_difference

INTERNAL = "the checker itself hit an unexpected error"


def _heads_mask(x, lengths):
    """The capstone's mask, (B, T, T): causal and key padding (built by hand, as the exercise asks)."""
    pos = np.arange(x.shape[1])
    return (pos[None, :] <= pos[:, None])[None] & (pos[None, :] < np.asarray(lengths)[:, None])[:, None, :]


def _capstone(x, lengths, w_q, w_k, w_v, w_o, num_heads, *, mask4, mean_weights=False):
    """A capstone layer whose mask meets the scores (B, h, T, T) as ``mask4`` (a function of the (B, T, T) mask)."""
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    weights = cu.softmax(np.where(mask4(_heads_mask(x, lengths)), scores, -np.inf))
    output = cu.merge_heads(weights @ v) @ w_o
    return output, weights.mean(axis=1) if mean_weights else weights


def test_causal_mask_one_row_short_names_the_shape_not_a_checker_error():
    """(a) A mask of size T - 1 (empty for T = 1) crashed the checker (max() of an empty sequence)."""
    def causal_mask(T):
        return np.tril(np.ones((T - 1, T - 1), dtype=bool))

    result = check_causal_mask(causal_mask)
    assert result.status == "wrong"
    assert INTERNAL not in result.text
    assert "The shape of the mask is (0, 0); expected (1, 1): axes 0 and 1 have size 0, not 1." in result.message, result.text


def test_padding_mask_slice_one_too_far_is_not_told_it_uses_less_equal():
    """(b) `mask[b, :n + 1] = True` was told "you use `<=`": the hint must say what the mask does."""
    def padding_mask(lengths, T):
        mask = np.zeros((len(lengths), T), dtype=bool)
        for b, n in enumerate(lengths):
            mask[b, :n + 1] = True
        return mask

    result = check_padding_mask(padding_mask)
    assert result.status == "wrong"
    assert "you use" not in result.hint, result.text
    # named (it gives what `<=` gives on every case), in words that hold for a slice as for a comparison
    assert result.mistake == "one padding position too many", result.text
    assert "one True too many" in result.hint, result.text


def test_capstone_mask_with_a_leading_axis_is_not_told_it_is_three_d():
    """(c) `mask[None]` (1, B, T, T) was told "your mask is (B, T, T)"."""
    def layer(x, lengths, w_q, w_k, w_v, w_o, num_heads):
        return _capstone(x, lengths, w_q, w_k, w_v, w_o, num_heads, mask4=lambda m: m[None])

    result = check_capstone_layer(layer)
    assert result.status == "wrong"
    assert "your mask is (B, T, T)" not in result.hint, result.text
    assert result.mistake == "mask without a head axis", result.text
    assert "(1, B, T, T)" in result.hint, result.text


def test_capstone_heads_split_but_weights_averaged_is_not_told_to_split():
    """(d) A layer that splits heads but returns the weights averaged over them was told to split."""
    def layer(x, lengths, w_q, w_k, w_v, w_o, num_heads):
        return _capstone(x, lengths, w_q, w_k, w_v, w_o, num_heads, mask4=lambda m: m[:, None], mean_weights=True)

    result = check_capstone_layer(layer)
    assert result.status == "wrong"
    assert "split" not in result.hint.lower(), result.text
    assert "average" in result.hint, result.text


def test_capstone_without_heads_is_still_told_to_split():
    """The other half of (d): a layer with one attention over all d_model columns is told to split."""
    def layer(x, lengths, w_q, w_k, w_v, w_o, num_heads):
        return _capstone(x, lengths, w_q, w_k, w_v, w_o, 1, mask4=lambda m: m[:, None])[0], \
            _capstone(x, lengths, w_q, w_k, w_v, w_o, 1, mask4=lambda m: m[:, None])[1][:, 0]

    result = check_capstone_layer(layer)
    assert result.mistake == "one head", result.text
    assert "split" in result.hint.lower(), result.text


def test_inf_without_nan_is_not_explained_as_nan():
    """(e) 07: "contains inf ... (nan means 'not a number')" where the answer holds no nan. An update whose o_new
    is inf (an overflow) while m_new and l_new are right."""
    def online_update(m, l, o, scores_block, v_block):
        m_new = max(m, float(np.max(scores_block)))
        shift = 0.0 if m_new == -np.inf else m_new
        p = np.exp(scores_block - shift)
        return m_new, np.exp(m - shift) * l + p.sum(), np.full(np.shape(o), np.inf)

    result = check_online_update(online_update)
    assert result.status == "wrong"
    problem = next(line for line in result.message.splitlines() if "contains" in line)
    assert "inf" in problem and "nan" not in problem, result.text


def test_nan_is_still_explained():
    """The nan note stays where there is a nan."""
    def online_update(m, l, o, scores_block, v_block):
        return np.nan, np.nan, np.full_like(np.asarray(o, dtype=float), np.nan)

    result = check_online_update(online_update)
    assert "nan means 'not a number'" in result.message, result.text


@pytest.mark.parametrize("got, expected, text", [
    ((0, 0), (1, 1), "axes 0 and 1 have size 0, not 1"),
    ((2, 4, 3), (2, 3, 3), "axis 1 has size 4, not 3"),
    ((3, 2), (2, 3), "axis 0 has size 3, not 2; axis 1 has size 2, not 3 (the expected sizes, in another order)"),
    ((1, 3, 3), (1, 1, 3, 3), "3 axes instead of 4"),
    ((), (3,), "no axis (a single number) instead of 1"),
])
def test_a_wrong_shape_is_told_by_axis(got, expected, text):
    """(a) asks for the shape by axis: what the report says after "expected (...):"."""
    assert shape_difference(got, expected) == text
