"""Sphinx extension: the book's API reference page (``book/api``), generated from the library itself.

For each name ``accountlib.__all__`` re-exports — the front door — the page shows its signature, the module that
defines it and its docstring, verbatim in a preformatted block (docstrings are written for ``help()`` and
doctest, not as reStructuredText, so they are not parsed: no markup can break the ``-W`` build). Every function
and class of the front door carries a runnable example (``>>>``): the doctests run in ``make test``, and
``tests/library/test_front_door.py`` checks that each has one.
"""

from __future__ import annotations

import html
import importlib
import inspect

API_DOC = "book/api"


def _signature(obj) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return ""


def _constant_doc(module_name: str, name: str) -> str:
    """The string literal right after ``name = ...`` in its module's source (an attribute docstring), if any."""
    import ast

    module = importlib.import_module(module_name)
    tree = ast.parse(inspect.getsource(module))
    for node, after in zip(tree.body, tree.body[1:]):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets) \
                and isinstance(after, ast.Expr) and isinstance(getattr(after, "value", None), ast.Constant):
            return inspect.cleandoc(str(after.value.value))
    return ""


#: where each re-exported constant is defined (constants carry no __module__)
CONSTANTS = {"MAX_EPSILON": "accountlib.theory.composition"}


def api_html() -> str:
    accountlib = importlib.import_module("accountlib")
    parts, shown = [], {}
    for name in accountlib.__all__:
        obj = getattr(accountlib, name)
        if inspect.isclass(obj) and id(obj) in shown:  # a second front-door name for a class already shown
            first = shown[id(obj)]
            parts.append(f"<section class='api-entry' id='api-{html.escape(name)}'><h3><code>{html.escape(name)}"
                         f"</code></h3><p>The same class as <a href='#api-{html.escape(first)}'><code>"
                         f"{html.escape(first)}</code></a>, under the name the library uses inside.</p></section>")
            continue
        if inspect.isclass(obj):
            shown[id(obj)] = name
        kind = "class" if inspect.isclass(obj) else "function" if callable(obj) else "constant"
        module = getattr(obj, "__module__", None) if kind != "constant" else None
        if kind == "constant":
            module = CONSTANTS.get(name)
            doc, title = _constant_doc(module, name) if module else "", f"{name} = {obj!r}"
        else:
            doc = inspect.getdoc(obj) or ""
            title = f"{name}{_signature(obj)}"
        where = f"<span class='api-where'>{html.escape(kind)} · {html.escape(module or 'accountlib')}</span>"
        parts.append(f"<section class='api-entry' id='api-{html.escape(name)}'><h3><code>{html.escape(title)}</code>"
                     f"</h3>{where}<pre class='api-doc'>{html.escape(doc)}</pre></section>")
    style = ("<style>.api-entry h3{font-size:1.0em;margin:1.4em 0 0.2em 0;overflow-wrap:anywhere}"
             ".api-where{color:#555;font-size:0.85em}.api-doc{white-space:pre-wrap;font-size:0.82em}</style>")
    index = ", ".join(f"<a href='#api-{html.escape(n)}'><code>{html.escape(n)}</code></a>" for n in accountlib.__all__)
    note = ("<p>Each example runs as a doctest in the module that defines the name, so inside it names appear "
            "unqualified (<code>Composition</code>); from the front door they are <code>accountlib.Composition</code> "
            "and so on. Docstrings are shown as written, for <code>help()</code>.</p>")
    return style + note + f"<p>{index}</p>" + "".join(parts)


def _inject(app, docname, source):
    if docname == API_DOC:
        source[0] += "\n````{raw} html\n" + api_html().replace("````", "&#96;" * 4) + "\n````\n"


def setup(app):
    app.connect("source-read", _inject)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
