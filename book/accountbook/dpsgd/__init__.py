"""DP-SGD with Opacus, calibrated by RDP or by zCDP (unifying paper §5.2, Appendix D.4).

Optional extra ``dpsgd`` (``torch==2.13.0``, CPU build, then ``opacus``). The accounting itself
(:func:`accountlib.theory.dpsgd_calibration.calibrate_dpsgd`) needs no torch; this module trains.

Setup, as in the paper: a CNN with two convolution + max-pool stages and a 64-unit hidden layer
(no batch norm); Opacus with Poisson sampling at rate q, flat per-example clipping at C = 1, noise
once per step, gradients divided by the expected batch size qN; SGD with learning rate 0.05, no
momentum, weight decay 1e-4, and a cosine schedule over 2000 steps shared by every horizon.

Pairing: for one seed, the zCDP-calibrated, RDP-calibrated and clipping-only runs start from the
same initialisation and see the same Poisson minibatches (one sampling generator per seed), and the
two private runs draw their Gaussian noise from the same standard-normal stream.

Data: Fashion-MNIST when its IDX files are in ``data_dir``; otherwise scikit-learn's bundled
handwritten digits (real 8×8 images that ship inside scikit-learn), and :func:`load_data` says so.

The package, by job: :mod:`.data` (reading the data), :mod:`.training` (the model, one run, the paired runs), :mod:`.batched` (the runs of one setting and seed
trained together), :mod:`.jobs` (the sweep's stored runs and jobs), :mod:`.ablation` (the architecture ablation),
:mod:`.grid` (the sweep's checked jobs), :mod:`.results` (stored runs, their summaries, the paper's tables)
and :mod:`.analysis` (calibration checks, the ledger).
"""

from .analysis import agreement_summary, calibration_checks, record_ledger
from .grid import MAX_SEED, MAX_STEPS, check_seed, check_setting, check_target, dpsgd_grid
from .data import DATASETS, MAX_IDX_BYTES, SYSTEM_DATA_DIR, Dataset, data_slug, find_fashion_mnist, load_data, read_idx
from .results import (DIVERGED_LOSS, PAPER_TABLES, PAPER_TARGETS, coverage, diverged, endpoint_contrast, load_results,
                      paper_settings, result_path, seedwise_trend, summarise)
from .training import (CLIP, EVAL_EVERY, LEARNING_RATE, MEMORY_FORMATS, MICRO_BATCH, MODEL_INITS, PER_SAMPLE_MODES, SCHEDULE_STEPS, WEIGHT_DECAY,
                       MODEL, build_model, layerwise_clipped_sum, model_description, paired_runs, train_run,
                       vmap_clipped_sum)
from .jobs import run_setting, train_job, train_setting
from .batched import train_runs_together

__all__ = ["dpsgd_grid", "check_target", "check_setting", "check_seed", "MAX_STEPS", "MAX_SEED", "read_idx",
           "load_data", "find_fashion_mnist", "SYSTEM_DATA_DIR", "DATASETS",
           "PER_SAMPLE_MODES", "Dataset", "build_model", "train_run", "paired_runs", "run_setting", "load_results",
           "summarise", "calibration_checks", "data_slug", "record_ledger", "PAPER_TABLES", "train_job",
           "seedwise_trend", "paper_settings", "PAPER_TARGETS", "LEARNING_RATE", "SCHEDULE_STEPS", "EVAL_EVERY",
           "CLIP", "WEIGHT_DECAY", "MAX_IDX_BYTES", "result_path", "layerwise_clipped_sum", "vmap_clipped_sum",
           "train_runs_together", "MODEL_INITS", "MEMORY_FORMATS", "MICRO_BATCH", "train_setting",
           "MODEL", "model_description", "coverage", "endpoint_contrast", "diverged", "DIVERGED_LOSS",
           "agreement_summary"]
