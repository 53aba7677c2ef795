"""A word when a step that is usually quick takes more than a few seconds.

``import treelab`` (numba, scikit-learn and the engine's modules, whose compiled kernels are
found in the cache) and the start of a rerun of a finished experiment (its data sets and the
records of its finished cells are read and checked) take a second or two on a quiet machine
and ten times that on a busy one, when nothing is printed and they read as a hang.
:func:`slow_notice` says what is happening once a step has run ``SLOW_AFTER`` seconds; a quick
step prints nothing. The line goes to the ``treelab`` logger at WARNING, like the compile
notice (:mod:`treelab.engine._notice`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator

__all__ = ["SLOW_AFTER", "slow_notice"]

log = logging.getLogger("treelab")

#: Seconds a step runs before its notice is printed (``TREELAB_SLOW_AFTER`` in the environment
#: sets another, for example 0 for every notice; read once, when treelab is imported).
SLOW_AFTER = float(os.environ.get("TREELAB_SLOW_AFTER", "3.0"))


@contextlib.contextmanager
def slow_notice(what: str, after: float | None = None) -> Iterator[None]:
    """Log ``"treelab: <what> ..."`` once, if the block runs longer than ``after`` seconds.

    Parameters
    ----------
    what : str
        What the block does, in words a user understands ("checking the finished cells").
    after : float, optional
        Seconds before the notice (default :data:`SLOW_AFTER`).

    Examples
    --------
    >>> with slow_notice("checking nothing"):
    ...     pass
    """
    wait = SLOW_AFTER if after is None else after
    timer = threading.Timer(wait, log.warning, ("treelab: %s (more than %.0f s so far on this "
                                                "machine)", what, wait))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        # gone before the block's caller goes on: a run forks its worker server only from a
        # process with no other thread (treelab.experiment._fork_server)
        timer.join()
