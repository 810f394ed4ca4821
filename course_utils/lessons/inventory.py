"""The concept inventory: multiple-choice items on what the course teaches, taken before and after.

The items, their answers and their feedback have one home, ``course_utils/content/inventory.toml`` (read here;
the widget in ``course_utils.widgets.inventory``, notebooks 00 and 08, the report ``python
tools/inventory_report.py`` and the tests all take them from ``ITEMS``). This module holds the order the choices
are shown in, and the answer files.

Each item has exactly one right choice. Every other choice is a **named misconception**: the statement a
notebook's *Myth or fact?* section names (``named_in="myth 03"``) or a mistake a checker recognises by name
(``named_in="checker masked_attention"``), so the report's "most chosen distractor" says which myth or mistake
to address. Every choice carries its own elaborated feedback and the cell that demonstrates it (``Where``).

The same items are taken twice: at the end of notebook 00 ("pre": no feedback, it must not teach) and in
notebook 08 ("post": per-item feedback). The choices are shuffled differently for the two attempts, by a
fixed seed (``choice_order``), so a learner cannot answer the second time by position. Notebook 08 answered again
under the same nickname ``DELAYED_AFTER`` or more after the learner's first "post" is saved as the delayed retake
("delayed", ``recorded_attempt``): what is still right days later is what stayed.

Answers are saved locally only, one new JSON file per attempt (``save``; never overwritten), in
``inventory/`` of the course folder (git-ignored); nothing is sent anywhere.
"""
from __future__ import annotations

import json
import os
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from course_utils import content
from course_utils._validate import check_seed

__all__ = [
    "ANSWERS_DIR", "ATTEMPTS", "CORRECT", "DELAYED", "DELAYED_AFTER", "FORMAT", "ITEMS", "SEED", "VERSION",
    "Choice", "InventoryFileError", "Item", "Where", "answers_dir", "choice_order", "item_by_key", "make_record",
    "nickname_key", "normalised_gain", "plain_name", "first_record", "read_record", "recorded_attempt", "save",
    "score",
]

#: The course folder this package lies in (a clone: it holds ``requirements.lock`` beside ``course_utils/``), or
#: None when the package was installed on its own (Colab, a plain ``pip install``: it lies in site-packages).
_COURSE_FOLDER = Path(__file__).resolve().parents[2]
#: The folder of the answer files in a clone: ``inventory/`` in the course folder (listed in .gitignore). None for
#: an installed package, whose answer files go to ``inventory/`` in the working folder (``answers_dir``), never
#: into site-packages. The environment variable ``COURSE_INVENTORY_DIR``, when set, names another folder.
ANSWERS_DIR = _COURSE_FOLDER / "inventory" if (_COURSE_FOLDER / "requirements.lock").is_file() else None
#: The two attempts: before the course (end of notebook 00) and after it (notebook 08).
ATTEMPTS = ("pre", "post")
#: The attempt a file records for notebook 08 answered again days later (``recorded_attempt``).
DELAYED = "delayed"
#: How long after a learner's first "post" another "post" counts as the delayed retake (the next day does).
DELAYED_AFTER = timedelta(hours=20)
#: The seed of the choice orders (the same for every learner, so a room sees the same letters).
SEED = 15
#: What a file stores as ``chosen`` for the right choice (a distractor is stored by its misconception's name).
CORRECT = "correct"
#: The answer files' format name and version.
FORMAT = "self-attention-hands-on concept inventory"
VERSION = 1


@dataclass(frozen=True)
class Where:
    """The cell that demonstrates a point: ``notebook`` (stem in solutions/), its ``section`` number, its cell id."""

    notebook: str
    section: str
    cell: str

    def __str__(self):
        return f"notebook {self.notebook[:2]}, section {self.section} (cell {self.cell})"


@dataclass(frozen=True)
class Choice:
    """One choice of an item.

    Attributes
    ----------
    text : str
        What the learner reads.
    feedback : str
        Why it is right, or what is wrong with it, in a few sentences (shown in notebook 08 only).
    misconception : str or None
        None for the right choice; else the misconception's name, as its notebook or checker names it.
    named_in : str or None
        Where that name comes from: ``"myth NN"`` (a *Myth or fact?* statement of notebook NN) or
        ``"checker NAME"`` (a known mistake of ``course_utils.checks.CHECKERS[NAME]``).
    see : Where or None
        The cell that demonstrates it; None: the item's.
    mistake : str or None
        The checker's name for it when that is not ``misconception`` (renamed after answer files stored the old name).
    """

    text: str
    feedback: str
    misconception: str | None = None
    named_in: str | None = None
    see: Where | None = None
    mistake: str | None = None

    @property
    def correct(self):
        return self.misconception is None

    @property
    def key(self):
        """What an answer file stores for this choice: ``CORRECT`` or the misconception's name."""
        return CORRECT if self.correct else self.misconception


@dataclass(frozen=True)
class Item:
    """One question: ``key`` (stable, used in the files), its ``topic``, the ``stem``, the ``choices``.

    ``choices`` are in a canonical order (the right one first); learners see them in ``choice_order``.
    ``see`` is where the whole point is demonstrated.
    """

    key: str
    topic: str
    stem: str
    choices: tuple
    see: Where

    @property
    def answer(self):
        """The right choice."""
        (right,) = [c for c in self.choices if c.correct]
        return right

    def choice(self, key):
        """The choice stored as ``key`` (``CORRECT`` or a misconception's name).

        Raises
        ------
        KeyError
            For a key that is none of this item's choices.
        """
        for c in self.choices:
            if c.key == key:
                return c
        raise KeyError(f"item {self.key!r} has no choice {key!r}; its choices are {[c.key for c in self.choices]}")

    def where(self, choice):
        """The cell that demonstrates ``choice`` (its own, else the item's)."""
        return choice.see or self.see


def _where(value, where):
    """A ``Where`` from a content table ``{notebook, section, cell}``."""
    if not isinstance(value, dict) or sorted(value) != ["cell", "notebook", "section"]:
        raise content.ContentError(f"{where}: see must be {{notebook = ..., section = ..., cell = ...}}; got {value!r}")
    return Where(value["notebook"], str(value["section"]), value["cell"])


def _choice(entry, where, named=True):
    """A ``Choice`` from one ``[[item.choice]]`` (a myth's misconception is its text unless the entry names one);
    ``named``: a misconception must say where it is named (``named_in``)."""
    if "text" not in entry or "feedback" not in entry:
        raise content.ContentError(f"{where}: a choice needs text and feedback")
    named_in = entry.get("named_in")
    misconception = entry.get("misconception")
    if named_in is not None and misconception is None:
        if not named_in.startswith("myth "):
            raise content.ContentError(f"{where}: a choice named in {named_in!r} needs its misconception's name")
        misconception = entry["text"]
    if misconception is not None and named_in is None and named:
        raise content.ContentError(f"{where}: the misconception {misconception!r} needs named_in (\"myth NN\" or "
                                   "\"checker NAME\")")
    see = _where(entry["see"], where) if "see" in entry else None
    return Choice(entry["text"], entry["feedback"], misconception, named_in, see, entry.get("mistake"))


def items_from(entries, source, named=True):
    """``Item``s from the ``[[item]]`` tables ``entries`` of the content file ``source`` (its name, for messages),
    each with exactly one right choice; ``named``: every misconception says where it is named (the inventory)."""
    items = []
    for number, entry in enumerate(entries, 1):
        where = f"{source}, item {number} ({entry.get('key', 'no key')})"
        missing = [field for field in ("key", "topic", "stem", "see", "choice") if field not in entry]
        if missing:
            raise content.ContentError(f"{where}: no {', '.join(missing)}")
        choices = tuple(_choice(choice, f"{where}, choice {n}", named) for n, choice in enumerate(entry["choice"], 1))
        if sum(choice.correct for choice in choices) != 1:
            raise content.ContentError(f"{where}: exactly one choice must be right (have no misconception); "
                                       f"{sum(choice.correct for choice in choices)} are")
        if entry["key"] in (item.key for item in items):
            raise content.ContentError(f"{where}: the key {entry['key']!r} is used twice")
        items.append(Item(entry["key"], entry["topic"], entry["stem"], choices, _where(entry["see"], where)))
    return tuple(items)


def _items():
    """The inventory's items, from ``course_utils/content/inventory.toml``."""
    return items_from(content.read("inventory").get("item", []), "course_utils/content/inventory.toml")


#: The items, in the order they are asked (course_utils/content/inventory.toml).
ITEMS = _items()


def plain_name(name):
    """A misconception's name as a sentence quotes it: ``$\\sqrt{d_k}$`` read as ``sqrt(d_k)``, no final full stop."""
    return name.replace("$\\sqrt{d_k}$", "sqrt(d_k)").rstrip(".")


def item_by_key(key):
    """The item whose ``key`` is ``key``; a KeyError naming the keys there are."""
    for item in ITEMS:
        if item.key == key:
            return item
    raise KeyError(f"no inventory item {key!r}; the items are {[i.key for i in ITEMS]}")


def _check_attempt(attempt, allowed=ATTEMPTS):
    if attempt not in allowed:
        raise ValueError(f"attempt must be one of {allowed}; got {attempt!r}")
    return attempt


def choice_order(number, attempt, seed=SEED, n_choices=4):
    """The order in which the ``n_choices`` choices of item ``number`` (0-based) are shown in ``attempt``.

    ``order[k]`` is the canonical index of the choice shown in position k: the same for every learner and every
    run, and different for "pre" and "post" (a ValueError for another attempt, or fewer than 2 choices).

    The right choice (canonical index 0) is never at one fixed position: the items are taken in blocks of
    ``n_choices`` (items 0-3, 4-7, ...), and within a block it sits once at each position, in an order drawn
    from the seed for each block and attempt. So always answering "A" (or any letter) gets a quarter right.
    """
    _check_attempt(attempt)
    seed = check_seed(seed)
    if n_choices < 2:
        raise ValueError(f"n_choices must be at least 2 for two different orders; got {n_choices}")
    number = int(number)
    block, place = divmod(number, n_choices)
    targets = {name: int(np.random.default_rng([seed, block, k]).permutation(n_choices)[place])
               for k, name in enumerate(ATTEMPTS)}                  # where the right choice goes, per attempt
    rng = np.random.default_rng([seed, number])
    orders = {}
    for name in ATTEMPTS:
        while True:
            order = [int(i) for i in rng.permutation(n_choices)]   # (n_choices,)
            right = order.index(0)
            order[right], order[targets[name]] = order[targets[name]], order[right]
            if name == "pre" or tuple(order) != orders["pre"]:      # "post" never repeats the order of "pre"
                break
        orders[name] = tuple(order)
    return orders[attempt]


def score(chosen):
    """The percentage of ``ITEMS`` answered right, from ``chosen``: item key -> the chosen choice's key
    (``CORRECT`` or a misconception's name), or None; an unanswered or missing item counts as wrong."""
    right = sum(chosen.get(item.key) == CORRECT for item in ITEMS)
    return 100.0 * right / len(ITEMS)


def normalised_gain(pre, post):
    """Hake's normalised gain ``(post - pre) / (100 - pre)`` for scores in percent (a ValueError outside [0, 100]);
    None when ``pre`` is 100: nothing left to gain, so such a learner is left out of a class's gain and counted."""
    for name, value in (("pre", pre), ("post", post)):
        if not 0 <= value <= 100:
            raise ValueError(f"{name} must be a percentage between 0 and 100; got {name}={value}")
    if pre >= 100:
        return None
    return (post - pre) / (100 - pre)


def nickname_key(nickname):
    """How nicknames are matched between attempts: stripped, spaces collapsed, case-folded ("Ada L" = "ada l")."""
    return " ".join(str(nickname).split()).casefold()


def _slug(nickname):
    """A file-name-safe form of a nickname (letters, digits, '-'), at most 40 characters."""
    text = unicodedata.normalize("NFKD", nickname_key(nickname)).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")[:40] or "learner"


def _check_nickname(nickname):
    if not isinstance(nickname, str) or not nickname.strip():
        raise ValueError("nickname must be a non-empty text: the name you will type again in notebook 08 "
                         f"(it matches your two attempts); got {nickname!r}")
    if len(nickname.strip()) > 60:
        raise ValueError(f"nickname must be at most 60 characters; got {len(nickname.strip())}")
    return " ".join(nickname.split())


def make_record(nickname, attempt, chosen, *, positions=None, now=None):
    """The content of one answer file (a dict ready for JSON).

    Parameters
    ----------
    nickname : str
        Chosen by the learner; matches the two attempts (``nickname_key``).
    attempt : {"pre", "post", "delayed"}
    chosen : dict
        item key -> the chosen choice's key, or None (unanswered).
    positions : dict, optional
        item key -> the 1-based position at which the chosen choice was shown (for the record only).
    now : datetime, optional
        When it was saved (default: now, UTC).

    Returns
    -------
    dict
        ``format``, ``version``, ``nickname``, ``attempt``, ``saved_at`` (ISO 8601), ``score`` (percent),
        ``items``: one ``{"key", "chosen", "correct", "position"}`` per item of ``ITEMS``.

    Raises
    ------
    ValueError
        For an empty nickname, an unknown attempt, an unknown item key, or a choice an item does not have.
    """
    nickname = _check_nickname(nickname)
    _check_attempt(attempt, ATTEMPTS + (DELAYED,))
    unknown = sorted(set(chosen) - {item.key for item in ITEMS})
    if unknown:
        raise ValueError(f"chosen names items that do not exist: {unknown}")
    positions = positions or {}
    items = []
    for item in ITEMS:
        key = chosen.get(item.key)
        if key is not None:
            try:
                item.choice(key)
            except KeyError as err:
                raise ValueError(str(err.args[0])) from None
        items.append({"key": item.key, "chosen": key, "correct": key == CORRECT,
                      "position": positions.get(item.key)})
    now = now or datetime.now(timezone.utc)
    return {"format": FORMAT, "version": VERSION, "nickname": nickname, "attempt": attempt,
            "saved_at": now.isoformat(timespec="seconds"), "score": score(chosen), "items": items}


def answers_dir():
    """Where answer files go by default: ``$COURSE_INVENTORY_DIR`` when set and not empty, else ``ANSWERS_DIR``
    (a clone's ``inventory/``), else ``inventory/`` in the working folder (an installed package: Colab, pip)."""
    override = os.environ.get("COURSE_INVENTORY_DIR", "").strip()
    if override:
        return Path(override).expanduser()
    return ANSWERS_DIR if ANSWERS_DIR is not None else Path.cwd() / "inventory"


def save(record, folder=None):
    """Write ``record`` (from ``make_record``) to a new file ``<folder>/<nickname>.<attempt>.<YYYYmmdd-HHMMSS>.json``
    (default folder: ``answers_dir()``); return its path.

    Written with ``course_utils.safe_files.write_new``: never replacing a file (``-1``, ``-2``, ... after the stamp)
    and never leaving half a file; its WriteError says the path and the fix.
    """
    from course_utils.safe_files import write_new

    folder = Path(folder) if folder is not None else answers_dir()
    stamp = datetime.fromisoformat(record["saved_at"]).strftime("%Y%m%d-%H%M%S")
    data = (json.dumps(record, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    return write_new(folder, f"{_slug(record['nickname'])}.{record['attempt']}", stamp, ".json", data)


def first_record(nickname, attempt, folder=None):
    """The earliest readable answer file of ``nickname`` (matched by ``nickname_key``) for ``attempt`` in ``folder``
    (default ``answers_dir()``), read by ``read_record``; None when there is none."""
    folder = Path(folder) if folder is not None else answers_dir()
    key, found = nickname_key(nickname), []
    for path in sorted(folder.glob(f"*.{attempt}.*.json")) if folder.is_dir() else ():
        try:
            record = read_record(path)
        except InventoryFileError:
            continue
        if nickname_key(record["nickname"]) == key:
            found.append(record)
    return min(found, key=lambda r: r["saved_at"]) if found else None


def recorded_attempt(attempt, nickname, folder=None, now=None):
    """What a Submit of ``attempt`` is saved as: "delayed" for a "post" at least ``DELAYED_AFTER`` after the
    learner's first "post" in ``folder``; else ``attempt`` itself. Returns ``(attempt, first_post or None)``."""
    if attempt != "post" or not str(nickname).strip():
        return attempt, None
    first = first_record(nickname, "post", folder)
    now = now or datetime.now(timezone.utc)
    if first is not None and now - datetime.fromisoformat(first["saved_at"]) >= DELAYED_AFTER:
        return DELAYED, first
    return attempt, first


#: An answer file is about 3 kB; anything over this is not one (and is not read into memory).
MAX_FILE_BYTES = 1_000_000


class InventoryFileError(ValueError):
    """A file that is not a readable answer file of this inventory; the message names the file and why."""


def read_record(path):
    """Read and check one answer file: its ``chosen`` re-checked against ``ITEMS``, ``correct`` and ``score``
    recomputed (never trusted from the file); InventoryFileError for anything that is not such a file."""

    path = Path(path)
    if not path.is_file():  # a folder, a FIFO (reading one waits for a writer for ever), a device
        raise InventoryFileError(f"{path}: not a regular file")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise InventoryFileError(f"{path}: {path.stat().st_size:,} bytes, more than an answer file holds "
                                 f"(at most {MAX_FILE_BYTES:,})")
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InventoryFileError(f"{path}: not a readable JSON file ({err})") from None
    except RecursionError:  # brackets nested thousands deep
        raise InventoryFileError(f"{path}: not an answer file (nested too deeply to read)") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise InventoryFileError(f"{path}: not an answer file of the concept inventory (format {FORMAT!r})")
    if record.get("version") != VERSION:
        raise InventoryFileError(f"{path}: version {record.get('version')!r}; this course reads version {VERSION}")
    try:
        chosen = {entry["key"]: entry["chosen"] for entry in record["items"]}
        positions = {entry["key"]: entry.get("position") for entry in record["items"]}
        return make_record(record["nickname"], record["attempt"], chosen, positions=positions,
                           now=datetime.fromisoformat(record["saved_at"]))
    except (KeyError, TypeError, ValueError) as err:
        raise InventoryFileError(f"{path}: {err}") from None
