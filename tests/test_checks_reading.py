"""Notebook 05 checkers against the reference, the stub, and the wrong answers learners write.

Each mutant is a function a learner plausibly writes. The test asserts the checker calls it
wrong, at the expected (first failing) case, with the hint for that mistake (None: a generic hint).
"""
from functools import partial

import checker_helpers  # tests/checker_helpers.py: the shared assertions
import numpy as np
import pytest
from checker_helpers import stub

import course_utils as cu
from course_utils.checks import (
    CAPSTONE_MISTAKES,
    CONTRIBUTIONS_MISTAKES,
    DIAGNOSES,
    PLOT_MYSTERIES,
    REMOVAL_EFFECTS_MISTAKES,
    check_capstone_layer,
    check_contributions,
    check_plot_diagnoses,
    check_removal_effects,
)
from course_utils.checks._catalogue import CATALOGUE
from course_utils.checks.reading import _VERDICTS
from course_utils.lessons.influence import contributions as reference_contributions
from course_utils.lessons.influence import removal_effects as reference_removal_effects

# these checkers may read a mistake from several cases, so `passed` is not asserted
assert_wrong = partial(checker_helpers.assert_wrong, check_passed=False)
check_mutant = partial(checker_helpers.check_mutant, check_passed=False)


# ============================================================================ contributions
def contributions_loop(weights, values):
    out = np.zeros_like(values, dtype=float)
    for j in range(len(weights)):
        out[j] = weights[j] * values[j]
    return out


def contributions_einsum(weights, values):
    return np.einsum("t,td->td", weights, values)


def contributions_diag(weights, values):
    return np.diag(weights) @ values


def contributions_reshape(weights, values):
    return weights.reshape(-1, 1) * values


@pytest.mark.parametrize(
    "fn", [reference_contributions, contributions_loop, contributions_einsum, contributions_diag, contributions_reshape]
)
def test_contributions_correct(fn):
    result = check_contributions(fn)
    assert result.status == "correct", result.text
    assert result.message == "Correct: all 4 cases passed."


def test_contributions_stub_not_attempted():
    result = check_contributions(stub)
    assert result.status == "not attempted"
    assert "contributions function still raises NotImplementedError" in result.message


def contributions_output(weights, values):
    return weights @ values


def contributions_summed_rows(weights, values):
    return (weights[:, None] * values).sum(axis=0)


def contributions_lengths(weights, values):
    return np.linalg.norm(weights[:, None] * values, axis=1)


def contributions_weight_times_length(weights, values):
    return weights * np.linalg.norm(values, axis=1)


def contributions_plain_product(weights, values):
    return weights * values


def contributions_transposed(weights, values):
    return (weights[:, None] * values).T


def contributions_matmul(weights, values):
    return weights[:, None] @ values


def contributions_no_return(weights, values):
    weights[:, None] * values


def contributions_in_place(weights, values):
    values *= weights[:, None]
    return values


def contributions_per_key_sums(weights, values):
    return (weights[:, None] * values).sum(axis=1)  # sums each contribution: one number per key


CONTRIBUTION_MUTANTS = [
    (contributions_output, 1, "summed too early", "already added up"),
    (contributions_per_key_sums, 1, "summed each contribution", "coordinates added up"),
    (contributions_summed_rows, 1, "summed too early", "already added up"),
    (contributions_lengths, 1, "norms instead of vectors", "one number per key"),
    (contributions_weight_times_length, 1, "norms instead of vectors", "one number per key"),
    (contributions_plain_product, 2, "weights along the wrong axis", "*columns*"),
    (contributions_transposed, 1, "transposed", "(d_v, T)"),
    (contributions_matmul, 2, "matrix product", "elementwise"),
    (contributions_no_return, 1, None, "`return"),
    (contributions_in_place, 2, None, "caller's array"),
]


@pytest.mark.parametrize("mutant, case_number, mistake, hint_word", CONTRIBUTION_MUTANTS,
                         ids=[m[0].__name__ for m in CONTRIBUTION_MUTANTS])
def test_contributions_mutant(mutant, case_number, mistake, hint_word):
    check_mutant(check_contributions, CONTRIBUTIONS_MISTAKES, mutant, case_number, mistake, hint_word)


def test_every_contributions_mistake_has_a_mutant():
    assert {m.name for m in CONTRIBUTIONS_MISTAKES} == {m for _, _, m, _ in CONTRIBUTION_MUTANTS} - {None}


def test_contributions_broadcast_error_is_recognised():
    """weights * values on notebook 01's row, (3,) * (3, 2), fails to broadcast: same hint."""
    from course_utils.checks.reading import _CONTRIBUTION_CASES

    result = check_contributions(lambda w, v: w * v if w.shape[0] != 2 else w[:, None] * v)
    assert_wrong(result, 3, "*columns*")
    assert "could not be broadcast" in result.message
    assert len(_CONTRIBUTION_CASES) == 4


# ============================================================================ removal effects
def removal_loop(scores, values):
    full = cu.softmax(scores) @ values
    effects = np.zeros(len(scores))
    for j in range(len(scores)):
        masked = scores.copy()
        masked[j] = -np.inf
        effects[j] = np.linalg.norm(full - cu.softmax(masked) @ values)
    return effects


def removal_delete(scores, values):
    full, _ = cu.attention_row(scores, values)
    effects = []
    for j in range(len(scores)):
        without, _ = cu.attention_row(np.delete(scores, j), np.delete(values, j, axis=0))
        effects.append(np.linalg.norm(full - without))
    return np.array(effects)


def removal_explicit_empty_rows(scores, values):
    """Own softmax, with an explicit rule for a row with nothing left."""
    def softmax(s):
        if np.isneginf(s).all():
            return np.zeros_like(s)
        e = np.exp(s - s.max())
        return e / e.sum()

    full = softmax(scores) @ values
    return np.array([
        np.linalg.norm(full - softmax(np.where(np.arange(len(scores)) == j, -np.inf, scores)) @ values)
        for j in range(len(scores))
    ])


@pytest.mark.parametrize("fn", [reference_removal_effects, removal_loop, removal_delete, removal_explicit_empty_rows])
def test_removal_correct(fn):
    result = check_removal_effects(fn)
    assert result.status == "correct", result.text
    assert result.message == "Correct: all 6 cases passed."


def test_removal_stub_not_attempted():
    result = check_removal_effects(stub)
    assert result.status == "not attempted"


def removal_subtract_share(scores, values):
    weights = cu.softmax(scores)
    full = weights @ values
    return np.array([np.linalg.norm(full - (full - weights[j] * values[j])) for j in range(len(scores))])


def removal_zero_the_weight(scores, values):
    weights = cu.softmax(scores)
    full = weights @ values
    effects = []
    for j in range(len(scores)):
        zeroed = weights.copy()
        zeroed[j] = 0.0
        effects.append(np.linalg.norm(full - zeroed @ values))
    return np.array(effects)


def removal_weights(scores, values):
    return cu.softmax(scores)


def _outputs(scores, values, fill=-np.inf, softmax=cu.softmax):
    full = softmax(scores) @ values
    without = np.array([softmax(np.where(np.arange(len(scores)) == j, fill, scores)) @ values
                        for j in range(len(scores))])
    return full, without


def removal_signed_vectors(scores, values):
    full, without = _outputs(scores, values)
    return without - full


def removal_signed_sum(scores, values):
    full, without = _outputs(scores, values)
    return (full - without).sum(axis=1)


def removal_norm_difference(scores, values):
    full, without = _outputs(scores, values)
    return np.linalg.norm(full) - np.linalg.norm(without, axis=1)


def removal_squared(scores, values):
    full, without = _outputs(scores, values)
    return ((full - without) ** 2).sum(axis=1)


def removal_l1(scores, values):
    full, without = _outputs(scores, values)
    return np.abs(full - without).sum(axis=1)


def removal_big_negative(scores, values):
    full, without = _outputs(scores, values, fill=-1e9)
    return np.linalg.norm(full - without, axis=1)


def removal_score_zero(scores, values):
    full, without = _outputs(scores, values, fill=0.0)
    return np.linalg.norm(full - without, axis=1)


def _plain_softmax(s):
    e = np.exp(s - np.max(s))
    return e / e.sum()


def removal_plain_softmax(scores, values):
    full, without = _outputs(scores, values, softmax=_plain_softmax)
    return np.linalg.norm(full - without, axis=1)


def removal_no_shift_but_empty_rows_handled(scores, values):
    def softmax(s):
        if np.isneginf(s).all():
            return np.zeros_like(s)
        e = np.exp(s)
        return e / e.sum()

    full, without = _outputs(scores, values, softmax=softmax)
    return np.linalg.norm(full - without, axis=1)


def removal_one_key_only(scores, values):
    full, without = _outputs(scores, values)
    return np.linalg.norm(full - without[0])  # a single number


REMOVAL_MUTANTS = [
    (removal_subtract_share, 1, "not renormalised", "renormalised"),
    (removal_zero_the_weight, 1, "not renormalised", "zeroing a *weight*"),
    (removal_weights, 1, "weight as effect", "returned the weights"),
    (removal_signed_vectors, 1, "signed difference", "non-negative"),
    (removal_signed_sum, 1, "signed difference", "non-negative"),
    (removal_norm_difference, 1, "difference of norms", "length of the difference"),
    (removal_squared, 1, "squared norm", "*squared*"),
    (removal_l1, 1, "other norm", "Euclidean"),
    (removal_big_negative, 3, "large negative number in an empty row", "-1e9"),
    (removal_score_zero, 1, "score set to 0", "exp(0) = 1"),
    (removal_plain_softmax, 3, "nan in an empty row", "nan"),
    (removal_no_shift_but_empty_rows_handled, 6, "no max shift", "overflows"),
    (removal_one_key_only, 1, None, "one effect per key"),
]


@pytest.mark.parametrize("mutant, case_number, mistake, hint_word", REMOVAL_MUTANTS,
                         ids=[m[0].__name__ for m in REMOVAL_MUTANTS])
def test_removal_mutant(mutant, case_number, mistake, hint_word):
    check_mutant(check_removal_effects, REMOVAL_EFFECTS_MISTAKES, mutant, case_number, mistake, hint_word)


def test_every_removal_mistake_has_a_mutant():
    assert {m.name for m in REMOVAL_EFFECTS_MISTAKES} == {m for _, _, m, _ in REMOVAL_MUTANTS} - {None}


def test_removal_nan_is_reported_without_a_warning_leaking(recwarn):
    result = check_removal_effects(removal_plain_softmax)
    assert "nan" in result.message
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


# ============================================================================ capstone
def capstone_solution(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    """The notebook's solution."""
    B, T, d_model = x.shape
    d_head = d_model // num_heads
    positions = np.arange(T)
    causal = positions[None, :] <= positions[:, None]
    real_keys = positions[None, :] < lengths[:, None]
    mask = causal[None, :, :] & real_keys[:, None, :]
    q = cu.split_heads(x @ w_q, num_heads)
    k = cu.split_heads(x @ w_k, num_heads)
    v = cu.split_heads(x @ w_v, num_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)
    scores = np.where(mask[:, None, :, :], scores, -np.inf)
    has_key = mask[:, None, :, :].any(axis=-1, keepdims=True)
    weights = np.where(has_key, cu.softmax(scores), 0.0)
    return cu.merge_heads(weights @ v) @ w_o, weights


def capstone_with_references(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    T = x.shape[1]
    mask = cu.causal_mask(T) & cu.padding_mask(lengths, T)[:, None, :]
    return cu.multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, mask)


def capstone_head_loop(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    """Slices the columns of each head and uses cu.scaled_dot_product_attention."""
    B, T, d_model = x.shape
    d_head = d_model // num_heads
    mask = np.tril(np.ones((T, T), dtype=bool))[None] & (np.arange(T)[None, :] < lengths[:, None])[:, None, :]
    outs, ws = [], []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        o, w = cu.scaled_dot_product_attention(x @ w_q[:, cols], x @ w_k[:, cols], x @ w_v[:, cols], mask)
        outs.append(o)
        ws.append(w)
    return np.concatenate(outs, axis=-1) @ w_o, np.stack(ws, axis=1)


def test_capstone_correct():
    result = check_capstone_layer(capstone_solution)
    assert result.status == "correct", result.text
    assert result.message == "Correct: all 6 cases passed."


@pytest.mark.parametrize("fn, called", [
    (capstone_with_references, "`cu.causal_mask`, `cu.padding_mask` and `cu.multi_head_attention`"),
    (capstone_head_loop, "`cu.scaled_dot_product_attention`"),
])
def test_capstone_that_calls_the_answer_is_told_kindly(fn, called):
    """The exercise asks for the masks and the attention written by the learner; right numbers from
    the course's own functions are not called correct, and the learner is told why, kindly."""
    result = check_capstone_layer(fn)
    assert result.status == "wrong", result.text
    assert f"gives the right numbers on all 6 cases, but it calls {called}" in result.message
    assert result.hint.startswith("Well done")


def test_capstone_stub_not_attempted():
    result = check_capstone_layer(stub)
    assert result.status == "not attempted"
    assert "capstone_layer function still raises NotImplementedError" in result.message


def make_layer(mask_fn, *, softmax=None, fill=-np.inf, project=True, scale_with_model=False, split=True,
               head_axis=True):
    """A learner's layer: the solution's code with one part changed."""
    def layer(x, lengths, w_q, w_k, w_v, w_o, num_heads):
        B, T, d_model = x.shape
        h = num_heads if split else 1
        d_head = d_model // h
        positions = np.arange(T)
        causal = positions[None, :] <= positions[:, None]  # (T, T)
        real = positions[None, :] < lengths[:, None]  # (B, T)
        mask = mask_fn(causal, real)  # (B, T, T)
        q, k, v = (cu.split_heads(x @ w, h) for w in (w_q, w_k, w_v))
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_model if scale_with_model else d_head)
        scores = np.where(mask[:, None] if head_axis else mask, scores, fill)
        weights = (softmax or cu.softmax)(scores)
        merged = cu.merge_heads(weights @ v)
        output = merged @ w_o if project else merged
        return output, (weights if split else weights[:, 0])

    return layer


def plain_softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def right(causal, real):
    return causal[None] & real[:, None, :]


capstone_causal_only = make_layer(lambda c, r: np.broadcast_to(c, (len(r),) + c.shape))
capstone_padding_only = make_layer(lambda c, r: np.broadcast_to(r[:, None, :], (len(r),) + c.shape))
capstone_padding_on_queries = make_layer(lambda c, r: c[None] & r[:, :, None])
capstone_or = make_layer(lambda c, r: c[None] | r[:, None, :])
capstone_inverted = make_layer(lambda c, r: ~(c[None] & r[:, None, :]))
capstone_no_w_o = make_layer(right, project=False)
capstone_nan_rows = make_layer(right, softmax=plain_softmax)
capstone_big_negative = make_layer(right, fill=-1e9)
capstone_no_head_axis = make_layer(right, head_axis=False)
capstone_scale_d_model = make_layer(right, scale_with_model=True)
capstone_one_head = make_layer(right, split=False)
for _name, _fn in list(globals().items()):
    if _name.startswith("capstone_") and callable(_fn) and _fn.__name__ == "layer":
        _fn.__name__ = _name


def capstone_swapped(*args):
    output, weights = capstone_solution(*args)
    return weights, output


def capstone_triu_causal(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    T = x.shape[1]
    mask = np.triu(np.ones((T, T), dtype=bool)) & cu.padding_mask(lengths, T)[:, None, :]
    return cu.multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, mask)


def capstone_weights_averaged(*args):
    output, weights = capstone_solution(*args)
    return output, weights.mean(axis=1)


def capstone_causal_sees_next(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    B, T, d_model = x.shape
    causal = np.tril(np.ones((T, T), dtype=bool), k=1)  # off by one: each token sees the next one
    mask = (causal[None] & (np.arange(T)[None, :] < lengths[:, None])[:, None, :])[:, None]  # (B, 1, T, T)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    weights = cu.softmax(np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf))
    return cu.merge_heads(weights @ v) @ w_o, weights



def capstone_masked_after_softmax(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    T = x.shape[1]
    mask = (cu.causal_mask(T)[None] & cu.padding_mask(lengths, T)[:, None, :])[:, None]  # (B, 1, T, T)
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    weights = np.where(mask, cu.softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])), 0.0)
    return cu.merge_heads(weights @ v) @ w_o, weights


def capstone_split_without_swap(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    """Heads made by one reshape to (B, h, T, d_head), and merged back the same way: no swap of T and h."""
    B, T, d_model = x.shape
    d_head = d_model // num_heads
    q, k, v = ((x @ w).reshape(B, num_heads, T, d_head) for w in (w_q, w_k, w_v))
    mask = (cu.causal_mask(T)[None] & cu.padding_mask(lengths, T)[:, None, :])[:, None]  # (B, 1, T, T)
    weights = cu.softmax(np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head), -np.inf))
    return (weights @ v).reshape(B, T, d_model) @ w_o, weights


def capstone_softmax_over_queries(x, lengths, w_q, w_k, w_v, w_o, num_heads):
    """The softmax taken over axis -2 (the queries) instead of the keys."""
    T, d_head = x.shape[1], x.shape[2] // num_heads
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    mask = (cu.causal_mask(T)[None] & cu.padding_mask(lengths, T)[:, None, :])[:, None]  # (B, 1, T, T)
    weights = cu.softmax(np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head), -np.inf), axis=-2)
    return cu.merge_heads(weights @ v) @ w_o, weights


CAPSTONE_MUTANTS = [
    (capstone_causal_sees_next, 1, "sees the next token", "sees the next one"),
    (capstone_causal_only, 1, "causal only", "padding mask is missing"),
    (capstone_padding_only, 1, "padding only", "causal mask is missing"),
    (capstone_padding_on_queries, 1, "padding on the queries", "*queries*"),
    (capstone_or, 1, "combined with or", "`|`"),
    (capstone_inverted, 1, "inverted mask", "inverted"),
    (capstone_no_w_o, 1, "no output projection", "output projection"),
    (capstone_nan_rows, 3, "nan in an empty row", "nan"),
    (capstone_big_negative, 3, "large negative number in an empty row", "-1e9"),
    (capstone_no_head_axis, 2, "mask without a head axis", "head axis"),
    (capstone_scale_d_model, 2, "sqrt of d_model", "width of the embeddings"),
    (capstone_masked_after_softmax, 1, "mask after the softmax", "before the softmax"),
    (capstone_one_head, 1, "one head", "Split the projections"),
    (capstone_weights_averaged, 1, "weights averaged over heads", "not their average"),
    (capstone_swapped, 1, "swapped outputs", "output first"),
    (capstone_softmax_over_queries, 1, "softmax over the wrong axis", "`axis=-1`"),
    (capstone_triu_causal, 1, "future instead of past", "np.triu"),
    # not known mistakes, found by a new learner: the generic hint names where to look (not only the masks)
    (capstone_split_without_swap, 2, None, "swap the T and h axes"),

]


@pytest.mark.parametrize("mutant, case_number, mistake, hint_word", CAPSTONE_MUTANTS,
                         ids=[m[0].__name__ for m in CAPSTONE_MUTANTS])
def test_capstone_mutant(mutant, case_number, mistake, hint_word):
    check_mutant(check_capstone_layer, CAPSTONE_MISTAKES, mutant, case_number, mistake, hint_word)


def test_every_capstone_mistake_has_a_mutant():
    """The catalogue's mistakes have theirs in tests/test_mistake_matrix.py."""
    assert {m.name for m in CAPSTONE_MISTAKES} - set(CATALOGUE) <= {m for _, _, m, _ in CAPSTONE_MUTANTS}


def test_capstone_broadcast_error_without_head_axis_is_recognised():
    """With B != num_heads the (B, T, T) mask does not broadcast: the error gives the same hint."""
    def layer(x, lengths, *rest):
        if x.shape[0] == rest[-1]:  # behave correctly while B == num_heads
            return capstone_solution(x, lengths, *rest)
        return capstone_no_head_axis(x, lengths, *rest)

    result = check_capstone_layer(layer)
    assert_wrong(result, 4, "head axis")
    assert "could not be broadcast" in result.message


def test_capstone_cases_include_rows_with_no_permitted_key():
    from course_utils.checks.reading import _CAPSTONE_CASES, _reference_capstone

    empty_cases = 0
    for case in _CAPSTONE_CASES:
        x, lengths, *_ = case.args
        output, weights = _reference_capstone(*case.args)
        assert np.isfinite(output).all() and np.isfinite(weights).all()
        if (lengths == 0).any():
            empty_cases += 1
            np.testing.assert_array_equal(output[lengths == 0], 0.0)
            np.testing.assert_array_equal(weights[lengths == 0], 0.0)
    assert empty_cases >= 2


# ============================================================================ plot diagnoses
ANSWERS = {label: verdict.diagnosis for label, verdict in _VERDICTS.items()}  # the checker's answer key


def test_the_notebook_namespace_carries_no_answers():
    """PLOT_MYSTERIES is imported into notebook 05: it holds the pictures, not their diagnoses."""
    for m in PLOT_MYSTERIES:
        assert set(vars(m)) == {"label", "tokens", "weights", "intended"}
    assert all(v.diagnosis not in repr(m) for m, v in zip(PLOT_MYSTERIES, _VERDICTS.values()))


def test_mysteries_cover_every_diagnosis():
    assert sorted(ANSWERS.values()) == sorted(DIAGNOSES)
    assert [m.label for m in PLOT_MYSTERIES] == ["P", "Q", "R", "S", "T", "U"]
    for m in PLOT_MYSTERIES:
        assert m.weights.shape == (len(m.tokens), len(m.tokens))
        assert np.isfinite(m.weights).all()


def test_mysteries_show_what_they_claim():
    by_label = {m.label: m for m in PLOT_MYSTERIES}
    P, Q, R, S, T, U = (by_label[k] for k in "PQRSTU")
    real = lambda m: np.array([t != "<pad>" for t in m.tokens])  # noqa: E731
    assert np.triu(P.weights, 1)[real(P)].sum() > 0.5  # weight above the diagonal
    assert np.triu(S.weights, 1).sum() == 0 and S.weights[real(S)][:, ~real(S)].sum() == 0
    assert R.weights[real(R)][:, ~real(R)].sum(axis=-1).min() > 0.2  # every real row leaks onto <pad>
    assert Q.weights.max(axis=-1).min() > 0.98
    np.testing.assert_array_equal(T.weights, np.eye(len(T.tokens)))
    n = real(U).sum()
    for i in range(n):
        np.testing.assert_allclose(U.weights[i, : i + 1], 1 / (i + 1))


def test_diagnoses_correct_and_forgiving_about_spelling():
    assert check_plot_diagnoses(lambda: ANSWERS).status == "correct"
    relaxed = {k.lower(): v.upper().replace(" ", "-") for k, v in ANSWERS.items()}
    result = check_plot_diagnoses(lambda: relaxed)
    assert result.status == "correct", result.text
    assert result.message.startswith("Correct: all 6 plots right.")
    assert "P is off by one" in result.message


def test_diagnoses_stub_not_attempted():
    assert check_plot_diagnoses(stub).status == "not attempted"


def test_diagnoses_wrong_answers_get_where_to_look():
    answers = dict(ANSWERS, S="uniform rows", T="one-hot rows")
    result = check_plot_diagnoses(lambda: answers)
    assert result.status == "wrong"
    assert result.message.startswith("Not yet right: 4 of 6 plots right.")
    assert "S:        you said 'uniform rows': not yet right" in result.message
    assert result.hint.startswith("S: In S, check the three bugs")
    assert "T: In T, where does each row put its weight?" in result.hint
    assert "P is off by one" not in result.text  # explanations only once everything is right


@pytest.mark.parametrize(
    "answer, words",
    [
        (["P", "Q"], "should return a dict"),
        ({k: v for k, v in ANSWERS.items() if k != "U"}, "missing plot(s) ['U']"),
        (dict(ANSWERS, Z="diagonal"), "unknown label(s) ['Z']"),
        (dict(ANSWERS, P="masked wrongly"), "not one of the diagnoses"),
        (dict(ANSWERS, P=3), "not one of the diagnoses"),
    ],
)
def test_diagnoses_malformed_answers(answer, words):
    result = check_plot_diagnoses(lambda: answer)
    assert result.status == "wrong"
    assert words in result.message, result.text
    assert "Traceback" not in result.text


def test_diagnoses_error_and_not_callable():
    def broken():
        return {"P": undefined_name}  # noqa: F821

    result = check_plot_diagnoses(broken)
    assert result.status == "wrong" and "NameError" in result.message
    result = check_plot_diagnoses(ANSWERS)
    assert result.status == "wrong" and "needs your function itself" in result.message
