"""The course's lesson content as data: text files a person edits without Python.

One TOML file per kind of content, in this folder, each with a header that says what its fields mean:

``notebooks.toml``  the notebooks of the course, in order (what the tests and tools walk)
``myths.toml``      the *Myth or fact?* claims of the notebooks (``course_utils.lessons.myths`` reads it)
``inventory.toml``  the concept inventory's items, choices and feedback (``course_utils.lessons.inventory``)
``answers.toml``    the answer keys of the diagnosis exercises of 03 and 05 (their checkers read it; the keys stay
                    out of the notebooks' namespace)

Every text is read with its line breaks as spaces (``" ".join(text.split())``), so a long text can be wrapped in
the file as it reads best.
"""
from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: tomli, the same parser (pyproject.toml declares it there)
    import tomli as tomllib

__all__ = ["FOLDER", "ContentError", "read"]

#: The folder of the content files (inside the package: a pip install carries them).
FOLDER = Path(__file__).resolve().parent


class ContentError(ValueError):
    """A content file that cannot be read, or an entry that lacks what the course needs; the message names both."""


def read(name: str) -> dict:
    """The data of ``<name>.toml`` in this folder, every text's line breaks made spaces.

    Raises
    ------
    ContentError
        The file is missing or not valid TOML (the message gives its path, line and column).
    """
    path = FOLDER / f"{name}.toml"
    try:
        with path.open("rb") as file:
            data = tomllib.load(file)
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise ContentError(f"{path}: {err}") from None
    return _spaced(data)


def _spaced(value):
    """``value`` with every string's runs of white space (line breaks included) made one space."""
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, dict):
        return {key: _spaced(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_spaced(item) for item in value]
    return value
