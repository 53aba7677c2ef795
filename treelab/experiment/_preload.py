"""What every local worker process of a run needs before its first cell, made once: imported
(and the run's kernels compiled or loaded from numba's cache) by the process the workers are
forked from (multiprocessing's fork server), so each worker starts with it in memory.

Without it each worker imported treelab, scikit-learn, SciPy, xarray and pandas and loaded
the kernels itself, after the main process had loaded them for its warm-up: three times
the start-up, the last two while no cell could run. Where the server is a fork of the run's
process (``treelab.experiment._fork_server``) the imports are there already and only
:func:`preload` runs. The fork server reads this module's
settings from the ``TREELAB_WORKER_PRELOAD`` environment variable (JSON: the estimators to
warm up and the folder of shared compile notices), which
:func:`treelab.experiment.backends.start_worker_server` sets while it starts the server. Nothing
here may fail the server: a warm-up that fails leaves the kernels to the cells, as the main
process's warm-up does.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import sys
import threading

# what a worker runs: the cell (its data, estimators, measures) and the backend's entry point
import treelab.experiment.cells  # noqa: F401
from treelab.experiment.backends import PRELOAD_ENV


def _exit_at_once() -> None:
    """The server's exit (when the run's process is gone) without tearing down what it
    imported: finalizing some 1,900 modules and their heap took seconds on a loaded machine,
    long enough to outlive the run. It forks the workers and holds nothing to save."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


def _watch_parent(parent: int, done: threading.Event) -> None:
    """Exit the server when the process that started it is gone during the warm-up (which
    may compile for minutes; the server watches its parent only once it serves)."""
    while not done.wait(0.5):
        if os.getppid() != parent:
            _exit_at_once()


def preload(settings: str | None) -> None:
    """Warm up the estimators that ``settings`` (this module's JSON settings) names."""
    if not settings:
        return
    done = threading.Event()
    watch = threading.Thread(target=_watch_parent, args=(os.getppid(), done), daemon=True,
                             name="treelab-preload-watch")
    watch.start()
    try:
        from treelab._warmup import warmup
        from treelab.engine import _notice

        chosen = json.loads(settings)
        _notice.share_notices(chosen.get("notices"))
        warmup(list(chosen.get("estimators", ())), progress=False)
    except Exception:  # noqa: BLE001 - the cells compile what they need; results unchanged
        pass
    finally:  # no thread of the server's may outlive the preload: it forks the workers
        done.set()
        watch.join()


if PRELOAD_ENV in os.environ:  # the fork server (not a process importing this module)
    atexit.register(_exit_at_once)  # registered last: runs first
    preload(os.environ.get(PRELOAD_ENV))
