"""The committed DHC sweep results are reproduced by recomputing a few cheap pairs: in this process, in a
subprocess with one BLAS thread, and under another numpy dispatch (a second CPU, ``second_cpu``).

Reproduced means the certificates agree, not the bytes: numpy picks its SIMD kernels at run time, so two CPUs
round the last bits of a float differently. Every stored number carries its bound, and a recomputed number
must lie within the two bounds of the committed one (the intervals overlap). What is exact (the ε grid, the
vertices' slopes, which are computed from exact rationals) must be equal. The manifests' SHA-256 guard the
integrity of a folder, so they are checked only for the committed folder itself.
"""

import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from accountlib.applications import census
from second_cpu import disabled_features, environment

RESULTS = Path(__file__).resolve().parents[2] / "results" / "dhc"


def committed(k, l):
    if census.pair_status(RESULTS, k, l) is not None:
        pytest.fail(f"no valid committed result files for pair ({k}, {l}): {census.pair_status(RESULTS, k, l)}")
    return census.read_pair_curves(RESULTS, k, l)


def assert_certificates_agree(k, l, recomputed_dir, where):
    """Every recomputed number within the two bounds of the committed one; exact columns equal."""
    assert census.pair_status(recomputed_dir, k, l) is None, census.pair_status(recomputed_dir, k, l)
    old, new = committed(k, l), census.read_pair_curves(recomputed_dir, k, l)
    for key in ("delta_zcdp", "epsilon", "slope_left", "slope_right"):
        assert new[key] == old[key], f"pair ({k}, {l}) {where}: column {key} differs"
    assert len(new["alpha"]) == len(old["alpha"]), f"pair ({k}, {l}) {where}: another number of vertices"
    for n, (a, b, e, f) in enumerate(zip(old["delta"], new["delta"], old["delta_error"], new["delta_error"])):
        assert abs(a - b) <= e + f, f"pair ({k}, {l}) {where}: δ at level {n}: {a} ± {e} and {b} ± {f} do not overlap"
    for name in ("alpha", "beta"):
        for n, (a, b, e, f) in enumerate(zip(old[name], new[name], old["tradeoff_error"], new["tradeoff_error"])):
            assert abs(a - b) <= e + f, (f"pair ({k}, {l}) {where}: {name} of vertex {n}: {a} ± {e} and {b} ± {f} "
                                         f"do not overlap")


def test_committed_results_are_complete_and_valid():
    invalid = [(p, s) for p in census.all_pairs() if (s := census.pair_status(RESULTS, *p)) is not None]
    assert not invalid, f"{len(invalid)} committed pairs invalid, e.g. {invalid[0]}"


def test_recomputed_pair_agrees_with_the_committed_certificates(tmp_path):
    census.pair_job(13, 13, tmp_path)
    assert_certificates_agree(13, 13, tmp_path, "recomputed in this process")


def test_recomputed_pair_with_one_blas_thread_agrees(tmp_path):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    code = f"from accountlib.applications import census; census.pair_job(1, 2, {str(tmp_path)!r})"
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=600)
    assert_certificates_agree(1, 2, tmp_path, "with one BLAS thread")


@pytest.mark.skipif(disabled_features() is None, reason="this CPU dispatches nothing beyond numpy's baseline")
@pytest.mark.parametrize("k, l", [(1, 2), (13, 13)])
def test_recomputed_pair_on_a_second_cpu_agrees(tmp_path, k, l):
    code = f"from accountlib.applications import census; census.pair_job({k}, {l}, {str(tmp_path)!r})"
    subprocess.run([sys.executable, "-c", code], check=True, env=environment(), timeout=600)
    assert_certificates_agree(k, l, tmp_path, f"under NPY_DISABLE_CPU_FEATURES={disabled_features()!r}")


def test_stored_numbers_carry_only_supported_digits():
    """No stored value has digits below a tenth of its bound, and no probability is negative."""
    curve = committed(13, 13)
    for name in ("alpha", "beta"):
        for value, bound in zip(curve[name], curve["tradeoff_error"]):
            assert value >= 0
            assert value == 0 or value.as_tuple().exponent >= (bound / 10).adjusted() - 1, (value, bound)
    for value, bound in zip(curve["delta"], curve["delta_error"]):
        assert value >= 0 and value.as_tuple().exponent >= (bound / 10).adjusted() - 1, (value, bound)
    assert all(Decimal(b).as_tuple().digits.__len__() <= 2 for b in curve["tradeoff_error"])
