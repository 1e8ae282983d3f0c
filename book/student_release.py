"""The student release: a folder a teacher publishes for students, its own git repository (``make release``).

It holds what students run and nothing they should not read: every chapter's jupytext source and executed
notebook (``notebooks/NN_name.py`` and ``.ipynb``) with the instructor-only solutions replaced by the note the
public book shows (``book/_ext/instructor.py``, the same stripping as the public site's downloadable sources), the
library (``accountlib``), the book's package (``book/accountbook``, which the chapters import), the results the
chapters read (``results/``), the pinned versions (``requirements-lock.txt``) and a Makefile whose ``make lab`` and
``make lab-dpsgd`` install and open JupyterLab as this repository's do. The instructor edition stays buildable from
this repository only; the release has no book build, no tests and no instructor-only text.

    python book/student_release.py OUT [--force]

writes OUT (refusing an existing OUT unless ``--force``, which replaces it), runs ``git init`` there and commits the
whole folder as one commit naming the commit of this repository it was made from.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: copied as they are (folders without their caches); the benchmarks' results files, which chapters quote
#: (accountbook.benchmarks), without the benchmarks themselves
COPIED = ["accountlib", "book/accountbook", "book/pyproject.toml", "pyproject.toml", "requirements-lock.txt",
          "results", "_toc.yml"] + sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "benchmarks").glob("results_*.json"))
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".ipynb_checkpoints", "*.lock", ".pytest_cache")

README = """\
# Exact privacy accounting — the student edition

The chapters of the book *Exact privacy accounting* as notebooks you run, change and re-run, with the library
they compute with (`accountlib`). The exercises marked for grading have their solutions held back here (each
says so where its solution would be); every other solution is folded beneath its exercise, as in the book.

On a machine with Python 3.11 and `pip`:

```bash
make lab         # creates .venv on first use, installs what the chapters need, opens JupyterLab on notebooks/
make lab-dpsgd   # the same with torch and Opacus: the DP-SGD chapter, and Opacus' row in "Calibrating exactly"
```

Each chapter is a jupytext pair, `notebooks/NN_name.py` (the source) and `NN_name.ipynb` (executed), `NN` being
its chapter number in the book; saving in JupyterLab updates both. The first code cell of every chapter holds its parameters: an exercise that asks you to
change a parameter means that cell, and its `% change:` line names the change. Running a chapter writes nothing
outside your notebooks.

Made from commit {commit} of the book's repository.
"""

MAKEFILE = """\
# make lab: JupyterLab on the chapters, in .venv, with each package at the version the book was tested with
# (requirements-lock.txt, as constraints: only what the chapters need is installed). make lab-dpsgd adds torch (CPU)
# and Opacus. Extra options for JupyterLab: make lab LAB_ARGS="--no-browser --port 8899"
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
LAB_STAMP   := $(VENV)/.installed-lab
DPSGD_STAMP := $(VENV)/.installed-dpsgd
WHEELS := $(wildcard /opt/wheels)
FIND   := $(if $(WHEELS),--find-links $(WHEELS),)
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: lab lab-dpsgd

$(LAB_STAMP): pyproject.toml book/pyproject.toml requirements-lock.txt
\t$(PYTHON) -m venv $(VENV)
\t$(BIN)/python -m pip install --quiet --upgrade pip
\t$(BIN)/python -m pip install --quiet -c requirements-lock.txt -e '.[accountant]' -e './book'
\ttouch $(LAB_STAMP)

$(DPSGD_STAMP): $(LAB_STAMP)
\t$(BIN)/python -m pip install --quiet $(FIND) 'torch==2.13.0'
\t$(BIN)/python -m pip install --quiet $(FIND) -c requirements-lock.txt -e './book[dpsgd]'
\ttouch $(DPSGD_STAMP)

lab: $(LAB_STAMP)
\t$(BIN)/jupyter lab $(ROOT_FLAG) $(LAB_ARGS) notebooks/

lab-dpsgd: $(DPSGD_STAMP)
\t$(BIN)/jupyter lab $(ROOT_FLAG) $(LAB_ARGS) notebooks/
"""

GITIGNORE = ".venv\n__pycache__/\n*.egg-info/\n.ipynb_checkpoints/\nresults/*.lock\n"


def _instructor():
    """book/_ext/instructor.py, whose stripping the public site's sources use too."""
    if "instructor" in sys.modules:
        return sys.modules["instructor"]
    spec = importlib.util.spec_from_file_location("instructor", ROOT / "book" / "_ext" / "instructor.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["instructor"] = module  # its dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def _git(folder: Path, *arguments: str) -> str:
    environment = {"GIT_AUTHOR_NAME": "student release", "GIT_AUTHOR_EMAIL": "release@localhost",
                   "GIT_COMMITTER_NAME": "student release", "GIT_COMMITTER_EMAIL": "release@localhost",
                   "PATH": "/usr/bin:/bin:/usr/local/bin"}
    return subprocess.run(["git", *arguments], cwd=folder, capture_output=True, text=True, check=True,
                          env=environment).stdout.strip()


def chapters() -> list[Path]:
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))


def build(out: Path, force: bool = False) -> Path:
    """Write the student release into ``out`` (a new folder; ``force`` replaces an existing one) and commit it."""
    out = Path(out).resolve()
    if out == ROOT or out in ROOT.parents or (ROOT in out.parents and ROOT / "_build" not in out.parents):
        raise ValueError(f"OUT must be a folder outside this repository (or under its _build/), and not one that "
                         f"contains it; got {out}")
    if out.exists():
        if not force:
            raise FileExistsError(f"{out} exists; give --force to replace it")
        shutil.rmtree(out)
    instructor = _instructor()
    out.mkdir(parents=True)
    for name in COPIED:
        source, target = ROOT / name, out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=IGNORED)
        else:
            shutil.copy2(source, target)
    (out / "notebooks").mkdir()
    for script in chapters():
        for path in (script, script.with_suffix(".ipynb")):
            target = out / "notebooks" / path.name
            shutil.copy2(path, target)
            instructor.strip_notebook_file(target)
    try:
        commit = _git(ROOT, "rev-parse", "--short", "HEAD")
    except (subprocess.CalledProcessError, FileNotFoundError):
        commit = "(unknown)"
    (out / "README.md").write_text(README.format(commit=commit), encoding="utf-8")
    (out / "Makefile").write_text(MAKEFILE, encoding="utf-8")
    (out / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    _git(out, "init", "--quiet")
    _git(out, "add", "--all")
    _git(out, "commit", "--quiet", "-m", f"Student release of the book Exact privacy accounting (commit {commit})")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Write the student release: the chapters without their "
                                     "instructor-only solutions, the library and make lab, as its own git repository.")
    parser.add_argument("out", type=Path, help="the folder to write (new, unless --force)")
    parser.add_argument("--force", action="store_true", help="replace OUT if it exists")
    args = parser.parse_args(argv)
    try:
        out = build(args.out, force=args.force)
    except (FileExistsError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"the student release: {out} (a git repository; publish it, and give students its address)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
