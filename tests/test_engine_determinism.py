"""Same random_state, same trees, bit for bit, whatever the number of threads."""

import pickle

import numba
import numpy as np
import pytest

import treelab
from treelab.engine.forest import Forest

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


@pytest.mark.parametrize("local", [0, 1])
@pytest.mark.parametrize(("criterion", "alpha", "max_features", "mode"),
                         [("gain_ratio", 1.0, 5, 1), ("gini", 1.0, 5, 1), ("gain_ratio", 0.6, 5, 1),
                          ("gini", 1.0, 2, 2)])
def test_presorted_and_per_node_sorting_grow_identical_trees(criterion, alpha, max_features,
                                                             mode, local):
    """Presorted lists (mode 1: where they pay off; mode 2: at every node, as rotation trees
    use) grow the same trees as sorting at every node, also where subtrees read localized
    copies of their rows (local=1) while the lists keep training-row indices."""
    from treelab.engine.forest import prepare_features
    from treelab.engine.kernels import _grow as G
    from treelab.engine.kernels._criteria import xlogx_table

    rng = np.random.default_rng(4)
    X = rng.normal(size=(3000, 5))
    # repeated values exercise distinct-value runs; features 0-2 have too few distinct values
    # for a list (counted in a histogram at every node), features 3-4 get lists in mode 1
    X[:, :3] = np.round(X[:, :3], 1)
    X[:, 3:] = np.round(X[:, 3:], 3)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + X[:, 1] ** 2 + np.nan_to_num(X[:, 3])
         + rng.normal(size=3000) > 1).astype(np.int32)
    feats = prepare_features(X, np.zeros(5, bool), np.zeros(5, np.int64))
    assert list(feats.n_distinct > G.LIST_MIN_DISTINCT) == [False] * 3 + [True] * 2
    trees = []
    for presort in (0, mode):
        ip = np.zeros(G.N_PARAMS, dtype=np.int64)
        ip[[G.P_CRITERION, G.P_C45, G.P_MIN_OBJS, G.P_MIN_SPLIT, G.P_MIN_LEAF]] = [
            {"gain_ratio": 1, "gini": 2}[criterion], 1, 2, 4, 1]
        ip[G.P_MAX_DEPTH] = 2**31 - 1
        ip[G.P_MAX_FEATURES] = max_features
        ip[G.P_PRESORT] = presort
        ip[G.P_LOCAL] = local
        trees.append(G.grow_tree(feats.Xc, feats.R, feats.order,
                                 feats.n_distinct, feats.uniq, feats.uniq_off, feats.nominal,
                                 y, 2, ip, alpha,
                                 xlogx_table(3000), np.uint64(3), G.ROWS_BOOTSTRAP,
                                 np.zeros(3000, np.int32), 0, 0, *G.NO_REFERENCE, None,
                                 True))
    assert trees[0][0].shape[0] > 100
    for a, b in zip(trees[0], trees[1], strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n_classes", [2, 3, 7])
@pytest.mark.parametrize("alpha", [0.5, 1.0])
def test_lists_of_mostly_distinct_features_grow_identical_trees(alpha, n_classes):
    """Features with fewer distinct values than ``LIST_MIN_DISTINCT`` but more than half the
    rows (sonar's columns) get presorted lists (``_presort.list_min_distinct``); the trees are
    those of sorting at every node, bit for bit, also with bootstrap weights."""
    from treelab.engine.forest import prepare_features
    from treelab.engine.kernels import _grow as G
    from treelab.engine.kernels._criteria import xlogx_table

    rng = np.random.default_rng(11)
    n = 160
    X = np.round(rng.normal(size=(n, 6)), 2)
    X[rng.random(X.shape) < 0.03] = np.nan
    y = ((np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * 0.5 + rng.normal(size=n)) * 2
         ).astype(np.int64) % n_classes
    feats = prepare_features(X, np.zeros(6, bool), np.zeros(6, np.int64))
    assert np.all(feats.n_distinct > G.list_min_distinct.py_func(n))
    assert np.all(feats.n_distinct <= G.LIST_MIN_DISTINCT)
    trees = []
    for presort in (0, 1):
        ip = np.zeros(G.N_PARAMS, dtype=np.int64)
        ip[[G.P_CRITERION, G.P_C45, G.P_MIN_OBJS, G.P_MIN_SPLIT, G.P_MIN_LEAF]] = [1, 1, 2, 4, 1]
        ip[G.P_MAX_DEPTH] = 2**31 - 1
        ip[G.P_MAX_FEATURES] = 6
        ip[G.P_PRESORT] = presort
        trees.append([G.grow_tree(feats.Xc, feats.R, feats.order, feats.n_distinct, feats.uniq,
                                  feats.uniq_off, feats.nominal, y.astype(np.int32), n_classes,
                                  ip, alpha, xlogx_table(n), np.uint64(seed), G.ROWS_BOOTSTRAP,
                                  np.zeros(n, np.int32), 0, 0, *G.NO_REFERENCE, None, True)
                      for seed in range(4)])
    assert trees[0][0][0].shape[0] > 15
    for one, other in zip(trees[0], trees[1], strict=True):
        for a, b in zip(one, other, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("make", [
    lambda: treelab.VRTrees(alpha=0.0, n_estimators=3, random_state=0),
    lambda: treelab.VRTrees(alpha=0.4, sampling="bootstrap+subspace", n_estimators=3,
                            random_state=1),
    lambda: treelab.VRTrees(alpha=0.0, random_split="pert", n_estimators=3, random_state=2),
    lambda: treelab.RandomForest(n_estimators=3, random_state=3),
    lambda: treelab.ExtraTrees(n_estimators=3, random_state=4),
    lambda: treelab.Coalescence(n_estimators=4, random_state=5),
    lambda: treelab.VRTrees(alpha=0.7, sampling="bootstrap", n_estimators=3, random_state=6),
], ids=["vr0", "vr04-bag-sub", "pert", "rf", "extra", "coalescence", "vr07-presorted"])
def test_localized_subtrees_grow_identical_trees(make, monkeypatch):
    """Growing small subtrees from local copies of their rows (P_LOCAL) changes no tree."""
    import pandas as pd

    from treelab.engine.kernels import _grow as G
    from treelab.estimators import _base

    rng = np.random.default_rng(7)
    n, d = 4000, 60  # more rows than one local block holds at 60 features
    X = np.round(rng.normal(size=(n, d)), 2)
    X[rng.random(X.shape) < 0.03] = np.nan
    y = (np.nan_to_num(X[:, 0]) + X[:, 1] ** 2 + rng.normal(size=n) > 1).astype(int)
    df = pd.DataFrame(X, columns=[f"x{i}" for i in range(d)])
    df["nom"] = pd.Categorical(rng.integers(0, 5, n))
    forests = []
    spec_iparams = _base.spec_iparams
    for local in (1, 0):
        def patched(spec, n_features, local=local):
            ip, n_sub = spec_iparams(spec, n_features)
            ip[G.P_LOCAL] = local
            return ip, n_sub

        monkeypatch.setattr(_base, "spec_iparams", patched)
        forests.append(make().fit(df, y).forest_)
    assert forests[0].kind.shape[0] > 300
    for a, b in zip(forests[0], forests[1], strict=True):
        np.testing.assert_array_equal(a, b)


def test_prepared_ranks_match_numpy_unique():
    from treelab.engine.forest import prepare_features

    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(500, 4)), 1)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:5, 0] = -0.0
    X[5:10, 0] = 0.0
    for n_threads in (1, 2):
        feats = prepare_features(X, np.zeros(4, bool), np.zeros(4, np.int64),
                                 n_threads=n_threads)
        for f in range(4):
            present = ~np.isnan(X[:, f])
            u, inv = np.unique(X[present, f], return_inverse=True)
            assert feats.n_distinct[f] == u.shape[0]
            np.testing.assert_array_equal(feats.R[f, present], inv)
            assert np.all(feats.R[f, ~present] == u.shape[0])
            np.testing.assert_array_equal(
                feats.uniq[feats.uniq_off[f]:feats.uniq_off[f + 1]], u)
            np.testing.assert_array_equal(
                feats.order[f], np.argsort(np.where(present, X[:, f], np.inf), kind="stable")
                if not (~present).any() else np.lexsort((np.arange(500), feats.R[f])))


def test_lockstep_walk_finds_the_same_leaves_as_the_one_row_walk():
    """The lockstep walk of threshold-only forests (``_leaves_lanes``) against the general
    one-row walk, on row counts that leave a remainder after the groups of eight, and on blocks
    of one and two threads."""
    from treelab.engine.kernels import _predict as P

    rng = np.random.default_rng(5)
    X = rng.normal(size=(3003, 6))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    fr = treelab.RandomForest(n_estimators=7, random_state=0).fit(X, y).forest_
    Xt = rng.normal(size=(3003, 6))
    lanes = fr.walk_arrays(Xt)
    assert lanes[-1].shape[0] == fr.kind.shape[0]  # eligible: lanes are used
    general = fr.walk_arrays(Xt, lanes=False)
    assert general[-1].shape[0] == 0 and general[1].shape[0] == fr.kind.shape[0]
    old = numba.get_num_threads()
    try:
        for threads in (1, 2):
            n = min(threads, numba.config.NUMBA_NUM_THREADS)
            numba.set_num_threads(n)
            np.testing.assert_array_equal(P.apply_forest(Xt, *lanes, n),
                                          P.apply_forest(Xt, *general, n))
    finally:
        numba.set_num_threads(old)
    Xt[::7, 1] = np.nan  # rows with a missing value take the general walk
    assert fr.walk_arrays(Xt)[-1].shape[0] == 0


DRAW_FREE = [
    lambda: treelab.VRTrees(n_estimators=4, alpha=1.0, random_state=3),
    lambda: treelab.VRTrees(n_estimators=4, alpha=1.0, sampling="subspace",
                            subspace_fraction=1.0, random_state=3),
    lambda: treelab.RandomForest(n_estimators=4, max_features=None, bootstrap=False,
                                 criterion="entropy", random_state=3),
]


def count_grown(monkeypatch):
    """Patch the forest driver to count the trees it grows (by either growth routine);
    returns the list it appends to."""
    import treelab.engine.forest as F

    calls = []

    def counter(real):
        def counting(*args):
            calls.append(1)
            return real(*args)
        return counting

    for name in ("grow_tree", "grow_random_tree"):
        monkeypatch.setattr(F, name, counter(getattr(F, name)))
    return calls


@pytest.mark.parametrize("make", DRAW_FREE)
def test_trees_that_draw_nothing_are_grown_once(make, monkeypatch):
    import treelab.engine.forest as F

    X, y = data()
    calls = count_grown(monkeypatch)
    shortcut = make().fit(X, y)
    assert len(calls) == 1
    # grown tree by tree from their own seeds, the trees are the same tree
    monkeypatch.setattr(F, "draws_nothing", lambda iparams, alphas, *rest:
                        np.zeros(len(alphas), dtype=bool))
    calls.clear()
    full = make().fit(X, y)
    assert len(calls) == 4
    assert_forests_identical(shortcut.forest_, full.forest_)
    np.testing.assert_array_equal(shortcut.predict_proba(X), full.predict_proba(X))


@pytest.mark.parametrize("make", [
    lambda: treelab.VRTrees(n_estimators=4, alpha=1.0, sampling="bootstrap", random_state=3),
    lambda: treelab.VRTrees(n_estimators=4, alpha=0.99, random_state=3),
    lambda: treelab.RandomForest(n_estimators=4, bootstrap=False, random_state=3),
    lambda: treelab.ExtraTrees(n_estimators=4, max_features=None, random_state=3),
])
def test_trees_that_draw_are_all_grown(make, monkeypatch):
    import treelab.engine.forest as F

    monkeypatch.setattr(F, "REFERENCE_MIN_SAVING", np.inf)  # no reference tree either
    X, y = data()
    calls = count_grown(monkeypatch)
    make().fit(X, y)
    assert len(calls) == 4


@pytest.mark.parametrize("make", [
    lambda: treelab.VRTrees(n_estimators=6, alpha=0.7, random_state=3),
    lambda: treelab.VRTrees(n_estimators=6, alpha=0.4, min_samples_leaf=6, max_depth=7,
                            random_state=4),
    lambda: treelab.VRTrees(n_estimators=6, alpha=0.9, criterion="entropy", c45=False,
                            random_state=5),
    lambda: treelab.VRTrees(n_estimators=6, alpha=0.8, criterion="gini", random_state=6),
    lambda: treelab.Coalescence(n_estimators=6, random_state=7),
])
def test_reference_tree_changes_no_tree(make, monkeypatch):
    """Trees copying their deterministic top from the all-deterministic reference tree are the
    trees that search every deterministic node themselves."""
    import treelab.engine.forest as F

    X, y = data()
    X = np.hstack([X, X[:, :1]])  # a copy of feature 0: ties between features
    trees = []
    for saving, grown in ((np.inf, 6), (0.0, 7)):
        monkeypatch.setattr(F, "REFERENCE_MIN_SAVING", saving)
        calls = count_grown(monkeypatch)
        trees.append(make().fit(X, y))
        assert len(calls) == grown  # with the reference: one tree more
        monkeypatch.undo()
    assert_forests_identical(trees[0].forest_, trees[1].forest_)
    assert trees[0].forest_.ties_feature.sum() > 0


@pytest.mark.parametrize("make", [
    lambda: treelab.RandomForest(n_estimators=3, random_state=0),
    lambda: treelab.VRTrees(alpha=0.0, n_estimators=3, random_state=1),
    lambda: treelab.ExtraTrees(n_estimators=2, random_state=2),
], ids=["rf", "vr0", "extra"])
def test_node_arrays_grown_past_their_first_room_keep_their_initial_values(make):
    """A tree's node arrays start with room for its rows / _grow.NODE_CAP_DIVISOR nodes and
    double as it grows (many-way nominal splits on noise outgrow it): the rows added must
    hold what the first rows started with (leaves: feature -1 and a NaN threshold, which the
    lockstep walk relies on), and every split's children must hold its rows' class counts."""
    from treelab.engine.kernels import _grow as G

    rng = np.random.default_rng(11)
    n = 2000
    X = rng.normal(size=(n, 3))
    nominal = rng.integers(0, 100, size=n)  # 100-way nominal splits: m children at once
    y = rng.integers(0, 50, size=n)  # noise: trees grow to about one leaf a row
    import pandas as pd

    df = pd.DataFrame(X, columns=["a", "b", "c"])
    df["g"] = pd.Categorical(nominal)
    fr = make().fit(df, y).forest_
    for t in range(fr.n_trees):
        lo, hi = fr.node_offsets[t], fr.node_offsets[t + 1]
        # enlarged at least once: the first room is for (rows in the tree) / divisor + 16
        assert hi - lo > n // G.NODE_CAP_DIVISOR + 16
        kind = fr.kind[lo:hi]
        leaf = kind == 0
        assert np.all(fr.feature[lo:hi][leaf] == -1)
        assert np.all(np.isnan(fr.threshold[lo:hi][leaf]))
        assert np.all(fr.feature[lo:hi][~leaf] >= 0)
        assert np.any(kind == 2)
        for i in np.flatnonzero(~leaf):
            start = lo + fr.child_start[lo + i]
            kids = fr.counts[start:start + fr.n_children[lo + i]]
            np.testing.assert_array_equal(kids.sum(axis=0), fr.counts[lo + i])
