"""What the engine returns and how it may compute it: certified results, their error budgets, the evaluation paths.

Every tail probability the engine returns is a :class:`TailResult`: a value, a rigorous bound on its error, and
the :class:`ErrorBudget` that the bound is the sum of, term by term (sieve paper §4.1–4.3; the book's chapters
"The trapezoidal rule converges exponentially" and "The sieve" derive each term). Which evaluation paths the
engine may use is an :class:`EvaluationPaths` value passed as a named argument — never a module global — so a
test or a benchmark chooses a path by argument.

Accuracy names: the engine's absolute accuracy is called ``accuracy`` (Δ in the papers and the book); the
letter δ and the word ``delta`` are kept for the privacy parameter δ of (ε, δ)-DP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from fractions import Fraction

import mpmath

from ..infrastructure.certified_numbers import floor_log10
from ..infrastructure.numbers import ErrorBound, ResourceLimitError, resource_limit, error_bound
from .lattice import Lattice

__all__ = ["TailResult", "ErrorBudget", "EvaluationPaths", "DEFAULT_PATHS", "PAPER_PATHS", "check_lattice_size",
           "SMALLEST_ACCURACY", "MAX_VARIANCE_PROXY", "MAX_DISTINCT_TERMS", "check_distinct_terms", "certified_digits", "rounded_up", "below"]

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
            f"the lattice of these mechanisms is too fine (variance proxy V ≈ 1e{len(str(int(lattice.variance_proxy))) - 1}, "
            f"lattice scale L with {len(str(lattice.scale.numerator))} digits): no quadrature could resolve it; "
            f"give budgets and weights with small denominators (e.g. '1/10', not a 53-bit binary fraction)")


@dataclass(frozen=True)
class EvaluationPaths:
    """The evaluation paths the engine may take; every path is certified, they differ in speed.

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
    rounding, ``rounding`` the prefactor's arb radius; ``truncation`` and ``double_double`` are 0.

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


# --- printing only what every correct machine prints ---------------------------------------------------------
# float64 results differ in their last bits between CPUs (numpy picks SIMD kernels at run time), so a printed
# number that a test compares must show only digits its certified error bound supports, and a rounding residue
# only as a bound it stays below.

def _as_fraction(x, what: str) -> Fraction:
    """A finite real number (int, float, numpy scalar, mpf, Fraction, decimal string) as an exact Fraction."""
    if isinstance(x, bool) or x is None:
        raise ValueError(f"{what} must be a finite real number; got {x!r}")
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ValueError(f"{what} must be finite; got {x!r}")
        man, exp = x.man_exp
        return Fraction(man) * Fraction(2) ** exp
    if isinstance(x, (Fraction, int)):
        return Fraction(x)
    if isinstance(x, str):
        try:
            return Fraction(x.strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{what} must be a finite real number; got {x!r}") from None
    try:
        as_float = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a finite real number; got {x!r}") from None
    if not math.isfinite(as_float):
        raise ValueError(f"{what} must be finite; got {x!r}")
    return Fraction(as_float)


def _positive_bound(bound, what: str = "bound") -> Fraction:
    exact = _as_fraction(bound, what)
    if exact <= 0:
        raise ValueError(f"{what} must be positive; got {bound!r}")
    return exact


def _scientific(mantissa: int, place: int) -> str:
    """``mantissa × 10^place`` in Python's float style: ``'4.1e-25'``, ``'1.0e+00'``."""
    digits = str(abs(mantissa))
    sign = "-" if mantissa < 0 else ""
    exponent = place + len(digits) - 1
    body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{body}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


def certified_digits(value, bound) -> str:
    """The decimal string of ``value`` keeping only the digits its error bound supports.

    The true number lies within ``bound`` of ``value``. The string is ``value`` rounded (half to even) at the
    finest decimal place where both ends of [value − bound, value + bound] round alike, so every number in the
    interval, the true one included, rounds to exactly this string: the digits are certified, and a machine
    whose last float64 bits differ (within the bound) cannot print other digits, except where the true value
    lies within the bound of a rounding boundary, and then the fewer digits it prints are certified too.
    Fixed notation for magnitudes 1e-4 to 1e15 when the last digit is at or after the units, else scientific.

    >>> certified_digits(1.7831993350417527031e-12, 4.1e-25)   # relative 2.3e-13: twelve digits
    '1.78319933504e-12'
    >>> certified_digits(26.340588852722323, 1e-12)
    '26.34058885272'
    >>> certified_digits("0.04", "0.006")      # 0.034 .. 0.046: only the first decimal is certain
    '0.0'
    >>> certified_digits(1234, 3)               # 1231 .. 1237
    '1.2e+03'
    >>> certified_digits(-0.5, 0.01)
    '-0.5'
    >>> certified_digits(1.0, 0)
    Traceback (most recent call last):
    ...
    ValueError: bound must be positive; got 0
    """
    x = _as_fraction(value, "value")
    b = _positive_bound(bound)
    lo, hi = x - b, x + b
    top = floor_log10(max(abs(lo), abs(hi))) + 2  # at 10^top every point of the interval rounds to 0
    finest = None
    for place in range(top, floor_log10(b) - 1, -1):  # no finer place can hold an interval of width 2b
        unit = Fraction(10) ** place
        if round(lo / unit) == round(hi / unit):
            finest = place
    mantissa = round(x / Fraction(10) ** finest)
    if mantissa == 0:
        return "0" if finest >= 0 else "0." + "0" * -finest
    exponent = finest + len(str(abs(mantissa))) - 1
    if finest <= 0 and -4 <= exponent < 15:
        decimals = -finest
        text = str(abs(mantissa)).rjust(decimals + 1, "0")
        whole, fraction = text[:len(text) - decimals], text[len(text) - decimals:]
        return ("-" if mantissa < 0 else "") + whole + ("." + fraction if decimals else "")
    return _scientific(mantissa, finest)


def rounded_up(bound) -> str:
    """An upper bound, rounded up to two significant digits, as the string to print after ``<``.

    >>> rounded_up(4.0001e-25)
    '4.1e-25'
    >>> rounded_up(mpmath.mpf("9.96e-14"))
    '1.0e-13'
    >>> rounded_up(0.25)
    '2.5e-01'
    >>> rounded_up(1e-13)   # the float nearest 1e-13 lies just above it; its exact value is rounded up
    '1.1e-13'
    """
    b = _positive_bound(bound)
    place = floor_log10(b) - 1
    mantissa = -((-b) // Fraction(10) ** place)  # ⌈b / 10^place⌉: 10..100
    if mantissa == 100:
        mantissa, place = 10, place + 1
    return _scientific(int(mantissa), place)


def below(residue, bound) -> str:
    """``"< bound"`` when |residue| < bound: how a check prints a rounding residue that differs between machines.

    The bound is the claim; a residue at or above it raises, so the check still fails.

    >>> below(1.3e-14, 1e-13)
    '< 1e-13'
    >>> below(-2.5e-14, 2e-13)
    '< 2e-13'
    >>> below(3e-13, 1e-13)
    Traceback (most recent call last):
    ...
    ValueError: the residue 3e-13 is not below the bound 1e-13 it is printed with
    """
    size = abs(_as_fraction(residue, "residue"))
    limit = _positive_bound(bound)
    shown = f"{float(limit):g}"
    if not size < limit:
        raise ValueError(f"the residue {float(residue):.3g} is not below the bound {shown} it is printed with")
    return f"< {shown}"
