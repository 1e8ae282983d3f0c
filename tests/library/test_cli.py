"""The command line's public surface (README) and its error handling."""

import json
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import mpmath

import pytest

from cli_runs import run_main as run  # in-process; run_process below covers the entry point itself


def run_process(*args):
    """``python -m accountlib ARGS`` in a child process: the entry point itself, end to end."""
    return subprocess.run([sys.executable, "-m", "accountlib", *args], capture_output=True, text=True, timeout=600)


def test_a_reader_that_stops_reading_gets_no_error_line():
    """r37i: `dpsgd tradeoff ... | head -1` printed "error: internal error (BrokenPipeError)": the reader closed the
    pipe before the last lines. The command now ends quietly with status 141, as a shell reports SIGPIPE."""
    child = subprocess.Popen([sys.executable, "-m", "accountlib", "delta", "--rho", "1/2", "--eps", "1", "2"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # before the child writes: its first write meets a closed pipe
    _, err = child.communicate(timeout=600)
    assert child.returncode == 141 and err == b"", err


def test_a_closed_standard_output_is_named_not_a_python_error():
    """r37j K3: `delta ... >&-` ended in "internal error (AttributeError): 'NoneType' object has no attribute 'write'"."""
    import shlex

    done = subprocess.run(f"{shlex.quote(sys.executable)} -m accountlib delta --rho 1/2 --eps 1 >&-", shell=True,
                          capture_output=False, stderr=subprocess.PIPE, text=True, timeout=600)
    assert done.returncode == 2 and done.stderr == "error: standard output is closed; give the command somewhere to print (a file, a pipe)\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system to write into")
def test_a_full_disk_is_named_not_a_python_error():
    """r37k R5: `delta ... > /dev/full` ended in "internal error (OSError): [Errno 28] No space left on device"."""
    import shlex

    done = subprocess.run(f"{shlex.quote(sys.executable)} -m accountlib delta --rho 1/2 --eps 1 2 > /dev/full",
                          shell=True, stderr=subprocess.PIPE, text=True, timeout=600)
    assert done.returncode == 2
    assert done.stderr == "error: input/output failed (writing the output): No space left on device\n", done.stderr


def significant_digits(text):
    return len(Decimal(text).as_tuple().digits)


def test_delta_json_pair_13_13():
    eps = "26.340588852722324353781974500154992685015224391761"
    result = run_process("delta", "--pair", "13", "13", "--eps", eps, "3", "--rel-tol", "1e-12", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [set(r) for r in rows] == [{"epsilon", "delta", "error_bound"}] * 2
    first = rows[0]
    assert first["delta"].startswith("1.78319933504175")
    assert significant_digits(first["epsilon"]) >= 25  # the argument as given
    for row in rows:  # the result with the digits its bound supports: the last one a tenth of the bound or coarser
        delta, bound = Decimal(row["delta"]), Decimal(row["error_bound"])
        assert significant_digits(row["delta"]) >= 12 and delta.as_tuple().exponent >= bound.adjusted() - 1
    for row in rows:
        assert Decimal(row["error_bound"]) <= Decimal("1e-12") * Decimal(row["delta"])


def test_default_relative_tolerance_is_met():
    rows = json.loads(run("delta", "--pair", "1", "43", "--eps", "2", "20", "--json").stdout)
    for row in rows:
        assert Decimal(row["error_bound"]) <= Decimal("1e-6") * Decimal(row["delta"])


def test_delta_rel_tol_and_symmetric_pair_order():
    a = json.loads(run("delta", "--pair", "2", "5", "--eps", "5", "--rel-tol", "1e-9", "--json").stdout)
    b = json.loads(run("delta", "--pair", "5", "2", "--eps", "5", "--rel-tol", "1e-9", "--json").stdout)
    assert a == b
    assert Decimal(a[0]["error_bound"]) <= Decimal("1e-9") * Decimal(a[0]["delta"])


def test_tradeoff_json_and_table():
    result = run("tradeoff", "--pair", "13", "13", "--alpha", "0.01", "0.5", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [set(r) for r in rows] == [{"alpha", "beta", "error_bound"}] * 2
    assert Decimal(rows[0]["beta"]) > Decimal(rows[1]["beta"])
    table = run("tradeoff", "--pair", "13", "13", "--alpha", "0.01")
    assert table.returncode == 0 and "beta" in table.stdout.splitlines()[0]


@pytest.mark.parametrize(
    "args, message",
    [
        (["delta", "--pair", "0", "13", "--eps", "1"], "between 1 and 43"),
        (["delta", "--pair", "13", "44", "--eps", "1"], "between 1 and 43"),
        (["delta", "--pair", "x", "13", "--eps", "1"], "between 1 and 43"),
        (["delta", "--pair", "13", "13", "--eps", "5001"], "must be in [0, 5000]"),
        (["delta", "--pair", "13", "13", "--eps", "abc"], "could not be read"),
        (["delta", "--pair", "13", "13", "--eps", "1", "--rel-tol", "0.6"], "rel-tol must be in"),
        (["delta", "--pair", "13", "13", "--eps", "1", "--rel-tol", "0"], "rel-tol must be in"),
        (["tradeoff", "--pair", "13", "13", "--alpha", "1.5"], "must lie in [0, 1]"),
        (["delta", "--pair", "13", "--eps", "1"], "expected 2 arguments"),
        (["frobnicate"], "invalid choice"),
        # an ε interval narrower than 1e-30 needs δ finer than the finest relative accuracy: refused at once (1e-40
        # was refused after 21 s of bisection, 1e-50 ran past 120 s)
        (["epsilon", "--rho", "1/2", "--delta", "1e-5", "--abs-tol", "1e-31"], "--abs-tol must be in [1e-30, 0.5]; got 1E-31"),
        (["epsilon", "--rho", "1/2", "--delta", "1e-5", "--abs-tol", "1e-50"], "--abs-tol must be in [1e-30, 0.5]"),
        (["epsilon", "--rho", "1/2", "--delta", "1e-5", "--abs-tol", "-1e-3"], "--abs-tol must be in [1e-30, 0.5]"),
    ],
)
def test_bad_input_exits_2_with_a_clear_message(args, message):
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""  # one line, nothing else


def test_help_for_everything():
    for args in ([], ["delta"], ["tradeoff"]):
        result = run_process(*args, "--help")
        assert result.returncode == 0 and "usage" in result.stdout


def test_epsilon_help_states_the_width_it_accepts_and_the_narrowest_is_certified():
    """epsilon --help said --abs-tol in [1e-60, 0.5]; below about 1e-30 no interval could be certified."""
    assert "in [1e-30, 0.5]" in " ".join(run("epsilon", "--help").stdout.split())
    result = run("epsilon", "--rho", "1/2", "--delta", "1e-5", "--abs-tol", "1e-30", "--json")
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)
    assert Decimal(row["epsilon_upper"]) - Decimal(row["epsilon_lower"]) <= Decimal("1e-30")  # printed outwards


@pytest.mark.parametrize("abs_tol", ["1e-30", "1e-20", "3e-16"])
def test_epsilon_prints_the_digits_its_abs_tol_needs_and_contains_the_certified_interval(abs_tol):
    """The CLI printed 15 digits whatever --abs-tol asked: at 1e-30 an interval 1e-14 wide, with no flag (r37b S2-1).
    The printed ends are exact decimals rounded outwards: they contain the library's certified ends, and the printed
    interval is no wider than --abs-tol (text and JSON alike)."""
    from fractions import Fraction

    from accountlib import epsilon

    result = run("epsilon", "--rho", "1/2", "--delta", "1e-5", "--abs-tol", abs_tol, "--json")
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)
    assert set(row) == {"delta", "epsilon_lower", "epsilon_upper"}
    lower, upper = Decimal(row["epsilon_lower"]), Decimal(row["epsilon_upper"])
    assert upper - lower <= Decimal(abs_tol)
    e = epsilon(["1/2"], "1e-5", abs_tol=float(abs_tol))
    assert Fraction(lower) <= e.lower and e.upper <= Fraction(upper)
    table = run("epsilon", "--rho", "1/2", "--delta", "1e-5", "--abs-tol", abs_tol).stdout.splitlines()[1].split()
    assert table[1:] == [row["epsilon_lower"], row["epsilon_upper"]]


def test_sweep_options_that_do_not_apply_are_refused(tmp_path):
    result = run("sweep", "dpsgd", "--pairs", "1", "2", "--out", str(tmp_path))
    assert result.returncode == 2 and "unrecognized arguments: --pairs 1 2" in result.stderr
    assert "python -m accountlib sweep dpsgd --help" in result.stderr
    result = run("sweep", "dhc", "--data-dir", str(tmp_path), "--out", str(tmp_path))
    assert result.returncode == 2 and "unrecognized arguments: --data-dir" in result.stderr
    result = run("sweep", "dpsgd", "--data-dir", str(tmp_path / "missing"), "--out", str(tmp_path))
    assert result.returncode == 2 and "is not a folder" in result.stderr
    result = run("sweep", "dhc", "--pairs", "13", "13", "--summarise", "--workers", "1", "--no-progress",
                 "--out", str(tmp_path))
    assert result.returncode == 2 and "needs all 946 pairs" in result.stderr
    for pairs in (["13", "44"], ["0", "1"]):  # the same allocation check as --pair and the library
        result = run("sweep", "dhc", "--pairs", *pairs, "--out", str(tmp_path))
        assert result.returncode == 2 and "--pairs must be an allocation number between 1 and 43" in result.stderr
    result = run("sweep", "dhc", "--pairs", "13", "--out", str(tmp_path))
    assert result.returncode == 2 and "even number" in result.stderr


# -- your own composition: --rho and --budgets ----------------------------------------------------


def test_rho_and_budgets_give_the_pair_output_byte_for_byte(tmp_path):
    from accountlib.applications import census

    rhos = [str(r) for r in census.pair_rhos(2, 5)]
    (tmp_path / "budgets.csv").write_text("rho,sensitivity\n" + "".join(f"{r},1\n" for r in rhos))
    pair = run("delta", "--pair", "5", "2", "--eps", "1", "5", "--json")
    assert pair.returncode == 0, pair.stderr
    assert run("delta", "--rho", *rhos, "--eps", "1", "5", "--json").stdout == pair.stdout
    assert run("delta", "--budgets", str(tmp_path / "budgets.csv"), "--eps", "1", "5", "--json").stdout == pair.stdout
    trade = run("tradeoff", "--pair", "2", "5", "--alpha", "0.1")
    assert trade.returncode == 0 and run("tradeoff", "--rho", *rhos, "--alpha", "0.1").stdout == trade.stdout


def test_rho_of_one_mechanism_against_a_closed_form():
    """One mechanism N_Z(0, 1/ρ) vs N_Z(1, 1/ρ) at ρ = 1/2: δ(ε) = Σ_x (p(x) − e^ε p(x − 1))_+ summed directly."""
    from fractions import Fraction

    import mpmath

    rho, eps = Fraction(1, 2), Fraction(1, 3)
    rows = json.loads(run("delta", "--rho", "1/2", "--eps", "1/3", "--rel-tol", "1e-20", "--json").stdout)
    with mpmath.workdps(60):
        weights = {x: mpmath.exp(-mpmath.mpf(x) ** 2 * rho / 2) for x in range(-200, 201)}
        total = sum(weights.values())
        # privacy loss at output x of P = N_Z(0, 1/ρ) against Q = N_Z(1, 1/ρ): ρ(1 − 2x)/2 (its sign is immaterial:
        # the pair is symmetric); δ(ε) = Σ (p(x) − e^ε q(x))_+
        expected = sum(max(weights[x] - mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator) * weights[x - 1], 0)
                       for x in range(-199, 201)) / total
        assert abs(mpmath.mpf(rows[0]["delta"]) - expected) <= mpmath.mpf(rows[0]["error_bound"]) + mpmath.mpf(10) ** -28
    assert Decimal(rows[0]["error_bound"]) <= Decimal("1e-20") * Decimal(rows[0]["delta"])


@pytest.mark.parametrize(
    "args, message",
    [
        (["delta", "--rho", "0", "1/10", "--eps", "1"], "--rho budgets must be > 0; got '0'"),
        (["delta", "--rho", "-1/10", "--eps", "1"], "--rho budgets must be > 0"),
        (["epsilon", "--rho", "1/2", "--delta", "-1e-5"], "--delta values must be in [1e-300, 1); got '-1e-5'"),  # r37l N4
        (["calibrate", "--rho", "1/2", "--target-eps", "1", "--target-delta", "-1e-5"],
         "--target-delta values must be in [1e-300, 1)"),
        (["delta", "--rho", "abc", "--eps", "1"], "--rho could not be read as a number: 'abc'"),
        (["delta", "--rho", "nan", "--eps", "1"], "--rho must be a finite number > 0; got 'nan'"),
        (["delta", "--rho", "1/0", "--eps", "1"], "--rho could not be read"),
        (["delta", "--rho", "1." + "1" * 1500, "--eps", "1"], "at most 1000 digits"),
        (["delta", "--rho", "1e-5000", "--eps", "1"], "out of the supported range"),
        (["delta", "--rho", "1/12345678901234567890123456789012345", "--eps", "1"], "too fine"),
        (["delta", "--rho", "--eps", "1"], "expected at least one argument"),
        (["delta", "--rho", "1", "--pair", "1", "2", "--eps", "1"], "not allowed with argument"),
        (["delta", "--eps", "1"], "one of the arguments --pair --rho --budgets --release is required"),
        (["tradeoff", "--rho", "0", "--alpha", "0.1"], "--rho budgets must be > 0"),
        (["delta", "--budgets", "/no/such/file.csv", "--eps", "1"], "cannot be read"),
    ],
)
def test_bad_budgets_exit_2_with_one_line(args, message):
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and len(result.stderr) < 500 and result.stdout == ""


def test_budgets_with_sensitivities_are_the_library_pair(tmp_path):
    from accountlib.theory.composition import Composition

    (tmp_path / "b.csv").write_text("rho,sensitivity\n1/2,1\n1/3,2\n")
    result = run("delta", "--budgets", str(tmp_path / "b.csv"), "--eps", "1", "--json")
    assert result.returncode == 0, result.stderr
    point = Composition(["1/2", "1/3"], sensitivities=[1, 2]).delta([1])[0]
    row = json.loads(result.stdout)[0]
    assert mpmath.mpf(row["delta"]) == pytest.approx(point.delta, rel=1e-25)
    # a sensitivity of 2 is a larger shift than two mechanisms of sensitivity 1 would make: δ is larger
    assert point.delta > Composition(["1/2", "1/3"]).delta([1])[0].delta


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "an empty file"),
        ("budget\n0.1\n", "the first line must be the header rho"),
        ("rho\n", "no budgets below the header"),
        ("rho\n0.1\n0\n", "line 3: rho must be > 0"),
        ("rho\n0.1,2\n", "line 2 has 2 fields, expected 1"),
        ("rho\nx\n", "line 2 rho could not be read"),
        ("rho,sensitivity\n0.1,0\n", "sensitivity must be a whole number in 1..1000000"),
        ("rho,sensitivity\n0.1,1.5\n", "sensitivity must be a whole number"),
    ],
)
def test_bad_budget_files(tmp_path, text, message):
    path = tmp_path / "b.csv"
    path.write_text(text)
    result = run("delta", "--budgets", str(path), "--eps", "1")
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_extreme_budgets_and_deltas_are_refused_naming_the_option(capsys):
    """Budgets outside 1e-300..1e300 and δ below 1e-300 get a message naming the option and the range (they gave
    'float division by zero' and 'math domain error'); a listing asked for goes to stdout with exit 0."""
    from accountlib.cli import main

    for args, words in ((["delta", "--rho", "1e400", "--eps", "1"], "--rho must be a budget between 1e-300 and 1e300"),
                        (["delta", "--rho", "1e-400", "--eps", "1"], "got about 1e-400"),
                        (["epsilon", "--rho", "1/2", "--delta", "1e-400"], "must be in [1e-300, 1)")):
        assert main(args) == 2
        err = capsys.readouterr().err
        assert words in err and "division" not in err and "domain" not in err, err
    assert main(["delta", "--release", "pl94-persons", "--paths", "list", "list", "--eps", "1"]) == 0
    captured = capsys.readouterr()
    assert "absorbed-Block" in captured.out and captured.err == ""
    with pytest.raises(ValueError, match=r"rhos\[1\] must be a budget between"):
        __import__("accountlib").Composition(["1/2", 10**301])


def test_a_refused_eps_among_several_fails_after_printing_the_certified_ones():
    """r37g F5 / r37h F-E: one --eps whose bound misses --rel-tol threw away the rows of the others. They are
    printed now, the same as asked without it, and the command still fails (exit 2) naming the refused ε."""
    mixed = run("delta", "--rho", "1/2", "--eps", "1", "5000", "2", "--rel-tol", "1e-12", "--json")
    alone = run("delta", "--rho", "1/2", "--eps", "1", "2", "--rel-tol", "1e-12", "--json")
    assert mixed.returncode == 2 and alone.returncode == 0, alone.stderr
    assert "at ε = 5000" in mixed.stderr and "(1 of 3 values refused, the first named here; the rows printed" in mixed.stderr
    assert json.loads(mixed.stdout) == json.loads(alone.stdout) and len(json.loads(alone.stdout)) == 2
    table = run("delta", "--rho", "1/2", "--eps", "5000", "--rel-tol", "1e-12")  # one value: no table, no count
    assert table.returncode == 2 and table.stdout == "" and "values refused" not in table.stderr
    none = run("delta", "--rho", "1/2", "--eps", "5000", "4000", "--rel-tol", "1e-12", "--json")  # r37i N4
    assert none.returncode == 2 and json.loads(none.stdout) == [] and "(2 of 2 values refused" in none.stderr


def test_a_tradeoff_alpha_whose_work_is_refused_leaves_the_others_printed(monkeypatch):
    """r37i N1: `tradeoff --alpha` asked the library for every α at once, so one α refused for its work budget (the
    smoothed engine's estimate) failed the command with no row printed and the α after it never computed. On the
    smoothed engine each α is now asked on its own (r37j K2: not again after a refusal, which spent two budgets); here
    α = 1/2's work is refused (made so), 0.3 and 0.7 printed as asked without it."""
    from fractions import Fraction

    from accountlib.infrastructure.numbers import ResourceLimitError
    from accountlib.theory.composition import Composition

    real = Composition.tradeoff

    def refusing(self, alphas, **options):
        if Fraction(1, 2) in [Fraction(a) for a in alphas]:
            raise ResourceLimitError("abs_tol: the smoothed trade-off at alpha = 0.500000 needs more than allowed")
        return real(self, alphas, **options)

    monkeypatch.setattr(Composition, "tradeoff", refusing)
    smoothed = ("--rho", "13/17", "7/1000003", "--abs-tol", "1e-5", "--json")  # auto: the smoothed engine, α by α
    mixed = run("tradeoff", *smoothed, "--alpha", "0.3", "1/2", "0.7")
    alone = run("tradeoff", *smoothed, "--alpha", "0.3", "0.7")
    assert alone.returncode == 0 and len(json.loads(alone.stdout)) == 2
    assert mixed.returncode == 2 and json.loads(mixed.stdout) == json.loads(alone.stdout)
    assert "--abs-tol 1e-05: the smoothed trade-off at alpha = 0.500000" in mixed.stderr
    assert "(1 of 3 values refused, the first named here; the rows printed are certified)" in mixed.stderr


def test_a_tradeoff_bound_the_library_meets_but_its_printed_rounding_misses_names_that_cause(monkeypatch):
    """r37p F1: under a small node cap the library met --abs-tol 2.5e-6 at ±2.477e-6, the row's value printed to the
    bound's second digit widened it past 2.5e-6, and the command failed quoting a best bound below --abs-tol with no
    cause. (The rungs now nest, so asking again at half narrows that case; a point that does not narrow, made so here,
    is refused naming the rounding.)"""
    from dataclasses import replace

    from accountlib.theory.composition import Composition

    real = Composition.tradeoff

    def wide(self, alphas, **options):  # β = 0.1234567850 ± 0.996·abs_tol: rounding to 1e-8 adds 5e-9
        return [replace(p, beta=mpmath.mpf("0.123456785"), error_bound=mpmath.mpf("9.96e-7"), meets_tolerance=True,
                        shortfall=None) for p in real(self, alphas, abs_tol=1e-5, best_effort=True)]

    monkeypatch.setattr(Composition, "tradeoff", wide)
    refused = run("tradeoff", "--rho", "1/2", "--alpha", "0.3", "--abs-tol", "1e-6")
    assert refused.returncode == 2 and refused.stdout == ""
    assert "(its printed rounding): the best certified bound is 9.96e-7" in refused.stderr, refused.stderr


def test_best_effort_prints_a_missed_bound_with_its_shortfall_and_plain_runs_refuse_it():
    """Issue 37's one rule in the CLI: δ(5000) of --rho 1/2 (below 1e-10857000, beyond the tilted contour's reach, so
    only a certified upper bound exists) at --rel-tol 1e-12 fails (exit 2, naming why), and with --best-effort prints
    the narrowest certified bound with a shortfall column; ε = 0 is accepted. (δ(40), 8.39e-697, was this test's
    case while the tilted sum stopped at float64; it is now certified to 1e-12.)"""
    refused = run("delta", "--rho", "1/2", "--eps", "5000", "--rel-tol", "1e-12")
    assert refused.returncode == 2 and "could not certify --rel-tol 1e-12" in refused.stderr
    flagged = run("delta", "--rho", "1/2", "--eps", "5000", "1", "--rel-tol", "1e-12", "--best-effort", "--json")
    assert flagged.returncode == 0, flagged.stderr
    rows = json.loads(flagged.stdout)
    assert rows[0]["shortfall"] == "underflow" and mpmath.mpf(rows[0]["delta"]) == 0
    with mpmath.workdps(30):  # δ(5000) ≤ P(X ≤ −10000) < e^{−10^8/4}: the bound printed covers it
        assert mpmath.mpf(rows[0]["error_bound"]) >= mpmath.exp(-mpmath.mpf(10) ** 8 / 4)
    assert rows[1]["shortfall"] == ""
    met = run("delta", "--rho", "1/2", "--eps", "40", "--rel-tol", "1e-12", "--json")
    assert met.returncode == 0 and json.loads(met.stdout)[0]["delta"].startswith("8.3947469230209")
    tv = run("delta", "--rho", "1/2", "--eps", "0", "--json")
    with mpmath.workdps(40):  # TV(N_Z(0, 2), N_Z(1, 2)) summed directly
        weights = [mpmath.exp(-mpmath.mpf(x) ** 2 / 4) for x in range(-60, 62)]
        brute = mpmath.fsum(abs(a - b) for a, b in zip(weights[1:], weights[:-1])) / (2 * mpmath.fsum(weights))
        (row,) = json.loads(tv.stdout)
        assert tv.returncode == 0 and abs(mpmath.mpf(row["delta"]) - brute) <= mpmath.mpf(row["error_bound"]) + 1e-35


def test_messages_name_the_option_and_show_the_value_as_given():
    """Hostile review of issue 37, item 7: --eps 5000.0000001 was refused as "got 5000.00"; --eps -0 was refused as
    negative; calibrate --target-eps 0 was refused naming "epsilon" (and refused at all, though the target δ(0) ≤ δ,
    the total variation distance, is defined); epsilon --help said δ in (0, 1) where [1e-300, 1) is accepted."""
    result = run("delta", "--rho", "1/2", "--eps", "5000.0000001")
    assert result.returncode == 2 and result.stderr.strip().endswith("got 5000.0000001"), result.stderr
    for zero in ("-0", "-0.0", "-0e3"):
        signed, plain = run("delta", "--rho", "1/2", "--eps", zero, "1", "--json"), run("delta", "--rho", "1/2", "--eps", "0", "1", "--json")
        assert signed.returncode == 0 and signed.stdout == plain.stdout, signed.stderr
    far = run("calibrate", "--rho", "1/2", "--target-eps", "5001", "--target-delta", "0.1", "--no-progress")
    assert far.returncode == 2 and far.stderr.startswith("error: --target-eps values must be in [0, 5000]"), far.stderr
    tv = run("calibrate", "--rho", "1/2", "--target-eps", "0", "--target-delta", "0.1", "--no-progress", "--json")
    assert tv.returncode == 0, tv.stderr
    (row,) = json.loads(tv.stdout) if tv.stdout.lstrip().startswith("[") else [json.loads(tv.stdout)]
    assert row["proven_smallest"] and Decimal(row["binding_epsilon"]) == 0
    assert "δ values in [1e-300, 1)" in " ".join(run("epsilon", "--help").stdout.split())


def test_a_target_of_epsilon_0_calibrates_the_total_variation_distance():
    """ApproximateDP(0, δ): δ(0), the total variation distance, at most δ; it holds at the answer and fails one step
    below (certified, as every calibration)."""
    from accountlib.theory.calibration import calibrate
    from accountlib.theory.targets import ApproximateDP
    import accountlib

    c = calibrate(["1/2"], ApproximateDP(0, "0.1"))
    assert c.proven_smallest and c.checks[0].status == "holds" and c.failure.status == "fails"
    at = accountlib.delta(c.rhos, 0, rel_tol=1e-9)
    assert at.delta + at.error_bound <= mpmath.mpf("0.1")
    with pytest.raises(ValueError, match=r"^epsilon must be in \[0, 5000\]"):
        ApproximateDP(-1, "0.1")


def test_the_dp_accounting_drop_in_names_target_delta():
    from accountlib.applications.accountant import (CertifiedDiscreteGaussianAccountant, DiscreteGaussianDpEvent,
                                                    NeighboringRelation)

    accountant = CertifiedDiscreteGaussianAccountant(NeighboringRelation.ADD_OR_REMOVE_ONE)
    accountant.compose(DiscreteGaussianDpEvent(sigma=2.0))
    with pytest.raises(ValueError, match=r"^target_delta must be in \[1e-300, 1\)"):
        accountant.get_epsilon(1e-320)


@pytest.mark.parametrize("args, fragment", [
    # r37b S3-2: a value beyond a float gave Python's "integer division result too large for a float"
    (["dpsgd", "delta", "--q", "1e309", "--noise-multiplier", "1", "--steps", "10", "--eps", "1"],
     "--q (the sampling rate) must be a finite number in [1e-08, 1]; got a value above 1e300"),
    (["dpsgd", "delta", "--q", "0.01", "--noise-multiplier", "1e309", "--steps", "10", "--eps", "1"],
     "--noise-multiplier (z, the noise multiplier) must be a finite number in [0.05, 1000]; got a value above 1e300"),
    (["dpsgd", "delta", "--q", "0.01", "--noise-multiplier", "1", "--steps", "10", "--eps", "1", "--rel-tol", "1e309"],
     "--rel-tol must be a number in [1e-12, 0.5] for a DP-SGD run; got a value above 1e300"),
    (["dpsgd", "delta", "--q", "0.01", "--noise-multiplier", "1", "--steps", "1e309", "--eps", "1"],
     "--steps must be a whole number in [1, 1e+09]; got a value above 1e300"),
    (["dpsgd", "tradeoff", "--q", "0.01", "--noise-multiplier", "1", "--steps", "10", "--alpha", "2"],
     "--alpha (the type I error) must be"),
    # S3-7: nan and inf told the range the option accepts; --resolution named as the option
    (["delta", "--rho", "1/2", "--eps", "1", "--rel-tol", "nan"], "--rel-tol must be a finite number in [1e-30, 0.5]; got 'nan'"),
    (["tradeoff", "--rho", "1/2", "--alpha", "inf"], "--alpha must be a finite number in [0, 1]; got 'inf'"),
    (["calibrate", "--rho", "1/2", "--target-eps", "1", "--target-delta", "1e-5", "--resolution", "nan"],
     "--resolution must be a finite number in [1e-9, 0.5]; got 'nan'"),
    (["calibrate", "--rho", "1/2", "--target-eps", "1", "--target-delta", "1e-5", "--resolution", "1e-10"],
     "error: --resolution must be in [1e-09, 0.5]"),
    (["dpsgd", "calibrate", "--q", "0.01", "--steps", "10", "--target-eps", "1", "--target-delta", "1e-5",
      "--resolution", "1e309"], "error: --resolution must be in [1e-09, 0.5] (a grid step at most --resolution "
     "times the answer); got a value above 1e300"),
    # r37c S3-5: calibrate's refusal says what its help says (the zCDP rule's multiplier), not "the answer's scale"
    (["calibrate", "--rho", "1/2", "--target-eps", "1", "--target-delta", "1e-5", "--resolution", "0.6"],
     "error: --resolution must be in [1e-09, 0.5] (a grid step at most --resolution times the zCDP rule's multiplier "
     "(for an ε too small for the zCDP rule, ε = 0 included, times the multiplier bringing the continuous Gaussian's "
     "total variation distance to δ)); got 0.6"),
    # S3-13: Python's digit grouping is not a documented form (1_0 was read as 10)
    (["delta", "--rho", "1_0", "--eps", "1"], "--rho must be a decimal (e.g. 0.05, 1e-6) or a fraction"),
    (["delta", "--rho", "1/2", "--eps", "1_0"], "--eps must be a decimal (e.g. 0.05, 1e-6) or a fraction"),
    # S3-4: the smoothed trade-off's refusal names --abs-tol as given, not the library's abs_tol at half of it
    (["tradeoff", "--rho", "13/17", "7/1000003", "--alpha", "0.1"], "error: --abs-tol 1e-25: the smoothed trade-off"),
    # S3-11: the underflow refusal names the flag that prints the bound
    (["delta", "--rho", "1/2", "--eps", "5000"], "or print this bound flagged with --best-effort"),
    # S3-5: an engine's refusal of the composition's work names the option that gave the composition
    (["delta", "--rho", "1e-13", "1/3", "--eps", "1"], "error: --rho: this lattice needs"),
    # r37c S3-4: at the first Δ (1e-30, whatever the tolerance) loosening --rel-tol cannot help: said, as given
    (["delta", "--rho", "9/2", "1/10000019", "--eps", "3"], "whatever the tolerance, so loosening --rel-tol 1e-06 cannot help"),
    # r37d S3-3: epsilon has no --rel-tol: the δ tolerance it sets itself is named as such
    (["epsilon", "--rho", "9/2", "1/1000003", "--delta", "1e-6"],
     "so loosening the δ tolerance this command sets itself (1e-06) cannot help"),
    # S3-14: the DP-SGD interval the float64 bounds cannot narrow names --abs-tol
    (["dpsgd", "epsilon", "--q", "0.01", "--noise-multiplier", "1", "--steps", "100", "--delta", "1e-5", "--abs-tol",
      "1e-12"], "loosen --abs-tol"),
])
def test_messages_name_the_option_and_what_it_accepts(args, fragment):
    """r37b's S3 items on the command line: one line naming the option as the user wrote it, what was wrong and
    what is accepted; never Python's text nor the library's argument names (abs_tol, best_effort=True)."""
    from cli_runs import assert_clean_error

    result = run(*args)
    assert_clean_error(result.returncode, result.stdout, result.stderr, fragment)
    assert not re.search(r"\b(abs_tol|rel_tol|best_effort)\b", result.stderr), result.stderr


def test_a_binary_budgets_file_and_a_bad_environment_variable_are_named(tmp_path, monkeypatch):
    """S3-3: a binary --budgets file got the codec's text; S3-6: a bad ACCOUNTLIB_MAX_NODE_BITS was blamed on --rho."""
    from cli_runs import assert_clean_error

    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"rho\n\xd0\xcf\x11\xe0" * 10)
    result = run("delta", "--budgets", str(binary), "--eps", "1")
    assert_clean_error(result.returncode, result.stdout, result.stderr, "not a UTF-8 text file")
    assert "codec" not in result.stderr and "a header line rho" in result.stderr
    grouped = tmp_path / "grouped.csv"
    grouped.write_text("rho\n1_0\n")
    result = run("delta", "--budgets", str(grouped), "--eps", "1")
    assert_clean_error(result.returncode, result.stdout, result.stderr, "line 2: rho must be a decimal")
    monkeypatch.setenv("ACCOUNTLIB_MAX_NODE_BITS", "abc")  # read once per process: a child process
    result = run_process("delta", "--rho", "1/2", "--eps", "1")
    assert_clean_error(result.returncode, result.stdout, result.stderr,
                       "error: the environment variable ACCOUNTLIB_MAX_NODE_BITS must be")


def test_a_tiny_target_epsilon_calibrates_on_the_command_line():
    """S3-1: --target-eps 1e-300 gave mpmath's "cannot convert inf or nan to int"; it is ε = 0's answer."""
    rows = [json.loads(run("calibrate", "--rho", "1/2", "--target-eps", eps, "--target-delta", "0.3", "--json").stdout)
            for eps in ("1e-300", "0")]
    assert rows[0]["scale"] == rows[1]["scale"] and rows[0]["proven_smallest"] is True


def test_the_command_line_never_advises_an_engine_option_it_does_not_have():
    """r37d S3-2: engine='auto''s node-bit refusal said "(or pass engine='lattice', …)" on the command line, which has
    no --engine; there ACCOUNTLIB_MAX_NODE_BITS, which the message names, lifts the limit."""
    done = run_process("delta", "--rho", "9/2", "1/1000003", "--eps", "3")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "engine=" not in done.stderr and "ACCOUNTLIB_MAX_NODE_BITS (to 1e8, the lattice engine's own" in done.stderr


def test_a_command_without_rel_tol_never_names_that_option():
    """r37d S3-3: ``epsilon --rho 9/2 1/1000003 --delta 1e-6`` was refused saying "loosening --rel-tol = 1e-06 cannot
    help", an option epsilon does not have (only --abs-tol); the δ tolerance it sets itself is named as its own, in
    and out of process (the in-process run's sys.argv is the test runner's)."""
    for done in (run("epsilon", "--rho", "9/2", "1/1000003", "--delta", "1e-6"),
                 run_process("epsilon", "--rho", "9/2", "1/1000003", "--delta", "1e-6")):
        assert done.returncode == 2 and "--rel-tol" not in done.stderr and "rel_tol" not in done.stderr
        assert "the δ tolerance this command sets itself (1e-06)" in done.stderr
    assert "loosening --rel-tol 1e-06 cannot help" in run("delta", "--rho", "9/2", "1/10000019", "--eps", "3").stderr


def test_a_flagged_row_shows_no_more_than_the_unit_interval():
    """r37n: a flagged β whose bracket was all of [0, 1] printed `0.50 ± 0.51` ([−0.01, 1.01]); a flagged row's
    interval is cut to [0, 1] before its digits are chosen."""
    from types import SimpleNamespace

    import mpmath

    from accountlib.cli import certified_rows

    point = SimpleNamespace(alpha=mpmath.mpf("0.001"), beta=mpmath.mpf("0.4995"),
                            error_bound=mpmath.mpf("0.4995000001"), shortfall="node cap")
    (row,) = certified_rows([point], ("alpha", "beta", "error_bound"), lambda value, bound: bound <= 1e-9, str,
                            lambda value: mpmath.mpf("1e-300"), best_effort=True)
    low, high = float(row["beta"]) - float(row["error_bound"]), float(row["beta"]) + float(row["error_bound"])
    assert 0 <= low <= 0.4995 - 0.4995000001 + 1e-6 and 0.999 <= high <= 1 and row["shortfall"] == "node cap"


@pytest.mark.parametrize("option, rest", [("--noise-multiplier", ("--q", "0.01", "--steps", "10")),
                                          ("--q", ("--noise-multiplier", "1", "--steps", "10")),
                                          ("--steps", ("--q", "0.01", "--noise-multiplier", "1"))])
def test_a_negative_fraction_for_a_dpsgd_run_option_is_named_with_its_range(option, rest):
    """r37q M2: `dpsgd delta --noise-multiplier -1/3` got argparse's bare "expected one argument" (argparse takes -1/3
    for an option; -0.3 it reads as a number). It now gets the option's range, as --eps -1/2 does."""
    done = run("dpsgd", "delta", *rest, option, "-1/3", "--eps", "1")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"error: {option} ") and "must be" in done.stderr and "got '-1/3'" in done.stderr
