"""What a benchmark measured and where: a hash of the library code it ran and a description of the machine.

``library_hash(modules=...)`` is the SHA-256 over the source files of the named modules and of every module they
import, directly or not (found by grimp, the import-graph library behind import-linter), plus
``accountlib/__init__.py``; without ``modules``, over every ``accountlib/**/*.py``. Files are taken in sorted
order of their paths relative to the repository root; for each the hash is fed its relative path (POSIX form,
UTF-8), a NUL byte, its bytes and a NUL byte. :data:`MEASURED` names what each benchmark runs, so a change to
code a benchmark does not run (the command line, the explorers) leaves its results valid, and any change to
code it does run makes the benchmarks page say, at that table, that it measured an earlier version of the
library (``book/_ext/benchmark_provenance.py``, at book build time) until the benchmark is rerun. Each results
file also records the SHA-256 of every measured file (``library_files``), so that notice can name the files
that changed.
"""

from __future__ import annotations

import hashlib
import os
import platform
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


MEASURED = {
    "results_engine.json": ("accountlib.applications.census.allocations", "accountlib.theory.composition",
                            "accountlib.theory.conversions", "accountlib.engine.front"),
    "results_sweep.json": ("accountlib.applications.census",),
    "results_dpsgd.json": ("accountbook.dpsgd",),
    "results_dpsgd_batched.json": ("accountbook.dpsgd",),
    "results_calibration.json": ("accountlib.theory.calibration", "accountlib.applications.census", "accountlib.cli"),
    "results_pl94.json": ("accountlib.applications.census", "accountlib.theory.composition", "accountlib.engine.smoothed"),
    "results_dpsgd_accounting.json": ("accountlib.theory.dpsgd_accounting",),
}
"""For each results file, the modules its benchmark calls (their imports are followed)."""

SCRIPTS = {
    "results_engine.json": "bench_engine.py",
    "results_sweep.json": "bench_sweep.py",
    "results_dpsgd.json": "bench_dpsgd_step.py",
    "results_dpsgd_batched.json": "bench_dpsgd_batched.py",
    "results_calibration.json": "bench_calibration.py",
    "results_pl94.json": "bench_pl94.py",
    "results_dpsgd_accounting.json": "bench_dpsgd_accounting.py",
}
"""For each results file, the script in ``benchmarks/`` that writes it (and its ``RESULTS*.md`` table)."""


def measured_files(modules, root: Path = ROOT) -> list[Path]:
    """The source files of ``modules`` and of everything they import inside ``accountlib`` (and the book's package
    ``accountbook``, in ``book/``), and the package's
    ``__init__`` files on the way (they run on import)."""
    import grimp

    graph = grimp.build_graph("accountlib", "accountbook", cache_dir=None)
    names = set(modules)
    for module in modules:
        names |= graph.find_upstream_modules(module)
    for name in list(names):  # the packages a module sits in are executed when it is imported
        parts = name.split(".")
        names |= {".".join(parts[:i]) for i in range(1, len(parts))}
    files = []
    for name in names:
        base = (root / "book" if name.split(".")[0] == "accountbook" else root).joinpath(*name.split("."))
        path = base / "__init__.py" if (base / "__init__.py").is_file() else base.with_suffix(".py")
        if not path.is_file():
            raise FileNotFoundError(f"module {name} has no source file under {root}")
        files.append(path)
    return files


def _sources(root: Path, modules) -> list[tuple[str, bytes]]:
    files = (root / "accountlib").rglob("*.py") if modules is None else measured_files(modules, root)
    return sorted((path.relative_to(root).as_posix(), path.read_bytes()) for path in files)


def library_hash(root: Path = ROOT, modules=None) -> str:
    return snapshot(root, modules)[0]


def snapshot(root: Path = ROOT, modules=None) -> tuple[str, dict[str, str]]:
    """``library_hash(root, modules)`` and, for each file it covers, the SHA-256 of that file's bytes (by its
    path relative to ``root``), from one reading of the files."""
    digest, files = hashlib.sha256(), {}
    for name, data in _sources(root, modules):
        digest.update(name.encode())
        digest.update(b"\0")
        digest.update(data)
        digest.update(b"\0")
        files[name] = hashlib.sha256(data).hexdigest()
    return digest.hexdigest(), files


def changed_files(measured: dict[str, str], now: dict[str, str]) -> dict[str, list[str]]:
    """The files that differ between two ``library_files`` records: ``changed`` (in both, other bytes),
    ``added`` (measured now, not then: a new import) and ``removed`` (measured then, not now)."""
    return {
        "changed": sorted(name for name in measured.keys() & now.keys() if measured[name] != now[name]),
        "added": sorted(now.keys() - measured.keys()),
        "removed": sorted(measured.keys() - now.keys()),
    }


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine(results: str | None = None) -> dict:
    """CPU model, logical cores visible to this process, Python, the date of the run (UTC), and the hash of the
    library code measured (the modules :data:`MEASURED` names for ``results``; all of it without), with the hash
    of each file it covers."""
    sha256, files = snapshot(modules=MEASURED.get(results))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu": cpu_model(),
        "cores": cores,
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.machine()}",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_average": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "library_sha256": sha256,
        "library_scope": list(MEASURED.get(results, ("accountlib",))),
        "library_files": files,
    }


def describe(info: dict) -> str:
    """One sentence for a results page."""
    return (f"Measured on {info['date']} on {info['cpu']} ({info['cores']} cores visible, {info['system']}, "
            f"Python {info['python']}; load average {info.get('load_average')} when it started), "
            f"SHA-256 of the library code it ran `{info['library_sha256'][:16]}…` (`benchmarks/provenance.py`).")
