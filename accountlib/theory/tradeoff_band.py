"""A certified band around a convex trade-off curve known at a finite set of vertices.

Theory layer of :mod:`accountlib`. A trade-off function f is convex (Dong, Roth & Su 2022, Prop. 2.2), so a
curve stored as vertices (α_i, β_i) can be *overstated* between them: the chords lie above f. A privacy guarantee
must err towards less privacy, so this module turns stored vertices into two polylines,

* the **pessimistic side** p ≤ f: at every vertex the exact curve has two known one-sided slopes (for the
  discrete Gaussian compositions of :class:`~accountlib.theory.composition.Composition`, minus the likelihood ratios of the
  two adjacent atoms, book, Derivations §2), and the supporting lines with those slopes lie below f everywhere
  (convexity). Between two stored vertices p is the larger of the right-hand line of the left vertex and the
  left-hand line of the right vertex (and 0), each lowered by the vertex's error bound ``e``:
  e·(1 + |slope|) covers an error e in both α and β;
* the **optimistic side** u ≥ f: the chords, raised by e·(1 + |chord slope|) and capped at 1 − α.

The exact f lies between them at every α in [0, 1]; the band's width says how much the stored vertices leave
unknown. A census-wide guarantee is the lower convex envelope of the pairs' pessimistic sides
(:func:`accountlib.applications.census.census_wide.census_tradeoff`).

Slopes must be *inward-rounded*: the left slope (used for α below the vertex) no steeper than the exact one,
the right slope (used above it) no shallower. Then each supporting line stays below f whatever the rounding.

The arithmetic is ``Decimal`` at :data:`PRECISION` digits; every pessimistic point is lowered by
:data:`ARITHMETIC_MARGIN`, far above the rounding of a few dozen operations at that precision on numbers of
magnitude below 10¹⁵ (slopes of stored census vertices stay below 10¹⁴).
"""

from __future__ import annotations

from decimal import Decimal, localcontext

__all__ = ["PRECISION", "ARITHMETIC_MARGIN", "pessimistic_polyline", "optimistic_polyline", "interpolate",
           "band_at"]

PRECISION = 60
"""The decimal digits of the band's arithmetic (a ``Decimal`` context)."""
ARITHMETIC_MARGIN = Decimal("1e-40")
"""The slack, relative, by which the band's rounded arithmetic is moved to its safe side."""
_ZERO, _ONE = Decimal(0), Decimal(1)


def _column(values, name: str) -> list[Decimal]:
    """A column of numbers as finite Decimals (floats read as the decimals they print as); else ValueError."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ValueError(f"{name} must be a list of numbers; got {values!r}")
    out = []
    for i, x in enumerate(values):
        if isinstance(x, bool) or not isinstance(x, (Decimal, int, float, str)):
            raise ValueError(f"{name}[{i}] must be a number (Decimal, int, float or decimal string); got {x!r}")
        try:
            d = Decimal(repr(x)) if isinstance(x, float) else Decimal(x)
        except ArithmeticError:
            raise ValueError(f"{name}[{i}] must be a decimal number; got {x!r}") from None
        if not d.is_finite():
            raise ValueError(f"{name}[{i}] must be finite; got {x!r}")
        out.append(d)
    return out


def _check(alpha, beta, bound, *slopes):
    """The columns as Decimals, validated: α, β in [0, 1] and α non-decreasing, bounds ≥ 0, slopes ≤ 0."""
    alpha, beta, bound = _column(alpha, "alpha"), _column(beta, "beta"), _column(bound, "error_bound")
    slopes = [_column(s, name) for s, name in zip(slopes, ("slope_left", "slope_right"))]
    n = len(alpha)
    if n == 0:
        raise ValueError("the curve must have at least one vertex; got none")
    for name, column in (("beta", beta), ("error_bound", bound), *zip(("slope_left", "slope_right"), slopes)):
        if len(column) != n:
            raise ValueError(f"{name} must have one entry per vertex ({n}); got {len(column)}")
    for name, column in (("alpha", alpha), ("beta", beta)):
        bad = next((i for i, x in enumerate(column) if not 0 <= x <= 1), None)
        if bad is not None:
            raise ValueError(f"{name}[{bad}] must lie in [0, 1]; got {column[bad]}")
    bad = next((i for i, x in enumerate(bound) if x < 0), None)
    if bad is not None:
        raise ValueError(f"error_bound[{bad}] must be >= 0; got {bound[bad]}")
    for name, column in zip(("slope_left", "slope_right"), slopes):
        bad = next((i for i, x in enumerate(column) if x > 0), None)
        if bad is not None:
            raise ValueError(f"{name}[{bad}] must be <= 0 (a trade-off curve does not increase); got {column[bad]}")
    if any(b < a for a, b in zip(alpha, alpha[1:])):
        raise ValueError("alpha must be non-decreasing (vertices sorted by type I error)")
    return (alpha, beta, bound, *slopes)


def pessimistic_polyline(alpha, beta, bound, slope_left, slope_right) -> tuple[list[Decimal], list[Decimal]]:
    """Breakpoints (xs, ys) of a polyline on [0, 1] that lies below the exact trade-off curve everywhere.

    ``alpha``, ``beta``, ``bound``: the stored vertices, sorted by α, each true vertex within ``bound`` of the
    stored one in both coordinates. ``slope_left``/``slope_right``: dβ/dα of f just left/right of each vertex
    (negative), inward-rounded (module docstring). All ``Decimal``. The polyline is the function
    max(0, right line of vertex i, left line of vertex i+1) on [α_i, α_{i+1}] (and the one line that applies
    on [0, α_1] and [α_n, 1]), with its kinks as breakpoints; at a stored vertex it takes the smaller of the
    values the two adjacent intervals give. Every y is lowered by :data:`ARITHMETIC_MARGIN` and is ≥ 0
    (f ≥ 0 is known).

    >>> D = Decimal
    >>> xs, ys = pessimistic_polyline([D(0), D(1)], [D(1), D(0)], [D(0), D(0)], [D(-1), D(-1)], [D(-1), D(-1)])
    >>> [float(x) for x in xs], [round(float(y), 12) for y in ys]
    ([0.0, 1.0], [1.0, 0.0])
    """
    alpha, beta, bound, slope_left, slope_right = _check(alpha, beta, bound, slope_left, slope_right)
    n = len(alpha)
    with localcontext() as context:
        context.prec = PRECISION

        def right_line(i):  # the supporting line at vertex i, used to its right
            s = -slope_right[i]
            return lambda x: beta[i] - s * (x - alpha[i]) - bound[i] * (1 + s)

        def left_line(i):  # the supporting line at vertex i, used to its left
            s = -slope_left[i]
            return lambda x: beta[i] + s * (alpha[i] - x) - bound[i] * (1 + s)

        def zero_of(i, side):  # where that line crosses 0
            s = -(slope_right[i] if side == "right" else slope_left[i])
            if s == 0:
                return None
            return alpha[i] + (beta[i] - bound[i] * (1 + s)) / s

        def crossing(i):  # where the right line of i meets the left line of i+1
            s_r, s_l = -slope_right[i], -slope_left[i + 1]
            if s_l == s_r:
                return None
            top = beta[i + 1] + s_l * alpha[i + 1] - bound[i + 1] * (1 + s_l)
            top -= beta[i] + s_r * alpha[i] - bound[i] * (1 + s_r)
            return top / (s_l - s_r)

        points: dict[Decimal, Decimal] = {}

        def add(x, value):
            y = max(value - ARITHMETIC_MARGIN, _ZERO)
            points[x] = min(points.get(x, y), y)

        # [0, α_1]: the left line of the first vertex
        first = left_line(0)
        start = max(min(alpha[0], _ONE), _ZERO)
        for x in {_ZERO, start} | {z for z in [zero_of(0, "left")] if z is not None and _ZERO < z < start}:
            add(x, first(x))
        for i in range(n - 1):
            a, b = alpha[i], alpha[i + 1]
            if not a < b:
                continue
            lines = (right_line(i), left_line(i + 1))
            xs = {a, b}
            candidates = [crossing(i)]
            if lines[0](b) < 0:  # a line crosses 0 inside the interval only if it is negative at the far end
                candidates.append(zero_of(i, "right"))
            if lines[1](a) < 0:
                candidates.append(zero_of(i + 1, "left"))
            for z in candidates:
                if z is not None and a < z < b:
                    xs.add(z)
            for x in xs:
                if _ZERO <= x <= _ONE:
                    add(x, max(line(x) for line in lines))
        # [α_n, 1]: the right line of the last vertex
        last = right_line(n - 1)
        end = max(min(alpha[-1], _ONE), _ZERO)
        for x in {end, _ONE} | {z for z in [zero_of(n - 1, "right")] if z is not None and end < z < _ONE}:
            add(x, last(x))
    xs = sorted(points)
    return xs, [points[x] for x in xs]


def optimistic_polyline(alpha, beta, bound) -> tuple[list[Decimal], list[Decimal]]:
    """Breakpoints (xs, ys) of a polyline on [0, 1] that lies above the exact trade-off curve everywhere.

    The chords through the stored vertices, each vertex raised by bound·(1 + the steeper adjacent chord slope),
    capped at 1 − α (f ≤ 1 − α for every trade-off function) and joined to (1, 0).
    """
    alpha, beta, bound = _check(alpha, beta, bound)
    n = len(alpha)
    with localcontext() as context:
        context.prec = PRECISION
        xs, ys = [], []
        for i in range(n):
            steepest = _ZERO
            for j in (i - 1, i + 1):
                if 0 <= j < n and alpha[j] != alpha[i]:
                    steepest = max(steepest, abs((beta[j] - beta[i]) / (alpha[j] - alpha[i])))
            x = max(min(alpha[i], _ONE), _ZERO)
            y = min(beta[i] + bound[i] * (1 + steepest) + ARITHMETIC_MARGIN, _ONE - x)
            if xs and x == xs[-1]:
                ys[-1] = max(ys[-1], y)
            else:
                xs.append(x)
                ys.append(y)
        if xs[0] > _ZERO:
            xs.insert(0, _ZERO)
            ys.insert(0, _ONE)
        if xs[-1] < _ONE:
            xs.append(_ONE)
            ys.append(_ZERO)
    return xs, ys


def interpolate(xs, ys, at) -> list[Decimal]:
    """The polyline through (xs, ys) (sorted xs) at each point of ``at`` (in [xs[0], xs[-1]]), in Decimal."""
    import bisect

    xs, ys = _column(xs, "xs"), _column(ys, "ys")
    if not xs or len(xs) != len(ys) or any(b < a for a, b in zip(xs, xs[1:])):
        raise ValueError("xs must be a non-empty, non-decreasing list with one ys entry each")
    out = []
    with localcontext() as context:
        context.prec = PRECISION
        for x in _column(at, "alpha"):
            if not xs[0] <= x <= xs[-1]:
                raise ValueError(f"alpha must lie in [{xs[0]}, {xs[-1]}]; got {x}")
            i = bisect.bisect_left(xs, x)
            if xs[i] == x:
                out.append(ys[i])
                continue
            x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
            out.append(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
    return out


def band_at(curve: dict, alphas) -> tuple[list[Decimal], list[Decimal]]:
    """(pessimistic, optimistic) β at each α for a curve with keys ``alpha, beta, tradeoff_error, slope_left,
    slope_right`` (:func:`accountlib.applications.census.census_wide.read_pair_curves`): the exact f(α) lies between the two."""
    low = pessimistic_polyline(curve["alpha"], curve["beta"], curve["tradeoff_error"], curve["slope_left"],
                               curve["slope_right"])
    high = optimistic_polyline(curve["alpha"], curve["beta"], curve["tradeoff_error"])
    return interpolate(*low, alphas), interpolate(*high, alphas)
