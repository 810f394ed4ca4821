"""Tools that know the repository checkout (maintainers and learners at the command line).

``build``   generate the learner notebooks from the solved ones; the sync check (``make notebooks``)
``reset``   restore one learner notebook after a verified backup (``make reset NB=01``)
``update``  bring a learner's clone to the course's latest version, answers carried over (``make update``)
``html``    the solved notebooks as self-contained, offline HTML pages (``python -m course_utils.tools.html``)
``hub_link`` the nbgitpuller link that puts the course on a JupyterHub (``make hub-link HUB=...``; standard
            library only, runs as a bare script)
``inventory_report`` what a room learned: the concept inventory's files summed up, before and after, with the
            normalised gain (``make inventory-report FILES="..."``)
``myths``    the Myth or fact? verdict cells of solutions/ written from ``lessons.myths`` and checked
            (``python -m course_utils.tools.myths [--write]``)
``doctor``  diagnose this machine's setup (``make doctor``; runs without numpy as a bare script:
            ``python3 course_utils/tools/doctor.py``)
"""
import importlib

MODULES = ("build", "reset", "update", "html", "hub_link", "inventory_report", "myths", "doctor")

__all__ = list(MODULES)


def __getattr__(name):
    if name in MODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'course_utils.tools' has no attribute {name!r}")
