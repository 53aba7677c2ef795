"""multiprocessing's fork server started as a fork of the run's process, where that is safe.

The fork server that local workers are forked from (:mod:`multiprocessing.forkserver`) is
normally a fresh interpreter: before it forks a worker it imports treelab, scikit-learn,
SciPy, xarray and pandas again (``treelab.experiment._preload``), some 3 s on two cores
during which no cell can run, and it cannot start before the run's own process has made the
cells. A fork of the run's process already holds all of that: started this way, the server
only warms the kernels up before it serves, and the first cell of a 660-cell grid of small
sets was stored 3.6-4.4 s after the interpreter started instead of 5.5-7.3 s
(``benchmarks/bench_grid.py``; benchmarks/README.md, "The workers' server forked from the
run's process"). Either server warms up with :func:`preload` before it serves (the fresh
one once ``treelab.experiment._preload`` has imported what a worker needs).

Forking is what the fresh interpreter avoids where it is unsafe, so this is done only when
every condition below holds (otherwise :func:`fork_server` returns False and the caller
starts the fresh interpreter, as before):

- Linux (``/proc/self/fd``, and the platform's ``fork`` semantics that this was tested on);
- no other Python thread runs in this process (a notebook kernel's threads, a progress
  monitor, a thread pool), so no Python-level lock can be held across the fork;
- numba's threading layer has not started (treelab's kernels do not use it; a user's
  ``parallel=True`` function would have started it);
- no native thread runs besides the process's first and the idle workers of its pthreads
  OpenBLAS pools (as numpy's and SciPy's wheels ship them; ``num_threads - 1`` threads each,
  started when the library loads, which OpenBLAS's own fork handlers reset in the child).
  An OpenMP runtime's pool (GNU OpenMP, which scikit-learn's wheels load, is not fork-safe
  once a parallel region has run: its threads then exist) or any other library's threads
  count against it. Those idle BLAS workers are why Python 3.12's fork-with-threads
  DeprecationWarning, which counts native threads, is silenced for this one call;
- :mod:`multiprocessing.forkserver` is the one this was written for (the server's entry
  point ``main(listener_fd, alive_r, preload, main_path, sys_path)``, as in Python 3.11 to
  3.13; Python 3.14 adds an authentication key, and its runs use the fresh interpreter).

The child keeps only standard input and output, the server's socket and the pipe that tells
it the run's process is gone; every other descriptor it inherited (the store's lock and cell
file, the resource tracker's pipe, a user's log file) is pointed at ``/dev/null``, so it
holds no lock or pipe end of the run's, and a stale Python object of the run's that still
names such a number writes nowhere. It then serves exactly as the fresh interpreter does
(:func:`multiprocessing.forkserver.main`) and leaves with ``os._exit``: none of the run's
``atexit`` handlers runs in it. The run's standard output and error are flushed before the
fork, so that no worker writes their pending text again when it ends.
"""

from __future__ import annotations

import contextlib
import gc
import inspect
import json
import os
import socket
import sys
import threading
import traceback
import warnings

__all__ = ["PRELOAD_ENV", "can_fork", "exit_at_once", "fork_server", "preload"]

#: the environment variable that hands a fresh fork server its warm-up settings (JSON)
PRELOAD_ENV = "TREELAB_WORKER_PRELOAD"

#: the parameters of ``multiprocessing.forkserver.main`` this module calls it with
SERVER_MAIN = ["listener_fd", "alive_r", "preload", "main_path", "sys_path"]
_SERVER_STATE = ("_lock", "_forkserver_address", "_forkserver_alive_fd", "_forkserver_pid")


def _flush_streams() -> None:
    """Write out what this process's standard output and error still buffer."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def exit_at_once() -> None:
    """The server's exit (when the run's process is gone) without tearing down what it
    imported: finalizing some 1,900 modules and their heap took seconds on a loaded machine,
    long enough to outlive the run. It forks the workers and holds nothing to save."""
    _flush_streams()
    os._exit(0)


def _watch_parent(parent: int, done: threading.Event) -> None:
    """Exit the server when the process that started it is gone during the warm-up (which
    may compile for minutes; the server watches its parent only once it serves)."""
    while not done.wait(0.5):
        if os.getppid() != parent:
            exit_at_once()


def preload(settings: str | None) -> None:
    """Warm up the estimators that ``settings`` (this module's JSON settings) names."""
    if not settings:
        return
    from treelab.engine import _notice

    # what the server holds now lives as long as it and its workers: out of the collector's
    # passes (theirs, and the warm-up's, which ran over it again and again: 0.39-0.43 of a
    # 1.2-1.6 s warm-up, 0.07 s frozen), and its pages stay shared with every worker
    # (treelab._collector)
    gc.freeze()

    done = threading.Event()
    watch = threading.Thread(target=_watch_parent, args=(os.getppid(), done), daemon=True,
                             name="treelab-preload-watch")
    watch.start()
    try:
        from treelab._warmup import warmup

        chosen = json.loads(settings)
        _notice.share_notices(chosen.get("notices"))
        warmup(list(chosen.get("estimators", ())), progress=False)
    except Exception:  # noqa: BLE001 - the cells compile what they need; results unchanged
        pass
    finally:  # no thread of the server's may outlive the preload: it forks the workers
        done.set()
        watch.join()
        # a compilation's progress lines run on a thread of their own for up to an interval
        # after it ends (seen: a server that compiled on a fresh cache held it while forking)
        _notice.settle()
        gc.freeze()  # the kernels the warm-up loaded, as the imports above


def _threads_beyond_blas() -> int:
    """This process's native threads beyond its first and the workers of its pthreads
    OpenBLAS pools (``num_threads - 1`` each, started when the library loads); -1 where
    that cannot be told."""
    try:
        from threadpoolctl import threadpool_info

        threads = len(os.listdir("/proc/self/task"))
        pools = threadpool_info()
    except (ImportError, OSError):  # pragma: no cover - threadpoolctl ships with scikit-learn
        return -1
    blas = sum(max(int(pool.get("num_threads") or 1) - 1, 0) for pool in pools
               if pool.get("internal_api") == "openblas"
               and pool.get("threading_layer") == "pthreads")
    return max(threads - 1 - blas, 0)


def can_fork() -> str | None:
    """None when this process may be forked into the fork server, else why not (a sentence)."""
    if not sys.platform.startswith("linux"):
        return "not Linux"
    if threading.active_count() != 1:
        return "another Python thread runs in this process"
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if getattr(parallel, "_is_initialized", False):
        return "numba's threading layer has started"
    from multiprocessing import forkserver

    try:
        params = list(inspect.signature(forkserver.main).parameters)
    except (TypeError, ValueError):  # pragma: no cover - not a Python function
        params = []
    server = getattr(forkserver, "_forkserver", None)
    if params != SERVER_MAIN or not all(hasattr(server, a) for a in _SERVER_STATE):
        return "multiprocessing's fork server is not the one this was written for"
    extra = _threads_beyond_blas()
    if extra != 0:
        return ("native threads run in this process besides OpenBLAS's pool (an OpenMP "
                "runtime's, say)" if extra > 0 else "this process's threads cannot be told")
    return None


def fork_server(settings: str) -> bool:
    """Start multiprocessing's fork server as a fork of this process that warms up with
    ``settings`` (:func:`preload`'s JSON) before it serves; False, doing
    nothing, where :func:`can_fork` refuses, a server is already running, or the fork fails."""
    from multiprocessing import connection, forkserver, resource_tracker, util

    from treelab.engine import _notice

    # a compilation's progress lines run on a thread of their own for up to an interval after
    # it ends: a run that compiled a kernel before its server starts (a fresh cache) would
    # fork a fresh interpreter instead (can_fork: another thread runs)
    _notice.settle()
    if can_fork() is not None:
        return False
    server = forkserver._forkserver
    with server._lock:
        if server._forkserver_pid is not None:
            return False
        # the workers' clients hand the tracker's pipe on; started here, as ensure_running does
        resource_tracker.ensure_running()
        with socket.socket(socket.AF_UNIX) as listener:
            address = connection.arbitrary_address("AF_UNIX")
            listener.bind(address)
            if not util.is_abstract_socket_namespace(address):
                os.chmod(address, 0o600)
            listener.listen()
            # every client holds the writing end: the server sees end-of-file once they are gone
            alive_r, alive_w = os.pipe()
            keep = (0, 1, 2, listener.fileno(), alive_r)
            # text this process has not written yet would be written again by every worker
            # (a process flushes its streams when it ends)
            _flush_streams()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)
                    pid = os.fork()
            except OSError:
                os.close(alive_r)
                os.close(alive_w)
                return False
            if pid == 0:  # pragma: no cover - the server's process (tests observe it)
                _serve(listener.fileno(), alive_r, keep, settings)
            os.close(alive_r)
        server._forkserver_address = address
        server._forkserver_alive_fd = alive_w
        server._forkserver_pid = pid
    return True


def _serve(listener_fd: int, alive_r: int, keep: tuple[int, ...],
           settings: str) -> None:  # pragma: no cover - runs in the forked server
    code = 1
    try:
        null = os.open(os.devnull, os.O_RDWR)
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            if fd not in keep and fd != null:
                try:
                    os.dup2(null, fd)
                except OSError:  # the listing's own descriptor, closed already
                    pass
        os.close(null)
        from multiprocessing import forkserver

        preload(settings)
        forkserver.main(listener_fd, alive_r, [])
    except SystemExit:  # the server's way out once the run's process is gone
        code = 0
    except BaseException:  # the run's next worker finds the server gone and starts another
        traceback.print_exc()
    finally:
        os._exit(code)
