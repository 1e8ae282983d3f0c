"""The arguments of DP-SGD accounting, checked: the run's groups, ε, α, a target δ, the calibration's targets, and
the finest tolerance float64 certifies.

Theory layer of :mod:`accountlib`. Each error is one line naming the argument, what was wrong and what is accepted.
The numbers a user gives (q, z, ε, α, δ) are read by the library's one converter
(:func:`~accountlib.infrastructure.numbers.as_fraction`) under the decimal rule: the float 0.1 is the 1/10 its
writer meant. q and z are then used as the nearest float64, the mechanism accounted for exactly; ε and α stay exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from ..engine.subsampled_gaussian import Q_RANGE, STEPS_RANGE, Z_RANGE, StepGroup
from ..infrastructure.numbers import (LARGEST_TOL, SMALLEST_ABS_TOL, SMALLEST_REL_TOL, ResourceLimitError, as_fraction,
                                     as_tolerance)
from .targets import ApproximateDP, GaussianDP

__all__ = ["as_step_group", "as_schedule", "calibration_problem", "exact_epsilon", "exact_alpha", "target_delta",
           "calibration_targets", "finest_tolerance", "dpsgd_rel_tol", "dpsgd_abs_tol", "MAX_DPSGD_EPSILON",
           "MAX_GROUPS", "FINEST_TOLERANCE"]

MAX_DPSGD_EPSILON = 200
"""The largest ε :meth:`~accountlib.theory.dpsgd_accounting.DPSGDComposition.delta` accepts."""

MAX_GROUPS = 1000
"""The most distinct (q, z) groups a schedule may have (the cost grows with their number)."""

FINEST_TOLERANCE = 1e-12
"""The finest tolerance a DP-SGD run is accounted to (a relative one on δ, an absolute one on β or on an ε interval's
width): its one-step integrals run in float64, whose certified relative accuracy in δ is about T·1e-13. A finer
tolerance, though inside the range of its kind, is refused at once (``ResourceLimitError``) rather than after a
search that cannot reach it."""


def finest_tolerance(tolerance: float, name: str) -> float:
    """``tolerance`` (already checked by the one validator of its kind,
    :func:`~accountlib.infrastructure.numbers.as_rel_tol` or :func:`~accountlib.infrastructure.numbers.as_abs_tol`)
    when it is no finer than :data:`FINEST_TOLERANCE`; else ``ResourceLimitError`` in one line.

    >>> finest_tolerance(1e-9, "rel_tol")
    1e-09
    """
    if tolerance < FINEST_TOLERANCE:
        raise ResourceLimitError(f"{name} = {tolerance:g} is finer than a DP-SGD run is certified to (its float64 "
                                 f"evaluation reaches about T·1e-13 relative in δ); give {name} >= "
                                 f"{FINEST_TOLERANCE:g}")
    return tolerance


def dpsgd_rel_tol(value, name: str = "rel_tol") -> float:
    """A DP-SGD run's relative tolerance on δ: a float in [FINEST_TOLERANCE, 0.5] = [1e-12, 0.5], checked by the
    library's one validator of its kind (:func:`~accountlib.infrastructure.numbers.as_rel_tol`'s range) and
    :func:`finest_tolerance`, its messages naming the range a DP-SGD run accepts (the command line's ``--rel-tol``
    has the same floor, this module's :data:`FINEST_TOLERANCE`).

    >>> dpsgd_rel_tol(1e-9)
    1e-09
    """
    return _tolerance(value, name, SMALLEST_REL_TOL)


def dpsgd_abs_tol(value, name: str = "abs_tol") -> float:
    """A DP-SGD run's absolute tolerance (an ε interval's width, or β's bound): a float in [1e-12, 0.5], as
    :func:`dpsgd_rel_tol`."""
    return _tolerance(value, name, SMALLEST_ABS_TOL)


def _tolerance(value, name: str, smallest: float) -> float:
    """A tolerance of a DP-SGD run: out of the library's range of its kind, ``ValueError`` naming this run's range
    [1e-12, 0.5]; inside it but finer than :data:`FINEST_TOLERANCE`, ``ResourceLimitError`` (:func:`finest_tolerance`)."""
    try:
        checked = as_tolerance(value, name, smallest=smallest, largest=LARGEST_TOL)
    except ValueError:
        raise ValueError(f"{name} must be a number in [{FINEST_TOLERANCE:g}, {LARGEST_TOL:g}] for a DP-SGD run; got "
                         f"{_shown(value)}") from None
    return finest_tolerance(checked, name)


def _shown(value) -> str:
    """A value as a message shows it: an exact fraction as the decimal it is close to, anything else by repr."""
    if isinstance(value, (Fraction, int)) and not isinstance(value, bool) and abs(value) > 10**300:
        return f"{'-' if value < 0 else ''}a value above 1e300"  # beyond a float (1e309 from the command line)
    if isinstance(value, Fraction):  # 0 as typed, not 0.0; -0.1, not -0.10000000000000001
        from ..infrastructure.shown import shown_value  # messages only: not loaded on the way to an answer
        return shown_value(value, 16)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _float_in(value, name: str, low: float, high: float, what: str) -> float:
    """``value`` (a user's number: a float is the decimal it prints as) as the float nearest it, in [low, high]."""
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{name} ({what}) must be a number in [{low:g}, {high:g}]; got {_shown(value)}")
    try:
        result = float(as_fraction(value, name, floats="decimal"))  # a user's number, as typed
    except (ValueError, OverflowError):
        raise ValueError(f"{name} ({what}) must be a finite number in [{low:g}, {high:g}]; got {_shown(value)}") \
            from None
    if not low <= result <= high:
        raise ValueError(f"{name} ({what}) must be in [{low:g}, {high:g}]; got {_shown(value)}")
    return result


def _steps(value, name: str = "steps") -> int:
    """A step count: a whole number in ``STEPS_RANGE``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)) and not hasattr(value, "__index__"):
        raise ValueError(f"{name} must be a whole number in [1, {STEPS_RANGE[1]:g}]; got {_shown(value)}")
    try:
        as_int = int(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a whole number in [1, {STEPS_RANGE[1]:g}]; got {_shown(value)}") from None
    if as_int != value or not STEPS_RANGE[0] <= as_int <= STEPS_RANGE[1]:
        raise ValueError(f"{name} must be a whole number in [1, {STEPS_RANGE[1]:g}]; got {_shown(value)}")
    return as_int


def as_step_group(q, z, steps, where: str = "") -> StepGroup:
    """``steps`` steps at sampling rate ``q`` with noise multiplier ``z``, checked (``where`` is added to each name in a
    message: the group's place in a schedule).

    Parameters
    ----------
    q, z : number
        The sampling rate in [1e-8, 1] and the noise multiplier in [0.05, 1000]: a user's numbers (a float is the
        decimal it prints as), used as the nearest float64, the mechanism accounted for.
    steps : int
        A whole number in [1, 1e9].

    Returns
    -------
    StepGroup

    >>> as_step_group("0.01", 1, 1000)
    StepGroup(q=0.01, z=1.0, steps=1000)
    """
    return StepGroup(_float_in(q, f"q{where}", *Q_RANGE, "the sampling rate"),
                     _float_in(z, f"noise_multiplier{where}", *Z_RANGE, "z, the noise multiplier"),
                     _steps(steps, f"steps{where}"))


def as_schedule(schedule) -> tuple[StepGroup, ...]:
    """A schedule of (q, noise_multiplier, steps) triples (or mappings with those keys), checked by
    :func:`as_step_group`, the groups with the same q and z merged (at most ``MAX_GROUPS`` of them).

    >>> as_schedule([(0.01, 1.0, 500), (0.02, 1.5, 100), (0.01, 1.0, 500)])
    (StepGroup(q=0.01, z=1.0, steps=1000), StepGroup(q=0.02, z=1.5, steps=100))
    """
    if isinstance(schedule, (str, bytes, Mapping)) or not hasattr(schedule, "__iter__"):
        raise ValueError(f"schedule must be a list of (q, noise_multiplier, steps) triples; got {schedule!r}")
    merged: dict = {}
    for i, item in enumerate(schedule):
        if isinstance(item, Mapping):
            keys = {"q", "noise_multiplier", "steps"}
            if set(item) != keys:
                raise ValueError(f"schedule[{i}] must have the keys q, noise_multiplier, steps; got {sorted(item)}")
            item = (item["q"], item["noise_multiplier"], item["steps"])
        if isinstance(item, (str, bytes)) or not hasattr(item, "__len__") or len(item) != 3:
            raise ValueError(f"schedule[{i}] must be a (q, noise_multiplier, steps) triple; got {item!r}")
        g = as_step_group(*item, where=f" (schedule[{i}])")
        merged[(g.q, g.z)] = merged.get((g.q, g.z), 0) + g.steps
        if len(merged) > MAX_GROUPS:
            raise ResourceLimitError(f"schedule has more than {MAX_GROUPS} distinct (q, noise_multiplier) groups; "
                                     "merge or round them")
    if not merged:
        raise ValueError("schedule must hold at least one (q, noise_multiplier, steps) triple; got an empty list")
    total = sum(merged.values())
    if total > STEPS_RANGE[1]:
        raise ValueError(f"schedule has {total:,} steps in all; at most {STEPS_RANGE[1]:g} are accepted")
    return tuple(StepGroup(q, z, n) for (q, z), n in merged.items())


def exact_epsilon(value, name: str = "epsilon") -> Fraction:
    """A privacy ε ∈ [0, MAX_DPSGD_EPSILON], exactly: a user's number, so a float is the decimal it prints as (0.1 is
    the rational 1/10, and δ there is bracketed by its values at the two floats around it). The range is checked on
    the exact number: ``Fraction(200) + Fraction(1, 10**300)`` is refused though its nearest float is 200.

    >>> exact_epsilon(0.1), exact_epsilon("2/3")
    (Fraction(1, 10), Fraction(2, 3))
    """
    _float_in(value, name, 0.0, MAX_DPSGD_EPSILON, "the privacy parameter")
    exact = as_fraction(value, name, floats="decimal")
    if not 0 <= exact <= MAX_DPSGD_EPSILON:  # exactly: Fraction(200) + 10^-300 is above 200 though its float is not
        raise ValueError(f"{name} (the privacy parameter) must be in [0, {MAX_DPSGD_EPSILON}] exactly; got a number "
                         f"{'above' if exact > 0 else 'below'} it ({_shown(value)} as a float)")
    return exact


def exact_alpha(value, name: str = "alpha") -> Fraction:
    """A type I error α ∈ [0, 1], exactly (a user's number: a float is the decimal it prints as).

    >>> exact_alpha(0.05)
    Fraction(1, 20)
    """
    _float_in(value, name, 0.0, 1.0, "the type I error")
    return as_fraction(value, name, floats="decimal")


def target_delta(value, name: str = "delta") -> Fraction:
    """A target δ ∈ [1e-300, 1), exactly (a user's number: a float is the decimal it prints as, 1e-5 is 1/100000).

    >>> target_delta(1e-5)
    Fraction(1, 100000)
    """
    try:
        d = as_fraction(value, name, floats="decimal") if not isinstance(value, bool) else None
    except ValueError:
        d = None
    if d is None or not Fraction(1, 10**300) <= d < 1:
        raise ValueError(f"{name} must be a number in [1e-300, 1); got {_shown(value)}")
    return d


def calibration_targets(target) -> tuple:
    """The (ε, δ) targets of a calibration as :class:`~accountlib.theory.targets.ApproximateDP`: one (ε, δ) pair or
    ``ApproximateDP``, or a list of them. A μ-GDP target (``GaussianDP``) or a trade-off curve is refused in one line
    naming what is accepted.

    >>> calibration_targets((2.0, 1e-5))
    (ApproximateDP(epsilon=Fraction(2, 1), delta=Fraction(1, 100000)),)
    """
    items = list(target) if isinstance(target, (list, tuple)) and not (
        len(target) == 2 and not isinstance(target[0], (list, tuple, ApproximateDP, GaussianDP))) else [target]
    out = []
    for t in items:
        if isinstance(t, ApproximateDP):
            out.append(t)
        elif isinstance(t, GaussianDP):
            raise ValueError("target: a μ-GDP target is not accepted for a DP-SGD run; give (ε, δ) targets "
                             "(ApproximateDP, (epsilon, delta) pairs, or a list of them)")
        elif isinstance(t, (tuple, list)) and len(t) == 2:
            eps = exact_epsilon(t[0], "target epsilon")  # ε = 0 too: δ(0) is the total variation distance
            out.append(ApproximateDP(eps, target_delta(t[1], "target delta")))
        else:
            raise ValueError(f"target must be an ApproximateDP, an (epsilon, delta) pair or a list of them (a DP-SGD "
                             f"run is calibrated to (ε, δ) targets); got {_shown(t)}")
    if not out:
        raise ValueError("target must hold at least one (epsilon, delta) target")
    return tuple(out)


def calibration_problem(q, steps, target, schedule) -> tuple:
    """(the run's groups with the noise multiplier's factors, the targets) of
    :func:`~accountlib.theory.dpsgd_accounting.calibrate_noise_multiplier`: a homogeneous run (``q``, ``steps``: factor
    1) or a ``schedule`` of (q, factor, steps) triples, not both, each checked; the targets by
    :func:`calibration_targets`."""
    if schedule is not None:
        if q is not None or steps is not None:
            raise ValueError("give either q and steps, or schedule, not both")
        base = as_schedule(schedule)  # (q, factor, steps): the factor sits in the z slot (checked as a multiplier)
    else:
        if q is None or steps is None:
            raise ValueError("q and steps are both needed (or a schedule of (q, factor, steps) triples)")
        base = (as_step_group(q, 1.0, steps),)
    if target is None:
        raise ValueError("target is needed: an (epsilon, delta) pair or a list of them")
    return base, calibration_targets(target)
