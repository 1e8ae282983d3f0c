"""The book as one PDF (``make pdf``: tests/book_pdf.py prints the single-page build with Chromium and checks it).

The test suite prints it too, from the run's own build: the single-page HTML build from the execution cache the
run filled (no chapter is executed again), printed by headless Chromium with networking off, and checked as
``make pdf`` checks it (it opens and holds every chapter's title, read as a reader reads it: the ligatures pypdf
returns folded). The built site links that PDF from every page's download menu and from its home page, and the
page-level print button says that it prints one page.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

import book_pdf  # tests/book_pdf.py (pytest's pythonpath holds tests/)

ROOT = Path(__file__).resolve().parents[2]
JUPYTER_BOOK = Path(sys.executable).with_name("jupyter-book")


def test_every_chapter_has_a_title_to_look_for():
    titles = book_pdf.chapter_titles()
    assert len(titles) >= 14 and all(titles.values()), titles
    assert "Fourier inversion on a lattice" in titles.values()
    assert book_pdf._plain("What {term}`zCDP` forgets, `code` and $x$") == "What zCDP forgets, code and x"


def test_titles_are_compared_as_a_reader_reads_them():
    """pypdf returns the glyphs Chromium set: "Diﬀerential" with one ﬀ ligature, ﬁ, ﬂ, ﬃ, non-breaking spaces."""
    assert book_pdf._fold("Diﬀerential privacy from the\nground up") == "differential privacy from the ground up"
    assert book_pdf._fold("The ﬁrst ﬂow, eﬃcient") == "the first flow, efficient"
    assert book_pdf._fold("zCDP\u00a0forgets, trade-\noff") == "zcdp forgets, trade-off"


def test_the_check_finds_a_missing_chapter(tmp_path):
    """A two-chapter book whose PDF holds one title only: the check names the other; a title that Chromium sets
    with a ligature (ff) is found."""
    if book_pdf.shutil.which("chromium") is None:
        pytest.skip("Chromium is not installed")
    pytest.importorskip("pypdf")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "a.md").write_text("# Differential privacy first\n", encoding="utf-8")
    (tmp_path / "notebooks" / "b.md").write_text("# The second chapter\n", encoding="utf-8")
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n  - caption: P\n    chapters:\n"
                                       "      - file: notebooks/a\n      - file: notebooks/b\n", encoding="utf-8")
    page = tmp_path / "site" / "index.html"
    page.parent.mkdir()
    page.write_text("<html><body><h1>Differential privacy\nfirst</h1><p>Text.</p></body></html>", encoding="utf-8")
    pdf = tmp_path / "book.pdf"
    book_pdf.print_pdf(page, pdf, budget_ms=2000)
    assert book_pdf.check_pdf(pdf, tmp_path) == [f"{pdf}: chapter title not found: notebooks/b: 'The second chapter'"]
    page.write_text("<html><body><h1>Differential privacy first</h1><h1>The second chapter</h1></body></html>")
    book_pdf.print_pdf(page, pdf, budget_ms=2000)
    assert book_pdf.check_pdf(pdf, tmp_path) == []


def test_the_check_finds_a_chapter_that_only_the_contents_list_names(tmp_path):
    """The contents list at the front names every chapter: a PDF cut short after it, or missing one chapter's
    body, holds every title once, and the check still names the chapter whose heading is not printed."""
    if book_pdf.shutil.which("chromium") is None:
        pytest.skip("Chromium is not installed")
    pytest.importorskip("pypdf")
    (tmp_path / "notebooks").mkdir()
    for name, title in (("a", "Differential privacy first"), ("b", "The second chapter"), ("c", "A third one")):
        (tmp_path / "notebooks" / f"{name}.md").write_text(f"# {title}\n", encoding="utf-8")
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n  - caption: P\n    numbered: true\n"
                                       "    chapters:\n      - file: notebooks/a\n      - file: notebooks/b\n"
                                       "      - file: notebooks/c\n", encoding="utf-8")
    contents = "<h1>Contents</h1><p>1. Differential privacy first</p><p>2. The second chapter</p><p>3. A third one</p>"
    chapter = "<h2>{}</h2><p>Its text, which mentions The second chapter.</p>"
    page = tmp_path / "site" / "index.html"
    page.parent.mkdir()
    pdf = tmp_path / "book.pdf"
    for body, missing in (([1, 3], ["b"]), ([1, 2], ["c"]), ([1, 2, 3], [])):
        titles = {1: "1. Differential privacy first", 2: "2. The second chapter", 3: "3. A third one"}
        page.write_text("<html><body>" + contents + "".join(chapter.format(titles[n]) for n in body) + "</body></html>",
                        encoding="utf-8")
        book_pdf.print_pdf(page, pdf, budget_ms=2000)
        problems = book_pdf.check_pdf(pdf, tmp_path)
        assert [p.split("notebooks/")[1][0] for p in problems] == missing, problems


def test_the_download_menu_is_relabelled_and_links_the_book_once():
    """book/_ext/page_tools.py on the theme's context, without a build: the print button says it prints one page,
    the whole book's PDF is linked relative to the page, and a second call adds no second link."""
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import page_tools

    buttons = [{"type": "link", "url": "../_sources/notebooks/x.ipynb", "label": "download-source-button"},
               {"type": "javascript", "javascript": "window.print()", "text": ".pdf", "label": "download-pdf-button"}]
    context = {"header_buttons": [{"label": "download-buttons", "buttons": buttons}, {"label": "other", "buttons": []}],
               "pathto": lambda name, resource: f"../{name}"}
    for _ in range(2):
        page_tools._download_menu(None, "notebooks/x", "page.html", context, None)
    assert buttons[1]["text"] == page_tools.PRINT_LABEL
    links = [b for b in buttons if b.get("label") == "download-book-pdf-button"]
    assert len(links) == 1 and links[0]["url"] == "../book.pdf" and links[0]["text"] == page_tools.BOOK_PDF_LABEL
    assert context["header_buttons"][1]["buttons"] == []


@pytest.mark.book
def test_the_site_links_the_whole_book_pdf_and_says_what_the_print_button_does(built_book):
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import page_tools

    pages = [p for p in built_book.rglob("*.html") if p.relative_to(built_book).parts[0] not in ("_static", "_sources")
             and "download-buttons" in p.read_text(encoding="utf-8")]
    assert len(pages) >= 15
    for page in pages:
        text = page.read_text(encoding="utf-8")
        link = re.search(r'<a href="([^"]*book\.pdf)"[^>]*>.*?' + re.escape(page_tools.BOOK_PDF_LABEL), text, re.S)
        assert link, f"{page.name}: no link to the whole book's PDF in the download menu"
        assert (page.parent / link.group(1)).resolve() == (built_book / page_tools.BOOK_PDF).resolve(), link.group(1)
        assert page_tools.PRINT_LABEL in text and ">.pdf<" not in text, page.name
    intro = (built_book / "book" / "intro.html").read_text(encoding="utf-8")
    assert 'href="../book.pdf"' in intro and "make pdf" in intro


@pytest.mark.book
def test_the_whole_book_prints_to_one_pdf_that_holds_every_chapter(built_book, tmp_path):
    """What ``make pdf`` does, from this run's execution cache: build the single page, print it, check it. The single
    page is built as ``make pdf`` builds it, into ``_build/singlehtml`` beside the run's own html build, whose
    environment (``_build/.doctrees``, every page read again by this run's ``--all``) it reuses: only the ledger page
    is read again (71 s against 134 s for a build into a fresh folder, on the loaded 2-core machine)."""
    from chapter_runs import cache_records

    if book_pdf.shutil.which("chromium") is None:
        pytest.skip("Chromium is not installed")
    executed = cache_records()
    started = time.perf_counter()
    result = subprocess.run([str(JUPYTER_BOOK), "build", str(ROOT), "-W", "-n", "--keep-going", "--builder",
                             "singlehtml"], capture_output=True, text=True, cwd=ROOT,
                            timeout=1800, env=dict(os.environ, ACCOUNTLIB_BATCH_EXECUTION="1"))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert cache_records() == executed, "the single-page build executed a chapter again"
    built = time.perf_counter()
    pdf = tmp_path / "book.pdf"
    book_pdf.print_pdf(ROOT / "_build" / "singlehtml" / "index.html", pdf)
    problems = book_pdf.check_pdf(pdf)
    assert not problems, "\n".join(problems)
    print(f"single page {built - started:.0f} s, printed and checked {time.perf_counter() - built:.0f} s, "
          f"{pdf.stat().st_size // 1024} KiB")
