"""Every seed of the package is checked in one place (_validate.check_seed): the same mistake gives the
same error everywhere (a seed of the wrong type: TypeError; a negative seed: ValueError)."""
import inspect

import pytest

import course_utils as cu
from course_utils.lessons import data, scaling, training

# every public function of the lessons that takes a seed, with the other arguments it needs
CALLS = {
    data.wide_embeddings: {},
    data.embed_wide: {"tokens": ("my",)},
    data.padded_batch_wide: {},
    data.stand_in_projections: {"count": 3, "d_model": 4},
    data.random_projections: {},
    scaling.dot_product_std: {"d_k_values": [4], "n_pairs": 10},
    scaling.query_and_keys: {"d_k": 4},
    scaling.saturation_stats: {"d_k_values": [4], "n_rows": 5},
    training.make_tickets: {"n": 2},
    training.init_params: {},
}


def test_every_seeded_lesson_function_is_listed():
    seeded = {fn for module in (data, scaling, training) for name, fn in vars(module).items()
              if inspect.isfunction(fn) and not name.startswith("_") and fn.__module__ == module.__name__
              and "seed" in inspect.signature(fn).parameters}
    assert seeded == set(CALLS)


@pytest.mark.parametrize("fn", list(CALLS), ids=lambda f: f.__name__)
@pytest.mark.parametrize("seed, error", [(1.0, TypeError), ("0", TypeError), (True, TypeError), (-1, ValueError)])
def test_a_bad_seed_gives_the_same_error_everywhere(fn, seed, error):
    with pytest.raises(error, match=r"seed must be a non-negative int"):
        fn(**CALLS[fn], seed=seed)


@pytest.mark.parametrize("fn", list(CALLS), ids=lambda f: f.__name__)
def test_a_good_seed_works_and_repeats(fn):
    first, again = fn(**CALLS[fn], seed=3), fn(**CALLS[fn], seed=3)
    assert repr(first) == repr(again)


def test_the_check_itself():
    assert cu._validate.check_seed(7) == 7
