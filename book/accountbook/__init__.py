"""accountbook: the machinery of the book *Exact privacy accounting*, built on :mod:`accountlib`.

What the book needs and a user of the library does not:

* :mod:`accountbook.ledger` — the reproduction ledger: each claim of the two papers beside the value a chapter
  computed, with a verdict;
* :mod:`accountbook.notebook_sweep` — a chapter run with papermill over a parameter grid (``sweep notebook``);
* :mod:`accountbook.sweeps` — the book's sweep targets of ``python -m accountlib sweep`` (``dpsgd``,
  ``notebook``), registered as entry points;
* :mod:`accountbook.explorers` — the chapters' interactive explorers and their precomputed pages;
* :mod:`accountbook.dpsgd` — the DP-SGD experiment on Fashion-MNIST (the chapter "DP-SGD: what zCDP costs in accuracy").

This package imports :mod:`accountlib`; the library never imports it (an import-linter contract).
"""

__version__ = "0.1.0"
