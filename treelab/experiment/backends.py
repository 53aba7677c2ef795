"""Where cells run: in this process, in local worker processes or threads, or on dask.

Every backend yields ``(cell, result, error)`` as cells finish; the caller (one process) writes
each result at once. Results do not depend on the backend: a cell's computation depends only
on its spec (seeds included), and each fit runs with a fixed thread count for BLAS.

To keep 2 cores from being oversubscribed, parallel backends run one fit per worker with
``n_jobs=1`` (numba's own threads off); only the serial backend lets a fit use several threads
(``n_jobs``). At most ``2 * n_workers`` cells are in flight, so a killed run loses at most
those.

Local worker processes watch the process that started them through a pipe: when it dies (even
by SIGKILL) the pipe reaches end-of-file and every worker exits at once, so no orphan keeps
computing or holding memory. When a worker dies (killed by a signal or the out-of-memory
killer) the pool is broken: the cells that were in flight are run again one at a time in a new
pool, so that the cell that kills its worker is the only one reported failed; the run then goes
on.
"""

from __future__ import annotations

import os
import threading
import traceback
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    BrokenExecutor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
)
from concurrent.futures import wait as wait_futures
from typing import Any

from treelab.engine import _notice
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


def _watch_parent(parent: Any) -> None:
    """Exit this worker when the process that started it is gone (its pipe end closes)."""
    try:
        parent.recv_bytes()
    except (EOFError, OSError):
        pass
    os._exit(1)


def _worker_init(parent: Any = None, notices: str | None = None) -> None:
    # the run announces each compilation once, whichever process compiles first
    _notice.share_notices(notices)
    if parent is not None:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                         name="treelab-parent-watch").start()
    # one thread per worker for every BLAS or OpenMP pool a measure may use (treelab's own
    # kernels run on the threads a cell asks for, one by default)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"


def _serial(cells: Sequence[Cell], n_jobs: int | None) -> Iterator[Outcome]:
    for cell in cells:
        result, error = _safe_run(cell.spec, n_jobs)
        yield cell, result, error


#: Reason recorded for a cell whose worker process died.
WORKER_DIED = ("the worker process running this cell died (killed by a signal or by the "
               "out-of-memory killer) when it ran alone in the pool")


def _pool(cells: Sequence[Cell], make: Any, n_workers: int) -> Iterator[Outcome]:
    """Run ``cells`` on the executors ``make()`` returns, at most ``2 * n_workers`` in flight.

    A broken process pool (a worker died) is replaced by a new one. The cells it was running
    are suspects: they run again one at a time, so a cell that breaks a pool while alone in it
    is the one that kills its worker, and only that cell is reported failed.
    """
    executor = make()
    pending: dict[Future, Cell] = {}
    suspects: deque[Cell] = deque()
    isolating = False  # a suspect runs alone in the pool
    todo = iter(cells)
    try:
        while True:
            isolating = isolating and bool(pending or suspects)
            while len(pending) < (1 if isolating or suspects else 2 * n_workers):
                isolating = isolating or bool(suspects)
                cell = suspects.popleft() if suspects else next(todo, None)
                if cell is None:
                    break
                try:
                    fut = executor.submit(_safe_run, cell.spec, 1)
                except BrokenExecutor:  # it broke since the last wait: the futures will say
                    suspects.appendleft(cell)
                    break
                pending[fut] = cell
            if not pending:
                if not suspects:
                    return
                executor = _restart(executor, make)
                continue
            done, _ = wait_futures(pending, return_when=FIRST_COMPLETED)
            if any(_broke(fut) for fut in done):
                wait_futures(pending)  # every other future of a broken pool fails as well
                done = set(pending)
            broken: list[Cell] = []
            for fut in [f for f in pending if f in done]:  # submission order
                cell = pending.pop(fut)
                if _broke(fut):
                    broken.append(cell)
                    continue
                try:
                    result, error = fut.result()
                except Exception:  # the call failed outside the cell (e.g. pickling)
                    result, error = None, traceback.format_exc()
                yield cell, result, error
            if len(broken) == 1:  # alone in the pool: this cell killed its worker
                yield broken[0], None, WORKER_DIED
            elif broken:
                suspects.extend(broken)
            if broken:
                executor = _restart(executor, make)
    finally:
        for fut in pending:
            fut.cancel()
        executor.shutdown(wait=True, cancel_futures=True)


def _broke(fut: Future) -> bool:
    return not fut.cancelled() and isinstance(fut.exception(), BrokenExecutor)


def _restart(executor: Any, make: Any) -> Any:
    executor.shutdown(wait=True, cancel_futures=True)
    return make()


def _local(cells: Sequence[Cell], n_workers: int, threads: bool) -> Iterator[Outcome]:
    if threads:
        yield from _pool(cells, lambda: ThreadPoolExecutor(max_workers=n_workers), n_workers)
        return
    import multiprocessing

    # forkserver/spawn: forking a process that already runs numba/OpenMP threads is unsafe
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    # the workers hold the reading end; this process alone holds the writing end, so the
    # workers see end-of-file the moment it dies, however it dies
    watch, alive = ctx.Pipe(duplex=False)
    try:
        yield from _pool(cells, lambda: ProcessPoolExecutor(
            max_workers=n_workers, mp_context=ctx, initializer=_worker_init,
            initargs=(watch, _notice._shared)), n_workers)
    finally:
        alive.close()
        watch.close()


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
            # dashboard_address=None still serves HTTP on 8787 and warns when that port is
            # taken (a second cluster, a notebook's); port 0 takes a free one without a word
            own_cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
            client = own_client = Client(own_cluster)
    try:
        client.run(_worker_init, notices=_notice._shared)
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
