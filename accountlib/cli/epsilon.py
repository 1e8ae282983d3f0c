"""``python -m accountlib epsilon``: the certified ε for each δ, an interval no wider than ``--abs-tol``.

The composition is (ε_upper, δ)-DP and not (ε_lower, δ)-DP, both certified (:func:`accountlib.theory.accounting.epsilon`).
"""

from __future__ import annotations

from fractions import Fraction

from . import (CommandLineError, Once, Rows, add_composition_arguments, composition, decimal, emit_rows,
               engine_refusals_named, fail, in_option_terms, interval_decimals, number, one_line, tolerance)

__all__ = ["add_parser", "run", "NEGATIVE_VALUE_MESSAGES"]

NEGATIVE_VALUE_MESSAGES = {"--abs-tol": "--abs-tol must be in [1e-30, 0.5] (the width of an ε interval)"}
"""The message for a negative --abs-tol, whose range here is an ε interval's width."""

KEYS = ("delta", "epsilon_lower", "epsilon_upper")
"""The columns printed, and the keys of each JSON object."""


def add_parser(sub) -> None:
    """The ``epsilon`` subcommand's parser, its handler :func:`run`."""
    eps = sub.add_parser("epsilon", help="the certified ε for a δ of a DHC pair or of your own budgets",
                         description="For each δ, an interval [ε_lower, ε_upper] no wider than --abs-tol: the "
                         "composition is (ε_upper, δ)-DP (δ(ε_upper) ≤ δ, certified) and not (ε_lower, δ)-DP. A δ "
                         "whose interval cannot be certified that narrow fails the command (exit 2), after the "
                         "intervals that were are printed.")
    add_composition_arguments(eps)
    eps.add_argument("--delta", nargs="+", action=Once, type=number("delta"), required=True, metavar="D",
                     help="target δ values in [1e-300, 1)")
    eps.add_argument("--abs-tol", action=Once, type=number("abs-tol"), default=Fraction(1, 10**9), metavar="T",
                     help="width of each ε interval, in [1e-30, 0.5] (default 1e-9)")
    eps.add_argument("--best-effort", action="store_true", help="print an interval wider than --abs-tol instead of "
                     "failing, with a shortfall column naming why (node cap, precision)")
    eps.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    eps.set_defaults(handler=run)


def run(args) -> int:
    """The ε interval of each ``--delta``, each with a work budget of its own on the smoothed engine
    (:func:`~accountlib.theory.accounting.epsilon_meter`): its interval does not depend on the others asked."""
    from ..theory.accounting import epsilon

    from ..theory.targets import as_target_delta

    abs_tol = tolerance(args.abs_tol, "abs-tol", width=True)  # the one validator of an ε interval's width
    for d in args.delta:
        try:
            as_target_delta(d, "--delta values")
        except ValueError as error:
            fail(str(error))
    pair = composition(args)
    rows = Rows()  # a δ refused is named after the rows certified (emit_rows): each δ has a budget of its own
    for d in args.delta:
        try:
            with engine_refusals_named(args):
                e = epsilon(pair, d, abs_tol=abs_tol, best_effort=args.best_effort)
        except ArithmeticError as error:  # its interval wider than --abs-tol, without --best-effort
            rows.refused.append(in_option_terms(one_line(error), ["epsilon"]))
            continue
        except CommandLineError as error:  # the work refused for this δ, the option that gave it named
            rows.refused.append(one_line(error))
            continue
        if not e.meets_tolerance:  # flagged (--best-effort): printed as certified, its shortfall named
            lower, upper = interval_decimals(e.lower, e.upper, args.abs_tol)
            rows.append({"delta": decimal(d, 30), "epsilon_lower": lower, "epsilon_upper": upper,
                         "shortfall": e.shortfall})
            continue
        if e.width > args.abs_tol:  # certified to the float nearest --abs-tol, above it by less than 1e-16 of it
            rows.refused.append(f"--abs-tol {decimal(args.abs_tol, 6)}: the interval certified for --delta "
                                f"{decimal(d, 6)} is {float(e.width):.17g} wide, a rounding of --abs-tol above it; "
                                f"give --abs-tol {float(e.width):.17g}")
            continue
        # the ends rounded outwards (lower down, upper up) with the digits that keep the printed interval no wider
        # than --abs-tol: it contains the certified one (the exact ends, not the points' 53-bit ε)
        lower, upper = interval_decimals(e.lower, e.upper, args.abs_tol)
        rows.append({"delta": decimal(d, 30), "epsilon_lower": lower, "epsilon_upper": upper,
                     **({"shortfall": ""} if args.best_effort else {})})
    return emit_rows(args, rows, KEYS + ("shortfall",) * args.best_effort)
