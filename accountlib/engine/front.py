"""The front door to the engine: certified tail probabilities to the accuracy asked for.

Engine layer of :mod:`accountlib`, above the two evaluators, and the one owner of accuracy. Every certified tail
in the library — :meth:`accountlib.theory.composition.Composition.delta` and ``.tradeoff``, the census jobs (through
Composition) and any lattice given as ``(rho, weight)`` pairs — goes through :class:`CertifiedTails`, and every δ(ε)
of the smoothed engine (budgets whose lattice no sieve can scan, such as the redistricting data's) through
:class:`SmoothedTails`. Callers say
what they need, a relative (``rel_tol``) or absolute (``abs_tol``) tolerance, validated once at the public
boundary (:func:`accountlib.infrastructure.numbers.as_rel_tol`, :func:`~accountlib.infrastructure.numbers.as_abs_tol`);
this module decides

* the absolute accuracy Δ the first untilted :class:`~accountlib.engine.tails.TailEngine` is built for
  (:data:`START_ACCURACY` for a relative request, abs_tol/:data:`ABSOLUTE_SHARE` for an absolute one), and when
  an engine already built can serve a request (:data:`REUSE_SPAN`);
* how Δ shrinks when a request is not met yet (:func:`next_accuracy`, one policy for every caller). A relative
  tolerance stays relative down to here; it becomes an absolute Δ only in ``_needed_accuracy``, from a
  certified lower bound on the value (value − error_bound) when the bound already gives one;
* whether a deep upper tail goes to the tilted contour (:mod:`accountlib.engine.tilted`) and with which J
  accuracies (:data:`TILT_TOLERANCES` in float64, then :data:`PRECISE_TILT_ROUNDS` in arb), following the
  :class:`~accountlib.engine.results.EvaluationPaths` passed in.

Sieve paper §4 (the method) and the book's chapters "The trapezoidal rule converges exponentially" and "The sieve"
(why each choice is safe). Accuracy is called ``accuracy`` (Δ) throughout; ``delta`` is the privacy δ of (ε, δ)-DP
and is never used for Δ.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

import mpmath

from ..infrastructure.numbers import as_abs_tol, as_fraction, as_rel_tol, as_tolerance, resource_limit
from .lattice import Lattice, lattice_of, threshold_index
from .results import (DEFAULT_PATHS, SMALLEST_ACCURACY, EvaluationPaths, ResourceLimitError, TailResult,
                      check_lattice_size)
from .work import KEPT_NODE_WEIGHT, cost_per_node, work_units

if TYPE_CHECKING:  # the evaluators are imported when an engine is first built (a smoothed-only run never needs them)
    from .tails import TailEngine
    from .tilted import TiltedTailEngine

__all__ = ["CertifiedTails", "SmoothedTails", "SMOOTHING_START", "SMOOTHING_PASSES", "MAX_SMOOTHED_WORK", "tail_probabilities", "tail_probability", "next_accuracy", "START_ACCURACY",
           "COARSE_START_ACCURACY", "COARSE_START_BATCH", "REBUILD_FACTOR", "REUSE_SPAN",
           "SMALLEST_RELATIVE_TOLERANCE_FOR_TILTING", "TILT_TOLERANCES", "PRECISE_TILT_ROUNDS", "MAX_TILTED_NODES", "ABSOLUTE_SHARE",
           "REFINEMENT_BAND",
           "TailEngine", "TailResult", "EvaluationPaths", "MAX_NODE_BITS"]

START_ACCURACY = 1e-30
"""The Δ a relative request starts from: one fine engine serves a few levels at once."""

COARSE_START_ACCURACY = 1e-16
"""The Δ a long batch of combined requests (at least :data:`COARSE_START_BATCH`, e.g. the census sweep's δ(ε)
grid of 60 levels) starts from: such a grid spans many decades of δ, its large-δ levels are settled by a cheap
engine and finer ones follow in bands (:data:`REFINEMENT_BAND`) for the rest."""

COARSE_START_BATCH = 12
"""From this many combined requests on, :meth:`CertifiedTails.relative_combined` starts at
:data:`COARSE_START_ACCURACY` instead of :data:`START_ACCURACY`."""

REBUILD_FACTOR = 1e-2
"""A rebuilt engine is at least this much more accurate than the one before (so every round makes progress)."""

REUSE_SPAN = 1e6
"""An engine built for Δ' serves a request for Δ when Δ/REUSE_SPAN ≤ Δ' ≤ Δ: a far finer engine keeps many
more nodes and digits, so building a coarser one is cheaper than reusing it."""

SMALLEST_RELATIVE_TOLERANCE_FOR_TILTING = 1e-30
"""The tilted contour serves deep tails for every relative tolerance accepted (down to 1e-30): in float64 while
that delivers, then summed in arb (:data:`PRECISE_TILT_ROUNDS`)."""

TILT_TOLERANCES = (1e-12, 1e-14)
"""The J accuracies tried, in turn, for combined requests (:meth:`CertifiedTails.relative_combined`) on the
tilted contour in float64, before its sum in arb (:data:`PRECISE_TILT_ROUNDS`)."""

PRECISE_TILT_ROUNDS = 3
"""After the float64 rounds (:data:`TILT_TOLERANCES`), deep levels still unmet are summed in arb on the tilted
contour (:class:`~accountlib.engine.tilted.TiltedTailEngine` with ``precise=True``) at most this many times, each at
the J accuracy the narrowest bound so far asks for (J accuracy × rel_tol·δ/(8·bound), at least a hundredfold finer
each round), while the workload stays within :data:`accountlib.engine.tilted.MAX_PRECISE_NODE_TERMS`; what is still
unmet then goes to the untilted engines. The deep level of budgets 3/2 and 11/10000 at ε = 34.24 needs one round at
rel_tol = 1e-12 (J accuracy 3e-25: 4 s, where the untilted engine took minutes), a single budget at rel_tol = 1e-12
one round at 1e-15 (milliseconds)."""

MAX_TILTED_NODES = 5_000_000
"""The most nodes the float64 rounds of the tilted contour (:data:`TILT_TOLERANCES`) may keep for one batch of
requests, all rounds together (about 8 s of one core: budgets 13/17, 7/1000003 and 0.2 at ε = 10 keep 4.5e6 nodes
in a first round of 7.3 s, its sieve included; the census sweep's largest pair keeps 59,348). A round that would
keep at least as many as the last one (a finer J accuracy keeps more) and pass it is not started: its levels go on
to the arb sum, whose own estimate may refuse it before its sieve (:data:`PRECISE_TILT_ROUNDS`), and then to the
untilted engines. Raise it with the environment variable ``ACCOUNTLIB_MAX_TILTED_NODES``."""

ABSOLUTE_SHARE = 4
"""An absolute request for abs_tol of a combined quantity starts from an engine at Δ = abs_tol/ABSOLUTE_SHARE."""

REFINEMENT_BAND = 1e-12
"""One rebuilt engine serves the unmet requests whose needed Δ lies within this factor of the loosest one; finer
ones come next round."""


def next_accuracy(current: float, needed: float, floor: float = SMALLEST_ACCURACY) -> float:
    """The Δ of the next engine when one built for ``current`` did not meet a request that needs ``needed``.

    max(min(needed, REBUILD_FACTOR·current), floor): at least a factor 1/REBUILD_FACTOR finer, never finer than
    ``floor``. The one rebuild policy of the library (tails, Composition.delta, Composition.tradeoff).
    """
    return max(min(needed, current * REBUILD_FACTOR), floor)


class CertifiedTails:
    """Certified P(S_L ≥ j) for one lattice sum S_L, to any absolute or relative accuracy.

    Parameters
    ----------
    mechanisms : ``(rho, weight)`` pairs (:mod:`accountlib.engine.lattice`) or a :class:`~accountlib.engine.lattice.Lattice`.
    paths : the evaluation paths allowed (:class:`~accountlib.engine.results.EvaluationPaths`); tests and
        benchmarks choose a path here, by argument.
    max_node_bits : the largest arb workload one engine may take (default
        :data:`accountlib.engine.tails.MAX_NODE_BITS`).
    sieve : a :class:`~accountlib.engine.sieve.SieveResult` already run on this lattice
        (:func:`accountlib.engine.tails.sieved_node_bits`): the engine built at its Δ takes it instead of sieving.

    Engines are built on demand and kept: ``engines`` (untilted) and ``tilted_engines`` (every tilted-contour
    engine built, by :meth:`relative` or :meth:`relative_combined`) list them for reports.

    >>> tails = CertifiedTails([(1, 1), (2, 1)])
    >>> (r,) = tails.relative([3], rel_tol=1e-9)        # P(S_L ≥ 3) on the lattice of the sum
    >>> r.error_bound <= 1e-9 * r.value and len(tails.engines) >= 1
    True
    """

    def __init__(self, mechanisms, *, paths: EvaluationPaths = DEFAULT_PATHS, max_node_bits: int | None = None,
                 sieve=None):
        if not isinstance(paths, EvaluationPaths):
            raise ValueError(f"paths must be an EvaluationPaths (accountlib.engine.results); got {paths!r}")
        self.lattice: Lattice = mechanisms if isinstance(mechanisms, Lattice) else lattice_of(mechanisms)
        check_lattice_size(self.lattice)
        self.paths = paths
        self.max_node_bits = max_node_bits
        self._sieve = sieve  # a sieve already run on this lattice (engine="auto"'s check): the engine at its Δ takes it
        self.engines: list[TailEngine] = []
        self.tilted_engines: list[TiltedTailEngine] = []

    # -- engines -------------------------------------------------------------------------------------

    def engine(self, accuracy: float) -> TailEngine:
        """An untilted engine with accuracy at least ``accuracy`` (Δ): reused when one within REUSE_SPAN exists."""
        # Δ is checked once, by TailEngine (Δ ∈ [1e-300, 1)); a non-number reuses nothing and is refused there
        number = isinstance(accuracy, (int, float)) and not isinstance(accuracy, bool)
        usable = [e for e in self.engines if number and accuracy / REUSE_SPAN <= e.accuracy <= accuracy]
        if usable:
            return max(usable, key=lambda e: e.accuracy)
        from .tails import TailEngine

        engine = TailEngine(self.lattice, accuracy, paths=self.paths, max_node_bits=self.max_node_bits, sieve=self._sieve)
        if engine.sieve is self._sieve:
            self._sieve = None  # handed on: the engine keeps it
        self.engines.append(engine)
        return engine

    def tilted_engine(self, smallest_index: int, j_tol: float, *, precise: bool = False) -> TiltedTailEngine:
        """A tilted-contour engine for thresholds ≥ ``smallest_index`` (kept in ``tilted_engines``); ``precise``:
        its J summed in arb."""
        from .tilted import TiltedTailEngine

        engine = TiltedTailEngine(self.lattice, smallest_index=smallest_index, j_tol=j_tol, precise=precise)
        self.tilted_engines.append(engine)
        return engine

    def is_deep(self, index: int) -> bool:
        """Whether P(S_L ≥ index) goes to the tilted contour under these paths."""
        if not self.paths.tilted:
            return False
        from .tilted import is_deep

        return is_deep(self.lattice, index, self.paths.deep_from)

    def relative_reach(self) -> int | None:
        """The largest lattice index whose upper tail is computed to a relative accuracy: the tilted contour's reach,
        ⌊DEEP_UP_TO·√V⌋ (:data:`accountlib.engine.tilted.DEEP_UP_TO`); beyond it an engine returns 0 with its
        rigorous sub-Gaussian upper bound. None when the tilted contour does not apply (a σ² below 1/2, or paths
        without it): then the untilted engine alone decides, down to its floor Δ = 1e-300."""
        from .characteristic import SMALLEST_SIGMA2
        from .tilted import DEEP_UP_TO

        if not self.paths.tilted or any(s2 < SMALLEST_SIGMA2 for (s2, _), _ in self.lattice.groups):
            return None
        return math.floor(DEEP_UP_TO * math.sqrt(float(self.lattice.variance_proxy)))

    # -- requests ------------------------------------------------------------------------------------

    def absolute(self, indices, abs_tol: float) -> list[TailResult]:
        """P(S_L ≥ j) for each lattice index j, each with error_bound ≤ ``abs_tol``."""
        return self.engine(abs_tol).tail_indices(indices)

    def relative(self, indices, rel_tol: float, *, floor: float = SMALLEST_ACCURACY) -> list[TailResult]:
        """P(S_L ≥ j) for each j, each with error_bound ≤ ``rel_tol``·value where reachable above ``floor``.

        Deep upper tails go to the tilted contour first (when the paths allow it; J accuracy tightened, in float64
        and then in arb, by :func:`~accountlib.engine.tilted.tilted_tail_probabilities`); the rest start from an engine at
        Δ = :data:`START_ACCURACY` and are recomputed with Δ ≈ rel_tol·value/2 (:func:`next_accuracy`) until met.
        """
        indices = [int(j) for j in indices]
        done: dict[int, TailResult] = {}
        deep = sorted({j for j in indices if self.is_deep(j)})
        if deep:
            from .tilted import tilted_tail_probabilities

            for j, r in zip(deep, tilted_tail_probabilities(self.lattice, deep, rel_tol=rel_tol,
                                                                  built=self.tilted_engines)):
                if r.error_bound <= rel_tol * r.value:
                    done[j] = r
        accuracy = START_ACCURACY
        while True:
            todo = [j for j in indices if j not in done]
            if not todo:
                return [done[j] for j in indices]
            engine = self.engine(accuracy)
            results = dict(zip(todo, engine.tail_indices(todo)))
            unmet = [r for r in results.values() if r.error_bound > rel_tol * r.value]
            if not unmet or engine.accuracy <= floor:
                return [done.get(j) or results[j] for j in indices]
            smallest = min(float(r.value) for r in unmet)
            needed = max(min(rel_tol * smallest / 2, 0.5), floor) if smallest > 0 else engine.accuracy * 1e-30
            accuracy = next_accuracy(engine.accuracy, needed, floor)

    def relative_combined(self, requests, combine, rel_tol: float, *, gains, best_effort: bool = False) -> list:
        """Combined quantities certified to ``rel_tol``: the schedule of Composition.delta.

        ``requests[i]`` is a tuple of lattice indices; ``combine(digits, i, tails)`` turns their tail results into a
        ``(point, value, error_bound)`` at ``digits`` decimal digits (e.g. δ = P(S_L ≥ j₁) − e^ε P(S_L ≥ j₂)).
        ``gains[i]`` says how an absolute Δ on each tail enters the bound of request i (1 + e^ε for δ).

        Requests whose first index is deep go to the tilted contour first (J accuracies :data:`TILT_TOLERANCES` in
        float64, then up to :data:`PRECISE_TILT_ROUNDS` sums in arb where float64 falls short); the rest start from an engine at :data:`START_ACCURACY` (:data:`COARSE_START_ACCURACY` for a batch of at
        least :data:`COARSE_START_BATCH` requests) and are recomputed with
        Δ ≈ rel_tol·lower/(2·gain) (``_needed_accuracy``, :func:`next_accuracy`) until met or at the floor.
        A request the contour could not meet keeps its narrowest certified bound from either path (the caller
        flags it); one whose certified lower bound needs Δ below the untilted floor 1e-300 is not sent to the
        untilted engines at all (they could only return 0 with a wider bound). With ``best_effort`` a request the
        untilted engines would be refused on keeps the tilted contour's narrowest bound too (the caller flags it),
        where the contour reached one; without it, such a request is refused, at once where estimates show it
        (:func:`accountlib.engine.reach.refuse_out_of_reach`).
        """
        requests = [tuple(int(j) for j in r) for r in requests]
        points: dict[int, object] = {}
        narrowest: dict[int, tuple] = {}  # request → (point, bound): the tilted contour's narrowest unmet bound
        out_of_reach: dict[int, bool] = {}
        shortfall: dict[int, float] = {}  # request → rel_tol·value/bound of its last tilted round (< 1: unmet)
        deep = [i for i, r in enumerate(requests) if self.is_deep(r[0])]
        start = COARSE_START_ACCURACY if len(requests) >= COARSE_START_BATCH else START_ACCURACY
        from .reach import refuse_out_of_reach, untilted_refusal

        if self.paths.method == "sieve" and not any(start / REUSE_SPAN <= e.accuracy <= start for e in self.engines):
            refuse_out_of_reach(self.lattice, self.max_node_bits, requests, deep, combine, rel_tol, start,
                                TILT_TOLERANCES[0], best_effort)  # before any sieve: seconds, not gigabytes
        j_tol, precise = None, False
        built = len(self.tilted_engines)  # the tilted engines of this call are those built from here on
        for round_ in range(len(TILT_TOLERANCES) + PRECISE_TILT_ROUNDS):
            todo = [i for i in deep if i not in points]
            if not todo:
                break
            if round_ < len(TILT_TOLERANCES):
                kept = sum(int(e.nodes.size) for e in self.tilted_engines[built:])
                if round_ and kept + int(self.tilted_engines[-1].nodes.size) > resource_limit(
                        "ACCOUNTLIB_MAX_TILTED_NODES", MAX_TILTED_NODES):
                    continue  # the next round keeps at least the last one's nodes: beyond this call's budget
                j_tol = TILT_TOLERANCES[round_]
            else:  # the float64 floor: the arb sum, at the J accuracy the widest miss asks for (its terms scale with it)
                from .tilted import MAX_PRECISE_NODE_TERMS, SMALLEST_PRECISE_J_TOL, precise_work

                if precise and j_tol <= SMALLEST_PRECISE_J_TOL:
                    break
                # its work estimated before its sieve: a finer J accuracy keeps at least the nodes the last round kept
                kept = self.tilted_engines[-1].nodes.size if len(self.tilted_engines) > built else 0
                if precise_work(kept, len(self.lattice.groups), sum(len(requests[i]) for i in todo)) > resource_limit(
                        "ACCOUNTLIB_MAX_PRECISE_NODE_TERMS", MAX_PRECISE_NODE_TERMS):
                    break  # the arb sum would be refused after its sieve (seconds, gigabytes): the untilted engines
                j_tol = max(min(j_tol * min(shortfall[i] for i in todo) / 8, j_tol / 100 if precise else j_tol),
                            SMALLEST_PRECISE_J_TOL)
                precise = True
            engine = self.tilted_engine(min(requests[i][0] for i in todo), j_tol, precise=precise)
            try:
                tails = engine.tail_indices([j for i in todo for j in requests[i]])
            except ResourceLimitError:  # the arb sum would take too long: the untilted engines take these levels
                break
            k = 0
            for i in todo:
                n = len(requests[i])
                point, value, bound = combine(60, i, tails[k:k + n])
                k += n
                shortfall[i] = float(rel_tol * value / bound) if value > bound else 1e-10
                if bound <= rel_tol * value:
                    points[i] = point
                elif i not in narrowest or bound < narrowest[i][1]:
                    narrowest[i] = (point, bound)
                    # its certified lower bound says whether an untilted engine (Δ ≥ 1e-300) could meet rel_tol
                    out_of_reach[i] = bool(value > bound and (value - bound) * rel_tol / (2 * gains[i]) < SMALLEST_ACCURACY)
        for i, (point, _) in narrowest.items():  # best effort: the tilted contour's narrowest bound, unless bettered
            if i not in points and out_of_reach[i]:
                points[i] = point
        accuracy = start
        todo = [i for i in range(len(requests)) if i not in points]
        while todo:
            try:
                engine = self.engine(accuracy)
            except ResourceLimitError as error:  # said in the caller's terms: rel_tol, and whether loosening it helps
                if best_effort and all(i in narrowest for i in todo):
                    points.update((i, narrowest[i][0]) for i in todo)  # the contour's narrowest bound, flagged
                    break
                reached = max((float(narrowest[i][1] / max(narrowest[i][0].delta, 1e-300)) for i in todo
                               if i in narrowest), default=None)
                raise ResourceLimitError(untilted_refusal(self.lattice, error, accuracy, start, rel_tol, reached)) from None
            tails = engine.tail_indices([j for i in todo for j in requests[i]])
            digits = int(engine.bits * 0.30103) + 10
            needed = {}
            k = 0
            for i in todo:
                n = len(requests[i])
                point, value, bound = combine(digits, i, tails[k:k + n])
                k += n
                met = bound <= rel_tol * value
                if not met and i in narrowest:  # an unmet bound never replaces a narrower one
                    if bound < narrowest[i][1]:
                        narrowest[i] = (point, bound)
                    point = narrowest[i][0]
                points[i] = point
                if not met:
                    needed[i] = _needed_accuracy(value, bound, rel_tol, gains[i], accuracy)
            if not needed or engine.accuracy <= SMALLEST_ACCURACY:
                break
            todo = sorted(needed)
            loosest = max(needed.values())
            accuracy = next_accuracy(engine.accuracy, min(v for v in needed.values() if v >= loosest * REFINEMENT_BAND))
        return [points[i] for i in range(len(requests))]

    def absolute_batch(self, evaluate, count: int, abs_tol: float) -> list:
        """``count`` quantities certified to ``abs_tol``: the schedule of Composition.tradeoff.

        ``evaluate(engine, todo)`` gives the points for the positions ``todo`` from one untilted engine, each with an
        ``error_bound``. The first engine is built for Δ = abs_tol/:data:`ABSOLUTE_SHARE` (reused when one this
        accurate exists); missed points are recomputed on a finer engine (:func:`next_accuracy`).
        """
        points: list = [None] * count
        todo, accuracy = list(range(count)), abs_tol / ABSOLUTE_SHARE
        while todo:
            engine = self.engine(accuracy)
            for i, point in zip(todo, evaluate(engine, todo)):
                points[i] = point
            missed = [i for i in todo if not points[i].error_bound <= abs_tol]
            if not missed or engine.accuracy <= SMALLEST_ACCURACY:
                break
            worst = max(points[i].error_bound for i in missed)
            accuracy = next_accuracy(engine.accuracy, engine.accuracy * float(abs_tol / worst / ABSOLUTE_SHARE))
            todo = missed
        return points

    def absolute_engine(self, abs_tol: float) -> TailEngine:
        """The untilted engine that serves combined quantities to ``abs_tol`` (Δ = abs_tol/:data:`ABSOLUTE_SHARE`)."""
        return self.engine(abs_tol / ABSOLUTE_SHARE)


# -- the smoothed engine's door: δ(ε) of a composition whose lattice no sieve can scan -------------------------------

SMOOTHING_START = 0.02
"""The first smoothing η (capped at 0.4/ρ, where the smoothed bracket's constants hold): a coarse pass that gives the
size of δ and of G, from which the next η is chosen for the accuracy asked."""

SMOOTHING_PASSES = 8
"""The most smoothings tried for one δ(ε) before the narrowest certified bound reached is returned."""

MAX_SMOOTHED_WORK = 35_000_000
"""The most contour nodes one δ(ε) of the smoothed engine scans over all its passes together (each pass also at
most the node cap, :data:`accountlib.engine.smoothed.MAX_SMOOTHED_NODES`, 3e7): about 10 s of one core of the book's
two-core machine for a single distinct budget, at about 3e-7 s per node scanned (budget 1: a pass of 1.38e7 nodes
in 4.0 s; budgets 2.5 and 0.05: 1.47e6 in 0.39 s), less where the sieve drops most nodes (the redistricting paths,
27 to 38 distinct terms: 2.86e7 in 2.8 to 3.2 s). Each pass's node count is known before its sum
(:class:`~accountlib.engine.smoothed.TooManyNodes`), so a pass that would pass what is left is never started: the
result is then the narrowest bound within the budget, flagged ``capped`` (shortfall ``node cap``). Half a node cap
above the cap, so that a finest pass at the full cap still follows a few coarse passes (the redistricting paths'
δ at rel_tol = 1e-12: 570 nodes, then 2.86e7). Without it the passes of one δ added up (budget 1 at ε = 10,
rel_tol = 1e-9: 1.38e7, then 2.75e7 nodes, 12 s, before the cap stopped the next). Raise it with
``ACCOUNTLIB_MAX_SMOOTHED_WORK``."""


class SmoothedTails:
    """Certified δ(ε) of the composition with privacy loss ρ(1 + S), S = Σ a_g X_g, by the smoothed engine
    (:class:`~accountlib.engine.smoothed.SmoothedProfile`), for budgets whose lattice no sieve can scan: this door owns
    the accuracy schedule — which smoothing η each evaluation uses, and what a node cap or a degenerate contour
    leaves as the answer — as :class:`CertifiedTails` owns the lattice engines'.

    Parameters
    ----------
    groups, rho, max_nodes : as for :class:`~accountlib.engine.smoothed.SmoothedProfile` (the engine built here).

    >>> from fractions import Fraction as F
    >>> rhos = [F(1, 3), F(2, 7)]                      # ρ' = (1/3 + 2/7)/2
    >>> rho = sum(rhos) / 2
    >>> d = SmoothedTails([((1 / r, r / rho), 1) for r in rhos], rho).delta(F(1), rel_tol=1e-6)
    >>> 0 < d.delta < 1 and d.error_bound <= 1e-6 * d.delta
    True
    """

    def __init__(self, groups, rho, *, max_nodes: int | None = None):
        from .smoothed import SmoothedProfile

        self.engine = SmoothedProfile(groups, rho, max_nodes=max_nodes)
        # (ε, node cap) → the result at the finest η that cap allows: computed once, its cost counted at every use,
        # so that what a call spends and returns does not depend on the calls before it
        self._finest: dict = {}

    def planned_nodes(self, epsilon, *, rel_tol: float = 1e-6, abs_tol: float = 0.0) -> int:
        """The cost estimate of :meth:`delta`: the contour nodes of its second pass (the η chosen for ``rel_tol``
        and ``abs_tol`` from a first, coarse pass of a few hundred nodes), found before that pass's sum; 0 when the first pass
        settles δ or no contour applies. Each later pass (at most :data:`SMOOTHING_PASSES`) follows a missed
        one, and the node cap bounds every pass."""
        from .smoothed import DegenerateContour, TooManyNodes

        engine = self.engine
        epsilon = Fraction(epsilon)
        s0, tau, prefactor, lp_rad = engine.start(epsilon)
        with mpmath.workdps(40):
            b = float(engine.rho)
            eta_max = 0.4 / b
            eta = min(eta_max, SMOOTHING_START)
            try:
                first = engine.evaluate(epsilon, s0, tau, prefactor, lp_rad, eta, prefactor * 1e-3 / 4, b)
                lower = first.delta - first.error_bound
                estimate = lower if lower > 0 else first.delta / 2
                if not estimate > 0:
                    return 0
                g = max(first.terms["G"], estimate * mpmath.mpf(10) ** -30)
                allowed = max(rel_tol * estimate, abs_tol)  # the error the tolerance allows at this δ
                cap1 = mpmath.sqrt(allowed * eta * math.sqrt(2 * math.pi) / (2 * b * g))
                cap2 = mpmath.sqrt(allowed / (b * b * prefactor))
                eta = float(min(0.7 * min(cap1, cap2), eta, eta_max))
                engine.evaluate(epsilon, s0, tau, prefactor, lp_rad, eta, allowed / 4, b, node_limit=0)
            except TooManyNodes as planned:
                return planned.nodes
            except (DegenerateContour, OverflowError, ZeroDivisionError, FloatingPointError):
                return 0
        return 0

    def delta(self, epsilon, *, rel_tol: float = 1e-6, abs_tol: float = 0.0, best_effort: bool = True,
              work_limit: int | None = None, cost_limit: int | None = None, price=None):
        """δ(ε) with error_bound ≤ max(rel_tol·δ, abs_tol), or the narrowest certified bound the node cap allows (then
        ``terms["capped"]`` is True). With ``best_effort=False`` and no ``cost_limit`` (with one, see below) a pass that
        would exceed the node cap ends the work at once: the bound reached so far is returned, capped (what a caller that refuses an unmet tolerance
        needs, in a second rather than the cap's half-minute). Where float64 cannot carry the contour's scales (δ far below 1e-280 of the
        Chernoff bound, a huge tilt) the answer is the certified bracket [0, M(τ)e^{−τs₀}]
        (``terms["chernoff_only"]``). A :class:`~accountlib.engine.smoothed.SmoothedDelta`.

        The schedule: a first pass at η = :data:`SMOOTHING_START` gives the size of δ and of G; each next η is the
        largest whose smoothing error (O(ρη·G), O(ρ²η²·M(τ)e^{−τs₀})) fits rel_tol·δ, halved when a pass missed;
        the certified intervals of the passes are intersected. ``abs_tol`` (default 0: relative only) is for a caller
        that needs δ's absolute error only (the smoothed trade-off, whose β moves by δ's error): the accuracy, and so
        the work, then follows δ's size, never finer than the absolute error asked for.

        ``work_limit``: the most contour nodes all the passes together may scan (default :data:`MAX_SMOOTHED_WORK`,
        ``ACCOUNTLIB_MAX_SMOOTHED_WORK``); a pass that would pass what is left is not started, and the result is
        flagged as by the node cap, with ``terms["over_budget"]`` True. ``terms["work"]`` is the nodes scanned.
        ``cost_limit``: the most work units (:data:`~accountlib.engine.work.KEPT_NODE_WEIGHT`) the passes may cost, what a caller's
        :class:`~accountlib.engine.work.WorkMeter` has left (default: none); a pass is priced before its sum at its node count times the
        share of kept nodes of the previous pass of this δ (:func:`~accountlib.engine.work.cost_per_node`; before any, ``price``: the
        caller's last δ's, its ``terms["price"]``, passed on by the caller's meter so that no state outlives a call; else every
        node kept), and one that would pass what is left is not started: ``terms["over_cost"]`` True (``"starved"``
        where the cost limit held back the capped pass that follows), ``terms["needed"]`` its price, and the finest
        pass within what is left follows (with ``best_effort``, or without it where a ``cost_limit`` bounds that pass: a
        caller that refuses an unmet tolerance then refuses only what its budget could not meet); ``terms["cost"]``:
        the units spent."""
        from .smoothed import DegenerateContour, TooManyNodes, intersect

        engine = self.engine
        epsilon = Fraction(epsilon)
        budget = resource_limit("ACCOUNTLIB_MAX_SMOOTHED_WORK", MAX_SMOOTHED_WORK) if work_limit is None else int(work_limit)
        groups = len(engine.groups)
        spent, cost = 0, 0
        per_node = price or 2.0 + KEPT_NODE_WEIGHT * groups  # the caller's last price; else the dearest: no history here
        s0, tau, prefactor, lp_rad = engine.start(epsilon)  # A ≤ prefactor and δ ≤ prefactor (k ≤ 1{x > 0} ≤ e^{τx})
        with mpmath.workdps(40):
            b = float(engine.rho)
            eta_max = 0.4 / b  # c = ρη ≤ 0.4: the bracket's constants assume c ≤ 1/2
            eta = min(eta_max, SMOOTHING_START)
            estimate = None
            best = None
            for _ in range(SMOOTHING_PASSES):
                target = max(rel_tol * estimate, abs_tol) if estimate is not None else prefactor * 1e-3
                left = own = max(budget - spent, 0)
                if cost_limit is not None:
                    left = min(left, int(max(int(cost_limit) - cost, 0) / per_node))
                try:
                    result = engine.evaluate(epsilon, s0, tau, prefactor, lp_rad, eta, target / 4, b, node_limit=left)
                except TooManyNodes as too_fine:
                    over = too_fine.nodes <= engine.max_nodes  # stopped by this call's work budget, not the cap
                    flags = {"over_budget": over, "needed": int(too_fine.nodes * per_node), "price": per_node,
                             "over_cost": over and cost_limit is not None and too_fine.nodes <= own,
                             "starved": left < min(too_fine.nodes, engine.max_nodes, own)}  # the cost held it back
                    if not best_effort and cost_limit is None:  # unmetered: the cap's pass could take ~10 s
                        stop = best if best is not None else engine.chernoff_only(epsilon, prefactor, lp_rad)
                        return self._capped(stop, spent, cost, flags)
                    cap = min(left, engine.max_nodes)
                    finest = self._finest_result(epsilon, s0, tau, prefactor, lp_rad, eta, eta_max, target / 4, b,
                                                 too_fine.nodes, cap)
                    spent += int(finest.terms.get("scanned", 0))  # reused or not: the same call, the same count
                    cost += work_units(finest.terms.get("scanned", 0), finest.terms.get("nodes", 0), groups)
                    return self._capped(intersect(best, finest), spent, cost, flags)
                except (DegenerateContour, OverflowError, ZeroDivisionError, FloatingPointError):
                    return best if best is not None else engine.chernoff_only(epsilon, prefactor, lp_rad)
                spent += int(result.terms["scanned"])
                cost += work_units(result.terms["scanned"], result.terms["nodes"], groups)
                if result.terms["scanned"] > 0:
                    per_node = cost_per_node(result.terms, groups)
                best = intersect(best, result)
                best = type(best)(best.epsilon, best.delta, best.error_bound, {**best.terms, "work": spent, "cost": cost, "price": per_node})
                if estimate is not None and best.error_bound <= max(rel_tol * best.delta, abs_tol):
                    return best
                lower = best.delta - best.error_bound
                fresh = lower if lower > 0 else best.delta / 2
                if fresh <= 0:
                    fresh = prefactor * mpmath.mpf(10) ** -30
                failed = estimate is not None
                estimate = min(fresh, estimate) if failed else fresh
                # the next η from this pass's G and the Chernoff bound, in mpf (δ may be far below 1e-308)
                g = max(result.terms["G"], estimate * mpmath.mpf(10) ** -30)
                allowed = max(rel_tol * estimate, abs_tol)
                cap1 = mpmath.sqrt(allowed * eta * math.sqrt(2 * math.pi) / (2 * b * g))
                cap2 = mpmath.sqrt(allowed / (b * b * prefactor))
                eta = float(min(0.7 * min(cap1, cap2), eta / 2 if failed else eta, eta_max))
                if not eta > 1e-15:
                    return best
            return best

    @staticmethod
    def _capped(result, spent: int, cost: int, flags: dict):
        """``result`` marked as stopped by the node cap (``flags``: ``over_budget``, by the call's work budget;
        ``over_cost``, by its cost limit; ``needed``, the price of the pass not started), with the nodes ``spent``
        and the work units ``cost``."""
        from .smoothed import SmoothedDelta

        return SmoothedDelta(result.epsilon, result.delta, result.error_bound,
                             {**result.terms, "capped": True, **flags, "work": spent, "cost": cost})

    def _finest_result(self, epsilon, s0, tau, prefactor, lp_rad, eta, eta_max, budget, b, nodes, cap):
        """The result at the smallest η whose node count fits ``cap`` (nodes ∝ 1/η; η ≤ ``eta_max``), remembered
        per ε and cap; the Chernoff bracket when even ``eta_max`` needs more nodes."""
        from .smoothed import DegenerateContour, SmoothedDelta, TooManyNodes

        if (epsilon, cap) in self._finest:
            return self._finest[epsilon, cap]
        engine = self.engine
        result = None
        for _ in range(20):
            eta = min(eta * nodes / max(cap, 1) * 1.05, eta_max)
            try:
                result = engine.evaluate(epsilon, s0, tau, prefactor, lp_rad, eta, budget, b, node_limit=cap)
                break
            except TooManyNodes as too_fine:
                if eta >= eta_max:
                    break
                nodes = too_fine.nodes
            except (DegenerateContour, OverflowError, ZeroDivisionError, FloatingPointError):
                break
        if result is None:
            result = engine.chernoff_only(epsilon, prefactor, lp_rad)
        result = SmoothedDelta(result.epsilon, result.delta, result.error_bound, {**result.terms, "capped": True})
        self._finest[epsilon, cap] = result
        return result


def _needed_accuracy(value, bound, rel_tol: float, gain: float, current: float) -> float:
    """The absolute Δ that meets ``rel_tol`` on a combined value whose bound is ``gain``·Δ: where relative becomes
    absolute. From the certified lower bound value − bound when positive, else from the value itself (an estimate:
    the next round checks it), else 1e-20 of the current Δ."""
    lower = value - bound
    estimate = float(lower) if lower > 0 else (float(value) if value > 0 else 0.0)
    return rel_tol * estimate / (2 * gain) if estimate > 0 else current * 1e-20


def tail_probabilities(mechanisms, thresholds, *, abs_tol: float | None = None, rel_tol: float | None = None,
                       paths: EvaluationPaths = DEFAULT_PATHS, min_accuracy: float = SMALLEST_ACCURACY) -> list[TailResult]:
    """P(Σ a_i X_i > t) for each t in ``thresholds``, certified.

    Give ``abs_tol`` (every error bound ≤ abs_tol, in [1e-60, 0.5]) or ``rel_tol`` (every error bound ≤
    rel_tol × value, in [1e-30, 0.5]; default 1e-6): the public boundary, validated here once. Thresholds are exact numbers (int, Fraction, decimal strings). See :class:`CertifiedTails`.

    >>> (r,) = tail_probabilities([(1, 1), (2, 1)], [1], rel_tol=1e-9)  # P(X1 + X2 > 1), X_i ~ N_Z(0, 1/ρ_i)
    >>> 0 < r.value < 0.5 and r.error_bound <= 1e-9 * r.value
    True
    """
    if isinstance(thresholds, (str, bytes)) or not hasattr(thresholds, "__iter__"):
        raise ValueError(f"thresholds must be a list of numbers; got {thresholds!r}")
    ts = [as_fraction(t, "thresholds", floats="decimal") for t in thresholds]
    if abs_tol is not None and rel_tol is not None:
        raise ValueError("give abs_tol or rel_tol, not both")
    min_accuracy = as_tolerance(min_accuracy, "min_accuracy", smallest=SMALLEST_ACCURACY, largest=0.5)
    if abs_tol is not None:
        abs_tol = as_abs_tol(abs_tol)
    else:
        rel_tol = 1e-6 if rel_tol is None else as_rel_tol(rel_tol)
    tails = CertifiedTails(mechanisms, paths=paths)
    indices = [threshold_index(t, tails.lattice.scale) for t in ts]
    if abs_tol is not None:
        return tails.absolute(indices, abs_tol)
    return tails.relative(indices, rel_tol, floor=min_accuracy)


def tail_probability(mechanisms, t, *, abs_tol: float | None = None, rel_tol: float | None = None,
                     paths: EvaluationPaths = DEFAULT_PATHS) -> TailResult:
    """P(Σ a_i X_i > t), certified; see :func:`tail_probabilities`.

    >>> r = tail_probability([(1, 1), (1, 1)], 0, abs_tol=1e-20)  # P(X1 + X2 > 0) = (1 − P(S=0))/2
    >>> float(r.value) < 0.5 and r.error_bound <= 1e-20
    True
    >>> sorted(r.budget.terms)
    ['aliasing', 'double_double', 'float_path', 'rounding', 'sieve', 'truncation']
    """
    return tail_probabilities(mechanisms, [t], abs_tol=abs_tol, rel_tol=rel_tol, paths=paths)[0]


def __getattr__(name: str):
    """The lattice engines' names this module re-exports (``TailEngine``, ``MAX_NODE_BITS``), imported on first use."""
    if name in ("TailEngine", "MAX_NODE_BITS"):
        from . import tails

        return getattr(tails, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
