"""Sphinx extension: the public and the instructor edition of the book, and the teachers' exercise table.

**Two editions from one source.** A solution whose class includes ``instructor-only`` (a ``{solution}``
directive or a gated ``{solution-start}`` … ``{solution-end}`` block, with the code cells between them)

- is kept, whole, in the *instructor edition*: ``BOOK_EDITION=instructor jupyter-book build …``
  (``make book-instructor``, into ``_build/instructor/``);
- is replaced in the *public edition* (the default, ``make book``) by a note, :data:`NOTE`, under the
  solution's title. The chapter's downloadable sources (``_sources/…/NN_name.py`` and ``.ipynb``) are
  rewritten the same way at the end of the build, so the public site holds the solution nowhere.

The code of a removed solution is still executed with its chapter (execution happens before the page is
parsed), so its ``assert`` statements check the solution in both editions. The removal is a
post-transform, applied when a page is written: the parsed pages and the execution cache are the same
for both editions, and both use the execution cache of the public build (``_build/.jupyter_cache``), so
``make book-instructor`` after ``make book`` re-executes nothing.

**The teachers' table.** The directive ``{exercise-catalogue}`` (used on ``book/teachers.md``) lists, per
chapter of ``_toc.yml``, every exercise with its number, title, difficulty and kind (from the label that
ends each exercise title, e.g. ``(★★, derive)``) and whether its solution is instructor-only, read from
the chapters' jupytext sources when the book is built.

The parsing functions (:func:`exercise_records`, :func:`strip_instructor_solutions`) are also used by
``tests/book/test_course_text.py``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

INSTRUCTOR_CLASS = "instructor-only"
NOTE = "The solution to this exercise is in the instructor edition."
EDITION_VARIABLE = "BOOK_EDITION"
KINDS = ("run", "code", "derive", "open")

# ``(★★, derive)`` at the end of an exercise title
TITLE_LABEL = re.compile(r"\((?P<stars>★{1,3}),\s*(?P<kind>[a-z]+)\)\s*$")

_OPEN_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|:{3,})(?P<info>.*)$")
_DIRECTIVE = re.compile(r"^\{(?P<name>[\w:-]+)\}\s*(?P<argument>.*)$")
_OPTION = re.compile(r"^\s*:(?P<key>[\w-]+):\s*(?P<value>.*)$")


def is_instructor_edition() -> bool:
    return os.environ.get(EDITION_VARIABLE, "public").strip().lower() == "instructor"


# ---------------------------------------------------------------------------------------------------
# Reading directives in MyST markdown (CommonMark fences: a fence closes on a line of the same character,
# at least as long, with nothing after it)
# ---------------------------------------------------------------------------------------------------

@dataclass
class Directive:
    name: str
    argument: str
    options: dict[str, str]
    start: int  # line index of the opening fence
    end: int  # line index of the closing fence (len(lines) if never closed)
    fence: str


def directives(lines: list[str]) -> list[Directive]:
    """The top-level directives (```` ```{name} argument ````) of a markdown text, with their options."""
    found, index = [], 0
    while index < len(lines):
        match = _OPEN_FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        fence, info = match.group("fence"), match.group("info").strip()
        end = _closing_fence(lines, index + 1, fence)
        directive = _DIRECTIVE.match(info)
        if directive:
            options = {}
            for line in lines[index + 1:end]:
                option = _OPTION.match(line)
                if not option:
                    break
                options[option.group("key")] = option.group("value").strip()
            found.append(Directive(directive.group("name"), directive.group("argument").strip(), options,
                                   index, end, fence))
        index = end + 1
    return found


def _closing_fence(lines: list[str], start: int, fence: str) -> int:
    closing = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
    for index in range(start, len(lines)):
        if closing.match(lines[index]):
            return index
    return len(lines)


def is_instructor_only(directive: Directive) -> bool:
    return INSTRUCTOR_CLASS in directive.options.get("class", "").split()


# ---------------------------------------------------------------------------------------------------
# The exercises of a chapter
# ---------------------------------------------------------------------------------------------------

@dataclass
class Exercise:
    label: str
    title: str
    stars: int | None  # None: the title has no (★…, kind) label
    kind: str | None
    instructor_only: bool


def exercise_records(markdown: str) -> list[Exercise]:
    """The exercises of a chapter's markdown (its markdown cells joined), in order."""
    found = directives(markdown.splitlines())
    instructor = {d.argument for d in found
                  if d.name in ("solution", "solution-start") and is_instructor_only(d)}
    records = []
    for directive in found:
        if directive.name not in ("exercise", "exercise-start"):
            continue
        label = directive.options.get("label", "")
        title = directive.argument
        match = TITLE_LABEL.search(title)
        records.append(Exercise(label, title, len(match.group("stars")) if match else None,
                                match.group("kind") if match else None, label in instructor))
    return records


def chapter_markdown(path: Path) -> str:
    """The markdown cells of a jupytext chapter source, joined by blank lines."""
    import jupytext

    notebook = jupytext.read(path)
    return "\n\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")


def toc_chapter_files(root: Path, toc: dict) -> list[tuple[str, list[str]]]:
    """[(part caption, [file, ...]), ...] of the notebook chapters of a ``_toc.yml`` (loaded), in order."""
    parts = toc.get("parts") or [{"caption": "", "chapters": toc.get("chapters", [])}]
    out = []
    for part in parts:
        files = [entry["file"] for entry in part.get("chapters", [])
                 if isinstance(entry, dict) and str(entry.get("file", "")).startswith("notebooks/")]
        out.append((part.get("caption", ""), files))
    return out


# ---------------------------------------------------------------------------------------------------
# Removing instructor-only solutions from a notebook's cells (the public edition's downloadable sources)
# ---------------------------------------------------------------------------------------------------

def strip_instructor_solutions(cells: list[tuple[str, str]],
                               removed: list[str] | None = None) -> list[tuple[int | None, str, str]]:
    """``[(cell_type, source), ...]`` with every instructor-only solution replaced by :data:`NOTE`.

    A ``{solution}`` directive is replaced where it stands; a gated ``{solution-start}`` … ``{solution-end}``
    block is removed with everything between (code cells too). Markdown cells left empty are dropped.
    Returns ``[(index of the original cell, or None where its source changed, cell_type, source), ...]``;
    the lines removed (markdown and code) are appended to ``removed`` when it is given.
    """
    removed = [] if removed is None else removed
    note = f"*{NOTE}*"
    out: list[tuple[int | None, str, str]] = []
    in_gated = False
    for index, (cell_type, source) in enumerate(cells):
        if cell_type != "markdown":
            if not in_gated:
                out.append((index, cell_type, source))
            else:
                removed.extend(source.splitlines())
            continue
        lines = source.splitlines()
        kept: list[str] = []
        position, changed, was_gated = 0, False, in_gated
        for directive in directives(lines):
            if in_gated:
                if directive.name == "solution-end":
                    in_gated = False
                    removed.extend(lines[position:directive.start])
                    position = directive.end + 1
                continue
            if directive.name in ("solution", "solution-start") and is_instructor_only(directive):
                kept.extend(lines[position:directive.start])
                kept.append(note)
                removed.extend(lines[directive.start:directive.end + 1])
                position, changed = directive.end + 1, True
                in_gated = directive.name == "solution-start"
        if not in_gated:
            kept.extend(lines[position:])
        else:
            removed.extend(lines[position:])
        if not (changed or was_gated):
            out.append((index, cell_type, source))
            continue
        text = "\n".join(kept).strip("\n")
        if text.strip():
            out.append((None, cell_type, text))
    return out


def _strip_notebook(notebook):
    import nbformat

    cells = list(notebook.cells)
    stripped = strip_instructor_solutions([(cell.cell_type, cell.source) for cell in cells])
    notebook.cells = [cells[index] if index is not None else nbformat.v4.new_markdown_cell(source)
                      for index, _, source in stripped]
    return notebook


def strip_notebook_file(path: Path) -> bool:
    """Rewrite a ``.py`` (jupytext) or ``.ipynb`` source without its instructor-only solutions."""
    import jupytext

    text = path.read_text(encoding="utf-8")
    if INSTRUCTOR_CLASS not in text:
        return False
    if path.suffix == ".ipynb":
        import nbformat

        notebook = nbformat.reads(text, as_version=4)
        nbformat.write(_strip_notebook(notebook), path)
    else:
        notebook = jupytext.reads(text, fmt="py:percent")
        path.write_text(jupytext.writes(_strip_notebook(notebook), fmt="py:percent"), encoding="utf-8")
    return True


# ---------------------------------------------------------------------------------------------------
# Sphinx
# ---------------------------------------------------------------------------------------------------

def _hide_solutions_transform():
    from docutils import nodes
    from sphinx.transforms.post_transforms import SphinxPostTransform
    from sphinx_exercise.nodes import solution_node

    class HideInstructorSolutions(SphinxPostTransform):
        """In the public edition, an instructor-only solution keeps its title and shows :data:`NOTE`."""

        default_priority = 30  # after sphinx-exercise has resolved the solutions' titles (21, 22)

        def run(self, **kwargs):
            if self.config.instructor_edition:
                return
            for node in list(self.document.findall(solution_node)):
                if INSTRUCTOR_CLASS not in node.get("classes", []):
                    continue
                title = node.children[0] if node.children and isinstance(node.children[0], nodes.title) else None
                node.children = []
                if title is not None:
                    node += title
                node += nodes.paragraph("", "", nodes.emphasis(text=NOTE))
                node["classes"] = [c for c in node["classes"] if c not in ("dropdown", INSTRUCTOR_CLASS)]
                node["classes"].append("instructor-solution-removed")

    return HideInstructorSolutions


def _strip_sources(app, exception):
    if exception is not None or app.config.instructor_edition or app.builder.format != "html":
        return
    sources = Path(app.outdir) / "_sources"
    if not sources.is_dir():
        return
    for path in list(sources.rglob("*.py")) + list(sources.rglob("*.ipynb")):
        strip_notebook_file(path)


def _shared_cache(app, config):
    # both editions use the public build's execution cache (<book>/_build/.jupyter_cache)
    if not config.nb_execution_cache_path:
        config.nb_execution_cache_path = str(Path(app.srcdir) / "_build" / ".jupyter_cache")


def _catalogue_directive():
    import yaml
    from sphinx.util.docutils import SphinxDirective

    class ExerciseCatalogue(SphinxDirective):
        """Per chapter of the TOC: its exercises by number, kind, difficulty and solution edition."""

        has_content = False

        def run(self):
            root = Path(self.env.srcdir)
            toc_path = root / "_toc.yml"
            self.env.note_dependency(str(toc_path))
            toc = yaml.safe_load(toc_path.read_text(encoding="utf-8"))
            text = []
            for caption, files in toc_chapter_files(root, toc):
                for file in files:
                    path = next((p for p in (root / f"{file}.py", root / f"{file}.md") if p.is_file()), None)
                    if path is None:
                        continue
                    self.env.note_dependency(str(path))
                    records = [r for r in exercise_records(chapter_markdown(path)) if r.label]
                    text += _chapter_table(file, caption, records)
            return self.parse_text_to_nodes("\n".join(text))

    return ExerciseCatalogue


def _chapter_table(file: str, caption: str, records: list[Exercise]) -> list[str]:
    counts = {kind: sum(r.kind == kind for r in records) for kind in KINDS}
    instructor = sum(r.instructor_only for r in records)
    summary = ", ".join(f"{counts[kind]} {kind}" for kind in KINDS)
    lines = [f"**{{doc}}`/{file}`** ({caption}): {len(records)} exercises — {summary}; "
             f"{instructor} with the solution in the instructor edition only.", "",
             "| exercise | title | difficulty | kind | solution |", "|---|---|---|---|---|"]
    for record in records:
        title = TITLE_LABEL.sub("", record.title).strip().replace("|", "\\|")
        stars = "★" * record.stars if record.stars else "—"
        where = "instructor edition" if record.instructor_only else "public"
        lines.append(f"| {{numref}}`{record.label}` | {title} | {stars} | {record.kind or '—'} | {where} |")
    return lines + [""]


def _singlehtml_handlers(app):
    """The single-page build (``make pdf``) renders every node the HTML build does.

    Sphinx looks up a node's visitors under the builder's name before its format, and some extension
    registers visitors under ``singlehtml``, so the ``html`` visitors of the others (sphinx-jupyterbook-latex's
    ``HiddenCellNode``) went unused there and the build failed on an unknown node."""
    if app.builder.name != "singlehtml":
        return
    handlers = app.registry.translation_handlers
    single = handlers.setdefault("singlehtml", {})
    for node, visitors in handlers.get("html", {}).items():
        single.setdefault(node, visitors)


def setup(app):
    app.add_config_value("instructor_edition", is_instructor_edition(), "env", [bool])
    app.connect("config-inited", _shared_cache)
    app.connect("builder-inited", _singlehtml_handlers)
    app.add_post_transform(_hide_solutions_transform())
    app.add_directive("exercise-catalogue", _catalogue_directive())
    app.connect("build-finished", _strip_sources)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
