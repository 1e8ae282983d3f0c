"""``python -m accountlib dpsgd delta | epsilon | tradeoff | calibrate``: certified accounting for DP-SGD (the
Poisson-subsampled Gaussian composed over a run, add/remove-one neighbours, the worse direction), from
:mod:`accountlib.theory.dpsgd_accounting`.

The run is ``--q Q --noise-multiplier Z --steps T`` or ``--schedule Q:Z:T [Q:Z:T ...]`` (groups of steps; for
``calibrate`` the middle number of each group is its noise factor, the calibrated multiplier times it being the
group's z). Every result states the relation. Tolerances are checked by the library's one validator of their kind
with a DP-SGD run's range, the API's (:func:`~accountlib.theory.dpsgd_arguments.dpsgd_rel_tol`: no finer than
:data:`~accountlib.theory.dpsgd_arguments.FINEST_TOLERANCE`, what a run is certified to). Every error is one line on stderr and exit status 2
(reported by :func:`accountlib.cli.main`).

Examples::

    python -m accountlib dpsgd epsilon --q 0.01 --noise-multiplier 1 --steps 1000 --delta 1e-5 1e-12 --json
    python -m accountlib dpsgd calibrate --q 0.01 --steps 10000 --target-eps 1 3 8 --target-delta 1e-5 --json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from fractions import Fraction

import mpmath

from ..engine.subsampled_gaussian import Q_RANGE, STEPS_RANGE, Z_RANGE
from ..engine.subsampled_gaussian_inversion import MAX_NODES
from ..infrastructure.interval_ends import lower_end, upper_end
from ..infrastructure.numbers import (LARGEST_TOL, as_fraction, as_resolution, certified_decimal, decimal_string,
                                      error_bound)
from ..theory.dpsgd_arguments import FINEST_TOLERANCE, MAX_DPSGD_EPSILON, dpsgd_abs_tol, dpsgd_rel_tol
from ..infrastructure.shown import bound_text
from ..theory.dpsgd_epsilon_search import width_shown
from ..theory.dpsgd_results import EpsilonOutOfRange
from ..theory.dpsgd_tradeoff import TRADEOFF_MAX_NODES
from . import (Once, Parser, Rows, asked_with_room, certified_rows, checked_resolution, emit_row, emit_rows, exact_tolerance, fail,
               interval_decimals, number, one_line, outward_decimal)

__all__ = ["add_parser", "run_delta", "run_epsilon", "run_tradeoff", "run_calibrate", "RUN_HELP",
           "NEGATIVE_VALUE_MESSAGES"]

NEGATIVE_VALUE_MESSAGES = {
    "--eps": "--eps values must lie in [0, 200]",
    "--rel-tol": f"--rel-tol must be a number in [{FINEST_TOLERANCE:g}, 0.5] for a DP-SGD run",
    "--abs-tol": f"--abs-tol must be a number in [{FINEST_TOLERANCE:g}, 0.5] for a DP-SGD run",
    "--target-eps": f"--target-eps values must be in [0, {MAX_DPSGD_EPSILON}] for a DP-SGD run",
    "--q": f"--q (the sampling rate) must be in [{Q_RANGE[0]:g}, {Q_RANGE[1]:g}]",  # r37q M2: -1/3 is no option
    "--noise-multiplier": f"--noise-multiplier (z, the noise multiplier) must be in [{Z_RANGE[0]:g}, {Z_RANGE[1]:g}]",
    "--steps": f"--steps must be a whole number in [1, {STEPS_RANGE[1]:g}]",
    "--delta": "--delta values must be numbers in [1e-300, 1)",
    "--target-delta": "--target-delta values must be numbers in [1e-300, 1)",
}
"""What a negative value of these options is told (:func:`accountlib.cli.main` refuses it before argparse, which would
read it as an unknown option): the ranges of a DP-SGD run, not those of a composition of discrete Gaussians."""

NOISE_GRID_STEP_MEANING = "at most --resolution times the answer"
"""What ``dpsgd calibrate``'s --resolution means (:func:`accountlib.theory.dpsgd_noise_calibration.smallest_noise_multiplier`):
its help and its refusal say the same."""

RUN_HELP = ("the run: --q Q --noise-multiplier Z --steps T (T steps at sampling rate Q, noise N(0, Z²) per unit of "
            "clipping norm), or --schedule Q:Z:T ... (groups of steps)")
"""How the run is named, as ``--help`` says it."""


def _run_arguments(parser, *, calibrating: bool) -> None:
    """The options naming the run (homogeneous or a schedule), and --json."""
    group = parser.add_argument_group("the run (homogeneous, or a schedule of groups)" if not calibrating else
                                      "the run's sampling rates and steps (the noise multiplier is the answer)")
    group.add_argument("--q", action=Once, type=number("q"), metavar="Q",
                       help="sampling rate (Poisson subsampling: each example takes part with probability Q), in "
                       "[1e-8, 1]")
    if not calibrating:
        group.add_argument("--noise-multiplier", action=Once, type=number("noise-multiplier"), metavar="Z",
                           help="noise multiplier z, in [0.05, 1000]: the noise is N(0, z²) times the clipping norm")
    group.add_argument("--steps", action=Once, type=number("steps"), metavar="T", help="number of steps, 1 to 1e9")
    group.add_argument("--schedule", nargs="+", action=Once, metavar="Q:Z:T",
                       help="groups of steps instead, each q:z:steps (for calibrate, q:factor:steps: the group runs "
                       "at factor times the calibrated multiplier)" if calibrating else
                       "groups of steps instead, each q:z:steps (groups with the same q and z are merged)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _triple(text: str, i: int) -> tuple:
    """One ``--schedule`` item q:z:steps as exact numbers (checked by the library when the run is built)."""
    parts = text.split(":")
    if len(parts) != 3:
        fail(f"--schedule item {i + 1} must be q:z:steps (three numbers joined by ':'); got {text!r}")
    try:
        q, z, steps = (as_fraction(part, f"--schedule item {i + 1}", floats="decimal") for part in parts)
    except ValueError:
        fail(f"--schedule item {i + 1} must be q:z:steps with numbers; got {text!r}")
    if steps.denominator != 1:
        fail(f"--schedule item {i + 1}: steps must be a whole number; got {parts[2]!r}")
    return q, z, int(steps)


def _schedule(args, calibrating: bool):
    """(q, noise_multiplier, steps) or a schedule, from the options; exactly one form."""
    if args.schedule is not None:
        if args.q is not None or args.steps is not None or getattr(args, "noise_multiplier", None) is not None:
            fail("give either --schedule or --q/--steps" + ("" if calibrating else "/--noise-multiplier")
                 + ", not both")
        return None, [_triple(t, i) for i, t in enumerate(args.schedule)]
    needed = ["--q", "--steps"] + ([] if calibrating else ["--noise-multiplier"])
    missing = [n for n in needed if getattr(args, n[2:].replace("-", "_")) is None]
    if missing:
        fail(f"the run needs {', '.join(missing)} (or --schedule q:z:steps ...)")
    steps = args.steps
    if steps.denominator != 1:
        fail(f"--steps must be a whole number; got {float(steps):g}")
    return (args.q, None if calibrating else args.noise_multiplier, int(steps)), None


def _composition(args):
    """The run the options name, a :class:`~accountlib.theory.dpsgd_accounting.DPSGDComposition`."""
    from ..theory.dpsgd_accounting import DPSGDComposition

    single, schedule = _schedule(args, calibrating=False)
    if schedule is not None:
        return DPSGDComposition(schedule=schedule)
    return DPSGDComposition(*single)


def _checked_tolerance(value: Fraction, option: str, *, halved: bool) -> tuple[float, float]:
    """(the tolerance, what the library is asked for): a --rel-tol or --abs-tol checked by the library's validator
    of a DP-SGD run's tolerances (:func:`~accountlib.theory.dpsgd_arguments.dpsgd_rel_tol`, the same range [1e-12,
    0.5] as the API's, one floor :data:`~accountlib.theory.dpsgd_arguments.FINEST_TOLERANCE`); when ``halved`` the
    library is asked for half of it, no finer than that floor (the printed bound, widened by its rounding, must
    still meet the tolerance: at the floor itself a result that misses it is refused, exit 2)."""
    check = dpsgd_rel_tol if option == "rel-tol" else dpsgd_abs_tol
    checked = check(value, f"--{option}")
    return checked, max(checked / 2, FINEST_TOLERANCE) if halved else checked


def add_parser(sub) -> None:
    """The ``dpsgd`` subcommand's parser and its four actions, each with its handler (:func:`run_delta`,
    :func:`run_epsilon`, :func:`run_tradeoff`, :func:`run_calibrate`)."""
    dpsgd = sub.add_parser("dpsgd", help="certified DP-SGD accounting: δ(ε), ε(δ), f(α), the smallest noise "
                           "multiplier (Poisson-subsampled Gaussian, add/remove-one)",
                           description="Certified accounting for DP-SGD: the Poisson-subsampled Gaussian (sensitivity "
                           "1, the clipping norm) composed over the run, add/remove-one neighbours (the worse of the "
                           "two directions; replace-one is not accounted here). Every number carries a rigorous bound "
                           "covering truncation, discretisation and floating-point rounding. Each action takes "
                           f"{RUN_HELP}.")
    actions = dpsgd.add_subparsers(dest="dpsgd_command", required=True, metavar="ACTION", parser_class=Parser)

    delta = actions.add_parser("delta", help="δ(ε) of the run, with a certified bound", description="δ(ε) of the run "
                               "at each ε, with a certified bound no larger than R·δ (exit 2 if it cannot be "
                               "certified).")
    _run_arguments(delta, calibrating=False)
    delta.add_argument("--eps", nargs="+", action=Once, type=number("eps"), required=True, metavar="E",
                       help="ε values in [0, 200], exact (0.1 is 1/10)")
    delta.add_argument("--rel-tol", action=Once, type=number("rel-tol"), default=Fraction(1, 10**6), metavar="R",
                       help=f"relative accuracy, in [{FINEST_TOLERANCE:g}, 0.5] (default 1e-6); an unmet "
                       "tolerance is an error (exit 2)")
    delta.add_argument("--best-effort", action="store_true", help="print a bound that misses --rel-tol instead of "
                       "failing, with a shortfall column naming why (node cap, precision)")
    delta.set_defaults(handler=run_delta)

    eps = actions.add_parser("epsilon", help="the certified ε for each δ", description="For each δ an interval "
                             "[ε_lower, ε_upper] no wider than --abs-tol: the run is (ε_upper, δ)-DP, certified, and "
                             "certainly not (ε_lower, δ)-DP.")
    _run_arguments(eps, calibrating=False)
    eps.add_argument("--delta", nargs="+", action=Once, type=number("delta"), required=True, metavar="D",
                     help="target δ values in [1e-300, 1)")
    eps.add_argument("--abs-tol", action=Once, type=number("abs-tol"), default=Fraction(1, 10**8), metavar="T",
                     help="width of each ε interval, in [1e-12, 0.5] (default 1e-8)")
    eps.add_argument("--best-effort", action="store_true", help="print an interval wider than --abs-tol instead of "
                     "failing where no inversion reaches the run (a tiny sampling rate over few steps: the interval "
                     "is from bounds that need none, its upper end still certified), with a shortfall column")
    eps.set_defaults(handler=run_epsilon)

    trade = actions.add_parser("tradeoff", help="β = f(α) of the run's symmetric trade-off function",
                               description="β = f(α), the symmetric trade-off function of the run (the optimal type "
                               "II error at type I error α, both directions), with a certified bound ≤ T.")
    _run_arguments(trade, calibrating=False)
    trade.add_argument("--alpha", nargs="+", action=Once, type=number("alpha"), required=True, metavar="A",
                       help="type I errors in [0, 1]")
    trade.add_argument("--abs-tol", action=Once, type=number("abs-tol"), default=Fraction(1, 10**8), metavar="T",
                       help=f"absolute accuracy, in [{FINEST_TOLERANCE:g}, 0.5] (default 1e-8)")
    trade.add_argument("--best-effort", action="store_true", help="print a bound that misses --abs-tol instead of "
                       "failing (the narrowest bracket the search certified), with a shortfall column")
    trade.set_defaults(handler=run_tradeoff)

    cal = actions.add_parser("calibrate", help="the smallest noise multiplier meeting (ε, δ) targets",
                             description="The smallest noise multiplier z on a grid of relative step --resolution at "
                             "which every (ε, δ) target holds (certified), with a certified failure one grid step "
                             "below; δ(ε) falls as the noise grows, so no smaller z on the grid meets the targets. "
                             "Targets are (ε, δ) pairs only (no μ-GDP target for a DP-SGD run).")
    _run_arguments(cal, calibrating=True)
    cal.add_argument("--target-eps", nargs="+", action=Once, type=number("target-eps"), metavar="E",
                     help="ε of each target, in [0, 200] (required)")
    cal.add_argument("--target-delta", nargs="+", action=Once, type=number("target-delta"), metavar="D",
                     help="δ of each target, in [1e-300, 1), one per --target-eps or one for all (required)")
    cal.add_argument("--target-mu", action=Once, metavar="MU", help=argparse.SUPPRESS)  # refused in one line
    cal.add_argument("--resolution", action=Once, type=number("resolution"), default=Fraction(1, 10**5),
                     metavar="R", help=f"grid step of the noise multiplier, {NOISE_GRID_STEP_MEANING}, in [1e-9, 0.5] "
                     "(default 1e-5)")
    cal.add_argument("--separately", action="store_true", help="calibrate each target on its own (one row each) "
                     "instead of all of them together")
    cal.set_defaults(handler=run_calibrate)


def _rows(points, keys: tuple[str, str, str], certified, explain, best_effort: bool = False) -> list[dict]:
    """The points as rows (:func:`accountlib.cli.certified_rows`: the digits each bound supports, a bound no finer
    than 1e-30 relative, 18 decades finer than the finest tolerance; the floor is relative only, so a δ of 1e-1000
    prints with its digits, as the library certifies it, and only an exact 0 is printed as 0 ± 1e-300), each with the
    relation and the dominant direction; with ``best_effort`` a bound that misses the tolerance is printed, flagged
    in a ``shortfall`` column."""
    rows = certified_rows(points, keys, certified, explain,
                          lambda value: abs(value) * mpmath.mpf("1e-30") if value else mpmath.mpf("1e-300"),
                          best_effort)
    for row, p in zip(rows, rows.points):
        row["relation"] = p.relation
        if hasattr(p, "dominant"):
            row["dominant"] = p.dominant
    return rows


def _emit(args, rows: list[dict], keys: tuple[str, ...]) -> int:
    """Rows as a JSON list, or a table followed by the relation."""
    return emit_rows(args, rows, keys, footer=f"relation: {rows[0]['relation']}" if rows else None)


def run_delta(args) -> int:
    """δ(ε) at each ``--eps``, printed with the digits its bound supports; a bound over ``--rel-tol``·δ fails."""
    rel_tol, asked = _checked_tolerance(args.rel_tol, "rel-tol", halved=True)
    run = _composition(args)
    # --rel-tol first, then half of it for a bound over half; a missed tolerance decided per row below
    points = asked_with_room(lambda eps, tol: run.delta(eps, rel_tol=tol, best_effort=True), list(args.eps), rel_tol,
                             asked, lambda p, half: p.error_bound > half * p.delta)
    points = [_clipped_at_zero(p) for p in points]
    rows = _rows(points, ("epsilon", "delta", "error_bound"), lambda v, b: b <= exact_tolerance(rel_tol, v) * v or v == 0,
                 lambda p: (f"could not certify --rel-tol {rel_tol:g} at ε = {float(p.epsilon):g}"
                            + (f" ({p.shortfall})" if getattr(p, "shortfall", None) else "")
                            + f": the narrowest bound certified is {bound_text(p.error_bound / p.delta)} relative"
                            + (f" (an inversion here would need more than {MAX_NODES:,} nodes, the limit of one "
                               "direction's contours; the bound is from bounds that need none)"
                               if p.shortfall == "node cap" else "")
                            + "; loosen --rel-tol, or print it flagged with --best-effort"), args.best_effort)
    return _emit(args, rows, ("epsilon", "delta", "error_bound", "dominant") + ("shortfall",) * args.best_effort)


def _clipped_at_zero(point):
    """``point`` with its certified interval's lower end max(0, ·) (δ ≥ 0): where delta − error_bound < 0 (a flagged
    bound from the bounds that need no inversion), the interval [0, delta + error_bound], as its midpoint ± its
    half-width."""
    with mpmath.workdps(40):
        if lower_end(point.delta, point.error_bound) >= 0:
            return point
        half = mpmath.ldexp(upper_end(point.delta, point.error_bound), -1)  # exact: a power-of-two scaling
        return dataclasses.replace(point, delta=half, error_bound=error_bound(half))


def run_epsilon(args) -> int:
    """The certified ε interval of each ``--delta``, no wider than ``--abs-tol``."""
    abs_tol, _ = _checked_tolerance(args.abs_tol, "abs-tol", halved=False)
    run = _composition(args)
    rows = Rows()  # a δ refused is named after the rows certified (emit_rows)
    for d in args.delta:
        try:
            e = run.epsilon(d, abs_tol=abs_tol, best_effort=True)  # a wider interval is decided here, in its terms
        except EpsilonOutOfRange as error:  # this δ refused, the others still printed (r37m M4)
            rows.refused.append(f"--delta {float(d):.12g}: {one_line(error)}")
            continue
        wide = e.upper - e.lower > as_fraction(abs_tol, "abs-tol", floats="binary")
        if wide and not args.best_effort and e.shortfall == "precision":
            rows.refused.append(f"--abs-tol {abs_tol:g}: the certified bounds cannot decide δ(ε) against δ = {float(d):g} closer: "
                 f"ε(δ) lies in [{outward_decimal(e.lower, up=False)}, {outward_decimal(e.upper, up=True)}] (float64 "
                 f"certifies δ to about T·1e-13 relative); loosen --abs-tol (this interval is "
                 f"{width_shown(e.upper - e.lower)} wide), or print it flagged with --best-effort")
            continue
        if wide and not args.best_effort:
            width = width_shown(e.upper - e.lower)
            fix = (f"give --abs-tol {width} or more, or print it flagged with --best-effort"
                   if float(width) <= LARGEST_TOL else
                   f"that is wider than any --abs-tol accepted ({LARGEST_TOL:g}): print it flagged with --best-effort")
            rows.refused.append(f"--abs-tol {abs_tol:g}: ε(δ = {float(d):g}) is certified only within "
                                f"[{outward_decimal(e.lower, up=False)}, {outward_decimal(e.upper, up=True)}] for this "
                                f"run (its inversion would need more than {MAX_NODES:,} nodes at any tolerance: a "
                                "sampling rate this small over so few steps; the interval is from bounds that need "
                                f"none); {fix}")
            continue
        lower, upper = interval_decimals(e.lower, e.upper, args.abs_tol)  # no wider than --abs-tol, or 15 digits flagged
        row = {"delta": decimal_string(d, 30), "epsilon_lower": lower, "epsilon_upper": upper,
               "relation": e.relation, "dominant": e.dominant}
        if args.best_effort:
            row["shortfall"] = (e.shortfall or "precision") if wide else ""
        rows.append(row)
    return _emit(args, rows, ("delta", "epsilon_lower", "epsilon_upper", "dominant") + ("shortfall",) * args.best_effort)


def run_tradeoff(args) -> int:
    """f(α) at each ``--alpha``, printed with the digits its bound supports; a bound over ``--abs-tol`` fails."""
    abs_tol, asked = _checked_tolerance(args.abs_tol, "abs-tol", halved=True)
    run = _composition(args)
    # --abs-tol first, then half of it for a bound over half; a miss decided per row below
    points = asked_with_room(lambda alphas, tol: run.tradeoff(alphas, abs_tol=tol, best_effort=True), list(args.alpha),
                             abs_tol, asked, lambda p, half: p.error_bound > half)
    why = {"node cap": f"its search's δ(ε) may compute {TRADEOFF_MAX_NODES:,} nodes, all together, and they were "
           "spent first", "precision": "the search over ε did not close around the supremum closer"}
    rows = _rows(points, ("alpha", "beta", "error_bound"), lambda v, b: b <= exact_tolerance(abs_tol, b),
                 lambda p: f"could not certify --abs-tol {abs_tol:g} at α = {float(p.alpha):g} "
                 f"({p.shortfall or 'precision'}: {why[p.shortfall or 'precision']}): the "
                 f"narrowest bound certified is {decimal_string(p.error_bound, 3)}; loosen --abs-tol, or print it "
                 "flagged with --best-effort", args.best_effort)
    return _emit(args, rows, ("alpha", "beta", "error_bound") + ("shortfall",) * args.best_effort)


def run_calibrate(args) -> int:
    """The smallest noise multiplier meeting the targets (all together, or each ``--separately``), with its checks,
    the failure one grid step below and, for a homogeneous run, the RDP calibration beside it."""
    from ..theory.dpsgd_accounting import calibrate_noise_multiplier
    from ..theory.dpsgd_calibration import calibrate_dpsgd

    resolution = checked_resolution(args.resolution, NOISE_GRID_STEP_MEANING)
    if args.target_mu is not None:
        fail("--target-mu: a μ-GDP target is not accepted for a DP-SGD run; give (ε, δ) targets: --target-eps E "
             "--target-delta D")
    if not args.target_eps or not args.target_delta:
        fail("a target is needed: --target-eps E [E ...] --target-delta D [D ...]")
    eps, deltas = list(args.target_eps), list(args.target_delta)
    if len(deltas) == 1:
        deltas = deltas * len(eps)
    if len(deltas) != len(eps):
        fail(f"--target-delta takes one value or one per --target-eps ({len(eps)}); got {len(deltas)}")
    single, schedule = _schedule(args, calibrating=True)
    groups = [tuple(target) for target in zip(eps, deltas)]
    target_sets = [[t] for t in groups] if args.separately else [groups]
    rows = []
    for targets in target_sets:
        if schedule is not None:
            c = calibrate_noise_multiplier(schedule=schedule, target=targets, resolution=resolution)
        else:
            c = calibrate_noise_multiplier(single[0], single[2], targets, resolution=resolution)
        row = {"noise_multiplier": decimal_string(c.noise_multiplier, 15), "step": decimal_string(c.step, 6),
               "proven_smallest": c.proven_smallest, "relation": c.relation,
               "targets": [{"epsilon": decimal_string(t.epsilon, 15), "delta": decimal_string(t.delta, 15)}
                           for t in c.targets],
               "schedule": [{"q": q, "noise_multiplier": z, "steps": n} for q, z, n in c.schedule],
               "checks": [_check(k) for k in c.checks],
               "failure_one_step_below": None if c.failure is None else _check(c.failure)}
        if single is not None:
            try:
                row["rdp_noise_multiplier"] = max(calibrate_dpsgd(float(single[0]), single[2], float(t.epsilon),
                                                                  float(t.delta), "rdp", tolerance=1e-9)
                                                  for t in c.targets)
            except ValueError:
                row["rdp_noise_multiplier"] = None
        rows.append(row)
    if args.json:
        json.dump(rows if args.separately else rows[0], sys.stdout, indent=1)
        print()
        return 0
    for row in rows:
        emit_row(args, {k: v for k, v in row.items() if k not in ("checks", "schedule", "targets")})
    return 0


def _check(k) -> dict:
    """One target's check as printed: δ with the digits its bound supports, what it allows, and the status."""
    with mpmath.workdps(40):
        bound = max(k.point.error_bound, abs(k.point.delta) * mpmath.mpf("1e-30"), mpmath.mpf("1e-300"))
    value, shown = certified_decimal(k.point.delta, bound)
    return {"epsilon": decimal_string(k.level.epsilon, 15), "delta": value, "error_bound": shown,
            "allowed_delta": f"{float(k.level.allowed):.6g}", "status": k.status, "dominant": k.point.dominant}
