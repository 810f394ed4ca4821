"""The module map (docs/architecture.md) lists every module of course_utils and every tool of tools/, and the tree
keeps its rules.

- every .py file under course_utils/ and tools/ has a line in the map, and every module in the map exists;
- no module imports another module's underscore *names* (a package's private modules, such as
  ``course_utils.checks._framework``, are imported by name; their contents are not private to them);
- the top level holds only the reference, its private helpers, ``plots``, ``style`` and ``alt_text``, the setup
  check notebook 00 runs (``doctor``), the safe file writes of the inventory form and the tools (``safe_files``),
  the subpackages, and the lesson content as data (``content``).
"""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "course_utils"
TOOLS = ROOT / "tools"
MAP = ROOT / "docs" / "architecture.md"


def modules():
    found = [*PACKAGE.rglob("*.py"), *TOOLS.glob("*.py")]
    return sorted(p.relative_to(ROOT).as_posix() for p in found if "__pycache__" not in p.parts)


def mapped():
    """Module paths named in the map's tables (`course_utils/x.py`, `tools/x.py` for the root tools/ folder, or,
    inside a subpackage table, `sub/x.py`)."""
    names = set()
    for cell in re.findall(r"^\| `([\w/]+\.py)` \|", MAP.read_text(), re.M):
        names.add(cell if cell.startswith(("course_utils/", "tools/")) else f"course_utils/{cell}")
    return names


def test_every_module_is_on_the_map():
    missing = sorted(set(modules()) - mapped())
    assert not missing, f"add a line for each to docs/architecture.md: {missing}"


def test_the_map_names_no_module_that_is_gone():
    gone = sorted(mapped() - set(modules()))
    assert not gone, f"docs/architecture.md lists modules that do not exist: {gone}"


def test_the_rule_catches_a_missing_module(tmp_path):
    assert "course_utils/checks/_framework.py" in mapped()
    assert "course_utils/nothing.py" not in mapped()


def underscore_imports(path):
    """(module, name) for every ``from course_utils... import _name`` in a file."""
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course_utils"):
            out += [(node.module, alias.name) for alias in node.names if alias.name.startswith("_")]
    return out


def test_no_module_imports_another_modules_underscore_names():
    found = {p: underscore_imports(ROOT / p) for p in modules()}
    found = {p: names for p, names in found.items() if names}
    assert not found, found


def test_the_underscore_rule_catches_an_offender(tmp_path):
    offender = tmp_path / "x.py"
    offender.write_text("from course_utils.softmax import _hidden\nfrom course_utils.checks import _framework\n")
    assert underscore_imports(offender) == [("course_utils.softmax", "_hidden"), ("course_utils.checks", "_framework")]


def test_the_top_level_holds_the_reference_and_the_subpackages():
    top = sorted(p.name for p in PACKAGE.iterdir() if p.name != "__pycache__" and not p.name.endswith(".egg-info"))
    assert top == sorted([
        "__init__.py", "_validate.py", "attention.py", "blockwise.py", "masks.py", "multihead.py",
        "softmax.py", "plots.py", "style.py", "alt_text.py", "doctor.py", "safe_files.py", "lessons", "widgets", "checks",
        "content",
    ])


def test_readme_points_to_the_map():
    assert "docs/architecture.md" in (ROOT / "README.md").read_text()
