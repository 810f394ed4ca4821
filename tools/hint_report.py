"""Hint precision and recall of the exercise checkers, measured on the learner answers in tests/.

    python tools/hint_report.py                 # the course_utils of this checkout
    PYTHONPATH=/path/to/other/checkout python tools/hint_report.py --label before

Runs every wrong answer of tests/learner_answers/ through its checker and prints, per exercise:
the number of known mistakes; the precision set ("other" answers, not among the known mistakes):
how many got the generic hint, a mistake a maintainer accepted (``expect``), or ANOTHER mistake's
name (a wrong hint); the recall set (variants of known mistakes): how many were named right; and,
over all wrong answers, the named-hint rate (share of answers whose hint names a mistake).

Against an older course_utils whose results carry no ``mistake`` attribute, the named mistake is
read from the hint text: the known mistake whose (string) hint the hint starts with; a hint that is
none of the exercise's generic hints but matches no string hint counts as named, name unknown. The
exercises without a mistake table (their hints are worked out from the answer itself) name none.
"""
import argparse
import importlib
import os
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from learner_answers import all_answers  # noqa: E402

# Checkers from before the registry (course_utils.checks.CHECKERS): exercise -> (module, table or None).
_OLD_CHECKERS = {
    "softmax": ("nb01", "SOFTMAX_MISTAKES"), "attention_row": ("nb01", "ATTENTION_ROW_MISTAKES"),
    "scores_for_third_value": ("nb01", "SCORES_FOR_THIRD_VALUE_MISTAKES"), "shapes": ("nb02", None),
    "project": ("nb02", "PROJECT_MISTAKES"), "scaled_scores": ("nb02", "SCALED_SCORES_MISTAKES"),
    "self_attention": ("nb02", "SELF_ATTENTION_MISTAKES"), "causal_mask": ("nb03", "CAUSAL_MASK_MISTAKES"),
    "padding_mask": ("nb03", "PADDING_MASK_MISTAKES"), "masked_attention": ("nb03", "MASKED_ATTENTION_MISTAKES"),
    "buggy_masks": ("nb03", None), "split_heads": ("nb04", "SPLIT_HEADS_MISTAKES"),
    "merge_heads": ("nb04", "MERGE_HEADS_MISTAKES"),
    "multi_head_attention": ("nb04", "MULTI_HEAD_ATTENTION_MISTAKES"), "plot_diagnoses": ("nb05", None),
    "contributions": ("nb05", "CONTRIBUTIONS_MISTAKES"), "removal_effects": ("nb05", "REMOVAL_EFFECTS_MISTAKES"),
    "capstone_layer": ("nb05", "CAPSTONE_MISTAKES"), "softmax_backward": ("nb06", "SOFTMAX_BACKWARD_MISTAKES"),
    "grad_scores": ("nb06", "GRAD_SCORES_MISTAKES"), "online_update": ("nb07", "ONLINE_UPDATE_MISTAKES"),
}


def _registry():
    """{exercise: (check function, mistakes, module, has a table)} of the course_utils imported."""
    checks = importlib.import_module("course_utils.checks")
    if hasattr(checks, "CHECKERS"):
        return {name: (e.function, e.mistakes, importlib.import_module(e.module), bool(e.mistakes))
                for name, e in checks.CHECKERS.items()}
    out = {}
    for name, (module_name, table) in _OLD_CHECKERS.items():
        module = importlib.import_module(f"course_utils.checks.{module_name}")
        out[name] = (getattr(module, f"check_{name}"), tuple(getattr(module, table, ())) if table else (),
                     module, table is not None)
    return out


REGISTRY = _registry()
EXERCISES = tuple(REGISTRY)


def checker_and_mistakes(exercise):
    return REGISTRY[exercise][:2]

UNKNOWN = "?"


# To read older results: the openings of hints that are computed (not plain strings), by exercise.
# Before it had a mistake table, the prediction exercise of notebook 01 chose its hint by the same
# rules; split_heads and merge_heads computed their "only for one sequence" hint from the case.
_COMPUTED_HINTS = {
    "scores_for_third_value": {
        "Equal scores give equal weights": "equal scores",
        "The largest score is not the third one": "third not largest",
        "The third score ties with another one": "tie for largest",
        "The third score is the largest, but": "gap too small",
    },
    "split_heads": {
        "Your function works for one sequence": "only for one sequence",
        "A reshape keeps the number of entries": "only for one sequence",
    },
    "merge_heads": {
        "Your function works for one sequence": "only for one sequence",
        "Check the order of the axes before the reshape": "only for one sequence",
    },
}
# The remark on a mask whose only fault is its dtype, computed from the answer (not a named mistake).
DTYPE_REMARK = "pattern is right, but the dtype is"


def named_mistake(result, mistakes, exercise):
    """The name of the mistake a result's hint names, None for a generic hint, UNKNOWN if unreadable."""
    if hasattr(result, "mistake"):
        return result.mistake
    if not REGISTRY[exercise][3]:  # no mistake table: its hints are worked out from the answer
        return None
    hint = result.hint or ""
    for opening, name in _COMPUTED_HINTS.get(exercise, {}).items():
        if hint.startswith(opening):
            return name
    if exercise == "scores_for_third_value" or DTYPE_REMARK in result.message or "Your mask has the right pattern" in hint:
        return None  # a format problem of the prediction, or a mask's dtype: worked out from the answer
    for m in mistakes:
        if isinstance(m.hint, str) and hint.startswith(m.hint):
            return m.name
    generic = set(_generic_hints(exercise))
    if not hint or hint in generic or any(hint.startswith(g) for g in generic if g):
        return None
    return UNKNOWN


def _generic_hints(exercise):
    module = REGISTRY[exercise][2]
    framework = importlib.import_module("course_utils.checks._framework")
    hints = list(framework.DEFAULT_HINTS.values())
    for name in dir(module):
        value = getattr(module, name)
        if name.endswith("HINTS") and isinstance(value, dict):
            hints += [v for v in value.values() if isinstance(v, str)]
    return hints


def measure():
    """{exercise: counts} and the list of wrong-name findings."""
    counts = defaultdict(lambda: defaultdict(int))
    findings = []
    for answer in all_answers():
        check, mistakes = checker_and_mistakes(answer.exercise)
        row = counts[answer.exercise]
        row["known"] = len(mistakes)
        result = check(answer.fn)
        if result.status != "wrong":
            row["not called wrong"] += 1
            findings.append((answer, f"status {result.status}"))
            continue
        named = named_mistake(result, mistakes, answer.exercise)
        if answer.expect == ("dtype",) and DTYPE_REMARK in result.message:
            named = "dtype"  # a mask whose only fault is its dtype: the dtype remark is its specific hint
        row["answers"] += 1
        row["named"] += named is not None
        if answer.kind == "other":
            row["other"] += 1
            if named is None:
                row["other generic"] += 1
            elif named in answer.expect:
                row["other accepted name"] += 1
            else:
                row["other wrong name"] += 1
                findings.append((answer, f"told {named!r}"))
        else:
            row["variants"] += 1
            if named == answer.expect[0]:
                row["variants named"] += 1
            else:
                findings.append((answer, f"expected {answer.expect[0]!r}, told {named!r}"))
    return counts, findings


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", default="this checkout", help="a name for the course_utils measured")
    parser.add_argument("--findings", action="store_true", help="list every wrong name and missed variant")
    args = parser.parse_args(argv)
    import course_utils

    counts, findings = measure()
    print(f"Hint report ({args.label}: {os.path.dirname(course_utils.__file__)})")
    header = ("exercise", "known", "other", "generic", "accepted", "WRONG", "variants", "named")
    print("{:<24}{:>6}{:>7}{:>9}{:>10}{:>7}{:>10}{:>7}".format(*header))
    total = defaultdict(int)
    for exercise in EXERCISES:
        row = counts.get(exercise, {})
        values = (row.get("known", 0), row.get("other", 0), row.get("other generic", 0),
                  row.get("other accepted name", 0), row.get("other wrong name", 0),
                  row.get("variants", 0), row.get("variants named", 0))
        print("{:<24}{:>6}{:>7}{:>9}{:>10}{:>7}{:>10}{:>7}".format(exercise, *values))
        for key in ("answers", "named", "other", "other generic", "other accepted name", "other wrong name",
                    "variants", "variants named", "not called wrong"):
            total[key] += row.get(key, 0)
    rate = total["named"] / total["answers"] if total["answers"] else 0.0
    print(f"wrong answers tried: {total['answers']} ({total['other']} other, {total['variants']} variants); "
          f"not called wrong: {total['not called wrong']}")
    print(f"named-hint rate: {total['named']}/{total['answers']} = {rate:.1%}")
    print(f"precision: {total['other wrong name']} of {total['other']} other answers told another mistake's name")
    print(f"recall: {total['variants named']} of {total['variants']} variants named right")
    if args.findings:
        for answer, what in findings:
            print(f"  {answer.id}: {what} ({answer.note})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
