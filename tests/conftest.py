import mpmath
import pytest


@pytest.fixture(autouse=True)
def _high_precision_comparisons():
    """Library results carry their own precision; comparisons in tests must not round them to 15 digits."""
    with mpmath.workdps(120):
        yield
