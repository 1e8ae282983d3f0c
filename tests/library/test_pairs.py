"""Theorem 2.1's recoveries as code, and Examples 2.2-2.3, exactly."""

from fractions import Fraction as F

import mpmath
import pytest

from accountlib.theory import pairs

PAIR = pairs.LatticePair(p={"a": F(1, 2), "b": F(1, 4), "c": F(1, 8), "P only": F(1, 8)},
                         q={"a": F(1, 8), "b": F(1, 4), "c": F(1, 2), "Q only": F(1, 8)})


def test_pld_to_curves_round_trip_is_exact():
    pld = PAIR.pld()
    for r in (F(1, 5), F(1, 2), 1, F(3, 2), 4, 9):
        assert pairs.curves_from_pld(pld, r) == (PAIR.delta_at_ratio(r), PAIR.reverse().delta_at_ratio(r))


def test_tradeoff_to_pld_round_trip_is_exact():
    assert pairs.pld_from_tradeoff(PAIR.tradeoff_vertices()) == PAIR.pld()
    assert pairs.pld_from_tradeoff(PAIR.reverse().tradeoff_vertices()) == PAIR.reverse().pld()


def test_curves_to_tradeoff_with_the_likelihood_ratios_in_the_grid():
    forward = lambda r: PAIR.delta_at_ratio(F(r).limit_denominator(10**9))
    reverse = lambda r: PAIR.reverse().delta_at_ratio(F(r).limit_denominator(10**9))
    grid = [0.25, 0.5, 1, 2, 4, 8, 1e9]
    for alpha in (F(0), F(1, 20), F(3, 10), F(7, 10), F(1)):
        assert abs(pairs.tradeoff_from_curves(forward, reverse, float(alpha), ratios=grid) - float(PAIR.tradeoff(alpha))) < 1e-12


def test_renyi_to_pld_by_prony_is_exact():
    pair = pairs.LatticePair(p={0: F(1, 2), 1: F(1, 4), 2: F(1, 4)}, q={0: F(1, 8), 1: F(1, 4), 2: F(1, 2), 3: F(1, 8)})
    moments = [F(1)] + [pair.renyi_moment(order) for order in range(2, 8)]
    assert pairs.pld_from_renyi(moments) == pair.pld()
    assert PAIR.renyi_moment(2) == float("inf")


def test_tradeoff_is_convex_decreasing_with_the_right_endpoints():
    vertices = PAIR.tradeoff_vertices()
    assert PAIR.tradeoff(0) == F(7, 8)  # Q-only outputs are rejected for free
    assert PAIR.tradeoff(1) == 0
    values = [PAIR.tradeoff(F(i, 40)) for i in range(41)]
    assert all(a >= b for a, b in zip(values, values[1:]))
    assert all(values[i - 1] + values[i + 1] >= 2 * values[i] for i in range(1, 40))
    assert vertices[0] == (0, 1)


def test_example_2_3_exact_fractions():
    a, b = pairs.example_2_3("A"), pairs.example_2_3("B")
    for r in (1, F(3, 2), 2, 3, 4, 6):
        assert a["forward"](r) == b["forward"](r) == F(2, 11) * max(0, 4 - r)
    assert a["reverse"](3) == F(3, 22) and b["reverse"](3) == 0
    assert a["exp_d2"] == F(265, 88) and b["exp_d2"] == 3
    # the truncated pairs agree with the closed forms to the truncation
    for ex in (a, b):
        truncated = ex["pair"]
        assert abs(float(truncated.delta_at_ratio(3)) - float(ex["forward"](3))) < 1e-15
        assert abs(float(truncated.reverse().delta_at_ratio(3)) - float(ex["reverse"](3))) < 1e-15


def test_zeta_pair_curve_finite():
    delta, boundary = pairs.zeta_pair(3.0)
    with mpmath.workdps(30):
        assert abs(delta(0) - boundary) < mpmath.mpf("1e-20")  # δ(0) = TV distance = Q's extra mass
        assert 0 < delta(5) < delta(1) < 1


@pytest.mark.parametrize(
    "p, q, message",
    [({0: F(1, 2)}, {0: F(1)}, "P masses must sum to 1"), ({0: F(1)}, {}, "Q must have at least one atom"),
     ({0: F(3, 2), 1: F(-1, 2)}, {0: F(1)}, "nonnegative")],
)
def test_bad_pairs(p, q, message):
    with pytest.raises(ValueError, match=message):
        pairs.LatticePair(p, q)
