"""Sphinx extension: each benchmark table says whether it measured the library code being built.

The directive ``{measured-code} ../benchmarks/results_engine.json`` (a results file written by a script in
``benchmarks/``) compares the hash of the library code that run measured (``machine.library_sha256``) with
``benchmarks/provenance.py``'s ``library_hash`` of the same modules (``provenance.MEASURED``) in the tree being
built. When they agree it prints one line saying the timings measured the current code; when they differ, a
warning-styled admonition saying the timings measured an earlier version, which files changed (when the results
file records per-file hashes, ``machine.library_files``; older ones record only the modules measured), and
which script to rerun. The page depends on the results file and on every measured source file, so an
incremental build re-reads it when either changes.

The role ``{benchmark}`KEY``` writes a value the page quotes from a results file (``accountbook.benchmarks.QUOTES``),
read at build time, never typed.

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

def _provenance(root: Path):
    path = Path(root) / "benchmarks" / "provenance.py"
    spec = importlib.util.spec_from_file_location("_benchmark_provenance", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _code_list(names, limit: int = 12) -> str:
    shown = ", ".join(f"`{name}`" for name in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _provenance_block(machine: dict, script: str, files: int, now: str, current: bool) -> list[str]:
    """The folded block: where, when, on what and on which code the benchmark ran."""
    limit = machine.get("load_limit") or 0.75 * (machine.get("cores") or 1)
    start, end = machine.get("load_average"), machine.get("load_average_end")
    load = (f"load average {start} at its start" + (f" and {end} at its end" if end is not None else "")
            + f" (the limit for {machine.get('cores')} cores is {limit:g})")
    commit = machine.get("commit") or {}
    commit_text = ("commit " + f"`{commit['id']}`" + (" with uncommitted changes" if commit.get("modified") else "")
                   if commit.get("id") else "commit not recorded")
    wall = machine.get("wall_seconds")
    lines = [
        "```{admonition} How and where these timings were measured",
        ":class: dropdown",
        f"`{script}` ran on {machine.get('date', 'an unrecorded date')} on {machine.get('cpu')} "
        f"({machine.get('cores')} cores visible, {machine.get('system')}, Python {machine.get('python')}), "
        f"{load}" + (f", in {wall:,.0f} s of wall time" if wall is not None else "") + f"; {commit_text}.",
        "",
        f"SHA-256 of the library code it ran (the measured modules and what they import, {files} files): "
        f"`{machine['library_sha256']}`" + (f"; these files hash to `{now}` in this build." if not current else "."),
        "",
    ]
    if current:
        lines.append(f"These timings measured the current library code: the modules `{script}` runs and what they "
                     f"import hash as when it ran.")
    lines += ["", "Refresh: `make benchmarks` (only what is stale; `FORCE=1` for all), or this one alone with "
              f"`make benchmarks BENCHMARKS={_short(script)} FORCE=1`.", "```"]
    return lines


def _short(script: str) -> str:
    names = {"bench_engine.py": "engine", "bench_sweep.py": "sweep", "bench_dpsgd_step.py": "dpsgd-step",
             "bench_dpsgd_batched.py": "dpsgd-batched", "bench_calibration.py": "calibration", "bench_pl94.py": "pl94",
             "bench_dpsgd_accounting.py": "dpsgd-accounting", "bench_composition.py": "composition"}
    return names.get(Path(script).name, Path(script).stem)


def measured_code_notice(results: Path, root: Path) -> tuple[bool, str, list[str]]:
    """(whether ``results`` measured the current code, the MyST text to show at its table, the source files
    the answer depends on).

    ``results`` is a benchmark's results file (``benchmarks/results_*.json``); ``root`` the repository whose
    library is compared. The text is a warning when the code changed since the run (shown), a note when the run
    started above the load limit (shown), and the run's provenance in a folded block. A results file that no
    benchmark in ``provenance.MEASURED`` writes is an error.
    """
    provenance = _provenance(root)
    results = Path(results)
    if results.name not in provenance.MEASURED:
        raise ValueError(f"{results.name} is not a results file of benchmarks/provenance.py's MEASURED")
    modules = provenance.MEASURED[results.name]
    script = f"benchmarks/{provenance.SCRIPTS[results.name]}"
    record = json.loads(results.read_text(encoding="utf-8"))
    machine = record["machine"]
    measured = machine["library_sha256"]
    now, files = provenance.snapshot(Path(root), modules)
    depends = [str(Path(root) / name) for name in files]
    current = measured == now
    lines = []
    if not current:
        lines += [
            "```{admonition} These timings measured an earlier version of the library",
            ":class: warning",
            f"The run of {machine.get('date', 'an unrecorded date')} measured library code that has changed since, "
            "so the timings below may not describe the code in this repository.",
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
        lines += ["", f"Rerun `{script}` (`make benchmarks`) to refresh this table.", "```", ""]
    limit = machine.get("load_limit") or 0.75 * (machine.get("cores") or 1)
    if (machine.get("load_average") or 0) > limit or record.get("quick") or machine.get("quick"):
        reason = ("it was a quick smoke run, not the full benchmark" if record.get("quick") or machine.get("quick") else
                  f"the load average was {machine.get('load_average')} when it started, above the limit {limit:g} "
                  f"for {machine.get('cores')} cores: other work shared the CPU, so absolute times are pessimistic "
                  "and only ratios within the run compare")
        lines += ["```{note}", f"This run is not a clean measurement: {reason}.", "```", ""]
    lines += _provenance_block(machine, script, len(files), now, current)
    return current, "\n".join(lines), depends


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


def _quotes(root: Path):
    """``accountbook.benchmarks`` of the tree at ``root`` (registered under a name of its own: its dataclass
    needs its module in ``sys.modules``)."""
    import sys

    path = Path(root) / "book" / "accountbook" / "benchmarks.py"
    name = f"_benchmark_quotes_{abs(hash(str(path.resolve())))}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def benchmark_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{benchmark}`KEY```: the value ``accountbook.benchmarks.quote(KEY)`` reads from its results file in the tree
    being built, as text (the page depends on that file, so an incremental build re-reads it)."""
    env = inliner.document.settings.env
    root = Path(env.config.benchmark_library_root or env.srcdir)
    quotes = _quotes(root)
    key = text.strip()
    try:
        value = quotes.quote(key, root / "benchmarks")
    except (KeyError, OSError, ValueError, IndexError, StopIteration, ZeroDivisionError) as error:
        message = inliner.reporter.error(f"benchmark {key}: {error}", line=lineno)
        problem = inliner.problematic(rawtext, rawtext, message)
        return [problem], [message]
    env.note_dependency(str(root / "benchmarks" / f"results_{quotes.QUOTES[key].results}.json"))
    return [nodes.inline(rawtext, value, classes=["benchmark-value"])], []


def setup(app):
    app.add_config_value("benchmark_library_root", "", "env", [str])
    app.add_directive("measured-code", MeasuredCode)
    app.add_role("benchmark", benchmark_role)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
