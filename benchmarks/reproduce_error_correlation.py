"""Reproduce Ali & Pazzani (1995), error correlation and error reduction, in full mode.

A thin caller of ``treelab reproduce alipazzani1995`` (:mod:`treelab.reproduce.alipazzani1995`)
that stores the cells under ``../treelab-out/notebooks/02_error_correlation/``, where notebook
02's full mode (``QUICK = False``) finds its grid (``stochastic_id3``: eleven stochastic ID3
trees, four combination functions, class noise 0 to 0.3, 30 trials); the study adds Table 2
on the study's training sizes and Figure 1's meta-trials over training fractions. Prints the
page: the paper's tables beside treelab's and the verdicts. Run again to resume.

Usage::

    python benchmarks/reproduce_error_correlation.py                        # full mode
    python benchmarks/reproduce_error_correlation.py --parts stochastic_id3 # notebook 02's grid
    python benchmarks/reproduce_error_correlation.py --estimate             # projected time

The ensembles have 11 trees; ``--estimate`` times one cell of each stratum at 5 and 11 trees.
"""

from __future__ import annotations

from functools import partial

from _reproduce import study_main

from treelab.reproduce import alipazzani1995 as study

GRIDS = {"stochastic_id3": study.stochastic_id3,
         "figure1": lambda n: study.figure1(study.N_TRIALS, study.FRACTIONS)}
GRIDS.update({name: partial(lambda n, name: study.table2_grids(study.N_TRIALS)[name],
                            name=name) for name in study.table2_grids(1)})

if __name__ == "__main__":
    import sys

    study_main(__doc__, "alipazzani1995", GRIDS,
               sys.argv[1:] + ["--trees", "11", "--estimate-trees", "5", "11"]
               if "--estimate" in sys.argv else None)
