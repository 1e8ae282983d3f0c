# Two commands (see README):  make book   and   make test
# Both create .venv on first use and install accountlib with its book and test extras into it.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book test install lab clean

# torch==2.13.0 (CPU) comes from the machine's local wheel folder; install it before opacus.
WHEELS := $(wildcard /opt/wheels)
FIND   := $(if $(WHEELS),--find-links $(WHEELS),)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(FIND) 'torch==2.13.0'
	$(BIN)/python -m pip install --quiet $(FIND) -e '.[book,test,dist,dpsgd]'
	touch $(STAMP)

install: $(STAMP)

# ACCOUNTLIB_BATCH_EXECUTION=1: the chapters' live ipywidgets controls (explorers.live) are not built in a
# batch run, where nbclient can deadlock on them; the pages show the precomputed explorers instead.
book: $(STAMP)
	ACCOUNTLIB_BATCH_EXECUTION=1 $(BIN)/jupyter-book build . -W -n --keep-going

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile tests accountlib

# JupyterLab on the chapters, in the project's environment. jupytext pairs each notebook with its .py
# source, so saving in JupyterLab updates both. Extra options: make lab LAB_ARGS="--no-browser --port 8899"
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
lab: $(STAMP)
	$(BIN)/jupyter lab $(ROOT_FLAG) $(LAB_ARGS) notebooks/

clean:
	rm -rf _build
