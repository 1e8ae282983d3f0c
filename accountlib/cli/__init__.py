"""Command line: ``python -m accountlib ...`` (the public surface listed in the README).

This module is the command line's common part — :func:`main`, the parser, the arguments that name a composition,
one-line errors, printing — and each command is a module of its own (:mod:`.delta`, :mod:`.tradeoff`,
:mod:`.epsilon`, :mod:`.calibrate`, :mod:`.allocate`, :mod:`.sweep`): a run imports the one it uses.

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
(``Composition(rhos, sensitivities=...)``). ``--pair K L`` is the budgets
of allocations K and L together (``census.pair_rhos``). Exactly one of the three.

The arguments (ε, α) are printed with 30 significant digits; each δ or β with the digits its certified bound
supports (:func:`~accountlib.infrastructure.numbers.certified_decimal`: one decade below the bound, the
rounding added to the bound), and the bound rounded up to two digits (a bound of 1e-845 is printed, never a
false 0). The β of ``tradeoff`` is the exact f(α) at the α asked, not read off stored vertices. Every error — bad input, a request beyond a documented limit, a
tolerance that could not be certified — is one line on stderr and exit status 2;
never a traceback, and never a NaN or infinite number on stdout.

Limits (see book/running.md, "Reliability"): 0 ≤ ε ≤ composition.MAX_EPSILON (5000);
--rel-tol in [1e-30, 0.5]; --abs-tol in [1e-60, 0.5] (an ε interval's width, epsilon --abs-tol, in
[1e-30, 0.5]); every number is a decimal or a fraction of nonzero magnitude within [1e-1000, 1e1000] and at most
1000 digits (so a nonzero ε, α or δ below 1e-1000 is refused at once, and Python's digit grouping, 1_000, too);
an engine needing more than
tails.MAX_NODE_BITS node-bits (environment variable ACCOUNTLIB_MAX_NODE_BITS)
is refused before it is built; a --budgets file of more than engine.results.MAX_DISTINCT_TERMS (20,000)
distinct (budget, sensitivity) lines (environment variable ACCOUNTLIB_MAX_DISTINCT_TERMS) is refused as soon as
it is read (repeated lines are merged, so a file at the size cap of repeated budgets is accepted).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import re
import sys
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal, DivisionByZero, Inexact, InvalidOperation, Overflow, Underflow
from decimal import localcontext
from contextlib import contextmanager
from fractions import Fraction

import mpmath

from ..engine.results import check_distinct_terms
from ..infrastructure.numbers import (LARGEST_TOL, SMALLEST_ABS_TOL, SMALLEST_REL_TOL, SMALLEST_RESOLUTION,
                                     ResourceLimitError, as_abs_tol, as_fraction, as_rel_tol, as_resolution, as_string, certified_decimal,
                                     decimal_string, floor_log10, fraction_to_mpf)
from ..theory.composition import MAX_EPSILON, MAX_SENSITIVITY, Composition, check_budget
from .typed import dpsgd_options_refusal, in_option_terms, negative_value_refusal, trimmed

__all__ = ["main", "build_parser", "COMMANDS", "RELEASES", "DIGITS", "CommandLineError", "Listing", "Parser", "Once",
           "number", "fail", "one_line", "unavailable", "add_composition_arguments", "composition", "read_budgets_file",
           "tolerance", "certified_rows", "Rows", "print_table", "emit_rows", "emit_row", "add_target_arguments", "target",
           "certificate", "decimal", "EXTRA_OF_MODULE", "MAX_BUDGET_FILE_BYTES"]

RELEASES = ("pl94-persons", "pl94-units", "pl94-persons-pr", "pl94-units-pr")
"""The names ``--release`` takes (accountlib.applications.census.pl94.PL94_RELEASES; listed here so that the
command line's start does not import the census application)."""

COMMANDS = {
    "delta": "exact δ(ε) of a DHC pair or of your own budgets",
    "tradeoff": "exact trade-off curve β = f(α) of a DHC pair or of your own budgets",
    "epsilon": "the certified ε for a δ of a DHC pair or of your own budgets",
    "calibrate": "the smallest noise meeting a target, certified on both sides",
    "allocate": "per-query budgets minimising Σ w_i σ_i² under an exact target",
    "dpsgd": "certified accounting for DP-SGD (the Poisson-subsampled Gaussian): delta, epsilon, tradeoff, calibrate",
    "sweep": "run the DHC pairs (or another installed target, such as the book's DP-SGD and chapter sweeps) on a "
             "process pool or a Dask cluster",
}
"""The subcommands, each a module of this package (``accountlib.cli.<name>``, with ``add_parser`` and ``run``), and
the line ``--help`` lists for it."""

DIGITS = 30
"""Significant digits of the arguments (ε, α) as the command line prints them."""


# -- the parser: one-line errors, options given once ---------------------------------------------------------------

class CommandLineError(Exception):
    """An error reported to the user as one line on stderr, exit status 2."""


class Listing(Exception):
    """A listing the user asked for (``--paths list list``): printed on stdout, exit status 0."""


class Parser(argparse.ArgumentParser):
    """argparse, but every error is one line (no usage block) and exit status 2."""

    def error(self, message):
        """Raise :class:`CommandLineError` with argparse's message (one line, exit status 2) instead of printing
        usage; a nan or inf is told the range the option's help states."""
        raise CommandLineError(f"{self.prog}: {self._with_range(message)}")

    def _with_range(self, message: str) -> str:
        """``argument --rel-tol: rel-tol must be finite; got 'nan'`` as ``--rel-tol must be a finite
        number in [1e-30, 0.5]; got 'nan'``: the accepted range as the option's ``--help`` states it."""
        found = re.match(r"argument (--[\w-]+): \S+ must be finite; got (.*)$", message)
        if not found:
            return message
        action = next((a for a in self._actions if found.group(1) in a.option_strings), None)
        stated = re.search(r"in [\[(][^\])]*[\])]|> 0|(\d+) to ([\de+]+)", str(getattr(action, "help", None) or ""))
        if not stated:
            return message
        accepted = f"in [{stated.group(1)}, {stated.group(2)}]" if stated.group(1) else stated.group(0)
        return f"{found.group(1)} must be a finite number {accepted}; got {found.group(2)}"

    def parse_args(self, args=None, namespace=None):
        """As argparse, but an option another subcommand takes names the subcommand's help."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = " ".join(w for w in (getattr(parsed, "command", None), getattr(parsed, "target", None)) if w)
            self.error(f"unrecognized arguments: {' '.join(extras)} (see {self.prog} {command} --help)"
                       if command else f"unrecognized arguments: {' '.join(extras)}")
        return parsed


class Once(argparse.Action):
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


def refuse_underscores(text: str, option: str) -> None:
    """Refuse Python's digit grouping (``1_0``, which Python reads as 10) in a number given on the command line or in
    a --budgets file: not one of the forms documented (a decimal, a fraction, a float's scientific form)."""
    if "_" in text:
        shown = text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"
        raise ValueError(f"{option} must be a decimal (e.g. 0.05, 1e-6) or a fraction (e.g. 11/10000), without "
                         f"underscores; got {shown!r}")


def number(name: str):
    """An argparse ``type`` reading an exact number (:func:`~accountlib.infrastructure.numbers.as_fraction`)."""
    def parse(text: str) -> Fraction:
        try:
            refuse_underscores(text, f"--{name}")
            return as_fraction(text, name, floats="decimal")
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    parse.__name__ = name  # argparse shows it in "invalid <name> value"
    return parse


def fail(message: str):
    """Stop the command with ``message`` as its one-line error (exit status 2)."""
    raise CommandLineError(message)


def one_line(error: BaseException) -> str:
    """An error's message on one line."""
    return " ".join(str(error).split()) or type(error).__name__


def build_parser(argv=None) -> argparse.ArgumentParser:
    """The command line's parser. Only the command named first in ``argv`` is imported and built in full; the others
    are listed with their help line (all are built when no command is named, for ``--help``)."""
    parser = Parser(
        prog="python -m accountlib",
        description="Exact, certified privacy accounting for the 2020 Census DHC allocations and any composition "
                    "of discrete Gaussian mechanisms.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    named = argv[0] if argv and argv[0] in COMMANDS else None
    for name, help_line in COMMANDS.items():
        if named is None or name == named:
            importlib.import_module(f"{__name__}.{name}").add_parser(sub)
        else:
            sub.add_parser(name, help=help_line)
    return parser


#: The extra that installs each third-party module a subcommand may need, and the distribution declaring it.
EXTRA_OF_MODULE = {"torch": ("accountbook", "dpsgd"), "opacus": ("accountbook", "dpsgd"),
                   "sklearn": ("accountbook", "dpsgd"), "dask": ("accountlib", "dist"),
                   "distributed": ("accountlib", "dist")}


def unavailable(command: str, error: ImportError) -> str:
    """Why ``command`` cannot run, and what to install."""
    module = (error.name or "").split(".")[0]
    if module in EXTRA_OF_MODULE:
        package, extra = EXTRA_OF_MODULE[module]
        fix = f"install the '{extra}' extra: pip install '{package}[{extra}]'"
    else:
        fix = "reinstall the package that provides it"
    return f"the {command} command is unavailable: importing it failed ({one_line(error)}); {fix}"


# -- the composition a command is about: --pair, --rho, --budgets or --release -----------------------------------

def _allocation(text: str) -> int:
    try:
        from ..applications.census.allocations import check_allocation  # here: delta --rho needs no census

        return check_allocation(text, "each number")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _budget(text: str) -> Fraction:
    try:
        refuse_underscores(text, "--rho")
        rho = as_fraction(text, "--rho", floats="decimal")
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
"""The largest ``--budgets`` file read (bytes actually read, devices and pipes included)."""


def read_budgets_file(path: str) -> tuple[list[Fraction], list[int] | None]:
    """The budgets (and sensitivities, when the file has that column) of a CSV file with header ``rho`` or
    ``rho,sensitivity``: each budget > 0, each sensitivity a positive integer."""
    import csv
    import io
    from pathlib import Path

    from ..infrastructure.atomic import read_capped  # here: only --budgets reads a file

    try:
        data = read_capped(Path(path), MAX_BUDGET_FILE_BYTES)
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:  # a ValueError too: caught first, in the user's terms
        fail(f"--budgets {path}: not a UTF-8 text file (byte {error.object[error.start]:#04x} at offset {error.start} "
             "is not UTF-8); give a CSV text file: a header line rho (or rho,sensitivity), then one budget per line")
    except ValueError as error:
        fail(f"--budgets {path}: {error}")
    except OSError as error:
        fail(f"--budgets {path}: cannot be read ({type(error).__name__}: {getattr(error, 'strerror', None) or error})")
    try:  # universal newlines: CR-only files read as lines; a field past csv's limit is a malformed file
        rows = [row for row in csv.reader(io.StringIO(text, newline=None)) if any(cell.strip() for cell in row)]
    except csv.Error as error:
        fail(f"--budgets {path}: not a CSV file of one budget per line ({error})")
    header = [cell.strip().lower() for cell in rows[0]] if rows else []
    if header not in (["rho"], ["rho", "sensitivity"]):
        fail(f"--budgets {path}: the first line must be the header rho (or rho,sensitivity); got "
             f"{','.join(rows[0]) if rows else 'an empty file'!r}")
    budgets, shifts = [], []
    parsed: dict[str, Fraction] = {}  # each distinct text is read once (a file at the cap repeats its values)
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            fail(f"--budgets {path}: line {line} has {len(row)} fields, expected {len(header)}")
        where = f"--budgets {path} line {line}"
        rho = parsed.get(row[0])
        if rho is None:
            try:
                refuse_underscores(row[0], f"{where}: rho")
                refuse_underscores(row[1] if len(row) == 2 else "", f"{where}: sensitivity")
            except ValueError as error:
                fail(str(error))
            rho = parsed[row[0]] = as_fraction(row[0], f"{where} rho", floats="decimal")
        if rho <= 0:
            fail(f"{where}: rho must be > 0 (drop unused mechanisms); got {row[0].strip()!r}")
        if len(row) == 2:
            shift = as_fraction(row[1], f"{where} sensitivity", floats="decimal")
            if shift.denominator != 1 or not 1 <= shift <= MAX_SENSITIVITY:
                fail(f"{where}: sensitivity must be a whole number in 1..{MAX_SENSITIVITY} (the noise lives on the "
                     f"integers, so a query moves by a whole number); got {row[1].strip()!r}")
            shifts.append(int(shift))
        budgets.append(rho)
    if not budgets:
        fail(f"--budgets {path}: no budgets below the header")
    distinct = len({(r.numerator, r.denominator, s) for r, s in zip(budgets, shifts or [1] * len(budgets))})
    try:  # refused here, in seconds, before the lattice and the engine are built
        check_distinct_terms(distinct, f"--budgets {path}")
    except ValueError as error:
        fail(str(error))
    return budgets, (shifts if len(header) == 2 else None)


def add_composition_arguments(parser, group=None) -> None:
    """The options naming the composition (exactly one of --pair, --rho, --budgets, --release; --paths)."""
    which = parser.add_mutually_exclusive_group(required=True) if group is None else group
    which.add_argument("--pair", nargs=2, action=Once, type=_allocation, metavar=("K", "L"),
                       help="DHC allocation numbers, 1..43 (the budgets of allocations K and L together)")
    which.add_argument("--rho", nargs="+", action=Once, type=_budget, metavar="R",
                       help="your own composition: the budgets ρ_i > 0 of mechanisms N_Z(0, 1/ρ_i) against "
                       "N_Z(1, 1/ρ_i), exact decimals or fractions, e.g. 0.05 11/10000")
    which.add_argument("--budgets", action=Once, metavar="FILE.csv",
                       help="the budgets from a CSV file: a header line rho (or rho,sensitivity) and one mechanism "
                       "per line; mechanism i compares N_Z(0, 1/ρ_i) with N_Z(s_i, 1/ρ_i), s_i its sensitivity "
                       "(a whole number, default 1)")
    which.add_argument("--release", action=Once, choices=RELEASES, metavar="NAME",
                       help="a published release's budgets: pl94-persons, pl94-units (the 2020 redistricting data, "
                       "US), pl94-persons-pr, pl94-units-pr (Puerto Rico), derived from the Census Bureau's "
                       "production code (accountlib.applications.census.pl94). One modified record moves a cell in "
                       "every measurement of its old block's path and of its new block's: --paths P Q names the two "
                       "(default: plain plain, the geographic levels with their configured shares; the others are "
                       "'absorbed-...' paths, where the spine optimisation moved a one-child level's share up; list "
                       "them with --paths list). The worst pair is found in the book's chapter on the release "
                       "(census.pl94_worst_epsilon)")
    parser.add_argument("--paths", nargs=2, action=Once, metavar=("P", "Q"),
                        help="with --release: the old and the new block's paths (default: plain plain)")


def composition(args) -> Composition:
    """The composition the user named: ``--pair K L``, ``--rho R ...``, ``--budgets FILE.csv`` or ``--release NAME``."""
    paths = getattr(args, "paths", None)
    if paths is not None and getattr(args, "release", None) is None:
        fail("--paths goes with --release (the two paths of a published release's modified record)")
    if getattr(args, "release", None) is not None:
        from ..applications.census import pl94

        paths = paths or ["plain", "plain"]
        if paths == ["list", "list"] or "list" in paths:
            raise Listing(f"the paths of {args.release}: {', '.join(pl94.pl94_paths(args.release))}")
        try:
            return Composition(pl94.pl94_rhos(args.release, paths[0], paths[1]))
        except ValueError as error:
            fail(f"--paths: {error}")
    if args.pair is not None:
        from ..applications.census.allocations import pair_rhos

        k, l = args.pair
        return Composition(pair_rhos(min(k, l), max(k, l)))
    if args.rho is not None:
        return _named("--rho", lambda: Composition(args.rho))
    budgets, shifts = read_budgets_file(args.budgets)
    return _named("--budgets", lambda: Composition(budgets, sensitivities=shifts))


def composition_option(args) -> str:
    """The option that named the composition, as the user gave it: --pair K L, --rho, --budgets FILE or --release NAME."""
    if getattr(args, "release", None) is not None:
        return f"--release {args.release}"
    if getattr(args, "pair", None) is not None:
        return f"--pair {args.pair[0]} {args.pair[1]}"
    if getattr(args, "rho", None) is not None:
        return "--rho"
    return f"--budgets {args.budgets}"


@contextmanager
def engine_refusals_named(args):
    """An engine's refusal of the composition's work (``ResourceLimitError``: nodes, memory, the lattice's size)
    as one line naming the option that gave the composition (a refusal about a tolerance names its option already)."""
    try:
        yield
    except ResourceLimitError as error:
        handler = getattr(args, "handler", None)  # the command, from its module's name (argv may be a caller's own)
        command = [handler.__module__.rsplit(".", 1)[-1]] if handler is not None else None
        message = in_option_terms(one_line(error), command)
        fail(message if message.startswith("--") else f"{composition_option(args)}: {message}")


def _named(option: str, build):
    """``build()``, its ValueError (a refused budget, a lattice no engine computes) failing with ``option`` named."""
    try:
        return build()
    except ValueError as error:
        message = re.sub(r"^[a-z_]+ has ([\d,]+ distinct terms)", r"the composition has \1", one_line(error))  # not the
        # library's argument name (r37k R6: "--rho: rhos has 3 distinct terms"); a setting of the environment
        # (ACCOUNTLIB_...) is not the option's fault: its message names the variable
        fail(message if option in message or "environment variable" in message else f"{option}: {message}")


# -- tolerances and certified output --------------------------------------------------------------------------------

def tolerance(value: Fraction, option: str, *, width: bool = False) -> float:
    """A --rel-tol or --abs-tol value, as a float, checked by the library's one validator of its kind
    (:func:`~accountlib.infrastructure.numbers.as_rel_tol`, :func:`~accountlib.infrastructure.numbers.as_abs_tol`;
    ``width``: the --abs-tol of an ε interval, :func:`~accountlib.theory.targets.as_epsilon_width`)."""
    if width:
        from ..theory.targets import SMALLEST_EPSILON_WIDTH, as_epsilon_width  # the epsilon command's own range

        check, smallest = as_epsilon_width, SMALLEST_EPSILON_WIDTH
    else:
        check, smallest = (as_rel_tol, SMALLEST_REL_TOL) if option == "rel-tol" else (as_abs_tol, SMALLEST_ABS_TOL)
    try:
        return check(value, f"--{option}")
    except ValueError:
        from ..infrastructure.shown import shown_value  # messages only

        fail(f"--{option} must be in [{smallest:g}, 0.5]; got {shown_value(value) if abs(value) < 10**300 else decimal_string(value, 6)}")


def exact_tolerance(number: float, like):
    """A tolerance as the number it prints as: a Decimal (exact) next to the printed values (:func:`certified_rows`'
    exact decimal context), a Fraction next to a Fraction, an mpf next to the engine's results."""
    exact = as_fraction(number, "tolerance", floats="decimal")
    if isinstance(like, Decimal):
        with localcontext(_exact_decimals(exact.numerator, exact.denominator)):
            return Decimal(exact.numerator) / Decimal(exact.denominator)  # a decimal: exact (Inexact is trapped)
    return exact if isinstance(like, Fraction) else fraction_to_mpf(exact)


def _exact_decimals(*parts) -> Context:
    """A decimal context in which the checks of printed numbers are exact or raise: every exponent decimal can hold (a
    δ of 1e-86858905 is one), more digits than any product of the parts, a trap on every rounding. Its cost depends on
    the digits, not on the exponent (an exact Fraction of 1e-86858905 has an 86,858,905-digit denominator: minutes)."""
    digits = sum(len(str(part)) for part in parts)
    return Context(prec=2 * digits + 100, Emax=MAX_EMAX, Emin=MIN_EMIN,
                   traps=[Inexact, Overflow, Underflow, InvalidOperation, DivisionByZero])


def asked_with_room(ask, values: list, tolerance, asked, is_wide, again=None) -> list:
    """``ask(values, tolerance)`` (the library's verdict), the points ``is_wide(point, asked)`` (half the tolerance: the
    printed rounding may pass it) asked again at ``asked`` (by ``again``, default ``ask``), the narrower kept (r37m M2)."""
    points = ask(list(values), tolerance)
    wide = [i for i, p in enumerate(points) if asked < tolerance and is_wide(p, asked)]
    for i, p in zip(wide, (again or ask)([values[i] for i in wide], asked) if wide else []):
        points[i] = min(points[i], p, key=lambda x: x.error_bound)
    return points


def certified_rows(points, keys: tuple[str, ...], certified, explain, coarsest, best_effort: bool = False) -> list[dict]:
    """The points as :class:`Rows` of decimal strings; a point whose printed bound misses the tolerance is left out
    and its error (``explain(point)``) kept in ``refused``, so that :func:`emit_rows` prints the rows certified and
    then fails the command naming it (with ``best_effort``, --best-effort: it is printed, its row's ``shortfall``
    naming why; every row then has that key, empty where the tolerance is met: the library's rule,
    :func:`accountlib.theory.accounting.delta`). The argument (ε or α) is printed as given (to 30 digits, 0.5 not 0.500…), the result and its bound with the digits the
    bound supports (a bound over half the tolerance is asked for again at half, so that the widened printed bound
    still meets it).
    A bound below ``coarsest(value)`` (15 decades finer than the finest tolerance accepted) is printed as that
    (still a certified bound): a δ of 1 − 1e-15200 certified to 1e-15200 prints with 46 digits, not 15,200."""
    rows = Rows()
    for p in points:
        result, bound = getattr(p, keys[1]), getattr(p, keys[2])
        with mpmath.workdps(40):
            widest = coarsest(mpmath.mpf(result))
            if widest > bound:
                bound = widest
            missed = not certified(mpmath.mpf(result), mpmath.mpf(bound))  # before any exact decimal arithmetic
        if not missed or best_effort:
            value, bound = certified_decimal(result, bound)
            if missed and Decimal(value) - Decimal(bound) < 0 and Decimal(value) + Decimal(bound) > 1:  # a probability:
                value, bound = "0.50", "0.50"  # a flagged bracket as wide as [0, 1] shows no more (r37n A23, r37p F2)
            with localcontext(_exact_decimals(value, bound)):  # the printed decimals, re-checked exactly
                missed = missed or not certified(Decimal(value), Decimal(bound))
        if missed and not best_effort:
            rows.refused.append(explain(p))
            continue
        row = {keys[0]: trimmed(decimal_string(getattr(p, keys[0]), DIGITS)), keys[1]: value, keys[2]: bound}
        if best_effort:
            row["shortfall"] = (getattr(p, "shortfall", None) or "precision") if missed else ""
        rows.append(row)
        rows.points.append(p)
    return rows


class Rows(list):
    """A command's rows of certified output (dicts), the point of each (``points``) and the one-line error of each value
    left out, its tolerance missed (``refused``): :func:`emit_rows` prints the rows, then fails naming the first."""

    def __init__(self, rows=(), refused=()):
        super().__init__(rows)
        self.points: list = []
        self.refused: list[str] = list(refused)


def print_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    """Rows under a header, right-aligned columns."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print("  ".join(h.rjust(w) for h, w in zip(header, widths)))
    for row in rows:
        print("  ".join(cell.rjust(w) for cell, w in zip(row, widths)))


def emit_rows(args, rows: list[dict], keys: tuple[str, ...], footer: str | None = None) -> int:
    """Rows as a JSON list (``--json``; ``[]`` if none) or a table (then ``footer``, a line under it). Where values were
    refused (``rows.refused``: a tolerance missed without --best-effort), the rows certified are printed first, on
    stdout, then the command fails (exit status 2) with the first refusal and how many of the values were refused."""
    refused = getattr(rows, "refused", [])
    if args.json:  # always a JSON list, [] where every value was refused
        json.dump(list(rows), sys.stdout, indent=1)
        print()
    elif rows or not refused:
        print_table(keys, [tuple(str(r[k]) for k in keys) for r in rows])
        if footer and rows:
            print(footer)
    if refused:
        sys.stdout.flush()  # the certified rows before the error line, where both go to one terminal
        asked = len(rows) + len(refused)
        fail(refused[0] if asked == 1 else f"{refused[0]} ({len(refused)} of {asked} values refused, the first "
             f"named here{'; the rows printed are certified' if rows else ''})")
    return 0


def emit_row(args, row: dict) -> int:
    """One result as a JSON object (``--json``) or as aligned "key  value" lines."""
    if args.json:
        json.dump(row, sys.stdout, indent=1)
        print()
    else:
        for key, value in row.items():
            print(f"{key:>32}  {value}")
    return 0


def decimal(x, digits: int = 12) -> str:
    """An exact number as a decimal string of ``digits`` significant digits."""
    return decimal_string(Fraction(x), digits)


def outward_decimal(value: Fraction, *, up: bool, digits: int = 15) -> str:
    """An end of a certified ε interval with ``digits`` significant digits, rounded away from the interval's inside
    (the lower end down, the upper end up), so that the printed interval contains the certified one: rounded to
    the nearest, 117.78135808408945 printed as the upper end 117.781358084089, below the certified upper end.

    >>> outward_decimal(Fraction(117781358084089450, 10**15), up=True), outward_decimal(Fraction(1, 3), up=False)
    ('117.781358084090', '0.333333333333333')
    """
    if value == 0:
        return "0"
    exponent = floor_log10(abs(value)) - digits + 1
    unit = Fraction(10) ** exponent
    steps = math.ceil(value / unit) if up else math.floor(value / unit)
    return as_string(steps * unit, exponent)


def interval_decimals(lower: Fraction, upper: Fraction, width: Fraction, *, digits: int = 15) -> tuple[str, str]:
    """A certified ε interval's ends as exact decimals rounded outwards (:func:`outward_decimal`), with at least
    ``digits`` significant digits and as many more as keep the printed interval no wider than ``width`` (the
    --abs-tol asked; the library certified ``upper − lower ≤ width``): 15 digits of ε ≈ 2.94 are a grid of 1e-14,
    so an interval certified 1e-30 wide needs 31 decimals. An interval wider than ``width`` (one printed flagged,
    --best-effort) keeps ``digits``.

    >>> interval_decimals(Fraction(1, 3), Fraction(1, 3) + Fraction(1, 10**20), Fraction(2, 10**20))
    ('0.33333333333333333333', '0.33333333333333333335')
    """
    shown = outward_decimal(lower, up=False, digits=digits), outward_decimal(upper, up=True, digits=digits)
    if upper - lower > width:
        return shown
    # each digit more narrows the rounding tenfold: the loop ends when the rounding adds less than the slack
    # width − (upper − lower), at the latest at the ends' exact decimals (bisection midpoints: dyadic, as many
    # decimals as their denominators have bits)
    most = digits + 40 + max(lower.denominator.bit_length(), upper.denominator.bit_length()) + len(str(int(upper)))
    while Fraction(Decimal(shown[1])) - Fraction(Decimal(shown[0])) > width:
        if digits >= most:
            fail(f"--abs-tol {float(width):g}: the certified interval [{shown[0]}, {shown[1]}] has no decimal "
                 f"form within {digits} digits that is no wider; give a slightly larger --abs-tol")
        digits += 1
        shown = outward_decimal(lower, up=False, digits=digits), outward_decimal(upper, up=True, digits=digits)
    return shown


# -- targets (calibrate, allocate) ----------------------------------------------------------------------------------

def add_target_arguments(parser) -> None:
    """The options naming a privacy target (--target-eps with --target-delta, or --target-mu), --resolution, --json."""
    group = parser.add_argument_group("target (one (ε, δ) pair or more, or a μ-GDP target)")
    group.add_argument("--target-eps", nargs="+", action=Once, type=number("target-eps"), metavar="E",
                       help=f"ε of each (ε, δ) target, in [0, {MAX_EPSILON}] (ε = 0: the total variation distance at most δ)")
    group.add_argument("--target-delta", nargs="+", action=Once, type=number("target-delta"), metavar="D",
                       help="δ of each (ε, δ) target, in [1e-300, 1), one per --target-eps (or one for all)")
    group.add_argument("--target-mu", action=Once, type=number("target-mu"), metavar="MU",
                       help="a μ-GDP target, in (0, 88]: the trade-off curve must lie above G_μ everywhere")
    parser.add_argument("--resolution", action=Once, type=number("resolution"), default=Fraction(1, 1000),
                        metavar="R", help=f"grid step of the variance multiplier, {GRID_STEP_MEANING}, in [1e-9, 0.5] "
                        "(default 1e-3)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


GRID_STEP_MEANING = ("at most --resolution times the zCDP rule's multiplier (for an ε too small for the zCDP rule, "
                     "ε = 0 included, times the multiplier bringing the continuous Gaussian's total variation "
                     "distance to δ)")
"""What ``calibrate``'s and ``allocate``'s --resolution means (:func:`accountlib.theory.calibration.grid_scale`,
:func:`accountlib.theory.calibration.round_step`): their help and their refusal say the same."""


def checked_resolution(value: Fraction, meaning: str = GRID_STEP_MEANING) -> float:
    """A --resolution, checked by the library's validator (:func:`~accountlib.infrastructure.numbers.as_resolution`),
    its refusal naming the option, the range, what the step is relative to (``meaning``, as the command's help says
    it) and the value as given."""
    try:
        return as_resolution(value, "--resolution")
    except ValueError:
        from ..infrastructure.shown import shown_value  # messages only

        fail(f"--resolution must be in [{SMALLEST_RESOLUTION:g}, {LARGEST_TOL:g}] (a grid step {meaning}); got "
             f"{shown_value(value) if abs(value) < 10**300 else 'a value above 1e300'}")


def target(args):
    """The target the user named (:class:`~accountlib.theory.targets.ApproximateDP`, a list of them, or
    :class:`~accountlib.theory.targets.GaussianDP`)."""
    from ..theory.targets import ApproximateDP, GaussianDP

    checked_resolution(args.resolution)
    if args.target_mu is not None:
        if args.target_eps or args.target_delta:
            fail("give either --target-mu or --target-eps with --target-delta, not both")
        return GaussianDP(args.target_mu)
    if not args.target_eps or not args.target_delta:
        fail("a target is needed: --target-eps E --target-delta D (or --target-mu MU)")
    eps, deltas = args.target_eps, args.target_delta
    if len(deltas) == 1:
        deltas = deltas * len(eps)
    if len(deltas) != len(eps):
        fail(f"--target-delta takes one value or one per --target-eps ({len(eps)}); got {len(deltas)}")
    targets = []
    for e, d in zip(eps, deltas):
        try:
            targets.append(ApproximateDP(e, d))
        except ValueError as error:  # the library names its argument (epsilon, delta): name the option instead
            message = one_line(error)
            for name, option in (("epsilon", "--target-eps values"), ("delta", "--target-delta values")):
                if message.startswith(f"{name} must"):
                    message = option + message[len(name):]
            fail(message)
    return targets[0] if len(targets) == 1 else targets


def certificate(c) -> dict:
    """A calibration's certificate as printed: the scale, the binding level and the failure one step below."""
    row = {"scale": decimal(c.scale), "step": decimal(c.step), "proven_smallest": c.proven_smallest,
           "zcdp_scale": None if c.zcdp_scale is None else decimal(c.zcdp_scale),
           "variance_saved": None if c.variance_saved is None else round(c.variance_saved, 6)}
    # the check with the least room, relative to what it allows (a μ-GDP target's tail allows 1e-30 and uses a
    # thousandth of it: not binding)
    binding = min(c.checks, key=lambda k: float((k.level.allowed - k.point.delta - k.point.error_bound)
                                                / max(k.level.allowed, 1e-300)))
    row["binding_epsilon"] = decimal(binding.level.epsilon, 10)
    row["binding_delta"] = f"{float(binding.point.delta):.6e} ± {float(binding.point.error_bound):.1e}"
    row["allowed_delta"] = f"{float(binding.level.allowed):.6e}"
    if c.failure is not None:
        row["fails_one_step_below_at_epsilon"] = decimal(c.failure.level.epsilon, 10)
        row["delta_one_step_below"] = (f"{float(c.failure.point.delta):.6e} ± "
                                       f"{float(c.failure.point.error_bound):.1e}")
    return row


# -- main ------------------------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    """Run the command line; every error is one line on stderr and exit status 2."""
    if sys.stdout is None:  # started with its standard output closed (`>&-`): nowhere to print a result
        if sys.stderr is not None:
            print("error: standard output is closed; give the command somewhere to print (a file, a pipe)",
                  file=sys.stderr)
        return 2
    try:
        status = _main(argv)
        sys.stdout.flush()  # a failed write (a full disk) reported here, not after the interpreter's last flush
        return status
    except Listing as listing:
        print(listing)
        return 0
    except CommandLineError as error:
        print(f"error: {one_line(error)}", file=sys.stderr)
    except (ValueError, ArithmeticError) as error:  # bad input, resource limits, uncertifiable results
        print(f"error: {in_option_terms(one_line(error), argv)}", file=sys.stderr)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader stopped reading (`| head`): nothing of the command's to report
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the interpreter's last flush goes nowhere
        return 141  # as a shell reports a command ended by SIGPIPE
    except OSError as error:  # the output could not be written (a full disk), or a file read failed
        where = f" ({error.filename})" if error.filename else " (writing the output)"
        print(f"error: input/output failed{where}: {error.strerror or one_line(error)}", file=sys.stderr)
    except MemoryError:
        print("error: out of memory; loosen the tolerance (see ACCOUNTLIB_MAX_NODE_BITS)", file=sys.stderr)
    except Exception as error:  # noqa: BLE001 - a bug still gets one line, not a traceback
        print(f"error: internal error ({type(error).__name__}): {one_line(error)}", file=sys.stderr)
    return 2


def _main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    refusal = dpsgd_options_refusal(argv, COMMANDS) or negative_value_refusal(argv, COMMANDS)
    if refusal:
        fail(refusal)
    args = build_parser(argv).parse_args(argv)
    return args.handler(args)
