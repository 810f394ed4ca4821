"""Bring a learner's clone of the course to the course's latest version without losing their work.

``make update`` (``python tools/update.py``):

1. checks that this is a clone of the course (its first commit is :data:`COURSE_ROOT_COMMIT`), on a
   branch that follows the course's branch, with no merge, rebase or conflict under way; otherwise
   it changes nothing and says what to do;
2. fetches the course (a shallow clone, as nbgitpuller makes, gets its history once, to be checked);
3. keeps a copy of every file the learner changed, as git sees it (a notebook that was only run and
   saved counts too), in ``backups/<folder>/<name>.<YYYYmmdd-HHMMSS>.<ext>``; each copy is written,
   synced and read back before it takes its name, and none is ever overwritten. Commits that
   nbgitpuller made for the learner (``Automatic commit by nbgitpuller`` and its merges) are the
   learner's work too: their notebooks are kept as well. Any other commit of the learner's on this
   branch stops the update (nothing changed), with the commands that keep those commits on a branch;
4. restores the files the update brings in, and moves the branch to the course's latest commit:
   a fast-forward, or, past nbgitpuller's commits, ``git reset --keep`` (no commit is made, so no git
   identity is needed);
5. puts the learner's work back: a file the course did not change is left (or written back) exactly
   as the learner had it; in a notebook the course changed, cells are matched by id, and the
   learner's code goes back into every cell the course did not change between the two versions (so
   a finished exercise survives an update), with the cells the learner added; where the course
   changed a cell the learner edited, the new cell is kept and the line says that the learner's code
   is in the backup.

It prints one line per notebook (updated, answers carried over, kept as you had it, kept as backup
only, ... and why) and says when the package lock changed (``make update`` then runs ``make env``, and
``course.py update`` its ``env``). Its messages name the command the learner ran (``doctor.course_command``).
A run with nothing new from the course changes nothing, so a second run is a no-op.

The plan is kept in ``.git/course-update.json`` from just before the move until the learner's work is back. If a run
stops in between (killed, a full disk), the next ``make update`` finishes it: when the branch moved, it writes the
learner's work back; when it did not, it first puts every file the move touched back as it was (the learner's from
their copies; a git lock the stopped run left is removed), says so, and updates from there.

Command line (from the repository root)::

    python tools/update.py                 # this clone
    python tools/update.py --repo DIR      # another clone

Exit codes: 0 updated, or already up to date; 1 refused (nothing was changed; the message says why
and what to do) or a file could not be written (the message says which, where the copies are, and
the fix); 2 bad usage.
"""

from __future__ import annotations

import argparse
import copy
import datetime as _dt
import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import _checkout  # noqa: F401  (this checkout's course_utils first)
import build
import nbformat

from course_utils import doctor
from course_utils.safe_files import WriteError, shown, write_bytes, write_new

__all__ = [
    "COURSE_ROOT_COMMIT",
    "NotebookMerge",
    "Refused",
    "UpdateError",
    "UpdateReport",
    "main",
    "merge_notebook",
    "update",
]

#: The course's first commit (``git rev-list --max-parents=0 HEAD``): a clone of the course has it as root.
COURSE_ROOT_COMMIT = "faa0940ca1e67f564f1707ec594149b21e6448db"


def _command() -> str:
    """The command that runs this tool where the course runs: in a clone on the learner's machine ``make update``,
    or what the learner typed instead (``python3 course.py update``: ``doctor.course_command``); on a JupyterHub or
    Binder (no `make` there, and `make update` would build a .venv the hub does not use) the module itself. Every
    message that says "run ... again" names it."""
    return doctor.course_command("update") if doctor.place() == "clone" else "python tools/update.py"
#: The identity nbgitpuller commits with (nbgitpuller/pull.py): its commits hold the learner's work.
NBGITPULLER_EMAIL = "nbgitpuller@nbgitpuller.link"
#: Files that define the environment: when the course changes one, the environment is rebuilt.
ENVIRONMENT_FILES = ("requirements.lock", "requirements-py310.lock", "requirements-dev.lock", "requirements-dev-py310.lock",
                     "pyproject.toml", "environment.yml")
#: The plan of an update whose last step (writing the learner's work back) did not finish, in .git/.
JOURNAL_NAME = "course-update.json"
NOTEBOOKS = "notebooks"
BACKUPS = "backups"


class Refused(RuntimeError):
    """The update did not start: nothing was changed. The message says why and what to do."""


class UpdateError(RuntimeError):
    """The update started but could not finish; the message says what is where (backups, plan)."""


@dataclass(frozen=True)
class Line:
    """What the update did with one file: a status word and the reason, for one printed line."""

    path: str
    status: str
    detail: str

    def __str__(self) -> str:
        return f"{self.status:<21} {self.path}: {self.detail}"


@dataclass
class UpdateReport:
    """What :func:`update` did.

    Attributes
    ----------
    old, new : str
        The commit the branch was on, and the course's commit it is on now (equal when up to date).
    lines : list of Line
        One per notebook of the course, then one per other file of the learner's.
    backups : list of Path
        Every copy written.
    environment_changed : list of str
        Files of :data:`ENVIRONMENT_FILES` the course changed.
    notes : list of str
        Further sentences for the learner.
    """

    old: str
    new: str
    lines: list = field(default_factory=list)
    backups: list = field(default_factory=list)
    environment_changed: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @property
    def up_to_date(self) -> bool:
        return self.old == self.new and not self.lines

    def text(self) -> str:
        """Everything to print, as lines."""
        if self.up_to_date:
            return "\n".join([f"Already up to date with the course ({self.new[:7]}); nothing was changed."]
                             + self.notes)
        out = [f"Updated from the course: {self.old[:7]} -> {self.new[:7]}."] if self.old != self.new else []
        out += [str(line) for line in self.lines]
        if self.backups:
            folders = sorted({shown(p.parent) for p in self.backups})
            out.append(f"Copies of your files as they were: {', '.join(folders)} ({len(self.backups)} files; "
                       "never overwritten).")
        if self.environment_changed:
            which = ", ".join(self.environment_changed)
            place = doctor.place()
            if os.environ.get("MAKELEVEL") or (place == "clone" and doctor.launcher()):  # their next step is env
                out.append(f"The course changed its packages ({which}): {doctor.course_command('update')} now "
                           f"rebuilds the environment ({doctor.course_command('env')}).")
            elif place in ("hub", "binder"):  # the hub's (or Binder's) environment: not the learner's to rebuild
                out.append(f"The course changed its packages ({which}): the hub's environment holds them, and only "
                           "its admin can change it: tell your instructor (the notebooks say if anything is missing).")
            else:
                out.append(f"The course changed its packages ({which}): rebuild the environment with "
                           f"`{doctor.course_command('env')}` "
                           "(conda: `conda env update -f environment.yml`; on a JupyterHub the hub's image holds the "
                           "packages: tell your instructor).")
        if any(line.status != "unchanged" and line.path.endswith(".ipynb") for line in self.lines):
            out.append("A notebook open in JupyterLab: reload it (File > Reload Notebook from Disk) before you "
                       "save it again.")
        return "\n".join(out + self.notes)


# ---------------------------------------------------------------------------------------------
# git
# ---------------------------------------------------------------------------------------------


def _git_env() -> dict:
    # No prompt for credentials (a hung update is worse than a clear error); git's messages in English.
    return dict(os.environ, LC_ALL="C", LANG="C", GIT_TERMINAL_PROMPT="0")


class _Git:
    def __init__(self, repo: Path):
        self.repo = repo

    def run(self, *args, check=True, text=True) -> subprocess.CompletedProcess:
        proc = subprocess.run(["git", *args], cwd=self.repo, capture_output=True, text=text,
                              stdin=subprocess.DEVNULL, env=_git_env())
        if check and proc.returncode != 0:
            err = proc.stderr if text else proc.stderr.decode("utf-8", "replace")
            raise _GitFailed(args, err.strip())
        return proc

    def out(self, *args) -> str:
        return self.run(*args).stdout.strip()

    def ok(self, *args) -> bool:
        return self.run(*args, check=False).returncode == 0

    def paths(self, *args) -> list[str]:
        """Paths from a ``-z`` listing."""
        return [p for p in self.run(args[0], "-z", *args[1:]).stdout.split("\0") if p]

    def blob(self, commit: str, path: str) -> bytes | None:
        """The file ``path`` at ``commit``, or None when it has none."""
        proc = self.run("cat-file", "blob", f"{commit}:{path}", check=False, text=False)
        return proc.stdout if proc.returncode == 0 else None


class _GitFailed(RuntimeError):
    def __init__(self, args, stderr):
        self.args_, self.stderr = args, stderr
        last = stderr.splitlines()[-1] if stderr else "no message"
        super().__init__(f"`git {' '.join(args)}` failed: {last}")


# ---------------------------------------------------------------------------------------------
# Notebooks: the learner's cells carried into the course's new version
# ---------------------------------------------------------------------------------------------


@dataclass
class NotebookMerge:
    """The learner's work carried from their notebook into the course's new version (:func:`merge_notebook`).

    Attributes
    ----------
    notebook : NotebookNode or None
        The new version with the learner's cells in it; None when it cannot be made (``problem``).
    carried : list of str
        Ids of cells the learner edited whose code is now in ``notebook``.
    added : list of str
        Ids of cells the learner added, now in ``notebook``.
    lost : list of (str, str)
        Cells the learner edited that ``notebook`` does not hold: (id, why); their code is in the backup.
    only_outputs : bool
        The learner changed no cell (outputs, metadata or deleted cells only).
    problem : str or None
        Why nothing could be carried (an unreadable notebook, cells without ids).
    first_lines : dict
        Cell id -> the first line of the learner's cell, to name it to the learner.
    """

    notebook: object = None
    carried: list = field(default_factory=list)
    added: list = field(default_factory=list)
    lost: list = field(default_factory=list)
    only_outputs: bool = False
    problem: str | None = None
    first_lines: dict = field(default_factory=dict)

    def name(self, cell_id: str) -> str:
        """``nb01-softmax `def my_softmax(x):```: the id and the first line of the learner's cell."""
        first = self.first_lines.get(cell_id, "")
        first = first if len(first) <= 40 else first[:37] + "..."
        return f"{cell_id} `{first}`" if first else cell_id

    def lost_text(self) -> str:
        """``cell nb01-softmax `def my_softmax(x):`, which the course changed``, for each lost cell."""
        verbs = {"the course changed this cell": "changed", "the course removed this cell": "removed"}
        return "; ".join(f"cell {self.name(cell)}, which the course {verbs.get(why, why)}" for cell, why in self.lost)


def _parse(data: bytes, what: str):
    try:
        nb = nbformat.reader.reads(data.decode("utf-8"))
        if nb.nbformat != 4:
            nb = nbformat.convert(nb, 4)
        cells = nb.cells
    except (UnicodeDecodeError, ValueError, KeyError, AttributeError, nbformat.reader.NotJSONError) as err:
        raise ValueError(f"{what} is not readable as a notebook ({str(err).splitlines()[0][:80]})") from None
    if any(not cell.get("id") for cell in cells):
        raise ValueError(f"{what} has cells without an id, so its cells cannot be matched")
    return nb


def _content(cell) -> tuple[str, str]:
    source = cell.get("source", "")
    return cell.get("cell_type", ""), "".join(source) if isinstance(source, list) else source


def _clean_copy(cell, cell_id: str, metadata=None):
    """A cell with ``cell``'s type and source (and attachments), no outputs, the given id and metadata."""
    kind, source = _content(cell)
    metadata = copy.deepcopy(cell.get("metadata", {}) if metadata is None else metadata)
    if kind == "code":
        new = nbformat.v4.new_code_cell(source=source, metadata=metadata)
    elif kind == "markdown":
        new = nbformat.v4.new_markdown_cell(source=source, metadata=metadata)
    else:
        new = nbformat.v4.new_raw_cell(source=source, metadata=metadata)
    if cell.get("attachments") and kind != "code":
        new["attachments"] = copy.deepcopy(cell["attachments"])
    new["id"] = cell_id
    return new


def merge_notebook(base: bytes, mine: bytes, new: bytes, between=()) -> NotebookMerge:
    """Carry a learner's cells from their notebook into the course's new version of it.

    Cells are matched by id. A cell is the learner's edit when its type or source is none the course
    ever gave that cell (in ``base``, ``between`` or ``new``). An edited cell goes into the new version
    when the course never changed that cell from ``base`` to ``new``; where the course changed or
    removed it, the new version keeps the course's cell and the cell is listed in ``lost``. Cells of
    the learner's own go in after the cell they followed. Outputs are not carried (the new version
    carries none); the cells' order, metadata and everything else are the new version's.

    Parameters
    ----------
    base : bytes
        The course's version the learner started from.
    mine : bytes
        The learner's notebook.
    new : bytes
        The course's new version.
    between : sequence of bytes
        The course's versions between ``base`` and ``new``: after nbgitpuller merged some of them into
        the learner's notebook, their cells are the course's, not the learner's.

    Returns
    -------
    NotebookMerge

    Examples
    --------
    >>> from nbformat.v4 import new_notebook, new_code_cell
    >>> def nb(*sources):
    ...     cells = [new_code_cell(s, id=f"c{i}") for i, s in enumerate(sources)]
    ...     return nbformat.writes(new_notebook(cells=cells)).encode()
    >>> result = merge_notebook(nb("x = 1", "raise NotImplementedError()"),
    ...                         nb("x = 1", "return 42"),            # the learner's answer in c1
    ...                         nb("x = 2", "raise NotImplementedError()"))  # the course fixed c0
    >>> [c.source for c in result.notebook.cells], result.carried
    (['x = 2', 'return 42'], ['c1'])
    """
    result = NotebookMerge()
    try:
        base_nb, new_nb = _parse(base, "the course's earlier version"), _parse(new, "the course's new version")
        mine_nb = _parse(mine, "your notebook")
    except ValueError as err:
        result.problem = str(err)
        return result
    versions = [base_nb]
    for data in between:
        try:
            versions.append(_parse(data, "a version of the course"))
        except ValueError:
            continue  # an unreadable intermediate version teaches nothing about the cells
    known = {cell.id for version in versions for cell in version.cells}  # the course's cells the learner had
    versions.append(new_nb)
    course_contents: dict[str, list] = {}  # id -> every content the course gave that cell, oldest first
    for version in versions:
        for cell in version.cells:
            contents = course_contents.setdefault(cell.id, [])
            if _content(cell) not in contents:
                contents.append(_content(cell))
    new_cells = {cell.id: cell for cell in new_nb.cells}
    merged = copy.deepcopy(new_nb)
    position = {cell.id: index for index, cell in enumerate(merged.cells)}

    edited = False
    inserts: list[tuple[str | None, object]] = []  # (the id it follows, the cell)
    anchor = None  # the id of the last cell of the learner's that the merged notebook holds
    taken = set(course_contents)
    for cell in mine_nb.cells:
        result.first_lines[cell.id] = next((ln.strip() for ln in _content(cell)[1].splitlines() if ln.strip()), "")
        if cell.id in known:
            contents = course_contents[cell.id]
            if _content(cell) not in contents:
                edited = True
                if cell.id not in new_cells:
                    result.lost.append((cell.id, "the course removed this cell"))
                elif len(contents) > 1:
                    result.lost.append((cell.id, "the course changed this cell"))
                else:
                    merged.cells[position[cell.id]] = _clean_copy(cell, cell.id, new_cells[cell.id].metadata)
                    result.carried.append(cell.id)
            if cell.id in new_cells:
                anchor = cell.id
            continue
        edited = True  # a cell of the learner's own
        cell_id = cell.id
        while cell_id in taken:
            cell_id = f"{cell_id}-mine"
        taken.add(cell_id)
        result.first_lines[cell_id] = result.first_lines[cell.id]
        inserts.append((anchor, _clean_copy(cell, cell_id)))
        result.added.append(cell_id)
        anchor = cell_id

    for after, cell in inserts:
        ids = [c.id for c in merged.cells]
        merged.cells.insert(ids.index(after) + 1 if after in ids else 0, cell)
    result.notebook = merged
    result.only_outputs = not edited
    return result


# ---------------------------------------------------------------------------------------------
# The update
# ---------------------------------------------------------------------------------------------


@dataclass
class _File:
    """One path the learner changed (or that blocks the update), with every version of it."""

    path: str
    mine: bytes | None          # the working tree's (None: deleted)
    base: bytes | None          # the course's version the learner is on
    head: bytes | None          # the branch's commit (differs from base past nbgitpuller's commits)
    new: bytes | None           # the course's latest
    in_worktree_diff: bool = True
    untracked: bool = False
    backup: Path | None = None
    committed_backup: Path | None = None


def update(repo=None, *, course_root: str | None = None, backup_root=None, now=None, told=None) -> UpdateReport:
    """Update a clone of the course to the course's latest version, keeping the learner's work.

    See the module's docstring for the steps.

    Parameters
    ----------
    repo : str or Path, optional
        The clone (default: the checkout this course_utils belongs to).
    course_root : str, optional
        The first commit a clone of the course must have (default: :data:`COURSE_ROOT_COMMIT`).
    backup_root : str or Path, optional
        Where copies go (default: ``backups/`` in the clone).
    now : datetime, optional
        The time in the copies' names (default: now).
    told : callable, optional
        Called with the report before this returns; after an update, once the learner's work is back and before
        the plan in .git/ is removed, so that a run killed before the learner was told is finished (and told)
        by the next one.

    Returns
    -------
    UpdateReport

    Raises
    ------
    Refused
        Nothing was changed; the message says why and what to do.
    UpdateError, course_utils.safe_files.WriteError
        A copy or a file could not be written; the message says what is where.
    """
    if shutil.which("git") is None:
        raise Refused("git is not installed: install it (Debian/Ubuntu: `sudo apt install git`), then run "
                      f"{_command()} again. Nothing was changed.")
    repo = Path(repo) if repo is not None else build.REPO_ROOT
    course_root = course_root or COURSE_ROOT_COMMIT
    git = _Git(repo)
    top = git.run("rev-parse", "--show-toplevel", check=False)
    if top.returncode != 0:
        raise Refused(f"{shown(repo)} is not a git clone (no .git folder): {_command()} updates a clone of the "
                      "course. Clone the course with `git clone <the course's URL>`, and copy your notebooks into "
                      "it. Nothing was changed.")
    repo = Path(top.stdout.strip())
    git = _Git(repo)
    git_dir = Path(git.out("rev-parse", "--absolute-git-dir"))
    journal = git_dir / JOURNAL_NAME
    if journal.exists():  # an earlier run was stopped (killed, a full disk) with its plan written
        (git_dir / "index.lock").unlink(missing_ok=True)  # left by that run's git, killed with it
    _refuse_unfinished_work(git, git_dir)
    branch, remote, upstream = _branch_and_upstream(git)
    shallow = git.out("rev-parse", "--is-shallow-repository") == "true"
    if not shallow:
        _refuse_other_project(git, course_root)

    url = git.run("remote", "get-url", remote, check=False).stdout.strip() or remote
    fetch = ["fetch", "--quiet", remote] + (["--unshallow"] if shallow else [])
    try:
        git.run(*fetch)
    except _GitFailed as err:
        why = err.stderr.splitlines()[-1] if err.stderr else "git gave no reason"
        raise Refused(f"cannot fetch the course from {url} ({why}): check your connection and run "
                      f"{_command()} again. Nothing was changed.") from None
    if shallow:
        _refuse_other_project(git, course_root)

    head = git.out("rev-parse", "HEAD")
    new = git.out("rev-parse", f"{upstream}^{{commit}}")
    notes = []
    if journal.exists():
        plan = _read_journal(journal)
        if plan and plan.get("to") == head:
            return _told(_finish(git, plan, journal, resumed=True), plan, journal, told)
        notes.append(_undo_interrupted_move(git, plan, head))  # the branch did not move: as before, then again
        journal.unlink(missing_ok=True)
    if head == new:
        report = UpdateReport(head, new)
        report.notes += notes
        if told is not None:
            told(report)
        return report

    _refuse_own_commits(git, branch, upstream)
    base = _starting_point(git, head, new)
    if not base:
        raise Refused(f"{branch} and {upstream} share no history, so there is no version to update from. "
                      "Nothing was changed.")

    stamp = (now or _dt.datetime.now()).strftime("%Y%m%d-%H%M%S")
    backup_root = Path(backup_root) if backup_root is not None else repo / BACKUPS
    files = _learner_files(git, base, head, new)
    moved = set(git.paths("diff", "--name-only", "--no-renames", head, new))
    dirty = set(git.paths("diff", "--name-only", "--no-renames", "HEAD"))
    dirty |= set(git.paths("diff", "--cached", "--name-only", "--no-renames", "HEAD"))
    dirty |= {path for path, item in files.items() if item.untracked}

    # 1. Copies of everything the learner changed, before anything else is touched.
    report = UpdateReport(head, new)
    for item in files.values():
        try:
            _back_up(item, backup_root, stamp, report)
        except WriteError as err:
            raise err.with_unchanged("nothing was updated: your files are as they were") from None

    # 2. The plan: what each file becomes once the branch is on the course's commit.
    restore = sorted(dirty & moved)
    plan = {"from": head, "base": base, "to": new, "branch": branch, "writes": [], "lines": [],
            "moved": sorted(moved),  # what the move writes, and where each learner's file it touches is kept:
            "restore": [{"path": p, "backup": str(files[p].backup) if files[p].backup else None,
                         "deleted": files[p].mine is None} for p in restore if p in files]}
    for path in sorted(files):
        _plan_file(git, files[path], path in moved, plan)
    # what the report says besides the plan's own lines, kept for a run that finishes this one
    plan["told"] = {"lines": [vars(line) for line in _course_notebook_lines(git, head, new, files, moved)],
                    "backups": [str(path) for path in report.backups], "notes": notes,
                    "environment_changed": [f for f in ENVIRONMENT_FILES if f in moved]}

    # 3. Move: restore what the move writes, then fast-forward (or reset past nbgitpuller's commits).
    try:
        _preflight(git, new, moved, plan["writes"])
        write_bytes(journal, json.dumps(plan, indent=1).encode("utf-8"))
    except WriteError as err:
        raise err.with_unchanged("nothing was updated: your files are as they were") from None
    try:
        _restore(git, restore, files)
        if git.ok("merge-base", "--is-ancestor", head, new):
            git.run("merge", "--quiet", "--ff-only", new)
        else:
            git.run("reset", "--quiet", "--keep", new)
    except (_GitFailed, OSError) as err:
        not_back = _undo_restore(git, head, restore, files)
        journal.unlink(missing_ok=True)
        where = ("your files are as they were" if not not_back else
                 "these files could not be put back, their copies are in backups/: "
                 + ", ".join(f"{p} ({_kept(files[p])})" for p in not_back))
        raise UpdateError(f"could not move {branch} to the course's commit ({_why(err)}); {where}. "
                          f"{branch} is where it was; run {_command()} again once that is fixed.") from None

    # 4. The learner's work back.
    return _told(_finish(git, plan, journal, resumed=False), plan, journal, told)


def _told(finished: UpdateReport, plan: dict, journal: Path, told) -> UpdateReport:
    """``finished`` with what the plan kept for the report; ``told(report)`` before the plan goes."""
    kept = plan.get("told", {})
    finished.lines = _one_per_path([Line(**line) for line in kept.get("lines", [])] + finished.lines)
    finished.backups = [Path(path) for path in kept.get("backups", [])]
    finished.notes = kept.get("notes", []) + finished.notes
    finished.environment_changed = kept.get("environment_changed", [])
    if told is not None:
        told(finished)
    journal.unlink(missing_ok=True)
    return finished


def _refuse_unfinished_work(git: _Git, git_dir: Path) -> None:
    """Refuse while git is in the middle of something (each with its own way out)."""
    under_way = [
        ("MERGE_HEAD", "a merge is under way (a `git merge` or `git pull` stopped on a conflict)",
         "finish it, or cancel it with `git merge --abort`"),
        ("rebase-merge", "a rebase is under way", "finish it, or cancel it with `git rebase --abort`"),
        ("rebase-apply", "a rebase or `git am` is under way",
         "finish it, or cancel it with `git rebase --abort` (or `git am --abort`)"),
        ("CHERRY_PICK_HEAD", "a cherry-pick is under way", "finish it, or cancel it with `git cherry-pick --abort`"),
        ("REVERT_HEAD", "a revert is under way", "finish it, or cancel it with `git revert --abort`"),
        ("BISECT_LOG", "a bisect is under way", "end it with `git bisect reset`"),
        ("index.lock", "another git command is running here, or one crashed (.git/index.lock exists)",
         "wait for it to finish; if no git command is running, delete .git/index.lock"),
    ]
    for name, what, fix in under_way:
        if (git_dir / name).exists():
            raise Refused(f"{what}: {fix}, then run {_command()} again. Nothing was changed.")
    if git.run("symbolic-ref", "-q", "HEAD", check=False).returncode != 0:
        raise Refused("HEAD is detached (a commit or a tag is checked out, not a branch): go back to your branch "
                      "with `git switch main` (git refuses if that would lose a change), then run "
                      f"{_command()} again. Nothing was changed.")
    unmerged = sorted(set(git.paths("diff", "--name-only", "--diff-filter=U")))
    if unmerged:
        listed = " ".join(unmerged)
        raise Refused(
            f"these files have unresolved conflicts: {listed} (a `git stash pop`, `git merge` or `git pull` stopped "
            f"half way). After a `git stash pop`, your version is still in the stash (`git stash list`): take the "
            f"course's files back with `git checkout HEAD -- {listed}`, run {_command()}, then get yours from the "
            f"stash with `git show \"stash@{{0}}:FILE\" > backups/FILE-mine` for each. Nothing was changed.")


def _branch_and_upstream(git: _Git) -> tuple[str, str, str]:
    branch = git.out("symbolic-ref", "--short", "HEAD")
    remote = git.run("config", f"branch.{branch}.remote", check=False).stdout.strip()
    upstream = git.run("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}", check=False).stdout.strip()
    if not remote or not upstream:
        remotes = git.out("remote").split()
        if not remotes:
            raise Refused(f"this clone has no remote, so there is nowhere to update from: add the course with "
                          f"`git remote add origin <the course's URL>` and `git fetch origin`, then "
                          f"`git branch --set-upstream-to=origin/main {branch}`, then run {_command()} again. "
                          "Nothing was changed.")
        raise Refused(f"branch {branch} does not follow a branch of the course (it has no upstream): if it is your "
                      f"own branch, go back to the course's with `git switch main`; else set it with "
                      f"`git branch --set-upstream-to={remotes[0]}/main {branch}`; then run {_command()} again. "
                      "Nothing was changed.")
    if remote == ".":
        raise Refused(f"branch {branch} follows {upstream}, a branch of this clone, not the course's: "
                      f"`git switch main`, then run {_command()} again. Nothing was changed.")
    return branch, remote, upstream


def _refuse_other_project(git: _Git, course_root: str) -> None:
    roots = set(git.run("rev-list", "--max-parents=0", "HEAD", check=False).stdout.split())
    if course_root not in roots:
        found = ", ".join(sorted(r[:7] for r in roots)) or "none"
        raise Refused(f"this git repository is not a clone of the course \"Self-attention, hands-on\" (its first "
                      f"commit is {found}, the course's is {course_root[:7]}): {_command()} only updates the course. "
                      "Nothing was changed.")


def _refuse_own_commits(git: _Git, branch: str, upstream: str) -> None:
    """Commits of the branch that the course does not have: nbgitpuller's are fine, any other stops."""
    log = git.run("log", "--format=%H%x1f%ae%x1f%ce%x1f%s%x1e", f"{upstream}..HEAD").stdout
    own = []
    for record in filter(None, (r.strip("\n") for r in log.split("\x1e"))):
        sha, author, committer, subject = record.split("\x1f")
        if not (author == NBGITPULLER_EMAIL and committer == NBGITPULLER_EMAIL):
            own.append(f"  {sha[:7]} {subject}")
    if own:
        start = git.out("merge-base", "HEAD", upstream)[:12]
        keep = f"my-work-{_dt.datetime.now():%Y%m%d-%H%M%S}"
        raise Refused(
            f"{branch} has {len(own)} commit(s) of yours that the course does not have:\n" + "\n".join(own) + "\n"
            f"{_command()} moves {branch} to the course's latest version and would leave them behind, so it stopped; "
            f"nothing was changed. To keep them on a branch and update with their changes as your work:\n"
            f"  git branch {keep}        (your commits stay there)\n"
            f"  git reset --soft {start}   ({branch} back to the course's commit; your files are not touched)\n"
            f"  {_command()}")


def _starting_point(git: _Git, head: str, new: str) -> str:
    """The course's commit the learner's work started from.

    Without commits of nbgitpuller's, the branch's commit. With them, the course's commit before the
    first of them (nbgitpuller's merges brought later course commits in, but took the learner's lines
    where both changed the same ones: those course changes are still to come).
    """
    local = git.run("rev-list", "--first-parent", f"{new}..{head}").stdout.split()
    if local:
        parent = git.run("rev-parse", "--verify", "--quiet", f"{local[-1]}^1", check=False).stdout.strip()
        if parent:
            return parent
    return git.run("merge-base", head, new, check=False).stdout.strip()


def _course_versions(git: _Git, base: str, new: str, path: str) -> list[bytes]:
    """The course's versions of ``path`` committed between ``base`` and ``new``, oldest first."""
    commits = [c for c in git.run("rev-list", "--reverse", f"{base}..{new}", "--", path).stdout.split() if c != new]
    return [blob for blob in (git.blob(commit, path) for commit in commits) if blob is not None]


def _learner_files(git: _Git, base: str, head: str, new: str) -> dict:
    """Every path the learner changed since ``base`` (in the working tree or in nbgitpuller's commits),
    and every untracked file the course's new version would overwrite."""
    worktree = set(git.paths("diff", "--name-only", "--no-renames", base))
    committed = set(git.paths("diff", "--name-only", "--no-renames", base, head))
    files = {}
    for path in sorted(worktree | committed):
        file = git.repo / path
        item = _File(path, file.read_bytes() if file.is_file() else None,
                     git.blob(base, path), git.blob(head, path), git.blob(new, path), in_worktree_diff=path in worktree)
        if item.mine == item.new and item.head in (item.new, item.base):
            continue  # what the learner has is the course's new version: nothing to keep, nothing to do
        files[path] = item
    tracked = set(git.paths("ls-files"))
    for path in git.paths("diff", "--name-only", "--no-renames", "--diff-filter=A", head, new):
        file = git.repo / path
        if path not in tracked and file.is_file():
            files[path] = _File(path, file.read_bytes(), None, None, git.blob(new, path), untracked=True)
    return files


def _backup_folder(backup_root: Path, path: str) -> Path:
    parent = PurePosixPath(path).parent
    return backup_root if str(parent) == "." else backup_root.joinpath(*parent.parts)


def _back_up(item: _File, backup_root: Path, stamp: str, report: UpdateReport) -> None:
    """Verified copies of the learner's version (and of nbgitpuller's commit of it, when that differs)."""
    name = PurePosixPath(item.path)
    folder = _backup_folder(backup_root, item.path)
    if item.mine is not None and (item.in_worktree_diff or item.untracked or item.mine != item.base):
        item.backup = write_new(folder, name.stem, stamp, name.suffix, item.mine)
        _verify(item.backup, item.mine)
        report.backups.append(item.backup)
    if item.head is not None and item.head != item.base and item.head != item.mine:
        item.committed_backup = write_new(folder, f"{name.stem}.nbgitpuller-commit", stamp, name.suffix, item.head)
        _verify(item.committed_backup, item.head)
        report.backups.append(item.committed_backup)


def _verify(path: Path, data: bytes) -> None:
    try:
        same = path.read_bytes() == data
    except OSError as err:
        raise UpdateError(f"cannot read back the copy {shown(path)} ({err}); nothing was updated") from None
    if not same:
        raise UpdateError(f"the copy {shown(path)} differs from the file it copies; nothing was updated")


def _kept(item: _File) -> str:
    copies = [shown(p) for p in (item.backup, item.committed_backup) if p is not None]
    return " and ".join(copies) if copies else "(no copy needed)"


def _plan_file(git: _Git, item: _File, moved: bool, plan: dict) -> None:
    """What ``item`` becomes: a line, and a write after the move when the move does not leave it right."""
    path, lines, writes = item.path, plan["lines"], plan["writes"]
    mine, source = item.mine, item.backup
    course_changed = item.base != item.new

    def line(status, detail):
        lines.append({"path": path, "status": status, "detail": detail})

    if item.untracked:
        line("moved aside", f"the course now has a file of this name; yours is {_kept(item)}")
    elif mine is None:
        if item.new is None:
            return
        if moved:
            line("restored", "you had deleted it; the course's version is back")
        else:
            line("still deleted", f"you deleted it and the course did not change it (`git checkout -- {path}` "
                                  "brings it back)")
    elif item.new is None:
        line("kept as backup only", f"the course removed this file; yours is {_kept(item)}")
    elif not course_changed:
        if moved and mine != item.new:  # the move wrote the course's version over it: put it back
            writes.append({"path": path, "kind": "mine", "backup": str(source)})
        line("kept as you had it", f"the course did not change it (a copy: {_kept(item)})")
    elif mine == item.new:
        line("updated", "the course's new version (it is what you had)")
    elif path.endswith(".ipynb"):
        merge = merge_notebook(item.base or b"", mine, item.new,
                               _course_versions(git, plan["base"], plan["to"], path))
        if merge.problem:
            line("kept as backup only", f"{merge.problem}; the course's new version is in place, yours is "
                                        f"{_kept(item)}")
        elif merge.only_outputs:
            line("updated", f"the course's new version; you had only run it (your outputs are in {_kept(item)})")
        elif not merge.carried and not merge.added:
            line("kept as backup only", f"the course changed every cell you edited ({merge.lost_text()}); its new "
                                        f"version is in place, your code is in {_kept(item)}")
        else:
            writes.append({"path": path, "kind": "merge", "backup": str(source)})
            mine_cells = [f"cell {merge.name(cell)}" for cell in merge.carried + merge.added]
            detail = f"your code is in the course's new version ({', '.join(mine_cells)})"
            if merge.lost:
                detail += f"; not in {merge.lost_text()}: your code for it is in {_kept(item)}"
            else:
                detail += f"; your whole notebook: {_kept(item)}"
            line("answers carried over", detail)
    else:
        line("replaced", f"the course changed it; its new version is in place, yours is {_kept(item)}")


def _course_notebook_lines(git: _Git, head: str, new: str, files: dict, moved: set) -> list:
    """A line for every notebook of the course that holds nothing of the learner's."""
    lines = []
    for path in git.paths("ls-tree", "-r", "--name-only", new, "--", NOTEBOOKS):
        if not path.endswith(".ipynb") or path in files:
            continue
        if path in moved:
            lines.append(Line(path, "updated", "the course's new version" if git.blob(head, path) is not None
                              else "new in the course"))
        else:
            lines.append(Line(path, "unchanged", "the course did not change it, nor did you"))
    for path in sorted(moved - set(files)):
        if path.startswith(f"{NOTEBOOKS}/") and path.endswith(".ipynb") and git.blob(new, path) is None:
            lines.append(Line(path, "removed", "the course removed it (you had not changed it)"))
    return lines


def _restore(git: _Git, paths: list[str], files: dict) -> None:
    """The branch's version of each path, so that the move can write the course's (copies exist)."""
    tracked = set(git.paths("ls-tree", "-r", "--name-only", "HEAD", "--", *paths)) if paths else set()
    untracked = [p for p in paths if p not in tracked]
    in_head = [p for p in paths if p in tracked]
    if in_head:
        git.run("checkout", "--quiet", "HEAD", "--", *in_head)
    for path in untracked:  # staged or untracked where the course now has a file (a copy exists)
        git.run("rm", "--quiet", "--cached", "--ignore-unmatch", "--", path)
        (git.repo / path).unlink(missing_ok=True)


def _preflight(git: _Git, new: str, moved: set, writes: list) -> None:
    """Before the move: every folder it writes is writable, and its disk has room for what goes there.

    Raises WriteError (a read-only or full folder) while nothing but the copies has been written.
    """
    paths = sorted(moved | {write["path"] for write in writes})
    sizes = {}
    listing = git.run("ls-tree", "-r", "-l", "-z", new, "--", *paths).stdout if paths else ""
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        size = meta.split()[-1]
        sizes[path] = int(size) if size.isdigit() else 0
    need: dict[Path, int] = {}
    for path in paths:
        folder = (git.repo / path).parent
        while not folder.exists():
            folder = folder.parent
        need[folder] = need.get(folder, 0) + sizes.get(path, 0)
    for folder, size in sorted(need.items()):
        try:
            fd, probe = tempfile.mkstemp(prefix=".course-update-probe.", dir=folder)
            os.close(fd)
            os.unlink(probe)
            free = shutil.disk_usage(folder).free
        except OSError as err:
            raise WriteError(folder, err) from None
        # Each file is written beside the old one, then renamed: room for twice the new files, and a margin.
        if free < 2 * size + 256 * 1024:
            raise WriteError(folder, OSError(errno.ENOSPC, f"{free} bytes free, {2 * size} needed"))


def _why(err: BaseException) -> str:
    """An error of git's in words, with the fix when it is a full disk or a read-only folder."""
    text = err.stderr if isinstance(err, _GitFailed) else str(err)
    for marker, code in (("No space left", errno.ENOSPC), ("Read-only file system", errno.EROFS),
                         ("Permission denied", errno.EACCES)):
        if marker in text:
            reason = WriteError(".", OSError(code, marker))
            return f"{reason.reason}: {reason.fix}; git said: {text.strip().splitlines()[-1]}"
    return str(err)


def _undo_restore(git: _Git, head: str, paths: list[str], files: dict) -> list[str]:
    """After a failed move: the learner's files as they were. Returns the paths that could not be put back."""
    if git.run("rev-parse", "HEAD", check=False).stdout.strip() != head:
        return [p for p in paths if p in files]
    not_back = []
    for path in paths:
        item = files.get(path)
        if item is None or item.mine is None:
            continue
        target = git.repo / path
        try:
            if not target.is_file() or target.read_bytes() != item.mine:
                write_bytes(target, item.mine)
        except OSError:
            not_back.append(path)
    return not_back


def _undo_interrupted_move(git: _Git, plan, head: str) -> str:
    """After a run stopped between writing its plan and moving the branch (killed, a full disk): every file the move
    writes back as the branch has it, and each of the learner's as they had it (from its verified copy), so this run
    starts from where that one did. Returns the sentence for the learner."""
    if not plan or plan.get("from") != head or "restore" not in plan:  # the learner moved the branch since
        return ("An earlier update was stopped before it finished; the copies it made of your files are in "
                f"{BACKUPS}/ (the newest are this run's).")
    learners = {entry["path"]: entry for entry in plan["restore"]}
    paths = plan["moved"]
    tracked = set(git.paths("ls-tree", "-r", "--name-only", head, "--", *paths)) if paths else set()
    if tracked:
        git.run("checkout", "--quiet", head, "--", *sorted(tracked))
    for path in paths:
        if path not in tracked:  # new in the course, half written by the move: not there before it
            git.run("rm", "--quiet", "--cached", "--ignore-unmatch", "--", path)
            (git.repo / path).unlink(missing_ok=True)
    put_back = []
    for path, entry in learners.items():
        target = git.repo / path
        if entry["deleted"]:
            target.unlink(missing_ok=True)
            continue
        mine = Path(entry["backup"]).read_bytes() if entry["backup"] else git.blob(plan["base"], path)
        write_bytes(target, mine)
        put_back.append(f"{path} (from {shown(Path(entry['backup']))})" if entry["backup"] else path)
    done = f"; your files were put back as you had them: {', '.join(put_back)}" if put_back else ""
    return f"An earlier update was stopped before it moved the branch{done}. This run started again from there."


def _read_journal(journal: Path):
    try:
        return json.loads(journal.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _finish(git: _Git, plan: dict, journal: Path, *, resumed: bool) -> UpdateReport:
    """Write the learner's work back as planned; the plan stays in .git/ until every write succeeded."""
    report = UpdateReport(plan["from"], plan["to"])
    report.lines = [Line(**line) for line in plan["lines"]]
    failed = []
    for write in plan["writes"]:
        path, backup = write["path"], Path(write["backup"])
        target = git.repo / path
        new = git.blob(plan["to"], path)
        mine = backup.read_bytes()
        if write["kind"] == "merge":
            merged = merge_notebook(git.blob(plan["base"], path) or b"", mine, new or b"",
                                    _course_versions(git, plan["base"], plan["to"], path))
            data = build.notebook_bytes(merged.notebook)
        else:
            data = mine
        current = target.read_bytes() if target.is_file() else None
        if resumed and current not in (None, new, data):
            report.lines.append(Line(path, "left as it is", f"changed since the interrupted update; your earlier "
                                                            f"version is {shown(backup)}"))
            continue
        try:
            write_bytes(target, data)
        except WriteError as err:
            failed.append(err)
    if failed:
        sentences = " ".join(str(err) for err in failed)
        raise UpdateError(f"{sentences} The branch is on the course's new version and copies of your files are "
                          f"in backups/; once that is fixed, run {_command()} again: it finishes writing your "
                          f"work back.")
    if resumed:
        report.notes.append("Finished the update that was interrupted: your work is back in place.")
    return report


def _one_per_path(lines: list) -> list:
    """Notebooks first (in order), then the other files; one line each."""
    seen, out = set(), []
    for line in sorted(lines, key=lambda ln: (not ln.path.startswith(f"{NOTEBOOKS}/"), ln.path)):
        if line.path not in seen:
            seen.add(line.path)
            out.append(line)
    return out


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python tools/update.py",
        description="Update this clone of the course to the course's latest version. Every file you changed "
                    "is copied to backups/ first; your answers are carried into the new notebooks.",
    )
    parser.add_argument("--repo", metavar="DIR", type=Path, default=None,
                        help="the clone to update (default: the one this course_utils belongs to)")
    return parser


def main(argv=None) -> int:
    """Command-line entry point; returns the exit code (0 ok, 1 refused or not finished, 2 usage)."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 2
    try:
        update(args.repo, told=lambda report: print(report.text(), flush=True))
    except (Refused, UpdateError, WriteError) as err:
        print(f"{_command()}: {err}", file=sys.stderr)
        return 1
    except _GitFailed as err:
        print(f"{_command()}: {err}. Nothing was changed unless a line above says so.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
