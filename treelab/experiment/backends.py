"""Where cells run: in this process, in local worker processes or threads, or on dask.

Every backend yields ``(cell, result, error)`` as cells finish; the caller (one process) writes
each result at once. Results do not depend on the backend: a cell's computation depends only
on its spec (seeds included), and each fit runs with a fixed thread count for BLAS.

Cells that fit on the same training rows (every ensemble and alpha of one data set, transform
values, repeat and fold: a *fold batch*) run one after the other in the same process, the
all-deterministic forest of each ensemble first (alpha = 1), so that they share the fold's
feature preparation and those trees (``treelab.engine.sharing``; the results are the same,
bit for bit, with or without sharing). Local worker processes each run one batch at a time, two
cells in flight, and every cell is still yielded, and written, the moment it finishes.

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

import json
import math
import os
import threading
import traceback
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    BrokenExecutor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
)
from concurrent.futures import wait as wait_futures
from typing import Any

import numpy as np

from treelab import _dims
from treelab.engine import _notice
from treelab.experiment._files import ExperimentError
from treelab.experiment._fork_server import PRELOAD_ENV, fork_server
from treelab.experiment.cells import run_cell
from treelab.experiment.expand import Cell

__all__ = ["PRELOAD_ENV", "connect", "default_workers", "estimator_names", "execute",
           "fold_batches", "local_context", "start_worker_server"]

Outcome = tuple[Cell, dict[str, Any] | None, str | None]


def default_workers() -> int:
    """Usable cores of this process (``os.sched_getaffinity`` where available)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def fold_batches(cells: Sequence[Cell]) -> list[list[Cell]]:
    """``cells`` grouped by their training rows (coordinates less ensemble and alpha), the
    batches in order of their first cell, each batch's cells by ensemble (in order of
    appearance) and decreasing alpha: the all-deterministic forest (alpha = 1), whose trees
    the other alphas reuse, before them (NaN, an ensemble without alpha, last)."""
    batches: dict[tuple, list[Cell]] = {}
    for cell in cells:
        at = tuple((d, "nan" if isinstance(v, float) and math.isnan(v) else v)
                   for d, v in cell.coords.items() if d not in (_dims.ENSEMBLE, _dims.ALPHA))
        batches.setdefault(at, []).append(cell)
    first: dict[Any, int] = {}
    for cell in cells:
        first.setdefault(cell.coords[_dims.ENSEMBLE], len(first))

    def place(cell: Cell) -> tuple[int, float]:
        a = cell.coords[_dims.ALPHA]
        return first[cell.coords[_dims.ENSEMBLE]], (np.inf if a != a else -a)

    return [sorted(batch, key=place) for batch in batches.values()]


def _safe_run(spec: dict[str, Any], n_jobs: int | None, share: bool = True
              ) -> tuple[dict[str, Any] | None, str | None]:
    try:
        return run_cell(spec, n_jobs=n_jobs, share=share), None
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
    if parent is not None:  # a local worker process: it runs cells and nothing else
        from treelab.experiment.cells import keep_one_thread

        keep_one_thread()


def _serial(cells: Sequence[Cell], n_jobs: int | None, share: bool) -> Iterator[Outcome]:
    for cell in cells:
        result, error = _safe_run(cell.spec, n_jobs, share)
        yield cell, result, error


#: Reason recorded for a cell whose worker process died.
WORKER_DIED = ("the worker process running this cell died (killed by a signal or by the "
               "out-of-memory killer) when it ran alone in the pool")


class _Lane:
    """An executor, the batch it runs (one cell after the other) and its cells in flight.

    When its pool breaks (a worker died), the lane gets a new one. The cells that were in
    flight are suspects: they run again one at a time, so a cell that breaks the pool while
    alone in it is the one that kills its worker, and only that cell is reported failed.
    """

    def __init__(self, make: Any, capacity: int, share: bool) -> None:
        self.make, self.capacity, self.share = make, capacity, share
        self.executor = make()
        self.queue: deque[Cell] = deque()
        self.suspects: deque[Cell] = deque()
        self.pending: dict[Future, Cell] = {}
        self.isolating = False  # a suspect runs alone in the pool

    def fill(self, batches: Iterator[list[Cell]]) -> None:
        """Submit cells up to the lane's capacity (one while suspects run), taking the next
        batch once this one is submitted."""
        while True:
            self.isolating = self.isolating and bool(self.pending or self.suspects)
            while len(self.pending) < (1 if self.isolating or self.suspects else self.capacity):
                self.isolating = self.isolating or bool(self.suspects)
                if not self.suspects and not self.queue:
                    self.queue.extend(next(batches, ()))
                queue = self.suspects or self.queue
                if not queue:
                    break
                cell = queue.popleft()
                try:
                    fut = self.executor.submit(_safe_run, cell.spec, 1, self.share)
                except BrokenExecutor:  # it broke since the last wait: the futures will say
                    self.suspects.appendleft(cell)
                    break
                self.pending[fut] = cell
            if self.pending or not self.suspects:
                return
            self.restart()

    def collect(self, done: set[Future]) -> list[Outcome]:
        """The outcomes of the lane's finished futures, in submission order."""
        if not any(fut in done for fut in self.pending):
            return []
        if any(_broke(fut) for fut in self.pending if fut in done):
            wait_futures(self.pending)  # every other future of a broken pool fails as well
            done = set(self.pending)
        out: list[Outcome] = []
        broken: list[Cell] = []
        for fut in [f for f in self.pending if f in done]:
            cell = self.pending.pop(fut)
            if _broke(fut):
                broken.append(cell)
                continue
            try:
                result, error = fut.result()
            except Exception:  # the call failed outside the cell (e.g. pickling)
                result, error = None, traceback.format_exc()
            out.append((cell, result, error))
        if len(broken) == 1:  # alone in the pool: this cell killed its worker
            out.append((broken[0], None, WORKER_DIED))
        elif broken:
            self.suspects.extend(broken)
        if broken:
            self.restart()
        return out

    def restart(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)
        self.executor = self.make()

    def close(self) -> None:
        for fut in self.pending:
            fut.cancel()
        self.executor.shutdown(wait=True, cancel_futures=True)


def _pool(batches: Sequence[list[Cell]], make: Any, n_lanes: int, capacity: int,
          share: bool) -> Iterator[Outcome]:
    """Run the batches on ``n_lanes`` lanes (executors from ``make()``), each taking the next
    batch once it has submitted its own, at most ``capacity`` cells in flight per lane."""
    todo = iter(batches)
    lanes: list[_Lane] = []
    try:
        for _ in range(n_lanes):
            lanes.append(_Lane(make, capacity, share))
        while True:
            for lane in lanes:
                lane.fill(todo)
            futures = [fut for lane in lanes for fut in lane.pending]
            if not futures:
                return
            done, _ = wait_futures(futures, return_when=FIRST_COMPLETED)
            for lane in lanes:
                yield from lane.collect(done)
    finally:
        for lane in lanes:
            lane.close()


def _broke(fut: Future) -> bool:
    return not fut.cancelled() and isinstance(fut.exception(), BrokenExecutor)


def _local(batches: list[list[Cell]], n_workers: int, threads: bool, share: bool
           ) -> Iterator[Outcome]:
    if threads:  # one pool: the threads share one process's store
        yield from _pool([[c for b in batches for c in b]],
                         lambda: ThreadPoolExecutor(max_workers=n_workers), 1, 2 * n_workers,
                         share)
        return
    ctx = local_context()
    start_worker_server(estimator_names(c for b in batches for c in b))
    # the workers hold the reading end; this process alone holds the writing end, so the
    # workers see end-of-file the moment it dies, however it dies
    watch, alive = ctx.Pipe(duplex=False)
    try:
        # a process of its own per lane: a fold batch's cells run where its shared work is
        yield from _pool(batches, lambda: ProcessPoolExecutor(
            max_workers=1, mp_context=ctx, initializer=_worker_init,
            initargs=(watch, _notice._shared)), n_workers, 2, share)
    finally:
        alive.close()
        watch.close()


def estimator_names(cells: Iterable[Cell]) -> list[str]:
    """The estimators (and configured single models) that ``cells`` fit, sorted: what a
    warm-up compiles for them."""
    names: set[str] = set()
    for cell in cells:
        ens = cell.spec["ensemble"]
        names.add(ens["estimator"])
        if isinstance(ens.get("single"), dict):
            names.add(ens["single"]["estimator"])
    return sorted(names)


#: the environment variable of :data:`treelab._slow.SLOW_AFTER`
SLOW_AFTER_ENV = "TREELAB_SLOW_AFTER"
_PRELOAD = "treelab.experiment._preload"


def local_context() -> Any:
    """The multiprocessing context of local worker processes: the fork server where the
    platform has it (forking a process that already runs numba or OpenMP threads is unsafe;
    the server runs none), else spawn."""
    import multiprocessing

    if "forkserver" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context("spawn")  # pragma: no cover - Windows


def start_worker_server(estimators: Sequence[str] = ()) -> bool:
    """Start the fork server that local workers are forked from, preloaded: before it forks
    any worker it has what a worker needs imported and warms up ``estimators``
    (``treelab.experiment._preload``), so every worker starts with treelab, its dependencies
    and those kernels in memory instead of importing and loading them itself (and while this
    process goes on with its own work). Where it is safe the server is a fork of this process
    (``treelab.experiment._fork_server``: nothing to import again), else a fresh interpreter
    that imports them. Returns False, doing nothing, where there is no fork server or one is
    already running (started earlier in this process: its workers load what it lacks
    themselves)."""
    import multiprocessing
    from multiprocessing import forkserver

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return False  # pragma: no cover - Windows
    server = forkserver._forkserver
    if getattr(server, "_forkserver_pid", 0) is not None:  # running, or internals moved
        return False
    preload_settings = json.dumps({"estimators": list(estimators), "notices": _notice._shared})
    if fork_server(preload_settings):
        return True  # a fork of this process, which has imported everything already
    preload = list(getattr(server, "_preload_modules", ["__main__"]))
    if _PRELOAD not in preload:
        forkserver.set_forkserver_preload([*preload, _PRELOAD])
    settings = {PRELOAD_ENV: preload_settings,
                # the server's own import is no step of the user's: its "still importing"
                # line would print into the run's progress bar
                SLOW_AFTER_ENV: "1e9"}
    before = {key: os.environ.get(key) for key in settings}
    os.environ.update(settings)
    try:  # the server reads its settings from the environment it starts with
        server.ensure_running()
    finally:
        for key, value in before.items():
            if value is None:
                del os.environ[key]
            else:
                os.environ[key] = value
    return True


#: Seconds to wait for a dask scheduler before saying that it cannot be reached.
CONNECT_TIMEOUT = 10.0


def connect(scheduler: str) -> Any:
    """A ``distributed.Client`` of the scheduler at ``scheduler``, or an
    :class:`~treelab.experiment.ExperimentError` naming the address when it cannot be reached
    within :data:`CONNECT_TIMEOUT` seconds."""
    try:
        from distributed import Client
    except ImportError as exc:  # pragma: no cover - optional at import time
        raise ImportError("backend='dask' needs dask.distributed: pip install "
                          "'dask[distributed]'") from exc
    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ExperimentError(
            f"the dask scheduler at {scheduler} could not be reached within "
            f"{CONNECT_TIMEOUT:g} s ({type(exc).__name__}: {str(exc).splitlines()[0][:200]}); "
            "start it (dask scheduler) or check the address") from None


def _dask(cells: Sequence[Cell], n_workers: int, client: Any, scheduler: str | None,
          share: bool) -> Iterator[Outcome]:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError as exc:  # pragma: no cover - optional at import time
        raise ImportError("backend='dask' needs dask.distributed: pip install "
                          "'dask[distributed]'") from exc
    own_client = own_cluster = None
    if client is None:
        if scheduler is not None:
            client = own_client = connect(scheduler)
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
            fut = client.submit(_safe_run, cell.spec, 1, share, key=f"treelab-cell-{cell.key}",
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
            threads: bool = False, share: bool = True, batch: bool = True
            ) -> Iterator[Outcome]:
    """Run ``cells`` on a backend, yielding ``(cell, result, error)`` as each finishes.

    With ``batch``, cells run in fold batches (:func:`fold_batches`, the batches in the order
    of their first cell in ``cells``); otherwise in the order given. With ``share`` the cells
    that run in one process share feature preparation and all-deterministic trees
    (``treelab.engine.sharing``): the same results, bit for bit, in less time. dask places
    each cell itself, so there a batch shares only what lands on one worker.

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
    share : bool, default True
        Let the cells share work (off: each cell prepares and grows everything itself; for
        comparisons).
    batch : bool, default True
        Run the cells in fold batches (off: one at a time in the given order, e.g. to finish
        the repeats of a group measure together).

    Yields
    ------
    tuple
        ``(cell, result, error)``: ``result`` is :func:`~treelab.experiment.cells.run_cell`'s
        record, or None with ``error`` the traceback text.
    """
    workers = n_workers or default_workers()
    batches = fold_batches(cells) if batch else [[c] for c in cells]
    ordered = [c for b in batches for c in b]
    if backend == "serial":
        yield from _serial(ordered, -1 if n_jobs is None else n_jobs, share)
    elif backend == "local":
        yield from _local(batches, workers, threads, share)
    elif backend == "dask":
        yield from _dask(ordered, workers, client, scheduler, share)
    else:
        raise ValueError(f"backend must be one of ('serial', 'local', 'dask'); got {backend!r}")
