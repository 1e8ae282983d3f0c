"""Deciding a target for a composition: each level of the target against a certified δ(ε).

Theory layer of :mod:`accountlib`. A composition meets a level (:class:`~accountlib.theory.targets.Level`) when its
certified δ(ε) plus the bound is at most what the level allows, and certainly fails it when δ(ε) minus the bound
exceeds the target's own δ there (:func:`check_levels`, tightening the tolerance where a bound cannot decide); a
μ-GDP target is decided on its own ε grid, refined where it cannot decide (:func:`decide_gaussian_dp`). These are the
answers every search of :mod:`accountlib.theory.calibration` and :mod:`accountlib.theory.accounting` is built on.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath

from ..infrastructure.interval_ends import lower_end, upper_end
from ..engine.work import WorkMeter, call_meter
from ..infrastructure.numbers import as_rel_tol, fraction_to_mpf
from .composition import SMALLEST_REL_TOL, Composition, DeltaPoint, as_composition
from .gaussian_dp import gaussian_profile
from .targets import LEVEL_DIGITS, LEVEL_MARGIN, TAIL_SLACK, GaussianDP, Level, level_targets, parts

__all__ = ["LevelCheck", "check_levels", "decide", "decide_gaussian_dp", "check", "smoothed_call_meter"]


@dataclass(frozen=True)
class LevelCheck:
    """A level against a certified δ(ε): ``status`` is "holds", "fails" or "undecided"."""

    level: Level
    point: DeltaPoint
    status: str


def smoothed_call_meter(pair: Composition) -> WorkMeter | None:
    """The work budget of one value of a public call of many δ(ε) of ``pair`` (one ε of a δ call), or of a whole
    check (all its levels and tightening rounds): :data:`accountlib.engine.work.MAX_SMOOTHED_CALL_WORK` work units
    (``ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK``); None where the pair is not on the smoothed engine."""
    return None if pair.smoothed is None else call_meter()


def check_levels(pair: Composition, levels: list[Level], rel_tol: float, *, meter=None) -> list[LevelCheck]:
    """Each level decided by certified δ(ε), the tolerance tightened for levels the bound leaves undecided
    (``meter``: the smoothed engine's work budget shared with the caller's other δ,
    :meth:`~accountlib.theory.composition.Composition.delta`)."""
    checks: dict[int, LevelCheck] = {}
    todo = list(range(len(levels)))
    tol = rel_tol
    while todo:
        points = pair.delta([levels[i].epsilon for i in todo], rel_tol=tol, meter=meter)
        undecided = []
        for i, p in zip(todo, points):
            lv = levels[i]
            if upper_end(p.delta, p.error_bound) <= lv.allowed:  # exact: no rounding decides a level
                status = "holds"
            elif lower_end(p.delta, p.error_bound) > lv.witness:
                status = "fails"
            else:
                status = "undecided"
                undecided.append(i)
            checks[i] = LevelCheck(lv, p, status)
        if tol <= SMALLEST_REL_TOL * 1.000001 or (meter is not None and meter.exhausted):
            break
        todo, tol = undecided, max(tol * 1e-6, SMALLEST_REL_TOL)
    return [checks[i] for i in range(len(levels))]


def decide(pair: Composition, target, levels: list[Level], rel_tol: float, *, meter=None) -> list[LevelCheck]:
    """Every part of ``target`` decided for ``pair``: a μ-GDP part on its own refined ε grid
    (:func:`decide_gaussian_dp`), the others through their levels (``levels``: :func:`~accountlib.theory.targets.level_targets` of ``target``,
    computed once by the caller), all the levels, their tightening rounds and the μ-GDP grid sharing one work budget
    on the smoothed engine: ``meter``, the caller's (:func:`accountlib.theory.calibration.calibrate`: one for all its
    multipliers), else a fresh :func:`accountlib.theory.decision.smoothed_call_meter`; where it is spent what is left is "undecided"."""
    meter = smoothed_call_meter(pair) if meter is None else meter
    checks = check_levels(pair, levels, rel_tol, meter=meter) if levels else []
    for t in parts(target):
        if isinstance(t, GaussianDP):
            checks += decide_gaussian_dp(t, pair, rel_tol, meter=meter)
    return checks


def check(composition, target, *, rel_tol: float = 1e-6, sensitivities=None) -> list[LevelCheck]:
    """Each level of ``target`` decided for ``composition`` by certified δ(ε): "holds" (δ + bound ≤ allowed),
    "fails" (δ − bound above the target's own δ: the target is certainly not met) or "undecided". On the smoothed
    engine all the levels, their tightening rounds and a μ-GDP target's ε grid share one work budget
    (:func:`accountlib.theory.decision.smoothed_call_meter`, 5 to 8 s of one core): a level it leaves undecided is
    "undecided", and a μ-GDP grid is refined no further once it is spent.

    >>> from accountlib.theory.targets import ApproximateDP
    >>> [c.status for c in check(["1/2"], ApproximateDP(1, "0.01"))]
    ['fails']
    """
    rel_tol = as_rel_tol(rel_tol)
    return decide(as_composition(composition, sensitivities), target, level_targets(target), rel_tol)


def decide_gaussian_dp(target, pair, rel_tol: float, *, max_points: int = 4000, meter=None) -> list[LevelCheck]:
    """A μ-GDP ``target`` (f ≥ G_μ − η) decided for ``pair`` on an ε grid refined where it cannot decide (the check
    ``calibrate`` and ``check`` use; the chords of :meth:`~accountlib.theory.targets.GaussianDP.levels` serve only to
    rank pairs).

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
    point alone when there is one; "undecided" ones remain where ``max_points`` ran out (f touching G_μ), or where
    ``meter`` (a :class:`~accountlib.engine.work.WorkMeter` of the smoothed engine, shared with the caller's other
    δ; None: each δ its own limit) was spent: no grid point is added after that.
    """
    with mpmath.workdps(LEVEL_DIGITS):
        mu, eta = fraction_to_mpf(target.mu), fraction_to_mpf(TAIL_SLACK)
        top = mu * mu / 2 + mu * mpmath.sqrt(2 * mpmath.log(1 / eta))
        grid = sorted({Fraction(0), Fraction(1, 10**9)}
                      | {Fraction(mpmath.nstr(top * (k + 1) / 64, 12)).limit_denominator(10**9) for k in range(64)})
        known: dict[Fraction, DeltaPoint] = {}
        exact: dict[Fraction, tuple] = {}
        held: dict[tuple, LevelCheck] = {}  # intervals already decided: a refinement only splits the others

        def gaussian(e: Fraction):  # (x, δ_μ, dδ_μ/dx) at ε = e
            if e not in exact:
                eps = fraction_to_mpf(e)
                exact[e] = (mpmath.exp(eps), gaussian_profile(mu, eps), -mpmath.ncdf(-eps / mu - mu / 2))
            return exact[e]

        while True:
            todo = [e for e in grid if e > 0 and e not in known]
            if todo:
                for e, point in zip(todo, pair.delta(todo, rel_tol=rel_tol, meter=meter)):
                    known[e] = point
            for e in todo:  # a certain failure at a new grid point (the earlier ones showed none)
                witness = gaussian(e)[1] * (1 + LEVEL_MARGIN) + LEVEL_MARGIN + eta
                if known[e].delta - known[e].error_bound > witness:
                    return [LevelCheck(Level(e, mpmath.mpf(-1), witness), known[e], "fails")]
            first = grid[1]
            up = {e: known[e].delta + known[e].error_bound for e in grid[1:]}
            up[Fraction(0)] = up[first] + mpmath.expm1(fraction_to_mpf(first))
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
                # rounding at LEVEL_DIGITS is relative to the terms compared: δ's (≤ 1) and the tangents' s·x
                slack = LEVEL_MARGIN * (2 + (abs(s0) + abs(s1)) * x1)
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
            if not split or len(grid) + len(split) > max_points or (meter is not None and meter.exhausted):
                return checks
            grid = sorted(set(grid) | {Fraction(e).limit_denominator(10**15) for e in split})
