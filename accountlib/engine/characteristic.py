"""The characteristic function φ_σ(θ) = E cos(θX) of one discrete Gaussian N_Z(0, σ²), at every precision.

Engine layer of :mod:`accountlib`: the one home of the formulas for φ (sieve paper, Appendix A.1; book,
Derivations §1). Two equal forms,

* direct: φ(θ) = Σ_x e^{−x²/2σ²} cos(θx) / Σ_x e^{−x²/2σ²}, cheap for σ² ≲ 1;
* dual (Poisson summation): φ(θ) = Σ_u e^{−σ²(θ−2πu)²/2} / Σ_u e^{−2π²σ²u²}, a handful of terms for σ² ≳ 1,

each at the precisions the library needs:

* mpmath, to ``dps`` digits: :func:`cf` (and :func:`cf_terms`, the series lengths), used by the sieve's
  per-factor radii, the reference quadrature and the book; re-exported by :mod:`accountlib.engine.discrete_gaussian`;
* float64 arrays: :func:`cf_float` (plots, ~1e-16 absolute) and :func:`log_cf` (log φ at lattice nodes with a
  rigorous error bound, the untilted engine's float path);
* arb balls at lattice nodes θ = 2π·r/N: :func:`cf_lattice` (certified, exact angle reduction) and
  :func:`cf_direct_paper` (the sieve paper's direct sum, for the ``method="paper"`` benchmark);
* complex float64 on the tilted contour: :func:`log_cf_tilted` (the tilted engine);
* the rigorous bound on |φ_σ| that every sieve uses (:func:`log_factor_bound`, :func:`log_bound_at_distance`,
  :func:`factor_bound_constant`), and the moment generating function E e^{θS} of a weighted sum as an arb ball with
  the images of the dual form it neglects (:func:`log_mgf`, :func:`image_sum`), for the tilted contours.

Moving code here changed no arithmetic: each function is the one its caller used before.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath
import numpy as np
from flint import arb, ctx, fmpq

from ..infrastructure.numbers import as_dps, as_fraction, as_positive_fraction, fraction_to_mpf
from . import arithmetic

__all__ = ["cf", "cf_terms", "cf_float", "log_cf", "cf_lattice", "cf_direct_paper", "log_cf_tilted",
           "SMALLEST_SIGMA2", "factor_bound_constant", "log_bound_at_distance", "log_factor_bound", "image_sum", "log_mgf",
           "GUARD_DIGITS", "as_sigma2", "direct_cutoff", "dual_cutoff"]

GUARD_DIGITS = 10
"""Guard digits used inside every mpmath computation of φ and of the pmf (:mod:`accountlib.engine.discrete_gaussian`)."""
_CF_FORMS = ("auto", "direct", "dual")


def as_sigma2(sigma2) -> Fraction:
    """A noise variance σ² > 0 as an exact ``Fraction`` (``ValueError`` naming ``sigma2`` otherwise)."""
    return as_positive_fraction(sigma2, "sigma2", floats="decimal")


# -- mpmath and float64 (any θ) ------------------------------------------------------------------------

def direct_cutoff(s2: float, digits: int) -> int:
    """Smallest X with exp(-x²/2σ²) < 10^-digits for all |x| > X (and a margin of one)."""
    return int(math.ceil(math.sqrt(2.0 * s2 * digits * math.log(10.0)))) + 1


def dual_cutoff(s2: float, digits: int) -> int:
    """Largest |u| needed in the dual sum for θ in [-π, π] at 10^-digits relative accuracy."""
    reach = math.sqrt(2.0 * digits * math.log(10.0) / s2)  # |θ - 2πu| beyond this is negligible
    return int(math.ceil((reach + math.pi) / (2.0 * math.pi)))


def cf_terms(sigma2, *, dps: int = 30) -> dict:
    """How many terms the direct and the dual series need at ``dps`` digits.

    Returns ``{"direct": X, "dual": U}``: the direct sum runs over |x| ≤ X,
    the dual sum over |u| ≤ U. ``cf(form="auto")`` uses the shorter one.

    >>> cf_terms(909, dps=50)["dual"] <= 2
    True
    """
    s2 = float(as_sigma2(sigma2))
    digits = as_dps(dps) + GUARD_DIGITS
    return {"direct": direct_cutoff(s2, digits), "dual": dual_cutoff(s2, digits)}


def _cf_direct(theta, s, cutoff: int):
    numerator = 1 + 2 * mpmath.fsum(
        mpmath.exp(-mpmath.mpf(x * x) / (2 * s)) * mpmath.cos(theta * x) for x in range(1, cutoff + 1)
    )
    denominator = 1 + 2 * mpmath.fsum(mpmath.exp(-mpmath.mpf(x * x) / (2 * s)) for x in range(1, cutoff + 1))
    return numerator / denominator


def _cf_dual(theta, s, cutoff: int):
    two_pi = 2 * mpmath.pi
    theta = theta - two_pi * mpmath.nint(theta / two_pi)  # reduce to [-π, π]
    numerator = mpmath.fsum(mpmath.exp(-s * (theta - two_pi * u) ** 2 / 2) for u in range(-cutoff - 1, cutoff + 2))
    q = mpmath.exp(-2 * mpmath.pi**2 * s)
    denominator = 1 + 2 * mpmath.fsum(q ** (u * u) for u in range(1, cutoff + 2))
    return numerator / denominator


def cf(theta, sigma2, *, form: str = "auto", dps: int = 30):
    """Characteristic function φ(θ) = E cos(θX) of N_Z(0, σ²).

    Two equal forms (sieve paper, Appendix A.1; book, Derivations §1):

    * ``"direct"``: Σ_x p(x) cos(θx), cheap for σ² ≲ 1;
    * ``"dual"`` (Poisson summation):
      Σ_u exp(-σ²(θ-2πu)²/2) / Σ_u exp(-2σ²π²u²), a handful of terms for σ² ≳ 1.

    ``"auto"`` picks the one with fewer terms. ``theta`` may be any real
    (int, float, Fraction, string or mpf); φ is even and 2π-periodic.

    >>> abs(cf(1, 2, form="direct", dps=40) - cf(1, 2, form="dual", dps=40)) < 1e-40
    True
    """
    if form not in _CF_FORMS:
        raise ValueError(f"form must be one of {_CF_FORMS}; got {form!r}")
    s2 = as_sigma2(sigma2)
    dps = as_dps(dps)
    terms = cf_terms(s2, dps=dps)
    if form == "auto":
        form = "direct" if terms["direct"] <= terms["dual"] else "dual"
    with mpmath.workdps(dps + GUARD_DIGITS):
        th = theta if isinstance(theta, mpmath.mpf) else fraction_to_mpf(as_fraction(theta, "theta", floats="decimal"))
        s = fraction_to_mpf(s2)
        value = _cf_direct(th, s, terms["direct"]) if form == "direct" else _cf_dual(th, s, terms["dual"])
    return +value


def cf_float(theta, sigma2) -> np.ndarray:
    """Float64 characteristic function on an array of θ (fast path; ~1e-16 absolute).

    Chooses the direct or dual form like :func:`cf`; underflows to 0 where
    φ < 1e-308.
    """
    s2 = float(as_sigma2(sigma2))
    theta = np.asarray(theta, dtype=float)
    direct, dual = direct_cutoff(s2, 17), dual_cutoff(s2, 17)
    if direct <= dual:
        xs = np.arange(1, direct + 1, dtype=float)
        weights = np.exp(-xs * xs / (2.0 * s2))
        numerator = 1.0 + 2.0 * np.cos(np.multiply.outer(theta, xs)) @ weights
        return numerator / (1.0 + 2.0 * weights.sum())
    reduced = np.remainder(theta + np.pi, 2.0 * np.pi) - np.pi
    us = np.arange(-dual - 1, dual + 2, dtype=float)
    numerator = np.exp(-s2 * (np.subtract.outer(reduced, 2.0 * np.pi * us)) ** 2 / 2.0).sum(axis=-1)
    q = math.exp(-2.0 * math.pi**2 * s2)
    denominator = 1.0 + 2.0 * sum(q ** (u * u) for u in range(1, dual + 2))
    return numerator / denominator


# -- float64 log φ at lattice nodes, with a rigorous bound (σ² ≥ 1/2) ----------------------------------

SMALLEST_SIGMA2 = Fraction(1, 2)


def log_cf(residues: np.ndarray, modulus: int, sigma2: Fraction) -> tuple[np.ndarray, np.ndarray]:
    """(log φ_σ(2π r/N), an upper bound on its absolute error) for integer residues r (σ² ≥ 1/2)."""
    if sigma2 < SMALLEST_SIGMA2:
        raise ValueError("the float path needs sigma2 >= 1/2")
    r = np.mod(residues, modulus)
    r = np.where(2 * r > modulus, r - modulus, r).astype(float)
    x = r / modulus
    a = 2 * math.pi**2 * float(sigma2)
    main = -a * x * x
    rest = np.zeros_like(x)
    for u in (1, 2, 3):
        rest += np.exp(-a * (u * u - 2 * x * u)) + np.exp(-a * (u * u + 2 * x * u))
    denominator = math.log1p(2 * sum(math.exp(-a * u * u) for u in (1, 2, 3)))
    value = main + np.log1p(rest) - denominator
    error = 2e-15 * (np.abs(main) + 1.0) + 4 * math.exp(-12 * a)
    return value, error


# -- arb balls at lattice nodes --------------------------------------------------------------------------

@functools.lru_cache(maxsize=65536)
def _dual_constants(numerator: int, denominator: int, bits: int) -> tuple[int, arb, arb, float]:
    """The angle-independent part of the dual form of φ_σ at σ² = numerator/denominator ≥ 1/2 and ``bits`` of
    precision: (reach, 2π²σ², the widened denominator Σ_u exp(-2π²σ²u²) + tail, the tail bound). Remembered: an
    engine evaluates every factor at every node, and a composition of 20,000 distinct budgets would otherwise
    rebuild these 20,000 times per node (arb balls are immutable, so sharing them is safe)."""
    saved = ctx.prec
    ctx.prec = bits
    try:
        sigma2 = Fraction(numerator, denominator)
        digits = bits * 0.30103 + 5
        a = 2 * math.pi**2 * float(sigma2)
        reach = int(math.ceil(math.sqrt(digits * math.log(10) / a))) + 1  # |u| ≤ reach
        two_pi2_s2 = 2 * arb.pi() ** 2 * arithmetic.arb_fraction(sigma2)
        total = arb(1)
        for u in range(1, reach + 1):
            total += 2 * (-(two_pi2_s2 * u * u)).exp()
        # neglected |u| > reach: (|u| - 1/2)² ≥ (reach + 1/2)², geometric ratio ≤ exp(-2a(reach+1))
        tail = 2 * math.exp(-a * (reach + 0.5) ** 2) / (1 - math.exp(-2 * a * (reach + 1)))
        return reach, two_pi2_s2, arithmetic.add_error(total, tail), tail
    finally:
        ctx.prec = saved


def cf_lattice(residue: int, modulus: int, sigma2: Fraction, *, terms: dict | None = None) -> arb:
    """Certified φ_σ(2π·residue/modulus) for N_Z(0, σ²), as an arb ball.

    ``residue`` is an integer; the angle is reduced exactly with integer
    arithmetic, so the result is accurate for any node of the trapezoidal
    rule however large c·k gets. Uses the dual (Poisson) form for σ² ≥ 1/2
    and the direct sum otherwise; the neglected terms of either series are
    bounded rigorously and added to the ball's radius.
    """
    r = residue % modulus
    if 2 * r > modulus:
        r -= modulus
    x = fmpq(r, modulus)  # θ/2π in [-1/2, 1/2]
    digits = ctx.prec * 0.30103 + 5
    s2 = float(sigma2)
    if 2 * sigma2.numerator >= sigma2.denominator:  # σ² ≥ 1/2
        # φ = Σ_u exp(-2π²σ²(x-u)²) / Σ_u exp(-2π²σ²u²);  |x| ≤ 1/2
        reach, two_pi2_s2, denominator, tail = _dual_constants(sigma2.numerator, sigma2.denominator, ctx.prec)
        numerator = arb(0)
        for u in range(-reach, reach + 1):
            numerator += (-(two_pi2_s2 * arb(x - u) ** 2)).exp()
        return arithmetic.add_error(numerator, tail) / denominator
    # direct: (1 + 2 Σ_{y≥1} e^{-y²/2σ²} cos(2π y x)) / (1 + 2 Σ_{y≥1} e^{-y²/2σ²})
    reach = int(math.ceil(math.sqrt(2 * s2 * digits * math.log(10)))) + 1
    numerator, denominator = _direct_sums(x, sigma2, reach)
    # neglected y > reach: Σ e^{-y²/2σ²} ≤ e^{-(reach+1)²/2σ²} / (1 - e^{-(reach+1)/σ²})
    tail = 2 * math.exp(-((reach + 1) ** 2) / (2 * s2)) / (1 - math.exp(-(reach + 1) / s2))
    return arithmetic.add_error(numerator, tail) / arithmetic.add_error(denominator, tail)


def _direct_sums(x, sigma2: Fraction, reach: int) -> tuple[arb, arb]:
    """1 + 2 Σ_{y=1..reach} e^{-y²/2σ²} cos(2π y x) and 1 + 2 Σ_{y=1..reach} e^{-y²/2σ²}, in arb (no tail)."""
    inv_two_s2 = arithmetic.arb_fraction(1 / (2 * sigma2))
    numerator, denominator = arb(1), arb(1)
    for y in range(1, reach + 1):
        weight = 2 * (-(inv_two_s2 * y * y)).exp()
        numerator += weight * arb.cos_pi_fmpq(2 * y * x)
        denominator += weight
    return numerator, denominator


def cf_direct_paper(residue: int, modulus: int, sigma2: Fraction) -> arb:
    """The sieve paper's evaluation: the direct sum over |x| ≤ 24σ² (48σ²+1 terms), no tail term.

    Re-implemented for the benchmark of ``paths.method == "paper"`` (:class:`~accountlib.engine.tails.TailEngine`); with 48σ²+1 terms the
    neglected mass e^{−(24σ²)²/2σ²} = e^{−288σ²} is far below any Δ used, so
    the ball is widened by that bound to stay honest.
    """
    reach = int(math.ceil(24 * sigma2))
    numerator, denominator = _direct_sums(fmpq(residue % modulus, modulus), sigma2, reach)
    tail = 2 * math.exp(-((reach + 1) ** 2) / (2 * float(sigma2))) * 2
    return arithmetic.add_error(numerator, tail) / arithmetic.add_error(denominator, tail)


# -- complex float64 on the tilted contour --------------------------------------------------------------

def log_cf_tilted(s2: float, a: float, xi: np.ndarray, mu: float, size: int) -> np.ndarray:
    """log φ of N_Z(0, σ²) on the tilted contour, in float64 complex: the dual form at ξ + i·(tilt),

    w = 1 + Σ_{u = ±1, ±2} e^{−au² + 2πσ²uξ − 2πiuμ} (the images of the dual form), D = 1 + 2Σ_{u = 1, 2} e^{−au²}
    cos 2πuμ and log φ = −σ²ξ²/2 + iμξ + log w − log D, a = 2π²σ², μ = σ²θc
    (:class:`~accountlib.engine.tilted.TiltedTailEngine` bounds the rounding and the neglected images |u| ≥ 3)."""
    w = np.ones(size, dtype=complex)
    for u in (1, -1, 2, -2):
        w += np.exp(-a * u * u + 2 * math.pi * s2 * u * xi) * np.exp(-2j * math.pi * u * mu)
    d = 1 + sum(2 * math.exp(-a * u * u) * math.cos(2 * math.pi * u * mu) for u in (1, 2))
    return -s2 * xi**2 / 2 + 1j * mu * xi + np.log(w) - math.log(d)


# -- bounds on |φ| (the sieve's) and the moment generating function (the tilted contours') --------------------------

@functools.lru_cache(maxsize=4096)
def factor_bound_constant(sigma2: Fraction) -> float:
    """Σ_{u≥2} e^{−2π²σ²u(u−1)} + Σ_{u≥1} e^{−2π²σ²u²}, rounded up (the d-independent part of M_σ − 1).

    Remembered: a pure function of σ², summed term by term (up to 10⁴ terms for small σ²) and asked for
    again by every sieve of every engine on the same variances."""
    a = 2 * math.pi**2 * float(sigma2)
    total, u = 0.0, 1
    while True:
        term = math.exp(-a * u * u) + (math.exp(-a * (u + 1) * u))
        total += term
        # term == 0: every later term underflows too (a large σ² used to run all 10⁴ terms, since
        # 1e-30·1e-300 is 0.0 in float64: seconds per distinct budget for a file of many budgets)
        if term == 0.0 or term < 1e-30 * max(total, 1e-300):
            break
        if u >= 10_000:  # the rest, Σ_{u'>u} (e^{−au'²} + e^{−au'(u'+1)}) ≤ 2∫_u^∞ e^{−ax²}dx = √(π/a)·erfc(u√a)
            total += math.sqrt(math.pi / a) * math.erfc(u * math.sqrt(a)) * 1.01
            break
        u += 1
    return total * (1 + 1e-12) + 1e-300


def log_bound_at_distance(sigma2: float, extra: float, distance: np.ndarray) -> np.ndarray:
    """log min(1, M_σ(d) e^{−σ²d²/2}) elementwise, d the distance of θ to 2πℤ and ``extra`` =
    :func:`factor_bound_constant` of σ² (float64, then nudged upward for safety): the sieve's bound on |φ_σ(θ)|."""
    m = 1.0 + np.exp(-2 * math.pi * sigma2 * (math.pi - distance)) + extra
    return np.minimum(0.0, np.log(m) - sigma2 * distance**2 / 2 + 1e-9)


def log_factor_bound(sigma2, c: int, multiplicity: int, zeta) -> np.ndarray:
    """log of the rigorous bound on |φ_σ(cζ)|^n used by the sieve, on an array of ζ (float64)."""
    zeta = np.asarray(zeta, dtype=float)
    distance = np.abs(np.remainder(c * zeta + np.pi, 2 * np.pi) - np.pi)
    return multiplicity * log_bound_at_distance(float(sigma2), factor_bound_constant(Fraction(sigma2)), distance)


def image_sum(sigma2: float, start: int) -> float:
    """Σ_{u ≥ start} e^{−2π²σ²u²}, rounded up: the images of the dual form beyond ``start`` (float64)."""
    a = 2 * math.pi**2 * sigma2
    total, u = 0.0, start
    while True:
        term = math.exp(-a * u * u)
        total += term
        if term <= 1e-30 * total or term == 0.0:
            break
        u += 1
    return total * (1 + 1e-12)


def log_mgf(groups, theta: Fraction) -> arb:
    """log E e^{θS} = Σ_g n_g [σ²t²/2 + log(D(σ²t)/D(0))], t = θ·w_g, for S = Σ_g w_g X_g (n_g copies, X_g ~
    N_Z(0, σ_g²), σ_g² ≥ 1/2), as an arb ball at 160 bits. ``groups`` holds ``((sigma2, w), n)`` with exact σ² and
    weight w (a lattice integer c or any rational); θ is an exact rational. E e^{tX} = e^{σ²t²/2} D(μ)/D(0) with
    μ = σ²t and D the dual form's denominator (see the module docstring)."""
    with arithmetic.precision(160):
        total = arb(0)
        for (s2, w), mult in groups:
            t = theta * w
            mu = s2 * t
            a = 2 * arb.pi() ** 2 * arithmetic.arb_fraction(s2)
            reach = int(math.ceil(math.sqrt(60 / float(a)))) + 2
            num, den = arb(1), arb(1)
            for u in range(1, reach + 1):
                weight = 2 * (-(a * u * u)).exp()
                num += weight * arb.cos_pi_fmpq(fmpq(2 * u * mu.numerator, mu.denominator))
                den += weight
            rest = 2 * image_sum(float(s2), reach + 1)
            num = arithmetic.add_error(num, rest)
            den = arithmetic.add_error(den, rest)
            total += mult * (arithmetic.arb_fraction(s2 * t * t / 2) + (num / den).log())
        return total
