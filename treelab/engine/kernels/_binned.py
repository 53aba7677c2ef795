"""The binned split search (``max_bins``): one candidate feature at one node, counted and
scanned in one pass over an integer histogram of its bin codes.

The general search (``_split.summarize_continuous`` then ``_split.scan_thresholds``) finds a
node's distinct ranks (a pass for their minimum and maximum, a float histogram or a key sort)
and copies their class counts into a compact float table before scanning it. Bin codes are
few (at most ``max_bins``), so here they are counted straight into a class-major integer
histogram ``hist[c * B + bin]`` (each class's counts contiguous), the occupied bins listed as
they are first hit, and the scan walks the occupied bins in increasing order: the listed ones
sorted when they are few against the bins, every bin otherwise. Two classes present at the
node, the common case, are scanned with scalar running counts.

The result is the general search's, bit for bit: the counts are integers (exact in int64 and
in float64 alike, below 2**53), and every gain is computed with the same expression, in the
same order of operations, as ``_split._scan_complete`` (no missing rows at the node) and
``_split.scan_thresholds`` (missing rows tried on both sides); only occupied bins are
thresholds, as only distinct ranks are there (ties count the same).

The functions called per candidate are inlined into their callers (numba's IR inlining): as
separate functions every call took and released a reference on each array argument, atomic
counts that were a fifth of a binned forest's time (perf, 50,000 x 20).
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from treelab.engine.kernels._config import NUMBA_FLAGS
from treelab.engine.kernels._criteria import GINI, binary_gain
from treelab.engine.kernels._rng import rand_int
from treelab.engine.kernels._sort import sort_head
from treelab.engine.kernels._split import binary_split_info, cls_of, is_tie, row_of, wt_of

# below this many occupied bins per bin of the feature's range the occupied list is sorted
# (insertion sort) instead of walking every bin
_SPARSE = 8
_SMALL_SORT = 32
# rows ahead whose bin codes are prefetched, at nodes holding under 1/_SPARSE_ROWS of the
# column's rows
_AHEAD = 16
_SPARSE_ROWS = 16
# nodes holding under 1/GATHER_ROWS of the rows gather their candidates' codes from the
# row-major copy (gather_codes); larger ones read the feature-major codes, whose every line
# they use. At 50,000 x 500 (one thread, 20 trees, paired) 4 and 2 were level, 16 took 3-4%
# more CPU
GATHER_ROWS = 4


@intrinsic
def _prefetch(typingctx, a, i, j):
    """Prefetch a[i, j] (LLVM's prefetch: a hint, never a fault)."""
    sig = types.void(a, i, j)

    def codegen(context, builder, signature, args):
        aty = signature.args[0]
        ary = context.make_array(aty)(context, builder, args[0])
        idx = [context.cast(builder, v, t, types.intp)
               for v, t in zip(args[1:], signature.args[1:], strict=True)]
        ptr = cgutils.get_item_pointer(context, builder, aty, ary, idx, wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(2), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(inline="always", **NUMBA_FLAGS)
def _sort_small(a, k):
    """Insertion sort of a[:k] (a few dozen bin codes at most)."""
    for i in range(1, k):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@njit(inline="always", **NUMBA_FLAGS)
def binned_histogram(f, rows, s, e, R, n_col, nd_f, hist, B, occ, lst, cmap, C, nan_counts):
    """Count the node's rows into ``hist[c * B + bin]`` (class c in column ``cmap[c]``, C
    classes) and the missing ones (bin ``nd_f``) into ``nan_counts``; list the occupied bins
    in ``lst[:k]`` in increasing order. Returns k.

    A node with at least as many rows as bins finds its occupied bins by walking the bins
    afterwards; a smaller one marks them in ``occ`` as they are first hit and lists them.

    The row loops have no branch that depends on a row's bin: missing rows are counted in
    the histogram's bin ``nd_f`` (below ``B``: B exceeds every feature's bins) and moved to
    ``nan_counts`` afterwards, and a first hit is listed by writing every bin and advancing
    the count only past new ones. The bin is a load that often misses the cache; a branch
    on it, mispredicted, discarded the loads of the following rows that were under way.
    ``n_col``: the rows of ``R``'s columns (the codes are prefetched at nodes holding under
    1/16 of them); 0 for codes already gathered (``gather_codes``).
    """
    m = e - s
    fu = np.uint64(f)
    ndu = np.uint64(nd_f)
    Bu = np.uint64(B)
    # rows far apart in the column (a cache line each): their codes are fetched _AHEAD rows
    # early; where they are dense the hardware's own prefetching serves better
    sparse = m * _SPARSE_ROWS < n_col
    if m >= nd_f:
        # unsigned indices: numba then skips the negative-index wraparound on each access
        for j in range(m):
            if sparse:
                _prefetch(R, fu, np.uint64(row_of(rows[s + min(j + _AHEAD, m - 1)])))
            p = rows[s + j]
            r = np.uint64(R[fu, np.uint64(row_of(p))])
            c = np.uint64(cmap[np.uint64(cls_of(p))])
            hist[c * Bu + r] += wt_of(p)
        k = 0
        for r in range(nd_f):
            tot = np.int64(0)
            for c in range(C):
                tot += hist[c * B + r]
            lst[k] = r
            k += tot > 0
    else:
        k = 0
        for j in range(m):
            if sparse:
                _prefetch(R, fu, np.uint64(row_of(rows[s + min(j + _AHEAD, m - 1)])))
            p = rows[s + j]
            r = np.uint64(R[fu, np.uint64(row_of(p))])
            c = np.uint64(cmap[np.uint64(cls_of(p))])
            hist[c * Bu + r] += wt_of(p)
            new = occ[r] ^ np.uint8(1)
            occ[r] = 1
            # in bounds: k <= j < m < nd_f < B
            lst[np.uint64(k)] = r
            k += new
        if occ[ndu]:
            # the missing bin was listed: take it out
            occ[ndu] = 0
            q = 0
            while lst[q] != nd_f:
                q += 1
            k -= 1
            lst[q] = lst[k]
        if k * _SPARSE < nd_f:
            if k <= _SMALL_SORT:
                _sort_small(lst, k)
            else:
                sort_head(lst, k)
        else:
            q = 0
            for r in range(nd_f):
                lst[q] = r
                q += occ[r]
    for c in range(C):
        i = np.uint64(c) * Bu + ndu
        nan_counts[c] = np.float64(hist[i])
        hist[i] = 0
    return k


@njit(inline="always", **NUMBA_FLAGS)
def _clear(hist, B, occ, lst, k, C):
    """Zero the bins a candidate touched, for the next one (``occ`` is zero already where
    ``binned_histogram`` walked the bins)."""
    for q in range(k):
        r = lst[q]
        occ[r] = 0
        for c in range(C):
            hist[c * B + r] = 0


@njit(inline="always", **NUMBA_FLAGS)
def _scan2(criterion, hist, B, lst, k, node_counts, n_node, pmass, table, min_side):
    """``_split._scan_complete`` for two classes present, on the listed bins."""
    n0 = node_counts[0]
    n1 = node_counts[1]
    l0 = np.int64(0)
    l1 = np.int64(0)
    best = -np.inf
    best_i = -1
    n_ties = 0
    best_nl = 0.0
    gini = criterion == GINI
    for i in range(k - 1):
        r = lst[i]
        l0 += hist[r]
        l1 += hist[B + r]
        a0 = np.float64(l0)
        a1 = np.float64(l1)
        nl = a0 + a1
        nr = n_node - nl
        if nl < min_side or nr < min_side:
            continue
        r0 = n0 - a0
        r1 = n1 - a1
        if gini:
            sl = a0 * a0 + a1 * a1
            sr = r0 * r0 + r1 * r1
            g = (sl / nl + sr / nr - pmass) / n_node
        else:
            ml = table[l0] + table[np.int64(r0)]
            ml += table[l1] + table[np.int64(r1)]
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
    return best, best_i, n_ties + 1, best_si


@njit(**NUMBA_FLAGS)
def _scan_general(criterion, hist, B, lst, k, C, nan_counts, n_nan, node_counts, n_node, pmass,
                  table, min_side, left, left_n, right_n):
    """``_split._scan_complete`` (no missing rows) and ``_split.scan_thresholds`` (missing rows
    tried on both sides) for any number of classes, on the listed bins."""
    for c in range(C):
        left[c] = 0.0
    best = -np.inf
    best_i = -1
    best_nan_left = False
    n_ties = 0
    best_a = 0.0
    best_b = 0.0
    gini = criterion == GINI
    n_nonnan = n_node - n_nan
    nl = 0.0
    for i in range(k - 1):
        r = lst[i]
        if n_nan == 0:
            for c in range(C):
                left[c] += hist[c * B + r]
            nl = 0.0
            for c in range(C):
                nl += left[c]
            nr = n_node - nl
            if nl < min_side or nr < min_side:
                continue
            if gini:
                sl = 0.0
                sr = 0.0
                for c in range(C):
                    sl += left[c] * left[c]
                    rc = node_counts[c] - left[c]
                    sr += rc * rc
                g = (sl / nl + sr / nr - pmass) / n_node
            else:
                ml = 0.0
                for c in range(C):
                    ml += table[np.int64(left[c])] + table[np.int64(node_counts[c] - left[c])]
                g = (pmass - table[np.int64(nl)] - table[np.int64(nr)] + ml) / n_node
            if best_i >= 0 and is_tie(g, best):
                n_ties += 1
            elif g > best:
                best = g
                best_i = i
                n_ties = 0
                best_a = nl
                best_b = nr
            continue
        for c in range(C):
            v = np.float64(hist[c * B + r])
            left[c] += v
            nl += v
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
    best_si = 0.0
    if best_i >= 0:
        if n_nan == 0:
            best_si = binary_split_info(best_a, n_node - best_a, n_node, table)
        else:
            best_si = binary_split_info(best_a, best_b, n_node, table)
    return best, best_i, best_nan_left, n_ties + 1, best_si


@njit(inline="always", **NUMBA_FLAGS)
def binned_candidate(criterion, f, rows, s, e, R, n_col, nd_f, hist, B, occ, lst, cmap, C,
                     nan_counts, node_counts, n_node, pmass, table, min_side, left, left_n,
                     right_n):
    """Best threshold of binned feature f at the node (classes numbered by ``cmap``, C of them
    present, their counts in ``node_counts``).

    Returns (k, gain, bin, missing-go-left, ties, split info, rows left, missing rows): k the
    occupied bins (the general search's distinct ranks; the feature is no candidate below 2),
    ``bin`` the last bin going left (-1: no threshold leaves ``min_side`` rows a side), rows
    left counting the non-missing rows of bins up to it.
    """
    k = binned_histogram(f, rows, s, e, R, n_col, nd_f, hist, B, occ, lst, cmap, C, nan_counts)
    n_nan = 0.0
    for c in range(C):
        n_nan += nan_counts[c]
    g = -np.inf
    bi = -1
    nan_left = False
    nt = 1
    si = 0.0
    if k >= 2:
        if C == 2 and n_nan == 0:
            g, bi, nt, si = _scan2(criterion, hist, B, lst, k, node_counts, n_node, pmass,
                                   table, min_side)
        else:
            g, bi, nan_left, nt, si = _scan_general(criterion, hist, B, lst, k, C, nan_counts,
                                                    n_nan, node_counts, n_node, pmass, table,
                                                    min_side, left, left_n, right_n)
    nl = np.int64(0)
    r_best = -1
    if bi >= 0:
        r_best = lst[bi]
        for q in range(bi + 1):
            for c in range(C):
                nl += hist[c * B + lst[q]]
    _clear(hist, B, occ, lst, k, C)
    return k, g, r_best, nan_left, nt, si, np.float64(nl), n_nan


@njit(inline="always", **NUMBA_FLAGS)
def gather_codes(n_draw, sample, nv, vis, perm, state, rows, s, e, Rt, bg, brows):
    """Draw the node's first ``n_draw`` candidate features as ``_select.deterministic_select``
    draws them (a partial Fisher-Yates shuffle of ``perm`` when ``sample``, else ``vis`` in
    order: the same draws from ``state``, in the same order), and copy their bin codes at the
    node's rows from the row-major copy ``Rt`` (row, feature) into ``bg[i, j]`` (the i-th
    candidate, the j-th row of the node); ``brows[j]`` is the node's j-th entry renumbered j,
    keeping its weight and class, so ``binned_candidate(i, brows, 0, e - s, bg, ...)`` counts
    the i-th candidate.

    At a node holding a small part of the rows, each row's code of a feature is a cache line
    of its own in the feature-major ``R``: K candidates read K lines a row. A row's codes of
    every feature lie together in ``Rt`` (d bytes: 8 lines at 500 features), so the
    candidates' codes cost at most that many lines a row, fetched in one pass; the histograms
    then read ``bg`` from the cache.
    """
    if sample:
        for i in range(n_draw):
            j = i + rand_int(state, nv - i)
            f = perm[j]
            perm[j] = perm[i]
            perm[i] = f
    src = perm if sample else vis
    m = e - s
    for j in range(m):
        p = rows[s + j]
        r = np.uint64(row_of(p))
        brows[j] = (np.int64(j) << 32) | (p & 0xFFFFFFFF)
        for i in range(n_draw):
            bg[i, j] = Rt[r, np.uint64(src[i])]
