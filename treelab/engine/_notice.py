"""A one-line notice when the engine compiles, so a first fit does not read as a hang.

numba compiles a kernel the first time it is called with new argument types and keeps the
machine code in its on-disk cache (see :mod:`treelab._cache`); only a real compilation, never a
load from that cache, raises numba's ``numba:compile`` event. A listener on that event logs one
line through the ``treelab`` logger the first time each group of kernels compiles in a process
(growth, prediction, oblique trees, pruning), with the time it takes on a 2-core machine.
Silence it with ``logging.getLogger("treelab").setLevel(logging.ERROR)``; ``treelab warmup``
compiles everything ahead (for images and CI).

The same listener makes Python's cyclic garbage collector run less often while a treelab kernel
compiles. numba's compiler creates millions of Python objects, many of them long-lived (typing
caches, compiled overloads), and with the default thresholds the collector traverses that
growing heap again and again: measured on a first VRTrees fit with an empty cache, 2.75 of 29.7
CPU-s in the collector, 2.2 s of it in 14 full collections. With the young generation's
threshold at ``COMPILE_GC_THRESHOLD`` during the outermost compilation the collector took 1.0 s
and no full collection, for 14 MB more peak memory (513 MB); the previous thresholds come back
when that compilation ends. Compilations of code outside treelab are left alone.
"""

from __future__ import annotations

import gc
import logging
import threading
import time

from numba.core import event

log = logging.getLogger("treelab")

# kernel module -> (group, CPU seconds its first compile takes), measured with an empty cache
# on the project's 2-core machine (benchmarks/README.md, "First fit on a fresh install")
GROUPS = {
    "_grow": ("tree growth", 25),
    "_presort": ("tree growth", 25),
    "_predict": ("prediction", 5),
    "_oblique": ("oblique trees", 10),
    "_prune": ("pruning", 5),
}

# young-generation threshold of the cyclic collector while a treelab kernel compiles (700 by
# default); the older generations keep theirs
COMPILE_GC_THRESHOLD = 50_000

_announced: set[str] = set()
_state = threading.local()
_lock = threading.Lock()
_installed = False


def _group(dispatcher: object) -> tuple[str, int] | None:
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
    if not module.startswith("treelab.engine.kernels."):
        return None
    return GROUPS.get(module.rsplit(".", 1)[-1], ("tree engine", 30))


class _Listener(event.Listener):
    """Announces the outermost compilation of each kernel group once per process, logs its
    duration at DEBUG level (nested compilations of the kernels it calls are part of it) and
    raises the collector's threshold while it runs (module notes)."""

    def on_start(self, ev: event.Event) -> None:
        depth = getattr(_state, "depth", 0)
        _state.depth = depth + 1
        if depth:
            return
        found = _group(ev.data["dispatcher"])
        if found is None:
            return
        group, seconds = found
        _state.started = (group, time.perf_counter())
        # numba compiles under one process-wide lock, so outermost compilations never overlap
        _state.gc_threshold = gc.get_threshold()
        gc.set_threshold(max(_state.gc_threshold[0], COMPILE_GC_THRESHOLD),
                         *_state.gc_threshold[1:])
        with _lock:
            if group in _announced:
                return
            _announced.add(group)
        log.warning("treelab: compiling the tree engine (%s), once per install, about %d s "
                    "('treelab warmup' compiles everything ahead)", group, seconds)

    def on_end(self, ev: event.Event) -> None:
        _state.depth = getattr(_state, "depth", 1) - 1
        started = getattr(_state, "started", None)
        if _state.depth == 0 and started is not None:
            _state.started = None
            gc.set_threshold(*_state.gc_threshold)
            log.debug("treelab: compiled %s (%s) in %.1f s", ev.data["dispatcher"].py_func.__name__,
                      started[0], time.perf_counter() - started[1])


def install() -> None:
    """Register the listener (once per process)."""
    global _installed
    with _lock:
        if not _installed:
            event.register("numba:compile", _Listener())
            _installed = True
