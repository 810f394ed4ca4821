"""The *Myth or fact?* claims of notebooks 01-07, read from their one home, ``course_utils/content/myths.toml``.

Each claim is asked before it is answered: the notebook shows ``cu.widgets.MythOrFact("01-best-key")`` (the claim
and two buttons, **Myth** and **Fact**; the verdict, the explanation and the feedback for the choice appear only
after a choice), and right below it a markdown cell that holds the same verdict folded away for a page without a
running notebook, written from the claim by ``python tools/myths.py --write`` (its ``verdict_markdown``) and
checked against it by the tests, so the words have one home: the data file.

Text fields are markdown with inline maths (``$...$``), ``**bold**``, ``*italics*`` and ```code``` only: the widget
turns them into HTML (``course_utils.widgets.myths``), and the notebooks render them as they are.

The concept inventory (``course_utils.lessons.inventory``) names some of these claims as its distractors.
"""
from __future__ import annotations

from dataclasses import dataclass

from course_utils import content

__all__ = ["ANSWERS", "CLAIMS", "Claim", "by_key", "claims_of"]

#: Where the demonstration of a claim is, as the widget and the folded verdict say it.
DEMO_NOTE = "The demonstration is the code cell after the folded verdict."

#: The choices a learner has, as (key, button label); every claim's ``answer`` is one of the keys.
ANSWERS = (("myth", "Myth"), ("fact", "Fact"))
_LABEL = dict(ANSWERS)


@dataclass(frozen=True)
class Claim:
    """One claim of a notebook's *Myth or fact?* section.

    Attributes
    ----------
    key : str
        ``"NN-name"``: NN is the notebook's number (``"01-best-key"``); what ``MythOrFact`` is called with.
    claim : str
        The claim, without its quotes (markdown).
    answer : {"myth", "fact"}
        The choice marked correct.
    ruling : str
        The verdict as the notebook words it: ``"Myth"``, ``"Myth, as worded"``, ``"Fact, within one row"``.
    explanation : str
        Why, in a few sentences (markdown); a demonstration cell, if any, comes right after the verdict.
    feedback : dict
        Choice key -> what a learner who made that choice probably believed (a wrong choice), or what to keep from
        it (the right one), and where the notebook shows it.
    demo : str or None
        The id of the demonstration cell that follows the verdict; None when an earlier section shows it.
    """

    key: str
    claim: str
    answer: str
    ruling: str
    explanation: str
    feedback: dict
    demo: str | None = None

    @property
    def notebook(self) -> str:
        """The notebook's number, ``"01"``."""
        return self.key[:2]

    def label(self, choice: str) -> str:
        """The button label of a choice key (``"myth"`` -> ``"Myth"``)."""
        return _LABEL[choice]

    def is_correct(self, choice: str) -> bool:
        return choice == self.answer


def _claims():
    """The claims of ``course_utils/content/myths.toml``, each checked for what the notebooks need."""
    claims = []
    for number, entry in enumerate(content.read("myths").get("claim", []), 1):
        where = f"course_utils/content/myths.toml, claim {number} ({entry.get('key', 'no key')})"
        missing = [field for field in ("key", "claim", "answer", "ruling", "explanation", "feedback") if field not in entry]
        if missing:
            raise content.ContentError(f"{where}: no {', '.join(missing)}")
        if entry["answer"] not in _LABEL:
            raise content.ContentError(f"{where}: answer must be \"myth\" or \"fact\"; got {entry['answer']!r}")
        if sorted(entry["feedback"]) != sorted(_LABEL):
            raise content.ContentError(f"{where}: [claim.feedback] must hold exactly myth = ... and fact = ...; "
                                       f"got {sorted(entry['feedback'])}")
        if entry["key"] in (claim.key for claim in claims):
            raise content.ContentError(f"{where}: the key {entry['key']!r} is used twice")
        claims.append(Claim(entry["key"], entry["claim"], entry["answer"], entry["ruling"], entry["explanation"],
                            dict(entry["feedback"]), entry.get("demo")))
    return tuple(claims)


#: Every claim, in the order the notebooks ask them (course_utils/content/myths.toml).
CLAIMS = _claims()

_BY_KEY = {claim.key: claim for claim in CLAIMS}


def by_key(key: str) -> Claim:
    """The claim stored under ``key`` (``"01-best-key"``).

    Raises
    ------
    KeyError
        For a key that is not in myths.toml; the message lists the keys of the same notebook.
    """
    try:
        return _BY_KEY[key]
    except (KeyError, TypeError):
        same = [k for k in _BY_KEY if isinstance(key, str) and k[:2] == key[:2]] or list(_BY_KEY)
        raise KeyError(f"key must name a claim of course_utils.lessons.myths, such as {same[0]!r}; got {key!r} "
                       f"(keys of that notebook: {same})") from None


def claims_of(notebook: str) -> list[Claim]:
    """The claims of one notebook (``"03"``, or a stem such as ``"03-masks"``), in the order they are asked."""
    return [claim for claim in CLAIMS if claim.notebook == str(notebook)[:2]]

