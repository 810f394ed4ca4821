"""What the exercise checkers tell the wrong answers of tests/learner_answers/, per notebook (issue 24).

    python tools/feedback_report.py              # the course_utils of this checkout
    python tools/feedback_report.py --details    # also every answer that is not named
    python tools/feedback_report.py --only _more # only the answers of modules whose name contains _more

Each wrong answer is run through its checker and counted once, as the first that applies of:

- ``crash``: the checker itself hit an unexpected error (a bug in the course);
- ``accepted``: the checker did not call it wrong (a bug in the checker);
- ``misattributed``: a named mistake that is not in the answer's ``expect``;
- ``mistake``: a named mistake the answer really makes;
- ``generic``: no name, and the hint is the bare generic text (``NOT_A_USUAL_MISTAKE`` or one of
  ``GENERIC_HINTS``, the default hints that say nothing about the answer);
- ``invariant``: no mistake's name, but a specific statement of what is wrong.

"Named" is ``mistake`` + ``invariant``; issue 24 asks for at least 85 % of the wrong answers.
``classify`` holds the rules, so that they are easy to adjust.
"""
import argparse
import os
import sys
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]

from course_utils.checks import CHECKERS, DEFAULT_HINTS, NOT_A_USUAL_MISTAKE  # noqa: E402

CRASH = "the checker itself hit an unexpected error"
CLASSES = ("crash", "accepted", "misattributed", "mistake", "invariant", "generic")
NAMED = ("mistake", "invariant")
# The default hints that say nothing about the answer. The others ("inplace", "none", "not implemented",
# "time") follow a problem with one cause, which the message states.
GENERIC_HINTS = tuple(DEFAULT_HINTS[kind] for kind in ("exception", "structure", "type", "shape", "nonfinite", "values"))


def is_generic(hint):
    """True when a hint is the bare generic text: it names neither a mistake nor what is wrong. (A generic text
    after the statements of what the answer breaks, ``checks/_invariants.py``, is not bare.)"""
    hint = hint or ""
    return not hint or hint.startswith((NOT_A_USUAL_MISTAKE, *GENERIC_HINTS))


def classify(result, answer):
    """The class (one of ``CLASSES``) of a checker's ``result`` for a wrong ``answer``."""
    if CRASH in (result.text or ""):
        return "crash"
    if result.status != "wrong":
        return "accepted"
    if result.mistake is not None:
        return "mistake" if result.mistake in answer.expect else "misattributed"
    return "generic" if is_generic(result.hint) else "invariant"


def notebook(answer):
    """The notebook an answer belongs to, from its module's name (``nb04_more`` -> ``"04"``)."""
    return answer.module.rsplit(".", 1)[-1][2:4]


def measure(answers, check_for=lambda exercise: CHECKERS[exercise].function):
    """({notebook: Counter of classes}, [(answer, class)]) over ``answers``."""
    counts, classified = {}, []
    for answer in answers:
        kind = classify(check_for(answer.exercise)(answer.fn), answer)
        counts.setdefault(notebook(answer), Counter())[kind] += 1
        classified.append((answer, kind))
    return counts, classified


def table(counts):
    """The figures as text lines: one row per notebook, then the total."""
    header = ("notebook", "wrong", "accepted", "misattr.", "crashes", "mistake", "invariant", "generic", "named")
    lines = ["{:<9}{:>6}{:>9}{:>9}{:>8}{:>8}{:>10}{:>8}{:>8}".format(*header)]
    total = Counter()
    for name in sorted(counts) + ["total"]:
        row = total if name == "total" else counts[name]
        total.update({} if name == "total" else row)
        n = sum(row.values())
        share = sum(row[k] for k in NAMED) / n if n else 0.0
        lines.append("{:<9}{:>6}{:>9}{:>9}{:>8}{:>8}{:>10}{:>8}{:>8}".format(
            name, n, row["accepted"], row["misattributed"], row["crash"], row["mistake"], row["invariant"],
            row["generic"], f"{share:.0%}"))
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--details", action="store_true", help="list every answer that is not named")
    parser.add_argument("--only", default="", help="only the answers of modules whose name contains this")
    args = parser.parse_args(argv)
    from learner_answers import all_answers

    counts, classified = measure([a for a in all_answers() if args.only in a.module])
    print("\n".join(table(counts)))
    if args.details:
        for answer, kind in classified:
            if kind not in NAMED:
                print(f"  {kind:<14}{answer.id} ({answer.note})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
