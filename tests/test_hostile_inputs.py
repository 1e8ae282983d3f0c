"""Hostile input: every probe of issue 12, and property-based tests (Hypothesis) of the CLI and the public
functions. Each call must end within a time limit with a clean ``ValueError`` (library) / one line on stderr
and exit status 2 (CLI), or with a finite, honest answer: never a hang, a traceback, a NaN or a false 0 bound."""

import contextlib
import json
import math
import signal
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accountlib import acs, census, pairs, rdp
from accountlib.conversions import (rdp_to_epsilon, zcdp_delta, zcdp_delta_via_rdp, zcdp_epsilon,
                                    zcdp_epsilon_via_rdp)
from accountlib.profiles import ShiftPair
from accountlib.tails import tail_probabilities
from cli_runs import run_main

LIMIT_S = 60  # seconds per call (generous: the test machine may be busy); anything slower counts as a hang


class Hang(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds=LIMIT_S):
    def alarm(signum, frame):
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def cli(*args):
    """Run the command line in-process (``cli_runs.run_main``) under the time limit; return (status, stdout, stderr)."""
    with time_limit():
        result = run_main(*args)
    return result.returncode, result.stdout, result.stderr


def assert_clean_error(status, out, err, fragment=""):
    assert status == 2, (status, out, err)
    assert err.startswith("error: ") and err.count("\n") == 1, err  # one line
    assert "Traceback" not in err and fragment in err, err
    assert out == ""


def assert_honest_rows(out, value_key, tolerance=None, relative=True):
    rows = json.loads(out)
    for row in rows:
        value, bound = Decimal(row[value_key]), Decimal(row["error_bound"])
        assert value.is_finite() and bound.is_finite()
        assert bound > 0  # never a claim of exactness: these values are not exact by construction
        if tolerance is not None:
            assert bound <= (tolerance * value if relative else tolerance)
    return rows


# -- the probes of issue 12, one by one -------------------------------------------------------------------


@pytest.mark.parametrize("eps", ["200", "720", "1000"])
def test_delta_at_large_epsilon_is_computed_with_an_honest_bound(eps):
    status, out, err = cli("delta", "--pair", "1", "2", "--eps", eps, "--json")
    assert status == 0, err
    rows = assert_honest_rows(out, "delta", Decimal("1e-6"))
    assert Decimal(rows[0]["delta"]) < Decimal("1e-800")  # far below float64's range, and still positive


@pytest.mark.parametrize("eps, fragment", [("1e6", "at most 5000"), ("1e20", "at most 5000"), ("inf", "finite"),
                                           ("nan", "finite"), ("1e999999999", "supported range"), ("-3", "> 0")])
def test_epsilon_out_of_range_is_refused_at_once(eps, fragment):
    assert_clean_error(*cli("delta", "--pair", "1", "2", "--eps", eps), fragment)


def test_deep_lower_threshold_has_an_honest_bound():
    result = tail_probabilities([(1, 1), (1, 1)], [-2000])[0]
    assert result.value == 1 and 0 < result.error_bound < mpmath.mpf("1e-400000")


@pytest.mark.parametrize("args, fragment", [
    (["delta", "--pair", "1", "2", "--eps", "2", "--rel-tol", "1e-320"], "--rel-tol must be in [1e-30, 0.5]"),
    (["delta", "--pair", "1", "2", "--eps", "2", "--rel-tol", "1e-400"], "--rel-tol must be in"),
    (["tradeoff", "--pair", "6", "6", "--alpha", "0.5", "--abs-tol", "1e-300"], "--abs-tol must be in [1e-60, 0.5]"),
    pytest.param(["tradeoff", "--pair", "6", "6", "--alpha", "0.5", "--abs-tol", "1e-60"], "ACCOUNTLIB_MAX_NODE_BITS",
                 marks=pytest.mark.slow),
])
def test_tolerances_beyond_the_documented_limits_are_refused(args, fragment):
    assert_clean_error(*cli(*args), fragment)


def test_finest_supported_relative_tolerance_is_met():
    status, out, err = cli("delta", "--pair", "1", "2", "--eps", "2", "--rel-tol", "1e-30", "--json")
    assert status == 0, err
    assert_honest_rows(out, "delta", Decimal("1e-30"))


def test_a_lattice_too_fine_for_any_sieve_is_refused_at_once():
    pair = ShiftPair([779397786140791.0, "1/2"])  # V ≈ 3e15: the sieve would scan 6.7e8 candidates
    with time_limit(10), pytest.raises(ValueError, match="ACCOUNTLIB_MAX_SIEVE_CANDIDATES"):
        pair.delta([1])
    with time_limit(10), pytest.raises(ValueError, match="too fine"):
        ShiftPair([1e300, "1/2"])


def test_float_budgets_are_read_as_the_decimals_they_print_as():
    with time_limit(5):
        pair = ShiftPair([0.1, 0.3])
    assert pair.rhos == [Fraction(1, 10), Fraction(3, 10)] and pair.lattice.scale == 2
    assert pair.delta([1])[0].error_bound > 0


@pytest.mark.parametrize("call, fragment", [
    (lambda: zcdp_epsilon_via_rdp(-1, 1e-5), "rho"),
    (lambda: zcdp_epsilon_via_rdp(math.nan, 1e-5), "rho"),
    (lambda: zcdp_delta_via_rdp(1, -1), "rho"),
    (lambda: zcdp_delta_via_rdp(math.nan, 1), "epsilon"),
    (lambda: zcdp_delta(math.nan, 1), "epsilon"),
    (lambda: zcdp_epsilon(math.nan, 1e-5), "rho"),
    (lambda: acs.variance_ratio("gaussian", 10, 1e-4, 1e-5), "smallest ε"),
    (lambda: rdp.calibrate_dpsgd(0.01, 100, 1.0, 1e-5, tolerance=0), "tolerance"),
    (lambda: rdp.DiscreteLaplace(1).cgf(1, 1e9), "s must be at most"),
    (lambda: pairs.check_zeta_w(0.5), "zeta_w"),
    (lambda: pairs.check_zeta_w(math.nan), "zeta_w"),
    (lambda: pairs.zeta_pair(math.nan), "zeta_w"),
])
def test_library_probes_fail_fast_and_name_the_argument(call, fragment):
    with time_limit(10), pytest.raises(ValueError, match=fragment):
        call()


# -- property-based: the CLI ------------------------------------------------------------------------------

HOSTILE_NUMBERS = st.sampled_from(["nan", "inf", "-inf", "-1", "0", "1e999999999", "-1e999999999", "1e-999999999",
                                   "1e308", "1e-320", "abc", "", " ", "1/0", "0x10", "1_000", "--", "１", "1e",
                                   "9" * 5000, "1/3", "3/1e5", "True"])
GOOD_EPS = st.decimals(min_value=Decimal("0.05"), max_value=Decimal("5000"), places=3).map(str)
CHEAP_PAIRS = st.sampled_from([("13", "13"), ("1", "13"), ("2", "8"), ("1", "2")])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=CHEAP_PAIRS, eps=st.lists(st.one_of(HOSTILE_NUMBERS, GOOD_EPS), min_size=1, max_size=3),
       tol=st.one_of(st.none(), HOSTILE_NUMBERS, st.sampled_from(["1e-3", "1e-9", "0.5", "0.6", "1e-30"])))
def test_cli_delta_with_hostile_input(pair, eps, tol):
    args = ["delta", "--pair", *pair, "--eps", *eps, "--json"] + ([] if tol is None else ["--rel-tol", tol])
    status, out, err = cli(*args)
    if status == 0:
        rows = assert_honest_rows(out, "delta")
        assert len(rows) == len(eps)
        requested = Fraction(1, 10**6) if tol is None else Fraction(tol)
        for row in rows:
            assert Fraction(row["error_bound"]) <= requested * Fraction(row["delta"])
    else:
        assert_clean_error(status, out, err)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=st.one_of(CHEAP_PAIRS, st.tuples(st.sampled_from(["0", "44", "-1", "x", "1.5"]), st.just("13"))),
       alpha=st.lists(st.one_of(HOSTILE_NUMBERS, st.sampled_from(["0", "1", "0.5", "1e-30", "0.999"])), min_size=1,
                      max_size=2),
       tol=st.one_of(st.none(), HOSTILE_NUMBERS, st.sampled_from(["1e-10", "1e-40"])))
def test_cli_tradeoff_with_hostile_input(pair, alpha, tol):
    args = ["tradeoff", "--pair", *pair, "--alpha", *alpha, "--json"] + ([] if tol is None else ["--abs-tol", tol])
    status, out, err = cli(*args)
    if status == 0:
        rows = json.loads(out)
        requested = Fraction(1, 10**25) if tol is None else Fraction(tol)
        for row in rows:
            beta, bound = Fraction(row["beta"]), Fraction(row["error_bound"])
            assert 0 <= beta <= 1 and 0 < bound <= requested
    else:
        assert_clean_error(status, out, err)


@settings(max_examples=25, deadline=None)
@given(args=st.lists(st.one_of(HOSTILE_NUMBERS, st.sampled_from(["sweep", "dhc", "--out", "/dev/null", "--pairs",
                                                                 "--scheduler", "notaurl", "--workers", "0",
                                                                 "--summarise", "delta", "tradeoff", "--pair",
                                                                 "--eps", "--json"])), max_size=6))
def test_cli_argument_soup_never_tracebacks(args):
    if "--help" in args or "-h" in args:
        return
    if args[:2] == ["sweep", "dhc"] and "--out" not in args:
        args = args + ["--out", "/dev/null"]  # never sweep into the repository from a fuzzer
    status, out, err = cli(*args)
    assert status in (0, 2)
    if status == 2:
        assert_clean_error(status, out, err)


# -- property-based: the public functions ------------------------------------------------------------------

HOSTILE_VALUES = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, -1.0, 0.0, -0.0, 1e308, 5e-324, 1e-320, True, None, "abc",
                     "1e999999999", "nan", 10**400, -(10**400), Fraction(-1, 3), mpmath.mpf("nan"), mpmath.inf]),
    st.floats(allow_nan=True, allow_infinity=True),
)


BASE = ShiftPair(census.pair_rhos(13, 13))


def _library_call(function, *args, **kwargs):
    """The call must raise a ValueError (naming something) or return something finite."""
    with time_limit():
        try:
            result = function(*args, **kwargs)
        except ValueError as error:
            assert str(error)
            return None
    return result


def _finite(x):
    return mpmath.isfinite(x) if isinstance(x, mpmath.mpf) else math.isfinite(float(x))


@settings(max_examples=60, deadline=None)
@given(a=HOSTILE_VALUES, b=HOSTILE_VALUES)
def test_conversions_with_hostile_arguments(a, b):
    for function in (zcdp_epsilon_via_rdp, zcdp_delta_via_rdp, zcdp_epsilon, zcdp_delta):
        result = _library_call(function, a, b)
        if result is not None:
            assert _finite(result)
    result = _library_call(rdp_to_epsilon, lambda alpha: 0.5 * alpha, a)
    if result is not None:
        assert _finite(result)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(rho=HOSTILE_VALUES, value=HOSTILE_VALUES)
def test_pairs_and_tails_with_hostile_arguments(rho, value):
    pair = _library_call(ShiftPair, [rho, "1/2"])
    if pair is not None:  # a valid budget: ask for something hostile, cheaply
        for point in _library_call(pair.delta, [value]) or []:
            assert _finite(point.delta) and point.error_bound > 0
    base = BASE
    for call in (lambda: base.delta([1], rel_tol=value), lambda: base.tradeoff([0.5], abs_tol=value),
                 lambda: base.tradeoff([value]), lambda: tail_probabilities([(1, 1)], [value]),
                 lambda: tail_probabilities([(1, 1)], [0], abs_tol=value)):
        for point in _library_call(call) or []:
            bound = point.error_bound
            assert _finite(bound) and bound > 0


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(a=HOSTILE_VALUES, b=HOSTILE_VALUES, c=HOSTILE_VALUES)
def test_mechanisms_and_calibration_with_hostile_arguments(a, b, c):
    # a CGF may honestly be +inf (a divergence that is infinite, or beyond float64); never NaN
    for call in (lambda: rdp.DiscreteLaplace(a).cgf(b, c), lambda: rdp.Gaussian(a).cgf(b, c),
                 lambda: rdp.Laplace(a).rdp(b, c), lambda: rdp.DiscreteGaussian(a).cgf(b, 1)):
        result = _library_call(call)
        if result is not None:
            assert not math.isnan(result) and result >= 0
    for call in (lambda: acs.variance_ratio("gaussian", 10, a, b), lambda: pairs.check_zeta_w(a),
                 lambda: rdp.calibrate_dpsgd(0.01, 10, 2.0, 1e-5, tolerance=a)):
        result = _library_call(call)
        if result is not None:
            assert _finite(result)
