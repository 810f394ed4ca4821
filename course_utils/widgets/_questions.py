"""Multiple-choice questions as radio buttons, with feedback per choice: what the inventory and the reviews share.

The HTML of one choice's feedback (right or not in words, why, the answer, the cell that shows it), the questions as
a closed ``<details>`` for a page without a kernel, and the radio rows themselves.
"""
from __future__ import annotations

import html
import string

import ipywidgets

from course_utils.lessons import inventory as inv
from course_utils.widgets._base import Form

__all__ = ["LETTERS", "QUESTIONS_CLASS", "STYLE", "QuestionForm", "choice_feedback_html", "esc", "myth_named",
           "questions_html", "questions_text", "radio_rows"]

LETTERS = string.ascii_uppercase
#: ipywidgets gives each radio label one line's fixed height: a choice longer than the notebook is wide would wrap
#: onto the next one. In a box of class course-questions (QUESTIONS_CLASS), labels grow with their text.
QUESTIONS_CLASS = "course-questions"
STYLE = ("<style>.course-questions .widget-radio-box label {display: flex; align-items: flex-start; height: auto; "
         "line-height: 1.35; padding: 3px 0; white-space: normal;} .course-questions .widget-radio-box input "
         "{order: -1; float: none; flex: 0 0 auto; height: auto; margin: 2px 8px 0 1px;}</style>")


def esc(text):
    return html.escape(str(text), quote=True)


def myth_named(choice, before):
    """``before`` + "the myth “...” of notebook NN." for a wrong choice named in a notebook's *Myth or fact?*, which
    every learner has read; "" for a checker's mistake, whose name only a learner who made it has seen (its
    feedback says what it is)."""
    kind, _, where = (choice.named_in or "").partition(" ")
    if kind != "myth":
        return ""
    return f"{before}the myth &ldquo;{esc(inv.plain_name(choice.misconception))}&rdquo; of notebook {esc(where)}."


def choice_feedback_html(item, order, key):
    """The feedback for choice ``key`` (None: not answered) of ``item`` shown in ``order``: right or not in words,
    why, the right answer and its reason when the choice is wrong, and the cell that shows it."""
    answer = item.answer
    answer_letter = LETTERS[order.index(item.choices.index(answer))]
    if key is None:
        head = f"<b>Not answered.</b> The answer is {answer_letter}: {esc(answer.feedback)}"
        return f"<div>{head} <i>See {esc(item.where(answer))}.</i></div>"
    choice = item.choice(key)
    if choice.correct:
        return (f"<div><b>&#10003; Right ({answer_letter}).</b> {esc(choice.feedback)} "
                f"<i>See {esc(item.where(choice))}.</i></div>")
    return (f"<div><b>&#10007; Not this one ({LETTERS[order.index(item.choices.index(choice))]}).</b>"
            f"{myth_named(choice, ' It is ')} {esc(choice.feedback)} "
            f"<i>See {esc(item.where(choice))}.</i><br>"
            f"The answer is {answer_letter}: {esc(answer.feedback)}</div>")


def questions_text(title, items, orders):
    """``title``, then each of ``items`` numbered with its choices in ``orders``, as plain text (no answers)."""
    lines = [title]
    for n, (item, order) in enumerate(zip(items, orders), 1):
        lines.append(f"{n}. {item.stem}")
        lines += [f"   {LETTERS[k]}. {item.choices[i].text}" for k, i in enumerate(order)]
    return "\n".join(lines)


def questions_html(items, orders, *, answers, end=""):
    """``items`` as HTML in a closed <details> (for a page without a kernel), their choices in ``orders``;
    ``answers``: each item's answer and feedback folded in its own <details>; ``end`` closes the list."""
    parts = [f"<details><summary>The {len(items)} questions as text (for a page without a running "
             "notebook)</summary>", "<ol>"]
    for item, order in zip(items, orders):
        choices = "".join(f"<li>{esc(item.choices[i].text)}</li>" for i in order)
        part = f"<li><p>{esc(item.stem)}</p><ol type=\"A\">{choices}</ol>"
        if answers:
            part += "<details><summary>Answer and feedback</summary><ul>"
            for k, i in enumerate(order):
                choice = item.choices[i]
                verdict = "right." if choice.correct else f"not right.{myth_named(choice, ' It is ')}"
                part += (f"<li>{LETTERS[k]}: {verdict} {esc(choice.feedback)} "
                         f"<i>See {esc(item.where(choice))}.</i></li>")
            part += "</ul></details>"
        parts.append(part + "</li>")
    return "".join(parts + ["</ol>", end, "</details>"])


class QuestionForm(Form):
    """What the inventory's form and a review share: radio buttons ``questions`` (values: the choices' keys), a
    ``feedback`` line under each, all in ``box``; shown with the questions as text for a page without a kernel
    (``questions_html`` and ``questions_text``, each form's own)."""

    @staticmethod
    def _choose(radio, choice, what):
        """Set ``radio`` to ``choice`` (the letter shown or the choice's key) as a click would; a ValueError naming
        ``what`` when it has no such choice."""
        keys = [value for _, value in radio.options]
        if isinstance(choice, str) and len(choice) == 1 and choice.upper() in LETTERS[:len(keys)]:
            choice = keys[LETTERS.index(choice.upper())]
        if choice not in keys:
            raise ValueError(f"{what} has no choice {choice!r}; choose a letter {list(LETTERS[:len(keys)])} or one of "
                             f"{keys}")
        radio.value = choice

    def static_bundle(self):
        """The questions as HTML in a closed <details>, and as plain text."""
        return {"text/html": self.questions_html(), "text/plain": self.questions_text()}


def radio_rows(items, orders):
    """One row per item (class course-question): its stem, radio buttons with its choices in ``orders`` (values: the
    choices' keys), and an empty feedback line (class course-question-feedback). Returns ``(radios, notes, rows)``."""
    radios, notes, rows = [], [], []
    for n, (item, order) in enumerate(zip(items, orders), 1):
        options = [(f"{LETTERS[k]}. {item.choices[i].text}", item.choices[i].key) for k, i in enumerate(order)]
        radio = ipywidgets.RadioButtons(options=options, value=None, layout=ipywidgets.Layout(width="100%"))
        note = ipywidgets.HTML("")
        note.add_class("course-question-feedback")
        radios.append(radio)
        notes.append(note)
        rows.append(ipywidgets.VBox([ipywidgets.HTML(f"<b>{n}. {esc(item.stem)}</b>"), radio, note],
                                    layout=ipywidgets.Layout(margin="0 0 12px 0")))
        rows[-1].add_class("course-question")
    return radios, notes, rows
