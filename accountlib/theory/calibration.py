"""Calibration with a certificate: the smallest noise that meets a privacy target, and budgets that minimise a loss.

Every answer here is decided by certified values of the exact privacy profile δ(ε) of a composition of
discrete Gaussian mechanisms (:class:`~accountlib.theory.composition.Composition`; sieve paper §2–§4), never by
floats compared with floats:

* :func:`calibrate` — for a composition (the shape of a release) and a target, the smallest variance multiplier v
  on a grid of step h (every σ_i² = 1/ρ_i becomes v/ρ_i, :meth:`~accountlib.theory.composition.Composition.rescaled`)
  at which the target holds with its certified bound, and a certified failure of the target at v − h;
* :func:`allocate` — per-query budgets that minimise Σ w_i σ_i² subject to the exact target: the zCDP optimum
  (ρ_i ∝ √w_i / s_i), snapped to a coarse rational grid the engine handles, calibrated exactly, then improved
  over the family ρ_i ∝ w_i^γ where the exact curve rewards another shape.

The targets are :mod:`accountlib.theory.targets`, the decision of a target for a composition
:mod:`accountlib.theory.decision`, the search :func:`accountlib.infrastructure.search.bisect`; the ε of a δ is
:func:`accountlib.theory.accounting.epsilon`. Their names are re-exported here, where they lived before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath

from ..infrastructure.numbers import (ResourceLimitError, as_fraction, as_positive_fraction, as_rel_tol, as_resolution,
                                     as_tolerance, fraction_to_mpf)
from ..infrastructure.search import bisect, integer, widen
from .accounting import EpsilonInterval, accounts_itself, epsilon  # noqa: F401  (EpsilonInterval, epsilon re-exported: their former home)
from .composition import Composition, as_composition
from .decision import LevelCheck, check, decide, smoothed_call_meter  # noqa: F401  (check, LevelCheck re-exported)
from .gaussian_dp import gaussian_profile, gaussian_tradeoff  # noqa: F401  (re-exported)
from .targets import (TAIL_SLACK, ApproximateDP, GaussianDP, Level, TradeoffCurve, level_targets,  # noqa: F401
                      levels_of, parts)

__all__ = ["Calibration", "Allocation", "calibrate", "allocate", "zcdp_rho_for", "zcdp_scale", "tv_rho_for", "grid_scale",
           "round_step", "AUTO_CALIBRATION_WORK_FACTOR",
           # re-exported from the modules that own them
           "ApproximateDP", "GaussianDP", "TradeoffCurve", "Level", "LevelCheck", "EpsilonInterval", "epsilon", "check",
           "TAIL_SLACK", "gaussian_tradeoff", "gaussian_profile", "decide", "level_targets", "levels_of"]


def _fraction(value, name: str) -> Fraction:
    return as_positive_fraction(value, name, floats="decimal")


def zcdp_rho_for(epsilon, delta) -> Fraction:
    """The largest ρ whose zCDP conversion ε = ρ + 2√(ρ log(1/δ)) (Bun and Steinke 2016, Prop. 1.3) is at most ε:
    ρ = (√(log(1/δ) + ε) − √log(1/δ))², rounded down to 12 digits (a float here is only a starting point)."""
    if Fraction(epsilon) == 0:  # ε = 0: no ρ > 0 converts to it
        return Fraction(0)
    with mpmath.workdps(40):
        L = -mpmath.log(fraction_to_mpf(Fraction(delta)))
        eps = fraction_to_mpf(Fraction(epsilon))
        # √(L + ε) − √L written without the cancellation that made it 0 at ε = 1e-300 (and its log10 −inf)
        return _twelve_digits_down((eps / (mpmath.sqrt(L + eps) + mpmath.sqrt(L))) ** 2)


def _twelve_digits_down(x) -> Fraction:
    """A positive mpf rounded down to twelve significant digits, however small it is."""
    digits = 12 - int(mpmath.floor(mpmath.log10(x)))
    return Fraction(int(mpmath.floor(x * mpmath.mpf(10) ** digits)), 10**digits)


def tv_rho_for(delta) -> Fraction:
    """The ρ at which the continuous Gaussian pair of zCDP ρ (N(0, 1) against N(μ, 1), μ = √(2ρ)) has total
    variation distance erf(μ / (2√2)) = δ: ρ = 4 erfinv(δ)², rounded down to 12 digits. Every composition has
    δ(ε) ≤ δ(0), the total variation distance (sieve paper Prop. 3.3 at ε = 0), so for an ε far below the zCDP
    conversion's reach (ρ + 2√(ρ log(1/δ)) ≈ ε needs ρ ≈ ε²/(4 log(1/δ)), which vanishes with ε) this is the
    closer start of :func:`calibrate`'s grid. A float-free starting point only, never a certificate."""
    with mpmath.workdps(40):
        return _twelve_digits_down(4 * mpmath.erfinv(fraction_to_mpf(Fraction(delta))) ** 2)


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
        """1 − scale/zcdp_scale: the share of variance the exact calibration gives back (None without a zCDP rule)."""
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


def zcdp_scale(target, rho: Fraction, fixed: Fraction = Fraction(0)) -> Fraction | None:
    """v such that the composition with ρ' = fixed + rho / v meets ``target`` by the zCDP rule (the largest v over a
    list; ``fixed`` the zCDP ρ of budgets held fixed). None where the rule has none (a trade-off curve, or a fixed
    part that alone exceeds the target's ρ)."""
    return _rule_scale(target, rho, fixed, lambda t: zcdp_rho_for(t.epsilon, t.delta))


def grid_scale(target, rho: Fraction, fixed: Fraction = Fraction(0)) -> Fraction | None:
    """The variance multiplier :func:`calibrate`'s grid is measured against: :func:`zcdp_scale`, except that an
    (ε, δ) target whose ε is so small that the zCDP rule asks more noise than bringing the continuous Gaussian's
    total variation distance to δ (:func:`tv_rho_for`) is measured against that (at ε = 1e-20 the zCDP rule's
    multiplier is 1e40 times the answer; at ε = 0 it has none). The same as :func:`zcdp_scale` for every target
    whose ε the zCDP rule reaches (ε = 1, δ = 1e-5: its ρ 0.0206 against 3.1e-10).

    >>> zcdp_scale(ApproximateDP("1e-20", "0.3"), Fraction(1, 4)) > 10**40 > 1 > grid_scale(ApproximateDP("1e-20", "0.3"), Fraction(1, 4))
    True
    >>> grid_scale(ApproximateDP(1, "1e-5"), Fraction(1, 4)) == zcdp_scale(ApproximateDP(1, "1e-5"), Fraction(1, 4))
    True
    """
    return _rule_scale(target, rho, fixed, lambda t: max(zcdp_rho_for(t.epsilon, t.delta), tv_rho_for(t.delta)))


def _rule_scale(target, rho: Fraction, fixed: Fraction, approximate_rho) -> Fraction | None:
    """The largest v over the targets with fixed + rho / v = the ρ each allows (``approximate_rho`` for an (ε, δ)
    target, μ²/2 for μ-GDP); None for a trade-off curve or where ``fixed`` alone exceeds it."""
    targets = list(target) if isinstance(target, (list, tuple)) else [target]
    scales = []
    for t in targets:
        if isinstance(t, ApproximateDP):
            allowed = approximate_rho(t)
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
            f = as_fraction(value, f"factors[{label!r}]", floats="decimal")
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


AUTO_CALIBRATION_WORK_FACTOR = 3
"""A calibration of a composition under ``engine="auto"`` with a budget outside the smoothed engine's range (no
engine to fall back on: each lattice engine within :data:`accountlib.theory.engine_choice.AUTO_NODE_BITS`, about
8 s) is refused before its first check where its evaluations' estimated arb work together passes this many times
that limit: the first engine's estimate at Δ = 1e-30 at the zCDP rule's multiplier
(:func:`accountlib.engine.tails.planned_node_bits`, measured 1.3 to 3.6 times the sieve's count) times the fewest
evaluations the search makes (log2 of the multiplier over the grid step, plus one). Budgets 9/2 and 1/1000003 for
(3, 0.1)-DP: 7.2e7 estimated per evaluation, 8 and 14 CPU s for the first two, more than a minute in all; budgets
9/2 and 1/3: 1.1e5 per evaluation, unaffected."""


def _refuse_unaffordable_calibration(pair: Composition, reference: Fraction, step: Fraction, factors) -> None:
    """Refuse at once (``ResourceLimitError``) a calibration beyond :data:`AUTO_CALIBRATION_WORK_FACTOR`."""
    if pair.smoothed is not None or pair.tails.max_node_bits is None:
        return  # engine="lattice", or "auto" with the smoothed engine to fall back on: the engines' own limits hold
    from ..engine.tails import planned_node_bits

    per_check = planned_node_bits(pair.rescaled(reference, factors=factors).lattice, 1e-30)
    checks = max(1, math.ceil(math.log2(max(float(reference / step), 1)))) + 1
    limit = AUTO_CALIBRATION_WORK_FACTOR * pair.tails.max_node_bits
    if per_check * checks > limit:
        raise ResourceLimitError(
            f"calibrating these budgets takes at least {checks} checks of about {per_check:.2g} node-bits of arb work "
            f"each (estimated before any sieve at Δ = 1e-30), {per_check * checks:.2g} in all, above "
            f"{AUTO_CALIBRATION_WORK_FACTOR} times the limit of {pair.tails.max_node_bits:.2g} on each engine "
            "(a budget outside [1e-12, 4] leaves the smoothed engine out): use budgets with smaller denominators or "
            f"raise ACCOUNTLIB_MAX_NODE_BITS to at least {math.ceil(per_check * checks / AUTO_CALIBRATION_WORK_FACTOR):.2g} "
            "(each check then up to that, the calibration up to three times it)")


NEAR_REFERENCE_PROBES = 3
"""For a μ-GDP target the grid's reference, the zCDP rule's multiplier (ρ = μ²/2: exact for the continuous Gaussian),
is within a few grid steps of the answer: :func:`calibrate` first probes the grid points 1, 2, 4, … steps from it
(this many), towards the side where the reference fails or holds, and bisects the last gap;
where none of them crosses, the doubling search follows, as for the other targets. Budgets 1, 591/1024 and
591/1024 for 1-GDP: 3 checks instead of 12 (18.6 -> 7.1 CPU s), the same multiplier 5397/2500; budgets 1/2 and 1/3
(the chapter "Calibrating exactly"): 5 instead of 12. Where the answer lies farther (budget 1 at μ = 0.5, 21 steps
above; budgets 1 and 2 at μ = 2, 65 steps; budget 1/10 at μ = 3, 774 steps) the three probes are spent for nothing:
15 checks instead of 12."""


def _bracket_near(holds, start: int):
    """(lo, hi) with not holds(lo) (or lo = 0) and holds(hi), from grid points 1, 2, 4, … steps from ``start``
    (:data:`NEAR_REFERENCE_PROBES` of them), or None where none crosses the boundary."""
    if holds(start):
        hi = start
        for i in range(NEAR_REFERENCE_PROBES):
            k = start - 2**i
            if k < 1:
                return None
            if not holds(k):
                return k, hi
            hi = k
        return None
    lo = start
    for i in range(NEAR_REFERENCE_PROBES):
        k = start + 2**i
        if holds(k):
            return lo, k
        lo = k
    return None


def round_step(value: Fraction) -> Fraction:
    """``value`` rounded down to two significant decimal digits (a short grid step)."""
    exponent = math.floor(math.log10(float(value))) - 1
    unit = Fraction(10) ** exponent
    return max(unit, math.floor(value / unit) * unit)


def calibrate(composition, target, *, resolution=1e-3, rel_tol: float = 1e-6, sensitivities=None, step=None,
              progress=None, groups=None, factors=None) -> Calibration:
    """The smallest noise meeting ``target``, certified on both sides.

    ``composition``: the release's budgets ρ_i (a list, with optional ``sensitivities``) or a Composition: their
    ratios are kept, and one variance multiplier v scales every σ_i² = 1/ρ_i to v/ρ_i. Per-group factors:
    ``groups`` gives each budget a label and ``factors`` maps a label to f_g ≥ 0 (default 1); then σ_i² becomes
    f_g·v/ρ_i, and f_g = 0 holds a group's noise fixed (``Calibration.multipliers`` lists each budget's factor). ``target``: an
    :class:`~accountlib.theory.targets.ApproximateDP`, :class:`~accountlib.theory.targets.GaussianDP` or :class:`~accountlib.theory.targets.TradeoffCurve`, or a list of them (all must hold).
    ``resolution``: the grid step of v relative to the zCDP calibration of the target (for an ε too small for the
    zCDP rule, ε = 0 included, to the noise bringing the Gaussian's total variation distance to δ:
    :func:`grid_scale`; to 1 where neither rule applies), or ``step``, the grid step itself (an exact rational, for
    several compositions on one grid).
    ``progress``: called with a line of text after each step, for long runs.

    A μ-GDP target (:class:`~accountlib.theory.targets.GaussianDP`) is decided on an ε grid refined where the profile comes close to
    G_μ's (:func:`~accountlib.theory.decision.decide_gaussian_dp`); ``proven_smallest`` is False only where the refinement's point budget runs
    out first (the exact curve touching G_μ), or where the work budget below is spent.

    Time: on the smoothed engine every multiplier tried shares one work budget for the whole call
    (:func:`~accountlib.theory.decision.smoothed_call_meter`: :data:`accountlib.engine.work.MAX_SMOOTHED_CALL_WORK`
    units, 5 to 8 s of one core, ``ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK``). Once it is spent no further multiplier is
    decided: the answer is the smallest multiplier certified to hold so far, with ``failure`` None and
    ``proven_smallest`` False (an upper bound on the smallest noise, certified, at a coarser step than asked); where
    none was certified to hold yet the call is refused in one line naming ``resolution`` and the limit to raise.

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
    pair = as_composition(composition, sensitivities)
    resolution = Fraction(as_resolution(resolution))
    rel_tol = as_rel_tol(rel_tol)
    levels = level_targets(target)
    if not levels and not any(isinstance(t, GaussianDP) for t in parts(target)):
        raise ValueError("target: every mechanism meets it (a trade-off curve g ≡ 0 asks nothing); no noise is needed")
    base, shifts = list(pair.rhos), list(pair.sensitivities)
    fs = _group_factors(groups, factors, len(base))
    if fs:
        scaled = sum((r * s * s / (2 * f) for r, s, f in zip(base, shifts, fs) if f), Fraction(0))
        held = sum((r * s * s / 2 for r, s, f in zip(base, shifts, fs) if not f), Fraction(0))
        zcdp, grid = zcdp_scale(target, scaled, held), grid_scale(target, scaled, held)
    else:
        zcdp, grid = zcdp_scale(target, pair.rho), grid_scale(target, pair.rho)
    reference = grid if grid is not None else Fraction(1)
    step = round_step(reference * resolution) if step is None else _fraction(step, "step")
    _refuse_unaffordable_calibration(pair, reference, step, fs)  # before the first check: milliseconds
    evaluations = 0
    memo: dict[int, tuple[str, list[LevelCheck], Composition | None]] = {}
    meter = smoothed_call_meter(pair)  # one work budget for every multiplier of the call (None: not smoothed)

    def at(k: int):
        nonlocal evaluations
        if k not in memo and meter is not None and meter.exhausted:  # nothing more is decided in this call
            if not any(state == "holds" for state, _, _ in memo.values()):
                raise ResourceLimitError(
                    f"resolution: calibrating to a step of {float(step):.6g} needs more than the {meter.limit:,} work "
                    "units of the smoothed engine one calibrate call may spend (ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK): no "
                    "multiplier was certified to hold before they were spent, and a coarser resolution (or step) starts "
                    "from the same one; raise the limit")
            memo[k] = ("undecided", [], None)
        if k not in memo:
            if k <= 0:
                raise ValueError("the target is met by no noise on this grid at all (k ≤ 0); check the target")
            v = k * step
            try:  # the caller's composition, its noise scaled: its sensitivities, paths and engine kept
                scaled = pair.rescaled(v, factors=fs)
                checks = decide(scaled, target, levels, rel_tol, meter=meter)
            except ResourceLimitError:  # an engine this fine is refused at this scale: nothing decided here
                scaled, checks = None, []
            evaluations += 1
            state = ("undecided" if not checks else "holds" if all(c.status == "holds" for c in checks) else
                     "fails" if any(c.status == "fails" for c in checks) else "undecided")
            memo[k] = (state, checks, scaled)
            if progress is not None:
                progress(f"v = {float(v):.6g}: {state}")
        return memo[k]

    def holds(k: int) -> bool:  # certified to hold at k·step (undecided counts as not holding)
        return at(k)[0] == "holds"

    def too_far(k: int) -> None:
        if k * step > 10**12 * reference:
            raise ArithmeticError(f"could not certify the target at any variance multiplier from {float(reference):.3g} "
                                  "up to 1e12 times it: either the target is not attainable (a trade-off curve above "
                                  "1 − α, or one at g(0) = 1 that only noise beyond this reaches) or the engine cannot "
                                  "decide its levels for these budgets")

    start = max(1, math.ceil(reference / step))
    near = (_bracket_near(holds, start) if any(isinstance(t, GaussianDP) for t in parts(target)) else None)
    if near is not None:
        lo, hi = near
    else:
        _, hi = widen(holds, 0, start, move_low=False, limit=too_far)
        lo = hi // 2
        while lo > 0 and holds(lo):  # the low end: halved until the target is not certified there
            hi, lo = lo, lo // 2
    lo, hi = bisect(holds, lo, hi, midpoint=integer, until=lambda lo, hi: hi - lo <= 1)
    failure = None
    if lo >= 1:
        failure = next((c for c in at(lo)[1] if c.status == "fails"), None)
    scale = hi * step
    return Calibration(scale, step, tuple(at(hi)[2].rhos), tuple(shifts), target, tuple(at(hi)[1]),
                       failure, zcdp, evaluations, fs)


# -- allocation ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Allocation:
    """Per-query budgets meeting the target exactly (``calibration`` is their certificate), the loss Σ w_i σ_i²
    = Σ w_i / ρ_i, and the loss of the zCDP-calibrated zCDP-optimal allocation for comparison (exact: about 1e600 at
    ε = 1e-300). ``tried``: (γ, loss) for each exponent tried, the loss None where one check showed the shape cannot
    win (:func:`allocate`).

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
        """1 − loss/zcdp_loss: the share of the weighted loss saved against the zCDP allocation (None without one)."""
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
    multiples of max/2^(``bits``), calibrated exactly (:func:`calibrate`); then tries the shapes ρ_i ∝ w_i^γ for
    the other ``exponents`` (where queries with small σ² gain more from the exact curve than zCDP credits) and
    keeps the one with the least loss. A shape that certainly fails the target at the noise where its loss would
    equal the best so far cannot win, and is skipped after that one check (``tried`` records its loss as None); a
    shape met before (one weight, or equal weights) is not calibrated again. The loss is compared with the zCDP-optimal allocation calibrated by the
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
    rel_tol = as_rel_tol(rel_tol)
    best, tried, seen = None, [], set()
    for gamma in exponents:
        shape = _shape(weights, shifts, float(gamma), bits)
        if tuple(shape) in seen:  # the same budgets (one weight, equal weights): the same calibration, not redone
            continue
        seen.add(tuple(shape))
        pair = Composition(shape, sensitivities=shifts)
        if best is not None and _cannot_win(pair, target, best[0] / sum(w / r for w, r in zip(weights, shape)), rel_tol):
            tried.append((float(gamma), None))
            if progress is not None:
                progress(f"γ = {float(gamma):g}: fails at the best loss so far (skipped)")
            continue
        c = calibrate(pair, target, resolution=resolution, rel_tol=rel_tol)
        loss = sum(w / r for w, r in zip(weights, c.rhos))
        tried.append((float(gamma), float(loss)))
        if progress is not None:
            progress(f"γ = {float(gamma):g}: loss {float(loss):.6g}")
        if best is None or loss < best[0]:
            best = (loss, float(gamma), c)
    loss, gamma, c = best
    zcdp_loss = None
    scale = None if isinstance(target, TradeoffCurve) else zcdp_scale(target, Fraction(1))
    if scale is not None:
        # the zCDP optimum: ρ_i = ρ* √w_i / s_i / (Σ √w_j s_j / 2), with ρ* = 1/scale the zCDP rule's budget, so its
        # loss is scale · (Σ √w_j s_j / 2) · Σ w_i s_i / √w_i: the scale kept exact (1e600 at ε = 1e-300, where
        # ρ* underflows a float)
        roots = [math.sqrt(float(w)) / s for w, s in zip(weights, shifts)]
        total = sum(r * s * s for r, s in zip(roots, shifts)) / 2
        zcdp_loss = scale * Fraction(total) * Fraction(sum(float(w) / r for w, r in zip(weights, roots)))
    return Allocation(c.rhos, loss, zcdp_loss, gamma, c, tuple(tried))


def _cannot_win(pair: Composition, target, multiplier: Fraction, rel_tol: float) -> bool:
    """Whether ``target`` certainly fails for ``pair`` with every variance multiplied by ``multiplier`` (the scale at
    which its loss equals the best so far): then its calibrated multiplier is larger (δ(ε) falls as the noise grows)
    and so is its loss, and :func:`allocate` skips the shape after this one check instead of a calibration."""
    try:
        checks = decide(pair.rescaled(multiplier), target, level_targets(target), rel_tol)
    except (ResourceLimitError, ValueError):  # not decided at this scale (or a budget out of range): calibrate it
        return False
    return any(c.status == "fails" for c in checks)
