"""The DHC sweep: both exact curves of every allocation pair, one job per pair, on the generic executor.

Application layer of :mod:`accountlib`. Jobs run on the generic executor (:mod:`accountlib.infrastructure.executor`) — a local process pool
by default, or a Dask distributed cluster when the caller passes a scheduler
address. Every job writes its own result files atomically (a temporary file in
the same folder, then ``os.replace``), so an interrupted sweep loses at most
the jobs in flight, and re-running it skips every job whose files exist.

Per DHC pair (k ≤ l) the sweep writes

* ``eps_delta/pair_K_L.csv`` — columns ``delta_zcdp,epsilon,delta,error_bound``:
  for each δ_zCDP on the grid 5e-1, 1e-1, …, 1e-30, ε = ε_zCDP(δ_zCDP) and the
  exact δ(ε), certified to ``error_bound ≤ rel_tol·δ``;
* ``tradeoff/pair_K_L.csv`` — columns ``alpha,beta,error_bound,slope_left,slope_right``: vertices of
  the exact trade-off curve (α_j, β_j), chosen log-uniformly in α from both
  ends (dense near α = 0 and near β = 0) and where the curve bends, certified to ``abs_tol``, with the
  exact slopes on both sides of each vertex (rounded inwards), so that the curve is certified between
  its vertices too (:mod:`accountlib.theory.tradeoff_band`).

Certified numbers are stored with the digits their bounds support (:func:`~accountlib.infrastructure.numbers.certified_decimal`).

Integrity (book/running.md, "Reliability"): after both files of a pair are in place, a manifest
``manifest/pair_K_L.json`` records their SHA-256 and the job's options. On resume a pair counts as done
only when its manifest matches the files *and* the files pass :func:`~accountlib.applications.census.pair_files.check_pair_files` (header, row
count, the expected ε grid, finite decimals, δ ∈ [0, 1] non-increasing, bounds within tolerance, a
monotone trade-off curve); anything else is reported and recomputed. ``out_dir`` is made absolute before
jobs leave the client (it must be on a filesystem every worker shares); a lock file refuses a second
sweep on the same folder; files are world-readable (0644); jobs pin BLAS and OpenMP to one thread, so
results do not depend on the scheduler, worker count or BLAS threads (on another CPU, whose SIMD kernels round
differently in the last bits, the stored intervals overlap); pool workers die with their parent.
"""

from __future__ import annotations

import json
import math
import sys
import time
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from ...infrastructure.atomic import append_line, sha256_of, write_csv_atomically, write_text_atomically
from ...infrastructure.executor import SweepError, run_jobs, sweep_lock
from ...infrastructure.numbers import as_fraction
from ...theory.conversions import zcdp_epsilon
from ...theory.composition import Composition
from .allocations import TOTAL_RHO, all_pairs, delta_levels, pair_rhos
from .pair_files import (EPS_DELTA_HEADER, JOB_DEFAULTS, TRADEOFF_HEADER, certified_decimal, epsilon_text, inward_slope,
                         manifest_path, pair_paths, pair_status)

__all__ = ["pair_job", "run_dhc_sweep", "tradeoff_indices", "allocation_weight", "order_by_cost"]


def tradeoff_indices(pair: Composition, points_per_side: int, smallest_alpha: float, cut: int,
                     bend_points: int = 0) -> list[int]:
    """Lattice indices j whose vertices (α_j, β_j) cover the curve, dense near both ends and where it bends.

    Around the symmetric vertex j ≈ L (where α = β), the indices j = L + s·z_i take z_i with
    Φ̄(z_i) log-uniform from 1/2 down to ``smallest_alpha`` (s² = Var S_L), capped at the engine's
    truncation point ``cut`` so that no two collapse. ``bend_points`` more indices go where the certified
    band between vertices (:mod:`accountlib.theory.tradeoff_band`) would otherwise be widest: between vertices
    Δj apart the band is about Δα·Δslope/4 ∝ Q(S_L = j)·Δj², so a spacing ∝ Q(S_L = j)^(-1/2) evens it out,
    that is, quantiles of the normal law N(2L, 2s²) (the second distribution's, twice as wide). The set is
    closed under j ↦ 2L + 1 − j, so every β_j is again one of the α's (one tail per vertex).
    2·``points_per_side`` distinct indices or more.
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
    upper |= {max(-cut, min(cut, round(2 * centre + math.sqrt(2) * sd * float(ndtri((i + 0.5) / bend_points)))))
              for i in range(bend_points)}
    indices = upper | {pair.shift + 1 - j for j in upper}
    indices = {j for j in indices if -cut <= j <= cut and -cut <= pair.shift + 1 - j <= cut}
    return sorted(indices)


def pair_job(k: int, l: int, out_dir, *, smallest_delta_exponent: int = 30, rel_tol: float = 1e-6,
             abs_tol: float = 1e-25, points_per_side: int = 200, bend_points: int = 250, variance_scale=1) -> dict:
    """Compute and write both curves of DHC pair (k, l); returns a summary (timings, node counts).

    ``variance_scale`` c multiplies every noise variance (ρ_i → ρ_i/c); the
    ε grid stays at ε_zCDP(δ) of the *unscaled* ρ. BLAS and OpenMP run on one thread inside the
    job, so the files are the same on any executor. After both files are in place the
    pair's manifest (hashes and options) is written.
    """
    from threadpoolctl import threadpool_limits

    out_dir = Path(out_dir)
    if not out_dir.is_absolute():
        raise ValueError(f"out_dir must be an absolute path (resolve it before the job leaves the client); got {out_dir}")
    options = {"smallest_delta_exponent": smallest_delta_exponent, "rel_tol": rel_tol, "abs_tol": abs_tol,
               "points_per_side": points_per_side, "bend_points": bend_points,
               "variance_scale": str(Fraction(variance_scale))}
    with threadpool_limits(limits=1):
        summary = _pair_job(k, l, out_dir, smallest_delta_exponent=smallest_delta_exponent, rel_tol=rel_tol,
                            abs_tol=abs_tol, points_per_side=points_per_side, bend_points=bend_points,
                            variance_scale=variance_scale)
    _write_manifest(out_dir, k, l, options)
    return summary


def _pair_job(k, l, out_dir, *, smallest_delta_exponent, rel_tol, abs_tol, points_per_side, bend_points,
              variance_scale):
    started = time.perf_counter()
    scale = Fraction(variance_scale)
    rhos = [r / scale for r in pair_rhos(k, l)]
    pair = Composition(rhos)
    base_rho = TOTAL_RHO  # ρ = (Σρ_i)/2 of every unscaled pair
    levels = delta_levels(smallest_delta_exponent)
    epsilons = [as_fraction(zcdp_epsilon(base_rho, d), "epsilon", floats="decimal") for d in levels]
    # the front door (engine.front.CertifiedTails) chooses the engines; half the tolerance: storing only the certified digits widens each bound a little (certified_decimal)
    points = pair.delta(epsilons, rel_tol=rel_tol / 2)
    eps_rows = [(f"{d:.0e}", epsilon_text(Fraction(e)), *certified_decimal(p.delta, p.error_bound))
                for d, e, p in zip(levels, epsilons, points)]
    engine = pair.tails.absolute_engine(abs_tol)  # the engine that serves the trade-off vertices to abs_tol
    indices = tradeoff_indices(pair, points_per_side, abs_tol, engine.cut, bend_points)
    tails = dict(zip(indices, engine.tail_indices(indices)))
    trade_rows = []
    for j in sorted(indices, reverse=True):  # α_j = P(S_L ≥ j) grows as j falls
        a, b = tails[j], tails[pair.shift + 1 - j]
        bound = max(a.error_bound, b.error_bound)
        (alpha, alpha_bound), (beta, beta_bound) = certified_decimal(a.value, bound), certified_decimal(b.value, bound)
        bound = max(Decimal(alpha_bound), Decimal(beta_bound))  # one bound for the vertex, in both coordinates
        # the segment left of the vertex (towards j + 1) has slope −LR(j), the one right of it −LR(j − 1)
        # rounded from rigorous enclosures of the ratios: the left one from below, the right one from above
        trade_rows.append((alpha, beta, str(bound), inward_slope(pair.likelihood_ratio_enclosure(j)[0], "left"),
                           inward_slope(pair.likelihood_ratio_enclosure(j - 1)[1], "right")))
    eps_path, trade_path = pair_paths(out_dir, k, l)
    write_csv_atomically(eps_path, EPS_DELTA_HEADER, eps_rows)
    write_csv_atomically(trade_path, TRADEOFF_HEADER, trade_rows)
    finest = min(pair.engines, key=lambda e: e.accuracy)
    return {
        "pair": (k, l),
        "seconds": time.perf_counter() - started,
        "L": str(pair.lattice.scale),
        "N": finest.modulus,
        "per_factor_nodes": finest.sieve.per_factor_count,
        "nodes": int(finest.nodes.size),
        "engines": len(pair.engines),
        "smallest_Delta": finest.accuracy,
        "tilted_engines": len(pair.tilted_engines),
        "tilted_nodes": sum(int(e.nodes.size) for e in pair.tilted_engines),
    }


def _write_manifest(out_dir: Path, k: int, l: int, options: dict) -> None:
    files = {str(p.relative_to(out_dir)): sha256_of(p) for p in pair_paths(out_dir, k, l)}
    record = {"pair": [k, l], "options": options, "sha256": files}
    write_text_atomically(manifest_path(out_dir, k, l), json.dumps(record, indent=1, sort_keys=True) + "\n")


def run_dhc_sweep(out_dir="results/dhc", pairs=None, *, scheduler=None, workers=None, progress=True,
                  report=None, **job_options) -> list[dict]:
    """Both curves for every pair in ``pairs`` (default: all 946), skipping pairs already written and valid.

    ``out_dir`` is resolved to an absolute path before any job is sent (with a Dask scheduler it must be
    on a filesystem every worker shares). Duplicate pairs (in either order) are computed once. A pair whose
    files are present but fail :func:`~accountlib.applications.census.pair_files.pair_status` (no manifest, hash mismatch, bad content) is reported
    through ``report`` (default: a line on stderr) and recomputed. The folder is locked for the run.
    Returns the summaries of the pairs computed in this run.
    """

    out_dir = Path(out_dir).expanduser().resolve()
    if out_dir.exists() and not out_dir.is_dir():
        raise SweepError(f"--out {out_dir} exists and is not a folder", [])
    unknown = set(job_options) - set(JOB_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown job options {sorted(unknown)}; accepted: {sorted(JOB_DEFAULTS)}")
    pairs = all_pairs() if pairs is None else list(dict.fromkeys(tuple(sorted(p)) for p in pairs))
    for k, l in pairs:
        pair_rhos(k, l)  # validates the allocation numbers
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

        def record(summary):  # one whole line per finished pair: timings and node counts for the benchmark
            if not log.is_file():
                append_line(log, ",".join(fields))
            pair = summary["pair"]
            append_line(log, ",".join([f"{pair[0]}_{pair[1]}"] + [str(summary[f]) for f in fields[1:]]))

        return run_jobs(function, jobs, scheduler=scheduler, workers=workers, progress=progress, on_result=record)


def allocation_weight(k: int) -> int:
    """Surviving nodes of pair (k, k) at Δ = 1e-20: how much quadrature work allocation k brings."""
    pair = Composition(pair_rhos(k, k))
    from ...engine.quadrature import node_count, truncation_point
    from ...engine.sieve import sieve_nodes

    cut = truncation_point(pair.lattice.variance_proxy, 1e-20)
    modulus = node_count(cut)
    return sieve_nodes(pair.lattice.groups, modulus, 1e-20 / (4 * (2 * cut + 1))).product_count


def order_by_cost(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Cheap pairs first (by the heavier allocation's node count), so that a sweep interrupted
    early has finished as many pairs as possible and long jobs do not block the pool at the start."""
    weights = {k: allocation_weight(k) for k in sorted({k for pair in pairs for k in pair})}
    return sorted(pairs, key=lambda p: (max(weights[p[0]], weights[p[1]]), p))
