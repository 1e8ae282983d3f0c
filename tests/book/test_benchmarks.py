"""The benchmarks and what the book says about them (``benchmarks/``, ``book/benchmarks.md``, ``accountbook.benchmarks``).

* No benchmark figure is typed in prose: every number a chapter or page quotes from a benchmark is read from the
  results file at build time (``accountbook.benchmarks.quote``: glue in a chapter, ``{benchmark}`` on the
  Performance page). The scan fails on a typed copy of any quotable value, of any measured value in a results
  file, and on a number with a unit of time, speed or size in a sentence that points at the benchmarks.
* The committed results are full runs, carry their provenance when current, and the committed plots are those
  their results give.
* ``benchmarks/run.py`` skips current benchmarks, refuses above the load limit, and its documented wall-time
  budget is the one the README, CONTRIBUTING and the page state.
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
import sys
from pathlib import Path

import pytest

from accountbook import benchmarks

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"


def _module(name: str):
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(f"_bench_{name}", BENCH / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


provenance = _module("provenance")

# ---------------------------------------------------------------------------------------------------------------
# Prose: the text a reader reads (markdown cells of the chapters, the pages, README, CONTRIBUTING)
# ---------------------------------------------------------------------------------------------------------------

PROSE_FILES = sorted([*(ROOT / "notebooks").glob("[0-9][0-9]_*.py"), *(ROOT / "book").glob("*.md"),
                      ROOT / "README.md", ROOT / "CONTRIBUTING.md"])


def _without_code_blocks(text: str) -> str:
    """``text`` without its code blocks (a fence whose info is a language or nothing, when it opens one); the
    content of directives (``{figure}``, ``{exercise}``, ``{admonition}``…) is prose and stays."""
    out, stack = [], []  # stack: ("directive" | "code", fence)
    for line in text.splitlines():
        fence = re.match(r"^\s*(`{3,}|:{3,})(.*)$", line)
        if fence:
            marks, info = fence.group(1), fence.group(2).strip()
            if stack and stack[-1][1] == marks and not info:
                stack.pop()
                continue
            if not (stack and stack[-1][0] == "code"):
                stack.append(("directive" if info.startswith("{") else "code", marks))
                continue
        if not (stack and stack[-1][0] == "code"):
            out.append(line)
    return "\n".join(out)


def prose(path: Path) -> str:
    """The reader-visible prose of a chapter (its markdown cells) or page, without math, code, roles and link
    targets, so that only typed text is left."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        cells = re.split(r"^# %%.*$", text, flags=re.M)
        headers = re.findall(r"^# %%.*$", text, flags=re.M)
        text = "\n".join(re.sub(r"^# ?", "", cell, flags=re.M) for header, cell in zip(headers, cells[1:])
                         if "[markdown]" in header)
    text = _without_code_blocks(text)
    text = re.sub(r"^:[\w-]+:.*$", " ", text, flags=re.M)  # directive options
    text = re.sub(r"\$\$.*?\$\$|\$[^$\n]+\$", " MATH ", text, flags=re.S)
    text = re.sub(r"\{[\w:-]+\}`[^`]*`", " ROLE ", text)  # {glue:text}`key`, {benchmark}`key`, {doc}`…`
    text = re.sub(r"`[^`]*`", " CODE ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return text


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.;:!?])\s+(?=[A-Z(])|\n\s*\n", text) if s.strip()]


NUMBER = r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w,]*\d)"


def typed_numbers(text: str) -> set[str]:
    return set(re.findall(NUMBER, text))


# ---------------------------------------------------------------------------------------------------------------
# The values that must never be typed
# ---------------------------------------------------------------------------------------------------------------

MEASURED_KEY = re.compile(r"seconds|error|ratio|efficiency|per_worker|flops|rate|rss|nodes|_ms|speed", re.I)
"""Keys of a results file that hold a measurement (a time, an error, a count of the work done), not a parameter."""

PARAMETER_KEYS = {"calibration_steps"}
"""Keys that :data:`MEASURED_KEY` matches by their spelling ("calibRATIOn") but that hold a setting of the run (the
DP-SGD calibration's T = 10,000, which the book names as the setting it is): typing them is no copy of a figure."""


def _leaves(record, key=""):
    """(dotted path of keys, value) of every number in a results record."""
    if isinstance(record, dict):
        for k, v in record.items():
            yield from _leaves(v, f"{key}.{k}" if key else str(k))
    elif isinstance(record, list):
        for v in record:
            yield from _leaves(v, key)
    elif isinstance(record, (int, float)) and not isinstance(record, bool) and math.isfinite(record):
        yield key, record


def _forms(value) -> set[str]:
    """How a measured value would be typed: integers ≥ 1,000 with and without thousands separators, other numbers
    at four significant digits when it has them. Shorter forms (4.2, 209, 0.52) are too common in prose to be
    evidence of a copy: those are caught by the quotes' own forms and beside a benchmark reference."""
    forms = set()
    if float(value).is_integer() and abs(value) >= 1000:
        forms |= {f"{int(value):,}", str(int(value))}
    elif abs(value) >= 1e-3:
        text = f"{value:.4g}"
        if "e" not in text and len(text.replace(".", "").replace("-", "").lstrip("0")) >= 4:
            forms.add(text)
            if abs(value) >= 1000:
                forms.add(f"{value:,.0f}")
    return forms


def forbidden_values() -> dict[str, str]:
    """{typed form: where it comes from} for every quotable value and every measured leaf of every results file."""
    out = {}
    for key in benchmarks.QUOTES:
        try:
            text = benchmarks.quote(key)
        except (KeyError, OSError, IndexError, StopIteration, ZeroDivisionError):
            continue
        if len(re.sub(r"\D", "", text).lstrip("0")) >= 3:
            out[text] = f"accountbook.benchmarks.QUOTES[{key!r}]"
    for path in sorted(BENCH.glob("results_*.json")):
        for key, value in _leaves(json.loads(path.read_text(encoding="utf-8"))):
            if (MEASURED_KEY.search(key) and key not in PARAMETER_KEYS and not key.endswith(".N") and ".N." not in key
                    and "machine." not in key):
                for form in _forms(value):
                    out.setdefault(form, f"{path.name}: {key}")
    return out


ALLOWED: dict[tuple[str, str], str] = {
    # (file, typed number): why it is not a copy of a benchmark figure
    **{(name, "100"): "a count, a percentage or a grid size; the slowest dp_accounting PLD calibration of the "
       "2026-12-07 run happened to round to 100 s" for name in ("book/running.md", "notebooks/07_census_dhc.py",
                                                              "notebooks/11_what_zcdp_forgets.py",
                                                              "notebooks/15_explorers.py")},
    **{(name, "2.00"): "the paper's fitted slope (chapter 11) and a ratio of mean squared errors (chapter 12); the "
       "layerwise DP-SGD step of the 2026-12-07 run happened to cost 2.00 plain steps"
       for name in ("notebooks/11_what_zcdp_forgets.py", "notebooks/12_acs_earnings.py")},
}
"""Typed numbers that equal a measured value by coincidence; each with its reason."""

UNIT = re.compile(NUMBER + r"\s*(?:-\s*)?(s|seconds?|minutes?|min|ms|hours?|CPU-hours|nodes|×|times|%|MB|GFLOP/s|MFLOP)\b")
BENCHMARK_REFERENCE = re.compile(r"[Bb]enchmark|Performance page|performance page|Performance\]|Performance ROLE|"
                                 r"ROLE page reports")
PAGE_ALLOWED = {"0.5 CPU-hours": "the paper's own figure (its §1.1), recorded in the ledger",
                "1,000 CPU-hours": "the paper's figure for the prior method, recorded in the ledger",
                "40 minutes": "the documented wall-time budget of `make benchmarks` (checked below)",
                "5 minutes": "the documented wall-time budget of `make benchmarks-quick` (checked below)"}


def test_prose_extraction_sees_typed_numbers_and_skips_read_ones():
    chapter = ("# %% [markdown]\n# The sweep took 4.2 minutes in the run the Benchmarks page reports, and\n"
               "# {glue:text}`sweep_minutes` minutes with $10^{-6}$ and `7 s`.\n# %%\nx = 59348\n")
    path = ROOT / "_build" / "prose-probe" / "99_probe.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(chapter, encoding="utf-8")
    text = prose(path)
    assert typed_numbers(text) == {"4.2"}, text
    assert [m.group(0) for s in sentences(text) if BENCHMARK_REFERENCE.search(s) for m in UNIT.finditer(s)] == \
        ["4.2 minutes"]


def test_no_benchmark_figure_is_typed_in_prose():
    forbidden = forbidden_values()
    assert len(forbidden) > 50, "the results files hold too few measured values: is the scan broken?"
    problems = []
    for path in PROSE_FILES:
        name = path.relative_to(ROOT).as_posix()
        text = prose(path)
        for number in sorted(typed_numbers(text) & forbidden.keys()):
            if (name, number) not in ALLOWED:
                problems.append(f"{name}: {number} is typed; it is {forbidden[number]} (read it with accountbook.benchmarks)")
        for sentence in sentences(text):
            if name == "book/benchmarks.md" or BENCHMARK_REFERENCE.search(sentence):
                for match in UNIT.finditer(sentence):
                    if not any(phrase in sentence[max(0, match.start() - 8):match.end() + 2] for phrase in PAGE_ALLOWED):
                        problems.append(f"{name}: '{match.group(0)}' typed beside a benchmark reference: "
                                        f"{' '.join(sentence.split())[:160]}")
    assert not problems, "\n".join(problems)


def test_the_page_and_the_sieve_chapter_read_their_figures():
    page = (ROOT / "book" / "benchmarks.md").read_text(encoding="utf-8")
    keys = re.findall(r"\{benchmark\}`([^`]+)`", page)
    assert len(keys) >= 30 and set(keys) <= set(benchmarks.QUOTES), set(keys) - set(benchmarks.QUOTES)
    sieve = (ROOT / "notebooks" / "06_sieve.py").read_text(encoding="utf-8")
    assert 'glue("sweep_minutes", benchmarks.quote("sweep.wall_minutes")' in sieve
    assert "{glue:text}`sweep_minutes` minutes on two cores" in sieve


@pytest.mark.parametrize("key", sorted(benchmarks.QUOTES))
def test_each_quote_reads_a_finite_value_from_its_results(key):
    value = benchmarks.value(key)
    assert isinstance(value, (int, float)) and math.isfinite(value) and value >= 0, value
    assert benchmarks.quote(key) == format(int(round(value)) if benchmarks.QUOTES[key].format.endswith("d") else value,
                                           benchmarks.QUOTES[key].format)
    with pytest.raises(KeyError, match="no benchmark quote"):
        benchmarks.value("no.such.quote")


# ---------------------------------------------------------------------------------------------------------------
# The committed results and plots
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("results", sorted(provenance.MEASURED))
def test_committed_results_are_full_runs_with_their_provenance(results):
    record = json.loads((BENCH / results).read_text(encoding="utf-8"))
    machine = record["machine"]
    assert not record.get("quick") and not machine.get("quick"), f"{results} is a quick smoke run: rerun it in full"
    assert {"cpu", "cores", "date", "library_sha256", "load_average"} <= machine.keys(), machine.keys()
    if results not in provenance.stale():  # a results file that claims the current code carries all its provenance
        assert {"commit", "load_average_end", "wall_seconds", "library_files", "load_limit"} <= machine.keys(), (
            f"{results} is current but was written before the full provenance was recorded: rerun it")


def test_the_committed_plots_are_the_ones_their_results_give(tmp_path):
    figures = _module("figures")
    written = figures.write_all(BENCH, tmp_path)
    assert {p.name for p in written} == set(figures.FIGURES)
    for path in written:
        committed = BENCH / "figures" / path.name
        assert committed.is_file() and committed.read_bytes() == path.read_bytes(), (
            f"benchmarks/figures/{path.name} is not what {figures.FIGURES[path.name]} gives: "
            ".venv/bin/python benchmarks/figures.py")
    page = (ROOT / "book" / "benchmarks.md").read_text(encoding="utf-8")
    for name in figures.FIGURES:
        assert f"```{{figure}} ../benchmarks/figures/{name}\n:name: " in page


# ---------------------------------------------------------------------------------------------------------------
# benchmarks/run.py
# ---------------------------------------------------------------------------------------------------------------

def test_every_benchmark_has_a_name_a_script_and_a_time():
    run = _module("run")
    assert set(run.NAMES.values()) == set(provenance.MEASURED) == set(provenance.SCRIPTS)
    assert set(run.SECONDS) == set(run.NAMES)
    assert all((BENCH / script).is_file() for script in provenance.SCRIPTS.values())


def test_the_budget_is_documented_where_it_is_promised():
    run = _module("run")
    full, quick = round(run.BUDGET["full"] / 60), round(run.BUDGET["quick"] / 60)
    for name in ("README.md", "CONTRIBUTING.md", "book/benchmarks.md", "Makefile", "benchmarks/run.py"):
        text = " ".join((ROOT / name).read_text(encoding="utf-8").split())
        assert f"about {full} minutes" in text and f"about {quick} minutes" in text, (name, full, quick)


def test_run_skips_current_benchmarks_and_refuses_a_loaded_machine(tmp_path, monkeypatch, capsys):
    run = _module("run")
    sha256, files = provenance.snapshot(modules=provenance.MEASURED["results_composition.json"])
    (tmp_path / "results_composition.json").write_text(json.dumps({"machine": {
        "library_sha256": sha256, "library_files": files}}), encoding="utf-8")
    calls = []
    monkeypatch.setattr(run.subprocess, "run", lambda *a, **k: calls.append(a))
    assert run.main(["--only", "composition", "--out", str(tmp_path)]) == 0 and not calls
    assert "composition: current" in capsys.readouterr().out
    monkeypatch.setattr(run.provenance, "load_average", lambda: 99.0)
    assert run.main(["--only", "composition", "--force", "--out", str(tmp_path)]) == 3 and not calls
    out = capsys.readouterr().out
    assert "refused: load average 99.0 is above the limit" in out and "--allow-load" in out


def test_stale_lists_a_changed_benchmark(tmp_path):
    sha256, files = provenance.snapshot(modules=provenance.MEASURED["results_sweep.json"])
    changed = sorted(files)[0]
    (tmp_path / "results_sweep.json").write_text(json.dumps({"machine": {
        "library_sha256": "0" * 64, "library_files": {**files, changed: "f" * 64}}}), encoding="utf-8")
    stale = provenance.stale(tmp_path)
    assert stale["results_sweep.json"] == {"script": "bench_sweep.py", "files": [changed],
                                           "reason": "measured code changed"}
    assert stale["results_engine.json"]["reason"] == "no results file"


# ---------------------------------------------------------------------------------------------------------------
# A chapter that quotes a benchmark was executed on the results now committed
# ---------------------------------------------------------------------------------------------------------------

GLUED = re.compile(r'glue\("(\w+)", benchmarks\.quote\("([\w.]+)"\)')


def quoting_chapters() -> dict[Path, dict[str, str]]:
    """{chapter: {glued name: quote key}} for the chapters that glue a benchmark quote."""
    out = {}
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py")):
        found = dict(GLUED.findall(path.read_text(encoding="utf-8")))
        if found:
            out[path] = found
    return out


def test_chapters_that_quote_a_benchmark_were_executed_on_the_committed_results():
    """The executed notebook (``.ipynb``) holds the glued value of the run it was executed after; the book's build
    reuses executions, so after ``make benchmarks`` changes a quoted value, the chapter must be executed again
    (``jupytext --sync --execute``), or its text would show the old value."""
    chapters = quoting_chapters()
    assert any(p.name.endswith("_sieve.py") for p in chapters), chapters
    problems = []
    for path, glued in chapters.items():
        notebook = json.loads(path.with_suffix(".ipynb").read_text(encoding="utf-8"))
        stored = {o["metadata"]["scrapbook"]["name"]: o["data"].get("application/papermill.record/text/plain")
                  for cell in notebook["cells"] for o in cell.get("outputs", [])
                  if "scrapbook" in o.get("metadata", {})}
        for name, key in glued.items():
            if stored.get(name) != repr(benchmarks.quote(key)):
                problems.append(f"{path.name}: {name} is {stored.get(name)} in the executed notebook, "
                                f"{benchmarks.quote(key)!r} in the results: execute the chapter again")
    assert not problems, "\n".join(problems)
