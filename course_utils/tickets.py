"""Toy customer-support tickets with small, named, hand-made embeddings (notebooks 02-03).

The article's running example is a ticket about a missing charger: the representation of
"missing" may benefit from information about "charger". Each token here has a 4-dimensional
embedding whose coordinates have names, so a learner can read them:

    item      the token names a product or part ("charger", "cable", "box")
    problem   the token describes something wrong ("missing", "broken")
    function  a function word ("my", "is", "the", "in")
    request   the token asks for something ("please", "help", "refund")

Real models learn embeddings with hundreds of unnamed dimensions; these are hand-made only so
that every number in the notebooks can be read.
"""
import numpy as np

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
    """
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
        The padded length T (default: the longest ticket).

    Returns
    -------
    x : ndarray, shape (B, T, d_model)
        The embeddings, padded at the end of each ticket.
    lengths : ndarray of int, shape (B,)
        The real length of each ticket (use with ``course_utils.padding_mask(lengths, T)``).
    tokens : list of lists of str, each of length T
        The tokens, with "<pad>" at padded positions (labels for plots).
    """
    lengths = np.array([len(t) for t in tickets], dtype=int)
    T = int(lengths.max()) if length is None else int(length)
    if (lengths > T).any():
        raise ValueError(f"length={T} is shorter than the longest ticket ({lengths.max()} tokens)")
    d_model = len(FEATURES)
    pad = np.zeros(d_model) if pad_vector is None else np.asarray(pad_vector, dtype=float)
    if pad.shape != (d_model,):
        raise ValueError(f"pad_vector must have shape ({d_model},); got {pad.shape}")
    x = np.tile(pad, (len(tickets), T, 1))  # (B, T, d_model), all padding to start with
    tokens = []
    for b, ticket in enumerate(tickets):
        x[b, : len(ticket)] = embed(ticket)  # (len, d_model)
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
