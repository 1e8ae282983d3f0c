"""The upper bound on ε(δ) a DP-SGD drop-in returns: certified, rounded up to a float, never an exception.

Applications layer of :mod:`accountlib`, shared by the dp_accounting drop-in (:mod:`.dpsgd_accountant`) and the
Opacus one (:mod:`.opacus_accountant`): their callers (dp_accounting's ``calibrate_dp_mechanism``, Opacus's
``get_noise_multiplier`` and ``PrivacyEngine``) expect a number that bounds ε from above, ``inf`` when none is found.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from ..engine.subsampled_gaussian import gaussian_profile
from ..engine.subsampled_gaussian_bounds import total_variation_upper
from ..infrastructure.interval_ends import round_up_to_float
from ..infrastructure.numbers import LARGEST_TOL, as_fraction
from ..theory.dpsgd_accounting import DPSGDComposition, EpsilonOutOfRange
from ..theory.targets import SMALLEST_DELTA

__all__ = ["certified_upper_epsilon", "gaussian_upper_epsilon", "total_variation_bound"]


def certified_upper_epsilon(run: DPSGDComposition, delta, epsilon_tol: float) -> float:
    """A certified upper bound on ε(δ) of ``run``, rounded up to a float, never an exception for a run accounted:
    the upper end of the interval of width ``epsilon_tol``; where the run is beyond the inversion's reach, the upper
    end of the wider interval the bounds that need none give (``best_effort``); where float64 cannot narrow the
    interval that far, the upper end at a 100-fold looser width (up to 0.5); ``inf`` where ε is not certified at or
    below the largest ε accounted, or where δ is below 1e-300, the smallest accounted (what dp_accounting's own
    accountants answer when they find no finite ε). Shared by both drop-ins.

    >>> certified_upper_epsilon(DPSGDComposition(1e-8, 1.0, 10), 1e-5, 1e-6)  # the total variation bound meets δ
    0.0
    """
    if as_fraction(delta, "target_delta", floats="decimal") < SMALLEST_DELTA:
        return math.inf  # below the smallest δ accounted: no finite ε is certified there
    tol = epsilon_tol
    while True:
        try:
            interval = run.epsilon(delta, abs_tol=tol, best_effort=True)
            if interval.shortfall != "precision" or tol >= LARGEST_TOL:
                return round_up_to_float(interval.upper)
            tol = min(tol * 100, LARGEST_TOL)  # float64 cannot narrow it that far: a looser width
        except EpsilonOutOfRange:
            return math.inf  # no finite ε certified: a valid upper bound
        except ArithmeticError:
            if tol >= LARGEST_TOL:
                raise
            tol = min(tol * 100, LARGEST_TOL)


def total_variation_bound(run: DPSGDComposition) -> mpmath.mpf:
    """An upper bound on δ(0) = TV of ``run``, so on δ(ε) at every ε, in both directions
    (:func:`~accountlib.engine.subsampled_gaussian_bounds.total_variation_upper`'s upper end, rounded up)."""
    ball = total_variation_upper(run.groups)
    with mpmath.workdps(50):
        value = mpmath.mpf(ball.upper().str(45, radius=False))
        return value + abs(value) * mpmath.mpf(10) ** -40


def gaussian_upper_epsilon(z_squared: Fraction, delta, width: float) -> float:
    """A certified upper bound on ε(δ) of the Gaussian mechanism μ² = 1/z² (a run whose every step has q = 1, any z
    and any count of steps: the closed form has no cap), within ``width`` of it (absolute, or relative to ε where ε is
    smaller), a float; ``inf`` beyond 1e6. Bisection on the floats, each end decided by the closed form's ball
    (:func:`~accountlib.engine.subsampled_gaussian.gaussian_profile`). Shared by both drop-ins.

    >>> 4.3771 < gaussian_upper_epsilon(Fraction(1), 1e-5, 1e-6) < 4.3772  # one step at z = 1: μ = 1
    True
    """
    allowed = as_fraction(delta, "target_delta", floats="binary")
    with mpmath.workdps(40):
        bound = mpmath.mpf(allowed.numerator) / allowed.denominator

    def holds(eps: float) -> bool:
        return gaussian_profile(z_squared, eps).upper <= bound

    if holds(0.0):
        return 0.0
    low, high = 0.0, 2.0 ** -60
    while not holds(high):
        low, high = high, high * 2
        if high > 1e6:
            return math.inf
    while high - low > min(width, width * high):
        mid = (low + high) / 2
        if mid in (low, high):
            break
        low, high = (low, mid) if holds(mid) else (mid, high)
    return high
