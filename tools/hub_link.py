"""The nbgitpuller link that puts the course on a JupyterHub (``make hub-link HUB=https://hub.example.org``).

A learner's first click clones the course into their home folder and opens notebook 00 in JupyterLab; every
later click updates the clone (nbgitpuller's merge, where the learner's own edits win) and opens it again::

    https://HUB/hub/user-redirect/git-pull?repo=<URL>&branch=<REF>&targetpath=<DIR>&urlpath=lab/tree/<DIR>/notebooks/00-before-you-start.ipynb

every value URL-encoded. The parameter names are those nbgitpuller 1.3.0's handlers read (``repo``,
``branch``, ``targetpath``, ``urlpath``; tests/test_hub_link.py reads them from its source). ``targetpath`` is
given so that the folder the clone lands in and the folder ``urlpath`` opens are the same by construction
(nbgitpuller's default is the URL's last part, ``.git`` included). No ``?autodecode`` suffix: that was for
JupyterLab 1-2 workspaces; JupyterLab 4.6 does not read it.

- ``REPO`` defaults to this clone's ``git remote get-url origin``; an SSH address (``git@host:owner/repo``) is
  turned into its https form, since a hub clones without the instructor's keys; a local path is refused.
- ``REF`` (a branch or tag) defaults to ``main``. nbgitpuller 1.3.0 clones a *tag* on the first click but fails
  on every later click (it merges ``origin/<tag>``, which a clone does not have; measured in
  tests/test_hub_link.py): for a workshop, pin a branch made at the release tag instead (the tool says how).

Standard library only; runs as a bare script too (``python3 tools/hub_link.py --hub URL``).
Exit codes: 0 the link was printed; 2 bad input (the message says which value and what to give).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

from _checkout import REPO_ROOT

FIRST_NOTEBOOK = "notebooks/00-before-you-start.ipynb"
DEFAULT_REF = "main"
NBGITPULLER_ROUTE = "hub/user-redirect/git-pull"

_SCP_LIKE = re.compile(r"^(?:[\w.-]+@)?(?P<host>[\w.-]+):(?!//)(?P<path>.+)$")  # git@github.com:owner/repo.git
_SAFE_DIR = re.compile(r"^[\w.-]+$")
_HOST = re.compile(r"^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.?)+$|^[0-9a-fA-F:.]+$")  # a name, an IP (v4, v6)
_URL_PATH = re.compile(r"^[\w.~%!$&'()*+,;=:@/-]*$")  # RFC 3986's path characters: no space, quote, ` or < >


class LinkError(ValueError):
    """A value the link cannot be made from; the message names it and what to give instead."""


def hub_base(hub: str) -> str:
    """The hub's address without a trailing ``/`` or ``/hub``: ``https://hub.example.org/hub/`` -> ``https://hub.example.org``.

    Raises
    ------
    LinkError
        When ``hub`` is not an http(s) address with a host, or carries a query or fragment.
    """
    text = (hub or "").strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise LinkError(f"HUB={text!r} is not a hub address: give the address learners open, e.g. "
                        "HUB=https://hub.example.org")
    _check_address("HUB", text, parts)
    if parts.query or parts.fragment:
        raise LinkError(f"HUB={text!r} has a query or fragment: give the hub's address only, e.g. "
                        "HUB=https://hub.example.org")
    path = parts.path.rstrip("/")
    if path.endswith("/hub"):  # https://example.org/jupyter/hub -> https://example.org/jupyter
        path = path[: -len("/hub")]
    return f"{parts.scheme}://{parts.netloc}{path}"


def _check_address(name: str, text: str, parts) -> None:
    """Refuse what a link for a whole class must not carry: a password or token, a host or path with spaces, quotes
    or other characters an address does not hold, a port outside 1-65535."""
    example = "HUB=https://hub.example.org" if name == "HUB" else "REPO=https://github.com/OWNER/REPO"
    if parts.username is not None or parts.password is not None:
        raise LinkError(f"{name}={text!r} holds a user name or password (before '@'): every learner would get it "
                        f"in their link; give the address without it, e.g. {example}")
    if not _HOST.match(parts.hostname or "") or not _URL_PATH.match(parts.path):
        raise LinkError(f"{name}={text!r} holds characters an address does not (spaces, quotes, `, <, >, ...): "
                        f"give e.g. {example}")
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0 or (port is not None and not 1 <= port <= 65535):
        raise LinkError(f"{name}={text!r} has a port outside 1-65535: give e.g. {example}")


def public_repo_url(repo: str) -> tuple[str, str | None]:
    """The address a hub can clone ``repo`` from, and a note when it was rewritten.

    Parameters
    ----------
    repo : str
        An https address, or an SSH one (``git@github.com:owner/repo.git``, ``ssh://git@host/owner/repo``).

    Returns
    -------
    (url, note)
        ``note`` is None unless an SSH address was turned into https.

    Raises
    ------
    LinkError
        For a local path or ``file://`` address (a hub cannot read the instructor's disk), or an empty one.
    """
    text = (repo or "").strip()
    if not text:
        raise LinkError("REPO is empty: give the course's public address, e.g. REPO=https://github.com/OWNER/REPO")
    if "::" in text.split("/", 1)[0]:  # git's <transport>::<address> (ext::sh -c ... runs a command)
        raise LinkError(f"REPO={text!r} names a git transport helper (<transport>::...), not an address: give the "
                        "course's public address, e.g. REPO=https://github.com/OWNER/REPO")
    parts = urlsplit(text)
    if parts.scheme in ("http", "https") and parts.netloc:
        _check_address("REPO", text, parts)
        return text, None
    if parts.scheme == "ssh" and parts.hostname:
        _check_address("REPO", text, urlsplit(f"https://{parts.hostname}{parts.path}"))  # its user (git@) is dropped
        url = f"https://{parts.hostname}{parts.path}"
        return url, f"REPO {text} is an SSH address; the link uses {url} (a hub clones without your keys)"
    match = _SCP_LIKE.match(text)
    if match and _URL_PATH.match(match["path"]):
        url = f"https://{match['host']}/{match['path'].lstrip('/')}"
        return url, f"REPO {text} is an SSH address; the link uses {url} (a hub clones without your keys)"
    raise LinkError(f"REPO={text!r} is not an address a hub can clone from (a local path or file:// URL): give "
                    "the course's public address, e.g. REPO=https://github.com/OWNER/REPO")


def clone_dir(repo_url: str) -> str:
    """The folder a learner's clone lands in: the address's last part without ``.git``.

    >>> clone_dir("https://github.com/owner/self-attention-hands-on.git")
    'self-attention-hands-on'
    """
    name = urlsplit(repo_url).path.rstrip("/").rsplit("/", 1)[-1]
    name = name[: -len(".git")] if name.endswith(".git") else name
    if not name or not _SAFE_DIR.match(name) or name in (".", ".."):
        raise LinkError(f"REPO={repo_url!r} does not end in a repository name (letters, digits, '.', '-', '_'): "
                        "give e.g. REPO=https://github.com/OWNER/REPO")
    return name


def check_ref(ref: str) -> str:
    """``ref`` when it is a usable branch or tag name (git's rules, in short).

    Raises
    ------
    LinkError
        For an empty name or one git would refuse (spaces, ``..``, ``~^:?*[\\``, a leading ``-``).
    """
    text = (ref or "").strip()
    bad = (not text or text.startswith(("-", "/")) or text.endswith((".", "/", ".lock")) or ".." in text
           or "@{" in text or "//" in text or any(c in text for c in " ~^:?*[\\") or not text.isprintable())
    if bad:
        raise LinkError(f"REF={text!r} is not a branch or tag name: give e.g. REF=main or REF=workshop-1.0.0")
    return text


def origin_url(root: Path | None = None) -> str:
    """``git remote get-url origin`` of the clone at ``root``.

    Raises
    ------
    LinkError
        When git is missing, ``root`` is not a clone, or the clone has no ``origin``.
    """
    root = root or REPO_ROOT
    try:
        result = subprocess.run(["git", "-C", str(root), "remote", "get-url", "origin"],
                                capture_output=True, text=True, check=False)
    except OSError as err:
        raise LinkError(f"git could not run ({err}): give the course's address, "
                        "e.g. make hub-link HUB=... REPO=https://github.com/OWNER/REPO") from err
    url = result.stdout.strip()
    if result.returncode != 0 or not url:
        raise LinkError(f"this clone ({root}) has no remote 'origin' to take the course's address from: give it, "
                        "e.g. make hub-link HUB=https://hub.example.org REPO=https://github.com/OWNER/REPO")
    return url


def is_tag(ref: str, root: Path | None = None) -> bool:
    """True when ``ref`` names a tag of the clone at ``root`` (default: this one), and not also a branch."""
    root = root or REPO_ROOT

    def exists(full):
        return subprocess.run(["git", "-C", str(root), "rev-parse", "--quiet", "--verify", full],
                              capture_output=True, check=False).returncode == 0
    try:
        return exists(f"refs/tags/{ref}") and not exists(f"refs/heads/{ref}") \
            and not exists(f"refs/remotes/origin/{ref}")
    except OSError:
        return False


def hub_link(hub: str, repo: str, ref: str = DEFAULT_REF, notebook: str = FIRST_NOTEBOOK) -> str:
    """The nbgitpuller link: clone ``repo`` at ``ref`` into the learner's home, then open ``notebook`` in JupyterLab.

    Parameters
    ----------
    hub : str
        The hub's address, e.g. ``https://hub.example.org``.
    repo : str
        The address the hub clones from (https; see ``public_repo_url``).
    ref : str
        The branch (or tag, first click only) to pull.
    notebook : str
        The notebook to open, relative to the repository.

    Returns
    -------
    str
        ``{hub}/hub/user-redirect/git-pull?repo=...&branch=...&targetpath=...&urlpath=lab/tree/...``, each
        value percent-encoded (``/`` and ``:`` too).
    """
    folder = clone_dir(repo)
    query = {
        "repo": repo,
        "branch": check_ref(ref),
        "targetpath": folder,
        "urlpath": f"lab/tree/{folder}/{notebook}",
    }
    return f"{hub_base(hub)}/{NBGITPULLER_ROUTE}?{urlencode(query, quote_via=quote, safe='')}"


def tag_note(ref: str) -> str:
    """What to do instead of pinning a link to the tag ``ref`` (nbgitpuller 1.3.0 fails on a tag's second click)."""
    version = ref[1:] if re.match(r"v\d", ref) else ref  # v1.0.0 -> 1.0.0
    branch = f"workshop-{version}"
    return (f"note: {ref} is a tag. nbgitpuller 1.3.0 clones a tag on the first click but fails on every later "
            f"click (it merges origin/{ref}, which a clone does not have). For a workshop, pin a branch made at "
            f"the tag, and push nothing to it during the day:\n"
            f"    git branch {branch} {ref} && git push origin {branch}\n"
            f"    make hub-link HUB=... REF={branch}")


def _parser():
    parser = argparse.ArgumentParser(
        prog="python tools/hub_link.py",
        description="Print the nbgitpuller link that clones the course on a JupyterHub and opens notebook 00.")
    parser.add_argument("--hub", required=True, help="the hub's address, e.g. https://hub.example.org")
    parser.add_argument("--repo", default="", help="the course's public git address (default: this clone's origin)")
    parser.add_argument("--ref", default="", help=f"branch or release tag to pull (default: {DEFAULT_REF})")
    return parser


def main(argv=None) -> int:
    """Command-line entry point; prints the link on stdout, notes on stderr. Returns the exit code."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 2
    try:
        hub_base(args.hub)  # the hub first: `make hub-link` without HUB= says so before anything else
        repo, note = public_repo_url(args.repo.strip() or origin_url())
        ref = check_ref(args.ref.strip() or DEFAULT_REF)
        link = hub_link(args.hub, repo, ref)
    except LinkError as err:
        print(f"hub-link: {err}", file=sys.stderr)
        return 2
    if note:
        print(f"note: {note}", file=sys.stderr)
    if args.ref.strip() and is_tag(ref):
        print(tag_note(ref), file=sys.stderr)
    print(link)
    return 0


if __name__ == "__main__":
    sys.exit(main())
