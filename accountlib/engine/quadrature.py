"""Truncation, node counts and the trapezoidal (DFT) sum for lattice tail probabilities.

Engine layer of :mod:`accountlib`. For S_L = Σ c_i X_i on Z with characteristic
function φ_S(ζ) = Π_i φ_{σ_i}(c_i ζ) (real and even),

    P(lo ≤ S_L ≤ U) ≈ (1/N) Σ_{k=0}^{N-1} φ_S(ζ_k) D(ζ_k),   ζ_k = 2πk/N,
    D(ζ) = Σ_{t=lo}^{U} cos(ζt) = [sin((U+½)ζ) − sin((lo−½)ζ)] / (2 sin(ζ/2)),

(sieve paper §4, Prop. 4.1 and Lemma 4.3; book, Derivations §4). The trapezoidal sum is
exact up to aliasing: it returns Σ_t Σ_j P(S_L = t + jN), so N ≥ 2U + 2 keeps
the aliased mass inside P(|S_L| > U). U comes from the sub-Gaussian bound
P(S_L > U) ≤ exp(−U²/2V), V = Σ c_i²σ_i².

Here N is taken *prime*: then every c_i is invertible mod N, which lets the
sieve list the nodes near each peak directly (``accountlib.engine.sieve``).
"""

from __future__ import annotations

import math
import operator
from fractions import Fraction

import mpmath
from flint import fmpz

from .characteristic import cf

__all__ = [
    "truncation_point",
    "truncation_mass_bound",
    "node_count",
    "trapezoid_pmf_error_bound",
    "trapezoid_pmf_strip_bound",
    "trapezoid_window_error_bound",
    "characteristic_function",
    "dft_pmf",
    "lattice_nodes",
    "lattice_candidates",
    "lattice_survivors",
]


def truncation_point(variance_proxy: Fraction, accuracy: float) -> int:
    """U = ceil(sqrt(2V log(8/Δ))): then P(|S_L| > U) ≤ 2·exp(−U²/2V) ≤ Δ/4 (book, Derivations §4).

    >>> truncation_point(Fraction(100), 1e-10)  # sqrt(200·log(8e10)) = 70.6…
    71
    """
    if not 0 < accuracy < 1:
        raise ValueError(f"accuracy must be in (0, 1); got {accuracy!r}")
    return math.ceil(math.sqrt(2 * float(variance_proxy) * math.log(8 / accuracy)))


def truncation_mass_bound(variance_proxy: Fraction, cut: int) -> float:
    """A rigorous upper bound on P(S_L > cut) = P(S_L < −cut): exp(−cut²/2V), rounded up."""
    if cut <= 0:
        return 1.0
    exponent = cut * cut / (2 * float(variance_proxy))
    return math.exp(-exponent * (1 - 1e-12)) * (1 + 1e-12)


def node_count(cut: int) -> int:
    """The smallest prime N ≥ 2U + 2 (aliasing then stays outside [−U, U]).

    >>> node_count(71)  # 2·71 + 2 = 144 → the next prime
    149
    """
    n = 2 * cut + 2
    while not fmpz(n).is_prime():
        n += 1
    return n


# -- the lattice engines' cost, estimated (what the front door's choice of engine reads) ----------------------------

def lattice_candidates(lattice, accuracy: float = 1e-30) -> float:
    """An estimate of the candidate nodes the lattice engines' sieve scans for ``lattice`` at Δ = ``accuracy``:
    N·r/2π, N ≈ 2√(2V log(1/Δ)) nodes (V the lattice's variance proxy) and r the smallest per-factor radius
    √(2(log 2 + log(1/Δ)/n)/σ²) (:func:`accountlib.engine.sieve.sieve_nodes`). With :func:`lattice_nodes`, what
    chooses between the lattice and the smoothed engine (:data:`accountlib.theory.engine_choice.LATTICE_UP_TO`).

    >>> from accountlib.engine.lattice import lattice_of
    >>> round(lattice_candidates(lattice_of([(Fraction(1, 2), 1), (Fraction(1, 3), 1)])))   # of N ≈ 37 nodes
    26
    """
    log_inv = math.log(1 / accuracy)
    nodes = lattice_nodes(lattice, accuracy)
    radius = min(min(math.pi, math.sqrt(2 * (math.log(2) + log_inv / n) / float(s2))) for (s2, _), n in lattice.groups)
    return nodes * radius / (2 * math.pi)


def lattice_survivors(lattice, accuracy: float = 1e-30) -> float:
    """An estimate of the nodes the sieve keeps for ``lattice`` at Δ = ``accuracy`` (those the arb evaluation then
    costs, times its working bits): N·Π_g min(1, r_g/π), N ≈ :func:`lattice_nodes` and r_g each factor's radius of
    :func:`lattice_candidates` — the share of the nodes near every factor's peaks at once, as if the factors'
    peaks fell independently. Measured against the sieve at Δ = 1e-30: within a factor 2 above (1.95e7 for 1.07e7
    kept, budgets 13/17, 7/1000003, 0.2; 3.5e6 for 2.0e6, budgets 13/17, 7/1000003; 2.1e5 for 1.6e5, DHC pair (6, 6))
    or below it where few nodes survive at all (2.6e4 for 1,303, DHC pair (31, 36)).

    >>> from accountlib.engine.lattice import lattice_of
    >>> lattice_survivors(lattice_of([(Fraction(1, 2), 1), (Fraction(1, 3), 1)])) == lattice_nodes(
    ...     lattice_of([(Fraction(1, 2), 1), (Fraction(1, 3), 1)]))                  # wide factors drop nothing
    True
    """
    log_inv = math.log(1 / accuracy)
    share = 1.0
    for (s2, _), n in lattice.groups:
        share *= min(1.0, math.sqrt(2 * (math.log(2) + log_inv / n) / float(s2)) / math.pi)
    return lattice_nodes(lattice, accuracy) * share


def lattice_nodes(lattice, accuracy: float = 1e-30) -> float:
    """N ≈ 2√(2V log(1/Δ)), the lattice engines' node count for ``lattice`` at Δ = ``accuracy`` (an estimate)."""
    return 2 * math.sqrt(2 * float(lattice.variance_proxy) * math.log(1 / accuracy))


def trapezoid_pmf_error_bound(variance_proxy: Fraction, t: int, nodes: int) -> float:
    """The Trefethen–Weideman bound for P(S_L = t) by the N-node trapezoidal rule, optimised over the strip.

    P(S_L = t) = (1/2π)∫ φ_S(ζ)e^{−iζt}dζ. On |Im ζ| ≤ a the integrand is bounded by
    M(a) = e^{a²V/2 + a|t|} (sub-Gaussianity of S_L, V = Σc_i²σ_i²), so the error is at
    most 2M(a)/(e^{aN} − 1) for every a > 0 (:func:`trapezoid_pmf_strip_bound`: Trefethen & Weideman's
    4πM/(e^{aN} − 1) with the 1/2π prefactor). The minimising a ≈ (N − |t|)/V gives roughly 2e^{−(N−|t|)²/2V}:
    faster than exponential in N, because φ_S is entire.
    """
    v = float(variance_proxy)
    strips = (max((nodes - abs(t)) / v, 1e-12) * f for f in (0.5, 0.8, 0.9, 1.0, 1.1, 1.25, 2.0))
    return min(trapezoid_pmf_strip_bound(variance_proxy, t, nodes, a) for a in strips)


def trapezoid_pmf_strip_bound(variance_proxy: Fraction, t: int, nodes: int, strip_half_width: float) -> float:
    """The Trefethen–Weideman bound for P(S_L = t) by the N-node trapezoidal rule on *one* strip |Im ζ| < a.

    Trefethen & Weideman (2014), Thm 3.2, as the sieve paper's Lemma 4.3 uses it: a 2π-periodic
    integrand analytic in the strip |Im ζ| < a and bounded there by M is integrated by the N-node
    trapezoidal rule with error at most 4πM/(e^{aN} − 1). For P(S_L = t) = (1/2π)∫ φ_S(ζ)e^{−iζt}dζ
    the integrand on |Im ζ| ≤ a is bounded by M(a) = e^{a²V/2 + a|t|}, because
    |φ_S(x + iy)| ≤ E e^{−yS_L} ≤ e^{y²V/2} (sub-Gaussianity of S_L with variance proxy
    V = Σc_i²σ_i², sieve paper Prop. 4.1) and |e^{−iζt}| = e^{yt}. With the 1/2π prefactor the bound is

        2·e^{a²V/2 + a|t|} / (e^{aN} − 1),

    exponentially small in N for this fixed a (a straight line on a log scale).
    :func:`trapezoid_pmf_error_bound` takes the best a for each N. Returns a float64: a bound below
    the float range is returned as 5e-324 (the smallest positive float) rather than 0, one above it
    as ``math.inf``. Bad input raises ValueError naming the argument.

    >>> b = trapezoid_pmf_strip_bound(Fraction(189), 0, 64, 0.5)  # 2·e^{23.625}/(e^{32} − 1)
    >>> abs(b / (2 * math.exp(23.625) / math.expm1(32)) - 1) < 1e-12
    True
    """
    v = float(variance_proxy)
    if not v > 0:
        raise ValueError(f"variance_proxy must be a positive number V = Σc_i²σ_i²; got {variance_proxy!r}")
    try:
        n = operator.index(nodes)
    except TypeError:
        n = 0
    if isinstance(nodes, bool) or n < 1:
        raise ValueError(f"nodes must be a positive integer (the number N of trapezoidal nodes); got {nodes!r}")
    a = float(strip_half_width)
    if not (a > 0 and math.isfinite(a)):
        raise ValueError(f"strip_half_width must be a finite number a > 0 (the strip |Im ζ| < a); "
                         f"got {strip_half_width!r}")
    exponent = a * a * v / 2 + a * abs(t)
    if a * n > 700:  # e^{aN} − 1 = e^{aN} to double precision
        log_bound = math.log(2) + exponent - a * n
    elif exponent > 700:
        log_bound = math.log(2) + exponent - math.log(math.expm1(a * n))
    else:
        return 2 * math.exp(exponent) / math.expm1(a * n)
    return math.exp(max(log_bound, -745)) if log_bound < 709 else math.inf


def trapezoid_window_error_bound(variance_proxy: Fraction, cut: int, nodes: int) -> dict:
    """Lemma 4.3 of the sieve paper applied to its whole integrand: the N-node trapezoidal error of
    ∫F(ζ)dζ with F(ζ) = (1/2π)Σ_{t=lo}^{U} e^{−iζt}φ_S(ζ) (§4, Step 2), for every threshold lo ≥ −U.

    On the strip |Im ζ| ≤ a, |φ_S| ≤ e^{a²V/2} (sub-Gaussianity, V = ``variance_proxy``) and
    |Σ_t e^{−iζt}| ≤ Σ_{t=−U}^{U} e^{a|t|} = 1 + 2e^{a}(e^{aU} − 1)/(e^{a} − 1), so M(a) is (1/2π) times their
    product and the error is at most 4πM(a)/(e^{aN} − 1) (Trefethen & Weideman 2014, Thm 3.2, as Lemma 4.3
    states it). Returns ``{"bound", "strip"}``: the least bound over a (log-spaced grid of 2001 a in
    [1e-3, 10]·(N − U)/V, the neighbourhood of the minimiser) and the a attaining it. A float64 evaluation, in
    logarithms.

    >>> b = trapezoid_window_error_bound(Fraction(100), 70, 400)
    >>> 0 < b["bound"] < 1e-100
    True
    """
    v = float(variance_proxy)
    if not v > 0:
        raise ValueError(f"variance_proxy must be a positive number V = Σc_i²σ_i²; got {variance_proxy!r}")
    cut, n = operator.index(cut), operator.index(nodes)
    if cut < 0 or n <= cut:
        raise ValueError(f"need 0 <= cut < nodes; got cut={cut!r}, nodes={nodes!r}")
    centre = (n - cut) / v
    best = (math.inf, centre)
    for a in (centre * 10 ** (k / 500 - 3) for k in range(2001)):
        if a * cut < 700:
            log_sum = math.log1p(2 * math.exp(a) * math.expm1(a * cut) / math.expm1(a))
        else:
            log_sum = math.log(2) + a * cut + a - math.log(math.expm1(a))
        log_m = a * a * v / 2 + log_sum - math.log(2 * math.pi)
        log_bound = math.log(4 * math.pi) + log_m - a * n - math.log1p(-math.exp(-a * n))
        if log_bound < best[0]:
            best = (log_bound, a)
    return {"bound": math.exp(best[0]) if best[0] < 709 else math.inf, "strip": best[1]}


def characteristic_function(groups, zeta, *, dps: int = 30):
    """φ_S(ζ) = Π_g φ_{σ_g}(c_g ζ)^{n_g} for ``Lattice.groups`` (mpmath, dual/direct form chosen per factor)."""
    with mpmath.workdps(dps + 10):
        value = mpmath.mpf(1)
        for (sigma2, c), n in groups:
            value *= cf(c * zeta, sigma2, dps=dps + 10) ** n
    return +value


def dft_pmf(groups, points, nodes: int, *, dps: int = 30) -> list:
    """P(S_L = t) for t in ``points`` by the N-node trapezoidal rule (the DFT identity), no sieve.

    Returns Σ_j P(S_L = t + jN) exactly up to rounding — the aliased pmf —
    since (1/N) Σ_k e^{2πik(s−t)/N} is 1 when s ≡ t (mod N) and 0 otherwise.
    For teaching and tests on small lattices: cost N × (number of factors).
    """
    with mpmath.workdps(dps + 10):
        zetas = [2 * mpmath.pi * k / nodes for k in range(nodes)]
        phis = [characteristic_function(groups, z, dps=dps) for z in zetas]
        return [+(mpmath.fsum(p * mpmath.cos(z * t) for p, z in zip(phis, zetas)) / nodes) for t in points]
