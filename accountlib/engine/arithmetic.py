"""The engine's certified arithmetic: arb balls, and vectorised double-double numbers with published error bounds.

Engine layer of :mod:`accountlib`, at its bottom.

**arb balls** (python-flint). python-flint keeps its working precision in a global context; :func:`precision`
sets it for a block and restores the caller's value afterwards, so no global state changes behind anyone's back.
The arb forms of φ itself live in :mod:`accountlib.engine.characteristic` (with the other precisions). Why arb and
not mpmath: evaluating φ of N_Z(0, σ²) at 50+ digits is ~10× faster with arb (9–14 µs against 80–95 µs per value,
measured on the machine the book is built on), and every arb result is a ball [mid ± rad] that provably contains the
true value, so the rounding error of the whole quadrature is accounted for by construction.

**Double-double numbers** (≈ 106-bit significands). Once the quadrature weights are known (in arb), each threshold
costs one sum Σ_k w_k sin(π m_k/N) over the surviving nodes. In arb that is a Python loop over nodes × thresholds;
in double-double it is a handful of numpy operations per block of thresholds, accurate to ~1e-31 relative to
Σ|w_k| — enough for every absolute accuracy Δ ≥ 1e-28 the engines use, and the bound is checked, not assumed.
Algorithms (Dekker 1971; Joldes, Muller & Popescu, ACM TOMS 44(2), 2017, "Tight and rigorous error bounds for
basic building blocks of double-word arithmetic"):

* :func:`two_sum` (Knuth) and :func:`two_prod` (Dekker's split, no FMA) are error-free;
* :func:`mul` is DWTimesDW1 (Algorithm 10 with a Dekker product): relative error ≤ 7u²;
* :func:`add` is AccurateDWPlusDW (Algorithm 6): relative error ≤ 3u²/(1 − 4u);

with u = 2⁻⁵³. Inputs must stay far from overflow (|x| < 1e290), which the callers ensure. The sine of π m/N for
an integer m is read from two small tables (m = qB + r) of double-double cosines and sines, computed once in arb,
and combined with the addition formula (:class:`SineTable`).
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from fractions import Fraction

import numpy as np
from flint import arb, ctx, fmpq

__all__ = ["precision", "arb_fraction", "add_error", "U", "MUL_ERROR", "ADD_ERROR", "two_sum", "two_prod", "mul",
           "add", "from_arb", "column_sums", "SineTable"]


# -- arb balls -------------------------------------------------------------------------------------------------

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


def add_error(value: arb, bound: float) -> arb:
    """Widen ``value`` by an absolute error ``bound`` (a rigorous upper bound on a neglected tail)."""
    if bound <= 0:
        return value
    return value + arb(0, bound * (1 + 1e-12))

# -- double-double numbers -------------------------------------------------------------------------------------

U = 2.0**-53
MUL_ERROR = 7 * U * U
ADD_ERROR = 3 * U * U / (1 - 4 * U)
_SPLITTER = 134217729.0  # 2^27 + 1


def two_sum(a, b):
    """a + b as (s, e) with s + e = a + b exactly (Knuth's TwoSum, elementwise)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _fast_two_sum(a, b):
    s = a + b
    return s, b - (s - a)


def _split(a):
    t = _SPLITTER * a
    hi = t - (t - a)
    return hi, a - hi


def two_prod(a, b):
    """a·b as (p, e) with p + e = a·b exactly (Dekker's product with Veltkamp's split, no FMA; elementwise)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def mul(xh, xl, yh, yl):
    """(xh + xl)(yh + yl) as a double-double (relative error ≤ 7u²)."""
    ch, cl1 = two_prod(xh, yh)
    cl2 = xh * yl + xl * yh
    return _fast_two_sum(ch, cl1 + cl2)


def add(xh, xl, yh, yl):
    """(xh + xl) + (yh + yl) as a double-double (relative error ≤ 3u²/(1 − 4u))."""
    sh, sl = two_sum(xh, yh)
    th, tl = two_sum(xl, yl)
    c = sl + th
    vh, vl = _fast_two_sum(sh, c)
    w = tl + vl
    return _fast_two_sum(vh, w)


def from_arb(value: arb) -> tuple[float, float, float]:
    """(hi, lo, error) with |value − (hi + lo)| ≤ error, for an arb ball."""
    mid = value.mid()
    hi = float(mid)
    lo = float(mid - hi)
    return hi, lo, float(value.rad()) + abs(lo) * U * 2 + 1e-300


def column_sums(hi: np.ndarray, lo: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Column sums of a double-double matrix by pairwise (tree) addition.

    Returns (hi, lo, levels); the error of each column sum is at most
    levels · ADD_ERROR · Σ|entries of the column| (each level adds one rounding of partial sums).
    """
    levels = 0
    while hi.shape[0] > 1:
        if hi.shape[0] % 2:
            zeros = np.zeros((1,) + hi.shape[1:])
            hi, lo = np.concatenate([hi, zeros]), np.concatenate([lo, zeros])
        hi, lo = add(hi[0::2], lo[0::2], hi[1::2], lo[1::2])
        levels += 1
    return hi[0], lo[0], levels


class SineTable:
    """sin(π m / N) for integers m in [0, 2N), as double-doubles from two tables of √(2N) entries.

    Each entry is within 3u² of its true value (rounded from a 160-bit arb ball); a sine read
    through the addition formula, sin x cos y + cos x sin y, is then within
    2·(3u² + 3u² + 7u²) + 3u²·1.01 < 32u² absolutely: ``SineTable.ERROR``.
    """

    ERROR = 32 * U * U

    def __init__(self, modulus: int):
        self.modulus = modulus
        self.base = math.isqrt(2 * modulus) + 1
        coarse = range(2 * modulus // self.base + 2)
        fine = range(self.base)
        self._coarse = self._table([q * self.base for q in coarse])
        self._fine = self._table(list(fine))

    def _table(self, ms: list[int]) -> tuple[np.ndarray, ...]:
        n = self.modulus
        out = np.empty((4, len(ms)))
        with precision(160):
            for i, m in enumerate(ms):
                angle = fmpq(m % (2 * n), n)
                c, s = arb.cos_pi_fmpq(angle), arb.sin_pi_fmpq(angle)
                out[0, i], out[1, i], _ = from_arb(c)
                out[2, i], out[3, i], _ = from_arb(s)
        return tuple(out)

    def sin(self, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """sin(π m/N) as (hi, lo) arrays; m: int64 array of values in [0, 2N)."""
        q, r = np.divmod(m, self.base)
        ch, cl, sh, sl = (t[q] for t in self._coarse)
        fch, fcl, fsh, fsl = (t[r] for t in self._fine)
        ah, al = mul(sh, sl, fch, fcl)
        bh, bl = mul(ch, cl, fsh, fsl)
        return add(ah, al, bh, bl)
