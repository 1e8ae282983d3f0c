"""A second CPU on the same machine: numpy with every run-time-dispatched SIMD feature switched off.

numpy compiles its kernels for a baseline (``__cpu_baseline__``, e.g. ``X86_V2``) and, beyond it, for the
features in ``__cpu_dispatch__`` (``X86_V3`` = AVX2, ``X86_V4`` / ``AVX512_*``); at import it picks the best
kernel the CPU supports. float64 reductions and transcendental functions therefore differ in their last bits
between an AVX-512 machine, an AVX2 machine and an older one. ``NPY_DISABLE_CPU_FEATURES`` (a space-separated
list; numpy refuses baseline features there) makes numpy ignore the features it names, so a process started
with :func:`environment` computes as the baseline CPU would: the test suite runs every chapter a second time
so, and its checked outputs must not change.

Only numpy's own dispatch is covered; OpenBLAS (``OPENBLAS_CORETYPE``) and torch choose their kernels
separately.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys

VARIABLE = "NPY_DISABLE_CPU_FEATURES"

_ASK_NUMPY = (
    "import json; from numpy._core._multiarray_umath import __cpu_features__ as f, __cpu_dispatch__ as d, "
    "__cpu_baseline__ as b; print(json.dumps({'dispatch': list(d), 'found': [k for k in d if f.get(k)], "
    "'baseline': list(b)}))"
)


@functools.lru_cache(maxsize=1)
def cpu() -> dict:
    """What numpy reports about this CPU, asked in a fresh interpreter without ``NPY_DISABLE_CPU_FEATURES``
    (so that the answer does not depend on how this process was started): ``{"dispatch": [...], "found":
    [...], "baseline": [...]}``, ``found`` being the dispatched features this CPU has."""
    clean = {k: v for k, v in os.environ.items() if k != VARIABLE}
    answer = subprocess.run([sys.executable, "-c", _ASK_NUMPY], env=clean, capture_output=True, text=True,
                            check=True, timeout=120)
    return json.loads(answer.stdout)


def disabled_features() -> str | None:
    """The ``NPY_DISABLE_CPU_FEATURES`` value that switches off every dispatched feature this CPU has beyond
    numpy's baseline (e.g. ``"X86_V3 X86_V4 AVX512_ICL"``), or None when it has none (numpy then runs its
    baseline kernels already, and a second run would compute the same)."""
    found = cpu()["found"]
    return " ".join(found) if found else None


def environment(base: dict | None = None) -> dict | None:
    """A copy of ``base`` (default ``os.environ``) with ``NPY_DISABLE_CPU_FEATURES`` set to
    :func:`disabled_features`, or None when there is nothing to disable."""
    features = disabled_features()
    if features is None:
        return None
    env = dict(os.environ if base is None else base)
    env[VARIABLE] = features
    return env


def describe() -> str:
    """The second CPU in words, for test names and failure messages."""
    features = disabled_features()
    if features is None:
        return f"no second CPU: numpy dispatches no feature beyond its baseline {' '.join(cpu()['baseline'])} here"
    return f"{VARIABLE}={features!r} (numpy's baseline {' '.join(cpu()['baseline'])} kernels)"
