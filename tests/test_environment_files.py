"""The pinned environments are consistent: requirements.in (the learner's), requirements-dev.in (the maintainers'
additions), the learner's locks, the dev locks installed on top of them, environment.yml (the learner's)."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def normalise(name):
    return re.sub(r"[-_.]+", "-", name).lower()


#: (learner lock, dev lock) per Python: 3.11 and newer, 3.10.
LOCK_PAIRS = [("requirements.lock", "requirements-dev.lock"), ("requirements-py310.lock", "requirements-dev-py310.lock")]
ALL_LOCKS = [lock for pair in LOCK_PAIRS for lock in pair]


def direct_names(filename="requirements.in"):
    names = []
    for line in (ROOT / filename).read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            names.append(normalise(line))
    return names


def lock_pins(filename):
    pins = {}
    for line in (ROOT / filename).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        assert "==" in line, f"{filename}: {line!r} is not pinned with =="
        name, version = line.split("==")
        pins[normalise(name)] = version.split(";")[0].strip()
    return pins


def environment_yml_pins():
    """The `name==version` lines of environment.yml's pip section."""
    pins = {}
    for line in (ROOT / "environment.yml").read_text().splitlines():
        match = re.fullmatch(r"\s*-\s*([A-Za-z0-9_.\-]+)==([^\s#]+)\s*", line)
        if match:
            pins[normalise(match.group(1))] = match.group(2)
    return pins


@pytest.mark.parametrize("lock", ["requirements.lock", "requirements-py310.lock"])
def test_lock_pins_every_direct_requirement(lock):
    pins = lock_pins(lock)
    missing = [name for name in direct_names() if name not in pins]
    assert not missing, f"{lock} lacks {missing}: run `make lock`"


@pytest.mark.parametrize("learner,dev", LOCK_PAIRS)
def test_dev_lock_holds_only_what_the_learner_lock_does_not(learner, dev):
    # installed with --no-deps on top of the learner's lock: a package in both would be installed twice,
    # perhaps at another version than the one the learner's environment (and the doctor) expects
    both = sorted(set(lock_pins(learner)) & set(lock_pins(dev)))
    assert not both, f"{dev} repeats {both} from {learner}: run `make lock`"


@pytest.mark.parametrize("learner,dev", LOCK_PAIRS)
def test_learner_and_dev_locks_together_install_every_requirement(learner, dev):
    union = {**lock_pins(learner), **lock_pins(dev)}
    wanted = direct_names("requirements.in") + direct_names("requirements-dev.in")
    missing = [name for name in wanted if name not in union]
    assert not missing, f"{learner} + {dev} lack {missing}: run `make lock`"


@pytest.mark.parametrize("lock", ["requirements.lock", "requirements-py310.lock"])
def test_learners_do_not_install_the_maintainers_tools(lock):
    # the test runners, the linter and the browser driver are the maintainers'; a learner's `make lab` skips them
    tools = {"pytest", "nbval", "hypothesis", "playwright", "axe-playwright-python", "ruff", "nbgitpuller"}
    assert not tools & set(lock_pins(lock)), f"{lock} holds {sorted(tools & set(lock_pins(lock)))}"
    assert not tools & set(direct_names()), "requirements.in names maintainers' tools: move them to requirements-dev.in"


def test_environment_yml_lists_the_same_packages_at_the_locked_versions():
    env, lock = environment_yml_pins(), lock_pins("requirements.lock")
    assert sorted(env) == sorted(direct_names()), (
        f"environment.yml pins {sorted(env)} but requirements.in names {sorted(direct_names())}: run `make lock`")
    disagree = {name: (version, lock[name]) for name, version in env.items() if lock.get(name) != version}
    assert not disagree, f"environment.yml and requirements.lock disagree (yml, lock): {disagree}; run `make lock`"


def test_environment_yml_asks_for_a_python_the_lock_supports():
    text = (ROOT / "environment.yml").read_text()
    match = re.search(r"-\s*python=(3\.\d+)", text)
    assert match and tuple(map(int, match.group(1).split("."))) >= (3, 11), "requirements.lock is for Python 3.11+"


@pytest.mark.parametrize("lock", ALL_LOCKS)
def test_slow_import_packages_stay_out_of_the_lock(lock):
    # rfc3987-syntax makes `import nbformat` take ~3 s (see tools/lock.py)
    assert "rfc3987-syntax" not in lock_pins(lock)
