"""Hint precision and recall, tested with answers written as learners write them.

Precision: a known mistake is named only when it explains the learner's result on every case
(course_utils/checks/_framework.py). For each exercise, answers that are NOT among its known
mistakes (tests/learner_answers/nbXX_other.py, written from the notebooks' exercise texts without
the mistake tables) must each get the generic hint or a mistake a maintainer checked and listed in
the answer's ``expect``, never another mistake's name.

Recall: realistic forms of every known mistake (tests/learner_answers/nbXX_variants.py: other
names, loops, extra harmless steps) must still be named.

Answers a checker still gets wrong (accepted, another mistake's name, a checker crash) are listed in
their module's ``KNOWN_GAPS`` and run as ``xfail(strict=True)``: the test fails once a fix lands, so
the entry must then be removed.

The last part reproduces, one test each, the wrong hints a new user reported (issue 10).
"""

import numpy as np
import pytest
from hint_registry import EXERCISES, checker_and_mistakes
from learner_answers import all_answers, known_gaps

import course_utils as cu
from course_utils.checks import NOT_A_USUAL_MISTAKE

ANSWERS = all_answers()
OTHERS = [a for a in ANSWERS if a.kind == "other"]
VARIANTS = [a for a in ANSWERS if a.kind == "variant"]
#: {answer id: what the checker gets wrong}, from the ``KNOWN_GAPS`` of the answer modules.
KNOWN_GAPS = known_gaps()
#: The checker's own crash message (for a bug in the course, never for an answer).
CRASH = "the checker itself hit an unexpected error"


def _params(answers):
    """One pytest param per answer; a known gap is a strict xfail, with its reason."""
    return [pytest.param(a, id=a.id, marks=pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[a.id]))
            if a.id in KNOWN_GAPS else pytest.param(a, id=a.id) for a in answers]


def _run(answer):
    check, mistakes = checker_and_mistakes(answer.exercise)
    return check(answer.fn), {m.name for m in mistakes}


def test_every_answer_belongs_to_an_exercise():
    assert ANSWERS, "no learner answers registered"
    unknown = sorted({a.exercise for a in ANSWERS} - set(EXERCISES))
    assert not unknown, f"answers for unknown exercises: {unknown}"
    assert len({a.id for a in ANSWERS}) == len(ANSWERS), "two answers share a name"
    stale = sorted(set(KNOWN_GAPS) - {a.id for a in ANSWERS})
    assert not stale, f"KNOWN_GAPS names answers that do not exist: {stale}"


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_each_exercise_has_at_least_eight_wrong_answers(exercise):
    """Issue 24's bar: at least 8 realistic wrong answers per exercise (other answers and variants)."""
    assert sum(a.exercise == exercise for a in ANSWERS) >= 8


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_each_exercise_has_at_least_four_other_wrong_answers(exercise):
    assert sum(a.exercise == exercise for a in OTHERS) >= 4


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_each_known_mistake_has_a_realistic_variant(exercise):
    _, mistakes = checker_and_mistakes(exercise)
    covered = {a.expect[0] for a in VARIANTS if a.exercise == exercise}
    missing = sorted({m.name for m in mistakes} - covered)
    assert not missing, f"{exercise}: no variant for {missing}"


@pytest.mark.parametrize("answer", _params(OTHERS))
def test_other_wrong_answers_never_get_another_mistakes_name(answer):
    result, names = _run(answer)
    assert result.status == "wrong", result.text
    assert "Traceback" not in result.text and CRASH not in result.text, result.text
    assert set(answer.expect) <= names, f"expect lists unknown mistakes: {set(answer.expect) - names}"
    if result.mistake is not None:
        assert result.mistake in answer.expect, (
            f"{answer.id} ({answer.note}) was told mistake {result.mistake!r}:\n{result.text}"
        )
    else:
        assert result.hint, result.text


#: What a mask variant expects when its pattern is right and only its dtype is not bool: no mistake
#: is named, the hint is the dtype remark the mask comparison computes from the answer itself.
DTYPE = "dtype"


@pytest.mark.parametrize("answer", _params(VARIANTS))
def test_variants_of_known_mistakes_are_still_named(answer):
    result, names = _run(answer)
    assert result.status == "wrong", result.text
    assert CRASH not in result.text, result.text
    if answer.expect[0] == DTYPE:
        assert result.mistake is None and "pattern is right, but the dtype is" in result.message, result.text
        return
    assert answer.expect[0] in names, f"unknown mistake {answer.expect[0]!r}"
    assert result.mistake == answer.expect[0], f"{answer.id} ({answer.note}):\n{result.text}"


def test_generic_hint_says_so_plainly():
    """When nothing explains the answer (and it breaks no invariant: its rows sum to one), the hint says it is
    not a usual mistake, then the generic hint."""
    from course_utils.checks import check_softmax

    result = check_softmax(lambda x: cu.softmax(2 * np.asarray(x, float)))
    assert result.mistake is None
    assert result.hint.startswith(NOT_A_USUAL_MISTAKE)


# ---------------------------------------------------------------------------- reported by a new user
def test_no_max_shift_hint_shows_the_per_row_form():
    """01: the hint after "no max shift" showed np.exp(x - x.max()), which then fails the 2-D case."""
    from course_utils.checks import check_softmax

    def no_shift(x):
        x = np.asarray(x, dtype=float)
        e = np.exp(x)
        return e / e.sum(axis=-1, keepdims=True)

    result = check_softmax(no_shift)
    assert result.mistake == "no max shift"
    assert "x.max(axis=-1, keepdims=True)" in result.hint  # the notebook's own Hint 1
    assert "x - x.max())" not in result.hint


def _capstone_with_causal(diagonal):
    def layer(x, lengths, w_q, w_k, w_v, w_o, num_heads):
        B, T, d_model = x.shape
        pos = np.arange(T)
        causal = pos[None, :] <= pos[:, None] + diagonal          # (T, T)
        real = pos[None, :] < lengths[:, None]                    # (B, T)
        mask = (causal[None] & real[:, None, :])[:, None]         # (B, 1, T, T)
        heads = lambda a: cu.split_heads(a, num_heads)            # noqa: E731
        q, k, v = heads(x @ w_q), heads(x @ w_k), heads(x @ w_v)  # (B, h, T, d_head)
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
        weights = cu.softmax(np.where(mask, scores, -np.inf))
        return cu.merge_heads(weights @ v) @ w_o, weights

    return layer


def test_capstone_off_by_one_causal_mask_is_not_called_padding_only():
    """05: a causal mask that lets each token see the next one was told "the causal mask is missing"."""
    from course_utils.checks import check_capstone_layer

    assert check_capstone_layer(_capstone_with_causal(0)).status == "correct"
    result = check_capstone_layer(_capstone_with_causal(1))
    assert result.mistake == "sees the next token", result.text
    assert "sees the next one" in result.hint and "padding mask only" not in result.hint
    result = check_capstone_layer(_capstone_with_causal(-1))
    assert result.mistake == "cannot see itself" and "attend to itself" in result.hint


def test_contributions_summed_per_key_is_not_called_the_output():
    """05: per-key sums over the wrong axis were told "you returned the output"."""
    from course_utils.checks import check_contributions

    result = check_contributions(lambda weights, values: (weights[:, None] * values).sum(axis=1))
    assert result.mistake == "summed each contribution"
    assert "returned the output" not in result.hint


def test_removal_effects_closed_form_nan_is_not_blamed_on_a_softmax():
    """05: a closed-form answer, nan for a single key, was blamed on "a plain softmax"."""
    from course_utils.checks import check_removal_effects

    def closed_form(scores, values):
        w = cu.softmax(np.asarray(scores, float))                   # (T,)
        output = w @ values                                         # (d_v,)
        # without key j the others are renormalised: output_j = (output - w_j v_j) / (1 - w_j)
        return np.abs(w / (1 - w)) * np.linalg.norm(values - output, axis=-1)

    result = check_removal_effects(closed_form)
    assert result.status == "wrong"
    if result.mistake is not None:
        assert result.mistake == "nan in an empty row"
        assert "a formula that divides" in result.hint  # the hint names both usual causes, not only a softmax


@pytest.mark.parametrize("backward", [
    lambda w, g: w * (g - w @ g.T),
    lambda w, g: w * g - w * (w @ g.T),
    lambda w, g: (np.diag(w) - w @ w.T) @ g if np.ndim(w) == 1 else w * (g - w @ g.T),
], ids=["w*(g - w@g.T)", "w*g - w*(w@g.T)", "diag - w@w.T"])
def test_softmax_backward_matmul_answers_do_not_get_the_outer_product_hint(backward):
    """06: `w @ g.T`-style answers got the hint about np.diag/np.outer on the whole array."""
    from course_utils.checks import check_softmax_backward

    result = check_softmax_backward(backward)
    assert result.status == "wrong"
    assert result.mistake != "full Jacobian of the whole array", result.text


def test_grad_scores_weights_transposed_product_is_not_wrong_axis():
    """06: `weights.T @ grad_output` got "wrong axis/keepdims"."""
    from course_utils.checks import check_grad_scores

    def grad_scores(weights, v, grad_output):
        grad_weights = weights.T @ grad_output
        return weights * (grad_weights - np.sum(weights * grad_weights, axis=-1, keepdims=True))

    result = check_grad_scores(grad_scores)
    assert result.status == "wrong"
    assert result.mistake not in ("wrong axis", "missing keepdims"), result.text


def test_not_attempted_says_exactly_what_to_replace():
    """Every "not attempted" said "replace the two lines" though there is one to replace."""
    from course_utils.checks import check_shapes, check_softmax

    def my_softmax(x):
        x = np.asarray(x, dtype=float)
        # YOUR CODE HERE
        raise NotImplementedError()

    def my_shapes(T, d_model, d_k, d_v):
        shapes = {"X": (T, d_model)}
        # YOUR CODE HERE
        raise NotImplementedError()
        return shapes

    text = check_softmax(my_softmax).message
    assert "Replace the line `raise NotImplementedError()` under `# YOUR CODE HERE`" in text
    assert "two lines" not in text and "keep" not in text
    text = check_shapes(my_shapes).message
    assert "(keep `return shapes` below it)" in text


def test_online_update_hints_use_the_notebooks_name_rescale():
    """07: the hints called the rescale factor `alpha`; the notebook's code calls it `rescale`."""
    from course_utils.checks import ONLINE_UPDATE_MISTAKES
    from course_utils.checks.scale import _HINTS

    texts = [m.hint for m in ONLINE_UPDATE_MISTAKES] + list(_HINTS.values())
    assert not any("alpha" in t for t in texts)
    assert any("rescale = np.exp(m - m_new)" in t for t in texts)


def test_mask_checkers_notice_inputs_changed_in_place():
    """03: a padding_mask that zeroed the caller's lengths was graded Correct."""
    from course_utils.checks import check_padding_mask

    def padding_mask(lengths, T):
        mask = np.arange(T)[None, :] < lengths[:, None]
        lengths[:] = 0
        return mask

    result = check_padding_mask(padding_mask)
    assert result.status == "wrong"
    assert "changed its input lengths in place" in result.message


def test_capstone_calling_the_answer_is_told_kindly():
    """05: the capstone forbade cu.multi_head_attention; the checker now tells, kindly."""
    from course_utils.checks import check_capstone_layer

    def layer(x, lengths, w_q, w_k, w_v, w_o, num_heads):
        T = x.shape[-2]
        mask = cu.causal_mask(T) & cu.padding_mask(lengths, T)[:, None, :]
        return cu.multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, mask=mask)

    result = check_capstone_layer(layer)
    assert result.status == "wrong"
    assert "gives the right numbers on all 6 cases" in result.message
    assert "`cu.multi_head_attention`" in result.message and "`cu.causal_mask`" in result.message
    assert "cu.scaled_dot_product_attention" not in result.message  # called by mha, not by the learner
    assert result.hint.startswith("Well done")
