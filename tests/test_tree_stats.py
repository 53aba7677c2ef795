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


def test_extra_trees_nodes_are_counted_as_their_docstring_says():
    # the node flags, read tree by tree, against what ExtraTrees' docstring tells a reader to
    # expect of random_share and decision_nodes (it once said "recorded as random nodes",
    # while every Extra-Tree node has always been stored as deterministic)
    rng = np.random.default_rng(2)
    X = rng.random((80, 4))
    y = (X[:, 0] + 0.4 * rng.random(80) > 0.7).astype(int)
    est = treelab.ExtraTrees(n_estimators=5, random_state=3).fit(X, y)
    stats = est.tree_stats()
    leaves, random = _by_tree(est.forest_)
    internal = np.diff(est.forest_.node_offsets) - leaves
    assert (internal > 0).all()
    doc = " ".join(treelab.ExtraTrees.__doc__.split())
    assert "recorded as deterministic nodes" in doc
    assert "recorded as random" not in doc
    np.testing.assert_array_equal(random, 0)
    np.testing.assert_array_equal(stats.random_share.values, 0.0)
    np.testing.assert_array_equal(stats.decision_nodes.values, internal)
