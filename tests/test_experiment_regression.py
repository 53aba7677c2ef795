"""The experiment runner on regression: configuration checks, the per-cell metrics against
independent computations, plain random folds, the K-training-sets decompositions, equal
results on every backend and a stopped run that resumes to the same result."""

import importlib
from functools import partial

import numpy as np
import pytest
import xarray as xr
from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score

from treelab.analysis import louppe_variance
from treelab.analysis.regression import bias_variance_diversity
from treelab.experiment import TIMING_VARS, ExperimentConfig, expand, run, status
from treelab.experiment.cells import _build
from treelab.experiment.data import load_base, train_test
from treelab.experiment.seeds import cell_seed

run_module = importlib.import_module("treelab.experiment.run")


def small(out=None, **changes):
    spec = dict(
        task="regression",
        datasets=[{"generator": "friedman1", "n_samples": 90}, {"regression": "stackloss"}],
        ensembles=[{"name": "VR", "estimator": "VRTreesRegressor",
                    "params": {"n_estimators": 5, "sampling": "bootstrap"}},
                   {"name": "skRF", "estimator": "sklearn.ensemble:RandomForestRegressor",
                    "params": {"n_estimators": 5}}],
        alphas=[0.0, 1.0],
        protocol={"name": "kfold", "n_splits": 3},
        seed=3,
    )
    spec.update(changes)
    if out is not None:
        spec["out"] = str(out)
    return ExperimentConfig(**spec)


def strip(ds):
    return ds.drop_vars(list(TIMING_VARS))


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    return run(small(tmp_path_factory.mktemp("serial")), progress=False)


# ----------------------------------------------------------------------------- configuration

@pytest.mark.parametrize("changes, message", [
    ({"task": "regress"}, "task must be one of"),
    ({"ensembles": [{"estimator": "VRTrees"}]}, "is not a regressor"),
    ({"task": "classification", "ensembles": [{"estimator": "VRTreesRegressor"}],
      "datasets": [{"generator": "waveform"}]}, "is a regressor"),
    ({"datasets": [{"generator": "waveform"}]}, "has classes"),
    ({"datasets": [{"uci": "iris"}]}, "has classes"),
    ({"task": "classification", "ensembles": [{"estimator": "VRTrees"}]},
     "has real-valued targets"),
    ({"datasets": [{"regression": "no_such_set"}]}, "regression must be one of"),
    ({"measures": {"strength_correlation": {}}}, "not a measure of a regression"),
    ({"measures": {"diagnose": {"threshold": [0.5]}}}, "takes no options"),
    ({"measures": {"louppe_variance": {}}}, "protocol 'bias_variance'"),
    ({"ensembles": [{"estimator": "VRTreesRegressor", "single": {"estimator": "VRTrees"}}]},
     "no single-model baseline"),
])
def test_a_configuration_of_the_wrong_kind_is_refused_naming_it(changes, message):
    with pytest.raises((ValueError, TypeError), match=message):
        small(**changes)


def test_group_options_are_checked_for_regression():
    bv = {"name": "bias_variance", "n_sets": 2, "n_train": 20, "n_test": 10}
    with pytest.raises(ValueError, match="loss must be one of"):
        small(protocol=bv, measures={"bias_variance_diversity": {"loss": "zero_one"}})
    with pytest.raises(ValueError, match="true function is known"):
        small(protocol=bv, measures={"bias_variance_diversity": {"target": "true_target"}})
    with pytest.raises(ValueError, match="regression experiments"):
        ExperimentConfig(datasets=[{"generator": "waveform"}], ensembles=[
            {"estimator": "VRTrees"}], protocol=bv, measures={"louppe_variance": {}})


def test_a_data_set_too_small_for_the_protocol_is_refused_before_any_cell():
    with pytest.raises(ValueError, match=r"stackloss.*21 rows cannot make the 30 folds"):
        expand(small(datasets=[{"regression": "stackloss"}],
                     protocol={"name": "kfold", "n_splits": 30}))
    with pytest.raises(ValueError, match=r"stackloss.*cannot split.*n_train=50 exceeds"):
        expand(small(datasets=[{"regression": "stackloss"}],
                     protocol={"name": "bias_variance", "n_sets": 2, "n_train": 50,
                               "n_test": 5}))


def test_classification_cell_keys_do_not_carry_the_task():
    cfg = ExperimentConfig(datasets=[{"generator": "waveform", "n_samples": 60}],
                           ensembles=[{"estimator": "VRTrees"}], protocol={"name": "kfold",
                                                                          "n_splits": 2})
    assert "task" not in cfg.to_dict()
    assert all("task" not in c.spec for c in expand(cfg))
    assert all(c.spec["task"] == "regression" for c in expand(small()))


# ----------------------------------------------------------------------------- per cell

def test_folds_are_plain_random_folds_partitioning_the_rows():
    cells = [c for c in expand(small()) if c.coords["dataset"] == "stackloss"
             and c.coords["ensemble"] == "VR" and c.coords["alpha"] == 0.0]
    base = load_base(cells[0].spec["dataset"], 3)
    tests = [train_test(c.spec)[1] for c in cells]
    rows = np.concatenate([t.X for t in tests])
    assert rows.shape[0] == base.n_samples  # every row tested once
    assert sorted(map(tuple, rows)) == sorted(map(tuple, base.X))
    assert [t.n_samples for t in tests] == [7, 7, 7]


def test_cell_metrics_match_scikit_learn_on_a_refit(serial):
    """A cell refitted from its own rows and seed gives the stored MSE, MAE and R^2 as
    scikit-learn's metrics compute them."""
    for cell in expand(small())[::5]:
        train, test = train_test(cell.spec)
        ens = cell.spec["ensemble"]
        seed = cell_seed(3, "estimator", cell.spec["dataset"]["name"], [], ens["name"],
                         cell.spec["repeat"], cell.spec["fold"])
        est = _build(ens["estimator"], dict(ens["params"]), train, seed, 1).fit(train.X,
                                                                                 train.y)
        pred = est.predict(test.X)
        stored = serial.sel({k: v for k, v in cell.coords.items()})
        np.testing.assert_allclose(float(stored.mse), mean_squared_error(test.y, pred),
                                   rtol=1e-12)
        np.testing.assert_allclose(float(stored.mae), mean_absolute_error(test.y, pred),
                                   rtol=1e-12)
        np.testing.assert_allclose(float(stored.r2), r2_score(test.y, pred), rtol=1e-12)
        # the ambiguity decomposition holds per cell, and every ensemble has the bound
        assert abs(float(stored.ensemble_mse - stored.average_member_mse + stored.ambiguity)
                   ) < 1e-9
        np.testing.assert_allclose(float(stored.ensemble_mse), float(stored.mse), rtol=1e-12)
        assert np.isfinite(float(stored.rho_bar))


def test_result_variables_and_summary(serial, tmp_path):
    for name in ("mse", "mae", "r2", "ambiguity", "mean_member_mse", "rho_bar",
                 "breiman_bound", "oob_forest_mse", "n_train", "n_test"):
        assert name in serial, name
    assert "n_test_unseen" not in serial and "ensemble_error" not in serial
    assert serial.mse.attrs["units"] == "squared units of y"
    # out of bag for both the treelab regressor (replayed draws) and scikit-learn's forest
    assert np.isfinite(serial.oob_forest_mse.sel(ensemble="VR", alpha=0.0)).all()
    assert np.isfinite(serial.oob_forest_mse.sel(ensemble="skRF")
                       .isel(alpha=-1)).all()
    frame = run_module.summary(serial, "mse")
    assert list(frame.columns) == ["alpha=0", "alpha=1", "alpha=nan"]


# ----------------------------------------------------------------------------- backends, resume

def test_local_backend_gives_the_same_result(serial, tmp_path):
    ds = run(small(tmp_path), backend="local", n_workers=2, progress=False)
    xr.testing.assert_identical(strip(ds), strip(serial))


class Stopped(BaseException):
    """A run stopped from outside, between two cells."""


def test_a_stopped_run_resumes_to_the_same_result(serial, tmp_path, monkeypatch):
    real = run_module.execute
    ran = []

    def stopping(cells, **kwargs):
        for item in real(cells, **kwargs):
            if len(ran) == 7:
                raise Stopped
            ran.append(item[0].key)
            yield item

    monkeypatch.setattr(run_module, "execute", stopping)
    with pytest.raises(Stopped):
        run(small(tmp_path), progress=False)
    assert status(small(tmp_path))["done"] == 7
    monkeypatch.setattr(run_module, "execute", real)
    resumed = run(small(tmp_path), progress=False)
    xr.testing.assert_identical(strip(resumed), strip(serial))


# ----------------------------------------------------------------------------- K training sets

def decomposition_config(out):
    return small(out, datasets=[{"generator": "friedman1", "params": {"noise": 1.0}}],
                 ensembles=[{"name": "VR", "estimator": "VRTreesRegressor",
                             "params": {"n_estimators": 4}}],
                 protocol={"name": "bias_variance", "n_sets": 3, "n_train": 60,
                           "n_test": 40},
                 measures={"diagnose": {}, "bias_variance_diversity": {
                     "target": "true_target"}, "louppe_variance": {}})


def test_a_stopped_decomposition_run_resumes_to_the_same_result(tmp_path, monkeypatch):
    """Stopped after 4 of 6 cells (one alpha's group reduced, one cell of the other waiting
    with its outputs on disk), the next run fits only the 2 missing cells."""
    reference = run(decomposition_config(tmp_path / "ref"), progress=False)
    real = run_module.execute
    ran = []

    def stopping(cells, stop=None, **kwargs):
        for item in real(cells, **kwargs):
            if stop is not None and len(ran) == stop:
                raise Stopped
            ran.append(item[0].key)
            yield item

    monkeypatch.setattr(run_module, "execute", partial(stopping, stop=4))
    with pytest.raises(Stopped):
        run(decomposition_config(tmp_path / "stopped"), progress=False)
    assert len(list((tmp_path / "stopped" / "outputs").glob("*.npz"))) == 1
    ran.clear()
    monkeypatch.setattr(run_module, "execute", stopping)
    resumed = run(decomposition_config(tmp_path / "stopped"), progress=False)
    assert len(ran) == 2
    xr.testing.assert_identical(strip(resumed), strip(reference))


def test_decompositions_over_k_training_sets_match_a_hand_refit(tmp_path):
    """bias_variance_diversity (noise apart, against Friedman #1's true function) and
    louppe_variance per (dataset, ensemble, alpha) equal the analysis functions on the K
    models refitted by hand, and the terms sum to the measured loss."""
    cfg = decomposition_config(tmp_path)
    ds = run(cfg, progress=False)
    assert "repeat" not in ds.diversity.dims and "fold" not in ds.diversity.dims
    for alpha in (0.0, 1.0):
        cells = [c for c in expand(cfg) if c.coords["alpha"] == alpha]
        outs, test = [], None
        for cell in cells:
            train, test = train_test(cell.spec)
            seed = cell_seed(3, "estimator", "friedman1", [], "VR", cell.spec["repeat"], 0)
            est = _build("VRTreesRegressor", dict(cell.spec["ensemble"]["params"]), train,
                         seed, 1).fit(train.X, train.y)
            outs.append(est.member_predict(test.X))
        rep = np.stack(outs)
        bvd = bias_variance_diversity(rep, test.y, target=test.true_target)
        lv = louppe_variance(rep)
        at = ds.sel(dataset="friedman1", ensemble="VR", alpha=alpha)
        for name in ("expected_loss", "noise", "average_bias", "average_variance",
                     "diversity"):
            np.testing.assert_allclose(float(at[name]), float(bvd[name]), rtol=1e-12)
        np.testing.assert_allclose(float(at.mean_rho), float(lv.mean_rho), rtol=1e-12)
        # the loss of the K forests measured directly, against the sum of the terms
        direct = np.mean((rep.mean(axis=1) - test.y) ** 2)
        terms = (at.noise + at.noise_cross + at.average_bias + at.average_variance
                 - at.diversity)
        np.testing.assert_allclose(float(terms), direct, rtol=1e-10)


def test_decompositions_on_a_pool_data_set(tmp_path):
    """The bias_variance protocol on a real data set (a pool: one shared test split, K
    training sets drawn from the rest): the expected loss over the K training sets is the
    mean over repeats of the cells' own MSE on the shared test rows."""
    cfg = small(tmp_path, datasets=[{"regression": "stackloss"}],
                protocol={"name": "bias_variance", "n_sets": 3, "n_train": 12, "n_test": 6},
                measures={"bias_variance_diversity": {}})
    ds = run(cfg, progress=False)
    assert int(ds.n_test.max()) == int(ds.n_test.min()) == 6
    np.testing.assert_allclose(ds.expected_loss.values,
                               ds.mse.mean(["repeat", "fold"]).values, rtol=1e-12)
    assert "bias_with_noise" in ds and "noise" not in ds  # y* = y: the noise stays inside


def test_a_file_run_as_classification_then_regression_keeps_each_tasks_folds(tmp_path):
    # a process's cache of splits was keyed by the rows and the protocol, not the task: a
    # regression on a file after a classification on it took the stratified folds (mse
    # 1.20 on fold 0 where its plain random folds give 0.80)
    import pandas as pd
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.model_selection import RepeatedStratifiedKFold

    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    y = np.clip(np.round(X[:, 0] * 1.5 + 2), 0, 4).astype(int)
    y[:12] = np.arange(12) % 5
    path = tmp_path / "counts.csv"
    pd.DataFrame(X, columns=list("abc")).assign(target=y).to_csv(path, index=False)

    def config(task, estimator):
        return ExperimentConfig(
            datasets=[{"name": "counts", "path": str(path)}], task=task, seed=2,
            ensembles=[{"name": "RF", "estimator": estimator, "params": {"n_estimators": 5}}],
            protocol={"name": "stratified_kfold", "n_splits": 3}, out=str(tmp_path / task))

    run(config("classification", "RandomForest"), progress=False)
    ds = run(config("regression", "sklearn.ensemble:RandomForestRegressor"), progress=False)
    # plain random folds: the stratified splitter over a single stratum
    splitter = RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=2)
    for fold, (train, test) in enumerate(splitter.split(X, np.zeros(90))):
        seed = cell_seed(2, "estimator", "counts", [], "RF", 0, fold)
        model = RandomForestRegressor(n_estimators=5, random_state=seed, n_jobs=1)
        pred = model.fit(X[train], y[train]).predict(X[test])
        got = float(ds.mse.sel(dataset="counts", ensemble="RF", repeat=0, fold=fold).squeeze())
        assert got == pytest.approx(mean_squared_error(y[test], pred), rel=1e-12), fold
