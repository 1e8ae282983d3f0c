"""The Gaussian (μ-GDP) curves, once: the privacy profile, the trade-off function and the ε of a δ.

Theory layer of :mod:`accountlib`. A mechanism is μ-GDP when its trade-off function is at least
G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), the trade-off function of N(0, 1) against N(μ, 1) (Dong, Roth and Su 2022, Def. 2.7);
its privacy profile is then at most

    δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)

(Dong, Roth and Su 2022, Cor. 2.13; Balle and Wang 2018, Thm 8 for the Gaussian mechanism). A composition of
continuous Gaussian mechanisms N(0, 1/ρ_i) on queries moved by one is μ-GDP with μ² = Σρ_i, exactly. Every user of
these curves — the μ-GDP target of :mod:`accountlib.theory.targets`, the continuous counterparts of
:mod:`accountlib.theory.conversions` and the Edgeworth comparison of :mod:`accountlib.theory.edgeworth` — calls
these functions.

>>> with mpmath.workdps(30):
...     delta = gaussian_profile(mpmath.mpf(1), mpmath.mpf(1))
>>> round(float(delta), 12)
0.126936737507
>>> abs(gaussian_epsilon(1.0, float(delta)) - 1) < 1e-14
True
"""

from __future__ import annotations

import mpmath

from ..infrastructure.search import arithmetic, bisect, widen

__all__ = ["gaussian_profile", "gaussian_tradeoff", "gaussian_epsilon", "GAUSSIAN_DPS"]

GAUSSIAN_DPS = 30
"""The working precision (decimal digits) of :func:`gaussian_epsilon`: the two terms of δ_μ cancel in the tail."""


def gaussian_profile(mu, eps) -> mpmath.mpf:
    """δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), the privacy profile of μ-GDP, at the caller's working precision
    (mpf or float arguments; Dong, Roth and Su 2022, Cor. 2.13)."""
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def gaussian_tradeoff(mu, alpha) -> mpmath.mpf:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), the trade-off function of μ-GDP (Dong, Roth and Su 2022, Def. 2.7), at the
    caller's working precision; 1 − α at the ends α ∈ {0, 1}."""
    return mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * alpha - 1) - mu) if 0 < alpha < 1 else mpmath.mpf(1 - alpha)


def gaussian_epsilon(mu, delta) -> float:
    """The ε with δ_μ(ε) = ``delta``: μ-GDP is (ε, δ)-DP exactly for ε at least this (δ_μ decreases in ε); 0 when
    δ_μ(0) ≤ δ already. Found in :data:`GAUSSIAN_DPS`-digit arithmetic by bisection
    (:func:`~accountlib.infrastructure.search.bisect`) to a relative 1e-16, the upper end returned as a float.

    ``mu`` > 0 and ``delta`` in (0, 1) are taken as they are (the callers check them)."""
    with mpmath.workdps(GAUSSIAN_DPS):
        mu = mpmath.mpf(mu)
        target = mpmath.mpf(delta)
        if gaussian_profile(mu, mpmath.mpf(0)) <= target:
            return 0.0
        below = lambda eps: gaussian_profile(mu, eps) <= target  # noqa: E731  (ε on the (ε, δ)-DP side)
        low, high = widen(below, mpmath.mpf(0), mpmath.mpf(1))
        low, high = bisect(below, low, high, midpoint=arithmetic,
                           until=lambda lo, hi: not hi - lo > mpmath.mpf(10) ** -16 * hi)
        return float(high)
