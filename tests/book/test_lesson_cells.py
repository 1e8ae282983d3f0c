"""Lessons without machine bookkeeping: what a reader sees of a chapter is the lesson, not the checks behind it.

Read from the chapters' sources (``notebooks/NN_name.py``) and their stored executions (``.ipynb``), for every
chapter of ``_toc.yml``:

* no prose, shown code or output talks of rounding that differs between CPUs, SIMD kernels or ulps, and no output
  prints a rounding residue as a bound (``< 1e-14``): such checks belong in ``tests/``
  (``tests/book/test_rounding_scale.py`` holds the ones the chapters used to print);
* no figure title carries a second numbering (``Figure 4(a): …`` above the book's own "Fig. 11.3"): the paper's
  figure is named in the caption or the text;
* every caption writes its symbols as math or as the symbol itself (σ², Pr(X ≥ k)), never as ASCII (``sigma^2``,
  ``>=``);
* no cell whose code the reader sees uses a name that only a removed cell (``remove-cell``, ``remove-input``)
  defines: the reader could not run the lesson from what is shown.
"""

from __future__ import annotations

import ast
import builtins
import json
import re
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))

# CPU-dependent rounding: the instruction sets, numpy's run-time-dispatched kernels, "last bits differ between CPUs";
# the cost of a computation on a CPU (CPU time, CPU-hours, the cores a training run used) is a lesson's subject.
MACHINE = re.compile(r"\bSIMD\b|\bAVX[-\w]*|\bulps?\b|\b(numpy's|baseline|dispatched)\s+(SIMD\s+)?kernels?\b|"
                     r"\b(differ|vary|varies|agree)\w*\s+(between|across)\s+(CPUs|machines)\b|\b(another|second) CPU\b|"
                     r"\brounding residues?\b")
# a float64 rounding residue printed as the round bound it stays below ("< 1e-14"); certified bounds such as
# "< 4.2e-25" or tolerances such as "< 1e-8" are numbers of the lesson
RESIDUE = re.compile(r"(?<![\w.])[<≤]\s?[1-9](\.\d)?e-1[2-9]\b")
SECOND_NUMBERING = re.compile(r"\b(Figure|Fig\.|Table)\s*\d")
TITLE_CALL = re.compile(r"\.(set_title|suptitle|title)\(\s*(rf|fr|r|f)?([\"'])(?P<text>.*?)\3", re.S)
ASCII_MATH = re.compile(r"(?<!machine )\b(sigma|mu|rho|delta|epsilon|alpha|beta|theta|zeta|lambda|kappa|nu|omega)\b|"
                        r"\^\d|>=|<=|!=|\bsqrt\(")


def _tags(cell) -> set[str]:
    return set(cell.metadata.get("tags", []))


def source_shown(cell) -> bool:
    return not _tags(cell) & {"remove-cell", "remove-input"}


def output_shown(cell) -> bool:
    return not _tags(cell) & {"remove-cell", "remove-output"}


def _text_outputs(cell) -> str:
    parts = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            parts.append(str(output.get("text", "")))
        data = output.get("data") or {}
        if "text/plain" in data and not any(m.startswith("image/") for m in data):
            parts.append(str(data["text/plain"]))
    return "".join(parts)


#: Where rounding is a lesson's subject, not bookkeeping: a chapter that certifies a float64 computation states its
#: rounding model and prints the certificate's error terms as the powers of ten they stay below. Each entry is a phrase
#: of the chapter's source: a remark within 80 characters of it, or an output of the code cell that holds it, is the
#: lesson's. Nothing else of the chapter is exempt.
ROUNDING_AS_SUBJECT: dict[str, dict[str, str]] = {
    "14_dpsgd_accounting": {
        "which covers the few-ulp accuracy of the": "the rounding model of the certificate (each operation within 16u)",
        "error terms relative to delta": "the certificate's four rigorous error terms, shown as the power of ten each "
                                         "stays below",
    },
}


def _allowed(cell, match_start: int | None, phrases) -> bool:
    """Whether a phrase of ``phrases`` makes the remark at ``match_start`` of the cell's source (None: an output of
    the cell) the lesson's subject."""
    for phrase in phrases:
        at = cell.source.find(phrase)
        if at >= 0 and (match_start is None or abs(at - match_start) <= 80):
            return True
    return False


def machine_remarks(notebook, stored=None, allowed=()) -> list[str]:
    """CPU/SIMD/ulp remarks in shown prose and code, residues and such remarks in shown outputs; ``stored`` is the
    executed notebook (its outputs), cells matched by position among the code cells; ``allowed``: the phrases of
    :data:`ROUNDING_AS_SUBJECT` of the chapter."""
    problems = []
    for number, cell in enumerate(notebook.cells, 1):
        if cell.cell_type == "markdown" or source_shown(cell):
            for match in MACHINE.finditer(cell.source):
                if _allowed(cell, match.start(), allowed):
                    continue
                problems.append(f"cell {number} ({cell.cell_type}) says {match.group(0)!r}: "
                                f"…{cell.source[max(0, match.start() - 60):match.end() + 40]}…")
    if stored is not None:
        code = [c for c in notebook.cells if c.cell_type == "code"]
        ran = [c for c in stored.cells if c.cell_type == "code"]
        for number, (cell, executed) in enumerate(zip(code, ran), 1):
            if not output_shown(cell) or _allowed(cell, None, allowed):
                continue
            text = _text_outputs(executed)
            for pattern in (MACHINE, RESIDUE):
                for match in pattern.finditer(text):
                    problems.append(f"code cell {number} prints {match.group(0)!r}: "
                                    f"…{text[max(0, match.start() - 60):match.end() + 40]}…")
    return problems


def titles_with_a_second_numbering(notebook) -> list[str]:
    problems = []
    for number, cell in enumerate(notebook.cells, 1):
        if cell.cell_type != "code":
            continue
        for match in TITLE_CALL.finditer(cell.source):
            if SECOND_NUMBERING.search(match.group("text")):
                problems.append(f"cell {number}: a figure title numbered like a figure: {match.group('text')!r}")
    return problems


def ascii_captions(notebook) -> list[str]:
    problems = []
    for number, cell in enumerate(notebook.cells, 1):
        caption = (cell.metadata.get("mystnb") or {}).get("figure", {}).get("caption")
        if not caption:
            continue
        text = re.sub(r"\$[^$]*\$", " ", caption)  # math is fine
        text = re.sub(r"`[^`]*`", " ", text)  # and code names
        for match in ASCII_MATH.finditer(text):
            problems.append(f"cell {number}: caption writes {match.group(0)!r} as ASCII: "
                            f"…{text[max(0, match.start() - 50):match.end() + 30]}…")
    return problems


_BUILTINS = set(dir(builtins)) | {"display", "get_ipython", "__file__"}


def _bound_and_used(source: str) -> tuple[set[str], set[str]]:
    """Names a cell binds anywhere (assignments, imports, defs, arguments, loop and comprehension targets) and the
    names it loads."""
    tree = ast.parse(source)
    bound, used = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, (ast.Store, ast.Del)) else used).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound |= set(node.names)
    return bound, used


def names_from_removed_cells(notebook) -> list[str]:
    """Each shown code cell's use of a name that only removed cells have defined before it."""
    shown_bound, removed_bound, problems = set(_BUILTINS), set(), []
    for number, cell in enumerate(notebook.cells, 1):
        if cell.cell_type != "code":
            continue
        source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
        try:
            bound, used = _bound_and_used(source)
        except SyntaxError:
            continue
        if source_shown(cell):
            hidden = sorted((used - bound - shown_bound) & removed_bound)
            if hidden:
                problems.append(f"cell {number} uses {', '.join(hidden)}, defined only in a removed cell: "
                                f"{cell.source.strip().splitlines()[0][:80]!r}")
            shown_bound |= bound
        else:
            removed_bound |= bound - shown_bound
    return problems


def _chapter(script: Path):
    return jupytext.read(script), nbformat.read(script.with_suffix(".ipynb"), as_version=4)


@pytest.mark.parametrize("script", CHAPTERS, ids=lambda p: p.stem)
def test_lessons_carry_no_machine_bookkeeping(script):
    source, stored = _chapter(script)
    problems = machine_remarks(source, stored, allowed=ROUNDING_AS_SUBJECT.get(script.stem, {}))
    assert not problems, f"{script.name}:\n" + "\n".join(problems)


@pytest.mark.parametrize("script", CHAPTERS, ids=lambda p: p.stem)
def test_figure_titles_and_captions_read_as_the_book_writes(script):
    source = jupytext.read(script)
    problems = titles_with_a_second_numbering(source) + ascii_captions(source)
    assert not problems, f"{script.name}:\n" + "\n".join(problems)


@pytest.mark.parametrize("script", CHAPTERS, ids=lambda p: p.stem)
def test_no_shown_cell_needs_a_removed_one(script):
    problems = names_from_removed_cells(jupytext.read(script))
    assert not problems, f"{script.name}:\n" + "\n".join(problems)


# --- the checks themselves can fail -----------------------------------------------------------------------

def _notebook(*cells):
    notebook = nbformat.v4.new_notebook()
    for kind, source, tags, metadata in cells:
        cell = (nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell)(source)
        cell.metadata.update({"tags": list(tags), **metadata})
        notebook.cells.append(cell)
    return notebook


def test_each_check_finds_what_it_is_for():
    remarks = _notebook(("markdown", "The digits differ between CPUs (numpy's SIMD kernels).", (), {}),
                        ("markdown", "About 1,000 CPU-hours per pair; the CPU time of a run.", (), {}),
                        ("code", "x = 1  # 3 ulp", (), {}),
                        ("code", "# AVX-512 measured\ny = 2", ("remove-cell",), {}))
    found = machine_remarks(remarks)
    assert len(found) == 3 and not any("AVX" in p or "hours" in p for p in found)  # the removed cell is fine
    stored = _notebook(("code", "print(x)", (), {}), ("code", "print(y)", (), {}))
    stored.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="gap at q = 1: < 2e-14\n")]
    stored.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout",
                                                      text="CPU time 3 s; δ 1.2e-14, error < 4.2e-25, bound < 1e-8\n")]
    shown = _notebook(("code", "print(x)", (), {}), ("code", "print(y)", (), {}))
    assert [p.split(" prints")[0] for p in machine_remarks(shown, stored)] == ["code cell 1"]
    # an allowance covers its own cell's outputs and the remarks near its phrase, nothing else
    certified = _notebook(("markdown", "Each operation within 16u, which covers the few-ulp accuracy of libm." + " x" * 60
                           + " Results differ between CPUs.", (), {}),
                          ("code", "print(x)  # error terms relative to delta", (), {}), ("code", "print(y)", (), {}))
    stored.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="other residue < 3e-13\n")]
    found = machine_remarks(certified, stored, allowed=("covers the few-ulp", "error terms relative to delta"))
    assert len(found) == 2 and "differ between CPUs" in found[0] and found[1].startswith("code cell 2 prints")
    titles = _notebook(("code", 'ax.set_title("Figure 4(a) at t = 1")\nfig.suptitle(f"Gaps at t = {t:g}")', (), {}))
    assert len(titles_with_a_second_numbering(titles)) == 1
    captions = _notebook(("code", "plot()", (), {"mystnb": {"figure": {"caption": "for sigma^2 = 0.3 and Pr(X >= k)"}}}),
                         ("code", "plot()", (), {"mystnb": {"figure": {"caption": "for σ² = 0.3 and $\\Pr(X \\ge k)$"}}}))
    assert [p.split(":")[0] for p in ascii_captions(captions)] == ["cell 1"] * 3
    removed = _notebook(("code", "import math\nhidden = 2", ("remove-cell",), {}),
                        ("code", "shown = hidden + 1\ndef f(a):\n    return a + shown", (), {}),
                        ("code", "print(f(3), math.pi)", ("hide-input",), {}))
    found = names_from_removed_cells(removed)
    assert len(found) == 2 and "hidden" in found[0] and "math" in found[1]
