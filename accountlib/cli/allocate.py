"""``python -m accountlib allocate``: per-query budgets minimising Σ w_i σ_i² under an exact, certified target.

:func:`accountlib.theory.calibration.allocate`: the zCDP optimum snapped to a grid, calibrated exactly, improved
over the shapes ρ_i ∝ w_i^γ, and compared with the zCDP-calibrated zCDP optimum.
"""

from __future__ import annotations

from . import Once, add_target_arguments, certificate, decimal, emit_row, number, target

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """The ``allocate`` subcommand's parser, its handler :func:`run`."""
    alloc = sub.add_parser("allocate", help="per-query budgets minimising Σ w_i σ_i² under an exact target",
                           description="Budgets ρ_i (σ_i² = 1/ρ_i) minimising Σ w_i σ_i² subject to the certified "
                           "target: the zCDP optimum (ρ_i ∝ √w_i), snapped to a grid, calibrated exactly, improved "
                           "over the shapes ρ_i ∝ w_i^γ; compared with the zCDP-calibrated zCDP optimum.")
    alloc.add_argument("--weights", nargs="+", action=Once, type=number("weights"), required=True, metavar="W",
                       help="the weight w_i > 0 of each query's variance in the loss")
    add_target_arguments(alloc)
    alloc.set_defaults(handler=run)


def run(args) -> int:
    """The allocation with its calibration's certificate, as one JSON object or aligned lines."""
    from ..theory.calibration import allocate

    a = allocate(args.weights, target(args), resolution=args.resolution)
    row = {"rhos": [decimal(r) for r in a.rhos], "loss": decimal(a.loss),
           "zcdp_loss": None if a.zcdp_loss is None else decimal(a.zcdp_loss),
           "loss_saved": None if a.loss_saved is None else round(a.loss_saved, 6), "exponent": a.exponent,
           **{k: v for k, v in certificate(a.calibration).items() if k not in ("zcdp_scale", "variance_saved")}}
    return emit_row(args, row)
