"""Claims of the two papers that no chapter computes: each a short computation with the library, recorded in the
ledger like a chapter's claims (:func:`accountbook.ledger.reproduce`).

The checks live by paper: :mod:`accountbook.claims_sieve` (the census comparisons, Algorithm 1, the allocation
tables, the discrete Gaussian, the released curves) and :mod:`accountbook.claims_unifying` (the mechanisms, the
examples, the conversions), each comparing the library with the independent references of
:mod:`accountbook.references`. Every function returns what :func:`record` passes to the ledger for its claims:
``{id: value}``, a value being ``ours`` or a dict with ``ours``, the computed ``paper`` of a bound and the
``fields`` filled into the claim's texts (``accountbook/data/claims.toml``). Each computation can fail: an inequality
the paper states is compared as an inequality, with what we computed, never with a value written here. Run
``python -m accountbook.claim_checks`` to rewrite the ledger's entries (only entries that changed are written; see
:func:`accountbook.ledger.record`); ``tests/book/test_ledger.py`` recomputes them and checks that the committed
ledger says the same. The whole set takes about two minutes of CPU time on this machine (most of it the unifying
paper's mpmath quadratures; the sieve audit's checks and the released curves about half a minute).
"""

from __future__ import annotations

from pathlib import Path

from . import ledger
from .claims_sieve import (NOT_REPRODUCIBLE_HERE, RELEASED, RELEASED_CHECKS, RELEASED_DEEP_LEVELS,  # noqa: F401
                           SIEVE_AUDIT_CHECKS, dhc_folder, exact_delta_below_zcdp, exact_tradeoff_above_zcdp,
                           pair_spread, proxy_gaps, released_eps_delta_against_certified, released_rows,
                           released_tradeoff_against_certified, sieve_figure3_spread, sieve_order,
                           variance_reduction_per_level)
from .claims_unifying import (UNIFYING_NOT_REPRODUCIBLE, discrete_gaussian_gap, laplace_phi1, lemma_b1,
                              rho_at_the_endpoint, rho_star_below_rho_sum, subsampled_k1, symmetric_noise,
                              theorem31_remainder, unifying_audit_claims)

__all__ = ["dhc_folder", "variance_reduction_per_level", "rho_star_below_rho_sum", "proxy_gaps",
           "exact_delta_below_zcdp", "exact_tradeoff_above_zcdp", "laplace_phi1", "lemma_b1",
           "discrete_gaussian_gap", "sieve_order", "theorem31_remainder", "rho_at_the_endpoint",
           "pair_spread", "subsampled_k1", "symmetric_noise", "released_eps_delta_against_certified",
           "released_tradeoff_against_certified", "released_rows", "unifying_audit_claims", "all_claims",
           "record"]


def all_claims(folder: Path | None = None) -> dict:
    """Every claim computed outside the chapters, id → what :func:`record` passes to the ledger (both papers)."""
    out = {}
    for compute in (variance_reduction_per_level, rho_star_below_rho_sum, laplace_phi1, lemma_b1,
                    discrete_gaussian_gap, sieve_order, theorem31_remainder, rho_at_the_endpoint,
                    subsampled_k1, symmetric_noise, unifying_audit_claims):
        out.update(compute())
    for compute in (proxy_gaps, exact_delta_below_zcdp, exact_tradeoff_above_zcdp, pair_spread):
        out.update(compute(folder))
    for compute in SIEVE_AUDIT_CHECKS:
        out.update(compute())
    out.update(sieve_figure3_spread(folder))
    for compute in RELEASED_CHECKS:
        out.update(compute())
    return out


def record(path: Path | None = None, folder: Path | None = None) -> list[dict]:
    """Compute every claim and record it in the ledger ``path`` (default :func:`accountbook.ledger.recording_path`:
    nowhere unless ``$ACCOUNTLIB_RESULTS`` is set)."""
    return ledger.reproduce(all_claims(folder), not_reproducible=(*NOT_REPRODUCIBLE_HERE, *UNIFYING_NOT_REPRODUCIBLE),
                            path=path)


if __name__ == "__main__":  # the explicit command: records in the book's ledger (results/ledger.json)
    for entry in record(path=ledger.ledger_path()):
        print(f"{entry['verdict']:>22}  {entry['id']}: ours {entry['ours']} against {entry['paper']}")
