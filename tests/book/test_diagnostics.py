"""The unifying paper's figure diagnostics (accountbook.diagnostics, 11_what_zcdp_forgets): the allocation path of Prop. 4.3,
the Student-t coefficient and its maximiser, the quadrature discrepancies, against closed forms and mpmath."""

import math

import mpmath
import pytest

from accountbook import diagnostics
from accountlib.theory import dpsgd_calibration, rdp

pytestmark = pytest.mark.usefixtures("high_precision")


def test_allocation_values_of_proposition_4_3_to_nine_digits():
    lap = rdp.Laplace()
    mixture = rdp.GaussianMixture(1.0)
    assert round(diagnostics.allocation_gap(lap, 8, 0.5, 0.0, 1.0), 9) == 0.037202015
    assert round(diagnostics.allocation_gap(lap, 8, 0.5, 1.0, 1.0), 9) == 0.193535993
    assert round(diagnostics.allocation_gap(mixture, 8, 0.5, 0.0, 1.0), 9) == 0.435179700
    assert round(diagnostics.allocation_gap(mixture, 8, 0.5, 1.0, 1.0), 9) == 0.342190807


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: rdp.Laplace().cgf(0, 1), "t must be a finite number > 0"),
        (lambda: rdp.Laplace().cgf(-1, 1), "t must be a finite number > 0"),
        (lambda: rdp.PoissonSubsampledGaussian(0, 1), r"q must be in \(0, 1\]"),
        (lambda: rdp.PoissonSubsampledGaussian(1.5, 1), r"q must be in \(0, 1\]"),
        (lambda: rdp.Gaussian(-1), "sigma must be a finite number > 0"),
        (lambda: rdp.Laplace(scale=0), "scale must be a finite number > 0"),
        (lambda: rdp.GaussianMixture(-1), "m must be"),
        (lambda: rdp.StudentT(0.5), "nu must be >= 1"),
        (lambda: diagnostics.allocation_gap(rdp.Laplace(), 8, 0.5, 2.0, 1.0), "omega must be in"),
        (lambda: dpsgd_calibration.calibrate_dpsgd(0.1, 10, 3, 1e-5, "gdp"), "notion must be"),
        (lambda: rdp.DiscreteLaplace(1).cgf(1, 0.5), "integer shift"),
    ],
)
def test_bad_input_raises_clear_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_student_t_gap_of_the_issue_is_finite_and_matches_the_leading_term():
    value = rdp.StudentT(10).gap(1, 0.2)
    assert math.isfinite(value) and value > 0
    leading = float(diagnostics.student_t_leading_coefficient(10)) * 4 * 0.2**4
    assert value == pytest.approx(leading, rel=0.1)  # higher orders at s = 0.2 are a few per cent


def test_student_t_leading_coefficient_and_its_maximiser():
    # closed forms: μ2 = (ν+1)/(ν+3), μ4 = 3(ν+1)³(ν+2)/(ν(ν+3)(ν+5)(ν+7))
    for nu in (1, 3, 6, 20):
        mu2 = mpmath.mpf(nu + 1) / (nu + 3)
        mu4 = 3 * mpmath.mpf(nu + 1) ** 3 * (nu + 2) / (nu * (nu + 3) * (nu + 5) * (nu + 7))
        assert abs(diagnostics.student_t_leading_coefficient(nu) + (mu4 - 3 * mu2**2) / 24) < mpmath.mpf("1e-28")
    nu_star = diagnostics.student_t_coefficient_argmax(dps=20)
    assert abs(nu_star - mpmath.mpf("6.0130526414")) < mpmath.mpf("1e-10")
    c = diagnostics.student_t_leading_coefficient
    assert c(nu_star) > c(nu_star - mpmath.mpf("1e-3")) and c(nu_star) > c(nu_star + mpmath.mpf("1e-3"))


def test_student_t_gap_approaches_its_leading_term_as_s_shrinks():
    nu, t = 6.0, 1.0
    leading = float(diagnostics.student_t_leading_coefficient(nu))
    ratios = [rdp.StudentT(nu).gap(t, s) / ((t * (t + 1)) ** 2 * s**4) for s in (0.2, 0.1, 0.05)]
    errors = [abs(r - leading) for r in ratios]
    assert errors[0] > errors[1] > errors[2] and errors[2] < 0.02 * leading
