"""pyproject.toml declares every third-party package course_utils imports, with bounds every supported place meets.

A plain ``pip install .`` (no lock) installs what pyproject.toml's ``dependencies`` names and nothing else, so a
package course_utils imports but does not declare is missing there (issue 22: anywidget was). Read from the code,
not from a list kept by hand: every ``import``/``from ... import`` in course_utils/ (module level or inside a function,
as a tool imports when it runs), and every ``importlib.import_module("name")`` with a literal name, is mapped to its
distribution with ``importlib.metadata.packages_distributions()`` of this environment (the dev environment, which
holds them all).

- What course_utils imports (the notebooks, the dashboards, the checkers, the doctor) must be in ``dependencies``,
  and everything there must be imported, but for :data:`DECLARED_NOT_IMPORTED` (each with its reason). The tools
  of tools/ are not part of the package (they run from a checkout, on the locks' environment), so nothing of theirs
  is declared here.
- Every requirement has a lower bound, and no upper bound.
- Both learner locks satisfy every bound of ``dependencies``, so the locked environments are ones the declared
  bounds allow.
- Colab's own versions (tests/colab/requirements-colab.lock, pinned from Colab's published package set) satisfy
  every bound of ``dependencies``: a bound above them would make the course's first cell upgrade Colab's packages.
"""
from __future__ import annotations

import ast
import functools
import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: tomli is in requirements-py310.lock
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "course_utils"
#: Standard library modules of a newer Python than the oldest supported, imported under a version check.
LATER_STANDARD_LIBRARY = {"tomllib"}  # Python 3.11 (course_utils.content takes tomli on 3.10)
#: Declared although course_utils imports nothing of it: {distribution: why} (pyproject.toml says it too).
DECLARED_NOT_IMPORTED = {"ipykernel": "the kernel: `pip install` alone must give an environment that runs the notebooks"}
#: The learner locks.
LOCKS = ("requirements.lock", "requirements-py310.lock")
COLAB_LOCK = "tests/colab/requirements-colab.lock"


@functools.cache
def packages_distributions() -> dict[str, list[str]]:
    """{top-level module: [its distributions]}: importlib.metadata's, completed from each distribution's files.

    Python 3.10's ``packages_distributions`` reads ``top_level.txt`` only, which numpy and matplotlib do not ship (the
    py310 job found "no installed distribution provides numpy"); 3.11 infers the names from the files, as here."""
    found = {module: list(names) for module, names in metadata.packages_distributions().items()}
    for dist in metadata.distributions():
        for file in dist.files or []:
            top = file.parts[0] if file.parts else ""
            module = top.removesuffix(".py") if len(file.parts) > 1 or top.endswith(".py") else ""
            if module.isidentifier() and dist.metadata["Name"] not in found.setdefault(module, []):
                found[module].append(dist.metadata["Name"])
    return found


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def requirements() -> dict[str, Requirement]:
    """{normalised name: requirement} of ``dependencies``."""
    return {normalise(req.name): req for req in map(Requirement, project()["dependencies"])}


def lock_pins(filename: str) -> dict[str, Version]:
    pins = {}
    for line in (ROOT / filename).read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if "==" in line:
            name, version = line.split(";")[0].split("==")
            pins[normalise(name)] = Version(version.strip())
    return pins


class _Imports(ast.NodeVisitor):
    """Each absolute import of a module, with the function it sits in (None at module level)."""

    def __init__(self):
        self.found: list[tuple[str, int, str | None]] = []  # (top-level module name, line, enclosing function)
        self._functions: list[str] = []

    def _function(self, node):
        self._functions.append(node.name)
        self.generic_visit(node)
        self._functions.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def _add(self, name: str, node):
        self.found.append((name.split(".")[0], node.lineno, self._functions[0] if self._functions else None))

    def visit_Import(self, node):
        for alias in node.names:
            self._add(alias.name, node)

    def visit_ImportFrom(self, node):
        if node.level == 0 and node.module:
            self._add(node.module, node)

    def visit_Call(self, node):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if (name == "import_module" and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str) and not node.args[0].value.startswith(".")):
            self._add(node.args[0].value, node)
        self.generic_visit(node)


def third_party_imports() -> list[tuple[str, str, int, str | None]]:
    """(top-level module, file relative to the root, line, the function it is imported in or None) for every import
    of a module neither in the standard library nor course_utils itself, over every module of course_utils/."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        visitor = _Imports()
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), filename=relative))
        for module, line, function in visitor.found:
            if module in sys.stdlib_module_names or module in LATER_STANDARD_LIBRARY or module in ("course_utils", "__future__"):
                continue
            found.append((module, relative, line, function))
    return found


def test_the_import_scan_sees_what_the_package_is_known_to_import():
    # the scan itself: anywidget and numpy (module-level imports) and IPython inside alt_text's functions
    found = {(module, path, function) for module, path, _, function in third_party_imports()}
    assert ("anywidget", "course_utils/widgets/_handle_names.py", None) in found
    assert any(module == "numpy" and function is None for module, _, function in found)
    assert any(module == "IPython" and path == "course_utils/alt_text.py" and function for module, path, function in found)
    assert not any(path.startswith("tools/") for _, path, _ in found)  # the tools are not part of the package


def test_every_third_party_import_is_declared():
    distributions = packages_distributions()
    core = requirements()
    problems = []
    for module, path, line, _ in third_party_imports():
        names = distributions.get(module)
        if not names and normalise(module) in core and not applies(core[normalise(module)], PYTHON):
            continue  # e.g. tomli, for Python 3.10 only: not installed on this Python, and declared for the other
        if not names:
            problems.append(f"{path}:{line}: `{module}` is imported but no installed distribution provides it here "
                            "(install the dev environment: make env-dev)")
            continue
        if not {normalise(name) for name in names} & set(core):
            problems.append(f"{path}:{line}: `{module}` (distribution {', '.join(names)}) is not declared in "
                            "pyproject.toml's `dependencies`")
    assert not problems, "pyproject.toml does not declare what course_utils imports:\n" + "\n".join(problems)


def test_a_requirement_for_another_python_is_not_asked_of_a_lock():
    assert not applies(Requirement("tomli>=1.1; python_version < '3.11'"), "3.11")
    assert applies(Requirement("tomli>=1.1; python_version < '3.11'"), "3.10") and applies(Requirement("numpy>=2"), "3.13")


def test_every_declared_package_is_used():
    # a declared package nothing imports would be installed for nothing (but for DECLARED_NOT_IMPORTED's reasons)
    distributions = packages_distributions()
    imported = {normalise(name) for module, *_ in third_party_imports()
                for name in distributions.get(module, [module])}  # a module not installed here: by its own name
    unused = sorted(set(requirements()) - imported - set(DECLARED_NOT_IMPORTED))
    assert not unused, f"pyproject.toml declares {unused}, which course_utils does not import"


def test_every_requirement_has_a_lower_bound_and_no_upper_bound():
    problems = []
    for req in requirements().values():
        operators = {spec.operator for spec in req.specifier}
        if not operators & {">=", "~="}:
            problems.append(f"{req}: no lower bound (>=)")
        if operators & {"<", "<=", "==", "==="}:
            problems.append(f"{req}: an upper bound or a pin (a lock pins; the package must install beside others)")
    assert not problems, "\n".join(problems)


#: The Python each learner lock is for (a requirement whose marker excludes it is not the lock's to hold).
LOCK_PYTHONS = {"requirements.lock": "3.11", "requirements-py310.lock": "3.10"}
#: This Python, as a marker reads it.
PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"
#: Colab's Python (tests/colab/requirements-colab.lock).
COLAB_PYTHON = "3.13"


def applies(req: Requirement, python: str) -> bool:
    """Whether ``req`` is installed on that Python version (its environment marker, if any)."""
    return req.marker is None or req.marker.evaluate({"python_version": python, "python_full_version": f"{python}.0"})


@pytest.mark.parametrize("learner", LOCKS)
def test_the_locks_satisfy_the_declared_bounds(learner):
    pins = lock_pins(learner)
    problems = []
    for name, req in requirements().items():
        if not applies(req, LOCK_PYTHONS[learner]):
            continue
        if name not in pins:
            problems.append(f"{req}: not in {learner}")
        elif pins[name] not in req.specifier:
            problems.append(f"{req}: the lock pins {pins[name]}")
    assert not problems, f"{learner} and pyproject.toml disagree (run `make lock` or fix the bound):\n" + "\n".join(problems)


def test_colabs_own_versions_satisfy_every_bound():
    colab = lock_pins(COLAB_LOCK)
    problems = [f"{req}: Colab has {colab[name]}" if name in colab else f"{req}: not in {COLAB_LOCK}"
                for name, req in requirements().items()
                if applies(req, COLAB_PYTHON) and (name not in colab or colab[name] not in req.specifier)]
    assert not problems, ("a bound Colab's own version does not meet: `pip install` in Colab would replace Colab's "
                          "package (or the Colab lock lacks it):\n" + "\n".join(problems))
