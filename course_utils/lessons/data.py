"""Every toy input and named example of the course, in one place (lesson support for 01-07).

Each notebook's small named inputs are reused from here, so one number never has two homes:

- notebook 01: the article's worked example (``ARTICLE_SCORES``, ``ARTICLE_VALUES``, ``ARTICLE_TOKENS``);
- notebooks 02-03: toy customer-support tickets with hand-made 4-d embeddings whose coordinates have
  names (``FEATURES``, ``EMBEDDINGS``, ``TICKET``, ``TICKETS``, ``embed``, ``padded_batch``) and the
  hand-made projections of notebook 02 (``HANDMADE_*``);
- notebook 04: the same vocabulary with wider, seeded random embeddings (``D_MODEL``, ``VOCABULARY``,
  ``wide_embeddings``, ``embed_wide``, ``padded_batch_wide``) and seeded stand-ins for learned
  projections (``stand_in_projections``, ``random_projections``);
- notebook 05: the made-up row of its experiment (``EXPERIMENT_*``);
- notebook 07: one query's scores for the online softmax (``ONLINE_SCORES``).

The article's running example is a ticket about a missing charger: the representation of
"missing" may benefit from information about "charger". Each token of the toy tickets has a
4-dimensional embedding whose coordinates have names, so a learner can read them:

    item      the token names a product or part ("charger", "cable", "box")
    problem   the token describes something wrong ("missing", "broken")
    function  a function word ("my", "is", "the", "in")
    request   the token asks for something ("please", "help", "refund")

Real models learn embeddings with hundreds of unnamed dimensions; these are hand-made only so
that every number in the notebooks can be read. Everything random here takes a seed
(``_validate.check_seed``): the same seed always gives the same numbers.
"""
import numbers

import numpy as np

from course_utils._validate import as_float_array, check_positive_int, check_seed

__all__ = [
    "ARTICLE_SCORES",
    "ARTICLE_VALUES",
    "ARTICLE_TOKENS",
    "FEATURES",
    "EMBEDDINGS",
    "TICKET",
    "TICKETS",
    "embed",
    "padded_batch",
    "HANDMADE_QK_FEATURES",
    "HANDMADE_W_Q",
    "HANDMADE_W_K",
    "HANDMADE_V_FEATURES",
    "HANDMADE_W_V",
    "D_MODEL",
    "VOCABULARY",
    "PROJECTION_SCALE",
    "wide_embeddings",
    "embed_wide",
    "padded_batch_wide",
    "stand_in_projections",
    "random_projections",
    "EXPERIMENT_TOKENS",
    "EXPERIMENT_QUERY",
    "EXPERIMENT_SCORES",
    "EXPERIMENT_VALUES",
    "EXPERIMENT_READOUT",
    "ONLINE_SCORES",
]

# Limits far beyond the notebooks' sizes (tickets of 2-6 tokens, d_model 4 or 8, 3 or 4 projections): past them
# a call would take minutes or swap, so it is refused with a message naming the argument and the limit.
_MAX_LENGTH = 10_000
_MAX_D_MODEL = 4096
_MAX_COUNT = 64
_MAX_PROJECTION_NUMBERS = 2**26  # count * d_model**2: 512 MiB of float64


def _check_tokens(tokens, name="tokens"):
    """``tokens`` as a list of str, or a TypeError naming ``name``: a string (its letters are no tokens), something
    that is not a sequence, or an entry that is not a str (a batch of tickets passed as one ticket)."""
    if isinstance(tokens, str):
        raise TypeError(f"{name} must be a sequence of tokens, not the string {tokens!r}; "
                        f"e.g. ({tokens!r},) or {tokens.split()!r}")
    try:
        tokens = list(tokens)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of str tokens, e.g. TICKET; got {tokens!r} of type "
                        f"{type(tokens).__name__}") from None
    for t, token in enumerate(tokens):
        if not isinstance(token, str):
            raise TypeError(f"{name} must be a sequence of str tokens; {name}[{t}] is {token!r} of type "
                            f"{type(token).__name__} (for several tickets use padded_batch)")
    return tokens


# =========================================================================== notebook 01
#: Scores of one query against three keys, already scaled. Shape (3,).
ARTICLE_SCORES = np.array([2.0, 1.0, 0.0])

#: One value vector per key. Shape (3, 2): T = 3 keys, d_v = 2.
ARTICLE_VALUES = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]])

#: Labels for the three keys in plots.
ARTICLE_TOKENS = ("token 1", "token 2", "token 3")


# =========================================================================== notebooks 02-03
#: Names of the embedding coordinates, in order. d_model = 4.
FEATURES = ("item", "problem", "function", "request")

#: The hand-made embedding of each token, shape (d_model,) = (4,).
EMBEDDINGS = {
    "my":      np.array([0.0, 0.0, 1.0, 0.0]),
    "charger": np.array([1.0, 0.1, 0.0, 0.0]),
    "cable":   np.array([0.9, 0.0, 0.1, 0.0]),
    "box":     np.array([0.6, 0.0, 0.2, 0.0]),
    "is":      np.array([0.0, 0.1, 0.9, 0.0]),
    "the":     np.array([0.0, 0.0, 1.0, 0.1]),
    "in":      np.array([0.1, 0.0, 0.8, 0.0]),
    "missing": np.array([0.2, 1.0, 0.1, 0.0]),
    "broken":  np.array([0.1, 0.9, 0.0, 0.1]),
    "please":  np.array([0.0, 0.0, 0.2, 1.0]),
    "help":    np.array([0.0, 0.3, 0.0, 0.8]),
    "refund":  np.array([0.3, 0.0, 0.0, 0.9]),
}

#: The running example of notebook 02: T = 5 tokens.
TICKET = ("my", "charger", "is", "missing", "please")

#: A batch of tickets of different lengths (notebook 03 pads them to one length).
TICKETS = (
    ("my", "charger", "is", "missing"),
    ("cable", "broken", "please", "help"),
    ("the", "box", "is", "missing", "my", "charger"),
    ("refund", "please"),
)


def embed(tokens):
    """Stack the embeddings of a sequence of tokens.

    Parameters
    ----------
    tokens : sequence of str, length T
        Tokens from ``EMBEDDINGS``.

    Returns
    -------
    ndarray, shape (T, d_model)
        Row t is the embedding of ``tokens[t]`` (a copy: changing it changes nothing here).

    Raises
    ------
    KeyError
        If a token has no embedding (the message lists the known tokens).
    TypeError
        If tokens is a string or not a sequence of str.
    """
    tokens = _check_tokens(tokens)
    unknown = [t for t in tokens if t not in EMBEDDINGS]
    if unknown:
        raise KeyError(f"no embedding for {unknown}; known tokens: {sorted(EMBEDDINGS)}")
    if len(tokens) == 0:
        return np.zeros((0, len(FEATURES)))
    return np.stack([EMBEDDINGS[t] for t in tokens]).astype(float)  # (T, d_model)


def padded_batch(tickets=TICKETS, pad_vector=None, length=None):
    """Embed several tickets and pad them to one length.

    Parameters
    ----------
    tickets : sequence of sequences of str, length B
    pad_vector : array_like, shape (d_model,), optional
        What to put at padded positions (default zeros). A padding mask must make the result
        independent of it, which notebook 03 demonstrates by changing it.
    length : int, optional
        The padded length T (default: the longest ticket), at most 10,000.

    Returns
    -------
    x : ndarray, shape (B, T, d_model)
        The embeddings, padded at the end of each ticket.
    lengths : ndarray of int, shape (B,)
        The real length of each ticket (use with ``course_utils.padding_mask(lengths, T)``).
    tokens : list of lists of str, each of length T
        The tokens, with "<pad>" at padded positions (labels for plots).

    Raises
    ------
    TypeError
        If tickets is not a sequence of tickets (a single ticket, a string, None), length not an int, or
        pad_vector not real-valued.
    ValueError
        If there is no ticket, length is not positive, over 10,000 or shorter than the longest ticket, or
        pad_vector does not have shape (d_model,) or holds NaN/inf.
    KeyError
        If a token has no embedding.
    """
    return _pad(tickets, embed, len(FEATURES), pad_vector, length)


def _pad(tickets, embed_tokens, d_model, pad_vector, length):
    """(x, lengths, tokens) of ``tickets`` embedded by ``embed_tokens`` and padded at the end."""
    if isinstance(tickets, str):
        raise TypeError(f"tickets must be a sequence of tickets (each a sequence of str tokens), not the string "
                        f"{tickets!r}; e.g. [{tuple(tickets.split())!r}]")
    try:
        tickets = list(tickets)
    except TypeError:
        raise TypeError(f"tickets must be a sequence of tickets (each a sequence of str tokens), e.g. TICKETS; "
                        f"got {tickets!r} of type {type(tickets).__name__}") from None
    if len(tickets) == 0:
        raise ValueError("tickets is empty; pass at least one ticket")
    if all(isinstance(t, str) for t in tickets):
        raise TypeError(f"tickets must be a sequence of tickets, each a sequence of str tokens; got one ticket "
                        f"{tuple(tickets)!r}: pass [ticket]")
    for b, ticket in enumerate(tickets):
        _check_tokens(ticket, f"tickets[{b}]")
    lengths = np.array([len(t) for t in tickets], dtype=int)  # (B,)
    T = int(lengths.max()) if length is None else check_positive_int(
        length, "length", at_most=_MAX_LENGTH, why=" (the toy tickets have 2-6 tokens)")
    if (lengths > T).any():
        raise ValueError(f"length={T} is shorter than the longest ticket ({lengths.max()} tokens)")
    pad = np.zeros(d_model) if pad_vector is None else as_float_array(pad_vector, "pad_vector")
    if pad.shape != (d_model,):
        raise ValueError(f"pad_vector must have shape ({d_model},); got shape {pad.shape}")
    x = np.tile(pad, (len(tickets), T, 1))  # (B, T, d_model): all padding to start with
    tokens = []
    for b, ticket in enumerate(tickets):
        if len(ticket):
            x[b, : len(ticket)] = embed_tokens(ticket)  # (len, d_model)
        tokens.append(list(ticket) + ["<pad>"] * (T - len(ticket)))
    return x, lengths, tokens


# --------------------------------------------------------------------------- hand-made projections
# Notebook 02 uses these to show "self"-attention in which a token's largest weight sits on
# ANOTHER token ("missing" draws on "charger"). They are WRITTEN BY HAND so that every number
# can be read; a trained model LEARNS its W_Q, W_K, W_V from data, and learned weights are
# not grammar rules and rarely read this cleanly.

#: Names of the d_k = 3 query/key coordinates of the hand-made projections. Coordinate j of a
#: query says what the token "looks for"; coordinate j of a key says what it "offers":
#: problem words and function words look for an item, items offer "item";
#: requests look for a problem, problem words offer "problem";
#: items look for a problem (what happened to them?), problem words offer that too.
HANDMADE_QK_FEATURES = ("item?", "problem? (from a request)", "problem? (from an item)")

#: Hand-made query projection, shape (d_model, d_k) = (4, 3): rows follow FEATURES
#: (item, problem, function, request), columns HANDMADE_QK_FEATURES.
HANDMADE_W_Q = np.array([
    [0.0, 0.0, 2.0],  # item      -> looks for a problem
    [2.0, 0.0, 0.0],  # problem   -> looks for an item
    [1.0, 0.0, 0.0],  # function  -> looks (a little) for an item
    [0.0, 2.0, 0.0],  # request   -> looks for a problem
])

#: Hand-made key projection, shape (d_model, d_k) = (4, 3).
HANDMADE_W_K = np.array([
    [2.0, 0.0, 0.0],  # item      -> offers "item"
    [0.0, 2.0, 2.0],  # problem   -> offers "problem" (to requests and to items)
    [0.0, 0.0, 0.0],  # function  -> offers nothing
    [0.0, 0.0, 0.0],  # request   -> offers nothing
])

#: Names of the d_v = 2 value coordinates of the hand-made value projection.
HANDMADE_V_FEATURES = ("item", "problem")

#: Hand-made value projection, shape (d_model, d_v) = (4, 2): the value of a token carries
#: its "item" and "problem" coordinates.
HANDMADE_W_V = np.array([
    [1.0, 0.0],  # item
    [0.0, 1.0],  # problem
    [0.0, 0.0],  # function
    [0.0, 0.0],  # request
])


# =========================================================================== notebook 04
#: Width of the wider toy embeddings of notebook 04.
D_MODEL = 8

#: Standard deviation of the entries of ``random_projections``.
PROJECTION_SCALE = 0.7

#: The toy vocabulary (every token of ``EMBEDDINGS``), in a fixed order:
#: row i of the seeded embedding table belongs to ``VOCABULARY[i]``.
VOCABULARY = tuple(sorted(EMBEDDINGS))

def wide_embeddings(d_model=D_MODEL, seed=0):
    """A seeded random embedding table for the toy vocabulary.

    Parameters
    ----------
    d_model : int, default 8
        Width of each embedding, at most 4096.
    seed : int, default 0

    Returns
    -------
    dict
        token -> ndarray of shape (d_model,), standard-normal coordinates. Row i of
        ``np.random.default_rng(seed).normal(size=(len(VOCABULARY), d_model))`` belongs to
        ``VOCABULARY[i]``. Each call returns fresh copies.

    Raises
    ------
    TypeError, ValueError
        If d_model is not a positive int (at most 4096) or seed not a non-negative int.
    """
    d_model = check_positive_int(d_model, "d_model", at_most=_MAX_D_MODEL)
    seed = check_seed(seed)
    table = np.random.default_rng(seed).normal(size=(len(VOCABULARY), d_model))  # (V, d_model)
    return {token: row.copy() for token, row in zip(VOCABULARY, table)}


def embed_wide(tokens, d_model=D_MODEL, seed=0):
    """Stack the wide embeddings of a sequence of tokens.

    Parameters
    ----------
    tokens : sequence of str, length T
        Tokens from ``VOCABULARY``.
    d_model : int, default 8
    seed : int, default 0
        Seed of the embedding table (``wide_embeddings``).

    Returns
    -------
    ndarray, shape (T, d_model)

    Raises
    ------
    KeyError
        If a token is not in the vocabulary (the message lists the known tokens).
    TypeError
        If tokens is a string or not a sequence of str; as ``wide_embeddings`` for d_model and seed.
    ValueError
        As ``wide_embeddings`` for d_model and seed.
    """
    tokens = _check_tokens(tokens)
    table = wide_embeddings(d_model, seed)
    unknown = [t for t in tokens if t not in table]
    if unknown:
        raise KeyError(f"no embedding for {unknown}; known tokens: {list(VOCABULARY)}")
    if len(tokens) == 0:
        return np.zeros((0, d_model))
    return np.stack([table[t] for t in tokens])  # (T, d_model)


def padded_batch_wide(tickets=TICKETS, pad_vector=None, length=None, d_model=D_MODEL, seed=0):
    """Embed several tickets with the wide embeddings and pad them (at the end) to one length.

    The d_model = 8 counterpart of ``padded_batch``.

    Parameters
    ----------
    tickets : sequence of sequences of str, length B
    pad_vector : array_like, shape (d_model,), optional
        What to put at the padded positions (default zeros). With a padding mask the real
        tokens' outputs must not depend on it.
    length : int, optional
        The padded length T (default: the longest ticket).
    d_model : int, default 8
    seed : int, default 0
        Seed of the embedding table.

    Returns
    -------
    x : ndarray, shape (B, T, d_model)
    lengths : ndarray of int, shape (B,)
    tokens : list of B lists of str, each of length T, with "<pad>" at the padded positions

    Raises
    ------
    TypeError, ValueError, KeyError
        As ``padded_batch``, and as ``wide_embeddings`` for d_model and seed.
    """
    d_model = check_positive_int(d_model, "d_model", at_most=_MAX_D_MODEL)
    return _pad(tickets, lambda ticket: embed_wide(ticket, d_model, seed), d_model, pad_vector, length)


def stand_in_projections(count, d_model, seed=0, scale=1.0):
    """Seeded stand-ins for learned projection matrices: the one home of every such matrix.

    ``scale * np.random.default_rng(seed).normal(size=(count, d_model, d_model))``: random, not
    trained. Notebook 03's stand-ins (``stand_in_projections(3, 4, seed)``: W_Q, W_K, W_V),
    notebook 04's (``random_projections``: four matrices, scale 0.7) and the layers behind
    notebook 05's mystery heatmaps all come from here.

    Parameters
    ----------
    count : int
        How many matrices (3: W_Q, W_K, W_V; 4: and W_O), at most 64.
    d_model : int
        At most 4096, and ``count * d_model**2`` at most 2**26 (512 MiB).
    seed : int, default 0
    scale : float, default 1.0
        Standard deviation of the entries.

    Returns
    -------
    ndarray, shape (count, d_model, d_model)
        Stacked: ``W_Q, W_K, W_V = stand_in_projections(3, 4)``. Multiply on the right
        (``Q = X @ W_Q``).

    Raises
    ------
    TypeError, ValueError
        If count or d_model is not a positive int (or over its limit), seed not a non-negative int, or
        scale not a finite non-negative number.
    """
    count = check_positive_int(count, "count", at_most=_MAX_COUNT)
    d_model = check_positive_int(d_model, "d_model", at_most=_MAX_D_MODEL)
    if count * d_model**2 > _MAX_PROJECTION_NUMBERS:
        raise ValueError(f"count * d_model**2 = {count * d_model**2:,} numbers (count={count}, d_model={d_model}) is "
                         f"more than the limit {_MAX_PROJECTION_NUMBERS:,} (512 MiB)")
    seed = check_seed(seed)
    real = not isinstance(scale, (bool, np.bool_)) and isinstance(scale, numbers.Real)
    if not real or not np.isfinite(scale) or scale < 0:
        raise ValueError(f"scale must be a finite non-negative number; got {scale!r}")
    return float(scale) * np.random.default_rng(seed).normal(size=(count, d_model, d_model))


def random_projections(d_model=D_MODEL, seed=0, scale=PROJECTION_SCALE):
    """Seeded stand-ins for the four learned matrices of multi-head attention (notebook 04).

    ``stand_in_projections(4, d_model, seed, scale)``. With the default scale 0.7 and the
    standard-normal embeddings of ``embed_wide``, the scores of a head have a standard deviation
    of about 8 * 0.7**2 = 3.9, whatever d_head: the weights are neither close to uniform nor all
    one-hot.

    Parameters
    ----------
    d_model : int, default 8
    seed : int, default 0
    scale : float, default 0.7
        Standard deviation of the entries.

    Returns
    -------
    ndarray, shape (4, d_model, d_model)
        W_Q, W_K, W_V, W_O stacked: ``W_Q, W_K, W_V, W_O = random_projections()``. Multiply on
        the right (``Q = X @ W_Q``); the same matrices serve any number of heads dividing d_model.

    Raises
    ------
    TypeError, ValueError
        As ``stand_in_projections``.
    """
    return stand_in_projections(4, d_model, seed, scale)


# =========================================================================== notebook 05
#: The keys of notebook 05's experiment: the ticket "my charger is missing please".
EXPERIMENT_TOKENS = TICKET

#: The query whose row the experiment looks at.
EXPERIMENT_QUERY = "missing"

#: Made-up, already-scaled scores of the query "missing" against the five keys, shape (5,).
#: "charger" gets the largest weight (0.432), "please" the smallest (0.035).
EXPERIMENT_SCORES = np.array([0.5, 1.5, 0.5, 0.8, -1.0])

#: Made-up 2-d value vectors, one per key, shape (5, 2). "charger" has a short value (length 0.5),
#: "please" a long one (length 5).
EXPERIMENT_VALUES = np.array([
    [0.0, 0.5],   # my
    [0.4, 0.3],   # charger
    [0.2, 0.6],   # is
    [0.6, 0.3],   # missing
    [3.0, -4.0],  # please
])

#: A unit vector standing in for what a later layer reads from the output (notebook 05): a
#: "prediction" ``output @ EXPERIMENT_READOUT``. It is orthogonal to the value of "please".
EXPERIMENT_READOUT = np.array([0.8, 0.6])


# =========================================================================== notebook 07
#: One query's scores against 12 keys; the largest (3.4) sits in the third block of 4.
ONLINE_SCORES = np.array([0.5, 1.2, -0.3, 0.8, 2.6, 1.9, -1.0, 0.1, 3.4, 2.2, 0.7, -0.6])
