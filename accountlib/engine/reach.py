"""What a relative request on the lattice engines can reach, estimated before any sieve, and its refusals.

Engine layer of :mod:`accountlib`, beside the front door (:class:`accountlib.engine.front.CertifiedTails`), which
asks it two things for a batch of combined requests (δ = P(S_L ≥ j₁) − e^ε P(S_L ≥ j₂) of
:meth:`accountlib.theory.composition.Composition.delta`): whether every path would refuse the batch after its work
(:func:`refuse_out_of_reach`, before the first sieve: seconds, not gigabytes), and how an untilted engine's refusal is
said in the caller's terms (:func:`untilted_refusal`: ``rel_tol``, and whether loosening it helps). Sieve paper §4
(the untilted engine), the book's chapter "The sieve" (the tilted contour).

The relative accuracy a float64 round of the tilted contour can give a combined value is its tails' rounding floor
(:func:`accountlib.engine.tilted.float64_floor`) times the tails' size relative to the combined value
(:func:`combined_floors`): δ's two tails cancel, so δ's floor is (P₁ + e^ε P₂)/δ times the tails' (budgets 13/17,
7/1000003 and 0.2 at ε = 10: 13 times; the contour's bound was 2.47e-8 of δ where each tail's was 1.8e-9 and 2.0e-9).
"""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import mpmath

from ..infrastructure.numbers import resource_limit
from .results import ResourceLimitError

#: The factor by which the estimated floor of :func:`combined_floors` must exceed ``rel_tol`` before
#: :func:`refuse_out_of_reach` refuses without the work: the estimate is not a bound (3% below the contour's bound
#: on budgets 13/17, 7/1000003 and 0.2 at ε = 10, 7x below it on 13/17 and 7/1000003, and 1.6 to 2.2 times above it
#: on 1/3, 7/1000003 and 0.1 at ε = 3 to 30), so a request within this factor of it runs the contour and is answered,
#: or refused after it with the bound it reached.
FLOOR_ESTIMATE_MARGIN = 2.5

__all__ = ["FLOOR_ESTIMATE_MARGIN", "cause_and_knob", "smoothed_advice", "untilted_refusal", "gaussian_tail_estimate", "combined_floors",
           "refuse_out_of_reach"]


def cause_and_knob(error: ResourceLimitError) -> tuple[str, str]:
    """An engine refusal's cause (its text up to the first "; ", before the advice) and the ``ACCOUNTLIB_*`` variable it
    names ("" if none)."""
    text = str(error)
    knob = re.search(r"ACCOUNTLIB_[A-Z_]+", text)
    return text.split("; ")[0], knob[0] if knob else ""


def smoothed_advice(lattice) -> str:
    """"engine='smoothed', " where every budget of ``lattice`` is in the smoothed engine's range [1e-12, 4] (σ² in
    [1/4, 1e12]), else nothing."""
    from .smoothed import SMALLEST_SMOOTHED_SIGMA2

    inside = all(SMALLEST_SMOOTHED_SIGMA2 <= s2 <= 10**12 for (s2, _), _ in lattice.groups)
    return "engine='smoothed', " if inside else ""


def untilted_refusal(lattice, error: ResourceLimitError, accuracy: float, start: float, rel_tol: float,
                     reached: float | None = None) -> str:
    """An untilted engine's refusal (its cause, up to its first "; ") said for a relative request: at the first Δ
    (``start``, the same whatever the tolerance) loosening ``rel_tol`` cannot help the untilted engines, though it
    helps where the tilted contour certified a bound (``reached``, its widest bound relative to δ, which a
    ``rel_tol`` at least that large accepts); at a finer Δ loosening it helps."""
    cause, knob = cause_and_knob(error)
    advice = smoothed_advice(lattice)
    if reached is not None and accuracy >= start:
        scale = 10 ** (math.floor(math.log10(reached)) - 1)
        return (f"{cause}; every δ request on the untilted engines starts at Δ = {start:g} whatever the tolerance, "
                f"and the tilted contour certified these δ to {reached:.2g} of δ, above rel_tol = {rel_tol:g}: "
                f"loosen rel_tol to at least {math.ceil(reached / scale) * scale:.2g}, pass best_effort=True for that "
                f"bound flagged, or use {advice}budgets with smaller denominators{' or raise ' + knob if knob else ''}")
    if accuracy < start:
        return (f"rel_tol = {rel_tol:g} needs Δ = {accuracy:.3g} here (finer than the first engine's {start:g}): "
                f"{cause}; loosen rel_tol{' or raise ' + knob if knob else ''}")
    return (f"{cause}; every δ request starts at Δ = {start:g} whatever the tolerance, so loosening rel_tol = "
            f"{rel_tol:g} cannot help: use {advice}budgets with smaller denominators{' or raise ' + knob if knob else ''}")


def gaussian_tail_estimate(index: int, variance: float) -> mpmath.mpf:
    """An estimate of P(S_L ≥ ``index``) (not a bound): the normal tail of S_L's variance proxy ``variance`` at
    index − 1/2, ½ erfc((index − ½)/√(2V)), at 20 digits (no underflow). S_L's moment generating function is the
    normal one to within e^{−2π²σ²} per term (σ² ≥ 1/2 on the tilted contour), so this gives the size of a deep
    tail; a few coarse terms make S_L lumpy and its tail differ from this by a small factor (1.6 for budgets 13/17,
    7/1000003 and 0.2 at ε = 10), while δ, whose tails cancel, came out within 1%."""
    with mpmath.workdps(20):
        return mpmath.erfc((mpmath.mpf(index) - 0.5) / mpmath.sqrt(2 * mpmath.mpf(variance))) / 2


def combined_floors(lattice, requests, combine, tail_floor: float) -> list[float]:
    """For each request (a tuple of lattice indices), an estimate of the relative error below which no bound of its
    combined value can come when each tail carries the relative error ``tail_floor``: ``combine`` (the front door's,
    e.g. δ = P₁ − e^ε P₂ with bound b₁ + e^ε b₂) applied to :func:`gaussian_tail_estimate` tails whose bounds are
    ``tail_floor`` times them, its bound over its value; ``tail_floor`` itself where the estimate of the value is not
    positive (no estimate of the cancellation)."""
    variance = float(lattice.variance_proxy)
    floors = []
    for i, request in enumerate(requests):
        tails = []
        for j in request:
            value = gaussian_tail_estimate(j, variance)
            tails.append(SimpleNamespace(value=value, error_bound=value * tail_floor, index=j))
        _, value, bound = combine(20, i, tails)
        floors.append(max(float(bound / value), tail_floor) if value > 0 else tail_floor)
    return floors


def refuse_out_of_reach(lattice, max_node_bits: int | None, requests, deep: list[int], combine, rel_tol: float,
                        start: float, j_tol: float, best_effort: bool = False) -> None:
    """Refuse at once (``ResourceLimitError`` naming ``rel_tol``) what every path of the front door
    (:meth:`accountlib.engine.front.CertifiedTails.relative_combined`, before any engine is built) would refuse
    after its work on ``lattice``: the untilted engines are refused at their first Δ = ``start`` before their sieve
    (:func:`accountlib.engine.tails.refuse_before_sieve`) and either a request is not deep (the untilted engines
    must serve it) or the tilted contour is out of reach too, by estimates before its sieve: its float64 sum's
    rounding floor at the first J accuracy ``j_tol`` on some combined value (:func:`combined_floors` of
    :func:`accountlib.engine.tilted.float64_floor` of :func:`~accountlib.engine.tilted.planned_nodes`) above
    ``rel_tol``, and its arb sum beyond :data:`accountlib.engine.tilted.MAX_PRECISE_NODE_TERMS`.

    Budgets 13/17, 7/1000003 and 0.2 at ε = 10 were refused after a float64 round of 4.48e6 nodes (9 s, 1.25 GB) at
    every rel_tol below the 2.47e-8 of δ it reached (its tails' 1.8e-9 and 2.0e-9 times 13, their cancellation in
    δ); estimated here at 2.4e-8. With ``best_effort`` only a request that is not deep is refused here: a deep one
    keeps the contour's bound. The refusal names what may answer instead: the smoothed engine where every budget is
    in its range (it answers that example at 1e-9 in 2 s), a rel_tol above the estimated floor."""
    from .tails import refuse_before_sieve

    try:
        refuse_before_sieve(lattice, start, max_node_bits)
        return
    except ResourceLimitError as error:
        untilted = error
    if len(deep) < len(requests):
        raise ResourceLimitError(untilted_refusal(lattice, untilted, start, start, rel_tol)) from None
    if best_effort:
        return
    from .tilted import MAX_PRECISE_NODE_TERMS, float64_floor, planned_nodes, precise_work

    nodes = planned_nodes(lattice, min(requests[i][0] for i in deep), j_tol)
    tail_floor = float64_floor(nodes)
    work = precise_work(int(nodes), len(lattice.groups), sum(len(requests[i]) for i in deep))
    limit = resource_limit("ACCOUNTLIB_MAX_PRECISE_NODE_TERMS", MAX_PRECISE_NODE_TERMS)
    if work <= limit:  # the arb sum may serve it
        return
    floor = max(combined_floors(lattice, [requests[i] for i in deep], lambda d, k, t: combine(d, deep[k], t),
                                tail_floor))
    if floor <= FLOOR_ESTIMATE_MARGIN * rel_tol:
        return
    cause, knob = cause_and_knob(untilted)
    advice = smoothed_advice(lattice)
    scale = 10 ** (math.floor(math.log10(floor)) - 1)
    where = "the lattice engines' reach" if advice else "every engine's reach"
    raise ResourceLimitError(
        f"rel_tol = {rel_tol:g} is out of {where} here: the tilted contour in float64 would keep about "
        f"{nodes:.2g} nodes, whose rounding alone is about {tail_floor:.2g} of each tail and, as δ's two tails cancel, "
        f"about {floor:.2g} of δ, and its sum in arb about {work:.2g} factors (limit {limit:,}, "
        f"ACCOUNTLIB_MAX_PRECISE_NODE_TERMS); the untilted engines start every δ at Δ = {start:g} whatever the "
        f"tolerance, and there {cause}{' (' + knob + ')' if knob else ''}; "
        + (f"use engine='smoothed' (its own method, for budgets in [1e-12, 4]), " if advice else "")
        + f"loosen rel_tol to above about {math.ceil(floor / scale) * scale:.2g} (an estimate: a contour bound still "
        f"short is named after the work), pass best_effort=True for the contour's bound flagged, use budgets with "
        f"smaller denominators or raise those limits")
