"""Faded worked examples (issue 27): the check under each faded step of notebooks 02-04.

A faded worked example gives a computation's steps, each under its label (``# score``, ``# scale``, ``# mask``,
``# normalise``, ``# mix values``, ``# split heads``, ``# merge heads``, ``# project``): first all of them worked, then
on a new input with the last step left to the learner, then the last two, before the exercise that asks for all of
it. Each faded step is a small function the learner completes; :func:`check_steps` runs it on the new input and
compares it with the course's reference, computed in the check cell itself (tests/test_faded_examples.py).
"""
import inspect

from course_utils.checks import Case, run_check
from course_utils.checks._own_answers import own_answers


def check_steps(steps, args, expected, *, left, exercise, output_names=("output", "weights")):
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
        function for it (``cu.scaled_dot_product_attention``) is not called correct, as in that exercise.
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
                       hints={"values": model, "shape": model}, forbidden=own_answers(exercise))
    named = " and ".join(f"`{label}`" for label in left)
    if result.status == "correct":
        result.message = (f"Correct: your step{'s' * (len(left) > 1)} {named} give{'s' * (len(left) == 1)} the course's "
                          "numbers on the new input.")
    else:
        result.message = f"{result.message}\nthe step{'s' * (len(left) > 1)} left for you: {named}"
    result.show()  # a check cell's report, shown even when it is not the cell's last line
    return result
