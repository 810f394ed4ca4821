"""pyproject.toml declares every third-party package course_utils imports, with bounds every supported place meets.

A plain ``pip install .`` (no lock) installs what pyproject.toml's ``dependencies`` names and nothing else, so a
package course_utils imports but does not declare is missing there (issue 22: anywidget was). Read from the code,
not from a list kept by hand: every ``import``/``from ... import`` in course_utils/ (module level or inside a function,
as a tool imports when it runs), and every ``importlib.import_module("name")`` with a literal name, is mapped to its
distribution with ``importlib.metadata.packages_distributions()`` of this environment (the dev environment, which
holds them all).

- What a learner's code path imports (the notebooks, the dashboards, the learner's tools) must be in
  ``dependencies``; what only the maintainers' tools import (:data:`MAINTAINERS_ONLY`: ``make html``,
  ``make solutions``) may be in the ``maintainers`` extra instead.
- Every requirement has a lower bound, and no upper bound.
- Both learner locks satisfy every bound of ``dependencies`` (with the dev locks: the extra's), so the locked
  environments are ones the declared bounds allow.
- Colab's own versions (tests/colab/requirements-colab.lock, pinned from Colab's published package set) satisfy
  every bound of ``dependencies``: a bound above them would make the course's first cell upgrade Colab's packages.
"""
from __future__ import annotations

import ast
import re
import sys
from importlib.metadata import packages_distributions
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
EXTRA = "maintainers"
#: Where only the maintainers' tools import: {module path: function names, or None for the whole module}.
MAINTAINERS_ONLY = {
    "course_utils/tools/html.py": None,  # `make html`
    "course_utils/tools/build.py": {"execute_solutions", "_current_env_kernel_manager_class"},  # `make solutions`
}
#: Learner locks, and the dev lock each is completed with.
LOCKS = {"requirements.lock": "requirements-dev.lock", "requirements-py310.lock": "requirements-dev-py310.lock"}
COLAB_LOCK = "tests/colab/requirements-colab.lock"


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def requirements(extra: str | None = None) -> dict[str, Requirement]:
    """{normalised name: requirement} of ``dependencies`` (or of the optional ``extra``)."""
    lines = project()["dependencies"] if extra is None else project().get("optional-dependencies", {}).get(extra, [])
    return {normalise(req.name): req for req in map(Requirement, lines)}


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


def third_party_imports() -> list[tuple[str, str, int, bool]]:
    """(top-level module, file relative to the root, line, imported only by a maintainers' tool) for every import of
    a module neither in the standard library nor course_utils itself, over every module of course_utils/."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        visitor = _Imports()
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), filename=relative))
        for module, line, function in visitor.found:
            if module in sys.stdlib_module_names or module in ("course_utils", "__future__"):
                continue
            scope = MAINTAINERS_ONLY.get(relative, ())
            found.append((module, relative, line, scope is None or function in scope))
    return found


def test_the_import_scan_sees_what_the_package_is_known_to_import():
    # the scan itself: anywidget (a module-level import) and latex2mathml (inside a function of a maintainers' tool)
    modules = {(module, maintainers) for module, _, _, maintainers in third_party_imports()}
    assert ("anywidget", False) in modules and ("numpy", False) in modules
    assert ("latex2mathml", True) in modules and ("latex2mathml", False) not in modules


def test_every_third_party_import_is_declared():
    distributions = packages_distributions()
    core, extra = requirements(), requirements(EXTRA)
    problems = []
    for module, path, line, maintainers in third_party_imports():
        names = distributions.get(module)
        if not names:
            problems.append(f"{path}:{line}: `{module}` is imported but no installed distribution provides it here "
                            "(install the dev environment: make env-dev)")
            continue
        declared = set(core) | (set(extra) if maintainers else set())
        if not {normalise(name) for name in names} & declared:
            where = (f"`dependencies` or the `{EXTRA}` extra" if maintainers else "`dependencies` (a learner's code "
                     "path imports it; a maintainers'-only import goes under MAINTAINERS_ONLY of this test)")
            problems.append(f"{path}:{line}: `{module}` (distribution {', '.join(names)}) is not declared in "
                            f"pyproject.toml's {where}")
    assert not problems, "pyproject.toml does not declare what course_utils imports:\n" + "\n".join(problems)


def test_every_declared_package_is_used():
    # a declared package nothing imports would be installed for nothing; ipykernel is imported by build.py (and is the
    # kernel: pyproject.toml says why it is declared)
    distributions = packages_distributions()
    imported = {normalise(name) for module, *_ in third_party_imports() for name in distributions.get(module, [])}
    unused = sorted((set(requirements()) | set(requirements(EXTRA))) - imported)
    assert not unused, f"pyproject.toml declares {unused}, which course_utils does not import"


@pytest.mark.parametrize("extra", [None, EXTRA])
def test_every_requirement_has_a_lower_bound_and_no_upper_bound(extra):
    problems = []
    for req in requirements(extra).values():
        operators = {spec.operator for spec in req.specifier}
        if not operators & {">=", "~="}:
            problems.append(f"{req}: no lower bound (>=)")
        if operators & {"<", "<=", "==", "==="}:
            problems.append(f"{req}: an upper bound or a pin (a lock pins; the package must install beside others)")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("learner", sorted(LOCKS))
def test_the_locks_satisfy_the_declared_bounds(learner):
    pins, dev = lock_pins(learner), lock_pins(LOCKS[learner])
    problems = []
    for extra, available in ((None, pins), (EXTRA, {**pins, **dev})):
        for name, req in requirements(extra).items():
            if name not in available:
                problems.append(f"{req}: not in {learner}{'' if extra is None else ' nor ' + LOCKS[learner]}")
            elif available[name] not in req.specifier:
                problems.append(f"{req}: the lock pins {available[name]}")
    assert not problems, f"{learner} and pyproject.toml disagree (run `make lock` or fix the bound):\n" + "\n".join(problems)


def test_colabs_own_versions_satisfy_every_bound():
    colab = lock_pins(COLAB_LOCK)
    problems = [f"{req}: Colab has {colab[name]}" if name in colab else f"{req}: not in {COLAB_LOCK}"
                for name, req in requirements().items() if name not in colab or colab[name] not in req.specifier]
    assert not problems, ("a bound Colab's own version does not meet: `pip install` in Colab would replace Colab's "
                          "package (or the Colab lock lacks it):\n" + "\n".join(problems))
