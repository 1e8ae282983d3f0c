"""Running many independent jobs: the 946 DHC pairs, and papermill parameter grids.

Layer 10 of :mod:`accountlib`. Jobs run on an executor — a local process pool
by default, or a Dask distributed cluster when the caller passes a scheduler
address. Every job writes its own result files atomically (a temporary file in
the same folder, then ``os.replace``), so an interrupted sweep loses at most
the jobs in flight, and re-running it skips every job whose files exist.

Per DHC pair (k ≤ l) the sweep writes

* ``eps_delta/pair_K_L.csv`` — columns ``delta_zcdp,epsilon,delta,error_bound``:
  for each δ_zCDP on the grid 5e-1, 1e-1, …, 1e-30, ε = ε_zCDP(δ_zCDP) and the
  exact δ(ε), certified to ``error_bound ≤ rel_tol·δ``;
* ``tradeoff/pair_K_L.csv`` — columns ``alpha,beta,error_bound``: vertices of
  the exact trade-off curve (α_j, β_j), chosen log-uniformly in α from both
  ends (dense near α = 0 and near β = 0), certified to ``abs_tol``.

Numbers are decimal strings with 30 significant digits.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from fractions import Fraction
from pathlib import Path


from . import census
from ._numbers import decimal_string
from .profiles import ShiftPair, epsilon_zcdp

__all__ = ["pair_job", "run_jobs", "run_dhc_sweep", "pair_paths", "tradeoff_indices", "add_sweep_parser",
           "run_notebook_grid", "dpsgd_grid", "write_text_atomically", "SweepError"]

DIGITS = 30
EPS_DELTA_HEADER = ("delta_zcdp", "epsilon", "delta", "error_bound")
TRADEOFF_HEADER = ("alpha", "beta", "error_bound")


def _decimal(value) -> str:
    return decimal_string(value, DIGITS)


def write_text_atomically(path: Path, text: str) -> None:
    """Write ``text`` so that ``path`` either does not exist or holds the whole file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def write_csv_atomically(path: Path, header, rows) -> None:
    """Write a CSV atomically (see :func:`write_text_atomically`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    write_text_atomically(path, buffer.getvalue())


def pair_paths(out_dir, k: int, l: int) -> tuple[Path, Path]:
    out_dir = Path(out_dir)
    name = f"pair_{k}_{l}.csv"
    return out_dir / "eps_delta" / name, out_dir / "tradeoff" / name


def tradeoff_indices(pair: ShiftPair, points_per_side: int, smallest_alpha: float, cut: int) -> list[int]:
    """Lattice indices j whose vertices (α_j, β_j) cover the curve, dense near both ends.

    Around the symmetric vertex j ≈ L (where α = β), the indices j = L + s·z_i take z_i with
    Φ̄(z_i) log-uniform from 1/2 down to ``smallest_alpha`` (s² = Var S_L), capped at the engine's
    truncation point ``cut`` so that no two collapse; the set is closed under j ↦ 2L + 1 − j, so
    every β_j is again one of the α's (one tail per vertex). 2·``points_per_side`` distinct indices
    or more.
    """
    from scipy.special import ndtri

    sd = math.sqrt(float(sum(Fraction(c * c) / r for c, r in zip(pair.lattice.coefficients, pair.rhos))))
    centre = pair.shift / 2
    z_max = min(-float(ndtri(smallest_alpha)), (cut - centre) / sd)
    p_max = 0.5 * math.erfc(z_max / math.sqrt(2))  # Φ̄(z_max)
    logs = [math.log10(p_max) * (1 - i / (points_per_side - 1)) + math.log10(0.5) * i / (points_per_side - 1)
            for i in range(points_per_side)]
    upper = {min(cut, round(centre - sd * float(ndtri(10**x)))) for x in logs}
    upper |= {math.ceil(centre + 0.5)}
    indices = upper | {pair.shift + 1 - j for j in upper}
    return sorted(indices)


def pair_job(k: int, l: int, out_dir, *, smallest_delta_exponent: int = 30, rel_tol: float = 1e-6,
             abs_tol: float = 1e-25, points_per_side: int = 200, variance_scale=1) -> dict:
    """Compute and write both curves of DHC pair (k, l); returns a summary (timings, node counts).

    ``variance_scale`` c multiplies every noise variance (ρ_i → ρ_i/c); the
    ε grid stays at ε_zCDP(δ) of the *unscaled* ρ.
    """
    started = time.perf_counter()
    scale = Fraction(variance_scale)
    rhos = [r / scale for r in census.pair_rhos(k, l)]
    pair = ShiftPair(rhos)
    base_rho = census.TOTAL_RHO  # ρ = (Σρ_i)/2 of every unscaled pair
    levels = census.delta_levels(smallest_delta_exponent)
    epsilons = [Fraction(repr(epsilon_zcdp(base_rho, d))) for d in levels]
    # start coarse: the large-δ levels are settled by a cheap engine, finer engines follow for the rest
    points = pair.delta(epsilons, rel_tol=rel_tol, start_delta=1e-16)
    eps_rows = [(f"{d:.0e}", _decimal(p.epsilon), _decimal(p.delta), _decimal(p.error_bound))
                for d, p in zip(levels, points)]
    engine = pair.engine(abs_tol / 4)
    indices = tradeoff_indices(pair, points_per_side, abs_tol, engine.cut)
    tails = dict(zip(indices, engine.tail_indices(indices)))
    vertices = []
    for j in indices:
        a, b = tails[j], tails[pair.shift + 1 - j]
        vertices.append((a.value, b.value, max(a.error_bound, b.error_bound)))
    vertices.sort(key=lambda v: v[0])
    trade_rows = [(_decimal(a), _decimal(b), _decimal(e)) for a, b, e in vertices]
    eps_path, trade_path = pair_paths(out_dir, k, l)
    write_csv_atomically(eps_path, EPS_DELTA_HEADER, eps_rows)
    write_csv_atomically(trade_path, TRADEOFF_HEADER, trade_rows)
    finest = min(pair._engines, key=lambda e: e.delta)
    return {
        "pair": (k, l),
        "seconds": time.perf_counter() - started,
        "L": str(pair.lattice.scale),
        "N": finest.modulus,
        "per_factor_nodes": finest.sieve.per_factor_count,
        "nodes": int(finest.nodes.size),
        "engines": len(pair._engines),
        "smallest_Delta": finest.delta,
        "tilted_engines": len(pair._tilted_engines),
        "tilted_nodes": sum(int(e.nodes.size) for e in pair._tilted_engines),
    }


# -- executors ------------------------------------------------------------------------------------


def _progress(total: int, enabled: bool):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm ships with the book extra
        return None
    return tqdm(total=total, unit="job", smoothing=0.1, file=sys.stderr)


def run_jobs(function, jobs: list[tuple], *, scheduler: str | None = None, workers: int | None = None,
             progress: bool = True, on_result=None) -> list:
    """Run ``function(*args)`` for every args tuple in ``jobs``; return the results in completion order.

    By default a local ``ProcessPoolExecutor`` (``workers`` processes, default:
    all cores); with ``scheduler`` (an address such as ``tcp://127.0.0.1:8786``)
    the jobs go to that Dask distributed cluster instead. A progress bar shows
    jobs done and the estimated time left. ``on_result`` is called with each
    result as it arrives. A failing job does not stop the others: when all have
    run, :class:`SweepError` reports every failure (finished jobs keep their files).
    """
    bar = _progress(len(jobs), progress)
    results, failures = [], []

    def settle(args, outcome):
        try:
            results.append(_collect(outcome(), bar, on_result))
        except Exception as error:  # noqa: BLE001 - reported together below
            failures.append((args, error))

    try:
        if scheduler:
            from dask.distributed import Client
            from dask.distributed import as_completed as dask_completed

            with Client(scheduler) as client:
                futures = {client.submit(function, *args, pure=False): args for args in jobs}
                for future in dask_completed(futures):
                    settle(futures[future], future.result)
        elif workers == 1:
            for args in jobs:
                settle(args, lambda: function(*args))
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                futures = {pool.submit(function, *args): args for args in jobs}
                for future in as_completed(futures):
                    settle(futures[future], future.result)
    finally:
        if bar is not None:
            bar.close()
    if failures:
        lines = "\n".join(f"  {args!r}: {type(error).__name__}: {_last_line(error)}" for args, error in failures[:20])
        raise SweepError(f"{len(failures)} of {len(jobs)} jobs failed (the others finished and kept their "
                         f"files; re-running retries only the failed ones):\n{lines}", failures)
    return results


def _last_line(error: Exception) -> str:
    """The last non-empty line of an error's message (papermill puts the cell's exception there)."""
    lines = [line for line in str(error).splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


class SweepError(RuntimeError):
    """Some jobs of a sweep failed; ``failures`` holds (args, exception) for each."""

    def __init__(self, message: str, failures: list):
        super().__init__(message)
        self.failures = failures


def _collect(result, bar, on_result):
    if bar is not None:
        bar.update(1)
    if on_result is not None:
        on_result(result)
    return result


def run_dhc_sweep(out_dir="results/dhc", pairs=None, *, scheduler=None, workers=None, progress=True,
                  **job_options) -> list[dict]:
    """Both curves for every pair in ``pairs`` (default: all 946), skipping pairs already written.

    Returns the summaries of the pairs computed in this run (finished pairs
    from earlier runs are skipped and not returned).
    """
    pairs = census.all_pairs() if pairs is None else [tuple(sorted(p)) for p in pairs]
    todo = [p for p in pairs if not all(path.is_file() for path in pair_paths(out_dir, *p))]
    todo = order_by_cost(todo)
    jobs = [(k, l, str(out_dir)) for k, l in todo]
    if job_options:
        from functools import partial

        function = partial(pair_job, **job_options)
    else:
        function = pair_job
    log = Path(out_dir) / "sweep_log.csv"
    log.parent.mkdir(parents=True, exist_ok=True)
    fields = ("pair", "seconds", "L", "N", "per_factor_nodes", "nodes", "engines", "smallest_Delta", "tilted_engines",
              "tilted_nodes")

    def record(summary):  # one line per finished pair: timings and node counts for the benchmark
        new_file = not log.is_file()
        with open(log, "a", encoding="utf-8") as handle:
            if new_file:
                handle.write(",".join(fields) + "\n")
            pair = summary["pair"]
            handle.write(",".join([f"{pair[0]}_{pair[1]}"] + [str(summary[f]) for f in fields[1:]]) + "\n")

    return run_jobs(function, jobs, scheduler=scheduler, workers=workers, progress=progress, on_result=record)


def allocation_weight(k: int) -> int:
    """Surviving nodes of pair (k, k) at Δ = 1e-20: how much quadrature work allocation k brings."""
    pair = ShiftPair(census.pair_rhos(k, k))
    from .quadrature import node_count, truncation_point
    from .sieve import sieve_nodes

    cut = truncation_point(pair.lattice.variance_proxy, 1e-20)
    modulus = node_count(cut)
    return sieve_nodes(pair.lattice.groups, modulus, 1e-20 / (4 * (2 * cut + 1))).product_count


def order_by_cost(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Cheap pairs first (by the heavier allocation's node count), so that a sweep interrupted
    early has finished as many pairs as possible and long jobs do not block the pool at the start."""
    weights = {k: allocation_weight(k) for k in sorted({k for pair in pairs for k in pair})}
    return sorted(pairs, key=lambda p: (max(weights[p[0]], weights[p[1]]), p))


def run_notebook_grid(notebook, grid: list[dict], out_dir, *, fixed: dict | None = None, scheduler=None,
                      workers=None, progress=True) -> list[str]:
    """Execute a jupytext chapter once per parameter set with papermill, on the same executor.

    Each run gets ``grid[i]`` merged over ``fixed`` (parameters shared by every run, left out of the
    file name) and writes ``out_dir/<stem>__<k=v>...ipynb``; runs whose output exists are skipped.
    """
    notebook, out_dir = Path(notebook).resolve(), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = []
    for parameters in grid:
        label = "__".join(f"{k}={v}" for k, v in sorted(parameters.items()))
        label = re.sub(r"[^A-Za-z0-9.=_-]+", "-", label).strip("-")
        target = out_dir / f"{notebook.stem}__{label}.ipynb"
        if not target.is_file():
            jobs.append((str(notebook), str(target), {**(fixed or {}), **parameters}))
    return run_jobs(_execute_notebook, jobs, scheduler=scheduler, workers=workers, progress=progress)


def dpsgd_grid(targets=None, settings=None) -> list[dict]:
    """Papermill parameter sets for the DP-SGD chapter's full sweeps: one run per (target, (q, n)).

    Longest horizons first, so that two workers finish together.
    """
    from .dpsgd import PAPER_TARGETS, paper_settings

    targets = PAPER_TARGETS if targets is None else targets
    settings = sorted(paper_settings() if settings is None else settings, key=lambda s: -s[1])
    return [{"targets": [[float(e), float(d)]], "settings": [[float(q), int(n)]]} for e, d in targets
            for q, n in settings]


def _execute_notebook(source: str, target: str, parameters: dict) -> str:
    import jupytext
    import papermill

    partial_target = Path(target).with_suffix(".partial.ipynb")
    papermill.execute_notebook(jupytext.read(source), str(partial_target), parameters=parameters,
                               cwd=str(Path(source).parent), progress_bar=False)
    os.replace(partial_target, target)
    return target


# -- command line ------------------------------------------------------------------------------


def add_sweep_parser(subparsers) -> None:
    sweep = subparsers.add_parser("sweep", help="run the DHC pairs or the DP-SGD sweeps on a process pool or a Dask "
                                  "cluster", description="dhc: the exact (ε, δ) and trade-off curves of DHC pairs, "
                                  "one file per pair. dpsgd: the DP-SGD chapter's full sweeps, run by papermill, one "
                                  "JSON file per setting and seed. Files are written atomically; re-running skips "
                                  "finished work.")
    sweep.add_argument("target", choices=["dhc", "dpsgd"],
                       help="what to sweep (dhc: the 946 allocation pairs; dpsgd: the paper's DP-SGD grid)")
    sweep.add_argument("--out", default=None, help="output folder (default results/dhc or results/dpsgd)")
    sweep.add_argument("--pairs", nargs="+", type=int, metavar="K L",
                       help="dhc only: these pairs, as a flat list K1 L1 K2 L2 ... (default: all 946)")
    sweep.add_argument("--data-dir", default=None,
                       help="dpsgd only: folder with the Fashion-MNIST IDX files (default: scikit-learn digits)")
    sweep.add_argument("--workers", type=int, default=None, help="local processes (default: all cores)")
    sweep.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="run on the Dask distributed scheduler at ADDRESS (e.g. tcp://127.0.0.1:8786)")
    sweep.add_argument("--summarise", action="store_true",
                       help="dhc only: after the pairs, write the census-wide curves and the certified variance "
                       "give-back table (needs all 946 pairs)")
    sweep.add_argument("--no-progress", action="store_true", help="no progress bar")
    sweep.set_defaults(handler=_sweep_command)


DPSGD_CHAPTER = Path(__file__).resolve().parents[1] / "notebooks" / "10_dpsgd.py"


def _sweep_command(args) -> int:
    try:
        return _run_sweep_command(args)
    except SweepError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


def _run_sweep_command(args) -> int:
    if args.workers is not None and args.workers < 1:
        print("error: --workers must be >= 1", file=sys.stderr)
        return 2
    started = time.perf_counter()
    if args.target == "dpsgd":
        if args.pairs or args.summarise:
            print("error: --pairs and --summarise apply to 'sweep dhc' only", file=sys.stderr)
            return 2
        if not DPSGD_CHAPTER.is_file():
            print(f"error: the DP-SGD chapter is not at {DPSGD_CHAPTER}; run from a checkout of the book",
                  file=sys.stderr)
            return 2
        if args.data_dir is not None and not Path(args.data_dir).is_dir():
            print(f"error: --data-dir {args.data_dir!r} is not a folder", file=sys.stderr)
            return 2
        out = Path(args.out or "results/dpsgd").resolve()
        fixed = {"quick": False, "results_dir": str(out), "threads": 1,
                 "data_dir": None if args.data_dir is None else str(Path(args.data_dir).resolve())}
        done = run_notebook_grid(DPSGD_CHAPTER, dpsgd_grid(), out / "notebooks", fixed=fixed,
                                 scheduler=args.scheduler, workers=args.workers, progress=not args.no_progress)
        print(f"{len(done)} chapter runs executed in {time.perf_counter() - started:.1f} s; results in {out}")
        return 0
    if args.data_dir is not None:
        print("error: --data-dir applies to 'sweep dpsgd' only", file=sys.stderr)
        return 2
    pairs = None
    if args.pairs:
        if len(args.pairs) % 2 or any(not 1 <= p <= 43 for p in args.pairs):
            print("error: --pairs takes an even number of allocation numbers, each in 1..43", file=sys.stderr)
            return 2
        pairs = list(zip(args.pairs[::2], args.pairs[1::2]))
    out = args.out or "results/dhc"
    done = run_dhc_sweep(out, pairs, scheduler=args.scheduler, workers=args.workers,
                         progress=not args.no_progress)
    print(f"{len(done)} pairs computed in {time.perf_counter() - started:.1f} s; results in {out}")
    if args.summarise:
        if len(census.available_pairs(out)) != 946:
            print("error: --summarise needs all 946 pairs in the output folder", file=sys.stderr)
            return 2
        census.write_census_results(out)
        rows = census.variance_reduction_table(out, census.VARIANCE_LEVELS, workers=args.workers,
                                               scheduler=args.scheduler, progress=not args.no_progress)
        print(f"census-wide curves and the variance give-back at {len(rows)} levels written to {out}")
    return 0
