"""The 2020 Census DHC privacy-loss budget allocations and their pairs.

Application layer (layer 9). The 43 distinct allocations
("geographic paths") of the 2020 Census Demographic and Housing
Characteristics File, each a 10×8 table of exact rationals ρ (queries ×
geographic levels; 0 = a level the path does not use), summing to
24811/5000 = 4.9622 (sieve paper §2.3, Table 1 = allocation 13; book, Derivations §2).
Source: U.S. Census Bureau, privacy-loss budget allocation of 2022-08-25
(``accountlib/data/README.md``).

A pair (k, l) composes the nonzero entries of allocation k followed by those
of l; neighbouring data shift every count by 1, so the pair is the shift pair
of :func:`accountlib.profiles.ShiftPair` with ρ = (Σρ_i)/2 = 4.9622.
"""

from __future__ import annotations

import csv
from fractions import Fraction
from functools import lru_cache
from importlib import resources

from ._numbers import as_int

__all__ = ["ALLOCATIONS", "TOTAL_RHO", "load_allocation", "pair_rhos", "all_pairs", "delta_levels"]

ALLOCATIONS = range(1, 44)
TOTAL_RHO = Fraction(24811, 5000)
_ROWS, _COLUMNS = 10, 8


def _check_index(k, name="k") -> int:
    k = as_int(k, name)
    if k not in ALLOCATIONS:
        raise ValueError(f"{name} must be an allocation number between 1 and 43; got {k}")
    return k


def parse_allocation(text: str, source: str = "allocation") -> list[Fraction]:
    """Parse and validate one allocation table (CSV with a header of 8 levels, 10 rows of fractions)."""
    rows = list(csv.reader(text.strip().splitlines()))
    if len(rows) != _ROWS + 1 or any(len(row) != _COLUMNS for row in rows):
        raise ValueError(f"{source}: expected a header and {_ROWS} rows of {_COLUMNS} columns; "
                         f"got {len(rows)} rows with widths {sorted({len(r) for r in rows})}")
    values = []
    for r, row in enumerate(rows[1:], start=1):
        for c, cell in enumerate(row):
            try:
                value = Fraction(cell.strip())
            except (ValueError, ZeroDivisionError):
                raise ValueError(f"{source}: row {r}, column {rows[0][c]!r}: {cell!r} is not a fraction") from None
            if value < 0:
                raise ValueError(f"{source}: row {r}, column {rows[0][c]!r}: negative budget {cell!r}")
            values.append(value)
    if sum(values) != TOTAL_RHO:
        raise ValueError(f"{source}: the budgets sum to {sum(values)}, not {TOTAL_RHO}")
    return values


@lru_cache(maxsize=None)
def _load(k: int) -> tuple[Fraction, ...]:
    path = resources.files("accountlib") / "data" / "dhc_allocations" / f"dhc_allocation_path_{k}.csv"
    return tuple(parse_allocation(path.read_text(encoding="utf-8"), source=path.name))


def load_allocation(k) -> list[Fraction]:
    """Allocation k (1..43) as 80 ``Fraction`` budgets ρ, row-major, zeros kept.

    >>> rho = load_allocation(13)
    >>> len(rho), sum(rho), rho[0]
    (80, Fraction(24811, 5000), Fraction(11, 10000))
    """
    return list(_load(_check_index(k)))


def pair_rhos(k, l) -> list[Fraction]:
    """The nonzero budgets of allocation k followed by those of l (the mechanisms of pair (k, l))."""
    k, l = _check_index(k, "k"), _check_index(l, "l")
    return [r for r in _load(k) if r] + [r for r in _load(l) if r]


def all_pairs() -> list[tuple[int, int]]:
    """The 946 pairs (k, l), 1 ≤ k ≤ l ≤ 43."""
    return [(k, l) for k in ALLOCATIONS for l in ALLOCATIONS if k <= l]


def delta_levels(smallest_exponent: int = 21) -> list[float]:
    """The δ grid of the book's (ε, δ) curves: 5e-1, 1e-1, 5e-2, 1e-2, …, 5e-n, 1e-n (chosen here; the sieve
    paper's text does not list the levels of its figures).

    ``smallest_exponent=21`` gives the 42 levels used for the per-pair curves;
    ``30`` the grid extended to 1e-30 for the census-wide sweep.

    >>> levels = delta_levels(); len(levels), levels[:3], levels[-1]
    (42, [0.5, 0.1, 0.05], 1e-21)
    """
    return [float(f"{m}e-{k}") for k in range(1, smallest_exponent + 1) for m in (5, 1)]


# --------------------------------------------------------------------------------------------
# Census-wide results from the per-pair files written by ``accountlib.sweep``
# --------------------------------------------------------------------------------------------

_CONTEXT_DIGITS = 45


def _read_rows(path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def read_pair_curves(out_dir, k: int, l: int) -> dict:
    """The two curves of pair (k, l) from the sweep's files, as lists of ``Decimal`` (exact strings kept).

    A file that is missing, has the wrong header or a field that is not a finite decimal raises
    ``ValueError`` naming the file and the line.
    """
    from .sweep import EPS_DELTA_HEADER, TRADEOFF_HEADER, _finite_decimal, _read_csv, pair_paths

    eps_path, trade_path = pair_paths(out_dir, k, l)
    eps_rows, trade_rows = _read_csv(eps_path, EPS_DELTA_HEADER), _read_csv(trade_path, TRADEOFF_HEADER)
    eps = [[_finite_decimal(x, f"{eps_path}: line {n}") for x in row] for n, row in enumerate(eps_rows, start=2)]
    trade = [[_finite_decimal(x, f"{trade_path}: line {n}") for x in row] for n, row in enumerate(trade_rows, start=2)]
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
    from .sweep import pair_paths

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
    lower convex hull of all pairs' vertices (Andrew's monotone chain, in exact
    ``Decimal`` arithmetic at 45 digits). Each hull vertex is tagged with the pair
    it comes from. The vertices are those the sweep stored (≥ 400 per pair), so
    between them the envelope is an upper bound on the exact one.
    """
    from decimal import localcontext

    points = []
    for pair, curve in curves.items():
        points.extend(zip(curve["alpha"], curve["beta"], curve["tradeoff_error"], [pair] * len(curve["alpha"])))
    points.sort(key=lambda p: (p[0], p[1]))
    hull = []
    with localcontext() as context:
        context.prec = _CONTEXT_DIGITS
        for point in points:
            while len(hull) >= 2:
                (ox, oy, *_), (ax, ay, *_) = hull[-2], hull[-1]
                if (ax - ox) * (point[1] - oy) - (ay - oy) * (point[0] - ox) <= 0:
                    hull.pop()
                else:
                    break
            hull.append(point)
    return [{"alpha": a, "beta": b, "error_bound": e, "pair": p} for a, b, e, p in hull]


def write_census_results(out_dir) -> dict:
    """Write ``census_eps_delta.csv`` and ``census_tradeoff.csv`` from every pair present in ``out_dir``.

    Every pair's files are checked first (:func:`accountlib.sweep.check_pair_files`: header, finite
    decimals, δ in [0, 1] non-increasing, a monotone trade-off curve, one common δ_zCDP grid); a file that
    fails raises ``ValueError`` naming it, before anything is written.
    """
    from pathlib import Path

    from .sweep import check_pair_files, pair_paths, write_csv_atomically

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


# --------------------------------------------------------------------------------------------
# The noise we can give back: scale every variance by c ≤ 1 while the exact δ stays ≤ δ_zCDP
# --------------------------------------------------------------------------------------------


VARIANCE_LEVELS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8, 1e-10, 1e-12, 1e-15, 1e-20, 1e-25, 1e-30)


def scaled_delta(k: int, l: int, c, epsilon, *, rel_tol: float = 1e-6):
    """Exact δ(ε) of pair (k, l) with every noise variance multiplied by c (ρ_i → ρ_i/c)."""
    from ._numbers import as_positive_fraction
    from .profiles import ShiftPair

    c = as_positive_fraction(c, "c")
    # start coarse (as the sweep does): shallow levels need Δ ≈ 1e-12, deep ones go to the tilted contour
    return ShiftPair([r / c for r in pair_rhos(k, l)]).delta([epsilon], rel_tol=rel_tol, start_delta=1e-16)[0]


def smallest_variance_scale(pairs, delta_target: float, *, resolution: int = 10_000, rel_tol: float = 1e-6,
                            known_infeasible: int = 0) -> dict:
    """The smallest c = j/resolution such that max over ``pairs`` of δ_c(ε_zCDP(δ)) ≤ δ.

    ε stays at ε_zCDP(δ) of the Bureau's ρ = 4.9622; the noise variances shrink by c.
    δ_c(ε) grows as c falls, so c is found by bisection on j, certified at each step:
    a step counts as "private enough" only when δ + error_bound ≤ δ_target for every pair
    (a step stops at the first pair that exceeds δ). ``known_infeasible`` is a j already known
    to fail (the search starts above it). Returns c, the variance reduction 1 − c, and the
    binding pair.
    """
    from .conversions import zcdp_epsilon

    epsilon = Fraction(repr(zcdp_epsilon(TOTAL_RHO, delta_target)))
    order = list(pairs)

    def worst(j):
        scale = Fraction(j, resolution)
        best = None
        for k, l in order:
            point = scaled_delta(k, l, scale, epsilon, rel_tol=rel_tol)
            upper = float(point.delta + point.error_bound)
            if best is None or upper > best[0]:
                best = (upper, (k, l))
            if upper > delta_target:  # infeasible already; try this pair first next time
                order.remove((k, l))
                order.insert(0, (k, l))
                break
        return best

    low, high = max(1, known_infeasible), resolution  # invariant: high satisfies, low does not
    upper_at_one, binding = worst(high)
    if upper_at_one > delta_target:
        return {"delta": delta_target, "epsilon": float(epsilon), "c": None, "reduction": None, "pair": binding}
    while high - low > 1:
        middle = (low + high) // 2
        upper, pair = worst(middle)
        if upper <= delta_target:
            high, binding = middle, pair
        else:
            low = middle
    c = Fraction(high, resolution)
    return {"delta": delta_target, "epsilon": float(epsilon), "c": c, "reduction": float(1 - c), "pair": binding}


def delta_at_reduction(reduction, pairs, *, low: float = 1e-30, high: float = 0.1, width: float = 1e-3,
                       rel_tol: float = 1e-6) -> dict:
    """The δ at which the variance give-back over ``pairs`` equals ``reduction`` (the inverse of the table).

    The give-back at δ is 1 − c for the smallest c with max over pairs of δ_c(ε_zCDP(δ)) ≤ δ
    (:func:`smallest_variance_scale`); it falls as δ shrinks. With c = 1 − ``reduction`` fixed,
    this bisects on log δ between ``low`` and ``high`` for the δ* where the largest certified upper
    bound on δ_c(ε_zCDP(δ)) over ``pairs`` crosses δ, until the bracket's ratio is below 1 + ``width``:
    at ``bracket[1]`` (≥ δ*) the reduction is allowed, at ``bracket[0]`` it is not (for these pairs).

    Returns ``{"reduction", "c", "delta", "bracket", "pair"}`` with ``delta`` the bracket's geometric
    mean and ``pair`` the binding pair at the bracket's lower end.
    """
    import math

    from ._numbers import as_positive_fraction
    from .conversions import zcdp_epsilon

    c = 1 - Fraction(str(reduction))
    as_positive_fraction(c, "1 - reduction")
    if not 0 < low < high < 1:
        raise ValueError(f"low and high must satisfy 0 < low < high < 1; got low={low!r}, high={high!r}")
    pairs = [tuple(p) for p in pairs]
    if not pairs:
        raise ValueError("pairs must name at least one allocation pair (k, l)")

    def worst(delta):
        epsilon = Fraction(repr(zcdp_epsilon(TOTAL_RHO, delta)))
        uppers = {}
        for k, l in pairs:
            point = scaled_delta(k, l, c, epsilon, rel_tol=rel_tol)
            uppers[(k, l)] = float(point.delta) + point.error_bound
        pair = max(uppers, key=uppers.get)
        return uppers[pair] / delta, pair

    ratio_high, _ = worst(high)
    ratio_low, pair = worst(low)
    if ratio_high > 1 or ratio_low <= 1:
        raise ValueError(
            f"reduction {reduction!r} is not attained between delta = {low:g} and {high:g} for these pairs "
            f"(max delta_c/delta is {ratio_high:.3g} at high and {ratio_low:.3g} at low; need <= 1 at high, > 1 at low)")
    while high / low > 1 + width:
        middle = math.sqrt(low * high)
        ratio, binding = worst(middle)
        if ratio <= 1:
            high = middle
        else:
            low, pair = middle, binding
    return {"reduction": float(Fraction(str(reduction))), "c": c, "delta": math.sqrt(low * high),
            "bracket": (low, high), "pair": pair}


# --------------------------------------------------------------------------------------------
# Comparing curves: interpolation on common grids (for the proxy question and the figures)
# --------------------------------------------------------------------------------------------


def tradeoff_on_grid(alphas, betas, grid):
    """f at the α in ``grid`` by linear interpolation between stored vertices (float64).

    The exact f is convex and the stored points lie on it, so the chords are upper
    bounds of f between vertices; with ≥ 400 vertices per pair the gap is far below
    the differences plotted.
    """
    import numpy as np

    return np.interp(np.asarray(grid, dtype=float), np.asarray(alphas, dtype=float), np.asarray(betas, dtype=float))


def epsilon_for_delta(epsilons, deltas, targets):
    """ε(δ) by monotone (PCHIP) interpolation of log δ against ε on the stored grid (float64)."""
    import numpy as np
    from scipy.interpolate import PchipInterpolator

    eps = np.asarray(epsilons, dtype=float)
    logd = np.log(np.asarray(deltas, dtype=float))
    inverse = PchipInterpolator(logd[::-1], eps[::-1])  # log δ decreases with ε
    return inverse(np.log(np.asarray(targets, dtype=float)))


def _variance_job(level: float, candidates: list, resolution: int, known_infeasible: int = 0) -> dict:
    return smallest_variance_scale([tuple(p) for p in candidates], level, resolution=resolution,
                                   known_infeasible=known_infeasible)


def _check_pair_job(k: int, l: int, checks: list) -> tuple:
    """δ_c(ε) + error bound of pair (k, l) for each (δ level, c) in ``checks``."""
    from .conversions import zcdp_epsilon

    uppers = []
    for level, c in checks:
        epsilon = Fraction(repr(zcdp_epsilon(TOTAL_RHO, level)))
        point = scaled_delta(k, l, Fraction(c), epsilon)
        uppers.append(float(point.delta + point.error_bound))
    return (k, l), uppers


def variance_reduction_table(out_dir, levels, *, top: int = 3, resolution: int = 1000, workers=None,
                             scheduler=None, progress: bool = True, verify: bool = True) -> list[dict]:
    """The variance give-back at each δ in ``levels``, certified over every pair.

    Reads the sweep's per-pair files in ``out_dir``; per level, a certified bisection over the ``top``
    pairs with the largest δ there finds c; then (``verify``) every available pair is evaluated at
    its level's c, and a level where some other pair exceeds δ is searched again with that pair among
    the candidates, until all pairs pass. Jobs run on the sweep executor. Writes
    ``variance_reduction.csv`` (delta, epsilon, c, reduction, pair, pairs_checked, largest_upper): with
    ``verify``, ``pair`` is the pair with the largest certified upper bound on δ at c among all pairs.
    """
    from pathlib import Path

    from .sweep import run_jobs, write_csv_atomically

    out_dir = Path(out_dir)
    pairs = available_pairs(out_dir)
    curves = {p: read_pair_curves(out_dir, *p) for p in pairs}
    candidates = {float(level): largest_delta_pairs(curves, level, top=top) for level in levels}
    todo = list(candidates)
    found: dict[float, dict] = {}
    failed_at: dict[float, int] = {}  # a j known to violate some pair, per level
    while todo:
        jobs = [(level, candidates[level], resolution, failed_at.get(level, 0)) for level in todo]
        for row in run_jobs(_variance_job, jobs, workers=workers, scheduler=scheduler, progress=progress):
            row["pairs_checked"], row["largest_upper"] = len(candidates[row["delta"]]), None
            found[row["delta"]] = row
        if not verify:
            break
        checks = [(level, str(found[level]["c"])) for level in todo if found[level]["c"] is not None]
        results = run_jobs(_check_pair_job, [(k, l, checks) for k, l in pairs], workers=workers,
                           scheduler=scheduler, progress=progress)
        again = []
        for n, (level, _) in enumerate(checks):
            uppers = {pair: values[n] for pair, values in results}
            worst = max(uppers, key=uppers.get)
            violators = sorted((p for p, u in uppers.items() if u > level and p not in candidates[level]),
                               key=uppers.get, reverse=True)
            found[level]["pairs_checked"], found[level]["largest_upper"] = len(uppers), uppers[worst]
            found[level]["pair"] = worst  # the binding pair over all pairs, not only the candidates
            if violators:  # search again above the failed c, with the worst violators among the candidates
                candidates[level] = candidates[level] + violators[:3]
                failed_at[level] = int(found[level]["c"] * resolution)
                again.append(level)
        todo = again
    rows = sorted(found.values(), key=lambda r: -r["delta"])
    write_csv_atomically(out_dir / "variance_reduction.csv", VARIANCE_REDUCTION_HEADER,
                         [(f"{r['delta']:.0e}", repr(r["epsilon"]), str(r["c"]), repr(r["reduction"]),
                           f"{r['pair'][0]}_{r['pair'][1]}", r["pairs_checked"],
                           "" if r["largest_upper"] is None else repr(r["largest_upper"])) for r in rows])
    return rows


VARIANCE_REDUCTION_HEADER = ("delta", "epsilon", "c", "reduction", "pair", "pairs_checked", "largest_upper")


def largest_delta_pairs(curves: dict, level: float, *, top: int = 3, candidates=None) -> list[tuple[int, int]]:
    """The ``top`` pairs with the largest exact δ at the zCDP level nearest ``level``, largest first.

    ``curves`` maps (k, l) to :func:`read_pair_curves` output (all on the same grid of δ_zCDP levels);
    the exact δ compared is each pair's δ at ε_zCDP(δ_zCDP) for the grid level nearest ``level``
    (sieve paper §5.2: the pairs' curves differ only a little, so the pair that binds the census curve
    changes with δ). ``candidates`` restricts the ranking to some of the pairs (default: all of
    ``curves``). These are the starting candidates of the variance search in
    :func:`variance_reduction_table` and :func:`smallest_variance_scale`.
    """
    if not curves:
        raise ValueError("curves: expected read_pair_curves output for at least one pair, got none")
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ValueError(f"top: expected a positive integer, got {top!r}")
    try:
        level = float(level)
    except (TypeError, ValueError):
        raise ValueError(f"level: expected a δ in (0, 1), got {level!r}") from None
    if not 0 < level < 1:
        raise ValueError(f"level: expected a δ in (0, 1), got {level!r}")
    pairs = sorted(curves) if candidates is None else [tuple(p) for p in candidates]
    missing = [p for p in pairs if p not in curves]
    if not pairs or missing:
        raise ValueError(f"candidates: expected pairs present in curves, got {missing or 'none'}")
    grid = [float(x) for x in curves[pairs[0]]["delta_zcdp"]]
    index = min(range(len(grid)), key=lambda i: abs(grid[i] - level))
    return sorted(pairs, key=lambda p: curves[p]["delta"][index], reverse=True)[:top]


def read_variance_reduction(path) -> list[dict]:
    """The rows of a ``variance_reduction.csv`` written by :func:`variance_reduction_table`, largest δ first.

    Each row: ``delta`` (float, the level), ``epsilon`` (float, ε_zCDP(δ)), ``c`` (``Fraction``, the
    smallest certified variance scale; ``None`` if none was found), ``reduction`` (float, 1 − c, or
    ``None``), ``pair`` (the binding pair (k, l)), ``pairs_checked`` (int, how many pairs the level was
    certified over; 946 for the whole census) and ``largest_upper`` (float or ``None``, the largest
    certified upper bound on δ at c over the pairs checked). A missing file, a wrong header or a
    malformed field raises ``ValueError`` naming the file and line.
    """
    from pathlib import Path

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path: no variance-reduction table at {path.name!r} (run variance_reduction_table first)")
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = tuple(next(reader, ()))
        if header != VARIANCE_REDUCTION_HEADER:
            raise ValueError(f"{path.name}: expected the header {','.join(VARIANCE_REDUCTION_HEADER)}, "
                             f"got {','.join(header) or 'nothing'}")
        rows = []
        for line, fields in enumerate(reader, start=2):
            if len(fields) != len(header):
                raise ValueError(f"{path.name}: line {line}: expected {len(header)} fields, got {len(fields)}")
            row = dict(zip(header, fields))
            try:
                k, l = (int(x) for x in row["pair"].split("_"))
                rows.append({
                    "delta": float(row["delta"]),
                    "epsilon": float(row["epsilon"]),
                    "c": None if row["c"] in ("", "None") else Fraction(row["c"]),
                    "reduction": None if row["reduction"] in ("", "None") else float(row["reduction"]),
                    "pair": (k, l),
                    "pairs_checked": int(row["pairs_checked"]),
                    "largest_upper": None if row["largest_upper"] in ("", "None") else float(row["largest_upper"]),
                })
            except ValueError as error:
                raise ValueError(f"{path.name}: line {line}: malformed field ({error})") from None
            _check_index(k, "pair")
            _check_index(l, "pair")
    return sorted(rows, key=lambda r: -r["delta"])
