"""How many wrong answers get only the generic hint, per notebook, on the answers in tests/learner_answers/.

    python tools/generic_hint_report.py            # the "other" answers (not among the known mistakes)
    python tools/generic_hint_report.py --all      # every wrong answer, variants of known mistakes too
    python tools/generic_hint_report.py --list     # and the answers left with the generic hint

Each wrong answer's hint is put in one of four classes, read where the runner picks it (``_Run._hint``):
``named`` (a known mistake), ``computed`` (worked out from the answer by the comparison), ``invariant``
(statements about the answer before the generic hint, see ``_invariants``), ``format`` (the generic hint of a
wrong format: None returned, another type or structure, an input changed in place, out of time: it names the one
fix) or ``generic`` (the generic hint of wrong values, shape, nan/inf or an error, alone or after "Not one of the
usual mistakes"). Works on older checkouts too (no
invariants there).
"""
import argparse
import os
import sys
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from learner_answers import all_answers  # noqa: E402

import course_utils.checks._framework as _framework  # noqa: E402  (its runner is watched: _Run._hint)
from course_utils.checks import CHECKERS  # noqa: E402

CLASSES = ("named", "computed", "invariant", "format", "generic")
# Kinds whose generic hint names the one fix of a wrong format (no value, another type, in place, too slow).
FORMAT_KINDS = ("none", "structure", "type", "inplace", "time", "not implemented")


def _classify(run, reported, hint, mistake):
    """The class of one hint (see the module docstring)."""
    if mistake is not None:
        return "named"
    kind, call = reported.problem.kind, reported.call
    generic = run.hints.get(kind) or _framework.DEFAULT_HINTS["values"]
    if callable(generic):
        generic = generic(call.value, reported.case.args)
    extra = run.compare.extra_hint(kind, call.value) if call.error is None and call.ran else ""
    if not hint.endswith(generic + extra):
        return "computed"
    opening = hint[: len(hint) - len(generic + extra)].strip()
    if opening not in ("", _framework.NOT_A_USUAL_MISTAKE):
        return "invariant"
    return "format" if kind in FORMAT_KINDS else "generic"


def measure(kinds=("other",)):
    """{notebook: Counter of classes}, and the answers left with the generic hint."""
    seen = {}
    original = _framework._Run._hint

    def hint(self, reported, outcomes):
        text, mistake = original(self, reported, outcomes)
        seen["class"] = _classify(self, reported, text, mistake)
        return text, mistake

    counts, generic = defaultdict(Counter), []
    _framework._Run._hint = hint
    try:
        for answer in all_answers():
            if answer.kind not in kinds:
                continue
            seen.clear()
            result = CHECKERS[answer.exercise].function(answer.fn)
            notebook = answer.module.rpartition(".")[2][:4]
            what = seen.get("class", "generic") if result.status == "wrong" else f"status {result.status}"
            counts[notebook][what] += 1
            if what == "generic":
                generic.append((answer, result.message.splitlines()[-1]))
    finally:
        _framework._Run._hint = original
    return counts, generic


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="variants of known mistakes too")
    parser.add_argument("--list", action="store_true", help="list the answers left with the generic hint")
    args = parser.parse_args(argv)
    counts, generic = measure(("other", "variant") if args.all else ("other",))
    print("{:<8}{:>8}".format("notebook", "answers") + "".join(f"{c:>11}" for c in CLASSES) + f"{'specific':>11}")
    total = Counter()
    for notebook in sorted(counts):
        row = counts[notebook]
        total.update(row)
        n = sum(row.values())
        print(f"{notebook:<8}{n:>8}" + "".join(f"{row[c]:>11}" for c in CLASSES)
              + f"{(n - row['generic']) / n:>11.0%}")
    n = sum(total.values())
    print(f"{'all':<8}{n:>8}" + "".join(f"{total[c]:>11}" for c in CLASSES) + f"{(n - total['generic']) / n:>11.0%}")
    others = sorted(k for k in total if k not in CLASSES)
    if others:
        print("not called wrong:", {k: total[k] for k in others})
    if args.list:
        for answer, last in generic:
            print(f"  {answer.id}: {answer.note} | {last}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
