"""The state of runs being trained together, saved as they go so that a stopped sweep resumes mid-run.

A run of the sweep takes up to an hour of CPU time; without a checkpoint a sweep stopped (a session's end, a
machine taken back) loses every unfinished run. :func:`accountbook.dpsgd.train_runs_together` writes, after each
evaluation, everything its next step depends on: the step, the position in the sampler's epoch, the models'
parameters, the sampling and noise generators' states, the histories so far and the CPU seconds spent. Resumed,
the runs take exactly the steps they would have taken uninterrupted (the same parameters and generator states, so
the same minibatches and noise draws; tested in ``tests/book/test_dpsgd.py``).

A checkpoint belongs to one job (:func:`job_key`): the data (by a SHA-256 digest of its arrays, not only its name),
the setting, the seed, the noise multipliers, the evaluation interval, the model, the layout and the training code
itself (a digest of the modules that take the steps, and their constants). One of another job is not resumed; it is
replaced by the new job's as soon as that one saves. The file carries a SHA-256 digest of its contents, so a damaged
file (truncated, or a flipped bit that ``torch.load`` would not notice) is never resumed either; the runs then start
from step 0. Files are written atomically (a temporary file, then ``os.replace``), so a crash mid-save leaves the
previous checkpoint whole; temporary files a killed save left behind are removed by a later save or on completion.
"""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
from pathlib import Path

__all__ = ["save_checkpoint", "load_checkpoint", "job_key", "data_digest", "check_checkpoint_path",
           "remove_checkpoint"]

MAGIC = b"accountbook-dpsgd-checkpoint sha256="
"""The first bytes of a checkpoint file, then the payload's 64-digit hex digest, a newline and the payload."""


def data_digest(data) -> str:
    """SHA-256 of the data set's arrays (training and test images and labels, with their shapes and types)."""
    import numpy as np

    digest = hashlib.sha256()
    for array in (data.x_train, data.y_train, data.x_test, data.y_test):
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(memoryview(array).cast("B"))
    return digest.hexdigest()


def _code_digest() -> str:
    """SHA-256 of the modules whose code takes the steps (the training step, the pass, the pooling)."""
    digest = hashlib.sha256()
    for name in ("training.py", "batched.py", "pooling.py"):
        digest.update((Path(__file__).with_name(name)).read_bytes())
    return digest.hexdigest()


def job_key(data, *, q: float, steps: int, multipliers, seed: int, eval_every: int, model_options,
            memory_format: str, micro_batch) -> dict:
    """What a checkpoint must match to be resumed: everything that decides the runs' steps."""
    from . import training

    return {"data": data.name, "data_sha256": data_digest(data), "code_sha256": _code_digest(),
            "constants": [training.LEARNING_RATE, training.WEIGHT_DECAY, training.CLIP, training.SCHEDULE_STEPS],
            "q": float(q), "steps": int(steps), "noise_multipliers": [float(z) for z in multipliers],
            "seed": int(seed), "eval_every": int(eval_every), "model": training.model_description(model_options),
            "memory_format": memory_format, "micro_batch": micro_batch}


def check_checkpoint_path(path) -> Path:
    """``path`` as a ``Path`` whose folder exists (created) and is writable and which is not a folder itself, else
    ``ValueError`` naming it: checked before training, not at the first save."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"checkpoint {str(path)!r} is a folder; give a file path (its folder is created)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
        os.close(handle)
        os.unlink(probe)
    except OSError as error:
        reason = error.strerror or error
        raise ValueError(f"checkpoint {str(path)!r}: its folder cannot be written ({reason})") from None
    return path


STALE_SECONDS = 600
"""A temporary file beside a checkpoint older than this was left by a killed save (a save takes about a second)."""


def _stale_temporaries(path: Path):
    import time

    for temporary in path.parent.glob(f".{path.stem}-*.tmp"):
        try:
            if time.time() - temporary.stat().st_mtime > STALE_SECONDS:
                yield temporary
        except FileNotFoundError:
            continue


def save_checkpoint(path, state: dict) -> None:
    """Write ``state`` (tensors, numbers, lists and dicts) to ``path`` atomically, with a digest of its contents."""
    import torch

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in _stale_temporaries(path):  # a killed save's leftovers (one process per job writes here)
        stale.unlink(missing_ok=True)
    buffer = io.BytesIO()
    torch.save(state, buffer)
    payload = buffer.getvalue()
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(MAGIC + hashlib.sha256(payload).hexdigest().encode() + b"\n")
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def load_checkpoint(path, key: dict) -> dict | None:
    """The state saved at ``path`` if it is a whole checkpoint (its digest checks) of the job ``key``; ``None`` if
    there is none, or it is damaged, or of another job (a checkpoint is a cache: the runs then start from step 0)."""
    import pickle

    import torch

    path = Path(path)
    if not path.is_file():
        return None
    try:
        content = path.read_bytes()
    except OSError:
        return None
    head, _, payload = content.partition(b"\n")
    if not head.startswith(MAGIC) or head[len(MAGIC):] != hashlib.sha256(payload).hexdigest().encode():
        return None
    try:
        state = torch.load(io.BytesIO(payload), weights_only=True)
    except (OSError, RuntimeError, EOFError, ValueError, pickle.UnpicklingError):
        return None
    if not isinstance(state, dict) or state.get("job") != key:
        return None
    return state


def remove_checkpoint(path) -> None:
    """Remove the checkpoint ``path`` and the temporary files a killed save left beside it (the folder stays: another
    job of the sweep may be saving there)."""
    path = Path(path)
    path.unlink(missing_ok=True)
    for stale in _stale_temporaries(path):
        stale.unlink(missing_ok=True)
