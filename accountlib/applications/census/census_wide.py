"""Census-wide curves from the per-pair files of the DHC sweep.

The census-wide (ε, δ) curve is the pointwise maximum of the 946 pairs' curves, and the census-wide
trade-off curve is the lower convex hull of all pairs' vertices (sieve paper §5.2): a record's pair of
geographic paths is unknown to the analyst, so the guarantee must hold for the worst pair.
"""

from __future__ import annotations

import csv
from pathlib import Path

from ...theory.profiles import lower_convex_envelope
from ...infrastructure.atomic import finite_decimal, read_csv, write_csv_atomically
from .allocations import all_pairs
from .pair_files import EPS_DELTA_HEADER, TRADEOFF_HEADER, check_pair_files, pair_paths

__all__ = ["read_pair_curves", "available_pairs", "census_eps_delta", "census_tradeoff", "write_census_results"]

_CONTEXT_DIGITS = 45


def _read_rows(path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def read_pair_curves(out_dir, k: int, l: int) -> dict:
    """The two curves of pair (k, l) from the sweep's files, as lists of ``Decimal`` (exact strings kept).

    A file that is missing, has the wrong header or a field that is not a finite decimal raises
    ``ValueError`` naming the file and the line.
    """

    eps_path, trade_path = pair_paths(out_dir, k, l)
    eps_rows, trade_rows = read_csv(eps_path, EPS_DELTA_HEADER), read_csv(trade_path, TRADEOFF_HEADER)
    eps = [[finite_decimal(x, f"{eps_path}: line {n}") for x in row] for n, row in enumerate(eps_rows, start=2)]
    trade = [[finite_decimal(x, f"{trade_path}: line {n}") for x in row] for n, row in enumerate(trade_rows, start=2)]
    if not eps or not trade:
        raise ValueError(f"{eps_path if not eps else trade_path}: no data rows")
    return {
        "delta_zcdp": [r[0] for r in eps],
        "epsilon": [r[1] for r in eps],
        "delta": [r[2] for r in eps],
        "delta_error": [r[3] for r in eps],
        "alpha": [r[0] for r in trade],
        "beta": [r[1] for r in trade],
        "tradeoff_error": [r[2] for r in trade],
    }


def available_pairs(out_dir) -> list[tuple[int, int]]:
    """Pairs whose two result files exist in ``out_dir``."""

    return [p for p in all_pairs() if all(path.is_file() for path in pair_paths(out_dir, *p))]


def census_eps_delta(curves: dict) -> list[dict]:
    """The census-wide (ε, δ) curve: at each ε_zCDP(δ) level the max of δ over pairs, and which pair.

    ``curves`` maps (k, l) to :func:`read_pair_curves` output. Since max is
    1-Lipschitz in the sup norm, the census value carries the largest error
    bound among the pairs.
    """
    pairs = sorted(curves)
    first = curves[pairs[0]]
    rows = []
    for i, level in enumerate(first["delta_zcdp"]):
        worst = max(pairs, key=lambda p: curves[p]["delta"][i])
        rows.append({
            "delta_zcdp": level,
            "epsilon": first["epsilon"][i],
            "delta": curves[worst]["delta"][i],
            "error_bound": max(curves[p]["delta_error"][i] for p in pairs),
            "pair": worst,
        })
    return rows


def census_tradeoff(curves: dict) -> list[dict]:
    """The census-wide trade-off curve: the lower convex envelope of min over pairs of f_kl.

    Each f_kl is convex and piecewise linear, so the envelope of the minimum is the
    lower convex hull of all pairs' vertices (:func:`accountlib.profiles.lower_convex_envelope`,
    Andrew's monotone chain, in ``Decimal`` arithmetic at 45 digits). Each hull vertex is tagged with the pair
    it comes from. The vertices are those the sweep stored (≥ 400 per pair), so
    between them the envelope is an upper bound on the exact one.
    """
    from decimal import localcontext

    points = []
    for pair, curve in curves.items():
        points.extend(zip(curve["alpha"], curve["beta"], curve["tradeoff_error"], [pair] * len(curve["alpha"])))
    with localcontext() as context:
        context.prec = _CONTEXT_DIGITS
        hull = lower_convex_envelope([p[0] for p in points], [p[1] for p in points])
    return [{"alpha": a, "beta": b, "error_bound": e, "pair": p} for a, b, e, p in (points[i] for i in hull)]


def write_census_results(out_dir) -> dict:
    """Write ``census_eps_delta.csv`` and ``census_tradeoff.csv`` from every pair present in ``out_dir``.

    Every pair's files are checked first (:func:`accountlib.sweep.check_pair_files`: header, finite
    decimals, δ in [0, 1] non-increasing, a monotone trade-off curve, one common δ_zCDP grid); a file that
    fails raises ``ValueError`` naming it, before anything is written.
    """


    out_dir = Path(out_dir)
    pairs = available_pairs(out_dir)
    if not pairs:
        raise ValueError(f"{out_dir}: no pair result files to aggregate")
    for p in pairs:
        check_pair_files(out_dir, *p, smallest_delta_exponent=None, rel_tol=None, abs_tol=None, points_per_side=None)
    curves = {p: read_pair_curves(out_dir, *p) for p in pairs}
    grid = curves[pairs[0]]["delta_zcdp"]
    for p in pairs:
        if curves[p]["delta_zcdp"] != grid or curves[p]["epsilon"] != curves[pairs[0]]["epsilon"]:
            raise ValueError(f"{pair_paths(out_dir, *p)[0]}: its (δ_zCDP, ε) grid differs from "
                             f"{pair_paths(out_dir, *pairs[0])[0]}'s")
    eps_rows = census_eps_delta(curves)
    trade_rows = census_tradeoff(curves)
    write_csv_atomically(out_dir / "census_eps_delta.csv", ("delta_zcdp", "epsilon", "delta", "error_bound", "pair"),
                         [(r["delta_zcdp"], r["epsilon"], r["delta"], r["error_bound"], f"{r['pair'][0]}_{r['pair'][1]}")
                          for r in eps_rows])
    write_csv_atomically(out_dir / "census_tradeoff.csv", ("alpha", "beta", "error_bound", "pair"),
                         [(r["alpha"], r["beta"], r["error_bound"], f"{r['pair'][0]}_{r['pair'][1]}") for r in trade_rows])
    return {"pairs": len(pairs), "eps_delta": eps_rows, "tradeoff": trade_rows}
