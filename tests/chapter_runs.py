"""Each chapter executes once per test run, and that one execution serves both of its checks.

One pytest run needs every chapter executed against the current library twice over: the output check
(``tests/book/test_chapters.py``: no cell raises, and cells tagged ``nbval-check-output`` reproduce their
stored outputs, nbval's ``--nbval-lax`` rules) and the warnings-as-errors book build (``built_book`` in
``tests/conftest.py``). Both take the execution from here: a chapter's ``.py`` source is read exactly as
the book reads it (jupytext, ``py:percent``), executed as the book executes it (jupyter-cache's
``single_nb_execution``, in ``notebooks/``, with the timeout of ``_config.yml``) and stored in the book's
execution cache ``_build/.jupyter_cache``, so the build that follows finds every chapter there and
executes none.

* **Once per run.** The outcome of each chapter is recorded in ``_build/.chapter-runs/NAME.json`` with
  the run's id (xdist gives all workers of one run the same id). A chapter is executed under a file lock,
  so whichever worker asks first runs it, and a worker that finds it running meanwhile executes the
  chapters nobody has claimed yet before it waits: both workers share the chapters between them.
* **Never a stale result.** The cache keys a notebook on its code only, not on the library it imports.
  Before a chapter executes, any cache entry with its key is removed, and the entry is written again only
  if the execution succeeded. So in a run every chapter is executed against the library being tested, and
  a chapter that raises leaves no entry that the book could render instead.
* **A clear failure.** A chapter that raises is reported with its file, the number of the cell, the
  cell's source and the traceback.
* **A second CPU.** :func:`execute_on_second_cpu` executes a chapter once more with numpy's dispatched SIMD
  kernels switched off (``second_cpu.environment``), its ledger sent to a copy; it is not cached (the book
  renders the first execution).
"""

from __future__ import annotations

import copy
import fcntl
import json
import os
import re
from collections import defaultdict
from contextlib import contextmanager, suppress
from pathlib import Path
from types import SimpleNamespace

import jupytext
import nbformat
import yaml

import second_cpu
from accountbook.notebook_sweep import batch_environment

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"  # `make book` builds into the same folder and reuses the same execution cache
CACHE = BUILD / ".jupyter_cache"  # where myst-nb keeps it: next to _build/html
RUNS = BUILD / ".chapter-runs"
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))


#: Extra kernel environment while a chapter runs under the test suite, besides the batch flag
#: (``notebook_sweep.batch_environment``: no live widgets without a frontend): one thread for OpenMP/BLAS/torch,
#: since the two xdist workers already share the two cores (the DP-SGD chapter took 253 s with threads
#: competing, against 87 s alone).
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}

#: The default execution is the book build's (its cache is what the book renders), so it records the reproduction
#: ledger in the repository, as ``make book`` does (``accountbook.ledger.RESULTS_VARIABLE``); the second-CPU
#: execution records in a copy, and an exercise's changed execution (``exercise_runs``) nowhere.
RECORD_IN_THE_REPOSITORY = {"ACCOUNTLIB_RESULTS": str(ROOT / "results")}


def run_id() -> str:
    """The same for every xdist worker of one pytest run, different for every run."""
    return os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid-{os.getpid()}"


def _execute_config() -> dict:
    execute = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["execute"]
    assert execute["execute_notebooks"] == "cache" and execute["run_in_temp"] is False, execute
    return execute


def read_as_the_book_does(script: Path) -> nbformat.NotebookNode:
    """The chapter as myst-nb reads it (``nb_custom_formats``: ``jupytext.reads`` with ``py:percent``)."""
    return jupytext.reads(script.read_text(encoding="utf-8"), fmt="py:percent")


@contextmanager
def _cache(cache_dir: Path):
    """The jupyter-cache at ``cache_dir``, used by one process at a time (its database is SQLite)."""
    from jupyter_cache import get_cache

    cache_dir.parent.mkdir(parents=True, exist_ok=True)
    with open(cache_dir.parent / (cache_dir.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield get_cache(str(cache_dir))


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def describe_failure(script: Path, executed: nbformat.NotebookNode, error: BaseException) -> str:
    """Which chapter, which cell, what it said: the message a failing chapter is reported with."""
    where = script.relative_to(ROOT) if script.is_relative_to(ROOT) else script.name
    code_number = -1
    for number, cell in enumerate(executed.cells, 1):
        if cell.cell_type != "code":
            continue
        code_number += 1
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                traceback = _ANSI.sub("", "\n".join(output.get("traceback", [])))
                return (f"{where} failed: cell {number} (code cell {code_number}) raised "
                        f"{output.get('ename')}: {output.get('evalue')}\n"
                        f"--- the cell ---\n{cell.source}\n--- traceback ---\n{traceback}")
    # no error output: a timeout or a dead kernel; nbclient's message quotes the cell
    return f"{where} failed: {type(error).__name__}: {_ANSI.sub('', str(error))}"


def execute_chapter(script: Path, cache_dir: Path = CACHE) -> dict:
    """Execute one chapter as the book would and store it in the execution cache ``cache_dir``.

    Any cache entry with the chapter's key is removed first and written again only on success.
    Returns ``{"ok": bool, "seconds": float, "error": message or None}``.
    """
    from jupyter_cache.base import CacheBundleIn
    from jupyter_cache.executors.utils import single_nb_execution

    execute = _execute_config()
    notebook = read_as_the_book_does(script)
    with _cache(cache_dir) as cache:
        with suppress(KeyError):
            cache.remove_cache(cache.match_cache_notebook(notebook).pk)
    try:
        with batch_environment(**ONE_THREAD, **RECORD_IN_THE_REPOSITORY):
            result = single_nb_execution(notebook, cwd=str(script.parent), timeout=execute["timeout"],
                                         allow_errors=execute["allow_errors"], meta_override=True)
    except Exception as error:  # a kernel that dies or does not start
        return {"ok": False, "seconds": None, "error": describe_failure(script, notebook, error)}
    if result.err is not None:
        return {"ok": False, "seconds": result.time, "error": describe_failure(script, result.nb, result.err)}
    with _cache(cache_dir) as cache:
        cache.cache_notebook_bundle(CacheBundleIn(notebook, str(script), data={"execution_seconds": result.time}),
                                    check_validity=False, overwrite=True)
    return {"ok": True, "seconds": result.time, "error": None}


LEDGER = ROOT / "results" / "ledger.json"


def execute_on_second_cpu(script: Path, ledger_dir: Path, ledger: Path = LEDGER) -> dict:
    """Execute one chapter as :func:`execute_chapter` does, but on the second CPU (``second_cpu.environment``:
    numpy's baseline kernels) and with ``$ACCOUNTLIB_RESULTS`` set to ``ledger_dir``, which first receives a
    copy of ``ledger`` (the tracked ledger is never written). Nothing goes into the execution cache.

    Returns ``{"ok", "seconds", "error", "dispatch", "notebook", "ledger_before", "ledger_after"}``: the
    executed notebook, and the copy's text before and after the run (None when ``ledger`` does not exist).
    ``error`` names the dispatch. Raises RuntimeError when this CPU has no second dispatch (check
    ``second_cpu.environment()`` first).
    """
    from jupyter_cache.executors.utils import single_nb_execution

    env = second_cpu.environment()
    if env is None:
        raise RuntimeError(second_cpu.describe())
    dispatch = second_cpu.describe()
    ledger_dir = Path(ledger_dir).resolve()
    ledger_dir.mkdir(parents=True, exist_ok=True)
    copy_path = ledger_dir / "ledger.json"
    before = ledger.read_text(encoding="utf-8") if ledger.is_file() else None
    if before is not None:
        copy_path.write_text(before, encoding="utf-8")
    execute = _execute_config()
    notebook = read_as_the_book_does(script)
    extra = {**ONE_THREAD, second_cpu.VARIABLE: env[second_cpu.VARIABLE], "ACCOUNTLIB_RESULTS": str(ledger_dir)}
    outcome = {"dispatch": dispatch, "notebook": None, "ledger_before": before}
    try:
        with batch_environment(**extra):
            result = single_nb_execution(notebook, cwd=str(script.parent), timeout=execute["timeout"],
                                         allow_errors=execute["allow_errors"], meta_override=True)
    except Exception as error:  # a kernel that dies or does not start
        result, failure = None, describe_failure(script, notebook, error)
    else:
        failure = None if result.err is None else describe_failure(script, result.nb, result.err)
    outcome["ledger_after"] = copy_path.read_text(encoding="utf-8") if copy_path.is_file() else None
    if result is not None:
        outcome["notebook"] = result.nb
    return {"ok": failure is None, "seconds": None if result is None else result.time,
            "error": None if failure is None else f"on the second CPU, {dispatch}: {failure}", **outcome}


def ledger_differences(before: str | None, after: str | None) -> list[str]:
    """The records that differ between two texts of the ledger, one sentence each (empty: the same content)."""
    if before == after:
        return []
    old = {e["id"]: e for e in json.loads(before or "[]")}
    new = {e["id"]: e for e in json.loads(after or "[]")}
    problems = []
    for name in sorted(old.keys() | new.keys()):
        if name not in new:
            problems.append(f"{name}: removed")
        elif name not in old:
            problems.append(f"{name}: added (verdict {new[name].get('verdict')!r}, ours {new[name].get('ours')!r})")
        elif old[name] != new[name]:
            changed = sorted(k for k in old[name].keys() | new[name].keys() if old[name].get(k) != new[name].get(k))
            problems.append(f"{name}: " + "; ".join(f"{k} {old[name].get(k)!r} -> {new[name].get(k)!r}"
                                                    for k in changed))
    return problems or ["the same records, written differently (order or formatting)"]


def executed_notebook(script: Path, cache_dir: Path = CACHE) -> nbformat.NotebookNode:
    """The chapter's executed notebook as the book will render it (from the execution cache)."""
    notebook = read_as_the_book_does(script)
    with _cache(cache_dir) as cache:
        return cache.merge_match_into_notebook(notebook)[1]


def cache_records(cache_dir: Path = CACHE) -> dict[str, int]:
    """Key → record id of every notebook in the execution cache (an execution replaces the id)."""
    if not cache_dir.is_dir():
        return {}
    with _cache(cache_dir) as cache:
        return {record.hashkey: record.pk for record in cache.list_cache_records()}


# --- once per run, shared between the workers -------------------------------------------------------------

def _outcome_file(script: Path) -> Path:
    return RUNS / f"{script.stem}.json"


def _recorded(script: Path) -> dict | None:
    with suppress(FileNotFoundError, ValueError):
        return json.loads(_outcome_file(script).read_text())
    return None


def _run_or_wait(script: Path, wait: bool) -> dict | None:
    """This run's outcome for ``script``, executing it here unless done already; None when another
    process is executing it and ``wait`` is false."""
    RUNS.mkdir(parents=True, exist_ok=True)
    with open(RUNS / f"{script.stem}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return None
        recorded = _recorded(script)
        if recorded and recorded.get("run") == run_id():
            return recorded
        outcome = {"run": run_id(), "chapter": script.name, **execute_chapter(script)}
        temporary = _outcome_file(script).with_suffix(".tmp")
        temporary.write_text(json.dumps(outcome))
        temporary.replace(_outcome_file(script))
        return outcome


# Before any run is recorded here (a fresh clone, as on CI): the chapters that took longest when this was
# written, so that the slowest starts first. Only the order of execution depends on it.
_SLOWEST_WHEN_UNKNOWN = ("13_dpsgd", "07_census_dhc", "12_acs_earnings", "11_what_zcdp_forgets", "15_explorers")


def longest_first() -> list[Path]:
    """The chapters, the slowest of the last recorded run first (the run's longest chain is the slowest
    chapter, then the book build, then the browser test: it must start at once)."""
    def key(script):
        seconds = (_recorded(script) or {}).get("seconds") or 0.0
        hint = _SLOWEST_WHEN_UNKNOWN.index(script.stem) if script.stem in _SLOWEST_WHEN_UNKNOWN else 99
        return (-seconds, hint, script.name)
    return sorted(CHAPTERS, key=key)


def chapter_outcome(script: Path) -> dict:
    """This run's execution of ``script``: done here, or by another worker of the run (while it runs,
    this one executes the chapters nobody has started)."""
    outcome = _run_or_wait(script, wait=False)
    if outcome is None:
        for other in longest_first():
            if other != script:
                _run_or_wait(other, wait=False)
        outcome = _run_or_wait(script, wait=True)
    return outcome


def all_chapter_outcomes() -> list[dict]:
    """Every chapter executed once in this run (by this worker or another), in ``CHAPTERS`` order."""
    done = {script: chapter_outcome(script) for script in longest_first()}
    return [done[script] for script in CHAPTERS]


# --- nbval's --nbval-lax rules, applied to the executed notebook -------------------------------------------

def _nbval_rules():
    """nbval's own comparison (``IPyNbCell.compare_outputs``), with the settings of a plain ``--nbval-lax``
    run: no sanitize file, no nbdime (so images are not compared), no colours."""
    from nbval.plugin import IPyNbCell, nocolors

    class Rules:
        compare_outputs = IPyNbCell.compare_outputs
        format_output_compare = IPyNbCell.format_output_compare
        sanitize = IPyNbCell.sanitize
        colors = nocolors

        def __init__(self):
            # IPyNbFile.skip_compare without --nbdime (nbval 0.11.0)
            skip = ("metadata", "traceback", "prompt_number", "output_type", "name", "execution_count",
                    "application/vnd.jupyter.widget-view+json", "image/png", "image/jpeg")
            self.parent = SimpleNamespace(skip_compare=skip, sanitize_patterns={})
            self.ihook = SimpleNamespace(pytest_assertrepr_compare=lambda **kwargs: [])  # nbval's plain diff
            self.config = None

    return Rules()


def output_differences(executed: nbformat.NotebookNode, stored: nbformat.NotebookNode) -> list[str]:
    """What ``pytest --nbval-lax`` on the stored notebook would report, given the outputs of ``executed``
    (the same chapter, executed): each checked cell (``# NBVAL_CHECK_OUTPUT`` or the tag
    ``nbval-check-output``) whose outputs differ, and each unrun stored cell that has outputs. Raising
    cells never get here: an execution that raises fails before."""
    from nbval.plugin import coalesce_streams, find_comment_markers, find_metadata_tags

    rules = _nbval_rules()
    ran = [c for c in executed.cells if c.cell_type == "code"]
    reference = [c for c in stored.cells if c.cell_type == "code"]
    if [c.source.strip() for c in ran] != [c.source.strip() for c in reference]:
        return ["the executed chapter's code cells differ from the stored notebook's: re-sync the pair "
                "(jupytext --sync)"]
    problems = []
    for number, (test, ref) in enumerate(zip(ran, reference)):
        options = defaultdict(bool, find_metadata_tags(ref.metadata))
        options.update(dict(find_comment_markers(ref.source)))
        if options["skip"]:
            continue
        unrun = ref.execution_count is None
        if unrun and ref.outputs:
            problems.append(f"Cell {number}: unrun reference cell has outputs")
        if options["check"] and not unrun:
            test_outputs = coalesce_streams(copy.deepcopy(test.get("outputs", [])))
            ref_outputs = coalesce_streams(copy.deepcopy(ref.outputs))
            if not rules.compare_outputs(test_outputs, ref_outputs):
                problems.append(f"Cell {number}: outputs differ\n--- the cell ---\n{ref.source}\n"
                                + "\n".join(str(line) for line in rules.comparison_traceback))
    return problems
