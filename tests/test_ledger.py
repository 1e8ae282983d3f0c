"""The reproduction ledger computes its verdicts and keeps one record per id."""

import json

import pytest

from accountlib import ledger


def test_record_replaces_by_id_and_judges(tmp_path):
    path = tmp_path / "ledger.json"
    first = ledger.record("x", source="paper §1", paper="8.34e-6", ours="8.3391e-6", tolerance="printed", path=path)
    assert first["verdict"] == "pass"
    ledger.record("y", source="paper §2", paper="72.21", ours=72.3, tolerance="printed", path=path)
    again = ledger.record("x", source="paper §1", paper="8.34e-6", ours="8.36e-6", tolerance="printed", path=path)
    assert again["verdict"] == "fail"
    entries = json.loads(path.read_text())
    assert [e["id"] for e in entries] == ["x", "y"]
    assert entries[1]["verdict"] == "fail"
    assert set(entries[0]) >= {"id", "source", "paper", "ours", "tolerance", "verdict"}


@pytest.mark.parametrize(
    "paper, ours, tolerance, verdict",
    [("1.0", 1.0 + 1e-7, "rel:1e-6", "pass"), ("1.0", 1.0 + 1e-5, "rel:1e-6", "fail"),
     (2.0, 2.05, 0.1, "pass"), (2.0, 2.2, "abs:0.1", "fail"), ("<1e-50", 1e-81, "bound", "pass"),
     ("<1e-50", 1e-49, "bound", "fail"), (">0", 0.01, "bound", "pass"), (">0", -0.01, "bound", "fail"), ("0.19", 0.1896, "printed", "pass"), ("0.19", 0.1849, "printed", "fail")],
)
def test_judge(paper, ours, tolerance, verdict):
    assert ledger.judge(paper, ours, tolerance)[0] == verdict


def test_explained_needs_a_failing_comparison(tmp_path):
    path = tmp_path / "ledger.json"
    entry = ledger.record("z", source="s", paper="1", ours=2, tolerance="rel:0.1", explanation="different grid", path=path)
    assert entry["verdict"] == "explained" and entry["note"] == "different grid"
    entry = ledger.record("w", source="s", paper="1", ours=1, tolerance="rel:0.1", explanation="n/a", path=path)
    assert entry["verdict"] == "pass"


def test_bad_tolerance_and_id(tmp_path):
    with pytest.raises(ValueError, match="tolerance must be"):
        ledger.record("a", source="s", paper=1, ours=1, tolerance="loose", path=tmp_path / "l.json")
    with pytest.raises(ValueError, match="id must be"):
        ledger.record("", source="s", paper=1, ours=1, tolerance=1, path=tmp_path / "l.json")


def test_committed_ledger_has_no_failures():
    entries = ledger.load()
    assert entries, "results/ledger.json is empty: execute the chapters"
    assert all(e["verdict"] in ("pass", "explained") for e in entries), [e for e in entries if e["verdict"] == "fail"]
