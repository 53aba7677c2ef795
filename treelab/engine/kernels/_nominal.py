"""The search over a nominal feature at a node: its codes' class counts and the multiway
(ID3/C4.5) split's score."""

import numpy as np

from treelab.engine.kernels._config import inner
from treelab.engine.kernels._criteria import (
    GINI,
    side_entropy_mass,
    side_gini_mass,
    split_info,
)
from treelab.engine.kernels._split import cls_of, is_tie, row_of, wt_of


@inner(_nrt=False)
def summarize_nominal(f, arity, rows, s, e, Xc, dist_counts, nan_counts, cmap):
    """Class counts per code (0..arity-1) of nominal feature f at the node (class c in column
    ``cmap[c]``)."""
    C = dist_counts.shape[1]
    nan_counts[:] = 0.0
    for b in range(arity):
        for c in range(C):
            dist_counts[b, c] = 0.0
    for j in range(e - s):
        p = rows[s + j]
        v = Xc[f, row_of(p)]
        if np.isnan(v):
            nan_counts[cmap[cls_of(p)]] += wt_of(p)
        else:
            dist_counts[np.int64(v), cmap[cls_of(p)]] += wt_of(p)


@inner(_nrt=False)
def eval_nominal(criterion, dist_counts, n_codes, nan_counts, n_node, pmass, table, min_objs,
                 min_leaf, branch_n, tmp):
    """Gain of the m-ary split on a nominal feature (missing rows tried in every branch).

    Returns (gain, branch receiving missing rows, split info); gain is -inf when fewer than
    two branches hold ``min_objs`` rows or a non-empty branch holds fewer than ``min_leaf``.
    """
    C = dist_counts.shape[1]
    n_nan = 0.0
    for c in range(C):
        n_nan += nan_counts[c]
    present = 0
    for b in range(n_codes):
        t = 0.0
        for c in range(C):
            t += dist_counts[b, c]
        branch_n[b] = t
        if t > 0:
            present += 1
    if present < 2:
        return -np.inf, -1, 0.0
    best = -np.inf
    best_b = -1
    best_si = 0.0
    n_try = n_codes if n_nan > 0 else 1
    for target in range(n_try):
        if n_nan > 0 and branch_n[target] == 0:
            continue
        if n_nan > 0:
            branch_n[target] += n_nan
        big = 0
        ok = True
        mass = 0.0
        for b in range(n_codes):
            nb = branch_n[b]
            if nb >= min_objs:
                big += 1
            if nb > 0 and nb < min_leaf:
                ok = False
            if n_nan > 0 and b == target:
                for c in range(C):
                    tmp[c] = dist_counts[b, c] + nan_counts[c]
            else:
                for c in range(C):
                    tmp[c] = dist_counts[b, c]
            if criterion == GINI:
                mass += side_gini_mass(tmp, nb)
            else:
                mass += side_entropy_mass(tmp, nb, table)
        if ok and big >= 2:
            if criterion == GINI:
                g = (mass - pmass) / n_node
            else:
                g = (pmass - mass) / n_node
            if g > best and not (best_b >= 0 and is_tie(g, best)):
                best = g
                best_b = target if n_nan > 0 else -1
                best_si = split_info(branch_n, n_codes, n_node, table)
        if n_nan > 0:
            branch_n[target] -= n_nan
    if best_b < 0 and best > -np.inf:
        # no missing rows at this node: missing values later follow the largest branch
        best_b = 0
        for b in range(n_codes):
            if branch_n[b] > branch_n[best_b]:
                best_b = b
    return best, best_b, best_si
