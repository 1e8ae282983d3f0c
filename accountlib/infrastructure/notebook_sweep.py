"""Running a chapter over a parameter grid with papermill, on the generic executor.

Infrastructure layer of :mod:`accountlib`: any jupytext chapter whose first code cell is tagged
``parameters`` can be run once per parameter set; each run is one job of
:func:`accountlib.infrastructure.executor.run_jobs` and writes one executed notebook atomically.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .executor import run_jobs

__all__ = ["run_notebook_grid"]


def run_notebook_grid(notebook, grid: list[dict], out_dir, *, fixed: dict | None = None, scheduler=None,
                      workers=None, progress=True) -> list[str]:
    """Execute a jupytext chapter once per parameter set with papermill, on the same executor.

    Each run gets ``grid[i]`` merged over ``fixed`` (parameters shared by every run, left out of the
    file name) and writes ``out_dir/<stem>__<k=v>...ipynb``; runs whose output exists are skipped.
    """
    notebook, out_dir = Path(notebook).resolve(), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = []
    for parameters in grid:
        label = "__".join(f"{k}={v}" for k, v in sorted(parameters.items()))
        label = re.sub(r"[^A-Za-z0-9.=_-]+", "-", label).strip("-")
        target = out_dir / f"{notebook.stem}__{label}.ipynb"
        if not target.is_file():
            jobs.append((str(notebook), str(target), {**(fixed or {}), **parameters}))
    return run_jobs(_execute_notebook, jobs, scheduler=scheduler, workers=workers, progress=progress)


def _execute_notebook(source: str, target: str, parameters: dict) -> str:
    import jupytext
    import papermill

    partial_target = Path(target).with_suffix(".partial.ipynb")
    papermill.execute_notebook(jupytext.read(source), str(partial_target), parameters=parameters,
                               cwd=str(Path(source).parent), progress_bar=False)
    os.replace(partial_target, target)
    return target
