"""The reviews that open notebooks 02-05: three questions each on earlier notebooks, answered before the new material.

The questions, their choices and feedback have one home, ``course_utils/content/reviews.toml``, in the inventory's
format (``course_utils.lessons.inventory.items_from``); the widget is ``course_utils.widgets.Review``. Nothing is saved
or marked. A review's questions point (``see``) to notebooks before its own, and are not the inventory's: the
inventory measures the course, so it is not practised on the way.
"""
from __future__ import annotations

from course_utils import content
from course_utils.lessons import inventory

__all__ = ["REVIEWS", "SEED", "choice_order", "for_notebook"]

#: The seed of the choice orders (the same for every learner).
SEED = 27


def _reviews():
    source = "course_utils/content/reviews.toml"
    reviews = {}
    for entry in content.read("reviews").get("review", []):
        notebook = entry.get("notebook")
        if not notebook or notebook in reviews:
            raise content.ContentError(f"{source}: each [[review]] names its notebook once; got {notebook!r}")
        items = inventory.items_from(entry.get("item", []), f"{source}, review of {notebook}", named=False)
        later = [item.key for item in items if item.see.notebook >= notebook]
        if later:
            raise content.ContentError(f"{source}, review of {notebook}: {later} must review earlier notebooks")
        reviews[notebook] = items
    return reviews


#: notebook stem -> its review's items, in the order shown.
REVIEWS = _reviews()


def for_notebook(notebook):
    """The items of ``notebook``'s review; a KeyError naming the notebooks that have one."""
    try:
        return REVIEWS[notebook]
    except KeyError:
        raise KeyError(f"no review for {notebook!r}; the notebooks with one are {sorted(REVIEWS)}") from None


def choice_order(notebook, number, n_choices):
    """The order the choices of item ``number`` (0-based) of ``notebook``'s review are shown in: the right one at
    each position once in every ``n_choices`` items (``inventory.choice_order``'s rule), the same for everyone, and
    drawn anew for each notebook."""
    return inventory.choice_order(number, "pre", seed=SEED * 100 + int(notebook[:2]), n_choices=n_choices)
