"""Label-agreement counts between ensemble members (Cohen's kappa of the diversity workbench).

As a matrix product, agreement between two members' labels needs one product per class (the
identity on C classes has rank C); counting equal labels pair by pair in compiled code costs
the same for any number of classes. Called by :mod:`treelab.analysis.kuncheva`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS

__all__ = ["label_agreement", "pair_counts"]


@njit(**NUMBA_FLAGS)
def label_agreement(labels: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """Rows on which members t and k give the same label, (tree, tree) int64, from class
    codes (tree, sample) of one integer dtype; the diagonal is the row count."""
    n_trees, n = labels.shape
    out = np.zeros((n_trees, n_trees), np.int64)
    for t in range(n_trees):
        out[t, t] = n
        a = labels[t]
        for k in range(t + 1, n_trees):
            b = labels[k]
            count = 0
            for i in range(n):
                count += np.int32(a[i] == b[i])  # int32 lanes keep the loop vectorised
            out[t, k] = count
            out[k, t] = count
    return out


@njit(**NUMBA_FLAGS)
def pair_counts(codes: np.ndarray, oracle: np.ndarray, start: int, stop: int
                ) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """For members t in [start, stop) and every later member k > t: the rows on which they
    give the same label and the rows on which both are right, two (stop - start, tree) int64
    arrays (0 where k <= t). ``codes`` (tree, sample) are class codes of one integer dtype,
    ``oracle`` (tree, sample) uint8 0/1 (1: the member is right). A block of rows of the pair
    matrices at a time, so pair averages stream over pairs in memory linear in the trees."""
    n_trees, n = codes.shape
    agree = np.zeros((stop - start, n_trees), np.int64)
    both = np.zeros((stop - start, n_trees), np.int64)
    for t in range(start, stop):
        a = codes[t]
        oa = oracle[t]
        for k in range(t + 1, n_trees):
            b = codes[k]
            ob = oracle[k]
            same = 0
            right = 0
            for i in range(n):
                same += np.int32(a[i] == b[i])  # int32 lanes keep the loop vectorised
                right += np.int32(oa[i] & ob[i])
            agree[t - start, k] = same
            both[t - start, k] = right
    return agree, both
