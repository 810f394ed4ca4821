"""Colab's install pin and links (tools/release.py): a learner who opens a release's notebook in Colab gets exactly
that release's course_utils, and every "Open in Colab" link opens the newest such release.

A notebook cannot name the commit it is part of: the release commit R pins its parent P (the setup cell's PACKAGE
line), and nothing of the package differs between P and R (checked here for every release CHANGELOG.md names whose
notebooks pin a commit). The links (README.md's notebook table, each notebook's title cell) name R, the newest
such release, or there are none before the first.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from course_utils import content

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import release  # noqa: E402  (tools/release.py)


def git(*args, cwd=ROOT) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def in_history(sha) -> bool:
    return subprocess.run(["git", "cat-file", "-e", f"{sha}^{{commit}}"], cwd=ROOT).returncode == 0


def title_cell(path: Path) -> str:
    return "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][0]["source"])


def readme_links(text: str) -> dict:
    """{notebook file name: commit} of README.md's "Open in Colab" links."""
    return {m["name"]: m["sha"] for m in release.COLAB_LINK.finditer(text)}


# -- this checkout ------------------------------------------------------------------------------------------------
def test_every_notebook_installs_from_this_repository():
    url = release.repository()
    found = release.pins()
    assert set(found.values()) == {(url, next(iter(found.values()))[1])}, found


def test_the_pinned_commit_is_in_main_s_history():
    if git("rev-parse", "--is-shallow-repository") == "true":
        pytest.skip("a shallow clone: its history stops before the pinned commit")
    (_, sha), = set(release.pins().values())
    assert in_history(sha), f"the notebooks pin {sha}, which is not in this repository"
    assert subprocess.run(["git", "merge-base", "--is-ancestor", sha, "HEAD"], cwd=ROOT).returncode == 0


def test_each_colab_release_installs_exactly_its_own_package():
    """For every release whose notebooks pin a commit: course_utils/ and pyproject.toml are the same at the pin."""
    if git("rev-parse", "--is-shallow-repository") == "true":
        pytest.skip("a shallow clone: the releases' history is not here")
    checked = 0
    for version, sha in release.releases():
        if release.colab_ready(sha):
            assert release.package_differences(sha) == [], f"release {version}: its notebooks install another package"
            checked += 1
    assert checked or release.newest_colab_release() is None


def test_every_colab_link_opens_the_newest_colab_release():
    newest = release.newest_colab_release()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    learner = sorted(path.name for path in (ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
    if newest is None:  # before the first release that installs itself: no link anywhere
        assert readme_links(readme) == {}
        assert not any(release.COLAB_LINK.search(title_cell(path)) for path in release.notebooks())
        return
    _, sha = newest
    assert readme_links(readme) == {name: sha for name in learner}
    for path in release.notebooks():
        links = [(m["name"], m["sha"]) for m in release.COLAB_LINK.finditer(title_cell(path))]
        assert links == [(path.name, sha)], f"{path.relative_to(ROOT)}'s title cell: {links}"
        assert f"/{release.github_path(release.repository())}/blob/" in title_cell(path)


# -- the steps, in a throwaway repository ----------------------------------------------------------------------------
@pytest.fixture
def course(tmp_path):
    """A repository holding this checkout's notebooks, README.md, CHANGELOG.md, pyproject.toml and course_utils/."""
    root = tmp_path / "course"
    root.mkdir()
    for name in ("README.md", "CHANGELOG.md", "pyproject.toml"):
        shutil.copy2(ROOT / name, root / name)
    for folder in ("solutions", "notebooks", "course_utils"):
        shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    git("init", "-q", "-b", "main", cwd=root)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "empty", cwd=root)
    return root


def commit(root, message) -> str:
    git("add", "-A", cwd=root)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", message, cwd=root)
    return git("rev-parse", "HEAD", cwd=root)


def name_release(root, version, sha):
    changelog = root / "CHANGELOG.md"
    text = changelog.read_text(encoding="utf-8")
    changelog.write_text(text.replace("## [Unreleased]\n", f"## [Unreleased]\n\n## [{version}] - 2026-12-01\n\n"
                                      f"Commit `{sha}` (on `main`).\n\n- a change\n", 1), encoding="utf-8")


def test_a_release_pins_its_parent_and_the_links_follow(course):
    code = commit(course, "the release's code")
    assert release.pin(root=course) == code
    assert {found[1] for found in release.pins(course).values()} == {code}
    tagged = commit(course, "Release 9.9.9")
    assert release.package_differences(tagged, course) == []
    name_release(course, "9.9.9", tagged)
    assert release.links(root=course) == ("9.9.9", tagged)
    again = (course / "README.md").read_text(encoding="utf-8")
    assert set(readme_links(again).values()) == {tagged} and len(readme_links(again)) == len(content.notebooks())
    release.links(root=course)  # twice: the same files, no second link line
    assert (course / "README.md").read_text(encoding="utf-8") == again
    for path in release.notebooks(course):
        assert len(release.COLAB_LINK.findall(title_cell(path))) == 1, path
        assert title_cell(path).startswith("# ")
    path = course / "notebooks" / "03-masks.ipynb"
    assert f"blob/{tagged}/notebooks/03-masks.ipynb" in title_cell(path)


def test_a_translations_notebooks_are_pinned_and_linked_with_the_courses(course):
    """The re-trial: a release pinned 18 notebooks and left solutions/fr/'s setup cell behind, so every setup cell was
    no longer the same (tests/test_course_path.py) and the French notebook installed an older release in Colab."""
    before = len(release.pins(course))
    for folder in ("solutions", "notebooks"):  # zz: a language no translation of the course has
        (course / folder / "zz").mkdir()
        shutil.copy2(course / folder / "03-masks.ipynb", course / folder / "zz" / "03-masks.ipynb")
    code = commit(course, "the release's code, with a translation")
    assert release.pin(root=course) == code
    assert {found[1] for found in release.pins(course).values()} == {code}
    assert len(release.pins(course)) == before + 2  # the translation's solved and learner notebooks
    tagged = commit(course, "Release 9.9.9")
    name_release(course, "9.9.9", tagged)
    release.links(root=course)
    title = title_cell(course / "notebooks" / "zz" / "03-masks.ipynb")
    assert release.colab_url(tagged, "zz/03-masks.ipynb", course) in title  # its own learner notebook
    assert len(readme_links((course / "README.md").read_text(encoding="utf-8"))) == len(content.notebooks())


def test_a_release_whose_package_differs_from_its_pin_is_caught(course):
    commit(course, "the code")
    release.pin(root=course)
    with (course / "course_utils" / "softmax.py").open("a", encoding="utf-8") as file:
        file.write("\n# changed after the pin\n")
    tagged = commit(course, "Release with a later change")
    assert release.package_differences(tagged, course) == ["course_utils/softmax.py"]


def test_links_need_a_release_that_installs_itself(course):
    with pytest.raises(release.ReleaseError, match="names no release whose notebooks install the course"):
        release.links(root=course)
    with pytest.raises(release.ReleaseError, match="not a release named in CHANGELOG.md"):
        release.links("HEAD", root=course)


@pytest.mark.parametrize("url, message", [
    ("https://gitlab.com/o/r", "not a GitHub address"),
    ("https://github.com/o", "not a GitHub address"),
])
def test_colab_needs_a_github_address(url, message):
    with pytest.raises(release.ReleaseError, match=message):
        release.github_path(url)


def test_the_repository_address_has_one_home(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    with pytest.raises(release.ReleaseError, match=re.escape("[project.urls] Repository")):
        release.repository(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project.urls]\nRepository = "https://github.com/o/r.git"\n',
                                             encoding="utf-8")
    assert release.repository(tmp_path) == "https://github.com/o/r"
