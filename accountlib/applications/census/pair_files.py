"""The sweep's result files for a DHC pair: where they live, what they hold, and whether they are sound.

Per DHC pair (k ≤ l) the sweep (:mod:`.jobs`) writes

* ``eps_delta/pair_K_L.csv`` — columns ``delta_zcdp,epsilon,delta,error_bound``:
  for each δ_zCDP on the grid 5e-1, 1e-1, …, 1e-30, ε = ε_zCDP(δ_zCDP) and the
  exact δ(ε), certified to ``error_bound ≤ rel_tol·δ``;
* ``tradeoff/pair_K_L.csv`` — columns ``alpha,beta,error_bound,slope_left,slope_right``: vertices of
  the exact trade-off curve (α_j, β_j), log-uniform in α from both ends and dense where the curve bends
  (:func:`~accountlib.applications.census.jobs.tradeoff_indices`), certified to ``abs_tol``, with the exact curve's slopes on
  the segments just left and right of each vertex (minus the likelihood ratios of the two adjacent atoms),
  rounded inwards to :data:`SLOPE_DIGITS` digits. They make the curve certified *between* its vertices too
  (:mod:`accountlib.theory.tradeoff_band`);
* ``manifest/pair_K_L.json`` — the SHA-256 of both files and the job's options, written last.

Every certified number is stored with the digits its bound supports (:func:`~accountlib.infrastructure.numbers.certified_decimal`): the value is
rounded one decade below its bound, the rounding is added to the bound, probabilities are clamped into
[0, 1], and the bound is rounded up to two digits. So two machines whose floating-point kernels differ in the
last bits store intervals that overlap, usually the same strings. The ε grid is stored with 30 digits
(it is exact, not computed). On resume a pair counts as done only when its manifest matches the files *and*
the files pass :func:`check_pair_files` (book/running.md, "Reliability"); the manifest's hashes guard the
integrity of a folder, not equality across machines.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import mpmath

from ...infrastructure.atomic import finite_decimal, read_csv, sha256_of
from ...infrastructure.numbers import as_fraction, as_string, certified_decimal, exact_rational
from ...infrastructure.numbers import decimal_string
from ...theory.conversions import zcdp_epsilon
from .allocations import TOTAL_RHO, delta_levels

__all__ = ["pair_paths", "manifest_path", "check_pair_files", "pair_status", "EPS_DELTA_HEADER", "TRADEOFF_HEADER",
           "JOB_DEFAULTS", "certified_decimal", "inward_slope", "epsilon_text"]

DIGITS = 30
"""Significant digits of each stored ε of the grid."""
SLOPE_DIGITS = 10
"""Significant digits of each stored slope (rounded inwards)."""
EPS_DELTA_HEADER = ("delta_zcdp", "epsilon", "delta", "error_bound")
"""The header of a pair's (ε, δ) file."""
TRADEOFF_HEADER = ("alpha", "beta", "error_bound", "slope_left", "slope_right")
"""The header of a pair's trade-off file."""


def epsilon_text(value) -> str:
    """An ε of the sweep's grid as it is stored: its decimal value to :data:`DIGITS` significant digits."""
    return decimal_string(value, DIGITS)


def inward_slope(ratio, side: str) -> str:
    """The slope −(``ratio``) of the exact trade-off curve on one side of a vertex, rounded to SLOPE_DIGITS digits
    *inwards*: the left slope no steeper (|slope| rounded down), the right slope no shallower (rounded up), so
    the supporting lines built from them stay below the curve (:mod:`accountlib.theory.tradeoff_band`). ``ratio`` is a
    rigorous lower bound on the exact ratio for the left side and an upper bound for the right side
    (:meth:`~accountlib.theory.composition.Composition.likelihood_ratio_enclosure`), so the result is inward whatever the
    rounding of the ratio itself.

    >>> inward_slope(mpmath.mpf(2) / 3, "left"), inward_slope(mpmath.mpf(2) / 3, "right")
    ('-0.6666666666', '-0.6666666667')
    """
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right'; got {side!r}")
    r = exact_rational(ratio)
    if r <= 0:
        raise ValueError(f"ratio must be positive; got {ratio!r}")
    exponent = math.floor(math.log10(r.numerator) - math.log10(r.denominator)) - SLOPE_DIGITS + 1
    step = Fraction(10) ** exponent
    n = math.floor(r / step) if side == "left" else math.ceil(r / step)
    if side == "right" and n * step < r:
        n += 1
    return as_string(-n * step, exponent)


def pair_paths(out_dir, k: int, l: int) -> tuple[Path, Path]:
    """The two result files of pair (k, l) in ``out_dir``: ``eps_delta/pair_K_L.csv`` and ``tradeoff/pair_K_L.csv``."""
    out_dir = Path(out_dir)
    name = f"pair_{k}_{l}.csv"
    return out_dir / "eps_delta" / name, out_dir / "tradeoff" / name


JOB_DEFAULTS = {"smallest_delta_exponent": 30, "rel_tol": 1e-6, "abs_tol": 1e-25, "points_per_side": 200,
                "bend_points": 250, "variance_scale": 1}
"""The options of a pair's job (recorded in its manifest; a file computed with others is recomputed)."""


def manifest_path(out_dir, k: int, l: int) -> Path:
    """The manifest ``manifest/pair_K_L.json`` that records the SHA-256 of pair (k, l)'s files and the job's options."""
    return Path(out_dir) / "manifest" / f"pair_{k}_{l}.json"


def check_pair_files(out_dir, k: int, l: int, *, smallest_delta_exponent: int | None = 30,
                     rel_tol: float | None = 1e-6, abs_tol: float | None = 1e-25,
                     points_per_side: int | None = 200) -> None:
    """Raise ``ValueError`` naming the file and the defect unless pair (k, l)'s two files are complete and sane.

    Checks: headers; every field a finite decimal; the δ_zCDP grid of ``smallest_delta_exponent`` (row
    count and labels); δ ∈ [0, 1] and non-increasing in ε (within the bounds); 0 ≤ error_bound ≤ rel_tol·δ;
    α and β in [0, 1], α non-decreasing and β non-increasing (within the bounds), error_bound ≤ abs_tol,
    at least 2·``points_per_side`` vertices, slopes negative and non-decreasing along the curve (convexity: the
    right slope of a vertex at most the left slope of the next). Pass ``None`` to skip a check that depends on
    the job options.
    """

    eps_path, trade_path = pair_paths(out_dir, k, l)
    rows = read_csv(eps_path, EPS_DELTA_HEADER)
    if smallest_delta_exponent is not None:
        levels = [f"{d:.0e}" for d in delta_levels(smallest_delta_exponent)]
        if [r[0] for r in rows] != levels:
            raise ValueError(f"{eps_path}: expected {len(levels)} rows on the δ_zCDP grid 5e-01 … "
                             f"1e-{smallest_delta_exponent:02d}; found {len(rows)} rows that do not match it")
        grid = [epsilon_text(as_fraction(zcdp_epsilon(TOTAL_RHO, d), "epsilon", floats="decimal"))
                for d in delta_levels(smallest_delta_exponent)]
        for n, (row, epsilon) in enumerate(zip(rows, grid), start=2):
            if row[1] != epsilon:
                raise ValueError(f"{eps_path}: line {n}: ε = {row[1]} is not the grid's ε_zCDP = {epsilon}")
    values = [[finite_decimal(x, f"{eps_path}: line {n}") for x in row[1:]] for n, row in enumerate(rows, start=2)]
    for n, (eps, delta, bound) in enumerate(values, start=2):
        if not (-bound <= delta <= 1 + bound and bound >= 0 and eps > 0):
            raise ValueError(f"{eps_path}: line {n}: values out of range (ε > 0, δ in [0, 1] within its bound, "
                             f"bound ≥ 0)")
        if rel_tol is not None and bound > Decimal(repr(rel_tol)) * delta * Decimal("1.000001"):
            raise ValueError(f"{eps_path}: line {n}: error bound {bound} exceeds rel_tol·δ")
    for n, (a, b) in enumerate(zip(values, values[1:]), start=3):
        if not a[0] < b[0] or b[1] > a[1] + a[2] + b[2]:
            raise ValueError(f"{eps_path}: line {n}: ε must increase and δ must not increase")
    trade = read_csv(trade_path, TRADEOFF_HEADER)
    if points_per_side is not None and len(trade) < 2 * points_per_side:
        raise ValueError(f"{trade_path}: {len(trade)} vertices, expected at least {2 * points_per_side}")
    vertices = [[finite_decimal(x, f"{trade_path}: line {n}") for x in row] for n, row in enumerate(trade, start=2)]
    crossing = Decimal(1) - Decimal(10) ** (2 - SLOPE_DIGITS)  # inward rounding may cross nearly equal slopes
    for n, (alpha, beta, bound, left, right) in enumerate(vertices, start=2):
        if not (bound > 0 and 0 <= alpha <= 1 and 0 <= beta <= 1):
            raise ValueError(f"{trade_path}: line {n}: values out of range (α, β in [0, 1], bound > 0)")
        if abs_tol is not None and bound > Decimal(repr(abs_tol)):
            raise ValueError(f"{trade_path}: line {n}: error bound {bound} exceeds abs_tol")
        if not (left < 0 and right < 0 and -left >= -right * crossing):
            raise ValueError(f"{trade_path}: line {n}: slopes must be negative, the left one at least as steep "
                             f"as the right one; got {left}, {right}")
    for n, (a, b) in enumerate(zip(vertices, vertices[1:]), start=3):
        slack = a[2] + b[2]
        if b[0] < a[0] - slack or b[1] > a[1] + slack:
            raise ValueError(f"{trade_path}: line {n}: α must not decrease and β must not increase")
        if b[0] > a[0] and a[4] > b[3]:
            raise ValueError(f"{trade_path}: line {n}: the curve is not convex here (the right slope {a[4]} of "
                             f"the vertex before is above this vertex's left slope {b[3]})")


def pair_status(out_dir, k: int, l: int, options: dict | None = None) -> str | None:
    """None when pair (k, l) is complete and valid in ``out_dir``; otherwise why not ("missing", or the defect).

    Valid: both files present, the manifest's hashes match them, its options match ``options``
    (default :data:`JOB_DEFAULTS`), and :func:`check_pair_files` passes.
    """
    out_dir = Path(out_dir)
    options = {**JOB_DEFAULTS, **(options or {})}
    paths = pair_paths(out_dir, k, l)
    if not any(p.exists() for p in paths):
        return "missing"
    manifest = manifest_path(out_dir, k, l)
    try:
        record = json.loads(manifest.read_text(encoding="utf-8"))
        hashes = record["sha256"]
        stored = record["options"]
        if not (isinstance(hashes, dict) and isinstance(stored, dict)):
            raise TypeError
    except FileNotFoundError:
        return f"{manifest}: missing (the job did not finish)"
    except (OSError, ValueError, KeyError, TypeError):  # JSON of any other shape is a damaged manifest too
        return f"{manifest}: unreadable or not a manifest (a JSON object with sha256 and options objects)"
    for path in paths:
        if not path.is_file():
            return f"{path}: missing"
        if hashes.get(str(path.relative_to(out_dir))) != sha256_of(path):
            return f"{path}: contents differ from the manifest's hash (edited or corrupted)"
    wanted = {**options, "variance_scale": str(Fraction(options["variance_scale"]))}
    if stored != wanted:
        return f"{manifest}: computed with other options ({stored})"
    try:
        check_pair_files(out_dir, k, l, smallest_delta_exponent=options["smallest_delta_exponent"],
                         rel_tol=options["rel_tol"], abs_tol=options["abs_tol"],
                         points_per_side=options["points_per_side"])
    except ValueError as error:
        return str(error)
    return None
