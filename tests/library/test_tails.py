"""The certified tail engine against independent computations (issue: the exact engine, item 6)."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accountlib.engine import discrete_gaussian as dg
from accountlib.engine import lattice, quadrature, sieve, front as tails
from accountlib.engine.front import CertifiedTails, next_accuracy
from accountlib.engine.results import PAPER_PATHS, EvaluationPaths


def brute_tails(mechanisms, dps=40):
    """P(S_L >= j) for every j, by direct convolution of the pmfs (no Fourier analysis at all)."""
    lat = lattice.lattice_of(mechanisms)
    lowest, values = dg.lattice_sum_pmf(list(lat.sigma2s), list(lat.coefficients), dps=dps)
    with mpmath.workdps(dps + 10):
        suffix = [mpmath.mpf(0)] * (len(values) + 1)
        for i in range(len(values) - 1, -1, -1):
            suffix[i] = suffix[i + 1] + values[i]
    return lat, lowest, suffix


SMALL_INSTANCES = [
    [("1/2", "1/3"), ("2/5", "1/2"), ("1", "1/6"), ("1/7", "1/4")],
    [("1/20", "1"), ("1/3", "2/3"), ("3/4", "5/6")],
    [("1/10", "1/5"), ("1/10", "1/5"), ("1/5", "3/10"), ("1/2", "1/10"), ("1", "1/2"), ("1/15", "2/5")],
    [(2, 1), (5, 3), ("1/2", 2)],  # σ² < 1: the direct-sum branch of the certified cf
]


@pytest.mark.parametrize("mechanisms", SMALL_INSTANCES)
@pytest.mark.parametrize("accuracy", [1e-12, 1e-30])
def test_engine_agrees_with_brute_force_within_its_bound(mechanisms, accuracy):
    lat, lowest, suffix = brute_tails(mechanisms)
    engine = tails.TailEngine(mechanisms, accuracy)
    with mpmath.workdps(60):
        for j in np.linspace(lowest, lowest + len(suffix) - 1, 41).astype(int).tolist() + [0, 1, -1]:
            exact = suffix[max(0, min(j - lowest, len(suffix) - 1))]
            result = engine.tail_index(j)
            assert result.error_bound <= accuracy
            assert abs(result.value - exact) <= result.error_bound + mpmath.mpf("1e-45")


# -- the error budget, term by term, and the evaluation paths chosen by argument ----------------------------

CENSUS_LIKE = [("1/10", 1), ("3/10", 1), ("1/2", 1), ("1/5", 1)]  # every σ² ≥ 1/2: all paths are open


def _brute(mechanisms):
    lat, lowest, suffix = brute_tails(mechanisms, dps=60)
    return lambda j: suffix[max(0, min(j - lowest, len(suffix) - 1))]


@pytest.mark.parametrize("paths", [EvaluationPaths(), EvaluationPaths(float_nodes=False),
                                   EvaluationPaths(double_double=False), PAPER_PATHS], ids=str)
def test_every_path_agrees_with_brute_force_and_reports_its_terms(paths):
    exact = _brute(CENSUS_LIKE)
    engine = tails.TailEngine(CENSUS_LIKE, 1e-20, paths=paths)
    summary = engine.node_summary
    if not paths.float_nodes or paths.method == "paper":
        assert summary["float_nodes"] == 0
    if not paths.double_double:
        assert engine._dd is None
    with mpmath.workdps(60):
        for j in range(-engine.cut - 2, engine.cut + 3, max(1, engine.cut // 15)):
            result = engine.tail_index(j)
            budget = result.budget
            assert abs(result.value - exact(j)) <= result.error_bound
            assert all(term >= 0 for term in budget.terms.values())
            # the bound is the sum of its terms, rounded up by at most 1e-12 relative
            assert budget.total <= result.error_bound <= budget.total * (1 + 1e-11)
            if result.path == "closed form":
                assert budget.terms == {**budget.terms, "aliasing": 0, "sieve": 0, "float_path": 0, "rounding": 0}
                continue
            assert budget.aliasing == 2 * budget.truncation  # N ≥ 2U + 2: the images cost twice the truncated mass
            assert budget.sieve == pytest.approx(engine.tau * (engine.cut - j + 1), rel=1e-15)
            assert budget.double_double <= budget.rounding  # carried inside the arb ball
            if not paths.float_nodes or paths.method == "paper":
                assert budget.float_path == 0
            if not paths.double_double:
                assert budget.double_double == 0


def test_the_terms_shrink_with_the_accuracy_asked_for():
    coarse = tails.TailEngine(CENSUS_LIKE, 1e-10).tail_index(3).budget
    fine = tails.TailEngine(CENSUS_LIKE, 1e-30).tail_index(3).budget
    for name in ("truncation", "aliasing", "sieve"):
        assert getattr(fine, name) < getattr(coarse, name) * 1e-15
    assert fine.total <= 1e-30 < coarse.total * 1e10


def test_tilted_results_carry_their_own_budget():
    tails_ = CertifiedTails(CENSUS_LIKE)
    deep = int(4 * float(tails_.lattice.variance_proxy) ** 0.5)
    assert tails_.is_deep(deep)
    result = tails_.relative([deep], 1e-8)[0]
    assert result.path == "tilted" and len(tails_.tilted_engines) >= 1 and tails_.engines == []
    budget = result.budget
    assert budget.truncation == 0 and budget.double_double == 0
    assert budget.total <= result.error_bound <= budget.total * (1 + 1e-6)
    exact = _brute(CENSUS_LIKE)(deep)
    with mpmath.workdps(60):
        assert abs(result.value - exact) <= result.error_bound <= 1e-8 * exact
    untilted = CertifiedTails(CENSUS_LIKE, paths=EvaluationPaths(tilted=False))
    assert not untilted.is_deep(deep)
    plain = untilted.relative([deep], 1e-8)[0]
    assert plain.path == "untilted" and untilted.engines
    with mpmath.workdps(60):
        assert abs(plain.value - result.value) <= plain.error_bound + result.error_bound


def test_one_rebuild_policy():
    assert next_accuracy(1e-30, 1e-31) == pytest.approx(1e-32)  # at least a factor 100 finer
    assert next_accuracy(1e-30, 1e-40) == 1e-40
    assert next_accuracy(1e-299, 1e-320) == 1e-300  # never below the floor
    tails_ = CertifiedTails(CENSUS_LIKE)
    assert tails_.engine(1e-20) is tails_.engine(1e-18)  # an engine within the reuse span serves
    assert tails_.engine(1e-10) is not tails_.engine(1e-20)  # a far finer one does not


def test_tail_of_a_real_threshold_uses_the_strict_inequality():
    mechanisms = [(1, "1/2"), (1, "1/2")]  # S = (X1 + X2)/2, L = 2, S_L = X1 + X2
    engine = tails.TailEngine(mechanisms, 1e-25)
    # P(S > 1/2) = P(S_L > 1) = P(S_L >= 2); P(S > 0.4) = P(S_L >= 1)
    assert engine.tail(Fraction(1, 2)).index == 2
    assert engine.tail("0.4").index == 1


def test_more_accuracy_moves_values_by_less_than_the_first_bound():
    mechanisms = SMALL_INSTANCES[0]
    coarse = tails.TailEngine(mechanisms, 1e-10)
    fine = tails.TailEngine(mechanisms, 1e-11)
    with mpmath.workdps(60):
        for j in range(-40, 60, 7):
            a, b = coarse.tail_index(j), fine.tail_index(j)
            assert abs(a.value - b.value) <= a.error_bound


def test_requested_relative_accuracy_is_met():
    results = tails.tail_probabilities(SMALL_INSTANCES[1], ["1/2", 3, 6, 9], rel_tol=1e-8)
    for r in results:
        assert r.error_bound <= 1e-8 * float(r.value)


def test_sieve_keeps_every_node_where_the_integrand_is_large():
    """Scan all nodes with the certified cf: the dropped ones are all at most τ."""
    mechanisms = [("1/3", "1/7"), ("2/9", "3/7"), ("1/5", "2/7")]
    lat = lattice.lattice_of(mechanisms)
    engine = tails.TailEngine(lat, 1e-20)
    kept = set(engine.nodes.tolist())
    for k in range(0, (engine.modulus - 1) // 2 + 1):
        if k not in kept:
            with mpmath.workdps(30):
                assert abs(float(engine._phi(k).mid())) <= engine.tau


def test_sieve_product_pruning_is_a_subset_of_the_per_factor_sieve():
    mechanisms = [("1/50", "1/3"), ("1/40", "1/2"), ("1/60", "1/6")]
    lat = lattice.lattice_of(mechanisms)
    n = quadrature.node_count(quadrature.truncation_point(lat.variance_proxy, 1e-30))
    per_factor = sieve.sieve_nodes(lat.groups, n, 1e-35, product=False)
    both = sieve.sieve_nodes(lat.groups, n, 1e-35)
    scanned = sieve.scan_nodes(lat.groups, n, 1e-35)
    assert set(both.nodes.tolist()) <= set(per_factor.nodes.tolist())
    assert np.array_equal(np.sort(scanned), per_factor.nodes)
    assert both.product_count <= per_factor.per_factor_count


def test_paper_method_agrees_with_the_sieve_method():
    mechanisms = SMALL_INSTANCES[2]
    ours = tails.TailEngine(mechanisms, 1e-30)
    paper = tails.TailEngine(mechanisms, 1e-30, paths=PAPER_PATHS)
    for j in (-5, 0, 4, 17):
        a, b = ours.tail_index(j), paper.tail_index(j)
        assert abs(a.value - b.value) <= a.error_bound + b.error_bound


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(1, 20), st.integers(1, 20), st.integers(1, 6)),  # σ² = p/q-ish, weight numerator
        min_size=2, max_size=4,
    ),
    st.integers(-30, 30),
)
def test_random_small_allocations_match_brute_force(entries, j):
    mechanisms = [(Fraction(q, p) if p <= 20 else 1, Fraction(w, 6)) for p, q, w in entries]
    mechanisms = [(rho, weight) for rho, weight in mechanisms if 1 / rho <= 20]
    if len(mechanisms) < 2:
        return
    lat, lowest, suffix = brute_tails(mechanisms, dps=30)
    result = tails.TailEngine(lat, 1e-20).tail_index(j)
    with mpmath.workdps(50):
        exact = suffix[max(0, min(j - lowest, len(suffix) - 1))]
        assert abs(result.value - exact) <= result.error_bound + mpmath.mpf("1e-35")


def test_bad_input():
    with pytest.raises(ValueError, match="accuracy must be"):
        tails.TailEngine([(1, 1)], 0)
    with pytest.raises(ValueError, match="paths.method must be"):
        tails.TailEngine([(1, 1)], 1e-5, paths=EvaluationPaths(method="fft"))
    with pytest.raises(ValueError, match="paths must be an EvaluationPaths"):
        tails.TailEngine([(1, 1)], 1e-5, paths="paper")
    with pytest.raises(ValueError, match="paths.deep_from must be a positive number"):
        EvaluationPaths(deep_from=0)
    with pytest.raises(ValueError, match=r"mechanisms\[0\].rho must be > 0"):
        tails.TailEngine([(0, 1)], 1e-5)
    with pytest.raises(ValueError, match=r"mechanisms\[1\] must be a \(rho, weight\) pair"):
        tails.TailEngine([(1, 1), 3], 1e-5)
    with pytest.raises(ValueError, match=r"mechanisms\[0\].weight must be nonzero"):
        tails.TailEngine([(1, 0)], 1e-5)
    with pytest.raises(ValueError, match="give abs_tol or rel_tol"):
        tails.tail_probability([(1, 1)], 0, abs_tol=1e-5, rel_tol=1e-5)
