"""Reproduce the rotation forest study (after Rodriguez, Kuncheva & Alonso 2006), full mode.

A thin caller of ``treelab reproduce rotation-forest`` (:mod:`treelab.reproduce.rotation`)
that stores the cells under ``../treelab-out/notebooks/05_rotation_forest/``, where notebook
05's full mode (``QUICK = False``) finds its grid (``rotation``: random forest against
rotation forests, 100 trees, 10-fold CV, 12 data sets with 0 to 64 irrelevant attributes).
Prints the page with the verdicts on the tutorial's claims. Run again to resume.

Usage::

    python benchmarks/reproduce_rotation.py               # full mode, 2 workers
    python benchmarks/reproduce_rotation.py --estimate    # projected time
"""

from __future__ import annotations

from _reproduce import study_main

from treelab.reproduce import rotation as study

GRIDS = {"rotation": study.rotation}

if __name__ == "__main__":
    study_main(__doc__, "rotation-forest", GRIDS)
