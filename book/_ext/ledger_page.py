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


def ledger_markdown(entries: list[dict]) -> str:
    if not entries:
        return "\n*No claims have been recorded yet.*\n"
    counts = {}
    for entry in entries:
        counts[entry["verdict"]] = counts.get(entry["verdict"], 0) + 1
    summary = ", ".join(f"{counts[v]} {v}" for v in (*_ORDER, *sorted(set(counts) - set(_ORDER))) if v in counts)
    out = ["", f"**{len(entries)} claims: {summary}.**", ""]
    remaining = list(entries)
    groups = []
    for prefix, title in _GROUPS:
        groups.append((title, [e for e in remaining if e["id"].startswith(prefix)]))
        remaining = [e for e in remaining if not e["id"].startswith(prefix)]
    groups.append(("Other claims", remaining))
    first = True
    for title, members in groups:
        if not members:
            continue
        # a four-backtick fence: no text inside (HTML-escaped, no backtick runs of four) can close it
        out += [f"## {title}", "", "````{raw} html", (_STYLE if first else "") + _table(members).replace("````", "&#96;" * 4), "````", ""]
        first = False
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
