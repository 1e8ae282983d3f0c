"""Shared by both tiers: tests/library (the library alone: `make test-library`) and tests/book (the chapters,
the built book, the ledger, the DP-SGD experiment). The helper modules in tests/ (chapter_runs, cli_runs,
second_cpu, lock_file) are importable from both (pytest's ``pythonpath`` in pyproject.toml)."""

import mpmath
import pytest


@pytest.fixture
def high_precision():
    """For a test comparing library results at more than float precision: mpmath at 120 digits inside the test
    only (the library keeps its own precision local; a test that needs more asks for it)."""
    with mpmath.workdps(120):
        yield


# --- the built book, shared by every test that reads rendered pages (tests/book) ---------------------

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path


from chapter_runs import BUILD as BOOK_BUILD  # `make book` builds into the same folder and reuses its cache
from chapter_runs import all_chapter_outcomes, cache_records, run_id

ROOT = Path(__file__).resolve().parents[1]


def _build_book_once():
    """Build the book (warnings as errors) into a fresh ``_build/html`` once per pytest run.

    Every chapter is first executed once in this run into the book's execution cache (``chapter_runs``;
    the output checks of ``test_chapters.py`` use the same executions, and the other xdist worker shares
    the work), so the build executes no chapter: the test fails if it did. A chapter that raised fails the
    build's tests with the chapter's message. Session fixtures are per xdist worker, so the build runs under
    a file lock and its outcome is stored with the run's id: a second worker in the same run reads it
    instead of building again. Every page is re-read (``--all``) so each build reports every warning.
    Set ``ACCOUNTLIB_BOOK_HTML`` to an already built ``html`` folder to skip the build.
    """
    prebuilt = os.environ.get("ACCOUNTLIB_BOOK_HTML")
    if prebuilt:
        return {"returncode": 0, "log": f"prebuilt book at {prebuilt}", "html": prebuilt}
    chapters = all_chapter_outcomes()  # outside the lock: a worker waiting for the build helps with these
    BOOK_BUILD.mkdir(exist_ok=True)
    outcome_file = BOOK_BUILD / "book-build.json"
    with open(BOOK_BUILD / "book-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if outcome_file.is_file():
            outcome = json.loads(outcome_file.read_text())
            if outcome.get("run") == run_id():
                return outcome
        failed = [c["error"] for c in chapters if not c["ok"]]
        if failed:
            outcome = {"run": run_id(), "returncode": 1, "html": str(BOOK_BUILD / "html"),
                       "log": "the book was not built: a chapter failed to execute\n\n" + "\n\n".join(failed)}
        else:
            shutil.rmtree(BOOK_BUILD / "html", ignore_errors=True)  # no page left over from an older book
            executed = cache_records()
            jupyter_book = Path(sys.executable).with_name("jupyter-book")
            result = subprocess.run(
                [str(jupyter_book), "build", str(ROOT), "--all", "-W", "-n", "--keep-going"],
                capture_output=True, text=True, cwd=ROOT, timeout=3600,
            )
            log = result.stdout[-5000:] + result.stderr[-5000:]
            again = sorted(set(cache_records().items()) - set(executed.items()))
            if result.returncode == 0 and again:
                log = (f"the book build executed {len(again)} chapter(s) again instead of using this run's "
                       "executions (does tests/chapter_runs.py read the chapters as the book does?)\n" + log)
            outcome = {"run": run_id(), "returncode": result.returncode or int(bool(again)), "log": log,
                       "html": str(BOOK_BUILD / "html")}
        outcome_file.write_text(json.dumps(outcome))
        return outcome


@pytest.fixture(scope="session")
def built_book():
    """Path of the built book's ``html`` folder; the test fails if the build reported a warning or error."""
    outcome = _build_book_once()
    assert outcome["returncode"] == 0, outcome["log"]
    return Path(outcome["html"])


# --- order: the longest chain first ----------------------------------------------------------------------
# A run's longest chain is the slowest chapter, then the book build, then the browser test. So the files
# that execute chapters start first, one on each xdist worker (test_book.py builds, test_chapters.py
# executes chapters beside it), the browser test follows the build on the building worker, and
# test_rendered_pages.py, which would wait for the build, comes last. xdist's loadfile would otherwise
# order files by their number of tests.
_FIRST = ("test_book.py", "test_chapters.py", "test_browser.py")
_LAST = ("test_rendered_pages.py",)


def pytest_configure(config):
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False  # keep the order set below


def pytest_collection_modifyitems(config, items):
    def rank(item):
        name = item.path.name
        return _FIRST.index(name) if name in _FIRST else len(_FIRST) + (name in _LAST)
    items.sort(key=rank)  # stable: the rest keep pytest's order


# --- the benchmarks whose measured code changed since their run (a warning in every session's summary) --------

def _stale_benchmarks() -> dict:
    import importlib.util

    spec = importlib.util.spec_from_file_location("_benchmarks_provenance", ROOT / "benchmarks" / "provenance.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.stale()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """List the benchmarks whose measured modules changed since their results were recorded (not a failure: the
    Performance page marks their tables, and ``make benchmarks`` reruns exactly these). Only on the controller of
    an xdist run, and only in a session that ran the book's tests or the whole suite."""
    if hasattr(config, "workerinput") or os.environ.get("ACCOUNTLIB_NO_BENCHMARK_CHECK") == "1":
        return
    if not any(str(arg).rstrip("/") in ("tests", "tests/book") or "benchmark" in str(arg) for arg in config.args):
        return
    try:
        stale = _stale_benchmarks()
    except Exception as error:  # the check must never hide the test results
        terminalreporter.write_line(f"benchmark freshness not checked: {error}", yellow=True)
        return
    if not stale:
        terminalreporter.write_line("benchmarks: every results file measured the current code", green=True)
        return
    terminalreporter.section("stale benchmarks", sep="-", yellow=True, bold=True)
    for results, entry in sorted(stale.items()):
        files = entry["files"]
        shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        terminalreporter.write_line(f"  benchmarks/{entry['script']} ({results}): {entry['reason']}"
                                    + (f": {shown}" if shown else ""), yellow=True)
    terminalreporter.write_line(f"WARNING: {len(stale)} benchmark(s) measured an earlier version of the library; "
                                "refresh them with `make benchmarks` (at low load) and commit the results.",
                                yellow=True, bold=True)
