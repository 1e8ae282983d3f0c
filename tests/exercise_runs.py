"""Every run or code exercise of a chapter, executed with the parameter change it instructs.

An exercise of kind ``run`` or ``code`` (the ``(★, run)`` of its title) declares, in the chapter source beside it,
the change of the chapter's ``parameters`` cell that it asks the reader to make: a MyST comment line in the
exercise's body (invisible on the page, readable in the source and in JupyterLab),

.. code-block:: md

    ```{exercise} Discrete against continuous (★, run)
    :label: ex-primer-sigma

    % change: sigma = 0.5
    % change: sigma = 2.0
    In the parameters cell at the top, set `sigma = 0.5`, then `sigma = 2.0`, ...
    ```

one line per change, each a ``;``-separated list of assignments ``name = literal`` to names the parameters cell
sets. The test suite (``tests/book/test_exercises.py``) executes the chapter with papermill once per change, as
far as the end of the exercise's solution (the cells after it need not run), and requires that no cell raises
(every ``assert`` of the solution holds at the changed values), that the solution's code prints or draws
something other than at the default parameters (a solution that does not depend on the change it asks for fails),
and that the execution writes nothing in the repository (``git status`` unchanged: a reader's run never records
the ledger). Changes of one chapter that do not set a parameter to different values share one execution; ``QUICK`` gives a chapter's
sizes for these executions (smaller grids that no exercise changes), so that they stay cheap.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
KINDS_WITH_A_CHANGE = ("run", "code")

#: Chapters whose run and code exercises do not yet declare their change, and why: their declaration test is expected
#: to fail (strictly: once the declarations are there it passes, and the entry must go); their declared changes, when
#: they come, are executed like every other chapter's.
AWAITING_DECLARATIONS: dict[str, str] = {}

#: Sizes of a chapter's exercise executions: parameters no exercise changes, set smaller than the book's defaults
#: so that the executions before a solution are quick (the defaults are executed by the chapter's own test).
QUICK: dict[str, dict] = {
    "07_census_dhc": {"find_paper_range": False},
    "08_edgeworth": {"heat_sigma2": [0.5, 5, 100], "heat_m": [1, 10, 80], "gap_pairs": [[13, 13], [6, 6], [1, 6]]},
    "11_what_zcdp_forgets": {"shift_grid": 21, "q_grid": 201, "omega_grid": 61, "curvature_grid": 101,
                             "argmax_xatol": 1e-2, "nu_grid": [1, 3, 6.013052641, 10, 30]},
    "12_acs_earnings": {"monte_carlo_releases": 2000, "search_epsilons": [3.0, 5.0], "search_deltas": [1e-5]},
    "16_calibrating_exactly": {"census_pairs": [[13, 13], [6, 6], [1, 13]]},
    "09_redistricting": {"releases": ["pl94-persons", "pl94-units"]},
}

_EXERCISE_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{exercise\}\s*(?P<title>.*)$")
_KIND = re.compile(r"\((?P<stars>★+),\s*(?P<kind>\w+)\)\s*$")
_LABEL = re.compile(r"^:label:\s*(\S+)\s*$")
_CHANGE = re.compile(r"^%\s*change:\s*(?P<assignments>.*\S)\s*$")
_SOLUTION_START = re.compile(r"\{solution-start\}\s*(\S+)")
_SOLUTION_END = re.compile(r"\{solution-end\}")
_SOLUTION_PROSE = re.compile(r"\{solution\}\s*(\S+)")


@dataclass
class Exercise:
    chapter: str
    label: str
    title: str
    kind: str
    changes: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # malformed declarations, said in a sentence
    solution_code: list[int] = field(default_factory=list)  # indices of the solution's code cells
    solution_end: int | None = None  # index of the cell that ends the solution


def parse_change(text: str) -> dict:
    """``name = literal; name = literal`` as a dict; a ValueError names what is wrong."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        raise ValueError(f"not Python assignments ({error.msg}): {text!r}") from None
    change = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            raise ValueError(f"each item must be 'name = literal': {ast.unparse(node)!r}")
        try:
            value = ast.literal_eval(node.value)
        except ValueError:
            raise ValueError(f"{node.targets[0].id}: the value must be a Python literal, got "
                             f"{ast.unparse(node.value)!r}") from None
        change[node.targets[0].id] = _jsonable(value)
    if not change:
        raise ValueError("an empty change")
    return change


def _jsonable(value):
    """Tuples as lists: papermill passes JSON-like values."""
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def read(script: Path) -> nbformat.NotebookNode:
    return jupytext.read(script)


def parameters_cell(notebook) -> tuple[int, dict]:
    """The index of the cell tagged ``parameters`` and the value of each name it sets (None where not a literal)."""
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            values = {}
            for node in ast.parse(cell.source).body:
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        names = target.elts if isinstance(target, ast.Tuple) else [target]
                        for position, name in enumerate(names):
                            try:
                                value = ast.literal_eval(node.value)
                                if isinstance(target, ast.Tuple):
                                    value = value[position]
                            except (ValueError, TypeError, IndexError):
                                value = None
                            values[name.id] = _jsonable(value)
            return index, values
    raise ValueError("no code cell tagged 'parameters'")


def exercises(script: Path) -> list[Exercise]:
    """The chapter's exercises, in order, with their declared changes and where their solutions lie."""
    notebook = read(script)
    found: dict[str, Exercise] = {}
    open_solution = None
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            if open_solution is not None:
                found[open_solution].solution_code.append(index)
            continue
        lines = cell.source.splitlines()
        position = 0
        while position < len(lines):
            line = lines[position]
            opened = _EXERCISE_OPEN.match(line.strip())
            if opened:
                fence, title = opened.group("fence"), opened.group("title").strip()
                kind = _KIND.search(title)
                exercise = Exercise(chapter=script.stem, label="", title=title, kind=kind.group("kind") if kind else "")
                position += 1
                while position < len(lines) and lines[position].strip() != fence:
                    body = lines[position].strip()
                    label = _LABEL.match(body)
                    if label:
                        exercise.label = label.group(1)
                    change = _CHANGE.match(body)
                    if change:
                        try:
                            exercise.changes.append(parse_change(change.group("assignments")))
                        except ValueError as error:
                            exercise.problems.append(f"% change: {error}")
                    position += 1
                found[exercise.label or f"{script.stem}:{title}"] = exercise
            else:
                started = _SOLUTION_START.search(line)
                if started and started.group(1) in found:
                    open_solution = started.group(1)
                elif _SOLUTION_END.search(line) and open_solution is not None:
                    found[open_solution].solution_end = index
                    open_solution = None
                else:
                    prose = _SOLUTION_PROSE.search(line)
                    if prose and prose.group(1) in found:
                        found[prose.group(1)].solution_end = index
            position += 1
    return list(found.values())


@dataclass
class Execution:
    """One execution of a chapter: the merged changes (plus the chapter's quick sizes) and the exercises it serves."""
    script: Path
    changes: dict
    exercises: list[Exercise]

    @property
    def stop(self) -> int:
        """The index of the last cell to run: the end of the last solution among its exercises."""
        return max(e.solution_end for e in self.exercises)

    @property
    def parameters(self) -> dict:
        return {**QUICK.get(self.script.stem, {}), **self.changes}

    @property
    def name(self) -> str:
        return f"{self.script.stem}[" + "; ".join(f"{k}={v!r}" for k, v in self.changes.items()) + "]"


def executions(script: Path) -> list[Execution]:
    """The chapter's declared changes, merged into one execution where they set no parameter to different values
    (first fit, in the order of the exercises)."""
    out: list[Execution] = []
    for exercise in exercises(script):
        if exercise.kind not in KINDS_WITH_A_CHANGE or exercise.solution_end is None:
            continue
        for change in exercise.changes:
            for execution in out:
                if all(execution.changes.get(name, value) == value for name, value in change.items()):
                    execution.changes.update(change)
                    if exercise not in execution.exercises:
                        execution.exercises.append(exercise)
                    break
            else:
                out.append(Execution(script, dict(change), [exercise]))
    return out


def all_executions() -> list[Execution]:
    return [execution for script in CHAPTERS for execution in executions(script)]


#: Seconds an execution took when this was written (2-core machine, loaded), by chapter: only the split below
#: uses them, so that the two halves take about as long.
SECONDS = {"11_what_zcdp_forgets": 250, "07_census_dhc": 230, "08_edgeworth": 200, "09_redistricting": 160,
           "16_calibrating_exactly": 155, "13_dpsgd": 150, "12_acs_earnings": 135, "15_explorers": 110}


def half(which: int) -> list[Execution]:
    """The executions split into two halves of about equal time (longest first, each to the lighter half), one per
    test file, so that pytest-xdist's ``--dist loadfile`` can give them to both workers."""
    halves, load = ([], []), [0.0, 0.0]
    for execution in sorted(all_executions(), key=lambda e: -SECONDS.get(e.script.stem, 30)):
        lighter = load.index(min(load))
        halves[lighter].append(execution)
        load[lighter] += SECONDS.get(execution.script.stem, 30)
    return sorted(halves[which], key=lambda e: e.name)


# --- executing ----------------------------------------------------------------------------------------------

SOLUTION_TAG = "exercise-solution"


def execute(execution: Execution, out_dir: Path) -> tuple[nbformat.NotebookNode, float]:
    """Execute the chapter with the execution's parameters as far as its last solution, with papermill, in
    ``notebooks/`` and with no ledger (``ACCOUNTLIB_RESULTS`` unset). Each solution's code cell carries
    ``metadata[SOLUTION_TAG] = label``. Returns the executed notebook and the seconds it took; a cell that
    raises raises papermill's ``PapermillExecutionError`` (it names the cell and the exception)."""
    import papermill

    from accountbook.notebook_sweep import batch_environment
    from chapter_runs import ONE_THREAD

    notebook = read(execution.script)
    for exercise in execution.exercises:
        for index in exercise.solution_code:
            notebook.cells[index].metadata[SOLUTION_TAG] = exercise.label
    notebook.cells = notebook.cells[: execution.stop + 1]
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{execution.script.stem}.ipynb"
    saved = os.environ.pop("ACCOUNTLIB_RESULTS", None)
    started = time.perf_counter()
    try:
        with batch_environment(**ONE_THREAD):
            executed = papermill.execute_notebook(notebook, str(target), parameters=execution.parameters,
                                                  cwd=str(execution.script.parent), progress_bar=False,
                                                  extra_arguments=["--log-level=CRITICAL"])
    finally:
        if saved is not None:
            os.environ["ACCOUNTLIB_RESULTS"] = saved
    return executed, time.perf_counter() - started


def shown(cell) -> str:
    """What a code cell printed or drew: its text outputs, and a digest of each image."""
    parts = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            parts.append(str(output.get("text", "")))
        for mime, value in (output.get("data") or {}).items():
            if mime.startswith("image/"):
                parts.append(hashlib.sha256(str(value).encode()).hexdigest())
            elif mime == "text/plain":
                parts.append(str(value))
    return "".join(parts)


def solution_outputs(notebook, exercise: Exercise, executed: bool) -> str:
    """What the exercise's solution code showed: in an executed notebook (cells tagged by :func:`execute`) or in the
    stored ``.ipynb`` of the chapter (its default execution; cells found by their source)."""
    if executed:
        return "".join(shown(c) for c in notebook.cells if c.metadata.get(SOLUTION_TAG) == exercise.label)
    sources = [read_source for read_source in (read(ROOT / "notebooks" / f"{exercise.chapter}.py").cells[i].source
                                               for i in exercise.solution_code)]
    out = []
    for source in sources:
        matches = [c for c in notebook.cells if c.cell_type == "code" and c.source.strip() == source.strip()]
        out.append("".join(shown(c) for c in matches[:1]))
    return "".join(out)


def repository_state() -> str:
    """``git status --porcelain`` of the repository (untracked files included) and a digest of the changes it
    lists (a tracked file changed again, an untracked file rewritten): what a reader's run must leave as it is."""
    def git(*arguments):
        return subprocess.run(["git", *arguments], cwd=ROOT, capture_output=True, check=True).stdout

    status = git("status", "--porcelain", "--untracked-files=all").decode()
    digest = hashlib.sha256(git("diff", "HEAD", "--binary"))
    for line in status.splitlines():
        if line.startswith("??"):
            path = ROOT / line[3:]
            digest.update(path.read_bytes() if path.is_file() else b"")
    return status + digest.hexdigest()
