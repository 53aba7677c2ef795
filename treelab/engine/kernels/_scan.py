"""The deterministic search's summary and threshold scan in one pass (entropy criteria, no
missing rows at the node): the most common candidate of the exact search.

``_split.summarize_continuous`` (or ``_presort.summarize_sorted``) writes every distinct rank's
class counts into ``dist_counts`` and ``_split.scan_thresholds`` reads them back; here each
rank's counts stay in integer registers and the threshold after a rank is scored as soon as
the next rank begins (``_split.scan_step``: the same operations in the same order, so the same
gains, ties and split information bit for bit). What is saved is the store and reload of
every rank's counts, their conversions from float, and a second loop over the ranks.

Four or more classes (``scan_sorted_many``, ``scan_histogram_many``): the loop of
``_split._scan_complete`` looks up both sides' ``x log2 x`` of every class at every
threshold, though between two thresholds only the classes of one rank's rows change (mostly
one class). Here each class keeps its term ``table[l_c] + table[n_c - l_c]``, recomputed when
a row of that class moves left, and a threshold sums the kept terms in class order: each term
is the expression the loop evaluates for the same counts, and the sum has the same order, so
the gains, ties and split information are the same bits. A sorted stream looks up two terms a
row instead of 2C a threshold (segmentation's seven classes: a fold batch of the spectrum
study 0.87 of the time before; benchmarks/README.md, "the kept terms"); the dense histogram
renews every class's term at each occupied bin, saving only the store and reload of its
counts (a branch on the classes a bin holds cost more than it saved on letter's 26). Both keep
each class's rows on either side as int64, which index the table directly: the float counts
of ``_scan_complete`` were converted twice a row (vowel's forests 0.89 of the time,
segmentation's 0.99; benchmarks/README.md, "Integer counts in the many-class scans").
"""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS, inner
from treelab.engine.kernels._presort import add_few, stream_entry
from treelab.engine.kernels._split import (
    few_split_info,
    is_tie,
    node_few,
    scan_step,
)


@inner(_nrt=False)
def scan_sorted_few(src, s, e, yw, lookup, rmin, C, cmap, node_counts, n_node, pmass, table,
                    min_side):
    """Summary and scan of entries ``src[s:e]`` in increasing rank order (high 32 bits, plus
    ``rmin``), none missing.

    ``lookup``: the entries are a presorted list's ``rank << 32 | row`` and each row's
    weight and class are read from ``yw[row]`` (``weight << 16 | class``); otherwise they are
    ``_split.continuous_pass``'s sorted keys, which hold them in their low 32 bits.

    Returns (k distinct ranks, gain, threshold index, tests tying the best, split info, rows
    left of the best threshold, the ranks either side of it): what ``summarize_sorted`` /
    ``summarize_continuous`` followed by ``scan_thresholds`` give, bit for bit.
    """
    n0, n1, n2, nn = node_few(node_counts, C, n_node)
    k = 0
    prev = np.int64(-1)
    a0 = np.int64(0)
    a1 = np.int64(0)
    a2 = np.int64(0)
    l0 = np.int64(0)
    l1 = np.int64(0)
    l2 = np.int64(0)
    best = -np.inf
    # typed int64 from the start: as literals numba compiled scan_step once more
    best_i = np.int64(-1)
    n_ties = np.int64(0)
    best_nl = np.int64(0)
    best_lo = np.int64(0)
    best_hi = np.int64(0)
    for j in range(s, e):
        r, c, wt = stream_entry(src[j], yw, lookup, cmap)
        if r != prev:
            if k > 0:
                # the threshold between the previous rank and this one
                l0 += a0
                l1 += a1
                l2 += a2
                best, best_i, n_ties, best_nl, best_lo, best_hi = scan_step(
                    C, l0, l1, l2, n0, n1, n2, nn, min_side, pmass, n_node, table, k - 1,
                    prev + rmin, r + rmin, best, best_i, n_ties, best_nl, best_lo, best_hi)
            k += 1
            prev = r
            a0 = 0
            a1 = 0
            a2 = 0
        a0, a1, a2 = add_few(wt, c, a0, a1, a2)
    best_si = few_split_info(best_i, best_nl, n_node, table)
    return k, best, best_i, n_ties + 1, best_si, best_nl, best_lo, best_hi


@inner(_nrt=False)
def scan_histogram_few(hist, occ, span, rmin, C, node_counts, n_node, pmass, table, min_side):
    """Summary and scan of ``_split.continuous_pass``'s dense histogram (ranks rmin..rmin+span-1,
    no missing rows), zeroing it on the way; returns what ``scan_sorted_few`` does."""
    n0, n1, n2, nn = node_few(node_counts, C, n_node)
    k = 0
    prev = np.int64(-1)
    l0 = np.int64(0)
    l1 = np.int64(0)
    l2 = np.int64(0)
    best = -np.inf
    # typed int64 from the start: as literals numba compiled scan_step once more
    best_i = np.int64(-1)
    n_ties = np.int64(0)
    best_nl = np.int64(0)
    best_lo = np.int64(0)
    best_hi = np.int64(0)
    for b in range(span):
        if occ[b]:
            occ[b] = 0
            r = rmin + b
            if k > 0:
                best, best_i, n_ties, best_nl, best_lo, best_hi = scan_step(
                    C, l0, l1, l2, n0, n1, n2, nn, min_side, pmass, n_node, table, k - 1, prev,
                    r, best, best_i, n_ties, best_nl, best_lo, best_hi)
            l0 += np.int64(hist[b * C])
            l1 += np.int64(hist[b * C + 1])
            hist[b * C] = 0.0
            hist[b * C + 1] = 0.0
            if C == 3:
                l2 += np.int64(hist[b * C + 2])
                hist[b * C + 2] = 0.0
            k += 1
            prev = r
    best_si = few_split_info(best_i, best_nl, n_node, table)
    return k, best, best_i, n_ties + 1, best_si, best_nl, best_lo, best_hi


@inner(_nrt=False)
def many_step(C, nl, nn, n_node, min_side, pmass, table, term, i, lo, hi, best, best_i, n_ties,
              best_nl, best_lo, best_hi):
    """One threshold of the scan of four or more classes: the left side holds ``nl`` of the
    node's ``nn`` rows (int64) and ``term[c]`` is class c's ``table[l_c] + table[n_c - l_c]``;
    returns the running best (gain, index, ties, left rows, ranks either side) updated with
    it, as ``_split._scan_complete`` decides: ``ml`` summed from 0.0 in class order, and the
    row counts, integers, index the table as the float counts there do."""
    nr = nn - nl
    if nl < min_side or nr < min_side:
        return best, best_i, n_ties, best_nl, best_lo, best_hi
    ml = 0.0
    for c in range(C):
        ml += term[c]
    g = (pmass - table[nl] - table[nr] + ml) / n_node
    if best_i >= 0 and is_tie(g, best):
        return best, best_i, n_ties + 1, best_nl, best_lo, best_hi
    if g > best:
        return g, i, np.int64(0), nl, lo, hi
    return best, best_i, n_ties, best_nl, best_lo, best_hi


@inner(_nrt=False)
def many_start(C, node_counts, table, counts, term):
    """Each class's rows on either side with none on the left (``counts[c]`` left,
    ``counts[C + c]`` right, int64) and its term; returns a many-class scan's starting state
    (ranks seen, previous rank, rows left, the node's rows, and the running best as
    ``many_step`` keeps it: gain, index, ties, left rows, ranks either side)."""
    for c in range(C):
        counts[c] = 0
        counts[C + c] = np.int64(node_counts[c])
        term[c] = table[0] + table[counts[C + c]]
    return (np.int64(0), np.int64(-1), np.int64(0), -np.inf, np.int64(-1), np.int64(0),
            np.int64(0), np.int64(0), np.int64(0))


@njit(inline="always", **NUMBA_FLAGS)
def many_move(counts, term, table, C, c, wt):
    """``wt`` rows of class c move to the left: both sides' counts and the class's term."""
    lc = counts[c] + wt
    rc = counts[C + c] - wt
    counts[c] = lc
    counts[C + c] = rc
    term[c] = table[lc] + table[rc]


@inner(_nrt=False)
def scan_sorted_many(src, s, e, yw, lookup, rmin, C, cmap, node_counts, n_node, pmass, table,
                     min_side, counts, term):
    """``scan_sorted_few`` for four or more classes: ``counts`` (int64, at least 2 C) and
    ``term`` (at least C) are work arrays (both sides' class counts and the classes' kept
    terms). Returns what it returns."""
    k, prev, nl, best, best_i, n_ties, best_nl, best_lo, best_hi = many_start(
        C, node_counts, table, counts, term)
    nn = np.int64(n_node)
    for j in range(s, e):
        r, c, wt = stream_entry(src[j], yw, lookup, cmap)
        if r != prev:
            if k > 0:
                # the threshold between the previous rank and this one: every row before
                # this one is on the left
                best, best_i, n_ties, best_nl, best_lo, best_hi = many_step(
                    C, nl, nn, n_node, min_side, pmass, table, term, k - 1, prev + rmin,
                    r + rmin, best, best_i, n_ties, best_nl, best_lo, best_hi)
            k += 1
            prev = r
        many_move(counts, term, table, C, c, wt)
        nl += wt
    return many_result(k, best, best_i, n_ties, best_nl, best_lo, best_hi, n_node, table)


@inner(_nrt=False)
def scan_histogram_many(hist, occ, span, rmin, C, node_counts, n_node, pmass, table, min_side,
                        counts, term):
    """``scan_histogram_few`` for four or more classes (``counts``, ``term``: as
    ``scan_sorted_many``), zeroing the histogram on the way."""
    k, prev, nl, best, best_i, n_ties, best_nl, best_lo, best_hi = many_start(
        C, node_counts, table, counts, term)
    nn = np.int64(n_node)
    for b in range(span):
        if occ[b]:
            occ[b] = 0
            r = rmin + b
            if k > 0:
                best, best_i, n_ties, best_nl, best_lo, best_hi = many_step(
                    C, nl, nn, n_node, min_side, pmass, table, term, k - 1, prev, r, best,
                    best_i, n_ties, best_nl, best_lo, best_hi)
            # every class, without a branch on its count (which class a bin holds is
            # unpredictable): a class with no rows here gets its term again, the same bits
            for c in range(C):
                h = np.int64(hist[b * C + c])
                hist[b * C + c] = 0.0
                many_move(counts, term, table, C, c, h)
                nl += h
            k += 1
            prev = r
    return many_result(k, best, best_i, n_ties, best_nl, best_lo, best_hi, n_node, table)


@njit(inline="always", **NUMBA_FLAGS)
def many_result(k, best, best_i, n_ties, best_nl, best_lo, best_hi, n_node, table):
    """The fused scans' result tuple (``scan_sorted_few``'s layout) from a many-class scan."""
    return (k, best, best_i, n_ties + 1, few_split_info(best_i, best_nl, n_node, table),
            best_nl, best_lo, best_hi)
