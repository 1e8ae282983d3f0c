"""Sphinx extension: small fixes to every rendered page.

- Each chapter's download menu offers its executed notebook (``notebooks/NN_name.ipynb``, the pair of
  the jupytext source) next to the ``.py`` source, so a reader can open the chapter as a live notebook.
- Inline scripts are not repeated: Sphinx 7.4 adds a body-only script registered during the read
  phase both as ``None`` and as ``''`` file name, so sphinx-thebe's ``const THEBE_JS_URL`` appeared
  twice on every page (a ``SyntaxError`` in the console).
- The theme starts in light mode instead of logging "invalid theme mode" on a reader's first visit.
- Pages that show a Plotly explorer (``accountbook.explorers.plotly_html``) load the shipped
  ``plotly/plotly.min.js``; other pages do not.
- The download menu's print button says what it does, "Print this page (PDF)" (the theme's ".pdf" printed the
  page only, which read like the book), and the menu links the whole book as one PDF, :data:`BOOK_PDF` at the top
  of the site, where ``make pdf`` puts it (the home page says how to build it where it is missing).
"""

from __future__ import annotations

import shutil
from pathlib import Path


def _script_key(script) -> tuple:
    filename = getattr(script, "filename", script) or ""
    attributes = getattr(script, "attributes", {}) or {}
    return (str(filename), tuple(sorted((k, str(v)) for k, v in attributes.items())))


def _shows_plotly(doctree) -> bool:
    from docutils import nodes

    return any("Plotly.newPlot" in node.astext() for node in doctree.findall(nodes.raw))


def _page_fixes(app, pagename, templatename, context, doctree):
    if not context.get("default_mode"):
        context["default_mode"] = "light"
    if doctree is not None and _shows_plotly(doctree):
        app.add_js_file("plotly/plotly.min.js", priority=450)
    scripts = context.get("script_files")
    if scripts:
        seen, unique = set(), []
        for script in scripts:
            key = _script_key(script)
            if key not in seen:
                seen.add(key)
                unique.append(script)
        scripts[:] = unique

    notebook = Path(app.srcdir) / f"{pagename}.ipynb"
    if doctree is not None and notebook.is_file() and context.get("page_source_suffix") != ".ipynb":
        target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(notebook, target)
        context["ipynb_source"] = f"{pagename}.ipynb"


#: the whole book as one PDF, relative to the top of the built site (``make pdf`` copies it there)
BOOK_PDF = "book.pdf"
PRINT_LABEL = "Print this page (PDF)"
BOOK_PDF_LABEL = "The whole book (PDF)"


def _download_menu(app, pagename, templatename, context, doctree):
    """After the theme has made its header buttons (priority 501): relabel its print button, link the book's PDF."""
    for group in context.get("header_buttons") or []:
        if group.get("label") != "download-buttons":
            continue
        buttons = group.get("buttons", [])
        for button in buttons:
            if button.get("label") == "download-pdf-button":
                button["text"] = PRINT_LABEL
                button["tooltip"] = "Print this page only, or save it as a PDF"
        if not any(b.get("label") == "download-book-pdf-button" for b in buttons):
            buttons.append({"type": "link", "url": context["pathto"](BOOK_PDF, 1), "text": BOOK_PDF_LABEL,
                            "tooltip": "Every page of the book in one PDF (written by make pdf)",
                            "icon": "fas fa-book", "label": "download-book-pdf-button"})


def setup(app):
    app.connect("html-page-context", _page_fixes, priority=400)
    app.connect("html-page-context", _download_menu, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
