"""Independent references for the claim checks: the papers' objects computed from their definitions, in mpmath.

The claim checks (:mod:`accountbook.claims_unifying`, :mod:`accountbook.claims_sieve`) compare the library with these,
so none of them is written from the library's code: each density is the one the unifying paper defines, each
privacy quantity is the integral or sum of its definition, evaluated by mpmath quadrature (or direct summation) at
the precision asked for, never by the library's closed forms, series or float paths.

* Densities (unifying paper §4.1 and §4.4): :func:`normal_log`, :func:`laplace_log`, :func:`mixture_log`,
  :func:`student_t_log`, :func:`generalized_gaussian_log` (log p, as mpmath functions).
* The shifted pair P = Law(s + Z), Q = Law(Z) (§3): the CGF K(t) = log E_P e^{tL} (:func:`shift_cgf`), the KL
  divergence E_P L (:func:`shift_kl`), the gap Γ(t) = ρt(t+1) − K(t) (:func:`gap_at`), the one-sided profile
  δ_{P‖Q}(ε) = ∫ (p − e^ε q)₊ (:func:`one_sided_delta`).
* The local expansion's quartic coefficient (§4.4): −κ4(ψ)/24 of the score ψ = −(log p)' under p
  (:func:`quartic_coefficient`), which Proposition 4.5 writes in closed form as χ_β for the generalized Gaussian
  (:func:`generalized_gaussian_chi` computes it from the definition, by quadrature of the score's moments); the
  Student-t score S_ν's moments (:func:`student_t_score_moment`).
* The discrete Laplace pair (§4.5): e^{K(t)} summed over the integers (:func:`discrete_laplace_moment`).
"""

from __future__ import annotations

import mpmath
import numpy as np

__all__ = ["normal_log", "laplace_log", "mixture_log", "student_t_log", "generalized_gaussian_log", "shift_cgf",
           "shift_kl", "gap_at", "one_sided_delta", "score_moment", "quartic_coefficient", "generalized_gaussian_chi",
           "student_t_score_moment", "discrete_laplace_moment"]


# -- densities, as the paper defines them ---------------------------------------------------------------------------

def normal_log(x):
    """log of the standard normal density."""
    return -x * x / 2 - mpmath.log(2 * mpmath.pi) / 2


def laplace_log(x):
    """log of the unit Laplace density e^{−|x|}/2."""
    return -abs(x) - mpmath.log(2)


def mixture_log(x, m=1):
    """½N(−m, 1) + ½N(m, 1), the paper's Gaussian mixture (Prop. 4.1)."""
    return normal_log(x) - m * m / 2 + mpmath.log(mpmath.cosh(m * x))


def student_t_log(nu):
    """The Student-t_ν log-density, Γ((ν+1)/2)/(√(νπ)Γ(ν/2))·(1 + x²/ν)^{−(ν+1)/2} (§4.4), as a function of x."""
    nu = mpmath.mpf(nu)
    constant = mpmath.loggamma((nu + 1) / 2) - mpmath.loggamma(nu / 2) - mpmath.log(nu * mpmath.pi) / 2
    return lambda x: constant - (nu + 1) / 2 * mpmath.log1p(x * x / nu)


def generalized_gaussian_log(beta):
    """Density ∝ exp(−|x|^β/β) (§4.4: β = 1 Laplace, β = 2 the standard Gaussian), normalised by its integral
    2β^{1/β − 1}Γ(1/β)."""
    beta = mpmath.mpf(beta)
    constant = -mpmath.log(2 * beta ** (1 / beta - 1) * mpmath.gamma(1 / beta))
    return lambda x: constant - abs(x) ** beta / beta


# -- the shifted pair: CGF, KL, gap, one-sided profile ---------------------------------------------------------------

def shift_cgf(log_density, s, t, *, dps=30, points=()):
    """K(t) = log E_P[e^{tL}] = log ∫ f(x − s)^{t+1} f(x)^{−t} dx for P = Law(s + Z), Q = Law(Z), by mpmath
    quadrature at ``dps`` digits, split at 0, s and ``points`` (where the integrand peaks or has a kink)."""
    with mpmath.workdps(dps + 10):
        s, t = mpmath.mpf(s), mpmath.mpf(t)
        breaks = sorted({mpmath.mpf(0), s, *(mpmath.mpf(p) for p in points)})
        value = mpmath.quad(lambda x: mpmath.exp((t + 1) * log_density(x - s) - t * log_density(x)),
                            [-mpmath.inf, *breaks, mpmath.inf])
        return mpmath.log(value)


def shift_kl(log_density, s, *, dps=30):
    """E_P L = KL(P‖Q), the t ↓ 0 end of K(t)/(t(t+1)), by quadrature."""
    with mpmath.workdps(dps + 10):
        s = mpmath.mpf(s)
        return mpmath.quad(lambda x: mpmath.exp(log_density(x - s)) * (log_density(x - s) - log_density(x)),
                           [-mpmath.inf, 0, s, mpmath.inf])


def gap_at(log_density, s, t, orders, *, dps=25):
    """Γ(t) = ρt(t+1) − K(t) with ρ the largest of K(u)/(u(u+1)) over ``orders`` and the t ↓ 0 end (KL)."""
    with mpmath.workdps(dps + 10):
        rho = max([shift_kl(log_density, s, dps=dps)]
                  + [shift_cgf(log_density, s, u, dps=dps) / (u * (u + 1)) for u in orders])
        t = mpmath.mpf(t)
        return rho * t * (t + 1) - shift_cgf(log_density, s, t, dps=dps)


def one_sided_delta(log_p, log_q, eps, *, span=60.0):
    """δ_{P‖Q}(ε) = ∫ (p − e^ε q)_+ by adaptive quadrature (scipy, 1e-12 relative) between the sign changes of
    log p − log q − ε, located on a grid of step 1e-3 on [−span, span] and refined by brentq (float64 densities)."""
    from scipy import integrate, optimize as opt

    xs = np.linspace(-span, span, int(2 * span * 1000) + 1)
    diff = lambda x: log_p(x) - log_q(x) - eps  # noqa: E731
    values = diff(xs)
    roots = [opt.brentq(diff, xs[i], xs[i + 1], xtol=1e-15) for i in np.nonzero(np.diff(np.sign(values)))[0]]
    edges = [-np.inf, *roots, np.inf]
    total = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        if np.isfinite(a) and np.isfinite(b):
            middle = (a + b) / 2
        else:
            middle = a + 1 if np.isfinite(a) else (b - 1 if np.isfinite(b) else 0.0)
        if diff(middle) > 0:
            total += integrate.quad(lambda x: np.exp(log_p(x)) - np.exp(eps + log_q(x)), a, b,
                                    epsabs=0, epsrel=1e-12, limit=400)[0]
    return total


# -- the local expansion: moments of the score -----------------------------------------------------------------------

def score_moment(log_density, score, power: int, *, dps: int = 30, points=(), symmetric: bool = False):
    """E[ψ(X)^power] for X with log-density ``log_density`` (normalised), by quadrature at ``dps`` digits; with
    ``symmetric`` (an even integrand) twice the integral over x > 0."""
    with mpmath.workdps(dps + 10):
        breaks = sorted({mpmath.mpf(0), *(mpmath.mpf(p) for p in points)})
        integrand = lambda x: mpmath.exp(log_density(x)) * score(x) ** power  # noqa: E731
        if symmetric:
            return 2 * mpmath.quad(integrand, [b for b in breaks if b >= 0] + [mpmath.inf])
        return mpmath.quad(integrand, [-mpmath.inf, *breaks, mpmath.inf])


def quartic_coefficient(log_density, score, *, dps: int = 30, points=(), symmetric: bool = False):
    """−κ4(ψ)/24 = (3(Eψ²)² − Eψ⁴)/24 for a score ψ with Eψ = Eψ³ = 0 (a symmetric noise): the coefficient of
    [t(t+1)]²s⁴ in the gap's local expansion (unifying paper §4.4), from the score's moments by quadrature."""
    with mpmath.workdps(dps + 10):
        second = score_moment(log_density, score, 2, dps=dps, points=points, symmetric=symmetric)
        fourth = score_moment(log_density, score, 4, dps=dps, points=points, symmetric=symmetric)
        return (3 * second ** 2 - fourth) / 24


def generalized_gaussian_chi(beta, *, dps: int = 30):
    """χ_β of Proposition 4.5 from its definition: :func:`quartic_coefficient` of the generalized Gaussian, whose
    score is ψ(x) = sign(x)|x|^{β−1} (the derivative of |x|^β/β), not from the paper's closed form.

    >>> mpmath.nstr(generalized_gaussian_chi(1), 10), abs(generalized_gaussian_chi(2)) < 1e-25  # 1/12; 0
    ('0.08333333333', True)
    """
    with mpmath.workdps(dps + 10):
        b = mpmath.mpf(beta)
        score = lambda x: mpmath.sign(x) * abs(x) ** (b - 1)  # noqa: E731
        return quartic_coefficient(generalized_gaussian_log(b), score, dps=dps, points=(1,), symmetric=True)


def student_t_score_moment(nu, j):
    """E[S_ν^{2j}], S_ν = (ν+1)Z/(ν+Z²), Z ~ t_ν, by quadrature at 30 digits (not Appendix C.6's closed form)."""
    f = student_t_log(nu)
    with mpmath.workdps(40):
        nu = mpmath.mpf(nu)
        return mpmath.quad(lambda x: mpmath.exp(f(x)) * ((nu + 1) * x / (nu + x * x)) ** (2 * j),
                           [-mpmath.inf, -mpmath.sqrt(nu), 0, mpmath.sqrt(nu), mpmath.inf])


# -- the discrete Laplace pair ----------------------------------------------------------------------------------------

def discrete_laplace_moment(a, r, t, *, dps=40):
    """e^{K(t)} of the discrete Laplace pair (mass ∝ e^{−a|z|}, shift r) summed over the integers directly."""
    with mpmath.workdps(dps + 10):
        a, t = mpmath.mpf(a), mpmath.mpf(t)
        lam = mpmath.exp(-a)
        width = int((dps + 10) * mpmath.log(10) / a) + r + 2
        total = mpmath.fsum(mpmath.exp(-a * ((t + 1) * abs(z - r) - t * abs(z))) for z in range(-width, width + r + 1))
        return total * (1 - lam) / (1 + lam)
