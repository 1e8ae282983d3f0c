"""Certified numbers as decimal strings (the former home of the rule; deprecated): re-exported from
:mod:`accountlib.infrastructure.numbers`, where the library's one number policy lives."""

from .numbers import as_string, certified_decimal, certified_digits, exact_rational, floor_log10

__all__ = ["certified_decimal", "certified_digits", "exact_rational", "as_string", "floor_log10"]
