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

from accountlib.applications import acs, census
from accountlib.theory import pairs, rdp
from accountlib.theory import dpsgd_calibration
from accountlib.theory.conversions import (rdp_to_epsilon, zcdp_delta, zcdp_delta_via_rdp, zcdp_epsilon,
                                    zcdp_epsilon_via_rdp)
from accountlib.theory.composition import Composition
from accountlib.engine.front import tail_probabilities
from cli_runs import assert_clean_error, run_main

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


@pytest.mark.parametrize("eps, fragment", [("1e6", "in [0, 5000]"), ("1e20", "in [0, 5000]"), ("inf", "finite"),
                                           ("nan", "finite"), ("1e999999999", "supported range"), ("-3", "in [0, 5000]")])
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
    pair = Composition([779397786140791.0, "1/2"])  # V ≈ 3e15: the sieve would scan 6.7e8 candidates
    with time_limit(10), pytest.raises(ValueError, match="ACCOUNTLIB_MAX_SIEVE_CANDIDATES"):
        pair.delta([1])
    with time_limit(10), pytest.raises(ValueError, match="too fine"):
        Composition([1e300, "1/2"])


def test_float_budgets_are_read_as_the_decimals_they_print_as():
    with time_limit(5):
        pair = Composition([0.1, 0.3])
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
    (lambda: dpsgd_calibration.calibrate_dpsgd(0.01, 100, 1.0, 1e-5, tolerance=0), "tolerance"),
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


BASE = Composition(census.pair_rhos(13, 13))


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
    pair = _library_call(Composition, [rho, "1/2"])
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
                 lambda: dpsgd_calibration.calibrate_dpsgd(0.01, 10, 2.0, 1e-5, tolerance=a)):
        result = _library_call(call)
        if result is not None:
            assert _finite(result)


# -- issue 23: files that cannot stop or poison a sweep, readers bounded by design, messages that name the problem --

import os  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from accountlib.applications.census import pair_files  # noqa: E402
from accountlib.infrastructure import atomic, executor  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("manifest", ['{"sha256": "abc", "options": {}}', '{"sha256": {}, "options": []}', "[]",
                                      '"text"', "null", "1", '{"options": {}}', "{not json"])
def test_a_manifest_of_any_shape_is_named_not_fatal(tmp_path, manifest):
    for path in pair_files.pair_paths(tmp_path, 1, 4):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("anything\n")
    target = pair_files.manifest_path(tmp_path, 1, 4)
    target.parent.mkdir(parents=True)
    target.write_text(manifest)
    status = pair_files.pair_status(tmp_path, 1, 4)
    assert status is not None and str(target) in status and "not a manifest" in status


_LOCK_PROBE = r"""
import fcntl, sys, time
from accountlib.infrastructure import executor
folder, delay, hold = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
flock = fcntl.flock
def slow_flock(handle, operation):  # the delay between open() and flock() in which the old lock file could vanish
    time.sleep(delay)
    return flock(handle, operation)
fcntl.flock = slow_flock
try:
    with executor.sweep_lock(folder):
        start = time.time()
        time.sleep(hold)
        print(f"held {start} {time.time()}")
except executor.SweepError:
    print("refused")
"""


def test_two_processes_never_both_hold_the_sweep_lock(tmp_path):
    """A holds the lock 1 s; B opens the lock file while A holds it and reaches flock 1.5 s later (after A removed
    the file and let go); C starts after A ends. Before issue 23, B and C both held the lock."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = lambda delay, hold: subprocess.Popen([sys.executable, "-c", _LOCK_PROBE, str(tmp_path), str(delay), str(hold)],  # noqa: E731
                                                 stdout=subprocess.PIPE, text=True, env=env)
    first = start(0, 1.0)
    deadline = time.time() + 20
    while not (tmp_path / ".sweep.lock").exists() and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    second = start(1.5, 1.5)
    first.wait(timeout=30)
    third = start(0, 1.5)
    outputs = [p.communicate(timeout=30)[0].split() for p in (first, second, third)]
    held = sorted((float(o[1]), float(o[2])) for o in outputs if o[:1] == ["held"])
    assert outputs[0][0] == "held" and len(held) >= 2, outputs
    for (_, end), (begin, _) in zip(held, held[1:]):
        assert begin >= end, outputs  # never two holders at once


def _server(reply: bytes):
    """A TCP server on 127.0.0.1 that accepts, sends ``reply`` (nothing: silent) and keeps the connection open."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(30)
    kept = []

    def serve():
        try:
            while True:
                connection, _ = listener.accept()
                kept.append(connection)
                if reply:
                    connection.sendall(reply)
        except OSError:
            pass

    threading.Thread(target=serve, daemon=True).start()
    return listener, f"tcp://127.0.0.1:{listener.getsockname()[1]}", kept


@pytest.mark.parametrize("reply, fragment", [
    (b"", "accepted the connection but sent nothing within 2 s"),
    (b"SSH-2.0-OpenSSH_9.6\r\n", "does not speak the Dask protocol (its first bytes are b'SSH-2.0-'"),
])
def test_a_wrong_protocol_scheduler_is_reported_within_the_timeout(monkeypatch, tmp_path, reply, fragment):
    monkeypatch.setattr(executor, "SCHEDULER_TIMEOUT", 2)
    listener, address, kept = _server(reply)
    try:
        began = time.monotonic()
        status, out, err = cli("sweep", "dhc", "--pairs", "13", "13", "--out", tmp_path / "out", "--scheduler", address,
                               "--no-progress")
        assert time.monotonic() - began < 6
        assert_clean_error(status, out, err, fragment)
        assert "out of memory" not in err
        assert not (tmp_path / "out" / ".sweep.lock").exists()  # the folder is not left locked
    finally:
        listener.close()
        for connection in kept:
            connection.close()


def test_scheduler_ports_are_checked():
    assert_clean_error(*cli("sweep", "dhc", "--scheduler", "tcp://127.0.0.1:99999"), "the port must be in 1..65535")


def test_readers_cap_the_bytes_actually_read(tmp_path):
    began = time.monotonic()
    assert_clean_error(*cli("delta", "--budgets", "/dev/zero", "--eps", "1"), "larger than the limit of 10,000,000 bytes")
    read, write = os.pipe()  # a pipe reports size 0; the cap still holds

    def feed():
        try:
            for _ in range(12):
                os.write(write, b"0" * 2**20)
        except BrokenPipeError:  # the reader stopped at the cap, as it should
            pass
        finally:
            os.close(write)

    writer = threading.Thread(target=feed)
    writer.start()
    with pytest.raises(ValueError, match="larger than the limit"):
        atomic.read_capped(Path(f"/dev/fd/{read}"), 10**7)
    os.close(read)
    writer.join(timeout=10)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # a FIFO nobody writes to reads as empty instead of blocking
    assert atomic.read_capped(fifo, 100) == b""
    assert time.monotonic() - began < 20


def test_a_budget_file_near_the_cap_is_read_in_seconds(tmp_path):
    budgets = tmp_path / "budgets.csv"
    budgets.write_text("rho\n" + "".join(f"{k % 997 + 1}/1000\n" for k in range(200_000)))
    began = time.monotonic()
    from accountlib.cli import read_budgets_file
    rhos, _ = read_budgets_file(str(budgets))
    pair = Composition(rhos)
    assert len(rhos) == 200_000 and pair.rho == sum(Fraction(k % 997 + 1, 1000) for k in range(200_000)) / 2
    assert time.monotonic() - began < 30  # about 3 s on a free core


def test_log_lines_are_whole_lines(tmp_path):
    log = tmp_path / "sweep_log.csv"
    log.write_text("pair,seconds\n1_2,0.5\n3_4,0.")  # a writer killed mid-line
    atomic.append_line(log, "5_6,1.5")
    assert log.read_text().splitlines() == ["pair,seconds", "1_2,0.5", "3_4,0.", "5_6,1.5"]


@pytest.mark.parametrize("args, fragment", [
    (["delta", "--pair", "1", "2", "--eps", "-1/2"], "--eps values must be in [0, 5000] (δ(0) is the total variation distance; 5000 the largest supported ε); got '-1/2'"),
    (["delta", "--pair", "1", "2", "--eps", "-inf"], "got '-inf'"),
    (["tradeoff", "--pair", "1", "2", "--alpha", "-0.5"], "--alpha values must lie in [0, 1]; got '-0.5'"),
    (["delta", "--pair", "1", "2", "--eps", "1", "--eps", "2"], "--eps is given twice; give it once"),
    (["delta", "--pair", "1", "2", "--pair", "1", "3", "--eps", "1"], "--pair is given twice"),
    (["sweep", "dhc", "--out", "a", "--out", "b"], "--out is given twice"),
    (["delta", "--rho", *[f"1/{p}" for p in range(10007, 20007)], "--eps", "1"],
     "least common multiple of more than 1000 digits"),
])
def test_messages_name_the_argument_and_the_value(args, fragment):
    began = time.monotonic()
    assert_clean_error(*cli(*args), fragment)
    assert time.monotonic() - began < 10


def test_a_resource_variable_is_named(monkeypatch):
    from accountlib.infrastructure.numbers import reread_resource_limits

    monkeypatch.setenv("ACCOUNTLIB_MAX_NODE_BITS", "1e400")
    reread_resource_limits()  # the limits are read once: a change to the environment is read again on request
    assert_clean_error(*cli("delta", "--pair", "1", "2", "--eps", "1"),
                       "the environment variable ACCOUNTLIB_MAX_NODE_BITS must be a whole number")
    monkeypatch.delenv("ACCOUNTLIB_MAX_NODE_BITS")
    reread_resource_limits()


def test_resource_limits_are_read_once_per_process(monkeypatch):
    """A calibration builds many compositions and engines; each ACCOUNTLIB_MAX_* variable is read once (72 reads
    in one calibrate before)."""
    import accountlib
    from accountlib.infrastructure import numbers

    reads = []
    read = numbers.env_limit
    monkeypatch.setattr(numbers, "env_limit", lambda name, default: reads.append(name) or read(name, default))
    numbers.reread_resource_limits()
    accountlib.calibrate(["1/2", "1/3"], accountlib.ApproximateDP(1, "1e-6"))
    assert sorted(reads) == sorted(set(reads)) and len(reads) <= 4, reads
    monkeypatch.setenv("ACCOUNTLIB_MAX_DISTINCT_TERMS", "1")
    accountlib.delta(["1/2", "1/3"], 1)  # read already: the change is not seen behind the caller's back
    numbers.reread_resource_limits()
    with pytest.raises(ValueError, match="at most 1 are accepted"):
        accountlib.delta(["1/2", "1/3"], 1)
    monkeypatch.delenv("ACCOUNTLIB_MAX_DISTINCT_TERMS")
    numbers.reread_resource_limits()


# -- issue 23: bounded by design, one-line messages ------------------------------------------------------


def _budget_file(path, lines):
    path.write_text("rho\n" + "\n".join(lines) + "\n")
    return str(path)


def test_a_budget_file_of_too_many_distinct_budgets_is_refused_as_read(tmp_path):
    began = time.monotonic()
    path = _budget_file(tmp_path / "b.csv", [f"{i}/1000003" for i in range(1, 20_002)])
    assert_clean_error(*cli("delta", "--budgets", path, "--eps", "1"),
                       f"--budgets {path} has 20,001 distinct terms (budget and weight or sensitivity); at most "
                       "20,000 are accepted")
    assert time.monotonic() - began < 10  # about 1 s


def test_a_budget_file_of_repeated_budgets_is_merged(tmp_path):
    began = time.monotonic()
    path = _budget_file(tmp_path / "b.csv", [f"{i % 7 + 1}/10" for i in range(100_000)])
    status, out, err = cli("delta", "--budgets", path, "--eps", "1", "--json")
    assert status == 0, err
    # a δ of 1 − 1e-15000-ish certified as finely is printed with 46 digits (15 decades below the finest tolerance)
    rows = assert_honest_rows(out, "delta", Decimal("1e-6"))
    assert len(rows[0]["delta"]) < 60
    assert time.monotonic() - began < 15


def test_shift_pair_refuses_too_many_distinct_budgets_before_the_lattice():
    from accountlib.infrastructure.numbers import ResourceLimitError

    began = time.monotonic()
    with pytest.raises(ResourceLimitError, match="rhos has 20,001 distinct terms"):
        Composition([Fraction(i, 1000003) for i in range(1, 20_002)])
    assert time.monotonic() - began < 5


def test_factor_bound_constant_is_fast_for_large_variances_and_bounds_slow_series():
    from accountlib.engine.sieve import factor_bound_constant

    began = time.monotonic()
    assert all(0 < factor_bound_constant(Fraction(1000003, i)) < 1e-290 for i in range(1, 2001))
    assert time.monotonic() - began < 1  # each stopped at the first underflowed term (was 10^4 terms: 20 s)
    a = 2 * math.pi**2 * 1e-12
    assert factor_bound_constant(Fraction(1, 10**12)) >= math.sqrt(math.pi / a) - 1  # the erfc tail is added


def test_delta_beyond_the_tilted_reach_gives_its_certified_upper_bound_at_once():
    began = time.monotonic()
    assert_clean_error(*cli("delta", "--rho", "1", "--eps", "5000"),
                       "could not certify --rel-tol 1e-06 at ε = 5000.0 (underflow): only the certified upper bound δ ≤ "
                       "4.6e-5426510")  # rounded up (it printed 4.51e-5426510, rounded to nearest)
    status, out, err = cli("delta", "--rho", "1", "--eps", "5000")
    assert "--eps below 2000.500000 is certified to a relative accuracy for these budgets" in err
    assert time.monotonic() - began < 10  # hung for more than 300 s in exact decimal arithmetic


def test_delta_of_nearly_a_million_decades_prints_at_once():
    began = time.monotonic()
    status, out, err = cli("delta", "--rho", "1", "--eps", "1999", "--json")
    assert status == 0, err
    rows = assert_honest_rows(out, "delta", Decimal("1e-6"))
    assert Decimal("1e-867723") < Decimal(rows[0]["delta"]) < Decimal("1e-867721")
    assert time.monotonic() - began < 10  # 95 s before certified_decimal scaled such numbers in arb balls


def test_certified_decimal_scaled_path_matches_the_exact_one(monkeypatch):
    from accountlib.infrastructure import numbers as certified_numbers

    cases = [("4.016345123456e-1500", "4.1e-1506"), ("0", "4.1e-1506"), ("1e-1200", "1e-1210"),
             ("9.99999999e-1100", "1e-1100"), ("3e-1001", "5e-1001"), ("0.5", "1e-1500")]
    with mpmath.workdps(50):
        numbers = [(mpmath.mpf(v), mpmath.mpf(b)) for v, b in cases]
    scaled = [certified_numbers.certified_decimal(v, b) for v, b in numbers]
    monkeypatch.setattr(certified_numbers, "_SCALED_FROM", 10**9)
    assert scaled == [certified_numbers.certified_decimal(v, b) for v, b in numbers]


@pytest.mark.parametrize("value", [10**7, 301, 0, -1, 2.5, True, "21", None])
def test_delta_levels_takes_a_documented_range(value):
    began = time.monotonic()
    with pytest.raises(ValueError, match=r"smallest_exponent must be a whole number in 1\.\.300 .*; got "):
        census.delta_levels(value)
    assert time.monotonic() - began < 1
    assert len(census.delta_levels(300)) == 600 and census.delta_levels(300)[-1] == 1e-300


def test_a_lattice_too_fine_names_the_budget_whose_term_is_largest():
    """r37g F6: auto on budgets 1e-13 and 7/1000003 (1e-13 is below the smoothed engine's range) was refused "the
    lattice of these budgets is too fine" without saying which budget to change; the refusal now names the budget
    whose term c²σ² adds most to the variance proxy (here 7/1000003: its coefficient on the common lattice is
    1e13 times its own scale), and changing that budget lets the call answer."""
    import accountlib

    with pytest.raises(ValueError, match=r"too fine .*; the largest term is that of the budget 6\.99998e-06 \(7/1000003\)$"):
        accountlib.delta(["1/10000000000000", "7/1000003"], "1e-6")
    point = accountlib.delta(["1/10000000000000", "7/1000000"], "1e-6")
    assert point.meets_tolerance
