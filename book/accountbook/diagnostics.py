"""The unifying paper's figure diagnostics, for the book's chapter "What zCDP forgets": the gap along the allocation
path of Prop. 4.3 (Figures 5–7), the Student-t local coefficient and its maximiser (Figure 4), and the quadrature
discrepancies the chapter shows beside its figures. Built on :mod:`accountlib.theory.rdp`'s mechanisms."""

from __future__ import annotations

import mpmath
import numpy as np
from scipy import optimize

from accountlib.infrastructure.numbers import as_bounded_float, as_count, as_scale, as_shift
from accountlib.theory.mechanisms.base import GH_NODES, MechanismComposition, NoiseMechanism
from accountlib.theory.mechanisms.continuous import GaussianMixture, Laplace
from accountlib.theory.mechanisms.heavy_tailed import StudentT
from accountlib.theory.mechanisms.subsampled import PoissonSubsampledGaussian

__all__ = ["allocation_path", "allocation_gap", "allocation_phi", "allocation_curvature", "student_t_leading_coefficient",
           "student_t_coefficient_argmax", "argmax_gap_in_nu", "subsampled_node_discrepancy",
           "composition_gap_discrepancy", "laplace_phi1_curvature", "laplace_phi1_curvature_closed_form",
           "discrete_gaussian_gap_direct", "shift_renyi_divergences", "inverse_rho", "student_t_moment"]


def student_t_moment(nu, j):
    """μ_{2j,ν} = E[S_ν^{2j}] = (ν+1)^{2j}/ν^j·(1/2)_j(ν/2)_j/((ν+1)/2)_{2j}, S_ν = (ν+1)Z/(ν+Z²) (Appendix C.6)."""
    return ((nu + 1) ** (2 * j) / nu**j * mpmath.rf(mpmath.mpf(1) / 2, j) * mpmath.rf(nu / 2, j)
            / mpmath.rf((nu + 1) / 2, 2 * j))


def student_t_leading_coefficient(nu, *, dps: int = 30):
    """−κ4(S_ν)/24, the leading coefficient of the Student-t gap: Γ(t) = −κ4(S_ν)/24·[t(t+1)]²s⁴ + O(|s|⁵)
    (unifying paper, Prop. 4.4 and Appendix C.6), with κ4(S_ν) = μ4 − 3μ2² from the exact score moments.

    >>> float(student_t_leading_coefficient(1))  # ν = 1: μ2 = 1/2, μ4 = 3/8, so −(3/8 − 3/4)/24
    0.015625
    """
    with mpmath.workdps(max(dps, mpmath.mp.dps) + 10):  # never below the caller's (e.g. mpmath.diff's) precision
        nu = mpmath.mpf(nu)
        if not nu >= 1:
            raise ValueError(f"nu must be >= 1; got {nu}")
        value = -(student_t_moment(nu, 2) - 3 * student_t_moment(nu, 1) ** 2) / 24
    return +value


def student_t_coefficient_argmax(*, dps: int = 30):
    """The ν maximising :func:`student_t_leading_coefficient` (the paper's ν* ≈ 6.013, §4.4).

    The root of the derivative, found by bisection on its sign in [3, 12] (the derivative by mpmath ``diff``
    at ``dps`` + 10 digits) down to a bracket of width 10^{−dps}, and checked to be a maximum (negative second
    derivative).
    """
    with mpmath.workdps(dps + 10):
        f = lambda v: student_t_leading_coefficient(v, dps=dps + 10)
        slope = lambda v: mpmath.diff(f, v)
        lo, hi = mpmath.mpf(3), mpmath.mpf(12)
        if not (slope(lo) > 0 > slope(hi)):
            raise ArithmeticError("the leading coefficient's maximiser is not bracketed by [3, 12]")
        while hi - lo > mpmath.mpf(10) ** (-dps):
            mid = (lo + hi) / 2
            if slope(mid) > 0:
                lo = mid
            else:
                hi = mid
        root = (lo + hi) / 2
        if not mpmath.diff(f, root, 2) < 0:
            raise ArithmeticError(f"the stationary point ν = {root} is not a maximum")
    return +root


def argmax_gap_in_nu(t, s, *, bounds=(3.0, 12.0), xatol: float = 1e-6) -> float:
    """The ν in ``bounds`` where the Student-t gap Γ(t) at shift s is largest (bounded scalar search).

    Not the paper's ν*: that maximises the leading coefficient (the s → 0 limit of Γ/([t(t+1)]²s⁴));
    at a finite shift the higher-order terms move the maximiser.
    """
    t, s = as_scale(t, "t"), as_shift(s)
    result = optimize.minimize_scalar(lambda nu: -StudentT(nu).gap(t, s), bounds=bounds, method="bounded",
                                      options={"xatol": xatol})
    if not result.success:
        raise ArithmeticError(f"the gap's maximiser in nu was not found: {result.message}")
    return float(result.x)


def inverse_rho(mechanism: NoiseMechanism, rho: float) -> float:
    """ψ: the shift r ≥ 0 with ρ(r) = rho (ρ is increasing in r)."""
    if rho <= 0:
        return 0.0
    hi = 1.0
    while mechanism.rho(hi) < rho:
        hi *= 2
    return optimize.brentq(lambda r: mechanism.rho(r) - rho, 0.0, hi, xtol=1e-15, rtol=1e-15)


def allocation_path(n: int, rho_sum: float, omega: float) -> list[float]:
    """ρ_1(ω) = (ρ_sum/n)(1 + (n−1)ω), ρ_i(ω) = (ρ_sum/n)(1 − ω) for i ≥ 2 (Prop. 4.3)."""
    n = as_count(n, "n")
    omega = as_bounded_float(omega, "omega")
    if not 0 <= omega <= 1:
        raise ValueError(f"omega must be in [0, 1]; got {omega!r}")
    rho_sum = as_scale(rho_sum, "rho_sum")
    base = rho_sum / n
    return [base * (1 + (n - 1) * omega)] + [base * (1 - omega)] * (int(n) - 1)


def allocation_gap(mechanism: NoiseMechanism, n: int, rho_sum: float, omega: float, t: float) -> float:
    """The composed gap Σ_i Γ_i(t) along the allocation path of Prop. 4.3.

    Release i uses the shift r_i = ψ(ρ_i(ω)) that gives it zCDP parameter ρ_i(ω).

    >>> round(allocation_gap(Laplace(), 8, 0.5, 0.0, 1.0), 9)
    0.037202015
    """
    t = as_scale(t, "t")
    total = 0.0
    for rho_i in allocation_path(n, rho_sum, omega):
        if rho_i > 0:
            r = inverse_rho(mechanism, rho_i)
            total += rho_i * t * (t + 1) - mechanism.cgf(t, r)
    return total


def allocation_phi(mechanism: NoiseMechanism, x: float, t: float, *, nodes: int | None = None) -> float:
    """Φ_t(x) = x·t(t+1) − K(t; ψ(x)), the gap of one release that is given zCDP parameter x (Prop. 4.3).

    ``nodes`` sets the Gauss–Hermite resolution of a :class:`GaussianMixture` (192 by default); other
    mechanisms ignore it.
    """
    t, x = as_scale(t, "t"), as_bounded_float(x, "x", smallest=0, largest=1e100, strict=False)
    if x <= 0:
        return 0.0
    r = inverse_rho(mechanism, x)
    if nodes is not None and isinstance(mechanism, GaussianMixture):
        k = mechanism.cgf_with_nodes(t, r, int(nodes))
    else:
        k = mechanism.cgf(t, r)
    return x * t * (t + 1) - k


def allocation_curvature(mechanism: NoiseMechanism, t: float, grid, *, nodes: int | None = None) -> np.ndarray:
    """Centred second differences (Φ_t(x_{i+1}) − 2Φ_t(x_i) + Φ_t(x_{i−1}))/h² at the interior points of an
    evenly spaced ``grid`` of zCDP parameters: the numerical curvature that decides the allocation direction
    of Prop. 4.3 (convex: spread evenly; concave: concentrate). Appendix D.1–D.2 use 501 points in [0, 1/2]."""
    grid = np.asarray(grid, dtype=float)
    steps = np.diff(grid)
    if grid.ndim != 1 or len(grid) < 3 or not np.allclose(steps, steps[0], rtol=1e-9, atol=0) or steps[0] <= 0:
        raise ValueError("grid must be an increasing, evenly spaced 1-D array of at least 3 zCDP parameters")
    phi = np.array([allocation_phi(mechanism, x, t, nodes=nodes) for x in grid])
    return (phi[2:] - 2 * phi[1:-1] + phi[:-2]) / steps[0] ** 2


def subsampled_node_discrepancy(qs, z: float, t: float, s: float = 1.0, nodes=(GH_NODES, 2 * GH_NODES)) -> float:
    """max over the sampling rates ``qs`` of |K(t) by ``nodes[0]``-node − K(t) by ``nodes[1]``-node Gauss–Hermite|
    for the Poisson-subsampled Gaussian (the resolution check of Appendix D.2 at a non-integer order)."""
    t, s = as_scale(t, "t"), as_shift(s)
    if float(t).is_integer():
        raise ValueError(f"t must be a non-integer order (integer orders use the exact binomial sum); got {t!r}")
    worst = 0.0
    for q in qs:
        m = PoissonSubsampledGaussian(float(q), z)
        worst = max(worst, abs(m.cgf_with_nodes(t, s, nodes[0]) - m.cgf_with_nodes(t, s, nodes[1])))
    return worst


def composition_gap_discrepancy(qs, z: float, t: float, n: int, s: float = 1.0) -> float:
    """max over ``qs`` of |Γ of the n-fold composition (ρ_sum·t(t+1) − Σ_i K_i(t)) − n·Γ(t)| (Thm 3.3; the
    composition check of Appendix D.2), with Γ(t) = ρ·t(t+1) − K(t) of one step by the same subtraction, so that
    the check measures the additivity of ρ and K (``PoissonSubsampledGaussian.gap`` itself avoids the
    subtraction). Mathematically zero: what remains is floating-point rounding."""
    t = as_scale(t, "t")
    n = as_count(n, "n")
    worst = 0.0
    for q in qs:
        m = PoissonSubsampledGaussian(float(q), z)
        composed = MechanismComposition(((m, s),) * int(n))
        total = composed.rho_sum() * t * (t + 1) - composed.cgf(t)
        single = m.rho(s) * t * (t + 1) - m.cgf(t, s)  # Γ(t) by the same subtraction: Thm 3.3 is additivity
        worst = max(worst, abs(total - n * single))
    return worst


def laplace_phi1_curvature(r, *, dps: int = 40):
    """d²Φ_1/dx² at x = ρ(r) for unit-scale Laplace noise, computed without the paper's closed form.

    Φ_1(x) = 2x − K(1; ψ(x)) (Prop. 4.3 at t = 1), with ρ(r) = r + e^{−r} − 1 and K(1; r) =
    log[(2/3)e^{r} + (1/3)e^{−2r}] (Prop. 4.1(iii) of the unifying paper). Parametrised by r, d²Φ/dx² =
    (Φ''(r)x'(r) − Φ'(r)x''(r))/x'(r)³; the derivatives in r are taken by mpmath at ``dps`` digits. The paper's
    Appendix C.5 states the result in closed form (:func:`laplace_phi1_curvature_closed_form`) and concludes that
    Φ_1 is strictly convex.

    >>> float(laplace_phi1_curvature(0.5))  # doctest: +ELLIPSIS
    1.70...
    """
    with mpmath.workdps(dps):
        r = mpmath.mpf(as_shift(r))

        def x(u):
            return u + mpmath.exp(-u) - 1

        def phi(u):
            return 2 * x(u) - mpmath.log(2 * mpmath.exp(u) / 3 + mpmath.exp(-2 * u) / 3)

        x1, x2 = mpmath.diff(x, r, 1), mpmath.diff(x, r, 2)
        p1, p2 = mpmath.diff(phi, r, 1), mpmath.diff(phi, r, 2)
        return (p2 * x1 - p1 * x2) / x1 ** 3


def laplace_phi1_curvature_closed_form(r, *, dps: int = 40):
    """The unifying paper's closed form of d²Φ_1/dx² at x = ρ(r), unit-scale Laplace noise (Appendix C.5, proof
    of Prop. 4.3): 2e^{2r}(2e^{3r} + 6e^{2r} + 3e^{r} + 1)/(2e^{3r} + 1)², positive for every r."""
    with mpmath.workdps(dps):
        e = mpmath.exp(mpmath.mpf(as_shift(r)))
        return 2 * e ** 2 * (2 * e ** 3 + 6 * e ** 2 + 3 * e + 1) / (2 * e ** 3 + 1) ** 2


def discrete_gaussian_gap_direct(sigma, r: int, t, *, dps: int = 40):
    """Γ(t) = ρt(t+1) − K(t) of the discrete Gaussian N_Z(0, σ²) at integer shift ``r``, from the definition:
    K(t) = log Σ_x q(x)^{−t} p(x)^{t+1} summed over the integers at ``dps`` digits, with p = N_Z(r, σ²), q =
    N_Z(0, σ²) and ρ = r²/(2σ²) (unifying paper §4.5). Independent of the theta-function form the library's
    :class:`accountlib.theory.rdp.DiscreteGaussian` uses, so that the paper's statements about it (the gap is
    periodic in t with period 1/r, zero where (t+1)r is an integer, exponentially small as σ grows) are checked
    against a second computation. ``dps`` must exceed the digits of the gap (about 8.6σ², since
    Γ ≈ 4e^{−2π²σ²}sin²(π(t+1)r) for σ² ≥ 1) by 20 or more.
    """
    r = int(r)
    with mpmath.workdps(dps):
        s2 = mpmath.mpf(as_scale(sigma, "sigma")) ** 2
        t = mpmath.mpf(as_scale(t, "t"))
        width = int(mpmath.sqrt(2 * s2 * (dps + 10) * mpmath.log(10))) + abs(r) * int(t + 2) + 3
        xs = range(-width, width + 1)
        theta = mpmath.fsum(mpmath.exp(-mpmath.mpf(x) ** 2 / (2 * s2)) for x in xs)
        log_p = lambda x: -(x - r) ** 2 / (2 * s2)
        log_q = lambda x: -mpmath.mpf(x) ** 2 / (2 * s2)
        moment = mpmath.fsum(mpmath.exp((t + 1) * log_p(x) - t * log_q(x)) for x in xs) / theta
        return r * r * t * (t + 1) / (2 * s2) - mpmath.log(moment)


def shift_renyi_divergences(log_density, s: float, alpha: float) -> tuple[float, float]:
    """(D_α(P‖Q), D_α(Q‖P)) for P = Law(s + Z), Q = Law(Z), by adaptive quadrature of ∫p^α q^{1−α} and
    ∫q^α p^{1−α} with ``log_density`` the log-density of Z (scipy, to 1e-13 relative). For noise symmetric about
    zero the two are equal (unifying paper §2, Corollary A.1: the reflection x ↦ s − x exchanges P and Q); for
    asymmetric noise they differ in general, so the comparison is a test that can fail.
    """
    from scipy import integrate

    def divergence(first, second):
        def integrand(x):
            with np.errstate(over="ignore"):  # an infinite divergence (asymmetric tails) comes back as inf
                return np.exp(alpha * first(x) + (1 - alpha) * second(x))

        value = sum(integrate.quad(integrand, a, b, epsabs=0, epsrel=1e-13, limit=400)[0]
                    for a, b in ((-np.inf, -50.0), (-50.0, 0.0), (0.0, s), (s, 50.0), (50.0, np.inf)))
        return float(np.log(value) / (alpha - 1))

    p = lambda x: log_density(x - s)
    return divergence(p, log_density), divergence(log_density, p)
