"""Running a chapter over a parameter grid with papermill, on the generic executor, and tabulating what it glued.

Infrastructure layer of :mod:`accountlib` (no privacy knowledge): any jupytext chapter whose first code cell
is tagged ``parameters`` can be run once per parameter set; each run is one job of
:func:`accountlib.infrastructure.executor.run_jobs` and writes one executed notebook atomically (papermill
writes ``*.partial.ipynb``, renamed when the run succeeds, so a finished notebook is always whole and a
failed run leaves no finished notebook behind; a failed run also keeps what its kernel wrote to stderr in
``*.kernel.log``).

:func:`sweep_notebook` is the whole ``python -m accountlib sweep notebook`` job: it checks the parameter names
against the chapter's ``parameters`` cell, runs the Cartesian product of the grid (skipping finished runs),
then collects the values each run recorded with myst-nb's ``glue`` (:func:`glued_values`) into one CSV table.

Each run gets its own reproduction ledger (``ACCOUNTLIB_RESULTS`` is set in a cell injected before the
chapter's first cell), so a sweep never rewrites the book's ``results/ledger.json`` with values computed at
other parameters.
"""

from __future__ import annotations

import ast
import itertools
import json
import math
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from accountlib.infrastructure.atomic import write_csv_atomically
from accountlib.infrastructure.executor import SweepError, last_line, run_jobs, sweep_lock

__all__ = [
    "BATCH_EXECUTION",
    "batch_environment",
    "run_notebook_grid", "notebook_grid_targets", "sweep_notebook", "NotebookSweep", "notebook_parameters",
    "parse_value", "split_values", "grid_points", "glued_values", "find_chapter",
]

#: mime types under which values are glued: myst-nb ``glue`` (shown: plain, hidden: with this prefix)
GLUE_PREFIX = "application/papermill.record/"
#: the older scrapbook ``sb.glue`` format
SCRAPBOOK_MIME = "application/scrapbook.scrap.json+json"


# -- the grid -------------------------------------------------------------------------------------


def split_values(text: str) -> list[str]:
    """Split ``V1,V2,...`` at the commas outside brackets and quotes.

    >>> split_values("1,2.5,'a,b',[1, 2],(3,4)")
    ['1', '2.5', "'a,b'", '[1, 2]', '(3,4)']
    """
    items, current, depth, quote = [], [], 0, None
    for char in text:
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    items.append("".join(current).strip())
    return items


def _jsonable(value, name: str):
    """Tuples become lists (papermill passes only JSON-like values); anything else non-JSON is refused."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{name}: {value!r} is not a finite number")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, name) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _jsonable(v, name) for k, v in value.items()}
    raise ValueError(f"{name}: {type(value).__name__} values cannot be passed to a notebook (accepted: numbers, "
                     "strings, True/False/None, lists, tuples and dicts with string keys)")


def parse_value(text: str, name: str = "value"):
    """A parameter value: a Python literal when it reads as one (``3``, ``0.5``, ``True``, ``[1, 2]``), else the text.

    >>> parse_value("0.5"), parse_value("True"), parse_value("(13, 13)"), parse_value("digits")
    (0.5, True, [13, 13], 'digits')
    """
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text.strip()
    return _jsonable(value, name)


def grid_points(grid: dict[str, list]) -> list[dict]:
    """The Cartesian product of the grid, in the order given (the last name varies fastest).

    >>> grid_points({"a": [1, 2], "b": ["x", "y"]})
    [{'a': 1, 'b': 'x'}, {'a': 1, 'b': 'y'}, {'a': 2, 'b': 'x'}, {'a': 2, 'b': 'y'}]
    """
    names = list(grid)
    return [dict(zip(names, values)) for values in itertools.product(*(grid[n] for n in names))]


# -- chapters and their parameters ----------------------------------------------------------------


def book_root(start=None) -> Path | None:
    """The nearest folder at or above ``start`` (default: the working directory) holding ``_toc.yml``."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file():
            return folder
    return None


def find_chapter(chapter) -> Path:
    """A chapter given as a path (``notebooks/06_x.py`` or ``.ipynb``) or a stem (``06_x``, or its number ``06``,
    which is its chapter number).

    Stems are looked up in the ``notebooks/`` folder of the book around the working directory.
    """
    path = Path(chapter).expanduser()
    if path.is_file():
        if path.suffix not in (".py", ".ipynb"):
            raise ValueError(f"CHAPTER {chapter}: expected a jupytext .py or an .ipynb notebook")
        return path.resolve()
    if path.suffix in (".py", ".ipynb") or len(path.parts) > 1:
        raise ValueError(f"CHAPTER {chapter}: no such file")
    root = book_root()
    folder = root / "notebooks" if root else Path("notebooks")
    sources = sorted(folder.glob("*.py")) if folder.is_dir() else []
    stem = str(chapter)
    matches = [p for p in sources if p.stem == stem] or [p for p in sources if p.stem.split("_", 1)[0] == stem]
    if len(matches) == 1:
        return matches[0].resolve()
    known = ", ".join(p.stem for p in sources) or f"none (no chapters in {folder})"
    raise ValueError(f"CHAPTER {stem!r} is not a file nor a chapter of the book; chapters: {known}")


def _read_notebook(path: Path):
    import jupytext

    return jupytext.read(str(path))


def notebook_parameters(notebook) -> dict[str, str]:
    """The names assigned in the notebook's cell tagged ``parameters``, with the source of each default.

    ``notebook`` is a path (jupytext ``.py`` or ``.ipynb``) or an nbformat notebook. Raises ``ValueError`` if
    no code cell is tagged ``parameters``.
    """
    nb = _read_notebook(Path(notebook)) if isinstance(notebook, (str, os.PathLike)) else notebook
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.get("metadata", {}).get("tags", []):
            source = cell.source
            try:
                tree = ast.parse(source)
            except SyntaxError as error:
                raise ValueError(f"the parameters cell does not parse as Python ({error.msg})") from None
            found = {}
            for node in tree.body:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                    node, ast.AnnAssign) else []
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            found[name.id] = ast.get_source_segment(source, node.value) if node.value else ""
            return found
    raise ValueError("the notebook has no code cell tagged 'parameters' (papermill needs one)")


# -- running --------------------------------------------------------------------------------------


def _label(parameters: dict) -> str:
    label = "__".join(f"{k}={v}" for k, v in sorted(parameters.items()))
    return re.sub(r"[^A-Za-z0-9.=_-]+", "-", label).strip("-")


def notebook_grid_targets(notebook, grid: list[dict], out_dir) -> list[Path]:
    """Where each grid point's executed notebook goes: ``out_dir/<stem>__<k=v>...ipynb`` (in grid order)."""
    notebook, out_dir = Path(notebook), Path(out_dir)
    targets = [out_dir / f"{notebook.stem}__{_label(parameters)}.ipynb" for parameters in grid]
    if len(set(targets)) < len(targets):
        twice = next(t for t in targets if targets.count(t) > 1)
        raise ValueError(f"two grid points would share the file name {twice.name} (values that differ only in "
                         "punctuation or spaces); rename them")
    return targets


def _finished(target: Path, parameters: dict) -> bool:
    """A run is finished when its notebook exists, reads, and was executed with exactly these parameters."""
    import nbformat

    if not target.is_file():
        return False
    try:
        executed = nbformat.read(str(target), as_version=4)
    except Exception:  # noqa: BLE001 - an unreadable notebook is simply run again
        return False
    return executed.metadata.get("papermill", {}).get("parameters") == json.loads(json.dumps(parameters))


BATCH_EXECUTION = "ACCOUNTLIB_BATCH_EXECUTION"
"""Set to "1" in the environment of a chapter's kernel when nobody is there to use live widgets (the book build,
the test suite, sweeps): :func:`accountbook.explorers.live` then builds none, since executing
ipywidgets' interactive output without a frontend can deadlock the notebook client (jupyter/nbclient#312)."""


@contextmanager
def batch_environment(**extra: str):
    """Set :data:`BATCH_EXECUTION` (and ``extra`` variables) for kernels started inside the block; restore after."""
    wanted = {BATCH_EXECUTION: "1", **extra}
    saved = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run_notebook_grid(notebook, grid: list[dict], out_dir, *, fixed: dict | None = None, scheduler=None,
                      workers=None, progress=True, ledger_dir=None) -> list[str]:
    """Execute a jupytext chapter once per parameter set with papermill, on the generic executor.

    Each run gets ``grid[i]`` merged over ``fixed`` (parameters shared by every run, left out of the
    file name) and writes ``out_dir/<stem>__<k=v>...ipynb``; a run whose notebook exists and was executed
    with the same parameters is skipped (one with other parameters — ``fixed`` changed — is run again).
    Each run records its ledger entries under ``ledger_dir/<stem>__<k=v>.../ledger.json`` (default
    ``out_dir/ledgers``), never in the book's ledger. Returns the notebooks executed now; failures are
    raised together as :class:`~accountlib.infrastructure.executor.SweepError` after every run.
    """
    notebook, out_dir = Path(notebook).resolve(), Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    ledgers = Path(ledger_dir).resolve() if ledger_dir is not None else out_dir / "ledgers"
    jobs = []
    for parameters, target in zip(grid, notebook_grid_targets(notebook, grid, out_dir)):
        merged = {**(fixed or {}), **parameters}
        if not _finished(target, merged):
            jobs.append((str(notebook), str(target), merged, str(ledgers / target.stem)))
    return run_jobs(_execute_notebook, jobs, scheduler=scheduler, workers=workers, progress=progress)


def _kernel_manager_logging_to(log):
    """jupyter_client's ``AsyncKernelManager`` (nbclient's default), except that the kernel process writes its own
    stderr to the open file ``log`` instead of to this process's: a sweep's errors reach the terminal as one line
    each, with nothing a kernel prints mixed in (libzmq's ``Assertion failed: pfd.revents & POLLIN`` when a
    kernel's context is torn down under load, say), and a kernel that dies still leaves its reason on disk. The
    notebook's own output, errors included, is captured by papermill in the executed notebook as before."""
    from jupyter_client.manager import AsyncKernelManager

    class KernelManagerWithLog(AsyncKernelManager):
        async def _async_launch_kernel(self, kernel_cmd, **kw):
            kw["stderr"] = log
            return await super()._async_launch_kernel(kernel_cmd, **kw)

    return KernelManagerWithLog


def _execute_notebook(source: str, target: str, parameters: dict, ledger_dir: str | None = None) -> str:
    import jupytext
    import nbformat
    import papermill

    nb = jupytext.read(source)
    if ledger_dir is not None:  # first cell: this run's ledger (the kernel's environment, not this process's)
        setup = nbformat.v4.new_code_cell(f"__import__('os').environ['ACCOUNTLIB_RESULTS'] = {ledger_dir!r}")
        setup.metadata["tags"] = ["remove-cell", "sweep-environment"]
        nb.cells.insert(0, setup)
    partial_target = Path(target).with_suffix(".partial.ipynb")
    kernel_log = Path(target).with_suffix(".kernel.log")  # kept only when the run fails
    with batch_environment(), open(kernel_log, "wb") as log:  # the kernel inherits the environment; ours is restored
        papermill.execute_notebook(nb, str(partial_target), parameters=parameters, cwd=str(Path(source).parent),
                                   progress_bar=False, extra_arguments=["--log-level=CRITICAL"],  # no kernel chatter
                                   kernel_manager_class=_kernel_manager_logging_to(log))
    with open(partial_target, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(partial_target, target)
    kernel_log.unlink(missing_ok=True)
    return target


# -- what the runs glued --------------------------------------------------------------------------


_WRAPPED = re.compile(r"^[A-Za-z_][\w.]*\((.*)\)$", re.DOTALL)


def _as_text(plain: str) -> str | None:
    """A glued value's text/plain as one CSV cell, or None if it is not a scalar or a short literal.

    Strings lose their quotes; a number wrapped in its type (``np.float64(0.5)``, ``mpf('0.5')``,
    ``Decimal('0.5')``) is unwrapped; multi-line text (tables, arrays) is not a cell.
    """
    plain = plain.strip()
    if not plain or "\n" in plain or plain.startswith("<") and plain.endswith(">"):  # tables, <object ...> reprs
        return None
    for text in (plain, (_WRAPPED.match(plain) or [None, None])[1]):
        if text is None:
            continue
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, str):
            return value
        if text is plain or isinstance(value, (int, float)):
            return text.strip()
    return plain


def glued_values(notebook) -> tuple[dict[str, str], list[str]]:
    """The values an executed notebook glued, as ``({name: text}, [names skipped])``.

    Reads myst-nb ``glue(name, value, display=...)`` outputs — a display output whose metadata holds
    ``{"scrapbook": {"name": ...}}`` and whose data carries ``text/plain`` (shown) or
    ``application/papermill.record/text/plain`` (hidden) — and scrapbook's ``sb.glue`` JSON records.
    Scalars and one-line literals become text; figures, tables and other non-scalars are skipped and
    named in the second list. A name glued twice keeps its last value.
    """
    import nbformat

    nb = nbformat.read(str(notebook), as_version=4) if isinstance(notebook, (str, os.PathLike)) else notebook
    values, skipped = {}, []
    for cell in nb.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            scrap = output.get("metadata", {}).get("scrapbook")
            if not isinstance(scrap, dict) or "name" not in scrap:
                continue
            name, data = str(scrap["name"]), output.get("data", {})
            if SCRAPBOOK_MIME in data:
                payload = data[SCRAPBOOK_MIME].get("data")
                text = payload if isinstance(payload, str) else _as_text(json.dumps(payload))
            elif any(mime.removeprefix(GLUE_PREFIX).startswith(("image/", "video/", "audio/")) for mime in data):
                text = None  # a figure: its text/plain is only "<Figure ...>"
            else:
                plain = data.get(GLUE_PREFIX + "text/plain", data.get("text/plain"))
                text = _as_text("".join(plain) if isinstance(plain, list) else plain) if plain is not None else None
            if text is None:
                skipped.append(name)
                values.pop(name, None)
            else:
                values[name] = text
                if name in skipped:
                    skipped.remove(name)
    return values, skipped


def _earlier_runs(source: Path, out_dir: Path, current: set) -> list[tuple[Path, dict]]:
    """The finished runs of ``source`` in ``out_dir`` that are not points of the current grid (an earlier
    ``--grid``), each with its grid parameters as text (the names its file name carries, the values papermill
    recorded), in file-name order."""
    import nbformat

    found = []
    prefix = f"{source.stem}__"
    for target in sorted(out_dir.glob(f"{prefix}*.ipynb")):
        if target in current or target.name.endswith(".partial.ipynb"):
            continue
        try:
            parameters = nbformat.read(str(target), as_version=4).metadata.get("papermill", {}).get("parameters")
        except Exception:  # noqa: BLE001 - an unreadable notebook is no run
            continue
        if not isinstance(parameters, dict):
            continue
        named = [part.partition("=")[0] for part in target.stem[len(prefix):].split("__") if "=" in part]
        names = [n for n in named if n in parameters]
        if not names:
            continue
        found.append((target, {n: parameters[n] if isinstance(parameters[n], str) else repr(parameters[n])
                               for n in names}))
    return found


# -- the whole sweep ------------------------------------------------------------------------------


@dataclass
class NotebookSweep:
    """What :func:`sweep_notebook` did: the table, the runs in it, the new runs, what was skipped or failed."""

    table: Path
    rows: int
    executed: list[str]
    skipped_names: list[str] = field(default_factory=list)
    failures: list = field(default_factory=list)
    failure_message: str = ""


def sweep_notebook(chapter, grid: dict[str, list[str]], out_dir, *, fixed: dict[str, str] | None = None,
                   scheduler=None, workers=None, progress=True) -> NotebookSweep:
    """Run ``chapter`` at every point of ``grid``'s Cartesian product and tabulate what each run glued.

    ``grid`` maps a parameter name to its values and ``fixed`` a name to one value, all as text (read by
    :func:`parse_value`). Every name must be assigned in the chapter's ``parameters`` cell, else
    ``ValueError`` names the ones it accepts. Finished runs are skipped; failed runs do not stop the others
    and are retried by the next call. Writes ``out_dir/results.csv`` atomically: one row per finished run
    (grid order), columns = the grid's names, then every glued name (first seen first).
    """
    source = find_chapter(chapter)
    accepted = notebook_parameters(source)
    fixed = dict(fixed or {})
    if not grid:
        raise ValueError("--grid: give at least one NAME=V1,V2,... (a parameter of the chapter and its values)")
    for option, names in (("--grid", grid), ("--set", fixed)):
        unknown = [n for n in names if n not in accepted]
        if unknown:
            raise ValueError(f"{option} {unknown[0]}: {source.stem} has no parameter {unknown[0]!r}; its parameters "
                             f"cell sets {', '.join(accepted) or 'nothing'}")
    both = sorted(set(grid) & set(fixed))
    if both:
        raise ValueError(f"{both[0]} is given both in --grid and in --set; give it once")
    parsed = {n: [parse_value(v, f"--grid {n}") for v in values] for n, values in grid.items()}
    for name, values in parsed.items():
        if not values:
            raise ValueError(f"--grid {name}: no values (give NAME=V1,V2,...)")
        if len({json.dumps(v, sort_keys=True) for v in values}) < len(values):
            raise ValueError(f"--grid {name}: a value is repeated")
    fixed_values = {n: parse_value(v, f"--set {n}") for n, v in fixed.items()}
    shown = {n: {json.dumps(p, sort_keys=True): (p if isinstance(p, str) else t.strip()) for p, t in zip(parsed[n], grid[n])}
             for n in grid}
    points = grid_points(parsed)
    out_dir = Path(out_dir).expanduser().resolve()
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"--out {out_dir} exists and is not a folder")
    failures, message = [], ""
    with sweep_lock(out_dir):
        targets = notebook_grid_targets(source, points, out_dir)
        before = {t for p, t in zip(points, targets) if _finished(t, {**fixed_values, **p})}
        try:
            executed = run_notebook_grid(source, points, out_dir, fixed=fixed_values, scheduler=scheduler,
                                         workers=workers, progress=progress)
        except SweepError as error:
            if not error.failures:
                raise
            failures = error.failures
            shown_runs = "; ".join(
                f"{', '.join(f'{n}={args[2][n]!r}' for n in grid)}: {type(failure).__name__}: {last_line(failure)}"
                for args, failure in failures[:5])
            message = (f"{len(failures)} of {len(points)} runs of {source.stem} failed ({shown_runs}"
                       f"{f'; and {len(failures) - 5} more' if len(failures) > 5 else ''}); their notebooks are kept "
                       f"as *.partial.ipynb, and what their kernels wrote to stderr as *.kernel.log, in {out_dir}, "
                       "and the next run of this command retries them")
        columns, rows, skipped, executed = list(grid), [], [], []
        runs = []
        for parameters, target in zip(points, targets):
            if not _finished(target, {**fixed_values, **parameters}):
                continue
            if target not in before:
                executed.append(str(target))  # counted from the files: a failed neighbour does not hide it
            runs.append((target, {n: shown[n][json.dumps(parameters[n], sort_keys=True)] for n in grid}))
        # the runs of earlier grids in the same folder are kept in the table, not silently dropped
        for target, shown_parameters in _earlier_runs(source, out_dir, set(targets)):
            columns += [n for n in shown_parameters if n not in columns]
            runs.append((target, shown_parameters))
        for target, row in runs:
            values, lost = glued_values(target)
            skipped += [n for n in lost if n not in skipped]
            row = dict(row)
            for name, text in values.items():
                key = name if name not in grid else f"{name} (glued)"
                if key not in columns:
                    columns.append(key)
                row[key] = text
            rows.append(row)
        table = out_dir / "results.csv"
        write_csv_atomically(table, columns, [[row.get(c, "") for c in columns] for row in rows])
    return NotebookSweep(table, len(rows), executed, skipped, failures, message)
