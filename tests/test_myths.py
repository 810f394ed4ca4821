"""Predict before reveal: the Myth or fact? widget, its table (one home) and the verdict cells written from it.

- the widget shows nothing of the verdict before a choice; each choice shows, in words, "Correct." or "Not
  quite.", the verdict and that choice's own feedback; driven from Python as a click drives it (the buttons' value);
- its text stand-in (what a page without a kernel shows) is the question, with no verdict in it, and that is what
  the solved notebooks store;
- the table: a verdict and feedback for every choice, each demonstration cell right after its verdict;
- one home: every verdict cell of solutions/ and notebooks/ is what ``verdict_markdown`` writes, and no other
  markdown cell repeats a claim (``tools/myths.py``), tested on damaged copies too.
"""
import re
from pathlib import Path

import ipywidgets
import myths as tool
import nbformat
import pytest

from course_utils import content
from course_utils.lessons import myths
from course_utils.widgets.myths import MythOrFact, inline_html

ROOT = Path(__file__).resolve().parent.parent
CHOICES = [choice for choice, _ in myths.ANSWERS]
claims = pytest.mark.parametrize("claim", myths.CLAIMS, ids=[c.key for c in myths.CLAIMS])


def _notebook(folder, number):
    (path,) = (ROOT / folder).glob(f"{number}-*.ipynb")
    return nbformat.read(path, as_version=4)


# -- the widget ---------------------------------------------------------------------------------------------------

@claims
def test_nothing_of_the_verdict_shows_before_a_choice(claim):
    widget = MythOrFact(claim.key)
    assert widget.chosen is None and widget.correct is None and widget.first_choice is None
    assert widget.verdict.value == ""
    shown = widget.question.value + widget.question_text()
    for words in (claim.explanation[:40], *(claim.feedback[c][:40] for c in CHOICES), "Correct.", "Not quite."):
        assert inline_html(words) not in shown and words not in shown
    assert inline_html(claim.claim) in widget.question.value
    widget.close()


@claims
@pytest.mark.parametrize("choice", CHOICES)
def test_each_choice_shows_its_own_feedback_and_says_right_or_not_in_words(claim, choice):
    widget = MythOrFact(claim.key)
    widget.buttons.value = choice                            # what pressing the button does
    other = next(c for c in CHOICES if c != choice)
    text = widget.verdict.value
    assert inline_html(claim.feedback[choice]) in text
    assert inline_html(claim.feedback[other]) not in text
    assert inline_html(claim.ruling) in text and inline_html(claim.explanation) in text
    expected, wrong = ("Correct.", "Not quite.") if choice == claim.answer else ("Not quite.", "Correct.")
    assert expected in text and wrong not in text
    assert widget.correct is (choice == claim.answer)
    widget.close()


def test_choosing_again_shows_the_other_feedback_and_keeps_the_first_choice():
    widget = MythOrFact("03-minus-1e9")                      # a myth: Fact is the wrong choice
    widget.choose("Fact")
    assert "Not quite." in widget.verdict.value
    widget.choose("myth")
    assert "Correct." in widget.verdict.value
    assert inline_html(widget.claim.feedback["myth"]) in widget.verdict.value
    assert widget.first_choice == "fact" and widget.chosen == "myth"
    widget.buttons.value = None                              # deselected: nothing shows again
    assert widget.verdict.value == ""


def test_bad_keys_and_choices_are_named():
    with pytest.raises(KeyError, match="01-best-key"):
        MythOrFact("01-no-such-claim")
    widget = MythOrFact("01-best-key")
    with pytest.raises(ValueError, match="choice must be one of"):
        widget.choose("maybe")
    assert widget.verdict.value == ""


def test_the_buttons_are_text_buttons_a_keyboard_reaches():
    widget = MythOrFact("01-best-key")
    assert isinstance(widget.buttons, ipywidgets.ToggleButtons)   # one <button> per choice: Tab, Space, Enter
    assert [label for label, _ in widget.buttons.options] == ["Myth", "Fact"]
    assert widget.buttons.disabled is False
    assert "course-myth-choice" in widget.buttons._dom_classes
    assert "course-myth-verdict" in widget.verdict._dom_classes


def test_inline_html_escapes_and_keeps_maths():
    assert inline_html("**a** *b* `x<y` $a < b$ & c") == "<b>a</b> <i>b</i> <code>x&lt;y</code> $a &lt; b$ &amp; c"
    assert inline_html("$w_i *2* w_j$") == "$w_i *2* w_j$"


# -- what a page without a kernel shows -----------------------------------------------------------------------

@claims
def test_the_text_stand_in_is_the_question_and_the_notebooks_store_it(claim):
    widget = MythOrFact(claim.key)
    bundle = widget._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    text = bundle["text/plain"]
    assert text.startswith("Myth or fact?") and claim.claim in text and "folded in the next cell" in text
    assert claim.explanation[:40] not in text and "Correct" not in text
    nb = _notebook("solutions", claim.notebook)
    (cell,) = [nb.cells[n] for n, key in tool.asked_claims(nb) if key == claim.key]
    stored = [o["data"]["text/plain"] for o in cell.outputs if "text/plain" in o.get("data", {})]
    assert stored == [text], f"{claim.key}: re-execute the notebook (the stored stand-in differs)"


@claims
def test_the_verdict_cell_is_folded_closed_and_the_demonstration_follows_it(claim):
    text = tool.verdict_markdown(claim.key)
    assert text.startswith("<details><summary>Verdict (choose first)</summary>\n\n") and text.endswith("</details>")
    assert "<details open" not in text
    assert f'**"{claim.claim}"**' in text                  # on one line: how the notebooks' claims are found
    assert all(len(line) <= tool.WIDTH for line in text.splitlines())
    nb = _notebook("solutions", claim.notebook)
    ids = [c.get("id") for c in nb.cells]
    (asked,) = [n for n, key in tool.asked_claims(nb) if key == claim.key]
    if claim.demo:
        assert ids.index(claim.demo) == asked + 2, f"{claim.key}: {claim.demo} must follow the verdict cell"


# -- the table ------------------------------------------------------------------------------------------------

@claims
def test_every_claim_has_a_verdict_and_feedback_for_each_choice(claim):
    assert claim.answer in CHOICES
    assert claim.ruling.lower().startswith(claim.answer)
    assert set(claim.feedback) == set(CHOICES)
    wrong = next(c for c in CHOICES if c != claim.answer)
    assert len(claim.feedback[wrong]) > 150, f"{claim.key}: a wrong choice gets elaborated feedback"
    assert len(claim.feedback[claim.answer]) > 40 and claim.feedback[wrong] != claim.feedback[claim.answer]
    assert re.search(r"section \d|notebook \d\d|demonstration below", claim.feedback[wrong], re.I), (
        f"{claim.key}: the feedback says where the notebook shows otherwise")


def test_a_fact_holds_as_worded():
    """Issue 26: "A bigger score always means a bigger weight." was ruled "Fact, within one row", and "-1e9 masks as well
    as -inf." "Fact, for every row with a permitted key": a learner who read the claim in the other case, where the
    verdict itself says it fails, was told "Not quite". A claim true only under a condition says the condition itself,
    so a Fact is ruled "Fact", with no proviso."""
    qualified = [f"{claim.key}: {claim.ruling!r}" for claim in myths.CLAIMS
                 if claim.answer == "fact" and claim.ruling != "Fact"]
    assert not qualified, "put the condition into the claim, and rule it plain Fact:\n" + "\n".join(qualified)


def test_keys_are_unique_and_name_a_notebook_with_a_myth_section():
    keys = [claim.key for claim in myths.CLAIMS]
    assert len(set(keys)) == len(keys)
    listed = {notebook.number for notebook in content.notebooks()}
    assert set(tool.NOTEBOOKS) <= listed, f"claims of notebooks notebooks.toml does not list: {set(tool.NOTEBOOKS) - listed}"
    assert [c.key for c in myths.claims_of("03-masks")] == [k for k in keys if k.startswith("03-")]


# -- one home ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("folder", ["solutions", "notebooks"])
@pytest.mark.parametrize("number", tool.NOTEBOOKS)
def test_the_verdict_cells_are_written_from_the_table_and_no_other_cell_repeats_a_claim(folder, number):
    problems = tool.problems(_notebook(folder, number), number)
    assert not problems, f"{folder}/{number}:\n" + "\n".join(problems)


def _copy(number):
    nb = _notebook("solutions", number)
    return nbformat.reads(nbformat.writes(nb), as_version=4)


def test_one_home_catches_an_edited_verdict_a_copied_claim_and_a_missing_question(tmp_path):
    nb = _copy("02")
    n, key = tool.asked_claims(nb)[1]
    nb.cells[n + 1].source = nb.cells[n + 1].source.replace("Myth.", "Myth!")
    assert any(key in p for p in tool.problems(nb, "02"))
    nb = _copy("02")
    nb.cells[0].source += f'\n\n**"{myths.by_key("02-self-itself").claim}"** is a myth.'
    assert any("whose home is" in p for p in tool.problems(nb, "02"))
    nb = _copy("02")
    n, _ = tool.asked_claims(nb)[0]
    del nb.cells[n]
    assert any("myths.toml has" in p for p in tool.problems(nb, "02"))


def test_the_tool_writes_the_verdict_cells_back(tmp_path):
    for number in tool.NOTEBOOKS:
        (path,) = (ROOT / "solutions").glob(f"{number}-*.ipynb")
        (tmp_path / path.name).write_bytes(path.read_bytes())
    (path,) = tmp_path.glob("04-*.ipynb")
    nb = nbformat.read(path, as_version=4)
    n, _ = tool.asked_claims(nb)[0]
    nb.cells[n + 1].source = nb.cells[n + 1].source.replace("Myth", "Fact")
    del nb.cells[tool.asked_claims(nb)[2][0] + 1]            # one verdict cell gone
    nbformat.write(nb, path)
    assert tool.main(["--solutions", str(tmp_path)]) == 1
    assert tool.main(["--solutions", str(tmp_path), "--write"]) == 0
    assert not tool.problems(nbformat.read(path, as_version=4), "04")
    assert tool.main(["--solutions", str(ROOT / "solutions")]) == 0
