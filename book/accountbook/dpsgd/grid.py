"""The DP-SGD sweep's jobs: every privacy target, setting and seed checked before any job exists, then one job
per ((q, n), seed) (``python -m accountlib sweep dpsgd`` and the chapter's papermill parameters)."""

from __future__ import annotations

from accountlib.infrastructure.numbers import as_bounded_float, as_int, as_probability

from .results import PAPER_TARGETS, _tag, paper_settings

__all__ = ["dpsgd_grid", "check_target", "check_setting", "check_seed", "MAX_STEPS", "MAX_SEED"]

MAX_STEPS = 10**9
"""The most DP-SGD steps a setting may ask for (the limit of :func:`accountlib.theory.dpsgd_calibration.calibrate_dpsgd`)."""
MAX_SEED = 2**62
"""The largest seed (torch seeds the sampling and noise generators with 10,000 + seed and 20,000 + seed)."""


def check_target(epsilon, delta, name: str = "target") -> tuple[float, float]:
    """A privacy target (ε, δ): ε a finite number in [1e-100, 1e100] and δ in (0, 1) (the ranges of
    :func:`accountlib.theory.dpsgd_calibration.calibrate_dpsgd`), else ``ValueError`` naming ``name``, the value and the range."""
    epsilon = as_bounded_float(epsilon, f"{name} epsilon", smallest=0, largest=1e100)
    if epsilon < 1e-100:
        raise ValueError(f"{name} epsilon must be a finite number between 1e-100 and 1e100; got {epsilon!r}")
    return epsilon, as_probability(delta, f"{name} delta")


def check_setting(q, steps, name: str = "setting") -> tuple[float, int]:
    """A DP-SGD setting (q, n): the Poisson rate q in (0, 1] and n a whole number of steps in 1..MAX_STEPS."""
    q = as_bounded_float(q, f"{name} q", smallest=0, largest=1)
    if isinstance(steps, str) and steps.strip().isdigit():  # the command line's text
        steps = int(steps)
    try:
        n = as_int(steps, f"{name} n")
    except ValueError:
        n = None
    if n is None or not 1 <= n <= MAX_STEPS:
        raise ValueError(f"{name} n must be a whole number of steps in 1..{MAX_STEPS:.0e}; got {steps!r}")
    return q, n


def check_seed(seed, name: str = "seed") -> int:
    """A seed: a whole number in 0..MAX_SEED."""
    try:
        value = as_int(seed, name)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= MAX_SEED:
        raise ValueError(f"{name} must be a whole number in 0..2**62; got {seed!r}")
    return value


def _distinct_tags(values, name: str, tag) -> list:
    """``values`` without repeats; two values whose result file names coincide (6 significant digits) refused."""
    values = list(dict.fromkeys(values))
    seen: dict = {}
    for value in values:
        if tag(value) in seen:
            raise ValueError(f"{name} {seen[tag(value)]} and {value} would share their result files "
                             f"({tag(value)}); give values that differ in the first 6 significant digits")
        seen[tag(value)] = value
    return values


def dpsgd_grid(targets=None, settings=None, seeds=None) -> list[dict]:
    """The DP-SGD sweeps as jobs, one per ((q, n), seed) (also usable as the chapter's papermill parameters).

    Each run trains one seed of one setting at every target, so the clipping-only run (shared by the
    targets) is trained once, by one worker. Seed by seed (so that whole seeds finish first), the most
    expensive settings (largest n·q) first within a seed.

    Every target, setting and seed is checked here, before any job exists (:func:`check_target`,
    :func:`check_setting`, :func:`check_seed`); repeats are dropped.
    """
    def pairs(items, name):
        try:
            return [tuple(item) for item in items]
        except TypeError:
            raise ValueError(f"{name} must be a list of pairs; got {items!r}") from None

    targets = list(PAPER_TARGETS) if targets is None else pairs(targets, "targets")
    settings = paper_settings() if settings is None else pairs(settings, "settings")
    seeds = [0, 1, 2, 3, 4] if seeds is None else list(seeds)
    for name, items in (("targets", targets), ("settings", settings), ("seeds", seeds)):
        if not items:
            raise ValueError(f"{name} must hold at least one value (omit it for the paper's)")
        for i, item in enumerate(items if name != "seeds" else ()):
            if len(item) != 2:
                raise ValueError(f"{name}[{i}] must be a pair; got {item!r}")
    targets = [check_target(e, d, f"targets[{i}]") for i, (e, d) in enumerate(targets)]
    settings = [check_setting(q, n, f"settings[{i}]") for i, (q, n) in enumerate(settings)]
    seeds = [check_seed(s, f"seeds[{i}]") for i, s in enumerate(seeds)]
    targets = [list(t) for t in _distinct_tags(targets, "targets", lambda t: (_tag(t[0]), _tag(t[1])))]
    settings = _distinct_tags(settings, "settings", lambda s: (_tag(s[0]), s[1]))
    seeds = list(dict.fromkeys(seeds))
    settings = sorted(settings, key=lambda s: -s[0] * s[1])
    return [{"targets": targets, "settings": [[float(q), int(n)]], "seeds": [int(seed)]}
            for seed in seeds for q, n in settings]
