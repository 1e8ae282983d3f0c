"""The smallest noise for the whole census: one variance multiplier on every allocation's budgets, the worst of
the 946 DHC pairs deciding (:func:`accountlib.theory.calibration.calibrate` on each pair that binds).

The census-wide guarantee is the worst pair's (sieve paper §5): a scale meets a target census-wide when every
pair meets it there. Every pair's total zCDP ρ is the same (:data:`~accountlib.applications.census.allocations.TOTAL_RHO`), so all pairs share
one grid of scales. The pair with the largest δ at the target's first level is calibrated first; every pair is
then checked at that scale, any pair that does not hold is calibrated in turn (the scale only grows), and the
answer is certified by all 946 pairs holding at the scale and the deciding pair failing one step below.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ...infrastructure.numbers import as_fraction, as_rel_tol, as_resolution
from ...theory.calibration import Calibration, calibrate, round_step, zcdp_scale
from ...theory.decision import decide
from ...theory.targets import level_targets, levels_of
from ...theory.composition import Composition
from .allocations import TOTAL_RHO, all_pairs, pair_rhos

__all__ = ["CensusCalibration", "calibrate_census"]


@dataclass(frozen=True)
class CensusCalibration:
    """The census-wide calibration: at ``scale`` every pair in ``pairs_checked`` holds (certified), and the
    ``deciding`` pair's own calibration (``calibration``) fails one step below. Pairs whose δ differ by less than
    their bounds tie; the deciding pair is then the first of them to bind, one of several."""

    scale: Fraction
    deciding: tuple
    calibration: Calibration
    pairs_checked: int
    calibrated: tuple  # the pairs calibrated on the way, with their own smallest scales
    delta_range: tuple = ()  # (smallest, largest) certified δ over the pairs at the answer, at the first level

    @property
    def variance_saved(self) -> float | None:
        """The share of variance the census-wide calibration gives back against the zCDP rule (None where the
        deciding pair's own calibration is not at the census scale)."""
        return self.calibration.variance_saved if self.calibration.scale == self.scale else None


def calibrate_census(target, *, resolution=1e-3, rel_tol: float = 1e-6, pairs=None, progress=None) -> CensusCalibration:
    """The smallest variance multiplier on all 43 allocations' budgets meeting ``target`` for every DHC pair
    (``pairs``: a subset, for tests and quick looks), certified: every pair holds at the scale, and the deciding
    pair fails one grid step below. ``progress`` is called with a line of text as pairs are checked."""
    pairs = list(all_pairs()) if pairs is None else [tuple(sorted(p)) for p in pairs]
    if not pairs:
        raise ValueError("pairs must hold at least one DHC pair")
    levels = levels_of(target)
    checked = level_targets(target)
    reference = zcdp_scale(target, TOTAL_RHO) or Fraction(1)  # every pair's ρ' = Σ ρ_i/2 is TOTAL_RHO
    as_resolution(resolution)
    rel_tol = as_rel_tol(rel_tol)
    step = round_step(reference * as_fraction(resolution, "resolution", floats="binary"))
    first = levels[0].epsilon
    # rank by δ at the first level at the reference scale: the likeliest binding pair first
    compositions = {p: Composition(pair_rhos(*p)) for p in pairs}  # each rescaled (its lattice reused) at each scale
    ranked = sorted(pairs, key=lambda p: -compositions[p].rescaled(reference).delta([first])[0].delta)
    best, calibrated, at_answer = None, [], []
    todo = [ranked[0]]
    while todo:
        pair = todo.pop()
        c = calibrate(compositions[pair], target, rel_tol=rel_tol, step=step)
        calibrated.append((pair, c.scale))
        if best is None or c.scale > best[1].scale:
            best = (pair, c)
        if progress is not None:
            progress(f"pair {pair}: smallest scale {float(c.scale):.6g}")
        scale = best[1].scale
        at_answer = []
        for n, p in enumerate(ranked, 1):  # every pair at the current scale
            checks = decide(compositions[p].rescaled(scale), target, checked, rel_tol)
            at_answer.append(checks[0].point.delta)
            if not all(k.status == "holds" for k in checks):
                todo.append(p)
                break
            if progress is not None and n % 100 == 0:
                progress(f"{n} of {len(ranked)} pairs hold at {float(scale):.6g}")
    pair, c = best
    return CensusCalibration(c.scale, pair, c, len(ranked), tuple(calibrated), (min(at_answer), max(at_answer)))
