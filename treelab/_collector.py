"""Python's cyclic garbage collector around the steps that create most of a process's objects.

Importing treelab creates some 150,000 objects that live as long as the process (the modules
of numba, scikit-learn, SciPy, pandas and xarray, their functions, classes and type tables),
and a warm-up loads some 65,000 more (numba's compiled kernels and their types). While they
are being made, the collector's full passes run again and again over everything made so far,
though none of it is garbage: measured on a two-core machine, 0.25-0.30 s of ``import
treelab``'s 2.4-2.9 s, 0.13-0.17 s more for ``treelab.experiment``, and 0.17 s of a 1.1-1.3 s
warm-up. :func:`collector_paused` holds the collector off for such a block; objects the block
leaves unreachable are collected at the first pass after it. The fork server that local
workers are forked from (``treelab.experiment._fork_server.preload``) freezes instead
(:func:`gc.freeze`, before its warm-up and after it): a process of treelab's own that forks
workers, as the standard library's documentation of :func:`gc.freeze` advises.

When the ``treelab`` command ends, the interpreter's own shutdown passes the collector over
every object several times (0.8-1.1 s measured, at the end of every ``treelab run``).
:func:`quick_exit_collection` collects once, so every finalizer of an unreachable object runs
as it would at shutdown, then moves what is still alive out of the collector's sight
(:func:`gc.freeze`): the shutdown's passes then visit nothing. Only the command line calls it
(:func:`treelab.cli.console`), never a library function: a user's process keeps its own
collector.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["collector_paused", "quick_exit_collection"]


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Hold Python's cyclic garbage collector off for the block, and restore it as it was.

    Nested blocks keep it off until the outermost ends; a collector that was off before the
    block stays off.

    Examples
    --------
    >>> import gc
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def quick_exit_collection() -> None:
    """Collect the garbage there is now (its finalizers run), then leave every live object to
    the interpreter's exit without the collector's passes over it (:func:`gc.freeze`).

    For a process that is about to exit: a frozen object is never collected again, so an
    object that becomes garbage later in a reference cycle is left to the operating system.
    """
    gc.collect()
    gc.freeze()
