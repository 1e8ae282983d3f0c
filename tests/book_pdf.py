"""The book as one PDF (``make pdf``), and the check that it opens and holds every chapter.

    python tests/book_pdf.py _build/singlehtml/index.html _build/pdf/book.pdf    # print, then check
    python tests/book_pdf.py --check _build/pdf/book.pdf                          # check only

Printing: headless Chromium (Debian's ``chromium``) loads the single-page HTML build of the book
(``jupyter-book build . --builder singlehtml``), waits for MathJax, and prints it with the book's print
styles (``book/assets/book.css``); networking is off (a dead proxy), as the site needs nothing from outside.

Checking (:func:`check_pdf`): pypdf opens the file, it has pages, and its text holds every chapter listed in
``_toc.yml`` where the book prints it, in the book's order: a numbered chapter as its heading "N. Title" (N its
place in the numbered parts, the title the first ``#`` heading of its source; the line that starts the heading)
a second time after the contents list, which names every chapter already on the first pages, and each page of an unnumbered part by its title after the last
numbered chapter. So a PDF cut short, or missing a chapter's body, fails although its contents list is complete.
Titles are compared as a reader reads them (:func:`_fold`): ligatures and other compatibility forms folded (pypdf
extracts "Diﬀerential" with one ﬀ glyph), whitespace folded, since the PDF's text breaks lines where the page does.
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
    return {file: title for file, (title, _) in printed_chapters(root).items()}


def printed_chapters(root: Path = ROOT) -> dict[str, tuple[str, int | None]]:
    """{file: (title, chapter number or None)} for every chapter (notebook or page) of every part of ``_toc.yml``,
    in its order; the numbered parts number their chapters on across the parts, from 1, as the book prints them."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    chapters, number = {}, 0
    for part in toc.get("parts", []):
        for entry in part.get("chapters", []):
            file = entry.get("file") if isinstance(entry, dict) else None
            if not file:
                continue
            number += bool(part.get("numbered"))
            source = next((p for p in (root / f"{file}.py", root / f"{file}.md") if p.is_file()), None)
            if source is None:
                continue
            chapters[file] = (_plain(_first_heading(source)), number if part.get("numbered") else None)
    return chapters


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
    # Compared line by line without spaces (the extracted text drops or adds them where the page breaks a line). A
    # heading that wraps may come back with its lines apart, so a numbered chapter is found by the line that starts
    # its heading: "N." and the first three words of its title.
    lines = [_fold(line).replace(" ", "") for page in reader.pages for line in (page.extract_text() or "").splitlines()]
    text = "\n".join(lines)
    missing, body = [], 0  # body: where the last numbered chapter's heading was found
    for file, (title, number) in printed_chapters(root).items():
        if number is None:
            found = text.replace("\n", "").find(_fold(title).replace(" ", ""), body - text.count("\n", 0, body)) >= 0
        else:
            # the contents list and the chapter's heading: the last such line must be a second one, after the
            # heading of the chapter before
            start = _fold(f"{number}. " + " ".join(title.split()[:3])).replace(" ", "")
            places = [m.start() for m in re.finditer(r"(?m)^" + re.escape(start), text)]
            found = len(places) >= 2 and places[-1] > body
            body = places[-1] if found else body
        if not found:
            missing.append(f"{file}: {title!r}")
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
