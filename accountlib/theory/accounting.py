"""The three questions asked of one composition: δ at an ε, β = f(α) at an α, and the ε of a δ.

These are the front door's :func:`~accountlib.theory.accounting.delta`, :func:`~accountlib.theory.accounting.tradeoff` and :func:`~accountlib.theory.accounting.epsilon`. Each takes the composition as a
:class:`~accountlib.theory.composition.Composition` or as its budgets ρ_i (with optional sensitivities), and one point
or a list of points: one point gives one result, a list gives a list. The numbers are the composition's exact
privacy profile and trade-off function (sieve paper §3.2, Props. 3.3 and 3.4; unifying paper §2), each with a rigorous error
bound.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction

import mpmath

from ..engine.work import WorkMeter, starved_note
from ..infrastructure.numbers import SMALLEST_REL_TOL, ResourceLimitError, as_abs_tol, as_rel_tol, resource_limit
from ..infrastructure.shown import bound_text
from ..infrastructure.search import FAILS, HOLDS, arithmetic, certified_bisect
from .composition import MAX_EPSILON, Composition, DeltaPoint, TradeoffPoint, as_composition
from .decision import check_levels
from .targets import ApproximateDP, Level, as_epsilon_width, as_target_delta

__all__ = ["delta", "tradeoff", "epsilon", "EpsilonInterval", "epsilon_meter"]


def accounts_itself(composition, sensitivities=None) -> bool:
    """Whether ``composition`` is a composition object that computes its own curves, the DP-SGD composition
    (:class:`accountlib.theory.dpsgd_accounting.DPSGDComposition`): it states its neighbouring ``relation`` and has
    ``delta``, ``tradeoff``, ``epsilon`` and ``calibrate``. Recognised by that interface, not imported (its module
    imports this one's dependents). Its sensitivity is fixed (1, the clipping norm): ``sensitivities`` is refused."""
    own = (not isinstance(composition, Composition) and isinstance(getattr(composition, "relation", None), str)
           and all(callable(getattr(composition, name, None)) for name in ("delta", "tradeoff", "epsilon", "calibrate")))
    if own and sensitivities is not None:
        raise ValueError("sensitivities: a DP-SGD composition has sensitivity 1 (the clipping norm); give none")
    return own


def as_points(values, name: str) -> tuple[list, bool]:
    """(the points as a list, whether one point was given): ``values`` is one number or a non-empty list of them
    (a numpy scalar or 0-d array counts as one number, kept as the numpy number it is: ``item()`` would turn a
    float32 into the float64 of its binary value, and each point is read by
    :func:`~accountlib.infrastructure.numbers.as_fraction`'s decimal rule, which reads a float32 as the decimal it
    prints as, as it does inside a list); ``name`` names the argument in the error."""
    if isinstance(values, Mapping):
        raise ValueError(f"{name} must be a number or a list of numbers; got a {type(values).__name__}")
    if getattr(values, "ndim", None) == 0:  # a numpy scalar or 0-d array is one number
        return [values[()]], True
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        return [values], True
    values = list(values)
    if not values:
        raise ValueError(f"{name} must be a number or a non-empty list of numbers; got an empty list")
    return values, False


def as_best_effort(best_effort) -> bool:
    """``best_effort`` checked: True or False, nothing else (a string such as "no" would read as true)."""
    if not isinstance(best_effort, bool):
        raise ValueError(f"best_effort must be True or False; got {best_effort!r}")
    return best_effort


def _kept(points: list, best_effort: bool, explain) -> list:
    """The rule of every front-door result (the same in the CLI): a bound that misses the tolerance asked is an
    ``ArithmeticError`` naming the point, the bound reached and why (its ``shortfall``), unless ``best_effort``;
    then the point is returned with ``meets_tolerance`` False."""
    if not best_effort:
        for p in points:
            if not p.meets_tolerance:
                raise ArithmeticError(explain(p))
    return points


def delta(composition, epsilon, *, rel_tol: float = 1e-6, sensitivities=None,
          best_effort: bool = False) -> DeltaPoint | list[DeltaPoint]:
    """The exact δ(ε) of ``composition`` at ``epsilon`` (a number or a list, each in [0, 5000], a nonzero ε at
    least 1e-1000 and written with at most 1000 digits: the range of every number read,
    :func:`~accountlib.infrastructure.numbers.as_fraction`), each with
    ``error_bound ≤ rel_tol·δ`` (sieve paper §3.2, Prop. 3.3: δ(ε) = P(S > ε/ρ' − 1) − e^ε P(S > ε/ρ' + 1); δ(0) is the
    total variation distance).

    The tolerance is met or the call says so: a δ whose certified bound misses ``rel_tol`` (the float64 floor of
    the tilted contour, the smoothed engine's node cap, a δ below what the engine resolves) raises a one-line
    ``ArithmeticError``; with ``best_effort=True`` the narrowest certified bound found is returned instead, with
    ``meets_tolerance`` False and its ``shortfall`` named (:data:`accountlib.theory.composition.SHORTFALLS`). The
    CLI follows the same rule (exit 2, or ``--best-effort``). On the smoothed engine each ε has a work budget of its
    own, 5 to 8 s of one core (:meth:`~accountlib.theory.composition.Composition.delta_each`): a δ it stops is flagged
    ``node cap``, with the narrowest bound within it.

    >>> point = delta(["1/2", "1/3"], 1, rel_tol=1e-9)
    >>> point.error_bound <= 1e-9 * point.delta
    True
    >>> at_1, at_2 = delta(["1/2", "1/3"], [1, 2])     # a list of ε gives a list: δ falls as ε grows
    >>> at_2.delta + at_2.error_bound < at_1.delta - at_1.error_bound
    True
    """
    best_effort = as_best_effort(best_effort)
    if accounts_itself(composition, sensitivities):  # a DP-SGD run: its own certified δ(ε), add/remove-one
        return composition.delta(epsilon, rel_tol=rel_tol, best_effort=best_effort)
    pair = as_composition(composition, sensitivities)
    points, single = as_points(epsilon, "epsilon")
    rel_tol = as_rel_tol(rel_tol)
    found, meters = pair.delta_each(points, rel_tol=rel_tol, best_effort=best_effort, name="epsilon")
    result = _kept(found, best_effort, lambda p: (
        f"rel_tol: could not certify {rel_tol:g} at epsilon = {mpmath.nstr(p.epsilon, 10)} ({p.shortfall}): the "
        f"bound certified when the engine stopped is {bound_text(p.error_bound)} on delta = {mpmath.nstr(p.delta, 6)}"
        f"{starved_note(meters[next(i for i, q in enumerate(found) if q is p)])}; "
        "loosen rel_tol, or pass best_effort=True for the flagged result (the narrowest bound the engine reaches)"))
    return result[0] if single else result


def tradeoff(composition, alpha, *, abs_tol: float | None = None, sensitivities=None,
             best_effort: bool = False) -> TradeoffPoint | list[TradeoffPoint]:
    """β = f(α) of ``composition`` at ``alpha`` in [0, 1] (a number or a list; a nonzero α at least 1e-1000,
    written with at most 1000 digits), each with
    ``error_bound ≤ abs_tol``: the smallest type II error of a test of type I error α between the two
    distributions (unifying paper §2; the exact trade-off function, not read off a grid). ``abs_tol`` defaults to
    1e-12 (1e-9 for a DP-SGD run, whose float64 evaluation certifies about that). A bound that misses ``abs_tol``
    raises a one-line ``ArithmeticError`` unless ``best_effort=True`` (then it is returned flagged): the rule of
    :func:`delta`.

    >>> point = tradeoff(["1/2"], "0.05", abs_tol=1e-15)
    >>> 0 < point.beta < 0.95 and point.error_bound <= 1e-15
    True
    """
    as_best_effort(best_effort)
    if accounts_itself(composition, sensitivities):
        return composition.tradeoff(alpha, abs_tol=1e-9 if abs_tol is None else abs_tol, best_effort=best_effort)
    pair = as_composition(composition, sensitivities)
    points, single = as_points(alpha, "alpha")
    abs_tol = as_abs_tol(1e-12 if abs_tol is None else abs_tol)
    result = _kept(pair.tradeoff(points, abs_tol=abs_tol, best_effort=best_effort, name="alpha"), best_effort, lambda p: (
        f"abs_tol: could not certify {abs_tol:g} at alpha = {mpmath.nstr(p.alpha, 10)} ({p.shortfall}): the "
        f"bound certified is {bound_text(p.error_bound)}; loosen abs_tol, or pass best_effort=True for the flagged "
        "result"))
    return result[0] if single else result


@dataclass(frozen=True)
class EpsilonInterval:
    """The composition is (``upper``, δ)-DP (δ(upper) ≤ δ certified) and not (``lower``, δ)-DP (δ(lower) > δ
    certified); ``upper`` − ``lower`` ≤ the tolerance asked. ``lower`` = 0 with ``at_lower`` None when δ(ε) ≤ δ
    for every ε > 0 tried down to ``upper``. ``meets_tolerance`` says whether the width is at most the tolerance
    asked; when not (a result asked for with ``best_effort=True``), ``shortfall`` names why: "precision" (the engine's
    bounds cannot decide δ(ε) against δ closer) or "node cap" (a DP-SGD run whose inversion is out of reach, or the
    smoothed engine's work budget for the call, :data:`MAX_SMOOTHED_EPSILON_WORK`, spent).

    >>> e = epsilon(["1/2"], "1e-5", abs_tol=1e-6)
    >>> float(e.lower) < float(e.upper) <= float(e.lower) + 1e-6, e.meets_tolerance, e.shortfall
    (True, True, None)
    """

    delta: Fraction
    lower: Fraction
    upper: Fraction
    at_lower: DeltaPoint | None
    at_upper: DeltaPoint
    meets_tolerance: bool = True
    shortfall: str | None = None

    @property
    def width(self) -> Fraction:
        """upper − lower (exact): at most the tolerance asked."""
        return self.upper - self.lower


SMOOTHED_EPSILON_OVERRUN = 4
"""How many node caps (:data:`accountlib.engine.smoothed.MAX_SMOOTHED_NODES`) one δ(ε) at relative accuracy
``abs_tol`` may be estimated to need before :func:`epsilon` refuses a smoothed composition (the decisive δ near the
answer needs a relative accuracy of about abs_tol·|d log δ/dε|/2, so the estimate at abs_tol errs high)."""


def check_smoothed_epsilon_cost(pair, delta, near, abs_tol: float) -> None:
    """Refuse, in one line naming ``abs_tol``, an ε interval the smoothed engine could only narrow past its node
    cap: an interval of width abs_tol is decided by δ(ε) to a relative accuracy of about abs_tol there, and the
    contour nodes that needs (:meth:`accountlib.engine.front.SmoothedTails.planned_nodes`, at the zCDP ε ``near``)
    beyond :data:`SMOOTHED_EPSILON_OVERRUN` caps would leave bisection steps undecided after a node cap's work each."""
    cap = pair.smoothed.engine.max_nodes
    planned = pair.smoothed.planned_nodes(near, rel_tol=max(abs_tol, SMALLEST_REL_TOL))
    if planned > SMOOTHED_EPSILON_OVERRUN * cap:
        raise ResourceLimitError(
            f"abs_tol: an epsilon interval {abs_tol:g} wide for delta = {float(delta):g} needs delta(epsilon) to a "
            f"relative accuracy of about {abs_tol:g}, about {planned:,} contour nodes of the smoothed engine per "
            f"value (its cap is {cap:,}, ACCOUNTLIB_MAX_SMOOTHED_NODES); loosen abs_tol (the cost grows as "
            "1/sqrt(abs_tol))")


def check_lattice_epsilon_cost(pair, delta, near, abs_tol: float) -> None:
    """Refuse, in one line naming ``abs_tol``, an ε interval whose bisection would build one tilted contour per step
    past the lattice's budget: where the untilted engine is refused at its first Δ before its sieve
    (:func:`accountlib.engine.tails.refuse_before_sieve`), every δ(ε) goes to a tilted contour of its own
    (:meth:`accountlib.engine.front.CertifiedTails.relative_combined`), about
    :func:`accountlib.engine.tilted.planned_nodes` nodes at ε = ``near`` each, and the bisection makes at least
    log2(``near``/abs_tol) + 1 steps; all together they may keep at most
    :data:`accountlib.engine.front.MAX_TILTED_NODES` nodes (about 8 s, ``ACCOUNTLIB_MAX_TILTED_NODES``). Budgets
    13/17, 7/1000003 and 0.2 at δ = 1e-20 (lattice engine): 5.2e6 nodes per step, 9 CPU s and 1.25 GB each, past
    40 CPU s and 3.2 GB before."""
    if pair.smoothed is not None or pair.paths.method != "sieve":
        return
    from ..engine.front import MAX_TILTED_NODES, START_ACCURACY
    from ..engine.lattice import threshold_index
    from ..engine.reach import smoothed_advice
    from ..engine.tails import refuse_before_sieve
    from ..engine.tilted import planned_nodes

    lattice = pair.lattice
    try:
        refuse_before_sieve(lattice, START_ACCURACY, pair.tails.max_node_bits)
        return  # the untilted engines serve every step, one engine reused across ε
    except ResourceLimitError:
        pass
    first = threshold_index(Fraction(near) / pair.rho - 1, lattice.scale)  # P(S > ε/ρ − 1), δ's first tail
    if not pair.tails.is_deep(first):
        return  # refused at once by the front door, naming rel_tol
    nodes = planned_nodes(lattice, first, 1e-12)
    steps = max(1, math.ceil(math.log2(max(float(near) / abs_tol, 1)))) + 1
    limit = resource_limit("ACCOUNTLIB_MAX_TILTED_NODES", MAX_TILTED_NODES)
    if nodes * steps <= limit:
        return
    affordable = int(limit // nodes)  # steps within the budget: log2(near/abs_tol) + 1 ≤ affordable
    wider = float(near) / 2 ** (affordable - 1) if affordable >= 2 else math.inf
    if wider <= 0.25:  # rounded up to two digits, an accepted width (≤ 0.5)
        scale = 10 ** (math.floor(math.log10(wider)) - 1)
        wider = math.ceil(wider / scale) * scale
    looser = f"loosen abs_tol to at least {wider:.2g}, " if wider <= 0.5 else ""
    raise ResourceLimitError(
        f"abs_tol: an epsilon interval {abs_tol:g} wide for delta = {float(delta):g} takes at least {steps} bisection "
        f"steps, each a tilted contour of about {nodes:.2g} nodes on this lattice (its untilted engine is refused: too "
        f"fine), {nodes * steps:.2g} in all, above the {limit:,} nodes one call may keep (ACCOUNTLIB_MAX_TILTED_NODES); "
        f"{looser}use {smoothed_advice(lattice)}budgets with smaller denominators or raise the limit")


MAX_SMOOTHED_EPSILON_WORK = 60_000_000
"""The most work units (:data:`accountlib.engine.work.KEPT_NODE_WEIGHT`: scanned nodes, a node the sieve keeps
counting 1 + 4G, G distinct groups) the smoothed engine may spend for one :func:`epsilon` call, all its δ(ε)
together (a :class:`~accountlib.engine.work.WorkMeter`): 5 to 8 s of one core of the book's two-core machine (8e-8
to 1.35e-7 s per unit, :data:`accountlib.engine.work.MAX_SMOOTHED_CALL_WORK`), so that the answer or the refusal
comes within 10 s (the P.L. 94-171 releases' worst pair of paths needs 3.4e7 units: the sieve drops almost every
node; budget 1 at δ = 1e-5 would spend 1.8e8 for 4e7 nodes scanned; the command line's ``epsilon`` gives each of
its ``--delta`` a budget of its own). Each bisection step gets what is left; where
that stops a δ, the call is refused naming ``abs_tol``, with the interval certified so far (with
``best_effort=True`` that interval is returned, flagged ``node cap``), rather than run the capped passes of one
undecided step after another (budget 1 at δ = 1e-5 to the default 1e-9: 148.6 s; budgets 13/17 and 7/1000003 at δ =
1e-6: five undecided steps of 2.86e7 nodes each, 14 s). Raise it with ``ACCOUNTLIB_MAX_SMOOTHED_EPSILON_WORK``."""


def epsilon_meter(pair) -> WorkMeter | None:
    """The work budget of one :func:`epsilon` call on ``pair`` (:data:`MAX_SMOOTHED_EPSILON_WORK`,
    ``ACCOUNTLIB_MAX_SMOOTHED_EPSILON_WORK``); None off the smoothed engine."""
    if pair.smoothed is None:
        return None
    return WorkMeter(resource_limit("ACCOUNTLIB_MAX_SMOOTHED_EPSILON_WORK", MAX_SMOOTHED_EPSILON_WORK))


class _SpentMeter(Exception):
    """Raised inside :func:`epsilon` when the work meter stopped a δ and the caller asked for best effort."""


def _decimal(value: Fraction, rounding: str) -> str:
    """``value`` to 10 significant digits, rounded in the direction ``rounding`` (a decimal module constant): an
    interval's ends shown outwards."""
    with localcontext() as context:
        context.prec, context.rounding = 10, rounding
        return str(+(Decimal(value.numerator) / Decimal(value.denominator)))


def epsilon(composition, delta, *, abs_tol=1e-9, rel_tol: float = 1e-6, sensitivities=None,
            best_effort: bool = False) -> EpsilonInterval:
    """The certified ε for a target δ: an interval [lower, upper] of width ≤ ``abs_tol`` (in [1e-30, 0.5]:
    :func:`~accountlib.theory.targets.as_epsilon_width`, a narrower interval needs δ finer than the finest
    relative accuracy, 1e-30; refused at once; ``rel_tol`` in [1e-30, 0.5]). For a DP-SGD run ``abs_tol`` is in
    [1e-12, 0.5] and ``rel_tol`` is checked but not used: the run chooses the accuracy of each δ its inversion needs.

    The tolerance is met or the call says so, the rule of :func:`delta`: an interval the certified bounds cannot
    narrow to ``abs_tol`` raises a one-line ``ArithmeticError``; with ``best_effort=True`` the narrowest interval
    certified is returned instead, with ``meets_tolerance`` False and its ``shortfall`` named.

    ``composition`` is a :class:`~accountlib.theory.composition.Composition` or a list of budgets ρ_i (with optional
    ``sensitivities``). δ(ε) is decreasing in ε; the interval is found by bisection on exact rationals, each
    step decided by a certified δ(ε) (``rel_tol`` is the starting relative accuracy of each δ, tightened where a
    bound cannot decide). Report ``upper``: the composition is (upper, δ)-DP, erring towards less privacy.

    Time: a bisection of about log2(ε/abs_tol) steps, each a certified δ within its engine's limits (the limits
    table of the book's "Running the book yourself"); for the smoothed engine a cost estimate refuses before the
    bisection (:func:`check_smoothed_epsilon_cost`), and all the steps together spend at most
    :data:`MAX_SMOOTHED_EPSILON_WORK` work units (5 to 8 s of one core), else the call is refused naming
    ``abs_tol``, with the interval certified so far (with ``best_effort=True`` that interval is returned, flagged
    ``node cap``; refused still where no ε was certified to hold yet). Each call has a budget of its own
    (:func:`accountlib.theory.accounting.epsilon_meter`), as has each ``--delta`` of the command line's ``epsilon``.

    >>> from fractions import Fraction
    >>> e = epsilon(["1/2", "1/3"], Fraction(1, 10**6), abs_tol=1e-6)
    >>> e.width <= Fraction(1, 10**6) and e.at_upper.delta + e.at_upper.error_bound <= 1e-6
    True
    """
    as_best_effort(best_effort)
    if accounts_itself(composition, sensitivities):  # a DP-SGD run: its own certified interval, add/remove-one
        as_rel_tol(rel_tol)  # refused as everywhere (nan, 0, 1), though the run sets each δ's accuracy itself
        return composition.epsilon(delta, abs_tol=abs_tol, best_effort=best_effort)
    pair = as_composition(composition, sensitivities)
    delta = as_target_delta(delta, "delta")
    tol = Fraction(as_epsilon_width(abs_tol))
    rel_tol = as_rel_tol(rel_tol)
    level = ApproximateDP(1, delta).levels()[0]
    meter = epsilon_meter(pair)
    known = [Fraction(0), None]  # the largest ε certified to fail and the smallest certified to hold so far
    points = [None, None]  # their certified δ

    def status(eps: Fraction) -> tuple[str, DeltaPoint]:
        (c,) = check_levels(pair, [Level(eps, level.allowed, level.witness)], rel_tol, meter=meter)
        if c.status == FAILS and eps >= known[0]:
            known[0], points[0] = eps, c.point
        elif c.status == HOLDS and (known[1] is None or eps <= known[1]):
            known[1], points[1] = eps, c.point
        if meter is not None and meter.exhausted and best_effort and known[1] is not None:
            raise _SpentMeter
        if meter is not None and meter.exhausted:
            reached = (f"the interval certified so far is [{_decimal(known[0], ROUND_FLOOR)}, "
                       f"{_decimal(known[1], ROUND_CEILING)}]" if known[1] is not None
                       else "no epsilon was certified to hold yet")
            flagged = ", pass best_effort=True for that interval, flagged," if known[1] is not None else ""
            raise ResourceLimitError(
                f"abs_tol: an epsilon interval {float(tol):g} wide for delta = {float(delta):g} needs more than the "
                f"{meter.limit:,} work units of the smoothed engine each delta may spend "
                f"(ACCOUNTLIB_MAX_SMOOTHED_EPSILON_WORK; {meter.spent:,} spent when a contour pass was stopped); "
                f"{reached}; loosen abs_tol{flagged} or raise the limit")
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

    def search() -> EpsilonInterval:
        """The bisection, from an upper end certified to hold down to an interval ``abs_tol`` wide."""
        # an upper end: the zCDP conversion of the pair's ρ holds for every composition here; doubled until certified
        upper = min(MAX_EPSILON, Fraction(math.ceil(float(pair.rho) + 2 * math.sqrt(float(pair.rho) * -math.log(float(delta)))) + 1))
        if pair.smoothed is not None:  # the cost estimate, before any fine contour sum
            check_smoothed_epsilon_cost(pair, delta, upper, float(tol))
        check_lattice_epsilon_cost(pair, delta, upper, float(tol))  # the lattice's, where its contours dominate
        state, at_upper = status(upper)
        while state != "holds":
            if upper >= MAX_EPSILON:
                raise ArithmeticError(f"could not certify δ(ε) ≤ {float(delta):g} for any ε up to {MAX_EPSILON} (the largest "
                                      "ε supported); the engine's bounds are too wide there for these budgets (a budget "
                                      "rho_i ≫ 1 leaves almost no noise)")
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
        def undecided(low: Fraction, high: Fraction, mid: Fraction):
            """δ(mid) is within the finest bound of δ, or the bound is too wide to decide: a decided point on each side
            of mid moves that end (only certified points ever move the ends); none on either side stops the search."""
            above, below = decided_towards(mid, high, HOLDS), decided_towards(mid, low, FAILS)
            if not (above or below):
                return None
            return below or (low, None), above or (high, None)

        (lower, at_lower), (upper, at_upper) = certified_bisect(
            status, (lower, at_lower), (upper, at_upper), midpoint=arithmetic, until=lambda lo, hi: not hi - lo > tol,
            undecided=undecided)
        if upper - lower > tol:
            starved = meter is not None and meter.starved  # the δ inside were held coarser by the work budget
            if best_effort:
                return EpsilonInterval(delta, lower, upper, at_lower, at_upper, meets_tolerance=False,
                                       shortfall="node cap" if starved else "precision")
            why = (f"the work budget left to the δ(ε) inside it ({meter.limit:,} units, ACCOUNTLIB_MAX_SMOOTHED_EPSILON_WORK"
                   f"), held them too coarse to decide against δ; loosen abs_tol, raise the limit" if starved
                   else "inside it the engine's bounds cannot decide δ(ε) against δ for these budgets; loosen abs_tol")
            raise ArithmeticError(f"the certified ε for δ = {float(delta):g} lies in [{_decimal(lower, ROUND_FLOOR)}, {_decimal(upper, ROUND_CEILING)}], "
                                  f"wider than abs_tol = {float(tol):g}: {why}, or pass best_effort=True for that "
                                  "interval, flagged")
        return EpsilonInterval(delta, lower, upper, at_lower, at_upper)

    try:
        return search()
    except _SpentMeter:  # best effort: the interval certified when the work meter stopped a δ, flagged
        return EpsilonInterval(delta, known[0], known[1], points[0], points[1], meets_tolerance=False, shortfall="node cap")
