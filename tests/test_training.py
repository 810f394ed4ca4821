"""Tests of course_utils.lessons.training: the toy task, the hand-written gradients, training."""
import numpy as np
import pytest

from course_utils.lessons import training as tr
from course_utils.softmax import softmax


@pytest.fixture(scope="module")
def small():
    tokens, query_pos, labels = tr.make_tickets(8, seed=3)
    return tr.init_params(seed=4), tokens, query_pos, labels


def test_tickets_are_seeded_and_well_formed():
    tokens, query_pos, labels = tr.make_tickets(200, length=6, seed=0)
    again = tr.make_tickets(200, length=6, seed=0)
    assert all(np.array_equal(a, b) for a, b in zip((tokens, query_pos, labels), again))
    assert not np.array_equal(tokens, tr.make_tickets(200, length=6, seed=1)[0])
    assert tokens.shape == (200, 6) and query_pos.shape == labels.shape == (200,)
    rows = np.arange(200)
    assert np.all(tokens[rows, query_pos] == tr.VOCAB.index("missing"))
    assert np.all(tokens[rows, query_pos - 1] == labels)
    items = tokens < len(tr.ITEMS)
    assert np.all(items.sum(axis=1) == 2)                        # the missing item and one other
    assert np.all([len(set(t[i])) == 2 for t, i in zip(tokens, items)])
    assert np.all((tokens == tr.VOCAB.index("missing")).sum(axis=1) == 1)
    assert len(np.unique(query_pos)) == 5 and len(np.unique(labels)) == 3   # positions and answers vary
    assert tr.ticket_words(tokens[0])[query_pos[0]] == "missing"


def test_make_tickets_rejects_bad_sizes():
    with pytest.raises(ValueError, match="length >= 3"):
        tr.make_tickets(5, length=2)


def test_forward_shapes_and_weights(small):
    params, tokens, query_pos, labels = small
    logits, cache = tr.forward(params, tokens, query_pos)
    assert logits.shape == (8, 3) and cache["weights"].shape == (8, 6)
    assert np.allclose(cache["weights"].sum(axis=1), 1.0)
    _, uniform = tr.forward(params, tokens, query_pos, uniform=True)
    assert np.allclose(uniform["weights"], 1 / 6)
    with pytest.raises(ValueError, match=r"\(B, T\)"):
        tr.forward(params, tokens[0], query_pos)


@pytest.mark.parametrize("uniform", [False, True])
def test_every_gradient_matches_central_differences(small, uniform):
    params, tokens, query_pos, labels = small
    errors = tr.gradient_check(params, tokens, query_pos, labels, uniform=uniform)
    assert set(errors) == set(tr.PARAM_NAMES)
    print("max relative error", max(errors.values()))
    assert max(errors.values()) < 1e-6, errors


def test_softmax_backward_matches_the_jacobian():
    rng = np.random.default_rng(0)
    scores, g = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
    w = softmax(scores, axis=-1)
    expected = np.stack([(np.diag(r) - np.outer(r, r)) @ gr for r, gr in zip(w, g)])
    assert np.allclose(tr.softmax_backward(w, g), expected)
    assert np.allclose(tr.softmax_backward(w, g).sum(axis=-1), 0.0)
    with pytest.raises(ValueError, match="same shape"):
        tr.softmax_backward(w, g[:, :3])


def test_grad_scores_matches_central_differences():
    rng = np.random.default_rng(1)
    scores, v, g = rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=(3, 2))

    def loss(s):
        return np.sum((softmax(s, axis=-1) @ v) * g)

    numeric = np.zeros_like(scores)
    for index in np.ndindex(scores.shape):
        plus, minus = scores.copy(), scores.copy()
        plus[index] += 1e-6
        minus[index] -= 1e-6
        numeric[index] = (loss(plus) - loss(minus)) / 2e-6
    assert np.allclose(tr.grad_scores(softmax(scores, axis=-1), v, g), numeric, atol=1e-8)
    with pytest.raises(ValueError, match="expected weights"):
        tr.grad_scores(softmax(scores, axis=-1), v.T, g)


def test_training_is_deterministic_and_learns_while_uniform_does_not():
    tokens, query_pos, labels = tr.make_tickets(512, seed=0)
    test = tr.make_tickets(1000, seed=1)
    params = tr.init_params(seed=0)
    run = tr.train(params, tokens, query_pos, labels, steps=200, probe=(test[0][:4], test[1][:4]))
    again = tr.train(params, tokens, query_pos, labels, steps=200)
    assert np.array_equal(run.losses, again.losses)
    assert run.losses.shape == (201,) and run.losses[-1] < 0.05 < run.losses[0]
    assert tr.accuracy(run.params, *test) > 0.98
    control = tr.train(params, tokens, query_pos, labels, steps=200, uniform=True)
    assert tr.accuracy(control.params, *test, uniform=True) < 0.7
    assert np.array_equal(control.params["W_Q"], params["W_Q"])        # frozen: never updated
    assert run.snapshot_steps.tolist() == list(range(0, 201, 10))
    assert run.snapshots.shape == (21, 4, 6)
    # after training, "missing" looks at the position just before it
    before = test[1][:4] - 1
    assert np.all(run.snapshots[-1][np.arange(4), before] > 0.9)


def test_gradient_check_flags_a_softmax_backward_without_the_subtraction(small):
    """Notebook 06 leaves out "- sum(w * g)": the parameters behind the softmax fail, the others pass."""
    params, tokens, query_pos, labels = small
    errors = tr.gradient_check(params, tokens, query_pos, labels,
                               softmax_grad=lambda weights, grad_weights: weights * grad_weights)
    assert min(errors[name] for name in ("E", "P", "W_Q", "W_K")) > 0.5, errors
    assert max(errors[name] for name in ("W_V", "W_out", "b_out")) < 1e-6, errors
    right = tr.gradient_check(params, tokens, query_pos, labels, softmax_grad=tr.softmax_backward)
    assert max(right.values()) < 1e-6, right
