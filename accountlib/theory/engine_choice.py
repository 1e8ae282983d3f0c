"""Which engine ``engine="auto"`` chooses for a composition: the lattice where its sieve and its arb work are
affordable, the smoothed engine beyond.

Theory layer of :mod:`accountlib`, used by :class:`accountlib.theory.composition.Composition` when it is built: the
limits on the lattice's candidate nodes (:data:`LATTICE_UP_TO`), quadrature nodes (:data:`LATTICE_NODES_UP_TO`) and
arb work (:func:`lattice_affordable`, estimated by :func:`lattice_work` and, where the estimate is near the limit,
counted by the sieve itself), and the lattice's node-bit limit when no other engine can take over
(:data:`AUTO_NODE_BITS`). Sieve paper §4.3 (the sieve's cost) and §5 (the lattice by Bézout).
"""

from __future__ import annotations

import math

from ..infrastructure.numbers import ResourceLimitError, resource_limit
from ..engine.quadrature import lattice_candidates, lattice_nodes, lattice_survivors


LATTICE_UP_TO = 2 * 10**7
"""``engine="auto"`` uses the lattice while its sieve would scan at most this many candidate nodes (an estimate at
Δ = 1e-30, :func:`accountlib.engine.quadrature.lattice_candidates`): every one of the 946 DHC pairs (the largest,
(31, 36), about 3.1e6), and 20 budgets on a 1e-6 grid (2.4e6); 20 budgets on a 1e-7 grid (5.5e7) and the
redistricting data's budgets (3.8e13) go to the smoothed engine."""

LATTICE_NODES_UP_TO = 10**10
"""... and while its quadrature needs at most this many nodes N at Δ = 1e-30 (:func:`accountlib.engine.quadrature.lattice_nodes`;
the lattice engines refuse N beyond 1.1e12): one tiny budget among coarse ones can keep the sieve's candidates few
while N is out of reach."""

LATTICE_WORK_UP_TO = 4 * 10**8
"""... and while the untilted engine at Δ = 1e-30 (where a δ request starts) stays within its own limit on arb work,
:data:`accountlib.engine.tails.MAX_NODE_BITS` (``ACCOUNTLIB_MAX_NODE_BITS``), the count that engine refuses by
(:func:`lattice_affordable`). The estimate :func:`lattice_work` (:func:`accountlib.engine.quadrature.lattice_survivors`
× working bits) has measured 1.3 to 3.2 times the sieve's count (DHC pairs (6, 6): 3.95e7 for 2.99e7; (6, 10), the
largest of the 946: 1.16e8 for 3.58e7; budgets 0.3 and 7/1000003: 2.45e8 for 1.36e8): at or below the limit the
lattice is taken, beyond this bound (four times the limit) the smoothed engine; in between, the sieve itself is run
at Δ = 1e-30 and its count decides where it scans at most :data:`SIEVE_CHECK_UP_TO` candidates, and the lattice is
taken where the sieve is dearer (DHC pair (6, 10), 3.2e6 candidates)."""

AUTO_NODE_BITS = 2 * 10**7
"""The lattice's node-bit limit under ``engine="auto"`` with a budget outside the smoothed range (``"lattice"``: 1e8, a
minute): about 8 s (budgets 9/2, 1/1000003: 4.1e7 took 18.9 s). ``ACCOUNTLIB_MAX_NODE_BITS``, where set, sets both."""
LIFTED = " (or pass engine='lattice', whose limit is 1e8 node-bits, about a minute)"

SIEVE_CHECK_UP_TO = 10**6
"""The most candidate nodes (:func:`accountlib.engine.quadrature.lattice_candidates`) for which ``engine="auto"``
runs the sieve to decide (:func:`lattice_affordable`): about 1 s for budgets 0.3 and 7/1000003 (6.4e5), where DHC
pair (6, 10) (3.2e6) took 17 s on a loaded two-core machine."""


def lattice_work(lattice) -> float:
    """The estimated node-bits of the untilted engine at Δ = 1e-30 (:data:`LATTICE_WORK_UP_TO`)."""
    nodes = lattice_nodes(lattice)
    return lattice_survivors(lattice) * (math.ceil(-math.log2(1e-30) + math.log2(max(nodes, 2))) + 64)


def lattice_affordable(lattice) -> bool:
    """Whether the untilted engine at Δ = 1e-30 would take on ``lattice`` within its node-bit limit (it refuses
    beyond it, :class:`~accountlib.infrastructure.numbers.ResourceLimitError`): decided by the estimate :func:`lattice_work`
    where it is at most the limit or beyond :data:`LATTICE_WORK_UP_TO`, by the engine's own count
    (:func:`accountlib.engine.tails.sieve_node_bits`, which runs the sieve) in between where the sieve scans at most
    :data:`SIEVE_CHECK_UP_TO` candidates (taken as affordable where it scans more)."""
    return lattice_decision(lattice)[0]


def lattice_decision(lattice) -> tuple[bool, object]:
    """(:func:`lattice_affordable`, the sieve it ran at Δ = 1e-30 or None): the sieve is handed to the lattice
    engine built at that Δ (:class:`~accountlib.engine.front.CertifiedTails`), which then does not sieve again."""
    from ..engine.tails import MAX_NODE_BITS, sieved_node_bits  # the arb engine's module: imported only when needed

    limit = resource_limit("ACCOUNTLIB_MAX_NODE_BITS", MAX_NODE_BITS)
    work = lattice_work(lattice)
    if work <= limit:
        return True, None
    if work > max(LATTICE_WORK_UP_TO, 4 * limit):
        return False, None
    if lattice_candidates(lattice) > SIEVE_CHECK_UP_TO:
        return True, None
    try:
        sieve, work = sieved_node_bits(lattice, 1e-30)
    except ResourceLimitError:
        return False, None
    return work <= limit, sieve
