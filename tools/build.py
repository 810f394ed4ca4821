"""Generate the learner notebooks in ``notebooks/`` from the solved notebooks in ``solutions/``.

``solutions/`` is the single source of truth. Each solved notebook marks the code a learner
writes between a line ``### BEGIN SOLUTION`` and a line ``### END SOLUTION`` (nbgrader's
markers). The learner notebook of the same file name gets, at the marker's indentation::

    # YOUR CODE HERE
    raise NotImplementedError()

and carries no outputs. Its ``metadata.course_build`` records the solution file it came from
and a fingerprint of its cell sources, so a later run can tell whether a learner has edited
it: an edited learner notebook is never overwritten unless ``--force`` is given, and then only
after a backup copy has been written to ``backups/notebooks/``.

A fingerprint carries its format version, ``"v1:sha256:<hex>"``; one recorded without a version
(``"sha256:<hex>"``, every notebook generated before versions existed) is the same format.
:func:`fingerprint_matches` is the one place fingerprints are compared. A version this build does
not know (a notebook from a newer course) raises :class:`UnknownFingerprint`; the build then leaves
that notebook alone and says why.

Command line (from the repository root)::

    python tools/build.py                      # regenerate every learner notebook
    python tools/build.py 01-one-attention-row # only this one (name, stem or prefix)
    python tools/build.py --up-to-date         # write nothing; exit 1 if a notebook is out of date
    python tools/build.py --force              # overwrite edited notebooks (after a backup)
    python tools/build.py --execute-solutions  # re-run solutions/, store outputs, regenerate

Without a name or folder, each translation is built and checked too: a folder ``solutions/<language>/`` of
translated solved notebooks gives ``notebooks/<language>/`` (``translations``).

Exit codes: 0 ok (a learner notebook skipped because it was edited is reported, one line each, and
is not an error); 1 check failed, a solution failed to execute, or a file could not be written (one
sentence says which and the fix); 2 bad usage, an unreadable notebook or malformed solution markers.
"""

from __future__ import annotations

import argparse
import copy
import datetime as _dt
import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
from _checkout import REPO_ROOT

from course_utils.safe_files import WriteError, make_dirs, shown, write_bytes, write_new

__all__ = [
    "BuildResult",
    "ExecutionResult",
    "NotebookReadError",
    "OutOfDate",
    "FINGERPRINT_VERSION",
    "SolutionMarkerError",
    "UnknownFingerprint",
    "UsageError",
    "backup_notebook",
    "build",
    "out_of_date",
    "execute_solutions",
    "fingerprint",
    "fingerprint_matches",
    "has_learner_edits",
    "learner_notebook",
    "main",
    "notebook_bytes",
    "parse_fingerprint",
    "translations",
    "read_notebook",
    "strip_solutions",
    "write_notebook",
]

SOLUTIONS_DIR = REPO_ROOT / "solutions"
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
BACKUP_DIR = REPO_ROOT / "backups" / "notebooks"

BEGIN_MARKER = "### BEGIN SOLUTION"
END_MARKER = "### END SOLUTION"
PLACEHOLDER_LINES = ("# YOUR CODE HERE", "raise NotImplementedError()")
METADATA_KEY = "course_build"
# Cell metadata written by JupyterLab ("execution", record timing) and by the classic
# ExecuteTime extension: volatile, never part of a generated or committed notebook.
TIMING_METADATA_KEYS = ("execution", "ExecuteTime")
CELL_TIMEOUT = 120  # seconds per cell for --execute-solutions
KERNEL_NAME = "python3"

# A line that looks like a marker but is not exactly one ("## BEGIN SOLUTION",
# "### end solution") would leak a solution into the learner notebook: refuse it.
_LOOKALIKE_MARKER = re.compile(r"#+\s*(BEGIN|END)\s+SOLUTION\b", re.IGNORECASE)


class SolutionMarkerError(ValueError):
    """A ``### BEGIN SOLUTION`` / ``### END SOLUTION`` marker without its partner, or nested."""


class NotebookReadError(ValueError):
    """A notebook file that cannot be read as an nbformat 4 notebook."""


class UsageError(ValueError):
    """Bad command-line usage: unknown notebook name, missing folder, and so on."""


@dataclass(frozen=True)
class BuildResult:
    """What :func:`build` did with one learner notebook.

    Attributes
    ----------
    name : str
        Notebook stem, e.g. ``"01-one-attention-row"``.
    status : str
        ``"created"``, ``"updated"``, ``"unchanged"``, ``"skipped"`` (edited by a learner, not
        overwritten), ``"overwritten"`` (edited, replaced with ``force=True`` after a backup) or
        ``"orphan"`` (a learner notebook with no solution; left alone).
    path : Path
        The learner notebook.
    message : str
        One line for humans.
    backup : Path or None
        The backup copy written before overwriting, if any.
    """

    name: str
    status: str
    path: Path
    message: str
    backup: Path | None = None


@dataclass(frozen=True)
class OutOfDate:
    """One reason why :func:`check` finds the learner notebooks out of date.

    Attributes
    ----------
    name : str
        Notebook stem.
    kind : str
        ``"missing"``, ``"stale"`` or ``"orphan"``.
    path : Path
        The learner notebook concerned.
    message : str
        One line for humans.
    """

    name: str
    kind: str
    path: Path
    message: str

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class ExecutionResult:
    """Outcome of executing one solution notebook (:func:`execute_solutions`).

    Attributes
    ----------
    name : str
        Notebook stem.
    path : Path
        The solution notebook.
    ok : bool
        True if every cell ran; the notebook was then written back with its outputs.
    message : str
        One line for humans (the error, when ``ok`` is False).
    """

    name: str
    path: Path
    ok: bool
    message: str


# ---------------------------------------------------------------------------------------------
# Sources and notebooks in memory
# ---------------------------------------------------------------------------------------------


def strip_solutions(source: str) -> str:
    """Replace every solution region of a code cell's source with a placeholder.

    Each region runs from a line whose stripped text is ``### BEGIN SOLUTION`` to the next line
    whose stripped text is ``### END SOLUTION`` (both included). It becomes two lines at the
    indentation of the BEGIN line: ``# YOUR CODE HERE`` and ``raise NotImplementedError()``.
    Lines outside regions are kept byte for byte.

    Parameters
    ----------
    source : str
        The source of one code cell.

    Returns
    -------
    str
        The learner's source. Equal to ``source`` when it holds no marker.

    Raises
    ------
    SolutionMarkerError
        On a BEGIN without END, an END without BEGIN, a BEGIN inside a region, or a line that
        looks like a marker but is not spelled exactly like one. The message gives the line number.
    """
    out: list[str] = []
    open_region: tuple[int, str, str] | None = None  # (line number, indentation, line ending)
    for lineno, line in enumerate(source.splitlines(keepends=True), start=1):
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        stripped = body.strip()
        if stripped == BEGIN_MARKER:
            if open_region is not None:
                raise SolutionMarkerError(
                    f"line {lineno}: {BEGIN_MARKER!r} inside the solution region opened on "
                    f"line {open_region[0]} (regions cannot nest; close it with {END_MARKER!r} first)"
                )
            indent = body[: len(body) - len(body.lstrip())]
            open_region = (lineno, indent, ending)
        elif stripped == END_MARKER:
            if open_region is None:
                raise SolutionMarkerError(
                    f"line {lineno}: {END_MARKER!r} without a matching {BEGIN_MARKER!r} before it"
                )
            _, indent, begin_ending = open_region
            out.append(indent + PLACEHOLDER_LINES[0] + (begin_ending or "\n"))
            out.append(indent + PLACEHOLDER_LINES[1] + ending)
            open_region = None
        elif _LOOKALIKE_MARKER.match(stripped):
            raise SolutionMarkerError(
                f"line {lineno}: {stripped!r} looks like a solution marker but is not exactly "
                f"{BEGIN_MARKER!r} or {END_MARKER!r}"
            )
        elif open_region is None:
            out.append(line)
    if open_region is not None:
        raise SolutionMarkerError(
            f"line {open_region[0]}: {BEGIN_MARKER!r} is never closed by {END_MARKER!r}"
        )
    return "".join(out)


def _source(cell) -> str:
    """A cell's source as one string (nbformat also allows a list of lines)."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


# ---------------------------------------------------------------------------------------------
# Fingerprints: "v<version>:<body>"; a fingerprint without "v<version>:" is version 1
# ---------------------------------------------------------------------------------------------


class UnknownFingerprint(ValueError):
    """A recorded fingerprint this build cannot read, so it cannot tell whether cells were edited.

    Either its format version is one this build does not know (the notebook was most likely
    generated by a newer course), or it is malformed.

    Attributes
    ----------
    fingerprint : object
        The recorded value.
    version : int or None
        Its format version; None when even that cannot be read.
    """

    def __init__(self, message: str, fingerprint, version: int | None = None):
        super().__init__(message)
        self.fingerprint = fingerprint
        self.version = version


def _cells_json(nb) -> str:
    """Every cell's type and source, in order, as compact JSON."""
    cells = [[cell.get("cell_type", ""), _source(cell)] for cell in nb.get("cells", [])]
    return json.dumps(cells, ensure_ascii=False, separators=(",", ":"))


#: The fingerprint format this build writes and reads: ``"v1:sha256:"`` and the SHA-256 of the cells' types and
#: sources. A fingerprint recorded without the ``v1:`` (every notebook generated before versions existed) is the same
#: format. Another format, one day, gets the next number and code that still reads this one.
FINGERPRINT_VERSION = 1
_VERSIONED = re.compile(r"v(\d+):(.*)", re.S)
_BODY = re.compile(r"sha256:[0-9a-f]{64}")


def _body(nb) -> str:
    """``"sha256:"`` and the SHA-256 of the cells' types and sources."""
    return "sha256:" + hashlib.sha256(_cells_json(nb).encode("utf-8")).hexdigest()


def fingerprint(nb) -> str:
    """Fingerprint of a notebook's cell types and cell sources, with its format version.

    Outputs, execution counts and all metadata are left out, so running cells does not change
    it; editing, adding, deleting or moving a cell does. Compare a recorded fingerprint with a
    notebook through :func:`fingerprint_matches`.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        Any nbformat 4 notebook.

    Returns
    -------
    str
        ``"v1:sha256:"`` and 64 hex digits.

    Examples
    --------
    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    >>> fingerprint(nb)
    'v1:sha256:4342366a7e8b86906cec94e1fe58cdbbb1156a1954623bba9cb09b6edde2aa1f'
    """
    return f"v{FINGERPRINT_VERSION}:{_body(nb)}"


def parse_fingerprint(recorded) -> str:
    """The body of a recorded fingerprint (``"sha256:<hex>"``), checked to be one this build reads.

    ``"v1:<body>"`` and a body without the prefix (what learner notebooks recorded before fingerprints carried a
    version) are read; any other version is a notebook from a newer course.

    Parameters
    ----------
    recorded : str
        ``metadata.course_build.fingerprint`` of a learner notebook.

    Returns
    -------
    str
        The body.

    Raises
    ------
    UnknownFingerprint
        Another format version, or a value that is not a fingerprint.

    Examples
    --------
    >>> parse_fingerprint("v1:sha256:" + "0" * 64) == parse_fingerprint("sha256:" + "0" * 64) == "sha256:" + "0" * 64
    True
    >>> parse_fingerprint("v7:blake3:00")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    build.UnknownFingerprint: fingerprint 'v7:blake3:00' has format version 7, which ...
    """
    shown = repr(recorded) if len(repr(recorded)) <= 40 else repr(recorded)[:37] + "..."
    if not isinstance(recorded, str):
        raise UnknownFingerprint(f"fingerprint {shown} is not a string", recorded)
    match = _VERSIONED.fullmatch(recorded)
    version, body = (int(match.group(1)), match.group(2)) if match else (FINGERPRINT_VERSION, recorded)
    if version != FINGERPRINT_VERSION:
        raise UnknownFingerprint(
            f"fingerprint {shown} has format version {version}, which this course does not know "
            f"(it reads version {FINGERPRINT_VERSION}); the notebook was probably generated by a newer version "
            f"of the course: update it (git pull), then run the build again", recorded, version)
    if not _BODY.fullmatch(body):
        raise UnknownFingerprint(f"fingerprint {shown} is not a valid version {version} fingerprint",
                                 recorded, version)
    return body


def fingerprint_matches(nb, recorded) -> bool:
    """Whether a notebook's cells are those a recorded fingerprint describes (with or without its version prefix).

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The notebook.
    recorded : str
        A fingerprint, e.g. ``metadata.course_build.fingerprint``.

    Returns
    -------
    bool

    Raises
    ------
    UnknownFingerprint
        When ``recorded`` cannot be read (see :func:`parse_fingerprint`): then nothing can be said.

    Examples
    --------
    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    >>> unversioned = fingerprint(nb).removeprefix("v1:")  # as recorded before fingerprints had a version
    >>> fingerprint_matches(nb, unversioned), fingerprint_matches(nb, fingerprint(nb))
    (True, True)
    >>> nb.cells[0].source = "x = 2"  # a learner's edit
    >>> fingerprint_matches(nb, unversioned)
    False
    """
    return parse_fingerprint(recorded) == _body(nb)


def has_learner_edits(nb) -> bool | None:
    """Whether a learner notebook's cells changed since it was generated.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A learner notebook.

    Returns
    -------
    bool or None
        True if its cell sources no longer match the fingerprint recorded in
        ``metadata.course_build`` (read with :func:`fingerprint_matches`, whatever its version),
        False if they match, None if no fingerprint is recorded.

    Raises
    ------
    UnknownFingerprint
        When the recorded fingerprint has a version this course_utils does not know, or is
        malformed: whether the cells were edited cannot be told.
    """
    record = nb.get("metadata", {}).get(METADATA_KEY)
    recorded = record.get("fingerprint") if isinstance(record, dict) else None
    if recorded is None or recorded == "":
        return None
    return not fingerprint_matches(nb, recorded)


def _strip_volatile(nb) -> None:
    """Remove, in place, widget state and execution timings (metadata that changes on every run)."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        metadata = cell.get("metadata", {})
        for key in TIMING_METADATA_KEYS:
            metadata.pop(key, None)


def _clear_outputs(nb) -> None:
    """Empty every code cell's outputs and execution count, in place."""
    for cell in nb.cells:
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None


def _ensure_cell_ids(nb) -> None:
    """Give deterministic ids to cells lacking one, when the format (4.5+) requires ids.

    nbformat would otherwise add random ids when writing, which breaks byte-identical output.
    """
    if (nb.nbformat, nb.nbformat_minor) < (4, 5):
        return
    taken = {cell["id"] for cell in nb.cells if cell.get("id")}
    for index, cell in enumerate(nb.cells, start=1):
        if not cell.get("id"):
            candidate, suffix = f"cell-{index}", 0
            while candidate in taken:
                suffix += 1
                candidate = f"cell-{index}-{suffix}"
            cell["id"] = candidate
            taken.add(candidate)


def learner_notebook(nb, source_name: str | None = None):
    """The learner version of a solved notebook.

    Code cells get their solution regions replaced (see :func:`strip_solutions`), their outputs
    emptied and their execution counts set to None. Markdown and raw cells, cell ids and cell
    tags are kept; ``metadata.widgets`` and execution-timing cell metadata are dropped.
    ``metadata.course_build`` records ``source_name`` and the :func:`fingerprint` of the result.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The solved notebook (not modified).
    source_name : str, optional
        File name of the solution, recorded in the metadata and named in error messages.

    Returns
    -------
    nbformat.NotebookNode
        A new notebook.

    Raises
    ------
    SolutionMarkerError
        On a malformed marker; the message names the notebook, the cell number (1-based, as
        counted from the top of the notebook) and the line.
    """
    learner = nbformat.from_dict(copy.deepcopy(dict(nb)))
    learner.metadata.pop(METADATA_KEY, None)
    _strip_volatile(learner)
    _clear_outputs(learner)
    for number, cell in enumerate(learner.cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        try:
            cell["source"] = strip_solutions(_source(cell))
        except SolutionMarkerError as err:
            where = source_name or "notebook"
            cell_id = f" (id {cell['id']})" if cell.get("id") else ""
            raise SolutionMarkerError(f"{where}, cell {number}{cell_id}: {err}") from None
    _ensure_cell_ids(learner)
    learner.metadata[METADATA_KEY] = {
        "source": source_name,
        "fingerprint": fingerprint(learner),
        "note": "Generated from solutions/ by tools/build.py (make notebooks).",
    }
    return learner


def _comparable(nb) -> str:
    """Canonical text of a notebook, ignoring outputs, execution counts and volatile metadata."""
    nb = copy.deepcopy(nb)
    _strip_volatile(nb)
    _clear_outputs(nb)
    for cell in nb.cells:
        cell["source"] = _source(cell)
    return json.dumps(nb, sort_keys=True, ensure_ascii=False)


def _describe_difference(current, expected) -> str:
    """A short hint at the first difference between two learner notebooks."""
    if len(current.cells) != len(expected.cells):
        return f"it has {len(current.cells)} cells, {len(expected.cells)} expected"
    for number, (got, want) in enumerate(zip(current.cells, expected.cells), start=1):
        if got.get("cell_type") != want.get("cell_type"):
            return f"cell {number} is {got.get('cell_type')}, {want.get('cell_type')} expected"
        if _source(got) != _source(want):
            return f"cell {number} source differs"
        if _comparable_cell(got) != _comparable_cell(want):
            return f"cell {number} id or metadata differs"
    if current.metadata.get(METADATA_KEY) != expected.metadata.get(METADATA_KEY):
        return f"its metadata.{METADATA_KEY} (fingerprint, source or note) differs"
    return "notebook metadata differs"


def _comparable_cell(cell) -> str:
    cell = copy.deepcopy(cell)
    for key in TIMING_METADATA_KEYS:
        cell.get("metadata", {}).pop(key, None)
    cell.pop("outputs", None)
    cell.pop("execution_count", None)
    cell["source"] = _source(cell)
    return json.dumps(cell, sort_keys=True)


# ---------------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------------


def read_notebook(path):
    """Read a notebook file as nbformat 4, without validation side effects.

    (``nbformat.read`` validates, and validation adds *random* ids to cells lacking one.)

    Parameters
    ----------
    path : str or Path
        The ``.ipynb`` file.

    Returns
    -------
    nbformat.NotebookNode

    Raises
    ------
    NotebookReadError
        If the file is not valid notebook JSON.
    """
    path = Path(path)
    try:
        nb = nbformat.reader.reads(path.read_text(encoding="utf-8"))
        if nb.nbformat != 4:
            nb = nbformat.convert(nb, 4)
    except (OSError, ValueError, KeyError, nbformat.reader.NotJSONError) as err:
        raise NotebookReadError(f"cannot read {_display(path)} as a notebook: {err}") from err
    return nb


def notebook_bytes(nb) -> bytes:
    """A notebook as the bytes :func:`write_notebook` writes (nbformat's layout, UTF-8, ``\\n`` line ends).

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The notebook (cells lacking an id get a deterministic one, in place).

    Returns
    -------
    bytes
    """
    _ensure_cell_ids(nb)
    text = nbformat.writes(nb)
    if not text.endswith("\n"):
        text += "\n"
    return text.encode("utf-8")


def write_notebook(nb, path) -> None:
    """Write a notebook as deterministic JSON (nbformat's layout, UTF-8, ``\\n`` line ends).

    Written through :func:`course_utils.safe_files.write_bytes`: a temporary file, synced, read
    back, then renamed, so an interrupted run or a full disk never leaves half a notebook.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The notebook.
    path : str or Path
        Destination ``.ipynb`` file.

    Raises
    ------
    course_utils.safe_files.WriteError
        The file could not be written (it is left as it was; the message says why and what to do).
    """
    write_bytes(Path(path), notebook_bytes(nb))


def backup_notebook(path, backup_dir=None, *, now: _dt.datetime | None = None, data: bytes | None = None) -> Path:
    """Copy a notebook to ``<backup_dir>/<stem>.<YYYYmmdd-HHMMSS>.ipynb`` before it is replaced.

    An existing backup is never overwritten: ``-1``, ``-2``, ... is appended to the timestamp
    until the name is free. The copy is written, synced and read back before it takes its name
    (:func:`course_utils.safe_files.write_new`), so a full disk never leaves a truncated or empty
    backup under a valid-looking name.

    Parameters
    ----------
    path : str or Path
        The notebook to back up (copied byte for byte, readable or not).
    backup_dir : str or Path, optional
        Folder of backups, created if missing. Default: ``backups/notebooks/`` at the repository root.
    now : datetime, optional
        Time to stamp the name with (default: the current local time).
    data : bytes, optional
        The bytes to keep, when they are not (or no longer) those of ``path``; the name still
        comes from ``path``.

    Returns
    -------
    Path
        The backup file written.

    Raises
    ------
    course_utils.safe_files.WriteError
        The backup could not be written (no partial file is left).
    """
    path = Path(path)
    backup_dir = Path(backup_dir) if backup_dir is not None else BACKUP_DIR
    stamp = (now or _dt.datetime.now()).strftime("%Y%m%d-%H%M%S")
    data = path.read_bytes() if data is None else data
    return write_new(backup_dir, path.stem, stamp, path.suffix or ".ipynb", data)


def _display(path) -> str:
    """A path relative to the working directory when it lies below it, else absolute."""
    return shown(path)


def _stems(folder: Path) -> list[str]:
    """Stems of the notebooks directly in a folder (hidden files ignored), sorted."""
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.ipynb") if not p.name.startswith("."))


def translations(solutions_dir=None, notebooks_dir=None) -> list[tuple[Path, Path]]:
    """``(solutions/<language>, notebooks/<language>)`` for each folder of ``solutions/`` that holds notebooks.

    Such a folder is a translation: copies of some of the course's solved notebooks in another language (the same
    cells, ids and code; its words translated). The build makes and checks its learner versions as the course's own,
    in the folder of the same name under ``notebooks/``.
    """
    solutions_dir = Path(solutions_dir) if solutions_dir is not None else SOLUTIONS_DIR
    notebooks_dir = Path(notebooks_dir) if notebooks_dir is not None else NOTEBOOKS_DIR
    if not solutions_dir.is_dir():
        return []
    return [(folder, notebooks_dir / folder.name) for folder in sorted(solutions_dir.iterdir())
            if folder.is_dir() and not folder.name.startswith((".", "_")) and _stems(folder)]


def _resolve_dirs(solutions_dir, notebooks_dir) -> tuple[Path, Path]:
    solutions_dir = Path(solutions_dir) if solutions_dir is not None else SOLUTIONS_DIR
    notebooks_dir = Path(notebooks_dir) if notebooks_dir is not None else NOTEBOOKS_DIR
    if not solutions_dir.is_dir():
        raise UsageError(f"solutions folder not found: {_display(solutions_dir)}")
    if notebooks_dir.exists() and notebooks_dir.resolve() == solutions_dir.resolve():
        raise UsageError("the learner notebooks folder must differ from the solutions folder")
    return solutions_dir, notebooks_dir


def _select(solution_stems, learner_stems, names) -> tuple[list[str], list[str]]:
    """Split the requested names into (solutions to build, orphan learner notebooks).

    A name may be a stem, a file name, a path, or a unique prefix of a stem (``"01"``).
    """
    solution_stems = list(solution_stems)
    has_solution = set(solution_stems)
    orphans = [stem for stem in learner_stems if stem not in has_solution]
    if not names:
        return solution_stems, orphans
    known = sorted(set(solution_stems) | set(orphans))
    chosen: list[str] = []
    for name in names:
        stem = Path(name).name
        stem = stem[: -len(".ipynb")] if stem.endswith(".ipynb") else stem
        if stem in known:
            matches = [stem]
        else:
            matches = [s for s in known if s.startswith(stem)]
        if len(matches) != 1:
            reason = "matches several notebooks: " + ", ".join(matches) if matches else "matches no notebook"
            raise UsageError(f"{name!r} {reason} (known: {', '.join(known) or 'none'})")
        if matches[0] not in chosen:
            chosen.append(matches[0])
    return ([s for s in solution_stems if s in chosen], [s for s in orphans if s in chosen])


def _generate(solutions_dir: Path, stems) -> dict:
    """Learner notebooks for the given solution stems (all generated before anything is written)."""
    generated = {}
    for stem in stems:
        path = solutions_dir / f"{stem}.ipynb"
        generated[stem] = learner_notebook(read_notebook(path), source_name=path.name)
    return generated


def _force_hint(stem: str) -> str:
    return (f"to replace it by the course's version after a backup in backups/notebooks/: "
            f"make notebooks BUILD_ARGS=\"--force {stem}\"")


# ---------------------------------------------------------------------------------------------
# Build, check, execute
# ---------------------------------------------------------------------------------------------


def build(solutions_dir=None, notebooks_dir=None, force: bool = False, names=None,
          backup_dir=None) -> list[BuildResult]:
    """Generate (or update) the learner notebooks from the solutions.

    A learner notebook is written when it is missing, or when it differs from the generated one
    (outputs and execution counts ignored) and has not been edited since it was generated. An
    edited notebook is skipped, unless ``force`` is true: it is then backed up
    (:func:`backup_notebook`) and overwritten. Learner notebooks without a solution are reported
    (status ``"orphan"``) and left alone. All solutions are converted before anything is written,
    so a malformed marker leaves every file untouched.

    Parameters
    ----------
    solutions_dir, notebooks_dir : str or Path, optional
        Default: ``solutions/`` and ``notebooks/`` at the repository root.
    force : bool
        Overwrite edited learner notebooks (after a backup).
    names : sequence of str, optional
        Restrict to these notebooks (stems, file names or unique prefixes).
    backup_dir : str or Path, optional
        Where backups go. Default: ``backups/notebooks/`` at the repository root.

    Returns
    -------
    list of BuildResult
        One per notebook considered, solutions first (sorted), then orphans.

    Raises
    ------
    UsageError, NotebookReadError, SolutionMarkerError
    """
    solutions_dir, notebooks_dir = _resolve_dirs(solutions_dir, notebooks_dir)
    stems, orphans = _select(_stems(solutions_dir), _stems(notebooks_dir), names)
    generated = _generate(solutions_dir, stems)
    make_dirs(notebooks_dir)
    results = [_build_one(stem, notebooks_dir / f"{stem}.ipynb", learner, force, backup_dir)
               for stem, learner in generated.items()]
    for stem in orphans:
        path = notebooks_dir / f"{stem}.ipynb"
        results.append(BuildResult(stem, "orphan", path,
                                   f"{_display(path)} has no solution in {_display(solutions_dir)}; "
                                   f"left alone (delete it by hand if it is obsolete)"))
    return results


def _build_one(stem, target: Path, learner, force, backup_dir) -> BuildResult:
    shown = _display(target)
    if not target.exists():
        write_notebook(learner, target)
        return BuildResult(stem, "created", target, f"created   {shown}")
    try:
        current = read_notebook(target)
    except NotebookReadError:
        current = None
    if current is not None and _comparable(current) == _comparable(learner):
        return BuildResult(stem, "unchanged", target, f"unchanged {shown}")
    why, short = "edited since it was generated", "edited"
    if current is None:
        edited = True  # unreadable: cannot tell, so protect it
    else:
        try:
            edited = has_learner_edits(current)
            if edited is None:  # no fingerprint: edited if its cells differ from the generated ones
                edited = not fingerprint_matches(current, learner.metadata[METADATA_KEY]["fingerprint"])
        except UnknownFingerprint as err:  # cannot tell, so protect it, and say why
            edited, why, short = True, f"{err}; whether it was edited cannot be told", "unreadable fingerprint"
    if not edited:
        write_notebook(learner, target)
        return BuildResult(stem, "updated", target, f"updated   {shown}")
    if not force:
        return BuildResult(stem, "skipped", target,
                           f"skipped   {shown}: {why}, so not overwritten; " + _force_hint(stem))
    try:
        backup = backup_notebook(target, backup_dir)
    except WriteError as err:
        raise err.with_unchanged(f"so {shown} was not overwritten") from None
    try:
        write_notebook(learner, target)
    except WriteError as err:
        raise err.with_unchanged(f"it is as it was; a copy is in {_display(backup)}") from None
    return BuildResult(stem, "overwritten", target,
                       f"overwritten {shown} ({short}; the previous version is in {_display(backup)})",
                       backup=backup)


def out_of_date(solutions_dir=None, notebooks_dir=None, names=None) -> list[OutOfDate]:
    """List the learner notebooks that are missing, stale or orphaned. Writes nothing.

    Parameters
    ----------
    solutions_dir, notebooks_dir : str or Path, optional
        Default: ``solutions/`` and ``notebooks/`` at the repository root.
    names : sequence of str, optional
        Restrict to these notebooks (stems, file names or unique prefixes).

    Returns
    -------
    list of OutOfDate
        Empty when every learner notebook equals what :func:`build` would generate, ignoring
        outputs, execution counts, widget state and execution timings.

    Raises
    ------
    UsageError, NotebookReadError, SolutionMarkerError
    """
    solutions_dir, notebooks_dir = _resolve_dirs(solutions_dir, notebooks_dir)
    stems, orphans = _select(_stems(solutions_dir), _stems(notebooks_dir), names)
    problems = []
    for stem, expected in _generate(solutions_dir, stems).items():
        target = notebooks_dir / f"{stem}.ipynb"
        shown = _display(target)
        if not target.exists():
            problems.append(OutOfDate(stem, "missing", target, f"missing: {shown}"))
            continue
        try:
            current = read_notebook(target)
        except NotebookReadError as err:
            problems.append(OutOfDate(stem, "stale", target, f"stale:   {shown} ({err})"))
            continue
        if _comparable(current) != _comparable(expected):
            problems.append(OutOfDate(stem, "stale", target,
                                    f"stale:   {shown} ({_describe_difference(current, expected)})"))
    for stem in orphans:
        target = notebooks_dir / f"{stem}.ipynb"
        problems.append(OutOfDate(stem, "orphan", target,
                                f"orphan:  {_display(target)} (no {stem}.ipynb in {_display(solutions_dir)})"))
    return problems


def _current_env_kernel_manager_class():
    """An AsyncKernelManager whose "python3" kernel is this environment's Python (as nbval's
    ``--nbval-current-env``), whatever kernelspecs are installed elsewhere."""
    import ipykernel.kernelspec
    from jupyter_client import AsyncKernelManager
    from jupyter_client.kernelspec import KernelSpecManager
    from traitlets import default

    class CurrentEnvKernelSpecManager(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            if kernel_name == KERNEL_NAME:
                return self.kernel_spec_class(resource_dir=ipykernel.kernelspec.RESOURCES,
                                              **ipykernel.kernelspec.get_kernel_dict())
            return super().get_kernel_spec(kernel_name)

    class CurrentEnvKernelManager(AsyncKernelManager):
        @default("kernel_spec_manager")
        def _kernel_spec_manager_default(self):
            return CurrentEnvKernelSpecManager(data_dir=self.data_dir)

    return CurrentEnvKernelManager


def execute_solutions(solutions_dir=None, names=None, timeout: int = CELL_TIMEOUT) -> list[ExecutionResult]:
    """Run each solution notebook top to bottom in a fresh kernel and store its outputs.

    The kernel is "python3" from the current environment, its working directory the solutions
    folder. Cells tagged ``raises-exception`` may fail; any other error leaves that notebook's
    file untouched and is reported. Widget state and execution timings are not stored.

    Parameters
    ----------
    solutions_dir : str or Path, optional
        Default: ``solutions/`` at the repository root.
    names : sequence of str, optional
        Restrict to these notebooks (stems, file names or unique prefixes).
    timeout : int
        Seconds allowed per cell.

    Returns
    -------
    list of ExecutionResult
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    solutions_dir = Path(solutions_dir) if solutions_dir is not None else SOLUTIONS_DIR
    if not solutions_dir.is_dir():
        raise UsageError(f"solutions folder not found: {_display(solutions_dir)}")
    stems, _ = _select(_stems(solutions_dir), [], names)
    manager_class = _current_env_kernel_manager_class()
    results = []
    for stem in stems:
        path = solutions_dir / f"{stem}.ipynb"
        nb = read_notebook(path)
        client = NotebookClient(nb, timeout=timeout, kernel_name=KERNEL_NAME,
                                kernel_manager_class=manager_class, record_timing=False,
                                resources={"metadata": {"path": str(solutions_dir.resolve())}})
        try:
            client.execute()
        except (CellExecutionError, CellTimeoutError) as err:
            results.append(ExecutionResult(stem, path, False,
                                           f"FAILED    {_display(path)} (file left unchanged):\n{err}"))
            continue
        _strip_volatile(nb)
        write_notebook(nb, path)
        results.append(ExecutionResult(stem, path, True, f"executed  {_display(path)}"))
    return results


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python tools/build.py",
        description="Generate the learner notebooks (notebooks/) from the solved notebooks "
                    "(solutions/). Edited learner notebooks are never overwritten without --force.",
    )
    parser.add_argument("names", nargs="*", metavar="NOTEBOOK",
                        help="only these notebooks (stem, file name or unique prefix, e.g. 01)")
    parser.add_argument("--solutions", metavar="DIR", type=Path, default=None,
                        help="solved notebooks (default: <repo>/solutions)")
    parser.add_argument("--notebooks", metavar="DIR", type=Path, default=None,
                        help="learner notebooks (default: <repo>/notebooks)")
    parser.add_argument("--backup-dir", metavar="DIR", type=Path, default=None,
                        help="where --force keeps copies of edited notebooks "
                             "(default: <repo>/backups/notebooks)")
    parser.add_argument("--force", action="store_true",
                        help="overwrite learner notebooks edited since generation (after a backup)")
    parser.add_argument("--up-to-date", "--check", dest="up_to_date", action="store_true",
                        help="write nothing; exit 1 if a learner notebook is missing, stale or orphaned")
    parser.add_argument("--execute-solutions", action="store_true",
                        help="re-run every solution notebook, store its outputs, then regenerate")
    return parser


def main(argv=None) -> int:
    """Command-line entry point.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 ok, also when edited learner notebooks were skipped (one line each says so); 1 check
        failed, a solution failed to run, or a file could not be written; 2 bad usage, unreadable
        notebook or malformed solution markers.
    """
    parser = _parser()
    try:
        args = parser.parse_args(argv)
        if args.up_to_date and (args.force or args.execute_solutions):
            parser.error("--up-to-date writes nothing: it cannot be combined with --force or --execute-solutions")
    except SystemExit as exit_:  # argparse exits on bad usage (2) and on --help (0)
        return exit_.code if isinstance(exit_.code, int) else 2

    # The course's folders, and (with no folder or name given) each translation's, in its own folders.
    pairs = [(args.solutions, args.notebooks, args.backup_dir)]
    if args.solutions is None and args.notebooks is None and not args.names:
        backups = Path(args.backup_dir) if args.backup_dir is not None else BACKUP_DIR
        pairs += [(solved, learner, backups / solved.name) for solved, learner in translations()]
    try:
        if args.up_to_date:
            problems = [problem for solved, learner, _ in pairs for problem in out_of_date(solved, learner, names=args.names)]
            if problems:
                print("learner notebooks are out of date:")
                for problem in problems:
                    print("  " + problem.message)
                print("regenerate them with: make notebooks (python tools/build.py)")
                return 1
            count = sum(len(_select(_stems(_resolve_dirs(solved, learner)[0]), [], args.names)[0])
                        for solved, learner, _ in pairs)
            print(f"learner notebooks are up to date ({count} notebooks)")
            return 0

        status = 0
        if args.execute_solutions:
            executions = [result for solved, _, _ in pairs for result in execute_solutions(solved, names=args.names)]
            for result in executions:
                print(result.message, file=sys.stdout if result.ok else sys.stderr)
            if not all(result.ok for result in executions):
                status = 1

        results = [result for solved, learner, backups in pairs
                   for result in build(solved, learner, force=args.force, names=args.names, backup_dir=backups)]
    except (UsageError, NotebookReadError, SolutionMarkerError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except WriteError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1

    for result in results:
        stream = sys.stderr if result.status == "orphan" else sys.stdout
        print(result.message, file=stream)
    counts = {s: sum(r.status == s for r in results) for s in
              ("created", "updated", "unchanged", "overwritten", "skipped", "orphan")}
    summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    print(f"{len(results)} notebooks: {summary or 'nothing to do'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
