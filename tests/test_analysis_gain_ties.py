"""gain_ties_from_counts: g per tree, its means, and the counts it refuses."""

import numpy as np
import pytest

from treelab.analysis import gain_ties_from_counts


def test_hand_worked_counts():
    # g_t = ties / decision nodes (Ali & Pazzani 1995, section 5.2); a tree without decision
    # nodes has no g and is left out of mean_g
    ds = gain_ties_from_counts(np.array([3, 0, 2]), np.array([10, 0, 4]), per="test")
    np.testing.assert_allclose(ds.g.values, [0.3, np.nan, 0.5])
    assert float(ds.mean_g) == pytest.approx(0.4)
    assert float(ds.pooled_g) == pytest.approx(5 / 14)
    assert '"per": "test"' in ds.attrs["params"]


def test_refuses_an_unknown_per():
    with pytest.raises(ValueError, match="per must be 'feature' or 'test'"):
        gain_ties_from_counts(np.array([1]), np.array([2]), per="node")


def test_refuses_ties_of_a_tree_without_decision_nodes():
    # ties are recorded only at decision nodes: swapped or misaligned arrays would otherwise
    # put 3 ties over 5 nodes into pooled_g (0.6)
    with pytest.raises(ValueError, match="decision_nodes is 0"):
        gain_ties_from_counts(np.array([3, 0]), np.array([0, 5]))
