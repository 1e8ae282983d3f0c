"""The exact-calibrated DP-SGD runs (accountbook.dpsgd.exact): certified calibration, pairing with the grid's runs
of the same seed, resuming, and the paired table."""

from __future__ import annotations

import json
import math

import pytest

pytest.importorskip("torch")
pytest.importorskip("opacus")

from accountbook import dpsgd  # noqa: E402
from accountbook.dpsgd import exact  # noqa: E402

TARGET = (3.0, 1e-5)


def test_the_exact_noise_multiplier_is_certified_on_both_sides_and_below_the_rdp_one():
    import accountlib
    from accountlib.theory.dpsgd_calibration import calibrate_dpsgd

    q, steps = 0.05, 20
    found = exact.exact_noise_multiplier(q, steps, *TARGET)
    assert found["z_fails"] < found["z"] < calibrate_dpsgd(q, steps, *TARGET, "rdp")
    assert found["epsilon_at_z"] <= TARGET[0]
    # one grid step below, delta(3) certainly exceeds 1e-5: recomputed here, not read from the calibration
    below = accountlib.delta(accountlib.DPSGDComposition(q=q, noise_multiplier=found["z_fails"], steps=steps), TARGET[0],
                             rel_tol=1e-6)
    assert below.delta - below.error_bound > TARGET[1]
    assert math.isclose(found["z_fails"], found["z"] * (1 - 1e-5), rel_tol=2e-5)


def test_an_exact_run_takes_the_steps_of_the_grids_run_of_its_seed(tmp_path, monkeypatch):
    data = dpsgd.load_data(dataset="digits")
    grid = dpsgd.train_setting(data, q=0.05, steps=20, seed=1, targets=[TARGET], out_dir=tmp_path, eval_every=10)
    z_rdp = grid[TARGET]["z_rdp"]
    # forced to the RDP multiplier, the exact run must repeat the grid's RDP run of the same seed to float32 rounding
    monkeypatch.setattr(exact, "exact_noise_multiplier",
                        lambda q, steps, epsilon, delta: {"z": z_rdp, "z_fails": z_rdp, "epsilon_at_z": epsilon})
    records = exact.train_exact(data, q=0.05, steps=20, seed=1, out_dir=tmp_path, targets=[TARGET])
    run, rdp = records[TARGET]["run"], grid[TARGET]["runs"]["rdp"]
    assert [h["step"] for h in run["history"]][-1] == 20
    assert abs(run["cross_entropy"] - rdp["cross_entropy"]) <= 1e-4 * max(1.0, rdp["cross_entropy"])
    assert abs(run["accuracy"] - rdp["accuracy"]) <= 1 / len(data.y_test) + 1e-12
    path = exact.exact_path(tmp_path, epsilon=TARGET[0], delta=TARGET[1], q=0.05, steps=20, seed=1)
    stored = json.loads(path.read_text())
    assert stored["model"] == dpsgd.model_description() and stored["run"]["cpu_seconds"] > 0
    # stored runs are read back, not retrained
    before = path.stat().st_mtime_ns
    exact.train_exact(data, q=0.05, steps=20, seed=1, out_dir=tmp_path, targets=[TARGET])
    assert path.stat().st_mtime_ns == before
    (row,) = exact.exact_table(tmp_path)
    assert row["seeds"] == 1 and abs(row["dL_E-R"]) <= 1e-4 * max(1.0, rdp["cross_entropy"])
    assert math.isnan(row["dAcc_E-R_hw"])  # one seed: no interval
