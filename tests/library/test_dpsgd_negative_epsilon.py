"""Inputs the certified DP-SGD accounting once answered with a wrong number (hostile review of 2026-12-06): a negative ε
given to the closed forms and to the bounds that need no inversion (δ(ε) for ε < 0 exceeds δ(0), so δ(|ε|) or the
total-variation bound δ(0) is no upper end there), and a fractional step count in an Opacus history (it was truncated).
Each is refused in one line now; the values at ε ≥ 0 are unchanged."""

from fractions import Fraction

import mpmath
import pytest

from accountlib.applications.opacus_accountant import CertifiedDPSGDAccountant
from accountlib.engine.subsampled_gaussian import gaussian_profile, one_step_profile
from accountlib.theory.dpsgd_accounting import DPSGDComposition


@pytest.mark.parametrize("epsilon", [-2.5e-9, -4e-9, -1e-8, -1.0, float("nan")])
def test_bounds_without_inversion_refuse_a_negative_epsilon(epsilon):
    run = DPSGDComposition(1e-8, 1.0, 2)
    with pytest.raises(ValueError, match=r"^epsilon .*\[0, 200\]"):
        run.delta_from_bounds(epsilon, 0.5)


@pytest.mark.parametrize("rel_tol", [0, -1, float("nan"), "x", None])
def test_bounds_without_inversion_check_rel_tol_as_delta_does(rel_tol):
    with pytest.raises(ValueError, match="rel_tol"):
        DPSGDComposition(1e-8, 1.0, 2).delta_from_bounds(0.0, rel_tol)


def test_bounds_without_inversion_still_bracket_the_total_variation_distance():
    """δ(0) of two steps at q = 1e-8, z = 1 against a 40-digit quadrature of the total variation distance of the
    remove direction: TV(P, Q) with P = N(0,1)^2 and Q the mixture, E_P[(R1 R2 − 1)+], R = 1 − q + q e^{(2x−1)/2}."""
    q = mpmath.mpf("1e-8")
    with mpmath.workdps(40):
        def ratio(x):
            return 1 - q + q * mpmath.exp((2 * x - 1) / 2)

        def inner(x1):  # E over x2 of (R1 R2 − 1)+, R increasing in x2: a half-line above the root
            r1 = ratio(x1)
            root = (2 * mpmath.log((1 / r1 - 1 + q) / q) + 1) / 2 if 1 / r1 - 1 + q > 0 else -mpmath.inf
            upper = r1 * (1 - q) * mpmath.ncdf(-root) + r1 * q * mpmath.ncdf(1 - root) - mpmath.ncdf(-root)
            return upper * mpmath.npdf(x1)

        truth = mpmath.quad(inner, [-mpmath.inf, -5, 0, 5, mpmath.inf])
    point = DPSGDComposition(1e-8, 1.0, 2).delta_from_bounds(0.0, 0.5)
    assert point.delta - point.error_bound <= truth <= point.delta + point.error_bound


@pytest.mark.parametrize("call", [
    lambda: one_step_profile(0.01, 1.0, -1.0, "remove"),
    lambda: one_step_profile(0.01, 1.0, -1.0, "add"),
    lambda: one_step_profile(0.01, 1.0, float("nan"), "remove"),
    lambda: gaussian_profile(Fraction(4 * 10**6), -1.0),
    lambda: gaussian_profile(Fraction(1), mpmath.mpf("-1e-30")),
])
def test_closed_forms_refuse_a_negative_epsilon(call):
    with pytest.raises(ValueError, match=r"^epsilon must be a finite number >= 0"):
        call()


def test_closed_forms_keep_their_values_at_nonnegative_epsilon():
    """The Gaussian mechanism's δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm 8) at μ = 2, ε = 1."""
    with mpmath.workdps(80):
        truth = mpmath.ncdf(-1 / 2 + 1) - mpmath.e * mpmath.ncdf(-1 / 2 - 1)
    bound = gaussian_profile(Fraction(1, 4), 1.0)
    with mpmath.workdps(80):
        assert bound.lower <= truth <= bound.upper
        assert one_step_profile(1.0, 0.5, 1.0, "remove").lower <= truth <= one_step_profile(1.0, 0.5, 1.0, "add").upper


@pytest.mark.parametrize("entry", [(1.0, 0.01, 1.7), (1.0, 0.01, float("nan")), (None, 0.01, 10), (1.0, "x", 10)])
def test_opacus_history_with_a_fractional_or_unreadable_entry_is_refused(entry):
    accountant = CertifiedDPSGDAccountant()
    accountant.history = [entry]
    with pytest.raises(ValueError, match=r"^the accountant's history holds an entry .*steps a whole number"):
        accountant.get_epsilon(1e-5)


def test_opacus_history_with_whole_float_counts_is_read_as_steps():
    accountant = CertifiedDPSGDAccountant()
    accountant.history = [(1.0, 0.01, 2.0)]
    reference = CertifiedDPSGDAccountant()
    reference.history = [(1.0, 0.01, 2)]
    assert accountant.get_epsilon(1e-5) == reference.get_epsilon(1e-5)
