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

Integrity (book/running.md, "Reliability"): after both files of a pair are in place, a manifest
``manifest/pair_K_L.json`` records their SHA-256 and the job's options. On resume a pair counts as done
only when its manifest matches the files *and* the files pass :func:`check_pair_files` (header, row
count, the expected ε grid, finite decimals, δ ∈ [0, 1] non-increasing, bounds within tolerance, a
monotone trade-off curve); anything else is reported and recomputed. ``out_dir`` is made absolute before
jobs leave the client (it must be on a filesystem every worker shares); a lock file refuses a second
sweep on the same folder; files are world-readable (0644); jobs pin BLAS and OpenMP to one thread, so
results are byte-identical whatever the scheduler, worker count or BLAS threads; pool workers die with
their parent.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import re
import sys
import tempfile
import threading
import time
from decimal import Decimal, InvalidOperation
from concurrent.futures import ProcessPoolExecutor, as_completed
from fractions import Fraction
from pathlib import Path


from . import census
from ._numbers import decimal_string
from .profiles import ShiftPair, epsilon_zcdp

__all__ = ["pair_job", "run_jobs", "run_dhc_sweep", "pair_paths", "tradeoff_indices", "add_sweep_parser",
           "run_notebook_grid", "dpsgd_grid", "write_text_atomically", "SweepError", "check_pair_files",
           "pair_status", "manifest_path", "sweep_lock"]

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
        os.fchmod(handle, 0o644)  # world-readable, like any result file (mkstemp creates 0600)
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


JOB_DEFAULTS = {"smallest_delta_exponent": 30, "rel_tol": 1e-6, "abs_tol": 1e-25, "points_per_side": 200,
                "variance_scale": 1}


def pair_job(k: int, l: int, out_dir, *, smallest_delta_exponent: int = 30, rel_tol: float = 1e-6,
             abs_tol: float = 1e-25, points_per_side: int = 200, variance_scale=1) -> dict:
    """Compute and write both curves of DHC pair (k, l); returns a summary (timings, node counts).

    ``variance_scale`` c multiplies every noise variance (ρ_i → ρ_i/c); the
    ε grid stays at ε_zCDP(δ) of the *unscaled* ρ. BLAS and OpenMP run on one thread inside the
    job, so the files are the same bytes on any executor. After both files are in place the
    pair's manifest (hashes and options) is written.
    """
    from threadpoolctl import threadpool_limits

    out_dir = Path(out_dir)
    if not out_dir.is_absolute():
        raise ValueError(f"out_dir must be an absolute path (resolve it before the job leaves the client); got {out_dir}")
    options = {"smallest_delta_exponent": smallest_delta_exponent, "rel_tol": rel_tol, "abs_tol": abs_tol,
               "points_per_side": points_per_side, "variance_scale": str(Fraction(variance_scale))}
    with threadpool_limits(limits=1):
        summary = _pair_job(k, l, out_dir, smallest_delta_exponent=smallest_delta_exponent, rel_tol=rel_tol,
                            abs_tol=abs_tol, points_per_side=points_per_side, variance_scale=variance_scale)
    _write_manifest(out_dir, k, l, options)
    return summary


def _pair_job(k, l, out_dir, *, smallest_delta_exponent, rel_tol, abs_tol, points_per_side, variance_scale):
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


# -- integrity: manifests, validation on resume, the folder lock, workers that die with the parent --------


def manifest_path(out_dir, k: int, l: int) -> Path:
    return Path(out_dir) / "manifest" / f"pair_{k}_{l}.json"


def _sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _write_manifest(out_dir: Path, k: int, l: int, options: dict) -> None:
    files = {str(p.relative_to(out_dir)): _sha256(p) for p in pair_paths(out_dir, k, l)}
    record = {"pair": [k, l], "options": options, "sha256": files}
    write_text_atomically(manifest_path(out_dir, k, l), json.dumps(record, indent=1, sort_keys=True) + "\n")


def _finite_decimal(text: str, where: str) -> Decimal:
    try:
        value = Decimal(text)
    except (InvalidOperation, TypeError):
        raise ValueError(f"{where}: {text!r} is not a decimal number") from None
    if not value.is_finite():
        raise ValueError(f"{where}: {text!r} is not finite")
    return value


def _read_csv(path: Path, header) -> list[list[str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{path}: missing") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: unreadable ({type(error).__name__})") from None
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or tuple(rows[0]) != tuple(header):
        raise ValueError(f"{path}: the header is not {','.join(header)}")
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise ValueError(f"{path}: line {n} has {len(row)} fields, expected {len(header)}")
    return rows[1:]


def check_pair_files(out_dir, k: int, l: int, *, smallest_delta_exponent: int | None = 30,
                     rel_tol: float | None = 1e-6, abs_tol: float | None = 1e-25,
                     points_per_side: int | None = 200) -> None:
    """Raise ``ValueError`` naming the file and the defect unless pair (k, l)'s two files are complete and sane.

    Checks: headers; every field a finite decimal; the δ_zCDP grid of ``smallest_delta_exponent`` (row
    count and labels); δ ∈ [0, 1] and non-increasing in ε (within the bounds); 0 ≤ error_bound ≤ rel_tol·δ;
    α and β in [0, 1], α non-decreasing and β non-increasing (within the bounds), error_bound ≤ abs_tol,
    at least 2·``points_per_side`` vertices. Pass ``None`` to skip a check that depends on the job options.
    """
    from . import census

    eps_path, trade_path = pair_paths(out_dir, k, l)
    rows = _read_csv(eps_path, EPS_DELTA_HEADER)
    if smallest_delta_exponent is not None:
        levels = [f"{d:.0e}" for d in census.delta_levels(smallest_delta_exponent)]
        if [r[0] for r in rows] != levels:
            raise ValueError(f"{eps_path}: expected {len(levels)} rows on the δ_zCDP grid 5e-01 … "
                             f"1e-{smallest_delta_exponent:02d}; found {len(rows)} rows that do not match it")
        grid = [_decimal(Fraction(repr(epsilon_zcdp(census.TOTAL_RHO, d))))
                for d in census.delta_levels(smallest_delta_exponent)]
        for n, (row, epsilon) in enumerate(zip(rows, grid), start=2):
            if row[1] != epsilon:
                raise ValueError(f"{eps_path}: line {n}: ε = {row[1]} is not the grid's ε_zCDP = {epsilon}")
    values = [[_finite_decimal(x, f"{eps_path}: line {n}") for x in row[1:]] for n, row in enumerate(rows, start=2)]
    for n, (eps, delta, bound) in enumerate(values, start=2):
        if not (-bound <= delta <= 1 + bound and bound >= 0 and eps > 0):
            raise ValueError(f"{eps_path}: line {n}: values out of range (ε > 0, δ in [0, 1] within its bound, "
                             f"bound ≥ 0)")
        if rel_tol is not None and bound > Decimal(repr(rel_tol)) * delta * Decimal("1.000001"):
            raise ValueError(f"{eps_path}: line {n}: error bound {bound} exceeds rel_tol·δ")
    for n, (a, b) in enumerate(zip(values, values[1:]), start=3):
        if not a[0] < b[0] or b[1] > a[1] + a[2] + b[2]:
            raise ValueError(f"{eps_path}: line {n}: ε must increase and δ must not increase")
    trade = _read_csv(trade_path, TRADEOFF_HEADER)
    if points_per_side is not None and len(trade) < 2 * points_per_side:
        raise ValueError(f"{trade_path}: {len(trade)} vertices, expected at least {2 * points_per_side}")
    vertices = [[_finite_decimal(x, f"{trade_path}: line {n}") for x in row] for n, row in enumerate(trade, start=2)]
    for n, (alpha, beta, bound) in enumerate(vertices, start=2):
        if not (bound >= 0 and -bound <= alpha <= 1 + bound and -bound <= beta <= 1 + bound):
            raise ValueError(f"{trade_path}: line {n}: values out of range (α, β in [0, 1] within the bound, "
                             f"bound ≥ 0)")
        if abs_tol is not None and bound > Decimal(repr(abs_tol)):
            raise ValueError(f"{trade_path}: line {n}: error bound {bound} exceeds abs_tol")
    for n, (a, b) in enumerate(zip(vertices, vertices[1:]), start=3):
        slack = a[2] + b[2]
        if b[0] < a[0] - slack or b[1] > a[1] + slack:
            raise ValueError(f"{trade_path}: line {n}: α must not decrease and β must not increase")


def pair_status(out_dir, k: int, l: int, options: dict | None = None) -> str | None:
    """None when pair (k, l) is complete and valid in ``out_dir``; otherwise why not ("missing", or the defect).

    Valid: both files present, the manifest's hashes match them, its options match ``options``
    (default :data:`JOB_DEFAULTS`), and :func:`check_pair_files` passes.
    """
    out_dir = Path(out_dir)
    options = {**JOB_DEFAULTS, **(options or {})}
    paths = pair_paths(out_dir, k, l)
    if not any(p.exists() for p in paths):
        return "missing"
    manifest = manifest_path(out_dir, k, l)
    try:
        record = json.loads(manifest.read_text(encoding="utf-8"))
        hashes = record["sha256"]
        stored = record["options"]
    except FileNotFoundError:
        return f"{manifest}: missing (the job did not finish)"
    except (OSError, ValueError, KeyError, TypeError):
        return f"{manifest}: unreadable"
    for path in paths:
        if not path.is_file():
            return f"{path}: missing"
        if hashes.get(str(path.relative_to(out_dir))) != _sha256(path):
            return f"{path}: contents differ from the manifest's hash (edited or corrupted)"
    wanted = {**options, "variance_scale": str(Fraction(options["variance_scale"]))}
    if stored != wanted:
        return f"{manifest}: computed with other options ({stored})"
    try:
        check_pair_files(out_dir, k, l, smallest_delta_exponent=options["smallest_delta_exponent"],
                         rel_tol=options["rel_tol"], abs_tol=options["abs_tol"],
                         points_per_side=options["points_per_side"])
    except ValueError as error:
        return str(error)
    return None


class _FolderLock:
    """An exclusive ``fcntl.flock`` on ``out_dir/.sweep.lock`` (released by the kernel if the process dies)."""

    def __init__(self, out_dir: Path):
        self.path = Path(out_dir) / ".sweep.lock"
        self.handle = None

    def __enter__(self):
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.handle = open(self.path, "a+", encoding="utf-8")
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.handle.seek(0)
            holder = self.handle.read().strip() or "another process"
            self.handle.close()
            raise SweepError(f"another sweep ({holder}) is running on {self.path.parent}: one sweep at a time per "
                             f"folder (lock file {self.path})", []) from None
        self.handle.seek(0)
        self.handle.truncate()
        self.handle.write(f"pid {os.getpid()}\n")
        self.handle.flush()
        return self

    def __exit__(self, *exc):
        try:
            self.path.unlink()
        except OSError:
            pass
        self.handle.close()
        return False


def sweep_lock(out_dir) -> _FolderLock:
    """Context manager: hold the folder's sweep lock (raises :class:`SweepError` if another sweep holds it)."""
    return _FolderLock(Path(out_dir))


def _die_with_parent(parent: int) -> None:
    """Pool worker initializer: end this worker when the parent dies (no orphans finishing jobs nobody logs).

    Linux: prctl(PR_SET_PDEATHSIG, SIGKILL); everywhere: a daemon thread that polls the parent pid.
    """
    import signal

    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)

    def watch():
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watchdog").start()


SCHEDULER_TIMEOUT = 10  # seconds to reach a Dask scheduler before giving up
_ADDRESS = re.compile(r"^(tcp|tls|ucx|ws|wss|inproc)://[^\s/:]+(:\d{1,5})?/?$")


def check_scheduler_address(address: str) -> str:
    """Refuse anything that is not a Dask scheduler address such as ``tcp://HOST:8786``."""
    if not isinstance(address, str) or not _ADDRESS.match(address):
        raise SweepError(f"--scheduler must be a Dask scheduler address such as tcp://HOST:8786; got {address!r}", [])
    return address


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

    if scheduler:
        check_scheduler_address(scheduler)
    try:
        if scheduler:
            from dask.distributed import Client
            from dask.distributed import as_completed as dask_completed

            try:
                client = Client(scheduler, timeout=SCHEDULER_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as error:
                raise SweepError(f"could not reach the Dask scheduler at {scheduler} within {SCHEDULER_TIMEOUT} s "
                                 f"({type(error).__name__}: {_last_line(error)})", []) from None
            with client:
                futures = {client.submit(function, *args, pure=False): args for args in jobs}
                for future in dask_completed(futures):
                    settle(futures[future], future.result)
        elif workers == 1:
            for args in jobs:
                settle(args, lambda: function(*args))
        else:
            with ProcessPoolExecutor(max_workers=workers, initializer=_die_with_parent, initargs=(os.getpid(),)) as pool:
                futures = {pool.submit(function, *args): args for args in jobs}
                for future in as_completed(futures):
                    settle(futures[future], future.result)
    finally:
        if bar is not None:
            bar.close()
    if failures:
        lines = "; ".join(f"{args!r}: {type(error).__name__}: {_last_line(error)}" for args, error in failures[:5])
        more = f"; and {len(failures) - 5} more" if len(failures) > 5 else ""
        raise SweepError(f"{len(failures)} of {len(jobs)} jobs failed (the others finished and kept their "
                         f"files; re-running retries only the failed ones): {lines}{more}", failures)
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
                  report=None, **job_options) -> list[dict]:
    """Both curves for every pair in ``pairs`` (default: all 946), skipping pairs already written and valid.

    ``out_dir`` is resolved to an absolute path before any job is sent (with a Dask scheduler it must be
    on a filesystem every worker shares). Duplicate pairs (in either order) are computed once. A pair whose
    files are present but fail :func:`pair_status` (no manifest, hash mismatch, bad content) is reported
    through ``report`` (default: a line on stderr) and recomputed. The folder is locked for the run.
    Returns the summaries of the pairs computed in this run.
    """
    from . import census

    out_dir = Path(out_dir).expanduser().resolve()
    if out_dir.exists() and not out_dir.is_dir():
        raise SweepError(f"--out {out_dir} exists and is not a folder", [])
    unknown = set(job_options) - set(JOB_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown job options {sorted(unknown)}; accepted: {sorted(JOB_DEFAULTS)}")
    pairs = census.all_pairs() if pairs is None else list(dict.fromkeys(tuple(sorted(p)) for p in pairs))
    for k, l in pairs:
        census.pair_rhos(k, l)  # validates the allocation numbers
    if report is None:
        report = lambda line: print(line, file=sys.stderr)  # noqa: E731
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SweepError(f"cannot create the output folder {out_dir}: {error.strerror or error}", []) from None
    with sweep_lock(out_dir):
        todo = []
        for p in pairs:
            status = pair_status(out_dir, *p, job_options)
            if status is None:
                continue
            if status != "missing":
                report(f"pair {p[0]} {p[1]}: invalid result files, recomputing ({status})")
                manifest_path(out_dir, *p).unlink(missing_ok=True)
            todo.append(p)
        todo = order_by_cost(todo)
        jobs = [(k, l, str(out_dir)) for k, l in todo]
        if job_options:
            from functools import partial

            function = partial(pair_job, **job_options)
        else:
            function = pair_job
        log = out_dir / "sweep_log.csv"
        fields = ("pair", "seconds", "L", "N", "per_factor_nodes", "nodes", "engines", "smallest_Delta",
                  "tilted_engines", "tilted_nodes")

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


def dpsgd_grid(targets=None, settings=None, seeds=None) -> list[dict]:
    """The DP-SGD sweeps as jobs, one per ((q, n), seed) (also usable as the chapter's papermill parameters).

    Each run trains one seed of one setting at every target, so the clipping-only run (shared by the
    targets) is trained once, by one worker. Seed by seed (so that whole seeds finish first), the most
    expensive settings (largest n·q) first within a seed.
    """
    from .dpsgd import PAPER_TARGETS, paper_settings

    targets = [[float(e), float(d)] for e, d in (PAPER_TARGETS if targets is None else targets)]
    settings = sorted(paper_settings() if settings is None else settings, key=lambda s: -s[0] * s[1])
    seeds = [0, 1, 2, 3, 4] if seeds is None else list(seeds)
    return [{"targets": targets, "settings": [[float(q), int(n)]], "seeds": [int(seed)]}
            for seed in seeds for q, n in settings]


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
                                  "one file per pair. dpsgd: the DP-SGD chapter's training sweeps (one job per setting and seed), one "
                                  "JSON file per setting and seed. Files are written atomically; re-running skips "
                                  "finished work.")
    sweep.add_argument("target", choices=["dhc", "dpsgd"],
                       help="what to sweep (dhc: the 946 allocation pairs; dpsgd: the paper's DP-SGD grid)")
    sweep.add_argument("--out", default=None, help="output folder (default results/dhc or results/dpsgd); made "
                       "absolute before jobs are sent, and with --scheduler it must be on a filesystem every worker "
                       "shares. One sweep at a time per folder (a lock file refuses a second)")
    sweep.add_argument("--pairs", nargs="+", type=int, metavar="K L",
                       help="dhc only: these pairs, as a flat list K1 L1 K2 L2 ... (default: all 946)")
    sweep.add_argument("--data-dir", default=None,
                       help="dpsgd only: folder with the Fashion-MNIST IDX files (default: /usr/share/datasets/fashion-mnist, else scikit-learn digits)")
    sweep.add_argument("--settings", nargs="+", default=None, metavar="Q,N",
                       help="dpsgd only: these (q, n) settings, e.g. 0.005,500 (default: the paper's nine)")
    sweep.add_argument("--seeds", nargs="+", type=int, default=None, help="dpsgd only: seeds (default 0 1 2 3 4)")
    sweep.add_argument("--targets", nargs="+", default=None, metavar="EPS,DELTA",
                       help="dpsgd only: privacy targets, e.g. 3,1e-5 (default: the paper's two)")
    sweep.add_argument("--workers", type=int, default=None, help="local processes (default: all cores)")
    sweep.add_argument("--scheduler", default=None, metavar="ADDRESS",
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


def _run_sweep_command(args) -> int:
    if args.workers is not None and args.workers < 1:
        return _error("--workers must be >= 1")
    if args.scheduler is not None:
        check_scheduler_address(args.scheduler)
    if args.out is not None and Path(args.out).exists() and not Path(args.out).is_dir():
        return _error(f"--out {args.out} exists and is not a folder")
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
        from .dpsgd import train_job

        done = run_jobs(train_job, jobs, scheduler=args.scheduler, workers=args.workers, progress=not args.no_progress)
        print(f"{len(done)} DP-SGD jobs (setting x seed) trained in {time.perf_counter() - started:.1f} s; results in {out}")
        return 0
    if args.data_dir is not None:
        return _error("--data-dir applies to 'sweep dpsgd' only")
    pairs = None
    if args.pairs:
        if len(args.pairs) % 2 or any(not 1 <= p <= 43 for p in args.pairs):
            return _error("--pairs takes an even number of allocation numbers, each in 1..43")
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
