"""Hints in levels: each failed check of an exercise with a changed answer shows one level more.

Level 1 is the checker's own report: what is wrong (the problem, the named mistake or the generic hint).
Level 2 adds the idea and the notebook cell that shows it, level 3 a near-solution step, level 4 where to
compare with the solved notebook. The texts are content data (``course_utils/content/hint_levels.toml``).

The count lives in this kernel process only (``ATTEMPTS``, by exercise name; nothing is written to disk): a
check of the same answer again keeps its level, a correct answer resets nothing, a new kernel starts at 1.
An answer is the same when its fingerprint is (``fingerprint``): its code, constants and names, its defaults
and closure, and the same of the notebook's own functions it calls, so a comment or a re-run is no new attempt.
"""
import contextlib
import functools
import types

import numpy as np

from course_utils import content
from course_utils.checks._result import WRONG

#: exercise name -> (level reached, fingerprint of the last failed answer), for this process only.
ATTEMPTS = {}
#: The last level: where to compare with the solved notebook.
LAST = 4
#: The fields of an exercise's entry in hint_levels.toml.
FIELDS = ("idea", "cell", "section", "starts", "step", "solved", "answer", "answer_section")


@functools.lru_cache(maxsize=None)
def texts():
    """The entries of hint_levels.toml by exercise name, each checked to have exactly ``FIELDS``.

    Raises
    ------
    content.ContentError
        An entry with a field missing or one the file's header does not name.
    """
    entries = content.read("hint_levels")
    for name, entry in entries.items():
        wrong = sorted(set(FIELDS) ^ set(entry))
        if wrong:
            raise content.ContentError(f"course_utils/content/hint_levels.toml, [{name}]: missing or unknown {wrong}")
    return entries


@contextlib.contextmanager
def kept(name):
    """Exercise ``name``'s level count as it was before the block: for a check that is no attempt of the learner's
    at that exercise (a Parsons problem's Check runs the exercise's checker)."""
    before = ATTEMPTS.get(name)
    try:
        yield
    finally:
        ATTEMPTS.pop(name, None)
        if before is not None:
            ATTEMPTS[name] = before


def levelled(name, answer, result):
    """``result`` (of exercise ``name`` checking ``answer``) with its level and the texts of levels 2 to it.

    Only a wrong result counts; it reaches one level more than the last one, unless ``answer`` is the answer
    that last failed (then it keeps that level).
    """
    if result.status != WRONG:
        return result
    level, last = ATTEMPTS.get(name, (0, None))
    mark = fingerprint(answer)
    if mark != last:
        level = min(level + 1, LAST)
    ATTEMPTS[name] = (level, mark)
    entry = texts().get(name)
    result.level = level
    result.more = tuple(level_text(name, entry, n) for n in range(2, level + 1)) if entry else ()
    return result


def level_text(name, entry, level):
    """(label, text) of level 2, 3 or 4 of exercise ``name``, from its ``entry``."""
    if level == 2:
        return "The idea", (f"{entry['idea']} Notebook {entry['cell'][2:4]} shows it in section "
                            f"\"{entry['section']}\": the cell that begins `{entry['starts']}`.")
    if level == 3:
        return "Next step", entry["step"]
    stem = entry["solved"].rpartition("/")[2].removesuffix(".ipynb")
    return "Compare", (f"your function with `my_{name}` in the solved notebook {entry['solved']}, under "
                       f"\"{entry['answer_section']}\" (in the HTML pages of `make html`: "
                       f"build/html/{stem}.html#cell-id={entry['answer']}).")


def fingerprint(answer):
    """A hashable summary of ``answer`` that changes when its code or its defaults do (not its comments).

    It runs no method of the learner's own classes (``__repr__``, ``__eq__``, ``__getattr__``): such an object
    counts by its class's name alone; one too deep to read, by its identity.
    """
    try:
        return hash(_plain(answer, set()))
    except RecursionError:  # e.g. a default nested thousands of lists deep
        return id(answer)


def _plain(value, seen):
    """``value`` as bytes, numbers and text: a function as its code, defaults, closure and the module's functions it calls."""
    function = value.__func__ if isinstance(value, types.MethodType) else value
    if isinstance(function, types.FunctionType):
        if id(function) in seen:  # a recursive function, or two calling each other
            return function.__qualname__
        seen.add(id(function))
        cells = tuple(_plain(_contents(cell), seen) for cell in function.__closure__ or ())
        helpers = (_own(function, name) for name in sorted(_names(function.__code__)))
        return (_code(function.__code__), _plain(function.__defaults__, seen), _plain(function.__kwdefaults__, seen),
                cells, tuple(_plain(helper, seen) for helper in helpers if helper))
    if type(value) in (type(None), bool, int, float, complex, str, bytes):
        return repr(value)
    if type(value) is np.ndarray and value.dtype != object:
        return value.shape, str(value.dtype), value.tobytes()
    if type(value) in (tuple, list):
        return tuple(_plain(item, seen) for item in value)
    if type(value) is dict:
        return tuple((_plain(k, seen), _plain(v, seen)) for k, v in value.items())
    return type(value).__qualname__


def _code(code):
    """The code object's bytecode, constants (nested code objects in turn) and names."""
    consts = tuple(_code(c) if isinstance(c, types.CodeType) else repr(c) for c in code.co_consts)
    return code.co_code, consts, code.co_names


def _names(code):
    """Every global or attribute name the code, or code nested in it, uses."""
    return set(code.co_names).union(*(_names(c) for c in code.co_consts if isinstance(c, types.CodeType)))


def _own(function, name):
    """The function named ``name`` in ``function``'s globals when it is defined in the same module, else None."""
    other = function.__globals__.get(name)
    return other if isinstance(other, types.FunctionType) and other.__module__ == function.__module__ else None


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # a closure variable not assigned yet
        return None
