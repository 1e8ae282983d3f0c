"""Census-wide curves from the per-pair files of the DHC sweep.

The census-wide (ε, δ) curve is the pointwise maximum of the 946 pairs' curves, and the census-wide
trade-off curve is the lower convex envelope of the minimum of the pairs' curves (sieve paper §5.2): a
record's pair of geographic paths is unknown to the analyst, so the guarantee must hold for the worst pair.

The pairs' trade-off curves are stored as vertices, and chords between vertices lie *above* a convex curve:
an envelope of chords would overstate privacy. The census-wide guarantee is therefore the lower convex
envelope of the pairs' *pessimistic* sides (:func:`accountlib.theory.tradeoff_band.pessimistic_polyline`, built from
the exact slopes at each vertex), which lies below every pair's exact curve at every α; the envelope of the
pairs' optimistic sides lies above the exact census-wide curve, and the two together give the band in which
the exact census-wide curve lies.
"""

from __future__ import annotations

import csv
from decimal import Decimal, localcontext
from pathlib import Path

from ...theory.tradeoff_duality import lower_convex_envelope
from ...theory.tradeoff_band import PRECISION, interpolate, optimistic_polyline, pessimistic_polyline
from ...infrastructure.atomic import finite_decimal, read_csv, write_csv_atomically
from .allocations import all_pairs
from .pair_files import EPS_DELTA_HEADER, TRADEOFF_HEADER, check_pair_files, pair_paths

__all__ = ["read_pair_curves", "available_pairs", "census_eps_delta", "census_tradeoff", "write_census_results",
           "read_census_tradeoff", "delta_contenders", "CENSUS_TRADEOFF_HEADER"]

CENSUS_TRADEOFF_HEADER = ("alpha", "beta_pessimistic", "beta_optimistic", "pair")


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
        "slope_left": [r[3] for r in trade],
        "slope_right": [r[4] for r in trade],
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


def delta_contenders(curves: dict, level: int) -> list[tuple[int, int]]:
    """The pairs that may have the largest δ at the ``level``-th ε of the grid: those whose certified upper bound
    δ + error reaches the largest certified lower bound δ − error over all pairs. Stored digits alone cannot tell
    these pairs apart; the census-wide δ is the largest upper bound among them.
    """
    floor = max(c["delta"][level] - c["delta_error"][level] for c in curves.values())
    return sorted(p for p, c in curves.items() if c["delta"][level] + c["delta_error"][level] >= floor)


def census_tradeoff(curves: dict) -> list[dict]:
    """The census-wide trade-off guarantee: a convex curve below every pair's exact trade-off function.

    ``curves`` maps (k, l) to :func:`read_pair_curves` output. Each pair's pessimistic side p_kl ≤ f_kl
    (:func:`accountlib.theory.tradeoff_band.pessimistic_polyline`) is piecewise linear, so the lower convex envelope
    of min_kl p_kl is the lower convex hull of all their breakpoints together
    (:func:`accountlib.theory.tradeoff_duality.lower_convex_envelope`, Andrew's monotone chain, in ``Decimal`` arithmetic);
    it lies below the exact census-wide curve (the envelope of min_kl f_kl). Each row holds a hull vertex
    ``alpha``, ``beta_pessimistic`` (the guarantee there), ``beta_optimistic`` (the envelope of the pairs'
    optimistic sides at that α: the exact census-wide curve lies between the two), and the ``pair`` whose
    pessimistic side gives the vertex.
    """
    from decimal import localcontext

    low_x, low_y, low_pair, high_x, high_y = [], [], [], [], []
    for pair, curve in curves.items():
        xs, ys = pessimistic_polyline(curve["alpha"], curve["beta"], curve["tradeoff_error"], curve["slope_left"],
                                      curve["slope_right"])
        low_x += xs
        low_y += ys
        low_pair += [pair] * len(xs)
        xs, ys = optimistic_polyline(curve["alpha"], curve["beta"], curve["tradeoff_error"])
        high_x += xs
        high_y += ys
    with localcontext() as context:
        context.prec = PRECISION
        hull = lower_convex_envelope(low_x, low_y)
        upper = lower_convex_envelope(high_x, high_y)
    alphas = [low_x[i] for i in hull]
    optimistic = interpolate([high_x[i] for i in upper], [high_y[i] for i in upper], alphas)
    return [{"alpha": a, "beta_pessimistic": low_y[i], "beta_optimistic": max(min(o, 1 - a), low_y[i]), "pair": low_pair[i]}
            for a, i, o in zip(alphas, hull, optimistic)]  # f ≤ 1 − α for every trade-off function


def read_census_tradeoff(path) -> list[dict]:
    """The rows of a ``census_tradeoff.csv`` written by :func:`write_census_results` (values as ``Decimal``)."""
    path = Path(path)
    rows = read_csv(path, CENSUS_TRADEOFF_HEADER)
    out = []
    for n, row in enumerate(rows, start=2):
        a, low, high = (finite_decimal(x, f"{path}: line {n}") for x in row[:3])
        k, _, l = row[3].partition("_")
        out.append({"alpha": a, "beta_pessimistic": low, "beta_optimistic": high, "pair": (int(k), int(l))})
    return out


_MOVE = Decimal("1e-29")
"""What rounding a hull vertex's α to 30 digits can move the polyline by: at most |slope|·|Δα| ≤ |slope|·α·0.5e-29,
and |slope|·α ≤ f(0) ≤ 1 for every convex trade-off function. The stored guarantee is lowered by it (and the
optimistic side raised), so both stay on their sides after rounding."""


def _short(x, *, rounding: str = "nearest") -> str:
    """A Decimal to 30 significant digits, rounded to nearest, down or up."""
    from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, localcontext

    if x == 0:
        return "0"
    with localcontext() as context:
        context.prec = 30
        context.rounding = {"nearest": ROUND_HALF_EVEN, "down": ROUND_FLOOR, "up": ROUND_CEILING}[rounding]
        return str(+x)


def write_census_results(out_dir) -> dict:
    """Write ``census_eps_delta.csv`` and ``census_tradeoff.csv`` from every pair present in ``out_dir``.

    Every pair's files are checked first (:func:`accountlib.applications.census.pair_files.check_pair_files`: header, finite
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
    with localcontext() as context:
        context.prec = PRECISION  # rounding at 60 digits (relative 1e-60) is far below _MOVE
        rows = [(_short(r["alpha"]), _short(max(r["beta_pessimistic"] - _MOVE, Decimal(0)), rounding="down"),
                 _short(min(r["beta_optimistic"] + _MOVE, 1 - r["alpha"]), rounding="up"), f"{r['pair'][0]}_{r['pair'][1]}")
                for r in trade_rows]
    write_csv_atomically(out_dir / "census_tradeoff.csv", CENSUS_TRADEOFF_HEADER, rows)
    return {"pairs": len(pairs), "eps_delta": eps_rows, "tradeoff": trade_rows}
