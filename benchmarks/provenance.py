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
import json
import os
import platform
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LOAD_LIMIT_PER_CORE = 0.75
"""A benchmark starts only while the one-minute load average is at most this many times the cores visible (1.5 on
the book's 2-core machine): above it the other processes take a share of the cores that the timings would count
as the library's. ``benchmarks/run.py`` refuses above it unless told to measure anyway, and then records why."""


MEASURED = {
    "results_engine.json": ("accountlib.applications.census.allocations", "accountlib.theory.composition",
                            "accountlib.theory.conversions", "accountlib.engine.front"),
    "results_sweep.json": ("accountlib.applications.census.jobs",),
    "results_dpsgd.json": ("accountbook.dpsgd",),
    "results_dpsgd_batched.json": ("accountbook.dpsgd",),
    "results_calibration.json": ("accountlib.theory.calibration", "accountlib.applications.census.calibration",
                                 "accountlib.__main__", "accountlib.cli.delta"),
    "results_pl94.json": ("accountlib.applications.census.pl94", "accountlib.applications.census.jobs",
                          "accountlib.theory.composition", "accountlib.engine.smoothed"),
    "results_dpsgd_accounting.json": ("accountlib.theory.dpsgd_accounting",),
    "results_composition.json": ("accountlib.theory.composition", "accountlib.engine.front"),
}
"""For each results file, the modules its benchmark calls (their imports are followed). Name the module that does
the work, not a package whose ``__init__`` imports its modules lazily (``accountlib.applications.census``): grimp
follows only the imports it sees."""

SCRIPTS = {
    "results_engine.json": "bench_engine.py",
    "results_sweep.json": "bench_sweep.py",
    "results_dpsgd.json": "bench_dpsgd_step.py",
    "results_dpsgd_batched.json": "bench_dpsgd_batched.py",
    "results_calibration.json": "bench_calibration.py",
    "results_pl94.json": "bench_pl94.py",
    "results_dpsgd_accounting.json": "bench_dpsgd_accounting.py",
    "results_composition.json": "bench_composition.py",
}
"""For each results file, the script in ``benchmarks/`` that writes it (and its ``RESULTS*.md`` table)."""


_GRAPHS: list = []


def _graph():
    """The import graph of ``accountlib`` and ``accountbook``, built once per process (grimp)."""
    if not _GRAPHS:
        import grimp

        _GRAPHS.append(grimp.build_graph("accountlib", "accountbook", cache_dir=None))
    return _GRAPHS[0]


def measured_files(modules, root: Path = ROOT) -> list[Path]:
    """The source files of ``modules`` and of everything they import inside ``accountlib`` (and the book's package
    ``accountbook``, in ``book/``), and the package's
    ``__init__`` files on the way (they run on import)."""
    graph = _graph()
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


def cores() -> int:
    """Logical cores visible to this process."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def load_average() -> float | None:
    """The one-minute load average (None where the system has none)."""
    return round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None


def load_limit() -> float:
    """The highest load average at which a benchmark starts: :data:`LOAD_LIMIT_PER_CORE` × the cores visible."""
    return LOAD_LIMIT_PER_CORE * cores()


def commit(root: Path = ROOT) -> dict:
    """The git commit checked out (``id``) and whether tracked files differ from it (``modified``); ``None`` values
    outside a git checkout. The measured files' hashes, not the commit, decide whether a result is current."""
    def git(*arguments):
        return subprocess.run(["git", *arguments], cwd=root, capture_output=True, text=True, timeout=30,
                              check=True).stdout.strip()
    try:
        return {"id": git("rev-parse", "HEAD"), "modified": bool(git("status", "--porcelain", "--untracked-files=no"))}
    except (OSError, subprocess.SubprocessError):
        return {"id": None, "modified": None}


def machine(results: str | None = None) -> dict:
    """CPU model, logical cores visible to this process, Python, the date of the run (UTC), the load average at
    the start, the git commit, and the hash of the library code measured (the modules :data:`MEASURED` names for
    ``results``; all of it without), with the hash of each file it covers. Call it when the run starts, and
    :func:`finish` on the result before writing it."""
    sha256, files = snapshot(modules=MEASURED.get(results))
    return {
        "cpu": cpu_model(),
        "cores": cores(),
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.machine()}",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_average": load_average(),
        "load_limit": load_limit(),
        "commit": commit(),
        "quick": os.environ.get("ACCOUNTLIB_BENCHMARK_QUICK") == "1",
        "started": time.time(),
        "library_sha256": sha256,
        "library_scope": list(MEASURED.get(results, ("accountlib",))),
        "library_files": files,
    }


def finish(info: dict) -> dict:
    """``info`` (from :func:`machine`, at the start) with the load average at the end and the wall time of the
    whole run (``wall_seconds``), and a note when the run started above the load limit (``load_warning``)."""
    info = dict(info)
    info["load_average_end"] = load_average()
    info["wall_seconds"] = round(time.time() - info.pop("started", time.time()), 1)
    start = info.get("load_average")
    if start is not None and start > info.get("load_limit", load_limit()):
        info["load_warning"] = (f"load average {start} at the start, above the limit {info.get('load_limit', load_limit()):g} "
                                "for this machine: the timings count other processes' work")
    return info


def results_folder(quick_run: bool = False) -> Path:
    """Where a benchmark writes its results: ``ACCOUNTLIB_BENCHMARK_OUT`` (``benchmarks/run.py`` sets it), else
    ``benchmarks/``, or for a quick run the scratch folder ``_build/benchmarks-quick``: a smoke run never
    replaces the book's results."""
    out = os.environ.get("ACCOUNTLIB_BENCHMARK_OUT")
    folder = Path(out) if out else ROOT / "_build" / "benchmarks-quick" if quick_run else Path(__file__).resolve().parent
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def quick() -> bool:
    """Whether this run is a smoke run (``benchmarks/run.py --quick`` or a script's own ``--quick``)."""
    return os.environ.get("ACCOUNTLIB_BENCHMARK_QUICK") == "1"


def stale(folder: Path | None = None, root: Path = ROOT) -> dict[str, dict]:
    """For each results file of :data:`MEASURED` in ``folder`` (default ``benchmarks/``) whose measured code has
    changed since its run, or that is missing: ``{"script", "reason", "files"}`` (the files changed, added or
    removed, where the results record per-file hashes). Current results are left out."""
    folder = Path(folder) if folder else Path(__file__).resolve().parent
    out = {}
    for results, modules in MEASURED.items():
        path = folder / results
        entry = {"script": SCRIPTS[results], "files": []}
        if not path.is_file():
            out[results] = {**entry, "reason": "no results file"}
            continue
        recorded = json.loads(path.read_text(encoding="utf-8"))["machine"]
        now, files = snapshot(root, modules)
        if recorded.get("library_sha256") == now:
            continue
        if isinstance(recorded.get("library_files"), dict):
            diff = changed_files(recorded["library_files"], files)
            entry["files"] = diff["changed"] + diff["added"] + diff["removed"]
        out[results] = {**entry, "reason": "measured code changed"}
    return out


def describe(info: dict) -> str:
    """One sentence for a results page."""
    return (f"Measured on {info['date']} on {info['cpu']} ({info['cores']} cores visible, {info['system']}, "
            f"Python {info['python']}; load average {info.get('load_average')} when it started), "
            f"SHA-256 of the library code it ran `{info['library_sha256'][:16]}…` (`benchmarks/provenance.py`).")
