"""``python -m accountlib sweep TARGET ...``: long runs of jobs, one file per job.

``sweep dhc`` (here) computes the DHC pairs; other packages add targets through the entry-point group
:data:`TARGETS_GROUP` (the book's package adds ``sweep dpsgd`` and ``sweep notebook``), so the library never
imports them. Each target hands its jobs to :func:`accountlib.infrastructure.executor.run_jobs`; this module
parses the command line, checks it and reports. Every error is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from importlib.metadata import entry_points
from pathlib import Path

from ..applications import census
from ..applications.census import pair_status, run_dhc_sweep
from ..infrastructure.executor import SweepError, check_scheduler_address, sweep_lock
from . import Once, Parser, unavailable


MAX_WORKERS = max(64, 4 * (os.cpu_count() or 1))
"""The most local processes ``--workers`` accepts: every worker is started up front, so a mistyped 100000 would
fork for minutes."""

#: The entry-point group through which other packages add sweep targets (``sweep dpsgd``, ``sweep notebook``
#: come from the book's package, ``accountbook``). An entry point names a function ``add(targets, common)``
#: that adds its target's parser to ``targets`` (with ``parents=[common]``) and sets ``handler`` on it,
#: usually :func:`sweep_handler` around its own function.
TARGETS_GROUP = "accountlib.sweep_targets"

__all__ = ["add_parser", "add_sweep_parser", "common_options", "sweep_handler", "TARGETS_GROUP", "MAX_WORKERS", "Once"]


def common_options() -> argparse.ArgumentParser:
    """The options every sweep target takes (a parent parser): --out, --workers, --scheduler, --no-progress."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--out", default=None, action=Once, help="output folder (default results/TARGET; required "
                        "for notebook); made absolute before jobs are sent, and with --scheduler it must be on a "
                        "filesystem every worker shares. One sweep at a time per folder (a lock file refuses a second)")
    common.add_argument("--workers", type=int, action=Once, default=None, help="local processes (default: all cores)")
    common.add_argument("--scheduler", default=None, action=Once, metavar="ADDRESS",
                        help="run on the Dask distributed scheduler at ADDRESS (e.g. tcp://127.0.0.1:8786)")
    common.add_argument("--no-progress", action="store_true", help="no progress bar")
    return common


def sweep_handler(run):
    """``run(args) -> int`` behind the shared checks (--workers, --scheduler, --out), every error one line on
    stderr and exit status 2."""

    def handler(args) -> int:
        try:
            if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
                return _error(f"--workers must be between 1 and {MAX_WORKERS} (processes on this machine); got "
                              f"{args.workers}")
            if args.scheduler is not None:
                check_scheduler_address(args.scheduler)
            if args.out is not None and Path(args.out).exists() and not Path(args.out).is_dir():
                return _error(f"--out {args.out} exists and is not a folder")
            return run(args)
        except (SweepError, ValueError, ArithmeticError, OSError) as error:
            return _error(" ".join(str(error).split()))

    return handler


def add_parser(subparsers) -> None:
    """The ``sweep`` subcommand's parser: the ``dhc`` target and those other installed packages add."""
    sweep = subparsers.add_parser("sweep", help="run the DHC pairs (or another installed target, such as the book's "
                                  "DP-SGD and chapter sweeps) on a process pool or a Dask cluster",
                                  description="Long jobs, one file per job, written atomically; re-running skips "
                                  "finished work. dhc: the exact (ε, δ) and trade-off curves of DHC pairs. Other "
                                  "targets come from installed packages (the book's package adds dpsgd and notebook).")
    targets = sweep.add_subparsers(dest="target", required=True, metavar="TARGET", parser_class=Parser)
    common = common_options()
    dhc = targets.add_parser("dhc", parents=[common], help="the 946 DHC allocation pairs, one file per pair",
                             description="The exact (ε, δ) and trade-off curves of DHC pairs, one file per pair "
                             "(default folder results/dhc).")
    dhc.add_argument("--pairs", nargs="+", action=Once, type=int, metavar="K L",
                     help="these pairs, as a flat list K1 L1 K2 L2 ... (default: all 946)")
    dhc.add_argument("--summarise", action="store_true",
                     help="after the pairs, write the census-wide curves and the certified variance give-back table "
                     "(needs all 946 pairs: checked before anything is computed)")
    dhc.set_defaults(handler=sweep_handler(_dhc_sweep))
    for point in sorted(entry_points(group=TARGETS_GROUP), key=lambda p: p.name):
        try:
            add = point.load()
        except ImportError as error:  # still listed, and running it says why it cannot run
            broken = targets.add_parser(point.name, add_help=False, prefix_chars="\0",
                                        help="unavailable: run it to see why")
            broken.add_argument("rest", nargs=argparse.REMAINDER)
            broken.set_defaults(handler=lambda args, error=error, name=point.name:
                                _error(unavailable(f"sweep {name}", error)))
        else:
            add(targets, common)


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _dhc_sweep(args) -> int:
    started = time.perf_counter()
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


add_sweep_parser = add_parser  # the former name
