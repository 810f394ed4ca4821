"""Exercise checkers: ``check_<name>(your_function)`` reports not attempted / wrong / correct.

Each checker runs the learner's function on copies of a few inputs, smallest first, every one of
them (each under a time limit, its printed output kept), and returns a ``CheckResult`` that prints
as plain text and shows as a coloured box in Jupyter. A failure shows the smallest failing case with
expected and got; its hint names a known mistake only when that mistake explains the learner's
result on every case, else it is the exercise's generic hint, which says so.

The framework (``Case``, ``KnownMistake``, ``run_check``, ``checker``, and the ``Comparison`` of
``_compare`` that masks and dict answers extend) is shared by the checkers of every notebook.
"""
from course_utils.checks._framework import (
    DEFAULT_HINTS,
    NOT_A_USUAL_MISTAKE,
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
    SCORES_FOR_THIRD_VALUE_MISTAKES,
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
from course_utils.checks.nb04 import (
    MERGE_HEADS_MISTAKES,
    MULTI_HEAD_ATTENTION_MISTAKES,
    SPLIT_HEADS_MISTAKES,
    check_merge_heads,
    check_multi_head_attention,
    check_split_heads,
)
from course_utils.checks.nb05 import (
    CAPSTONE_MISTAKES,
    CONTRIBUTIONS_MISTAKES,
    DIAGNOSES,
    PLOT_MYSTERIES,
    REMOVAL_EFFECTS_MISTAKES,
    check_capstone_layer,
    check_contributions,
    check_plot_diagnoses,
    check_removal_effects,
)
from course_utils.checks.nb06 import (
    GRAD_SCORES_MISTAKES,
    SOFTMAX_BACKWARD_MISTAKES,
    check_grad_scores,
    check_softmax_backward,
)
from course_utils.checks.nb07 import ONLINE_UPDATE_MISTAKES, check_online_update

__all__ = [
    # notebook 01
    "check_softmax",
    "check_attention_row",
    "check_scores_for_third_value",
    "SOFTMAX_MISTAKES",
    "ATTENTION_ROW_MISTAKES",
    "SCORES_FOR_THIRD_VALUE_MISTAKES",
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
    # notebook 04
    "check_split_heads",
    "check_merge_heads",
    "check_multi_head_attention",
    "SPLIT_HEADS_MISTAKES",
    "MERGE_HEADS_MISTAKES",
    "MULTI_HEAD_ATTENTION_MISTAKES",
    # notebook 05
    "check_plot_diagnoses",
    "check_contributions",
    "check_removal_effects",
    "check_capstone_layer",
    "DIAGNOSES",
    "PLOT_MYSTERIES",
    "CONTRIBUTIONS_MISTAKES",
    "REMOVAL_EFFECTS_MISTAKES",
    "CAPSTONE_MISTAKES",
    # notebook 06
    "check_softmax_backward",
    "check_grad_scores",
    "SOFTMAX_BACKWARD_MISTAKES",
    "GRAD_SCORES_MISTAKES",
    # notebook 07
    "check_online_update",
    "ONLINE_UPDATE_MISTAKES",
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
    "NOT_A_USUAL_MISTAKE",
    "CORRECT",
    "WRONG",
    "NOT_ATTEMPTED",
]
