"""Stop a learner's function at a deadline, even one that turns the timer off or catches the first stop.

``deadline(seconds)`` arms SIGALRM (POSIX, main thread): when it fires, ``OutOfTime`` is raised in the learner's
running code, and again every 10 ms after that, so a function that catches the first one (``except BaseException``)
and goes on computing is stopped at the next. From the first stop on, every line the learner's code starts raises it
too (a trace function, ``sys.settrace``): a loop that catches every stop around a call that sleeps, where every
alarm arrives inside the ``try``, is stopped on its handler's first line. While the function runs, the ``signal``
module's functions leave the alarm and its timer as they are, so a function that turns the timer off runs out of time
too. What this cannot stop: code that blocks in C without returning to Python, code that reaches the timer through
``_signal`` or ``ctypes``, and on Python 3.10, which never delivers a signal between a ``try``'s set-up and its body,
a loop that catches every exception without calling anything. The learner can always interrupt the kernel.
"""
import contextlib
import os
import signal
import sys
import threading

__all__ = ["OutOfTime", "can_time_out", "deadline"]

#: Seconds between the stops that follow the first one.
AGAIN_EVERY = 0.01


class OutOfTime(BaseException):
    """Raised inside the learner's function when its time is up (a BaseException, so that the learner's own
    ``except Exception`` cannot swallow it)."""


def can_time_out():
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _libraries():
    import numpy

    import course_utils

    folders = {os.path.dirname(path(m.__file__)) + os.sep for m in (os, numpy, course_utils)
               for path in (os.path.abspath, os.path.realpath)}
    return tuple(sorted(folders)) + ("<frozen ",)


@contextlib.contextmanager
def _timer_kept(state):
    """While the learner's code runs, signal.signal, setitimer, alarm and pthread_sigmask leave SIGALRM as it is."""
    originals = {name: getattr(signal, name) for name in ("signal", "setitimer", "alarm", "pthread_sigmask")
                 if hasattr(signal, name)}

    def guarded(name, function):
        def call(*args):
            if state["running"]:
                if name == "signal" and args and args[0] == signal.SIGALRM:
                    return signal.getsignal(signal.SIGALRM)
                if name == "setitimer" and args and args[0] == signal.ITIMER_REAL:
                    return signal.getitimer(signal.ITIMER_REAL)
                if name == "alarm":
                    return 0
                if name == "pthread_sigmask" and len(args) == 2:
                    args = (args[0], set(args[1]) - {signal.SIGALRM})
            return function(*args)
        return call

    for name, function in originals.items():
        setattr(signal, name, guarded(name, function))
    try:
        yield
    finally:
        for name, function in originals.items():
            setattr(signal, name, function)


@contextlib.contextmanager
def deadline(seconds):
    """Raise OutOfTime in the learner's code running inside the block after ``seconds`` (see the module docstring);
    yields ``finished``, to call as soon as the learner's function has returned or raised."""
    state = {"running": True}

    def finished():
        state["running"] = False

    if not seconds or not can_time_out():
        yield finished
        return
    libraries = _libraries()

    def learners(frame):
        return not frame.f_code.co_filename.startswith(libraries)

    def every_line(frame, event, arg):
        # Once the time is up, each line the learner's running frames start raises the stop again: a stop caught by
        # an ``except`` is raised on the handler's first line, outside the ``try``, and so leaves the loop.
        if state["running"] and event == "line":
            raise OutOfTime()
        return every_line

    def stop(signum, frame):
        if not state["running"]:
            return
        if not state.get("tracing"):  # the first stop: trace the lines of the learner's frames running now
            state["tracing"] = True
            sys.settrace(lambda *_: None)  # tracing on, new frames left untraced (the course's code among them)
            caller = frame
            while caller is not None:
                if learners(caller):
                    caller.f_trace, caller.f_trace_lines = every_line, True
                caller = caller.f_back
        # Only in the learner's own code: raised in the course's or a library's code (a with statement's exit, say),
        # it could leave that code half done; the next stop comes 10 ms later.
        if learners(frame):
            raise OutOfTime()

    previous, previous_trace = signal.signal(signal.SIGALRM, stop), sys.gettrace()
    signal.setitimer(signal.ITIMER_REAL, seconds, AGAIN_EVERY)
    try:
        with _timer_kept(state):
            yield finished
    finally:
        finished()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if state.get("tracing"):
            sys.settrace(previous_trace)
