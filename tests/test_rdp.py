"""accountlib.rdp: closed forms, the gap, composition, quadrature convergence, the paper's values."""

import math

import numpy as np
import pytest

from accountlib import rdp

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
    numeric = rdp._sup_ratio(lambda t: lap.cgf(t, r))
    assert numeric == pytest.approx(lap.rho(r), rel=1e-6)
    assert numeric <= lap.rho(r) * (1 + 1e-6)  # K(t) at t ~ 1e-6 carries ~1e-7 relative rounding


@pytest.mark.parametrize("mechanism, s", MECHANISMS, ids=lambda m: getattr(m, "name", str(m)))
def test_gap_is_nonnegative_everywhere_sampled(mechanism, s):
    for t in np.linspace(0.05, 3.0, 13):
        assert mechanism.gap(float(t), s) >= -1e-9


def test_composition_adds_cgfs_and_gaps():
    parts = ((rdp.Laplace(), 0.4), (rdp.GaussianMixture(1.0), 0.5), (rdp.Gaussian(), 0.3))
    composed = rdp.Composition(parts)
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


def test_subsampled_gaussian_integer_and_fractional_orders_agree():
    mech = rdp.PoissonSubsampledGaussian(0.2, 1.1)
    exact = rdp.sampled_gaussian_cgf(0.2, 1.1, 3, 1.0)
    quadrature = mech._cgf_nodes(3.0 + 1e-13, 1.0, 384)
    assert quadrature == pytest.approx(exact, rel=1e-9)
    assert mech.rho(1.0) == pytest.approx(1 / (2 * 1.1**2))


def test_allocation_values_of_proposition_4_3_to_nine_digits():
    lap = rdp.Laplace()
    mixture = rdp.GaussianMixture(1.0)
    assert round(rdp.allocation_gap(lap, 8, 0.5, 0.0, 1.0), 9) == 0.037202015
    assert round(rdp.allocation_gap(lap, 8, 0.5, 1.0, 1.0), 9) == 0.193535993
    assert round(rdp.allocation_gap(mixture, 8, 0.5, 0.0, 1.0), 9) == 0.435179700
    assert round(rdp.allocation_gap(mixture, 8, 0.5, 1.0, 1.0), 9) == 0.342190807


def test_discrete_gaussian_gap_is_periodic_with_zeros_at_integer_orders():
    dg = rdp.DiscreteGaussian(0.6)
    for r in (1, 2):
        assert abs(dg.gap(1.0, r)) < 1e-12
        assert dg.gap(0.3, r) == pytest.approx(dg.gap(0.3 + 1 / r, r), abs=1e-12)


def test_generalized_gaussian_chi():
    assert rdp.GeneralizedGaussian(1.0).chi == pytest.approx(1 / 12, rel=1e-12)
    assert abs(rdp.GeneralizedGaussian(2.0).chi) < 1e-14


def test_conversions():
    rho = 0.5
    eps_z = rdp.epsilon_zcdp(rho, 1e-5)
    assert eps_z == pytest.approx(rdp.epsilon_rdp(lambda t: rho * t * (t + 1), 1e-5))
    assert rdp.delta_zcdp(eps_z, rho) == pytest.approx(1e-5, rel=1e-6)
    assert rdp.c_t(1.0) == pytest.approx(0.25)
    lap = rdp.Laplace()
    assert rdp.epsilon_rdp(lambda t: lap.cgf(t, 0.3), 1e-5) <= rdp.epsilon_zcdp(lap.rho(0.3), 1e-5) + 1e-12


def test_calibrate_dpsgd_q1_equals_gaussian_and_meets_epsilon():
    z_rdp = rdp.calibrate_dpsgd(1.0, 100, 3.0, 1e-5, "rdp")
    z_zcdp = rdp.calibrate_dpsgd(1.0, 100, 3.0, 1e-5, "zcdp")
    assert z_rdp == pytest.approx(z_zcdp, rel=1e-9)
    z = rdp.calibrate_dpsgd(0.01, 500, 3.0, 1e-5, "rdp")
    mech = rdp.PoissonSubsampledGaussian(0.01, z)
    eps = rdp.rdp_to_epsilon(lambda a: 500 * mech.cgf(a - 1, 1.0) / (a - 1), 1e-5, alpha_max=1e4)
    assert abs(eps - 3.0) < 1e-8
    assert z < rdp.calibrate_dpsgd(0.01, 500, 3.0, 1e-5, "zcdp")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: rdp.Laplace().cgf(0, 1), "t must be a finite number > 0"),
        (lambda: rdp.Laplace().cgf(-1, 1), "t must be a finite number > 0"),
        (lambda: rdp.PoissonSubsampledGaussian(0, 1), r"q must be in \(0, 1\]"),
        (lambda: rdp.PoissonSubsampledGaussian(1.5, 1), r"q must be in \(0, 1\]"),
        (lambda: rdp.Gaussian(-1), "sigma must be a finite number > 0"),
        (lambda: rdp.Laplace(scale=0), "scale must be a finite number > 0"),
        (lambda: rdp.GaussianMixture(-1), "m must be"),
        (lambda: rdp.StudentT(0.5), "nu must be >= 1"),
        (lambda: rdp.allocation_gap(rdp.Laplace(), 8, 0.5, 2.0, 1.0), "omega must be in"),
        (lambda: rdp.calibrate_dpsgd(0.1, 10, 3, 1e-5, "gdp"), "notion must be"),
        (lambda: rdp.DiscreteLaplace(1).cgf(1, 0.5), "integer shift"),
    ],
)
def test_bad_input_raises_clear_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_local_expansion_terms():
    """Gaussian: all three terms vanish; Laplace: ρ equals the mean loss (t → 0 endpoint) and κ4 ≠ 0."""
    gauss = rdp.Gaussian(1.0).loss_cumulants(0.3)
    assert abs(gauss["rho_minus_mean"]) < 1e-8 and abs(gauss["kappa3"]) < 1e-4 and abs(gauss["kappa4"]) < 1e-2
    assert gauss["mean"] == pytest.approx(0.3**2 / 2, rel=1e-6)
    lap = rdp.Laplace().loss_cumulants(0.2)
    assert abs(lap["rho_minus_mean"]) < 1e-7
