"""``python -m accountlib sweep ...``: the DHC pairs, the DP-SGD grid and any chapter's parameter grid.

Each application hands its jobs to :func:`accountlib.infrastructure.executor.run_jobs`; this module only
parses the command line, checks it and reports. Every error is one line on stderr and exit status 2.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from ..applications import census
from ..applications.census import pair_status, run_dhc_sweep
from ..applications.dpsgd import dpsgd_grid
from ..infrastructure.executor import SweepError, check_scheduler_address, run_jobs, sweep_lock
from ..infrastructure.notebook_sweep import split_values, sweep_notebook
from . import _Once

MAX_WORKERS = max(64, 4 * (os.cpu_count() or 1))
"""The most local processes ``--workers`` accepts: every worker is started up front, so a mistyped 100000 would
fork for minutes."""

__all__ = ["add_sweep_parser"]

def add_sweep_parser(subparsers) -> None:
    sweep = subparsers.add_parser("sweep", help="run the DHC pairs, the DP-SGD sweeps or a chapter's parameter grid "
                                  "on a process pool or a Dask cluster", description="dhc: the exact (ε, δ) and "
                                  "trade-off curves of DHC pairs, one file per pair. dpsgd: the DP-SGD chapter's training "
                                  "sweeps (one job per setting and seed), one JSON file per setting and seed. notebook "
                                  "CHAPTER: the chapter run with papermill at every point of the --grid (Cartesian "
                                  "product), one executed notebook per point, and the values each run glued (myst-nb "
                                  "glue) in one table, OUT/results.csv. Files are written atomically; re-running skips "
                                  "finished work.")
    sweep.add_argument("target", choices=["dhc", "dpsgd", "notebook"],
                       help="what to sweep (dhc: the 946 allocation pairs; dpsgd: the paper's DP-SGD grid; "
                       "notebook: a chapter over a parameter grid)")
    sweep.add_argument("chapter", nargs="?", default=None, metavar="CHAPTER",
                       help="notebook only: notebooks/NN_name.py (or .ipynb), or a chapter stem such as "
                       "00_primer or its number 00")
    sweep.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2",
                       help="notebook only: a parameter of the chapter's parameters cell and its values (Python "
                       "literals such as 0.5, True, [1, 2], else text); repeat for a Cartesian product")
    sweep.add_argument("--set", action="append", default=[], metavar="NAME=V", dest="fixed",
                       help="notebook only: a parameter given the same value in every run")
    sweep.add_argument("--out", default=None, action=_Once, help="output folder (default results/dhc or results/dpsgd; required "
                       "for notebook); made "
                       "absolute before jobs are sent, and with --scheduler it must be on a filesystem every worker "
                       "shares. One sweep at a time per folder (a lock file refuses a second)")
    sweep.add_argument("--pairs", nargs="+", action=_Once, type=int, metavar="K L",
                       help="dhc only: these pairs, as a flat list K1 L1 K2 L2 ... (default: all 946)")
    sweep.add_argument("--data-dir", default=None, action=_Once,
                       help="dpsgd only: folder with the Fashion-MNIST IDX files (default: /usr/share/datasets/fashion-mnist, else scikit-learn digits)")
    sweep.add_argument("--settings", nargs="+", action=_Once, default=None, metavar="Q,N",
                       help="dpsgd only: these (q, n) settings, e.g. 0.005,500 (default: the paper's nine)")
    sweep.add_argument("--seeds", nargs="+", action=_Once, type=int, default=None, help="dpsgd only: seeds (default 0 1 2 3 4)")
    sweep.add_argument("--targets", nargs="+", action=_Once, default=None, metavar="EPS,DELTA",
                       help="dpsgd only: privacy targets, e.g. 3,1e-5 (default: the paper's two)")
    sweep.add_argument("--workers", type=int, action=_Once, default=None, help="local processes (default: all cores)")
    sweep.add_argument("--scheduler", default=None, action=_Once, metavar="ADDRESS",
                       help="run on the Dask distributed scheduler at ADDRESS (e.g. tcp://127.0.0.1:8786)")
    sweep.add_argument("--summarise", action="store_true",
                       help="dhc only: after the pairs, write the census-wide curves and the certified variance "
                       "give-back table (needs all 946 pairs: checked before anything is computed)")
    sweep.add_argument("--no-progress", action="store_true", help="no progress bar")
    sweep.set_defaults(handler=_sweep_command)




def _sweep_command(args) -> int:
    """``sweep``: every error is one line on stderr and exit status 2."""
    try:
        return _run_sweep_command(args)
    except (SweepError, ValueError, ArithmeticError, OSError) as error:
        print(f"error: {' '.join(str(error).split())}", file=sys.stderr)
        return 2


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _assignments(option: str, items: list[str], *, many: bool) -> dict[str, list[str]]:
    """``NAME=V1,V2`` (``--grid``) or ``NAME=V`` (``--set``) items as {name: [value texts]}."""
    found = {}
    for item in items:
        name, equals, values = item.partition("=")
        name = name.strip()
        if not equals or not name.isidentifier():
            raise ValueError(f"{option} takes NAME={'V1,V2,...' if many else 'V'} with NAME a parameter of the "
                             f"chapter; got {item!r}")
        if name in found:
            raise ValueError(f"{option} {name} is given twice")
        found[name] = split_values(values) if many else [values.strip()]
        if any(v == "" for v in found[name]):
            raise ValueError(f"{option} {name}: an empty value in {item!r}")
    return found


def _notebook_sweep(args) -> int:
    if args.chapter is None:
        return _error("sweep notebook needs CHAPTER (notebooks/NN_name.py, or a chapter stem such as 00_primer)")
    if args.out is None:
        return _error("sweep notebook needs --out DIR (the executed notebooks and results.csv go there)")
    if args.pairs or args.summarise or args.data_dir or args.settings or args.seeds or args.targets:
        return _error("--pairs, --summarise, --data-dir, --settings, --seeds and --targets do not apply to "
                      "'sweep notebook' (use --grid NAME=V1,V2 and --set NAME=V)")
    grid = _assignments("--grid", args.grid, many=True)
    fixed = {n: v[0] for n, v in _assignments("--set", args.fixed, many=False).items()}
    started = time.perf_counter()
    result = sweep_notebook(args.chapter, grid, args.out, fixed=fixed, scheduler=args.scheduler,
                            workers=args.workers, progress=not args.no_progress)
    print(f"{len(result.executed)} runs executed in {time.perf_counter() - started:.1f} s; {result.rows} runs "
          f"tabulated in {result.table}")
    if result.skipped_names:
        print(f"not tabulated (not a scalar): {', '.join(result.skipped_names)}")
    if result.failures:
        return _error(" ".join(result.failure_message.split()))
    return 0


def _run_sweep_command(args) -> int:
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        return _error(f"--workers must be between 1 and {MAX_WORKERS} (processes on this machine); got {args.workers}")
    if args.scheduler is not None:
        check_scheduler_address(args.scheduler)
    if args.out is not None and Path(args.out).exists() and not Path(args.out).is_dir():
        return _error(f"--out {args.out} exists and is not a folder")
    if args.target == "notebook":
        return _notebook_sweep(args)
    if args.chapter is not None or args.grid or args.fixed:
        return _error(f"CHAPTER, --grid and --set apply to 'sweep notebook' only, not to 'sweep {args.target}'")
    started = time.perf_counter()
    if args.target == "dpsgd":
        if args.pairs or args.summarise:
            return _error("--pairs and --summarise apply to 'sweep dhc' only")
        if args.data_dir is not None and not Path(args.data_dir).is_dir():
            return _error(f"--data-dir {args.data_dir!r} is not a folder")
        out = Path(args.out or "results/dpsgd").resolve()
        try:
            settings = None if args.settings is None else [(float(q), int(n)) for q, n in
                                                           (item.split(",") for item in args.settings)]
            targets = None if args.targets is None else [(float(e), float(d)) for e, d in
                                                         (item.split(",") for item in args.targets)]
        except ValueError:
            return _error("--settings takes Q,N items such as 0.005,500 and --targets EPS,DELTA items such as 3,1e-5")
        data_dir = None if args.data_dir is None else str(Path(args.data_dir).resolve())
        jobs = [(grid["settings"][0][0], grid["settings"][0][1], grid["seeds"][0], grid["targets"], str(out), data_dir)
                for grid in dpsgd_grid(targets=targets, settings=settings, seeds=args.seeds)]
        from ..applications.dpsgd import train_job

        done = run_jobs(train_job, jobs, scheduler=args.scheduler, workers=args.workers, progress=not args.no_progress)
        print(f"{len(done)} DP-SGD jobs (setting x seed) trained in {time.perf_counter() - started:.1f} s; results in {out}")
        return 0
    if args.data_dir is not None:
        return _error("--data-dir applies to 'sweep dpsgd' only")
    pairs = None
    if args.pairs:
        if len(args.pairs) % 2:
            return _error("--pairs takes an even number of allocation numbers (K1 L1 K2 L2 ...)")
        for p in args.pairs:
            census.check_allocation(p, "--pairs")  # a ValueError is reported as one line
        pairs = list(dict.fromkeys(tuple(sorted(p)) for p in zip(args.pairs[::2], args.pairs[1::2])))
    out = Path(args.out or "results/dhc").expanduser().resolve()
    if args.summarise:  # checked before anything is computed
        valid = {p for p in census.all_pairs() if pair_status(out, *p) is None} if out.is_dir() else set()
        missing = set(census.all_pairs()) - valid - set(pairs or census.all_pairs())
        if missing:
            return _error(f"--summarise needs all 946 pairs in {out}; {len(missing)} would still be missing after "
                          f"this run (e.g. {sorted(missing)[0][0]} {sorted(missing)[0][1]}); drop --pairs or "
                          f"--summarise")
    done = run_dhc_sweep(out, pairs, scheduler=args.scheduler, workers=args.workers,
                         progress=not args.no_progress)
    print(f"{len(done)} pairs computed in {time.perf_counter() - started:.1f} s; results in {out}")
    if args.summarise:
        with sweep_lock(out):
            invalid = [p for p in census.all_pairs() if pair_status(out, *p) is not None]
            if invalid:
                return _error(f"--summarise needs all 946 valid pairs in {out}; {len(invalid)} are missing or "
                              f"invalid (e.g. {invalid[0][0]} {invalid[0][1]}: {pair_status(out, *invalid[0])})")
            census.write_census_results(out)
            rows = census.variance_reduction_table(out, census.VARIANCE_LEVELS, workers=args.workers,
                                                   scheduler=args.scheduler, progress=not args.no_progress)
        print(f"census-wide curves and the variance give-back at {len(rows)} levels written to {out}")
    return 0
