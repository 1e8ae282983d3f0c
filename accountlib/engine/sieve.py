"""Which quadrature nodes matter: the sieve (Algorithm 1 of the sieve paper, and beyond).

Engine layer of :mod:`accountlib`. The integrand φ_S(ζ) = Π_g φ_{σ_g}(c_g ζ)^{n_g}
(identical (σ², c) terms grouped, multiplicity n_g) is negligible except near
the points where *every* factor peaks, i.e. where each c_g ζ is close to 2πZ.
A node ζ_k = 2πk/N may be dropped when a rigorous bound on |φ_S(ζ_k)| is
below τ; the dropped nodes then change the trapezoidal sum by at most
τ·max|D| (book, Derivations §5).

The bound used for one factor at distance d = dist(cζ, 2πZ) ∈ [0, π] is

    |φ_σ(cζ)| ≤ min(1, M_σ(d)·e^{−σ²d²/2}),
    M_σ(d) = 1 + e^{−2πσ²(π−d)} + Σ_{u≥2} e^{−2π²σ²u(u−1)} + Σ_{u≥1} e^{−2π²σ²u²},

which follows from the dual (Poisson) form: the u = ±1 images contribute
e^{−σ²((2π−d)² − d²)/2} = e^{−2πσ²(π−d)} and e^{−σ²((2π+d)²−d²)/2} ≤ e^{−2π²σ²},
the others less, and the denominator is ≥ 1.

Two stages, both from integer arithmetic on k — never a loop over all N nodes:

1. *Per-factor windows* (the paper's Algorithm 1). Factor g keeps the residues
   m = c_g k mod N with |m| ≤ w_g, where w_g comes from the radius r_g at which
   the factor's own bound falls below τ. With N prime, the surviving k of the
   narrowest factor are listed directly as k = m·c_g⁻¹ mod N, and the other
   factors are intersected by testing c_j k mod N on that short list.
2. *Product pruning* (beyond the paper): a survivor is dropped when the product
   of all factors' bounds is below τ, though no single factor is.

Symmetry (φ_S even) folds k and N − k together: only k ∈ [0, (N−1)/2] are kept.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..infrastructure.numbers import ResourceLimitError, resource_limit
from ..infrastructure.search import bisect
from .characteristic import factor_bound_constant, log_bound_at_distance, log_factor_bound

__all__ = ["SieveResult", "sieve_nodes", "sieve_candidates", "check_sieve_candidates", "factor_bound_constant", "scan_nodes", "log_factor_bound", "algorithm1_count",
           "algorithm1_filters", "within_filter",
           "algorithm1_stages", "algorithm1_dropped_mass"]

_CHUNK = 4_000_000  # candidates processed per block (bounds memory for the largest pairs)
MAX_SIEVE_CANDIDATES = 10**8
"""The most candidate nodes :func:`sieve_nodes` scans (about 25 blocks, tens of seconds): checked before the scan.
The heaviest census pair, (6, 6), scans a few million at Δ = 1e-300. Raise it with the environment variable
``ACCOUNTLIB_MAX_SIEVE_CANDIDATES``."""


@dataclass
class SieveResult:
    """The surviving nodes and how they were found.

    Attributes
    ----------
    nodes : sorted k in [0, (N−1)/2] whose node ζ_k = 2πk/N is kept.
    modulus : N.
    tau : τ, the dropping threshold — every dropped node has |φ_S(ζ_k)| ≤ τ.
    radii : per group ((σ², c), n) → r_g (radians; π means "no restriction").
    per_factor_count : survivors of stage 1 in [0, (N−1)/2].
    product_count : survivors of stage 2 (= len(nodes)).
    """

    nodes: np.ndarray
    modulus: int
    tau: float
    radii: dict = field(default_factory=dict)
    per_factor_count: int = 0
    product_count: int = 0


def folded_distance(residues: np.ndarray, modulus: int) -> np.ndarray:
    """|m| for m ≡ residue (mod N) in [−N/2, N/2], as int64."""
    r = np.mod(residues, modulus)
    return np.minimum(r, modulus - r)


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` for a 1-d integer array, without the masked-array module ``np.unique`` imports on its
    first call (a tenth of the command line's start)."""
    if values.size == 0:
        return values
    ordered = np.sort(values)
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def sieve_nodes(groups, modulus: int, tau: float, *, product: bool = True) -> SieveResult:
    """The nodes k ∈ [0, (N−1)/2] at which |φ_S(2πk/N)| may exceed τ (``tau``), the dropping threshold.

    Parameters
    ----------
    groups : ``((sigma2, c), multiplicity)`` pairs, as in ``Lattice.groups``.
    modulus : N, a prime larger than every c.
    tau : τ > 0.
    product : apply the product pruning of stage 2 (default True).
    """
    factors = _factor_windows(groups, modulus, tau)
    first, rest = factors[0], factors[1:]
    log_tau = math.log(tau)
    n_half = (modulus - 1) // 2
    check_sieve_candidates(first["w"] + 1, modulus, tau)
    inverse = pow(first["c"], -1, modulus)
    kept_blocks, per_factor = [], 0
    for start in range(0, first["w"] + 1, _CHUNK):
        m = np.arange(start, min(first["w"] + 1, start + _CHUNK), dtype=np.int64)
        k = folded_distance(mulmod(m, inverse, modulus), modulus)
        for f in rest:
            if f["w"] >= n_half or k.size == 0:
                continue
            k = k[folded_distance(mulmod(k, f["c"], modulus), modulus) <= f["w"]]
        per_factor += k.size
        if product and k.size:
            log_bound = np.zeros(k.size)
            for f in factors:
                distance = folded_distance(mulmod(k, f["c"], modulus), modulus) * (2 * math.pi / modulus)
                log_bound += f["n"] * log_bound_at_distance(f["sigma2"], f["extra"], distance)
            k = k[log_bound >= log_tau]
        kept_blocks.append(k)
    nodes = _sorted_unique(np.concatenate(kept_blocks)) if kept_blocks else np.zeros(0, dtype=np.int64)
    return SieveResult(
        nodes=nodes,
        modulus=modulus,
        tau=tau,
        radii={f["key"]: f["radius"] for f in factors},
        per_factor_count=per_factor,
        product_count=int(nodes.size),
    )



def _factor_windows(groups, modulus: int, tau: float) -> list[dict]:
    """Each factor's window (radius r_g, half-width w_g in residues), narrowest first: stage 1 of :func:`sieve_nodes`."""
    if not 0 < tau < 1:
        raise ValueError(f"tau must be in (0, 1); got {tau!r}")
    log_tau = math.log(tau)
    n_half = (modulus - 1) // 2
    factors = []
    for (sigma2, c), n in groups:
        if c % modulus == 0:
            raise ValueError(f"modulus {modulus} must not divide the coefficient {c}")
        extra = factor_bound_constant(sigma2)
        log_m_max = math.log(2.0 + extra)
        # r_g: beyond it the factor's own bound n·(log M − σ²d²/2) is below log τ
        r2 = 2 * (log_m_max - log_tau / n) / float(sigma2)
        radius = min(math.pi, math.sqrt(r2))
        half_width = n_half if radius >= math.pi else int(math.floor(radius * modulus / (2 * math.pi)))
        factors.append({"sigma2": float(sigma2), "c": int(c), "n": n, "extra": extra,
                        "radius": radius, "w": min(half_width, n_half), "key": ((sigma2, c), n)})
    factors.sort(key=lambda f: f["w"])
    return factors


def sieve_candidates(groups, modulus: int, tau: float) -> int:
    """The candidate nodes :func:`sieve_nodes` would scan (its narrowest factor's window), computed without
    scanning; :func:`check_sieve_candidates` refuses a count beyond :data:`MAX_SIEVE_CANDIDATES`."""
    return _factor_windows(groups, modulus, tau)[0]["w"] + 1


def sieve_survivors(groups, modulus: int, tau: float) -> float:
    """An estimate of the nodes :func:`sieve_nodes` keeps, computed without scanning: its candidates (the narrowest
    factor's window, :func:`sieve_candidates`) times each other factor's share of the half-period, as if the
    factors' windows fell independently (the tilted contour of budgets 13/17, 7/1000003 and 0.2 at ε = 10: 5.2e6
    for 4.48e6 kept)."""
    factors = _factor_windows(groups, modulus, tau)
    n_half = max((modulus - 1) // 2, 1)
    estimate = float(factors[0]["w"] + 1)
    for f in factors[1:]:
        estimate *= min(1.0, (f["w"] + 1) / n_half)
    return estimate


def check_sieve_candidates(count: int, modulus: int, tau: float) -> None:
    """``ResourceLimitError`` when the sieve would scan ``count`` candidates, more than :data:`MAX_SIEVE_CANDIDATES`
    (``ACCOUNTLIB_MAX_SIEVE_CANDIDATES``)."""
    limit = resource_limit("ACCOUNTLIB_MAX_SIEVE_CANDIDATES", MAX_SIEVE_CANDIDATES)
    if count > limit:
        raise ResourceLimitError(
            f"the sieve would scan {count:.3g} candidate nodes (N = {modulus:.3g}, tau {tau:.3g}), "
            f"above the limit of {limit:.3g}: the lattice is too fine for this accuracy; loosen the tolerance, use "
            f"budgets with smaller denominators, or raise ACCOUNTLIB_MAX_SIEVE_CANDIDATES")

def mulmod(values: np.ndarray, factor: int, modulus: int) -> np.ndarray:
    """(values · factor) mod N without int64 overflow (falls back to Python ints for huge products)."""
    if modulus < 2**31 and abs(factor) % modulus < 2**31:
        return np.mod(values * (factor % modulus), modulus)
    return np.array([(int(v) * factor) % modulus for v in values], dtype=np.int64)


def scan_nodes(groups, modulus: int, tau: float) -> np.ndarray:
    """The paper's sieve done by brute force: test every k in [0, (N−1)/2] per factor.

    A faithful re-implementation of the sieve paper's Algorithm 1 as its code
    runs it (a scan over all nodes with the per-factor radii), used by
    ``paths.method == "paper"`` and the benchmarks. Returns the same stage-1 set as
    :func:`sieve_nodes` with ``product=False``.
    """
    n_half = (modulus - 1) // 2
    log_tau = math.log(tau)
    keep_blocks = []
    for start in range(0, n_half + 1, _CHUNK):
        k = np.arange(start, min(n_half + 1, start + _CHUNK), dtype=np.int64)
        mask = np.ones(k.size, dtype=bool)
        for (sigma2, c), n in groups:
            extra = factor_bound_constant(sigma2)
            radius = math.sqrt(max(0.0, 2 * (math.log(2.0 + extra) - log_tau / n) / float(sigma2)))
            if radius >= math.pi:
                continue
            w = int(math.floor(radius * modulus / (2 * math.pi)))
            mask &= folded_distance(mulmod(k, int(c), modulus), modulus) <= w
        keep_blocks.append(k[mask])
    return np.concatenate(keep_blocks)


def algorithm1_count(lattice, accuracy: float, *, modulus: int | None = None, dps: int = 80) -> dict:
    """|C| of the sieve paper's Algorithm 1 as its §4 counts it, for comparison with the printed 203.

    Like for like with the paper (§4, Step 1, Step 3 and Step 4, eq. (4.5)): U = ⌈L·sqrt(−2Σa_i²σ_i²·log(Δ/8))⌉,
    N = 2(U+1) + ⌈dL·log(2dL)⌉ (unless ``modulus`` is given), nodes ζ_k = 2πk/N for k = 1, …, N (the
    whole circle, both halves), and a node survives when, for every factor, the distance of c_g·ζ_k to
    2πZ is at most the radius r_g at which the factor falls to Δ/(8U). The factor of a group of n_g
    identical mechanisms is taken as φ_{σ_g}(c_g ζ)^{n_g} and r_g is found from the *exact* characteristic
    function (bisection at ``dps`` digits), not from the rigorous bound the engine uses; with one factor per
    mechanism instead (n_g = 1) the count is far larger (``per_mechanism`` in the result).

    This is a count for the record, not part of the engine: :func:`sieve_nodes` keeps the half circle
    k ∈ [0, (N−1)/2] with a prime N ≥ 2U + 2 and radii from a rigorous upper bound on |φ|.

    Returns ``{"accuracy", "U", "N", "tau", "count", "half_count", "per_mechanism"}``:
    ``count`` over k = 1..N, ``half_count`` over 1 ≤ k < N/2, ``per_mechanism`` the whole-circle count
    with n_g = 1.
    """
    def count(powers):
        cut, modulus_used, tau, radii = algorithm1_filters(lattice, accuracy, modulus, dps, powers=powers)
        total = half = 0
        for start in range(1, modulus_used + 1, _CHUNK):
            k = np.arange(start, min(modulus_used + 1, start + _CHUNK), dtype=np.int64)
            for c, r in radii:
                if k.size and r < math.pi:
                    k = k[within_filter(k, c, r, modulus_used)]
            total += k.size
            half += int(np.count_nonzero(2 * k < modulus_used))
        return cut, modulus_used, tau, total, half

    cut, modulus, tau, total, half = count(True)
    return {"accuracy": accuracy, "U": cut, "N": modulus, "tau": tau, "count": total, "half_count": half,
            "per_mechanism": count(False)[3]}


def within_filter(k: np.ndarray, c: int, radius: float, modulus: int) -> np.ndarray:
    """Which nodes ζ_k = 2πk/N of Algorithm 1 pass a factor's filter: the distance of c·ζ_k to 2πℤ is at most
    ``radius``."""
    return folded_distance(mulmod(k, c, modulus), modulus) * (2 * math.pi / modulus) <= radius


def algorithm1_filters(lattice, accuracy: float, modulus, dps: int, *, powers: bool = True):
    """U, N, τ = Δ/(8U) and each group's (c_g, radius) of :func:`algorithm1_count`'s filters (the radius where
    φ_{σ_g}(c_g ζ)^{n_g} falls to τ; with ``powers`` False, where φ_{σ_g}(c_g ζ) alone does: one filter per mechanism)."""
    import mpmath

    from .characteristic import cf

    if not 0 < accuracy < 1:
        raise ValueError(f"accuracy must be in (0, 1); got {accuracy!r}")
    variance = float(lattice.variance_proxy)  # = L²·Σ a_i²σ_i²
    cut = math.ceil(math.sqrt(-2 * variance * math.log(accuracy / 8)))
    if modulus is None:
        dl = math.sqrt(variance / (-2 * math.log(accuracy / 8)))  # d·L
        modulus = 2 * (cut + 1) + math.ceil(dl * math.log(2 * dl))
    if not isinstance(modulus, int) or modulus < 2:
        raise ValueError(f"modulus must be an integer >= 2; got {modulus!r}")
    tau = accuracy / (8 * cut)

    def radius(sigma2, power):
        with mpmath.workdps(dps):
            log_tau = mpmath.log(tau)
            excess = lambda r: power * mpmath.log(cf(r, sigma2, dps=dps)) - log_tau
            if excess(mpmath.pi) >= 0:
                return math.pi
            # φ decreases on (0, π): the radius where the factor falls to τ, by 64 halvings
            _, high = bisect(lambda r: not excess(r) > 0, mpmath.mpf(0), mpmath.pi, steps=64)
            return float(high)

    return cut, modulus, tau, [(int(c), radius(s2, n if powers else 1)) for (s2, c), n in lattice.groups]


def algorithm1_stages(lattice, accuracy: float, orders, *, modulus: int | None = None, dps: int = 80) -> list[dict]:
    """How fast Algorithm 1's candidate set shrinks when its filters run in a given order (sieve paper §4, Step 4).

    The filters are those of :func:`algorithm1_count` (one per group of identical mechanisms, the radius where
    φ_{σ_g}(c_g ζ)^{n_g} falls to Δ/(8U), nodes k = 1..N). ``orders`` is a list of orders, each a list of indices
    into ``lattice.groups`` or ``"largest"`` / ``"smallest"`` (σ² decreasing / increasing, the paper's order being
    the first). For each order: ``survivors``, the number of candidates left after each filter, and ``work``,
    the number of node tests the filters make in all (N for the first, then the survivors of each filter for the
    next). The final set is the same for every order; the paper says that starting from the largest σ² "provides
    the fastest reduction in the set of Candidate Nodes".
    """
    cut, modulus, tau, radii = algorithm1_filters(lattice, accuracy, modulus, dps)
    groups = list(lattice.groups)
    by_variance = sorted(range(len(groups)), key=lambda i: groups[i][0][0], reverse=True)
    out = []
    for order in orders:
        if order == "largest":
            order = by_variance
        elif order == "smallest":
            order = by_variance[::-1]
        order = [int(i) for i in order]
        if sorted(order) != list(range(len(groups))):
            raise ValueError(f"an order must list every group index 0..{len(groups) - 1} once; got {order!r}")
        survivors = [0] * len(order)
        for start in range(1, modulus + 1, _CHUNK):
            k = np.arange(start, min(modulus + 1, start + _CHUNK), dtype=np.int64)
            for step, index in enumerate(order):
                c, r = radii[index]
                if k.size and r < math.pi:
                    k = k[within_filter(k, c, r, modulus)]
                survivors[step] += k.size
        out.append({"order": order, "survivors": survivors, "work": modulus + sum(survivors[:-1])})
    return out


def algorithm1_dropped_mass(lattice, accuracy: float, *, modulus: int | None = None, dps: int = 80) -> dict:
    """What the nodes Algorithm 1 drops contribute to the trapezoidal sum (sieve paper §4, Step 4: at most Δ/4).

    The nodes, filters and U of :func:`algorithm1_count`. With F(ζ) = (1/2π)Σ_{t=lo}^{U} e^{−iζt}Π_i f_i(ζ)
    (Step 2), the dropped nodes change (2π/N)Σ_k F(ζ_k) by at most
    (1/N)Σ_{k∉C} min(2U + 1, 1/|sin(πk/N)|)·Π_g |φ_{σ_g}(c_g ζ_k)|^{n_g}, for every threshold lo ≥ −U (the
    geometric sum's modulus is at most its length and at most 1/|sin(ζ/2)|). The product is evaluated in float64
    (:func:`accountlib.engine.characteristic.log_cf`, absolute error ~1e-15 in log φ), so the result is an
    estimate to about 1e-12 relative, not a certified bound.

    Returns ``{"accuracy", "U", "N", "kept", "dropped", "mass", "largest_term"}``.
    """
    from .characteristic import log_cf

    cut, modulus, tau, radii = algorithm1_filters(lattice, accuracy, modulus, dps)
    groups = list(lattice.groups)
    mass, largest, kept = 0.0, 0.0, 0
    for start in range(1, modulus + 1, _CHUNK):
        k = np.arange(start, min(modulus + 1, start + _CHUNK), dtype=np.int64)
        keep = np.ones(k.size, dtype=bool)
        for c, r in radii:
            if r < math.pi:
                keep &= within_filter(k, c, r, modulus)
        kept += int(np.count_nonzero(keep))
        gone = k[~keep]
        log_product = np.zeros(gone.size)
        for ((sigma2, c), n) in groups:
            value, _ = log_cf(mulmod(gone, int(c), modulus), modulus, sigma2)
            log_product += n * value
        sine = np.abs(np.sin(np.pi * gone.astype(float) / modulus))
        length = np.minimum(2 * cut + 1, np.where(sine > 0, 1 / np.maximum(sine, 1e-300), 2 * cut + 1))
        terms = length * np.exp(log_product) / modulus
        if terms.size:
            mass += float(terms.sum())
            largest = max(largest, float(terms.max()))
    return {"accuracy": accuracy, "U": cut, "N": modulus, "kept": kept, "dropped": modulus - kept, "mass": mass,
            "largest_term": largest}
