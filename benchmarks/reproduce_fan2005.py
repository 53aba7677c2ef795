"""Reproduce Fan, Greengrass, McCloskey, Yu & Drummey (2005), probability estimation, full mode.

A thin caller of ``treelab reproduce fan2005`` (:mod:`treelab.reproduce.fan2005`) that stores
the cells under ``../treelab-out/notebooks/03_probability_estimation/``, where notebook 03's
full mode (``QUICK = False``) finds its exact-MSE grid (``fan``); Table 1's bias and variance
over 100 training sets of 2,000 rows is computed beside it (each set stored as it finishes).
Prints the page: the paper's tables beside treelab's and the verdicts. Run again to resume.

Usage::

    python benchmarks/reproduce_fan2005.py               # full mode, 2 workers
    python benchmarks/reproduce_fan2005.py --estimate    # projected time of the grid
"""

from __future__ import annotations

from _reproduce import study_main

from treelab.reproduce import fan2005 as study

GRIDS = {"fan": study.exact_mse}

if __name__ == "__main__":
    study_main(__doc__, "fan2005", GRIDS)
