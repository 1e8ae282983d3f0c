"""Sphinx extension: render ``results/ledger.json`` as the book's reproduction-ledger page.

The chapters write their claims to the ledger while they execute (during
Sphinx's read phase), so the ledger page is read last and re-read on every
build. The table is appended to ``book/ledger.md`` as MyST markdown.
"""

from __future__ import annotations

import json
from pathlib import Path

LEDGER_DOC = "book/ledger"
_COLUMNS = ("id", "source", "paper", "ours", "tolerance", "verdict")


def _cell(value) -> str:
    text = "" if value is None else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def ledger_markdown(entries: list[dict]) -> str:
    if not entries:
        return "\n*No claims have been recorded yet.*\n"
    counts = {}
    for entry in entries:
        counts[entry["verdict"]] = counts.get(entry["verdict"], 0) + 1
    summary = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items()))
    lines = [
        "",
        f"**{len(entries)} claims: {summary}.**",
        "",
        "| " + " | ".join(_COLUMNS) + " | note |",
        "|" + "---|" * (len(_COLUMNS) + 1),
    ]
    for entry in entries:
        row = [_cell(entry.get(key)) for key in _COLUMNS] + [_cell(entry.get("note", ""))]
        row[0] = f"`{row[0]}`"
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


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
    return {"version": "1.0", "parallel_read_safe": False, "parallel_write_safe": True}
