"""Heavy-tailed noises, by checked quadrature: Student-t and the generalized Gaussian (unifying paper §4.4, App. C.6–C.7).

Theory layer of :mod:`accountlib`. :class:`QuadratureNoise` is the symmetric continuous noise given by its
log-density, whose CGF, KL divergence, ρ and gap Γ are integrals computed with their error estimates checked (float64
QUADPACK, then mpmath tanh-sinh); :class:`StudentT` and :class:`GeneralizedGaussian` are its two families.

>>> round(StudentT(3.0).rho(0.5), 8) == round(StudentT(3.0).kl(0.5), 8)   # small shifts: ρ is the KL endpoint
True
>>> GeneralizedGaussian(2.0).gap(1.0, 1.0), GeneralizedGaussian(3.0).rho(1.0)   # N(0, 1); β > 2 is not zCDP
(0.0, inf)
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass

import mpmath
import numpy as np
from scipy import optimize, special

from ...infrastructure.numbers import as_scale, as_shift, float_or_precise
from .base import NoiseMechanism, QuadratureError, integrate_checked, sup_located

__all__ = ["QuadratureNoise", "StudentT", "GeneralizedGaussian"]


class QuadratureNoise(NoiseMechanism):
    """Symmetric continuous noise with log-density ℓ; K by checked quadrature (no overflow, no silent failure).

    With Δ(x) = ℓ(x − s) − ℓ(x) the privacy loss at output x, E_Q[e^{(t+1)Δ}] = E_P[e^{tΔ}] and
    E_P[1] = 1, so

        K(t) = c + log( e^{−c} + ∫ p(x)·e^{−c}·(e^{tΔ(x)} − 1) dx ),     c = max(0, max_x log p(x) + tΔ(x)).

    For small t (c = 0) this is log1p of an integral of p·expm1(tΔ): K keeps its relative accuracy down to
    t ~ 1e-8 (no 1 + tiny cancellation). For large t the log-integrand peaks far out (at x ~ t·s for the
    generalized Gaussian); shifting by its maximum c keeps every exponent ≤ 0, so nothing overflows. The
    integral is split at 0, s, the peak x* and x* ± 3, 10, 30 local widths, and QUADPACK's error estimate
    is checked (relative 1e-9); if it fails, the same integral is done by mpmath's tanh-sinh quadrature
    at 30 digits with its error estimate checked, and if that fails too, :class:`~accountlib.theory.mechanisms.base.QuadratureError` is raised.
    ``cgf_check`` reports the difference between the float64 and the 30-digit mpmath evaluations.
    """

    _REL_TOL = 1e-9

    def _ell(self, x: float) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def _ell_mp(self, x):  # pragma: no cover - abstract
        raise NotImplementedError

    def _log_density(self, x):
        return np.vectorize(self._ell, otypes=[float])(x) if np.ndim(x) else self._ell(float(x))

    def _peak(self, t, s):
        """The maximiser x* of log p(x) + tΔ(x) = (t+1)ℓ(x−s) − tℓ(x), its value and a local width."""
        g = lambda x: (t + 1) * self._ell(x - s) - t * self._ell(x)
        centre = s / 2
        grid = centre + np.concatenate([-np.logspace(-3, 7, 121)[::-1], [0.0], np.logspace(-3, 7, 121)])
        values = np.array([g(x) for x in grid])
        best = int(np.argmax(values))
        lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
        result = optimize.minimize_scalar(lambda x: -g(x), bounds=(lo, hi), method="bounded",
                                          options={"xatol": 1e-10 * max(1.0, abs(grid[best]))})
        x_star = float(result.x) if -result.fun >= values[best] else float(grid[best])
        g_star = g(x_star)
        h = 1e-3 * max(1.0, abs(x_star))
        curvature = -(g(x_star + h) - 2 * g_star + g(x_star - h)) / (h * h)
        width = 1 / math.sqrt(curvature) if curvature > 0 and math.isfinite(curvature) else max(1.0, abs(x_star))
        return x_star, g_star, min(max(width, 1e-3), 1e6)

    def _cgf_float(self, t, s, rel_tol=None):
        x_star, g_star, width = self._peak(t, s)
        c = max(0.0, g_star)
        ell = self._ell

        def integrand(x):
            # p·(e^{tΔ} − 1) + t·(q − p): the added term integrates to 0 (∫p = ∫q = 1) and cancels the first
            # order in Δ, so the integrand is ≈ t(t+1)Δ²/2·p ≥ 0 for small Δ and nothing cancels in the sum
            log_p, log_q = ell(x - s), ell(x)
            delta = log_p - log_q
            exponent = t * delta
            if exponent < 300:
                first = math.exp(log_p - c) * math.expm1(exponent)
            else:
                first = math.exp(log_p + exponent - c) - math.exp(log_p - c)
            if abs(delta) < 0.5:
                second = t * math.exp(log_p - c) * math.expm1(-delta)
            else:
                second = t * (math.exp(log_q - c) - math.exp(log_p - c))
            return first + second

        breaks = [0.0, s, x_star] + [x_star + k * width for k in (-30, -10, -3, 3, 10, 30)]
        floor = 1e-300 if c == 0 else math.exp(-c) * 1e-12
        # K = c + log(integral): a relative error η in the integral is an absolute error η in K, so for
        # large K (c ≫ 1, where the exponents themselves carry rounding of order c·1e-16) the integral needs
        # only relative accuracy REL_TOL·c to give K to relative accuracy REL_TOL.
        tolerance = min(1e-4, (self._REL_TOL if rel_tol is None else rel_tol) * max(1.0, c))
        value, _ = integrate_checked(integrand, breaks, rel_tol=tolerance, floor=floor)
        if c == 0:
            return math.log1p(value)
        inner = math.exp(-c) + value
        if not inner > 0:
            raise QuadratureError(f"K({t}) at s = {s}: non-positive integral {inner!r}")
        return c + math.log(inner)

    def _cgf_mp(self, t, s, dps: int = 30):
        """The same integral by mpmath's tanh-sinh quadrature at ``dps`` digits (error estimate checked)."""
        x_star, g_star, width = self._peak(t, s)
        with mpmath.workdps(dps):
            t_, s_ = mpmath.mpf(t), mpmath.mpf(s)
            c = max(mpmath.mpf(0), mpmath.mpf(g_star))
            ell = self._ell_mp

            def integrand(x):
                log_p, log_q = ell(x - s_), ell(x)
                return mpmath.exp(log_p - c) * (mpmath.expm1(t_ * (log_p - log_q)) + t_ * mpmath.expm1(log_q - log_p))

            points = sorted(set([0.0, float(s), x_star] + [x_star + k * width for k in (-30, -10, -3, 3, 10, 30)]))
            value, error = mpmath.quad(integrand, [-mpmath.inf] + [mpmath.mpf(p) for p in points] + [mpmath.inf],
                                       error=True, maxdegree=10)
            inner = mpmath.exp(-c) + value
            if not (inner > 0 and error <= mpmath.mpf(10) ** (-(dps // 2)) * (abs(value) + mpmath.exp(-c) * 1e-12)):
                raise QuadratureError(f"K({t}) at s = {s}: mpmath quadrature error estimate {mpmath.nstr(error, 3)} "
                                      f"too large for the value {mpmath.nstr(value, 10)}")
            return float(c + mpmath.log(inner)) if c > 0 else float(mpmath.log1p(value))

    def _cgf_quad(self, t, s):
        if s == 0:
            return 0.0
        try:
            return self._cgf_float(t, s)
        except QuadratureError:
            return self._cgf_mp(t, s)

    def cgf(self, t, s):
        """K(t) = log E_Q[(dP/dQ)^{t+1}] at order t > 0 for query change s (arguments checked)."""
        return self._cgf_quad(as_scale(t, "t"), as_shift(s))

    def _cgf_negative(self, u, s):
        return self._cgf_quad(u, as_shift(s))

    def cgf_check(self, t, s):
        """|K by float64 checked quadrature − K by 30-digit mpmath quadrature|."""
        t, s = as_scale(t, "t"), as_shift(s)
        return abs(self._cgf_quad(t, s) - self._cgf_mp(t, s))

    def kl(self, s) -> float:
        """E_P[L] = KL(P‖Q) = ∫ p(x)(ℓ(x − s) − ℓ(x)) dx, the t ↓ 0 endpoint of K(t)/(t(t+1)) (checked quadrature)."""
        s = as_shift(s)
        if s == 0:
            return 0.0
        ell = self._ell

        def integrand(x):
            # E_P[Δ] = E_P[Δ + e^{−Δ} − 1] (E_P e^{−Δ} = E_Q 1 = 1): a non-negative integrand, no cancellation
            log_p, log_q = ell(x - s), ell(x)
            delta = log_p - log_q
            if abs(delta) < 1e-3:
                return math.exp(log_p) * delta * delta * (0.5 - delta * (1 / 6 - delta * (1 / 24 - delta / 120)))
            if abs(delta) < 1:
                return math.exp(log_p) * (delta + math.expm1(-delta))
            return math.exp(log_p) * (delta - 1) + math.exp(log_q)
        value, _ = integrate_checked(integrand, [0.0, s / 2, s, -1.0, s + 1, -10.0, s + 10], rel_tol=self._REL_TOL,
                                      floor=1e-300)
        return value

    def _rho_endpoint(self, s):
        return self.kl(s)

    # -- the gap without cancellation --------------------------------------------------------------------------

    _GAP_REL_TOL = 1e-13

    def _breaks(self, t, s):
        x_star, _, width = self._peak(t, s)
        return [0.0, s / 2, s, -1.0, s + 1, -10.0, s + 10, x_star] + [x_star + k * width for k in (-30, -10, -3, 3, 10, 30)]

    def _gap_integrals_float(self, t, s):
        """(A, I, error) with Γ = A + (I − log1p I) when ρ = E_P L (the t ↓ 0 endpoint):

            A = ∫ p·h(Δ) dx,   h(Δ) = t(t+1)Δ + t²(e^{−Δ} − 1) − (e^{tΔ} − 1) = Σ_{k≥3} (t²(−1)^k − t^k)Δ^k/k!,
            I = ∫ p·(e^{tΔ} − 1 + t(e^{−Δ} − 1)) dx = e^{K} − 1                   (I ≥ 0),

        since ρt(t+1) = t(t+1)∫p(Δ + e^{−Δ} − 1) and ∫p e^{−Δ} = ∫q = 1. h is O(Δ³) pointwise (its series is summed
        for small Δ, so the integrand has full relative precision) and I − log1p I ≥ 0, so ρt(t+1) and K are never
        subtracted. Checked quadrature at relative 1e-13; raises :class:`~accountlib.theory.mechanisms.base.QuadratureError` if it is not met."""
        ell, tt = self._ell, t * (t + 1)
        coefficients = [((t * t * (-1) ** k - t**k) / math.factorial(k), (t * t + t**k) / math.factorial(k))
                        for k in range(3, 40)]  # (c_k, a bound on |c_k|: some c_k are 0, as at t = 1)
        scale = max(1.0, t)

        def h_integrand(x):
            log_p = ell(x - s)
            delta = log_p - ell(x)
            if abs(delta) * scale < 0.25:
                total, power = 0.0, delta**3
                for c, bound in coefficients:
                    total += c * power
                    if abs(bound * power) <= 1e-18 * abs(total):
                        break
                    power *= delta
                return math.exp(log_p) * total
            return math.exp(log_p) * (tt * delta + t * t * math.expm1(-delta) - math.expm1(t * delta))

        def i_integrand(x):
            log_p = ell(x - s)
            delta = log_p - ell(x)
            return math.exp(log_p) * (math.expm1(t * delta) + t * math.expm1(-delta))

        breaks = self._breaks(t, s)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            try:
                i_value, i_error = integrate_checked(i_integrand, breaks, rel_tol=self._GAP_REL_TOL, floor=1e-300)
                a_value, a_error = integrate_checked(h_integrand, breaks, rel_tol=self._GAP_REL_TOL, floor=1e-300)
            except (OverflowError, ValueError) as exc:
                raise QuadratureError(f"Γ({t}) at s = {s}: {exc}") from None
        # an error e in I is an error e·I/(1 + I) in I − log1p I
        return a_value, i_value, a_error + i_error * i_value / (1 + i_value)

    def _endpoint_is_sup(self, s) -> bool:
        """Whether ρ(s) is the t ↓ 0 endpoint E_P L (as for Student-t and 1 ≤ β ≤ 2 on the shifts the paper uses;
        not for β < 1 at small shifts, where the bounded loss makes K(t)/(t(t+1)) peak at large t): the float search
        finds no ratio above E_P L by more than its own error (1e-8 relative; a larger interior supremum shows as
        a negative Γ, which sends :meth:`gap` to mpmath)."""
        return _quadrature_endpoint_is_sup(self, s)

    def _rho_mp(self, s, dps: int):
        """ρ(s) as an mpf at ``dps`` digits: E_P L if ``_endpoint_is_sup``, else the larger of E_P L and the
        interior maximum of K(t)/(t(t+1)), located by Newton's method on its derivative from the float search's
        maximiser, K, K' and K'' by mpmath quadrature (R is stationary there, so an error δ in t is δ² in ρ)."""
        return _quadrature_rho_mp(self, s, dps)

    def _integral_mp(self, f, t, s, dps):
        """∫ p(x)·f(Δ(x), x) dx by mpmath tanh-sinh at ``dps`` digits (error estimate checked), an mpf."""
        ell = self._ell_mp
        with mpmath.workdps(dps + 10):
            s_ = mpmath.mpf(s)
            points = sorted(set(float(p) for p in self._breaks(t, s)))

            def integrand(x):
                log_p = ell(x - s_)
                return mpmath.exp(log_p) * f(log_p - ell(x))

            value, error = mpmath.quad(integrand, [-mpmath.inf] + [mpmath.mpf(p) for p in points] + [mpmath.inf],
                                       error=True, maxdegree=10)
            if not error <= mpmath.mpf(10) ** (5 - dps) * abs(value):
                raise QuadratureError(f"{self!r} at t = {t}, s = {s}: mpmath quadrature error estimate "
                                      f"{mpmath.nstr(error, 3)} too large for the value {mpmath.nstr(value, 10)}")
            return value

    def _kl_mp(self, s, dps):
        return self._integral_mp(lambda d: d + mpmath.expm1(-d), 1.0, s, dps)

    def _cgf_mp_exact(self, t, s, dps):
        """K(t) = log1p(∫p(e^{tΔ} − 1 + t(e^{−Δ} − 1))) as an mpf at ``dps`` digits."""
        with mpmath.workdps(dps + 10):
            t_ = mpmath.mpf(t)
            return mpmath.log1p(self._integral_mp(lambda d: mpmath.expm1(t_ * d) + t_ * mpmath.expm1(-d), float(t), s,
                                                  dps))

    def gap(self, t, s):
        """Γ(t) = ρt(t+1) − K(t) ≥ 0 without the cancellation of the two (the float search gives ρ to ~1e-9 only).

        Where ρ is the t ↓ 0 endpoint E_P L (``_endpoint_is_sup``), Γ = A + (I − log1p I), two checked float
        quadratures at relative 1e-13 of integrands without cancellation (``_gap_integrals_float``); where Γ is
        most of ρt(t+1) (large t) the subtraction of a 1e-13 K from a 1e-13 E_P L is kept. Otherwise (an interior
        supremum, or a float check failing) ρ and K in mpmath (``_rho_mp``), at a precision raised until Γ has
        ~15 correct digits. A positive Γ is never returned as 0 or negative; ∞ for β > 2 (not zCDP)."""
        t, s = as_scale(t, "t"), as_shift(s)
        if s == 0:
            return 0.0
        if self._rho_infinite():
            return math.inf
        if self._is_gaussian():
            return 0.0
        if self._endpoint_is_sup(s):
            try:
                kl = _quadrature_kl_tight(self, s)
                rho_part = kl * t * (t + 1)
                k = self._cgf_float(t, s, rel_tol=self._GAP_REL_TOL)
                if rho_part - k >= rho_part / 2:
                    return rho_part - k
                a, i, error = self._gap_integrals_float(t, s)
                i_excess = i - math.log1p(i) if i >= 0.1 else i * i * sum((-i) ** j / (j + 2) for j in range(40))
                value = a + i_excess
                if value > 0 and error + 4e-16 * (abs(a) + i_excess) <= 1e-12 * value:
                    return value
            except QuadratureError:
                pass
        dps = 30
        while True:
            with mpmath.workdps(dps + 10):
                rho = self._rho_mp(s, dps)
                k = self._cgf_mp_exact(t, s, dps)
                t_ = mpmath.mpf(t)
                value = rho * t_ * (t_ + 1) - k
            if value > 0 and mpmath.mag(value) - mpmath.mag(k) > -3.32 * (dps - 20) or dps > 400:
                return float_or_precise(max(value, 0))
            dps = 2 * dps if value <= 0 else max(dps + 20, int(25 - 0.302 * float(mpmath.mag(value) - mpmath.mag(k))) + 10)

    def _is_gaussian(self) -> bool:
        return False


@functools.lru_cache(maxsize=1024)
def _quadrature_kl_tight(mechanism, s):
    """E_P L by checked float quadrature at relative 1e-13 (the gap's ρ where the endpoint is the supremum)."""
    ell = mechanism._ell

    def integrand(x):
        log_p, log_q = ell(x - s), ell(x)
        delta = log_p - log_q
        if abs(delta) < 1e-3:
            return math.exp(log_p) * delta * delta * (0.5 - delta * (1 / 6 - delta * (1 / 24 - delta * (1 / 120 - delta / 720))))
        if abs(delta) < 1:
            return math.exp(log_p) * (delta + math.expm1(-delta))
        return math.exp(log_p) * (delta - 1) + math.exp(log_q)
    value, _ = integrate_checked(integrand, [0.0, s / 2, s, -1.0, s + 1, -10.0, s + 10],
                                  rel_tol=mechanism._GAP_REL_TOL, floor=1e-300)
    return value


@functools.lru_cache(maxsize=1024)
def _quadrature_endpoint_is_sup(mechanism, s) -> bool:
    sup = sup_located(mechanism, s)[0]
    kl = mechanism.kl(s)
    return sup <= kl * (1 + 1e-8)


@functools.lru_cache(maxsize=256)
def _quadrature_rho_mp(mechanism, s, dps):
    with mpmath.workdps(dps + 10):
        kl = mechanism._kl_mp(s, dps)
        if mechanism._endpoint_is_sup(s):
            return kl
        _, t_float, _ = sup_located(mechanism, s)
        t = mpmath.mpf(t_float)
        for _ in range(30):
            tf = float(t)
            m1 = mechanism._integral_mp(lambda d: mpmath.expm1(t * d) + t * mpmath.expm1(-d), tf, s, dps)
            d1 = mechanism._integral_mp(lambda d: d * mpmath.exp(t * d), tf, s, dps)
            d2 = mechanism._integral_mp(lambda d: d * d * mpmath.exp(t * d), tf, s, dps)
            k = mpmath.log1p(m1)
            k1 = d1 / (1 + m1)
            k2 = d2 / (1 + m1) - k1 * k1
            g = k1 * t * (t + 1) - k * (2 * t + 1)
            g1 = k2 * t * (t + 1) - 2 * k
            step = g / g1 if g1 < 0 else -t / 2 if g > 0 else t / 2
            new = t - step
            if new <= 0:
                new = t / 2
            if new < 1e-8:  # heading to the t ↓ 0 endpoint, which is E_P L
                return kl
            if abs(new - t) <= mpmath.mpf(10) ** (-(dps // 2 + 2)) * t:
                t = new
                break
            t = new
        k = mechanism._cgf_mp_exact(t, s, dps)
        return max(kl, k / (t * (t + 1)))


@dataclass(frozen=True)
class StudentT(QuadratureNoise):
    """Student-t_ν noise, density f_ν(x) = Γ((ν+1)/2)/(√(νπ)Γ(ν/2))·(1 + x²/ν)^{−(ν+1)/2}, ν ≥ 1 (§4.4).

    The privacy loss is bounded (|Δ| ≤ s·B_ν), so ρ is finite; for small shifts it is the t ↓ 0 endpoint,
    the mean privacy loss (§4.4). ``accountbook.diagnostics.student_t_leading_coefficient`` (the book's) gives the leading coefficient
    −κ4(S_ν)/24 of Γ(t)/([t(t+1)]²s⁴) (Appendix C.6).

    >>> t = StudentT(3.0)
    >>> round(t.rho(0.5), 8) == round(t.kl(0.5), 8), t.gap(1.0, 0.5) > 0      # a small shift: ρ is E_P L
    (True, True)
    """

    nu: float = 3.0
    name = "Student-t"

    def __post_init__(self):
        try:
            nu = float(self.nu)
        except (TypeError, ValueError):
            raise ValueError(f"nu must be a number >= 1; got {self.nu!r}") from None
        if not (math.isfinite(nu) and nu >= 1):
            raise ValueError(f"nu must be >= 1 (finite); got {self.nu!r}")

    @functools.cached_property
    def _const(self):
        nu = float(self.nu)
        return special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * math.log(nu * math.pi)

    def _ell(self, x):
        nu = self.nu
        return self._const - (nu + 1) / 2 * math.log1p(x * x / nu)

    def _ell_mp(self, x):
        nu = mpmath.mpf(self.nu)
        return (mpmath.loggamma((nu + 1) / 2) - mpmath.loggamma(nu / 2) - mpmath.log(nu * mpmath.pi) / 2
                - (nu + 1) / 2 * mpmath.log1p(x * x / nu))


@dataclass(frozen=True)
class GeneralizedGaussian(QuadratureNoise):
    """Generalized Gaussian noise with density e^{−|x|^β/β}/(2β^{1/β−1}Γ(1/β)) (§4.4, Appendix C.7).

    β = 1 is unit Laplace noise and β = 2 is N(0, 1) (so ρ = s²/2 and Γ ≡ 0 there). ``chi`` is the quartic
    coefficient χ_β of the local expansion (the paper's (4.8)), in this parametrisation.

    For β > 2 the noise is not zCDP at all: log p + tΔ peaks at x ≈ (β − 1)s·t with height of order t^β,
    so K(t) grows like t^β and K(t)/(t(t+1)) → ∞; ``rho`` and ``gap`` return ``math.inf`` there, which is the
    exact value, not an overflow.

    >>> g = GeneralizedGaussian(1.5)
    >>> round(g.rho(1.0), 8), g.gap(1.0, 1.0) > 0, GeneralizedGaussian(3.0).rho(1.0)
    (0.40833573, True, inf)
    """

    beta: float = 1.5
    name = "generalized Gaussian"

    def __post_init__(self):
        try:
            beta = float(self.beta)
        except (TypeError, ValueError):
            raise ValueError(f"beta must be a number > 0; got {self.beta!r}") from None
        if not (math.isfinite(beta) and beta > 0):
            raise ValueError(f"beta must be a finite number > 0; got {self.beta!r}")

    @functools.cached_property
    def _const(self):
        b = float(self.beta)
        return -(math.log(2) + (1 / b - 1) * math.log(b) + special.gammaln(1 / b))

    def _ell(self, x):
        b = self.beta
        return self._const - abs(x) ** b / b

    def _ell_mp(self, x):
        b = mpmath.mpf(self.beta)
        return -(mpmath.log(2) + (1 / b - 1) * mpmath.log(b) + mpmath.loggamma(1 / b)) - abs(x) ** b / b

    def _rho_infinite(self):
        return float(self.beta) > 2

    def _is_gaussian(self):
        return float(self.beta) == 2  # N(0, 1): Γ ≡ 0

    @property
    def chi(self) -> float:
        """χ_β, the quartic coefficient of the local expansion of the gap (the unifying paper's (4.8)), in this
        parametrisation."""
        b = float(self.beta)
        return (b ** (4 - 4 / b) / (24 * special.gamma(1 / b) ** 2)
                * (3 * special.gamma(2 - 1 / b) ** 2 - special.gamma(4 - 3 / b) * special.gamma(1 / b)))
