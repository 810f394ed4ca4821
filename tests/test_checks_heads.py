"""Notebook 04 checkers against the reference, the stub, and the wrong answers learners write.

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
    MERGE_HEADS_MISTAKES,
    MULTI_HEAD_ATTENTION_MISTAKES,
    SPLIT_HEADS_MISTAKES,
    check_merge_heads,
    check_multi_head_attention,
    check_split_heads,
)
from course_utils.checks._catalogue import CATALOGUE
from course_utils.checks.heads import _MERGE_CASES, _MHA_CASES, _SPLIT_CASES

# these checkers may read a mistake from several cases, so `passed` is not asserted
assert_wrong = partial(checker_helpers.assert_wrong, check_passed=False)
check_mutant = partial(checker_helpers.check_mutant, check_passed=False)


# ============================================================================ split_heads
def split_notebook(x, num_heads):
    x = np.asarray(x, dtype=float)
    *lead, T, d_model = x.shape
    d_head = d_model // num_heads
    x = x.reshape(*lead, T, num_heads, d_head)
    return np.swapaxes(x, -3, -2)


def split_with_np_split(x, num_heads):
    return np.stack(np.split(x, num_heads, axis=-1), axis=-3)


def split_loop(x, num_heads):
    d_head = x.shape[-1] // num_heads
    return np.stack([x[..., h * d_head:(h + 1) * d_head] for h in range(num_heads)], axis=-3)


def split_moveaxis(x, num_heads):
    return np.moveaxis(x.reshape(*x.shape[:-1], num_heads, -1), -2, -3)


@pytest.mark.parametrize("fn", [cu.split_heads, split_notebook, split_with_np_split, split_loop, split_moveaxis])
def test_split_correct(fn):
    result = check_split_heads(fn)
    assert result.status == "correct", result.text
    assert result.message == "Correct: all 6 cases passed."


def test_split_stub_not_attempted():
    result = check_split_heads(stub)
    assert result.status == "not attempted"
    assert "split_heads function still raises NotImplementedError" in result.message


def split_reshape_only(x, num_heads):
    *lead, T, d_model = x.shape
    return x.reshape(*lead, num_heads, T, d_model // num_heads)


def split_interleaved(x, num_heads):
    *lead, T, d_model = x.shape
    return np.moveaxis(x.reshape(*lead, T, d_model // num_heads, num_heads), -1, -3)


def split_strided_slices(x, num_heads):
    return np.stack([x[..., h::num_heads] for h in range(num_heads)], axis=-3)


def split_no_swap(x, num_heads):
    *lead, T, d_model = x.shape
    return x.reshape(*lead, T, num_heads, d_model // num_heads)


def split_swaps_last_two(x, num_heads):
    *lead, T, d_model = x.shape
    return np.swapaxes(x.reshape(*lead, T, num_heads, d_model // num_heads), -1, -2)


def split_dot_T(x, num_heads):
    T, d_model = x.shape[-2:]
    return x.reshape(T, num_heads, d_model // num_heads).T


def split_2d_unpack(x, num_heads):
    T, d_model = x.shape
    return x.reshape(T, num_heads, d_model // num_heads).transpose(1, 0, 2)


def split_2d_reshape(x, num_heads):
    T, d_model = x.shape[-2], x.shape[-1]
    return np.swapaxes(x.reshape(T, num_heads, d_model // num_heads), 0, 1)


def split_2d_transpose(x, num_heads):
    *lead, T, d_model = x.shape
    return x.reshape(*lead, T, num_heads, d_model // num_heads).transpose(1, 0, 2)


def split_flattens_batch(x, num_heads):
    return x.reshape(-1, num_heads, x.shape[-1] // num_heads).swapaxes(0, 1)


def split_float_d_head(x, num_heads):
    *lead, T, d_model = x.shape
    d_head = d_model / num_heads
    return np.swapaxes(x.reshape(*lead, T, num_heads, d_head), -3, -2)


def split_positions(x, num_heads):
    return np.stack(np.split(x, num_heads, axis=-2))


def split_returns_list(x, num_heads):
    return np.split(x, num_heads, axis=-1)


def split_no_return(x, num_heads):
    np.swapaxes(x.reshape(*x.shape[:-1], num_heads, -1), -3, -2)


SPLIT_MUTANTS = [
    # (learner function, first failing case, known mistake (None: generic hint), a word of the hint)
    (split_reshape_only, 1, "split without the transpose", "refills the array in reading order"),
    (split_interleaved, 1, "interleaved columns", "every num_heads-th column"),
    (split_strided_slices, 1, "interleaved columns", "every num_heads-th column"),
    (split_no_swap, 1, "forgot the transpose", "Bring the heads to the front"),
    (split_swaps_last_two, 1, "transposed the wrong axes", "not the last two"),
    (split_dot_T, 1, "transposed the wrong axes", "not the last two"),
    (split_2d_unpack, 5, "only for one sequence", "works for one sequence but not for a batch"),
    (split_2d_reshape, 5, "only for one sequence", "works for one sequence but not for a batch"),
    (split_2d_transpose, 5, "transpose for a fixed number of axes", "one number of axes"),
    (split_flattens_batch, 5, "only for one sequence", "works for one sequence but not for a batch"),
    (split_float_d_head, 1, "float d_head", "d_model // num_heads"),
    (split_positions, 1, "split the positions", "*columns*"),
    (split_returns_list, 1, None, "np.stack"),
    (split_no_return, 1, None, "`return"),
]


@pytest.mark.parametrize("mutant, case_number, mistake, hint_word", SPLIT_MUTANTS,
                         ids=[m[0].__name__ for m in SPLIT_MUTANTS])
def test_split_mutant(mutant, case_number, mistake, hint_word):
    check_mutant(check_split_heads, SPLIT_HEADS_MISTAKES, mutant, case_number, mistake, hint_word)


def test_every_split_known_mistake_has_a_mutant():
    assert {m.name for m in SPLIT_HEADS_MISTAKES} == {m for _, _, m, _ in SPLIT_MUTANTS} - {None}


def test_split_positions_is_recognised_from_its_numbers_too():
    """When T is divisible by num_heads, splitting the rows runs without an error."""
    mistake = next(m for m in SPLIT_HEADS_MISTAKES if m.name == "split the positions")
    x = np.arange(16.0).reshape(4, 4)
    assert mistake.explains_output(split_positions(x, 2), (x, 2))


def test_split_message_shows_numbered_entries():
    text = check_split_heads(split_reshape_only).text
    assert "input:    x = [[ 0.,  1.,  2.,  3.]," in text
    assert "num_heads = 2" in text
    assert "expected: [[[ 0.,  1.]," in text


def test_split_cases_are_distinct_sizes_first():
    x, h = _SPLIT_CASES[0].args
    T, d_model = x.shape
    assert len({T, h}) == 2 and d_model // h == 2  # T != num_heads: the forgotten transpose changes the shape


# ============================================================================ merge_heads
def merge_notebook(x):
    x = np.asarray(x, dtype=float)
    *lead, num_heads, T, d_head = x.shape
    x = np.swapaxes(x, -3, -2)
    return x.reshape(*lead, T, num_heads * d_head)


def merge_concatenate(x):
    return np.concatenate([x[..., h, :, :] for h in range(x.shape[-3])], axis=-1)


def merge_moveaxis(x):
    return np.moveaxis(x, -3, -2).reshape(*x.shape[:-3], x.shape[-2], -1)


@pytest.mark.parametrize("fn", [cu.merge_heads, merge_notebook, merge_concatenate, merge_moveaxis])
def test_merge_correct(fn):
    result = check_merge_heads(fn)
    assert result.status == "correct", result.text
    assert result.message == "Correct: all 5 cases passed."


def test_merge_stub_not_attempted():
    assert check_merge_heads(stub).status == "not attempted"


def merge_reshape_only(x):
    *lead, h, T, d = x.shape
    return x.reshape(*lead, T, h * d)


def merge_transpose_120(x):
    return x.transpose(1, 2, 0).reshape(x.shape[1], -1)


def merge_heads_last(x):
    *lead, h, T, d = x.shape
    return np.moveaxis(x, -3, -1).reshape(*lead, T, h * d)


def merge_dot_T(x):
    return x.T.reshape(x.shape[-2], -1)


def merge_sum(x):
    return x.sum(axis=-3)


def merge_mean(x):
    return x.mean(axis=0)


def merge_rows(x):
    return np.concatenate(list(x), axis=0)


def merge_concatenate_first_axis(x):
    return np.concatenate(x, axis=-1)


def merge_3d_unpack(x):
    h, T, d = x.shape
    return x.transpose(1, 0, 2).reshape(T, h * d)


def merge_3d_transpose(x):
    *lead, h, T, d = x.shape
    return x.transpose(1, 0, 2).reshape(*lead, T, h * d)


def merge_swap_only(x):
    return np.swapaxes(x, -3, -2)


MERGE_MUTANTS = [
    (merge_reshape_only, 1, "merge without the transpose", "mixes heads and positions"),
    (merge_transpose_120, 1, "heads interleaved", "interleaved"),
    (merge_heads_last, 1, "heads interleaved", "interleaved"),
    (merge_dot_T, 1, "heads interleaved", "interleaved"),
    (merge_sum, 1, "summed or averaged the heads", "concatenates"),
    (merge_mean, 1, "summed or averaged the heads", "concatenates"),
    (merge_rows, 1, "stacked the heads as rows", "side by side"),
    (merge_concatenate_first_axis, 4, "only for one sequence", "works for one sequence but not for a batch"),
    (merge_3d_unpack, 4, "only for one sequence", "works for one sequence but not for a batch"),
    (merge_3d_transpose, 4, "transpose for a fixed number of axes", "one number of axes"),
    (merge_swap_only, 1, None, "(..., T, num_heads * d_head)"),
]


@pytest.mark.parametrize("mutant, case_number, mistake, hint_word", MERGE_MUTANTS,
                         ids=[m[0].__name__ for m in MERGE_MUTANTS])
def test_merge_mutant(mutant, case_number, mistake, hint_word):
    check_mutant(check_merge_heads, MERGE_HEADS_MISTAKES, mutant, case_number, mistake, hint_word)


def test_every_merge_known_mistake_has_a_mutant():
    assert {m.name for m in MERGE_HEADS_MISTAKES} - set(CATALOGUE) <= {m for _, _, m, _ in MERGE_MUTANTS}


def test_merge_ticket_case_is_a_round_trip():
    from course_utils.lessons.data import TICKET, embed_wide, random_projections

    (x,) = _MERGE_CASES[-1].args
    v = (embed_wide(TICKET) @ random_projections()[2]).round(2)
    np.testing.assert_array_equal(cu.merge_heads(x), v)


# ============================================================================ multi_head_attention
def heads_mask(mask):
    return None if mask is None else np.asarray(mask, dtype=bool)[..., None, :, :]


def mha_notebook(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    x = np.asarray(x, dtype=float)
    q = cu.split_heads(x @ w_q, num_heads)
    k = cu.split_heads(x @ w_k, num_heads)
    v = cu.split_heads(x @ w_v, num_heads)
    d_head = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores, axis=-1)
    heads = weights @ v
    return cu.merge_heads(heads) @ w_o, weights


def mha_via_sdpa(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    heads, weights = cu.scaled_dot_product_attention(q, k, v, heads_mask(mask))
    return cu.merge_heads(heads) @ w_o, weights


def own_softmax(s, axis=-1):
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def mha_loop(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    """A loop over heads, as in the notebook's section 2, with -1e9 for the blocked scores."""
    d_head = x.shape[-1] // num_heads
    outputs, weights = [], []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        q, k, v = x @ w_q[:, cols], x @ w_k[:, cols], x @ w_v[:, cols]
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)
        if mask is not None:
            scores = np.where(mask, scores, -1e9)
        w = own_softmax(scores)
        outputs.append(w @ v)
        weights.append(w)
    return np.concatenate(outputs, axis=-1) @ w_o, np.stack(weights, axis=-3)


def mha_sum_of_row_blocks(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    """W_O applied per head the right way: each head times its rows of W_O, summed."""
    d_head = x.shape[-1] // num_heads
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    heads, weights = cu.scaled_dot_product_attention(q, k, v, heads_mask(mask))
    output = sum(heads[..., h, :, :] @ w_o[h * d_head:(h + 1) * d_head, :] for h in range(num_heads))
    return output, weights


@pytest.mark.parametrize(
    "fn", [cu.multi_head_attention, mha_notebook, mha_via_sdpa, mha_loop, mha_sum_of_row_blocks],
    ids=["reference", "notebook", "via sdpa", "loop over heads, -1e9", "W_O rows per head, summed"],
)
def test_mha_correct(fn):
    result = check_multi_head_attention(fn)
    assert result.status == "correct", result.text
    assert result.message == "Correct: all 7 cases passed."


def test_mha_stub_not_attempted():
    assert check_multi_head_attention(stub).status == "not attempted"


def test_mha_calling_a_stub_split_is_reported():
    def uses_stub_split(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
        q = stub(x @ w_q, num_heads)
        return q, q

    result = check_multi_head_attention(uses_stub_split)
    assert result.status == "wrong"
    assert "calls stub, which still raises NotImplementedError" in result.message


def mha_parts(x, w_q, w_k, w_v, num_heads, mask, *, scale=None, axis=-1, split=cu.split_heads):
    """Heads (..., h, T, d_head) and weights (..., h, T, T), with a knob for learner slips."""
    q, k, v = (split(x @ w, num_heads) for w in (w_q, w_k, w_v))
    d_head = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / (np.sqrt(d_head) if scale is None else scale)
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool)[..., None, :, :], scores, -np.inf)
    weights = cu.softmax(scores, axis=axis)
    return weights @ v, weights


def no_output_projection(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask)
    return cu.merge_heads(heads), weights


def w_o_block_diagonal(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask)
    d_head = x.shape[-1] // num_heads
    blocks = [heads[..., h, :, :] @ w_o[h * d_head:(h + 1) * d_head, h * d_head:(h + 1) * d_head]
              for h in range(num_heads)]
    return np.concatenate(blocks, axis=-1), weights


def w_o_rows_averaged(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask)
    d_head = x.shape[-1] // num_heads
    per_head = [heads[..., h, :, :] @ w_o[h * d_head:(h + 1) * d_head, :] for h in range(num_heads)]
    return np.mean(per_head, axis=0), weights


def w_o_rows_concatenated(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask)
    d_head = x.shape[-1] // num_heads
    per_head = [heads[..., h, :, :] @ w_o[h * d_head:(h + 1) * d_head, :] for h in range(num_heads)]
    return np.concatenate(per_head, axis=-1), weights


def w_o_first_rows_for_every_head(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask)
    d_head = x.shape[-1] // num_heads
    return (heads @ w_o[:d_head, :]).sum(axis=-3), weights


def scale_sqrt_d_model(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask, scale=np.sqrt(x.shape[-1]))
    return cu.merge_heads(heads) @ w_o, weights


def no_scale(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask, scale=1.0)
    return cu.merge_heads(heads) @ w_o, weights


def softmax_over_queries(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask, axis=-2)
    return cu.merge_heads(heads) @ w_o, weights


def softmax_over_heads(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask, axis=0)
    return cu.merge_heads(heads) @ w_o, weights


def merge_without_transpose(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask)
    return heads.reshape(*x.shape) @ w_o, weights


def merge_interleaved(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask)
    return np.moveaxis(heads, -3, -1).reshape(*x.shape) @ w_o, weights


def divide_by_d_head(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask, scale=x.shape[-1] // num_heads)
    return cu.merge_heads(heads) @ w_o, weights


def scale_sqrt_num_keys(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask, scale=np.sqrt(x.shape[-2]))
    return cu.merge_heads(heads) @ w_o, weights


def scale_sqrt_num_heads(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask, scale=np.sqrt(num_heads))
    return cu.merge_heads(heads) @ w_o, weights


def _with_softmax(softmax):
    def layer(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
        q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
        if mask is not None:
            scores = np.where(heads_mask(mask), scores, -np.inf)
        weights = softmax(scores)
        return cu.merge_heads(weights @ v) @ w_o, weights

    return layer


softmax_no_shift = _with_softmax(lambda s: np.exp(s) / np.exp(s).sum(axis=-1, keepdims=True))
softmax_whole_array = _with_softmax(lambda s: np.exp(s - s.max()) / np.exp(s - s.max()).sum())


def split_interleaved_columns(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    def split(a, h):
        *lead, T, d_model = a.shape
        return np.moveaxis(a.reshape(*lead, T, d_model // h, h), -1, -3)

    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask, split=split)
    return cu.merge_heads(heads) @ w_o, weights


def split_without_transpose(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    def split(a, h):
        *lead, T, d_model = a.shape
        return a.reshape(*lead, h, T, d_model // h)

    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask, split=split)
    return cu.merge_heads(heads) @ w_o, weights


def split_and_merge_by_reshape_only(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    """The notebook's "most common multi-head bug", on both sides: one reshape in, one reshape out."""
    *lead, T, d_model = x.shape
    d_head = d_model // num_heads
    q = (x @ w_q).reshape(*lead, num_heads, T, d_head)
    k = (x @ w_k).reshape(*lead, num_heads, T, d_head)
    v = (x @ w_v).reshape(*lead, num_heads, T, d_head)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)
    if mask is not None:
        scores = np.where(heads_mask(mask), scores, -np.inf)
    weights = cu.softmax(scores, axis=-1)
    heads = weights @ v
    return heads.reshape(*lead, T, d_model) @ w_o, weights


def mask_ignored(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, None)
    return cu.merge_heads(heads) @ w_o, weights


def mask_after_softmax(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    weights = cu.softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), axis=-1)
    if mask is not None:
        weights = np.where(heads_mask(mask), weights, 0.0)  # blocked weights set to 0, not renormalised
    return cu.merge_heads(weights @ v) @ w_o, weights


def mask_after_softmax_renormalised(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    """Zeroed, then renormalised: equal to masking first except where the permitted weights underflow."""
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    weights = cu.softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), axis=-1)
    if mask is not None:
        weights = weights * heads_mask(mask)
        weights = weights / weights.sum(axis=-1, keepdims=True)
    return cu.merge_heads(weights @ v) @ w_o, weights


def mask_without_heads_axis(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


def mask_passed_to_sdpa_as_is(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    heads, weights = cu.scaled_dot_product_attention(q, k, v, mask)
    return cu.merge_heads(heads) @ w_o, weights


def weights_averaged(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask)
    return cu.merge_heads(heads) @ w_o, weights.mean(axis=-3)


def swapped_outputs(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    heads, weights = mha_parts(x, w_q, w_k, w_v, num_heads, mask)
    return weights, cu.merge_heads(heads) @ w_o


def rows_instead_of_columns(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    d_head = x.shape[-1] // num_heads
    outputs, weights = [], []
    for h in range(num_heads):
        rows = slice(h * d_head, (h + 1) * d_head)
        q, k, v = x @ w_q[rows], x @ w_k[rows], x @ w_v[rows]
        w = cu.softmax(q @ k.T / np.sqrt(d_head))
        outputs.append(w @ v)
        weights.append(w)
    return np.concatenate(outputs, axis=-1) @ w_o, np.stack(weights)


def k_dot_T_with_heads(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    weights = cu.softmax(q @ k.T / np.sqrt(q.shape[-1]))
    return cu.merge_heads(weights @ v) @ w_o, weights


def transpose_for_3d_only(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    q, k, v = (cu.split_heads(x @ w, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(heads_mask(mask), scores, -np.inf)
    weights = cu.softmax(scores)
    return cu.merge_heads(weights @ v) @ w_o, weights


MHA_MUTANTS = [
    (no_output_projection, 1, "no output projection", "multiply by the output projection"),
    (w_o_block_diagonal, 1, "W_O per head", "diagonal block"),
    (w_o_rows_averaged, 1, "W_O per head", "not averaged"),
    (w_o_rows_concatenated, 1, "W_O per head", "not concatenated"),
    (w_o_first_rows_for_every_head, 1, "W_O per head", "rows h * d_head:(h + 1) * d_head"),
    (scale_sqrt_d_model, 1, "sqrt of d_model", "width of the embeddings"),
    (no_scale, 1, "no scale", "sqrt(d_k)"),
    (divide_by_d_head, 1, "divide by d_k", "square root"),
    (scale_sqrt_num_keys, 1, "sqrt of the number of keys", "number of keys"),
    (scale_sqrt_num_heads, 2, "scaled by sqrt(num_heads)", "number of heads"),
    (softmax_no_shift, 7, "no max shift", "overflows"),
    (softmax_whole_array, 1, "softmax over the whole array", "whole array"),
    (softmax_over_queries, 1, "softmax over the wrong axis", "`axis=-1`"),
    (softmax_over_heads, 1, "softmax over the wrong axis", "`axis=-1`"),
    (merge_without_transpose, 1, "merge without the transpose", "mixes heads and positions"),
    (merge_interleaved, 1, "heads interleaved", "interleaved"),
    (split_without_transpose, 1, "split without the transpose", "refills the array in reading order"),
    (split_interleaved_columns, 1, "interleaved columns", "every num_heads-th column"),
    (split_and_merge_by_reshape_only, 1, "split and merge without transpose", "each a single reshape"),
    (mask_ignored, 3, "mask ignored", "no effect"),
    (mask_after_softmax, 3, "mask after the softmax", "*after* the softmax"),
    (mask_after_softmax_renormalised, 7, "zero then renormalise", "underflow"),
    (mask_without_heads_axis, 5, "mask without a heads axis", "mask[..., None, :, :]"),
    (mask_passed_to_sdpa_as_is, 5, "mask without a heads axis", "mask[..., None, :, :]"),
    (weights_averaged, 1, "weights averaged over heads", "average_attn_weights=False"),
    (swapped_outputs, 1, "swapped outputs", "output first"),
    (rows_instead_of_columns, 1, "product refuses the shapes", "`w_q[:, cols]`, not `w_q[cols]`"),
    (k_dot_T_with_heads, 1, "k.T on a batch", "np.swapaxes(k, -1, -2)"),
    (transpose_for_3d_only, 5, "transpose for a fixed number of axes", "np.swapaxes(k, -1, -2)"),
]


@pytest.mark.parametrize("mutant, case_number, mistake, hint_word", MHA_MUTANTS,
                         ids=[m[0].__name__ for m in MHA_MUTANTS])
def test_mha_mutant(mutant, case_number, mistake, hint_word):
    check_mutant(check_multi_head_attention, MULTI_HEAD_ATTENTION_MISTAKES, mutant, case_number, mistake, hint_word)


def test_every_mha_known_mistake_has_a_mutant():
    """The catalogue's mistakes have theirs in tests/test_mistake_matrix.py too."""
    assert {m.name for m in MULTI_HEAD_ATTENTION_MISTAKES} - set(CATALOGUE) <= {m for _, _, m, _ in MHA_MUTANTS}


def test_mha_mask_zeroed_then_renormalised_is_rejected_only_where_the_weights_underflow():
    """As in 03: only the large-scores case tells it from masking first (every row keeps a permitted key)."""
    result = check_multi_head_attention(mask_after_softmax_renormalised)
    assert result.status == "wrong" and result.passed == 6 and result.mistake == "zero then renormalise"


def test_mha_message_shows_the_mask_as_numbers():
    result = check_multi_head_attention(mask_ignored)
    assert "mask = [[1, 0, 0, 0]," in result.message
    assert "(1 = True = may attend, 0 = False = blocked)" in result.message
    assert "num_heads = 2" in result.message


def test_mha_cases_have_no_query_without_a_key_and_match_the_loop():
    for case in _MHA_CASES:
        x, w_q, w_k, w_v, w_o, num_heads, mask = case.args
        if mask is not None:
            assert np.broadcast_to(mask, (*x.shape[:-1], x.shape[-2])).any(axis=-1).all()
        output, weights = cu.multi_head_attention(*case.args)
        loop_output, loop_weights = mha_loop(*case.args)
        np.testing.assert_allclose(output, loop_output, atol=1e-12)
        np.testing.assert_allclose(weights, loop_weights, atol=1e-12)


def test_mha_first_case_tells_the_scale_mistakes_apart():
    """sqrt(d_model) and sqrt(d_head) differ in case 1 (d_model 4, 2 heads), so does every W_O mistake."""
    x, *_, num_heads, _ = _MHA_CASES[0].args
    assert x.shape[-1] // num_heads != x.shape[-1] and num_heads > 1
