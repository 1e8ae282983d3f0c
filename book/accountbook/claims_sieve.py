"""The sieve paper's claims that no chapter computes: the census-wide comparisons with zCDP from the stored sweep,
Algorithm 1's order and counts, the allocation tables, the discrete Gaussian's properties, the four steps of §4 on
an example small enough for brute force, and the paper's tolerances against the authors' released curves of pair
(13, 13). Each function returns what :func:`accountbook.claim_checks.record` passes to the ledger (see there).

The census claims read the sweep's stored results (``results/dhc``: ``census_eps_delta.csv``,
``census_tradeoff.csv`` and pair (13, 13)'s curves), the files the chapter "Exact privacy of the 2020 Census DHC" reads.
"""

from __future__ import annotations

import csv
import math
import random
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np

from accountlib.applications import census
from accountlib.engine import quadrature, sieve
from accountlib.theory.composition import Composition
from accountlib.theory.conversions import approxdp_to_tradeoff, zcdp_epsilon

from . import ledger

__all__ = ["dhc_folder", "variance_reduction_per_level", "proxy_gaps", "exact_delta_below_zcdp",
           "exact_tradeoff_above_zcdp", "dropped_cut", "sieve_order", "pair_spread", "sieve_table1_and_data",
           "sieve_node_reduction", "sieve_discrete_gaussian_facts", "sieve_trapezoid_rate", "sieve_four_steps",
           "sieve_figure3_spread", "released_rows", "released_eps_delta_against_certified",
           "released_tradeoff_against_certified", "PER_LEVEL_PAIR", "PER_LEVEL_DELTA", "POINTS_PER_SUBPLOT",
           "SIEVE_AUDIT_CHECKS", "RELEASED", "RELEASED_DEEP_LEVELS", "RELEASED_FILES", "RELEASED_CHECKS",
           "NOT_REPRODUCIBLE_HERE"]


PER_LEVEL_PAIR = (13, 13)
"""The pair whose levels are read: [M0, M0], Table 1's allocation twice, whose level g has the zCDP parameter ρ_g of
the Bureau's per-level budget (the sum of Table 1's column g)."""
PER_LEVEL_DELTA = 1e-10
"""The δ of the per-level reading: the δ at which the sieve paper quotes the Bureau's ε (§3.2)."""


POINTS_PER_SUBPLOT = 40
"""The (ε, δ) points of each subplot of the sieve paper's Figure 4: its 8,120 evaluations are 40 × its |C| = 203."""


def dhc_folder() -> Path:
    """The sweep's results, ``results/dhc`` beside the ledger."""
    return ledger.ledger_path().parent / "dhc"


def _percent(x: float) -> str:
    return f"{100 * x:.2f}"


def variance_reduction_per_level() -> dict:
    """The 15.08%–24.82% read as a range over the eight geographic levels (Su, Su & Wang 2025): each level of
    pair (13, 13) alone, its variances scaled until its exact δ at the Bureau's ε of its own ρ_g at δ = 1e-10
    reaches 1e-10 (:func:`accountlib.applications.census.level_variance_reductions`). The fields give the
    per-level table and the other readings tried (the tighter RDP conversion, δ = 1e-8 and 1e-12)."""
    k, l = PER_LEVEL_PAIR
    main = census.level_variance_reductions(k, l, PER_LEVEL_DELTA)
    if not all(v["proven_smallest"] for v in main.values()):
        raise ArithmeticError("a per-level calibration is not certified smallest")
    table = ", ".join(f"{name.replace('_', ' ')} {_percent(v['reduction'])}%" for name, v in main.items())
    others = []
    for conversion, delta in (("rdp", PER_LEVEL_DELTA), ("bun-steinke", 1e-8), ("bun-steinke", 1e-12)):
        found = census.level_variance_reductions(k, l, delta, conversion=conversion)
        reductions = [v["reduction"] for v in found.values()]
        name = "the RDP conversion" if conversion == "rdp" else "the Bureau's conversion"
        others.append(f"{name} at δ = {delta:g}: {_percent(min(reductions))}–{_percent(max(reductions))}%")
    # 160 mechanisms per evaluation instead of 20: on a grid of 1% (the reading is far from the paper's range)
    inside = census.level_variance_reductions(k, l, PER_LEVEL_DELTA, within_pair=True, resolution=1e-2)
    reductions = [v["reduction"] for v in inside.values()]
    others.append(f"one level scaled inside the whole pair, the others held, against the pair's ε at δ = "
                  f"{PER_LEVEL_DELTA:g} (on a 1% grid): {100 * min(reductions):.0f}–{100 * max(reductions):.0f}%")
    reductions = [v["reduction"] for v in main.values()]
    # the δ at which the level giving the least back gives the paper's 15.08%, and the largest level there
    low_level = min(main, key=lambda name: main[name]["reduction"])
    high_level = max(main, key=lambda name: main[name]["reduction"])
    def least(delta):
        return census.level_variance_reductions(k, l, delta, levels=[low_level])[low_level]["reduction"]

    low, high = 1e-12, 1e-8  # the reduction falls as δ shrinks: below 15.08% at low, at least 15.08% at high
    if not least(low) < 0.1508 <= least(high):
        raise ArithmeticError(f"{low_level}: 15.08% is not between δ = {low:g} and {high:g}")
    for _ in range(14):
        middle = math.sqrt(low * high)
        low, high = (middle, high) if least(middle) < 0.1508 else (low, middle)
    matched = census.level_variance_reductions(k, l, high, levels=[low_level, high_level])
    others.append(f"at δ = {high:.2g}, where {low_level.replace('_', ' ')} gives "
                  f"{_percent(matched[low_level]['reduction'])}%, {high_level.replace('_', ' ')} gives "
                  f"{_percent(matched[high_level]['reduction'])}%")
    fields = {"table": table, "others": "; ".join(others)}
    out = {}
    for paper in ("sieve.§1", "unifying.1"):
        out[f"{paper}.variance_reduction_min.per_level"] = {"ours": _percent(min(reductions)), "fields": fields}
        out[f"{paper}.variance_reduction_max.per_level"] = {"ours": _percent(max(reductions)), "fields": fields}
    return out


def proxy_gaps(folder: Path | None = None) -> dict:
    """The two relative gaps of the sieve paper's §5.3 between [M0, M0] and the census
    (:func:`accountlib.applications.census.proxy_gaps`): the pair is not identical to the census (a positive gap),
    and how close it is."""
    gaps = census.proxy_gaps(folder or dhc_folder())
    fields = {"f_gap": f"{gaps['f_gap_max']:.2e}", "eps_gap": f"{gaps['eps_gap_max_abs']:.2e}",
              "alphas": len(gaps["alpha"]), "levels": len(gaps["delta"])}
    return {"sieve.§5.3.proxy_gap_f": {"ours": f"{gaps['f_gap_max']:.4e}", "fields": fields},
            "sieve.§5.3.proxy_gap_eps": {"ours": f"{gaps['eps_gap_max_abs']:.4e}", "fields": fields}}


def _census_rows(folder: Path) -> list[dict]:
    with open(folder / "census_eps_delta.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def exact_delta_below_zcdp(folder: Path | None = None) -> dict:
    """The exact δ of every pair below the Bureau's δ at ε_zCDP(δ): the census-wide rows hold, at each stored
    δ_zCDP level, the largest exact δ over the 946 pairs with its error bound; ours is the largest ratio
    (δ + error bound)/δ_zCDP over the levels."""
    folder = folder or dhc_folder()
    pairs = census.available_pairs(folder)
    if len(pairs) != 946:
        raise ValueError(f"{folder}: {len(pairs)} pairs stored, not the 946 of the census")
    rows = _census_rows(folder)
    ratios = [(float(r["delta"]) + float(r["error_bound"])) / float(r["delta_zcdp"]) for r in rows]
    fields = {"levels": len(rows), "smallest": min(float(r["delta_zcdp"]) for r in rows)}
    return {"sieve.§1.exact_delta_below_zcdp": {"ours": f"{max(ratios):.6g}", "fields": fields}}


def exact_tradeoff_above_zcdp(folder: Path | None = None) -> dict:
    """The census-wide certified trade-off guarantee above the f implied by the Bureau's (ε_zCDP(δ), δ) family
    (sieve paper §5.1, Figure 2 left; the census chapter's comparison): ours is min over α of f_census(α)/f_zCDP(α) − 1
    on 400 log-spaced α in [1e-14, 1)."""
    hull = census.read_census_tradeoff((folder or dhc_folder()) / "census_tradeoff.csv")
    alphas = np.logspace(-14, 0, 400)[:-1]
    f_zcdp = approxdp_to_tradeoff(lambda d: zcdp_epsilon(census.TOTAL_RHO, d), alphas)
    f_census = census.tradeoff_on_grid([float(r["alpha"]) for r in hull],
                                       [float(r["beta_pessimistic"]) for r in hull], alphas)
    if not np.all(f_zcdp > 0):
        raise ValueError("the zCDP trade-off curve reaches 0 on the grid; the relative margin is undefined there")
    margin = f_census / f_zcdp - 1
    where = int(np.argmin(margin))
    # below the grid: where the certified side (1 − 1.6e-13 at α = 0) drops under zCDP's 1 − δ (δ → 1e-80)
    tiny = np.logspace(-30, -14, 161)
    low = census.tradeoff_on_grid([float(r["alpha"]) for r in hull], [float(r["beta_pessimistic"]) for r in hull],
                                  tiny) / approxdp_to_tradeoff(lambda d: zcdp_epsilon(census.TOTAL_RHO, d), tiny) - 1
    negative = np.nonzero(low <= 0)[0]
    lowest = tiny[negative[-1] + 1] if negative.size else tiny[0]
    fields = {"alpha": f"{alphas[where]:.2g}", "lowest": f"{lowest:.2g}"}
    return {"sieve.§5.1.exact_tradeoff_above_zcdp": {"ours": f"{margin[where]:.4e}", "fields": fields}}


def dropped_cut(lattice) -> int:
    """U of the sieve paper's §4, Step 1 at Δ = 1e-35 (as :func:`accountlib.engine.sieve.algorithm1_count`)."""
    return math.ceil(math.sqrt(-2 * float(lattice.variance_proxy) * math.log(1e-35 / 8)))


def sieve_order() -> dict:
    """Algorithm 1 started from the largest σ² against other orders (sieve paper §4, Step 4), pair (13, 13) at the
    Δ = 1e-35 of the (ε, δ) curves: ours is the candidates left after each filter, summed over the filters, for the
    paper's order divided by the least such sum over the reversed order and 20 random orders (seed 0)
    (:func:`accountlib.engine.sieve.algorithm1_stages`). The same filters give the per-subplot evaluation counts
    and what the dropped nodes contribute to the trapezoidal sum
    (:func:`accountlib.engine.sieve.algorithm1_dropped_mass`)."""
    lattice = Composition(census.pair_rhos(13, 13)).lattice
    rng = random.Random(0)
    count = len(lattice.groups)
    orders = ["largest", "smallest"] + [rng.sample(range(count), count) for _ in range(20)]
    stages = sieve.algorithm1_stages(lattice, 1e-35, orders)
    area = [sum(s["survivors"]) for s in stages]
    best_other = min(area[1:])
    fields = {"paper_order": area[0], "best_other": best_other, "reversed": area[1], "groups": count,
              "survivors": ", ".join(f"{n:,}" for n in stages[0]["survivors"])}
    # the same run gives N (the first filter tests every node) and |C| (what survives the last)
    nodes = stages[0]["work"] - sum(stages[0]["survivors"][:-1])
    kept = stages[0]["survivors"][-1]
    counts = {"N": f"{nodes:,}", "C": kept, "points": POINTS_PER_SUBPLOT}
    window = quadrature.trapezoid_window_error_bound(lattice.variance_proxy, dropped_cut(lattice), nodes)
    dropped = sieve.algorithm1_dropped_mass(lattice, 1e-35)
    if dropped["kept"] != kept or dropped["N"] != nodes:
        raise ArithmeticError("algorithm1_dropped_mass and algorithm1_stages disagree on the kept nodes")
    mass = {"dropped": f"{dropped['dropped']:,}", "largest": f"{dropped['largest_term']:.1e}", "C": kept}
    return {"sieve.§4.largest_variance_first": {"ours": f"{area[0] / best_other:.6f}", "fields": fields},
            "sieve.§4.dropped_mass": {"ours": f"{dropped['mass']:.3e}", "fields": mass},
            "sieve.§4.lemma_4_3_at_the_paper_N": {"ours": f"{window['bound']:.4e}",
                                                   "fields": {"N": f"{nodes:,}", "a": f"{window['strip']:.3g}"}},
            "sieve.§4.evaluations_without_sieve": {"ours": POINTS_PER_SUBPLOT * nodes, "fields": counts},
            "sieve.§4.evaluations_with_sieve": {"ours": POINTS_PER_SUBPLOT * kept, "fields": counts}}


def pair_spread(folder: Path | None = None) -> dict:
    """Sieve §5.1/§5.3: the 946 pairs' (ε, δ) curves "different yet highly similar". Ours is the largest relative
    spread (max − min)/max of the pairs' exact δ at ε_zCDP(δ_zCDP) over the stored levels (read from every pair's
    stored curve): positive (different), and its size."""
    folder = folder or dhc_folder()
    pairs = census.available_pairs(folder)
    columns = []
    for k, l in pairs:
        with open(census.pair_paths(folder, k, l)[0], newline="") as handle:
            columns.append([float(row["delta"]) for row in csv.DictReader(handle)])
    deltas = np.array(columns)  # pairs × levels
    spread = (deltas.max(axis=0) - deltas.min(axis=0)) / deltas.max(axis=0)
    with open(census.pair_paths(folder, *pairs[0])[0], newline="") as handle:
        levels = [float(row["delta_zcdp"]) for row in csv.DictReader(handle)]
    where = int(np.argmax(spread))
    fields = {"pairs": len(pairs), "levels": len(levels), "at": f"{levels[where]:g}",
              "smallest": f"{spread.min():.2e}", "at_1e-10": f"{spread[levels.index(1e-10)]:.2e}"}
    return {"sieve.§5.1.pairs_different_yet_similar": {"ours": f"{spread.max():.4e}", "fields": fields}}


# ---- sieve paper, added by the claims audit ----
# Claims of the sieve paper that the audit of its text found without a ledger entry: the allocation tables
# against Table 1 and the text's counts, the properties of the discrete Gaussian Appendix A.1 and §4 state, and
# the four steps of §4 on an example small enough for a brute-force reference.

SIEVE_TABLE1 = "sieve.§2.2.table1_is_an_allocation"
SIEVE_LEVELS = ("US", "State", "County", "PRIM", "Tract Subset", "Tract Subset Group", "Block Group", "Block")
"""The eight geographic levels as the sieve paper's (2.2) lists them."""
SIEVE_EXAMPLE = (("1/20", "15/31"), ("1/30", "10/31"), ("1/50", "6/31"))
"""(ρ_i, a_i) of the example for Steps 1–4 of the sieve paper's §4: σ² = 20, 30, 50 (large enough that a factor
falls below Δ/(8U) at Δ = 1e-35, so Algorithm 1 drops nodes), weights a_i = ρ_i/Σρ as in the census pairs, lattice
L = 31, c = (15, 10, 6): pairwise not coprime, gcd 1 (Bézout)."""
SIEVE_DELTA = 1e-35
"""The Δ of the sieve paper's (ε, δ) curves (§3.2)."""
NOT_REPRODUCIBLE_HERE = ("sieve.§3.2.figure1_oscillation",
                         "sieve.§4.infeasible_without_sieve", "sieve.§5.millions_of_paths")
"""Sieve-paper claims the audit found that cannot be tested here (the reason of each is in the data file)."""


def _allocation_tables() -> dict:
    """The 43 allocation files as {k: (header, rows of Fractions)}, read as the library ships them."""
    from importlib import resources

    out = {}
    for k in census.ALLOCATIONS:
        path = resources.files("accountlib") / "data" / "dhc_allocations" / f"dhc_allocation_path_{k}.csv"
        rows = list(csv.reader(path.read_text(encoding="utf-8").strip().splitlines()))
        out[k] = (rows[0], [[Fraction(x) for x in row] for row in rows[1:]])
    return out


def _level_key(name: str) -> str:
    return name.replace("_", " ").strip().lower()


def _table1() -> tuple[list[str], list[list[Fraction]]]:
    """Table 1 of the sieve paper as printed: header and rows parsed from the claim's quote (the paper's table)."""
    text = ledger.claim(SIEVE_TABLE1)["quote"]
    text = text[text.index("| Block"):]  # the caption's sentences come first
    lines = [line.strip() for line in text.replace("| |", "|\n|").splitlines() if line.strip()]
    cells = [[c.strip().strip("$") for c in line.strip("|").split("|")] for line in lines]
    header, rows = cells[0], [r for r in cells[1:] if not set("".join(r)) <= set("- ")]
    return header, [[Fraction(c) for c in r] for r in rows]


def sieve_table1_and_data() -> dict:
    """Table 1 against the 43 allocation files (sieve paper §2.2, §2.3): how many files equal the printed table
    cell for cell (columns matched by level name), the exact sum of the printed table against ρ = 4.9622, the
    number of marginal queries and of geographic levels (the names of (2.2) found among the files' columns), and
    the heterogeneity of the variances (§1): the fewest distinct budgets in any allocation."""
    header, rows = _table1()
    tables = _allocation_tables()
    matches = []
    for k, (names, values) in tables.items():
        index = {_level_key(n): i for i, n in enumerate(names)}
        if {_level_key(h) for h in header} != set(index) or len(values) != len(rows):
            continue
        if all(values[r][index[_level_key(h)]] == rows[r][c] for r in range(len(rows)) for c, h in enumerate(header)):
            matches.append(k)
    total = sum(sum(r) for r in rows)
    queries = {len(values) for _, values in tables.values()}
    level_names = {frozenset(_level_key(n) for n in names) for names, _ in tables.values()}
    if len(queries) != 1 or len(level_names) != 1:
        raise ValueError(f"the allocation files differ in shape: {sorted(queries)} rows, {len(level_names)} headers")
    found = sum(_level_key(name) in next(iter(level_names)) for name in SIEVE_LEVELS)
    distinct = {k: len({v for row in values for v in row if v}) for k, (_, values) in tables.items()}
    across_queries = sum(any(len({row[c] for row in values if row[c]}) > 1 for c in range(len(values[0])))
                         for _, values in tables.values())
    across_levels = sum(any(len({v for v in row if v}) > 1 for row in values) for _, values in tables.values())
    return {
        SIEVE_TABLE1: {"ours": len(matches), "fields": {"which": ", ".join(map(str, matches)) or "none"}},
        "sieve.§2.3.table1_total": str(total),
        "sieve.§2.2.marginal_queries_10": queries.pop(),
        "sieve.§2.3.geographic_levels_8": {"ours": found, "fields": {"columns": len(next(iter(level_names)))}},
        "sieve.§1.heterogeneous_variances": {"ours": min(distinct.values()), "fields": {
            "most": max(distinct.values()), "queries": across_queries, "levels": across_levels,
            "allocations": len(tables)}},
    }


def sieve_node_reduction() -> dict:
    """Two statements of the sieve paper about Algorithm 1 for pair (13, 13) at Δ = 1e-35: the node reduction N/|C|
    (the abstract's "three orders of magnitude", F's evaluations being the dominant cost, §4), like for like with
    the paper (:func:`accountlib.engine.sieve.algorithm1_count`); and that the first filter, of the largest σ², has
    the widest windows (§4, Step 4): ours is its half-width ζ^(1) = r/c in ζ divided by the widest of the others,
    one filter per mechanism as the paper's X_(i) (the grouped filters' ratio in the fields)."""
    lattice = Composition(census.pair_rhos(13, 13)).lattice
    counted = sieve.algorithm1_count(lattice, SIEVE_DELTA)
    ratio = counted["N"] / counted["count"]
    groups = list(lattice.groups)
    largest = max(range(len(groups)), key=lambda i: groups[i][0][0])

    def widest_first(powers):
        _, _, _, radii = sieve.algorithm1_filters(lattice, SIEVE_DELTA, None, 80, powers=powers)
        half_widths = [r / c for c, r in radii]
        others = max(w for i, w in enumerate(half_widths) if i != largest)
        return half_widths[largest] / others, radii

    per_mechanism, radii = widest_first(False)
    grouped, _ = widest_first(True)
    fewest = radii[largest][0] == min(c for c, _ in radii)
    return {
        "sieve.abstract.sieve_three_orders": {"ours": f"{ratio:.1f}", "fields": {
            "N": f"{counted['N']:,}", "C": counted["count"]}},
        "sieve.§4.largest_variance_widest_windows": {"ours": f"{per_mechanism:.6f}", "fields": {
            "grouped": f"{grouped:.4f}", "c": radii[largest][0], "fewest": "fewest" if fewest else "not the fewest",
            "sigma2": f"{float(groups[largest][0][0]):.2f}"}},
    }


def _census_variances() -> list[Fraction]:
    """Every distinct σ² = 1/ρ of the 43 allocations."""
    return sorted({1 / r for k in census.ALLOCATIONS for r in census.load_allocation(k) if r})


A1_VARIANCES = (Fraction(1, 10), Fraction(1, 5), Fraction(2, 5), Fraction(1), Fraction(2), Fraction(4), Fraction(10))
"""The σ² of the sieve paper's Appendix A.1 (its λ4 values)."""


def sieve_discrete_gaussian_facts() -> dict:
    """Properties of N_Z(0, σ²) the sieve paper states (§4, Step 4, property 3; Appendix A.1), for Appendix A.1's
    σ² and every σ² of the 43 allocations:

    * φ strictly decreasing on (0, π): ours is the largest φ(θ_{j+1})/φ(θ_j) on 64 equal steps of [0, π]
      (:func:`accountlib.engine.characteristic.cf`, 40 digits), below 1 (every φ positive);
    * E e^{tX} ≤ e^{t²σ²/2} (sub-Gaussianity): ours is the largest log E e^{tX} − t²σ²/2, the moment generating
      function summed directly at 80 digits, over 13 log-spaced tσ ∈ [1e-2, 10] (A.1's σ² and the allocations'
      smallest and largest); equality holds where tσ² is an integer, so ours is rounding there;
    * the Poisson form of Appendix A.1's step (a): Σ_u e^{−u²/2σ²}e^{iθu}/Σ_u e^{−u²/2σ²} against
      Σ_u e^{−σ²(θ−2πu)²/2}/Σ_u e^{−2σ²π²u²}, both summed here at 120 digits over 17 θ in [0, π] (A.1's σ²):
      the largest relative difference.
    """
    from accountlib.engine.characteristic import cf

    variances = sorted(set(A1_VARIANCES) | set(_census_variances()))
    worst_step, smallest = 0.0, mpmath.inf
    with mpmath.workdps(40):
        for s2 in variances:
            values = [cf(mpmath.pi * j / 64, s2, dps=40) for j in range(65)]
            smallest = min(smallest, min(values))
            worst_step = max(worst_step, max(float(b / a) for a, b in zip(values, values[1:])))
    if not smallest > 0:
        raise ArithmeticError("a characteristic function is not positive on [0, π]")
    census_range = _census_variances()
    mgf_variances = sorted(set(A1_VARIANCES) | {census_range[0], census_range[-1]})
    worst_mgf = -mpmath.inf
    with mpmath.workdps(80):
        for s2 in mgf_variances:
            s = mpmath.mpf(s2.numerator) / s2.denominator
            sigma = mpmath.sqrt(s)
            reach = int(mpmath.ceil(21 * sigma)) + 5  # e^{-x²/2σ²} < 1e-95 beyond
            denominator = mpmath.fsum(mpmath.exp(-x * x / (2 * s)) for x in range(-reach, reach + 1))
            for ts in np.logspace(-2, 1, 13):
                t = mpmath.mpf(float(ts)) / sigma
                centre = int(mpmath.nint(t * s))  # the summand peaks at x = tσ²
                numerator = mpmath.fsum(mpmath.exp(-x * x / (2 * s) + t * x)
                                        for x in range(centre - reach, centre + reach + 1))
                worst_mgf = max(worst_mgf, mpmath.log(numerator / denominator) - t * t * s / 2)
    worst_form = mpmath.mpf(0)
    with mpmath.workdps(120):  # the direct sum loses about σ²π²/(2 ln 10) ≈ 21 digits to cancellation at σ² = 10
        for s2 in A1_VARIANCES:
            s = mpmath.mpf(s2.numerator) / s2.denominator
            reach_direct = int(mpmath.ceil(mpmath.sqrt(2 * s * 130 * mpmath.log(10)))) + 2
            reach_dual = int(mpmath.ceil(mpmath.sqrt(260 * mpmath.log(10) / s) / (2 * mpmath.pi))) + 2
            norm_direct = mpmath.fsum(mpmath.exp(-u * u / (2 * s)) for u in range(-reach_direct, reach_direct + 1))
            norm_dual = mpmath.fsum(mpmath.exp(-2 * s * mpmath.pi ** 2 * u * u)
                                    for u in range(-reach_dual, reach_dual + 1))
            for j in range(17):
                theta = mpmath.pi * j / 16
                direct = mpmath.fsum(mpmath.exp(-u * u / (2 * s)) * mpmath.cos(theta * u)
                                     for u in range(-reach_direct, reach_direct + 1)) / norm_direct
                dual = mpmath.fsum(mpmath.exp(-s * (theta - 2 * mpmath.pi * u) ** 2 / 2)
                                   for u in range(-reach_dual - 1, reach_dual + 2)) / norm_dual
                worst_form = max(worst_form, abs(direct / dual - 1))
    return {"sieve.§4.charfn_decreasing": {"ours": f"{worst_step:.12f}", "fields": {"variances": len(variances)}},
            "sieve.A1.subgaussian_mgf": {"ours": mpmath.nstr(worst_mgf, 3), "fields": {"variances": len(mgf_variances)}},
            "sieve.A1.charfn_poisson_form": mpmath.nstr(worst_form, 3)}


def sieve_trapezoid_rate() -> dict:
    """§4, Step 3: "the convergence is often even faster than exponential". The trapezoidal error of P(S_L = 0)
    for the four-mechanism sum (V = 189) of the chapter "The trapezoidal rule converges exponentially" against its
    brute-force pmf at 80 digits, N = 32, 40, …, 120: ours is the error's decay rate per node, −Δlog(error)/ΔN, over
    the last step divided by that over the first (an exponential would keep it at 1)."""
    from accountlib.engine import discrete_gaussian, lattice as lattices

    lat = lattices.lattice_of([("1/2", "1/3"), ("2/5", "1/2"), ("1", "1/6"), ("1/7", "1/4")])
    lowest, pmf = discrete_gaussian.lattice_sum_pmf(list(lat.sigma2s), list(lat.coefficients), dps=80)
    exact = pmf[-lowest]
    nodes = list(range(32, 121, 8))
    with mpmath.workdps(80):
        logs = [float(mpmath.log(abs(quadrature.dft_pmf(lat.groups, [0], n, dps=80)[0] - exact))) for n in nodes]
    rates = [(a - b) / 8 for a, b in zip(logs, logs[1:])]
    return {"sieve.§4.trapezoid_faster_than_exponential": {"ours": f"{rates[-1] / rates[0]:.4f}", "fields": {
        "first": f"{rates[0]:.3f}", "last": f"{rates[-1]:.3f}"}}}


def sieve_four_steps() -> dict:
    """The sieve paper's method (§4, Steps 1–4, Theorem 4.7) on :data:`SIEVE_EXAMPLE` at Δ = 1e-35 against the
    brute-force pmf of S_L (:func:`accountlib.engine.discrete_gaussian.lattice_sum_pmf`, 50 digits): the paper's
    U = ⌈L·sqrt(−2Σa_i²σ_i²·log(Δ/8))⌉ and N = 2(U+1) + ⌈dL·log(2dL)⌉, Algorithm 1's set C (nodes k = 1..N, the radius
    of each factor where it falls to Δ/(8U)), and the estimate (1/N)Σ_{k∈C} φ_S(ζ_k)Σ_{t=lo}^{U} cos(ζ_k t) of
    P(S_L ≥ lo). Ours: P(S_L > U)/(Δ/8) (Prop. 4.1, Step 1), and the largest |estimate − P(S_L ≥ lo)| over seven
    thresholds lo from −U to U (Theorem 4.7: at most Δ)."""
    from accountlib.engine import discrete_gaussian, lattice as lattices

    lat = lattices.lattice_of(list(SIEVE_EXAMPLE))
    cut, modulus, tau, radii = sieve.algorithm1_filters(lat, SIEVE_DELTA, None, 80)
    k = np.arange(1, modulus + 1, dtype=np.int64)
    for c, r in radii:
        if r < math.pi:
            k = k[sieve.within_filter(k, c, r, modulus)]
    kept = [int(x) for x in k]
    lowest, pmf = discrete_gaussian.lattice_sum_pmf(list(lat.sigma2s), list(lat.coefficients), dps=50)
    with mpmath.workdps(50):
        def tail(lo):  # P(S_L ≥ lo)
            return mpmath.fsum(pmf[max(lo - lowest, 0):])

        beyond = tail(cut + 1) / (mpmath.mpf(SIEVE_DELTA) / 8)
        zetas = [2 * mpmath.pi * j / modulus for j in kept]
        phis = [quadrature.characteristic_function(lat.groups, z, dps=50) for z in zetas]
        worst = mpmath.mpf(0)
        for lo in [-cut, -cut // 2, -cut // 4, 0, cut // 4, cut // 2, cut]:
            total = mpmath.mpf(0)
            for j, z, p in zip(kept, zetas, phis):
                if j % modulus == 0:  # ζ = 2π: the window's closed form is 0/0 there
                    window = cut - lo + 1
                else:
                    window = (mpmath.sin((cut + mpmath.mpf(1) / 2) * z) - mpmath.sin((lo - mpmath.mpf(1) / 2) * z)) \
                        / (2 * mpmath.sin(z / 2))
                total += p * window
            worst = max(worst, abs(total / modulus - tail(lo)))
    fields = {"U": cut, "N": modulus, "C": len(kept), "L": lat.scale, "c": ", ".join(map(str, lat.coefficients))}
    return {"sieve.§4.prop_4_1_tail": {"ours": mpmath.nstr(beyond, 4), "fields": fields},
            "sieve.§4.theorem_4_7_error": {"ours": mpmath.nstr(worst, 3), "fields": fields}}


def sieve_figure3_spread(folder: Path | None = None) -> dict:
    """§5.1, Figure 3: the f-DP curves of the 43 pairs [M0, M_l] (M0 = allocation 13) "different yet highly
    similar". Ours is the largest relative spread (max − min)/max over the 43 pairs of their stored trade-off
    curves (results/dhc/tradeoff, interpolated) on 200 log-spaced α in [1e-12, 0.5]: positive (different), and
    its size."""
    folder = folder or dhc_folder()
    pairs = [p for p in census.available_pairs(folder) if 13 in p]
    if len(pairs) != 43:
        raise ValueError(f"{folder}: {len(pairs)} pairs with allocation 13 stored, not 43")
    alphas = np.logspace(-12, math.log10(0.5), 200)
    curves = []
    for k, l in pairs:
        with open(census.pair_paths(folder, k, l)[1], newline="") as handle:
            rows = list(csv.DictReader(handle))
        curves.append(census.tradeoff_on_grid([float(r["alpha"]) for r in rows], [float(r["beta"]) for r in rows],
                                              alphas))
    betas = np.array(curves)
    spread = (betas.max(axis=0) - betas.min(axis=0)) / betas.max(axis=0)
    where = int(np.argmax(spread))
    return {"sieve.§5.1.figure3_tradeoff_spread": {"ours": f"{spread.max():.4e}", "fields": {
        "alpha": f"{alphas[where]:.2g}", "smallest": f"{spread.min():.2e}"}}}


SIEVE_AUDIT_CHECKS = (sieve_table1_and_data, sieve_node_reduction, sieve_discrete_gaussian_facts,
                      sieve_trapezoid_rate, sieve_four_steps)
"""The audit's computations that need no stored results; :func:`sieve_figure3_spread` reads results/dhc."""
# ---- end of the sieve paper's audit block ----


# ---- the sieve paper's tolerance claims against the authors' released curves for pair (13, 13) ----
RELEASED = Path(__file__).parent / "data" / "authors_released"
"""The authors' released (ε, δ) and trade-off curves of pair [M0, M0] = (13, 13) (see its README)."""
RELEASED_DEEP_LEVELS = ("1e-12", "1e-19", "1e-20", "1e-21")
"""The δ_zCDP of the released (ε, δ) curve whose relative errors the ledger shows."""


RELEASED_FILES = ("eps_delta_curve_path_13_to_13.csv", "trade_off_curve_path_13_to_13.csv")
"""The two released curves, the (ε, δ) curve (columns delta_zcdp, epsilon, delta_fdp and its two terms) and the
trade-off curve (columns zeta, trade_off_alpha, trade_off_beta)."""


def released_rows(name: str) -> list[dict]:
    """The rows of one of the authors' released curves of pair (13, 13) (:data:`RELEASED_FILES`), each a dict of
    its columns as the file's strings (decimals to be read exactly, e.g. with ``Fraction``). The one reader of
    these files: the claim checks below and the census chapter use it.

    >>> [row["delta_zcdp"] for row in released_rows("eps_delta_curve_path_13_to_13.csv")][:3]
    ['5e-1', '1e-1', '5e-2']
    """
    if name not in RELEASED_FILES:
        raise ValueError(f"name must be one of the released curves {', '.join(RELEASED_FILES)}; got {name!r}")
    with open(RELEASED / name, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def released_eps_delta_against_certified() -> dict:
    """The sieve paper's §3.2 claim that Δ = 1e-35 keeps numerical error out of the (ε, δ) curve, tested on the
    authors' released curve of pair (13, 13): at each of its ε (read as exact decimals), the certified δ(ε)
    (:meth:`accountlib.theory.composition.Composition.delta`, relative error bound 1e-20) against their δ; ``ours`` is
    the largest relative error of theirs, less our bound. A tail accurate to Δ puts an error up to Δ(1 + e^ε) on
    δ = P1 − e^ε P2, more than δ itself at the curve's deep end, which is what the released values show."""
    rows = released_rows("eps_delta_curve_path_13_to_13.csv")
    pair = Composition(census.pair_rhos(13, 13))
    points = pair.delta([Fraction(row["epsilon"]) for row in rows], rel_tol=1e-20)
    with mpmath.workdps(60):
        errors = {row["delta_zcdp"]: (abs(mpmath.mpf(row["delta_fdp"]) - p.delta) - p.error_bound) / p.delta
                  for row, p in zip(rows, points)}
        implied = {row["delta_zcdp"]: mpmath.mpf("1e-35") * (1 + mpmath.exp(p.epsilon)) / p.delta
                   for row, p in zip(rows, points)}
        worst = max(errors.values())
        first = next(level for level, e in errors.items() if e > mpmath.mpf("1e-6"))
        shown = "; ".join(f"{float(errors[level]) * 100:.3g}% at δ_zCDP = {level}" for level in RELEASED_DEEP_LEVELS)
        deepest = rows[-1]["delta_zcdp"]
        fields = {"relative_errors": shown, "first_above": first,
                  "implied": f"{float(implied[deepest]):,.0f}", "deepest": deepest,
                  "released": f"{float(mpmath.mpf(rows[-1]['delta_fdp'])):.4e}",
                  "certified": f"{float(points[-1].delta):.4e} ± {float(points[-1].error_bound):.0e}"}
        return {"sieve.§3.2.tolerance_1e-35": {"ours": mpmath.nstr(worst, 3), "fields": fields}}


def released_tradeoff_against_certified() -> dict:
    """The sieve paper's §3.2 claim that Δ = 1e-25 keeps the f-DP curve precise, near its extreme points too,
    tested on the authors' released trade-off curve of pair (13, 13): at each released α in [0, 1] (read as an
    exact decimal) the certified f(α) (:meth:`accountlib.theory.composition.Composition.tradeoff`, absolute bound
    1e-30) against their β; ``ours`` is the largest |β − f(α)| less our bound. Released α outside [0, 1] (an
    error of their own, within Δ) are counted, not compared."""
    rows = released_rows("trade_off_curve_path_13_to_13.csv")
    inside = [row for row in rows if 0 <= Fraction(row["trade_off_alpha"]) <= 1]
    pair = Composition(census.pair_rhos(13, 13))
    points = pair.tradeoff([Fraction(row["trade_off_alpha"]) for row in inside], abs_tol=1e-30)
    with mpmath.workdps(60):
        signed = [(mpmath.mpf(row["trade_off_beta"]) - p.beta, p.error_bound, row) for row, p in zip(inside, points)]
        excess = [(abs(d) - b, d, row) for d, b, row in signed]
        worst, worst_signed, worst_row = max(excess, key=lambda item: item[0])
        above = [item for item in excess if item[1] > 0 and item[0] > mpmath.mpf("1e-25")]
        optimistic = max(above, key=lambda item: item[0]) if above else None
        extreme = max(item[0] for item in excess if abs(float(item[2]["zeta"])) >= 6)
        fields = {"worst_zeta": worst_row["zeta"], "worst_alpha": f"{float(mpmath.mpf(worst_row['trade_off_alpha'])):.6f}",
                  "worst_direction": "below" if worst_signed < 0 else "above",
                  "beyond": str(sum(1 for item in excess if item[0] > mpmath.mpf("1e-25"))), "compared": str(len(inside)),
                  "outside": str(len(rows) - len(inside)),
                  "above": (f"{len(above)} released points lie above f (claiming more privacy than the pair has), "
                            f"the farthest by {float(optimistic[0]):.1e} at ζ = {optimistic[2]['zeta']}")
                  if above else "no released point lies above f by more than Δ",
                  "extreme": f"{float(extreme):.1e}"}
        return {"sieve.§3.2.fdp_tolerance_1e-25": {"ours": mpmath.nstr(worst, 3), "fields": fields}}


RELEASED_CHECKS = (released_eps_delta_against_certified, released_tradeoff_against_certified)
"""The claims tested against the authors' released curves."""
