"""What one tree sees: its rows' multiplicities (bagging, disjoint samples, given weights) and
its visible features (random subspaces), drawn from the tree's own generator."""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS
from treelab.engine.kernels._params import ROWS_BOOTSTRAP, ROWS_DISJOINT, ROWS_WEIGHTS
from treelab.engine.kernels._rng import rand_int


@njit(**NUMBA_FLAGS)
def draw_construction(n, d, row_mode, part, tree_id, n_sub, state):
    """Row multiplicities and visible features of one tree (bagging, DST, subspaces)."""
    w = np.zeros(n, dtype=np.int32)
    if row_mode == ROWS_BOOTSTRAP:
        for _ in range(n):
            w[rand_int(state, n)] += 1
    elif row_mode == ROWS_DISJOINT:
        for i in range(n):
            if part[i] == tree_id:
                w[i] = 1
    elif row_mode == ROWS_WEIGHTS:
        for i in range(n):
            w[i] = part[i]
    else:
        w[:] = 1
    # np.empty and a fill rather than np.ones / np.arange / np.full here and in grow_tree:
    # each of those is one more numba function to compile on a first fit
    mask = np.empty(d, dtype=np.uint8)
    mask[:] = 1
    if 0 < n_sub < d:
        perm = np.empty(d, dtype=np.int64)
        for i in range(d):
            perm[i] = i
        for i in range(n_sub):
            j = i + rand_int(state, d - i)
            tmp = perm[i]
            perm[i] = perm[j]
            perm[j] = tmp
        mask[:] = 0
        for i in range(n_sub):
            mask[perm[i]] = 1
    return w, mask
