"""Same random_state, same trees, bit for bit, whatever the number of threads."""

import pickle

import numpy as np
import pytest

import treelab
from treelab._forest import Forest

FACTORIES = [
    lambda nj: treelab.VRTrees(n_estimators=12, alpha=0.5, sampling="bootstrap+subspace",
                               random_state=7, n_jobs=nj),
    lambda nj: treelab.Coalescence(n_estimators=12, random_state=7, n_jobs=nj),
    lambda nj: treelab.RandomForest(n_estimators=12, random_state=7, n_jobs=nj),
    lambda nj: treelab.ExtraTrees(n_estimators=12, random_state=7, n_jobs=nj),
    lambda nj: treelab.RandomDecisionTrees(n_estimators=12, random_state=7, n_jobs=nj),
    lambda nj: treelab.DisjointSampleTrees(n_estimators=6, random_state=7, n_jobs=nj),
    lambda nj: treelab.VRTrees(n_estimators=12, alpha=0.0, random_split="pert",
                               random_state=7, n_jobs=nj),
]


def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 6))
    X[rng.random(X.shape) < 0.05] = np.nan
    X[:, 5] = rng.integers(0, 3, size=500)
    y = (np.nan_to_num(X[:, 0]) + X[:, 5] + rng.normal(size=500) > 1).astype(int)
    return X, y


def assert_forests_identical(a: Forest, b: Forest):
    for name in Forest._fields:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert x.tobytes() == y.tobytes(), name


@pytest.mark.parametrize("make", FACTORIES)
def test_n_jobs_does_not_change_the_forest(make):
    X, y = data()
    a = make(1).fit(X, y)
    b = make(2).fit(X, y)
    assert_forests_identical(a.forest_, b.forest_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    c = make(2).fit(X, y)
    assert_forests_identical(b.forest_, c.forest_)


def test_different_seeds_give_different_forests():
    X, y = data()
    a = treelab.VRTrees(n_estimators=5, alpha=0.2, random_state=1).fit(X, y)
    b = treelab.VRTrees(n_estimators=5, alpha=0.2, random_state=2).fit(X, y)
    assert a.forest_.kind.shape != b.forest_.kind.shape or not np.array_equal(
        a.forest_.threshold, b.forest_.threshold)


def test_pickle_round_trip_predicts_the_same():
    X, y = data()
    est = treelab.RandomForest(n_estimators=10, random_state=0).fit(X, y)
    before = est.predict_proba(X)
    clone = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(clone.predict_proba(X), before)
