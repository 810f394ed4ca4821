"""repo2docker (the image builder of Binder and of most hubs) reads the repository as intended.

On a clean copy of the repository (the files git tracks, as they are in the working tree), ``jupyter-repo2docker
--no-build --debug`` writes the Dockerfile it would build, without a Docker engine. It must:

- pick the conda build pack, for the Python version of environment.yml;
- install environment.yml as it is (its pins, which tests/test_environment_files.py ties to the lock), read
  through repo2docker's own parser: every pip package pinned with ``==`` at the lock's version;
- run postBuild (executable in git) after the whole repository is copied in (it installs course_utils from it);
- find nothing that takes precedence (a binder/ or .binder/ folder).

repo2docker is a maintainers' tool, in requirements-dev.lock (not the learner's lock): the test runs when
``jupyter-repo2docker`` is in this environment, on PATH, or named by REPO2DOCKER (its path), and is skipped with a
message otherwise, except where COURSE_REQUIRE_REPO2DOCKER=1 (.ci/run): there a missing repo2docker is a failure.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIP_MESSAGE = ("jupyter-repo2docker is not installed: `make env-dev` installs it from requirements-dev.lock (or pip "
                "install jupyter-repo2docker==2026.4.0 anywhere and set REPO2DOCKER=/path/to/jupyter-repo2docker)")


def find_repo2docker():
    named = os.environ.get("REPO2DOCKER")
    if named:
        return named if Path(named).is_file() else None
    here = Path(sys.executable).parent / "jupyter-repo2docker"
    return str(here) if here.is_file() else shutil.which("jupyter-repo2docker")


def interpreter_of(script):
    """The Python that runs a console script (its #! line), so repo2docker's own parser can be called."""
    first = Path(script).read_text(encoding="utf-8", errors="replace").splitlines()[0]
    if not first.startswith("#!"):
        pytest.skip(f"cannot tell which Python runs {script}")
    return first[2:].strip().split()[0]


@pytest.fixture(scope="module")
def repo2docker():
    found = find_repo2docker()
    if found is None and os.environ.get("COURSE_REQUIRE_REPO2DOCKER") == "1":
        pytest.fail(f"COURSE_REQUIRE_REPO2DOCKER=1 but {SKIP_MESSAGE} (make env-dev installs it)")
    if found is None:
        pytest.skip(SKIP_MESSAGE)
    return found


@pytest.fixture(scope="module")
def clean_copy(tmp_path_factory):
    """The files git tracks, copied from the working tree (no .venv, build/, backups/ or untracked files)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    copy = tmp_path_factory.mktemp("course")
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            target = copy / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)  # keeps postBuild's executable bit
    return copy


@pytest.fixture(scope="module")
def recipe(repo2docker, clean_copy):
    """(Dockerfile, log) of ``jupyter-repo2docker --no-build --debug`` on the clean copy."""
    result = subprocess.run([repo2docker, "--no-build", "--debug", str(clean_copy)], cwd=clean_copy,
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "FROM " in result.stdout, result.stdout[:2000]
    return result.stdout, result.stderr


def environment_python():
    match = re.search(r"^\s*-\s*python\s*=\s*([\d.]+)\s*$", (ROOT / "environment.yml").read_text(), re.M)
    assert match, "environment.yml names no python=X.Y"
    return match[1]


def lock_versions():
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if "==" in line and not line.lstrip().startswith("#"):
            name, version = line.split("#")[0].strip().split("==")
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version.strip()
    return pins


def test_repo2docker_picks_conda_for_environment_ymls_python(recipe):
    _, log = recipe
    assert f"Building conda environment for python={environment_python()}" in log, log


def test_the_dockerfile_installs_environment_yml_as_it_is(recipe):
    dockerfile, _ = recipe
    assert re.search(r"^COPY --chown=\S+ src/environment\.yml \$\{REPO_DIR\}/environment\.yml$", dockerfile, re.M)
    assert re.search(r'env update -p \$\{NB_PYTHON_PREFIX\} --file "environment\.yml"', dockerfile)


def test_postbuild_runs_after_the_whole_repository_is_copied(recipe):
    dockerfile, _ = recipe
    lines = dockerfile.splitlines()
    copy_all = next(i for i, line in enumerate(lines) if re.match(r"COPY --chown=\S+ src/ \$\{REPO_DIR\}/$", line))
    post_build = lines.index("RUN ./postBuild")
    assert copy_all < post_build


def test_postbuild_is_executable_in_git_and_installs_course_utils():
    mode = subprocess.run(["git", "ls-files", "-s", "postBuild"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.split()[0]
    assert mode == "100755", "git update-index --chmod=+x postBuild"
    text = (ROOT / "postBuild").read_text()
    assert text.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in text
    assert re.search(r"^python -m pip install --no-deps --editable \.$", text, re.M)


def test_nothing_takes_precedence_over_environment_yml():
    assert not (ROOT / "binder").exists() and not (ROOT / ".binder").exists()


def test_repo2docker_reads_the_pins_of_the_lock(repo2docker, clean_copy):
    """repo2docker's own parser (CondaBuildPack.environment_yaml), run in its own Python, on the clean copy."""
    code = (
        "import json\n"
        "from repo2docker.buildpacks import CondaBuildPack\n"
        "pack = CondaBuildPack('docker.io/library/buildpack-deps:24.04')\n"
        "deps = pack.environment_yaml.get('dependencies', [])\n"
        "pip = next((d['pip'] for d in deps if isinstance(d, dict) and 'pip' in d), [])\n"
        "print(json.dumps({'detect': pack.detect(), 'python': pack.python_version, 'pip': pip}))\n"
    )
    result = subprocess.run([interpreter_of(repo2docker), "-c", code], cwd=clean_copy, capture_output=True,
                            text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    read = json.loads(result.stdout.strip().splitlines()[-1])
    assert read["detect"] is True
    assert read["python"] == environment_python()
    pins = lock_versions()
    assert read["pip"], "environment.yml lists no pip packages"
    for requirement in read["pip"]:
        name, _, version = requirement.partition("==")
        assert version, f"{requirement} is not pinned with =="
        assert pins.get(re.sub(r"[-_.]+", "-", name).lower()) == version, f"{requirement} differs from the lock"
