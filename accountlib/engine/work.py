"""What the smoothed engine's work costs, and how much of it one public call may spend.

Engine layer of :mod:`accountlib`, beside the front door (:mod:`accountlib.engine.front`), whose
:class:`~accountlib.engine.front.SmoothedTails` prices each contour pass before its sum (:func:`cost_per_node`) and
counts what it cost (:func:`work_units`); a :class:`WorkMeter` carries what one call made of many δ(ε) — a bisection
for ε (:func:`accountlib.theory.accounting.epsilon`), a check's levels and rounds
(:func:`accountlib.theory.decision.check`), one ε of a list (:func:`accountlib.theory.accounting.delta`) — may still
spend, so that the answer, flagged or refused, comes in bounded time (issue of bounded time: refusals before the
work). Sieve paper §4.3 (the sieve: a node it drops is only bounded, a node it keeps is evaluated).
"""

from __future__ import annotations

from ..infrastructure.numbers import resource_limit


KEPT_NODE_WEIGHT = 4
"""What one contour node the sieve keeps (its summand evaluated, a factor per distinct group) costs per distinct
group, in nodes it only bounds and drops: the work of a smoothed pass of G distinct groups is
``scanned + (1 + KEPT_NODE_WEIGHT·G)·kept`` units (:func:`work_units`), about 8e-8 s of one core each on the book's
two-core machine. Measured (user CPU s of the pass, load 1 to 3): the P.L. 94-171 worst pair of paths, 2.86e7
scanned, 29 kept, 2.3 s (7.9e-8 s per scanned node); budget 1 at ε = 10, 1.38e7 scanned and 9.8e6 kept in 4.6 s,
2.02e7 and 1.43e7 in 5.9 s (a kept node 3.0 to 3.6e-7 s); budgets 2.5 and 0.05 at ε = 4 and 6, 6.8e6 to 3.6e6 kept
at 5.6 to 7.6e-7 s each; budgets 0.5, 0.3 and 0.05 at ε = 3, 1.9e6 and 2.0e6 kept at 1.0 to 1.2e-6 s each.
Counting scanned nodes alone priced budget 1 four times, three budgets ten times too low against the paths."""

MAX_SMOOTHED_CALL_WORK = 60_000_000
"""The most work units (:data:`KEPT_NODE_WEIGHT`) the smoothed engine may spend on one value a public call asks
for: 5 to 8 s of one core at 8e-8 to 1.35e-7 s per unit (the machine idle or loaded by the other processes beside
it), so that each answer, flagged or refused, comes within about 10 s. Each ε of a call of a list of ε
(:func:`accountlib.theory.accounting.delta`, the command line's ``delta`` over its ``--eps``) gets a budget of its
own, so that its answer does not depend on the other ε of the call; :func:`accountlib.theory.decision.check` (all
its levels, tightening rounds and a μ-GDP target's ε grid) and :func:`accountlib.theory.calibration.calibrate` (all
its multipliers) get one for the whole call. Raise it with ``ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK``."""


SHARE_GROWTH = 1.6
"""A pass is priced as if its sieve kept this many times the share of nodes the previous pass of the same δ kept
(at most all): a finer pass keeps a larger share (budget 1: 0.618, then 0.710, then 0.814 of the nodes kept;
budgets 2.5 and 0.05: 0.160, then 0.237). Where the share grows by more, a meter passes its limit by that
difference (measured: at most 0.03%), never by a pass's worth."""


def work_units(scanned, kept, groups: int = 1) -> int:
    """The cost of contour passes, of ``groups`` distinct groups, that ``scanned`` nodes and evaluated ``kept`` of
    them (:data:`KEPT_NODE_WEIGHT`)."""
    return int(scanned) + (1 + KEPT_NODE_WEIGHT * int(groups)) * int(kept)


def cost_per_node(terms, groups: int) -> float:
    """The price, in work units per scanned node, of the pass after one (its ``terms``) of ``groups`` distinct
    groups: a finer pass of the same δ, whose sieve keeps up to :data:`SHARE_GROWTH` times the share of nodes."""
    share = min(1.0, SHARE_GROWTH * int(terms["nodes"]) / max(int(terms["scanned"]), 1))
    return 1.0 + (1 + KEPT_NODE_WEIGHT * int(groups)) * share


class WorkMeter:
    """The work units (:data:`KEPT_NODE_WEIGHT`) one call made of many δ(ε) (a bisection for ε, a check's levels and
    rounds, a list of ε) may still have the smoothed engine spend: each δ gets what is left as its ``cost_limit``
    (:meth:`accountlib.engine.front.SmoothedTails.delta`) and adds what it cost; ``exhausted`` turns True when a δ was stopped by what was
    left (not by its own budget), after which the caller refuses, or flags, rather than start more work;
    ``needed``: the units the pass not started would have cost, at least (for the message); ``counted``: the δ
    counted so far, and ``stopped_at`` the index among them of the first one the meter stopped (None before any):
    that δ and every later one of the call got less than they asked (for the message); ``starved``: a δ's capped
    finest pass was held coarser by what was left (not stopped: the δ may still have decided what it was for);
    ``price``: the work units per node of the last pass counted (``terms["price"]``), the next δ's first price.

    >>> meter = WorkMeter(1000); meter.add(400, stopped=False); meter.left, meter.exhausted
    (600, False)
    >>> meter.add(600, stopped=True, needed=900); meter.stopped_at, meter.counted
    (1, 2)
    """

    def __init__(self, limit: int):
        self.limit = int(limit)
        self.spent = 0
        self.exhausted = False
        self.needed = 0
        self.counted = 0
        self.stopped_at: int | None = None
        self.starved = False
        self.price: float | None = None

    @property
    def left(self) -> int:
        """The work units still allowed (never negative)."""
        return max(self.limit - self.spent, 0)

    def add(self, units: int, *, stopped: bool, needed: int = 0, starved: bool = False) -> None:
        """Count the ``units`` one δ cost; ``stopped``: a pass of that δ, costing at least ``needed`` units, was not
        started for want of what was left; ``starved``: its capped pass was held coarser by what was left."""
        self.starved = self.starved or bool(starved)
        self.spent += int(units)
        if stopped and not self.exhausted:
            self.needed, self.stopped_at = int(needed), self.counted
        self.counted += 1
        self.exhausted = self.exhausted or bool(stopped)


def call_meter() -> WorkMeter:
    """A fresh budget of :data:`accountlib.engine.work.MAX_SMOOTHED_CALL_WORK` work units
    (``ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK``) for one value of a public call of many δ(ε), or one check or calibration
    (:meth:`accountlib.theory.composition.Composition.delta_each`, :func:`accountlib.theory.decision.smoothed_call_meter`)."""
    return WorkMeter(resource_limit("ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK", MAX_SMOOTHED_CALL_WORK))


def starved_note(meter: WorkMeter | None) -> str:
    """What the refusal of a δ adds where ``meter``, the budget of its value
    (:func:`accountlib.engine.work.call_meter`), stopped it or held its finest pass coarser (``starved``): that budget
    and its variable; "" where the δ got all it asked for.

    >>> meter = WorkMeter(10); meter.add(10, stopped=True, needed=5); starved_note(meter)[:57]
    '; its budget of 10 work units of the smoothed engine (ACC'
    >>> starved_note(WorkMeter(10))
    ''
    """
    if meter is None or (meter.stopped_at is None and not meter.starved):
        return ""
    what = "stopped it" if meter.stopped_at is not None else "held its finest pass coarser"
    return (f"; its budget of {meter.limit:,} work units of the smoothed engine (ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK, "
            f"one such budget per value asked) {what}: raise that limit")
