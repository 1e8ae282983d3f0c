"""The symmetric trade-off function of a DP-SGD run from its certified privacy profile, bracketed by concavity.

Theory layer of :mod:`accountlib`. f(α) = sup_{ε ≥ 0} max(1 − δ(ε) − e^ε α, e^{−ε}(1 − δ(ε) − α)) (Dong, Roth & Su
2022, Prop. 2.12, for the symmetrised curve), δ the worse direction's profile. Each branch is the supremum of a
concave function (δ is convex in t = e^ε, and e^{−ε}δ(ε) in u = e^{−ε}): certified values at a few points near the
maximiser bound it from below, and the chords through them, extended, from above; where no chord bounds a cell,
δ's monotonicity does (:func:`monotone_bound`). The search for one α computes at most ``TRADEOFF_MAX_NODES`` nodes;
a bracket it leaves wider than asked is flagged "node cap". Used by
:meth:`accountlib.theory.dpsgd_accounting.DPSGDComposition.tradeoff`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from ..engine.subsampled_gaussian import gaussian_tradeoff
from ..engine.subsampled_gaussian_inversion import MAX_NODES
from ..infrastructure.interval_ends import lower_end, upper_end
from ..infrastructure.numbers import LARGEST_TOL, ResourceLimitError, error_bound
from .dpsgd_arguments import MAX_DPSGD_EPSILON
from .dpsgd_epsilon_search import bounded_delta_point, width_shown
from .dpsgd_results import RELATION, DPSGDTradeoffPoint

COARSE_WIDTH = 1e-3
"""The width each δ(ε) of a trade-off search's first, coarse pass is computed to (:func:`branch_supremum`)."""

TRADEOFF_MAX_NODES = 250_000
"""The nodes the search for one β = f(α) may compute, the contours of all its δ(ε) together (about 3.5e-5 s of one
core per node and group: 10 s for one group). Below ``MAX_NODES``, the cap of one δ's direction."""

__all__ = ["COARSE_WIDTH", "TRADEOFF_MAX_NODES", "monotone_bound", "concave_sup_upper", "branch_supremum", "tradeoff_interval",
           "tradeoff_point", "tradeoff_refusal"]


def monotone_bound(xs, hi, i, variable: str, alpha) -> mpmath.mpf:
    """An upper bound on a branch of the duality over the cell [xs[i], xs[i+1]] (i = −1: from the domain's edge to
    the first point; i = n − 1: from the last point on) from δ's monotonicity alone, no concavity: δ(ε) is
    nonincreasing, so on the t-branch h(t) = 1 − δ(log t) − tα ≤ 1 − δ(log t_{i+1}) − t_i α, and on the u-branch
    k(u) = u(1 − α − δ(−log u)) ≤ u(1 − α − δ(−log u_i)) (u ≥ u_i means ε ≤ ε_i), with δ ≥ 0 past the outer points.
    ``hi`` are the certified upper values at ``xs``; ``alpha`` the exact α (mpf)."""
    n = len(xs)
    if variable == "t":
        if i == n - 1:
            return 1 - xs[-1] * alpha  # δ ≥ 0 beyond the last point
        left = xs[i] if i >= 0 else mpmath.mpf(1)
        return hi[i + 1] + (xs[i + 1] - left) * alpha  # 1 − δ_lo(ε_{i+1}) − t_i α
    if i == -1:
        return max(xs[0] * (1 - alpha), mpmath.mpf(0))  # k(u) ≤ u(1 − α) for u ≤ u_0
    slope = hi[i] / xs[i]  # 1 − α − δ_lo(ε_i), the bound on k(u)/u on the cell (and on to u = 1 past the last point)
    right = xs[i + 1] if i + 1 < n else mpmath.mpf(1)
    return max(slope * xs[i], slope * right)


def concave_sup_upper(pts, variable: str, alpha=None) -> mpmath.mpf:
    """An upper bound on sup of a concave function over its domain (t ≥ 1, or 0 < u ≤ 1) from certified values
    ``pts`` = [(coordinate, (lower, upper))] sorted by coordinate: per cell the least of the neighbours' extended
    chords; beyond the outer points, the outer chord when its slope is certified to point down. Where no chord
    bounds a cell (or the region past an outer point) the bound is +inf, unless ``alpha`` (mpf) is given: the values
    are then those of a branch of the duality (:func:`branch_supremum`) and δ's monotonicity bounds every cell
    (:func:`monotone_bound`), the least of the two kept.

    A concave function lies below the extension of each of its chords beyond the chord's ends, so on a cell the
    least of the two neighbouring chords' extensions (each drawn through the certified ends that make it steepest
    the right way) bounds it from above.

    >>> pts = [(mpmath.mpf(x), (mpmath.mpf(-(x - 2) ** 2), mpmath.mpf(-(x - 2) ** 2))) for x in (1, 1.5, 2.5, 3)]
    >>> concave_sup_upper(pts, "t")  # the sup is 0; the neighbouring chords' extensions meet at (2, 0.5)
    mpf('0.5')
    """
    inf = mpmath.inf
    n = len(pts)
    xs = [p[0] for p in pts]
    lo = [p[1][0] for p in pts]
    hi = [p[1][1] for p in pts]

    def fallback(i):
        return inf if alpha is None else monotone_bound(xs, hi, i, variable, alpha)

    if n < 2:  # one point bounds nothing by chords (the grid collapsed onto an end of ε's range)
        return inf if alpha is None or n == 0 else max(fallback(-1), fallback(0))

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
            best = max(best, fallback(i))
            continue
        candidates = []
        for x in (xs[i], xs[i + 1]):
            candidates.append(min(v + s * (x - x0) for x0, v, s in lines))
        if len(lines) == 2:
            (x0, v0, s0), (x1, v1, s1) = lines
            if s0 != s1:
                x = (v1 - v0 + s0 * x0 - s1 * x1) / (s0 - s1)
                if xs[i] <= x <= xs[i + 1]:
                    candidates.append(v0 + s0 * (x - x0))
        best = max(best, min(max(candidates), fallback(i)))
    # beyond the outer points: the outer chords must point away from the maximum
    left_domain_edge = mpmath.mpf(1) if variable == "t" else mpmath.mpf(0)
    if xs[0] > left_domain_edge and slope_low(0, 1) < 0:
        best = max(best, fallback(-1))
    right_domain_edge = mpmath.inf if variable == "t" else mpmath.mpf(1)
    if xs[-1] < right_domain_edge and slope_up(n - 2, n - 1) > 0:
        best = max(best, fallback(n - 1))
    return best


def branch_supremum(alpha: Fraction, abs_tol: float, variable: str, *, profile_interval, mu: float,
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
        The width aimed at: the search returns once upper − max(lower, ``below``, 0) ≤ abs_tol/2.
    variable : str
        "t" or "u", the branch.
    profile_interval : callable
        (ε, width), floats → (lower, upper), a certified interval for the run's δ(ε) (mpf numbers), aiming at
        upper − lower ≤ width.
    mu : float
        The run's Gaussian-DP approximation μ, for the first guess of the maximiser.
    below : mpf, optional
        A certified lower bound on f(α) from the other branch (f ≥ 0 in any case): the search stops once its upper
        bound is within abs_tol/2 of it.

    Returns
    -------
    tuple
        (lower, upper, stopped): mpf numbers, certified bounds on the branch's supremum (the best over the grids
        tried), and whether a δ was refused (``ResourceLimitError``: the point's node budget spent, or a contour
        beyond the node cap) before they met ``abs_tol``.
    """
    with mpmath.workdps(40):
        a = mpmath.mpf(alpha.numerator) / alpha.denominator
        alpha = float(alpha)  # for choosing points only

        def at_width(eps: float, width: float) -> tuple:
            d_lo, d_hi = profile_interval(eps, width)
            if variable == "t":
                t = mpmath.exp(eps)
                return 1 - d_hi - t * a, 1 - d_lo - t * a
            u = mpmath.exp(-eps)
            return u * (1 - a - d_hi), u * (1 - a - d_lo)

        def value(eps: float, coarse: bool) -> tuple:
            # δ's error moves h by as much, k by u times as much: δ to a width of abs_tol/16 (over u), or in the
            # coarse pass to COARSE_WIDTH
            width = abs_tol / 16 if variable == "t" else min(abs_tol / 16 / math.exp(-eps), 0.5)
            return at_width(eps, max(width, COARSE_WIDTH) if coarse else width)

        # a starting point: the Gaussian-DP approximation (its supporting line at α has slope −e^ε with
        # ε = μΦ⁻¹(1 − α) − μ²/2); then a walking grid that keeps the best point inside
        quantile = float(mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * min(alpha, 1 - alpha)))
        guess = mu * quantile - mu * mu / 2
        top = float(MAX_DPSGD_EPSILON)
        floor = mpmath.mpf(0) if below is None else max(below, 0)  # β ≥ 0: a branch below that cannot be the sup
        lower, upper = -mpmath.inf, mpmath.inf
        # a coarse pass first, each δ to COARSE_WIDTH: where the branch is far below the other or below 0, it settles
        # the branch with few nodes (r37n P1: a nearly non-private run spent its budget on δ to 6e-10 far below 0);
        # else the fine pass, its bounds intersected with the coarse pass's (both certified)
        for coarse in (True, False):
            centre = min(max(guess, 0.0), top - 1)
            spread = 0.05 * (1 + centre)
            widths: list = []  # this pass's own progress (its grids' bounds alone)
            own_lower, own_upper = -mpmath.inf, mpmath.inf
            for _ in range(40):
                eps_points = sorted({min(max(0.0, centre + k * spread), top) for k in range(-3, 4)})
                try:
                    vals = [value(e, coarse) for e in eps_points]
                except ResourceLimitError:  # the point's node budget is spent: the bounds of the grids before stand
                    return lower, upper, True
                coords = [mpmath.exp(e) if variable == "t" else mpmath.exp(-e) for e in eps_points]
                pts = sorted(zip(coords, vals), key=lambda p: p[0])
                # every grid's bounds are certified: keep the best of all (a grid finer than float64 resolves can
                # bound worse than a coarser one before it; r37i N3)
                own_lower = max(own_lower, max(v[0] for v in vals))
                own_upper = min(own_upper, concave_sup_upper(pts, variable, a))
                lower, upper = max(lower, own_lower), min(upper, own_upper)
                widths.append(own_upper - max(own_lower, floor))
                if upper - max(lower, floor) <= abs_tol / 2:  # the caller's bracket starts at the larger of the two
                    return lower, upper, False
                if len(widths) > 3 and mpmath.isfinite(widths[-4]) and widths[-1] > 0.99 * widths[-4]:
                    break  # three grids without progress: δ's precision holds it (r37n P2)
                best = max(range(len(vals)), key=lambda i: vals[i][0] + vals[i][1])
                inner = 0 < best < len(vals) - 1 or eps_points[best] in (0.0, top)  # the ends of ε's range: close in
                centre = eps_points[best]
                if inner:
                    spread /= 4
                else:  # the best point at an edge: the maximiser lies beyond, walk faster (the first guess can be off)
                    spread *= 2
        return lower, upper, False


def tradeoff_interval(alpha: Fraction, abs_tol: float, groups, gaussian_z2, profile_interval) -> tuple:
    """(lower, upper, stopped): mpf numbers bracketing β = f(α) of a run (its ``groups``), and whether a δ was
    refused before they met ``abs_tol`` (:func:`branch_supremum`): 1 at α = 0, 0 at α = 1; where every q is 1
    (``gaussian_z2`` = 1/μ², else None) the Gaussian mechanism's closed form
    (:func:`~accountlib.engine.subsampled_gaussian.gaussian_tradeoff`); else the larger of the two branches'
    suprema (:func:`branch_supremum`, searched from the Gaussian-DP approximation μ² ≈ Σ T q²(e^{1/z²} − 1); each
    ε's δ computed once for both), possibly wider than ``abs_tol`` (the caller decides)."""
    with mpmath.workdps(40):
        if alpha == 0:
            return mpmath.mpf(1), mpmath.mpf(1), False  # no loss is infinite: f(0) = 1 − lim δ = 1
        if alpha == 1:
            return mpmath.mpf(0), mpmath.mpf(0), False
        if gaussian_z2 is not None:
            return (*gaussian_tradeoff(gaussian_z2, alpha), False)
        mu = math.sqrt(math.fsum(g.steps * g.q * g.q * math.expm1(min(1 / (g.z * g.z), 700.0)) for g in groups))
        known: dict = {}  # ε → (the width asked, the interval): each δ computed once unless asked finer

        def remembered(eps: float, width: float) -> tuple:
            if eps not in known or known[eps][0] > width:
                known[eps] = (width, profile_interval(eps, width))
            return known[eps][1]

        hooks = dict(profile_interval=remembered, mu=mu)
        lo_a, hi_a, stopped_a = branch_supremum(alpha, abs_tol, "t", **hooks)
        lo_b, hi_b, stopped_b = (branch_supremum(alpha, abs_tol, "u", below=lo_a, **hooks) if not stopped_a
                                 else (-mpmath.inf, mpmath.inf, True))
        return (max(lo_a, lo_b, mpmath.mpf(0)),
                min(max(hi_a, hi_b, mpmath.mpf(0)), 1 - mpmath.mpf(alpha.numerator) / alpha.denominator),
                stopped_a or stopped_b)


def tradeoff_point(alpha: Fraction, abs_tol: float, groups, gaussian_z2, run) -> DPSGDTradeoffPoint:
    """β = f(α) of a run as a result: :func:`tradeoff_interval`'s bracket as its midpoint ± its half-width (widened
    past the decimal conversion), ``meets_tolerance`` against ``abs_tol`` (where it misses, shortfall "node cap" if a
    δ of the search was refused for its nodes, else "precision"). Each δ from ``run``'s
    :meth:`~accountlib.theory.dpsgd_accounting.DPSGDComposition.delta_bracket` to the width aimed at, the search's
    contours within ``TRADEOFF_MAX_NODES`` nodes all together; where one δ's inversion alone would need more than the
    node cap, from the bounds that need no inversion (:func:`~.dpsgd_epsilon_search.bounded_delta_point`)."""
    spent: list = []

    def profile_interval(epsilon: float, width: float) -> tuple:  # δ ≤ 1: rel_tol·δ ≤ width/4
        try:
            p = run.delta_bracket(epsilon, min(max(width / 4, 1e-9), 1e-6), spent, settled=width)
        except ResourceLimitError as error:
            if getattr(error, "nodes", 0) <= MAX_NODES:  # this search's budget spent: it stops here
                raise
            p = bounded_delta_point(run, epsilon, 1e-9)  # no inversion in reach (r37n P2): the cheap bracket
        return lower_end(p.delta, p.error_bound), upper_end(p.delta, p.error_bound)

    with mpmath.workdps(40):
        exact = mpmath.mpf(alpha.numerator) / alpha.denominator
        lo, hi, stopped = tradeoff_interval(alpha, abs_tol, groups, gaussian_z2, profile_interval)
        lo = max(lo, mpmath.mpf(0))  # 0 ≤ f(α) ≤ 1 − α: a wide bracket shows no more than that
        hi = max(min(hi, 1 - exact), lo)
        value = (lo + hi) / 2
        bound = (hi - lo) / 2 + abs(value) * mpmath.mpf(10) ** -38
    meets = bool(bound <= abs_tol)
    return DPSGDTradeoffPoint(alpha=exact, beta=value, error_bound=error_bound(bound), meets_tolerance=meets,
                              shortfall=None if meets else "node cap" if stopped else "precision", relation=RELATION)


def tradeoff_refusal(point, abs_tol: float, run: str) -> str:
    """The one line refusing a β whose bound misses ``abs_tol``: the interval reached and the abs_tol it meets."""
    with mpmath.workdps(40):
        lo, hi = point.beta - point.error_bound, point.beta + point.error_bound
    width = width_shown((hi - lo) / 2)  # the bound this bracket meets: its half-width
    if point.shortfall == "node cap":  # a looser abs_tol needs its δ less precisely: it may meet far better (r37n P1)
        fix = "loosen abs_tol (its δ(ε) are then needed less precisely, with fewer nodes), or pass best_effort=True"
    elif float(width) <= LARGEST_TOL:
        fix = f"give abs_tol >= {width}, or best_effort=True for that interval"
    else:
        fix = f"that is wider than any abs_tol accepted ({LARGEST_TOL:g}): pass best_effort=True for it"
    why = (f"its δ(ε), all together, may compute {TRADEOFF_MAX_NODES:,} nodes, and they were spent before the "
           "bracket closed" if point.shortfall == "node cap" else "here they did not close around it")
    return (f"abs_tol: f({mpmath.nstr(point.alpha, 6)}) is not certified to {abs_tol:g} for {run}: the certified "
            f"values of δ(ε) the search reached place β in [{mpmath.nstr(max(lo, 0), 6)}, {mpmath.nstr(hi, 6)}] (the "
            f"supremum over ε of a run with some q < 1 is bracketed from a few points; {why}); {fix}")
