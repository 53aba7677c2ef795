"""Threads and memory for the engine's Python drivers: a pool that maps over items, the
hand-back of freed memory to the system after large temporaries, and large output arrays
allocated without NumPy's huge-page advice."""

from __future__ import annotations

import ctypes
import functools
import mmap
import os
import sys
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["empty_small_pages", "release_freed_memory", "run_threads"]

# NumPy advises huge pages (madvise) for allocations of at least 4 MiB
HUGE_PAGE_ADVICE_BYTES = 1 << 22


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, looked up on first use (never at import); None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        # the process's own symbols hold libc's: no library search (ctypes.util.find_library
        # runs ldconfig in a subprocess, 30 ms)
        trim = ctypes.CDLL(None).malloc_trim  # glibc only; musl and others lack it
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


# the least bytes of temporaries worth handing back: glibc's malloc_trim walks the whole heap
# (tenths of a millisecond in a process holding xarray and pandas, twice a fit), and a small
# fit's buffers are below its mmap threshold's reach anyway
RELEASE_MIN_BYTES = 2 << 20


def release_freed_memory(freed: int | None = None) -> None:
    """Hand memory the process has freed back to the system (glibc's ``malloc_trim``; a no-op
    elsewhere).

    A fit frees large temporaries (the sorts of feature preparation, each tree's growth buffers
    and node arrays once they are joined), but glibc keeps freed blocks below its dynamic mmap
    threshold (up to 32 MB) inside the process, so the resident memory never falls and the
    forest's nodes were held twice at the end of a fit (measured at 1,000,000 x 20, 100 binned
    trees: the fit's own peak fell from 952 MB to 694 MB with the calls in ``prepare_features``
    and ``grow_forest`` alone; benchmarks/README.md, "Scaling and memory"). ``freed``: about
    how many bytes the caller let go, when below ``RELEASE_MIN_BYTES`` nothing is done.
    """
    if freed is not None and freed < RELEASE_MIN_BYTES:
        return
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


class _Pool:
    """The process's persistent worker threads (``run_threads``): made on first use, grown
    when a call asks for more, and forgotten in a forked child (whose copy has no threads)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.executor: ThreadPoolExecutor | None = None
        self.size = 0

    def get(self, n_helpers: int) -> ThreadPoolExecutor:
        with self.lock:
            if self.executor is None or self.size < n_helpers:
                if self.executor is not None:
                    # its threads finish what they hold and exit; the new pool takes the rest
                    self.executor.shutdown(wait=False)
                self.executor = ThreadPoolExecutor(max_workers=n_helpers,
                                                   thread_name_prefix="treelab")
                self.size = n_helpers
            return self.executor

    def forget(self) -> None:
        self.lock = threading.Lock()
        self.executor, self.size = None, 0


_POOL = _Pool()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_POOL.forget)


class _Batch:
    """The items of one ``run_threads`` call, claimed one at a time by the calling thread and
    its helpers, and the count of those finished."""

    def __init__(self, fn: Callable, items: list) -> None:
        self.fn, self.items = fn, items
        self.results: list = [None] * len(items)
        self.claimed = self.finished = 0
        self.error: BaseException | None = None
        self.done = threading.Condition()

    def work(self) -> None:
        """Run unclaimed items until none is left (or one has failed)."""
        n = len(self.items)
        while True:
            with self.done:
                if self.claimed >= n or self.error is not None:
                    return
                i = self.claimed
                self.claimed += 1
            try:
                self.results[i] = self.fn(self.items[i])
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, raised there
                with self.done:
                    self.error = self.error or exc
            with self.done:
                self.finished += 1
                if self.finished == self.claimed:
                    self.done.notify_all()

    def wait(self) -> list:
        """The results, once every claimed item is finished; the first failure raised."""
        with self.done:
            while self.finished < self.claimed:
                self.done.wait()
        if self.error is not None:
            raise self.error
        return self.results


def run_threads(fn: Callable, items: Iterable, n_threads: int,
                min_items: int = 2) -> list:
    """``[fn(x) for x in items]`` on ``n_threads`` threads (the kernels and NumPy's sorts
    release the GIL); results in the order of ``items``.

    The calling thread works on the items itself, and ``n_threads - 1`` helpers of a pool kept
    for the process join it: each thread takes the next unclaimed item until none is left, so
    a call hands the pool ``n_threads - 1`` tasks whatever its number of items (one future
    and one thread start per item cost more than a small tree takes to grow). A helper that
    starts late finds the items claimed and returns at once, so a call never waits on a busy
    pool (a call made from a helper thread, or from several threads at once, finishes on its
    caller's thread at worst). With fewer than ``min_items`` items, or one thread, the items
    run on the calling thread alone. Each item's result depends on the item alone, so the
    results are the same whatever the threads.
    """
    items = list(items)
    if n_threads <= 1 or len(items) < max(2, min_items):
        return [fn(x) for x in items]
    batch = _Batch(fn, items)
    helpers = min(n_threads, len(items)) - 1
    executor = _POOL.get(helpers)
    for _ in range(helpers):
        try:
            executor.submit(batch.work)
        except RuntimeError:  # another call replaced the pool meanwhile: work without these
            break
    batch.work()
    return batch.wait()


def empty_small_pages(shape: tuple, dtype) -> np.ndarray:
    """``np.empty(shape, dtype)`` in ordinary pages: at 4 MiB and more, an anonymous mapping
    of its own instead of NumPy's allocation (Linux only; elsewhere, and below that size,
    ``np.empty``).

    NumPy advises transparent huge pages for arrays from 4 MiB on. Where the kernel answers
    that advice by compacting memory on the spot (``defrag`` set to ``madvise``, the usual
    default), the first write to each 2 MiB page stalls: joining the nodes of 100
    complete-random trees on W1 (about 200 MB) took 0.42-0.46 s of system time with the
    advice and 0.08-0.11 s without it (benchmarks/README.md). The mapping is unmapped when
    the last array using it goes.
    """
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if nbytes < HUGE_PAGE_ADVICE_BYTES or not sys.platform.startswith("linux"):
        return np.empty(shape, dtype)
    return np.frombuffer(mmap.mmap(-1, nbytes), dtype=dtype).reshape(shape)
