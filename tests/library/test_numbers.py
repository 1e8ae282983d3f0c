"""The number policy (accountlib.infrastructure.numbers): one converter whose rule for floats every caller names,
and one rule for writing certified numbers."""

import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

from accountlib.infrastructure.numbers import (as_fraction, certified_decimal, certified_digits, exact_rational,
                                              rounded_up)

ROOT = Path(__file__).resolve().parents[2]


def test_the_two_rules_for_floats():
    assert as_fraction(0.1, "x", floats="decimal") == Fraction(1, 10)
    assert as_fraction(0.1, "x", floats="binary") == Fraction(0.1) != Fraction(1, 10)
    assert as_fraction(np.float64(0.1), "x", floats="decimal") == Fraction(1, 10)
    for value in ("0.1", Decimal("0.1"), Fraction(1, 10), "1/10"):  # exact under both rules
        assert as_fraction(value, "x", floats="decimal") == as_fraction(value, "x", floats="binary") == Fraction(1, 10)
    third = mpmath.mpf(1) / 3
    assert as_fraction(third, "x", floats="decimal") == Fraction(*third.man_exp[:1], 2 ** -third.man_exp[1])
    with pytest.raises(ValueError, match="floats must be one of decimal, binary"):
        as_fraction(0.1, "x", floats="nearest")
    with pytest.raises(TypeError):
        as_fraction(0.1, "x")  # the rule is never implicit


def test_bounded_reading_refuses_huge_magnitudes_and_computed_values_are_read_as_they_are():
    with pytest.raises(ValueError, match="out of the supported range"):
        as_fraction("1e5000", "rho", floats="decimal")
    tiny = mpmath.mpf("1e-5000")
    assert exact_rational(tiny) == as_fraction(tiny, "x", floats="binary", bounded=False) > 0
    with pytest.raises(ArithmeticError, match="non-finite"):
        exact_rational(float("nan"))
    with pytest.raises(TypeError):
        exact_rational("0.1")


def test_one_rule_for_certified_numbers_with_and_without_their_bound():
    value, bound = 0.123456789, 1.5e-6
    stored, stored_bound = certified_decimal(value, bound)
    printed = certified_digits(value, bound)
    # stored: one decade below the bound, the rounding inside the widened bound (an interval containing the first)
    assert abs(Fraction(stored) - exact_rational(value)) + exact_rational(bound) <= Fraction(stored_bound)
    # printed alone: only digits every number within the bound shares
    for x in (exact_rational(value) - exact_rational(bound), exact_rational(value) + exact_rational(bound)):
        assert round(x, len(printed.split(".")[1])) == Fraction(printed)
    assert len(printed) <= len(stored) and rounded_up(1e-13) == "1.1e-13"


def test_no_other_module_converts_numbers_to_fractions_by_its_own_rule():
    """Fraction(repr(x)), Fraction(str(x)) and Fraction(float(x)) were eight converters with two rules between them."""
    pattern = re.compile(r"Fraction\((repr|str|float)\(")
    found = [f"{p.relative_to(ROOT)}:{n}" for p in sorted((ROOT / "accountlib").rglob("*.py")) if p.name != "numbers.py"
             for n, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert not found, found
