"""CVDT (algorithms spec 2.10): the per-tree learner choice and the heterogeneous forest."""

import numpy as np
import pytest
from helpers_trees import tree_nodes

import treelab
from treelab.analysis import diagnose


def diagonal(n, seed):
    """The diagonal boundary x1 + x2 = 0 with a margin of 0.05 on the uniform square: MMDT's
    first mean-margin split is close to it, an axis-aligned tree needs a staircase."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(3 * n, 2))
    X = X[np.abs(X.sum(axis=1)) > 0.05][:n]
    return X, (X.sum(axis=1) > 0).astype(int)


def checkerboard(n, seed):
    """XOR of two signs: the class means coincide, so mean margins cannot split it."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    return X, ((X[:, 0] > 0) ^ (X[:, 1] > 0)).astype(int)


@pytest.mark.parametrize("data, winner", [(diagonal, "mmdt"), (checkerboard, "entropy_tree")])
def test_the_clearly_better_candidate_is_chosen_in_nearly_every_tree(data, winner):
    X, y = data(1000, 0)
    est = treelab.BaggedCVDT(n_estimators=30, random_state=0).fit(X, y)
    share = np.mean(est.learners_ == winner)
    assert share >= 0.9, est.cv_errors_
    # the recorded CV errors say the same, tree by tree
    best = np.array(est.candidates)[np.argmin(est.cv_errors_, axis=1)]
    np.testing.assert_array_equal(best, est.learners_)
    # and the chosen learner's trees are what they claim to be
    fr = est.forest_
    for t in range(fr.n_trees):
        kinds = set(tree_nodes(fr, t)["kind"].tolist()) - {0}
        assert kinds <= ({3} if est.learners_[t] == "mmdt" else {1, 2})


def test_tree_stats_and_diagnose_show_the_mixture():
    X, y = diagonal(600, 1)
    X = np.column_stack([X, np.random.default_rng(0).uniform(-3, 3, size=600)])
    Xte, yte = diagonal(300, 2)
    Xte = np.column_stack([Xte, np.zeros(300)])
    est = treelab.BaggedCVDT(n_estimators=12, candidates=("mmdt", "entropy_tree"),
                             random_state=3).fit(X, y)
    stats = est.tree_stats()
    assert stats.learner.dims == ("tree",)
    np.testing.assert_array_equal(stats.learner.values, est.learners_)
    ds = diagnose(est, Xte, yte)
    np.testing.assert_array_equal(ds.learner.values, est.learners_)
    assert ds.member_error.sizes["tree"] == 12


def test_ties_go_to_the_first_candidate_and_cv_uses_two_folds():
    # two features that each separate the classes perfectly: every candidate makes no errors
    X = np.repeat(np.array([[0.0, 0.0], [1.0, 1.0]]), 50, axis=0)
    y = np.repeat([0, 1], 50)
    for cands in [("mmdt", "entropy_tree"), ("entropy_tree", "mmdt")]:
        est = treelab.CVDT(candidates=cands, random_state=0).fit(X, y)
        np.testing.assert_array_equal(est.cv_errors_, [[0.0, 0.0]])
        assert est.learners_.tolist() == [cands[0]]


def test_single_cvdt_predicts_with_the_chosen_learner():
    X, y = diagonal(500, 4)
    Xte, _ = diagonal(200, 5)
    cvdt = treelab.CVDT(random_state=0).fit(X, y)
    assert cvdt.learners_.tolist() == ["mmdt"]
    mmdt = treelab.MMDT(random_state=0).fit(X, y)
    # the same learner on the same rows: the same tree (MMDT draws nothing for two classes)
    np.testing.assert_array_equal(cvdt.forest_.projections, mmdt.forest_.projections)
    np.testing.assert_array_equal(cvdt.predict_proba(Xte), mmdt.predict_proba(Xte))


def test_entropy_tree_in_a_cvdt_reads_raw_nominal_columns_with_missing_values():
    rng = np.random.default_rng(6)
    n = 400
    color = rng.integers(0, 4, size=n).astype(float)
    x = rng.normal(size=n)
    y = ((color == 2) ^ (x > 0)).astype(int)
    X = np.column_stack([x, color])
    X[rng.random(n) < 0.1, 1] = np.nan
    est = treelab.BaggedCVDT(n_estimators=8, candidates=("entropy_tree", "mmdt", "random_tree"),
                             categorical_features=[1], random_state=0).fit(X, y)
    assert est.forest_.projections.shape[1] == 5  # 1 numeric + a block of 4 one-hot columns
    assert (est.forest_.kind == 2).any()  # m-ary nominal splits on the raw column
    assert est.score(X, y) > 0.9
    assert est.cv_errors_.shape == (8, 3)


@pytest.mark.parametrize("candidates, exc", [
    ("mmdt", TypeError),
    ((), ValueError),
    (("mmdt", "svm"), ValueError),
    (("mmdt", "mmdt"), ValueError),
])
def test_bad_candidates(candidates, exc):
    X, y = diagonal(30, 0)
    with pytest.raises(exc, match="candidates"):
        treelab.BaggedCVDT(candidates=candidates).fit(X, y)


def test_entropy_tree_candidate_stops_where_no_test_gains():
    """The entropy-tree candidate grows until no test has positive gain (algorithms spec 2.1),
    not to purity: on XOR with every pattern twice, both features leave the class counts of
    each child at the root's (gain 0), so the tree is one impure leaf of counts (4, 4); a
    third feature that names each row separates the classes and the tree splits."""
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 2, dtype=float)
    y = np.array([0, 1, 1, 0] * 2)
    leaf = treelab.CVDT(candidates=("entropy_tree",), random_state=0).fit(X, y)
    assert leaf.forest_.kind.tolist() == [0]
    assert leaf.forest_.counts[0].tolist() == [4, 4]
    split = treelab.CVDT(candidates=("entropy_tree",), random_state=0).fit(
        np.c_[X, np.arange(8.0)], y)
    assert split.forest_.kind.size > 1
    np.testing.assert_array_equal(split.predict(np.c_[X, np.arange(8.0)]), y)
