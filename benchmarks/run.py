"""Run the benchmarks in ``benchmarks/``: those whose measured code changed since their last run, or all of them.

    .venv/bin/python benchmarks/run.py                  # make benchmarks: the stale ones, at low load only
    .venv/bin/python benchmarks/run.py --force          # make benchmarks FORCE=1: every one
    .venv/bin/python benchmarks/run.py --quick          # make benchmarks-quick: a smoke run of every one
    .venv/bin/python benchmarks/run.py --only sweep engine --force
    .venv/bin/python benchmarks/run.py --status         # which results are current (make test prints the same)

Each benchmark is a script of its own (``provenance.SCRIPTS``) that writes its results file
(``results_*.json``, with its provenance: the commit, the SHA-256 of every measured file, the CPU, the load
average at the start and the end, the wall time and the date; ``provenance.machine`` and ``provenance.finish``)
and its tables (``RESULTS*.md``), which the book's Performance page (``book/benchmarks.md``) shows. A benchmark whose
measured modules hash as in its results file is skipped unless ``--force``.

Load: a timing on a busy machine counts other processes' work. Before each benchmark the one-minute load average
is compared with ``provenance.load_limit()`` (0.75 × the cores visible: 1.5 on the book's 2-core machine). Above
it a full run refuses that benchmark (exit status 3) unless ``--allow-load`` (``make benchmarks LOAD=ignore``),
which measures anyway and records the load in the results file (``load_warning``), shown on the page. A quick run
only warns: its results go to a scratch folder (``_build/benchmarks-quick``, or ``--out``), never to the book.

Time: the full run of all eight takes about 97 minutes on the book's 2-core machine at low load (``BUDGET``,
per benchmark in ``SECONDS``); the quick run about 5 minutes. The peers of the DP-SGD accounting benchmark run in
their own environments (``peers/dpacc``, ``peers/prv``: see ``bench_dpsgd_accounting.py``; or
``DP_ACCOUNTING_PYTHON`` and ``PRV_PYTHON``); a full run refuses that benchmark when they are missing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import provenance  # noqa: E402

NAMES = {
    "engine": "results_engine.json",
    "composition": "results_composition.json",
    "sweep": "results_sweep.json",
    "dpsgd-step": "results_dpsgd.json",
    "dpsgd-batched": "results_dpsgd_batched.json",
    "calibration": "results_calibration.json",
    "pl94": "results_pl94.json",
    "dpsgd-accounting": "results_dpsgd_accounting.json",
}
"""The benchmarks by short name, in the order they run."""

SECONDS = {"engine": (90, 10), "composition": (120, 15), "sweep": (600, 40), "dpsgd-step": (60, 20),
           "dpsgd-batched": (3100, 100), "calibration": (120, 20), "pl94": (210, 25), "dpsgd-accounting": (1500, 70)}
"""Wall seconds of each benchmark on the book's 2-core machine at low load: (full, quick)."""

BUDGET = {"full": sum(full for full, _ in SECONDS.values()), "quick": sum(quick for _, quick in SECONDS.values())}
"""The documented wall-time budget of the whole run (seconds), full and quick."""

BEFORE = "4627f6b"
"""The revision before the smoothed engine, against which ``bench_pl94.py --before`` times the DHC pairs."""

PEERS = {"--dp-accounting": ("DP_ACCOUNTING_PYTHON", ROOT / "peers" / "dpacc" / "bin" / "python"),
         "--prv": ("PRV_PYTHON", ROOT / "peers" / "prv" / "bin" / "python")}


def arguments(name: str, quick: bool) -> list[str] | str:
    """The script's command-line arguments for this run, or a sentence saying why it cannot run."""
    if name == "pl94":
        return [] if quick else ["--before", BEFORE]
    if name == "dpsgd-accounting":
        out = []
        for flag, (variable, default) in PEERS.items():
            python = os.environ.get(variable) or (str(default) if default.exists() else "")
            if not python or not Path(python).exists():
                if quick:
                    continue
                return (f"the peer environment for {flag} is missing: make it as bench_dpsgd_accounting.py's docstring "
                        f"says ({default.relative_to(ROOT)}) or set {variable}")
            out += [flag, python]
        return out
    return []


def status(folder: Path) -> dict[str, str]:
    """Each benchmark's state in ``folder``: "current", "stale" (with the changed files) or "missing"."""
    stale = provenance.stale(folder)
    out = {}
    for name, results in NAMES.items():
        entry = stale.get(results)
        if entry is None:
            out[name] = "current"
        elif entry["reason"] == "no results file":
            out[name] = "missing"
        else:
            shown = ", ".join(entry["files"][:4]) + (f" and {len(entry['files']) - 4} more" if len(entry["files"]) > 4 else "")
            out[name] = f"stale ({shown or 'the hashing changed'})"
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: small tasks, results into a scratch folder")
    parser.add_argument("--force", action="store_true", help="run even the benchmarks whose measured code is unchanged")
    parser.add_argument("--allow-load", action="store_true",
                        help="measure even above the load limit (recorded in the results file and shown on the page)")
    parser.add_argument("--only", nargs="+", choices=sorted(NAMES), metavar="NAME",
                        help=f"run only these ({', '.join(NAMES)})")
    parser.add_argument("--out", type=Path, default=None,
                        help="results folder (default: benchmarks/, or _build/benchmarks-quick with --quick)")
    parser.add_argument("--status", action="store_true", help="only say which results are current, and exit")
    args = parser.parse_args(argv)
    folder = (args.out or (ROOT / "_build" / "benchmarks-quick" if args.quick else HERE)).resolve()
    if args.status:
        for name, state in status(folder).items():
            print(f"{name:18} {NAMES[name]:32} {state}")
        return 0
    names = args.only or list(NAMES)
    states = status(folder)
    mode = "quick" if args.quick else "full"
    todo = [n for n in names if args.force or states[n] != "current"]
    budget = sum(SECONDS[n][args.quick] for n in todo)
    print(f"benchmarks ({mode}, results in {folder}): {len(todo)} to run of {len(names)}, about {budget / 60:.0f} min "
          f"on the book's 2-core machine (load limit {provenance.load_limit():g})", flush=True)
    for name in names:
        if name not in todo:
            print(f"  {name}: current (measured code unchanged since its run); --force to rerun", flush=True)
    summary, failed = [], False
    env = {**os.environ, "ACCOUNTLIB_BENCHMARK_OUT": str(folder), "ACCOUNTLIB_BENCHMARK_QUICK": "1" if args.quick else "0"}
    for name in todo:
        extra = arguments(name, args.quick)
        if isinstance(extra, str):
            print(f"\n*** {name}: not run: {extra}", flush=True)
            summary.append((name, "not run", 0.0))
            failed = True
            continue
        load, limit = provenance.load_average(), provenance.load_limit()
        if load is not None and load > limit:
            banner = (f"load average {load} is above the limit {limit:g} ({provenance.LOAD_LIMIT_PER_CORE} × "
                      f"{provenance.cores()} cores): other processes would be timed with the library")
            if not (args.quick or args.allow_load):
                print(f"\n*** {name}: refused: {banner}. Rerun when the machine is quiet, or measure anyway with "
                      "--allow-load (make benchmarks LOAD=ignore), which records the load on the page.", flush=True)
                summary.append((name, "refused (load)", 0.0))
                failed = True
                continue
            print("\n" + "!" * 100 + f"\n!!! {name}: {banner}; measuring anyway"
                  f"{' (quick run)' if args.quick else ', recorded in the results file'}\n" + "!" * 100, flush=True)
        script = HERE / provenance.SCRIPTS[NAMES[name]]
        command = [sys.executable, str(script), *extra]
        print(f"\n=== {name}: {' '.join([Path(command[1]).relative_to(ROOT).as_posix(), *extra])}", flush=True)
        started = time.perf_counter()
        result = subprocess.run(command, cwd=ROOT, env=env)
        wall = time.perf_counter() - started
        if result.returncode:
            summary.append((name, f"FAILED (exit {result.returncode})", wall))
            failed = True
            continue
        record = json.loads((folder / NAMES[name]).read_text(encoding="utf-8"))["machine"]
        note = f"load {record.get('load_average')} → {record.get('load_average_end')}"
        summary.append((name, "done, " + note + (" (above the limit)" if record.get("load_warning") else ""), wall))
    if any(state.startswith("done") for _, state, _ in summary):
        import figures

        for path in figures.write_all(folder):
            print(f"figure: {path}", flush=True)
    print(f"\nbenchmarks ({mode}):", flush=True)
    for name, state, wall in summary:
        print(f"  {name:18} {wall:7.0f} s  {state}", flush=True)
    print(f"  total {sum(w for _, _, w in summary):.0f} s (budget {BUDGET[mode] / 60:.0f} min for all eight)", flush=True)
    if any(state == "refused (load)" for _, state, _ in summary):
        return 3
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
