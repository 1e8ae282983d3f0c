"""The smallest noise multiplier of a DP-SGD run on a grid, with a certified failure one step below.

Theory layer of :mod:`accountlib`: the search behind
:func:`accountlib.theory.dpsgd_accounting.calibrate_noise_multiplier`. Adding noise is a post-processing of both laws of the pair (P, Q) of each step, so δ(ε) decreases as the noise
multiplier z grows (data processing), and the grid point where every target starts to hold is the smallest on the
grid, not only a local one: a coarse grid (relative step 1e-3 of the RDP calibration, a certified upper bound on the
answer; re-gridded at 1e-3 of the answer's lower end where the step is over twice that, as at a tiny sampling
rate, where it is clamped to 1000) first, then the fine grid of relative step ``resolution``, each bracket narrowed by the library's one
bisection (:func:`accountlib.infrastructure.search.bisect`).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from ..engine.subsampled_gaussian import Z_RANGE
from ..engine.subsampled_gaussian_bounds import total_variation_upper
from ..infrastructure.interval_ends import lower_end, upper_end
from ..infrastructure.numbers import ResourceLimitError, as_fraction, error_bound, fraction_to_mpf
from ..infrastructure.search import bisect, integer
from .decision import LevelCheck
from .dpsgd_epsilon_search import ball_upper
from .dpsgd_results import RELATION, DPSGDCalibration, DPSGDDeltaPoint
from .targets import Level

__all__ = ["grid_step", "smallest_noise_multiplier"]


def grid_step(reference: Fraction, resolution: float) -> Fraction:
    """reference·resolution rounded down to two significant digits (a short decimal step).

    Parameters
    ----------
    reference : Fraction
        The noise multiplier the grid is relative to, exactly.
    resolution : float
        The relative step.

    Returns
    -------
    Fraction

    >>> grid_step(Fraction(1), 1e-3), grid_step(Fraction(987, 1000), 1e-5)
    (Fraction(1, 1000), Fraction(49, 5000000))
    """
    value = reference * as_fraction(resolution, "resolution", floats="binary")  # the float the validator returned
    exponent = math.floor(math.log10(float(value))) - 1
    unit = Fraction(10) ** exponent
    return max(unit, math.floor(value / unit) * unit)


def _cheap_or_certified(run, target, rel_tol: float):
    """δ at the target's ε: where the Chernoff bounds of both directions, or the total variation bound (no
    inversion), already certify the target, the interval [0, that bound] (what decides "holds"); else the run's
    certified bracket (``delta_bracket``), or, where no contour fits the node cap (z near 0.05 over few steps), the
    bracket of the bounds that need no inversion (``delta_from_bounds``: "undecided" where it straddles δ)."""
    eps = float(target.epsilon) * (1 - 1e-15)  # δ decreases: a bound at a smaller ε bounds δ(ε)
    with mpmath.workdps(40):
        allowed = mpmath.mpf(target.delta.numerator) / target.delta.denominator
        log_bound = max(run.chernoff_log_bound(d, eps) for d in ("remove", "add"))
        bound = mpmath.exp(log_bound) if log_bound > -math.inf else mpmath.mpf(0)
        bound = min(bound, ball_upper(total_variation_upper(run.groups)))  # δ(ε) ≤ δ(0), both directions
        if bound <= allowed:
            shown = mpmath.mpf(target.epsilon.numerator) / target.epsilon.denominator
            return DPSGDDeltaPoint(epsilon=shown, delta=bound / 2, error_bound=error_bound(bound / 2),
                                   meets_tolerance=False, shortfall="precision", relation=RELATION, dominant="both",
                                   remove=(mpmath.mpf(0), bound), add=(mpmath.mpf(0), bound))
    try:
        return run.delta_bracket(target.epsilon, rel_tol)
    except ResourceLimitError:
        return run.delta_from_bounds(target.epsilon, rel_tol)


def smallest_noise_multiplier(base, targets, run_at, *, resolution: float, rel_tol: float,
                              progress=None) -> DPSGDCalibration:
    """The smallest noise multiplier z on the grid at which every target holds, with a certified failure one step
    below (module docstring).

    Parameters
    ----------
    base : tuple of StepGroup
        The schedule with each group's noise factor in the z slot: group g runs at factor_g·z.
    targets : tuple of ApproximateDP
        The (ε, δ) targets, all of which must hold (:func:`~accountlib.theory.dpsgd_arguments.calibration_targets`).
    run_at : callable
        A schedule of (q, z, steps) triples → a run with ``delta_bracket(epsilon, rel_tol)`` (a
        :class:`~accountlib.theory.dpsgd_accounting.DPSGDComposition`).
    resolution, rel_tol : float
        The grid's relative step and the relative accuracy each δ is computed to, both checked by the caller.
    progress : callable, optional
        Called with a line of text after each evaluation.

    Returns
    -------
    DPSGDCalibration
    """
    # the RDP calibration is a certified upper bound on the answer and a good reference for the grid
    from .dpsgd_calibration import calibrate_dpsgd

    reference = 0.0
    for t in targets:
        for g in base:
            try:
                z = calibrate_dpsgd(g.q, sum(h.steps for h in base), float(t.epsilon), float(t.delta), "rdp",
                                    tolerance=1e-6) / g.z
            except ValueError:  # no RDP calibration: the search's upper end is the largest accepted multiplier
                z = Z_RANGE[1] / g.z
            reference = max(reference, z)
    smallest_factor = min(as_fraction(g.z, "factor", floats="binary") for g in base)
    largest_factor = max(as_fraction(g.z, "factor", floats="binary") for g in base)
    z_floor = as_fraction(Z_RANGE[0], "floor", floats="binary") / smallest_factor  # every group's z ≥ 0.05 from here
    z_ceiling = as_fraction(Z_RANGE[1], "ceiling", floats="binary") / largest_factor  # every group's z ≤ 1000 below
    # the reference (a computed float, as it is) clamped into the accepted multipliers: the RDP calibration of a
    # target the exact accounting meets near z = 1000 can lie above it (1521 where 999.9 meets (1e-6, 3.98e-4))
    exact_reference = min(max(as_fraction(reference, "reference", floats="binary"), z_floor), z_ceiling)
    memo: dict = {}
    evaluations = 0

    def schedule_at(z: Fraction):
        return [(g.q, g.z * float(z), g.steps) for g in base]

    def at(z: Fraction):
        """The checks of every target at noise multiplier z (an exact grid point), memoised."""
        nonlocal evaluations
        if z not in memo:
            if z <= 0:
                raise ValueError("target: met by no noise multiplier on this grid")
            if not accepted(z):  # the search keeps inside: a bug if reached
                raise ArithmeticError(f"the calibration left the accepted noise multipliers [{Z_RANGE[0]:g}, "
                                      f"{Z_RANGE[1]:g}] (at z = {float(z):g})")
            run = run_at(schedule_at(z))
            checks = []
            for t in targets:
                point = _cheap_or_certified(run, t, rel_tol)
                with mpmath.workdps(40):  # exact ends; allowed rounded down, the witness up
                    allowed, witness = fraction_to_mpf(t.delta, "d"), fraction_to_mpf(t.delta, "u")
                    status = ("holds" if upper_end(point.delta, point.error_bound) <= allowed else
                              "fails" if lower_end(point.delta, point.error_bound) > witness else "undecided")
                checks.append(LevelCheck(Level(t.epsilon, allowed, witness), point, status))
            evaluations += 1
            state = ("holds" if all(c.status == "holds" for c in checks) else
                     "fails" if any(c.status == "fails" for c in checks) else "undecided")
            memo[z] = (state, checks)
            if progress is not None:
                progress(f"z = {float(z):.8g}: {state}")
        return memo[z]

    def accepted(z: Fraction) -> bool:
        """Every group's noise multiplier at z, as the run is built (floats), inside [0.05, 1000]."""
        zs = [g.z * float(z) for g in base]
        return Z_RANGE[0] <= min(zs) and max(zs) <= Z_RANGE[1]

    def ceiling_on(step: Fraction) -> int:
        """The largest k with k·step accepted (at most ten times the reference): the search's upper end on this
        grid."""
        k = math.floor(min(z_ceiling, 10 * exact_reference) / step)
        while k > 0 and not accepted(k * step):
            k -= 1
        return k

    def smallest_on(step: Fraction, hi: int, lo: int) -> tuple[int, int]:
        """(hi, lo) on the grid step·ℤ with the targets holding at hi·step and not at lo·step, hi − lo = 1; the
        starting hi must hold (it is raised until it does) and lo must not (it is lowered until it does not, or
        until the search floor: lo is then the grid point below the floor, never evaluated)."""
        floor_k, ceiling_k = math.ceil(z_floor / step), ceiling_on(step)
        hi = min(max(hi, floor_k), ceiling_k)
        while at(hi * step)[0] != "holds":
            if hi >= ceiling_k:  # the search's upper end fails: no accepted multiplier up to it meets the targets
                raise ArithmeticError(unreachable(hi * step))
            hi = min(max(hi + 1, math.ceil(hi * 1.1)), ceiling_k)
        lo = max(min(lo, hi - 1), floor_k - 1)
        while lo >= floor_k and at(lo * step)[0] == "holds":
            hi, lo = lo, max(math.floor(lo * 0.9), floor_k - 1)
        lo, hi = bisect(lambda k: at(k * step)[0] == "holds", lo, hi, midpoint=integer,
                        until=lambda low, high: high - low <= 1)
        return hi, lo

    def unreachable(top: Fraction) -> str:
        """The one-line reason no multiplier in the search range certifies the targets: each target's δ at its upper
        end ``top`` (evaluated)."""
        shown = []
        for check in at(top)[1]:
            shown.append(f"(ε = {float(check.level.epsilon):g}, δ = {float(check.level.allowed):g}): δ there is "
                         f"{mpmath.nstr(check.point.delta, 3)}, {check.status}")
        return (f"target: no noise multiplier up to {float(top):g} (the search's upper end: ten times the RDP "
                f"calibration's, and every group's z ≤ {Z_RANGE[1]:g}) certifies every target; at {float(top):g}, "
                + "; ".join(shown))

    # a coarse grid first (relative step 1e-3 of the RDP calibration), then the fine grid, whose step is
    # ``resolution`` times the coarse answer's lower end (so it is at most resolution times the answer)
    coarse_resolution = max(resolution, 1e-3)
    coarse = grid_step(exact_reference, coarse_resolution)
    hi, lo = smallest_on(coarse, math.ceil(exact_reference / coarse), math.floor(exact_reference * 9 / 10 / coarse))
    while True:  # the reference far above the answer (a clamped or loose RDP calibration): re-grid relative to it
        relative = grid_step(max(lo * coarse, z_floor), coarse_resolution)
        if 2 * relative >= coarse:  # within twice the relative step (the RDP reference is a few % above): kept
            break
        hi, lo, coarse = (*smallest_on(relative, math.ceil(hi * coarse / relative), math.floor(lo * coarse / relative)),
                          relative)
    step = coarse
    if resolution < 1e-3:
        # the coarse answer's lower end as a float (as it always was: the fine grids of the stored results)
        coarse_end = as_fraction(float(max(lo, 1) * coarse), "the coarse answer", floats="binary")
        step = grid_step(coarse_end, resolution)
        fine_hi = math.ceil(hi * coarse / step)
        hi, lo = smallest_on(step, fine_hi, max(math.floor(lo * coarse / step), 0))
    failure, below = None, ()
    if lo * step >= z_floor:  # below the search floor nothing is evaluated: every accepted multiplier meets the targets
        below = tuple(at(lo * step)[1])
        failure = next((c for c in below if c.status == "fails"), None)
    z = hi * step
    return DPSGDCalibration(z, step, tuple(schedule_at(z)), targets, _exact_checks(at(z)[1], run_at(schedule_at(z)),
                                                                                   rel_tol), failure, evaluations,
                            below=below)


def _exact_checks(checks, run, rel_tol: float) -> tuple:
    """The checks at the answer, each decided by a Chernoff bound replaced by the certified δ there (what is printed
    and stored), where the inversion reaches it (it still holds: the Chernoff bound is above the true δ)."""
    out = []
    for check in checks:
        if check.point.shortfall is not None and check.point.dominant == "both" and check.point.remove[0] == 0:
            try:
                point = run.delta_bracket(check.level.epsilon, rel_tol)
                with mpmath.workdps(40):
                    if upper_end(point.delta, point.error_bound) <= check.level.allowed:
                        check = LevelCheck(check.level, point, "holds")
            except (ArithmeticError, ResourceLimitError):
                pass  # the Chernoff bound stays the certificate
        out.append(check)
    return tuple(out)
