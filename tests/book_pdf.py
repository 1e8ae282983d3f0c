"""The book as one PDF (``make pdf``), and the check that it opens and holds every chapter.

    python tests/book_pdf.py _build/singlehtml/index.html _build/pdf/book.pdf    # print, then check
    python tests/book_pdf.py --check _build/pdf/book.pdf                          # check only

Printing: headless Chromium (Debian's ``chromium``) loads the single-page HTML build of the book
(``jupyter-book build . --builder singlehtml``), waits for MathJax, and prints it with the book's print
styles (``book/assets/book.css``); networking is off (a dead proxy), as the site needs nothing from outside.

Checking (:func:`check_pdf`): pypdf opens the file, it has pages, and its text holds the title of every
chapter listed in ``_toc.yml`` (the first ``#`` heading of each chapter's source). Titles are compared as a
reader reads them (:func:`_fold`): ligatures and other compatibility forms folded (pypdf extracts "Diﬀerential" with
one ﬀ glyph), whitespace folded, since the PDF's text breaks lines where the page does.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def chapter_titles(root: Path = ROOT) -> dict[str, str]:
    """{file: title} for every chapter (notebook or page) of every part of ``_toc.yml``."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    titles = {}
    for part in toc.get("parts", []):
        for entry in part.get("chapters", []):
            file = entry.get("file") if isinstance(entry, dict) else None
            if not file:
                continue
            source = next((p for p in (root / f"{file}.py", root / f"{file}.md") if p.is_file()), None)
            if source is None:
                continue
            titles[file] = _plain(_first_heading(source))
    return titles


def _first_heading(source: Path) -> str:
    if source.suffix == ".py":
        import jupytext

        cells = [c.source for c in jupytext.read(source).cells if c.cell_type == "markdown"]
    else:
        cells = [re.sub(r"\A---\n.*?\n---\n", "", source.read_text(encoding="utf-8"), flags=re.S)]
    for cell in cells:
        match = re.search(r"^#\s+(?P<title>\S.*)$", cell, re.M)
        if match:
            return match.group("title")
    return ""


def _plain(title: str) -> str:
    """A heading's text without MyST markup: roles keep their text, math its content."""
    title = re.sub(r"\{[\w:]+\}`([^`<]*?)\s*(<[^>]*>)?`", r"\1", title)
    title = re.sub(r"`([^`]*)`", r"\1", title)
    title = title.replace("$", "").replace("*", "")
    return title.strip()


def _fold(text: str) -> str:
    """Text as a reader reads it: Unicode compatibility forms folded (NFKC: the ligatures ﬀ, ﬁ, ﬂ, ﬃ that PDF
    text extraction returns become ff, fi, fl, ffi; non-breaking spaces become spaces), soft hyphens and line breaks
    inside words removed, whitespace folded, lower case."""
    text = unicodedata.normalize("NFKC", text).replace("\u00ad", "")
    text = re.sub(r"-\s*\n\s*", "-", text)
    return re.sub(r"\s+", " ", text).strip().lower()


def check_pdf(pdf: Path, root: Path = ROOT) -> list[str]:
    """Problems with the PDF (empty if none): it opens, has pages, and holds every chapter title."""
    from pypdf import PdfReader

    reader = PdfReader(str(pdf))
    if not reader.pages:
        return [f"{pdf}: no pages"]
    text = _fold("\n".join(page.extract_text() or "" for page in reader.pages))
    text_nospace = text.replace(" ", "")
    missing = [f"{file}: {title!r}" for file, title in chapter_titles(root).items()
               if _fold(title) not in text and _fold(title).replace(" ", "") not in text_nospace]
    return [f"{pdf}: chapter title not found: {m}" for m in missing]


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    raise SystemExit("no Chromium found (Debian: apt-get install chromium)")


def printable_page(html: Path) -> Path:
    """The single page to print. Jupyter Book's ``index.html`` only redirects to the root page, here
    ``book/intro.html``, whose links are written relative to the build's top folder (``_static/…``,
    ``_images/…``): the page is copied there (``print.html``) so that its styles, MathJax and images load."""
    text = html.read_text(encoding="utf-8")
    redirect = re.search(r'http-equiv="Refresh" content="0; url=([^"]+)"', text)
    if redirect:
        html = html.parent / redirect.group(1)
        text = html.read_text(encoding="utf-8")
    root = next((p for p in [html.parent, *html.parents] if (p / "_static").is_dir()), html.parent)
    if html.parent == root:
        return html
    page = root / "print.html"
    page.write_text(text, encoding="utf-8")
    return page


def print_pdf(html: Path, pdf: Path, budget_ms: int = 60000) -> None:
    pdf.parent.mkdir(parents=True, exist_ok=True)
    html = printable_page(html)
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--proxy-server=127.0.0.1:9",
             f"--user-data-dir={profile}", f"--virtual-time-budget={budget_ms}", "--no-pdf-header-footer",
             "--run-all-compositor-stages-before-draw", f"--print-to-pdf={pdf}", html.resolve().as_uri()],
            check=True, timeout=600, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not pdf.is_file():
        raise SystemExit(f"Chromium wrote no PDF at {pdf}")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--check"]:
        pdf = Path(argv[1])
    else:
        html, pdf = Path(argv[0]), Path(argv[1])
        print_pdf(html, pdf)
    problems = check_pdf(pdf)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"{pdf}: opens, holds every chapter's title ({pdf.stat().st_size // 1024} KiB)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
