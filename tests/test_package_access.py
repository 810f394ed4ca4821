"""``import course_utils as cu`` gives the reference at once and every other module on first use (``cu.plots``,
``cu.lessons.data``): the names notebooks and learners reach through ``cu.``."""
import importlib

import pytest

import course_utils as cu


@pytest.mark.parametrize("name", cu.LAZY_MODULES)
def test_cu_attribute_access_reaches_every_public_module(name):
    assert importlib.import_module(f"course_utils.{name}") is getattr(cu, name)


@pytest.mark.parametrize("package, names", [
    ("lessons", ("data", "scaling", "masking", "heads", "influence", "training", "online_softmax", "measure")),
])
def test_subpackage_attribute_access(package, names):
    sub = getattr(cu, package)
    for name in names:
        assert getattr(sub, name) is importlib.import_module(f"course_utils.{package}.{name}")


@pytest.mark.parametrize("old", ["tickets", "heads", "tools"])
def test_no_module_path_from_before_the_arrangement_answers(old):
    """The old paths (course_utils.tickets, .heads: never in a release; .tools: until release 1.2.0, now the root
    tools/ folder, which a kernel does not import) are gone, with a clear error, not a module rebuilt behind the
    learner's back."""
    with pytest.raises(AttributeError, match=f"no attribute '{old}'"):
        getattr(cu, old)
    with pytest.raises(ModuleNotFoundError, match=f"course_utils.{old}"):
        importlib.import_module(f"course_utils.{old}")
