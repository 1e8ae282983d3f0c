"""The lattice Edgeworth expansion for sums of discrete Gaussians, and its discrepancy.

Theory layer of :mod:`accountlib` (sieve paper §6 and Appendix D; the book's derivations appendix). For
S_m = Σ_{i≤m} X_i / B_m with X_i ~ N_Z(0, σ²) i.i.d. and B_m² = Var(Σ X_i) = m·Var X, the local expansion
on the lattice (1/B_m)·Z reads

    P(S_m = y) ≈ (1/B_m)·φ(y)·(1 + λ4/(24m)·(3 − 6y² + y⁴)),   φ the standard normal density,

with λ4 = κ4/κ2² (odd cumulants vanish by symmetry). κ4 is *positive* for every σ² (the discrete Gaussian
is leptokurtic: κ4 ≈ 2e^{−1/(2σ²)} for small σ², ≈ 2(2πσ²)⁴e^{−2π²σ²} for large), so the first correction
lifts the pmf above the normal density at the centre and in the tails and lowers it around |y| ≈ 1.7.
R_m(y) is the absolute difference from the exact pmf, computed here by exact convolution (no Fourier
analysis). :func:`oscillation` compares the first correction with the exact discrepancy point by point;
:func:`discrete_continuous_gap` builds the chapter's heat map of discrete versus continuous Gaussian
composition; :func:`gdp_delta` is the Gaussian-DP closed form for composed continuous Gaussian mechanisms.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from ..engine import discrete_gaussian as dg
from ..infrastructure.numbers import as_fraction
from .gaussian_dp import gaussian_epsilon, gaussian_profile

__all__ = ["exact_sum_pmf", "edgeworth_local", "normal_local", "remainders",
           "oscillation", "gdp_delta", "gdp_epsilon_for_delta", "discrete_continuous_gap", "composition_vs_gdp",
           "rule_of_thumb_holds", "remainder_slopes", "RULE_OF_THUMB_CONSTANT"]


def exact_sum_pmf(sigma2, m: int, *, dps: int | None = 30) -> tuple[int, list]:
    """(lowest, values): P(Σ_{i≤m} X_i = lowest + j) by exact convolution (mpmath at ``dps`` digits;
    ``dps=None``: float64, accurate to ~1e-16 absolute, enough when the remainders are far larger)."""
    if int(m) != m or m < 1:
        raise ValueError(f"m must be a positive integer; got {m!r}")
    return dg.lattice_sum_pmf([sigma2] * int(m), dps=dps)


def normal_local(y, b_m: float):
    """(1/B_m)·φ(y), the plain normal local approximation."""
    y = np.asarray(y, dtype=float)
    return np.exp(-y * y / 2) / math.sqrt(2 * math.pi) / b_m


def edgeworth_local(y, b_m: float, lambda4: float, m: int):
    """(1/B_m)·φ(y)·(1 + λ4/(24m)(3 − 6y² + y⁴)), the first-order lattice Edgeworth expansion (book, Derivations §7)."""
    y = np.asarray(y, dtype=float)
    return normal_local(y, b_m) * (1 + lambda4 / (24 * m) * (3 - 6 * y**2 + y**4))


def remainders(sigma2, m: int, *, dps: int | None = 30) -> dict:
    """R_m(y) on the lattice for the Edgeworth and the plain normal approximations, and their sups.

    Uses λ4 = κ4/κ2² with its sign (positive for the discrete Gaussian, which is leptokurtic), the
    quantity the sieve paper tabulates in Appendix A.1.
    """
    lowest, values = exact_sum_pmf(sigma2, m, dps=dps)
    kappas = dg.cumulants(sigma2, 4, dps=dps or 30)
    variance = float(kappas[1])
    lam4 = float(kappas[3] / kappas[1] ** 2)
    b_m = math.sqrt(m * variance)
    xs = np.arange(lowest, lowest + len(values))
    y = xs / b_m
    exact = np.array([float(v) for v in values])
    edge = np.abs(exact - edgeworth_local(y, b_m, lam4, m))
    normal = np.abs(exact - normal_local(y, b_m))
    return {"y": y, "exact": exact, "edgeworth": edge, "normal": normal, "sup_edgeworth": float(edge.max()),
            "sup_normal": float(normal.max()), "B_m": b_m, "lambda4": lam4}


def remainder_slopes(results, m_values, *, fit_from: int = 16) -> tuple[float, float]:
    """The log-log slopes of sup_y R_m(y) against m, fitted by least squares over the m ≥ ``fit_from``:
    (Edgeworth, plain normal), from the :func:`remainders` of each m in ``m_values`` (``results``, in that
    order). The sieve paper bounds R_m by O(m^{−3/2}) (§1.1 and §6); for a symmetric lattice law the
    Edgeworth remainder falls like m^{−5/2} and the plain normal one like m^{−3/2}.

    >>> rs = [{"sup_edgeworth": m ** -2.5, "sup_normal": 3 * m ** -1.5} for m in (4, 16, 64)]
    >>> [round(float(x), 9) for x in remainder_slopes(rs, [4, 16, 64], fit_from=4)]
    [-2.5, -1.5]
    """
    if len(results) != len(m_values):
        raise ValueError(f"results and m_values must have the same length; got {len(results)} and {len(m_values)}")
    fit = np.array(m_values) >= fit_from
    if fit.sum() < 2:
        raise ValueError(f"fit_from={fit_from!r} leaves fewer than two values of m to fit a slope to")
    sup_edge = np.array([r["sup_edgeworth"] for r in results])
    sup_normal = np.array([r["sup_normal"] for r in results])
    return (np.polyfit(np.log(np.array(m_values)[fit]), np.log(sup_edge[fit]), 1)[0],
            np.polyfit(np.log(np.array(m_values)[fit]), np.log(sup_normal[fit]), 1)[0])


def oscillation(sigma2, m: int, *, y_max: float = 3.5, dps: int | None = None) -> dict:
    """How well the first Edgeworth correction explains the discrete sum's departure from the normal density.

    On the lattice points with |y| ≤ ``y_max``: ``difference`` = exact pmf − (1/B_m)φ(y), ``term`` =
    (1/B_m)φ(y)·λ4/(24m)(3 − 6y² + y⁴); ``sign_agreement`` is the fraction of points where the two have the
    same sign, ``residual_ratio`` = max|difference − term| / max|difference| (below 1: the term accounts
    for most of the discrepancy), and ``correction_at_centre`` = 3λ4/(24m), the relative size of the term
    at y = 0 (the expansion is asymptotic: it needs this to be small).
    """
    r = remainders(sigma2, m, dps=dps)
    keep = np.abs(r["y"]) <= y_max
    y = r["y"][keep]
    normal = normal_local(y, r["B_m"])
    difference = r["exact"][keep] - normal
    term = edgeworth_local(y, r["B_m"], r["lambda4"], m) - normal
    centre = int(np.argmin(np.abs(y)))
    return {"y": y, "difference": difference, "term": term, "B_m": r["B_m"], "lambda4": r["lambda4"],
            "sign_agreement": float(np.mean(np.sign(difference) == np.sign(term))),
            "residual_ratio": float(np.max(np.abs(difference - term)) / np.max(np.abs(difference))),
            "difference_at_centre": float(difference[centre]), "term_at_centre": float(term[centre]),
            "correction_at_centre": 3 * r["lambda4"] / (24 * m)}


def gdp_delta(epsilon: float, mu: float) -> float:
    """δ(ε) of μ-GDP (composed continuous Gaussians, μ² = Σ 1/σ_i²), at 40 digits, as a float
    (:func:`accountlib.theory.gaussian_dp.gaussian_profile`)."""
    with mpmath.workdps(40):
        return float(gaussian_profile(mpmath.mpf(mu), mpmath.mpf(epsilon)))


def gdp_epsilon_for_delta(delta: float, mu: float) -> float:
    """The ε at which μ-GDP has the given δ (:func:`accountlib.theory.gaussian_dp.gaussian_epsilon`)."""
    return gaussian_epsilon(mu, delta)


def composition_vs_gdp(rhos, epsilon, *, rel_tol: float = 1e-9) -> dict:
    """Exact δ(ε) of the composition of N_Z(0, 1/ρ_i) mechanisms (sensitivity 1) against μ-GDP with
    μ² = Σρ_i, the same composition of continuous Gaussians; ``relative`` = |exact − GDP| / exact.
    The exact δ is certified to ``rel_tol`` (:class:`accountlib.theory.composition.Composition`)."""
    from .composition import Composition

    rhos = [as_fraction(r, "rhos", floats="decimal") for r in rhos]
    eps = as_fraction(epsilon, "epsilon", floats="decimal")
    point = Composition(rhos).delta([eps], rel_tol=rel_tol)[0]
    exact = float(point.delta)
    continuous = gdp_delta(float(eps), math.sqrt(float(sum(rhos))))
    return {"exact": exact, "continuous": continuous, "relative": abs(exact - continuous) / exact,
            "error_bound": float(point.error_bound)}


def discrete_continuous_gap(sigma2_values, m_values, target_delta: float = 1e-6, *, rel_tol: float = 1e-9):
    """The chapter's heat map: for m identical N_Z(0, σ²) mechanisms (sensitivity 1), the relative gap
    |δ_exact(ε) − δ_GDP(ε)| / δ_exact(ε) at the ε where μ-GDP (μ² = m/σ²) gives ``target_delta``.
    Rows follow ``sigma2_values``, columns ``m_values``."""
    gap = np.zeros((len(sigma2_values), len(m_values)))
    for i, s2 in enumerate(sigma2_values):
        for j, m in enumerate(m_values):
            if int(m) != m or m < 1:
                raise ValueError(f"m_values must be positive integers; got {m!r}")
            eps = gdp_epsilon_for_delta(target_delta, math.sqrt(m / float(s2)))
            exact = float(composition_vs_gdp([1 / as_fraction(s2, "sigma2", floats="decimal")] * int(m), repr(eps),
                                             rel_tol=rel_tol)["exact"])
            gap[i, j] = abs(exact - target_delta) / exact
    return gap


RULE_OF_THUMB_CONSTANT = 3.0
"""The chapter's rule of thumb: for σ² ≥ 5 the relative gap stays below this constant over σ², on the grid it was
tested on (σ² ∈ {5, 10, 100, 1000}, m ∈ {1, …, 160}, δ = 1e-3 … 1e-10; the largest gap·σ² there is about 2.5).
It is an observation, not a bound: with the constant 1 it fails already at δ = 1e-8 (σ² = 10, m = 1), and with 3
at δ = 1e-11 (σ² = 5, m = 1)."""


def rule_of_thumb_holds(gap, sigma2_values, *, from_sigma2: float = 5.0,
                        constant: float = RULE_OF_THUMB_CONSTANT) -> bool:
    """True when every row of ``gap`` with σ² ≥ ``from_sigma2`` stays below ``constant``/σ² (the chapter's rule of
    thumb, :data:`RULE_OF_THUMB_CONSTANT`).

    >>> rule_of_thumb_holds([[0.5], [0.187]], [1, 10], constant=3), rule_of_thumb_holds([[0.5], [0.187]], [1, 10], constant=1)
    (True, False)
    """
    if not constant > 0:
        raise ValueError(f"constant must be positive; got {constant!r}")
    gap = np.asarray(gap, dtype=float)
    return bool(all(np.all(gap[i] < constant / float(s2)) for i, s2 in enumerate(sigma2_values)
                    if float(s2) >= from_sigma2))
