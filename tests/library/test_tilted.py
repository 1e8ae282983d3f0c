"""The tilted-contour engine and the double-double threshold sums, against independent computations."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, fmpq

from accountlib.applications import census
from accountlib.theory import conversions, profiles
from accountlib.engine import lattice, front as tails, tilted
from accountlib.engine import arithmetic
from accountlib.engine.results import EvaluationPaths
from test_tails import brute_tails

# σ² = 1/ρ ≥ 1/2 throughout (the tilted engine's domain)
TILTABLE = [
    [("1/2", "1/3"), ("2/5", "1/2"), ("1", "1/6"), ("1/7", "1/4")],
    [("1/20", "1"), ("1/3", "2/3"), ("3/4", "5/6")],
    [(2, 1), ("1/3", "3/2"), ("1/9", "1/2")],  # σ² = 1/2: the smallest allowed
]


@pytest.mark.parametrize("mechanisms", TILTABLE)
def test_tilted_tails_match_brute_force_convolution_to_their_relative_bound(mechanisms):
    lat, lowest, suffix = brute_tails(mechanisms, dps=60)
    spread = math.sqrt(float(lat.variance_proxy))
    indices = sorted({int(x * spread) for x in (1.5, 3, 5, 8, 11)})  # tails down to ~1e-28
    results = tilted.tilted_tail_probabilities(lat, indices, rel_tol=1e-9)
    with mpmath.workdps(70):
        for j, r in zip(indices, results):
            exact = suffix[j - lowest]
            assert exact > 1e-45  # brute force (60 digits absolute) is then exact to 1e-15 relative
            assert r.error_bound <= 1e-9 * float(r.value)
            assert abs(r.value - exact) <= r.error_bound, (j, r.value, exact)


def test_tilted_engine_agrees_with_the_arb_engine_on_a_census_pair():
    pair = profiles.Composition(census.pair_rhos(13, 13))
    spread = math.sqrt(float(pair.lattice.variance_proxy))
    indices = [int(x * spread) for x in (3, 6, 9)]
    reference = tails.TailEngine(pair.lattice, 1e-45).tail_indices(indices)
    engine = tilted.TiltedTailEngine(pair.lattice, smallest_index=indices[0], j_tol=1e-13)
    with mpmath.workdps(50):
        for a, b in zip(reference, engine.tail_indices(indices)):
            assert a.value > 1e-25  # the reference is then accurate to 1e-20 relative
            assert abs(a.value - b.value) <= a.error_bound + b.error_bound
            assert b.error_bound <= 1e-9 * float(b.value)


def test_log_mgf_matches_a_direct_sum():
    """log E e^{θ S_L} from the dual form against Σ_x p(x) e^{θ c x} summed directly in mpmath."""
    lat = lattice.lattice_of([("1/2", "1/3"), ("1/3", "1/2")])
    engine = tilted.TiltedTailEngine(lat, smallest_index=5, j_tol=1e-10)
    theta = Fraction(3, 17)
    value = engine.log_mgf(theta)
    with mpmath.workdps(60):
        total = mpmath.mpf(0)
        for (s2, c), n in lat.groups:
            s2m = mpmath.mpf(s2.numerator) / s2.denominator
            t = mpmath.mpf(theta.numerator) / theta.denominator * c
            reach = int(40 * mpmath.sqrt(s2m)) + 60
            num = mpmath.fsum(mpmath.exp(-x * x / (2 * s2m) + t * x) for x in range(-reach, reach + 1))
            den = mpmath.fsum(mpmath.exp(-x * x / (2 * s2m)) for x in range(-reach, reach + 1))
            total += n * mpmath.log(num / den)
        assert abs(mpmath.mpf(value.mid().str(50, radius=False)) - total) <= float(value.rad()) + 1e-40


def test_tilted_engine_rejects_what_it_cannot_do():
    with pytest.raises(ValueError, match="sigma2 >= 1/2"):
        tilted.TiltedTailEngine([(5, 1)], smallest_index=3)
    with pytest.raises(ValueError, match="smallest_index must be a positive integer"):
        tilted.TiltedTailEngine([(1, 1)], smallest_index=0)
    with pytest.raises(ValueError, match="j_tol must be in"):
        tilted.TiltedTailEngine([(1, 1)], smallest_index=3, j_tol=0.5)
    engine = tilted.TiltedTailEngine([(1, 1)], smallest_index=3)
    with pytest.raises(ValueError, match="below this engine's smallest_index"):
        engine.tail_index(2)


def test_deep_levels_of_delta_agree_with_the_untilted_engine():
    """Composition.delta with the tilted deep levels against the arb engine alone (tilt switched off)."""
    rhos = census.pair_rhos(13, 13)
    epsilons = [Fraction(repr(conversions.zcdp_epsilon(census.TOTAL_RHO, d))) for d in (1e-3, 1e-10, 1e-20)]
    pair = profiles.Composition(rhos)
    tilted_points = pair.delta(epsilons, rel_tol=1e-6)
    assert pair.tilted_engines  # the deep levels did go the tilted way (the front door's choice)
    untilted = profiles.Composition(rhos, paths=EvaluationPaths(tilted=False))
    plain = untilted.delta(epsilons, rel_tol=1e-6)
    assert not untilted.tilted_engines
    with mpmath.workdps(50):
        for a, b in zip(tilted_points, plain):
            assert a.error_bound <= 1e-6 * float(a.delta)
            assert abs(a.delta - b.delta) <= a.error_bound + b.error_bound


def test_double_double_sines_are_within_their_stated_error():
    n = 1_000_003
    table = arithmetic.SineTable(n)
    m = np.array([0, 1, 2, n - 1, n, n + 1, 2 * n - 1, 777_777, 1_234_567, 1_999_999], dtype=np.int64)
    hi, lo = table.sin(m)
    with arithmetic.precision(200):
        for mi, h, l in zip(m.tolist(), hi.tolist(), lo.tolist()):
            exact = arb.sin_pi_fmpq(fmpq(mi, n))
            difference = abs(exact - arb(h) - arb(l))
            assert float(difference.upper()) <= arithmetic.SineTable.ERROR


def test_double_double_threshold_sums_agree_with_arb():
    """The vectorised double-double moving sums against the arb loop, on a census pair."""
    pair = profiles.Composition(census.pair_rhos(1, 2))
    engine = pair.engine(2.5e-26)
    assert engine._dd is not None
    spread = math.sqrt(float(pair.lattice.variance_proxy))
    indices = [int(x * spread) for x in np.linspace(-4, 4, 9)]
    fast = engine.tail_indices(indices)
    engine._dd = None
    slow = engine.tail_indices(indices)
    with mpmath.workdps(60):
        for a, b in zip(fast, slow):
            assert a.error_bound <= 2.5e-26 and b.error_bound <= 2.5e-26
            assert abs(a.value - b.value) <= a.error_bound + b.error_bound


def test_double_double_primitives_are_error_free_or_bounded():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=1000) * 10.0 ** rng.integers(-20, 20, 1000), rng.normal(size=1000)
    s, e = arithmetic.two_sum(a, b)
    p, f = arithmetic.two_prod(a, b)
    for x, y, s1, e1, p1, f1 in zip(a[:50], b[:50], s[:50], e[:50], p[:50], f[:50]):
        assert Fraction(s1) + Fraction(e1) == Fraction(x) + Fraction(y)
        assert Fraction(p1) + Fraction(f1) == Fraction(x) * Fraction(y)


@pytest.mark.parametrize("mechanisms", TILTABLE)
def test_the_arb_sum_on_the_tilted_contour_matches_brute_force_far_below_float64(mechanisms):
    """``precise=True`` sums J in arb: tails certified to 1e-20 relative (float64 stops near 1e-13), each containing
    the brute-force convolution at 60 digits, and agreeing with the float64 sum within both bounds."""
    lat, lowest, suffix = brute_tails(mechanisms, dps=60)
    spread = math.sqrt(float(lat.variance_proxy))
    indices = sorted({int(x * spread) for x in (3, 5, 8)})
    fine = tilted.TiltedTailEngine(lat, smallest_index=indices[0], j_tol=1e-24, precise=True).tail_indices(indices)
    fast = tilted.TiltedTailEngine(lat, smallest_index=indices[0], j_tol=1e-14).tail_indices(indices)
    with mpmath.workdps(70):
        for j, r, f in zip(indices, fine, fast):
            exact = suffix[j - lowest]
            assert exact > 1e-38  # brute force (60 digits absolute) is then exact to 1e-22 relative
            assert r.error_bound <= 1e-20 * r.value < f.error_bound
            assert abs(r.value - exact) <= r.error_bound + mpmath.mpf(10) ** -60, (j, r.value, exact)
            assert abs(r.value - f.value) <= r.error_bound + f.error_bound


def test_the_prefactor_keeps_its_precision_for_large_thresholds():
    """log M(θ) − θ·lo was formed at the caller's arb precision (53 bits by default), whose radius, ~1e-13 of
    θ·lo ≈ 3600 for budget 11/10000 at lo = 1818, bounded every deep tail there to about 7e-13 relative."""
    lat = lattice.lattice_of([("11/10000", 1)])
    (r,) = tilted.TiltedTailEngine(lat, smallest_index=1818, j_tol=1e-25, precise=True).tail_indices([1818])
    assert r.budget.rounding <= 1e-29 * r.value and r.error_bound <= 1e-23 * r.value


def test_the_arb_sum_refuses_a_workload_beyond_its_limit_before_summing():
    engine = tilted.TiltedTailEngine([(1, 1)], smallest_index=12, j_tol=1e-30, precise=True, max_node_terms=10)
    with pytest.raises(tilted.ResourceLimitError, match="ACCOUNTLIB_MAX_PRECISE_NODE_TERMS"):
        engine.tail_indices([12, 13])
    with pytest.raises(ValueError, match="j_tol must be in"):
        tilted.TiltedTailEngine([(1, 1)], smallest_index=12, j_tol=1e-70, precise=True)
    with pytest.raises(ValueError, match="precise must be True or False"):
        tilted.TiltedTailEngine([(1, 1)], smallest_index=12, precise="yes")


def test_relative_tail_requests_below_1e_12_stay_on_the_tilted_contour():
    """tail_probabilities at rel_tol 1e-20 on a deep tail (P(X ≥ 60), X ~ N_Z(0, 2), about 1e-392): below 1e-12 it
    used to go to the untilted engines, whose floor Δ = 1e-300 cannot resolve it; the arb sum certifies it."""
    (r,) = tails.tail_probabilities([(Fraction(1, 2), 1)], [59], rel_tol=1e-20)
    with mpmath.workdps(60):
        weights = {x: mpmath.exp(-mpmath.mpf(x) ** 2 / 4) for x in range(-200, 201)}
        exact = mpmath.fsum(w for x, w in weights.items() if x >= 60) / mpmath.fsum(weights.values())
        assert r.path == "tilted" and r.error_bound <= 1e-20 * r.value
        assert abs(r.value - exact) <= r.error_bound
