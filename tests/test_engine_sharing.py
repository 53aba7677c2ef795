"""Fits on the same training rows share feature preparation and all-deterministic trees
inside a sharing scope (treelab.engine.sharing) and grow the same forests, bit for bit."""

import numpy as np
import pytest

import treelab
import treelab.engine.forest as F
from treelab.engine import sharing
from treelab.engine.forest import Forest


def data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 6))
    X[rng.random(X.shape) < 0.05] = np.nan
    X[:, 4] = rng.integers(0, 3, size=400)  # nominal (by categorical_features)
    X[:, 5] = X[:, 0]  # a copy of feature 0: ties between features
    score = np.nan_to_num(X[:, 0]) + 0.7 * X[:, 4] + rng.normal(size=400)
    y = np.digitize(score, [0.3, 1.5])  # three classes
    return X, y


def assert_forests_identical(a: Forest, b: Forest):
    for name in Forest._fields:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert x.tobytes() == y.tobytes(), name


CONSTRUCTIONS = [
    {"sampling": "none"},
    {"sampling": "bootstrap"},
    {"sampling": "subspace", "subspace_fraction": 0.5},
    {"sampling": "bootstrap+subspace", "subspace_fraction": 0.7, "criterion": "entropy",
     "c45": False},
    {"sampling": "bootstrap", "criterion": "gini", "min_samples_leaf": 4, "max_depth": 6},
    {"sampling": "bootstrap", "max_bins": 16},
]


def record_references(monkeypatch):
    """Patch the forest driver to note, per grown tree, whether it was given a reference."""
    given = []
    real = F.grow_tree

    def noting(*args):
        given.append(args[17].shape[0] > 0)  # ref_i
        return real(*args)

    monkeypatch.setattr(F, "grow_tree", noting)
    return given


@pytest.mark.parametrize("params", CONSTRUCTIONS)
def test_shared_fits_grow_the_forests_of_fits_alone(params, monkeypatch):
    X, y = data()

    def make(alpha):
        return treelab.VRTrees(n_estimators=8, alpha=alpha, random_state=11,
                               categorical_features=[4], **params)

    store = sharing.SharedWork()
    given = record_references(monkeypatch)
    with sharing.shared_work(store):
        make(1.0).fit(X, y)  # keeps its trees for the others
        shared = {a: make(a).fit(X, y) for a in (0.9, 0.6, 0.3, 0.0, 1.0)}
    # every tree at 0 < alpha < 1 had its all-deterministic tree as reference, and the
    # second forest at alpha = 1 was taken whole
    assert store.hits["trees"] == 4
    assert sum(given) >= 3 * 8
    for alpha, est in shared.items():
        alone = make(alpha).fit(X, y)
        assert_forests_identical(est.forest_, alone.forest_)
        np.testing.assert_array_equal(est.predict_proba(X), alone.predict_proba(X))
    assert store.hits["features"] > 0


def test_other_rows_labels_or_seeds_share_no_trees():
    X, y = data()
    store = sharing.SharedWork()
    others = [(X, y[::-1].copy(), 11), (X[::-1].copy(), y, 11), (X, y, 12)]
    with sharing.shared_work(store):
        treelab.VRTrees(n_estimators=5, alpha=1.0, sampling="bootstrap",
                        random_state=11).fit(X, y)
        shared = [treelab.VRTrees(n_estimators=5, alpha=0.8, sampling="bootstrap",
                                  random_state=seed).fit(Xo, yo) for Xo, yo, seed in others]
    assert store.hits["trees"] == 0
    for est, (Xo, yo, seed) in zip(shared, others, strict=True):
        alone = treelab.VRTrees(n_estimators=5, alpha=0.8, sampling="bootstrap",
                                random_state=seed).fit(Xo, yo)
        assert_forests_identical(est.forest_, alone.forest_)


@pytest.mark.parametrize("make", [
    lambda: treelab.RandomForest(n_estimators=5, random_state=2),  # max_features < d
    lambda: treelab.ExtraTrees(n_estimators=5, max_features=None, random_state=2),
    lambda: treelab.StochasticID3(n_estimators=5, random_state=2),
])
def test_random_candidates_or_thresholds_take_no_reference(make):
    """A deterministic node that draws its candidates or thresholds depends on more than its
    rows: those forests never reuse trees, and still share their feature preparation."""
    X, y = data()
    store = sharing.SharedWork()
    with sharing.shared_work(store):
        first = make().fit(X, y)
        second = make().fit(X, y)
    assert store.hits["trees"] == 0 and store.hits["features"] >= 1
    assert_forests_identical(first.forest_, make().fit(X, y).forest_)
    assert_forests_identical(second.forest_, first.forest_)


@pytest.mark.parametrize("make", [
    lambda: treelab.RandomForest(n_estimators=5, max_features=None, random_state=4),
    lambda: treelab.BaggedTrees(n_estimators=5, random_state=4),
    lambda: treelab.DisjointSampleTrees(n_estimators=4, random_state=4),
])
def test_deterministic_forests_fitted_again_are_taken_whole(make):
    X, y = data()
    store = sharing.SharedWork()
    with sharing.shared_work(store):
        make().fit(X, y)
        again = make().fit(X, y)
    assert store.hits["trees"] == 1
    assert_forests_identical(again.forest_, make().fit(X, y).forest_)


def test_prepared_features_are_those_of_a_fit_alone():
    X, y = data()
    nominal = np.zeros(6, dtype=bool)
    nominal[4] = True
    arity = np.where(nominal, 3, 0)
    for kw in ({}, {"ranks": False}, {"order": False}, {"values": False}, {"max_bins": 8}):
        alone = F.prepare_features(X, nominal, arity, **kw)
        with sharing.shared_work(sharing.SharedWork()) as store:
            F.prepare_features(X, nominal, arity, **kw)
            again = F.prepare_features(X, nominal, arity, **kw)
            assert store.hits["features"] == 1
        for name in F.FeatureArrays._fields[:-1]:
            a, b = getattr(alone, name), getattr(again, name)
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (kw, name)
        assert alone.key == "" and len(again.key) == 40


def test_every_input_of_grow_forest_is_in_the_sharing_key():
    """A tripwire: the key of shared trees (forest._grow_trees) digests every input of
    grow_forest that shapes a tree. An input added to grow_forest (row weights, say) must be
    added to that key too, or a shared forest could stand in for a different one."""
    import inspect

    keyed = {"feats", "y", "n_classes", "iparams", "alphas", "seeds", "row_mode", "part",
             "n_sub", "n_threads", "sample_weight"}  # alphas: per tree; n_threads: no change
    assert set(inspect.signature(F.grow_forest).parameters) == keyed
    assert set(F.FeatureArrays._fields) == {"Xc", "R", "order", "n_distinct", "uniq",
                                            "uniq_off", "nominal", "key"}


def test_the_store_keeps_at_most_its_bytes():
    X, y = data()
    nominal = np.zeros(6, dtype=bool)
    arity = np.zeros(6, dtype=np.int64)
    one = F.prepare_features(X, nominal, arity)
    assert sharing.nbytes(one) == sum(a.nbytes for a in one[:7])
    store = sharing.SharedWork(max_bytes=int(1.5 * sharing.nbytes(one)))
    with sharing.shared_work(store):
        F.prepare_features(X, nominal, arity)
        F.prepare_features(X[::-1].copy(), nominal, arity)  # pushes the first one out
        assert len(store.features.items) == 1
        F.prepare_features(X, nominal, arity)
        assert store.hits["features"] == 0
    small = sharing.SharedWork(max_bytes=10)
    with sharing.shared_work(small):  # nothing fits: every fit prepares its own
        a = treelab.VRTrees(n_estimators=3, alpha=1.0, random_state=0).fit(X, y)
        b = treelab.VRTrees(n_estimators=3, alpha=1.0, random_state=0).fit(X, y)
    assert small.hits == {"features": 0, "trees": 0} and not small.forests.items
    assert_forests_identical(a.forest_, b.forest_)


@pytest.mark.parametrize("max_bins", [None, 8])
def test_sample_weights_share_with_the_same_weights_only(max_bins):
    X, y = data()
    rng = np.random.default_rng(3)
    w1 = rng.integers(0, 4, size=len(y)).astype(float)
    w2 = w1.copy()
    w2[:50] = 1.0

    def make(alpha):
        return treelab.VRTrees(n_estimators=5, alpha=alpha, sampling="bootstrap",
                               max_bins=max_bins, random_state=8)

    store = sharing.SharedWork()
    with sharing.shared_work(store):
        make(1.0).fit(X, y, sample_weight=w1)
        same = make(0.7).fit(X, y, sample_weight=w1)
        other = make(0.7).fit(X, y, sample_weight=w2)
        unweighted = make(0.7).fit(X, y)
    assert store.hits["trees"] == 1
    for est, w in ((same, w1), (other, w2), (unweighted, None)):
        alone = make(0.7).fit(X, y, sample_weight=w)
        assert_forests_identical(est.forest_, alone.forest_)
