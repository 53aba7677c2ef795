"""Regression trees of the engine (``engine.kernels._grow.grow_tree``'s regression version)
against independent computations: a slow NumPy split search, hand-worked leaf values, scikit-learn's
``DecisionTreeRegressor`` (squared error and Poisson) on ten data sets, and the constructions
replayed from the trees' own generators."""

import numpy as np
import pytest
from numba import njit
from sklearn.datasets import (
    load_diabetes,
    make_friedman1,
    make_friedman2,
    make_friedman3,
    make_regression,
)
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils import check_random_state

import treelab
from treelab.engine.kernels import _grow as G
from treelab.engine.kernels._rng import new_state
from treelab.engine.kernels._select import random_select


def _slow_best_split(X, y, w):
    """Best squared-error split of one node by the definition: for every feature and every
    midpoint between consecutive distinct values, the weighted SSE of the node less those of
    its two children. Returns (reduction, feature, threshold)."""
    def sse(mask):
        ww = w[mask]
        if ww.sum() == 0:
            return 0.0
        mu = np.sum(ww * y[mask]) / ww.sum()
        return float(np.sum(ww * (y[mask] - mu) ** 2))

    total = sse(np.ones(len(y), dtype=bool))
    best = (-np.inf, -1, np.nan)
    for f in range(X.shape[1]):
        vals = np.unique(X[:, f])
        for lo, hi in zip(vals[:-1], vals[1:], strict=True):
            t = lo + (hi - lo) / 2
            left = X[:, f] <= t
            red = total - sse(left) - sse(~left)
            if red > best[0]:
                best = (red, f, t)
    return best


def _sse_reduction(X, y, w, f, t):
    def sse(mask):
        mu = np.sum(w[mask] * y[mask]) / w[mask].sum()
        return float(np.sum(w[mask] * (y[mask] - mu) ** 2))

    left = X[:, f] <= t
    return sse(np.ones(len(y), dtype=bool)) - sse(left) - sse(~left)


@pytest.mark.parametrize("seed", range(6))
def test_root_split_is_the_slow_searchs_best(seed):
    """The kernel's root split reduces the weighted SSE as much as the best split a slow
    NumPy search finds, on data with ties and fractional weights; the
    children's values are the weighted means of their rows."""
    rng = np.random.default_rng(seed)
    if seed < 3:  # few distinct values: the dense histogram and sorted keys
        n, d = 60, 4
        X = rng.integers(0, 7, size=(n, d)).astype(float)
    else:  # over 256 distinct values, some tied: the presorted lists
        n, d = 500, 4
        X = np.round(rng.uniform(size=(n, d)), 3)
    y = X[:, seed % d] * 2.0 + rng.normal(size=n)
    w = rng.uniform(0.1, 3.0, size=n)
    w[rng.integers(0, n, size=5)] = 0.0
    tree = treelab.RegressionTree(max_depth=1).fit(X, y, sample_weight=w)
    fr = tree.forest_
    assert fr.kind[0] == G.KIND_THRESHOLD
    f, t = int(fr.feature[0]), float(fr.threshold[0])
    keep = w > 0
    best, _, _ = _slow_best_split(X[keep], y[keep], w[keep])
    assert _sse_reduction(X[keep], y[keep], w[keep], f, t) == pytest.approx(best, rel=1e-10)
    left = X[:, f] <= t
    c = fr.child_start[0]
    assert fr.value[c] == pytest.approx(np.sum((w * y)[left]) / np.sum(w[left]), rel=1e-12)
    assert fr.value[c + 1] == pytest.approx(np.sum((w * y)[~left]) / np.sum(w[~left]),
                                            rel=1e-12)
    assert fr.value[0] == pytest.approx(np.sum(w * y) / np.sum(w), rel=1e-12)


@pytest.mark.parametrize("n_values", [40, 200])
def test_every_binned_node_split_is_the_slow_searchs_best(n_values):
    """Every split of a binned tree (``max_bins=255`` over 40 or 200 distinct values a
    feature, so each value its own bin) reduces its node's weighted SSE as much as the slow
    NumPy search's best split of the node's rows: large nodes are summarised in dense
    histograms, small ones (ranks spanning more than 2 m + 16) walked in per-rank chains
    through a bitmap of the ranks present (200 values: ranks in up to four words of it)."""
    rng = np.random.default_rng(11)
    n, d = 400, 3
    X = rng.integers(0, n_values, size=(n, d)).astype(float)
    y = X[:, 0] * 0.5 + np.sin(X[:, 1]) + rng.normal(size=n)
    w = rng.uniform(0.1, 3.0, size=n)
    fr = treelab.RegressionTree(max_bins=255, max_depth=9).fit(X, y, sample_weight=w).forest_
    checked = 0
    chained = 0
    todo = [(0, np.arange(n))]
    while todo:
        node, rows = todo.pop()
        if fr.kind[node] != G.KIND_THRESHOLD:
            continue
        f, t = int(fr.feature[node]), float(fr.threshold[node])
        best, _, _ = _slow_best_split(X[rows], y[rows], w[rows])
        got = _sse_reduction(X[rows], y[rows], w[rows], f, t)
        assert got == pytest.approx(best, rel=1e-9, abs=1e-9), node
        checked += 1
        spans = np.ptp(X[rows], axis=0) + 1
        chained += int(np.any(spans > 2 * len(rows) + 16))
        left = X[rows, f] <= t
        c = int(fr.child_start[node])
        todo += [(c, rows[left]), (c + 1, rows[~left])]
    assert checked > 50 and chained > 20


def test_leaf_values_worked_by_hand():
    """x = 0, 1, 2, 3, y = 1, 2, 10, 12, weights 1, 3, 1, 1. The splits x <= 0.5, 1.5, 2.5
    leave weighted SSEs 0 + 68.75 (right mean 9), 0.75 + 2 (means 7/4, 11) and 45 + 0: the
    tree splits at 1.5 and predicts 7/4 and 11."""
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([1.0, 2.0, 10.0, 12.0])
    w = np.array([1.0, 3.0, 1.0, 1.0])
    tree = treelab.RegressionTree(max_depth=1).fit(X, y, sample_weight=w)
    assert tree.forest_.threshold[0] == 1.5
    np.testing.assert_array_equal(tree.predict(X), [1.75, 1.75, 11.0, 11.0])
    assert tree.forest_.weight[0] == 6.0


def _bundle_target(name, target_col, n_max=600):
    data = treelab.datasets.load_uci(name)
    X = np.asarray(data.X, dtype=float)
    keep = [j for j in range(X.shape[1]) if data.feature_types[j] != "nominal"]
    X = X[:, keep]
    assert not np.isnan(X).any()
    if target_col is None:  # the class label as a number (abalone's rings)
        y = np.asarray(data.y, dtype=float)
    else:
        y = X[:, target_col]
        X = np.delete(X, target_col, axis=1)
    return X[:n_max], y[:n_max]


def _ten_sets():
    sets = {
        "friedman1": make_friedman1(400, noise=1.0, random_state=0),
        "friedman2": make_friedman2(400, noise=10.0, random_state=1),
        "friedman3": make_friedman3(400, noise=0.1, random_state=2),
        "make_regression": make_regression(400, 8, noise=5.0, random_state=3),
        "diabetes": load_diabetes(return_X_y=True),
        "abalone_rings": _bundle_target("abalone", None),
        "liver_drinks": _bundle_target("liver", -1),
        "wine_alcohol": _bundle_target("wine", 0),
        "glass_ri": _bundle_target("glass", 0),
        "sonar_band0": _bundle_target("sonar", 0),
    }
    return sets


def _distinct_gaps(X):
    """Smallest gap between distinct values of any feature: scikit-learn treats values closer
    than 1e-7 as equal (FEATURE_THRESHOLD), treelab does not."""
    gaps = [np.diff(np.unique(X[:, j])).min(initial=np.inf) for j in range(X.shape[1])]
    return min(gaps)


@pytest.mark.parametrize("name", list(_ten_sets()))
def test_alpha_one_tree_agrees_with_sklearn(name):
    """At alpha = 1 with all features, fully grown: the same training predictions as
    scikit-learn's DecisionTreeRegressor (whichever of two equally good splits each takes,
    every leaf holds rows of one target or of one x), test MSE within noise, and at depth 4
    (at least 3 rows a leaf) the same split choices: the same training predictions."""
    X, y = _ten_sets()[name]
    # scikit-learn's trees read X as float32: the same values for both
    X = X.astype(np.float32).astype(np.float64)
    assert _distinct_gaps(X) > 1e-7
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))
    tr, te = idx[: 2 * len(y) // 3], idx[2 * len(y) // 3:]
    ours = treelab.RegressionTree().fit(X[tr], y[tr])
    ref = DecisionTreeRegressor(random_state=0).fit(X[tr], y[tr])
    np.testing.assert_allclose(ours.predict(X[tr]), ref.predict(X[tr]), rtol=1e-12, atol=1e-12)
    mse_ours = np.mean((ours.predict(X[te]) - y[te]) ** 2)
    mse_ref = np.mean((ref.predict(X[te]) - y[te]) ** 2)
    # two fully grown trees differing only in ties: their test errors differ by far less than
    # the spread of the squared errors over the test rows
    spread = np.std((ref.predict(X[te]) - y[te]) ** 2) / np.sqrt(len(te))
    assert abs(mse_ours - mse_ref) <= 3 * spread
    # limited depth: the split choice itself, compared through the predictions
    ours4 = treelab.RegressionTree(max_depth=4, min_samples_leaf=3).fit(X[tr], y[tr])
    ref4 = DecisionTreeRegressor(max_depth=4, min_samples_leaf=3, random_state=0).fit(
        X[tr], y[tr])
    # on the training rows; an unseen row may go either way where two features split a
    # node's training rows identically (an exact tie: on wine and sonar, checked by hand)
    np.testing.assert_allclose(ours4.predict(X[tr]), ref4.predict(X[tr]), rtol=1e-10,
                               atol=1e-10)


@pytest.mark.parametrize("depth", [2, 3, 4])
def test_poisson_agrees_with_sklearn(depth):
    """criterion="poisson" against scikit-learn's Poisson tree on count data. (Fully grown
    trees are not compared: a node such as y = (0, 0, 2) cannot be split under the Poisson
    criterion, so impure leaves remain, and which rows share them depends on how earlier ties
    between equally good splits of small count nodes were broken.)"""
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(300, 5)).astype(np.float32).astype(np.float64)
    y = rng.poisson(np.exp(1.0 + 2.0 * X[:, 0] - X[:, 1])).astype(float)
    ours = treelab.RegressionTree(criterion="poisson", max_depth=depth).fit(X, y)
    ref = DecisionTreeRegressor(criterion="poisson", max_depth=depth, random_state=0).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-10)
    Xt = rng.uniform(size=(200, 5)).astype(np.float32).astype(np.float64)
    np.testing.assert_allclose(ours.predict(Xt), ref.predict(Xt), rtol=1e-10)


def test_poisson_never_splits_off_a_zero_mean_child():
    X = np.arange(6.0).reshape(-1, 1)
    y = np.array([0.0, 0.0, 0.0, 1.0, 2.0, 3.0])
    tree = treelab.RegressionTree(criterion="poisson").fit(X, y)
    assert np.all(tree.forest_.value > 0)
    sq = treelab.RegressionTree().fit(X, y)
    assert np.any(sq.forest_.value == 0)


def test_constant_target_and_single_row():
    X = np.random.default_rng(0).normal(size=(20, 3))
    tree = treelab.RandomForestRegressor(n_estimators=3, random_state=0).fit(X, np.full(20, 2.5))
    assert tree.forest_.kind.tolist() == [0, 0, 0]
    np.testing.assert_array_equal(tree.predict(X), 2.5)
    one = treelab.VRTreesRegressor(n_estimators=2, random_state=0).fit(X[:1], [7.0])
    np.testing.assert_array_equal(one.predict(X), 7.0)


@pytest.mark.parametrize("est", [treelab.RegressionTree(), treelab.MaxDiverseRegressor(
    n_estimators=2, random_state=0)])
def test_refusals_name_the_argument(est):
    X = np.random.default_rng(0).normal(size=(10, 2))
    y = np.arange(10.0)
    with pytest.raises(ValueError, match="Input y contains NaN"):
        est.fit(X, np.where(y == 3, np.nan, y))
    Xn = X.copy()
    Xn[4, 1] = np.inf
    with pytest.raises(ValueError, match="X contains infinity"):
        est.fit(Xn, y)
    with pytest.raises(ValueError, match="poisson"):
        est.set_params(criterion="poisson").fit(X, -y)
    est.set_params(criterion="squared_error")


@pytest.mark.parametrize("est", [
    treelab.RegressionTree(criterion="poisson"),
    treelab.RandomForestRegressor(criterion="poisson", n_estimators=2, random_state=0),
    treelab.RotationForestRegressor(criterion="poisson", n_estimators=2, random_state=0)])
def test_poisson_refuses_targets_all_zero_over_the_weighted_rows(est):
    """Rows of weight 0 are left out, so a Poisson fit whose positive targets all have weight
    0 is the fit of all-zero targets, refused as that fit is; it was grown and predicted a
    mean of 0 for every row (a Poisson deviance of +inf for any positive target)."""
    X = np.arange(8.0).reshape(-1, 1)
    y = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 5.0])
    w = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="y sums to 0"):
        est.fit(X[:6], y[:6])
    with pytest.raises(ValueError, match="y sums to 0 over the rows of positive sample_weight"):
        est.fit(X, y, sample_weight=w)
    w[7] = 0.25
    assert np.all(est.fit(X, y, sample_weight=w).predict(X) > 0)


@njit
def _pert_thresholds(Xc, y, buf, draws):
    """PERT's random selection at a node of every row of ``buf[0]``, once per seed 0..draws-1:
    the threshold, NaN where no threshold test on feature 0 was drawn."""
    n = buf.shape[1]
    nominal = np.zeros(1, dtype=np.uint8)
    used = np.zeros(1, dtype=np.uint8)
    perm = np.zeros(1, dtype=np.int64)
    out = np.full(draws, np.nan)
    for k in range(draws):
        found, f, kind, t = random_select(G.RS_PERT, nominal, used, 1, perm, buf, 0, 0, n, Xc,
                                          Xc, False, new_state(np.uint64(k)), True, y)
        if found and f == 0 and kind == G.KIND_THRESHOLD:
            out[k] = t
    return out


def test_pert_pairs_two_rows_of_different_targets():
    """PERT's random node for regression (``_select.random_select`` given the targets): rows
    x = 0..9 with y = 0 except y[9] = 1. Only the pairs (i, 9), i < 9, differ in target, so
    the threshold is uniform on (i, 9) with i uniform on 0..8 and P(t > 8) = H_9 / 9 = 0.314
    (H_9 the 9th harmonic number), given a pair was found; a pair of any two rows would give
    about 0.11, and a rule reading the rows' class codes (all 0 here) would find no pair."""
    n = 10
    Xc = np.arange(n, dtype=np.float64).reshape(1, n)
    y = np.zeros(n)
    y[9] = 1.0
    buf = np.zeros((2, n), dtype=np.int64)
    buf[0] = (np.arange(n, dtype=np.int64) << 32) | (1 << 16)
    t = _pert_thresholds(Xc, y, buf, 3000)
    # a draw of two rows differs in target with probability 2 (1/10)(9/10) = 0.18; after
    # PERT's 10 attempts no pair is found with probability 0.82^10 (the node is a leaf)
    found = t[~np.isnan(t)]
    assert abs(found.size / t.size - (1 - 0.82**10)) < 0.03  # 4.7 standard deviations
    assert np.all((found >= 0.0) & (found <= 9.0))
    harmonic = sum(1 / k for k in range(1, 10))
    assert abs(np.mean(found > 8.0) - harmonic / 9) < 0.035  # 4 standard deviations


def test_pert_regression_forest_fits_and_is_the_same_on_two_threads():
    X, y = make_friedman1(2000, random_state=0)
    Xt, yt = make_friedman1(1000, random_state=1)
    one = treelab.VRTreesRegressor(n_estimators=30, alpha=0.0, random_split="pert",
                                   sampling="bootstrap", random_state=2).fit(X, y)
    two = treelab.VRTreesRegressor(n_estimators=30, alpha=0.0, random_split="pert",
                                   sampling="bootstrap", random_state=2, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.forest_.threshold, two.forest_.threshold)
    assert one.score(Xt, yt) > 0.5


def test_same_forest_on_one_and_two_threads():
    X, y = make_friedman1(3000, random_state=0)
    for est in (treelab.VRTreesRegressor(n_estimators=8, alpha=0.5,
                                         sampling="bootstrap+subspace", random_state=3),
                treelab.ExtraTreesRegressor(n_estimators=8, random_state=3),
                treelab.RandomForestRegressor(n_estimators=8, max_features=0.4, max_bins=32,
                                              random_state=3)):
        a = est.set_params(n_jobs=1).fit(X, y).forest_
        b = est.set_params(n_jobs=2).fit(X, y).forest_
        for field in a._fields:
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)


def _replayed_draws(est, n, d, n_sub):
    T = est.n_estimators
    seeds = check_random_state(est.random_state).randint(0, np.iinfo(np.int32).max, size=T)
    part = np.zeros(n, dtype=np.int32)
    return [G.draw_construction(n, d, G.ROWS_BOOTSTRAP, part, t, n_sub,
                                new_state(np.uint64(seeds[t]))) for t in range(T)]


def test_bootstrap_and_subspace_trees_see_their_draws():
    """Each tree's rows (with multiplicity) and features are those its seed draws: the root's
    size and weighted mean are the replayed bootstrap's, and no tree splits on a feature
    outside its subspace."""
    X, y = make_friedman1(300, n_features=10, random_state=1)
    est = treelab.VRTreesRegressor(n_estimators=6, alpha=0.7, sampling="bootstrap+subspace",
                                   subspace_fraction=0.3, random_state=11).fit(X, y)
    fr = est.forest_
    for t, (w, mask) in enumerate(_replayed_draws(est, 300, 10, 3)):
        root = fr.node_offsets[t]
        assert fr.counts[root, 0] == w.sum()
        assert fr.value[root] == pytest.approx(np.sum(w * y) / w.sum(), rel=1e-12)
        used = fr.feature[root:fr.node_offsets[t + 1]]
        assert set(used[used >= 0].tolist()) <= set(np.flatnonzero(mask).tolist())


def test_disjoint_parts_hold_the_dealt_rows():
    X, y = make_friedman1(120, random_state=2)
    est = treelab.DisjointSampleTreesRegressor(n_estimators=4, random_state=5).fit(X, y)
    rng = check_random_state(5)
    rng.randint(0, np.iinfo(np.int32).max, size=4)
    part = np.zeros(120, dtype=int)
    part[rng.permutation(120)] = np.arange(120) % 4
    fr = est.forest_
    members = est.member_predict(X)
    for t in range(4):
        root = fr.node_offsets[t]
        assert fr.counts[root, 0] == np.sum(part == t)
        assert fr.value[root] == pytest.approx(y[part == t].mean(), rel=1e-12)
        # fully grown on distinct rows: a tree reproduces its own rows' targets
        np.testing.assert_allclose(members[t, part == t], y[part == t], rtol=1e-12)


def test_binned_thresholds_are_bin_edges_and_many_bins_is_exact():
    X, y = make_friedman1(400, random_state=7)
    exact = treelab.RegressionTree(max_depth=6).fit(X, y)
    wide = treelab.RegressionTree(max_depth=6, max_bins=1000).fit(X, y)
    np.testing.assert_array_equal(exact.predict(X), wide.predict(X))
    binned = treelab.RegressionTree(max_depth=6, max_bins=8).fit(X, y)
    fr = binned.forest_
    inner = fr.kind == G.KIND_THRESHOLD
    for f in range(X.shape[1]):
        # a bin's upper edge is the midpoint between two consecutive distinct values, and
        # 8 bins have 7 such edges
        used = np.unique(fr.threshold[inner & (fr.feature == f)])
        assert used.size <= 7
        u = np.unique(X[:, f])
        mids = set((u[:-1] + (u[1:] - u[:-1]) * 0.5).tolist())
        assert set(used.tolist()) <= mids
    assert np.mean((binned.predict(X) - y) ** 2) < np.var(y)


def test_complete_random_trees_reproduce_their_rows():
    X, y = make_friedman1(200, random_state=8)
    est = treelab.MaxDiverseRegressor(n_estimators=3, random_state=0).fit(X, y)
    fr = est.forest_
    assert np.all(fr.random[fr.kind == G.KIND_THRESHOLD] == 1)
    np.testing.assert_allclose(est.member_predict(X), np.broadcast_to(y, (3, 200)), rtol=1e-12)
    vr = treelab.VRTreesRegressor(n_estimators=3, alpha=0.5, random_state=0).fit(X, y)
    share = vr.forest_.random[vr.forest_.kind == G.KIND_THRESHOLD].mean()
    assert 0.3 < share < 0.7


def test_in_bag_counts_of_a_regression_forest():
    """``analysis.in_bag_counts`` replays a bagged regressor's draws: a fully grown tree
    reproduces the target of every row in its bag (distinct rows), and the bag holds about
    1 - 1/e of the rows; wrong targets are refused."""
    from treelab.analysis.oob import in_bag_counts

    X, y = make_friedman1(300, random_state=9)
    est = treelab.RandomForestRegressor(n_estimators=6, random_state=4).fit(X, y)
    bag = in_bag_counts(est, y)
    assert bag.shape == (6, 300)
    members = est.member_predict(X)
    np.testing.assert_allclose(members[bag > 0], np.broadcast_to(y, (6, 300))[bag > 0],
                               rtol=1e-12)
    assert 0.55 < np.mean(bag > 0) < 0.72
    with pytest.raises(ValueError, match="in-bag rows of y"):
        in_bag_counts(est, y[::-1])
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=300)
    est_w = treelab.RandomForestRegressor(n_estimators=3, random_state=4).fit(X, y, w)
    bag_w = in_bag_counts(est_w, y, sample_weight=w)
    np.testing.assert_allclose(bag_w, bag[:3] * w)
