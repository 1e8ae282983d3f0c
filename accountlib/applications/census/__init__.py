"""The 2020 Census DHC application: allocations, the per-pair sweep, census-wide curves, the variance give-back.

Application layer of :mod:`accountlib`. Modules, each importing only those listed before it:

* :mod:`.allocations` — the 43 budget allocations (exact rationals) and their pairs;
* :mod:`.pair_files` — the sweep's per-pair result files and their integrity checks;
* :mod:`.jobs` — one job per pair for the generic executor, and :func:`run_dhc_sweep`;
* :mod:`.census_wide` — census-wide (ε, δ) and trade-off curves from the pair files;
* :mod:`.variance` — the certified variance reduction at the zCDP levels (sieve paper §5.3);
* :mod:`.calibration` — the smallest noise meeting a target census-wide (the worst pair deciding);
* :mod:`.pl94` — the 2020 redistricting data (P.L. 94-171): allocations per spine path and the certificates.

Every public name is re-exported here, so ``from accountlib.applications import census; census.load_allocation(13)``
keeps working.
"""

from .allocations import *  # noqa: F401,F403
from .allocations import __all__ as _allocations
from .allocations import parse_allocation  # noqa: F401  (used by tests)
from .calibration import *  # noqa: F401,F403
from .calibration import __all__ as _calibration
from .census_wide import *  # noqa: F401,F403
from .census_wide import __all__ as _census_wide
from .jobs import *  # noqa: F401,F403
from .jobs import __all__ as _jobs
from .pair_files import *  # noqa: F401,F403
from .pair_files import __all__ as _pair_files
from .pl94 import *  # noqa: F401,F403
from .pl94 import __all__ as _pl94
from .pl94 import parse_pl94_allocation, write_pl94_csvs  # noqa: F401  (used by tests)
from .variance import *  # noqa: F401,F403
from .variance import __all__ as _variance

__all__ = [*_allocations, *_pair_files, *_jobs, *_census_wide, *_variance, *_calibration, *_pl94]
