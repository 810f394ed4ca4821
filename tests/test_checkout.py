"""tools/_checkout.py: a tool run by its path finds this checkout, and one that needs the course's environment says
which Python to use when it is run by another (the learner trial: `python3 tools/reset.py 01` with a bare Python
ended in `ModuleNotFoundError: No module named 'nbformat'`)."""
import subprocess
import sys
from pathlib import Path

import _checkout

ROOT = Path(__file__).resolve().parent.parent


def test_the_root_is_this_checkout_and_first_on_the_path():
    assert _checkout.REPO_ROOT == ROOT and str(ROOT) in sys.path


def test_a_tool_without_its_environment_names_the_python_to_use(monkeypatch, tmp_path):
    monkeypatch.setitem(_checkout.NEEDS, "reset", "no_such_package_anywhere")
    monkeypatch.chdir(tmp_path)
    said = _checkout.missing_environment(ROOT / "tools" / "reset.py", python="/usr/bin/python3", arguments=["01"])
    assert said.startswith(f"{Path('tools', 'reset.py')} 01 needs the course's Python (this one, /usr/bin/python3, "
                           "has no no_such_package_anywhere)")
    assert f"in the course folder {ROOT}" in said
    assert ("run it with the course's Python" in said) is (ROOT / ".venv").exists()


def test_a_tool_that_runs_anywhere_or_has_its_environment_is_let_through():
    assert _checkout.missing_environment(ROOT / "tools" / "hub_link.py") is None  # needs nothing
    assert _checkout.missing_environment(ROOT / "tools" / "reset.py") is None  # nbformat is here


def test_run_by_a_python_without_the_package_the_tool_stops_with_the_sentence(tmp_path):
    """The very command of the report, with the package hidden from that Python (no traceback, exit code 1)."""
    hide = tmp_path / "sitecustomize.py"
    hide.write_text("import sys\nclass _Hide:\n    @staticmethod\n    def find_spec(name, path=None, target=None):\n"
                    "        if name.split('.')[0] == 'nbformat':\n            raise ModuleNotFoundError(name)\n"
                    "sys.meta_path.insert(0, _Hide)\n", encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "reset.py"), "01"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "needs the course's Python" in done.stderr and "has no nbformat" in done.stderr
