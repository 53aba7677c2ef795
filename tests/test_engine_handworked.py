"""Small examples whose answers are worked out by hand (numbers in the comments)."""

import numpy as np
import pytest
from helpers_trees import paths, route, tree_nodes

import treelab

Y8 = np.array([0, 0, 0, 0, 1, 1, 1, 1])
# N: 8 distinct codes, gain 1 bit, split info 3 bits -> ratio 1/3
N = np.arange(8)
# B: b=0 -> 3 x class 0; b=1 -> 1 x class 0, 4 x class 1
#    gain = 1 - 5/8 H(1/5) = 0.5488, split info H(3/8) = 0.9544 -> ratio 0.5750
B = np.array([0, 0, 0, 1, 1, 1, 1, 1])
# W: w=0 -> (3, 1), w=1 -> (1, 3): gain = 1 - H(1/4) = 0.1887, split info 1 -> ratio 0.1887
W = np.array([0, 0, 0, 1, 0, 1, 1, 1])


def fit_root(columns, criterion):
    X = np.column_stack(columns).astype(float)
    tree = treelab.DecisionTree(criterion=criterion, c45=False, min_samples_split=2,
                                categorical_features=list(range(X.shape[1])), max_depth=1)
    return tree.fit(X, Y8).forest_


def test_entropy_prefers_highest_gain():
    assert fit_root([N, B, W, W], "entropy").feature[0] == 0


def test_gain_ratio_maximised_among_above_average_gain():
    # gains (1, 0.5488, 0.1887, 0.1887): average 0.4816, so N and B are eligible and B has
    # the larger ratio (0.575 > 0.333)
    assert fit_root([N, B, W, W], "gain_ratio").feature[0] == 1
    # gains (1, 0.5488): average 0.774 leaves only N eligible, although B's ratio is larger
    assert fit_root([N, B], "gain_ratio").feature[0] == 0


def test_mdl_penalty_turns_a_weak_continuous_split_into_a_leaf():
    # x = 0..19 and alternating classes: the best threshold (x <= 0.5 or x <= 18.5) gains
    # 1 - 19/20 H(9/19) = 0.0519 bits, below the MDL penalty log2(19)/20 = 0.2124
    x = np.arange(20.0)[:, None]
    y = np.tile([0, 1], 10)
    penalised = treelab.DecisionTree(criterion="entropy", c45=True, min_objs=1,
                                     min_samples_split=2).fit(x, y)
    assert penalised.forest_.kind.shape == (1,)
    plain = treelab.DecisionTree(criterion="entropy", c45=False, min_samples_split=2).fit(x, y)
    assert plain.forest_.kind[0] == 1


def test_min_objs_admissibility():
    # the only positive-gain tests isolate one row; with min_objs = 2 none is admissible
    x = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    y = np.array([1, 0, 0, 0, 0])
    strict = treelab.DecisionTree(criterion="entropy", c45=True, min_objs=2,
                                  min_samples_split=2).fit(x, y)
    assert strict.forest_.kind.shape == (1,)
    loose = treelab.DecisionTree(criterion="entropy", c45=True, min_objs=1,
                                 min_samples_split=2).fit(x, y)
    assert loose.forest_.kind[0] == 1 and loose.forest_.threshold[0] == 0.5


def test_m_ary_nominal_split_counts():
    # value 0 -> (2, 0), value 1 -> (0, 2), value 2 -> (1, 1)
    x = np.array([[0], [0], [1], [1], [2], [2]], dtype=float)
    y = np.array([0, 0, 1, 1, 0, 1])
    fr = treelab.DecisionTree(criterion="entropy", c45=False, min_samples_split=2,
                              categorical_features=[0]).fit(x, y).forest_
    assert fr.kind[0] == 2 and fr.n_children[0] == 3
    kids = fr.child_start[0] + np.arange(3)
    np.testing.assert_array_equal(fr.counts[kids], [[2, 0], [0, 2], [1, 1]])
    # the mixed branch cannot reuse the nominal feature: it stays a leaf
    assert (fr.kind[kids] == 0).all()


def test_empty_branch_answers_with_parent_counts():
    # colour (arity 3) splits first; within colour 0, shape takes values 0 and 1 only,
    # so the shape split there has an empty branch for shape 2
    X = np.array([[0, 0]] * 4 + [[0, 1]] * 4 + [[1, 2]] * 3 + [[1, 0]] * 1 + [[2, 1]] * 4,
                 dtype=float)
    y = np.array([0] * 3 + [1] + [1] * 3 + [0] + [1] * 3 + [0] + [0] * 4)
    est = treelab.DecisionTree(criterion="entropy", c45=False, min_samples_split=2,
                               curtail_min=1, categorical_features=[0, 1]).fit(X, y)
    nodes = tree_nodes(est.forest_, 0)
    empty = [(i, anc) for i, anc in paths(nodes) if nodes["counts"][i].sum() == 0]
    assert empty, "the example must produce an empty branch"
    for i, anc in empty:
        parent = anc[-1]
        row = np.zeros((1, 2))
        # build a row that reaches this empty branch
        for a, nxt in zip(anc, anc[1:] + [i], strict=True):
            row[0, nodes["feature"][a]] = nxt - nodes["child_start"][a]
        assert route(row, nodes)[0] == i
        expected = nodes["counts"][parent] / nodes["counts"][parent].sum()
        np.testing.assert_allclose(est.predict_proba(row)[0], expected)


def test_curtailment_uses_deepest_ancestor_with_enough_rows():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + 0.8 * rng.normal(size=120) > 0).astype(int)
    for cm in (1, 3, 7):
        est = treelab.DecisionTree(criterion="entropy", c45=False, min_samples_split=2,
                                   curtail_min=cm).fit(X, y)
        nodes = tree_nodes(est.forest_, 0)
        ancestors = dict(paths(nodes))
        Xt = rng.normal(size=(200, 3))
        leaves = route(Xt, nodes)
        expected = []
        for leaf in leaves:
            answer = leaf
            if nodes["counts"][leaf].sum() < max(cm, 1):
                answer = next(a for a in reversed(ancestors[leaf])
                              if nodes["counts"][a].sum() >= cm)
            c = nodes["counts"][answer]
            expected.append(c / c.sum())
        np.testing.assert_allclose(est.predict_proba(Xt), np.array(expected))
        np.testing.assert_array_equal(est.apply(Xt)[:, 0], leaves)
    # with curtailment at 7, leaves of fewer rows never answer alone
    small = (nodes["kind"] == 0) & (nodes["counts"].sum(axis=1) < 7)
    assert small.any()


def test_missing_values_deterministic_split_goes_to_better_side():
    # x <= 2.5 separates (0, 0 | 1, 1); the missing rows are class 1, so the right side
    # (all class 1) scores better
    x = np.array([[1.0], [2.0], [3.0], [4.0], [np.nan], [np.nan]])
    y = np.array([0, 0, 1, 1, 1, 1])
    est = treelab.DecisionTree(criterion="entropy", c45=False, min_samples_split=2,
                               curtail_min=1).fit(x, y)
    fr = est.forest_
    assert fr.threshold[0] == 2.5 and fr.nan_child[0] == 1
    np.testing.assert_array_equal(fr.counts[fr.child_start[0] + np.arange(2)], [[2, 0], [0, 4]])
    np.testing.assert_array_equal(est.predict(np.array([[np.nan], [0.0]])), [1, 0])
    # with the missing rows in class 0 the left side wins
    est2 = treelab.DecisionTree(criterion="entropy", c45=False, min_samples_split=2,
                                curtail_min=1).fit(x, np.array([0, 0, 1, 1, 0, 0]))
    assert est2.forest_.nan_child[0] == 0


def test_missing_values_random_split_goes_to_larger_child():
    x = np.concatenate([np.arange(10.0), [np.nan] * 3])[:, None]
    y = np.array([0, 1] * 5 + [0, 1, 0])
    for seed in range(20):
        est = treelab.VRTrees(n_estimators=1, alpha=0.0, max_depth=1, curtail_min=1,
                              random_state=seed).fit(x, y)
        fr = est.forest_
        t = fr.threshold[0]
        n_left = int((np.arange(10.0) <= t).sum())
        expected = 0 if n_left >= 10 - n_left else 1
        assert fr.nan_child[0] == expected
        sizes = fr.counts[fr.child_start[0] + np.arange(2)].sum(axis=1)
        assert sizes[expected] == max(n_left, 10 - n_left) + 3
        # a missing value at prediction follows the same branch
        leaf = est.apply(np.array([[np.nan]]))[0, 0]
        assert leaf == fr.child_start[0] + expected


@pytest.mark.parametrize("copies", [2, 3])
def test_gain_ties_between_identical_features(copies):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 1))
    y = (x[:, 0] + 0.5 * rng.normal(size=200) > 0).astype(int)
    X = np.repeat(x, copies, axis=1)
    fr = treelab.DecisionTree(criterion="entropy", c45=False, min_samples_split=2).fit(X, y).forest_
    # every decision node sees `copies` equal tests: copies - 1 ties, lowest index chosen
    assert fr.n_decision[0] > 5
    assert fr.ties_feature[0] == (copies - 1) * fr.n_decision[0]
    assert (fr.feature[fr.kind != 0] == 0).all()
    assert fr.ties_test[0] >= fr.ties_feature[0]


def test_combinations_match_member_outputs():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=300) > 0).astype(int) + (
        X[:, 3] > 1)
    Xt = rng.normal(size=(100, 4))
    base = dict(n_estimators=15, alpha=0.4, sampling="bootstrap", random_state=2)
    avg = treelab.VRTrees(**base).fit(X, y)
    np.testing.assert_allclose(avg.predict_proba(Xt), avg.member_proba(Xt).mean(axis=0))
    lap = treelab.VRTrees(laplace=True, **base).fit(X, y)
    counts = lap.member_counts(Xt)
    expected = ((counts + 1) / (counts.sum(axis=2, keepdims=True) + 3)).mean(axis=0)
    np.testing.assert_allclose(lap.predict_proba(Xt), expected)
    summed = treelab.VRTrees(combine="sum", **base).fit(X, y)
    tot = summed.member_counts(Xt).sum(axis=0)
    np.testing.assert_allclose(summed.predict_proba(Xt), tot / tot.sum(axis=1, keepdims=True))
    vote = treelab.VRTrees(combine="vote", **base).fit(X, y)
    labels = vote.member_predict(Xt)
    shares = np.stack([(labels == c).mean(axis=0) for c in vote.classes_], axis=1)
    np.testing.assert_allclose(vote.predict_proba(Xt), shares)
    # vote ties go to the class with the larger summed probability, then the lower index
    psum = vote.member_proba(Xt).sum(axis=0)
    for i in range(len(Xt)):
        top = np.flatnonzero(shares[i] == shares[i].max())
        best = top[np.argmax(psum[i, top])]
        assert vote.predict(Xt[i:i + 1])[0] == vote.classes_[best]


@pytest.mark.parametrize("options", [{}, {"laplace": True}, {"combine": "vote"},
                                     {"combine": "sum"}, {"curtail_min": 6}])
def test_few_and_many_rows_get_the_same_probabilities(options):
    """A call with more (row, tree) lookups than nodes reads a table of leaf answers, one with
    fewer computes each answer where it is needed: the two must agree bit for bit, and the
    few-rows answers must equal the mean of the member outputs."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(400, 5))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] + 0.5 * rng.normal(size=400) > 0.5)
    Xt = rng.normal(size=(3000, 5))
    T = 20
    m = treelab.VRTrees(n_estimators=T, alpha=0.3, random_state=0, **options).fit(X, y)
    n_nodes = m.forest_.kind.shape[0]
    assert 2 * T < n_nodes <= 3000 * T  # both ways are taken below
    many = m.predict_proba(Xt)
    few = np.vstack([m.predict_proba(Xt[i:i + 2]) for i in range(0, 40, 2)])
    np.testing.assert_array_equal(many[:40], few)
    if not options:
        np.testing.assert_allclose(few, m.member_proba(Xt[:40]).mean(axis=0))


def _entropy(counts):
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log2(p)).sum())


def test_wide_nominal_feature_does_not_leak_into_continuous_gains():
    """A nominal feature with more codes than classes is scored first; the continuous
    feature with missing values scored next must get its own gain (regression: the branch
    sizes of the nominal feature once leaked into the class counts of the next scan)."""
    rng = np.random.default_rng(0)
    code = np.repeat(np.arange(7), 10)
    y = (code <= 2).astype(int)
    x = rng.normal(size=70)
    x[rng.random(70) < 0.15] = np.nan
    X = np.column_stack([code, x])
    # independent gains at the root: the m-ary split on the codes, and the best threshold on
    # x with the missing rows sent to the better side
    n_y = np.bincount(y, minlength=2)
    h = _entropy(n_y)
    g_nominal = h - sum((code == b).sum() / 70 * _entropy(np.bincount(y[code == b], minlength=2))
                        for b in range(7))
    present = ~np.isnan(x)
    g_cont = -np.inf
    for t in np.unique(x[present])[:-1]:
        for nan_left in (True, False):
            left = (x <= t) | (~present & nan_left)
            g = h - sum(side.sum() / 70 * _entropy(np.bincount(y[side], minlength=2))
                        for side in (left, ~left))
            g_cont = max(g_cont, g)
    assert g_nominal > g_cont
    tree = treelab.DecisionTree(criterion="entropy", c45=False, min_samples_split=2,
                                categorical_features=[0], max_depth=1).fit(X, y)
    assert tree.forest_.feature[0] == 0


def test_threshold_nodes_without_missing_rows_send_missing_to_the_larger_child():
    """With no missing values in training, every threshold node routes missing values to its
    larger child (regression: Extra-Trees nodes once read class counts past their end when a
    nominal feature had more codes than there are classes)."""
    rng = np.random.default_rng(1)
    n = 3000
    X = np.column_stack([rng.integers(0, 7, n), rng.normal(size=(n, 4))])
    y = rng.integers(0, 3, n)
    for est in (treelab.ExtraTrees(n_estimators=5, random_state=0),
                treelab.VRTrees(alpha=0.5, n_estimators=5, random_state=0)):
        fr = est.set_params(categorical_features=[0]).fit(X, y).forest_
        off = fr.node_offsets[fr.tree_of_node()]
        node = np.flatnonzero(fr.kind == 1)
        left = off[node] + fr.child_start[node]
        totals = fr.counts.sum(axis=1)
        n_left = totals[left]
        n_right = totals[left + 1]
        np.testing.assert_array_equal(fr.nan_child[node], (n_left < n_right).astype(int))


def test_class_map_numbers_present_classes_in_order():
    from treelab.engine.kernels._split import class_map

    cmap = np.empty(5, dtype=np.int64)
    present = np.empty(5)
    k = class_map(np.array([0.0, 3.0, 0.0, 2.0, 1.0]), cmap, present)
    assert k == 3
    np.testing.assert_array_equal(cmap, [-1, 0, -1, 1, 2])
    np.testing.assert_array_equal(present[:k], [3.0, 2.0, 1.0])


def test_mdl_penalty_is_paid_by_the_entropy_criteria_only_as_documented():
    # the data of the test above: the best threshold gains 0.0519 bits, less than the penalty
    # log2(19)/20 = 0.2124, so both entropy criteria make a leaf; the Gini decrease of that
    # threshold, 0.5 - 19/20 * 2 (9/19)(10/19) = 0.0263, pays no penalty and splits
    x = np.arange(20.0)[:, None]
    y = np.tile([0, 1], 10)
    doc = " ".join(treelab.DecisionTree.__doc__.split())
    assert "pays none (``\"gini\"``, ``\"parabola\"``)" in doc
    for criterion, splits in (("gain_ratio", False), ("entropy", False), ("gini", True),
                              ("parabola", True)):
        tree = treelab.DecisionTree(criterion=criterion, c45=True, min_objs=1,
                                    min_samples_split=2, max_depth=1).fit(x, y)
        assert (tree.forest_.kind[0] != 0) == splits, criterion


@pytest.mark.parametrize("criterion", ["entropy", "gini", "gain_ratio"])
def test_tied_thresholds_go_to_the_lowest(criterion):
    # y = 0, 1, 1, 0 on x = 0..3: the cuts at 0.5 and 2.5 have the same gain by symmetry;
    # the documented rule takes the lower one and counts the other as a tie
    X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 1, 1, 0])
    fr = treelab.DecisionTree(criterion=criterion, c45=False, min_samples_split=2).fit(X, y).forest_
    assert fr.threshold[0] == 0.5
    assert fr.ties_test[0] >= 1
