"""course_utils against PyTorch, an independent reference (skipped when torch is not installed, required in CI).

Conventions that differ (measured with PyTorch 2.13):

- ``nn.MultiheadAttention`` stores ``in_proj_weight`` as (3 d_model, d_model) and multiplies on the
  left, ``x @ W.T``; so its q, k, v blocks are our ``w_q.T``, ``w_k.T``, ``w_v.T``, and
  ``out_proj.weight`` is ``w_o.T``. Its heads take contiguous column blocks, as ours do.
- Its boolean ``attn_mask`` means True = BLOCKED (the opposite of this course and of
  ``F.scaled_dot_product_attention``); ``key_padding_mask`` True = ignore this key.
- ``need_weights=True, average_attn_weights=False`` returns every head's weights, (B, h, T, T).
"""
import os

import numpy as np
import pytest

import course_utils as cu

if os.environ.get("COURSE_REQUIRE_TORCH") == "1":  # set by .ci/run: there a missing torch is an error
    import torch
else:
    torch = pytest.importorskip("torch", reason="PyTorch not installed: `pip install torch==2.13.0` to run these")

B, T, D_MODEL = 3, 6, 8


def inputs(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(B, T, D_MODEL))
    w_q, w_k, w_v, w_o = rng.normal(size=(4, D_MODEL, D_MODEL)) / np.sqrt(D_MODEL)
    return x, w_q, w_k, w_v, w_o


def torch_mha(x, w_q, w_k, w_v, w_o, num_heads, *, attn_mask=None, key_padding_mask=None):
    """nn.MultiheadAttention with our matrices copied in; returns numpy (output, weights)."""
    module = torch.nn.MultiheadAttention(D_MODEL, num_heads, bias=False, batch_first=True).double()
    with torch.no_grad():
        module.in_proj_weight.copy_(torch.from_numpy(np.concatenate([w_q.T, w_k.T, w_v.T], axis=0)))
        module.out_proj.weight.copy_(torch.from_numpy(w_o.T))
    xt = torch.from_numpy(x)
    kwargs = dict(need_weights=True, average_attn_weights=False)
    if attn_mask is not None:
        kwargs["attn_mask"] = torch.from_numpy(attn_mask)
    if key_padding_mask is not None:
        kwargs["key_padding_mask"] = torch.from_numpy(key_padding_mask)
    with torch.no_grad():
        output, weights = module(xt, xt, xt, **kwargs)
    return output.numpy(), weights.numpy()


@pytest.mark.parametrize("num_heads", [1, 2, 4, 8])
def test_multi_head_attention_matches_torch_without_a_mask(num_heads):
    x, *ws = inputs(seed=num_heads)
    output, weights = cu.multi_head_attention(x, *ws, num_heads)
    torch_output, torch_weights = torch_mha(x, *ws, num_heads)
    assert weights.shape == torch_weights.shape == (B, num_heads, T, T)
    np.testing.assert_allclose(output, torch_output, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weights, torch_weights, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("num_heads", [2, 4])
def test_multi_head_attention_matches_torch_with_a_causal_mask(num_heads):
    x, *ws = inputs(seed=10 + num_heads)
    allowed = cu.causal_mask(T)  # True = may attend (this course)
    output, weights = cu.multi_head_attention(x, *ws, num_heads, mask=allowed)
    torch_output, torch_weights = torch_mha(x, *ws, num_heads, attn_mask=~allowed)  # True = blocked (torch)
    np.testing.assert_allclose(output, torch_output, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weights, torch_weights, rtol=1e-10, atol=1e-12)
    assert (weights[..., ~allowed] == 0).all()


@pytest.mark.parametrize("num_heads", [2, 8])
def test_multi_head_attention_matches_torch_with_a_padding_mask(num_heads):
    x, *ws = inputs(seed=20 + num_heads)
    real = cu.padding_mask([6, 4, 1], T)  # (B, T), True at real tokens
    output, weights = cu.multi_head_attention(x, *ws, num_heads, mask=real[:, None, :])
    torch_output, torch_weights = torch_mha(x, *ws, num_heads, key_padding_mask=~real)  # True = ignore
    np.testing.assert_allclose(output, torch_output, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weights, torch_weights, rtol=1e-10, atol=1e-12)


def test_multi_head_attention_matches_torch_with_causal_and_padding_masks():
    x, *ws = inputs(seed=30)
    real = cu.padding_mask([6, 3, 5], T)
    allowed = cu.causal_mask(T)[None, :, :] & real[:, None, :]  # (B, T, T); right padding: no empty row
    output, weights = cu.multi_head_attention(x, *ws, 4, mask=allowed)
    torch_output, torch_weights = torch_mha(x, *ws, 4, attn_mask=~cu.causal_mask(T), key_padding_mask=~real)
    np.testing.assert_allclose(output, torch_output, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weights, torch_weights, rtol=1e-10, atol=1e-12)


def test_scaled_dot_product_attention_matches_torch_including_a_row_with_no_key():
    rng = np.random.default_rng(40)
    q, k, v = rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 5, 3))
    allowed = np.broadcast_to(cu.causal_mask(5), (2, 5, 5)).copy()
    allowed[1, 2, :] = False  # a query with no permitted key
    output, weights = cu.scaled_dot_product_attention(q, k, v, allowed)
    torch_output = torch.nn.functional.scaled_dot_product_attention(
        torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), attn_mask=torch.from_numpy(allowed)
    ).numpy()  # its boolean mask: True = may attend, like this course
    np.testing.assert_allclose(output, torch_output, rtol=1e-10, atol=1e-12)
    assert (output[1, 2] == 0).all() and (torch_output[1, 2] == 0).all() and (weights[1, 2] == 0).all()


def test_scaled_dot_product_attention_float_mask_matches_torch():
    rng = np.random.default_rng(41)
    q, k, v = rng.normal(size=(4, 4)), rng.normal(size=(4, 4)), rng.normal(size=(4, 2))
    additive = np.where(cu.causal_mask(4), 0.0, -np.inf) + rng.normal(size=(4, 4))  # a bias and -inf
    output, _ = cu.scaled_dot_product_attention(q, k, v, additive)
    torch_output = torch.nn.functional.scaled_dot_product_attention(
        torch.from_numpy(q)[None], torch.from_numpy(k)[None], torch.from_numpy(v)[None],
        attn_mask=torch.from_numpy(additive)[None],
    ).numpy()[0]
    np.testing.assert_allclose(output, torch_output, rtol=1e-10, atol=1e-12)


def torch_sdpa(q, k, v, mask=None):
    """PyTorch's fused scaled_dot_product_attention on numpy inputs (its boolean mask: True = may attend)."""
    with torch.no_grad():
        return torch.nn.functional.scaled_dot_product_attention(
            *(torch.from_numpy(x) for x in (q, k, v)), attn_mask=None if mask is None else torch.from_numpy(mask)
        ).numpy()


@pytest.mark.parametrize("block_size", [1, 3, (4, 7), None])
def test_blockwise_attention_matches_torch_including_a_row_with_no_key(block_size):
    """Notebook 07's loop over blocks gives PyTorch's attention: uneven blocks, a boolean mask per batch entry with a
    query that may attend to no key (zeros in both), a float bias."""
    rng = np.random.default_rng(42)
    q, k, v = rng.normal(size=(2, 3, 9, 4)), rng.normal(size=(2, 3, 11, 4)), rng.normal(size=(2, 3, 11, 5))
    allowed = rng.random((2, 1, 9, 11)) > 0.4
    allowed[1, 0, 2] = False
    output = cu.blockwise_attention(q, k, v, block_size, allowed)
    np.testing.assert_allclose(output, torch_sdpa(q, k, v, allowed), rtol=1e-10, atol=1e-12)
    assert (output[1, :, 2] == 0).all()
    bias = rng.normal(size=(9, 11))
    np.testing.assert_allclose(cu.blockwise_attention(q, k, v, block_size, bias), torch_sdpa(q, k, v, bias),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("attention", ["scaled_dot_product_attention", "blockwise_attention"])
def test_float32_attention_over_hundreds_of_keys_matches_torch(attention):
    """Notebook 07's sizes in the precision models use: float32 in, float32 out, within float32's rounding."""
    rng = np.random.default_rng(43)
    q, k, v = rng.normal(size=(3, 4, 300, 64)).astype(np.float32)
    mask = cu.causal_mask(300)
    call = getattr(cu, attention)
    output = call(q, k, v, mask=mask)
    output = output[0] if attention == "scaled_dot_product_attention" else output
    assert output.dtype == np.float32
    np.testing.assert_allclose(output, torch_sdpa(q, k, v, mask), rtol=1e-4, atol=2e-5)
