"""Hints in levels (course_utils/checks/_levels.py, course_utils/content/hint_levels.toml; issue 24).

The first failed check of an exercise shows what is wrong; the second adds the idea and the notebook cell that shows
it, the third a near-solution step, the fourth where to compare with the solved notebook. A check of the same answer
again (the cell re-run, a comment added) keeps the level; a correct answer in between resets nothing.
"""
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hint_registry import EXERCISES
from learner_answers import all_answers, known_gaps

from course_utils import content
from course_utils.checks import CHECKERS, _levels, check_attention_row, check_softmax

ROOT = Path(__file__).resolve().parent.parent
ENTRIES = _levels.texts()
BY_EXERCISE = {}
_GAPS = known_gaps()
for _answer in all_answers():
    if _answer.id not in _GAPS:  # a wrong answer a checker still accepts has no level to go through
        BY_EXERCISE.setdefault(_answer.exercise, []).append(_answer.fn)
STEMS = {notebook.number: notebook.stem for notebook in content.notebooks()}
#: The exercises the listed notebooks check: a fork that drops a notebook keeps its checkers, not its hint levels.
TAUGHT = tuple(exercise for exercise in EXERCISES
               if any(f"check_{exercise}(" in (ROOT / "solutions" / f"{stem}.ipynb").read_text(encoding="utf-8")
                      for stem in STEMS.values()))
LABELS = ("The idea", "Next step", "Compare")
ONE, TWO = np.array([1.0]), np.array([2.0])
ONE_AGAIN = ONE.copy()


@pytest.fixture(autouse=True)
def fresh_kernel(monkeypatch):
    """Every test starts as a new kernel does: no failed check yet."""
    monkeypatch.setattr(_levels, "ATTEMPTS", {})


def define(source, **names):
    """The functions a notebook cell with ``source`` defines, as running that cell does (a new object each time)."""
    namespace = {"__name__": "__main__", "np": np, **names}
    exec(compile(source, "<cell>", "exec"), namespace)
    return namespace


NO_SHIFT = "def my_softmax(x):\n    e = np.exp(x)\n    return e / e.sum(axis=-1, keepdims=True)\n"
NO_KEEPDIMS = "def my_softmax(x):\n    e = np.exp(x - x.max(axis=-1))\n    return e / e.sum(axis=-1)\n"
WHOLE_ARRAY = "def my_softmax(x):\n    e = np.exp(x - x.max())\n    return e / e.sum()\n"
RAW = "def my_softmax(x):\n    return x\n"
RIGHT = ("def my_softmax(x):\n    e = np.exp(x - x.max(axis=-1, keepdims=True))\n"
         "    return e / e.sum(axis=-1, keepdims=True)\n")


def softmax(source):
    return define(source)["my_softmax"]


def labels(result):
    return [label for label, _ in result.more]


# ----------------------------------------------------------------------------- the levels
def test_each_changed_wrong_answer_shows_one_level_more_up_to_the_fourth():
    results = [check_softmax(softmax(source)) for source in (NO_SHIFT, NO_KEEPDIMS, WHOLE_ARRAY, RAW, NO_SHIFT)]
    assert [r.status for r in results] == ["wrong"] * 5
    assert [r.level for r in results] == [1, 2, 3, 4, 4]
    assert [labels(r) for r in results] == [[], ["The idea"], ["The idea", "Next step"], list(LABELS), list(LABELS)]
    first, second, third, fourth = results[:4]
    assert first.text == f"{first.message}\nHint: {first.hint}"  # the first failed check: what is wrong, as before
    entry = ENTRIES["softmax"]
    assert f"\nThe idea: {entry['idea']} Notebook 01 shows it" in second.text
    assert f"\nNext step: {entry['step']}" in third.text and entry["step"] not in second.text
    assert "solutions/01-one-attention-row.ipynb" in fourth.text and "#cell-id=nb01-ex1" in fourth.text
    for result in results:  # every level keeps the report of this answer
        assert result.text.startswith(f"{result.message}\nHint: {result.hint}")


def test_the_same_answer_checked_again_keeps_its_level():
    assert check_softmax(softmax(NO_SHIFT)).level == 1
    assert check_softmax(softmax(NO_SHIFT)).level == 1  # the cell run again: a new function, the same answer
    commented = NO_SHIFT.replace("    e = np.exp(x)\n", "    # exponentiate\n\n    e = np.exp(x)   # (rows, T)\n")
    assert check_softmax(softmax(commented)).level == 1
    second = check_softmax(softmax(NO_KEEPDIMS))
    again = check_softmax(softmax(NO_KEEPDIMS))
    assert (second.level, again.level, again.more) == (2, 2, second.more)
    assert check_softmax(softmax(NO_SHIFT.replace("keepdims=True", "keepdims=False"))).level == 3  # a constant changed


def test_a_correct_answer_in_between_resets_nothing():
    assert check_softmax(softmax(NO_SHIFT)).level == 1
    right = check_softmax(softmax(RIGHT))
    assert right.status == "correct" and right.level is None and right.more == ()
    assert check_softmax(softmax(NO_SHIFT)).level == 1  # the answer that last failed: not a new attempt
    assert check_softmax(softmax(NO_KEEPDIMS)).level == 2
    assert check_softmax(softmax(RIGHT)).status == "correct"
    assert check_softmax(softmax(WHOLE_ARRAY)).level == 3


def test_not_attempted_counts_for_nothing_and_each_exercise_counts_on_its_own():
    stub = define("def my_softmax(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n")["my_softmax"]
    assert check_softmax(stub).status == "not attempted"
    assert check_softmax(softmax(NO_SHIFT)).level == 1
    assert check_softmax(softmax(RAW)).level == 2
    row = define("def my_attention_row(scores, values):\n    return values.mean(axis=0), scores\n")
    assert check_attention_row(row["my_attention_row"]).level == 1
    assert set(_levels.ATTEMPTS) == {"softmax", "attention_row"}  # the state: a dict in the kernel, by exercise


def test_a_changed_helper_is_a_changed_answer():
    """my_attention_row calling the notebook's my_softmax: fixing my_softmax changes the answer checked."""
    row = "def my_attention_row(scores, values):\n    weights = my_softmax(scores)\n    return weights @ values, weights\n"
    assert check_attention_row(define(RAW + row)["my_attention_row"]).level == 1  # my_softmax returns the scores
    assert check_attention_row(define(RAW + row)["my_attention_row"]).level == 1
    halved = define(RAW.replace("return x", "return x / 2") + row)
    assert check_attention_row(halved["my_attention_row"]).level == 2


def test_answers_that_are_not_functions_of_the_notebook_are_counted_too():
    assert check_softmax(np.exp).level == 1  # a numpy function passed itself
    assert check_softmax(np.exp).level == 1
    assert check_softmax(lambda x, shift=ONE: x - shift).level == 2
    assert check_softmax(lambda x, shift=ONE_AGAIN: x - shift).level == 2  # the same numbers: the same answer
    assert check_softmax(lambda x, shift=TWO: x - shift).level == 3  # only a default changed
    assert check_softmax(lambda x, scale=2.0: x * scale).level == 4

def test_a_closure_over_other_numbers_is_another_answer(monkeypatch):
    def scaled(scale):
        return lambda x: x * scale

    assert check_softmax(scaled(2.0)).level == 1
    assert check_softmax(scaled(2.0)).level == 1
    assert check_softmax(scaled(3.0)).level == 2


class Hostile:
    """A learner's callable whose own methods must not run when the answer is fingerprinted."""

    def __call__(self, x):
        return x

    def __repr__(self):
        raise AssertionError("repr ran")

    def __eq__(self, other):
        raise AssertionError("eq ran")

    __hash__ = None

    def __getattr__(self, name):
        raise AssertionError(f"getattr {name} ran")


def test_a_fingerprint_runs_none_of_the_learners_methods():
    assert _levels.fingerprint(Hostile()) == _levels.fingerprint(Hostile())
    def calling(hostile, scale=None):
        return lambda x, scale=scale: hostile(x)

    assert _levels.fingerprint(calling(Hostile())) == _levels.fingerprint(calling(Hostile()))  # in a closure
    assert _levels.fingerprint(calling(Hostile(), Hostile())) == _levels.fingerprint(calling(Hostile(), Hostile()))
    assert _levels.fingerprint(Hostile().__call__) != _levels.fingerprint(Hostile())  # a bound method: its code


def test_an_answer_too_deep_to_read_still_gets_its_report():
    deep = []
    for _ in range(100_000):
        deep = [deep]
    result = check_softmax(lambda x, nested=deep: x)
    assert result.status == "wrong" and result.level == 1 and "checker itself" not in result.text


def test_the_levels_show_in_the_notebook_box():
    for source in (NO_SHIFT, NO_KEEPDIMS, WHOLE_ARRAY, RAW):
        result = check_softmax(softmax(source))
    page = result._repr_html_()
    assert page.count('<div style="margin-top:6px"><strong>') == 4
    for label in ("Hint", *LABELS):
        assert f"<strong>{label}:</strong>" in page
    assert "<code" in page and "x.max(axis=-1, keepdims=True)</code>" in page
    for remote in ("http", "<script", "src=", "<link", "<style", "class="):
        assert remote not in page


# ----------------------------------------------------------------------------- every exercise
@pytest.mark.parametrize("exercise", TAUGHT)
def test_every_exercise_goes_through_its_levels(exercise):
    answers = BY_EXERCISE[exercise][:4]
    assert len(answers) == 4, f"{exercise}: tests/learner_answers/ needs 4 wrong answers"
    check = CHECKERS[exercise].function
    results = [check(fn) for fn in answers]
    assert [r.level for r in results] == [1, 2, 3, 4], [r.text for r in results]
    assert labels(results[-1]) == list(LABELS)


def words(text):
    return len(text.split())


@pytest.mark.parametrize("exercise", TAUGHT)
def test_every_exercise_has_its_levels_each_under_160_words(exercise):
    entry = ENTRIES[exercise]
    texts = [_levels.level_text(exercise, entry, level)[1] for level in (2, 3, 4)]
    assert all(words(text) < 160 for text in texts), [words(t) for t in texts]
    assert words(" ".join(texts)) < 160  # all three together, shown after the checker's own hint
    assert words(entry["idea"]) < 60 and len(re.findall(r"[.!?](\s|$)", entry["idea"])) <= 2, "one or two sentences"


def test_every_entry_is_an_exercise():
    assert set(ENTRIES) == set(TAUGHT)
    assert len(TAUGHT) > len(STEMS), "the listed notebooks' exercises are found"


def cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def heading_and_cell(path, cell_id):
    """(the heading of the section the cell is in, as shown, without its minutes; the cell) of ``path``."""
    heading = None
    for cell in cells(path):
        source = "".join(cell["source"])
        if cell.get("id") == cell_id:
            return heading, cell
        if cell["cell_type"] == "markdown":
            for line in source.splitlines():
                found = re.match(r"#{1,6}\s+(.*)", line)
                if found:
                    heading = re.sub(r"\s*\*\(\d+ min\)\*\s*$", "", found.group(1)).strip()
    raise AssertionError(f"{path.relative_to(ROOT)} has no cell {cell_id!r}")


@pytest.mark.parametrize("exercise", TAUGHT)
@pytest.mark.parametrize("folder", ["solutions", "notebooks"])
def test_every_cell_named_is_in_the_solved_and_the_learner_notebook(exercise, folder):
    entry = ENTRIES[exercise]
    shows = ROOT / folder / f"{STEMS[entry['cell'][2:4]]}.ipynb"
    section, cell = heading_and_cell(shows, entry["cell"])
    assert section == entry["section"]
    assert cell["cell_type"] == "code" and "".join(cell["source"]).lstrip().startswith(entry["starts"])
    stem = STEMS[entry["answer"][2:4]]
    assert entry["solved"] == f"solutions/{stem}.ipynb"
    section, cell = heading_and_cell(ROOT / folder / f"{stem}.ipynb", entry["answer"])
    assert section == entry["answer_section"]
    source = "".join(cell["source"])
    assert f"def my_{exercise}(" in source
    assert ("### BEGIN SOLUTION" in source) == (folder == "solutions")


def test_an_entry_without_a_field_is_named(monkeypatch):
    monkeypatch.setattr(content, "read", lambda name: {"softmax": {"idea": "An idea."}})
    _levels.texts.cache_clear()
    try:
        with pytest.raises(content.ContentError, match=r"hint_levels\.toml, \[softmax\]: missing or unknown .*'step'"):
            _levels.texts()
    finally:
        monkeypatch.undo()
        _levels.texts.cache_clear()
