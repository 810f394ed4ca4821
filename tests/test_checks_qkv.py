"""Notebook 02 checkers against the reference, the stub, and the wrong answers learners write.

Each mutant below is a function a learner plausibly writes. The test asserts the checker calls
it wrong, at the expected (first failing) case, with the hint for that mistake.
"""
from functools import partial

import checker_helpers  # tests/checker_helpers.py: the shared assertions
import numpy as np
import pytest
from checker_helpers import stub

from course_utils.checks import (
    NOT_A_USUAL_MISTAKE,
    PROJECT_MISTAKES,
    SCALED_SCORES_MISTAKES,
    SELF_ATTENTION_MISTAKES,
    SHAPE_NAMES,
    check_project,
    check_scaled_scores,
    check_self_attention,
    check_shapes,
)
from course_utils.softmax import softmax

assert_wrong_with_hint = checker_helpers.assert_wrong
check_mutant = partial(checker_helpers.check_mutant, exact_hint=True)


# ============================================================================ shapes
def shapes_solution(T, d_model, d_k, d_v):
    return {
        "X": (T, d_model), "W_Q": (d_model, d_k), "W_K": (d_model, d_k), "W_V": (d_model, d_v),
        "Q": (T, d_k), "K": (T, d_k), "V": (T, d_v),
        "scores": (T, T), "weights": (T, T), "output": (T, d_v),
    }


def shapes_filled_in(T, d_model, d_k, d_v):
    """The notebook's layout: X given, the rest added to the dict; lists and numpy ints allowed."""
    shapes = {"X": (T, d_model)}
    shapes["W_Q"] = shapes["W_K"] = [d_model, d_k]
    shapes["W_V"] = (np.int64(d_model), np.int64(d_v))
    shapes["Q"] = shapes["K"] = (T, d_k)
    shapes["V"] = np.array([T, d_v])
    shapes["scores"] = shapes["weights"] = (T, T)
    shapes["output"] = (T, d_v)
    return shapes


@pytest.mark.parametrize("fn", [shapes_solution, shapes_filled_in])
def test_shapes_correct(fn):
    result = check_shapes(fn)
    assert result.status == "correct", result.text
    assert result.message == "Correct: all 3 cases passed. Every entry of the table is right."


def test_shapes_stub_not_attempted():
    result = check_shapes(stub)
    assert result.status == "not attempted"
    assert "shapes function still raises NotImplementedError" in result.message


def _with(**changes):
    def shapes(T, d_model, d_k, d_v):
        table = shapes_solution(T, d_model, d_k, d_v)
        sizes = {"T": T, "d_model": d_model, "d_k": d_k, "d_v": d_v}
        for key, dims in changes.items():
            table[key] = tuple(sizes[d] for d in dims)
        return table

    shapes.__name__ = "shapes_" + "_".join(f"{k}_as_{'x'.join(v)}" for k, v in changes.items())
    return shapes


def shapes_missing_entries(T, d_model, d_k, d_v):
    table = shapes_solution(T, d_model, d_k, d_v)
    del table["scores"], table["weights"]
    return table


def shapes_forgot_return(T, d_model, d_k, d_v):
    shapes_solution(T, d_model, d_k, d_v)


def shapes_strings(T, d_model, d_k, d_v):
    table = shapes_solution(T, d_model, d_k, d_v)
    table["scores"] = "T x T"
    return table


def shapes_typo(T, d_model, d_k, d_v):
    table = shapes_solution(T, d_model, d_k, d_v)
    return table["Scores"]


SHAPES_MUTANTS = [
    # (learner function, first failing case, entry reported, a distinctive word of the hint)
    (_with(scores=("T", "d_k")), 1, "scores", "not T x d_k"),
    (_with(weights=("T", "d_k")), 1, "weights", "softmax does not change the shape"),
    (_with(output=("T", "d_k")), 1, "output", "You wrote (T, d_k)."),
    (_with(output=("T", "T")), 1, "output", "mixes value"),
    (_with(W_Q=("d_k", "d_model")), 1, "W_Q", "nn.Linear"),
    (_with(W_K=("d_k", "d_model")), 1, "W_K", "nn.Linear"),
    (_with(W_V=("d_model", "d_k")), 1, "W_V", "not d_k"),
    (_with(V=("T", "d_k")), 1, "V", "(T, d_v)"),
    (_with(Q=("T", "d_model")), 1, "Q", "(T, d_k)"),
    (_with(K=("d_k", "T")), 1, "K", "(T, d_k)"),
    (_with(X=("d_model", "T")), 1, "X", "one embedding per token"),
    (_with(output=("T", "d_k"), V=("T", "d_k"), W_V=("d_model", "d_k")), 1, "W_V", "not d_k"),
    (shapes_missing_entries, 1, None, '"scores"'),
    (shapes_forgot_return, 1, None, "return shapes"),
    (shapes_strings, 1, "scores", "tuple of sizes"),
    (shapes_typo, 1, None, "Read the last line of the error"),
]


@pytest.mark.parametrize("mutant, case_number, entry, hint_word", SHAPES_MUTANTS,
                         ids=[m[0].__name__ for m in SHAPES_MUTANTS])
def test_shapes_mutant(mutant, case_number, entry, hint_word):
    result = check_shapes(mutant)
    assert_wrong_with_hint(result, case_number, hint_word)
    if entry is not None:
        assert f"entry:    {entry!r}" in result.message, result.text


def test_shapes_dk_equal_dv_mixup_is_caught_in_the_first_case():
    """Case 3 has d_k == d_v (one head of the base Transformer); case 1 tells them apart."""
    result = check_shapes(_with(output=("T", "d_k")))
    assert "fails case 1 of 3 (T=5, d_model=4, d_k=3, d_v=2)" in result.message
    assert "expected: (5, 2)" in result.message and "got:      (5, 3)" in result.message


def test_shapes_reports_the_other_wrong_entries():
    result = check_shapes(_with(output=("T", "d_k"), V=("T", "d_k"), W_V=("d_model", "d_k")))
    assert "also:     wrong: 'V', 'output'" in result.message


def test_shapes_second_case_headline():
    def only_first_case(T, d_model, d_k, d_v):
        return shapes_solution(5, 4, 3, 2)

    result = check_shapes(only_first_case)
    assert result.message.startswith("Not yet right: shapes fails case 2 of 3 (T=2, d_model=6, d_k=8, d_v=3); case 1 passed.")


def test_shape_names_are_the_table():
    assert SHAPE_NAMES == tuple(shapes_solution(1, 2, 3, 4))


# ============================================================================ project
def project_solution(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def project_matmul(x, w_q, w_k, w_v):
    return [np.matmul(x, w) for w in (w_q, w_k, w_v)]


def project_loop(x, w_q, w_k, w_v):
    out = []
    for w in (w_q, w_k, w_v):
        y = np.zeros((x.shape[0], w.shape[1]))
        for t in range(x.shape[0]):
            for j in range(w.shape[1]):
                y[t, j] = sum(x[t, i] * w[i, j] for i in range(x.shape[1]))
        out.append(y)
    return tuple(out)


@pytest.mark.parametrize("fn", [project_solution, project_matmul, project_loop])
def test_project_correct(fn):
    result = check_project(fn)
    assert result.status == "correct", result.text
    assert result.message == "Correct: all 3 cases passed."


def test_project_stub_not_attempted():
    assert check_project(stub).status == "not attempted"


def project_swaps_k_v(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_v, x @ w_k


def project_swaps_q_k(x, w_q, w_k, w_v):
    return x @ w_k, x @ w_q, x @ w_v


def project_returns_v_k_q(x, w_q, w_k, w_v):
    return x @ w_v, x @ w_k, x @ w_q


def project_same_matrix(x, w_q, w_k, w_v):
    q = x @ w_q
    return q, q, q


def project_k_from_w_q(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_q, x @ w_v


def project_weights_on_left(x, w_q, w_k, w_v):
    return w_q @ x, w_k @ x, w_v @ x


def project_transposed_weights(x, w_q, w_k, w_v):
    return x @ w_q.T, x @ w_k.T, x @ w_v.T


def project_elementwise(x, w_q, w_k, w_v):
    return x * w_q, x * w_k, x * w_v


def project_two_outputs(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k


def project_x_transposed(x, w_q, w_k, w_v):
    return x.T @ w_q, x.T @ w_k, x.T @ w_v


def project_rows_transposed(x, w_q, w_k, w_v):
    return (x @ w_q).T, (x @ w_k).T, (x @ w_v).T


PROJECT_MUTANTS = [
    (project_rows_transposed, 1, "transposed result", "one column per token"),
    (project_swaps_k_v, 1, "swapped W_K and W_V", "swapped"),
    (project_swaps_q_k, 1, "swapped W_Q and W_K", "swapped"),
    (project_returns_v_k_q, 1, "other order", "order (q, k, v)"),
    (project_same_matrix, 1, "one matrix for all", "its own matrix"),
    (project_k_from_w_q, 1, "k from w_q", "equals q"),
    (project_weights_on_left, 1, "weights on the left", "X comes first"),
    (project_transposed_weights, 1, "weights on the left", "X comes first"),
    (project_elementwise, 1, "elementwise product", "`@`"),
    (project_two_outputs, 1, None, "return q, k, v"),
    (project_x_transposed, 2, "weights on the left", "X comes first"),  # runs on case 1 only if T = d_model
]


@pytest.mark.parametrize("mutant, case_number, mistake, hint_word", PROJECT_MUTANTS,
                         ids=[m[0].__name__ for m in PROJECT_MUTANTS])
def test_project_mutant(mutant, case_number, mistake, hint_word):
    check_mutant(check_project, PROJECT_MISTAKES, mutant, case_number, mistake, hint_word)


def test_every_project_known_mistake_has_a_mutant():
    assert {m.name for m in PROJECT_MISTAKES} == {m for _, _, m, _ in PROJECT_MUTANTS} - {None}


def test_project_weights_on_left_is_recognised_from_its_error_too():
    """On a non-square case W @ X raises; the error is recognised with the same hint."""
    def left_only_when_not_square(x, w_q, w_k, w_v):
        if x.shape == (2, 2):
            return x @ w_q, x @ w_k, x @ w_v
        return w_q @ x, w_k @ x, w_v @ x

    result = check_project(left_only_when_not_square)
    assert_wrong_with_hint(result, 2, "X comes first")
    assert "mismatch in its core dimension" in result.message


# ============================================================================ scaled scores
def scaled_scores_solution(q, k):
    return q @ k.T / np.sqrt(q.shape[-1])


def scaled_scores_loop(q, k):
    d_k = q.shape[1]
    out = np.zeros((q.shape[0], k.shape[0]))
    for i in range(q.shape[0]):
        for j in range(k.shape[0]):
            out[i, j] = np.dot(q[i], k[j]) / d_k ** 0.5
    return out


def scaled_scores_einsum(q, k):
    return np.einsum("id,jd->ij", q, k) / np.sqrt(k.shape[1])


@pytest.mark.parametrize("fn", [scaled_scores_solution, scaled_scores_loop, scaled_scores_einsum])
def test_scaled_scores_correct(fn):
    result = check_scaled_scores(fn)
    assert result.status == "correct", result.text
    assert result.message == "Correct: all 4 cases passed."


def test_scaled_scores_stub_not_attempted():
    assert check_scaled_scores(stub).status == "not attempted"


def scores_no_scale(q, k):
    return q @ k.T


def scores_divide_by_dk(q, k):
    return q @ k.T / q.shape[1]


def scores_times_sqrt(q, k):
    return q @ k.T * np.sqrt(q.shape[1])


def scores_sqrt_of_len(q, k):
    return q @ k.T / np.sqrt(len(q))


def scores_sqrt_of_num_keys(q, k):
    return q @ k.T / np.sqrt(k.shape[0])


def scores_sqrt_of_size(q, k):
    return q @ k.T / np.sqrt(q.size)


def scores_k_not_transposed(q, k):
    return q @ k / np.sqrt(q.shape[-1])


def scores_reshape(q, k):
    return q @ k.reshape(k.shape[1], k.shape[0]) / np.sqrt(q.shape[-1])


def scores_transposed(q, k):
    return k @ q.T / np.sqrt(q.shape[-1])


def scores_with_softmax(q, k):
    return softmax(q @ k.T / np.sqrt(q.shape[-1]))


def scores_elementwise(q, k):
    return q * k / np.sqrt(q.shape[-1])


def scores_hard_coded_dk(q, k):
    d_k = 3  # the ticket's key width, hard-coded
    return q @ k.T / np.sqrt(d_k)


SCALED_SCORES_MUTANTS = [
    (scores_no_scale, 1, "no scale", "sqrt(d_k)"),
    (scores_divide_by_dk, 1, "divide by d_k", "square root"),
    (scores_times_sqrt, 1, "multiply by sqrt(d_k)", "do not multiply"),
    (scores_sqrt_of_len, 1, "sqrt of the number of queries", "last axis"),
    (scores_sqrt_of_num_keys, 1, "sqrt of the number of keys", "last axis"),
    (scores_sqrt_of_size, 1, "sqrt of every entry of q", "last axis"),
    (scores_k_not_transposed, 1, "k not transposed", "Transpose the keys"),
    (scores_reshape, 1, "reshape instead of transpose", "reshape"),
    (scores_transposed, 1, "transposed scores", "Rows are queries"),
    (scores_with_softmax, 1, "softmax applied", "before any softmax"),
    (scores_elementwise, 1, "elementwise product", "`q @ k.T`"),
    (scores_hard_coded_dk, 1, None, "d_k = q.shape[-1]"),
]


@pytest.mark.parametrize("mutant, case_number, mistake, hint_word", SCALED_SCORES_MUTANTS,
                         ids=[m[0].__name__ for m in SCALED_SCORES_MUTANTS])
def test_scaled_scores_mutant(mutant, case_number, mistake, hint_word):
    check_mutant(check_scaled_scores, SCALED_SCORES_MISTAKES, mutant, case_number, mistake, hint_word)


def test_every_scaled_scores_known_mistake_has_a_mutant():
    assert {m.name for m in SCALED_SCORES_MISTAKES} == {m for _, _, m, _ in SCALED_SCORES_MUTANTS} - {None}


def test_k_not_transposed_error_message_and_square_case():
    result = check_scaled_scores(scores_k_not_transposed)
    assert "mismatch in its core dimension" in result.text
    # on the square case 2 q @ k runs: its numbers are the mistake's too, so it is still named
    assert_wrong_with_hint(result, 1, "Transpose the keys")
    assert result.mistake == "k not transposed"
    assert "also fails: case 2, case 3, case 4" in result.message

    # right on case 1 but q @ k later: no single mistake gives both, so no mistake is named
    def k_not_transposed_after_case_1(q, k):
        if q.shape == (2, 4):
            return scaled_scores_solution(q, k)
        return q @ k / np.sqrt(q.shape[-1])

    result = check_scaled_scores(k_not_transposed_after_case_1)
    assert result.case.startswith("case 2 of") and "square" in result.message
    assert result.mistake is None and result.hint.startswith(NOT_A_USUAL_MISTAKE)


def test_scaled_scores_message_shows_expected_and_got():
    text = check_scaled_scores(scores_no_scale).text
    assert "q = [[ 0.,  1., -2.,  1.]," in text
    assert "expected: [[" in text and "got:      [[" in text
    assert "largest difference" in text


# ============================================================================ self-attention
def self_attention_solution(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(k.shape[-1])
    weights = softmax(scores, axis=-1)
    return weights @ v, weights


def self_attention_own_softmax(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(q.shape[1])
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    return weights @ v, weights


@pytest.mark.parametrize("fn", [self_attention_solution, self_attention_own_softmax])  # cu's own: not correct

def test_self_attention_correct(fn):
    result = check_self_attention(fn)
    assert result.status == "correct", result.text
    assert result.message == "Correct: all 5 cases passed."


def test_self_attention_stub_not_attempted():
    assert check_self_attention(stub).status == "not attempted"


def test_self_attention_reports_an_unfinished_helper_it_calls():
    def my_scaled_scores(q, k):
        # YOUR CODE HERE
        raise NotImplementedError()

    def self_attention(x, w_q, w_k, w_v):
        q, k, v = x @ w_q, x @ w_k, x @ w_v
        weights = softmax(my_scaled_scores(q, k))
        return weights @ v, weights

    result = check_self_attention(self_attention)
    assert result.status == "wrong"
    assert "self_attention calls my_scaled_scores, which still raises NotImplementedError" in result.message


def _attention(q, k, v, scale, axis=-1):
    weights = softmax(q @ k.T / scale, axis=axis)
    return weights @ v, weights


def sa_swapped_outputs(x, w_q, w_k, w_v):
    output, weights = self_attention_solution(x, w_q, w_k, w_v)
    return weights, output


def sa_no_scale(x, w_q, w_k, w_v):
    return _attention(x @ w_q, x @ w_k, x @ w_v, 1.0)


def sa_divide_by_dk(x, w_q, w_k, w_v):
    q = x @ w_q
    return _attention(q, x @ w_k, x @ w_v, q.shape[-1])


def sa_k_not_transposed(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = softmax(q @ k / np.sqrt(q.shape[-1]))
    return weights @ v, weights


def sa_softmax_over_columns(x, w_q, w_k, w_v):
    q = x @ w_q
    return _attention(q, x @ w_k, x @ w_v, np.sqrt(q.shape[-1]), axis=0)


def sa_softmax_over_whole_matrix(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max())
    weights = e / e.sum()
    return weights @ v, weights


def sa_swapped_k_v(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_v, x @ w_k
    return _attention(q, k, v, np.sqrt(q.shape[-1]))


def sa_swapped_q_k(x, w_q, w_k, w_v):
    q, k, v = x @ w_k, x @ w_q, x @ w_v
    return _attention(q, k, v, np.sqrt(q.shape[-1]))


def sa_k_times_q(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = softmax(k @ q.T / np.sqrt(q.shape[-1]))
    return weights @ v, weights


def sa_weights_on_left(x, w_q, w_k, w_v):
    q, k, v = w_q @ x, w_k @ x, w_v @ x
    return _attention(q, k, v, np.sqrt(q.shape[-1]))


def sa_transposed_weights(x, w_q, w_k, w_v):
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    return _attention(q, k, v, np.sqrt(q.shape[-1]))


def sa_no_softmax(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(q.shape[-1])
    return scores @ v, scores


def sa_mixes_with_transpose(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return weights.T @ v, weights


def sa_values_on_the_left(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return v @ weights, weights


def sa_np_dot_weights_first(x, w_q, w_k, w_v):
    q, k, v = np.dot(w_q, x), np.dot(w_k, x), np.dot(w_v, x)
    return _attention(q, k, v, np.sqrt(q.shape[-1]))


def sa_values_not_projected(x, w_q, w_k, w_v):
    q, k = x @ w_q, x @ w_k
    weights = softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return weights @ x, weights


def sa_returns_output_only(x, w_q, w_k, w_v):
    return self_attention_solution(x, w_q, w_k, w_v)[0]


def sa_sqrt_of_d_model(x, w_q, w_k, w_v):
    q = x @ w_q
    return _attention(q, x @ w_k, x @ w_v, np.sqrt(x.shape[-1]))


def sa_sqrt_of_num_keys(x, w_q, w_k, w_v):
    return _attention(x @ w_q, x @ w_k, x @ w_v, np.sqrt(len(x)))


def sa_no_max_shift(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    e = np.exp(q @ k.T / np.sqrt(q.shape[-1]))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights


SELF_ATTENTION_MUTANTS = [
    (sa_swapped_outputs, 1, "swapped outputs", "output first"),
    (sa_no_scale, 1, "no scale", "sqrt(d_k)"),
    (sa_divide_by_dk, 1, "divide by d_k", "square root"),
    (sa_k_not_transposed, 1, "k not transposed", "Transpose the keys"),
    (sa_softmax_over_columns, 1, "softmax over the wrong axis", "each column adds up to 1"),
    (sa_softmax_over_whole_matrix, 1, "softmax over the whole array", "whole array"),
    (sa_sqrt_of_num_keys, 2, "sqrt of the number of keys", "number of keys"),
    (sa_no_max_shift, 5, "no max shift", "overflows"),
    (sa_swapped_k_v, 1, "swapped W_K and W_V", "swapped"),
    (sa_swapped_q_k, 1, "scores transposed (or W_Q and W_K swapped)", "transpose of the right ones"),
    (sa_k_times_q, 1, "scores transposed (or W_Q and W_K swapped)", "transpose of the right ones"),
    (sa_weights_on_left, 1, "weights on the left", "X comes first"),
    (sa_transposed_weights, 1, "weights on the left", "X comes first"),
    (sa_no_softmax, 1, "no softmax", "softmax over each row"),
    (sa_mixes_with_transpose, 1, "output product order", "row i of the weights"),
    (sa_values_on_the_left, 1, "output product order", "row i of the weights"),
    (sa_values_not_projected, 1, "values not projected", "VALUES"),
    (sa_returns_output_only, 1, None, "return output, weights"),
    (sa_sqrt_of_d_model, 2, "sqrt of d_model", "width of the embeddings"),
]


@pytest.mark.parametrize("mutant, case_number, mistake, hint_word", SELF_ATTENTION_MUTANTS,
                         ids=[m[0].__name__ for m in SELF_ATTENTION_MUTANTS])
def test_self_attention_mutant(mutant, case_number, mistake, hint_word):
    check_mutant(check_self_attention, SELF_ATTENTION_MISTAKES, mutant, case_number, mistake, hint_word)


# Recognised only from an error on a line past the square first case: tested in
# test_self_attention_shape_errors_are_recognised.
ERROR_ONLY_MISTAKES = {"product refuses the shapes"}


def test_every_self_attention_known_mistake_has_a_mutant():
    covered = {m for _, _, m, _ in SELF_ATTENTION_MUTANTS} - {None}
    assert {m.name for m in SELF_ATTENTION_MISTAKES} == covered | ERROR_ONLY_MISTAKES


def test_self_attention_shape_errors_are_recognised():
    """Past the square first case, W @ X and Q @ K raise; the errors get the matching hints."""
    def right_on_square(fn):
        def learner(x, w_q, w_k, w_v):
            if x.shape == (2, 2):
                return self_attention_solution(x, w_q, w_k, w_v)
            return fn(x, w_q, w_k, w_v)
        return learner

    hints = {m.name: m.hint for m in SELF_ATTENTION_MISTAKES}
    for mutant, mistake in [
        (sa_weights_on_left, "weights on the left"),
        (sa_k_not_transposed, "k not transposed"),
        (sa_values_on_the_left, "output product order"),
        (sa_np_dot_weights_first, "weights on the left"),  # np.dot(w_q, x) on the line says which product
    ]:
        result = check_self_attention(right_on_square(mutant))
        assert_wrong_with_hint(result, 2, hints[mistake][:20])
        assert result.hint == hints[mistake]
        assert "mismatch in its core dimension" in result.message or "not aligned" in result.message
        assert f"where:    {mutant.__name__}, line" in result.message


def test_np_dot_weights_first_is_recognised_on_the_square_case():
    check_mutant(check_self_attention, SELF_ATTENTION_MISTAKES, sa_np_dot_weights_first, 1,
                 "weights on the left", "X comes first")
