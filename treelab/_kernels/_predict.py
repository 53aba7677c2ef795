"""Prediction over many trees: leaf lookup, member outputs and combined probabilities.

Rows are processed in blocks in parallel (``prange``); within a block every tree is walked for
all rows of the block before the next tree, so a tree's upper nodes stay in cache.

The answering node of a row in a tree is its leaf, unless the leaf holds fewer than
``max(curtail_min, 1)`` training rows; then it is the deepest ancestor that holds at least that
many (curtailment, Zadrozny & Elkan 2001; an empty leaf answers with its parent).
"""

import numpy as np
from numba import njit, prange

from treelab._kernels._config import NUMBA_FLAGS

_BLOCK = 64

MODE_AVERAGE = 0
MODE_VOTE = 1
MODE_SUM = 2


@njit(**NUMBA_FLAGS)
def _walk(X, i, base, kind, feature, threshold, child_start, n_children, nan_child, node_n,
          min_n):
    """(leaf, answering node) of row i in the tree whose nodes start at ``base``."""
    node = 0
    anchor = 0
    while True:
        nid = base + node
        k = kind[nid]
        if k == 0:
            break
        if node_n[nid] >= min_n:
            anchor = node
        v = X[i, feature[nid]]
        if np.isnan(v):
            b = nan_child[nid]
        elif k == 1:
            b = 0 if v <= threshold[nid] else 1
        else:
            b = np.int64(v)
            if b < 0 or b >= n_children[nid]:
                b = nan_child[nid]
        node = child_start[nid] + b
    if node_n[base + node] >= min_n:
        return node, node
    return node, anchor


@njit(parallel=True, cache=True, nogil=True)
def apply_forest(X, node_offsets, kind, feature, threshold, child_start, n_children, nan_child):
    """Tree-local leaf index of every row in every tree, shape (row, tree)."""
    n = X.shape[0]
    T = node_offsets.shape[0] - 1
    out = np.empty((n, T), dtype=np.int64)
    dummy = np.zeros(kind.shape[0], dtype=np.int64)
    n_blocks = (n + _BLOCK - 1) // _BLOCK
    for blk in prange(n_blocks):
        lo = blk * _BLOCK
        hi = min(n, lo + _BLOCK)
        for t in range(T):
            base = node_offsets[t]
            for i in range(lo, hi):
                leaf, _ = _walk(X, i, base, kind, feature, threshold, child_start, n_children,
                                nan_child, dummy, 1)
                out[i, t] = leaf
    return out


@njit(parallel=True, cache=True, nogil=True)
def member_counts(X, node_offsets, kind, feature, threshold, child_start, n_children, nan_child,
                  counts, node_n, min_n):
    """Class counts of the answering node of every row in every tree, shape (tree, row, class)."""
    n = X.shape[0]
    T = node_offsets.shape[0] - 1
    C = counts.shape[1]
    out = np.empty((T, n, C))
    n_blocks = (n + _BLOCK - 1) // _BLOCK
    for blk in prange(n_blocks):
        lo = blk * _BLOCK
        hi = min(n, lo + _BLOCK)
        for t in range(T):
            base = node_offsets[t]
            for i in range(lo, hi):
                _, ans = _walk(X, i, base, kind, feature, threshold, child_start, n_children,
                               nan_child, node_n, min_n)
                for c in range(C):
                    out[t, i, c] = counts[base + ans, c]
    return out


@njit(parallel=True, cache=True, nogil=True)
def combine_forest(X, node_offsets, kind, feature, threshold, child_start, n_children, nan_child,
                   counts, node_n, min_n, laplace, mode):
    """Combine the trees' answers for every row without storing member outputs.

    Returns (acc, votes): ``acc`` holds summed leaf probabilities (modes average and vote; with
    the Laplace correction when ``laplace``) or summed class counts (mode sum); ``votes`` holds
    each class's number of tree votes (mode vote; a tree votes the first class of highest
    probability).
    """
    n = X.shape[0]
    T = node_offsets.shape[0] - 1
    C = counts.shape[1]
    acc = np.zeros((n, C))
    votes = np.zeros((n, C), dtype=np.int64)
    n_blocks = (n + _BLOCK - 1) // _BLOCK
    for blk in prange(n_blocks):
        lo = blk * _BLOCK
        hi = min(n, lo + _BLOCK)
        for t in range(T):
            base = node_offsets[t]
            for i in range(lo, hi):
                _, ans = _walk(X, i, base, kind, feature, threshold, child_start, n_children,
                               nan_child, node_n, min_n)
                a = base + ans
                if mode == MODE_SUM:
                    for c in range(C):
                        acc[i, c] += counts[a, c]
                    continue
                tot = node_n[a]
                best = 0
                bestp = -1.0
                for c in range(C):
                    if laplace:
                        p = (counts[a, c] + 1.0) / (tot + C)
                    else:
                        p = counts[a, c] / tot if tot > 0 else 1.0 / C
                    acc[i, c] += p
                    if p > bestp:
                        bestp = p
                        best = c
                if mode == MODE_VOTE:
                    votes[i, best] += 1
    return acc, votes
