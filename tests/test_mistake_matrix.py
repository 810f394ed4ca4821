"""One standard per mistake (issue 24): the matrix of the course-wide catalogue of mistakes x the exercises.

The catalogue (course_utils/content/mistakes.toml) gives each mistake the steps it belongs to and each exercise the
steps its reference performs. A cell is a (mistake, exercise) pair whose exercise performs the mistake's steps; in
every cell, the exercise's own answer written with that one step wrong (a mutant, built here from learner-style code
independent of the checkers' buggy versions) must be rejected and named with the catalogue's id and hint. A cell
whose checker does not name the mistake, or for which no mutant can be built, fails: an empty cell.
"""
from types import SimpleNamespace

import numpy as np
import pytest

from course_utils import content
from course_utils.checks import CHECKERS

CATALOGUE = content.mistakes()
STEPS = content.exercise_steps()


# ---------------------------------------------------------------------------- the steps, right and wrong
def softmax(s, axis=-1):
    """The right softmax, as the notebooks teach it: the max shift, and zeros for a row with no permitted key."""
    s = np.asarray(s, dtype=float)
    m = np.max(s, axis=axis, keepdims=True)
    e = np.exp(s - np.where(np.isfinite(m), m, 0.0))
    total = e.sum(axis=axis, keepdims=True)
    return np.where(total > 0, e / np.where(total > 0, total, 1.0), 0.0)


def masked_softmax(S, scores, mask):
    return S.softmax(np.where(mask, scores, S.fill))


def zero_after(S, scores, mask):
    return np.where(mask, S.softmax(scores), 0.0)


def zero_then_renormalise(S, scores, mask):
    kept = np.where(mask, S.softmax(scores), 0.0)
    return kept / kept.sum(axis=-1, keepdims=True)


def exp_over_sum(s, axis=-1):
    e = np.exp(s)
    return e / e.sum(axis=axis, keepdims=True)


def shifted_only(s, axis=-1):
    e = np.exp(s - np.max(s, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def whole_array(s, axis=-1):
    e = np.exp(s - np.max(s))
    return e / e.sum()


def split(x, h):
    *lead, T, d_model = x.shape
    return np.swapaxes(x.reshape(*lead, T, h, d_model // h), -3, -2)


def merge(x):
    *lead, h, T, d = x.shape
    return np.swapaxes(x, -3, -2).reshape(*lead, T, h * d)


RIGHT = dict(
    project=lambda x, w_q, w_k, w_v: (x @ w_q, x @ w_k, x @ w_v),
    causal=lambda T: np.tril(np.ones((T, T), dtype=bool)),
    softmax=softmax,
    scale=lambda q, k, x: np.sqrt(q.shape[-1]),
    scores=lambda q, k: q @ np.swapaxes(k, -1, -2),
    fill=-np.inf,
    attend=masked_softmax,
    split=split,
    merge=merge,
    out=lambda merged, w_o: merged @ w_o,
    result=lambda output, weights: (output, weights),
)

#: The one step each catalogue mistake writes wrong.
MUTANTS = {
    "swapped W_K and W_V": dict(project=lambda x, w_q, w_k, w_v: (x @ w_q, x @ w_v, x @ w_k)),
    "sees the next token": dict(causal=lambda T: np.tril(np.ones((T, T), dtype=bool), k=1)),
    "cannot see itself": dict(causal=lambda T: np.tril(np.ones((T, T), dtype=bool), k=-1)),
    "future instead of past": dict(causal=lambda T: np.triu(np.ones((T, T), dtype=bool))),
    "each token sees only itself": dict(causal=lambda T: np.eye(T, dtype=bool)),
    "no max shift": dict(softmax=exp_over_sum),
    "softmax over the wrong axis": dict(softmax=lambda s, axis=-1: softmax(s, axis=0)),
    "softmax over the whole array": dict(softmax=whole_array),
    "no softmax": dict(softmax=lambda s, axis=-1: s),
    "weights averaged over heads": dict(result=lambda output, weights: (output, weights.mean(axis=-3))),
    "no scale": dict(scale=lambda q, k, x: 1.0),
    "divide by d_k": dict(scale=lambda q, k, x: q.shape[-1]),
    "sqrt of the number of keys": dict(scale=lambda q, k, x: np.sqrt(k.shape[-2])),
    "sqrt of d_model": dict(scale=lambda q, k, x: np.sqrt(x.shape[-1])),
    "mask after the softmax": dict(attend=zero_after),
    "zero then renormalise": dict(attend=zero_then_renormalise),
    "mask ignored": dict(attend=lambda S, scores, mask: S.softmax(scores)),
    "inverted mask": dict(attend=lambda S, scores, mask: S.softmax(np.where(~mask, scores, S.fill))),
    "mask multiplied into the scores": dict(attend=lambda S, scores, mask: S.softmax(scores * mask)),
    "boolean mask added to the scores": dict(attend=lambda S, scores, mask: S.softmax(scores + mask)),
    "large negative number in an empty row": dict(fill=-1e9),
    "nan in an empty row": dict(softmax=shifted_only),
    "k.T on a batch": dict(scores=lambda q, k: q @ k.T),
    "k not transposed": dict(scores=lambda q, k: q @ k),
    "split without the transpose": dict(
        split=lambda x, h: x.reshape(*x.shape[:-2], h, x.shape[-2], x.shape[-1] // h)),
    "interleaved columns": dict(
        split=lambda x, h: np.moveaxis(x.reshape(*x.shape[:-1], x.shape[-1] // h, h), -1, -3)),
    "transpose for a fixed number of axes": dict(  # each written for 3-D arrays only
        split=lambda x, h: x.reshape(*x.shape[:-1], h, x.shape[-1] // h).transpose(1, 0, 2),
        merge=lambda x: x.transpose(1, 0, 2).reshape(*x.shape[:-3], x.shape[-2], -1),
        scores=lambda q, k: q @ k.transpose(0, 2, 1)),
    "merge without the transpose": dict(merge=lambda x: x.reshape(*x.shape[:-3], x.shape[-2], -1)),
    "heads interleaved": dict(merge=lambda x: np.moveaxis(x, -3, -1).reshape(*x.shape[:-3], x.shape[-2], -1)),
    "no output projection": dict(out=lambda merged, w_o: merged),
    "swapped outputs": dict(result=lambda output, weights: (weights, output)),
}


# ---------------------------------------------------------------------------- each exercise, from its steps
def _attention(S, q, k, v, mask, x=None):
    scores = S.scores(q, k) / S.scale(q, k, x)
    weights = S.softmax(scores) if mask is None else S.attend(S, scores, mask)
    return weights @ v, weights


def _multi_head(S, x, w_q, w_k, w_v, w_o, num_heads, mask):
    q, k, v = (S.split(a, num_heads) for a in S.project(x, w_q, w_k, w_v))
    heads, weights = _attention(S, q, k, v, mask, x)
    return S.result(S.out(S.merge(heads), w_o), weights)


def _removal_effects(S, scores, values):
    output = S.softmax(scores) @ values
    effects = []
    for j in range(len(scores)):
        without = scores.copy()
        without[j] = S.fill
        effects.append(np.linalg.norm(output - S.softmax(without) @ values))
    return np.array(effects)


def _capstone(S, x, lengths, w_q, w_k, w_v, w_o, num_heads):
    T = x.shape[1]
    causal = S.causal(T)
    real = np.arange(T)[None, :] < lengths[:, None]
    return _multi_head(S, x, w_q, w_k, w_v, w_o, num_heads, (causal[None] & real[:, None, :])[:, None])


#: exercise -> (steps -> the learner's function).
EXERCISES = {
    "causal_mask": lambda S: S.causal,
    "softmax": lambda S: lambda x: S.softmax(np.asarray(x, dtype=float)),
    "attention_row": lambda S: lambda scores, values: S.result(S.softmax(scores) @ values, S.softmax(scores)),
    "scaled_scores": lambda S: lambda q, k: S.scores(q, k) / S.scale(q, k, None),
    "project": lambda S: S.project,
    "self_attention": lambda S: lambda x, w_q, w_k, w_v: S.result(*_attention(S, *S.project(x, w_q, w_k, w_v), None, x)),
    "masked_attention": lambda S: lambda q, k, v, mask: S.result(*_attention(S, q, k, v, np.asarray(mask))),
    "split_heads": lambda S: S.split,
    "merge_heads": lambda S: S.merge,
    "multi_head_attention": lambda S: lambda x, w_q, w_k, w_v, w_o, num_heads, mask=None: _multi_head(
        S, x, w_q, w_k, w_v, w_o, num_heads, None if mask is None else np.asarray(mask)[..., None, :, :]),
    "removal_effects": lambda S: lambda scores, values: _removal_effects(S, np.asarray(scores, dtype=float), values),
    "capstone_layer": lambda S: lambda *args: _capstone(S, *args),
}


def answer(exercise, mistake=None):
    """The learner-style answer to ``exercise``, with the step of ``mistake`` written wrong (None: right)."""
    return EXERCISES[exercise](SimpleNamespace(**{**RIGHT, **MUTANTS.get(mistake, {})}))


def matrix():
    """{(mistake id, exercise)}: every cell of the matrix, the exercise performing every step of the mistake."""
    return [(m.id, exercise) for m in CATALOGUE.values() for exercise in CHECKERS
            if set(m.steps) <= set(STEPS.get(exercise, ()))]


CELLS = matrix()


# ---------------------------------------------------------------------------- the tests
def test_the_catalogue_and_its_steps_name_real_exercises():
    assert set(STEPS) <= set(CHECKERS), sorted(set(STEPS) - set(CHECKERS))
    assert all(any(m == mistake for m, _ in CELLS) for mistake in CATALOGUE), "a mistake no exercise can show"


@pytest.mark.parametrize("exercise", sorted(STEPS))
def test_the_right_answer_built_from_the_steps_is_correct(exercise):
    """The mutants differ from a correct answer by one step only."""
    result = CHECKERS[exercise].function(answer(exercise))
    assert result.status == "correct", result.text


@pytest.mark.parametrize("mistake, exercise", CELLS, ids=[f"{m} x {e}" for m, e in CELLS])
def test_every_cell_rejects_and_names_the_mistake(mistake, exercise):
    entry = CHECKERS[exercise]
    assert mistake in {m.name for m in entry.mistakes}, f"empty cell: check_{exercise} does not name {mistake!r}"
    assert mistake in MUTANTS and exercise in EXERCISES, f"empty cell: no mutant for {mistake!r} in {exercise}"
    result = entry.function(answer(exercise, mistake))
    assert result.status == "wrong", f"{mistake!r} accepted by check_{exercise}:\n{result.text}"
    assert result.mistake == mistake, f"check_{exercise}:\n{result.text}"
    assert result.hint.startswith(CATALOGUE[mistake].hint)


@pytest.mark.parametrize("exercise", sorted(CHECKERS))
def test_a_catalogue_id_is_named_only_with_its_hint_and_where_its_steps_are_performed(exercise):
    for mistake in CHECKERS[exercise].mistakes:
        if mistake.name in CATALOGUE:
            assert mistake.hint == CATALOGUE[mistake.name].hint, f"{exercise}: {mistake.name!r} has its own hint"
            assert (mistake.name, exercise) in CELLS, f"{exercise} names {mistake.name!r} but performs no step of it"


# ---------------------------------------------------------------------------- hint misses found by learner trials
def _check(exercise, fn):
    return CHECKERS[exercise].function(fn)


def test_01_raw_scores_over_pythons_sum_is_no_exp():
    result = _check("softmax", lambda x: x / sum(x))  # Python's sum: over the rows of a 2-D x
    assert result.mistake == "no exp", result.text


def test_02_sqrt_of_the_number_of_keys_is_described_by_its_result():
    result = _check("scaled_scores", lambda q, k: q @ k.T / np.sqrt(len(k)))
    assert result.mistake == "sqrt of the number of keys" and "number of keys" in result.hint
    assert "len(q)" not in result.hint and "q.size" not in result.hint


def test_02_sqrt_of_d_model_in_self_attention_is_named():
    def self_attention(x, w_q, w_k, w_v):
        q, k, v = x @ w_q, x @ w_k, x @ w_v
        weights = softmax(q @ k.T / np.sqrt(x.shape[1]))
        return weights @ v, weights

    assert _check("self_attention", self_attention).mistake == "sqrt of d_model"


def test_02_axis_0_and_whole_matrix_softmax_get_separate_hints():
    def with_softmax(sm):
        def self_attention(x, w_q, w_k, w_v):
            q, k, v = x @ w_q, x @ w_k, x @ w_v
            weights = sm(q @ k.T / np.sqrt(q.shape[-1]))
            return weights @ v, weights

        return self_attention

    axis_0 = _check("self_attention", with_softmax(lambda s: softmax(s, axis=0)))
    whole = _check("self_attention", with_softmax(whole_array))
    assert (axis_0.mistake, whole.mistake) == ("softmax over the wrong axis", "softmax over the whole array")
    assert "whole array" not in axis_0.hint and "column" not in whole.hint


def test_02_w_q_for_q_and_k_is_told_what_was_done():
    result = _check("project", lambda x, w_q, w_k, w_v: (x @ w_q, x @ w_q, x @ w_v))
    assert result.mistake == "k from w_q" and "all three" not in result.hint and "k is computed with w_q" in result.hint


def test_03_a_3d_only_transpose_of_the_keys_is_named():
    def masked_attention(q, k, v, mask):
        weights = softmax(np.where(mask, q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1]), -np.inf))
        return weights @ v, weights

    assert _check("masked_attention", masked_attention).mistake == "transpose for a fixed number of axes"


def test_03_and_05_a_causal_mask_from_np_eye_is_named():
    eye = "each token sees only itself"
    assert _check("causal_mask", lambda T: np.eye(T, dtype=bool)).mistake == eye
    assert _check("capstone_layer", answer("capstone_layer", eye)).mistake == eye


def test_04_a_4d_only_transpose_is_named():
    def split_heads(x, num_heads):
        *lead, T, d_model = x.shape
        return x.reshape(*lead, T, num_heads, d_model // num_heads).transpose(0, 2, 1, 3)

    result = _check("split_heads", split_heads)
    assert result.mistake == "transpose for a fixed number of axes", result.text
    assert ".transpose(0, 2, 1, 3)" in result.hint


#: Names two checkers use for mistakes of different steps, each with its own hint (not yet one standard each).
DIFFERENT_MISTAKES_ONE_NAME = {
    "missing keepdims": "01's softmax (max and sum) and 06's softmax backward (the weighted sum)",
    "elementwise product": "02's projections (x * w) and scaled scores (q * k)",
    "product refuses the shapes": "02's and 04's catch-alls for a matrix product's shape error, each naming its products",
    "inverted": "03's causal mask and padding mask, each showing how to build its own",
    "transposed": "03's padding mask (T, B) and 05's contributions (d_v, T)",
    "only for one sequence": "04's split_heads and merge_heads, each naming the shapes of its own input",
    "returns grad_weights": "06's softmax_backward (returned unchanged) and grad_scores (grad_output @ v.T)",
}


def test_one_name_one_hint():
    """A name that several checkers use is a catalogue mistake, or has one hint, or is a listed exception."""
    hints = {}
    for entry in CHECKERS.values():
        for mistake in entry.mistakes:
            hints.setdefault(mistake.name, set()).add(mistake.hint if isinstance(mistake.hint, str) else entry.name)
    divergent = {name for name, texts in hints.items() if len(texts) > 1}
    assert divergent == set(DIFFERENT_MISTAKES_ONE_NAME), sorted(divergent ^ set(DIFFERENT_MISTAKES_ONE_NAME))
