"""course_utils: the helper package of the course "Self-attention, hands-on": what a notebook imports.

Arranged by who it serves (the module map, one line per module, is docs/architecture.md):

- top level, the **reference** learners call and compare with (numpy only, imported here):
  :func:`softmax`, :func:`scaled_dot_product_attention`, :func:`attention_row`, :func:`causal_mask`,
  :func:`padding_mask`, :func:`split_heads`, :func:`merge_heads`, :func:`multi_head_attention`,
  :func:`blockwise_attention`; beside them ``plots``, ``style`` and ``alt_text`` (each figure in words);
- ``lessons`` (every toy input and the helpers one lesson needs), ``widgets`` and ``checks`` (the dashboards and
  the exercise checkers, one module per notebook topic), ``doctor`` (the setup check of notebook 00) and
  ``safe_files`` (how the course writes a file). What knows the checkout (build, update, reset) is the root ``tools/``.

Subpackages and the modules that need matplotlib or ipywidgets load on first use
(``import course_utils as cu; cu.plots.attention_heatmap(...)``, ``cu.lessons.data.TICKET``).

Importing it changes nothing outside it: no display formatter, no thread setting. A notebook that wants every
figure shown with its alt text says so in its imports cell: ``cu.alt_text.register_formatter()``.
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

#: Modules and subpackages loaded on first attribute access (``cu.plots``, ``cu.lessons``, ...).
LAZY_MODULES = ("plots", "style", "alt_text", "lessons", "widgets", "checks")


def __getattr__(name):
    if name in LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'course_utils' has no attribute {name!r}")
