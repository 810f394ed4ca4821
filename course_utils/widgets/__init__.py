"""Slider dashboards for the notebooks (ipywidgets + matplotlib).

``_base`` holds the mechanics shared by every dashboard (see :class:`Dashboard`); each other
module holds the dashboards of one notebook.
"""
from course_utils.widgets._base import Dashboard, float_slider
from course_utils.widgets.heads import HeadsDashboard
from course_utils.widgets.inventory import ConceptInventory
from course_utils.widgets.learned import TrainingDashboard
from course_utils.widgets.masks import MaskBeforeAfterDashboard, MaskExplorerDashboard
from course_utils.widgets.myths import MythOrFact
from course_utils.widgets.qkv import ScalingDashboard
from course_utils.widgets.reading import ValueScaleDashboard
from course_utils.widgets.review import Review
from course_utils.widgets.row import AttentionRowDashboard
from course_utils.widgets.scale import OnlineSoftmaxDashboard

__all__ = ["Dashboard", "float_slider", "AttentionRowDashboard", "ScalingDashboard",
           "MaskExplorerDashboard", "MaskBeforeAfterDashboard", "ValueScaleDashboard",
           "HeadsDashboard", "OnlineSoftmaxDashboard", "TrainingDashboard", "ConceptInventory", "MythOrFact", "Review"]
