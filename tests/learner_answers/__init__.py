"""Wrong answers written as learners write them, for the hint-precision and hint-recall tests.

Each module ``nbXX.py`` registers functions with ``@answer(...)``. An answer is one learner's
complete attempt at one exercise (the function the notebook asks for, under any name):

``kind="other"``   the precision set: a plausible wrong answer that is NOT one of the exercise's
                   known mistakes (written independently of the mistake tables). The checker must
                   call it wrong and give either the generic hint or a named mistake listed in
                   ``expect`` (a maintainer adds a name there only after checking that this mistake
                   really explains the answer's result on every case).
``kind="variant"`` the recall set: a realistic form of a known mistake (other variable names, a
                   loop instead of a vectorised line, an extra harmless step). ``expect`` names the
                   mistake the checker must name.

``exercise`` is the checker's name without ``check_`` (e.g. ``"softmax"``, ``"capstone_layer"``).
``note`` says in a few words what the learner did wrong.
"""
from dataclasses import dataclass, field

__all__ = ["Answer", "ANSWERS", "answer", "all_answers", "known_gaps"]


@dataclass(frozen=True)
class Answer:
    exercise: str
    fn: object
    kind: str
    expect: tuple = ()
    note: str = ""
    module: str = field(default="", compare=False)

    @property
    def id(self):
        return f"{self.exercise}:{self.fn.__name__}"


ANSWERS = []


def answer(exercise, *, kind="other", expect=(), note=""):
    """Register the decorated function as a wrong answer to ``exercise`` (see the module docstring)."""
    if kind not in ("other", "variant"):
        raise ValueError(f"kind must be 'other' or 'variant'; got {kind!r}")
    if isinstance(expect, str):
        expect = (expect,)
    if kind == "variant" and len(expect) != 1:
        raise ValueError("a 'variant' answer names exactly one expected mistake")

    def register(fn):
        ANSWERS.append(Answer(exercise, fn, kind, tuple(expect), note, fn.__module__))
        return fn

    return register


def all_answers():
    """Every registered answer (imports every nbXX module of this package once)."""
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("nb"):
            importlib.import_module(f"{__name__}.{info.name}")
    return list(ANSWERS)


def known_gaps():
    """{answer id: what the checker gets wrong}: the ``KNOWN_GAPS`` of every answer module (checker bugs not fixed
    yet; tests/test_hint_precision.py runs them as strict xfails)."""
    import sys

    answers = all_answers()
    return {id_: why for module in sorted({a.module for a in answers})
            for id_, why in getattr(sys.modules[module], "KNOWN_GAPS", {}).items()}
