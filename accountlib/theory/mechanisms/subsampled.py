"""The Poisson-subsampled Gaussian mechanism: its RDP curve (CGF), zCDP ρ and gap, at any order (unifying paper §4.2).

Theory layer of :mod:`accountlib`. P_q = (1 − q)Q + q·N(s, z²) against Q = N(0, z²): the CGF by the exact binomial
sum at integer orders (Mironov, Talwar & Zhang 2019, §3.3), Gauss–Hermite quadrature where it is exact, a log-space
lattice or a split at the transition beyond, checked quadrature otherwise; the DP-SGD calibration built on it is
:mod:`accountlib.theory.dpsgd_calibration`.

>>> m = PoissonSubsampledGaussian(0.01, 1.0)
>>> abs(m.cgf(4.0) - sampled_gaussian_cgf(0.01, 1.0, 4)) < 1e-15, m.rho(1.0)   # ρ = s²/(2z²): no discount
(True, 0.5)
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import mpmath
import numpy as np
from scipy import integrate, special

from ...infrastructure.numbers import as_scale, as_shift, float_or_precise
from .base import (GH_NODES, NoiseMechanism, QuadratureError, expm1_minus_x, gauss_hermite_log, integrate_checked,
                   logsumexp)

__all__ = ["PoissonSubsampledGaussian", "sampled_gaussian_cgf", "sampled_gaussian_cgf_reference"]


def _log1p_excess_series(x: float) -> float:
    """(1 + x)·log1p(x) − x ≥ 0 without cancellation: Σ_{k≥2} (−x)^k/(k(k−1)) for |x| < 0.1."""
    if abs(x) >= 0.1:
        return (1 + x) * math.log1p(x) - x
    total, power = 0.0, x * x
    for k in range(2, 40):
        term = power / (k * (k - 1))
        total += term
        if abs(term) < 1e-18 * total:
            break
        power *= -x
    return total


def _weighted_pow1p_excess(alpha: float, big_l: float, log_weight: float) -> float:
    """e^{log_weight}·((1 + x)^α − 1 − αx) for x = e^L − 1 > −1 (given by L = ``big_l``), α = 1 + t > 1: ≥ 0 by
    convexity, and computed as (1 + x)(e^{tL} − 1 − tL) + t((1 + x)L − x), a sum of two non-negative terms (no
    cancellation, however small x or t); for large (1 + x)^α in log space (no overflow)."""
    t = alpha - 1
    if alpha * big_l > 300:
        first = math.exp(log_weight + alpha * big_l)
        if big_l < 700:
            return first - math.exp(log_weight) * (1 + alpha * math.expm1(big_l))
        return first - math.exp(log_weight + math.log(alpha) + big_l)
    x = math.expm1(big_l)
    value = (1 + x) * expm1_minus_x(t * big_l) + t * _log1p_excess_series(x)
    return math.exp(log_weight) * value if value > 0 else 0.0


def _log_add(a: float, b: float) -> float:
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    return max(a, b) + math.log1p(math.exp(-abs(a - b)))


_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _psg_breaks(centres):
    return [c + k for c in centres for k in (-30.0, -10.0, -3.0, 0.0, 3.0, 10.0, 30.0)]


def _psg_cgf_float(q: float, u: float, t: float) -> float:
    """K(t) = log E_{y~N(0,1)}[r(y)^α], r = 1 − q + q·e^{uy − u²/2}, α = t + 1, u = s/z, by checked quadrature.

    E_Q[r − 1] = 0, so E r^α − 1 = E[r^α − 1 − α(r − 1)], an integrand ≥ 0 (``_weighted_pow1p_excess``):
    K = log1p of it keeps its relative precision for small K. The integrand has up to two peaks, at y ≈ 0 and
    y ≈ αu (the tilted Gaussian term, of height e^F, F = α log q + α(α−1)u²/2); for F > 0 it is scaled by e^{−F}
    (nothing overflows). Raises :class:`QuadratureError` when the error estimate is not met."""
    alpha = t + 1
    log_q, log_1q = math.log(q), (math.log1p(-q) if q < 1 else -math.inf)
    big_f = alpha * log_q + alpha * t * u * u / 2
    c = max(0.0, big_f)

    def integrand(y):
        a = u * y - u * u / 2  # r = 1 + q·expm1(a); log r without overflow
        big_l = math.log1p(q * math.expm1(a)) if a < 30 else _log_add(log_1q, log_q + a)
        return _weighted_pow1p_excess(alpha, big_l, -y * y / 2 - _LOG_SQRT_2PI - c)

    transition = u / 2 + (log_1q - log_q) / u if q < 1 else 0.0
    centres = [0.0, alpha * u] + ([transition] if abs(transition) < 1e6 else [])
    floor = 1e-300 if c == 0 else math.exp(-c) * 1e-13
    value, _ = integrate_checked(integrand, _psg_breaks(centres), rel_tol=1e-11, floor=floor)
    if c == 0:
        return math.log1p(value)
    return c + math.log(math.exp(-c) + value)


def _psg_gap_float(q: float, u: float, t: float) -> float:
    """Γ(t) = ρt(t+1) − K(t), ρ = u²/2, without the subtraction: with y = αu + w (the tilt by e^{αL} of the
    Gaussian loss L = uy − u²/2),

        Γ(t) = −log J,   J = E_{w~N(0,1)}[(q + (1 − q)e^{m(w)})^α],   m(w) = −uw − (α − ½)u²  (0 < J ≤ 1).

    For J ≥ 1/2 (Γ ≤ log 2), J − 1 = α(1 − q)·expm1(−tu²) + E[(1 + v)^α − 1 − αv], v = (1 − q)expm1(m), a closed
    form plus a non-negative integral (no 1 + tiny cancellation); otherwise log J by a scaled quadrature."""
    alpha = t + 1
    log_q, log_1q = math.log(q), math.log1p(-q)
    near = -alpha * u  # w of the y = 0 peak (the (1 − q)^α term)
    transition = (log_1q - log_q) / u - (alpha - 0.5) * u
    centres = [0.0, near] + ([transition] if abs(transition) < 1e6 else [])
    floor_scale = 1e-300

    def log_g(w):
        m = -u * w - (alpha - 0.5) * u * u
        return alpha * _log_add(log_q, log_1q + m) - w * w / 2 - _LOG_SQRT_2PI

    c = max(float(log_g(x)) for x in centres)
    value, _ = integrate_checked(lambda w: math.exp(log_g(w) - c), _psg_breaks(centres), rel_tol=1e-12,
                                  floor=floor_scale)
    gap = -(c + math.log(value))
    if gap > math.log(2):
        return gap
    closed = alpha * (1 - q) * math.expm1(-t * u * u)

    def excess(w):
        m = -u * w - (alpha - 0.5) * u * u  # 1 + v = q + (1 − q)e^m
        big_l = math.log1p((1 - q) * math.expm1(m)) if m < 30 else _log_add(log_q, log_1q + m)
        return _weighted_pow1p_excess(alpha, big_l, -w * w / 2 - _LOG_SQRT_2PI)

    value, _ = integrate_checked(excess, _psg_breaks(centres), rel_tol=1e-11, floor=1e-300)
    j_minus_one = closed + value
    if not -1 < j_minus_one < 0:
        raise QuadratureError(f"Γ({t}): J − 1 = {j_minus_one!r} outside (−1, 0)")
    return -math.log1p(j_minus_one)


def _psg_log_moment_mp(q, u, t, *, gap: bool, dps: int):
    """mpmath (tanh-sinh, ``dps`` digits, error estimate checked) version of the two integrals above: K(t)
    (``gap=False``) or Γ(t) (``gap=True``), as an mpf; integer t by the exact binomial sums."""
    with mpmath.workdps(dps + 10):
        q_, u_, t_ = mpmath.mpf(q), mpmath.mpf(u), mpmath.mpf(t)
        alpha = t_ + 1
        if float(t).is_integer() and t < 2000:
            n = int(t) + 1
            if gap:  # J = Σ_k C(α,k) q^{α−k}(1−q)^k e^{−k(2α−1−k)u²/2}
                terms = [mpmath.binomial(n, k) * q_ ** (n - k) * (1 - q_) ** k * mpmath.exp(-k * (2 * n - 1 - k) * u_**2 / 2)
                         for k in range(n + 1)]
                return -mpmath.log(mpmath.fsum(terms))
            terms = [mpmath.binomial(n, k) * (1 - q_) ** (n - k) * q_**k * mpmath.exp((k * k - k) * u_**2 / 2)
                     for k in range(n + 1)]
            return mpmath.log(mpmath.fsum(terms))
        if gap:
            f = lambda w: mpmath.npdf(w) * (q_ + (1 - q_) * mpmath.exp(-u_ * w - (alpha - mpmath.mpf(1) / 2) * u_**2)) ** alpha
            centres = [0, -alpha * u_]
        else:
            f = lambda y: mpmath.npdf(y) * (1 - q_ + q_ * mpmath.exp(u_ * y - u_**2 / 2)) ** alpha
            centres = [0, alpha * u_]
        points = sorted(set(float(p) for c in centres for p in (c - 30, c - 10, c - 3, c, c + 3, c + 10, c + 30)))
        value, error = mpmath.quad(f, [-mpmath.inf] + [mpmath.mpf(p) for p in points] + [mpmath.inf], error=True,
                                   maxdegree=12)
        if not (value > 0 and error <= mpmath.mpf(10) ** (-dps) * value):
            raise QuadratureError(f"K({t}) of the subsampled Gaussian: mpmath error estimate {mpmath.nstr(error, 3)}")
        if gap:
            # J ≈ 1 when Γ is tiny: J − 1 carries dps − log10(1/Γ) digits; the caller raises dps until enough
            return -mpmath.log(value)
        return mpmath.log(value)


_GH_EXACT_TILT = 20.0
"""Largest tilt c = (t + 1)s/z at which the Gauss–Hermite rule of :data:`GH_NODES` nodes is trusted for the
subsampled Gaussian: it integrates E e^{cY} = e^{c²/2} (Y ~ N(0, 1)) to ≤ 6e-16 relative up to c = 20.5 and misses
by 4e-14 at c = 21, 1e-8 at c = 22, 1e-2 at c = 25 (its outermost node is at |y| ≈ 26.8), and the integrand's tilted peak sits
at y ≈ c."""

_SMALL_K = 1e-4
"""Below this K the rule's ~1e-16 absolute error in E_Q[r^α] ≈ 1 + K is no longer negligible relative to K; the
non-negative excess r^α − 1 − α(r − 1) is integrated instead (``_psg_excess_nodes``)."""


_GH_EXCESS_SHIFT = 3.0
"""Largest u = s/z at which the excess of ``_psg_excess_nodes`` is integrated on the Gauss–Hermite nodes
(measured against checked quadrature: ≤ 1e-12 relative up to u = 3, 5e-11 at u = 4, 2e-8 at u = 7; the branch
points of r^α at distance π/u from the real axis slow the rule's convergence for large u)."""


def expm1_minus_x_array(x):
    """e^x − 1 − x elementwise without cancellation (Taylor series for |x| < 0.5)."""
    x = np.asarray(x, dtype=float)
    small = np.abs(x) < 0.5
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.expm1(x) - x
    if small.any():
        xs = x[small]
        largest, terms = float(np.max(np.abs(xs))), 3  # x^n/n! ≤ 1e-17·x²/2 for n ≥ terms + 2
        while terms < 24 and 2 * largest ** terms / math.factorial(terms + 2) > 1e-17:
            terms += 1
        total, term = xs * xs / 2, xs * xs / 2
        for n in range(3, terms + 3):
            term = term * xs / n
            total = total + term
        out[small] = total
    return out


def _log1p_excess_array(x):
    """(1 + x)·log1p(x) − x ≥ 0 elementwise without cancellation (Σ_{k≥2} (−x)^k/(k(k−1)) for |x| < 0.1)."""
    x = np.asarray(x, dtype=float)
    small = np.abs(x) < 0.1
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = (1 + x) * np.log1p(x) - x
    if small.any():
        xs = x[small]
        largest, top = float(np.max(np.abs(xs))), 3  # |x|^k/(k(k−1)) ≤ 1e-17·x²/2 for k > top
        while top < 24 and 2 * largest ** (top - 1) / (top * (top + 1)) > 1e-17:
            top += 1
        total, power = xs * xs / 2, xs * xs
        for k in range(3, top + 1):
            power = power * -xs
            total = total + power / (k * (k - 1))
        out[small] = total
    return out


def _psg_excess_nodes(q: float, u: float, t: float, y, log_w, scale: float = 0.0) -> float:
    """Σ_i w_i (r(y_i)^α − 1 − α(r(y_i) − 1)) ≥ 0, r = 1 − q + q·e^{uy − u²/2}, α = t + 1: the vectorised
    ``_weighted_pow1p_excess`` (two non-negative terms, no cancellation however small K is). With weights of
    a rule exact for E_Q[r − 1] = 0, log1p of it is K. Given a rough ``scale`` > 0 of the sum, the nodes whose
    term is provably below e^{−45}·scale are skipped (the excess is ≤ α·e^{α·max(0, log r)})."""
    alpha = t + 1
    a = u * y - u * u / 2
    with np.errstate(over="ignore"):
        big_l = np.where(a < 30, np.log1p(q * np.expm1(np.minimum(a, 30))),
                         np.logaddexp(math.log1p(-q), math.log(q) + a))
    if scale > 0:
        keep = log_w + math.log(alpha) + alpha * np.maximum(big_l, 0.0) > math.log(scale) - 45
        big_l, log_w = big_l[keep], log_w[keep]
    large = alpha * big_l > 300
    x = np.expm1(np.minimum(big_l, 300 / alpha))
    value = (1 + x) * expm1_minus_x_array(t * np.minimum(big_l, 300 / alpha)) + t * _log1p_excess_array(x)
    terms = np.exp(log_w) * np.maximum(value, 0.0)
    if large.any():  # (1 + x)^α dominates: e^{αL} − (1 + αx) in log space
        bl, lw = big_l[large], log_w[large]
        terms[large] = np.exp(lw + alpha * bl) - np.exp(lw) * (1 + alpha * np.expm1(np.minimum(bl, 700)))
    return float(np.sum(terms))


_LATTICE_MAX_POINTS = 400_000


def _psg_cgf_lattice(q: float, u: float, t: float, excess_scale: float = 0.0) -> float | None:
    """K(t) = log E_{y~N(0,1)}[r(y)^α] by the trapezoid rule on a lattice, in log space, for a tilt αu beyond
    the Gauss–Hermite nodes; None where the lattice would be too fine or too long (the caller falls back).

    The integrand f = r^α φ is analytic in the strip |Im y| < π/u (the branch points of r^α lie at
    y_T + iπ(2k+1)/u) and |f(x + id)| ≤ e^{d²/2} f(x) there (|r(x + id)| ≤ r(x)), so with d = min(0.9π/u, 6) the
    step h = 2πd/(45 + d²/2) leaves a relative error ≤ 2e^{−45}. The lattice is kept only on three windows: the
    peaks y ≈ 0 and y ≈ αu (±11: log r ≥ the larger of the two terms' logs, each a Gaussian in y whose peak is
    below the true maximum, so outside them the integrand is below e^{−60} of it) and the transition y_T where
    the two terms of r are equal (outside ±(log α + 50)/u, log r exceeds the larger term's log by < e^{−50}),
    clipped to where the α log 2 excess there could matter at all. Near the tilted peak the exponent is written
    in w = y − αu: α log q + α t u²/2 − w²/2 + α log1p((1 − q)/q·e^{−a}), no large cancelling terms.

    With ``excess_scale`` > 0 (a rough value of E_Q[r^α] − 1, for K below ``_SMALL_K``) the lattice sums the
    non-negative excess r^α − 1 − α(r − 1) instead (``_psg_excess_nodes``), analytic in the same strip and
    bounded there by e^{d²/2}φ(x)(r^α + 1 + α(r + 1)), whose integral is ≤ e^{d²/2}(3 + 2α + E r^α): the step and
    the windows are shrunk and widened by E = log(1/excess_scale) more in the exponent, so the error stays below
    e^{−45} of the excess itself."""
    alpha = t + 1
    log_q, log_1q = math.log(q), math.log1p(-q)
    extra = max(0.0, -math.log(excess_scale)) + math.log(3 + 2 * alpha) if excess_scale > 0 else 0.0
    d = min(0.9 * math.pi / u, 6.0)
    h = 2 * math.pi * d / (45 + extra + d * d / 2)
    centre = alpha * u
    y_t = u / 2 + (log_1q - log_q) / u
    reach = math.sqrt(2 * (alpha * math.log(2) + 60 + extra))
    width = math.sqrt(121 + 2 * extra)
    windows = [(-width, width), (centre - width, centre + width)]
    half = (math.log(alpha) + 50 + extra) / u
    lo, hi = max(y_t - half, -reach), min(y_t + half, centre + reach)
    if lo < hi:
        windows.append((lo, hi))
    ranges = sorted((math.ceil((a - centre) / h), math.floor((b - centre) / h)) for a, b in windows)
    merged = []
    for a, b in ranges:
        if merged and a <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    if sum(b - a + 1 for a, b in merged) > _LATTICE_MAX_POINTS:
        return None
    w = np.concatenate([np.arange(a, b + 1, dtype=float) for a, b in merged]) * h
    y = centre + w
    if excess_scale > 0:
        return math.log1p(_psg_excess_nodes(q, u, t, y, math.log(h) - y * y / 2 - _LOG_SQRT_2PI))
    a = u * y - u * u / 2
    tilted = a > log_1q - log_q
    g = np.empty_like(y)
    # the tilted term dominates: α(log q + a) − y²/2 = α log q + α t u²/2 − w²/2 exactly
    at, wt = a[tilted], w[tilted]
    g[tilted] = alpha * log_q + alpha * t * u * u / 2 - wt * wt / 2 + alpha * np.log1p(np.exp(log_1q - log_q - at))
    ao, yo = a[~tilted], y[~tilted]
    g[~tilted] = alpha * (log_1q + np.log1p(np.exp(log_q - log_1q + ao))) - yo * yo / 2
    return logsumexp(g) + math.log(h) - _LOG_SQRT_2PI



def _psg_cgf_split(q: float, u: float, t: float) -> float:
    """K(t) split at the transition y_T where the two terms of r = (1 − q) + q·e^{uy − u²/2} are equal, for large u
    (where the lattice would need too many points): with w_T = y_T − αu,

        E r^α = (1 − q)^α [Φ(y_T) + C₁] + q^α e^{αtu²/2} [Φ̄(w_T) + C₂],
        C₁ = ∫_0^∞ φ(y_T − v)((1 + e^{−uv})^α − 1) dv,   C₂ = ∫_0^∞ φ(w_T + v)((1 + e^{−uv})^α − 1) dv,

    exactly (r = (1 − q)(1 + e^{u(y − y_T)}) below y_T, q e^{uy − u²/2}(1 + e^{−u(y − y_T)}) above, and
    φ(y)e^{α(uy − u²/2)} = e^{αtu²/2}φ(y − αu)). The C's are checked quadratures in x = uv of non-negative
    integrands that fall like αe^{−x}, in log space (no overflow); everything else is closed form."""
    alpha = t + 1
    log_q, log_1q = math.log(q), math.log1p(-q)
    y_t = u / 2 + (log_1q - log_q) / u
    w_t = y_t - alpha * u

    def log_c(start, sign):
        # (1 + e^{−x})^α − 1 ≤ α2^{α−1}e^{−x} and ∫_0^∞ φ(start ± v)e^{−uv}dv = e^{±u·start + u²/2}Φ̄(±start + u):
        # where that bound is below e^{−40} of the Φ term, C is negligible (and its integrand peaks far out)
        bound = math.log(alpha) + t * math.log(2) + sign * u * start + u * u / 2 + special.log_ndtr(-(sign * start + u))
        if bound < special.log_ndtr(-sign * start) - 40:
            return -math.inf

        def g(x):  # log of φ(v)((1 + e^{−x})^α − 1)/u, v = start ± x/u
            v = start + sign * x / u
            a = alpha * math.log1p(math.exp(-x))
            log_excess = math.log(math.expm1(a)) if a > 1e-8 else math.log(alpha) - x + math.log1p(a / 2 - math.exp(-x) / 2)
            return -v * v / 2 - _LOG_SQRT_2PI + log_excess - math.log(u)
        top = 60 + math.log(alpha)
        grid = [0.0] + list(np.logspace(-3, math.log10(top), 30))
        c = max(g(x) for x in grid)
        breaks = [0.0, 1.0, 3.0, 10.0, 30.0, top, top + 50]  # beyond, the integrand is below e^{−110} of its top
        value, error = 0.0, 0.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", integrate.IntegrationWarning)  # the error estimate is checked below
            for a, b in zip(breaks, breaks[1:]):
                part, err = integrate.quad(lambda x: math.exp(g(x) - c), a, b, epsabs=0, epsrel=1e-13, limit=200)
                value, error = value + part, error + err
        if not error <= 1e-11 * value:
            raise QuadratureError(f"K({t}) of the subsampled Gaussian: split quadrature error {error:.3g}")
        return c + math.log(value)

    low = alpha * log_1q + float(np.logaddexp(special.log_ndtr(y_t), log_c(y_t, -1.0)))
    high = alpha * log_q + alpha * t * u * u / 2 + float(np.logaddexp(special.log_ndtr(-w_t), log_c(w_t, 1.0)))
    return float(np.logaddexp(low, high))


@dataclass(frozen=True)
class PoissonSubsampledGaussian(NoiseMechanism):
    """P_q = (1 − q)Q + q·N(v, z²C²I) against Q = N(0, z²C²I) (§4.2); s = ‖v‖/C.

    Only the projection on v matters, so the pair is one-dimensional:
    K(t) = log E_Q[(1 − q + q·e^{(2xs − s²)/(2z²)})^{t+1}], x ~ N(0, z²), by
    Gauss–Hermite quadrature where it is exact, a log-space lattice beyond (:meth:`cgf`), the exact binomial
    sum at integer t. ρ = s²/(2z²): the
    sup of K/(t(t+1)) is approached as t → ∞, so zCDP gets no subsampling discount.

    >>> m = PoissonSubsampledGaussian(0.01, 1.0)
    >>> m.rho(1.0), round(m.cgf(4.0), 12), m.gap(4.0, 1.0) > 0   # no subsampling discount in ρ
    (0.5, 0.001874668969, True)
    """

    q: float = 0.01
    z: float = 1.0
    name = "Poisson-subsampled Gaussian"

    def __post_init__(self):
        q = float(self.q)
        if not (math.isfinite(q) and 0 < q <= 1):
            raise ValueError(f"q must be in (0, 1]; got {self.q!r}")
        as_scale(self.z, "z")

    def cgf_with_nodes(self, t, s, nodes):
        """K(t) by an n-node Gauss–Hermite rule (the exact binomial sum at integer t < 400)."""
        if float(t).is_integer() and t < 400:
            return sampled_gaussian_cgf(self.q, self.z, int(t), s)
        x, log_w = gauss_hermite_log(nodes)
        points = math.sqrt(2) * self.z * x
        log_ratio = np.logaddexp(math.log1p(-self.q) if self.q < 1 else -np.inf,
                                 math.log(self.q) + (2 * points * s - s * s) / (2 * self.z**2))
        return logsumexp((t + 1) * log_ratio + log_w)

    def cgf(self, t, s=1.0):
        """K(t): the exact binomial sum at integer t < 400; otherwise Gauss–Hermite (:meth:`cgf_with_nodes`)
        where the tilted peak y ≈ (t + 1)s/z of the integrand lies within the rule's exact range
        (``_GH_EXACT_TILT``), with the non-negative excess integrated on the same nodes when K < 1e-4
        (``_psg_excess_nodes``: the rule's 1e-16 absolute error would otherwise be a large relative one);
        beyond it the rule misses the peak (q = 0.05, z = 1, t = 30.5 gave 373.77 for 386.009; z = 1e-3 a
        negative K), and K is a trapezoid sum in log space on the peaks' lattice (``_psg_cgf_lattice``),
        else checked log-space quadrature (``_psg_cgf_float``), else 30-digit mpmath quadrature."""
        return self.cgf_of_checked_arguments(as_scale(t, "t"), as_shift(s))

    def cgf_of_checked_arguments(self, t: float, s: float) -> float:
        """:meth:`cgf` on arguments already checked (floats t > 0, s ≥ 0): the DP-SGD calibration's RDP curve calls
        it some 200 times per ε, where the checks took a sixth of the time."""
        if s == 0:
            return 0.0
        q, u = float(self.q), s / self.z
        if float(t).is_integer() and t < 400:
            value = sampled_gaussian_cgf(self.q, self.z, int(t), s)
            if value >= _SMALL_K or q == 1:
                return value
            # the float sum ≈ 1 + K leaves K an absolute error of ~1e-16: the same sum in mpmath, with the digits K lacks
            digits = 30 + max(0, int(-math.log10(value))) if value > 0 else 330
            return float(_psg_log_moment_mp(q, u, t, gap=False, dps=digits))
        if q == 1:
            return t * (t + 1) * u * u / 2
        if (t + 1) * u <= _GH_EXACT_TILT:
            fast = self.cgf_with_nodes(t, s, GH_NODES)
            if fast >= _SMALL_K:
                return fast
            if u <= _GH_EXCESS_SHIFT:
                x, log_w = gauss_hermite_log(GH_NODES)
                return math.log1p(_psg_excess_nodes(q, u, t, math.sqrt(2) * x, log_w, scale=fast))
        value = _psg_cgf_lattice(q, u, t)
        if value is not None and math.isfinite(value) and value >= _SMALL_K:
            return value
        if value is not None and math.isfinite(value) and value > 1e-300:
            small = _psg_cgf_lattice(q, u, t, excess_scale=math.expm1(value))
            if small is not None and math.isfinite(small) and small > 0:
                return small
        if value is None:  # the lattice would be too long (u large): the split at the transition
            try:
                split = _psg_cgf_split(q, u, t)
                if math.isfinite(split) and split >= _SMALL_K:
                    return split
            except (QuadratureError, OverflowError, ValueError):
                pass
        try:
            return _psg_cgf_float(q, u, t)
        except (QuadratureError, OverflowError, ValueError):
            return float(_psg_log_moment_mp(q, u, t, gap=False, dps=30))

    def _cgf_negative(self, u, s):
        return self.cgf_with_nodes(u, as_shift(s), GH_NODES)

    def cgf_check(self, t, s=1.0):
        """|K(t) − K(t) by 30-digit mpmath| (mpmath quadrature at non-integer t, the binomial sum at integer t):
        a failure of the float evaluation (such as the Gauss–Hermite rule missing the peak) shows here."""
        t, s = as_scale(t, "t"), as_shift(s)
        if s == 0:
            return 0.0
        reference = _psg_log_moment_mp(float(self.q), s / self.z, t, gap=False, dps=30)
        return abs(self.cgf(t, s) - float(reference))

    def gap(self, t, s=1.0):
        """Γ(t) = ρt(t+1) − K(t) ≥ 0 without subtracting K from ρt(t+1) (``_psg_gap_float``: Γ = −log J, J an
        integral ≤ 1); at integer t by the exact binomial sum for J in mpmath; mpmath quadrature if the float
        quadrature fails its check. The precision is raised until Γ has ~15 correct digits, so a positive Γ is
        never 0 (exactly 0 at q = 1, where P is Gaussian)."""
        t, s = as_scale(t, "t"), as_shift(s)
        if s == 0 or self.q == 1:
            return 0.0
        q, u = float(self.q), s / self.z
        if not (float(t).is_integer() and t < 2000):
            try:
                value = _psg_gap_float(q, u, t)
                if value > 0 and math.isfinite(value):
                    return value
            except (QuadratureError, OverflowError, ValueError):
                pass
        dps = 30
        while True:
            value = _psg_log_moment_mp(q, u, t, gap=True, dps=dps)
            if value > 0 and mpmath.mag(value) > -3.32 * (dps - 20) or dps > 1000:
                return float_or_precise(max(value, 0))
            dps = 2 * dps if value <= 0 else max(dps + 20, int(25 - 0.302 * float(mpmath.mag(value))) + 10)

    def _rho_closed_form(self, s):
        return s * s / (2 * self.z**2)


def sampled_gaussian_cgf(q: float, z: float, t: int, s: float = 1.0) -> float:
    """Exact K(t) of the sampled Gaussian at integer t ≥ 1 (Mironov, Talwar & Zhang 2019, §3.3):
    E_Q[(p/q)^{t+1}] = Σ_k C(t+1, k)(1−q)^{t+1−k} q^k e^{(k²−k)s²/(2z²)}."""
    alpha = t + 1
    terms = []
    for k in range(alpha + 1):
        log_term = special.gammaln(alpha + 1) - special.gammaln(k + 1) - special.gammaln(alpha - k + 1)
        log_term += k * math.log(q) + ((alpha - k) * math.log1p(-q) if q < 1 else (0 if k == alpha else -math.inf))
        log_term += (k * k - k) * s * s / (2 * z * z)
        terms.append(log_term)
    return logsumexp(terms)


def sampled_gaussian_cgf_reference(q: float, z: float, t: float, s: float = 1.0, *, dps: int = 30) -> float:
    """K(t) of the Poisson-subsampled Gaussian at any order t > 0 by mpmath tanh-sinh quadrature at ``dps``
    digits: log ∫ φ(x)(1 − q + q·e^{(2xs − s²)/(2z²)})^{t+1} dx over x ~ N(0, z²), independent of the
    Gauss–Hermite rule (the reference for the resolution check of Appendix D.2)."""
    t, s = as_scale(t, "t"), as_shift(s)
    with mpmath.workdps(dps + 10):
        q_, z_, t_, s_ = (mpmath.mpf(v) for v in (q, z, t, s))
        density = lambda x: mpmath.npdf(x, 0, z_)
        ratio = lambda x: 1 - q_ + q_ * mpmath.exp((2 * x * s_ - s_ * s_) / (2 * z_ * z_))
        peak = (t_ + 1) * s_  # where the tilted integrand concentrates for q = 1
        value, error = mpmath.quad(lambda x: density(x) * ratio(x) ** (t_ + 1),
                                   [-mpmath.inf, -10 * z_, 0, peak, peak + 10 * z_, mpmath.inf], error=True)
        if not error < mpmath.mpf(10) ** (-dps) * value:
            raise QuadratureError(f"reference quadrature error {mpmath.nstr(error, 3)} too large")
        return float(mpmath.log(value))
