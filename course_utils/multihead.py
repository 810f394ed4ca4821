"""Multi-head attention (notebook 04): several projected views, concatenated, then an output
projection. Vectorised: the heads are an array axis, never a Python loop."""
import numpy as np

from course_utils._validate import (
    as_float_array,
    as_mask,
    check_min_ndim,
    check_positive_int,
)
from course_utils.attention import scaled_dot_product_attention


def _check_heads(d_model, num_heads, what):
    """Return num_heads as an int; raise unless it is a positive int dividing d_model."""
    num_heads = check_positive_int(num_heads, "num_heads")
    if d_model % num_heads != 0:
        raise ValueError(
            f"d_model={d_model} is not divisible by num_heads={num_heads} ({what}); "
            f"each head gets d_model // num_heads columns, so choose num_heads dividing d_model"
        )
    return num_heads


def _project(x, weights, name):
    """``x @ weights[name]``, (..., T, d_model) -> (..., T, d_model); raise if it overflows."""
    with np.errstate(over="ignore", invalid="ignore"):
        projected = x @ weights[name]  # (..., T, d_model)
    if not np.isfinite(projected).all():
        raise ValueError(f"x @ {name} overflowed (not finite); rescale x or {name}")
    return projected


def split_heads(x, num_heads):
    """Split the feature axis into heads: (..., T, d_model) -> (..., num_heads, T, d_head).

    Head h gets columns ``h * d_head : (h + 1) * d_head`` of x, where ``d_head = d_model // num_heads``.

    Parameters
    ----------
    x : array_like, shape (..., T, d_model)
        Projected inputs (e.g. ``Q = X @ W_Q``).
    num_heads : int
        A positive int dividing d_model.

    Returns
    -------
    ndarray, shape (..., num_heads, T, d_head)

    Raises
    ------
    ValueError
        If x has fewer than 2 dims, num_heads is not positive, or does not divide d_model.
    TypeError
        If num_heads is not an int or x is not real-valued.
    """
    x = as_float_array(x, "x", nan_ok=True, posinf_ok=True, neginf_ok=True)  # a pure reshape
    check_min_ndim(x, "x", 2, "(..., T, d_model)")
    *lead, T, d_model = x.shape
    num_heads = _check_heads(d_model, num_heads, f"x shape {x.shape}")
    d_head = d_model // num_heads
    x = x.reshape(*lead, T, num_heads, d_head)  # (..., T, h, d_head)
    return np.swapaxes(x, -3, -2)  # (..., h, T, d_head)


def merge_heads(x):
    """Concatenate the heads back: (..., num_heads, T, d_head) -> (..., T, num_heads * d_head).

    The inverse of ``split_heads``: head h fills columns ``h * d_head : (h + 1) * d_head``.

    Parameters
    ----------
    x : array_like, shape (..., num_heads, T, d_head)

    Returns
    -------
    ndarray, shape (..., T, num_heads * d_head)

    Raises
    ------
    ValueError
        If x has fewer than 3 dims.
    TypeError
        If x is not real-valued.
    """
    x = as_float_array(x, "x", nan_ok=True, posinf_ok=True, neginf_ok=True)  # a pure reshape
    check_min_ndim(x, "x", 3, "(..., num_heads, T, d_head)")
    *lead, num_heads, T, d_head = x.shape
    x = np.swapaxes(x, -3, -2)  # (..., T, h, d_head)
    return x.reshape(*lead, T, num_heads * d_head)  # (..., T, h * d_head)


def multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, mask=None):
    """Multi-head self-attention (no biases): project, split into heads, attend, merge, project.

        Q, K, V = x @ w_q, x @ w_k, x @ w_v            # (..., T, d_model) each
        head outputs = attention(split(Q), split(K), split(V), mask)   # scale 1/sqrt(d_head)
        output = merge(head outputs) @ w_o

    Parameters
    ----------
    x : array_like, shape (..., T, d_model)
        The input sequence(s); queries, keys and values all come from it ("self").
    w_q, w_k, w_v, w_o : array_like, shape (d_model, d_model)
        Projection matrices, multiplied on the right (``Q = x @ w_q``). Columns
        ``h * d_head : (h + 1) * d_head`` of w_q, w_k, w_v belong to head h.
    num_heads : int
        A positive int dividing d_model; ``d_head = d_model // num_heads``.
    mask : array_like, optional
        Boolean (True = may attend) or float (added to the scores), ONE mask shared by all heads:
        shape (T, T), or with the leading (batch) axes of x, each of size 1 or x's, e.g.
        (B, T, T) or (B, 1, T) for x of shape (B, T, d_model). A mask may not have more axes than
        x (a per-head mask (B, h, T, T) is refused: the heads share one mask here).
        See ``scaled_dot_product_attention``; a query row with no permitted key gets zero
        weights in every head, so its output row is all zeros.

    Returns
    -------
    output : ndarray, shape (..., T, d_model)
    weights : ndarray, shape (..., num_heads, T, T)
        Each head's attention weights.

    Raises
    ------
    ValueError
        If x has fewer than 2 dims, a weight is not (d_model, d_model), num_heads is not positive
        or does not divide d_model, an input holds NaN/inf, or the mask is invalid.
    TypeError
        If num_heads is not an int, an input is not real-valued, or the mask is not bool/float.
    """
    x = as_float_array(x, "x")
    check_min_ndim(x, "x", 2, "(..., T, d_model)")
    *lead, T, d_model = x.shape
    if d_model == 0:
        raise ValueError(f"x has d_model=0 (x shape {x.shape})")
    weights_in = {}
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v), ("w_o", w_o)):
        w = as_float_array(w, name)
        if w.shape != (d_model, d_model):
            raise ValueError(
                f"{name} must have shape (d_model, d_model) = {(d_model, d_model)} to match "
                f"x shape {x.shape}; got {name} shape {w.shape}"
            )
        weights_in[name] = w
    num_heads = _check_heads(d_model, num_heads, f"x shape {x.shape}")
    if mask is not None:
        mask_shape = np.shape(mask)
        if len(mask_shape) > len(lead) + 2 or any(
            m not in (1, n) for m, n in zip(mask_shape[-2 - len(lead):-2][::-1], lead[::-1])
        ):
            raise ValueError(
                f"mask has shape {mask_shape}, but multi_head_attention takes one mask shared by every head, "
                f"of shape (T, T) = {(T, T)} or with x's leading axes {tuple(lead)} (each 1 or the same), "
                f"e.g. {(*lead, T, T)} or {(*lead, 1, T)}; x has shape {x.shape}"
            )
        mask = as_mask(mask, (*lead, T, T))
        mask = mask.reshape((1,) * max(0, 2 - mask.ndim) + mask.shape)  # at least (T_q, T_k)
        mask = mask[..., None, :, :]  # (..., 1, T, T): the same mask for every head

    q = split_heads(_project(x, weights_in, "w_q"), num_heads)  # (..., T, d_model) -> (..., h, T, d_head)
    k = split_heads(_project(x, weights_in, "w_k"), num_heads)  # (..., h, T, d_head)
    v = split_heads(_project(x, weights_in, "w_v"), num_heads)  # (..., h, T, d_head)
    heads, weights = scaled_dot_product_attention(q, k, v, mask)  # (..., h, T, d_head), (..., h, T, T)
    output = merge_heads(heads) @ weights_in["w_o"]  # (..., T, d_model) @ (d_model, d_model)
    return output, weights
