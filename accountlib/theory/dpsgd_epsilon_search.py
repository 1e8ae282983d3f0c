"""The pieces of a DP-SGD run's ε(δ) search that need no contour: starting guesses, the saddle-point estimate of δ,
and the certified intervals, for ε(δ) and for δ(ε), from bounds that need no inversion.

Theory layer of :mod:`accountlib`, used by :meth:`accountlib.theory.dpsgd_accounting.DPSGDComposition.epsilon` (and
its trade-off search, for the estimate). Guesses and estimates place points only (nothing there is certified);
:func:`bounded_epsilon` is certified: where a tiny sampling rate over few steps puts every contour past the node cap,
δ(ε) ≤ min(the total variation bound, the Chernoff bound) decides "holds" and δ(ε) ≥ max(the threshold event's
value, each group's single step in closed form: a composition reveals at least what any of its steps does) decides
"fails" (:mod:`accountlib.engine.subsampled_gaussian_bounds`); :func:`bounded_delta` brackets δ(ε) itself by the same
bounds, for :meth:`~accountlib.theory.dpsgd_accounting.DPSGDComposition.delta` where no contour fits the node cap.
"""

from __future__ import annotations

import decimal
import math
from fractions import Fraction

import mpmath

from ..engine.subsampled_gaussian import loss_supremum, one_step_profile
from ..engine.subsampled_gaussian_bounds import threshold_lower_bound, total_variation_upper
from ..engine.subsampled_gaussian_inversion import MAX_NODES, certified_profile, order_of, plan_contour, saddle
from ..infrastructure.interval_ends import lower_end, upper_end
from ..infrastructure.numbers import ResourceLimitError, as_fraction, error_bound
from .composition import DeltaPoint
from .dpsgd_arguments import MAX_DPSGD_EPSILON
from .dpsgd_results import RELATION, DPSGDDeltaPoint, EpsilonOutOfRange

__all__ = ["EPSILON_TOLERANCES", "NoContourInReach", "first_profile", "contour_serves", "ball_upper", "ball_lower", "width_shown", "interval_shown", "bounded_epsilon", "bounded_delta",
           "bounded_delta_point", "delta_within_cap", "delta_lower_bound", "delta_estimate",
           "gaussian_epsilon_guess", "saddle_epsilon"]

EPSILON_TOLERANCES = (1e-10, 1e-8, 1e-6)
"""The relative accuracies of δ an ε search tries in turn, the next where a contour would need more than the node
cap: an ε interval of width tol needs δ only to about tol·|d log δ/dε|, and a looser one may leave the bisection
undecided, which says so in abs_tol's terms."""



class NoContourInReach(ResourceLimitError):
    """:func:`first_profile`'s refusal where the first contour of an ε search exceeds the node cap at every one of
    :data:`EPSILON_TOLERANCES`: the search goes straight to the bounds that need no inversion."""


def first_profile(groups, direction: str, eps: float, fine: float, integrals: dict):
    """The first contour of an ε search (:func:`~accountlib.engine.subsampled_gaussian_inversion.certified_profile`
    at relative accuracy ``fine``: (bound, contour)). Where its plan exceeds the node cap, the plan at the loosest of
    :data:`EPSILON_TOLERANCES` is checked too (a looser tolerance never needs more nodes: a shorter period, so a
    longer step, and a higher truncation target); where that exceeds the cap as well, :class:`NoContourInReach`, so
    that the tolerances between are not planned (two plans per question, not three, for a tiny sampling rate over
    few steps)."""
    try:
        return certified_profile(groups, direction, eps, fine, integrals)
    except ResourceLimitError:
        loosest = EPSILON_TOLERANCES[-1]
        probe = plan_contour(groups, direction, eps, loosest, integrals, cap_first=True) if fine < loosest else None
        if probe is not None and probe.count <= MAX_NODES:
            raise
        raise NoContourInReach(f"every contour for ε = {eps:g} ({direction} direction) would need more than "
                               f"{MAX_NODES:,} nodes, at relative accuracies {fine:g} to {loosest:g}") from None


def contour_serves(contour, eps: float, fine: float, tol: float) -> bool:
    """Whether ``contour`` (a :class:`~accountlib.engine.subsampled_gaussian_inversion.DirectionContour` built for
    another ε) bounds δ(``eps``) within what an ε search of width ``tol`` needs: relative accuracy ``fine``, or that
    at which δ leaves ε undecided over tol/16 (|d log δ/dε| ≈ c near the saddle point). A contour's nodes serve every
    ε, most accurately the one it was built for: at q = 0.01, z = 1, T = 2 one built at the first guess ε = 0.66
    bounds δ(0.245) = 1e-5 to 1.6e-8 relative, where the search built four more contours. Only a choice: every bound
    is certified whichever contour gives it."""
    b = contour.delta(eps)
    return b.value > 0 and b.error_bound <= max(fine, tol * contour.c / 16) * b.value

def ball_upper(ball) -> mpmath.mpf:
    """An arb ball's upper end as an mpf at least as large (40 digits, widened past the decimal conversion)."""
    with mpmath.workdps(50):
        value = mpmath.mpf(ball.upper().str(45, radius=False))
        return value + abs(value) * mpmath.mpf(10) ** -40


def ball_lower(ball) -> mpmath.mpf:
    """An arb ball's lower end as an mpf no larger (:func:`ball_upper`'s mirror)."""
    with mpmath.workdps(50):
        value = mpmath.mpf(ball.lower().str(45, radius=False))
        return value - abs(value) * mpmath.mpf(10) ** -40


def width_shown(width) -> str:
    """A positive width rounded up to two significant digits, as a message shows a tolerance that would work.

    >>> width_shown(2.2527), width_shown(1.23e-9)
    ('2.3', '1.3e-09')
    """
    value = float(width)
    exponent = math.floor(math.log10(value)) - 1
    return f"{math.ceil(value / 10 ** exponent * (1 - 1e-12)) * 10 ** exponent:.2g}"


def interval_shown(lower, upper) -> str:
    """A certified interval [lower, upper] (mpf numbers) in ten significant digits, rounded outward, exactly.

    >>> interval_shown(mpmath.mpf("0.99999972154582"), mpmath.mpf(1))
    '[0.9999997215, 1]'
    """
    def shown(x, rounding) -> str:
        man, exp = mpmath.mpf(x).man_exp
        if man == 0:
            return "0"
        num, den = (int(man) << int(exp), 1) if exp >= 0 else (int(man), 1 << int(-exp))
        context = decimal.Context(prec=10, rounding=rounding, Emax=10**6, Emin=-10**6)
        return str(context.divide(decimal.Decimal(num), decimal.Decimal(den)).normalize(context))

    return f"[{shown(lower, decimal.ROUND_FLOOR)}, {shown(upper, decimal.ROUND_CEILING)}]"


def bounded_epsilon(run, direction: str, delta: mpmath.mpf, tol: float):
    """(lower, upper, at_lower, at_upper) for one direction of ``run`` (a
    :class:`~accountlib.theory.dpsgd_accounting.DPSGDComposition`) from the bounds that need no inversion (module
    docstring), each end bisected on the floats to tol/4. ``lower`` is 0 with ``at_lower`` None where no failure is
    certified; the interval may be wider than ``tol`` (the caller decides). ε not certified at or below 200 raises
    :class:`~accountlib.theory.dpsgd_results.EpsilonOutOfRange`."""
    cap = float(MAX_DPSGD_EPSILON)
    with mpmath.workdps(40):
        tv = ball_upper(total_variation_upper(run.groups))

        def upper_at(eps: float) -> mpmath.mpf:
            log_bound = run.chernoff_log_bound(direction, eps)
            return min(tv, mpmath.exp(log_bound) if log_bound > -math.inf else mpmath.mpf(0))

        def lower_at(eps: float) -> mpmath.mpf:
            return delta_lower_bound(run, direction, eps)

        def bisect(low: float, high: float, keeps_low) -> tuple:
            while high - low > tol / 4:
                mid = (low + high) / 2
                if mid in (low, high):
                    break
                low, high = (mid, high) if keeps_low(mid) else (low, mid)
            return low, high

        if upper_at(cap) > delta:
            raise EpsilonOutOfRange(f"ε(δ = {float(delta):g}) is not certified at or below {cap:g}, the largest ε "
                                    f"accounted for this run ({direction} direction: beyond the inversion's reach, "
                                    "and the bounds that need none do not meet δ there)")
        at = lambda eps, b: DeltaPoint(mpmath.mpf(eps), b / 2, error_bound(b / 2))  # δ in [0, b]
        if upper_at(0.0) <= delta:
            return Fraction(0), Fraction(0), None, at(0.0, upper_at(0.0))
        _, upper = bisect(0.0, cap, lambda eps: not upper_at(eps) <= delta)  # misses δ below, meets it at upper
        at_upper = at(upper, upper_at(upper))
        if not lower_at(0.0) > delta:
            return Fraction(0), as_fraction(upper, "upper", floats="binary"), None, at_upper
        lower, _ = bisect(0.0, upper, lambda eps: lower_at(eps) > delta)  # certainly fails at lower
        bound = lower_at(lower)
        at_lower = DeltaPoint(mpmath.mpf(lower), (bound + 1) / 2, error_bound((1 - bound) / 2))  # δ in [bound, 1]
        return (as_fraction(lower, "lower", floats="binary"), as_fraction(upper, "upper", floats="binary"),
                at_lower, at_upper)


def delta_lower_bound(run, direction: str, epsilon: float) -> mpmath.mpf:
    """A certified lower bound on one direction's δ(ε) that needs no inversion (module docstring): the threshold
    event's value, or one step's δ in closed form, the larger; a few special functions, no nodes.

    >>> from accountlib.theory.dpsgd_accounting import DPSGDComposition
    >>> float(delta_lower_bound(DPSGDComposition(0.5, 0.2, 10), "remove", 0.0)) > 0.49  # one step's TV, at least
    True
    """
    with mpmath.workdps(40):
        best = ball_lower(threshold_lower_bound(run.groups, direction, epsilon))
        for g in run.groups:
            best = max(best, one_step_profile(g.q, g.z, epsilon, direction).lower)
        return best


def _direction_bounds(run, direction: str, tv: mpmath.mpf, below: float, above: float) -> tuple:
    """(lower, upper) on one direction's δ(ε) for ε in [below, above] (floats): the lower bounds at ``above``, the
    upper ones at ``below`` (δ decreases in ε)."""
    lower = delta_lower_bound(run, direction, above)
    log_bound = run.chernoff_log_bound(direction, below)
    upper = min(tv, mpmath.exp(log_bound) if log_bound > -math.inf else mpmath.mpf(0))
    return max(lower, mpmath.mpf(0)), upper


def bounded_delta(run, epsilon) -> tuple:
    """(lower, upper, remove, add): a certified bracket of the run's δ(ε) = max(δ_remove(ε), δ_add(ε)) from the
    bounds that need no inversion (module docstring), and each direction's (lower, upper), as mpf at 40 digits.
    ``epsilon`` is exact (a float, or a Fraction between two floats: the bounds are then taken at the float on the
    side that loosens each). For the runs whose every contour exceeds the node cap (a tiny sampling rate over few
    steps), where the bracket is what can be certified; its width is whatever the bounds reach (at ε = 0 the total
    variation lies between the threshold event's value and the χ²/union bound).

    >>> from accountlib.theory.dpsgd_accounting import DPSGDComposition
    >>> lower, upper, _, _ = bounded_delta(DPSGDComposition(1e-8, 1.0, 10), 0.0)
    >>> 1e-9 < lower < upper < 3.9e-8
    True
    """
    exact = as_fraction(epsilon, "epsilon", floats="binary")
    nearest = float(exact)
    if Fraction(nearest) == exact:
        below = above = nearest
    else:
        below = nearest if Fraction(nearest) < exact else math.nextafter(nearest, -math.inf)
        above = math.nextafter(below, math.inf)
    with mpmath.workdps(40):
        tv = ball_upper(total_variation_upper(run.groups))
        remove = _direction_bounds(run, "remove", tv, below, above)
        add = _direction_bounds(run, "add", tv, below, above)
        return max(remove[0], add[0]), max(remove[1], add[1]), remove, add


def bounded_delta_point(run, epsilon, rel_tol: float):
    """:func:`bounded_delta` as a :class:`~accountlib.theory.dpsgd_results.DPSGDDeltaPoint`: the midpoint of the
    bracket, its half-width the error bound (widened past the decimal rounding), ``meets_tolerance`` against
    ``rel_tol`` (shortfall "node cap" where it misses)."""
    lower, upper, remove, add = bounded_delta(run, epsilon)
    with mpmath.workdps(40):
        value = (lower + upper) / 2
        bound = (upper - lower) / 2 * (1 + mpmath.mpf(10) ** -20) + abs(value) * mpmath.mpf(10) ** -38
        dominant = "remove" if remove[0] > add[1] else "add" if add[0] > remove[1] else "both"
        exact = as_fraction(epsilon, "epsilon", floats="binary")
        shown = mpmath.mpf(exact.numerator) / exact.denominator
        meets = bound <= rel_tol * value
    return DPSGDDeltaPoint(epsilon=shown, delta=value, error_bound=error_bound(bound), meets_tolerance=bool(meets),
                           shortfall=None if meets else "node cap", relation=RELATION, dominant=dominant,
                           remove=remove, add=add)


def delta_within_cap(run, eps, rel_tol: float, best_effort: bool) -> tuple:
    """(δ(ε) at ``rel_tol``, the shortfall if it misses) for
    :meth:`~accountlib.theory.dpsgd_accounting.DPSGDComposition.delta`: a first contour over the node cap is refused
    before any node is computed; the bracket of the bounds that need no inversion (:func:`bounded_delta_point`) is
    then returned where it meets ``rel_tol``, and refused in one line naming the interval it gives where it does not;
    with ``best_effort`` the tolerance is loosened 100-fold until a contour fits, and the narrower of that and the
    bracket is returned (shortfall "node cap"). A contour that fits but stops short of ``rel_tol`` on precision is
    compared with the bracket too: the bracket where it meets ``rel_tol``, else the narrower of the two (shortfall
    "precision")."""
    aim, bounded = rel_tol, None
    while True:
        try:
            point = run.delta_bracket(eps, aim / 2)
        except ResourceLimitError as error:
            if bounded is None:
                bounded = bounded_delta_point(run, eps, rel_tol)
                if bounded.meets_tolerance:
                    return bounded, "precision"
            if not best_effort:
                reached = float(bounded.error_bound / bounded.delta) if bounded.delta > 0 else math.inf
                with mpmath.workdps(40):
                    low = mpmath.nstr(lower_end(bounded.delta, bounded.error_bound), 4)
                    high = mpmath.nstr(upper_end(bounded.delta, bounded.error_bound), 4)
                raise ResourceLimitError(
                    f"rel_tol: {rel_tol:g} at epsilon = {float(eps):g} is out of reach for {run!r}: {error}; the "
                    f"bounds that need no inversion give δ in [{low}, {high}] ({reached:.2g} relative); loosen "
                    "rel_tol, or pass best_effort=True for a flagged result") from None
            if aim >= 0.5:
                return bounded, "node cap"
            aim = min(aim * 100, 0.5)
            continue
        if bounded is None and point.error_bound > rel_tol * point.delta:  # the contour stopped short on precision
            bounded = bounded_delta_point(run, eps, rel_tol)
            if bounded.meets_tolerance:
                return bounded, "precision"
        if bounded is not None and bounded.error_bound < point.error_bound:
            return bounded, "node cap" if aim != rel_tol else "precision"
        return point, ("precision" if aim == rel_tol else "node cap")


def delta_estimate(groups, integrals: dict, eps: float, directions=("remove", "add")) -> float:
    """The saddle-point estimate of δ(ε) (the larger of ``directions``; no nodes, nothing certified): for searching
    (``integrals`` as in :func:`saddle_epsilon`)."""
    best = 0.0
    for direction in directions:
        if eps >= loss_supremum(groups, direction):
            continue
        try:
            c, log_j, _ = saddle(groups, direction, eps, integrals)
            a = order_of(direction, c)
            log_d = log_j - c * eps + math.fsum(g.steps * integrals[(g.q, g.z)].log_real(a)[0] for g in groups)
            best = max(best, math.exp(min(log_d, 0.0)))
        except (ArithmeticError, OverflowError, ResourceLimitError):
            continue
    return best


def gaussian_epsilon_guess(z_squared: Fraction, delta: float) -> float:
    """A starting ε for a run whose every q is 1: the root of the Gaussian mechanism's δ(ε) = δ at 20 digits
    (bisection on ε; nothing here is certified)."""
    with mpmath.workdps(20):
        mu = 1 / mpmath.sqrt(mpmath.mpf(z_squared.numerator) / z_squared.denominator)

        def log_delta(eps):
            value = mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)
            return mpmath.log(value) if value > 0 else -mpmath.inf

        low, high = mpmath.mpf(0), mu * mu / 2 + mu * mpmath.sqrt(2 * mpmath.log(1 / mpmath.mpf(delta))) + 1
        target = mpmath.log(delta)
        for _ in range(80):
            mid = (low + high) / 2
            low, high = (mid, high) if log_delta(mid) > target else (low, mid)
        return float(max(low, mpmath.mpf(1e-6)))


def saddle_epsilon(groups, integrals: dict, direction: str, delta: float, sup: float) -> float:
    """A starting ε: the root of the saddle-point estimate log δ(ε) ≈ −cε + log M(c) − log(c(c+1)√(2πK''(c))) =
    log δ (secant steps; nothing here is certified); ``integrals`` the run's one-step integrals, (q, z) → integral."""
    def log_estimate(eps):
        c, log_j, _ = saddle(groups, direction, eps, integrals)
        return log_j + math.fsum(g.steps * integrals[(g.q, g.z)].log_real(order_of(direction, c))[0]
                                 for g in groups) - c * eps, c

    target = math.log(delta)
    eps = 1.0 if not math.isfinite(sup) else min(1.0, sup / 2)
    for _ in range(20):
        value, c = log_estimate(eps)
        step = (value - target) / max(c, 1e-3)
        step = max(min(step, 2.0 + eps), -0.5 * eps)
        eps += step
        if math.isfinite(sup):
            eps = min(eps, sup * (1 - 1e-9))
        if abs(step) < 1e-4:
            break
    return max(eps, 1e-6)
