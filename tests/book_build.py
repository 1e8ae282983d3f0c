"""One warnings-as-errors build of the book per test session, shared by every test that reads its HTML.

Under pytest-xdist the tests that need the build may run in different worker processes; the first
to ask builds into a folder shared by the whole session (next to the workers' base temporary
folders) under a file lock, and the others wait for it and reuse it.
"""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def built_book(tmp_path_factory) -> tuple[Path, int, str]:
    """(html folder, jupyter-book's exit status, the tail of its output), building once per session."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if base.name.startswith("popen-gw") else base  # xdist: one folder for all workers
    out = shared / "book-build"
    out.mkdir(exist_ok=True)
    status = out / "status.json"
    with open(out / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not status.is_file():
            jupyter_book = Path(sys.executable).with_name("jupyter-book")
            result = subprocess.run(
                [str(jupyter_book), "build", str(ROOT), "-W", "-n", "--keep-going", "--path-output", str(out)],
                capture_output=True, text=True, cwd=ROOT, timeout=3600,
            )
            status.write_text(json.dumps({"returncode": result.returncode,
                                          "log": result.stdout[-5000:] + result.stderr[-5000:]}))
    record = json.loads(status.read_text())
    return out / "_build" / "html", record["returncode"], record["log"]
