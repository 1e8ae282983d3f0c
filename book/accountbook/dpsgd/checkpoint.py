"""The state of runs being trained together, saved as they go so that a stopped sweep resumes mid-run.

A run of the sweep takes up to an hour of CPU time; without a checkpoint a sweep stopped (a session's end, a
machine taken back) loses every unfinished run. :func:`accountbook.dpsgd.train_runs_together` writes, after each
evaluation, everything its next step depends on: the step, the position in the sampler's epoch, the models'
parameters, the sampling and noise generators' states, the histories so far and the CPU seconds spent. Resumed,
the runs take exactly the steps they would have taken uninterrupted (the same parameters and generator states, so
the same minibatches and noise draws; tested in ``tests/book/test_dpsgd.py``).

A checkpoint belongs to one job: the data, the setting, the seed, the noise multipliers, the evaluation interval,
the model and the layout. One of another job (another set of missing targets, say) is not resumed; it is
replaced by the new job's as soon as that one saves. Files are written atomically (a temporary file, then
``os.replace``), so a crash mid-save leaves the previous checkpoint whole.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["save_checkpoint", "load_checkpoint", "job_key"]


def job_key(data, *, q: float, steps: int, multipliers, seed: int, eval_every: int, model_options,
            memory_format: str, micro_batch) -> dict:
    """What a checkpoint must match to be resumed: everything that decides the runs' steps."""
    from .training import model_description

    return {"data": data.name, "train_size": int(len(data.y_train)), "test_size": int(len(data.y_test)),
            "q": float(q), "steps": int(steps), "noise_multipliers": [float(z) for z in multipliers],
            "seed": int(seed), "eval_every": int(eval_every), "model": model_description(model_options),
            "memory_format": memory_format, "micro_batch": micro_batch}


def save_checkpoint(path, state: dict) -> None:
    """Write ``state`` (tensors, numbers, lists and dicts) to ``path`` atomically with ``torch.save``."""
    import torch

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            torch.save(state, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def load_checkpoint(path, key: dict) -> dict | None:
    """The state saved at ``path`` if it is a checkpoint of the job ``key``; ``None`` if there is none, or it is of
    another job, or it cannot be read (a checkpoint is a cache: the runs then start from step 0)."""
    import pickle

    import torch

    path = Path(path)
    if not path.is_file():
        return None
    try:
        state = torch.load(path, weights_only=True)
    except (OSError, RuntimeError, EOFError, ValueError, pickle.UnpicklingError):
        return None
    if not isinstance(state, dict) or state.get("job") != key:
        return None
    return state
