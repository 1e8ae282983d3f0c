"""Conversions between Rényi/zCDP guarantees and (ε, δ) or trade-off guarantees: each formula once.

Used by the census chapters (the zCDP-implied curves and the sweep's ε grid), by :mod:`accountlib.theory.mechanisms`,
:mod:`accountlib.applications.acs` and DP-SGD (unifying paper §3.2 and §5; book, Derivations §8).

* :func:`rdp_to_epsilon` — C_δ[U] = inf_{α>1} {U(α) − (log δ + log α)/(α−1) + log((α−1)/α)} for an RDP
  curve U (Balle et al. 2020, Thm 21; the conversion AutoDP uses). Written with the privacy-loss CGF
  K(t) = t·U(t+1) it is ε_R = inf_t (K(t) + log c_t − log δ)/t, c_t = t^t/(1+t)^{1+t} (unifying paper §3.2).
* :func:`zcdp_epsilon` — ε_zCDP(δ) = ρ + 2·sqrt(ρ log(1/δ)) (Bun & Steinke 2016, Prop. 1.3): the classical
  bound, the conversion the Census Bureau used for the 2020 DHC and the ε grid of the DHC sweep (its redistricting
  data, P.L. 94-171, were converted by :func:`zcdp_epsilon_via_rdp`); :func:`zcdp_delta` inverts it.
* :func:`zcdp_epsilon_via_rdp` — C_δ of the RDP curve U(α) = ρα of ρ-zCDP, i.e.
  ε_Z = inf_t ρ(t+1) + (log c_t − log δ)/t (unifying paper §3.2): always below :func:`zcdp_epsilon`
  (25.4193 against 26.3406 at ρ = 4.9622, δ = 1e-10); :func:`zcdp_delta_via_rdp` is its inverse,
  δ_zCDP(ε) = inf_t c_t·exp(ρt(t+1) − tε).
* :func:`profile_to_tradeoff` and :func:`approxdp_to_tradeoff` — the trade-off curve implied by (ε, δ)
  guarantees: f(α) = sup max(0, 1 − δ − e^{ε}α, e^{−ε}(1 − δ − α)) (Dong, Roth & Su 2022, Prop. 2.12;
  AutoDP's ``approxdp_to_fdp``), over a list of (ε_k, δ_k) points or a function δ ↦ ε(δ).
* :func:`gaussian_delta` and :func:`gaussian_epsilon` — the same budgets with *continuous* Gaussian noise: a
  composition of Gaussian mechanisms whose zCDP ρ is Σρ_i/2 is μ-GDP with μ = √(2ρ), and its exact privacy
  profile is δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm 8; Dong, Roth & Su 2022,
  Cor. 2.13), evaluated in 30-digit arithmetic; :func:`gaussian_epsilon` inverts it in ε.
"""

from __future__ import annotations

import math
import numbers

import mpmath
import numpy as np

from ..infrastructure.numbers import as_bounded_float, as_nonnegative_float, as_probability
from .gaussian_dp import GAUSSIAN_DPS, gaussian_profile
from .gaussian_dp import gaussian_epsilon as gaussian_epsilon_of_mu

__all__ = ["minimize_on_grid", "rdp_grid", "rdp_floor", "c_t", "rdp_to_epsilon", "zcdp_epsilon", "zcdp_delta", "zcdp_epsilon_via_rdp",
           "zcdp_delta_via_rdp", "profile_to_tradeoff", "approxdp_to_tradeoff", "gaussian_delta", "gaussian_epsilon"]


NEGATIVE_RDP_SLACK = 1e-6
"""How far below 0 :func:`rdp_to_epsilon` lets a curve dip (the rounding of a numerical CGF near α = 1) before
it refuses the curve as no Rényi divergence."""


def rdp_to_epsilon(rdp, delta: float, *, alpha_max: float = 1e6) -> float:
    """C_δ[U] = inf_{α>1} {U(α) − (log δ + log α)/(α − 1) + log((α − 1)/α)} for an RDP curve U(α).

    ``rdp`` is a callable α ↦ U(α) (order α > 1). The infimum is found by a
    bounded scalar minimisation over log(α − 1), started from a coarse grid, so
    non-smooth or flat curves are handled.

    >>> round(rdp_to_epsilon(lambda a: 0.5 * a, 1e-5), 4)  # ρ-zCDP with ρ = 1/2
    4.7284
    """
    delta = as_probability(delta, "delta")
    if not callable(rdp):
        raise ValueError(f"rdp must be a callable alpha -> U(alpha); got {rdp!r}")
    if isinstance(alpha_max, bool) or not isinstance(alpha_max, (int, float)) or not 2 <= alpha_max <= 1e12:
        raise ValueError(f"alpha_max must be a number in [2, 1e12]; got {alpha_max!r}")
    log_delta = math.log(delta)
    negative = []

    def objective(log_alpha_minus_one: float) -> float:
        alpha = 1 + math.exp(log_alpha_minus_one)
        value = rdp(alpha)
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            negative.append((alpha, value))
            return math.inf
        value = float(value)
        if value < -NEGATIVE_RDP_SLACK:  # a Rényi divergence is >= 0; quadrature rounding may dip just below
            negative.append((alpha, value))
        if not math.isfinite(value):
            return math.inf
        return value - (log_delta + math.log(alpha)) / (alpha - 1) + math.log((alpha - 1) / alpha)

    epsilon = minimize_on_grid(objective, rdp_grid(alpha_max))
    if negative:
        alpha, value = negative[0]
        raise ValueError(f"rdp must return a Rényi divergence U(alpha) >= 0 (a real number; -{NEGATIVE_RDP_SLACK:g} "
                         f"is allowed for rounding) at every order alpha > 1; "
                         f"got U({alpha:.6g}) = {value!r}")
    if not math.isfinite(epsilon):
        raise ValueError("rdp gives no finite epsilon: U(alpha) is infinite or overflows at every order alpha in "
                         f"(1, {alpha_max:g}] (a finite RDP curve is needed)")
    # The formula can fall below 0 for a curve near 0 (U ≡ 0: P = Q); (ε, δ) with ε < 0 implies (0, δ), and no
    # ε below 0 is meaningful, so 0 is the certified value there.
    return max(0.0, epsilon)


def rdp_grid(alpha_max: float):
    """The grid of log(α − 1) on which :func:`rdp_to_epsilon` starts its minimisation."""
    return np.linspace(math.log(1e-4), math.log(alpha_max), 200)


def rdp_floor(alpha: float, log_delta: float) -> float:
    """The objective of :func:`rdp_to_epsilon` at α for U(α) = 0, computed as it computes it: a lower bound of the
    objective of any RDP curve (U ≥ 0)."""
    return 0.0 - (log_delta + math.log(alpha)) / (alpha - 1) + math.log((alpha - 1) / alpha)


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
    from scipy.optimize import minimize_scalar  # here: importing scipy.optimize costs a third of a second

    result = minimize_scalar(safe, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12})
    return float(min(result.fun, values[best]))


def c_t(t) -> float:
    """c_t = t^t/(1 + t)^{1+t}, the constant of the sharp tail bound δ ≤ c_t·e^{K(t) − tε} (unifying paper §3.2).

    >>> c_t(1.0)
    0.25
    """
    t = as_nonnegative_float(t, "t")
    if t == 0:
        raise ValueError("t must be > 0; got 0")
    if t <= 1e4:  # the direct form, as the book's tables were computed
        return math.exp(t * math.log(t) - (1 + t) * math.log1p(t))
    # beyond, t·log t and (1+t)·log(1+t) cancel: log c_t = −t·log1p(1/t) − log1p(t), two terms of one sign
    return math.exp(-t * math.log1p(1 / t) - math.log1p(t))


def zcdp_epsilon(rho, delta) -> float:
    """ε_zCDP(δ) = ρ + 2·sqrt(ρ log(1/δ)): the classical (ε, δ) implied by ρ-zCDP (Bun & Steinke 2016,
    Prop. 1.3): the conversion the Census Bureau used for the 2020 DHC, and the ε grid of the DHC sweep. (The
    Bureau's redistricting data, P.L. 94-171, used the tighter :func:`zcdp_epsilon_via_rdp`: Canonne, Kamath and
    Steinke 2020, Cor. 13.)

    ``rho`` ≥ 0 and ``delta`` ∈ (0, 1) may be ints, floats, ``Fraction`` or ``Decimal`` values, mpf or strings
    (:func:`accountlib.infrastructure.numbers.as_float`); a ρ whose ε overflows a float raises ValueError.
    :func:`zcdp_epsilon_via_rdp` is the tighter conversion of the same guarantee.

    >>> round(zcdp_epsilon("4.9622", 1e-10), 4)
    26.3406
    """
    delta = as_probability(delta, "delta")
    rho = as_nonnegative_float(rho, "rho")
    # log(1/δ), not −log δ: the two differ in the last bit for some δ, and the census ε grid is built on this
    # form (its files must be reproducible bit for bit); −log δ only where 1/δ would overflow (subnormal δ)
    epsilon = rho + 2 * math.sqrt(rho * (math.log(1 / delta) if delta >= 1e-300 else -math.log(delta)))
    if not math.isfinite(epsilon):
        raise ValueError(f"rho={rho!r} is too large: ε_zCDP overflows a float (ρ + 2√(ρ log(1/δ)) must stay below 1.8e308)")
    return epsilon


def zcdp_delta(epsilon, rho) -> float:
    """The δ at which :func:`zcdp_epsilon` gives ``epsilon``: δ = exp(−(ε − ρ)²/(4ρ)) for ε > ρ, and 1 for
    ε ≤ ρ (Bun & Steinke 2016, Prop. 1.3, inverted).

    >>> round(zcdp_delta(zcdp_epsilon(0.5, 1e-6), 0.5), 12)
    1e-06
    """
    epsilon = as_nonnegative_float(epsilon, "epsilon")
    rho = as_nonnegative_float(rho, "rho")
    if epsilon <= rho:
        return 1.0
    if rho == 0:  # 0-zCDP: ε_zCDP(δ) = 0 at every δ, so δ(ε) = 0 for ε > 0
        return 0.0
    try:
        return math.exp(-((epsilon - rho) ** 2) / (4 * rho))
    except OverflowError:  # (ε − ρ)² beyond float range: δ underflows
        return 0.0


def zcdp_epsilon_via_rdp(rho, delta) -> float:
    """ε of ρ-zCDP through the RDP conversion: C_δ[U] of U(α) = ρα (:func:`rdp_to_epsilon`), equivalently
    ε_Z = inf_t ρ(t+1) + (log c_t − log δ)/t (unifying paper §3.2; Balle et al. 2020, Thm 21).

    Always below :func:`zcdp_epsilon`, which bounds the same guarantee through the cruder tail bound
    (c_t replaced by 1). A ρ so large that ρα overflows at every order raises ValueError.

    >>> round(zcdp_epsilon_via_rdp("4.9622", 1e-10), 4)
    25.4193
    """
    delta = as_probability(delta, "delta")
    rho = as_nonnegative_float(rho, "rho")
    if rho == 0:  # P = Q: (0, 0)-DP
        return 0.0
    try:
        return rdp_to_epsilon(lambda alpha: rho * alpha, delta)
    except ValueError:
        raise ValueError(f"rho={rho!r} is too large: ρ·α overflows a float at every order α") from None


def zcdp_delta_via_rdp(epsilon, rho) -> float:
    """δ_zCDP(ε; ρ) = inf_{t>0} c_t·exp(ρt(t+1) − tε), the δ of ρ-zCDP at ``epsilon`` through the sharp tail
    bound δ ≤ c_t·e^{K(t) − tε} with K(t) ≤ ρt(t+1) (unifying paper §3.2): the inverse of
    :func:`zcdp_epsilon_via_rdp`. The infimum runs over t ∈ [1e-6, 1e4]; ε and ρ up to 1e6."""
    epsilon = as_nonnegative_float(epsilon, "epsilon")
    rho = as_nonnegative_float(rho, "rho")
    if epsilon > 1e6 or rho > 1e6:
        raise ValueError(f"epsilon and rho must be at most 1e6; got epsilon={epsilon!r}, rho={rho!r}")
    objective = lambda x: math.log(c_t(math.exp(x))) + rho * math.exp(x) * (math.exp(x) + 1) - math.exp(x) * epsilon
    from scipy import optimize

    result = optimize.minimize_scalar(objective, bounds=(math.log(1e-6), math.log(1e4)), method="bounded",
                                      options={"xatol": 1e-12})
    return float(min(1.0, math.exp(result.fun)))


def gaussian_delta(epsilon, rho) -> float:
    """δ(ε) of the *continuous* Gaussian mechanism whose zCDP ρ is ``rho``: μ-GDP with μ = √(2ρ),
    δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm 8), computed with 30 digits (the two
    terms cancel in the tail) and rounded to a float. A composition of Gaussians N(0, 1/ρ_i) on counts moved
    by one is exactly this mechanism with ρ = Σρ_i/2, whatever the split: the continuous counterpart of a
    discrete Gaussian composition, not a bound on it (the discrete curve may lie on either side).

    >>> f"{gaussian_delta(17.14, 2.556):.6e}"
    '1.407053e-11'
    """
    epsilon = as_nonnegative_float(epsilon, "epsilon")
    rho = as_nonnegative_float(rho, "rho")
    if rho == 0:
        return 0.0
    with mpmath.workdps(GAUSSIAN_DPS):
        value = gaussian_profile(mpmath.sqrt(2 * mpmath.mpf(rho)), mpmath.mpf(epsilon))
        return float(max(value, mpmath.mpf(0)))


def gaussian_epsilon(rho, delta) -> float:
    """The ε at which :func:`gaussian_delta` equals ``delta``: the continuous Gaussian mechanism of zCDP ρ
    (μ = √(2ρ)) is (ε, δ)-DP exactly for ε at least this (δ(ε) decreases in ε):
    :func:`accountlib.theory.gaussian_dp.gaussian_epsilon` of μ.

    >>> round(gaussian_epsilon(0.5, gaussian_delta(3.0, 0.5)), 12)
    3.0
    """
    delta = as_probability(delta, "delta")
    rho = as_nonnegative_float(rho, "rho")
    if rho == 0:
        return 0.0
    with mpmath.workdps(GAUSSIAN_DPS):
        return gaussian_epsilon_of_mu(mpmath.sqrt(2 * mpmath.mpf(rho)), delta)


def profile_to_tradeoff(epsilons, deltas, alphas) -> np.ndarray:
    """The trade-off curve implied by the (ε_k, δ_k)-DP guarantees, at each α (Dong, Roth & Su 2022,
    Prop. 2.12): f(α) = max(0, max_k 1 − δ_k − e^{ε_k}α, e^{−ε_k}(1 − δ_k − α)).

    >>> profile_to_tradeoff([0.0], [0.5], [0.25])  # (0, 1/2)-DP: f(α) = 1/2 − α
    array([0.25])
    """
    epsilons, deltas = _number_list(epsilons, "epsilons"), _number_list(deltas, "deltas")
    if len(epsilons) != len(deltas):
        raise ValueError(f"epsilons and deltas must have the same length; got {len(epsilons)} and {len(deltas)}")
    epsilons = [as_bounded_float(e, f"epsilons[{i}]", smallest=0, strict=False) for i, e in enumerate(epsilons)]
    deltas = [as_bounded_float(d, f"deltas[{i}]", smallest=0, largest=1, strict=False) for i, d in enumerate(deltas)]
    alphas = np.asarray([as_bounded_float(a, f"alphas[{i}]", smallest=0, largest=1, strict=False)
                         for i, a in enumerate(_number_list(alphas, "alphas"))], dtype=float)
    best = np.zeros_like(alphas)
    for eps, delta in zip(epsilons, deltas):
        if eps <= 700:
            growth = math.exp(eps)
            steep, shallow = growth * alphas, (1 - delta - alphas) / growth
        else:  # e^ε overflows: e^ε·α in log space (inf where it does, which the max ignores), e^{−ε}(…) → 0
            with np.errstate(over="ignore", divide="ignore"):
                steep = np.where(alphas > 0, np.exp(eps + np.log(np.where(alphas > 0, alphas, 1.0))), 0.0)
            shallow = (1 - delta - alphas) * math.exp(-eps)
        best = np.maximum(best, np.maximum(1 - delta - steep, shallow))
    return best


def _number_list(values, name: str) -> list:
    """``values`` (a number or a sequence of numbers) as a list; anything else raises ValueError naming ``name``."""
    if isinstance(values, (str, bytes)) or not np.iterable(values):
        values = [values]
    values = list(np.asarray(values, dtype=object).ravel()) if isinstance(values, np.ndarray) else list(values)
    return values


def approxdp_to_tradeoff(epsilon_of_delta, alphas, *, deltas=None) -> np.ndarray:
    """The trade-off curve implied by the family of (ε(δ), δ)-DP guarantees, at each α:
    :func:`profile_to_tradeoff` of the points (ε(δ), δ) for δ in ``deltas`` (default 2000 log-spaced values
    in [1e-80, 0.999]).
    """
    if deltas is None:
        deltas = np.logspace(-80, math.log10(0.999), 2000)
    return profile_to_tradeoff([epsilon_of_delta(float(delta)) for delta in deltas], deltas, alphas)
