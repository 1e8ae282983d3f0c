import mpmath
import pytest


@pytest.fixture(autouse=True)
def _high_precision_comparisons():
    """Library results carry their own precision; comparisons in tests must not round them to 15 digits."""
    with mpmath.workdps(120):
        yield


# --- the built book, shared by every test that reads rendered pages -------------------------------------

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK_BUILD = ROOT / "_build"  # `make book` builds into the same folder, so its execution cache is reused


def _build_book_once():
    """Build the book (warnings as errors) into ``_build/html`` once per pytest run.

    Session fixtures are per xdist worker, so the build runs under a file lock and its outcome is
    stored with the run's id: a second worker in the same run reads the stored outcome instead of
    building again. Chapters come from the execution cache when their source has not changed;
    every page is re-read (``--all``) so each build reports every warning.
    Set ``ACCOUNTLIB_BOOK_HTML`` to an already built ``html`` folder to skip the build.
    """
    prebuilt = os.environ.get("ACCOUNTLIB_BOOK_HTML")
    if prebuilt:
        return {"returncode": 0, "log": f"prebuilt book at {prebuilt}", "html": prebuilt}
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid-{os.getpid()}"
    BOOK_BUILD.mkdir(exist_ok=True)
    outcome_file = BOOK_BUILD / "book-build.json"
    with open(BOOK_BUILD / "book-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if outcome_file.is_file():
            outcome = json.loads(outcome_file.read_text())
            if outcome.get("run") == run_id:
                return outcome
        jupyter_book = Path(sys.executable).with_name("jupyter-book")
        result = subprocess.run(
            [str(jupyter_book), "build", str(ROOT), "--all", "-W", "-n", "--keep-going"],
            capture_output=True, text=True, cwd=ROOT, timeout=3600,
        )
        outcome = {"run": run_id, "returncode": result.returncode,
                   "log": result.stdout[-5000:] + result.stderr[-5000:], "html": str(BOOK_BUILD / "html")}
        outcome_file.write_text(json.dumps(outcome))
        return outcome


@pytest.fixture(scope="session")
def built_book():
    """Path of the built book's ``html`` folder; the test fails if the build reported a warning or error."""
    outcome = _build_book_once()
    assert outcome["returncode"] == 0, outcome["log"]
    return Path(outcome["html"])
