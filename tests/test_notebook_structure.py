"""Every notebook follows the course's structure (shared/COURSE_DESIGN.md, "A notebook's rhythm").

Solved notebooks (solutions/, the source of truth):
- the markdown cells before the first code cell give a title, learning objectives, prerequisites and a time
  estimate in minutes;
- the markdown cells after the last code cell give the key points and a link to the next notebook (the last
  notebook may instead link back to the first one or to the README's contents);
- every relative link in a markdown cell points to a file that exists, in both folders;
- every exercise (a code cell holding ``### BEGIN SOLUTION``) is followed, within a few cells, by a cell
  calling ``check_...(...)`` on the function the exercise defines and by a ``<details>`` hint;
- randomness is seeded (``np.random.default_rng(seed)``; no unseeded generator, no global RNG);
- no stored output is an error or a traceback, unless the cell is tagged ``raises-exception``, and no warning
  leaked into an output;
- a question of the text (a ``*Question:*`` label, or a table to fill in) holds no answer of its own: its answer is
  folded (``Answer (think first)``) in the markdown cell below it, or found by running the code cell below it, and
  what the fold states is neither printed nor commented by the code right before the question.
A notebook that notebooks.toml marks ``exercises = false`` (00, the setup check; 08, the concept inventory after the
course) is exempt from the exercise rules only.

Which notebooks, in which order, and the words their parts are found by come from the course's data
(course_utils/content/notebooks.toml, read through tests/course_notebooks.py), never from a list or English words kept
here: a fork that drops notebooks, and a translation in solutions/<language>/ with its own [words.<language>], are
checked by the same rules.

Every question is answered below it, with one exception by design: the concept inventory at the end of notebook
00 is the "before" attempt, which must not teach; its answers are given in notebook 08 (``ANSWERED_ELSEWHERE``).
Every other ``ConceptInventory`` cell is the "after" attempt, which gives feedback in place.

Learner notebooks (notebooks/): each exercise cell keeps its function but its solution is gone (the
placeholder instead), and the check and hint cells are there unchanged. (tests/test_notebook_sync.py
already checks that notebooks/ is exactly what the build generates, that no marker is left, and that
learner notebooks carry no outputs; this file checks the exercise scaffolding itself.)
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import course_notebooks as course
import nbformat
import pytest
from course_notebooks import LEARNER, ROOT, SOLUTIONS, SOLVED, entry, words

from course_utils.lessons import myths

#: The course's notebooks in order (notebooks.toml): the next notebook a closing cell links to.
STEMS = [notebook.stem for notebook in course.COURSE]
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
PLACEHOLDER = ("# YOUR CODE HERE", "raise NotImplementedError()")
WINDOW = 4  # the check cell and the hint must come within this many cells after the exercise

_cache: dict[Path, nbformat.NotebookNode] = {}


def read(path: Path):
    if path not in _cache:
        _cache[path] = nbformat.read(path, as_version=4)
    return _cache[path]


#: Questions deliberately left unanswered where they are asked: (notebook, cell id) -> the notebook that answers them.
#: The "before" attempt of the concept inventory must not teach (no feedback); notebook 08 asks the same items again
#: and answers them.
ANSWERED_ELSEWHERE = {("00-before-you-start", "nb00-inventory"): "08-what-you-learned"}


def time_estimate(words_of_language: dict, minutes: int) -> re.Pattern:
    """The intro's time estimate, in the notebook's words: ``**Time.** About 40 minutes`` (``Time``, then within a
    line the number of minutes notebooks.toml gives, then ``min...``)."""
    return re.compile(rf"\b{re.escape(words_of_language['time'])}\b[^\n]{{0,80}}?\b{minutes}\s*min", re.I)


def has_no_exercises(path: Path) -> bool:
    """notebooks.toml's ``exercises = false``; a notebook it does not list (a stray translation) is taken to have them,
    so that collecting still works and test_solutions_and_notebooks_hold_exactly_the_listed_notebooks names it."""
    listed = entry(path)
    return listed is not None and not listed.exercises


def intro_text(nb) -> str:
    """The markdown before the first code cell."""
    text = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            break
        if cell.cell_type == "markdown":
            text.append(cell.source)
    return "\n\n".join(text)


def closing_text(nb) -> str:
    """The markdown after the last code cell (or the last markdown cell, if a code cell ends the notebook)."""
    text = []
    for cell in reversed(nb.cells):
        if cell.cell_type == "code":
            break
        if cell.cell_type == "markdown":
            text.insert(0, cell.source)
    if not text:
        markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
        text = markdown[-1:]
    return "\n\n".join(text)


_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HTML_LINK = re.compile(r"""<a\b[^>]*?\bhref\s*=\s*["']([^"']+)["']""", re.I)


def local_links(text: str) -> list[str]:
    """Link targets in markdown that are files of the repository (no scheme, no pure #anchor)."""
    targets = _LINK.findall(text) + _HTML_LINK.findall(text)
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:|^#|^//", t, re.I)]


def code_without_magics(source: str) -> str:
    return "\n".join("# magic" if line.lstrip().startswith(("%", "!")) else line
                     for line in source.splitlines())


def exercises(nb):
    """(index, cell) of every exercise cell."""
    return [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code" and BEGIN in c.source]


def defined_functions(source: str) -> set[str]:
    tree = ast.parse(code_without_magics(source))
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


def check_calls(source: str) -> list[tuple[str, set[str]]]:
    """(function name, names used in its arguments) for every call of a check_... function."""
    tree = ast.parse(code_without_magics(source))
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("check_"):
            args = [*node.args, *(k.value for k in node.keywords)]
            names = {n.id for a in args for n in ast.walk(a) if isinstance(n, ast.Name)}
            calls.append((node.func.id, names))
    return calls


def solution_lines(source: str) -> list[str]:
    """The stripped, non-blank lines inside the solution regions of a cell."""
    lines, inside = [], False
    for line in source.splitlines():
        if line.strip() == BEGIN:
            inside = True
        elif line.strip() == END:
            inside = False
        elif inside and line.strip():
            lines.append(line.strip())
    return lines


solved = pytest.mark.parametrize("path", SOLVED, ids=course.name)
lesson = pytest.mark.parametrize("path", [p for p in SOLVED if not has_no_exercises(p)], ids=course.name)
both = pytest.mark.parametrize("path", course.ALL, ids=course.name)


def test_there_are_notebooks():
    assert SOLVED, "no notebook in course_utils/content/notebooks.toml"


def test_solutions_and_notebooks_hold_exactly_the_listed_notebooks():
    """A notebook added without its entry, or dropped with its entry left, is named (a fork drops both)."""
    for folder in (SOLUTIONS, LEARNER):
        present = sorted(p.stem for p in folder.glob("*.ipynb"))
        assert present == sorted(STEMS), (f"{folder.name}/ holds {present}; course_utils/content/notebooks.toml lists "
                                          f"{STEMS}: add or remove the entry, or the file")
    assert STEMS == sorted(STEMS), "notebooks.toml lists the notebooks in the order of their numbers"
    for path in course.TRANSLATED_SOLVED:
        assert entry(path) is not None, f"{course.name(path)} translates no notebook of notebooks.toml (same file name)"


# --- top and bottom ---------------------------------------------------------------------------


@solved
def test_opening_gives_title_objectives_prerequisites_and_time(path):
    nb = read(path)
    intro = intro_text(nb)
    assert intro, f"{path.name} starts with a code cell: it needs a title, objectives, prerequisites, time first"
    first_line = next((line for line in nb.cells[0].source.splitlines() if line.strip()), "")
    problems = []
    if nb.cells[0].cell_type != "markdown" or not re.match(r"#\s+\S", first_line):
        problems.append("a title (the first cell must start with '# ...')")
    assert entry(path) is not None, f"{course.name(path)} is not listed in course_utils/content/notebooks.toml"
    said = words(path)
    for word in ("objectives", "prerequisites"):
        if said[word].lower() not in intro.lower():
            problems.append(repr(said[word]))
    if not time_estimate(said, entry(path).minutes).search(intro):
        problems.append(f"the time notebooks.toml gives ('{said['time']}. About {entry(path).minutes} minutes')")
    assert not problems, f"{path.name}: the markdown before the first code cell lacks " + ", ".join(problems)


SECTION_TIME = re.compile(r"^#{2,3} .*\*\((\d+) min\)\*\s*$", re.M)  # ## 4 · Why subtract ...?  *(7 min)*


def section_minutes(nb) -> list:
    """The times its sections' headings give, in order."""
    return [int(m) for cell in nb.cells if cell.cell_type == "markdown" for m in SECTION_TIME.findall(cell.source)]


@solved
def test_the_section_times_add_up_to_the_notebooks_time(path):
    """Issue 26: 01's sections added up to 50 minutes under "About 40", 05's to 65 under 55, 07's to 45 under 40.
    The sections' times add up to the time notebooks.toml (and the first cell) gives, and so do the parts the Time
    line lists ("reading and running 28, the slider 5, three exercises 17")."""
    nb, said = read(path), words(path)
    sections = section_minutes(nb)
    total = entry(path).minutes
    assert sum(sections) == total, f"{path.name}: its sections take {sections} = {sum(sections)} min, not {total}"
    paragraph = re.search(rf"\**{re.escape(said['time'])}\b.*?(?:\n\s*\n|$)", intro_text(nb), re.I | re.S).group(0)
    line = " ".join(paragraph.split())
    parts = [int(n) for n in re.findall(r"(?<![\w.])(\d+)(?!\w|\.\d)", line.split(":", 1)[1])] if ":" in line else []
    assert not parts or sum(parts) == total, f"{path.name}: the Time line's parts {parts} add up to {sum(parts)}, not {total}"


EXERCISE_TIME = re.compile(r"^### Exercise[^\n]*\*\((\d+) min\)\*", re.M)
COUNT_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


@solved
def test_the_time_lines_exercise_minutes_are_its_exercises_headings(path):
    """A learner's trial: 02's Time line gave "four exercises 15" where its four exercise headings add up to 14. The
    count and the minutes the Time line gives its exercises ("three exercises 17") are those of the headings."""
    nb = read(path)
    minutes = [int(m) for cell in nb.cells if cell.cell_type == "markdown" for m in EXERCISE_TIME.findall(cell.source)]
    said = re.search(r"\b(" + "|".join(COUNT_WORDS) + r") exercises (\d+)\b", " ".join(intro_text(nb).split()))
    if not minutes or said is None:
        pytest.skip(f"{path.name}: no exercise headings with minutes, or a Time line without '<n> exercises <min>'")
    assert (COUNT_WORDS[said.group(1)], int(said.group(2))) == (len(minutes), sum(minutes)), (
        f"{path.name}: the Time line says {said.group(0)!r}; its exercise headings give {len(minutes)} exercises, "
        f"{sum(minutes)} min ({minutes})")


@solved
def test_closing_gives_key_points_and_the_next_notebook(path):
    nb = read(path)
    closing = closing_text(nb)
    key_points = words(path)["key_points"]
    assert key_points.lower() in closing.lower(), (
        f"{path.name}: the markdown after the last code cell has no {key_points!r}")
    linked = {Path(target.split("#")[0]).name for target in local_links(closing)}
    position = STEMS.index(path.stem)
    if position + 1 < len(STEMS):
        following = f"{STEMS[position + 1]}.ipynb"
        assert following in linked, (
            f"{path.name}: the end must link to the next notebook, ({following}); it links to {sorted(linked)}")
    else:
        # The last notebook: a link to a next notebook that exists (it would not be last), or back to
        # the first notebook or the README's contents. A link to a missing notebook fails the link test.
        back = {"README.md"} | {f"{s}.ipynb" for s in STEMS[:2]}
        missing = sorted(n for n in linked if n.endswith(".ipynb") and not (path.parent / n).exists())
        assert linked & back, (
            f"{path.name} is the last notebook: its end must link back to {STEMS[0]}.ipynb or to "
            f"../README.md (the contents), or to a next notebook that exists; it links to {sorted(linked)}"
            + (f" ({', '.join(missing)} does not exist)" if missing else ""))


@both
def test_relative_links_point_to_files_that_exist(path):
    nb = read(path)
    missing = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for target in local_links(cell.source):
            file_part = target.split("#")[0].split("?")[0]
            if file_part and not (path.parent / file_part).exists():
                missing.append(f"{target} (cell {cell.get('id')})")
    assert not missing, f"{path.parent.name}/{path.name} links to files that do not exist: {missing}"


#: A name of the course's code in a notebook's text: ``cu.softmax``, ``course_utils.lessons.heads``, ...
COURSE_NAME = re.compile(r"\b(cu|course_utils)((?:\.[A-Za-z_]\w*)+)")


def missing_course_names(text: str) -> list:
    """The course_utils names ``text`` mentions that the package does not have (an old module path, a renamed
    function), each as written."""
    import importlib

    import course_utils

    missing = []
    for match in COURSE_NAME.finditer(text):
        obj, path = course_utils, "course_utils"
        for part in match.group(2).strip(".").split("."):
            path += f".{part}"
            if not hasattr(obj, part):
                try:
                    importlib.import_module(path)  # a module not imported by the package itself
                except ImportError:
                    missing.append(match.group(0))
                    break
            obj = getattr(obj, part)
    return missing


@solved
def test_the_text_names_only_course_code_that_exists(path):
    """Issue 26: the text named old module paths (course_utils.heads, course_utils.influence) that the code no
    longer has; every name of the course's code in a markdown cell must be importable as written."""
    found = [f"{name} (cell {cell.get('id')})" for cell in read(path).cells if cell.cell_type == "markdown"
             for name in missing_course_names(cell.source)]
    assert not found, f"{path.name} names course code that does not exist: {found}"


def test_the_name_check_sees_an_old_module_path():
    assert missing_course_names("see `course_utils.heads.split` and `cu.softmax`, `cu.lessons.heads`") == [
        "course_utils.heads.split"]
    assert missing_course_names("`cu.blockwise.online_softmax_update` and `cu.no_such_function`") == [
        "cu.no_such_function"]


@lesson
def test_every_lesson_imports_math_for_answers_in_plain_python(path):
    """Issue 26: 01-03 imported math, 04-07 did not, so an answer with math.sqrt that 01-03 accepted failed with a
    NameError in 04-07. Every notebook with exercises imports it in its imports cell (the second code cell)."""
    imports = [c for c in read(path).cells if c.cell_type == "code"][1].source
    assert re.search(r"^import math\b", imports, re.M), f"{path.name}: its imports cell does not import math"


#: Terms a newcomer may not know, and words of the one-line explanation the text gives where it first uses them.
EXPLAINED_AT_FIRST_USE = {
    "cross-entropy": "minus the log of the probability",
    "logits": "one score per item",
    "minGPT": "readable GPT",
    "FlashAttention": "memory-efficient attention kernels",
}


def test_terms_are_explained_where_the_course_first_uses_them():
    """Issue 26: cross-entropy (06), minGPT (04) and the Cauchy-Schwarz bound (07) were used before any explanation.
    In the course's order, the first markdown cell that uses each term explains it in a line."""
    cells = [(path.name, cell) for path in course.COURSE_SOLVED for cell in read(path).cells
             if cell.cell_type == "markdown"]
    unexplained = []
    for term, explanation in EXPLAINED_AT_FIRST_USE.items():
        first = next(((name, cell) for name, cell in cells if term.lower() in cell.source.lower()), None)
        if first is None:
            continue  # a fork without the notebook that uses it
        if explanation.lower() not in " ".join(first[1].source.split()).lower():
            unexplained.append(f"{term} ({first[0]}, cell {first[1].get('id')})")
    assert not unexplained, f"used before it is explained: {unexplained}"


# --- exercises ----------------------------------------------------------------------------------


@lesson
def test_every_exercise_is_followed_by_its_check_and_a_hint(path):
    nb = read(path)
    found = exercises(nb)
    assert found, f"{path.name} has no exercise (a code cell with {BEGIN!r})"
    problems = []
    for index, cell in found:
        where = f"exercise cell {cell.get('id')}"
        functions = defined_functions(cell.source)
        if not functions:
            problems.append(f"{where} defines no function (an exercise is a function my_...)")
        window = []
        for later in nb.cells[index + 1: index + 1 + WINDOW]:
            if later.cell_type == "code" and BEGIN in later.source:
                break  # the next exercise starts
            window.append(later)
        checks = [(c, call) for c in window if c.cell_type == "code" for call in check_calls(c.source)]
        if not checks:
            problems.append(f"{where}: no cell calling check_...(...) within {WINDOW} cells after it")
        elif not any(names & functions for _, (_, names) in checks):
            problems.append(f"{where}: the check call does not receive the function it defines "
                            f"({sorted(functions)}): {[name for _, (name, _) in checks]}")
        if not any(c.cell_type == "markdown" and "<details" in c.source.lower() for c in window):
            problems.append(f"{where}: no <details> hint within {WINDOW} cells after it")
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


@lesson
def test_learner_version_keeps_the_exercise_scaffolding_but_not_the_solutions(path):
    learner_path = LEARNER / path.relative_to(SOLUTIONS)  # a translation's: notebooks/<language>/
    assert learner_path.exists(), f"no learner version of {course.name(path)}; run `make notebooks`"
    solved_nb, learner_nb = read(path), read(learner_path)
    learner_cells = {c.get("id"): c for c in learner_nb.cells}
    problems = []
    for index, cell in exercises(solved_nb):
        mine = learner_cells.get(cell.get("id"))
        if mine is None:
            problems.append(f"exercise cell {cell.get('id')} is missing")
            continue
        if not all(line in mine.source for line in PLACEHOLDER):
            problems.append(f"exercise cell {cell.id}: no '# YOUR CODE HERE' / 'raise NotImplementedError()'")
        learner_lines = {line.strip() for line in mine.source.splitlines()}
        kept = {line.strip() for line in strip_regions(cell.source).splitlines()}  # may repeat inside
        leaked = [line for line in solution_lines(cell.source) if line in learner_lines and line not in kept]
        if leaked:
            problems.append(f"exercise cell {cell.id}: solution lines left in the learner version: {leaked}")
        if defined_functions(mine.source) != defined_functions(cell.source):
            problems.append(f"exercise cell {cell.id}: the learner version defines "
                            f"{sorted(defined_functions(mine.source))}, not {sorted(defined_functions(cell.source))}")
        for later in solved_nb.cells[index + 1: index + 1 + WINDOW]:
            is_check = later.cell_type == "code" and check_calls(later.source)
            is_hint = later.cell_type == "markdown" and "<details" in later.source.lower()
            if is_check or is_hint:
                twin = learner_cells.get(later.get("id"))
                if twin is None or twin.source != later.source:
                    kind = "check" if is_check else "hint"
                    problems.append(f"{kind} cell {later.get('id')} is missing or changed in the learner version")
    assert not problems, f"{course.name(learner_path)}:\n" + "\n".join(problems)


def strip_regions(source: str) -> str:
    kept, inside = [], False
    for line in source.splitlines():
        if line.strip() == BEGIN:
            inside = True
        elif line.strip() == END:
            inside = False
        elif not inside:
            kept.append(line)
    return "\n".join(kept)


# --- determinism and clean outputs -----------------------------------------------------------------

_LEGACY_RANDOM = {"rand", "randn", "random", "random_sample", "ranf", "sample", "normal", "uniform", "randint",
                  "choice", "shuffle", "permutation", "standard_normal", "binomial", "poisson", "exponential",
                  "beta", "gamma", "multivariate_normal", "integers"}


def randomness_problems(source: str) -> list[str]:
    """Unseeded randomness in a code cell: default_rng() without a seed, numpy's global RNG, stdlib random."""
    tree = ast.parse(code_without_magics(source))
    problems = []
    imports_random = any(isinstance(n, ast.Import) and any(a.name == "random" for a in n.names)
                         for n in ast.walk(tree))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        dotted = ast.unparse(func)
        if name == "default_rng" and not node.args and not node.keywords:
            problems.append(f"{dotted}() without a seed")
        elif (isinstance(func, ast.Attribute) and ast.unparse(func.value) in ("np.random", "numpy.random")
              and name in _LEGACY_RANDOM):
            problems.append(f"{dotted}(...) uses numpy's global generator: use rng = np.random.default_rng(seed)")
        elif imports_random and dotted.startswith("random.") and name != "seed":
            problems.append(f"{dotted}(...): the standard library's random; use np.random.default_rng(seed)")
    return problems


@solved
def test_randomness_is_seeded(path):
    nb = read(path)
    problems = [f"cell {c.get('id')}: {p}" for c in nb.cells if c.cell_type == "code"
                for p in randomness_problems(c.source)]
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


def test_the_seed_rule_catches_unseeded_randomness():
    assert randomness_problems("rng = np.random.default_rng()")
    assert randomness_problems("x = np.random.normal(size=3)")
    assert randomness_problems("import random\nx = random.random()")
    assert not randomness_problems("rng = np.random.default_rng(0)\nx = rng.normal(size=3)")
    assert not randomness_problems("rng = np.random.default_rng(seed=SEED)")
    assert not randomness_problems("R = np.random.default_rng(1).normal(size=(3, 3))")


@solved
def test_no_stored_error_or_traceback(path):
    nb = read(path)
    problems = []
    for cell in nb.cells:
        if cell.cell_type != "code" or "raises-exception" in cell.metadata.get("tags", []):
            continue
        for output in cell.outputs:
            text = output.get("text", "") or "".join(str(v) for v in output.get("data", {}).values())
            if output.output_type == "error":
                problems.append(f"cell {cell.get('id')}: {output.get('ename')}: {output.get('evalue')}")
            elif "Traceback (most recent call last)" in text:
                problems.append(f"cell {cell.get('id')}: a traceback in its output")
    assert not problems, (f"{path.name} stores errors (re-run with `make solutions` after fixing, or tag a "
                          "cell that must fail raises-exception):\n" + "\n".join(problems))


@solved
def test_no_warning_leaked_into_outputs(path):
    nb = read(path)
    leaked = [f"cell {c.get('id')}: {o.get('text', '')[:200]!r}" for c in nb.cells if c.cell_type == "code"
              for o in c.outputs if o.output_type == "stream" and o.get("name") == "stderr"
              and re.search(r"\w*Warning\b", o.get("text", ""))]
    assert not leaked, f"{path.name}: warnings in the outputs (silence them at the source):\n" + "\n".join(leaked)


# --- the concept inventory: answered in place, or where ANSWERED_ELSEWHERE says -------------------------


def inventory_cells(nb):
    """(cell id, attempt) of every code cell that builds a ``ConceptInventory(attempt)``."""
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code" or "ConceptInventory" not in cell.source:
            continue
        for node in ast.walk(ast.parse(code_without_magics(cell.source))):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("ConceptInventory"):
                args = [*node.args, *(k.value for k in node.keywords if k.arg == "attempt")]
                attempt = args[0].value if args and isinstance(args[0], ast.Constant) else None
                found.append((cell.get("id"), attempt))
    return found


@solved
def test_every_inventory_question_is_answered_in_place_or_where_the_exception_says(path):
    """A "post" inventory gives feedback where it is asked; a "pre" one only where ANSWERED_ELSEWHERE lists it,
    and the notebook named there must exist and ask the same items with feedback ("post")."""
    problems = []
    for cell_id, attempt in inventory_cells(read(path)):
        if attempt == "post":
            continue
        answered_in = ANSWERED_ELSEWHERE.get((path.stem, cell_id))
        if attempt != "pre" or answered_in is None:
            problems.append(f"cell {cell_id}: ConceptInventory({attempt!r}) gives no feedback here, and "
                            "ANSWERED_ELSEWHERE does not say which notebook answers it")
            continue
        answering = SOLUTIONS / f"{answered_in}.ipynb"
        if not answering.exists() or ("post" not in {a for _, a in inventory_cells(read(answering))}):
            problems.append(f"cell {cell_id}: {answered_in}.ipynb must exist and hold ConceptInventory(\"post\")")
            continue
        cells = read(path).cells
        index = [c.get("id") for c in cells].index(cell_id)
        around = "\n".join(c.source for c in cells[max(index - 1, 0): index + 2] if c.cell_type == "markdown")
        if f"notebook {answered_in[:2]}" not in around:
            problems.append(f"cell {cell_id}: the text around it must tell that notebook {answered_in[:2]} answers it")
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


def test_the_exception_is_used():
    """Each entry of ANSWERED_ELSEWHERE names a "pre" inventory cell that exists (no stale exception)."""
    for (stem, cell_id), _ in ANSWERED_ELSEWHERE.items():
        assert (stem and (cell_id, "pre") in inventory_cells(read(SOLUTIONS / f"{stem}.ipynb"))), (stem, cell_id)


def _add_unanswered_inventory(nb):
    nb.cells.append(nbformat.v4.new_code_cell('cu.widgets.ConceptInventory("pre")', id="nbXX-inventory"))


# --- the rules catch what they should (on damaged copies of a real notebook) -----------------------


def _damaged(tmp_path, damage):
    original = next(p for p in SOLVED if not has_no_exercises(p))
    nb = nbformat.read(original, as_version=4)
    damage(nb)
    path = tmp_path / original.name  # its name: notebooks.toml's entry (its minutes) applies
    nbformat.write(nb, path)
    _cache.pop(path, None)
    return path


def _drop(kind):
    def damage(nb):
        index, _ = exercises(nb)[0]
        for offset in range(1, WINDOW + 1):
            cell = nb.cells[index + offset]
            if (kind == "check" and cell.cell_type == "code" and check_calls(cell.source)) or (
                    kind == "hint" and "<details" in cell.source):
                del nb.cells[index + offset]
                return
    return damage


def _drop_intro(word):
    def damage(nb):
        nb.cells[0].source = "\n".join(line for line in nb.cells[0].source.splitlines()
                                       if word.lower() not in line.lower())
    return damage


def _change_minutes(nb):
    nb.cells[0].source = re.sub(r"About (\d+) minutes", lambda m: f"About {int(m.group(1)) + 5} minutes", nb.cells[0].source)


def _add_error(nb):
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.outputs.append(nbformat.v4.new_output("error", ename="ValueError", evalue="boom", traceback=[]))


@pytest.mark.parametrize("test, damage", [
    (test_every_exercise_is_followed_by_its_check_and_a_hint, _drop("check")),
    (test_every_exercise_is_followed_by_its_check_and_a_hint, _drop("hint")),
    (test_opening_gives_title_objectives_prerequisites_and_time, _drop_intro("**Time.**")),
    (test_opening_gives_title_objectives_prerequisites_and_time, _change_minutes),
    (test_opening_gives_title_objectives_prerequisites_and_time, _drop_intro("objectives")),
    (test_opening_gives_title_objectives_prerequisites_and_time, _drop_intro("prerequisites")),
    (test_no_stored_error_or_traceback, _add_error),
    (test_every_inventory_question_is_answered_in_place_or_where_the_exception_says, _add_unanswered_inventory),
], ids=["no check", "no hint", "no time", "other minutes", "no objectives", "no prerequisites", "stored error",
        "unanswered inventory"])
def test_the_rules_catch_a_damaged_notebook(tmp_path, test, damage):
    path = _damaged(tmp_path, damage)
    with pytest.raises(AssertionError):
        test(path)


# --- the instructor guide follows the notebooks -------------------------------------------------------

GUIDE = ROOT / "docs" / "instructor-guide.md"


@pytest.mark.parametrize("path", course.COURSE_SOLVED, ids=course.name)
def test_instructor_guide_schedules_every_notebook_with_its_time_estimate(path):
    """docs/instructor-guide.md's schedule has a row naming the notebook and its time (notebooks.toml's, which its
    first cell gives too: test_opening_...)."""
    minutes = entry(path).minutes
    rows = [line for line in GUIDE.read_text(encoding="utf-8").splitlines()
            if line.startswith("|") and f"`{path.stem}`" in line]
    assert rows, f"{GUIDE.relative_to(ROOT)}: the schedule has no row for `{path.stem}`"
    own = [re.match(r"\s*(\d+) min\s*$", row.split("|")[3]) for row in rows]  # the self-paced column
    given = sum(int(m.group(1)) for m in own if m)  # 00 has two rows: the check, then its twelve questions
    assert given == minutes, (
        f"{GUIDE.relative_to(ROOT)}: the rows of `{path.stem}` give {given} min of the notebook's own estimate, not "
        f"{minutes} min (update the schedule when a notebook's time changes): {rows}")


README = ROOT / "README.md"


def test_readme_lists_every_notebook_with_its_time_and_no_other():
    """README.md's table of notebooks: one row per notebooks.toml entry, in order, linking the learner notebook and
    giving its time; a row for a notebook the course no longer lists is named (a fork drops both)."""
    rows = [line for line in README.read_text(encoding="utf-8").splitlines() if re.match(r"^\| \d\d \| \[", line)]
    linked = [re.search(r"\]\(notebooks/([\w-]+)\.ipynb\)", row).group(1) for row in rows]
    assert linked == STEMS, f"README.md's table lists {linked}; course_utils/content/notebooks.toml lists {STEMS}"
    for row, notebook in zip(rows, course.COURSE):
        assert row.startswith(f"| {notebook.number} |") and f"| {notebook.minutes} min" in row, (
            f"README.md's row of {notebook.stem} must give its number and time, {notebook.minutes} min: {row[:120]}")


# --- Myth or fact?: each claim asked first (a MythOrFact widget), its verdict answered right below, folded --------

CLAIM = re.compile(r'\*\*"([^"]+)"\*\*')


def myth_heading(said: dict) -> re.Pattern:
    """The section heading ``## 7 · Myth or fact?`` in a language's words (notebooks.toml)."""
    return re.compile(rf"^##\s+\d+\s+·\s+{re.escape(said['myths'])}", re.M)


def verdict_fold(said: dict) -> str:
    """How a verdict cell opens: the closed fold ``<details><summary>Verdict (choose first)</summary>``."""
    return f"<details><summary>{said['verdict']}</summary>"


def myth_section(nb, said=None):
    """The cells of the notebook's *Myth or fact?* section (its heading cell to the one before the next ``##``)."""
    heading = myth_heading(said or course.content.words())
    start = next((n for n, c in enumerate(nb.cells) if c.cell_type == "markdown" and heading.search(c.source)), None)
    if start is None:
        return []
    end = next((n for n in range(start + 1, len(nb.cells))
                if nb.cells[n].cell_type == "markdown" and re.search(r"^##\s", nb.cells[n].source, re.M)),
               len(nb.cells))
    return nb.cells[start:end]


def myth_problems(nb, said=None):
    """Claims of the *Myth or fact?* section that are not asked before their verdict is shown.

    Every bold quoted claim (``**"..."**``) of the section stands in a verdict cell: a markdown cell that opens with
    the closed fold ``Verdict (choose first)`` and comes right after a code cell calling ``MythOrFact``; every such
    code cell is answered by the cell right after it; and the section asks at least once. ``said``: the words of the
    notebook's language (default the course's).
    """
    said = said or course.content.words()
    VERDICT_FOLD = verdict_fold(said)  # noqa: N806 - the fold this language's verdicts open with
    cells = myth_section(nb, said)
    if not cells:
        return ["no *Myth or fact?* section"]
    found = []
    asked = [n for n, c in enumerate(cells) if c.cell_type == "code" and "MythOrFact(" in c.source]
    if not asked:
        found.append("the section asks nothing: no cu.widgets.MythOrFact(...) cell")
    for n in asked:
        below = cells[n + 1] if n + 1 < len(cells) else None
        if below is None or below.cell_type != "markdown" or not below.source.startswith(VERDICT_FOLD):
            found.append(f"cell {cells[n].get('id')}: its verdict must follow in a markdown cell opening with "
                         f"{VERDICT_FOLD!r}")
    for n, cell in enumerate(cells):
        if cell.cell_type != "markdown" or not CLAIM.search(cell.source):
            continue
        answered = cell.source.startswith(VERDICT_FOLD) and n - 1 in asked
        if not answered:
            found.append(f"cell {cell.get('id')}: the claim {CLAIM.search(cell.source).group(1)!r} is answered "
                         "without being asked: put cu.widgets.MythOrFact(...) before it and fold its verdict")
    return found


#: The notebooks with a Myth or fact? section: those whose number has claims in course_utils/content/myths.toml.
myth_notebooks = pytest.mark.parametrize(
    "path", [p for p in SOLVED if p.stem[:2] in {claim.notebook for claim in myths.CLAIMS}], ids=course.name)


@myth_notebooks
def test_every_myth_is_asked_before_its_verdict_which_is_folded_right_below(path):
    problems = myth_problems(read(path), words(path))
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


def _notebook_01():
    return nbformat.reads(nbformat.writes(read(next(p for p in SOLVED if p.stem.startswith("01")))), as_version=4)


def test_the_myth_rule_catches_a_verdict_shown_before_the_question():
    nb = _notebook_01()
    assert not myth_problems(nb)
    nb.cells.remove(next(c for c in myth_section(nb) if c.cell_type == "code" and "MythOrFact(" in c.source))
    assert any("without being asked" in p for p in myth_problems(nb))     # the first verdict now stands unasked


def test_the_myth_rule_catches_a_verdict_not_folded():
    nb = _notebook_01()
    fold = verdict_fold(course.content.words())
    verdict = [c for c in myth_section(nb) if c.cell_type == "markdown" and c.source.startswith(fold)][1]
    verdict.source = verdict.source.replace(fold, "**Verdict**")
    assert any("its verdict must follow" in p for p in myth_problems(nb))


def test_the_myth_rule_catches_a_section_that_asks_nothing():
    nb = _notebook_01()
    nb.cells = [c for c in nb.cells if "MythOrFact(" not in c.source]
    assert any("asks nothing" in p for p in myth_problems(nb))


# --- questions in the text: asked first, answered in the cell below, folded (issue 26) -----------------------------

#: A fill-in table: a markdown table row with a cell holding only ``?``.
FILL_IN = re.compile(r"^\|.*\|\s*\?\s*\|", re.M)
#: An answer given in the same breath: a question mark followed by a parenthesised reply, ``...? (One half: ...)``.
UNFOLDED_REPLY = re.compile(r"\?\s*\(")
#: What an answer fold states that a cell could print or comment: a decimal number, or a code span with a digit or a
#: bracket in it (``[1, 0, 0]``, ``(T, d_k)``).
ANSWER_ATOM = re.compile(r"`([^`]*[\d(\[][^`]*)`|(?<![\w.])(\d+\.\d+)(?![\w.])")


def question_label(said: dict) -> re.Pattern:
    """A question's label in a language's words: ``*Question:*`` or ``**Question.**``."""
    return re.compile(rf"\*{{1,2}}{re.escape(said['question'])}[:.]\*{{1,2}}")


def answer_fold(said: dict) -> str:
    """How an answer cell opens: ``<details><summary>Answer (think first)</summary>``."""
    return f"<details><summary>{said['answer']}</summary>"


def _said_in_code(cell) -> str:
    """What a code cell shows before and after it runs: its comments and its outputs (text, HTML)."""
    comments = [line.split("#", 1)[1] for line in cell.source.splitlines() if "#" in line]
    outputs = ["".join(o.get("text", "")) + "".join(o.get("data", {}).get(kind, "") for kind in ("text/plain", "text/html"))
               for o in cell.get("outputs", [])]
    return re.sub(r"\s+", "", "\n".join(comments + outputs))


def question_problems(nb, said=None):
    """Questions of the text that give their answer away.

    A question cell is a markdown cell with a question label (``*Question:*``, ``**Question.**``) or a table to fill
    in (a cell holding ``?``). It holds no answer: no fold (the answer goes in the cell below, as a Myth or fact?
    verdict does), and no reply in brackets after a question mark. A fill-in table, and a question followed by more
    text rather than by a cell to run, is answered in the markdown cell right below, which opens with the fold
    ``Answer (think first)``. What that fold states (a decimal, a code span with a digit or a bracket) is neither
    printed nor commented by the code cells right before the question (those with no markdown between them and it).
    """
    said = said or course.content.words()
    label, fold = question_label(said), answer_fold(said)
    found = []
    for n, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown" or not (label.search(cell.source) or FILL_IN.search(cell.source)):
            continue
        name = f"cell {cell.get('id')}"
        if "<details" in cell.source:
            found.append(f"{name}: the question holds its own answer (a fold): move the fold to a cell of its own below")
        if UNFOLDED_REPLY.search(cell.source):
            found.append(f"{name}: a question answered in brackets right after it: fold the answer in the cell below")
        below = nb.cells[n + 1] if n + 1 < len(nb.cells) else None
        folded = below is not None and below.cell_type == "markdown" and below.source.startswith(fold)
        if not folded and (FILL_IN.search(cell.source) or below is None or below.cell_type != "code"):
            found.append(f"{name}: its answer must follow in a markdown cell opening with {fold!r}")
        if folded:
            before = []
            for previous in reversed(nb.cells[:n]):
                if previous.cell_type != "code":
                    break
                before.append(_said_in_code(previous))
            shown = "".join(before)
            given = [a or b for a, b in ANSWER_ATOM.findall(below.source)]
            given = [atom for atom in given if re.sub(r"\s+", "", atom) in shown]
            if given:
                found.append(f"{name}: the code right before it already prints or comments its answer: {given}")
    return found


@solved
def test_no_question_gives_its_answer_away(path):
    """Issue 26: answers stood in brackets right after their question (03, 05, 06), in the question's own cell (07),
    or in the comments of the cells just before a table to fill in (02). Every question is answered below it, folded,
    as the Myth or fact? verdicts and the hints are: the learner thinks first."""
    problems = question_problems(read(path), words(path))
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


#: What a cell below a prediction prompt may print that the prompt must not state first: inf, nan, a decimal.
PRINTED_OUTCOME = re.compile(r"(?<![\w.])(inf|nan|-?\d+\.\d+)(?![\w.])")


def prediction_problems(nb, said=None):
    """Prediction prompts that state what the cell they ask about prints.

    A prompt is a markdown cell holding the word that asks for a prediction (``Predict``), followed by a code
    cell. Neither its text nor its maths may state an outcome (``inf``, ``nan``, a decimal) that the code cells
    right after it print: the learner predicts first.
    """
    said = said or course.content.words()
    found = []
    for n, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown" or said["predict"] not in cell.source:
            continue
        printed = set()
        for later in nb.cells[n + 1:]:
            if later.cell_type != "code":
                break
            printed |= {"".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                        for o in later.get("outputs", [])}
        shown = set(PRINTED_OUTCOME.findall("\n".join(printed)))
        stated = sorted(set(PRINTED_OUTCOME.findall(cell.source)) & shown)
        if stated:
            found.append(f"cell {cell.get('id')}: asks for a prediction but already states what the cell below "
                         f"prints: {stated}")
    return found


@solved
def test_no_prediction_prompt_states_the_outcome(path):
    """Issue 26: 01's section 4 told the learner that e^x overflows to inf and that inf / inf gives nan, then asked
    them to predict what the naive softmax prints (inf and nan)."""
    problems = prediction_problems(read(path), words(path))
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


def test_the_prediction_rule_catches_an_outcome_stated_first():
    nb = _question_notebook(("md", "e^x overflows to `inf`, and inf / inf is `nan`. Predict what it prints."),
                            ("code", "print(np.exp([1000.0]))"))
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="[inf] [nan]\n")]
    assert [p.rsplit(": ", 1)[1] for p in prediction_problems(nb)] == ["['inf', 'nan']"]
    nb.cells[0].source = "Predict what the naive formula prints, then run the cell."
    assert prediction_problems(nb) == []


def _question_notebook(*cells):
    nb = nbformat.v4.new_notebook()
    for n, (kind, source) in enumerate(cells):
        cell = nbformat.v4.new_markdown_cell(source) if kind == "md" else nbformat.v4.new_code_cell(source)
        cell["id"] = f"nb99-{n}"
        nb.cells.append(cell)
    return nb


def test_the_question_rule_catches_an_answer_given_away():
    fold = answer_fold(course.content.words())
    assert question_problems(_question_notebook(("md", "*Question:* which row? Think first."),
                                                ("md", f"{fold}\n\nThe last.\n</details>"))) == []
    assert question_problems(_question_notebook(("md", "*Question:* the sum? Predict, then run the cell."),
                                                ("code", "print(1)"))) == []
    unfolded = _question_notebook(("md", "*Question:* which row? (The last.)"), ("md", "## 2 · Next"))
    assert [p.split(": ", 1)[1][:20] for p in question_problems(unfolded)] == [
        "a question answered ", "its answer must foll"]
    inside = _question_notebook(("md", f"**Question.** Which row?\n\n{fold}\n\nThe last.\n</details>"),
                                ("code", "print(1)"))
    assert any("holds its own answer" in p for p in question_problems(inside))
    table = _question_notebook(("code", "W = X @ W_Q   # (T, d_model) @ (d_model, d_k) -> (T, d_k)"),
                               ("md", "| array | shape |\n|---|---|\n| `Q` | ? |"), ("code", "def f(): pass"))
    assert any("must follow" in p for p in question_problems(table))
    table.cells.insert(2, nbformat.v4.new_markdown_cell(f"{fold}\n\n`Q`: `(T, d_k)`\n</details>"))
    assert any("already prints or comments its answer: ['(T, d_k)']" in p for p in question_problems(table))


# --- numbers in the prose come from the cells ------------------------------------------------------------------

#: A decimal number written in a markdown cell (two or more decimals: 0.665, 2.45), outside maths ($...$).
PROSE_NUMBER = re.compile(r"(?<![\w.$\\^{])-?\d+\.\d{2,}(?![\w.])")
OUTPUT_NUMBER = re.compile(r"-?\d+\.\d+(?:e-?\d+)?")
#: Numbers the prose quotes from outside the course (not computed by any cell), and where they come from.
NOT_COMPUTED = {
    "3.10": "a Python version (the oldest the course supports)",
    "2.13": "the PyTorch version the course checked its convention with",
    "0.23": "Hake (1998): the class gain of lecture courses",
    "0.48": "Hake (1998): the class gain of interactive-engagement courses",
}


def printed_numbers(paths) -> list[float]:
    """Every decimal number a code cell of these notebooks prints or displays (text, HTML, alt text)."""
    found = []
    for path in paths:
        for cell in read(path).cells:
            for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
                texts = [output.get("text", "")] + [output.get("data", {}).get(kind, "") for kind in
                                                     ("text/plain", "text/html", "text/markdown")]
                found += [float(n) for text in texts for n in OUTPUT_NUMBER.findall("".join(text))]
    return found


def stale_prose_numbers(nb, printed) -> list[str]:
    """The prose numbers of a notebook that no cell of the course prints (as written, or rounded to as many
    decimals): a number typed into the text that a change of code or data left behind."""
    found = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        text = re.sub(r"\$[^$]*\$", "", cell.source)
        for number in PROSE_NUMBER.findall(text):
            decimals = len(number.split(".")[1])
            if number in NOT_COMPUTED or any(round(value, decimals) == float(number) for value in printed):
                continue
            found.append(f"cell {cell.get('id')}: {number}")
    return found


@solved
def test_every_number_in_the_prose_is_one_a_cell_prints(path):
    """03's prose kept a number the data no longer gave (issue 23): a number in the text must be printed by a cell of
    this notebook, or of the notebook it quotes (any solved notebook), as written or rounded; else it is listed in
    NOT_COMPUTED with its source. After changing the toy data: `make solutions`, then this test names the text."""
    stale = stale_prose_numbers(read(path), printed_numbers(SOLVED))
    assert not stale, (f"{path.name}: these numbers of the text are printed by no cell (did the data or the code "
                       "change? fix the text, or say where the number comes from in NOT_COMPUTED):\n" + "\n".join(stale))


def test_the_number_rule_catches_a_number_left_behind():
    cell = nbformat.v4.new_markdown_cell("The weight is 0.176, then 0.18 and $0.123$.")
    cell["id"] = "nb99-text"
    nb = nbformat.v4.new_notebook(cells=[cell])
    assert stale_prose_numbers(nb, [0.1763]) == []
    assert stale_prose_numbers(nb, [0.2]) == ["cell nb99-text: 0.176", "cell nb99-text: 0.18"]
