"""A notice when the engine compiles, so a first fit does not read as a hang.

numba compiles a kernel the first time it is called with new argument types and keeps the
machine code in its on-disk cache (see :mod:`treelab._cache`); only a real compilation, never a
load from that cache, raises numba's ``numba:compile`` event. A listener on that event logs,
through the ``treelab`` logger, one line the first time each group of kernels compiles in a
run (growth, prediction, oblique trees, pruning, analysis) with an honest estimate: the time
that group's first compilation took on this machine when one was measured (kept beside the
kernels in the cache folder), else the range measured on two-core machines idle and loaded.
While the group's compilations run longer than ``PROGRESS_EVERY`` seconds (a first fit
compiles one kernel after another), a line every so often says how long it has run and how
many kernels it has compiled, and a last line says when it is done. A notice printed while a
tqdm bar is drawn goes on its own line above the bar. An experiment run announces each group
once for all its worker processes (:func:`share_notices`). Where compiled code cannot be kept
(no usable cache folder, see :mod:`treelab._cache`), the first compilation also says so,
once, and the group's line says "for this process only" instead of "once per install".
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
import json
import logging
import os
import sys
import threading
import time

from numba.core import event

log = logging.getLogger("treelab")

# kernel module -> group; a group is announced once, when its first kernel compiles
GROUPS = {
    "_grow": "tree growth",
    "_random_grow": "tree growth",
    "_presort": "tree growth",
    "_predict": "prediction",
    "_oblique": "oblique trees",
    "_prune": "pruning",
    "_votes": "analysis",
    "_agreement": "analysis",
}
OTHER = "engine"
# the notice that compiled code is not kept (no usable cache folder): once, like a group's
NOT_KEPT = "compiled code not kept"

# wall seconds of a group's first compilation with an empty cache: a 2-core machine idle (low)
# and shared with other work (high); "tree growth" measured 25 s idle and 52 s loaded
RANGES = {
    "tree growth": (20, 90),
    "prediction": (5, 25),
    "oblique trees": (10, 45),
    "pruning": (5, 25),
    "analysis": (3, 15),
    OTHER: (3, 30),
}

#: Seconds between the progress lines of a compilation that is still running.
PROGRESS_EVERY = 15.0

#: The file, in the kernel cache folder, that keeps each group's measured compile time.
TIMES_FILE = "treelab-compile-times.json"

# young-generation threshold of the cyclic collector while a treelab kernel compiles (700 by
# default); the older generations keep theirs
COMPILE_GC_THRESHOLD = 50_000

_announced: set[str] = set()
# the group whose progress this process reports (its last announced one)
_progress: _Progress | None = None
_shared: str | None = None
_state = threading.local()
_lock = threading.Lock()
_installed = False


def _not_kept() -> str | None:
    """Why compiled kernels are not kept in this process (``treelab._cache``), None if they
    are: then the notices say so once instead of promising a cache."""
    from treelab._cache import cache_status

    return cache_status().reason


def _group(dispatcher: object) -> str | None:
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
    if not module.startswith("treelab.engine.kernels."):
        return None
    return GROUPS.get(module.rsplit(".", 1)[-1], OTHER)


def _times_path() -> str | None:
    from treelab._cache import cache_dir

    try:
        return os.path.join(cache_dir(), TIMES_FILE)
    except Exception:  # pragma: no cover - no cache folder: ranges only
        return None


def measured_times() -> dict[str, float]:
    """Seconds each group's first compilation took on this machine (cache folder's record)."""
    path = _times_path()
    try:
        with open(path) as fh:  # type: ignore[arg-type]
            data = json.load(fh)
    except (OSError, TypeError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, int | float)}


def _record(group: str, seconds: float) -> None:
    """Keep the longest measured time of a group: its first compilation with an empty cache
    (later ones compile a new signature or two and would understate a fresh install's)."""
    path = _times_path()
    low = RANGES.get(group, RANGES[OTHER])[0]
    if path is None or seconds < low / 2:
        # far below a whole group's compilation: a signature or two added to a cache that
        # an earlier version filled, which would understate a fresh install's wait
        return
    times = measured_times()
    if times.get(group, 0.0) >= seconds:
        return
    times[group] = round(seconds, 1)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as fh:
            json.dump(times, fh)
        os.replace(tmp, path)
    except OSError:  # a read-only cache folder: the next notice gives the range
        pass


def estimate(group: str) -> str:
    """The notice's estimate for a group: measured on this machine, else a range."""
    measured = measured_times().get(group)
    if measured is not None:
        return f"about {max(1, round(measured))} s, as measured on this machine"
    low, high = RANGES.get(group, RANGES[OTHER])
    return f"{low}-{high} s on two cores"


def share_notices(folder: str | os.PathLike[str] | None) -> None:
    """Announce each group once for every process that shares ``folder`` (one experiment run
    and its worker processes): the first to compile a group creates a marker file there and
    is the only one to announce it. ``None`` goes back to once per process."""
    global _shared
    _shared = None if folder is None else os.fspath(folder)
    if _shared is not None:
        for group in list(_announced):  # already told in this process: the workers stay quiet
            _claim_file(group)


def _claim_file(group: str) -> bool:
    if _shared is None:
        return True
    try:
        fd = os.open(os.path.join(_shared, group.replace(" ", "_")),
                     os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return False
    except OSError:  # folder gone: announce rather than stay silent
        return True
    os.close(fd)
    return True


def _claim(group: str) -> bool:
    with _lock:
        if group in _announced:
            return False
        _announced.add(group)
    return _claim_file(group)


def _say(message: str, *args: object) -> None:
    """Log a notice at WARNING. Where logging would write it to stderr by its last resort (no
    handler configured) while a tqdm bar is drawn there, tqdm writes it instead, on its own
    line above the bar, which it then draws again (else the notice is glued onto the bar)."""
    if not log.isEnabledFor(logging.WARNING):
        return
    tqdm = getattr(sys.modules.get("tqdm"), "tqdm", None)
    if tqdm is not None and getattr(tqdm, "_instances", None) and not log.hasHandlers() \
            and logging.lastResort is not None:
        tqdm.write(message % args, file=sys.stderr)
        return
    log.warning(message, *args)


class _Progress:
    """Lines every ``PROGRESS_EVERY`` seconds while a group this process announced compiles.

    A group is many outermost compilations one after the other (a first fit compiles one
    kernel, runs it, compiles the next), each shorter than the interval though together they
    take a minute, so the lines follow the group, not one compilation: at every tick while one
    of its kernels compiles, a line; once a whole interval went by without any, a last line
    with the time from the notice to the end of the last compilation."""

    def __init__(self, group: str) -> None:
        self.group = group
        self.started = time.perf_counter()
        self.ended = self.started
        self.kernels = 0
        self.compiling = 0
        self.busy = True  # a kernel compiled since the last tick
        self.done = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name="treelab-compile-progress")
        self._thread.start()

    def begin(self) -> None:
        with _lock:
            self.compiling += 1
            self.busy = True

    def end(self) -> None:
        with _lock:
            self.compiling -= 1
            self.ended = time.perf_counter()

    def _run(self) -> None:
        while not self._stop.wait(PROGRESS_EVERY):
            with _lock:
                now, busy, self.busy = self.compiling > 0, self.busy, False
                kernels = self.kernels
            if now:
                _say("treelab: still compiling %s: %.0f s so far, %d kernels compiled",
                     self.group, time.perf_counter() - self.started, kernels)
            elif not busy:
                break
        self.finish()

    def finish(self) -> None:
        """Stop the lines; say how long the group took when that was more than an interval."""
        with _lock:
            if self.done:
                return
            self.done = True
            self._stop.set()
            seconds = self.ended - self.started
        # the wait for the whole group, which the next notice of a fresh cache quotes (its
        # first compilation alone was 2 s of the 35 s that the prediction kernels took)
        _record(self.group, seconds)
        if seconds >= PROGRESS_EVERY:
            _say("treelab: %s compiled in %.0f s", self.group, seconds)

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)


def settle() -> None:
    """End the progress lines of the group compiling or just compiled, and wait for their
    thread: it lives until the group has been quiet for an interval, and a process about to
    fork (the experiment runner's fork server, after its warm-up) must hold no thread but
    its own (a child forked while another thread holds a lock, the log's say, can hang)."""
    progress = _progress
    if progress is not None:
        progress.finish()
        progress.join()


class _Listener(event.Listener):
    """Announces the outermost compilation of each kernel group once per run, shows its
    progress, records its duration and raises the collector's threshold while it runs (module
    notes). Nested compilations of the kernels it calls are part of it."""

    def on_start(self, ev: event.Event) -> None:
        global _progress
        depth = getattr(_state, "depth", 0)
        _state.depth = depth + 1
        if depth:
            progress = getattr(_state, "progress", None)
            if progress is not None:
                progress.kernels += 1
            return
        group = _group(ev.data["dispatcher"])
        if group is None:
            return
        _state.started = (group, time.perf_counter())
        # numba compiles under one process-wide lock, so outermost compilations never overlap
        _state.gc_threshold = gc.get_threshold()
        gc.set_threshold(max(_state.gc_threshold[0], COMPILE_GC_THRESHOLD),
                         *_state.gc_threshold[1:])
        _state.progress = None
        _state.claimed = _claim(group)
        not_kept = _not_kept()
        if not_kept is not None and log.isEnabledFor(logging.WARNING) and _claim(NOT_KEPT):
            _say("treelab: compiled kernels will not be kept: %s; every new process "
                 "compiles them again (set NUMBA_CACHE_DIR to a writable folder to keep "
                 "them)", not_kept)
        if _state.claimed and log.isEnabledFor(logging.WARNING):
            if _progress is not None:
                _progress.finish()  # the group before is done: another one starts
            if not_kept is None:
                _say("treelab: compiling the %s kernels, once per install (%s; "
                     "'treelab warmup' compiles everything ahead)", group, estimate(group))
            else:
                _say("treelab: compiling the %s kernels for this process only, not kept "
                     "(%s)", group, estimate(group))
            _progress = _Progress(group)
        if _progress is not None and _progress.group == group and not _progress.done:
            _progress.kernels += 1
            _progress.begin()
            _state.progress = _progress

    def on_end(self, ev: event.Event) -> None:
        _state.depth = getattr(_state, "depth", 1) - 1
        started = getattr(_state, "started", None)
        if _state.depth == 0 and started is not None:
            _state.started = None
            gc.set_threshold(*_state.gc_threshold)
            group, t0 = started
            seconds = time.perf_counter() - t0
            progress = getattr(_state, "progress", None)
            _state.progress = None
            if getattr(_state, "claimed", False):
                _record(group, seconds)
            if progress is not None:
                progress.end()  # its last line comes when the group has gone quiet
            log.debug("treelab: compiled %s (%s) in %.1f s", ev.data["dispatcher"].py_func.__name__,
                      group, seconds)


def install() -> None:
    """Register the listener (once per process)."""
    global _installed
    with _lock:
        if not _installed:
            event.register("numba:compile", _Listener())
            _installed = True
