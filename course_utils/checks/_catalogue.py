"""The checkers' side of the hint texts, which live in course_utils/content: a checker builds each known mistake
from its id and keeps only how the mistake is recognised (its reproduce functions, error predicate).

``catalogued(id)``       a mistake of the course-wide catalogue (mistakes.toml): the same hint in every exercise
``own(exercise, id)``    one of an exercise's own mistakes (hints.toml, ``[<exercise>.mistakes]``)
``own_hints(exercise)``  an exercise's generic hints per kind of problem (hints.toml, ``[<exercise>.generic]``)
``own_texts(exercise)``  the texts a checker composes its hints from (hints.toml, ``[<exercise>.texts]``)
"""
from course_utils import content
from course_utils.checks._framework import KnownMistake

__all__ = ["CATALOGUE", "HINTS", "catalogued", "own", "own_hints", "own_texts"]

#: {id: content.Mistake}, the catalogue as the content file gives it.
CATALOGUE = content.mistakes()
#: {exercise: {"mistakes": {id: text, or {variant: text}}, "generic": {kind: text}, "texts": {key: text}}}, as
#: hints.toml gives it.
HINTS = content.read("hints")


def catalogued(mistake_id, **how):
    """The KnownMistake ``mistake_id`` of the catalogue, with the catalogue's hint; ``how`` gives ``reproduce``,
    ``error`` or ``matches`` as ``KnownMistake`` takes them, written with the exercise's signature."""
    return KnownMistake(mistake_id, CATALOGUE[mistake_id].hint, **how)


def own(exercise, mistake_id, *, fill=None, choose=None, **how):
    """The KnownMistake ``mistake_id`` with its hint from hints.toml's ``[<exercise>.mistakes]``.

    Parameters
    ----------
    exercise : str
        The table of the text: the exercise's own, or another exercise's that has the same mistake (one text).
    mistake_id : str
        The mistake's id there (``CheckResult.mistake``).
    fill : callable, optional
        ``fill(got, args) -> dict``: the values of the text's ``{name}`` fields for the case reported.
    choose : callable, optional
        ``choose(got, args) -> str``: the variant to show, for a mistake with several texts.
    **how
        ``reproduce``, ``error`` or ``matches``, as ``KnownMistake`` takes them.

    Raises
    ------
    content.ContentError
        No such entry, or variants without ``choose`` (or ``choose`` without variants).
    """
    text = _entry(exercise, "mistakes", mistake_id)
    if isinstance(text, dict) != (choose is not None):
        raise content.ContentError(f'course_utils/content/hints.toml, [{exercise}.mistakes] "{mistake_id}": '
                                   f"{'variants need' if choose is None else 'one text takes no'} choose= in its checker")
    if fill is None and choose is None:
        return KnownMistake(mistake_id, text, **how)

    def hint(got, args):
        chosen = text[choose(got, args)] if choose else text
        return chosen.format(**fill(got, args)) if fill else chosen

    return KnownMistake(mistake_id, hint, **how)


def own_hints(exercise):
    """{kind of problem: hint}: the generic hints of ``exercise`` (hints.toml's ``[<exercise>.generic]``), for
    ``run_check(hints=...)``."""
    return dict(_entry(exercise, "generic"))


def own_texts(exercise):
    """{key: text}: hints.toml's ``[<exercise>.texts]``, the parts of the hints a checker composes itself from the
    answer (their ``{name}`` fields for the checker's ``str.format``)."""
    return dict(_entry(exercise, "texts"))


def _entry(exercise, table, key=None):
    try:
        found = HINTS[exercise][table]
        return found if key is None else found[key]
    except KeyError:
        raise content.ContentError(f"course_utils/content/hints.toml has no [{exercise}.{table}]"
                                   + (f' "{key}"' if key else "") + " (a checker asks for it)") from None
