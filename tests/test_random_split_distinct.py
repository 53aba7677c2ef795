"""random_split="pair_distinct": Liu et al.'s Algorithm 2 with the two values drawn over the
node's distinct values. Checked against the hand-worked distribution of the threshold."""

import itertools

import numpy as np
import pytest
from helpers_trees import tree_nodes
from scipy import stats

import treelab
from treelab.engine.kernels._rng import new_state
from treelab.engine.kernels._thresholds import pair_distinct_midpoint, pair_midpoint


def _node(values):
    Xc = np.asarray(values, dtype=np.float64)[None, :]
    rows = (np.arange(Xc.shape[1], dtype=np.int64) << 32)
    return Xc, rows


def test_pairs_of_distinct_values_are_equally_likely_whatever_their_row_counts():
    # 94 rows at 0 and one each at 1, 2, 3: the 6 pairs of distinct values are equally likely,
    # so the midpoints 0.5, 1, 1.5 (twice: 0|3 and 1|2), 2, 2.5 have chances 1, 1, 2, 1, 1 / 6
    Xc, rows = _node([0.0] * 94 + [1.0, 2.0, 3.0])
    state = new_state(np.uint64(11))
    draws = []
    for _ in range(3000):
        found, t = pair_distinct_midpoint(0, rows, 0, rows.size, Xc, state)
        assert found
        draws.append(t)
    values, counts = np.unique(draws, return_counts=True)
    np.testing.assert_array_equal(values, [0.5, 1.0, 1.5, 2.0, 2.5])
    expected = 3000 * np.array([1, 1, 2, 1, 1]) / 6
    assert stats.chisquare(counts, expected).pvalue > 1e-3
    # the row rule draws a 0 for almost every first value: 2.0 and 2.5 are rare there
    state = new_state(np.uint64(11))
    by_rows = [pair_midpoint(0, rows, 0, rows.size, Xc, state)[1] for _ in range(3000)]
    assert np.isin(by_rows, [2.0, 2.5]).mean() < 0.05


def test_missing_values_are_skipped_and_one_value_is_no_split():
    Xc, rows = _node([np.nan, 4.0, np.nan, 4.0])
    assert not pair_distinct_midpoint(0, rows, 0, 4, Xc, new_state(np.uint64(1)))[0]
    Xc, rows = _node([np.nan, 4.0, np.nan, 6.0])
    found, t = pair_distinct_midpoint(0, rows, 0, 4, Xc, new_state(np.uint64(1)))
    assert found and t == 5.0
    # a node range inside the row array
    Xc, rows = _node([1.0, 7.0, 7.0, 9.0, 3.0])
    for seed in range(20):
        found, t = pair_distinct_midpoint(0, rows, 1, 4, Xc, new_state(np.uint64(seed)))
        assert found and t == 8.0


def test_complete_random_trees_split_only_at_midpoints_of_distinct_values():
    rng = np.random.default_rng(0)
    x = rng.choice([0.0, 0.0, 0.0, 1.0, 2.5, 4.0], size=200)
    y = (x + rng.normal(0, 1, 200) > 1.5).astype(int)
    X = x[:, None]
    allowed = {(a + b) / 2 for a, b in itertools.combinations(np.unique(x), 2)}
    est = treelab.VRTrees(n_estimators=5, alpha=0.0, random_split="pair_distinct",
                          random_state=3).fit(X, y)
    for t in range(5):
        nodes = tree_nodes(est.forest_, t)
        th = nodes["threshold"][nodes["kind"] == 1]
        assert th.size > 0 and set(np.round(th, 12)) <= {round(v, 12) for v in allowed}
    again = treelab.VRTrees(n_estimators=5, alpha=0.0, random_split="pair_distinct",
                            random_state=3).fit(X, y)
    np.testing.assert_array_equal(est.forest_.threshold, again.forest_.threshold)


def test_coalescence_takes_the_option_and_checks_it():
    X, y = np.random.default_rng(1).normal(size=(60, 3)), np.arange(60) % 3
    est = treelab.Coalescence(n_estimators=6, random_split="pair_distinct", random_state=0)
    assert est.fit(X, y).predict(X).shape == (60,)
    with pytest.raises(ValueError, match="random_split"):
        treelab.Coalescence(random_split="distinct").fit(X, y)
