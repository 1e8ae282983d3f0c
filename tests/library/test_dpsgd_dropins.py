"""The DP-SGD drop-ins inside their peers' own workflows: Opacus (a PrivacyEngine training loop on random data,
get_noise_multiplier, make_private_with_epsilon) and dp_accounting (calibrate_dp_mechanism); each answer checked
against a fresh certified computation."""

import math
import warnings
from fractions import Fraction

import mpmath
import pytest

from accountlib.theory.dpsgd_accounting import DPSGDComposition


def _train(engine, model, optimizer, loader, steps):
    import torch

    for i, (xb, yb) in enumerate(loader):
        if i >= steps:
            break
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()


def _data():
    import torch

    torch.manual_seed(0)
    x = torch.randn(200, 5)
    y = (x[:, 0] > 0).long()
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=20)


def test_opacus_privacy_engine_runs_on_the_certified_accountant():
    torch = pytest.importorskip("torch")
    pytest.importorskip("opacus")
    from opacus import PrivacyEngine

    from accountlib.applications.opacus_accountant import MECHANISM, CertifiedDPSGDAccountant

    warnings.filterwarnings("ignore", module="opacus")
    engine = PrivacyEngine(accountant=MECHANISM)
    assert isinstance(engine.accountant, CertifiedDPSGDAccountant)
    model = torch.nn.Linear(5, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model, optimizer, loader = engine.make_private(module=model, optimizer=optimizer, data_loader=_data(),
                                                   noise_multiplier=1.0, max_grad_norm=1.0, poisson_sampling=True)
    _train(engine, model, optimizer, loader, 4)
    assert engine.accountant.history == [(1.0, 0.1, 4)] and len(engine.accountant) == 4
    eps = engine.get_epsilon(1e-5)
    certified = DPSGDComposition(0.1, 1.0, 4).epsilon(1e-5, abs_tol=1e-6)
    assert float(certified.upper) <= eps < float(certified.upper) + 1e-12
    # Opacus's own state_dict round trip keeps the history
    fresh = CertifiedDPSGDAccountant()
    fresh.load_state_dict(engine.accountant.state_dict())
    assert fresh.get_epsilon(1e-5) == eps


def test_opacus_get_noise_multiplier_and_make_private_with_epsilon():
    torch = pytest.importorskip("torch")
    pytest.importorskip("opacus")
    from opacus import PrivacyEngine
    from opacus.accountants.utils import get_noise_multiplier

    from accountlib.applications.opacus_accountant import MECHANISM

    warnings.filterwarnings("ignore", module="opacus")
    sigma = get_noise_multiplier(target_epsilon=3.0, target_delta=1e-5, sample_rate=0.01, steps=1000,
                                 accountant=MECHANISM, epsilon_tolerance=0.01)
    e = DPSGDComposition(0.01, sigma, 1000).epsilon(1e-5, abs_tol=1e-6)
    assert 2.99 - 1e-6 <= float(e.upper) <= 3.0  # met, certified, within Opacus's own tolerance
    engine = PrivacyEngine(accountant=MECHANISM)
    model = torch.nn.Linear(5, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model, optimizer, loader = engine.make_private_with_epsilon(
        module=model, optimizer=optimizer, data_loader=_data(), target_epsilon=5.0, target_delta=1e-5, epochs=1,
        max_grad_norm=1.0)
    _train(engine, model, optimizer, loader, 10)
    assert engine.get_epsilon(1e-5) <= 5.0


def test_opacus_accountant_edges():
    pytest.importorskip("opacus")
    from accountlib.applications.opacus_accountant import CertifiedDPSGDAccountant

    a = CertifiedDPSGDAccountant()
    assert a.get_epsilon(1e-5) == 0.0
    a.step(noise_multiplier=0.0, sample_rate=0.1)
    assert a.get_epsilon(1e-5) == math.inf
    b = CertifiedDPSGDAccountant()
    b.step(noise_multiplier=2.0, sample_rate=0.0)
    assert b.get_epsilon(1e-5) == 0.0


def test_dp_accounting_calibrate_dp_mechanism_on_the_certified_accountant():
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting import mechanism_calibration

    from accountlib.applications.dpsgd_accountant import CertifiedDPSGDAccountant

    def event(z):
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(z)), 1000)

    z = mechanism_calibration.calibrate_dp_mechanism(
        CertifiedDPSGDAccountant, event, target_epsilon=2.0, target_delta=1e-5,
        bracket_interval=mechanism_calibration.LowerEndpointAndGuess(0.3, 1.0), tol=1e-4)
    e = DPSGDComposition(0.01, z, 1000).epsilon(1e-5, abs_tol=1e-7)
    assert float(e.upper) <= 2.0 and float(DPSGDComposition(0.01, z - 1e-3, 1000).epsilon(1e-5).lower) > 2.0


def test_dp_accounting_events_compose_and_refuse():
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.privacy_accountant import NeighboringRelation

    from accountlib.applications.dpsgd_accountant import CertifiedDPSGDAccountant

    a = CertifiedDPSGDAccountant()
    assert not a.supports(dp_accounting.LaplaceDpEvent(1.0))
    with pytest.raises(dp_accounting.UnsupportedEventError):
        a.compose(dp_accounting.LaplaceDpEvent(1.0))
    step = dp_accounting.PoissonSampledDpEvent(0.02, dp_accounting.GaussianDpEvent(1.1))
    a.compose(dp_accounting.ComposedDpEvent([dp_accounting.GaussianDpEvent(30.0),
                                             dp_accounting.SelfComposedDpEvent(step, 500)]))
    run = DPSGDComposition(schedule=[(1.0, 30.0, 1), (0.02, 1.1, 500)])
    point = run.delta(2.0)
    assert point.delta + point.error_bound <= a.get_delta(2.0) <= 1.0001 * (point.delta + point.error_bound)
    assert a.get_epsilon(1e-6) >= float(run.epsilon(1e-6, abs_tol=1e-6).upper)
    with pytest.raises(ValueError, match="ADD_OR_REMOVE_ONE") as info:  # replace-one: one line, naming what is accepted
        CertifiedDPSGDAccountant(NeighboringRelation.REPLACE_ONE)
    assert "\n" not in str(info.value) and "add/remove-one" in str(info.value)


def test_the_dropins_bound_epsilon_where_the_inversion_is_out_of_reach():
    """Issue 38's second review: a tiny sampling rate over few steps raised ResourceLimitError from both drop-ins'
    get_epsilon (dp_accounting's calibrate_dp_mechanism and Opacus's get_noise_multiplier ended in a traceback). Now
    ε = 0 where the total variation bound meets δ (q = 1e-8, T = 10: δ(0) ≤ 3.8e-8), a certified upper end where
    only bounds without an inversion reach (q = 1e-6, T = 100), and the calibration runs."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting import mechanism_calibration

    from accountlib.applications.dpsgd_accountant import CertifiedDPSGDAccountant

    def event(q, z, steps):
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), steps)

    a = CertifiedDPSGDAccountant()
    a.compose(event(1e-8, 1.0, 10))
    assert a.get_epsilon(1e-5) == 0.0
    b = CertifiedDPSGDAccountant()
    b.compose(event(1e-6, 0.5, 100))
    upper = DPSGDComposition(1e-6, 0.5, 100).epsilon("1e-5", abs_tol=1e-6, best_effort=True).upper
    assert math.isfinite(b.get_epsilon(1e-5)) and b.get_epsilon(1e-5) >= float(upper) > 0
    z = mechanism_calibration.calibrate_dp_mechanism(CertifiedDPSGDAccountant, lambda z: event(1e-8, z, 10),
                                                     target_epsilon=1.0, target_delta=1e-5)
    assert 0.05 <= z < 0.06  # every accepted multiplier meets the target (below 0.05 the drop-in answers inf)


def test_opacus_answers_inf_beyond_the_largest_epsilon_and_one_line_where_no_noise_is_needed():
    """ε > 200 raised EpsilonOutOfRange from the Opacus drop-in (the dp_accounting one answers inf): now inf, a valid
    upper bound, and Opacus's get_noise_multiplier reads it as 'more noise' (target ε = 150, q = 0.5, T = 100: its
    answer certainly meets the target). A target δ met with no noise (q = 1e-8, T = 10) leaves Opacus's search nothing to
    stop on: one line instead of a traceback."""
    pytest.importorskip("opacus")
    from opacus.accountants.utils import get_noise_multiplier

    from accountlib.applications.opacus_accountant import CertifiedDPSGDAccountant

    a = CertifiedDPSGDAccountant()
    for _ in range(50):
        a.step(noise_multiplier=0.3, sample_rate=0.5)
    assert a.get_epsilon(1e-5) == math.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sigma = get_noise_multiplier(target_epsilon=150, target_delta=1e-5, sample_rate=0.5, steps=100,
                                     accountant="accountlib")
    assert DPSGDComposition(0.5, sigma, 100).epsilon(1e-5, abs_tol=1e-6).upper <= 150
    with pytest.raises(ValueError) as raised:
        get_noise_multiplier(target_epsilon=1.0, target_delta=1e-5, sample_rate=1e-8, steps=10,
                             accountant="accountlib")
    assert "\n" not in str(raised.value) and "met with no noise" in str(raised.value)


@pytest.mark.parametrize("event_kind", ["subsampled", "gaussian beyond the cap"])
def test_dp_accounting_get_delta_refuses_a_negative_epsilon_on_every_path(event_kind):
    """A negative ε gave δ(|ε|) on the closed-form path (5e-324 for δ(−1), truly ≥ 1 − 1/e) and a refusal on the
    general one: both refuse now, in one line naming target_epsilon; δ(0) and δ(∞) still answer."""
    pytest.importorskip("dp_accounting")
    import mpmath
    from dp_accounting import dp_event

    from accountlib.applications.dpsgd_accountant import CertifiedDPSGDAccountant

    event = (dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0)) if event_kind == "subsampled"
             else dp_event.GaussianDpEvent(2000.0))
    accountant = CertifiedDPSGDAccountant()
    accountant.compose(event, 10)
    for bad in (-1.0, -0.001, -1e-300, float("nan"), "x"):
        with pytest.raises(ValueError, match=r"^target_epsilon must be a number >= 0"):
            accountant.get_delta(bad)
    assert accountant.get_delta(-0.0) == accountant.get_delta(0.0)
    assert 0.0 <= accountant.get_delta(float("inf")) <= accountant.get_delta(150.0)
    if event_kind != "subsampled":  # δ(0) = 2Φ(μ/2) − 1 with μ = √10/2000, the total variation distance
        with mpmath.workdps(50):
            mu = mpmath.sqrt(10) / 2000
            exact = 2 * mpmath.ncdf(mu / 2) - 1
        assert exact <= accountant.get_delta(0.0) <= exact * (1 + 1e-9)


def _gaussian_epsilon_is_certified_and_tight(mu, delta, epsilon, width=1e-5):
    """δ(ε) ≤ δ at the answer and > δ a little below it, by the reference's closed form (mpmath, 50 digits)."""
    from dpsgd_reference import gaussian_delta

    return (gaussian_delta(mu, epsilon, dps=50) <= mpmath.mpf(delta)
            < gaussian_delta(mu, epsilon - width * max(1.0, epsilon), dps=50))


def _dp_event(q, z, steps):
    from dp_accounting import dp_event

    one = dp_event.GaussianDpEvent(z) if q == 1 else dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(z))
    return dp_event.SelfComposedDpEvent(one, steps)


def test_dp_accounting_drop_in_answers_a_gaussian_run_of_more_than_1e9_steps_and_names_the_events_otherwise():
    """Hostile review r38d, item 5: more than 1e9 steps in all raised 'steps (schedule[0]) must be a whole number in
    [1, 1e+09]', a schedule the caller never gave, even where every event is a GaussianDpEvent, whose closed form
    has no cap. Now a Gaussian run answers at any count (ε(1e-5) of 1e10 steps at z = 2000, μ = 50: 1462.285…; 2e9
    at z = 500, μ = √8000; calibrate_dp_mechanism over 5e9 steps), each checked against the reference's closed form;
    a run with some q < 1 is refused in one line naming its events and their count, from get_epsilon and get_delta."""
    pytest.importorskip("dp_accounting")
    from dp_accounting import mechanism_calibration

    from accountlib.applications.dpsgd_accountant import CertifiedDPSGDAccountant

    for z, steps in [(2000.0, 10**10), (500.0, 2 * 10**9)]:
        a = CertifiedDPSGDAccountant()
        a.compose(_dp_event(1, z, steps))
        eps = a.get_epsilon(1e-5)
        with mpmath.workdps(50):
            mu = mpmath.sqrt(steps) / mpmath.mpf(z)
            assert _gaussian_epsilon_is_certified_and_tight(mu, "1e-5", eps), (z, steps, eps)
            assert mpmath.mpf(a.get_delta(eps)) >= mpmath.mpf(0)  # answers, no refusal
    assert 1462.285 < CertifiedDPSGDAccountant().compose(_dp_event(1, 2000.0, 10**10)).get_epsilon(1e-5) < 1462.2851
    z = mechanism_calibration.calibrate_dp_mechanism(CertifiedDPSGDAccountant, lambda z: _dp_event(1, z, 5 * 10**9),
                                                     target_epsilon=1.0, target_delta=1e-5)
    from dpsgd_reference import gaussian_delta

    with mpmath.workdps(50):
        assert gaussian_delta(mpmath.sqrt(5 * 10**9) / mpmath.mpf(z), 1, dps=50) <= mpmath.mpf("1e-5")
    b = CertifiedDPSGDAccountant()
    b.compose(_dp_event(0.01, 1.0, 2 * 10**9))
    for call in (lambda: b.get_epsilon(1e-5), lambda: b.get_delta(1.0)):
        with pytest.raises(ValueError) as raised:
            call()
        message = str(raised.value)
        assert "\n" not in message and "schedule" not in message
        assert "PoissonSampledDpEvent(0.01, GaussianDpEvent(1)) × 2,000,000,000" in message
    with pytest.raises(ValueError, match="PoissonSampledDpEvent"):
        mechanism_calibration.calibrate_dp_mechanism(CertifiedDPSGDAccountant,
                                                     lambda z: _dp_event(0.01, z, 2 * 10**9), 1.0, 1e-5)


@pytest.mark.parametrize("kind", ["dp_accounting subsampled", "dp_accounting gaussian beyond the cap", "opacus"])
def test_both_dropins_read_a_target_delta_outside_0_1_by_one_rule(kind):
    """Hostile review r38d, item 7: for δ outside [1e-300, 1) the general path raised ValueError ('delta must be a
    number in [1e-300, 1)', not the caller's name) while the Gaussian path of the same accountant answered δ = 0 →
    inf and δ = −1e-5 → inf; the Opacus drop-in raised at δ = 0. One rule now, on every path of both drop-ins: δ = 0
    → inf, δ ≥ 1 → 0, negative or nan refused in one line naming target_delta; below 1e-300, what is certified (the
    Gaussian closed form: checked against the reference; else inf)."""
    if kind == "opacus":
        pytest.importorskip("opacus")
        from accountlib.applications.opacus_accountant import CertifiedDPSGDAccountant

        accountant = CertifiedDPSGDAccountant()
        for _ in range(10):
            accountant.step(noise_multiplier=1.0, sample_rate=0.01)
    else:
        pytest.importorskip("dp_accounting")
        from accountlib.applications.dpsgd_accountant import CertifiedDPSGDAccountant

        accountant = CertifiedDPSGDAccountant()
        accountant.compose(_dp_event(0.01, 1.0, 10) if kind.endswith("subsampled") else _dp_event(1, 2000.0, 10))
    assert accountant.get_epsilon(0.0) == accountant.get_epsilon(0) == math.inf
    for at_least_one in (1.0, 1, 2.0, float("inf")):
        assert accountant.get_epsilon(at_least_one) == 0.0
    for bad in (-1e-5, -0.0 - 1e-300, float("nan"), "x"):
        with pytest.raises(ValueError) as raised:
            accountant.get_epsilon(bad)
        assert str(raised.value).startswith("target_delta must be a number >= 0") and "\n" not in str(raised.value)
    tiny = accountant.get_epsilon(1e-310)
    if kind.endswith("beyond the cap"):
        with mpmath.workdps(50):
            assert _gaussian_epsilon_is_certified_and_tight(mpmath.sqrt(10) / 2000, "1e-310", tiny)
    else:
        assert tiny == math.inf
    assert 0 < accountant.get_epsilon(1e-300) < math.inf


def test_a_target_met_at_the_floor_ends_every_calibration(monkeypatch):
    """Target (ε = 1, δ = 0.098) at q = 0.01, T = 10: δ(0) ≤ 0.0956 < 0.098 at z = 0.05, yet Σ T·q = 0.1 > δ, so the
    'met with no noise' check did not fire and Opacus's get_noise_multiplier bisected towards 0.05 for ever (40,928
    calls in 90 s). Now the Opacus drop-in raises in one line as the bisection closes on the floor; the library's own
    calibration returns the floor 0.05 (flagged) and dp_accounting's calibrate_dp_mechanism ends there too."""
    pytest.importorskip("opacus")
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting import mechanism_calibration
    from opacus.accountants.utils import get_noise_multiplier

    from accountlib.applications import dpsgd_accountant, opacus_accountant
    from accountlib.theory.dpsgd_accounting import calibrate_noise_multiplier

    calls = []
    answer = opacus_accountant.CertifiedDPSGDAccountant.get_epsilon

    def counted(self, delta, **kwargs):
        calls.append(self.history[0][0])
        if len(calls) > 500:
            raise RuntimeError("Opacus's search did not end")
        return answer(self, delta, **kwargs)

    monkeypatch.setattr(opacus_accountant.CertifiedDPSGDAccountant, "get_epsilon", counted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as raised:
            get_noise_multiplier(target_epsilon=1.0, target_delta=0.098, sample_rate=0.01, steps=10,
                                 accountant="accountlib")
    message = str(raised.value)
    assert "\n" not in message and "calibrate_noise_multiplier returns the floor 0.05" in message
    assert len(calls) < 200
    a = opacus_accountant.CertifiedDPSGDAccountant()  # steps below the band still answer inf (Σ T·q = 0.1 > δ)
    for _ in range(10):
        a.step(noise_multiplier=0.04, sample_rate=0.01)
    assert answer(a, 0.098) == math.inf
    own = calibrate_noise_multiplier(0.01, 10, (1.0, 0.098), resolution=1e-3)
    # the smallest grid point at or above the floor (its step is relative to the RDP reference, 1e-3 of it here);
    # it raised ResourceLimitError from the inversion at z near 0.05 before the total variation bound decided it
    assert 0.05 <= own.noise_multiplier < 0.05 + own.step and not own.proven_smallest and own.failure is None
    z = mechanism_calibration.calibrate_dp_mechanism(
        dpsgd_accountant.CertifiedDPSGDAccountant,
        lambda z: dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(z)), 10),
        target_epsilon=1.0, target_delta=0.098)
    assert 0.05 <= z < 0.06


@pytest.mark.parametrize("event_kind", ["subsampled", "gaussian beyond the cap"])
def test_dp_accounting_get_delta_converts_a_target_epsilon_before_comparing_it(event_kind):
    """get_delta("1") raised TypeError ("'>' not supported between instances of 'str' and 'int'") on the subsampled
    path: the target was compared with the largest ε accounted before it was converted. Every form of a number the
    library reads is converted first (dpsgd_targets.exact_target_epsilon), each answering what its value answers,
    beyond 200 too; δ at a Gaussian run's ε = 150 (below 1e-10^9) answers at once, no exact Fraction of its mpf."""
    pytest.importorskip("dp_accounting")
    from decimal import Decimal

    import numpy as np

    from accountlib.applications.dpsgd_accountant import CertifiedDPSGDAccountant
    from accountlib.applications.dpsgd_targets import exact_target_epsilon

    for form in ("1", 1, 1.0, Fraction(1), Decimal("1"), np.float64(1), np.array(1.0), "2/2", " 1e0 "):
        assert exact_target_epsilon(form) == 1, form
    assert exact_target_epsilon("inf") == exact_target_epsilon(np.inf) == math.inf
    accountant = CertifiedDPSGDAccountant()
    accountant.compose(_dp_event(0.01, 1.0, 10) if event_kind == "subsampled" else _dp_event(1, 2000.0, 10))
    assert 0 < accountant.get_delta("1") == accountant.get_delta(1.0) <= accountant.get_delta("1/2") <= 1
    assert accountant.get_delta("250") == accountant.get_delta(250.0) <= accountant.get_delta("1")
    assert accountant.get_delta("inf") == 0.0
    for bad in ("-1", "nan", "-inf", None, [1.0], True):
        with pytest.raises(ValueError, match=r"^target_epsilon must be a number >= 0 \(inf allowed\); got [^\n]*$"):
            accountant.get_delta(bad)
    if event_kind != "subsampled":
        assert accountant.get_delta(150.0) == 5e-324  # δ(150) = e^(−4.5e9) or so: the smallest float above it


def test_opacus_get_noise_multiplier_at_sample_rate_one_has_no_cap():
    """Hostile review r38d, item 8: get_noise_multiplier(ε = 0.001, δ = 1e-10, sample_rate 1, one step) raised
    Opacus's 'The privacy budget is too low.': the drop-in accounted every noise multiplier above 1000 as 1000, while
    the answer is z ≈ 4584.22, which the dp_accounting drop-in finds. A history whose every step has sample rate 1 is
    now the Gaussian mechanism in closed form at any z: Opacus's own search, run to a fine epsilon_tolerance, ends at
    a z the reference certifies, within 1e-4 of the dp_accounting drop-in's calibration."""
    pytest.importorskip("opacus")
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting import mechanism_calibration
    from opacus.accountants.utils import get_noise_multiplier

    import accountlib.applications.opacus_accountant  # noqa: F401  (registers "accountlib")
    from accountlib.applications.dpsgd_accountant import CertifiedDPSGDAccountant
    from dpsgd_reference import gaussian_delta

    z = get_noise_multiplier(target_epsilon=0.001, target_delta=1e-10, sample_rate=1.0, steps=1,
                             accountant="accountlib", epsilon_tolerance=1e-7)
    with mpmath.workdps(50):
        assert gaussian_delta(1 / mpmath.mpf(z), mpmath.mpf("0.001"), dps=50) <= mpmath.mpf("1e-10")
    ours = mechanism_calibration.calibrate_dp_mechanism(
        CertifiedDPSGDAccountant, lambda s: dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(s), 1),
        target_epsilon=1e-3, target_delta=1e-10)
    assert 4584 < ours <= z < ours * (1 + 1e-4)


def test_opacus_refuses_a_subsampled_target_beyond_the_cap_in_one_line(monkeypatch):
    """At a sample rate below 1 a noise multiplier above 1000 is accounted as 1000 (a valid bound); a target that needs
    more (q = 0.5, one step, ε = 0.001 at δ = 1e-10: the library's own calibration refuses it too) sent Opacus's search
    doubling to 1.3e6 and 'The privacy budget is too low.'. It now ends at 2560, the search's first multiplier above
    twice the cap, in one line naming the cap, the target δ and the ε certified at the cap; a target the cap meets
    (ε = 0.003: z ≈ 799.92) still ends below it, where the search passes 1280 on its way."""
    pytest.importorskip("opacus")
    from opacus.accountants.utils import get_noise_multiplier

    from accountlib.applications import opacus_accountant
    from accountlib.theory.dpsgd_accounting import calibrate_noise_multiplier

    asked = []
    answer = opacus_accountant.CertifiedDPSGDAccountant.get_epsilon

    def counted(self, delta, **kwargs):
        asked.append(self.history[0][0])
        return answer(self, delta, **kwargs)

    monkeypatch.setattr(opacus_accountant.CertifiedDPSGDAccountant, "get_epsilon", counted)
    with pytest.raises(ValueError) as raised:
        get_noise_multiplier(target_epsilon=0.001, target_delta=1e-10, sample_rate=0.5, steps=1,
                             accountant="accountlib")
    message = str(raised.value)
    assert "\n" not in message and message.startswith("noise_multiplier = 2560.0 at sample_rate = 0.5 lies above 2000")
    assert "(1000)" in message and "target_delta = 1e-10" in message and asked[-1] == 2560
    certified = float(message.split("epsilon = ")[1].split(",")[0])
    assert certified >= float(DPSGDComposition(0.5, 1000, 1).epsilon("1e-10", abs_tol=1e-9).upper) * (1 - 1e-5)
    with pytest.raises(ArithmeticError, match="no noise multiplier up to 1000"):
        calibrate_noise_multiplier(0.5, 1, (0.001, 1e-10))
    z = get_noise_multiplier(target_epsilon=0.003, target_delta=1e-10, sample_rate=0.5, steps=1,
                             accountant="accountlib", epsilon_tolerance=1e-5)  # wider than the ε interval (1e-6)
    assert 1280 in asked and 799.92 <= z <= 1000
    assert DPSGDComposition(0.5, z, 1).epsilon("1e-10", abs_tol=1e-9).upper <= Fraction(3, 1000)
