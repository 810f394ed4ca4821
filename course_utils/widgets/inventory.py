"""The concept inventory's form: one set of radio buttons per item, a nickname, one Submit button.

``ConceptInventory("pre")`` (end of notebook 00) saves the answers and says nothing about them: the "before"
attempt must not teach. ``ConceptInventory("post")`` (notebook 08) saves them too, then shows under every item
the elaborated feedback for the chosen answer and the cell that demonstrates it, the score, and, when a "pre"
file with the same nickname is in the folder, the learner's own normalised gain. A "post" Submit a day or more
after the learner's first one there is saved as the delayed retake (``inventory.recorded_attempt``) and compared
with it.

The items, their answers, the choice orders and the files come from ``course_utils.lessons.inventory`` (their
one home). Nothing is sent anywhere: each Submit writes one new file under ``inventory/``.

Static views (no kernel): the form's text stand-in is one sentence, and a second output lists the questions
as HTML inside a closed ``<details>`` ("post": each item's answer and feedback folded inside another
``<details>``; "pre": no answers at all). Tests and notebooks drive the form from Python: ``answer(...)``,
``nickname.value = ...``, ``submit()`` (what the button calls).
"""
from __future__ import annotations

from datetime import datetime

import ipywidgets

from course_utils.lessons import inventory as inv
from course_utils.safe_files import WriteError
from course_utils.widgets._questions import (
    QUESTIONS_CLASS,
    STYLE,
    QuestionForm,
    choice_feedback_html,
    esc,
    questions_html,
    questions_text,
    radio_rows,
)

__all__ = ["ConceptInventory"]

_PHASE = {"pre": "before the course", "post": "after the course"}


def _in_colab():
    """True in a Colab runtime (course_utils.doctor.place says where the course runs)."""
    from course_utils.doctor import place

    return place() == "colab"


class ConceptInventory(QuestionForm):
    """The inventory's twelve questions as radio buttons, a nickname box and one Submit button.

    Parameters
    ----------
    attempt : {"pre", "post"}
        "pre": no feedback at all (end of notebook 00). "post": per-item feedback after Submit (notebook 08).
    seed : int, default course_utils.lessons.inventory.SEED
        The choice orders (``choice_order``): the same for everyone; "pre" and "post" differ.
    folder : path, optional
        Where Submit writes (default ``inventory/`` in the course folder, or ``$COURSE_INVENTORY_DIR``).

    Attributes
    ----------
    questions : list of ipywidgets.RadioButtons
        One per item, in ``ITEMS`` order; a value is the chosen choice's key (None: unanswered).
    feedback : list of ipywidgets.HTML
        One per item, under its buttons; empty until a "post" Submit.
    nickname : ipywidgets.Text
    button : ipywidgets.Button
    status : ipywidgets.HTML
        What the last Submit did (the file written, or what to fix).
    saved : list of Path
        Every file this form wrote.
    """

    def __init__(self, attempt, *, seed=inv.SEED, folder=None):
        if attempt not in inv.ATTEMPTS:
            raise ValueError(f"attempt must be one of {inv.ATTEMPTS}; got {attempt!r}")
        self.attempt = attempt
        self.folder = folder
        self.saved = []
        self.orders = [inv.choice_order(n, attempt, seed, len(item.choices)) for n, item in enumerate(inv.ITEMS)]
        self.questions, self.feedback, rows = radio_rows(inv.ITEMS, self.orders)
        self.nickname = ipywidgets.Text(
            description="Nickname", placeholder="any name you will type again in notebook 08",
            layout=ipywidgets.Layout(width="460px"))
        self.button = ipywidgets.Button(description="Submit my answers", button_style="primary",
                                        layout=ipywidgets.Layout(width="200px"))
        self.status = ipywidgets.HTML("")
        self.button.on_click(lambda _: self.submit())
        intro = ipywidgets.HTML(STYLE + self._intro_html())
        self.box = ipywidgets.VBox([intro, *rows, self.nickname, self.button, self.status])
        self.box.add_class(QUESTIONS_CLASS)
        self.box.add_class("course-inventory")

    # -- answering ----------------------------------------------------------------------------
    def answer(self, item, choice):
        """Choose an answer, as a click would: ``item`` is the question's number as shown (1-12) or its key
        (``"softmax-row"``), ``choice`` the letter shown ("A"-"D") or the choice's key (``CORRECT`` or a
        misconception's name). An item or choice that does not exist is a ValueError.
        """
        index = self._index(item)
        self._choose(self.questions[index], choice, f"item {inv.ITEMS[index].key!r}")

    def _index(self, item):
        if isinstance(item, str):
            return inv.ITEMS.index(inv.item_by_key(item))
        if isinstance(item, bool) or not isinstance(item, int) or not 1 <= item <= len(inv.ITEMS):
            raise ValueError(f"item must be a question number 1-{len(inv.ITEMS)} or an item key; got {item!r}")
        return item - 1

    @property
    def chosen(self):
        """dict: item key -> the chosen choice's key, or None."""
        return {item.key: radio.value for item, radio in zip(inv.ITEMS, self.questions)}

    # -- submitting ----------------------------------------------------------------------------
    def submit(self):
        """Save the answers to a new file; in "post", show the feedback. What the Submit button does.

        Returns the file written, or None when nothing was saved (no nickname, or the folder is not writable:
        ``status`` says what to do).
        """
        try:
            positions = {item.key: radio.index + 1 for item, radio in zip(inv.ITEMS, self.questions)
                         if radio.index is not None}
            attempt, first_post = inv.recorded_attempt(self.attempt, self.nickname.value, self.folder)
            record = inv.make_record(self.nickname.value, attempt, self.chosen, positions=positions)
            path = inv.save(record, self.folder)
        except (ValueError, WriteError) as err:
            self.status.value = f"<b>Not saved.</b> {esc(err)}"
            return None
        self.saved.append(path)
        answered = sum(value is not None for value in self.chosen.values())
        saved = f"Saved in <code>{esc(path.parent.name)}/{esc(path.name)}</code> (on this computer only)."
        if _in_colab():
            saved = (f"Saved in <code>{esc(path)}</code>, in this Colab runtime, which forgets its files when it "
                     "stops: download it (Files panel on the left, the file's menu, Download) to keep it or hand it in.")
        unanswered = len(inv.ITEMS) - answered
        left = f" {unanswered} question{'s' if unanswered != 1 else ''} left blank." if unanswered else ""
        if self.attempt == "pre":
            self.status.value = (f"{saved}{left} Your answers are not marked now: the same questions come back "
                                 "in notebook 08, at the end of the course, with the answers and why.")
            return path
        for n in range(len(inv.ITEMS)):
            self.feedback[n].value = self.feedback_html(n)
        self.status.value = f"{saved}{left} {self.score_sentence(record, path, first_post)}"
        return path

    def score_sentence(self, record, path, first_post=None):
        """The score; the learner's own gain when a "pre" file of the same nickname is beside ``path``; for the
        delayed retake, the score of the first "post" (``first_post``) and how many days ago it was."""
        right = sum(entry["correct"] for entry in record["items"])
        text = f"<b>{right} of {len(inv.ITEMS)} right ({record['score']:.0f} %).</b>"
        if record["attempt"] == inv.DELAYED:
            days = (datetime.fromisoformat(record["saved_at"]) - datetime.fromisoformat(first_post["saved_at"])).days
            text += (f" Saved as your delayed retake, {days} day{'s' if days != 1 else ''} after your first answers "
                     f"here ({first_post['score']:.0f} % then): what is still right is what stayed.")
        pre = inv.first_record(record["nickname"], "pre", path.parent)
        if pre is None:
            return (f"{text} No answers of notebook 00 under this nickname are in {esc(path.parent.name)}/, so no gain "
                    "is shown. The feedback is under each question.")
        before = pre["score"]
        gain = inv.normalised_gain(before, record["score"])
        gain_text = ("you had every answer right before" if gain is None
                     else f"your normalised gain (after - before) / (100 - before) is {gain:.2f}")
        return (f"{text} Before the course (your first attempt in notebook 00): {before:.0f} %; {gain_text}. "
                "The feedback is under each question.")

    def feedback_html(self, index):
        """The feedback shown under question ``index`` (0-based) after a "post" Submit."""
        return choice_feedback_html(inv.ITEMS[index], self.orders[index], self.questions[index].value)

    # -- what shows ----------------------------------------------------------------------------
    def _intro_html(self):
        if self.attempt == "pre":
            if _in_colab():
                where = "of this Colab runtime, which forgets it when it stops: download it after Submit"
            elif inv.ANSWERS_DIR is None:  # no course folder (a plain pip install, a lone copy): the working folder
                where = "next to this notebook, on this computer"
            else:
                where = "on this computer"
            return ("<p>Answer what you can, guess or leave the rest blank, type a nickname and press "
                    "<b>Submit my answers</b>. Nothing is marked now and nothing is sent anywhere: the answers "
                    f"go to a file in <code>inventory/</code> {where}.</p>")
        return ("<p>The same twelve questions as at the end of notebook 00, with the choices in another "
                "order. Type the <b>same nickname</b> as then, answer, and press <b>Submit my answers</b>: "
                "the feedback appears under each question.</p>")

    def questions_text(self):
        """The questions and their choices as plain text (no answers)."""
        return questions_text(f"Concept inventory, {_PHASE[self.attempt]}: {len(inv.ITEMS)} questions.", inv.ITEMS,
                              self.orders)

    def questions_html(self):
        """The questions as HTML in a closed <details>; in "post", each answer folded in its own <details>."""
        end = "<p>No answers here on purpose: they come in notebook 08.</p>" if self.attempt == "pre" else ""
        return questions_html(inv.ITEMS, self.orders, answers=self.attempt == "post", end=end)

    def __repr__(self):
        answered = sum(value is not None for value in self.chosen.values())
        nickname = f"“{self.nickname.value.strip()}”" if self.nickname.value.strip() else "not typed yet"
        return (f"Concept inventory ({_PHASE[self.attempt]}) dashboard, whose controls work in a running notebook: "
                f"{len(inv.ITEMS)} questions with radio buttons, {answered} answered; nickname: {nickname}; "
                "one Submit button that saves the answers in inventory/ on this computer (the questions are "
                "listed as text below).")

