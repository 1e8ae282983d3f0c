"""The reproduction ledger computes its verdicts, keeps one record per id, and cannot be fooled."""

import json
import os
import shutil
from pathlib import Path

import pytest

from accountbook import ledger

ROOT = Path(__file__).resolve().parents[2]


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
    assert set(entries[0]) >= {"id", "source", "paper", "ours", "tolerance", "verdict", "reason", "basis"}


@pytest.mark.parametrize(
    "paper, ours, tolerance, verdict",
    [("1.0", 1.0 + 1e-7, "rel:1e-6", "pass"), ("1.0", 1.0 + 1e-5, "rel:1e-6", "fail"),
     (2.0, 2.05, 0.1, "pass"), (2.0, 2.2, "abs:0.1", "fail"), ("<1e-50", 1e-81, "bound", "pass"),
     ("<1e-50", 1e-49, "bound", "fail"), (">0", 0.01, "bound", "pass"), (">0", -0.01, "bound", "fail"),
     ("0.19", 0.1896, "printed", "pass"), ("0.19", 0.1849, "printed", "fail"),
     ("203", 203, "exact", "pass"), ("203", 209, "exact", "fail"), ("3/22", "6/44", "exact", "pass")],
)
def test_judge(paper, ours, tolerance, verdict):
    assert ledger.judge(paper, ours, tolerance)[0] == verdict


def test_explained_needs_a_failing_comparison_and_a_passing_check(tmp_path):
    path = tmp_path / "ledger.json"
    good = {"claim": "the other grid gives 2", "expected": "2", "ours": 2.0, "tolerance": "exact"}
    entry = ledger.record("z", source="s §1", paper="1", ours=2, tolerance="rel:0.1", explanation="different grid",
                          check=good, path=path)
    assert entry["verdict"] == "explained" and entry["note"] == "different grid"
    assert entry["checks"][0]["verdict"] == "pass" and "different grid" in entry["reason"]
    # an explanation alone explains nothing
    entry = ledger.record("z2", source="s §1", paper="1", ours=2, tolerance="rel:0.1", explanation="different grid",
                          path=path)
    assert entry["verdict"] == "fail" and "no computed check" in entry["reason"]
    # nor does one whose check fails
    bad = dict(good, ours=2.5)
    entry = ledger.record("z3", source="s §1", paper="1", ours=2, tolerance="rel:0.1", explanation="different grid",
                          check=[good, bad], path=path)
    assert entry["verdict"] == "fail" and "check fails" in entry["reason"]
    entry = ledger.record("w", source="s §1", paper="1", ours=1, tolerance="rel:0.1", explanation="n/a", path=path)
    assert entry["verdict"] == "pass"


def test_remove(tmp_path):
    path = tmp_path / "ledger.json"
    for name in ("a", "b", "c"):
        ledger.record(name, source="s §1", paper="1", ours=1, tolerance="exact", path=path)
    assert ledger.remove(["b", "zz"], path=path) == ["b"]
    assert [e["id"] for e in ledger.load(path)] == ["a", "c"]


def test_not_reproducible(tmp_path):
    path = tmp_path / "ledger.json"
    entry = ledger.not_reproducible("t", source="Sieve paper §1", paper="1,000 CPU hours", ours=None,
                                    reason="the prior code did not run here", path=path)
    assert entry["verdict"] == "not reproducible here" and entry["reason"].startswith("the prior")
    with pytest.raises(ValueError, match="reason must"):
        ledger.not_reproducible("t", source="Sieve paper §1", paper="x", reason="", path=path)


def test_bad_input_is_named(tmp_path):
    where = tmp_path / "l.json"
    with pytest.raises(ValueError, match="tolerance must be"):
        ledger.record("a", source="s §1", paper=1, ours=1, tolerance="loose", path=where)
    with pytest.raises(ValueError, match="id must be"):
        ledger.record("", source="s §1", paper=1, ours=1, tolerance=1, path=where)
    with pytest.raises(ValueError, match="source must locate"):
        ledger.record("a", source="Sieve paper", paper=1, ours=1, tolerance="exact", path=where)
    with pytest.raises(ValueError, match="developers' note"):
        ledger.record("a", source="MATH.md §2", paper=1, ours=1, tolerance="exact", path=where)
    with pytest.raises(ValueError, match="basis must be"):
        ledger.record("a", source="s", paper=1, ours=1, tolerance="exact", basis="folklore", path=where)
    with pytest.raises(ValueError, match="decimal string"):
        ledger.record("a", source="s §1", paper="about 200", ours=1, tolerance="printed", path=where)
    with pytest.raises(ValueError, match="non-finite"):
        ledger.record("a", source="s §1", paper="1", ours=float("nan"), tolerance="exact", path=where)
    # a value not printed in a paper needs no locator, only an honest label
    entry = ledger.record("a", source="computed by hand from Table 1", paper=1, ours=1, tolerance="exact",
                          basis="derived here", path=where)
    assert entry["basis"] == "derived here"


def test_audit_finds_each_weakness():
    base = {"id": "a", "source": "Paper §1", "paper": "0.19", "ours": 0.19, "tolerance": "printed digits (±0.005)",
            "verdict": "pass", "reason": "r", "basis": "paper", "quote": "it is 0.19 here"}
    assert ledger.audit([base], papers=["Text: it is $0.19$ here."]) == []
    cases = {
        "no quote": dict(base, quote=""),
        "quote not found": dict(base, quote="it is 0.20 here"),
        "no tolerance_reason": dict(base, tolerance="relative 0.05"),
        "count": dict(base, paper="203", ours=209, tolerance="relative 0.05", tolerance_reason="close"),
        "explained": dict(base, verdict="explained"),
        "locator": dict(base, source="Paper"),
        "note": dict(base, source="MATH.md §2"),
        "missing": {k: v for k, v in base.items() if k != "reason"},
    }
    for label, entry in cases.items():
        assert ledger.audit([entry], papers=["Text: it is $0.19$ here."]), label


def _papers():
    """The two papers' texts, where this checkout can see them (not shipped with the repository)."""
    folder = Path(os.environ.get("ACCOUNTLIB_PAPERS", ROOT.parent / "shared" / "papers"))
    return [p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.md"))] if folder.is_dir() else []


# Comparisons that fail on our data, honestly, and why. Any other failure makes the test below fail.
KNOWN_DISAGREEMENTS = {
    # DP-SGD on Fashion-MNIST, the whole grid (chapter 13, five seeds of all nine settings): the accuracy that zCDP
    # calibration costs grows with the horizon n here, significantly over five seeds, where the paper's seeds did
    # not show it significantly; every table cell, the bound of 0.08 points and the other trend tests agree
    "unifying.5.2.accuracy_trend_n": "the gain Acc_R - Acc_Z grows with log n at p < 0.05 here, not in the paper",
    "unifying.5.2.accuracy_endpoint_contrast": "the gain at n = 2000 exceeds that at n = 250 at p < 0.05 here, not "
                                               "in the paper",
    # the sieve paper's node counts for pair (13, 13) at its Δ = 1e-35 (06_sieve)
    "sieve.§4.nodes_13_13": "like-for-like |C| is 323 at Δ = 1e-35, where the paper ties its 203 (Figure 4)",
    "sieve.§4.N_13_13": "the paper's own formula gives N = 830,982, below its stated 'over ~10^6'",
    "sieve.§4.evaluations_without_sieve": "40 × N = 33,239,280 per Figure 4 subplot, below the stated 4×10^7",
    "sieve.§4.evaluations_with_sieve": "40 × |C| = 12,920 per subplot at Δ = 1e-35, not the paper's 8,120",
    # the paper's tolerances against the authors' released curves of pair (13, 13) (accountbook.claim_checks)
    "sieve.§3.2.tolerance_1e-35": "the released δ is off by 0.43%, 9.7%, 214% at δ_zCDP = 1e-19, 1e-20, 1e-21",
    "sieve.§3.2.fdp_tolerance_1e-25": "the released β is up to 3.7e-6 from the certified f (295 of 840 points beyond Δ)",
    # the 15.08–24.82% read over the eight geographic levels (accountbook.claim_checks): each level of (13, 13)
    # alone at δ = 1e-10 with the Bureau's conversion gives 14.89–26.73%; no reading tried gives the range
    "sieve.§1.variance_reduction_min.per_level": "14.89% (Tract Subset) against the paper's 15.08%",
    "sieve.§1.variance_reduction_max.per_level": "26.73% (Block) against the paper's 24.82%",
    "unifying.1.variance_reduction_min.per_level": "the same range, as the unifying paper cites it",
    "unifying.1.variance_reduction_max.per_level": "the same range, as the unifying paper cites it",
    # our own derivation (m^-5/2) against the fitted slope, at the fit's 0.25 allowance (08_edgeworth)
    "derived.edgeworth_rate.sigma2=0.2": "fitted slope -2.753, 0.253 from -5/2 (pre-asymptotic at m <= 128)",
}


def test_committed_ledger_fails_only_where_known_and_every_entry_is_honest():
    entries = ledger.load(ROOT / "results" / "ledger.json")
    assert entries, "results/ledger.json is empty: execute the chapters"
    failing = {e["id"] for e in entries if e["verdict"] not in ("pass", "explained", "not reproducible here")}
    assert failing <= set(KNOWN_DISAGREEMENTS), f"unexpected failures: {sorted(failing - set(KNOWN_DISAGREEMENTS))}"
    for e in entries:  # a failure is stated with its reason on the ledger page, never hidden
        if e["id"] in failing:
            assert e["reason"], e["id"]
    problems = ledger.audit(entries, papers=_papers(), claims_table=ledger.claims())
    assert not problems, "\n".join(problems)


def test_a_record_that_says_the_same_leaves_the_file_untouched(tmp_path):
    """Another machine's last float64 bits must not rewrite the ledger; anything that says something else must."""
    path = tmp_path / "ledger.json"
    check = {"claim": "the other quantity peaks at 6.013", "expected": "6.013", "ours": 6.01304, "tolerance": "printed"}
    stored = ledger.record("x", source="paper §1", paper="8.34e-6", ours=8.33912e-6, tolerance="printed", path=path,
                           explanation="n/a", check=check)
    ledger.record("b", source="paper §2", paper="<1e-50", ours=5.85402900457e-81, tolerance="bound", path=path)
    ledger.record("e", source="paper §3", paper="203", ours=203, tolerance="exact", path=path)
    text, mtime = path.read_text(), path.stat().st_mtime_ns

    def unchanged():
        return path.read_text() == text and path.stat().st_mtime_ns == mtime

    # the last bits differ: nothing is written, and the stored record is returned
    again = ledger.record("x", source="paper §1", paper="8.34e-6", ours=8.33912e-6 * (1 + 3e-16), tolerance="printed",
                          path=path, explanation="n/a", check=dict(check, ours=6.01304 + 1e-15))
    assert again == stored and unchanged()
    # within the tolerance (±5e-9 for "8.34e-6") also says the same, even where the reason's digits change
    ledger.record("x", source="paper §1", paper="8.34e-6", ours=8.3412e-6, tolerance="printed", path=path,
                  explanation="n/a", check=check)
    ledger.record("b", source="paper §2", paper="<1e-50", ours=8e-52, tolerance="bound",
                  path=path)
    assert unchanged()
    # something else each time: a value beyond the tolerance, another verdict, another text, a check's value, an
    # exact count, a bound's value moved by more than BOUND_AGREEMENT of the limit
    changes = [
        dict(id="x", paper="8.34e-6", ours=8.3312e-6, tolerance="printed", explanation="n/a", check=check),
        dict(id="x", paper="8.34e-6", ours=8.3312e-6, tolerance="printed", explanation="n/a", check=check,
             source="paper §9"),  # another source
        dict(id="x", paper="8.34e-6", ours=8.34e-6, tolerance="printed", explanation="another note", check=check),
        dict(id="x", paper="8.34e-6", ours=8.34e-6, tolerance="printed", explanation="another note",
             check=dict(check, ours=6.01252)),  # passes still, but moved by > 5e-4
        dict(id="e", paper="203", ours=204, tolerance="exact"),
        dict(id="b", paper="<1e-50", ours=2e-51, tolerance="bound"),
        dict(id="e", paper="204", ours=204, tolerance="exact"),  # another compared value
        dict(id="e", paper="204", ours=204.4, tolerance="abs:0.5"),  # another tolerance
    ]
    for number, change in enumerate(changes):
        before = path.read_text()
        name = change.pop("id")
        entry = ledger.record(name, **{"source": "paper §1", **change}, path=path,
                              tolerance_reason="a test" if change["tolerance"].startswith("abs") else None)
        stored = {e["id"]: e for e in ledger.load(path)}[name]
        assert stored == entry and path.read_text() != before, change
    before = path.read_text()
    ledger.record("e", source="paper §1", paper="204", ours=204.1, tolerance="abs:0.5", tolerance_reason="a test",
                  path=path)
    assert path.read_text() == before
    assert ledger.says_the_same({"a": 1}, {"a": 1, "b": 2}) is False


def test_a_results_folder_from_the_environment_is_validated(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCOUNTLIB_RESULTS", str(tmp_path / "elsewhere"))
    assert ledger.ledger_path() == tmp_path / "elsewhere" / "ledger.json"
    (tmp_path / "file").write_text("")
    for bad in ("", "  ", "relative/folder", str(tmp_path / "file")):
        monkeypatch.setenv("ACCOUNTLIB_RESULTS", bad)
        with pytest.raises(ValueError, match="ACCOUNTLIB_RESULTS must"):
            ledger.ledger_path()


CLAIMS = """
[claims."a.printed"]
source = "Paper §1"
paper = "0.19"
quote = "it is $0.19$ here."
tolerance = "printed"

[claims."a.explained"]
source = "Paper §2"
paper = "6.013"
quote = "near 6.013"
tolerance = "printed"
explanation = "ours maximises another quantity, at s = {s}"

[[claims."a.explained".checks]]
claim = "the other quantity peaks at 6.013"
expected = "6.013"
tolerance = "printed"

[[claims."a.explained".checks]]
claim = "a computed expectation"
tolerance = "abs:0.02"

[claims."a.derived"]
source = "derived here: by hand"
basis = "derived here"
tolerance = "exact"

[claims."a.timing"]
source = "Paper, Abstract"
paper = "1824"
quote = "a 1,824-fold speedup"
reason = "a timing on the authors' machines ({where})"

[claims."a.trend"]
source = "Paper §4: a p-value{tested}"
paper = "7.06e-4"
compared = "<0.05"
quote = "p = 7.06e-4"
tolerance = "bound"
reason = "too few seeds ({seeds})"
"""


@pytest.fixture
def claims_file(tmp_path):
    path = tmp_path / "claims.toml"
    path.write_text(CLAIMS, encoding="utf-8")
    return path


def test_reproduce_reads_the_claim_and_judges_what_was_computed(tmp_path, claims_file):
    where = tmp_path / "ledger.json"
    entries = ledger.reproduce(
        {"a.printed": 0.1896, "a.explained": {"ours": 6.053, "fields": {"s": "0.2"}},
         "a.derived": {"ours": "12", "paper": "12"}},
        checks={"a.explained": ["6.0131", {"ours": 6.05, "expected": "6.04"}]},
        not_reproducible={"a.timing": {"ours": "3 s", "fields": {"where": "theirs"}}},
        path=where, claims_path=claims_file)
    by_id = {e["id"]: e for e in entries}
    assert by_id["a.printed"]["verdict"] == "pass" and by_id["a.printed"]["quote"] == "it is $0.19$ here."
    assert by_id["a.explained"]["verdict"] == "explained" and by_id["a.explained"]["note"].endswith("s = 0.2")
    assert [c["expected"] for c in by_id["a.explained"]["checks"]] == ["6.013", "6.04"]
    assert by_id["a.derived"]["verdict"] == "pass" and by_id["a.derived"]["basis"] == "derived here"
    assert by_id["a.timing"]["verdict"] == "not reproducible here" and by_id["a.timing"]["reason"].endswith("(theirs)")
    assert ledger.claim("a.printed", claims_file)["paper"] == "0.19"
    assert [e["id"] for e in ledger.load(where)] == ["a.printed", "a.explained", "a.derived", "a.timing"]


@pytest.mark.parametrize("values, kwargs, message", [
    ({"nope": 1}, {}, "unknown claim 'nope'"),
    ({}, {"not_reproducible": ["nope"]}, "unknown claim 'nope'"),
    ({"a.printed": None}, {}, "has no computed value"),
    ({"a.explained": 6.05}, {}, "2 check value(s) expected"),
    ({"a.explained": 6.05}, {"checks": {"a.explained": ["6.013", 6.05]}}, "has no expected value"),
    ({"a.derived": "12"}, {}, "no 'paper'"),
    ({"a.printed": {"ours": 0.19, "paper": "0.2"}}, {}, "'paper' is in the data file"),
    ({}, {"not_reproducible": ["a.printed"]}, "gives no reason"),
    ({"a.printed": {"ours": 0.19, "quote": "x"}}, {}, "unknown keys ['quote']"),
])
def test_reproduce_refuses_an_unknown_id_or_a_missing_value(tmp_path, claims_file, values, kwargs, message):
    where = tmp_path / "ledger.json"
    with pytest.raises(ValueError) as raised:
        ledger.reproduce(values, path=where, claims_path=claims_file, **kwargs)
    assert message in str(raised.value) and "\n" not in str(raised.value)
    assert not where.exists()  # nothing recorded before everything is checked
    with pytest.raises(ValueError, match="unknown claim 'nope'"):
        ledger.claim("nope", claims_file)


def test_reproduce_leaves_the_file_untouched_when_the_values_agree(tmp_path, claims_file):
    where = tmp_path / "ledger.json"
    ledger.reproduce({"a.printed": 0.1896}, path=where, claims_path=claims_file)
    text, mtime = where.read_text(), where.stat().st_mtime_ns
    ledger.reproduce({"a.printed": 0.1896 * (1 + 1e-15)}, path=where, claims_path=claims_file)
    ledger.reproduce({"a.printed": 0.1901}, path=where, claims_path=claims_file)  # within the printed digits
    assert where.read_text() == text and where.stat().st_mtime_ns == mtime
    ledger.reproduce({"a.printed": 0.1951}, path=where, claims_path=claims_file)  # rounds to 0.20: fails
    assert where.read_text() != text and ledger.load(where)[0]["verdict"] == "fail"


def test_audit_finds_claims_no_chapter_recorded_and_entries_without_a_claim(tmp_path, claims_file):
    where = tmp_path / "ledger.json"
    ledger.reproduce({"a.printed": 0.19}, path=where, claims_path=claims_file)
    ledger.record("orphan", source="Paper §3", paper="1", ours=1, tolerance="exact", quote="1", path=where)
    problems = ledger.audit(ledger.load(where), claims_table=ledger.claims(claims_file))
    assert "orphan: a ledger entry without a claim in the data file" in problems
    assert {p.split(":")[0] for p in problems if "no chapter recorded" in p} == {"a.explained", "a.derived", "a.timing",
                                                                                "a.trend"}


def test_a_claim_not_yet_testable_is_compared_with_its_bound_once_tested(tmp_path, claims_file):
    where = tmp_path / "ledger.json"
    untested, = ledger.reproduce(not_reproducible={"a.trend": {"ours": None, "fields": {"tested": "", "seeds": 2}}},
                                 path=where, claims_path=claims_file)
    assert untested["paper"] == "7.06e-4" and untested["reason"] == "too few seeds (2)"
    tested, = ledger.reproduce({"a.trend": {"ours": "0.01", "fields": {"tested": " (ours must be significant)"}}},
                               path=where, claims_path=claims_file)
    assert tested["paper"] == "<0.05" and tested["verdict"] == "pass" and tested["source"].endswith("significant)")


def test_the_claims_file_reads_well():
    """Every claim of the book's data file is complete: a source, a tolerance or a reason, a quote for the paper."""
    table = ledger.claims()
    assert len(table) >= 80
    for name, data in table.items():
        assert data.get("source"), name
        assert "tolerance" in data or "reason" in data or "tolerance_reason" in data, name  # a computed tolerance says why
        if data.get("basis", "paper") == "paper":
            assert data.get("quote"), name


def test_claims_computed_outside_the_chapters_say_what_the_committed_ledger_says(tmp_path):
    """accountbook.claim_checks recomputes its claims (about a minute of CPU time); recording them in a copy of the committed
    ledger must leave the copy unchanged, so the committed entries are neither stale nor hand-edited."""
    from accountbook import claim_checks

    copy = tmp_path / "ledger.json"
    shutil.copy(ROOT / "results" / "ledger.json", copy)
    before = copy.read_text(encoding="utf-8")
    entries = claim_checks.record(path=copy, folder=ROOT / "results" / "dhc")
    assert copy.read_text(encoding="utf-8") == before, "run python -m accountbook.claim_checks and commit the ledger"
    # each inequality the papers state is compared as one: a bound, never a tolerance around a value
    for entry in entries:
        if str(entry["paper"]).startswith(("<", ">", "≤", "≥")):
            assert entry["tolerance"] in ("upper bound", "lower bound"), entry["id"]
    assert len(entries) >= 20


def test_the_authors_released_curves_are_read_in_one_place():
    """claim_checks.released_rows is the one reader of the released files: the claim checks and the census chapter
    use it, and a name that is not a released curve is refused by name."""
    from fractions import Fraction

    from accountbook import claim_checks

    rows = claim_checks.released_rows("eps_delta_curve_path_13_to_13.csv")
    assert {"delta_zcdp", "epsilon", "delta_fdp"} <= set(rows[0])
    assert all(Fraction(row["epsilon"]) > 0 for row in rows)
    assert set(claim_checks.RELEASED_DEEP_LEVELS) <= {row["delta_zcdp"] for row in rows}
    assert {"trade_off_alpha", "trade_off_beta"} <= set(claim_checks.released_rows("trade_off_curve_path_13_to_13.csv")[0])
    with pytest.raises(ValueError, match=r"^name must be one of the released curves .*; got 'nope\.csv'$"):
        claim_checks.released_rows("nope.csv")
    chapter = (ROOT / "notebooks" / "07_census_dhc.py").read_text(encoding="utf-8")
    assert "claim_checks.released_rows(" in chapter and "claim_checks.RELEASED /" not in chapter


def test_the_ledger_page_indexes_every_entry_and_shows_the_fails_first():
    import importlib.util
    import re

    spec = importlib.util.spec_from_file_location("ledger_page", ROOT / "book" / "_ext" / "ledger_page.py")
    page = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(page)
    assert page.locator("Unifying paper, Appendix D.3.2, Table 2 ((5, 1e-5))") == "Appendix D.3.2"
    assert page.locator("Sieve paper §5.3 (the first relative gap)") == "§5.3"
    assert page.locator("Sieve paper, Abstract") == "Abstract" and page.locator("by hand") == ""
    entries = ledger.load(ROOT / "results" / "ledger.json")
    text = page.ledger_markdown(entries)
    index = text[text.index("## Claims index"):text.index("## Sieve")]
    linked = re.findall(r'<a href="#([^"]+)">', index)
    assert sorted(linked) == sorted(e["id"].replace("&", "&amp;") for e in entries)  # each entry once
    fails = text[text.index("## The fails"):text.index("## Claims index")]
    failing = [e["id"] for e in entries if e["verdict"] == "fail"]
    assert failing and all(f'href="#{name}"' in fails for name in failing)
    assert text.index("## The fails") < text.index("## Sieve")


def test_only_a_run_that_names_the_results_folder_records(tmp_path, monkeypatch):
    """A reader's run (make lab, papermill, an exercise's change: ACCOUNTLIB_RESULTS unset) computes and judges its
    claims but writes no ledger, not even the book's; the book build, which sets the variable, records there."""
    book = tmp_path / "book"
    (book / "results").mkdir(parents=True)
    (book / "_toc.yml").write_text("root: intro\n")
    committed = book / "results" / "ledger.json"
    ledger.record("x", source="paper §1", paper="0.19", ours=0.1896, tolerance="printed", path=committed)
    committed.with_suffix(".lock").unlink()
    before = committed.read_text()
    monkeypatch.chdir(book)
    monkeypatch.delenv("ACCOUNTLIB_RESULTS", raising=False)
    assert ledger.ledger_path() == committed and ledger.recording_path() is None
    entry = ledger.record("x", source="paper §1", paper="0.19", ours=0.25, tolerance="printed")
    assert entry["verdict"] == "fail" and committed.read_text() == before  # judged, stored nowhere
    assert ledger.remove(["x"]) == [] and committed.read_text() == before
    assert sorted(p.name for p in (book / "results").iterdir()) == ["ledger.json"]  # no lock file either
    monkeypatch.setenv("ACCOUNTLIB_RESULTS", str(book / "results"))
    assert ledger.recording_path() == committed
    ledger.record("x", source="paper §1", paper="0.19", ours=0.25, tolerance="printed")
    assert ledger.load(committed)[0]["verdict"] == "fail"
