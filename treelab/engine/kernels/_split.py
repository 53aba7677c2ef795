"""Per-node split search: value summaries and threshold scans (random draws and thresholds:
``_thresholds``; partitions: ``_partition``).

A node's rows are the slice ``rows[s:e]`` of one index array per tree (as in scikit-learn's
splitter). Continuous features are compared through global ranks ``R[f, row]`` (computed once per
fit; a missing value has rank ``n_distinct[f]``), which lets a node summarise a feature either by a
dense histogram over its rank range or by sorting packed (rank, position) keys, whichever is
cheaper for that node. Thresholds are midpoints of consecutive distinct values.
"""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS, inner
from treelab.engine.kernels._criteria import (
    GINI,
    binary_gain,
)
from treelab.engine.kernels._presort import summarize_stream_few

# Relative tolerance for gain ties (analysis spec 5).
TIE_RTOL = 1e-12
_LOW32 = np.int64(0xFFFFFFFF)
_LOW16 = np.int64(0xFFFF)
_RADIX_BITS = 11
_RADIX_BITS_SMALL = 8
_RADIX_MIN = 1024
# below this many keys a node sorts by insertion (``insertion_sort``)
_INSERTION_MAX = 48


# A node's rows are packed int64 entries: row index << 32 | weight << 16 | class. Scans read the
# class and weight from the entry itself instead of two random look-ups.
@inner
def row_of(r):
    """Row index of a packed entry."""
    return r >> 32


@inner
def cls_of(r):
    """Class code of a packed entry (or of a packed key's low half)."""
    return r & _LOW16


@inner
def wt_of(r):
    """Weight (bootstrap multiplicity) of a packed entry."""
    return (r >> 16) & _LOW16


@inner(_nrt=True)
def radix_sort_high(keys, tmp, n, span, digit_bits):
    """Sort keys[:n] by their high 32 bits (values < span) with LSD radix passes of
    ``digit_bits`` bits (stable: keys of one rank keep their order)."""
    bits = 1
    while (np.int64(1) << bits) < span:
        bits += 1
    counts = np.empty((1 << digit_bits) + 1, dtype=np.int64)
    mask = np.int64((1 << digit_bits) - 1)
    src = keys
    dst = tmp
    shift = 0
    while shift < bits:
        counts[:] = 0
        for q in range(n):
            counts[((src[q] >> (32 + shift)) & mask) + 1] += 1
        for b in range(1 << digit_bits):
            counts[b + 1] += counts[b]
        for q in range(n):
            b = (src[q] >> (32 + shift)) & mask
            dst[counts[b]] = src[q]
            counts[b] += 1
        src, dst = dst, src
        shift += digit_bits
    if src is not keys:
        for q in range(n):
            keys[q] = src[q]


@njit(**NUMBA_FLAGS)
def insertion_sort(keys, n):
    """Sort keys[:n] in place by insertion (small n).

    numba's ``ndarray.sort`` allocates its partition stack on every call, which cost more
    than the sort itself at the many small nodes of deterministic trees (measured: 7% of a
    bagged VR-Trees fit on sonar, ionosphere and waveform). Keys equal in every bit are
    indistinguishable, so any correct sort leaves the same array.
    """
    for i in range(1, n):
        v = keys[i]
        j = i - 1
        while j >= 0 and keys[j] > v:
            keys[j + 1] = keys[j]
            j -= 1
        keys[j + 1] = v


@inner
def is_tie(a, b):
    """Scores equal within the relative tie tolerance."""
    return abs(a - b) <= TIE_RTOL * max(abs(a), abs(b))


@njit(**NUMBA_FLAGS)
def class_map(node_counts, cmap, present):
    """Number the classes present at a node 0..C'-1 in class order: ``cmap[c]`` (-1 when
    absent), their counts in ``present[:C']``; returns C'.

    A deterministic node counts and scores its candidates over these C' columns only. Absent
    classes add exact zeros to every count, entropy and Gini sum, so the scores are the same
    bit for bit; a node deep in a many-class tree holds few of the classes.
    """
    k = 0
    for c in range(node_counts.shape[0]):
        if node_counts[c] > 0:
            cmap[c] = k
            present[k] = node_counts[c]
            k += 1
        else:
            cmap[c] = -1
    return k


@njit(inline="always", **NUMBA_FLAGS)
def _histogram_rows(f, rows, s, e, R, nd_f, rmin, hist, occ, nan_counts, cmap, C):
    """The row pass of a dense histogram over ranks rmin..: class counts per rank in
    ``hist`` (rank-major, C columns), occupied ranks marked in ``occ``, missing rows counted
    into ``nan_counts``."""
    for j in range(e - s):
        p = rows[s + j]
        r = np.int64(R[f, row_of(p)])
        if r == nd_f:
            nan_counts[cmap[cls_of(p)]] += wt_of(p)
            continue
        b = r - rmin
        hist[b * C + cmap[cls_of(p)]] += wt_of(p)
        occ[b] = 1


@njit(inline="always", **NUMBA_FLAGS)
def _histogram_counts(hist, occ, span, rmin, dist_rank, dist_counts):
    """The occupied ranks of a dense histogram into ``dist_rank``/``dist_counts`` (the
    histogram zeroed again on the way out); returns how many."""
    C = dist_counts.shape[1]
    k = 0
    for b in range(span):
        if occ[b]:
            occ[b] = 0
            dist_rank[k] = rmin + b
            for c in range(C):
                dist_counts[k, c] = hist[b * C + c]
                hist[b * C + c] = 0.0
            k += 1
    return k


@inner(_nrt=False)
def continuous_pass(f, rows, s, e, R, nd_f, keys, keys2, hist, occ, nan_counts, cmap, C,
                    general):
    """The row pass of ``summarize_continuous``: returns (how, n, rmin).

    how 1: the node's ranks rmin..rmin+n-1 counted in the dense histogram (``hist``, ``occ``);
    how 2: n packed keys ``(rank - rmin) << 32 | weight << 16 | class`` sorted by rank in
    ``keys``; how 0: every row missing. Missing rows are counted into ``nan_counts`` (zeroed
    first) in every case.
    """
    m = e - s
    nan_counts[:] = 0.0
    if nd_f <= 2 * m + 16 and nd_f <= occ.shape[0]:
        # the feature's whole rank range fits the dense histogram: no pass for min and max
        _histogram_rows(f, rows, s, e, R, nd_f, np.int64(0), hist, occ, nan_counts, cmap, C)
        return 1, np.int64(nd_f), np.int64(0)
    rmin = np.int64(nd_f)
    rmax = np.int64(-1)
    for j in range(m):
        r = np.int64(R[f, row_of(rows[s + j])])
        if r == nd_f:
            continue
        if r < rmin:
            rmin = r
        if r > rmax:
            rmax = r
    if rmax < 0:
        for j in range(m):
            p = rows[s + j]
            nan_counts[cmap[cls_of(p)]] += wt_of(p)
        return 0, np.int64(0), rmin
    span = rmax - rmin + 1
    if span <= 2 * m + 16 and span <= occ.shape[0]:
        _histogram_rows(f, rows, s, e, R, nd_f, rmin, hist, occ, nan_counts, cmap, C)
        return 1, span, rmin
    mm = np.int64(0)
    for j in range(m):
        p = rows[s + j]
        r = np.int64(R[f, row_of(p)])
        if r == nd_f:
            nan_counts[cmap[cls_of(p)]] += wt_of(p)
            continue
        keys[mm] = ((r - rmin) << 32) | (p & _LOW32)
        mm += 1
    if general is None or mm <= _INSERTION_MAX:
        # the lean routine's nodes hold at most about 120 keys here: no radix sort to compile
        insertion_sort(keys, mm)
    else:
        # by rank alone (the high half): the class counts per rank are sums of integers,
        # exact in float64 in any order, so the summary is the same bits as a full sort's.
        # Small digits below _RADIX_MIN keys: the 257 counts of a pass cost less than
        # numba's quicksort of a few hundred keys (its mispredicted comparisons and work
        # stack; measured in benchmarks/README.md, "Item 3, third round")
        radix_sort_high(keys, keys2, mm, span,
                        _RADIX_BITS if mm >= _RADIX_MIN else _RADIX_BITS_SMALL)
    return 2, mm, rmin


@njit(inline="always", **NUMBA_FLAGS)
def continuous_counts(how, n, rmin, hist, occ, keys, dist_rank, dist_counts, nan_counts, cmap):
    """The summary from ``continuous_pass``'s result: the distinct ranks into ``dist_rank``
    (increasing), their class counts into ``dist_counts``; returns how many (``nan_counts``:
    the row pass counted the missing rows already; the keys hold none)."""
    C = dist_counts.shape[1]
    if how == 1:
        return _histogram_counts(hist, occ, n, rmin, dist_rank, dist_counts)
    k = 0
    if how == 0:
        return k
    prev = np.int64(-1)
    if 2 <= C <= 3:
        return summarize_stream_few(keys, 0, n, keys, False, rmin, np.int64(-1), dist_rank,
                                    dist_counts, nan_counts, cmap)
    for q in range(n):
        key = keys[q]
        r = key >> 32
        if r != prev:
            dist_rank[k] = r + rmin
            for c in range(C):
                dist_counts[k, c] = 0.0
            k += 1
            prev = r
        dist_counts[k - 1, cmap[cls_of(key)]] += wt_of(key)
    return k


@inner(_nrt=False)
def summarize_continuous(f, rows, s, e, R, nd_f, keys, keys2, hist, occ, dist_rank, dist_counts,
                         nan_counts, cmap, general):
    """Distinct non-missing ranks of feature f at the node, with class counts per rank.

    Fills ``dist_rank[:k]`` (increasing), ``dist_counts[:k]`` and ``nan_counts``; returns k.
    Class c is counted in column ``cmap[c]`` (see ``class_map``).
    A node whose rank range is at most about twice its size is counted in a dense histogram;
    otherwise packed (rank, class, weight) keys are sorted (by insertion up to 48 keys, by
    radix passes on the rank beyond): ``continuous_pass``, then ``continuous_counts``.

    ``general``: ``None`` in the lean growth routine (``_grow.grow_tree``), whose features have
    at most ``LIST_MIN_DISTINCT`` distinct values: a node sorts keys only while its rank span
    exceeds 2 m + 16, so at most about 120 of them; they are sorted by insertion there, and
    the radix sort is not compiled.
    """
    how, n, rmin = continuous_pass(f, rows, s, e, R, nd_f, keys, keys2, hist, occ, nan_counts,
                                   cmap, dist_counts.shape[1], general)
    return continuous_counts(how, n, rmin, hist, occ, keys, dist_rank, dist_counts, nan_counts,
                             cmap)


@inner(_nrt=False)
def _scan_complete(criterion, dist_counts, k, node_counts, n_node, pmass, table, min_side,
                   left):
    """``scan_thresholds`` for a node without missing values: the impurity of both sides is
    computed inline from the running left counts (the hot loop of deterministic trees)."""
    C = dist_counts.shape[1]
    if 2 <= C <= 3 and criterion != GINI:
        return _scan_complete_few(dist_counts, k, node_counts, n_node, pmass, table, min_side,
                                  left)
    for c in range(C):
        left[c] = 0.0
    best = -np.inf
    best_i = -1
    n_ties = 0
    best_nl = 0.0
    nl = 0.0
    gini = criterion == GINI
    for i in range(k - 1):
        if gini:
            for c in range(C):
                left[c] += dist_counts[i, c]
            nl = 0.0
            for c in range(C):
                nl += left[c]
            nr = n_node - nl
            if nl < min_side or nr < min_side:
                continue
            sl = 0.0
            sr = 0.0
            for c in range(C):
                sl += left[c] * left[c]
                r = node_counts[c] - left[c]
                sr += r * r
            g = (sl / nl + sr / nr - pmass) / n_node
        else:
            # one pass over the classes: each class's term once its count is updated, in
            # class order as before (the same sums; wasted only where a side is too small)
            nl = 0.0
            ml = 0.0
            for c in range(C):
                lc = left[c] + dist_counts[i, c]
                left[c] = lc
                nl += lc
                ml += table[np.int64(lc)] + table[np.int64(node_counts[c] - lc)]
            nr = n_node - nl
            if nl < min_side or nr < min_side:
                continue
            g = (pmass - table[np.int64(nl)] - table[np.int64(nr)] + ml) / n_node
        if best_i >= 0 and is_tie(g, best):
            n_ties += 1
        elif g > best:
            best = g
            best_i = i
            n_ties = 0
            best_nl = nl
    best_si = 0.0
    if best_i >= 0:
        best_si = binary_split_info(best_nl, n_node - best_nl, n_node, table)
    return best, best_i, False, n_ties + 1, best_si


@inner
def scan_step(C, l0, l1, l2, n0, n1, n2, nn, min_side, pmass, n_node, table, i, lo, hi, best,
              best_i, n_ties, best_nl, best_lo, best_hi):
    """One threshold of the two- and three-class entropy scan: the left side holds l0, l1,
    l2 rows of each class (l2 = 0 for two), the node n0, n1, n2 (nn in all); returns the
    running best (gain, threshold index i, ties, left rows, the ranks lo and hi either side)
    updated with it.

    The general loop's operations in its order (``_scan_complete``): the counts are integers,
    exact in float64, so ``nl = l0 + l1 (+ l2)`` equals its ``0.0 + l0 + l1 (+ l2)``, and
    ``ml`` adds the classes' terms as the loop does (``0.0 + x`` is ``x`` for the non-negative
    terms): every gain and tie decision has the same bits. The counts are int64, so the
    x log2 x table is indexed by them without converting each threshold's counts from float.
    """
    nl = l0 + l1 + l2
    nr = nn - nl
    if nl < min_side or nr < min_side:
        return best, best_i, n_ties, best_nl, best_lo, best_hi
    ml = (table[l0] + table[n0 - l0]) + (table[l1] + table[n1 - l1])
    if C == 3:
        ml += table[l2] + table[n2 - l2]
    g = (pmass - table[nl] - table[nr] + ml) / n_node
    if best_i >= 0 and is_tie(g, best):
        return best, best_i, n_ties + 1, best_nl, best_lo, best_hi
    if g > best:
        return g, i, np.int64(0), nl, lo, hi
    return best, best_i, n_ties, best_nl, best_lo, best_hi


@njit(inline="always", **NUMBA_FLAGS)
def node_few(node_counts, C, n_node):
    """The node's class counts and size as int64 for the two- and three-class scans (the
    third 0 for two classes)."""
    n2 = np.int64(node_counts[2]) if C == 3 else np.int64(0)
    return np.int64(node_counts[0]), np.int64(node_counts[1]), n2, np.int64(n_node)


@njit(inline="always", **NUMBA_FLAGS)
def few_split_info(best_i, best_nl, n_node, table):
    """The split info of a two- or three-class scan's best threshold (``best_nl`` int64 rows
    left of it), 0.0 where the scan found none."""
    if best_i < 0:
        return 0.0
    return binary_split_info(np.float64(best_nl), n_node - best_nl, n_node, table)


@inner(_nrt=False)
def _scan_complete_few(dist_counts, k, node_counts, n_node, pmass, table, min_side, left):
    """``_scan_complete`` for two or three classes and entropy-based criteria, the counts in
    int64 scalars (``scan_step``)."""
    C = dist_counts.shape[1]
    n0, n1, n2, nn = node_few(node_counts, C, n_node)
    l0 = np.int64(0)
    l1 = np.int64(0)
    l2 = np.int64(0)
    best = -np.inf
    # typed int64 from the start: as literals numba compiled scan_step once more
    best_i = np.int64(-1)
    n_ties = np.int64(0)
    best_nl = np.int64(0)
    lo = np.int64(0)
    hi = np.int64(0)
    for i in range(k - 1):
        l0 += np.int64(dist_counts[i, 0])
        l1 += np.int64(dist_counts[i, 1])
        if C == 3:
            l2 += np.int64(dist_counts[i, 2])
        best, best_i, n_ties, best_nl, lo, hi = scan_step(
            C, l0, l1, l2, n0, n1, n2, nn, min_side, pmass, n_node, table, i, lo, hi, best,
            best_i, n_ties, best_nl, lo, hi)
    left[0] = l0
    left[1] = l1
    if C == 3:
        left[2] = l2
    best_si = few_split_info(best_i, best_nl, n_node, table)
    return best, best_i, False, n_ties + 1, best_si


@inner
def binary_split_info(a, b, n_node, table):
    """``split_info`` of two branches of a and b rows, without an array per call (the same
    sums in the same order, so the same bits)."""
    s = 0.0
    s += table[np.int64(a)]
    s += table[np.int64(b)]
    return (table[np.int64(n_node)] - s) / n_node


@inner(_nrt=False)
def scan_thresholds(criterion, dist_counts, k, nan_counts, node_counts, n_node, pmass, table,
                    min_side, left, left_n, right_n):
    """Best threshold between consecutive distinct values by impurity decrease.

    Missing rows (``nan_counts``) are tried on both sides. Returns (gain, index i of the last
    distinct value going left, missing-go-left flag, number of tests tying the best, split info).
    Gain is -inf when no threshold leaves at least ``min_side`` rows on each side.
    """
    C = dist_counts.shape[1]
    n_nan = 0.0
    for c in range(C):
        n_nan += nan_counts[c]
    if n_nan == 0:
        return _scan_complete(criterion, dist_counts, k, node_counts, n_node, pmass, table,
                              min_side, left)
    for c in range(C):
        left[c] = 0.0
    n_nonnan = n_node - n_nan
    best = -np.inf
    best_i = -1
    best_nan_left = False
    n_ties = 0
    best_si = 0.0
    best_a = 0.0
    best_b = 0.0
    nl = 0.0
    for i in range(k - 1):
        for c in range(C):
            left[c] += dist_counts[i, c]
            nl += dist_counts[i, c]
        nr = n_nonnan - nl
        for side in range(2):
            nan_left = side == 0
            if nan_left:
                a = nl + n_nan
                b = nr
                for c in range(C):
                    left_n[c] = left[c] + nan_counts[c]
                    right_n[c] = node_counts[c] - left_n[c]
            else:
                a = nl
                b = nr + n_nan
                for c in range(C):
                    left_n[c] = left[c]
                    right_n[c] = node_counts[c] - left[c]
            if a < min_side or b < min_side:
                continue
            g = binary_gain(criterion, left_n, a, right_n, b, pmass, n_node, table)
            if best_i >= 0 and is_tie(g, best):
                n_ties += 1
            elif g > best:
                best = g
                best_i = i
                best_nan_left = nan_left
                n_ties = 0
                best_a = a
                best_b = b
    if best_i >= 0:
        best_si = binary_split_info(best_a, best_b, n_node, table)
    return best, best_i, best_nan_left, n_ties + 1, best_si


@inner
def count_threshold(f, t, rows, s, e, Xc, left_counts, nan_counts, cmap):
    """Class counts of rows with x <= t and of missing rows, without moving rows (class c in
    slot ``cmap[c]``)."""
    left_counts[:] = 0.0
    nan_counts[:] = 0.0
    for j in range(s, e):
        p = rows[j]
        v = Xc[f, row_of(p)]
        if v <= t:
            left_counts[cmap[cls_of(p)]] += wt_of(p)
        elif np.isnan(v):
            nan_counts[cmap[cls_of(p)]] += wt_of(p)
