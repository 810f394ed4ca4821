"""`python tools/feedback_report.py` on tiny answer sets whose classes are known.

First with stand-in checkers that return one result of each class, so the counts and the table are
fixed by the design below; then with the real check_softmax on answers whose feedback is known.
"""
from types import SimpleNamespace

import feedback_report as report
import numpy as np
from learner_answers import Answer

from course_utils.checks import DEFAULT_HINTS, NOT_A_USUAL_MISTAKE, check_softmax


def _answer(name, exercise="fake", expect=(), module="learner_answers.nb01_fake"):
    def fn():
        return None

    fn.__name__ = name
    return Answer(exercise, fn, "other", tuple(expect), "", module)


def _result(status="wrong", mistake=None, hint="", text="Not yet right: ..."):
    return SimpleNamespace(status=status, mistake=mistake, hint=hint, text=text)


# answer name -> (the result its stand-in checker returns, the class the report must give it)
DESIGN = {
    "crashes": (_result(hint=None, text=f"Could not check fake: {report.CRASH} (ValueError)."), "crash"),
    "accepted": (_result(status="correct", text="Correct: all 3 cases passed."), "accepted"),
    "told_other": (_result(mistake="no max shift", hint="Subtract the max."), "misattributed"),
    "told_own": (_result(mistake="wrong axis", hint="Along the last axis."), "mistake"),
    "generic": (_result(hint=f"{NOT_A_USUAL_MISTAKE} Check each step."), "generic"),
    "error": (_result(hint=DEFAULT_HINTS["exception"]), "generic"),
    "in_place": (_result(hint=DEFAULT_HINTS["inplace"]), "invariant"),
    "rows": (_result(hint="Row 2 of the weights sums to 0.5, not 1."), "invariant"),
}


def _fake_set():
    answers = [_answer(name, expect=("wrong axis",)) for name in DESIGN]
    answers.append(_answer("second_notebook", module="learner_answers.nb03_more"))
    by_fn = {a.fn: DESIGN.get(a.fn.__name__, DESIGN["generic"])[0] for a in answers}
    return answers, lambda exercise: by_fn.__getitem__


def test_every_class_is_counted_once_per_answer_and_per_notebook():
    answers, check_for = _fake_set()
    counts, classified = report.measure(answers, check_for)
    assert [kind for _, kind in classified[:-1]] == [kind for _, kind in DESIGN.values()]
    assert dict(counts["01"]) == {"crash": 1, "accepted": 1, "misattributed": 1, "mistake": 1, "generic": 2,
                                  "invariant": 2}
    assert dict(counts["03"]) == {"generic": 1}


def test_table_gives_the_figures_and_the_share_named():
    answers, check_for = _fake_set()
    lines = report.table(report.measure(answers, check_for)[0])
    assert lines[0].split() == ["notebook", "wrong", "accepted", "misattr.", "crashes", "mistake", "invariant",
                                "generic", "named"]
    # 8 answers: 1 named mistake + 2 invariants = 3 named, 38 %; notebook 03: 1 generic answer, 0 %
    assert lines[1].split() == ["01", "8", "1", "1", "1", "1", "2", "2", "38%"]
    assert lines[2].split() == ["03", "1", "0", "0", "0", "0", "0", "1", "0%"]
    assert lines[3].split() == ["total", "9", "1", "1", "1", "1", "2", "3", "33%"]


def test_a_generic_text_after_what_the_answer_breaks_is_not_bare():
    said = "Attention weights sum to 1 over the keys, but its result sums to 0.5."  # checks/_invariants.py
    assert not report.is_generic(f"{said} {DEFAULT_HINTS['values']}")
    assert report.is_generic(f"{DEFAULT_HINTS['values']} (Also: your function calls `cu.softmax`, ...)")


def test_real_checker_answers_are_classified_by_their_feedback():
    def right(x):
        x = np.asarray(x, dtype=float)
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    def no_shift(x):
        e = np.exp(np.asarray(x, dtype=float))
        return e / e.sum(axis=-1, keepdims=True)

    def sigmoid(x):  # its rows do not sum to 1: the hint says so
        return 1 / (1 + np.exp(-np.asarray(x, dtype=float)))

    def doubled_scores(x):  # breaks nothing the checker can name
        return right(2 * np.asarray(x, dtype=float))

    def in_place(x):
        x = np.asarray(x, dtype=float)
        x -= x.max(axis=-1, keepdims=True)
        return np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)

    cases = [(right, (), "accepted"), (no_shift, ("no max shift",), "mistake"), (no_shift, (), "misattributed"),
             (doubled_scores, (), "generic"), (sigmoid, (), "invariant"), (in_place, (), "invariant")]
    for fn, expect, kind in cases:
        answer = Answer("softmax", fn, "other", expect, "", "learner_answers.nb01_fake")
        assert report.classify(check_softmax(fn), answer) == kind, fn.__name__


def test_main_prints_one_row_per_notebook_and_the_total_of_the_answers_chosen(capsys):
    from learner_answers import all_answers

    chosen = [a for a in all_answers() if "nb07_more" in a.module]
    assert report.main(["--only", "nb07_more"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert [row[0] for row in rows] == ["notebook", "07", "total"]
    assert rows[-1][1] == str(len(chosen))
