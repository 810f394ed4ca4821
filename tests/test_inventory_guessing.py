"""The concept inventory cannot be passed by guessing (issue 26).

A test-wise newcomer who knows nothing of attention still has rules of thumb: pick the longest choice, the
shortest, the most hedged one, the one that repeats the question's words, or always the same letter. Each rule
here is run over the items as the learner sees them (``choice_order``); where a rule finds several choices alike
(a tie), the guesser picks one of them at random and scores the expected share. No rule may score more than 4 of
the 12 items (chance is 3), and the right choice is the longest in at most 3 items.

Every choice answers the question in the same form and a similar length, so the lengths of one item's choices
stay within a factor of 1.6 of each other.
"""
from __future__ import annotations

import re

import pytest

from course_utils.lessons import inventory as inv

#: The most items a guessing rule may get right (chance is a quarter of 12: 3).
MOST_BY_GUESSING = 4
#: In at most this many items is the right choice the longest.
MOST_LONGEST_RIGHT = 3
#: The longest choice of an item is at most this many times as long as its shortest.
LENGTH_RATIO = 1.6

#: Words that qualify a claim (a test-wise guesser prefers them) and words that make it absolute (avoided).
HEDGES = ("about", "approximately", "roughly", "nearly", "almost", "may", "might", "can", "could", "often",
          "usually", "mostly", "some", "only", "unless", "depends", "depend", "not", "but", "on its own", "likely",
          "in general", "tends", "some of", "partly")
ABSOLUTES = ("always", "never", "all", "every", "nothing", "must", "any", "whatever", "just", "exactly", "no",
             "none", "completely", "entirely")
#: Words too common to count as repeating the stem.
STOPWORDS = set("""a an the of to in on at by for with from and or but is are was were be been it its this that
these those what which who how why does do did one each some any every there then than as into over under after
before their them they you your can may not no all has have had will would should could""".split())


def words(text):
    return re.findall(r"[a-z0-9_]+", text.lower())


def count_phrases(text, phrases):
    padded = f" {' '.join(words(text))} "
    return sum(padded.count(f" {phrase} ") for phrase in phrases)


def hedging(text):
    """How hedged a choice reads: its qualifying words minus its absolute ones."""
    return count_phrases(text, HEDGES) - count_phrases(text, ABSOLUTES)


def stem_overlap(stem, text):
    """How many of the stem's own words (not the common ones) a choice repeats."""
    stem_words = {w for w in words(stem) if w not in STOPWORDS and len(w) > 2}
    return len(stem_words & set(words(text)))


def shown(number, attempt):
    """Item ``number``'s choices in the order ``attempt`` shows them."""
    item = inv.ITEMS[number]
    return [item.choices[i] for i in inv.choice_order(number, attempt, n_choices=len(item.choices))]


def by_measure(measure, pick=max):
    """A rule that picks the choice(s) with the largest (or smallest) ``measure(item, choice)``."""
    def rule(item, choices):
        values = [measure(item, c) for c in choices]
        best = pick(values)
        return [c for c, v in zip(choices, values) if v == best]
    return rule


RULES = {
    "the longest": by_measure(lambda item, c: len(c.text)),
    "the shortest": by_measure(lambda item, c: len(c.text), min),
    "the most hedged": by_measure(lambda item, c: hedging(c.text)),
    "the least absolute": by_measure(lambda item, c: -count_phrases(c.text, ABSOLUTES)),
    "the one repeating the stem most": by_measure(lambda item, c: stem_overlap(item.stem, c.text)),
}


def expected_score(rule, attempt):
    """The items a guesser following ``rule`` gets right, on average over the ties it breaks at random."""
    total = 0.0
    for number, item in enumerate(inv.ITEMS):
        picked = rule(item, shown(number, attempt))
        total += sum(c.correct for c in picked) / len(picked)
    return total


def test_the_rules_see_what_they_claim():
    assert hedging("About 0.6, but it can vary.") == 3 and hedging("Always all of them.") == -2
    assert stem_overlap("What does the max shift change?", "The shift changes nothing.") == 1
    item = inv.ITEMS[0]
    longest = max(item.choices, key=lambda c: len(c.text))
    assert RULES["the longest"](item, list(item.choices)) == [longest]


@pytest.mark.parametrize("attempt", inv.ATTEMPTS)
@pytest.mark.parametrize("rule", RULES, ids=str)
def test_no_guessing_rule_scores_more_than_4_of_12(rule, attempt):
    score = expected_score(RULES[rule], attempt)
    assert score <= MOST_BY_GUESSING, (
        f"{attempt}: picking {rule} choice scores {score:.2f} of {len(inv.ITEMS)} without knowing anything")


@pytest.mark.parametrize("attempt", inv.ATTEMPTS)
def test_no_fixed_position_scores_more_than_4_of_12(attempt):
    for position in range(4):
        right = sum(shown(n, attempt)[position].correct for n in range(len(inv.ITEMS)))
        assert right <= MOST_BY_GUESSING, (
            f"{attempt}: always answering {'ABCD'[position]} gets {right} of {len(inv.ITEMS)} right")


def test_the_right_choice_is_the_longest_in_at_most_3_items():
    longest = [item.key for item in inv.ITEMS
               if len(item.answer.text) >= max(len(c.text) for c in item.choices)]
    assert len(longest) <= MOST_LONGEST_RIGHT, f"the right choice is the longest in {len(longest)} items: {longest}"


@pytest.mark.parametrize("item", inv.ITEMS, ids=lambda item: item.key)
def test_the_choices_of_an_item_have_similar_lengths(item):
    lengths = {c.text: len(c.text) for c in item.choices}
    assert max(lengths.values()) <= LENGTH_RATIO * min(lengths.values()), f"{item.key}: {lengths}"
