"""A certified accountant for Opacus: an ``IAccountant`` whose ε is the upper end of a certified interval.

Optional: needs Opacus (and so torch). Importing this module registers the accountant with Opacus under the name
:data:`MECHANISM` (``"accountlib"``), so that Opacus's own workflow uses it unchanged::

    import accountlib.applications.opacus_accountant  # registers "accountlib"
    from opacus import PrivacyEngine
    from opacus.accountants.utils import get_noise_multiplier

    engine = PrivacyEngine(accountant="accountlib")
    sigma = get_noise_multiplier(target_epsilon=3, target_delta=1e-5, sample_rate=0.01, steps=10_000,
                                 accountant="accountlib")

The accountant keeps Opacus's history — (noise multiplier, sample rate, steps) per group of steps — and accounts for
it as a DP-SGD schedule with :class:`accountlib.theory.dpsgd_accounting.DPSGDComposition` (Poisson-subsampled
Gaussian, add/remove-one, the worse direction). ``get_epsilon(delta)`` returns the upper end of the certified
interval for ε(δ), rounded up to a float: the run is certainly (ε, δ)-DP for the number returned, so Opacus's
binary search in ``get_noise_multiplier`` stops only at noise multipliers that certainly meet the target (the search
itself, and its ``epsilon_tolerance``, are Opacus's; :func:`accountlib.theory.dpsgd_accounting.calibrate_noise_multiplier`
gives the smallest multiplier on a fine grid with its certificate).

Outside the accepted ranges the answer stays a valid upper bound: a noise multiplier below 0.05 gives ε = inf, a
sampling rate below 1e-8 is accounted as 1e-8 (a lower rate never costs privacy: subsampling at rate q' < q is rate q
followed by a post-processing that replaces the output by fresh noise with probability 1 − q'/q), and a rate of 0 as
no step at all. A history whose every step has sample rate 1 is the Gaussian mechanism, in closed form at any noise
multiplier (as in the dp_accounting drop-in: ``get_noise_multiplier`` finds z ≈ 4584 for ε = 0.001, δ = 1e-10 in one
step). Where some step has a rate below 1, a noise multiplier above 1000 (:data:`Z_CAP`) is accounted as 1000 (more
noise never costs privacy) up to 2000; above 2000 it is refused in one line naming the cap, the target δ and the ε
certified at the cap. Opacus's search doubles its multiplier from 20 and asks at 2560 only when 1280, accounted as
1000, missed its target: a target that needs more noise than 1000, which
:func:`~accountlib.theory.dpsgd_accounting.calibrate_noise_multiplier` refuses too; answering ε(1000) there would
only send the search on to 1e6 and Opacus's "The privacy budget is too low."

Where every accepted noise multiplier meets the target, the answer the library's own calibration gives is the search
floor, 0.05 (:func:`~accountlib.theory.dpsgd_accounting.calibrate_noise_multiplier`, flagged ``proven_smallest``
False), and dp_accounting's ``calibrate_dp_mechanism`` on the dp_accounting drop-in ends there too (its bracket search
meets ε = inf below 0.05). Opacus's ``get_noise_multiplier`` cannot: it bisects until the ε it is given comes within
``epsilon_tolerance`` of the target, and ε stays below the target down to 0.05 and is inf below, so its bisection
closes on 0.05 and never ends (measured: 40,928 calls in 90 s at q = 0.01, T = 10, target (1, 0.098)). Returning the
floor would need an ε near the target from an accountant that is not told the target, so this accountant raises
instead, in one line naming the floor and the calibration that returns it, where a *search step* (a question whose
history differs from the one asked just before by noise multipliers alone, at the same target δ) asks at a multiplier
within a relative 1e-9 below the floor (:data:`FLOOR_BAND`): only a search closing on 0.05 asks there. Where ε = 0 at
every multiplier, 0 included (a target δ ≥ 1; a history with no step accounted: sample rate or step count 0; or
Σ steps·sample_rate ≤ δ, which bounds the total variation), the answer is 0, but Opacus's search then halves its
multiplier for ever: a search step to a multiplier below 0.05, asked only by that descent, is refused in one line.
A history recorded by training (a warm-up step with no noise, entries at sample rate 0) is no search step and gets
its answer. And where Opacus's ``epsilon_tolerance`` is narrower than this accountant's ε interval
(``epsilon_tol``), its bisection closes on two adjacent floats and asks the same question for ever: every repeated
question is answered from the kept answer (the key holds the history, δ and ``epsilon_tol``), and only where the
question before the repeats was a search step to a multiplier at most :data:`ADJACENT_FLOATS` floats away is the
:data:`REPEAT_LIMIT`-th identical question in a row refused in one line naming the tolerance. A loop that logs
``get_epsilon`` once per batch between steps, however often, is answered every time.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

try:
    from opacus.accountants import IAccountant, register_accountant
except ImportError as error:  # pragma: no cover - the optional dependency is missing
    raise ImportError(f"accountlib.applications.opacus_accountant needs Opacus: pip install opacus ({error})",
                      name=error.name) from error

from ..engine.subsampled_gaussian import Q_RANGE, STEPS_RANGE, Z_RANGE
from ..theory.dpsgd_accounting import DPSGDComposition
from ..theory.dpsgd_arguments import dpsgd_abs_tol
from .dpsgd_targets import epsilon_without_accounting
from .dpsgd_upper import certified_upper_epsilon, gaussian_upper_epsilon

__all__ = ["CertifiedDPSGDAccountant", "MECHANISM", "FLOOR_BAND", "REPEAT_LIMIT", "ADJACENT_FLOATS", "Z_CAP",
           "register", "search_step_distance"]

MECHANISM = "accountlib"
"""The name the accountant is registered under in Opacus (``PrivacyEngine(accountant=MECHANISM)``)."""

FLOOR_BAND = 1e-9
"""The relative band below the smallest accepted noise multiplier (0.05) where ``get_epsilon`` raises instead of
answering inf: only a search closing on 0.05 asks there (module docstring)."""

REPEAT_LIMIT = 1000
"""How many times in a row ``get_epsilon`` answers the same question (same history, δ and ``epsilon_tol``; the answer is
kept) right after a search step to an adjacent noise multiplier before it raises: only a search closed on two adjacent
noise multipliers asks so (module docstring); any other repeated question is answered every time."""

ADJACENT_FLOATS = 4
"""How many floats apart the noise multipliers of a search step may lie for the question after it to count as a
search closed on two adjacent multipliers (a bisection's last steps move z by one float)."""

Z_CAP = Z_RANGE[1]
"""The largest noise multiplier accounted at a sample rate below 1 (1000): one above it counts as 1000 up to twice
the cap and is refused beyond (module docstring); at sample rate 1 the closed form has no cap."""


def schedule_of(history) -> list[tuple[float, float, int]] | None:
    """Opacus's history as a DP-SGD schedule (q, z, steps), a rate below 1e-8 moved to 1e-8 (which can only raise ε),
    z as recorded (``capped`` moves it into the accounted range); None when some step had (almost) no noise
    (ε = inf)."""
    schedule = []
    for entry in history:
        noise_multiplier, sample_rate, count = entry
        try:
            z, q, whole = float(noise_multiplier), float(sample_rate), float(count)
        except (TypeError, ValueError, OverflowError):
            z = q = whole = math.nan
        if (not (math.isfinite(z) and math.isfinite(q) and math.isfinite(whole)) or z < 0 or q < 0 or q > 1
                or whole < 0 or whole != int(whole)):  # a fractional count is no number of steps: never truncated
            raise ValueError(f"the accountant's history holds an entry that is not (noise_multiplier >= 0, "
                             f"sample_rate in [0, 1], steps a whole number >= 0): {entry!r}")
        steps = int(whole)
        if q == 0 or steps == 0:
            continue
        if z < Z_RANGE[0]:
            return None
        schedule.append((max(q, Q_RANGE[0]), z, steps))
    return schedule


def gaussian_z_squared(schedule) -> Fraction | None:
    """z² = 1/μ² of the Gaussian mechanism the schedule composes to where every step has q = 1 (exactly, from the
    recorded floats; μ² = Σ steps/z²), None where some step has q < 1."""
    if any(q < 1 for q, _, _ in schedule):
        return None
    return 1 / sum(Fraction(steps) / Fraction(z) ** 2 for _, z, steps in schedule)


def capped(schedule) -> list[tuple[float, float, int]]:
    """The schedule with every z above :data:`Z_CAP` accounted as the cap (more noise never costs privacy)."""
    return [(q, min(z, Z_CAP), steps) for q, z, steps in schedule]


def _float_index(value) -> int | None:
    """The position of a float ≥ 0 among the floats (adjacent floats differ by 1); None for anything else."""
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if not math.isfinite(x) or x < 0:
        return None
    return struct.unpack("<q", struct.pack("<d", x + 0.0))[0]


def search_step_distance(before, after) -> int | None:
    """How far a search moved between two questions ``before`` and ``after``, each (history, target_delta): the
    largest distance, in floats, between their noise multipliers where the histories differ by noise multipliers
    alone (the same entries, sample rates and step counts, the same δ; some multiplier changed), as Opacus's
    ``get_noise_multiplier`` moves; None for any other pair (a step taken, a δ changed, the first question).

    >>> search_step_distance(([(1.0, 0.01, 100)], 1e-5), ([(0.5, 0.01, 100)], 1e-5)) > 0
    True
    >>> search_step_distance(([(1.0, 0.01, 100)], 1e-5), ([(1.0, 0.01, 101)], 1e-5)) is None
    True
    """
    if before is None or repr(before[1]) != repr(after[1]) or len(before[0]) != len(after[0]):
        return None
    distance = 0
    for old, new in zip(before[0], after[0]):
        if repr(tuple(old)[1:]) != repr(tuple(new)[1:]):
            return None
        if repr(old[0]) != repr(new[0]):
            i, j = _float_index(old[0]), _float_index(new[0])
            distance = max(distance, abs(i - j) if i is not None and j is not None else 2**63)
    return distance or None


class CertifiedDPSGDAccountant(IAccountant):
    """Opacus's ``IAccountant`` with certified ε: the upper end of the certified interval of ε(δ) for the whole
    history, add/remove-one (``epsilon_tol`` is the width of that interval).

    >>> accountant = CertifiedDPSGDAccountant()
    >>> for _ in range(100):
    ...     accountant.step(noise_multiplier=1.0, sample_rate=0.01)
    >>> len(accountant), accountant.history
    (100, [(1.0, 0.01, 100)])
    >>> 0.71 < accountant.get_epsilon(1e-5) < 0.72
    True
    """

    def __init__(self, epsilon_tol: float = 1e-6):
        super().__init__()
        self.epsilon_tol = dpsgd_abs_tol(epsilon_tol, "epsilon_tol")  # refused here, not at the first get_epsilon
        self._asked = None  # the last question computed, (history, target_delta), for search_step_distance
        self._last_question, self._last_answer, self._repeats, self._closed = None, None, 0, False

    def step(self, *, noise_multiplier: float, sample_rate: float):
        """Record one step; consecutive steps with the same noise multiplier and sample rate share one entry (as in
        Opacus's PRV accountant)."""
        if self.history and self.history[-1][:2] == (noise_multiplier, sample_rate):
            z, q, n = self.history.pop()
            self.history.append((z, q, n + 1))
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def get_epsilon(self, delta: float, **kwargs) -> float:
        """The upper end of the certified ε interval for ``delta`` (rounded up to a float): the training so far is
        certainly (ε, δ)-DP for the returned ε under add/remove-one. 0 before any step; inf when a step had a noise
        multiplier below 0.05, or where ε is not certified at or below the largest ε accounted (200 for a run of
        several steps with some q < 1), as the dp_accounting drop-in answers: a valid upper bound, which Opacus's
        ``get_noise_multiplier`` reads as "more noise"
        (:func:`~accountlib.applications.dpsgd_upper.certified_upper_epsilon`). 0 where ε = 0 at every noise
        multiplier (δ ≥ 1, no step accounted, or Σ steps·sample_rate ≤ δ). A one-line ValueError only where a search
        could never end (module docstring): a search step below 0.05 where ε = 0 at every multiplier, or just below
        0.05, and the :data:`REPEAT_LIMIT`-th identical question right after a search step to an adjacent multiplier;
        and where a step at a sample rate below 1 has a noise multiplier above 2000 (twice the cap :data:`Z_CAP`;
        module docstring). Any other repeated question is answered from the kept answer. ``delta`` = 0 gives inf and
        ``delta`` ≥ 1 gives 0; a negative or nan one is refused in one line naming target_delta (the dp_accounting
        drop-in's rule: :func:`~accountlib.applications.dpsgd_targets.epsilon_without_accounting`)."""
        epsilon_without_accounting(delta)  # δ read first: one line for a value no key's repr can print (10**5000)
        key = (repr(self.history), repr(delta), self.epsilon_tol)
        if key == self._last_question:  # asked again: the same answer, from the kept one
            self._repeats += 1
            if self._closed and self._repeats >= REPEAT_LIMIT:
                raise ValueError(f"get_epsilon was asked {REPEAT_LIMIT:,} times in a row at the same history and "
                                 f"target_delta, right after a search step to an adjacent noise multiplier: a search "
                                 f"whose epsilon_tolerance is below the width of this accountant's ε interval "
                                 f"(epsilon_tol = {self.epsilon_tol:g}) closes on two adjacent noise multipliers and "
                                 "cannot end; give get_noise_multiplier an epsilon_tolerance of at least "
                                 f"{self.epsilon_tol:g}")
            return self._last_answer
        question = ([tuple(entry) for entry in self.history], delta)
        distance = search_step_distance(self._asked, question)
        self._search_step = distance is not None  # read by _certified_epsilon: a search step may be refused
        answer = self._certified_epsilon(delta)
        self._asked = question
        self._last_question, self._last_answer, self._repeats = key, answer, 1
        self._closed = distance is not None and distance <= ADJACENT_FLOATS
        return answer

    def _certified_epsilon(self, delta) -> float:
        """:meth:`get_epsilon`'s answer, computed; a search step (``self._search_step``) below the floor where no
        search can end is refused (module docstring)."""
        edge = epsilon_without_accounting(delta)  # δ = 0: inf, δ ≥ 1: 0, negative or nan refused: the one rule
        if not self.history:
            return 0.0
        schedule = schedule_of(self.history)  # first: it refuses an entry that is no (z, q, whole steps)
        floor = Z_RANGE[0]
        searching = getattr(self, "_search_step", False)
        participations = math.fsum(float(q) * float(steps) for _, q, steps in self.history)
        if edge == 0.0 or schedule == [] or (edge is None and participations <= float(delta) * (1 - 1e-12)):
            # ε = 0 at every noise multiplier, 0 included: δ ≥ 1, no step accounted (every rate or count 0), or
            # δ(ε) ≤ δ(0) ≤ Σ steps·q ≤ δ whatever the noise. A search step below the floor is asked only by a
            # search descending towards no noise, which ε = 0 never stops (Opacus's get_noise_multiplier halves its
            # multiplier for ever; its own PRV accountant raises 'Cannot compute epsilon' here)
            if searching and any(float(z) < floor for z, _, _ in self.history):
                what = (f"target_delta = {float(delta):g} >= 1 is met by every mechanism" if edge == 0.0 else
                        "the history accounts no step (every sample_rate or step count is 0)" if schedule == [] else
                        f"target_delta = {float(delta):g} is met with no noise at all (the expected number of steps "
                        f"an example takes part in, Σ steps·sample_rate = {participations:.3g}, is below it)")
                raise ValueError(f"{what}: ε = 0 at every noise multiplier, 0 included, so a search for the "
                                 f"smallest one (Opacus's get_noise_multiplier) cannot end; give a target_delta below "
                                 "Σ steps·sample_rate (and below 1), and a sample_rate and step count above 0")
            return 0.0
        if searching:
            for z, q, steps in self.history:
                if floor * (1 - FLOOR_BAND) <= float(z) < floor and float(q) > 0 and int(steps) > 0:
                    raise ValueError(f"noise_multiplier = {float(z)!r} lies just below {floor:g}, the smallest "
                                     f"accounted (ε is inf there): a search closing on {floor:g}, as Opacus's "
                                     f"get_noise_multiplier does when every accepted multiplier meets its target, "
                                     f"cannot end; accountlib.theory.dpsgd_accounting.calibrate_noise_multiplier "
                                     f"returns the floor {floor:g} for such a target")
        if schedule is None:
            return math.inf
        if edge is not None:
            return edge
        z_squared = gaussian_z_squared(schedule)
        if z_squared is not None:  # every step at sample rate 1: the Gaussian mechanism, in closed form at any z
            return gaussian_upper_epsilon(z_squared, delta, self.epsilon_tol)
        for q, z, steps in schedule:
            if steps > STEPS_RANGE[1]:  # refused in Opacus's terms, not as the library's schedule[i]
                raise ValueError(f"the history holds {steps:,} steps at noise_multiplier = {z!r}, sample_rate = {q!r}; "
                                 f"this accountant accounts at most {STEPS_RANGE[1]:,} steps of one noise multiplier "
                                 "and sample rate where some sample_rate is below 1 (every sample_rate 1 is the "
                                 "Gaussian mechanism, in closed form with no cap)")
        epsilon = certified_upper_epsilon(DPSGDComposition(schedule=capped(schedule)), delta, self.epsilon_tol)
        beyond = [(q, z) for q, z, _ in schedule if q < 1 and z > 2 * Z_CAP]
        if beyond:
            q, z = beyond[0]
            raise ValueError(f"noise_multiplier = {z!r} at sample_rate = {q!r} lies above {2 * Z_CAP:g}, twice the "
                             f"largest accounted at a sample rate below 1 ({Z_CAP:g}); accounted as {Z_CAP:g}, the run "
                             f"is certified (epsilon = {epsilon:.6g}, target_delta = {float(delta):g})-DP, the smallest "
                             f"epsilon this accountant certifies for it, so a target epsilon below {epsilon:.6g} needs "
                             "more noise than it accounts (accountlib.theory.dpsgd_accounting.calibrate_noise_multiplier "
                             "refuses it too)")
        return epsilon

    def __len__(self) -> int:
        return sum(n for _, _, n in self.history)

    @classmethod
    def mechanism(cls) -> str:
        """The name Opacus knows this accountant by (:data:`MECHANISM`)."""
        return MECHANISM


def register(name: str = MECHANISM) -> None:
    """Register :class:`CertifiedDPSGDAccountant` with Opacus under ``name`` (done on import for
    :data:`MECHANISM`)."""
    register_accountant(name, CertifiedDPSGDAccountant, force=True)


register()
