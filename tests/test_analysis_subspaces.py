"""subspace_features against the features each tree actually splits on: complete-random
trees grown to purity on noise split on every feature they can see, so a tree's used
features are its subspace, read from the fitted trees independently of the replay."""

import numpy as np
import pytest

import treelab
from treelab.analysis import subspace_features


def _used(forest, t):
    nodes = slice(forest.node_offsets[t], forest.node_offsets[t + 1])
    split = forest.n_children[nodes] > 0
    used = np.zeros(forest.feature.max() + 1 if forest.feature.size else 0, dtype=bool)
    used[np.unique(forest.feature[nodes][split])] = True
    return used


def _noise(d, n=300, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random((n, d)), rng.integers(0, 3, n)


@pytest.mark.parametrize("sampling", ["subspace", "bootstrap+subspace"])
@pytest.mark.parametrize("d", [5, 8])
def test_subspaces_are_the_features_the_trees_split_on(sampling, d):
    X, y = _noise(d)
    est = treelab.VRTrees(n_estimators=12, alpha=0.0, sampling=sampling, random_state=4)
    est.fit(X, y)
    masks = subspace_features(est, y)
    assert masks.shape == (12, d) and masks.dtype == bool
    assert (masks.sum(axis=1) == round(0.5 * d)).all()
    for t in range(12):
        used = np.zeros(d, dtype=bool)
        used[: _used(est.forest_, t).size] = _used(est.forest_, t)
        np.testing.assert_array_equal(masks[t], used)
    # the draws differ between trees
    assert len({m.tobytes() for m in masks}) > 1


def test_weighted_bagged_regressor_subspaces():
    X, _ = _noise(6, seed=1)
    target = np.random.default_rng(2).random(X.shape[0])
    w = np.random.default_rng(3).integers(0, 3, X.shape[0]).astype(float)
    est = treelab.VRTreesRegressor(n_estimators=8, alpha=0.0, sampling="bootstrap+subspace",
                                   random_state=0).fit(X, target, sample_weight=w)
    masks = subspace_features(est, target, w)
    for t in range(8):
        used = np.zeros(6, dtype=bool)
        used[: _used(est.forest_, t).size] = _used(est.forest_, t)
        np.testing.assert_array_equal(masks[t], used)


def test_no_subspace_is_every_feature_and_refusals():
    X, y = _noise(5)
    plain = treelab.VRTrees(n_estimators=3, random_state=0).fit(X, y)
    assert subspace_features(plain).all()
    bagged = treelab.VRTrees(n_estimators=3, sampling="bootstrap+subspace",
                             random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="pass y"):
        subspace_features(bagged)
    with pytest.raises(ValueError, match="in-bag counts of y"):
        subspace_features(bagged, y[::-1])
    with pytest.raises(TypeError, match="axis-parallel"):
        subspace_features(treelab.RotationForest(n_estimators=2, random_state=0).fit(X, y))
    with pytest.raises(TypeError, match="fitted treelab ensemble"):
        subspace_features(treelab.VRTrees())
