"""Binned split search (``max_bins``): the bins, and trees grown on them, against independent
computations: a slow NumPy binning written from the rule, and the exact search run on the bin
codes themselves (the same tests on the same rows, so the same trees, with thresholds that map
to bin edges)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_trees import tree_nodes
from sklearn.datasets import make_classification

import treelab
from treelab.engine.forest import bin_cuts, prepare_features


def slow_bins(col: np.ndarray, max_bins: int):
    """(codes, edges) of one column by the rule written out: sort the non-missing values; with
    at most max_bins distinct values each is a bin; else bin q (1 <= q < max_bins) ends at the
    first distinct value whose cumulative row count reaches q n / max_bins. Missing -> n bins."""
    ok = ~np.isnan(col)
    values = np.sort(col[ok])
    distinct = []
    counts = []
    for v in values:
        if distinct and distinct[-1] == v:
            counts[-1] += 1
        else:
            distinct.append(v)
            counts.append(1)
    n = len(values)
    if len(distinct) <= max_bins:
        cuts = list(range(len(distinct) - 1))
    else:
        cuts = []
        for q in range(1, max_bins):
            j = 0
            total = counts[0]
            while total < q * n / max_bins:
                j += 1
                total += counts[j]
            if j < len(distinct) - 1 and j not in cuts:
                cuts.append(j)
    edges = [distinct[j] + (distinct[j + 1] - distinct[j]) * 0.5 for j in cuts]
    codes = np.full(col.shape[0], len(cuts) + 1, dtype=np.int64)
    for i in np.flatnonzero(ok):
        j = distinct.index(col[i])
        codes[i] = sum(1 for c in cuts if c < j)
    return codes, np.array(edges)


def data(n=600, d=6, seed=0, missing=0.0):
    X, y = make_classification(n, d, n_informative=4, n_classes=3, random_state=seed)
    X = np.round(X, 2)  # ties: bins must never split a value
    if missing:
        rng = np.random.default_rng(seed)
        X[rng.random(X.shape) < missing] = np.nan
    return X, y


@pytest.mark.parametrize("order", [True, False])
@pytest.mark.parametrize("max_bins", [2, 7, 32, 4096])
def test_bins_match_the_rule_written_out(max_bins, order):
    """Both ways of binning: from the stable sort's ranks (kept orders) and straight from the
    values (``bin_column``, when no orders are kept)."""
    X, _ = data(missing=0.05)
    d = X.shape[1]
    feats = prepare_features(X, np.zeros(d, dtype=bool), np.zeros(d, dtype=np.int64),
                             max_bins=max_bins, order=order)
    for f in range(d):
        codes, edges = slow_bins(X[:, f], max_bins)
        np.testing.assert_array_equal(feats.R[f], codes)
        nb = feats.n_distinct[f]
        assert nb == edges.shape[0] + 1 <= max_bins
        got = feats.uniq[feats.uniq_off[f]:feats.uniq_off[f + 1]]
        np.testing.assert_array_equal(got[:-1], edges)
        assert got[-1] == np.inf
        # every edge separates its bins: x <= edge_b exactly for the rows of bins 0..b
        ok = ~np.isnan(X[:, f])
        for b, t in enumerate(edges):
            np.testing.assert_array_equal(X[ok, f] <= t, codes[ok] <= b)


@pytest.mark.parametrize("max_bins", [2, 5, 255, 256, 1000])
def test_bin_column_is_binning_the_stable_ranks(max_bins):
    """``bin_column`` (one unstable sort, no ranks) against ranking by a stable sort and
    binning the ranks (``bin_feature``), codes and edges bit for bit: ties, missing values,
    -0.0 next to 0.0 (the first row's zero stands for both), weights with values held only by
    rows of weight 0, every weight 0, every row missing."""
    from treelab.engine.features import bin_column, bin_feature

    rng = np.random.default_rng(max_bins)
    for trial in range(40):
        n = int(rng.integers(1, 2500))
        col = rng.normal(size=n)
        if trial % 5 == 1:
            col = np.round(col, 1)
        elif trial % 5 == 2:
            col = rng.choice([0.0, -0.0, 1.5, -2.0], size=n)
        if trial % 4 == 3:
            col[rng.random(n) < 0.3] = np.nan
        if trial == 7:
            col[:] = np.nan
        w = None
        if trial % 3 == 1:
            w = rng.integers(0, 4, size=n).astype(np.float64)
            if trial == 10:
                w[:] = 0
        # reference: ranks from the stable sort order, written out
        o = np.argsort(col, kind="stable")
        ranks = np.empty(n, dtype=np.int32)
        distinct = []
        for i in o:
            v = col[i]
            if np.isnan(v):
                ranks[i] = -1
                continue
            if not distinct or distinct[-1] != v:
                distinct.append(v)
            ranks[i] = len(distinct) - 1
        ranks[ranks < 0] = len(distinct)
        want_edges = bin_feature(ranks, np.array(distinct, dtype=np.float64), max_bins, w)
        got = np.empty(n, dtype=np.int32)
        got_edges = bin_column(col, got, max_bins, w)
        np.testing.assert_array_equal(got, ranks)
        assert got_edges.tobytes() == want_edges.tobytes()


def test_bin_cuts_hand_worked():
    # 10 rows over distinct values with counts 1, 1, 5, 1, 1, 1; 3 bins: targets 3.33, 6.67
    # reach cumulative counts 7 (value 2) and 7 again: the heavy value is never split
    np.testing.assert_array_equal(bin_cuts(np.array([1, 1, 5, 1, 1, 1]), 3), [2])
    # four bins of a uniform column: cuts after every quarter
    np.testing.assert_array_equal(bin_cuts(np.ones(8, dtype=np.int64), 4), [1, 3, 5])
    # few values: each its own bin
    np.testing.assert_array_equal(bin_cuts(np.array([3, 4]), 4), [0])


def exact_on_codes(est, X, max_bins):
    """The same learner with exact search on the bin codes (computed by ``slow_bins``)."""
    codes = np.column_stack([slow_bins(X[:, f], max_bins)[0] for f in range(X.shape[1])])
    codes = codes.astype(float)
    codes[np.isnan(X)] = np.nan
    edges = [slow_bins(X[:, f], max_bins)[1] for f in range(X.shape[1])]
    return codes, edges


def visits(X, nodes):
    """Per node of one tree, the rows of X that reach it (a Python walk, as ``route``)."""
    out = [[] for _ in nodes["kind"]]
    for r, x in enumerate(X):
        node = 0
        while True:
            out[node].append(r)
            if nodes["kind"][node] == 0:
                break
            v = x[nodes["feature"][node]]
            first = nodes["child_start"][node]
            if np.isnan(v):
                node = first + nodes["nan_child"][node]
            else:
                node = first + (0 if v <= nodes["threshold"][node] else 1)
    return out


# learners whose trees see every row: the rows at a node are known, so the binned threshold
# can be checked exactly
ALL_ROWS = [
    lambda mb: treelab.DecisionTree(max_bins=mb),
    lambda mb: treelab.DecisionTree(criterion="gini", c45=False, max_bins=mb),
    lambda mb: treelab.VRTrees(n_estimators=3, alpha=1.0, sampling="subspace",
                               random_state=2, max_bins=mb),
    lambda mb: treelab.StochasticID3(n_estimators=3, lookahead=0, random_state=6, max_bins=mb),
]
# learners drawing their rows (bags, disjoint parts)
DRAWN_ROWS = [
    lambda mb: treelab.RandomForest(n_estimators=4, random_state=1, max_bins=mb),
    lambda mb: treelab.VRTrees(n_estimators=4, alpha=1.0, sampling="bootstrap+subspace",
                               random_state=2, max_bins=mb),
    lambda mb: treelab.BaggedTrees(n_estimators=3, random_state=4, max_bins=mb),
    lambda mb: treelab.DisjointSampleTrees(n_estimators=2, random_state=5, max_bins=mb),
]


@pytest.mark.parametrize("make", ALL_ROWS + DRAWN_ROWS)
@pytest.mark.parametrize("max_bins", [5, 24])
def test_binned_trees_are_exact_trees_on_the_bin_codes(make, max_bins):
    """Deterministic nodes see only bins, so a binned tree of deterministic nodes is the exact
    tree grown on the bin codes (same draws of rows and features), with the same node counts
    and gain ties; each threshold is the upper edge of the highest bin going left."""
    X, y = data(missing=0.03)
    binned = make(max_bins).fit(X, y)
    codes, edges = exact_on_codes(binned, X, max_bins)
    reference = make(None).fit(codes, y)
    fb, fr = binned.forest_, reference.forest_
    for name in ("node_offsets", "kind", "feature", "child_start", "n_children", "nan_child",
                 "counts", "ties_feature", "ties_test"):
        np.testing.assert_array_equal(getattr(fb, name), getattr(fr, name), err_msg=name)
    split = fb.kind == 1
    for f, t_b, t_r in zip(fb.feature[split], fb.threshold[split], fr.threshold[split],
                           strict=True):
        b = int(np.searchsorted(edges[f], t_b))
        assert edges[f][b] == t_b  # an edge of its feature
        assert b < t_r  # the exact midpoint lies above the left bins
    if any(make is m for m in ALL_ROWS):
        for t in range(fb.n_trees):
            nodes_b, nodes_r = tree_nodes(fb, t), tree_nodes(fr, t)
            rows_at = visits(codes, nodes_r)
            for i in np.flatnonzero(nodes_r["kind"] == 1):
                f = nodes_r["feature"][i]
                col = codes[rows_at[i], f]
                lo = col[col <= nodes_r["threshold"][i]].max()
                assert nodes_b["threshold"][i] == edges[f][int(lo)]
        # every training row reaches the same leaf
        np.testing.assert_array_equal(binned.apply(X), reference.apply(codes))


@pytest.mark.parametrize("learner", [treelab.VRTrees, treelab.Coalescence])
def test_mixed_trees_bin_their_deterministic_nodes_only(learner):
    X, y = data(missing=0.03)
    est = learner(n_estimators=6, random_state=0, max_bins=8).fit(X, y)
    fr = est.forest_
    edges = [slow_bins(X[:, f], 8)[1] for f in range(X.shape[1])]
    split = fr.kind == 1
    det = split & (fr.random == 0)
    rnd = split & (fr.random == 1)
    assert det.any() and rnd.any()
    for f, t in zip(fr.feature[det], fr.threshold[det], strict=True):
        assert t in edges[f]
    # random nodes keep drawing midpoints between two rows' values
    off_edge = [t not in edges[f] for f, t in zip(fr.feature[rnd], fr.threshold[rnd],
                                                  strict=True)]
    assert np.mean(off_edge) > 0.5


def test_every_value_its_own_bin_grows_the_exact_trees_structure():
    X, y = data(n=300)
    # no bootstrap: every training row reaches the same leaf (rows out of the bag could fall
    # between a midpoint and a bin edge)
    exact = treelab.RandomForest(n_estimators=3, bootstrap=False, random_state=0).fit(X, y)
    binned = treelab.RandomForest(n_estimators=3, bootstrap=False, random_state=0,
                                  max_bins=1 << 16).fit(X, y)
    for name in ("kind", "feature", "child_start", "counts"):
        np.testing.assert_array_equal(getattr(exact.forest_, name),
                                      getattr(binned.forest_, name))
    np.testing.assert_array_equal(exact.apply(X), binned.apply(X))


def test_binned_fit_is_reproducible_across_threads():
    X, y = data(n=2000, d=8)
    one = treelab.RandomForest(n_estimators=6, random_state=7, max_bins=16, n_jobs=1).fit(X, y)
    two = treelab.RandomForest(n_estimators=6, random_state=7, max_bins=16, n_jobs=2).fit(X, y)
    for name in one.forest_._fields:
        np.testing.assert_array_equal(getattr(one.forest_, name), getattr(two.forest_, name))


def test_nominal_features_are_not_binned():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 6, 400).astype(float), rng.normal(size=400)])
    y = (X[:, 0] % 2 == 0) ^ (X[:, 1] > 0)
    est = treelab.DecisionTree(categorical_features=[0], max_bins=2).fit(X, y)
    nodes = tree_nodes(est.forest_, 0)
    # the nominal test keeps its six branches; the continuous one has a single edge to use
    assert 6 in nodes["n_children"][nodes["kind"] == 2]
    assert np.unique(nodes["threshold"][nodes["kind"] == 1]).size == 1


@pytest.mark.parametrize("bad, error", [(1, ValueError), (0, ValueError), (2.5, TypeError),
                                        (True, TypeError), ("256", TypeError),
                                        (1 << 17, ValueError)])
def test_bad_max_bins_is_refused_by_name(bad, error):
    X, y = data(n=50)
    with pytest.raises(error, match="max_bins"):
        treelab.RandomForest(n_estimators=2, max_bins=bad).fit(X, y)


def test_single_model_shares_the_binning():
    assert treelab.VRTrees(max_bins=32).single_model().max_bins == 32
    assert treelab.BaggedTrees(max_bins=8).single_model().max_bins == 8


@pytest.mark.parametrize("learner", [treelab.RotationForest, treelab.BaggedCVDT])
def test_rotation_and_cvdt_trees_split_on_bin_edges(learner):
    """RotationForest bins each projected axis per tree, CVDT's entropy trees bin the encoded
    features: with two bins per axis every axis-aligned or rotated test has one threshold to
    choose, so a tree uses at most one threshold per axis; with bins of every value the trees
    are those of the exact search."""
    X, y = data(n=300, missing=0.0)
    kw = {"n_estimators": 3, "random_state": 0}
    if learner is treelab.BaggedCVDT:
        kw["candidates"] = ("entropy_tree",)
    coarse = learner(max_bins=2, **kw).fit(X, y)
    exact = learner(**kw).fit(X, y)
    fine = learner(max_bins=1 << 16, **kw).fit(X, y)
    fr = coarse.forest_
    for t in range(fr.n_trees):
        nodes = tree_nodes(fr, t)
        split = nodes["kind"] != 0
        pairs = {(f, th) for f, th in zip(nodes["feature"][split], nodes["threshold"][split],
                                          strict=True)}
        assert len(pairs) == len({f for f, _ in pairs})  # one threshold per axis
    for name in ("kind", "feature", "child_start", "counts"):
        np.testing.assert_array_equal(getattr(exact.forest_, name), getattr(fine.forest_, name))
    assert coarse.max_bins == 2 and coarse.single_model().max_bins == 2
