"""``python -m accountlib epsilon | calibrate | allocate``: ε for a δ, the smallest noise for a target, and
per-query budgets for a weighted loss, each with its certificate (:mod:`accountlib.theory.calibration`).

Every error is one line on stderr and exit status 2 (the top-level :func:`accountlib.cli.main` reports them).
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction

__all__ = ["add_calibration_parsers"]


def _target_arguments(parser) -> None:
    from . import _Once, _number

    group = parser.add_argument_group("target (one (ε, δ) pair or more, or a μ-GDP target)")
    group.add_argument("--target-eps", nargs="+", action=_Once, type=_number("target-eps"), metavar="E",
                       help="ε of each (ε, δ) target")
    group.add_argument("--target-delta", nargs="+", action=_Once, type=_number("target-delta"), metavar="D",
                       help="δ of each (ε, δ) target, one per --target-eps (or one for all)")
    group.add_argument("--target-mu", action=_Once, type=_number("target-mu"), metavar="MU",
                       help="a μ-GDP target: the trade-off curve must lie above G_μ everywhere")
    parser.add_argument("--resolution", action=_Once, type=_number("resolution"), default=Fraction(1, 1000),
                        metavar="R", help="grid step of the variance multiplier, relative to the zCDP calibration "
                        "(default 1e-3)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _target(args):
    from ..theory.calibration import ApproximateDP, GaussianDP
    from . import _fail

    if args.target_mu is not None:
        if args.target_eps or args.target_delta:
            _fail("give either --target-mu or --target-eps with --target-delta, not both")
        return GaussianDP(args.target_mu)
    if not args.target_eps or not args.target_delta:
        _fail("a target is needed: --target-eps E --target-delta D (or --target-mu MU)")
    eps, deltas = args.target_eps, args.target_delta
    if len(deltas) == 1:
        deltas = deltas * len(eps)
    if len(deltas) != len(eps):
        _fail(f"--target-delta takes one value or one per --target-eps ({len(eps)}); got {len(deltas)}")
    targets = [ApproximateDP(e, d) for e, d in zip(eps, deltas)]
    return targets[0] if len(targets) == 1 else targets


def add_calibration_parsers(sub) -> None:
    from . import _Once, _add_pair_argument, _number

    eps = sub.add_parser("epsilon", help="the certified ε for a δ of a DHC pair or of your own budgets",
                         description="For each δ, an interval [ε_lower, ε_upper] no wider than --abs-tol: the "
                         "composition is (ε_upper, δ)-DP (δ(ε_upper) ≤ δ, certified) and not (ε_lower, δ)-DP.")
    _add_pair_argument(eps)
    eps.add_argument("--delta", nargs="+", action=_Once, type=_number("delta"), required=True, metavar="D",
                     help="target δ values in (0, 1)")
    eps.add_argument("--abs-tol", action=_Once, type=_number("abs-tol"), default=Fraction(1, 10**9), metavar="T",
                     help="width of each ε interval, in [1e-30, 1] (default 1e-9)")
    eps.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    eps.set_defaults(handler=_epsilon)

    cal = sub.add_parser("calibrate", help="the smallest noise meeting a target, certified on both sides",
                         description="One variance multiplier v for every σ_i² = 1/ρ_i of the composition (or of "
                         "all 43 DHC allocations with --census, the worst of the 946 pairs deciding): at v the "
                         "target holds with its certified bound, at one grid step less it certainly fails.")
    which = cal.add_mutually_exclusive_group(required=True)
    which.add_argument("--census", action="store_true", help="all 946 DHC pairs (about a minute)")
    _add_pair_argument(cal, group=which)
    _target_arguments(cal)
    cal.add_argument("--no-progress", action="store_true", help="no progress lines on stderr (--census)")
    cal.set_defaults(handler=_calibrate)

    alloc = sub.add_parser("allocate", help="per-query budgets minimising Σ w_i σ_i² under an exact target",
                           description="Budgets ρ_i (σ_i² = 1/ρ_i) minimising Σ w_i σ_i² subject to the certified "
                           "target: the zCDP optimum (ρ_i ∝ √w_i), snapped to a grid, calibrated exactly, improved "
                           "over the shapes ρ_i ∝ w_i^γ; compared with the zCDP-calibrated zCDP optimum.")
    alloc.add_argument("--weights", nargs="+", action=_Once, type=_number("weights"), required=True, metavar="W",
                       help="the weight w_i > 0 of each query's variance in the loss")
    _target_arguments(alloc)
    alloc.set_defaults(handler=_allocate)


def _decimal(x, digits: int = 12) -> str:
    from ..infrastructure.numbers import decimal_string

    return decimal_string(Fraction(x), digits)


def _emit(args, rows: list[dict], keys: tuple[str, ...]) -> int:
    """Rows as a JSON list or a table."""
    from . import _print_table

    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
    else:
        _print_table(keys, [tuple(str(r[k]) for k in keys) for r in rows])
    return 0


def _emit_row(args, row: dict) -> int:
    """One result as a JSON object or as aligned "key  value" lines."""
    if args.json:
        json.dump(row, sys.stdout, indent=1)
        print()
    else:
        for key, value in row.items():
            print(f"{key:>32}  {value}")
    return 0


def _epsilon(args) -> int:
    from ..theory.calibration import epsilon
    from . import _composition

    pair = _composition(args)
    rows = []
    for d in args.delta:
        e = epsilon(pair, d, abs_tol=args.abs_tol)
        rows.append({"delta": _decimal(d, 30), "epsilon_lower": _decimal(e.lower, 15),
                     "epsilon_upper": _decimal(e.upper, 15)})
    return _emit(args, rows, ("delta", "epsilon_lower", "epsilon_upper"))


def _certificate(c) -> dict:
    row = {"scale": _decimal(c.scale), "step": _decimal(c.step), "proven_smallest": c.proven_smallest,
           "zcdp_scale": None if c.zcdp_scale is None else _decimal(c.zcdp_scale),
           "variance_saved": None if c.variance_saved is None else round(c.variance_saved, 6)}
    # the check with the least room, relative to what it allows (a μ-GDP target's tail allows 1e-30 and uses a
    # thousandth of it: not binding)
    binding = min(c.checks, key=lambda k: float((k.level.allowed - k.point.delta - k.point.error_bound)
                                                / max(k.level.allowed, 1e-300)))
    row["binding_epsilon"] = _decimal(binding.level.epsilon, 10)
    row["binding_delta"] = f"{float(binding.point.delta):.6e} ± {float(binding.point.error_bound):.1e}"
    row["allowed_delta"] = f"{float(binding.level.allowed):.6e}"
    if c.failure is not None:
        row["fails_one_step_below_at_epsilon"] = _decimal(c.failure.level.epsilon, 10)
        row["delta_one_step_below"] = (f"{float(c.failure.point.delta):.6e} ± "
                                       f"{float(c.failure.point.error_bound):.1e}")
    return row


def _calibrate(args) -> int:
    from ..theory.calibration import calibrate
    from . import _composition

    target = _target(args)
    if args.census:
        from ..applications.census import calibrate_census

        progress = None if args.no_progress else (lambda line: print(line, file=sys.stderr, flush=True))
        result = calibrate_census(target, resolution=args.resolution, progress=progress)
        row = _certificate(result.calibration)
        row = {"scale": _decimal(result.scale), "deciding_pair": list(result.deciding),
               "pairs_checked": result.pairs_checked, **{k: v for k, v in row.items() if k != "scale"}}
    else:
        row = _certificate(calibrate(_composition(args), target, resolution=args.resolution))
    return _emit_row(args, row)


def _allocate(args) -> int:
    from ..theory.calibration import allocate

    a = allocate(args.weights, _target(args), resolution=args.resolution)
    row = {"rhos": [_decimal(r) for r in a.rhos], "loss": _decimal(a.loss),
           "zcdp_loss": None if a.zcdp_loss is None else _decimal(a.zcdp_loss),
           "loss_saved": None if a.loss_saved is None else round(a.loss_saved, 6), "exponent": a.exponent,
           **{k: v for k, v in _certificate(a.calibration).items() if k not in ("zcdp_scale", "variance_saved")}}
    return _emit_row(args, row)
