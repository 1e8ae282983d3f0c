"""Sphinx extension: a chapter's cached execution is used only while everything it reads is older than it.

The book executes its chapters through myst-nb's execution cache (``execute_notebooks: cache``), which keys a
chapter on its code cells alone. A chapter's outputs also depend on what its cells import and read: the library
(``accountlib``), the book's package (``book/accountbook``, with its data files) and the stored results
(``results/``: the DP-SGD runs, the census sweep's curves, the reproduction ledger). After any of those changes
(a ``git pull`` that brings new runs, an edit to the library) a cached execution would show the old numbers.

Before the build reads any chapter, this extension drops every cached execution created before the newest of
those files was last modified, and tells Sphinx that a chapter read before then is out of date (an incremental
build would otherwise not read it again), so such a chapter is executed again; ``make test``'s chapter runs refresh
the cache first, so the build that follows them reuses their executions.
"""

from __future__ import annotations

import datetime
from pathlib import Path

INPUTS = (("accountlib", "*.py"), ("book/accountbook", "*"), ("results/dhc", "*"), ("results/dpsgd", "*.json"))
"""What a chapter may import or read, as (folder under the book's root, file pattern searched recursively). The
reproduction ledger (``results/ledger.json``) is left out: chapters write it, none reads it."""


def newest_input(root: Path) -> datetime.datetime | None:
    """The last modification (UTC) of any file in :data:`INPUTS` under ``root``, or None where there is none."""
    times = [path.stat().st_mtime for folder, pattern in INPUTS for path in (root / folder).rglob(pattern)
             if path.is_file() and "__pycache__" not in path.parts]
    return datetime.datetime.fromtimestamp(max(times), datetime.timezone.utc) if times else None


def drop_stale_executions(cache_path: Path, newest: datetime.datetime) -> list[str]:
    """Remove the records of ``cache_path`` created before ``newest``; return their chapters' paths."""
    from jupyter_cache import get_cache

    cache = get_cache(str(cache_path))
    dropped = []
    for record in cache.list_cache_records():
        created = record.created if record.created.tzinfo else record.created.replace(tzinfo=datetime.timezone.utc)
        if created < newest:
            cache.remove_cache(record.pk)
            dropped.append(record.uri)
    return dropped


def _newest(app) -> datetime.datetime | None:
    if not hasattr(app, "_newest_chapter_input"):
        app._newest_chapter_input = newest_input(Path(app.srcdir))
    return app._newest_chapter_input


def _on_builder_inited(app) -> None:
    if app.config.nb_execution_mode != "cache":
        return
    cache_path = Path(app.config.nb_execution_cache_path or Path(app.srcdir) / "_build" / ".jupyter_cache")
    newest = _newest(app)
    if newest is None or not (cache_path / "global.db").is_file():
        return
    dropped = drop_stale_executions(cache_path, newest)
    if dropped:
        names = ", ".join(sorted({Path(uri).stem for uri in dropped}))
        print(f"[execution-freshness] executing again (the library, book package or results changed since): {names}")


def outdated_chapters(app, env, added, changed, removed) -> list[str]:
    """The chapters (notebooks) read before the newest input changed: Sphinx reads them again."""
    newest = _newest(app)
    if newest is None or app.config.nb_execution_mode not in ("cache", "force", "auto"):
        return []
    since = int(newest.timestamp() * 1_000_000)  # Sphinx records when it read a document in microseconds
    return [docname for docname, read in env.all_docs.items()
            if read < since and docname not in removed and Path(env.doc2path(docname)).suffix in (".py", ".ipynb")]


def setup(app):
    app.connect("builder-inited", _on_builder_inited, priority=400)
    app.connect("env-get-outdated", outdated_chapters)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
