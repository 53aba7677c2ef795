"""Post-pruning of one grown tree's flat arrays (algorithms spec 3, single-tree baselines).

Nodes are tree-local and every child has a larger index than its parent, so one pass in
reverse index order visits children before parents (bottom-up) and one forward pass visits
parents first. A pruning rule marks the nodes that become leaves; ``compact`` then drops their
descendants and renumbers the rest (siblings stay contiguous, so child blocks survive).

- Reduced-error pruning (Quinlan 1987): a subtree becomes a leaf when that does not lower the
  accuracy on held-out tuning rows, bottom-up.
- Pessimistic pruning (C4.5, Quinlan 1993, confidence CF): a node with N training rows and E
  errors (rows outside its majority class) is estimated to make E + AddErrs(N, E) errors as a
  leaf; a subtree is replaced by a leaf when that estimate is at most the sum of its (pruned)
  children's estimates plus 0.1, as in C4.5 Release 8's ``EstimateErrors``. C4.5's subtree
  raising (replacing a node by its largest branch) is not done, so a pruned tree is always a
  subtree of the grown one.
"""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS

# C4.5's table of confidence levels and normal deviates (AddErrs, Release 8)
_VAL = np.array([0.0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00])
_DEV = np.array([4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00])


@njit(**NUMBA_FLAGS)
def c45_coeff(cf):
    """Square of the normal deviate for confidence ``cf``, interpolated in C4.5's table."""
    i = 0
    while cf > _VAL[i]:
        i += 1
    z = _DEV[i - 1] + (_DEV[i] - _DEV[i - 1]) * (cf - _VAL[i - 1]) / (_VAL[i] - _VAL[i - 1])
    return z * z


@njit(**NUMBA_FLAGS)
def added_errors(n, e, cf, coeff):
    """C4.5's AddErrs(N, e): extra errors when the error rate rises to its upper confidence
    limit at level ``cf`` (``coeff`` = ``c45_coeff(cf)``).

    e = 0: N (1 - CF^(1/N)) (the exact binomial limit); 0 < e < 1: linear interpolation to
    e = 1; e + 0.5 >= N: 0.67 (N - e); otherwise the normal approximation
    N (e + 0.5 + z^2/2 + z sqrt((e + 0.5)(1 - (e + 0.5)/N) + z^2/4)) / (N + z^2) - e.
    """
    if n <= 0.0:
        return 0.0
    if e < 1e-6:
        return n * (1.0 - np.exp(np.log(cf) / n))
    if e < 0.9999:
        v0 = n * (1.0 - np.exp(np.log(cf) / n))
        return v0 + e * (added_errors(n, 1.0, cf, coeff) - v0)
    if e + 0.5 >= n:
        return 0.67 * (n - e)
    pr = (e + 0.5 + coeff / 2.0
          + np.sqrt(coeff * ((e + 0.5) * (1.0 - (e + 0.5) / n) + coeff / 4.0))) / (n + coeff)
    return n * pr - e


@njit(**NUMBA_FLAGS)
def parents(child_start, n_children, kind):
    """Parent of every node of one tree (-1 at the root)."""
    m = kind.shape[0]
    par = np.full(m, -1, dtype=np.int64)
    for v in range(m):
        if kind[v] != 0:
            for c in range(child_start[v], child_start[v] + n_children[v]):
                par[c] = v
    return par


@njit(**NUMBA_FLAGS)
def path_counts(leaves, y, par, n_nodes, n_classes):
    """Class counts of the rows reaching every node (each row counted on its whole path)."""
    out = np.zeros((n_nodes, n_classes), dtype=np.int64)
    for i in range(leaves.shape[0]):
        v = leaves[i]
        while v >= 0:
            out[v, y[i]] += 1
            v = par[v]
    return out


@njit(**NUMBA_FLAGS)
def reduced_error_marks(kind, child_start, n_children, counts, tune_counts, par, min_n):
    """Nodes that reduced-error pruning turns into leaves (uint8 mask).

    A node answers with the majority class (lowest index on ties) of its answering node: itself,
    or under curtailment its deepest ancestor with at least ``min_n`` training rows. Bottom-up,
    a decision node becomes a leaf when its tuning errors as a leaf are at most those of its
    pruned subtree.
    """
    m = kind.shape[0]
    C = counts.shape[1]
    anchor = np.empty(m, dtype=np.int64)
    for v in range(m):
        tot = 0
        for c in range(C):
            tot += counts[v, c]
        if v == 0 or tot >= min_n:
            anchor[v] = v
        else:
            anchor[v] = anchor[par[v]]
    leaf_err = np.zeros(m)
    for v in range(m):
        a = anchor[v]
        best = 0
        for c in range(1, C):
            if counts[a, c] > counts[a, best]:
                best = c
        tot = 0
        for c in range(C):
            tot += tune_counts[v, c]
        leaf_err[v] = tot - tune_counts[v, best]
    sub_err = np.zeros(m)
    marks = np.zeros(m, dtype=np.uint8)
    for v in range(m - 1, -1, -1):
        if kind[v] == 0:
            sub_err[v] = leaf_err[v]
            continue
        s = 0.0
        for c in range(child_start[v], child_start[v] + n_children[v]):
            s += sub_err[c]
        if leaf_err[v] <= s:
            marks[v] = 1
            sub_err[v] = leaf_err[v]
        else:
            sub_err[v] = s
    return marks


@njit(**NUMBA_FLAGS)
def pessimistic_marks(kind, child_start, n_children, counts, cf):
    """Nodes that C4.5's pessimistic (error-based) pruning turns into leaves (uint8 mask), and
    the estimated errors of every node after pruning."""
    m = kind.shape[0]
    C = counts.shape[1]
    coeff = c45_coeff(cf)
    est = np.zeros(m)
    marks = np.zeros(m, dtype=np.uint8)
    for v in range(m - 1, -1, -1):
        n = 0.0
        best = 0.0
        for c in range(C):
            n += counts[v, c]
            if counts[v, c] > best:
                best = counts[v, c]
        e = n - best
        as_leaf = e + added_errors(n, e, cf, coeff)
        if kind[v] == 0:
            est[v] = as_leaf
            continue
        s = 0.0
        for c in range(child_start[v], child_start[v] + n_children[v]):
            s += est[c]
        if as_leaf <= s + 0.1:
            marks[v] = 1
            est[v] = as_leaf
        else:
            est[v] = s
    return marks, est


@njit(**NUMBA_FLAGS)
def compact(kind, child_start, n_children, marks):
    """Keep the nodes not below a marked node; returns (kept old indices, new child_start).

    Marked nodes are kept as leaves. New indices preserve the old order, so parents still come
    before children and siblings stay contiguous.
    """
    m = kind.shape[0]
    keep = np.zeros(m, dtype=np.uint8)
    keep[0] = 1
    for v in range(m):
        if keep[v] and kind[v] != 0 and not marks[v]:
            for c in range(child_start[v], child_start[v] + n_children[v]):
                keep[c] = 1
    new_index = np.full(m, -1, dtype=np.int64)
    k = 0
    for v in range(m):
        if keep[v]:
            new_index[v] = k
            k += 1
    kept = np.empty(k, dtype=np.int64)
    new_cs = np.zeros(k, dtype=np.int32)
    for v in range(m):
        if keep[v]:
            kept[new_index[v]] = v
            if kind[v] != 0 and not marks[v]:
                new_cs[new_index[v]] = new_index[child_start[v]]
    return kept, new_cs
