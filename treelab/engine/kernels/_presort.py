"""Presorted feature lists for deterministic trees.

When every node of a tree is deterministic, sorting each candidate feature at each node costs
O(m log m) per feature. Instead each tree keeps, per continuous feature, its rows in increasing
rank order (filtered once from a global order computed per fit) and partitions those lists
stably when a node splits, so a node's rows are already sorted on every feature. A list entry is
``rank << 32 | row``. Below a size where sorting the few candidates is cheaper than partitioning
every list, nodes fall back to per-node sorting.
"""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS, inner
from treelab.engine.kernels._nodes import size_and_splittable
from treelab.engine.kernels._params import (
    P_DET_THRESHOLD,
    P_MAX_FEATURES,
    P_PRESORT,
    P_STOCHASTIC,
)

_LOW32 = np.int64(0xFFFFFFFF)
_LOW16 = np.int64(0xFFFF)


@njit(inline="always", **NUMBA_FLAGS)
def stream_entry(entry, yw, lookup, cmap):
    """An entry's rank (high 32 bits), class code (through ``cmap``) and weight: a presorted
    list's ``rank << 32 | row`` read through ``yw[row]`` (``weight << 16 | class``) when
    ``lookup``, else a sorted key holding weight and class in its low 32 bits."""
    p = yw[entry & _LOW32] if lookup else entry
    return entry >> 32, cmap[p & _LOW16], (p >> 16) & _LOW16


@njit(inline="always", **NUMBA_FLAGS)
def add_few(wt, c, a0, a1, a2):
    """Running two- or three-class counts with weight ``wt`` added to class ``c``
    (branch-free)."""
    w1 = wt * np.int64(c == 1)
    w2 = wt * np.int64(c == 2)
    return a0 + (wt - w1 - w2), a1 + w1, a2 + w2


@njit(**NUMBA_FLAGS)
def rank_sorted(col, order, R_f, uniq_f):
    """Global ranks of one feature from its stable sort order (missing values last).

    Writes the rank of every row into ``R_f`` (missing rows get the number of distinct
    values) and the sorted distinct values into ``uniq_f``; returns how many there are.
    Equal values (also -0.0 and 0.0) share a rank; the first in sorted order stands for them.
    """
    k = -1
    prev = 0.0
    n = order.shape[0]
    i = 0
    while i < n:
        v = col[order[i]]
        if np.isnan(v):
            break
        if k < 0 or v != prev:
            k += 1
            uniq_f[k] = v
            prev = v
        R_f[order[i]] = k
        i += 1
    nd = k + 1
    while i < n:
        R_f[order[i]] = nd
        i += 1
    return nd


@njit(**NUMBA_FLAGS)
def build_lists(order, R, w, slots, n_in):
    """Sorted lists (slot, n_in + 1) of the rows with positive weight, from the global order
    (the last column is room for the branch-free loop's final write, never read).

    Every row is written and the cursor advances only over rows with positive weight: with
    bootstrap weights whether a row is in is a coin flip for the branch predictor.
    """
    n_slots = slots.shape[0]
    lists = np.empty((n_slots, n_in + 1), dtype=np.int64)
    for q in range(n_slots):
        f = slots[q]
        k = 0
        for i in range(order.shape[1]):
            row = order[f, i]
            lists[q, k] = (np.int64(R[f, row]) << 32) | np.int64(row)
            k += np.int64(w[row] > 0)
    return lists


@inner(_nrt=False)
def summarize_sorted(lists, q, s, e, yw, nd_f, dist_rank, dist_counts, nan_counts, cmap):
    """Like ``summarize_continuous`` but reading the segment of presorted list q (no sort;
    the list is indexed in place: a view of it per candidate cost a reference count)."""
    C = dist_counts.shape[1]
    nan_counts[:] = 0.0
    if 2 <= C <= 3:
        return summarize_stream_few(lists[q], s, e, yw, True, np.int64(0), nd_f, dist_rank,
                                    dist_counts, nan_counts, cmap)
    k = 0
    prev = np.int64(-1)
    for j in range(s, e):
        entry = lists[q, j]
        r = entry >> 32
        p = yw[entry & _LOW32]
        c = cmap[p & _LOW16]
        wt = p >> 16
        if r == nd_f:
            nan_counts[c] += wt
            continue
        if r != prev:
            dist_rank[k] = r
            for cc in range(C):
                dist_counts[k, cc] = 0.0
            k += 1
            prev = r
        dist_counts[k - 1, c] += wt
    return k


@njit(_nrt=False, **NUMBA_FLAGS)
def partition_lists(lists, s, e, child_of, child_begin, n_kids, fill, scratch, keep_first=True,
                    keep_second=True):
    """Stable partition of every list segment [s, e) by the child index of each row.

    ``child_begin[b]`` is the first position of child b's block. Of two children, only the
    blocks of those kept (``keep_first``, ``keep_second``) are written: a child that will
    never scan its lists (a leaf, or too few rows to scan rather than sort) leaves its block
    as it was, whatever the entries there (``_partition_lists_kept``).
    """
    if n_kids == 2:
        if keep_first and keep_second:
            _partition_lists_two(lists, s, e, child_of, child_begin[1], scratch)
        elif keep_first or keep_second:
            _partition_lists_kept(lists, s, e, child_of, keep_second)
        return
    for q in range(lists.shape[0]):
        for b in range(n_kids):
            fill[b] = child_begin[b]
        for j in range(s, e):
            entry = lists[q, j]
            b = child_of[entry & _LOW32]
            scratch[fill[b]] = entry
            fill[b] += 1
        for j in range(s, e):
            lists[q, j] = scratch[j]


@njit(_nrt=False, **NUMBA_FLAGS)
def _partition_lists_two(lists, s, e, child_of, mid, scratch):
    """``partition_lists`` for two children, ``mid`` the first position of the second block.

    The first child's entries are compacted forward in place (the write position never
    passes the read position) and the second child's are gathered in ``scratch`` and copied
    behind them: the same stable partition without a per-child cursor in memory, and half
    the copy back. Every entry is written at both cursors and only its child's advances
    (branch-free: which child a row joins is unpredictable).
    """
    for q in range(lists.shape[0]):
        wl = s
        wr = 0
        for j in range(s, e):
            entry = lists[q, j]
            g = np.int64(child_of[entry & _LOW32])
            lists[q, wl] = entry
            scratch[wr] = entry
            wl += 1 - g
            wr += g
        for j in range(wr):
            lists[q, mid + j] = scratch[j]


@njit(inline="always", **NUMBA_FLAGS)
def child_scans_lists(n_entries, depth, counts, ch, C, sorted_min, min_split, max_depth,
                      classes):
    """Whether a child of ``n_entries`` entries at ``depth`` (its class counts in
    ``counts[ch]``) may scan presorted lists: it has at least ``sorted_min`` entries and,
    popped, passes the growth routine's leaf checks that its counts and depth already decide
    (``classes``: a classification tree's size and purity; a regression tree's checks need
    its targets, so only the depth counts there). A child that cannot needs no block in
    :func:`partition_lists`."""
    if n_entries < sorted_min:
        return False
    if classes:
        return size_and_splittable(counts, ch, C, min_split, depth, max_depth)[1]
    return depth < max_depth


@njit(_nrt=False, **NUMBA_FLAGS)
def _partition_lists_kept(lists, s, e, child_of, second):
    """One child's block of a two-child partition, in place and stable, the other's left
    unwritten: the first child's entries compacted forward from ``s`` (the write position
    never passes the read position), or, ``second``, the second child's backward from
    ``e - 1`` (nor does it there, in the other direction). No scratch and no copy back:
    the children's sizes fix where the kept block starts, so the other block's positions
    are never read."""
    for q in range(lists.shape[0]):
        if second:
            wr = e - 1
            for j in range(e - 1, s - 1, -1):
                entry = lists[q, j]
                g = np.int64(child_of[entry & _LOW32])
                lists[q, wr] = entry
                wr -= g
        else:
            wl = s
            for j in range(s, e):
                entry = lists[q, j]
                g = np.int64(child_of[entry & _LOW32])
                lists[q, wl] = entry
                wl += 1 - g


@inner(_nrt=False)
def summarize_stream_few(src, s, e, yw, lookup, rmin, nd_f, dist_rank, dist_counts, nan_counts,
                         cmap):
    """The summary of entries ``src[s:e]`` in increasing rank order (high 32 bits, plus
    ``rmin``; rank ``nd_f`` missing) for two or three classes: a rank's counts are summed in
    integer registers and stored once the rank ends.

    ``lookup``: the entries are a presorted list's ``rank << 32 | row`` and each row's weight
    and class are read from ``yw[row]``; otherwise they are ``_split.continuous_pass``'s
    sorted keys, which hold them in their low 32 bits (and none is missing: pass ``nd_f``
    -1). One loop for both (``summarize_sorted``, ``_split.continuous_counts``).

    The general loop adds every entry's weight into ``dist_counts`` in memory, each add
    waiting for the previous store to the same cell (runs of one rank and class); the
    counts are integers, exact in float64 in any grouping, so the stored values are the
    same bits.
    """
    C = dist_counts.shape[1]
    k = 0
    prev = np.int64(-1)
    a0 = np.int64(0)
    a1 = np.int64(0)
    a2 = np.int64(0)
    for j in range(s, e):
        r, c, wt = stream_entry(src[j], yw, lookup, cmap)
        if r == nd_f:
            nan_counts[c] += wt
            continue
        if r != prev:
            if k > 0:
                store_counts(dist_counts, k - 1, C, a0, a1, a2)
            dist_rank[k] = r + rmin
            k += 1
            prev = r
            a0 = 0
            a1 = 0
            a2 = 0
        a0, a1, a2 = add_few(wt, c, a0, a1, a2)
    if k > 0:
        store_counts(dist_counts, k - 1, C, a0, a1, a2)
    return k


@njit(inline="always", **NUMBA_FLAGS)
def store_counts(dist_counts, i, C, a0, a1, a2):
    """Row i of ``dist_counts`` from the register counts of two or three classes."""
    dist_counts[i, 0] = a0
    dist_counts[i, 1] = a1
    if C == 3:
        dist_counts[i, 2] = a2


# lists only for features with more distinct values than this: a node counts the others in a
# dense histogram over their few ranks, cheaper than partitioning a list at every split
LIST_MIN_DISTINCT = 256


@njit(inline="always", **NUMBA_FLAGS)
def list_min_distinct(n_rows):
    """The distinct values above which a classification tree on ``n_rows`` rows keeps a
    feature's presorted list: ``LIST_MIN_DISTINCT``, or half the rows where that is fewer.

    A node counts a feature in the dense histogram only while its rank span is at most about
    twice its rows, so a feature with more distinct values than half the rows (most values
    distinct: sonar's 60 columns, 109-208 distinct values over its 208 rows) is sorted at
    almost every node below the root; a list, partitioned at each split, saves those sorts (sonar's
    forests at alpha >= 0.5: 0.81 of the time; benchmarks/README.md, "Lists for features
    with mostly distinct values"). Python callers use ``list_min_distinct.py_func``.
    """
    return min(LIST_MIN_DISTINCT, n_rows // 2)


@inner
def presort_plan(iparams, alpha, nominal, n_distinct, vis, nv, order, R, w, n_in, general,
                 regression):
    """Whether a tree of ``_grow.grow_tree`` keeps presorted lists, and its lists: returns
    (presort, lists, slot_of, sorted_min), ``slot_of[f]`` the list of feature f (-1: none) and
    ``sorted_min`` the fewest rows of a node that scans the lists rather than sorting.

    Lists pay off for trees whose nodes are mostly deterministic with exact thresholds
    (measured: with few candidates per node, e.g. random forests' sqrt(d), sorting the
    candidates at each node is cheaper than partitioning every list; with alpha below about
    0.5 the random nodes, which would partition every list too, make it slower), with at least
    half of the continuous features candidates (``P_PRESORT == 2`` forces them, on every
    feature), and where the global sort orders were made (``engine.forest.
    prepare_features(order=False)`` leaves them out). A list is kept for each continuous
    feature with more distinct values than ``list_min_distinct(n)``. Regression trees
    (``regression`` not None) list features with more than ``LIST_MIN_DISTINCT``, count every
    visible feature against ``max_features`` and scan the lists at nodes of at least 16
    rows.

    ``general`` None (the lean routine): a tree that would keep lists gets none and
    ``presort`` True, which the caller refuses; numba then compiles no ``build_lists``.
    """
    d = nominal.shape[0]
    n = w.shape[0]
    n_cont = 0
    for q in range(nv):
        if not nominal[vis[q]]:
            n_cont += 1
    presort = (iparams[P_PRESORT] >= 1 and alpha >= 0.5 and iparams[P_DET_THRESHOLD] == 0
               and n_cont > 0
               and iparams[P_STOCHASTIC] == 0
               and (2 * iparams[P_MAX_FEATURES] >= n_cont or iparams[P_PRESORT] == 2))
    slot_of = np.empty(d, dtype=np.int64)
    slot_of[:] = -1
    list_min = 0 if iparams[P_PRESORT] == 2 else list_min_distinct(n)
    if regression is not None:
        list_min = LIST_MIN_DISTINCT
    n_list = 0
    for q in range(nv):
        if not nominal[vis[q]] and n_distinct[vis[q]] > list_min:
            n_list += 1
    presort = presort and n_list > 0 and order.shape[1] == n
    if regression is not None:
        presort = (iparams[P_PRESORT] >= 1 and alpha >= 0.5 and iparams[P_DET_THRESHOLD] == 0
                   and n_list > 0 and 2 * iparams[P_MAX_FEATURES] >= nv
                   and order.shape[1] == n)
    if not presort:
        return False, np.empty((0, 1), dtype=np.int64), slot_of, np.inf
    if general is None:
        return True, np.empty((0, 1), dtype=np.int64), slot_of, np.inf
    slots = np.empty(n_list, dtype=np.int64)
    q2 = 0
    for q in range(nv):
        if not nominal[vis[q]] and n_distinct[vis[q]] > list_min:
            slots[q2] = vis[q]
            slot_of[vis[q]] = q2
            q2 += 1
    lists = build_lists(order, R, w, slots, n_in)
    # partitioning every list beats sorting the candidates once K log2(m) > n_cont
    sorted_min = max(2.0 ** (n_cont / max(iparams[P_MAX_FEATURES], 1)), 16.0)
    if iparams[P_PRESORT] == 2:
        sorted_min = 0.0
    if regression is not None:
        sorted_min = 16.0
    return True, lists, slot_of, sorted_min
