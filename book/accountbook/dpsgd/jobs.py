"""The sweep's runs: every missing run of one setting and seed trained together (:mod:`.batched`), each stored
once as JSON with its CPU time, and the sweep's jobs (``python -m accountlib sweep dpsgd``)."""

from __future__ import annotations

from pathlib import Path

from .batched import train_runs_together
from .checkpoint import remove_checkpoint
from .data import Dataset, data_slug, load_data
from .results import checkpoint_path, clip_only_path, result_path
from .training import EVAL_EVERY, model_description

__all__ = ["train_setting", "run_setting", "train_job"]


def train_setting(data: Dataset, *, q: float, steps: int, seed: int, targets, out_dir,
                  eval_every: int = EVAL_EVERY) -> dict:
    """Every missing run of one setting and seed, trained together, then written: one JSON file per target.

    For each privacy target (ε, δ) of ``targets`` whose file ``out_dir/eps=…/q=…_n=…_seed=….json`` is missing,
    the RDP- and zCDP-calibrated runs; and the clipping-only run unless ``out_dir/clip_only/`` holds it (it does
    not depend on the target, so it is stored once and shared by the targets, as in the paper, Appendix D.4.1).
    All of them are trained in one pass (:func:`accountbook.dpsgd.train_runs_together`: the same steps as
    :func:`train_run` alone, to float32 rounding). Each run records ``cpu_seconds``, its equal share of the
    pass's CPU time, ``trained_together`` (how many runs shared the pass, its CPU seconds and torch
    threads) and ``model`` (:func:`accountbook.dpsgd.model_description`: the book's model). Files are written
    atomically, the clipping-only run first; stored files are read back, not retrained, so a rerun resumes; a stored
    file of another model is refused (runs of two models are never paired). While the pass trains, its state is
    checkpointed after each evaluation (``out_dir/checkpoints/``, :func:`accountbook.dpsgd.results.checkpoint_path`),
    so a rerun after a stop resumes mid-pass; the checkpoint is removed once the files are written. Returns
    ``{(ε, δ): result}`` for every target.
    """
    import json

    import torch
    from accountlib.infrastructure.atomic import write_text_atomically
    from accountlib.theory.dpsgd_calibration import calibrate_dpsgd

    targets = [(float(e), float(d)) for e, d in targets]
    paths = {t: result_path(out_dir, epsilon=t[0], delta=t[1], q=q, steps=steps, seed=seed) for t in targets}
    clip_path = clip_only_path(out_dir, q=q, steps=steps, seed=seed, data_name=data.name)
    model = model_description()
    missing = [t for t in targets if not paths[t].is_file()]
    results = {t: json.loads(paths[t].read_text()) for t in targets if t not in missing}
    clip_only = json.loads(clip_path.read_text()) if clip_path.is_file() else None
    for path, stored in [(paths[t], results[t]) for t in results] + [(clip_path, clip_only)]:
        if stored is not None and stored.get("model") != model:  # never pair runs of two models
            raise ValueError(f"{path} holds runs of another model ({stored.get('model', 'the first model, 3x3 kernels')}); "
                             f"the book's model is {model}: move it out of {Path(out_dir)} to train this setting")
    checkpoint = checkpoint_path(out_dir, q=q, steps=steps, seed=seed, data_name=data.name)
    if not missing:
        remove_checkpoint(checkpoint)  # the runs were stored by another route: a checkpoint left is stale
        return results
    noise = {t: (calibrate_dpsgd(q, steps, t[0], t[1], "rdp"), calibrate_dpsgd(q, steps, t[0], t[1], "zcdp"))
             for t in missing}
    multipliers = ([0.0] if clip_only is None else []) + [z for t in missing for z in noise[t]]
    runs = train_runs_together(data, q=q, steps=steps, noise_multipliers=multipliers, seed=seed, eval_every=eval_every,
                               checkpoint=checkpoint)
    total = sum(run["cpu_seconds"] for run in runs)  # the pass's CPU time, before a resumed checkpoint included
    together = {"runs": len(runs), "cpu_seconds": round(total, 1), "torch_threads": torch.get_num_threads()}
    for run in runs:
        run["cpu_seconds"] = round(total / len(runs), 1)
        run["trained_together"] = together
        run["model"] = model
    if clip_only is None:
        clip_only = runs.pop(0)
        write_text_atomically(clip_path, json.dumps(clip_only, indent=1))
    for i, t in enumerate(missing):
        z_rdp, z_zcdp = noise[t]
        result = {"q": q, "steps": steps, "epsilon": t[0], "delta": t[1], "seed": seed, "z_rdp": z_rdp,
                  "z_zcdp": z_zcdp, "model": model, "data": data.name, "train_size": int(len(data.y_train)),
                  "test_size": int(len(data.y_test)),
                  "runs": {"rdp": runs[2 * i], "zcdp": runs[2 * i + 1], "clip_only": clip_only}}
        write_text_atomically(paths[t], json.dumps(result, indent=1))
        results[t] = result
    remove_checkpoint(checkpoint)
    return results


def run_setting(data: Dataset, *, q: float, steps: int, epsilon: float, delta: float, seed: int, out_dir,
                eval_every: int = EVAL_EVERY) -> dict:
    """The paired zCDP / RDP / clipping-only runs of one setting and seed, written to one JSON file.

    :func:`train_setting` for the one target ``(epsilon, delta)``: re-running returns the stored file without
    training; the clipping-only run is stored once under ``out_dir/clip_only/`` and shared by the targets.
    """
    results = train_setting(data, q=q, steps=steps, seed=seed, targets=[(epsilon, delta)], out_dir=out_dir,
                            eval_every=eval_every)
    return results[(float(epsilon), float(delta))]


def train_job(q: float, steps: int, seed: int, targets, out_dir, data_dir=None, dataset: str = "auto",
              threads: int = 1) -> list[str]:
    """One sweep job: every target of one setting and seed, stored under ``out_dir/<data set>/``.

    The missing runs of all targets (and the clipping-only run they share) are trained together, in one pass
    (:func:`train_setting`); runs already stored are skipped, so a rerun resumes. ``threads`` torch threads
    (one per worker on a local pool). Returns the paths written. Used by ``python -m accountlib sweep dpsgd``.
    """
    import torch

    torch.set_num_threads(int(threads))
    data = load_data(data_dir, dataset=dataset)
    folder = Path(out_dir) / data_slug(data.name)
    targets = [(float(e), float(d)) for e, d in targets]
    train_setting(data, q=float(q), steps=int(steps), seed=int(seed), targets=targets, out_dir=folder)
    return [str(result_path(folder, epsilon=e, delta=d, q=float(q), steps=int(steps), seed=int(seed)))
            for e, d in targets]
