"""No text refers to a chapter, or to one of its figures or exercises, by a number written into the text.

The book numbers its chapters in the order of ``_toc.yml`` (numbering runs on across the parts), and the ``NN_``
of the file names follows that order (``tests/book/test_notebooks.py`` checks it); but a chapter added or moved
renumbers everything after it. A reference written as "chapter 6", "chapters 3–4", "Figure 9.4" or
"Exercise 3.2" therefore names the wrong chapter sooner or later (and named the file's number, not the
chapter's, when this test was written). Refer to a chapter by its title instead: a ``{doc}`` link in MyST pages
and markdown cells (the rendered link shows the current title), the title in quotes or a description ("the
Edgeworth chapter") in docstrings, messages and the claims' texts that the ledger page shows; refer to a figure
by ``{numref}`` and its label.

The papers' own numbers ("Sieve paper §4", "the paper's Figure 2 left", "Proposition 4.1") are the papers'
and stay as they are; the pattern below does not match them (paper figures are not numbered ``N.M``).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# "chapter 6", "Chapters 3–4", "chapter\n# 6" (a jupytext markdown line break), "chapter \\\n    6" (a TOML
# line continuation), "ch. 6"; "Figure 9.4",
# "Fig. 9.4", "Exercise 3.2" (the book's figure and exercise numbers are chapter.position)
NUMBERED_REFERENCE = re.compile(r"\b(?:chapters?|ch\.)[\s#\\]*\d|\b(?:figures?|fig\.|exercises?)[\s#\\]*\d+\.\d+",
                                re.IGNORECASE)

# Where a number is right: an explanation of the numbering scheme itself, as (file, the text around the
# match) -> why. Empty: book/intro.md and book/teachers.md explain the scheme with "chapter $n$", which names
# no particular chapter. An entry must match a reference in its file (see the test), so it cannot outlive it.
ALLOWED: dict[tuple[str, str], str] = {}


def scanned_files() -> list[Path]:
    """Every reader- or user-visible source of text: the claims data (the ledger page shows their sources
    and reasons), the chapters' jupytext sources, the book's pages, the library's and the book package's
    modules (their docstrings are the API page, their messages what users read), and the README."""
    files = [ROOT / "book" / "accountbook" / "data" / "claims.toml", ROOT / "README.md"]
    files += sorted((ROOT / "notebooks").glob("*.py"))
    files += sorted((ROOT / "book").glob("*.md"))
    files += sorted((ROOT / "accountlib").rglob("*.py"))
    files += sorted((ROOT / "book" / "accountbook").rglob("*.py"))
    return files


def numbered_references(text: str) -> list[tuple[int, str]]:
    """(line, the text around it) for each reference by number in ``text``."""
    found = []
    for match in NUMBERED_REFERENCE.finditer(text):
        around = re.sub(r"\s+", " ", text[max(0, match.start() - 40):match.end() + 40])
        found.append((text.count("\n", 0, match.start()) + 1, around))
    return found


def _allowed(path: str, around: str) -> bool:
    return any(path == file and snippet in around for file, snippet in ALLOWED)


def test_the_pattern_finds_references_by_number_and_leaves_the_papers_numbers_alone():
    for text in ("derived here (chapter 6): for", "in chapters 3–4 (why", "Chapter 12, section", "the oscillation of "
                 "chapter\n# 1, and", "tabulated in ch. 1", "as Figure 9.4 shows", "see Exercise 3.2", "fig. 2.1",
                 "allocation files (chapter \\\n    5)"):
        assert numbered_references(text), text
    for text in ("Sieve paper §4 (the method)", "the sieve paper's Figure 2 left", "Figure 4(b)–(c)",
                 "Proposition 4.1 and Figure 4(a)", "Appendix D.3.2, Table 2", "in chapter $n$",
                 'the chapter "Edgeworth discrepancy"', "{doc}`the Edgeworth chapter <../notebooks/08_edgeworth>`",
                 "test_smallest_variances_chapter_6", "Derivations §6", "the figures of 12 chapters"):
        assert not numbered_references(text), text


def test_no_text_refers_to_a_chapter_by_number():
    bad = []
    for file in scanned_files():
        path = file.relative_to(ROOT).as_posix()
        for line, around in numbered_references(file.read_text(encoding="utf-8")):
            if not _allowed(path, around):
                bad.append(f"{path}:{line}: …{around}…")
    assert not bad, ("a chapter, figure or exercise referred to by a number written into the text (the book "
                     "numbers them in _toc.yml's order, and a chapter added or moved renumbers those after it); name the chapter by its title "
                     "or a {doc} link, the figure by {numref}:\n" + "\n".join(bad))


def test_every_allowed_reference_still_exists():
    texts = {path: (ROOT / path).read_text(encoding="utf-8") for path, _ in ALLOWED}
    stale = [f"{path}: {snippet!r}" for path, snippet in ALLOWED
             if not any(snippet in around for _, around in numbered_references(texts[path]))]
    assert not stale, "allowed references that no longer occur (remove them from ALLOWED):\n" + "\n".join(stale)
