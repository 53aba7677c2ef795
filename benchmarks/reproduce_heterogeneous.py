"""Reproduce Gashler, Giraud-Carrier & Martinez (2008), heterogeneous ensembles, in full mode.

A thin caller of ``treelab reproduce gashler2008`` (:mod:`treelab.reproduce.gashler2008`) that
stores the cells under ``../treelab-out/notebooks/04_heterogeneous_ensembles/``, where notebook
04's full mode (``QUICK = False``) finds its two grids (``gashler``: bagged RDT, ERDT, MMDT,
CVDT of 100 trees and 1,000-tree RDT and ERDT by 5x2 CV on 15 data sets; ``irrelevant``: wine
with 0 to 256 Gaussian attributes); the study adds the six ensembles over the bundle
(``bundle``). Prints the page: the paper's counts beside treelab's and the verdicts.

Usage::

    python benchmarks/reproduce_heterogeneous.py                       # full mode
    python benchmarks/reproduce_heterogeneous.py --parts gashler irrelevant
    python benchmarks/reproduce_heterogeneous.py --estimate            # projected time

The bundle-wide comparison of MMDT's input scalings is ``benchmarks/reproduce_gashler.py``
(docs/reproductions/mmdt.md).
"""

from __future__ import annotations

from functools import partial

from _reproduce import study_main

from treelab.reproduce import gashler2008 as study

GRIDS = {"gashler": study.gashler, "irrelevant": study.irrelevant,
         "bundle": partial(study.bundle, max_rows=10000)}

if __name__ == "__main__":
    study_main(__doc__, "gashler2008", GRIDS)
