"""The lesson helpers (course_utils/lessons/, issue 25) answer the bad inputs a learner plausibly passes with a
TypeError or ValueError that names the argument (and, for an array, its shape): not numpy's own traceback from
deep inside, not a silent nonsense result, not minutes of work or swapping.

Each case runs under a time limit (10 s) and a memory limit (2 GiB more than the test process holds), so a helper
that would run for minutes or swap fails its case instead of hanging the run.
"""
import re
import resource
import signal
from contextlib import contextmanager

import numpy as np
import pytest

from course_utils.lessons import data, heads, influence, masking, measure, online_softmax, scaling
from course_utils.lessons import training as tr

NAN, INF = float("nan"), float("inf")


class TookTooLong(Exception):
    """Raised by the alarm: the call was still running after the time limit."""


@contextmanager
def bounded(seconds=10, extra_bytes=2 * 2**30):
    def on_alarm(signum, frame):
        raise TookTooLong(f"still running after {seconds} s")

    with open("/proc/self/status") as status:
        vm_kib = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = vm_kib * 1024 + extra_bytes
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    previous = signal.signal(signal.SIGALRM, on_alarm)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def names(message, *needles):
    """Whether every needle is in the message; a needle that is an identifier must appear as a whole word."""
    for needle in needles:
        if re.fullmatch(r"\w+", needle):
            if not re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", message):
                return False
        elif needle not in message:
            return False
    return True


# ---------------------------------------------------------------- small valid inputs the cases start from
W8 = np.eye(8)
SCORES = np.zeros((3, 4))
MASK = np.ones((3, 4), dtype=bool)
VALUES = np.array([[1.0, 0.0], [0.0, 1.0]])
P0 = tr.init_params()
TOKENS, POS, LABELS = tr.make_tickets(4, seed=0)
BAD_TOKENS = TOKENS.copy()
BAD_TOKENS[0, 0] = 99
MANY_TOKENS, MANY_POS, MANY_LABELS = np.tile(TOKENS, (25_000, 1)), np.tile(POS, 25_000), np.tile(LABELS, 25_000)
W_ROWS = np.full((2, 3), 1 / 3)


def _with(array, index, value):
    out = np.array(array, dtype=float)
    out[index] = value
    return out


def nothing():
    return None


CASES = {
    # ------------------------------------------------------------ data.py
    "embed a string": (lambda: data.embed("my charger"), ["tokens"]),
    "embed None": (lambda: data.embed(None), ["tokens"]),
    "embed a batch of tickets": (lambda: data.embed(data.TICKETS), ["tokens"]),
    "padded_batch length=2.5": (lambda: data.padded_batch(length=2.5), ["length"]),
    "padded_batch length=0": (lambda: data.padded_batch(length=0), ["length"]),
    "padded_batch length=10**9": (lambda: data.padded_batch(length=10**9), ["length"]),
    "padded_batch pad_vector shape": (lambda: data.padded_batch(pad_vector=[1.0, 2.0]), ["pad_vector", "(2,)"]),
    "padded_batch pad_vector NaN": (lambda: data.padded_batch(pad_vector=[NAN, 0, 0, 0]), ["pad_vector"]),
    "padded_batch one ticket": (lambda: data.padded_batch(data.TICKET), ["tickets"]),
    "padded_batch None": (lambda: data.padded_batch(None), ["tickets"]),
    "padded_batch a string": (lambda: data.padded_batch("my charger"), ["tickets"]),
    "wide_embeddings d_model=2.5": (lambda: data.wide_embeddings(d_model=2.5), ["d_model"]),
    "wide_embeddings d_model=10**9": (lambda: data.wide_embeddings(d_model=10**9), ["d_model"]),
    "wide_embeddings seed=-1": (lambda: data.wide_embeddings(seed=-1), ["seed"]),
    "embed_wide d_model=0": (lambda: data.embed_wide(data.TICKET, d_model=0), ["d_model"]),
    "embed_wide None": (lambda: data.embed_wide(None), ["tokens"]),
    "padded_batch_wide d_model=2.5": (lambda: data.padded_batch_wide(d_model=2.5), ["d_model"]),
    "padded_batch_wide one ticket": (lambda: data.padded_batch_wide(data.TICKET), ["tickets"]),
    "padded_batch_wide length=10**9": (lambda: data.padded_batch_wide(length=10**9), ["length"]),
    "stand_in_projections count=2.5": (lambda: data.stand_in_projections(2.5, 4), ["count"]),
    "stand_in_projections d_model=0": (lambda: data.stand_in_projections(3, 0), ["d_model"]),
    "stand_in_projections scale=NaN": (lambda: data.stand_in_projections(3, 4, scale=NAN), ["scale"]),
    "stand_in_projections count=10**9": (lambda: data.stand_in_projections(10**9, 8), ["count"]),
    "stand_in_projections count*d_model**2": (lambda: data.stand_in_projections(64, 2048), ["count", "d_model"]),
    "stand_in_projections d_model=10**6": (lambda: data.stand_in_projections(3, 10**6), ["d_model"]),
    "random_projections d_model=True": (lambda: data.random_projections(d_model=True), ["d_model"]),
    "random_projections seed=2.5": (lambda: data.random_projections(seed=2.5), ["seed"]),
    # ------------------------------------------------------------ heads.py
    "head_columns head=2.5": (lambda: heads.head_columns(2.5, 2, 8), ["head"]),
    "head_columns num_heads=3": (lambda: heads.head_columns(0, 3, 8), ["num_heads"]),
    "head_columns head out of range": (lambda: heads.head_columns(2, 2, 8), ["head"]),
    "permute_heads order of floats": (lambda: heads.permute_heads(W8, W8, W8, W8, 2, [0.5, 1.5]), ["order"]),
    "permute_heads order a string": (lambda: heads.permute_heads(W8, W8, W8, W8, 2, "10"), ["order"]),
    "permute_heads order repeats": (lambda: heads.permute_heads(W8, W8, W8, W8, 2, [0, 0]), ["order"]),
    "permute_heads w_q shape": (lambda: heads.permute_heads(np.ones((8, 6)), W8, W8, W8, 2, [1, 0]), ["w_q", "(8, 6)"]),
    "permute_heads num_heads=3": (lambda: heads.permute_heads(W8, W8, W8, W8, 3, [0, 1, 2]), ["num_heads"]),
    "permute_heads w_v NaN": (lambda: heads.permute_heads(W8, W8, _with(W8, (0, 0), NAN), W8, 2, [1, 0]), ["w_v"]),
    "pattern_scores 1-D": (lambda: heads.pattern_scores(np.ones(4)), ["weights", "(4,)"]),
    "pattern_scores not square": (lambda: heads.pattern_scores(np.ones((2, 3))), ["weights", "(2, 3)"]),
    "pattern_scores NaN": (lambda: heads.pattern_scores(_with(np.eye(3), (0, 0), NAN)), ["weights"]),
    # ------------------------------------------------------------ influence.py
    "contributions values T": (lambda: influence.contributions([0.5, 0.5], [[1.0, 0.0]]), ["values", "(1, 2)"]),
    "contributions weights 2-D": (lambda: influence.contributions([[0.5, 0.5]], VALUES), ["weights", "(1, 2)"]),
    "contributions NaN": (lambda: influence.contributions([NAN, 1.0], VALUES), ["weights"]),
    "removal_outputs values 1-D": (lambda: influence.removal_outputs([1, 2, 3], [1, 2, 3]), ["values", "(3,)"]),
    "removal_effects +inf": (lambda: influence.removal_effects([1.0, INF], VALUES), ["scores"]),
    "removal_effects a string": (lambda: influence.removal_effects("ab", VALUES), ["scores"]),
    # ------------------------------------------------------------ masking.py
    "mask_layout length=2.5": (lambda: masking.mask_layout(2.5, 1, False), ["length"]),
    "mask_layout padding=-1": (lambda: masking.mask_layout(3, -1, False), ["padding"]),
    "mask_layout length a string": (lambda: masking.mask_layout("3", 1, False), ["length"]),
    "mask_layout causal a string": (lambda: masking.mask_layout(3, 1, "yes"), ["causal"]),
    "mask_layout side unknown": (lambda: masking.mask_layout(3, 1, False, side="top"), ["side"]),
    "mask_layout length=10**9": (lambda: masking.mask_layout(10**9, 0, False), ["length"]),
    "masked_weights mask shape": (lambda: masking.masked_weights(SCORES, np.ones((3, 5), bool), "before"), ["mask", "(3, 5)"]),
    "masked_weights scores NaN": (lambda: masking.masked_weights(_with(SCORES, (0, 0), NAN), MASK, "before"), ["scores"]),
    "masked_weights method unknown": (lambda: masking.masked_weights(SCORES, MASK, "after"), ["method"]),
    "masked_weights float mask": (
        lambda: masking.masked_weights(SCORES, np.where(np.tril(MASK), 0.0, -np.inf), "before"), ["mask"]),
    "masked_weights scores a string": (lambda: masking.masked_weights("abc", MASK, "before"), ["scores"]),
    # ------------------------------------------------------------ measure.py
    "time_call repeats=0": (lambda: measure.time_call(nothing, repeats=0), ["repeats"]),
    "time_call repeats=-3": (lambda: measure.time_call(nothing, repeats=-3), ["repeats"]),
    "time_call repeats=2.5": (lambda: measure.time_call(nothing, repeats=2.5), ["repeats"]),
    "time_call repeats=10**9": (lambda: measure.time_call(nothing, repeats=10**9), ["repeats"]),
    "time_call fn=None": (lambda: measure.time_call(None), ["fn"]),
    "time_call warmup a string": (lambda: measure.time_call(nothing, warmup="no"), ["warmup"]),
    "peak_bytes fn=3": (lambda: measure.peak_bytes(3), ["fn"]),
    # ------------------------------------------------------------ online_softmax.py
    "online_states block_size=2.5": (lambda: online_softmax.online_states(data.ONLINE_SCORES, 2.5), ["block_size"]),
    "online_states block_size=0": (lambda: online_softmax.online_states(data.ONLINE_SCORES, 0), ["block_size"]),
    "online_states scores 2-D": (lambda: online_softmax.online_states(np.ones((2, 3)), 2), ["scores", "(2, 3)"]),
    "online_states NaN": (lambda: online_softmax.online_states([1.0, NAN], 1), ["scores"]),
    # ------------------------------------------------------------ scaling.py
    "dot_product_std d_k=2.5": (lambda: scaling.dot_product_std([4, 2.5]), ["d_k"]),
    "dot_product_std None": (lambda: scaling.dot_product_std(None), ["d_k_values"]),
    "dot_product_std n_pairs=0": (lambda: scaling.dot_product_std([4], n_pairs=0), ["n_pairs"]),
    "dot_product_std n_pairs=10**9": (lambda: scaling.dot_product_std([4], n_pairs=10**9), ["n_pairs"]),
    "dot_product_std 6e9 numbers": (lambda: scaling.dot_product_std([1024, 2048], n_pairs=10**6), ["n_pairs"]),
    "dot_product_std d_k=10**9": (lambda: scaling.dot_product_std([10**9], n_pairs=10), ["d_k"]),
    "dot_product_std seed=-1": (lambda: scaling.dot_product_std([4], seed=-1), ["seed"]),
    "entropy NaN": (lambda: scaling.entropy([0.5, NAN]), ["weights"]),
    "entropy negative": (lambda: scaling.entropy([1.5, -0.5]), ["weights"]),
    "entropy axis=1.5": (lambda: scaling.entropy([[0.5, 0.5]], axis=1.5), ["axis"]),
    "entropy axis out of range": (lambda: scaling.entropy([0.5, 0.5], axis=2), ["axis", "(2,)"]),
    "query_and_keys d_k=2.5": (lambda: scaling.query_and_keys(2.5), ["d_k"]),
    "query_and_keys d_k > max_d_k": (lambda: scaling.query_and_keys(2000), ["max_d_k"]),
    "query_and_keys num_keys=0": (lambda: scaling.query_and_keys(4, num_keys=0), ["num_keys"]),
    "query_and_keys num_keys=10**9": (lambda: scaling.query_and_keys(4, num_keys=10**9), ["num_keys"]),
    "query_and_keys max_d_k=10**9": (lambda: scaling.query_and_keys(4, max_d_k=10**9), ["max_d_k"]),
    "row_weights q 2-D": (lambda: scaling.row_weights(np.ones((1, 4)), np.ones((3, 4))), ["q", "(1, 4)"]),
    "row_weights k d_k": (lambda: scaling.row_weights(np.ones(4), np.ones((3, 5))), ["k", "(3, 5)"]),
    "row_weights scaled a string": (lambda: scaling.row_weights(np.ones(4), np.ones((3, 4)), scaled="no"), ["scaled"]),
    "saturation_stats n_rows=2.5": (lambda: scaling.saturation_stats([4], n_rows=2.5), ["n_rows"]),
    "saturation_stats n_rows=10**9": (lambda: scaling.saturation_stats([4], n_rows=10**9), ["n_rows"]),
    "saturation_stats num_keys=10**9": (lambda: scaling.saturation_stats([4], num_keys=10**9), ["num_keys"]),
    "saturation_stats 9e9 numbers": (lambda: scaling.saturation_stats([1024], n_rows=10**6), ["n_rows"]),
    "saturation_stats empty": (lambda: scaling.saturation_stats([]), ["d_k_values"]),
    # ------------------------------------------------------------ training.py
    "make_tickets n=2.5": (lambda: tr.make_tickets(2.5), ["n"]),
    "make_tickets n=0": (lambda: tr.make_tickets(0), ["n"]),
    "make_tickets n=True": (lambda: tr.make_tickets(True), ["n"]),
    "make_tickets n a string": (lambda: tr.make_tickets("ten"), ["n"]),
    "make_tickets length=3.5": (lambda: tr.make_tickets(10, length=3.5), ["length"]),
    "make_tickets length=2": (lambda: tr.make_tickets(10, length=2), ["length"]),
    "make_tickets n=10**9": (lambda: tr.make_tickets(10**9), ["n"]),
    "make_tickets n*length=10**8": (lambda: tr.make_tickets(10**6, length=100), ["n", "length"]),
    "make_tickets seed=-1": (lambda: tr.make_tickets(10, seed=-1), ["seed"]),
    "ticket_words id 99": (lambda: tr.ticket_words([0, 99]), ["tokens"]),
    "ticket_words float ids": (lambda: tr.ticket_words([0.5, 1.0]), ["tokens"]),
    "ticket_words id -1": (lambda: tr.ticket_words([-1]), ["tokens"]),
    "init_params d_model=2.5": (lambda: tr.init_params(d_model=2.5), ["d_model"]),
    "init_params d_k=0": (lambda: tr.init_params(d_k=0), ["d_k"]),
    "init_params length=-3": (lambda: tr.init_params(length=-3), ["length"]),
    "init_params d_model=10**9": (lambda: tr.init_params(d_model=10**9), ["d_model"]),
    "init_params scale=NaN": (lambda: tr.init_params(scale=NAN), ["scale"]),
    "init_params scale=-1": (lambda: tr.init_params(scale=-1.0), ["scale"]),
    "forward float tokens": (lambda: tr.forward(P0, TOKENS + 0.5, POS), ["tokens"]),
    "forward token id 99": (lambda: tr.forward(P0, BAD_TOKENS, POS), ["tokens"]),
    "forward query_pos=-1": (lambda: tr.forward(P0, TOKENS, np.full(4, -1)), ["query_pos"]),
    "forward query_pos=T": (lambda: tr.forward(P0, TOKENS, np.full(4, 6)), ["query_pos"]),
    "forward params empty": (lambda: tr.forward({}, TOKENS, POS), ["params"]),
    "forward uniform a string": (lambda: tr.forward(P0, TOKENS, POS, uniform="no"), ["uniform"]),
    "forward tokens 1-D": (lambda: tr.forward(P0, TOKENS[0], POS), ["tokens", "(6,)"]),
    "loss_and_grads label 3": (lambda: tr.loss_and_grads(P0, TOKENS, POS, np.full(4, 3)), ["labels"]),
    "loss_and_grads labels shape": (lambda: tr.loss_and_grads(P0, TOKENS, POS, LABELS[:2]), ["labels", "(2,)"]),
    "accuracy labels shape": (lambda: tr.accuracy(P0, TOKENS, POS, LABELS[:2]), ["labels", "(2,)"]),
    "softmax_backward shapes": (lambda: tr.softmax_backward(W_ROWS, np.ones((2, 4))), ["grad_weights", "(2, 4)"]),
    "softmax_backward NaN": (lambda: tr.softmax_backward([NAN, 1.0], [1.0, 1.0]), ["weights"]),
    "softmax_backward a string": (lambda: tr.softmax_backward("abc", [1.0, 2.0, 3.0]), ["weights"]),
    "grad_scores v shape": (lambda: tr.grad_scores(W_ROWS, np.ones((4, 2)), np.ones((2, 2))), ["v", "(4, 2)"]),
    "grad_scores NaN": (lambda: tr.grad_scores(W_ROWS, np.ones((3, 2)), _with(np.ones((2, 2)), (0, 0), NAN)),
                        ["grad_output"]),
    "train steps=-3": (lambda: tr.train(P0, TOKENS, POS, LABELS, steps=-3), ["steps"]),
    "train steps=2.5": (lambda: tr.train(P0, TOKENS, POS, LABELS, steps=2.5), ["steps"]),
    "train steps=10**9": (lambda: tr.train(P0, TOKENS, POS, LABELS, steps=10**9), ["steps"]),
    "train 1,000 steps on 100,000 tickets": (lambda: tr.train(P0, MANY_TOKENS, MANY_POS, MANY_LABELS, steps=1000),
                                             ["steps"]),
    "train lr=-0.1": (lambda: tr.train(P0, TOKENS, POS, LABELS, steps=2, lr=-0.1), ["lr"]),
    "train lr=NaN": (lambda: tr.train(P0, TOKENS, POS, LABELS, steps=2, lr=NAN), ["lr"]),
    "train snapshot_every=0": (lambda: tr.train(P0, TOKENS, POS, LABELS, steps=2, probe=(TOKENS, POS), snapshot_every=0),
                               ["snapshot_every"]),
    "train snapshot_every=2.5": (
        lambda: tr.train(P0, TOKENS, POS, LABELS, steps=2, probe=(TOKENS, POS), snapshot_every=2.5), ["snapshot_every"]),
    "numerical_gradients eps=0": (lambda: tr.numerical_gradients(P0, TOKENS, POS, LABELS, eps=0.0), ["eps"]),
    "gradient_check eps=NaN": (lambda: tr.gradient_check(P0, TOKENS, POS, LABELS, eps=NAN), ["eps"]),
    "gradient_check 100,000 tickets": (lambda: tr.gradient_check(P0, MANY_TOKENS, MANY_POS, MANY_LABELS), ["tokens"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_refused_naming_the_argument(case):
    call, needles = CASES[case]
    with bounded(), pytest.raises((TypeError, ValueError)) as info:
        call()
    message = str(info.value)
    assert names(message, *needles), f"{case}: the message names none of {needles}: {message!r}"


def test_valid_edge_inputs_are_still_taken():
    """The checks refuse nonsense only: these small or unusual but meaningful inputs still work as before."""
    scores = np.arange(6.0).reshape(2, 3)
    assert np.array_equal(masking.masked_weights(scores, np.array([[1, 1, 0], [1, 1, 1]]), "zero"),
                          masking.masked_weights(scores, np.array([[True, True, False], [True] * 3]), "zero"))
    assert masking.masked_weights(np.float32(scores), np.ones(3, bool), "before").dtype == np.float64
    mask, real = masking.mask_layout(np.int64(2), 0, np.bool_(True))
    assert mask.shape == (2, 2) and real.all()
    assert measure.time_call(nothing, repeats=1, warmup=False)[0] >= 0.0
    run = tr.train(P0, TOKENS, POS, LABELS, steps=0)  # no step: the loss before training
    assert run.losses.shape == (1,)
    assert tr.ticket_words([]) == () and tr.ticket_words(np.array([[0, 3]])) == ("charger", "missing")
    assert heads.permute_heads(W8, W8, W8, W8, 2, np.array([1, 0]))[0].shape == (8, 8)
    assert data.padded_batch([[], ["my"]])[1].tolist() == [0, 1]
    assert scaling.entropy([[0.5, 0.5]], axis=np.int64(0)).shape == (2,)
    assert scaling.row_weights(np.ones(4), np.ones((3, 4)), scaled=np.bool_(False))[0].shape == (3,)
