"""The trade-off curve f(α) from the privacy profile δ(ε), certified on both sides: for budgets whose lattice is
too fine for the lattice engines.

Theory layer of :mod:`accountlib`. For a pair of distributions, f(α) = sup_ε [1 − δ(ε) − e^ε α] over every real ε
(Dong, Roth & Su 2022, Prop. 2.12; the unifying paper, Prop. 3.1: the profile and the trade-off function carry the
same information). The compositions of :class:`~accountlib.theory.composition.Composition` are symmetric (x ↦ s − x
exchanges the two distributions), so δ(ε) = 1 − e^ε + e^ε δ(−ε) for ε < 0 and, with y = e^ε and w = e^{−ε},

    f(α) = max( sup_{y ≥ 1} [1 − αy − δ(y)],  sup_{0 < w ≤ 1} [(1 − α)w − γ(w)] ),   γ(w) = w·δ(1/w).

Both δ(y) = E[(1 − y e^{−L})₊] and γ(w) = E[(w − e^{−L})₊] (L the privacy loss) are convex, δ non-increasing and γ
non-decreasing, so each bracket is a concave function whose supremum finitely many certified values of δ bound
from both sides:

* **below** (the side a guarantee may use): every point gives 1 − αy − δ⁺(y) and (1 − α)w − wδ⁺, δ⁺ the certified
  upper end of δ;
* **above**: on a cell between two points a convex function lies above the extensions of its neighbouring chords
  (drawn through the lower end at the near point and the upper end at the far one, so that they stay below it
  whatever the values inside the intervals) and above its value at the cell's end in the direction it decreases;
  the bracket is at most the largest value of the linear minorant's complement on the cell (at an end or where
  two of the lines cross). Beyond the last point the same with δ ≥ 0.

The bound is of second order in the cells' widths. Cells whose upper bound exceeds the best lower bound by more
than twice the tolerance are split at their midpoints (in ε) until the band is narrow enough or
:data:`MAX_REFINEMENTS` rounds have run (the result's bound says which).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

__all__ = ["tradeoff_from_profile", "first_grid", "FIRST_GRID", "MAX_REFINEMENTS", "delta_from_tradeoff", "lower_convex_envelope",
           "RUNGS_PER_DECADE", "COARSEST_RUNG", "looser_rungs", "ESTIMATE_SLACK"]

MAX_REFINEMENTS = 30
"""Rounds of cell splitting per α (each evaluates δ at up to four new ε)."""

RUNGS_PER_DECADE = 3
"""The tolerances a smoothed trade-off point is computed for (:func:`looser_rungs`) are the powers 10^(−m/3): three a
decade, each 2.15 times the next (six a decade recompute the band's δ twice as often: budgets 1e-12 and 4 at
α = 0.5 then missed 2e-7 at ±2.04e-7, met at ±1.81e-7 with three)."""

ESTIMATE_SLACK = 100
"""A smoothed trade-off point is refused on its up-front cost estimate, before any pass, only where the estimate
passes its work budget this many times: the estimate (the finest δ at the first grid's points) overshoots what the
rungs spend by up to 9 times (r37q E1: budgets 5/4 and 2 at α = 0.99 to 1e-9 estimated at 3 budgets, met at
±1.39e-10 in 2.4 s), and a point within it is computed and refused only if it then misses its tolerance."""

COARSEST_RUNG = 0.5
"""The loosest tolerance a smoothed trade-off point is computed for (:func:`looser_rungs`), whatever its ``abs_tol``:
the rungs above 1e-3 cost little (budgets 1/2, 13/17 and 7/1000003, 1/3 and 1/5, 2.5 and 0.05 at abs_tol 1e-3 to
1e-7: 10.83 CPU s in all, against 10.73 starting at 1e-3), and one start for every tolerance keeps the ladders nested
(r37q B: starting at 100·abs_tol above 1e-5, 2e-5 ended at ±7.6e-3 where 1e-3 met ±2.1e-4 under a small budget)."""


def looser_rungs(abs_tol: float) -> list[float]:
    """The tolerances a smoothed trade-off point is computed for, loosest first: the powers 10^(−m/3)
    (:data:`RUNGS_PER_DECADE`) from :data:`COARSEST_RUNG` down to the first at or below ``abs_tol``. The point stops
    at the first rung whose intersected bracket meets ``abs_tol``; the certified brackets are intersected, and each
    rung starts from the δ the rungs before it computed (:func:`tradeoff_from_profile`'s ``known``), so a tight
    tolerance passes through what a looser one computes.

    The rungs of every ``abs_tol`` are one fixed ladder cut at ``abs_tol``: a tighter tolerance runs every rung a
    looser one runs, in the same order on the same budget, and then more (the last rung of the looser one to its
    end), so its bracket is never wider than the looser one's (r37p N1: rungs ending in abs_tol itself left X =
    13/17, 7/1000003 at α = 0.1, under a twentieth of the default budget, refused at ±7.9e-7 for 5e-7 where 7e-7 met
    ±3.3e-7). A point's first rungs cost little and settle the grid and its far end; a tight rung then recomputes
    only the δ that bound its band (r37o Q1: four powers above 3·abs_tol as the first rungs spent the budget before
    the grid was covered). The price: a last rung up to 2.15 times finer than ``abs_tol`` can miss a budget that
    ``abs_tol`` itself would fit (r37q RG: X at α = 0.1 to 7e-9 is flagged at ±9.35e-9; rungs ending at 7e-9 met
    ±3.48e-9).

    >>> [f"{t:.3g}" for t in looser_rungs(1e-5)]
    ['0.464', '0.215', '0.1', '0.0464', '0.0215', '0.01', '0.00464', '0.00215', '0.001', '0.000464', '0.000215', '0.0001', '4.64e-05', '2.15e-05', '1e-05']
    """
    top = COARSEST_RUNG
    m = math.ceil(-RUNGS_PER_DECADE * math.log10(top) - 1e-9)  # the first power at or below top
    rungs = []
    while not rungs or rungs[-1] > abs_tol * (1 + 1e-12):
        rungs.append(10.0 ** (-m / RUNGS_PER_DECADE))
        m += 1
    return rungs


_SLACK = mpmath.mpf(10) ** -30  # the 40-digit arithmetic of the lines, far below any band reached


def _line(x1, v1, x2, v2):
    slope = (v2 - v1) / (x2 - x1)
    return slope, v1 - slope * x1


def _cell_upper(c1, lines, x_lo, x_hi):
    """max over x in [x_lo, x_hi] of min over lines (s, b) of c1·x − (s·x + b) (a concave polyline)."""
    def value(x):
        return min(c1 * x - (s * x + b) for s, b in lines)
    candidates = [x_lo, x_hi]
    for i in range(len(lines)):
        for j in range(i + 1, len(lines)):
            (s1, b1), (s2, b2) = lines[i], lines[j]
            if s1 != s2:
                x = (b2 - b1) / (s1 - s2)
                if x_lo < x < x_hi:
                    candidates.append(x)
    return max(value(x) for x in candidates)


def _bracket_bounds(c0, c1, xs, lo, hi, decreasing: bool):
    """(lower, upper) of sup_x c0 + c1·x − φ(x) over [xs[0], xs[-1]] for a convex monotone φ ∈ [lo_k, hi_k] at
    xs[k] (increasing xs), and the upper bound of each cell."""
    lower = max(c0 + c1 * x - h for x, h in zip(xs, hi))
    cells = []
    n = len(xs)
    for k in range(n - 1):
        lines = [(mpmath.mpf(0), lo[k + 1] if decreasing else lo[k])]
        if k >= 1:
            lines.append(_line(xs[k - 1], hi[k - 1], xs[k], lo[k]))
        if k + 2 < n:
            lines.append(_line(xs[k + 1], lo[k + 1], xs[k + 2], hi[k + 2]))
        cells.append(c0 + _cell_upper(c1, lines, xs[k], xs[k + 1]) + _SLACK)
    return lower, cells


FIRST_GRID = 17
"""The ε of the first round of :func:`tradeoff_from_profile`: 0 to E in 16 steps (E past where 1 − α e^E < 0)."""


def first_grid(alpha: Fraction) -> list[Fraction]:
    """The ε at which :func:`tradeoff_from_profile` first evaluates δ for ``alpha`` in (0, 1) (empty at 0 and 1):
    what a cost estimate of the trade-off point reads."""
    if not 0 < alpha < 1:
        return []
    with mpmath.workdps(40):
        a = float(mpmath.mpf(alpha.numerator) / alpha.denominator)
    top = Fraction(math.ceil(max(-math.log(a), 1.0) * 8) + 8, 8)  # 1 − α e^E < 0 beyond E
    return sorted({top * k / (FIRST_GRID - 1) for k in range(FIRST_GRID)})


def tradeoff_from_profile(delta_at, alpha: Fraction, abs_tol: float, *, spent=None, known: dict | None = None,
                          enough: float | None = None) -> tuple:
    """(lower, upper) of f(α) from ``delta_at(ε) -> (δ, error_bound)`` (mpf, for exact ε ≥ 0), with
    upper − lower ≤ 2·abs_tol where :data:`MAX_REFINEMENTS` rounds reach it. ``spent``: called after each round;
    True (the caller's work budget is spent: later δ would come back no narrower) ends the refinement with the
    narrowest bracket so far. ``enough`` (≥ abs_tol): a half-width at which the refinement ends early, the rounds
    run until then the same as without it (a point's last rung, finer than its tolerance, stops where it meets it).

    ``known``: certified (lower, upper) of δ at ε from an earlier, looser pass ({ε: (lo, hi)}), updated in place.
    The first round starts from its points as well as :func:`first_grid`, and every new δ is intersected with what
    was known there, so a pass that the caller's budget stops part way still brackets β at least as narrowly as the
    pass before it, and more narrowly wherever a finer δ came back (r37n P3: the last pass of a point, stopped, left
    the bracket of its first 17 points).

    >>> import mpmath
    >>> def rr(eps):  # randomized response with e^1: δ(ε) = max(0, (e − e^ε)/(1 + e))
    ...     return max(mpmath.mpf(0), (mpmath.e - mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)) / (1 + mpmath.e)), mpmath.mpf(0)
    >>> lo, hi = tradeoff_from_profile(rr, Fraction(1, 10), 1e-9)
    >>> float(lo) - 1e-9 <= 1 - float(mpmath.e) / 10 <= float(hi) + 1e-9 and float(hi - lo) < 1e-8
    True
    """
    with mpmath.workdps(40):
        a = mpmath.mpf(alpha.numerator) / alpha.denominator
        if a == 0:
            return mpmath.mpf(1), mpmath.mpf(1)  # both distributions charge every integer: β = 1 at α = 0
        if a == 1:
            return mpmath.mpf(0), mpmath.mpf(0)
        cache: dict = {}  # this pass's δ brackets
        known = {} if known is None else known

        def ends(eps: Fraction):
            if eps not in cache:
                d, e = delta_at(eps)
                lo, hi = max(d - e, mpmath.mpf(0)), min(d + e, mpmath.mpf(1))
                if eps in known:  # both certified: so is their intersection
                    lo, hi = max(lo, known[eps][0]), min(hi, known[eps][1])
                cache[eps] = known[eps] = (lo, max(lo, hi))
            return cache[eps]

        points = sorted(set(first_grid(alpha)) | set(known))
        top = points[-1]
        best = (mpmath.mpf(0), mpmath.mpf(1))  # the intersection of the rounds' certified brackets
        refinements = 0
        while True:
            epss = sorted(set(points))
            vals = [cache.get(e) or known.get(e) or ends(e) for e in epss]  # an earlier pass's δ until it matters
            current = {e for e in epss if e in cache or known[e][1] - known[e][0] <= abs_tol / 2}  # as a δ of this pass
            ys = [mpmath.exp(mpmath.mpf(e.numerator) / e.denominator) for e in epss]
            # h1 over y ≥ 1 (y increasing with ε)
            low1, cells1 = _bracket_bounds(1, -a, ys, [v[0] for v in vals], [v[1] for v in vals], decreasing=True)
            # beyond the last y: δ ≥ max(0, the last chord's extension)
            tail_lines = [(mpmath.mpf(0), mpmath.mpf(0)), _line(ys[-2], vals[-2][1], ys[-1], vals[-1][0])]
            tail1 = 1 + _cell_upper(-a, tail_lines, ys[-1], max(ys[-1], 1 / a) * 2) + _SLACK  # 1 − αy < 0 beyond 1/α
            # h2 over w = 1/y in (0, 1] (w increasing as ε decreases), γ(w) = w δ
            ws = [1 / y for y in reversed(ys)]
            glo = [w * v[0] for w, v in zip(ws, reversed(vals))]
            ghi = [w * v[1] for w, v in zip(ws, reversed(vals))]
            low2, cells2 = _bracket_bounds(0, 1 - a, ws, glo, ghi, decreasing=False)
            tail2 = (1 - a) * ws[0] + _SLACK  # w below the smallest: (1 − α)w − γ ≤ (1 − α)w
            lower = max(low1, low2, mpmath.mpf(0))
            # cell k of h1 is [ε_k, ε_{k+1}]; cell k of h2 is [ε_{n−2−k}, ε_{n−1−k}]
            n = len(epss)
            per_cell = [max(cells1[k], cells2[n - 2 - k]) for k in range(n - 1)]
            upper = max(max(per_cell), tail1, tail2, lower)
            # every round's bracket is certified, so their intersection is: a round whose new δ came back wide (a
            # work limit spent: only the Chernoff bracket) never widens what an earlier round reached
            best = (max(best[0], lower), max(min(best[1], upper), best[0], lower))
            if (best[1] - best[0] <= 2 * max(abs_tol, enough or 0) or refinements > MAX_REFINEMENTS
                    or (spent is not None and spent())):
                return best[0], min(best[1], 1 - a)
            # the δ that bound the worst cells (a cell's chords reach one point beyond each end) and the best lower
            # bound, where they come from an earlier pass, are computed for this one first: a looser δ's error, not
            # the grid, may be what holds the band
            worst = [k for k in sorted(range(n - 1), key=lambda k: -per_cell[k])[:4] if per_cell[k] > lower + 2 * abs_tol]
            near = {max(range(n), key=lambda i: max(1 - a * ys[i] - vals[i][1], ((1 - a) - vals[i][1]) / ys[i]))}
            near |= {i for k in worst for i in range(k - 1, k + 3) if 0 <= i < n}
            if max(tail1, tail2) > lower + 2 * abs_tol:
                near |= {n - 2, n - 1}
            stale = [epss[i] for i in sorted(near) if epss[i] not in current]
            if stale:
                for eps in stale:
                    ends(eps)
                continue
            refinements += 1
            if max(tail1, tail2) > lower + 2 * abs_tol:
                top *= 2
                points.append(top)
                continue
            for k in worst:
                points.append((epss[k] + epss[k + 1]) / 2)


def delta_from_tradeoff(alphas, betas, epsilon) -> float:
    """δ(ε) = max over the vertices of f of (1 − β − e^ε α), clipped at 0 (exact for piecewise-linear f)."""
    growth = math.exp(float(epsilon))
    return max(0.0, max(1 - float(b) - growth * float(a) for a, b in zip(alphas, betas)))


def lower_convex_envelope(xs, ys) -> list[int]:
    """Indices of the lower convex hull of the points (x_i, y_i), in order of increasing x (Andrew's monotone
    chain; ties in x ordered by y, equal points kept in their given order).

    The arithmetic is that of the coordinates themselves — ``Fraction`` exactly, ``Decimal`` in the current
    decimal context (the census-wide trade-off curve, :func:`accountlib.applications.census.census_wide.census_tradeoff`), floats in
    float64 — so the caller chooses exact or rounded orientation tests. A point on a hull edge is dropped.

    >>> lower_convex_envelope([0, 1, 2, 3], [3, 1, 2, 0])
    [0, 1, 3]
    """
    if len(xs) != len(ys):
        raise ValueError(f"xs and ys must have the same length; got {len(xs)} and {len(ys)}")
    order = sorted(range(len(xs)), key=lambda i: (xs[i], ys[i]))
    hull: list[int] = []
    for i in order:
        while len(hull) >= 2:
            o, a = hull[-2], hull[-1]
            if (xs[a] - xs[o]) * (ys[i] - ys[o]) - (ys[a] - ys[o]) * (xs[i] - xs[o]) <= 0:
                hull.pop()
            else:
                break
        hull.append(i)
    return hull
