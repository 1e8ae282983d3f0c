"""``python -m accountlib tradeoff``: β = f(α) of a composition at each α, each with its certified bound.

The exact trade-off function at the α asked (:meth:`accountlib.theory.composition.Composition.tradeoff`), not read
off stored vertices, to ``--abs-tol``.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

from ..infrastructure.numbers import SMALLEST_ABS_TOL, ResourceLimitError, decimal_string
from ..infrastructure.shown import shown_value
from . import (CommandLineError, Once, Rows, add_composition_arguments, asked_with_room, certified_rows, composition, emit_rows,
               engine_refusals_named, exact_tolerance, fail, in_option_terms, number, one_line, tolerance)
from .typed import trimmed

__all__ = ["add_parser", "run"]

KEYS = ("alpha", "beta", "error_bound")
"""The columns printed, and the keys of each JSON object."""


def add_parser(sub) -> None:
    """The ``tradeoff`` subcommand's parser, its handler :func:`run`."""
    trade = sub.add_parser("tradeoff", help="exact trade-off curve β = f(α) of a DHC pair or of your own budgets",
                           description="β = f(α) of DHC pair (K, L) or of the composition with budgets --rho / "
                           "--budgets (the optimal type II error at type I error α), "
                           "each with a certified absolute error bound no larger than T. If that bound "
                           "cannot be certified the command fails (exit 2), after printing the values that were certified.")
    add_composition_arguments(trade)
    trade.add_argument("--alpha", nargs="+", action=Once, type=number("alpha"), required=True, metavar="A",
                       help="type I errors in [0, 1]")
    trade.add_argument("--abs-tol", action=Once, type=number("abs-tol"), default=Fraction(1, 10**25), metavar="T",
                       help=f"absolute accuracy, in [{SMALLEST_ABS_TOL:g}, 0.5] (default 1e-25); an unmet "
                       "tolerance is an error (exit 2)")
    trade.add_argument("--best-effort", action="store_true", help="print a bound that misses --abs-tol instead of "
                       "failing, with a shortfall column naming why (node cap, precision, underflow)")
    trade.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    trade.set_defaults(handler=run)


def run(args) -> int:
    """f(α) at each ``--alpha``, printed with the digits its bound supports; a bound that misses ``--abs-tol`` fails."""
    bad = [shown_value(a, 12) for a in args.alpha if not 0 <= a <= 1]  # as typed: 1.5, not 1.50000
    if bad:
        fail(f"--alpha values must lie in [0, 1]; got {', '.join(bad)}")
    abs_tol = tolerance(args.abs_tol, "abs-tol")
    asked = max(abs_tol / 2, SMALLEST_ABS_TOL)  # the printed bound, widened by its rounding, must still meet it
    pair = composition(args)
    # the smoothed engine computes each α on its own, with a budget of its own: asked one by one, an α whose work is
    # refused leaves the others printed (emit_rows); the lattice batches them, and refuses a composition, not an α
    parts = [[a] for a in args.alpha] if pair.engine_kind == "smoothed" else [list(args.alpha)]
    points = []
    for part in parts:
        try:
            points.append(computed(pair, part, asked, abs_tol, args))
        except CommandLineError as error:
            points.append(str(error))
    rows = Rows()  # in the order asked: the rows certified, and each α refused (its work or its bound)
    for part in points:
        if isinstance(part, str):
            rows.refused.append(part)
            continue
        done = certified_rows(part, KEYS, lambda value, bound: bound <= exact_tolerance(abs_tol, bound),
                              lambda p: f"could not certify --abs-tol {abs_tol:g} at α = {trimmed(decimal_string(p.alpha, 12))}"
                              f"{cause(p, abs_tol)}: the best certified bound is {decimal_string(p.error_bound, 3)}; "
                              f"loosen --abs-tol{raise_limit(pair, p)}, or print it flagged with --best-effort",
                              lambda value: mpmath.mpf("1e-75"), args.best_effort)
        rows.extend(done)
        rows.points.extend(done.points)
        rows.refused.extend(done.refused)
    return emit_rows(args, rows, KEYS + ("shortfall",) * args.best_effort)


def raise_limit(pair, point) -> str:
    """The limit whose raising lets a point the node cap stopped go further (r37k R3), as advice; else nothing."""
    if point.shortfall != "node cap":
        return ""
    if pair.engine_kind == "smoothed":
        from ..theory.composition import OVERRUN

        return f", raise ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES (a point's work is at most {OVERRUN} times it)"
    return ", raise ACCOUNTLIB_MAX_NODE_BITS"


def cause(point, abs_tol: float) -> str:
    """Why a point's printed row misses --abs-tol: its shortfall, or the rounding of a bound the library certified
    within it (the value printed to the bound's second digit widens the bound: r37p F1)."""
    if point.shortfall:
        return f" ({point.shortfall})"
    return " (its printed rounding)" if point.error_bound <= abs_tol else ""


def computed(pair, alphas: list, asked: float, abs_tol: float, args) -> list:
    """The points of ``alphas``, each judged against --abs-tol by the caller (:func:`~accountlib.cli.certified_rows`:
    the library, asked with best effort, refuses no bound it reached), a refusal of their work failing the command in
    its terms (the option that gave the composition, or --abs-tol as given). Asked at --abs-tol first, the library's
    own verdict (r37m M2: asked at half of it only, a budget spent there could refuse what --abs-tol certifies); a
    point whose bound is over ``asked`` (half of --abs-tol), whose printed rounding may then pass --abs-tol, is asked
    again at ``asked`` and the narrower kept. Without --best-effort a smoothed point whose work the up-front estimate
    puts a hundredfold over its budget is refused at once, as the library does without best effort; with it, the
    passes the budget allows are run."""
    def ask(values, tol):
        return pair.tradeoff(values, abs_tol=tol, best_effort=True, estimate_refuses=not args.best_effort)

    def again(values, tol):  # half of --abs-tol priced out: the points at --abs-tol stand
        try:
            return ask(values, tol)
        except ResourceLimitError as error:
            if "abs_tol" not in one_line(error):
                raise
            return []

    with engine_refusals_named(args):  # the composition's work refused: the option that gave it
        try:
            return asked_with_room(ask, alphas, abs_tol, asked, lambda p, half: p.error_bound > half, again)
        except ResourceLimitError as error:  # refused for the tolerance: in this command's terms, as given
            if "abs_tol" not in one_line(error):
                raise
            message = one_line(error).removeprefix("abs_tol: ").replace(f"to abs_tol = {abs_tol:g}",
                                                                         f"to --abs-tol {abs_tol:g}")
            fail(in_option_terms(f"--abs-tol {abs_tol:g}: {message}"))
