"""Build the whole book with warnings as errors, and check it is self-contained."""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


class _ExternalLoads(HTMLParser):
    """Collects every resource a page would *load* (scripts, styles, images, frames) from outside."""

    def __init__(self):
        super().__init__()
        self.external = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        url = None
        if tag in ("script", "img", "iframe", "source", "audio", "video"):
            url = attrs.get("src")
        elif tag == "link" and attrs.get("rel") in ("stylesheet", "preload", "icon", "modulepreload"):
            url = attrs.get("href")
        if url and re.match(r"^(https?:)?//", url):
            self.external.append((tag, url))


@pytest.mark.book
def test_book_builds_without_warnings_and_loads_nothing_from_outside(built_book):
    html = built_book  # the run's one build (tests/conftest.py); the fixture fails on any warning or error
    pages = list(html.rglob("*.html"))
    assert (html / "index.html").is_file() and (html / "book" / "ledger.html").is_file()
    for page in pages:
        parser = _ExternalLoads()
        parser.feed(page.read_text(encoding="utf-8"))
        assert not parser.external, f"{page.relative_to(html)} loads {parser.external}"
    # math renders from the shipped MathJax
    assert (html / "_static" / "mathjax" / "tex-mml-chtml.js").is_file()
    chapter = (html / "notebooks" / "03_discrete_gaussian.html").read_text(encoding="utf-8")
    assert "_static/mathjax/tex-mml-chtml.js" in chapter
    assert chapter.count("<img") >= 4  # the chapter's figures
    ledger = (html / "book" / "ledger.html").read_text(encoding="utf-8")
    assert "sieve.A1.lambda4.sigma2=1" in ledger
    benchmarks = (html / "book" / "benchmarks.html").read_text(encoding="utf-8")
    assert "Speed-up of accountlib" in benchmarks and "dp_accounting" in benchmarks
    assert "The full DHC sweep" in benchmarks and "<h1>Performance" in benchmarks
    assert benchmarks.count("<figcaption") >= 2 and benchmarks.count(".svg") >= 2
