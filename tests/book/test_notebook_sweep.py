"""``python -m accountlib sweep notebook``: papermill grids of a chapter, resumed, their glued values in one CSV.

The chapter-like notebook ``tests/data/glue_chapter.py`` glues a hidden float (``square``), a shown string, a
numpy scalar, a list, a figure and a table, records one ledger entry, and raises when ``x == fail_at``.
"""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from accountlib.cli import main
from accountbook import notebook_sweep

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = ROOT / "tests" / "data" / "glue_chapter.py"


def sweep(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "accountlib", "sweep", "notebook", *args, "--no-progress"],
                          capture_output=True, text=True, timeout=600, cwd=cwd)


def read_table(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_grid_runs_tabulates_glue_resumes_and_retries_failures(tmp_path):
    out = tmp_path / "out"
    ledger = ROOT / "results" / "ledger.json"
    before = ledger.read_bytes()
    # the run at x = 3 raises; the other two finish
    grid = [str(CHAPTER), "--grid", "x=1,2,3", "--set", "offset=0.25", "--set", "fail_at=3", "--out", str(out)]
    result = sweep(*grid, "--workers", "2")
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert "1 of 3 runs of glue_chapter failed (x=3: " in result.stderr and "asked to fail at x = 3" in result.stderr
    assert result.stdout.startswith("2 runs executed")  # counted from the files, although one run failed
    assert "kernel's own stderr" not in result.stderr + result.stdout  # kernels do not write to the terminal
    rows = read_table(out / "results.csv")
    assert [r["x"] for r in rows] == ["1", "2"]
    # the grid first, then the glued names in order; the figure and the table are skipped
    assert list(rows[0]) == ["x", "square", "label_seen", "half", "powers"]
    assert "not tabulated (not a scalar): figure, table" in result.stdout
    for row in rows:
        x = int(row["x"])
        assert float(row["square"]) == x * x + 0.25  # --set reached every run
        assert row["half"] == repr(x / 2)  # np.float64(...) unwrapped
        assert row["label_seen"] == "a" and json.loads(row["powers"]) == [x, x**2, x**3]
    # each run's ledger is its own; the book's ledger is untouched
    own = json.loads((out / "ledgers" / "glue_chapter__x=2" / "ledger.json").read_text())
    assert own[0]["ours"] == 4.25
    assert ledger.read_bytes() == before
    assert [p.name for p in out.glob("*.partial.ipynb")] == ["glue_chapter__x=3.partial.ipynb"]
    # the failed run keeps what its kernel wrote to its own stderr; the finished runs keep no log
    assert [p.name for p in out.glob("*.kernel.log")] == ["glue_chapter__x=3.kernel.log"]
    assert "kernel's own stderr" in (out / "glue_chapter__x=3.kernel.log").read_text()
    assert "as *.kernel.log, in" in result.stderr

    # resume: the finished runs are skipped, the failed one runs again (and fails again)
    finished = {p: p.stat().st_mtime_ns for p in out.glob("glue_chapter__x=?.ipynb")}
    assert len(finished) == 2
    again = sweep(*grid, "--workers", "1")
    assert again.returncode == 2 and "1 of 3 runs" in again.stderr
    assert {p: p.stat().st_mtime_ns for p in finished} == finished
    assert read_table(out / "results.csv") == rows

    # a smaller grid over the same folder: nothing is run, and the earlier grid's finished runs stay in the table
    small = sweep(str(CHAPTER), "--grid", "x=2", "--set", "offset=0.25", "--set", "fail_at=3", "--out", str(out))
    assert small.returncode == 0, small.stderr
    assert small.stdout.startswith("0 runs executed")
    assert [r["x"] for r in read_table(out / "results.csv")] == ["2", "1"]

    # changing a --set value re-runs the point (its notebook was executed with other parameters)
    changed = sweep(str(CHAPTER), "--grid", "x=2", "--set", "offset=1", "--out", str(out))
    assert changed.returncode == 0 and changed.stdout.startswith("1 runs executed"), changed.stderr
    assert float(read_table(out / "results.csv")[0]["square"]) == 5.0


@pytest.mark.parametrize(
    "args, message",
    [
        ([str(CHAPTER), "--grid", "y=1,2"], "glue_chapter has no parameter 'y'; its parameters cell sets x, label, fail_at, offset"),
        ([str(CHAPTER), "--grid", "x=1", "--set", "nope=3"], "--set nope: glue_chapter has no parameter 'nope'"),
        ([str(CHAPTER), "--grid", "x"], "--grid takes NAME=V1,V2"),
        ([str(CHAPTER), "--grid", "x=1,"], "an empty value"),
        ([str(CHAPTER), "--grid", "x=1,1"], "a value is repeated"),
        ([str(CHAPTER), "--grid", "x=1", "--grid", "x=2"], "--grid x is given twice"),
        ([str(CHAPTER), "--grid", "x=1", "--set", "x=2"], "given both in --grid and in --set"),
        ([str(CHAPTER), "--grid", "x=1", "--workers", "0"], "--workers must be between 1 and"),
        ([str(CHAPTER), "--grid", "x=1", "--scheduler", "localhost"], "--scheduler must be a Dask scheduler address"),
        ([str(CHAPTER)], "give at least one NAME=V1,V2"),
        (["--grid", "x=1"], "needs CHAPTER"),
        (["no_such_chapter", "--grid", "x=1"], "chapters: 01_foundations, 02_primer"),
        (["tests/data/missing.py", "--grid", "x=1"], "no such file"),
        ([str(CHAPTER), "--grid", "x=1", "--pairs", "1", "2"], "unrecognized arguments: --pairs 1 2"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(ROOT)
    assert main(["sweep", "notebook", *args, "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert message in captured.err, captured.err
    assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err and captured.out == ""
    assert not (tmp_path / "out").exists()  # nothing run, nothing written


def test_out_is_required_and_grid_options_belong_to_notebook(tmp_path, capsys):
    assert main(["sweep", "notebook", str(CHAPTER), "--grid", "x=1"]) == 2
    assert "needs --out DIR" in capsys.readouterr().err
    assert main(["sweep", "dhc", "--grid", "x=1", "--out", str(tmp_path)]) == 2
    assert "unrecognized arguments: --grid x=1" in capsys.readouterr().err


def test_values_grid_and_parameters():
    assert notebook_sweep.split_values("1, 'a,b' ,[1, 2],(3,4)") == ["1", "'a,b'", "[1, 2]", "(3,4)"]
    assert [notebook_sweep.parse_value(v) for v in ("3", "1e-5", "False", "None", "(1, 2)", "fashion-mnist")] == \
        [3, 1e-5, False, None, [1, 2], "fashion-mnist"]
    with pytest.raises(ValueError, match="not a finite number"):
        notebook_sweep.parse_value("1e999")
    with pytest.raises(ValueError, match="set values cannot be passed"):
        notebook_sweep.parse_value("{1, 2}")
    assert len(notebook_sweep.grid_points({"a": [1, 2, 3], "b": [0, 1]})) == 6
    assert list(notebook_sweep.notebook_parameters(CHAPTER)) == ["x", "label", "fail_at", "offset"]
    assert "sigma_rdp" in notebook_sweep.notebook_parameters(ROOT / "notebooks" / "02_primer.py")
    assert notebook_sweep.find_chapter(ROOT / "notebooks" / "02_primer.ipynb").suffix == ".ipynb"


def test_glue_collection_of_the_committed_primer():
    """The primer glues the numbers a sweep of its parameters tabulates (hidden, so nothing shows twice)."""
    values, skipped = notebook_sweep.glued_values(ROOT / "notebooks" / "02_primer.ipynb")
    assert set(values) == {"tradeoff_gap_to_gdp", "tradeoff_error_bound", "rho_gaussian", "rho_discrete",
                           "largest_gap"} and skipped == []
    assert 0 < float(values["rho_discrete"]) <= float(values["rho_gaussian"])  # discrete noise leaks no more
    nb = nbformat.read(ROOT / "notebooks" / "02_primer.ipynb", as_version=4)
    shown = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
             if "scrapbook" in o.get("metadata", {})]
    assert shown and all(all(k.startswith(notebook_sweep.GLUE_PREFIX) for k in o["data"]) for o in shown)


def test_glued_text_forms():
    as_text = notebook_sweep._as_text
    assert as_text("np.float64(0.25)") == "0.25" and as_text("mpf('1.5e-30')") == "1.5e-30"
    assert as_text("'text'") == "text" and as_text("[1, 2]") == "[1, 2]" and as_text("7") == "7"
    assert as_text("<Figure size 640x480 with 1 Axes>") is None and as_text("   a  b\n0  1  2") is None
    assert as_text("Fraction(1, 3)") == "Fraction(1, 3)"


def test_batch_environment_is_set_for_the_block_and_restored(monkeypatch):
    from accountbook.notebook_sweep import BATCH_EXECUTION, batch_environment

    monkeypatch.delenv(BATCH_EXECUTION, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    with batch_environment(OMP_NUM_THREADS="1"):
        assert os.environ[BATCH_EXECUTION] == "1" and os.environ["OMP_NUM_THREADS"] == "1"
    assert BATCH_EXECUTION not in os.environ and os.environ["OMP_NUM_THREADS"] == "4"  # nothing leaks to the caller
