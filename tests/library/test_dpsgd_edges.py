"""DP-SGD accounting at the edges a hostile review found (issue 38's review): q = 1 with a large ε, a tolerance whose
cost is known before the work, ε beyond the largest accounted, a calibration target every multiplier meets, the
readers of the arguments. Each answer is held against the independent reference (tests/library/dpsgd_reference.py)
or against a fresh certified computation."""

import math
import time
from fractions import Fraction

import mpmath
import pytest

from accountlib.engine.subsampled_gaussian import gaussian_profile, one_step_profile
from accountlib.infrastructure.numbers import ResourceLimitError
from accountlib.theory.dpsgd_accounting import DPSGDComposition, EpsilonOutOfRange
from dpsgd_reference import gaussian_delta


def _within(point, reference):
    """The reference inside a δ result's certified interval, compared at 60 digits."""
    with mpmath.workdps(60):
        return point.delta - point.error_bound <= reference <= point.delta + point.error_bound


def _gaussian_epsilon(mu, delta, dps=50):
    """ε(δ) of the Gaussian mechanism μ, from the reference's δ(ε) (mpmath root finding)."""
    with mpmath.workdps(dps):
        return mpmath.findroot(lambda e: gaussian_delta(mu, e, dps) - mpmath.mpf(delta),
                               mu * mu / 2 + mu * mpmath.sqrt(2 * mpmath.log(1 / mpmath.mpf(delta))) / 2)


# -- q = 1: the Gaussian mechanism at every ε ----------------------------------------------------------------------

@pytest.mark.parametrize("eps", [150, 199, 200])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_one_step_at_q_one_is_the_gaussian_closed_form_at_large_epsilon(eps, direction):
    """At q = 1 the add direction has no largest loss; e^{−ε} − (1 − q) was formed as (e^{−ε} − 1) + q and lost all its
    digits past ε ≈ 150 (refused at 199 with a false reason)."""
    bound = one_step_profile(1.0, 1.0, float(eps), direction)
    reference = gaussian_delta(1, eps, dps=60)
    assert 0 < bound.lower <= reference <= bound.upper
    assert bound.upper - bound.lower <= 1e-40 * reference


def test_delta_at_q_one_and_epsilon_199_is_certified():
    point = DPSGDComposition(1, 1, 1).delta(199, rel_tol=1e-9)
    reference = gaussian_delta(1, 199, dps=60)
    assert _within(point, reference)
    assert point.error_bound <= 1e-9 * point.delta and point.dominant == "both"


@pytest.mark.parametrize("schedule,eps", [([(1, 1.0, 10)], 199), ([(1, 0.7, 3), (1, 2.0, 40)], 50),
                                          ([(1, 0.05, 1000)], 200)])
def test_a_run_whose_every_q_is_one_is_the_gaussian_mechanism(schedule, eps):
    """Every q = 1: the run is the Gaussian mechanism of μ² = Σ T/z², in closed form (exact μ²)."""
    run = DPSGDComposition(schedule=schedule)
    with mpmath.workdps(60):
        mu = mpmath.sqrt(sum(mpmath.mpf(n) / mpmath.mpf(z) ** 2 for _, z, n in schedule))
    reference = gaussian_delta(mu, eps, dps=60)
    point = run.delta(eps, rel_tol=1e-9)
    assert _within(point, reference)
    bound = gaussian_profile(1 / sum(Fraction(n) / Fraction(z) ** 2 for _, z, n in schedule), float(eps))
    assert bound.lower <= reference <= bound.upper


@pytest.mark.parametrize("steps,delta", [(1, 1e-5), (1000, 1e-5)])
def test_epsilon_of_a_gaussian_run_beyond_200_is_certified(steps, delta):
    """GaussianDpEvent(0.05): ε ≈ 284 (one step) and ≈ 2.0e5 (1,000 steps), in closed form."""
    e = DPSGDComposition(1, 0.05, steps).epsilon(delta, abs_tol=1e-6)
    reference = _gaussian_epsilon(math.sqrt(steps) / 0.05, delta)
    with mpmath.workdps(60):
        assert mpmath.mpf(e.lower.numerator) / e.lower.denominator <= reference
        assert reference <= mpmath.mpf(e.upper.numerator) / e.upper.denominator
    assert e.width <= 1e-6


def test_epsilon_beyond_the_largest_accounted_is_refused_in_one_line_at_once():
    """q < 1, several steps, ε(δ) far beyond 200: a one-line EpsilonOutOfRange in well under a second (the search
    bisected out to ε ≈ 2e5 before)."""
    run = DPSGDComposition(0.9, 0.05, 1000)
    start = time.perf_counter()
    with pytest.raises(EpsilonOutOfRange, match=r"^ε\(δ = 1e-05\) lies beyond 200[^\n]*$"):
        run.epsilon(1e-5)
    assert time.perf_counter() - start < 3


def test_epsilon_at_the_edge_of_the_range_still_answers():
    """A run whose ε(δ) is inside the range is untouched by the range check."""
    e = DPSGDComposition(0.5, 0.5, 20).epsilon(1e-5, abs_tol=1e-4)
    assert 0 < e.lower <= e.upper < 200


# -- the dp_accounting drop-in --------------------------------------------------------------------------------------

def _accountant(event):
    pytest.importorskip("dp_accounting")
    from accountlib.applications.dpsgd_accountant import CertifiedDPSGDAccountant

    accountant = CertifiedDPSGDAccountant()
    accountant.compose(event)
    return accountant


def test_dp_accounting_drop_in_answers_at_q_one_and_large_epsilon():
    dp = pytest.importorskip("dp_accounting")
    assert _accountant(dp.GaussianDpEvent(1.0)).get_delta(500) >= 0  # δ(200) rounded up: a valid upper bound
    eps = _accountant(dp.GaussianDpEvent(0.05)).get_epsilon(1e-5)
    assert float(_gaussian_epsilon(20, 1e-5)) <= eps <= float(_gaussian_epsilon(20, 1e-5)) + 2e-6


def test_dp_accounting_drop_in_returns_inf_beyond_the_range():
    dp = pytest.importorskip("dp_accounting")
    event = dp.SelfComposedDpEvent(dp.PoissonSampledDpEvent(0.9, dp.GaussianDpEvent(0.05)), 1000)
    start = time.perf_counter()
    assert _accountant(event).get_epsilon(1e-5) == math.inf
    assert time.perf_counter() - start < 5
    gaussian = _accountant(dp.SelfComposedDpEvent(dp.GaussianDpEvent(0.05), 1000)).get_epsilon(1e-5)
    assert gaussian >= float(_gaussian_epsilon(math.sqrt(1000) / 0.05, 1e-5))
