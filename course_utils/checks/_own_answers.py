"""The course's own functions that would do an exercise for the learner, by exercise name: one table for the course.

A learner who answers an exercise by calling the course's function for it (``return cu.softmax(x)``) gets the right
numbers and learns nothing, so ``run_check`` does not call that answer correct (it says which function did the work,
kindly). Course functions that are not the exercise's subject stay allowed: 01's attention row may call
``cu.softmax``, 04's multi-head attention ``cu.split_heads``, ``cu.merge_heads`` and
``cu.scaled_dot_product_attention`` (the notebooks say so). An exercise whose answer is a choice or a value, or whose
computation no course function does (02's projections and scaled scores), has no entry.
"""
import course_utils as cu
from course_utils import attention, blockwise
from course_utils.lessons import influence, training

__all__ = ["own_answers"]


def _table():
    masking = {"cu.scaled_dot_product_attention": cu.scaled_dot_product_attention,
               "cu.blockwise_attention": cu.blockwise_attention, "cu.attention.apply_mask": attention.apply_mask}
    return {
        "softmax": {"cu.softmax": cu.softmax},
        "attention_row": {"cu.attention_row": cu.attention_row,
                          "cu.scaled_dot_product_attention": cu.scaled_dot_product_attention},
        "self_attention": {"cu.scaled_dot_product_attention": cu.scaled_dot_product_attention,
                           "cu.multi_head_attention": cu.multi_head_attention},
        "causal_mask": {"cu.causal_mask": cu.causal_mask},
        "padding_mask": {"cu.padding_mask": cu.padding_mask},
        "masked_attention": masking,
        "split_heads": {"cu.split_heads": cu.split_heads},
        "merge_heads": {"cu.merge_heads": cu.merge_heads},
        "multi_head_attention": {"cu.multi_head_attention": cu.multi_head_attention},
        "capstone_layer": {**masking, "cu.multi_head_attention": cu.multi_head_attention,
                           "cu.causal_mask": cu.causal_mask, "cu.padding_mask": cu.padding_mask},
        "contributions": {"cu.lessons.influence.contributions": influence.contributions},
        "removal_effects": {"cu.lessons.influence.removal_effects": influence.removal_effects,
                            "cu.lessons.influence.removal_outputs": influence.removal_outputs},
        "softmax_backward": {"cu.lessons.training.softmax_backward": training.softmax_backward},
        "grad_scores": {"cu.lessons.training.grad_scores": training.grad_scores},
        "online_update": {"cu.blockwise.online_softmax_update": blockwise.online_softmax_update,
                          "cu.blockwise._online_softmax_update": blockwise._online_softmax_update},
    }


def own_answers(name):
    """``{"cu.softmax": cu.softmax, ...}``: the course's functions that would do exercise ``name`` ({} for none)."""
    return dict(_table().get(name, {}))
