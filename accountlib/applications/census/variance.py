"""The noise the census could give back: scale every variance by c ≤ 1 while the exact δ stays ≤ δ_zCDP.

Sieve paper §5.3: at each δ_zCDP level the smallest c whose exact census-wide δ(ε_zCDP) is still at most
δ_zCDP, certified pair by pair (only pairs that could bind are recomputed; the rest are checked).
"""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

from ...infrastructure.atomic import write_csv_atomically
from ...infrastructure.executor import run_jobs
from ...infrastructure.interval_ends import round_up_to_float, upper_end
from ...infrastructure.numbers import as_fraction, as_positive_fraction
from ...infrastructure.search import bisect, geometric, integer
from ...theory.conversions import zcdp_epsilon
from ...theory.composition import Composition
from .allocations import TOTAL_RHO, check_allocation, pair_rhos
from .census_wide import available_pairs, read_pair_curves

__all__ = ["VARIANCE_LEVELS", "scaled_delta", "smallest_variance_scale", "delta_at_reduction", "tradeoff_on_grid",
           "epsilon_for_delta", "variance_reduction_table", "VARIANCE_REDUCTION_HEADER", "largest_delta_pairs",
           "read_variance_reduction", "binding_pairs", "reduction_bracket", "GEOGRAPHIC_LEVELS", "level_budgets",
           "level_variance_reductions", "proxy_gaps"]


GEOGRAPHIC_LEVELS = ("Block", "Block_Group", "County", "Prim", "State", "Tract_Subset", "Tract_Subset_Group", "US")
"""The eight geographic levels of the DHC allocations (sieve paper (2.2)), in the columns' order of the allocation
files (``allocations.load_allocation`` is row-major: budget i belongs to level ``i % 8``)."""

VARIANCE_LEVELS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8, 1e-10, 1e-12, 1e-15, 1e-20, 1e-25, 1e-30)


def scaled_delta(k: int, l: int, c, epsilon, *, rel_tol: float = 1e-6):
    """Exact δ(ε) of pair (k, l) with every noise variance multiplied by c (ρ_i → ρ_i/c)."""

    c = as_positive_fraction(c, "c", floats="decimal")
    # the front door (engine.front.CertifiedTails) chooses the engines and the tilted contour
    return Composition([r / c for r in pair_rhos(k, l)]).delta([epsilon], rel_tol=rel_tol)[0]


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

    epsilon = as_fraction(zcdp_epsilon(TOTAL_RHO, delta_target), "epsilon", floats="decimal")
    order = list(pairs)

    def worst(j):
        scale = Fraction(j, resolution)
        best = None
        for k, l in order:
            point = scaled_delta(k, l, scale, epsilon, rel_tol=rel_tol)
            upper = round_up_to_float(upper_end(point.delta, point.error_bound))
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
    def private_enough(j: int) -> bool:  # every pair's certified δ at most δ_target (the binding pair recorded)
        nonlocal binding
        upper, pair = worst(j)
        if upper <= delta_target:
            binding = pair
            return True
        return False

    low, high = bisect(private_enough, low, high, midpoint=integer, until=lambda lo, hi: hi - lo <= 1)
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


    c = 1 - as_fraction(reduction, "reduction", floats="decimal")
    as_positive_fraction(c, "1 - reduction", floats="decimal")
    if not 0 < low < high < 1:
        raise ValueError(f"low and high must satisfy 0 < low < high < 1; got low={low!r}, high={high!r}")
    pairs = [tuple(p) for p in pairs]
    if not pairs:
        raise ValueError("pairs must name at least one allocation pair (k, l)")

    def worst(delta):
        epsilon = as_fraction(zcdp_epsilon(TOTAL_RHO, delta), "epsilon", floats="decimal")
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
    def allowed(delta: float) -> bool:  # the reduction is allowed at δ for these pairs (else: the binding pair)
        nonlocal pair
        ratio, binding = worst(delta)
        if ratio <= 1:
            return True
        pair = binding
        return False

    low, high = bisect(allowed, low, high, midpoint=geometric, until=lambda lo, hi: not hi / lo > 1 + width)
    return {"reduction": float(as_fraction(reduction, "reduction", floats="decimal")), "c": c, "delta": math.sqrt(low * high),
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

    uppers = []
    for level, c in checks:
        epsilon = as_fraction(zcdp_epsilon(TOTAL_RHO, level), "epsilon", floats="decimal")
        point = scaled_delta(k, l, Fraction(c), epsilon)
        uppers.append(round_up_to_float(upper_end(point.delta, point.error_bound)))
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

    ``curves`` maps (k, l) to :func:`~accountlib.applications.census.census_wide.read_pair_curves` output (all on the same grid of δ_zCDP levels);
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
            check_allocation(k, "pair")
            check_allocation(l, "pair")
    return sorted(rows, key=lambda r: -r["delta"])


def binding_pairs(reductions) -> list[tuple[int, int]]:
    """The pairs that bind at some level of a variance give-back table (rows of
    :func:`read_variance_reduction` or :func:`variance_reduction_table`), sorted, each once."""
    return sorted({tuple(r["pair"]) for r in reductions})


def reduction_bracket(reductions, reduction) -> tuple[float, float] | None:
    """The two neighbouring δ levels of a give-back table between which the give-back 1 − c crosses
    ``reduction`` (the first such pair of levels by increasing δ; levels without a give-back skipped), or None
    when no two levels bracket it: the ``low``, ``high`` to hand :func:`delta_at_reduction`.

    >>> rows = [{"delta": 1e-10, "reduction": 0.11}, {"delta": 1e-6, "reduction": 0.15}, {"delta": 1e-3, "reduction": 0.2}]
    >>> reduction_bracket(rows, "0.1508"), reduction_bracket(rows, "0.3")
    ((1e-06, 0.001), None)
    """
    target = float(as_fraction(reduction, "reduction", floats="decimal") * 100)  # compared in percent, as the chapter prints the table
    by_level = sorted((r["delta"], 100 * r["reduction"]) for r in reductions if r["reduction"] is not None)
    for (d1, v1), (d2, v2) in zip(by_level, by_level[1:]):
        if v1 <= target <= v2:
            return d1, d2
    return None


# --------------------------------------------------------------------------------------------
# The give-back per geographic level, and the [M0, M0] proxy
# --------------------------------------------------------------------------------------------


def level_budgets(k, l) -> dict[str, list[Fraction]]:
    """The budgets of pair (k, l) by geographic level: level name → the nonzero ρ_i of allocation k at that level
    followed by those of l (the mechanisms of :func:`~accountlib.applications.census.allocations.pair_rhos`, grouped by the column they come from).

    >>> by_level = level_budgets(13, 13)
    >>> len(by_level["US"]), sum(by_level["State"]) / 2    # ten queries twice; the level's zCDP ρ
    (20, Fraction(12987, 10000))
    """
    from .allocations import load_allocation

    out: dict[str, list[Fraction]] = {name: [] for name in GEOGRAPHIC_LEVELS}
    for allocation in (check_allocation(k, "k"), check_allocation(l, "l")):
        for i, rho in enumerate(load_allocation(allocation)):
            if rho:
                out[GEOGRAPHIC_LEVELS[i % len(GEOGRAPHIC_LEVELS)]].append(rho)
    return out


def level_variance_reductions(k, l, delta, *, conversion: str = "bun-steinke", resolution: float = 1e-4,
                              rel_tol: float = 1e-6, within_pair: bool = False, levels=None) -> dict[str, dict]:
    """The variance each geographic level could give back on its own: for each level g of pair (k, l), the
    smallest multiplier c of that level's noise variances (σ_i² → c/ρ_i) whose exact, certified δ at the ε that
    the level's zCDP parameter ρ_g = Σ_i ρ_i/2 gives at ``delta`` is still at most ``delta``; the reduction is 1 − c.

    This is one reading of the "noise variance reductions of 15.08% to 24.82%" of the sieve paper (§1.1) and the
    unifying paper (§1), a range over the eight geographic levels (Su, Su & Wang 2025, PNAS 122(45), arXiv
    2410.09296, which the unifying paper cites for it): each level's release judged alone against its own zCDP
    guarantee. ``conversion`` is the baseline ε of ρ_g-zCDP at ``delta``: ``"bun-steinke"`` (the Bureau's ρ +
    2√(ρ log 1/δ), :func:`accountlib.theory.conversions.zcdp_epsilon`) or ``"rdp"`` (the tighter
    :func:`accountlib.theory.conversions.zcdp_epsilon_via_rdp`). The search is
    :func:`accountlib.theory.calibration.calibrate` on the level's budgets, certified on both sides (the scale
    holds, one grid step below fails), on a grid of step ``resolution`` (relative to c = 1).

    With ``within_pair`` the level is judged inside the whole pair instead: all of the pair's mechanisms are
    composed, level g's variances scaled by c and the other levels' held (``calibrate``'s per-group factors,
    groups = geographic levels), against the ε of the pair's whole ρ = 4.9622 at ``delta``; ``rho`` is then still
    the level's own ρ_g.

    ``levels`` restricts the search to some of the geographic levels (default: every level the pair uses).

    Returns level → ``{"rho", "epsilon", "c", "reduction", "proven_smallest"}``.
    """
    from ...theory.calibration import calibrate
    from ...theory.targets import ApproximateDP
    from ...theory.conversions import zcdp_epsilon_via_rdp

    conversions = {"bun-steinke": zcdp_epsilon, "rdp": zcdp_epsilon_via_rdp}
    if conversion not in conversions:
        raise ValueError(f"conversion must be one of {sorted(conversions)}; got {conversion!r}")
    delta_text = repr(float(delta))
    by_level = level_budgets(k, l)
    everything = [rho for budgets in by_level.values() for rho in budgets]
    labels = [level for level, budgets in by_level.items() for _ in budgets]
    whole = as_fraction(conversions[conversion](sum(everything) / 2, float(delta)), "epsilon", floats="decimal")
    wanted = set(GEOGRAPHIC_LEVELS if levels is None else levels)
    unknown = wanted - set(GEOGRAPHIC_LEVELS)
    if unknown:
        raise ValueError(f"levels must be among {GEOGRAPHIC_LEVELS}; got {sorted(unknown)}")
    out = {}
    for level, budgets in by_level.items():
        if not budgets or level not in wanted:
            continue
        rho = sum(budgets) / 2
        step = as_fraction(resolution, "resolution", floats="decimal")
        if within_pair:
            epsilon = whole
            result = calibrate(everything, ApproximateDP(epsilon, delta_text), rel_tol=rel_tol, step=step,
                               groups=labels, factors={other: 0 for other in by_level if other != level})
        else:
            epsilon = as_fraction(conversions[conversion](rho, float(delta)), "epsilon", floats="decimal")
            result = calibrate(budgets, ApproximateDP(epsilon, delta_text), rel_tol=rel_tol, step=step)
        out[level] = {"rho": rho, "epsilon": float(epsilon), "c": result.scale, "reduction": float(1 - result.scale),
                      "proven_smallest": result.proven_smallest}
    return out


def proxy_gaps(out_dir, *, pair=(13, 13), alphas=None, smallest_delta: float = 1e-25) -> dict:
    """The two relative gaps of the sieve paper's §5.3 between one pair's curves and the census-wide ones:
    (f_00 − (min_kl f_kl)**)/f_00 on a grid of α and (ε_00 − max_kl ε_kl)/ε_00 at the stored δ_zCDP levels in
    [``smallest_delta``, 0.1], from the sweep's files in ``out_dir`` (``census_tradeoff.csv``,
    ``census_eps_delta.csv`` and the pair's own files). f is compared on the pessimistic sides (the pair's
    polyline, the census-wide guarantee), ε on the stored points (PCHIP between them), as the book's chapter
    "Exact privacy of the 2020 Census DHC" does.

    Returns ``{"f_gap", "eps_gap", "alpha", "delta"}`` (numpy arrays) plus ``"f_gap_max"``, ``"eps_gap_max_abs"``.
    """
    import numpy as np

    from ...theory import tradeoff_band
    from .census_wide import read_census_tradeoff

    out_dir = Path(out_dir)
    alphas = np.logspace(-20, np.log10(0.99), 300) if alphas is None else np.asarray(alphas, dtype=float)
    own = read_pair_curves(out_dir, *pair)
    p_alpha, p_beta = tradeoff_band.pessimistic_polyline(own["alpha"], own["beta"], own["tradeoff_error"],
                                                         own["slope_left"], own["slope_right"])
    hull = read_census_tradeoff(out_dir / "census_tradeoff.csv")
    f_pair = tradeoff_on_grid(p_alpha, p_beta, alphas)
    f_census = tradeoff_on_grid([float(r["alpha"]) for r in hull], [float(r["beta_pessimistic"]) for r in hull],
                                alphas)
    positive = f_pair > 0
    f_gap = np.zeros_like(f_pair)
    f_gap[positive] = (f_pair[positive] - f_census[positive]) / f_pair[positive]
    with open(out_dir / "census_eps_delta.csv", newline="") as handle:
        wide = list(csv.DictReader(handle))
    levels = np.array([float(r["delta_zcdp"]) for r in wide])
    grid = levels[(levels <= 0.1) & (levels >= smallest_delta)]
    eps_pair = epsilon_for_delta(own["epsilon"], own["delta"], grid)
    eps_census = epsilon_for_delta([float(r["epsilon"]) for r in wide], [float(r["delta"]) for r in wide], grid)
    eps_gap = (eps_pair - eps_census) / eps_pair
    return {"f_gap": f_gap, "eps_gap": eps_gap, "alpha": alphas, "delta": grid, "f_gap_max": float(f_gap.max()),
            "eps_gap_max_abs": float(np.abs(eps_gap).max())}
