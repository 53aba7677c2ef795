"""Every backend gives the same Dataset for the same configuration (timings aside)."""

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
