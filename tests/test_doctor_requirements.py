"""The doctor's reading of what course_utils declares (course_utils.doctor: parse_requirement, Requirement,
same_version), for Colab and a plain pip install: `packaging` reads the lines, as pip does; these tests pin what the
doctor's messages and fixes take from them.
"""
from __future__ import annotations

import pytest

from course_utils import doctor


@pytest.mark.parametrize("text, name, bound, pip_argument", [
    ("numpy>=2.0", "numpy", ">=2.0", '"numpy>=2.0"'),
    ("Jupyter_Core>=5", "jupyter-core", ">=5", '"jupyter-core>=5"'),
    ("nbformat", "nbformat", "any version", '"nbformat"'),
    ('tomli>=1.1; python_version < "3.11"', "tomli", ">=1.1", '"tomli>=1.1"'),
])
def test_a_requirement_gives_its_name_bound_and_pip_argument(text, name, bound, pip_argument):
    requirement = doctor.parse_requirement(text)
    assert (requirement.name, requirement.bound, requirement.pip_argument) == (name, bound, pip_argument)
    assert requirement.text == text


def test_a_marker_decides_where_a_requirement_applies():
    tomli = doctor.parse_requirement('tomli>=1.1; python_version < "3.11"')
    assert tomli.applies({"python_version": "3.10"}) and not tomli.applies({"python_version": "3.13"})
    assert doctor.parse_requirement("numpy>=2.0").applies({"python_version": "3.13"})


@pytest.mark.parametrize("version, met", [("2.0", True), ("2.4.6", True), ("2.1rc1", True), ("1.26.4", False),
                                          (None, False)])
def test_an_installed_version_meets_the_bound_as_pip_check_judges_it(version, met):
    assert doctor.parse_requirement("numpy>=2.0").met_by(version) is met  # a pre-release counts, as in pip check


@pytest.mark.parametrize("text", ["", ">=1.0", "numpy>=", "numpy=1.0", "numpy>=1.0; color == 'red'"])
def test_an_unreadable_requirement_is_a_value_error_naming_it(text):
    with pytest.raises(ValueError, match="cannot read the requirement"):
        doctor.parse_requirement(text)


def test_versions_are_the_same_when_pep_440_says_so():
    assert doctor.same_version("2.0", "2.0.0") and not doctor.same_version("2.0", "2.1")
    assert doctor.same_version("not a version", "not a version") and not doctor.same_version("x", "2.0")


def test_the_declared_requirements_of_course_utils_are_all_readable():
    """Whatever pyproject.toml declares, as installed here, the doctor reads it (else it would report it)."""
    from importlib import metadata

    for line in metadata.requires("course_utils") or []:
        assert doctor.parse_requirement(line).name
