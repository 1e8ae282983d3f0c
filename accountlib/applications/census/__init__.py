"""The 2020 Census DHC application: allocations, the per-pair sweep, census-wide curves, the variance give-back.

Application layer of :mod:`accountlib`. Modules, each importing only those listed before it:

* :mod:`.allocations` — the 43 budget allocations (exact rationals) and their pairs;
* :mod:`.pair_files` — the sweep's per-pair result files and their integrity checks;
* :mod:`.jobs` — one job per pair for the generic executor, and :func:`~accountlib.applications.census.jobs.run_dhc_sweep`;
* :mod:`.census_wide` — census-wide (ε, δ) and trade-off curves from the pair files;
* :mod:`.variance` — the certified variance reduction at the zCDP levels (sieve paper §5.3);
* :mod:`.calibration` — the smallest noise meeting a target census-wide (the worst pair deciding);
* :mod:`.pl94` — the 2020 redistricting data (P.L. 94-171): allocations per spine path and the certificates.

Every public name is available here, so ``from accountlib.applications import census; census.load_allocation(13)``
keeps working; a module is imported when one of its names is first used (PEP 562), so importing one module of the
package (the command line's ``--release`` reads :mod:`.pl94` only) does not import the others.
"""

from __future__ import annotations

import importlib

_MODULES = {
    "allocations": ("ALLOCATIONS", "TOTAL_RHO", "check_allocation", "load_allocation", "pair_rhos", "all_pairs",
                    "delta_levels", "MAX_DELTA_EXPONENT", "parse_allocation"),
    "pair_files": ("pair_paths", "manifest_path", "check_pair_files", "pair_status", "EPS_DELTA_HEADER",
                   "TRADEOFF_HEADER", "JOB_DEFAULTS", "certified_decimal", "inward_slope", "epsilon_text"),
    "jobs": ("pair_job", "run_dhc_sweep", "tradeoff_indices", "allocation_weight", "order_by_cost"),
    "census_wide": ("read_pair_curves", "available_pairs", "census_eps_delta", "census_tradeoff",
                    "write_census_results", "read_census_tradeoff", "delta_contenders", "CENSUS_TRADEOFF_HEADER"),
    "variance": ("VARIANCE_LEVELS", "scaled_delta", "smallest_variance_scale", "delta_at_reduction",
                 "tradeoff_on_grid", "epsilon_for_delta", "variance_reduction_table", "VARIANCE_REDUCTION_HEADER",
                 "largest_delta_pairs", "read_variance_reduction", "binding_pairs", "reduction_bracket",
                 "GEOGRAPHIC_LEVELS", "level_budgets", "level_variance_reductions", "proxy_gaps"),
    "calibration": ("CensusCalibration", "calibrate_census"),
    "pl94": ("PL94_RELEASES", "pl94_paths", "pl94_allocation", "pl94_rhos", "certificate", "bureau_epsilon",
             "derive_pl94_allocation", "pl94_pair_deltas", "pl94_worst_epsilon", "PathPairDelta", "WorstCase",
             "parse_pl94_allocation", "write_pl94_csvs"),
}
_OWNER = {name: module for module, names in _MODULES.items() for name in names}

__all__ = [name for names in _MODULES.values() for name in names if not name.startswith("parse_")
           and name != "write_pl94_csvs"]


def __getattr__(name: str):
    if name in _MODULES:  # a submodule, as an attribute of the package
        return importlib.import_module(f"{__name__}.{name}")
    try:
        module = _OWNER[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_OWNER) | set(_MODULES))
