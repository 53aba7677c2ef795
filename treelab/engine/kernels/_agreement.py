"""Label-agreement counts between ensemble members (Cohen's kappa of the diversity workbench).

As a matrix product, agreement between two members' labels needs one product per class (the
identity on C classes has rank C); counting equal labels pair by pair in compiled code costs
the same for any number of classes. Called by :mod:`treelab.analysis.kuncheva`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS

__all__ = ["label_agreement"]


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
