"""StochasticID3(tie_break="random"): the single model draws among exactly tied candidates.

Checked against the pure-Python reference tree of ``test_learners_stochastic`` (written from the
spec, lowest feature on ties) on data whose only ties are between duplicated columns, so the
reference fixes every node up to which copy of a duplicated column is used.
"""

import numpy as np
import pytest
from helpers_trees import tree_nodes
from scipy import stats
from test_learners_stochastic import Reference, assert_same_tree, continuous_data

import treelab


def _no_tie_data():
    """Continuous data whose beta = 1 trees (depth 4, 12 rows to split) have no gain ties."""
    X, y = continuous_data(7, n=300)
    kw = dict(n_estimators=1, beta=1.0, max_depth=4, min_samples_split=12, lookahead=0)
    assert treelab.StochasticID3(**kw, random_state=0).fit(X, y).tree_stats() \
        .gain_ties.item() == 0
    return X, y, kw


def test_random_tie_break_is_the_reference_tree_up_to_duplicate_columns():
    X, y, kw = _no_tie_data()
    Xd = np.column_stack([X, X[:, 0], X[:, 1]])  # columns 4 and 5 duplicate 0 and 1
    ref = Reference(X, y, 3, 0, min_split=12, max_depth=4).build(np.arange(len(y)))
    used_copy = 0
    for seed in range(12):
        est = treelab.StochasticID3(**kw, tie_break="random", random_state=seed).fit(Xd, y)
        nodes = tree_nodes(est.forest_, 0)
        used_copy += int(np.isin(nodes["feature"], [4, 5]).sum())
        folded = dict(nodes)
        folded["feature"] = np.where(nodes["feature"] >= 4, nodes["feature"] - 4,
                                     nodes["feature"])
        assert_same_tree(folded, ref)
        # the tie counter sees the duplicates whichever copy is drawn
        assert est.tree_stats().gain_ties.item() > 0
    assert used_copy > 0  # some node took a copy: the draw is not the lowest index


def test_first_tie_break_never_takes_the_later_duplicate():
    X, y, kw = _no_tie_data()
    Xd = np.column_stack([X, X[:, 0], X[:, 1]])
    for seed in range(4):
        est = treelab.StochasticID3(**kw, tie_break="first", random_state=seed).fit(Xd, y)
        assert not np.isin(tree_nodes(est.forest_, 0)["feature"], [4, 5]).any()


def test_random_tie_break_draws_uniformly_among_three_copies():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 2, 200)
    y = np.where(rng.random(200) < 0.85, a, 1 - a)
    weak = np.where(rng.random(200) < 0.6, y, 1 - y)
    X = np.column_stack([a, a, a, weak]).astype(float)
    roots = [tree_nodes(treelab.StochasticID3(n_estimators=1, beta=1.0, lookahead=0,
                                              max_depth=1, tie_break="random",
                                              random_state=s).fit(X, y).forest_, 0)
             ["feature"][0] for s in range(300)]
    counts = np.bincount(roots, minlength=4)
    assert counts[3] == 0  # never the weaker feature: only exact ties are drawn
    assert stats.chisquare(counts[:3]).pvalue > 1e-3  # 100 each expected


def test_random_tie_break_is_reproducible_and_leaves_beta_above_one_unchanged():
    X, y = continuous_data(3, n=120)
    X = np.column_stack([X, X[:, 2]])
    one = dict(n_estimators=1, beta=1.0, lookahead=1, tie_break="random", random_state=9)
    a = treelab.StochasticID3(**one).fit(X, y)
    b = treelab.StochasticID3(**one).fit(X, y)
    np.testing.assert_array_equal(tree_nodes(a.forest_, 0)["feature"],
                                  tree_nodes(b.forest_, 0)["feature"])
    # with beta > 1 ties are drawn with the rest of the choice set: the flag changes nothing
    kw = dict(n_estimators=4, beta=1.25, lookahead=0, random_state=2)
    first = treelab.StochasticID3(**kw, tie_break="first").fit(X, y)
    rand = treelab.StochasticID3(**kw, tie_break="random").fit(X, y)
    for t in range(4):
        for key in ("feature", "threshold", "counts"):
            np.testing.assert_array_equal(tree_nodes(first.forest_, t)[key],
                                          tree_nodes(rand.forest_, t)[key])


def test_single_model_keeps_the_tie_break():
    est = treelab.StochasticID3(tie_break="random")
    assert est.single_model().get_params()["tie_break"] == "random"


def test_tie_break_is_checked():
    X, y = continuous_data(1, n=40)
    with pytest.raises(ValueError, match="tie_break"):
        treelab.StochasticID3(tie_break="last").fit(X, y)
