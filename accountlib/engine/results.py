"""What the engine returns and how it may compute it: certified results, their error budgets, the evaluation paths.

(The rule that prints a certified number — :func:`~accountlib.infrastructure.numbers.certified_digits`,
:func:`~accountlib.infrastructure.numbers.rounded_up`, :func:`~accountlib.infrastructure.numbers.below` — is the
library's one number policy, :mod:`accountlib.infrastructure.numbers`; it is re-exported here for the chapters.)

Every tail probability the engine returns is a :class:`TailResult`: a value, a rigorous bound on its error, and
the :class:`ErrorBudget` that the bound is the sum of, term by term (sieve paper §4.1–4.3; the book's chapters
"The trapezoidal rule converges exponentially" and "The sieve" derive each term). Which evaluation paths the
engine may use is an :class:`EvaluationPaths` value passed as a named argument — never a module global — so a
test or a benchmark chooses a path by argument.

Accuracy names: the engine's absolute accuracy is called ``accuracy`` (Δ in the papers and the book); the
letter δ and the word ``delta`` are kept for the privacy parameter δ of (ε, δ)-DP.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import mpmath

from ..infrastructure.numbers import (ErrorBound, ResourceLimitError, below, certified_digits, error_bound,  # noqa: F401
                                     resource_limit, rounded_up)
from .lattice import Lattice

__all__ = ["TailResult", "ErrorBudget", "EvaluationPaths", "DEFAULT_PATHS", "PAPER_PATHS", "check_lattice_size",
           "SMALLEST_ACCURACY", "MAX_VARIANCE_PROXY", "MAX_DISTINCT_TERMS", "check_distinct_terms",
           "certified_digits", "rounded_up", "below"]  # the last three: the printing rule, re-exported from infrastructure

SMALLEST_ACCURACY = 1e-300
"""The finest absolute accuracy Δ an engine is built for (float64 keeps τ = Δ/(4(2U+1)) normal)."""

MAX_VARIANCE_PROXY = 10**30  # far beyond the node-count limit (which caps V near 1e21); keeps every float finite


MAX_DISTINCT_TERMS = 20_000
"""The most distinct (σ², c) terms one lattice sum may have (identical terms are merged, so a composition of a
million copies of a few budgets is one small product). The engine evaluates every factor at every kept node, so its
time grows as nodes × distinct terms: 20,000 distinct budgets take about 12 s for one engine on one core
(``python -m accountlib delta --budgets`` with i/1000003, i = 1..20000, at ε = 1). Raise it with the environment
variable ``ACCOUNTLIB_MAX_DISTINCT_TERMS``."""


def check_distinct_terms(count: int, name: str = "mechanisms") -> None:
    """Refuse a composition of more than :data:`MAX_DISTINCT_TERMS` distinct terms, naming ``name``, the count and
    the limit (one line), before anything is computed."""
    limit = resource_limit("ACCOUNTLIB_MAX_DISTINCT_TERMS", MAX_DISTINCT_TERMS)
    if count > limit:
        raise ResourceLimitError(
            f"{name} has {count:,} distinct terms (budget and weight or sensitivity); at most {limit:,} are accepted "
            f"(the engine's time grows with nodes x distinct terms): merge or round the budgets to fewer distinct "
            f"values, or raise ACCOUNTLIB_MAX_DISTINCT_TERMS")


def check_lattice_size(lattice: Lattice) -> None:
    """Refuse lattices whose variance proxy V = Σc_i²σ_i² no engine could handle (before any float overflows),
    and lattices of more than :data:`MAX_DISTINCT_TERMS` distinct terms."""
    check_distinct_terms(len(lattice.groups))
    if lattice.variance_proxy > MAX_VARIANCE_PROXY:
        raise ResourceLimitError(
            f"the lattice of these budgets is too fine (variance proxy V ≈ 1e{len(str(int(lattice.variance_proxy))) - 1}, "
            f"above the 1e30 the lattice engines take; lattice scale L with {len(str(lattice.scale.numerator))} digits): "
            f"give budgets with small denominators (e.g. '1/10', not a 53-bit binary fraction) and not far below "
            f"1e-12 (a budget rho is a noise variance 1/rho){_largest_term(lattice)}")


def _largest_term(lattice: Lattice) -> str:
    """The budget whose term c²σ² (c its lattice coefficient, σ² = 1/ρ) adds most to the variance proxy, said for a
    refusal: the one to change first."""
    (sigma2, c), _ = max(lattice.groups, key=lambda group: group[0][1] ** 2 * group[0][0])
    rho = 1 / sigma2
    return f"; the largest term is that of the budget {float(rho):.6g}" + ("" if rho == float(rho) else f" ({rho})")


@dataclass(frozen=True)
class EvaluationPaths:
    """The evaluation paths the engine may take; every path is certified, they differ in speed.

    Parameters
    ----------
    method : ``"sieve"`` (the analytic sieve with product pruning and the dual-form characteristic function where
        cheaper) or ``"paper"`` (the sieve paper's method re-implemented for the benchmarks: per-factor sieve by
        scanning all N/2 nodes, direct-sum characteristic function with 48σ²+1 terms, every node in arb).
    float_nodes : sum the nodes whose whole contribution is below Δ/16 in float64, adding their rigorous rounding
        bound (error term ``float_path``); needs every σ² ≥ 1/2. False: every surviving node in arb.
    double_double : evaluate each threshold's moving sum in double-double arithmetic when its certified error fits
        in Δ/64 (error term ``double_double``). False: the arb loop for every threshold.
    tilted : under a relative-accuracy request, compute upper tails at least ``deep_from``·√V deep on the
        exponentially tilted contour (:mod:`accountlib.engine.tilted`), which reaches relative accuracy without
        shrinking Δ. False: the untilted engine only.
    deep_from : where the deep upper tail starts, in units of √V (V the variance proxy of the lattice sum).
    """

    method: str = "sieve"
    float_nodes: bool = True
    double_double: bool = True
    tilted: bool = True
    deep_from: float = 3.0

    def __post_init__(self):
        if self.method not in ("sieve", "paper"):
            raise ValueError(f"paths.method must be 'sieve' or 'paper'; got {self.method!r}")
        for name in ("float_nodes", "double_double", "tilted"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"paths.{name} must be True or False; got {getattr(self, name)!r}")
        if isinstance(self.deep_from, bool) or not isinstance(self.deep_from, (int, float)) or not self.deep_from > 0:
            raise ValueError(f"paths.deep_from must be a positive number (multiples of √V); got {self.deep_from!r}")


DEFAULT_PATHS = EvaluationPaths()
PAPER_PATHS = EvaluationPaths(method="paper", float_nodes=False, double_double=False, tilted=False)


@dataclass(frozen=True)
class ErrorBudget:
    """The terms of a certified error bound, each ≥ 0 (mpf numbers: they cannot underflow).

    Untilted engine (sieve paper §4; the book's chapters "The trapezoidal rule converges exponentially" and
    "The sieve"), for P(S_L ≥ lo) with truncation point U:

    * ``truncation`` — the mass beyond U that the Dirichlet kernel omits, P(S_L > U) ≤ e^{−U²/2V};
    * ``aliasing`` — the images of the N-point sum, at most 2e^{−U²/2V} with N ≥ 2U + 2;
    * ``sieve`` — the dropped nodes, each |φ_S| ≤ τ, in total at most τ(U − lo + 1);
    * ``float_path`` — the rounding of the float64 nodes' sum (0 when ``paths.float_nodes`` is off);
    * ``double_double`` — the certified error of the double-double moving sum (0 when the arb loop was used);
      it is carried inside the arb ball, so it is part of ``rounding`` too and not added twice;
    * ``rounding`` — the radius of the final arb ball (all arb rounding, including the double-double term).

    Tilted contour (:mod:`accountlib.engine.tilted`), each term times the prefactor M(θ)e^{−θ lo}:
    ``aliasing`` is the contour's wrap-around, ``sieve`` the dropped nodes, ``float_path`` the float64 sum's
    rounding (the arb sum's radius where J is summed in arb), ``rounding`` the prefactor's arb radius;
    ``truncation`` and ``double_double`` are 0.

    ``total`` is the sum of the terms not carried inside another (everything but ``double_double``); the
    result's ``error_bound`` is that total rounded up.
    """

    truncation: mpmath.mpf = mpmath.mpf(0)
    aliasing: mpmath.mpf = mpmath.mpf(0)
    sieve: mpmath.mpf = mpmath.mpf(0)
    float_path: mpmath.mpf = mpmath.mpf(0)
    double_double: mpmath.mpf = mpmath.mpf(0)
    rounding: mpmath.mpf = mpmath.mpf(0)

    @property
    def terms(self) -> dict:
        """The terms by name."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @property
    def total(self) -> mpmath.mpf:
        """Σ of the terms (``double_double`` is inside ``rounding``), before the final rounding up."""
        with mpmath.workdps(30):
            return mpmath.fsum(v for name, v in self.terms.items() if name != "double_double")


@dataclass(frozen=True)
class TailResult:
    """A certified tail probability: the true value lies in [value − error_bound, value + error_bound].

    >>> from accountlib.engine.front import tail_probability
    >>> r = tail_probability([(1, 1)], 0, abs_tol=1e-20)   # a TailResult
    >>> r.path, float(r.value) < 0.5, r.error_bound <= 1e-20
    ('untilted', True, True)"""

    value: mpmath.mpf
    error_bound: ErrorBound  # an mpf: never underflows to a false 0
    index: int  # lo: the probability is P(S_L ≥ lo)
    budget: ErrorBudget | None = None  # the terms of error_bound
    path: str = "untilted"  # "untilted", "tilted", or "closed form" (a threshold beyond ±U)

    def __float__(self) -> float:
        return float(self.value)


def certified(value, index: int, budget: ErrorBudget, path: str, *, bound=None) -> TailResult:
    """A :class:`TailResult` whose bound is ``bound`` (default: the budget's total, rounded up by 1e-12)."""
    if bound is None:
        with mpmath.workdps(30):
            bound = budget.total * (1 + mpmath.mpf(10) ** -12)
    return TailResult(value, error_bound(bound), index, budget, path)
