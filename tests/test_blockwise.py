"""blockwise_attention (online softmax over blocks) equals the reference scaled_dot_product_attention."""
import re

import numpy as np
import pytest
from alone import run_alone
from hypothesis import given, settings
from hypothesis import strategies as st

import course_utils as cu
from course_utils.blockwise import blockwise_attention, online_softmax_update


def reference(q, k, v, mask=None, **kw):
    return cu.scaled_dot_product_attention(q, k, v, mask, **kw)[0]


def qkv(shape_q, t_k, d_v=None, seed=0, dtype=float):
    rng = np.random.default_rng(seed)
    *lead, t_q, d_k = shape_q
    d_v = d_k if d_v is None else d_v
    q = rng.normal(size=shape_q).astype(dtype)
    k = rng.normal(size=(*lead, t_k, d_k)).astype(dtype)
    v = rng.normal(size=(*lead, t_k, d_v)).astype(dtype)
    return q, k, v


def test_exported_from_course_utils():
    assert cu.blockwise_attention is blockwise_attention
    assert "blockwise_attention" in cu.__all__


@pytest.mark.parametrize("shape_q, t_k", [
    ((1, 1), 1), ((5, 3), 5), ((7, 4), 13), ((13, 4), 7), ((2, 9, 8), 9), ((2, 3, 10, 4), 17),
])
@pytest.mark.parametrize("block_size", [1, 2, 3, 4, 7, 16, 100, (1, 5), (6, 2)])
def test_equals_reference(shape_q, t_k, block_size):
    q, k, v = qkv(shape_q, t_k, d_v=3)
    np.testing.assert_allclose(blockwise_attention(q, k, v, block_size), reference(q, k, v),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("block_size", [1, 3, 4, (5, 2)])
def test_masks(block_size):
    q, k, v = qkv((2, 3, 11, 4), 11)
    rng = np.random.default_rng(1)
    lengths = [11, 6]
    padding = cu.padding_mask(lengths, 11)[:, None, None, :]  # (2, 1, 1, 11): batch, head, query, key
    masks = {
        "causal": cu.causal_mask(11),
        "padding": padding,
        "causal and padding": cu.causal_mask(11) & padding,
        "random bool": rng.random((2, 3, 11, 11)) > 0.5,
        "float bias": rng.normal(size=(11, 11)),
        "float -inf": np.where(cu.causal_mask(11), 0.0, -np.inf),
        "key vector": rng.random(11) > 0.3,
        "query column": np.array([True] * 5 + [False] * 6)[:, None],
        "scalar": np.array(True),
    }
    for name, mask in masks.items():
        np.testing.assert_allclose(blockwise_attention(q, k, v, block_size, mask), reference(q, k, v, mask),
                                   rtol=1e-12, atol=1e-12, err_msg=name)


def test_rows_with_no_permitted_key_are_zeros():
    q, k, v = qkv((6, 4), 9)
    mask = np.ones((6, 9), bool)
    mask[[0, 3]] = False  # rows 0 and 3: no permitted key
    mask[1, :5] = False  # row 1: only keys of the second block (block 4 -> keys 4..8 partly)
    with np.errstate(all="raise"):  # no warning, no NaN
        out = blockwise_attention(q, k, v, 4, mask)
    assert np.array_equal(out[[0, 3]], np.zeros((2, 4)))
    np.testing.assert_allclose(out, reference(q, k, v, mask), atol=1e-12)
    all_inf = np.full((6, 9), -np.inf)
    assert np.array_equal(blockwise_attention(q, k, v, 2, all_inf), np.zeros((6, 4)))


def test_mask_adds_leading_dims():
    q, k, v = qkv((5, 4), 5)
    mask = np.random.default_rng(2).random((3, 5, 5)) > 0.4
    out = blockwise_attention(q, k, v, 2, mask)
    assert out.shape == (3, 5, 4)
    np.testing.assert_allclose(out, reference(q, k, v, mask), atol=1e-12)


def test_broadcast_leading_dims():
    rng = np.random.default_rng(3)
    q = rng.normal(size=(2, 1, 5, 4))
    k, v = rng.normal(size=(3, 7, 4)), rng.normal(size=(3, 7, 2))
    out = blockwise_attention(q, k, v, 3)
    assert out.shape == (2, 3, 5, 2)
    np.testing.assert_allclose(out, reference(q, k, v), atol=1e-12)


def test_large_scores_are_stable():
    q, k, v = qkv((6, 4), 10)
    with np.errstate(all="raise"):
        out = blockwise_attention(q * 30, k * 30, v, 3)
    np.testing.assert_allclose(out, reference(q * 30, k * 30, v), atol=1e-10)


def test_scale_and_dtypes():
    q, k, v = qkv((8, 4), 8, dtype=np.float32)
    out = blockwise_attention(q, k, v, 3)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, reference(q, k, v), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(blockwise_attention(q, k, v, 3, scale=0.1), reference(q, k, v, scale=0.1),
                               rtol=1e-5, atol=1e-5)
    assert blockwise_attention(q.astype(float), k, v, 3).dtype == np.float64


def test_errors_match_the_reference():
    q, k, v = qkv((3, 4), 3)
    with pytest.raises(ValueError, match=re.escape("k has d_k=5 but q has d_k=4")):
        blockwise_attention(q, np.zeros((3, 5)), v, 2)
    with pytest.raises(ValueError, match=re.escape("v has T_k=4 rows but k has T_k=3")):
        blockwise_attention(q, k, np.zeros((4, 4)), 2)
    with pytest.raises(ValueError, match="q must have at least 2 dimensions"):
        blockwise_attention(np.zeros(4), k, v, 2)
    with pytest.raises(TypeError, match="mask has integer dtype"):
        blockwise_attention(q, k, v, 2, np.ones((3, 3), int))
    with pytest.raises(ValueError, match="does not broadcast to the scores shape"):
        blockwise_attention(q, k, v, 2, np.ones((4, 3), bool))
    with pytest.raises(ValueError, match=r"the scores q @ k\^T \* scale overflowed"):
        blockwise_attention(q * 1e200, k * 1e200, v, 2)
    with pytest.raises(ValueError, match="contains NaN"):
        blockwise_attention(q * np.nan, k, v, 2)
    with pytest.raises(TypeError, match="scale must be a real number"):
        blockwise_attention(q, k, v, 2, scale="2")


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-1, ValueError), (2.0, TypeError), (True, TypeError),
                                        ((1, 2, 3), ValueError), ((2, 0), ValueError)])
def test_bad_block_size(bad, error):
    q, k, v = qkv((3, 4), 3)
    with pytest.raises(error, match="block_size"):
        blockwise_attention(q, k, v, bad)


def test_online_update_matches_softmax_over_all_blocks():
    rng = np.random.default_rng(4)
    scores, values = rng.normal(size=10) * 3, rng.normal(size=(10, 2))
    m, l, o = np.array([-np.inf]), np.array([0.0]), np.zeros(2)
    for j in range(0, 10, 3):
        m, l, o = online_softmax_update(m, l, o, scores[j:j + 3], values[j:j + 3])
    assert m[0] == scores.max()
    np.testing.assert_allclose(l[0], np.exp(scores - scores.max()).sum())
    np.testing.assert_allclose(o / l, cu.softmax(scores) @ values)


M, L, O = np.array([-np.inf]), np.array([0.0]), np.zeros(2)  # the start of one query row with d_v = 2
S, V = np.array([1.0, 2.0, 0.5]), np.ones((3, 2))  # a block of B = 3 keys


@pytest.mark.parametrize("args, words", [
    # Issue 25: NaN or +inf gave NaN silently; wrong shapes gave numpy's own messages (or a wrong answer).
    ((M, L, O, np.array([np.nan, 1.0, 0.0]), V), "scores_block contains NaN"),
    ((M, L, O, np.array([np.inf, 1.0, 0.0]), V), "scores_block contains +inf"),
    ((M, L, O, S, np.full((3, 2), np.nan)), "v_block contains NaN"),
    ((np.array([np.nan]), L, O, S, V), "m contains NaN"),
    ((np.array([np.inf]), L, O, S, V), "m contains +inf"),
    ((M, np.array([np.inf]), O, S, V), "l contains +inf"),
    ((M, np.array([-1.0]), O, S, V), "l is a sum of exponentials"),
    ((M, L, np.array([np.nan, 0.0]), S, V), "o contains NaN"),
    ((np.array(-np.inf), L, O, S, V), "m and l must both have shape (..., 1)"),
    ((np.full((1, 2), -np.inf), L, O, S, V), "m and l must both have shape (..., 1)"),
    ((M, np.zeros((1, 1)), O, S, V), "m and l must both have shape (..., 1)"),
    ((M, L, np.zeros((2, 2)), S, V), "o (..., d_v) and scores_block (..., B)"),
    ((M, L, O, np.ones((2, 3)), V), "o (..., d_v) and scores_block (..., B)"),
    ((M, L, O, S, np.ones((4, 2))), "v_block must have shape (..., B, d_v)"),
    ((M, L, O, S, np.ones((3, 5))), "v_block must have shape (..., B, d_v)"),
    ((M, L, O, S, np.ones(3)), "v_block must have shape (..., B, d_v)"),
    ((M, L, O, S, V.T), "v_block must have shape (..., B, d_v)"),
    ((M, L, O, ["a", "b", "c"], V), "scores_block must hold real numbers"),
])
def test_the_online_update_refuses_bad_inputs_naming_them(args, words):
    with pytest.raises((ValueError, TypeError)) as refused:
        online_softmax_update(*args)
    assert words in str(refused.value)
    if "shape" in words:
        assert "scores_block (" in str(refused.value), "the message gives every argument's shape"


def test_the_online_update_takes_every_score_masked_and_float32():
    m, l, o = online_softmax_update(M, L, O, np.full(3, -np.inf), V)  # no permitted key yet: nothing changes
    assert m[0] == -np.inf and l[0] == 0 and not o.any()
    m, l, o = online_softmax_update(M.astype(np.float32), L.astype(np.float32), O.astype(np.float32),
                                    S.astype(np.float32), V.astype(np.float32))
    assert o.dtype == np.float32 and np.isclose(l[0], np.exp(S - 2).sum())


@pytest.mark.parametrize("block_size, error", [(0, ValueError), (2.0, TypeError), (True, TypeError)])
def test_the_online_states_refuse_a_block_size_that_is_not_a_positive_int(block_size, error):
    from course_utils.lessons.online_softmax import online_states

    with pytest.raises(error, match="block_size"):
        online_states([1.0, 2.0], block_size)


#: Run alone (tests/alone.py): for each length, tracemalloc's peak during one call of blockwise attention (q, k, v
#: and the mask made before) minus the bytes of its (t, d) output, after a round of calls that warms numpy up.
PER_STEP = """
import json, tracemalloc
import numpy as np
import course_utils as cu
lengths, block_size, d, masked = {lengths!r}, {block_size!r}, 16, {masked!r}

def peak_minus_output(t):
    q, k, v = np.random.default_rng(t).normal(size=(3, t, d))
    mask = cu.causal_mask(t) if masked else None
    tracemalloc.start()
    try:
        output = cu.blockwise_attention(q, k, v, block_size, mask)
        return tracemalloc.get_traced_memory()[1] - output.nbytes
    finally:
        tracemalloc.stop()

for t in lengths:  # warm-up
    peak_minus_output(t)
print(json.dumps([peak_minus_output(t) for t in lengths]))
"""


def per_step_bytes(lengths, block_size, masked=False):
    return run_alone(PER_STEP.format(lengths=tuple(lengths), block_size=block_size, masked=masked))


@pytest.mark.parametrize("block_size", [64, (32, 128)])
def test_peak_memory_is_the_output_and_the_same_few_tiles_at_every_length(block_size):
    """Blockwise attention's peak grows like T: it is the (T, d) output plus what one step holds (one tile of
    scores, a few arrays of its size, the running m, l, o of one block of queries), the same bytes at every T.
    Deterministic: one thread allocates the same arrays in the same order at every call. What differs is small and
    has nothing to do with T: the first calls of a process allocate what numpy and Python set up on first use (1.2 MB
    in the very first, then a few KiB: a round of calls first warms up), and Python's ints for the block bounds above
    256 are objects of their own (a few hundred bytes). Measured warm: the same bytes within 128 at every T."""
    block_q, block_k = (block_size, block_size) if isinstance(block_size, int) else block_size
    tile = block_q * block_k * 8
    per_step = per_step_bytes((256, 512, 2048), block_size)
    assert max(per_step) - min(per_step) < tile / 4, per_step  # the same at 2048 as at 256 (T^2 would add MiB)
    assert all(tile < step < 6 * tile for step in per_step), (per_step, tile)  # a few tiles, never a T x T array
    assert max(per_step) + 2048 * 16 * 8 < 2048 * 2048 * 8 / 50  # with the output: far below the full scores (32 MiB)


def test_peak_memory_with_a_mask_is_still_the_same_at_every_length():
    """A mask adds arrays of a tile's size (its block of the mask, the masked scores), not of the full T x T."""
    per_step = per_step_bytes((256, 1024), 64, masked=True)
    assert max(per_step) - min(per_step) < 64 * 64 * 8 / 4, per_step
    assert max(per_step) < 8 * 64 * 64 * 8, per_step  # a few tiles of 64 x 64


@settings(max_examples=40, derandomize=True, database=None, deadline=None)
@given(
    t_q=st.integers(1, 12), t_k=st.integers(1, 12), d_k=st.integers(1, 5), d_v=st.integers(1, 4),
    block_q=st.integers(1, 13), block_k=st.integers(1, 13), masked=st.booleans(), seed=st.integers(0, 2**16),
)
def test_property_equals_reference(t_q, t_k, d_k, d_v, block_q, block_k, masked, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(2, t_q, d_k)) * 3, rng.normal(size=(2, t_k, d_k)) * 3
    v = rng.normal(size=(2, t_k, d_v))
    mask = rng.random((2, t_q, t_k)) > 0.4 if masked else None
    np.testing.assert_allclose(blockwise_attention(q, k, v, (block_q, block_k), mask),
                               reference(q, k, v, mask), rtol=1e-10, atol=1e-12)


def test_default_block_size():
    """block_size may be left out (or None): DEFAULT_BLOCK_SIZE (notebook 07's 128), a block larger than T is all of T."""
    from course_utils.blockwise import DEFAULT_BLOCK_SIZE

    assert DEFAULT_BLOCK_SIZE == 128
    q, k, v = qkv((2, 3, 9, 4), 7)
    expected = reference(q, k, v)
    np.testing.assert_allclose(blockwise_attention(q, k, v), expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(blockwise_attention(q, k, v, None), expected, rtol=1e-12, atol=1e-12)
    mask = cu.causal_mask(9)[:, :7]
    np.testing.assert_allclose(blockwise_attention(q, k, v, mask=mask), reference(q, k, v, mask),
                               rtol=1e-12, atol=1e-12)


def test_default_blocks_span_several_tiles():
    """Longer than one default block in both directions, with a mask and uneven last blocks: the same numbers as
    the default block size given explicitly, and as the reference."""
    from course_utils.blockwise import DEFAULT_BLOCK_SIZE

    t_q, t_k = DEFAULT_BLOCK_SIZE * 2 + 3, DEFAULT_BLOCK_SIZE + 5
    q, k, v = qkv((t_q, 8), t_k)
    mask = np.random.default_rng(7).random((t_q, t_k)) > 0.5
    mask[0] = False  # a row with no permitted key
    default = blockwise_attention(q, k, v, mask=mask)
    np.testing.assert_array_equal(default, blockwise_attention(q, k, v, DEFAULT_BLOCK_SIZE, mask))
    np.testing.assert_allclose(default, reference(q, k, v, mask), rtol=1e-10, atol=1e-12)


def test_overflow_caught_in_float32_tiles():
    big = np.full((4, 3), 1e20, dtype=np.float32)  # q . k = 3e40 > float32's 3.4e38
    with pytest.raises(ValueError, match=r"the scores q @ k\^T \* scale overflowed"):
        blockwise_attention(big, big, big, 2, scale=1.0)


def test_inputs_unchanged_and_float16_mixed_dtypes():
    q, k, v = qkv((2, 6, 4), 6)
    copies = [x.copy() for x in (q, k, v)]
    blockwise_attention(q, k, v, (4, 4))
    assert all(np.array_equal(a, b) for a, b in zip(copies, (q, k, v)))
    out16 = blockwise_attention(q.astype(np.float16), k.astype(np.float16), v.astype(np.float16), 4)
    assert out16.dtype == np.float16
    np.testing.assert_allclose(out16, reference(q, k, v), atol=5e-3)
    mixed = blockwise_attention(q.astype(np.float32), k, v, 4)
    assert mixed.dtype == np.float64
    np.testing.assert_allclose(mixed, reference(q.astype(np.float32), k, v), rtol=1e-10, atol=1e-12)
