"""Hostile input at the book's own boundaries (accountbook): the DP-SGD sweep's items, checked before any job
starts, and the IDX reader's caps on what it decompresses. The library's boundaries are tested in
tests/library/test_hostile_inputs.py."""

import gzip
import time

import pytest

from accountbook.dpsgd import read_idx
from cli_runs import assert_clean_error, run_main


def cli(*args):
    result = run_main(*args)
    return result.returncode, result.stdout, result.stderr


def test_the_idx_reader_caps_what_it_decompresses(tmp_path):
    began = time.monotonic()
    bomb = tmp_path / "bomb-idx3-ubyte.gz"  # 70 MB of zeros in ~70 kB
    bomb.write_bytes(gzip.compress(b"\x00\x00\x08\x01" + (70 * 10**6).to_bytes(4, "big") + bytes(70 * 10**6), 1))
    with pytest.raises(ValueError, match="larger than the limit of 67,108,864 bytes"):
        read_idx(bomb)
    truncated = tmp_path / "t10k-labels-idx1-ubyte"
    truncated.write_bytes(b"\x00\x00\x08\x03\x00\x00")
    with pytest.raises(ValueError, match="truncated header"):
        read_idx(truncated)
    assert time.monotonic() - began < 20


@pytest.mark.parametrize("args, fragment", [
    (["--targets", "3,2"], "--targets '3,2' delta must be in (0, 1)"),
    (["--targets", "3"], "--targets takes EPS,DELTA items such as 3,1e-5; got '3'"),
    (["--targets", "nan,1e-5"], "--targets 'nan,1e-5' epsilon must be a finite number"),
    (["--targets", "0,1e-5"], "--targets '0,1e-5' epsilon must be a finite number > 0"),
    (["--targets", "1e-200,1e-5"], "between 1e-100 and 1e100"),
    (["--targets", "3,1e-5", "3.0000001,1e-5"], "would share their result files"),
    (["--settings", "0.005,0"], "--settings '0.005,0' n must be a whole number of steps in 1..1e+09; got 0"),
    (["--settings", "2,500"], "--settings '2,500' q must be a finite number > 0 and <= 1; got '2'"),
    (["--settings", "0.01,1.5"], "n must be a whole number of steps"),
    (["--settings", "0.01,1e10"], "n must be a whole number of steps"),
    (["--seeds", "-1"], "--seeds must be a whole number in 0..2**62; got -1"),
])
def test_sweep_dpsgd_checks_every_item_before_any_job(tmp_path, args, fragment):
    began = time.monotonic()
    assert_clean_error(*cli("sweep", "dpsgd", *args, "--out", str(tmp_path / "out"), "--no-progress"), fragment)
    assert not (tmp_path / "out").exists()  # nothing started
    assert time.monotonic() - began < 5


def test_dpsgd_grid_checks_its_arguments():
    from accountbook.dpsgd import dpsgd_grid

    with pytest.raises(ValueError, match=r"targets\[0\] delta must be in \(0, 1\)"):
        dpsgd_grid(targets=[(3, 0)])
    with pytest.raises(ValueError, match="settings must hold at least one value"):
        dpsgd_grid(settings=[])
    assert dpsgd_grid(targets=[(3, 1e-5), (3, 1e-5)], settings=[(0.01, 100)], seeds=[1, 1]) == [
        {"targets": [[3.0, 1e-5]], "settings": [[0.01, 100]], "seeds": [1]}]
