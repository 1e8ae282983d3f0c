"""The upper bound on ε(δ) a DP-SGD drop-in returns: certified, rounded up to a float, never an exception.

Applications layer of :mod:`accountlib`, shared by the dp_accounting drop-in (:mod:`.dpsgd_accountant`) and the
Opacus one (:mod:`.opacus_accountant`): their callers (dp_accounting's ``calibrate_dp_mechanism``, Opacus's
``get_noise_multiplier`` and ``PrivacyEngine``) expect a number that bounds ε from above, ``inf`` when none is found.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from ..engine.subsampled_gaussian_bounds import total_variation_upper
from ..infrastructure.interval_ends import round_up_to_float
from ..infrastructure.numbers import LARGEST_TOL, as_fraction
from ..theory.dpsgd_accounting import DPSGDComposition, EpsilonOutOfRange

__all__ = ["certified_upper_epsilon", "epsilon_without_accounting", "total_variation_bound"]

SMALLEST_DELTA = Fraction(1, 10**300)
"""The smallest target δ the run's ε is accounted at (:func:`~accountlib.theory.dpsgd_arguments.target_delta`)."""


def epsilon_without_accounting(delta) -> float | None:
    """The ε both drop-ins answer for a target δ that needs no accounting, by one rule on every path: ``inf`` at δ = 0
    (the Gaussian noise of DP-SGD gives no finite ε with δ = 0), 0 at δ ≥ 1, inf included (every mechanism is
    (0, 1)-DP); None for δ in (0, 1), which the run's accounting answers (below 1e-300 with what it certifies: the
    closed form of a Gaussian run, else ``inf``). A negative, nan or non-number δ is refused in one line naming
    ``target_delta``. δ is read as the decimal it prints as (1.0 is 1), as the library reads it.

    >>> epsilon_without_accounting(0.0), epsilon_without_accounting(1.0), epsilon_without_accounting(1e-5)
    (inf, 0.0, None)
    """
    try:
        exact = math.inf if float(delta) == math.inf else as_fraction(delta, "target_delta", floats="decimal")
    except (TypeError, ValueError, OverflowError):
        exact = None
    if exact is None or exact < 0:
        raise ValueError(f"target_delta must be a number >= 0 (0 gives inf, 1 or more gives 0); got {delta!r}")
    if exact == 0:
        return math.inf
    return 0.0 if exact >= 1 else None


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
