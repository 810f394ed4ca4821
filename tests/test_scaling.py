"""course_utils.lessons.scaling: the sqrt(d_k) experiments of notebook 02."""
import numpy as np
import pytest

from course_utils.lessons.scaling import (
    DEFAULT_MAX_D_K,
    dot_product_std,
    entropy,
    query_and_keys,
    row_weights,
    saturation_stats,
)
from course_utils.softmax import softmax


# ---------------------------------------------------------------- dot_product_std
def test_std_grows_like_sqrt_dk():
    d_ks = [1, 4, 16, 64, 256]
    std = dot_product_std(d_ks, n_pairs=20_000)
    assert std.shape == (5,)
    np.testing.assert_allclose(std / np.sqrt(d_ks), 1.0, atol=0.03)


def test_std_is_seeded_and_independent_of_the_list():
    a = dot_product_std([4, 64], seed=3)
    b = dot_product_std([64], seed=3)
    assert a[1] == b[0]
    np.testing.assert_array_equal(dot_product_std([4, 64], seed=3), a)
    assert dot_product_std([64], seed=4)[0] != b[0]


def test_std_chunks_give_the_same_numbers_as_one_draw(monkeypatch):
    import course_utils.lessons.scaling as scaling

    whole = dot_product_std([512], n_pairs=3000)
    monkeypatch.setattr(scaling, "_CHUNK_ELEMENTS", 1 << 16)  # many chunks
    chunked = scaling.dot_product_std([512], n_pairs=3000)
    # Chunking changes how the stream is cut, not its statistics: both near sqrt(512).
    np.testing.assert_allclose([whole[0], chunked[0]], np.sqrt(512), rtol=0.05)


def test_std_accepts_one_int_and_numpy_ints():
    assert dot_product_std(16).shape == (1,)
    assert dot_product_std(np.array([2, 8])).shape == (2,)


@pytest.mark.parametrize(
    "args, error, match",
    [
        (([],), ValueError, "empty"),
        (([0],), ValueError, "d_k must be a positive int"),
        (([2.5],), TypeError, "d_k must be a positive int"),
        (([4], 0), ValueError, "n_pairs"),
        (([4], 10, -1), ValueError, "seed"),
        (([4], 10, 1.5), TypeError, "seed"),
    ],
)
def test_std_refuses_bad_input(args, error, match):
    with pytest.raises(error, match=match):
        dot_product_std(*args)


# ---------------------------------------------------------------- entropy
def test_entropy_of_even_and_one_hot_rows():
    assert float(entropy([1.0, 0.0, 0.0])) == 0.0
    assert float(entropy(np.full(8, 1 / 8))) == pytest.approx(np.log(8))
    np.testing.assert_allclose(entropy([[0.5, 0.5], [1.0, 0.0]]), [np.log(2), 0.0])
    np.testing.assert_allclose(entropy([[0.5, 1.0], [0.5, 0.0]], axis=0), [np.log(2), 0.0])


def test_entropy_is_between_zero_and_log_t():
    rng = np.random.default_rng(0)
    w = softmax(rng.normal(scale=3.0, size=(500, 6)))
    h = entropy(w)
    assert h.shape == (500,)
    assert (h >= 0).all() and (h <= np.log(6) + 1e-12).all()


def test_entropy_refuses_negative_or_nan_weights():
    with pytest.raises(ValueError, match=r"non-negative.*weights\[1\] = -0.5"):
        entropy([1.5, -0.5])
    with pytest.raises(ValueError, match="NaN"):
        entropy([np.nan, 1.0])


# ---------------------------------------------------------------- query_and_keys, row_weights
def test_query_and_keys_shapes_and_prefix_property():
    q4, k4 = query_and_keys(4, num_keys=5, seed=1)
    q64, k64 = query_and_keys(64, num_keys=5, seed=1)
    assert q4.shape == (4,) and k4.shape == (5, 4) and k64.shape == (5, 64)
    np.testing.assert_array_equal(q64[:4], q4)  # more d_k = more coordinates of the same vectors
    np.testing.assert_array_equal(k64[:, :4], k4)
    q4[0] = 99.0  # a copy: the next call is unaffected
    assert query_and_keys(4, num_keys=5, seed=1)[0][0] != 99.0


def test_query_and_keys_refuses_too_wide():
    with pytest.raises(ValueError, match=f"d_k=2048 is larger than max_d_k={DEFAULT_MAX_D_K}"):
        query_and_keys(2048)


def test_row_weights_scaled_and_unscaled():
    q, k = np.array([1.0, 2.0, 0.0, -1.0]), np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 1.0, 1.0]])
    w, s = row_weights(q, k)
    np.testing.assert_allclose(s, [0.5, 0.5])  # k @ q / sqrt(4)
    np.testing.assert_allclose(w, [0.5, 0.5])
    w, s = row_weights(q, k * 2, scaled=False)
    np.testing.assert_allclose(s, [2.0, 2.0])
    w, s = row_weights(np.array([3.0]), np.array([[1.0], [0.0]]), scaled=False)
    np.testing.assert_allclose(w, softmax(np.array([3.0, 0.0])))


def test_row_weights_refuses_mismatched_widths():
    with pytest.raises(ValueError, match=r"k has d_k=3 but q has d_k=2"):
        row_weights(np.ones(2), np.ones((4, 3)))
    with pytest.raises(ValueError, match=r"q must be 1-D"):
        row_weights(np.ones((1, 2)), np.ones((4, 2)))


def test_unscaled_row_saturates_scaled_row_does_not():
    q, k = query_and_keys(1024, num_keys=8, seed=0)
    unscaled, _ = row_weights(q, k, scaled=False)
    scaled, _ = row_weights(q, k, scaled=True)
    assert unscaled.max() > 0.99 and float(entropy(unscaled)) < 0.05
    assert scaled.max() < 0.8 and float(entropy(scaled)) > 0.8


# ---------------------------------------------------------------- saturation_stats
def test_saturation_stats_trends():
    stats = saturation_stats([4, 64, 1024], num_keys=8, n_rows=1000)
    assert list(stats["d_k"]) == [4, 64, 1024]
    assert np.all(np.diff(stats["max_weight_unscaled"]) > 0)  # ever more peaked
    assert np.all(np.diff(stats["entropy_unscaled"]) < 0)
    assert stats["max_weight_unscaled"][-1] > 0.95 and stats["entropy_unscaled"][-1] < 0.15
    # scaled: the same spread whatever d_k
    np.testing.assert_allclose(stats["score_std_scaled"], 1.0, atol=0.05)
    np.testing.assert_allclose(stats["entropy_scaled"], stats["entropy_scaled"][0], atol=0.05)
    np.testing.assert_allclose(stats["score_std_unscaled"], np.sqrt([4, 64, 1024]), rtol=0.05)
    assert (stats["entropy_scaled"] <= np.log(8)).all()


def test_saturation_stats_is_seeded():
    a, b = saturation_stats([16], n_rows=200, seed=5), saturation_stats([16], n_rows=200, seed=5)
    assert all(np.array_equal(a[key], b[key]) for key in a)
