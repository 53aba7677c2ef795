"""The engine's threads: one persistent pool per process, a few tasks per call (not one per
item), small forests on the calling thread, and the same results whatever the threads."""

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import treelab
from treelab.engine import _resources
from treelab.engine._resources import run_threads
from treelab.engine.forest import THREADS_MIN_ROW_TREES


class Starts:
    """Counts thread starts and pool submissions while installed."""

    def __init__(self, monkeypatch):
        self.threads = 0
        self.submits = 0
        start, submit = threading.Thread.start, ThreadPoolExecutor.submit

        def counted_start(thread, *a, **k):
            self.threads += 1
            return start(thread, *a, **k)

        def counted_submit(pool, *a, **k):
            self.submits += 1
            return submit(pool, *a, **k)

        monkeypatch.setattr(threading.Thread, "start", counted_start)
        monkeypatch.setattr(ThreadPoolExecutor, "submit", counted_submit)


def square(x):
    return x * x


def test_results_come_in_the_order_of_the_items():
    items = list(range(200))
    assert run_threads(square, items, 4) == [x * x for x in items]
    assert run_threads(square, items, 1) == [x * x for x in items]
    assert run_threads(square, [], 4) == []
    assert run_threads(square, [3], 4) == [9]


def test_a_call_hands_the_pool_one_task_per_helper_and_the_pool_persists(monkeypatch):
    run_threads(square, range(10), 3)  # the pool made (and its threads started) once
    seen = Starts(monkeypatch)
    for _ in range(30):
        assert run_threads(square, range(100), 3) == [x * x for x in range(100)]
    # one submission per helper (2 a call), never one per item; no new thread per call
    assert seen.submits == 30 * 2
    assert seen.threads <= 2


def test_a_failing_item_raises_in_the_caller_and_the_pool_goes_on():
    def fail_at_7(x):
        if x == 7:
            raise ValueError("item 7")
        return x

    with pytest.raises(ValueError, match="item 7"):
        run_threads(fail_at_7, range(50), 2)
    assert run_threads(square, range(50), 2) == [x * x for x in range(50)]


def test_calls_from_helper_threads_and_from_many_threads_finish():
    # a call made inside a pool task (nested) and calls from more threads than the pool has
    # must not wait on each other: every caller works through its own items
    def nested(x):
        return sum(run_threads(square, range(x, x + 20), 2))

    out: list = []

    def caller():
        out.append(run_threads(nested, range(16), 2))

    callers = [threading.Thread(target=caller) for _ in range(6)]
    for t in callers:
        t.start()
    for t in callers:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in callers), "a call waited on a busy pool"
    want = [sum(y * y for y in range(x, x + 20)) for x in range(16)]
    assert out == [want] * 6


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform != "linux",
                    reason="os.fork: POSIX (Linux) only")
def test_a_forked_child_gets_a_pool_of_its_own():
    run_threads(square, range(10), 2)  # the parent's pool exists
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its copy of the pool has no threads
        try:
            ok = run_threads(square, range(100), 2) == [x * x for x in range(100)]
            os.write(write, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1" and status == 0
    os.close(read)


def test_a_small_forest_grows_on_the_calling_thread(monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    assert 60 * 10 < THREADS_MIN_ROW_TREES
    treelab.VRTrees(n_estimators=10, alpha=0.5, random_state=0, n_jobs=2).fit(X, y)  # compiled
    seen = Starts(monkeypatch)
    a = treelab.VRTrees(n_estimators=10, alpha=0.5, random_state=0, n_jobs=2).fit(X, y)
    assert seen.submits == 0 and seen.threads == 0
    b = treelab.VRTrees(n_estimators=10, alpha=0.5, random_state=0, n_jobs=1).fit(X, y)
    for name in a.forest_._fields:
        assert getattr(a.forest_, name).tobytes() == getattr(b.forest_, name).tobytes(), name


def test_a_large_enough_forest_uses_the_pool(monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 3))
    y = (X[:, 0] > 0).astype(int)
    assert 500 * 20 >= THREADS_MIN_ROW_TREES
    seen = Starts(monkeypatch)
    treelab.VRTrees(n_estimators=20, alpha=0.5, random_state=0, n_jobs=2).fit(X, y)
    assert seen.submits >= 1


def test_the_pool_grows_when_a_call_asks_for_more_threads():
    run_threads(square, range(10), 2)
    assert run_threads(square, range(100), 5) == [x * x for x in range(100)]
    assert _resources._POOL.size >= 4
