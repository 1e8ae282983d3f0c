"""Hostile input to the theory layer (issue 23): every quantity of ``rdp`` and ``conversions`` is either
accurate — checked against mpmath at 50 digits over the parameter's whole accepted range, extremes
included — or refused with a ``ValueError`` naming the argument, the value and what is accepted. A positive
gap is never returned as 0, and no conversion returns a negative ε."""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accountlib.theory import rdp
from accountlib.theory import dpsgd_calibration
from accountlib.theory.conversions import profile_to_tradeoff, rdp_to_epsilon, zcdp_epsilon_via_rdp
from accountlib.infrastructure.numbers import PreciseNumber, env_limit

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
log_uniform = lambda lo, hi: st.floats(math.log10(lo), math.log10(hi)).map(lambda x: 10.0**x)  # noqa: E731


def close(value, reference, rel=1e-12):
    value, reference = mpmath.mpf(value), mpmath.mpf(reference)
    return abs(value - reference) <= rel * abs(reference)


# -- the discrete Laplace: closed forms against brute-force sums at 50 digits (plus what cancellation eats) -----

def discrete_laplace_reference(a, t, r):
    """K(t) and KL(P‖Q) of discrete Laplace noise e^{−a|z|}, integer shift r, by the finite sum term by term."""
    with mpmath.workdps(60 + int(5 * max(0, -math.log10(a)))):
        a, t = mpmath.mpf(a), mpmath.mpf(t)
        lam = mpmath.exp(-a)
        norm = -mpmath.expm1(-a) / (1 + lam)
        moment = (mpmath.exp(-(t + 1) * a * r) + lam**r * mpmath.exp((t + 1) * a * r)) / (1 + lam)
        moment += mpmath.fsum(norm * lam**x * mpmath.exp((t + 1) * a * (2 * x - r)) for x in range(1, r))
        kl = a * r * (1 - lam**r) / (1 + lam) + mpmath.fsum(norm * lam ** (r - x) * a * (2 * x - r) for x in range(1, r))
        return mpmath.log(moment), kl


def test_discrete_laplace_reproducers_of_issue_23():
    assert close(rdp.DiscreteLaplace(1e-6).rho(1), 5.0e-13 * (1 - 1e-12 / 12), rel=1e-12)  # a·tanh(a/2)
    for a in (1e-4, 1e-8, 1e-10, 1e-12, 1e-20, 1e-100):
        k, kl = discrete_laplace_reference(a, 1, 1)
        assert close(rdp.DiscreteLaplace(a).cgf(1, 1), k), a
        assert close(rdp.DiscreteLaplace(a).rho(1), kl), a
    assert rdp.DiscreteLaplace(1e-20).cgf(1, 1) > 0  # was ZeroDivisionError


@FAST
@given(a=log_uniform(1e-100, 1e2), t=log_uniform(1e-6, 1e3), r=st.integers(1, 5))
def test_discrete_laplace_cgf_and_rho_match_mpmath(a, t, r):
    mechanism = rdp.DiscreteLaplace(a)
    k, kl = discrete_laplace_reference(a, t, r)
    assert close(mechanism.cgf(t, r), k)
    rho = mechanism.rho(r)
    assert rho >= kl * (1 - 1e-13)  # the t ↓ 0 endpoint is never missed
    if r == 1:
        assert close(rho, kl)  # ρ(1) = a·tanh(a/2) = KL exactly
    assert mechanism.gap(t, r) >= 0


@FAST
@given(a=log_uniform(1e-100, 10), t=log_uniform(1e-3, 1e2))
def test_discrete_laplace_gap_has_full_precision(a, t):
    """Γ = ρ·t(t+1) − K is O(a⁴) while ρ and K are O(a²): at r = 1 (ρ = a·tanh(a/2) exactly) it is compared
    with the same difference at 50 digits beyond the cancellation."""
    k, kl = discrete_laplace_reference(a, t, 1)
    with mpmath.workdps(60 + int(5 * max(0, -math.log10(a)))):
        reference = kl * mpmath.mpf(t) * (mpmath.mpf(t) + 1) - k
    gap = rdp.DiscreteLaplace(a).gap(t, 1)
    assert gap > 0 and close(gap, reference, rel=1e-10), (gap, reference)


def test_discrete_laplace_extremes_of_the_accepted_range():
    for a in (1e-100, 1e100):
        mechanism = rdp.DiscreteLaplace(a)
        assert math.isfinite(float(mechanism.cgf(1e-100, 1))) and mechanism.rho(1) > 0
        assert math.isfinite(float(mechanism.cgf(1e100, 1)))
    with pytest.raises(ValueError, match="a must be between 1e-100 and 1e100"):
        rdp.DiscreteLaplace(1e-101)


# -- the discrete Gaussian: the gap against theta functions at 50 digits ---------------------------------------

def discrete_gaussian_gap_reference(sigma, t, r):
    q_digits = 2 * math.pi**2 * sigma**2 / math.log(10)  # the gap is about 10^-q_digits: that many digits cancel
    with mpmath.workdps(60 + int(q_digits)):
        u = (mpmath.mpf(t) + 1) * mpmath.mpf(r)
        q = mpmath.exp(-2 * mpmath.pi**2 * mpmath.mpf(sigma) ** 2)
        return mpmath.log(mpmath.jtheta(3, 0, q) / mpmath.jtheta(3, mpmath.pi * u, q))


def test_discrete_gaussian_gap_is_never_a_false_zero():
    for sigma, t in ((1.5, 0.5), (3.0, 0.5), (6.5, 0.5), (10.0, 0.25)):
        gap = rdp.DiscreteGaussian(sigma).gap(t, 1)
        assert gap > 0, sigma
        assert close(gap, discrete_gaussian_gap_reference(sigma, t, 1), rel=1e-12), sigma
    tiny = rdp.DiscreteGaussian(10.0).gap(0.5, 1)
    assert isinstance(tiny, PreciseNumber) and f"{tiny:.3e}" == "2.183e-857"
    assert rdp.DiscreteGaussian(3.0).gap(1.0, 1) == 0  # (t+1)r an integer: exactly 0


@FAST
@given(sigma=log_uniform(0.4, 10), t=log_uniform(1e-6, 50), r=st.integers(1, 3))
def test_discrete_gaussian_gap_matches_mpmath(sigma, t, r):
    gap = rdp.DiscreteGaussian(sigma).gap(t, r)
    reference = discrete_gaussian_gap_reference(sigma, t, r)
    assert gap >= 0 and close(gap, reference, rel=1e-10), (gap, reference)


@FAST
@given(sigma=log_uniform(0.05, 0.4), t=log_uniform(1e-6, 50))
def test_small_sigma_discrete_gaussian_gap_matches_direct_sums(sigma, t):
    with mpmath.workdps(120):
        u = (mpmath.mpf(t) + 1) % 1
        xs = range(-40, 42)
        theta = lambda v: mpmath.fsum(mpmath.exp(-(x - v) ** 2 / (2 * mpmath.mpf(sigma) ** 2)) for x in xs)  # noqa: E731
        reference = mpmath.log(theta(0) / theta(u))
    assert close(rdp.DiscreteGaussian(sigma).gap(t, 1), reference, rel=1e-10)


# -- conversions never return a negative ε, and check what they are given --------------------------------------

def test_conversions_never_return_a_negative_epsilon():
    assert zcdp_epsilon_via_rdp(0, 1e-5) == 0.0
    assert zcdp_epsilon_via_rdp(1e-12, 1e-5) >= 0.0
    assert rdp_to_epsilon(lambda a: 0.0, 1e-5) == 0.0
    with pytest.raises(ValueError, match=r"U\(alpha\) >= 0"):
        rdp_to_epsilon(lambda a: -1.0, 1e-5)


@pytest.mark.parametrize("call, fragment", [
    (lambda: profile_to_tradeoff([1.0], [math.nan], [0.1]), "deltas[0] must be a finite number >= 0 and <= 1"),
    (lambda: profile_to_tradeoff([1.0], [0.1], [2.0]), "alphas[0] must be a finite number >= 0 and <= 1"),
    (lambda: profile_to_tradeoff([-1.0], [0.1], [0.5]), "epsilons[0] must be a finite number >= 0"),
    (lambda: profile_to_tradeoff([1.0, 2.0], [0.1], [0.5]), "the same length"),
    (lambda: dpsgd_calibration.dpsgd_epsilon(0.01, 100, 1.0, 1e-5, notion="bogus"), "notion must be one of 'rdp', 'zcdp'"),
    (lambda: dpsgd_calibration.dpsgd_epsilon(0.01, 100, 0, 1e-5, notion="zcdp"), "z must be a finite number > 0; got 0"),
    (lambda: dpsgd_calibration.dpsgd_epsilon(2.0, 100, 1.0, 1e-5), "q must be a finite number > 0 and <= 1"),
    (lambda: dpsgd_calibration.dpsgd_epsilon(0.01, 0, 1.0, 1e-5), "steps must be a positive integer"),
    (lambda: rdp.DiscreteLaplace(1.0).cgf(math.inf, 1), "t must be a finite number > 0"),
])
def test_theory_arguments_are_checked_and_named(call, fragment):
    with pytest.raises(ValueError) as error:
        call()
    assert fragment in str(error.value)


def test_profile_to_tradeoff_still_computes():
    assert np.allclose(profile_to_tradeoff([0.0], [0.5], [0.25]), [0.25])


def test_environment_limits_name_the_variable(monkeypatch):
    for text in ("1e400", "nan", "-5", "lots"):
        monkeypatch.setenv("ACCOUNTLIB_MAX_NODE_BITS", text)
        with pytest.raises(ValueError, match="ACCOUNTLIB_MAX_NODE_BITS must be a whole number"):
            env_limit("ACCOUNTLIB_MAX_NODE_BITS", 10**8)


# -- the continuous Laplace: small shifts --------------------------------------------------------------------

@FAST
@given(r=log_uniform(1e-60, 5.0), t=log_uniform(1e-4, 1e2))
def test_laplace_cgf_rho_and_gap_keep_their_precision_at_small_shifts(r, t):
    with mpmath.workdps(60 + int(4 * max(0, -math.log10(r))) + 10):
        t_, r_ = mpmath.mpf(t), mpmath.mpf(r)
        k = mpmath.log((t_ + 1) / (2 * t_ + 1) * mpmath.exp(t_ * r_) + t_ / (2 * t_ + 1) * mpmath.exp(-(t_ + 1) * r_))
        rho = r_ + mpmath.expm1(-r_)
        gap = rho * t_ * (t_ + 1) - k
    laplace = rdp.Laplace()
    assert close(laplace.cgf(t, r), k, rel=1e-13)
    assert close(laplace.rho(r), rho, rel=1e-14)
    assert close(laplace.gap(t, r), gap, rel=1e-9)


def test_discrete_gaussian_extremes_of_the_accepted_range():
    wide, narrow = rdp.DiscreteGaussian(1e100), rdp.DiscreteGaussian(1e-100)
    assert wide.gap(0.5, 1) > 0 and math.isfinite(float(wide.cgf(0.5, 1)))
    assert narrow.gap(0.5, 1) > 0 and math.isfinite(narrow.cgf(0.5, 1))
    assert close(narrow.gap(0.5, 1), 0.25 / (2 * 1e-200), rel=1e-12)  # Θ(0) ≈ 1, Θ(1/2) ≈ 2e^{−1/(8σ²)}: Γ ≈ 1/(8σ²) − log 2


# -- the Poisson-subsampled Gaussian: K and Γ against an independent Rényi divergence at 40-70 digits -------------

def subsampled_gaussian_reference(q, z, t, s=1.0, dps=70):
    """K(t) = log ∫ p^α q^{1−α} for P = (1 − q)N(0, z²) + qN(s, z²), Q = N(0, z²) (the code's P‖Q direction),
    and Γ = s²t(t+1)/(2z²) − K, by mpmath quadrature in x at ``dps`` digits (more than the difference cancels)."""
    with mpmath.workdps(dps):
        q, z, t, s = map(mpmath.mpf, (q, z, t, s))
        a = t + 1
        f = lambda x: mpmath.exp(a * mpmath.log((1 - q) * mpmath.npdf(x, 0, z) + q * mpmath.npdf(x, s, z))  # noqa: E731
                                 + (1 - a) * mpmath.log(mpmath.npdf(x, 0, z)))
        peak = a * s
        points = sorted(set([-10 * z, 0, s, peak - 10 * z, peak, peak + 10 * z]))
        k = mpmath.log(mpmath.quad(f, [-mpmath.inf] + points + [mpmath.inf]))
        return k, s * s / (2 * z * z) * t * (t + 1) - k


def test_subsampled_gaussian_reproducers_of_issue_23():
    psg = rdp.PoissonSubsampledGaussian(0.05, 1.0)
    # 386.009433383083 by log ∫ p^α q^{1−α} at 50 digits (subsampled_gaussian_reference; 2 s at t = 30.5)
    assert abs(psg.cgf(30.5) - 386.009433383083) < 1e-9  # was 373.77 (Gauss–Hermite nodes end at |y| ≈ 26.8)
    # u = s/z = 1000: the tilted term q^α e^{α(α−1)u²/2} is all of E_Q[r^α] (the rest is below e^{−10^5} of it)
    k = 11.5 * mpmath.log(0.05) + 11.5 * 10.5 * mpmath.mpf(10) ** 6 / 2
    assert close(rdp.PoissonSubsampledGaussian(0.05, 1e-3).cgf(10.5), k, rel=1e-14)  # was negative


@pytest.mark.parametrize("q, z, t", [
    (0.3, 1.0, 2.5),      # Gauss–Hermite (tilt 3.5)
    (1e-4, 3.0, 0.37),    # K ≈ 1e-9: the excess r^α − 1 − α(r − 1) on the Gauss–Hermite nodes
    (0.005, 0.7, 13.3),   # tilt 20.4: the log-space lattice
])
def test_subsampled_gaussian_each_evaluation_path_matches_mpmath(q, z, t):
    psg = rdp.PoissonSubsampledGaussian(q, z)
    k, gap = subsampled_gaussian_reference(q, z, t, dps=40)
    assert close(psg.cgf(t), k, rel=1e-12), (psg.cgf(t), k)
    assert psg.gap(t) > 0 and close(psg.gap(t), gap, rel=1e-12), (psg.gap(t), gap)


def test_subsampled_gaussian_keeps_gauss_hermite_where_it_is_exact():
    """The DP-SGD calibration's orders (tilt (t+1)s/z ≤ 20, K ≥ 1e-4) keep the Gauss–Hermite value to the bit
    (the book's calibrated noise multipliers depend on it); beyond, the lattice agrees with checked quadrature."""
    psg = rdp.PoissonSubsampledGaussian(0.005, 0.686829069698175)
    for t in (0.7, 2.5, 5.37, 12.1):
        assert psg.cgf(t) == psg.cgf_with_nodes(t, 1.0, rdp.GH_NODES)
    for q, z, t in ((0.005, 0.69, 30.5), (0.05, 1.0, 999.5), (1e-6, 0.01, 0.37)):
        from accountlib.theory.mechanisms import subsampled

        lattice = subsampled._psg_cgf_lattice(q, 1 / z, t)
        assert lattice is not None and close(lattice, subsampled._psg_cgf_float(q, 1 / z, t), rel=1e-11), (q, z, t)
    # q = 1/2, u = 1/0.3, t = 9999.5: only the tilted term counts (the rest is below e^{−10^5} of it)
    k = 10000.5 * mpmath.log(0.5) + 10000.5 * 9999.5 / (2 * mpmath.mpf(0.3) ** 2)
    assert close(rdp.PoissonSubsampledGaussian(0.5, 0.3).cgf(9999.5), k, rel=1e-14)


@pytest.mark.slow
@settings(max_examples=10, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(q=log_uniform(1e-6, 1.0), z=log_uniform(0.1, 30.0), t=log_uniform(1e-3, 30.0))
def test_subsampled_gaussian_cgf_and_gap_match_mpmath(q, z, t):
    q = min(q, 1 - 1e-9)
    psg = rdp.PoissonSubsampledGaussian(q, z)
    k, gap = subsampled_gaussian_reference(q, z, t)
    assert close(psg.cgf(t), k, rel=1e-9), (psg.cgf(t), k)
    value = psg.gap(t)
    assert value > 0 and close(value, gap, rel=1e-9), (value, gap)


def test_subsampled_gaussian_gap_near_q_one_is_never_a_false_zero():
    for q, t in ((1 - 1e-12, 2.5), (1 - 1e-12, 3), (0.999999, 0.01)):
        psg = rdp.PoissonSubsampledGaussian(q, 1.0)
        _, gap = subsampled_gaussian_reference(q, 1.0, t, dps=40)
        assert psg.gap(t) > 0 and close(psg.gap(t), gap, rel=1e-8), (q, t, psg.gap(t), gap)
    assert rdp.PoissonSubsampledGaussian(1.0, 1.0).gap(2.5) == 0.0


# -- the Gaussian mixture: Γ without the cancellation of ρt(t+1) − K ---------------------------------------------

def mixture_gap_reference(m, s, t, dps=30):
    """ρt(t+1) − K for ½N(−m, 1) + ½N(m, 1) noise, ρ = s²/2, K = log ∫ p^α q^{1−α} by mpmath quadrature at ``dps``
    digits plus 40 for the cancellation (independent of the J-form the code uses)."""
    with mpmath.workdps(dps + 40):
        m, s, t = map(mpmath.mpf, (m, s, t))
        a = t + 1
        log_q = lambda x: mpmath.log((mpmath.npdf(x, -m, 1) + mpmath.npdf(x, m, 1)) / 2)  # noqa: E731
        f = lambda x: mpmath.exp(a * log_q(x - s) + (1 - a) * log_q(x))  # noqa: E731
        peak = a * s
        points = sorted(set([-m - 10, -m, 0, m, m + 10, s, peak - 10, peak, peak + 10, peak + m, peak - m]))
        return s * s / 2 * t * (t + 1) - mpmath.log(mpmath.quad(f, [-mpmath.inf] + points + [mpmath.inf]))


@pytest.mark.parametrize("m, s, t", [
    (0.01, 0.5, 1.3),   # ρt(t+1) − K lost 6 digits (8.7e-11 relative)
    (1e-4, 1.0, 0.5),   # Γ ≈ 3.7e-9: lost 10 digits (1.1e-6 relative)
    (3.0, 0.2, 0.1),    # Gauss–Hermite K off by 2e-10 (2.3e-6 relative in Γ)
    (1.0, 0.5, 1.3),    # no cancellation: the subtraction is kept
])
def test_mixture_gap_matches_mpmath_without_cancellation(m, s, t):
    value = rdp.GaussianMixture(m).gap(t, s)
    reference = mixture_gap_reference(m, s, t)
    assert value > 0 and close(value, reference, rel=1e-13), (value, reference)


def test_mixture_gap_is_zero_only_for_a_gaussian_or_no_shift():
    assert rdp.GaussianMixture(0.0).gap(1.5, 1.0) == 0.0 and rdp.GaussianMixture(1.0).gap(1.5, 0.0) == 0.0
    assert rdp.GaussianMixture(1e-6).gap(0.5, 1.0) > 0
