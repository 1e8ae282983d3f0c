"""What a benchmark measured and where: a hash of the library's code and a description of the machine.

``library_hash()`` is the SHA-256 over the files ``accountlib/**/*.py``, taken in sorted order of their
paths relative to the repository root; for each file the hash is fed its relative path (POSIX form,
UTF-8), a NUL byte, its bytes, and a NUL byte. Any change to any library source file changes it;
``tests/test_rendered_pages.py`` fails when the benchmark results carry another hash than the code.
"""

from __future__ import annotations

import hashlib
import os
import platform
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def library_hash(root: Path = ROOT) -> str:
    digest = hashlib.sha256()
    for path in sorted((root / "accountlib").rglob("*.py"), key=lambda p: p.relative_to(root).as_posix()):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict:
    """CPU model, logical cores visible to this process, Python, and the date of the run (UTC)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu": cpu_model(),
        "cores": cores,
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.machine()}",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_average": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "library_sha256": library_hash(),
    }


def describe(info: dict) -> str:
    """One sentence for a results page."""
    return (f"Measured on {info['date']} on {info['cpu']} ({info['cores']} cores visible, {info['system']}, "
            f"Python {info['python']}; load average {info.get('load_average')} when it started), "
            f"library code SHA-256 `{info['library_sha256'][:16]}…` (`benchmarks/provenance.py`).")
