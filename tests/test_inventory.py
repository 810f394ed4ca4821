"""The concept inventory (course_utils.lessons.inventory) and its form (course_utils.widgets.inventory).

- every item has exactly one right choice; every other choice is a named misconception whose name is the one a
  notebook's *Myth or fact?* section or a checker uses, with its own feedback;
- every pointer (item and choice) names a cell that exists in the solved and the learner notebook, in the section
  it says;
- the choice orders are deterministic and differ between the two attempts;
- the "pre" form saves and teaches nothing; the "post" form saves and shows the feedback of the chosen answer;
- every Submit writes a new file, never over another one; nothing leaves the folder it is given.
"""
from __future__ import annotations

import html
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import nbformat
import pytest

from course_utils.checks import CHECKERS
from course_utils.lessons import inventory as inv
from course_utils.widgets.inventory import ConceptInventory

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS, LEARNER = ROOT / "solutions", ROOT / "notebooks"
NOON = datetime(2026, 12, 1, 12, 0, 0, tzinfo=timezone.utc)
_notebooks: dict[Path, nbformat.NotebookNode] = {}


def notebook(path):
    if path not in _notebooks:
        _notebooks[path] = nbformat.read(path, as_version=4)
    return _notebooks[path]


def all_choices():
    return [(item, choice) for item in inv.ITEMS for choice in item.choices]


def pointers():
    """Every (what, Where) the inventory points to."""
    found = [(f"item {item.key}", item.see) for item in inv.ITEMS]
    found += [(f"item {item.key}, choice {choice.key!r}", choice.see) for item, choice in all_choices() if choice.see]
    return found


# --- the items ---------------------------------------------------------------------------------------


def test_there_are_ten_to_twelve_items_with_distinct_keys():
    assert 10 <= len(inv.ITEMS) <= 12
    assert len({item.key for item in inv.ITEMS}) == len(inv.ITEMS)


@pytest.mark.parametrize("item", inv.ITEMS, ids=lambda item: item.key)
def test_every_item_has_exactly_one_right_choice_and_named_distractors(item):
    assert len(item.choices) == 4, f"{item.key}: four choices"
    assert sum(choice.correct for choice in item.choices) == 1, f"{item.key}: exactly one right choice"
    keys = [choice.key for choice in item.choices]
    assert len(set(keys)) == len(keys), f"{item.key}: two choices stored under the same key: {keys}"
    assert len({choice.text for choice in item.choices}) == len(item.choices), f"{item.key}: two choices read alike"
    for choice in item.choices:
        assert choice.text.strip() and len(choice.feedback) > 60, f"{item.key}: {choice.text!r} has no real feedback"
        if not choice.correct:
            assert choice.misconception and choice.named_in, f"{item.key}: {choice.text!r} names no misconception"


def _myth_statements(number):
    """Notebook NN's *Myth or fact?* claims: its markdown's bold quoted statements (**"..."**), and, where the
    claims have a table of their own (course_utils.lessons.myths, when present), the claims listed there for NN."""
    paths = list(SOLUTIONS.glob(f"{number}-*.ipynb"))
    assert len(paths) == 1, f"a choice is named in \"myth {number}\", but solutions/ holds {len(paths)} notebooks {number}"
    (path,) = paths
    text = "\n".join(c.source for c in notebook(path).cells if c.cell_type == "markdown")
    found = set(re.findall(r'\*\*"([^"]+)"\*\*', text))
    try:
        from course_utils.lessons import myths
    except ImportError:
        return found
    return found | {claim.claim for claim in myths.CLAIMS if claim.key.startswith(f"{number}-")}


@pytest.mark.parametrize("item, choice", [(i, c) for i, c in all_choices() if not c.correct],
                         ids=lambda x: getattr(x, "key", None) or "")
def test_every_distractor_is_named_as_a_notebook_myth_or_a_checker_mistake(item, choice):
    kind, _, where = choice.named_in.partition(" ")
    if kind == "myth":
        assert choice.misconception in _myth_statements(where), (
            f"{item.key}: {choice.misconception!r} is not a **\"...\"** statement of notebook {where}")
    else:
        assert kind == "checker", f"{item.key}: named_in must be 'myth NN' or 'checker NAME', not {choice.named_in!r}"
        assert where in CHECKERS, f"{item.key}: no checker {where!r}"
        names = {mistake.name for mistake in CHECKERS[where].mistakes}
        named = choice.mistake or choice.misconception  # the stored name stays; a renamed mistake gives its new one
        assert named in names, f"{item.key}: checker {where} names no mistake {named!r}"


def test_a_myth_the_inventory_counts_as_a_misconception_is_judged_a_myth_in_its_notebook():
    """Issue 26: 03 judged "-1e9 masks as well as -inf" a Fact (with an exception) while the inventory counted the same
    sentence as a misconception. One verdict everywhere: a wrong choice named after a claim of myths.toml is a claim
    whose answer is "myth"."""
    from course_utils.lessons import myths

    claims = {claim.claim: claim for claim in myths.CLAIMS}
    disagree = [f"{item.key}: {choice.misconception!r} is a misconception here, but myths.toml's "
                f"{claims[choice.misconception].key} rules it {claims[choice.misconception].ruling!r}"
                for item, choice in all_choices() if not choice.correct and choice.named_in.startswith("myth ")
                and choice.misconception in claims and claims[choice.misconception].answer != "myth"]
    assert not disagree, "\n".join(disagree)


def test_the_items_cover_what_the_course_teaches():
    topics = " / ".join(item.topic for item in inv.ITEMS)
    for words in ("softmax row", "max shift", "self", "Q, K and V", "sqrt(d_k)", "zeroing after", "no permitted key",
                  "causal vs padding", "W_O", "parameter count", "no assigned job", "do not explain"):
        assert words in topics, f"no item on {words!r}: {topics}"


def _section_of(nb, cell_id):
    section = None
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                match = re.match(r"##\s+(\d+)\s+·", line)
                if match:
                    section = match.group(1)
        if cell.get("id") == cell_id:
            return section
    raise KeyError(cell_id)


@pytest.mark.parametrize("what, where", pointers(), ids=[what for what, _ in pointers()])
def test_every_pointer_names_a_cell_that_exists_in_the_section_it_says(what, where):
    for folder in (SOLUTIONS, LEARNER):
        path = folder / f"{where.notebook}.ipynb"
        assert path.exists(), f"{what}: {path.relative_to(ROOT)} does not exist"
        try:
            section = _section_of(notebook(path), where.cell)
        except KeyError:
            pytest.fail(f"{what}: {path.relative_to(ROOT)} has no cell {where.cell!r}")
        assert section == where.section, f"{what}: cell {where.cell} is in section {section}, not {where.section}"


def test_the_pointer_rule_catches_a_wrong_section():
    nb = notebook(SOLUTIONS / "03-masks.ipynb")
    assert _section_of(nb, "nb03-order") == "5"
    assert _section_of(nb, "nb03-order") != "6"
    with pytest.raises(KeyError):
        _section_of(nb, "nb03-no-such-cell")


def _checker_mistake_names():
    return {mistake.name for checker in CHECKERS.values() for mistake in checker.mistakes}


def test_feedback_never_quotes_a_checker_message_the_learner_may_not_have_seen():
    """Notebook 08's feedback stands alone: a checker's mistake name (\"W_O per head\", \"exp only\") is shown only
    to a learner who made that mistake, so neither the feedback nor the form quotes one; a myth, which every
    learner read in its notebook's *Myth or fact?*, may be named."""
    names = _checker_mistake_names()
    for item, choice in all_choices():
        assert "checker" not in choice.feedback.lower(), f"{item.key}: {choice.feedback[:60]!r} refers to a checker"
        quoted = [name for name in names if f'"{name}"' in choice.feedback]
        assert not quoted, f"{item.key}: the feedback of {choice.text!r} quotes {quoted}"
    form = ConceptInventory("post")
    for number, item in enumerate(inv.ITEMS):
        for choice in item.choices:
            form.questions[number].value = choice.key
            shown = form.feedback_html(number)
            quoted = [name for name in names if f"&ldquo;{html.escape(name)}&rdquo;" in shown]
            assert not quoted, f"{item.key}: the form quotes {quoted}"
            if choice.named_in and choice.named_in.startswith("myth "):
                assert f"&ldquo;{html.escape(inv.plain_name(choice.misconception))}&rdquo;" in shown
    page = form.questions_html()
    assert not [name for name in names if f"&ldquo;{html.escape(name)}&rdquo;" in page]


# --- choice orders -----------------------------------------------------------------------------------


@pytest.mark.parametrize("number", range(len(inv.ITEMS)))
def test_choice_orders_are_permutations_fixed_by_the_seed_and_differ_between_attempts(number):
    pre, post = inv.choice_order(number, "pre"), inv.choice_order(number, "post")
    assert sorted(pre) == sorted(post) == [0, 1, 2, 3]
    assert pre != post
    assert inv.choice_order(number, "pre") == pre and inv.choice_order(number, "post") == post


def test_the_right_answer_does_not_sit_at_one_position():
    positions = {attempt: [inv.choice_order(n, attempt).index(0) for n in range(len(inv.ITEMS))]
                 for attempt in inv.ATTEMPTS}
    for attempt, found in positions.items():
        assert len(set(found)) >= 3, f"{attempt}: the right answer is always at {sorted(set(found))}"


def test_choice_order_refuses_bad_arguments():
    with pytest.raises(ValueError, match="attempt"):
        inv.choice_order(0, "during")
    with pytest.raises(TypeError, match="seed"):
        inv.choice_order(0, "pre", seed=1.5)
    with pytest.raises(ValueError, match="n_choices"):
        inv.choice_order(0, "pre", n_choices=1)


# --- scores and files --------------------------------------------------------------------------------


def test_score_and_normalised_gain():
    everything = {item.key: inv.CORRECT for item in inv.ITEMS}
    assert inv.score(everything) == 100.0
    assert inv.score({}) == 0.0
    half = {item.key: inv.CORRECT for item in inv.ITEMS[: len(inv.ITEMS) // 2]}
    assert inv.score(half) == pytest.approx(50.0)
    assert inv.normalised_gain(40.0, 70.0) == pytest.approx(0.5)
    assert inv.normalised_gain(100.0, 100.0) is None
    with pytest.raises(ValueError, match="post"):
        inv.normalised_gain(10, 120)


def test_a_record_refuses_what_is_not_an_answer():
    with pytest.raises(ValueError, match="nickname"):
        inv.make_record("   ", "pre", {})
    with pytest.raises(ValueError, match="no-such-item"):
        inv.make_record("ada", "pre", {"no-such-item": inv.CORRECT})
    with pytest.raises(ValueError, match="no choice"):
        inv.make_record("ada", "pre", {inv.ITEMS[0].key: "a guess"})


def test_saving_twice_in_the_same_second_writes_two_files(tmp_path):
    record = inv.make_record("Ada L", "pre", {inv.ITEMS[0].key: inv.CORRECT}, now=NOON)
    first = inv.save(record, tmp_path)
    content = first.read_bytes()
    second = inv.save(record, tmp_path)
    assert first != second and first.read_bytes() == content == second.read_bytes()
    assert first.name == "ada-l.pre.20261201-120000.json" and second.name == "ada-l.pre.20261201-120000-1.json"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([first.name, second.name])  # no temporary file left


def test_a_file_is_read_back_and_never_trusted(tmp_path):
    chosen = {item.key: item.choices[1].key for item in inv.ITEMS}
    path = inv.save(inv.make_record("Bo", "post", chosen, now=NOON), tmp_path)
    data = json.loads(path.read_text())
    for entry in data["items"]:
        entry["correct"] = True  # edited by hand: the report recomputes it from "chosen"
    data["score"] = 100.0
    path.write_text(json.dumps(data))
    record = inv.read_record(path)
    assert record["score"] == 0.0 and not any(entry["correct"] for entry in record["items"])
    data["items"][0]["chosen"] = "made up"
    path.write_text(json.dumps(data))
    with pytest.raises(inv.InventoryFileError, match="no choice"):
        inv.read_record(path)
    (tmp_path / "other.json").write_text('{"format": "something else"}')
    with pytest.raises(inv.InventoryFileError, match="not an answer file"):
        inv.read_record(tmp_path / "other.json")


def test_a_file_read_back_keeps_the_positions_the_choices_were_shown_at(tmp_path):
    positions = {item.key: n % 4 + 1 for n, item in enumerate(inv.ITEMS[:-1])}  # the last one left unanswered
    chosen = {key: inv.CORRECT for key in positions}
    path = inv.save(inv.make_record("Bo", "pre", chosen, positions=positions, now=NOON), tmp_path)
    record = inv.read_record(path)
    assert [entry["position"] for entry in record["items"]] == [positions.get(item.key) for item in inv.ITEMS]
    assert record == json.loads(path.read_text())


# --- the form ----------------------------------------------------------------------------------------


def _texts_of_feedback():
    return [choice.feedback for _, choice in all_choices()]


def test_the_pre_form_saves_and_teaches_nothing(tmp_path):
    form = ConceptInventory("pre", folder=tmp_path)
    form.nickname.value = "Ada"
    form.answer(1, inv.CORRECT)
    form.answer("self", "Self-attention means each token attends to itself.")
    form.answer(4, "B")
    path = form.submit()
    assert path is not None and path.parent == tmp_path and ".pre." in path.name
    record = inv.read_record(path)
    assert record["nickname"] == "Ada" and record["attempt"] == "pre"
    assert [e["chosen"] is not None for e in record["items"]].count(True) == 3
    shown = " ".join([form.status.value, *(f.value for f in form.feedback), form.questions_html(),
                      form.questions_text(), repr(form)])
    assert not any(f.value for f in form.feedback), "the before attempt shows feedback"
    assert "%" not in form.status.value and "right" not in form.status.value.lower()
    for feedback in _texts_of_feedback():
        assert feedback[:40] not in shown, f"the before attempt shows the feedback {feedback[:40]!r}"
    assert "notebook 08" in form.status.value


def test_the_post_form_shows_the_feedback_of_the_chosen_answer(tmp_path):
    form = ConceptInventory("post", folder=tmp_path)
    form.nickname.value = "Ada"
    wrong = inv.item_by_key("mask-before").choices[1]
    form.answer("softmax-row", inv.CORRECT)
    form.answer("mask-before", wrong.key)
    path = form.submit()
    assert path is not None
    right_note = form.feedback[0].value
    assert "Right" in right_note and inv.ITEMS[0].answer.feedback[:40] in right_note
    assert str(inv.ITEMS[0].see) in right_note
    index = inv.ITEMS.index(inv.item_by_key("mask-before"))
    wrong_note = form.feedback[index].value
    assert "Not this one" in wrong_note and inv.plain_name(wrong.misconception) in wrong_note
    assert wrong.feedback[:40] in wrong_note and str(wrong.see) in wrong_note
    assert "not answered" in form.feedback[2].value.lower()
    assert f"1 of {len(inv.ITEMS)} right" in form.status.value
    assert "No answers of notebook 00 under this nickname" in form.status.value  # why no gain is shown


def test_the_post_form_gives_the_learners_own_gain_when_the_pre_file_is_there(tmp_path):
    before = {item.key: inv.CORRECT for item in inv.ITEMS[:3]}                     # 3 of 12: 25 %
    inv.save(inv.make_record("Ada L", "pre", before, now=NOON), tmp_path)
    inv.save(inv.make_record("Someone Else", "pre", {}, now=NOON), tmp_path)
    form = ConceptInventory("post", folder=tmp_path)
    form.nickname.value = "  ada   l "                                                  # the same learner
    for number in range(1, 10):                                                     # 9 of 12: 75 %
        form.answer(number, inv.CORRECT)
    form.submit()
    expected = (75.0 - 25.0) / (100.0 - 25.0)
    assert "Before the course" in form.status.value and f"{expected:.2f}" in form.status.value


def test_08_answered_again_days_later_is_saved_as_the_delayed_retake(tmp_path):
    """Issue 27: the answer file records which attempt it is. The same nickname a day or more after the first "post"
    is the delayed retake, compared with that first one; a second Submit on the same day stays a "post"."""
    first = {item.key: inv.CORRECT for item in inv.ITEMS[:9]}                       # 9 of 12: 75 %
    inv.save(inv.make_record("Ada", "post", first, now=datetime.now(timezone.utc) - timedelta(days=3)), tmp_path)
    inv.save(inv.make_record("Bo", "post", first, now=datetime.now(timezone.utc) - timedelta(hours=2)), tmp_path)
    form = ConceptInventory("post", folder=tmp_path)
    form.nickname.value = "ADA"
    for number in range(1, 7):                                                      # 6 of 12: 50 %
        form.answer(number, inv.CORRECT)
    path = form.submit()
    assert ".delayed." in path.name and inv.read_record(path)["attempt"] == inv.DELAYED
    assert "delayed retake, 3 days after your first answers here (75 % then)" in form.status.value, form.status.value
    assert "Right" in form.feedback[0].value                                        # the feedback as for "post"
    form.nickname.value = "Bo"                                                      # two hours later: a resubmit
    again = form.submit()
    assert ".post." in again.name and "delayed" not in form.status.value
    assert inv.recorded_attempt("pre", "Ada", tmp_path) == ("pre", None)             # only 08's attempt turns


def test_the_button_submits_and_a_missing_nickname_saves_nothing(tmp_path):
    form = ConceptInventory("post", folder=tmp_path)
    form.button.click()
    assert "Not saved" in form.status.value and "nickname" in form.status.value
    assert list(tmp_path.iterdir()) == []
    form.nickname.value = "Cy"
    form.button.click()
    form.button.click()
    assert len(form.saved) == 2 and len(list(tmp_path.glob("cy.post.*.json"))) == 2


def test_an_unwritable_folder_is_said_not_raised(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    form = ConceptInventory("pre", folder=blocker / "inventory")
    form.nickname.value = "Di"
    assert form.submit() is None
    assert "Not saved" in form.status.value and "a-file" in form.status.value


def test_the_two_attempts_show_the_same_items_in_other_orders():
    pre, post = ConceptInventory("pre"), ConceptInventory("post")
    for a, b in zip(pre.questions, post.questions):
        assert sorted(v for _, v in a.options) == sorted(v for _, v in b.options)
        assert [v for _, v in a.options] != [v for _, v in b.options]


def test_answer_refuses_what_does_not_exist():
    form = ConceptInventory("pre")
    with pytest.raises(ValueError, match="question number"):
        form.answer(13, "A")
    with pytest.raises(ValueError, match="no choice"):
        form.answer(1, "a guess")


def test_static_views_show_the_questions_with_the_answers_folded_away():
    pre, post = ConceptInventory("pre"), ConceptInventory("post")
    for form in (pre, post):
        text = repr(form)
        assert "dashboard, whose controls work in a running notebook: " in text
        assert "\n" not in text and text.endswith(".")
        page = form.questions_html()
        assert page.startswith("<details>") and page.endswith("</details>")
        for item in inv.ITEMS:
            assert item.stem.split('"')[0][:30].replace("&", "&amp;") in page
        assert all(item.stem in form.questions_text() for item in inv.ITEMS)
    assert post.questions_html().count("<details><summary>Answer and feedback</summary>") == len(inv.ITEMS)
    assert "Answer and feedback" not in pre.questions_html()


def test_the_folder_can_be_moved_by_an_environment_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("COURSE_INVENTORY_DIR", raising=False)
    assert inv.answers_dir() == inv.ANSWERS_DIR == ROOT / "inventory"
    monkeypatch.setenv("COURSE_INVENTORY_DIR", str(tmp_path / "scratch"))
    form = ConceptInventory("pre")
    form.nickname.value = "Eve"
    path = form.submit()
    assert path.parent == tmp_path / "scratch"


def test_an_installed_package_saves_in_the_working_folder_never_in_site_packages(tmp_path, monkeypatch):
    """The Colab run wrote answers into site-packages/inventory: a package with no course folder around it (Colab,
    a plain pip install) saves into inventory/ of the working folder; in Colab the status says to download it."""
    from course_utils import doctor

    monkeypatch.delenv("COURSE_INVENTORY_DIR", raising=False)
    monkeypatch.setattr(inv, "ANSWERS_DIR", None)  # what an installed package computes (no requirements.lock beside it)
    monkeypatch.chdir(tmp_path)
    assert inv.answers_dir() == tmp_path / "inventory"
    form = ConceptInventory("pre")
    form.nickname.value = "Eve"
    path = form.submit()
    assert path.parent == tmp_path / "inventory"
    assert "Colab" not in form.status.value and "(on this computer only)" in form.status.value
    assert "inventory/</code> next to this notebook, on this computer" in form._intro_html()
    monkeypatch.setattr(doctor, "place", lambda *args, **kwargs: "colab")
    form.submit()
    assert "Colab runtime, which forgets its files" in form.status.value and "Download" in form.status.value
    assert "of this Colab runtime, which forgets it when it stops: download it" in ConceptInventory("pre")._intro_html()


@pytest.mark.parametrize("stem, cell, attempt", [("00-before-you-start", "nb00-inventory", "pre"),
                                                 ("08-what-you-learned", "nb08-inventory", "post")])
def test_the_stored_outputs_show_the_items_as_they_are(stem, cell, attempt):
    """The solved notebooks' stored outputs (what a page without a kernel shows) hold the questions as text: after
    the items or their order change, they must be the current ones (the old choices stayed there after a rewrite)."""
    (found,) = [c for c in notebook(SOLUTIONS / f"{stem}.ipynb").cells if c.get("id") == cell]
    form = ConceptInventory(attempt)
    texts = [o.get("data", {}) for o in found.outputs]
    assert any(data.get("text/plain") == form.questions_text() for data in texts), (
        f"{stem}: the stored questions are not the current ones; run tools/build.py --execute-solutions {stem}")
    assert any(data.get("text/html") == form.questions_html() for data in texts)
