# Two commands (see README):  make book   and   make test
# Both create .venv on first use and install into it the tested versions of requirements-lock.txt, then
# accountlib itself (editable, with its test and dist extras) and the book's package book/ (accountbook,
# editable, with its dpsgd extra); the lock holds every package they need.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book test test-library install lock lab clean

# torch==2.13.0 (CPU) comes from the machine's local wheel folder; install it before the lock (which pins
# torch==2.13.0, satisfied by that CPU build) so pip never fetches the CUDA build.
WHEELS := $(wildcard /opt/wheels)
FIND   := $(if $(WHEELS),--find-links $(WHEELS),)

EXTRAS := test,dist,accountant
BOOK_EXTRAS := dpsgd

$(STAMP): pyproject.toml book/pyproject.toml requirements-lock.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(FIND) 'torch==2.13.0'
	$(BIN)/python -m pip install --quiet $(FIND) -r requirements-lock.txt
	$(BIN)/python -m pip install --quiet --no-deps -e '.[$(EXTRAS)]' -e './book[$(BOOK_EXTRAS)]'
	touch $(STAMP)

install: $(STAMP)

# After upgrading packages in .venv and running make test: pin what was tested (tests/lock_file.py).
lock: $(STAMP)
	$(BIN)/python tests/lock_file.py
	touch $(STAMP)

# ACCOUNTLIB_BATCH_EXECUTION=1: the chapters' live ipywidgets controls (explorers.live) are not built in a
# batch run, where nbclient can deadlock on them; the pages show the precomputed explorers instead.
book: $(STAMP)
	ACCOUNTLIB_BATCH_EXECUTION=1 $(BIN)/jupyter-book build . -W -n --keep-going

# The README's test command, the one CI runs: both tiers (tests/library, tests/book) and the doctests.
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile tests accountlib book/accountbook

# The library alone, for working on it: tests/library without the slow checks, and the library's doctests.
test-library: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile -m "not slow" tests/library accountlib

# JupyterLab on the chapters, in the project's environment. jupytext pairs each notebook with its .py
# source, so saving in JupyterLab updates both. Extra options: make lab LAB_ARGS="--no-browser --port 8899"
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
lab: $(STAMP)
	$(BIN)/jupyter lab $(ROOT_FLAG) $(LAB_ARGS) notebooks/

clean:
	rm -rf _build
