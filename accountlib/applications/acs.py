"""ACS-sized workloads: how much noise zCDP costs (unifying paper §5.1, Appendix D.3; book, Derivations §9).

Twenty state workloads from the ACS 5-year earnings table S1501 (``data/acs_workloads.csv``):
d = 5m queries for m complete counties. Each query's answer changes by at most $1,000
between neighbours; the release adds b·Z with Z one of three unit base noises,

* ``"gaussian"`` — N(0, 1)                       (Var Z = 1),
* ``"mixture"``  — ½N(−1, 1) + ½N(1, 1)           (Var Z = 2),
* ``"laplace"``  — Laplace(1)                      (Var Z = 2),

so in units of the noise the shift is s = 1000/b. The smallest b meeting a target (ε, δ)
is found twice, both through C_δ[U] (Balle et al. 2020): with the exact composed RDP
curve U_α = d·K(α−1; s)/(α−1), and with zCDP, U_α = d·ρ(s)·α. Both ε(s) are increasing in
s, so s is found by Brent's method to a relative tolerance of 1e-12.
"""

from __future__ import annotations

import csv
import math
from functools import lru_cache
from importlib import resources

from scipy import optimize

from ..infrastructure.numbers import as_probability
from ..theory.conversions import rdp_to_epsilon
from ..theory.mechanisms.continuous import Gaussian, GaussianMixture, Laplace

__all__ = ["FAMILIES", "SHIFT", "load_workloads", "calibrate_shift", "noise_scale", "variance_ratio", "delta_mse",
           "monte_carlo_delta_mse"]

SHIFT = 1000.0  # dollars: the sensitivity of one earnings query
FAMILIES = {
    "gaussian": (Gaussian(1.0), 1.0),
    "mixture": (GaussianMixture(1.0), 2.0),
    "laplace": (Laplace(1.0), 2.0),
}
_TOLERANCE = 1e-12


def load_workloads() -> list[dict]:
    """The 20 state workloads: rank, state, m (complete counties), d = 5m queries."""
    path = resources.files("accountlib") / "data" / "acs_workloads.csv"
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return [{"rank": int(r["rank"]), "state": r["state"], "m": int(r["m"]), "d": int(r["d"])} for r in rows]


def _check(family: str, d, epsilon, delta):
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {sorted(FAMILIES)}; got {family!r}")
    if isinstance(d, bool) or not isinstance(d, (int, float)) or not math.isfinite(d) or int(d) != d or d < 1:
        raise ValueError(f"d must be a positive integer (the number of queries); got {d!r}")
    if d > 10**9:
        raise ValueError(f"d must be at most 1e9 queries; got {d!r}")
    try:
        epsilon = float(epsilon)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"epsilon must be a number; got epsilon={epsilon!r}") from None
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon must be > 0 and finite; got {epsilon!r}")
    return FAMILIES[family][0], int(d), epsilon, as_probability(delta, "delta")


def _epsilon(mechanism, d: int, s: float, delta: float, notion: str) -> float:
    if notion == "zcdp":
        rho = mechanism.rho(s)  # written as d·(ρ·α), the same float operations as d·D_α for Gaussian noise
        return rdp_to_epsilon(lambda alpha: d * (rho * alpha), delta, alpha_max=1e4)
    return rdp_to_epsilon(lambda alpha: d * mechanism.rdp(alpha, s), delta, alpha_max=1e4)


@lru_cache(maxsize=4096)
def calibrate_shift(family: str, d: int, epsilon: float, delta: float, notion: str) -> float:
    """The largest shift s = 1000/b (smallest noise b) whose (ε, δ) under ``notion`` meets the target."""
    mechanism, d, epsilon, delta = _check(family, d, epsilon, delta)
    if notion not in ("rdp", "zcdp"):
        raise ValueError(f"notion must be 'rdp' or 'zcdp'; got {notion!r}")
    gap = lambda s: _epsilon(mechanism, d, s, delta, notion) - epsilon
    lo, hi = 1e-6, 1.0
    while gap(hi) < 0:
        lo, hi = hi, hi * 2
        if hi > 1e12:
            raise ValueError(f"no noise scale reaches epsilon={epsilon!r} at delta={delta!r} (shift above 1e12)")
    while gap(lo) > 0:
        lo /= 2
        if lo < 1e-30:
            # ε(s) → ε_min(δ) > 0 as s → 0: the conversion's own floor (C_δ of the zero curve)
            try:
                floor = f" (about {_epsilon(mechanism, d, 1e-30, delta, notion):.4g}, approached only as the noise grows)"
            except (ValueError, ArithmeticError):  # pragma: no cover - the message loses its number only
                floor = ""
            raise ValueError(f"epsilon={epsilon!r} is below the smallest ε this conversion certifies at "
                             f"delta={delta!r}{floor}")
    return optimize.brentq(gap, lo, hi, xtol=1e-15, rtol=_TOLERANCE)


def noise_scale(family: str, d: int, epsilon: float, delta: float, notion: str) -> float:
    """The calibrated noise scale b = 1000/s in dollars."""
    return SHIFT / calibrate_shift(family, int(d), float(epsilon), float(delta), notion)


def variance_ratio(family: str, d, epsilon, delta) -> float:
    """Var(Z_RDP)/Var(Z_zCDP) for a workload of d queries (≤ 1; = 1 for Gaussian noise)."""
    _, d, epsilon, delta = _check(family, d, epsilon, delta)
    s_rdp = calibrate_shift(family, int(d), float(epsilon), float(delta), "rdp")
    s_zcdp = calibrate_shift(family, int(d), float(epsilon), float(delta), "zcdp")
    return (s_zcdp / s_rdp) ** 2


def delta_mse(family: str, d, epsilon, delta) -> float:
    """ΔMSE = Var(Z_zCDP) − Var(Z_RDP) per query, in ($1000)²."""
    _, d, epsilon, delta = _check(family, d, epsilon, delta)
    variance = FAMILIES[family][1]
    s_rdp = calibrate_shift(family, int(d), float(epsilon), float(delta), "rdp")
    s_zcdp = calibrate_shift(family, int(d), float(epsilon), float(delta), "zcdp")
    return variance * (1 / s_zcdp**2 - 1 / s_rdp**2)


def _base_noise(family: str, rng, shape):
    import numpy as np

    if family == "gaussian":
        return rng.standard_normal(shape)
    if family == "mixture":
        return rng.standard_normal(shape) + np.where(rng.random(shape) < 0.5, -1.0, 1.0)
    return rng.laplace(0.0, 1.0, shape)


def monte_carlo_delta_mse(family: str, d, epsilon, delta, *, releases: int = 20_000, seed: int = 0,
                          chunk: int = 1000) -> dict:
    """Empirical ΔMSE from ``releases`` paired releases of all d queries (shared base noise).

    Each release draws the base noise Z once per query and adds b_zCDP·Z and b_RDP·Z to the
    same answers, so the two errors are paired. Returns the empirical and analytic ΔMSE
    (in ($1000)² per query) and their relative difference. Seeded: reproducible.
    """
    import numpy as np

    _, d, epsilon, delta = _check(family, d, epsilon, delta)
    d = int(d)
    b_rdp = noise_scale(family, d, epsilon, delta, "rdp") / SHIFT
    b_zcdp = noise_scale(family, d, epsilon, delta, "zcdp") / SHIFT
    rng = np.random.default_rng(seed)
    total_rdp = total_zcdp = 0.0
    for start in range(0, releases, chunk):
        z = _base_noise(family, rng, (min(chunk, releases - start), d))
        squares = float(np.sum(z * z))
        total_rdp += b_rdp**2 * squares
        total_zcdp += b_zcdp**2 * squares
    count = releases * d
    empirical = (total_zcdp - total_rdp) / count
    analytic = delta_mse(family, d, epsilon, delta)
    return {"empirical": empirical, "analytic": analytic,
            "relative_difference": abs(empirical - analytic) / analytic if analytic else abs(empirical)}
