"""The two release steps that write commits into the notebooks: the Colab install pin and the Colab links.

A notebook opened where no course folder is around it (Colab, an uploaded copy) installs the course's code from
the ``PACKAGE`` line of its setup cell (the first code cell): ``git+<repository>@<commit>``. A notebook cannot name
the commit it is part of, so a release takes three commits of ``main`` (CONTRIBUTING.md, "Releasing"):

1. P: the release's code, CHANGELOG.md's ``## [X.Y.Z] - date`` heading and ``pyproject.toml``'s version;
2. R, the release: ``python tools/release.py pin`` writes P into every notebook's ``PACKAGE`` line, and nothing
   else changes (so course_utils at P is course_utils at R, byte for byte: tests/test_release.py checks it);
3. ``Commit `R``` under the heading in CHANGELOG.md, then ``python tools/release.py links``: the "Open in Colab"
   links of README.md's notebook table and of each notebook's title cell open the notebooks of R, the newest
   release named in CHANGELOG.md.

The repository's address has one home: ``[project.urls] Repository`` in pyproject.toml; both steps read it.

Usage::

    python tools/release.py pin [COMMIT]     # default: HEAD
    python tools/release.py links [COMMIT]   # default: the newest release CHANGELOG.md names
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("solutions", "notebooks")  # edited in solutions/; notebooks/ is regenerated from them (the build)
#: The setup cell's pin line; group "url" is the repository, "sha" the commit.
PIN = re.compile(r'^PACKAGE = "git\+(?P<url>[^"@]+)@(?P<sha>[0-9a-f]{40})"', re.M)
#: A Colab link to one of the course's notebooks at one commit.
COLAB = "https://colab.research.google.com/github/{path}/blob/{sha}/notebooks/{name}"
COLAB_LINK = re.compile(r"\[Open in Colab\]\(https://colab\.research\.google\.com/github/(?P<path>[^/]+/[^/]+)/blob/"
                        r"(?P<sha>[0-9a-f]{40})/notebooks/(?P<name>[^)\s]+)\)")
#: The line a title cell gets, after its heading.
TITLE_LINE = "[Open in Colab]({url}) (release {version}: the notebook installs the course's code itself)"
RELEASE = re.compile(r"^## \[(?P<version>\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}\s*\n+Commit `(?P<sha>[0-9a-f]{12,40})`",
                     re.M)


class ReleaseError(Exception):
    """A release step that cannot be done as asked; the message says what is wrong."""


def repository(root=ROOT) -> str:
    """The repository's address from pyproject.toml's ``[project.urls] Repository``, without a trailing ``.git``."""
    text = (Path(root) / "pyproject.toml").read_text(encoding="utf-8")
    section = re.search(r"^\[project\.urls\]\s*\n(?P<body>(?:[^\[].*\n?)*)", text, re.M)
    match = section and re.search(r'^Repository\s*=\s*"(?P<url>[^"]+)"', section["body"], re.M)
    if not match:
        raise ReleaseError("pyproject.toml has no [project.urls] Repository = \"https://github.com/OWNER/REPO\"")
    return match["url"].removesuffix(".git").rstrip("/")


def github_path(url: str) -> str:
    """``OWNER/REPO`` of a GitHub address (Colab opens notebooks from GitHub only)."""
    match = re.fullmatch(r"https://github\.com/(?P<path>[^/]+/[^/]+)", url)
    if not match:
        raise ReleaseError(f"the repository {url!r} is not a GitHub address https://github.com/OWNER/REPO: "
                           "Colab opens notebooks from GitHub")
    return match["path"]


def notebooks(root=ROOT) -> list[Path]:
    """Every course notebook, solved and learner, and every translation's (``solutions/<language>/``, as
    tools/build.py's ``translations``: their setup cell installs the same release)."""
    found = []
    for folder in FOLDERS:
        found += sorted((Path(root) / folder).glob("[0-9][0-9]-*.ipynb"))
        found += sorted(path for path in (Path(root) / folder).glob("*/[0-9][0-9]-*.ipynb")
                        if not path.parent.name.startswith((".", "_")))
    return found


def _rebuild(root=ROOT) -> None:
    """Regenerate notebooks/ from solutions/ (tools/build.py); an edited learner notebook is an error."""
    sys.path.insert(0, str(ROOT))  # this checkout's course_utils
    import build

    solved, learner = Path(root) / "solutions", Path(root) / "notebooks"
    results = [result for pair in [(solved, learner), *build.translations(solved, learner)] for result in build.build(*pair)]
    skipped = [str(result) for result in results if result.status not in ("created", "updated", "unchanged")]
    if skipped:
        raise ReleaseError("notebooks/ was not regenerated for: " + "; ".join(skipped))


def _git(*args, root=ROOT) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise ReleaseError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def _edit_cells(path: Path, edit) -> bool:
    """Apply ``edit(cell) -> new source or None`` to each cell, keeping the file's layout; True if changed."""
    raw = path.read_text(encoding="utf-8")
    notebook = json.loads(raw)
    changed = False
    for cell in notebook["cells"]:
        new = edit(cell)
        if new is not None and new != "".join(cell["source"]):
            lines = new.split("\n")
            cell["source"] = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
            changed = True
    if changed:
        path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return changed


def pins(root=ROOT) -> dict:
    """{notebook path: (repository, commit)} of every notebook's setup cell."""
    found = {}
    for path in notebooks(root):
        setup = next(c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code")
        match = PIN.search("".join(setup["source"]))
        found[path] = (match["url"], match["sha"]) if match else None
    return found


def pin(commit="HEAD", root=ROOT) -> str:
    """Write ``commit`` (resolved to 40 hex digits) and the repository into every notebook's ``PACKAGE`` line."""
    sha = _git("rev-parse", "--verify", f"{commit}^{{commit}}", root=root)
    url = repository(root)
    missing = [path.name for path, found in pins(root).items() if found is None]
    if missing:
        raise ReleaseError(f"no PACKAGE line in the setup cell of {', '.join(missing)}")

    def edit(cell):
        if cell["cell_type"] == "code" and PIN.search("".join(cell["source"])):
            return PIN.sub(f'PACKAGE = "git+{url}@{sha}"', "".join(cell["source"]))
        return None

    for path in notebooks(root):
        if Path(root) / "solutions" in path.parents:  # the course's and its translations' solved notebooks
            _edit_cells(path, edit)
    _rebuild(root)
    return sha


def releases(root=ROOT) -> list[tuple[str, str]]:
    """[(version, commit)] of the releases CHANGELOG.md names, newest first."""
    text = (Path(root) / "CHANGELOG.md").read_text(encoding="utf-8")
    return [(m["version"], m["sha"]) for m in RELEASE.finditer(text)]


def colab_ready(sha, root=ROOT) -> bool:
    """True when the notebooks of commit ``sha`` install the course themselves (they hold a PACKAGE line)."""
    return pinned_commit(sha, root) is not None


def newest_colab_release(root=ROOT) -> tuple[str, str] | None:
    """(version, full commit) of the newest release named in CHANGELOG.md whose notebooks install the course."""
    for version, sha in releases(root):
        if colab_ready(sha, root):
            return version, _git("rev-parse", f"{sha}^{{commit}}", root=root)
    return None


#: What a notebook's setup cell installs: these must be the same at the pinned commit and at the release.
PACKAGE_FILES = ("course_utils", "pyproject.toml")


def pinned_commit(sha, root=ROOT) -> str | None:
    """The commit the notebooks of commit ``sha`` install (their PACKAGE line), or None when they have none."""
    done = subprocess.run(["git", "show", f"{sha}:solutions/01-one-attention-row.ipynb"], cwd=root,
                          capture_output=True, text=True)
    match = PIN.search(json_source(done.stdout)) if done.returncode == 0 else None
    return match["sha"] if match else None


def package_differences(sha, root=ROOT) -> list[str]:
    """The files of the package (``PACKAGE_FILES``) that differ between release ``sha`` and the commit its notebooks
    install: empty when a Colab learner gets exactly the release's course_utils."""
    pinned = pinned_commit(sha, root)
    if pinned is None:
        raise ReleaseError(f"the notebooks of {sha} pin no commit")
    return _git("diff", "--name-only", pinned, sha, "--", *PACKAGE_FILES, root=root).split()


def json_source(text: str) -> str:
    """All cell sources of a notebook's JSON text, joined (what PIN and COLAB_LINK search)."""
    try:
        return "\n".join("".join(cell["source"]) for cell in json.loads(text)["cells"])
    except (ValueError, KeyError, TypeError):
        return ""


def colab_url(sha, name, root=ROOT) -> str:
    return COLAB.format(path=github_path(repository(root)), sha=sha, name=name)


def links(commit=None, root=ROOT) -> tuple[str, str]:
    """Point every "Open in Colab" link (README.md's table, each notebook's title cell) at release ``commit``.

    Returns (version, commit). The README's table rows are found by the learner notebook each links to.
    """
    newest = newest_colab_release(root)
    if commit is None:
        if newest is None:
            raise ReleaseError("CHANGELOG.md names no release whose notebooks install the course (a PACKAGE line)")
        version, sha = newest
    else:
        sha = _git("rev-parse", "--verify", f"{commit}^{{commit}}", root=root)
        version = next((v for v, s in releases(root) if sha.startswith(s)), None)
        if version is None:
            raise ReleaseError(f"{commit} is not a release named in CHANGELOG.md")
    learner = [path for path in notebooks(root) if path.parent == Path(root) / "notebooks"]  # README's rows

    def edit_title(name):
        def edit(cell):
            if cell["cell_type"] != "markdown" or not cell["source"] or not "".join(cell["source"]).startswith("# "):
                return None
            text = "".join(cell["source"])
            line = TITLE_LINE.format(url=colab_url(sha, name, root), version=version)
            heading, _, rest = text.partition("\n")
            rest = "\n".join(row for row in rest.split("\n") if not COLAB_LINK.search(row)).lstrip("\n")
            return f"{heading}\n\n{line}\n\n{rest}" if rest else f"{heading}\n\n{line}"
        return edit

    solved = Path(root) / "solutions"
    for path in notebooks(root):
        if solved in path.parents:  # a translation's link opens its own learner notebook, notebooks/<language>/...
            _edit_cells(path, edit_title(path.relative_to(solved).as_posix()))
    _rebuild(root)
    readme = Path(root) / "README.md"
    text = readme.read_text(encoding="utf-8")
    for path in learner:
        row = re.compile(rf"^(\|[^\n]*\(notebooks/{re.escape(path.name)}\)[^\n]*\| )(?P<cell>[^|\n]*)(\|\s*)$", re.M)
        if not row.search(text):
            raise ReleaseError(f"README.md's notebook table has no row linking notebooks/{path.name}")
        text = row.sub(lambda m, p=path: f"{m[1]}[Open in Colab]({colab_url(sha, p.name, root)}){m[3]}", text)
    readme.write_text(text, encoding="utf-8")
    return version, sha


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    sub.add_parser("pin", help="write COMMIT (default HEAD) into every notebook's PACKAGE line").add_argument(
        "commit", nargs="?", default="HEAD")
    sub.add_parser("links", help="point the Colab links at release COMMIT (default: the newest one)").add_argument(
        "commit", nargs="?")
    args = parser.parse_args(argv)
    try:
        if args.step == "pin":
            print(f"PACKAGE pinned to {pin(args.commit)} in {len(notebooks())} notebooks")
        else:
            version, sha = links(args.commit)
            print(f"Colab links point at release {version} ({sha})")
    except ReleaseError as err:
        print(f"release.py: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
