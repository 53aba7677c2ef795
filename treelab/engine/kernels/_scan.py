"""The deterministic search's summary and threshold scan in one pass (two or three classes,
entropy criteria, no missing rows at the node): the most common candidate of the exact
search.

``_split.summarize_continuous`` (or ``_presort.summarize_sorted``) writes every distinct rank's
class counts into ``dist_counts`` and ``_split.scan_thresholds`` reads them back; here each
rank's counts stay in integer registers and the threshold after a rank is scored as soon as
the next rank begins (``_split.scan_step``: the same operations in the same order, so the same
gains, ties and split information bit for bit). What is saved is the store and reload of
every rank's counts, their conversions from float, and a second loop over the ranks.
"""

import numpy as np

from treelab.engine.kernels._config import inner
from treelab.engine.kernels._presort import add_few, stream_entry
from treelab.engine.kernels._split import few_split_info, node_few, scan_step


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
