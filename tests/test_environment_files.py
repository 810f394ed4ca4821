"""The pinned environment is consistent: requirements.in, both lock files, environment.yml."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def normalise(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def direct_names():
    names = []
    for line in (ROOT / "requirements.in").read_text().splitlines():
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


def test_slow_import_packages_stay_out_of_the_lock():
    # rfc3987-syntax makes `import nbformat` take ~3 s (see tools/lock.py)
    for lock in ("requirements.lock", "requirements-py310.lock"):
        assert "rfc3987-syntax" not in lock_pins(lock)
