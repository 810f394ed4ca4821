"""The lesson content as data (course_utils/content/*.toml): read as written, and a mistake in a file is named.

An instructor edits these files without Python, so a broken one must say which file, which entry and what is wrong,
never a KeyError from deep inside the package or a widget that shows nothing.
"""
import shutil

import pytest

from course_utils import content
from course_utils.checks import masks as mask_checks
from course_utils.checks import reading as reading_checks
from course_utils.lessons import inventory, myths


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A copy of the content folder, read instead of the package's."""
    copy = tmp_path / "content"
    shutil.copytree(content.FOLDER, copy, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    monkeypatch.setattr(content, "FOLDER", copy)
    return copy


def replace(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is not in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_every_content_file_is_read_and_each_text_is_one_line():
    for path in sorted(content.FOLDER.glob("*.toml")):
        data = content.read(path.stem)
        assert data, path.name

        def strings(value):
            if isinstance(value, str):
                yield value
            elif isinstance(value, dict):
                for item in value.values():
                    yield from strings(item)
            elif isinstance(value, list):
                for item in value:
                    yield from strings(item)

        assert all("\n" not in s and "  " not in s for s in strings(data)), path.name


def test_a_wrapped_text_reads_as_one_paragraph(folder):
    replace(folder / "myths.toml", "claim = 'Attention picks the best key.'", "claim = '''\nAttention picks\n   the best key.'''")
    assert myths._claims()[0].claim == "Attention picks the best key."


def test_the_modules_hold_what_the_files_say():
    first = content.read("myths")["claim"][0]
    assert myths.CLAIMS[0].key == first["key"] and myths.CLAIMS[0].feedback == first["feedback"]
    item = content.read("inventory")["item"][0]
    assert inventory.ITEMS[0].stem == item["stem"] and len(inventory.ITEMS[0].choices) == len(item["choice"])
    answers = content.read("answers")
    assert mask_checks._VERDICTS[("causal", "A")].why == answers["buggy_masks"]["causal"]["A"]["why"]
    assert reading_checks._VERDICTS["P"].diagnosis == answers["plot_diagnoses"]["P"]["diagnosis"]


def test_a_file_that_is_not_toml_is_named_with_its_line(folder):
    replace(folder / "myths.toml", 'answer = "myth"', 'answer = "myth')
    with pytest.raises(content.ContentError, match=r"myths\.toml: .*line \d+"):
        myths._claims()


#: (file, its reader, the text replaced, by what, what the error must say): each mistake an editor makes.
MISTAKES = [
    ("myths", lambda: myths._claims(), 'answer = "myth"', 'answer = "Myth"',
     r'claim 1 \(01-best-key\): answer must be "myth" or "fact"; got \'Myth\''),
    ("myths", lambda: myths._claims(), 'ruling = "Myth"\n', "", r"claim 1 \(01-best-key\): no ruling"),
    ("myths", lambda: myths._claims(), 'key = "01-max-shift"', 'key = "01-best-key"',
     r"claim 2 \(01-best-key\): the key '01-best-key' is used twice"),
    ("myths", lambda: myths._claims(), "[claim.feedback]\nmyth =", "[claim.feedback]\nmyths =",
     r"claim 1 \(01-best-key\): \[claim.feedback\] must hold"),
    ("inventory", lambda: inventory._items(), 'named_in = "checker softmax"\nmisconception = \'exp only\'\n', "",
     r"item 1 \(softmax-row\): exactly one choice must be right .* 2 are"),
    ("inventory", lambda: inventory._items(), 'see = {notebook = "01-one-attention-row", section = "2", cell = "nb01-byhand"}',
     'see = {notebook = "01-one-attention-row", cell = "nb01-byhand"}', r"item 1 \(softmax-row\): see must be"),
    ("inventory", lambda: inventory._items(), 'named_in = "checker softmax"\nmisconception = \'exp only\'\n',
     'named_in = "checker softmax"\n',
     r"item 1 \(softmax-row\), choice 3: a choice named in 'checker softmax' needs its misconception's name"),
    ("notebooks", content.notebooks, 'stem = "03-masks"\nminutes = ', 'stem = "03-masks"\nminutes = "48"  # ',
     r"notebook 4 \(03-masks\): minutes must be"),  # whatever its minutes: a string instead
    ("notebooks", content.notebooks, 'stem = "03-masks"', 'stem = "masks"', r"notebook 4 \(masks\): stem must be"),
    ("notebooks", content.notebooks, 'stem = "03-masks"\n', 'stem = "03-masks"\nlength = 3\n',
     r"unknown field\(s\) \['length'\]"),
    ("notebooks", content.notebooks, 'stem = "04-multi-head-attention"', 'stem = "03-heads"',
     r"notebook 5 \(03-heads\): the number 03 is used twice"),
]


@pytest.mark.parametrize("name, reader, old, new, said", MISTAKES, ids=[f"{m[0]}-{n}" for n, m in enumerate(MISTAKES)])
def test_an_entry_missing_what_the_course_needs_is_named(folder, name, reader, old, new, said):
    replace(folder / f"{name}.toml", old, new)
    with pytest.raises(content.ContentError, match=said):
        reader()


def test_a_myth_choice_is_named_by_its_own_text_unless_it_names_its_myth(folder):
    """A myth's choice is stored under the myth's statement: its own text, or the misconception it names (a choice
    reworded to answer its question keeps the name the answer files and the myth use)."""
    (choice,) = [c for c in inventory.item_by_key("max-shift").choices if c.named_in == "myth 01"]
    assert choice.misconception == "Subtracting the maximum is an approximation." != choice.text
    replace(folder / "inventory.toml", "misconception = 'Subtracting the maximum is an approximation.'\n", "")
    (choice,) = [c for c in inventory._items()[1].choices if c.named_in == "myth 01"]
    assert choice.misconception == choice.text


def test_a_language_without_its_words_is_named(folder):
    assert content.words()["key_points"] == "Key points"
    with pytest.raises(content.ContentError, match=r"\[words.zz\]: missing; a translation in solutions/zz/ gives"):
        content.words("zz")  # a language no translation has (the re-trial had just added fr)
    replace(folder / "notebooks.toml", 'key_points = "Key points"\n', "")
    with pytest.raises(content.ContentError, match=r"\[words.en\]: no key_points"):
        content.words()
