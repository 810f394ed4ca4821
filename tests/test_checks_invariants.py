"""What a wrong answer breaks, said as facts (course_utils/checks/_invariants.py), and where the hint says them.

Each statement is checked on arrays built for it, then on wrong answers learners write, through ``run_check`` with
the exercise's own reference and cases and a known-mistake table that explains none of them (so that these tests
do not depend on which mistakes the checkers name). The declarations (which output holds weights, where weight is
hidden, which arguments carry a batch or heads) are checked against every case of the exercises.
"""
import itertools
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import course_utils as cu
from course_utils.checks import (
    CHECKERS,
    DEFAULT_HINTS,
    NOT_A_USUAL_MISTAKE,
    Case,
    KnownMistake,
    heads,
    learned,
    masks,
    reading,
    run_check,
)
from course_utils.checks._invariants import DECLARED, statements

CASE = Case("a case", ())
E = np.arange(24.0).reshape(2, 3, 4)
CAUSAL = np.tril(np.ones((3, 3), dtype=bool))
CAUSAL_W = cu.softmax(np.where(CAUSAL, np.array([[0.0, 1, 2], [1, 0, 2], [2, 1, 0]]), -np.inf))


def said(got, expected=E, exercise="toy", names=None, **kw):
    return statements(exercise, expected, got, CASE, names, **kw)


# ---------------------------------------------------------------------------------------------------- the shape
def test_a_swap_is_said_only_when_the_values_are_swapped():
    assert said(np.swapaxes(E, 1, 2)) == ["Swapping axes 1 and 2 of its result gives the expected values."]
    assert said(E.reshape(2, 4, 3)) == []  # the sizes of a swap, other values: the problem line names the axes


def test_an_extra_or_a_missing_axis_is_named():
    assert said(E[:, None]) == ["Without its axis 1 (of size 1), its result would have the expected shape."]
    assert said(E.mean(axis=1)) == ["Its result lacks axis 1 of the expected shape (2, 3, 4) (of size 3)."]
    assert said(E.reshape(6, 4)) == ["Its result holds as many values as expected (24), in another shape."]
    ones = np.ones((1, 3))  # an axis of size 1 more or less: which one, the shapes cannot tell
    assert said(ones[None], ones) == ["Its result has one axis of size 1 too many."]
    assert said(ones, ones[None]) == ["Its result has one axis fewer of size 1 than expected."]
    assert said(np.zeros((5, 5))) == []  # nothing true to add to "the shape is (5, 5); expected (2, 3, 4)"


def test_the_shape_of_a_named_output_and_of_a_mask():
    got = (np.zeros(3), np.swapaxes(E, 0, 1))
    assert said(got, (np.zeros(3), E), names=("output", "weights")) == [
        "Swapping axes 0 and 1 of its weights gives the expected values."]
    assert statements("padding_mask", np.ones((2, 3), bool), np.ones((2, 1, 3), bool), CASE) == [
        "Without its axis 1 (of size 1), its mask would have the expected shape."]


def test_axes_of_the_same_size_swapped():
    square = np.arange(8.0).reshape(2, 2, 2)
    assert said(np.swapaxes(square, 0, 2), square) == ["Swapping axes 0 and 2 of its result gives the expected values."]
    assert said(square + 1, square) == []


def test_a_mask_row_with_another_number_of_true_entries():
    causal = np.tril(np.ones((3, 3), bool))
    all_true = np.ones((3, 3), bool)
    assert statements("causal_mask", causal, all_true, CASE) == ["Row mask[0] has 3 True entries; expected 1."]
    assert statements("causal_mask", causal, np.eye(3, dtype=bool), CASE) == ["Row mask[1] has 1 True entry; expected 2."]
    assert statements("causal_mask", causal, np.flipud(np.triu(all_true)), CASE) == []  # each row's count is right
    assert statements("causal_mask", causal, all_true.astype(float), CASE) == []  # 0/1 or 0/-inf: read by the checker


# ---------------------------------------------------------------------------------------------------- nan and inf
def test_nan_and_inf_are_named_apart_with_their_rows():
    got = E.copy()
    got[0, 1, 2] = got[1, 2, 0] = np.nan
    got[1, 0, 0] = -np.inf
    assert said(got) == ["Its result has nan (not a number) in row result[0, 1] and result[1, 2] and -inf in row "
                         "result[1, 0], where the expected values are finite."]
    only_inf = said(np.array([1.0, np.inf]), np.array([1.0, 2.0]))
    assert only_inf == ["Its result has inf at result[1], where the expected values are finite."]
    assert "nan" not in only_inf[0]  # issue 24: "contains inf ... (nan means ...)" where there is no nan


def test_nan_where_nan_is_expected_is_not_reported():
    assert said(np.array([np.nan, 1.0]), np.array([np.nan, 2.0])) == []


# ---------------------------------------------------------------------------------------------------- the dtype
def test_an_integer_dtype_is_named():
    assert said(np.array([0, 1]), np.array([0.5, 0.5])) == [
        "The dtype of its result is int64, whole numbers only; expected floats."]
    assert said(np.array([0.0, 1.0]), np.array([0.5, 0.5])) == []


# ---------------------------------------------------------------------------------------------------- weights
def weights(got, expected=CAUSAL_W, exercise="masked_attention"):
    """The statements on weights ``got`` (with an output that is wrong too)."""
    return statements(exercise, (np.zeros(3), expected), (np.ones(3), got), CASE, ("output", "weights"))


def test_which_outputs_are_right():
    names = ("q", "k", "v")
    assert said((E + 1, E, E), (E, E, E), names=names) == ["Its k and v are right; its q is not."]
    assert said((E, E + 1, E + 1), (E, E, E), names=names) == ["Its q is right; its k and v are not."]
    assert said((E, E * 2), (E, E), names=("output", "weights")) == ["Its output is right; its weights are not."]
    assert said((E + 1, E + 1), (E, E), names=("output", "weights")) == []


def test_rows_that_do_not_sum_to_one():
    assert weights(CAUSAL_W / np.sqrt(2)) == [
        "Attention weights sum to 1 over the keys, but weights[0] sums to 0.7071 (3 of its 3 rows do not sum to 1)."]
    one_row = CAUSAL_W.copy()
    one_row[2] *= 0.9999995
    assert weights(one_row) == ["Its weights are right; its output is not."]  # within 1e-6 of one: not reported
    one_row[2] = [0.5, 0.25, 0.25 + 2e-6]
    assert weights(one_row) == ["Attention weights sum to 1 over the keys, but weights[2] sums to 1.000002."]
    assert weights(np.array([1.0, 2.0]), np.array([0.5, 0.5]), "attention_row") == [
        "Attention weights sum to 1 over the keys, but its weights sum to 3.0."]


def test_a_row_with_no_permitted_key_sums_to_zero_where_weight_is_hidden():
    expected = CAUSAL_W.copy()
    expected[0] = 0  # query 0 has no permitted key
    got = CAUSAL_W.copy()
    got[0] = [0, 0.5, 0.5]
    assert weights(got, expected)[0] == (
        "Attention weights sum to 0 over the keys where no key is permitted, but weights[0] sums to 1.0.")
    # in an exercise without hidden keys, zeros in the expected weights say nothing about a mask
    assert weights(got, expected, exercise="self_attention") == []


def test_weight_on_a_hidden_key_names_the_row_and_the_key():
    transposed = cu.softmax(np.where(CAUSAL.T, 0.0, -np.inf))  # the upper triangle, uniform
    assert weights(transposed) == [
        "Weight on a hidden key: weights[0, 1] is 0.3333 where the expected weight is 0 (key 1 is hidden; key 1 "
        "comes after query 0), one of 3 such places."]
    batch = np.stack([CAUSAL_W, CAUSAL_W])[:, None]  # (B, h, T, T)
    leak = batch.copy()
    leak[1, 0, 1] = [0.5, 0.25, 0.25]
    assert weights(leak, batch) == ["Weight on a hidden key: weights[1, 0, 1, 2] is 0.25 where the expected weight "
                                    "is 0 (key 2 is hidden; key 2 comes after query 1)."]


def test_at_most_three_statements():
    got = CAUSAL_W.T.copy() * 3
    got[0, 0] = np.nan
    assert len(weights(got)) == 3


# ---------------------------------------------------------------------------------------------------- gradients
def test_a_gradient_of_the_scores_whose_rows_do_not_sum_to_zero():
    w, g = np.array([[0.5, 0.25, 0.25], [0.2, 0.3, 0.5]]), np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 0.0]])
    right = cu.lessons.training.softmax_backward(w, g)
    sum_of_g = w * (g - g.sum(axis=-1, keepdims=True))  # the learner subtracts sum(g), not sum(w * g)
    assert said(sum_of_g, right, "softmax_backward") == [
        "A gradient with respect to the scores sums to 0 over each row (adding one number to every score of a row "
        "changes no weight), but result[0] sums to -2.0 (2 of its 2 rows do not sum to 0)."]
    assert said(-right, right, "softmax_backward") == []  # a sign flipped keeps the sums at 0: nothing to say
    assert said(sum_of_g, right, "scaled_scores") == []  # not a gradient there


GRADIENTS = {"softmax_backward": (cu.lessons.training.softmax_backward, learned._SB_CASES),
             "grad_scores": (cu.lessons.training.grad_scores, learned._GS_CASES)}


@pytest.mark.parametrize("exercise", sorted(GRADIENTS))
def test_the_expected_gradients_rows_sum_to_zero(exercise):
    reference, cases = GRADIENTS[exercise]
    for case in cases:
        assert np.allclose(reference(*case.args).sum(axis=-1), 0, atol=1e-9), case.label
    assert {name for name, d in DECLARED.items() if d.gradient} == set(GRADIENTS)


# ---------------------------------------------------------------------------------------------------- the batch
def merge_heads_swap_front(x):  # the learner's: swapaxes(0, 1) from the front, right without a batch only
    x = np.asarray(x)
    *lead, h, T, d_head = x.shape
    return np.swapaxes(x, 0, 1).reshape(*lead, T, h * d_head)


def masked_attention_sum_whole_array(q, k, v, mask):  # the learner's own softmax: the sum of the whole array
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    e = np.exp(scores - scores.max())
    w = e / e.sum()
    return w @ v, w


BATCH_OF_2 = masks._ATTENTION_CASES[3]


def test_a_result_that_depends_on_the_other_items_of_the_batch():
    case = heads._MERGE_CASES[3]  # x (2, 2, 3, 2)
    got = merge_heads_swap_front(*case.args)
    assert statements("merge_heads", cu.merge_heads(*case.args), got, case, fn=merge_heads_swap_front) == [
        "Batch item 0 run alone (a batch of 1) gets another result than inside the batch of 2: the result for one "
        "item depends on the other items or on their number."]
    expected = cu.scaled_dot_product_attention(*BATCH_OF_2.args)
    got = masked_attention_sum_whole_array(*BATCH_OF_2.args)
    found = statements("masked_attention", expected, got, BATCH_OF_2, ("output", "weights"),
                       fn=masked_attention_sum_whole_array)
    assert found[0].startswith("Attention weights sum to 1 over the keys, but weights[0, 0] sums to")
    assert found[1].startswith("Batch item 0 run alone (a batch of 1) gets another output than inside the batch")


def test_the_batch_is_not_blamed_when_each_item_is_right_alone_cannot_run_alone_or_is_random():
    def doubled(q, k, v, mask):  # wrong everywhere, but each item alone as in the batch
        output, w = cu.scaled_dot_product_attention(q, k, v, mask)
        return 2 * output, w

    def needs_two(q, k, v, mask):
        if len(q) < 2:
            raise ValueError("only a batch")
        return masked_attention_sum_whole_array(q, k, v, mask)

    def slow_alone(q, k, v, mask):
        if len(q) < 2:
            time.sleep(5)
        return masked_attention_sum_whole_array(q, k, v, mask)

    calls = itertools.count(1)

    def dropout(q, k, v, mask):  # a random function: another result each time, whatever the batch
        # (each call scaled by its own factor: an unseeded 10 % dropout of a few entries gave the same pattern twice
        # in about a third of the calls, and then the test failed now and then)
        output, w = cu.scaled_dot_product_attention(q, k, v, mask)
        return output * (1 + 0.1 * next(calls)), w

    expected = cu.scaled_dot_product_attention(*BATCH_OF_2.args)
    for fn in (doubled, needs_two, slow_alone, dropout):
        start = time.monotonic()
        found = statements("masked_attention", expected, fn(*BATCH_OF_2.args), BATCH_OF_2, ("output", "weights"),
                           fn=fn, time_limit=0.3)
        assert not any(s.startswith("Batch item") for s in found), fn.__name__
        assert time.monotonic() - start < 3


# ---------------------------------------------------------------------------------------------------- the heads
def mha_split_input_columns(x, w_q, w_k, w_v, w_o, num_heads, mask=None):  # the learner's: x's columns per head
    d_head = x.shape[-1] // num_heads
    outputs, weights = [], []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        xh = x[..., cols]
        q, k, v = xh @ w_q[cols, cols], xh @ w_k[cols, cols], xh @ w_v[cols, cols]
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)
        w = cu.softmax(scores if mask is None else np.where(mask, scores, -np.inf))
        outputs.append(w @ v)
        weights.append(w)
    return np.concatenate(outputs, axis=-1) @ w_o, np.stack(weights, axis=-3)


HEADS_SAID = ("With the heads in reverse order (their column blocks of w_q, w_k and w_v and row blocks of w_o), its "
              "output changes; a multi-head layer's output does not depend on the order of its heads.")


def test_an_output_that_depends_on_the_order_of_the_heads():
    case = heads._MHA_CASES[0]  # 2 heads, no mask
    got = mha_split_input_columns(*case.args)
    found = statements("multi_head_attention", cu.multi_head_attention(*case.args), got, case, ("output", "weights"),
                       fn=mha_split_input_columns)
    assert found == [HEADS_SAID]
    one_head = heads._MHA_CASES[3]
    assert statements("multi_head_attention", cu.multi_head_attention(*one_head.args),
                      mha_split_input_columns(*one_head.args), one_head, ("output", "weights"),
                      fn=mha_split_input_columns) == []  # one head: no order to change


# ---------------------------------------------------------------------------------------------------- never fails
SHAPES = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)
ANSWERS = st.one_of(
    hnp.arrays(np.float64, SHAPES, elements=st.sampled_from([0.0, 1.0, 0.5, -2.0, np.nan, np.inf, -np.inf])),
    hnp.arrays(np.int64, SHAPES, elements=st.integers(-3, 3)), hnp.arrays(np.bool_, SHAPES))


@settings(max_examples=150, deadline=None)
@given(got=ANSWERS, pair=st.booleans(), mask=st.booleans(), exercise=st.sampled_from(sorted(DECLARED) + ["toy"]))
def test_any_answer_gets_a_list_of_sentences(got, pair, mask, exercise):
    expected = CAUSAL if mask else CAUSAL_W
    expected = (np.zeros(3), expected) if pair else expected
    answer = (np.zeros(3), got) if pair else got
    found = statements(exercise, expected, answer, CASE, ("output", "weights") if pair else None)
    assert isinstance(found, list) and all(isinstance(s, str) and s.endswith(".") for s in found)


# ---------------------------------------------------------------------------------------------------- declarations
def test_every_declaration_is_an_exercise():
    assert set(DECLARED) <= set(CHECKERS)


def _hidden_keys(exercise, case):
    """The keys each query of the case may not see, shaped like the reference's weights."""
    if exercise == "masked_attention":
        return ~np.asarray(case.args[3])
    if exercise == "multi_head_attention":
        mask = case.args[6]
        mask = np.ones((1, 1), bool) if mask is None else np.asarray(mask)
        return ~(mask[:, None] if mask.ndim == 3 else mask)
    x, lengths = case.args[:2]
    T = np.shape(x)[-2]
    return ~(cu.causal_mask(T)[None] & cu.padding_mask(lengths, T)[:, None, :])[:, None]


HIDDEN = {
    "masked_attention": (cu.scaled_dot_product_attention, masks._ATTENTION_CASES),
    "multi_head_attention": (cu.multi_head_attention, heads._MHA_CASES),
    "capstone_layer": (reading._reference_capstone, reading._CAPSTONE_CASES),
}


@pytest.mark.parametrize("exercise", sorted(HIDDEN))
def test_the_expected_weights_are_zero_only_at_hidden_keys(exercise):
    """What "key j is hidden" rests on: in these exercises a zero expected weight is a key the case hides."""
    assert DECLARED[exercise].hidden
    reference, cases = HIDDEN[exercise]
    for case in cases:
        w = reference(*case.args)[1]
        assert not ((w == 0) & ~np.broadcast_to(_hidden_keys(exercise, case), w.shape)).any(), case.label
    assert {name for name, d in DECLARED.items() if d.hidden} == set(HIDDEN)


BATCHED = {
    "masked_attention": (cu.scaled_dot_product_attention, masks._ATTENTION_CASES, ("output", "weights")),
    "multi_head_attention": (cu.multi_head_attention, heads._MHA_CASES, ("output", "weights")),
    "capstone_layer": (reading._reference_capstone, reading._CAPSTONE_CASES, ("output", "weights")),
    "split_heads": (cu.split_heads, heads._SPLIT_CASES, None),
    "merge_heads": (cu.merge_heads, heads._MERGE_CASES, None),
}


@pytest.mark.parametrize("exercise", sorted(BATCHED))
def test_the_declared_batch_is_found_and_the_reference_depends_on_neither_batch_nor_heads(exercise):
    reference, cases, names = BATCHED[exercise]

    def twice_when_alone(*args):
        out = reference(*args)
        alone = len(args[0]) == 1
        return tuple(2 * o for o in out) if alone and names else 2 * out if alone else out

    found = 0
    for case in cases:
        expected = reference(*case.args)
        assert statements(exercise, expected, expected, case, names, fn=reference) == [], case.label
        found += bool(statements(exercise, expected, expected, case, names, fn=twice_when_alone))
    assert found >= 1  # a declaration that no case fits would never say anything
    assert {name for name, d in DECLARED.items() if d.batch} == set(BATCHED)
    assert {name for name, d in DECLARED.items() if d.heads} == {"multi_head_attention", "capstone_layer"}


# ---------------------------------------------------------------------------------------------------- in the hint
NONE_OF_THESE = (KnownMistake("explains nothing", "never shown", reproduce=lambda *args: None),)


def hint_of(exercise, fn):
    """The hint of ``fn`` checked like ``exercise``, against a table of mistakes that explains none of it."""
    reference, cases, names = BATCHED[exercise]
    arg_names = tuple(f"a{i}" for i in range(len(cases[0].args)))
    return run_check(fn, reference=reference, cases=cases, arg_names=arg_names, name=exercise, output_names=names,
                     known_mistakes=NONE_OF_THESE)


def _heads(x, w_q, w_k, w_v, h):
    return cu.split_heads(x @ w_q, h), cu.split_heads(x @ w_k, h), cu.split_heads(x @ w_v, h)


def capstone(causal, padding=lambda T, lengths: np.arange(T)[None, :] < lengths[:, None]):
    """A learner's capstone layer, right but for its ``causal(T)`` and ``padding(T, lengths)`` masks."""
    def layer(x, lengths, w_q, w_k, w_v, w_o, num_heads):
        T = x.shape[1]
        mask = (causal(T)[None] & padding(T, lengths)[:, None, :])[:, None]  # (B, 1, T, T)
        q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
        w = cu.softmax(np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf))
        return cu.merge_heads(w @ v) @ w_o, w

    return layer


def multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, mask=None):  # a learner's, right
    q, k, v = _heads(x, w_q, w_k, w_v, num_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask)
        scores = np.where(mask[..., None, :, :] if mask.ndim == 3 else mask, scores, -np.inf)
    w = cu.softmax(scores)
    return cu.merge_heads(w @ v) @ w_o, w


def masked_attention(weights_from_scores, *, output_from_weights=True):
    def attention(q, k, v, mask):
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
        w = weights_from_scores(scores, mask)
        return (w if output_from_weights else cu.softmax(np.where(mask, scores, -np.inf))) @ v, w

    return attention


LEARNERS = {
    "raw scores as the weights": ("masked_attention", masked_attention(
        lambda s, m: np.where(m, s, 0.0), output_from_weights=False),
        "Attention weights sum to 1 over the keys, but weights[0] sums to 0.3536."),
    "weights divided by sqrt(d_k) after the softmax": ("masked_attention", masked_attention(
        lambda s, m: cu.softmax(np.where(m, s * np.sqrt(2), -np.inf)) / np.sqrt(2)),
        "Attention weights sum to 1 over the keys, but weights[0] sums to 0.7071."),
    "a causal mask built with np.eye": ("capstone_layer", capstone(lambda T: np.eye(T, dtype=bool)),
                                        "Attention weights sum to 1 over the keys, but weights[0, 0, 2] sums to 0.0."),
    "a transposed causal mask": ("capstone_layer", capstone(lambda T: np.tril(np.ones((T, T), bool)).T),
                                 "Weight on a hidden key: weights[0, 0, 0, 1] is 0.5024 where the expected weight is "
                                 "0 (key 1 is hidden; key 1 comes after query 0)."),
    "padding off by one": ("capstone_layer", capstone(lambda T: np.tril(np.ones((T, T), bool)),
                                                      lambda T, n: np.arange(T)[None] <= n[:, None]),
                           "Weight on a hidden key: weights[0, 0, 2, 2] is 0.2067 where the expected weight is 0 "
                           "(key 2 is hidden)."),
    "weights of the heads stacked in front of the batch": (
        "multi_head_attention", lambda *a: (lambda o, w: (o, np.swapaxes(w, 0, 1)))(*multi_head_attention(*a)),
        "Swapping axes 0 and 1 of its weights gives the expected values."),
    "x's columns split per head": ("multi_head_attention", mha_split_input_columns, HEADS_SAID),
    "swapaxes(0, 1) counted from the front": ("merge_heads", merge_heads_swap_front,
                                              "Batch item 0 run alone (a batch of 1) gets another result"),
}


@pytest.mark.parametrize("learner", sorted(LEARNERS))
def test_learners_answers_are_told_what_they_break_then_the_generic_hint(learner):
    exercise, fn, statement = LEARNERS[learner]
    result = hint_of(exercise, fn)
    assert result.status == "wrong" and result.mistake is None, result.text
    assert statement in result.hint and NOT_A_USUAL_MISTAKE not in result.hint, result.text
    kind = "shape" if "Swapping" in statement else "values"
    assert result.hint.endswith(DEFAULT_HINTS[kind]), result.text


def test_an_answer_that_breaks_nothing_said_is_still_not_a_usual_mistake():
    result = hint_of("masked_attention", masked_attention(lambda s, m: cu.softmax(np.where(m, 2 * s, -np.inf))))
    assert result.hint == f"{NOT_A_USUAL_MISTAKE} {DEFAULT_HINTS['values']}"


def test_running_each_item_alone_stays_under_the_time_limit_of_the_check():
    def slow_alone(x):
        if np.ndim(x) == 4 and len(x) == 1:  # a batch of 1: only when the checker runs an item alone
            time.sleep(30)
        return merge_heads_swap_front(x)

    reference, cases, _ = BATCHED["merge_heads"]
    start = time.monotonic()
    result = run_check(slow_alone, reference=reference, cases=cases, arg_names=("x",), name="merge_heads",
                       known_mistakes=NONE_OF_THESE, time_limit=1.0)
    assert time.monotonic() - start < 6
    assert result.status == "wrong" and "Batch item" not in result.hint, result.text
    assert "case 4 of 5" in result.case and "not run" not in result.text  # the batch case, every case run
