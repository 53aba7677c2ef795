"""Python's garbage collector around treelab's imports, its workers' server and the command's
exit (``treelab._collector``): paused while the imports make their long-lived objects, frozen
in the server the workers are forked from, and frozen at the command's end after one
collection, so that every finalizer of the garbage there is then still runs."""

import gc
import os
import subprocess
import sys

import pytest
from helpers_children import REPO, run_child

from treelab._collector import collector_paused


def test_the_pause_restores_the_collector_as_it_was():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer block still holds it off
    assert gc.isenabled()
    with pytest.raises(KeyError), collector_paused():
        raise KeyError("the block fails")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # off before the block: off after it
    finally:
        gc.enable()


@pytest.mark.parametrize("module", ["treelab", "treelab.experiment"])
def test_importing_treelab_runs_no_full_collection_and_leaves_the_collector_on(module):
    # without the pause, importing numba, scikit-learn, SciPy, pandas and xarray ran two or
    # three full collections over everything imported so far
    line = run_child(f"""
        import gc
        full = []
        gc.callbacks.append(lambda phase, info: full.append(1)
                            if phase == "start" and info["generation"] == 2 else None)
        import {module}
        print(len(full), gc.isenabled(), gc.get_freeze_count())
    """)
    assert line == "0 True 0"


def test_the_exit_collection_runs_the_finalizers_of_garbage_then_freezes():
    line = run_child("""
        import gc
        from treelab._collector import quick_exit_collection

        finalized = []

        class Cycle:
            def __init__(self):
                self.me = self

            def __del__(self):
                finalized.append(1)

        Cycle()  # unreachable at once, in a reference cycle: only a collection finalizes it
        gc.disable()  # (no pass of the collector's own may finalize it first)
        quick_exit_collection()
        print(len(finalized), gc.get_freeze_count() > 1000)
    """)
    assert line == "1 True"


def test_the_command_freezes_the_collector_before_its_exit(tmp_path):
    # the console entry point (``treelab``, ``python -m treelab``), not main(): the exit
    # handler registered first runs last, after the command returned
    line = run_child("""
        import atexit, gc, sys
        atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 1000))
        from treelab.cli import console
        sys.argv = ["treelab", "list-data"]
        console()
    """)
    assert line == "frozen at exit: True"
    done = subprocess.run([sys.executable, "-m", "treelab", "list-data"], cwd=REPO,
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=REPO))
    assert done.returncode == 0 and "segmentation" in done.stdout


def test_main_leaves_the_callers_collector_alone(capsys):
    from treelab.cli import main

    assert main(["list-data"]) == 0
    assert gc.get_freeze_count() == 0 and gc.isenabled()


def test_the_workers_server_freezes_what_it_imported_and_what_its_warm_up_loaded(monkeypatch):
    import treelab._warmup
    from treelab.experiment._fork_server import preload

    def unfrozen(objects):  # gc.get_objects() leaves out the frozen
        ids = {id(o) for o in gc.get_objects()}
        return sum(id(o) in ids for o in objects)

    before = [[i] for i in range(100)]  # made before the preload, as the imports
    seen = {}
    made = []

    def warmup(estimators, progress=True):  # stands for the kernels it loads
        seen["imports unfrozen in the warm-up"] = unfrozen(before)
        made.extend([i] for i in range(100))

    monkeypatch.setattr(treelab._warmup, "warmup", warmup)
    assert gc.get_freeze_count() == 0
    try:
        preload('{"estimators": ["VRTrees"]}')
        after = unfrozen(before + made)
    finally:
        gc.unfreeze()  # (this process is a test's, not a server's)
    assert seen["imports unfrozen in the warm-up"] == 0
    assert after == 0  # the warm-up's objects too
