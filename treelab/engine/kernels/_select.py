"""Test-selection at one node: the deterministic choice (C4.5/ID3/CART criteria over
``max_features`` candidates, exact or Extra-Trees thresholds) and the random one (``pair_midpoint``,
``uniform`` or ``pert``). ``_grow.grow_tree`` calls one or the other at every node."""

import numpy as np

from treelab.engine.kernels._binned import GATHER_ROWS, binned_candidate, gather_codes
from treelab.engine.kernels._config import inner
from treelab.engine.kernels._criteria import GAIN_RATIO, GINI, parent_mass
from treelab.engine.kernels._nominal import eval_nominal, summarize_nominal
from treelab.engine.kernels._params import (
    KIND_LEAF,
    KIND_NOMINAL,
    KIND_THRESHOLD,
    P_BINNED,
    P_C45,
    P_COUNT_SHIFT,
    P_CRITERION,
    P_DET_THRESHOLD,
    P_MAX_FEATURES,
    P_MIN_LEAF,
    P_MIN_OBJS,
    RS_PAIR,
    RS_PAIR_DISTINCT,
    RS_PERT,
)
from treelab.engine.kernels._presort import summarize_sorted
from treelab.engine.kernels._rng import rand_int
from treelab.engine.kernels._scan import (
    scan_histogram_few,
    scan_histogram_many,
    scan_sorted_few,
    scan_sorted_many,
)
from treelab.engine.kernels._split import (
    class_map,
    cls_of,
    continuous_counts,
    continuous_pass,
    count_threshold,
    is_tie,
    row_of,
    scan_thresholds,
    summarize_continuous,
)
from treelab.engine.kernels._thresholds import (
    continuous_available,
    min_max,
    pair_distinct_midpoint,
    pair_midpoint,
    split_threshold,
    uniform_threshold,
)

GAIN_EPS = 1e-12
# what the lean version of the growth routine (``general`` None) says where it meets a test it
# was compiled without; engine.forest.lean_suffices keeps it from being asked
LEAN_REFUSES = ("the lean growth routine has no nominal tests, presorted lists, Extra-Trees "
                "thresholds or random rules other than pair_midpoint: call it with general=True")
PERT_ATTEMPTS = 10


@inner
def _score(criterion, gain, split_info, avg_gain):
    """A candidate's score: its gain, or for gain ratio gain / split info, NaN when its gain is
    below the candidates' average (C4.5 considers only those at least average)."""
    if criterion == GAIN_RATIO:
        if gain < avg_gain and not is_tie(gain, avg_gain):
            return np.nan
        return gain / split_info
    return gain


@inner(_nrt=False)
def deterministic_select(iparams, nominal, n_distinct, uniq, uniq_off, used, vis, nv, perm,
                         buf, nbuf, s, e, Xg, Rg, Xl, Rl, loc, node_counts, n_node, table, state,
                         keys, keys2, hist, occ, dist_rank, dist_counts, nan_counts, bufs,
                         icounts, cand_f, cand_g, cand_si, cand_t, cand_nan, cand_kind, cand_nt,
                         use_sorted, lists, slot_of, yw, cmap, present, bhist, bocc, blst, general,
                         Rt, bg, brows):
    """C4.5/ID3/CART-style choice among up to ``max_features`` available features.

    Returns (found, feature, kind, threshold, nan_child, feature ties, test ties). Candidates
    are counted and scored over the classes present at the node only (``class_map``).
    Binned features (``iparams[P_BINNED]``) are searched by ``_binned.binned_candidate`` in
    the class-major integer histogram ``bhist`` (``bocc``, ``blst``: its occupied bins), with
    the same result as the general search; ``bhist`` is ``None`` in the versions of the
    growth routine compiled without that search (numba drops it then). ``general``: ``None``
    for the lean version (``_grow.grow_tree``), which has no nominal tests, Extra-Trees
    thresholds or presorted lists.

    ``Rt``: the bin codes (row, feature) as bytes, or empty (``engine.features.row_major_codes``);
    at a node holding under 1/``GATHER_ROWS`` of its rows the first candidates are drawn
    together and their codes gathered from it into ``bg`` (``brows``: the node's entries
    renumbered), ``_binned.gather_codes``: the same draws and the same counts.

    The per-candidate summaries and threshold scans (``_split.continuous_pass``,
    ``summarize_continuous``, ``scan_thresholds``, ``_scan.scan_sorted_few``, ...) are kernels
    it calls, compiled without reference counts as it is (``_nrt=False``): a call passes its
    arrays for nothing. They were inlined (numba's ``inline="always"``) while their arrays'
    counts cost about 15% of a bagged VR-Trees fit on small data sets; inlined, numba typed
    and lowered each again at every call site, about 2 CPU-s of a first fit, against 0.5-1%
    of the fits (benchmarks/README.md, "Issue 28, item 4: the seventh round").

    Compiled without numba's reference counting (``_nrt=False``), like the other kernels that
    run at every node (``random_select``, ``_split.partition_threshold``, ...): the caller
    holds every array for the whole call, so counting them (about 40 arguments, and the
    arguments of every inlined helper again per candidate) was pure cost, 12% of a fit
    (benchmarks/README.md, "Item 3, second round"). Such a kernel must neither allocate nor
    return an array; numba compiles the functions it calls with its flags unless they say
    ``_nrt=True`` (``_sort.sort_head``, ``_split.radix_sort_high``), and an allocation
    without the runtime fails to compile rather than run wrong.

    The node's rows are ``buf[nbuf][s:e]``, and it reads the localized blocks ``Xl``, ``Rl``
    when ``loc``, else the global ``Xg``, ``Rg``: views made by the growth routine would each
    raise and lower a reference count at every split node (``_partition.partition_threshold``).
    """
    rows = buf[nbuf]
    Xc = Xl if loc else Xg
    R = Rl if loc else Rg
    criterion = iparams[P_CRITERION]
    c45 = iparams[P_C45] != 0
    min_leaf = iparams[P_MIN_LEAF]
    min_objs = iparams[P_MIN_OBJS] if c45 else 1
    min_side = max(min_leaf, min_objs)
    n_target = iparams[P_MAX_FEATURES]
    random_thr = iparams[P_DET_THRESHOLD] == 1
    binned = iparams[P_BINNED] != 0
    sample = n_target < nv
    if sample:
        for i in range(nv):
            perm[i] = vis[i]
    # class-count buffers are exactly C long (the criteria sum over their whole length); only
    # the nominal branch sizes need the widest arity
    C = class_map(node_counts, cmap, present)
    node_counts = present[:C]
    n_rows = dist_counts.shape[0]
    dist_counts = dist_counts.reshape(n_rows * dist_counts.shape[1])[: n_rows * C].reshape(
        (n_rows, C))
    nan_counts = nan_counts[:C]
    pmass = parent_mass(criterion, node_counts, n_node, table)
    # two or three classes under an entropy criterion: continuous candidates without missing
    # rows are summarised and scanned in one pass (_scan)
    few = 2 <= C <= 3 and criterion != GINI
    # four or more: fused too, each class's entropy term kept between thresholds (_scan)
    fuse = C >= 2 and criterion != GINI
    left = bufs[0, :C]
    left_n = bufs[1, :C]
    right_n = bufs[2, :C]
    branch_n = bufs[1]
    n_avail = 0
    nc = 0
    # candidates drawn ahead, their codes gathered (bg, brows)
    n_gather = 0
    if bhist is not None:
        m = e - s
        if (binned and not random_thr and not use_sorted and m <= bg.shape[1]
                and m * GATHER_ROWS < Rt.shape[0]):
            n_gather = min(n_target, nv, bg.shape[0])
            gather_codes(n_gather, sample, nv, vis, perm, state, rows, s, e, Rt, bg, brows)
    for i in range(nv):
        if n_avail >= n_target:
            break
        if sample:
            if i >= n_gather:
                j = i + rand_int(state, nv - i)
                f = perm[j]
                perm[j] = perm[i]
                perm[i] = f
            f = perm[i]
        else:
            f = vis[i]
        if nominal[f]:
            if general is None:
                raise ValueError(LEAN_REFUSES)
            if used[f]:
                continue
            arity = n_distinct[f]
            summarize_nominal(f, arity, rows, s, e, Xc, dist_counts, nan_counts, cmap)
            n_present = 0
            for b in range(arity):
                tot = 0.0
                for c in range(dist_counts.shape[1]):
                    tot += dist_counts[b, c]
                if tot > 0:
                    n_present += 1
            if n_present < 2:
                continue
            n_avail += 1
            g, nb, si = eval_nominal(criterion, dist_counts, arity, nan_counts, n_node, pmass,
                                     table, min_objs, min_leaf, branch_n, right_n)
            if not g > GAIN_EPS:
                continue
            cand_kind[nc] = 2
            cand_t[nc] = np.nan
            cand_nan[nc] = nb
            cand_nt[nc] = 1
        elif random_thr:
            if general is None:
                raise ValueError(LEAN_REFUSES)
            lo, hi = min_max(f, rows, s, e, Xc)
            if not lo < hi:
                continue
            n_avail += 1
            t = uniform_threshold(lo, hi, state)
            count_threshold(f, t, rows, s, e, Xc, left, nan_counts, cmap)
            # one distinct value per side: scan the two-value summary with missing rows on
            # either side
            nl = 0.0
            nn = 0.0
            for c in range(C):
                nl += left[c]
                nn += nan_counts[c]
                dist_counts[0, c] = left[c]
                dist_counts[1, c] = node_counts[c] - left[c] - nan_counts[c]
            g, bi, nan_left, nt, si = scan_thresholds(criterion, dist_counts, np.int64(2),
                                                       nan_counts, node_counts, n_node, pmass,
                                                       table, min_side, left, left_n, right_n)
            if bi < 0 or not g >= 0.0:
                continue
            cand_kind[nc] = 1
            cand_t[nc] = t
            cand_nan[nc] = 0 if nan_left else 1
            if nn == 0:
                cand_nan[nc] = 0 if nl >= n_node - nl else 1
            cand_nt[nc] = 1
        elif binned and not (use_sorted and slot_of[f] >= 0):
            if bhist is None:
                # grow_tree's version without the binned search (binned=None)
                raise ValueError("binned features need grow_tree(..., binned=True)")
            gathered = i < n_gather
            k, g, rb, nan_left, nt, si, nl, nn = binned_candidate(
                criterion, i if gathered else f, brows if gathered else rows,
                0 if gathered else s, e - s if gathered else e, bg if gathered else R,
                0 if gathered else R.shape[1], n_distinct[f], bhist, bocc.shape[0], bocc, blst,
                cmap, C, nan_counts, node_counts, n_node, pmass, table, min_side, left, left_n,
                right_n)
            if k < 2:
                continue
            n_avail += 1
            if rb < 0:
                continue
            if c45 and criterion != GINI:
                g -= np.log2(k - 1.0) / (n_node / 2.0 ** iparams[P_COUNT_SHIFT])
            if not g > GAIN_EPS:
                continue
            cand_kind[nc] = 1
            cand_t[nc] = split_threshold(uniq, uniq_off[f], rb, rb, binned)
            if nn > 0:
                cand_nan[nc] = 0 if nan_left else 1
            else:
                cand_nan[nc] = 0 if nl >= n_node - nl else 1
            cand_nt[nc] = nt
        else:
            nd_f = n_distinct[f]
            k = 0
            # fused: the summary and the scan in one pass (_scan), the common candidate
            fused = False
            g = -np.inf
            bi = -1
            nan_left = False
            nt = 0
            si = 0.0
            f_nl = np.int64(0)
            r_lo = np.int64(0)
            r_hi = np.int64(0)
            if general is None:
                if use_sorted and slot_of[f] >= 0:
                    raise ValueError(LEAN_REFUSES)
                k = summarize_continuous(f, rows, s, e, R, nd_f, keys, keys2, hist, occ,
                                         dist_rank, dist_counts, nan_counts, cmap, general)
            else:
                listed = use_sorted and slot_of[f] >= 0
                stream = False
                if listed:
                    src = lists[slot_of[f]]
                    if (src[s] >> 32) == (src[e - 1] >> 32):
                        # one rank (or only missing rows) from the first entry to the last:
                        # fewer than two distinct values, nothing to read
                        continue
                    ss = s
                    ee = e
                    rmin = np.int64(0)
                    # missing rows (rank nd_f) come last in a list
                    stream = fuse and (src[e - 1] >> 32) != nd_f
                    if not stream:
                        k = summarize_sorted(lists, slot_of[f], s, e, yw, nd_f, dist_rank,
                                             dist_counts, nan_counts, cmap)
                else:
                    how, n_sum, rmin = continuous_pass(f, rows, s, e, R, nd_f, keys, keys2,
                                                       hist, occ, nan_counts, cmap, C, general)
                    src = keys
                    ss = np.int64(0)
                    ee = n_sum
                    n_nan = 0.0
                    for c in range(C):
                        n_nan += nan_counts[c]
                    if fuse and n_nan == 0 and how == 1:
                        fused = True
                        if few:
                            k, g, bi, nt, si, f_nl, r_lo, r_hi = scan_histogram_few(
                                hist, occ, n_sum, rmin, C, node_counts, n_node, pmass, table,
                                min_side)
                        else:
                            k, g, bi, nt, si, f_nl, r_lo, r_hi = scan_histogram_many(
                                hist, occ, n_sum, rmin, C, node_counts, n_node, pmass, table,
                                min_side, icounts, left_n)
                    elif fuse and n_nan == 0 and how == 2:
                        stream = True
                    else:
                        k = continuous_counts(how, n_sum, rmin, hist, occ, keys, dist_rank,
                                              dist_counts, nan_counts, cmap)
                if stream:
                    fused = True
                    if few:
                        k, g, bi, nt, si, f_nl, r_lo, r_hi = scan_sorted_few(
                            src, ss, ee, yw, listed, rmin, C, cmap, node_counts, n_node, pmass,
                            table, min_side)
                    else:
                        k, g, bi, nt, si, f_nl, r_lo, r_hi = scan_sorted_many(
                            src, ss, ee, yw, listed, rmin, C, cmap, node_counts, n_node, pmass,
                            table, min_side, icounts, left_n)
            if k < 2:
                continue
            n_avail += 1
            if not fused:
                g, bi, nan_left, nt, si = scan_thresholds(criterion, dist_counts, k, nan_counts,
                                                           node_counts, n_node, pmass, table,
                                                           min_side, left, left_n, right_n)
            if bi < 0:
                continue
            if c45 and criterion != GINI:
                # the MDL penalty divides by the node's weight in sample-weight units (the
                # scaling is a power of two, so unscaled counts give the same bits)
                g -= np.log2(k - 1.0) / (n_node / 2.0 ** iparams[P_COUNT_SHIFT])
            if not g > GAIN_EPS:
                continue
            cand_kind[nc] = 1
            cand_nt[nc] = nt
            if fused:
                # no missing rows: they will follow the larger side
                cand_t[nc] = split_threshold(uniq, uniq_off[f], r_lo, r_hi, binned)
                cand_nan[nc] = 0 if f_nl >= n_node - f_nl else 1
            else:
                cand_t[nc] = split_threshold(uniq, uniq_off[f], dist_rank[bi],
                                             dist_rank[bi + 1], binned)
                nn = 0.0
                nl = 0.0
                for c in range(nan_counts.shape[0]):
                    nn += nan_counts[c]
                for q in range(bi + 1):
                    for c in range(dist_counts.shape[1]):
                        nl += dist_counts[q, c]
                if nn > 0:
                    cand_nan[nc] = 0 if nan_left else 1
                else:
                    cand_nan[nc] = 0 if nl >= n_node - nl else 1
        cand_f[nc] = f
        cand_g[nc] = g
        cand_si[nc] = si
        nc += 1
    if nc == 0:
        return False, -1, 0, np.nan, 0, 0, 0
    avg = 0.0
    if criterion == GAIN_RATIO:
        for q in range(nc):
            avg += cand_g[q]
        avg /= nc
    best = -np.inf
    bq = -1
    for q in range(nc):
        score = _score(criterion, cand_g[q], cand_si[q], avg)
        if score != score:
            continue
        if bq < 0 or (score > best and not is_tie(score, best)):
            best = score
            bq = q
    ties_f = -1
    ties_t = -1
    for q in range(nc):
        score = _score(criterion, cand_g[q], cand_si[q], avg)
        if score != score:
            continue
        if is_tie(score, best):
            ties_f += 1
            ties_t += cand_nt[q]
    return True, cand_f[bq], cand_kind[bq], cand_t[bq], cand_nan[bq], ties_f, ties_t


@inner(_nrt=False)
def random_select(rule, nominal, used, nv, perm, buf, nbuf, s, e, Xg, Xl, loc, state, general,
                  target=None):
    """Random test-selection: (found, feature, kind, threshold). The node's rows are
    ``buf[nbuf][s:e]``, its values ``Xl`` when ``loc``, else ``Xg`` (as in
    ``deterministic_select``).

    ``general``: ``None`` for the lean version (``_grow.grow_tree``): ``pair_midpoint`` on
    continuous features only.

    ``perm`` holds the visible features in some order; drawing without replacement from it
    (a partial Fisher-Yates shuffle) picks uniformly among them whatever that order is.

    ``target``: ``None`` for classification trees, whose PERT pairs are two rows of different
    classes (the class code in each row entry); a regression tree's float64 targets, indexed
    by global row (regression trees have no localized blocks), whose PERT pairs are two rows
    of different targets (Cutler & Zhao 2001's rule with "class" read as "target value").
    numba drops the branch not taken from each version.
    """
    if general is None and rule != RS_PAIR:
        raise ValueError(LEAN_REFUSES)
    rows = buf[nbuf]
    Xc = Xl if loc else Xg
    if rule == RS_PERT:
        if general is None:
            raise ValueError(LEAN_REFUSES)
        m = e - s
        for _ in range(PERT_ATTEMPTS):
            pa = rows[s + rand_int(state, m)]
            pb = rows[s + rand_int(state, m)]
            if target is None:
                if cls_of(pa) == cls_of(pb):
                    continue
            elif target[row_of(pa)] == target[row_of(pb)]:
                continue
            a = row_of(pa)
            b = row_of(pb)
            for i in range(nv):
                j = i + rand_int(state, nv - i)
                f = perm[j]
                perm[j] = perm[i]
                perm[i] = f
                va = Xc[f, a]
                vb = Xc[f, b]
                if np.isnan(va) or np.isnan(vb) or va == vb:
                    continue
                if nominal[f]:
                    if used[f]:
                        continue
                    return True, f, KIND_NOMINAL, np.nan
                return True, f, KIND_THRESHOLD, uniform_threshold(min(va, vb), max(va, vb), state)
        return False, -1, KIND_LEAF, np.nan
    for i in range(nv):
        j = i + rand_int(state, nv - i)
        f = perm[j]
        perm[j] = perm[i]
        perm[i] = f
        if nominal[f]:
            if general is None:
                raise ValueError(LEAN_REFUSES)
            if used[f] or not continuous_available(f, rows, s, e, Xc):
                continue
            return True, f, KIND_NOMINAL, np.nan
        if rule == RS_PAIR:
            found, t = pair_midpoint(f, rows, s, e, Xc, state)
            if not found:
                continue
            return True, f, KIND_THRESHOLD, t
        if general is None:
            raise ValueError(LEAN_REFUSES)
        if rule == RS_PAIR_DISTINCT:
            found, t = pair_distinct_midpoint(f, rows, s, e, Xc, state)
            if not found:
                continue
            return True, f, KIND_THRESHOLD, t
        lo, hi = min_max(f, rows, s, e, Xc)
        if not lo < hi:
            continue
        return True, f, KIND_THRESHOLD, uniform_threshold(lo, hi, state)
    return False, -1, KIND_LEAF, np.nan
