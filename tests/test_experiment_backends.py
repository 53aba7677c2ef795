"""Every backend gives the same Dataset for the same configuration (timings aside)."""

import os

import pytest
import xarray as xr

from treelab.experiment import TIMING_VARS, ExperimentConfig, run


def config(out):
    return ExperimentConfig(
        datasets=[{"name": "wave", "generator": "waveform", "n_samples": 120},
                  {"name": "monks", "generator": "monks", "params": {"problem": 2}}],
        ensembles=[{"name": "Bag.", "estimator": "VRTrees",
                    "params": {"n_estimators": 6, "sampling": "bootstrap"}},
                   {"name": "ET", "estimator": "ExtraTrees", "params": {"n_estimators": 6}}],
        alphas=[0.0, 0.5, 1.0],
        transforms=[{"kind": "class_noise", "values": [0.0, 0.1]}],
        protocol={"name": "holdout", "n_repeats": 2},
        seed=7,
        out=str(out),
    )


def strip(ds):
    return ds.drop_vars(list(TIMING_VARS))


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    return strip(run(config(tmp_path_factory.mktemp("serial")), backend="serial",
                     progress=False))


def test_local_processes_identical(serial, tmp_path):
    ds = run(config(tmp_path), backend="local", n_workers=2, progress=False)
    xr.testing.assert_identical(strip(ds), serial)


def test_local_threads_identical(serial, tmp_path):
    ds = run(config(tmp_path), backend="local", n_workers=2, threads=True, progress=False)
    xr.testing.assert_identical(strip(ds), serial)


def test_dask_client_and_scheduler_address_identical(serial, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        by_client = run(config(tmp_path / "client"), client=client, progress=False)
        by_address = run(config(tmp_path / "address").replace(
            scheduler=cluster.scheduler_address), backend="dask", progress=False)
    xr.testing.assert_identical(strip(by_client), serial)
    xr.testing.assert_identical(strip(by_address), serial)


def test_dask_backend_starts_its_own_local_cluster(serial, tmp_path):
    pytest.importorskip("distributed")
    import socket
    import warnings

    # with dask's dashboard port taken (another cluster, a notebook's), the run's own cluster
    # once warned "Port 8787 is already in use"
    taken = socket.socket()
    try:
        taken.bind(("", 8787))
        taken.listen()
    except OSError:
        pass  # taken already, which is what the check needs
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ds = run(config(tmp_path), backend="dask", n_workers=1, progress=False)
    finally:
        taken.close()
    assert not [w for w in caught if "already in use" in str(w.message)]
    xr.testing.assert_identical(strip(ds), serial)


# ------------------------------------------------- fold batches and shared work (issue 28)

def spectrum(out):
    """The spectrum study's shape: three constructions, alphas up to 1, k-fold CV."""
    return ExperimentConfig(
        datasets=[{"name": "wave", "generator": "waveform", "n_samples": 150},
                  {"name": "monks", "generator": "monks", "params": {"problem": 1}}],
        ensembles=[{"name": "Agg.", "estimator": "VRTrees",
                    "params": {"n_estimators": 6, "sampling": "none"}},
                   {"name": "Bag.", "estimator": "VRTrees",
                    "params": {"n_estimators": 6, "sampling": "bootstrap"}},
                   {"name": "Sub.", "estimator": "VRTrees",
                    "params": {"n_estimators": 6, "sampling": "subspace",
                               "subspace_fraction": 0.5}}],
        alphas=[0.0, 0.5, 0.9, 1.0],
        protocol={"name": "stratified_kfold", "n_splits": 3},
        seed=5,
        out=str(out),
    )


def stored(folder):
    """Every stored cell's values by key, timings left out."""
    from treelab.experiment.store import CellStore

    out = {}
    for key, rec in CellStore(folder).records().items():
        out[key] = {k: v for k, v in rec["vars"].items() if k not in TIMING_VARS}
    return out


def test_cells_sharing_their_fold_store_the_results_of_cells_alone(tmp_path):
    alone = run(spectrum(tmp_path / "alone"), backend="serial", share=False, progress=False)
    serial = run(spectrum(tmp_path / "serial"), backend="serial", progress=False)
    local = run(spectrum(tmp_path / "local"), backend="local", n_workers=2, progress=False)
    expected = stored(tmp_path / "alone")
    assert len(expected) == 2 * 3 * 4 * 3
    assert stored(tmp_path / "serial") == expected
    assert stored(tmp_path / "local") == expected
    xr.testing.assert_identical(strip(serial), strip(alone))
    xr.testing.assert_identical(strip(local), strip(alone))


def test_fold_batches_hold_one_training_fold_deterministic_forests_first(tmp_path):
    from treelab.engine import sharing
    from treelab.experiment import expand
    from treelab.experiment.backends import fold_batches
    from treelab.experiment.cells import run_cell

    cells = expand(spectrum(tmp_path))
    batches = fold_batches(cells)
    assert len(batches) == 2 * 3  # data sets x folds
    assert sorted(c.key for b in batches for c in b) == sorted(c.key for c in cells)
    for batch in batches:
        rows = {(c.coords["dataset"], c.coords["repeat"], c.coords["fold"]) for c in batch}
        assert len(rows) == 1 and len(batch) == 3 * 4
        for i in range(0, 12, 4):  # each ensemble's alphas, 1 first
            assert [c.coords["alpha"] for c in batch[i:i + 4]] == [1.0, 0.9, 0.5, 0.0]
            assert len({c.coords["ensemble"] for c in batch[i:i + 4]}) == 1
    # run in that order in one process, a batch reuses what its first cells kept
    store = sharing.SharedWork()
    with sharing.shared_work(store):
        for cell in batches[0]:
            run_cell(cell.spec, share=False)
    assert store.hits["trees"] >= 3 * 2 and store.hits["features"] > 0


WORKER_PROBE = """
import json
import sys


def probe():
    # what the worker holds before it imports anything itself
    had = "treelab.experiment.cells" in sys.modules
    from treelab.engine.kernels._grow import grow_tree

    return had, len(grow_tree.overloads)


if __name__ == "__main__":
    from concurrent.futures import ProcessPoolExecutor

    from treelab.experiment.backends import local_context, start_worker_server

    started = start_worker_server(["VRTrees"])
    again = start_worker_server(["VRTrees"])  # running: left as it is
    with ProcessPoolExecutor(max_workers=1, mp_context=local_context()) as pool:
        had, kernels = pool.submit(probe).result()
    print(json.dumps([started, again, had, kernels]))
"""


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="the fork server: POSIX only")
def test_local_workers_start_with_the_cell_modules_and_kernels_loaded(tmp_path):
    # the fork server imports what a worker needs and warms the run's estimators up once;
    # every worker forked from it starts with them (no import or kernel load of its own)
    import json
    import os
    import subprocess
    import sys

    import treelab

    script = tmp_path / "probe.py"
    script.write_text(WORKER_PROBE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(treelab.__file__)), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                         text=True, check=True, timeout=600)
    started, again, had, kernels = json.loads(out.stdout.strip().splitlines()[-1])
    assert started and not again
    assert had, "the worker imported the cell modules itself"
    assert kernels > 0, "the worker found no growth kernel loaded"


def test_the_worker_server_starts_without_a_still_importing_line(monkeypatch):
    # the demo's bar read "0/990 [...]treelab: still importing ...": the fork server's own
    # import is no step of the user's, so its slow-step notice is off (and only there)
    from multiprocessing import forkserver

    from treelab.experiment import backends

    seen = {}

    class Server:
        _forkserver_pid = None
        _preload_modules = ["__main__"]

        def ensure_running(self):
            seen.update(os.environ)

    monkeypatch.setattr(forkserver, "_forkserver", Server())
    monkeypatch.setattr(forkserver, "set_forkserver_preload", lambda modules: None)
    monkeypatch.delenv("TREELAB_SLOW_AFTER", raising=False)
    assert backends.start_worker_server(["VRTrees"])
    assert float(seen["TREELAB_SLOW_AFTER"]) >= 1e6 and backends.PRELOAD_ENV in seen
    assert "TREELAB_SLOW_AFTER" not in os.environ and backends.PRELOAD_ENV not in os.environ
