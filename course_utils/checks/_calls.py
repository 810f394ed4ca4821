"""Call a learner's function safely: copies in, errors and numpy warnings caught, never re-raised."""
import copy
import inspect
import os
import sysconfig
import traceback
import warnings
from dataclasses import dataclass

import numpy as np

_MAX_ERROR_TEXT = 200


@dataclass
class Call:
    """What happened when the learner's function ran on one case.

    value : what it returned (None if it raised).
    error : the exception it raised, or None.
    warnings : distinct warning texts emitted during the call, e.g.
        "RuntimeWarning: overflow encountered in exp".
    args_after : the copies it received, as they were after the call (to detect in-place changes).
    stub_raised : True when the error is a NotImplementedError raised by the function's own
        code (the build tool's stub), not by something it calls.
    """

    value: object = None
    error: BaseException = None
    warnings: tuple = ()
    args_after: tuple = ()
    stub_raised: bool = False
    where: str = None  # "softmax, line 3: return e / 0" for errors, when the learner's line is known


def call_learner(fn, args):
    """Run ``fn(*copies of args)``; catch any error and the numpy warnings it triggers.

    KeyboardInterrupt is not caught, so the learner can still stop a function that hangs.
    """
    learner_args = copy.deepcopy(tuple(args))
    value, error = None, None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # Overflow, 0/0 and division by zero show up as warnings we can report; underflow
        # (exp(-1000) == 0) is normal in softmax and not worth mentioning.
        with np.errstate(over="warn", divide="warn", invalid="warn", under="ignore"):
            try:
                value = fn(*learner_args)
            except (Exception, SystemExit) as exc:  # the learner's bug, reported not raised
                error = exc
    texts = []
    for w in caught:
        text = f"{w.category.__name__}: {w.message}"
        if text not in texts:
            texts.append(text)
    call = Call(value=value, error=error, warnings=tuple(texts), args_after=learner_args)
    if error is not None:
        call.where = learner_line(error)
        call.stub_raised = isinstance(error, NotImplementedError) and _raised_in(error, fn)
    return call


def error_text(exc):
    """``"ValueError: operands could not be broadcast ..."``, first line only, shortened."""
    message = str(exc).strip().split("\n")[0]
    if len(message) > _MAX_ERROR_TEXT:
        message = message[: _MAX_ERROR_TEXT - 3] + "..."
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _raised_in(exc, fn):
    """True if the innermost frame of exc's traceback runs fn's own code (or fn has no code)."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    tb = exc.__traceback__
    if code is None or tb is None:
        return True
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code is code


def raising_function_name(exc):
    """Name of the function whose code raised exc (innermost frame)."""
    tb = exc.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_name


def learner_line(exc):
    """``"softmax, line 3: return e / 0"``: the deepest frame of exc outside numpy, the standard
    library, installed packages and course_utils, i.e. a line the learner wrote; None if there is none."""
    try:
        frames = traceback.extract_tb(exc.__traceback__)
    except Exception:
        return None
    library = _library_dirs()
    for frame in reversed(frames):
        path = os.path.realpath(frame.filename) if not frame.filename.startswith("<") else frame.filename
        if path.startswith(library):
            continue
        line = (frame.line or "").strip()
        text = f"{frame.name}, line {frame.lineno}"
        return f"{text}: {line}" if line else text
    return None


_LIBRARY_DIRS = None


def _library_dirs():
    global _LIBRARY_DIRS
    if _LIBRARY_DIRS is None:
        import course_utils

        dirs = {os.path.dirname(np.__file__), os.path.dirname(course_utils.__file__)}
        paths = sysconfig.get_paths()
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            if paths.get(key):
                dirs.add(paths[key])
        _LIBRARY_DIRS = tuple(os.path.realpath(d) + os.sep for d in dirs)
    return _LIBRARY_DIRS


def changed_args(before, after, names):
    """Names of the arguments whose (array) contents differ after the call, with before/after values."""
    changed = []
    for name, b, a in zip(names, before, after):
        if isinstance(b, np.ndarray) and isinstance(a, np.ndarray):
            same = b.shape == a.shape and np.array_equal(b, a, equal_nan=b.dtype.kind in "fc")
            if not same:
                changed.append((name, b, a))
    return changed
