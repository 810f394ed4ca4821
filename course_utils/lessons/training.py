"""A tiny attention model trained by gradient descent in numpy (notebook 06).

The toy task: short support tickets in which exactly one item is "missing". Each ticket has
``length`` tokens: the word "missing" at a random position ``p`` (1 <= p < length), the missing
item ("charger", "cable" or "box") right before it at ``p - 1``, one *other* item somewhere else,
and function words elsewhere. The model must answer, from the "missing" token, which item is
missing. Both items are in the ticket, so the answer depends on *where* the other token is: a
bag of words (what uniform attention gives) cannot tell the two items apart.

The model (all float64):

    x     = E[tokens] + P[positions]                     (B, T, d)
    q     = x[b, p_b] @ W_Q                              (B, d_k)   the "missing" token's query
    k, v  = x @ W_K, x @ W_V                             (B, T, d_k)
    s     = (k @ q) / sqrt(d_k)                          (B, T)     its row of scores
    a     = softmax(s)                                   (B, T)     its attention weights
    h     = a @ v                                        (B, d_k)   its attention output
    logit = h @ W_out + b_out                            (B, C)     one logit per item
    loss  = mean cross-entropy

``loss_and_grads`` computes every gradient by hand (no autodiff), including the gradient through
the softmax (``softmax_backward``). ``uniform=True`` freezes the weights at 1/T (the control).
"""
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from course_utils._validate import as_float_array, check_positive_int, check_seed
from course_utils.softmax import softmax

__all__ = [
    "ITEMS", "FILLERS", "VOCAB", "QUERY_WORD", "PARAM_NAMES",
    "make_tickets", "ticket_words", "init_params", "forward", "loss_and_grads",
    "softmax_backward", "grad_scores", "accuracy", "train", "TrainingRun",
    "numerical_gradients", "gradient_check",
]

#: The answers (classes), in order: label 0 is "charger".
ITEMS = ("charger", "cable", "box")
#: Function words that fill the other positions.
FILLERS = ("my", "is", "the", "in", "please", "help")
#: The word whose row of attention the model reads out.
QUERY_WORD = "missing"
#: The vocabulary: items first (token id = label), then "missing", then the fillers.
VOCAB = ITEMS + (QUERY_WORD,) + FILLERS
_ID = {word: i for i, word in enumerate(VOCAB)}
#: The parameter names, in the order of ``init_params``.
PARAM_NAMES = ("E", "P", "W_Q", "W_K", "W_V", "W_out", "b_out")

# Limits far beyond the notebook's sizes (1,000 tickets of 6 tokens, d_model = d_k = 8, 200 steps, a gradient check
# on 8 tickets): past them a call would run for minutes or swap, so it is refused naming the argument and the limit.
_MAX_TICKETS = 1_000_000
_MAX_LENGTH = 10_000
_MAX_TOKENS = 10_000_000  # n * length of make_tickets
_MAX_WIDTH = 1024  # d_model, d_k
_MAX_STEPS = 10_000
_MAX_TICKET_STEPS = 10_000_000  # steps * B of train: about 40 s
_MAX_TICKET_LOSSES = 2_000_000  # 2 * (parameter entries) * B of numerical_gradients: about 6 s


def _check_real(value, name, *, positive):
    """``value`` as a float if it is a finite real number (> 0 if ``positive``, else >= 0), or raise naming it."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {value!r} of type {type(value).__name__}")
    if not np.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"{name} must be a finite {'positive' if positive else 'non-negative'} number; "
                         f"got {name}={value}")
    return float(value)


def _as_ids(values, name, upper, what):
    """``values`` as an integer ndarray with every entry in [0, upper), or an error naming ``name``."""
    arr = np.asarray(values)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold ints ({what}); got dtype {arr.dtype}, shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() >= upper):
        bad = arr[(arr < 0) | (arr >= upper)].flat[0]
        raise ValueError(f"{name} must hold {what}, 0 <= {name} < {upper}; got {bad} (shape {arr.shape})")
    return arr


def make_tickets(n, length=6, seed=0):
    """Generate ``n`` toy tickets for the "which item is missing?" task.

    Parameters
    ----------
    n : int
        Number of tickets (n >= 1).
    length : int
        Tokens per ticket, T >= 3.
    seed : int
        Seed of ``np.random.default_rng``: the same seed gives the same tickets.

    Returns
    -------
    tokens : ndarray of int, shape (n, T)
        Token ids into ``VOCAB``.
    query_pos : ndarray of int, shape (n,)
        Position of "missing" in each ticket (between 1 and T - 1).
    labels : ndarray of int, shape (n,)
        The missing item, an index into ``ITEMS`` (the token just before "missing").

    Raises
    ------
    TypeError
        If n, length or seed is not an int (2.5 and True are refused).
    ValueError
        If n < 1 or n > 1,000,000, length < 3 or length > 10,000, n * length > 10,000,000, or seed < 0.
    """
    n = check_positive_int(n, "n", at_most=_MAX_TICKETS)
    length = check_positive_int(length, "length", at_most=_MAX_LENGTH)
    if length < 3:
        raise ValueError(f"need n >= 1 and length >= 3; got n={n}, length={length}")
    if n * length > _MAX_TOKENS:
        raise ValueError(f"n * length = {n * length:,} tokens (n={n:,}, length={length:,}) is more than the limit "
                         f"{_MAX_TOKENS:,}")
    rng = np.random.default_rng(check_seed(seed))
    n, T = int(n), int(length)
    tokens = rng.integers(len(ITEMS) + 1, len(VOCAB), size=(n, T))  # fillers everywhere first
    query_pos = rng.integers(1, T, size=n)                           # where "missing" goes
    labels = rng.integers(0, len(ITEMS), size=n)                     # the missing item
    other = (labels + rng.integers(1, len(ITEMS), size=n)) % len(ITEMS)  # a different item
    for b in range(n):
        p = query_pos[b]
        tokens[b, p] = _ID[QUERY_WORD]
        tokens[b, p - 1] = labels[b]
        free = [t for t in range(T) if t not in (p - 1, p)]
        tokens[b, free[rng.integers(len(free))]] = other[b]
    return tokens, query_pos, labels


def ticket_words(tokens):
    """The words of one ticket, shape (T,) of ids -> tuple of T strings.

    Raises a TypeError if tokens does not hold ints, a ValueError if an id is not in [0, len(VOCAB)).
    """
    if np.size(tokens) == 0:
        return ()
    ids = _as_ids(tokens, "tokens", len(VOCAB), "token ids into VOCAB")
    return tuple(VOCAB[int(t)] for t in ids.reshape(-1))


def init_params(d_model=8, d_k=8, length=6, seed=0, scale=0.5):
    """Random initial parameters (float64), seeded.

    Parameters
    ----------
    d_model, d_k : int
        Embedding width and query/key/value width, each at most 1024.
    length : int
        Number of positions T (rows of P), at most 10,000.
    seed : int
    scale : float
        Standard deviation of the entries of E and P, finite and non-negative (W_Q, W_K, W_V, W_out have
        standard deviation 1 / sqrt of their input width).

    Returns
    -------
    dict
        ``E`` (len(VOCAB), d_model), ``P`` (T, d_model), ``W_Q``, ``W_K``, ``W_V`` (d_model, d_k),
        ``W_out`` (d_k, len(ITEMS)), ``b_out`` (len(ITEMS),).

    Raises
    ------
    TypeError
        If d_model, d_k, length or seed is not an int, or scale not a real number.
    ValueError
        If one of them is not positive (seed: negative) or over its limit, or scale is negative, NaN or inf.
    """
    d_model = check_positive_int(d_model, "d_model", at_most=_MAX_WIDTH)
    d_k = check_positive_int(d_k, "d_k", at_most=_MAX_WIDTH)
    length = check_positive_int(length, "length", at_most=_MAX_LENGTH)
    scale = _check_real(scale, "scale", positive=False)
    rng = np.random.default_rng(check_seed(seed))
    return {
        "E": rng.normal(0, scale, (len(VOCAB), d_model)),
        "P": rng.normal(0, scale, (length, d_model)),
        "W_Q": rng.normal(0, 1 / np.sqrt(d_model), (d_model, d_k)),
        "W_K": rng.normal(0, 1 / np.sqrt(d_model), (d_model, d_k)),
        "W_V": rng.normal(0, 1 / np.sqrt(d_model), (d_model, d_k)),
        "W_out": rng.normal(0, 1 / np.sqrt(d_k), (d_k, len(ITEMS))),
        "b_out": np.zeros(len(ITEMS)),
    }


def _check_params(params):
    """Raise naming params unless it is a dict with every entry of PARAM_NAMES, in shapes that fit together."""
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be the dict of init_params; got {type(params).__name__}")
    missing = [name for name in PARAM_NAMES if name not in params]
    if missing:
        raise ValueError(f"params has no {missing}; pass the dict of init_params (keys {list(PARAM_NAMES)})")
    shapes = {name: np.shape(params[name]) for name in PARAM_NAMES}
    d_model = shapes["E"][-1] if len(shapes["E"]) == 2 else -1
    T = shapes["P"][0] if len(shapes["P"]) == 2 else -1
    d_k = shapes["W_Q"][-1] if len(shapes["W_Q"]) == 2 else -1
    d_v = shapes["W_V"][-1] if len(shapes["W_V"]) == 2 else -1
    expected = {"E": (len(VOCAB), d_model), "P": (T, d_model), "W_Q": (d_model, d_k), "W_K": (d_model, d_k),
                "W_V": (d_model, d_v), "W_out": (d_v, len(ITEMS)), "b_out": (len(ITEMS),)}
    if any(shapes[name] != expected[name] for name in PARAM_NAMES):
        got = ", ".join(f"{name} {shapes[name]}" for name in PARAM_NAMES)
        raise ValueError(f"params' shapes do not fit together: {got}; init_params gives E (len(VOCAB), d_model), "
                         f"P (T, d_model), W_Q, W_K, W_V (d_model, d_k), W_out (d_k, len(ITEMS)), b_out (len(ITEMS),)")


def _check_batch(params, tokens, query_pos, uniform=False):
    if not isinstance(uniform, (bool, np.bool_)):
        raise TypeError(f"uniform must be True or False; got {uniform!r} of type {type(uniform).__name__}")
    _check_params(params)
    tokens, query_pos = np.asarray(tokens), np.asarray(query_pos)
    if tokens.ndim != 2 or query_pos.shape != tokens.shape[:1]:
        raise ValueError(f"tokens must have shape (B, T) and query_pos shape (B,); got {tokens.shape} "
                         f"and {query_pos.shape}")
    if tokens.shape[1] != params["P"].shape[0]:
        raise ValueError(f"tickets have T={tokens.shape[1]} tokens but P has shape {params['P'].shape}")
    tokens = _as_ids(tokens, "tokens", len(VOCAB), "token ids into VOCAB")
    query_pos = _as_ids(query_pos, "query_pos", tokens.shape[1], "positions in the tickets")
    return tokens, query_pos


def _check_labels(labels, B):
    labels = np.asarray(labels)
    if labels.shape != (B,):
        raise ValueError(f"labels must have shape (B,) = ({B},), one per ticket; got labels shape {labels.shape}")
    return _as_ids(labels, "labels", len(ITEMS), "indices into ITEMS")


def forward(params, tokens, query_pos, uniform=False):
    """Run the model on a batch.

    Parameters
    ----------
    params : dict
        As returned by ``init_params``.
    tokens : array of int, shape (B, T)
    query_pos : array of int, shape (B,)
    uniform : bool
        If True, the attention weights are frozen at 1/T (the control model).

    Returns
    -------
    logits : ndarray, shape (B, len(ITEMS))
    cache : dict
        The intermediate arrays (``x``, ``q``, ``k``, ``v``, ``weights`` (B, T), ``h``), for backward.

    Raises
    ------
    TypeError
        If params is not a dict, tokens or query_pos does not hold ints, or uniform is not a bool.
    ValueError
        If params lacks an entry or its shapes do not fit, tokens is not (B, T) with T = P's rows and ids in
        [0, len(VOCAB)), or query_pos is not (B,) with positions in [0, T).
    """
    tokens, query_pos = _check_batch(params, tokens, query_pos, uniform)
    B, T = tokens.shape
    rows = np.arange(B)
    x = params["E"][tokens] + params["P"][None, :, :]       # (B, T, d)
    x_q = x[rows, query_pos]                                 # (B, d)
    q = x_q @ params["W_Q"]                                  # (B, d_k)
    k = x @ params["W_K"]                                    # (B, T, d_k)
    v = x @ params["W_V"]                                    # (B, T, d_k)
    d_k = q.shape[-1]
    if uniform:
        weights = np.full((B, T), 1.0 / T)
    else:
        scores = np.einsum("btk,bk->bt", k, q) / np.sqrt(d_k)  # (B, T)
        weights = softmax(scores, axis=-1)
    h = np.einsum("bt,btk->bk", weights, v)                  # (B, d_k)
    logits = h @ params["W_out"] + params["b_out"]           # (B, C)
    cache = {"tokens": tokens, "query_pos": query_pos, "x": x, "x_q": x_q, "q": q, "k": k, "v": v,
             "weights": weights, "h": h}
    return logits, cache


def softmax_backward(weights, grad_weights):
    """Gradient through softmax: from dL/d(weights) to dL/d(scores), row by row.

    With ``w = softmax(s)`` along the last axis, ``dL/ds = w * (g - sum(w * g))`` where the sum runs
    over each row (this is the Jacobian ``diag(w) - w w^T`` times ``g``, without building it).

    Parameters
    ----------
    weights : ndarray, shape (..., T)
        Softmax outputs (each row sums to 1).
    grad_weights : ndarray, same shape
        dL/d(weights).

    Returns
    -------
    ndarray, same shape: dL/d(scores). Each row sums to 0.

    Raises
    ------
    ValueError
        If the shapes differ or an entry is NaN/inf.
    TypeError
        If an input is not real-valued.
    """
    weights = np.asarray(as_float_array(weights, "weights"), dtype=float)
    grad_weights = np.asarray(as_float_array(grad_weights, "grad_weights"), dtype=float)
    if weights.shape != grad_weights.shape:
        raise ValueError(f"weights and grad_weights must have the same shape; got {weights.shape} "
                         f"and {grad_weights.shape}")
    return weights * (grad_weights - np.sum(weights * grad_weights, axis=-1, keepdims=True))


def grad_scores(weights, v, grad_output):
    """Gradient of the loss with respect to the scores of attention rows.

    The rows' outputs are ``weights @ v``; given dL/d(output), returns dL/d(scores).

    Parameters
    ----------
    weights : ndarray, shape (n, T)
        Softmax weights of n query rows.
    v : ndarray, shape (T, d_v)
        Value vectors.
    grad_output : ndarray, shape (n, d_v)
        dL/d(output).

    Returns
    -------
    ndarray, shape (n, T)

    Raises
    ------
    ValueError
        If the shapes do not fit or an entry is NaN/inf.
    TypeError
        If an input is not real-valued.
    """
    weights, v, grad_output = (np.asarray(as_float_array(a, name), dtype=float)
                               for a, name in ((weights, "weights"), (v, "v"), (grad_output, "grad_output")))
    if weights.ndim != 2 or v.ndim != 2 or grad_output.shape != (weights.shape[0], v.shape[1]) \
            or v.shape[0] != weights.shape[1]:
        raise ValueError(f"expected weights (n, T), v (T, d_v), grad_output (n, d_v); got "
                         f"{weights.shape}, {v.shape}, {grad_output.shape}")
    grad_weights = grad_output @ v.T                          # (n, T)
    return softmax_backward(weights, grad_weights)


def loss_and_grads(params, tokens, query_pos, labels, uniform=False, *, softmax_grad=None):
    """Mean cross-entropy loss and its gradient with respect to every parameter, by hand.

    Parameters
    ----------
    params : dict
        As returned by ``init_params``.
    tokens : array of int, shape (B, T)
    query_pos : array of int, shape (B,)
    labels : array of int, shape (B,)
    uniform : bool
        Frozen uniform attention: then the gradients of W_Q and W_K are zero.
    softmax_grad : callable, optional
        ``softmax_grad(weights, grad_weights) -> grad_scores``, used instead of ``softmax_backward``
        (to see what a gradient check says about a wrong or a learner's version).

    Returns
    -------
    loss : float
    grads : dict
        Same keys and shapes as ``params``.

    Raises
    ------
    TypeError, ValueError
        As ``forward``, and if labels is not (B,) of ints in [0, len(ITEMS)).
    """
    logits, c = forward(params, tokens, query_pos, uniform)
    B, T = c["tokens"].shape
    labels = _check_labels(labels, B)
    rows = np.arange(B)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))  # (B, C)
    loss = -log_probs[rows, labels].mean()

    g_logits = np.exp(log_probs)
    g_logits[rows, labels] -= 1.0
    g_logits /= B                                            # (B, C)
    grads = {"W_out": c["h"].T @ g_logits, "b_out": g_logits.sum(axis=0)}
    g_h = g_logits @ params["W_out"].T                       # (B, d_k)
    g_v = c["weights"][:, :, None] * g_h[:, None, :]         # (B, T, d_k)
    g_x = g_v @ params["W_V"].T                              # (B, T, d)
    grads["W_V"] = np.einsum("btd,btk->dk", c["x"], g_v)
    if uniform:
        grads["W_Q"] = np.zeros_like(params["W_Q"])
        grads["W_K"] = np.zeros_like(params["W_K"])
    else:
        g_weights = np.einsum("bk,btk->bt", g_h, c["v"])     # (B, T)
        backward = softmax_backward if softmax_grad is None else softmax_grad
        g_scores = backward(c["weights"], g_weights) / np.sqrt(c["q"].shape[-1])
        g_q = np.einsum("bt,btk->bk", g_scores, c["k"])      # (B, d_k)
        g_k = g_scores[:, :, None] * c["q"][:, None, :]      # (B, T, d_k)
        grads["W_Q"] = c["x_q"].T @ g_q
        grads["W_K"] = np.einsum("btd,btk->dk", c["x"], g_k)
        g_x = g_x + g_k @ params["W_K"].T
        g_x[rows, c["query_pos"]] += g_q @ params["W_Q"].T
    grads["P"] = g_x.sum(axis=0)
    g_E = np.zeros_like(params["E"])
    np.add.at(g_E, c["tokens"].reshape(-1), g_x.reshape(-1, g_x.shape[-1]))
    grads["E"] = g_E
    return float(loss), {name: grads[name] for name in PARAM_NAMES}


def accuracy(params, tokens, query_pos, labels, uniform=False):
    """Fraction of tickets whose largest logit is the right item (a float in [0, 1]).

    Raises as ``loss_and_grads`` does.
    """
    logits, _ = forward(params, tokens, query_pos, uniform)
    labels = _check_labels(labels, logits.shape[0])
    return float(np.mean(np.argmax(logits, axis=1) == labels))


@dataclass
class TrainingRun:
    """What ``train`` returns.

    params : dict -- the trained parameters.
    losses : ndarray, shape (steps + 1,) -- training loss before each step (and after the last).
    snapshot_steps : ndarray of int, shape (S,) -- the steps at which snapshots were kept.
    snapshots : ndarray, shape (S, n_probe, T) -- the probe tickets' attention rows at those steps.
    """

    params: dict
    losses: np.ndarray
    snapshot_steps: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    snapshots: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0)))


def train(params, tokens, query_pos, labels, *, steps=300, lr=0.05, uniform=False,
          probe=None, snapshot_every=10):
    """Full-batch training with Adam (written out in numpy), float64, deterministic.

    Parameters
    ----------
    params : dict
        Initial parameters (not modified; a copy is trained).
    tokens, query_pos, labels : arrays, shapes (B, T), (B,), (B,)
        The training tickets (see ``make_tickets``).
    steps : int
        Number of gradient steps, 0 <= steps <= 10,000 (and steps * B at most 10,000,000).
    lr : float
        Adam's learning rate (betas 0.9, 0.999), finite and positive.
    uniform : bool
        Train the control model with attention frozen at 1/T.
    probe : tuple (tokens (n, T), query_pos (n,)), optional
        Tickets whose attention rows are kept every ``snapshot_every`` steps (and at the end).
    snapshot_every : int
        A positive int.

    Returns
    -------
    TrainingRun

    Raises
    ------
    TypeError, ValueError
        If steps is not a non-negative int or over its limit, lr not a finite positive number, snapshot_every
        not a positive int, or as ``loss_and_grads`` for params and the tickets.
    """
    _check_params(params)
    steps = check_seed(steps, "steps")
    batch = np.shape(tokens)[0] if np.ndim(tokens) else 1
    if steps > _MAX_STEPS or steps * batch > _MAX_TICKET_STEPS:
        raise ValueError(f"steps={steps:,} on {batch:,} tickets is more than the limit steps <= {_MAX_STEPS:,} and "
                         f"steps * B <= {_MAX_TICKET_STEPS:,} (tokens shape {np.shape(tokens)}): minutes of training")
    lr = _check_real(lr, "lr", positive=True)
    snapshot_every = check_positive_int(snapshot_every, "snapshot_every")
    params = {k: np.array(v, dtype=np.float64) for k, v in params.items()}
    m = {k: np.zeros_like(v) for k, v in params.items()}
    s = {k: np.zeros_like(v) for k, v in params.items()}
    losses, snap_steps, snaps = [], [], []
    for step in range(steps + 1):
        if probe is not None and (step % snapshot_every == 0 or step == steps):
            snap_steps.append(step)
            snaps.append(forward(params, probe[0], probe[1], uniform)[1]["weights"])
        loss, grads = loss_and_grads(params, tokens, query_pos, labels, uniform)
        losses.append(loss)
        if step == steps:
            break
        for k in params:
            m[k] = 0.9 * m[k] + 0.1 * grads[k]
            s[k] = 0.999 * s[k] + 0.001 * grads[k] ** 2
            m_hat = m[k] / (1 - 0.9 ** (step + 1))
            s_hat = s[k] / (1 - 0.999 ** (step + 1))
            params[k] = params[k] - lr * m_hat / (np.sqrt(s_hat) + 1e-8)
    snapshots = np.array(snaps) if snaps else np.zeros((0, 0, 0))
    return TrainingRun(params, np.array(losses), np.array(snap_steps, dtype=int), snapshots)


def numerical_gradients(params, tokens, query_pos, labels, eps=1e-5, uniform=False):
    """Central-difference gradients of the loss, entry by entry (slow: for small checks only).

    Returns a dict with the same keys and shapes as ``params``.

    Raises a TypeError or ValueError if eps is not a finite positive number, if ``2 * (parameter entries) * B``
    loss evaluations of a ticket would exceed 2,000,000 (check on a few tickets, e.g. ``tokens[:8]``), or as
    ``loss_and_grads`` does.
    """
    _check_budget(params, tokens, eps)
    grads = {}
    for name in PARAM_NAMES:
        value = params[name]
        g = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            old = value[index]
            value[index] = old + eps
            plus, _ = loss_and_grads(params, tokens, query_pos, labels, uniform)
            value[index] = old - eps
            minus, _ = loss_and_grads(params, tokens, query_pos, labels, uniform)
            value[index] = old
            g[index] = (plus - minus) / (2 * eps)
        grads[name] = g
    return grads


def _check_budget(params, tokens, eps):
    _check_params(params)
    _check_real(eps, "eps", positive=True)
    entries = sum(int(np.size(params[name])) for name in PARAM_NAMES)
    batch = np.shape(tokens)[0] if np.ndim(tokens) else 1
    if 2 * entries * batch > _MAX_TICKET_LOSSES:
        raise ValueError(f"central differences on {batch:,} tickets (tokens shape {np.shape(tokens)}) would evaluate "
                         f"the loss 2 x {entries:,} times, {2 * entries * batch:,} ticket losses, more than the limit "
                         f"{_MAX_TICKET_LOSSES:,}: check the gradients on a few tickets, e.g. tokens[:8]")


def gradient_check(params, tokens, query_pos, labels, eps=1e-5, uniform=False, *, softmax_grad=None):
    """Compare the hand-written gradients with central differences.

    ``softmax_grad`` (optional) replaces ``softmax_backward`` in the hand-written gradients only, as in
    ``loss_and_grads``; the central differences need no gradient, so they do not use it.

    Returns
    -------
    dict
        name -> max relative error ``|a - n| / max(|a| + |n|, 1e-6)`` over the entries of that parameter.

    Raises
    ------
    TypeError, ValueError
        As ``numerical_gradients``.
    """
    _check_budget(params, tokens, eps)
    params = {k: np.array(v, dtype=np.float64) for k, v in params.items()}
    _, analytic = loss_and_grads(params, tokens, query_pos, labels, uniform, softmax_grad=softmax_grad)
    numeric = numerical_gradients(params, tokens, query_pos, labels, eps, uniform)
    return {name: float(np.max(np.abs(analytic[name] - numeric[name])
                               / np.maximum(np.abs(analytic[name]) + np.abs(numeric[name]), 1e-6)))
            for name in PARAM_NAMES}
