"""The review that opens notebooks 02-05: three questions on earlier notebooks, the feedback shown on each choice.

``Review("03-masks")`` shows the review's questions (``course_utils.lessons.reviews``, their one home) as radio
buttons (reached by Tab, chosen with the arrow keys). Choosing shows under that question, as text, whether the choice
is right, why, the right answer when it is not, and the cell that shows it. Nothing is saved or marked, and nothing
waits for a click: Run All goes on. In a page without a kernel, a second output lists the questions with each answer
folded in a ``<details>``. Tests drive it from Python: ``answer(1, "B")``.
"""
from __future__ import annotations

import ipywidgets

from course_utils.lessons import reviews
from course_utils.widgets._questions import (
    QUESTIONS_CLASS,
    STYLE,
    QuestionForm,
    choice_feedback_html,
    questions_html,
    questions_text,
    radio_rows,
)

__all__ = ["Review"]


class Review(QuestionForm):
    """The review questions of ``notebook`` (its stem in solutions/), each with its feedback on choosing.

    Attributes
    ----------
    items : tuple of course_utils.lessons.inventory.Item
    questions : list of ipywidgets.RadioButtons
        One per item; a value is the chosen choice's key (None: not answered yet).
    feedback : list of ipywidgets.HTML
        One per item, under its buttons; empty until a choice.
    box : ipywidgets.VBox
    """

    def __init__(self, notebook):
        self.notebook = notebook
        self.items = reviews.for_notebook(notebook)
        self.orders = [reviews.choice_order(notebook, n, len(item.choices)) for n, item in enumerate(self.items)]
        self.questions, self.feedback, rows = radio_rows(self.items, self.orders)
        for n, radio in enumerate(self.questions):
            radio.observe(lambda change, n=n: self._show(n), names="value")
        intro = ipywidgets.HTML(STYLE + f"<p>{len(self.items)} questions on earlier notebooks. Answer from memory "
                                "first: each choice shows its feedback. Nothing is saved or marked.</p>")
        self.box = ipywidgets.VBox([intro, *rows])
        self.box.add_class(QUESTIONS_CLASS)
        self.box.add_class("course-review")

    def answer(self, number, choice):
        """Choose, as a click would: question ``number`` (1, 2, ...), ``choice`` the letter shown or the choice's
        key; a ValueError for a question or choice that does not exist."""
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(self.items):
            raise ValueError(f"number must be a question number 1-{len(self.items)}; got {number!r}")
        self._choose(self.questions[number - 1], choice, f"question {number}")

    def _show(self, index):
        key = self.questions[index].value
        self.feedback[index].value = "" if key is None else choice_feedback_html(
            self.items[index], self.orders[index], key)

    def questions_text(self):
        """The questions and their choices as plain text (the answers are in the HTML, folded)."""
        return questions_text(f"Review: {len(self.items)} questions on earlier notebooks.", self.items, self.orders)

    def questions_html(self):
        """The questions as HTML in a closed <details>, each answer folded in its own."""
        return questions_html(self.items, self.orders, answers=True)

    def __repr__(self):
        answered = sum(radio.value is not None for radio in self.questions)
        return (f"Review dashboard, whose controls work in a running notebook: {len(self.items)} questions on earlier "
                f"notebooks with radio buttons, {answered} answered; the feedback shows under each question on "
                "choosing (the questions are listed as text below, the answers folded).")
