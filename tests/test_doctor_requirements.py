"""The doctor's own reading of requirements (PEP 508), versions (PEP 440) and markers, against `packaging`'s.

The doctor cannot count on `packaging` being installed where it checks a pip install or Colab, so it carries the part
it needs (course_utils.doctor: Version, version_matches, marker_holds, parse_requirement). Every case below is
judged by both; they must agree. `packaging` is one of the maintainers' packages (requirements-dev.lock).
"""
from __future__ import annotations

import itertools

import pytest

from course_utils import doctor

packaging = pytest.importorskip("packaging")
from packaging.markers import Marker  # noqa: E402 - after the importorskip
from packaging.requirements import Requirement  # noqa: E402
from packaging.specifiers import Specifier  # noqa: E402
from packaging.version import Version  # noqa: E402

VERSIONS = [
    "0", "1", "1.0", "1.0.0", "1.0.1", "1.1", "1.2", "1.2.0", "1.2.3", "1.10", "2", "2.0", "2.0.0", "2.1.3", "2.4.6",
    "1.0a1", "1.0a2", "1.0b1", "1.0rc1", "1.0c2", "1.0.dev0", "1.0.dev3", "1.0a1.dev1", "1.0.post1", "1.0-1",
    "1.0.post1.dev2", "1.0+cpu", "1.0+local.7", "1.0+2", "1.0.post1+x", "2.0rc1", "2.0.0rc1", "2.0.dev1", "1!0.5",
    "3.10", "3.9", "3.13.0", "7.7.1", "8.1.9", "0.9.21", "2.13.0+cpu", "5.0.16", "1.0.0.0", "v1.0", "1.0-alpha.3",
    "1.0_pre4", "1.0preview2", "1.0-r5", "1.0rev", "1.0.POST1", "1.0RC1",
]
SPECIFIERS = [
    ">=1.0", ">=2.0", ">1.0", ">1.0.post1", ">1.0a1", "<2.0", "<2", "<1.0", "<2.0rc1", "<=1.0", "<=2.0", "==1.0",
    "==1.0.0", "==2.0", "==1.0+cpu", "==1.*", "==1.0.*", "==2.*", "!=1.0", "!=1.*", "!=2.0.*", "~=1.0", "~=1.2.3",
    "~=2.0", "~=3.10", "===1.0", ">=7.7.1", ">=0.9", ">=1!0.1", "<1!0.1", "==1.0.post1", ">1.0rc1", "<=1.0.dev3",
    "==1!0.5", "<1.0.post1", ">1.0.post1.dev2", "<1.0.dev3", ">1.0.dev0", ">1.0a1.post1", "<1.0a1.post1", ">2.0rc1",
    "!=1.0+cpu", ">=1.0.post1", "~=1.0.post1", "~=1.0a1",
]


@pytest.mark.parametrize("left, right", list(itertools.combinations(VERSIONS, 2)))
def test_versions_compare_as_packaging_compares_them(left, right):
    ours, theirs = (doctor.Version.parse(left), doctor.Version.parse(right)), (Version(left), Version(right))
    assert (ours[0] < ours[1], ours[0] == ours[1], ours[0] > ours[1]) == \
        (theirs[0] < theirs[1], theirs[0] == theirs[1], theirs[0] > theirs[1])


@pytest.mark.parametrize("specifier", SPECIFIERS)
def test_specifiers_match_as_packaging_matches_installed_versions(specifier):
    wrong = [v for v in VERSIONS
             if doctor.version_matches(v, specifier) != Specifier(specifier).contains(v, prereleases=True)]
    assert not wrong, f"{specifier}: disagrees with packaging on {wrong}"


@pytest.mark.parametrize("text", ["", "1.", "x1", "1.0-", "1..0", "1.0+", "one"])
def test_what_is_not_a_version_is_refused(text):
    with pytest.raises(ValueError):
        doctor.Version.parse(text)


@pytest.mark.parametrize("specifier", ["1.0", ">=", "=>1.0", "~=1", "==1.0a1.*", ">=1.0+cpu", "<>1"])
def test_what_is_not_a_specifier_is_refused(specifier):
    with pytest.raises(ValueError):
        doctor.version_matches("1.0", specifier)


ENVIRONMENTS = [
    dict(doctor.marker_environment()),
    dict(doctor.marker_environment(), python_version="3.10", python_full_version="3.10.13", sys_platform="win32",
         os_name="nt", platform_system="Windows", platform_machine="AMD64"),
    dict(doctor.marker_environment(), python_version="3.13", python_full_version="3.13.0rc2", sys_platform="darwin",
         platform_system="Darwin", platform_machine="arm64"),
    dict(doctor.marker_environment(), extra="maintainers"),
]
MARKERS = [
    'python_version < "3.11"', 'python_version >= "3.10"', "python_version == '3.13'", 'python_version ~= "3.10"',
    'python_full_version >= "3.13.0"', 'python_full_version < "3.13"', 'sys_platform == "win32"',
    'sys_platform != "win32" and platform_machine == "x86_64"', 'os_name == "nt" or sys_platform == "darwin"',
    '(os_name == "nt" or sys_platform == "darwin") and python_version > "3.10"', 'extra == "maintainers"',
    'extra == "Maintainers"', "extra == 'dev' or extra == 'maintainers'", 'platform_machine in "x86_64 AMD64"',
    '"arm" in platform_machine', 'platform_machine not in "arm64 aarch64"', 'platform_system == "Linux"',
    'implementation_name == "cpython" and platform_python_implementation == "CPython"',
    'python_version > "3.9" and (extra == "maintainers" or sys_platform == "linux")', '"3.12" <= python_version',
]


@pytest.mark.parametrize("marker", MARKERS)
def test_markers_hold_where_packaging_says_they_do(marker):
    for environment in ENVIRONMENTS:
        assert doctor.marker_holds(marker, environment) == Marker(marker).evaluate(environment), environment


@pytest.mark.parametrize("marker", ['python_version <', 'python_version < "3.11" and', 'color == "red"',
                                    '(python_version < "3.11"', 'python_version "3.11"', "python_version < '3.11"])
def test_unreadable_markers_are_refused(marker):
    with pytest.raises(ValueError):
        doctor.marker_holds(marker)


REQUIREMENTS = [
    "numpy", "numpy>=2.0", "matplotlib >= 3.10", "ipywidgets>=7.7.1", "anywidget>=0.9,<1", "Jupyter_Core>=5",
    "nbconvert>=7; extra == \"maintainers\"", 'tomli>=1.1; python_version < "3.11"', "pkg (>=1.0, <2)",
    "pkg[extra1,extra2]>=1.0", "psutil>=5.7 ; sys_platform != 'emscripten'", "zope.interface==5.*",
    "pkg @ https://example.org/pkg-1.0.tar.gz", 'pkg @ https://example.org/p.whl ; python_version >= "3.10"',
]


@pytest.mark.parametrize("text", REQUIREMENTS)
def test_requirements_read_as_packaging_reads_them(text):
    ours, theirs = doctor.parse_requirement(text), Requirement(text)
    assert ours.name == doctor.normalise(theirs.name)
    assert sorted(ours.specifiers) == sorted(str(s) for s in theirs.specifier)
    for environment in ENVIRONMENTS:
        assert ours.applies(environment) == (theirs.marker is None or theirs.marker.evaluate(environment))
    for version in VERSIONS:
        assert ours.met_by(version) == theirs.specifier.contains(version, prereleases=True), version
    assert not ours.met_by(None)


@pytest.mark.parametrize("text", ["", ">=1.0", "numpy>=", "numpy>=1.0,", "numpy; python_version <", "numpy=1.0",
                                  "numpy>=1.0; color == 'red'"])
def test_unreadable_requirements_are_refused(text):
    with pytest.raises(ValueError):
        doctor.parse_requirement(text)


def test_a_requirement_prints_its_bound_and_its_pip_argument():
    requirement = doctor.parse_requirement('anywidget >= 0.9, < 1 ; python_version >= "3.10"')
    assert requirement.bound == ">=0.9,<1" and requirement.pip_argument == '"anywidget>=0.9,<1"'
    assert doctor.parse_requirement("nbformat").bound == "any version"


def test_the_declared_requirements_of_course_utils_are_all_readable():
    """Whatever pyproject.toml declares, as installed here, the doctor reads it (else it would report it)."""
    from importlib import metadata

    for line in metadata.requires("course_utils") or []:
        assert doctor.parse_requirement(line).name == doctor.normalise(Requirement(line).name)
