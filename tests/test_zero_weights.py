"""Zero weights (issue 39, items 5 and 6): a nominal category whose rows all have weight 0 is
unseen, as if those rows were removed; a tree whose sample holds only rows of weight 0 answers
the uniform distribution in its member outputs, ``predict_proba`` and every measure (and the
fit says so); disjoint parts count rows of positive weight."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

import treelab
from treelab.estimators._weights import EmptyMembersWarning

FOREST_FIELDS = ("node_offsets", "kind", "feature", "threshold", "child_start", "n_children",
                 "nan_child", "random", "depth", "counts", "rows_seen", "projections")


def same_forest(a, b):
    for name in FOREST_FIELDS:
        x, z = np.asarray(getattr(a, name)), np.asarray(getattr(b, name))
        assert x.shape == z.shape, name
        assert np.array_equal(x, z, equal_nan=True), name


def test_the_issue_example_answers_as_without_the_row():
    X = np.array([[0], [0], [0], [1], [1], [2]], dtype=float)
    y = np.array([0, 0, 0, 1, 1, 1])
    w = np.array([1, 1, 1, 1, 1, 0], dtype=float)
    est = treelab.DecisionTree(categorical_features=[0], min_samples_split=2, min_objs=1,
                               curtail_min=1)
    a = clone(est).fit(X, y, sample_weight=w)
    b = clone(est).fit(X[:5], y[:5])
    # category 2 is unseen: the missing-value route, not an empty branch with its parent's
    # counts (which answered [0.6, 0.4])
    assert np.array_equal(a.predict_proba([[2]]), b.predict_proba([[2]]))
    assert np.array_equal(a.predict_proba([[2]]), b.predict_proba([[np.nan]]))
    assert [list(c) for c in a.categories_] == [[0.0, 1.0]]
    same_forest(a.forest_, b.forest_)


def nominal_data(n=90, seed=0):
    """Two continuous columns, a category column and an integer-coded nominal column; the rows
    of weight 0 hold the only 'z' of the category column and the only 7 of the coded one."""
    rng = np.random.RandomState(seed)
    df = pd.DataFrame({"a": rng.rand(n), "b": rng.rand(n)})
    df["k"] = pd.Categorical(rng.choice(["u", "v", "w"], size=n), categories=["u", "v", "w",
                                                                               "z"])
    df["m"] = rng.choice([1.0, 3.0, 5.0], size=n)
    y = np.where((df["k"] == "u") ^ (df["a"] > 0.5), "p", np.where(df["m"] > 2, "q", "r"))
    drop = rng.rand(n) < 0.25
    df.loc[np.flatnonzero(drop)[:3], "k"] = "z"
    df.loc[np.flatnonzero(drop)[3:6], "m"] = 7.0
    df.loc[np.flatnonzero(drop)[6:8], "m"] = 3.0  # a value kept rows have too
    w = np.where(drop, 0.0, rng.randint(1, 3, size=n).astype(float))
    return df, y, w, drop


# learners whose trees depend on the rows alone: weight 0 must give the very forest of the fit
# without those rows
EXACT = [
    treelab.DecisionTree(min_samples_split=2, min_objs=1),
    treelab.DecisionTree(criterion="gini", max_bins=4, min_samples_leaf=2),
    treelab.DecisionTree(prune="pessimistic"),
    treelab.RandomForest(n_estimators=4, bootstrap=False, random_state=0),
    treelab.RandomForest(n_estimators=4, bootstrap=False, max_bins=3, random_state=0),
    treelab.ExtraTrees(n_estimators=4, random_state=0),
    treelab.RandomDecisionTrees(n_estimators=4, random_state=0),
    treelab.VRTrees(n_estimators=4, alpha=0.5, random_split="uniform", random_state=0),
    treelab.VRTrees(n_estimators=4, alpha=0.5, random_split="uniform", max_bins=4,
                    random_state=0),
    treelab.Coalescence(n_estimators=4, random_split="uniform", random_state=0),
    treelab.MaxDiverseEnsemble(n_estimators=4, random_split="uniform", random_state=0),
    treelab.StochasticID3(n_estimators=2, random_state=0),
]
# oblique learners: nominal columns become indicator columns; weighted means sum w * x where
# the fit without the rows sums x (the same in exact arithmetic)
CLOSE = [
    treelab.MMDT(random_state=0),
    treelab.CVDT(candidates=("entropy_tree",), random_state=0),
    treelab.RotationForest(n_estimators=3, bootstrap=False, random_state=0),
]


@pytest.mark.parametrize("est", EXACT + CLOSE, ids=repr)
def test_a_category_only_in_zero_weight_rows_is_unseen(est):
    df, y, w, drop = nominal_data()
    a = clone(est).fit(df, y, sample_weight=w)
    kept = df[~drop].reset_index(drop=True)
    b = clone(est).fit(kept, y[~drop], sample_weight=w[~drop])
    for ca, cb in zip(a.categories_, b.categories_, strict=True):
        assert (ca is None) == (cb is None)
        if ca is not None:
            assert list(ca) == list(cb)
    assert np.array_equal(a.arity_, b.arity_)
    if any(est is e for e in EXACT):
        same_forest(a.forest_, b.forest_)
        assert np.array_equal(a.predict_proba(df), b.predict_proba(df))
    else:
        np.testing.assert_allclose(a.predict_proba(df), b.predict_proba(df), rtol=0,
                                   atol=1e-12)
    # the dropped category answers as a missing value
    z = df[df["k"] == "z"]
    missing = z.copy()
    missing["k"] = pd.Categorical([None] * len(z), categories=["u", "v", "w", "z"])
    assert np.array_equal(a.predict_proba(z), a.predict_proba(missing))


@pytest.mark.parametrize("est", [
    treelab.RandomForest(n_estimators=5, random_state=0),
    treelab.BaggedTrees(n_estimators=5, random_state=0),
    treelab.VRTrees(n_estimators=5, sampling="bootstrap", random_state=0),
    treelab.PERT(n_estimators=5, random_state=0),
    treelab.DisjointSampleTrees(n_estimators=3, random_state=0),
    treelab.BaggedMMDT(n_estimators=3, random_state=0),
], ids=repr)
def test_sampling_learners_leave_a_zero_weight_category_unseen(est):
    df, y, w, _ = nominal_data()
    a = clone(est).fit(df, y, sample_weight=w)
    k = list(df.columns).index("k")
    assert list(a.categories_[k]) == ["u", "v", "w"]
    z = df[df["k"] == "z"]
    missing = z.copy()
    missing["k"] = pd.Categorical([None] * len(z), categories=["u", "v", "w", "z"])
    assert np.array_equal(a.predict_proba(z), a.predict_proba(missing))


def test_a_zero_class_weight_leaves_its_categories_unseen():
    df, y, _, _ = nominal_data()
    df = df.copy()
    only_r = (y == "r")
    df["k"] = df["k"].cat.add_categories(["only_r"])
    df.loc[np.flatnonzero(only_r)[:2], "k"] = "only_r"
    a = treelab.RandomForest(n_estimators=3, bootstrap=False, random_state=0,
                             class_weight={"r": 0.0}).fit(df, y)
    assert "only_r" not in list(a.categories_[2])


def few_weighted_rows(n=100, n_weighted=4, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 3)
    y = (X[:, 0] + 0.3 * rng.rand(n) > 0.6).astype(int) + (X[:, 1] > 0.7)
    w = np.zeros(n)
    w[rng.choice(n, n_weighted, replace=False)] = 1.0
    return X, y, w


EMPTY_PRONE = [
    treelab.RandomForest(n_estimators=200, random_state=0),
    treelab.BaggedTrees(n_estimators=200, random_state=0),
    treelab.VRTrees(n_estimators=200, sampling="bootstrap", random_state=0),
    treelab.PERT(n_estimators=200, random_state=0),
]


@pytest.mark.parametrize("est", EMPTY_PRONE, ids=lambda e: type(e).__name__)
def test_a_tree_of_zero_weight_rows_answers_uniformly_everywhere(est):
    X, y, w = few_weighted_rows()
    with pytest.warns(EmptyMembersWarning, match=r"of 200 trees drew only rows of weight 0"):
        model = clone(est).fit(X, y, sample_weight=w)
    fr = model.forest_
    C = model.n_classes_
    empty = fr.counts[fr.node_offsets[:-1]].sum(axis=1) == 0
    assert empty.any()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no divide-by-zero warning either
        member = model.member_proba(X)
    assert not np.isnan(member).any()
    assert np.array_equal(member[empty], np.full((int(empty.sum()), len(y), C), 1.0 / C))
    # a slow reference: each tree's answering counts, normalised by hand
    counts = model.member_counts(X).astype(float)
    ref = np.empty_like(counts)
    for t in range(counts.shape[0]):
        for i in range(counts.shape[1]):
            tot = counts[t, i].sum()
            ref[t, i] = counts[t, i] / tot if tot > 0 else 1.0 / C
    assert np.array_equal(member, ref)
    # the ensemble's probabilities are the members' mean, empty members included
    np.testing.assert_allclose(model.predict_proba(X), member.mean(axis=0), rtol=0, atol=1e-12)
    # and diagnose reads the same members: its ensemble error is the error of their mean
    from treelab.analysis import diagnose

    d = diagnose(model, X, y)
    ens = model.classes_[np.argmax(member.mean(axis=0), axis=1)]
    assert float(d["ensemble_error"]) == pytest.approx(np.mean(ens != y), abs=1e-12)
    member_err = (model.classes_[np.argmax(member, axis=2)] != y).mean(axis=1)
    np.testing.assert_allclose(d["member_error"].values, member_err, rtol=0, atol=1e-12)


def test_member_proba_is_unchanged_without_empty_trees():
    X, y, _ = few_weighted_rows()
    model = treelab.RandomForest(n_estimators=5, random_state=0).fit(X, y)
    counts = model.member_counts(X)
    assert np.array_equal(model.member_proba(X),
                          counts / counts.sum(axis=2, keepdims=True))


def test_disjoint_parts_count_rows_of_positive_weight():
    rng = np.random.RandomState(0)
    X = rng.rand(80, 3)
    y = (X[:, 0] > 0.5).astype(int)
    w = np.r_[np.ones(40), np.zeros(40)][rng.permutation(80)]
    with pytest.raises(ValueError, match=r"n_estimators \(60\) must not exceed the number of "
                                         r"rows of positive weight \(40\)"):
        treelab.DisjointSampleTrees(n_estimators=60, random_state=0).fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match=r"n_estimators \(60\) must not exceed the number of "
                                         r"rows \(40\)"):  # as for the 40 rows alone
        treelab.DisjointSampleTrees(n_estimators=60, random_state=0).fit(X[w > 0], y[w > 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", EmptyMembersWarning)
        model = treelab.DisjointSampleTrees(n_estimators=40, random_state=0).fit(
            X, y, sample_weight=w)
    roots = model.forest_.counts[model.forest_.node_offsets[:-1]].sum(axis=1)
    assert np.all(roots == 1)  # every part holds exactly one row of positive weight
