"""Tests of accountlib.engine.discrete_gaussian against independent computations."""

import math
import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from accountlib.engine import discrete_gaussian as dg

#: comparisons here go beyond float precision: mpmath at 120 digits inside each test (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("high_precision")


def brute_moments(sigma2, orders, digits):
    """Raw moments of N_Z(0, σ²) by direct summation at a high working precision."""
    with mpmath.workdps(digits):
        s = mpmath.mpf(Fraction(sigma2).numerator) / Fraction(sigma2).denominator
        reach = int(math.sqrt(2 * float(s) * (digits + 20) * math.log(10))) + 2
        weights = {x: mpmath.exp(-mpmath.mpf(x * x) / (2 * s)) for x in range(-reach, reach + 1)}
        theta = mpmath.fsum(weights.values())
        return [mpmath.fsum(w * mpmath.mpf(x) ** n for x, w in weights.items()) / theta for n in orders]


@pytest.mark.parametrize("sigma2", ["0.05", "0.3", "2.5", "20.9", "909.1"])
def test_cf_direct_and_dual_forms_agree_at_60_digits(sigma2):
    for theta in ["0", "0.001", "0.1", "1/3", "1", "2.5", "3.14159", "7"]:
        direct = dg.cf(theta, sigma2, form="direct", dps=60)
        dual = dg.cf(theta, sigma2, form="dual", dps=60)
        assert abs(direct - dual) < mpmath.mpf("1e-40")


@pytest.mark.parametrize("dps", [20, 40, 80])
def test_cf_precision_scales_with_dps(dps):
    # the dual form at 2·dps is the reference; the auto form at dps must be within 10^-dps
    reference = dg.cf("0.7", "1.5", form="dual", dps=2 * dps)
    assert abs(dg.cf("0.7", "1.5", dps=dps) - reference) < mpmath.mpf(10) ** (-dps)


def test_cf_properties():
    assert dg.cf(0, "2.5") == 1
    assert abs(dg.cf("1.2", 3) - dg.cf("-1.2", 3)) < mpmath.mpf("1e-30")
    assert abs(dg.cf("1.2", 3) - dg.cf(mpmath.mpf("1.2") + 2 * mpmath.pi, 3)) < mpmath.mpf("1e-28")
    values = [dg.cf(t, "0.7") for t in np.linspace(0.01, 3.1, 30)]
    assert all(a > b for a, b in zip(values, values[1:]))  # decreasing on (0, π)


def test_cf_float_matches_mpmath():
    thetas = np.linspace(-4, 4, 41)
    for sigma2 in ["0.05", "0.3", "2.5", "20.9"]:
        fast = dg.cf_float(thetas, sigma2)
        slow = np.array([float(dg.cf(float(t), sigma2)) for t in thetas])
        assert np.max(np.abs(fast - slow)) < 1e-14


@pytest.mark.parametrize("sigma2", ["0.1", "1", "20.9"])
def test_pmf_sums_to_one(sigma2):
    reach = int(math.sqrt(2 * float(Fraction(sigma2)) * 50 * math.log(10))) + 2
    with mpmath.workdps(40):
        total = mpmath.fsum(dg.pmf(x, sigma2, dps=40) for x in range(-reach, reach + 1))
    assert abs(total - 1) < mpmath.mpf("1e-35")
    xs = np.arange(-reach, reach + 1)
    assert abs(dg.pmf_float(xs, sigma2).sum() - 1) < 1e-13


def test_log_normalizer_both_regimes_agree_with_brute_force():
    for sigma2 in ["0.2", "3", "50"]:  # direct-sum regime, and dual (Poisson) regime
        with mpmath.workdps(60):
            s = mpmath.mpf(Fraction(sigma2).numerator) / Fraction(sigma2).denominator
            reference = mpmath.log(mpmath.fsum(mpmath.exp(-mpmath.mpf(x * x) / (2 * s)) for x in range(-400, 401)))
        assert abs(dg.log_normalizer(sigma2, dps=40) - reference) < mpmath.mpf("1e-38")


@pytest.mark.parametrize("sigma2", ["0.1", "0.4", "1", "2", "4"])
def test_lambda4_matches_brute_force_cumulants(sigma2):
    # m4 - 3 m2² cancels ~ -log10(λ4) digits: give the brute force that many extra
    extra = 40 + int(2 * math.pi**2 * float(Fraction(sigma2)) / math.log(10))
    m2, m4 = brute_moments(sigma2, [2, 4], 40 + extra)
    with mpmath.workdps(40 + extra):
        reference = abs(m4 - 3 * m2**2) / m2**2
        assert abs(dg.lambda4(sigma2, dps=30) / reference - 1) < mpmath.mpf("1e-25")


def test_cumulants_dual_and_direct_regimes_meet():
    # σ² = 1/2 is where cumulants() switches method; both sides must be continuous
    below = dg.cumulants(Fraction(1, 2) - Fraction(1, 10**12), 6, dps=30)
    above = dg.cumulants(Fraction(1, 2), 6, dps=30)
    for a, b in zip(below, above):
        assert abs(a - b) < mpmath.mpf("1e-9") * (1 + abs(b))


def test_variance_below_sigma2_and_close_for_large_sigma2():
    assert dg.variance("0.3") < mpmath.mpf("0.3")
    assert 0 < 3 - dg.variance(3, dps=40) < mpmath.mpf("1e-20")


def test_tail_and_subgaussian_bound():
    for k in range(0, 15):
        exact = dg.tail(k, "2.5")
        assert exact <= dg.subgaussian_tail_bound(k, "2.5")
    assert abs(dg.tail(0, 3) + dg.tail(1, 3) - 1) < mpmath.mpf("1e-28")  # symmetry: P(X>=0) = 1 - P(X>=1)


def test_lattice_sum_pmf_float_and_mp_agree():
    low_f, float_values = dg.lattice_sum_pmf(["0.5", "1.5", 3], [1, 2, -3])
    low_m, mp_values = dg.lattice_sum_pmf(["0.5", "1.5", 3], [1, 2, -3], dps=25)
    offset = low_f - low_m
    for j, value in enumerate(float_values):
        assert abs(value - float(mp_values[j + offset])) < 1e-15


def test_sampler_mean_and_variance_inside_confidence_bands():
    n = 20_000
    for sigma2 in ["2/5", "5/2", 20]:
        draws = np.array(dg.sample(sigma2, n, rng=random.Random(12345)))
        var = float(dg.variance(sigma2))
        kurt = float(dg.cumulants(sigma2, 4)[3]) + 3 * var**2
        # mean: 5-sigma band from the CLT; variance: 5-sigma band using Var(X²) = m4 - m2²
        assert abs(draws.mean()) < 5 * math.sqrt(var / n)
        assert abs(draws.var() - var) < 5 * math.sqrt((kurt - var**2) / n)


def test_sampler_frequencies_match_pmf():
    n = 20_000
    draws = dg.sample("0.6", n, rng=7)
    for x in (-2, -1, 0, 1, 2):
        p = float(dg.pmf(x, "0.6"))
        observed = sum(d == x for d in draws) / n
        assert abs(observed - p) < 5 * math.sqrt(p * (1 - p) / n)


def test_sampler_is_reproducible_and_exact_types():
    assert dg.sample("7/3", 50, rng=1) == dg.sample("7/3", 50, rng=random.Random(1))
    assert isinstance(dg.sample(2, rng=3), int)


@pytest.mark.parametrize(
    "bad, message",
    [(0, "sigma2 must be > 0"), (-1, "sigma2 must be > 0"), (float("nan"), "sigma2 must be finite"),
     (float("inf"), "sigma2 must be finite"), (mpmath.inf, "sigma2 must be finite"), ([1], "sigma2 must be a number"),
     (None, "sigma2 must be a number"), ("abc", "sigma2 could not be read"), (True, "sigma2 must be a number"),
     ("1/0", "sigma2 could not be read")],
)
def test_bad_sigma2_raises_value_error_naming_the_argument(bad, message):
    for call in (lambda: dg.cf(1, bad), lambda: dg.lambda4(bad), lambda: dg.sample(bad), lambda: dg.pmf(0, bad),
                 lambda: dg.log_normalizer(bad), lambda: dg.variance(bad)):
        with pytest.raises(ValueError, match=message):
            call()


def test_other_bad_arguments():
    with pytest.raises(ValueError, match="form must be one of"):
        dg.cf(1, 1, form="fourier")
    with pytest.raises(ValueError, match="dps must be between"):
        dg.cf(1, 1, dps=2)
    with pytest.raises(ValueError, match="x must be an integer"):
        dg.pmf(0.5, 1)
    with pytest.raises(ValueError, match="theta could not be read"):
        dg.cf("pi", 1)
    with pytest.raises(ValueError, match="rng must be"):
        dg.sample(1, rng="seed")


def test_sigma2_input_types_are_equivalent():
    values = [dg.cf("0.5", s, dps=30) for s in (Fraction(5, 2), "2.5", "5/2", 2.5, mpmath.mpf("2.5"))]
    assert all(v == values[0] for v in values)


def test_fourth_cumulant_is_positive_at_every_variance():
    """κ4 > 0: the discrete Gaussian is leptokurtic (the issue's direct sums at 60 digits: 0.0128, 0.0823,
    0.0296, 8.34e-6, 3.57e-13 at σ² = 0.1, 0.2, 0.4, 1, 2)."""
    expected = {"0.1": "0.0128", "0.2": "0.0823", "0.4": "0.0296", "1": "8.34e-6", "2": "3.57e-13"}
    for s2, value in expected.items():
        kappa4 = dg.cumulants(s2, 4, dps=60)[3]
        assert abs(kappa4 / mpmath.mpf(value) - 1) < 0.005
    for s2 in ["0.02", "0.05", "0.3", "0.49", "0.5", "0.51", "0.7", "1.5", "3", "5", "10", "30"]:
        kappa4 = dg.cumulants(s2, 4, dps=60)[3]
        assert kappa4 > 0, s2
        signed = kappa4 / dg.cumulants(s2, 2, dps=60)[1] ** 2
        assert abs(dg.lambda4(s2, dps=60) / signed - 1) < mpmath.mpf("1e-50")  # λ4 carries κ4's sign


def test_fourth_cumulant_against_a_direct_sum():
    """κ4 = m4 − 3m2² from the pmf summed directly at 80 digits (independent of the Poisson-summation split)."""
    with mpmath.workdps(80):
        for s2 in ("0.3", "1"):
            s = mpmath.mpf(s2)
            weights = {x: mpmath.exp(-mpmath.mpf(x * x) / (2 * s)) for x in range(-60, 61)}
            total = mpmath.fsum(weights.values())
            m2 = mpmath.fsum(w * x**2 for x, w in weights.items()) / total
            m4 = mpmath.fsum(w * x**4 for x, w in weights.items()) / total
            direct = m4 - 3 * m2**2
            assert direct > 0
            assert abs(dg.cumulants(s2, 4, dps=40)[3] / direct - 1) < mpmath.mpf("1e-30")
