"""The upper bound on ε(δ) a DP-SGD drop-in returns: certified, rounded up to a float, never an exception.

Applications layer of :mod:`accountlib`, shared by the dp_accounting drop-in (:mod:`.dpsgd_accountant`) and the
Opacus one (:mod:`.opacus_accountant`): their callers (dp_accounting's ``calibrate_dp_mechanism``, Opacus's
``get_noise_multiplier`` and ``PrivacyEngine``) expect a number that bounds ε from above, ``inf`` when none is found.
"""

from __future__ import annotations

import math

import mpmath

from ..engine.subsampled_gaussian_bounds import total_variation_upper
from ..infrastructure.interval_ends import round_up_to_float
from ..infrastructure.numbers import LARGEST_TOL
from ..theory.dpsgd_accounting import DPSGDComposition, EpsilonOutOfRange

__all__ = ["certified_upper_epsilon", "total_variation_bound"]


def certified_upper_epsilon(run: DPSGDComposition, delta, epsilon_tol: float) -> float:
    """A certified upper bound on ε(δ) of ``run``, rounded up to a float, never an exception for a run accounted:
    the upper end of the interval of width ``epsilon_tol``; where the run is beyond the inversion's reach, the upper
    end of the wider interval the bounds that need none give (``best_effort``); where float64 cannot narrow the
    interval that far, the upper end at a 100-fold looser width (up to 0.5); ``inf`` where ε is not certified at or
    below the largest ε accounted (what dp_accounting's own accountants answer when they find no finite ε). Shared
    by both drop-ins.

    >>> certified_upper_epsilon(DPSGDComposition(1e-8, 1.0, 10), 1e-5, 1e-6)  # the total variation bound meets δ
    0.0
    """
    tol = epsilon_tol
    while True:
        try:
            return round_up_to_float(run.epsilon(delta, abs_tol=tol, best_effort=True).upper)
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
