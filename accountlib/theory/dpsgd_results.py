"""The results of DP-SGD accounting: δ(ε), ε(δ), f(α) and a calibrated noise multiplier, each stating its relation.

Theory layer of :mod:`accountlib`. The library's result types (:class:`~accountlib.theory.composition.DeltaPoint`,
:class:`~accountlib.theory.accounting.EpsilonInterval`, :class:`~accountlib.theory.composition.TradeoffPoint`)
extended with the neighbouring relation every DP-SGD number is stated for (:data:`RELATION`) and which direction
decided it; computed by :class:`accountlib.theory.dpsgd_accounting.DPSGDComposition`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from .accounting import EpsilonInterval
from .composition import DeltaPoint, TradeoffPoint
from .decision import LevelCheck

__all__ = ["RELATION", "DPSGDDeltaPoint", "DPSGDEpsilonInterval", "DPSGDTradeoffPoint", "DPSGDCalibration",
           "EpsilonOutOfRange"]

RELATION = "add or remove one example (the worse of the two directions)"
"""The neighbouring relation every DP-SGD result here is stated for."""


class EpsilonOutOfRange(ValueError):
    """ε(δ) of a DP-SGD run is not certified at or below the largest ε accounted
    (:data:`~accountlib.theory.dpsgd_arguments.MAX_DPSGD_EPSILON`): raised in one line by
    :meth:`~accountlib.theory.dpsgd_accounting.DPSGDComposition.epsilon`; the dp_accounting drop-in answers ε = inf
    for it (dp_accounting's value when no finite ε is found, a valid upper bound)."""


@dataclass(frozen=True)
class DPSGDDeltaPoint(DeltaPoint):
    """δ(ε) of a DP-SGD run: the true δ lies within ``error_bound`` of ``delta``, for the relation ``relation``.
    ``dominant`` names the direction whose δ is the larger ("remove", "add", or "both" when their intervals
    overlap); ``remove`` and ``add`` are the two directions' certified intervals (lower, upper).

    >>> from accountlib.theory.dpsgd_accounting import DPSGDComposition
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
    the grid meets the targets. ``schedule`` gives each group's (q, z, steps) at the answer; ``below`` the checks
    one grid step below (empty where that lies below the search floor 0.05, never evaluated), and
    ``why_not_proven`` says in one line why no failure is certified there."""

    noise_multiplier: Fraction
    step: Fraction
    schedule: tuple
    targets: tuple
    checks: tuple
    failure: LevelCheck | None
    evaluations: int
    relation: str = RELATION

    below: tuple = ()

    @property
    def proven_smallest(self) -> bool:
        """Whether a certified failure one grid step below proves the answer the smallest on the grid."""
        return self.failure is not None

    @property
    def why_not_proven(self) -> str | None:
        """None where :attr:`proven_smallest`; else why not, in one line: the grid point below lies under the search
        floor, or each target there is undecided, its certified δ interval straddling the allowed δ (the bounds in
        reach, within the node cap, are not tight enough to decide it), so the true smallest may lie below."""
        if self.failure is not None:
            return None
        z_below = float(self.noise_multiplier - self.step)
        if not self.below:
            return ("the grid point one step below lies under the search floor 0.05 (never evaluated): every "
                    "accepted noise multiplier meets the targets")
        parts = []
        for check in self.below:
            if check.status == "undecided":
                low, high = check.point.delta - check.point.error_bound, check.point.delta + check.point.error_bound
                parts.append(f"δ({float(check.level.epsilon):g}) lies in [{_outward(low, False)}, "
                             f"{_outward(high, True)}], which straddles the allowed {float(check.level.allowed):g}")
        return (f"one grid step below, at z = {z_below:.6g}, no target certainly fails: " + "; ".join(parts) +
                " (the bounds in reach there, within the node cap, do not decide it: the smallest multiplier that "
                "meets the targets may lie below, but is not certified)")


def _outward(value, up: bool) -> str:
    """A bound of a certified interval shown to four significant digits, rounded outwards (down for a lower end, up
    for an upper one; the 1e-12 margin covers the float conversion)."""
    x = max(float(value), 0.0)
    if x == 0:
        return "0"
    scale = 10.0 ** (math.floor(math.log10(x)) - 3)
    digits = math.ceil(x / scale * (1 + 1e-12)) if up else math.floor(x / scale * (1 - 1e-12))
    return f"{digits * scale:.4g}"
