"""Sphinx extension: the book's API reference page (``book/api``), rendered by autodoc, autosummary and napoleon.

At ``source-read`` the page ``book/api`` gets, below its introduction, MyST blocks of Sphinx directives generated
from the library itself: the front door (every name of ``accountlib.__all__``, linked to its entry in the module
that defines it), then each layer (``accountlib.infrastructure`` ... ``accountlib.cli``) with an autosummary table
of its public modules and each module's docstring and public names (``automodule``). The docstrings are numpy-style
with plain-text mathematics; :mod:`api_docstrings` prepares them for napoleon. Cross-references in them are
Sphinx's, so an unresolved one fails the ``-W -n`` build.
"""

from __future__ import annotations

import importlib

API_DOC = "book/api"

LAYERS = {
    "infrastructure": ("numbers", "shown", "interval_ends", "search", "atomic", "executor"),
    "engine": ("front", "reach", "work", "results", "lattice", "characteristic", "discrete_gaussian", "quadrature", "sieve", "tails",
               "tilted", "smoothed", "arithmetic", "subsampled_gaussian", "subsampled_gaussian_integral",
               "subsampled_gaussian_inversion", "subsampled_gaussian_bounds"),
    "theory": ("composition", "engine_choice", "accounting", "targets", "decision", "calibration", "gaussian_dp", "mechanisms",
               "mechanisms.base", "mechanisms.continuous", "mechanisms.heavy_tailed", "mechanisms.discrete",
               "mechanisms.subsampled", "conversions", "dpsgd_calibration", "pairs", "tradeoff_duality",
               "tradeoff_band", "edgeworth", "dpsgd_accounting", "dpsgd_arguments", "dpsgd_results", "dpsgd_tradeoff",
               "dpsgd_noise_calibration", "dpsgd_epsilon_search"),
    "applications": ("census", "census.allocations", "census.pair_files", "census.jobs", "census.census_wide",
                     "census.variance", "census.calibration", "census.pl94", "acs", "accountant", "dpsgd_accountant",
                     "dpsgd_targets", "dpsgd_upper", "opacus_accountant"),
    "cli": ("delta", "tradeoff", "epsilon", "calibrate", "allocate", "dpsgd", "sweep", "typed"),
}
"""Each layer's public modules, bottom to top (``accountlib.<layer>.<module>``); the packages ``mechanisms`` and
``census`` are listed for their docstrings, their modules after them. The re-export modules kept for old imports
(``theory.profiles``, ``theory.rdp``, ``infrastructure.certified_numbers``) are not: their names are shown where they
live."""

PACKAGES = ("theory.mechanisms", "applications.census")
"""Packages documented by their docstring only (their names are documented in their modules)."""

FORMER_NAMES = ("ShiftPair",)
"""Front-door names that are a second name for one already listed."""


def _block(directives: str) -> str:
    return f"\n```{{eval-rst}}\n{directives}\n```\n"


def api_markdown() -> str:
    """The generated part of the API page, MyST with ``eval-rst`` blocks."""
    accountlib = importlib.import_module("accountlib")
    entries = []
    for name in accountlib.__all__:
        if name in FORMER_NAMES:
            continue
        module, attribute = accountlib._EXPORTS[name]
        obj = getattr(accountlib, name)
        role = "class" if isinstance(obj, type) else "func" if callable(obj) else "data"
        entries.append(f"* :py:{role}:`accountlib.{name} <{module}.{attribute}>` — :py:mod:`{module}`")
    parts = ["\n## The front door: `import accountlib`\n",
             _block(".. py:currentmodule:: None\n\n.. automodule:: accountlib\n   :no-members:"),
             "\nThe names `import accountlib` re-exports, each linked to its entry in the module that defines it "
             f"(`accountlib.{FORMER_NAMES[0]}` is the former name of `accountlib.Composition`):\n",
             _block("\n".join(entries))]
    for layer, modules in LAYERS.items():
        package = f"accountlib.{layer}"
        parts.append(f"\n## `{package}`\n")
        table = "\n".join(f"   {m}" for m in modules)  # relative to the package, the current module
        members = ("   :members:\n   :undoc-members:\n   :ignore-module-all:" if layer == "cli"  # the CLI's common module
                   else "   :no-members:")
        parts.append(_block(f".. py:currentmodule:: None\n\n.. automodule:: {package}\n{members}\n\n"
                            f".. autosummary::\n   :nosignatures:\n\n{table}"))
        for m in modules:
            name = f"{package}.{m}"
            if f"{layer}.{m}" in PACKAGES:
                parts.append(_block(f".. automodule:: {name}\n   :no-members:"))
            else:
                parts.append(_block(f".. automodule:: {name}\n   :members:\n   :undoc-members:\n   :ignore-module-all:"))
    return "".join(parts)


def _inject(app, docname, source):
    if docname == API_DOC:
        source[0] += api_markdown()


def setup(app):
    app.connect("source-read", _inject)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
