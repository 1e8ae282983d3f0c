"""The lattice Edgeworth expansion for sums of discrete Gaussians, and its discrepancy.

Layer 8 of :mod:`accountlib` (sieve paper §6 and Appendix D; book, Derivations §7). For S_m = Σ_{i≤m} X_i / B_m
with X_i ~ N_Z(0, σ²) i.i.d. and B_m² = Var(Σ X_i) = m·Var X, the local expansion on the lattice
(1/B_m)·Z reads

    P(S_m = y) ≈ (1/B_m)·φ(y)·(1 + λ4/(24m)·(3 − 6y² + y⁴)),   φ the standard normal density,

(odd cumulants vanish by symmetry), and R_m(y) is the absolute difference from the exact pmf,
computed here by exact convolution in mpmath (no Fourier analysis). The Gaussian-DP closed form
for composed continuous Gaussian mechanisms is :func:`gdp_delta`.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from . import discrete_gaussian as dg

__all__ = ["standardized_cumulants", "exact_sum_pmf", "edgeworth_local", "normal_local", "remainders",
           "gdp_delta", "gdp_epsilon_for_delta"]


def standardized_cumulants(sigma2, order: int = 6, *, dps: int = 30) -> list:
    """[λ_1, …, λ_order] with λ_r = κ_r / κ_2^{r/2} for one N_Z(0, σ²) (λ_2 = 1, odd ones 0)."""
    kappas = dg.cumulants(sigma2, order, dps=dps)
    with mpmath.workdps(dps + 10):
        return [+(k / kappas[1] ** (mpmath.mpf(r) / 2)) for r, k in enumerate(kappas, 1)]


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

    Uses the *signed* λ4 = κ4/κ2² (negative for the discrete Gaussian: it is platykurtic),
    the quantity whose absolute value the paper tabulates.
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


def gdp_delta(epsilon: float, mu: float) -> float:
    """δ(ε) of μ-GDP (composed continuous Gaussians, μ² = Σ 1/σ_i²): Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)."""
    with mpmath.workdps(40):
        eps, mu = mpmath.mpf(epsilon), mpmath.mpf(mu)
        return float(mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2))


def gdp_epsilon_for_delta(delta: float, mu: float) -> float:
    """The ε at which μ-GDP has the given δ (bisection; δ(ε) is decreasing)."""
    lo, hi = 0.0, 1.0
    while gdp_delta(hi, mu) > delta:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if gdp_delta(mid, mu) > delta:
            lo = mid
        else:
            hi = mid
    return hi
