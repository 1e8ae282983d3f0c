"""The dp_accounting drop-in (accountlib.applications.accountant): certified δ and ε for discrete Gaussian
events, dp_accounting's own refusal for other events, and its own calibration routine running on it. Shared
cases against dp_accounting's PLD and RDP accountants (which know the continuous Gaussian only): the RDP
bound α/(2σ²) holds for the discrete Gaussian too (Canonne, Kamath and Steinke 2020), so its ε must lie above
ours; the PLD accountant's continuous-Gaussian ε lies close to ours for σ ≥ 3."""

from fractions import Fraction

import dp_accounting as dpa
import mpmath
import pytest
from dp_accounting.pld import PLDAccountant
from dp_accounting.rdp import RdpAccountant

from accountlib.applications.accountant import CertifiedDiscreteGaussianAccountant, DiscreteGaussianDpEvent, exact_budget
from test_calibration import brute_delta


def test_one_mechanism_against_delta_summed_directly():
    accountant = CertifiedDiscreteGaussianAccountant().compose(DiscreteGaussianDpEvent(sigma=2.5))
    ours = accountant.get_delta(0.5)
    with mpmath.workdps(50):
        exact = brute_delta(Fraction(4, 25), Fraction(1, 2))
        assert exact <= ours <= exact * (1 + mpmath.mpf("1e-8"))


@pytest.mark.parametrize("sigma, count", [(5.0, 1), (3.0, 10), (8.0, 50)])
def test_shared_cases_with_the_pld_and_rdp_accountants(sigma, count):
    ours = CertifiedDiscreteGaussianAccountant().compose(dpa.SelfComposedDpEvent(DiscreteGaussianDpEvent(sigma), count))
    gaussian = dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(sigma), count)
    pld, rdp = PLDAccountant().compose(gaussian), RdpAccountant().compose(gaussian)
    eps = ours.get_epsilon(1e-6)
    assert eps <= rdp.get_epsilon(1e-6)
    assert abs(eps - pld.get_epsilon(1e-6)) <= 0.01 * eps


def test_composed_events_and_refusals():
    event = dpa.ComposedDpEvent([DiscreteGaussianDpEvent(4.0), dpa.SelfComposedDpEvent(DiscreteGaussianDpEvent(6.0), 3),
                                 dpa.NoOpDpEvent()])
    accountant = CertifiedDiscreteGaussianAccountant()
    assert accountant.supports(event) and not accountant.supports(dpa.GaussianDpEvent(1.0))
    with pytest.raises(dpa.UnsupportedEventError, match="GaussianDpEvent is not supported"):
        accountant.compose(dpa.ComposedDpEvent([event, dpa.GaussianDpEvent(1.0)]))
    accountant.compose(event)
    assert 0 < accountant.get_delta(1.0) < 1
    with pytest.raises(dpa.UnsupportedEventError, match="sigma must be a finite number > 0"):
        accountant.compose(DiscreteGaussianDpEvent(0.0))
    assert exact_budget(0.1) == 1 / Fraction(0.1) ** 2  # the float's exact value, nothing rounded


def test_calibrate_dp_mechanism_runs_on_it_and_lands_on_the_safe_side():
    make = lambda s: dpa.SelfComposedDpEvent(DiscreteGaussianDpEvent(sigma=s), 10)  # noqa: E731
    sigma = dpa.calibrate_dp_mechanism(CertifiedDiscreteGaussianAccountant, make, 1.0, 1e-6,
                                       dpa.mechanism_calibration.ExplicitBracketInterval(1.0, 20.0))
    accountant = CertifiedDiscreteGaussianAccountant().compose(make(sigma))
    assert accountant.get_epsilon(1e-6) <= 1.0


def test_each_neighbouring_relation_maps_the_sensitivity_to_its_stated_shift():
    """Issue 37: REPLACE_ONE returned the add/remove δ. The shift of a query of sensitivity C is C under add/remove
    and replace-special, 2C under replace-one (replace = remove v_i, add v'_i); δ(0) is accepted (the total
    variation distance)."""
    from dp_accounting.privacy_accountant import NeighboringRelation as R

    def delta_at(relation, sensitivity, eps):
        accountant = CertifiedDiscreteGaussianAccountant(relation)
        accountant.compose(DiscreteGaussianDpEvent(sigma=2.0, sensitivity=sensitivity))
        return accountant.get_delta(eps)

    for eps in (0.0, 1.0):
        add_remove = delta_at(R.ADD_OR_REMOVE_ONE, 1, eps)
        assert delta_at(R.REPLACE_SPECIAL, 1, eps) == add_remove
        assert delta_at(R.REPLACE_ONE, 1, eps) == delta_at(R.ADD_OR_REMOVE_ONE, 2, eps) > add_remove
    assert abs(delta_at(R.ADD_OR_REMOVE_ONE, 1, 0.0) - float(brute_delta(Fraction(1, 4), Fraction(0)))) <= 1e-9


@pytest.mark.parametrize("sigma, eps", [(2.0, 1.0), (0.7, 0.25), (13.0, 3.0), (2.7, 1.0)])
def test_get_delta_is_rounded_up_from_the_exact_upper_end(sigma, eps):
    """get_delta returns a float ≥ δ + bound of the certified point, the sum taken exactly (a 53-bit sum rounded to
    nearest returned 0.11961160535160016 for σ = 2, replace-one, ε = 1, below the true δ 0.11961160535160016 67)."""
    from dp_accounting.privacy_accountant import NeighboringRelation as R

    for relation in (R.ADD_OR_REMOVE_ONE, R.REPLACE_ONE):
        accountant = CertifiedDiscreteGaussianAccountant(relation)
        accountant.compose(DiscreteGaussianDpEvent(sigma=sigma))
        value = accountant.get_delta(eps)
        # the certified point get_delta rounds, computed as it computes it
        (point,) = accountant._composition().delta([Fraction(eps)], rel_tol=accountant._rel_tol)
        man, exp = point.delta.man_exp
        bman, bexp = point.error_bound.man_exp
        upper = Fraction(int(man)) * Fraction(2) ** int(exp) + Fraction(int(bman)) * Fraction(2) ** int(bexp)
        assert Fraction(value) >= min(upper, 1)


def test_the_drop_in_refuses_in_its_callers_terms_when_it_is_given_the_value():
    """r37b S3-8: epsilon_tol=1e-40 was accepted and refused at get_epsilon as "abs_tol must be in [1e-30, 0.5]";
    sigma=1e-200 (or 1e200) was supported and refused at get_delta as "rhos[0] must be a budget ... about 1e+400";
    sensitivity 10**6 under REPLACE_ONE was refused as "sensitivities[0] ... got 2000000", the doubled shift. Each is
    now refused where it is given, naming the argument the caller wrote and the value as given."""
    from dp_accounting.dp_event import SelfComposedDpEvent

    from accountlib.applications.accountant import (CertifiedDiscreteGaussianAccountant, DiscreteGaussianDpEvent,
                                                    NeighboringRelation)

    with pytest.raises(ValueError, match=r"^epsilon_tol \(the width of the certified ε interval\) must be a number in "
                                         r"\[1e-30, 0.5\]; got 1e-40$"):
        CertifiedDiscreteGaussianAccountant(epsilon_tol=1e-40)
    with pytest.raises(ValueError, match=r"^rel_tol must be a finite number in \[1e-30, 0.5\]; got nan$"):
        CertifiedDiscreteGaussianAccountant(rel_tol=float("nan"))
    for sigma in (1e-200, 1e200):
        accountant = CertifiedDiscreteGaussianAccountant()
        event = SelfComposedDpEvent(DiscreteGaussianDpEvent(sigma=sigma), 3)
        assert not accountant.supports(event)
        with pytest.raises(Exception, match=r"sigma must be in \[1e-150, 1e\+150\].*got " + repr(sigma).replace("+", r"\+")):
            accountant.compose(event)
    replace = CertifiedDiscreteGaussianAccountant(NeighboringRelation.REPLACE_ONE)
    with pytest.raises(Exception, match=r"sensitivity must be a whole number in 1..500000 under REPLACE_ONE "
                                        r"\(composed at twice the sensitivity\); got 1000000"):
        replace.compose(DiscreteGaussianDpEvent(sigma=2.0, sensitivity=10**6))
    assert CertifiedDiscreteGaussianAccountant().supports(DiscreteGaussianDpEvent(sigma=2.0, sensitivity=10**6))
