"""The lattice Edgeworth expansion against exact convolutions."""

import math

import mpmath
import pytest

from accountlib import discrete_gaussian as dg
from accountlib import edgeworth


def test_edgeworth_beats_the_plain_normal_approximation_at_large_m():
    for sigma2 in ("0.2", "0.4"):
        r = edgeworth.remainders(sigma2, 64, dps=None)
        assert r["sup_edgeworth"] < 0.3 * r["sup_normal"]


def test_remainders_shrink_with_m_no_slower_than_the_bound():
    sups = [edgeworth.remainders("0.4", m, dps=None)["sup_edgeworth"] for m in (16, 32, 64)]
    assert sups[1] < sups[0] * 2 ** -1.5 and sups[2] < sups[1] * 2 ** -1.5


def test_float_and_mpmath_convolutions_agree():
    low_mp, exact_mp = edgeworth.exact_sum_pmf("0.3", 6, dps=40)
    low_f, exact_f = edgeworth.exact_sum_pmf("0.3", 6, dps=None)
    offset = low_f - low_mp
    assert max(abs(float(exact_mp[j + offset]) - v) for j, v in enumerate(exact_f)) < 1e-15


def test_lambda4_matches_cumulants_of_the_exact_sum():
    """λ4 of a sum of m i.i.d. terms is λ4/m: check against brute-force cumulants of the convolution."""
    m, sigma2 = 3, "0.4"
    lowest, values = edgeworth.exact_sum_pmf(sigma2, m, dps=60)
    with mpmath.workdps(60):
        xs = [mpmath.mpf(lowest + j) for j in range(len(values))]
        m2 = mpmath.fsum(p * x**2 for p, x in zip(values, xs))
        m4 = mpmath.fsum(p * x**4 for p, x in zip(values, xs))
        sum_lambda4 = (m4 - 3 * m2**2) / m2**2
        single = dg.cumulants(sigma2, 4, dps=50)
        assert abs(sum_lambda4 - single[3] / single[1] ** 2 / m) < mpmath.mpf("1e-30")


def test_gdp_closed_form():
    mu = 1.3
    eps = edgeworth.gdp_epsilon_for_delta(1e-5, mu)
    assert math.isclose(edgeworth.gdp_delta(eps, mu), 1e-5, rel_tol=1e-9)


def test_bad_m():
    with pytest.raises(ValueError, match="m must be a positive integer"):
        edgeworth.exact_sum_pmf("1", 0)
