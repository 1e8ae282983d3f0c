"""The student release (``make release``, ``book/student_release.py``): what a teacher publishes for students.

Built once into a scratch folder, it must be a git repository of one clean commit; hold the chapters, the library,
the book's package, the results the chapters read and a Makefile with ``lab`` and ``lab-dpsgd``; hold no line of any
instructor-only solution (text, code or output) and the public note in the place of each; keep every shown cell
runnable without the cells it lost; and run: two chapters are executed from the release, importing its own copy
of the library. Building it leaves this repository as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).parent))

import test_lesson_cells as lessons  # noqa: E402
import test_rendered_pages as rendered  # noqa: E402
from book_extensions import load  # noqa: E402

instructor = load("instructor")
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
EXECUTED = ("02_primer", "10_information_equivalence")  # cheap chapters with instructor-only solutions


def _release_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("student_release", ROOT / "book" / "student_release.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    from exercise_runs import repository_state

    before = repository_state()
    out = _release_module().build(tmp_path_factory.mktemp("student") / "release")
    assert repository_state() == before, "building the release changed this repository"
    return out


def _git(folder: Path, *arguments: str) -> str:
    return subprocess.run(["git", *arguments], cwd=folder, capture_output=True, text=True, check=True).stdout


def test_the_release_is_a_repository_of_its_own_with_what_students_run(release):
    assert len(_git(release, "log", "--oneline").splitlines()) == 1 and _git(release, "status", "--porcelain") == ""
    tracked = set(_git(release, "ls-files").splitlines())
    for script in CHAPTERS:
        assert {f"notebooks/{script.name}", f"notebooks/{script.stem}.ipynb"} <= tracked
    for name in ("accountlib/__init__.py", "book/accountbook/ledger.py", "book/accountbook/data/claims.toml",
                 "pyproject.toml", "book/pyproject.toml", "requirements-lock.txt", "Makefile", "README.md",
                 "results/dhc/census_eps_delta.csv", "results/ledger.json", "benchmarks/results_sweep.json"):
        assert name in tracked, name
    assert not [name for name in tracked if name.startswith(("tests/", "book/_ext", "book/teachers", "_config"))]
    plan = subprocess.run(["make", "-n", "lab", "lab-dpsgd"], cwd=release, capture_output=True, text=True)
    assert plan.returncode == 0 and "jupyter lab" in plan.stdout and "requirements-lock.txt" in plan.stdout, plan


def test_the_release_holds_no_instructor_only_solution(release):
    texts = {path: path.read_text(encoding="utf-8", errors="replace") for path in release.rglob("*")
             if path.is_file() and ".git" not in path.parts and path.suffix in (".py", ".ipynb", ".md", ".toml", ".txt")}
    notebooks = {path: text for path, text in texts.items() if path.parent == release / "notebooks"}
    problems, solutions = [], 0
    for script in CHAPTERS:
        count, lines = rendered.instructor_only_lines(script)
        solutions += count
        for suffix in (".py", ".ipynb"):
            copy = release / "notebooks" / f"{script.stem}{suffix}"
            text = rendered._folded(notebooks[copy]) if suffix == ".py" else notebooks[copy]
            if suffix == ".py" and text.count(instructor.NOTE) != count:
                problems.append(f"{copy.name}: {count} instructor-only solutions, {text.count(instructor.NOTE)} notes")
        for path, text in texts.items():
            # a line of this chapter's held-back solutions may also be an ordinary line of another file (an import,
            # a library call): only a copy that holds it where its original does not has leaked it
            original = ROOT / path.relative_to(release)
            if path.parent == release / "notebooks" and path.stem == script.stem:
                elsewhere = ""
            else:
                elsewhere = rendered._folded(original.read_text(encoding="utf-8", errors="replace")) \
                    if original.is_file() else ""
            folded = rendered._folded(text)
            problems += [f"{path.relative_to(release)}: {line[:70]!r}" for line in lines
                         if line in folded and line not in elsewhere]
    problems += [f"{path.name} names the instructor-only class" for path, text in notebooks.items()
                 if instructor.INSTRUCTOR_CLASS in text]
    assert solutions >= 2 * len(CHAPTERS)  # the chapters hold them back, and the check looked for them
    assert not problems, "\n".join(problems[:40])


def test_every_cell_left_in_the_release_runs_without_the_solutions_it_lost(release):
    problems = []
    for script in CHAPTERS:
        original = jupytext.read(script)
        stripped = jupytext.read(release / "notebooks" / script.name)
        kept = {cell.source for cell in stripped.cells if cell.cell_type == "code"}
        lost = set()
        for cell in original.cells:
            if cell.cell_type == "code" and cell.source not in kept:
                lost |= lessons._bound_and_used(cell.source)[0]
        bound = set(lessons._BUILTINS)
        for cell in stripped.cells:
            if cell.cell_type != "code":
                continue
            names, used = lessons._bound_and_used("\n".join(line for line in cell.source.splitlines()
                                                            if not line.lstrip().startswith(("%", "!"))))
            missing = sorted((used - names - bound) & lost)
            if missing:
                problems.append(f"{script.name}: a cell uses {', '.join(missing)}, defined only in a held-back "
                                f"solution: {cell.source.strip().splitlines()[0][:70]!r}")
            bound |= names
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("stem", EXECUTED)
def test_a_chapter_of_the_release_executes_with_the_releases_library(release, stem, tmp_path):
    import papermill

    from accountbook.notebook_sweep import batch_environment

    notebook = jupytext.read(release / "notebooks" / f"{stem}.py")
    check = nbformat.v4.new_code_cell(
        "import accountlib, accountbook, pathlib\n"
        f"assert pathlib.Path(accountlib.__file__).is_relative_to({str(release)!r}), accountlib.__file__\n"
        f"assert pathlib.Path(accountbook.__file__).is_relative_to({str(release)!r}), accountbook.__file__")
    notebook.cells.insert(0, check)
    path = os.pathsep.join([str(release), str(release / "book"), os.environ.get("PYTHONPATH", "")])
    saved = {name: os.environ.pop(name, None) for name in ("ACCOUNTLIB_RESULTS",)}
    try:
        with batch_environment(PYTHONPATH=path, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1"):
            executed = papermill.execute_notebook(notebook, str(tmp_path / f"{stem}.ipynb"),
                                                  cwd=str(release / "notebooks"), progress_bar=False,
                                                  extra_arguments=["--log-level=CRITICAL"])
    finally:
        os.environ.update({k: v for k, v in saved.items() if v is not None})
    assert not any(output.get("output_type") == "error" for cell in executed.cells for output in cell.get("outputs", []))
    assert _git(release, "status", "--porcelain") == "", "running a chapter wrote in the release"
    assert json.loads((release / "results" / "ledger.json").read_text())  # read, never rewritten


def test_the_teachers_page_sends_students_to_the_release():
    text = " ".join((ROOT / "book" / "teachers.md").read_text(encoding="utf-8").split())
    assert "Students work from the **student release**, never from this repository" in text
    assert "make release RELEASE=" in text and "Students clone the release" in text
    # the make target the page names exists and runs the script
    assert "release: $(STAMP)" in (ROOT / "Makefile").read_text() and "book/student_release.py" in (ROOT / "Makefile").read_text()
