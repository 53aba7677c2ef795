"""Independent helpers for engine tests: tree walking and gains written straight from the spec."""

from __future__ import annotations

import numpy as np


def tree_nodes(forest, t):
    """Slices of the node arrays of tree t (tree-local indices)."""
    lo, hi = forest.node_offsets[t], forest.node_offsets[t + 1]
    return {
        name: getattr(forest, name)[lo:hi]
        for name in ("kind", "feature", "threshold", "child_start", "n_children", "nan_child",
                     "random", "depth", "counts")
    }


def children(nodes, i):
    return range(nodes["child_start"][i], nodes["child_start"][i] + nodes["n_children"][i])


def paths(nodes):
    """Yield (node, list of ancestors) for every node of one tree, by explicit recursion."""
    stack = [(0, [])]
    while stack:
        i, anc = stack.pop()
        yield i, anc
        for c in children(nodes, i):
            stack.append((c, anc + [i]))


def entropy_bits(counts):
    counts = np.asarray(counts, dtype=float)
    n = counts.sum()
    p = counts[counts > 0] / n
    return float(-(p * np.log2(p)).sum())


def gini(counts):
    counts = np.asarray(counts, dtype=float)
    n = counts.sum()
    return float(1.0 - ((counts / n) ** 2).sum())


def split_gain(y, go_left, n_classes, criterion="entropy"):
    """Impurity decrease of a two-way split of labels y, from the textbook formula."""
    imp = entropy_bits if criterion == "entropy" else gini
    parent = np.bincount(y, minlength=n_classes)
    left = np.bincount(y[go_left], minlength=n_classes)
    right = parent - left
    n = len(y)
    return imp(parent) - left.sum() / n * imp(left) - right.sum() / n * imp(right)


def route(X, nodes, i=0):
    """Leaf reached by each row of X (tree-local), walking node by node in Python."""
    out = np.empty(len(X), dtype=int)
    for r, x in enumerate(X):
        node = 0
        while nodes["kind"][node] != 0:
            v = x[nodes["feature"][node]]
            first = nodes["child_start"][node]
            if np.isnan(v):
                node = first + nodes["nan_child"][node]
            elif nodes["kind"][node] == 1:
                node = first + (0 if v <= nodes["threshold"][node] else 1)
            else:
                code = int(v)
                node = first + (code if code < nodes["n_children"][node] else
                                nodes["nan_child"][node])
        out[r] = node
    return out
