"""Vote-count kernels of the independent-errors voting error (treelab.analysis).

``difference_tails``: P(V_l >= V_k) per wrong class l by DP over the vote difference;
``vote_table``: the joint distribution of the wrong classes' vote counts, by DP over members;
``lost_draws``: Monte Carlo rows on which class k loses the vote, on the engine's splitmix64
generator (one seed, so results do not depend on threads or call order).
"""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS
from treelab.engine.kernels._rng import new_state, rand_float

__all__ = ["difference_tails", "lost_draws", "vote_table"]


@njit(**NUMBA_FLAGS)
def difference_tails(p: np.ndarray, k: int, wrong: np.ndarray) -> np.ndarray:
    """P(V_l >= V_k) for each class l in ``wrong``: DP over the vote difference V_l - V_k
    (member t adds +1 with p[t, l], -1 with p[t, k], else 0)."""
    n_trees = p.shape[0]
    width = 2 * n_trees + 1
    out = np.zeros(wrong.size)
    diff = np.empty(width)
    new = np.empty(width)
    for j in range(wrong.size):
        cls = wrong[j]
        diff[:] = 0.0
        diff[n_trees] = 1.0  # offset n_trees: difference 0
        for t in range(n_trees):
            up = p[t, cls]
            down = p[t, k]
            stay = 1.0 - up - down
            for i in range(width):
                v = diff[i] * stay
                if i > 0:
                    v += diff[i - 1] * up
                if i < width - 1:
                    v += diff[i + 1] * down
                new[i] = v
            for i in range(width):
                diff[i] = new[i]
        out[j] = diff[n_trees:].sum()
    return out


@njit(**NUMBA_FLAGS)
def vote_table(p: np.ndarray, k: int, wrong: np.ndarray) -> np.ndarray:
    """P(V_w1 = n_1, ..., V_wW = n_W) for the classes ``wrong`` (W of them), as a flat C-order
    table of (T + 1)^W cells (T the members, rows of ``p`` (tree, class)).

    Member t keeps a cell with p[t, k] and moves it one step along axis a with p[t, wrong[a]]
    (skipped where that is 0). Each cell is computed as ``table * p[t, k]`` followed by one
    ``+= p[t, cls] * shifted table`` per axis in order, the NumPy whole-table steps of
    ``treelab.analysis._independent`` done cell by cell: the same operations in the same order,
    so the same bits, without a temporary table per step.
    """
    n_trees = p.shape[0]
    side = n_trees + 1
    W = wrong.size
    size = 1
    for _ in range(W):
        size *= side
    stride = np.empty(W, dtype=np.int64)
    s = size
    for a in range(W):
        s //= side
        stride[a] = s
    table = np.zeros(size)
    new = np.empty(size)
    table[0] = 1.0
    pc = np.empty(W)
    for t in range(n_trees):
        pk = p[t, k]
        for a in range(W):
            pc[a] = p[t, wrong[a]]
        for i in range(size):
            v = table[i] * pk
            for a in range(W):
                if pc[a] != 0.0 and (i // stride[a]) % side > 0:
                    v += pc[a] * table[i - stride[a]]
            new[i] = v
        table, new = new, table
    return table


@njit(**NUMBA_FLAGS)
def lost_draws(cum: np.ndarray, k: int, n_draws: int, seed: np.uint64) -> int:
    """How many of ``n_draws`` simulated rows class k loses; ``cum`` (tree, class) holds each
    member's cumulative vote probabilities. A tie goes to the lower class index.

    Member t votes the first class c < C - 1 with u < cum[t, c] (else C - 1) for its uniform
    draw u. The scan starts at a guide table's entry (Chen & Asau 1974): ``guide[t, j]`` is
    the first class with cum[t, c] > j / G, so every class before it has cum[t, c] <= j / G
    <= u for the draws with floor(u G) = j (exact: G is a power of two) and the scan ends on
    the class the full scan would find, in one or two steps on average.
    """
    n_trees, n_classes = cum.shape
    last = n_classes - 1
    n_guide = 16
    while n_guide < 2 * n_classes:
        n_guide *= 2
    guide = np.empty((n_trees, n_guide), dtype=np.int64)
    for t in range(n_trees):
        c = 0
        for j in range(n_guide):
            edge = j / n_guide
            while c < last and cum[t, c] <= edge:
                c += 1
            guide[t, j] = c
    state = new_state(seed)
    counts = np.zeros(n_classes, dtype=np.int64)
    lost = 0
    for _ in range(n_draws):
        counts[:] = 0
        for t in range(n_trees):
            u = rand_float(state)
            c = guide[t, np.int64(u * n_guide)]
            while c < last and u >= cum[t, c]:
                c += 1
            counts[c] += 1
        best = 0
        for c in range(1, n_classes):
            if counts[c] > counts[best]:
                best = c
        if best != k:
            lost += 1
    return lost
