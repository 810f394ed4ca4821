"""course_utils: the helper package of the course "Self-attention, hands-on".

The core is numpy only and is imported here:

- :func:`softmax` — numerically stable softmax (max shift; an all ``-inf`` row gives zeros)
- :func:`scaled_dot_product_attention` — ``softmax(Q K^T / sqrt(d_k) + mask) V``, returns ``(output, weights)``
- :func:`attention_row` — the one-row case of notebook 01
- :func:`causal_mask`, :func:`padding_mask` — boolean masks, True = may attend (PyTorch's convention)
- :func:`split_heads`, :func:`merge_heads`, :func:`multi_head_attention`
- :func:`blockwise_attention` — the same attention, block by block with an online softmax (never holds T x T)

The modules that need matplotlib or ipywidgets, and the tools, load on first use:
``course_utils.plots``, ``course_utils.widgets``, ``course_utils.checks``, ``course_utils.build``
(``import course_utils as cu; cu.plots.attention_heatmap(...)`` works without importing them first).
"""
import importlib

from .attention import attention_row, scaled_dot_product_attention
from .blockwise import blockwise_attention
from .masks import causal_mask, padding_mask
from .multihead import merge_heads, multi_head_attention, split_heads
from .softmax import softmax

__all__ = [
    "softmax",
    "scaled_dot_product_attention",
    "attention_row",
    "causal_mask",
    "padding_mask",
    "split_heads",
    "merge_heads",
    "multi_head_attention",
    "blockwise_attention",
]

_LAZY_SUBMODULES = {"plots", "widgets", "checks", "build", "examples"}


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'course_utils' has no attribute {name!r}")
