"""Predict before reveal: a *Myth or fact?* claim with two buttons, the verdict shown only after a choice.

``MythOrFact("01-best-key")`` shows the claim and two toggle buttons, **Myth** and **Fact** (reached by Tab,
pressed by Space or Enter). Nothing else shows until the learner chooses; then, as text: "Correct." or "Not
quite." (in words, never by colour alone), the verdict as the notebook words it, the feedback for that choice
(what a learner who chose it probably believed, and where the notebook shows otherwise), and why. Choosing again
shows the other choice's feedback; ``first_choice`` keeps the first.

Nothing waits for a click: the demonstration cells below run under Run All. The claims, verdicts and feedback come
from ``course_utils.lessons.myths`` (their one home). In a page without a kernel the widget's text stand-in is the
question itself, and the verdict is in the markdown cell below it, folded (``verdict_markdown`` of tools/myths.py).

Tests and notebooks drive it from Python: ``choose("myth")`` does what pressing **Myth** does.
"""
from __future__ import annotations

import html
import re

import ipywidgets

from course_utils.lessons import myths
from course_utils.widgets._base import close_widgets, view_bundle

__all__ = ["MythOrFact"]

_MATH = re.compile(r"(\$[^$]+\$)")
_INLINE = [
    (re.compile(r"\*\*(.+?)\*\*"), r"<b>\1</b>"),
    (re.compile(r"\*(.+?)\*"), r"<i>\1</i>"),
]
_CODE = re.compile(r"`([^`]+)`")


def inline_html(text: str) -> str:
    """The table's markdown (``**bold**``, ``*italics*``, ```code```, ``$maths$``) as HTML for ``HTMLMath``.

    Maths is kept as ``$...$`` (escaped, not restyled) for the front end's typesetter; everything else is escaped.
    """
    parts = []
    for n, piece in enumerate(_MATH.split(text)):
        if n % 2:  # maths: left to MathJax
            parts.append(html.escape(piece, quote=False))
            continue
        chunks = []
        for k, chunk in enumerate(_CODE.split(piece)):
            if k % 2:
                chunks.append(f"<code>{html.escape(chunk, quote=False)}</code>")
                continue
            chunk = html.escape(chunk, quote=False)
            for pattern, replacement in _INLINE:
                chunk = pattern.sub(replacement, chunk)
            chunks.append(chunk)
        parts.append("".join(chunks))
    return "".join(parts)


def _plain(text: str) -> str:
    """The table's markdown as plain text: emphasis and code marks dropped, maths kept as written."""
    return "".join(piece if n % 2 else re.sub(r"\*\*|\*|`", "", piece) for n, piece in enumerate(_MATH.split(text)))


class MythOrFact:
    """One claim, two buttons (Myth, Fact), and the verdict with elaborated feedback once a choice is made.

    ``key`` is the claim's key in ``course_utils.lessons.myths`` (``"01-best-key"``).

    Attributes
    ----------
    claim : course_utils.lessons.myths.Claim
    buttons : ipywidgets.ToggleButtons
        Value None until a choice, then ``"myth"`` or ``"fact"``.
    verdict : ipywidgets.HTMLMath
        Empty until a choice (then what the module's docstring says).
    first_choice : str or None
    box : ipywidgets.VBox
    """

    def __init__(self, key):
        self.claim = myths.by_key(key)
        self.first_choice = None
        self.question = ipywidgets.HTMLMath(
            f"<p><b>Myth or fact?</b> &ldquo;{inline_html(self.claim.claim)}&rdquo;<br>"
            "Choose first: the verdict and why appear after you choose.</p>")
        self.buttons = ipywidgets.ToggleButtons(
            options=[(label, choice) for choice, label in myths.ANSWERS], value=None,
            description="Your answer:", tooltips=[f"This claim is a {label.lower()}" for _, label in myths.ANSWERS],
            style={"description_width": "initial"})
        self.buttons.add_class("course-myth-choice")
        self.verdict = ipywidgets.HTMLMath("")
        self.verdict.add_class("course-myth-verdict")
        self.buttons.observe(self._on_choice, names="value")
        self.box = ipywidgets.VBox([self.question, self.buttons, self.verdict])
        self.box.add_class("course-myth")

    # -- choosing ----------------------------------------------------------------------------------------------
    def choose(self, choice):
        """Choose ``"myth"`` or ``"fact"`` (a button's label works too), as pressing the button does; anything else
        is a ValueError."""
        keys = {key: key for key, _ in myths.ANSWERS} | {label.lower(): key for key, label in myths.ANSWERS}
        if not isinstance(choice, str) or choice.strip().lower() not in keys:
            raise ValueError(f"choice must be one of {[key for key, _ in myths.ANSWERS]}; got {choice!r}")
        self.buttons.value = keys[choice.strip().lower()]

    def _on_choice(self, change):
        choice = change["new"]
        if choice is None:
            self.verdict.value = ""
            return
        if self.first_choice is None:
            self.first_choice = choice
        self.verdict.value = self.verdict_html(choice)

    @property
    def chosen(self):
        """The current choice (``"myth"``, ``"fact"``) or None."""
        return self.buttons.value

    @property
    def correct(self):
        """True or False once a choice is made; None before."""
        return None if self.chosen is None else self.claim.is_correct(self.chosen)

    # -- what shows ----------------------------------------------------------------------------------------------
    def verdict_html(self, choice):
        """What appears under the buttons after ``choice``: correct or not in words, the verdict, feedback, why."""
        claim = self.claim
        head = "Correct." if claim.is_correct(choice) else "Not quite."
        after = f" {myths.DEMO_NOTE}" if claim.demo else ""
        return (f"<p><b>{head}</b> You chose {claim.label(choice)}. The verdict: "
                f"<b>{inline_html(claim.ruling)}</b>.</p>"
                f"<p>{inline_html(claim.feedback[choice])}</p>"
                f"<p><b>Why.</b> {inline_html(claim.explanation)}{after}</p>")

    def question_text(self):
        """The question as plain text: the widget's stand-in where no widget can be drawn."""
        return (f"Myth or fact? \u201c{_plain(self.claim.claim)}\u201d A predict-first dashboard, whose controls work "
                "in a running notebook: two buttons, Myth and Fact, then the verdict and why; here the verdict is "
                "folded in the next cell.")

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The widget's view, with the question as its text stand-in (what a page without a kernel shows)."""
        return view_bundle(self.box, self.question_text())

    def close(self):
        """Close every widget of this claim."""
        close_widgets(self.box)

    def __repr__(self):
        return self.question_text()
