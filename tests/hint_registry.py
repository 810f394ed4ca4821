"""Every exercise checker with its known mistakes, by exercise name (for the hint-precision test and
tools/hint_report.py).

An exercise name is the checker's name without ``check_`` (``"softmax"`` for ``check_softmax``),
the name the answers in tests/learner_answers/ register under.
"""
import importlib

# exercise -> (checker module, checker name, name of its mistake table or None)
EXERCISES = {
    "softmax": ("nb01", "check_softmax", "SOFTMAX_MISTAKES"),
    "attention_row": ("nb01", "check_attention_row", "ATTENTION_ROW_MISTAKES"),
    "scores_for_third_value": ("nb01", "check_scores_for_third_value", "SCORES_FOR_THIRD_VALUE_MISTAKES"),
    "shapes": ("nb02", "check_shapes", None),
    "project": ("nb02", "check_project", "PROJECT_MISTAKES"),
    "scaled_scores": ("nb02", "check_scaled_scores", "SCALED_SCORES_MISTAKES"),
    "self_attention": ("nb02", "check_self_attention", "SELF_ATTENTION_MISTAKES"),
    "causal_mask": ("nb03", "check_causal_mask", "CAUSAL_MASK_MISTAKES"),
    "padding_mask": ("nb03", "check_padding_mask", "PADDING_MASK_MISTAKES"),
    "masked_attention": ("nb03", "check_masked_attention", "MASKED_ATTENTION_MISTAKES"),
    "buggy_masks": ("nb03", "check_buggy_masks", None),
    "split_heads": ("nb04", "check_split_heads", "SPLIT_HEADS_MISTAKES"),
    "merge_heads": ("nb04", "check_merge_heads", "MERGE_HEADS_MISTAKES"),
    "multi_head_attention": ("nb04", "check_multi_head_attention", "MULTI_HEAD_ATTENTION_MISTAKES"),
    "plot_diagnoses": ("nb05", "check_plot_diagnoses", None),
    "contributions": ("nb05", "check_contributions", "CONTRIBUTIONS_MISTAKES"),
    "removal_effects": ("nb05", "check_removal_effects", "REMOVAL_EFFECTS_MISTAKES"),
    "capstone_layer": ("nb05", "check_capstone_layer", "CAPSTONE_MISTAKES"),
    "softmax_backward": ("nb06", "check_softmax_backward", "SOFTMAX_BACKWARD_MISTAKES"),
    "grad_scores": ("nb06", "check_grad_scores", "GRAD_SCORES_MISTAKES"),
    "online_update": ("nb07", "check_online_update", "ONLINE_UPDATE_MISTAKES"),
}


def checker_and_mistakes(exercise):
    """(check function, tuple of KnownMistake) of an exercise (an empty tuple when it has no table)."""
    module_name, check_name, table = EXERCISES[exercise]
    module = importlib.import_module(f"course_utils.checks.{module_name}")
    return getattr(module, check_name), tuple(getattr(module, table, ())) if table else ()
