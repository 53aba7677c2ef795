"""Where cells run: in this process, in local worker processes or threads, or on dask.

Every backend yields ``(cell, result, error)`` as cells finish; the caller (one process) writes
each result at once. Results do not depend on the backend: a cell's computation depends only
on its spec (seeds included), and each fit runs with a fixed thread count for BLAS.

To keep 2 cores from being oversubscribed, parallel backends run one fit per worker with
``n_jobs=1`` (numba's own threads off); only the serial backend lets a fit use several threads
(``n_jobs``). At most ``2 * n_workers`` cells are in flight, so a killed run loses at most
those.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from typing import Any

from treelab.experiment.cells import run_cell
from treelab.experiment.expand import Cell

__all__ = ["default_workers", "execute"]

Outcome = tuple[Cell, dict[str, Any] | None, str | None]


def default_workers() -> int:
    """Usable cores of this process (``os.sched_getaffinity`` where available)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def _safe_run(spec: dict[str, Any], n_jobs: int | None) -> tuple[dict[str, Any] | None,
                                                                  str | None]:
    try:
        return run_cell(spec, n_jobs=n_jobs), None
    except Exception:  # reported to the caller, which records or raises it
        return None, traceback.format_exc()


def _worker_init() -> None:
    # one thread per worker for every pool a fit or a measure may use
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    try:
        import numba

        numba.set_num_threads(1)
    except Exception:  # pragma: no cover - numba not importable in the worker
        pass


def _serial(cells: Sequence[Cell], n_jobs: int | None) -> Iterator[Outcome]:
    for cell in cells:
        result, error = _safe_run(cell.spec, n_jobs)
        yield cell, result, error


def _pool(cells: Sequence[Cell], executor: Any, n_workers: int) -> Iterator[Outcome]:
    pending: dict[Future, Cell] = {}
    todo = iter(cells)
    try:
        while True:
            while len(pending) < 2 * n_workers:
                cell = next(todo, None)
                if cell is None:
                    break
                pending[executor.submit(_safe_run, cell.spec, 1)] = cell
            if not pending:
                return
            done, _ = wait_futures(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                cell = pending.pop(fut)
                try:
                    result, error = fut.result()
                except Exception:  # the worker itself died
                    result, error = None, traceback.format_exc()
                yield cell, result, error
    finally:
        for fut in pending:
            fut.cancel()


def _local(cells: Sequence[Cell], n_workers: int, threads: bool) -> Iterator[Outcome]:
    if threads:
        with ThreadPoolExecutor(max_workers=n_workers) as ex:
            yield from _pool(cells, ex, n_workers)
        return
    import multiprocessing

    # forkserver/spawn: forking a process that already runs numba/OpenMP threads is unsafe
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    ex = ProcessPoolExecutor(max_workers=n_workers, mp_context=ctx, initializer=_worker_init)
    try:
        yield from _pool(cells, ex, n_workers)
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


def _dask(cells: Sequence[Cell], n_workers: int, client: Any, scheduler: str | None
          ) -> Iterator[Outcome]:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError as exc:  # pragma: no cover - optional at import time
        raise ImportError("backend='dask' needs dask.distributed: pip install "
                          "'dask[distributed]'") from exc
    own_client = own_cluster = None
    if client is None:
        if scheduler is not None:
            client = own_client = Client(scheduler)
        else:
            own_cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
            client = own_client = Client(own_cluster)
    try:
        client.run(_worker_init)
        n_slots = max(1, sum(client.nthreads().values()))
        todo = iter(cells)
        futures = {}

        def submit(cell: Cell) -> None:
            fut = client.submit(_safe_run, cell.spec, 1, key=f"treelab-cell-{cell.key}",
                                pure=False)
            futures[fut.key] = cell
            queue.add(fut)

        queue = as_completed()
        for _ in range(2 * n_slots):
            cell = next(todo, None)
            if cell is None:
                break
            submit(cell)
        for fut in queue:
            cell = futures.pop(fut.key)
            try:
                result, error = fut.result()
            except Exception:
                result, error = None, traceback.format_exc()
            fut.release()
            yield cell, result, error
            nxt = next(todo, None)
            if nxt is not None:
                submit(nxt)
    finally:
        if own_client is not None:
            own_client.close()
        if own_cluster is not None:
            own_cluster.close()


def execute(cells: Sequence[Cell], *, backend: str = "serial", n_workers: int | None = None,
            n_jobs: int | None = None, client: Any = None, scheduler: str | None = None,
            threads: bool = False) -> Iterator[Outcome]:
    """Run ``cells`` on a backend, yielding ``(cell, result, error)`` as each finishes.

    Parameters
    ----------
    cells : sequence of Cell
        What to run.
    backend : {"serial", "local", "dask"}, default "serial"
        ``serial``: in this process, one after the other. ``local``: a pool of
        ``n_workers`` processes (threads with ``threads=True``). ``dask``: a
        ``dask.distributed`` client (given, or connected to ``scheduler``, or a new
        ``LocalCluster`` of ``n_workers`` single-threaded worker processes).
    n_workers : int, optional
        Workers; default the usable cores.
    n_jobs : int, optional
        Threads per fit with the serial backend (default -1: every core, through the kernels'
        own threads); parallel backends always use 1 per fit.
    client : distributed.Client, optional
        An existing dask client.
    scheduler : str, optional
        A dask scheduler address.
    threads : bool, default False
        ``local`` with threads instead of processes.

    Yields
    ------
    tuple
        ``(cell, result, error)``: ``result`` is :func:`~treelab.experiment.cells.run_cell`'s
        record, or None with ``error`` the traceback text.
    """
    workers = n_workers or default_workers()
    if backend == "serial":
        yield from _serial(cells, -1 if n_jobs is None else n_jobs)
    elif backend == "local":
        yield from _local(cells, workers, threads)
    elif backend == "dask":
        yield from _dask(cells, workers, client, scheduler)
    else:
        raise ValueError(f"backend must be one of ('serial', 'local', 'dask'); got {backend!r}")
