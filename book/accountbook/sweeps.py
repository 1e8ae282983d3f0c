"""The book's sweep targets: ``python -m accountlib sweep dpsgd`` and ``python -m accountlib sweep notebook``.

Registered in this package's ``pyproject.toml`` under the entry-point group
:data:`accountlib.cli.sweep.TARGETS_GROUP`, so the library lists them without importing this package (the
library never imports the book's). Each target shares the options of every sweep (--out, --workers,
--scheduler, --no-progress) and its checks (:func:`accountlib.cli.sweep.sweep_handler`).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from accountlib.cli.sweep import Once, sweep_handler
from accountlib.infrastructure.executor import run_jobs

__all__ = ["add_dpsgd", "add_notebook"]


def add_dpsgd(targets, common) -> None:
    """``sweep dpsgd``: the DP-SGD chapter's training runs, one job per setting and seed."""
    dpsgd = targets.add_parser("dpsgd", parents=[common], help="the DP-SGD chapter's training runs (one job per "
                               "setting and seed), one JSON file each",
                               description="The DP-SGD chapter's training sweeps: one job per (q, n) setting and "
                               "seed, one JSON file per setting and seed (default folder results/dpsgd).")
    dpsgd.add_argument("--data-dir", default=None, action=Once,
                       help="folder with the Fashion-MNIST IDX files (default: /usr/share/datasets/fashion-mnist, "
                       "else the book's sample of it: 3,000 training images)")
    dpsgd.add_argument("--settings", nargs="+", action=Once, default=None, metavar="Q,N",
                       help="these (q, n) settings, e.g. 0.005,500 (default: the paper's nine)")
    dpsgd.add_argument("--seeds", nargs="+", action=Once, type=int, default=None, help="seeds (default 0 1 2 3 4)")
    dpsgd.add_argument("--targets", nargs="+", action=Once, default=None, metavar="EPS,DELTA",
                       help="privacy targets, e.g. 3,1e-5 (default: the paper's two)")
    dpsgd.set_defaults(handler=sweep_handler(_dpsgd_sweep))


def add_notebook(targets, common) -> None:
    """``sweep notebook CHAPTER``: a chapter run with papermill at every point of a parameter grid."""
    from .notebook_sweep import split_values  # noqa: F401 - the module must import for the target to be usable

    notebook = targets.add_parser("notebook", parents=[common], help="a chapter over a parameter grid, one "
                                  "executed notebook per point",
                                  description="The chapter run with papermill at every point of the --grid "
                                  "(Cartesian product), one executed notebook per point, and the values each run "
                                  "glued (myst-nb glue) in one table, OUT/results.csv.")
    notebook.add_argument("chapter", nargs="?", default=None, metavar="CHAPTER",
                          help="notebooks/NN_name.py (or .ipynb), or a chapter stem such as 02_primer or its number 02")
    notebook.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2",
                          help="a parameter of the chapter's parameters cell and its values (Python literals such as "
                          "0.5, True, [1, 2], else text); repeat for a Cartesian product")
    notebook.add_argument("--set", action="append", default=[], metavar="NAME=V", dest="fixed",
                          help="a parameter given the same value in every run")
    notebook.set_defaults(handler=sweep_handler(_notebook_sweep))


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
        found[name] = _split_values(values) if many else [values.strip()]
        if any(v == "" for v in found[name]):
            raise ValueError(f"{option} {name}: an empty value in {item!r}")
    return found


def _notebook_sweep(args) -> int:
    from .notebook_sweep import sweep_notebook

    if args.chapter is None:
        return _error("sweep notebook needs CHAPTER (notebooks/NN_name.py, or a chapter stem such as 02_primer)")
    if args.out is None:
        return _error("sweep notebook needs --out DIR (the executed notebooks and results.csv go there)")
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


def _dpsgd_sweep(args) -> int:
    from .dpsgd import check_seed, check_setting, check_target, dpsgd_grid, train_job

    started = time.perf_counter()
    if args.data_dir is not None and not Path(args.data_dir).is_dir():
        return _error(f"--data-dir {args.data_dir!r} is not a folder")
    out = Path(args.out or "results/dpsgd").resolve()
    # every setting, target and seed is checked here, before any job starts (one line each)
    settings = None if args.settings is None else [
        check_setting(*_two_fields(item, "--settings", "Q,N", "0.005,500"), f"--settings {item!r}")
        for item in args.settings]
    targets = None if args.targets is None else [
        check_target(*_two_fields(item, "--targets", "EPS,DELTA", "3,1e-5"), f"--targets {item!r}")
        for item in args.targets]
    seeds = None if args.seeds is None else [check_seed(s, "--seeds") for s in args.seeds]
    data_dir = None if args.data_dir is None else str(Path(args.data_dir).resolve())
    jobs = [(grid["settings"][0][0], grid["settings"][0][1], grid["seeds"][0], grid["targets"], str(out), data_dir)
            for grid in dpsgd_grid(targets=targets, settings=settings, seeds=seeds)]
    done = run_jobs(train_job, jobs, scheduler=args.scheduler, workers=args.workers, progress=not args.no_progress)
    print(f"{len(done)} DP-SGD jobs (setting x seed) trained in {time.perf_counter() - started:.1f} s; results in {out}")
    return 0


def _two_fields(item: str, option: str, form: str, example: str) -> tuple[str, str]:
    """The two comma-separated fields of a --settings or --targets item, else a one-line ValueError."""
    fields = [field.strip() for field in item.split(",")]
    if len(fields) != 2 or not all(fields):
        raise ValueError(f"{option} takes {form} items such as {example}; got {item!r}")
    return fields[0], fields[1]


def _split_values(text: str) -> list[str]:
    from .notebook_sweep import split_values

    return split_values(text)
