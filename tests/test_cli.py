"""The command line's public surface (README) and its error handling."""

import json
import subprocess
import sys
from decimal import Decimal

import pytest


def run(*args):
    return subprocess.run([sys.executable, "-m", "accountlib", *args], capture_output=True, text=True, timeout=600)


def significant_digits(text):
    return len(Decimal(text).as_tuple().digits)


def test_delta_json_pair_13_13():
    eps = "26.340588852722324353781974500154992685015224391761"
    result = run("delta", "--pair", "13", "13", "--eps", eps, "3", "--rel-tol", "1e-12", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [set(r) for r in rows] == [{"epsilon", "delta", "error_bound"}] * 2
    first = rows[0]
    assert first["delta"].startswith("1.78319933504175")
    assert significant_digits(first["delta"]) >= 25 and significant_digits(first["epsilon"]) >= 25
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
        (["delta", "--pair", "13", "13", "--eps", "0"], "must be > 0"),
        (["delta", "--pair", "13", "13", "--eps", "abc"], "could not be read"),
        (["delta", "--pair", "13", "13", "--eps", "1", "--rel-tol", "0.6"], "rel-tol must be in"),
        (["delta", "--pair", "13", "13", "--eps", "1", "--rel-tol", "0"], "rel-tol must be in"),
        (["tradeoff", "--pair", "13", "13", "--alpha", "1.5"], "must lie in [0, 1]"),
        (["delta", "--pair", "13", "--eps", "1"], "expected 2 arguments"),
        (["frobnicate"], "invalid choice"),
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
        result = run(*args, "--help")
        assert result.returncode == 0 and "usage" in result.stdout


def test_sweep_options_that_do_not_apply_are_refused(tmp_path):
    result = run("sweep", "dpsgd", "--pairs", "1", "2", "--out", str(tmp_path))
    assert result.returncode == 2 and "apply to 'sweep dhc' only" in result.stderr
    result = run("sweep", "dhc", "--data-dir", str(tmp_path), "--out", str(tmp_path))
    assert result.returncode == 2 and "--data-dir applies to 'sweep dpsgd' only" in result.stderr
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
