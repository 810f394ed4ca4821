"""Exercise checkers: ``check_<name>(your_function)`` reports not attempted / wrong / correct.

Each checker runs the learner's function on copies of a few inputs, smallest first, and
returns a ``CheckResult`` that prints as plain text and shows as a coloured box in Jupyter.
The framework (``Case``, ``KnownMistake``, ``run_check``, ``checker``) is shared by the
checkers of every notebook.
"""
from course_utils.checks._framework import (
    DEFAULT_HINTS,
    Case,
    KnownMistake,
    checker,
    correct,
    error_message_contains,
    internal_error,
    not_attempted,
    not_callable,
    run_check,
)
from course_utils.checks._result import CORRECT, NOT_ATTEMPTED, WRONG, CheckResult
from course_utils.checks.nb01 import (
    ATTENTION_ROW_MISTAKES,
    SOFTMAX_MISTAKES,
    check_attention_row,
    check_scores_for_third_value,
    check_softmax,
)
from course_utils.checks.nb02 import (
    PROJECT_MISTAKES,
    SCALED_SCORES_MISTAKES,
    SELF_ATTENTION_MISTAKES,
    SHAPE_NAMES,
    check_project,
    check_scaled_scores,
    check_self_attention,
    check_shapes,
)
from course_utils.checks.nb03 import (
    CAUSAL_MASK_MISTAKES,
    MASK_SITUATIONS,
    MASKED_ATTENTION_MISTAKES,
    PADDING_MASK_MISTAKES,
    check_buggy_masks,
    check_causal_mask,
    check_masked_attention,
    check_padding_mask,
)

__all__ = [
    # notebook 01
    "check_softmax",
    "check_attention_row",
    "check_scores_for_third_value",
    "SOFTMAX_MISTAKES",
    "ATTENTION_ROW_MISTAKES",
    # notebook 02
    "check_shapes",
    "check_project",
    "check_scaled_scores",
    "check_self_attention",
    "SHAPE_NAMES",
    "PROJECT_MISTAKES",
    "SCALED_SCORES_MISTAKES",
    "SELF_ATTENTION_MISTAKES",
    # notebook 03
    "check_causal_mask",
    "check_padding_mask",
    "check_masked_attention",
    "check_buggy_masks",
    "CAUSAL_MASK_MISTAKES",
    "PADDING_MASK_MISTAKES",
    "MASKED_ATTENTION_MISTAKES",
    "MASK_SITUATIONS",
    # framework
    "CheckResult",
    "Case",
    "KnownMistake",
    "run_check",
    "checker",
    "correct",
    "not_attempted",
    "not_callable",
    "internal_error",
    "error_message_contains",
    "DEFAULT_HINTS",
    "CORRECT",
    "WRONG",
    "NOT_ATTEMPTED",
]
