"""The local backend's fork server as a fork of the run's process (``_fork_server``): taken
only where it is safe, holding nothing of the run's, giving the same Dataset."""

import gc
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from treelab.experiment._fork_server import can_fork

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent

# run in a fresh interpreter: pytest's own worker threads make can_fork refuse here
PROBE = textwrap.dedent("""
    import json, os, sys, threading
    sys.path.insert(0, {tests!r})
    from multiprocessing import forkserver

    from test_experiment_backends import config, strip
    from treelab.experiment import run
    from treelab.experiment._fork_server import _threads_beyond_blas, can_fork

    if __name__ == "__main__":  # a fresh server (were the fork refused) imports this file
        print("pending text")  # not yet written (a pipe's stdout is block-buffered)
        out = {out!r}
        report = {{"before": can_fork(), "threads_before": _threads_beyond_blas()}}
        # what assembling and writing the result import: readied while the server warms up,
        # before the first cell is handed to a worker, not after the last
        steps = sys.modules["treelab.experiment.run"]
        execute = steps.execute
        ends = ("dask.array", "distributed", "netCDF4")
        report["end_imports_before"] = [name in sys.modules for name in ends]

        def seen_at_start(*args, **kwargs):
            report["end_imports_at_start"] = [name in sys.modules for name in ends]
            return execute(*args, **kwargs)

        steps.execute = seen_at_start
        local = run(config(os.path.join(out, "local")), backend="local", n_workers=2,
                    progress=False)
        steps.execute = execute
        pid = forkserver._forkserver._forkserver_pid
        with open(f"/proc/{{pid}}/cmdline", "rb") as a, open("/proc/self/cmdline", "rb") as b:
            report["forked"] = a.read() == b.read()
        held = []
        for fd in os.listdir(f"/proc/{{pid}}/fd"):
            try:
                held.append(os.readlink(f"/proc/{{pid}}/fd/{{fd}}"))
            except OSError:
                pass
        report["held"] = [path for path in held if out in path]
        report["after"] = threading.active_count()  # the run's own threads joined
        report["server_threads"] = len(os.listdir(f"/proc/{{pid}}/task"))
        serial = run(config(os.path.join(out, "serial")), backend="serial", progress=False)
        report["identical"] = strip(local).identical(strip(serial))
        stop = threading.Event()
        thread = threading.Thread(target=stop.wait)
        thread.start()
        report["thread"] = can_fork()
        stop.set()
        thread.join()
        import numpy as np
        from sklearn.ensemble import HistGradientBoostingClassifier

        rng = np.random.default_rng(0)  # an OpenMP parallel region: its pool's threads stay
        HistGradientBoostingClassifier(max_iter=3).fit(rng.random((4000, 5)), rng.random(4000) > .5)
        report["openmp"] = _threads_beyond_blas()
        print(json.dumps(report))
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the forked server: Linux only")
def test_a_single_threaded_run_forks_its_server_holding_nothing_of_the_run(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text(PROBE.format(tests=str(TESTS), out=str(tmp_path / "runs")))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO),
                                                       os.environ.get("PYTHONPATH", "")]),
               OMP_NUM_THREADS="2")  # an OpenMP pool of one thread more (another test's
    # threads backend leaves 1 in this process's environment)
    env.pop("PYTHONUNBUFFERED", None)  # the probe's output block-buffered, as a pipe's is
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                          text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    # every message carries the whole report and the probe's last error lines: a failure seen
    # once on a loaded machine must say which check failed and why
    detail = f"\nreport: {report}\nstderr: {done.stderr[-2000:]}"
    # written once: not again by each worker forked with a copy of the unwritten buffer
    assert done.stdout.count("pending text") == 1, done.stdout[:300] + detail
    assert report["before"] is None, detail
    assert report["forked"], "the server was a fresh interpreter, not a fork of the run" + detail
    # the store's lock and cell file (and any other descriptor of the run's) not held
    assert report["held"] == [], detail
    assert report["identical"], "the forked server's workers gave another Dataset" + detail
    assert report["end_imports_before"] == [False, False, False], detail
    assert report["end_imports_at_start"] == [True, True, True], (
        "the result's writer was not readied while the server warmed up" + detail)
    assert report["thread"] == "another Python thread runs in this process", detail
    assert report["after"] == 1, "a run left a thread behind: a second run cannot fork" + detail
    # nor did its warm-up leave one in the server, which forks every worker
    assert report["server_threads"] == 1, detail
    # an OpenMP pool's threads (started by its first parallel region) refuse the fork
    assert report["threads_before"] == 0 and report["openmp"] > 0, detail


def test_a_running_thread_refuses_the_fork():
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        reason = can_fork()
    finally:
        stop.set()
        thread.join()
    if sys.platform.startswith("linux"):
        assert reason == "another Python thread runs in this process"
    else:  # pragma: no cover
        assert reason == "not Linux"


def test_a_fork_server_other_than_the_known_one_is_refused(monkeypatch):
    from multiprocessing import forkserver

    if not sys.platform.startswith("linux"):
        pytest.skip("the forked server: Linux only")
    # Python 3.14's server takes an authentication key: its runs use a fresh interpreter
    monkeypatch.setattr(forkserver, "main", lambda listener_fd, alive_r, preload,
                        main_path=None, sys_path=None, *, authkey_r=None: None)
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    assert can_fork() == "multiprocessing's fork server is not the one this was written for"


def test_the_preload_ends_a_compilation_s_progress_thread(monkeypatch, tmp_path):
    """A server that compiles in its warm-up (a fresh cache) starts the compile notice's
    progress thread, which outlives the compilation by up to an interval: the preload must
    end it before the server forks any worker (the probe above saw the server holding two
    threads after such a warm-up)."""
    import treelab._warmup
    from treelab.engine import _notice
    from treelab.experiment._fork_server import preload

    monkeypatch.setattr(_notice, "_times_path", lambda: str(tmp_path / _notice.TIMES_FILE))
    monkeypatch.setattr(_notice, "_progress", None)
    started = []

    def warmup(estimators, progress=True):  # a compilation, as the notice's listener sees it
        _notice._progress = _notice._Progress("tree growth")
        _notice._progress.begin()
        _notice._progress.end()
        started.append(_notice._progress._thread)

    monkeypatch.setattr(treelab._warmup, "warmup", warmup)
    try:
        preload('{"estimators": ["VRTrees"]}')
    finally:
        gc.unfreeze()  # the server's freeze (this process is a test's)
    assert len(started) == 1
    # (other tests' progress threads may still run in this process: only this one is asked)
    assert not started[0].is_alive()


def test_the_fork_waits_for_a_compilations_progress_lines(monkeypatch):
    # a run that compiled a kernel just before its server starts holds the thread of the
    # compilation's progress lines for up to an interval (15 s): the fork must end it first,
    # or the run takes the fresh interpreter (seen on a loaded machine with a fresh cache)
    from treelab.engine import _notice
    from treelab.experiment import _fork_server

    seen = []

    def refuse() -> str:
        seen.append(threading.active_count())
        return "refused here: only the threads at the check are looked at"

    monkeypatch.setattr(_fork_server, "can_fork", refuse)
    progress = _notice._Progress("tree growth")
    monkeypatch.setattr(_notice, "_progress", progress)
    before = threading.active_count()
    assert progress._thread.is_alive()
    assert _fork_server.fork_server("{}") is False
    assert seen == [before - 1]  # the progress thread had ended when the fork was checked
    assert not progress._thread.is_alive()
