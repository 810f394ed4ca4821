"""Checkers for notebook 02 (queries, keys and values): the shape table, the three projections,
the scaled scores and a complete single-head self-attention."""
import numbers

import numpy as np

import course_utils as cu
from course_utils.checks._catalogue import catalogued, own, own_hints, own_texts
from course_utils.checks._compare import Comparison, Problem
from course_utils.checks._format import describe, field
from course_utils.checks._framework import (
    Case,
    checker,
    error_on_line,
    run_check,
)
from course_utils.checks._learner_code import (
    MATMUL_ERROR,
    Q_AT_K_LINE,
    matmul_error_on_line,
    naive_softmax,
    rounded_normal,
    shifted_softmax,
    small_ints,
    swapped_outputs,
    whole_softmax,
)
from course_utils.lessons.data import HANDMADE_W_K, HANDMADE_W_Q, HANDMADE_W_V, TICKET, embed

__all__ = [
    "SHAPE_NAMES",
    "PROJECT_MISTAKES",
    "SCALED_SCORES_MISTAKES",
    "SELF_ATTENTION_MISTAKES",
]


# ---------------------------------------------------------------- helpers for the buggy versions
def _sqrt_d(q):
    return np.sqrt(q.shape[-1])


# w_q @ x, w_q.T @ x, np.dot(w_q, x), np.matmul(w_q.T, x)
_W_AT_X_LINE = r"\bw\w*\s*(?:\.\s*T\s*)?@\s*x\b|(?:matmul|dot)\(\s*w\w*\s*(?:\.\s*T\s*)?,\s*x\b"


# ================================================================ the shape table
#: The entries of the shape table, in the order of the notebook's table.
SHAPE_NAMES = ("X", "W_Q", "W_K", "W_V", "Q", "K", "V", "scores", "weights", "output")

_SHAPE_CASES = (
    # (T, d_model, d_k, d_v): every size different first, so a mix-up shows
    (5, 4, 3, 2),
    (2, 6, 8, 3),
    (10, 512, 64, 64),  # one head of the original Transformer base model: d_model 512, d_k = d_v = 64
)


def reference_shapes(T, d_model, d_k, d_v):
    """The shape of every array of single-head self-attention, by name (see ``SHAPE_NAMES``)."""
    return {
        "X": (T, d_model),
        "W_Q": (d_model, d_k),
        "W_K": (d_model, d_k),
        "W_V": (d_model, d_v),
        "Q": (T, d_k),
        "K": (T, d_k),
        "V": (T, d_v),
        "scores": (T, T),
        "weights": (T, T),
        "output": (T, d_v),
    }


def _as_shape(value):
    """``value`` as a tuple of ints, or None if it is not a shape (a tuple/list of whole numbers)."""
    if isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind in "iu":
        value = tuple(value.tolist())
    if not isinstance(value, (tuple, list)):
        return None
    whole = all(isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) for v in value)
    return tuple(int(v) for v in value) if whole else None


#: The texts the shape table's hints are made of: one per entry, and the parts said around them.
_TEXTS = own_texts("shapes")


def _shape_hint(key, got, sizes):
    """A hint for one wrong entry of the table, naming the mix-up when it is a usual one."""
    if key in ("W_Q", "W_K", "W_V") and got is not None and len(got) == 2 and got[::-1] == reference_shapes(*sizes)[key]:
        return f"{_TEXTS[key]} {_TEXTS['the other way round']}"
    return _TEXTS[key] + _what_you_wrote(got, sizes)


def _what_you_wrote(got, sizes):
    """" You wrote (T, d_model)." when every number of got is one of the sizes, told apart
    (the sizes differ from each other); "" otherwise."""
    names = dict(zip(sizes, ("T", "d_model", "d_k", "d_v")))
    if got is None or len(names) < 4 or any(n not in names for n in got):
        return ""
    return " " + _TEXTS["you wrote"].format(shape=f"({', '.join(names[n] for n in got)}{',' if len(got) == 1 else ''})")


class _ShapeTable(Comparison):
    """Judges the shape table: a dict with one shape (a tuple of ints) per name of SHAPE_NAMES."""

    @staticmethod
    def _wrong(got, expected):
        return [(key, _as_shape(got[key])) for key in SHAPE_NAMES if _as_shape(got[key]) != expected[key]]

    def problem(self, got, expected, *, name, output_names=None):
        if got is None:
            return Problem("none", f"{name} returned None.")
        if not isinstance(got, dict):
            return Problem("type", f"{name} should return a dict, but it returned {describe(got)}.")
        missing = [key for key in SHAPE_NAMES if key not in got]
        if missing:
            return Problem("structure", f"the dict has no entry for {len(missing)} of the {len(SHAPE_NAMES)} names "
                                        f"({', '.join(repr(k) for k in missing)}).")
        wrong = self._wrong(got, expected)
        if wrong:
            return Problem("values", f"{len(wrong)} of the {len(SHAPE_NAMES)} entries are wrong.")
        return None

    def same(self, got, reproduced):
        return isinstance(got, dict) and all(_as_shape(got.get(k)) == reproduced[k] for k in SHAPE_NAMES)

    def details(self, got, expected, output_names=None):
        if not isinstance(got, dict) or any(k not in got for k in SHAPE_NAMES):
            return []
        wrong = self._wrong(got, expected)
        key, shape = wrong[0]
        lines = [field("entry", repr(key)), field("expected", str(expected[key])),
                 field("got", str(shape) if shape is not None else describe(got[key]))]
        if len(wrong) > 1:
            lines.append(field("also", "wrong: " + ", ".join(repr(k) for k, _ in wrong[1:])))
        return lines

    def hint(self, kind, got, expected, args):
        if kind in ("none", "type"):
            return _TEXTS["return the table"]
        if kind == "structure":
            return _TEXTS["every entry"].format(names=", ".join(f'"{k}"' for k in SHAPE_NAMES))
        if kind == "values":
            key, shape = self._wrong(got, expected)[0]
            return _TEXTS["a tuple of sizes"] if shape is None else _shape_hint(key, shape, args)
        return None


@checker("shapes")
def check_shapes(shapes):
    """Check the shape-table exercise: ``shapes(T, d_model, d_k, d_v)`` returns a dict with one entry per
    name of ``SHAPE_NAMES``, each a tuple of ints such as ``(T, d_k)``. Every size differs in the first case."""
    result = run_check(
        shapes, reference=reference_shapes,
        cases=tuple(Case("T={}, d_model={}, d_k={}, d_v={}".format(*sizes), sizes) for sizes in _SHAPE_CASES),
        arg_names=("T", "d_model", "d_k", "d_v"), hints=own_hints("shapes"), compare=_ShapeTable(),
    )
    if result:
        result.message += " Every entry of the table is right."
    return result


# ================================================================ the three projections
def _project_case(label, seed, T, d_model, d_k, d_v):
    """Seeded normal inputs of the given sizes: (x, w_q, w_k, w_v)."""
    return Case(label, (
        rounded_normal(seed, T, d_model), rounded_normal(seed + 1, d_model, d_k), rounded_normal(seed + 2, d_model, d_k),
        rounded_normal(seed + 3, d_model, d_v),
    ))


# Every width 2: readable, and W @ X or Q @ K run without an error (and give wrong numbers).
# Written by hand so that no matrix is symmetric or singular and the scores stay moderate.
_SQUARE_CASE = Case("2 tokens, every width 2", (
    np.array([[1.0, 2.0], [2.0, -1.0]]),   # x
    np.array([[0.5, 0.0], [0.5, -1.0]]),   # w_q
    np.array([[1.0, -0.5], [0.0, 0.5]]),   # w_k
    np.array([[1.0, 0.0], [-1.0, 2.0]]),   # w_v
))

_PROJECT_CASES = (
    _SQUARE_CASE,
    Case("the ticket (T=5, d_model=4), d_k=3, d_v=2",
         (embed(TICKET), rounded_normal(21, 4, 3), rounded_normal(22, 4, 3), rounded_normal(23, 4, 2))),
    _project_case("3 tokens, d_model=6, d_k=4, d_v=5", 30, 3, 6, 4, 5),
)


PROJECT_MISTAKES = (
    catalogued("swapped W_K and W_V", reproduce=lambda x, wq, wk, wv: (x @ wq, x @ wv, x @ wk)),
    own("project", "swapped W_Q and W_K", reproduce=lambda x, wq, wk, wv: (x @ wk, x @ wq, x @ wv)),
    own(
        "project", "other order",
        reproduce=(
            lambda x, wq, wk, wv: (x @ wv, x @ wk, x @ wq),
            lambda x, wq, wk, wv: (x @ wk, x @ wv, x @ wq),
            lambda x, wq, wk, wv: (x @ wv, x @ wq, x @ wk),
        ),
    ),
    own("project", "one matrix for all", reproduce=lambda x, wq, wk, wv: (x @ wq, x @ wq, x @ wq)),
    own("project", "k from w_q", reproduce=lambda x, wq, wk, wv: (x @ wq, x @ wq, x @ wv)),
    own(
        "project", "weights on the left",
        reproduce=(
            lambda x, wq, wk, wv: (wq @ x, wk @ x, wv @ x),
            lambda x, wq, wk, wv: (wq.T @ x, wk.T @ x, wv.T @ x),
            lambda x, wq, wk, wv: (x @ wq.T, x @ wk.T, x @ wv.T),
            lambda x, wq, wk, wv: (x.T @ wq, x.T @ wk, x.T @ wv),
        ),
        error=MATMUL_ERROR,
    ),
    own("project", "transposed result", reproduce=lambda x, wq, wk, wv: ((x @ wq).T, (x @ wk).T, (x @ wv).T)),
    own(
        "project", "elementwise product",
        reproduce=lambda x, wq, wk, wv: (x * wq, x * wk, x * wv),
        error=error_on_line(r"\bx\w*\s*\*\s*w|\bw\w*\s*\*\s*x", "could not be broadcast", error_type=ValueError),
    ),
)

def _reference_project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v  # (T, d_k), (T, d_k), (T, d_v)


@checker("project", mistakes=PROJECT_MISTAKES)
def check_project(project):
    """Check ``project(x, w_q, w_k, w_v) -> (q, k, v)`` with ``q = x @ w_q`` and so on.

    x (T, d_model), w_q and w_k (d_model, d_k), w_v (d_model, d_v) -> q (T, d_k), k (T, d_k), v (T, d_v).
    The first case has every width 2, so a product in the wrong order runs (and is recognised from its numbers).
    """
    return run_check(
        project,
        reference=_reference_project,
        cases=_PROJECT_CASES,
        arg_names=("x", "w_q", "w_k", "w_v"),
        output_names=("q", "k", "v"),
        hints=own_hints("project"),
    )


# ================================================================ scaled scores
_SCALED_SCORES_CASES = (
    Case("2 queries, 5 keys, d_k=4", (small_ints(40, 2, 4), small_ints(41, 5, 4))),
    Case("2 queries, 2 keys, d_k=2 (square: q @ k runs too)",
         (np.array([[1.0, 2.0], [0.0, -1.0]]), np.array([[1.0, -2.0], [0.0, 1.0]]))),
    Case("the ticket's queries and keys, T=5, d_k=3",
         (embed(TICKET) @ rounded_normal(21, 4, 3), embed(TICKET) @ rounded_normal(22, 4, 3))),
    Case("4 queries, 6 keys, wide keys d_k=64", (rounded_normal(60, 4, 64), rounded_normal(61, 6, 64))),
)

SCALED_SCORES_MISTAKES = (
    catalogued("no scale", reproduce=lambda q, k: q @ k.T),
    catalogued("divide by d_k", reproduce=lambda q, k: q @ k.T / q.shape[-1]),
    own("scaled_scores", "multiply by sqrt(d_k)", reproduce=lambda q, k: q @ k.T * _sqrt_d(q)),
    catalogued("sqrt of the number of keys", reproduce=lambda q, k: q @ k.T / np.sqrt(k.shape[0])),
    own("scaled_scores", "sqrt of the number of queries", reproduce=lambda q, k: q @ k.T / np.sqrt(q.shape[0])),
    own("scaled_scores", "sqrt of every entry of q", reproduce=lambda q, k: q @ k.T / np.sqrt(q.size)),
    catalogued("k not transposed", reproduce=(lambda q, k: q @ k / _sqrt_d(q), lambda q, k: q @ k), error=MATMUL_ERROR),
    own(
        "scaled_scores", "reshape instead of transpose",
        reproduce=(
            lambda q, k: q @ k.reshape(k.shape[1], k.shape[0]) / _sqrt_d(q),
            lambda q, k: q @ k.reshape(k.shape[1], k.shape[0]),
        ),
    ),
    own("scaled_scores", "transposed scores", reproduce=(lambda q, k: k @ q.T / _sqrt_d(q), lambda q, k: k @ q.T)),
    own(
        "scaled_scores", "softmax applied",
        reproduce=(
            lambda q, k: shifted_softmax(q @ k.T / _sqrt_d(q)),
            lambda q, k: shifted_softmax(q @ k.T / _sqrt_d(q), axis=0),
        ),
    ),
    own(
        "scaled_scores", "elementwise product",
        reproduce=(lambda q, k: q * k / _sqrt_d(q), lambda q, k: q * k.T / _sqrt_d(q)),
        # the broadcast error of q * k itself (not, say, of a division by a shape tuple)
        error=error_on_line(r"\bq\w*\s*\*\s*k|\bk\w*\s*\*\s*q", "could not be broadcast", error_type=ValueError),
    ),
)

def _reference_scaled_scores(q, k):
    return q @ k.T / np.sqrt(q.shape[-1])  # (T_q, d_k) @ (d_k, T_k) -> (T_q, T_k)


@checker("scaled_scores", mistakes=SCALED_SCORES_MISTAKES)
def check_scaled_scores(scaled_scores):
    """Check ``scaled_scores(q, k) -> q @ k.T / sqrt(d_k)``: q (T_q, d_k), k (T_k, d_k) -> (T_q, T_k).

    T_q, T_k and d_k all differ in the first case (so `q @ k` raises and is recognised from its error);
    in the second, square one `q @ k` runs.
    """
    return run_check(
        scaled_scores,
        reference=_reference_scaled_scores,
        cases=_SCALED_SCORES_CASES,
        arg_names=("q", "k"),
        hints=own_hints("scaled_scores"),
    )


# ================================================================ complete self-attention
def _attn(q, k, v, *, scale=None, axis=-1, transpose_k=True, no_softmax=False, left=False, softmax=shifted_softmax):
    """A (possibly buggy) attention: returns (output, weights). scale: d_k -> the divisor (None: sqrt(d_k))."""
    d_k = q.shape[-1]
    scores = q @ (k.T if transpose_k else k)
    scores = scores / (np.sqrt(d_k) if scale is None else scale(d_k))
    weights = scores if no_softmax else softmax(scores, axis=axis)
    output = weights.T @ v if left else weights @ v
    return output, weights


def _sa(**bug):
    """A self-attention with a bug in the attention step: (x, w_q, w_k, w_v) -> (output, weights)."""
    return lambda x, wq, wk, wv: _attn(x @ wq, x @ wk, x @ wv, **bug)


def _sa_scaled(divisor):
    """A self-attention whose scores are divided by ``divisor(x)`` (a size of the input, not sqrt(d_k))."""
    return lambda x, wq, wk, wv: _attn(x @ wq, x @ wk, x @ wv, scale=lambda d: divisor(x))


def _sa_proj(project):
    """A self-attention with a bug in the projections: project(x, wq, wk, wv) -> (q, k, v)."""
    return lambda x, wq, wk, wv: _attn(*project(x, wq, wk, wv))


_SELF_ATTENTION_CASES = (
    _SQUARE_CASE,
    Case("the ticket with the hand-made weights (d_k=3, d_v=2)",
         (embed(TICKET), HANDMADE_W_Q.copy(), HANDMADE_W_K.copy(), HANDMADE_W_V.copy())),
    _project_case("3 tokens, d_model=4, d_k=8, d_v=5", 70, 3, 4, 8, 5),
    _project_case("7 tokens, d_model=6, d_k=16, d_v=3", 80, 7, 6, 16, 3),
    Case("large scores: the first case with x 30 times larger", (30 * _SQUARE_CASE.args[0], *_SQUARE_CASE.args[1:])),
)

SELF_ATTENTION_MISTAKES = (
    swapped_outputs(_sa()),
    catalogued("no scale", reproduce=_sa(scale=lambda d: 1.0)),
    catalogued("divide by d_k", reproduce=_sa(scale=lambda d: d)),
    catalogued("sqrt of d_model", reproduce=_sa_scaled(lambda x: np.sqrt(x.shape[-1]))),
    catalogued("sqrt of the number of keys", reproduce=_sa_scaled(lambda x: np.sqrt(x.shape[-2]))),
    catalogued("no max shift", reproduce=_sa(softmax=naive_softmax)),
    catalogued("k not transposed", reproduce=(_sa(transpose_k=False), _sa(transpose_k=False, scale=lambda d: 1.0)),
               error=matmul_error_on_line(Q_AT_K_LINE)),
    catalogued("softmax over the wrong axis", reproduce=_sa(axis=0)),
    catalogued("softmax over the whole array", reproduce=_sa(softmax=whole_softmax)),
    catalogued("swapped W_K and W_V", reproduce=_sa_proj(lambda x, wq, wk, wv: (x @ wq, x @ wv, x @ wk))),
    own(
        "self_attention", "scores transposed (or W_Q and W_K swapped)",
        reproduce=_sa_proj(lambda x, wq, wk, wv: (x @ wk, x @ wq, x @ wv)),
    ),
    own(
        "project", "weights on the left",
        reproduce=(
            _sa_proj(lambda x, wq, wk, wv: (wq @ x, wk @ x, wv @ x)),
            _sa_proj(lambda x, wq, wk, wv: (x @ wq.T, x @ wk.T, x @ wv.T)),
        ),
        error=matmul_error_on_line(_W_AT_X_LINE),
    ),
    catalogued("no softmax", reproduce=_sa(no_softmax=True)),
    own(
        "self_attention", "output product order",
        reproduce=(
            _sa(left=True),
            lambda x, wq, wk, wv: (x @ wv @ _attn(x @ wq, x @ wk, x @ wv)[1], _attn(x @ wq, x @ wk, x @ wv)[1]),
        ),
        error=matmul_error_on_line(r"\bv\w*\s*@\s*\w*weights|\bv\w*\s*@\s*\w*attn"),
    ),
    own(
        "self_attention", "values not projected",
        reproduce=lambda x, wq, wk, wv: (_attn(x @ wq, x @ wk, x)[0], _attn(x @ wq, x @ wk, x @ wv)[1]),
    ),
    own("self_attention", "product refuses the shapes", error=MATMUL_ERROR),
)

def _reference_self_attention(x, w_q, w_k, w_v):
    return cu.scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)


@checker("self_attention", mistakes=SELF_ATTENTION_MISTAKES)
def check_self_attention(self_attention):
    """Check ``self_attention(x, w_q, w_k, w_v) -> (output, weights)``, single head, no mask.

    x (T, d_model), w_q and w_k (d_model, d_k), w_v (d_model, d_v) -> output (T, d_v), weights (T, T)
    with ``weights = softmax(q k^T / sqrt(d_k))`` over each row and ``output = weights v``. The first
    case has every width 2, so products in the wrong order run (and are recognised from their numbers).
    """
    return run_check(
        self_attention,
        reference=_reference_self_attention,
        cases=_SELF_ATTENTION_CASES,
        arg_names=("x", "w_q", "w_k", "w_v"),
        output_names=("output", "weights"),
        hints=own_hints("self_attention"),
    )
