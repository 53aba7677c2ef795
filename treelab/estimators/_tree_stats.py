"""Per-tree statistics of a fitted forest (``tree_stats()`` of every treelab ensemble): nodes,
leaves, depth, the share of random decision nodes, gain ties, deterministic decision nodes,
alpha and the rows each tree saw, over ``tree``, as the ``(dims, values, attrs)`` tuples
``xarray.Dataset`` takes: ``tree_stats()`` builds its Dataset from them, and ``diagnose`` reads
them without building any xarray object."""

from __future__ import annotations

from typing import Any

import numpy as np

from treelab import _dims

__all__ = ["REDUCEAT_MAX_MEAN_NODES", "tree_stat_vars"]

#: a forest's per-tree leaves are counted in one reduction up to this many nodes a tree on
#: average, and tree by tree above it (``tree_stat_vars``)
REDUCEAT_MAX_MEAN_NODES = 1000


def _per_tree_counter(offsets: np.ndarray, n_nodes: np.ndarray):
    """A function counting a 0/1 array's ones in each tree's nodes (int64, one per tree).

    Trees of up to ``REDUCEAT_MAX_MEAN_NODES`` nodes on average: one casting reduceat over the
    forest (about 2 ns a node while the nodes stay in cache); larger trees: count_nonzero on
    each tree's slice (no int64 copy of every node: 5 against 110 ms for the reduceat on 10
    million nodes), whose Python loop (about 1.6 us a tree) was most of a small forest's
    statistics. The same integers either way.
    """
    starts = offsets[:-1]
    if (0 < n_nodes.size and offsets[-1] <= REDUCEAT_MAX_MEAN_NODES * n_nodes.size
            and n_nodes.min() > 0):  # (reduceat reads an empty tree's next node)
        return lambda flags: np.add.reduceat(flags, starts, dtype=np.int64)
    bounds = offsets.tolist()
    spans = list(zip(bounds[:-1], bounds[1:], strict=True))
    return lambda flags: np.array([np.count_nonzero(flags[a:b]) for a, b in spans],
                                  dtype=np.int64)


def tree_stat_vars(forest: Any) -> dict[str, tuple[tuple[str], np.ndarray, dict]]:
    """``tree_stats()``'s variables of ``forest`` (``treelab.engine.forest.Forest``), name:
    ``(dims, values, attrs)`` over ``tree``; the decision nodes are the nodes less the
    leaves."""
    starts = forest.node_offsets[:-1]
    n_nodes = np.diff(forest.node_offsets)
    per_tree = _per_tree_counter(forest.node_offsets, n_nodes)
    n_leaves = per_tree(forest.kind == 0)
    n_internal = n_nodes - n_leaves
    rnd = forest.random
    n_random = (per_tree(rnd) if rnd.size == 0 or (rnd.min() >= 0 and rnd.max() <= 1)
                else np.add.reduceat(rnd.astype(np.int64), starts))
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n_internal > 0, n_random / np.maximum(n_internal, 1), np.nan)

    def var(values, long_name, units):
        return (_dims.TREE,), np.asarray(values), {"long_name": long_name, "units": units}

    return {
        "n_nodes": var(n_nodes, "nodes per tree", "count"),
        "n_leaves": var(n_leaves, "leaves per tree", "count"),
        "depth": var(np.maximum.reduceat(forest.depth, starts), "depth of the deepest leaf",
                     "levels"),
        "random_share": var(share, "share of decision nodes chosen at random",
                            "fraction [0, 1]"),
        "gain_ties": var(forest.ties_feature, "gain ties per feature", "count"),
        "gain_ties_test": var(forest.ties_test, "gain ties per test", "count"),
        "decision_nodes": var(forest.n_decision, "deterministic decision nodes", "count"),
        "alpha": var(forest.alpha, "probability of a deterministic node", "[0, 1]"),
        "rows_seen": var(forest.rows_seen, "training rows seen (with multiplicity)", "count"),
    }
