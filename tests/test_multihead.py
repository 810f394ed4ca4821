"""Unit tests for course_utils.multihead: split_heads, merge_heads, multi_head_attention."""
import re

import numpy as np
import pytest

from course_utils.attention import scaled_dot_product_attention
from course_utils.masks import causal_mask, padding_mask
from course_utils.multihead import merge_heads, multi_head_attention, split_heads


def make_inputs(seed=0, lead=(), T=5, d_model=8):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(*lead, T, d_model))
    w_q, w_k, w_v, w_o = (rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(4))
    return x, w_q, w_k, w_v, w_o


def mha_loop(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    """Per-head Python loop for 2-D x (T, d_model): slice the columns of each projection."""
    d_head = x.shape[-1] // num_heads
    head_outputs, head_weights = [], []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        q, k, v = x @ w_q[:, cols], x @ w_k[:, cols], x @ w_v[:, cols]  # (T, d_head) each
        scores = q @ k.T / np.sqrt(d_head)  # (T, T)
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        weights = np.zeros_like(scores)
        for i in range(scores.shape[0]):
            if np.isneginf(scores[i]).all():
                continue  # no permitted key: zeros
            e = np.exp(scores[i] - scores[i].max())
            weights[i] = e / e.sum()
        head_outputs.append(weights @ v)
        head_weights.append(weights)
    return np.concatenate(head_outputs, axis=-1) @ w_o, np.stack(head_weights)


# ---------------------------------------------------------------- split / merge

def test_split_heads_shape_and_columns():
    x = np.arange(2 * 3 * 6, dtype=float).reshape(2, 3, 6)  # (B, T, d_model)
    heads = split_heads(x, 3)
    assert heads.shape == (2, 3, 3, 2)  # (B, h, T, d_head)
    for h in range(3):
        np.testing.assert_array_equal(heads[:, h], x[:, :, 2 * h:2 * h + 2])


def test_split_heads_hand_example():
    x = np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])  # (T=2, d_model=4)
    np.testing.assert_array_equal(split_heads(x, 2), [[[1.0, 2.0], [5.0, 6.0]], [[3.0, 4.0], [7.0, 8.0]]])
    np.testing.assert_array_equal(split_heads(x, 1), x[None])


def test_merge_heads_inverts_split_heads():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 4, 12))
    for h in (1, 2, 3, 4, 6, 12):
        np.testing.assert_array_equal(merge_heads(split_heads(x, h)), x)
    y = rng.normal(size=(5, 4, 7, 3))  # (B, h, T, d_head)
    merged = merge_heads(y)
    assert merged.shape == (5, 7, 12)
    np.testing.assert_array_equal(split_heads(merged, 4), y)


def test_split_merge_errors():
    with pytest.raises(ValueError, match=re.escape("d_model=6 is not divisible by num_heads=4 (x shape (3, 6))")):
        split_heads(np.zeros((3, 6)), 4)
    with pytest.raises(ValueError, match=r"x must have at least 2 dimensions \(\.\.\., T, d_model\); got shape \(6,\)"):
        split_heads(np.zeros(6), 2)
    with pytest.raises(TypeError, match=r"num_heads must be a positive int; got 2.0"):
        split_heads(np.zeros((3, 6)), 2.0)
    with pytest.raises(ValueError, match=r"x must have at least 3 dimensions \(\.\.\., num_heads, T, d_head\); "
                                         r"got shape \(3, 6\)"):
        merge_heads(np.zeros((3, 6)))
    with pytest.raises(TypeError, match=r"x must hold real numbers.*complex128"):
        merge_heads(np.zeros((2, 3, 6), dtype=complex))


# ---------------------------------------------------------------- multi_head_attention

@pytest.mark.parametrize("num_heads", [1, 2, 4, 8])
def test_mha_matches_per_head_loop(num_heads):
    x, *ws = make_inputs(seed=num_heads)
    output, weights = multi_head_attention(x, *ws, num_heads)
    expected_out, expected_w = mha_loop(x, *ws, num_heads)
    assert output.shape == (5, 8) and weights.shape == (num_heads, 5, 5)
    np.testing.assert_allclose(output, expected_out, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(weights, expected_w, rtol=1e-12, atol=1e-14)


def test_mha_batched_with_causal_mask_matches_loop():
    x, *ws = make_inputs(seed=11, lead=(3,))
    mask = causal_mask(5)
    output, weights = multi_head_attention(x, *ws, 2, mask=mask)
    assert output.shape == (3, 5, 8) and weights.shape == (3, 2, 5, 5)
    for b in range(3):
        expected_out, expected_w = mha_loop(x[b], *ws, 2, mask)
        np.testing.assert_allclose(output[b], expected_out, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(weights[b], expected_w, rtol=1e-12, atol=1e-14)
    assert (np.triu(weights, 1) == 0).all()  # every head respects the shared mask


def test_mha_padding_mask_shared_by_heads_and_empty_sequence():
    x, *ws = make_inputs(seed=12, lead=(3,))
    lengths = [3, 0, 5]
    mask = padding_mask(lengths, 5)[:, None, :]  # (B, 1, T_k)
    output, weights = multi_head_attention(x, *ws, 4, mask=mask)
    assert weights.shape == (3, 4, 5, 5)
    np.testing.assert_array_equal(weights[0, :, :, 3:], 0.0)
    np.testing.assert_array_equal(output[1], 0.0)  # a sequence with no real key: zero output
    np.testing.assert_allclose(weights[[0, 2]].sum(axis=-1), 1.0)
    expected_out, _ = mha_loop(x[0], *ws, 4, np.broadcast_to(mask[0], (5, 5)))
    np.testing.assert_allclose(output[0], expected_out, rtol=1e-12, atol=1e-14)


def test_mha_one_head_equals_single_head_attention():
    x, w_q, w_k, w_v, w_o = make_inputs(seed=5, lead=(2,))
    output, weights = multi_head_attention(x, w_q, w_k, w_v, w_o, 1)
    single_out, single_w = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)
    np.testing.assert_allclose(output, single_out @ w_o, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(weights[:, 0], single_w, rtol=1e-12, atol=1e-14)


def test_mha_float32_stays_float32():
    x, *ws = (a.astype(np.float32) for a in make_inputs(seed=6))
    output, weights = multi_head_attention(x, *ws, 2)
    assert output.dtype == np.float32 and weights.dtype == np.float32


# ---------------------------------------------------------------- multi_head_attention errors

@pytest.mark.parametrize("which", ["w_q", "w_k", "w_v", "w_o"])
def test_mha_weight_shape_error_names_the_weight(which):
    x, w_q, w_k, w_v, w_o = make_inputs()
    ws = {"w_q": w_q, "w_k": w_k, "w_v": w_v, "w_o": w_o}
    ws[which] = np.zeros((8, 4))
    with pytest.raises(ValueError, match=re.escape(
            f"{which} must have shape (d_model, d_model) = (8, 8) to match x shape (5, 8); got {which} shape (8, 4)")):
        multi_head_attention(x, **ws, num_heads=2)


@pytest.mark.parametrize(
    "num_heads, error, pattern",
    [
        (3, ValueError, r"d_model=8 is not divisible by num_heads=3"),
        (0, ValueError, r"num_heads must be a positive int; got num_heads=0"),
        (-2, ValueError, r"num_heads must be a positive int; got num_heads=-2"),
        (2.0, TypeError, r"num_heads must be a positive int; got 2.0 of type float"),
        (True, TypeError, r"num_heads must be a positive int; got True of type bool"),
    ],
)
def test_mha_bad_num_heads(num_heads, error, pattern):
    x, *ws = make_inputs()
    with pytest.raises(error, match=pattern):
        multi_head_attention(x, *ws, num_heads)


def test_mha_bad_x_and_values():
    _, *ws = make_inputs()
    with pytest.raises(ValueError, match=r"x must have at least 2 dimensions \(\.\.\., T, d_model\); got shape \(8,\)"):
        multi_head_attention(np.zeros(8), *ws, 2)
    x = np.zeros((5, 8))
    x[2, 3] = np.inf
    with pytest.raises(ValueError, match=r"x contains \+inf at index \(2, 3\)"):
        multi_head_attention(x, *ws, 2)
    bad_w_o = ws[3].copy()
    bad_w_o[0, 1] = np.nan
    with pytest.raises(ValueError, match=r"w_o contains NaN at index \(0, 1\)"):
        multi_head_attention(np.zeros((5, 8)), *ws[:3], bad_w_o, 2)


def test_mha_bad_mask():
    x, *ws = make_inputs(lead=(2,))
    with pytest.raises(ValueError, match=re.escape(
            "mask shape (4, 4) does not broadcast to the scores shape (..., T_q, T_k) = (2, 5, 5)")):
        multi_head_attention(x, *ws, 2, mask=np.ones((4, 4), dtype=bool))
    with pytest.raises(TypeError, match=r"mask has integer dtype int64.*use a boolean mask \(True = may attend\)"):
        multi_head_attention(x, *ws, 2, mask=np.ones((5, 5), dtype=np.int64))
