"""The command line's numeric options swept over extreme values (issue 37): every answer is a result (exit 0) or one
line naming the problem (exit 2), never a bare Python exception text such as "float division by zero" or "math
domain error". Each command keeps the others' values cheap, so that one example costs a fraction of a second."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_runs import run_main as run

EXTREMES = ["0", "-0", "0.0", "1e400", "-1e400", "1e-400", "1e-300", "1e300", "5e-324", "1.8e308", "1e999999",
            "1e-999999", "nan", "inf", "-inf", "NaN", "Infinity", "1/0", "0/0", "-1/3", "1/3", "2/3", "0.5", "1",
            "5000", "5000.0000001", "4999.9999999", "1e-30", "1e-60", "1e-61", "0.50000001", "99999999999999999999",
            "0x10", "1_000", "1,5", "", " ", "1e", "--1", "½", "1/", "/2", "1//2", "1e-5/3"]
"""Numbers at and beyond every documented range, and strings that are not numbers."""

#: Text that only an unhandled Python exception would print.
BARE = re.compile(r"division by zero|math domain error|math range error|object has no attribute|unsupported operand|"
                  r"invalid literal|could not convert|out of range float|cannot convert|Traceback|internal error|"
                  r"NoneType|not subscriptable|index out of range|Errno|OverflowError|ZeroDivisionError|too large for a float")

#: Names an error may give instead of the option swept (the argument it is about: a budget, a tolerance, ε, δ).
NAMES = ("rho", "--eps", "epsilon", "ε", "δ", "delta", "--alpha", "alpha", "tol", "budget")

#: (command line with {} for the value, the option the value is given to)
LINES = [
    (["delta", "--rho", "{}", "--eps", "1"], "--rho"),
    (["delta", "--rho", "1/2", "--eps", "{}"], "--eps"),
    (["delta", "--rho", "1/2", "--eps", "1", "--rel-tol", "{}"], "--rel-tol"),
    (["tradeoff", "--rho", "1/2", "--alpha", "{}", "--abs-tol", "1e-6"], "--alpha"),
    (["tradeoff", "--rho", "1/2", "--alpha", "0.1", "--abs-tol", "{}"], "--abs-tol"),
    (["epsilon", "--rho", "1/2", "--delta", "{}", "--abs-tol", "1e-3"], "--delta"),
    (["epsilon", "--rho", "1/2", "--delta", "1e-6", "--abs-tol", "{}"], "--abs-tol"),
    (["epsilon", "--rho", "{}", "--delta", "1e-6", "--abs-tol", "1e-3"], "--rho"),
]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(line=st.sampled_from(LINES), value=st.sampled_from(EXTREMES))
def test_numeric_options_at_extreme_values_give_a_result_or_one_line_naming_the_option(line, value):
    words, option = line
    args = [value if w == "{}" else w for w in words]
    result = run(*args)
    assert result.returncode in (0, 2), (args, result)
    if result.returncode == 2:
        err = result.stderr
        assert err.startswith("error: ") and err.count("\n") == 1, (args, err)
        assert not BARE.search(err), (args, err)
        assert any(name in err for name in (option, option.lstrip("-"), *NAMES)), (args, err)
    else:
        assert result.stdout and not result.stderr, (args, result)
