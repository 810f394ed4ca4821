"""The nbgitpuller link (``make hub-link``, tools/hub_link.py), parsed back and clicked.

- the link parses back (urllib.parse) to the hub's git-pull route and to exactly the values given;
- its parameter names are ones nbgitpuller 1.3.0's own handlers read (taken from their source);
- nbgitpuller's own pull, given the link's values, puts notebook 00 where the link's urlpath opens it;
- REPO defaults to the clone's origin, with a clear error when there is none; SSH addresses become https;
- pinning: a branch made at a release tag keeps the room on the release when main moves on; a tag itself
  clones on the first click and fails on the second (nbgitpuller 1.3.0), which the tool says when REF is a tag.
"""
from __future__ import annotations

import ast
import inspect
import re
import shlex
import shutil
import subprocess
import warnings
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import nbgitpuller
import pytest
from nbgitpuller.pull import GitPuller

with warnings.catch_warnings():  # "Guessing base JupyterHandler class": no server here, only its source is read
    warnings.simplefilter("ignore", UserWarning)
    import nbgitpuller.handlers

import hub_link as H

ROOT = Path(__file__).resolve().parent.parent
HUB = "https://hub.example.org"
REPO = "https://github.com/owner/self-attention-hands-on.git"


def parsed(link):
    """(split URL, {name: value}) of a link; every name must appear once."""
    parts = urlsplit(link)
    query = parse_qs(parts.query, keep_blank_values=True, strict_parsing=True)
    assert all(len(values) == 1 for values in query.values()), query
    return parts, {name: values[0] for name, values in query.items()}


# -- the link parses back ------------------------------------------------------------------------------------

def test_the_link_parses_back_to_the_hub_route_and_the_values_given():
    link = H.hub_link(HUB, REPO, "workshop-1.0.0")
    parts, query = parsed(link)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "hub.example.org", "/hub/user-redirect/git-pull")
    assert not parts.fragment
    assert query == {
        "repo": REPO,
        "branch": "workshop-1.0.0",
        "targetpath": "self-attention-hands-on",
        "urlpath": "lab/tree/self-attention-hands-on/notebooks/00-before-you-start.ipynb",
    }


def test_every_value_is_percent_encoded():
    link = H.hub_link(HUB, REPO)
    raw = urlsplit(link).query
    for pair in raw.split("&"):
        name, value = pair.split("=", 1)
        assert not set("/:?#& ") & set(value), pair  # nothing a browser or the hub could read as structure
    assert unquote(raw) != raw


def test_the_default_ref_is_main_and_the_notebook_opened_is_notebook_00_which_exists():
    _, query = parsed(H.hub_link(HUB, REPO))
    assert query["branch"] == "main"
    prefix = f"lab/tree/{query['targetpath']}/"
    assert query["urlpath"].startswith(prefix)
    assert (ROOT / query["urlpath"][len(prefix):]).is_file()
    assert query["urlpath"].endswith("00-before-you-start.ipynb")


@pytest.mark.parametrize("hub, base", [
    ("https://hub.example.org", "https://hub.example.org"),
    ("https://hub.example.org/", "https://hub.example.org"),
    ("https://hub.example.org/hub/", "https://hub.example.org"),
    ("https://example.org/jupyter/", "https://example.org/jupyter"),
    ("http://localhost:8000/hub", "http://localhost:8000"),
])
def test_the_hub_address_is_taken_with_or_without_slash_or_hub(hub, base):
    assert H.hub_link(hub, REPO).startswith(f"{base}/hub/user-redirect/git-pull?")


@pytest.mark.parametrize("hub", ["", "hub.example.org", "ftp://hub.example.org", "https://", "https://h.org/?x=1"])
def test_a_bad_hub_address_is_refused_naming_hub(hub):
    with pytest.raises(H.LinkError, match="HUB="):
        H.hub_link(hub, REPO)


@pytest.mark.parametrize("repo, url", [
    ("https://github.com/owner/course", "https://github.com/owner/course"),
    ("git@github.com:owner/course.git", "https://github.com/owner/course.git"),
    ("ssh://git@gitlab.example.org/group/course.git", "https://gitlab.example.org/group/course.git"),
])
def test_ssh_addresses_become_https_with_a_note(repo, url):
    got, note = H.public_repo_url(repo)
    assert got == url
    assert (note is None) == repo.startswith("https://")
    assert H.clone_dir(got) == "course"


# Issue 25's hostile values: each printed a link (credentials copied into a link for a whole class; ext:: read as
# an SSH address). Each is refused naming the value, with what was wrong.
@pytest.mark.parametrize("hub, why", [
    ("https://hub.example.org/my hub", "characters"),
    ("https://hub.example.org/\"x", "characters"),
    ("https://hub.exa'mple.org", "characters"),
    ("https://hub.example.org/`id`", "characters"),
    ("https://hub.example.org/<b>", "characters"),
    ("https://user:pass@hub.example.org", "password"),
    ("https://token@hub.example.org", "user name"),
    ("https://hub.example.org:99999", "port"),
    ("https://hub.example.org:0", "port"),
])
def test_a_hostile_hub_address_is_refused_saying_why(hub, why):
    with pytest.raises(H.LinkError, match="HUB=") as refused:
        H.hub_link(hub, REPO)
    assert why in str(refused.value)


@pytest.mark.parametrize("repo, why", [
    ("ext::sh -c touch% /tmp/owned", "transport helper"),
    ("ext::ssh -o ProxyCommand=x host", "transport helper"),
    ("https://user:token@github.com/owner/course", "password"),
    ("https://github.com/owner/my course", "characters"),
    ("git@github.com:owner/co`id`urse.git", "not an address"),
])
def test_a_hostile_repository_address_is_refused_saying_why(repo, why):
    with pytest.raises(H.LinkError, match="REPO=") as refused:
        H.public_repo_url(repo)
    assert why in str(refused.value)


def test_the_command_prints_no_link_for_a_hostile_value(capsys):
    assert H.main(["--hub", "https://user:pass@hub.example.org", "--repo", REPO]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "pass" in err and "password" in err


@pytest.mark.parametrize("repo", ["", "/home/me/course", "../course", "file:///home/me/course.git"])
def test_a_local_repository_is_refused_naming_repo(repo):
    with pytest.raises(H.LinkError, match="REPO="):
        H.public_repo_url(repo)


@pytest.mark.parametrize("ref", ["", "my branch", "a..b", "-x", "v1~1", "x.lock", "a:b"])
def test_a_ref_git_would_refuse_is_refused_naming_ref(ref):
    with pytest.raises(H.LinkError, match="REF="):
        H.hub_link(HUB, REPO, ref)


# -- nbgitpuller's own names and behaviour --------------------------------------------------------------------

def arguments_read(handler_name):
    """The names a handler of nbgitpuller reads with get_argument('name', ...), from its source."""
    tree = ast.parse(inspect.getsource(nbgitpuller.handlers))
    handler = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == handler_name)
    return {call.args[0].value for call in ast.walk(handler)
            if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "get_argument"
            and call.args and isinstance(call.args[0], ast.Constant)}


def test_the_parameter_names_are_nbgitpullers_own():
    assert nbgitpuller.__version__ == "1.3.0", "re-read the handlers' parameters for another nbgitpuller"
    ui, sync = arguments_read("UIHandler"), arguments_read("SyncHandler")
    assert {"repo", "branch", "urlpath", "targetpath"} <= ui, ui  # the page the link opens
    assert {"repo", "branch", "targetpath"} <= sync, sync  # the pull it starts
    _, query = parsed(H.hub_link(HUB, REPO))
    assert set(query) <= ui
    assert set(query) - {"urlpath"} <= sync


def test_the_route_is_the_one_nbgitpuller_registers():
    source = inspect.getsource(nbgitpuller)
    assert "'git-pull'" in source or '"git-pull"' in source
    assert H.NBGITPULLER_ROUTE.endswith("/git-pull")


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def course(tmp_path, monkeypatch):
    """A course on a server: a bare repository with notebook 00 on main, tagged v1.0.0, and a workshop branch."""
    for name in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{name}_NAME", "Instructor")
        monkeypatch.setenv(f"GIT_{name}_EMAIL", "instructor@example.org")
    monkeypatch.setenv("NBGITPULLER_DEPTH", "1")  # as on a hub
    work = tmp_path / "work"
    (work / "notebooks").mkdir(parents=True)
    (work / H.FIRST_NOTEBOOK).write_text("release 1.0.0\n")
    git("init", "-q", "-b", "main", cwd=work)
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", "Release 1.0.0", cwd=work)
    git("tag", "-a", "v1.0.0", "-m", "1.0.0", cwd=work)
    git("branch", "workshop-1.0.0", "v1.0.0", cwd=work)
    bare = tmp_path / "self-attention-hands-on.git"
    git("clone", "-q", "--bare", str(work), str(bare), cwd=tmp_path)
    git("remote", "add", "origin", str(bare), cwd=work)
    return work, bare


def click(link, bare, home):
    """What a learner's click runs: nbgitpuller's pull with the link's values (the file:// URL of the test
    server in place of the public address); returns the path the link's urlpath opens."""
    _, query = parsed(link)
    home.mkdir(exist_ok=True)
    for _ in GitPuller(bare.as_uri(), str(home / query["targetpath"]), branch=query["branch"]).pull():
        pass
    return home / query["urlpath"].removeprefix("lab/tree/")


def push_to_main(work, text):
    (work / H.FIRST_NOTEBOOK).write_text(text)
    git("commit", "-q", "-am", "Changed during the workshop", cwd=work)
    git("push", "-q", "origin", "main", cwd=work)


def test_a_click_puts_notebook_00_where_the_link_opens_it(course, tmp_path):
    work, bare = course
    opened = click(H.hub_link(HUB, REPO), bare, tmp_path / "home")
    assert opened.read_text() == "release 1.0.0\n"


def test_a_link_pinned_to_a_workshop_branch_ignores_a_push_to_main(course, tmp_path):
    work, bare = course
    link = H.hub_link(HUB, REPO, "workshop-1.0.0")
    opened = click(link, bare, tmp_path / "home")
    push_to_main(work, "changed mid-workshop\n")
    assert click(link, bare, tmp_path / "home") == opened  # the second click works ...
    assert opened.read_text() == "release 1.0.0\n"  # ... and changes nothing for the room
    main_link = H.hub_link(HUB, REPO, "main")
    assert click(main_link, bare, tmp_path / "other-home").read_text() == "changed mid-workshop\n"


def test_a_link_pinned_to_a_tag_fails_on_the_second_click(course, tmp_path):
    """nbgitpuller 1.3.0 merges origin/<branch>: a tag has none. If this starts passing, nbgitpuller learned
    tags: update the note in hub_link.py and docs/instructor-guide.md."""
    work, bare = course
    link = H.hub_link(HUB, REPO, "v1.0.0")
    opened = click(link, bare, tmp_path / "home")
    assert opened.read_text() == "release 1.0.0\n"
    with pytest.raises(subprocess.CalledProcessError):
        click(link, bare, tmp_path / "home")
    assert opened.read_text() == "release 1.0.0\n"  # the learner's files are untouched, but no notebook opens


# -- the command line ----------------------------------------------------------------------------------------

def test_repo_defaults_to_the_clones_origin(course, monkeypatch, capsys):
    work, bare = course
    git("remote", "set-url", "origin", "git@github.com:owner/self-attention-hands-on.git", cwd=work)
    monkeypatch.setattr(H, "REPO_ROOT", work)
    assert H.main(["--hub", HUB]) == 0
    out, err = capsys.readouterr()
    _, query = parsed(out.strip())
    assert query["repo"] == "https://github.com/owner/self-attention-hands-on.git"
    assert query["branch"] == "main"
    assert "SSH address" in err


def test_no_origin_is_a_clear_error(tmp_path, monkeypatch, capsys):
    git("init", "-q", cwd=tmp_path)
    monkeypatch.setattr(H, "REPO_ROOT", tmp_path)
    assert H.main(["--hub", HUB]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "no remote 'origin'" in err and "REPO=https://github.com/OWNER/REPO" in err


def test_a_missing_hub_is_named_first(tmp_path, monkeypatch, capsys):
    git("init", "-q", cwd=tmp_path)  # no origin either: HUB is what to fix first
    monkeypatch.setattr(H, "REPO_ROOT", tmp_path)
    assert H.main(["--hub", ""]) == 2
    assert "HUB=''" in capsys.readouterr().err


def test_a_tag_as_ref_prints_the_link_and_how_to_pin_a_branch_instead(course, monkeypatch, capsys):
    work, _ = course
    monkeypatch.setattr(H, "REPO_ROOT", work)
    assert H.main(["--hub", HUB, "--repo", REPO, "--ref", "v1.0.0"]) == 0
    out, err = capsys.readouterr()
    assert parsed(out.strip())[1]["branch"] == "v1.0.0"
    assert "git branch workshop-1.0.0 v1.0.0 && git push origin workshop-1.0.0" in err
    assert H.main(["--hub", HUB, "--repo", REPO, "--ref", "workshop-1.0.0"]) == 0
    assert capsys.readouterr().err == ""  # a branch: no note


def test_the_bare_script_runs_without_the_environment():
    """make hub-link runs it with the system python3: standard library only."""
    python = shutil.which("python3")
    if python is None:
        pytest.skip("no python3 on PATH")
    result = subprocess.run([python, "-E", "-s", str(ROOT / "tools/hub_link.py"), "--hub", HUB,
                             "--repo", REPO], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == H.hub_link(HUB, REPO)


def test_make_hub_link_prints_the_same_link():
    makefile = (ROOT / "Makefile").read_text()
    if "\nhub-link:" not in makefile:
        pytest.skip("the Makefile has no hub-link target yet")
    result = subprocess.run(["make", "-s", "--no-print-directory", "hub-link", f"HUB={HUB}", f"REPO={REPO}",
                             "REF=workshop-1.0.0"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == H.hub_link(HUB, REPO, "workshop-1.0.0")


# -- the documentation's links come from the tool ------------------------------------------------------------

DOCUMENTED = re.compile(r"^\s*\$ make hub-link (?P<args>.+)\n\s*(?P<link>https?://\S+)$", re.M)


def documented_links(text):
    """[(HUB, REPO, REF, link)] of every '$ make hub-link ...' line followed by the link it printed."""
    found = []
    for match in DOCUMENTED.finditer(text):
        args = dict(arg.split("=", 1) for arg in shlex.split(match["args"]))
        found.append((args["HUB"], args["REPO"], args.get("REF", H.DEFAULT_REF), match["link"]))
    return found


def test_the_guides_links_are_what_the_tool_prints():
    found = documented_links((ROOT / "docs" / "instructor-guide.md").read_text(encoding="utf-8"))
    assert len(found) >= 2, "docs/instructor-guide.md shows the link for main and for a workshop branch"
    assert {ref for _, _, ref, _ in found} >= {"main", "workshop-X.Y.Z"}
    for hub, repo, ref, link in found:
        assert link == H.hub_link(hub, repo, ref), f"regenerate: make hub-link HUB={hub} REPO={repo} REF={ref}"


def test_the_readmes_links_if_any_are_what_the_tool_prints():
    for hub, repo, ref, link in documented_links((ROOT / "README.md").read_text(encoding="utf-8")):
        assert link == H.hub_link(hub, repo, ref), f"regenerate: make hub-link HUB={hub} REPO={repo} REF={ref}"


def test_the_documented_link_check_catches_a_stale_link():
    text = "   $ make hub-link HUB=https://h.org REPO=https://github.com/o/r\n   https://h.org/hub/user-redirect/git-pull?repo=x\n"
    [(hub, repo, ref, link)] = documented_links(text)
    assert (hub, repo, ref) == ("https://h.org", "https://github.com/o/r", "main")
    assert link != H.hub_link(hub, repo, ref)
