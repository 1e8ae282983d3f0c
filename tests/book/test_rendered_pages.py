"""The built book proves what it shows: no inf/nan/Traceback/warnings in outputs, no machine paths, no
references to documents outside the repository, labelled figures, and benchmark tables that say whether they
measured the current code."""

from __future__ import annotations

import html as html_module
import importlib.util
import json
import os
import re
import sys
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

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


_RAW_REST = re.compile(r"``|:(func|class|meth|mod|data|attr|exc|obj):`|\.\. [a-z]+::")


def raw_rest(html: str) -> list[str]:
    """reStructuredText a page shows as text (a role, an inline literal or a directive Sphinx did not render)."""
    parser = _PageText()
    parser.feed(html)
    text = "".join(parser.text)
    return [text[max(0, m.start() - 60):m.end() + 40] for m in _RAW_REST.finditer(text)]


def test_raw_rest_is_caught():
    assert raw_rest("<p>see :func:`accountlib.delta` and ``x``</p>") and not raw_rest("<p><code>x</code></p>")


@pytest.mark.book
def test_the_api_page_is_rendered_by_sphinx(built_book):
    """book/api: autodoc's entries for the front door and every layer, cross-referenced, no raw reST left."""
    page = (built_book / "book" / "api.html").read_text(encoding="utf-8")
    assert not raw_rest(page), raw_rest(page)[:10]
    for name in ("accountlib.theory.composition.Composition", "accountlib.engine.front.CertifiedTails",
                 "accountlib.infrastructure.numbers.as_fraction", "accountlib.applications.census.allocations.pair_rhos",
                 "accountlib.cli.main"):
        assert f'id="{name}"' in page, name
    assert page.count('class="reference internal" href="#accountlib.') > 300  # the cross-references resolve


@pytest.mark.book
def test_the_rendered_chapter_numbers_are_the_file_numbers(built_book):
    """What the reader sees numbered as chapter N (the sidebar's "N. Title", figures "Fig. N.k", exercises
    "Exercise N.k") is ``notebooks/NN_*``: a teacher's "open notebook 10" and the book's chapter 10 are one. The
    pages outside the numbered parts (book/*, the benchmarks appendix among them) carry no chapter number."""
    chapters = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
    sidebar = (built_book / "book" / "intro.html").read_text(encoding="utf-8")
    shown = dict(re.findall(r'<a class="reference internal" href="\.\./notebooks/(\d\d_\w+)\.html">(\d+)\. ', sidebar))
    assert set(shown) == {script.stem for script in chapters}, sorted(shown)
    wrong = []
    for script in chapters:
        number = int(script.stem[:2])
        page = (built_book / "notebooks" / f"{script.stem}.html").read_text(encoding="utf-8")
        figures = {int(n) for n in re.findall(r'<span class="caption-number">Fig\. (\d+)\.\d+', page)}
        exercises = {int(n) for n in re.findall(r'Exercise (\d+)\.\d+', page)}
        if int(shown[script.stem]) != number or (figures | exercises) - {number}:
            wrong.append(f"{script.stem}: sidebar {shown[script.stem]}, figures {sorted(figures)}, "
                         f"exercises {sorted(exercises)}")
    assert not wrong, "chapters whose rendered number is not their file's NN_:\n" + "\n".join(wrong)
    numbered_pages = re.findall(r'<a class="reference internal" href="(\w+)\.html">\d+\. ', sidebar)
    assert not numbered_pages, f"book pages numbered as chapters: {numbered_pages}"


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
# Benchmarks: the pages say on which code and machine they were measured, and whether that code is today's
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
            "accountlib/theory/composition.py", "accountlib/infrastructure/numbers.py"} <= engine
    assert not any(p.startswith(("accountlib/cli", "accountlib/applications/explorers")) for p in engine)
    dpsgd = {p.relative_to(ROOT).as_posix() for p in provenance.measured_files(provenance.MEASURED["results_dpsgd.json"])}
    assert "book/accountbook/dpsgd/training.py" in dpsgd and "accountlib/engine/tails.py" not in dpsgd


def test_library_hash_follows_the_code(tmp_path):
    provenance = _provenance()
    (tmp_path / "accountlib").mkdir()
    (tmp_path / "accountlib" / "a.py").write_text("x = 1\n")
    first = provenance.library_hash(tmp_path)
    (tmp_path / "accountlib" / "a.py").write_text("x = 2\n")
    assert provenance.library_hash(tmp_path) != first


TABLES = [("results_engine.json", "RESULTS.md"), ("results_composition.json", "RESULTS_composition.md"),
          ("results_sweep.json", "RESULTS_sweep.md"),
          ("results_dpsgd.json", "RESULTS_dpsgd.md"), ("results_dpsgd_batched.json", "RESULTS_dpsgd_batched.md"),
          ("results_calibration.json", "RESULTS_calibration.md"),
          ("results_pl94.json", "RESULTS_pl94.md"), ("results_dpsgd_accounting.json", "RESULTS_dpsgd_accounting.md")]


def page_heading(results: str) -> str:
    """The heading of the Performance page's section that shows ``results`` (the last ``## `` line above its
    ``measured-code`` directive)."""
    source = (ROOT / "book" / "benchmarks.md").read_text(encoding="utf-8")
    before = source[:source.index(f"```{{measured-code}} ../benchmarks/{results}\n")]
    return re.findall(r"^## (.+)$", before, flags=re.M)[-1].strip()


@pytest.mark.parametrize("results, page", TABLES)
def test_each_benchmark_table_names_its_machine_and_code(results, page):
    provenance = _provenance()
    path = ROOT / "benchmarks" / results
    assert path.is_file(), f"benchmarks/{results} is missing: run the benchmark that writes it"
    assert results in provenance.MEASURED and (ROOT / "benchmarks" / provenance.SCRIPTS[results]).is_file()
    data = json.loads(path.read_text(encoding="utf-8"))
    machine = data.get("machine")
    assert isinstance(machine, dict) and machine.get("cpu") and machine.get("cores") and machine.get("date"), machine
    # the page's section: its heading, the prose, then whether the table measured the current code (with the
    # provenance folded), then the table; no hash or commit in the page's own text
    source = (ROOT / "book" / "benchmarks.md").read_text(encoding="utf-8")
    assert (f"```{{measured-code}} ../benchmarks/{results}\n```\n\n"
            f"```{{include}} ../benchmarks/{page}\n:heading-offset: 1\n:start-line: 1\n```") in source
    assert page_heading(results)
    assert machine["library_sha256"][:12] not in source and not re.search(r"\b[0-9a-f]{7,40}\b", source)
    assert machine["library_sha256"][:12] not in (ROOT / "benchmarks" / page).read_text(encoding="utf-8")


def test_benchmark_records_hash_each_measured_file():
    provenance = _provenance()
    modules = provenance.MEASURED["results_dpsgd.json"]
    sha256, files = provenance.snapshot(modules=modules)
    assert sha256 == provenance.library_hash(modules=modules)
    assert set(files) == {p.relative_to(ROOT).as_posix() for p in provenance.measured_files(modules)}
    assert provenance.changed_files({"a.py": "1", "b.py": "2", "c.py": "3"}, {"a.py": "1", "b.py": "9", "d.py": "4"}) == {
        "changed": ["b.py"], "added": ["d.py"], "removed": ["c.py"]}


def _notice_module():
    spec = importlib.util.spec_from_file_location("benchmark_provenance", ROOT / "book" / "_ext" / "benchmark_provenance.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _results_copies(folder: Path, results: str) -> dict[str, Path]:
    """Copies of ``benchmarks/results`` in ``folder``: ``current`` (recorded hash = today's, with per-file
    hashes), ``stale`` (another hash; one file changed, one no longer imported, per-file hashes) and ``old``
    (another hash, no per-file hashes, as results files written before they were recorded)."""
    provenance = _provenance()
    data = json.loads((ROOT / "benchmarks" / results).read_text(encoding="utf-8"))
    sha256, files = provenance.snapshot(modules=provenance.MEASURED[results])
    changed = sorted(files)[-1]
    variants = {
        "current": {"library_sha256": sha256, "library_files": files},
        "stale": {"library_sha256": "0" * 64,
                  "library_files": {**files, changed: "f" * 64, "accountlib/gone.py": "e" * 64}},
        "old": {"library_sha256": "0" * 64},
    }
    paths = {}
    for name, machine in variants.items():
        record = {**data, "machine": {k: v for k, v in data["machine"].items() if k != "library_files"} | machine}
        path = folder / name / results
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(record), encoding="utf-8")
        paths[name] = path
    paths["changed file"] = changed
    return paths


@pytest.mark.parametrize("results", [r for r, _ in TABLES])
def test_the_notice_says_current_exactly_when_the_hashes_match(tmp_path, results):
    provenance, notice = _provenance(), _notice_module().measured_code_notice
    copies = _results_copies(tmp_path, results)
    script = f"benchmarks/{provenance.SCRIPTS[results]}"
    sha256 = provenance.library_hash(modules=provenance.MEASURED[results])

    current, text, depends = notice(copies["current"], ROOT)
    assert current and "measured the current library code" in text and sha256 in text
    assert "earlier version" not in text and "warning" not in text and ":class: dropdown" in text
    assert {Path(p).relative_to(ROOT).as_posix() for p in depends} == set(provenance.snapshot(
        modules=provenance.MEASURED[results])[1])

    current, text, _ = notice(copies["stale"], ROOT)
    assert not current and "current library code" not in text
    assert text.startswith("```{admonition} These timings measured an earlier version of the library\n:class: warning")
    assert "0" * 64 in text and sha256 in text and f"Rerun `{script}`" in text and ":class: dropdown" in text
    assert f"changed: `{copies['changed file']}`" in text and "no longer measured: `accountlib/gone.py`" in text

    current, text, _ = notice(copies["old"], ROOT)
    assert not current and "earlier version of the library" in text and f"Rerun `{script}`" in text
    assert "records no per-file hashes" in text
    assert all(f"`{module}`" in text for module in provenance.MEASURED[results])

    (tmp_path / "results_other.json").write_text(copies["current"].read_text())
    with pytest.raises(ValueError):  # a results file no benchmark writes
        notice(tmp_path / "results_other.json", ROOT)


class _MeasuredNotices(HTMLParser):
    """For each ``measured-code`` notice on a page: (the heading above it, current?, its text)."""

    def __init__(self):
        super().__init__()
        self.notices, self._heading, self._in_heading, self._depth, self._current = [], "", False, 0, None

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "h2":
            self._in_heading, self._heading = True, ""
        if self._depth:
            self._depth += tag == "div"
        elif tag == "div" and "measured-code" in classes:
            self._depth, self._current = 1, ["current" in classes, "stale" in classes]
            self.notices.append([self._heading.rstrip("#¶ \n"), self._current, ""])

    def handle_endtag(self, tag):
        if tag == "h2":
            self._in_heading = False
        if self._depth and tag == "div":
            self._depth -= 1

    def handle_data(self, data):
        if self._in_heading:
            self._heading += data
        if self._depth:
            self.notices[-1][2] += data


def measured_notices(html: str) -> dict[str, tuple[bool, str]]:
    """{heading: (whether the notice says current, its text)}; a notice must be exactly one of current/stale."""
    parser = _MeasuredNotices()
    parser.feed(html)
    out = {}
    for heading, (current, stale), text in parser.notices:
        assert current != stale, f"the notice under {heading!r} is neither or both current and stale"
        heading = re.sub(r"^\d+(\.\d+)*\.\s+", "", heading.strip())  # the section number of a numbered chapter
        out[heading] = (current, " ".join(text.split()))
    return out


def _heading(page: str) -> str:
    return page_heading(next(results for results, table in TABLES if table == page))


def _check_notices(html: str, expected: dict[str, str]):
    """``expected``: for each RESULTS page, "current" or the words its stale notice must contain."""
    notices = measured_notices(html)
    assert set(notices) == {_heading(page) for page in expected}, notices
    for page, want in expected.items():
        current, text = notices[_heading(page)]
        if want == "current":
            assert current and "measured the current library code" in text and "earlier version" not in text, text
        else:
            assert not current and "These timings measured an earlier version of the library" in text, text
            assert want in text and "current library code" not in text, text


def test_the_benchmarks_page_shows_each_notice_at_its_table(tmp_path):
    """The real book/benchmarks.md, built by Sphinx (warnings as errors) with three results files: one that
    measured the current code, one another version with per-file hashes, one older without them."""
    import subprocess
    import sys

    src = tmp_path / "src"
    for folder in ("book", "benchmarks", "notebooks"):
        (src / folder).mkdir(parents=True)
    (src / "book" / "benchmarks.md").write_text((ROOT / "book" / "benchmarks.md").read_text(encoding="utf-8"))
    (src / "book" / "ledger.md").write_text("# Ledger\n")
    (src / "notebooks" / "06_sieve.md").write_text("# The sieve\n")
    (src / "index.md").write_text("# Book\n\n```{toctree}\nbook/benchmarks\nbook/ledger\nnotebooks/06_sieve\n```\n")
    for _, page in TABLES:
        (src / "benchmarks" / page).write_text((ROOT / "benchmarks" / page).read_text(encoding="utf-8"))
    shutil.copytree(ROOT / "benchmarks" / "figures", src / "benchmarks" / "figures")
    changed = {}
    for (results, _), variant in zip(TABLES, ("current", "current", "stale", "old", "current", "current", "current",
                                              "current")):
        copies = _results_copies(tmp_path / results, results)
        (src / "benchmarks" / results).write_text(copies[variant].read_text())
        changed[results] = copies["changed file"]
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'book' / '_ext')!r})\n"
        "extensions = ['myst_parser', 'benchmark_provenance']\n"
        "myst_enable_extensions = ['dollarmath', 'amsmath', 'colon_fence']\n"
        f"benchmark_library_root = {str(ROOT)!r}\n")
    build = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-n", "-q", "-b", "html", str(src),
                            str(tmp_path / "html")], capture_output=True, text=True, cwd=ROOT, timeout=300,
                           env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))})
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    html = (tmp_path / "html" / "book" / "benchmarks.html").read_text(encoding="utf-8")
    _check_notices(html, {"RESULTS.md": "current", "RESULTS_composition.md": "current",
                          "RESULTS_sweep.md": f"changed: {changed['results_sweep.json']}",
                          "RESULTS_dpsgd.md": "records no per-file hashes", "RESULTS_dpsgd_batched.md": "current",
                          "RESULTS_calibration.md": "current",
                          "RESULTS_pl94.md": "current", "RESULTS_dpsgd_accounting.md": "current"})
    assert html.count('<div class="warning admonition">') == 2
    assert html.count("dropdown") >= len(TABLES) and html.count("<figcaption") == 2
    assert "{benchmark}" not in html and 'class="benchmark-value"' in html


@pytest.mark.book
def test_the_built_benchmarks_page_says_which_code_each_table_measured(built_book):
    provenance = _provenance()
    html = (built_book / "book" / "benchmarks.html").read_text(encoding="utf-8")
    expected = {}
    for results, page in TABLES:
        machine = json.loads((ROOT / "benchmarks" / results).read_text(encoding="utf-8"))["machine"]
        now = provenance.library_hash(modules=provenance.MEASURED[results])
        expected[page] = "current" if machine["library_sha256"] == now else machine["library_sha256"]
    _check_notices(html, expected)


# ---------------------------------------------------------------------------------------------------
# The public edition holds no instructor-only solution (book/_ext/instructor.py)
# ---------------------------------------------------------------------------------------------------

def _book_extension(name: str):
    """A module of book/_ext (the book's Sphinx extensions), loaded from its file (tests/book_extensions.py)."""
    from book_extensions import load

    return load(name)


def _folded(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _page_text(page: str) -> str:
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r"</?(span|a|em|strong|code|b|i)\b[^>]*>", "", page)  # inline: highlighted code stays whole
    return _folded(html_module.unescape(re.sub(r"<[^>]+>", " ", page)))


def instructor_only_lines(source: Path) -> tuple[int, list[str]]:
    """(number of instructor-only solutions, distinctive lines of their text and code) of a chapter:
    lines of at least 30 characters, without markup, that appear nowhere else in the chapter."""
    import jupytext

    instructor = _book_extension("instructor")
    cells = [(cell.cell_type, cell.source) for cell in jupytext.read(source).cells]
    removed: list[str] = []
    kept = instructor.strip_instructor_solutions(cells, removed)
    count = sum(1 for d in instructor.directives("\n\n".join(s for t, s in cells if t == "markdown").splitlines())
                if d.name in ("solution", "solution-start") and instructor.is_instructor_only(d))
    public = _folded("\n".join(text for _, _, text in kept))
    lines = []
    for line in removed:
        line = _folded(line)
        if (len(line) >= 30 and not line.startswith((":", "```", "#")) and not re.search(r"[`$*{}\[\]\\<>|]", line)
                and line not in public):
            lines.append(line)
    return count, lines


@pytest.mark.book
def test_public_book_holds_no_instructor_only_solution(built_book):
    html = built_book
    problems, checked = [], 0
    for source in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py")):
        page_path = html / "notebooks" / f"{source.stem}.html"
        if not page_path.is_file():
            continue
        count, lines = instructor_only_lines(source)
        text = _page_text(page_path.read_text(encoding="utf-8"))
        notes = text.count("The solution to this exercise is in the instructor edition.")
        if notes != count:
            problems.append(f"{source.stem}: {count} instructor-only solutions, {notes} notes in their place")
        leaked = [line for line in lines if line in text]
        checked += len(lines)
        problems += [f"{source.stem}: instructor-only text on the public page: {line[:80]!r}" for line in leaked]
    for path in (html / "_sources").rglob("*"):
        if path.suffix in (".py", ".ipynb") and "instructor-only" in path.read_text(encoding="utf-8"):
            problems.append(f"{path.relative_to(html)}: the downloadable source holds instructor-only solutions")
    assert not problems, "\n".join(problems[:40])
