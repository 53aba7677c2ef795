"""Nominal features and missing values in regression trees, against independent computations:
a slow NumPy split search over thresholds (missing rows left, right or apart) and multiway
nominal splits, hand-worked examples, scikit-learn's ``DecisionTreeRegressor`` on data with
missing values, leaf values recomputed from the rows each leaf receives, and every
construction on nominal and missing data."""

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.tree import DecisionTreeRegressor

import treelab
from treelab.engine.kernels._params import KIND_NOMINAL, KIND_THRESHOLD

#: scikit-learn's trees split a feature of one present value from its missing rows since 1.8
#: (before, such a feature was skipped as constant, which treelab no longer does)
SPLITS_ONE_VALUE_FROM_MISSING = pytest.mark.skipif(
    tuple(int(p) for p in sklearn.__version__.split(".")[:2]) < (1, 8),
    reason="scikit-learn before 1.8 skips a feature of one present value and missing rows")


def _sse(y, w, mask):
    ww = w[mask]
    if ww.sum() == 0:
        return 0.0
    mu = np.sum(ww * y[mask]) / ww.sum()
    return float(np.sum(ww * (y[mask] - mu) ** 2))


def _slow_best_reduction(X, y, w, nominal):
    """The largest weighted-SSE reduction of one node's split by the definition: every
    midpoint between consecutive distinct non-missing values of a continuous feature with the
    missing rows left or right, the non-missing rows against the missing ones, and the
    multiway split of a nominal feature (one child per value) with the missing rows in any
    child. A nominal feature of one value is not split; a continuous one is split only apart
    from its missing rows, if it has any."""
    total = _sse(y, w, np.ones(len(y), dtype=bool))
    best = -np.inf
    for f in range(X.shape[1]):
        x = X[:, f]
        miss = np.isnan(x)
        vals = np.unique(x[~miss])
        if vals.size < 2 and (nominal[f] or not miss.any() or vals.size == 0):
            continue
        if nominal[f]:
            targets = vals if miss.any() else vals[:1]
            for tv in targets:
                sse = 0.0
                for v in vals:
                    child = (x == v) | (miss & (v == tv))
                    sse += _sse(y, w, child)
                best = max(best, total - sse)
            continue
        for lo, hi in zip(vals[:-1], vals[1:], strict=True):
            left = x <= lo + (hi - lo) / 2
            for nan_left in (False, True):
                side = left | (miss & nan_left)
                best = max(best, total - _sse(y, w, side) - _sse(y, w, ~side))
        if miss.any():
            best = max(best, total - _sse(y, w, ~miss) - _sse(y, w, miss))
    return best


def _root_reduction(forest, X, y, w):
    """The SSE reduction of the tree's root split, recomputed from where its test sends each
    training row (threshold, code, missing child)."""
    f = int(forest.feature[0])
    x = X[:, f]
    miss = np.isnan(x)
    if forest.kind[0] == KIND_NOMINAL:
        child = np.where(miss, forest.nan_child[0], np.nan_to_num(x)).astype(int)
    else:
        assert forest.kind[0] == KIND_THRESHOLD
        child = np.where(miss, forest.nan_child[0], (x > forest.threshold[0]).astype(int))
    total = _sse(y, w, np.ones(len(y), dtype=bool))
    return total - sum(_sse(y, w, child == b) for b in range(int(forest.n_children[0])))


def _mixed_data(seed, n=60, arity=4, nan_rate=0.2):
    rng = np.random.default_rng(seed)
    X = np.column_stack([
        np.round(rng.normal(size=n), 1),
        rng.integers(0, arity, n).astype(float),
        rng.uniform(size=n),
    ])
    y = X[:, 0] + np.array([0.0, 2.0, -1.0, 1.0, 3.0][:arity])[X[:, 1].astype(int)] + rng.normal(
        scale=0.5, size=n)
    for f in range(3):
        X[rng.uniform(size=n) < nan_rate, f] = np.nan
    return X, y


def _as_frame(X):
    return pd.DataFrame({"a": X[:, 0],
                         "b": pd.Categorical.from_codes(
                             np.where(np.isnan(X[:, 1]), -1, np.nan_to_num(X[:, 1])).astype(int),
                             ["p", "q", "r", "s"]),
                         "c": X[:, 2]})


@pytest.mark.parametrize("seed", range(8))
def test_root_split_is_the_slow_searchs_best(seed):
    """The root split (continuous thresholds with missing rows, a multiway nominal split) reduces
    the weighted SSE as much as the best split of a slow NumPy search, with fractional
    weights; the root's children predict the weighted means of the rows they receive."""
    X, y = _mixed_data(seed)
    w = np.random.default_rng(seed + 100).uniform(0.3, 2.0, len(y))
    tree = treelab.RegressionTree(max_depth=1).fit(_as_frame(X), y, sample_weight=w)
    forest = tree.forest_
    expected = _slow_best_reduction(X, y, w, [False, True, False])
    assert _root_reduction(forest, X, y, w) == pytest.approx(expected, rel=1e-9)
    leaves = tree.apply(_as_frame(X))[:, 0]
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        assert forest.value[leaf] == pytest.approx(np.sum(w[rows] * y[rows]) / w[rows].sum())


@pytest.mark.parametrize(("y_known", "threshold", "nan_child"), [
    # missing rows like the large values: right
    ([0.0, 0.0, 10.0, 10.0], 2.5, 1),
    # missing rows like the small values: left (strictly better)
    ([10.0, 10.0, 0.0, 0.0], 2.5, 0),
    # the missing rows alone differ: apart, threshold +inf
    ([0.0, 0.0, 0.0, 0.0], np.inf, 1),
])
def test_missing_direction_worked_by_hand(y_known, threshold, nan_child):
    """x = 1, 2, 3, 4, NaN, NaN with the missing rows' y = 10: the root's threshold and the
    side of its missing rows make both children pure, worked by hand; a missing value at
    prediction follows them."""
    X = np.array([[1.0], [2.0], [3.0], [4.0], [np.nan], [np.nan]])
    y = np.array(y_known + [10.0, 10.0])
    tree = treelab.RegressionTree().fit(X, y)
    f = tree.forest_
    assert f.kind[0] == KIND_THRESHOLD
    assert f.threshold[0] == threshold
    assert f.nan_child[0] == nan_child
    assert f.kind.shape[0] == 3  # both children pure
    np.testing.assert_array_equal(tree.predict(X), y)
    assert tree.predict(np.array([[np.nan]]))[0] == 10.0


def test_missing_values_unseen_in_training_follow_the_child_of_most_rows():
    """No missing value in training: at prediction one follows the child of more training
    rows (counted as rows, not weight), the left one of two equally large (scikit-learn's
    tree takes the right one there); a nominal split's, the code of most rows."""
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    nan = np.array([[np.nan]])
    tie = treelab.RegressionTree(max_depth=1).fit(X, [0.0, 0.0, 10.0, 10.0])
    assert tie.forest_.threshold[0] == 2.5 and tie.predict(nan)[0] == 0.0
    sk = DecisionTreeRegressor(max_depth=1).fit(X, [0.0, 0.0, 10.0, 10.0])
    assert sk.predict(nan)[0] == 10.0
    # one row left of x <= 1.5, three right: right, even where the left row weighs more
    heavy = treelab.RegressionTree(max_depth=1).fit(X, [0.0, 10.0, 10.0, 10.0],
                                                    sample_weight=[10.0, 1.0, 1.0, 1.0])
    assert heavy.forest_.threshold[0] == 1.5 and heavy.predict(nan)[0] == 10.0
    frame = pd.DataFrame({"lv": pd.Categorical(["a", "b", "b", "c", "c"])})
    nominal = treelab.RegressionTree().fit(frame, [1.0, 2.0, 2.0, 3.0, 3.0])
    assert nominal.predict(pd.DataFrame({"lv": pd.Categorical([None], ["a", "b", "c"])}))[0] \
        == 2.0


@pytest.mark.parametrize("max_bins", [None, 8])
def test_one_value_and_missing_rows_are_split_apart(max_bins):
    """x = 1, 1, 1, NaN, NaN, NaN with y = 0, 0, 0, 10, 10, 10: the only split, the present
    rows against the missing ones, takes the weighted SSE from 150 to 0 (worked by hand), and
    scikit-learn's tree takes it since its issue 32272. Skipping x as constant left one leaf
    predicting 5 for every row (R^2 0)."""
    X = np.array([[1.0], [1.0], [1.0], [np.nan], [np.nan], [np.nan]])
    y = np.array([0.0, 0.0, 0.0, 10.0, 10.0, 10.0])
    tree = treelab.RegressionTree(max_bins=max_bins).fit(X, y)
    f = tree.forest_
    assert f.kind[0] == KIND_THRESHOLD
    assert f.threshold[0] == np.inf and f.nan_child[0] == 1
    np.testing.assert_array_equal(tree.predict(X), y)
    np.testing.assert_array_equal(tree.predict(np.array([[7.0], [np.nan]])), [0.0, 10.0])
    # a feature with no missing row and one value is still no candidate; min_samples_leaf
    # counts the missing rows' child
    assert treelab.RegressionTree().fit(X[:3], [0.0, 1.0, 2.0]).forest_.kind.size == 1
    assert treelab.RegressionTree(min_samples_leaf=4).fit(X, y).forest_.kind.size == 1


@SPLITS_ONE_VALUE_FROM_MISSING
def test_one_value_and_missing_rows_below_the_root_agree_with_sklearn():
    """Below the root (a presorted list: x0 has over 256 distinct values, the node 40 rows),
    x0's rows of one value and its missing rows split apart, as scikit-learn's tree splits
    them: every training prediction equal; the node's 20 + 20 rows get 0 and 10, where one
    leaf predicted 5."""
    rng = np.random.default_rng(3)
    x0 = np.concatenate([np.round(rng.uniform(10, 20, 300), 3), np.full(20, 5.0),
                         np.full(20, np.nan)])
    x1 = np.concatenate([np.zeros(300), np.ones(40)])
    X = np.column_stack([x0, x1])
    y = np.concatenate([np.round(rng.normal(size=300), 3) + 100.0, np.zeros(20),
                        np.full(20, 10.0)])
    ours = treelab.RegressionTree().fit(X, y)
    ref = DecisionTreeRegressor(random_state=0).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X[300:]), y[300:])
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-12, atol=1e-12)


@SPLITS_ONE_VALUE_FROM_MISSING
@pytest.mark.parametrize("seed", [0, 8, 11])
def test_agrees_with_sklearn_where_nodes_hold_one_value_and_missing_rows(seed):
    """One feature of values in quarters, 30% missing, at depth 4: nodes whose present rows
    share one value arise, and the trees are scikit-learn's (these three data sets each had
    such a node, left a leaf: 23, 23 and 17 nodes against scikit-learn's 25, 25 and 19)."""
    rng = np.random.default_rng(seed)
    n = 150
    X = np.round(rng.normal(size=(n, 1)) * 4) / 4
    X[rng.uniform(size=n) < 0.3, 0] = np.nan
    y = np.nan_to_num(X[:, 0]) + rng.normal(size=n) + 2 * np.isnan(X[:, 0])
    ours = treelab.RegressionTree(max_depth=4).fit(X, y)
    ref = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    assert ours.forest_.kind.size == ref.tree_.node_count
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-12, atol=1e-12)


def test_random_node_sends_missing_rows_to_the_larger_child():
    """Complete-random trees: at every split the missing rows of its feature join the child
    with more non-missing rows (left on a tie), as the classifiers' random nodes; checked on
    every node from the training rows routed to its children."""
    X, y = _mixed_data(3, n=300, nan_rate=0.3)
    X[:, 1] = np.round(X[:, 2] * 10)  # continuous-coded
    forest = treelab.MaxDiverseRegressor(n_estimators=3, random_state=0).fit(X, y).forest_
    checked = 0
    for t in range(3):
        o = forest.node_offsets[t]
        for node, rows in _rows_at_nodes(forest, t, X).items():
            k = o + node
            if forest.kind[k] != KIND_THRESHOLD:
                continue
            x = X[rows, forest.feature[k]]
            miss = np.isnan(x)
            if not miss.any():
                continue
            n_left = np.sum(x[~miss] <= forest.threshold[k])
            n_right = np.sum(~miss) - n_left
            assert forest.nan_child[k] == (0 if n_left >= n_right else 1)
            checked += 1
    assert checked > 10


def _rows_at_nodes(forest, t, X):
    """The training rows the prediction walk takes through each node of tree t (written here
    from the node arrays: threshold, code, missing child)."""
    o = forest.node_offsets[t]
    at = {}
    for i in range(X.shape[0]):
        node = 0
        while True:
            at.setdefault(node, []).append(i)
            k = o + node
            if forest.n_children[k] == 0:
                break
            v = X[i, forest.feature[k]]
            if np.isnan(v):
                b = forest.nan_child[k]
            elif forest.kind[k] == KIND_NOMINAL:
                b = int(v)
            else:
                b = int(v > forest.threshold[k])
            node = forest.child_start[k] + b  # (tree-local indices)
    return {node: np.array(rows) for node, rows in at.items()}


def _sklearn_nan_data(seed, n=300, d=4):
    rng = np.random.default_rng(seed)
    # float32-representable values (scikit-learn reads X as float32), no ties in y
    X = np.round(rng.normal(size=(n, d)) * 64) / 64
    y = X[:, 0] * 2 + np.sin(3 * X[:, 1]) + rng.normal(scale=0.3, size=n)
    for f in range(d):
        X[rng.uniform(size=n) < 0.15 * (f + 1) / d, f] = np.nan
    # the missing rows carry signal, so the search prefers where they go
    y[np.isnan(X[:, 2])] += 1.5
    return X, y


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("max_depth", [None, 3])
def test_agrees_with_sklearn_on_missing_values(seed, max_depth):
    """Fully grown and at depth 3, with missing values in every feature: the same training
    predictions as scikit-learn's ``DecisionTreeRegressor`` (splitter="best"), which tries the
    missing rows on both sides and apart. At depth 3 (large nodes, no equal splits) also the
    same predictions for unseen rows with missing values and for an all-missing row; fully
    grown trees' small nodes have equal splits (features separating their rows alike) that the
    two libraries may choose apart, and where a node saw no missing rows and its children are
    equally large, scikit-learn sends missing values right, treelab left."""
    X, y = _sklearn_nan_data(seed)
    ours = treelab.RegressionTree(max_depth=max_depth).fit(X, y)
    ref = DecisionTreeRegressor(max_depth=max_depth, random_state=0).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-12, atol=1e-12)
    if max_depth is None:
        return
    rng = np.random.default_rng(seed + 50)
    Xt = np.round(rng.normal(size=(200, X.shape[1])) * 64) / 64
    Xt[rng.uniform(size=Xt.shape) < 0.2] = np.nan
    Xt[0] = np.nan
    np.testing.assert_allclose(ours.predict(Xt), ref.predict(Xt), rtol=1e-12, atol=1e-12)


def test_weighted_missing_rows_agree_with_sklearn():
    """Fractional sample weights (some 0) on data with missing values: scikit-learn's weighted
    tree, training predictions on the rows of positive weight."""
    X, y = _sklearn_nan_data(7)
    w = np.random.default_rng(8).uniform(0.1, 3.0, len(y))
    w[::11] = 0.0
    ours = treelab.RegressionTree(min_samples_leaf=3).fit(X, y, sample_weight=w)
    ref = DecisionTreeRegressor(min_samples_leaf=3, random_state=0).fit(X[w > 0], y[w > 0],
                                                                        sample_weight=w[w > 0])
    pos = w > 0
    np.testing.assert_allclose(ours.predict(X[pos]), ref.predict(X[pos]), rtol=1e-12,
                               atol=1e-12)


def test_weights_with_missing_rows_are_repeated_rows():
    """Integer sample weights on nominal and missing data grow the tree of the repeated rows:
    the same predictions everywhere."""
    X, y = _mixed_data(11, n=80)
    # quarters: every weighted sum is exact, so equal splits score equal bit for bit in both
    y = np.round(y * 4) / 4
    w = np.random.default_rng(12).integers(0, 4, len(y))
    rep = np.repeat(np.arange(len(y)), w)
    frame = _as_frame(X)
    # (node sizes count rows, not weights: min_samples_leaf=1 and min_samples_split=2 treat a
    # row of weight k as its k copies)
    a = treelab.RegressionTree().fit(frame, y, sample_weight=w.astype(float))
    b = treelab.RegressionTree().fit(frame.iloc[rep].reset_index(drop=True), y[rep])
    Xt, _ = _mixed_data(13, n=100)
    np.testing.assert_allclose(a.predict(_as_frame(Xt)), b.predict(_as_frame(Xt)), rtol=1e-12)


def test_one_multiway_split_separates_every_level():
    """A nominal feature of five levels whose means are not ordered by code: at depth 1 the
    tree splits it into five children at once, each predicting its level's mean (worked with
    NumPy), which one-hot columns reach only after four splits."""
    rng = np.random.default_rng(0)
    levels = np.array(["a", "b", "c", "d", "e"])
    means = {"a": 3.0, "b": -1.0, "c": 7.0, "d": 0.5, "e": 4.0}
    col = rng.choice(levels, 250)
    y = np.array([means[v] for v in col]) + rng.normal(scale=0.2, size=250)
    noise = rng.normal(size=250)
    frame = pd.DataFrame({"noise": noise, "level": col})  # object (text) column
    tree = treelab.RegressionTree(max_depth=1).fit(frame, y)
    f = tree.forest_
    assert f.kind[0] == KIND_NOMINAL and f.n_children[0] == 5
    pred = tree.predict(frame)
    for v in levels:
        assert np.all(pred[col == v] == pytest.approx(y[col == v].mean()))
    onehot = pd.get_dummies(frame["level"]).astype(float).to_numpy()
    stump = DecisionTreeRegressor(max_depth=1).fit(onehot, y)
    assert np.unique(stump.predict(onehot)).size == 2
    assert tree.score(frame, y) > stump.score(onehot, y) + 0.3


def test_categorical_and_string_columns_and_unseen_values():
    """A DataFrame with a categorical column (its missing values NaN), a string column and a
    numeric column with NaN: trained, and a category unseen in training follows the path of
    the missing values (the same prediction as NaN)."""
    rng = np.random.default_rng(5)
    n = 200
    cat = pd.Categorical(rng.choice(["x", "y", "z", None], n), categories=["x", "y", "z"])
    txt = rng.choice(["low", "mid", "high"], n).astype(object)
    num = rng.normal(size=n)
    num[rng.uniform(size=n) < 0.1] = np.nan
    y = (np.asarray(cat.codes) + 1.0) * 2 + (txt == "high") * 3 + np.nan_to_num(num)
    frame = pd.DataFrame({"cat": cat, "txt": txt, "num": num})
    forest = treelab.VRTreesRegressor(n_estimators=5, alpha=0.7, random_state=0).fit(frame, y)
    assert forest.score(frame, y) > 0.8
    unseen = frame.iloc[:20].copy()
    unseen["txt"] = "unheard-of"
    missing = frame.iloc[:20].copy()
    missing["txt"] = None
    np.testing.assert_array_equal(forest.predict(unseen), forest.predict(missing))


def _constructions():
    R = treelab
    return [
        R.RegressionTree(),
        R.RegressionTree(max_bins=8, criterion="poisson"),
        R.VRTreesRegressor(n_estimators=4, alpha=0.5, random_state=0),
        R.VRTreesRegressor(n_estimators=4, alpha=0.6, sampling="bootstrap", random_state=1),
        R.VRTreesRegressor(n_estimators=4, alpha=0.6, sampling="subspace", random_state=2),
        R.VRTreesRegressor(n_estimators=4, alpha=0.8, sampling="bootstrap+subspace",
                           random_split="uniform", max_bins=16, random_state=3),
        R.VRTreesRegressor(n_estimators=3, alpha=0.3, random_split="pair_distinct",
                           random_state=4),
        R.CoalescenceRegressor(n_estimators=4, random_state=5),
        R.MaxDiverseRegressor(n_estimators=4, random_state=6),
        R.RandomDecisionTreesRegressor(n_estimators=4, random_state=7),
        R.RandomForestRegressor(n_estimators=4, max_features=2, random_state=8),
        R.ExtraTreesRegressor(n_estimators=4, random_state=9),
        R.BaggedTreesRegressor(n_estimators=4, random_state=10),
        R.DisjointSampleTreesRegressor(n_estimators=3, random_state=11),
    ]


@pytest.mark.parametrize("est", _constructions(), ids=lambda e: type(e).__name__)
def test_every_construction_grows_nominal_and_missing_data(est):
    """Every learner and construction fits nominal and missing data (poisson: counts) and
    predicts finite values; for trees grown on all their rows, every leaf's value is the
    weighted mean of the training rows the prediction walk sends to it (so the training
    partition and the walk agree on every missing value and code)."""
    X, y = _mixed_data(21, n=400, nan_rate=0.25)
    if est.get_params().get("criterion") == "poisson":
        y = np.exp(y / 3)
    w = np.random.default_rng(22).uniform(0.5, 2.0, len(y))
    frame = _as_frame(X)
    est.fit(frame, y, sample_weight=w)
    pred = est.predict(frame)
    assert np.all(np.isfinite(pred))
    forest = est.forest_
    assert np.any(forest.kind == KIND_NOMINAL)
    if est.get_params().get("sampling", "none") in ("none", "subspace") and type(est).__name__ \
            not in ("BaggedTreesRegressor", "DisjointSampleTreesRegressor",
                    "RandomForestRegressor"):
        leaves = est.apply(frame)
        for t in range(leaves.shape[1]):
            o = forest.node_offsets[t]
            for leaf in np.unique(leaves[:, t]):
                rows = leaves[:, t] == leaf
                assert forest.value[o + leaf] == pytest.approx(
                    np.sum(w[rows] * y[rows]) / w[rows].sum(), rel=1e-10)


def test_infinity_is_still_refused_naming_x():
    X = np.random.default_rng(0).normal(size=(10, 2))
    X[3, 1] = np.inf
    with pytest.raises(ValueError, match="X contains infinity"):
        treelab.RegressionTree().fit(X, np.arange(10.0))


def test_a_code_absent_at_a_node_predicts_the_nodes_mean():
    """Level "c" never occurs where x0 = 0: the nominal split below the root's x0 threshold
    gets a child no training row reaches, and a row (0, "c") is predicted the mean of the
    x0 = 0 rows (worked by hand: (1 + 1 + 2 + 2 + 2) / 5), not NaN."""
    x0 = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1], dtype=float)
    lv = np.array(["a", "a", "b", "b", "b", "a", "a", "b", "b", "c", "c"], dtype=object)
    y = np.array([1, 1, 2, 2, 2, 100, 100, 110, 110, 120, 120], dtype=float)
    frame = pd.DataFrame({"x0": x0, "lv": lv})
    tree = treelab.RegressionTree().fit(frame, y)
    f = tree.forest_
    assert f.kind[0] == KIND_THRESHOLD and f.feature[0] == 0
    np.testing.assert_array_equal(tree.predict(frame), y)
    query = pd.DataFrame({"x0": [0.0, 1.0], "lv": ["c", "c"]})
    np.testing.assert_allclose(tree.predict(query), [8 / 5, 120.0])


def _most_tests_of_one_nominal_feature_on_a_path(forest) -> int:
    """The largest number of nodes testing one nominal feature on a root-to-leaf path."""
    most = 0
    for t in range(forest.node_offsets.shape[0] - 1):
        o = forest.node_offsets[t]
        stack = [(0, ())]
        while stack:
            k, above = stack.pop()
            if forest.kind[o + k] == KIND_NOMINAL:
                above = above + (int(forest.feature[o + k]),)
                most = max(most, above.count(above[-1]))
            for b in range(forest.n_children[o + k]):
                stack.append((int(forest.child_start[o + k]) + b, above))
    return most


@pytest.mark.parametrize("est", [
    treelab.VRTreesRegressor(n_estimators=8, alpha=0.3, random_state=0),
    treelab.VRTreesRegressor(n_estimators=8, alpha=0.5, sampling="bootstrap", random_state=1),
    treelab.MaxDiverseRegressor(n_estimators=8, random_state=2),
    treelab.RandomDecisionTreesRegressor(n_estimators=8, random_state=3),
], ids=lambda e: type(e).__name__)
def test_a_nominal_feature_is_split_once_on_a_path(est):
    """Random nodes, as deterministic ones and the classifiers' nodes, never test a nominal
    feature tested above them: its codes are split already (one code a child, with the missing
    rows in one), so the test would send every row to one child and only spend depth."""
    X, y = _mixed_data(31, n=400, nan_rate=0.1)
    forest = est.fit(_as_frame(X), y).forest_
    assert np.any(forest.kind == KIND_NOMINAL)
    assert _most_tests_of_one_nominal_feature_on_a_path(forest) == 1
