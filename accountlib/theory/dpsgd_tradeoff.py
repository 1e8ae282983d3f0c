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

from .dpsgd_arguments import MAX_DPSGD_EPSILON

__all__ = ["concave_sup_upper", "branch_supremum"]


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
        (lower, upper), mpf numbers: certified bounds on the branch's supremum.
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
        lower = upper = None
        for _ in range(40):
            eps_points = sorted({min(max(0.0, centre + k * spread), float(MAX_DPSGD_EPSILON)) for k in range(-3, 4)})
            vals = [value(e) for e in eps_points]
            coords = [mpmath.exp(e) if variable == "t" else mpmath.exp(-e) for e in eps_points]
            pts = sorted(zip(coords, vals), key=lambda p: p[0])
            lower = max(v[0] for v in vals)
            upper = concave_sup_upper(pts, variable)
            if upper - lower <= abs_tol / 2 or below is not None and upper <= below:
                return lower, upper
            best = max(range(len(vals)), key=lambda i: vals[i][0] + vals[i][1])
            inner = 0 < best < len(vals) - 1 or eps_points[best] == 0.0
            centre = eps_points[best]
            if inner:
                spread /= 4
        return lower, upper
