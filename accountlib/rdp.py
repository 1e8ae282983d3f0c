"""Privacy-loss cumulant generating functions, optimal zCDP, and the zCDP–RDP gap.

Layer 7 of :mod:`accountlib`, after the unifying paper (§3–4; MATH.md §8). For
an additive-noise mechanism with noise Z and query change s, P = Law(s + Z),
Q = Law(Z), and

    K(t) = log E_Q[(dP/dQ)^{t+1}] = t·D_{t+1}(P‖Q)           (t > 0),
    ρ(s) = sup_{t>0} K(t)/(t(t+1))                            (optimal zCDP),
    Γ(t) = ρ·t(t+1) − K(t) ≥ 0                                (the information gap).

Each mechanism object has ``.cgf(t, s)``, ``.rho(s)``, ``.gap(t, s)`` and
``.loss_cumulants(s)`` (ρ − E_P L, κ3, κ4 of the privacy loss L under P, the
terms of the local expansion, Thm 3.1). Exact CGFs are used where they exist
(closed forms, finite sums, theta functions); otherwise Gauss–Hermite or
adaptive quadrature, with ``cgf_check`` re-evaluating at twice the resolution
to show convergence.

Composition adds CGFs and gaps (§3.3); :func:`allocation_gap` follows the path
of Prop. 4.3; the conversions of §3.2 and C_δ[U] of §5 are here too, as is the
DP-SGD calibration of §5.2 (:func:`calibrate_dpsgd`, no torch needed).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import integrate, optimize, special

from .conversions import minimize_on_grid, rdp_to_epsilon

__all__ = [
    "Mechanism", "Gaussian", "Laplace", "GaussianMixture", "StudentT", "GeneralizedGaussian",
    "DiscreteLaplace", "DiscreteGaussian", "PoissonSubsampledGaussian", "Composition",
    "allocation_gap", "allocation_path", "c_t", "delta_bound", "epsilon_rdp", "epsilon_zcdp", "delta_zcdp",
    "rdp_epsilon_cdelta", "calibrate_dpsgd", "sampled_gaussian_cgf",
]

_GH_NODES = 192


def _positive(value, name: str) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive number; got {value!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return value


def _order(t) -> float:
    return _positive(t, "t")


def _shift(s) -> float:
    try:
        s = float(s)
    except (TypeError, ValueError):
        raise ValueError(f"s must be a real number; got {s!r}") from None
    if not math.isfinite(s):
        raise ValueError(f"s must be finite; got {s!r}")
    return abs(s)


_GH_CACHE: dict = {}


def _gauss_hermite(nodes: int):
    """Nodes x and weights w with Σ w f(√2 x) ≈ E f(N(0, 1)) (Gauss–Hermite, normalised weights)."""
    if nodes not in _GH_CACHE:
        x, w = special.roots_hermite(nodes)
        _GH_CACHE[nodes] = (x, w / math.sqrt(math.pi))
    return _GH_CACHE[nodes]


class Mechanism:
    """Base class: subclasses define ``cgf(t, s)``; ``rho`` and ``gap`` follow generically."""

    name = "mechanism"

    def cgf(self, t, s) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def cgf_check(self, t, s) -> float:
        """|K at the default resolution − K at twice the resolution| (0 for exact CGFs)."""
        return 0.0

    def _rho_closed_form(self, s):
        return None

    def rho(self, s) -> float:
        """ρ(s) = sup_{t>0} K(t)/(t(t+1)), the t → 0 endpoint (the KL divergence) included."""
        s = _shift(s)
        closed = self._rho_closed_form(s)
        if closed is not None:
            return closed
        if s == 0:
            return 0.0
        return _sup_ratio(lambda t: self.cgf(t, s))

    def gap(self, t, s) -> float:
        """Γ(t) = ρ(s)·t(t+1) − K(t) (≥ 0)."""
        t, s = _order(t), _shift(s)
        return self.rho(s) * t * (t + 1) - self.cgf(t, s)

    def rdp(self, alpha, s) -> float:
        """The Rényi divergence D_α(P‖Q) = K(α − 1)/(α − 1), α > 1."""
        alpha = float(alpha)
        if not alpha > 1:
            raise ValueError(f"alpha must be > 1; got {alpha!r}")
        return self.cgf(alpha - 1, s) / (alpha - 1)

    def loss_cumulants(self, s, *, step: float = 1e-3) -> dict:
        """The local-expansion terms (Thm 3.1): ρ − E_P L, κ3(L), κ4(L) under P.

        The cumulants of L under P are the derivatives of u ↦ K(u) at u = 0
        (E_P e^{uL} = e^{K(u)}); they are taken by central differences of K on
        [−2h, 2h], extended analytically to u ∈ (−1, 0) where K is finite there.
        """
        s = _shift(s)
        h = step
        values = {j: self._cgf_signed(j * h, s) for j in (-2, -1, 0, 1, 2)}
        mean = (values[1] - values[-1]) / (2 * h)
        third = (values[2] - 2 * values[1] + 2 * values[-1] - values[-2]) / (2 * h**3)
        fourth = (values[2] - 4 * values[1] + 6 * values[0] - 4 * values[-1] + values[-2]) / h**4
        return {"rho_minus_mean": self.rho(s) - mean, "kappa3": third, "kappa4": fourth, "mean": mean}

    def _cgf_signed(self, u, s):
        """K(u) for u in a neighbourhood of 0 (u may be ≤ 0); subclasses with formulas valid there use them."""
        if u == 0:
            return 0.0
        return self._cgf_any(u, s)

    def _cgf_any(self, u, s):
        return self.cgf(u, s) if u > 0 else self._cgf_negative(u, s)

    def _cgf_negative(self, u, s):  # pragma: no cover - overridden where needed
        raise NotImplementedError


def _sup_ratio(cgf) -> float:
    """sup_{t>0} K(t)/(t(t+1)) on a log grid in [1e-6, 1e4], refined locally."""
    ratio = lambda x: -cgf(math.exp(x)) / (math.exp(x) * (math.exp(x) + 1))
    return -minimize_on_grid(ratio, np.log(np.logspace(-6, 4, 161)))


# -- continuous additive noise --------------------------------------------------------------------


@dataclass(frozen=True)
class Gaussian(Mechanism):
    """N(0, σ²) noise: K = t(t+1)s²/(2σ²), ρ = s²/(2σ²), Γ ≡ 0 (Prop. 4.1(i))."""

    sigma: float = 1.0
    name = "Gaussian"

    def __post_init__(self):
        _positive(self.sigma, "sigma")

    def cgf(self, t, s):
        t, s = _order(t), _shift(s)
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
class Laplace(Mechanism):
    """Laplace noise with density e^{−|x|/b}/(2b); r = |s|/b.

    K(t) = log[(t+1)/(2t+1)·e^{tr} + t/(2t+1)·e^{−(t+1)r}], ρ = r + e^{−r} − 1
    (Prop. 4.1(iii); Harrison & Manurangsi 2026).
    """

    scale: float = 1.0
    name = "Laplace"

    def __post_init__(self):
        _positive(self.scale, "scale")

    def cgf(self, t, s):
        t, r = _order(t), _shift(s) / self.scale
        return _laplace_cgf(t, r)

    def _cgf_negative(self, u, s):
        return _laplace_cgf(u, _shift(s) / self.scale)

    def _rho_closed_form(self, s):
        r = s / self.scale
        return r + math.expm1(-r)


def _laplace_cgf(t, r):
    # log[(t+1)/(2t+1) e^{tr} + t/(2t+1) e^{-(t+1)r}], in a stable form
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
class GaussianMixture(Mechanism):
    """½N(−m, 1) + ½N(m, 1) noise: ρ = s²/2 (Prop. 4.1(ii)); K by Gauss–Hermite quadrature.

    E_Q[g] = ½Σ_± E g(±m + N(0,1)), each expectation by an n-node Gauss–Hermite rule
    (n = 192; ``cgf_check`` compares with 384 nodes).
    """

    m: float = 1.0
    name = "Gaussian mixture"

    def __post_init__(self):
        if not (math.isfinite(float(self.m)) and float(self.m) >= 0):
            raise ValueError(f"m must be a finite number >= 0; got {self.m!r}")

    def _log_density(self, x):
        m = self.m
        return np.logaddexp(-(x - m) ** 2 / 2, -(x + m) ** 2 / 2) - math.log(2 * math.sqrt(2 * math.pi))

    def _cgf_nodes(self, t, s, nodes):
        x, w = _gauss_hermite(nodes)
        total = []
        for sign in (-1.0, 1.0):
            points = sign * self.m + math.sqrt(2) * x
            log_ratio = self._log_density(points - s) - self._log_density(points)
            total.append(special.logsumexp((t + 1) * log_ratio, b=w))
        return float(np.logaddexp(*total) - math.log(2))

    def cgf(self, t, s):
        return self._cgf_nodes(_order(t), _shift(s), _GH_NODES)

    def _cgf_negative(self, u, s):
        return self._cgf_nodes(u, _shift(s), _GH_NODES)

    def cgf_check(self, t, s):
        return abs(self._cgf_nodes(_order(t), _shift(s), _GH_NODES) - self._cgf_nodes(_order(t), _shift(s), 2 * _GH_NODES))

    def _rho_closed_form(self, s):
        return s * s / 2


class _QuadratureNoise(Mechanism):
    """Symmetric continuous noise with a log-density; K by adaptive quadrature of E_Q[(p/q)^{t+1}]."""

    def _log_density(self, x):  # pragma: no cover - abstract
        raise NotImplementedError

    def _integrand(self, x, t, s):
        return math.exp(self._log_density(x) + (t + 1) * (self._log_density(x - s) - self._log_density(x)))

    def _cgf_quad(self, t, s, tolerance):
        pieces = [(-math.inf, -abs(s) - 1), (-abs(s) - 1, 0.0), (0.0, abs(s)), (abs(s), abs(s) + 1), (abs(s) + 1, math.inf)]
        total = 0.0
        with warnings.catch_warnings():
            # near the float64 limit QUADPACK warns of round-off; cgf_check measures the actual convergence
            warnings.simplefilter("ignore", integrate.IntegrationWarning)
            for a, b in pieces:
                value, _ = integrate.quad(self._integrand, a, b, args=(t, s), epsabs=0, epsrel=tolerance, limit=400)
                total += value
        return math.log(total)

    def cgf(self, t, s):
        return self._cgf_quad(_order(t), _shift(s), 1e-13)

    def _cgf_negative(self, u, s):
        return self._cgf_quad(u, _shift(s), 1e-13)

    def cgf_check(self, t, s):
        return abs(self._cgf_quad(_order(t), _shift(s), 1e-10) - self._cgf_quad(_order(t), _shift(s), 1e-13))


@dataclass(frozen=True)
class StudentT(_QuadratureNoise):
    """Student-t_ν noise (density ∝ (1 + x²/ν)^{−(ν+1)/2}, ν ≥ 1) (§4.4)."""

    nu: float = 3.0
    name = "Student-t"

    def __post_init__(self):
        if not float(self.nu) >= 1:
            raise ValueError(f"nu must be >= 1; got {self.nu!r}")

    def _log_density(self, x):
        nu = self.nu
        return (special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * math.log(nu * math.pi)
                - (nu + 1) / 2 * math.log1p(x * x / nu))


@dataclass(frozen=True)
class GeneralizedGaussian(_QuadratureNoise):
    """Generalized Gaussian noise, density β/(2Γ(1/β))·e^{−|x|^β} (β = 1 Laplace, β = 2 Gaussian) (§4.4).

    ``chi`` is the quartic coefficient χ_β of the local expansion (the paper's (4.8)).
    """

    beta: float = 1.5
    name = "generalized Gaussian"

    def __post_init__(self):
        if not float(self.beta) > 0:
            raise ValueError(f"beta must be > 0; got {self.beta!r}")

    def _log_density(self, x):
        b = self.beta
        return math.log(b / 2) - special.gammaln(1 / b) - abs(x) ** b

    @property
    def chi(self) -> float:
        b = self.beta
        return (b ** (4 - 4 / b) / (24 * special.gamma(1 / b) ** 2)
                * (3 * special.gamma(2 - 1 / b) ** 2 - special.gamma(4 - 3 / b) * special.gamma(1 / b)))


# -- discrete noise ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiscreteLaplace(Mechanism):
    """Discrete Laplace noise, mass ∝ e^{−a|z|} on Z, integer shift r; a finite-sum CGF (§4.5).

    The privacy loss a(|x| − |x − r|) takes finitely many values: −ar for x ≤ 0,
    ar for x ≥ r, a(2x − r) in between, so E_Q[e^{(t+1)L}] is a finite sum.
    """

    a: float = 1.0
    name = "discrete Laplace"

    def __post_init__(self):
        _positive(self.a, "a")

    def _cgf_any(self, t, s):
        r = int(round(_shift(s)))
        if abs(r - _shift(s)) > 1e-12:
            raise ValueError(f"the discrete Laplace mechanism needs an integer shift; got {s!r}")
        a, lam = self.a, math.exp(-self.a)
        norm = (1 - lam) / (1 + lam)  # q(x) = norm·λ^{|x|}
        if r == 0:
            return 0.0
        terms = [math.log(norm / (1 - lam)) - (t + 1) * a * r]  # x ≤ 0: Σ λ^{|x|} = 1/(1-λ)
        terms.append(math.log(norm / (1 - lam)) - a * r + (t + 1) * a * r)  # x ≥ r: Σ λ^{x} = λ^r/(1-λ)
        for x in range(1, r):
            terms.append(math.log(norm) - a * x + (t + 1) * a * (2 * x - r))
        return float(special.logsumexp(terms))

    def cgf(self, t, s):
        return self._cgf_any(_order(t), s)


@dataclass(frozen=True)
class DiscreteGaussian(Mechanism):
    """Discrete Gaussian noise N_Z(0, σ²) with integer or real shift r (§4.5; MATH.md §8).

    e^{K(t)} = e^{r²t(t+1)/(2σ²)}·Θ((t+1)r)/Θ(0), Θ(u) = Σ_x e^{−(x−u)²/2σ²}, so
    ρ = r²/(2σ²) and Γ(t) = log Θ(0) − log Θ((t+1)r): periodic in t with period 1/r,
    zero where (t+1)r is an integer.
    """

    sigma: float = 1.0
    name = "discrete Gaussian"

    def __post_init__(self):
        _positive(self.sigma, "sigma")

    def _log_theta(self, u):
        s2 = self.sigma**2
        u = u - math.floor(u)
        if s2 < 1:
            xs = np.arange(-60, 62)
            return float(special.logsumexp(-(xs - u) ** 2 / (2 * s2)))
        # Poisson summation: Θ(u) = sqrt(2πσ²) Σ_k e^{−2π²σ²k²} cos(2πku)
        ks = np.arange(1, 12)
        series = 1 + 2 * np.sum(np.exp(-2 * math.pi**2 * s2 * ks**2) * np.cos(2 * math.pi * ks * u))
        return 0.5 * math.log(2 * math.pi * s2) + math.log(series)

    def _cgf_any(self, t, s):
        r = _shift(s)
        return r * r * t * (t + 1) / (2 * self.sigma**2) + self._log_theta((t + 1) * r) - self._log_theta(0.0)

    def cgf(self, t, s):
        return self._cgf_any(_order(t), s)

    def _rho_closed_form(self, s):
        return s * s / (2 * self.sigma**2)


# -- subsampling ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PoissonSubsampledGaussian(Mechanism):
    """P_q = (1 − q)Q + q·N(v, z²C²I) against Q = N(0, z²C²I) (§4.2); s = ‖v‖/C.

    Only the projection on v matters, so the pair is one-dimensional:
    K(t) = log E_Q[(1 − q + q·e^{(2xs − s²)/(2z²)})^{t+1}], x ~ N(0, z²), by
    Gauss–Hermite quadrature (exact binomial sum at integer t). ρ = s²/(2z²): the
    sup of K/(t(t+1)) is approached as t → ∞, so zCDP gets no subsampling discount.
    """

    q: float = 0.01
    z: float = 1.0
    name = "Poisson-subsampled Gaussian"

    def __post_init__(self):
        q = float(self.q)
        if not (math.isfinite(q) and 0 < q <= 1):
            raise ValueError(f"q must be in (0, 1]; got {self.q!r}")
        _positive(self.z, "z")

    def _cgf_nodes(self, t, s, nodes):
        if float(t).is_integer() and t < 400:
            return sampled_gaussian_cgf(self.q, self.z, int(t), s)
        x, w = _gauss_hermite(nodes)
        points = math.sqrt(2) * self.z * x
        log_ratio = np.logaddexp(math.log1p(-self.q) if self.q < 1 else -np.inf,
                                 math.log(self.q) + (2 * points * s - s * s) / (2 * self.z**2))
        return float(special.logsumexp((t + 1) * log_ratio, b=w))

    def cgf(self, t, s=1.0):
        return self._cgf_nodes(_order(t), _shift(s), _GH_NODES)

    def _cgf_negative(self, u, s):
        return self._cgf_nodes(u, _shift(s), _GH_NODES)

    def cgf_check(self, t, s=1.0):
        t, s = _order(t), _shift(s)
        return abs(self._cgf_nodes(t + 1e-13, s, _GH_NODES) - self._cgf_nodes(t + 1e-13, s, 2 * _GH_NODES))

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
    return float(special.logsumexp(terms))


# -- composition and allocation ------------------------------------------------------------------


@dataclass(frozen=True)
class Composition:
    """Independent composition of (mechanism, shift) pairs: K and Γ add (§3.3)."""

    parts: tuple

    def cgf(self, t) -> float:
        return sum(m.cgf(t, s) for m, s in self.parts)

    def rho_sum(self) -> float:
        return sum(m.rho(s) for m, s in self.parts)

    def rho(self) -> float:
        """ρ⋆ = sup_t ΣK_i(t)/(t(t+1)) ≤ ρ_sum."""
        return _sup_ratio(self.cgf)

    def gap(self, t) -> float:
        return sum(m.gap(t, s) for m, s in self.parts)


def _inverse_rho(mechanism: Mechanism, rho: float) -> float:
    """ψ: the shift r ≥ 0 with ρ(r) = rho (ρ is increasing in r)."""
    if rho <= 0:
        return 0.0
    hi = 1.0
    while mechanism.rho(hi) < rho:
        hi *= 2
    return optimize.brentq(lambda r: mechanism.rho(r) - rho, 0.0, hi, xtol=1e-15, rtol=1e-15)


def allocation_path(n: int, rho_sum: float, omega: float) -> list[float]:
    """ρ_1(ω) = (ρ_sum/n)(1 + (n−1)ω), ρ_i(ω) = (ρ_sum/n)(1 − ω) for i ≥ 2 (Prop. 4.3)."""
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer; got {n!r}")
    if not 0 <= omega <= 1:
        raise ValueError(f"omega must be in [0, 1]; got {omega!r}")
    rho_sum = _positive(rho_sum, "rho_sum")
    base = rho_sum / n
    return [base * (1 + (n - 1) * omega)] + [base * (1 - omega)] * (int(n) - 1)


def allocation_gap(mechanism: Mechanism, n: int, rho_sum: float, omega: float, t: float) -> float:
    """The composed gap Σ_i Γ_i(t) along the allocation path of Prop. 4.3.

    Release i uses the shift r_i = ψ(ρ_i(ω)) that gives it zCDP parameter ρ_i(ω).

    >>> round(allocation_gap(Laplace(), 8, 0.5, 0.0, 1.0), 9)
    0.037202015
    """
    t = _order(t)
    total = 0.0
    for rho_i in allocation_path(n, rho_sum, omega):
        if rho_i > 0:
            r = _inverse_rho(mechanism, rho_i)
            total += rho_i * t * (t + 1) - mechanism.cgf(t, r)
    return total


# -- conversions (§3.2) and C_δ (§5) -------------------------------------------------------------


def c_t(t) -> float:
    """c_t = t^t/(1 + t)^{1+t}."""
    t = _order(t)
    return math.exp(t * math.log(t) - (1 + t) * math.log1p(t))


def delta_bound(cgf, t, epsilon) -> float:
    """δ_{P‖Q}(ε) ≤ c_t·exp(K(t) − tε)."""
    t = _order(t)
    return math.exp(math.log(c_t(t)) + cgf(t) - t * epsilon)


def epsilon_rdp(cgf, delta) -> float:
    """ε_R = inf_t (K(t) + log c_t − log δ)/t."""
    delta = float(delta)
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1); got {delta!r}")
    objective = lambda x: (cgf(math.exp(x)) + math.log(c_t(math.exp(x))) - math.log(delta)) / math.exp(x)
    return minimize_on_grid(objective, np.linspace(math.log(1e-3), math.log(1e4), 200))


def epsilon_zcdp(rho, delta) -> float:
    """ε_Z = inf_t ρ(t+1) + (log c_t − log δ)/t."""
    rho = float(rho)
    return epsilon_rdp(lambda t: rho * t * (t + 1), delta)


def delta_zcdp(epsilon, rho) -> float:
    """δ_zCDP(ε; ρ) = inf_t c_t·exp(ρt(t+1) − tε)."""
    rho = float(rho)
    objective = lambda x: math.log(c_t(math.exp(x))) + rho * math.exp(x) * (math.exp(x) + 1) - math.exp(x) * epsilon
    result = optimize.minimize_scalar(objective, bounds=(math.log(1e-6), math.log(1e4)), method="bounded",
                                      options={"xatol": 1e-12})
    return float(min(1.0, math.exp(result.fun)))


def rdp_epsilon_cdelta(cgf, delta) -> float:
    """C_δ[U] for the RDP curve U_α = K(α − 1)/(α − 1) of a CGF K (MATH.md §8)."""
    return rdp_to_epsilon(lambda alpha: cgf(alpha - 1) / (alpha - 1), delta)


def calibrate_dpsgd(q, steps, epsilon, delta, notion: str = "rdp", *, tolerance: float = 1e-10) -> float:
    """The smallest noise multiplier z certifying (ε, δ) for DP-SGD with Poisson rate q over ``steps`` steps.

    ``notion="rdp"``: the sampled-Gaussian RDP composed ``steps`` times, converted by C_δ;
    ``notion="zcdp"``: ρ = steps/(2z²) (no amplification by subsampling), converted by C_δ.
    Bisection on log z until the relative bracket is below ``tolerance``.
    """
    q = float(q)
    if not (math.isfinite(q) and 0 < q <= 1):
        raise ValueError(f"q must be in (0, 1]; got {q!r}")
    if int(steps) != steps or steps < 1:
        raise ValueError(f"steps must be a positive integer; got {steps!r}")
    epsilon = _positive(epsilon, "epsilon")
    if not 0 < float(delta) < 1:
        raise ValueError(f"delta must be in (0, 1); got {delta!r}")
    if notion not in ("rdp", "zcdp"):
        raise ValueError(f"notion must be 'rdp' or 'zcdp'; got {notion!r}")

    def eps_of(z):
        if notion == "zcdp":
            rho = steps / (2 * z * z)
            return rdp_to_epsilon(lambda alpha: rho * alpha, delta)
        mechanism = PoissonSubsampledGaussian(q, z)
        return rdp_to_epsilon(lambda alpha: steps * mechanism.cgf(alpha - 1, 1.0) / (alpha - 1), delta,
                              alpha_max=1e4)

    lo, hi = 0.05, 1.0
    while eps_of(hi) > epsilon:
        lo, hi = hi, hi * 2
        if hi > 1e6:
            raise ValueError("no noise multiplier below 1e6 certifies this (epsilon, delta)")
    while eps_of(lo) <= epsilon:
        lo /= 2
    while hi / lo - 1 > tolerance:
        mid = math.sqrt(lo * hi)
        if eps_of(mid) <= epsilon:
            hi = mid
        else:
            lo = mid
    return hi
