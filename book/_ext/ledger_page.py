"""Sphinx extension: render ``results/ledger.json`` as the book's reproduction-ledger page.

The chapters write their claims to the ledger while they execute (during
Sphinx's read phase), so the ledger page is read last and re-read on every
build. The page gets a summary and one table per paper, appended to
``book/ledger.md`` as raw HTML: a narrow table (claim, verdict, value, ours)
whose last column folds the source, quote, tolerance, reason and checks into a
``<details>`` element, so the verdict stays visible on a 1280-pixel screen.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

LEDGER_DOC = "book/ledger"
_SHORT = 110  # characters of the reason shown before the row is unfolded
_ORDER = ("fail", "explained", "not reproducible here", "pass")
_GROUPS = (
    ("sieve.", "Sieve-accelerated quadrature paper (2020 Census DHC)"),
    ("unifying.", "Unifying privacy accounting paper"),
)

_STYLE = """
<style>
table.ledger { table-layout: fixed; width: 100%; border-collapse: collapse; font-size: 0.85em; }
table.ledger th, table.ledger td { border-top: 1px solid #ddd; padding: 0.3em 0.4em; vertical-align: top;
  overflow-wrap: anywhere; word-break: break-word; }
table.ledger col.c-id { width: 20%; } table.ledger col.c-verdict { width: 14%; }
table.ledger td.v { overflow-wrap: normal; word-break: normal; }
table.ledger col.c-value { width: 14%; } table.ledger col.c-ours { width: 14%; }
table.ledger col.c-detail { width: 38%; }
table.ledger code { font-size: 0.95em; white-space: normal; }
table.ledger details summary { cursor: pointer; }
.verdict { font-weight: bold; }
.verdict-pass { color: #1a7f37; } .verdict-fail { color: #cf222e; }
.verdict-explained { color: #9a6700; } .verdict-not-reproducible-here { color: #57606a; }
</style>
"""


def _text(value) -> str:
    return "—" if value is None or value == "" else html.escape(str(value))


def _verdict(verdict: str) -> str:
    css = "verdict-" + verdict.replace(" ", "-")
    return f'<span class="verdict {css}">{html.escape(verdict)}</span>'


def _details(entry: dict) -> str:
    basis = entry.get("basis", "paper")
    parts = [f"<b>source</b> ({html.escape(basis)}): {_text(entry.get('source'))}"]
    if entry.get("quote"):
        parts.append(f"<b>quote</b>: “{_text(entry['quote'])}”")
    parts.append(f"<b>tolerance</b>: {_text(entry.get('tolerance'))}")
    if entry.get("tolerance_reason"):
        parts.append(f"<b>why this tolerance</b>: {_text(entry['tolerance_reason'])}")
    for check in entry.get("checks") or []:
        parts.append(
            f"<b>check</b>: {_text(check.get('claim'))}: expected {_text(check.get('expected'))}, "
            f"ours {_text(check.get('ours'))} ({_text(check.get('tolerance'))}) → {_verdict(check.get('verdict', ''))}"
        )
    if entry.get("note") and entry.get("verdict") != "explained":
        parts.append(f"<b>note</b>: {_text(entry['note'])}")
    reason = str(entry.get("reason") or "")
    if len(reason) > _SHORT:
        parts.insert(0, f"<b>reason</b>: {_text(reason)}")
        reason = reason[:_SHORT].rsplit(" ", 1)[0] + " …"
    return (f"<details><summary>{_text(reason)}</summary><p>" + "<br/>".join(parts) + "</p></details>")


def _table(entries: list[dict]) -> str:
    rows = [
        '<table class="ledger">',
        '<colgroup><col class="c-id"/><col class="c-verdict"/><col class="c-value"/><col class="c-ours"/>'
        '<col class="c-detail"/></colgroup>',
        "<thead><tr><th>claim</th><th>verdict</th><th>compared value</th><th>ours</th>"
        "<th>reason (click for source, quote, tolerance)</th></tr></thead><tbody>",
    ]
    for entry in entries:
        rows.append(
            f'<tr id="{html.escape(entry["id"], quote=True)}"><td><code>{_text(entry["id"])}</code></td>'
            f"<td class=\"v\">{_verdict(entry.get('verdict', ''))}</td><td>{_text(entry.get('paper'))}</td>"
            f"<td>{_text(entry.get('ours'))}</td><td>{_details(entry)}</td></tr>"
        )
    rows.append("</tbody></table>")
    return "\n".join(rows)


# where a claim sits in its paper: the first section, table, figure, appendix, ... its source names
_LOCATOR = re.compile(
    r"§\s?[0-9A-Z](?:[0-9.]*[0-9])?|\b(?:Appendix|Table|Figure|Fig\.|Lemma|Proposition|Prop\.|Theorem|Corollary|Example|"
    r"Algorithm|Section|Eq\.|Equation|Definition|Remark)\s+[0-9A-Z](?:[0-9.]*[0-9A-Z])?|\b[Aa]bstract\b")


def locator(source: str) -> str:
    """The first locator a claim's source names ("§5.3", "Appendix D.3.2", "Table 1", "Abstract"), or ""."""
    found = _LOCATOR.search(str(source or ""))
    return " ".join(found.group(0).split()).replace("Fig.", "Figure").replace("Prop.", "Proposition") if found else ""


def _sort_key(where: str):
    """Abstract first, then the body's sections in order (§, then Lemma/Proposition ... by number), then the
    appendices, each by its numbers."""
    numbers = [int(n) if n.isdigit() else ord(n) for n in re.findall(r"[0-9]+|[A-Z]", where.split(" ", 1)[-1])]
    rank = 0 if where.lower() == "abstract" else 2 if where.startswith("Appendix") else 1
    return (rank, numbers, where)


def claims_index(entries: list[dict]) -> str:
    """The claims index: per paper, each locator in the paper's order → the ledger entries it holds, linked to their
    rows, with their verdicts. Entries whose basis is not the paper are listed under their source's kind."""
    rows = ['<table class="ledger">', '<colgroup><col class="c-id"/><col style="width: 80%"/></colgroup>',
            "<thead><tr><th>where in the paper</th><th>ledger entries</th></tr></thead><tbody>"]
    for prefix, title in (*_GROUPS, ("", "Other claims")):
        members = [e for e in entries if e["id"].startswith(prefix)] if prefix else [
            e for e in entries if not any(e["id"].startswith(p) for p, _ in _GROUPS)]
        if not members:
            continue
        by_place: dict[str, list[dict]] = {}
        for entry in members:
            basis = entry.get("basis", "paper")
            where = locator(entry.get("source", "")) if basis == "paper" else basis
            by_place.setdefault(where or "(no locator)", []).append(entry)
        rows.append(f'<tr><td colspan="2"><b>{html.escape(title)}</b> ({len(members)} entries)</td></tr>')
        for where in sorted(by_place, key=_sort_key):
            links = ", ".join(
                f'<a href="#{html.escape(e["id"], quote=True)}"><code>{_text(e["id"])}</code></a> '
                f"{_verdict(e.get('verdict', ''))}" for e in by_place[where])
            rows.append(f"<tr><td>{_text(where)}</td><td>{links}</td></tr>")
    rows.append("</tbody></table>")
    return "\n".join(rows)


def _fails(entries: list[dict]) -> str:
    """Every failing entry first, with its reason in full: the fails are shown as prominently as the passes."""
    failing = [e for e in entries if e.get("verdict") == "fail"]
    if not failing:
        return "<p>No entry fails.</p>"
    items = [f'<li><a href="#{html.escape(e["id"], quote=True)}"><code>{_text(e["id"])}</code></a>: paper '
             f"{_text(e.get('paper'))}, ours {_text(e.get('ours'))}. {_text(e.get('reason'))}"
             + (f" <i>{_text(e['note'])}</i>" if e.get("note") else "")
             + f"<br/><small><b>what was compared</b>: {_text(e.get('source'))}</small></li>" for e in failing]
    return '<ul class="ledger-fails">' + "".join(items) + "</ul>"


def _raw(text: str) -> list[str]:
    # a four-backtick fence: no text inside (HTML-escaped, no backtick runs of four) can close it
    return ["````{raw} html", text.replace("````", "&#96;" * 4), "````", ""]


def ledger_markdown(entries: list[dict]) -> str:
    if not entries:
        return "\n*No claims have been recorded yet.*\n"
    counts = {}
    for entry in entries:
        counts[entry["verdict"]] = counts.get(entry["verdict"], 0) + 1
    summary = ", ".join(f"{counts[v]} {v}" for v in (*_ORDER, *sorted(set(counts) - set(_ORDER))) if v in counts)
    out = ["", f"**{len(entries)} claims: {summary}.**", ""]
    out += ["## The fails", "", "Each claim our computation contradicts, with the comparison that decided it "
            "(the full entry, with its source and quote, is in the tables below).", ""]
    out += _raw(_STYLE + _fails(entries))
    out += ["## Claims index", "", "Where each claim sits in its paper, in the paper's order, and the entries that "
            "record it (a click leads to the entry).", ""]
    out += _raw(claims_index(entries))
    remaining = list(entries)
    groups = []
    for prefix, title in _GROUPS:
        groups.append((title, [e for e in remaining if e["id"].startswith(prefix)]))
        remaining = [e for e in remaining if not e["id"].startswith(prefix)]
    groups.append(("Other claims", remaining))
    for title, members in groups:
        if not members:
            continue
        out += [f"## {title}", ""] + _raw(_table(members))
    return "\n".join(out) + "\n"


def _read_last(app, env, docnames):
    if LEDGER_DOC in docnames:
        docnames.remove(LEDGER_DOC)
        docnames.append(LEDGER_DOC)


def _always_outdated(app, env, added, changed, removed):
    return [LEDGER_DOC] if LEDGER_DOC in env.found_docs else []


def _inject_table(app, docname, source):
    if docname != LEDGER_DOC:
        return
    path = Path(app.srcdir) / "results" / "ledger.json"
    entries = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []
    source[0] += ledger_markdown(entries)


def setup(app):
    app.connect("env-before-read-docs", _read_last)
    app.connect("env-get-outdated", _always_outdated)
    app.connect("source-read", _inject_table)
    return {"version": "1.1", "parallel_read_safe": False, "parallel_write_safe": True}
