"""tree_stats' per-tree counts against a tree-by-tree NumPy reading of the forest, on both of
its paths (one reduction for small trees, a count per tree's slice for large ones)."""

import numpy as np
import pytest

import treelab
import treelab.estimators._tree_stats as tree_stats_module


def _by_tree(forest):
    leaves, random = [], []
    for a, b in zip(forest.node_offsets[:-1], forest.node_offsets[1:], strict=True):
        kind = forest.kind[a:b]
        leaves.append(int(np.sum(kind == 0)))
        random.append(int(np.sum(forest.random[a:b][kind != 0])))
    return np.array(leaves), np.array(random)


@pytest.mark.parametrize("mean_nodes", [tree_stats_module.REDUCEAT_MAX_MEAN_NODES, 0])
def test_tree_stats_count_each_trees_nodes(monkeypatch, mean_nodes):
    monkeypatch.setattr(tree_stats_module, "REDUCEAT_MAX_MEAN_NODES", mean_nodes)
    rng = np.random.default_rng(0)
    X = rng.random((150, 4))
    y = (X[:, 0] + 0.3 * rng.random(150) > 0.6).astype(int)
    # trees of very different sizes: stumps (max_depth 1) beside fully grown ones would need
    # two fits; alpha 0.5 gives random and deterministic nodes in every tree
    est = treelab.VRTrees(n_estimators=7, alpha=0.5, random_state=1).fit(X, y)
    stats = est.tree_stats()
    leaves, random = _by_tree(est.forest_)
    n_nodes = np.diff(est.forest_.node_offsets)
    np.testing.assert_array_equal(stats["n_nodes"], n_nodes)
    np.testing.assert_array_equal(stats["n_leaves"], leaves)
    np.testing.assert_array_equal(stats["decision_nodes"].values + 0,
                                  est.forest_.n_decision)
    internal = n_nodes - leaves
    np.testing.assert_array_equal(stats["random_share"], random / internal)
    assert stats["n_leaves"].dtype == np.int64
