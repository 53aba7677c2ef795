"""Reproduce Liu, Ting, Yu & Zhou (2008), spectrum of variable-random trees, in full mode.

A thin caller of ``treelab reproduce liu2008`` (:mod:`treelab.reproduce.liu2008`) that stores
the cells under ``../treelab-out/notebooks/01_spectrum_of_randomness/``, where notebook 01's
full mode (``QUICK = False``) finds the grids it shares (``spectrum``, ``compare``,
``irrelevant``, ``noise``); the study adds Table 3 on the paper's data sets and Table 4.
Prints the page: the paper's tables beside treelab's and the verdicts. Cells are stored as
they finish; run the same command again to resume.

Usage::

    python benchmarks/reproduce_liu2008.py                      # full mode, 2 workers
    python benchmarks/reproduce_liu2008.py --parts table3       # one grid
    python benchmarks/reproduce_liu2008.py --estimate           # projected time
"""

from __future__ import annotations

from functools import partial

from _reproduce import study_main

from treelab.reproduce import liu2008 as study

GRIDS = {"spectrum": study.spectrum, "compare": study.compare,
         "irrelevant": study.irrelevant, "noise": study.noise,
         "table3": partial(study.table3, names=list(study.BUNDLE)),
         "table4_1024": partial(study.table4, k=1024), "table4_64": partial(study.table4, k=64)}

if __name__ == "__main__":
    study_main(__doc__, "liu2008", GRIDS)
