"""Split criteria over class-count vectors.

Every score is expressed through ``xlogx`` (a table of x*log2(x) for integer x, built once per
fit) or sums of squares, so the scan over thresholds does O(C) table look-ups per candidate.

Criterion codes: 0 = entropy (information gain), 1 = gain ratio (C4.5), 2 = gini.
"""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS, inner

ENTROPY = 0
GAIN_RATIO = 1
GINI = 2


def xlogx_table(n_max: int) -> np.ndarray:
    """x * log2(x) for x = 0..n_max (0 log 0 = 0)."""
    x = np.arange(n_max + 1, dtype=np.float64)
    out = np.zeros(n_max + 1)
    out[1:] = x[1:] * np.log2(x[1:])
    return out


@inner
def side_entropy_mass(counts, n, table):
    """n * H(counts) in bits: n log n - sum_c n_c log n_c (counts are integers)."""
    s = 0.0
    for c in range(counts.shape[0]):
        s += table[np.int64(counts[c])]
    return table[np.int64(n)] - s


@inner
def side_gini_mass(counts, n):
    """sum_c n_c^2 / n (the part of n * Gini impurity that depends on the split)."""
    if n <= 0:
        return 0.0
    s = 0.0
    for c in range(counts.shape[0]):
        s += counts[c] * counts[c]
    return s / n


@inner
def binary_gain(criterion, left, n_left, right, n_right, parent_mass, n, table):
    """Impurity decrease of a two-way split, normalised by the node size n.

    For entropy and gain ratio this is the information gain in bits; for gini the decrease
    of Gini impurity. ``parent_mass`` is the parent's ``side_*_mass``.
    """
    if criterion == GINI:
        return (side_gini_mass(left, n_left) + side_gini_mass(right, n_right) - parent_mass) / n
    mass = side_entropy_mass(left, n_left, table) + side_entropy_mass(right, n_right, table)
    return (parent_mass - mass) / n


@njit(**NUMBA_FLAGS)
def parent_mass(criterion, counts, n, table):
    """The parent term matching ``binary_gain``."""
    if criterion == GINI:
        return side_gini_mass(counts, n)
    return side_entropy_mass(counts, n, table)


@inner
def split_info(sizes, n_branches, n, table):
    """C4.5 split information -sum_b (n_b/n) log2(n_b/n) over the branch sizes."""
    s = 0.0
    for b in range(n_branches):
        s += table[np.int64(sizes[b])]
    return (table[np.int64(n)] - s) / n
