"""The symmetric trade-off function of a DP-SGD run from its certified privacy profile, bracketed by concavity.

Theory layer of :mod:`accountlib`. f(α) = sup_{ε ≥ 0} max(1 − δ(ε) − e^ε α, e^{−ε}(1 − δ(ε) − α)) (Dong, Roth & Su
2022, Prop. 2.12, for the symmetrised curve), δ the worse direction's profile. Each branch is the supremum of a
concave function (δ is convex in t = e^ε, and e^{−ε}δ(ε) in u = e^{−ε}): certified values at a few points near the
maximiser bound it from below, and the chords through them, extended, from above. Used by
:meth:`accountlib.theory.dpsgd_accounting.DPSGDComposition.tradeoff`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from ..engine.subsampled_gaussian import gaussian_tradeoff
from ..infrastructure.numbers import LARGEST_TOL, error_bound
from .dpsgd_arguments import MAX_DPSGD_EPSILON
from .dpsgd_epsilon_search import width_shown
from .dpsgd_results import RELATION, DPSGDTradeoffPoint

__all__ = ["concave_sup_upper", "branch_supremum", "tradeoff_interval", "tradeoff_point", "tradeoff_refusal"]


def concave_sup_upper(pts, variable: str) -> mpmath.mpf:
    """An upper bound on sup of a concave function over its domain (t ≥ 1, or 0 < u ≤ 1) from certified values
    ``pts`` = [(coordinate, (lower, upper))] sorted by coordinate: per cell the least of the neighbours' extended
    chords; beyond the outer points, the outer chord when its slope is certified to point down (else +inf).

    A concave function lies below the extension of each of its chords beyond the chord's ends, so on a cell the
    least of the two neighbouring chords' extensions (each drawn through the certified ends that make it steepest
    the right way) bounds it from above.

    >>> pts = [(mpmath.mpf(x), (mpmath.mpf(-(x - 2) ** 2), mpmath.mpf(-(x - 2) ** 2))) for x in (1, 1.5, 2.5, 3)]
    >>> concave_sup_upper(pts, "t")  # the sup is 0; the neighbouring chords' extensions meet at (2, 0.5)
    mpf('0.5')
    """
    inf = mpmath.inf
    n = len(pts)
    if n < 2:  # one point bounds nothing from above (the grid collapsed onto an end of ε's range)
        return inf
    xs = [p[0] for p in pts]
    lo = [p[1][0] for p in pts]
    hi = [p[1][1] for p in pts]

    def slope_up(i, j):
        return (hi[j] - lo[i]) / (xs[j] - xs[i])

    def slope_low(i, j):
        return (lo[j] - hi[i]) / (xs[j] - xs[i])

    best = max(hi)
    for i in range(n - 1):
        lines = []  # (anchor x, anchor value, slope) upper bounds valid on [x_i, x_{i+1}]
        if i >= 1:
            lines.append((xs[i], hi[i], slope_up(i - 1, i)))
        if i + 2 < n:
            lines.append((xs[i + 1], hi[i + 1], slope_low(i + 1, i + 2)))
        if not lines:
            return inf
        candidates = []
        for x in (xs[i], xs[i + 1]):
            candidates.append(min(v + s * (x - x0) for x0, v, s in lines))
        if len(lines) == 2:
            (x0, v0, s0), (x1, v1, s1) = lines
            if s0 != s1:
                x = (v1 - v0 + s0 * x0 - s1 * x1) / (s0 - s1)
                if xs[i] <= x <= xs[i + 1]:
                    candidates.append(v0 + s0 * (x - x0))
        best = max(best, max(candidates))
    # beyond the outer points: the outer chords must point away from the maximum
    left_domain_edge = mpmath.mpf(1) if variable == "t" else mpmath.mpf(0)
    if xs[0] > left_domain_edge:
        s = slope_low(0, 1)
        if s < 0:
            return inf
    right_domain_edge = mpmath.inf if variable == "t" else mpmath.mpf(1)
    if xs[-1] < right_domain_edge:
        s = slope_up(n - 2, n - 1)
        if s > 0:
            return inf
    return best


def branch_supremum(alpha: Fraction, abs_tol: float, variable: str, *, profile_interval, delta_estimate, mu: float,
                    below=None) -> tuple:
    """[lower, upper] for the supremum over ε ≥ 0 of one branch of the duality: h(t) = 1 − δ(log t) − tα on t ≥ 1
    (``variable`` "t") or k(u) = u(1 − α − δ(−log u)) on 0 < u ≤ 1 ("u"), both concave. Grid points around the
    estimated maximiser; the bound from above takes, on each cell, the least of the extended chords of its neighbours
    (:func:`concave_sup_upper`), and beyond the outer points the chords' certified signs.

    Parameters
    ----------
    alpha : Fraction
        The type I error, exactly.
    abs_tol : float
        The width aimed at (the search returns once upper − lower ≤ abs_tol/2, or when ``upper`` ≤ ``below``).
    variable : str
        "t" or "u", the branch.
    profile_interval : callable
        ε (a float) → (lower, upper), a certified interval for the run's δ(ε) (mpf numbers).
    delta_estimate : callable
        ε → a float estimate of δ(ε), for placing points only.
    mu : float
        The run's Gaussian-DP approximation μ, for the first guess of the maximiser.
    below : mpf, optional
        Stop as soon as the upper bound falls below it (the other branch is already larger).

    Returns
    -------
    tuple
        (lower, upper), mpf numbers: certified bounds on the branch's supremum (the best over the grids tried).
    """
    with mpmath.workdps(40):
        a = mpmath.mpf(alpha.numerator) / alpha.denominator
        alpha = float(alpha)  # for choosing points only

        def value(eps: float) -> tuple:
            d_lo, d_hi = profile_interval(eps)
            if variable == "t":
                t = mpmath.exp(eps)
                return 1 - d_hi - t * a, 1 - d_lo - t * a
            u = mpmath.exp(-eps)
            return u * (1 - a - d_hi), u * (1 - a - d_lo)

        def estimate(eps: float) -> float:
            d = delta_estimate(eps)
            return 1 - d - math.exp(eps) * alpha if variable == "t" else math.exp(-eps) * (1 - alpha - d)

        # a starting point: the Gaussian-DP approximation (its supporting line at α has slope −e^ε with
        # ε = μΦ⁻¹(1 − α) − μ²/2); then a walking grid that keeps the best point inside
        quantile = float(mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * min(alpha, 1 - alpha)))
        guess = mu * quantile - mu * mu / 2
        centre = min(max(guess, 0.0), float(MAX_DPSGD_EPSILON) - 1)
        spread = 0.05 * (1 + centre)
        lower, upper = -mpmath.inf, mpmath.inf
        for _ in range(40):
            eps_points = sorted({min(max(0.0, centre + k * spread), float(MAX_DPSGD_EPSILON)) for k in range(-3, 4)})
            vals = [value(e) for e in eps_points]
            coords = [mpmath.exp(e) if variable == "t" else mpmath.exp(-e) for e in eps_points]
            pts = sorted(zip(coords, vals), key=lambda p: p[0])
            # every grid's bounds are certified: keep the best of all (a grid finer than float64 resolves can
            # bound worse than a coarser one before it; r37i N3)
            lower = max(lower, max(v[0] for v in vals))
            upper = min(upper, concave_sup_upper(pts, variable))
            if upper - lower <= abs_tol / 2 or below is not None and upper <= below:
                return lower, upper
            best = max(range(len(vals)), key=lambda i: vals[i][0] + vals[i][1])
            inner = 0 < best < len(vals) - 1 or eps_points[best] == 0.0
            centre = eps_points[best]
            if inner:
                spread /= 4
            else:  # the best point at an edge: the maximiser lies beyond, walk faster (the first guess can be far off)
                spread *= 2
        return lower, upper


def tradeoff_interval(alpha: Fraction, abs_tol: float, groups, gaussian_z2, profile_interval, delta_estimate) -> tuple:
    """(lower, upper), mpf numbers bracketing β = f(α) of a run (its ``groups``): 1 at α = 0, 0 at α = 1; where every
    q is 1 (``gaussian_z2`` = 1/μ², else None) the Gaussian mechanism's closed form
    (:func:`~accountlib.engine.subsampled_gaussian.gaussian_tradeoff`); else the larger of the two branches'
    suprema (:func:`branch_supremum`, searched from the Gaussian-DP approximation μ² ≈ Σ T q²(e^{1/z²} − 1)),
    possibly wider than ``abs_tol`` (the caller decides)."""
    with mpmath.workdps(40):
        if alpha == 0:
            return mpmath.mpf(1), mpmath.mpf(1)  # no loss is infinite: f(0) = 1 − lim δ = 1
        if alpha == 1:
            return mpmath.mpf(0), mpmath.mpf(0)
        if gaussian_z2 is not None:
            return gaussian_tradeoff(gaussian_z2, alpha)
        mu = math.sqrt(math.fsum(g.steps * g.q * g.q * math.expm1(min(1 / (g.z * g.z), 700.0)) for g in groups))
        hooks = dict(profile_interval=profile_interval, delta_estimate=delta_estimate, mu=mu)
        lo_a, hi_a = branch_supremum(alpha, abs_tol, "t", **hooks)
        lo_b, hi_b = branch_supremum(alpha, abs_tol, "u", below=lo_a, **hooks)
        return max(lo_a, lo_b, mpmath.mpf(0)), min(max(hi_a, hi_b, mpmath.mpf(0)),
                                                   1 - mpmath.mpf(alpha.numerator) / alpha.denominator)


def tradeoff_point(alpha: Fraction, abs_tol: float, groups, gaussian_z2, profile_interval,
                   delta_estimate) -> DPSGDTradeoffPoint:
    """β = f(α) of a run as a result: :func:`tradeoff_interval`'s bracket as its midpoint ± its half-width (widened
    past the decimal conversion), ``meets_tolerance`` against ``abs_tol`` (shortfall "precision" where it misses)."""
    with mpmath.workdps(40):
        exact = mpmath.mpf(alpha.numerator) / alpha.denominator
        lo, hi = tradeoff_interval(alpha, abs_tol, groups, gaussian_z2, profile_interval, delta_estimate)
        value = (lo + hi) / 2
        bound = (hi - lo) / 2 + abs(value) * mpmath.mpf(10) ** -38
    return DPSGDTradeoffPoint(alpha=exact, beta=value, error_bound=error_bound(bound),
                              meets_tolerance=bool(bound <= abs_tol), shortfall=None if bound <= abs_tol else "precision",
                              relation=RELATION)


def tradeoff_refusal(point, abs_tol: float, run: str) -> str:
    """The one line refusing a β whose bound misses ``abs_tol``: the interval reached and the abs_tol it meets."""
    with mpmath.workdps(40):
        lo, hi = point.beta - point.error_bound, point.beta + point.error_bound
    width = width_shown(hi - lo)
    fix = (f"give abs_tol >= {width}, or best_effort=True for that interval" if float(width) <= LARGEST_TOL
           else f"that is wider than any abs_tol accepted ({LARGEST_TOL:g}): pass best_effort=True for it")
    return (f"abs_tol: f({mpmath.nstr(point.alpha, 6)}) is not certified to {abs_tol:g} for {run}: the certified "
            f"values of δ(ε) the search reached place β in [{mpmath.nstr(max(lo, 0), 6)}, {mpmath.nstr(hi, 6)}] (the "
            "supremum over ε of a run with some q < 1 is bracketed from a few points; here they did not close around "
            f"it); {fix}")
