"""Unit tests for course_utils.lessons.influence: contributions, removal_outputs, removal_effects."""
import numpy as np
import pytest

import course_utils as cu
from course_utils.lessons.data import (
    ARTICLE_SCORES,
    ARTICLE_VALUES,
    EXPERIMENT_QUERY,
    EXPERIMENT_READOUT,
    EXPERIMENT_SCORES,
    EXPERIMENT_TOKENS,
    EXPERIMENT_VALUES,
)
from course_utils.lessons.influence import contributions, removal_effects, removal_outputs


def removal_effects_loop(scores, values):
    """By hand: delete key j from the row, softmax what is left, compare outputs."""
    scores, values = np.asarray(scores, float), np.asarray(values, float)
    full = cu.softmax(scores) @ values
    effects = []
    for j in range(len(scores)):
        keep = np.arange(len(scores)) != j
        if np.isneginf(scores[keep]).all():
            without = np.zeros(values.shape[1])  # nothing left: a zero output
        else:
            without = cu.softmax(scores[keep]) @ values[keep]
        effects.append(np.linalg.norm(full - without))
    return np.array(effects)


# ---------------------------------------------------------------- contributions
def test_contributions_rows_sum_to_the_output():
    weights = cu.softmax(ARTICLE_SCORES)
    c = contributions(weights, ARTICLE_VALUES)
    assert c.shape == (3, 2)
    np.testing.assert_allclose(c.sum(axis=0), weights @ ARTICLE_VALUES)
    np.testing.assert_allclose(c[1], weights[1] * ARTICLE_VALUES[1])
    np.testing.assert_allclose(np.linalg.norm(c, axis=1), weights * np.linalg.norm(ARTICLE_VALUES, axis=1))


def test_contributions_square_case_uses_the_key_axis():
    c = contributions([0.75, 0.25], [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(c, [[0.75, 1.5], [0.75, 1.0]])


@pytest.mark.parametrize(
    "weights, values, match",
    [
        ([[0.5, 0.5]], [[1.0], [2.0]], r"weights must be 1-D .* got shape \(1, 2\)"),
        ([0.5, 0.5], [1.0, 2.0], r"values must be 2-D .* got shape \(2,\)"),
        ([0.5, 0.5], [[1.0], [2.0], [3.0]], r"weights has T=2 keys but values has T=3 rows"),
        ([0.5, np.nan], [[1.0], [2.0]], r"weights contains NaN"),
    ],
)
def test_contributions_errors_name_shapes(weights, values, match):
    with pytest.raises(ValueError, match=match):
        contributions(weights, values)


def test_contributions_refuses_complex():
    with pytest.raises(TypeError, match="real numbers"):
        contributions([1j], [[1.0]])


# ---------------------------------------------------------------- removal outputs and effects
def test_removal_outputs_renormalise_over_the_remaining_keys():
    without = removal_outputs(ARTICLE_SCORES, ARTICLE_VALUES)
    assert without.shape == (3, 2)
    # removing key 0 leaves scores [1, 0]: weights softmax([1, 0]) over keys 1 and 2
    w = cu.softmax(np.array([1.0, 0.0]))
    np.testing.assert_allclose(without[0], w @ ARTICLE_VALUES[1:])
    # the same as masking the score before the reference attention
    masked = np.where(np.arange(3) == 2, -np.inf, ARTICLE_SCORES)
    np.testing.assert_allclose(without[2], cu.attention_row(masked, ARTICLE_VALUES)[0])


@pytest.mark.parametrize(
    "scores, values",
    [
        (ARTICLE_SCORES, ARTICLE_VALUES),
        (EXPERIMENT_SCORES, EXPERIMENT_VALUES),
        ([1.0, -np.inf, 0.5, 0.0], [[1.0, 0.0], [5.0, 5.0], [0.0, 1.0], [-1.0, -1.0]]),
        ([500.0, 499.0, 490.0], np.eye(3)),
    ],
)
def test_removal_effects_match_a_loop(scores, values):
    np.testing.assert_allclose(removal_effects(scores, values), removal_effects_loop(scores, values))


def test_removal_effects_random_rows_match_the_formula():
    rng = np.random.default_rng(0)
    for _ in range(20):
        T, d_v = rng.integers(2, 7), rng.integers(1, 5)
        scores, values = rng.normal(size=T) * 2, rng.normal(size=(T, d_v))
        w = cu.softmax(scores)
        out = w @ values
        formula = w / (1 - w) * np.linalg.norm(values - out, axis=1)
        np.testing.assert_allclose(removal_effects(scores, values), formula, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(removal_effects(scores, values), removal_effects_loop(scores, values))


def test_a_single_key_leaves_a_zero_output():
    np.testing.assert_array_equal(removal_outputs([0.3], [[1.0, 2.0]]), [[0.0, 0.0]])
    np.testing.assert_allclose(removal_effects([0.3], [[1.0, 2.0]]), [np.sqrt(5.0)])


def test_an_already_masked_key_has_no_effect():
    effects = removal_effects([1.0, -np.inf, 0.5], [[1.0, 0.0], [9.0, 9.0], [0.0, 1.0]])
    assert effects[1] == 0.0
    assert np.isfinite(effects).all()


def test_no_warnings_for_rows_with_nothing_left(recwarn):
    removal_effects([-np.inf, 0.0], [[1.0], [2.0]])
    removal_effects([0.0], [[1.0]])
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize(
    "scores, values, error, match",
    [
        ([[1.0, 2.0]], [[1.0], [2.0]], ValueError, r"scores must be 1-D .* got shape \(1, 2\)"),
        ([1.0, 2.0], [1.0, 2.0], ValueError, r"values must be 2-D"),
        ([1.0, 2.0, 3.0], [[1.0], [2.0]], ValueError, r"scores has T=3 keys but values has T=2 rows"),
        ([np.inf, 1.0], [[1.0], [2.0]], ValueError, r"scores contains \+inf"),
        ([1.0, 2.0], [[1.0], [np.nan]], ValueError, r"values contains NaN"),
        (["a", "b"], [[1.0], [2.0]], TypeError, r"scores must hold real numbers"),
    ],
)
def test_removal_effects_errors(scores, values, error, match):
    with pytest.raises(error, match=match):
        removal_effects(scores, values)
    with pytest.raises(error, match=match):
        removal_outputs(scores, values)


# ---------------------------------------------------------------- the experiment of notebook 05
def test_experiment_row_tells_the_story_of_notebook_05():
    weights = cu.softmax(EXPERIMENT_SCORES)
    effects = removal_effects(EXPERIMENT_SCORES, EXPERIMENT_VALUES)
    lengths = np.linalg.norm(EXPERIMENT_VALUES, axis=1)
    charger, please = EXPERIMENT_TOKENS.index("charger"), EXPERIMENT_TOKENS.index("please")
    assert int(np.argmax(weights)) == charger and int(np.argmin(weights)) == please
    assert lengths[charger] == pytest.approx(0.5) and lengths[please] == pytest.approx(5.0)
    assert int(np.argmax(effects)) == please
    assert effects[please] > 2.5 * effects[charger]
    assert EXPERIMENT_QUERY in EXPERIMENT_TOKENS
    assert EXPERIMENT_READOUT @ EXPERIMENT_VALUES[please] == pytest.approx(0.0)
    assert np.linalg.norm(EXPERIMENT_READOUT) == pytest.approx(1.0)
