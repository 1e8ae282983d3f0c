"""The PDF of the book (``make pdf``: tests/book_pdf.py prints the single-page build with Chromium and checks
it). ``make pdf`` runs the check itself; here it runs again on a PDF that is there, and is skipped when none
was built (``make test`` does not print the book)."""

from __future__ import annotations

from pathlib import Path

import pytest

import book_pdf  # tests/book_pdf.py (pytest's pythonpath holds tests/)

ROOT = Path(__file__).resolve().parents[2]
PDF = ROOT / "_build" / "pdf" / "book.pdf"


def test_every_chapter_has_a_title_to_look_for():
    titles = book_pdf.chapter_titles()
    assert len(titles) >= 14 and all(titles.values()), titles
    assert titles["notebooks/02_fourier_inversion"] == "Fourier inversion on a lattice"
    assert book_pdf._plain("What {term}`zCDP` forgets, `code` and $x$") == "What zCDP forgets, code and x"


@pytest.mark.skipif(not PDF.is_file(), reason="no PDF built (make pdf)")
def test_the_pdf_opens_and_holds_every_chapter():
    problems = book_pdf.check_pdf(PDF)
    assert not problems, "\n".join(problems)


def test_the_check_finds_a_missing_chapter(tmp_path):
    """A two-chapter book whose PDF holds one title only: the check names the other."""
    if book_pdf.shutil.which("chromium") is None:
        pytest.skip("Chromium is not installed")
    pytest.importorskip("pypdf")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "a.md").write_text("# The first chapter\n", encoding="utf-8")
    (tmp_path / "notebooks" / "b.md").write_text("# The second chapter\n", encoding="utf-8")
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n  - caption: P\n    chapters:\n"
                                       "      - file: notebooks/a\n      - file: notebooks/b\n", encoding="utf-8")
    page = tmp_path / "site" / "index.html"
    page.parent.mkdir()
    page.write_text("<html><body><h1>The first\nchapter</h1><p>Text.</p></body></html>", encoding="utf-8")
    pdf = tmp_path / "book.pdf"
    book_pdf.print_pdf(page, pdf, budget_ms=2000)
    assert book_pdf.check_pdf(pdf, tmp_path) == [f"{pdf}: chapter title not found: notebooks/b: 'The second chapter'"]
    page.write_text("<html><body><h1>The first chapter</h1><h1>The second chapter</h1></body></html>")
    book_pdf.print_pdf(page, pdf, budget_ms=2000)
    assert book_pdf.check_pdf(pdf, tmp_path) == []
