"""The glossary (``book/glossary.md``) is in strict alphabetical order, by the rule its opening paragraph states.

The rule: entries are compared letter by letter, ignoring case, spaces, hyphens, slashes, underscores,
parentheses and other punctuation; accented letters count as unaccented (Bézout as Bezout, Rényi as Renyi);
Greek letters count as their English names (δ and Δ as "delta", ε as "epsilon", Γ as "gamma", μ as "mu", ρ as
"rho"); digits come before letters. :func:`sort_key` is that rule. The page also shows no raw role text (the
``{term}`` syntax belongs in CONTRIBUTING.md, not on the reader's page), and every term a chapter links with
``{term}`` has an entry.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import jupytext
import yaml

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "book" / "glossary.md"

GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "Γ": "gamma", "δ": "delta", "Δ": "delta", "ε": "epsilon",
         "κ": "kappa", "λ": "lambda", "μ": "mu", "ρ": "rho", "σ": "sigma", "τ": "tau", "φ": "phi", "ℓ": "l"}


def sort_key(term: str) -> str:
    """The glossary's sort key of a term (see the module docstring)."""
    spelled = "".join(GREEK.get(ch, ch) for ch in term)
    plain = unicodedata.normalize("NFKD", spelled).encode("ascii", "ignore").decode("ascii")
    unknown = [ch for ch in spelled if unicodedata.category(ch).startswith("L") and not ch.isascii()
               and not unicodedata.normalize("NFKD", ch).encode("ascii", "ignore")]  # a letter the rule does not name
    assert not unknown, f"{term!r}: add {unknown} to GREEK (the rule must say how it sorts)"
    return "".join(ch for ch in plain.casefold() if ch.isalnum())


def glossary_block(text: str) -> list[str]:
    """The lines inside the ```{glossary} directive."""
    match = re.search(r"^```\{glossary\}[^\n]*\n(?P<body>.*?)^```\s*$", text, re.M | re.S)
    assert match, "book/glossary.md has no ```{glossary} block"
    return match.group("body").splitlines()


def glossary_terms(text: str | None = None) -> list[str]:
    """The terms of the glossary, in the order they appear (lines at indentation 0 inside the block)."""
    lines = glossary_block(GLOSSARY.read_text(encoding="utf-8") if text is None else text)
    return [line.strip() for line in lines if line.strip() and not line[0].isspace() and not line.startswith(":")]


def out_of_order(terms: list[str]) -> list[tuple[str, str]]:
    """Neighbouring entries (a, b) with a after b by :func:`sort_key` (or equal keys)."""
    return [(a, b) for a, b in zip(terms, terms[1:]) if sort_key(a) >= sort_key(b)]


# --- the rule itself can fail -----------------------------------------------------------------------------

def test_sort_key_follows_the_stated_rule():
    assert sort_key("(ε, δ)-DP") == "epsilondeltadp"
    assert sort_key("Bézout's identity") == "bezoutsidentity"
    assert sort_key("Γ gap") == sort_key("gamma gap")
    assert sort_key("μ-GDP") == "mugdp" and sort_key("ΔMSE") == "deltamse"
    assert sort_key("M0") < sort_key("marginal query")  # digits before letters
    assert sort_key("privacy-loss budget") < sort_key("privacy profile")  # letter by letter
    assert out_of_order(["zCDP", "aliasing"]) == [("zCDP", "aliasing")]
    text = "intro\n\n```{glossary}\nb\n  def of b\n\na\n  def of a\n```\n"
    assert glossary_terms(text) == ["b", "a"] and out_of_order(glossary_terms(text)) == [("b", "a")]


# --- the glossary -----------------------------------------------------------------------------------------

def test_glossary_is_alphabetical():
    terms = glossary_terms()
    assert len(terms) > 50
    wrong = out_of_order(terms)
    assert not wrong, "out of alphabetical order (book/glossary.md, rule in tests/book/test_glossary.py): " + \
        "; ".join(f"{a!r} before {b!r}" for a, b in wrong)


def test_glossary_states_its_order_and_shows_no_role_syntax():
    text = GLOSSARY.read_text(encoding="utf-8")
    intro = text.split("```{glossary}")[0]
    assert "letter by letter" in intro and "Greek letters" in intro
    # a role written as code (`` {term}`...` ``) renders as raw role text on the reader's page
    assert not re.search(r"``\s*\{\w+(:\w+)?\}`", text), "raw role syntax shown on the glossary page"


def _chapter_sources():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = re.findall(r"file: (\S+)", yaml.safe_dump(toc))
    for name in files:
        path = ROOT / name
        if path.with_suffix(".py").is_file() and name.startswith("notebooks/"):
            notebook = jupytext.read(path.with_suffix(".py"))
            yield name, "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
        elif path.with_suffix(".md").is_file():
            yield name, path.with_suffix(".md").read_text(encoding="utf-8")


def test_every_linked_term_has_an_entry():
    entries = {term.casefold() for term in glossary_terms()}
    missing = set()
    for name, text in _chapter_sources():
        for match in re.finditer(r"\{term\}`([^`]*)`", text):
            target = match.group(1)
            target = re.search(r"<([^>]*)>\s*$", target).group(1) if "<" in target else target
            if target.strip().casefold() not in entries and "..." not in target:
                missing.add((name, target.strip()))
    assert not missing, f"terms linked without a glossary entry: {sorted(missing)}"
