"""Certified accounting for DP-SGD: δ(ε), ε(δ), f(α) and the smallest noise multiplier of a Poisson-subsampled
Gaussian run, under add/remove-one neighbours.

Theory layer of :mod:`accountlib`. A run is a schedule of groups (q_g, z_g, T_g): T_g steps at sampling rate q_g with
noise multiplier z_g (sensitivity 1, the clipping norm). Each step is dominated by the pair (P, Q) with
P = (1 − q)N(0, z²) + qN(1, z²) and Q = N(0, z²) (Koskela, Jälkö & Honkela 2020; Zhu, Dong & Wang 2022, Prop. 30):
removing an example compares P with Q, adding one compares Q with P, and a neighbouring pair of datasets stays in
one direction for the whole run. So the run is (ε, δ)-DP for

    δ(ε) = max(δ_remove(ε), δ_add(ε)),

each direction's profile composed over all steps. Every number here is certified by
:mod:`accountlib.engine.subsampled_gaussian` (a Laplace inversion of the composed moment-generating function, every
error term bounded), and every result states the relation: add or remove one example, the worse direction.

* :meth:`DPSGDComposition.delta` — δ(ε) with ``error_bound ≤ rel_tol·δ``;
* :meth:`DPSGDComposition.epsilon` — the certified interval [lower, upper] for ε(δ): (upper, δ)-DP holds, and
  (lower, δ)-DP certainly fails; δ(ε) decreases strictly where it is positive, so the interval is found by bisection
  on one contour;
* :meth:`DPSGDComposition.tradeoff` — f(α), the symmetric trade-off function of the run (the largest trade-off
  function below both directions' curves), from the profile by the duality
  f(α) = sup_{ε ≥ 0} max(1 − δ(ε) − e^ε α, e^{−ε}(1 − δ(ε) − α)) (Dong, Roth & Su 2022, Prop. 2.12, for the
  symmetrised curve), bracketed by concavity in t = e^ε;
* :func:`calibrate_noise_multiplier` — the smallest z on a grid of relative step 1e-5 at which every target holds,
  with a certified failure one step below. Adding noise is a post-processing of both laws of the pair, so δ(ε)
  decreases as z grows (data processing) and the bisection's answer is the smallest on the grid, not only a local
  one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from ..engine.subsampled_gaussian import (Q_RANGE, STEPS_RANGE, Z_RANGE, OneStepIntegral, ProfileBound, StepGroup,
                                          certified_profile, integrals_for, loss_supremum, one_step_profile, saddle)
from ..infrastructure.numbers import ResourceLimitError, as_fraction, as_tolerance, error_bound
from .accounting import EpsilonInterval
from .composition import DeltaPoint, TradeoffPoint
from .decision import LevelCheck
from .targets import ApproximateDP, GaussianDP, Level

__all__ = ["DPSGDComposition", "DPSGDDeltaPoint", "DPSGDEpsilonInterval", "DPSGDTradeoffPoint", "DPSGDCalibration",
           "calibrate_noise_multiplier", "RELATION", "MAX_DPSGD_EPSILON", "MAX_GROUPS"]

RELATION = "add or remove one example (the worse of the two directions)"
"""The neighbouring relation every DP-SGD result here is stated for."""

MAX_DPSGD_EPSILON = 200
"""The largest ε :meth:`DPSGDComposition.delta` accepts."""

MAX_GROUPS = 1000
"""The most distinct (q, z) groups a schedule may have (the cost grows with their number)."""

_DIRECTIONS = ("remove", "add")


# -- results ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DPSGDDeltaPoint(DeltaPoint):
    """δ(ε) of a DP-SGD run: the true δ lies within ``error_bound`` of ``delta``, for the relation ``relation``.
    ``dominant`` names the direction whose δ is the larger ("remove", "add", or "both" when their intervals
    overlap); ``remove`` and ``add`` are the two directions' certified intervals (lower, upper).

    >>> p = DPSGDComposition(0.01, 1.0, 1000).delta(2.0)
    >>> p.dominant, p.relation == RELATION, p.error_bound <= 1e-6 * p.delta
    ('remove', True, True)
    """

    relation: str = RELATION
    dominant: str = "remove"
    remove: tuple = ()
    add: tuple = ()


@dataclass(frozen=True)
class DPSGDEpsilonInterval(EpsilonInterval):
    """ε(δ) of a DP-SGD run: (``upper``, δ)-DP holds and (``lower``, δ)-DP certainly fails, for ``relation``."""

    relation: str = RELATION
    dominant: str = "remove"


@dataclass(frozen=True)
class DPSGDTradeoffPoint(TradeoffPoint):
    """β = f(α) of a DP-SGD run's symmetric trade-off function, within ``error_bound``, for ``relation``."""

    relation: str = RELATION


@dataclass(frozen=True)
class DPSGDCalibration:
    """The smallest noise multiplier on the grid ``step``·ℤ meeting every target, for ``relation``.

    At ``noise_multiplier`` every target holds (``checks``, each "holds"); one grid step below, ``failure`` is a
    target that certainly fails (None if no failure could be certified: then ``proven_smallest`` is False).
    Because δ(ε) decreases as the noise grows, a failure one step below proves that no smaller multiplier on
    the grid meets the targets. ``schedule`` gives each group's (q, z, steps) at the answer."""

    noise_multiplier: Fraction
    step: Fraction
    schedule: tuple
    targets: tuple
    checks: tuple
    failure: LevelCheck | None
    evaluations: int
    relation: str = RELATION

    @property
    def proven_smallest(self) -> bool:
        return self.failure is not None


# -- argument checks -------------------------------------------------------------------------------------------

def _shown(value) -> str:
    """A value as a message shows it: an exact fraction as the decimal it is close to, anything else by repr."""
    if isinstance(value, Fraction):
        return f"{float(value):.17g}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _float_in(value, name: str, low: float, high: float, what: str) -> float:
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{name} ({what}) must be a number in [{low:g}, {high:g}]; got {_shown(value)}")
    try:
        result = float(as_fraction(value, name))
    except (ValueError, OverflowError):
        raise ValueError(f"{name} ({what}) must be a finite number in [{low:g}, {high:g}]; got {_shown(value)}") \
            from None
    if not low <= result <= high:
        raise ValueError(f"{name} ({what}) must be in [{low:g}, {high:g}]; got {_shown(value)}")
    return result


def _steps(value, name: str = "steps") -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)) and not hasattr(value, "__index__"):
        raise ValueError(f"{name} must be a whole number in [1, {STEPS_RANGE[1]:g}]; got {_shown(value)}")
    try:
        as_int = int(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a whole number in [1, {STEPS_RANGE[1]:g}]; got {_shown(value)}") from None
    if as_int != value or not STEPS_RANGE[0] <= as_int <= STEPS_RANGE[1]:
        raise ValueError(f"{name} must be a whole number in [1, {STEPS_RANGE[1]:g}]; got {_shown(value)}")
    return as_int


def _group(q, z, steps, where: str = "") -> StepGroup:
    return StepGroup(_float_in(q, f"q{where}", *Q_RANGE, "the sampling rate"),
                     _float_in(z, f"noise_multiplier{where}", *Z_RANGE, "z, the noise multiplier"),
                     _steps(steps, f"steps{where}"))


def _schedule(schedule) -> tuple[StepGroup, ...]:
    if isinstance(schedule, (str, bytes, Mapping)) or not hasattr(schedule, "__iter__"):
        raise ValueError(f"schedule must be a list of (q, noise_multiplier, steps) triples; got {schedule!r}")
    merged: dict = {}
    for i, item in enumerate(schedule):
        if isinstance(item, Mapping):
            keys = {"q", "noise_multiplier", "steps"}
            if set(item) != keys:
                raise ValueError(f"schedule[{i}] must have the keys q, noise_multiplier, steps; got {sorted(item)}")
            item = (item["q"], item["noise_multiplier"], item["steps"])
        if isinstance(item, (str, bytes)) or not hasattr(item, "__len__") or len(item) != 3:
            raise ValueError(f"schedule[{i}] must be a (q, noise_multiplier, steps) triple; got {item!r}")
        g = _group(*item, where=f" (schedule[{i}])")
        merged[(g.q, g.z)] = merged.get((g.q, g.z), 0) + g.steps
        if len(merged) > MAX_GROUPS:
            raise ResourceLimitError(f"schedule has more than {MAX_GROUPS} distinct (q, noise_multiplier) groups; "
                                     "merge or round them")
    if not merged:
        raise ValueError("schedule must hold at least one (q, noise_multiplier, steps) triple; got an empty list")
    total = sum(merged.values())
    if total > STEPS_RANGE[1]:
        raise ValueError(f"schedule has {total:,} steps in all; at most {STEPS_RANGE[1]:g} are accepted")
    return tuple(StepGroup(q, z, n) for (q, z), n in merged.items())


def _points(values, name: str) -> tuple[list, bool]:
    if isinstance(values, Mapping):
        raise ValueError(f"{name} must be a number or a list of numbers; got a {type(values).__name__}")
    if getattr(values, "ndim", None) == 0:
        return [values.item()], True
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        return [values], True
    values = list(values)
    if not values:
        raise ValueError(f"{name} must be a number or a non-empty list of numbers; got an empty list")
    return values, False


def _epsilon(value, name: str = "epsilon") -> Fraction:
    """A privacy ε ∈ [0, MAX_DPSGD_EPSILON], exactly (a decimal such as 0.1 is the rational 1/10; δ there is
    bracketed by its values at the two floats around it)."""
    _float_in(value, name, 0.0, MAX_DPSGD_EPSILON, "the privacy parameter")
    return as_fraction(value, name)


def _delta_target(value, name: str = "delta") -> Fraction:
    try:
        d = as_fraction(value, name) if not isinstance(value, bool) else None
    except ValueError:
        d = None
    if d is None or not Fraction(1, 10**300) <= d < 1:
        raise ValueError(f"{name} must be a number in [1e-300, 1); got {_shown(value)}")
    return d


# -- the composition -------------------------------------------------------------------------------------------

class DPSGDComposition:
    """A DP-SGD run: the Poisson-subsampled Gaussian (sensitivity 1) composed over its steps, add/remove-one.

    Either ``DPSGDComposition(q, noise_multiplier, steps)`` or ``DPSGDComposition(schedule=[(q, z, steps), ...])``
    (groups with the same q and z are merged). q and the noise multiplier are used as the float64 numbers they
    are: the accounting is exact for exactly that mechanism.

    >>> run = DPSGDComposition(0.01, 1.0, 1000)
    >>> e = run.epsilon(1e-5, abs_tol=1e-6)
    >>> 1.82 < e.lower < e.upper < 1.84 and e.width <= 1e-6
    True
    """

    def __init__(self, q=None, noise_multiplier=None, steps=None, *, schedule=None):
        if schedule is not None:
            if q is not None or noise_multiplier is not None or steps is not None:
                raise ValueError("give either q, noise_multiplier and steps, or schedule, not both")
            self.groups = _schedule(schedule)
        else:
            if q is None or noise_multiplier is None or steps is None:
                raise ValueError("q, noise_multiplier and steps are all needed (or a schedule of (q, noise_multiplier,"
                                 " steps) triples)")
            self.groups = (_group(q, noise_multiplier, steps),)
        self.relation = RELATION
        self._integrals: dict = {}
        self._contours: dict = {}

    def __repr__(self) -> str:
        parts = ", ".join(f"(q={g.q:g}, z={g.z:g}, steps={g.steps})" for g in self.groups)
        return f"DPSGDComposition([{parts}])"

    @property
    def steps(self) -> int:
        return sum(g.steps for g in self.groups)

    @property
    def schedule(self) -> tuple:
        return tuple((g.q, g.z, g.steps) for g in self.groups)

    def calibrate(self, target, *, resolution=1e-5, rel_tol: float = 1e-9) -> "DPSGDCalibration":
        """The smallest noise multiplier meeting ``target`` for this run's sampling rates and steps, the ratios of its
        groups' noise multipliers kept (the answer is the first group's multiplier):
        :func:`calibrate_noise_multiplier` on this schedule. The run's own multipliers only set those ratios.

        >>> c = DPSGDComposition(0.01, 1.0, 1000).calibrate((2.0, 1e-5), resolution=1e-3)
        >>> c.proven_smallest
        True
        """
        first = self.groups[0].z
        return calibrate_noise_multiplier(schedule=[(g.q, g.z / first, g.steps) for g in self.groups], target=target,
                                          resolution=resolution, rel_tol=rel_tol)

    def scaled(self, factor: float) -> "DPSGDComposition":
        """The same schedule with every noise multiplier multiplied by ``factor``."""
        return DPSGDComposition(schedule=[(g.q, g.z * factor, g.steps) for g in self.groups])

    # -- one direction ------------------------------------------------------------------------------------------
    def _direction(self, direction: str, epsilon: float, rel_tol: float) -> ProfileBound:
        if len(self.groups) == 1 and self.groups[0].steps == 1:
            g = self.groups[0]
            return one_step_profile(g.q, g.z, epsilon, direction)
        key = (direction, rel_tol)
        built_at, contour, achieved = self._contours.get(key, (math.inf, None, 0.0))
        if contour is not None and abs(built_at - epsilon) <= 0.5 * (1 + abs(epsilon)):
            bound = contour.delta(epsilon)  # a nearby ε: the same nodes, if they are accurate enough there
            if bound.upper == 0 or bound.error_bound <= max(rel_tol, 2 * achieved) * bound.value:
                return bound
        bound, contour = certified_profile(self.groups, direction, epsilon, rel_tol, self._integrals)
        if contour is not None and bound.upper > 0:
            with mpmath.workdps(30):  # what this contour reached where it was built (float64's floor, if above rel_tol)
                achieved = float(bound.error_bound / bound.value) if bound.value > 0 else 0.0
            self._contours[key] = (epsilon, contour, achieved)
        return bound

    def _add_upper_bound(self, epsilon: float) -> float:
        """A cheap certified upper bound on the add direction's δ(ε): the Chernoff bound C_λ M_A(λ) e^{−λε} at a few λ
        (log, −inf when the add loss cannot exceed ε)."""
        if epsilon >= loss_supremum(self.groups, "add") * (1 + 1e-12):
            return -math.inf
        best = 0.0
        for lam in (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0):
            try:
                log_m = math.fsum(g.steps * self._integral(g).log_real(-lam)[2] for g in self.groups)
            except (ArithmeticError, OverflowError, ResourceLimitError):
                continue
            best = min(best, lam * math.log(lam) - (1 + lam) * math.log1p(lam) + log_m - lam * epsilon)
        return best

    def _integral(self, g: StepGroup) -> OneStepIntegral:
        if (g.q, g.z) not in self._integrals:
            self._integrals[(g.q, g.z)] = OneStepIntegral(g.q, g.z)
        return self._integrals[(g.q, g.z)]

    def _direction_exact(self, direction: str, epsilon, rel_tol: float) -> ProfileBound:
        """One direction's δ at an exact ε (a float, or a Fraction that may lie between two floats ε⁻ < ε < ε⁺: δ is
        decreasing, so δ(ε) ∈ [lower at ε⁺, upper at ε⁻])."""
        as_float = float(epsilon)
        if Fraction(as_float) == Fraction(epsilon):
            return self._direction(direction, as_float, rel_tol)
        below = as_float if Fraction(as_float) < Fraction(epsilon) else math.nextafter(as_float, -math.inf)
        above = math.nextafter(below, math.inf)
        lo_bound = self._direction(direction, above, rel_tol)
        hi_bound = self._direction(direction, below, rel_tol)
        return ProfileBound(as_float, direction, lo_bound.lower, hi_bound.upper, hi_bound.budget, hi_bound.nodes)

    def _point(self, epsilon, rel_tol: float) -> DPSGDDeltaPoint:
        """δ(ε) for both directions, the worse one stated (ε a float or an exact Fraction)."""
        remove = self._direction_exact("remove", epsilon, rel_tol)
        with mpmath.workdps(40):
            add_cap = self._add_upper_bound(float(epsilon) * (1 - 1e-15))
            if add_cap == -math.inf or mpmath.exp(add_cap) <= remove.lower and remove.lower > 0:
                add = None  # the add direction is certainly below the remove direction's lower end
            else:
                add = self._direction_exact("add", epsilon, rel_tol)
            if add is None:
                lower, upper, dominant = remove.lower, remove.upper, "remove"
                add_interval = (mpmath.mpf(0), mpmath.exp(add_cap) if add_cap > -math.inf else mpmath.mpf(0))
            else:
                lower, upper = max(remove.lower, add.lower), max(remove.upper, add.upper)
                dominant = ("remove" if remove.lower > add.upper else "add" if add.lower > remove.upper else "both")
                add_interval = (add.lower, add.upper)
            value = (lower + upper) / 2
            bound = (upper - lower) / 2 * (1 + mpmath.mpf(10) ** -20) + abs(value) * mpmath.mpf(10) ** -38
            eps = Fraction(epsilon)
            shown = mpmath.mpf(eps.numerator) / eps.denominator
        return DPSGDDeltaPoint(shown, value, error_bound(bound), RELATION, dominant,
                               (remove.lower, remove.upper), add_interval)

    # -- δ(ε) ---------------------------------------------------------------------------------------------------
    def delta(self, epsilon, *, rel_tol: float = 1e-6):
        """δ(ε) of the run at ``epsilon`` (a number or a list), each with ``error_bound ≤ rel_tol·δ``; the relation is
        add/remove-one, the worse direction (``RELATION``). ε is taken exactly (between two floats, δ is bracketed by
        its values at both). The relative accuracy float64 can certify is about T·1e-13 (1e-9 at T = 10,000); a
        tighter ``rel_tol`` raises ArithmeticError naming the bound reached.

        >>> run = DPSGDComposition(0.01, 1.0, 1000)
        >>> near, far = run.delta([1.0, 2.0])
        >>> far.delta + far.error_bound < near.delta - near.error_bound
        True
        """
        rel_tol = as_tolerance(rel_tol, "rel_tol", smallest=1e-12, largest=0.5)
        points, single = _points(epsilon, "epsilon")
        results = []
        for e in points:
            eps = _epsilon(e)
            point = self._point(eps, rel_tol / 2)
            if point.delta > 0 and point.error_bound > rel_tol * point.delta:
                raise ArithmeticError(f"could not certify δ({float(eps):g}) to rel_tol = {rel_tol:g} for {self!r}: the bound "
                                      f"reached {float(point.error_bound / point.delta):.2g} relative")
            results.append(point)
        return results[0] if single else results

    # -- f(α) ---------------------------------------------------------------------------------------------------
    def tradeoff(self, alpha, *, abs_tol: float = 1e-9):
        """β = f(α) of the run's symmetric trade-off function at ``alpha`` in [0, 1] (a number or a list), each with
        ``error_bound ≤ abs_tol``, add/remove-one.

        f(α) = sup_{ε ≥ 0} max(1 − δ(ε) − e^ε α, e^{−ε}(1 − δ(ε) − α)) with δ the worse direction's profile
        (module docstring). Each branch is the supremum of a concave function (δ is convex in t = e^ε, and
        e^{−ε}δ(ε) in u = e^{−ε}); certified values at a few points near the maximiser bound it from below, and
        the chords through them, extended, from above (a concave function lies below the extensions of its chords).

        >>> run = DPSGDComposition(0.01, 1.0, 1000)
        >>> p = run.tradeoff(0.1, abs_tol=1e-7)
        >>> 0.5 < p.beta < 0.9 and p.error_bound <= 1e-7
        True
        """
        abs_tol = as_tolerance(abs_tol, "abs_tol", smallest=1e-12, largest=0.5)
        points, single = _points(alpha, "alpha")
        results = []
        for a in points:
            _float_in(a, "alpha", 0.0, 1.0, "the type I error")
            results.append(self._tradeoff_point(as_fraction(a, "alpha"), abs_tol))
        return results[0] if single else results

    def _profile_interval(self, epsilon: float) -> tuple:
        p = self._point(epsilon, 1e-9)
        with mpmath.workdps(40):
            return p.delta - p.error_bound, p.delta + p.error_bound

    def _tradeoff_point(self, alpha: Fraction, abs_tol: float) -> DPSGDTradeoffPoint:
        with mpmath.workdps(40):
            exact = mpmath.mpf(alpha.numerator) / alpha.denominator
            if alpha == 0:
                lo = hi = mpmath.mpf(1)  # no loss is infinite: f(0) = 1 − lim δ = 1
            elif alpha == 1:
                lo = hi = mpmath.mpf(0)
            else:
                a = exact
                lo_a, hi_a = self._branch_sup(alpha, abs_tol, "t")
                lo_b, hi_b = self._branch_sup(alpha, abs_tol, "u", below=lo_a)
                lo = max(lo_a, lo_b, mpmath.mpf(0))
                hi = min(max(hi_a, hi_b, mpmath.mpf(0)), 1 - a)
                if hi - lo > abs_tol:
                    raise ArithmeticError(f"could not certify f({alpha:g}) to abs_tol = {abs_tol:g} for {self!r}: it "
                                          f"lies in [{mpmath.nstr(lo, 12)}, {mpmath.nstr(hi, 12)}]")
            value = (lo + hi) / 2
            bound = (hi - lo) / 2 + abs(value) * mpmath.mpf(10) ** -38
        return DPSGDTradeoffPoint(exact, value, error_bound(bound), RELATION)

    def _delta_estimate(self, eps: float) -> float:
        """The saddle-point estimate of δ(ε) (the larger direction; no nodes, nothing certified): for searching."""
        integrals = integrals_for(self.groups, self._integrals)
        best = 0.0
        for direction in _DIRECTIONS:
            if eps >= loss_supremum(self.groups, direction):
                continue
            try:
                c, log_j, _ = saddle(self.groups, direction, eps, integrals)
                a = c + 1 if direction == "remove" else -c
                log_d = log_j - c * eps + math.fsum(g.steps * integrals[(g.q, g.z)].log_real(a)[0] for g in self.groups)
                best = max(best, math.exp(min(log_d, 0.0)))
            except (ArithmeticError, OverflowError, ResourceLimitError):
                continue
        return best

    def _branch_sup(self, alpha: Fraction, abs_tol: float, variable: str, below=None) -> tuple:
        """[lower, upper] for the supremum over ε ≥ 0 of one branch: h(t) = 1 − δ(log t) − tα on t ≥ 1 ("t") or
        k(u) = u(1 − α − δ(−log u)) on 0 < u ≤ 1 ("u"), both concave. Grid points around the estimated maximiser;
        the bound from above takes, on each cell, the least of the extended chords of its neighbours and the box
        bound from monotonicity, and beyond the outer points the chords' certified signs."""
        with mpmath.workdps(40):
            a = mpmath.mpf(alpha.numerator) / alpha.denominator
            alpha = float(alpha)  # for choosing points only

            def value(eps: float) -> tuple:
                d_lo, d_hi = self._profile_interval(eps)
                if variable == "t":
                    t = mpmath.exp(eps)
                    return 1 - d_hi - t * a, 1 - d_lo - t * a
                u = mpmath.exp(-eps)
                return u * (1 - a - d_hi), u * (1 - a - d_lo)

            def estimate(eps: float) -> float:
                d = self._delta_estimate(eps)
                return 1 - d - math.exp(eps) * alpha if variable == "t" else math.exp(-eps) * (1 - alpha - d)

            # a starting point: the Gaussian-DP approximation μ² ≈ Σ T q²(e^{1/z²} − 1) (its supporting line at α
            # has slope −e^ε with ε = μΦ⁻¹(1 − α) − μ²/2); then a walking grid that keeps the best point inside
            mu = math.sqrt(math.fsum(g.steps * g.q * g.q * math.expm1(min(1 / (g.z * g.z), 700.0)) for g in self.groups))
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
                upper = _concave_sup_upper(pts, variable)
                if upper - lower <= abs_tol / 2 or below is not None and upper <= below:
                    return lower, upper
                best = max(range(len(vals)), key=lambda i: vals[i][0] + vals[i][1])
                inner = 0 < best < len(vals) - 1 or eps_points[best] == 0.0
                centre = eps_points[best]
                if inner:
                    spread /= 4
            return lower, upper


    # -- ε(δ) ---------------------------------------------------------------------------------------------------
    def _direction_epsilon(self, direction: str, delta: mpmath.mpf, tol: float):
        """(lower, upper, at_lower, at_upper) for one direction: δ_d(upper) ≤ δ certified, δ_d(lower) > δ certified
        (lower = 0 with at_lower None when δ_d(ε) ≤ δ already at ε = 0)."""
        fine = 1e-10
        sup = loss_supremum(self.groups, direction)

        def evaluate(eps: float, contour=None) -> ProfileBound:
            if len(self.groups) == 1 and self.groups[0].steps == 1:
                g = self.groups[0]
                return one_step_profile(g.q, g.z, eps, direction)
            if eps >= sup * (1 + 1e-12):
                zero = mpmath.mpf(0)
                return ProfileBound(eps, direction, zero, zero, None, 0)
            if contour is not None:
                return contour.delta(eps)
            bound, _ = certified_profile(self.groups, direction, eps, fine, self._integrals)
            return bound

        at_zero = evaluate(0.0)
        if at_zero.upper <= delta:
            return Fraction(0), Fraction(0), None, at_zero
        single = len(self.groups) == 1 and self.groups[0].steps == 1
        # a first guess from the saddle-point approximation (no nodes), then Newton steps on log δ with one contour
        guess = self._saddle_epsilon(direction, float(delta), sup)
        contour = None
        for _ in range(12):
            if contour is None and not single:
                _, contour = certified_profile(self.groups, direction, guess, fine, self._integrals)
                built_at = guess
            bound = evaluate(guess, contour)
            value = bound.value
            slope = contour.c if contour is not None else 5.0
            if value <= 0:
                guess = guess / 2
                contour = None
                continue
            step = float(mpmath.log(value / delta)) / max(slope, 1e-3)
            step = max(min(step, 1.0 + guess), -0.5 * guess)
            guess = guess + step
            if math.isfinite(sup):
                guess = min(guess, sup * (1 - 1e-9))
            if contour is not None and abs(guess - built_at) > 0.05 * (1 + guess):
                contour = None  # moved far: a contour for the new guess
            if abs(step) < tol / 4:
                break
        if contour is None and not single:
            _, contour = certified_profile(self.groups, direction, guess, fine, self._integrals)

        def status(eps: float):
            b = evaluate(eps, contour)
            if b.upper <= delta:
                return "holds", b
            if b.lower > delta:
                return "fails", b
            return "undecided", b

        width = max(tol, 1e-9)
        lower = upper = None
        at_lower = at_upper = None
        span = width / 2
        for _ in range(80):
            lo_e, hi_e = max(guess - span, 0.0), guess + span
            if upper is None:
                st, b = status(hi_e)
                if st == "holds":
                    upper, at_upper = hi_e, b
            if lower is None:
                if lo_e <= 0:
                    st, b = status(0.0)
                    if st == "holds":
                        return Fraction(0), Fraction(0), None, b
                    lower, at_lower = (0.0, b) if st == "fails" else (None, None)
                else:
                    st, b = status(lo_e)
                    if st == "fails":
                        lower, at_lower = lo_e, b
            if lower is not None and upper is not None:
                break
            span *= 2
        if lower is None or upper is None:
            raise ArithmeticError(f"could not bracket ε(δ = {float(delta):g}) for the {direction} direction")
        while upper - lower > width:
            mid = (lower + upper) / 2
            st, b = status(mid)
            if st == "holds":
                upper, at_upper = mid, b
                continue
            if st == "fails":
                lower, at_lower = mid, b
                continue
            # δ(mid) lies within its bound of the target: walk out from mid in steps of width/16 until each side is
            # decided (the undecided band is float64's floor, about T·1e-13 relative in δ)
            step = width / 16
            moved = False
            for k in range(1, 9):
                if mid + k * step < upper:
                    st_hi, b_hi = status(mid + k * step)
                    if st_hi == "holds":
                        upper, at_upper, moved = mid + k * step, b_hi, True
                        break
            for k in range(1, 9):
                if mid - k * step > lower:
                    st_lo, b_lo = status(mid - k * step)
                    if st_lo == "fails":
                        lower, at_lower, moved = mid - k * step, b_lo, True
                        break
            if not moved:
                raise ArithmeticError(f"the certified bounds cannot decide δ(ε) against δ = {float(delta):g} "
                                      f"({direction}) near ε = {mid:.12g}: ε(δ) lies in [{lower:.12g}, {upper:.12g}]; "
                                      f"loosen abs_tol (float64 certifies δ to about T·1e-13 relative)")
        return Fraction(lower), Fraction(upper), at_lower, at_upper

    def _saddle_epsilon(self, direction: str, delta: float, sup: float) -> float:
        """A starting ε: the root of the saddle-point estimate log δ(ε) ≈ −cε + log M(c) − log(c(c+1)√(2πK''(c))) =
        log δ (secant steps; nothing here is certified)."""
        integrals = integrals_for(self.groups, self._integrals)

        def log_estimate(eps):
            c, log_j, _ = saddle(self.groups, direction, eps, integrals)
            return log_j + math.fsum(g.steps * integrals[(g.q, g.z)].log_real(c + 1 if direction == "remove" else -c)[0]
                                     for g in self.groups) - c * eps, c

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

    def epsilon(self, delta, *, abs_tol=1e-9) -> DPSGDEpsilonInterval:
        """The certified ε for δ: an interval [lower, upper] of width ≤ ``abs_tol`` with (upper, δ)-DP certified and
        (lower, δ)-DP certainly failing, add/remove-one (both directions: ε(δ) is the larger of theirs).

        >>> e = DPSGDComposition(0.01, 1.0, 1000).epsilon("1e-12", abs_tol=1e-6)
        >>> 3.9 < e.lower and e.width <= 1e-6
        True
        """
        delta = _delta_target(delta)
        tol = as_tolerance(abs_tol, "abs_tol", smallest=1e-12, largest=1.0)
        with mpmath.workdps(40):
            d = mpmath.mpf(delta.numerator) / delta.denominator
        lo_r, hi_r, at_lo_r, at_hi_r = self._direction_epsilon("remove", d, tol)
        # the add direction: nothing to do when it certainly holds at the remove direction's upper end
        add_cap = self._add_upper_bound(float(hi_r))
        with mpmath.workdps(40):
            add_holds = add_cap == -math.inf or mpmath.exp(add_cap) <= d
        if not add_holds:
            b = self._direction("add", float(hi_r), 1e-10)
            add_holds = b.upper <= d
        if add_holds:
            lower, upper, at_lower, at_upper, dominant = lo_r, hi_r, at_lo_r, at_hi_r, "remove"
        else:
            lo_a, hi_a, at_lo_a, at_hi_a = self._direction_epsilon("add", d, tol)
            if hi_a >= hi_r:
                upper, at_upper = hi_a, at_hi_a
            else:
                upper, at_upper = hi_r, at_hi_r
            if lo_a >= lo_r:
                lower, at_lower = lo_a, at_lo_a
            else:
                lower, at_lower = lo_r, at_lo_r
            dominant = "add" if lo_a > hi_r else "remove" if lo_r > hi_a else "both"
        to_point = (lambda b: None if b is None else
                    DeltaPoint(mpmath.mpf(b.epsilon), b.value, error_bound(b.error_bound)))
        return DPSGDEpsilonInterval(delta, lower, upper, to_point(at_lower), to_point(at_upper), RELATION, dominant)


def _concave_sup_upper(pts, variable: str) -> mpmath.mpf:
    """An upper bound on sup of a concave function over its domain (t ≥ 1, or 0 < u ≤ 1) from certified values
    ``pts`` = [(coordinate, (lower, upper))] sorted by coordinate: per cell the least of the neighbours' extended
    chords; beyond the outer points, the outer chord when its slope is certified to point down (else +inf)."""
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


# -- calibration -----------------------------------------------------------------------------------------------

def _targets(target) -> tuple:
    items = list(target) if isinstance(target, (list, tuple)) and not (
        len(target) == 2 and not isinstance(target[0], (list, tuple, ApproximateDP, GaussianDP))) else [target]
    out = []
    for t in items:
        if isinstance(t, ApproximateDP):
            out.append(t)
        elif isinstance(t, GaussianDP):
            raise ValueError("target: μ-GDP targets are not supported for DP-SGD calibration here; give (ε, δ) "
                             "targets (ApproximateDP or (epsilon, delta) pairs)")
        elif isinstance(t, (tuple, list)) and len(t) == 2:
            eps = _epsilon(t[0], "target epsilon")
            if eps <= 0:
                raise ValueError(f"target epsilon must be > 0; got {t[0]!r}")
            out.append(ApproximateDP(eps, _delta_target(t[1], "target delta")))
        else:
            raise ValueError(f"target must be an ApproximateDP, an (epsilon, delta) pair or a list of them; got {t!r}")
    if not out:
        raise ValueError("target must hold at least one (epsilon, delta) target")
    return tuple(out)


def _grid_step(reference: float, resolution: float) -> Fraction:
    """reference·resolution rounded down to two significant digits (a short decimal step)."""
    value = Fraction(reference) * Fraction(resolution)
    exponent = math.floor(math.log10(float(value))) - 1
    unit = Fraction(10) ** exponent
    return max(unit, math.floor(value / unit) * unit)


def calibrate_noise_multiplier(q=None, steps=None, target=None, *, schedule=None, resolution=1e-5,
                               rel_tol: float = 1e-9, progress=None) -> DPSGDCalibration:
    """The smallest noise multiplier z on the grid (relative step ``resolution``, default 1e-5) at which every
    (ε, δ) target holds for DP-SGD, add/remove-one, with a certified failure one grid step below.

    Homogeneous: ``calibrate_noise_multiplier(q, steps, (epsilon, delta))``. Heterogeneous: ``schedule`` is a list
    of (q, factor, steps) triples; group g then runs with noise multiplier factor_g·z. ``target`` is one (ε, δ)
    pair, an :class:`~accountlib.theory.calibration.ApproximateDP`, or a list of them (all must hold).

    >>> c = calibrate_noise_multiplier(0.01, 1000, (2.0, 1e-5), resolution=1e-3)
    >>> c.proven_smallest and 0.9 < c.noise_multiplier < 1.0
    True
    """
    if schedule is not None:
        if q is not None or steps is not None:
            raise ValueError("give either q and steps, or schedule, not both")
        base = _schedule(schedule)  # (q, factor, steps): the factor sits in the z slot (checked as a multiplier)
    else:
        if q is None or steps is None:
            raise ValueError("q and steps are both needed (or a schedule of (q, factor, steps) triples)")
        base = (_group(q, 1.0, steps),)
    if target is None:
        raise ValueError("target is needed: an (epsilon, delta) pair or a list of them")
    targets = _targets(target)
    resolution = as_tolerance(resolution, "resolution", smallest=1e-9, largest=0.1)
    rel_tol = as_tolerance(rel_tol, "rel_tol", smallest=1e-12, largest=1e-3)
    # the RDP calibration is a certified upper bound on the answer and a good reference for the grid
    from .dpsgd_calibration import calibrate_dpsgd

    reference = 0.0
    for t in targets:
        for g in base:
            try:
                z = calibrate_dpsgd(g.q, sum(h.steps for h in base), float(t.epsilon), float(t.delta), "rdp",
                                    tolerance=1e-6) / g.z
            except ValueError:
                z = 1.0
            reference = max(reference, z)
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
            zs = [g.z * float(z) for g in base]
            if not (Z_RANGE[0] <= min(zs) and max(zs) <= Z_RANGE[1]):
                raise ValueError(f"the calibration left the accepted noise multipliers [{Z_RANGE[0]:g}, "
                                 f"{Z_RANGE[1]:g}] (at z = {float(z):g}): the target is out of reach")
            run = DPSGDComposition(schedule=schedule_at(z))
            checks = []
            for t in targets:
                point = run._point(t.epsilon, rel_tol)
                with mpmath.workdps(40):
                    allowed = mpmath.mpf(t.delta.numerator) / t.delta.denominator
                    status = ("holds" if point.delta + point.error_bound <= allowed else
                              "fails" if point.delta - point.error_bound > allowed else "undecided")
                checks.append(LevelCheck(Level(t.epsilon, allowed, allowed), point, status))
            evaluations += 1
            state = ("holds" if all(c.status == "holds" for c in checks) else
                     "fails" if any(c.status == "fails" for c in checks) else "undecided")
            memo[z] = (state, checks)
            if progress is not None:
                progress(f"z = {float(z):.8g}: {state}")
        return memo[z]

    def smallest_on(step: Fraction, hi: int, lo: int) -> tuple[int, int]:
        """(hi, lo) on the grid step·ℤ with the targets holding at hi·step and not at lo·step, hi − lo = 1; the
        starting hi must hold (it is raised until it does) and lo must not (it is lowered until it does not)."""
        while at(hi * step)[0] != "holds":
            hi = max(hi + 1, math.ceil(hi * 1.1))
            if hi * step > 10 * Fraction(reference):
                raise ArithmeticError("could not certify the targets at any noise multiplier up to ten times the "
                                      "RDP calibration's")
        lo = min(lo, hi - 1)
        while lo >= 1 and at(lo * step)[0] == "holds":
            hi, lo = lo, math.floor(lo * 0.9)
        while hi - lo > 1:
            mid = (hi + lo) // 2
            if at(mid * step)[0] == "holds":
                hi = mid
            else:
                lo = mid
        return hi, lo

    # a coarse grid first (relative step 1e-3 of the RDP calibration), then the fine grid, whose step is
    # ``resolution`` times the coarse answer's lower end (so it is at most resolution times the answer)
    coarse = _grid_step(reference, max(resolution, 1e-3))
    hi, lo = smallest_on(coarse, math.ceil(Fraction(reference) / coarse), math.floor(Fraction(reference) * 9 / 10 / coarse))
    step = coarse
    if resolution < 1e-3:
        step = _grid_step(float(max(lo, 1) * coarse), resolution)
        fine_hi = math.ceil(hi * coarse / step)
        hi, lo = smallest_on(step, fine_hi, math.floor(lo * coarse / step))
    failure = None
    if lo >= 1:
        failure = next((c for c in at(lo * step)[1] if c.status == "fails"), None)
    z = hi * step
    return DPSGDCalibration(z, step, tuple(schedule_at(z)), targets, tuple(at(z)[1]), failure, evaluations)
