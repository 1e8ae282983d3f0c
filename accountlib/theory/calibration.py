"""Calibration with a certificate: the ε of a δ, and the smallest noise that meets a privacy target.

Every answer here is decided by certified values of the exact privacy profile δ(ε) of a composition of
discrete Gaussian mechanisms (:class:`~accountlib.theory.profiles.ShiftPair`; sieve paper §2–§4), never by
floats compared with floats:

* :func:`epsilon` — for a target δ, an interval [ε_lo, ε_hi] no wider than the tolerance, with δ(ε_hi) ≤ δ
  certified (the composition is (ε_hi, δ)-DP) and δ(ε_lo) > δ certified (it is not (ε_lo, δ)-DP);
* :func:`calibrate` — for budgets ρ_i (the shape of a release) and a target, the smallest variance multiplier v
  on a grid of step h (every σ_i² = 1/ρ_i becomes v/ρ_i) at which the target holds with its certified bound,
  and a certified failure of the target at v − h;
* :func:`allocate` — per-query budgets that minimise Σ w_i σ_i² subject to the exact target: the zCDP optimum
  (ρ_i ∝ √w_i / s_i), snapped to a coarse rational grid the engine handles, calibrated exactly, then improved
  over the family ρ_i ∝ w_i^γ where the exact curve rewards another shape.

Targets (:class:`ApproximateDP`, :class:`GaussianDP`, :class:`TradeoffCurve`) all reduce to finitely many
*levels*: an ε with the largest δ(ε) the target allows there and the δ above which it certainly fails. For a
trade-off curve g given as points (convex, decreasing) this is exact duality (unifying paper, Prop. 2.2 /
Dong, Roth and Su's f-DP): f ≥ g on [0, 1] if and only if, for the slope −e^ε of each segment,
δ_f(ε) ≤ 1 − β − e^ε α at the segment's ends, so the check holds *between* the points and in the tail, not only
on a grid. Segments flatter than −1 are checked on the reflected curve g⁻¹, which suffices because every
composition here is symmetric (f = f⁻¹: the pair N_Z(0, σ²), N_Z(s, σ²) is swapped by x ↦ s − x). A μ-GDP
target is checked through chords of G_μ, which lie above G_μ, and fails against G_μ's own exact profile
δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong, Roth and Su 2022, Cor. 2.13).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath

from ..infrastructure.numbers import ResourceLimitError, as_fraction, as_positive_fraction, as_tolerance
from .accounting import accounts_itself
from .accounting import as_composition as _as_pair
from .profiles import MAX_EPSILON, SMALLEST_REL_TOL, DeltaPoint, ShiftPair

__all__ = ["ApproximateDP", "GaussianDP", "TradeoffCurve", "Level", "LevelCheck", "EpsilonInterval", "Calibration",
           "Allocation", "epsilon", "calibrate", "allocate", "check", "zcdp_rho_for", "TAIL_SLACK",
           "gaussian_tradeoff", "gaussian_profile"]

_DIGITS = 60  # working precision of the levels' arithmetic (the engine's values carry their own)
_MARGIN = mpmath.mpf(10) ** -45  # relative slack that keeps a level's rounding on the safe side


def _fraction(value, name: str) -> Fraction:
    return as_positive_fraction(value, name)


SMALLEST_DELTA = Fraction(1, 10**300)
"""The smallest δ a target or :func:`epsilon` accepts (1e-300: its logarithm and float estimates stay finite)."""


def _probability(value, name: str) -> Fraction:
    value = _fraction(value, name)
    if not value < 1:
        raise ValueError(f"{name} must be in [1e-300, 1); got {float(value)!r}")
    if value < SMALLEST_DELTA:
        raise ValueError(f"{name} must be in [1e-300, 1); got a value below 1e-300")
    return value


#: The most points a TradeoffCurve takes (its check costs a certified δ per distinct slope and, per slope, a pass
#: over the vertices: about 10 s at this size), and the most chords of a GaussianDP.
MAX_CURVE_POINTS = 1024


def _mpf(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


# -- targets ------------------------------------------------------------------------------------------------


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

    >>> [c.status for c in check(["1/8"], ApproximateDP(1, "1e-3"))]   # N_Z(0, 8): δ(1) ≤ 1e-3 holds
    ['holds']
    """

    epsilon: Fraction
    delta: Fraction

    def __init__(self, epsilon, delta):
        object.__setattr__(self, "epsilon", _fraction(epsilon, "epsilon"))
        object.__setattr__(self, "delta", _probability(delta, "delta"))

    def levels(self) -> list[Level]:
        with mpmath.workdps(_DIGITS):
            d = _mpf(self.delta)
        return [Level(self.epsilon, d, d)]

    def __str__(self) -> str:
        return f"({float(self.epsilon):g}, {float(self.delta):g})-DP"


def _segment_levels(points: list[tuple[Fraction, Fraction]], witness_of) -> list[Level]:
    """The levels of the convex piecewise-linear curve through ``points`` (α increasing, β decreasing): one per
    segment of slope ≤ −1 (ε = log(−slope)), and one per segment of slope in (−1, 0) on the reflected curve."""
    levels = {}
    with mpmath.workdps(_DIGITS):
        for (a0, b0), (a1, b1) in zip(points, points[1:]):
            slope = (b1 - b0) / (a1 - a0)
            if slope == 0:
                continue  # the flat end at β = 0 (checked by the caller): nothing to hold
            ends = [(a0, b0), (a1, b1)] if slope <= -1 else [(b1, a1), (b0, a0)]  # reflected: (β, α)
            steep = -slope if slope <= -1 else -1 / slope
            # any ε gives a valid supporting line of f; a short rational at or just below log(steepness), so that
            # e^ε never exceeds the steepness (a line steeper than the segment would cut it at its lower end)
            eps = Fraction(int(mpmath.floor(mpmath.log(_mpf(steep)) * 10**45)), 10**45) if steep > 1 else Fraction(0)
            eps = max(eps, Fraction(1, 10**9))
            growth = mpmath.exp(_mpf(eps))
            allowed = min(1 - _mpf(b) - growth * _mpf(a) for a, b in ends)
            allowed -= _MARGIN * (1 + growth)
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
        growth = mpmath.exp(_mpf(eps))
        return max(1 - _mpf(b) - growth * _mpf(a) for a, b in curve) + _MARGIN * (1 + growth)

    def levels(self) -> list[Level]:
        points = self.checked_points()
        reflected = [(b, a) for a, b in points]
        return _segment_levels(points, lambda eps, steep: self._profile_at(eps, points if steep else reflected))

    def __str__(self) -> str:
        return f"trade-off curve through {len(self.points)} points"


def gaussian_tradeoff(mu, alpha) -> mpmath.mpf:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), the trade-off function of μ-GDP (Dong, Roth and Su 2022, Def. 2.7)."""
    return mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * alpha - 1) - mu) if 0 < alpha < 1 else mpmath.mpf(1 - alpha)


def gaussian_profile(mu, eps) -> mpmath.mpf:
    """δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), the privacy profile of μ-GDP (Dong, Roth and Su 2022, Cor. 2.13)."""
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


@dataclass(frozen=True)
class GaussianDP:
    """μ-GDP: f ≥ G_μ (up to the slack η = :data:`TAIL_SLACK`). Decided on the privacy profile, on an ε grid
    refined where it cannot decide (:meth:`decide`), so a calibration to μ-GDP is shown to fail one grid step
    below its answer; :meth:`levels` gives the ``chords`` of G_μ as (ε, δ) levels (they lie above G_μ: holding
    for them is sufficient), used only to rank pairs census-wide.

    >>> all(c.status == "holds" for c in check(["1/5"], GaussianDP(1, chords=32)))  # N_Z(0, 5) is 1-GDP
    True
    """

    mu: Fraction
    chords: int = 256

    def __init__(self, mu, chords: int = 256):
        object.__setattr__(self, "mu", _fraction(mu, "mu"))
        # the check's ε grid reaches μ²/2 + μ√(2 log 1/η) (where δ_μ ≈ η), which must stay within MAX_EPSILON
        with mpmath.workdps(30):
            top = _mpf(self.mu) ** 2 / 2 + _mpf(self.mu) * mpmath.sqrt(2 * mpmath.log(1 / _mpf(TAIL_SLACK)))
        if top > MAX_EPSILON:
            raise ValueError(f"mu must be at most {MAX_MU_GDP} (μ-GDP is checked out to ε = μ²/2 + 11.75μ, at most "
                             f"the largest ε supported, {MAX_EPSILON}); got {float(self.mu):g}")
        if isinstance(chords, bool) or not isinstance(chords, int) or not 4 <= chords <= MAX_CURVE_POINTS - 1:
            raise ValueError(f"chords must be a whole number in 4..{MAX_CURVE_POINTS - 1}; got {chords!r}")
        object.__setattr__(self, "chords", chords)

    def curve(self) -> TradeoffCurve:
        """Points on or above G_μ (β rounded up), from (0, 1) to (1, 0): α = Φ(−z), β = Φ(z − μ) on a grid of z
        symmetric about μ/2, so that the points are symmetric under reflection (G_μ = G_μ⁻¹)."""
        with mpmath.workdps(_DIGITS):
            mu = _mpf(self.mu)
            # the outermost chords end where α (or β) is 1e-10·η: there the first chord's level asks δ(ε) ≤ ~η
            span = mu / 2 - mpmath.sqrt(2) * mpmath.erfinv(2 * _mpf(TAIL_SLACK) / 10**10 - 1)
            points = [(Fraction(0), Fraction(1))]
            for k in range(1, self.chords):
                z = mu / 2 + span * (mpmath.mpf(2 * k) / self.chords - 1)
                alpha = Fraction(int(mpmath.floor(mpmath.ncdf(-z) * 10**45)), 10**45)
                if not 0 < alpha < 1:
                    continue
                beta = Fraction(int(mpmath.ceil(gaussian_tradeoff(mu, _mpf(alpha)) * 10**45)) + 1, 10**45)
                points.append((alpha, min(beta, Fraction(1))))
            points.append((Fraction(1), Fraction(0)))
        return TradeoffCurve(_convex_points(sorted(points)))

    def levels(self) -> list[Level]:
        curve = self.curve()
        with mpmath.workdps(_DIGITS):
            mu = _mpf(self.mu)
            eta = _mpf(TAIL_SLACK)  # the slack the chords were lowered by: G_μ − η fails beyond δ_μ + η
            return [Level(lv.epsilon, lv.allowed,
                          gaussian_profile(mu, _mpf(lv.epsilon)) * (1 + _MARGIN) + _MARGIN + eta)
                    for lv in curve.levels()]

    def decide(self, pair, rel_tol: float, *, max_points: int = 4000) -> list[LevelCheck]:
        """f ≥ G_μ − η decided for ``pair`` on an ε grid refined where it cannot decide (the check ``calibrate``
        and ``check`` use; the chords of :meth:`levels` serve only to rank pairs).

        f and G_μ are symmetric, so f ≥ G_μ − η is δ_f(ε) ≤ δ_μ(ε) + η for every ε ≥ 0 (unifying paper §2: the
        profile and the trade-off function carry the same information). In x = e^ε both profiles are convex and
        decreasing (δ(x) = E(1 − x e^{−L})₊, a mixture of convex functions of x), so on [x_k, x_{k+1}] δ_f lies below
        the chord of its certified upper values and δ_μ above its tangents at both ends (slope −Φ(−ε/μ − μ/2), the
        derivative of δ_μ in e^ε): the chord below the larger tangent plus η — a check at the two ends and where the
        tangents cross — decides the whole interval, to second order in its width. At ε = 0, where δ_f is not
        evaluated, δ_f(0) ≤ δ_f(ε₀) + e^{ε₀} − 1 (|dδ/dx| ≤ 1); beyond the last point δ_f ≤ δ_f(ε_n) ≤ η is needed.
        An interval that cannot be decided is halved; the target certainly fails where δ_f(ε) − bound >
        δ_μ(ε) + η at a grid point. Returns one check per interval (``level.epsilon`` its left end, ``allowed`` the
        largest certified δ_f there that would still decide the interval, ``point`` the certified δ_f), the failing
        point alone when there is one; "undecided" ones remain where ``max_points`` ran out (f touching G_μ).
        """
        with mpmath.workdps(_DIGITS):
            mu, eta = _mpf(self.mu), _mpf(TAIL_SLACK)
            top = mu * mu / 2 + mu * mpmath.sqrt(2 * mpmath.log(1 / eta))
            grid = sorted({Fraction(0), Fraction(1, 10**9)}
                          | {Fraction(mpmath.nstr(top * (k + 1) / 64, 12)).limit_denominator(10**9) for k in range(64)})
            known: dict[Fraction, DeltaPoint] = {}
            exact: dict[Fraction, tuple] = {}
            held: dict[tuple, LevelCheck] = {}  # intervals already decided: a refinement only splits the others

            def gaussian(e: Fraction):  # (x, δ_μ, dδ_μ/dx) at ε = e
                if e not in exact:
                    eps = _mpf(e)
                    exact[e] = (mpmath.exp(eps), gaussian_profile(mu, eps), -mpmath.ncdf(-eps / mu - mu / 2))
                return exact[e]

            while True:
                todo = [e for e in grid if e > 0 and e not in known]
                if todo:
                    for e, point in zip(todo, pair.delta(todo, rel_tol=rel_tol)):
                        known[e] = point
                for e in todo:  # a certain failure at a new grid point (the earlier ones showed none)
                    witness = gaussian(e)[1] * (1 + _MARGIN) + _MARGIN + eta
                    if known[e].delta - known[e].error_bound > witness:
                        return [LevelCheck(Level(e, mpmath.mpf(-1), witness), known[e], "fails")]
                first = grid[1]
                up = {e: known[e].delta + known[e].error_bound for e in grid[1:]}
                up[Fraction(0)] = up[first] + mpmath.expm1(_mpf(first))
                checks, split = [], []
                for left, right in zip(grid, grid[1:]):
                    if (left, right) in held:
                        checks.append(held[left, right])
                        continue
                    (x0, g0, s0), (x1, g1, s1) = gaussian(left), gaussian(right)
                    f0, f1 = up[left], up[right]
                    ends = [x0, x1]
                    if s1 != s0:
                        cross = (g1 - g0 + s0 * x0 - s1 * x1) / (s0 - s1)
                        if x0 < cross < x1:
                            ends.append(cross)
                    excess = max(f0 + (f1 - f0) * (x - x0) / (x1 - x0) - max(g0 + s0 * (x - x0), g1 + s1 * (x - x1))
                                 for x in ends)
                    # rounding at _DIGITS is relative to the terms compared: δ's (≤ 1) and the tangents' s·x
                    slack = _MARGIN * (2 + (abs(s0) + abs(s1)) * x1)
                    status = "holds" if excess <= eta - slack else "undecided"
                    # allowed: the largest certified δ_f at the left end that still decides the interval
                    allowed = f0 + eta - slack - excess
                    checks.append(LevelCheck(Level(left, allowed, g0 + eta), known.get(left, known[first]), status))
                    if status == "undecided":
                        split.append((left + right) / 2)
                    else:
                        held[left, right] = checks[-1]
                last = grid[-1]
                tail = LevelCheck(Level(last, eta, gaussian(last)[1] + eta), known[last],
                                  "holds" if up[last] <= eta else "undecided")
                checks.append(tail)
                if tail.status == "undecided":
                    split.append(last * 5 / 4)
                if not split or len(grid) + len(split) > max_points:
                    return checks
                grid = sorted(set(grid) | {Fraction(e).limit_denominator(10**15) for e in split})

    def __str__(self) -> str:
        return f"{float(self.mu):g}-GDP"


def _convex_points(points):
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


def _parts(target) -> list:
    """The targets of ``target`` (one, or a non-empty list or tuple of them), each of a known kind."""
    targets = list(target) if isinstance(target, (list, tuple)) else [target]
    if not targets:
        raise ValueError("target must be a target or a non-empty list of targets")
    for t in targets:
        if not hasattr(t, "levels"):
            raise ValueError(f"target must be ApproximateDP, GaussianDP or TradeoffCurve (or a list of them); got "
                             f"{type(t).__name__}")
    return targets


def _levels_of(target) -> list[Level]:
    """Every part's levels (a μ-GDP part's through its chords: these only rank census pairs)."""
    return [level for t in _parts(target) for level in t.levels()]


# -- checking levels --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LevelCheck:
    """A level against a certified δ(ε): ``status`` is "holds", "fails" or "undecided"."""

    level: Level
    point: DeltaPoint
    status: str


def _check(pair: ShiftPair, levels: list[Level], rel_tol: float) -> list[LevelCheck]:
    """Each level decided by certified δ(ε), the tolerance tightened for levels the bound leaves undecided."""
    checks: dict[int, LevelCheck] = {}
    todo = list(range(len(levels)))
    tol = rel_tol
    while todo:
        points = pair.delta([levels[i].epsilon for i in todo], rel_tol=tol)
        undecided = []
        for i, p in zip(todo, points):
            lv = levels[i]
            if p.delta + p.error_bound <= lv.allowed:
                status = "holds"
            elif p.delta - p.error_bound > lv.witness:
                status = "fails"
            else:
                status = "undecided"
                undecided.append(i)
            checks[i] = LevelCheck(lv, p, status)
        if tol <= SMALLEST_REL_TOL * 1.000001:
            break
        todo, tol = undecided, max(tol * 1e-6, SMALLEST_REL_TOL)
    return [checks[i] for i in range(len(levels))]


def _decide(pair: ShiftPair, target, levels: list[Level], rel_tol: float) -> list[LevelCheck]:
    """Every part of ``target`` decided for ``pair``: a μ-GDP part on its own refined ε grid
    (:meth:`GaussianDP.decide`), the others through their levels (``levels``: :func:`_level_targets` of ``target``,
    computed once by the caller)."""
    checks = _check(pair, levels, rel_tol) if levels else []
    for t in _parts(target):
        if isinstance(t, GaussianDP):
            checks += t.decide(pair, rel_tol)
    return checks


def _level_targets(target) -> list[Level]:
    """The levels of the parts of ``target`` checked through levels (all but μ-GDP, decided on its own ε grid by
    :func:`_decide`); every part validated."""
    return [level for t in _parts(target) if not isinstance(t, GaussianDP) for level in t.levels()]


def check(composition, target, *, rel_tol: float = 1e-6, sensitivities=None) -> list[LevelCheck]:
    """Each level of ``target`` decided for ``composition`` by certified δ(ε): "holds" (δ + bound ≤ allowed),
    "fails" (δ − bound above the target's own δ: the target is certainly not met) or "undecided".

    >>> [c.status for c in check(["1/2"], ApproximateDP(1, "0.01"))]
    ['fails']
    """
    rel_tol = as_tolerance(rel_tol, "rel_tol", smallest=SMALLEST_REL_TOL, largest=0.5)
    return _decide(_as_pair(composition, sensitivities), target, _level_targets(target), rel_tol)


# -- ε for a δ -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EpsilonInterval:
    """The composition is (``upper``, δ)-DP (δ(upper) ≤ δ certified) and not (``lower``, δ)-DP (δ(lower) > δ
    certified); ``upper`` − ``lower`` ≤ the tolerance asked. ``lower`` = 0 with ``at_lower`` None when δ(ε) ≤ δ
    for every ε > 0 tried down to ``upper``.

    >>> e = epsilon(["1/2"], "1e-5", abs_tol=1e-6)
    >>> float(e.lower) < float(e.upper) <= float(e.lower) + 1e-6
    True
    """

    delta: Fraction
    lower: Fraction
    upper: Fraction
    at_lower: DeltaPoint | None
    at_upper: DeltaPoint

    @property
    def width(self) -> Fraction:
        return self.upper - self.lower


def zcdp_rho_for(epsilon, delta) -> Fraction:
    """The largest ρ whose zCDP conversion ε = ρ + 2√(ρ log(1/δ)) (Bun and Steinke 2016, Prop. 1.3) is at most ε:
    ρ = (√(log(1/δ) + ε) − √log(1/δ))², rounded down to 12 digits (a float here is only a starting point)."""
    with mpmath.workdps(40):
        L = -mpmath.log(_mpf(Fraction(delta)))
        rho = (mpmath.sqrt(L + _mpf(Fraction(epsilon))) - mpmath.sqrt(L)) ** 2
        digits = 12 - int(mpmath.floor(mpmath.log10(rho)))  # twelve significant digits, however small ρ is
        return Fraction(int(mpmath.floor(rho * 10**digits)), 10**digits)


def epsilon(composition, delta, *, abs_tol=1e-9, rel_tol: float = 1e-6, sensitivities=None) -> EpsilonInterval:
    """The certified ε for a target δ: an interval [lower, upper] of width ≤ ``abs_tol``.

    ``composition`` is a :class:`~accountlib.theory.profiles.ShiftPair` or a list of budgets ρ_i (with optional
    ``sensitivities``). δ(ε) is decreasing in ε; the interval is found by bisection on exact rationals, each
    step decided by a certified δ(ε) (``rel_tol`` is the starting relative accuracy of each δ, tightened where a
    bound cannot decide). Report ``upper``: the composition is (upper, δ)-DP, erring towards less privacy.

    >>> from fractions import Fraction
    >>> e = epsilon(["1/2", "1/3"], Fraction(1, 10**6), abs_tol=1e-6)
    >>> e.width <= Fraction(1, 10**6) and e.at_upper.delta + e.at_upper.error_bound <= 1e-6
    True
    """
    if accounts_itself(composition, sensitivities):  # a DP-SGD run: its own certified interval, add/remove-one
        return composition.epsilon(delta, abs_tol=abs_tol)
    pair = _as_pair(composition, sensitivities)
    delta = _probability(delta, "delta")
    tol = Fraction(as_tolerance(abs_tol, "abs_tol", smallest=1e-30, largest=1.0))
    rel_tol = as_tolerance(rel_tol, "rel_tol", smallest=SMALLEST_REL_TOL, largest=0.5)
    level = ApproximateDP(1, delta).levels()[0]

    def status(eps: Fraction) -> tuple[str, DeltaPoint]:
        (c,) = _check(pair, [Level(eps, level.allowed, level.witness)], rel_tol)
        return c.status, c.point

    def decided_towards(start: Fraction, end: Fraction, wanted: str):
        """The first point halving the way from ``start`` to ``end`` whose status is ``wanted``, with its δ; None
        when none is found before the points are within tol/2 of ``end``."""
        probe = start
        while abs(end - probe) > tol / 2:
            probe = (probe + end) / 2
            state, point = status(probe)
            if state == wanted:
                return probe, point
        return None

    # an upper end: the zCDP conversion of the pair's ρ holds for every composition here; doubled until certified
    upper = min(MAX_EPSILON, Fraction(math.ceil(float(pair.rho) + 2 * math.sqrt(float(pair.rho) * -math.log(float(delta)))) + 1))
    state, at_upper = status(upper)
    while state != "holds":
        if upper >= MAX_EPSILON:
            raise ArithmeticError(f"could not certify δ(ε) ≤ {float(delta):g} for any ε up to {MAX_EPSILON} (the largest "
                                  "ε supported); the engine's bounds are too wide there for these budgets (a budget "
                                  "ρ_i ≫ 1 leaves almost no noise)")
        upper = min(upper * 2, MAX_EPSILON)
        state, at_upper = status(upper)
    lower, at_lower = Fraction(0), None
    probe = upper / 2
    while probe >= tol / 4:  # a lower end whose failure is certified
        state, point = status(probe)
        if state == "holds":
            upper, at_upper = probe, point
            probe /= 2
            continue
        if state == "fails":
            lower, at_lower = probe, point
        break
    while upper - lower > tol:
        mid = (lower + upper) / 2
        state, point = status(mid)
        if state == "holds":
            upper, at_upper = mid, point
            continue
        if state == "fails":
            lower, at_lower = mid, point
            continue
        # δ(mid) is within the finest bound of δ, or the bound is too wide to decide: look for a decided point on
        # each side of mid; only certified points ever move the ends
        above, below = decided_towards(mid, upper, "holds"), decided_towards(mid, lower, "fails")
        if above:
            upper, at_upper = above
        if below:
            lower, at_lower = below
        if not (above or below):
            break
    if upper - lower > tol:
        raise ArithmeticError(f"the certified ε for δ = {float(delta):g} lies in [{float(lower):.10g}, {float(upper):.10g}], "
                              f"wider than abs_tol = {float(tol):g}: inside it the engine's bounds cannot decide δ(ε) "
                              "against δ for these budgets")
    return EpsilonInterval(delta, lower, upper, at_lower, at_upper)


# -- calibration -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Calibration:
    """The smallest variance multiplier on the grid ``step``·ℤ meeting the target.

    At ``scale`` every level holds with its certified bound (``checks``); at ``scale − step`` the level in
    ``failure`` certainly fails (None if no level could be shown to fail there: then ``scale`` is an upper bound
    on the smallest noise, not proven smallest). ``rhos`` are the calibrated budgets ρ_i / scale.
    ``zcdp_scale`` is the multiplier the zCDP rule gives for the same target (None where it has none), and
    ``variance_saved`` = 1 − scale / zcdp_scale the share of variance the exact calibration gives back.

    >>> c = calibrate(["1"], ApproximateDP(1, "1e-5"))
    >>> c.checks[0].status, c.failure.status, c.scale < c.zcdp_scale
    ('holds', 'fails', True)
    """

    scale: Fraction
    step: Fraction
    rhos: tuple
    sensitivities: tuple
    target: object
    checks: tuple
    failure: LevelCheck | None
    zcdp_scale: Fraction | None
    evaluations: int = 0
    factors: tuple = ()

    @property
    def multipliers(self) -> tuple:
        """Each budget's variance multiplier at ``scale``: f_g·scale for a budget of a scaled group (f_g its
        group's factor, 1 without groups), 1 for a budget whose group is held fixed (f_g = 0)."""
        factors = self.factors or (Fraction(1),) * len(self.rhos)
        return tuple(f * self.scale if f else Fraction(1) for f in factors)

    @property
    def variance_saved(self) -> float | None:
        return None if self.zcdp_scale is None else float(1 - self.scale / self.zcdp_scale)

    @property
    def proven_smallest(self) -> bool:
        """True when the target certainly fails one grid step below ``scale`` (``failure``). What is certified is
        that local statement: the target holds at ``scale`` and fails one step below. It is not a proof that no
        smaller multiplier further down the grid holds: for discrete Gaussians δ need not fall as the noise grows
        (one N_Z(0, σ²) against its unit shift at ε = 2 has δ = 6.719e-12 at σ² = 10.25 and 6.801e-12 at 10.30,
        certified to about 1e-22, as atoms of the privacy loss cross ε), so a target lying between such values can
        hold again below a failing multiplier; the bisection, which assumes monotonicity, returns a multiplier
        with the local certificate (the book's chapter "Calibrating exactly", section "Is the bisection's answer the
        smallest?")."""
        return self.failure is not None


def _zcdp_scale(target, rho: Fraction, fixed: Fraction = Fraction(0)) -> Fraction | None:
    """v such that the composition with ρ' = fixed + rho / v meets ``target`` by the zCDP rule (the largest v over a
    list; ``fixed`` the zCDP ρ of budgets held fixed). None where the rule has none (a trade-off curve, or a fixed
    part that alone exceeds the target's ρ)."""
    targets = list(target) if isinstance(target, (list, tuple)) else [target]
    scales = []
    for t in targets:
        if isinstance(t, ApproximateDP):
            allowed = zcdp_rho_for(t.epsilon, t.delta)
        elif isinstance(t, GaussianDP):  # the Gaussian rule ρ = μ²/2, as used to calibrate GDP by zCDP
            allowed = t.mu ** 2 / 2
        else:
            return None
        if allowed <= fixed:
            return None
        scales.append(rho / (allowed - fixed))
    return max(scales)


def _group_factors(groups, factors, count: int) -> tuple:
    """One variance factor f_i ≥ 0 per budget from ``groups`` (a label per budget) and ``factors`` (label → f_g,
    default 1): validated, each error naming the argument."""
    if groups is None:
        if factors is not None:
            raise ValueError("factors needs groups: a label per budget naming its group")
        return ()
    if isinstance(groups, (str, bytes)) or not hasattr(groups, "__iter__"):
        raise ValueError(f"groups must be a list of labels, one per budget; got {groups!r}")
    groups = list(groups)
    if len(groups) != count:
        raise ValueError(f"groups must hold one label per budget ({count}); got {len(groups)}")
    try:
        known = set(groups)
    except TypeError:
        raise ValueError("groups: every label must be hashable (a string or a number)") from None
    factors = {} if factors is None else factors
    if not isinstance(factors, dict):
        raise ValueError(f"factors must be a dict from group label to a factor >= 0; got {type(factors).__name__}")
    out = {}
    for label, value in factors.items():
        if label not in known:
            raise ValueError(f"factors: {label!r} is not one of the groups ({', '.join(sorted(map(repr, known)))})")
        try:
            f = as_fraction(value, f"factors[{label!r}]")
        except ValueError:
            raise ValueError(f"factors[{label!r}] must be a number >= 0 (0 holds the group's noise fixed); got "
                             f"{value!r}") from None
        if f < 0:
            raise ValueError(f"factors[{label!r}] must be >= 0 (0 holds the group's noise fixed); got {value!r}")
        out[label] = f
    result = tuple(out.get(label, Fraction(1)) for label in groups)
    if not any(result):
        raise ValueError("factors: every group is held fixed (factor 0); at least one must be scaled")
    return result


def _round_step(value: Fraction) -> Fraction:
    """``value`` rounded down to two significant decimal digits (a short grid step)."""
    exponent = math.floor(math.log10(float(value))) - 1
    unit = Fraction(10) ** exponent
    return max(unit, math.floor(value / unit) * unit)


def calibrate(composition, target, *, resolution=1e-3, rel_tol: float = 1e-6, sensitivities=None, step=None,
              progress=None, groups=None, factors=None) -> Calibration:
    """The smallest noise meeting ``target``, certified on both sides.

    ``composition``: the release's budgets ρ_i (a list, with optional ``sensitivities``) or a ShiftPair: their
    ratios are kept, and one variance multiplier v scales every σ_i² = 1/ρ_i to v/ρ_i. Per-group factors:
    ``groups`` gives each budget a label and ``factors`` maps a label to f_g ≥ 0 (default 1); then σ_i² becomes
    f_g·v/ρ_i, and f_g = 0 holds a group's noise fixed (``Calibration.multipliers`` lists each budget's factor). ``target``: an
    :class:`ApproximateDP`, :class:`GaussianDP` or :class:`TradeoffCurve`, or a list of them (all must hold).
    ``resolution``: the grid step of v relative to the zCDP calibration of the target (or to 1 where zCDP has
    none), or ``step``, the grid step itself (an exact rational, for several compositions on one grid).
    ``progress``: called with a line of text after each step, for long runs.

    A μ-GDP target (:class:`GaussianDP`) is decided on an ε grid refined where the profile comes close to
    G_μ's (:meth:`GaussianDP.decide`); ``proven_smallest`` is False only where the refinement's point budget runs
    out first (the exact curve touching G_μ).

    >>> c = calibrate(["1/2", "1/3"], ApproximateDP(1, "1e-6"))
    >>> c.proven_smallest and all(k.status == "holds" for k in c.checks) and c.failure.status == "fails"
    True
    >>> 0 < c.variance_saved < 1       # less variance than the zCDP rule, with the certificate
    True

    Hold the first budget's noise and scale the other two (the second twice as much as the third):

    >>> g = calibrate(["1/50", "1/3", "1/5"], ApproximateDP(2, "1e-6"), groups=["a", "b", "c"],
    ...               factors={"a": 0, "b": 2})
    >>> g.rhos[0], g.multipliers[1] == 2 * g.multipliers[2], g.proven_smallest
    (Fraction(1, 50), True, True)
    """
    if accounts_itself(composition, sensitivities):  # a DP-SGD run: the smallest noise multiplier, certified
        return composition.calibrate(target, resolution=resolution)
    pair = _as_pair(composition, sensitivities)
    resolution = Fraction(as_tolerance(resolution, "resolution", smallest=1e-9, largest=0.5))
    rel_tol = as_tolerance(rel_tol, "rel_tol", smallest=SMALLEST_REL_TOL, largest=0.5)
    levels = _level_targets(target)
    if not levels and not any(isinstance(t, GaussianDP) for t in _parts(target)):
        raise ValueError("target: every mechanism meets it (a trade-off curve g ≡ 0 asks nothing); no noise is needed")
    base, shifts = list(pair.rhos), list(pair.sensitivities)
    fs = _group_factors(groups, factors, len(base))

    def budgets_at(v: Fraction) -> list:
        if not fs:
            return [r / v for r in base]
        return [r / (f * v) if f else r for r, f in zip(base, fs)]

    if fs:
        scaled = sum((r * s * s / (2 * f) for r, s, f in zip(base, shifts, fs) if f), Fraction(0))
        held = sum((r * s * s / 2 for r, s, f in zip(base, shifts, fs) if not f), Fraction(0))
        zcdp = _zcdp_scale(target, scaled, held)
    else:
        zcdp = _zcdp_scale(target, pair.rho)
    reference = zcdp if zcdp is not None else Fraction(1)
    step = _round_step(reference * resolution) if step is None else _fraction(step, "step")
    evaluations = 0
    memo: dict[int, tuple[str, list[LevelCheck]]] = {}

    def at(k: int):
        nonlocal evaluations
        if k not in memo:
            if k <= 0:
                raise ValueError("the target is met by no noise on this grid at all (k ≤ 0); check the target")
            v = k * step
            try:
                checks = _decide(ShiftPair(budgets_at(v), sensitivities=shifts), target, levels, rel_tol)
            except ResourceLimitError:  # an engine this fine is refused at this scale: nothing decided here
                checks = []
            evaluations += 1
            state = ("undecided" if not checks else "holds" if all(c.status == "holds" for c in checks) else
                     "fails" if any(c.status == "fails" for c in checks) else "undecided")
            memo[k] = (state, checks)
            if progress is not None:
                progress(f"v = {float(v):.6g}: {state}")
        return memo[k]

    hi = max(1, math.ceil(reference / step))
    while at(hi)[0] != "holds":
        hi *= 2
        if hi * step > 10**12 * reference:
            raise ArithmeticError(f"could not certify the target at any variance multiplier from {float(reference):.3g} "
                                  "up to 1e12 times it: either the target is not attainable (a trade-off curve above "
                                  "1 − α, or one at g(0) = 1 that only noise beyond this reaches) or the engine cannot "
                                  "decide its levels for these budgets")
    lo = hi // 2
    while lo > 0 and at(lo)[0] == "holds":
        hi, lo = lo, lo // 2
    while hi - lo > 1:
        mid = (hi + lo) // 2
        if at(mid)[0] == "holds":
            hi = mid
        else:
            lo = mid
    failure = None
    if lo >= 1:
        failure = next((c for c in at(lo)[1] if c.status == "fails"), None)
    scale = hi * step
    return Calibration(scale, step, tuple(budgets_at(scale)), tuple(shifts), target, tuple(at(hi)[1]),
                       failure, zcdp, evaluations, fs)


# -- allocation ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Allocation:
    """Per-query budgets meeting the target exactly (``calibration`` is their certificate), the loss Σ w_i σ_i²
    = Σ w_i / ρ_i, and the loss of the zCDP-calibrated zCDP-optimal allocation for comparison.

    >>> a = allocate([1, 9], ApproximateDP(1, "1e-5"), exponents=(0.5,))
    >>> a.rhos[1] > a.rhos[0] and a.loss < a.zcdp_loss
    True
    """

    rhos: tuple
    loss: Fraction
    zcdp_loss: Fraction | None
    exponent: float
    calibration: Calibration
    tried: tuple = field(default=())

    @property
    def loss_saved(self) -> float | None:
        return None if self.zcdp_loss is None else float(1 - self.loss / self.zcdp_loss)


def _shape(weights: list[Fraction], shifts: list[int], gamma: float, bits: int) -> list[Fraction]:
    """ρ_i ∝ (w_i / s_i²)^γ — at γ = 1/2 the zCDP optimum √w_i / s_i — snapped down to multiples of max/2^bits
    (a grid the lattice handles: few distinct numerators over one denominator)."""
    raw = [(float(w) / s ** 2) ** gamma for w, s in zip(weights, shifts)]
    top = max(raw)
    unit = 2 ** bits
    return [Fraction(max(1, math.floor(r / top * unit)), unit) for r in raw]


def allocate(weights, target, *, sensitivities=None, resolution=1e-3, rel_tol: float = 1e-6, bits: int = 10,
             exponents=(0.5, 0.4, 0.6, 0.45, 0.55), progress=None) -> Allocation:
    """Budgets ρ_i minimising Σ w_i σ_i² (σ_i² = 1/ρ_i) subject to the exact, certified ``target``.

    Starts from the zCDP optimum ρ_i ∝ √w_i / s_i (minimising Σ w_i/ρ_i at fixed Σ ρ_i s_i²), snapped down to
    multiples of max/2^``bits``, calibrated exactly (:func:`calibrate`); then tries the shapes ρ_i ∝ w_i^γ for
    the other ``exponents`` (where queries with small σ² gain more from the exact curve than zCDP credits) and
    keeps the one with the least loss. The loss is compared with the zCDP-optimal allocation calibrated by the
    zCDP rule (for (ε, δ) and GDP targets).

    >>> a = allocate([1, 4, 9], ApproximateDP(1, "1e-6"))
    >>> a.loss < a.zcdp_loss and a.calibration.proven_smallest
    True
    """
    if isinstance(weights, (str, bytes)) or not hasattr(weights, "__iter__"):
        raise ValueError(f"weights must be a list of positive numbers; got {weights!r}")
    weights = [_fraction(w, f"weights[{i}]") for i, w in enumerate(weights)]
    if not weights:
        raise ValueError("weights must hold at least one weight")
    shifts = [1] * len(weights) if sensitivities is None else list(sensitivities)
    if len(shifts) != len(weights) or any(isinstance(s, bool) or not isinstance(s, int) or s < 1 for s in shifts):
        raise ValueError("sensitivities must be one positive whole number per weight")
    if isinstance(bits, bool) or not isinstance(bits, int) or not 1 <= bits <= 30:
        raise ValueError(f"bits must be a whole number in 1..30; got {bits!r}")
    exponents = list(exponents) if hasattr(exponents, "__iter__") and not isinstance(exponents, (str, bytes)) else None
    if not exponents:
        raise ValueError("exponents must be a non-empty list of numbers in (0, 1), e.g. (0.5, 0.4, 0.6)")
    exponents = [as_tolerance(g, "exponents", smallest=1e-3, largest=0.999) for g in exponents]
    best, tried = None, []
    for gamma in exponents:
        shape = _shape(weights, shifts, float(gamma), bits)
        c = calibrate(shape, target, resolution=resolution, rel_tol=rel_tol, sensitivities=shifts)
        loss = sum(w / r for w, r in zip(weights, c.rhos))
        tried.append((float(gamma), float(loss)))
        if progress is not None:
            progress(f"γ = {float(gamma):g}: loss {float(loss):.6g}")
        if best is None or loss < best[0]:
            best = (loss, float(gamma), c)
    loss, gamma, c = best
    zcdp_loss = None
    if not isinstance(target, TradeoffCurve) and _zcdp_scale(target, Fraction(1)) is not None:
        # the zCDP optimum exactly: ρ_i = ρ* √w_i / s_i / (Σ √w_j s_j / 2), with ρ* the zCDP rule's budget
        roots = [math.sqrt(float(w)) / s for w, s in zip(weights, shifts)]
        total = sum(r * s * s for r, s in zip(roots, shifts)) / 2
        rho_star = float(1 / _zcdp_scale(target, Fraction(1)))
        zcdp_loss = Fraction(sum(float(w) / (rho_star * r / total) for w, r in zip(weights, roots)))
    return Allocation(c.rhos, loss, zcdp_loss, gamma, c, tuple(tried))
