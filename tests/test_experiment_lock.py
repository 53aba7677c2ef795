"""The output folder's ``.lock`` (issue 27 item 6): gone after a clean finish, left behind with
who held it when a run crashes or is interrupted, and reported by the run that resumes."""

from __future__ import annotations

import importlib
import logging
import os
import subprocess
import sys

import pytest

from treelab.experiment import ExperimentConfig, run
from treelab.experiment.store import CellStore, StoreLockedError


def config(out):
    return ExperimentConfig(
        name="lock", out=str(out), seed=1, backend="serial", alphas=[0.5],
        datasets=[{"name": "wine", "builtin": "wine"}],
        ensembles=[{"name": "Agg.", "estimator": "VRTrees", "params": {"n_estimators": 3}}],
        protocol={"name": "stratified_kfold", "n_splits": 2})


def test_a_clean_run_leaves_no_lock_file(tmp_path):
    run(config(tmp_path / "o"), progress=False)
    assert not (tmp_path / "o" / ".lock").exists()
    assert (tmp_path / "o" / "result.nc").is_file()
    run(config(tmp_path / "o"), progress=False)  # resuming: also clean
    assert not (tmp_path / "o" / ".lock").exists()


def test_the_held_lock_names_its_holder(tmp_path):
    with CellStore(tmp_path):
        text = (tmp_path / ".lock").read_text()
        assert text.startswith(f"pid {os.getpid()} on ")
        with pytest.raises(StoreLockedError, match=f"pid {os.getpid()} on "):
            CellStore(tmp_path).open()
    assert not (tmp_path / ".lock").exists()


def test_an_interrupted_run_leaves_the_lock_and_the_next_run_says_so(tmp_path, monkeypatch,
                                                                      caplog):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    # the module (the package's ``run`` attribute is the function of the same name)
    run_module = importlib.import_module("treelab.experiment.run")
    monkeypatch.setattr(run_module, "execute", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(config(tmp_path / "o"), progress=False)
    left = (tmp_path / "o" / ".lock").read_text()
    assert left.startswith(f"pid {os.getpid()} on ")
    monkeypatch.undo()
    with caplog.at_level(logging.WARNING, logger="treelab"):
        run(config(tmp_path / "o"), progress=False)
    assert any("did not finish cleanly" in r.getMessage() and left.strip() in r.getMessage()
               for r in caplog.records)
    assert not (tmp_path / "o" / ".lock").exists()


def test_a_killed_process_leaves_a_lock_the_next_store_takes_over(tmp_path):
    code = ("import os, sys; from treelab.experiment.store import CellStore; "
            "s = CellStore(sys.argv[1]); s.open(); print(os.getpid(), flush=True); os._exit(9)")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 9
    pid = proc.stdout.split()[0]
    assert (tmp_path / ".lock").read_text().startswith(f"pid {pid} on ")
    store = CellStore(tmp_path)
    store.open()  # the dead process's lock is free: taken over
    assert store.stale_lock.startswith(f"pid {pid} on ")
    store.close()
    assert not (tmp_path / ".lock").exists()
