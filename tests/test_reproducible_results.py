"""The committed DHC sweep results are reproduced byte for byte by recomputing a few cheap pairs, in this
process and in a subprocess with one BLAS thread (the files must not depend on the executor or BLAS)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from accountlib import census, sweep

RESULTS = Path(__file__).resolve().parents[1] / "results" / "dhc"


def committed(k, l):
    if sweep.pair_status(RESULTS, k, l) is not None:
        pytest.skip(f"no valid committed result files for pair ({k}, {l})")
    return [path.read_bytes() for path in sweep.pair_paths(RESULTS, k, l)]


def test_committed_results_are_complete_and_valid():
    invalid = [(p, s) for p in census.all_pairs() if (s := sweep.pair_status(RESULTS, *p)) is not None]
    assert not invalid, f"{len(invalid)} committed pairs invalid, e.g. {invalid[0]}"


def test_recomputed_pair_matches_the_committed_files_byte_for_byte(tmp_path):
    expected = committed(13, 13)
    sweep.pair_job(13, 13, tmp_path)
    assert [path.read_bytes() for path in sweep.pair_paths(tmp_path, 13, 13)] == expected
    assert sweep.manifest_path(tmp_path, 13, 13).read_bytes() == sweep.manifest_path(RESULTS, 13, 13).read_bytes()


def test_recomputed_pair_with_one_blas_thread_matches_byte_for_byte(tmp_path):
    expected = committed(1, 2)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    code = f"from accountlib import sweep; sweep.pair_job(1, 2, {str(tmp_path)!r})"
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=600)
    assert [path.read_bytes() for path in sweep.pair_paths(tmp_path, 1, 2)] == expected
