"""One home for writing files: the tools (build, reset, update) write every notebook and backup here.

A file is written to a hidden temporary file beside it (``.<name>.<random>.tmp``), flushed and
synced to disk, read back and compared, and only then renamed to its name. So a full disk, a
read-only folder or an interrupted run never leaves half a file under a valid-looking name, never a
0-byte backup and never a hidden temporary file: on any failure the temporary file is removed and
:class:`WriteError` says, in one sentence, which path could not be written and what to do about it.

``exclusive=True`` (backups) never replaces an existing file: the name is taken with a hard link,
which fails when the name exists, so two runs in the same second cannot overwrite each other's copy.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import tempfile
from pathlib import Path

__all__ = ["WriteError", "make_dirs", "shown", "write_bytes", "write_new"]

# What went wrong, and the fix, by errno. The fix is said to a learner at a terminal.
_DISK_FULL = ("there is no space left on that disk",
              "free some space there (old copies in backups/ can go) and run the command again")
_READ_ONLY = ("that folder is on a read-only file system",
              "work in a writable copy of the course (for example a `git clone` in your home folder), "
              "or ask for write access there")
_DENIED = ("you are not allowed to write there",
           "make the folder writable for you (`chmod u+w` on it) or run the command as its owner")
_REASONS = {
    errno.ENOSPC: _DISK_FULL,
    errno.EDQUOT: ("your disk quota is used up", _DISK_FULL[1]),
    errno.EROFS: _READ_ONLY,
    errno.EACCES: _DENIED,
    errno.EPERM: _DENIED,
}


def shown(path) -> str:
    """A path relative to the working directory when it lies below it, else absolute."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


class WriteError(OSError):
    """A file or folder could not be written; nothing half-written was left behind.

    ``str(error)`` is one sentence: the path, what went wrong, the fix, and (when the caller says it)
    what was left as it was.

    Attributes
    ----------
    path : Path
        The file or folder that could not be written.
    reason, fix : str
        What went wrong and what to do, in words.
    cause : OSError
        The error the operating system reported.
    unchanged : str or None
        What the caller left untouched, e.g. ``"notebooks/01-one-attention-row.ipynb was not changed"``.
    """

    def __init__(self, path, cause: OSError, unchanged: str | None = None):
        reason, fix = _REASONS.get(cause.errno, (cause.strerror or str(cause),
                                                 "check that the folder exists and is writable, then run "
                                                 "the command again"))
        super().__init__(cause.errno, reason)
        self.path, self.cause, self.reason, self.fix, self.unchanged = Path(path), cause, reason, fix, unchanged

    def with_unchanged(self, unchanged: str) -> WriteError:
        """The same error, saying what the caller left as it was."""
        return WriteError(self.path, self.cause, unchanged)

    def __str__(self) -> str:
        tail = f" ({self.unchanged})" if self.unchanged else ""
        return f"cannot write {shown(self.path)}: {self.reason}{tail}; {self.fix}."


def make_dirs(folder) -> Path:
    """Create ``folder`` and its parents when missing; a WriteError when it cannot be created."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise WriteError(folder, err) from None
    return folder


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to the open file ``fd`` (os.write may write fewer)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (best effort: not every system syncs folders)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _take_name(tmp: Path, path: Path) -> None:
    """Give ``tmp``'s content the name ``path``, failing with FileExistsError if ``path`` exists."""
    try:
        os.link(tmp, path)  # atomic, and never replaces an existing file
    except OSError as err:
        if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV):
            raise  # FileExistsError (EEXIST) among them
        # A file system without hard links (FAT, some network shares): reserve the name, then rename over it.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        os.close(fd)
        try:
            os.replace(tmp, path)
        except OSError:
            path.unlink(missing_ok=True)
            raise
    else:
        tmp.unlink()


def write_bytes(path, data: bytes, *, exclusive: bool = False) -> Path:
    """Write ``data`` to ``path`` (its folder must exist): temporary file, fsync, read back and compare, rename.

    Returns ``path``. Raises WriteError when it could not be written (``path`` as it was, no temporary file left),
    and with ``exclusive`` (backups: never replace a file) FileExistsError when ``path`` exists.
    """
    path = Path(path)
    tmp = None
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        tmp = Path(name)
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        if tmp.read_bytes() != data:
            raise OSError(errno.EIO, "the copy read back differs from what was written")
        os.chmod(tmp, 0o666 & ~_umask())  # what open() would have given (mkstemp gives 0600)
        if exclusive:
            _take_name(tmp, path)
        else:
            os.replace(tmp, path)
        tmp = None
        _sync_folder(path.parent)
    except FileExistsError:
        raise
    except OSError as err:
        raise WriteError(path, err) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
    return path


def write_new(folder, stem: str, stamp: str, suffix: str, data: bytes) -> Path:
    """Write ``data`` to a new file ``<folder>/<stem>.<stamp><suffix>`` (``-1``, ``-2``, ... appended to the stamp
    while the name is taken) and return its path; WriteError when it cannot be written (no partial file is left)."""

    folder = make_dirs(folder)
    for counter in itertools.count():
        candidate = folder / f"{stem}.{stamp}{f'-{counter}' if counter else ''}{suffix}"
        with contextlib.suppress(FileExistsError):  # the name is taken: try the next
            return write_bytes(candidate, data, exclusive=True)


def _umask() -> int:
    """The process's umask (read without changing it for good)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
