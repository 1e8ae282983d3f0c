"""What the user typed, read before argparse and named in messages: the library's argument names rewritten as the
command line's options (:func:`~accountlib.cli.typed.in_option_terms`), a negative value that argparse would take
for an option (:func:`~accountlib.cli.typed.negative_value_refusal`), and a DP-SGD run's options given to a command
for compositions of discrete Gaussians (:func:`~accountlib.cli.typed.dpsgd_options_refusal`). Each refusal is one line, returned for :func:`accountlib.cli.fail`."""

from __future__ import annotations

import importlib
import re
import sys
from fractions import Fraction

from ..infrastructure.numbers import SMALLEST_ABS_TOL, SMALLEST_REL_TOL
from ..theory.composition import MAX_EPSILON

__all__ = ["OPTION_OF_ARGUMENT", "OPTION_OF_DPSGD_ARGUMENT", "REL_TOL_COMMANDS", "INTERNAL_REL_TOL", "NEGATIVE_VALUE_MESSAGES", "DPSGD_OPTIONS",
           "in_option_terms", "negative_value_refusal", "dpsgd_options_refusal", "trimmed"]

#: The library's argument names, as a message from it may name them, and the option each is on the command line.
OPTION_OF_ARGUMENT = (
    (re.compile(r"\bbest_effort=True\b"), "--best-effort"),
    (re.compile(r"\babs_tol\b"), "--abs-tol"),
    (re.compile(r"\brel_tol\b"), "--rel-tol"),
    # engine="auto"'s own node-bit limit: the command line has no --engine, the variable lifts it
    (re.compile(r" \(or pass engine='lattice', whose limit is 1e8 node-bits, about a minute\)"),
     " (to 1e8, the lattice engine's own limit, about a minute)"),
)

#: The commands with a --rel-tol option; the others (epsilon, tradeoff, calibrate, allocate) set δ's relative
#: tolerance themselves, and a message naming rel_tol says so (:data:`INTERNAL_REL_TOL`) instead of an option they lack.
REL_TOL_COMMANDS = ("delta", "dpsgd")

#: rel_tol said where the command has no --rel-tol: its value, where the message gives one, as the command's own.
INTERNAL_REL_TOL = (
    (re.compile(r"\brel_tol = (\S+?)(?=[\s:;,)]|$)"), r"the δ tolerance this command sets itself (\1)"),
    (re.compile(r"\brel_tol\b"), "the δ tolerance this command sets itself"),
)

#: The same for a DP-SGD run's own arguments (the ``dpsgd`` command): each at the start of the library's message.
OPTION_OF_DPSGD_ARGUMENT = (
    (re.compile(r"^(q|steps) \(schedule\[(\d+)\]\)"), lambda m: f"--schedule item {int(m[2]) + 1}: {m[1]}"),
    (re.compile(r"^noise_multiplier \(schedule\[(\d+)\]\) \(z, "), lambda m: f"--schedule item {int(m[1]) + 1}: z ("),
    (re.compile(r"^q \("), "--q ("),
    (re.compile(r"^noise_multiplier \("), "--noise-multiplier ("),
    (re.compile(r"^steps must"), "--steps must"),
    (re.compile(r"^epsilon \("), "--eps ("),
    (re.compile(r"^target epsilon\b"), "--target-eps"),
    (re.compile(r"^target delta\b"), "--target-delta"),
    (re.compile(r"^delta must"), "--delta must"),
    (re.compile(r"^alpha \("), "--alpha ("),
)


def in_option_terms(message: str, argv=None) -> str:
    """A library message as the command line's: the API's argument names (abs_tol, best_effort=True, a DP-SGD run's
    q, noise_multiplier, ...) replaced by the options the user gave (--abs-tol, --best-effort, --q, ...).

    >>> in_option_terms("abs_tol must be in [1e-30, 0.5]", ["epsilon"])
    '--abs-tol must be in [1e-30, 0.5]'
    >>> in_option_terms("so loosening rel_tol = 1e-06 cannot help", ["epsilon"])  # epsilon has no --rel-tol
    'so loosening the δ tolerance this command sets itself (1e-06) cannot help'
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    table = (OPTION_OF_ARGUMENT if argv[:1] and argv[0] in REL_TOL_COMMANDS else INTERNAL_REL_TOL + OPTION_OF_ARGUMENT)
    table += OPTION_OF_DPSGD_ARGUMENT if argv[:1] == ["dpsgd"] else ()
    for pattern, option in table:
        message = pattern.sub(option, message)
    return message


NEGATIVE_VALUE_MESSAGES = {
    "--rho": "--rho budgets must be > 0",
    "--eps": f"--eps values must be in [0, {MAX_EPSILON}] (δ(0) is the total variation distance; {MAX_EPSILON} the largest supported ε)",
    "--alpha": "--alpha values must lie in [0, 1]",
    "--rel-tol": f"--rel-tol must be in [{SMALLEST_REL_TOL:g}, 0.5]",
    "--abs-tol": f"--abs-tol must be in [{SMALLEST_ABS_TOL:g}, 0.5]",
    "--delta": "--delta values must be in [1e-300, 1)",  # argparse takes -1e-5, unlike -0.5, for an option
    "--target-delta": "--target-delta values must be in [1e-300, 1)",
    "--target-eps": f"--target-eps values must be in [0, {MAX_EPSILON}]",
}
"""What the options shared by the commands accept, said where a negative value is given (a command module's own
``NEGATIVE_VALUE_MESSAGES`` say it for its options, where they accept other ranges)."""


def trimmed(decimal: str) -> str:
    """A decimal string without the trailing zeros of its digits, one kept after the point: an argument echoed as
    the user gave it (``0.500000`` as 0.5, ``2.000`` as 2.0, ``1.0000e-5`` as 1.0e-5).

    >>> trimmed("0.500000000000"), trimmed("2.00000"), trimmed("1.00000e-5"), trimmed("26.3405")
    ('0.5', '2.0', '1.0e-5', '26.3405')
    """
    digits, e, exponent = decimal.partition("e")
    if "." in digits:
        digits = digits.rstrip("0")
        digits += "0" if digits.endswith(".") else ""
    return digits + e + exponent


def _looks_negative(token: str) -> bool:
    """A token such as -1, -1/2, -.5, -1e3, -inf or -nan: a negative value, not an option."""
    rest = token[1:].strip().lower()
    return token.startswith("-") and (rest[:1].isdigit() or rest[:1] == "." or rest in ("inf", "infinity", "nan"))


def _is_zero(text: str) -> bool:
    """Whether ``text`` is a number equal to zero (0, 0.0, 0e3, 0/5)."""
    try:
        return Fraction(text.strip()) == 0
    except (ValueError, ZeroDivisionError):
        return False


def negative_value_refusal(argv: list[str], commands) -> str | None:
    """argparse reads ``--eps -1/2`` or ``--rho -1/10`` as an unknown option ("expected at least one argument");
    the real problem instead, in one line: the option, the value and what it accepts; None where there is none. A
    negative zero (``--eps -0``) is zero: its sign is dropped in ``argv``, in place.

    >>> negative_value_refusal(["delta", "--eps", "-1/2"], {"delta": None})
    "--eps values must be in [0, 5000] (δ(0) is the total variation distance; 5000 the largest supported ε); got '-1/2'"
    """
    messages = dict(NEGATIVE_VALUE_MESSAGES)
    if argv and argv[0] in commands:
        try:
            messages.update(getattr(importlib.import_module(f"{__package__}.{argv[0]}"), "NEGATIVE_VALUE_MESSAGES", {}))
        except ImportError:  # the command is unavailable: the parser reports it
            pass
    option = None
    for i, token in enumerate(argv):
        if token in messages:
            option = token
        elif option is not None and _looks_negative(token):
            if _is_zero(token[1:]):  # -0, -0.0, -0e3: zero, read as 0 (argparse would take "-0e3" for an option)
                argv[i] = token[1:]
                continue
            return f"{messages[option]}; got {token!r}"
        elif token.startswith("-"):
            option = None
    return None


DPSGD_OPTIONS = ("--q", "--noise-multiplier", "--steps", "--schedule")
"""The options that name a DP-SGD run (``python -m accountlib dpsgd``)."""


def dpsgd_options_refusal(argv: list[str], commands) -> str | None:
    """A DP-SGD run's options given to a command that accounts for compositions of discrete Gaussians: one line
    pointing at ``python -m accountlib dpsgd`` (argparse would say only "unrecognized arguments"); None otherwise."""
    if argv and argv[0] in commands and argv[0] not in ("dpsgd", "sweep"):
        given = [t.split("=", 1)[0] for t in argv if t.split("=", 1)[0] in DPSGD_OPTIONS]
        if given:
            options = list(dict.fromkeys(given))
            return (f"python -m accountlib {argv[0]} accounts for compositions of discrete Gaussians (--rho budgets, a "
                    f"DHC pair, a census release); {' '.join(options)} {'name' if len(options) > 1 else 'names'} a "
                    "DP-SGD run: use python -m "
                    f"accountlib dpsgd {argv[0] if argv[0] in ('delta', 'epsilon', 'tradeoff', 'calibrate') else 'ACTION'}"
                    " ... (see python -m accountlib dpsgd --help)")
    return None
