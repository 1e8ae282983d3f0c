"""The two questions asked of one composition at a point: δ at an ε, and β = f(α) at an α.

These are the front door's :func:`accountlib.delta` and :func:`accountlib.tradeoff`; the third question, the ε
for a δ, is :func:`accountlib.theory.calibration.epsilon`. Each takes the composition as a
:class:`~accountlib.theory.profiles.ShiftPair` or as its budgets ρ_i (with optional sensitivities), and one point
or a list of points: one point gives one result, a list gives a list. The numbers are the composition's exact
privacy profile and trade-off function (sieve paper §3.2, Props. 3.3 and 3.4; unifying paper §2), each with a rigorous error
bound.
"""

from __future__ import annotations

from collections.abc import Mapping

from .profiles import DeltaPoint, ShiftPair, TradeoffPoint


def as_composition(composition, sensitivities=None) -> ShiftPair:
    """``composition`` as a :class:`~accountlib.theory.profiles.ShiftPair`: one already built (then
    ``sensitivities`` must be None: they belong to it), or the budgets ρ_i to build it from."""
    if isinstance(composition, ShiftPair):
        if sensitivities is not None:
            raise ValueError("sensitivities: give them to ShiftPair, not here, when composition is a ShiftPair")
        return composition
    if isinstance(composition, Mapping) or getattr(composition, "ndim", None) == 0:
        raise ValueError(f"composition must be a ShiftPair or a list of budgets; got {type(composition).__name__} "
                         f"{composition!r}")
    return ShiftPair(composition, sensitivities=sensitivities)


def _points(values, name: str) -> tuple[list, bool]:
    """(the points as a list, whether one point was given)."""
    if isinstance(values, Mapping):
        raise ValueError(f"{name} must be a number or a list of numbers; got a {type(values).__name__}")
    if getattr(values, "ndim", None) == 0:  # a numpy 0-d array is one number
        return [values.item()], True
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        return [values], True
    values = list(values)
    if not values:
        raise ValueError(f"{name} must be a number or a non-empty list of numbers; got an empty list")
    return values, False


def delta(composition, epsilon, *, rel_tol: float = 1e-6, sensitivities=None) -> DeltaPoint | list[DeltaPoint]:
    """The exact δ(ε) of ``composition`` at ``epsilon`` (a number or a list), each with
    ``error_bound ≤ rel_tol·δ`` (sieve paper §3.2, Prop. 3.3: δ(ε) = P(S > ε/ρ' − 1) − e^ε P(S > ε/ρ' + 1)).

    >>> point = delta(["1/2", "1/3"], 1, rel_tol=1e-9)
    >>> point.error_bound <= 1e-9 * point.delta
    True
    >>> at_1, at_2 = delta(["1/2", "1/3"], [1, 2])     # a list of ε gives a list: δ falls as ε grows
    >>> at_2.delta + at_2.error_bound < at_1.delta - at_1.error_bound
    True
    """
    pair = as_composition(composition, sensitivities)
    points, single = _points(epsilon, "epsilon")
    result = pair.delta(points, rel_tol=rel_tol)
    return result[0] if single else result


def tradeoff(composition, alpha, *, abs_tol: float = 1e-12, sensitivities=None) -> TradeoffPoint | list[TradeoffPoint]:
    """β = f(α) of ``composition`` at ``alpha`` in [0, 1] (a number or a list), each with
    ``error_bound ≤ abs_tol``: the smallest type II error of a test of type I error α between the two
    distributions (unifying paper §2; the exact trade-off function, not read off a grid).

    >>> point = tradeoff(["1/2"], "0.05", abs_tol=1e-15)
    >>> 0 < point.beta < 0.95 and point.error_bound <= 1e-15
    True
    """
    pair = as_composition(composition, sensitivities)
    points, single = _points(alpha, "alpha")
    result = pair.tradeoff(points, abs_tol=abs_tol)
    return result[0] if single else result
