"""Continuous additive noises with closed forms or Gauss–Hermite CGFs: Gaussian, Laplace, a Gaussian mixture.

Theory layer of :mod:`accountlib` (unifying paper, Prop. 4.1). Each is a :class:`~.base.NoiseMechanism`:
``cgf(t, s)``, ``rho(s)``, ``gap(t, s)``.

>>> Gaussian(2.0).rho(1.0), Gaussian(2.0).gap(3.0, 1.0)      # ρ = s²/(2σ²), Γ ≡ 0
(0.125, 0.0)
>>> round(Laplace(1.0).rho(1.0), 12)                          # ρ = r + e^{−r} − 1 at r = 1
0.367879441171
>>> GaussianMixture(1.0).rho(1.0), GaussianMixture(1.0).gap(1.0, 1.0) > 0
(0.5, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np

from ...infrastructure.numbers import as_scale, as_shift, float_or_precise
from .base import GH_NODES, NoiseMechanism, QuadratureError, expm1_minus_x, gauss_hermite_log, logsumexp

__all__ = ["Gaussian", "Laplace", "GaussianMixture"]


@dataclass(frozen=True)
class Gaussian(NoiseMechanism):
    """N(0, σ²) noise: K = t(t+1)s²/(2σ²), ρ = s²/(2σ²), Γ ≡ 0 (Prop. 4.1(i)).

    >>> Gaussian(2.0).cgf(1.0, 1.0), Gaussian(2.0).rho(1.0), Gaussian(2.0).gap(3.0, 1.0)
    (0.25, 0.125, 0.0)
    """

    sigma: float = 1.0
    name = "Gaussian"

    def __post_init__(self):
        as_scale(self.sigma, "sigma")

    def cgf(self, t, s):
        """K(t) = log E_Q[(dP/dQ)^{t+1}] at order t > 0 for query change s (arguments checked)."""
        t, s = as_scale(t, "t"), as_shift(s)
        return t * (t + 1) * s * s / (2 * self.sigma**2)

    def _cgf_negative(self, u, s):
        return u * (u + 1) * s * s / (2 * self.sigma**2)

    def _rho_closed_form(self, s):
        return s * s / (2 * self.sigma**2)

    def rdp(self, alpha, s) -> float:
        """D_α = α s²/(2σ²) = ρ(s)·α exactly (so RDP and zCDP calibrations coincide bit for bit)."""
        alpha = float(alpha)
        if not alpha > 1:
            raise ValueError(f"alpha must be > 1; got {alpha!r}")
        return self.rho(s) * alpha


@dataclass(frozen=True)
class Laplace(NoiseMechanism):
    """Laplace noise with density e^{−|x|/b}/(2b); r = |s|/b.

    K(t) = log[(t+1)/(2t+1)·e^{tr} + t/(2t+1)·e^{−(t+1)r}], ρ = r + e^{−r} − 1
    (Prop. 4.1(iii); Harrison & Manurangsi 2026).

    >>> round(Laplace(1.0).rho(1.0), 12), round(Laplace(1.0).gap(1.0, 1.0), 12)
    (0.367879441171, 0.116635252344)
    """

    scale: float = 1.0
    name = "Laplace"

    def __post_init__(self):
        as_scale(self.scale, "scale")

    def cgf(self, t, s):
        """K(t) = log E_Q[(dP/dQ)^{t+1}] at order t > 0 for query change s (arguments checked)."""
        t, r = as_scale(t, "t"), as_shift(s) / self.scale
        return _laplace_cgf(t, r)

    def _cgf_negative(self, u, s):
        return _laplace_cgf(u, as_shift(s) / self.scale)

    def _rho_closed_form(self, s):
        r = s / self.scale
        return expm1_minus_x(-r)  # r + e^{−r} − 1, by its series for small r (no cancellation)

    def gap(self, t, s):
        """Γ(t) = ρt(t+1) − K(t): O(r⁴) while ρ and K are O(r²), so for r < 1 the difference of the closed forms
        is taken in mpmath at a precision that covers the cancellation (float64 lost ~1e-16/r⁴ of it)."""
        t, r = as_scale(t, "t"), as_shift(s) / self.scale
        if r >= 1 or r == 0:
            return super().gap(t, s)
        with mpmath.workdps(30 + int(4 * max(0.0, -math.log10(r))) + int(max(0.0, math.log10(t)))):
            t_, r_ = mpmath.mpf(t), mpmath.mpf(r)
            rho = r_ + mpmath.expm1(-r_)
            k = mpmath.log((t_ + 1) / (2 * t_ + 1) * mpmath.exp(t_ * r_) + t_ / (2 * t_ + 1) * mpmath.exp(-(t_ + 1) * r_))
            return float_or_precise(max(rho * t_ * (t_ + 1) - k, 0))


def _laplace_cgf(t, r):
    # log[(t+1)/(2t+1) e^{tr} + t/(2t+1) e^{-(t+1)r}], in a stable form
    if t > 0 and (t + 1) * r < 700:
        # E − 1 = [(t+1)(e^{tr} − 1 − tr) + t(e^{−(t+1)r} − 1 + (t+1)r)]/(2t+1): the first orders cancel exactly,
        # so both terms are ≥ 0 and E − 1 ≈ t(t+1)r²/2 keeps its relative precision however small r or t is
        return math.log1p(((t + 1) * expm1_minus_x(t * r) + t * expm1_minus_x(-(t + 1) * r)) / (2 * t + 1))
    a = math.log((t + 1) / (2 * t + 1)) + t * r
    if t == 0:
        return 0.0
    second = t / (2 * t + 1)
    if second > 0:
        b = math.log(second) - (t + 1) * r
        return max(a, b) + math.log1p(math.exp(-abs(a - b)))
    # -1/2 < t < 0: the second weight is negative
    return a + math.log1p(second * math.exp(-(t + 1) * r - t * r) * (2 * t + 1) / (t + 1))


@dataclass(frozen=True)
class GaussianMixture(NoiseMechanism):
    """½N(−m, 1) + ½N(m, 1) noise: ρ = s²/2 (Prop. 4.1(ii)); K by Gauss–Hermite quadrature.

    E_Q[g] = ½Σ_± E g(±m + N(0,1)), each expectation by an n-node Gauss–Hermite rule
    (n = 192; ``cgf_check`` compares with 384 nodes).

    >>> m = GaussianMixture(1.0)
    >>> m.rho(1.0), round(m.cgf(1.0, 1.0), 10), m.cgf_check(1.0, 1.0) < 1e-12
    (0.5, 0.657809193, True)
    """

    m: float = 1.0
    name = "Gaussian mixture"

    def __post_init__(self):
        if not (math.isfinite(float(self.m)) and float(self.m) >= 0):
            raise ValueError(f"m must be a finite number >= 0; got {self.m!r}")

    def _log_density(self, x):
        m = self.m
        return np.logaddexp(-(x - m) ** 2 / 2, -(x + m) ** 2 / 2) - math.log(2 * math.sqrt(2 * math.pi))

    _CENTRE_FROM = 3.0  # recentre the rule when the integrand peaks beyond |x| = 3 (of the Gauss–Hermite variable)

    def _log_integrand(self, t, s, sign, x):
        """log f(x) with E g(sign·m + N(0,1)) = π^{-1/2} ∫ f(x) e^{−x²} dx, f = (q/p)^{t+1} at sign·m + √2x."""
        points = sign * self.m + math.sqrt(2) * x
        return (t + 1) * (self._log_density(points - s) - self._log_density(points))

    def _peak(self, t, s, sign) -> float:
        """Roughly where log f(x) − x² is largest (x ≈ (t+1)s/√2 for large (t+1)s): the recentred rule needs its
        centre within a node spacing or so of the peak, not more, so two vectorised grid scans suffice."""
        guess = (t + 1) * s / math.sqrt(2)
        grid = np.linspace(min(0.0, guess) - 4, max(0.0, guess) + 4, 65)
        for _ in range(2):
            values = self._log_integrand(t, s, sign, grid) - grid * grid
            best = grid[int(np.argmax(values))]
            step = grid[1] - grid[0]
            grid = np.linspace(best - step, best + step, 33)
        return float(best)

    def cgf_with_nodes(self, t, s, nodes):
        """K(t) by an n-node Gauss–Hermite rule per mixture component.

        When (t+1)s is large the integrand (q/p)^{t+1}e^{−x²} peaks far out (x ≈ (t+1)s/√2), beyond the
        rule's nodes; the rule is then recentred on the peak c: ∫ f(x)e^{−x²}dx = ∫ f(c+y)e^{−2cy−c²} e^{−y²}dy.
        """
        x, log_w = gauss_hermite_log(nodes)
        total = []
        for sign in (-1.0, 1.0):
            centre = self._peak(t, s, sign) if abs((t + 1) * s) / math.sqrt(2) > self._CENTRE_FROM else 0.0
            if abs(centre) <= self._CENTRE_FROM:
                total.append(logsumexp(self._log_integrand(t, s, sign, x) + log_w))
            else:
                total.append(logsumexp(self._log_integrand(t, s, sign, centre + x) - 2 * centre * x
                                        - centre * centre + log_w))
        return float(np.logaddexp(*total) - math.log(2))

    def cgf(self, t, s):
        """K(t) = log E_Q[(dP/dQ)^{t+1}] at order t > 0 for query change s (arguments checked)."""
        return self.cgf_with_nodes(as_scale(t, "t"), as_shift(s), GH_NODES)

    def _cgf_negative(self, u, s):
        return self.cgf_with_nodes(u, as_shift(s), GH_NODES)

    def cgf_check(self, t, s):
        """|K at 192 Gauss–Hermite nodes − K at 384|: the rule's convergence at (t, s)."""
        return abs(self.cgf_with_nodes(as_scale(t, "t"), as_shift(s), GH_NODES) - self.cgf_with_nodes(as_scale(t, "t"), as_shift(s), 2 * GH_NODES))

    def _rho_closed_form(self, s):
        return s * s / 2

    def gap(self, t, s):
        """Γ(t) = ρt(t+1) − K(t), ρ = s²/2. Where K's error (Gauss–Hermite at 192 against 384 nodes, plus
        rounding) is below 1e-12·Γ the subtraction is kept; otherwise (m or s small: P nearly Gaussian) Γ is computed without it: with φ(x−s)^α φ(x)^{1−α} =
        e^{ρt(t+1)} φ(x − αs) and e^{−m²/2}cosh(mx) φ(x − αs) = ½Σ_± e^{±αsm} φ(x − αs ∓ m),

            Γ = −log J,   J = ½ Σ_± e^{±αsm} E_{x~N(αs±m, 1)}[(cosh(m(x − s))/cosh(mx))^α]   (0 < J ≤ 1),

        J by mpmath quadrature, the precision raised (``mpmath.workdps``) until Γ has ~15 correct digits, so a
        positive Γ is never returned as 0 or negative (exactly 0 at m = 0 or s = 0, where P = Law(s + Z) with
        Gaussian Z or P = Q)."""
        t, s = as_scale(t, "t"), as_shift(s)
        m = float(self.m)
        if s == 0 or m == 0:
            return 0.0
        rho_part = s * s / 2 * t * (t + 1)
        k = self.cgf(t, s)
        gap = rho_part - k
        # the subtraction is kept where K's error (the doubled rule's change, plus rounding) is below 1e-12·Γ
        error = abs(k - self.cgf_with_nodes(t, s, 2 * GH_NODES)) + 4e-16 * (abs(k) + rho_part)
        if gap > 0 and error <= 1e-12 * gap:
            return gap
        dps = 30
        while True:
            value = _mixture_gap_mp(m, s, t, dps)
            if value > 0 and mpmath.mag(value) > -3.32 * (dps - 20) or dps > 1000:
                return float_or_precise(max(value, 0))
            dps = 2 * dps if value <= 0 else max(dps + 20, int(25 - 0.302 * float(mpmath.mag(value))) + 10)


def _mixture_gap_mp(m: float, s: float, t: float, dps: int):
    """Γ = −log J of :meth:`GaussianMixture.gap` by mpmath quadrature at ``dps`` digits (error estimate checked),
    as an mpf: J ≈ 1 when Γ is tiny, and J − 1 then carries dps − log10(1/Γ) digits (the caller raises dps)."""
    with mpmath.workdps(dps + 10):
        m_, s_, alpha = mpmath.mpf(m), mpmath.mpf(s), mpmath.mpf(t) + 1

        def log_cosh(x):
            x = abs(x)
            return x + mpmath.log1p(mpmath.exp(-2 * x)) - mpmath.log(2)

        total = 0
        for sign in (1, -1):
            c = alpha * s_ + sign * m_
            f = lambda x, c=c: mpmath.npdf(x, c, 1) * mpmath.exp(alpha * (log_cosh(m_ * (x - s_)) - log_cosh(m_ * x)))  # noqa: E731
            points = sorted(set(float(p) for p in (c - 12, c, c + 12, 0, s)))
            value, error = mpmath.quad(f, [-mpmath.inf] + [mpmath.mpf(p) for p in points] + [mpmath.inf], error=True)
            if not (value > 0 and error <= mpmath.mpf(10) ** (-dps) * value):
                raise QuadratureError(f"Γ({t}) of the Gaussian mixture: mpmath error estimate {mpmath.nstr(error, 3)}")
            total += mpmath.exp(sign * alpha * s_ * m_) * value
        return -mpmath.log(total / 2)
