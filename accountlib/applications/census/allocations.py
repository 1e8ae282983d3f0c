"""The 2020 Census DHC privacy-loss budget allocations and their pairs.

Application layer of :mod:`accountlib`. The 43 distinct allocations
("geographic paths") of the 2020 Census Demographic and Housing
Characteristics File, each a 10×8 table of exact rationals ρ (queries ×
geographic levels; 0 = a level the path does not use), summing to
24811/5000 = 4.9622 (sieve paper §2.3, Table 1 = allocation 13; book, Derivations §2).
Source: U.S. Census Bureau, privacy-loss budget allocation of 2022-08-25
(``accountlib/data/README.md``).

A pair (k, l) composes the nonzero entries of allocation k followed by those
of l; neighbouring data shift every count by 1, so the pair is the shift pair
of :func:`accountlib.theory.composition.Composition` with ρ = (Σρ_i)/2 = 4.9622.
"""

from __future__ import annotations

import csv
import re
from fractions import Fraction
from functools import lru_cache
from importlib import resources

from ...infrastructure.numbers import as_int

__all__ = ["ALLOCATIONS", "TOTAL_RHO", "check_allocation", "load_allocation", "pair_rhos", "all_pairs", "delta_levels",
           "MAX_DELTA_EXPONENT"]

ALLOCATIONS = range(1, 44)
"""The numbers of the 43 DHC allocations."""
TOTAL_RHO = Fraction(24811, 5000)
"""Every DHC pair's zCDP ρ = Σρ_i/2 = 4.9622 (the Bureau's)."""
_ROWS, _COLUMNS = 10, 8


def check_allocation(k, name: str = "k") -> int:
    """``k`` as a DHC allocation number, an int in 1..43 (also from a string of digits, as the command line
    passes it); anything else raises ``ValueError`` naming ``name``. The one check of an allocation number:
    the library, ``python -m accountlib delta/tradeoff --pair`` and ``sweep dhc --pairs`` all use it.

    >>> check_allocation("13", "--pair")
    13
    """
    if isinstance(k, str):
        text = k.strip()
        if not re.fullmatch(r"[+-]?\d{1,6}", text):
            raise ValueError(f"{name} must be an allocation number between 1 and 43; got {k!r}")
        k = int(text)
    try:
        k = as_int(k, name)
    except ValueError:
        raise ValueError(f"{name} must be an allocation number between 1 and 43; got {k!r}") from None
    if k not in ALLOCATIONS:
        raise ValueError(f"{name} must be an allocation number between 1 and 43; got {k}")
    return k


def parse_allocation(text: str, source: str = "allocation") -> list[Fraction]:
    """Parse and validate one allocation table (CSV with a header of 8 levels, 10 rows of fractions)."""
    rows = list(csv.reader(text.strip().splitlines()))
    if len(rows) != _ROWS + 1 or any(len(row) != _COLUMNS for row in rows):
        raise ValueError(f"{source}: expected a header and {_ROWS} rows of {_COLUMNS} columns; "
                         f"got {len(rows)} rows with widths {sorted({len(r) for r in rows})}")
    values = []
    for r, row in enumerate(rows[1:], start=1):
        for c, cell in enumerate(row):
            try:
                value = Fraction(cell.strip())
            except (ValueError, ZeroDivisionError):
                raise ValueError(f"{source}: row {r}, column {rows[0][c]!r}: {cell!r} is not a fraction") from None
            if value < 0:
                raise ValueError(f"{source}: row {r}, column {rows[0][c]!r}: negative budget {cell!r}")
            values.append(value)
    if sum(values) != TOTAL_RHO:
        raise ValueError(f"{source}: the budgets sum to {sum(values)}, not {TOTAL_RHO}")
    return values


@lru_cache(maxsize=None)
def _load(k: int) -> tuple[Fraction, ...]:
    path = resources.files("accountlib") / "data" / "dhc_allocations" / f"dhc_allocation_path_{k}.csv"
    return tuple(parse_allocation(path.read_text(encoding="utf-8"), source=path.name))


def load_allocation(k) -> list[Fraction]:
    """Allocation k (1..43) as 80 ``Fraction`` budgets ρ, row-major, zeros kept.

    >>> rho = load_allocation(13)
    >>> len(rho), sum(rho), rho[0]
    (80, Fraction(24811, 5000), Fraction(11, 10000))
    """
    return list(_load(check_allocation(k)))


def pair_rhos(k, l) -> list[Fraction]:
    """The nonzero budgets of allocation k followed by those of l (the mechanisms of pair (k, l))."""
    k, l = check_allocation(k, "k"), check_allocation(l, "l")
    return [r for r in _load(k) if r] + [r for r in _load(l) if r]


def all_pairs() -> list[tuple[int, int]]:
    """The 946 pairs (k, l), 1 ≤ k ≤ l ≤ 43."""
    return [(k, l) for k in ALLOCATIONS for l in ALLOCATIONS if k <= l]


MAX_DELTA_EXPONENT = 300
"""The deepest δ level :func:`delta_levels` lists, 1e-300: float64 holds it (1e-308 and below are subnormal or 0),
and the engine's finest accuracy is 1e-300 (``engine.results.SMALLEST_ACCURACY``)."""


def delta_levels(smallest_exponent: int = 21) -> list[float]:
    """The δ grid of the book's (ε, δ) curves: 5e-1, 1e-1, 5e-2, 1e-2, …, 5e-n, 1e-n (chosen here; the sieve
    paper's text does not list the levels of its figures).

    ``smallest_exponent=21`` gives the 42 levels used for the per-pair curves;
    ``30`` the grid extended to 1e-30 for the census-wide sweep.

    >>> levels = delta_levels(); len(levels), levels[:3], levels[-1]
    (42, [0.5, 0.1, 0.05], 1e-21)

    ``smallest_exponent`` must be a whole number from 1 to :data:`MAX_DELTA_EXPONENT` (300); anything else raises
    ``ValueError`` naming it, the value and that range.
    """
    given = smallest_exponent
    try:
        smallest_exponent = as_int(smallest_exponent, "smallest_exponent")
    except ValueError:
        smallest_exponent = None
    if smallest_exponent is None or not 1 <= smallest_exponent <= MAX_DELTA_EXPONENT:
        raise ValueError(f"smallest_exponent must be a whole number in 1..{MAX_DELTA_EXPONENT} (the deepest level is "
                         f"1e-smallest_exponent); got {given!r}")
    return [float(f"{m}e-{k}") for k in range(1, smallest_exponent + 1) for m in (5, 1)]
