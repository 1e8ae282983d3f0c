"""``python -m accountlib delta``: the exact δ(ε) of a composition at each ε, each with its certified bound.

The composition is a DHC pair (``--pair K L``), budgets (``--rho``, ``--budgets``) or a published release
(``--release``); :meth:`accountlib.theory.composition.Composition.delta` computes each δ to ``--rel-tol``.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

from ..infrastructure.numbers import SMALLEST_REL_TOL, ResourceLimitError, decimal_string, exact_rational
from ..theory.composition import MAX_EPSILON
from . import (Once, add_composition_arguments, certified_rows, emit_rows, engine_refusals_named, exact_tolerance, fail,
               number, composition, tolerance)
from .typed import trimmed

__all__ = ["add_parser", "run"]

KEYS = ("epsilon", "delta", "error_bound")
"""The columns printed, and the keys of each JSON object."""


def add_parser(sub) -> None:
    """The ``delta`` subcommand's parser, its handler :func:`run`."""
    delta = sub.add_parser("delta", help="exact δ(ε) of a DHC pair or of your own budgets", description=
                           "The exact δ(ε) of DHC pair (K, L), or of the composition with budgets --rho / "
                           "--budgets, each value with a certified error bound "
                           "no larger than R·δ. If that bound cannot be certified the command fails (exit 2) "
                           "rather than print a looser one, after printing the values that were certified.")
    add_composition_arguments(delta)
    delta.add_argument("--eps", nargs="+", action=Once, type=number("eps"), required=True, metavar="E",
                       help=f"ε values in [0, {MAX_EPSILON}], decimals or fractions, e.g. 26.34 or 1317/50 (δ(0) is the "
                       "total variation distance)")
    delta.add_argument("--rel-tol", action=Once, type=number("rel-tol"), default=Fraction(1, 10**6), metavar="R",
                       help=f"relative accuracy, in [{SMALLEST_REL_TOL:g}, 0.5] (default 1e-6); an unmet "
                       "tolerance is an error (exit 2)")
    delta.add_argument("--best-effort", action="store_true", help="print a bound that misses --rel-tol instead of "
                       "failing, with a shortfall column naming why (node cap, precision, underflow)")
    delta.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    delta.set_defaults(handler=run)


def run(args) -> int:
    """δ(ε) at each ``--eps``, printed with the digits its bound supports; a bound that misses ``--rel-tol`` fails."""
    bad = [e for e in args.eps if e < 0 or e > MAX_EPSILON]
    if bad:
        from ..infrastructure.shown import shown_value  # messages only: not loaded on the way to an answer

        bad = [shown_value(e) for e in bad]  # as given: 5000.0000001, not 5000.00
        fail(f"--eps values must be in [0, {MAX_EPSILON}] (δ(0) is the total variation distance; {MAX_EPSILON} the "
             f"largest supported ε); got {', '.join(bad)}")
    rel_tol = tolerance(args.rel_tol, "rel-tol")
    pair = composition(args)
    asked = max(rel_tol / 2, SMALLEST_REL_TOL)  # the printed value, widened by its rounding, must still meet it
    with engine_refusals_named(args):
        try:  # each ε with a work budget of its own on the smoothed engine
            points, meters = pair.delta_each(args.eps, rel_tol=asked, name="--eps values")
        except ResourceLimitError as error:  # the library's rel_tol (half of --rel-tol) said as the option given
            raise ResourceLimitError(as_option(str(error), asked, rel_tol)) from None

    def starved(p) -> str:  # the budget of this δ's ε, where it stopped it
        from ..engine.work import starved_note  # messages only

        return starved_note(meters[next(i for i, q in enumerate(points) if q is p)])

    rows = certified_rows(points, KEYS, lambda value, bound: bound <= exact_tolerance(rel_tol, value) * value,
                          lambda p: uncertified(pair, p, rel_tol, starved(p)), lambda value: abs(value) * mpmath.mpf("1e-45"),
                          args.best_effort)
    return emit_rows(args, rows, KEYS + ("shortfall",) * args.best_effort)


def as_option(message: str, asked: float, rel_tol: float) -> str:
    """A library refusal for the rel_tol the command asked (``asked``, half of ``--rel-tol``) said for the option:
    its value, and a tolerance it advises ("loosen rel_tol to at least X"), doubled back to --rel-tol's terms.

    >>> as_option("rel_tol = 5e-10 is out of reach; loosen rel_tol to above about 2.5e-08", 5e-10, 1e-9)
    '--rel-tol 1e-09 is out of reach; loosen rel_tol to above about 5e-08'
    """
    import re

    message = message.replace(f"rel_tol = {asked:g}", f"--rel-tol {rel_tol:g}")
    return re.sub(r"(loosen rel_tol to (?:at least|above about) )(\d[\d.]*(?:e[+-]?\d+)?)",
                  lambda m: f"{m[1]}{float(m[2]) * rel_tol / asked:.2g}", message)


def uncertified(pair, point, rel_tol: float, starved: str = "") -> str:
    """The one-line error of a δ(ε) whose bound misses --rel-tol: the certified upper bound, and where the ε of
    these budgets is certified to a relative accuracy (``starved``: the work budget of this δ's ε, where it
    stopped it, :func:`accountlib.engine.work.starved_note`)."""
    from ..infrastructure.shown import bound_text  # messages only: not loaded on the way to an answer

    why = f" ({point.shortfall})" if getattr(point, "shortfall", None) else ""
    where = f"could not certify --rel-tol {rel_tol:g} at ε = {trimmed(decimal_string(point.epsilon, 12))}{why}"
    if point.delta > point.error_bound:
        return (f"{where}: the narrowest bound certified is {bound_text(point.error_bound)} on δ = "
                f"{decimal_string(point.delta, 6)}{starved}; loosen --rel-tol, or print it flagged with --best-effort")
    with mpmath.workdps(30):
        upper = bound_text(mpmath.mpf(point.delta) + point.error_bound)  # rounded up: still an upper bound
    limit = pair.relative_epsilon_limit()
    if limit is None or exact_rational(point.epsilon) < limit:
        return f"{where}: only the certified upper bound δ ≤ {upper} was reached; loosen --rel-tol, or print it flagged with --best-effort"
    return (f"{where}: only the certified upper bound δ ≤ {upper} (the rigorous sub-Gaussian tail bound); --eps "
            f"below {decimal_string(limit, 10)} is certified to a relative accuracy for these budgets, or print this "
            "bound flagged with --best-effort")
