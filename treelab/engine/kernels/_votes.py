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
def _two_wrong(p, k, l0, l1, table, new):
    """``vote_table`` for two wrong classes, on the cells the members can reach: after t
    members the vote counts sum to at most t, and every other cell is 0 in both tables (its
    NumPy step computes 0 * p + p * 0 there), so the step skips them: a sixth of the work. The
    result is in ``table`` for an even number of members, else in ``new``."""
    n_trees = p.shape[0]
    side = n_trees + 1
    for t in range(n_trees):
        pk, p0, p1 = p[t, k], p[t, l0], p[t, l1]
        reach = t + 1
        for r in range(reach + 1):
            row = r * side
            top = reach - r
            for c in range(top + 1):
                new[row + c] = table[row + c] * pk
            if p0 != 0.0 and r > 0:
                for c in range(top + 1):
                    new[row + c] += p0 * table[row - side + c]
            if p1 != 0.0:
                for c in range(1, top + 1):
                    new[row + c] += p1 * table[row + c - 1]
        table, new = new, table


@njit(**NUMBA_FLAGS)
def vote_table(p: np.ndarray, k: int, wrong: np.ndarray) -> np.ndarray:
    """P(V_w1 = n_1, ..., V_wW = n_W) for the classes ``wrong`` (W of them), as a flat C-order
    table of (T + 1)^W cells (T the members, rows of ``p`` (tree, class)).

    Member t keeps a cell with p[t, k] and moves it one step along axis a with p[t, wrong[a]]
    (skipped where that is 0): ``new = table * p[t, k]``, then ``new[dst] += p[t, cls] *
    table[src]`` axis by axis, the NumPy whole-table steps of
    ``treelab.analysis._independent`` with the same operations in the same order on every
    cell, so the same bits; without their temporaries, in contiguous runs that vectorize.
    """
    n_trees = p.shape[0]
    side = n_trees + 1
    W = wrong.size
    size = 1
    for _ in range(W):
        size *= side
    table = np.zeros(size)
    new = np.zeros(size)  # _two_wrong leaves the cells it cannot reach as they are
    table[0] = 1.0
    if W == 2:
        _two_wrong(p, k, wrong[0], wrong[1], table, new)
        return table if n_trees % 2 == 0 else new
    for t in range(n_trees):
        pk = p[t, k]
        for i in range(size):
            new[i] = table[i] * pk
        inner = size
        for a in range(W):
            inner //= side  # cells of one step along axis a (its stride)
            pc = p[t, wrong[a]]
            if pc == 0.0:
                continue
            span = side * inner
            for base in range(0, size, span):
                for j in range(inner, span):
                    new[base + j] += pc * table[base + j - inner]
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
