"""``python -m accountlib dpsgd delta | epsilon | tradeoff | calibrate``: certified accounting for DP-SGD (the
Poisson-subsampled Gaussian composed over a run, add/remove-one neighbours, the worse direction), from
:mod:`accountlib.theory.dpsgd_accounting`.

The run is ``--q Q --noise-multiplier Z --steps T`` or ``--schedule Q:Z:T [Q:Z:T ...]`` (groups of steps; for
``calibrate`` the middle number of each group is its noise factor, the calibrated multiplier times it being the
group's z). Every result states the relation. Every error is one line on stderr and exit status 2 (reported by
:func:`accountlib.cli.main`).

Examples::

    python -m accountlib dpsgd epsilon --q 0.01 --noise-multiplier 1 --steps 1000 --delta 1e-5 1e-12 --json
    python -m accountlib dpsgd calibrate --q 0.01 --steps 10000 --target-eps 1 3 8 --target-delta 1e-5 --json
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction

__all__ = ["add_dpsgd_parser"]


def _run_arguments(parser, *, calibrating: bool) -> None:
    from . import Once, number

    group = parser.add_argument_group("the run (homogeneous, or a schedule of groups)")
    group.add_argument("--q", action=Once, type=number("q"), metavar="Q", help="sampling rate, in (0, 1]")
    if not calibrating:
        group.add_argument("--noise-multiplier", action=Once, type=number("noise-multiplier"), metavar="Z",
                           help="noise multiplier z (noise N(0, z²) per unit of sensitivity)")
    group.add_argument("--steps", action=Once, type=number("steps"), metavar="T", help="number of steps")
    group.add_argument("--schedule", nargs="+", action=Once, metavar="Q:Z:T",
                       help="groups of steps, each q:z:steps (for calibrate, q:factor:steps: the group runs at "
                       "factor times the calibrated multiplier)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _triple(text: str, i: int) -> tuple:
    from . import fail

    parts = text.split(":")
    if len(parts) != 3:
        fail(f"--schedule item {i + 1} must be q:z:steps (three numbers joined by ':'); got {text!r}")
    try:
        q, z = Fraction(parts[0]), Fraction(parts[1])
        steps = Fraction(parts[2])
    except (ValueError, ZeroDivisionError):
        fail(f"--schedule item {i + 1} must be q:z:steps with numbers; got {text!r}")
    if steps.denominator != 1:
        fail(f"--schedule item {i + 1}: steps must be a whole number; got {parts[2]!r}")
    return q, z, int(steps)


def _schedule(args, calibrating: bool):
    """(q, noise_multiplier, steps) or a schedule, from the options; exactly one form."""
    from . import fail

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
    from ..theory.dpsgd_accounting import DPSGDComposition

    single, schedule = _schedule(args, calibrating=False)
    if schedule is not None:
        return DPSGDComposition(schedule=schedule)
    return DPSGDComposition(*single)


def add_parser(sub) -> None:
    from . import Once, Parser, number

    dpsgd = sub.add_parser("dpsgd", help="certified DP-SGD accounting: δ(ε), ε(δ), f(α), the smallest noise "
                           "multiplier (Poisson-subsampled Gaussian, add/remove-one)",
                           description="Certified accounting for DP-SGD: the Poisson-subsampled Gaussian (sensitivity "
                           "1) composed over the run, add/remove-one neighbours (the worse of the two directions). "
                           "Every number carries a rigorous bound covering truncation, discretisation and floating-"
                           "point rounding.")
    actions = dpsgd.add_subparsers(dest="dpsgd_command", required=True, metavar="ACTION", parser_class=Parser)

    delta = actions.add_parser("delta", help="δ(ε) of the run", description="δ(ε) of the run at each ε, with a "
                               "certified bound no larger than R·δ (exit 2 if it cannot be certified).")
    _run_arguments(delta, calibrating=False)
    delta.add_argument("--eps", nargs="+", action=Once, type=number("eps"), required=True, metavar="E",
                       help="ε values in [0, 200]")
    delta.add_argument("--rel-tol", action=Once, type=number("rel-tol"), default=Fraction(1, 10**6), metavar="R",
                       help="relative accuracy, in [1e-12, 0.5] (default 1e-6)")
    delta.set_defaults(handler=_delta)

    eps = actions.add_parser("epsilon", help="the certified ε for each δ", description="For each δ an interval "
                             "[ε_lower, ε_upper] no wider than --abs-tol: the run is (ε_upper, δ)-DP, certified, and "
                             "certainly not (ε_lower, δ)-DP.")
    _run_arguments(eps, calibrating=False)
    eps.add_argument("--delta", nargs="+", action=Once, type=number("delta"), required=True, metavar="D",
                     help="target δ values in [1e-300, 1)")
    eps.add_argument("--abs-tol", action=Once, type=number("abs-tol"), default=Fraction(1, 10**8), metavar="T",
                     help="width of each ε interval, in [1e-12, 1] (default 1e-8)")
    eps.set_defaults(handler=_epsilon)

    trade = actions.add_parser("tradeoff", help="β = f(α) of the run's symmetric trade-off function",
                               description="β = f(α), the symmetric trade-off function of the run (the optimal type "
                               "II error at type I error α, both directions), with a certified bound ≤ T.")
    _run_arguments(trade, calibrating=False)
    trade.add_argument("--alpha", nargs="+", action=Once, type=number("alpha"), required=True, metavar="A",
                       help="type I errors in [0, 1]")
    trade.add_argument("--abs-tol", action=Once, type=number("abs-tol"), default=Fraction(1, 10**8), metavar="T",
                       help="absolute accuracy, in [1e-12, 0.5] (default 1e-8)")
    trade.set_defaults(handler=_tradeoff)

    cal = actions.add_parser("calibrate", help="the smallest noise multiplier meeting (ε, δ) targets",
                             description="The smallest noise multiplier z on a grid of relative step --resolution at "
                             "which every (ε, δ) target holds (certified), with a certified failure one grid step "
                             "below; δ(ε) falls as the noise grows, so no smaller z on the grid meets the targets.")
    _run_arguments(cal, calibrating=True)
    cal.add_argument("--target-eps", nargs="+", action=Once, type=number("target-eps"), required=True,
                     metavar="E", help="ε of each target")
    cal.add_argument("--target-delta", nargs="+", action=Once, type=number("target-delta"), required=True,
                     metavar="D", help="δ of each target, one per --target-eps or one for all")
    cal.add_argument("--resolution", action=Once, type=number("resolution"), default=Fraction(1, 10**5),
                     metavar="R", help="grid step relative to the answer, in [1e-9, 0.1] (default 1e-5)")
    cal.add_argument("--separately", action="store_true", help="calibrate each target on its own (one row each) "
                     "instead of all of them together")
    cal.set_defaults(handler=_calibrate)
    dpsgd.set_defaults(handler=_unreachable)


def _unreachable(args) -> int:  # pragma: no cover - argparse requires an action
    return 2


def _decimal(x, digits: int = 30) -> str:
    from ..infrastructure.numbers import decimal_string

    return decimal_string(x, digits)


def _emit_row(args, row: dict) -> None:
    for key, value in row.items():
        print(f"{key:>28}  {value}")


def _rows(points, keys, certified_ok, explain) -> list[dict]:
    import mpmath

    from ..infrastructure.certifiednumbers import certified_decimal
    from . import fail

    rows = []
    for p in points:
        result, bound = getattr(p, keys[1]), getattr(p, keys[2])
        with mpmath.workdps(40):
            bound = max(mpmath.mpf(bound), abs(mpmath.mpf(result)) * mpmath.mpf("1e-30"), mpmath.mpf("1e-300"))
            if not certified_ok(mpmath.mpf(result), bound):
                fail(explain(p))
        value, shown = certified_decimal(result, bound)
        rows.append({keys[0]: _decimal(getattr(p, keys[0])), keys[1]: value, keys[2]: shown,
                     "relation": p.relation, **({"dominant": p.dominant} if hasattr(p, "dominant") else {})})
    return rows


def _emit(args, rows: list[dict], keys: tuple[str, ...]) -> int:
    from . import print_table

    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
    else:
        print_table(keys, [tuple(str(r[k]) for k in keys) for r in rows])
        relation = rows[0]["relation"] if rows and isinstance(rows[0], dict) and "relation" in rows[0] else None
        if relation:
            print(f"relation: {relation}")
    return 0


def _delta(args) -> int:
    from . import fail

    rel_tol = float(args.rel_tol)
    if not 1e-12 <= rel_tol <= 0.5:
        fail(f"--rel-tol must be in [1e-12, 0.5]; got {rel_tol:g}")
    run = _composition(args)
    points = run.delta(list(args.eps), rel_tol=rel_tol / 2)
    rows = _rows(points, ("epsilon", "delta", "error_bound"), lambda v, b: b <= rel_tol * v or v == 0,
                 lambda p: f"could not certify --rel-tol {rel_tol:g} at ε = {float(p.epsilon):g}; loosen --rel-tol")
    return _emit(args, rows, ("epsilon", "delta", "error_bound", "dominant"))


def _epsilon(args) -> int:
    run = _composition(args)
    rows = []
    for d in args.delta:
        e = run.epsilon(d, abs_tol=float(args.abs_tol))
        rows.append({"delta": _decimal(d), "epsilon_lower": _decimal(e.lower, 15), "epsilon_upper":
                     _decimal(e.upper, 15), "relation": e.relation, "dominant": e.dominant})
    return _emit(args, rows, ("delta", "epsilon_lower", "epsilon_upper", "dominant"))


def _tradeoff(args) -> int:
    from . import fail

    abs_tol = float(args.abs_tol)
    if not 1e-12 <= abs_tol <= 0.5:
        fail(f"--abs-tol must be in [1e-12, 0.5]; got {abs_tol:g}")
    run = _composition(args)
    points = run.tradeoff(list(args.alpha), abs_tol=abs_tol / 2)
    rows = _rows(points, ("alpha", "beta", "error_bound"), lambda v, b: b <= abs_tol,
                 lambda p: f"could not certify --abs-tol {abs_tol:g} at α = {float(p.alpha):g}; loosen --abs-tol")
    return _emit(args, rows, ("alpha", "beta", "error_bound"))


def _calibrate(args) -> int:
    from ..theory.dpsgd_accounting import calibrate_noise_multiplier
    from ..theory.dpsgd_calibration import calibrate_dpsgd
    from . import fail

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
            c = calibrate_noise_multiplier(schedule=schedule, target=targets, resolution=args.resolution)
        else:
            c = calibrate_noise_multiplier(single[0], single[2], targets, resolution=args.resolution)
        row = {"noise_multiplier": _decimal(c.noise_multiplier, 15), "step": _decimal(c.step, 6),
               "proven_smallest": c.proven_smallest, "relation": c.relation,
               "targets": [{"epsilon": _decimal(t.epsilon, 15), "delta": _decimal(t.delta, 15)} for t in c.targets],
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
        _emit_row(args, {k: v for k, v in row.items() if k not in ("checks", "schedule", "targets")})
    return 0


def _check(k) -> dict:
    from ..infrastructure.certifiednumbers import certified_decimal

    value, bound = certified_decimal(k.point.delta, max(k.point.error_bound, abs(k.point.delta) * 1e-30))
    return {"epsilon": _decimal(k.level.epsilon, 15), "delta": value, "error_bound": bound,
            "allowed_delta": f"{float(k.level.allowed):.6g}",
            "status": k.status, "dominant": k.point.dominant}
