"""Call a learner's function safely: copies in, errors and numpy warnings caught, never re-raised.

Every call runs under the same limits: a time limit (a function still running after
``TIME_LIMIT`` seconds is stopped, where the platform allows it) and a cap on what it prints
(its printed text is kept, not shown while it runs, and at most ``MAX_PRINTED_LINES`` lines of it
reach a report). A checker can also watch for calls to given functions (``watch``), e.g. a
reference function that would hand the learner the answer.

The call runs in the checker's process, so it can assign to any name of ``course_utils``: replace the reference it
is compared with (``cu.softmax = ...``) or the framework's diagnosis (``_Run._diagnose = ...``), after which every
later check in the kernel would say Correct. Every name of each loaded module of course_utils, and of the classes
they define, is put back after the call, and ``Call.changed`` says which had changed, so that the check reports it
instead of a verdict. In-process checking cannot be made cheat-proof (a function can still read the expected values
through frames or ``gc``): this closes the cheap routes.
"""
import contextlib
import copy
import functools
import inspect
import io
import os
import sys
import sysconfig
import traceback
import warnings
from dataclasses import dataclass

import numpy as np

from course_utils.checks._deadline import OutOfTime, deadline

_MAX_ERROR_TEXT = 200
#: Seconds one call of the learner's function may take on one (small) case.
TIME_LIMIT = 10.0
#: Lines (and characters) of a call's printed output kept for a report.
MAX_PRINTED_LINES = 12
MAX_PRINTED_CHARS = 1500


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
    timed_out: bool = False  # stopped after the time limit (error is then None)
    printed: str = ""  # what it printed (capped, see MAX_PRINTED_LINES)
    called: tuple = ()  # names of the watched functions it called, in order of first call
    changed: tuple = ()  # the names of course_utils it assigned to ("course_utils.softmax.softmax"), put back

    @property
    def ran(self):
        """True if the function finished (returned or raised) within the time limit."""
        return not self.timed_out


def call_learner(fn, args, *, time_limit=TIME_LIMIT, watch=()):
    """Run the learner's ``fn(*deep copies of args)`` (``Call.args_after`` shows the copies after the call);
    catch any error and the numpy warnings it triggers.

    The call is stopped after ``time_limit`` seconds (``Call.timed_out``) where a timer signal is available
    (POSIX, main thread); elsewhere it runs to its end. ``watch`` is ``{name: function}`` of functions whose
    calls to report in ``Call.called``. KeyboardInterrupt is not caught, so the learner can still stop a
    function that hangs.
    """
    course = _course_snapshot()
    learner_args = copy.deepcopy(tuple(args))
    value, error, timed_out = None, None, False
    printed = io.StringIO()
    called = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # Overflow, 0/0 and division by zero show up as warnings we can report; underflow
        # (exp(-1000) == 0) is normal in softmax and not worth mentioning.
        try:
            with np.errstate(over="warn", divide="warn", invalid="warn", under="ignore"), \
                    contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed), \
                    _watching(watch, called), deadline(time_limit) as finished:  # the deadline ends first
                try:
                    value = fn(*learner_args)
                except OutOfTime:
                    timed_out = True
                except KeyboardInterrupt:  # the learner stopping it: not caught
                    raise
                except BaseException as exc:  # the learner's bug (SystemExit, GeneratorExit, their own class too)
                    error = exc
                finally:
                    finished()
        except OutOfTime:  # raised once more as the call ended at its deadline
            timed_out = True
    texts = tuple(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))  # each text once, in order
    call = Call(value=value, error=error, warnings=texts, args_after=learner_args, timed_out=timed_out,
                printed=_cap_printed(printed.getvalue()), called=tuple(called), changed=tuple(_put_back(course)))
    if error is not None:
        call.where = learner_line(error)
        call.stub_raised = isinstance(error, NotImplementedError) and _raised_in(error, fn)
    return call


@contextlib.contextmanager
def _watching(watch, called):
    """Append to ``called`` the name of each watched function the first time its own code (decorators unwrapped) is
    entered."""
    codes = {name: getattr(inspect.unwrap(fn), "__code__", None) for name, fn in dict(watch).items()}
    watch = {code: name for name, code in codes.items() if code is not None}
    if not watch:
        yield
        return
    previous = sys.getprofile()

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # course_utils/

    def profile(frame, event, arg):
        if event == "call":
            name = watch.get(frame.f_code)
            # only calls made from outside course_utils (the learner's), not one reference
            # function calling another
            caller = frame.f_back.f_code.co_filename if frame.f_back is not None else ""
            if name is not None and name not in called and not os.path.abspath(caller).startswith(package):
                called.append(name)
        if previous is not None:
            previous(frame, event, arg)

    sys.setprofile(profile)
    try:
        yield
    finally:
        sys.setprofile(previous)


def _course_snapshot():
    """(label, namespace, a copy of its names) for each loaded course_utils module and each class it defines."""
    found = []
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "course_utils" or name.startswith("course_utils.")):
            continue
        found.append((name, module))
        found += [(f"{name}.{attribute}", value) for attribute, value in list(vars(module).items())
                  if isinstance(value, type) and value.__module__ == name]
    return [(label, space, dict(vars(space))) for label, space in found]


def _put_back(snapshot):
    """Restore the names of each namespace in ``snapshot``; returns the labels of the names that had changed."""
    changed = []
    for label, space, names in snapshot:
        now = vars(space)
        for name in [n for n in now if n not in names and not n.startswith("__")]:
            if isinstance(now[name], type(sys)):  # a submodule the call imported: not a change
                continue
            changed.append(f"{label}.{name}")
            delattr(space, name)
        for name, value in names.items():
            if now.get(name, _MISSING) is not value and not name.startswith("__"):
                changed.append(f"{label}.{name}")
                setattr(space, name, value)
    return changed


_MISSING = object()


def _cap_printed(text):
    """At most MAX_PRINTED_LINES lines and MAX_PRINTED_CHARS characters of text, marked when cut."""
    if not text:
        return ""
    lines = text.rstrip("\n").split("\n")
    cut = len(lines) > MAX_PRINTED_LINES
    kept = "\n".join(lines[:MAX_PRINTED_LINES])
    if len(kept) > MAX_PRINTED_CHARS:
        kept, cut = kept[:MAX_PRINTED_CHARS], True
    if cut:
        kept += f"\n... (cut: {len(lines)} lines printed in all)"
    return kept


def stub_lines_after(fn):
    """(how many ``raise NotImplementedError()`` lines ``fn`` has, its code lines after the last of them, e.g.
    ``return shapes``, stripped); (0, ()) when the source cannot be read."""
    try:
        lines = [line.strip() for line in inspect.getsource(inspect.unwrap(fn)).splitlines()]
    except (OSError, TypeError):
        return 0, ()
    stubs = [i for i, line in enumerate(lines) if line.startswith("raise NotImplementedError")]
    if not stubs:
        return 0, ()
    return len(stubs), tuple(line for line in lines[stubs[-1] + 1:] if line and not line.startswith("#"))


def error_text(exc):
    """``"ValueError: operands could not be broadcast ..."``, first line only, shortened."""
    message = str(exc).strip().split("\n")[0]
    if len(message) > _MAX_ERROR_TEXT:
        message = message[: _MAX_ERROR_TEXT - 3] + "..."
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _raising_code(exc):
    """The code object of exc's innermost traceback frame (None without a traceback)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code if tb is not None else None


def _raised_in(exc, fn):
    """True if the innermost frame of exc's traceback runs fn's own code (or fn has no code)."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    raising = _raising_code(exc)
    return code is None or raising is None or raising is code


def raising_function_name(exc):
    """Name of the function whose code raised exc (innermost frame)."""
    raising = _raising_code(exc)
    return raising.co_name if raising is not None else None


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


@functools.cache
def _library_dirs():
    import course_utils

    dirs = {os.path.dirname(np.__file__), os.path.dirname(course_utils.__file__)}
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        if paths.get(key):
            dirs.add(paths[key])
    return tuple(os.path.realpath(d) + os.sep for d in dirs)


def changed_args(before, after, names):
    """Names of the arguments whose (array) contents differ after the call, with before/after values."""
    return [(name, b, a) for name, b, a in zip(names, before, after)
            if isinstance(b, np.ndarray) and isinstance(a, np.ndarray)
            and not (b.shape == a.shape and np.array_equal(b, a, equal_nan=b.dtype.kind in "fc"))]
