"""Where treelab and scikit-learn compute the same tree, they must agree."""

import numpy as np
import pytest
from helpers_trees import split_gain, tree_nodes
from sklearn.tree import DecisionTreeClassifier

import treelab


def tie_free_data(seed, n=1500, d=5, noise=0.15):
    """Continuous features on a float32 grid (sklearn works in float32) with no repeated value."""
    rng = np.random.default_rng(seed)
    X = rng.permuted(np.tile(np.arange(n, dtype=np.float64), (d, 1)), axis=1).T
    X = (X + rng.uniform(0.1, 0.9, size=(n, d))).astype(np.float32).astype(np.float64)
    signal = X[:, 0] / n + 0.7 * (X[:, 1] / n) ** 2 - 0.4 * X[:, 2] / n
    y = (signal + noise * rng.normal(size=n) > 0.5).astype(int)
    y[signal > 1.0] = 2
    return X, y


def sk_nodes(clf):
    t = clf.tree_
    return t.children_left, t.children_right, t.feature, t.threshold, t.value, t.n_node_samples


def compare_structure(ours, clf, X, y, criterion):
    """Walk both trees together. Where they choose different tests, both tests must tie in
    gain on that node's rows (a legitimate tie, broken differently); below such a node the
    subtrees are not compared. Returns (matched nodes, tie-broken nodes)."""
    nodes = tree_nodes(ours.forest_, 0)
    left, right, feat, thr, _, _ = sk_nodes(clf)
    stack = [(0, 0, np.arange(len(y)))]
    matched = ties = 0
    n_classes = y.max() + 1
    while stack:
        i, j, idx = stack.pop()
        our_leaf = nodes["kind"][i] == 0
        sk_leaf = left[j] == -1
        assert our_leaf == sk_leaf, f"leaf mismatch at node {i}/{j} with {len(idx)} rows"
        np.testing.assert_array_equal(nodes["counts"][i], np.bincount(y[idx], minlength=n_classes))
        if our_leaf:
            matched += 1
            continue
        f, t = nodes["feature"][i], nodes["threshold"][i]
        go = X[idx, f] <= t
        # sklearn stores float32-rounded thresholds: compare the partitions they induce
        if f != feat[j] or not np.array_equal(go, X[idx, feat[j]] <= thr[j]):
            g_ours = split_gain(y[idx], X[idx, f] <= t, n_classes, criterion)
            g_sk = split_gain(y[idx], X[idx, feat[j]] <= thr[j], n_classes, criterion)
            assert g_ours == pytest.approx(g_sk, rel=1e-9), (
                f"different tests with different gains at a {len(idx)}-row node"
            )
            ties += 1
            continue
        matched += 1
        first = nodes["child_start"][i]
        stack.append((first, left[j], idx[go]))
        stack.append((first + 1, right[j], idx[~go]))
    return matched, ties


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_shallow_tree_equals_sklearn_exactly(criterion, seed):
    # noisy labels, large mixed nodes: no two tests tie, so the trees must be equal
    X, y = tie_free_data(seed, n=3000, noise=0.5)
    ours = treelab.DecisionTree(criterion=criterion, c45=False, min_samples_split=2,
                                min_samples_leaf=50, max_depth=4, curtail_min=1).fit(X, y)
    clf = DecisionTreeClassifier(criterion=criterion, max_depth=4, min_samples_leaf=50,
                                 random_state=seed).fit(X, y)
    matched, ties = compare_structure(ours, clf, X, y, criterion)
    assert ties == 0 and matched == clf.tree_.node_count
    assert matched >= 15
    Xt, _ = tie_free_data(seed + 100)
    np.testing.assert_allclose(ours.predict_proba(Xt), clf.predict_proba(Xt), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(Xt), clf.predict(Xt))


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
def test_full_tree_matches_sklearn_up_to_gain_ties(criterion):
    X, y = tie_free_data(3, n=800)
    ours = treelab.DecisionTree(criterion=criterion, c45=False, min_samples_split=2,
                                curtail_min=1).fit(X, y)
    clf = DecisionTreeClassifier(criterion=criterion, random_state=0).fit(X, y)
    matched, ties = compare_structure(ours, clf, X, y, criterion)
    assert matched >= 0.6 * clf.tree_.node_count
    # both fit the training rows perfectly
    np.testing.assert_array_equal(ours.predict(X), y)
    Xt, _ = tie_free_data(99, n=800)
    assert (ours.predict(Xt) == clf.predict(Xt)).mean() > 0.9


def test_vrtrees_alpha_one_single_tree_equals_decision_tree():
    X, y = tie_free_data(4, n=600)
    Xn = X.copy()
    Xn[::7, 1] = np.nan
    for data in (X, Xn):
        a = treelab.VRTrees(alpha=1.0, n_estimators=1, random_state=11).fit(data, y)
        b = treelab.DecisionTree(random_state=5).fit(data, y)
        for name in ("kind", "feature", "threshold", "child_start", "n_children", "nan_child",
                     "random", "depth", "counts", "ties_feature", "ties_test", "n_decision"):
            np.testing.assert_array_equal(getattr(a.forest_, name), getattr(b.forest_, name),
                                          err_msg=name)
        np.testing.assert_array_equal(a.predict_proba(data), b.predict_proba(data))


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
def test_many_class_tree_equals_sklearn(criterion):
    # eight classes: deep nodes hold a few of them, so their scores run over the present
    # classes only (_split.class_map); the trees must still be scikit-learn's
    X, _ = tie_free_data(5, n=4000, noise=0.5)
    rng = np.random.default_rng(5)
    score = X[:, 0] / 4000 + 0.7 * (X[:, 1] / 4000) ** 2 - 0.4 * X[:, 2] / 4000
    y = np.digitize(score + 0.1 * rng.normal(size=4000), np.linspace(-0.2, 1.1, 7))
    assert np.bincount(y).size == 8 and np.bincount(y).min() > 20
    ours = treelab.DecisionTree(criterion=criterion, c45=False, min_samples_split=2,
                                min_samples_leaf=20, max_depth=6, curtail_min=1).fit(X, y)
    clf = DecisionTreeClassifier(criterion=criterion, max_depth=6, min_samples_leaf=20,
                                 random_state=0).fit(X, y)
    matched, ties = compare_structure(ours, clf, X, y, criterion)
    assert ties == 0 and matched == clf.tree_.node_count
    nodes = tree_nodes(ours.forest_, 0)
    split = nodes["kind"] != 0
    assert ((nodes["counts"][split] > 0).sum(axis=1) < 8).any()  # split nodes lacking classes
