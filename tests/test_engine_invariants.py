"""Structural invariants of every grown tree (independent walks over the flat arrays)."""

import numpy as np
import pandas as pd
import pytest
from helpers_trees import children, paths, tree_nodes

import treelab


def mixed_data(rng, n=300):
    """Continuous, nominal and missing values together, with a learnable label."""
    x0 = rng.normal(size=n)
    x1 = rng.uniform(-1, 1, size=n)
    color = rng.integers(0, 4, size=n)
    shape = rng.integers(0, 3, size=n)
    y = ((x0 + (color == 2) - 0.5 * (shape == 1) + 0.3 * rng.normal(size=n)) > 0.3).astype(int)
    y[rng.random(n) < 0.05] = 2
    X = np.column_stack([x0, x1, color, shape]).astype(float)
    X[rng.random(n) < 0.1, 0] = np.nan
    X[rng.random(n) < 0.1, 2] = np.nan
    return X, y


ESTIMATORS = [
    treelab.DecisionTree(categorical_features=[2, 3]),
    treelab.VRTrees(n_estimators=8, alpha=0.5, categorical_features=[2, 3], random_state=1),
    treelab.VRTrees(n_estimators=8, alpha=0.3, sampling="bootstrap+subspace",
                    categorical_features=[2, 3], min_samples_leaf=3, random_state=2),
    treelab.Coalescence(n_estimators=8, categorical_features=[2, 3], random_state=3),
    treelab.MaxDiverseEnsemble(n_estimators=8, categorical_features=[2, 3], random_state=4),
    treelab.RandomDecisionTrees(n_estimators=8, categorical_features=[2, 3], random_state=5),
    treelab.RandomForest(n_estimators=8, categorical_features=[2, 3], max_depth=6,
                         random_state=6),
    treelab.BaggedTrees(n_estimators=8, categorical_features=[2, 3], random_state=7),
    treelab.DisjointSampleTrees(n_estimators=4, categorical_features=[2, 3], random_state=8),
    treelab.ExtraTrees(n_estimators=8, categorical_features=[2, 3], min_samples_leaf=2,
                       random_state=9),
    treelab.VRTrees(n_estimators=8, alpha=0.0, random_split="pert",
                    categorical_features=[2, 3], random_state=10),
]


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_tree_invariants(est, rng):
    X, y = mixed_data(rng)
    est.fit(X, y)
    fr = est.forest_
    p = est.get_params()
    n_min = p.get("min_samples_split", 2)
    min_leaf = p.get("min_samples_leaf", 1)
    max_depth = p.get("max_depth")
    if isinstance(est, treelab.RandomDecisionTrees) and max_depth is None:
        max_depth = X.shape[1]
    nominal = set(np.flatnonzero(est.nominal_features_))
    for t in range(fr.n_trees):
        nodes = tree_nodes(fr, t)
        counts = nodes["counts"]
        assert counts[0].sum() == fr.rows_seen[t]
        for i, anc in paths(nodes):
            assert nodes["depth"][i] == len(anc)
            if max_depth is not None:
                assert nodes["depth"][i] <= max_depth
            kids = list(children(nodes, i))
            if nodes["kind"][i] == 0:
                assert not kids
                n = counts[i].sum()
                assert n == 0 or n >= min_leaf
                continue
            # a split node was large enough, impure, and its children add up to it
            assert counts[i].sum() >= n_min
            assert (counts[i] > 0).sum() >= 2
            np.testing.assert_array_equal(counts[kids].sum(axis=0), counts[i])
            assert sum(counts[k].sum() > 0 for k in kids) >= 2
            f = nodes["feature"][i]
            if nodes["kind"][i] == 2:
                assert f in nominal
                assert len(kids) == est.arity_[f]
                # a nominal feature is used at most once on a path
                assert all(not (nodes["kind"][a] == 2 and nodes["feature"][a] == f) for a in anc)
            else:
                assert f not in nominal and len(kids) == 2
                assert np.isfinite(nodes["threshold"][i])


def test_alpha_extremes_record_split_kind(rng):
    X, y = mixed_data(rng)
    det = treelab.VRTrees(n_estimators=10, alpha=1.0, categorical_features=[2, 3],
                          random_state=0).fit(X, y)
    internal = det.forest_.kind != 0
    assert internal.sum() > 0
    assert not det.forest_.random[internal].any()
    rnd = treelab.VRTrees(n_estimators=10, alpha=0.0, categorical_features=[2, 3],
                          random_state=0).fit(X, y)
    internal = rnd.forest_.kind != 0
    assert rnd.forest_.random[internal].all()
    # alpha = 0 never runs the deterministic selection: no decision nodes, no ties recorded
    assert (rnd.forest_.n_decision == 0).all()
    assert (rnd.forest_.ties_feature == 0).all()


@pytest.mark.parametrize("alpha", [0.2, 0.5, 0.8])
def test_share_of_random_nodes_tracks_alpha(alpha):
    # continuous, noise-free data: deterministic nodes (c45 off) never stop for lack of gain,
    # so the share of random decision nodes estimates 1 - alpha
    rng = np.random.default_rng(7)
    X = rng.uniform(size=(2000, 4))
    y = (X[:, 0] + X[:, 1] > 1).astype(int) + (X[:, 2] > 0.5)
    est = treelab.VRTrees(n_estimators=20, alpha=alpha, c45=False, random_state=3).fit(X, y)
    fr = est.forest_
    per_tree = [tree_nodes(fr, t) for t in range(fr.n_trees)]
    shares = [nodes["random"][nodes["kind"] != 0].mean() for nodes in per_tree]
    np.testing.assert_allclose(est.tree_stats()["random_share"], shares)
    internal = fr.random[fr.kind != 0]
    expected_sd = np.sqrt(alpha * (1 - alpha) / internal.size)
    assert abs(internal.mean() - (1 - alpha)) < 5 * expected_sd + 0.01


def test_coalescence_alphas_are_spread():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 3))
    y = (X[:, 0] > 0).astype(int)
    est = treelab.Coalescence(n_estimators=100, alpha_max=0.5, random_state=0).fit(X, y)
    np.testing.assert_allclose(est.forest_.alpha, np.arange(100) * 0.005)


def test_bagging_and_disjoint_rows():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(101, 3))
    y = (X[:, 0] > 0).astype(int)
    bag = treelab.BaggedTrees(n_estimators=5, random_state=0).fit(X, y)
    assert (bag.forest_.rows_seen == 101).all()
    roots = bag.forest_.counts[bag.forest_.node_offsets[:-1]]
    # bootstrap samples differ from the full data and from each other
    assert len({tuple(r) for r in roots}) > 1
    dst = treelab.DisjointSampleTrees(n_estimators=4, random_state=0).fit(X, y)
    assert sorted(dst.forest_.rows_seen) == [25, 25, 25, 26]
    totals = dst.forest_.counts[dst.forest_.node_offsets[:-1]].sum(axis=0)
    np.testing.assert_array_equal(totals, np.bincount(y))



@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("make", [
    lambda: treelab.DisjointSampleTrees(n_estimators=10, random_state=3),
    lambda: treelab.DisjointSampleTreesRegressor(n_estimators=10, random_state=3),
], ids=["classifier", "regressor"])
def test_disjoint_parts_partition_the_rows_and_differ_by_one_row(make, weighted):
    # the documented sizes: 103 rows in 10 parts are 3 parts of 11 and 7 of 10; with weights
    # the 70 rows of positive weight are dealt first (7 a part), the others after them
    from sklearn.utils import check_random_state

    rng = np.random.default_rng(8)
    X = rng.normal(size=(103, 3))
    y = (X[:, 0] > 0).astype(int)
    sw = np.ones(103)
    if weighted:
        sw[rng.permutation(103)[:33]] = 0.0
        sw[sw > 0] = rng.choice([0.5, 2.0], size=70)
    model = make().fit(X, y, sample_weight=sw if weighted else None)
    # the parts, replayed from the documented draws: the seeds, then one permutation
    draws = check_random_state(3)
    draws.randint(0, np.iinfo(np.int32).max, size=10)
    order = draws.permutation(103)
    order = np.concatenate([order[sw[order] > 0], order[sw[order] == 0]])
    part = np.empty(103, dtype=int)
    part[order] = np.arange(103) % 10
    sizes = np.bincount(part)
    assert sorted(sizes.tolist()) == [10] * 7 + [11] * 3
    if weighted:
        assert np.bincount(part[sw > 0]).tolist() == [7] * 10
    fr = model.forest_
    roots = fr.node_offsets[:-1]
    if isinstance(model, treelab.DisjointSampleTrees):
        seen = fr.counts[roots].sum(axis=1)  # summed weights of the part's rows
    else:
        seen = fr.weight[roots]
    np.testing.assert_allclose(seen, np.bincount(part, weights=sw, minlength=10), rtol=1e-12)
    assert seen.sum() == pytest.approx(sw.sum(), rel=1e-12)  # no row lost, none twice

def test_subspace_trees_use_only_their_features():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(400, 10))
    y = (X.sum(axis=1) > 0).astype(int)
    est = treelab.VRTrees(n_estimators=12, alpha=1.0, sampling="subspace",
                          subspace_fraction=0.3, random_state=0).fit(X, y)
    fr = est.forest_
    used_sets = []
    for t in range(fr.n_trees):
        nodes = tree_nodes(fr, t)
        used = set(nodes["feature"][nodes["kind"] != 0].tolist())
        assert len(used) <= 3
        used_sets.append(frozenset(used))
    assert len(set(used_sets)) > 1


def test_dataframe_nominal_columns_and_string_labels(rng):
    n = 200
    df = pd.DataFrame({
        "size": rng.normal(size=n),
        "color": pd.Categorical(rng.choice(["red", "green", "blue"], size=n)),
        "flag": rng.random(n) < 0.5,
        "kind": rng.choice(["a", "b"], size=n).astype(object),
    })
    y = np.where((df["color"] == "red") ^ df["flag"], "yes", "no")
    est = treelab.DecisionTree().fit(df, y)
    np.testing.assert_array_equal(est.nominal_features_, [False, True, True, True])
    assert list(est.feature_names_in_) == ["size", "color", "flag", "kind"]
    assert set(est.classes_) == {"no", "yes"}
    assert (est.predict(df) == y).mean() > 0.95
    root_feature = est.forest_.feature[0]
    assert est.forest_.kind[0] == 2 and root_feature in (1, 2)
    # an unseen category at prediction time follows the missing-value branch, not an error
    df2 = df.copy()
    df2["color"] = pd.Categorical(["purple"] * n)
    assert est.predict_proba(df2).shape == (n, 2)


def test_integer_coded_nominal_columns_get_sorted_codes():
    """An integer-coded nominal column of a numeric array, worked by hand: values {2, 5, 7}
    become codes 0, 1, 2; missing stays missing; values unseen in training (3, 9, -1) become
    missing at prediction time; continuous columns pass unchanged."""
    from treelab.estimators._encode import encode_features

    X = np.array([[7.0, 0.1], [2.0, 0.2], [5.0, 0.3], [np.nan, 0.4], [2.0, 0.5]])
    est = treelab.DecisionTree(categorical_features=[0])
    Xv = encode_features(est, X, fit=True)
    np.testing.assert_array_equal(Xv[:, 0], [2, 0, 1, np.nan, 0])
    np.testing.assert_array_equal(Xv[:, 1], X[:, 1])
    assert est.arity_.tolist() == [3, 0]
    Xp = np.array([[5.0, 0], [3.0, 0], [9.0, 0], [np.nan, 0], [-1.0, 0], [7.0, 0], [2.0, 0]])
    np.testing.assert_array_equal(encode_features(est, Xp, fit=False)[:, 0],
                                  [1, np.nan, np.nan, np.nan, np.nan, 2, 0])


@pytest.mark.parametrize(("d", "n_sub"), [(5, 2), (7, 4), (6, 3)])
def test_subspace_size_is_pythons_round_of_half_the_features(d, n_sub):
    # the documented size: round(0.5 * d) with halves to the even number, so 2 of 5 features
    # and 4 of 7; complete-random trees grown to purity on noise use every visible feature
    rng = np.random.default_rng(d)
    X, y = rng.random((400, d)), rng.integers(0, 2, 400)
    f = treelab.VRTrees(n_estimators=20, alpha=0.0, sampling="subspace", subspace_fraction=0.5,
                random_state=0).fit(X, y).forest_
    for t in range(f.n_trees):
        nodes = slice(f.node_offsets[t], f.node_offsets[t + 1])
        split = f.kind[nodes] != 0
        assert np.unique(f.feature[nodes][split]).size == n_sub
