"""The exact deterministic search's fast paths against slow NumPy references.

The threshold scan, the per-node summaries and the small-node sort each have a fast path for
the common case (two classes, small nodes; the one-pass scans of two and three classes and of
four or more); their answers must equal, bit for bit, what the general formulas give, or trees
would change.
"""

import numpy as np
import pytest
from numba import njit

from treelab.engine.kernels import _presort, _scan, _split
from treelab.engine.kernels._criteria import xlogx_table
from treelab.engine.kernels._split import TIE_RTOL, insertion_sort

# the summaries and scans are kernels that only kernels call (compiled without a Python entry
# point, engine.kernels._config.inner): the tests call them through jitted forwarders


def _from_python(kernel):
    @njit
    def call(*args):
        return kernel(*args)

    return call


scan_thresholds = _from_python(_split.scan_thresholds)
summarize_continuous = _from_python(_split.summarize_continuous)
continuous_pass = _from_python(_split.continuous_pass)
summarize_sorted = _from_python(_presort.summarize_sorted)
scan_sorted_few = _from_python(_scan.scan_sorted_few)
scan_histogram_few = _from_python(_scan.scan_histogram_few)
scan_sorted_many = _from_python(_scan.scan_sorted_many)
scan_histogram_many = _from_python(_scan.scan_histogram_many)


def fused_sorted(src, s, e, yw, lookup, rmin, C, cmap, node, n, pmass, table, min_side):
    """The fused scan of a sorted stream the search runs for C classes: the register scan of
    two or three, the kept terms of four or more (junk in their work arrays beforehand)."""
    if C <= 3:
        return scan_sorted_few(src, s, e, yw, lookup, rmin, C, cmap, node, n, pmass, table,
                               min_side)
    return scan_sorted_many(src, s, e, yw, lookup, rmin, C, cmap, node, n, pmass, table,
                            min_side, np.full(2 * C + 2, 7), np.full(C + 2, -3.25))


def fused_histogram(hist, occ, span, rmin, C, node, n, pmass, table, min_side):
    """``fused_sorted`` for the dense histogram."""
    if C <= 3:
        return scan_histogram_few(hist, occ, span, rmin, C, node, n, pmass, table, min_side)
    return scan_histogram_many(hist, occ, span, rmin, C, node, n, pmass, table, min_side,
                               np.full(2 * C + 2, 7), np.full(C + 2, -3.25))


def reference_scan(dist_counts, min_side, table):
    """Best threshold of a node without missing values, one candidate at a time in NumPy:
    the entropy gain as ``(n H(parent) - n_l H(left) - n_r H(right)) / n`` through
    ``x log2 x`` of the integer counts, the first best kept unless a later one beats it by
    more than the tie tolerance (then counted as a tie)."""
    node = dist_counts.sum(axis=0)
    n = float(node.sum())
    pmass = table[int(n)] - sum(table[int(c)] for c in node)
    best, best_i, ties, best_nl = -np.inf, -1, 0, 0.0
    cum = np.cumsum(dist_counts, axis=0)
    for i in range(dist_counts.shape[0] - 1):
        left = cum[i]
        nl = float(left.sum())
        nr = n - nl
        if nl < min_side or nr < min_side:
            continue
        ml = 0.0
        for c in range(left.shape[0]):
            ml += table[int(left[c])] + table[int(node[c] - left[c])]
        g = (pmass - table[int(nl)] - table[int(nr)] + ml) / n
        if best_i >= 0 and abs(g - best) <= TIE_RTOL * max(abs(g), abs(best)):
            ties += 1
        elif g > best:
            best, best_i, ties, best_nl = g, i, 0, nl
    si = 0.0
    if best_i >= 0:
        si = (table[int(n)] - (0.0 + table[int(best_nl)] + table[int(n - best_nl)])) / n
    return best, best_i, ties + 1, si, pmass


def kernel_scan(dist_counts, min_side, table, pmass):
    k, C = dist_counts.shape
    node = dist_counts.sum(axis=0).astype(float)
    work = np.zeros((3, C))
    return scan_thresholds(1, np.ascontiguousarray(dist_counts, dtype=float), k, np.zeros(C),
                           node, float(node.sum()), pmass, table, float(min_side), work[0],
                           work[1], work[2])


@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("min_side", [1, 2, 7])
def test_threshold_scan_matches_the_reference_bit_for_bit(n_classes, min_side):
    rng = np.random.default_rng(100 * n_classes + min_side)
    table = xlogx_table(20000)
    for trial in range(300):
        k = int(rng.integers(2, 60))
        # weights as bootstrap multiplicities; some rows all one class (pure runs), some
        # counts repeated so that thresholds tie exactly
        dist = rng.integers(0, 4, size=(k, n_classes)).astype(float)
        if trial % 3 == 0:
            dist[k // 2:] = dist[: k - k // 2][::-1]
        dist[dist.sum(axis=1) == 0, 0] = 1.0
        best, best_i, nt, si, pmass = reference_scan(dist, min_side, table)
        g, bi, nan_left, ties, k_si = kernel_scan(dist, min_side, table, pmass)
        assert bi == best_i
        assert not nan_left
        if best_i >= 0:
            assert g == best  # the same bits, not only close
            assert ties == nt
            assert k_si == si


def test_threshold_scan_counts_exact_ties():
    # two classes mirrored: thresholds after row 0 and after row 2 each leave a pure side of
    # 3 rows and a (2, 5) side (gain 1 - 0.7 H(2/7) = 0.396 bits); the middle one leaves
    # (4, 1) and (1, 4) (gain 1 - H(1/5) = 0.278): the first of the two is kept, 2 tie
    table = xlogx_table(100)
    dist = np.array([[3.0, 0.0], [1.0, 1.0], [1.0, 1.0], [0.0, 3.0]])
    best, best_i, nt, si, pmass = reference_scan(dist, 1, table)
    g, bi, _, ties, _ = kernel_scan(dist, 1, table, pmass)
    assert (bi, ties) == (best_i, nt) == (0, 2)
    assert abs(g - (1 - 0.7 * (-(2 / 7) * np.log2(2 / 7) - (5 / 7) * np.log2(5 / 7)))) < 1e-12
    dist = np.array([[3.0, 0.0], [0.0, 3.0], [3.0, 0.0], [0.0, 3.0]])
    best, best_i, nt, si, pmass = reference_scan(dist, 1, table)
    g, bi, _, ties, _ = kernel_scan(dist, 1, table, pmass)
    # thresholds 0 and 2: a pure side of 3 rows and a (3, 6) side, mirrored
    assert (bi, ties, g) == (best_i, nt, best) == (0, 2, best)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 17, 48, 49, 200])
def test_insertion_sort_sorts_like_numpy(n):
    rng = np.random.default_rng(n)
    keys = (rng.integers(0, 40, n).astype(np.int64) << 32) | rng.integers(0, 6, n)
    expected = np.sort(keys)
    work = np.concatenate([keys, np.full(3, -1, dtype=np.int64)])
    insertion_sort(work, n)
    np.testing.assert_array_equal(work[:n], expected)
    np.testing.assert_array_equal(work[n:], -1)  # nothing past n touched


@pytest.mark.parametrize("C", [2, 3, 4])
@pytest.mark.parametrize("general", [True, None])
@pytest.mark.parametrize("nd", [1500, 300_000])
@pytest.mark.parametrize("m", [3, 20, 48, 49, 60, 400, 1023, 1024, 1900])
def test_small_node_summary_matches_numpy(m, nd, general, C):
    # a wide rank range over few rows: the node sorts its keys (by insertion up to 48, and
    # always in the lean routine, general=None; above, by radix passes of 8 bits below 1,024
    # keys and of 11 bits from there: 2 or 3 passes for the 11 and 19 bits of the two ranges)
    # (two and three classes: counted in registers, four in memory)
    rng = np.random.default_rng(m)
    n = 2000
    R = rng.integers(0, nd + 1, size=(1, n)).astype(np.int32)  # rank nd = missing
    y = rng.integers(0, C, n)
    w = rng.integers(1, 4, n)
    rows_idx = np.sort(rng.choice(n, m, replace=False))
    rows = (rows_idx.astype(np.int64) << 32) | (w[rows_idx].astype(np.int64) << 16) | y[rows_idx]
    keys = np.empty(n, dtype=np.int64)
    keys2 = np.empty(n, dtype=np.int64)
    hist = np.zeros(64 * C)
    occ = np.zeros(64, dtype=np.uint8)  # small: forces the sorting path
    dist_rank = np.empty(n, dtype=np.int64)
    dist_counts = np.zeros((n, C))
    nan_counts = np.zeros(C)
    cmap = np.arange(C, dtype=np.int64)
    k = summarize_continuous(0, rows, 0, m, R, nd, keys, keys2, hist, occ, dist_rank,
                             dist_counts, nan_counts, cmap, general)
    r = R[0, rows_idx]
    present = np.unique(r[r != nd])
    assert k == present.shape[0]
    np.testing.assert_array_equal(dist_rank[:k], present)
    for c in range(C):
        expected = [w[rows_idx][(r == v) & (y[rows_idx] == c)].sum() for v in present]
        np.testing.assert_array_equal(dist_counts[:k, c], expected)
        assert nan_counts[c] == w[rows_idx][(r == nd) & (y[rows_idx] == c)].sum()


@pytest.mark.parametrize("C", [2, 3, 5])
@pytest.mark.parametrize("m", [1, 7, 300])
def test_presorted_summary_matches_numpy(m, C):
    # a node's segment of a presorted list (rank << 32 | row, increasing rank, missing rows
    # last with rank nd); two and three classes are counted in registers, five in memory
    rng = np.random.default_rng(100 + m + C)
    n, nd = 1000, 40
    R = rng.integers(0, nd + 1, n)  # rank nd = missing
    y = rng.integers(0, C, n)
    w = rng.integers(1, 5, n)
    rows_idx = rng.choice(n, m, replace=False)
    seg = rows_idx[np.argsort(R[rows_idx], kind="stable")]
    lists = np.full((2, m + 6), -1, dtype=np.int64)
    lists[1, 3:3 + m] = (R[seg].astype(np.int64) << 32) | seg
    yw = (w.astype(np.int64) << 16) | y
    # classes numbered through a reversed class map
    cmap = np.arange(C, dtype=np.int64)[::-1].copy()
    dist_rank = np.empty(m + 1, dtype=np.int64)
    dist_counts = np.full((m + 1, C), np.nan)
    nan_counts = np.full(C, np.nan)
    k = summarize_sorted(lists, 1, 3, 3 + m, yw, nd, dist_rank, dist_counts, nan_counts, cmap)
    r = R[rows_idx]
    present = np.unique(r[r != nd])
    assert k == present.shape[0]
    np.testing.assert_array_equal(dist_rank[:k], present)
    for c in range(C):
        sel = y[rows_idx] == c
        expected = [w[rows_idx][(r == v) & sel].sum() for v in present]
        np.testing.assert_array_equal(dist_counts[:k, cmap[c]], expected)
        assert nan_counts[cmap[c]] == w[rows_idx][(r == nd) & sel].sum()


@pytest.mark.parametrize("n_kids", [2, 3])
def test_list_partition_is_the_stable_partition(n_kids):
    from treelab.engine.kernels._presort import partition_lists

    rng = np.random.default_rng(n_kids)
    n, s, e = 300, 40, 250
    lists = np.empty((3, n), dtype=np.int64)
    perm = rng.permutation(n)
    node_rows, others = perm[s:e], np.concatenate([perm[:s], perm[e:]])
    for q in range(3):  # every list holds the node's rows in [s, e), each in its own order
        rows = rng.permutation(others)
        rows = np.concatenate([rows[:s], rng.permutation(node_rows), rows[s:]])
        lists[q] = (np.arange(n, dtype=np.int64) << 32) | rows
    child_of = rng.integers(0, n_kids, n).astype(np.int32)
    expected = lists.copy()
    for q in range(3):
        seg = lists[q, s:e]
        kid = child_of[seg & 0xFFFFFFFF]
        expected[q, s:e] = np.concatenate([seg[kid == b] for b in range(n_kids)])
    seg_kids = child_of[lists[0, s:e] & 0xFFFFFFFF]
    begin = s + np.concatenate([[0], np.cumsum(np.bincount(seg_kids, minlength=n_kids))[:-1]])
    scratch = np.full(n, -7, dtype=np.int64)
    partition_lists(lists, s, e, child_of, begin.astype(np.int64), n_kids,
                    np.zeros(n_kids + 1, dtype=np.int64), scratch)
    np.testing.assert_array_equal(lists, expected)  # outside [s, e) untouched too



@pytest.mark.parametrize(("keep_first", "keep_second"),
                         [(True, False), (False, True), (False, False)])
def test_list_partition_writes_only_the_children_kept(keep_first, keep_second):
    """Of two children, a child left out (it will never scan its lists) keeps no block: the
    kept child's block is the stable partition's, in place, and nothing outside [s, e) moves;
    neither kept, the lists are not touched at all."""
    from treelab.engine.kernels._presort import partition_lists

    rng = np.random.default_rng(7)
    n, s, e = 300, 40, 250
    lists = np.empty((3, n), dtype=np.int64)
    perm = rng.permutation(n)
    for q in range(3):
        rows = np.concatenate([perm[:s], rng.permutation(perm[s:e]), perm[e:]])
        lists[q] = (rng.permutation(n).astype(np.int64) << 32) | rows
    child_of = rng.integers(0, 2, n).astype(np.int32)
    before = lists.copy()
    seg_kids = child_of[lists[0, s:e] & 0xFFFFFFFF]
    mid = s + int(np.sum(seg_kids == 0))
    partition_lists(lists, s, e, child_of, np.array([s, mid], dtype=np.int64), 2,
                    np.zeros(3, dtype=np.int64), np.full(n, -7, dtype=np.int64),
                    keep_first, keep_second)
    np.testing.assert_array_equal(lists[:, :s], before[:, :s])
    np.testing.assert_array_equal(lists[:, e:], before[:, e:])
    if not (keep_first or keep_second):
        np.testing.assert_array_equal(lists, before)
    for q in range(3):
        seg = before[q, s:e]
        kid = child_of[seg & 0xFFFFFFFF]
        if keep_first:
            np.testing.assert_array_equal(lists[q, s:mid], seg[kid == 0])
        if keep_second:
            np.testing.assert_array_equal(lists[q, mid:e], seg[kid == 1])

def _reference_candidate(r, y, w, C, min_side, table):
    """Distinct ranks and per-rank class counts of a node in NumPy, then ``reference_scan``:
    (k, gain, threshold index, ties, split info, rows left of the best threshold, the ranks
    either side of it)."""
    present = np.unique(r)
    dist = np.array([[w[(r == v) & (y == c)].sum() for c in range(C)] for v in present],
                    dtype=float)
    best, best_i, nt, si, pmass = reference_scan(dist, min_side, table)
    nl = int(dist[: best_i + 1].sum()) if best_i >= 0 else 0
    lo, hi = (present[best_i], present[best_i + 1]) if best_i >= 0 else (0, 0)
    return present.shape[0], best, best_i, nt, si, nl, lo, hi, dist.sum(axis=0), pmass


def _check_fused(got, ref):
    k, g, bi, nt, si, nl, lo, hi = got
    assert k == ref[0]
    assert bi == ref[2]
    if bi >= 0:
        # the same bits, not only close, and the same ties, split info and threshold ranks
        assert (g, nt, si, nl, lo, hi) == (ref[1], ref[3], ref[4], ref[5], ref[6], ref[7])


def _node_ranks(rng, trial, m, nd):
    """Ranks of m rows: spread wide, or a few values repeated (exact ties between
    thresholds: the second half mirrors the first)."""
    if trial % 3 == 0:
        half = rng.integers(0, 6, (m + 1) // 2)
        return np.concatenate([half, nd - 1 - half[: m // 2]])
    return rng.integers(0, nd, m)


@pytest.mark.parametrize("C", [2, 3, 4, 7])
@pytest.mark.parametrize("min_side", [1, 2, 7])
def test_fused_presorted_scan_matches_the_reference(C, min_side):
    # a presorted list's segment summarised and scanned in one pass (_scan.scan_sorted_few,
    # scan_sorted_many from four classes; lookup of each row's weight and class) against the
    # summary and scan in NumPy
    rng = np.random.default_rng(10 * C + min_side)
    table = xlogx_table(5000)
    n, nd = 400, 60
    for trial in range(120):
        m = int(rng.integers(1, 300))
        rows_idx = rng.choice(n, m, replace=False)
        R = np.full(n, -1)
        R[rows_idx] = _node_ranks(rng, trial, m, nd)
        y = rng.integers(0, C, n)
        w = rng.integers(1, 5, n)
        seg = rows_idx[np.argsort(R[rows_idx], kind="stable")]
        src = np.full(m + 5, -1, dtype=np.int64)
        src[2:2 + m] = (R[seg].astype(np.int64) << 32) | seg
        yw = (w.astype(np.int64) << 16) | y
        cmap = np.arange(C, dtype=np.int64)[::-1].copy()  # classes numbered in reverse
        ref = _reference_candidate(R[rows_idx], cmap[y[rows_idx]], w[rows_idx], C, min_side,
                                   table)
        got = fused_sorted(src, 2, 2 + m, yw, True, np.int64(0), C, cmap, ref[8],
                           float(ref[8].sum()), ref[9], table, min_side)
        _check_fused(got, ref)


@pytest.mark.parametrize("C", [2, 3, 4, 7])
@pytest.mark.parametrize("min_side", [1, 2, 7])
@pytest.mark.parametrize("nd", [40, 300_000])
def test_fused_node_scan_matches_the_reference(C, min_side, nd):
    # a node's rows counted in the dense histogram (40 ranks) or as sorted keys (a wide rank
    # range), then summarised and scanned in one pass (_scan.scan_histogram_few,
    # scan_sorted_few on the keys; the *_many scans from four classes) against the summary
    # and scan in NumPy; the histogram and its occupancy are left zeroed
    rng = np.random.default_rng(1000 * C + min_side + nd)
    table = xlogx_table(5000)
    n = 1500
    keys = np.empty(n, dtype=np.int64)
    keys2 = np.empty(n, dtype=np.int64)
    hist = np.zeros(400 * C)
    occ = np.zeros(400, dtype=np.uint8)
    nan_counts = np.zeros(C)
    cmap = np.arange(C, dtype=np.int64)[::-1].copy()
    seen = []
    for trial in range(60):
        m = int(rng.integers(1, 1200))
        R = _node_ranks(rng, trial, n, nd).astype(np.int32).reshape(1, n)
        y = rng.integers(0, C, n)
        w = rng.integers(1, 4, n)
        rows_idx = np.sort(rng.choice(n, m, replace=False))
        rows = ((rows_idx.astype(np.int64) << 32) | (w[rows_idx].astype(np.int64) << 16)
                | y[rows_idx])
        ref = _reference_candidate(R[0, rows_idx], cmap[y[rows_idx]], w[rows_idx], C,
                                   min_side, table)
        how, cnt, rmin = continuous_pass(0, rows, 0, m, R, nd, keys, keys2, hist, occ,
                                         nan_counts, cmap, C, True)
        seen.append(how)
        args = (C, ref[8], float(ref[8].sum()), ref[9], table, min_side)
        if how == 1:
            got = fused_histogram(hist, occ, cnt, rmin, *args)
        else:
            got = fused_sorted(keys, 0, cnt, keys, False, rmin, C, cmap, *args[1:])
        _check_fused(got, ref)
        assert not hist.any() and not occ.any() and not nan_counts.any()
    # mostly the path the rank range asks for (small nodes of the narrow range sort keys,
    # nodes on one side of the wide range use the histogram)
    assert seen.count(1 if nd == 40 else 2) > 40
