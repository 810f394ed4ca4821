# Self-attention, hands-on. The commands a newcomer needs:
#   make lab    create the environment when missing, then open the course in JupyterLab
#   make test   create the environment when missing, then run every test and notebook
#   make doctor create the environment when missing, then check this machine's setup (prints the fixes)
# Others: make notebooks (regenerate learner notebooks), make solutions (re-execute the
# solved notebooks and store their outputs), make lock (re-pin every package version).

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# Python 3.10 gets its own lock (numpy 2.4 and IPython 9 need 3.11+).
LOCK   := $(shell $(PYTHON) -c 'import sys; print("requirements-py310.lock" if sys.version_info[:2] == (3, 10) else "requirements.lock")' 2>/dev/null)
STAMP  := $(VENV)/.installed-$(LOCK)
FIRST_NOTEBOOK := notebooks/00-before-you-start.ipynb
# No browser pop-up on a machine without a display (a server, a container, CI).
ifeq ($(DISPLAY)$(WAYLAND_DISPLAY)$(filter Darwin,$(shell uname -s)),)
LAB_BROWSER := --no-browser
endif
# JupyterLab refuses to run as root (containers, WSL) unless told to.
ifeq ($(shell id -u),0)
LAB_BROWSER += --allow-root
endif
LAB_ARGS ?=

.PHONY: lab test env notebooks solutions lock clean-env

lab: $(STAMP)
	$(VENV)/bin/jupyter lab $(LAB_BROWSER) --ServerApp.root_dir="$(CURDIR)" $(LAB_ARGS) $(FIRST_NOTEBOOK)

# Lint first (ruff: pyflakes, pycodestyle, import order, likely bugs; config in pyproject.toml), then every test,
# doctest and notebook.
test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest $(PYTEST_ARGS)

env: $(STAMP)

# Checks Python, packages, course_utils, JupyterLab's widget extension and its python3 kernel.
# Exit code 1 and the exact fixes when something is wrong (same checks as notebook 00).
.PHONY: doctor
doctor: $(STAMP)
	$(PY) -m course_utils.tools.doctor

# The environment: a venv holding exactly the lock, plus course_utils (editable).
$(STAMP): $(LOCK) pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "The course needs Python 3.10 or newer; found " + sys.version.split()[0] + ". Install a newer Python, or run: make PYTHON=python3.11 ...")'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --no-deps -r $(LOCK)
	$(PY) -m pip install --quiet --no-deps --editable .
	@rm -f $(VENV)/.installed-*
	@touch $@
	@echo "Environment ready in $(VENV) (from $(LOCK))."

notebooks: $(STAMP)
	$(PY) -m course_utils.tools.build $(BUILD_ARGS)

solutions: $(STAMP)
	$(PY) -m course_utils.tools.build --execute-solutions

# make reset NB=01: restore the original learner notebook 01; your copy is kept first in
# backups/notebooks/ (its name carries the date and time; earlier backups are never overwritten).
.PHONY: reset
reset: $(STAMP)
	$(PY) -m course_utils.tools.reset $(NB)

lock:
	$(PYTHON) tools/lock.py

clean-env:
	rm -rf $(VENV)

# Maintainers: time and memory of course_utils attention against a naive loop and PyTorch (when installed),
# dashboard update latency and notebook run times; results in benchmarks/results/. Not part of `make test`.
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for this run only, so OpenBLAS picks the kernel of this CPU
# (tests and CI keep them); the kernel that ran is recorded in the results. BENCH_ARGS=--quick: a smoke run.
.PHONY: bench
bench: $(STAMP)
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $(PY) benchmarks/run.py $(BENCH_ARGS)
