"""Shared by both tiers: tests/library (the library alone: `make test-library`) and tests/book (the chapters,
the built book, the ledger, the DP-SGD experiment). The helper modules in tests/ (chapter_runs, cli_runs,
second_cpu, lock_file) are importable from both (pytest's ``pythonpath`` in pyproject.toml)."""

import mpmath
import pytest


@pytest.fixture
def high_precision():
    """For a test comparing library results at more than float precision: mpmath at 120 digits inside the test
    only (the library keeps its own precision local; a test that needs more asks for it)."""
    with mpmath.workdps(120):
        yield


# --- order: the longest chain first ----------------------------------------------------------------------
# A run's longest chain is the slowest chapter, then the book build, then the browser test. So the files
# that execute chapters start first, one on each xdist worker (test_book.py builds, test_chapters.py
# executes chapters beside it), the browser test follows the build on the building worker, and
# test_rendered_pages.py, which would wait for the build, comes last. xdist's loadfile would otherwise
# order files by their number of tests.
_FIRST = ("test_book.py", "test_chapters.py", "test_browser.py")
_LAST = ("test_rendered_pages.py",)


def pytest_configure(config):
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False  # keep the order set below


def pytest_collection_modifyitems(config, items):
    def rank(item):
        name = item.path.name
        return _FIRST.index(name) if name in _FIRST else len(_FIRST) + (name in _LAST)
    items.sort(key=rank)  # stable: the rest keep pytest's order
