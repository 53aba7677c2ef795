"""Pruning of a fitted single tree's flat arrays (reduced-error and C4.5 pessimistic pruning).

Both functions take a one-tree ``Forest`` and return the pruned one-tree ``Forest`` and the old
index of every kept node (``kept``), so a caller can check that the pruned tree is a subtree
of the grown one. Growth statistics (gain ties, decision nodes, rows seen) are those recorded
while growing, before pruning.
"""

from __future__ import annotations

import numpy as np

from treelab.engine.forest import Forest
from treelab.engine.kernels import _predict as P
from treelab.engine.kernels import _prune as K

__all__ = ["c45_added_errors", "pessimistic_prune", "reduced_error_prune", "tree_leaves"]


def c45_added_errors(n: float, e: float, confidence: float = 0.25) -> float:
    """C4.5's AddErrs(N, e): the extra errors of a leaf with N rows and e errors when its error
    rate is raised to the upper limit of its ``confidence`` interval (Quinlan 1993, ch. 4;
    C4.5 Release 8 source). A leaf is then estimated to make e + AddErrs(N, e) errors."""
    return float(K.added_errors(float(n), float(e), float(confidence),
                                K.c45_coeff(float(confidence))))


def tree_leaves(forest: Forest, X: np.ndarray) -> np.ndarray:
    """Tree-local leaf reached by every row of X in the first tree of ``forest``."""
    first, feat = P.pack_nodes(forest.node_offsets[:2], forest.kind, forest.feature,
                               forest.child_start)
    out = np.empty(X.shape[0], dtype=np.int64)
    P._leaves(np.ascontiguousarray(X, dtype=np.float64), 0, X.shape[0], 0, first, feat,
              forest.threshold, forest.n_children, forest.nan_child, forest.projections, out)
    return out


def _check_single(forest: Forest) -> None:
    if forest.n_trees != 1:
        raise ValueError(f"pruning needs a single tree, got a forest of {forest.n_trees}")


def _apply_marks(forest: Forest, marks: np.ndarray) -> tuple[Forest, np.ndarray]:
    kept, new_cs = K.compact(forest.kind, forest.child_start, forest.n_children, marks)
    leaf = marks[kept].astype(bool) | (forest.kind[kept] == 0)
    kind = np.where(leaf, 0, forest.kind[kept]).astype(forest.kind.dtype)
    pruned = forest._replace(
        node_offsets=np.array([0, kept.shape[0]], dtype=np.int64),
        kind=kind,
        feature=np.where(leaf, -1, forest.feature[kept]).astype(forest.feature.dtype),
        threshold=np.where(leaf, np.nan, forest.threshold[kept]),
        child_start=np.where(leaf, 0, new_cs).astype(forest.child_start.dtype),
        n_children=np.where(leaf, 0, forest.n_children[kept]).astype(forest.n_children.dtype),
        nan_child=np.where(leaf, 0, forest.nan_child[kept]).astype(forest.nan_child.dtype),
        random=np.where(leaf, 0, forest.random[kept]).astype(forest.random.dtype),
        depth=forest.depth[kept].copy(),
        counts=forest.counts[kept].copy(),
    )
    return pruned, kept


def reduced_error_prune(forest: Forest, X_tune: np.ndarray, y_tune: np.ndarray,
                        min_n: int = 1) -> tuple[Forest, np.ndarray]:
    """Reduced-error pruning (Quinlan 1987) on held-out tuning rows.

    Bottom-up, every decision node whose subtree (already pruned below) makes at least as many
    errors on the tuning rows reaching it as the node would make as a leaf becomes a leaf, so
    the tuning accuracy never decreases. A node answers with the majority class of its
    answering node (itself, or under curtailment its deepest ancestor with at least ``min_n``
    training rows), exactly as prediction does. A subtree that no tuning row reaches makes no
    tuning errors either way and is pruned.

    Parameters
    ----------
    forest : Forest
        One grown tree.
    X_tune : ndarray (row, feature)
        Encoded tuning rows, in the layout prediction uses.
    y_tune : ndarray of int
        Their class codes.
    min_n : int, default 1
        Curtailment threshold of the estimator (``max(curtail_min, 1)``).

    Returns
    -------
    (Forest, ndarray)
        The pruned tree and the old index of each of its nodes.
    """
    _check_single(forest)
    leaves = tree_leaves(forest, X_tune)
    par = K.parents(forest.child_start, forest.n_children, forest.kind)
    tune = K.path_counts(leaves, np.asarray(y_tune, dtype=np.int64), par, forest.kind.shape[0],
                         forest.counts.shape[1])
    marks = K.reduced_error_marks(forest.kind, forest.child_start, forest.n_children,
                                  forest.counts, tune, par, max(int(min_n), 1))
    return _apply_marks(forest, marks)


def pessimistic_prune(forest: Forest, confidence: float = 0.25) -> tuple[Forest, np.ndarray]:
    """C4.5 pessimistic (error-based) pruning at confidence level ``confidence``.

    A node with N training rows of which E lie outside its majority class is estimated to make
    E + AddErrs(N, E) errors as a leaf (:func:`c45_added_errors`); bottom-up, a subtree becomes
    a leaf when that estimate is at most the sum of its children's estimates + 0.1 (C4.5
    Release 8). Subtree raising is not done.

    Returns
    -------
    (Forest, ndarray)
        The pruned tree and the old index of each of its nodes.
    """
    _check_single(forest)
    marks, _ = K.pessimistic_marks(forest.kind, forest.child_start, forest.n_children,
                                   forest.counts, float(confidence))
    return _apply_marks(forest, marks)
