"""Out of bag for treelab's bagged regressors: the replayed bootstrap draws against an in-bag
mask read off the fitted trees themselves, and Breiman's out-of-bag bound against a
hand-rolled out-of-bag MSE."""

import numpy as np
import pytest
from sklearn.datasets import make_friedman1

from treelab import (
    BaggedTreesRegressor,
    ExtraTreesRegressor,
    RandomForestRegressor,
    RotationForestRegressor,
    VRTreesRegressor,
)
from treelab.analysis import breiman_regression_bound, diagnose_regression
from treelab.analysis.oob import regression_in_bag_counts


@pytest.fixture(scope="module")
def data():
    X, y = make_friedman1(80, random_state=1)
    return X, y


MODELS = [
    lambda: RandomForestRegressor(n_estimators=7, random_state=3),
    lambda: BaggedTreesRegressor(n_estimators=7, random_state=4),
    lambda: VRTreesRegressor(n_estimators=7, alpha=0.5, sampling="bootstrap", random_state=5),
    lambda: RotationForestRegressor(n_estimators=7, bootstrap=True, random_state=6),
]


@pytest.mark.parametrize("make", MODELS)
def test_in_bag_counts_rebuild_every_leaf_of_every_tree(data, make):
    """Every leaf of tree t predicts sum_i c_ti y_i / sum_i c_ti over the training rows that
    reach it (``apply``), with c the replayed in-bag counts: a check of every multiplicity
    against the fitted trees, independent of the replay. And a row a tree fits exactly is
    in its bag (an out-of-bag row of continuous y is never reproduced)."""
    X, y = data
    model = make().fit(X, y)
    counts = regression_in_bag_counts(model, y)
    assert counts.shape == (7, 80) and counts.dtype == np.int32
    assert (counts.sum(axis=1) == 80).all()  # n draws of a row among n
    leaves = model.apply(X)
    forest = model.forest_
    checked = 0
    for t in range(7):
        for leaf in np.unique(leaves[:, t]):
            rows = leaves[:, t] == leaf
            c = counts[t, rows]
            if c.sum() == 0:  # reached by out-of-bag rows alone
                continue
            value = forest.value[forest.node_offsets[t] + leaf]
            np.testing.assert_allclose(value, c @ y[rows] / c.sum(), rtol=1e-12)
            checked += 1
    assert checked > 7 * 10
    exact = model.member_predict(X) == y
    assert not (exact & (counts == 0)).any()
    assert exact[counts > 0].mean() > 0.9  # fully grown trees: almost every in-bag row


def test_oob_bound_matches_a_hand_rolled_out_of_bag_mse(data):
    X, y = data
    model = RandomForestRegressor(n_estimators=9, random_state=2).fit(X, y)
    f = model.member_predict(X)
    out = regression_in_bag_counts(model, y) == 0  # checked leaf by leaf above
    ds = breiman_regression_bound(model, X, y, oob=True)
    # the forest's out-of-bag error: each row's out-of-bag members' mean, over rows with one
    used = out.any(axis=0)
    oob_pred = np.array([f[out[:, i], i].mean() for i in np.flatnonzero(used)])
    np.testing.assert_allclose(float(ds.forest_mse), np.mean((y[used] - oob_pred) ** 2),
                               rtol=1e-12)
    # each member's error over the rows it did not see
    member = np.array([np.mean((y[out[t]] - f[t, out[t]]) ** 2) for t in range(9)])
    np.testing.assert_allclose(ds.member_mse.values, member, rtol=1e-12)
    assert int(ds.n_rows) == int(used.sum())
    # diagnose reports it for a treelab regressor given its training rows
    diag = diagnose_regression(model, X[:20], y[:20], X_train=X, y_train=y)
    np.testing.assert_allclose(float(diag.oob_forest_mse), float(ds.forest_mse), rtol=1e-12)
    assert "oob_rho_bar" in diag


def test_wrong_targets_or_unbagged_regressor_are_refused(data):
    X, y = data
    model = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="pass the training targets"):
        regression_in_bag_counts(model, y[::-1])
    with pytest.raises(ValueError, match="pass the training targets"):
        breiman_regression_bound(model, X[:40], y[:40], oob=True)
    unbagged = ExtraTreesRegressor(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="bagged regressor"):
        breiman_regression_bound(unbagged, X, y, oob=True)
    with pytest.raises(TypeError, match="treelab regressor"):
        regression_in_bag_counts(object(), y)


def test_weighted_fit_needs_its_weights(data):
    X, y = data
    w = np.ones(80)
    w[:10] = 0.0
    model = BaggedTreesRegressor(n_estimators=5, random_state=0).fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match="sample_weight"):
        regression_in_bag_counts(model, y)
    counts = regression_in_bag_counts(model, y, sample_weight=w)
    assert (counts[:, :10] == 0).all()
