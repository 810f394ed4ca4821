"""Faded worked examples (issue 27): the check under each faded step of notebooks 02-04.

A faded worked example gives a computation's steps, each under its label (``# score``, ``# scale``, ``# mask``,
``# normalise``, ``# mix values``, ``# split heads``, ``# merge heads``, ``# project``): first all of them worked, then
on a new input with the last step left to the learner, then the last two, before the exercise that asks for all of
it. Each faded step is a small function the learner completes; :func:`check_steps` runs it on the new input and
compares it with the course's reference, computed in the check cell itself (tests/test_faded_examples.py). A wrong
step is named as the exercise the example fades names it: the exercise's known mistakes, recognised on the step's
input (``_EXERCISE_ARGS`` makes the exercise's arguments from the step's).
"""
import inspect

import numpy as np

from course_utils.checks import Case, KnownMistake, run_check
from course_utils.checks._own_answers import own_answers
from course_utils.checks.heads import MULTI_HEAD_ATTENTION_MISTAKES
from course_utils.checks.masks import MASKED_ATTENTION_MISTAKES
from course_utils.checks.qkv import SELF_ATTENTION_MISTAKES

#: By exercise: its known mistakes, and the exercise's arguments made from a faded step's (``given``: what the step
#: takes from the notebook). 02's steps (q, k, v) are self_attention's on x = the identity (T, T) with the
#: projections q, k and v (x @ w_q is q), and masked attention with every key permitted.
_EXERCISE_ARGS = {
    "self_attention": ((SELF_ATTENTION_MISTAKES, lambda given, q, k, v: (np.eye(q.shape[-2]), q, k, v)),
                       (MASKED_ATTENTION_MISTAKES,
                        lambda given, q, k, v: (q, k, v, np.ones((q.shape[-2], k.shape[-2]), dtype=bool)))),
    "masked_attention": ((MASKED_ATTENTION_MISTAKES, lambda given, q, k, v, mask: (q, k, v, mask)),),
    "multi_head_attention": ((MULTI_HEAD_ATTENTION_MISTAKES, lambda given, x, num_heads: (x, *given, num_heads)),),
}


_FAILED = object()  # what a buggy version that raised gives: equal to no answer


def _step_mistakes(exercise, given):
    """The exercise's known mistakes that its reproduce functions recognise, called on the exercise's arguments made
    from the step's, recognised by their outputs only (error predicates and rules, written for the exercise's own
    inputs and lines, are left out)."""
    def on_step(function, exercise_args):
        return lambda *args: function(*exercise_args(given, *args))

    def reproduced(buggy, exercise_args):
        """A buggy version that fails explains nothing here: a step's error comes from another line than the
        exercise's (02's `v @ weights` was once named as the projections' order)."""
        def run(*args):
            try:
                return buggy(*exercise_args(given, *args))
            except Exception:
                return _FAILED
        return run

    named = {}  # one mistake per name: the first list's
    for mistakes, exercise_args in _EXERCISE_ARGS.get(exercise, ()):
        for m in mistakes:
            if m.reproduce and m.name not in named:
                named[m.name] = KnownMistake(
                    m.name, on_step(m.hint, exercise_args) if callable(m.hint) else m.hint,
                    reproduce=tuple(reproduced(buggy, exercise_args) for buggy in m.reproduce))
    return tuple(named.values())


def check_steps(steps, args, expected, *, left, exercise, given=(), output_names=("output", "weights")):
    """Whether the learner's ``steps`` give ``expected`` on the new input ``args``: not attempted, wrong or correct.

    Parameters
    ----------
    steps : callable
        The learner's function: the given steps, then the ones left to fill in.
    args : tuple
        Its arguments: the new input.
    expected : object
        What the course's reference gives on ``args`` (``cu.scaled_dot_product_attention(...)``, ...).
    left : tuple of str
        The labels of the steps left to the learner, as the cell shows them (``("normalise", "mix values")``).
    exercise : str
        The exercise whose computation the example fades (``"self_attention"``): a step that calls the course's own
        function for it (``cu.scaled_dot_product_attention``) is not called correct, as in that exercise; a wrong
        step is named with that exercise's known mistakes.
    given : tuple
        What the steps take from the notebook besides ``args`` (04: ``(W_Q, W_K, W_V, W_O)``), for those mistakes.
    output_names : tuple of str
        The names of the items ``steps`` returns.

    Returns
    -------
    CheckResult
        Prints as text; shows as a coloured box in Jupyter.
    """
    model = ("Compare your line with the same step, under the same label, of the fully worked computation above "
             "(the notebook's text names its cell), and open the hint below this cell: it says what the step does.")
    result = run_check(steps, name=getattr(steps, "__name__", "your function"), reference=lambda *_: expected,
                       cases=[Case("the new input", tuple(args))], output_names=output_names,
                       arg_names=tuple(inspect.signature(steps).parameters) if callable(steps) else (),
                       known_mistakes=_step_mistakes(exercise, tuple(given)), hints={"values": model, "shape": model},
                       forbidden=own_answers(exercise))
    named = " and ".join(f"`{label}`" for label in left)
    if result.status == "correct":
        result.message = (f"Correct: your step{'s' * (len(left) > 1)} {named} give{'s' * (len(left) == 1)} the course's "
                          "numbers on the new input.")
    else:
        result.message = f"{result.message}\nthe step{'s' * (len(left) > 1)} left for you: {named}"
    result.show()  # a check cell's report, shown even when it is not the cell's last line
    return result
