"""Privacy targets: (ε, δ)-DP, μ-GDP and a trade-off curve, each reduced to the levels a composition is checked at.

Theory layer of :mod:`accountlib`. Targets (:class:`ApproximateDP`, :class:`GaussianDP`, :class:`TradeoffCurve`)
all reduce to finitely many *levels* (:class:`Level`): an ε with the largest δ(ε) the target allows there and the δ
above which it certainly fails. For a trade-off curve g given as points (convex, decreasing) this is exact duality
(unifying paper, Prop. 2.2 / Dong, Roth and Su's f-DP): f ≥ g on [0, 1] if and only if, for the slope −e^ε of each
segment, δ_f(ε) ≤ 1 − β − e^ε α at the segment's ends, so the check holds *between* the points and in the tail, not
only on a grid. Segments flatter than −1 are checked on the reflected curve g⁻¹, which suffices because every
composition here is symmetric (f = f⁻¹: the pair N_Z(0, σ²), N_Z(s, σ²) is swapped by x ↦ s − x). A μ-GDP
target is checked through chords of G_μ, which lie above G_μ, and fails against G_μ's own exact profile
δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (:mod:`accountlib.theory.gaussian_dp`; Dong, Roth and Su 2022,
Cor. 2.13). How a composition is checked against the levels is :mod:`accountlib.theory.decision`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath

from ..infrastructure.numbers import LARGEST_TOL, as_fraction, as_positive_fraction, as_tolerance, decimal_string, fraction_to_mpf
from .composition import MAX_EPSILON
from .gaussian_dp import gaussian_profile, gaussian_tradeoff

__all__ = ["Level", "ApproximateDP", "TradeoffCurve", "GaussianDP", "TAIL_SLACK", "MAX_MU_GDP", "MAX_CURVE_POINTS",
           "SMALLEST_DELTA", "SMALLEST_EPSILON_WIDTH", "as_epsilon_width", "LEVEL_DIGITS", "LEVEL_MARGIN", "as_target_delta", "parts", "levels_of", "level_targets",
           "convex_points"]

LEVEL_DIGITS = 60
"""The working precision (decimal digits) of the levels' arithmetic (the engine's values carry their own)."""
LEVEL_MARGIN = mpmath.mpf(10) ** -45
"""The relative slack that keeps a level's rounding on the safe side."""


def _fraction(value, name: str) -> Fraction:
    return as_positive_fraction(value, name, floats="decimal")


SMALLEST_DELTA = Fraction(1, 10**300)
"""The smallest δ a target or :func:`~accountlib.theory.accounting.epsilon` accepts (1e-300: its logarithm and float estimates stay finite)."""


SMALLEST_EPSILON_WIDTH = 1e-30
"""The narrowest ε interval :func:`accountlib.theory.accounting.epsilon` is asked for: a width w needs δ to about
w·|δ'(ε)|/δ relative, and the finest relative tolerance is :data:`~accountlib.infrastructure.numbers.SMALLEST_REL_TOL`."""


def as_epsilon_width(value, name: str = "abs_tol") -> float:
    """The one validator of an ε interval's width: an absolute tolerance in [SMALLEST_EPSILON_WIDTH, LARGEST_TOL] =
    [1e-30, 0.5] (narrower than the relative accuracy of δ can decide; :data:`SMALLEST_EPSILON_WIDTH`)."""
    return as_tolerance(value, name, smallest=SMALLEST_EPSILON_WIDTH, largest=LARGEST_TOL)


def as_target_delta(value, name: str) -> Fraction:
    """A target's δ as an exact rational in [:data:`SMALLEST_DELTA`, 1) (``ValueError`` naming ``name`` otherwise)."""
    value = as_fraction(value, name, floats="decimal")
    if not 0 < value < 1:
        from ..infrastructure.shown import shown_value  # messages only: not loaded on the way to an answer

        shown = shown_value(value) if abs(value) < 10**300 else "a value beyond 1e300"
        raise ValueError(f"{name} must be in [1e-300, 1); got {shown}")
    if value < SMALLEST_DELTA:
        raise ValueError(f"{name} must be in [1e-300, 1); got a value below 1e-300")
    return value


#: The most points a TradeoffCurve takes (its check costs a certified δ per distinct slope and, per slope, a pass
#: over the vertices: about 10 s at this size), and the most chords of a GaussianDP.
MAX_CURVE_POINTS = 1024


# -- targets ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Level:
    """One ε of a target: it holds there when δ(ε) + bound ≤ ``allowed``, and certainly fails when
    δ(ε) − bound > ``witness`` (the target's own δ at ε; ``allowed`` ≤ ``witness``)."""

    epsilon: Fraction
    allowed: mpmath.mpf
    witness: mpmath.mpf


@dataclass(frozen=True)
class ApproximateDP:
    """(ε, δ)-DP: δ(ε) ≤ δ.

    >>> from accountlib.theory.decision import check
    >>> [c.status for c in check(["1/8"], ApproximateDP(1, "1e-3"))]   # N_Z(0, 8): δ(1) ≤ 1e-3 holds
    ['holds']
    """

    epsilon: Fraction
    delta: Fraction

    def __init__(self, epsilon, delta):
        eps = as_fraction(epsilon, "epsilon", floats="decimal")
        if not 0 <= eps <= MAX_EPSILON:
            from ..infrastructure.shown import shown_value  # messages only: not loaded on the way to an answer

            raise ValueError(f"epsilon must be in [0, {MAX_EPSILON}] (ε = 0: δ(0), the total variation distance, at most "
                             f"δ); got {shown_value(eps) if abs(eps) < 10**300 else 'a value beyond 1e300'}")
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "delta", as_target_delta(delta, "delta"))

    def levels(self) -> list[Level]:
        """The (ε, allowed δ, witness δ) levels at which this target is checked (:class:`Level`)."""
        with mpmath.workdps(LEVEL_DIGITS):  # allowed rounded down, witness up: each errs on its safe side
            allowed, witness = fraction_to_mpf(self.delta, "d"), fraction_to_mpf(self.delta, "u")
        return [Level(self.epsilon, allowed, witness)]

    def __str__(self) -> str:
        return f"({float(self.epsilon):g}, {float(self.delta):g})-DP"


def _segment_levels(points: list[tuple[Fraction, Fraction]], witness_of) -> list[Level]:
    """The levels of the convex piecewise-linear curve through ``points`` (α increasing, β decreasing): one per
    segment of slope ≤ −1 (ε = log(−slope)), and one per segment of slope in (−1, 0) on the reflected curve."""
    levels = {}
    with mpmath.workdps(LEVEL_DIGITS):
        for (a0, b0), (a1, b1) in zip(points, points[1:]):
            slope = (b1 - b0) / (a1 - a0)
            if slope == 0:
                continue  # the flat end at β = 0 (checked by the caller): nothing to hold
            ends = [(a0, b0), (a1, b1)] if slope <= -1 else [(b1, a1), (b0, a0)]  # reflected: (β, α)
            steep = -slope if slope <= -1 else -1 / slope
            # any ε gives a valid supporting line of f; a short rational at or just below log(steepness), so that
            # e^ε never exceeds the steepness (a line steeper than the segment would cut it at its lower end)
            eps = Fraction(int(mpmath.floor(mpmath.log(fraction_to_mpf(steep)) * 10**45)), 10**45) if steep > 1 else Fraction(0)
            eps = max(eps, Fraction(1, 10**9))
            growth = mpmath.exp(fraction_to_mpf(eps))
            allowed = min(1 - fraction_to_mpf(b) - growth * fraction_to_mpf(a) for a, b in ends)
            allowed -= LEVEL_MARGIN * (1 + growth)
            key = eps
            if key not in levels or allowed < levels[key].allowed:  # the target's own δ at ε: once per ε
                witness = levels[key].witness if key in levels else witness_of(eps, slope <= -1)
                levels[key] = Level(eps, allowed, witness)
    return [levels[k] for k in sorted(levels)]


#: The slack η on β: no finite set of levels can show f ≥ g right at α = 0, where both are 1, so a trade-off target
#: is checked as f ≥ max(g − η, 0): every certified β may fall short of g by at most η = 1e-30, as every stored
#: β of the library carries an absolute error bound (the census files' trade-off tolerance is 1e-25).
TAIL_SLACK = Fraction(1, 10**30)

#: The largest μ of a μ-GDP target: its check runs out to ε = μ²/2 + μ√(2 log 10³⁰), which must be ≤ MAX_EPSILON.
MAX_MU_GDP = 88


@dataclass(frozen=True)
class TradeoffCurve:
    """f ≥ g, g the convex piecewise-linear trade-off curve through ``points`` (α, β): α from 0 increasing, β
    decreasing; a last point with β > 0 is joined to (1, 0). Checked between the points and in the tails
    (module docstring), not only at them, to within :data:`TAIL_SLACK` on β.

    >>> from accountlib.theory.decision import check
    >>> curve = TradeoffCurve([(0, 1), ("0.1", "0.5"), ("0.5", "0.1"), (1, 0)])
    >>> len(curve.levels()), [c.status for c in check(["1/100"], curve)]   # one level per slope, reflected ones shared
    (2, ['holds', 'holds'])
    """

    points: tuple

    def __init__(self, points):
        if isinstance(points, (str, bytes)) or not hasattr(points, "__iter__"):
            raise ValueError(f"points must be a list of (alpha, beta) pairs; got {points!r}")
        parsed = []
        for i, item in enumerate(points):
            try:
                a, b = item
            except (TypeError, ValueError):
                raise ValueError(f"points[{i}] must be a pair (alpha, beta); got {item!r}") from None
            a = Fraction(0) if a == 0 else _fraction(a, f"points[{i}] alpha")
            b = Fraction(0) if b == 0 else _fraction(b, f"points[{i}] beta")
            if a > 1 or b > 1:
                raise ValueError(f"points[{i}] must lie in [0, 1]²; got ({float(a)!r}, {float(b)!r})")
            parsed.append((a, b))
            if len(parsed) > MAX_CURVE_POINTS:
                raise ValueError(f"points: at most {MAX_CURVE_POINTS} points are accepted (a convex curve needs few: "
                                 "collinear points add nothing); got more")
        if len(parsed) < 1 or parsed[0][0] != 0:
            raise ValueError("points must start at alpha = 0 (the curve's value there, at most 1)")
        if parsed[-1][1] > 0:
            if parsed[-1][0] == 1:
                raise ValueError("points: a trade-off curve is 0 at alpha = 1; the last point has beta > 0 there")
            parsed.append((Fraction(1), Fraction(0)))
        for i, ((a0, b0), (a1, b1)) in enumerate(zip(parsed, parsed[1:])):
            if not a1 > a0 or b1 > b0:
                raise ValueError(f"points must have alpha increasing and beta non-increasing (at points[{i + 1}])")
        slopes = [(b1 - b0) / (a1 - a0) for (a0, b0), (a1, b1) in zip(parsed, parsed[1:])]
        for i, (s0, s1) in enumerate(zip(slopes, slopes[1:])):
            if s1 < s0:
                raise ValueError(f"points must form a convex curve (a trade-off function is convex); the slope "
                                 f"falls from {float(s0):.6g} to {float(s1):.6g} at points[{i + 1}]")
        object.__setattr__(self, "points", tuple(parsed))

    def checked_points(self) -> list[tuple[Fraction, Fraction]]:
        """The vertices of max(g − η, 0) (:data:`TAIL_SLACK`): convex like g, and below 1 at α = 0."""
        points = []
        for (a0, b0), (a1, b1) in zip(self.points, self.points[1:]):
            if b0 <= TAIL_SLACK:
                break
            points.append((a0, b0 - TAIL_SLACK))
            if b1 < TAIL_SLACK:  # the segment crosses β = η: its end at β = 0 on the lowered curve
                points.append((a0 + (a1 - a0) * (b0 - TAIL_SLACK) / (b0 - b1), Fraction(0)))
        if not points or points[-1][1] > 0:
            points.append(self.points[-1] if self.points[-1][1] == 0 else (Fraction(1), Fraction(0)))
        if points[-1][0] < 1:
            points.append((Fraction(1), Fraction(0)))
        return points

    def _profile_at(self, eps: Fraction, curve) -> mpmath.mpf:
        """δ_g(ε) = max over the vertices of 1 − β − e^ε α (of g, or of g⁻¹), rounded up."""
        growth = mpmath.exp(fraction_to_mpf(eps))
        return max(1 - fraction_to_mpf(b) - growth * fraction_to_mpf(a) for a, b in curve) + LEVEL_MARGIN * (1 + growth)

    def levels(self) -> list[Level]:
        """The (ε, allowed δ, witness δ) levels at which this target is checked (:class:`Level`)."""
        points = self.checked_points()
        reflected = [(b, a) for a, b in points]
        return _segment_levels(points, lambda eps, steep: self._profile_at(eps, points if steep else reflected))

    def __str__(self) -> str:
        return f"trade-off curve through {len(self.points)} points"


@dataclass(frozen=True)
class GaussianDP:
    """μ-GDP: f ≥ G_μ (up to the slack η = :data:`TAIL_SLACK`). Decided on the privacy profile, on an ε grid
    refined where it cannot decide (:func:`accountlib.theory.decision.decide_gaussian_dp`), so a calibration to
    μ-GDP is shown to fail one grid step below its answer; :meth:`levels` gives the ``chords`` of G_μ as (ε, δ) levels (they lie above G_μ: holding
    for them is sufficient), used only to rank pairs census-wide.

    >>> from accountlib.theory.decision import check
    >>> all(c.status == "holds" for c in check(["1/5"], GaussianDP(1, chords=32)))  # N_Z(0, 5) is 1-GDP
    True
    """

    mu: Fraction
    chords: int = 256

    def __init__(self, mu, chords: int = 256):
        object.__setattr__(self, "mu", _fraction(mu, "mu"))
        # the check's ε grid reaches μ²/2 + μ√(2 log 1/η) (where δ_μ ≈ η), which must stay within MAX_EPSILON
        with mpmath.workdps(30):
            top = fraction_to_mpf(self.mu) ** 2 / 2 + fraction_to_mpf(self.mu) * mpmath.sqrt(2 * mpmath.log(1 / fraction_to_mpf(TAIL_SLACK)))
        if top > MAX_EPSILON:
            raise ValueError(f"mu must be at most {MAX_MU_GDP} (μ-GDP is checked out to ε = μ²/2 + 11.75μ, at most "
                             f"the largest ε supported, {MAX_EPSILON}); got {float(self.mu):g}")
        if isinstance(chords, bool) or not isinstance(chords, int) or not 4 <= chords <= MAX_CURVE_POINTS - 1:
            raise ValueError(f"chords must be a whole number in 4..{MAX_CURVE_POINTS - 1}; got {chords!r}")
        object.__setattr__(self, "chords", chords)

    def curve(self) -> TradeoffCurve:
        """Points on or above G_μ (β rounded up), from (0, 1) to (1, 0): α = Φ(−z), β = Φ(z − μ) on a grid of z
        symmetric about μ/2, so that the points are symmetric under reflection (G_μ = G_μ⁻¹)."""
        with mpmath.workdps(LEVEL_DIGITS):
            mu = fraction_to_mpf(self.mu)
            # the outermost chords end where α (or β) is 1e-10·η: there the first chord's level asks δ(ε) ≤ ~η
            span = mu / 2 - mpmath.sqrt(2) * mpmath.erfinv(2 * fraction_to_mpf(TAIL_SLACK) / 10**10 - 1)
            points = [(Fraction(0), Fraction(1))]
            for k in range(1, self.chords):
                z = mu / 2 + span * (mpmath.mpf(2 * k) / self.chords - 1)
                alpha = Fraction(int(mpmath.floor(mpmath.ncdf(-z) * 10**45)), 10**45)
                if not 0 < alpha < 1:
                    continue
                beta = Fraction(int(mpmath.ceil(gaussian_tradeoff(mu, fraction_to_mpf(alpha)) * 10**45)) + 1, 10**45)
                points.append((alpha, min(beta, Fraction(1))))
            points.append((Fraction(1), Fraction(0)))
        return TradeoffCurve(convex_points(sorted(points)))

    def levels(self) -> list[Level]:
        """The (ε, allowed δ, witness δ) levels at which this target is checked (:class:`Level`)."""
        curve = self.curve()
        with mpmath.workdps(LEVEL_DIGITS):
            mu = fraction_to_mpf(self.mu)
            eta = fraction_to_mpf(TAIL_SLACK)  # the slack the chords were lowered by: G_μ − η fails beyond δ_μ + η
            return [Level(lv.epsilon, lv.allowed,
                          gaussian_profile(mu, fraction_to_mpf(lv.epsilon)) * (1 + LEVEL_MARGIN) + LEVEL_MARGIN + eta)
                    for lv in curve.levels()]

    def __str__(self) -> str:
        return f"{float(self.mu):g}-GDP"


def convex_points(points):
    """The points, less any that rounding pushed off convexity (a middle point above the chord of its
    neighbours): the chords between the remaining points, all on or above the convex G_μ, still lie above it."""
    kept = []
    for p in points:
        if kept and (p[0] == kept[-1][0] or p[1] > kept[-1][1]):  # rounding made two points one
            continue
        kept.append(p)
        while len(kept) >= 3:
            (a0, b0), (a1, b1), (a2, b2) = kept[-3:]
            if (b1 - b0) * (a2 - a1) > (b2 - b1) * (a1 - a0):  # the slope falls at the middle point
                del kept[-2]
            else:
                break
    return kept


def parts(target) -> list:
    """The targets of ``target`` (one, or a non-empty list or tuple of them), each of a known kind."""
    targets = list(target) if isinstance(target, (list, tuple)) else [target]
    if not targets:
        raise ValueError("target must be a target or a non-empty list of targets")
    for t in targets:
        if not hasattr(t, "levels"):
            raise ValueError(f"target must be ApproximateDP, GaussianDP or TradeoffCurve (or a list of them); got "
                             f"{type(t).__name__}")
    return targets


def levels_of(target) -> list[Level]:
    """Every part's levels (a μ-GDP part's through its chords: these only rank census pairs)."""
    return [level for t in parts(target) for level in t.levels()]


def level_targets(target) -> list[Level]:
    """The levels of the parts of ``target`` checked through levels (all but μ-GDP, decided on its own ε grid by
    :func:`accountlib.theory.decision.decide`); every part validated."""
    return [level for t in parts(target) if not isinstance(t, GaussianDP) for level in t.levels()]
