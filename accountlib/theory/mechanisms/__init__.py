"""The mechanisms of the unifying paper as pairs of distributions, one module per family.

Theory layer of :mod:`accountlib`. Each mechanism has ``.cgf(t, s)``, ``.rho(s)``, ``.gap(t, s)``, ``.rdp(α, s)``
and ``.loss_cumulants(s)`` (:class:`~.base.NoiseMechanism`):

* :mod:`.base` — the base class, the supremum search, quadrature, and the composition of mechanisms;
* :mod:`.continuous` — :class:`~.continuous.Gaussian`, :class:`~.continuous.Laplace`,
  :class:`~.continuous.GaussianMixture`;
* :mod:`.heavy_tailed` — :class:`~.heavy_tailed.StudentT`, :class:`~.heavy_tailed.GeneralizedGaussian`;
* :mod:`.discrete` — :class:`~.discrete.DiscreteLaplace`, :class:`~.discrete.DiscreteGaussian`;
* :mod:`.subsampled` — :class:`~.subsampled.PoissonSubsampledGaussian`.

The names are available here (``from accountlib.theory.mechanisms import Laplace``); each module is imported when
one of its names is first used.
"""

from __future__ import annotations

import importlib

_MODULES = {
    "base": ("NoiseMechanism", "MechanismComposition", "QuadratureError", "GH_NODES"),
    "continuous": ("Gaussian", "Laplace", "GaussianMixture"),
    "heavy_tailed": ("QuadratureNoise", "StudentT", "GeneralizedGaussian"),
    "discrete": ("DiscreteLaplace", "DiscreteGaussian"),
    "subsampled": ("PoissonSubsampledGaussian", "sampled_gaussian_cgf", "sampled_gaussian_cgf_reference"),
}
_OWNER = {name: module for module, names in _MODULES.items() for name in names}

__all__ = [name for names in _MODULES.values() for name in names]


def __getattr__(name: str):
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    try:
        module = _OWNER[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_OWNER) | set(_MODULES))
