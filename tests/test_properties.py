"""Property tests (hypothesis) for softmax, scaled_dot_product_attention and multi_head_attention.

Deterministic: every test runs with derandomize=True (the same examples on every run) and
without the example database, so nothing is written to the repository.
"""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from course_utils.attention import scaled_dot_product_attention
from course_utils.multihead import multi_head_attention
from course_utils.softmax import softmax

N_SOFTMAX = 150  # max_examples for the cheap softmax properties
N_ATTENTION = 100  # max_examples for the attention properties

softmax_settings = settings(max_examples=N_SOFTMAX, derandomize=True, database=None, deadline=None)
attention_settings = settings(max_examples=N_ATTENTION, derandomize=True, database=None, deadline=None)

FINITE = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)
MODERATE = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
shapes_2d = hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=6)


def finite_arrays(shape, elements=MODERATE):
    return hnp.arrays(np.float64, shape, elements=elements)


@st.composite
def qkv_and_mask(draw, elements=MODERATE):
    """q (T_q, d_k), k (T_k, d_k), v (T_k, d_v) and a boolean mask (T_q, T_k) of any pattern."""
    t_q, t_k = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    d_k, d_v = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    q = draw(finite_arrays((t_q, d_k), elements))
    k = draw(finite_arrays((t_k, d_k), elements))
    v = draw(finite_arrays((t_k, d_v), elements))
    mask = draw(hnp.arrays(bool, (t_q, t_k)))
    return q, k, v, mask


@st.composite
def sequence_and_permutation(draw):
    """x (T, d), a permutation of range(T), and a boolean mask (T, T)."""
    T, d = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    x = draw(finite_arrays((T, d)))
    perm = np.array(draw(st.permutations(range(T))))
    mask = draw(hnp.arrays(bool, (T, T)))
    return x, perm, mask


def mha_weights(seed, d_model):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(4)]


# ---------------------------------------------------------------- softmax

@softmax_settings
@given(finite_arrays(shapes_2d, FINITE))
def test_softmax_rows_sum_to_one_for_any_finite_input(x):
    out = softmax(x)
    assert np.isfinite(out).all() and (out >= 0).all()
    np.testing.assert_allclose(out.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


@softmax_settings
@given(finite_arrays(shapes_2d, st.one_of(FINITE, st.just(-np.inf))))
def test_softmax_with_neg_inf_nonempty_rows_sum_to_one_empty_rows_zero(x):
    out = softmax(x)
    assert np.isfinite(out).all()
    assert (out[np.isneginf(x)] == 0).all()
    empty = np.isneginf(x).all(axis=-1)
    np.testing.assert_array_equal(out[empty], 0.0)
    np.testing.assert_allclose(out[~empty].sum(axis=-1), 1.0, rtol=0, atol=1e-12)


@softmax_settings
@given(
    finite_arrays(shapes_2d, st.floats(-1e3, 1e3)),
    st.floats(-1e3, 1e3),
)
def test_softmax_adding_a_constant_to_a_row_changes_nothing(x, c):
    np.testing.assert_allclose(softmax(x + c), softmax(x), rtol=0, atol=1e-9)


# ---------------------------------------------------------------- scaled_dot_product_attention

@attention_settings
@given(sequence_and_permutation(), st.booleans())
def test_self_attention_permuting_the_sequence_permutes_the_output(data, masked):
    x, perm, mask = data
    mask = mask if masked else None
    out, weights = scaled_dot_product_attention(x, x, x, mask)
    perm_mask = mask[perm][:, perm] if masked else None  # the same pairs, relabelled
    out_p, weights_p = scaled_dot_product_attention(x[perm], x[perm], x[perm], perm_mask)
    np.testing.assert_allclose(out_p, out[perm], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(weights_p, weights[perm][:, perm], rtol=1e-9, atol=1e-12)


@attention_settings
@given(qkv_and_mask(), st.data())
def test_values_and_keys_at_masked_keys_have_no_influence(qkv, data):
    q, k, v, mask = qkv
    t_k = k.shape[0]
    key_kept = data.draw(hnp.arrays(bool, (t_k,)), label="key_kept")  # padding-style key mask
    full_mask = mask & key_kept[None, :]  # (T_q, T_k)
    out, weights = scaled_dot_product_attention(q, k, v, full_mask)
    k2, v2 = k.copy(), v.copy()
    hidden = ~key_kept
    k2[hidden] = data.draw(finite_arrays((int(hidden.sum()), k.shape[1])), label="new keys")
    v2[hidden] = data.draw(finite_arrays((int(hidden.sum()), v.shape[1])), label="new values")
    out2, weights2 = scaled_dot_product_attention(q, k2, v2, full_mask)
    np.testing.assert_allclose(out2, out, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(weights2, weights, rtol=1e-12, atol=1e-12)


@attention_settings
@given(qkv_and_mask(st.floats(-1e100, 1e100)), st.booleans())
def test_attention_finite_for_finite_inputs_even_with_empty_rows(qkv, as_float):
    q, k, v, mask = qkv
    m = np.where(mask, 0.0, -np.inf) if as_float else mask
    out, weights = scaled_dot_product_attention(q, k, v, m)
    assert np.isfinite(out).all() and np.isfinite(weights).all()
    empty = ~mask.any(axis=-1)
    np.testing.assert_array_equal(weights[empty], 0.0)
    np.testing.assert_array_equal(out[empty], 0.0)
    np.testing.assert_allclose(weights[~empty].sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    assert (weights[~mask] == 0).all()


@attention_settings
@given(qkv_and_mask())
def test_boolean_mask_and_equivalent_float_mask_agree(qkv):
    q, k, v, mask = qkv
    float_mask = np.where(mask, 0.0, -np.inf)  # True -> add 0, False -> add -inf
    out_b, weights_b = scaled_dot_product_attention(q, k, v, mask)
    out_f, weights_f = scaled_dot_product_attention(q, k, v, float_mask)
    np.testing.assert_allclose(out_f, out_b, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(weights_f, weights_b, rtol=1e-14, atol=1e-14)


# ---------------------------------------------------------------- multi_head_attention

@st.composite
def mha_inputs(draw):
    """x (T, d_model), num_heads dividing d_model, a weight seed and a boolean mask (T, T)."""
    num_heads, d_head = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    T = draw(st.integers(1, 5))
    x = draw(finite_arrays((T, num_heads * d_head)))
    seed = draw(st.integers(0, 2**32 - 1))
    mask = draw(hnp.arrays(bool, (T, T)))
    return x, num_heads, seed, mask


@attention_settings
@given(mha_inputs(), st.data())
def test_multi_head_permuting_the_sequence_permutes_the_output(inputs, data):
    x, num_heads, seed, mask = inputs
    ws = mha_weights(seed, x.shape[1])
    perm = np.array(data.draw(st.permutations(range(x.shape[0])), label="perm"))
    out, weights = multi_head_attention(x, *ws, num_heads, mask=mask)
    out_p, weights_p = multi_head_attention(x[perm], *ws, num_heads, mask=mask[perm][:, perm])
    np.testing.assert_allclose(out_p, out[perm], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(weights_p, weights[:, perm][:, :, perm], rtol=1e-9, atol=1e-12)


@attention_settings
@given(mha_inputs())
def test_multi_head_finite_and_rows_normalised_with_any_mask(inputs):
    x, num_heads, seed, mask = inputs
    out, weights = multi_head_attention(x, *mha_weights(seed, x.shape[1]), num_heads, mask=mask)
    assert np.isfinite(out).all() and np.isfinite(weights).all()
    empty = ~mask.any(axis=-1)  # (T,): query rows with no permitted key
    np.testing.assert_array_equal(out[empty], 0.0)
    np.testing.assert_allclose(weights[:, ~empty].sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(weights[:, empty], 0.0)
