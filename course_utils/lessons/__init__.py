"""Lesson support: the toy inputs of every notebook and the helpers a single lesson needs.

``data``            every toy input and named example (01-07)
``scaling``         why scores are divided by sqrt(d_k): dot-product spread, saturation (02)
``masking``         one sequence's mask; masking before vs zeroing after the softmax (03)
``heads``           head columns, relabelling heads, attention-pattern measures (04)
``influence``       contributions and removal effects of keys (05)
``training``        a one-head model trained in numpy, hand-written gradients (06)
``online_softmax``  the running maximum and normaliser, block by block (07)
``measure``         time and peak memory of a call (07, benchmarks)
``inventory``       the concept inventory: its items, answers, feedback, choice orders and answer files (00, 08)
``myths``          the Myth or fact? claims: each claim, its verdict, why, and the feedback per choice (01-07)
``reviews``        the three review questions that open 02-05, on earlier notebooks
``parsons``        the Parsons problems of 03 and 04: given lines to order, wrong lines with their feedback
``faded``          the check under each step of a faded worked example (02-04)

Modules load on first use: ``import course_utils as cu; cu.lessons.data.TICKET``.
"""
import importlib

MODULES = ("data", "scaling", "masking", "heads", "influence", "training", "online_softmax", "measure", "inventory", "myths",
           "reviews", "parsons", "faded")

__all__ = list(MODULES)


def __getattr__(name):
    if name in MODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'course_utils.lessons' has no attribute {name!r}")
