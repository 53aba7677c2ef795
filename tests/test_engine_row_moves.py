"""The kernels that move a node's rows (issue 28, item 3): building the presorted lists, the
threshold and nominal partitions and the copy into localized blocks, each against a NumPy
computation; and whole trees grown with presorted lists against trees that sort at every node
(no list is read there), with leaf limits, sample weights and nominal splits."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from treelab.engine.kernels._local import localize
from treelab.engine.kernels._partition import partition_nominal, partition_threshold
from treelab.engine.kernels._presort import build_lists


@pytest.mark.parametrize("weights", ["ones", "bootstrap", "last-out"])
def test_build_lists_keeps_the_rows_in_with_their_ranks_in_order(weights):
    rng = np.random.default_rng(1)
    n, d = 400, 5
    R = rng.integers(0, 60, size=(d, n)).astype(np.int32)
    order = np.stack([np.lexsort((np.arange(n), R[f])) for f in range(d)]).astype(np.int32)
    w = {"ones": np.ones(n), "bootstrap": rng.multinomial(n, np.full(n, 1 / n)),
         "last-out": np.ones(n)}[weights].astype(np.int32)
    if weights == "last-out":  # the rows last in every order are out: the cursor stops early
        for f in range(d):
            w[order[f, -7:]] = 0
    slots = np.array([3, 0, 4], dtype=np.int64)
    n_in = int((w > 0).sum())
    lists = build_lists(order, R, w, slots, np.int64(n_in))
    for q, f in enumerate(slots):
        rows = order[f][w[order[f]] > 0].astype(np.int64)
        np.testing.assert_array_equal(lists[q, :n_in], (R[f, rows].astype(np.int64) << 32) | rows)


@njit
def _partition_nominal(f, n_codes, nan_child, buf, nbuf, s, e, Xg, Xl, loc, bucket):
    partition_nominal(f, n_codes, nan_child, buf, nbuf, s, e, Xg, Xl, loc, bucket)


def _junk_like(a):
    """An array of ``a``'s type whose every value would send rows elsewhere: the kernels given
    the node's rows by buffer index and the blocks by ``loc`` must not read it."""
    if a.dtype.kind == "f":
        return np.full_like(a, np.nan)
    return np.full_like(a, -7)


@pytest.mark.parametrize("loc", [False, True])
@pytest.mark.parametrize("nan_child", [0, 2, 4])
def test_nominal_partition_is_the_stable_counting_sort(nan_child, loc):
    rng = np.random.default_rng(nan_child)
    n, s, e, arity = 300, 20, 270, 5
    Xc = rng.integers(0, arity, size=(2, n)).astype(float)
    Xc[1, rng.random(n) < 0.1] = np.nan
    Xc[1, Xc[1] == 3] = 1  # a code no row of the node has: an empty block
    rows = np.zeros(n, dtype=np.int64)
    rows[s:e] = (np.sort(rng.choice(n, e - s, replace=False)).astype(np.int64) << 32) | 2
    scratch = np.full(n, -3, dtype=np.int64)
    bucket = np.full(arity + 1, 99, dtype=np.int64)
    # the node's rows in the second buffer, its children written into the first
    buf = np.stack([scratch, rows])
    Xg, Xl = (_junk_like(Xc), Xc) if loc else (Xc, _junk_like(Xc))
    _partition_nominal(np.int64(1), np.int64(arity), np.int64(nan_child), buf, np.int64(1),
                       np.int64(s), np.int64(e), Xg, Xl, loc, bucket)
    np.testing.assert_array_equal(buf[1], rows)
    scratch = buf[0]
    v = Xc[1, rows[s:e] >> 32]
    code = np.where(np.isnan(v), nan_child, v).astype(int)
    expected = np.concatenate([rows[s:e][code == b] for b in range(arity)])
    np.testing.assert_array_equal(scratch[s:e], expected)
    assert (scratch[:s] == -3).all() and (scratch[e:] == -3).all()
    sizes = np.bincount(code, minlength=arity)
    np.testing.assert_array_equal(bucket, s + np.concatenate([[0], np.cumsum(sizes)]))


@njit
def _localize(buf, nbuf, s, e, vis, nv, nominal, Xc, R, Xl, Rl, glob):
    localize(buf, nbuf, s, e, vis, nv, nominal, Xc, R, Xl, Rl, glob)


@pytest.mark.parametrize("blocks", ["both", "values", "ranks"])
def test_localize_copies_the_visible_features_of_the_node(blocks):
    rng = np.random.default_rng(len(blocks))
    n, d, s, e, cap = 400, 6, 30, 230, 256
    Xc = rng.normal(size=(d, n))
    R = rng.integers(0, 1000, size=(d, n)).astype(np.int32)
    node_rows = np.sort(rng.choice(n, e - s, replace=False)).astype(np.int64)
    rows = np.zeros(n, dtype=np.int64)
    rows[s:e] = (node_rows << 32) | (rng.integers(1, 4, e - s) << 16) | rng.integers(0, 3, e - s)
    before = rows.copy()
    vis = np.array([4, 1, 5], dtype=np.int64)
    Xl = np.full((d, cap if blocks != "ranks" else 0), np.nan)
    Rl = np.full((d, cap if blocks != "values" else 0), -1, dtype=np.int32)
    glob = np.full(cap, -1, dtype=np.int64)
    nominal = np.zeros(d, dtype=np.uint8)
    nominal[5] = 1  # no ranks: its rows of Rl stay as they were
    # the node's rows in the second buffer: the first is left alone
    buf = np.stack([np.full(n, -5, dtype=np.int64), rows])
    _localize(buf, np.int64(1), np.int64(s), np.int64(e), vis, np.int64(3), nominal, Xc, R, Xl,
              Rl, glob)
    assert (buf[0] == -5).all()
    rows = buf[1]
    m = e - s
    np.testing.assert_array_equal(glob[:m], node_rows)
    np.testing.assert_array_equal(rows[s:e] >> 32, np.arange(m))
    np.testing.assert_array_equal(rows[s:e] & 0xFFFFFFFF, before[s:e] & 0xFFFFFFFF)
    np.testing.assert_array_equal(rows[:s], before[:s])
    for f in range(d):
        if blocks != "ranks":
            np.testing.assert_array_equal(Xl[f, :m], Xc[f, node_rows] if f in vis else np.nan)
        if blocks != "values":
            np.testing.assert_array_equal(Rl[f, :m], R[f, node_rows] if f in vis and not
                                          nominal[f] else -1)


@pytest.mark.parametrize("local", [0, 1])
@pytest.mark.parametrize(("min_split", "max_depth", "weights", "nominal"), [
    (4, 2**31 - 1, False, False),
    (40, 2**31 - 1, False, False),
    (4, 6, False, False),
    (12, 9, True, False),
    (4, 2**31 - 1, True, True),
    (25, 8, False, True),
], ids=["plain", "min-split", "depth", "weights-split-depth", "nominal-weights",
        "nominal-split-depth"])
def test_presorted_trees_with_leaf_limits_equal_trees_sorting_at_every_node(
        min_split, max_depth, weights, nominal, local):
    """Trees grown with presorted lists (partitioned at every split) are those grown by
    sorting at every node, with minimum split sizes, depth limits, sample weights and nominal
    splits with three or more children."""
    from treelab.engine.forest import prepare_features
    from treelab.engine.kernels import _grow as G
    from treelab.engine.kernels._criteria import xlogx_table

    rng = np.random.default_rng(min_split + max_depth % 97 + 3 * weights + 7 * nominal)
    n, d = 3000, 6
    X = np.round(rng.normal(size=(n, d)), 3)
    X[rng.random(X.shape) < 0.03] = np.nan
    y = ((np.nan_to_num(X[:, 0]) + X[:, 1] ** 2 + np.nan_to_num(X[:, 3])
          + rng.normal(size=n)) > 1).astype(np.int32)
    y[rng.random(n) < 0.15] = 2
    is_nom = np.zeros(d, bool)
    arity = np.zeros(d, np.int64)
    if nominal:
        X[:, 5] = np.where(rng.random(n) < 0.5, y, rng.integers(0, 4, n))
        is_nom[5], arity[5] = True, 4
    feats = prepare_features(X, is_nom, arity)
    sw = rng.integers(1, 4, n).astype(np.int32) if weights else None
    trees = []
    for presort in (0, 1):
        ip = np.zeros(G.N_PARAMS, dtype=np.int64)
        ip[[G.P_CRITERION, G.P_C45, G.P_MIN_OBJS, G.P_MIN_SPLIT, G.P_MIN_LEAF]] = [
            1, 1, 2, min_split, 1]
        ip[G.P_MAX_DEPTH] = max_depth
        ip[G.P_MAX_FEATURES] = d
        ip[G.P_PRESORT] = presort
        ip[G.P_LOCAL] = local
        trees.append(G.grow_tree(feats.Xc, feats.R, feats.order, feats.n_distinct, feats.uniq,
                                 feats.uniq_off, feats.nominal, y, 3, ip, 0.8,
                                 xlogx_table(4 * n), np.uint64(5), G.ROWS_BOOTSTRAP,
                                 np.zeros(n, np.int32), 0, 0, *G.NO_REFERENCE, None, True,
                                 sw))
    assert trees[0][0].shape[0] > 40
    if nominal:
        assert (trees[0][0] == G.KIND_NOMINAL).any()
    for a, b in zip(trees[0], trees[1], strict=True):
        np.testing.assert_array_equal(a, b)


@njit
def _partition_threshold(f, thr, missing, nan_left, buf, nbuf, s, e, Kg, Kl, loc, left, nan):
    return partition_threshold(f, thr, missing, nan_left, buf, nbuf, s, e, Kg, Kl, loc, left,
                               nan)


@pytest.mark.parametrize("loc", [False, True])
@pytest.mark.parametrize("C", [1, 2, 3, 5])
@pytest.mark.parametrize("nan_left", [0, 1])
@pytest.mark.parametrize(("on", "cut"), [("ranks", 0.2), ("ranks", 0.8), ("values", 0.3),
                                         ("values", 0.9)])
def test_threshold_partition_and_its_counts(C, nan_left, on, cut, loc):
    """The stable partition and the class counts of the rows going left (missing rows apart)
    and of the missing rows, against NumPy."""
    rng = np.random.default_rng([C, nan_left, int(10 * cut)])
    n, s, e = 500, 40, 440
    node_rows = np.sort(rng.choice(n, e - s, replace=False)).astype(np.int64)
    cls = rng.integers(0, C, e - s)
    wt = rng.integers(1, 5, e - s)
    rows = np.zeros(n, dtype=np.int64)
    rows[s:e] = (node_rows << 32) | (wt << 16) | cls
    if on == "ranks":
        nd = 100
        K = rng.integers(0, nd, size=(2, n)).astype(np.int32)
        K[1, rng.random(n) < 0.1] = nd
        thr, missing, miss = np.int64(cut * nd), np.int64(nd), K[1] == nd
    else:
        K = rng.random(size=(2, n))
        K[1, rng.random(n) < 0.1] = np.nan
        thr, missing, miss = cut, np.nan, np.isnan(K[1])
    out = np.full(n, -1, dtype=np.int64)
    left = np.full(C, -9, dtype=np.int64)
    nan = np.full(C, -9, dtype=np.int64)
    # the node's rows in the first buffer, its children written into the second
    buf = np.stack([rows, out])
    Kg, Kl = (_junk_like(K), K) if loc else (K, _junk_like(K))
    end = _partition_threshold(np.int64(1), thr, missing, np.int64(nan_left), buf, np.int64(0),
                               np.int64(s), np.int64(e), Kg, Kl, loc, left, nan)
    np.testing.assert_array_equal(buf[0], rows)
    out = buf[1]
    k, m = K[1, node_rows], miss[node_rows]
    goes_left = (~m & (k <= thr)) | (m & bool(nan_left))
    assert end == s + goes_left.sum()
    np.testing.assert_array_equal(out[s:end], rows[s:e][goes_left])
    np.testing.assert_array_equal(out[end:e][::-1], rows[s:e][~goes_left])
    np.testing.assert_array_equal(left, np.bincount(cls[~m & (k <= thr)], wt[~m & (k <= thr)],
                                                    minlength=C))
    np.testing.assert_array_equal(nan, np.bincount(cls[m], wt[m], minlength=C))
