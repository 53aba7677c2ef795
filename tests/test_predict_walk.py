"""Prediction against a slow pure-NumPy walk of the same forest, bit for bit, on every path a
call may take: the lockstep walk's groups of eight rows and its remainder, one and two
threads, each leaf's answer computed per lookup or read from the table kept with the forest
(built once the forest has served as many lookups as it has nodes), the answers' settings
changed after the table was built, and the arrays kept per forest released with it."""

import gc

import numpy as np
import pytest

import treelab
from treelab.engine import _walk_cache


def numpy_member_answers(forest, X, laplace=False, min_n=1):
    """(tree, row, class) answers and (tree, row) votes by walking each tree row by row."""
    off, kind, feat = forest.node_offsets, forest.kind, forest.feature
    thr, cs, counts = forest.threshold, forest.child_start, forest.counts
    T, C = forest.n_trees, counts.shape[1]
    out = np.empty((T, X.shape[0], C))
    for t in range(T):
        base = off[t]
        for i in range(X.shape[0]):
            node, path = base, [base]
            while kind[node] != 0:
                assert kind[node] == 1  # threshold splits only in these forests
                node = base + cs[node] + int(X[i, feat[node]] > thr[node])
                path.append(node)
            # curtailment: the deepest node on the path holding min_n rows (the root always)
            a = next(p for p in reversed(path) if p == base or counts[p].sum() >= min_n)
            cnt = counts[a].astype(np.float64)
            tot = counts[a].sum()
            if laplace:
                out[t, i] = (cnt + 1.0) / (tot + C)
            else:
                out[t, i] = cnt / tot if tot > 0 else np.full(C, 1.0 / C)
    return out


def numpy_proba(forest, X, laplace=False, min_n=1, vote=False):
    member = numpy_member_answers(forest, X, laplace, min_n)
    T, n, C = member.shape
    if vote:
        votes = np.zeros((n, C))
        for t in range(T):
            votes[np.arange(n), np.argmax(member[t], axis=1)] += 1
        return votes / T
    acc = np.zeros((n, C))
    for t in range(T):  # the kernel's order of summation: tree by tree
        acc += member[t]
    return acc / T


def data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int) + (X[:, 3] > 0.8)
    return X, y  # three classes


@pytest.mark.parametrize("make", [
    lambda nj: treelab.RandomForest(n_estimators=6, random_state=0, n_jobs=nj),
    lambda nj: treelab.RandomForest(n_estimators=6, max_bins=16, random_state=0, n_jobs=nj),
])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_predict_proba_matches_a_numpy_walk_with_and_without_the_table(make, n_jobs):
    X, y = data(600, 0)
    est = make(n_jobs).fit(X, y)
    fr = est.forest_
    Xt = data(2051, 1)[0]  # two blocks of 1,024+ rows on two threads, a remainder of 3
    small = Xt[:13]  # 78 lookups: below the forest's nodes, no table yet
    assert small.shape[0] * fr.n_trees < fr.kind.shape[0]
    np.testing.assert_array_equal(est.predict_proba(small), numpy_proba(fr, small))
    assert fr.leaf_answers(1, False, 0, 0)[0].shape[0] == 0  # still answering per lookup
    expected = numpy_proba(fr, Xt)
    for _ in range(2):  # the first call builds the table, the second reads the kept one
        np.testing.assert_array_equal(est.predict_proba(Xt), expected)
        assert fr.leaf_answers(1, False, 0, 0)[0].shape[0] == fr.kind.shape[0]
    np.testing.assert_array_equal(est.predict(Xt), est.classes_[np.argmax(expected, axis=1)])
    np.testing.assert_array_equal(est.predict_proba(small), numpy_proba(fr, small))


def test_changed_answer_settings_after_the_table_is_kept():
    X, y = data(600, 2)
    est = treelab.VRTrees(n_estimators=5, alpha=0.5, random_state=1).fit(X, y)
    fr = est.forest_
    Xt = data(500, 3)[0]
    est.predict_proba(Xt)  # tables kept for curtail_min=2, frequencies, average
    for params, ref in [
        ({"laplace": True}, dict(laplace=True, min_n=2)),
        ({"laplace": False, "curtail_min": 9}, dict(min_n=9)),
        ({"curtail_min": 9, "combine": "vote"}, dict(min_n=9, vote=True)),
        ({"curtail_min": 2, "combine": "average"}, dict(min_n=2)),
    ]:
        est.set_params(**params)
        for _ in range(2):
            np.testing.assert_array_equal(est.predict_proba(Xt), numpy_proba(fr, Xt, **ref))


def test_a_refit_predicts_from_its_new_forest():
    X, y = data(400, 4)
    X2, y2 = data(400, 5)
    Xt = data(300, 6)[0]
    est = treelab.RandomForest(n_estimators=4, random_state=0)
    est.fit(X, y).predict_proba(Xt)
    est.fit(X2, y2)
    np.testing.assert_array_equal(est.predict_proba(Xt), numpy_proba(est.forest_, Xt))


def test_kept_arrays_go_with_their_forest():
    X, y = data(300, 7)
    gc.collect()
    before = _walk_cache.n_stores()
    est = treelab.RandomForest(n_estimators=3, random_state=0).fit(X, y)
    est.predict_proba(X)
    assert _walk_cache.n_stores() == before + 1
    del est
    gc.collect()
    assert _walk_cache.n_stores() == before
