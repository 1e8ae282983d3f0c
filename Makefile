# Two commands (see README):  make book   and   make test
# Both create .venv on first use and install into it the tested versions of requirements-lock.txt, then
# accountlib itself (editable, with its test and dist extras) and the book's package book/ (accountbook,
# editable, with its dpsgd and build extras); the lock holds every package they need.
# `make lab` installs less (the chapters without DP-SGD, at the lock's versions); `make lab-dpsgd` adds torch
# and Opacus; `make book-instructor` builds the instructor edition; `make pdf` the book as one PDF; `make release`
# the student release (the chapters without the instructor-only solutions, as a repository of its own).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book book-instructor pdf release test test-library benchmarks benchmarks-quick install lock lab lab-dpsgd clean

# torch==2.13.0 (CPU) comes from the machine's local wheel folder; install it before the lock (which pins
# torch==2.13.0, satisfied by that CPU build) so pip never fetches the CUDA build.
WHEELS := $(wildcard /opt/wheels)
FIND   := $(if $(WHEELS),--find-links $(WHEELS),)

EXTRAS := test,dist,accountant
BOOK_EXTRAS := dpsgd,build

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
# ACCOUNTLIB_RESULTS: the builds execute the chapters at their default parameters and so record the reproduction
# ledger, results/ledger.json (accountbook.ledger); no other execution of a chapter (make lab, papermill, an
# exercise's change) writes it.
RECORD := ACCOUNTLIB_RESULTS=$(CURDIR)/results
book: $(STAMP)
	$(RECORD) ACCOUNTLIB_BATCH_EXECUTION=1 $(BIN)/jupyter-book build . -W -n --keep-going

# The instructor edition: the same pages with the instructor-only solutions present (book/_ext/instructor.py),
# into _build/instructor/_build/html. It reuses the execution cache of `make book` (_build/.jupyter_cache), so
# after `make book` no chapter is executed again. Not for publication.
book-instructor: $(STAMP)
	$(RECORD) BOOK_EDITION=instructor ACCOUNTLIB_BATCH_EXECUTION=1 $(BIN)/jupyter-book build . -W -n --keep-going \
	    --path-output _build/instructor
	@echo "The instructor edition: _build/instructor/_build/html/index.html"

# The public book as one PDF, from the same sources and execution cache: the single-page HTML build, printed
# by headless Chromium (Debian's chromium, no network), then checked to open and to hold every chapter's
# title (tests/book_pdf.py, with pypdf), into _build/pdf/book.pdf and, where the site is built, beside its
# pages (_build/html/book.pdf), where every page's download menu and the home page link it.
pdf: $(STAMP)
	$(RECORD) ACCOUNTLIB_BATCH_EXECUTION=1 $(BIN)/jupyter-book build . -W -n --keep-going --builder singlehtml
	$(BIN)/python tests/book_pdf.py _build/singlehtml/index.html _build/pdf/book.pdf
	if [ -d _build/html ]; then cp _build/pdf/book.pdf _build/html/book.pdf; fi

# The student release: the chapters without the instructor-only solutions, the library, the results they read and
# a Makefile with `make lab`, as a git repository of its own that a teacher publishes (book/student_release.py).
# make release RELEASE=../course-2027 writes it there; an existing folder is refused unless RELEASE_ARGS=--force.
RELEASE ?= _build/student-release
release: $(STAMP)
	$(BIN)/python book/student_release.py $(RELEASE) $(RELEASE_ARGS)

# The README's test command, the one CI runs: both tiers (tests/library, tests/book) and the doctests.
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile tests accountlib book/accountbook

# The library alone, for working on it: tests/library without the slow checks, and the library's doctests.
test-library: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile -m "not slow" tests/library accountlib

# The benchmarks (benchmarks/run.py): each script writes its results file (with the commit, the SHA-256 of the
# code it measured, the CPU, the load average at its start and end, its wall time) and its tables, which the book's
# Performance page (book/benchmarks.md) shows. `make benchmarks` reruns those whose measured code changed since
# their run, about 97 minutes for all eight on the book's 2-core machine; FORCE=1 reruns all. It refuses a
# benchmark while the load average is above 0.75 × the cores (1.5 on 2 cores); LOAD=ignore measures anyway and
# records the load on the page. `make benchmarks-quick` (or QUICK=1) is a smoke run of all eight, about 5 minutes,
# into _build/benchmarks-quick (never the book's results). `make test` lists the benchmarks whose code changed.
# BENCHMARKS="sweep engine" runs only those (names: .venv/bin/python benchmarks/run.py --help).
BENCHMARK_FLAGS = $(if $(filter 1,$(QUICK)),--quick) $(if $(filter 1,$(FORCE)),--force) \
                  $(if $(filter ignore,$(LOAD)),--allow-load) $(if $(BENCHMARKS),--only $(BENCHMARKS))
benchmarks: $(STAMP)
	$(BIN)/python benchmarks/run.py $(BENCHMARK_FLAGS)

benchmarks-quick: $(STAMP)
	$(BIN)/python benchmarks/run.py --quick $(BENCHMARK_FLAGS)

# JupyterLab on the chapters. jupytext pairs each notebook with its .py source, so saving in JupyterLab
# updates both. Extra options: make lab LAB_ARGS="--no-browser --port 8899"
# `make lab` installs only what the chapters without DP-SGD need: accountlib (with its accountant extra, the
# dp_accounting drop-in) and accountbook without extras, each dependency at its version in the lock
# (-c: the lock as constraints, so only what is needed is installed): no torch, Opacus, scikit-learn, Dask,
# Jupyter Book or test tools. `make lab-dpsgd` adds torch (CPU) and Opacus (the DP-SGD chapter, and the
# Opacus row of the calibration table of "Calibrating exactly"). Where `make book` or `make test` has installed everything already,
# both use that environment as it is.
LAB_EXTRAS  := accountant
LAB_STAMP   := $(VENV)/.installed-lab
DPSGD_STAMP := $(VENV)/.installed-dpsgd
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

$(LAB_STAMP): pyproject.toml book/pyproject.toml requirements-lock.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c requirements-lock.txt -e '.[$(LAB_EXTRAS)]' -e './book'
	touch $(LAB_STAMP)

$(DPSGD_STAMP): $(LAB_STAMP)
	$(BIN)/python -m pip install --quiet $(FIND) 'torch==2.13.0'
	$(BIN)/python -m pip install --quiet $(FIND) -c requirements-lock.txt -e './book[dpsgd]'
	touch $(DPSGD_STAMP)

lab: $(if $(wildcard $(STAMP)),$(STAMP),$(LAB_STAMP))
	$(BIN)/jupyter lab $(ROOT_FLAG) $(LAB_ARGS) notebooks/

lab-dpsgd: $(if $(wildcard $(STAMP)),$(STAMP),$(DPSGD_STAMP))
	$(BIN)/jupyter lab $(ROOT_FLAG) $(LAB_ARGS) notebooks/

clean:
	rm -rf _build
