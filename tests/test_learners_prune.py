"""Pruned single-tree baselines: reduced-error and C4.5 pessimistic pruning."""

from itertools import pairwise

import numpy as np
import pytest
from helpers_trees import children, tree_nodes
from scipy import stats

import treelab
from treelab.engine.forest import Forest
from treelab.engine.pruning import c45_added_errors, pessimistic_prune, reduced_error_prune
from treelab.estimators.tree import tuning_mask


def noisy(seed, n=600, noise=0.2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    flip = rng.random(n) < noise
    y[flip] = 1 - y[flip]
    return X, y


def assert_subtree(small, big, i=0, j=0):
    """Walk both trees from the root: every node of ``small`` is the matching node of ``big``
    (same counts and depth), and an internal node of ``small`` has the same test."""
    np.testing.assert_array_equal(small["counts"][i], big["counts"][j])
    assert small["depth"][i] == big["depth"][j]
    if small["kind"][i] == 0:
        return 1
    for name in ("kind", "feature", "n_children", "nan_child"):
        assert small[name][i] == big[name][j], name
    assert small["threshold"][i] == big["threshold"][j] or (
        np.isnan(small["threshold"][i]) and np.isnan(big["threshold"][j]))
    return 1 + sum(assert_subtree(small, big, a, b) for a, b in
                   zip(children(small, i), children(big, j), strict=True))


def naive_reduced_error(nodes, X, y, n_classes):
    """Reduced-error pruning written recursively (no curtailment: min_n = 1)."""
    def route(i, rows):
        return {i: rows} | ({} if nodes["kind"][i] == 0 else _split(i, rows))

    def _split(i, rows):
        out = {}
        f, t = nodes["feature"][i], nodes["threshold"][i]
        x = X[rows, f]
        if nodes["kind"][i] == 1:
            go = np.where(np.isnan(x), nodes["nan_child"][i], (x > t).astype(int))
        else:
            go = np.where(np.isnan(x), nodes["nan_child"][i], np.nan_to_num(x).astype(int))
        for b, c in enumerate(children(nodes, i)):
            out |= route(c, rows[go == b])
        return out

    reach = route(0, np.arange(len(y)))

    def anchor_counts(i, parent_counts):
        n = nodes["counts"][i].sum()
        return nodes["counts"][i] if n >= 1 else parent_counts

    pruned = set()

    def errors(i, parent_counts):
        counts = anchor_counts(i, parent_counts)
        rows = reach[i]
        leaf_err = int((y[rows] != np.argmax(counts)).sum())
        if nodes["kind"][i] == 0:
            return leaf_err
        sub = sum(errors(c, counts) for c in children(nodes, i))
        if leaf_err <= sub:
            pruned.add(i)
            return leaf_err
        return sub

    errors(0, nodes["counts"][0])
    return pruned


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reduced_error_pruning_gives_a_subtree_with_no_lower_tuning_accuracy(seed):
    X, y = noisy(seed)
    est = treelab.DecisionTree(criterion="entropy", c45=False, min_samples_split=2,
                               prune="reduced_error", random_state=seed).fit(X, y)
    mask = est.tuning_mask_
    assert mask.sum() == pytest.approx(len(y) / 3, abs=2)
    assert np.bincount(y[mask]).tolist() == pytest.approx(np.bincount(y) / 3, abs=1)
    full = treelab.DecisionTree(criterion="entropy", c45=False, min_samples_split=2,
                                curtail_min=est.curtail_min).fit(X[~mask], y[~mask])
    small, big = tree_nodes(est.forest_, 0), tree_nodes(full.forest_, 0)
    assert assert_subtree(small, big) == len(small["kind"]) < len(big["kind"])
    acc_pruned = est.score(X[mask], y[mask])
    acc_full = full.score(X[mask], y[mask])
    assert acc_pruned >= acc_full
    assert acc_pruned > acc_full  # on 20% label noise pruning does help
    # a refit without pruning forgets the held-out rows
    assert not hasattr(est.set_params(prune=None).fit(X, y), "tuning_mask_")


def test_reduced_error_pruning_matches_a_recursive_reference():
    X, y = noisy(7, n=400)
    full = treelab.DecisionTree(criterion="gini", c45=False, min_samples_split=2,
                                curtail_min=1).fit(X[:250], y[:250])
    pruned, kept = reduced_error_prune(full.forest_, X[250:], y[250:], min_n=1)
    nodes = tree_nodes(full.forest_, 0)
    marks = naive_reduced_error(nodes, X[250:], y[250:], 2)
    expected_leaves = {i for i in kept if nodes["kind"][i] == 0 or i in marks}
    got_leaves = set(kept[pruned.kind == 0].tolist())
    assert got_leaves == expected_leaves
    # every kept node lies above no pruned node
    par = {c: i for i in range(len(nodes["kind"])) for c in children(nodes, i)}
    for i in kept:
        a = par.get(i)
        while a is not None:
            assert a not in marks or a == i
            a = par.get(a)


@pytest.mark.parametrize("seed", [0, 3])
def test_pessimistic_pruning_gives_a_subtree(seed):
    X, y = noisy(seed)
    est = treelab.DecisionTree(criterion="entropy", c45=False, min_samples_split=2,
                               prune="pessimistic").fit(X, y)
    full = treelab.DecisionTree(criterion="entropy", c45=False, min_samples_split=2).fit(X, y)
    small, big = tree_nodes(est.forest_, 0), tree_nodes(full.forest_, 0)
    # measured: 153 of 235 and 181 of 247 nodes kept (C4.5 keeps a split of two single rows
    # of different classes: 1.796 estimated errors as a leaf against 1.5 + 0.1 as a subtree)
    assert assert_subtree(small, big) == len(small["kind"]) < 0.8 * len(big["kind"])
    Xte, yte = noisy(seed + 100, n=4000)
    assert est.score(Xte, yte) > full.score(Xte, yte)


def test_c45_added_errors_reproduce_quinlans_worked_example():
    # Quinlan (1993), C4.5 ch. 4, confidence 25%: U(0, 6) = 0.206, U(0, 9) = 0.143,
    # U(0, 1) = 0.750, and a leaf of 16 cases with 1 error predicts 16 x 0.157 = 2.512 errors
    assert c45_added_errors(6, 0) / 6 == pytest.approx(0.206, abs=5e-4)
    assert c45_added_errors(9, 0) / 9 == pytest.approx(0.143, abs=5e-4)
    assert c45_added_errors(1, 0) == pytest.approx(0.750, abs=5e-4)
    assert 1 + c45_added_errors(16, 1) == pytest.approx(2.512, abs=0.01)
    # with no errors the limit is the exact binomial (Clopper-Pearson) upper bound
    for n in (1, 5, 40):
        exact = stats.beta.ppf(1 - 0.25, 1, n)
        assert c45_added_errors(n, 0) / n == pytest.approx(exact, rel=1e-12)
    # with errors C4.5's normal approximation stays close to the exact bound
    for n, e in [(20, 3), (100, 10), (500, 60)]:
        exact = stats.beta.ppf(1 - 0.25, e + 1, n - e)
        assert (e + c45_added_errors(n, e)) / n == pytest.approx(exact, rel=0.05)


def hand_tree(leaf_counts):
    """A root with one nominal split into the given leaves."""
    k = len(leaf_counts)
    counts = np.vstack([np.sum(leaf_counts, axis=0), leaf_counts]).astype(np.int32)
    m = k + 1
    return Forest(
        node_offsets=np.array([0, m]), kind=np.array([2] + [0] * k, dtype=np.int8),
        feature=np.array([0] + [-1] * k, dtype=np.int32), threshold=np.full(m, np.nan),
        child_start=np.array([1] + [0] * k, dtype=np.int32),
        n_children=np.array([k] + [0] * k, dtype=np.int32),
        nan_child=np.zeros(m, dtype=np.int32), random=np.zeros(m, dtype=np.int8),
        depth=np.array([0] + [1] * k, dtype=np.int32), counts=counts, alpha=np.ones(1),
        ties_feature=np.zeros(1, dtype=np.int64), ties_test=np.zeros(1, dtype=np.int64),
        n_decision=np.ones(1, dtype=np.int64), rows_seen=counts[:1].sum(axis=1),
        seed=np.zeros(1, dtype=np.uint64),
    )


def test_pessimistic_pruning_of_quinlans_example_subtree():
    # leaves of 6, 9 and 1 cases without errors: 3.273 predicted errors; as one leaf of 16
    # cases with 1 error: 2.512 -> the subtree is replaced by a leaf
    pruned, kept = pessimistic_prune(hand_tree([[6, 0], [9, 0], [0, 1]]))
    assert pruned.kind.tolist() == [0] and kept.tolist() == [0]
    np.testing.assert_array_equal(pruned.counts, [[15, 1]])
    # a useful split survives
    pruned, kept = pessimistic_prune(hand_tree([[50, 0], [0, 50]]))
    assert pruned.kind.tolist() == [2, 0, 0] and kept.tolist() == [0, 1, 2]


# C4.5 Release 8's table of confidence levels and normal deviates, written out from the book
_CF_TABLE = [(0.0, 4.0), (0.001, 3.09), (0.005, 2.58), (0.01, 2.33), (0.05, 1.65), (0.10, 1.28),
             (0.20, 0.84), (0.40, 0.25), (1.00, 0.00)]


def reference_added_errors(n, e, cf):
    """Quinlan's AddErrs(N, e) (C4.5 ch. 4 and Release 8), written independently."""
    if n == 0:
        return 0.0
    if e == 0:
        return n * (1 - cf ** (1 / n))
    if e < 1:
        v0 = n * (1 - cf ** (1 / n))
        return v0 + e * (reference_added_errors(n, 1, cf) - v0)
    if e + 0.5 >= n:
        return 0.67 * (n - e)
    (c0, z0), (c1, z1) = next((a, b) for a, b in pairwise(_CF_TABLE) if cf <= b[0])
    z = z0 + (z1 - z0) * (cf - c0) / (c1 - c0)
    p = (e + 0.5 + z * z / 2 + z * np.sqrt((e + 0.5) * (1 - (e + 0.5) / n) + z * z / 4)) / (
        n + z * z)
    return n * p - e


def naive_pessimistic(nodes, cf):
    """C4.5's error-based pruning (subtree replacement) as a plain recursion over the tree:
    returns the nodes that become leaves."""
    pruned = set()

    def estimate(i):
        counts = nodes["counts"][i]
        n, e = counts.sum(), counts.sum() - counts.max()
        as_leaf = e + reference_added_errors(n, e, cf)
        if nodes["kind"][i] == 0:
            return as_leaf
        as_tree = sum(estimate(c) for c in children(nodes, i))
        if as_leaf <= as_tree + 0.1:
            pruned.add(i)
            return as_leaf
        return as_tree

    estimate(0)
    return pruned


def three_class_nominal(seed, n=700):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=(n, 3)), rng.integers(0, 4, size=(n, 2))])
    y = (X[:, 0] > 0).astype(int) + (X[:, 3] >= 2)
    flip = rng.random(n) < 0.25
    y[flip] = rng.integers(0, 3, flip.sum())
    return X, y


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("cf", [0.25, 0.1, 0.5])
def test_pessimistic_pruning_matches_a_recursive_reference_on_deep_trees(seed, cf):
    """Mutations tried in ``_prune.pessimistic_marks``: a kept subtree estimated by its
    children's leaf estimates (one level, not their pruned subtrees), and the comparison without
    C4.5's + 0.1: each fails here (on several of the six trees)."""
    X, y = three_class_nominal(seed)
    full = treelab.DecisionTree(criterion="entropy", c45=False, min_samples_split=2,
                                categorical_features=[3, 4]).fit(X, y)
    nodes = tree_nodes(full.forest_, 0)
    assert nodes["depth"].max() >= 8 and (nodes["kind"] == 2).any()
    pruned, kept = pessimistic_prune(full.forest_, cf)
    marks = naive_pessimistic(nodes, cf)
    expected = {i for i in kept if nodes["kind"][i] == 0 or i in marks}
    assert set(kept[pruned.kind == 0].tolist()) == expected
    # the kept nodes are exactly those with no pruned proper ancestor
    par = {c: i for i in range(len(nodes["kind"])) for c in children(nodes, i)}

    def visible(i):
        a = par.get(i)
        while a is not None:
            if a in marks:
                return False
            a = par.get(a)
        return True

    assert set(kept.tolist()) == {i for i in range(len(nodes["kind"])) if visible(i)}
    # a deep tree loses many nodes but not all
    assert 1 < len(kept) < 0.8 * len(nodes["kind"])
    if cf == 0.25:
        est = treelab.DecisionTree(criterion="entropy", c45=False, min_samples_split=2,
                                   categorical_features=[3, 4], prune="pessimistic").fit(X, y)
        np.testing.assert_array_equal(est.forest_.counts, nodes["counts"][kept])


def test_reference_added_errors_agree_with_the_engine():
    for n, e in [(1, 0), (6, 0), (16, 1), (20, 0.5), (7, 6.8), (100, 10), (3, 2), (50, 49)]:
        for cf in (0.05, 0.25, 0.5):
            assert c45_added_errors(n, e, cf) == pytest.approx(
                reference_added_errors(n, e, cf), rel=1e-12)


def test_bad_pruning_parameters():
    X, y = noisy(0, n=40)
    with pytest.raises(ValueError, match="prune"):
        treelab.DecisionTree(prune="cost_complexity").fit(X, y)
    with pytest.raises(TypeError, match="prune"):
        treelab.DecisionTree(prune=True).fit(X, y)
    with pytest.raises(ValueError, match="tuning_fraction"):
        treelab.DecisionTree(prune="reduced_error", tuning_fraction=1.0).fit(X, y)


def test_reduced_error_pruning_without_a_tuning_row_is_refused():
    # one row per class: round(n_c / 3) capped at n_c - 1 holds out nothing, and pruning on
    # no tuning row used to cut the tree to its root (every row predicted as class 0)
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 1, 2, 3])
    tree = {"criterion": "entropy", "c45": False, "min_samples_split": 2, "curtail_min": 1}
    assert treelab.DecisionTree(**tree).fit(X, y).score(X, y) == 1.0  # one leaf per row
    with pytest.raises(ValueError, match=r"tuning_fraction=0\.333333 holds out no tuning row"):
        treelab.DecisionTree(**tree, prune="reduced_error", random_state=0).fit(X, y)
    # rows held out, but all of weight 0: no tuning error can be counted either
    X2, y2 = noisy(1, n=30)
    mask = tuning_mask(y2, 1 / 3, 5)
    assert mask.any()
    w = np.where(mask, 0.0, 1.0)
    with pytest.raises(ValueError, match="every held-out row has sample weight 0"):
        treelab.DecisionTree(prune="reduced_error", random_state=5).fit(X2, y2,
                                                                        sample_weight=w)
    # one tuning row is enough
    est = treelab.DecisionTree(**tree, prune="reduced_error", random_state=0).fit(
        np.array([[0.0], [0.5], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 2, 3]))
    assert est.tuning_mask_.sum() == 1
