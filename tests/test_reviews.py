"""The reviews that open notebooks 02-05 (issue 27): three questions each on earlier notebooks, feedback per choice.

The content (course_utils/content/reviews.toml) is checked as the inventory's is: one right choice, every named
distractor a real myth or checker mistake, every pointer a cell in the section it says, and no question of the
inventory practised on the way. The widget shows the feedback of the choice made, and the static view the answers
folded. Each notebook with a review shows it before its first section.
"""
from __future__ import annotations

import html
import re

import pytest
from course_notebooks import LEARNER, SOLUTIONS
from test_inventory import _checker_mistake_names, _myth_statements, _section_of, notebook

from course_utils.checks import CHECKERS
from course_utils.lessons import inventory as inv
from course_utils.lessons import reviews
from course_utils.widgets import Review

ITEMS = [(stem, item) for stem, items in reviews.REVIEWS.items() for item in items]
IDS = [item.key for _, item in ITEMS]


def test_notebooks_02_to_05_each_open_with_three_questions_on_earlier_notebooks():
    assert sorted(reviews.REVIEWS) == ["02-queries-keys-values", "03-masks", "04-multi-head-attention",
                                       "05-reading-attention-plots"]
    for stem, items in reviews.REVIEWS.items():
        assert len(items) == 3, stem
        assert all(item.see.notebook < stem for item in items), stem
    # interleaved: from 03 on, a review is not only about the notebook just before
    for stem, items in reviews.REVIEWS.items():
        if stem >= "03":
            assert len({item.see.notebook for item in items}) >= 2, f"{stem} reviews one notebook only"


def test_review_questions_are_not_the_inventorys():
    keys = [item.key for _, item in ITEMS]
    assert len(set(keys)) == len(keys) and not set(keys) & {item.key for item in inv.ITEMS}
    stems = {item.stem for item in inv.ITEMS}
    assert not [item.key for _, item in ITEMS if item.stem in stems]


@pytest.mark.parametrize("stem, item", ITEMS, ids=IDS)
def test_each_choice_has_feedback_and_each_named_distractor_exists(stem, item):
    assert sum(choice.correct for choice in item.choices) == 1 and len(item.choices) >= 3
    mistakes = _checker_mistake_names()
    for choice in item.choices:
        assert len(choice.feedback.split()) >= 8, f"{item.key}: {choice.text!r} has hardly any feedback"
        assert "checker" not in choice.feedback.lower()
        assert not [name for name in mistakes if f'"{name}"' in choice.feedback]
        kind, _, where = (choice.named_in or "").partition(" ")
        if kind == "myth":
            assert choice.misconception in _myth_statements(where), f"{item.key}: no myth {choice.misconception!r}"
        elif kind:
            assert kind == "checker" and where in CHECKERS, f"{item.key}: {choice.named_in!r}"
            assert choice.misconception in {m.name for m in CHECKERS[where].mistakes}, (
                f"{item.key}: checker {where} names no mistake {choice.misconception!r}")


@pytest.mark.parametrize("stem, item", ITEMS, ids=IDS)
def test_every_pointer_names_a_cell_in_the_section_it_says(stem, item):
    for folder in (SOLUTIONS, LEARNER):
        section = _section_of(notebook(folder / f"{item.see.notebook}.ipynb"), item.see.cell)
        assert section == item.see.section, f"{item.key}: {item.see.cell} is in section {section}"


def test_the_right_choice_moves_between_positions():
    for stem, items in reviews.REVIEWS.items():
        places = [reviews.choice_order(stem, n, len(item.choices)).index(0) for n, item in enumerate(items)]
        assert sorted(places) == [0, 1, 2], (stem, places)


def test_a_choice_shows_its_own_feedback_and_the_answer_when_wrong():
    review = Review("04-multi-head-attention")
    item = review.items[1]                                       # the causal mask's permitted keys
    right = review.orders[1].index(0)
    wrong = next(k for k in range(3) if k != right)
    review.answer(2, "ABC"[wrong])
    shown = review.feedback[1].value
    choice = item.choices[review.orders[1][wrong]]
    assert "Not this one" in shown and html.escape(choice.feedback[:40]) in shown
    assert f"The answer is {'ABC'[right]}" in shown and str(item.see) in shown
    review.answer(2, inv.CORRECT)
    assert "Right" in review.feedback[1].value and review.feedback[0].value == ""
    with pytest.raises(ValueError, match="no choice 'D'"):
        review.answer(1, "D")
    assert "3 questions" in repr(review) and "1 answered" in repr(review)


def test_the_static_view_lists_the_questions_with_each_answer_folded():
    review = Review("02-queries-keys-values")
    page = review.questions_html()
    assert page.startswith("<details>") and page.count("<summary>Answer and feedback</summary>") == 3
    for item in review.items:
        assert html.escape(item.stem) in page and html.escape(item.answer.feedback[:30]) in page
    assert review.items[0].stem in review.questions_text()


@pytest.mark.parametrize("stem", sorted(reviews.REVIEWS))
def test_each_notebook_shows_its_review_before_its_first_section(stem):
    for folder in (SOLUTIONS, LEARNER):
        cells = notebook(folder / f"{stem}.ipynb").cells
        first = next(n for n, c in enumerate(cells) if c.cell_type == "markdown" and re.search(r"^## 1 ·", c.source,
                                                                                                 re.M))
        calls = [n for n, c in enumerate(cells) if c.cell_type == "code" and f'Review("{stem}")' in c.source]
        assert calls and calls[0] < first, f"{folder.name}/{stem}: no Review(\"{stem}\") before section 1"


def test_no_guessing_rule_finds_the_right_choice_much_better_than_chance():
    """The trial found the right choice the longest in 7 of 12 review questions (and often the only one with a
    reason). The test-wise rules of tests/test_inventory_guessing.py (longest, shortest, most hedged, least absolute,
    repeating the stem) each score at most 5 of 12 here, where chance with three choices is 4."""
    from test_inventory_guessing import RULES

    items = [(stem, n, item) for stem, its in reviews.REVIEWS.items() for n, item in enumerate(its)]
    for name, rule in RULES.items():
        score = 0.0
        for stem, n, item in items:
            shown = [item.choices[i] for i in reviews.choice_order(stem, n, len(item.choices))]
            picked = rule(item, shown)
            score += sum(choice.correct for choice in picked) / len(picked)
        assert score <= 5, f"picking {name} choice scores {score:.2f} of {len(items)} review questions"


@pytest.mark.parametrize("stem", sorted(reviews.REVIEWS))
def test_the_stored_outputs_show_the_review_as_it_is(stem):
    """The static HTML shows the solved notebook's stored outputs: a review edited in content/reviews.toml must be
    re-executed into them (tools/build.py --execute-solutions STEM)."""
    review = Review(stem)
    cells = [c for c in notebook(SOLUTIONS / f"{stem}.ipynb").cells if c.cell_type == "code" and "Review(" in c.source]
    texts = [o.get("data", {}).get("text/plain") for c in cells for o in c.get("outputs", [])]
    assert review.questions_text() in texts, (
        f"{stem}: the stored review is not the current one; run tools/build.py --execute-solutions {stem}")
