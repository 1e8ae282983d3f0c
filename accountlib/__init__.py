"""accountlib: exact privacy accounting for heterogeneous discrete Gaussian mechanisms.

The library behind the book *Exact privacy accounting*. Layers (README, "Layout"), each
importing only the ones above it:

1. :mod:`accountlib.discrete_gaussian` — one noise term N_Z(0, σ²).

Reproduction claims recorded by the chapters go through :mod:`accountlib.ledger`.
"""

__version__ = "0.1.0"
