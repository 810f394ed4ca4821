"""Unit tests for course_utils.lessons.heads (notebook 04's numpy helpers)."""
import re

import numpy as np
import pytest

import course_utils as cu
from course_utils.lessons.data import (
    D_MODEL,
    EMBEDDINGS,
    PROJECTION_SCALE,
    TICKET,
    TICKETS,
    VOCABULARY,
    embed_wide,
    padded_batch_wide,
    random_projections,
    wide_embeddings,
)
from course_utils.lessons.heads import PATTERNS, head_columns, pattern_scores, permute_heads


# ---------------------------------------------------------------- embeddings
def test_vocabulary_is_the_toy_vocabulary_sorted():
    assert VOCABULARY == tuple(sorted(EMBEDDINGS))
    assert D_MODEL == 8


def test_wide_embeddings_are_the_seeded_table():
    table = np.random.default_rng(0).normal(size=(len(VOCABULARY), 8))
    emb = wide_embeddings()
    for token, row in zip(VOCABULARY, table):
        np.testing.assert_array_equal(emb[token], row)
    emb["my"][0] = 99.0  # a copy: the next call is unaffected
    assert wide_embeddings()["my"][0] != 99.0
    assert wide_embeddings(d_model=3, seed=1)["my"].shape == (3,)
    assert not np.allclose(wide_embeddings(seed=1)["my"], wide_embeddings()["my"])


def test_embed_wide_stacks_rows_and_same_token_same_vector():
    x = embed_wide(TICKET)
    assert x.shape == (5, 8)
    emb = wide_embeddings()
    for t, token in enumerate(TICKET):
        np.testing.assert_array_equal(x[t], emb[token])
    again = embed_wide(("charger", "my", "charger"))
    np.testing.assert_array_equal(again[0], again[2])
    assert embed_wide(()).shape == (0, 8)


def test_embed_wide_errors():
    with pytest.raises(KeyError, match=r"no embedding for \['laptop'\]"):
        embed_wide(("my", "laptop"))
    with pytest.raises(TypeError, match="not the string 'charger'"):
        embed_wide("charger")
    with pytest.raises(TypeError, match="d_model must be a positive int"):
        embed_wide(TICKET, d_model=8.0)
    with pytest.raises(ValueError, match="seed must be a non-negative int; got seed=-1"):
        embed_wide(TICKET, seed=-1)  # the same error as every seed of the package (_validate.check_seed)
    with pytest.raises(TypeError, match="seed must be a non-negative int"):
        embed_wide(TICKET, seed=1.0)


def test_padded_batch_wide_pads_at_the_end():
    x, lengths, tokens = padded_batch_wide()
    assert x.shape == (4, 6, 8)
    np.testing.assert_array_equal(lengths, [len(t) for t in TICKETS])
    for b, ticket in enumerate(TICKETS):
        np.testing.assert_array_equal(x[b, :len(ticket)], embed_wide(ticket))
        assert (x[b, len(ticket):] == 0).all()
        assert tokens[b] == list(ticket) + ["<pad>"] * (6 - len(ticket))
    pad = np.arange(8.0)
    x_other, _, _ = padded_batch_wide(pad_vector=pad, length=7)
    assert x_other.shape == (4, 7, 8)
    np.testing.assert_array_equal(x_other[3, 2:], np.tile(pad, (5, 1)))


def test_padded_batch_wide_errors():
    with pytest.raises(ValueError, match=r"length=3 is shorter than the longest ticket \(6 tokens\)"):
        padded_batch_wide(length=3)
    with pytest.raises(ValueError, match=re.escape("pad_vector must have shape (8,); got shape (4,)")):
        padded_batch_wide(pad_vector=np.zeros(4))
    with pytest.raises(ValueError, match="tickets is empty"):
        padded_batch_wide(tickets=())


# ---------------------------------------------------------------- projections
def test_random_projections_are_seeded_and_scaled():
    w = random_projections()
    assert w.shape == (4, 8, 8)
    np.testing.assert_array_equal(w, PROJECTION_SCALE * np.random.default_rng(0).normal(size=(4, 8, 8)))
    np.testing.assert_array_equal(random_projections(4, seed=3, scale=1.0),
                                  np.random.default_rng(3).normal(size=(4, 4, 4)))
    with pytest.raises(ValueError, match="scale must be a finite non-negative number"):
        random_projections(scale=-1.0)


def test_random_projection_scores_spread_about_eight_times_scale_squared():
    """The docstring's claim: the scores of a head have a standard deviation near 8 * 0.7**2 = 3.9."""
    x = embed_wide(VOCABULARY)  # (12, 8)
    spreads = []
    for seed in range(200):
        W_Q, W_K, _, _ = random_projections(seed=seed)
        for num_heads in (1, 4):
            q, k = cu.split_heads(x @ W_Q, num_heads), cu.split_heads(x @ W_K, num_heads)
            spreads.append((q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])).std())
    assert 3.0 < np.mean(spreads) < 4.8


def test_head_columns():
    assert head_columns(0, 4, 8) == slice(0, 2)
    assert head_columns(3, 4, 8) == slice(6, 8)
    assert head_columns(0, 1, 8) == slice(0, 8)
    assert head_columns(1, 2, 8) == slice(4, 8)
    with pytest.raises(ValueError, match="head=4 is out of range for num_heads=4"):
        head_columns(4, 4, 8)
    with pytest.raises(ValueError, match="d_model=8 is not divisible by num_heads=3"):
        head_columns(0, 3, 8)
    with pytest.raises(TypeError, match="head must be an int"):
        head_columns(1.0, 4, 8)


# ---------------------------------------------------------------- permute_heads
@pytest.mark.parametrize("num_heads, order", [(4, [2, 0, 3, 1]), (2, [1, 0]), (8, [7, 6, 5, 4, 3, 2, 1, 0]), (1, [0])])
def test_permute_heads_keeps_the_output_and_reorders_the_weights(num_heads, order):
    x = embed_wide(TICKET)
    ws = random_projections(seed=5)
    output, weights = cu.multi_head_attention(x, *ws, num_heads)
    new = permute_heads(*ws, num_heads, order)
    new_output, new_weights = cu.multi_head_attention(x, *new, num_heads)
    np.testing.assert_allclose(new_output, output, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(new_weights, weights[order])


def test_permute_heads_moves_column_and_row_blocks():
    w = np.arange(16.0).reshape(4, 4)
    w_q, w_k, w_v, w_o = permute_heads(w, w, w, w, 2, [1, 0])
    np.testing.assert_array_equal(w_q, w[:, [2, 3, 0, 1]])
    np.testing.assert_array_equal(w_o, w[[2, 3, 0, 1], :])


def test_permute_heads_errors():
    w = np.zeros((4, 4))
    with pytest.raises(ValueError, match=re.escape("order must be a permutation of range(2); got [0, 0]")):
        permute_heads(w, w, w, w, 2, [0, 0])
    with pytest.raises(ValueError, match="order must be a sequence of ints"):
        permute_heads(w, w, w, w, 2, None)
    message = "w_o must have shape (d_model, d_model) like w_q (4, 4); got w_o shape (4, 2)"
    with pytest.raises(ValueError, match=re.escape(message)):
        permute_heads(w, w, w, np.zeros((4, 2)), 2, [1, 0])
    with pytest.raises(ValueError, match="d_model=4 is not divisible by num_heads=3"):
        permute_heads(w, w, w, w, 3, [0, 1, 2])


# ---------------------------------------------------------------- pattern_scores
def test_pattern_scores_of_clear_patterns():
    T = 5
    eye = np.eye(T)
    previous = np.eye(T, k=-1)
    previous[0, 0] = 1.0
    column = np.zeros((T, T))
    column[:, 2] = 1.0
    uniform = np.full((T, T), 1 / T)
    stacked = np.stack([eye, previous, column, uniform])  # (4, T, T)
    scores = pattern_scores(stacked)
    assert set(scores) == set(PATTERNS)
    np.testing.assert_allclose(scores["itself"], [1.0, 0.2, 0.2, 0.2])
    np.testing.assert_allclose(scores["previous"], [0.0, 1.0, 0.25, 0.2])  # the column hits one sub-diagonal cell
    np.testing.assert_allclose(scores["one key"], [0.2, 0.4, 1.0, 0.2])


def test_pattern_scores_shapes_and_errors():
    assert pattern_scores(np.ones((1, 1)))["previous"] == 0.0
    assert pattern_scores(np.full((2, 3, 4, 4), 0.25))["itself"].shape == (2, 3)
    with pytest.raises(ValueError, match=re.escape("weights must be square, (..., T, T) with T > 0; got shape (2, 3)")):
        pattern_scores(np.ones((2, 3)))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        pattern_scores(np.ones(3))
