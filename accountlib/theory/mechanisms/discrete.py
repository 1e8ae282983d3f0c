"""Discrete noises on the integers: the discrete Laplace and the discrete Gaussian (unifying paper §4.5).

Theory layer of :mod:`accountlib`. Closed forms and finite sums in mpmath at a precision raised until the small
differences they are made of (ρ, K and Γ are O(a²), O(a²) and O(a⁴) for the discrete Laplace) carry their digits;
the discrete Gaussian's Θ is the engine's (:func:`accountlib.engine.discrete_gaussian.log_theta_gap`).

>>> round(DiscreteLaplace(1.0).rho(1), 12)                    # ρ(1) = a·tanh(a/2)
0.46211715726
>>> DiscreteGaussian(1.0).gap(1.0, 1.0), DiscreteGaussian(1.0).gap(0.5, 1.0) > 0   # Γ = 0 where (t+1)r ∈ Z
(0.0, True)
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import mpmath
import numpy as np

from ...engine.discrete_gaussian import log_theta_gap
from ...infrastructure.numbers import as_fraction, as_scale, as_shift, float_or_precise
from .base import NoiseMechanism

__all__ = ["DiscreteLaplace", "DiscreteGaussian"]


@dataclass(frozen=True)
class DiscreteLaplace(NoiseMechanism):
    """Discrete Laplace noise, mass ∝ e^{−a|z|} on Z, integer shift r; a closed-form CGF (§4.5).

    The privacy loss a(|x| − |x − r|) takes finitely many values: −ar for x ≤ 0,
    ar for x ≥ r, a(2x − r) in between, so E_Q[e^{(t+1)L}] is a finite sum; its geometric middle part is
    summed in closed form, so any shift up to 1e6 costs the same. The sum is 1 + O(a²): it is evaluated in
    mpmath at a precision raised until E − 1 carries 20 correct digits (no float64 cancellation: a = 1e-12 is
    as accurate as a = 1). ρ(1) = a·tanh(a/2) exactly (the t ↓ 0 endpoint, the KL divergence, is the
    supremum at r = 1); for r > 1 the supremum is searched with that endpoint (the KL divergence, in closed
    form) included.

    >>> d = DiscreteLaplace(1.0)
    >>> round(d.rho(1), 12), round(d.cgf(1.0, 1), 12)          # ρ(1) = a·tanh(a/2)
    (0.46211715726, 0.735325664056)
    """

    a: float = 1.0
    name = "discrete Laplace"

    def __post_init__(self):
        as_scale(self.a, "a")

    def _integer_shift(self, s) -> int:
        shift = as_shift(s)
        if shift > 10**6:
            raise ValueError(f"s must be at most 1e6 for the discrete Laplace CGF; got {s!r}")
        r = int(round(shift))
        if abs(r - shift) > 1e-12:
            raise ValueError(f"the discrete Laplace mechanism needs an integer shift; got {s!r}")
        return r

    def _moment_minus_one(self, t, r: int, digits: int = 20):
        """E_Q[(p/q)^{t+1}] − 1 as an mpf, to about ``digits`` significant digits (the precision is raised until
        it is)."""
        dps = digits + 10
        while True:
            with mpmath.workdps(dps):
                a, t_ = mpmath.mpf(self.a), mpmath.mpf(t)
                big_t = t_ + 1
                lam = mpmath.exp(-a)
                outer = (mpmath.exp(-big_t * a * r) + mpmath.exp(a * r * (big_t - 1))) / (1 + lam)
                middle = mpmath.mpf(0)
                if r > 1:  # Σ_{x=1}^{r−1} norm·e^{−ax + (t+1)a(2x − r)}, a geometric sum of ratio g = e^{a(2t+1)}
                    b = a * (2 * t_ + 1)
                    norm = -mpmath.expm1(-a) / (1 + lam)
                    middle = norm * mpmath.exp(-big_t * a * r + b) * mpmath.expm1(b * (r - 1)) / mpmath.expm1(b)
                value = outer + middle - 1
                if value != 0 and mpmath.mag(value) > -3.32 * (dps - digits - 5) or dps > 4000:
                    return +value
                dps = 2 * dps if value == 0 else int(digits + 10 - 0.302 * float(mpmath.mag(value))) + 10

    def _kl(self, r: int):
        """E_P[L] = KL(P‖Q) = a·r(1 − λ^r)/(1 + λ) + norm·a·Σ_{j=1}^{r−1} λ^j (r − 2j), in closed form (mpf)."""
        with mpmath.workdps(60 + int(5 * max(0.0, -math.log10(self.a))) + 2 * len(str(r))):  # S1 cancels ~3 log10(1/a) digits
            a = mpmath.mpf(self.a)
            lam = mpmath.exp(-a)
            one_minus = -mpmath.expm1(-a)
            value = a * r * (-mpmath.expm1(-a * r)) / (1 + lam)
            if r > 1:
                s0 = lam * (-mpmath.expm1(-a * (r - 1))) / one_minus
                s1 = lam * (1 - r * lam ** (r - 1) + (r - 1) * lam**r) / one_minus**2
                value += one_minus / (1 + lam) * a * (r * s0 - 2 * s1)
            return +value

    def _cgf_any(self, t, s):
        r = self._integer_shift(s)
        if r == 0:
            return 0.0
        with mpmath.workdps(40):
            return float_or_precise(mpmath.log1p(self._moment_minus_one(t, r)))

    def cgf(self, t, s):
        """K(t) = log E_Q[(dP/dQ)^{t+1}] at order t > 0 for query change s (arguments checked)."""
        return self._cgf_any(as_scale(t, "t"), s)

    def _rho_closed_form(self, s):
        r = self._integer_shift(s)
        if r == 1:
            with mpmath.workdps(40):
                a = mpmath.mpf(self.a)
                return float_or_precise(a * mpmath.tanh(a / 2))
        return None

    def _rho_endpoint(self, s):
        return float_or_precise(self._kl(self._integer_shift(s)))

    def _digits(self) -> int:
        """Working digits for ρ and Γ: their relative differences from the KL endpoint are O(a²)."""
        return 30 + int(2 * max(0.0, -math.log10(self.a)))

    def _ratio_mp(self, t, r: int, digits: int):
        with mpmath.workdps(digits + 10):
            t = mpmath.mpf(t)
            return mpmath.log1p(self._moment_minus_one(t, r, digits)) / (t * (t + 1))

    def _rho_mp(self, r: int):
        """ρ(r) as an mpf: a·tanh(a/2) at r = 1 (the KL endpoint is the supremum there); otherwise the largest of
        the KL endpoint and K(t)/(t(t+1)) on a log grid of t in [1e-8, 1e4] (8 points a decade), refined by golden
        section between the best point's neighbours, all at ``_digits`` digits."""
        return _discrete_laplace_rho(self.a, r, self._digits())

    def rho(self, s):
        """ρ(s) = sup_t K(t)/(t(t+1)), computed in mpmath (``_rho_mp``), as a float (or a
        :class:`~accountlib.infrastructure.numbers.PreciseNumber` beyond float64's range)."""
        r = self._integer_shift(s)
        if r == 0:
            return 0.0
        return float_or_precise(self._rho_mp(r))

    def gap(self, t, s):
        """Γ(t) = ρ·t(t+1) − K(t) ≥ 0, in mpmath: ρ and K are both O(a²) and Γ is O(a⁴), so the difference is
        taken at a precision raised until Γ has 15 correct digits (or is 0 to within 10^-(digits) of K)."""
        t, r = as_scale(t, "t"), self._integer_shift(s)
        if r == 0:
            return 0.0
        rho = self._rho_mp(r)
        digits = max(20, mpmath.mp.dps)
        while True:
            with mpmath.workdps(digits + 10):
                k = mpmath.log1p(self._moment_minus_one(t, r, digits))
                t_ = mpmath.mpf(t)
                value = rho * t_ * (t_ + 1) - k
                if digits >= 2 * self._digits() + 40 or value > 0 and mpmath.mag(value) - mpmath.mag(k) > -3.32 * (digits - 17):
                    return float_or_precise(max(value, 0))
                digits = min(2 * self._digits() + 40, max(2 * digits, int(digits - 0.302 * float(mpmath.mag(value) - mpmath.mag(k))) + 5
                             if value != 0 else 2 * digits))


@functools.lru_cache(maxsize=1024)
def _discrete_laplace_rho(a: float, r: int, digits: int):
    mechanism = DiscreteLaplace(a)
    with mpmath.workdps(digits + 10):
        if r == 1:
            am = mpmath.mpf(a)
            return +(am * mpmath.tanh(am / 2))
        best = mechanism._kl(r)
        logs = [mpmath.mpf(x) for x in np.linspace(math.log(1e-8), math.log(1e4), 97)]
        values = [mechanism._ratio_mp(mpmath.exp(x), r, digits) for x in logs]
        i = max(range(len(values)), key=lambda j: values[j])
        if values[i] > best:
            lo, hi = logs[max(i - 1, 0)], logs[min(i + 1, len(logs) - 1)]
            f = lambda x: mechanism._ratio_mp(mpmath.exp(x), r, digits)
            golden = (mpmath.sqrt(5) - 1) / 2
            x1, x2 = hi - golden * (hi - lo), lo + golden * (hi - lo)
            f1, f2 = f(x1), f(x2)
            for _ in range(60):
                if f1 < f2:
                    lo, x1, f1 = x1, x2, f2
                    x2 = lo + golden * (hi - lo)
                    f2 = f(x2)
                else:
                    hi, x2, f2 = x2, x1, f1
                    x1 = hi - golden * (hi - lo)
                    f1 = f(x1)
            best = max(best, values[i], f1, f2)
        return +best


@dataclass(frozen=True)
class DiscreteGaussian(NoiseMechanism):
    """Discrete Gaussian noise N_Z(0, σ²) with integer or real shift r (§4.5; book, Derivations §8).

    e^{K(t)} = e^{r²t(t+1)/(2σ²)}·Θ((t+1)r)/Θ(0), Θ(u) = Σ_x e^{−(x−u)²/2σ²}, so
    ρ = r²/(2σ²) and Γ(t) = log Θ(0) − log Θ((t+1)r): periodic in t with period 1/r,
    zero where (t+1)r is an integer.

    >>> d = DiscreteGaussian(1.0)
    >>> d.rho(1.0), d.gap(1.0, 1.0), d.gap(0.5, 1.0) > 0        # Γ = 0 where (t+1)r is an integer
    (0.5, 0.0, True)
    """

    sigma: float = 1.0
    name = "discrete Gaussian"

    def __post_init__(self):
        as_scale(self.sigma, "sigma")

    def _gap_exact(self, t, r):
        """Γ(t) = log Θ(0) − log Θ((t+1)r) with (t+1)r reduced mod 1 exactly (t and r as the binary numbers they
        are); 0 exactly where (t+1)r is an integer."""
        u = ((as_fraction(t, "t", floats="binary", bounded=False) + 1) * as_fraction(r, "s", floats="binary",
                                                                                   bounded=False)) % 1
        if u == 0:
            return mpmath.mpf(0)
        return log_theta_gap(u, self.sigma)  # the engine's Θ (accountlib.engine.discrete_gaussian)

    def _cgf_any(self, t, s):
        r = as_shift(s)
        return r * r * t * (t + 1) / (2 * self.sigma**2) - float(self._gap_exact(t, r))

    def cgf(self, t, s):
        """K(t) = log E_Q[(dP/dQ)^{t+1}] at order t > 0 for query change s (arguments checked)."""
        return self._cgf_any(as_scale(t, "t"), s)

    def _rho_closed_form(self, s):
        return s * s / (2 * self.sigma**2)

    def gap(self, t, s) -> float:
        """Γ(t) = log Θ(0) − log Θ((t+1)r) ≥ 0, directly (no cancellation between ρt(t+1) and K), in mpmath: exactly
        0 where (t+1)r is an integer, and never 0 where it is not (a gap below float64's range, σ ≥ 6 or so,
        comes back as a :class:`~accountlib.infrastructure.numbers.PreciseNumber`)."""
        t, r = as_scale(t, "t"), as_shift(s)
        return float_or_precise(self._gap_exact(t, r))
