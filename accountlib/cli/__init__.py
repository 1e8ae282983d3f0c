"""Command line: ``python -m accountlib ...`` (the public surface listed in the README).

Subcommands
-----------
``delta (--pair K L | --rho R [R ...] | --budgets FILE.csv) --eps E [E ...] [--rel-tol R] [--json]``
    the exact δ(ε) of DHC pair (K, L) — or of the composition of discrete Gaussian mechanisms
    N_Z(0, 1/ρ_i) against N_Z(1, 1/ρ_i) with the budgets given — at each ε, certified to
    error_bound ≤ R·δ.
``... (--release NAME [--paths P Q])`` in place of the three above: a published release's budgets (the 2020
    redistricting data, ``accountlib.applications.census.pl94``).
``tradeoff (--pair K L | --rho R [R ...] | --budgets FILE.csv) --alpha A [A ...] [--abs-tol T] [--json]``
    β = f(α) of the same composition, certified to error_bound ≤ T.

``--rho`` takes exact rationals (decimals or fractions such as 11/10000), each > 0, any number of them;
``--budgets`` a CSV file with a ``rho`` column (one budget per line) and optionally a ``sensitivity``
column: mechanism i then compares N_Z(0, 1/ρ_i) with N_Z(s_i, 1/ρ_i), s_i a whole number
(``ShiftPair(rhos, sensitivities=...)``). ``--pair K L`` is the budgets
of allocations K and L together (``census.pair_rhos``). Exactly one of the three.

The arguments (ε, α) are printed with 30 significant digits; each δ or β with the digits its certified bound
supports (:func:`~accountlib.infrastructure.certified_numbers.certified_decimal`: one decade below the bound, the
rounding added to the bound), and the bound rounded up to two digits (a bound of 1e-845 is printed, never a
false 0). The β of ``tradeoff`` is the exact f(α) at the α asked, not read off stored vertices. Every error — bad input, a request beyond a documented limit, a
tolerance that could not be certified — is one line on stderr and exit status 2;
never a traceback, and never a NaN or infinite number on stdout.

Limits (see book/running.md, "Reliability"): 0 < ε ≤ profiles.MAX_EPSILON (5000);
--rel-tol in [1e-30, 0.5]; --abs-tol in [1e-60, 0.5]; numbers with exponents
beyond ±1000 are refused at once; an engine needing more than
tails.MAX_NODE_BITS node-bits (environment variable ACCOUNTLIB_MAX_NODE_BITS)
is refused before it is built; a --budgets file of more than engine.results.MAX_DISTINCT_TERMS (20,000)
distinct (budget, sensitivity) lines (environment variable ACCOUNTLIB_MAX_DISTINCT_TERMS) is refused as soon as
it is read (repeated lines are merged, so a file at the size cap of repeated budgets is accepted).
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction

RELEASES = ("pl94-persons", "pl94-units", "pl94-persons-pr", "pl94-units-pr")
"""The names ``--release`` takes (accountlib.applications.census.pl94.PL94_RELEASES; listed here so that the
command line's start does not import the census application)."""

import mpmath

from ..engine.results import check_distinct_terms
from ..infrastructure.certified_numbers import certified_decimal, exact_rational
from ..infrastructure.numbers import (SMALLEST_ABS_TOL, SMALLEST_REL_TOL, as_abs_tol, as_fraction, as_rel_tol,
                                     decimal_string)
from ..theory.profiles import MAX_EPSILON, MAX_SENSITIVITY, ShiftPair, check_budget

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
        from ..applications.census import check_allocation  # here: delta --rho needs no census

        return check_allocation(text, "each number")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _budget(text: str) -> Fraction:
    try:
        rho = as_fraction(text, "--rho")
    except ValueError as error:
        shown = text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"
        raise argparse.ArgumentTypeError(str(error).replace(text, shown)) from None
    if rho <= 0:
        raise argparse.ArgumentTypeError(f"--rho budgets must be > 0; got {text!r}")
    try:
        check_budget(rho, "--rho")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return rho


MAX_BUDGET_FILE_BYTES = 10**7


def _budgets_file(path: str) -> tuple[list[Fraction], list[int] | None]:
    """The budgets (and sensitivities, when the file has that column) of a CSV file with header ``rho`` or
    ``rho,sensitivity``: each budget > 0, each sensitivity a positive integer."""
    import csv
    import io
    from pathlib import Path

    from ..infrastructure.atomic import read_capped  # here: only --budgets reads a file

    try:
        data = read_capped(Path(path), MAX_BUDGET_FILE_BYTES)
        text = data.decode("utf-8-sig")
    except ValueError as error:
        _fail(f"--budgets {path}: {error}")
    except (OSError, UnicodeDecodeError) as error:
        _fail(f"--budgets {path}: cannot be read ({type(error).__name__}: {getattr(error, 'strerror', None) or error})")
    try:  # universal newlines: CR-only files read as lines; a field past csv's limit is a malformed file
        rows = [row for row in csv.reader(io.StringIO(text, newline=None)) if any(cell.strip() for cell in row)]
    except csv.Error as error:
        _fail(f"--budgets {path}: not a CSV file of one budget per line ({error})")
    header = [cell.strip().lower() for cell in rows[0]] if rows else []
    if header not in (["rho"], ["rho", "sensitivity"]):
        _fail(f"--budgets {path}: the first line must be the header rho (or rho,sensitivity); got "
              f"{','.join(rows[0]) if rows else 'an empty file'!r}")
    budgets, shifts = [], []
    parsed: dict[str, Fraction] = {}  # each distinct text is read once (a file at the cap repeats its values)
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            _fail(f"--budgets {path}: line {line} has {len(row)} fields, expected {len(header)}")
        where = f"--budgets {path} line {line}"
        rho = parsed.get(row[0])
        if rho is None:
            rho = parsed[row[0]] = as_fraction(row[0], f"{where} rho")
        if rho <= 0:
            _fail(f"{where}: rho must be > 0 (drop unused mechanisms); got {row[0].strip()!r}")
        if len(row) == 2:
            shift = as_fraction(row[1], f"{where} sensitivity")
            if shift.denominator != 1 or not 1 <= shift <= MAX_SENSITIVITY:
                _fail(f"{where}: sensitivity must be a whole number in 1..{MAX_SENSITIVITY} (the noise lives on the "
                      f"integers, so a query moves by a whole number); got {row[1].strip()!r}")
            shifts.append(int(shift))
        budgets.append(rho)
    if not budgets:
        _fail(f"--budgets {path}: no budgets below the header")
    distinct = len({(r.numerator, r.denominator, s) for r, s in zip(budgets, shifts or [1] * len(budgets))})
    try:  # refused here, in seconds, before the lattice and the engine are built
        check_distinct_terms(distinct, f"--budgets {path}")
    except ValueError as error:
        _fail(str(error))
    return budgets, (shifts if len(header) == 2 else None)


def _add_pair_argument(parser, group=None) -> None:
    which = parser.add_mutually_exclusive_group(required=True) if group is None else group
    which.add_argument("--pair", nargs=2, action=_Once, type=_allocation, metavar=("K", "L"),
                       help="DHC allocation numbers, 1..43 (the budgets of allocations K and L together)")
    which.add_argument("--rho", nargs="+", action=_Once, type=_budget, metavar="R",
                       help="your own composition: the budgets ρ_i > 0 of mechanisms N_Z(0, 1/ρ_i) against "
                       "N_Z(1, 1/ρ_i), exact decimals or fractions, e.g. 0.05 11/10000")
    which.add_argument("--budgets", action=_Once, metavar="FILE.csv",
                       help="the budgets from a CSV file: a header line rho (or rho,sensitivity) and one mechanism "
                       "per line; mechanism i compares N_Z(0, 1/ρ_i) with N_Z(s_i, 1/ρ_i), s_i its sensitivity "
                       "(a whole number, default 1)")
    which.add_argument("--release", action=_Once, choices=RELEASES, metavar="NAME",
                       help="a published release's budgets: pl94-persons, pl94-units (the 2020 redistricting data, "
                       "US), pl94-persons-pr, pl94-units-pr (Puerto Rico), derived from the Census Bureau's "
                       "production code (accountlib.applications.census.pl94). One modified record moves a cell in "
                       "every measurement of its old block's path and of its new block's: --paths P Q names the two "
                       "(default: plain plain, the geographic levels with their configured shares; the others are "
                       "'absorbed-...' paths, where the spine optimisation moved a one-child level's share up; list "
                       "them with --paths list). The worst pair is found in the book's chapter on the release "
                       "(census.pl94_worst_epsilon)")
    parser.add_argument("--paths", nargs=2, action=_Once, metavar=("P", "Q"),
                        help="with --release: the old and the new block's paths (default: plain plain)")


class _Once(argparse.Action):
    """Store an option's value(s), refusing the option when it is given a second time (argparse would silently
    keep the last: ``--eps 1 --eps 2`` would compute δ(2) only)."""

    def __call__(self, parser, namespace, values, option_string=None):
        seen = namespace.__dict__.setdefault("_given_once", set())
        if self.dest in seen:
            raise CommandLineError(f"{parser.prog}: {option_string} is given twice; give it once, with all its values "
                                   f"(e.g. {option_string} V1 V2)" if self.nargs in ("+", "*") else
                                   f"{parser.prog}: {option_string} is given twice; give it once")
        seen.add(self.dest)
        setattr(namespace, self.dest, values)


class CommandLineError(Exception):
    """An error reported to the user as one line on stderr, exit status 2."""


class Listing(Exception):
    """A listing the user asked for (``--paths list list``): printed on stdout, exit status 0."""


class _Parser(argparse.ArgumentParser):
    """argparse, but every error is one line (no usage block) and exit status 2."""

    def error(self, message):
        raise CommandLineError(f"{self.prog}: {message}")

    def parse_args(self, args=None, namespace=None):
        """As argparse, but an option another subcommand takes names the subcommand's help."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = " ".join(w for w in (getattr(parsed, "command", None), getattr(parsed, "target", None)) if w)
            self.error(f"unrecognized arguments: {' '.join(extras)} (see {self.prog} {command} --help)"
                       if command else f"unrecognized arguments: {' '.join(extras)}")
        return parsed


#: The subcommands defined in this package (the parser of ``sweep`` lists installed targets, which takes a
#: scan of the installed packages' entry points: done only when ``sweep`` or the top-level help is asked for).
COMMANDS = ("delta", "tradeoff", "epsilon", "calibrate", "allocate", "dpsgd")


def _parser(argv=None) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m accountlib",
        description="Exact, certified privacy accounting for the 2020 Census DHC allocations and any composition "
                    "of discrete Gaussian mechanisms.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    delta = sub.add_parser("delta", help="exact δ(ε) of a DHC pair or of your own budgets", description=
                           "The exact δ(ε) of DHC pair (K, L), or of the composition with budgets --rho / "
                           "--budgets, each value with a certified error bound "
                           "no larger than R·δ. If that bound cannot be certified the command fails (exit 2) "
                           "rather than print a looser one.")
    _add_pair_argument(delta)
    delta.add_argument("--eps", nargs="+", action=_Once, type=_number("eps"), required=True, metavar="E",
                       help=f"ε values in (0, {MAX_EPSILON}], decimals or fractions, e.g. 26.34 or 1317/50")
    delta.add_argument("--rel-tol", action=_Once, type=_number("rel-tol"), default=Fraction(1, 10**6), metavar="R",
                       help=f"relative accuracy, in [{SMALLEST_REL_TOL:g}, 0.5] (default 1e-6); an unmet "
                       "tolerance is an error (exit 2)")
    delta.add_argument("--json", action="store_true", help="print a JSON list instead of a table")

    trade = sub.add_parser("tradeoff", help="exact trade-off curve β = f(α) of a DHC pair or of your own budgets",
                           description="β = f(α) of DHC pair (K, L) or of the composition with budgets --rho / "
                           "--budgets (the optimal type II error at type I error α), "
                           "each with a certified absolute error bound no larger than T. If that bound "
                           "cannot be certified the command fails (exit 2).")
    _add_pair_argument(trade)
    trade.add_argument("--alpha", nargs="+", action=_Once, type=_number("alpha"), required=True, metavar="A",
                       help="type I errors in [0, 1]")
    trade.add_argument("--abs-tol", action=_Once, type=_number("abs-tol"), default=Fraction(1, 10**25), metavar="T",
                       help=f"absolute accuracy, in [{SMALLEST_ABS_TOL:g}, 0.5] (default 1e-25); an unmet "
                       "tolerance is an error (exit 2)")
    trade.add_argument("--json", action="store_true", help="print a JSON list instead of a table")

    from .calibrate import add_calibration_parsers

    add_calibration_parsers(sub)
    from .dpsgd import add_dpsgd_parser

    add_dpsgd_parser(sub)
    if argv and argv[0] in COMMANDS:  # another command: sweep is only listed, not built
        sub.add_parser("sweep", help="run the DHC pairs (or another installed target) on a process pool or a "
                       "Dask cluster")
    else:
        from .sweep import add_sweep_parser  # here, not at the top: the other commands do not need it

        add_sweep_parser(sub)
    return parser


#: The extra that installs each third-party module a subcommand may need, and the distribution declaring it.
EXTRA_OF_MODULE = {"torch": ("accountbook", "dpsgd"), "opacus": ("accountbook", "dpsgd"),
                   "sklearn": ("accountbook", "dpsgd"), "dask": ("accountlib", "dist"),
                   "distributed": ("accountlib", "dist")}


def _unavailable(command: str, error: ImportError) -> str:
    """Why ``command`` cannot run, and what to install."""
    module = (error.name or "").split(".")[0]
    if module in EXTRA_OF_MODULE:
        package, extra = EXTRA_OF_MODULE[module]
        fix = f"install the '{extra}' extra: pip install '{package}[{extra}]'"
    else:
        fix = "reinstall the package that provides it"
    return f"the {command} command is unavailable: importing it failed ({_one_line(error)}); {fix}"


def _pair(k: int, l: int) -> ShiftPair:
    k, l = min(k, l), max(k, l)
    from ..applications.census import pair_rhos

    return ShiftPair(pair_rhos(k, l))


def _composition(args) -> ShiftPair:
    """The pair the user named: ``--pair K L``, ``--rho R ...``, ``--budgets FILE.csv`` or ``--release NAME``."""
    paths = getattr(args, "paths", None)
    if paths is not None and getattr(args, "release", None) is None:
        _fail("--paths goes with --release (the two paths of a published release's modified record)")
    if getattr(args, "release", None) is not None:
        from ..applications.census import pl94

        paths = paths or ["plain", "plain"]
        if paths == ["list", "list"] or "list" in paths:
            raise Listing(f"the paths of {args.release}: {', '.join(pl94.pl94_paths(args.release))}")
        try:
            return ShiftPair(pl94.pl94_rhos(args.release, paths[0], paths[1]))
        except ValueError as error:
            _fail(f"--paths: {error}")
    if args.pair is not None:
        return _pair(*args.pair)
    if args.rho is not None:
        return ShiftPair(args.rho)
    budgets, shifts = _budgets_file(args.budgets)
    return ShiftPair(budgets, sensitivities=shifts)


def _print_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print("  ".join(h.rjust(w) for h, w in zip(header, widths)))
    for row in rows:
        print("  ".join(cell.rjust(w) for cell, w in zip(row, widths)))


def main(argv=None) -> int:
    """Run the command line; every error is one line on stderr and exit status 2."""
    try:
        return _main(argv)
    except Listing as listing:
        print(listing)
        return 0
    except CommandLineError as error:
        print(f"error: {_one_line(error)}", file=sys.stderr)
    except (ValueError, ArithmeticError) as error:  # bad input, resource limits, uncertifiable results
        print(f"error: {_one_line(error)}", file=sys.stderr)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except MemoryError:
        print("error: out of memory; loosen the tolerance (see ACCOUNTLIB_MAX_NODE_BITS)", file=sys.stderr)
    except Exception as error:  # noqa: BLE001 - a bug still gets one line, not a traceback
        print(f"error: internal error ({type(error).__name__}): {_one_line(error)}", file=sys.stderr)
    return 2


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def _fail(message: str):
    raise CommandLineError(message)


_NEGATIVE_VALUE_MESSAGES = {
    "--rho": "--rho budgets must be > 0",
    "--eps": f"--eps values must be > 0 and at most {MAX_EPSILON} (the largest supported ε)",
    "--alpha": "--alpha values must lie in [0, 1]",
    "--rel-tol": f"--rel-tol must be in [{SMALLEST_REL_TOL:g}, 0.5]",
    "--abs-tol": f"--abs-tol must be in [{SMALLEST_ABS_TOL:g}, 0.5]",
}


def _looks_negative(token: str) -> bool:
    """A token such as -1, -1/2, -.5, -1e3, -inf or -nan: a negative value, not an option."""
    rest = token[1:].strip().lower()
    return token.startswith("-") and (rest[:1].isdigit() or rest[:1] == "." or rest in ("inf", "infinity", "nan"))


def _refuse_negative_budgets(argv: list[str]) -> None:
    """argparse reads ``--eps -1/2`` or ``--rho -1/10`` as an unknown option ("expected at least one argument");
    name the real problem instead: the option, the value and what it accepts."""
    option = None
    for token in argv:
        if token in _NEGATIVE_VALUE_MESSAGES:
            option = token
        elif option is not None and _looks_negative(token):
            _fail(f"{_NEGATIVE_VALUE_MESSAGES[option]}; got {token!r}")
        elif token.startswith("-"):
            option = None


def _tolerance(value: Fraction, option: str) -> float:
    """A --rel-tol or --abs-tol value, as a float, checked by the library's one validator of its kind
    (:func:`~accountlib.infrastructure.numbers.as_rel_tol`, :func:`~accountlib.infrastructure.numbers.as_abs_tol`)."""
    check, smallest = (as_rel_tol, SMALLEST_REL_TOL) if option == "rel-tol" else (as_abs_tol, SMALLEST_ABS_TOL)
    try:
        return check(value, f"--{option}")
    except ValueError:
        _fail(f"--{option} must be in [{smallest:g}, 0.5]; got {decimal_string(value, 6)}")


def _exact(number: float, like):
    """A tolerance as the number it prints as: a Fraction next to the printed (exact) values, an mpf next to the
    engine's results."""
    return Fraction(repr(number)) if isinstance(like, Fraction) else mpmath.mpf(repr(number))


def _uncertified_delta(pair, point, rel_tol: float) -> str:
    """The one-line error of a δ(ε) whose bound misses --rel-tol: the certified upper bound, and where the ε of
    these budgets is certified to a relative accuracy."""
    where = f"could not certify --rel-tol {rel_tol:g} at ε = {decimal_string(point.epsilon, 10)}"
    if point.delta > point.error_bound:
        return (f"{where}: the best certified bound is {decimal_string(point.error_bound, 3)} on δ = "
                f"{decimal_string(point.delta, 6)}; loosen --rel-tol")
    with mpmath.workdps(30):
        upper = mpmath.nstr(mpmath.mpf(point.delta) + point.error_bound, 3, min_fixed=-4, max_fixed=6)
    limit = pair.relative_epsilon_limit()
    if limit is None or exact_rational(point.epsilon) < limit:
        return f"{where}: only the certified upper bound δ ≤ {upper} was reached; loosen --rel-tol"
    return (f"{where}: only the certified upper bound δ ≤ {upper} (the rigorous sub-Gaussian tail bound); --eps "
            f"below {decimal_string(limit, 10)} is certified to a relative accuracy for these budgets")


def _certified_rows(points, keys: tuple[str, ...], certified, explain, coarsest) -> list[dict]:
    """The points as rows of decimal strings; the first point whose printed bound misses the tolerance fails the
    command. The argument (ε or α) is printed as given (30 digits), the result and its bound with the digits the
    bound supports (the engine is asked for half the tolerance, so that the widened printed bound still meets it).
    A bound below ``coarsest(value)`` (15 decades finer than the finest tolerance accepted) is printed as that
    (still a certified bound): a δ of 1 − 1e-15200 certified to 1e-15200 prints with 46 digits, not 15,200."""
    rows = []
    for p in points:
        result, bound = getattr(p, keys[1]), getattr(p, keys[2])
        with mpmath.workdps(40):
            widest = coarsest(mpmath.mpf(result))
            if widest > bound:
                bound = widest
            if not certified(mpmath.mpf(result), mpmath.mpf(bound)):  # fails before any exact decimal arithmetic
                _fail(explain(p))
        value, bound = certified_decimal(result, bound)
        if not certified(Fraction(value), Fraction(bound)):
            _fail(explain(p))
        rows.append({keys[0]: _decimal(getattr(p, keys[0])), keys[1]: value, keys[2]: bound})
    return rows


def _main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    _refuse_negative_budgets(argv)
    parser = _parser(argv)
    args = parser.parse_args(argv)
    if args.command == "delta":
        bad = [decimal_string(e, 6) for e in args.eps if e <= 0 or e > MAX_EPSILON]
        if bad:
            _fail(f"--eps values must be > 0 and at most {MAX_EPSILON} (the largest supported ε); got {', '.join(bad)}")
        rel_tol = _tolerance(args.rel_tol, "rel-tol")
        pair = _composition(args)
        points = pair.delta(args.eps, rel_tol=max(rel_tol / 2, SMALLEST_REL_TOL))
        keys = ("epsilon", "delta", "error_bound")
        rows = _certified_rows(points, keys, lambda value, bound: bound <= _exact(rel_tol, value) * value,
                               lambda p: _uncertified_delta(pair, p, rel_tol),
                               lambda value: abs(value) * mpmath.mpf("1e-45"))
    elif args.command == "tradeoff":
        bad = [decimal_string(a, 6) for a in args.alpha if not 0 <= a <= 1]
        if bad:
            _fail(f"--alpha values must lie in [0, 1]; got {', '.join(bad)}")
        abs_tol = _tolerance(args.abs_tol, "abs-tol")
        points = _composition(args).tradeoff(args.alpha, abs_tol=max(abs_tol / 2, SMALLEST_ABS_TOL))
        keys = ("alpha", "beta", "error_bound")
        rows = _certified_rows(points, keys, lambda value, bound: bound <= _exact(abs_tol, bound),
                               lambda p: f"could not certify --abs-tol {abs_tol:g} at α = {decimal_string(p.alpha, 10)}: "
                               f"the best certified bound is {decimal_string(p.error_bound, 3)}; loosen --abs-tol",
                               lambda value: mpmath.mpf("1e-75"))
    else:  # pragma: no cover - subcommands registered by other modules
        return args.handler(args)
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
    else:
        _print_table(keys, [tuple(r[k] for k in keys) for r in rows])
    return 0
