"""The faded worked examples of 02-04 (issue 27): worked, then the last step left, then the last two, then the exercise.

How the cells are found (the convention the notebooks follow):

- three code cells carry a cell tag: ``faded-worked`` (every step given), ``faded-last-1`` (the last step left to the
  learner) and ``faded-last-2`` (the last two), in that order, before the exercise that asks for the whole computation
  (``FULL_EXERCISE``). The worked one may be a cell the notebook already had (02's section 2, 04's section 4).
- a step is a comment line of its own that is exactly its label (``# score``); the labels are those of ``LABELS``, in its
  order, and the three cells of a notebook have the same ones. Other comments stand at the end of a code line.
- a faded cell defines the learner's function; the cell right after it checks it with ``check_steps(..., left=(...))``
  (course_utils/lessons/faded.py), naming the steps left; nothing else uses that function.

The cells are also run here, with stand-in matrices: solved, the check says correct; learner, not attempted; with a
wrong line a learner writes in a step left, wrong, naming the step.
"""
from __future__ import annotations

import ast
import re

import course_notebooks as course
import nbformat
import numpy as np
import pytest

import course_utils as cu
from course_utils.lessons.data import embed, embed_wide, random_projections
from course_utils.lessons.faded import check_steps

#: Every step label, in the order the steps come in any of the computations.
LABELS = ("split heads", "score", "scale", "mask", "normalise", "mix values", "merge heads", "project")
CORE = ("score", "scale", "normalise", "mix values")
TAGS = ("faded-worked", "faded-last-1", "faded-last-2")
#: The exercise asking for the whole computation, by notebook.
FULL_EXERCISE = {"02-queries-keys-values": "my_self_attention", "03-masks": "my_masked_attention",
                 "04-multi-head-attention": "my_multi_head_attention"}
PLACEHOLDER = "# YOUR CODE HERE"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
#: A wrong line a learner writes for each step (mixing the raw scores, no softmax, the reshape without the transpose,
#: W_O forgotten).
WRONG_LINE = {"mix values": "output = scores @ v", "normalise": "weights = np.exp(scores)",
              "merge heads": "merged = heads.reshape(B, T, d_model)", "project": "output = merged"}

STEMS = list(FULL_EXERCISE)
SOLVED = {stem: course.SOLUTIONS / f"{stem}.ipynb" for stem in STEMS}
LEARNER = {stem: course.LEARNER / f"{stem}.ipynb" for stem in STEMS}
_LABEL_LINE = re.compile(r"^\s*# ([a-z][a-z ]*)$")


def read(path):
    return nbformat.read(path, as_version=4)


def faded(nb) -> dict:
    """Tag -> (index, cell) of the notebook's faded cells."""
    found = {}
    for index, cell in enumerate(nb.cells):
        for tag in cell.metadata.get("tags", []):
            if tag in TAGS:
                assert tag not in found, f"two cells tagged {tag}"
                found[tag] = (index, cell)
    return found


def labels(source: str) -> list[str]:
    """The step labels of a cell: its comment lines of their own, lowercase words (``# YOUR CODE HERE`` is none)."""
    return [m.group(1) for line in source.splitlines() if (m := _LABEL_LINE.match(line))]


def blanked(source: str) -> list[str]:
    """The labels whose step is the placeholder (the line after the label is ``# YOUR CODE HERE``)."""
    lines = [line.strip() for line in source.splitlines()]
    return [m.group(1) for line, after in zip(lines, lines[1:] + [""]) if (m := _LABEL_LINE.match(line))
            and after in (PLACEHOLDER, BEGIN)]


def check_call(cell) -> ast.Call:
    calls = [n for n in ast.walk(ast.parse(cell.source)) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Name) and n.func.id == "check_steps"]
    assert len(calls) == 1, f"cell {cell.get('id')}: one check_steps(...) call, not {len(calls)}"
    return calls[0]


def left_of(call: ast.Call) -> tuple:
    return next(ast.literal_eval(k.value) for k in call.keywords if k.arg == "left")


both = pytest.mark.parametrize("path", [*SOLVED.values(), *LEARNER.values()], ids=course.name)
solved = pytest.mark.parametrize("stem", STEMS)


@both
def test_worked_then_last_step_then_last_two_come_before_the_full_exercise(path):
    nb = read(path)
    cells = faded(nb)
    assert set(cells) == set(TAGS), f"{path.name}: faded cells tagged {sorted(cells)}, not {list(TAGS)}"
    full = next(i for i, c in enumerate(nb.cells)
                if c.cell_type == "code" and f"def {FULL_EXERCISE[path.stem]}(" in c.source)
    order = [cells[tag][0] for tag in TAGS]
    assert order == sorted(order) and order[-1] < full, (
        f"{path.name}: worked, last step, last two at cells {order}; the full exercise at {full}")
    for tag in TAGS:
        assert cells[tag][1].cell_type == "code"


@solved
def test_the_steps_have_the_same_labels_in_the_same_order_in_each_cell(stem):
    for path in (SOLVED[stem], LEARNER[stem]):
        found = [labels(cell.source) for _, cell in faded(read(path)).values()]
        steps = found[0]
        assert all(f == steps for f in found), f"{path.name}: the faded cells label different steps: {found}"
        unknown = [s for s in steps if s not in LABELS]
        assert not unknown, f"{path.name}: {unknown} are no step labels of {LABELS} (another comment on a line of its own?)"
        assert steps == sorted(steps, key=LABELS.index) and len(set(steps)) == len(steps), (
            f"{path.name}: the steps {steps} are not in the order of {LABELS}")
        assert set(CORE) <= set(steps), f"{path.name}: {steps} lacks some of {CORE}"


def test_the_notebooks_label_their_common_steps_alike():
    """02's steps are 03's without the mask, and 04's add the heads around them: the same words, the same order."""
    steps = {stem: labels(faded(read(SOLVED[stem]))["faded-worked"][1].source) for stem in STEMS}
    assert steps["02-queries-keys-values"] == list(CORE)
    assert steps["03-masks"] == ["score", "scale", "mask", "normalise", "mix values"]
    assert steps["04-multi-head-attention"] == ["split heads", *CORE, "merge heads", "project"]


@solved
def test_the_learner_blanks_are_exactly_the_last_one_and_the_last_two_steps(stem):
    learner, solution = faded(read(LEARNER[stem])), faded(read(SOLVED[stem]))
    steps = labels(solution["faded-worked"][1].source)
    for tag, left in zip(TAGS, (0, 1, 2)):
        expected = steps[len(steps) - left:] if left else []
        assert blanked(learner[tag][1].source) == expected, (
            f"{stem} {tag}: the learner fills in {blanked(learner[tag][1].source)}, not {expected}")
        assert blanked(solution[tag][1].source) == expected, f"{stem} {tag}: the solution regions are not those steps"
        assert learner[tag][1].source.count(PLACEHOLDER) == left, f"{stem} {tag}: {left} placeholders expected"


@solved
def test_each_faded_cell_is_checked_right_after_and_its_function_used_nowhere_else(stem):
    for path in (SOLVED[stem], LEARNER[stem]):
        nb = read(path)
        cells = faded(nb)
        steps = labels(cells["faded-worked"][1].source)
        for tag, left in (("faded-last-1", 1), ("faded-last-2", 2)):
            index, cell = cells[tag]
            check = nb.cells[index + 1]
            call = check_call(check)
            assert left_of(call) == tuple(steps[-left:]), f"{path.name} {check.get('id')}: left= names other steps"
            functions = [n.name for n in ast.parse(cell.source).body if isinstance(n, ast.FunctionDef)]
            assert len(functions) == 1 and ast.unparse(call.args[0]) == functions[0], (
                f"{path.name} {check.get('id')}: it does not check {functions}")
            users = [c.get("id") for n, c in enumerate(nb.cells) if n not in (index, index + 1)
                     and c.cell_type == "code" and re.search(rf"\b{functions[0]}\b", c.source)]
            assert not users, f"{path.name}: {users} use the learner's {functions[0]}: a skipped step would break them"


@solved
def test_the_solved_checks_stored_correct_naming_the_steps(stem):
    nb = read(SOLVED[stem])
    cells = faded(nb)
    for tag in ("faded-last-1", "faded-last-2"):
        check = nb.cells[cells[tag][0] + 1]
        text = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in check.outputs)
        assert text.startswith("Correct"), f"{stem} {check.get('id')}: {text[:200]}"
        assert all(f"`{label}`" in text for label in left_of(check_call(check))), text


# ------------------------------------------------------------------------------------------- the cells, run

def stand_ins(stem: str) -> dict:
    """What a faded cell uses from its notebook: numpy, the course, the embeddings and (random) projections."""
    rng = np.random.default_rng(5)
    sizes = {"02-queries-keys-values": (3, 3, 2), "03-masks": (4, 4, 4)}
    namespace = {"np": np, "cu": cu, "embed": embed, "embed_wide": embed_wide, "check_steps": check_steps}
    if stem in sizes:
        d_q, d_k, d_v = sizes[stem]
        namespace.update(W_Q=rng.normal(size=(4, d_q)), W_K=rng.normal(size=(4, d_k)), W_V=rng.normal(size=(4, d_v)))
    else:
        namespace.update(zip(("W_Q", "W_K", "W_V", "W_O"), random_projections()))
    return namespace


def run_faded(nb, stem, edit=lambda tag, source: source):
    """The CheckResult of each faded cell's check, the cells run in order (each source through ``edit`` first)."""
    namespace, results = stand_ins(stem), {}
    cells = faded(nb)
    for tag in ("faded-last-1", "faded-last-2"):
        index, cell = cells[tag]
        exec(compile(edit(tag, cell.source), f"<{cell.get('id')}>", "exec"), namespace)
        results[tag] = eval(compile(ast.Expression(check_call(nb.cells[index + 1])), "<check>", "eval"), namespace)
    return results


@solved
def test_the_solved_steps_check_as_right_and_the_learners_blanks_as_not_attempted(stem):
    for tag, result in run_faded(read(SOLVED[stem]), stem).items():
        assert result.status == "correct", f"{stem} {tag}: {result.text}"
    for tag, result in run_faded(read(LEARNER[stem]), stem).items():
        assert result.status == "not attempted", f"{stem} {tag}: {result.text}"
        assert result.message.endswith(" left for you: " + " and ".join(f"`{s}`" for s in left_of_tag(stem, tag))), result.text


def left_of_tag(stem: str, tag: str) -> tuple:
    nb = read(SOLVED[stem])
    return left_of(check_call(nb.cells[faded(nb)[tag][0] + 1]))


def wrong_in(label: str, source: str, wrong: str | None = None) -> str:
    """``source`` with the solution of step ``label`` replaced by the wrong line a learner writes (``wrong``, by
    default ``WRONG_LINE[label]``)."""
    lines, out, inside = source.splitlines(), [], None
    for line, before in zip(lines, [""] + lines):
        if line.strip() == BEGIN:
            inside = _LABEL_LINE.match(before).group(1)
            if inside == label:
                out.append(line[: len(line) - len(line.lstrip())] + (wrong or WRONG_LINE[label]))
        elif line.strip() == END:
            inside = None
        elif inside is None or inside != label:
            out.append(line)
    return "\n".join(out)


@solved
def test_a_wrong_step_is_reported_wrong_with_the_step_named(stem):
    nb = read(SOLVED[stem])
    steps = labels(faded(nb)["faded-worked"][1].source)
    for label in steps[-2:]:
        results = run_faded(nb, stem, lambda tag, source, label=label: wrong_in(label, source))
        for tag in ("faded-last-1", "faded-last-2") if label == steps[-1] else ("faded-last-2",):
            result = results[tag]
            assert result.status == "wrong", f"{stem} {tag}, wrong {label}: {result.text}"
            assert f"`{label}`" in result.message and "Correct" not in result.text, result.text


#: The course's function that does each faded computation in one call: a faded step written as that call.
SHORTCUT = {"02-queries-keys-values": "output, weights = cu.scaled_dot_product_attention(q, k, v)",
            "03-masks": "output, weights = cu.scaled_dot_product_attention(q, k, v, mask)",
            "04-multi-head-attention": "output, weights = cu.multi_head_attention(x, W_Q, W_K, W_V, W_O, num_heads)"}


@solved
def test_a_step_that_calls_the_course_function_for_the_whole_computation_is_not_correct(stem):
    """As in the exercise it fades: the right numbers from cu.scaled_dot_product_attention (02, 03) or
    cu.multi_head_attention (04) in place of the last step are not called correct."""
    nb = read(SOLVED[stem])
    last = labels(faded(nb)["faded-worked"][1].source)[-1]
    result = run_faded(nb, stem, lambda tag, source: wrong_in(last, source, SHORTCUT[stem]))["faded-last-1"]
    assert result.status != "correct", f"{stem}: {result.text}"
    assert SHORTCUT[stem].split("= ")[1].split("(")[0] in result.text, result.text


#: Wrong steps learners wrote in a trial (02-04), and the known mistake of the faded exercise each one is (the step's
#: check names it as that exercise's checker does; it once said only "Compare your line ..." for every one).
NAMED_WRONG_STEP = {
    "02-queries-keys-values": [("normalise", "weights = cu.softmax(scores, axis=0)", "softmax over the wrong axis"),
                               ("mix values", "output = weights.T @ v", "output product order"),
                               ("mix values", "output = v @ weights", None)],  # an error: not the projections' order
    "03-masks": [("normalise", "weights = cu.softmax(scores, axis=0)", "softmax over the wrong axis"),
                 ("normalise", "weights = np.exp(scores) / np.exp(scores).sum()", "softmax over the whole array")],
    "04-multi-head-attention": [("project", "output = merged", "no output projection"),
                                ("merge heads", "merged = heads.reshape(B, T, d_model)", "merge without the transpose")],
}


@solved
def test_a_wrong_step_a_learner_writes_is_named_as_the_exercise_names_it(stem):
    nb = read(SOLVED[stem])
    for label, wrong, mistake in NAMED_WRONG_STEP[stem]:
        result = run_faded(nb, stem, lambda tag, source, label=label, wrong=wrong: wrong_in(label, source, wrong))["faded-last-2"]
        assert result.status == "wrong" and result.mistake == mistake, f"{stem}, `{wrong}`: {result.mistake}"
        assert mistake or "Mind the order of the factors" not in result.hint, result.hint
