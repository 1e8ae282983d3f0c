"""The Trefethen–Weideman bound for the trapezoidal pmf, one strip and the best strip (issue 13).

``quadrature.trapezoid_pmf_strip_bound`` is the bound 2·e^{a²V/2 + a|t|}/(e^{aN} − 1) for one strip
half-width a (sieve paper Lemma 4.3 with Trefethen & Weideman 2014, Thm 3.2);
``quadrature.trapezoid_pmf_error_bound`` is its minimum over a grid of strips. Both must bound the
true trapezoidal error |T_N − P(S_L = t)|, which the tests measure against a brute-force convolution.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from accountlib.engine import discrete_gaussian as dg, lattice, quadrature

MECHANISMS = [("1/2", "1/3"), ("2/5", "1/2"), ("1", "1/6"), ("1/7", "1/4")]  # 05_trapezoid_convergence's lattice, V = 189
DPS = 60


@pytest.fixture(scope="module")
def small_lattice():
    lat = lattice.lattice_of(MECHANISMS)
    lowest, pmf = dg.lattice_sum_pmf(list(lat.sigma2s), list(lat.coefficients), dps=DPS)
    return lat, {lowest + i: p for i, p in enumerate(pmf)}


def measured_error(lat, exact, t, nodes):
    value = quadrature.dft_pmf(lat.groups, [t], nodes, dps=DPS)[0]
    with mpmath.workdps(DPS):
        return float(abs(value - exact.get(t, 0)))


def test_strip_bound_is_the_formula():
    v, t, n, a = Fraction(189), 5, 40, 0.3
    expected = 2 * math.exp(a * a * 189 / 2 + a * t) / math.expm1(a * n)
    assert quadrature.trapezoid_pmf_strip_bound(v, t, n, a) == pytest.approx(expected, rel=1e-13)
    # symmetric in t, increasing in a|t|, decreasing in N
    assert quadrature.trapezoid_pmf_strip_bound(v, -t, n, a) == quadrature.trapezoid_pmf_strip_bound(v, t, n, a)
    assert quadrature.trapezoid_pmf_strip_bound(v, t + 1, n, a) > quadrature.trapezoid_pmf_strip_bound(v, t, n, a)
    assert quadrature.trapezoid_pmf_strip_bound(v, t, n + 1, a) < quadrature.trapezoid_pmf_strip_bound(v, t, n, a)


@pytest.mark.parametrize("a", [0.05, 0.2, 0.5, 1.0])
@pytest.mark.parametrize("t", [0, 10, 25])
def test_strip_bound_bounds_the_measured_error(small_lattice, a, t):
    lat, exact = small_lattice
    for nodes in (16, 48, 96):
        error = measured_error(lat, exact, t, nodes)
        bound = quadrature.trapezoid_pmf_strip_bound(lat.variance_proxy, t, nodes, a)
        assert error <= bound, (a, t, nodes, error, bound)


def test_best_strip_is_no_worse_than_any_listed_strip_and_still_a_bound(small_lattice):
    lat, exact = small_lattice
    v = lat.variance_proxy
    for nodes in (24, 64, 120):
        best = quadrature.trapezoid_pmf_error_bound(v, 0, nodes)
        optimal_a = nodes / float(v)
        assert best <= quadrature.trapezoid_pmf_strip_bound(v, 0, nodes, optimal_a)
        assert best <= min(quadrature.trapezoid_pmf_strip_bound(v, 0, nodes, a) for a in (0.5, 1.0, 2.0))
        assert measured_error(lat, exact, 0, nodes) <= best


def test_fixed_strip_falls_exponentially_best_strip_faster():
    v = Fraction(189)
    nodes = np.arange(40, 161, 20)
    fixed = np.log([quadrature.trapezoid_pmf_strip_bound(v, 0, int(n), 0.5) for n in nodes])
    best = np.log([quadrature.trapezoid_pmf_error_bound(v, 0, int(n)) for n in nodes])
    # one strip: log bound is linear in N with slope −a
    assert np.allclose(np.diff(fixed) / 20, -0.5, rtol=1e-6)
    # best strip: the decrements grow (concave in N, the parabola −N²/2V)
    assert np.all(np.diff(np.diff(best)) < 0)


def test_extreme_arguments_stay_finite_or_inf_never_nan():
    v = Fraction(189)
    assert quadrature.trapezoid_pmf_strip_bound(v, 0, 10_000, 1.0) == 5e-324  # far below the float range
    assert quadrature.trapezoid_pmf_strip_bound(v, 0, 8, 10.0) == math.inf  # e^{9450}: above it
    middle = quadrature.trapezoid_pmf_strip_bound(v, 0, 600, 2.8)  # exponent 740.88 > 700, aN = 1680
    assert 0 < middle < 1 and math.isfinite(middle)
    assert quadrature.trapezoid_pmf_strip_bound(v, 0, np.int64(64), 0.5) == \
        quadrature.trapezoid_pmf_strip_bound(v, 0, 64, 0.5)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"variance_proxy": 0}, "variance_proxy"),
        ({"variance_proxy": -3}, "variance_proxy"),
        ({"nodes": 0}, "nodes"),
        ({"nodes": 12.5}, "nodes"),
        ({"nodes": True}, "nodes"),
        ({"strip_half_width": 0.0}, "strip_half_width"),
        ({"strip_half_width": -1.0}, "strip_half_width"),
        ({"strip_half_width": math.inf}, "strip_half_width"),
        ({"strip_half_width": math.nan}, "strip_half_width"),
    ],
)
def test_bad_input_names_the_argument(kwargs, name):
    arguments = {"variance_proxy": Fraction(189), "t": 0, "nodes": 64, "strip_half_width": 0.5} | kwargs
    with pytest.raises(ValueError, match=name):
        quadrature.trapezoid_pmf_strip_bound(**arguments)
