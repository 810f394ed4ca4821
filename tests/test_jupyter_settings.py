"""The settings overrides the environment step writes (tools/jupyter_settings.py, run by `make env`).

- the script writes ``{prefix}/share/jupyter/lab/settings/overrides.d/self-attention-hands-on.json``: JSON
  that turns off the "official Jupyter news?" question, and jupyterlab_server reads it as an override;
- JupyterLab and Notebook 7 both read overrides from that folder of this environment;
- the Makefile's environment step (and every target that starts Jupyter) runs the script;
- in the course's own environment the file is there (`make test` makes it first).

That both frontends honour it in a browser (no news question, the default received) is checked by
tests/test_browser.py.
"""
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "jupyter_settings.py"
NEWS = "@jupyterlab/apputils-extension:notification"


def load_script():
    spec = importlib.util.spec_from_file_location("jupyter_settings", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_script_writes_the_news_override_where_overrides_are_read(tmp_path):
    settings = load_script()
    result = subprocess.run([sys.executable, str(SCRIPT), "--prefix", str(tmp_path)], capture_output=True, text=True,
                            check=True)
    path = tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.d" / "self-attention-hands-on.json"
    assert str(path) in result.stdout
    assert json.loads(path.read_text()) == {NEWS: {"fetchNews": "false"}} == settings.OVERRIDES
    assert path == settings.overrides_path(tmp_path)
    # jupyterlab_server applies it to the schema defaults it sends (the learner's own settings still win)
    from jupyterlab_server.settings_utils import _get_overrides

    overrides, error = _get_overrides(str(settings.settings_dir(tmp_path)))
    assert not error
    assert overrides[NEWS] == {"fetchNews": "false"}


def test_writing_twice_gives_the_same_file_and_leaves_overrides_json_alone(tmp_path):
    settings = load_script()
    first = settings.write_overrides(tmp_path).read_bytes()
    assert settings.write_overrides(tmp_path).read_bytes() == first
    assert not (settings.settings_dir(tmp_path) / "overrides.json").exists()  # left to whoever runs the environment


def test_jupyterlab_and_notebook7_read_overrides_from_this_environment(monkeypatch):
    monkeypatch.delenv("JUPYTERLAB_DIR", raising=False)
    from jupyterlab.labapp import LabApp
    from notebook.app import JupyterNotebookApp

    expected = load_script().settings_dir()
    assert Path(LabApp().app_settings_dir).resolve() == expected.resolve()
    assert Path(JupyterNotebookApp().app_settings_dir).resolve() == expected.resolve()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("target", ["env", "lab", "notebook7", "test"])
def test_the_makefile_writes_the_overrides_before_jupyter_starts(target):
    # -n: print, run nothing; -W: as if the script had changed, so its rule is due
    commands = subprocess.run(["make", "-n", "-W", "tools/jupyter_settings.py", target], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.splitlines()
    writes = [i for i, line in enumerate(commands) if "tools/jupyter_settings.py" in line]
    assert writes, f"`make {target}` does not run tools/jupyter_settings.py:\n" + "\n".join(commands)
    starts = [i for i, line in enumerate(commands) if "bin/jupyter " in line or "-m pytest" in line]
    assert all(writes[0] < i for i in starts), commands


def test_the_course_environment_has_the_overrides():
    if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
        pytest.skip(f"not the course's environment ({sys.prefix}); `make env` writes the overrides into .venv")
    path = load_script().overrides_path()
    assert path.exists(), f"{path} is missing: run `make env` (it runs tools/jupyter_settings.py)"
    assert json.loads(path.read_text()) == load_script().OVERRIDES
