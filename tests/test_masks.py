"""Unit tests for course_utils.masks: causal_mask and padding_mask."""
import numpy as np
import pytest

from course_utils.masks import causal_mask, padding_mask


def test_causal_mask_values():
    expected = np.array([[True, False, False], [True, True, False], [True, True, True]])
    mask = causal_mask(3)
    assert mask.dtype == bool and mask.shape == (3, 3)
    np.testing.assert_array_equal(mask, expected)


def test_causal_mask_one_and_numpy_int():
    np.testing.assert_array_equal(causal_mask(1), [[True]])
    mask = causal_mask(np.int64(6))
    assert mask.shape == (6, 6)
    for i in range(6):
        for j in range(6):
            assert mask[i, j] == (j <= i)  # query i sees keys 0..i


@pytest.mark.parametrize(
    "T, error, pattern",
    [
        (0, ValueError, r"T must be a positive int; got T=0"),
        (-2, ValueError, r"T must be a positive int; got T=-2"),
        (3.0, TypeError, r"T must be a positive int; got 3.0 of type float"),
        (True, TypeError, r"T must be a positive int; got True of type bool"),
        ("4", TypeError, r"T must be a positive int; got '4' of type str"),
    ],
)
def test_causal_mask_bad_T(T, error, pattern):
    with pytest.raises(error, match=pattern):
        causal_mask(T)


def test_padding_mask_values():
    mask = padding_mask([2, 0, 4], 4)
    assert mask.dtype == bool and mask.shape == (3, 4)
    np.testing.assert_array_equal(mask, [
        [True, True, False, False],
        [False, False, False, False],
        [True, True, True, True],
    ])


def test_padding_mask_accepts_numpy_ints_and_tuples():
    expected = [[True, False, False], [True, True, True]]
    np.testing.assert_array_equal(padding_mask(np.array([1, 3], dtype=np.uint8), 3), expected)
    np.testing.assert_array_equal(padding_mask((1, 3), np.int32(3)), expected)
    np.testing.assert_array_equal(padding_mask(np.array([1, 3], dtype=object), 3), expected)


def test_padding_mask_no_sequences():
    mask = padding_mask([], 5)
    assert mask.shape == (0, 5) and mask.dtype == bool


def test_padding_mask_key_broadcast_shape():
    mask = padding_mask([1, 2], 3)[:, None, :]
    assert mask.shape == (2, 1, 3)
    scores_shaped = np.broadcast_to(mask, (2, 3, 3))  # every query row shares its sequence's key mask
    np.testing.assert_array_equal(scores_shaped[1], [[True, True, False]] * 3)


@pytest.mark.parametrize(
    "lengths, T, error, pattern",
    [
        ([2, 5, 1], 4, ValueError, r"lengths\[1\] = 5 is outside \[0, T=4\]"),
        ([2, 1, -1], 4, ValueError, r"lengths\[2\] = -1 is outside \[0, T=4\]"),
        (np.array([2, 9]), 4, ValueError, r"lengths\[1\] = 9 is outside \[0, T=4\]"),
        ([[1, 2]], 4, ValueError, r"lengths must be a 1-D sequence of ints .*got shape \(1, 2\)"),
        (3, 4, ValueError, r"lengths must be a 1-D sequence of ints .*got shape \(\)"),
        ([1.0, 2.0], 4, TypeError, r"lengths must hold ints; got dtype float64"),
        ([True, False], 4, TypeError, r"lengths\[0\] = True is a bool, not a length"),
        ([1, "2"], 4, TypeError, r"lengths must hold ints; got dtype <U21"),
        (np.array([1, 2.5], dtype=object), 4, TypeError, r"lengths\[1\] = 2.5 is not an int \(type float\)"),
        ([1, 2], 0, ValueError, r"T must be a positive int; got T=0"),
        ([1, 2], 2.0, TypeError, r"T must be a positive int; got 2.0"),
    ],
)
def test_padding_mask_errors(lengths, T, error, pattern):
    with pytest.raises(error, match=pattern):
        padding_mask(lengths, T)
