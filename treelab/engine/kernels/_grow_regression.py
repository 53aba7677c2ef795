"""The regression counterpart of ``_grow.grow_tree``: one growth routine for every regression
tree on the spectrum.

A node is deterministic with probability ``alpha`` (drawn per node as ``grow_tree`` draws it,
from the tree's own generator), else random. A deterministic node takes, among up to
``max_features`` candidate features drawn without replacement, the split of largest weighted
squared-error reduction (CART's variance reduction, Breiman et al. 1984), or of largest half
Poisson deviance reduction (``poisson``), at exact thresholds (midpoints of consecutive distinct
values, or the upper edges of bins with ``max_bins``: ``_thresholds.split_threshold``, as the
classification search) or at one uniform random threshold per feature (Extra-Trees). A random
node uses the classification's random test-selection unchanged (``_select.random_select``: a
random feature and the random split law ``pair_midpoint``, ``pair_distinct`` or ``uniform``).

What it shares with ``grow_tree`` rather than copying: the generator (``_rng``), the rows and
features each tree sees (``_construction.draw_construction``: all rows, bootstrap, disjoint
parts, given multiplicities, random subspaces), the random split laws (``_select``,
``_thresholds``), the threshold conventions (``split_threshold``, ``rank_threshold``), the
partition of a node's rows (``_partition.partition_threshold``), the parameter layout
(``_params``) and the packed row entries (``_split.row_of``, ``wt_of``). Its own: the node
statistics, float64 weighted sums (w, w y) of each node's rows, and the split search over them.

Rows are packed as in ``grow_tree`` (row << 32 | multiplicity << 16 | code) with code 0: the
class code of a regression row means nothing, so PERT's rule (two rows of different classes)
is not offered for regression. A row's weight is its multiplicity times its sample weight;
rows of weight 0 are left out of the tree (as scikit-learn's trees leave them out), and node
sizes (``min_samples_split``, ``min_samples_leaf``) count rows with their multiplicity, not
their sample weight, as scikit-learn counts samples.

Nominal features and missing values are not grown here (the regressors refuse them before any
work).
"""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS
from treelab.engine.kernels._construction import draw_construction
from treelab.engine.kernels._params import (
    KIND_LEAF,
    KIND_THRESHOLD,
    P_BINNED,
    P_DET_THRESHOLD,
    P_MAX_DEPTH,
    P_MAX_FEATURES,
    P_MIN_LEAF,
    P_MIN_SPLIT,
    P_PRESORT,
    P_RANDOM_SPLIT,
)
from treelab.engine.kernels._partition import partition_threshold
from treelab.engine.kernels._presort import build_lists, partition_lists
from treelab.engine.kernels._rng import new_state, rand_float, rand_int
from treelab.engine.kernels._select import random_select
from treelab.engine.kernels._split import row_of, wt_of
from treelab.engine.kernels._thresholds import (
    min_max,
    rank_threshold,
    split_threshold,
    uniform_threshold,
)

# as grow_tree: presorted lists only for features with more distinct values (the others'
# nodes are summarised in a dense histogram over their few ranks)
LIST_MIN_DISTINCT = 256
# as grow_tree: a random node tries this many random tests before it becomes a leaf (a test
# whose children break min_samples_leaf is tried again)
RANDOM_ATTEMPTS = 10
# scikit-learn's EPSILON for the Poisson criterion: a child whose summed w y is at most this
# cannot be split off (its mean is 0, its deviance undefined)
POISSON_EPS = np.finfo(np.float64).eps
_LOW32 = np.int64(0xFFFFFFFF)


@njit(**NUMBA_FLAGS)
def split_score(sl, wl, sr, wr, poisson):
    """The proxy of a split's impurity reduction that the search maximises (the reduction less
    terms equal for every split of the node).

    Squared error: SL^2 / WL + SR^2 / WR, with S the summed w y and W the summed w of a child
    (the reduction of the weighted sum of squares is this less S^2 / W of the node). Poisson:
    SL log(SL / WL) + SR log(SR / WR), the reduction of the half Poisson deviance
    sum w (y log(y / mu) - y + mu) less the node's term; -inf where a child's S <= eps (its
    mean is 0), as scikit-learn's ``PoissonCriterion.proxy_impurity_improvement``.
    """
    if poisson:
        if sl <= POISSON_EPS or sr <= POISSON_EPS:
            return -np.inf
        return sl * np.log(sl / wl) + sr * np.log(sr / wr)
    return sl * sl / wl + sr * sr / wr


@njit(**NUMBA_FLAGS)
def best_exact_split(f, rows, s, e, R, nw, ny, nm, W, S, M, min_leaf, poisson, keys, hw, hs,
                     hm):
    """Best exact split of the node's rows ``rows[s:e]`` on continuous feature f.

    ``nw``, ``ny``, ``nm``: each node position's weight, target and multiplicity; ``W``, ``S``,
    ``M``: their sums (w, w y, multiplicity). Every boundary between two consecutive distinct
    ranks ``R[f, row]`` present at the node whose children keep ``min_leaf`` rows is scored
    (``split_score``); ties keep the lowest threshold. The node's rows are summarised per rank
    in the dense histograms ``hw``, ``hs``, ``hm`` when their ranks span at most 2 m + 16
    values (m the node's rows: bin codes, the top of the tree), else sorted by rank (``keys``),
    as the classification search chooses between the two. Returns (available, found, score,
    rank below, rank above): available when f takes two distinct values at the node.
    """
    m = e - s
    # the node's ranks gathered once (one pass of scattered reads), then read in place
    lo = np.int64(R[f, row_of(rows[s])])
    hi = lo
    for j in range(m):
        r = np.int64(R[f, row_of(rows[s + j])])
        keys[j] = r
        if r < lo:
            lo = r
        if r > hi:
            hi = r
    if lo == hi:
        return False, False, -np.inf, 0, 0
    best = -np.inf
    found = False
    r_lo = np.int64(0)
    r_hi = np.int64(0)
    wl = 0.0
    sl = 0.0
    ml = np.int64(0)
    span = hi - lo + 1
    if span <= 2 * m + 16:
        for k in range(span):
            hw[k] = 0.0
            hs[k] = 0.0
            hm[k] = 0
        for j in range(m):
            k = keys[j] - lo
            hw[k] += nw[j]
            hs[k] += nw[j] * ny[j]
            hm[k] += nm[j]
        prev = np.int64(-1)
        for k in range(span):
            if hm[k] == 0:
                continue
            if prev >= 0 and min_leaf <= ml <= M - min_leaf:
                score = split_score(sl, wl, S - sl, W - wl, poisson)
                if score > best:
                    best = score
                    found = True
                    r_lo = prev + lo
                    r_hi = k + lo
            wl += hw[k]
            sl += hs[k]
            ml += hm[k]
            prev = k
        return True, found, best, r_lo, r_hi
    for j in range(m):
        keys[j] = (keys[j] << 32) | np.int64(j)
    ks = keys[:m]
    ks.sort()
    for k in range(m - 1):
        j = ks[k] & _LOW32
        wl += nw[j]
        sl += nw[j] * ny[j]
        ml += nm[j]
        rk = ks[k] >> 32
        rk1 = ks[k + 1] >> 32
        if rk == rk1 or ml < min_leaf or M - ml < min_leaf:
            continue
        score = split_score(sl, wl, S - sl, W - wl, poisson)
        if score > best:
            best = score
            found = True
            r_lo = rk
            r_hi = rk1
    return True, found, best, r_lo, r_hi


@njit(**NUMBA_FLAGS)
def best_list_split(lists, q, s, e, wrow, y, mult, W, S, M, min_leaf, poisson):
    """``best_exact_split`` reading the node's segment ``[s, e)`` of presorted list q
    (``_presort``: entries rank << 32 | row, in increasing rank order), with each row's
    weight ``wrow``, target ``y`` and multiplicity ``mult``: no sort."""
    if (lists[q, s] >> 32) == (lists[q, e - 1] >> 32):
        return False, False, -np.inf, 0, 0
    best = -np.inf
    found = False
    r_lo = np.int64(0)
    r_hi = np.int64(0)
    wl = 0.0
    sl = 0.0
    ml = np.int64(0)
    for j in range(s, e - 1):
        entry = lists[q, j]
        row = entry & _LOW32
        wl += wrow[row]
        sl += wrow[row] * y[row]
        ml += mult[row]
        rk = entry >> 32
        rk1 = lists[q, j + 1] >> 32
        if rk == rk1 or ml < min_leaf or M - ml < min_leaf:
            continue
        score = split_score(sl, wl, S - sl, W - wl, poisson)
        if score > best:
            best = score
            found = True
            r_lo = rk
            r_hi = rk1
    return True, found, best, r_lo, r_hi


@njit(**NUMBA_FLAGS)
def score_value_threshold(f, t, rows, s, e, Xc, nw, ny, nm, W, S, M, min_leaf, poisson):
    """(found, score) of the split x_f <= t (Extra-Trees' random threshold): not found when a
    child would hold fewer than ``min_leaf`` rows."""
    wl = 0.0
    sl = 0.0
    ml = 0
    for j in range(e - s):
        if Xc[f, row_of(rows[s + j])] <= t:
            wl += nw[j]
            sl += nw[j] * ny[j]
            ml += nm[j]
    if ml < min_leaf or M - ml < min_leaf:
        return False, -np.inf
    return True, split_score(sl, wl, S - sl, W - wl, poisson)


@njit(**NUMBA_FLAGS)
def grow_regression_tree(Xc, R, order, n_distinct, uniq, uniq_off, nominal, y, sw, iparams,
                         alpha, seed, row_mode, part, tree_id, n_sub, poisson):
    """Grow one regression tree into flat node arrays.

    ``Xc`` (feature, row) float64 values (may be empty (d, 0) for trees of exact
    deterministic tests only), ``R`` (feature, row) int32 global ranks (or bin codes),
    ``n_distinct``, ``uniq``, ``uniq_off`` the features' distinct values (bin edges) as
    ``grow_tree`` reads them, ``y`` float64 targets, ``sw`` float64 non-negative sample
    weights, ``iparams`` the integer parameters (``_params.P_*``: min split, min leaf, max
    depth, max features, Extra-Trees thresholds, random rule, binned), ``alpha`` the chance
    of a deterministic node, ``poisson`` the Poisson criterion (else squared error).
    ``order`` (feature, row): each feature's rows in increasing rank order, or empty (d, 0):
    as in ``grow_tree``, trees of mostly deterministic nodes with exact thresholds then keep
    presorted lists (``_presort``), partitioned at every split, and their nodes of at least
    16 rows scan them instead of sorting (the same splits up to the order in which rows of
    one value are summed).

    Returns kind, feature, threshold, child_start, n_children, nan_child, random, depth
    (as ``grow_tree``), each node's weighted mean ``value`` = sum w y / sum w, summed weight
    ``weight`` and row count with multiplicity ``size``, then the tree's deterministic
    decision nodes and rows seen (with multiplicity).
    """
    d = nominal.shape[0]
    n = y.shape[0]
    state = new_state(seed)
    w, mask = draw_construction(n, d, row_mode, part, tree_id, n_sub, state)
    n_in = np.int64(0)
    rows_seen = np.int64(0)
    for i in range(n):
        if w[i] > 0xFFFF:
            raise ValueError("a row's multiplicity exceeds 65535")
        if w[i] > 0 and sw[i] > 0.0:
            n_in += 1
            rows_seen += w[i]
    buf = np.empty((2, max(n_in, 1)), dtype=np.int64)
    q = 0
    for i in range(n):
        if w[i] > 0 and sw[i] > 0.0:
            buf[0, q] = (np.int64(i) << 32) | (np.int64(w[i]) << 16)
            q += 1
    nv = 0
    for f in range(d):
        if mask[f]:
            nv += 1
    vis = np.empty(nv, dtype=np.int64)
    perm = np.empty(nv, dtype=np.int64)
    q = 0
    for f in range(d):
        if mask[f]:
            vis[q] = f
            perm[q] = f
            q += 1
    used = np.zeros(d, dtype=np.uint8)
    # each row's weight (multiplicity times sample weight) and multiplicity; rows of weight 0
    # have multiplicity 0 here, so the presorted lists leave them out
    wrow = np.zeros(n)
    mult = np.zeros(n, dtype=np.int32)
    for i in range(n):
        if w[i] > 0 and sw[i] > 0.0:
            mult[i] = w[i]
            wrow[i] = w[i] * sw[i]
    keys = np.empty(max(n_in, 1), dtype=np.int64)
    nw = np.empty(max(n_in, 1))
    ny = np.empty(max(n_in, 1))
    nm = np.empty(max(n_in, 1), dtype=np.int64)
    # the dense per-rank histograms span at most 2 m + 16 ranks (best_exact_split)
    n_hist = 2 * max(n_in, 1) + 16
    hw = np.empty(n_hist)
    hs = np.empty(n_hist)
    hm = np.empty(n_hist, dtype=np.int64)
    left_counts = np.zeros(1, dtype=np.int64)
    nan_part = np.zeros(1, dtype=np.int64)

    cap = 2 * n_in + 1
    kind = np.full(cap, KIND_LEAF, dtype=np.int8)
    feature = np.full(cap, -1, dtype=np.int32)
    threshold = np.full(cap, np.nan)
    child_start = np.zeros(cap, dtype=np.int32)
    n_children = np.zeros(cap, dtype=np.int32)
    nan_child = np.zeros(cap, dtype=np.int32)
    rnd = np.zeros(cap, dtype=np.int8)
    depth = np.zeros(cap, dtype=np.int32)
    value = np.full(cap, np.nan)
    weight = np.zeros(cap)
    size = np.zeros(cap, dtype=np.int64)
    start = np.zeros(cap, dtype=np.int64)
    end = np.zeros(cap, dtype=np.int64)
    nbuf_of = np.zeros(cap, dtype=np.int8)
    stack = np.empty(cap, dtype=np.int64)

    min_split = iparams[P_MIN_SPLIT]
    min_leaf = iparams[P_MIN_LEAF]
    max_depth = iparams[P_MAX_DEPTH]
    n_target = iparams[P_MAX_FEATURES]
    random_thr = iparams[P_DET_THRESHOLD] == 1
    binned = iparams[P_BINNED] != 0
    rule = iparams[P_RANDOM_SPLIT]
    sample = n_target < nv
    # presorted lists, on grow_tree's conditions (measured there: they pay off with at least
    # half of the features candidates and mostly deterministic nodes)
    slot_of = np.full(d, -1, dtype=np.int64)
    n_list = 0
    for q in range(nv):
        if n_distinct[vis[q]] > LIST_MIN_DISTINCT:
            n_list += 1
    presort = (iparams[P_PRESORT] >= 1 and alpha >= 0.5 and not random_thr and n_list > 0
               and 2 * n_target >= nv and order.shape[1] == n)
    sorted_min = 16
    if presort:
        slots = np.empty(n_list, dtype=np.int64)
        q2 = 0
        for q in range(nv):
            if n_distinct[vis[q]] > LIST_MIN_DISTINCT:
                slots[q2] = vis[q]
                slot_of[vis[q]] = q2
                q2 += 1
        lists = build_lists(order, R, mult, slots, n_in)
    else:
        lists = np.empty((0, 1), dtype=np.int64)
    child_of = np.zeros(n if presort else 1, dtype=np.int32)
    bucket = np.zeros(2, dtype=np.int64)
    fill = np.zeros(2, dtype=np.int64)
    scratch = np.empty(max(n_in, 1) if presort else 1, dtype=np.int64)

    end[0] = n_in
    n_nodes = 1
    sp = 0
    stack[0] = 0
    sp = 1
    n_decision = np.int64(0)
    while sp > 0:
        sp -= 1
        node = stack[sp]
        s = start[node]
        e = end[node]
        nbuf = nbuf_of[node]
        rows = buf[nbuf]
        # the node's statistics, and each position's weight, target and multiplicity
        W = 0.0
        S = 0.0
        M = np.int64(0)
        constant = True
        y0 = y[row_of(rows[s])] if e > s else 0.0
        for j in range(e - s):
            p = rows[s + j]
            r = row_of(p)
            mj = wt_of(p)
            wj = mj * sw[r]
            nw[j] = wj
            ny[j] = y[r]
            nm[j] = mj
            W += wj
            S += wj * y[r]
            M += mj
            if y[r] != y0:
                constant = False
        weight[node] = W
        size[node] = M
        value[node] = S / W if W > 0.0 else np.nan
        if M < min_split or depth[node] >= max_depth or constant or M < 2 * min_leaf:
            continue
        use_sorted = presort and e - s >= sorted_min
        det = alpha >= 1.0 or (alpha > 0.0 and rand_float(state) < alpha)
        attempts = 1 if det else RANDOM_ATTEMPTS
        split = False
        f = -1
        t = np.nan
        split_at = s
        for _ in range(attempts):
            if det:
                if sample:
                    for i in range(nv):
                        perm[i] = vis[i]
                best = -np.inf
                found = False
                n_avail = 0
                for i in range(nv):
                    if n_avail >= n_target:
                        break
                    if sample:
                        jj = i + rand_int(state, nv - i)
                        fc = perm[jj]
                        perm[jj] = perm[i]
                        perm[i] = fc
                    else:
                        fc = vis[i]
                    if random_thr:
                        lo, hi = min_max(fc, rows, s, e, Xc)
                        if not lo < hi:
                            continue
                        n_avail += 1
                        tc = uniform_threshold(lo, hi, state)
                        ok, score = score_value_threshold(fc, tc, rows, s, e, Xc, nw, ny, nm, W,
                                                          S, M, min_leaf, poisson)
                        if ok and score > best:
                            best = score
                            found = True
                            f = fc
                            t = tc
                    elif use_sorted and slot_of[fc] >= 0:
                        avail, ok, score, r_lo, r_hi = best_list_split(
                            lists, slot_of[fc], s, e, wrow, y, mult, W, S, M, min_leaf,
                            poisson)
                        if not avail:
                            continue
                        n_avail += 1
                        if ok and score > best:
                            best = score
                            found = True
                            f = fc
                            t = split_threshold(uniq, uniq_off[fc], r_lo, r_hi, binned)
                    else:
                        avail, ok, score, r_lo, r_hi = best_exact_split(
                            fc, rows, s, e, R, nw, ny, nm, W, S, M, min_leaf, poisson, keys, hw,
                            hs, hm)
                        if not avail:
                            continue
                        n_avail += 1
                        if ok and score > best:
                            best = score
                            found = True
                            f = fc
                            t = split_threshold(uniq, uniq_off[fc], r_lo, r_hi, binned)
                if not found:
                    break
            else:
                found, f, sk, t = random_select(rule, nominal, used, nv, perm, buf, nbuf, s, e,
                                                Xc, Xc, False, state, True)
                if not found or sk != KIND_THRESHOLD:
                    break
            if det and not random_thr:
                rt = rank_threshold(f, t, uniq, uniq_off)
                split_at = partition_threshold(f, rt, n_distinct[f], np.int64(0), buf, nbuf,
                                               s, e, R, R, False, left_counts, nan_part)
            else:
                split_at = partition_threshold(f, t, np.nan, np.int64(0), buf, nbuf, s, e, Xc,
                                               Xc, False, left_counts, nan_part)
            ml = left_counts[0]
            if ml < min_leaf or M - ml < min_leaf:
                continue
            split = True
            break
        if not split:
            continue
        if det:
            n_decision += 1
        if use_sorted:
            # the children's rows in every presorted list, as partition_threshold laid them out
            out = buf[1 - nbuf]
            for j in range(s, e):
                child_of[row_of(out[j])] = 0 if j < split_at else 1
            bucket[0] = s
            bucket[1] = split_at
            partition_lists(lists, s, e, child_of, bucket, 2, fill, scratch)
        a = n_nodes
        kind[node] = KIND_THRESHOLD
        feature[node] = f
        threshold[node] = t
        child_start[node] = a
        n_children[node] = 2
        # missing values at prediction go to the child with more rows, as in scikit-learn
        # for features without missing values in training
        nan_child[node] = 0 if 2 * left_counts[0] >= M else 1
        rnd[node] = 0 if det else 1
        start[a] = s
        end[a] = split_at
        start[a + 1] = split_at
        end[a + 1] = e
        for b in range(2):
            depth[a + b] = depth[node] + 1
            nbuf_of[a + b] = 1 - nbuf
        # the left child is grown first (depth first), as in grow_tree
        stack[sp] = a + 1
        stack[sp + 1] = a
        sp += 2
        n_nodes += 2
    return (kind[:n_nodes].copy(), feature[:n_nodes].copy(), threshold[:n_nodes].copy(),
            child_start[:n_nodes].copy(), n_children[:n_nodes].copy(),
            nan_child[:n_nodes].copy(), rnd[:n_nodes].copy(), depth[:n_nodes].copy(),
            value[:n_nodes].copy(), weight[:n_nodes].copy(), size[:n_nodes].copy(),
            n_decision, rows_seen)
