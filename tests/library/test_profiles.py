"""Privacy curves of shift pairs: brute force, monotonicity, convexity, symmetry, the census value."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from accountlib.applications import census
from accountlib.engine import discrete_gaussian as dg
from accountlib.theory.conversions import zcdp_epsilon
from accountlib.theory.composition import Composition
from accountlib.theory.tradeoff_duality import delta_from_tradeoff, lower_convex_envelope


def brute_delta(rhos, epsilon):
    """δ(ε) = Σ_y max(0, P(y) − e^ε Q(y)) summed over the lattice of the sufficient statistic."""
    pair = Composition(rhos)
    lat = pair.lattice
    lowest, values = dg.lattice_sum_pmf(list(lat.sigma2s), list(lat.coefficients), dps=40)
    with mpmath.workdps(50):
        growth = mpmath.exp(mpmath.mpf(Fraction(epsilon).numerator) / Fraction(epsilon).denominator)
        p = {lowest + i: v for i, v in enumerate(values)}
        # under Q the statistic is S_L + 2L (every count shifted by one)
        return mpmath.fsum(max(mpmath.mpf(0), v - growth * p.get(y - pair.shift, 0)) for y, v in p.items())


@pytest.mark.parametrize("rhos", [["1/2", "1/3", "1/5"], ["1/10", "1/4", "1/4", "1/8"], [1, "1/2"]])
@pytest.mark.parametrize("epsilon", ["1/10", "1", "2.5"])
def test_delta_matches_brute_force(rhos, epsilon):
    point = Composition(rhos).delta([epsilon], rel_tol=1e-9)[0]
    exact = brute_delta(rhos, epsilon)
    with mpmath.workdps(50):
        assert abs(point.delta - exact) <= point.error_bound + mpmath.mpf("1e-40")
        assert point.error_bound <= 1e-9 * point.delta


def test_delta_is_decreasing_and_in_unit_interval():
    pair = Composition(census.pair_rhos(1, 2))
    points = pair.delta([Fraction(e, 4) for e in range(1, 160, 6)])
    values = [p.delta for p in points]
    assert all(0 <= v <= 1 for v in values)
    assert all(a > b for a, b in zip(values, values[1:]))


def test_tradeoff_is_convex_decreasing_and_symmetric():
    pair = Composition(["1/3", "1/5", "2/7"])
    alphas = [Fraction(i, 40) for i in range(41)]
    points = pair.tradeoff(alphas, abs_tol=1e-20)
    betas = [float(p.beta) for p in points]
    assert all(a >= b for a, b in zip(betas, betas[1:]))
    second = np.diff(betas, 2)
    assert np.all(second >= -1e-15)
    # symmetric noise: f is its own inverse, f(f(α)) = α
    for p in points[5:36:5]:
        back = pair.tradeoff([Fraction(str(mpmath.nstr(p.beta, 40)))], abs_tol=1e-20)[0]
        assert abs(float(back.beta) - float(p.alpha)) < 1e-12


def test_tradeoff_vertices_reproduce_delta():
    pair = Composition(["1/3", "1/5", "2/7"])
    engine = pair.engine(1e-25)
    js = range(-engine.cut, engine.cut + 2)
    vertices = pair.tradeoff_vertices(js)
    for epsilon in (Fraction(1, 2), Fraction(2), Fraction(4)):
        direct = float(pair.delta([epsilon], rel_tol=1e-9)[0].delta)
        converted = delta_from_tradeoff([v.alpha for v in vertices], [v.beta for v in vertices], epsilon)
        assert math.isclose(direct, converted, rel_tol=1e-9, abs_tol=1e-15)


def test_census_pair_13_13_released_value():
    """The sieve paper's released value, δ at ε_zCDP(1e-10), re-derived."""
    pair = Composition(census.pair_rhos(13, 13))
    point = pair.delta(["26.340588852722324353781974500154992685015224391761"], rel_tol=1e-14)[0]
    with mpmath.workdps(40):
        # the paper prints 15 significant digits: ours must agree to half a unit in the last one
        assert abs(point.delta - mpmath.mpf("1.78319933504175e-12")) <= point.error_bound + mpmath.mpf("5e-27")
        assert point.error_bound < 1e-14 * point.delta
    assert abs(zcdp_epsilon(pair.rho, 1e-10) - 26.340588852722324) < 1e-12


def test_lower_convex_envelope():
    xs = [0, 1, 2, 3, 4]
    ys = [4, 1.5, 1.2, 0.2, 0]
    assert lower_convex_envelope(xs, ys) == [0, 1, 3, 4]


def test_bad_input():
    with pytest.raises(ValueError, match="rel_tol must be in"):
        Composition([1]).delta([1], rel_tol=0.9)
    with pytest.raises(ValueError, match=r"rhos\[1\] must be > 0"):
        Composition([1, 0])
    with pytest.raises(ValueError, match="alphas must lie in"):
        Composition([1]).tradeoff([2])
    with pytest.raises(ValueError, match=r"epsilons must be in \[0, 5000\]"):
        Composition([1]).delta([-1])


def test_results_do_not_depend_on_the_callers_mpmath_precision():
    """Regression: tail values were once rounded to the caller's default 15 digits."""
    results = []
    for digits in (15, 120):
        with mpmath.workdps(digits):
            point = Composition(census.pair_rhos(1, 43)).delta(["8.67139664583832"], rel_tol=1e-12)[0]
            results.append(point)
    with mpmath.workdps(60):
        assert abs(results[0].delta - results[1].delta) <= results[0].error_bound + results[1].error_bound
        assert results[0].error_bound < 1e-12 * results[0].delta


def _brute_delta(rhos, shifts, epsilon, reach=40):
    """δ(ε) = Σ_x max(0, p(x) − e^ε q(x)) over the product of the supports, directly in mpmath."""
    import itertools

    from accountlib.engine import discrete_gaussian as dg

    with mpmath.workdps(40):
        axes = [[(x, dg.pmf(x, 1 / Fraction(r), dps=40), dg.pmf(x - s, 1 / Fraction(r), dps=40))
                 for x in range(-reach, reach + s + 1)] for r, s in zip(rhos, shifts)]
        growth = mpmath.exp(epsilon)
        total = mpmath.mpf(0)
        for cell in itertools.product(*axes):
            p = mpmath.fprod(c[1] for c in cell)
            q = mpmath.fprod(c[2] for c in cell)
            total += max(mpmath.mpf(0), p - growth * q)
        return total


@pytest.mark.parametrize("rhos, shifts", [(["1/2", "1/3"], [1, 2]), (["1/5", "1/4"], [3, 1]), (["1/2", "1/3"], [1, 1])])
def test_sensitivities_against_direct_summation(rhos, shifts):
    pair = Composition(rhos, sensitivities=shifts)
    assert pair.rho == sum(Fraction(r) * s * s for r, s in zip(rhos, shifts)) / 2  # the composition's zCDP ρ
    for point, epsilon in zip(pair.delta([Fraction(1, 2), 2], rel_tol=1e-10), (Fraction(1, 2), 2)):
        exact = _brute_delta(rhos, shifts, mpmath.mpf(epsilon.numerator) / epsilon.denominator)
        with mpmath.workdps(40):
            assert abs(point.delta - exact) <= point.error_bound + mpmath.mpf("1e-30")
    # the trade-off curve's vertices: β_j = 1 − P_Q(S_L ≥ j) is a tail of P, shifted by 2L = Σ c_i s_i
    assert pair.shift == sum(c * s for c, s in zip(pair.lattice.coefficients, shifts))


def test_sensitivity_one_is_the_census_pair():
    plain, explicit = Composition(["1/2", "1/3", "1/7"]), Composition(["1/2", "1/3", "1/7"], sensitivities=[1, 1, 1])
    assert plain.rho == explicit.rho and plain.lattice == explicit.lattice and plain.shift == explicit.shift
    assert plain.delta([1])[0] == explicit.delta([1])[0]


@pytest.mark.parametrize("bad, message", [([1], "one shift per budget"), ([0, 1], r"sensitivities\[0\] must be an integer"),
                                          (["1/2", 1], r"sensitivities\[0\] must be an integer"),
                                          (["x", 1], r"sensitivities\[0\] must be a positive integer"),
                                          ("12", "must be a list")])
def test_bad_sensitivities(bad, message):
    with pytest.raises(ValueError, match=message):
        Composition(["1/2", "1/3"], sensitivities=bad)


def test_a_trade_off_pass_stopped_part_way_keeps_what_the_pass_before_it_found():
    """r37n P3: the smoothed trade-off climbs passes of finer tolerances; a pass its budget stopped part way gave
    only the bracket of its first round, wider than the pass before it. With ``known`` a pass starts from the δ
    brackets the passes before it found, and every value it uses is certified: β's bracket from a pass whose δ
    come back as [0, 1] after two calls is no wider than the looser pass's, and still contains f(α)."""
    from accountlib.theory.tradeoff_duality import tradeoff_from_profile

    def rr(eps, error):  # randomized response with e^1 (f(α) = 1 − eα on [0, 1/(1+e)]), δ given to ± error
        with mpmath.workdps(40):
            exact = max(mpmath.mpf(0), (mpmath.e - mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)) / (1 + mpmath.e))
        return exact, mpmath.mpf(error)

    alpha = Fraction(1, 10)
    truth = 1 - float(mpmath.e) / 10

    def stopped_pass(known):
        calls = []

        def delta_at(eps):
            calls.append(eps)
            return rr(eps, 1e-9) if len(calls) <= 2 else (mpmath.mpf("0.5"), mpmath.mpf("0.5"))  # budget spent

        return tradeoff_from_profile(delta_at, alpha, 1e-9, spent=lambda: len(calls) > 2, known=known)

    known = {}
    loose = tradeoff_from_profile(lambda eps: rr(eps, 1e-4), alpha, 1e-4, known=known)
    kept = stopped_pass(known)
    forgotten = stopped_pass(None)
    for low, high in (loose, kept, forgotten):
        assert low - 1e-12 <= truth <= high + 1e-12
    assert kept[1] - kept[0] <= loose[1] - loose[0]
    assert forgotten[1] - forgotten[0] > loose[1] - loose[0]  # what the stopped pass gave before
