"""accountlib.theory.rdp: closed forms, the gap, composition, quadrature convergence, the paper's values."""

import math

import numpy as np
import pytest

from accountlib.theory import conversions, rdp
from accountlib.theory import dpsgd_calibration

#: comparisons here go beyond float precision: mpmath at 120 digits inside each test (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("high_precision")

MECHANISMS = [
    (rdp.Gaussian(1.3), 0.7),
    (rdp.Laplace(1.0), 0.4),
    (rdp.GaussianMixture(1.0), 0.5),
    (rdp.StudentT(6.0), 0.2),
    (rdp.GeneralizedGaussian(1.5), 0.2),
    (rdp.DiscreteLaplace(0.5), 1),
    (rdp.DiscreteGaussian(0.6), 1),
    (rdp.PoissonSubsampledGaussian(0.1, math.sqrt(2)), 1.0),
]


@pytest.mark.parametrize("t", [0.1, 0.5, 1.0, 2.5])
@pytest.mark.parametrize("s", [0.01, 0.3, 2.0])
def test_gaussian_closed_form_and_zero_gap(t, s):
    g = rdp.Gaussian(1.7)
    assert g.cgf(t, s) == pytest.approx(t * (t + 1) * s * s / (2 * 1.7**2), rel=1e-14)
    assert g.rho(s) == pytest.approx(s * s / (2 * 1.7**2), rel=1e-14)
    assert abs(g.gap(t, s)) < 1e-15


@pytest.mark.parametrize("r", [0.05, 0.3, 1.0, 3.0])
def test_laplace_rho_closed_form_is_the_supremum(r):
    lap = rdp.Laplace()
    assert lap.rho(r) == pytest.approx(r + math.exp(-r) - 1, rel=1e-14)
    numeric = rdp.sup_ratio(lambda t: lap.cgf(t, r))
    assert numeric == pytest.approx(lap.rho(r), rel=1e-6)
    assert numeric <= lap.rho(r) * (1 + 1e-6)  # K(t) at t ~ 1e-6 carries ~1e-7 relative rounding


@pytest.mark.parametrize("mechanism, s", MECHANISMS, ids=lambda m: getattr(m, "name", str(m)))
def test_gap_is_nonnegative_everywhere_sampled(mechanism, s):
    for t in np.linspace(0.05, 3.0, 13):
        assert mechanism.gap(float(t), s) >= -1e-9


def test_composition_adds_cgfs_and_gaps():
    parts = ((rdp.Laplace(), 0.4), (rdp.GaussianMixture(1.0), 0.5), (rdp.Gaussian(), 0.3))
    composed = rdp.MechanismComposition(parts)
    for t in (0.3, 1.0, 2.0):
        assert composed.cgf(t) == pytest.approx(sum(m.cgf(t, s) for m, s in parts), rel=1e-14)
        assert composed.gap(t) == pytest.approx(sum(m.gap(t, s) for m, s in parts), rel=1e-12)
    assert composed.rho() <= composed.rho_sum() * (1 + 1e-12)


def test_quadratures_converge_when_the_resolution_doubles():
    assert rdp.GaussianMixture(1.0).cgf_check(1.0, 0.5) < 1e-12
    assert rdp.PoissonSubsampledGaussian(0.05, 1.2).cgf_check(1.5, 1.0) < 1e-12
    assert rdp.StudentT(4.0).cgf_check(1.0, 0.3) < 1e-9
    assert rdp.GeneralizedGaussian(1.3).cgf_check(1.0, 0.3) < 1e-9


def test_mixture_gauss_hermite_matches_adaptive_quadrature():
    from scipy import integrate

    m, s, t = 1.0, 0.5, 1.3
    density = lambda x: 0.5 * (math.exp(-(x - m) ** 2 / 2) + math.exp(-(x + m) ** 2 / 2)) / math.sqrt(2 * math.pi)
    integrand = lambda x: density(x - s) ** (t + 1) * density(x) ** (-t)
    value, _ = integrate.quad(integrand, -25, 25, epsabs=1e-15, epsrel=1e-13, limit=200)
    assert rdp.GaussianMixture(m).cgf(t, s) == pytest.approx(math.log(value), rel=1e-11)


@pytest.mark.parametrize("m, t, s", [(1.0, 15.0, 2.0), (1.0, 8.0, 3.16), (1.0, 10.0, 3.16), (2.0, 10.0, 3.0)])
def test_mixture_far_orders_match_mpmath(m, t, s):
    """Large (t+1)s: the integrand peaks far beyond the plain Gauss–Hermite nodes; the recentred rule holds."""
    with mpmath.workdps(40):
        mm, tt, ss = mpmath.mpf(m), mpmath.mpf(t), mpmath.mpf(s)
        p = lambda x: (mpmath.npdf(x, -mm, 1) + mpmath.npdf(x, mm, 1)) / 2
        f = lambda x: p(x - ss) ** (tt + 1) / p(x) ** tt
        peak = (tt + 1) * ss
        exact = float(mpmath.log(mpmath.quad(f, [-mpmath.inf, -mm - 10, 0, mm + 10, peak - 10, peak, peak + 10,
                                                 mpmath.inf])))
    mixture = rdp.GaussianMixture(m)
    assert mixture.cgf(t, s) == pytest.approx(exact, rel=1e-13)
    assert mixture.cgf_check(t, s) < 1e-9 * exact
    assert 0 < mixture.gap(t, s) < math.log(2) + 1e-9  # the gap levels off at log 2 (unifying paper §4.1)


def test_private_logsumexp_is_scipys_to_the_last_bit():
    """rdp.logsumexp replaces scipy.special.logsumexp in the CGF quadratures for speed only: every value it
    returns, for arrays like the quadratures' (sizes 1 to 384, terms from -800 to 800, ties, -inf terms) and
    for the edge cases (all -inf, +inf, nan, overflow), is scipy's bit for bit."""
    from scipy import special

    rng = np.random.default_rng(7)
    cases = [[-np.inf] * 3, [np.inf, 1.0], [np.nan, 1.0], [1e308, 1e308], [5.0, 5.0, 5.0], [0.0, -np.inf],
             [-745.0, -746.0], []]
    for size in (1, 2, 7, 31, 191, 384):
        for scale in (1e-3, 1.0, 30.0, 700.0):
            for _ in range(40):
                a = rng.standard_normal(size) * scale + rng.uniform(-800, 800)
                if rng.random() < 0.2:
                    a[rng.integers(size)] = -np.inf
                if rng.random() < 0.2:
                    a[rng.integers(size)] = a.max()  # a tie at the maximum
                cases.append(a)
    for a in cases:
        ours, theirs = rdp.logsumexp(a), float(special.logsumexp(a))
        assert ours == theirs or (math.isnan(ours) and math.isnan(theirs)), (a, ours, theirs)


def test_subsampled_gaussian_integer_and_fractional_orders_agree():
    mech = rdp.PoissonSubsampledGaussian(0.2, 1.1)
    exact = rdp.sampled_gaussian_cgf(0.2, 1.1, 3, 1.0)
    quadrature = mech.cgf_with_nodes(3.0 + 1e-13, 1.0, 384)
    assert quadrature == pytest.approx(exact, rel=1e-9)
    assert mech.rho(1.0) == pytest.approx(1 / (2 * 1.1**2))


def test_discrete_gaussian_gap_is_periodic_with_zeros_at_integer_orders():
    dg = rdp.DiscreteGaussian(0.6)
    for r in (1, 2):
        assert abs(dg.gap(1.0, r)) < 1e-12
        assert dg.gap(0.3, r) == pytest.approx(dg.gap(0.3 + 1 / r, r), abs=1e-12)


def test_generalized_gaussian_chi():
    assert rdp.GeneralizedGaussian(1.0).chi == pytest.approx(1 / 12, rel=1e-12)
    assert abs(rdp.GeneralizedGaussian(2.0).chi) < 1e-14


def test_conversions():
    """One function per formula (accountlib.theory.conversions): each checked against an independent evaluation."""
    rho, delta = 0.5, 1e-5
    # ε_Z = inf_t ρ(t+1) + (log c_t − log δ)/t on a dense grid of t, independently of the minimiser
    t = np.exp(np.linspace(np.log(1e-3), np.log(1e3), 400_001))
    brute = np.min(rho * (t + 1) + (t * np.log(t) - (1 + t) * np.log1p(t) - np.log(delta)) / t)
    eps_z = conversions.zcdp_epsilon_via_rdp(rho, delta)
    assert eps_z == pytest.approx(brute, rel=1e-9) and eps_z <= brute + 1e-12
    assert eps_z == conversions.rdp_to_epsilon(lambda alpha: rho * alpha, delta)  # C_δ of U(α) = ρα
    assert conversions.zcdp_delta_via_rdp(eps_z, rho) == pytest.approx(delta, rel=1e-6)
    assert conversions.c_t(1.0) == pytest.approx(0.25)
    classical = conversions.zcdp_epsilon(rho, delta)
    assert classical == rho + 2 * math.sqrt(rho * math.log(1 / delta)) and eps_z < classical
    assert conversions.zcdp_delta(classical, rho) == pytest.approx(delta, rel=1e-12)
    assert conversions.zcdp_delta(rho / 2, rho) == 1.0
    # the issue's two numbers at the census budget: the classical bound and the RDP conversion
    assert conversions.zcdp_epsilon("24811/5000", 1e-10) == pytest.approx(26.3406, abs=5e-5)
    assert conversions.zcdp_epsilon_via_rdp("24811/5000", 1e-10) == pytest.approx(25.4193, abs=5e-5)
    lap = rdp.Laplace()
    exact = conversions.rdp_to_epsilon(lambda alpha: lap.cgf(alpha - 1, 0.3) / (alpha - 1), delta)
    assert exact <= conversions.zcdp_epsilon_via_rdp(lap.rho(0.3), delta) + 1e-12
    # Hypothesis's case: finite, and above ρ (this ρ is not far enough into overflow to be refused)
    assert math.isfinite(conversions.zcdp_epsilon_via_rdp(1.7958972376246915e+308, 0.5)) \
        and conversions.zcdp_epsilon_via_rdp(1.7958972376246915e+308, 0.5) >= 1.7958972376246915e+308
    for function, rho, delta in ((conversions.zcdp_epsilon, 1e308, 1e-10),  # ρ log(1/δ) overflows
                                 (conversions.zcdp_epsilon_via_rdp, 1.7976e308, 0.5)):  # ρα overflows at every α
        with pytest.raises(ValueError, match="rho=.* is too large"):
            function(rho, delta)  # refused, never inf
    with pytest.raises(ValueError, match="no finite epsilon"):
        conversions.rdp_to_epsilon(lambda alpha: math.inf, delta)


def test_tradeoff_from_dp_guarantees():
    """f(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (Dong, Roth & Su 2022, Prop. 2.12), from points or a
    function δ ↦ ε(δ): the two entry points give the same curve."""
    alphas = np.linspace(0, 1, 11)
    f = conversions.profile_to_tradeoff([1.0], [0.1], alphas)
    expected = np.maximum(0, np.maximum(0.9 - math.e * alphas, (0.9 - alphas) / math.e))
    assert np.allclose(f, expected, rtol=0, atol=1e-15)
    deltas = np.logspace(-12, -1, 50)
    by_function = conversions.approxdp_to_tradeoff(lambda d: conversions.zcdp_epsilon(0.5, d), alphas, deltas=deltas)
    by_points = conversions.profile_to_tradeoff([conversions.zcdp_epsilon(0.5, d) for d in deltas], deltas, alphas)
    assert np.array_equal(by_function, by_points)
    assert np.all(by_points <= 1 - alphas + 1e-15) and by_points[-1] == 0


def test_calibrate_dpsgd_q1_equals_gaussian_and_meets_epsilon():
    z_rdp = dpsgd_calibration.calibrate_dpsgd(1.0, 100, 3.0, 1e-5, "rdp")
    z_zcdp = dpsgd_calibration.calibrate_dpsgd(1.0, 100, 3.0, 1e-5, "zcdp")
    assert z_rdp == pytest.approx(z_zcdp, rel=1e-9)
    z = dpsgd_calibration.calibrate_dpsgd(0.01, 500, 3.0, 1e-5, "rdp")
    mech = rdp.PoissonSubsampledGaussian(0.01, z)
    eps = conversions.rdp_to_epsilon(lambda a: 500 * mech.cgf(a - 1, 1.0) / (a - 1), 1e-5, alpha_max=1e4)
    assert abs(eps - 3.0) < 1e-8
    assert z < dpsgd_calibration.calibrate_dpsgd(0.01, 500, 3.0, 1e-5, "zcdp")


def test_calibrate_dpsgd_continues_a_bisection_to_the_same_z_as_a_fresh_one(monkeypatch):
    """A tighter tolerance continues the remembered bisection of a looser one; the result is the fresh
    bisection's to the last bit, and a repeated calibration evaluates nothing."""
    args = (0.02, 300, 2.0, 1e-6, "rdp")
    monkeypatch.setattr(dpsgd_calibration, "_BISECTIONS", {})
    fresh = dpsgd_calibration.calibrate_dpsgd(*args, tolerance=1e-12)
    monkeypatch.setattr(dpsgd_calibration, "_BISECTIONS", {})
    coarse = dpsgd_calibration.calibrate_dpsgd(*args, tolerance=1e-6)
    continued = dpsgd_calibration.calibrate_dpsgd(*args, tolerance=1e-12)
    assert continued == fresh and coarse != fresh and abs(coarse / fresh - 1) <= 1e-6
    evaluations = []
    monkeypatch.setattr(dpsgd_calibration, "dpsgd_epsilon", lambda *a: evaluations.append(a))
    assert dpsgd_calibration.calibrate_dpsgd(*args, tolerance=1e-6) == coarse  # the looser answer is still there
    assert dpsgd_calibration.calibrate_dpsgd(*args, tolerance=1e-12) == fresh and evaluations == []


def test_local_expansion_terms():
    """Gaussian: all three terms vanish; Laplace: ρ equals the mean loss (t → 0 endpoint) and κ4 ≠ 0."""
    gauss = rdp.Gaussian(1.0).loss_cumulants(0.3)
    assert abs(gauss["rho_minus_mean"]) < 1e-8 and abs(gauss["kappa3"]) < 1e-4 and abs(gauss["kappa4"]) < 1e-2
    assert gauss["mean"] == pytest.approx(0.3**2 / 2, rel=1e-6)
    lap = rdp.Laplace().loss_cumulants(0.2)
    assert abs(lap["rho_minus_mean"]) < 1e-7


# -- the quadrature mechanisms: finite, non-negative, and equal to independent references ------------------

from datetime import timedelta

import mpmath
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# deadlines are wall-clock: generous, because this suite shares a small machine with long jobs
SLOW = settings(max_examples=6, deadline=timedelta(seconds=300), derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])
shifts = st.floats(min_value=1e-3, max_value=3.0)
orders = st.floats(min_value=1e-3, max_value=20.0)


@pytest.mark.parametrize("beta", [1.2, 1.6, 1.7, 2.0])
def test_generalized_gaussian_gaps_of_the_issue_are_finite(beta):
    """gap(1, 0.2) came back inf for these β (the optimiser fed by overflowing quadratures)."""
    value = rdp.GeneralizedGaussian(beta).gap(1, 0.2)
    assert math.isfinite(value) and value >= -1e-12


def test_generalized_gaussian_above_two_is_not_zcdp():
    """For β > 2 K(t)/(t(t+1)) grows without bound (like t^{β−2}); ρ = ∞ is the exact answer."""
    m = rdp.GeneralizedGaussian(3.0)
    ratios = [m.cgf(t, 0.2) / (t * (t + 1)) for t in (1.0, 10.0, 100.0, 1000.0)]
    assert all(b > 1.5 * a for a, b in zip(ratios, ratios[1:]))
    assert math.isinf(m.rho(0.2)) and math.isinf(m.gap(1, 0.2))


@SLOW
@given(beta=st.floats(min_value=0.6, max_value=2.0), s=shifts, t=orders)
def test_generalized_gaussian_gap_is_finite_and_nonnegative(beta, s, t):
    m = rdp.GeneralizedGaussian(beta)
    gap, rho = m.gap(t, s), m.rho(s)
    assert math.isfinite(gap) and math.isfinite(rho)
    assert gap >= -1e-9 * rho * t * (t + 1)


@SLOW
@given(nu=st.floats(min_value=1.0, max_value=200.0), s=shifts, t=orders)
def test_student_t_gap_is_finite_and_nonnegative(nu, s, t):
    m = rdp.StudentT(nu)
    gap, rho = m.gap(t, s), m.rho(s)
    assert math.isfinite(gap) and math.isfinite(rho)
    assert gap >= -1e-9 * rho * t * (t + 1)


@SLOW
@given(s=shifts, t=orders)
def test_generalized_gaussian_two_is_the_gaussian(s, t):
    m, g = rdp.GeneralizedGaussian(2.0), rdp.Gaussian(1.0)
    assert m.cgf(t, s) == pytest.approx(g.cgf(t, s), rel=1e-9)
    assert m.rho(s) == pytest.approx(s * s / 2, rel=1e-9)
    assert abs(m.gap(t, s)) <= 1e-9 * g.rho(s) * t * (t + 1)


def _laplace_gap_40_digits(t, s):
    """Γ(t) = ρt(t+1) − K(t) of unit Laplace noise from the closed forms (Prop. 4.1(iii)) at 40 digits."""
    with mpmath.workdps(40):
        t, r = mpmath.mpf(t), mpmath.mpf(s)
        k = mpmath.log((t + 1) / (2 * t + 1) * mpmath.exp(t * r) + t / (2 * t + 1) * mpmath.exp(-(t + 1) * r))
        return (r + mpmath.expm1(-r)) * t * (t + 1) - k, k


@SLOW
@given(s=shifts, t=orders)
def test_generalized_gaussian_one_is_the_laplace_closed_form(s, t):
    m = rdp.GeneralizedGaussian(1.0)
    gap, k = _laplace_gap_40_digits(t, s)
    assert m.cgf(t, s) == pytest.approx(float(k), rel=1e-9)
    assert m.rho(s) == pytest.approx(s + math.expm1(-s), rel=1e-9)
    # Γ = ρt(t+1) − K is a difference of two numbers each good to ~1e-9 relative (the quadrature's
    # tolerance), so it is compared to that accuracy
    assert m.gap(t, s) == pytest.approx(float(gap), rel=1e-6, abs=2e-9 * float(k))


def _student_t_cgf_50_digits(nu, t, s):
    """K(t) = log ∫ f(x − s)^{t+1} f(x)^{−t} dx straight from the density, mpmath tanh-sinh at 50 digits."""
    with mpmath.workdps(50):
        nu, t, s = mpmath.mpf(nu), mpmath.mpf(t), mpmath.mpf(s)
        c = mpmath.gamma((nu + 1) / 2) / (mpmath.sqrt(nu * mpmath.pi) * mpmath.gamma(nu / 2))
        f = lambda x: c * (1 + x * x / nu) ** (-(nu + 1) / 2)
        value = mpmath.quad(lambda x: f(x - s) ** (t + 1) / f(x) ** t, [-mpmath.inf, -10, 0, s, s + 10, mpmath.inf])
        return mpmath.log(value)


@settings(max_examples=5, deadline=timedelta(seconds=300), derandomize=True)
@given(nu=st.floats(min_value=1.0, max_value=60.0), s=st.floats(min_value=0.01, max_value=2.0),
       t=st.floats(min_value=0.01, max_value=8.0))
def test_student_t_cgf_against_mpmath_at_50_digits(nu, s, t):
    reference = _student_t_cgf_50_digits(nu, t, s)
    assert rdp.StudentT(nu).cgf(t, s) == pytest.approx(float(reference), rel=1e-9, abs=1e-15)


def test_student_t_kl_endpoint_against_mpmath():
    nu, s = 4.0, 0.3
    with mpmath.workdps(40):
        c = mpmath.gamma(mpmath.mpf(nu + 1) / 2) / (mpmath.sqrt(nu * mpmath.pi) * mpmath.gamma(mpmath.mpf(nu) / 2))
        f = lambda x: c * (1 + x * x / nu) ** (-(nu + 1) / 2)
        kl = mpmath.quad(lambda x: f(x - s) * mpmath.log(f(x - s) / f(x)), [-mpmath.inf, 0, s, mpmath.inf])
    assert rdp.StudentT(nu).kl(s) == pytest.approx(float(kl), rel=1e-10)
    assert rdp.StudentT(nu).rho(s) >= rdp.StudentT(nu).kl(s)


@pytest.mark.parametrize("beta", [1.1, 1.5, 1.9])
def test_gap_is_continuous_in_beta(beta):
    h = 1e-5
    a, b = rdp.GeneralizedGaussian(beta).gap(1, 0.2), rdp.GeneralizedGaussian(beta + h).gap(1, 0.2)
    assert abs(a - b) < 1e-3 * a  # |dΓ/dβ| is a few times Γ


def test_gap_vanishes_continuously_as_beta_reaches_two():
    gaps = [rdp.GeneralizedGaussian(2 - h).gap(1, 0.2) for h in (1e-1, 1e-2, 1e-3)]
    assert gaps[0] > gaps[1] > gaps[2] > 0
    assert gaps[2] < 2e-3 * gaps[0] * 10  # roughly linear in 2 − β


@pytest.mark.parametrize("nu", [2.0, 6.0, 30.0])
def test_gap_is_continuous_in_nu(nu):
    h = 1e-5 * nu
    a, b = rdp.StudentT(nu).gap(1, 0.2), rdp.StudentT(nu + h).gap(1, 0.2)
    assert abs(a - b) < 1e-3 * a


def test_student_t_tends_to_the_gaussian():
    assert rdp.StudentT(1e6).gap(1, 0.2) < 1e-8
    assert rdp.StudentT(1e6).rho(0.2) == pytest.approx(0.02, rel=1e-5)


def test_quadrature_failure_raises_instead_of_returning_inf(monkeypatch):
    m = rdp.StudentT(5.0)

    def broken(*args, **kwargs):
        raise rdp.QuadratureError("forced")

    from accountlib.theory.mechanisms import heavy_tailed

    monkeypatch.setattr(heavy_tailed, "integrate_checked", broken)
    monkeypatch.setattr(rdp.QuadratureNoise, "_cgf_mp", lambda self, t, s, dps=30: broken())
    with pytest.raises(rdp.QuadratureError):
        m.cgf(1.0, 0.2)


def test_float_quadrature_and_mpmath_fallback_agree():
    for m in (rdp.StudentT(3.0), rdp.GeneralizedGaussian(1.4)):
        for t in (1e-4, 1.0, 50.0):
            assert m.cgf_check(t, 0.5) <= 1e-9 * abs(m.cgf(t, 0.5))




def _quadrature_gap_50_digits(m, t, s):
    """ρt(t+1) − K(t) at 50 digits, ρ = E_P L (the endpoint), K = log ∫ p^{t+1} q^{−t}, own mpmath quadrature."""
    with mpmath.workdps(50):
        t, s = mpmath.mpf(t), mpmath.mpf(s)
        if isinstance(m, rdp.StudentT):
            nu = mpmath.mpf(m.nu)
            c = mpmath.gamma((nu + 1) / 2) / (mpmath.sqrt(nu * mpmath.pi) * mpmath.gamma(nu / 2))
            f = lambda x: c * (1 + x * x / nu) ** (-(nu + 1) / 2)  # noqa: E731
        else:
            b = mpmath.mpf(m.beta)
            c = 1 / (2 * b ** (1 / b - 1) * mpmath.gamma(1 / b))
            f = lambda x: c * mpmath.exp(-abs(x) ** b / b)  # noqa: E731
        points = [-mpmath.inf, -10, 0, s / 2, s, s + 10, mpmath.inf]
        kl = mpmath.quad(lambda x: f(x - s) * mpmath.log(f(x - s) / f(x)), points)
        return kl * t * (t + 1) - mpmath.log(mpmath.quad(lambda x: f(x - s) ** (t + 1) / f(x) ** t, points))


@pytest.mark.parametrize("m, t, s", [(rdp.StudentT(3.0), 1.0, 0.2), (rdp.GeneralizedGaussian(1.0), 0.3, 0.01),
                                     (rdp.GeneralizedGaussian(1.5), 1.0, 0.2),  # the float path (t = 1: even c_k = 0)
                                     (rdp.StudentT(1e6), 1.0, 0.2), (rdp.GeneralizedGaussian(1.999), 2.0, 0.5)])
def test_quadrature_noise_gap_has_twelve_digits(m, t, s):
    reference = _quadrature_gap_50_digits(m, t, s)
    value = m.gap(t, s)
    assert value > 0 and abs(value - float(reference)) <= 1e-12 * float(reference), (value, reference)


@pytest.mark.slow
def test_interior_supremum_gap_against_an_independent_maximisation():
    """β = 0.6 at s = 1e-3: the bounded loss puts the supremum of K(t)/(t(t+1)) at t ≈ 760, not at the t ↓ 0
    endpoint (ρ is 7× E_P L). Reference: K by its own 40-digit quadrature of p^{t+1} q^{−t}, ρ by golden-section
    search in log t (60 steps; the ratio is stationary at its maximum, so an error in t is squared in ρ)."""
    m, s = rdp.GeneralizedGaussian(0.6), 1e-3
    with mpmath.workdps(40):
        b, shift = mpmath.mpf("0.6"), mpmath.mpf(s)
        ell = lambda x: -(mpmath.log(2) + (1 / b - 1) * mpmath.log(b) + mpmath.loggamma(1 / b)) - abs(x) ** b / b  # noqa: E731
        points = [-mpmath.inf, -1, 0, shift, 1, mpmath.inf]

        def cgf(t):
            t = mpmath.mpf(t)
            return mpmath.log(mpmath.quad(lambda x: mpmath.exp((t + 1) * ell(x - shift) - t * ell(x)), points))

        def ratio(u):
            t = mpmath.exp(u)
            return cgf(t) / (t * (t + 1))

        lo, hi, g = mpmath.log(50), mpmath.log(20000), (mpmath.sqrt(5) - 1) / 2
        a, c = hi - g * (hi - lo), lo + g * (hi - lo)
        fa, fc = ratio(a), ratio(c)
        for _ in range(60):
            if fa > fc:
                hi, c, fc = c, a, fa
                a = hi - g * (hi - lo)
                fa = ratio(a)
            else:
                lo, a, fa = a, c, fc
                c = lo + g * (hi - lo)
                fc = ratio(c)
        rho = max(fa, fc)
        endpoint = mpmath.quad(lambda x: mpmath.exp(ell(x - shift)) * (ell(x - shift) - ell(x)), points)
        assert rho > 5 * endpoint and 700 < mpmath.exp(a) < 800  # an interior supremum, as described
        for t in (1.0, 50.0):
            reference = float(rho * t * (t + 1) - cgf(t))
            assert abs(m.gap(t, s) - reference) <= 1e-12 * reference, (t, m.gap(t, s), reference)
        # the float search's ρ (the documented ~1e-9 relative of rho(); gap does not use it)
        assert abs(m.rho(s) - float(rho)) <= 1e-9 * float(rho)


def test_subsampled_gaussian_split_at_large_shift():
    """u = s/z = 1e4 (the lattice would be too long): the split at the transition, not 30-digit mpmath (50 s)."""
    k = 11.5 * mpmath.log(0.05) + 11.5 * 10.5 * mpmath.mpf(10) ** 8 / 2  # the tilted term is all of E r^α
    assert abs(rdp.PoissonSubsampledGaussian(0.05, 1e-4).cgf(10.5) - float(k)) <= 1e-14 * float(k)
    from accountlib.theory.mechanisms import subsampled

    assert subsampled._psg_cgf_split(0.05, 1.0, 30.5) == pytest.approx(subsampled._psg_cgf_lattice(0.05, 1.0, 30.5),
                                                                    rel=1e-13)


@pytest.mark.parametrize("q, z", [(0.005, 0.686829069698175), (0.005, 0.2236), (0.05, 1.3)])
def test_dpsgd_epsilon_skipping_small_orders_is_the_full_evaluation(q, z):
    """The grid points dpsgd_epsilon does not evaluate (objective provably above the zCDP curve's) change nothing."""
    from accountlib.theory.conversions import rdp_to_epsilon
    m = rdp.PoissonSubsampledGaussian(q, z)
    full = rdp_to_epsilon(lambda a: 500 * m.cgf(a - 1, 1.0) / (a - 1), 1e-5, alpha_max=1e4)
    assert dpsgd_calibration.dpsgd_epsilon(q, 500, z, 1e-5) == full
