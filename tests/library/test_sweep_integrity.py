"""The sweep cannot be poisoned: validated resume, manifests, the folder lock, duplicates, file modes,
--summarise checked first, workers that die with their parent, a Dask sweep with a relative --out."""

import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from accountlib.applications import census
from accountlib.infrastructure import executor

OPTIONS = dict(smallest_delta_exponent=6, points_per_side=20, bend_points=20)  # seconds per pair
PAIRS = [(13, 13), (2, 8)]


def cli(*args, cwd=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "accountlib", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)


def one_line_error(result):
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in result.stderr, result.stderr
    return lines[0]


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """Two pairs swept once (duplicates in the request, in both orders); the clean copy for the tests below."""
    out = tmp_path_factory.mktemp("swept")
    done = census.run_dhc_sweep(out, [(13, 13), (2, 8), (8, 2), (13, 13)], workers=1, progress=False, **OPTIONS)
    assert sorted(d["pair"] for d in done) == sorted(PAIRS)  # duplicates computed once
    return out


def fresh_copy(swept, tmp_path):
    target = tmp_path / "out"
    shutil.copytree(swept, target)
    return target


def test_files_are_world_readable_and_have_manifests(swept):
    for pair in PAIRS:
        for path in (*census.pair_paths(swept, *pair), census.manifest_path(swept, *pair)):
            assert stat.S_IMODE(path.stat().st_mode) == 0o644, path
        assert census.pair_status(swept, *pair, OPTIONS) is None
    assert not (swept / ".sweep.lock").exists()


CORRUPTIONS = {
    "emptied": lambda text: "",
    "garbage": lambda text: "\x00\xff garbage,,\n",
    "truncated": lambda text: text[: len(text) // 2],
    "delta set to 0.5": lambda text: text.replace(text.splitlines()[4].split(",")[2], "0.5", 1),
    "nan": lambda text: text.replace(text.splitlines()[3].split(",")[3], "nan", 1),
    "epsilon off the grid": lambda text: text.replace(text.splitlines()[2].split(",")[1],
                                                      text.splitlines()[2].split(",")[1][:-3] + "123", 1),
}


@pytest.mark.parametrize("how", sorted(CORRUPTIONS))
def test_a_corrupted_file_is_detected(swept, tmp_path, how):
    out = fresh_copy(swept, tmp_path)
    path = census.pair_paths(out, 13, 13)[0]
    path.write_bytes(CORRUPTIONS[how](path.read_text()).encode("utf-8", "surrogateescape"))
    status = census.pair_status(out, 13, 13, OPTIONS)
    assert status is not None and str(path) in status
    # content checks alone (no manifest, as for hand-made folders) catch it too
    census.manifest_path(out, 13, 13).unlink()
    with pytest.raises(ValueError, match=str(path.name)):
        census.check_pair_files(out, 13, 13, smallest_delta_exponent=OPTIONS["smallest_delta_exponent"],
                               points_per_side=OPTIONS["points_per_side"], rel_tol=1e-6, abs_tol=1e-25)


def test_a_corrupted_file_is_recomputed_on_rerun_and_the_rest_kept(swept, tmp_path):
    out = fresh_copy(swept, tmp_path)
    good = {p: [path.read_bytes() for path in census.pair_paths(out, *p)] for p in PAIRS}
    bad = census.pair_paths(out, 13, 13)[0]
    bad.write_text(bad.read_text().replace(bad.read_text().splitlines()[4].split(",")[2], "0.5", 1))
    kept = census.pair_paths(out, 2, 8)[1].stat().st_mtime_ns
    reports = []
    done = census.run_dhc_sweep(out, PAIRS, workers=1, progress=False, report=reports.append, **OPTIONS)
    assert [d["pair"] for d in done] == [(13, 13)]
    assert len(reports) == 1 and "pair 13 13" in reports[0] and "recomputing" in reports[0]
    assert [path.read_bytes() for path in census.pair_paths(out, 13, 13)] == good[(13, 13)]  # byte for byte
    assert census.pair_paths(out, 2, 8)[1].stat().st_mtime_ns == kept


@pytest.mark.parametrize("manifest", ['{"sha256": "abc", "options": {}}', "[1, 2]", "null"])
def test_a_manifest_of_the_wrong_shape_is_reported_and_recomputed(swept, tmp_path, manifest):
    """Valid JSON that is no manifest (issue 23: it stopped the whole sweep with an internal AttributeError)."""
    out = fresh_copy(swept, tmp_path)
    good = [path.read_bytes() for path in census.pair_paths(out, 13, 13)]
    census.manifest_path(out, 13, 13).write_text(manifest)
    reports = []
    done = census.run_dhc_sweep(out, PAIRS, workers=1, progress=False, report=reports.append, **OPTIONS)
    assert [d["pair"] for d in done] == [(13, 13)]
    assert len(reports) == 1 and "not a manifest" in reports[0]
    assert [path.read_bytes() for path in census.pair_paths(out, 13, 13)] == good
    assert census.pair_status(out, 13, 13, OPTIONS) is None


def test_files_without_a_manifest_are_recomputed(swept, tmp_path):
    out = fresh_copy(swept, tmp_path)
    census.manifest_path(out, 2, 8).unlink()  # e.g. killed between the second file and the manifest
    done = census.run_dhc_sweep(out, PAIRS, workers=1, progress=False, report=lambda line: None, **OPTIONS)
    assert [d["pair"] for d in done] == [(2, 8)]


def test_other_options_count_as_invalid(swept, tmp_path):
    out = fresh_copy(swept, tmp_path)
    assert "other options" in census.pair_status(out, 13, 13, dict(OPTIONS, points_per_side=21))


def test_a_second_sweep_on_the_same_folder_is_refused(swept, tmp_path):
    out = fresh_copy(swept, tmp_path)
    with executor.sweep_lock(out):
        with pytest.raises(executor.SweepError, match="another sweep"):
            census.run_dhc_sweep(out, PAIRS, workers=1, progress=False, **OPTIONS)
        result = cli("sweep", "dhc", "--out", out, "--pairs", "13", "13", "--workers", "1", "--no-progress")
        assert "another sweep" in one_line_error(result)
    assert census.run_dhc_sweep(out, PAIRS, workers=1, progress=False, **OPTIONS) == []  # lock released


def test_aggregation_names_the_file_it_cannot_read(swept, tmp_path):
    out = fresh_copy(swept, tmp_path)
    census.write_census_results(out)
    path = census.pair_paths(out, 2, 8)[1]
    path.write_text("alpha,beta,error_bound\n0.1,,1e-30\n")
    with pytest.raises(ValueError, match=str(path)):
        census.write_census_results(out)


def test_command_line_refusals_are_one_line_and_immediate(tmp_path):
    started = time.monotonic()
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert "not a folder" in one_line_error(cli("sweep", "dhc", "--out", a_file, "--pairs", "1", "1"))
    assert "Dask scheduler address" in one_line_error(cli("sweep", "dhc", "--out", tmp_path / "x", "--scheduler",
                                                          "notaurl", "--pairs", "1", "1"))
    result = cli("sweep", "dhc", "--pairs", "13", "13", "--summarise", "--workers", "1", "--out", tmp_path / "s")
    assert "needs all 946 pairs" in one_line_error(result)
    assert not list((tmp_path / "s").rglob("pair_*.csv"))  # refused before computing anything
    assert time.monotonic() - started < 60


@pytest.mark.slow
def test_an_unreachable_scheduler_is_one_line_within_seconds(tmp_path):
    started = time.monotonic()
    result = cli("sweep", "dhc", "--out", tmp_path, "--pairs", "1", "1", "--scheduler", "tcp://127.0.0.1:9",
                 "--no-progress")
    assert "could not reach the Dask scheduler at tcp://127.0.0.1:9: the connection was refused" in one_line_error(result)
    assert time.monotonic() - started < executor.SCHEDULER_TIMEOUT + 30


def test_a_refused_scheduler_connection_is_reported_without_waiting_for_the_timeout():
    started = time.monotonic()
    with pytest.raises(executor.SweepError, match="tcp://127.0.0.1:9: the connection was refused"):
        executor._check_scheduler_answers("tcp://127.0.0.1:9")
    assert time.monotonic() - started < executor.SCHEDULER_TIMEOUT / 2
    executor._check_scheduler_answers("tcp://127.0.0.1")  # no port: left to Dask, which names the problem


def _children(pid):
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except FileNotFoundError:
        return []


def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_pool_workers_die_with_their_parent(tmp_path):
    command = [sys.executable, "-m", "accountlib", "sweep", "dhc", "--out", str(tmp_path), "--workers", "2",
               "--no-progress", "--pairs", "6", "6", "6", "33"]  # the heaviest pairs: still running when killed
    parent = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        workers = []
        while time.time() < deadline and len(workers) < 2:
            time.sleep(0.5)
            workers = _children(parent.pid)
        assert workers, "no pool workers started"
        time.sleep(1.0)  # let the initializer run
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        deadline = time.time() + 15
        while time.time() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.2)
        assert not any(_alive(w) for w in workers), "orphaned pool workers"
    finally:
        for w in _children(parent.pid):
            try:
                os.kill(w, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if parent.poll() is None:
            parent.kill()


@pytest.mark.slow
def test_dask_sweep_with_a_relative_out_resumes(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        # the workers' working directory is not the client's: a relative --out must still land in the client's
        first = cli("sweep", "dhc", "--out", "rel/out", "--scheduler", cluster.scheduler_address, "--pairs",
                    "13", "13", "2", "8", "--no-progress", cwd=client_dir)
        assert first.returncode == 0, first.stderr
        out = client_dir / "rel" / "out"
        assert all(census.pair_status(out, *p) is None for p in PAIRS)
        assert not Path("rel").exists()
        stored = {p: [path.read_bytes() for path in census.pair_paths(out, *p)] for p in PAIRS}
        census.pair_paths(out, 2, 8)[0].write_text("garbage\n")
        second = cli("sweep", "dhc", "--out", "rel/out", "--scheduler", cluster.scheduler_address, "--pairs",
                     "13", "13", "2", "8", "--no-progress", cwd=client_dir)
        assert second.returncode == 0, second.stderr
        assert "1 pairs computed" in second.stdout and "pair 2 8: invalid" in second.stderr
        assert {p: [path.read_bytes() for path in census.pair_paths(out, *p)] for p in PAIRS} == stored
