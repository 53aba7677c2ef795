"""diagnose() and gain_ties() on fitted ensembles (a stand-in and the real estimators)."""

import warnings
from types import SimpleNamespace

import numpy as np
import pytest
import xarray as xr

import treelab
from treelab.analysis import (
    diagnose,
    error_arrangement,
    error_correlation,
    gain_ties,
    strength_correlation,
    thresholded_mse,
    topk_error,
)


class StandIn:
    """The fitted-ensemble contract of docs/architecture.md, with fixed member outputs."""

    def __init__(self, member_p, classes, combine="average"):
        self._p = member_p
        self.classes_ = np.asarray(classes)
        self.n_classes_ = len(classes)
        self.combine = combine
        T = member_p.shape[0]
        self.forest_ = SimpleNamespace(
            ties_feature=np.arange(T, dtype=np.int64),
            ties_test=2 * np.arange(T, dtype=np.int64),
            n_decision=np.full(T, 4, dtype=np.int64),
        )

    def member_proba(self, X):
        return self._p

    def tree_stats(self):
        T = self._p.shape[0]
        return xr.Dataset(
            {"n_leaves": ("tree", np.full(T, 5)), "alpha": ("tree", np.full(T, 0.5))},
            coords={"tree": np.arange(T)},
        )


def test_stand_in_matches_measures():
    rng = np.random.default_rng(5)
    member_p = rng.dirichlet(np.ones(3), (7, 50))
    classes = np.array([10, 20, 30])
    y = rng.integers(0, 3, 50)
    ens = StandIn(member_p, classes)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = diagnose(ens, None, classes[y], single=0.4)
    labels = np.argmax(member_p, axis=2)
    proba = member_p.mean(axis=0)
    for ref in (
        error_correlation(labels, y),
        strength_correlation(labels, y),
        error_arrangement(labels, y),
    ):
        for name in ref.data_vars:
            np.testing.assert_array_equal(ds[name].values, ref[name].values)
    np.testing.assert_allclose(ds.thresholded_mse, thresholded_mse(proba, y))
    np.testing.assert_allclose(ds.topk_error, topk_error(proba, y))
    assert float(ds.ensemble_error) == pytest.approx(np.mean(np.argmax(proba, 1) != y))
    assert float(ds.error_ratio) == pytest.approx(float(ds.ensemble_error) / 0.4)
    np.testing.assert_allclose(ds.g, np.arange(7) / 4)
    assert "tree_alpha" in ds and "n_leaves" in ds and "exact_mse" not in ds
    assert np.isnan(diagnose(ens, None, classes[y]).single_error)
    vote = diagnose(StandIn(member_p, classes, combine="vote"), None, classes[y])
    assert "vote" in vote.ensemble_error.attrs["description"]


def test_a_foreign_tree_stats_is_read_with_its_names_and_units():
    """A foreign ensemble's tree_stats() Dataset: its per-tree data variables come with their
    values, long names and units; its coordinates and variables over other dims do not."""

    class WithUnits(StandIn):
        def tree_stats(self):
            T = self._p.shape[0]
            return xr.Dataset(
                {"n_leaves": ("tree", np.arange(T) + 3, {"long_name": "leaves", "units": "count"}),
                 "depth_hist": (("tree", "level"), np.ones((T, 2)))},
                coords={"tree": np.arange(T), "level": [0, 1],
                        "seed_of_tree": ("tree", np.arange(T) * 7)},
            )

    rng = np.random.default_rng(2)
    member_p = rng.dirichlet(np.ones(2), (4, 20))
    ds = diagnose(WithUnits(member_p, [0, 1]), None, rng.integers(0, 2, 20))
    np.testing.assert_array_equal(ds.n_leaves.values, np.arange(4) + 3)
    assert (ds.n_leaves.attrs["long_name"], ds.n_leaves.attrs["units"]) == ("leaves", "count")
    assert "seed_of_tree" not in ds and "tree_tree" not in ds and "depth_hist" not in ds


def test_stand_in_bad_input():
    ens = StandIn(np.full((2, 3, 2), 0.5), ["a", "b"])
    with pytest.raises(ValueError, match="rows"):
        diagnose(ens, None, np.array(["a", "b"]))
    with pytest.raises(ValueError, match="true_proba"):
        diagnose(ens, None, np.array(["a", "b", "a"]), true_proba=np.full((3, 3), 0.3))
    with pytest.raises(TypeError, match="fitted"):
        diagnose(object(), None, np.array(["a"]))


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    n, d = 600, 5
    X = rng.normal(size=(n, d))
    logits = np.stack([X[:, 0], X[:, 1] - X[:, 0], 0.5 * X[:, 2]], axis=1)
    true_p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = np.array(["x", "y", "z"])[[rng.choice(3, p=p) for p in true_p]]
    est = treelab.VRTrees(alpha=0.5, n_estimators=15, random_state=1).fit(X[:400], y[:400])
    return est, X, y, true_p


@pytest.mark.parametrize("combine", ["average", "vote", "sum", "likelihood", "bayesian"])
def test_real_ensemble_errors(fitted, combine):
    est, X, y, true_p = fitted
    est = est.set_params(combine=combine)
    Xte, yte = X[400:], y[400:]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = diagnose(est, Xte, yte)
    assert float(ds.ensemble_error) == pytest.approx(np.mean(est.predict(Xte) != yte))
    member = est.member_predict(Xte)
    np.testing.assert_allclose(ds.member_error, np.mean(member != yte[None, :], axis=1))
    assert np.isnan(ds.single_error) and np.isnan(ds.error_ratio)
    est.set_params(combine="average")


def test_real_ensemble_single_model_and_round_trip(fitted, tmp_path):
    est, X, y, true_p = fitted
    Xte, yte = X[400:], y[400:]
    ds = diagnose(est, Xte, yte, X_train=X[:400], y_train=y[:400], true_proba=true_p[400:])
    single = treelab.DecisionTree(random_state=1).fit(X[:400], y[:400])
    e_s = np.mean(single.predict(Xte) != yte)
    assert float(ds.single_error) == pytest.approx(e_s)
    assert float(ds.error_ratio) == pytest.approx(float(ds.ensemble_error) / e_s)
    np.testing.assert_allclose(diagnose(est, Xte, yte, single=single).single_error, ds.single_error)
    assert 0 <= float(ds.exact_mse) <= 2
    np.testing.assert_array_equal(ds.ties, est.forest_.ties_feature)
    assert ds.sizes == {"tree": 15, "sample": 200, "threshold": 4, "k": 3, "class": 3}
    path = tmp_path / "diagnose.nc"
    ds.to_netcdf(path)
    with xr.open_dataset(path) as back:
        xr.testing.assert_identical(back.load(), ds)


def test_gain_ties_real(fitted):
    est = fitted[0]
    g = gain_ties(est)
    fr = est.forest_
    np.testing.assert_array_equal(g.ties, fr.ties_feature)
    np.testing.assert_array_equal(g.decision_nodes, fr.n_decision)
    expected = np.where(fr.n_decision > 0, fr.ties_feature / np.maximum(fr.n_decision, 1), np.nan)
    np.testing.assert_allclose(g.g, expected)
    assert float(g.mean_g) == pytest.approx(np.nanmean(expected))
    np.testing.assert_array_equal(gain_ties(fr, per="test").ties, fr.ties_test)
    with pytest.raises(ValueError, match="per"):
        gain_ties(est, per="node")
    with pytest.raises(TypeError, match="fitted"):
        gain_ties(object())


@pytest.mark.parametrize("combine", ["average", "vote", "sum"])
def test_member_counts_given_same_result(fitted, combine):
    # counts computed beforehand (the runner times them as the prediction) must give the
    # Dataset of the pass diagnose makes itself, bit for bit; other models refuse them
    est, X, y, true_p = fitted
    est = est.set_params(combine=combine)
    Xte, yte = X[400:], y[400:]
    own = diagnose(est, Xte, yte, X_train=X[:400], y_train=y[:400])
    counts = est.member_counts(Xte)
    given = diagnose(est, Xte, yte, X_train=X[:400], y_train=y[:400], member_counts=counts)
    xr.testing.assert_identical(given, own)
    with pytest.raises(ValueError, match="member_counts"):
        diagnose(est, Xte, yte, member_counts=counts[:, :10])
    est.set_params(combine="average")
    labels = est.member_predict(Xte)
    with pytest.raises(ValueError, match="member_counts="):
        diagnose(labels, None, yte, member_counts=counts)
