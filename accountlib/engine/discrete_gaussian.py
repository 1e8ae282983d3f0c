"""The discrete Gaussian distribution N_Z(0, σ²) on the integers.

Engine layer of :mod:`accountlib` (its base). One noise term: the pmf, its normaliser Θ(σ²) and the shifted normaliser's gap log Θ(0) − log Θ(u),
cumulants and λ4, tail bounds and an exact sampler. The characteristic function φ in its two equal forms, at
every precision (mpmath, float64, arb), lives in :mod:`accountlib.engine.characteristic`; :func:`~accountlib.engine.characteristic.cf`,
:func:`~accountlib.engine.characteristic.cf_float` and :func:`~accountlib.engine.characteristic.cf_terms` are
re-exported here.

References
----------
* Canonne, Kamath & Steinke (2020), *The discrete Gaussian for differential
  privacy*: definition, sub-Gaussianity (their Cor. 9, the bound used in
  :func:`subgaussian_tail_bound`) and the exact sampler (their Algorithms 1–3).
* Su, Su & Wang, *A sieve-accelerated quadrature method…* (the "sieve paper"),
  Appendix A.1: the two forms of the characteristic function (Poisson
  summation) and the table of λ4 values reproduced in the book's chapter "The discrete Gaussian".

Precision
---------
mpmath functions take ``dps`` (decimal digits, default 30) and do all their
work inside ``mpmath.workdps`` with guard digits, so the caller's global mpmath
precision is never changed. Series are truncated where the neglected terms are
provably below 10^-(dps+10) relative to the result. The ``*_float`` functions
are numpy float64 fast paths for plotting and for sieving, accurate to ~1e-15
absolute.

σ² may be an int, ``Fraction``, float, decimal or fraction string, or an
mpmath ``mpf``; σ² ≤ 0, NaN, infinities and other types raise ``ValueError``.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from math import comb, isqrt

import mpmath
import numpy as np

from ..infrastructure.numbers import as_dps, as_int, fraction_to_mpf
from .characteristic import GUARD_DIGITS, as_sigma2, cf, cf_float, cf_terms, direct_cutoff, dual_cutoff  # noqa: F401  (cf, cf_float, cf_terms: re-exported)

__all__ = [
    "log_normalizer",
    "log_theta_gap",
    "pmf",
    "pmf_float",
    "cf",
    "cf_float",
    "cf_terms",
    "variance",
    "cumulants",
    "lambda4",
    "tail",
    "subgaussian_tail_bound",
    "sample",
    "lattice_sum_pmf",
]


def log_normalizer(sigma2, *, dps: int = 30):
    """log Θ(σ²), Θ(σ²) = Σ_{x∈Z} exp(-x²/2σ²), as an mpmath ``mpf``.

    Uses the direct sum for small σ² and the Poisson-summed form
    Θ = sqrt(2πσ²)·Σ_u exp(-2π²σ²u²) for large σ², whichever is shorter.

    >>> float(log_normalizer(1))  # log sqrt(2π) + log(1 + 2e^{-2π²} + ...)
    0.918938...
    """
    s2 = as_sigma2(sigma2)
    dps = as_dps(dps)
    terms = cf_terms(s2, dps=dps)
    with mpmath.workdps(dps + GUARD_DIGITS):
        s = fraction_to_mpf(s2)
        if terms["direct"] <= terms["dual"]:
            total = 1 + 2 * mpmath.fsum(mpmath.exp(-mpmath.mpf(x * x) / (2 * s)) for x in range(1, terms["direct"] + 1))
            result = mpmath.log(total)
        else:
            q = mpmath.exp(-2 * mpmath.pi**2 * s)
            total = 1 + 2 * mpmath.fsum(q ** (u * u) for u in range(1, terms["dual"] + 1))
            result = mpmath.log(2 * mpmath.pi * s) / 2 + mpmath.log(total)
    return +result


def log_theta_gap(u: Fraction, sigma) -> mpmath.mpf:
    """log Θ(0) − log Θ(u) for u in (0, 1) (an exact rational), Θ(u) = Σ_x e^{−(x−u)²/2σ²} the normaliser shifted by
    u, as an mpf without cancellation; σ = ``sigma`` (a float or an mpf: σ² is formed in mpmath at each precision).
    The gap Γ of the discrete Gaussian mechanism (:class:`accountlib.theory.mechanisms.discrete.DiscreteGaussian`).

    σ² ≥ 1/(2π): by Poisson summation Θ(0) − Θ(u) ∝ 4Σ_k e^{−2π²σ²k²} sin²(πku), a sum of positive terms, so the gap
    log1p(that / Θ(u)) has full relative precision however small (σ = 10 gives about 1e-857). σ² < 1/(2π): the
    direct sums Σ_x e^{−(x−u)²/2σ²}, at a precision raised until their difference has 20 correct digits (u near 0 or
    1 makes them cancel).

    >>> float(log_theta_gap(Fraction(1, 2), 1.0)) > 0
    True
    """
    dps = 30
    while True:
        with mpmath.workdps(dps):
            s2 = mpmath.mpf(sigma) ** 2
            um = mpmath.mpf(u.numerator) / u.denominator
            if s2 >= 1 / (2 * mpmath.pi):
                q = mpmath.exp(-2 * mpmath.pi**2 * s2)
                positive, theta_u, k = mpmath.mpf(0), mpmath.mpf(1), 1
                while True:
                    term = q ** (k * k)
                    positive += 4 * term * mpmath.sin(mpmath.pi * k * um) ** 2
                    theta_u += 2 * term * mpmath.cos(2 * mpmath.pi * k * um)
                    if k > 1 and term < mpmath.mpf(10) ** (-dps) * q:
                        break
                    k += 1
                return +mpmath.log1p(positive / theta_u)
            width = int(mpmath.sqrt(2 * s2 * dps * mpmath.log(10))) + 3
            xs = range(-width, width + 2)
            theta_0 = mpmath.fsum(mpmath.exp(-mpmath.mpf(x) ** 2 / (2 * s2)) for x in xs)
            theta_u = mpmath.fsum(mpmath.exp(-(x - um) ** 2 / (2 * s2)) for x in xs)
            difference = theta_0 - theta_u
            if difference > 0 and mpmath.mag(difference) - mpmath.mag(theta_0) > -3.32 * (dps - 25) or dps > 3000:
                return +mpmath.log1p(difference / theta_u)
            dps = 2 * dps


def pmf(x, sigma2, *, dps: int = 30):
    """P(X = x) for X ~ N_Z(0, σ²), an mpmath ``mpf`` at ``dps`` digits."""
    x = as_int(x, "x")
    s2 = as_sigma2(sigma2)
    with mpmath.workdps(as_dps(dps) + GUARD_DIGITS):
        value = mpmath.exp(-mpmath.mpf(x * x) / (2 * fraction_to_mpf(s2)) - log_normalizer(s2, dps=dps + GUARD_DIGITS))
    return +value


def pmf_float(xs, sigma2) -> np.ndarray:
    """Float64 pmf on an integer array ``xs`` (fast path for plots)."""
    s2 = float(as_sigma2(sigma2))
    xs = np.asarray(xs, dtype=float)
    log_theta = float(log_normalizer(s2, dps=20))
    return np.exp(-xs * xs / (2.0 * s2) - log_theta)


def _moments_to_cumulants(moments):
    """Cumulants κ_1..κ_n from raw moments m_1..m_n (m_0 = 1) by the standard recursion."""
    kappas = []
    for n in range(1, len(moments) + 1):
        value = moments[n - 1] - mpmath.fsum(
            comb(n - 1, k - 1) * kappas[k - 1] * moments[n - k - 1] for k in range(1, n)
        )
        kappas.append(value)
    return kappas


def cumulants(sigma2, order: int = 4, *, dps: int = 30):
    """Cumulants [κ_1, …, κ_order] of N_Z(0, σ²) (odd ones are exactly 0).

    For σ² < 1/2 they come from raw moments of the pmf (no cancellation there).
    For larger σ² the cumulant generating function is split by Poisson
    summation,

        log E e^{tX} = σ²t²/2 + log B(t) - log B(0),
        B(t) = 1 + 2 Σ_{u≥1} q^{u²} cos(2πσ²ut),  q = e^{-2π²σ²},

    so κ_2 = σ² + c_2 and κ_r = c_r (r ≠ 2), where c_r are the cumulants of
    the small periodic factor B. This avoids the catastrophic cancellation of
    m_4 - 3m_2² (κ_4 is ~1e-86 at σ² = 10).
    """
    order = as_int(order, "order")
    if order < 1:
        raise ValueError(f"order must be >= 1; got {order}")
    s2 = as_sigma2(sigma2)
    dps = as_dps(dps)
    digits = dps + 2 * GUARD_DIGITS
    with mpmath.workdps(digits):
        s = fraction_to_mpf(s2)
        if s2 < Fraction(1, 2):
            cutoff = direct_cutoff(float(s2), digits)
            weights = [mpmath.exp(-mpmath.mpf(x * x) / (2 * s)) for x in range(1, cutoff + 1)]
            theta = 1 + 2 * mpmath.fsum(weights)
            moments = [
                0 if n % 2 else 2 * mpmath.fsum(w * mpmath.mpf(x) ** n for x, w in enumerate(weights, 1)) / theta
                for n in range(1, order + 1)
            ]
            kappas = _moments_to_cumulants(moments)
        else:
            q = mpmath.exp(-2 * mpmath.pi**2 * s)
            omega = 2 * mpmath.pi * s
            # q^{u²} (ωu)^n grows like u^n before the Gaussian decay wins: reach further than the cf cutoff.
            cutoff = dual_cutoff(float(s2), digits) + order + 2
            b0 = 1 + 2 * mpmath.fsum(q ** (u * u) for u in range(1, cutoff + 1))
            moments = [
                0 if n % 2 else (-1) ** (n // 2) * 2 * mpmath.fsum(q ** (u * u) * (omega * u) ** n for u in range(1, cutoff + 1)) / b0
                for n in range(1, order + 1)
            ]
            kappas = _moments_to_cumulants(moments)
            if order >= 2:
                kappas[1] += s
        kappas = [mpmath.mpf(0) if n % 2 else k for n, k in enumerate(kappas, 1)]
    return [+k for k in kappas]


def variance(sigma2, *, dps: int = 30):
    """Var X for X ~ N_Z(0, σ²); always strictly below σ² (Canonne et al. 2020)."""
    return cumulants(sigma2, 2, dps=dps)[1]


def lambda4(sigma2, *, dps: int = 30):
    """λ4 = κ4 / κ2², the standardised fourth cumulant of N_Z(0, σ²).

    The quantity that controls the first Edgeworth correction (sieve paper §6,
    values in Appendix A.1; book, Derivations §1): 72.21 at σ² = 0.1, 8.34e-6 at σ² = 1,
    2.55e-30 at σ² = 4. κ4 is positive at every σ² (the discrete Gaussian is
    leptokurtic: κ4 ≈ 2e^{−1/(2σ²)} for small σ², ≈ 2(2πσ²)⁴e^{−2π²σ²} for large),
    so λ4 > 0; it is returned with its sign, not as an absolute value.

    >>> f"{float(lambda4(1)):.3g}"
    '8.34e-06'
    """
    kappas = cumulants(sigma2, 4, dps=dps)
    with mpmath.workdps(as_dps(dps) + GUARD_DIGITS):
        value = kappas[3] / kappas[1] ** 2
    return +value


def tail(k, sigma2, *, dps: int = 30):
    """Exact upper tail P(X ≥ k) of N_Z(0, σ²) (an ``mpf``), for an integer k."""
    k = as_int(k, "k")
    s2 = as_sigma2(sigma2)
    dps = as_dps(dps)
    if k <= 0:  # use symmetry: P(X >= k) = 1 - P(X >= 1 - k)
        with mpmath.workdps(dps + GUARD_DIGITS):
            return +(1 - tail(1 - k, s2, dps=dps + GUARD_DIGITS))
    with mpmath.workdps(dps + GUARD_DIGITS):
        s = fraction_to_mpf(s2)
        log_theta = log_normalizer(s2, dps=dps + GUARD_DIGITS)
        # terms decay at least geometrically with ratio exp(-(2x+1)/2σ²) beyond k: stop 10^-(dps+10) below the first term
        first = -mpmath.mpf(k * k) / (2 * s)
        total, x = mpmath.mpf(0), k
        while True:
            exponent = -mpmath.mpf(x * x) / (2 * s)
            total += mpmath.exp(exponent - log_theta)
            if exponent - first < -(dps + GUARD_DIGITS) * math.log(10) and x > k:
                break
            x += 1
    return +total


def subgaussian_tail_bound(k, sigma2) -> float:
    """The sub-Gaussian bound P(X ≥ k) ≤ exp(-k²/2σ²) for k ≥ 0.

    From E e^{tX} ≤ e^{t²σ²/2} (Canonne, Kamath & Steinke 2020, Cor. 9; sieve
    paper Prop. A.1) and Chernoff's inequality at t = k/σ².
    """
    s2 = as_sigma2(sigma2)
    if k < 0:
        raise ValueError(f"k must be >= 0 for the sub-Gaussian bound; got {k!r}")
    return math.exp(-float(k) ** 2 / (2.0 * float(s2)))


# --------------------------------------------------------------------------------------------
# Exact sampling (Canonne, Kamath & Steinke 2020, Algorithms 1-3): integer and rational only.
# --------------------------------------------------------------------------------------------


def _bernoulli(p: Fraction, rng: random.Random) -> bool:
    return rng.randrange(p.denominator) < p.numerator


def _bernoulli_exp(gamma: Fraction, rng: random.Random) -> bool:
    """A Bernoulli(exp(-γ)) draw for rational γ ≥ 0 (CKS Algorithm 1)."""
    while gamma > 1:
        if not _bernoulli_exp(Fraction(1), rng):
            return False
        gamma -= 1
    k = 1
    while _bernoulli(gamma / k, rng):
        k += 1
    return k % 2 == 1


def _discrete_laplace(t: int, rng: random.Random) -> int:
    """A draw from P(Y = y) ∝ exp(-|y|/t) for an integer t ≥ 1 (CKS Algorithm 2)."""
    while True:
        u = rng.randrange(t)
        if not _bernoulli_exp(Fraction(u, t), rng):
            continue
        v = 0
        while _bernoulli_exp(Fraction(1), rng):
            v += 1
        magnitude = u + t * v
        negative = rng.randrange(2) == 1
        if negative and magnitude == 0:
            continue
        return -magnitude if negative else magnitude


def _discrete_gaussian(s2: Fraction, rng: random.Random) -> int:
    """One draw from N_Z(0, σ²) for rational σ² (CKS Algorithm 3)."""
    t = isqrt(s2.numerator * s2.denominator) // s2.denominator + 1  # floor(σ) + 1
    while True:
        y = _discrete_laplace(t, rng)
        gamma = (abs(y) - s2 / t) ** 2 / (2 * s2)
        if _bernoulli_exp(gamma, rng):
            return y


def sample(sigma2, size: int | None = None, *, rng=None):
    """Exact draws from N_Z(0, σ²) (Canonne, Kamath & Steinke 2020, Alg. 3).

    Uses only integer and rational arithmetic: σ² is converted to an exact
    ``Fraction`` (a float is taken at its exact binary value). ``rng`` is a
    ``random.Random`` (or an int seed); the algorithm consumes only uniform
    integers from it, so the output is exact given a perfect source.

    >>> draws = sample("5/2", 1000, rng=2024)
    >>> all(isinstance(d, int) for d in draws), abs(sum(draws) / 1000) < 0.2
    (True, True)
    """
    s2 = as_sigma2(sigma2)
    if rng is None or isinstance(rng, int) and not isinstance(rng, bool):
        rng = random.Random(rng)
    elif not isinstance(rng, random.Random):
        raise ValueError(f"rng must be None, an int seed or a random.Random; got {type(rng).__name__}")
    if size is None:
        return _discrete_gaussian(s2, rng)
    size = as_int(size, "size")
    if size < 0:
        raise ValueError(f"size must be >= 0; got {size}")
    return [_discrete_gaussian(s2, rng) for _ in range(size)]


# --------------------------------------------------------------------------------------------
# Brute force: the pmf of an integer-weighted sum by direct convolution (a reference method).
# --------------------------------------------------------------------------------------------


def lattice_sum_pmf(sigma2s, coefficients=None, *, dps: int | None = None):
    """The pmf of S = Σ c_i X_i, X_i ~ N_Z(0, σ_i²) independent, c_i nonzero integers.

    Computed by direct convolution of the truncated pmfs — slow, simple and
    independent of the Fourier machinery, hence the reference the quadrature
    engine is tested against. Returns ``(lowest, values)``: ``values[j]`` is
    P(S = lowest + j).

    With ``dps=None`` the work is float64 (numpy) and each factor is cut where
    its mass is below 1e-17; with ``dps`` given the values are mpmath ``mpf``
    and each factor keeps all x with p(x) ≥ 10^-(dps+10), so the neglected mass
    is below (number of factors) × 10^-(dps+10).

    >>> lowest, values = lattice_sum_pmf([1, 1])
    >>> lowest, round(float(sum(values)), 12)
    (-20, 1.0)
    """
    s2s = [as_sigma2(s) for s in sigma2s]
    if not s2s:
        raise ValueError("sigma2s must hold at least one variance")
    if coefficients is None:
        coefficients = [1] * len(s2s)
    coefficients = [as_int(c, "coefficients") for c in coefficients]
    if len(coefficients) != len(s2s) or 0 in coefficients:
        raise ValueError("coefficients must be nonzero integers, one per variance")
    digits = 17 if dps is None else as_dps(dps) + GUARD_DIGITS
    lowest, total = 0, None
    for s2, c in zip(s2s, coefficients):
        cutoff = direct_cutoff(float(s2), digits)
        support = range(-cutoff, cutoff + 1)
        if dps is None:
            factor = np.zeros(2 * cutoff * abs(c) + 1)
            factor[:: abs(c)] = pmf_float(np.array(support), s2)
            total = factor if total is None else np.convolve(total, factor)
        else:
            with mpmath.workdps(digits):
                log_theta = log_normalizer(s2, dps=digits)
                s = fraction_to_mpf(s2)
                factor = [mpmath.mpf(0)] * (2 * cutoff * abs(c) + 1)
                for j, x in enumerate(support):
                    factor[j * abs(c)] = mpmath.exp(-mpmath.mpf(x * x) / (2 * s) - log_theta)
                total = factor if total is None else _convolve_mp(total, factor)
        lowest -= cutoff * abs(c)
    return lowest, total


def _convolve_mp(a, b):
    out = [mpmath.mpf(0)] * (len(a) + len(b) - 1)
    nonzero_b = [(j, y) for j, y in enumerate(b) if y]
    for i, x in enumerate(a):
        if x:
            for j, y in nonzero_b:
                out[i + j] += x * y
    return out
