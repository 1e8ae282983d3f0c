"""Cheap certified bounds on a DP-SGD run's δ(ε), without an inversion: for the runs the inversion cannot reach.

Engine layer of :mod:`accountlib`. Where the sampling rate is tiny and the steps few, the privacy loss is almost a
point mass and the Laplace inversion of :mod:`.subsampled_gaussian_inversion` would need more nodes than it may
compute; two bounds from the definitions, in ball arithmetic (python-flint's arb), still bracket δ there:

* :func:`total_variation_upper` — δ(ε) ≤ δ(0) = TV(P_T, Q_T) ≤ 1 − Π_g (1 − TV_g)^{T_g}, both directions, every ε
  (the total variation of a product is at most that of the coupling that couples each factor optimally; one step's
  is TV((1 − q)N(0, z²) + qN(1, z²), N(0, z²)) = q·TV(N(1, z²), N(0, z²)) = q·erf(1/(2√2 z))), or the χ² bound
  TV ≤ ½√χ²(P_T‖Q_T) = ½√(Π_g (1 + q_g²(e^{1/z_g²} − 1))^{T_g} − 1) (Cauchy–Schwarz; χ² tensorises, and one step's
  is q²·E_Q[(e^{(2x−1)/(2z²)} − 1)²] = q²(e^{1/z²} − 1)), the smaller: at a tiny q over many steps the first grows
  like T·q, the second like √T·q;
* :func:`threshold_lower_bound` — δ(ε) = sup_S P(S) − e^ε Q(S) ≥ the value at one event S: "some step's output
  exceeds its threshold t_g" (remove; "falls below" for add), whose probabilities under both product laws are
  1 − Π_g (1 − p_g(t_g))^{T_g}. With one step taking part (what a tiny q makes likely) this event is the one-step
  optimal test, so the bound is close where the inversion is out of reach.

Both return arb balls that contain the bound they name, so comparing them with a target δ decides certainly.
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["total_variation_upper", "threshold_lower_bound"]

_BITS = 160
"""The working precision of the balls (ample: each bound is a few special functions of float64 inputs)."""


def _tail(x):
    """P(N(0, 1) > x), a ball."""
    from flint import arb

    return (x / arb(2).sqrt()).erfc() / 2


def total_variation_upper(groups):
    """A ball whose upper end bounds δ(0) = TV(P_T, Q_T) of the run from above (module docstring), both directions.
    ``groups`` holds StepGroups or (q, z, steps) triples (checked as a StepGroup checks them).

    >>> from accountlib.engine.subsampled_gaussian import StepGroup
    >>> ball = total_variation_upper([StepGroup(1e-8, 1.0, 10)])  # ½·1e-8·√(10(e − 1)) ≈ 2.07e-8, below 3.83e-8
    >>> 2.07e-8 < float(ball.mid()) < 2.08e-8
    True
    >>> ball = total_variation_upper([StepGroup(0.01, 1.0, 1)])  # one step: the coupling's q·erf(1/(2√2)), exact
    >>> 3.82e-3 < float(ball.mid()) < 3.83e-3
    True
    """
    from flint import arb

    from . import arithmetic
    from .subsampled_gaussian import StepGroup

    checked = []
    for g in groups:
        if not isinstance(g, StepGroup):
            if not isinstance(g, (tuple, list)) or len(g) != 3:
                raise ValueError(f"groups must hold StepGroups or (q, z, steps) triples; got {g!r}")
            g = StepGroup(*g)
        checked.append(g)
    with arithmetic.precision(_BITS):
        log_stay, log_chi = arb(0), arb(0)
        for g in checked:
            one = arb(g.q) * (arb(1) / (2 * arb(2).sqrt() * arb(g.z))).erf()
            log_stay += g.steps * (-one).log1p()
            log_chi += g.steps * (arb(g.q) ** 2 * (1 / arb(g.z) ** 2).expm1()).log1p()
        coupling = -log_stay.expm1()
        chi_square = log_chi.expm1().sqrt() / 2 if log_chi < 700 else coupling  # e^{700}: the χ² bound is then > 1
        return chi_square if chi_square.upper() < coupling.upper() else coupling


def _thresholds(q: float, z: float, level: float, direction: str):
    """The one-step optimal test's threshold at loss ``level`` (None where one step's loss never exceeds it)."""
    if direction == "remove":
        inner = math.expm1(level) + q
    else:
        inner = math.expm1(-level) + q
    if inner <= 0:
        return None
    return z * z * math.log(inner / q) + 0.5


def threshold_lower_bound(groups, direction: str, epsilon):
    """A ball whose lower end bounds one direction's δ(ε) from below (module docstring): the event "some step's
    output passes its threshold", the thresholds those of one step's optimal test at a few loss levels near ε, and a
    few placed 0.5 to 4 noise widths past the midpoint 1/2 (any event gives a valid bound; at a tiny q over several
    steps these do better near ε = 0), the best kept. ``epsilon`` is a float (exactly) or a Fraction.

    >>> from accountlib.engine.subsampled_gaussian import StepGroup
    >>> from accountlib.engine.subsampled_gaussian import one_step_profile
    >>> ball = threshold_lower_bound([StepGroup(0.3, 1.0, 1)], "remove", 0.5)  # one step: the optimal test itself
    >>> exact = one_step_profile(0.3, 1.0, 0.5, "remove")
    >>> abs(float(ball.mid()) - float(exact.value)) < 1e-12
    True
    """
    from flint import arb

    from . import arithmetic

    exact = Fraction(epsilon)
    levels = sorted({max(0.0, float(exact) * f + s) for f in (0.5, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5)
                     for s in (0.0, 0.25)})
    levels = [(level, None) for level in levels] + [(None, m) for m in (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0)]
    best = None
    with arithmetic.precision(_BITS):
        e_eps = arithmetic.arb_fraction(exact).exp()
        for level, spread in levels:  # a loss level, or a threshold m noise widths past the midpoint 1/2
            log_first, log_second, used = arb(0), arb(0), False
            for g in groups:
                if level is None:  # at a tiny q over several steps: "some step is m widths past the midpoint"
                    t = 0.5 + spread * g.z if direction == "remove" else 0.5 - spread * g.z
                else:
                    t = _thresholds(g.q, g.z, level, direction)
                if t is None:
                    continue
                used = True
                ta, za, qa = arb(t), arb(g.z), arb(g.q)
                if direction == "remove":  # S = {x > t}: P = (1 − q)N(0, z²) + qN(1, z²) first, Q = N(0, z²) second
                    first = (1 - qa) * _tail(ta / za) + qa * _tail((ta - 1) / za)
                    second = _tail(ta / za)
                else:  # S = {x < t}: Q first, P second
                    first = _tail(-ta / za)
                    second = (1 - qa) * _tail(-ta / za) + qa * _tail((1 - ta) / za)
                log_first += g.steps * (-first).log1p()
                log_second += g.steps * (-second).log1p()
            if not used:
                continue
            value = -log_first.expm1() + e_eps * log_second.expm1()
            if best is None or value.lower() > best.lower():
                best = value
    if best is None:
        return arb(0)
    return best
