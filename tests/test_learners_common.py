"""What every new learner shares: determinism across threads, member outputs, pickling."""

import pickle

import numpy as np
import pytest

import treelab
from treelab.engine.forest import Forest

FACTORIES = {
    "StochasticID3": lambda nj: treelab.StochasticID3(n_estimators=6, random_state=7, n_jobs=nj),
    "PERT": lambda nj: treelab.PERT(n_estimators=8, random_state=7, n_jobs=nj),
    "BaggedMMDT": lambda nj: treelab.BaggedMMDT(n_estimators=8, random_state=7, n_jobs=nj),
    "BaggedCVDT": lambda nj: treelab.BaggedCVDT(
        n_estimators=6, candidates=("entropy_tree", "mmdt", "random_tree"), random_state=7,
        n_jobs=nj),
    "RotationForest": lambda nj: treelab.RotationForest(n_estimators=8, random_state=7,
                                                        n_jobs=nj),
    "RotationForest-pca": lambda nj: treelab.RotationForest(n_estimators=8, rotation="pca",
                                                            random_state=7, n_jobs=nj),
}


def assert_forests_identical(a: Forest, b: Forest):
    for name in Forest._fields:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert x.tobytes() == y.tobytes(), name


def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    X[rng.random(X.shape) < 0.05] = np.nan
    X[:, 4] = rng.integers(0, 3, size=300)
    y = (np.nan_to_num(X[:, 0]) + X[:, 4] + rng.normal(size=300) > 1).astype(int)
    y[rng.random(300) < 0.1] = 2
    return X, y


@pytest.mark.parametrize("name", list(FACTORIES))
def test_n_jobs_does_not_change_the_forest(name):
    X, y = data()
    a = FACTORIES[name](1).set_params(categorical_features=[4]).fit(X, y)
    b = FACTORIES[name](2).set_params(categorical_features=[4]).fit(X, y)
    assert_forests_identical(a.forest_, b.forest_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    c = FACTORIES[name](2).set_params(categorical_features=[4]).fit(X, y)
    assert_forests_identical(b.forest_, c.forest_)


@pytest.mark.parametrize("name", list(FACTORIES))
def test_member_outputs_apply_and_pickle(name):
    X, y = data()
    est = FACTORIES[name](1).set_params(categorical_features=[4]).fit(X, y)
    T = est.forest_.n_trees
    member = est.member_proba(X[:50])
    assert member.shape == (T, 50, 3)
    np.testing.assert_allclose(member.sum(axis=2), 1.0)
    labels = est.member_predict(X[:50])
    np.testing.assert_array_equal(labels, est.classes_[np.argmax(member, axis=2)])
    leaves = est.apply(X[:50])
    assert leaves.shape == (50, T)
    kinds = est.forest_.kind[est.forest_.node_offsets[:-1] + leaves]
    assert (kinds == 0).all()
    stats = est.tree_stats()
    assert stats.sizes["tree"] == T
    clone = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(clone.predict_proba(X), est.predict_proba(X))


def test_axis_aligned_forests_keep_an_empty_projection_array():
    X, y = data()
    fr = treelab.RandomForest(n_estimators=3, random_state=0).fit(X, y).forest_
    assert fr.projections.shape == (0, 0)
    assert not (fr.kind == 3).any()


@pytest.mark.parametrize("make", [
    lambda: treelab.BaggedMMDT(n_estimators=0),
    lambda: treelab.BaggedCVDT(n_estimators=-1),
    lambda: treelab.RotationForest(n_estimators=0),
    lambda: treelab.PERT(n_estimators=0),
])
def test_bad_n_estimators(make):
    X, y = data()
    with pytest.raises(ValueError, match="n_estimators"):
        make().fit(X, y)
