"""Command line: ``python -m accountlib ...`` (DESIGN.md, "the public surface").

Subcommands
-----------
``delta --pair K L --eps E [E ...] [--rel-tol R] [--json]``
    the exact δ(ε) of DHC pair (K, L) at each ε, certified to error_bound ≤ R·δ.
``tradeoff --pair K L --alpha A [A ...] [--abs-tol T] [--json]``
    β = f(α) of the pair, certified to error_bound ≤ T.

Numbers are printed as decimal strings with 30 significant digits. Bad input
exits with status 2 and a message naming the argument.
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction


from . import census
from ._numbers import as_fraction, decimal_string
from .profiles import ShiftPair

DIGITS = 30


def _decimal(value) -> str:
    return decimal_string(value, DIGITS)


def _number(name: str):
    def parse(text: str) -> Fraction:
        try:
            return as_fraction(text, name)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    parse.__name__ = name  # argparse shows it in "invalid <name> value"
    return parse


def _allocation(text: str) -> int:
    try:
        k = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--pair takes allocation numbers 1..43; got {text!r}") from None
    if not 1 <= k <= 43:
        raise argparse.ArgumentTypeError(f"--pair takes allocation numbers 1..43; got {k}")
    return k


def _add_pair_argument(parser) -> None:
    parser.add_argument("--pair", nargs=2, type=_allocation, required=True, metavar=("K", "L"),
                        help="allocation numbers, 1..43")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m accountlib",
        description="Exact, certified privacy accounting for the 2020 Census DHC allocations.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    delta = sub.add_parser("delta", help="exact δ(ε) of a DHC pair", description=
                           "The exact δ(ε) of DHC pair (K, L), each value with a certified error bound "
                           "no larger than R·δ.")
    _add_pair_argument(delta)
    delta.add_argument("--eps", nargs="+", type=_number("eps"), required=True, metavar="E",
                       help="ε values (> 0), decimals or fractions, e.g. 26.34 or 1317/50")
    delta.add_argument("--rel-tol", type=_number("rel-tol"), default=Fraction(1, 10**6), metavar="R",
                       help="relative accuracy, in (0, 0.5] (default 1e-6)")
    delta.add_argument("--json", action="store_true", help="print a JSON list instead of a table")

    trade = sub.add_parser("tradeoff", help="exact trade-off curve β = f(α) of a DHC pair", description=
                           "β = f(α) of DHC pair (K, L) (the optimal type II error at type I error α), "
                           "each with a certified absolute error bound.")
    _add_pair_argument(trade)
    trade.add_argument("--alpha", nargs="+", type=_number("alpha"), required=True, metavar="A",
                       help="type I errors in [0, 1]")
    trade.add_argument("--abs-tol", type=_number("abs-tol"), default=Fraction(1, 10**25), metavar="T",
                       help="absolute accuracy, in (0, 0.5] (default 1e-25)")
    trade.add_argument("--json", action="store_true", help="print a JSON list instead of a table")

    try:  # the sweep subcommand lives with the application layer when it is installed
        from .sweep import add_sweep_parser
    except ImportError:
        pass
    else:
        add_sweep_parser(sub)
    return parser


def _pair(k: int, l: int) -> ShiftPair:
    k, l = min(k, l), max(k, l)
    return ShiftPair(census.pair_rhos(k, l))


def _print_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print("  ".join(h.rjust(w) for h, w in zip(header, widths)))
    for row in rows:
        print("  ".join(cell.rjust(w) for cell, w in zip(row, widths)))


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "delta":
        if any(e <= 0 for e in args.eps):
            parser.error(f"--eps values must be > 0; got {[float(e) for e in args.eps if e <= 0]}")
        if not 0 < args.rel_tol <= Fraction(1, 2):
            parser.error(f"--rel-tol must be in (0, 0.5]; got {float(args.rel_tol)}")
        points = _pair(*args.pair).delta(args.eps, rel_tol=float(args.rel_tol))
        rows = [{"epsilon": _decimal(p.epsilon), "delta": _decimal(p.delta), "error_bound": _decimal(p.error_bound)}
                for p in points]
        keys = ("epsilon", "delta", "error_bound")
    elif args.command == "tradeoff":
        if any(not 0 <= a <= 1 for a in args.alpha):
            parser.error(f"--alpha values must lie in [0, 1]; got {[float(a) for a in args.alpha if not 0 <= a <= 1]}")
        if not 0 < args.abs_tol <= Fraction(1, 2):
            parser.error(f"--abs-tol must be in (0, 0.5]; got {float(args.abs_tol)}")
        points = _pair(*args.pair).tradeoff(args.alpha, abs_tol=float(args.abs_tol))
        rows = [{"alpha": _decimal(p.alpha), "beta": _decimal(p.beta), "error_bound": _decimal(p.error_bound)}
                for p in points]
        keys = ("alpha", "beta", "error_bound")
    else:  # pragma: no cover - subcommands registered by other modules
        return args.handler(args)
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
    else:
        _print_table(keys, [tuple(r[k] for k in keys) for r in rows])
    return 0
