"""``python -m accountlib calibrate``: the smallest noise meeting a target, certified on both sides.

One variance multiplier for every σ_i² of the composition (:func:`accountlib.theory.calibration.calibrate`), or for
all 43 DHC allocations with ``--census`` (:func:`accountlib.applications.census.calibration.calibrate_census`).
"""

from __future__ import annotations

import sys

from . import add_composition_arguments, add_target_arguments, certificate, composition, decimal, emit_row, target

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """The ``calibrate`` subcommand's parser, its handler :func:`run`."""
    cal = sub.add_parser("calibrate", help="the smallest noise meeting a target, certified on both sides",
                         description="One variance multiplier v for every σ_i² = 1/ρ_i of the composition (or of "
                         "all 43 DHC allocations with --census, the worst of the 946 pairs deciding): at v the "
                         "target holds with its certified bound, at one grid step less it certainly fails.")
    which = cal.add_mutually_exclusive_group(required=True)
    which.add_argument("--census", action="store_true", help="all 946 DHC pairs (about a minute)")
    add_composition_arguments(cal, group=which)
    add_target_arguments(cal)
    cal.add_argument("--no-progress", action="store_true", help="no progress lines on stderr (--census)")
    cal.set_defaults(handler=run)


def run(args) -> int:
    """The calibration's certificate, as one JSON object or aligned lines."""
    from ..theory.calibration import calibrate

    wanted = target(args)
    if args.census:
        from ..applications.census.calibration import calibrate_census

        progress = None if args.no_progress else (lambda line: print(line, file=sys.stderr, flush=True))
        result = calibrate_census(wanted, resolution=args.resolution, progress=progress)
        row = certificate(result.calibration)
        row = {"scale": decimal(result.scale), "deciding_pair": list(result.deciding),
               "pairs_checked": result.pairs_checked, **{k: v for k, v in row.items() if k != "scale"}}
    else:
        row = certificate(calibrate(composition(args), wanted, resolution=args.resolution))
    return emit_row(args, row)
