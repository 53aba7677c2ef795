"""Threads and memory for the engine's Python drivers: a pool that maps over items, the
hand-back of freed memory to the system after large temporaries, and large output arrays
allocated without NumPy's huge-page advice."""

from __future__ import annotations

import ctypes
import functools
import mmap
import sys
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


def release_freed_memory() -> None:
    """Hand memory the process has freed back to the system (glibc's ``malloc_trim``; a no-op
    elsewhere).

    A fit frees large temporaries (the sorts of feature preparation, each tree's growth buffers
    and node arrays once they are joined), but glibc keeps freed blocks below its dynamic mmap
    threshold (up to 32 MB) inside the process, so the resident memory never falls and the
    forest's nodes were held twice at the end of a fit (measured at 1,000,000 x 20, 100 binned
    trees: the fit's own peak fell from 952 MB to 694 MB with the calls in ``prepare_features``
    and ``grow_forest`` alone; benchmarks/README.md, "Scaling and memory").
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def run_threads(fn: Callable, items: Iterable, n_threads: int) -> list:
    """``[fn(x) for x in items]``, on a pool of ``n_threads`` threads when there is more than one
    item (the kernels and NumPy's sorts release the GIL); results in the order of ``items``."""
    items = list(items)
    if n_threads > 1 and len(items) > 1:
        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            return list(pool.map(fn, items))
    return [fn(x) for x in items]


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
