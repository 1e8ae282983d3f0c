"""Conversions between Rényi/zCDP guarantees and (ε, δ) or trade-off guarantees.

Used by the census chapter (the zCDP-implied curves) and by :mod:`accountlib.rdp`
(unifying paper §3.2; book, Derivations §8).

* ``rdp_to_epsilon`` — C_δ[U] = inf_{α>1} {U_α − (log δ + log α)/(α−1) + log((α−1)/α)}
  (Balle et al. 2020, Thm 21; the conversion AutoDP uses), for an RDP curve U.
* ``zcdp_epsilon`` — ε_zCDP(δ) = ρ + 2·sqrt(ρ log(1/δ)) (Bun & Steinke 2016, Prop. 1.3),
  what the Census Bureau reports.
* ``approxdp_to_tradeoff`` — the trade-off curve implied by a family of (ε(δ), δ)
  guarantees: f(α) = sup_δ max(0, 1 − δ − e^{ε(δ)}α, e^{−ε(δ)}(1 − δ − α))
  (Dong, Roth & Su 2022, Prop. 2.12; AutoDP's ``approxdp_to_fdp``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize_scalar

__all__ = ["minimize_on_grid", "rdp_to_epsilon", "zcdp_epsilon", "zcdp_rdp_epsilon", "approxdp_to_tradeoff"]


def _check_delta(delta: float, name: str = "delta") -> float:
    try:
        value = float(delta)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a number in (0, 1); got {delta!r}") from None
    if isinstance(delta, bool) or not 0 < value < 1:
        raise ValueError(f"{name} must be in (0, 1); got {delta!r}")
    return value


def _check_rho(rho, name: str = "rho") -> float:
    try:
        value = float(rho)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a finite number >= 0; got {rho!r}") from None
    if isinstance(rho, bool) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0; got {rho!r}")
    return value


def rdp_to_epsilon(rdp, delta: float, *, alpha_max: float = 1e6) -> float:
    """C_δ[U] = inf_{α>1} {U(α) − (log δ + log α)/(α − 1) + log((α − 1)/α)} for an RDP curve U(α).

    ``rdp`` is a callable α ↦ U(α) (order α > 1). The infimum is found by a
    bounded scalar minimisation over log(α − 1), started from a coarse grid, so
    non-smooth or flat curves are handled.

    >>> round(rdp_to_epsilon(lambda a: 0.5 * a, 1e-5), 4)  # ρ-zCDP with ρ = 1/2
    4.7284
    """
    delta = _check_delta(delta)
    if not callable(rdp):
        raise ValueError(f"rdp must be a callable alpha -> U(alpha); got {rdp!r}")
    if isinstance(alpha_max, bool) or not isinstance(alpha_max, (int, float)) or not 2 <= alpha_max <= 1e12:
        raise ValueError(f"alpha_max must be a number in [2, 1e12]; got {alpha_max!r}")
    log_delta = math.log(delta)

    def objective(log_alpha_minus_one: float) -> float:
        alpha = 1 + math.exp(log_alpha_minus_one)
        value = rdp(alpha)
        if not math.isfinite(value):
            return math.inf
        return value - (log_delta + math.log(alpha)) / (alpha - 1) + math.log((alpha - 1) / alpha)

    return minimize_on_grid(objective, np.linspace(math.log(1e-4), math.log(alpha_max), 200))


def minimize_on_grid(objective, grid) -> float:
    """min of ``objective`` over a sorted 1-D ``grid``, refined by a bounded scalar search between the
    neighbours of the best grid point; never above the best grid value. Points where the objective
    raises an overflow or domain error count as +inf."""

    def safe(x):
        try:
            value = objective(float(x))
        except (OverflowError, FloatingPointError, ValueError):
            return math.inf
        return value if not math.isnan(value) else math.inf

    values = [safe(x) for x in grid]
    best = int(np.argmin(values))
    lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
    result = minimize_scalar(safe, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12})
    return float(min(result.fun, values[best]))


def zcdp_epsilon(rho: float, delta: float) -> float:
    """ε_zCDP(δ) = ρ + 2·sqrt(ρ log(1/δ)): the Bureau's conversion of ρ-zCDP."""
    delta = _check_delta(delta)
    rho = _check_rho(rho)
    # log(1/δ) as the census grid was built (bit for bit); −log δ only where 1/δ overflows (subnormal δ)
    epsilon = rho + 2 * math.sqrt(rho * (math.log(1 / delta) if delta >= 1e-300 else -math.log(delta)))
    if not math.isfinite(epsilon):
        raise ValueError(f"rho={rho!r} is too large: ε_zCDP overflows a float (ρ + 2√(ρ log(1/δ)) must stay below 1.8e308)")
    return epsilon


def zcdp_rdp_epsilon(rho: float, delta: float) -> float:
    """ε of ρ-zCDP through the RDP conversion C_δ (tighter than :func:`zcdp_epsilon`)."""
    rho = _check_rho(rho)
    return rdp_to_epsilon(lambda alpha: rho * alpha, delta)


def approxdp_to_tradeoff(epsilon_of_delta, alphas, *, deltas=None) -> np.ndarray:
    """The trade-off curve implied by the family of (ε(δ), δ)-DP guarantees, at each α.

    f(α) = sup_δ max(0, 1 − δ − e^{ε(δ)}α, e^{−ε(δ)}(1 − δ − α)); the sup runs over
    ``deltas`` (default 2000 log-spaced values in [1e-80, 0.999]).
    """
    if deltas is None:
        deltas = np.logspace(-80, math.log10(0.999), 2000)
    alphas = np.asarray(alphas, dtype=float)
    best = np.zeros_like(alphas)
    for delta in deltas:
        eps = epsilon_of_delta(float(delta))
        growth = math.exp(min(eps, 700))
        best = np.maximum(best, np.maximum(1 - delta - growth * alphas, (1 - delta - alphas) / growth))
    return best
