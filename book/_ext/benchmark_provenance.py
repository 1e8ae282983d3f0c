"""Sphinx extension: each benchmark table says whether it measured the library code being built.

The directive ``{measured-code} ../benchmarks/results_engine.json`` (a results file written by a script in
``benchmarks/``) compares the hash of the library code that run measured (``machine.library_sha256``) with
``benchmarks/provenance.py``'s ``library_hash`` of the same modules (``provenance.MEASURED``) in the tree being
built. When they agree it prints one line saying the timings measured the current code; when they differ, a
warning-styled admonition saying the timings measured an earlier version, which files changed (when the results
file records per-file hashes, ``machine.library_files``; older ones record only the modules measured), and
which script to rerun. The page depends on the results file and on every measured source file, so an
incremental build re-reads it when either changes.

Set ``benchmark_library_root`` (default: the source directory) to the repository whose ``accountlib`` and
``benchmarks/provenance.py`` are compared.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

_SHOWN = 16  # hex digits of a hash shown on the page (as benchmarks/provenance.py's describe() does)


def _provenance(root: Path):
    path = Path(root) / "benchmarks" / "provenance.py"
    spec = importlib.util.spec_from_file_location("_benchmark_provenance", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _code_list(names, limit: int = 12) -> str:
    shown = ", ".join(f"`{name}`" for name in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def measured_code_notice(results: Path, root: Path) -> tuple[bool, str, list[str]]:
    """(whether ``results`` measured the current code, the MyST text to show at its table, the source files
    the answer depends on).

    ``results`` is a benchmark's results file (``benchmarks/results_*.json``); ``root`` the repository whose
    library is compared. A results file that no benchmark in ``provenance.MEASURED`` writes is an error.
    """
    provenance = _provenance(root)
    results = Path(results)
    if results.name not in provenance.MEASURED:
        raise ValueError(f"{results.name} is not a results file of benchmarks/provenance.py's MEASURED")
    modules = provenance.MEASURED[results.name]
    script = f"benchmarks/{provenance.SCRIPTS[results.name]}"
    machine = json.loads(results.read_text(encoding="utf-8"))["machine"]
    measured = machine["library_sha256"]
    now, files = provenance.snapshot(Path(root), modules)
    depends = [str(Path(root) / name) for name in files]
    if measured == now:
        return True, (
            f"These timings measured the current library code: the modules `{script}` runs and what they import "
            f"({len(files)} files) hash to `{now[:_SHOWN]}…`, as when it ran ({machine.get('date', 'date not recorded')})."
        ), depends
    lines = [
        "```{admonition} These timings measured an earlier version of the library",
        ":class: warning",
        f"The run of {machine.get('date', 'an unrecorded date')} measured library code with hash "
        f"`{measured[:_SHOWN]}…`; the measured modules have changed since (they hash to `{now[:_SHOWN]}…` in this "
        "build), so the timings below may not describe the code in this repository.",
        "",
    ]
    recorded = machine.get("library_files")
    if isinstance(recorded, dict):
        diff = provenance.changed_files(recorded, files)
        parts = [f"{label} {_code_list(diff[key])}" for key, label in
                 (("changed", "changed:"), ("added", "now also measured:"), ("removed", "no longer measured:"))
                 if diff[key]]
        lines.append("Files " + "; ".join(parts) + "." if parts else
                     "No measured file differs, but their hash does: the hashing in `benchmarks/provenance.py` changed.")
    else:
        lines.append(f"This results file records no per-file hashes, so which files changed is not known; it measured "
                     f"{_code_list(list(modules))} and the modules {'it imports' if len(modules) == 1 else 'they import'} "
                     f"({len(files)} files now).")
    lines += ["", f"Rerun `{script}` (commands above) to refresh this table.", "```"]
    return False, "\n".join(lines), depends


class MeasuredCode(SphinxDirective):
    """``{measured-code} PATH``: the freshness notice of the benchmark results file at PATH (relative to the
    document, as for ``include``)."""

    required_arguments = 1
    has_content = False

    def run(self):
        relative, absolute = self.env.relfn2path(self.arguments[0], self.env.docname)
        root = Path(self.config.benchmark_library_root or self.env.srcdir)
        try:
            current, text, depends = measured_code_notice(Path(absolute), root)
        except (OSError, ValueError, KeyError) as error:
            raise self.error(f"measured-code {self.arguments[0]}: {error}") from error
        self.env.note_dependency(relative)
        for path in depends:
            self.env.note_dependency(path)
        container = nodes.container(classes=["measured-code", "current" if current else "stale"])
        self.state.nested_parse(StringList(text.splitlines(), source=relative), self.content_offset, container)
        return [container]


def setup(app):
    app.add_config_value("benchmark_library_root", "", "env", [str])
    app.add_directive("measured-code", MeasuredCode)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
