# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# A chapter-like notebook for the tests of `python -m accountlib sweep notebook`: a parameters cell, a few
# values glued with myst-nb (hidden, shown, a numpy scalar, a list, a figure, a table), and a parameter
# that makes one run of a grid fail. It also writes to the kernel process's own stderr.

# %% tags=["parameters"]
x = 2  # a number
label = "a"  # a text
fail_at = None  # the run raises when x equals this
offset = 0.5

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
from myst_nb import glue

from accountbook import ledger

os.write(2, b"written to the kernel's own stderr\n")  # the notebook keeps it; the sweep's terminal must not see it
if x == fail_at:
    raise ValueError(f"asked to fail at x = {x}")
square = x * x + offset
glue("square", square, display=False)
glue("label_seen", label)
glue("half", np.float64(x / 2), display=False)
glue("powers", [x, x**2, x**3], display=False)
fig, ax = plt.subplots()
ax.plot([0, 1], [0, x])
glue("figure", fig, display=False)
plt.close(fig)
glue("table", np.arange(40).reshape(20, 2), display=False)
ledger.record("sweep-test-square", source="derived here: x squared plus the offset", paper=x * x + offset,
              ours=square, tolerance="exact", basis="derived here")
