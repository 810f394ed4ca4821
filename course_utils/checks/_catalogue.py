"""The checkers' side of the course-wide catalogue of known mistakes (course_utils/content/mistakes.toml): a checker
names a catalogue mistake by its id and shows the catalogue's hint, so the same mistake reads the same in every
exercise; only how the mistake is recognised (its reproduce functions, error predicate) is the checker's own.
"""
from course_utils import content
from course_utils.checks._framework import KnownMistake

__all__ = ["CATALOGUE", "catalogued"]

#: {id: content.Mistake}, the catalogue as the content file gives it.
CATALOGUE = content.mistakes()


def catalogued(mistake_id, **how):
    """The KnownMistake ``mistake_id`` of the catalogue, with the catalogue's hint; ``how`` gives ``reproduce``,
    ``error`` or ``matches`` as ``KnownMistake`` takes them, written with the exercise's signature."""
    return KnownMistake(mistake_id, CATALOGUE[mistake_id].hint, **how)
