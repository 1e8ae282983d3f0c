"""accountlib: exact privacy accounting for heterogeneous discrete Gaussian mechanisms.

The library behind the book *Exact privacy accounting*. Four layers, each importing only the layers
below it (checked by import-linter in ``make test``; see the README, "Layout"):

* :mod:`accountlib.cli` — ``python -m accountlib ...`` (top);
* :mod:`accountlib.applications` — the 2020 Census DHC (:mod:`~accountlib.applications.census`), ACS-sized
  releases (:mod:`~accountlib.applications.acs`), DP-SGD (:mod:`~accountlib.applications.dpsgd`) and the
  book's explorers; each owns its jobs and hands them to the generic executor;
* :mod:`accountlib.theory` — privacy curves of a pair (profiles, pairs), conversions, RDP/zCDP and the gap
  Γ, the Edgeworth expansion;
* :mod:`accountlib.engine` — certified tail probabilities of weighted sums of discrete Gaussians: the noise
  term, the lattice, quadrature, the sieve and the evaluators, behind one front door;
* :mod:`accountlib.infrastructure` — numbers and validation, atomic files, the generic executor, papermill
  sweeps, the reproduction ledger (bottom: no privacy knowledge).

The modules keep their short names as well: ``from accountlib import census, rdp`` and
``import accountlib.discrete_gaussian`` resolve to the modules in the layers above (:data:`MODULES`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__version__ = "0.1.0"

#: short name → the module it names, relative to this package
MODULES = {
    "discrete_gaussian": "engine.discrete_gaussian",
    "lattice": "engine.lattice",
    "quadrature": "engine.quadrature",
    "sieve": "engine.sieve",
    "tails": "engine.front",  # the front door; the untilted evaluator is engine.tails
    "tilted": "engine.tilted",
    "profiles": "theory.profiles",
    "tradeoff_band": "theory.tradeoff_band",
    "pairs": "theory.pairs",
    "conversions": "theory.conversions",
    "rdp": "theory.rdp",
    "edgeworth": "theory.edgeworth",
    "census": "applications.census",
    "acs": "applications.acs",
    "dpsgd": "applications.dpsgd",
    "explorers": "applications.explorers",
    "sweep": "applications.census",
    "ledger": "infrastructure.ledger",
}


class _ShortNames(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Import ``accountlib.<short name>`` as the module it names (one module object, two names)."""

    def find_spec(self, fullname, path=None, target=None):
        package, _, short = fullname.rpartition(".")
        if package == __name__ and short in MODULES:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module(f"{__name__}.{MODULES[spec.name.rpartition('.')[2]]}")
        spec.loader_state = module.__spec__  # importlib sets module.__spec__ to the alias spec next
        return module

    def exec_module(self, module):  # the module named is already executed; give it back its own spec
        module.__spec__ = module.__spec__.loader_state


if not any(isinstance(finder, _ShortNames) for finder in sys.meta_path):
    sys.meta_path.append(_ShortNames())


def __getattr__(name: str):
    if name in MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *MODULES])
