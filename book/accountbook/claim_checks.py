"""Claims of the two papers that no chapter computes: each a short computation with the library, recorded in the
ledger like a chapter's claims (:func:`accountbook.ledger.reproduce`).

Every function returns what :func:`record` passes to the ledger for its claims: ``{id: value}``, a value being
``ours`` or a dict with ``ours``, the computed ``paper`` of a bound and the ``fields`` filled into the claim's
texts (``accountbook/data/claims.toml``). Each computation can fail: an inequality the paper states is compared
as an inequality, with what we computed, never with a value written here. Run ``python -m accountbook.claim_checks``
to rewrite the ledger's entries (only entries that changed are written; see :func:`accountbook.ledger.record`);
``tests/book/test_ledger.py`` recomputes them and checks that the committed ledger says the same. The whole set
takes about a minute and a half of CPU time on this machine (the unifying paper's claims added by the claims
audit, by mpmath quadrature, most of it; the sieve audit's checks and the released curves about half a minute).

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
from accountlib.theory.conversions import approxdp_to_tradeoff, zcdp_epsilon
from accountlib.theory.profiles import ShiftPair
from accountlib.theory.rdp import (Composition, GaussianMixture, GeneralizedGaussian, Laplace, StudentT,
                                   sampled_gaussian_cgf_reference)

from . import diagnostics, ledger

__all__ = ["dhc_folder", "variance_reduction_per_level", "rho_star_below_rho_sum", "proxy_gaps",
           "exact_delta_below_zcdp", "exact_tradeoff_above_zcdp", "laplace_phi1", "lemma_b1",
           "discrete_gaussian_gap", "sieve_order", "theorem31_remainder", "rho_at_the_endpoint",
           "pair_spread", "subsampled_k1", "symmetric_noise", "released_eps_delta_against_certified",
           "released_tradeoff_against_certified", "released_rows", "unifying_audit_claims", "all_claims",
           "record"]

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


def rho_star_below_rho_sum() -> dict:
    """ρ⋆ = sup_t ΣK_i(t)/(t(t+1)) ≤ ρ_sum = Σρ_i (unifying paper §3.3) for unit Laplace noise at shift 1 composed
    with the Gaussian mixture (m = 1) at shift 1: the two suprema sit at different orders (t → 0 for Laplace), so
    the inequality is strict and a computation that got either wrong could break it."""
    composition = Composition(((Laplace(1.0), 1.0), (GaussianMixture(1.0), 1.0)))
    star, total = composition.rho(), composition.rho_sum()
    return {"unifying.3.3.rho_star_le_rho_sum": {"ours": f"{star:.10g}", "paper": f"≤{total:.10g}"}}


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


def laplace_phi1() -> dict:
    """Prop. 4.3's example, unit Laplace noise at t = 1: Φ_1 strictly convex on [0, ρ_sum] = [0, 1/2] (Figure 5's
    setting), from the curvature computed without the paper's closed form, and that closed form (Appendix C.5)
    against it, on 50 shifts r with ρ(r) ≤ 1/2."""
    r_max = float(diagnostics._inverse_rho(Laplace(1.0), 0.5))
    rs = np.linspace(r_max / 50, r_max, 50)
    curvature = [diagnostics.laplace_phi1_curvature(r) for r in rs]
    closed = [diagnostics.laplace_phi1_curvature_closed_form(r) for r in rs]
    worst = max(abs(a - b) / abs(b) for a, b in zip(curvature, closed))
    return {"unifying.C.5.laplace_phi1_convex": mpmath.nstr(min(curvature), 10),
            "unifying.C.5.laplace_phi1_curvature_formula": mpmath.nstr(worst, 3)}


def lemma_b1() -> dict:
    """Lemma B.1 of the unifying paper, (1 − e^x)_+ ≤ t^t/(1+t)^{1+t}·e^{−tx}: ours is the largest ratio of the
    left side to the right side over 61 orders t ∈ [1e-3, 1e3] and 4001 points x ∈ [−40, 0) (x ≥ 0 makes the left
    side 0), in log space."""
    ts = np.logspace(-3, 3, 61)[:, None]
    xs = np.linspace(-40, 0, 4002)[None, :-1]
    log_ratio = np.log(-np.expm1(xs)) + ts * xs + (1 + ts) * np.log1p(ts) - ts * np.log(ts)
    return {"unifying.B.1.lemma_b1": f"{math.exp(float(log_ratio.max())):.15f}"}


def discrete_gaussian_gap() -> dict:
    """§4.5's statements about the discrete Gaussian gap, from the direct sum over the integers
    (:func:`accountbook.diagnostics.discrete_gaussian_gap_direct`), at Figure 7's σ = 0.60 and shifts r = 1, 2:
    periodic in t with period 1/r, zero where (t+1)r is an integer, positive elsewhere; and exponentially small
    in σ: the slope of log Γ against σ² (t = 1/2, r = 1, σ from 1 to 3) against −2π², Poisson summation's rate."""
    direct = diagnostics.discrete_gaussian_gap_direct
    ts = [k / 8 for k in range(1, 17)]
    period, zeros, positive, scale = [], [], [], []
    for r in (1, 2):
        for t in ts:
            gap = direct(0.6, r, t)
            scale.append(abs(gap))
            period.append(abs(direct(0.6, r, t + Fraction(1, r)) - gap))
            ((zeros if ((t + 1) * r) % 1 == 0 else positive)).append(gap)
    largest = max(scale)
    sigmas = [1.0, 1.5, 2.0, 2.5, 3.0]
    logs = [float(mpmath.log(direct(s, 1, 0.5, dps=int(8.6 * s * s) + 40))) for s in sigmas]
    slope = float(np.polyfit([s * s for s in sigmas], logs, 1)[0])
    return {"unifying.4.5.discrete_gaussian_periodic": mpmath.nstr(max(period) / largest, 3),
            "unifying.4.5.discrete_gaussian_zeros": mpmath.nstr(max(abs(z) for z in zeros) / largest, 3),
            "unifying.4.5.discrete_gaussian_positive": mpmath.nstr(min(positive), 6),
            "unifying.4.5.discrete_gaussian_exponential": f"{slope:.6f}",
            "derived.discrete_gaussian_rate": {"ours": f"{slope:.9f}", "paper": f"{-2 * math.pi ** 2:.9f}"}}


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
    lattice = ShiftPair(census.pair_rhos(13, 13)).lattice
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


def theorem31_remainder() -> dict:
    """Theorem 3.1's remainder |R_s(t)| ≤ (M_T/120)(t² + t⁵)|s|⁵: for Student-t_3 noise (smooth, heavy-tailed) at
    t = 1, R = Γ − [t(t+1)(ρ − E_P L) − t²(t+1)κ3/6 + t²(1 − t²)κ4/24] from the library's gap and loss cumulants;
    ours is the slope of log|R| against log s over s = 0.05, 0.1, 0.2, at least 5 if R = O(|s|⁵). At t = 1 the κ4
    term vanishes, so the fourth difference's rounding (about 1e-4 in κ4) does not swamp R (about 4e-10 at
    s = 0.05)."""
    mechanism, t = StudentT(3.0), 1.0
    shifts = np.array([0.05, 0.1, 0.2])
    remainders = []
    for s in shifts:
        c = mechanism.loss_cumulants(float(s))
        expansion = (t * (t + 1) * c["rho_minus_mean"] - t * t * (t + 1) / 6 * c["kappa3"]
                     + t * t * (1 - t * t) / 24 * c["kappa4"])
        remainders.append(mechanism.gap(t, float(s)) - expansion)
    slope = float(np.polyfit(np.log(shifts), np.log(np.abs(remainders)), 1)[0])
    fields = {"ratios": ", ".join(f"{r / s ** 5:.2e}" for r, s in zip(remainders, shifts))}
    return {"unifying.3.1.remainder_order": {"ours": f"{slope:.4f}", "fields": fields}}


FIGURE6_NU = (1.0, 2.0, 3.0, 4.0, 5.0, 6.013052641, 8.0, 10.0, 15.0, 20.0, 30.0, 50.0)
FIGURE6_BETA = (1.0, 1.25, 1.5, 1.75, 1.9, 2.0)
"""Figure 6's ν and β (unifying paper, Appendix D.1), at its (t, s) = (1, 0.2)."""


def rho_at_the_endpoint() -> dict:
    """§4.4: for Figure 6's Student-t and generalized Gaussian pairs (s = 0.2), ρ(s) = E_P L_s, i.e. the sup of
    K(t)/(t(t+1)) is its t ↓ 0 limit, the KL divergence. Ours is the largest ratio K(t)/(t(t+1))/KL − 1 over 29
    log-spaced t ∈ [1e-4, 1e3] and the displayed parameters (the library's quadrature, relative tolerance 1e-9):
    not above the endpoint by more than that tolerance."""
    ts = np.logspace(-4, 3, 29)
    out = {}
    for name, mechanisms in (("student_t", [StudentT(nu) for nu in FIGURE6_NU]),
                             ("generalized_gaussian", [GeneralizedGaussian(b) for b in FIGURE6_BETA])):
        excess = max(max(m.cgf(float(t), 0.2) / (t * (t + 1)) for t in ts) / m.kl(0.2) - 1 for m in mechanisms)
        out[f"unifying.4.4.{name}_rho_is_mean_loss"] = f"{excess:.3e}"
    return out


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


def subsampled_k1() -> dict:
    """Appendix C.4's closed form e^{K(1)} = 1 + (e^{1/z²} − 1)q² of the Poisson-subsampled Gaussian against
    K(1) by mpmath quadrature at 30 digits (:func:`accountlib.theory.rdp.sampled_gaussian_cgf_reference`, not
    the library's binomial sum), on q ∈ {1e-3, 0.05, 0.5, 1} and z ∈ {0.7, 2}: ours is the largest relative
    difference of K(1)."""
    worst = 0.0
    for q in (1e-3, 0.05, 0.5, 1.0):
        for z in (0.7, 2.0):
            closed = math.log1p(math.expm1(1 / z ** 2) * q * q)
            worst = max(worst, abs(sampled_gaussian_cgf_reference(q, z, 1.0) - closed) / closed)
    return {"unifying.C.4.subsampled_k1_closed_form": f"{worst:.2e}"}


def symmetric_noise() -> dict:
    """Corollary A.1 (unifying paper §2): for noise symmetric about zero the two directions agree,
    D_α(P‖Q) = D_α(Q‖P), checked by quadrature of both integrals
    (:func:`accountbook.diagnostics.shift_renyi_divergences`) for Student-t_3 and unit Laplace noise at s = 1,
    α ∈ {1.5, 2, 3}; ours is the largest relative difference. Standard Gumbel noise, which is not symmetric, shows
    that the comparison can fail (its two directions at α = 1.5 are in the fields)."""
    from scipy import special

    nu = 3.0
    constant = special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * math.log(nu * math.pi)
    densities = {"Student-t_3": lambda x: constant - (nu + 1) / 2 * np.log1p(x * x / nu),
                 "Laplace": lambda x: -np.abs(x) - math.log(2)}
    worst = 0.0
    for log_density in densities.values():
        for alpha in (1.5, 2.0, 3.0):
            forward, backward = diagnostics.shift_renyi_divergences(log_density, 1.0, alpha)
            worst = max(worst, abs(forward - backward) / forward)
    gumbel = diagnostics.shift_renyi_divergences(lambda x: -(x + np.exp(-x)), 1.0, 1.5)
    fields = {"gumbel": f"{gumbel[0]:.4f} and {gumbel[1]:.4f}"}
    return {"unifying.A.2.corollary_a1_symmetric": {"ours": f"{worst:.2e}", "fields": fields}}


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
    lattice = ShiftPair(census.pair_rhos(13, 13)).lattice
    counted = sieve.algorithm1_count(lattice, SIEVE_DELTA)
    ratio = counted["N"] / counted["count"]
    groups = list(lattice.groups)
    largest = max(range(len(groups)), key=lambda i: groups[i][0][0])

    def widest_first(powers):
        _, _, _, radii = sieve._algorithm1_filters(lattice, SIEVE_DELTA, None, 80, powers=powers)
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
    cut, modulus, tau, radii = sieve._algorithm1_filters(lat, SIEVE_DELTA, None, 80)
    k = np.arange(1, modulus + 1, dtype=np.int64)
    for c, r in radii:
        if r < math.pi:
            k = k[sieve._within(k, c, r, modulus)]
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


__all__ += ["sieve_table1_and_data", "sieve_node_reduction", "sieve_discrete_gaussian_facts", "sieve_trapezoid_rate",
            "sieve_four_steps", "sieve_figure3_spread"]

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
    (:meth:`accountlib.theory.profiles.ShiftPair.delta`, relative error bound 1e-20) against their δ; ``ours`` is
    the largest relative error of theirs, less our bound. A tail accurate to Δ puts an error up to Δ(1 + e^ε) on
    δ = P1 − e^ε P2, more than δ itself at the curve's deep end, which is what the released values show."""
    rows = released_rows("eps_delta_curve_path_13_to_13.csv")
    pair = ShiftPair(census.pair_rhos(13, 13))
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
    exact decimal) the certified f(α) (:meth:`accountlib.theory.profiles.ShiftPair.tradeoff`, absolute bound
    1e-30) against their β; ``ours`` is the largest |β − f(α)| less our bound. Released α outside [0, 1] (an
    error of their own, within Δ) are counted, not compared."""
    rows = released_rows("trade_off_curve_path_13_to_13.csv")
    inside = [row for row in rows if 0 <= Fraction(row["trade_off_alpha"]) <= 1]
    pair = ShiftPair(census.pair_rhos(13, 13))
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


# ---- unifying paper, added by the claims audit ----
# Each function below checks statements of the unifying paper that no chapter records, by computations
# independent of the closed forms they test: mpmath quadrature (30 digits and more) of the shifted pair's
# moments, direct sums over the integers, exact fractions. The Student-t and generalized Gaussian gaps are
# computed here, not with accountlib.theory.rdp's, whose float64 gaps are being made more accurate elsewhere.


def _normal_log(x):
    return -x * x / 2 - mpmath.log(2 * mpmath.pi) / 2


def _laplace_log(x):
    return -abs(x) - mpmath.log(2)


def _mixture_log(x, m=1):
    """½N(−m, 1) + ½N(m, 1), the paper's Gaussian mixture (Prop. 4.1)."""
    return _normal_log(x) - m * m / 2 + mpmath.log(mpmath.cosh(m * x))


def _student_t_log(nu):
    nu = mpmath.mpf(nu)
    constant = mpmath.loggamma((nu + 1) / 2) - mpmath.loggamma(nu / 2) - mpmath.log(nu * mpmath.pi) / 2
    return lambda x: constant - (nu + 1) / 2 * mpmath.log1p(x * x / nu)


def _generalized_gaussian_log(beta):
    """Density ∝ exp(−|x|^β/β) (§4.4: β = 1 Laplace, β = 2 the standard Gaussian), normalised."""
    beta = mpmath.mpf(beta)
    constant = -mpmath.log(2 * beta ** (1 / beta - 1) * mpmath.gamma(1 / beta))
    return lambda x: constant - abs(x) ** beta / beta


def _shift_cgf(log_density, s, t, *, dps=30, points=()):
    """K(t) = log E_P[e^{tL}] = log ∫ f(x − s)^{t+1} f(x)^{−t} dx for P = Law(s + Z), Q = Law(Z), by mpmath
    quadrature at ``dps`` digits, split at 0, s and ``points`` (where the integrand peaks or has a kink)."""
    with mpmath.workdps(dps + 10):
        s, t = mpmath.mpf(s), mpmath.mpf(t)
        breaks = sorted({mpmath.mpf(0), s, *(mpmath.mpf(p) for p in points)})
        value = mpmath.quad(lambda x: mpmath.exp((t + 1) * log_density(x - s) - t * log_density(x)),
                            [-mpmath.inf, *breaks, mpmath.inf])
        return mpmath.log(value)


def _shift_kl(log_density, s, *, dps=30):
    """E_P L = KL(P‖Q), the t ↓ 0 end of K(t)/(t(t+1)), by quadrature."""
    with mpmath.workdps(dps + 10):
        s = mpmath.mpf(s)
        return mpmath.quad(lambda x: mpmath.exp(log_density(x - s)) * (log_density(x - s) - log_density(x)),
                           [-mpmath.inf, 0, s, mpmath.inf])


def _gap_at(log_density, s, t, orders, *, dps=25):
    """Γ(t) = ρt(t+1) − K(t) with ρ the largest of K(u)/(u(u+1)) over ``orders`` and the t ↓ 0 end (KL)."""
    with mpmath.workdps(dps + 10):
        rho = max([_shift_kl(log_density, s, dps=dps)]
                  + [_shift_cgf(log_density, s, u, dps=dps) / (u * (u + 1)) for u in orders])
        t = mpmath.mpf(t)
        return rho * t * (t + 1) - _shift_cgf(log_density, s, t, dps=dps)


def continuous_rho() -> dict:
    """Prop. 4.1's optimal zCDP parameters: the Gaussian mixture (m = 1) has ρ(s) = s²/2 for every s, the
    Laplace ρ(s) = |s| + e^{−|s|} − 1, both from K by quadrature (not the library's closed forms), at
    s = 1/2, 1, 2. ρ is a supremum, so each is checked twice: no order exceeds it (K(t)/(t(t+1)) ≤ ρ on a grid
    of t, 9 orders in [0.01, 100] for the mixture, 6 in [1e-3, 100] for Laplace), and it is reached (the mixture's
    ratio at t = 1e4, s = 1; the Laplace KL, the t ↓ 0 end)."""
    shifts = (mpmath.mpf(1) / 2, mpmath.mpf(1), mpmath.mpf(2))
    ts = [mpmath.mpf(10) ** (k / 2) for k in range(-4, 5)]
    with mpmath.workdps(35):
        mixture_excess = max(_shift_cgf(_mixture_log, s, t, dps=20, points=((t + 1) * s,)) / (t * (t + 1)) / (s * s / 2)
                             for s in shifts for t in ts) - 1
        big = mpmath.mpf(10) ** 4
        attained = 1 - _shift_cgf(_mixture_log, 1, big, dps=20, points=((big + 1) - 12, big + 1, (big + 1) + 12)) \
            / (big * (big + 1)) / (mpmath.mpf(1) / 2)
        laplace = lambda s: s + mpmath.exp(-s) - 1
        small = [mpmath.mpf(10) ** k for k in range(-3, 3)]
        laplace_excess = max(_shift_cgf(_laplace_log, s, t, dps=20) / (t * (t + 1)) / laplace(s)
                             for s in shifts for t in small) - 1
        endpoint = max(abs(_shift_kl(_laplace_log, s) / laplace(s) - 1) for s in shifts)
    return {"unifying.4.1.mixture_rho_upper": mpmath.nstr(mixture_excess, 6),
            "unifying.4.1.mixture_rho_attained": mpmath.nstr(attained, 6),
            "unifying.4.1.laplace_rho_upper": mpmath.nstr(laplace_excess, 6),
            "unifying.4.1.laplace_rho_endpoint": mpmath.nstr(endpoint, 3)}


POISSON_SETTING = {"n": 20, "rho_sum": 5.0}
"""Figure 4(b)–(c)'s composition (Appendix D.1): 20 steps, ρ_sum = 5, ‖v‖/C = 1, so z² = n/(2ρ_sum) = 2."""


def poisson_rho_and_gap() -> dict:
    """Prop. 4.2: the Poisson-subsampled Gaussian's optimal zCDP parameter is the Gaussian's 1/(2z²) at every q
    (so the n-fold product has ρ_sum), and its gap is positive for 0 < q < 1 (abstract). K by 30-digit
    quadrature (:func:`accountlib.theory.rdp.sampled_gaussian_cgf_reference`), not the library's binomial sum:
    the largest 2z²K(t)/(t(t+1)) − 1 over q ∈ {0.01, 0.1, 0.5} and 9 orders t ∈ [0.1, 1000] (never above 0); the
    ratio at t = 1e5 (approaching 1: K(t) ≈ (t+1)log q + t(t+1)/(2z²)); the smallest composed gap
    n(t(t+1)/(2z²) − K(t)) over q ∈ {1e-3, 0.1, 0.9, 0.99} and t ∈ {0.5, 2}. Quadrature at 20 digits."""
    n, rho_sum = POISSON_SETTING["n"], POISSON_SETTING["rho_sum"]
    z = math.sqrt(n / (2 * rho_sum))
    rho = 1 / (2 * z * z)
    ts = np.logspace(-1, 3, 9)
    excess = max(sampled_gaussian_cgf_reference(q, z, float(t), dps=20) / (t * (t + 1)) / rho - 1
                 for q in (0.01, 0.1, 0.5) for t in ts)
    big = 1e5
    shortfall = 1 - sampled_gaussian_cgf_reference(0.01, z, big, dps=20) / (big * (big + 1)) / rho
    predicted = -2 * z * z * math.log(0.01) / big
    gaps = [n * (rho * t * (t + 1) - sampled_gaussian_cgf_reference(q, z, t, dps=20))
            for q in (1e-3, 0.1, 0.9, 0.99) for t in (0.5, 2.0)]
    return {"unifying.4.2.rho_sum_upper": f"{excess:.4e}",
            "unifying.4.2.rho_sum_attained": {"ours": f"{shortfall:.4e}", "fields": {"predicted": f"{predicted:.2e}"}},
            "unifying.4.2.gap_positive.subsampled": f"{min(gaps):.6e}"}


def _example_2_3_sums(variant, r, *, cut=200):
    """δ_{P‖Q}(log r) and δ_{Q‖P}(log r) of Example 2.3's pair (:func:`accountlib.theory.pairs.example_2_3`'s
    laws, the book's reconstruction), summed exactly over k ∈ [−cut, cut + 1] from the mass function alone (not
    the closed forms that function returns); what lies outside has mass below 2^{−cut}."""
    from accountlib.theory import pairs

    q = pairs.example_2_3(variant)["q"]
    r = Fraction(r)
    forward = sum(max(Fraction(0), q(k - 1) - r * q(k)) for k in range(-cut, cut + 2))
    reverse = sum(max(Fraction(0), q(k) - r * q(k - 1)) for k in range(-cut, cut + 2))
    return forward, reverse


def example_2_3_curves() -> dict:
    """Example 2.3's statements beyond the two printed fractions: both forward curves are (2/11)(4 − e^ε)_+, the
    reverse curves lie below them (so the maximum of the two is the same for A and B), Appendix A.4's
    F − R_A = c(γ − 1)/6 on [1, 2] and c(4 − γ)/12 on [2, 4] (γ = e^ε, c = 6/11), and the largest likelihood
    ratio, either direction, is 4; from exact sums over the integers on 41 ratios γ ∈ [1, 6]."""
    from accountlib.theory import pairs

    grid = [1 + Fraction(k, 8) for k in range(41)]
    c = Fraction(6, 11)
    formula_error, below, a4_error = Fraction(0), None, Fraction(0)
    for variant in ("A", "B"):
        for gamma in grid:
            forward, reverse = _example_2_3_sums(variant, gamma)
            formula_error = max(formula_error, abs(forward - Fraction(2, 11) * max(0, 4 - gamma)))
            below = reverse - forward if below is None else max(below, reverse - forward)
            if variant == "A" and gamma <= 4:
                expected = c * (gamma - 1) / 6 if gamma <= 2 else c * (4 - gamma) / 12
                a4_error = max(a4_error, abs(forward - reverse - expected))
    ratios = []
    for variant in ("A", "B"):
        q = pairs.example_2_3(variant)["q"]
        ratios += [max(q(k - 1) / q(k), q(k) / q(k - 1)) for k in range(-60, 61)]
    show = lambda x: f"{float(x):.3e}"
    return {"unifying.ex2.3.forward_curve": show(formula_error),
            "unifying.ex2.3.reverse_below_forward": show(below),
            "unifying.A.4.forward_minus_reverse_A": show(a4_error),
            "unifying.ex2.3.likelihood_ratio_max": str(max(ratios))}


def example_2_2() -> dict:
    """Example 2.2 (w = 3): every Rényi order is infinite, E_P e^{tL} = Σ e^{tk}k^{−w}/ζ(w) = ∞ (Appendix A.3):
    ours is the smallest, over t ∈ {1e-3, 0.01, 0.1, 1}, log10 of the sum's term at k = 10⁶ (a lower bound on the
    partial sum; the terms grow without bound once tk > w log k), which must pass 100; while the mean privacy loss
    E_P L = Σ k·P{k} is finite: its direct sum to k = 10⁶ (float64) with the tail Σ_{k>10⁶} k^{−2} ∈ (1/(10⁶+1),
    1/10⁶) against ζ(w − 1)/ζ(w)."""
    w, cut = 3, 10 ** 6
    with mpmath.workdps(30):
        zeta = mpmath.zeta(w)
        smallest = min(mpmath.log10(mpmath.exp(t * cut) * mpmath.mpf(cut) ** -w / zeta)
                       for t in (mpmath.mpf("1e-3"), mpmath.mpf("0.01"), mpmath.mpf("0.1"), 1))
        closed = mpmath.zeta(w - 1) / zeta
    ks = np.arange(1, cut + 1, dtype=float)
    head = math.fsum((ks ** (1 - w))[::-1])
    mean = (head + 1 / (cut + 0.5)) / float(zeta)
    return {"unifying.ex2.2.rdp_infinite": mpmath.nstr(smallest, 6),
            "unifying.ex2.2.mean_loss_finite": {"ours": f"{mean:.13f}", "paper": mpmath.nstr(closed, 13)}}


def _one_sided_delta(log_p, log_q, eps, *, span=60.0):
    """δ_{P‖Q}(ε) = ∫ (p − e^ε q)_+ by adaptive quadrature (scipy, 1e-12 relative) between the sign changes of
    log p − log q − ε, located on a grid of step 1e-3 on [−span, span] and refined by brentq."""
    from scipy import integrate, optimize as opt

    xs = np.linspace(-span, span, int(2 * span * 1000) + 1)
    diff = lambda x: log_p(x) - log_q(x) - eps
    values = diff(xs)
    roots = [opt.brentq(diff, xs[i], xs[i + 1], xtol=1e-15) for i in np.nonzero(np.diff(np.sign(values)))[0]]
    edges = [-np.inf, *roots, np.inf]
    total = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        if np.isfinite(a) and np.isfinite(b):
            middle = (a + b) / 2
        else:
            middle = a + 1 if np.isfinite(a) else (b - 1 if np.isfinite(b) else 0.0)
        if diff(middle) > 0:
            total += integrate.quad(lambda x: np.exp(log_p(x)) - np.exp(eps + log_q(x)), a, b,
                                    epsabs=0, epsrel=1e-12, limit=400)[0]
    return total


def symmetric_noise_profiles() -> dict:
    """Corollary A.1's first equality, δ_{P‖Q} = δ_{Q‖P} for noise symmetric about zero: Student-t_3 and unit
    Laplace noise at s = 1, ε ∈ {0.1, 0.5, 0.9}, both one-sided curves by quadrature; ours is the largest relative
    difference. Standard Gumbel noise, not symmetric, shows the comparison can fail (its two curves at ε = 0.5 in
    the fields)."""
    from scipy import special

    nu = 3.0
    constant = special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * math.log(nu * math.pi)
    densities = [lambda x: constant - (nu + 1) / 2 * np.log1p(x * x / nu), lambda x: -np.abs(x) - math.log(2)]
    worst = 0.0
    for f in densities:
        p = lambda x, f=f: f(x - 1.0)
        for eps in (0.1, 0.5, 0.9):
            forward, backward = _one_sided_delta(p, f, eps), _one_sided_delta(f, p, eps)
            worst = max(worst, abs(forward - backward) / forward)
    gumbel = lambda x: -(x + np.exp(-np.clip(x, -700, None)))
    g_forward = _one_sided_delta(lambda x: gumbel(x - 1.0), gumbel, 0.5, span=30.0)
    g_backward = _one_sided_delta(gumbel, lambda x: gumbel(x - 1.0), 0.5, span=30.0)
    return {"unifying.A.2.corollary_a1_delta": {"ours": f"{worst:.2e}",
                                                "fields": {"gumbel": f"{g_forward:.4f} and {g_backward:.4f}"}}}


def conversion_bound() -> dict:
    """Appendix B.2: δ_{P‖Q}(ε) ≤ t^t/(1+t)^{1+t}·exp{K(t) − tε} for every t > 0: ours is the largest ratio of the
    exact δ (quadrature of (p − e^ε q)_+; 0 for Laplace at ε = 1.5 > s, where the bound holds trivially) to the bound over 13 orders t ∈ [0.01, 100], ε ∈ {0.25, 0.5, 0.75, 1.5}, for
    unit Laplace and the Gaussian mixture (m = 1) at s = 1 (K by 20-digit quadrature)."""
    laplace = lambda x: -np.abs(x) - math.log(2)
    mixture = lambda x: -x * x / 2 - 0.5 * math.log(2 * math.pi) - 0.5 + np.logaddexp(x, -x) - math.log(2)
    worst = 0.0
    ts = np.logspace(-2, 2, 13)
    for f, f_mp in ((laplace, _laplace_log), (mixture, _mixture_log)):
        cgfs = [float(_shift_cgf(f_mp, 1, float(t), dps=20, points=((t + 1),))) for t in ts]
        for eps in (0.25, 0.5, 0.75, 1.5):
            exact = _one_sided_delta(lambda x, f=f: f(x - 1.0), f, eps)
            for t, k in zip(ts, cgfs):
                log_bound = t * math.log(t) - (1 + t) * math.log1p(t) + k - t * eps
                if exact > 0:
                    worst = max(worst, math.exp(math.log(exact) - log_bound))
    return {"unifying.B.2.conversion_bound": f"{worst:.6f}"}


def _student_t_score_moment(nu, j):
    """E[S_ν^{2j}], S_ν = (ν+1)Z/(ν+Z²), Z ~ t_ν, by quadrature at 30 digits (not Appendix C.6's closed form)."""
    f = _student_t_log(nu)
    with mpmath.workdps(40):
        nu = mpmath.mpf(nu)
        return mpmath.quad(lambda x: mpmath.exp(f(x)) * ((nu + 1) * x / (nu + x * x)) ** (2 * j),
                           [-mpmath.inf, -mpmath.sqrt(nu), 0, mpmath.sqrt(nu), mpmath.inf])


def student_t_shape() -> dict:
    """§4.4 and Appendix C.6 for Student-t_ν noise: the score moments' closed form μ_{2j,ν} against quadrature
    (j = 1, 2, 3, ν ∈ {1, 3, 6.013052641, 20}); the gap quartic (log-log slope over s ∈ {0.005, 0.01, 0.02} at
    ν = 3, t = 1, the gap by 40-digit quadrature with ρ = KL, the t ↓ 0 end, as unifying.4.4.student_t_rho_is_mean_loss
    checks); its leading term −κ4(S_ν)/24·[t(t+1)]²s⁴ (ratio at s = 0.01); the coefficient rising then falling
    along Figure 6's ν grid (peak at the grid's 6.013); and tending to 0 in the Gaussian limit (at ν = 10⁶,
    relative to its peak)."""
    worst = mpmath.mpf(0)
    with mpmath.workdps(40):
        for nu in (1, 3, 6.013052641, 20):
            for j in (1, 2, 3):
                closed = diagnostics._student_t_moment(mpmath.mpf(nu), j)
                worst = max(worst, abs(_student_t_score_moment(nu, j) / closed - 1))
    f = _student_t_log(3)
    shifts = [mpmath.mpf("0.005"), mpmath.mpf("0.01"), mpmath.mpf("0.02")]
    with mpmath.workdps(50):
        gaps = [2 * _shift_kl(f, s, dps=40) - _shift_cgf(f, s, 1, dps=40) for s in shifts]
        coefficient = diagnostics.student_t_leading_coefficient(3, dps=40)
        ratios = [g / (4 * s ** 4) / coefficient - 1 for g, s in zip(gaps, shifts)]
    slope = float(np.polyfit([math.log(s) for s in shifts], [math.log(g) for g in gaps], 1)[0])
    coefficients = [diagnostics.student_t_leading_coefficient(nu) for nu in FIGURE6_NU]
    peak = FIGURE6_NU.index(6.013052641)
    steps = [coefficients[i + 1] - coefficients[i] for i in range(len(coefficients) - 1)]
    shape = min([steps[i] for i in range(peak)] + [-steps[i] for i in range(peak, len(steps))])
    limit = diagnostics.student_t_leading_coefficient(1e6) / coefficients[peak]
    return {"unifying.C.6.score_moments": mpmath.nstr(worst, 3),
            "unifying.4.4.student_t_quartic": {"ours": f"{slope:.5f}",
                                               "fields": {"ratios": ", ".join(mpmath.nstr(r, 3) for r in ratios)}},
            "unifying.C.6.student_t_leading_term": {"ours": mpmath.nstr(abs(ratios[1]), 4),
                                                    "fields": {"ratios": ", ".join(mpmath.nstr(r, 3) for r in ratios)}},
            "unifying.4.4.student_t_coefficient_rise_fall": mpmath.nstr(shape, 6),
            "unifying.4.4.student_t_coefficient_gaussian_limit": mpmath.nstr(limit, 4)}


def _chi(beta):
    """χ_β of Prop. 4.5 at 30 digits."""
    with mpmath.workdps(40):
        b = mpmath.mpf(beta)
        g = mpmath.gamma
        return b ** (4 - 4 / b) / (24 * g(1 / b) ** 2) * (3 * g(2 - 1 / b) ** 2 - g(4 - 3 / b) * g(1 / b))


def generalized_gaussian_shape() -> dict:
    """Prop. 4.5: χ_β ≥ 0 on 1 ≤ β ≤ 2 (smallest χ on 19 interior β; outside the range it turns negative, in the
    fields); and Γ(t) ≥ χ_β[t(t+1)]²s⁴ + o(s⁴): ours the smallest ratio (KL·t(t+1) − K(t))/(χ_β[t(t+1)]²s⁴) at
    t = 1, s = 0.01, β ∈ {1.25, 1.5, 1.75, 1.9} (KL·t(t+1) − K(t) ≤ Γ(t), since ρ ≥ KL), quadrature at 40 digits."""
    interior = [1 + mpmath.mpf(k) / 20 for k in range(1, 20)]
    smallest = min(_chi(b) for b in interior)
    outside = {b: _chi(b) for b in (2.5, 3)}
    ratios = []
    with mpmath.workdps(50):
        s = mpmath.mpf("0.01")
        for beta in (1.25, 1.5, 1.75, 1.9):
            f = _generalized_gaussian_log(beta)
            lower = 2 * _shift_kl(f, s, dps=40) - _shift_cgf(f, s, 1, dps=40)
            ratios.append(lower / (_chi(beta) * 4 * s ** 4))
    fields = {"outside": ", ".join(f"χ_{b:g} = {mpmath.nstr(v, 4)}" for b, v in outside.items()),
              "ratios": ", ".join(mpmath.nstr(r, 5) for r in ratios)}
    return {"unifying.4.4.chi_nonnegative": {"ours": mpmath.nstr(smallest, 6), "fields": fields},
            "unifying.4.4.generalized_gaussian_quartic_lower_bound": {"ours": mpmath.nstr(min(ratios), 6),
                                                                     "fields": fields}}


def _discrete_laplace_moment(a, r, t, *, dps=40):
    """e^{K(t)} of the discrete Laplace pair (mass ∝ e^{−a|z|}, shift r) summed over the integers directly."""
    with mpmath.workdps(dps + 10):
        a, t = mpmath.mpf(a), mpmath.mpf(t)
        lam = mpmath.exp(-a)
        width = int((dps + 10) * mpmath.log(10) / a) + r + 2
        total = mpmath.fsum(mpmath.exp(-a * ((t + 1) * abs(z - r) - t * abs(z))) for z in range(-width, width + r + 1))
        return total * (1 - lam) / (1 + lam)


def discrete_laplace() -> dict:
    """Prop. 4.6(a) and Appendix C.8 for discrete Laplace noise at Figure 7's ar = 0.5, r ∈ {1, 2, 4}: the finite-sum
    CGF against the direct sum over the integers (largest relative difference over t ∈ {0.1, 0.5, 1, 2, 3}); and
    the gap Γ(t) = ρt(t+1) − K(t), ρ the largest K(u)/(u(u+1)) on 28 log-spaced u ∈ [1e-6, 1e3] (sums at 20 digits) and its t ↓ 0 end
    (the t ↓ 0 end is the ratio at u = 1e-6 to about 1e-6 relative), positive at every eighth t of Figure 7's
    361-point grid on (0, 3] (45 orders from 1/120 to 3; its smallest value)."""
    worst, smallest = mpmath.mpf(0), None
    with mpmath.workdps(40):
        for r in (1, 2, 4):
            a = mpmath.mpf("0.5") / r
            lam = mpmath.exp(-a)
            for t in (mpmath.mpf("0.1"), mpmath.mpf("0.5"), 1, 2, 3):
                closed = (1 - lam) / (1 + lam) * (mpmath.exp(t * a * r) / (1 - lam) + mpmath.exp(-t * a * r) * lam ** r
                                                  / (1 - lam) + mpmath.fsum(lam ** j * mpmath.exp(t * a * (r - 2 * j))
                                                                            for j in range(1, r)))
                worst = max(worst, abs(closed / _discrete_laplace_moment(a, r, t) - 1))
            cgf = lambda u: mpmath.log(_discrete_laplace_moment(a, r, u, dps=20))
            us = [mpmath.mpf(10) ** (k / 3) for k in range(-18, 10)]
            rho = max(cgf(u) / (u * (u + 1)) for u in us)
            grid = [3 * mpmath.mpf(k) / 360 for k in range(1, 361)]
            gaps = [rho * t * (t + 1) - cgf(t) for t in grid[::8]]
            low = min(gaps)
            smallest = low if smallest is None else min(smallest, low)
    return {"unifying.C.8.discrete_laplace_cgf": mpmath.nstr(worst, 3),
            "unifying.4.5.discrete_laplace_gap_positive": mpmath.nstr(smallest, 6)}


def fixed_order_t15() -> dict:
    """Appendix D.2 repeats Figure 6 at t = 1.5 (s = 0.2): the Student-t gap nonmonotone along the ν grid (the
    smaller of its largest rise and largest fall, both must occur) and the generalized Gaussian gap falling along
    the β grid to zero at β = 2 (its largest step must be a fall; the value at β = 2 in the fields). Gaps by
    20-digit quadrature, ρ the largest of KL and K(u)/(u(u+1)) at u ∈ {0.1, 1, 10}."""
    orders = (mpmath.mpf("0.1"), mpmath.mpf(1), mpmath.mpf(10))
    t, s = mpmath.mpf("1.5"), mpmath.mpf("0.2")
    with mpmath.workdps(35):
        student = [_gap_at(_student_t_log(nu), s, t, orders, dps=20) for nu in FIGURE6_NU]
        general = [_gap_at(_generalized_gaussian_log(b), s, t, orders, dps=20) for b in FIGURE6_BETA]
    rises = [b - a for a, b in zip(student, student[1:])]
    steps = [b - a for a, b in zip(general, general[1:])]
    return {"unifying.D2.student_t_nonmonotone": mpmath.nstr(min(max(rises), -min(rises)), 6),
            "unifying.D2.generalized_gaussian_decreasing": {"ours": mpmath.nstr(max(steps), 6),
                                                            "fields": {"at_2": mpmath.nstr(general[-1], 3)}}}


def incomparable_pairs() -> dict:
    """§1's example: (2, 1e-6) and (1, 1e-5) are incomparable. The Gaussian pair N(μ, 1) against N(0, 1) whose
    exact δ(2) is 1e-6 (μ by bisection on Φ(−ε/μ + μ/2) − e^εΦ(−ε/μ − μ/2), Balle and Wang's exact curve) has
    δ(1) above 1e-5, so it satisfies (2, 1e-6) but not (1, 1e-5); ours is that δ(1). (The other direction, a pair
    that is (1, 1e-5)-DP but not (2, 1e-6), is the four-point pair with an atom of mass 1e-5 under P only, whose
    δ(2) is that atom by construction, so it is not a check and is not counted.)"""
    from scipy import optimize as opt, special

    def delta(eps, mu):
        return 0.5 * special.erfc((eps / mu - mu / 2) / math.sqrt(2)) \
            - math.exp(eps) * 0.5 * special.erfc((eps / mu + mu / 2) / math.sqrt(2))

    mu = opt.brentq(lambda m: math.log(delta(2.0, m)) - math.log(1e-6), 0.1, 3.0, xtol=1e-14)
    return {"unifying.1.incomparable_pairs": {"ours": f"{delta(1.0, mu):.6e}", "fields": {"mu": f"{mu:.6f}"}}}




def dpsgd_run_counts() -> dict:
    """Appendix D.4.1's run counts, from the two sweeps: the distinct settings (the shared (0.01, 500) cell once),
    the clipping-only trajectories (one per q of the q sweep and seed, the n sweep's horizons being prefixes of
    q = 0.01's longest run), the private ones (two accountants per setting and seed) and the endpoint results
    (three methods per setting and seed)."""
    seeds = 5
    from .dpsgd.results import N_SWEEP, Q_SWEEP  # the DP-SGD sweeps of §5.2: q at n = 500, n at q = 0.01

    settings = {(q, 500) for q in Q_SWEEP} | {(0.01, n) for n in N_SWEEP}
    clipping = len({q for q, _ in settings}) * seeds
    private = 2 * len(settings) * seeds
    return {"unifying.D4.1.settings": len(settings),
            "unifying.D4.1.trajectories": clipping + private,
            "unifying.D4.1.clipping_only_trajectories": clipping,
            "unifying.D4.1.private_trajectories": private,
            "unifying.D4.1.endpoint_results": 3 * len(settings) * seeds}


UNIFYING_NOT_REPRODUCIBLE = (
    "unifying.D3.1.source_rows_3221", "unifying.D3.1.state_rows_3142", "unifying.D3.1.complete_rows_2902",
    "unifying.D3.1.top20_rows_2098",
)
"""The unifying paper's claims the audit found that cannot be tested here (each claim's reason says why); the other
rows of Tables 3–4, the accuracy trends and the loss gaps at the n sweep's ends are recorded by the DP-SGD chapter
(:func:`accountbook.dpsgd.analysis.record_ledger`), which holds the runs."""


def unifying_audit_claims() -> dict:
    """Every claim of the unifying paper added by the claims audit that is computed here."""
    out = {}
    for compute in (continuous_rho, poisson_rho_and_gap, example_2_3_curves, example_2_2, symmetric_noise_profiles,
                    conversion_bound, student_t_shape, generalized_gaussian_shape, discrete_laplace, fixed_order_t15,
                    dpsgd_run_counts, incomparable_pairs):
        out.update(compute())
    return out


def all_claims(folder: Path | None = None) -> dict:
    """Every claim of this module, id → what :func:`record` passes to the ledger."""
    out = {}
    for compute in (variance_reduction_per_level, rho_star_below_rho_sum, laplace_phi1, lemma_b1,
                    discrete_gaussian_gap, sieve_order, theorem31_remainder, rho_at_the_endpoint,
                    subsampled_k1, symmetric_noise, unifying_audit_claims):
        out.update(compute())
    for compute in (proxy_gaps, exact_delta_below_zcdp, exact_tradeoff_above_zcdp, pair_spread):
        out.update(compute(folder))
    for compute in SIEVE_AUDIT_CHECKS:
        out.update(compute())
    out.update(sieve_figure3_spread(folder))
    for compute in RELEASED_CHECKS:
        out.update(compute())
    return out


def record(path: Path | None = None, folder: Path | None = None) -> list[dict]:
    """Compute every claim of this module and record it in the ledger ``path`` (default
    :func:`accountbook.ledger.recording_path`: nowhere unless ``$ACCOUNTLIB_RESULTS`` is set)."""
    return ledger.reproduce(all_claims(folder), not_reproducible=(*NOT_REPRODUCIBLE_HERE, *UNIFYING_NOT_REPRODUCIBLE),
                            path=path)


if __name__ == "__main__":  # the explicit command: records in the book's ledger (results/ledger.json)
    for entry in record(path=ledger.ledger_path()):
        print(f"{entry['verdict']:>22}  {entry['id']}: ours {entry['ours']} against {entry['paper']}")
