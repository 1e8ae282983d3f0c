"""The lattice Edgeworth expansion against exact convolutions."""

import math

import mpmath
import pytest

from accountlib.engine import discrete_gaussian as dg
from accountlib.theory import edgeworth


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


def test_first_correction_explains_the_oscillation_once_m_is_large():
    """λ4 > 0: with m = 8 summands at σ² = 0.2 the Edgeworth term has the sign of exact − normal at every
    lattice point and leaves a residual well below the discrepancy; at m = 2 (3λ4/(24m) ≈ 0.26, not small)
    the term is +0.19 at y = 0 while exact − normal is negative there."""
    eight = edgeworth.oscillation("0.2", 8)
    assert eight["lambda4"] > 0
    assert eight["sign_agreement"] == 1.0 and eight["residual_ratio"] < 0.5
    assert eight["difference_at_centre"] > 0 and eight["term_at_centre"] > 0
    two = edgeworth.oscillation("0.2", 2)
    assert two["term_at_centre"] > 0.1 and two["difference_at_centre"] < 0
    assert two["correction_at_centre"] > 0.25


def test_oscillation_term_is_the_edgeworth_minus_normal_difference():
    o = edgeworth.oscillation("0.4", 4)
    direct = edgeworth.edgeworth_local(o["y"], o["B_m"], o["lambda4"], 4) - edgeworth.normal_local(o["y"], o["B_m"])
    assert max(abs(a - b) for a, b in zip(direct, o["term"])) < 1e-15
    y0 = 0.0
    assert math.isclose(o["correction_at_centre"] * float(edgeworth.normal_local(y0, o["B_m"])),
                        float(edgeworth.edgeworth_local(y0, o["B_m"], o["lambda4"], 4) - edgeworth.normal_local(y0, o["B_m"])),
                        rel_tol=1e-12)


def test_heat_map_entries_and_rule_of_thumb():
    from fractions import Fraction

    from accountlib.theory.composition import Composition

    gap = edgeworth.discrete_continuous_gap([0.5, 5], [2, 3], 1e-6)
    assert gap.shape == (2, 2) and (gap > 0).all()
    # one entry by hand: m = 3 at σ² = 5
    mu = math.sqrt(3 / 5)
    eps = edgeworth.gdp_epsilon_for_delta(1e-6, mu)
    exact = float(Composition([Fraction(1, 5)] * 3).delta([Fraction(repr(eps))], rel_tol=1e-9)[0].delta)
    assert math.isclose(gap[1, 1], abs(exact - 1e-6) / exact, rel_tol=1e-6)
    assert edgeworth.rule_of_thumb_holds(gap, [0.5, 5], from_sigma2=5) == bool((gap[1] < 3 / 5).all())
    assert edgeworth.rule_of_thumb_holds(gap, [0.5, 5], from_sigma2=5, constant=1) == bool((gap[1] < 1 / 5).all())
    assert not edgeworth.rule_of_thumb_holds([[0.0], [0.3]], [1, 5], constant=1)
    assert edgeworth.rule_of_thumb_holds([[0.0], [0.3]], [1, 5])
    assert not edgeworth.rule_of_thumb_holds([[0.0], [0.7]], [1, 5])
    assert edgeworth.rule_of_thumb_holds([[9.0], [0.1]], [1, 5])
    with pytest.raises(ValueError):
        edgeworth.rule_of_thumb_holds([[0.1]], [5], constant=0)


def test_composition_vs_gdp_for_a_single_mechanism():
    from fractions import Fraction

    out = edgeworth.composition_vs_gdp([Fraction(1, 4)], "1.0")
    assert out["exact"] > 0 and out["continuous"] > 0 and out["error_bound"] <= 1e-9 * out["exact"]
    assert math.isclose(out["continuous"], edgeworth.gdp_delta(1.0, 0.5), rel_tol=1e-15)


def test_remainder_slopes_fit_the_tail_of_m_only():
    """The chapter's slope fit (edgeworth.remainder_slopes): a least-squares line through log sup R_m against log m
    over m ≥ fit_from only, Edgeworth steeper than the plain normal approximation."""
    m_values = [4, 16, 32, 64]
    results = [edgeworth.remainders("1", m, dps=None) for m in m_values]
    edge, normal = edgeworth.remainder_slopes(results, m_values, fit_from=16)
    logs = [math.log(m) for m in m_values[1:]]
    for slope, key in ((edge, "sup_edgeworth"), (normal, "sup_normal")):
        values = [math.log(r[key]) for r in results[1:]]
        mean_x, mean_y = sum(logs) / 3, sum(values) / 3
        expected = sum((x - mean_x) * (y - mean_y) for x, y in zip(logs, values)) / sum((x - mean_x) ** 2 for x in logs)
        assert slope == pytest.approx(expected, rel=1e-9)
    assert edge < normal < -1
    # m = 4 excluded: changing its entry leaves the fit unchanged
    assert edgeworth.remainder_slopes([{"sup_edgeworth": 1.0, "sup_normal": 1.0}] + results[1:], m_values,
                                      fit_from=16) == (edge, normal)
    with pytest.raises(ValueError, match="fewer than two"):
        edgeworth.remainder_slopes(results, m_values, fit_from=64)
    with pytest.raises(ValueError, match="same length"):
        edgeworth.remainder_slopes(results[:2], m_values)
