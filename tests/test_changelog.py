"""CHANGELOG.md's format: what an instructor pinning a hub link to a release relies on.

- every release heading reads ``## [X.Y.Z] - YYYY-MM-DD`` (a real date), one ``## [Unreleased]`` allowed first;
- releases are newest first: versions strictly decreasing, dates never increasing; no version twice;
- every release says something (at least one list item).
"""
import datetime
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHANGELOG = ROOT / "CHANGELOG.md"

RELEASE = re.compile(r"^## \[(?P<version>\d+\.\d+\.\d+)\] - (?P<date>\d{4}-\d{2}-\d{2})$")
UNRELEASED = "## [Unreleased]"


def releases(text):
    """[(version tuple, date, body)] of the changelog's level-2 sections, in file order.

    Raises
    ------
    ValueError
        For a level-2 heading that is neither a release nor ``[Unreleased]`` first, or a date that does not exist.
    """
    sections = re.split(r"^(?=## )", text, flags=re.M)[1:]
    out = []
    for index, section in enumerate(sections):
        heading, _, body = section.partition("\n")
        heading = heading.rstrip()
        if heading == UNRELEASED:
            if index != 0:
                raise ValueError(f"{UNRELEASED} must be the first section, found at position {index + 1}")
            continue
        match = RELEASE.match(heading)
        if not match:
            raise ValueError(f"release heading {heading!r} is not '## [X.Y.Z] - YYYY-MM-DD'")
        date = datetime.date.fromisoformat(match["date"])  # raises for 2026-02-30
        out.append((tuple(int(part) for part in match["version"].split(".")), date, body))
    return out


def check_order(found):
    """Raise ValueError unless versions strictly decrease and dates never increase, top to bottom."""
    for (new_version, new_date, _), (old_version, old_date, _) in zip(found, found[1:]):
        if not new_version > old_version:
            raise ValueError(f"{new_version} is listed above {old_version}: newest first, no version twice")
        if new_date < old_date:
            raise ValueError(f"{new_version} ({new_date}) is dated before {old_version} ({old_date})")


def test_every_release_heading_has_a_version_and_a_date_and_newest_comes_first():
    found = releases(CHANGELOG.read_text(encoding="utf-8"))
    assert found, "CHANGELOG.md has no release"
    check_order(found)


def test_every_release_says_what_changed():
    for version, _, body in releases(CHANGELOG.read_text(encoding="utf-8")):
        assert re.search(r"^- \S", body, re.M), f"release {version} lists no change"


def test_no_release_is_dated_in_the_future():
    for version, date, _ in releases(CHANGELOG.read_text(encoding="utf-8")):
        assert date <= datetime.date.today() + datetime.timedelta(days=1), version


@pytest.mark.parametrize("text, message", [
    ("## [1.0.0]\n- x\n", "is not"),
    ("## 1.0.0 - 2026-12-01\n- x\n", "is not"),
    ("## [1.0] - 2026-12-01\n- x\n", "is not"),
    ("## [1.0.0] - 2026-02-30\n- x\n", "day is out of range"),
    ("## [1.0.0] - 2026-12-01\n- x\n## [Unreleased]\n", "must be the first"),
])
def test_the_format_check_catches_bad_headings(text, message):
    with pytest.raises(ValueError, match=message):
        releases(text)


@pytest.mark.parametrize("text, message", [
    ("## [1.0.0] - 2026-12-01\n- a\n## [1.1.0] - 2026-12-02\n- b\n", "newest first"),
    ("## [1.0.0] - 2026-12-01\n- a\n## [1.0.0] - 2026-12-01\n- b\n", "newest first"),
    ("## [1.1.0] - 2026-11-01\n- a\n## [1.0.0] - 2026-12-01\n- b\n", "dated before"),
])
def test_the_order_check_catches_releases_out_of_order(text, message):
    with pytest.raises(ValueError, match=message):
        check_order(releases(text))


def test_the_checks_accept_a_good_changelog():
    text = "# Changelog\n\n## [Unreleased]\n\n## [1.1.0] - 2026-12-03\n- b\n\n## [1.0.0] - 2026-12-01\n- a\n"
    found = releases(text)
    check_order(found)
    assert [version for version, _, _ in found] == [(1, 1, 0), (1, 0, 0)]


#: How a release names its commit, on the line under its heading: "Commit `3f84dd2363cf`" (12 or more hex digits).
RELEASE_COMMIT = re.compile(r"^Commit `(?P<sha>[0-9a-f]{12,40})`", re.M)


def release_commit(body: str) -> str | None:
    match = RELEASE_COMMIT.search(body)
    return match["sha"] if match else None


def git(*args) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


def test_every_release_names_a_commit_of_main_that_holds_its_heading():
    """Only the branch main reaches the repository (no tag does): a release is the commit of main that its
    changelog entry names, and the guide's "Pinning the link to a release" makes the workshop branch from it."""
    if git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout")
    shallow = git("rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    for version, _, body in releases(CHANGELOG.read_text(encoding="utf-8")):
        name = ".".join(map(str, version))
        sha = release_commit(body)
        assert sha, f"release {name} names no commit (a line 'Commit `<sha>`' under its heading)"
        if git("cat-file", "-e", f"{sha}^{{commit}}").returncode != 0:
            assert shallow, f"release {name}: commit {sha} is not in this repository"
            continue
        assert git("merge-base", "--is-ancestor", sha, "HEAD").returncode == 0, f"release {name}: {sha} is not on main"
        then = git("show", f"{sha}:CHANGELOG.md").stdout
        assert f"## [{name}] - " in then, f"release {name}: commit {sha}'s CHANGELOG.md has no heading for it"


def test_the_commit_check_reads_the_commit_line():
    assert release_commit("\nCommit `3f84dd2363cfcc6fd613b06ea4a79aa761c59746` (on main).\n- a\n") == \
        "3f84dd2363cfcc6fd613b06ea4a79aa761c59746"
    assert release_commit("\nThe first release (the commit tagged `v1.0.0`).\n- a\n") is None
    assert release_commit("\nCommit `3f84dd2` (too short to stay unambiguous).\n") is None
