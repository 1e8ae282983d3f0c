"""The built book proves what it shows: no inf/nan/Traceback/warnings in outputs, no machine paths, no
references to documents outside the repository, labelled figures, and benchmarks of the current code."""

from __future__ import annotations

import importlib.util
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# numbers that are not numbers, and tracebacks, in anything a cell printed or displayed
_BAD_VALUE = re.compile(r"(?<![\w.])[-+]?(inf|nan|NaN|Infinity)(?![\w])|Traceback")
_WARNING = re.compile(r"\w*Warning\b")
_MACHINE_PATH = re.compile(r"/tmp/|/home/|/root/|site-packages")
_OUTSIDE_DOCUMENT = re.compile(r"\b(MATH|DESIGN|TOOLCHAIN)\.md\b")


class _PageText(HTMLParser):
    """Visible text of a page (scripts and styles left out), and separately the text of cell outputs."""

    def __init__(self):
        super().__init__()
        self.text, self.outputs, self.stderr = [], [], []
        self._skip = 0
        self._stack = []  # (tag, is_output, is_stderr) for open elements

    def handle_starttag(self, tag, attrs):
        if tag in ("br", "img", "hr", "meta", "link", "input", "col", "source", "wbr"):
            return
        classes = (dict(attrs).get("class") or "").split()
        self._stack.append((tag, "cell_output" in classes, "stderr" in classes))
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag):
        while self._stack:
            open_tag, _, _ = self._stack.pop()
            if open_tag in ("script", "style"):
                self._skip -= 1
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self._skip:
            return
        self.text.append(data)
        if any(output for _, output, _ in self._stack):
            self.outputs.append(data)
        if any(err for _, _, err in self._stack):
            self.stderr.append(data)


def scan_page(html: str) -> list[str]:
    """Every problem on one page, as sentences."""
    parser = _PageText()
    parser.feed(html)
    problems = []
    outputs = "".join(parser.outputs)
    for match in _BAD_VALUE.finditer(outputs):
        problems.append(f"output shows {match.group(0)!r}: …{outputs[max(0, match.start() - 80):match.end() + 40]}…")
    for match in _WARNING.finditer(outputs):
        problems.append(f"output shows a warning {match.group(0)!r}: …{outputs[max(0, match.start() - 80):match.end() + 80]}…")
    if "".join(parser.stderr).strip():
        problems.append(f"a cell wrote to stderr: {''.join(parser.stderr)[:200]!r}")
    text = "".join(parser.text)
    for match in _MACHINE_PATH.finditer(text):
        problems.append(f"machine path {match.group(0)!r}: …{text[max(0, match.start() - 60):match.end() + 40]}…")
    for match in _OUTSIDE_DOCUMENT.finditer(html):
        problems.append(f"cites {match.group(0)}, which is not in the repository")
    return problems


def test_scan_page_catches_each_problem():
    clean = '<p>the information is infinite in principle</p><div class="cell_output"><pre>1.5e-10 and 3</pre></div>'
    assert scan_page(clean) == []
    bad = {
        "inf": '<div class="cell_output docutils container"><pre>gap: inf</pre></div>',
        "nan": '<div class="cell_output"><pre>value -nan</pre></div>',
        "NaN": '<div class="cell_output"><div><pre>NaN</pre></div></div>',
        "traceback": '<div class="cell_output"><pre>Traceback (most recent call last)</pre></div>',
        "warning": '<div class="cell_output"><pre>x.py:3: RuntimeWarning: overflow</pre></div>',
        "stderr": '<div class="output stderr"><pre>something</pre></div>',
        "path": "<p>written to /tmp/x.csv</p>",
        "site": "<p>lib/python3.11/site-packages/scipy</p>",
        "outside": "<p>see MATH.md §2</p>",
    }
    for label, html in bad.items():
        assert scan_page(html), label


@pytest.mark.book
def test_every_rendered_page_is_clean(built_book):
    html = built_book  # the run's one build (tests/conftest.py); the fixture fails on any warning or error
    pages = sorted(html.rglob("*.html"))
    assert len(pages) >= 12
    problems = []
    for page in pages:
        if page.relative_to(html).parts[0] in ("_static", "_sources", "_images"):
            continue
        problems += [f"{page.relative_to(html)}: {p}" for p in scan_page(page.read_text(encoding="utf-8"))]
    assert not problems, "\n".join(problems[:60])
    ledger = (html / "book" / "ledger.html").read_text(encoding="utf-8")
    assert "not reproducible here" in ledger and "<details>" in ledger
    assert (html / "book" / "derivations.html").is_file()


def test_no_file_cites_a_document_outside_the_repository():
    hits = []
    for folder in ("accountlib", "notebooks", "book", "benchmarks", "tests"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in (".py", ".md", ".ipynb", ".yml") or path.name in (
                    "test_rendered_pages.py", "test_ledger.py") or "assets" in path.parts:
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                if _OUTSIDE_DOCUMENT.search(line):
                    hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not hits, "\n".join(hits)


# ---------------------------------------------------------------------------------------------------
# Figures: every figure a chapter draws has a title and labelled axes
# ---------------------------------------------------------------------------------------------------

_MAKES_FIGURE = re.compile(r"plt\.(subplots|figure)\(")
_TITLE = re.compile(r"\.(set_title|suptitle)\(|plt\.title\(")
_XLABEL = re.compile(r"\.(set_xlabel|supxlabel)\(|plt\.xlabel\(")
_YLABEL = re.compile(r"\.(set_ylabel|supylabel)\(|plt\.ylabel\(")


def unlabelled_figures(source: str) -> list[str]:
    """For each code cell of a jupytext percent script that draws figures: what its figures lack.

    A cell that makes n figures needs at least n titles, n x-labels and n y-labels in its code.
    """
    problems = []
    for number, cell in enumerate(re.split(r"^# %%.*$", source, flags=re.M)):
        code = "\n".join(line for line in cell.splitlines() if not line.lstrip().startswith("#"))
        figures = len(_MAKES_FIGURE.findall(code))
        if not figures:
            continue
        for name, pattern in (("title", _TITLE), ("x-axis label", _XLABEL), ("y-axis label", _YLABEL)):
            if len(pattern.findall(code)) < figures:
                first = next((line for line in code.splitlines() if _MAKES_FIGURE.search(line)), "")
                problems.append(f"cell {number}: {figures} figure(s) but fewer of: {name} ({first.strip()[:60]})")
    return problems


def test_unlabelled_figure_is_caught():
    assert unlabelled_figures("# %%\nfig, ax = plt.subplots()\nax.plot([1])\n")
    assert unlabelled_figures("# %%\nfig, ax = plt.subplots()\nax.set_title('t')\nax.set_xlabel('x')\n")
    assert not unlabelled_figures(
        "# %%\nfig, ax = plt.subplots()\nax.set_title('t')\nax.set_xlabel('x')\nax.set_ylabel('y')\n")
    assert not unlabelled_figures("# %%\nfig, axes = plt.subplots(2, 2)\nfig.suptitle('t')\nfig.supxlabel('x')\n"
                                  "fig.supylabel('y')\n")


@pytest.mark.parametrize("chapter", sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.py")))
def test_every_figure_is_labelled(chapter):
    problems = unlabelled_figures((ROOT / "notebooks" / chapter).read_text(encoding="utf-8"))
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------------------------------
# Benchmarks: the pages say on which code and machine they were measured, and that code is today's
# ---------------------------------------------------------------------------------------------------

def _provenance():
    spec = importlib.util.spec_from_file_location("provenance", ROOT / "benchmarks" / "provenance.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_measured_code_is_what_the_benchmark_imports():
    provenance = _provenance()
    engine = {p.relative_to(ROOT).as_posix() for p in provenance.measured_files(provenance.MEASURED["results_engine.json"])}
    assert {"accountlib/__init__.py", "accountlib/engine/tails.py", "accountlib/engine/sieve.py",
            "accountlib/theory/profiles.py", "accountlib/infrastructure/numbers.py"} <= engine
    assert not any(p.startswith(("accountlib/cli", "accountlib/applications/explorers")) for p in engine)
    dpsgd = {p.relative_to(ROOT).as_posix() for p in provenance.measured_files(provenance.MEASURED["results_dpsgd.json"])}
    assert "accountlib/applications/dpsgd.py" in dpsgd and "accountlib/engine/tails.py" not in dpsgd


def test_library_hash_follows_the_code(tmp_path):
    provenance = _provenance()
    (tmp_path / "accountlib").mkdir()
    (tmp_path / "accountlib" / "a.py").write_text("x = 1\n")
    first = provenance.library_hash(tmp_path)
    (tmp_path / "accountlib" / "a.py").write_text("x = 2\n")
    assert provenance.library_hash(tmp_path) != first


@pytest.mark.parametrize("results, page", [("results_engine.json", "RESULTS.md"),
                                           ("results_sweep.json", "RESULTS_sweep.md"),
                                           ("results_dpsgd.json", "RESULTS_dpsgd.md")])
def test_benchmarks_measured_the_current_library(results, page):
    provenance = _provenance()
    path = ROOT / "benchmarks" / results
    assert path.is_file(), f"benchmarks/{results} is missing: run the benchmark that writes it"
    data = json.loads(path.read_text(encoding="utf-8"))
    machine = data.get("machine")
    assert isinstance(machine, dict) and machine.get("cpu") and machine.get("cores") and machine.get("date"), machine
    text = (ROOT / "benchmarks" / page).read_text(encoding="utf-8")
    assert machine["library_sha256"][:16] in text and machine["cpu"] in text, f"{page} does not say what it measured"
    assert machine["library_sha256"] == provenance.library_hash(modules=provenance.MEASURED[results]), (
        f"accountlib changed since benchmarks/{results} was measured: rerun the benchmark "
        f"(benchmarks/bench_engine.py, bench_sweep.py or bench_dpsgd_step.py)")
