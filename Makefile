# Self-attention, hands-on. The commands a newcomer needs:
#   make lab    create the environment when missing, then open the course in JupyterLab
#   make notebook7  the same in Notebook 7 (the classic one-notebook-per-tab interface)
#   make test   create the environment when missing, then run every test and notebook
#   make doctor create the environment when missing, then check this machine's setup (prints the fixes)
# Others: make notebooks (regenerate learner notebooks), make solutions (re-execute the
# solved notebooks and store their outputs), make lock (re-pin every package version), make update (the course's
# latest version, your answers kept), make test-mine (your own notebooks), make html (offline HTML pages),
# make hub-link HUB=... (the JupyterHub link), make inventory-report FILES=... (what the room learned).
# Two environments in one .venv: the learner's (requirements.lock: make env, lab, notebook7, doctor, notebooks,
# reset, update) and the maintainers' additions on top (requirements-dev.lock: make env-dev, test, test-mine,
# solutions, bench, html). tools/install_env.py installs them with uv when it can, else with pip.
# Without make (Windows, or no make installed): `python3 course.py lab` (`py course.py lab` on Windows), and so on for
# lab, notebook7, doctor, update, reset, notebooks, test-mine, env, env-dev and test. course.py is the one home of
# the environment's steps and of starting Jupyter: the rules below decide when (their stamps), and call it.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# Python 3.10 gets its own lock (numpy 2.4 and IPython 9 need 3.11+). A Python older than 3.10 names none: the
# environment's rule then stops with course.py's message.
LOCK   := $(or $(shell $(PYTHON) course.py lock-name 2>/dev/null),requirements.lock)
STAMP  := $(VENV)/.installed-$(LOCK)
DEV_LOCK  := $(subst requirements,requirements-dev,$(LOCK))
DEV_STAMP := $(VENV)/.installed-$(DEV_LOCK)
# configurable-http-proxy for the JupyterHub test, from npm (the rule is under `test`).
HUB_PROXY := tests/hub/node_modules/.bin/configurable-http-proxy
# course.py adds --no-browser on a machine without a display (a server, a container, CI) and --allow-root as root
# (JupyterLab refuses root otherwise), unless LAB_BROWSER or LAB_ARGS already hold them.
LAB_BROWSER ?=
LAB_ARGS ?=
# The course's settings overrides for JupyterLab and Notebook 7 (both read them from the environment:
# {sys.prefix}/share/jupyter/lab/settings/overrides.d/): no "official Jupyter news?" pop-up over the dashboards.
# Written into $(VENV) by tools/jupyter_settings.py, never into ~/.jupyter or the repository.
OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.d/self-attention-hands-on.json

# A make argument quoted for the shell (NB="01 my copy" or a name with a quote stays one argument).
quote = '$(subst ','\'',$(1))'

.PHONY: lab notebook7 test test-mine env env-dev notebooks solutions lock clean-env

# course.py starts `$(VENV)/bin/jupyter lab` with the course's folder as root and notebook 00, after restarting
# an unfinished background compilation (.venv/.bytecode-pending); it shows the command first, as make would.
lab: $(STAMP) $(OVERRIDES)
	@$(PYTHON) course.py lab --venv $(VENV) -- $(LAB_BROWSER) $(LAB_ARGS)

# The same course in Notebook 7 (`jupyter notebook`): same root, same first notebook, same LAB_ARGS.
notebook7: $(STAMP) $(OVERRIDES)
	@$(PYTHON) course.py notebook7 --venv $(VENV) -- $(LAB_BROWSER) $(LAB_ARGS)

# Lint first (ruff: pyflakes, pycodestyle, import order, likely bugs; config in pyproject.toml), then every test,
# doctest and notebook.
test: $(DEV_STAMP) $(OVERRIDES) $(HUB_PROXY)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest $(PYTEST_ARGS)

# configurable-http-proxy for the JupyterHub test (tests/test_hub.py), pinned by tests/hub/package-lock.json and
# installed into tests/hub/node_modules by npm; without npm the hub test is skipped (.ci/run installs it and requires
# the test). touch: npm keeps the package's own (old) file times.
$(HUB_PROXY): tests/hub/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix tests/hub --no-audit --no-fund --loglevel=error && touch $@; \
	else \
		echo "npm not found: the JupyterHub test (tests/test_hub.py) will be skipped (apt-get install nodejs npm)"; \
	fi

# The learner's environment (make env), and the maintainers' additions on top of it (make env-dev).
env: $(STAMP) $(OVERRIDES)

env-dev: $(DEV_STAMP) $(OVERRIDES)

# Your own notebooks, as you left them: runs the learner notebooks in notebooks/ through nbval with your answers
# (the checkers say which exercise is not done yet), without touching them. It needs pytest and nbval, so the
# first run installs the maintainers' additions too (requirements-dev.lock).
test-mine: $(DEV_STAMP)
	$(PY) -m pytest --mine notebooks $(PYTEST_ARGS)

# Checks Python, packages, course_utils, JupyterLab's widget extension and its python3 kernel.
# Exit code 1 and the exact fixes when something is wrong (same checks as notebook 00).
.PHONY: doctor
doctor: $(STAMP)
	$(PY) tools/doctor.py

# The environment: a venv holding exactly the lock, plus course_utils (editable); installed by uv when it can be
# had (pinned in tools/install_env.py), else by pip; INSTALLER=pip forces pip. Stamps: the doctor reads them.
# The learner's lock is installed without compiling its bytecode; a worker compiles it afterwards in the background
# at low priority while JupyterLab starts (--compile later; the maintainers' additions compile at once). Until
# it is done .venv/.bytecode-pending exists, and make lab starts it again if it was stopped (course.py lab does).
# COMPILE=now compiles while installing, as before (benchmarks/setup.py's uv-now way).
# course.py install-learner: Python 3.10 or newer checked, tools/install_env.py, every older stamp removed, this
# stamp touched, "Environment ready in ..."; `course.py env` runs the same step when this rule would.
INSTALLER ?= $(or $(COURSE_INSTALLER),auto)
COMPILE ?= later
$(STAMP): $(LOCK) pyproject.toml
	@$(PYTHON) course.py install-learner --venv $(VENV) --installer $(INSTALLER) --compile $(COMPILE)

# The maintainers' additions, on top (--no-deps): remade when the learner's environment was.
$(DEV_STAMP): $(STAMP) $(DEV_LOCK)
	@$(PYTHON) course.py install-dev --venv $(VENV) --installer $(INSTALLER)

# Part of the environment step; remade after every reinstall and when the script changes.
$(OVERRIDES): $(STAMP) tools/jupyter_settings.py
	$(PY) tools/jupyter_settings.py

notebooks: $(STAMP)
	$(PY) tools/build.py $(BUILD_ARGS)

# The solved notebooks as offline HTML pages in build/html/ (figures with their alt text, maths as MathML, no script),
# for reading without Jupyter. HTML_ARGS: e.g. --out DIR or notebook names.
.PHONY: html
html: $(DEV_STAMP)
	$(PY) tools/html_pages.py $(HTML_ARGS)

solutions: $(DEV_STAMP)
	$(PY) tools/build.py --execute-solutions

# make reset NB=01: restore the original learner notebook 01; your copy is kept first in
# backups/notebooks/ (its name carries the date and time; earlier backups are never overwritten).
.PHONY: reset
reset: $(STAMP)
	$(PY) tools/reset.py $(call quote,$(NB))

# make update: bring in the newest course (git pull or a download) without losing a line you wrote: every
# notebook you changed is backed up first and kept; then the environment is brought up to the new lock.
.PHONY: update
update:
	@test -x $(PY) || $(MAKE) -s --no-print-directory env
	$(PY) tools/update.py
	@$(MAKE) -s --no-print-directory env

# make hub-link HUB=https://hub.example.org [REPO=https://github.com/OWNER/REPO] [REF=workshop-1.0.0]: print the
# nbgitpuller link that clones the course on a JupyterHub and opens notebook 00 (REPO: this clone's origin; REF:
# main; for a workshop, a branch made at a release tag: docs/instructor-guide.md). Needs only python3.
.PHONY: hub-link
hub-link:
	@$(PYTHON) tools/hub_link.py --hub $(call quote,$(HUB)) --repo $(call quote,$(REPO)) --ref $(call quote,$(REF))

# make inventory-report FILES="handed-in/": the concept inventory's answer files (notebooks 00 and 08) read back:
# per-question rates before and after, the misconception to address, the class's normalised gain, one figure.
.PHONY: inventory-report
inventory-report: $(STAMP)
	$(PY) tools/inventory_report.py --names $(call quote,$(FILES))

# LOCK_ARGS=--keep: re-resolve keeping every version the locks hold today (after editing requirements*.in).
lock:
	$(PYTHON) tools/lock.py $(LOCK_ARGS)

clean-env:
	$(PYTHON) tools/clean_env.py $(call quote,$(VENV))

# Maintainers: time and memory of course_utils' attention at notebook 07's sizes (no goal since issue 23),
# dashboard update latency, notebook run times, and a room of learners on a real JupyterHub (benchmarks/hub.py: the
# hub sizing in docs/instructor-guide.md; it needs the test's configurable-http-proxy); results in benchmarks/results/.
# Not part of `make test`.
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for this run only, so OpenBLAS picks the kernel of this CPU
# (tests and CI keep them); the kernel that ran is recorded in the results. The notebooks' kernels get them back as
# the machine set them (COURSE_BENCH_MACHINE_ENV), so notebooks are timed as a learner runs them.
# BENCH_ARGS=--quick: a smoke run; BENCH_ARGS=--setup adds the first setup (fresh clone, empty caches, pip and uv side
# by side: minutes); BENCH_ARGS="--only notebooks" runs one part (attention, dashboards, notebooks, hub).
BENCH_MACHINE_ENV := $(foreach v,OPENBLAS_CORETYPE OPENBLAS_L2_SIZE,$(if $(filter environment,$(origin $(v))),$(v)=$($(v))))
.PHONY: bench
bench: $(DEV_STAMP) $(HUB_PROXY)
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE COURSE_BENCH_MACHINE_ENV=$(call quote,$(BENCH_MACHINE_ENV)) \
		$(PY) benchmarks/run.py $(BENCH_ARGS)
