"""DP-SGD calibration (unifying paper §5.2, Appendix D.4): the noise multiplier z of a Poisson-subsampled
Gaussian run of n steps at rate q that meets (ε, δ) by the RDP accountant (ε_R of the composed CGF) or by zCDP
(its optimal ρ). No torch needed; the training itself is the book's (``accountbook.dpsgd``)."""

from __future__ import annotations

import math
import threading

import numpy as np

from ..infrastructure.numbers import as_bounded_float, as_choice, as_probability, as_scale
from ..infrastructure.search import bisect, geometric, widen
from .conversions import rdp_floor, rdp_grid, rdp_to_epsilon, zcdp_epsilon_via_rdp
from .mechanisms.subsampled import PoissonSubsampledGaussian

__all__ = ["dpsgd_epsilon", "calibrate_dpsgd"]


def dpsgd_epsilon(q: float, steps: int, z: float, delta: float, notion: str = "rdp") -> float:
    """The ε that DP-SGD with Poisson rate q, ``steps`` steps and noise multiplier z certifies at δ.

    ``notion="rdp"``: the sampled-Gaussian RDP curve composed ``steps`` times, converted by C_δ
    (unifying paper §5.2, Appendix D.4); ``notion="zcdp"``: ρ = steps/(2z²), no amplification by
    subsampling, converted by C_δ. :func:`calibrate_dpsgd` inverts this in z.
    """
    q, steps = _dpsgd_rate_and_steps(q, steps)
    z = as_scale(z, "z")
    delta = as_probability(delta, "delta")
    notion = as_choice(notion, "notion", ("rdp", "zcdp"))
    if notion == "zcdp":
        return zcdp_epsilon_via_rdp(steps / (2 * z * z), delta)
    mechanism = PoissonSubsampledGaussian(q, z)
    alpha_max, log_delta = 1e4, math.log(delta)
    # Grid points that cannot be the minimiser are not evaluated: U(α) ≤ ρα with ρ = steps/(2z²) (K ≤ ρ_1 t(t+1)),
    # so the grid's smallest objective is at most the zCDP curve's smallest grid objective B; where even U = 0
    # gives an objective above B, the exact one is above it too, and U = 0 (a lower bound) is returned instead.
    # Only those grid points are skipped (the refinement between the best point's neighbours evaluates K), so the
    # grid minimiser, and the ε returned, are those of the full evaluation; they are the small orders, K < 1e-4.
    rho = steps / (2 * z * z)
    alphas = [1 + math.exp(float(x)) for x in rdp_grid(alpha_max)]
    bound = min(rho * a + rdp_floor(a, log_delta) for a in alphas)
    skip = {a for a in alphas if rdp_floor(a, log_delta) > bound + 1e-9 * (1 + abs(bound))}

    def curve(alpha):
        if alpha in skip:
            return 0.0
        # alpha − 1 = e^x > 0 is a float from rdp_to_epsilon's search: the argument checks of cgf are skipped
        return steps * mechanism.cgf_of_checked_arguments(alpha - 1, 1.0) / (alpha - 1)

    return rdp_to_epsilon(curve, delta, alpha_max=alpha_max)


def calibrate_dpsgd(q, steps, epsilon, delta, notion: str = "rdp", *, tolerance: float = 1e-10) -> float:
    """The smallest noise multiplier z certifying (ε, δ) for DP-SGD with Poisson rate q over ``steps`` steps.

    ``notion="rdp"``: the sampled-Gaussian RDP composed ``steps`` times, converted by C_δ;
    ``notion="zcdp"``: ρ = steps/(2z²) (no amplification by subsampling), converted by C_δ.
    Bisection on log z until the relative bracket is below ``tolerance``.
    """
    q, steps = _dpsgd_rate_and_steps(q, steps)
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 1e-14 <= tolerance <= 0.5:
        raise ValueError(f"tolerance must be a number in [1e-14, 0.5] (a relative bracket on z); got {tolerance!r}")
    epsilon = as_scale(epsilon, "epsilon")
    delta = as_probability(delta, "delta")
    notion = as_choice(notion, "notion", ("rdp", "zcdp"))
    return _calibrated_noise(q, int(steps), epsilon, delta, notion, float(tolerance))


def _dpsgd_rate_and_steps(q, steps) -> tuple[float, int]:
    """The Poisson rate q ∈ (0, 1] and the number of steps (a positive integer) of DP-SGD, checked."""
    q = as_bounded_float(q, "q", smallest=0, largest=1)
    if isinstance(steps, bool) or not isinstance(steps, (int, float, np.integer, np.floating)) \
            or not math.isfinite(steps) or int(steps) != steps or not 1 <= steps <= 10**9:
        raise ValueError(f"steps must be a positive integer (at most 1e9); got {steps!r}")
    return q, int(steps)


#: The brackets (lo, hi) of each calibration's bisection so far, keyed by its checked arguments (at most
#: _BISECTIONS_KEPT problems; the oldest is forgotten first).
_BISECTIONS: dict = {}
_BISECTIONS_KEPT = 4096


_BISECTIONS_LOCK = threading.Lock()


def _calibrated_noise(q: float, steps: int, epsilon: float, delta: float, notion: str, tolerance: float) -> float:
    """The bisection of :func:`calibrate_dpsgd` on checked arguments.

    Its brackets are remembered (the function is pure): a repeated calibration is a lookup, and a tighter
    tolerance continues from where a looser one stopped. The bisection is deterministic, so the continued
    sequence of brackets, and the z returned, are those of a fresh bisection at the tighter tolerance; a
    chapter that tabulates, checks (tolerance/100) and records the same calibrations pays for each once."""
    key = (q, steps, epsilon, delta, notion)
    brackets = _BISECTIONS.get(key)
    if brackets is None:
        brackets = [_initial_bracket(q, steps, epsilon, delta, notion)]
    for lo, hi in brackets:
        if hi / lo - 1 <= tolerance:
            return hi
    brackets = list(brackets)  # extended privately, then stored whole
    lo, hi = brackets[-1]
    lo, hi = bisect(lambda z: dpsgd_epsilon(q, steps, z, delta, notion) <= epsilon, lo, hi, midpoint=geometric,
                    until=lambda lo, hi: not hi / lo - 1 > tolerance, record=lambda lo, hi: brackets.append((lo, hi)))
    with _BISECTIONS_LOCK:  # the calibration may run in several threads (a Dask worker's, say)
        _BISECTIONS.pop(key, None)
        _BISECTIONS[key] = brackets
        while len(_BISECTIONS) > _BISECTIONS_KEPT:
            _BISECTIONS.pop(next(iter(_BISECTIONS)))
    return hi


def _initial_bracket(q: float, steps: int, epsilon: float, delta: float, notion: str) -> tuple[float, float]:
    """lo < hi with ε(hi) ≤ ε₀ < ε(lo): doubling from [0.05, 1], then halving lo."""

    def eps_of(z):
        return dpsgd_epsilon(q, steps, z, delta, notion)

    def too_large(z: float) -> None:
        if z > 1e6:
            raise ValueError("no noise multiplier below 1e6 certifies this (epsilon, delta)")

    lo, hi = widen(lambda z: eps_of(z) <= epsilon, 0.05, 1.0, limit=too_large)
    _, lo = widen(lambda z: eps_of(z) > epsilon, None, lo, factor=0.5, move_low=False)  # halved until it fails
    return lo, hi
