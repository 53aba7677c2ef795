"""The regression counterpart of ``_grow.grow_tree``: one growth routine for every regression
tree on the spectrum.

A node is deterministic with probability ``alpha`` (drawn per node as ``grow_tree`` draws it,
from the tree's own generator), else random. A deterministic node takes, among up to
``max_features`` candidate features drawn without replacement, the split of largest weighted
squared-error reduction (CART's variance reduction, Breiman et al. 1984), or of largest half
Poisson deviance reduction (``poisson``), at exact thresholds (midpoints of consecutive distinct
values, or the upper edges of bins with ``max_bins``: ``_thresholds.split_threshold``, as the
classification search) or at one uniform random threshold per feature (Extra-Trees); a nominal
candidate is split multiway, one child per code, as the classifiers' nominal tests. A random
node uses the classification's random test-selection unchanged (``_select.random_select``: a
random feature and the random split law ``pair_midpoint``, ``pair_distinct`` or ``uniform``,
or a nominal feature's multiway split).

Missing values (NaN): a deterministic threshold sends the node's missing rows to the side the
criterion prefers, or splits them off from the non-missing rows (threshold +inf), as
scikit-learn's trees (``_regression_split``); a deterministic nominal split puts them in the
child where they score best. A random node sends them to its larger child (rows counted with
their multiplicity), as ``grow_tree``'s random nodes. Where a node had no missing rows of its
feature, missing values at prediction follow its larger child. A nominal child that no row
reaches (a code absent at the node) predicts its parent's mean.

What it shares with ``grow_tree`` rather than copying: the generator (``_rng``), the rows and
features each tree sees (``_construction.draw_construction``: all rows, bootstrap, disjoint
parts, given multiplicities, random subspaces), the random split laws (``_select``,
``_thresholds``), the threshold conventions (``split_threshold``, ``rank_threshold``), the
partitions of a node's rows (``_partition.partition_threshold``, ``partition_nominal``), the
parameter layout (``_params``) and the packed row entries (``_split.row_of``, ``wt_of``). Its
own: the node statistics, float64 weighted sums (w, w y) of each node's rows, and the split
search over them (``_regression_split``).

Rows are packed as in ``grow_tree`` (row << 32 | multiplicity << 16 | code) with code 0: the
class code of a regression row means nothing, so PERT's rule (two rows of different classes)
is not offered for regression. A row's weight is its multiplicity times its sample weight;
rows of weight 0 are left out of the tree (as scikit-learn's trees leave them out), and node
sizes (``min_samples_split``, ``min_samples_leaf``) count rows with their multiplicity, not
their sample weight, as scikit-learn counts samples.

(numba's cache of ``grow_regression_tree`` does not see edits of the kernels it calls: edit
this file too when ``_regression_split.py`` changes. Last: the scans' best-threshold update
in one helper, ``_keep_best``.)
"""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS
from treelab.engine.kernels._construction import draw_construction
from treelab.engine.kernels._nodes import enlarge
from treelab.engine.kernels._params import (
    KIND_LEAF,
    KIND_NOMINAL,
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
from treelab.engine.kernels._partition import partition_nominal, partition_threshold
from treelab.engine.kernels._presort import build_lists, partition_lists
from treelab.engine.kernels._regression_node import node_statistics, regression_select
from treelab.engine.kernels._regression_split import (
    NAN_APART,
    NAN_LEFT,
    largest_code,
    summarize_codes,
)
from treelab.engine.kernels._rng import new_state, rand_float
from treelab.engine.kernels._select import random_select
from treelab.engine.kernels._split import row_of
from treelab.engine.kernels._thresholds import (
    rank_threshold,
)

# as grow_tree: presorted lists only for features with more distinct values (the others'
# nodes are summarised in a dense histogram over their few ranks)
LIST_MIN_DISTINCT = 256
# as grow_tree: a random node tries this many random tests before it becomes a leaf (a test
# whose children break min_samples_leaf is tried again)
RANDOM_ATTEMPTS = 10


@njit(**NUMBA_FLAGS)
def grow_regression_tree(Xc, R, order, n_distinct, uniq, uniq_off, nominal, y, sw, iparams,
                         alpha, seed, row_mode, part, tree_id, n_sub, poisson, multiway=None):
    """Grow one regression tree into flat node arrays.

    ``Xc`` (feature, row) float64 values (nominal features hold codes 0..m-1, missing = NaN;
    may be empty (d, 0) for trees of exact deterministic tests on continuous features), ``R``
    (feature, row) int32 global ranks (or bin codes; missing = ``n_distinct``),
    ``n_distinct``, ``uniq``, ``uniq_off`` the features' distinct values (bin edges; a nominal
    feature's arity) as ``grow_tree`` reads them, ``nominal`` the nominal features, ``y``
    float64 targets, ``sw`` float64 non-negative sample weights, ``iparams`` the integer
    parameters (``_params.P_*``: min split, min leaf, max depth, max features, Extra-Trees
    thresholds, random rule, binned), ``alpha`` the chance of a deterministic node,
    ``poisson`` the Poisson criterion (else squared error).
    ``order`` (feature, row): each feature's rows in increasing rank order, or empty (d, 0):
    as in ``grow_tree``, trees of mostly deterministic nodes with exact thresholds then keep
    presorted lists (``_presort``), partitioned at every split, and their nodes of at least
    16 rows scan them instead of sorting (the same splits up to the order in which rows of
    one value are summed).

    Returns kind, feature, threshold, child_start, n_children, nan_child, random, depth
    (as ``grow_tree``), each node's weighted mean ``value`` = sum w y / sum w, summed weight
    ``weight`` and row count with multiplicity ``size``, then the tree's deterministic
    decision nodes and rows seen (with multiplicity).

    ``multiway``: ``True`` where some feature is nominal, else ``None``: numba then drops the
    nominal splits and the growth of the node tables before type inference, as ``grow_tree``
    drops what a version does not need (about 5 CPU-s of a first regression fit).
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
    max_arity = np.int64(2)
    for f in range(d):
        if nominal[f] and n_distinct[f] > max_arity:
            max_arity = n_distinct[f]
        if nominal[f] and multiway is None:
            raise ValueError("nominal features need grow_regression_tree(..., multiway=True)")
    # random_select skips nominal features marked here; none is marked: a nominal split
    # leaves each child one code of its feature (and missing rows), which no split divides
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
    # the dense per-rank histograms span at most 2 m + 16 ranks (best_exact_split); the
    # per-code sums of a nominal feature take its arity
    n_hist = max(2 * max(n_in, 1) + 16, max_arity)
    hw = np.empty(n_hist)
    hs = np.empty(n_hist)
    hm = np.empty(n_hist, dtype=np.int64)
    left_counts = np.zeros(1, dtype=np.int64)
    nan_part = np.zeros(1, dtype=np.int64)

    # binary splits alone need at most 2 n_in - 1 nodes; multiway splits may need more (the
    # tables grow, below)
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
    # presorted lists, on grow_tree's conditions (measured there: they pay off with at least
    # half of the features candidates and mostly deterministic nodes)
    slot_of = np.full(d, -1, dtype=np.int64)
    n_list = 0
    for q in range(nv):
        if not nominal[vis[q]] and n_distinct[vis[q]] > LIST_MIN_DISTINCT:
            n_list += 1
    presort = (iparams[P_PRESORT] >= 1 and alpha >= 0.5 and not random_thr and n_list > 0
               and 2 * n_target >= nv and order.shape[1] == n)
    sorted_min = 16
    if presort:
        slots = np.empty(n_list, dtype=np.int64)
        q2 = 0
        for q in range(nv):
            if not nominal[vis[q]] and n_distinct[vis[q]] > LIST_MIN_DISTINCT:
                slots[q2] = vis[q]
                slot_of[vis[q]] = q2
                q2 += 1
        lists = build_lists(order, R, mult, slots, n_in)
    else:
        lists = np.empty((0, 1), dtype=np.int64)
    child_of = np.zeros(n if presort else 1, dtype=np.int32)
    bucket = np.zeros(max_arity + 1, dtype=np.int64)
    fill = np.zeros(max_arity + 1, dtype=np.int64)
    scratch = np.empty(max(n_in, 1) if presort else 1, dtype=np.int64)

    end[0] = n_in
    n_nodes = 1
    sp = 0
    stack[0] = 0
    sp = 1
    n_decision = np.int64(0)
    while sp > 0:
        if multiway is not None and n_nodes + max_arity > cap:
            cap = max(2 * cap, n_nodes + max_arity)
            kind = enlarge(kind, cap, np.int8(KIND_LEAF))
            feature = enlarge(feature, cap, np.int32(-1))
            threshold = enlarge(threshold, cap, np.nan)
            child_start = enlarge(child_start, cap, np.int32(0))
            n_children = enlarge(n_children, cap, np.int32(0))
            nan_child = enlarge(nan_child, cap, np.int32(0))
            rnd = enlarge(rnd, cap, np.int8(0))
            depth = enlarge(depth, cap, np.int32(0))
            value = enlarge(value, cap, np.nan)
            weight = enlarge(weight, cap, 0.0)
            size = enlarge(size, cap, np.int64(0))
            start = enlarge(start, cap, np.int64(0))
            end = enlarge(end, cap, np.int64(0))
            nbuf_of = enlarge(nbuf_of, cap, np.int8(0))
            stack = enlarge(stack, cap, np.int64(0))
        sp -= 1
        node = stack[sp]
        s = start[node]
        e = end[node]
        nbuf = nbuf_of[node]
        rows = buf[nbuf]
        # the node's statistics, and each position's weight, target and multiplicity
        W, S, M, constant = node_statistics(rows, s, e, y, sw, nw, ny, nm)
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
        sk = KIND_THRESHOLD
        t = np.nan
        nan_mode = 0
        nanc = 0
        n_kids = 2
        for _ in range(attempts):
            if det:
                found, f, sk, t, nanc = regression_select(
                    nominal, n_distinct, uniq, uniq_off, vis, nv, perm, n_target, random_thr,
                    binned, rows, s, e, Xc, R, sw, y, nw, ny, nm, W, S, M, min_leaf, poisson,
                    keys, hw, hs, hm, use_sorted, lists, slot_of, wrow, mult, state, multiway)
                nan_mode = NAN_LEFT if nanc == 0 else 0
                if sk == KIND_THRESHOLD and t == np.inf:
                    nan_mode = NAN_APART
                if not found:
                    break
            else:
                found, f, sk, t = random_select(rule, nominal, used, nv, perm, buf, nbuf, s, e,
                                                Xc, Xc, False, state, True)
                if not found:
                    break
            if multiway is not None and sk == KIND_NOMINAL:
                arity = n_distinct[f]
                if not det:
                    # missing rows join the child with the most rows, as in grow_tree
                    Wn, Sn, Mn, present = summarize_codes(f, arity, rows, s, e, Xc, sw, y, hw,
                                                          hs, hm)
                    nanc = largest_code(arity, hm)
                    ok = True
                    for b in range(arity):
                        mb = hm[b] + (Mn if b == nanc else 0)
                        if 0 < mb < min_leaf:
                            ok = False
                    if not ok:
                        continue
                partition_nominal(f, arity, nanc, buf, nbuf, s, e, Xc, Xc, False, bucket)
                n_kids = arity
                split = True
                break
            if det and not random_thr:
                # (NAN_APART: every non-missing rank goes left, the missing rows right)
                rt = rank_threshold(f, t, uniq, uniq_off) if nan_mode != NAN_APART else (
                    n_distinct[f] - 1)
                split_at = partition_threshold(f, rt, n_distinct[f],
                                               np.int64(1 if nan_mode == NAN_LEFT else 0), buf,
                                               nbuf, s, e, R, R, False, left_counts, nan_part)
            else:
                split_at = partition_threshold(f, t, np.nan,
                                               np.int64(1 if nan_mode == NAN_LEFT else 0), buf,
                                               nbuf, s, e, Xc, Xc, False, left_counts, nan_part)
            ml = left_counts[0]
            nn = nan_part[0]
            if det:
                nanc = 0 if nan_mode == NAN_LEFT else 1
            else:
                # random splits send missing rows to the larger child, as in grow_tree
                nanc = 0 if ml >= M - ml - nn else 1
                if nanc == 0 and nn > 0:
                    split_at = partition_threshold(f, t, np.nan, np.int64(1), buf, nbuf, s, e,
                                                   Xc, Xc, False, left_counts, nan_part)
            if nanc == 0:
                ml += nn
            if ml < min_leaf or M - ml < min_leaf:
                continue
            if nn == 0:
                # missing values at prediction go to the child with more rows, as in
                # scikit-learn for features without missing values in training
                nanc = 0 if 2 * ml >= M else 1
            bucket[0] = s
            bucket[1] = split_at
            bucket[2] = e
            n_kids = 2
            split = True
            break
        if not split:
            continue
        if det:
            n_decision += 1
        if use_sorted:
            # the children's rows in every presorted list, as the partition laid them out
            out = buf[1 - nbuf]
            for b in range(n_kids):
                for j in range(bucket[b], bucket[b + 1]):
                    child_of[row_of(out[j])] = b
            partition_lists(lists, s, e, child_of, bucket, n_kids, fill, scratch)
        a = n_nodes
        kind[node] = sk
        feature[node] = f
        threshold[node] = t
        child_start[node] = a
        n_children[node] = n_kids
        nan_child[node] = nanc
        rnd[node] = 0 if det else 1
        for b in range(n_kids):
            start[a + b] = bucket[b]
            end[a + b] = bucket[b + 1]
            depth[a + b] = depth[node] + 1
            nbuf_of[a + b] = 1 - nbuf
            # a child no row reaches (a nominal code absent here) predicts its parent's mean
            value[a + b] = value[node]
        # the first child is grown first (depth first), as in grow_tree
        for b in range(n_kids - 1, -1, -1):
            if end[a + b] > start[a + b]:
                stack[sp] = a + b
                sp += 1
        n_nodes += n_kids
    return (kind[:n_nodes].copy(), feature[:n_nodes].copy(), threshold[:n_nodes].copy(),
            child_start[:n_nodes].copy(), n_children[:n_nodes].copy(),
            nan_child[:n_nodes].copy(), rnd[:n_nodes].copy(), depth[:n_nodes].copy(),
            value[:n_nodes].copy(), weight[:n_nodes].copy(), size[:n_nodes].copy(),
            n_decision, rows_seen)
