"""Answers that are dicts of choices (the diagnosis exercises), judged against an answer key.

A diagnosis exercise is a function of no arguments returning a dict, e.g.
``{"causal": ["A"], "padding": [], "causal + padding": ["B", "C"]}`` (03) or
``{"P": "future leak", ...}`` (05). ``ChoiceAnswers`` is the ``Comparison`` that ``run_check``
uses for them: it checks that the answer is a dict with exactly the right keys and readable
values, says which entries are right without revealing the others, points to where to look for
each wrong one, and, once all are right, explains every entry. The answer key lives inside the
checker (the reference function returns it), never in the notebook's namespace.
"""
from course_utils.checks._catalogue import own_texts
from course_utils.checks._compare import Comparison, Problem
from course_utils.checks._format import describe, field, fmt_value
from course_utils.checks._result import CORRECT, CheckResult

__all__ = ["ChoiceAnswers"]

#: What to return, for an answer that is not a dict of readable choices (hints.toml).
_TEXTS = own_texts("dicts of choices")


class ChoiceAnswers(Comparison):
    """Judge a dict answer entry by entry.

    keys : the keys (str) the dict must have, in order.
    entry : what a key stands for ("situation", "plot").
    example : a one-line example of a valid return statement (in backticks), shown in hints.
    read_key : optional, ``read_key(key) -> key``: normalises the learner's keys (e.g. "p" -> "P").
    read_value : ``read_value(value) -> normalised value or None`` (None: unreadable).
    show : ``show(normalised value) -> str``: how an answer is echoed ("you named A, C").
    valid : what a valid value is, for the hint when one is unreadable.
    look : ``look(key, normalised value, right value) -> str``: where to look when an entry is wrong;
        or a list of (label, text) pairs, one hint line each.
    why : ``why(key) -> str``: the explanation of an entry, shown once everything is right; or a
        list of (label, text) pairs, one report line each.
    rule : optional, a sentence put before the looks in the hint.
    key_word : what an unexpected key is called in messages ("key", "label").
    """

    def __init__(self, *, keys, entry, example, read_value, show, valid, look, why,
                 read_key=None, rule="", key_word="key"):
        super().__init__()
        self.keys, self.entry, self.example = list(keys), entry, example
        self.read_key = read_key or (lambda k: k)
        self.read_value, self.show, self.valid = read_value, show, valid
        self.look, self.why, self.rule, self.key_word = look, why, rule, key_word

    # ------------------------------------------------------------------ reading the answer
    def _read(self, got, name=None):
        """({key: normalised value}, problem) of an answer; problem None when it is readable (``name``: the
        exercise's, for the problem's text)."""
        if not isinstance(got, dict):
            return None, Problem("type", f"{name} should return a dict, but it returned {describe(got)}.")
        answers = {self.read_key(k): v for k, v in got.items()}
        missing = [k for k in self.keys if k not in answers]
        unknown = [k for k in answers if k not in self.keys]
        if missing or unknown:
            parts = [text for text, found in ((f"missing {self.entry}(s) {missing}", missing),
                                              (f"unknown {self.key_word}(s) {unknown}", unknown)) if found]
            return None, Problem("structure", f"the dict has {' and '.join(parts)}; its keys must be {self.keys}.")
        read = {}
        for key in self.keys:
            value = self.read_value(answers[key])
            if value is None:
                return None, Problem(
                    "type", f"for {key!r} you returned {fmt_value(answers[key])}, which is not {self.valid}.")
            read[key] = value
        return read, None

    def problem(self, got, expected, *, name, output_names=None):
        if got is None:
            return Problem("none", f"{name} returned None.")
        read, problem = self._read(got, name)
        if problem is not None:
            return problem
        right = sum(read[k] == expected[k] for k in self.keys)
        if right == len(self.keys):
            return None
        return Problem("values", f"{right} of {len(self.keys)} {self.entry}s right.")

    def same(self, got, reproduced):
        read, problem = self._read(got)
        return problem is None and read == reproduced

    def details(self, got, expected, output_names=None):
        read, problem = self._read(got) if got is not None else (None, True)
        if problem is not None:
            return []
        return [field(k, f"{self.show(read[k])}: {'right' if read[k] == expected[k] else 'not yet right'}")
                for k in self.keys]

    def fmt_inputs(self, arg_names, args):
        return ""

    # ------------------------------------------------------------------ hints and the pass
    def hint(self, kind, got, expected, args):
        if kind in ("none", "type", "structure"):
            which = "not a dict" if kind == "type" and not isinstance(got, dict) else kind
            return _TEXTS[which].format(entry=self.entry, example=self.example, valid=self.valid)
        if kind == "values":
            read, _ = self._read(got)
            looks = []
            for k in self.keys:
                if read[k] != expected[k]:
                    look = self.look(k, read[k], expected[k])
                    looks += [f"{k}: {look}"] if isinstance(look, str) else [f"{lab}: {text}" for lab, text in look]
            return "\n".join(([self.rule] if self.rule else []) + looks)
        return None

    def correct_text(self, total, values):
        lines = [f"Correct: all {len(self.keys)} {self.entry}s right."]
        for k in self.keys:
            why = self.why(k)
            lines += [field(k, why)] if isinstance(why, str) else [field(label, text) for label, text in why]
        return CheckResult(CORRECT, "\n".join(lines), passed=total, total=total)
