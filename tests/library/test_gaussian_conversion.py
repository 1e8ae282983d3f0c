"""The continuous-Gaussian conversions of accountlib.theory.conversions against mpmath at 30 digits."""

import math

import mpmath
import pytest

from accountlib.theory.conversions import gaussian_delta, gaussian_epsilon, zcdp_epsilon, zcdp_epsilon_via_rdp


def _reference(epsilon, rho):
    with mpmath.workdps(30):
        mu = mpmath.sqrt(2 * mpmath.mpf(rho))
        eps = mpmath.mpf(epsilon)
        return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


@pytest.mark.parametrize("epsilon, rho", [(0.5, 0.1), (1.0, 0.5), (3.0, 0.5), (17.14, 2.556), (2.47, 0.07),
                                          (30.0, 4.9622)])
def test_gaussian_delta_matches_mpmath_at_30_digits(epsilon, rho):
    assert gaussian_delta(epsilon, rho) == pytest.approx(float(_reference(epsilon, rho)), rel=1e-14)


@pytest.mark.parametrize("rho, delta", [(0.5, 1e-6), (2.556, 1e-10), (0.07, 1e-10), (4.9622, 1e-10)])
def test_gaussian_epsilon_inverts_the_profile(rho, delta):
    eps = gaussian_epsilon(rho, delta)
    assert float(_reference(eps, rho)) == pytest.approx(delta, rel=1e-12)
    assert _reference(eps * (1 - 1e-9), rho) > delta > _reference(eps * (1 + 1e-9), rho)
    # the continuous Gaussian's exact epsilon lies below both zCDP conversions of its rho
    assert eps < zcdp_epsilon_via_rdp(rho, delta) < zcdp_epsilon(rho, delta)


def test_gaussian_conversion_edges():
    assert gaussian_delta(1.0, 0) == 0.0 and gaussian_epsilon(0, 1e-6) == 0.0
    assert gaussian_epsilon(1e-4, 0.9) == 0.0  # δ(0) = 2Φ(μ/2) − 1 is below 0.9 already
    assert math.isclose(gaussian_delta(0.0, 0.5), float(2 * mpmath.ncdf(0.5) - 1), rel_tol=1e-14)
    with pytest.raises(ValueError):
        gaussian_delta(-1.0, 0.5)
    with pytest.raises(ValueError):
        gaussian_epsilon(0.5, 0.0)
