"""What every local worker process of a run needs before its first cell, made once: imported
(and the run's kernels compiled or loaded from numba's cache) by the process the workers are
forked from (multiprocessing's fork server), so each worker starts with it in memory.

Without it each worker imported treelab, scikit-learn, SciPy, xarray and pandas and loaded
the kernels itself, after the main process had loaded them for its warm-up: three times
the start-up, the last two while no cell could run. This module is what a fresh server
imports; where the server is a fork of the run's process (``treelab.experiment._fork_server``)
the imports are there already and only the warm-up runs. The fresh server reads the
warm-up's settings from the ``TREELAB_WORKER_PRELOAD`` environment variable (JSON: the
estimators to warm up and the folder of shared compile notices), which
:func:`treelab.experiment.backends.start_worker_server` sets while it starts the server. Nothing
here may fail the server: a warm-up that fails leaves the kernels to the cells, as the main
process's warm-up does (``_fork_server.preload``).
"""

from __future__ import annotations

import atexit
import os

# what a worker runs: the cell (its data, estimators, measures) and the backend's entry point
import treelab.experiment.cells  # noqa: F401
from treelab.experiment._fork_server import PRELOAD_ENV, exit_at_once, preload

if PRELOAD_ENV in os.environ:  # the fork server (not a process importing this module)
    atexit.register(exit_at_once)  # registered last: runs first
    preload(os.environ.get(PRELOAD_ENV))
