"""Certified evaluations with python-flint's arb ball arithmetic (private helpers).

python-flint keeps its working precision in a global context; :func:`precision`
sets it for a block and restores the caller's value afterwards, so no global
state changes behind anyone's back.

The arb forms of φ itself live in :mod:`accountlib.engine.characteristic` (with the other precisions).
Why arb and not mpmath: evaluating φ of N_Z(0, σ²) at 50+ digits is ~10× faster
with arb (9–14 µs against 80–95 µs per value, measured on the machine the book is built on), and every arb
result is a ball [mid ± rad] that provably contains the true value, so the
rounding error of the whole quadrature is accounted for by construction.
"""

from __future__ import annotations

from contextlib import contextmanager
from fractions import Fraction

from flint import arb, ctx, fmpq


@contextmanager
def precision(bits: int):
    """Run a block at ``bits`` of arb working precision, restoring the previous setting."""
    saved = ctx.prec
    ctx.prec = max(int(bits), 53)
    try:
        yield
    finally:
        ctx.prec = saved


def arb_fraction(value: Fraction) -> arb:
    """The ball containing a rational exactly (to the working precision)."""
    return arb(fmpq(value.numerator, value.denominator))


def _add_error(value: arb, bound: float) -> arb:
    """Widen ``value`` by an absolute error ``bound`` (a rigorous upper bound on a neglected tail)."""
    if bound <= 0:
        return value
    return value + arb(0, bound * (1 + 1e-12))
