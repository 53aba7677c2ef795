"""The estimators' predict and predict_proba under each combination, against the combination
rules computed by hand (exact fractions) or by slow loops over the members' leaf counts."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest

from treelab import combine as combine_funcs
from treelab.analysis import diagnose
from treelab.estimators import DisjointSampleTrees, RandomForest, VRTrees


def _exact_vote(counts: np.ndarray) -> np.ndarray:
    """The spec's vote rule in exact arithmetic: most votes, then the larger summed leaf
    frequency, then the lower class index."""
    n_trees, n_rows, n_classes = counts.shape
    out = np.empty(n_rows, dtype=np.int64)
    for s in range(n_rows):
        votes = [0] * n_classes
        summed = [Fraction(0)] * n_classes
        for t in range(n_trees):
            row = [int(v) for v in counts[t, s]]
            votes[max(range(n_classes), key=lambda c: (row[c], -c))] += 1
            for c in range(n_classes):
                summed[c] += Fraction(row[c], sum(row))
        top = [c for c in range(n_classes) if votes[c] == max(votes)]
        best = max(summed[c] for c in top)
        out[s] = min(c for c in top if summed[c] == best)
    return out


def test_vote_tie_with_equal_summed_probability_goes_to_lower_class():
    # two single-leaf trees (X is constant) on the parts (2, 0, 5) and (4, 2, 1): one vote
    # each for "a" and "c", summed frequencies 2/7 + 4/7 = 6/7 = 5/7 + 1/7, so the lower class
    # "a" wins; in floating point the second sum is one ulp larger
    X = np.zeros((14, 1))
    y = np.array(["a"] * 6 + ["b"] * 2 + ["c"] * 6)
    m = DisjointSampleTrees(n_estimators=2, combine="vote", random_state=31).fit(X, y)
    counts = m.member_counts(X[:1])
    assert sorted(map(tuple, counts[:, 0].astype(int).tolist())) == [(2, 0, 5), (4, 2, 1)]
    assert m.classes_[_exact_vote(counts)][0] == "a"
    assert m.predict(X[:1])[0] == "a"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = diagnose(m, X[:1], np.array(["a"]))
    assert float(ds["ensemble_error"]) == 0.0


@pytest.mark.parametrize("seed", range(6))
def test_vote_predict_matches_exact_rule(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(40, 2)).astype(float)
    y = rng.integers(0, 3, 40)
    m = DisjointSampleTrees(n_estimators=int(rng.integers(2, 7)), combine="vote",
                            curtail_min=1, random_state=seed).fit(X, y)
    Xt = rng.integers(0, 3, size=(30, 2)).astype(float)
    counts = m.member_counts(Xt)
    np.testing.assert_array_equal(m.predict(Xt), m.classes_[_exact_vote(counts)])


@pytest.mark.parametrize("combine", ["average", "vote", "sum", "likelihood", "bayesian"])
def test_all_members_empty_gives_uniform_proba(combine):
    # one bootstrap tree whose sample holds only rows of weight 0 (random_state 7 misses
    # rows 0 and 1): its root is empty and answers 1/C, in every combination
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    y = np.arange(20) % 2
    w = np.zeros(20)
    w[:2] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = RandomForest(n_estimators=1, combine=combine, random_state=7).fit(X, y,
                                                                            sample_weight=w)
        proba = m.predict_proba(X[:3])
    assert m.member_counts(X[:3]).sum() == 0
    expected = combine_funcs.vote(m.member_counts(X[:3])) if combine == "vote" else 0.5
    np.testing.assert_array_equal(proba, np.broadcast_to(expected, (3, 2)))
    np.testing.assert_array_equal(m.predict(X[:3]), [0, 0, 0])


def _likelihood_data():
    # x = 0 for the 9 rows of "a" and 10 of "b", x = 1 for the 1000 rows of "c": every tree
    # answers a row at x = 0 with the leaf (9, 10, 0) of the training totals (9, 10, 1000)
    X = np.repeat([[0.0], [1.0]], [19, 1000], axis=0)
    y = np.repeat(["a", "b", "c"], [9, 10, 1000])
    return X, y


def test_likelihood_predicts_highest_posterior_odds():
    X, y = _likelihood_data()
    m = VRTrees(n_estimators=11, alpha=1.0, sampling="none", combine="likelihood",
                random_state=0).fit(X, y)
    counts = m.member_counts(X[:1], curtail=False)
    np.testing.assert_array_equal(counts[:, 0], np.tile([9.0, 10.0, 0.0], (11, 1)))
    # log O(c | x) = log O(c) + 11 log LS(c), LS(c) = [(n_c + 1) / (N_c + 2)] /
    # [(n - n_c + 1) / (N - N_c + 2)], prior p(c) = (N_c + 1) / (N + C)
    n, N = np.array([9.0, 10.0, 0.0]), np.array([9.0, 10.0, 1000.0])
    prior = (N + 1) / (N.sum() + 3)
    log_ls = np.log((n + 1) / (N + 2)) - np.log((n.sum() - n + 1) / (N.sum() - N + 2))
    z = np.log(prior / (1 - prior)) + 11 * log_ls
    assert z[1] - z[0] > 1.2  # "b": 3.4 times the odds of "a" (log odds 45.30 and 44.07)
    np.testing.assert_allclose(combine_funcs.likelihood_log_odds(counts, m.forest_.counts[
        m.forest_.node_offsets[:-1]]), z[None], rtol=1e-12)
    assert m.predict(X[:1])[0] == "b"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = diagnose(m, X[:1], np.array(["b"]))
    assert float(ds["ensemble_error"]) == 0.0
    # the probabilities of "a" and "b" both round to 1/2
    np.testing.assert_allclose(m.predict_proba(X[:1])[0, :2], [0.5, 0.5])


def _nominal_data():
    # f0 = a: classes 0 and 1 (7 rows each) told apart by f1 in {x, y}; f0 = b: class 2 (10
    # rows), the only rows with f1 = z. A tree splits on f0, then f1 under a, where z is never
    # seen: the row (a, z) reaches an empty child, which answers with its parent (7, 7, 0)
    import pandas as pd

    rows = ([("a", "x", 0)] * 6 + [("a", "y", 1)] * 6 + [("a", "x", 1), ("a", "y", 0)]
            + [("b", "z", 2)] * 8 + [("b", "x", 2)] * 2)
    df = pd.DataFrame(rows, columns=["f0", "f1", "y"])
    X = df[["f0", "f1"]].astype("category")
    Xt = pd.DataFrame({"f0": pd.Categorical(["a"], categories=["a", "b"]),
                       "f1": pd.Categorical(["z"], categories=["x", "y", "z"])})
    return X, df["y"].to_numpy(), Xt


@pytest.mark.parametrize("combine", ["likelihood", "bayesian"])
def test_empty_leaf_answers_with_parent_counts(combine):
    X, y, Xt = _nominal_data()
    m = VRTrees(n_estimators=3, alpha=1.0, sampling="none", combine=combine, curtail_min=1,
                random_state=0).fit(X, y)
    assert m.member_counts(Xt, curtail=False).sum() == 0  # the leaf itself is empty
    parent, totals = np.array([7.0, 7.0, 0.0]), np.array([7.0, 7.0, 10.0])
    if combine == "bayesian":
        # every tree the same: the parent's Laplace estimate (n_c + 1) / (n + C)
        expected = (parent + 1) / (parent.sum() + 3)
    else:
        prior = (totals + 1) / (totals.sum() + 3)
        ls = ((parent + 1) / (totals + 2)) / ((parent.sum() - parent + 1)
                                               / (totals.sum() - totals + 2))
        odds = prior / (1 - prior) * ls**3
        expected = odds / (1 + odds) / (odds / (1 + odds)).sum()
    np.testing.assert_allclose(m.predict_proba(Xt)[0], expected, rtol=1e-12)
    # rows reaching non-empty leaves read those leaves, not curtailed
    counts = m.member_counts(X, curtail=False)
    extras = m._combine_extras(combine)
    np.testing.assert_allclose(m.predict_proba(X),
                               combine_funcs.combine_proba(combine, counts, **extras))
