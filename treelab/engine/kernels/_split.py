"""Per-node split search: value summaries, threshold scans, random draws and partitions.

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
    side_entropy_mass,
    side_gini_mass,
    split_info,
)
from treelab.engine.kernels._rng import rand_float, rand_int
from treelab.engine.kernels._sort import sort_head

# Relative tolerance for gain ties (analysis spec 5).
TIE_RTOL = 1e-12
_LOW32 = np.int64(0xFFFFFFFF)
_LOW16 = np.int64(0xFFFF)
_RADIX_BITS = 11
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
def radix_sort_high(keys, tmp, n, span):
    """Sort keys[:n] by their high 32 bits (values < span) with LSD radix passes."""
    bits = 1
    while (np.int64(1) << bits) < span:
        bits += 1
    counts = np.zeros((1 << _RADIX_BITS) + 1, dtype=np.int64)
    mask = np.int64((1 << _RADIX_BITS) - 1)
    src = keys
    dst = tmp
    shift = 0
    while shift < bits:
        counts[:] = 0
        for q in range(n):
            counts[((src[q] >> (32 + shift)) & mask) + 1] += 1
        for b in range(1 << _RADIX_BITS):
            counts[b + 1] += counts[b]
        for q in range(n):
            b = (src[q] >> (32 + shift)) & mask
            dst[counts[b]] = src[q]
            counts[b] += 1
        src, dst = dst, src
        shift += _RADIX_BITS
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
def _histogram(f, rows, s, e, R, nd_f, rmin, span, hist, occ, dist_rank, dist_counts,
               nan_counts, cmap):
    """``summarize_continuous`` by a dense histogram over ranks rmin..rmin+span-1 (zeroed
    again on the way out); missing rows are counted into ``nan_counts``."""
    C = dist_counts.shape[1]
    for j in range(e - s):
        p = rows[s + j]
        r = np.int64(R[f, row_of(p)])
        if r == nd_f:
            nan_counts[cmap[cls_of(p)]] += wt_of(p)
            continue
        b = r - rmin
        hist[b * C + cmap[cls_of(p)]] += wt_of(p)
        occ[b] = 1
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


@njit(inline="always", **NUMBA_FLAGS)
def summarize_continuous(f, rows, s, e, R, nd_f, keys, keys2, hist, occ, dist_rank, dist_counts,
                         nan_counts, cmap, general):
    """Distinct non-missing ranks of feature f at the node, with class counts per rank.

    Fills ``dist_rank[:k]`` (increasing), ``dist_counts[:k]`` and ``nan_counts``; returns k.
    Class c is counted in column ``cmap[c]`` (see ``class_map``).
    A node whose rank range is at most about twice its size is counted in a dense histogram;
    otherwise packed (rank, class, weight) keys are sorted (radix sort for large nodes).

    ``general``: ``None`` in the lean growth routine (``_grow.grow_tree``), whose features have
    at most ``LIST_MIN_DISTINCT`` distinct values: a node sorts keys only while its rank span
    exceeds 2 m + 16, so at most about 120 of them, and never reaches the radix sort; they
    are sorted by insertion there instead of by numba's quicksort, which has six functions to
    compile.
    """
    C = dist_counts.shape[1]
    m = e - s
    nan_counts[:] = 0.0
    if nd_f <= 2 * m + 16 and nd_f <= occ.shape[0]:
        # the feature's whole rank range fits the dense histogram: no pass for min and max
        return _histogram(f, rows, s, e, R, nd_f, np.int64(0), nd_f, hist, occ, dist_rank,
                          dist_counts, nan_counts, cmap)
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
    k = 0
    if rmax < 0:
        for j in range(m):
            p = rows[s + j]
            nan_counts[cmap[cls_of(p)]] += wt_of(p)
        return 0
    span = rmax - rmin + 1
    if span <= 2 * m + 16 and span <= occ.shape[0]:
        return _histogram(f, rows, s, e, R, nd_f, rmin, span, hist, occ, dist_rank, dist_counts,
                          nan_counts, cmap)
    mm = np.int64(0)
    for j in range(m):
        p = rows[s + j]
        r = np.int64(R[f, row_of(p)])
        if r == nd_f:
            nan_counts[cmap[cls_of(p)]] += wt_of(p)
            continue
        keys[mm] = ((r - rmin) << 32) | (p & _LOW32)
        mm += 1
    if mm >= _RADIX_MIN:
        if general is None:
            raise ValueError("the lean growth routine has no radix sort")
        radix_sort_high(keys, keys2, mm, span)
    elif general is None or mm <= _INSERTION_MAX:
        # the lean routine's nodes hold at most about 120 keys here: no ndarray.sort to compile
        insertion_sort(keys, mm)
    else:
        sort_head(keys, mm)
    prev = np.int64(-1)
    for q in range(mm):
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


@njit(inline="always", **NUMBA_FLAGS)
def _scan_complete(criterion, dist_counts, k, node_counts, n_node, pmass, table, min_side,
                   left):
    """``scan_thresholds`` for a node without missing values: the impurity of both sides is
    computed inline from the running left counts (the hot loop of deterministic trees)."""
    C = dist_counts.shape[1]
    if C == 2 and criterion != GINI:
        return _scan_complete_two(dist_counts, k, node_counts, n_node, pmass, table, min_side,
                                  left)
    if C == 3 and criterion != GINI:
        return _scan_complete_three(dist_counts, k, node_counts, n_node, pmass, table,
                                    min_side, left)
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


@njit(inline="always", **NUMBA_FLAGS)
def _scan_complete_two(dist_counts, k, node_counts, n_node, pmass, table, min_side, left):
    """``_scan_complete`` for two classes and entropy-based criteria, the counts in scalars.

    The same operations in the same order as the general loop: the left and row counts are
    integers held exactly in float64, so ``nl = l0 + l1`` equals the loop's ``0.0 + l0 + l1``,
    and ``ml`` adds the two classes' terms as the loop does (``0.0 + x`` is ``x`` for the
    non-negative terms), so every gain and tie decision has the same bits.
    """
    n0 = node_counts[0]
    n1 = node_counts[1]
    l0 = 0.0
    l1 = 0.0
    best = -np.inf
    best_i = -1
    n_ties = 0
    best_nl = 0.0
    for i in range(k - 1):
        l0 += dist_counts[i, 0]
        l1 += dist_counts[i, 1]
        nl = l0 + l1
        nr = n_node - nl
        if nl < min_side or nr < min_side:
            continue
        ml = (table[np.int64(l0)] + table[np.int64(n0 - l0)]) + (
            table[np.int64(l1)] + table[np.int64(n1 - l1)])
        g = (pmass - table[np.int64(nl)] - table[np.int64(nr)] + ml) / n_node
        if best_i >= 0 and is_tie(g, best):
            n_ties += 1
        elif g > best:
            best = g
            best_i = i
            n_ties = 0
            best_nl = nl
    left[0] = l0
    left[1] = l1
    best_si = 0.0
    if best_i >= 0:
        best_si = binary_split_info(best_nl, n_node - best_nl, n_node, table)
    return best, best_i, False, n_ties + 1, best_si


@njit(inline="always", **NUMBA_FLAGS)
def _scan_complete_three(dist_counts, k, node_counts, n_node, pmass, table, min_side, left):
    """``_scan_complete_two`` for three classes (the same reasoning: the loop's operations in
    its order, ``ml`` summed class by class from 0.0)."""
    n0 = node_counts[0]
    n1 = node_counts[1]
    n2 = node_counts[2]
    l0 = 0.0
    l1 = 0.0
    l2 = 0.0
    best = -np.inf
    best_i = -1
    n_ties = 0
    best_nl = 0.0
    for i in range(k - 1):
        l0 += dist_counts[i, 0]
        l1 += dist_counts[i, 1]
        l2 += dist_counts[i, 2]
        nl = l0 + l1 + l2
        nr = n_node - nl
        if nl < min_side or nr < min_side:
            continue
        ml = (table[np.int64(l0)] + table[np.int64(n0 - l0)]) + (
            table[np.int64(l1)] + table[np.int64(n1 - l1)])
        ml += table[np.int64(l2)] + table[np.int64(n2 - l2)]
        g = (pmass - table[np.int64(nl)] - table[np.int64(nr)] + ml) / n_node
        if best_i >= 0 and is_tie(g, best):
            n_ties += 1
        elif g > best:
            best = g
            best_i = i
            n_ties = 0
            best_nl = nl
    left[0] = l0
    left[1] = l1
    left[2] = l2
    best_si = 0.0
    if best_i >= 0:
        best_si = binary_split_info(best_nl, n_node - best_nl, n_node, table)
    return best, best_i, False, n_ties + 1, best_si


@inner
def binary_split_info(a, b, n_node, table):
    """``split_info`` of two branches of a and b rows, without an array per call (the same
    sums in the same order, so the same bits)."""
    s = 0.0
    s += table[np.int64(a)]
    s += table[np.int64(b)]
    return (table[np.int64(n_node)] - s) / n_node


@njit(inline="always", **NUMBA_FLAGS)
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


@njit(inline="always", **NUMBA_FLAGS)
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


@njit(inline="always", **NUMBA_FLAGS)
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


PAIR_DRAWS = 8


@inner
def midpoint(lo, hi):
    """Midpoint threshold t with lo <= t < hi (guards the rounding case t == hi)."""
    t = lo + (hi - lo) * 0.5
    if not np.isfinite(t):
        # hi - lo beyond the largest double (values of both signs near it): halves first
        t = lo * 0.5 + hi * 0.5
    if t >= hi:
        t = lo
    return t


@inner
def split_threshold(uniq, base, r_lo, r_hi, binned):
    """Threshold of a deterministic test sending ranks <= r_lo left, r_hi the next rank present
    at the node: the midpoint of their values (exact search), or on binned features the upper
    edge of bin r_lo (``uniq`` then holds each bin's upper edge; engine.forest.bin_feature)."""
    if binned:
        return uniq[base + r_lo]
    return midpoint(uniq[base + r_lo], uniq[base + r_hi])


@inner
def continuous_available(f, rows, s, e, Xc):
    """At least two distinct non-missing values (or nominal codes) of feature f at the node,
    stopping at the first value that differs."""
    have = False
    v0 = 0.0
    for j in range(e - s):
        v = Xc[f, row_of(rows[s + j])]
        if np.isnan(v):
            continue
        if not have:
            v0 = v
            have = True
        elif v != v0:
            return True
    return False


@inner
def min_max(f, rows, s, e, Xc):
    """Minimum and maximum non-missing value of feature f at the node."""
    lo = np.inf
    hi = -np.inf
    for j in range(e - s):
        v = Xc[f, row_of(rows[s + j])]
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    return lo, hi


@njit(**NUMBA_FLAGS)
def pair_midpoint(f, rows, s, e, Xc, state):
    """Liu et al.'s random threshold: midpoint of two random rows' differing values.

    Returns (found, threshold); not found when the node has fewer than two distinct
    non-missing values of f. The first value is uniform over the non-missing rows, the second
    over those with another value (rejection sampling). Only after ``PAIR_DRAWS`` rejections in
    a row does it scan the node to learn whether a second value exists at all: measured,
    scanning first cost more than the split itself at small nodes.
    """
    m = e - s
    va = np.nan
    k = 0
    while np.isnan(va):
        va = Xc[f, row_of(rows[s + rand_int(state, m)])]
        k += 1
        if k == PAIR_DRAWS and np.isnan(va) and not continuous_available(f, rows, s, e, Xc):
            return False, np.nan
    k = 0
    while True:
        vb = Xc[f, row_of(rows[s + rand_int(state, m)])]
        if not np.isnan(vb) and vb != va:
            break
        k += 1
        if k == PAIR_DRAWS and not continuous_available(f, rows, s, e, Xc):
            return False, np.nan
    if va < vb:
        return True, midpoint(va, vb)
    return True, midpoint(vb, va)


@njit(_nrt=True, **NUMBA_FLAGS)
def pair_distinct_midpoint(f, rows, s, e, Xc, state):
    """Liu et al.'s random threshold with "a value of nu" read as one of the node's distinct
    values: two different distinct non-missing values, each pair equally likely (a value many
    rows share is drawn no more often than a rare one). Returns (found, threshold)."""
    m = e - s
    vals = np.empty(m)
    k = 0
    for j in range(m):
        v = Xc[f, row_of(rows[s + j])]
        if not np.isnan(v):
            vals[k] = v
            k += 1
    if k < 2:
        return False, np.nan
    u = np.unique(vals[:k])
    n = u.shape[0]
    if n < 2:
        return False, np.nan
    a = rand_int(state, n)
    b = rand_int(state, n - 1)
    if b >= a:
        b += 1
    return True, midpoint(u[min(a, b)], u[max(a, b)])


@njit(**NUMBA_FLAGS)
def uniform_threshold(lo, hi, state):
    """Threshold uniform in [lo, hi), never equal to hi."""
    u = rand_float(state)
    t = lo + u * (hi - lo)
    if not np.isfinite(t):
        # hi - lo beyond the largest double: drawn on the halves (exact scaling), which kept
        # every draw at lo and cut off one row at a time on data spanning +-1e308
        t = 2.0 * (lo * 0.5 + u * (hi * 0.5 - lo * 0.5))
    if t >= hi:
        t = lo
    return t


@njit(_nrt=False, **NUMBA_FLAGS)
def rank_threshold(f, t, uniq, uniq_off):
    """Largest global rank whose value is <= t, so that x <= t  <=>  rank(x) <= it."""
    # np.searchsorted(uniq[base:end], t, side="right") - 1 by hand, the same steps and
    # comparison (a NaN t counts as above every value): numba's is four more functions to
    # compile on a first fit
    base = uniq_off[f]
    lo = base
    hi = uniq_off[f + 1]
    while lo < hi:
        mid = lo + ((hi - lo) >> 1)
        if t != t or uniq[mid] <= t:
            lo = mid + 1
        else:
            hi = mid
    return lo - base - 1


@inner(_nrt=False)
def partition_threshold(f, thr, missing, nan_left, rows, s, e, K, out, left_counts, nan_counts):
    """Write rows[s:e] into out[s:e]: first the rows going left (K[f, row] <= thr, or missing
    when ``nan_left``), then the others; returns the end of the left block and fills the class
    counts of the rows with K <= thr and of the missing rows.

    ``K`` is either the int32 global ranks (deterministic splits: ``thr`` a rank, ``missing``
    the missing-value rank) or the float64 values (random splits: ``thr`` the threshold,
    ``missing`` NaN); numba compiles one version for each. The counts are int64 arrays,
    taken in a second pass over the written block (measured: counting inside the partition
    loop, in floats, doubled its cost). Measured: ranks are faster where the
    scan already gives the rank threshold, values where the threshold was drawn as a value.
    The loop is branch-free: every entry is written at both cursors of ``out`` and only the
    matching cursor advances (at random nodes the comparison is a coin flip for the branch
    predictor); writing into a second buffer spares copying back.
    """
    nl = 0
    nr = 0
    n_miss = 0
    for j in range(s, e):
        p = rows[j]
        k = K[f, row_of(p)]
        miss = np.int64(k == missing) | np.int64(k != k)
        g = np.int64(k <= thr) | (miss & nan_left)
        out[s + nl] = p
        out[e - 1 - nr] = p
        nl += g
        nr += 1 - g
        n_miss += miss
    # class counts from the written blocks: a separate sequential pass costs less than
    # counting inside the loop above
    left_counts[:] = 0
    nan_counts[:] = 0
    for j in range(s, s + nl):
        left_counts[cls_of(out[j])] += wt_of(out[j])
    if n_miss > 0:
        lo = s if nan_left else s + nl
        hi = s + nl if nan_left else e
        for j in range(lo, hi):
            p = out[j]
            k = K[f, row_of(p)]
            if k == missing or k != k:
                nan_counts[cls_of(p)] += wt_of(p)
                if nan_left:
                    left_counts[cls_of(p)] -= wt_of(p)
    return s + nl


@inner
def partition_nominal(f, n_codes, nan_child, rows, s, e, Xc, scratch, bucket_start):
    """Stable counting sort of rows[s:e] by nominal code into scratch[s:e]; missing rows join
    ``nan_child``.

    ``bucket_start[:n_codes + 1]`` receives the boundaries of each child's block.
    """
    bucket_start[: n_codes + 1] = 0
    for j in range(s, e):
        v = Xc[f, row_of(rows[j])]
        b = nan_child if np.isnan(v) else np.int64(v)
        bucket_start[b + 1] += 1
    bucket_start[0] = s
    for b in range(n_codes):
        bucket_start[b + 1] += bucket_start[b]
    fill = bucket_start[:n_codes].copy()
    for j in range(s, e):
        p = rows[j]
        v = Xc[f, row_of(p)]
        b = nan_child if np.isnan(v) else np.int64(v)
        scratch[fill[b]] = p
        fill[b] += 1

