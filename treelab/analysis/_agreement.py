"""Compiled label-agreement counts for Cohen's kappa between members.

Agreement between two members' labels is not a product of oracle outputs: as a matrix
product it needs one product per class (the identity on C classes has rank C), C times the
oracle product. Counting equal labels pair by pair in compiled code costs the same for any C.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS

__all__ = ["label_agreement"]


@njit(**NUMBA_FLAGS)
def _agreement_kernel(labels: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
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


def label_agreement(labels: np.ndarray, n_classes: int) -> np.ndarray:
    """Rows on which members t and k give the same label, (tree, tree_other), from checked
    codes (tree, sample); exact integer counts (int32 partial sums need n < 2^31 rows)."""
    dtype = np.uint8 if n_classes <= 256 else np.int64
    return _agreement_kernel(np.ascontiguousarray(labels, dtype=dtype))
