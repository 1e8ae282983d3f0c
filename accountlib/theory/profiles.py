"""Former home of the composition (deprecated): its names, re-exported from where they now live.

The composition is :class:`accountlib.theory.composition.Composition` (``ShiftPair`` is its former name); the
curve tools :func:`~accountlib.theory.tradeoff_duality.delta_from_tradeoff` and
:func:`~accountlib.theory.tradeoff_duality.lower_convex_envelope` are in :mod:`accountlib.theory.tradeoff_duality`.
Kept so that code written against ``accountlib.theory.profiles`` keeps working; new code imports from those modules.
"""

from .composition import (BUDGET_RANGE, ENGINES, MAX_EPSILON, MAX_SENSITIVITY,
                          SMOOTHED_RHO_FROM, SMOOTHED_RHO_UP_TO, SMOOTHED_TRADEOFF_DELTA_SHARE, Composition, DeltaPoint,
                          ShiftPair, TradeoffPoint, as_composition, check_budget)
from .engine_choice import LATTICE_NODES_UP_TO, LATTICE_UP_TO
from .tradeoff_duality import delta_from_tradeoff, lower_convex_envelope

__all__ = ["Composition", "ShiftPair", "DeltaPoint", "TradeoffPoint", "as_composition", "check_budget", "MAX_EPSILON",
           "BUDGET_RANGE", "MAX_SENSITIVITY", "ENGINES", "LATTICE_UP_TO", "LATTICE_NODES_UP_TO", "SMOOTHED_RHO_FROM",
           "SMOOTHED_RHO_UP_TO", "SMOOTHED_TRADEOFF_DELTA_SHARE", "delta_from_tradeoff", "lower_convex_envelope"]
