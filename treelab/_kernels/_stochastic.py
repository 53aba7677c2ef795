"""Stochastic ID3 test-selection (Ali & Pazzani 1995; algorithms spec 2.7).

A mode of the one growth routine (``_grow.grow_tree`` with ``iparams[P_STOCHASTIC] > 0``): at a
deterministic node, instead of the C4.5/CART choice, every available feature offers one
candidate test, scored by the weighted Laplace-corrected entropy of its branches

    E = sum_b (n_b / n) H_L(b),   H_L(b) = -sum_c p_bc log2 p_bc,   p_bc = (n_bc + 1) / (n_b + C)

(lower is better). A continuous feature's candidate is its threshold of lowest E (midpoints of
consecutive distinct values, as in C4.5, where a continuous attribute is one test); a nominal
feature not yet used on the path offers its m-ary split. With ``lookahead=1`` each candidate is
re-scored by the weighted entropy after the best further split of each of its children (a child
that growth would not split, because it is pure, too small or has no candidate, contributes its
own H_L). The candidates with E <= beta * E_min form the choice set and one is drawn with
probability proportional to 1 / E (E > 0 always, thanks to the Laplace correction). With beta = 1
the choice set is the best candidate and its ties; the lowest feature index wins (the
single-model baseline). Ties of E_min are recorded as gain ties (analysis spec 5): per feature
(tied candidates - 1) and per test (every tied threshold of the tied candidates, minus 1).

Missing values: at a candidate test, rows missing the feature join the branch holding the most
non-missing rows (the first such branch on equality); prediction sends them the same way.
"""

import numpy as np
from numba import njit

from treelab._kernels._config import NUMBA_FLAGS
from treelab._kernels._rng import rand_float
from treelab._kernels._split import (
    cls_of,
    is_tie,
    midpoint,
    row_of,
    summarize_continuous,
    summarize_nominal,
    wt_of,
)

KIND_THRESHOLD = 1
KIND_NOMINAL = 2


@njit(**NUMBA_FLAGS)
def laplace_mass(cnt, nb):
    """n_b * H_L(b): the branch's size times its Laplace-corrected entropy (bits)."""
    if nb <= 0:
        return 0.0
    C = cnt.shape[0]
    tot = nb + C
    s = 0.0
    for c in range(C):
        s += (cnt[c] + 1.0) * np.log2(cnt[c] + 1.0)
    return nb * (np.log2(tot) - s / tot)


@njit(**NUMBA_FLAGS)
def _threshold_candidate(dist_counts, k, nan_counts, node_counts, n_node, min_leaf, left, right):
    """Best threshold of a continuous feature by weighted Laplace entropy.

    Returns (score, index i of the last distinct value going left, missing-go-left flag,
    number of thresholds tying the best); score is inf when no threshold leaves ``min_leaf``
    rows on both sides.
    """
    C = dist_counts.shape[1]
    n_nan = 0.0
    for c in range(C):
        n_nan += nan_counts[c]
        left[c] = 0.0
    n_non = n_node - n_nan
    best = np.inf
    best_i = -1
    best_nl = False
    n_ties = 0
    nl = 0.0
    for i in range(k - 1):
        for c in range(C):
            left[c] += dist_counts[i, c]
            nl += dist_counts[i, c]
        nr = n_non - nl
        nan_left = nl >= nr
        a = nl + n_nan if nan_left else nl
        b = n_node - a
        if a < min_leaf or b < min_leaf:
            continue
        for c in range(C):
            lc = left[c] + (nan_counts[c] if nan_left else 0.0)
            left[c] = lc
            right[c] = node_counts[c] - lc
        score = (laplace_mass(left, a) + laplace_mass(right, b)) / n_node
        if nan_left:
            for c in range(C):
                left[c] -= nan_counts[c]
        if best_i >= 0 and is_tie(score, best):
            n_ties += 1
        elif score < best:
            best = score
            best_i = i
            best_nl = nan_left
            n_ties = 0
    return best, best_i, best_nl, n_ties + 1


@njit(**NUMBA_FLAGS)
def _nominal_candidate(dist_counts, arity, nan_counts, n_node, min_leaf, tmp):
    """Weighted Laplace entropy of the m-ary split; returns (score, branch of missing rows)."""
    C = dist_counts.shape[1]
    n_nan = 0.0
    for c in range(C):
        n_nan += nan_counts[c]
    present = 0
    big = -1
    big_n = -1.0
    for b in range(arity):
        t = 0.0
        for c in range(C):
            t += dist_counts[b, c]
        if t > 0:
            present += 1
        if t > big_n:
            big_n = t
            big = b
    if present < 2:
        return np.inf, 0
    mass = 0.0
    for b in range(arity):
        nb = 0.0
        for c in range(C):
            tmp[c] = dist_counts[b, c] + (nan_counts[c] if b == big else 0.0)
            nb += tmp[c]
        if 0 < nb < min_leaf:
            return np.inf, 0
        mass += laplace_mass(tmp, nb)
    return mass / n_node, big


@njit(**NUMBA_FLAGS)
def _candidates(nominal, n_distinct, uniq, uniq_off, used, vis, nv, rows, s, e, Xc, R,
                node_counts, n_node, min_leaf, keys, keys2, hist, occ, dist_rank, dist_counts,
                nan_counts, left, right, cand_f, cand_kind, cand_t, cand_nan, cand_score,
                cand_nt, skip_f):
    """Every available feature's candidate test at rows[s:e]; returns their number."""
    nc = 0
    for q in range(nv):
        f = vis[q]
        if f == skip_f:
            continue
        if nominal[f]:
            if used[f]:
                continue
            arity = n_distinct[f]
            summarize_nominal(f, arity, rows, s, e, Xc, dist_counts, nan_counts)
            score, nb = _nominal_candidate(dist_counts, arity, nan_counts, n_node, min_leaf,
                                           left)
            if score == np.inf:
                continue
            cand_kind[nc] = KIND_NOMINAL
            cand_t[nc] = np.nan
            cand_nan[nc] = nb
            cand_nt[nc] = 1
        else:
            k = summarize_continuous(f, rows, s, e, R, n_distinct[f], keys, keys2, hist, occ,
                                     dist_rank, dist_counts, nan_counts)
            if k < 2:
                continue
            score, bi, nan_left, nt = _threshold_candidate(dist_counts, k, nan_counts,
                                                           node_counts, n_node, min_leaf, left,
                                                           right)
            if bi < 0:
                continue
            base = uniq_off[f]
            cand_kind[nc] = KIND_THRESHOLD
            cand_t[nc] = midpoint(uniq[base + dist_rank[bi]], uniq[base + dist_rank[bi + 1]])
            cand_nan[nc] = 0 if nan_left else 1
            cand_nt[nc] = nt
        cand_f[nc] = f
        cand_score[nc] = score
        nc += 1
    return nc


@njit(**NUMBA_FLAGS)
def _child_of(p, f, kind, t, nanc, Xc):
    v = Xc[f, row_of(p)]
    if np.isnan(v):
        return nanc
    if kind == KIND_THRESHOLD:
        return 0 if v <= t else 1
    return np.int64(v)


@njit(**NUMBA_FLAGS)
def _lookahead_score(f, kind, t, nanc, n_kids, nominal, n_distinct, uniq, uniq_off, used, vis,
                     nv, rows, s, e, Xc, R, n_node, C, min_split, min_leaf, max_depth_left,
                     keys, keys2, hist, occ, dist_rank, dist_counts, nan_counts, left, right,
                     work, bounds, ccounts, c_f, c_kind, c_t, c_nan, c_score, c_nt):
    """Weighted entropy after the best further split of every child of one candidate test.

    ``rows[s:e]`` is scattered into ``work[s:e]`` child by child.
    """
    bounds[: n_kids + 1] = 0
    bounds[0] = s
    for j in range(s, e):
        bounds[_child_of(rows[j], f, kind, t, nanc, Xc) + 1] += 1
    for b in range(n_kids):
        bounds[b + 1] += bounds[b]
    fill = bounds[:n_kids].copy()
    for j in range(s, e):
        p = rows[j]
        b = _child_of(p, f, kind, t, nanc, Xc)
        work[fill[b]] = p
        fill[b] += 1
    if kind == KIND_NOMINAL:
        used[f] = 1
    total = 0.0
    for b in range(n_kids):
        a0 = bounds[b]
        a1 = bounds[b + 1]
        if a1 == a0:
            continue
        ccounts[:] = 0.0
        nb = 0.0
        for j in range(a0, a1):
            p = work[j]
            ccounts[cls_of(p)] += wt_of(p)
            nb += wt_of(p)
        own = laplace_mass(ccounts, nb) / n_node
        present = 0
        for c in range(C):
            if ccounts[c] > 0:
                present += 1
        if present <= 1 or nb < min_split or max_depth_left <= 1:
            total += own
            continue
        nc = _candidates(nominal, n_distinct, uniq, uniq_off, used, vis, nv, work, a0, a1, Xc,
                         R, ccounts, nb, min_leaf, keys, keys2, hist, occ, dist_rank,
                         dist_counts, nan_counts, left, right, c_f, c_kind, c_t, c_nan,
                         c_score, c_nt, -1)
        if nc == 0:
            total += own
            continue
        best = np.inf
        for q in range(nc):
            if c_score[q] < best:
                best = c_score[q]
        total += best * nb / n_node
    if kind == KIND_NOMINAL:
        used[f] = 0
    return total


@njit(**NUMBA_FLAGS)
def stochastic_select(beta, lookahead, min_split, min_leaf, max_depth_left, nominal, n_distinct,
                      uniq, uniq_off, used, vis, nv, rows, s, e, Xc, R, node_counts, n_node,
                      state, keys, keys2, hist, occ, dist_rank, dist_counts, nan_counts):
    """Stochastic ID3 choice at rows[s:e] (see the module docstring).

    ``max_depth_left`` is the depth limit minus the node's depth (lookahead only scores
    grandchildren that growth could create). Returns (found, feature, kind, threshold,
    nan_child, feature ties, test ties), the contract of the deterministic selection.
    """
    C = node_counts.shape[0]
    left = np.zeros(max(C, 1))
    right = np.zeros(max(C, 1))
    cand_f = np.empty(nv, dtype=np.int64)
    cand_kind = np.empty(nv, dtype=np.int64)
    cand_t = np.empty(nv)
    cand_nan = np.empty(nv, dtype=np.int64)
    cand_score = np.empty(nv)
    cand_nt = np.empty(nv, dtype=np.int64)
    nc = _candidates(nominal, n_distinct, uniq, uniq_off, used, vis, nv, rows, s, e, Xc, R,
                     node_counts, n_node, min_leaf, keys, keys2, hist, occ, dist_rank,
                     dist_counts, nan_counts, left, right, cand_f, cand_kind, cand_t, cand_nan,
                     cand_score, cand_nt, -1)
    if nc == 0:
        return False, -1, 0, np.nan, 0, 0, 0
    if lookahead > 0:
        max_arity = 2
        for q in range(nv):
            if nominal[vis[q]] and n_distinct[vis[q]] > max_arity:
                max_arity = n_distinct[vis[q]]
        work = np.empty(e - s + 1, dtype=np.int64)
        bounds = np.zeros(max_arity + 1, dtype=np.int64)
        ccounts = np.zeros(C)
        c_f = np.empty(nv, dtype=np.int64)
        c_kind = np.empty(nv, dtype=np.int64)
        c_t = np.empty(nv)
        c_nan = np.empty(nv, dtype=np.int64)
        c_score = np.empty(nv)
        c_nt = np.empty(nv, dtype=np.int64)
        # work rows are addressed from 0: shift the node's rows into work[0:m]
        seg = rows[s:e].copy()
        for q in range(nc):
            n_kids = 2 if cand_kind[q] == KIND_THRESHOLD else n_distinct[cand_f[q]]
            cand_score[q] = _lookahead_score(
                cand_f[q], cand_kind[q], cand_t[q], cand_nan[q], n_kids, nominal, n_distinct,
                uniq, uniq_off, used, vis, nv, seg, 0, e - s, Xc, R, n_node, C, min_split,
                min_leaf, max_depth_left, keys, keys2, hist, occ, dist_rank, dist_counts,
                nan_counts, left, right, work, bounds, ccounts, c_f, c_kind, c_t, c_nan,
                c_score, c_nt)
    e_min = np.inf
    for q in range(nc):
        if cand_score[q] < e_min:
            e_min = cand_score[q]
    ties_f = -1
    ties_t = -1
    first_best = -1
    for q in range(nc):
        if cand_score[q] == e_min or is_tie(cand_score[q], e_min):
            ties_f += 1
            ties_t += cand_nt[q]
            if first_best < 0:
                first_best = q
    pick = first_best
    if beta > 1.0:
        limit = beta * e_min
        tot = 0.0
        n_choice = 0
        for q in range(nc):
            if cand_score[q] <= limit or is_tie(cand_score[q], limit):
                tot += 1.0 / cand_score[q]
                n_choice += 1
        if n_choice > 1:
            u = rand_float(state) * tot
            acc = 0.0
            for q in range(nc):
                if cand_score[q] <= limit or is_tie(cand_score[q], limit):
                    acc += 1.0 / cand_score[q]
                    pick = q
                    if u < acc:
                        break
    return (True, cand_f[pick], cand_kind[pick], cand_t[pick], cand_nan[pick], ties_f, ties_t)


def beta_to_bits(beta: float) -> int:
    """beta as the int64 bit pattern carried in the growth kernel's integer parameters."""
    return int(np.array([beta], dtype=np.float64).view(np.int64)[0])


@njit(**NUMBA_FLAGS)
def beta_from_bits(bits):
    """Inverse of ``beta_to_bits`` inside a kernel."""
    a = np.empty(1, dtype=np.int64)
    a[0] = bits
    return a.view(np.float64)[0]
