"""Each exercise's own hints live in course_utils/content/hints.toml, once: every id a checker names is there, every
entry there is used by a checker, and the checker modules hold no hint text of their own (issue 23)."""
import ast
from pathlib import Path

import pytest

import course_utils.checks as checks
from course_utils import content
from course_utils.checks._catalogue import HINTS, own, own_hints

#: The function a checker names an entry with, and the entry's table in hints.toml.
TABLES = {"own": "mistakes", "own_hints": "generic", "own_texts": "texts"}
#: The checker modules: one per topic, and the comparisons of the answers some of them share.
CHECK_FILES = sorted(Path(checks.__file__).parent.glob("*.py"))


def _calls(path):
    """The (line, name, args) of every own(...), own_hints(...) and own_texts(...) call in a checker module."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") in TABLES:
            yield node.lineno, node.func.id, node.args


def _named():
    """Every (exercise, table, id) the checkers name (id None for a generic table)."""
    named = set()
    for path in CHECK_FILES:
        for line, name, args in _calls(path):
            assert all(isinstance(a, ast.Constant) for a in args), f"{path.name}:{line}: {name} takes literal names"
            exercise, *key = (a.value for a in args)
            named.add((exercise, TABLES[name], key[0] if key else None))
    return named


def test_every_id_a_checker_names_is_in_the_hints_file():
    missing = [f"[{exercise}.{table}]" + (f' "{key}"' if key else "") for exercise, table, key in sorted(_named(), key=str)
               if exercise not in HINTS or table not in HINTS[exercise]
               or (key is not None and key not in HINTS[exercise][table])]
    assert not missing, "named by a checker, missing from hints.toml:\n" + "\n".join(missing)


def test_every_entry_of_the_hints_file_is_used_by_a_checker():
    named, unused = _named(), []
    for exercise, tables in HINTS.items():
        for table, entries in tables.items():
            if table in ("generic", "texts"):  # a checker takes the whole table
                keys = [None]
            elif table in TABLES.values():
                keys = list(entries)
            else:
                unused.append(f"[{exercise}.{table}]: not a table of the file's header (mistakes, generic or texts)")
                continue
            unused += [f"[{exercise}.{table}]" + (f' "{key}"' if key else "") for key in keys
                       if (exercise, table, key) not in named]
    assert not unused, "hints.toml entries no checker uses (remove them, or name them in the checker):\n" + "\n".join(unused)


def test_an_id_missing_from_the_file_is_named_with_its_exercise():
    with pytest.raises(content.ContentError, match=r'hints\.toml has no \[softmax\.mistakes\] "min shfit"'):
        own("softmax", "min shfit", reproduce=lambda x: x)
    with pytest.raises(content.ContentError, match=r"hints\.toml has no \[sotfmax\.generic\]"):
        own_hints("sotfmax")


def test_a_text_with_variants_needs_the_checker_to_choose_one():
    with pytest.raises(content.ContentError, match=r'\[split_heads\.mistakes\] "only for one sequence": variants need'):
        own("split_heads", "only for one sequence", reproduce=lambda x, h: x)
    with pytest.raises(content.ContentError, match=r'\[softmax\.mistakes\] "min shift": one text takes no choose='):
        own("softmax", "min shift", choose=lambda got, args: "batch", reproduce=lambda x: x)


def test_a_filled_text_shows_the_numbers_of_the_case(monkeypatch):
    monkeypatch.setitem(HINTS, "demo", {"mistakes": {"off": "Only {weight:.2f} of the weight; {{braces}} stay."}})
    mistake = own("demo", "off", fill=lambda got, args: {"weight": got}, reproduce=lambda: None)
    assert mistake.hint(0.256, ()) == "Only 0.26 of the weight; {braces} stay."


@pytest.mark.parametrize("path", [p for p in CHECK_FILES if p.stem not in ("_framework", "_catalogue")],
                         ids=lambda p: p.stem)  # these two define KnownMistake and DEFAULT_HINTS, and build the mistakes
def test_a_checker_module_holds_no_hint_text(path):
    """Its known mistakes come from catalogued/own, its generic hints from own_hints: no KnownMistake(...) with a
    text, no dict of hint texts."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "KnownMistake":
            found.append(f"line {node.lineno}: KnownMistake(...)")
        if isinstance(node, ast.keyword) and node.arg == "hints" and isinstance(node.value, ast.Dict):
            found.append(f"line {node.value.lineno}: hints={{...}}")
        if (isinstance(node, ast.Assign) and isinstance(node.value, (ast.Dict, ast.Constant))
                and any(isinstance(t, ast.Name) and t.id.endswith(("_HINT", "_HINTS")) for t in node.targets)):
            found.append(f"line {node.lineno}: {node.targets[0].id} = ...")
    assert not found, f"{path.name}: hint text in Python, move it to course_utils/content/hints.toml: {found}"
