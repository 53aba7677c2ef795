"""The growth routines' node tables: their column layout, the layout of a reference tree's
arrays, and enlarging a table (``_grow.grow_tree``; ``_oblique`` enlarges its own arrays
the same way)."""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS, inner

# the node arrays start with room for (rows in the tree) / NODE_CAP_DIVISOR nodes: one a row,
# as many as most trees of the spectrum study grow (adult's reach 0.4-0.98 of their rows).
# Untouched rooms cost no page (np.empty); from an eighth, enlarging them (every table copied
# at each doubling) took 2-3% of adult's and letter's fits
NODE_CAP_DIVISOR = 1

# columns of a reference tree's integer array (grow_tree; built by forest.reference_arrays)
REF_KIND = 0
REF_FEATURE = 1
REF_CHILD = 2
REF_NAN = 3
REF_TF = 4
REF_TT = 5
NO_REFERENCE = (np.zeros((0, 6), dtype=np.int64), np.zeros(0))

# columns of grow_tree's node tables, one table per dtype
N8_KIND = 0
N8_RND = 1
N8_NBUF = 2  # which row buffer holds the node's rows
N8_LOCAL = 3  # whether the node reads the localized blocks
N8_COLS = 4
N32_FEATURE = 0
N32_CHILD = 1
N32_NCHILD = 2
N32_NAN = 3
N32_DEPTH = 4
N32_TF = 5
N32_TT = 6
N32_COLS = 7
N64_PARENT = 0
N64_START = 1
N64_END = 2
N64_STACK = 3
N64_REF = 4
N64_COLS = 5


@inner
def enlarge(a, cap, fill):
    """A copy of ``a`` with ``cap`` rows, the new rows set to ``fill`` (growing node arrays;
    ``a`` is C-contiguous)."""
    out = np.empty((cap,) + a.shape[1:], dtype=a.dtype)
    flat = out.reshape(out.size)
    old = a.reshape(a.size)
    for i in range(old.shape[0]):
        flat[i] = old[i]
    for i in range(old.shape[0], flat.shape[0]):
        flat[i] = fill
    return out


@njit(inline="always", **NUMBA_FLAGS)
def size_and_splittable(counts, node, C, min_split, depth, max_depth):
    """A classification node's weighted rows (float64, its int32 class counts summed in
    class order) and whether the growth routines may try to split it: at least
    ``min_split`` rows, more than one class and ``depth`` below ``max_depth``. The leaf
    checks of ``_random_grow``'s node loop, and of ``_presort.child_scans_lists`` for a
    child not yet popped (``_grow.grow_tree`` makes them at the same place as it takes the
    node's counts)."""
    n_node = 0.0
    n_nonzero = 0
    for c in range(C):
        n_node += counts[node, c]
        if counts[node, c] > 0:
            n_nonzero += 1
    return n_node, not (n_node < min_split or depth >= max_depth or n_nonzero <= 1)
