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


# -- a tolerance the run cannot reach: one line, the work bounded -----------------------------------------------------

def test_a_tolerance_below_the_rounding_floor_is_refused_in_one_line_after_one_contour():
    """q = 0.01, z = 1, T = 2, ε = 1/10 at rel_tol 1e-9: float64 rounding over the nodes bounds δ to about 2e-9
    relative, and more nodes only add rounding. One line naming rel_tol and what is accepted (was a ResourceLimitError
    traceback after three contours, the last over the node cap); best_effort=True returns the flagged result."""
    run = DPSGDComposition(0.01, 1.0, 2)
    with pytest.raises(ArithmeticError, match=r"^rel_tol: could not certify 1e-09 at epsilon = 0\.1 .*best_effort=True"):
        run.delta("0.1", rel_tol=1e-9)
    point = run.delta("0.1", rel_tol=1e-9, best_effort=True)
    assert not point.meets_tolerance and point.shortfall == "precision"
    assert point.error_bound <= 1e-7 * point.delta  # the narrowest bound reached, still certified
    checked = run.delta("0.1", rel_tol=1e-6)
    with mpmath.workdps(40):
        assert abs(checked.delta - point.delta) <= checked.error_bound + point.error_bound


def test_best_effort_goes_through_the_front_door():
    from accountlib import delta

    point = delta(DPSGDComposition(0.01, 1.0, 2), "0.1", rel_tol=1e-9, best_effort=True)
    assert not point.meets_tolerance


def test_a_first_contour_over_the_node_cap_is_refused_before_its_nodes():
    from accountlib.engine.subsampled_gaussian import StepGroup
    from accountlib.engine.subsampled_gaussian_inversion import MAX_NODES, plan_contour

    plan = plan_contour([StepGroup(0.01, 1.0, 2)], "remove", 0.1, 5e-10, widen=2)
    assert plan.count == MAX_NODES + 1  # the plan the old code computed two contours to reach, known without nodes


# -- calibration at the ends of the search range --------------------------------------------------------------------

def test_calibration_met_by_every_multiplier_returns_the_floor():
    """(200, 0.5) at q = 0.01, T = 10 holds at every accepted multiplier: the answer is the grid point at the floor
    0.05, with no failure below it (was 'out of reach')."""
    from accountlib.theory.dpsgd_accounting import calibrate_noise_multiplier

    c = calibrate_noise_multiplier(0.01, 10, (200, 0.5), resolution=1e-3)
    assert 0.05 <= c.noise_multiplier < 0.05 * (1 + 2e-3)
    assert c.failure is None and not c.proven_smallest
    assert all(k.status == "holds" for k in c.checks)


def test_an_unreachable_calibration_target_names_the_target_and_the_search_end():
    from accountlib.theory.dpsgd_accounting import calibrate_noise_multiplier

    with pytest.raises(ArithmeticError, match=r"^target: no noise multiplier up to 1000 .*ε = 0\.01, δ = 1e-10\): "
                                              r"δ there is [0-9.]+, fails$"):
        calibrate_noise_multiplier(1, 10**6, (0.01, 1e-10), resolution=1e-3)


# -- the arguments --------------------------------------------------------------------------------------------------

def test_tolerance_messages_name_a_dpsgd_runs_range():
    run = DPSGDComposition(0.01, 1.0, 10)
    with pytest.raises(ValueError, match=r"^rel_tol must be a number in \[1e-12, 0\.5\] for a DP-SGD run; got 0\.6$"):
        run.delta(1, rel_tol=0.6)
    with pytest.raises(ValueError, match=r"^abs_tol must be a number in \[1e-12, 0\.5\] for a DP-SGD run"):
        run.epsilon(1e-5, abs_tol=0.7)
    with pytest.raises(ResourceLimitError, match="give rel_tol >= 1e-12"):
        run.delta(1, rel_tol=1e-13)


def test_epsilon_is_range_checked_exactly():
    with pytest.raises(ValueError, match=r"must be in \[0, 200\] exactly"):
        DPSGDComposition(0.01, 1.0, 10).delta(Fraction(200) + Fraction(1, 10**300))
    assert DPSGDComposition(0.01, 1.0, 10).delta(Fraction(200)).delta >= 0


def test_numpy_float32_arguments_are_the_decimals_they_print_as():
    np = pytest.importorskip("numpy")
    assert DPSGDComposition(np.float32(0.1), np.float32(1.1), 10).groups == DPSGDComposition(0.1, 1.1, 10).groups


def test_calibration_message_shows_a_number_not_a_fraction_repr():
    from accountlib.theory.dpsgd_accounting import calibrate_noise_multiplier

    with pytest.raises(ValueError, match=r"^target epsilon must be > 0; got 0\.0$"):
        calibrate_noise_multiplier(1, 4, (Fraction(0), 1e-5))


# -- the command line -----------------------------------------------------------------------------------------------

def _cli(*args):
    from accountlib.cli import main

    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(list(args))
    return status, err.getvalue().strip()


def test_the_command_line_has_the_apis_tolerance_floor():
    from accountlib.theory.dpsgd_arguments import FINEST_TOLERANCE

    status, err = _cli("dpsgd", "tradeoff", "--q", "1", "--noise-multiplier", "2", "--steps", "4", "--alpha", "0.05",
                       "--abs-tol", f"{FINEST_TOLERANCE:g}")
    assert status == 0, err  # 1e-12 was refused (the command line's floor was 2e-12)
    status, err = _cli("dpsgd", "delta", "--q", "0.01", "--noise-multiplier", "1", "--steps", "10", "--eps", "1",
                       "--rel-tol", "0.6")
    assert status == 2 and err == "error: --rel-tol must be a number in [1e-12, 0.5] for a DP-SGD run; got 0.6"


@pytest.mark.parametrize("command", ["allocate", "calibrate", "delta"])
def test_discrete_gaussian_commands_point_a_dpsgd_run_at_dpsgd(command):
    status, err = _cli(command, "--q", "0.01", "--steps", "10")
    assert status == 2 and err.count("\n") == 0
    assert "compositions of discrete Gaussians" in err and "python -m accountlib dpsgd" in err


def test_a_missed_rel_tol_at_the_command_line_fails_or_prints_flagged_with_best_effort():
    """`dpsgd delta` misses --rel-tol 1e-9 at T = 2, ε = 0.1 (rounding): exit 2 naming --best-effort (which the
    command has, unlike the library's best_effort=True), and with --best-effort the row printed and flagged."""
    import contextlib
    import io
    import json

    from accountlib.cli import main

    run = ("dpsgd", "delta", "--q", "0.01", "--noise-multiplier", "1", "--steps", "2", "--eps", "0.1",
           "--rel-tol", "1e-9")
    status, err = _cli(*run)
    assert status == 2 and err.count("\n") == 0 and "--best-effort" in err and "best_effort=True" not in err
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*run, "--best-effort", "--json"]) == 0
    (row,) = json.loads(out.getvalue())
    assert row["shortfall"] and Fraction(row["error_bound"]) > Fraction(1, 10**9) * Fraction(row["delta"])
