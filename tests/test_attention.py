"""Unit tests for course_utils.attention: attention_row and scaled_dot_product_attention."""
import math
import re

import numpy as np
import pytest

import course_utils as cu
from course_utils.attention import attention_row, scaled_dot_product_attention
from course_utils.blockwise import blockwise_attention
from course_utils.lessons.data import ARTICLE_SCORES, ARTICLE_VALUES
from course_utils.masks import causal_mask, padding_mask


def sdpa_loop(q, k, v, mask=None, scale=None):
    """Plain per-query Python loop for 2-D q (T_q, d_k), k (T_k, d_k), v (T_k, d_v).

    mask (T_q, T_k) is boolean (True = may attend) or float (added); a row with no
    permitted key gives zero weights and a zero output.
    """
    t_q, d_k = q.shape
    t_k, d_v = v.shape
    scale = 1.0 / math.sqrt(d_k) if scale is None else scale
    output = np.zeros((t_q, d_v))
    weights = np.zeros((t_q, t_k))
    for i in range(t_q):
        scores = []
        for j in range(t_k):
            s = sum(q[i, a] * k[j, a] for a in range(d_k)) * scale
            if mask is not None:
                if mask.dtype == bool:
                    s = s if mask[i, j] else -math.inf
                else:
                    s = s + mask[i, j]
            scores.append(s)
        if all(s == -math.inf for s in scores):
            continue  # no permitted key: zeros
        shift = max(scores)
        unnormalised = [math.exp(s - shift) for s in scores]
        total = sum(unnormalised)
        for j in range(t_k):
            weights[i, j] = unnormalised[j] / total
            output[i] += weights[i, j] * v[j]
    return output, weights


@pytest.fixture
def qkv():
    rng = np.random.default_rng(42)
    return rng.normal(size=(4, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))


# ---------------------------------------------------------------- attention_row

def test_attention_row_article_numbers():
    output, weights = attention_row(ARTICLE_SCORES, ARTICLE_VALUES)
    assert np.round(weights, 3).tolist() == [0.665, 0.245, 0.09]
    assert np.round(output, 3).tolist() == [0.935, 0.579]
    assert output.shape == (2,) and weights.shape == (3,)


def test_attention_row_is_weighted_sum_of_values():
    scores = np.array([0.5, -1.0, 2.0, 0.0])
    values = np.arange(12.0).reshape(4, 3)
    output, weights = attention_row(scores, values)
    e = np.exp(scores)
    np.testing.assert_allclose(weights, e / e.sum(), rtol=1e-14)
    np.testing.assert_allclose(output, sum(w * row for w, row in zip(weights, values)), rtol=1e-14)


def test_attention_row_masked_key_and_empty_row():
    output, weights = attention_row([0.0, -np.inf, 0.0], ARTICLE_VALUES)
    np.testing.assert_allclose(weights, [0.5, 0.0, 0.5])
    np.testing.assert_allclose(output, [2.0, 0.5])
    output, weights = attention_row([-np.inf] * 3, ARTICLE_VALUES)
    np.testing.assert_array_equal(weights, np.zeros(3))
    np.testing.assert_array_equal(output, np.zeros(2))


@pytest.mark.parametrize(
    "scores, values, pattern",
    [
        (np.zeros((1, 3)), ARTICLE_VALUES, r"scores must be 1-D \(T,\).*got shape \(1, 3\)"),
        (ARTICLE_SCORES, np.zeros(3), r"values must be 2-D \(T, d_v\).*got shape \(3,\)"),
        (np.zeros(4), ARTICLE_VALUES,
         r"scores has T=4 keys but values has T=3 rows \(scores shape \(4,\), values shape \(3, 2\)\)"),
        ([0.0, np.nan, 1.0], ARTICLE_VALUES, r"scores contains NaN at index \(1,\)"),
        ([0.0, np.inf, 1.0], ARTICLE_VALUES, r"scores contains \+inf"),
        (ARTICLE_SCORES, [[1.0, 0.0], [0.0, -np.inf], [0.0, 0.0]], r"values contains -inf at index \(1, 1\)"),
    ],
)
def test_attention_row_errors(scores, values, pattern):
    with pytest.raises(ValueError, match=pattern):
        attention_row(scores, values)


# ---------------------------------------------------------------- scaled_dot_product_attention

def test_sdpa_matches_loop(qkv):
    q, k, v = qkv
    output, weights = scaled_dot_product_attention(q, k, v)
    expected_out, expected_w = sdpa_loop(q, k, v)
    assert output.shape == (4, 2) and weights.shape == (4, 5)
    np.testing.assert_allclose(output, expected_out, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(weights, expected_w, rtol=1e-12, atol=1e-14)


def test_sdpa_hand_computed_single_query():
    # q = k rows chosen so that the scaled scores are exactly [2, 1, 0] (d_k = 4, scale 1/2):
    q = np.array([[2.0, 2.0, 0.0, 0.0]])
    k = np.array([[1.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]])
    output, weights = scaled_dot_product_attention(q, k, ARTICLE_VALUES)
    assert np.round(weights[0], 3).tolist() == [0.665, 0.245, 0.09]
    assert np.round(output[0], 3).tolist() == [0.935, 0.579]


def test_sdpa_explicit_scale(qkv):
    q, k, v = qkv
    output, weights = scaled_dot_product_attention(q, k, v, scale=0.3)
    expected_out, expected_w = sdpa_loop(q, k, v, scale=0.3)
    np.testing.assert_allclose(output, expected_out, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(weights, expected_w, rtol=1e-12, atol=1e-14)
    # scale = 1 / sqrt(d_k) is the default
    np.testing.assert_allclose(
        scaled_dot_product_attention(q, k, v, scale=1 / math.sqrt(3))[0],
        scaled_dot_product_attention(q, k, v)[0], rtol=1e-15)


def test_sdpa_batched_equals_per_batch_loop():
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(2, 3, 4, 3)), rng.normal(size=(2, 3, 6, 3)), rng.normal(size=(2, 3, 6, 5))
    output, weights = scaled_dot_product_attention(q, k, v)
    assert output.shape == (2, 3, 4, 5) and weights.shape == (2, 3, 4, 6)
    for b in range(2):
        for h in range(3):
            expected_out, expected_w = sdpa_loop(q[b, h], k[b, h], v[b, h])
            np.testing.assert_allclose(output[b, h], expected_out, rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(weights[b, h], expected_w, rtol=1e-12, atol=1e-14)


def test_sdpa_leading_dims_broadcast():
    rng = np.random.default_rng(2)
    q = rng.normal(size=(2, 1, 5, 4))
    k = rng.normal(size=(3, 5, 4))
    v = rng.normal(size=(3, 5, 4))
    output, weights = scaled_dot_product_attention(q, k, v)
    assert output.shape == (2, 3, 5, 4) and weights.shape == (2, 3, 5, 5)
    for a in range(2):
        for b in range(3):
            expected_out, _ = sdpa_loop(q[a, 0], k[b], v[b])
            np.testing.assert_allclose(output[a, b], expected_out, rtol=1e-12, atol=1e-14)


def test_sdpa_boolean_mask_matches_loop(qkv):
    q, k, v = qkv
    mask = np.array([[1, 0, 1, 0, 1], [0, 0, 0, 0, 1], [1, 1, 1, 1, 1], [0, 1, 1, 0, 0]], dtype=bool)
    output, weights = scaled_dot_product_attention(q, k, v, mask)
    expected_out, expected_w = sdpa_loop(q, k, v, mask)
    np.testing.assert_allclose(output, expected_out, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(weights, expected_w, rtol=1e-12, atol=1e-14)
    assert (weights[~mask] == 0).all()
    np.testing.assert_allclose(output[1], v[4], rtol=1e-15)  # only key 4 is allowed for query 1


def test_sdpa_float_mask_is_added_to_scores(qkv):
    q, k, v = qkv
    bias = np.array([[0.0, -1.0, 2.0, -np.inf, 0.5]] * 4)
    output, weights = scaled_dot_product_attention(q, k, v, bias)
    expected_out, expected_w = sdpa_loop(q, k, v, bias)
    np.testing.assert_allclose(output, expected_out, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(weights, expected_w, rtol=1e-12, atol=1e-14)
    assert (weights[:, 3] == 0).all()


def test_sdpa_row_with_no_permitted_key_gives_zeros(qkv):
    q, k, v = qkv
    mask = np.ones((4, 5), dtype=bool)
    mask[2] = False
    for m in (mask, np.where(mask, 0.0, -np.inf)):
        output, weights = scaled_dot_product_attention(q, k, v, m)
        assert np.isfinite(output).all() and np.isfinite(weights).all()
        np.testing.assert_array_equal(weights[2], np.zeros(5))
        np.testing.assert_array_equal(output[2], np.zeros(2))
        np.testing.assert_allclose(weights[[0, 1, 3]].sum(axis=-1), 1.0)


def test_sdpa_causal_mask_first_query_copies_first_value(qkv):
    _, k, v = qkv
    output, weights = scaled_dot_product_attention(k, k, v, causal_mask(5))
    np.testing.assert_allclose(output[0], v[0], rtol=1e-15)
    assert (np.triu(weights, 1) == 0).all()


def test_sdpa_padding_mask_broadcast_over_queries():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 4, 3))
    lengths = [2, 4]
    mask = padding_mask(lengths, 4)[:, None, :]  # (B, 1, T_k)
    output, weights = scaled_dot_product_attention(x, x, x, mask)
    assert weights.shape == (2, 4, 4)
    np.testing.assert_array_equal(weights[0, :, 2:], 0.0)
    # the padded keys behave as if they were cut off
    expected_out, _ = sdpa_loop(x[0], x[0, :2], x[0, :2])
    np.testing.assert_allclose(output[0], expected_out, rtol=1e-12, atol=1e-14)


def test_sdpa_mask_may_add_leading_dims(qkv):
    q, k, v = qkv
    masks = np.stack([np.ones((4, 5), bool), causal_mask(5)[:4]])  # (2, T_q, T_k)
    output, weights = scaled_dot_product_attention(q, k, v, masks)
    assert output.shape == (2, 4, 2) and weights.shape == (2, 4, 5)
    np.testing.assert_allclose(output[1], sdpa_loop(q, k, v, masks[1])[0], rtol=1e-12, atol=1e-14)


def test_sdpa_no_keys_gives_zeros():
    output, weights = scaled_dot_product_attention(np.ones((3, 2)), np.ones((0, 2)), np.ones((0, 4)))
    assert output.shape == (3, 4) and weights.shape == (3, 0)
    np.testing.assert_array_equal(output, 0.0)


def test_sdpa_float32_stays_float32(qkv):
    q, k, v = (a.astype(np.float32) for a in qkv)
    output, weights = scaled_dot_product_attention(q, k, v, causal_mask(5)[:4])
    assert output.dtype == np.float32 and weights.dtype == np.float32
    np.testing.assert_allclose(output, sdpa_loop(*qkv, causal_mask(5)[:4])[0], rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- sdpa errors

def test_sdpa_d_k_mismatch_message():
    with pytest.raises(ValueError, match=re.escape("k has d_k=5 but q has d_k=4 (q shape (3, 4), k shape (3, 5))")):
        scaled_dot_product_attention(np.zeros((3, 4)), np.zeros((3, 5)), np.zeros((3, 2)))


def test_sdpa_t_k_mismatch_message():
    with pytest.raises(ValueError, match=re.escape("v has T_k=4 rows but k has T_k=3 (k shape (3, 2), v shape (4, 2))")):
        scaled_dot_product_attention(np.zeros((2, 2)), np.zeros((3, 2)), np.zeros((4, 2)))


@pytest.mark.parametrize("which", ["q", "k", "v"])
def test_sdpa_ndim_too_small(which):
    args = {"q": np.zeros((3, 2)), "k": np.zeros((3, 2)), "v": np.zeros((3, 2))}
    args[which] = np.zeros(2)
    with pytest.raises(ValueError, match=rf"{which} must have at least 2 dimensions .*got shape \(2,\) \(1-D\)"):
        scaled_dot_product_attention(**args)


def test_sdpa_leading_dims_do_not_broadcast():
    with pytest.raises(ValueError, match=re.escape(
            "the leading (batch) dims do not broadcast: q (2,), k (3,), v (3,) "
            "(q shape (2, 5, 4), k shape (3, 5, 4), v shape (3, 5, 4))")):
        scaled_dot_product_attention(np.zeros((2, 5, 4)), np.zeros((3, 5, 4)), np.zeros((3, 5, 4)))


def test_sdpa_integer_mask_refused(qkv):
    q, k, v = qkv
    with pytest.raises(TypeError, match=re.escape(
            "mask has integer dtype int64, which is ambiguous; use a boolean mask (True = may attend) "
            "or a float mask (0 or -inf added to the scores)")):
        scaled_dot_product_attention(q, k, v, np.ones((4, 5), dtype=np.int64))


@pytest.mark.parametrize("attend", [scaled_dot_product_attention, blockwise_attention])
def test_a_float_mask_of_zeros_and_ones_is_refused_not_added(qkv, attend):
    """The learner trial: mask=np.tril(np.ones((4, 5))) (float64) was added to the scores, and row 0 gave future keys
    0.155 and 0.151 of its weight, with no word. An integer 0/1 mask was refused as ambiguous; the float one is too."""
    q, k, v = qkv
    with pytest.raises(ValueError, match=re.escape("mask holds only 0s and 1s, as floats")) as error:
        attend(q, k, v, mask=np.tril(np.ones((4, 5))))
    assert "mask.astype(bool)" in str(error.value)
    attend(q, k, v, mask=np.zeros((4, 5)))  # all 0 (adds nothing) and a 0/-inf mask stay as they were
    attend(q, k, v, mask=np.where(np.tril(np.ones((4, 5), dtype=bool)), 0.0, -np.inf))


def test_a_mask_passed_as_blockwise_attentions_block_size_is_named(qkv):
    q, k, v = qkv
    with pytest.raises(TypeError, match=r"block_size \(the 4th argument\) .* shape \(4, 5\): a mask goes after it"):
        blockwise_attention(q, k, v, np.tril(np.ones((4, 5), dtype=bool)))


def test_the_reference_softmax_shows_its_computation():
    """`cu.softmax??` beside notebook 01: the max shift, exp and the division are in its own body, not behind a
    helper (the learner trial found only validation and a call)."""
    import inspect

    source = inspect.getsource(cu.softmax)
    assert all(step in source for step in ("np.max(", "np.exp(", "np.sum(", "e / total")), source


@pytest.mark.parametrize("bad, label", [(np.nan, "NaN"), (np.inf, r"\+inf")])
def test_sdpa_float_mask_nan_or_posinf_refused(qkv, bad, label):
    q, k, v = qkv
    mask = np.zeros((4, 5))
    mask[1, 3] = bad
    with pytest.raises(ValueError, match=rf"mask contains {label} at index \(1, 3\)"):
        scaled_dot_product_attention(q, k, v, mask)


def test_sdpa_complex_or_string_mask_refused(qkv):
    q, k, v = qkv
    with pytest.raises(TypeError, match=r"mask has dtype complex128; use a boolean mask"):
        scaled_dot_product_attention(q, k, v, np.zeros((4, 5), dtype=complex))
    with pytest.raises(TypeError, match=r"mask has dtype <U1"):
        scaled_dot_product_attention(q, k, v, [["a"] * 5] * 4)


@pytest.mark.parametrize("shape", [(5, 4), (4, 3), (2, 5, 4), (4, 5, 1), (4, 5, 5)])
def test_sdpa_mask_wrong_shape(qkv, shape):
    q, k, v = qkv
    with pytest.raises(ValueError, match=re.escape(
            f"mask shape {shape} does not broadcast to the scores shape (..., T_q, T_k) = (4, 5)")):
        scaled_dot_product_attention(q, k, v, np.ones(shape, dtype=bool))


def test_sdpa_mask_shape_message_includes_batch_dims():
    q = np.zeros((2, 3, 4))
    with pytest.raises(ValueError, match=re.escape(
            "mask shape (3, 3, 3) does not broadcast to the scores shape (..., T_q, T_k) = (2, 3, 3)")):
        scaled_dot_product_attention(q, q, q, np.ones((3, 3, 3), dtype=bool))


@pytest.mark.parametrize(
    "name, bad, error, pattern",
    [
        ("q", [[0.0, np.nan]], ValueError, r"q contains NaN at index \(0, 1\)"),
        ("k", [[0.0, -np.inf]], ValueError, r"k contains -inf at index \(0, 1\)"),
        ("v", [[np.inf, 0.0]], ValueError, r"v contains \+inf at index \(0, 0\)"),
        ("v", [[1j, 0.0]], TypeError, r"v must hold real numbers.*complex128"),
        ("q", [["a", "b"]], TypeError, r"q must hold real numbers.*<U1"),
    ],
)
def test_sdpa_bad_values(name, bad, error, pattern):
    args = {"q": np.zeros((1, 2)), "k": np.zeros((1, 2)), "v": np.zeros((1, 2))}
    args[name] = bad
    with pytest.raises(error, match=pattern):
        scaled_dot_product_attention(**args)


def test_sdpa_bad_scale_and_overflow(qkv):
    q, k, v = qkv
    with pytest.raises(TypeError, match=r"scale must be a real number; got '2'"):
        scaled_dot_product_attention(q, k, v, scale="2")
    with pytest.raises(ValueError, match=r"scale must be finite; got scale=inf"):
        scaled_dot_product_attention(q, k, v, scale=math.inf)
    with pytest.raises(ValueError, match=r"q and k have d_k=0"):
        scaled_dot_product_attention(np.zeros((2, 0)), np.zeros((2, 0)), np.zeros((2, 3)))
    big = np.full((1, 2), 1e200)
    with pytest.raises(ValueError, match=r"the scores q @ k\^T \* scale overflowed"):
        scaled_dot_product_attention(big, big, big)


# ------------------------------------------------- large scores, every kind of mask, inputs left alone


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sdpa_with_long_vectors_is_shifted_by_the_maximum(dtype):
    """|q| = |k| = 400 along one line, scale 1: scores of +-160000. Without the shift exp would overflow to inf
    (weights NaN) or underflow to 0 (weights all zero)."""
    q = np.array([[400.0, 0.0], [-400.0, 0.0]], dtype=dtype)
    k = np.array([[400.0, 0.0], [399.0, 0.0]], dtype=dtype)
    v = np.array([[1.0], [3.0]], dtype=dtype)
    out, weights = scaled_dot_product_attention(q, k, v, scale=1.0)
    np.testing.assert_allclose(weights, [[1.0, 0.0], [0.0, 1.0]], atol=1e-30)
    np.testing.assert_allclose(out, [[1.0], [3.0]])


def test_sdpa_overflow_in_float32_is_caught():
    big = np.full((2, 3), 1e20, dtype=np.float32)  # q . k = 3e40 > float32's 3.4e38
    with pytest.raises(ValueError, match=r"the scores q @ k\^T \* scale overflowed"):
        scaled_dot_product_attention(big, big, big, scale=1.0)


@pytest.mark.parametrize("mask_kind", ["bool", "float", "bool adds dims", "float64 on float32"])
def test_sdpa_masks_of_every_kind_match_the_loop(mask_kind):
    """Boolean and float masks, one that adds dims and one that widens the dtype (float64 on float32 scores)."""
    rng = np.random.default_rng(5)
    dtype = np.float32 if mask_kind == "float64 on float32" else np.float64
    q, k, v = (rng.normal(size=(6, 4)).astype(dtype) for _ in range(3))
    mask = {"bool": rng.random((6, 6)) > 0.4,
            "float": rng.normal(size=(6, 6)),
            "bool adds dims": rng.random((2, 6, 6)) > 0.4,
            "float64 on float32": rng.normal(size=(6, 6))}[mask_kind]
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    expected_dtype = np.float64 if mask_kind == "float64 on float32" else dtype
    assert out.dtype == weights.dtype == expected_dtype
    for index in np.ndindex(mask.shape[:-2]):
        loop_out, loop_weights = sdpa_loop(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64),
                                           mask[index])
        tol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(out[index], loop_out, rtol=tol, atol=tol)
        np.testing.assert_allclose(weights[index], loop_weights, rtol=tol, atol=tol)


def test_sdpa_does_not_change_its_inputs():
    rng = np.random.default_rng(6)
    q, k, v = rng.normal(size=(3, 2, 5, 4))
    mask = rng.random((5, 5)) > 0.3
    copies = [x.copy() for x in (q, k, v, mask)]
    scaled_dot_product_attention(q, k, v, mask)
    for before, after in zip(copies, (q, k, v, mask)):
        assert np.array_equal(before, after)
