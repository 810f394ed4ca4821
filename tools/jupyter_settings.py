"""Write the course's settings overrides for JupyterLab and Notebook 7 into an environment.

`make env` and `python3 course.py env` (and every command of either that starts Jupyter) run it with the course's
own Python, so it writes into the course's environment, never into the learner's settings folder
(~/.jupyter/lab/user-settings) nor into the repository; on Windows too (a venv's sys.prefix is the venv there as well):

    {prefix}/share/jupyter/lab/settings/overrides.d/self-attention-hands-on.json

JupyterLab 4.6 and Notebook 7.6 both read their default-settings overrides from
``{sys.prefix}/share/jupyter/lab/settings`` (jupyterlab_server: ``overrides.d/*.json``, then
``overrides.json``; Notebook 7's ``app_settings_dir`` is JupyterLab's app directory). ``overrides.d`` holds one
file per package, so the course leaves ``overrides.json`` to whoever runs the environment. The overrides change
*defaults*: a learner's own setting (Settings > Settings Editor) still wins.

What it sets:

* ``fetchNews: "false"``: no "Would you like to get notified about official Jupyter news?" pop-up, which
  covers the dashboards (and no request to the news feed: the course runs offline). JupyterLab shows that
  pop-up; Notebook 7.6.5 does not load the plugin that asks, but reads the same setting.

Usage: python tools/jupyter_settings.py [--prefix PREFIX]   (default: this Python's sys.prefix)
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

#: plugin id -> {setting: value}; the schema of each is in {prefix}/share/jupyter/lab/schemas/.
OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false"},
}
FILE_NAME = "self-attention-hands-on.json"


def settings_dir(prefix=None):
    """The folder both frontends read overrides from: ``{prefix}/share/jupyter/lab/settings``."""
    return Path(sys.prefix if prefix is None else prefix) / "share" / "jupyter" / "lab" / "settings"


def overrides_path(prefix=None):
    """Where the course's overrides go: ``settings_dir(prefix)/overrides.d/self-attention-hands-on.json``."""
    return settings_dir(prefix) / "overrides.d" / FILE_NAME


def write_overrides(prefix=None):
    """Write ``OVERRIDES`` as JSON to ``overrides_path(prefix)`` (folders made as needed); return the path."""
    path = overrides_path(prefix)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(OVERRIDES, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", default=None, help="environment prefix (default: this Python's sys.prefix)")
    args = parser.parse_args(argv)
    path = write_overrides(args.prefix)
    print(f"JupyterLab / Notebook 7 settings overrides written to {path}")


if __name__ == "__main__":
    main()
