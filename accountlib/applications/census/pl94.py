"""The 2020 redistricting data (P.L. 94-171): budget allocations and certificates, derived from the production code.

Application layer of :mod:`accountlib`. Source: the U.S. Census Bureau's public production code,
``uscensusbureau/DAS_2020_Redistricting_Production_Code`` at commit 289ee463936a6f0efcf2e378abe410ec01d0e140
(the certificates print das_decennial commit fa92d2fd3ca5dc194efce4f4176fe64a0eec474a); file and line of every
factor are in ``accountlib/data/pl94_allocations/README.md``. Nothing of that code is copied here: the tables
below hold its numbers, and the allocation is derived from them with the Bureau's rules, which are

* a measurement of query q at a geounit of level g adds discrete Gaussian noise of variance
  σ² = global_scale² / (p_g·s_{g,q}) to every cell (``engine_utils.py`` 484-492, ``primitives.py`` 199-209),
  p_g the geounit's share (``geolevel_budget_prop``) and s_{g,q} the query's share (``strategies.py``);
* the neighbours are "modify one record" (``bounded_dp=True``, ``engine_utils.py`` 536; ``curve.py`` 12-26):
  every query, a marginal with unit L2 sensitivity per record (``primitives.py`` 66-68, 186-189), moves two
  cells by one, Δ₂² = 2, and the Bureau's ρ of the measurement is Δ₂²/(2σ²) = p_g·s_{g,q}/global_scale²
  (``curve.py`` 147-168); the certificate's total is Σ = 1/global_scale² (``budget.py`` 160);
* the optimised spine (``spine = opt_spine``) hands a geounit with one child the child's share and measures the
  child not at all (``optimize_spine.py`` 275-328 and 352-353, ``define_spines.py`` 369-389), so a block's
  path may have levels whose share moved up to the level above: the split changes, the total does not.

In :class:`accountlib.theory.composition.Composition`'s convention a budget ρ_i is the precision 1/σ_i² of a cell
moved by one (the pair's zCDP ρ is Σρ_i/2), which is the Bureau's per-measurement ρ (Δ₂² = 2). A modified
record moves one cell down in its old block's geounits and one cell up in its new block's: each measurement is
one term on the old block's path and one on the new block's, so :func:`pl94_rhos` lists path ``path`` followed
by path ``other`` (by default the same path again: the record keeps its block, or moves to a block of the same
pattern) and ``Composition(pl94_rhos(...)).rho`` is the certificate's ρ for every pair. Which pair is the
worst in (ε, δ) is not decided here: zCDP cannot tell the pairs apart, the exact curves can (evaluate the pairs).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
import re
from fractions import Fraction
from functools import lru_cache

import mpmath
from importlib import resources

__all__ = ["PL94_RELEASES", "pl94_paths", "pl94_allocation", "pl94_rhos", "certificate", "bureau_epsilon",
           "derive_pl94_allocation", "pl94_pair_deltas", "pl94_worst_epsilon", "PathPairDelta", "WorstCase"]

F = Fraction

PL94_RELEASES = ("pl94-persons", "pl94-units", "pl94-persons-pr", "pl94-units-pr")
"""The four certified runs: US persons, US housing units, Puerto Rico persons, Puerto Rico housing units
(``docs/certificates/DAS-PL94171-PRODUCTION-RUN1A-202106241420-{US,PR}-{Persons,Units}.certificate.pdf``)."""

_PERSON_QUERIES = ("total", "cenrace", "hispanic", "votingage", "hhinstlevels", "hhgq", "hispanic * cenrace",
                   "votingage * cenrace", "votingage * hispanic", "votingage * hispanic * cenrace", "detailed")


def _shares(*values):
    return tuple(F(v) if v is not None else None for v in values)


# Query shares per geolevel, in _PERSON_QUERIES order (None: the query is not measured at that level).
# US: strategies.py ProductionCandidate20210527US_mult8_add02_dsepJune3, lines 886 (US), 891 (State),
# 896 (County), 901 (Tract), 906 (Block_Group), 911 (Block).
_US_PERSON_SHARES = {
    "US": _shares(None, "52/4097", "26/4097", "26/4097", "26/4097", "26/4097", "130/4097", "130/4097", "26/4097",
                  "26/241", "189/241"),
    "State": _shares("3773/4097", "6/4097", "6/4097", "6/4097", "6/4097", "6/4097", "12/4097", "12/4097", "6/4097",
                     "2/241", "230/4097"),
    "County": _shares("3126/4097", "10/4097", "10/4097", "10/4097", "10/4097", "10/4097", "28/4097", "28/4097",
                      "10/4097", "101/4097", "754/4097"),
    "Tract": _shares("1567/4102", "4/2051", "5/4102", "5/4102", "5/4102", "5/4102", "1933/4102", "10/2051", "5/4102",
                     "67/4102", "241/2051"),
    "Block_Group": _shares("1705/4099", "3/4099", "3/4099", "3/4099", "3/4099", "3/4099", "1055/4099", "9/4099",
                           "3/4099", "24/4099", "1288/4099"),
    "Block": _shares("5/4097", "9/4097", "5/4097", "5/4097", "5/4097", "5/4097", "21/4097", "21/4097", "5/4097",
                     "71/4097", "3945/4097"),
}
# PR: strategies.py ProductionCandidate20210527PR_mult8_add02_dsepJune3, lines 1439 (State), 1444 (County),
# 1449 (Tract), 1455 (Block_Group), 1460 (Block).
_PR_PERSON_SHARES = {
    "State": _shares(None, "11/108", "11/108", "11/108", "11/108", "11/108", "53/513", "53/513", "11/108", "56/513",
                     "25/342"),
    "County": _US_PERSON_SHARES["County"],
    "Tract": _shares("1467/4102", "13/4102", "1/586", "1/586", "1/586", "1/586", "866/2051", "15/2051", "1/586",
                     "50/2051", "725/4102"),
    "Block_Group": _shares("1876/4103", "4/4103", "4/4103", "4/4103", "4/4103", "4/4103", "749/4103", "10/4103",
                           "4/4103", "27/4103", "1417/4103"),
    "Block": _US_PERSON_SHARES["Block"],
}

_US_LEVELS = ("US", "State", "County", "Tract", "Block_Group", "Block")
_PR_LEVELS = _US_LEVELS[1:]

# release -> (geolevels top-down, geolevel shares, query names, query shares per level, global_scale)
_RELEASES = {
    # person_US.ini line 29 (geolevel_budget_prop, top-down), person_default.ini line 70 (global_scale)
    "pl94-persons": (_US_LEVELS, _shares("104/4099", "1440/4099", "447/4099", "687/4099", "1256/4099", "165/4099"),
                     _PERSON_QUERIES, _US_PERSON_SHARES, F(339, 542)),
    # unit_US.ini / unit_default.ini, not in the repository: as printed in the US Units certificate (pages 5 and 9)
    "pl94-units": (_US_LEVELS, _shares("1/205", "1/205", "7/82", "364/1025", "1759/4100", "99/820"),
                   ("detailed",), {level: (F(1),) for level in _US_LEVELS}, F(12343, 3379)),
    # person_PR.ini, not in the repository: as printed in the PR Persons certificate (pages 5 and 10-11)
    "pl94-persons-pr": (_PR_LEVELS, _shares("689/4099", "695/4099", "772/4099", "1778/4099", "165/4099"),
                        _PERSON_QUERIES, _PR_PERSON_SHARES, F(339, 542)),
    # unit_PR.ini: as printed in the PR Units certificate (pages 5 and 9)
    "pl94-units-pr": (_PR_LEVELS, _shares("5047/876580", "18746/219145", "94451/262974", "281911/657435", "99/820"),
                      ("detailed",), {level: (F(1),) for level in _PR_LEVELS}, F(12343, 3379)),
}

# The certificates' "Formal privacy framework parameters" (page 5 of each), as printed.
_CERTIFICATES = {
    "pl94-persons": ("293764/114921", "2.56", "17849145/1041158", "17.14"),
    "pl94-units": ("11417641/152349649", "0.07", "1455307/588081", "2.47"),
    "pl94-persons-pr": ("293764/114921", "2.56", "17849145/1041158", "17.14"),
    "pl94-units-pr": ("11417641/152349649", "0.07", "1455307/588081", "2.47"),
}
_DELTA = F(1, 10**10)  # approx_dp_delta = 1e-10, prod_default.ini line 63; printed "δ = 1/10000000000 (1×10^-10)"

# The levels whose share can move up to the level above (a geounit with a single child at that level):
# Block -> Block_Group, Block_Group -> Tract (optimize_spine.py 310-315, 352-353), Tract -> County
# (the county bypass, same lines, through the always-bypassed tract groups, 560), County -> State
# (define_spines.py 380-386). A State never moves into the US (the US has more than one state geounit), nor in
# Puerto Rico a County into the State (78 municipios).
_ABSORBABLE = ("County", "Tract", "Block_Group", "Block")


def _check_release(release) -> str:
    if not isinstance(release, str) or release not in _RELEASES:
        raise ValueError(f"release must be one of {', '.join(PL94_RELEASES)}; got {release!r}")
    return release


def _path_name(absorbed) -> str:
    return "plain" if not absorbed else "absorbed-" + "-".join(level for level in _ABSORBABLE if level in absorbed)


def pl94_paths(release) -> list[str]:
    """The distinct allocations the optimised spine can give a block's path, ``"plain"`` (the geographic levels
    with their configured shares) first, then ``"absorbed-L1-L2..."``: the listed levels' shares moved to the level
    above (measured there with that level's query shares; the listed levels are not measured).

    >>> paths = pl94_paths("pl94-persons"); len(paths), paths[0], paths[-1]
    (16, 'plain', 'absorbed-County-Tract-Block_Group-Block')
    >>> len(pl94_paths("pl94-units-pr"))
    8
    """
    levels = _RELEASES[_check_release(release)][0]
    # a County moves into the State only where there is a US above (Puerto Rico's State has 78 municipios)
    absorbable = [level for level in _ABSORBABLE if levels[0] == "US" or level != "County"]
    names = []
    for mask in range(2 ** len(absorbable)):
        names.append(_path_name({level for i, level in enumerate(absorbable) if mask >> i & 1}))
    return sorted(names, key=lambda name: (name != "plain", name.count("-"), [
        _ABSORBABLE.index(part) for part in name.split("-")[1:]]))


def _check_path(release: str, path, name: str = "path") -> str:
    if not isinstance(path, str) or path not in pl94_paths(release):
        raise ValueError(f"{name} must be one of the {len(pl94_paths(release))} paths of {release} "
                         f"(pl94_paths({release!r})); got {path!r}")
    return path


def derive_pl94_allocation(release, path="plain") -> list[tuple[str, str, Fraction]]:
    """The measurements of one block's path, derived from the Bureau's factors: ``(geolevel, query, ρ)`` top-down,
    ρ = p_g·s_{g,q}/global_scale² (the Bureau's per-measurement ρ with Δ₂² = 2), only the measured ones.

    >>> rows = derive_pl94_allocation("pl94-units"); len(rows), rows[0]
    (6, ('US', 'detailed', Fraction(11417641, 31231678045)))
    """
    release = _check_release(release)
    path = _check_path(release, path)
    levels, geo_shares, queries, query_shares, scale = _RELEASES[release]
    absorbed = set(path.split("-")[1:])
    share = dict(zip(levels, geo_shares))
    for level in reversed(levels):  # bottom-up, as the spine moves shares (a chain of moves adds up)
        if level in absorbed:
            parent = levels[levels.index(level) - 1]
            share[parent] += share[level]
            share[level] = F(0)
    rows = []
    for level in levels:
        if not share[level]:
            continue
        for query, q in zip(queries, query_shares[level]):
            if q:
                rows.append((level, query, share[level] * q / scale ** 2))
    return rows


def _file(release: str, path: str):
    return resources.files("accountlib") / "data" / "pl94_allocations" / f"{release.replace('-', '_')}_{path}.csv"


def parse_pl94_allocation(text: str, source: str = "allocation") -> list[tuple[str, str, Fraction]]:
    """Parse one allocation CSV (header ``geolevel,query,rho``; ρ an exact positive fraction)."""
    rows = list(csv.reader(text.strip().splitlines()))
    if not rows or rows[0] != ["geolevel", "query", "rho"]:
        raise ValueError(f"{source}: the header must be geolevel,query,rho; got {rows[0] if rows else 'nothing'}")
    parsed = []
    for r, row in enumerate(rows[1:], start=1):
        if len(row) != 3 or not re.fullmatch(r"\d+/\d+", row[2].strip()):
            raise ValueError(f"{source}: row {r} must be geolevel,query,numerator/denominator; got {row}")
        value = F(row[2].strip())
        if value <= 0:
            raise ValueError(f"{source}: row {r}: the budget must be positive; got {row[2]!r}")
        parsed.append((row[0], row[1], value))
    return parsed


@lru_cache(maxsize=None)
def _load(release: str, path: str) -> tuple:
    file = _file(release, path)
    return tuple(parse_pl94_allocation(file.read_text(encoding="utf-8"), source=file.name))


def pl94_allocation(release, path="plain") -> list[tuple[str, str, Fraction]]:
    """One path's measurements ``(geolevel, query, ρ)`` as stored in ``accountlib/data/pl94_allocations``.

    >>> rows = pl94_allocation("pl94-persons"); len(rows), sum(r for _, _, r in rows)
    (65, Fraction(293764, 114921))
    """
    release = _check_release(release)
    return list(_load(release, _check_path(release, path)))


def pl94_rhos(release, path="plain", other=None) -> list[Fraction]:
    """The budgets of one modified record, for :class:`~accountlib.theory.composition.Composition`: the measurements
    of the old block's path ``path`` followed by those of the new block's path ``other`` (default: ``path``).

    >>> rhos = pl94_rhos("pl94-persons"); len(rhos), len(set(rhos)), sum(rhos) / 2
    (130, 33, Fraction(293764, 114921))
    >>> len(pl94_rhos("pl94-units", "plain", "absorbed-Block"))
    11
    """
    release = _check_release(release)
    path = _check_path(release, path)
    other = path if other is None else _check_path(release, other, "other")
    return [r for _, _, r in _load(release, path)] + [r for _, _, r in _load(release, other)]


def certificate(release) -> dict:
    """The certificate's published parameters, as printed: ``rho`` and ``epsilon`` as exact fractions with their
    printed two-decimal approximations (``rho_printed``, ``epsilon_printed``), and ``delta`` (1/10^10).

    >>> c = certificate("pl94-persons"); c["rho"], c["epsilon_printed"], c["delta"]
    (Fraction(293764, 114921), '17.14', Fraction(1, 10000000000))
    """
    rho, rho_printed, epsilon, epsilon_printed = _CERTIFICATES[_check_release(release)]
    return {"rho": F(rho), "rho_printed": rho_printed, "epsilon": F(epsilon), "epsilon_printed": epsilon_printed,
            "delta": _DELTA, "delta_printed": "1/10000000000"}


def bureau_epsilon(release) -> Fraction:
    """The total ε the Bureau prints, recomputed its way (``budget.py`` 129-131 and 151-155; ``curve.py`` 147-199
    and 245-269): the float ρ = Σ 1/(global_scale²·(1/(p_g·s_{g,q}))) over the configured allocation, δ(ε) the
    bound of Canonne, Kamath & Steinke (2020), Cor. 13, δ = exp(g(α*)) with g(α) = (α−1)(αρ−ε) + α·log(1−1/α)
    − log(α−1) and α* the root of g' (scipy's bisection on [max((ε+ρ)/2ρ, 1), max((ε+ρ+1)/2ρ, 2)]); ε the
    bisection of δ(ε) = 1e-10 on [0, 10·2^k] to width 1e-7, its lower end; then the best upper rational
    approximation with denominator at most 2^20 (``discrete_gaussian_utility.py`` 211-302, ``constants.py`` 62).

    The same conversion is :func:`accountlib.theory.conversions.zcdp_epsilon_via_rdp` (c_t = (α−1)^{α−1}/α^α is
    the factor exp(α·log(1−1/α) − log(α−1))), which the tests compare.

    >>> bureau_epsilon("pl94-persons")
    Fraction(17849145, 1041158)
    """
    import numpy as np
    from scipy import optimize

    levels, geo_shares, _, query_shares, scale = _RELEASES[_check_release(release)]
    # the Curve's scales, in the order of budget.py 147-149 and curve.py 320-323; bounded: twice (curve.py 157)
    hit = 0
    for level, p in zip(levels, geo_shares):
        for q in query_shares[level]:
            if q is not None:
                hit += 1.0 / ((scale ** 2) * float(1.0 / (p * q)))
    hit = np.sqrt(hit * 2.0)
    rho = hit * hit / 2.0

    def delta_of(eps):
        def g(a):
            return (a - 1.0) * (a * rho - eps) + a * np.log(1 - 1.0 / a) - np.log(a - 1)

        def g_prime(a):
            return (2 * a - 1) * rho - eps + np.log(1 - 1.0 / a)

        lo, hi = max((eps + rho) / (2 * rho), 1), max((eps + rho + 1) / (2 * rho), 2)
        with np.errstate(divide="ignore"):  # g'(1) = -inf, as in the Bureau's search (curve.py 188-189)
            return np.exp(g(optimize.bisect(f=g_prime, a=lo, b=hi, maxiter=1000)))

    delta = float(_DELTA)
    if delta >= delta_of(0.0):
        return F(0)
    up = 10.0
    while delta < delta_of(up):
        up *= 2.0
    low = 0.0
    while abs(low - up) > 1e-7:
        mid = (low + up) / 2.0
        d = delta_of(mid)
        if delta > d:
            up = mid
        elif delta < d:
            low = mid
        else:
            low = up
    return _best_upper(F(low), 1048576)


def _best_upper(x: Fraction, max_denominator: int) -> Fraction:
    """The smallest fraction ≥ x among those with denominator ≤ max_denominator, from the convergents and
    semiconvergents of x's continued fraction (the Bureau's ``limit_denominator(..., mode="upper")``)."""
    if x.denominator <= max_denominator:
        return x
    p0, q0, p1, q1 = 0, 1, 1, 0
    n, d = x.numerator, x.denominator
    while True:
        a = n // d
        if q0 + a * q1 > max_denominator:
            break
        p0, q0, p1, q1 = p1, q1, p0 + a * p1, q0 + a * q1
        n, d = d, n - a * d
    k = (max_denominator - q0) // q1
    candidates = (F(p0 + k * p1, q0 + k * q1), F(p1, q1))
    return min(c for c in candidates if c >= x)


def write_pl94_csvs(directory) -> list[str]:
    """Write every release's paths as ``<release>_<path>.csv`` into ``directory`` (how the data were made)."""
    from pathlib import Path

    written = []
    for release in PL94_RELEASES:
        for path in pl94_paths(release):
            name = f"{release.replace('-', '_')}_{path}.csv"
            lines = ["geolevel,query,rho"] + [f"{g},{q},{r.numerator}/{r.denominator}"
                                              for g, q, r in derive_pl94_allocation(release, path)]
            (Path(directory) / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
            written.append(name)
    return written



# -- the worst pair of paths ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PathPairDelta:
    """δ(ε) of one modified record whose old and new blocks have paths ``path`` and ``other``."""

    path: str
    other: str
    point: object  # accountlib.theory.composition.DeltaPoint


@dataclass(frozen=True)
class WorstCase:
    """The release's ε at ``delta``, worst case over every pair of paths: the release is (``upper``, δ)-DP for
    every pair (``checked`` pairs certified at ``upper``), and not (``lower``, δ)-DP (pair ``pair`` fails there)."""

    release: str
    delta: Fraction
    lower: Fraction
    upper: Fraction
    pair: tuple
    checked: int


def pl94_pair_deltas(release, epsilon, *, rel_tol: float = 1e-6) -> list[PathPairDelta]:
    """δ(ε) for every unordered pair of paths of ``release`` (the composition is symmetric in the two), largest
    first by the certified upper end δ + error_bound: the worst case of the release is the first.
    16 paths give 136 pairs for the US releases (about 10 s for persons), 8 give 36 for Puerto Rico."""
    from ...theory.composition import Composition

    release = _check_release(release)
    paths = pl94_paths(release)
    rows = []
    for i, path in enumerate(paths):
        for other in paths[i:]:
            (point,) = Composition(pl94_rhos(release, path, other)).delta([epsilon], rel_tol=rel_tol)
            rows.append(PathPairDelta(path, other, point))
    return sorted(rows, key=lambda r: -(r.point.delta + r.point.error_bound))


def pl94_worst_epsilon(release, delta=None, *, abs_tol: float = 1e-6, rel_tol: float = 1e-6,
                       ranked=None) -> WorstCase:
    """The certified ε of ``release`` at ``delta`` (default: the certificate's 1e-10), worst case over the pairs
    of paths. The pairs are ranked by δ at the certificate's ε; the first pair's ε interval
    (:func:`accountlib.theory.accounting.epsilon`, width ≤ ``abs_tol``) gives the lower end (that pair is not
    (lower, δ)-DP), and every pair is then certified at the upper end (δ + bound ≤ δ); a pair that is not becomes
    the candidate and the search repeats. ``ranked``: the ranking at the certificate's ε when it is already at
    hand (what :func:`pl94_pair_deltas` returns for ``release`` at ``certificate(release)["epsilon"]`` with the
    same ``rel_tol``), so that it is not computed twice; it only orders the candidates, every pair is checked."""
    from ...theory.accounting import epsilon as epsilon_for
    from ...theory.composition import Composition

    release = _check_release(release)
    target = _DELTA if delta is None else F(delta)
    if ranked is None:
        ranked = pl94_pair_deltas(release, certificate(release)["epsilon"], rel_tol=rel_tol)
    ranked = list(ranked)
    if not ranked or not all(isinstance(r, PathPairDelta) for r in ranked):
        raise ValueError("ranked must be the list of PathPairDelta that pl94_pair_deltas returns")
    candidate = (ranked[0].path, ranked[0].other)
    allowed = mpmath.mpf(target.numerator) / target.denominator * (1 - mpmath.mpf(10) ** -12)  # rounded inwards
    for _ in range(len(ranked)):
        interval = epsilon_for(Composition(pl94_rhos(release, *candidate)), target, abs_tol=abs_tol, rel_tol=rel_tol)
        sweep = pl94_pair_deltas(release, interval.upper, rel_tol=rel_tol)
        failing = [r for r in sweep if r.point.delta + r.point.error_bound > allowed]
        if not failing:
            return WorstCase(release, target, interval.lower, interval.upper, candidate, len(sweep))
        candidate = (failing[0].path, failing[0].other)
    raise ArithmeticError(f"{release}: no pair of paths could be certified as the worst at delta = {float(target):g}")
