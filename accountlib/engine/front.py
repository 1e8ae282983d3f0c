"""The front door to the engine: certified tail probabilities to the accuracy asked for.

Engine layer of :mod:`accountlib`, above the two evaluators. Every certified tail in the library — the census
pairs of :class:`accountlib.theory.profiles.ShiftPair` and any lattice given as ``(rho, weight)`` pairs — goes
through :class:`CertifiedTails`, which decides

* which absolute accuracy Δ an untilted :class:`~accountlib.engine.tails.TailEngine` is built for, and when an
  engine already built can serve a request (:data:`REUSE_SPAN`);
* how Δ shrinks when a relative request is not met yet (:func:`next_accuracy`, one policy for every caller);
* whether a deep upper tail goes to the tilted contour (:mod:`accountlib.engine.tilted`), following the
  :class:`~accountlib.engine.results.EvaluationPaths` passed in.

Sieve paper §4 (the method) and the book's chapters 3–4 (why each choice is safe). Accuracy is called
``accuracy`` (Δ) throughout; ``delta`` is the privacy δ of (ε, δ)-DP and is never used for Δ.
"""

from __future__ import annotations

from ..infrastructure.numbers import as_fraction, as_tolerance
from .lattice import Lattice, lattice_of, threshold_index
from .results import DEFAULT_PATHS, SMALLEST_ACCURACY, EvaluationPaths, TailResult, check_lattice_size
from .tails import MAX_NODE_BITS, TailEngine  # noqa: F401  (re-exported: accountlib.engine.front names this module)
from .tilted import TiltedTailEngine, is_deep, tilted_tail_probabilities

__all__ = ["CertifiedTails", "tail_probabilities", "tail_probability", "next_accuracy", "START_ACCURACY",
           "REBUILD_FACTOR", "REUSE_SPAN", "SMALLEST_RELATIVE_TOLERANCE_FOR_TILTING", "TailEngine", "TailResult",
           "EvaluationPaths", "MAX_NODE_BITS"]

START_ACCURACY = 1e-30
"""The Δ a relative request starts from when the caller gives no better guess."""

REBUILD_FACTOR = 1e-2
"""A rebuilt engine is at least this much more accurate than the one before (so every round makes progress)."""

REUSE_SPAN = 1e6
"""An engine built for Δ' serves a request for Δ when Δ/REUSE_SPAN ≤ Δ' ≤ Δ: a far finer engine keeps many
more nodes and digits, so building a coarser one is cheaper than reusing it."""

SMALLEST_RELATIVE_TOLERANCE_FOR_TILTING = 1e-12
"""Below this relative tolerance the tilted contour's float64 sum cannot deliver; the untilted engine does."""


def next_accuracy(current: float, needed: float, floor: float = SMALLEST_ACCURACY) -> float:
    """The Δ of the next engine when one built for ``current`` did not meet a request that needs ``needed``.

    max(min(needed, REBUILD_FACTOR·current), floor): at least a factor 1/REBUILD_FACTOR finer, never finer than
    ``floor``. The one rebuild policy of the library (tails, ShiftPair.delta, ShiftPair.tradeoff).
    """
    return max(min(needed, current * REBUILD_FACTOR), floor)


class CertifiedTails:
    """Certified P(S_L ≥ j) for one lattice sum S_L, to any absolute or relative accuracy.

    Parameters
    ----------
    mechanisms : ``(rho, weight)`` pairs (:mod:`accountlib.engine.lattice`) or a :class:`Lattice`.
    paths : the evaluation paths allowed (:class:`~accountlib.engine.results.EvaluationPaths`); tests and
        benchmarks choose a path here, by argument.
    max_node_bits : the largest arb workload one engine may take (default
        :data:`accountlib.engine.tails.MAX_NODE_BITS`).

    Engines are built on demand and kept: ``engines`` (untilted) and ``tilted_engines`` list them for reports.
    """

    def __init__(self, mechanisms, *, paths: EvaluationPaths = DEFAULT_PATHS, max_node_bits: int | None = None):
        if not isinstance(paths, EvaluationPaths):
            raise ValueError(f"paths must be an EvaluationPaths (accountlib.engine.results); got {paths!r}")
        self.lattice: Lattice = mechanisms if isinstance(mechanisms, Lattice) else lattice_of(mechanisms)
        check_lattice_size(self.lattice)
        self.paths = paths
        self.max_node_bits = max_node_bits
        self.engines: list[TailEngine] = []
        self.tilted_engines: list[TiltedTailEngine] = []

    # -- engines -------------------------------------------------------------------------------------

    def engine(self, accuracy: float) -> TailEngine:
        """An untilted engine with accuracy at least ``accuracy`` (Δ): reused when one within REUSE_SPAN exists."""
        accuracy = as_tolerance(accuracy, "accuracy", smallest=SMALLEST_ACCURACY, largest=0.5)
        usable = [e for e in self.engines if accuracy / REUSE_SPAN <= e.accuracy <= accuracy]
        if usable:
            return max(usable, key=lambda e: e.accuracy)
        engine = TailEngine(self.lattice, accuracy, paths=self.paths, max_node_bits=self.max_node_bits)
        self.engines.append(engine)
        return engine

    def tilted_engine(self, smallest_index: int, j_tol: float) -> TiltedTailEngine:
        """A tilted-contour engine for thresholds ≥ ``smallest_index`` (kept in ``tilted_engines``)."""
        engine = TiltedTailEngine(self.lattice, smallest_index=smallest_index, j_tol=j_tol)
        self.tilted_engines.append(engine)
        return engine

    def is_deep(self, index: int) -> bool:
        """Whether P(S_L ≥ index) goes to the tilted contour under these paths."""
        return self.paths.tilted and is_deep(self.lattice, index, self.paths.deep_from)

    # -- requests ------------------------------------------------------------------------------------

    def absolute(self, indices, abs_tol: float) -> list[TailResult]:
        """P(S_L ≥ j) for each lattice index j, each with error_bound ≤ ``abs_tol``."""
        return self.engine(abs_tol).tail_indices(indices)

    def relative(self, indices, rel_tol: float, *, start: float = START_ACCURACY,
                 floor: float = SMALLEST_ACCURACY) -> list[TailResult]:
        """P(S_L ≥ j) for each j, each with error_bound ≤ ``rel_tol``·value where reachable above ``floor``.

        Deep upper tails go to the tilted contour first (when the paths allow it); the rest start from an
        engine at Δ = ``start`` and are recomputed with Δ ≈ rel_tol·value/2 (:func:`next_accuracy`) until met.
        """
        indices = [int(j) for j in indices]
        done: dict[int, TailResult] = {}
        deep = sorted({j for j in indices if self.is_deep(j)}) if rel_tol >= SMALLEST_RELATIVE_TOLERANCE_FOR_TILTING else []
        if deep:
            for j, r in zip(deep, tilted_tail_probabilities(self.lattice, deep, rel_tol=rel_tol)):
                if r.error_bound <= rel_tol * r.value:
                    done[j] = r
        accuracy = start
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


def tail_probabilities(mechanisms, thresholds, *, abs_tol: float | None = None, rel_tol: float | None = None,
                       paths: EvaluationPaths = DEFAULT_PATHS, min_accuracy: float = SMALLEST_ACCURACY) -> list[TailResult]:
    """P(Σ a_i X_i > t) for each t in ``thresholds``, certified.

    Give ``abs_tol`` (every error bound ≤ abs_tol) or ``rel_tol`` (every error bound ≤ rel_tol × value;
    default 1e-6). Thresholds are exact numbers (int, Fraction, decimal strings). See :class:`CertifiedTails`.
    """
    if isinstance(thresholds, (str, bytes)) or not hasattr(thresholds, "__iter__"):
        raise ValueError(f"thresholds must be a list of numbers; got {thresholds!r}")
    ts = [as_fraction(t, "thresholds") for t in thresholds]
    if abs_tol is not None and rel_tol is not None:
        raise ValueError("give abs_tol or rel_tol, not both")
    min_accuracy = as_tolerance(min_accuracy, "min_accuracy", smallest=SMALLEST_ACCURACY, largest=0.5)
    tails = CertifiedTails(mechanisms, paths=paths)
    indices = [threshold_index(t, tails.lattice.scale) for t in ts]
    if abs_tol is not None:
        abs_tol = as_tolerance(abs_tol, "abs_tol", smallest=SMALLEST_ACCURACY, largest=0.5)
        return tails.absolute(indices, abs_tol)
    rel_tol = 1e-6 if rel_tol is None else as_tolerance(rel_tol, "rel_tol", smallest=1e-30, largest=0.5)
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
