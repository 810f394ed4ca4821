"""Unit tests for course_utils.softmax.softmax (hand-checked numbers and every bad input)."""
import math
import warnings

import numpy as np
import pytest

from course_utils.softmax import softmax


def softmax_by_hand(row):
    """The article's standard-library softmax of one row, for comparison."""
    shift = max(row)
    unnormalised = [math.exp(s - shift) for s in row]
    return [u / sum(unnormalised) for u in unnormalised]


def test_article_example_rounds_to_published_weights():
    weights = softmax([2.0, 1.0, 0.0])
    assert np.round(weights, 3).tolist() == [0.665, 0.245, 0.09]
    np.testing.assert_allclose(weights, softmax_by_hand([2.0, 1.0, 0.0]), rtol=1e-15)


def test_exact_value_two_entries():
    # softmax([0, log 3]) = [1/4, 3/4]
    np.testing.assert_allclose(softmax([0.0, math.log(3.0)]), [0.25, 0.75], rtol=1e-14)


def test_uniform_row():
    np.testing.assert_allclose(softmax([5.0, 5.0, 5.0, 5.0]), [0.25] * 4, rtol=1e-15)


def test_shift_by_max_leaves_probabilities_unchanged():
    np.testing.assert_allclose(softmax([1000.0, 999.0, 998.0]), softmax([2.0, 1.0, 0.0]), rtol=1e-14)


def test_huge_finite_scores_stay_finite():
    out = softmax([1e300, 0.0, -1e300])
    assert np.isfinite(out).all()
    np.testing.assert_array_equal(out, [1.0, 0.0, 0.0])
    np.testing.assert_allclose(softmax([1e300, 1e300]), [0.5, 0.5])


def test_extreme_range_no_runtime_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any RuntimeWarning would fail the test
        with np.errstate(all="raise"):  # ... and so would any floating-point error numpy flags
            out = softmax([1e308, -1e308])
            empty_row = softmax([-np.inf, -np.inf])
            tiny = softmax([0.0, -1e5])  # exp underflows to 0
    np.testing.assert_array_equal(out, [1.0, 0.0])
    np.testing.assert_array_equal(empty_row, [0.0, 0.0])
    np.testing.assert_array_equal(tiny, [1.0, 0.0])


def test_all_neg_inf_row_gives_zeros_not_nan():
    out = softmax(np.full((2, 3), -np.inf))
    np.testing.assert_array_equal(out, np.zeros((2, 3)))


def test_neg_inf_entries_get_zero_weight_and_others_renormalise():
    out = softmax([2.0, -np.inf, 0.0, -np.inf])
    kept = softmax_by_hand([2.0, 0.0])  # the two permitted entries, renormalised
    np.testing.assert_allclose(out, [kept[0], 0.0, kept[1], 0.0], rtol=1e-15)
    assert out[1] == 0.0 and out[3] == 0.0


def test_mixed_rows_2d():
    x = np.array([[2.0, 1.0, 0.0], [-np.inf, -np.inf, -np.inf], [0.0, -np.inf, 0.0]])
    out = softmax(x)
    np.testing.assert_allclose(out[0], softmax_by_hand([2.0, 1.0, 0.0]), rtol=1e-15)
    np.testing.assert_array_equal(out[1], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(out[2], [0.5, 0.0, 0.5])


def test_axis_argument():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4, 5))
    np.testing.assert_allclose(softmax(x, axis=0), np.moveaxis(softmax(np.moveaxis(x, 0, -1)), -1, 0))
    np.testing.assert_allclose(softmax(x, axis=1).sum(axis=1), np.ones((3, 5)))
    np.testing.assert_allclose(softmax(x, axis=-2), softmax(x, axis=1))


def test_dtypes():
    assert softmax(np.array([1.0, 2.0], dtype=np.float32)).dtype == np.float32
    half = softmax(np.array([[1.0, 2.0], [-np.inf, -np.inf]], dtype=np.float16))  # added up in float32 (test_bad_inputs)
    assert half.dtype == np.float16 and np.array_equal(half[1], [0.0, 0.0])
    np.testing.assert_allclose(half[0], softmax([1.0, 2.0]), atol=1e-3)
    ints = softmax([2, 1, 0])
    assert ints.dtype == np.float64
    np.testing.assert_allclose(ints, softmax([2.0, 1.0, 0.0]))
    np.testing.assert_allclose(softmax([True, False]), softmax([1.0, 0.0]))


def test_input_not_modified_and_shape_kept():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    before = x.copy()
    out = softmax(x)
    np.testing.assert_array_equal(x, before)
    assert out.shape == x.shape


def test_empty_axis_and_empty_batch():
    assert softmax(np.zeros((2, 0))).shape == (2, 0)
    assert softmax(np.zeros((0, 3))).shape == (0, 3)


@pytest.mark.parametrize(
    "x, error, pattern",
    [
        ([1.0, np.nan, 2.0], ValueError, r"x contains NaN at index \(1,\)"),
        ([[0.0, 1.0], [np.inf, 0.0]], ValueError, r"x contains \+inf at index \(1, 0\)"),
        ([1 + 2j, 0.0], TypeError, r"x must hold real numbers.*complex128"),
        (["a", "b"], TypeError, r"x must hold real numbers.*got dtype <U1"),
        (np.array([1.0, None], dtype=object), TypeError, r"x\[1\] = None is not a real number"),
        ([[1.0, 2.0], [3.0]], ValueError, r"x could not be converted to a numeric array"),
        (3.0, ValueError, r"axis=-1 is out of range for x with 0 dimension\(s\) \(shape \(\)\)"),
    ],
)
def test_bad_x(x, error, pattern):
    with pytest.raises(error, match=pattern):
        softmax(x)


def test_bad_axis():
    with pytest.raises(ValueError, match=r"axis=2 is out of range for x with 2 dimension\(s\) \(shape \(2, 3\)\)"):
        softmax(np.zeros((2, 3)), axis=2)
    with pytest.raises(TypeError, match=r"axis must be an int; got 1.0"):
        softmax(np.zeros((2, 3)), axis=1.0)
    with pytest.raises(TypeError, match=r"axis must be an int; got \(0, 1\)"):
        softmax(np.zeros((2, 3)), axis=(0, 1))
