"""Prediction over many trees: leaf lookup, member outputs and combined probabilities.

The general walk reads two arrays laid out once per forest (``pack_nodes``; the estimators keep
them with the forest, ``engine._walk_cache``): the global index of each
node's first child (-1 at leaves) and its split feature (negative for nominal and oblique
splits), beside the forest's own thresholds. The hot step is then
``node = first + (x > threshold)``; missing values and nominal and oblique splits take a rarely
used branch. An oblique node (kind 3) tests ``x . w_k <= threshold`` with w_k row k of the
forest's ``projections``; a projection of width w acts on the last w columns of ``X`` (so an
estimator may hand the kernels its raw features with real-valued features appended), and its
dot product is the sequential sum used while growing.

Forests whose every split is an axis-aligned threshold, on rows with no missing value, take a
faster walk (``_leaves_lanes``): eight rows descend together, one level each per step, so the
processor overlaps eight chains of dependent loads instead of waiting on one; child and feature
share one array (``lane_codes``), one load fewer per level. A leaf's code points at the leaf
itself and its threshold is NaN, so a lane that has arrived stays where it is and the step has
no branch per lane. Measured on 100 random-forest trees and 100,000 rows: four rows at a time
2.7 times faster than one; without the branches 4% faster again; eight rows instead of four,
with one block of rows a thread, 15% faster again.

Rows are processed in blocks, one block a thread: the drivers ``apply_forest``,
``member_counts`` and ``combine_forest`` (plain Python) cut the rows and run one block kernel
per block on a pool of Python threads (the kernels release the GIL). Inside a block the loop over
trees is outside the loop over rows, so a tree stays in cache while the rows of the block walk
it. Each block loads every tree again, so the fewer the blocks the better (walk of the forest
above on two threads: blocks of 1,024 rows 0.37 s, 12,500 rows 0.27 s, 50,000 rows 0.25 s).
A row's result depends on nothing but the row, so any cut gives the same numbers. The blocks
were numba ``prange`` loops (``parallel=True``) before; compiling those took about 3 of the
6 CPU-s of the first prediction with an empty cache (docs/first_minute.md).

The answering node of a row in a tree is its leaf, unless the leaf holds fewer than
``max(curtail_min, 1)`` training rows; then it is the deepest ancestor that holds at least that
many (curtailment, Zadrozny & Elkan 2001; an empty leaf answers with its parent).
``answering_nodes`` returns an empty array when every leaf answers itself, and such calls skip
the lookup.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS, inner

_MIN_BLOCK = 1024


def _blocks(n: int, n_threads: int) -> list[tuple[int, int]]:
    """Row blocks (lo, hi): one for each of the call's ``n_threads`` threads (see the module
    notes), at least ``_MIN_BLOCK`` rows each."""
    k = max(n_threads, 1)
    size = max(_MIN_BLOCK, (n + k - 1) // k)
    return [(lo, min(n, lo + size)) for lo in range(0, n, size)]


def _on_threads(block, n: int, n_threads: int) -> None:
    """``block(lo, hi)`` for every row block, one thread a block when there are several."""
    blocks = _blocks(n, n_threads)
    if len(blocks) > 1:
        with ThreadPoolExecutor(max_workers=len(blocks)) as pool:
            list(pool.map(lambda b: block(*b), blocks))
    elif blocks:
        block(*blocks[0])


MODE_AVERAGE = 0
MODE_VOTE = 1
MODE_SUM = 2

# feat code of an oblique node: OBLIQUE_CODE - k (k = projection row); nominal codes are
# -(f + 1) >= -2**31, so the two never meet
OBLIQUE_CODE = -(np.int64(1) << 32)


@njit(**NUMBA_FLAGS)
def pack_nodes(node_offsets, kind, feature, child_start):
    """The general walk's arrays: global first child (-1 at leaves) and feature code.

    ``feat`` is the feature for threshold splits, -(f + 1) for nominal splits and
    ``OBLIQUE_CODE - k`` for oblique ones. The walk reads the forest's own thresholds.
    """
    N = kind.shape[0]
    first = np.full(N, -1, dtype=np.int64)
    feat = np.zeros(N, dtype=np.int64)
    for t in range(node_offsets.shape[0] - 1):
        base = node_offsets[t]
        for i in range(base, node_offsets[t + 1]):
            k = kind[i]
            if k == 0:
                continue
            first[i] = base + child_start[i]
            if k == 1:
                feat[i] = feature[i]
            elif k == 2:
                feat[i] = -(feature[i] + 1)
            else:
                feat[i] = OBLIQUE_CODE - feature[i]
    return first, feat


@inner
def _node_rows(counts, i):
    """Training rows reaching node ``i`` (its class counts summed)."""
    tot = np.int64(0)
    for c in range(counts.shape[1]):
        tot += counts[i, c]
    return tot


@njit(**NUMBA_FLAGS)
def answering_nodes(node_offsets, kind, child_start, n_children, counts, min_n):
    """The node answering for each leaf: itself or, under curtailment, its deepest ancestor with
    at least ``min_n`` training rows (children always follow their parent, so one forward pass
    suffices; a root answers for itself). Empty when every leaf holds ``min_n`` rows or more:
    each leaf then answers itself."""
    N = kind.shape[0]
    needed = False
    for i in range(N):
        if kind[i] == 0 and _node_rows(counts, i) < min_n:
            needed = True
            break
    if not needed:
        return np.empty(0, dtype=np.int64)
    anchor = np.empty(N, dtype=np.int64)
    for t in range(node_offsets.shape[0] - 1):
        base = node_offsets[t]
        anchor[base] = base
        for i in range(base, node_offsets[t + 1]):
            if i > base and _node_rows(counts, i) >= min_n:
                anchor[i] = i
            if kind[i] != 0:
                a = base + child_start[i]
                for j in range(a, a + n_children[i]):
                    anchor[j] = anchor[i]
    return anchor


_LANE_SHIFT = np.uint64(16)
_LANE_LEAF = np.uint64(1 << 15)
_LANE_FEATURE = np.uint64((1 << 15) - 1)
_U = np.uint64


@njit(**NUMBA_FLAGS)
def lane_codes(node_offsets, kind, feature, child_start, threshold):
    """``first << 16 | feature`` per node for ``_leaves_lanes``, unsigned; a leaf's code is
    its own index with the leaf bit (1 << 15). Empty when some split is not an axis threshold,
    a feature index needs 15 bits or more, or a leaf's threshold is not NaN (the lanes rely on
    ``x > NaN`` being false to stay at a leaf)."""
    N = kind.shape[0]
    codes = np.empty(N, dtype=np.uint64)
    for t in range(node_offsets.shape[0] - 1):
        base = node_offsets[t]
        for i in range(base, node_offsets[t + 1]):
            k = kind[i]
            if k == 0 and threshold[i] != threshold[i]:
                codes[i] = (_U(i) << _LANE_SHIFT) | _LANE_LEAF
            elif k == 1 and 0 <= feature[i] < (1 << 15):
                codes[i] = (_U(base + child_start[i]) << _LANE_SHIFT) | _U(feature[i])
            else:
                return np.empty(0, dtype=np.uint64)
    return codes


def has_nan(X: np.ndarray) -> bool:
    """Whether ``X`` holds a missing value (NaN): NumPy's minimum is NaN exactly when some
    value is (it propagates NaN, and no other values make one), without a kernel to compile
    or load."""
    return X.size > 0 and bool(np.isnan(X.min()))


@inner
def _leaves_lanes(X, lo, hi, root, codes, thr, out):
    """``_leaves`` for threshold-only forests and rows without missing values, eight rows at a
    time (see the module notes). Every index is unsigned: numba then skips the wraparound of
    negative indices, two instructions per array read (measured: the walk of the W1 forest
    in 0.8 of the time)."""
    i = _U(lo)
    end = _U(hi)
    r = _U(root)
    while i + _U(8) <= end:
        a = b = c = d = e = f = g = h = r
        while True:
            ma = codes[a]
            mb = codes[b]
            mc = codes[c]
            md = codes[d]
            me = codes[e]
            mf = codes[f]
            mg = codes[g]
            mh = codes[h]
            if ma & mb & mc & md & me & mf & mg & mh & _LANE_LEAF:
                break
            a = (ma >> _LANE_SHIFT) + _U(X[i, ma & _LANE_FEATURE] > thr[a])
            b = (mb >> _LANE_SHIFT) + _U(X[i + _U(1), mb & _LANE_FEATURE] > thr[b])
            c = (mc >> _LANE_SHIFT) + _U(X[i + _U(2), mc & _LANE_FEATURE] > thr[c])
            d = (md >> _LANE_SHIFT) + _U(X[i + _U(3), md & _LANE_FEATURE] > thr[d])
            e = (me >> _LANE_SHIFT) + _U(X[i + _U(4), me & _LANE_FEATURE] > thr[e])
            f = (mf >> _LANE_SHIFT) + _U(X[i + _U(5), mf & _LANE_FEATURE] > thr[f])
            g = (mg >> _LANE_SHIFT) + _U(X[i + _U(6), mg & _LANE_FEATURE] > thr[g])
            h = (mh >> _LANE_SHIFT) + _U(X[i + _U(7), mh & _LANE_FEATURE] > thr[h])
        k = i - _U(lo)
        out[k] = a
        out[k + _U(1)] = b
        out[k + _U(2)] = c
        out[k + _U(3)] = d
        out[k + _U(4)] = e
        out[k + _U(5)] = f
        out[k + _U(6)] = g
        out[k + _U(7)] = h
        i += _U(8)
    while i < end:
        a = r
        while not codes[a] & _LANE_LEAF:
            a = (codes[a] >> _LANE_SHIFT) + _U(X[i, codes[a] & _LANE_FEATURE] > thr[a])
        out[i - _U(lo)] = a
        i += _U(1)


@inner
def _walk(X, lo, hi, root, first, feat, thr, n_children, nan_child, proj, codes, out):
    if first is None:
        # lockstep walk only (``Forest.walk_arrays`` passes None then): numba drops the general
        # walk from this version, which a first prediction on rows without missing values
        # compiles alone
        _leaves_lanes(X, lo, hi, root, codes, thr, out)
    elif codes.shape[0] > 0:
        _leaves_lanes(X, lo, hi, root, codes, thr, out)
    else:
        _leaves(X, lo, hi, root, first, feat, thr, n_children, nan_child, proj, out)


@njit(**NUMBA_FLAGS)
def _leaves(X, lo, hi, root, first, feat, thr, n_children, nan_child, proj, out):
    """Global leaf index reached by rows lo..hi-1 from ``root``, written to ``out``."""
    off = X.shape[1] - proj.shape[1]
    for i in range(lo, hi):
        node = root
        while True:
            f0 = first[node]
            if f0 < 0:
                break
            f = feat[node]
            if f < 0:
                if f <= OBLIQUE_CODE:
                    k = OBLIQUE_CODE - f
                    z = 0.0
                    for j in range(proj.shape[1]):
                        z += proj[k, j] * X[i, off + j]
                    if z != z:
                        node = f0 + nan_child[node]
                    else:
                        node = f0 + np.int64(z > thr[node])
                    continue
                v = X[i, -f - 1]
                if np.isnan(v) or v < 0 or v >= n_children[node]:
                    node = f0 + nan_child[node]
                else:
                    node = f0 + np.int64(v)
                continue
            v = X[i, f]
            if v != v:
                node = f0 + nan_child[node]
            else:
                node = f0 + np.int64(v > thr[node])
        out[i - lo] = node


@njit(**NUMBA_FLAGS)
def _apply_block(X, lo, hi, node_offsets, first, feat, thr, n_children, nan_child, proj, codes,
                 out):
    """``apply_forest`` for rows lo..hi-1."""
    T = node_offsets.shape[0] - 1
    leaves = np.empty(hi - lo, dtype=np.int64)
    for t in range(T):
        base = node_offsets[t]
        _walk(X, lo, hi, base, first, feat, thr, n_children, nan_child, proj, codes, leaves)
        for i in range(lo, hi):
            out[i, t] = leaves[i - lo] - base


def apply_forest(X, node_offsets, first, feat, thr, n_children, nan_child, proj, codes,
                 n_threads):
    """Tree-local leaf index of every row in every tree, shape (row, tree).

    The walk: ``codes`` from ``lane_codes`` (then ``first`` and ``feat`` may be empty, or
    None for the kernels' version without the general walk, and ``X`` must hold no missing
    value), or, when ``codes`` is empty, ``first`` and ``feat`` from ``pack_nodes``.
    ``n_threads``: the threads the call runs on (one block of rows each).
    """
    out = np.empty((X.shape[0], node_offsets.shape[0] - 1), dtype=np.int64)
    _on_threads(lambda lo, hi: _apply_block(X, lo, hi, node_offsets, first, feat, thr,
                                            n_children, nan_child, proj, codes, out),
                X.shape[0], n_threads)
    return out


@inner
def _answering(anchor, leaf):
    return np.int64(leaf) if anchor.shape[0] == 0 else anchor[leaf]


@njit(**NUMBA_FLAGS)
def _member_block(X, lo, hi, node_offsets, first, feat, thr, n_children, nan_child, proj, codes,
                  anchor, counts, raw, out):
    """``member_counts`` for rows lo..hi-1."""
    T = node_offsets.shape[0] - 1
    C = counts.shape[1]
    leaves = np.empty(hi - lo, dtype=np.int64)
    for t in range(T):
        _walk(X, lo, hi, node_offsets[t], first, feat, thr, n_children, nan_child, proj, codes,
              leaves)
        for i in range(lo, hi):
            leaf = leaves[i - lo]
            a = leaf if raw else _answering(anchor, leaf)
            for c in range(C):
                out[t, i, c] = counts[a, c]


def member_counts(X, node_offsets, first, feat, thr, n_children, nan_child, proj, codes, anchor,
                  counts, raw, n_threads):
    """Class counts of the answering node (``anchor``, see ``answering_nodes``; the leaf itself
    when ``raw``), (tree, row, class)."""
    out = np.empty((node_offsets.shape[0] - 1, X.shape[0], counts.shape[1]))
    _on_threads(lambda lo, hi: _member_block(X, lo, hi, node_offsets, first, feat, thr,
                                             n_children, nan_child, proj, codes, anchor, counts,
                                             raw, out),
                X.shape[0], n_threads)
    return out


@njit(**NUMBA_FLAGS)
def _member_pass_block(X, lo, hi, node_offsets, first, feat, thr, n_children, nan_child, proj,
                       codes, anchor, counts, labels, summed, n_empty):
    """``member_pass`` for rows lo..hi-1."""
    T = node_offsets.shape[0] - 1
    C = counts.shape[1]
    leaves = np.empty(hi - lo, dtype=np.int64)
    for t in range(T):
        _walk(X, lo, hi, node_offsets[t], first, feat, thr, n_children, nan_child, proj, codes,
              leaves)
        for i in range(lo, hi):
            a = _answering(anchor, leaves[i - lo])
            tot = _node_rows(counts, a)
            best = 0
            for c in range(1, C):
                if counts[a, c] > counts[a, best]:
                    best = c
            labels[t, i] = best
            if tot <= 0:
                w = 0.0
                n_empty[i] += 1
            else:
                w = 1.0 / np.float64(tot)
            for c in range(C):
                summed[i, c] += np.float64(counts[a, c]) * w
    if T > 0:
        for i in range(lo, hi):
            e = n_empty[i] / C
            for c in range(C):
                summed[i, c] += e


def member_pass(X, node_offsets, first, feat, thr, n_children, nan_child, proj, codes, anchor,
                counts, n_threads):
    """Each member's vote and the members' summed class frequencies, from one walk.

    Returns ``labels`` (tree, row), the first class of highest count at the answering node
    (``anchor``, see ``answering_nodes``), and ``summed`` (row, class), the sum over trees of
    the answering node's class frequencies (uniform for an empty node). The same numbers as
    ``argmax(m, axis=2)`` and ``einsum("tsc,ts->sc", m, w) + n_empty / C`` on ``m =
    member_counts(...)`` with ``w`` = 1 / row total (0 for an empty node), bit for bit: the
    counts are integers, the products are the same, and each row's sum runs over the trees in
    order as NumPy's does; without the (tree, row, class) array in between.
    """
    T, n, C = node_offsets.shape[0] - 1, X.shape[0], counts.shape[1]
    labels = np.empty((T, n), dtype=np.int64)
    summed = np.zeros((n, C))
    n_empty = np.zeros(n, dtype=np.int64)
    _on_threads(lambda lo, hi: _member_pass_block(X, lo, hi, node_offsets, first, feat, thr,
                                                  n_children, nan_child, proj, codes, anchor,
                                                  counts, labels, summed, n_empty),
                n, n_threads)
    return labels, summed


@inner
def _node_answer(counts, a, laplace, mode, out):
    """Node ``a``'s answer in ``out``: its class probabilities (frequencies, or with the Laplace
    correction when ``laplace``) or, in mode sum, its class counts. Returns its vote: the first
    class of highest value."""
    C = counts.shape[1]
    tot = _node_rows(counts, a)
    best = -1.0
    vote = 0
    for c in range(C):
        if mode == MODE_SUM:
            p = np.float64(counts[a, c])
        elif laplace:
            p = (counts[a, c] + 1.0) / (tot + C)
        else:
            p = counts[a, c] / tot if tot > 0 else 1.0 / C
        out[c] = p
        if p > best:
            best = p
            vote = c
    return vote


@njit(**NUMBA_FLAGS)
def _leaf_answers(n_children, anchor, counts, laplace, mode, answer, vote):
    """Every leaf's answer into ``answer`` (and its vote into ``vote`` when it has room)."""
    for leaf in range(answer.shape[0]):
        if n_children[leaf] == 0:
            v = _node_answer(counts, _answering(anchor, leaf), laplace, mode, answer[leaf])
            if vote.shape[0] > 0:
                vote[leaf] = v


@njit(**NUMBA_FLAGS)
def _combine_block(X, lo, hi, node_offsets, first, feat, thr, n_children, nan_child, proj, codes,
                   anchor, counts, laplace, mode, table, answer, vote, acc, votes):
    """``combine_forest`` for rows lo..hi-1, from the leaves' answers when ``table``."""
    T = node_offsets.shape[0] - 1
    C = counts.shape[1]
    voting = mode == MODE_VOTE
    leaves = np.empty(hi - lo, dtype=np.int64)
    own = np.empty(C)
    for t in range(T):
        _walk(X, lo, hi, node_offsets[t], first, feat, thr, n_children, nan_child, proj, codes,
              leaves)
        for i in range(lo, hi):
            leaf = leaves[i - lo]
            if table:
                # unsigned indices: no negative-index wraparound (3% of the W1 call)
                ui = _U(i)
                ul = _U(leaf)
                for c in range(C):
                    acc[ui, _U(c)] += answer[ul, _U(c)]
                if voting:
                    votes[ui, _U(vote[ul])] += 1
            else:
                v = _node_answer(counts, _answering(anchor, leaf), laplace, mode, own)
                for c in range(C):
                    acc[i, c] += own[c]
                if voting:
                    votes[i, v] += 1


def leaf_answers(n_children, anchor, counts, laplace, mode):
    """Every leaf's answer (``_node_answer`` of its answering node; rows of other nodes are
    left unset) and, in mode vote, its vote (else an empty array): the table
    ``combine_forest`` reads instead of computing each answer per lookup."""
    N, C = counts.shape
    answer = np.empty((N, C))
    vote = np.zeros(N if mode == MODE_VOTE else 0, dtype=np.int64)
    _leaf_answers(n_children, anchor, counts, laplace, mode, answer, vote)
    return answer, vote


def combine_forest(X, node_offsets, first, feat, thr, n_children, nan_child, proj, codes, anchor,
                   counts, laplace, mode, answer, vote, n_threads):
    """Combine the trees' answers for every row without storing member outputs.

    Returns (acc, votes): ``acc`` holds summed leaf probabilities (modes average and vote; with
    the Laplace correction when ``laplace``) or summed class counts (mode sum); ``votes`` holds
    each class's number of tree votes (mode vote; a tree votes the first class of highest
    probability; empty in the other modes). The answer of a leaf comes from its answering node
    (``anchor``, see ``answering_nodes``): read from ``answer`` and ``vote`` (``leaf_answers``
    for the same ``anchor``, ``laplace`` and ``mode``) when ``answer`` is not empty, else
    computed for each lookup with the same arithmetic, so the sums are the same either way.
    """
    n = X.shape[0]
    C = counts.shape[1]
    acc = np.zeros((n, C))
    voting = mode == MODE_VOTE
    votes = np.zeros((n if voting else 0, C), dtype=np.int64)
    table = answer.shape[0] > 0
    _on_threads(lambda lo, hi: _combine_block(X, lo, hi, node_offsets, first, feat, thr,
                                              n_children, nan_child, proj, codes, anchor,
                                              counts, laplace, mode, table, answer, vote, acc,
                                              votes),
                n, n_threads)
    return acc, votes
