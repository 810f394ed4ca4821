"""Restore the original learner version of a notebook, keeping the learner's copy as a backup.

``make reset NB=01`` (``python3 course.py reset 01`` without make; ``python tools/reset.py 01``)
saves the current ``notebooks/01-....ipynb`` to ``backups/notebooks/01-....<YYYYmmdd-HHMMSS>.ipynb`` with
:func:`tools/build.py`'s ``backup_notebook`` and checks the copy (readable, the same bytes) before the
notebook is replaced with what ``tools/build.py`` generates from ``solutions/``. Earlier
backups are never overwritten. If the copy cannot be checked, the notebook is left as it was.

Command line (from the repository root)::

    python tools/reset.py 01                       # by number
    python tools/reset.py 01-one-attention-row     # by stem, file name or path

Exit codes: 0 ok; 1 the backup could not be written or verified, or the notebook could not be written
(one sentence says which path and the fix; the notebook is as it was); 2 bad usage (no notebook named,
an unknown or ambiguous name) or an unreadable solution.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import _checkout  # noqa: F401  (this checkout's course_utils first)
import build

from course_utils import doctor
from course_utils.safe_files import WriteError, make_dirs, write_bytes

__all__ = ["BackupError", "ResetResult", "main", "reset", "resolve_name"]


def usage_example() -> str:
    """The example every usage message gives: ``make reset NB=01``, or the command the learner ran instead
    (``python3 course.py reset 01``: :func:`course_utils.doctor.course_command`), then the module itself."""
    return f"{doctor.course_command('reset', NB='01')}   (or: python tools/reset.py 01)"


class BackupError(RuntimeError):
    """The backup copy could not be verified, so the notebook was not replaced."""


@dataclass(frozen=True)
class ResetResult:
    """What :func:`reset` did with one learner notebook.

    Attributes
    ----------
    name : str
        Notebook stem, e.g. ``"01-one-attention-row"``.
    status : str
        ``"reset"`` (replaced after a verified backup), ``"created"`` (it was missing) or
        ``"unchanged"`` (it was already byte for byte the original; nothing written).
    path : Path
        The learner notebook.
    backup : Path or None
        The backup of the learner's copy (``"reset"`` only).
    message : str
        One or two lines for humans.
    """

    name: str
    status: str
    path: Path
    backup: Path | None
    message: str


def _known_list(stems) -> str:
    return "\n".join(f"  {stem}" for stem in stems) or "  (none)"


def resolve_name(name: str, solutions_dir=None) -> str:
    """The stem of the one solved notebook that ``name`` designates.

    Parameters
    ----------
    name : str
        A number (``"1"``, ``"01"``), a stem (``"01-one-attention-row"``), a file name or a path
        (``"notebooks/01-one-attention-row.ipynb"``), or a unique prefix of a stem.
    solutions_dir : str or Path, optional
        Default: ``solutions/`` at the repository root.

    Returns
    -------
    str
        The stem.

    Raises
    ------
    build.UsageError
        When ``name`` is empty, matches no notebook or several; the message lists the notebooks.
    """
    solutions_dir = Path(solutions_dir) if solutions_dir is not None else build.SOLUTIONS_DIR
    stems = build._stems(solutions_dir)
    name = name.strip()
    if not name:
        raise build.UsageError(f"name the notebook to reset. Usage: {usage_example()}\n"
                               f"The notebooks (the number is enough):\n{_known_list(stems)}")
    wanted = Path(name).name
    wanted = wanted[: -len(".ipynb")] if wanted.endswith(".ipynb") else wanted
    if wanted.isdigit():
        wanted = wanted.zfill(2)  # "1" means "01"
    if wanted in stems:
        return wanted
    matches = [stem for stem in stems if stem.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise build.UsageError(f"{name!r} matches several notebooks; name one of them:\n"
                               f"{_known_list(matches)}\nExample: {usage_example()}")
    raise build.UsageError(f"no notebook {name!r}. The notebooks (the number is enough):\n"
                           f"{_known_list(stems)}\nExample: {usage_example()}")


def reset(name: str, solutions_dir=None, notebooks_dir=None, backup_dir=None, *, now=None) -> ResetResult:
    """Replace a learner notebook with its original version, after a verified backup.

    The original version is what ``python tools/build.py`` generates from the solved
    notebook. When the learner's file differs from it in any byte (edited cells, or only
    outputs), it is first copied with :func:`tools/build.py`'s ``backup_notebook``; the copy is read
    back and must be byte for byte the current file (and readable as a notebook whenever the
    file is), else nothing is replaced.

    Parameters
    ----------
    name : str
        The notebook: number, stem, file name, path or unique prefix (see :func:`resolve_name`).
    solutions_dir, notebooks_dir : str or Path, optional
        Default: ``solutions/`` and ``notebooks/`` at the repository root.
    backup_dir : str or Path, optional
        Default: ``backups/notebooks/`` at the repository root.
    now : datetime, optional
        Time for the backup's name (default: the current local time).

    Returns
    -------
    ResetResult

    Raises
    ------
    build.UsageError
        Unknown or ambiguous ``name``, or a missing folder.
    build.NotebookReadError, build.SolutionMarkerError
        The solved notebook cannot be converted (nothing is written).
    BackupError
        The backup could not be verified; the learner notebook is untouched.
    course_utils.safe_files.WriteError
        The backup or the notebook could not be written (full disk, read-only folder, ...): no
        partial file is left, the learner notebook is as it was, and the message says so.
    """
    solutions_dir, notebooks_dir = build._resolve_dirs(solutions_dir, notebooks_dir)
    stem = resolve_name(name, solutions_dir)
    solution = solutions_dir / f"{stem}.ipynb"
    target = notebooks_dir / f"{stem}.ipynb"
    learner = build.learner_notebook(build.read_notebook(solution), source_name=solution.name)
    shown = build._display(target)

    if not target.exists():
        make_dirs(notebooks_dir)
        build.write_notebook(learner, target)
        return ResetResult(stem, "created", target, None, f"created {shown} (there was no copy to keep)")

    # The original's exact bytes, compared in memory: nothing is staged on disk.
    original = build.notebook_bytes(learner)
    current = target.read_bytes()
    if current == original:
        return ResetResult(stem, "unchanged", target, None,
                           f"{shown} is already the original version; nothing to do (no backup needed)")
    try:
        backup = build.backup_notebook(target, backup_dir, now=now, data=current)
    except WriteError as err:
        raise err.with_unchanged(f"{shown} was NOT replaced") from None
    _verify_backup(target, backup)
    try:
        write_bytes(target, original)
    except WriteError as err:
        raise err.with_unchanged(f"{shown} is as it was; a copy is in {build._display(backup)}") from None
    return ResetResult(stem, "reset", target, backup,
                       f"reset {shown} to its original version.\n"
                       f"Your previous version is kept in {build._display(backup)}")


def _verify_backup(target: Path, backup: Path) -> None:
    """Raise BackupError unless ``backup`` holds exactly the bytes of ``target`` right now."""
    shown = build._display(target)
    try:
        copied = backup.read_bytes()
    except OSError as err:
        raise BackupError(f"cannot read back the backup {backup} ({err}); {shown} was NOT replaced") from err
    if copied != target.read_bytes():
        raise BackupError(
            f"the backup {build._display(backup)} differs from {shown} (was the notebook saved while "
            f"it was being copied? close it in JupyterLab and try again); {shown} was NOT replaced")
    try:
        build.read_notebook(target)
    except build.NotebookReadError:
        return  # the learner's file is not a notebook: the byte copy is all we can keep
    try:
        build.read_notebook(backup)
    except build.NotebookReadError as err:
        raise BackupError(f"the backup is not readable as a notebook ({err}); {shown} was NOT replaced") from err


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python tools/reset.py",
        description="Restore the original version of learner notebooks (notebooks/), after saving "
                    "your copy in backups/notebooks/ with the date and time in its name.",
        epilog=f"Example: {usage_example()}",
    )
    parser.add_argument("names", nargs="*", metavar="NOTEBOOK",
                        help="number, stem or file name, e.g. 01 or 01-one-attention-row.ipynb")
    parser.add_argument("--solutions", metavar="DIR", type=Path, default=None,
                        help="solved notebooks (default: <repo>/solutions)")
    parser.add_argument("--notebooks", metavar="DIR", type=Path, default=None,
                        help="learner notebooks (default: <repo>/notebooks)")
    parser.add_argument("--backup-dir", metavar="DIR", type=Path, default=None,
                        help="where your copies go (default: <repo>/backups/notebooks)")
    return parser


def main(argv=None) -> int:
    """Command-line entry point; returns the exit code (0 ok, 1 not written or backup not verified, 2 usage)."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 2
    # NB="01 02" arrives as one argument (the Makefile quotes it): split it into names.
    names = [name for arg in args.names for name in arg.replace(",", " ").split()]
    try:
        if not names:
            resolve_name("", args.solutions)  # raises with the usage and the list of notebooks
        stems = [resolve_name(name, args.solutions) for name in names]  # all checked before any reset
        results = []
        for stem in dict.fromkeys(stems):
            results.append(reset(stem, args.solutions, args.notebooks, args.backup_dir))
            print(results[-1].message)
    except (build.UsageError, build.NotebookReadError, build.SolutionMarkerError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except (BackupError, WriteError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if any(result.status != "unchanged" for result in results):
        print("If the notebook is open in JupyterLab, reload it (File > Reload Notebook from Disk) "
              "before you save it again.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
