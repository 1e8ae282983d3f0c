"""Privacy-loss cumulant generating functions, optimal zCDP and the zCDP–RDP gap (a re-export module).

The mechanisms live in :mod:`accountlib.theory.mechanisms`, one module per family (:mod:`~.mechanisms.continuous`,
:mod:`~.mechanisms.heavy_tailed`, :mod:`~.mechanisms.discrete`, :mod:`~.mechanisms.subsampled`, on the base class of
:mod:`~.mechanisms.base`); their names are re-exported here, where the chapters and users found them before. The
conversions of the unifying paper's §3.2 and C_δ[U] of §5 live in :mod:`accountlib.theory.conversions`:
``rdp_to_epsilon(lambda a: K(a - 1)/(a - 1), delta)`` is ε_R of a CGF K; the DP-SGD calibration of §5.2 is
:mod:`accountlib.theory.dpsgd_calibration`.
"""

from .mechanisms.base import GH_NODES, MechanismComposition, NoiseMechanism, QuadratureError, logsumexp, sup_ratio
from .mechanisms.continuous import Gaussian, GaussianMixture, Laplace
from .mechanisms.discrete import DiscreteGaussian, DiscreteLaplace
from .mechanisms.heavy_tailed import GeneralizedGaussian, QuadratureNoise, StudentT
from .mechanisms.subsampled import PoissonSubsampledGaussian, sampled_gaussian_cgf, sampled_gaussian_cgf_reference

__all__ = [
    "NoiseMechanism", "Gaussian", "Laplace", "GaussianMixture", "StudentT", "GeneralizedGaussian",
    "DiscreteLaplace", "DiscreteGaussian", "PoissonSubsampledGaussian", "MechanismComposition",
    "sampled_gaussian_cgf", "sampled_gaussian_cgf_reference", "QuadratureError", "GH_NODES", "QuadratureNoise",
    "logsumexp", "sup_ratio",
]
