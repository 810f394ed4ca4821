"""Module paths from before the package was arranged by audience still import, without a warning.

A learner's saved notebook may say ``from course_utils.tickets import TICKET`` or
``from course_utils import doctor``; course_utils._compat answers for those paths. Each name below is
what the old module offered (read from the last commit before the move); each must import from
the old path and be the very object of its new home.
"""
import importlib
import subprocess
import sys
import warnings

import pytest

import course_utils as cu
from course_utils import _compat

#: old path -> the public names it had, and the new home of each.
OLD = {
    "course_utils.examples": ("lessons.data", ["ARTICLE_SCORES", "ARTICLE_TOKENS", "ARTICLE_VALUES"]),
    "course_utils.tickets": ("lessons.data", [
        "EMBEDDINGS", "FEATURES", "HANDMADE_QK_FEATURES", "HANDMADE_V_FEATURES", "HANDMADE_W_K", "HANDMADE_W_Q",
        "HANDMADE_W_V", "TICKET", "TICKETS", "embed", "padded_batch"]),
    "course_utils.heads": (None, {
        "lessons.data": ["D_MODEL", "PROJECTION_SCALE", "VOCABULARY", "embed_wide", "padded_batch_wide",
                         "random_projections", "wide_embeddings"],
        "lessons.heads": ["PATTERNS", "head_columns", "pattern_scores", "permute_heads"]}),
    "course_utils.influence": (None, {
        "lessons.data": ["EXPERIMENT_QUERY", "EXPERIMENT_READOUT", "EXPERIMENT_SCORES", "EXPERIMENT_TOKENS",
                         "EXPERIMENT_VALUES"],
        "lessons.influence": ["contributions", "removal_effects", "removal_outputs"]}),
    "course_utils.scaling": ("lessons.scaling", [
        "DEFAULT_MAX_D_K", "dot_product_std", "entropy", "query_and_keys", "row_weights", "saturation_stats"]),
    "course_utils.measure": ("lessons.measure", ["time_call", "peak_bytes"]),
    "course_utils.training": ("lessons.training", [
        "FILLERS", "ITEMS", "PARAM_NAMES", "QUERY_WORD", "TrainingRun", "VOCAB", "accuracy", "forward",
        "grad_scores", "gradient_check", "init_params", "loss_and_grads", "make_tickets", "numerical_gradients",
        "softmax_backward", "ticket_words", "train"]),
    "course_utils.doctor": ("tools.doctor", [
        "CourseEnv", "MIN_PYTHON", "course_env", "find_repo", "interpreter_from_script", "kernel_interpreter",
        "lock_name", "main", "parse_lock", "server_from_cmdline", "show", "summary"]),
    "course_utils.build": ("tools.build", [
        "BuildResult", "ExecutionResult", "NotebookReadError", "SolutionMarkerError", "UsageError",
        "backup_notebook", "build", "execute_solutions", "fingerprint", "has_learner_edits", "learner_notebook",
        "main", "read_notebook", "strip_solutions", "write_notebook"]),
    "course_utils.reset": ("tools.reset", ["BackupError", "ResetResult", "main", "reset", "resolve_name"]),
    "course_utils.widgets.online_softmax": (None, {
        "widgets.scale": ["OnlineSoftmaxDashboard"], "lessons.data": ["ONLINE_SCORES"],
        "lessons.online_softmax": ["online_states"]}),
}


def _cases():
    for old, (home, names) in OLD.items():
        homes = {home: names} if home else names
        for new, listed in homes.items():
            for name in listed:
                yield old, f"course_utils.{new}", name, name
        for old_name, new_name in _compat.OLD_NAMES.get(old, {}).items():  # renamed since
            yield old, f"course_utils.{home}", old_name, new_name


@pytest.mark.parametrize("old, new, name, new_name", list(_cases()), ids=lambda v: str(v))
def test_old_name_imports_as_the_same_object(old, new, name, new_name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no DeprecationWarning or any other
        module = importlib.import_module(old)
        got = getattr(module, name)
    assert got is getattr(importlib.import_module(new), new_name)


def test_every_old_path_is_covered_here():
    assert set(OLD) <= set(_compat.OLD_PATHS)


def test_from_import_statements_of_saved_notebooks_work():
    """The exact lines notebooks had before the move, in a fresh interpreter."""
    lines = [
        "from course_utils.examples import ARTICLE_SCORES, ARTICLE_VALUES, ARTICLE_TOKENS",
        "from course_utils.tickets import EMBEDDINGS, TICKET, TICKETS, embed, padded_batch",
        "from course_utils.heads import PATTERNS, embed_wide, head_columns, padded_batch_wide, random_projections",
        "from course_utils.influence import EXPERIMENT_SCORES, contributions, removal_effects, removal_outputs",
        "from course_utils.scaling import dot_product_std, saturation_stats, query_and_keys, row_weights",
        "from course_utils.measure import peak_bytes, time_call",
        "from course_utils import training as tr; tr.make_tickets(4)",
        "from course_utils import doctor; doctor.python_checks; doctor.CheckResult",
        "from course_utils.widgets.online_softmax import ONLINE_SCORES",
        "import course_utils.tickets; course_utils.tickets.TICKET",
    ]
    code = "import warnings; warnings.simplefilter('error')\n" + "\n".join(lines)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("name", cu.LAZY_MODULES + ("tickets", "heads", "training", "doctor"))
def test_cu_attribute_access_reaches_every_public_module(name):
    assert importlib.import_module(f"course_utils.{name}") is getattr(cu, name)


@pytest.mark.parametrize("package, names", [
    ("lessons", ("data", "scaling", "masking", "heads", "influence", "training", "online_softmax", "measure")),
    ("tools", ("build", "reset", "doctor")),
])
def test_subpackage_attribute_access(package, names):
    sub = getattr(cu, package)
    for name in names:
        assert getattr(sub, name) is importlib.import_module(f"course_utils.{package}.{name}")


def test_the_finder_answers_for_old_paths_only():
    assert _compat._FINDER.find_spec("course_utils.lessons.data") is None
    assert _compat._FINDER.find_spec("numpy") is None
    assert _compat._FINDER.find_spec("course_utils.tickets") is not None
