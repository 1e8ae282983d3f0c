"""Sphinx extension: the library's docstrings, written for ``help()`` and doctest, rendered by autodoc and napoleon.

The docstrings of :mod:`accountlib` are numpy-style (``Parameters``, ``Attributes``, ``Returns`` sections) with
plain-text mathematics: ``|x|`` is an absolute value, not a reStructuredText substitution, and a field is written
``name : what it is`` on one line. Before napoleon reads a docstring (``autodoc-process-docstring``, priority 400)
this extension

* escapes the bars of absolute values and norms outside inline literals, roles and doctest lines;
* writes ``name : description`` fields of the numpy sections as ``name`` with the description below it (napoleon
  would read the description as the field's type and cross-reference it);

and after napoleon (priority 600) it restores an attribute's or a constant's own docstring, which napoleon would split
at its first colon into a type and a description. Cross-references (``:func:``, ``:class:``, ``:mod:``) are Sphinx's
own, so every one resolves to the entry of the object on the API page or the build fails (``-W -n``).
"""

from __future__ import annotations

import re

SECTIONS = ("Parameters", "Attributes", "Returns", "Yields", "Raises", "Other Parameters", "Keyword Arguments")
_LITERAL = re.compile(r"(``.*?``|:[a-z:]+:`[^`]*`|`[^`]*`)")
_FIELD = re.compile(r"^(\s*)(\*{0,2}[A-Za-z_][\w, ]*) : (.+)$")
_ORIGINAL: dict = {}


def _escape_bars(line: str) -> str:
    if line.lstrip().startswith((">>>", "...")):
        return line
    parts = _LITERAL.split(line)
    return "".join(part if i % 2 else part.replace("|", r"\|") for i, part in enumerate(parts))


_NAME = re.compile(r"^\*{0,2}[A-Za-z_][\w]*(, \*{0,2}[A-Za-z_][\w]*)*$")


def _fields_without_types(lines: list[str]) -> list[str]:
    """Inside the numpy sections, ``name : description`` becomes ``name`` with the description indented below it;
    an unindented paragraph after a section's fields (which napoleon would read as one more field) starts a "Notes"
    section, and a doctest there an "Examples" section."""
    out, in_section, underline = [], False, False
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped in SECTIONS + ("Notes", "Examples", "References", "See Also") and i + 1 < len(lines) \
                and set(lines[i + 1].strip()) == {"-"}:
            in_section, underline = stripped in SECTIONS, True
            out.append(line)
            continue
        if underline:
            underline = False
            out.append(line)
            continue
        field = _FIELD.match(line) if in_section else None
        if in_section and stripped and not line.startswith(" "):
            if field is None and not _NAME.match(stripped):  # prose or a doctest after the fields: the section ends
                title = "Examples" if stripped.startswith(">>>") else "Notes"
                if out and out[-1].strip():
                    out.append("")
                out += [title, "-" * len(title)]
                in_section = False
        if field and not line[len(field.group(1)):].startswith(" "):
            indent, name, text = field.groups()
            out += [f"{indent}{name}", f"{indent}    {text}"]
        else:
            out.append(line)
    return out


def _before_napoleon(app, what, name, obj, options, lines):
    escaped = [_escape_bars(line) for line in lines]
    if what in ("attribute", "data", "property"):
        _ORIGINAL[name] = list(escaped)
    lines[:] = _fields_without_types(escaped)


def _after_napoleon(app, what, name, obj, options, lines):
    if what in ("attribute", "data", "property") and name in _ORIGINAL:
        lines[:] = _ORIGINAL.pop(name)


def setup(app):
    app.connect("autodoc-process-docstring", _before_napoleon, priority=400)
    app.connect("autodoc-process-docstring", _after_napoleon, priority=600)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
