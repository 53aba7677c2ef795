"""Stochastic ID3 test-selection (Ali & Pazzani 1995; algorithms spec 2.7).

A mode of the one growth routine (``_grow.grow_tree`` with ``iparams[P_STOCHASTIC] > 0``, whose
value minus one is the reading's ``mode`` bits): at a deterministic node, instead of the C4.5/CART
choice, every available feature offers one candidate test, scored by the weighted entropy of its
branches

    E = sum_b (n_b / n) H(b),   H(b) = -sum_c p_bc log2 p_bc,

with p_bc = (n_bc + 1) / (n_b + C) (Laplace, every entropy) or p_bc = n_bc / n_b
(``MODE_LAPLACE_WEIGHTS``: the correction only in the draw weights 1 / E_L) (lower is better). A
continuous feature's candidate is its threshold of lowest E (midpoints of consecutive distinct
values, as in C4.5, where a continuous attribute is one test); a nominal feature not yet used on
the path offers its m-ary split. With ``lookahead=1`` each candidate (its threshold still chosen
by its own E) is re-scored by the weighted entropy after the best further split of each of its
children (a child that growth would not split, because it is pure, too small or has no candidate,
contributes its own H). The candidates with E <= beta * E_min (or, with ``MODE_GAIN``, with gain
H(node) - E >= best gain / beta) form the choice set and one is drawn with probability
proportional to 1 / E_L, E_L the Laplace-corrected entropy of the same test (E_L above 0 always).
With beta = 1 the choice set is the best candidate and its ties; the lowest feature index wins
(the single-model baseline), or with ``MODE_TIE_RANDOM`` one tied candidate drawn uniformly.
Ties of E_min are recorded as gain ties (analysis spec 5): per feature (tied candidates - 1) and
per test (every tied threshold of the tied candidates, minus 1).

Stochastic nodes are recorded as deterministic (``random`` = 0): every candidate is a
deterministic test, only the choice among them is drawn. Missing values: at a candidate test,
rows missing the feature join the branch holding the most non-missing rows (the first such
branch on equality); prediction sends them the same way.
"""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS
from treelab.engine.kernels._nominal import summarize_nominal
from treelab.engine.kernels._rng import rand_float, rand_int
from treelab.engine.kernels._split import cls_of, is_tie, row_of, summarize_continuous, wt_of
from treelab.engine.kernels._stochastic_modes import (
    MODE_BINNED,
    MODE_GAIN,
    MODE_LAPLACE_WEIGHTS,
    MODE_LOOKAHEAD,
    MODE_TIE_RANDOM,
)
from treelab.engine.kernels._thresholds import split_threshold

KIND_THRESHOLD = 1
KIND_NOMINAL = 2


@njit(**NUMBA_FLAGS)
def _xl(table, k):
    """k log2 k for an integer-valued k >= 1, from ``table`` when it reaches that far."""
    ki = np.int64(k)
    if ki < table.shape[0]:
        return table[ki]
    return k * np.log2(k)


@njit(**NUMBA_FLAGS)
def entropy_mass(cnt, nb, table, lap):
    """n_b * H(b), Laplace-corrected (``lap``, see ``laplace_mass``) or plain:
    n_b H = n_b log2 n_b - sum_c n_bc log2 n_bc (0 log 0 = 0)."""
    if lap:
        return laplace_mass(cnt, nb, table)
    if nb <= 0:
        return 0.0
    s = 0.0
    for c in range(cnt.shape[0]):
        if cnt[c] > 0:
            s += _xl(table, cnt[c])
    return max(_xl(table, nb) - s, 0.0)


@njit(**NUMBA_FLAGS)
def laplace_mass(cnt, nb, table):
    """n_b * H_L(b): the branch's size times its Laplace-corrected entropy (bits).

    With T = n_b + C: n_b H_L = (n_b / T) (T log2 T - sum_c (n_bc + 1) log2(n_bc + 1)), read
    from the x log2 x ``table`` of the growth routine (counts are integers).
    """
    if nb <= 0:
        return 0.0
    C = cnt.shape[0]
    tot = nb + C
    s = 0.0
    for c in range(C):
        s += _xl(table, cnt[c] + 1.0)
    return nb / tot * (_xl(table, tot) - s)


@njit(**NUMBA_FLAGS)
def _threshold_candidate(dist_counts, k, nan_counts, node_counts, n_node, min_leaf, left, right,
                         table, lap):
    """Best threshold of a continuous feature by weighted entropy (Laplace-corrected if ``lap``).

    Returns (score, Laplace score of that threshold, index i of the last distinct value going
    left, missing-go-left flag, number of thresholds tying the best); score is inf when no
    threshold leaves ``min_leaf`` rows on both sides.
    """
    C = dist_counts.shape[1]
    n_nan = 0.0
    for c in range(C):
        n_nan += nan_counts[c]
        left[c] = 0.0
    n_non = n_node - n_nan
    best = np.inf
    best_w = np.inf
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
        score = (entropy_mass(left, a, table, lap) + entropy_mass(right, b, table, lap)) / n_node
        if best_i >= 0 and is_tie(score, best):
            n_ties += 1
        elif score < best:
            best = score
            best_w = score if lap else (laplace_mass(left, a, table)
                                        + laplace_mass(right, b, table)) / n_node
            best_i = i
            best_nl = nan_left
            n_ties = 0
        if nan_left:
            for c in range(C):
                left[c] -= nan_counts[c]
    return best, best_w, best_i, best_nl, n_ties + 1


@njit(**NUMBA_FLAGS)
def _nominal_candidate(dist_counts, arity, nan_counts, n_node, min_leaf, tmp, table, lap):
    """Weighted entropy of the m-ary split (Laplace-corrected if ``lap``); returns (score,
    Laplace score, branch of missing rows)."""
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
        return np.inf, np.inf, 0
    mass = 0.0
    mass_w = 0.0
    for b in range(arity):
        nb = 0.0
        for c in range(C):
            tmp[c] = dist_counts[b, c] + (nan_counts[c] if b == big else 0.0)
            nb += tmp[c]
        if 0 < nb < min_leaf:
            return np.inf, np.inf, 0
        mass += entropy_mass(tmp, nb, table, lap)
        mass_w += laplace_mass(tmp, nb, table)
    return mass / n_node, mass_w / n_node, big


@njit(**NUMBA_FLAGS)
def _candidates(nominal, n_distinct, uniq, uniq_off, used, vis, nv, rows, s, e, Xc, R,
                node_counts, n_node, min_leaf, keys, keys2, hist, occ, dist_rank, dist_counts,
                nan_counts, left, right, cand_f, cand_kind, cand_t, cand_nan, cand_score,
                cand_w, cand_nt, skip_f, table, all_classes, lap, binned):
    """Every available feature's candidate test at rows[s:e]; returns their number.

    ``cand_score`` gets the selection score (Laplace-corrected if ``lap``), ``cand_w`` the
    Laplace-corrected score of the same test (for the 1 / E weights). ``all_classes``
    (0..C-1) keeps every class in its own column: the Laplace correction counts all C
    classes."""
    nc = 0
    for q in range(nv):
        f = vis[q]
        if f == skip_f:
            continue
        if nominal[f]:
            if used[f]:
                continue
            arity = n_distinct[f]
            summarize_nominal(f, arity, rows, s, e, Xc, dist_counts, nan_counts, all_classes)
            score, w, nb = _nominal_candidate(dist_counts, arity, nan_counts, n_node,
                                              min_leaf, left, table, lap)
            if score == np.inf:
                continue
            cand_kind[nc] = KIND_NOMINAL
            cand_t[nc] = np.nan
            cand_nan[nc] = nb
            cand_nt[nc] = 1
        else:
            # the general summary; a typed bool, not the literal True, for which numba would
            # compile it once more
            k = summarize_continuous(f, rows, s, e, R, n_distinct[f], keys, keys2, hist, occ,
                                     dist_rank, dist_counts, nan_counts, all_classes,
                                     np.bool_(True))
            if k < 2:
                continue
            score, w, bi, nan_left, nt = _threshold_candidate(dist_counts, k, nan_counts,
                                                              node_counts, n_node, min_leaf,
                                                              left, right, table, lap)
            if bi < 0:
                continue
            cand_kind[nc] = KIND_THRESHOLD
            cand_t[nc] = split_threshold(uniq, uniq_off[f], dist_rank[bi], dist_rank[bi + 1],
                                         binned)
            cand_nan[nc] = 0 if nan_left else 1
            cand_nt[nc] = nt
        cand_f[nc] = f
        cand_score[nc] = score
        cand_w[nc] = w
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
def _lookahead_scores(nc, cand_f, cand_kind, cand_t, cand_nan, nominal, n_distinct, used, vis,
                      nv, seg, Xc, R, n_node, C, min_split, min_leaf, max_depth_left, table,
                      cand_score, cand_w, lap):
    """Re-score every candidate by the weighted entropy after the best further split of each of
    its children (one-step lookahead), written into ``cand_score`` (Laplace-corrected if
    ``lap``; the children's splits are chosen by that score) and ``cand_w`` (the
    Laplace-corrected entropy of the same grandchildren, for the 1 / E weights).

    The node's rows ``seg`` are sorted once per continuous feature (by global rank); for each
    candidate one pass over every feature's sorted rows scores the thresholds of all children
    at once (the scores of ``_candidates`` at each child, without sorting per child).
    """
    m = seg.shape[0]
    n_cont = 0
    max_kids = 2
    for q in range(nv):
        g = vis[q]
        if nominal[g]:
            if n_distinct[g] > max_kids:
                max_kids = n_distinct[g]
        else:
            n_cont += 1
    ordg = np.empty((max(n_cont, 1), max(m, 1)), dtype=np.int64)
    rankg = np.empty((max(n_cont, 1), max(m, 1)), dtype=np.int64)
    n_present = np.zeros(max(n_cont, 1), dtype=np.int64)
    keys = np.empty(max(m, 1), dtype=np.int64)
    gi = 0
    for q in range(nv):
        g = vis[q]
        if nominal[g]:
            continue
        for j in range(m):
            keys[j] = (np.int64(R[g, row_of(seg[j])]) << 32) | np.int64(j)
        keys[:m].sort()
        k = 0
        for p in range(m):
            r = keys[p] >> 32
            ordg[gi, p] = keys[p] & 0xFFFFFFFF
            rankg[gi, p] = r
            if r != n_distinct[g]:
                k += 1
        n_present[gi] = k
        gi += 1
    ch = np.empty(max(m, 1), dtype=np.int64)
    cc = np.zeros((max_kids, C))
    nb = np.zeros(max_kids)
    splitting = np.zeros(max_kids, dtype=np.uint8)
    best = np.zeros(max_kids)
    best_w = np.zeros(max_kids)
    L = np.zeros((max_kids, C))
    nl = np.zeros(max_kids)
    lastr = np.zeros(max_kids, dtype=np.int64)
    nanc = np.zeros((max_kids, C))
    nan_n = np.zeros(max_kids)
    dist = np.zeros((max_kids, max_kids, C))
    left = np.zeros(C)
    right = np.zeros(C)
    for q in range(nc):
        f = cand_f[q]
        kind = cand_kind[q]
        n_kids = 2 if kind == KIND_THRESHOLD else n_distinct[f]
        cc[:n_kids] = 0.0
        nb[:n_kids] = 0.0
        for j in range(m):
            p = seg[j]
            b = _child_of(p, f, kind, cand_t[q], cand_nan[q], Xc)
            ch[j] = b
            cc[b, cls_of(p)] += wt_of(p)
            nb[b] += wt_of(p)
        for b in range(n_kids):
            present = 0
            for c in range(C):
                if cc[b, c] > 0:
                    present += 1
            splitting[b] = present > 1 and nb[b] >= min_split and max_depth_left > 1
            best[b] = np.inf
            best_w[b] = np.inf
        if kind == KIND_NOMINAL:
            used[f] = 1
        gi = 0
        for qq in range(nv):
            g = vis[qq]
            if nominal[g]:
                if used[g]:
                    continue
                arity = n_distinct[g]
                dist[:n_kids, :arity] = 0.0
                nanc[:n_kids] = 0.0
                for j in range(m):
                    b = ch[j]
                    if not splitting[b]:
                        continue
                    p = seg[j]
                    v = Xc[g, row_of(p)]
                    if np.isnan(v):
                        nanc[b, cls_of(p)] += wt_of(p)
                    else:
                        dist[b, np.int64(v), cls_of(p)] += wt_of(p)
                for b in range(n_kids):
                    if splitting[b]:
                        score, w, _ = _nominal_candidate(dist[b], arity, nanc[b], nb[b],
                                                         min_leaf, left, table, lap)
                        if score < best[b]:
                            best[b] = score
                            best_w[b] = w
                continue
            nanc[:n_kids] = 0.0
            nan_n[:n_kids] = 0.0
            for p in range(n_present[gi], m):
                j = ordg[gi, p]
                b = ch[j]
                nanc[b, cls_of(seg[j])] += wt_of(seg[j])
                nan_n[b] += wt_of(seg[j])
            L[:n_kids] = 0.0
            nl[:n_kids] = 0.0
            lastr[:n_kids] = -1
            for p in range(n_present[gi]):
                j = ordg[gi, p]
                b = ch[j]
                if not splitting[b]:
                    continue
                r = rankg[gi, p]
                if lastr[b] >= 0 and r != lastr[b]:
                    nr = nb[b] - nan_n[b] - nl[b]
                    nan_left = nl[b] >= nr
                    a = nl[b] + nan_n[b] if nan_left else nl[b]
                    bb = nb[b] - a
                    if a >= min_leaf and bb >= min_leaf:
                        for c in range(C):
                            left[c] = L[b, c] + (nanc[b, c] if nan_left else 0.0)
                            right[c] = cc[b, c] - left[c]
                        score = (entropy_mass(left, a, table, lap)
                                 + entropy_mass(right, bb, table, lap)) / nb[b]
                        if score < best[b]:
                            best[b] = score
                            best_w[b] = score if lap else (
                                laplace_mass(left, a, table)
                                + laplace_mass(right, bb, table)) / nb[b]
                L[b, cls_of(seg[j])] += wt_of(seg[j])
                nl[b] += wt_of(seg[j])
                lastr[b] = r
            gi += 1
        if kind == KIND_NOMINAL:
            used[f] = 0
        total = 0.0
        total_w = 0.0
        for b in range(n_kids):
            if nb[b] == 0:
                continue
            if splitting[b] and best[b] < np.inf:
                total += best[b] * nb[b] / n_node
                total_w += best_w[b] * nb[b] / n_node
            else:
                total += entropy_mass(cc[b], nb[b], table, lap) / n_node
                total_w += laplace_mass(cc[b], nb[b], table) / n_node
        cand_score[q] = total
        cand_w[q] = total_w


@njit(**NUMBA_FLAGS)
def _in_choice(q, cand_score, gain_mode, h_node, limit):
    if gain_mode:
        g = h_node - cand_score[q]
        return g >= limit or is_tie(g, limit)
    return cand_score[q] <= limit or is_tie(cand_score[q], limit)


@njit(**NUMBA_FLAGS)
def stochastic_select(beta, mode, min_split, min_leaf, max_depth_left, nominal, n_distinct,
                      uniq, uniq_off, used, vis, nv, rows, s, e, Xc, R, node_counts, n_node,
                      state, keys, keys2, hist, occ, dist_rank, dist_counts, nan_counts, table,
                      all_classes):
    """Stochastic ID3 choice at rows[s:e] (see the module docstring).

    ``mode`` holds the reading: ``MODE_LOOKAHEAD`` (one-step lookahead), ``MODE_GAIN`` (choice
    set gain >= best gain / beta, else entropy <= beta * E_min), ``MODE_LAPLACE_WEIGHTS``
    (plain entropies in the scores, the Laplace correction only in the 1 / E weights, else
    Laplace everywhere). ``max_depth_left`` is the depth limit minus the node's depth
    (lookahead only scores grandchildren that growth could create); ``table`` is the growth
    routine's x log2 x table. Returns (found, feature, kind, threshold, nan_child, feature
    ties, test ties), the contract of the deterministic selection.
    """
    C = node_counts.shape[0]
    lap = (mode & MODE_LAPLACE_WEIGHTS) == 0
    gain_mode = (mode & MODE_GAIN) != 0
    left = np.zeros(max(C, 1))
    right = np.zeros(max(C, 1))
    cand_f = np.empty(nv, dtype=np.int64)
    cand_kind = np.empty(nv, dtype=np.int64)
    cand_t = np.empty(nv)
    cand_nan = np.empty(nv, dtype=np.int64)
    cand_score = np.empty(nv)
    cand_w = np.empty(nv)
    cand_nt = np.empty(nv, dtype=np.int64)
    nc = _candidates(nominal, n_distinct, uniq, uniq_off, used, vis, nv, rows, s, e, Xc, R,
                     node_counts, n_node, min_leaf, keys, keys2, hist, occ, dist_rank,
                     dist_counts, nan_counts, left, right, cand_f, cand_kind, cand_t, cand_nan,
                     cand_score, cand_w, cand_nt, -1, table, all_classes, lap,
                     (mode & MODE_BINNED) != 0)
    if nc == 0:
        return False, -1, 0, np.nan, 0, 0, 0
    if (mode & MODE_LOOKAHEAD) != 0:
        _lookahead_scores(nc, cand_f, cand_kind, cand_t, cand_nan, nominal, n_distinct, used,
                          vis, nv, rows[s:e], Xc, R, n_node, C, min_split, min_leaf,
                          max_depth_left, table, cand_score, cand_w, lap)
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
    h_node = entropy_mass(node_counts, n_node, table, lap) / n_node
    if gain_mode:
        # gain = H(node) - E; with no positive gain only the best candidate and its ties remain
        g_max = h_node - e_min
        limit = g_max / beta if g_max > 0.0 else g_max
    else:
        limit = beta * e_min
    if beta > 1.0:
        tot = 0.0
        n_choice = 0
        for q in range(nc):
            if _in_choice(q, cand_score, gain_mode, h_node, limit):
                tot += 1.0 / cand_w[q]
                n_choice += 1
        if n_choice > 1:
            u = rand_float(state) * tot
            acc = 0.0
            for q in range(nc):
                if _in_choice(q, cand_score, gain_mode, h_node, limit):
                    acc += 1.0 / cand_w[q]
                    pick = q
                    if u < acc:
                        break
    elif ties_f > 0 and (mode & MODE_TIE_RANDOM) != 0:
        # the study's single model "must arbitrarily choose from among the set of tied
        # candidates": one of the ties_f + 1 tied candidates, uniformly
        k = rand_int(state, ties_f + 1)
        for q in range(nc):
            if cand_score[q] == e_min or is_tie(cand_score[q], e_min):
                if k == 0:
                    pick = q
                    break
                k -= 1
    return (True, cand_f[pick], cand_kind[pick], cand_t[pick], cand_nan[pick], ties_f, ties_t)
