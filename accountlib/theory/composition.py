"""The composition: m discrete Gaussian mechanisms against their shifts, and its exact privacy curves.

Theory layer of :mod:`accountlib`; :class:`Composition` is the library's central object (the front door's
``accountlib.Composition``). Mechanism i releases a count plus N_Z(0, σ_i² = 1/ρ_i), and neighbouring data move
the count by the integer s_i (1 for the 2020 Census; sieve paper §3.2, Prop. 3.3 for δ(ε) and Prop. 3.4 for the trade-off curve; book, Derivations §2). With
ρ = Σρ_i s_i²/2, a_i = ρ_i s_i/ρ and S = Σ a_i X_i, the privacy loss is ρ(1 − S) under the first hypothesis, and

* (ε, δ) curve:  δ(ε) = P(S > ε/ρ − 1) − e^ε·P(S > ε/ρ + 1);
* trade-off curve: the tests "reject when S_L ≥ j" give the vertices
  α_j = P(S_L ≥ j), β_j = P(S_L ≥ 2L + 1 − j) (S_L = L·S, 2L = Σc_i), and
  randomising at the atom S_L = j joins consecutive vertices by a segment of
  slope −exp(ρ(j/L − 1)) (the likelihood ratio there). The result is the exact,
  convex trade-off function f(α).
* zCDP baseline (what the Bureau reports): ε_zCDP(δ) = ρ + 2·sqrt(ρ·log(1/δ)), in
  :func:`accountlib.theory.conversions.zcdp_epsilon`.

A composition keeps its settings — sensitivities, evaluation paths, engine — and :meth:`Composition.rescaled`
multiplies its noise variances without losing them (what every calibration searches over).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING

import mpmath

from ..infrastructure.numbers import (SMALLEST_ABS_TOL, SMALLEST_REL_TOL, ErrorBound, as_abs_tol, as_fraction,  # noqa: F401
                                     as_positive_fraction, as_rel_tol, decimal_string, env_limit, error_bound, resource_limit)
from ..engine import arithmetic
from ..engine.lattice import lattice_of, threshold_index
from ..engine.front import MAX_SMOOTHED_WORK, CertifiedTails, SmoothedTails
from ..engine.results import (DEFAULT_PATHS, MAX_VARIANCE_PROXY, EvaluationPaths, ResourceLimitError,
                              check_distinct_terms, check_lattice_size)
from ..engine.quadrature import lattice_candidates, lattice_nodes
from ..engine.smoothed import SMALLEST_SMOOTHED_SIGMA2
from .engine_choice import (AUTO_NODE_BITS, LATTICE_NODES_UP_TO, LATTICE_UP_TO, LATTICE_WORK_UP_TO, LIFTED,  # noqa: F401
                            SIEVE_CHECK_UP_TO, lattice_affordable, lattice_decision, lattice_work)

if TYPE_CHECKING:
    from ..engine.tails import TailEngine
    from ..engine.tilted import TiltedTailEngine

__all__ = ["Composition", "DeltaPoint", "TradeoffPoint", "SHORTFALLS", "as_composition", "check_budget", "MAX_EPSILON",
           "BUDGET_RANGE", "MAX_SENSITIVITY", "ENGINES", "SMOOTHED_RHO_FROM", "SMOOTHED_RHO_UP_TO",
           "SMOOTHED_TRADEOFF_DELTA_SHARE", "MAX_SMOOTHED_TRADEOFF_NODES"]

# SMALLEST_REL_TOL (1e-30) and SMALLEST_ABS_TOL (1e-60) are re-exported from infrastructure.numbers, their owner
BUDGET_RANGE = (Fraction(1, 10**300), Fraction(10**300))
"""The budgets ρ_i a composition accepts: from 1e-300 to 1e300, so that each noise variance 1/ρ_i and the
engines' float estimates of cost stay normal floats (outside it, ``ValueError`` naming the budget)."""

MAX_EPSILON = 5_000
"""The largest ε :meth:`Composition.delta` accepts. Deep levels are computed on the tilted contour, with δ and
its bound kept as mpf numbers (δ(200) ≈ 1.5e-836, δ(5000) ≈ 2.8e-545925 for pair (1, 2), each in well under a
second); near ε = 10⁴ the float64 phases of the contour can no longer be certified for some census pairs."""


SHORTFALLS = ("node cap", "precision", "underflow")
"""Why a certified bound can miss the tolerance asked (a result's ``shortfall``):

* ``"node cap"`` — the smoothed engine's node cap stopped the smoothing η from shrinking further
  (``ACCOUNTLIB_MAX_NODES``);
* ``"precision"`` — the arithmetic's floor: the tilted contour's float64 sum (relative accuracy about 1e-12 after
  the cancellation in δ = P₁ − e^ε P₂), or the untilted engines' finest Δ = 1e-300;
* ``"underflow"`` — the value is below what the engine resolves at all: only a certified upper bound was reached
  (the result is 0 ± bound, or the smoothed engine's Chernoff bracket)."""


@dataclass(frozen=True)
class DeltaPoint:
    """δ(ε) of a pair: the true δ lies within ``error_bound`` of ``delta``.

    ``meets_tolerance`` says whether ``error_bound ≤ rel_tol·δ`` for the tolerance asked; when not, ``shortfall``
    says why (one of :data:`SHORTFALLS`). The bound is certified either way.

    >>> (p,) = Composition(["1/2"]).delta([1])
    >>> p.epsilon, p.error_bound <= 1e-6 * p.delta, p.meets_tolerance, p.shortfall
    (mpf('1.0'), True, True, None)"""

    epsilon: mpmath.mpf
    delta: mpmath.mpf
    error_bound: ErrorBound  # an mpf: cannot underflow (δ may be far below 1e-308)
    meets_tolerance: bool = True
    shortfall: str | None = None


@dataclass(frozen=True)
class TradeoffPoint:
    """β = f(α): the true β lies within ``error_bound`` of ``beta``.

    ``meets_tolerance`` says whether ``error_bound ≤ abs_tol`` for the tolerance asked; when not, ``shortfall``
    says why (one of :data:`SHORTFALLS`).

    >>> (p,) = Composition(["1/2"]).tradeoff(["0.1"], abs_tol=1e-20)
    >>> 0 < p.beta < 0.9 and p.error_bound <= 1e-20 and p.meets_tolerance
    True"""

    alpha: mpmath.mpf
    beta: mpmath.mpf
    error_bound: ErrorBound
    meets_tolerance: bool = True
    shortfall: str | None = None


def _flag_tradeoff(point: TradeoffPoint, abs_tol: float, why: str) -> TradeoffPoint:
    """``point`` with ``meets_tolerance`` (error_bound ≤ ``abs_tol``) and, when missed, ``shortfall`` = ``why``."""
    if point.error_bound <= abs_tol:
        return point
    return replace(point, meets_tolerance=False, shortfall=why)


def _flag_delta(point: DeltaPoint, rel_tol: float, terms: Mapping | None = None) -> DeltaPoint:
    """``point`` with ``meets_tolerance`` and ``shortfall`` set for ``rel_tol`` (``terms``: the smoothed engine's)."""
    if point.error_bound <= rel_tol * point.delta:
        return replace(point, meets_tolerance=True, shortfall=None)
    terms = terms or {}
    if terms.get("capped"):
        why = "node cap"
    elif terms.get("chernoff_only") or not point.delta > point.error_bound:
        why = "underflow"
    else:
        why = "precision"
    return replace(point, meets_tolerance=False, shortfall=why)


MAX_SENSITIVITY = 10**6

ENGINES = ("auto", "lattice", "smoothed")

SMOOTHED_RHO_FROM = Fraction(1, 10**12)
"""The smallest budget the smoothed engine takes (a noise variance up to 1e12): its float64 contour carries every
scale there; smaller budgets stay with the lattice engines."""

SMOOTHED_RHO_UP_TO = 1 / SMALLEST_SMOOTHED_SIGMA2
"""The largest budget the smoothed engine takes (4: a noise variance of at least 1/4)."""


def check_budget(rho: Fraction, name: str) -> None:
    """``ValueError`` naming ``name`` unless the budget ``rho`` lies in :data:`BUDGET_RANGE`."""
    low, high = BUDGET_RANGE
    if not low <= rho <= high:
        digits = len(str(rho.numerator)) - len(str(rho.denominator))  # the decimal exponent, to within one
        shown = f"{float(rho):.6g}" if abs(digits) < 300 else f"about 1e{digits:+d}"
        raise ValueError(f"{name} must be a budget between 1e-300 and 1e300 (noise variance 1/rho a normal float); "
                         f"got {shown}")


def _smoothable(rhos) -> bool:
    """Whether every budget lies in the smoothed engine's range [SMOOTHED_RHO_FROM, SMOOTHED_RHO_UP_TO]."""
    return all(SMOOTHED_RHO_FROM <= r <= SMOOTHED_RHO_UP_TO for r in rhos)

SMOOTHED_TRADEOFF_DELTA_SHARE = 0.25
"""The share of a smoothed trade-off point's ``abs_tol`` that each δ(ε) behind it may err by, absolutely: β's error
is driven by δ's absolute error (1 − αe^ε − δ(ε) and (1 − α)e^{−ε} − e^{−ε}δ(ε) move by at most δ's error), so each δ
is computed to error_bound ≤ abs_tol/4 (:meth:`accountlib.engine.front.SmoothedTails.delta`'s ``abs_tol``; a relative
abs_tol/4 as well, which δ ≤ 1 makes no stricter), and the work follows the accuracy asked for: about 1/sqrt(abs_tol)
contour nodes per δ."""

MAX_SMOOTHED_TRADEOFF_NODES = 10_000_000
"""The most contour nodes the smoothed engine may be estimated to scan for one trade-off point: about 3 s of one
core of the book's two-core machine (3e-7 s per node scanned, :data:`accountlib.engine.front.MAX_SMOOTHED_WORK`).
Estimated before the work, as the first grid's 17 δ(ε) at the cost of the dearer of two of them
(:meth:`accountlib.engine.front.SmoothedTails.planned_nodes`): an estimate beyond it is refused at once, naming
``abs_tol`` (in well under a second; ``tradeoff(Composition([2.5, "0.05"], engine="smoothed"), "1/2",
abs_tol=1e-7)`` plans 1.1e7, at 1e-9 1.5e8). The work itself adds coarse passes, missed passes and refinement
rounds, and is bounded by :data:`OVERRUN` times this limit in work units: each δ(ε) gets only what is left of that
(its ``cost_limit``), and the point is refused, naming ``abs_tol``, where a δ would pass it. Raise it with the
environment variable ``ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES``."""

OVERRUN = 6
"""How far the work spent on one point of a smoothed trade-off may exceed the estimate's limit
(:data:`MAX_SMOOTHED_TRADEOFF_NODES`), in work units (:data:`accountlib.engine.work.KEPT_NODE_WEIGHT`: a node the
sieve keeps costs 1 + 4G scanned ones, G distinct groups): 6e7 units per α, 5 to 8 s of one core, so that each
answer or refusal comes within about 10 s (each α of a call has a budget of its own: its point does not depend on
the others asked).
The estimate counts one pass per δ of the first grid; the work adds the coarse passes, missed passes and refinement
rounds, two to ten times the estimate (budgets 2.5 and 0.05 at α = 1/2, abs_tol = 1e-6: planned
3.0e6 nodes, scanned 1.5e7, 3.7 s; budgets 1/3 and 123457/1000003 at abs_tol = 1e-7: at most 7.4e6 per point).
Each δ is priced before its pass; the pass that would pass what is left is not started, the finest within it runs."""

STOPPED_DELTAS = 3
"""A smoothed trade-off point refines until this many of its δ were held coarser by its budget, or 95% of it is spent."""


def _sensitivities(values, count: int) -> list[int]:
    """The shifts s_i as positive integers (default all 1); a clear error names the bad entry."""
    if values is None:
        return [1] * count
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ValueError(f"sensitivities must be a list of positive integers; got {values!r}")
    values = list(values)
    if len(values) != count:
        raise ValueError(f"sensitivities must hold one shift per budget ({count}); got {len(values)}")
    out = []
    for i, value in enumerate(values):
        try:
            s = as_fraction(value, f"sensitivities[{i}]", floats="decimal")
        except ValueError:
            raise ValueError(f"sensitivities[{i}] must be a positive integer; got {value!r}") from None
        if s.denominator != 1 or not 1 <= s <= MAX_SENSITIVITY:
            raise ValueError(f"sensitivities[{i}] must be an integer in 1..{MAX_SENSITIVITY} (the discrete Gaussian "
                             f"lives on the integers, so a query moves by a whole number); got {value!r}")
        out.append(int(s))
    return out


class Composition:
    """Composition of N_Z(0, 1/ρ_i) against N_Z(s_i, 1/ρ_i), i = 1..m (the census pair has every s_i = 1).

    Mechanism i adds discrete Gaussian noise of variance 1/ρ_i to a query that neighbouring data move by the
    integer s_i (its sensitivity). The privacy loss is ρ'(1 − S) with ρ' = Σ ρ_i s_i²/2 (the pair's zCDP ρ) and
    S = Σ (ρ_i s_i/ρ') X_i, so δ(ε) = P(S > ε/ρ' − 1) − e^ε P(S > ε/ρ' + 1), and S under the second
    distribution is S + 2 (sieve paper §3.2, Prop. 3.3; the book's chapter "Fourier inversion on a lattice").

    Parameters
    ----------
    rhos : the budgets ρ_i > 0 (exact rationals; int, Fraction or strings), each in :data:`BUDGET_RANGE`
        (1e-300 to 1e300). Zeros are rejected; drop unused entries first.
    sensitivities : the shifts s_i, positive integers (default: all 1).
    paths : the engine's evaluation paths (:class:`~accountlib.engine.results.EvaluationPaths`; default: all).
    engine : ``"auto"`` (default), ``"lattice"`` or ``"smoothed"``: how δ(ε) is computed. The lattice engines
        (sieve paper §4) work on the lattice of S, whose size grows with the budgets' common denominator; the
        smoothed engine (:mod:`accountlib.engine.smoothed`) never forms it, so its cost depends on the number of
        distinct budgets and the accuracy only. ``"auto"`` takes the lattice while its sieve would scan at most
        :data:`~accountlib.theory.engine_choice.LATTICE_UP_TO` candidate nodes, need at most :data:`~accountlib.theory.engine_choice.LATTICE_NODES_UP_TO` nodes and its untilted engine would take on the first δ
        request within its node-bit limit (:func:`~accountlib.theory.engine_choice.lattice_affordable`; every DHC pair does), the smoothed engine beyond
        where every budget is in its range (trade-off points then from δ(ε) by duality, :mod:`accountlib.theory.tradeoff_duality`,
        certified on both sides), else the lattice within :data:`~accountlib.theory.engine_choice.AUTO_NODE_BITS` (seconds), refused beyond it.

    Every tail probability goes through the engine's front door, :class:`~accountlib.engine.front.CertifiedTails`,
    which builds the engines, reuses them across calls and decides when a deep tail uses the tilted contour.

    >>> pair = Composition(["1/2", "1/3"])           # N_Z(0, 2) and N_Z(0, 3), each query moved by 1
    >>> pair.rho                                   # the zCDP ρ of the composition, exact
    Fraction(5, 12)
    >>> (d,) = pair.delta([1], rel_tol=1e-9)
    >>> (b,) = pair.tradeoff(["0.05"], abs_tol=1e-20)
    >>> d.error_bound <= 1e-9 * d.delta and b.error_bound <= 1e-20
    True
    """

    def __init__(self, rhos, *, sensitivities=None, paths: EvaluationPaths = DEFAULT_PATHS, engine: str = "auto"):
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")
        if not isinstance(paths, EvaluationPaths):
            raise ValueError(f"paths must be an EvaluationPaths (accountlib.engine.results); got {paths!r}")
        if isinstance(rhos, (str, bytes)) or not hasattr(rhos, "__iter__"):
            raise ValueError(f"rhos must be a list of budgets; got {type(rhos).__name__} {rhos!r}")
        budgets = [as_positive_fraction(r, f"rhos[{i}]", floats="decimal") for i, r in enumerate(rhos)]
        if not budgets:
            raise ValueError("rhos must hold at least one budget")
        self._build(budgets, _sensitivities(sensitivities, len(budgets)), paths, engine)

    def _build(self, rhos: list[Fraction], sensitivities: list[int], paths: EvaluationPaths, engine: str,
               scaled_from: tuple[Composition, Fraction] | None = None) -> None:
        """Everything a composition derives from its (validated) budgets and settings: the zCDP ρ, the weights, the
        lattice of S and the engine that computes its curves. ``scaled_from`` = (composition, v) when the budgets are
        that composition's divided by v: its ρ, weights and lattice are then rescaled instead of recomputed."""
        self.rhos, self.sensitivities, self.paths, self.engine_requested = rhos, sensitivities, paths, engine
        if scaled_from is not None:
            source, v = scaled_from
            for i in source._extreme_budgets():  # ρ_i/v is in range for every i when it is at the two extremes
                check_budget(rhos[i], f"rhos[{i}]")
            self.rho = source.rho / v
            self._weights = source._weights
            self.lattice = source.lattice.rescaled(v)
        else:
            for i, r in enumerate(rhos):
                check_budget(r, f"rhos[{i}]")
            # refused before any lattice arithmetic (hashing a Fraction costs a modular inverse: keyed by integers)
            check_distinct_terms(len({(r.numerator, r.denominator, s) for r, s in zip(rhos, sensitivities)}), "rhos")
            common = 1
            for r in rhos:  # the exact total ρ and the lattice need the denominators' least common multiple
                common = math.lcm(common, r.denominator)
                if common.bit_length() > 3330:
                    raise ValueError(f"rhos: the budgets' denominators have a least common multiple of more than 1000 "
                                     f"digits (already at rhos[{rhos.index(r)}] of {len(rhos)}); the exact "
                                     "arithmetic supports at most about 1000: use budgets with fewer distinct "
                                     "denominators (e.g. round them to a common grid such as multiples of 1/10^6)")
            # Σ ρ_i s_i² / 2 in integers over the common denominator (a Fraction sum would reduce at every term)
            total = sum(r.numerator * (common // r.denominator) * s * s for r, s in zip(rhos, sensitivities))
            self.rho = Fraction(total, 2 * common)
            weight_of: dict = {}  # keyed by integers: hashing a Fraction costs a modular inverse
            self._weights = []  # a_i = ρ_i s_i / ρ: unchanged when every budget is divided by one multiplier
            for r, s in zip(rhos, sensitivities):
                key = (r.numerator, r.denominator, s)
                if key not in weight_of:
                    weight_of[key] = r * s / self.rho
                self._weights.append(weight_of[key])
            self.lattice = lattice_of(list(zip(rhos, self._weights)))
        weights = list(zip(self.rhos, self._weights))
        sieve = None  # the sieve the choice ran at Δ = 1e-30, handed to the lattice engine at that Δ
        if engine == "auto":
            # the smoothed engine where the lattice's would refuse (the sieve's count, last: it may run the sieve)
            fine = (self.lattice.variance_proxy > MAX_VARIANCE_PROXY or lattice_candidates(self.lattice) > LATTICE_UP_TO
                    or lattice_nodes(self.lattice) > LATTICE_NODES_UP_TO)
            if not fine:
                affordable, sieve = lattice_decision(self.lattice)
                fine = not affordable
            engine = "smoothed" if _smoothable(self.rhos) and fine else "lattice"
        self.engine_kind = engine
        # S moves by 2 between the two distributions: 2L on the lattice, an integer
        self.shift = sum(c * s for c, s in zip(self.lattice.coefficients, self.sensitivities))
        if engine == "smoothed":
            if not _smoothable(self.rhos):
                bad = max(self.rhos) if max(self.rhos) > SMOOTHED_RHO_UP_TO else min(self.rhos)
                raise ValueError("engine='smoothed' needs every budget rho_i in [1e-12, 4] (noise variance 1/rho_i "
                                 f"between 1/4 and 1e12); got {float(bad)!r}")
            counts: dict = {}
            for (r, w) in weights:
                key = (1 / r, w)
                counts[key] = counts.get(key, 0) + 1
            self.smoothed = SmoothedTails(list(counts.items()), self.rho)  # the front door to the smoothed engine
            self._tails = None
        else:
            check_lattice_size(self.lattice)  # refuse at once what no engine could compute
            self.smoothed = None
            limit = (env_limit("ACCOUNTLIB_MAX_NODE_BITS", AUTO_NODE_BITS)  # no engine to fall back on: seconds
                     if self.engine_requested == "auto" and not _smoothable(self.rhos) else None)
            self._tails = CertifiedTails(self.lattice, paths=paths, sieve=sieve, max_node_bits=limit)

    def rescaled(self, multiplier, *, factors=()) -> Composition:
        """This composition with every noise variance multiplied: σ_i² = 1/ρ_i becomes f_i·v/ρ_i (budgets ρ_i/(f_i v)),
        v = ``multiplier`` > 0 and f_i the ``factors`` (one per budget, each ≥ 0; default all 1; f_i = 0 holds
        budget i fixed). The sensitivities, the evaluation paths and the engine asked for are kept; under one common
        multiplier the weights a_i = ρ_i s_i/ρ do not change, so the lattice of S is reused, its variances scaled.

        >>> pair = Composition(["1/2", "1/3"], engine="lattice", sensitivities=[1, 2])
        >>> noisier = pair.rescaled(4)                     # every σ_i² four times larger
        >>> noisier.rhos, noisier.sensitivities, noisier.engine_kind, noisier.rho == pair.rho / 4
        ([Fraction(1, 8), Fraction(1, 12)], [1, 2], 'lattice', True)
        """
        v = as_positive_fraction(multiplier, "multiplier", floats="decimal")
        new = object.__new__(Composition)
        if factors:
            if len(factors) != len(self.rhos):
                raise ValueError(f"factors must hold one factor per budget ({len(self.rhos)}); got {len(factors)}")
            budgets = [r / (f * v) if f else r for r, f in zip(self.rhos, factors)]
            new._build(budgets, list(self.sensitivities), self.paths, self.engine_requested)
        else:
            new._build([r / v for r in self.rhos], list(self.sensitivities), self.paths, self.engine_requested,
                       (self, v))
        return new

    def _extreme_budgets(self) -> tuple[int, int]:
        """The positions of the smallest and the largest budget."""
        if not hasattr(self, "_extremes"):
            order = range(len(self.rhos))
            self._extremes = (min(order, key=self.rhos.__getitem__), max(order, key=self.rhos.__getitem__))
        return self._extremes

    @property
    def tails(self) -> CertifiedTails:
        """The lattice engines' front door (built on first use; refused where the lattice is too fine: vertex-level
        work such as :meth:`tradeoff_vertices` needs it)."""
        if self._tails is None:
            check_lattice_size(self.lattice)
            if lattice_candidates(self.lattice) > LATTICE_UP_TO:
                raise ResourceLimitError(
                    f"the lattice engines (trade-off vertices, lattice tails) need the lattice of the budgets, and this one is too fine (its sieve would scan "
                    f"about {lattice_candidates(self.lattice):.2g} candidate nodes; the lattice engines take up to "
                    f"{LATTICE_UP_TO:.2g}): use delta, epsilon or tradeoff (the smoothed engine), or budgets with smaller denominators")
            self._tails = CertifiedTails(self.lattice, paths=self.paths)
        return self._tails

    # -- engines, shared across calls (the front door's reuse policy) --------------------------

    def engine(self, accuracy: float) -> TailEngine:
        """An untilted :class:`~accountlib.engine.tails.TailEngine` with absolute accuracy at least ``accuracy`` (Δ), built once, then reused."""
        return self.tails.engine(accuracy)

    @property
    def engines(self) -> list[TailEngine]:
        """The untilted engines built so far (for reports: node counts, Δ)."""
        return self.tails.engines

    @property
    def tilted_engines(self) -> list[TiltedTailEngine]:
        """The tilted-contour engines built so far."""
        return self.tails.tilted_engines

    # -- (ε, δ) -------------------------------------------------------------------------------

    def _combine(self, digits: int, epsilon: Fraction, first, second) -> DeltaPoint:
        """δ = P(S > ε/ρ − 1) − e^ε P(S > ε/ρ + 1), at ``digits`` decimal digits, with its error bound."""
        with mpmath.workdps(digits):
            eps = mpmath.mpf(epsilon.numerator) / epsilon.denominator
            growth = mpmath.exp(eps)
            value = first.value - growth * second.value
            error = (first.error_bound + growth * second.error_bound) * (1 + 1e-9)  # mpf: no overflow, no underflow
        return DeltaPoint(eps, value, error_bound(error))

    def delta_each(self, epsilons, *, rel_tol: float = 1e-6, best_effort: bool = True,
                   name: str = "epsilons") -> tuple[list[DeltaPoint], list]:
        """:meth:`delta` at each ε, with the work budget each had: on the smoothed engine one of its own
        (:func:`accountlib.engine.work.call_meter`, 5 to 8 s of one core), so that a δ does not depend on the other ε
        asked with it; elsewhere None (the lattice engines' limits are per call). ``name`` names the argument in
        errors. What the front door's :func:`~accountlib.theory.accounting.delta` and the command line's ``delta`` run."""
        eps = as_epsilons(epsilons, name)
        if self.smoothed is None:
            return self.delta(eps, rel_tol=rel_tol, best_effort=best_effort), [None] * len(eps)
        from ..engine.work import call_meter  # the smoothed engine only: not loaded otherwise

        meters = [call_meter() for _ in eps]
        return [self.delta([e], rel_tol=rel_tol, best_effort=best_effort, meter=m)[0] for e, m in zip(eps, meters)], meters

    def delta(self, epsilons, *, rel_tol: float = 1e-6, best_effort: bool = True, meter=None) -> list[DeltaPoint]:
        """The exact privacy profile δ(ε) at each ε in [0, :data:`MAX_EPSILON`] (δ(0) = the total variation distance
        between the two distributions), each with error_bound ≤ rel_tol·δ (the book's chapter "The sieve"),
        or, where no engine reaches that, the narrowest certified bound found, flagged (``meets_tolerance`` False, its
        ``shortfall`` named): this method is best effort; :func:`accountlib.theory.accounting.delta` refuses such a
        point unless asked for best effort. ``best_effort=False`` lets the smoothed engine stop at once where its
        node cap would stop it (the point comes back flagged, from the coarse pass: for a caller that refuses it).

        ``rel_tol`` in [1e-30, 0.5] (:func:`accountlib.infrastructure.numbers.as_rel_tol`, checked here once). The
        front door decides everything else (:meth:`accountlib.engine.front.CertifiedTails.relative_combined`):
        deep levels — both thresholds at least ``paths.deep_from``·√V into the tail — on the tilted contour
        (:mod:`accountlib.engine.tilted`), the others, and any deep level it cannot certify, on untilted engines
        refined until the bound is met.

        ``meter``: a :class:`~accountlib.engine.work.WorkMeter` shared by the δ of one larger call (the bisection of
        :func:`accountlib.theory.accounting.epsilon`): the smoothed engine's δ then spend at most the work units it
        has left, flagged ``node cap`` where that stopped them. The lattice engines have their own limits and ignore it.
        """
        eps = as_epsilons(epsilons)
        rel_tol = as_rel_tol(rel_tol)

        def combine(digits, i, tails):
            point = self._combine(digits, eps[i], tails[0], tails[1])
            return point, point.delta, point.error_bound

        if self.smoothed is not None:
            points = []
            own = resource_limit("ACCOUNTLIB_MAX_SMOOTHED_WORK", MAX_SMOOTHED_WORK)
            for e in eps:
                d = self.smoothed.delta(e, rel_tol=rel_tol, best_effort=best_effort, work_limit=own,
                                        cost_limit=None if meter is None else meter.left,
                                        price=None if meter is None else meter.price)
                if meter is not None:
                    meter.price = d.terms.get("price", meter.price)  # the call's, never the Composition's
                    meter.add(d.terms.get("cost", 0), stopped=bool(d.terms.get("over_cost")), needed=d.terms.get("needed", 0),
                              starved=bool(d.terms.get("starved")))
                points.append(_flag_delta(DeltaPoint(d.epsilon, d.delta, error_bound(d.error_bound)), rel_tol, d.terms))
            return points
        gains = [1 + math.exp(min(float(e), 700)) for e in eps]
        try:
            points = self.tails.relative_combined([self._thresholds(e) for e in eps], combine, rel_tol, gains=gains,
                                                 best_effort=best_effort)
        except ResourceLimitError as error:  # under engine="auto"'s own limit, the engine that lifts it named
            if self.tails.max_node_bits != AUTO_NODE_BITS or "ACCOUNTLIB_MAX_NODE_BITS" not in str(error):
                raise
            raise ResourceLimitError(f"{error}{LIFTED}") from None
        return [_flag_delta(p, rel_tol) for p in points]

    def relative_epsilon_limit(self) -> Fraction | None:
        """ε below this are within the tilted contour's reach (the first threshold index ≤ DEEP_UP_TO·√V), so δ(ε)
        is computed to a relative accuracy; beyond it the engine returns 0 with its rigorous sub-Gaussian upper
        bound (a certified δ ≤ bound, no relative accuracy). None when the tilted contour does not apply (a σ²
        below 1/2, or paths without it): then the untilted engine alone decides, up to its 1e-300 floor."""
        if self.smoothed is not None:
            return None
        top = self.tails.relative_reach()  # the largest index served to a relative accuracy
        if top is None:
            return None
        # floor((ε/ρ − 1)L) + 1 ≤ top  ⟺  (ε/ρ − 1)L < top  ⟺  ε < ρ(top/L + 1)
        return self.rho * (Fraction(top) / self.lattice.scale + 1)

    def _thresholds(self, epsilon: Fraction) -> tuple[int, int]:
        """Lattice indices of P(S > ε/ρ − 1) and P(S > ε/ρ + 1)."""
        scale = self.lattice.scale
        return threshold_index(epsilon / self.rho - 1, scale), threshold_index(epsilon / self.rho + 1, scale)

    # -- trade-off --------------------------------------------------------------------------

    def likelihood_ratio(self, j: int) -> mpmath.mpf:
        """dQ/dP on the atom S_L = j: exp(ρ(j/L − 1)), at 40 digits or the caller's precision if finer (the
        trade-off evaluation works at the engine's precision: a 40-digit slope would limit β to ~1e-40)."""
        with mpmath.workdps(max(40, mpmath.mp.dps + 10)):
            x = Fraction(j) / self.lattice.scale - 1
            return mpmath.exp(mpmath.mpf((self.rho * x).numerator) / (self.rho * x).denominator)

    def likelihood_ratio_enclosure(self, j: int) -> tuple[Fraction, Fraction]:
        """Rationals lo ≤ exp(ρ(j/L − 1)) ≤ hi, the likelihood ratio on the atom S_L = j, from an arb ball at
        200 bits (exact where the ratio is, e.g. 1 at j = L): what rounding a slope inwards needs."""
        x = self.rho * (Fraction(j) / self.lattice.scale - 1)
        with arithmetic.precision(200):
            ball = arithmetic.arb_fraction(x).exp()
            ends = [ball.lower().man_exp(), ball.upper().man_exp()]
        return tuple(Fraction(int(m)) * Fraction(2) ** int(e) for m, e in ends)

    def vertex(self, engine: TailEngine, j: int) -> tuple:
        """(α_j, β_j) with their error bounds: the test that rejects when S_L ≥ j."""
        a = engine.tail_index(j)
        b = engine.tail_index(self.shift + 1 - j)
        return a, b

    def _bracket(self, engine: TailEngine, alpha: mpmath.mpf) -> int:
        """The j with α_{j+1} ≤ α ≤ α_j (α_j = P(S_L ≥ j) decreases in j)."""
        lo, hi = -engine.cut - 1, engine.cut + 1  # α_lo ≈ 1 ≥ α ≥ α_hi ≈ 0
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if engine.tail_index(mid).value >= alpha:
                lo = mid
            else:
                hi = mid
        return lo

    def tradeoff(self, alphas, *, abs_tol: float = 1e-25, best_effort: bool = False, name: str = "alphas",
                 estimate_refuses: bool | None = None) -> list[TradeoffPoint]:
        """β = f(α) at each α ∈ [0, 1], each with error_bound ≤ abs_tol (in [1e-60, 0.5]; where reachable).
        ``best_effort``: a smoothed point whose work would pass :data:`OVERRUN` times its limit (or whose first
        passes the up-front estimate puts over the limit) is returned with the narrowest bound that work reached,
        flagged ``node cap`` where it misses ``abs_tol``, instead of refused. ``estimate_refuses`` (default: not
        ``best_effort``) refuses a smoothed point whose estimate passes the budget :data:`~accountlib.theory.tradeoff_duality.ESTIMATE_SLACK`-fold, before any pass,
        even with best effort (the command line's rule without --best-effort: it judges the bounds itself). On the smoothed engine each α
        has that work budget of its own (5 to 8 s of one core), so a point does not depend on the other α asked.

        The engines and their refinement are the front door's (:meth:`~accountlib.engine.front.CertifiedTails.absolute_batch`).
        ``name`` names the argument in errors."""
        if isinstance(alphas, (str, bytes)) or not hasattr(alphas, "__iter__"):
            raise ValueError(f"{name} must be a list of numbers; got {alphas!r}")
        values = [as_fraction(a, name, floats="decimal") for a in alphas]
        for a in values:
            if not 0 <= a <= 1:
                from ..infrastructure.shown import shown_value  # an error's path: the command line loads it only here
                raise ValueError(f"{name} must lie in [0, 1]; got {shown_value(a, 12)}")
        abs_tol = as_abs_tol(abs_tol)
        if self.smoothed is not None:  # each α with a work budget of its own: OVERRUN times the estimate's limit
            refuses = not best_effort if estimate_refuses is None else bool(estimate_refuses)
            return [self._tradeoff_from_profile(a, abs_tol, best_effort, refuses) for a in values]
        points = self.tails.absolute_batch(lambda engine, todo: self._tradeoff_batch(engine, [values[i] for i in todo]),
                                           len(values), abs_tol)
        return [_flag_tradeoff(p, abs_tol, "precision") for p in points]

    def _tradeoff_from_profile(self, alpha: Fraction, abs_tol: float, best_effort: bool = False,
                               estimate_refuses: bool = True) -> TradeoffPoint:
        """f(α) by duality from the smoothed engine's δ(ε) (:mod:`accountlib.theory.tradeoff_duality`): the lattice
        is too fine for vertices. Each δ errs by at most a quarter of the tolerance it is computed for
        (:data:`SMOOTHED_TRADEOFF_DELTA_SHARE`): its error enters β about linearly. All the δ of the point spend at
        most :data:`OVERRUN` times the limit in work units, on rungs of looser tolerances first (r37h F-A), the certified
        brackets intersected; each rung starts from the δ the rungs before it computed and recomputes only those that
        bound its band, so a rung the budget stops still narrows the bracket (r37n P3); a δ meeting what is left gets
        the finest pass within it. Without ``best_effort`` a point missing ``abs_tol`` is refused."""
        from .tradeoff_duality import ESTIMATE_SLACK, FIRST_GRID, first_grid, looser_rungs, tradeoff_from_profile

        limit = resource_limit("ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES", MAX_SMOOTHED_TRADEOFF_NODES)
        grid = first_grid(alpha)
        delta_tol = SMOOTHED_TRADEOFF_DELTA_SHARE * abs_tol  # δ ≤ 1: as a relative tolerance it is no stricter
        planned = FIRST_GRID * max((self.smoothed.planned_nodes(e, rel_tol=delta_tol, abs_tol=delta_tol)
                                    for e in (grid[0], grid[len(grid) // 2])), default=0) if grid else 0

        def refuse(need, flagged=""):  # flagged: the advice beyond loosening abs_tol
            from ..infrastructure.shown import shown_value  # messages only: not loaded on the way to an answer
            raise ResourceLimitError(f"abs_tol: the smoothed trade-off at alpha = {shown_value(alpha, 12)} to abs_tol = "
                                     f"{abs_tol:g} {need}; loosen abs_tol (the cost grows about as 1/sqrt(abs_tol)), "
                                     f"{flagged}or raise the limit")

        budget, over_estimate = OVERRUN * limit, planned > limit
        # refused at once only ESTIMATE_SLACK-fold over the budget (r37l N1, r37q E1); best effort runs its passes
        if planned > ESTIMATE_SLACK * budget and estimate_refuses:
            refuse(f"needs about {planned:,} contour nodes, over {ESTIMATE_SLACK} times the {budget:,} work units of "
                   f"its budget ({OVERRUN} times ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES, {limit:,})", "pass "
                   "best_effort=True for the bound the budget reaches, flagged, ")
        own = resource_limit("ACCOUNTLIB_MAX_SMOOTHED_WORK", MAX_SMOOTHED_WORK)
        spent, capped, stopped, known = [0], [], [], {}  # known: each ε's δ bracket, the rungs' intersected

        def bracket(tol: float) -> tuple:
            """β's certified (lower, upper) from δ computed to ``tol``/4, within what is left of the budget."""
            price, share = [None], SMOOTHED_TRADEOFF_DELTA_SHARE * tol

            def delta_at(eps):
                d = self.smoothed.delta(eps, rel_tol=share, abs_tol=share, work_limit=own,
                                        cost_limit=max(budget - spent[0], 0), price=price[0])
                spent[0], price[0] = spent[0] + int(d.terms.get("cost", 0)), d.terms.get("price", price[0])
                stopped.extend([eps] if d.terms.get("over_cost") else [])  # the work budget held it coarser
                capped.extend([eps] if d.terms.get("capped") else [])
                return d.delta, d.error_bound

            return tradeoff_from_profile(delta_at, alpha, tol, spent=exhausted, known=known, enough=abs_tol)

        def exhausted() -> bool:  # a δ the budget held coarser leaves the others their share (r37o Q2): refine on
            return len(stopped) >= STOPPED_DELTAS or spent[0] >= 0.95 * budget

        lower, upper = mpmath.mpf(0), mpmath.mpf(1)
        for finer in map(bracket, looser_rungs(abs_tol)):  # loosest first, each rung run when reached
            lower, upper = max(lower, finer[0]), min(upper, finer[1])  # all certified: so is their intersection
            if (upper - lower) / 2 <= abs_tol or exhausted():  # met, or the budget is spent
                break
        with mpmath.workdps(30):
            target = mpmath.mpf(alpha.numerator) / alpha.denominator
            point = TradeoffPoint(target, (lower + upper) / 2, error_bound((upper - lower) / 2 * (1 + mpmath.mpf(10) ** -12)))
        point = _flag_tradeoff(point, abs_tol, "node cap" if capped or over_estimate or stopped else "precision")
        if stopped and not point.meets_tolerance and not best_effort:
            refuse(f"needs more than the {budget:,} work units accepted ({OVERRUN} times "
                   f"ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES, {limit:,} contour nodes): they reached a bound of "
                   f"{float(point.error_bound):.2g}", "pass best_effort=True for that bound, flagged, ")
        return point

    def _tradeoff_batch(self, engine: TailEngine, alphas: list[Fraction]) -> list[TradeoffPoint]:
        """``_tradeoff_at`` for many α at once: the bisections for all brackets advance together, one batch
        of tails per step (the engine's float64 part is vectorised over thresholds)."""
        with mpmath.workdps(int(engine.bits * 0.30103) + 10):
            targets = [mpmath.mpf(a.numerator) / a.denominator for a in alphas]
            lo = [-engine.cut - 1] * len(targets)  # α_lo ≈ 1 ≥ α ≥ α_hi ≈ 0
            hi = [engine.cut + 1] * len(targets)
            if len(targets) > 16:  # many α: one batch on a coarse grid of j first narrows every bracket at once
                grid = sorted({round(-engine.cut + 2 * engine.cut * i / 2047) for i in range(2048)})
                negated = [-t.value for t in engine.tail_indices(grid)]  # α_j is non-increasing in j
                for i, target in enumerate(targets):
                    k = bisect.bisect_right(negated, -target)  # grid[:k] have α_j ≥ α
                    if k:
                        lo[i] = grid[k - 1]
                    if k < len(grid):
                        hi[i] = grid[k]
            while True:
                open_ = [i for i in range(len(targets)) if hi[i] - lo[i] > 1]
                if not open_:
                    break
                mids = [(lo[i] + hi[i]) // 2 for i in open_]
                for i, mid, tail in zip(open_, mids, engine.tail_indices(mids)):
                    if tail.value >= targets[i]:
                        lo[i] = mid
                    else:
                        hi[i] = mid
            tails = engine.tail_indices([j for j in lo] + [self.shift + 1 - j for j in lo])
            points = []
            for n, (target, j) in enumerate(zip(targets, lo)):
                a, b = tails[n], tails[len(lo) + n]
                slope = self.likelihood_ratio(j)
                beta = b.value + slope * (a.value - target)
                # a mis-bracketed α (within α_j's error) moves onto the neighbouring segment: both slopes bound it
                error = (b.error_bound + 2 * slope * a.error_bound) * (1 + 1e-9)
                beta = min(max(beta, mpmath.mpf(0)), 1 - target)
                points.append(TradeoffPoint(target, beta, error_bound(error)))
        return points

    def _tradeoff_at(self, engine: TailEngine, alpha: Fraction) -> TradeoffPoint:
        with mpmath.workdps(int(engine.bits * 0.30103) + 10):
            target = mpmath.mpf(alpha.numerator) / alpha.denominator
            j = self._bracket(engine, target)
            a, b = self.vertex(engine, j)
            slope = self.likelihood_ratio(j)
            beta = b.value + slope * (a.value - target)
            # a mis-bracketed α (within α_j's error) moves onto the neighbouring segment: both slopes bound it
            error = (b.error_bound + 2 * slope * a.error_bound) * (1 + 1e-9)
            beta = min(max(beta, mpmath.mpf(0)), 1 - target)
        return TradeoffPoint(target, beta, error_bound(error))

    def tradeoff_vertices(self, indices, *, abs_tol: float = 1e-25) -> list[TradeoffPoint]:
        """The vertices (α_j, β_j) of f for the given lattice indices j (no interpolation needed)."""
        abs_tol = as_abs_tol(abs_tol)
        engine = self.tails.absolute_engine(abs_tol)
        points = []
        for j in indices:
            a, b = self.vertex(engine, int(j))
            points.append(_flag_tradeoff(TradeoffPoint(a.value, b.value, error_bound(max(a.error_bound, b.error_bound))),
                                         abs_tol, "precision"))
        return points


def as_epsilons(epsilons, name: str = "epsilons") -> list[Fraction]:
    """``epsilons`` (a list of numbers, each in [0, :data:`MAX_EPSILON`]) as exact rationals, read by the decimal rule
    of :func:`~accountlib.infrastructure.numbers.as_fraction`; ``name`` names the argument in the error."""
    if isinstance(epsilons, (str, bytes)) or not hasattr(epsilons, "__iter__"):
        raise ValueError(f"{name} must be a list of numbers; got {epsilons!r}")
    eps = [as_fraction(e, name, floats="decimal") for e in epsilons]
    for e in eps:
        if not 0 <= e <= MAX_EPSILON:
            from ..infrastructure.shown import shown_value  # messages only: not loaded on the way to an answer

            raise ValueError(f"{name} must be in [0, {MAX_EPSILON}] (δ(0) is the total variation distance; "
                             f"{MAX_EPSILON} the largest ε supported); got "
                             f"{shown_value(e) if abs(e) < 10**300 else 'a value beyond 1e300'}")
    return eps


def as_composition(composition, sensitivities=None) -> Composition:
    """``composition`` as a :class:`Composition`: one already built (then ``sensitivities`` must be None: they belong
    to it), or the budgets ρ_i to build it from.

    >>> as_composition(["1/2"], [3]).sensitivities
    [3]
    """
    if isinstance(composition, Composition):
        if sensitivities is not None:
            raise ValueError("sensitivities: give them to Composition, not here, when composition is a Composition")
        return composition
    if isinstance(composition, Mapping) or getattr(composition, "ndim", None) == 0:
        raise ValueError(f"composition must be a Composition or a list of budgets; got {type(composition).__name__} "
                         f"{composition!r}")
    return Composition(composition, sensitivities=sensitivities)


ShiftPair = Composition
"""The composition's former name (deprecated; the book's chapters still use it): the same class."""
