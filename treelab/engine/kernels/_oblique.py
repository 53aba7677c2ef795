"""Oblique trees: mean-margins decision trees (MMDT) and projected features.

An oblique split node (``kind`` 3) sends a row x to child 0 when ``x . w_k <= threshold``, with
w_k a row of the forest's side array ``projections``. Every dot product here (growth, projected
features of rotation trees) and in ``_predict`` is the same sequential sum
``z = 0; for j: z += w[j] * x[j]`` (no fastmath, so no reassociation): a training row is routed
at prediction exactly as it was while growing.

MMDT (Gashler, Giraud-Carrier & Martinez 2008; algorithms spec 2.8), at a node:

1. the node's rows are split into two groups T and F: by class when two classes are present,
   otherwise by the sign of (l - mu_L) . nu_L, with l the one-hot label of a row, mu_L the mean
   label vector and nu_L the first principal component of the labels (power iteration,
   ``POWER_ITERATIONS`` steps from a standard-normal start);
2. mu_T, mu_F are the (multiplicity-weighted) mean feature vectors of T and F, nu = mu_T - mu_F
   and mu = (mu_T + mu_F) / 2;
3. a row p goes right when (p - mu) . nu >= 0, evaluated as ``p . nu >= mu . nu`` (identical in
   exact arithmetic), so the node stores ``w = nu`` and ``threshold = nextafter(mu . nu, -inf)``
   and a row goes left exactly when ``p . nu < mu . nu``; if a side is empty the node is a leaf.

Per-tree feature scaling is folded into the direction. For the tree grown on features scaled
per column, z'_j = (z_j - o_j) f_j, the means scale the same way, so nu'_j = nu_j f_j and

    (p' - mu') . nu' = sum_j (p_j - mu_j) f_j^2 nu_j:

the scaled tree is the tree on the unscaled features with direction ``nu_j f_j^2`` (the offsets
o cancel). ``grow_mmdt`` takes the factors f, computes ``(nu_j f_j) f_j`` (no square of f alone,
which could overflow where nu_j f_j does not) and routes the rows with that direction, the one
it stores, so growth and prediction still compute the same sequential sum.
"""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS
from treelab.engine.kernels._nodes import enlarge
from treelab.engine.kernels._rng import new_state, rand_float

KIND_LEAF = 0
KIND_OBLIQUE = 3
POWER_ITERATIONS = 10


@njit(**NUMBA_FLAGS)
def rand_normal(state):
    """Standard normal draw (Box-Muller on two uniforms of the tree's generator)."""
    u1 = 1.0 - rand_float(state)  # in (0, 1]
    u2 = rand_float(state)
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


@njit(**NUMBA_FLAGS)
def dot_row(w, Z, i):
    """w . Z[i] as the sequential sum that prediction also uses."""
    z = 0.0
    for j in range(w.shape[0]):
        z += w[j] * Z[i, j]
    return z


@njit(**NUMBA_FLAGS)
def label_component(counts, start, n_iter):
    """First principal component of one-hot labels by power iteration (algorithms spec 2.8).

    ``counts`` (C,) are the (weighted) class counts of the node's rows; rows sharing a class
    share their label vector, so one step a <- sum_l ((l - mu_L) . nu)(l - mu_L) is the O(C^2)
    sum over classes of n_c ((e_c - mu_L) . nu)(e_c - mu_L). ``start`` is normalised first.
    Returns (nu, mu_L). A zero vector ``a`` (only when the start is orthogonal to every
    centred label) keeps the previous ``nu``.
    """
    C = counts.shape[0]
    N = 0.0
    for c in range(C):
        N += counts[c]
    mu = counts / N
    nu = start.copy()
    norm = np.sqrt(np.sum(nu * nu))
    nu /= norm
    a = np.empty(C)
    for _ in range(n_iter):
        a[:] = 0.0
        for c in range(C):
            if counts[c] == 0:
                continue
            s = nu[c]
            for j in range(C):
                s -= mu[j] * nu[j]
            coef = counts[c] * s
            for j in range(C):
                a[j] += coef * ((1.0 if j == c else 0.0) - mu[j])
        norm = np.sqrt(np.sum(a * a))
        if norm == 0.0:
            break
        nu = a / norm
    return nu, mu


@njit(**NUMBA_FLAGS)
def class_bipartition(counts, state, in_t):
    """Fill ``in_t`` (C,) with 1 for the classes of group T (algorithms spec 2.8, step 1).

    Two classes present: T is the lower class index. More: T holds the present classes with
    (e_c - mu_L) . nu_L >= 0. Returns the number of present classes in T.
    """
    C = counts.shape[0]
    in_t[:] = 0
    present = 0
    first = -1
    for c in range(C):
        if counts[c] > 0:
            present += 1
            if first < 0:
                first = c
    if present == 2:
        in_t[first] = 1
        return 1
    start = np.empty(C)
    for c in range(C):
        start[c] = rand_normal(state)
    nu, mu = label_component(counts, start, POWER_ITERATIONS)
    proj_mu = 0.0
    for j in range(C):
        proj_mu += mu[j] * nu[j]
    n_t = 0
    for c in range(C):
        if counts[c] > 0 and nu[c] - proj_mu >= 0.0:
            in_t[c] = 1
            n_t += 1
    return n_t


@njit(**NUMBA_FLAGS)
def grow_mmdt(Z, wts, y, n_classes, seed, max_depth, factor):
    """Grow one MMDT into flat node arrays.

    Parameters are plain arrays: ``Z`` (row, feature) float64 real-valued features without
    missing values (C-contiguous), ``wts`` int32 row multiplicities (0 = row not in this tree),
    ``y`` int32 class codes, ``seed`` the tree's seed (power-iteration starts), ``max_depth``
    the depth limit, ``factor`` (feature,) float64 the per-feature scaling factors folded into
    every direction (ones: no scaling; see the module docstring). Returns (kind,
    feature, threshold, child_start, n_children, nan_child, random, depth, counts,
    projections): ``feature`` of an oblique node is the row of its vector in the tree-local
    ``projections`` (n_split, n_features).
    """
    n, D = Z.shape
    C = n_classes
    state = new_state(seed)
    n_in = 0
    for i in range(n):
        if wts[i] > 0:
            n_in += 1
    rows = np.empty(max(n_in, 1), dtype=np.int64)
    q = 0
    for i in range(n):
        if wts[i] > 0:
            rows[q] = i
            q += 1
    cap = 2 * n_in + 1
    kind = np.zeros(cap, dtype=np.int8)
    feature = np.full(cap, -1, dtype=np.int32)
    threshold = np.full(cap, np.nan)
    child_start = np.zeros(cap, dtype=np.int32)
    n_children = np.zeros(cap, dtype=np.int32)
    nan_child = np.zeros(cap, dtype=np.int32)
    depth = np.zeros(cap, dtype=np.int32)
    counts = np.zeros((cap, C), dtype=np.int32)
    nstart = np.zeros(cap, dtype=np.int64)
    nend = np.zeros(cap, dtype=np.int64)
    stack = np.zeros(cap, dtype=np.int64)
    pcap = 16
    proj = np.zeros((pcap, D))
    n_proj = 0
    in_t = np.zeros(C, dtype=np.uint8)
    node_counts = np.zeros(C)
    sum_t = np.zeros(D)
    sum_f = np.zeros(D)
    nu = np.zeros(D)
    for j in range(n_in):
        counts[0, y[rows[j]]] += wts[rows[j]]
    nend[0] = n_in
    n_nodes = 1
    sp = 0
    if n_in > 0:
        stack[0] = 0
        sp = 1
    while sp > 0:
        sp -= 1
        node = stack[sp]
        s = nstart[node]
        e = nend[node]
        present = 0
        for c in range(C):
            node_counts[c] = counts[node, c]
            if counts[node, c] > 0:
                present += 1
        if present <= 1 or depth[node] >= max_depth:
            continue
        if class_bipartition(node_counts, state, in_t) == 0:
            continue
        sum_t[:] = 0.0
        sum_f[:] = 0.0
        n_t = 0.0
        n_f = 0.0
        for j in range(s, e):
            i = rows[j]
            wt = np.float64(wts[i])
            if in_t[y[i]]:
                n_t += wt
                for f in range(D):
                    sum_t[f] += wt * Z[i, f]
            else:
                n_f += wt
                for f in range(D):
                    sum_f[f] += wt * Z[i, f]
        if n_t == 0.0 or n_f == 0.0:
            continue
        tv = 0.0
        for f in range(D):
            mt = sum_t[f] / n_t
            mf = sum_f[f] / n_f
            nu[f] = (mt - mf) * factor[f] * factor[f]
            tv += 0.5 * (mt + mf) * nu[f]
        # in-place partition: rows with p . nu < mu . nu first
        lo = s
        hi = e - 1
        while lo <= hi:
            i = rows[lo]
            if dot_row(nu, Z, i) < tv:
                lo += 1
            else:
                rows[lo] = rows[hi]
                rows[hi] = i
                hi -= 1
        if lo == s or lo == e:
            continue
        if n_proj == pcap:
            pcap *= 2
            proj = enlarge(proj, pcap, 0.0)
        proj[n_proj] = nu
        a = n_nodes
        for j in range(s, e):
            i = rows[j]
            counts[a if j < lo else a + 1, y[i]] += wts[i]
        nl = 0
        nr = 0
        for c in range(C):
            nl += counts[a, c]
            nr += counts[a + 1, c]
        nstart[a] = s
        nend[a] = lo
        nstart[a + 1] = lo
        nend[a + 1] = e
        kind[node] = KIND_OBLIQUE
        feature[node] = n_proj
        threshold[node] = np.nextafter(tv, -np.inf)
        child_start[node] = a
        n_children[node] = 2
        nan_child[node] = 0 if nl >= nr else 1
        for b in range(1, -1, -1):
            depth[a + b] = depth[node] + 1
            stack[sp] = a + b
            sp += 1
        n_proj += 1
        n_nodes += 2
    rnd = np.zeros(n_nodes, dtype=np.int8)
    return (kind[:n_nodes].copy(), feature[:n_nodes].copy(), threshold[:n_nodes].copy(),
            child_start[:n_nodes].copy(), n_children[:n_nodes].copy(),
            nan_child[:n_nodes].copy(), rnd, depth[:n_nodes].copy(), counts[:n_nodes].copy(),
            proj[:n_proj].copy())


@njit(**NUMBA_FLAGS)
def project_rows(X, rows, W):
    """Projected features (axis, row): ``Zc[k, q] = W[k] . X[rows[q]]``.

    Every axis keeps its own sequential sum over the features (the order prediction uses);
    the loop over axes is innermost so the independent sums of one row advance together.
    """
    K, D = W.shape
    m = rows.shape[0]
    WT = np.ascontiguousarray(W.T)
    Zc = np.empty((K, m))
    z = np.empty(K)
    for q in range(m):
        i = rows[q]
        z[:] = 0.0
        for f in range(D):
            xf = X[i, f]
            for k in range(K):
                z[k] += WT[f, k] * xf
        for k in range(K):
            Zc[k, q] = z[k]
    return Zc


_SIGN = np.uint64(1) << np.uint64(63)
_DIGIT = np.uint64(2047)


@njit(**NUMBA_FLAGS)
def _sorted_keys(v, keys, idx, k2, i2, counts):
    """Stable LSD radix sort (six 11-bit digits) of float64 values by an order-preserving
    uint64 key; fills ``keys`` (sorted) and ``idx`` (positions), using ``k2``/``i2`` as
    scratch. -0.0 is keyed as +0.0, so equal values share a key; there are no NaNs."""
    m = v.shape[0]
    bits = v.view(np.uint64)
    for i in range(m):
        b = bits[i]
        if b == _SIGN:
            b = np.uint64(0)
        keys[i] = ~b if (b & _SIGN) else (b | _SIGN)
        idx[i] = i
    counts[:] = 0
    for i in range(m):
        key = keys[i]
        for p in range(6):
            counts[p, np.int64((key >> np.uint64(11 * p)) & _DIGIT) + 1] += 1
    src_k, src_i, dst_k, dst_i = keys, idx, k2, i2
    for p in range(6):
        trivial = False
        for b in range(2049):
            if counts[p, b] == m:
                trivial = True
                break
        if trivial:
            continue
        for b in range(2048):
            counts[p, b + 1] += counts[p, b]
        sh = np.uint64(11 * p)
        for i in range(m):
            key = src_k[i]
            b = np.int64((key >> sh) & _DIGIT)
            q = counts[p, b]
            counts[p, b] = q + 1
            dst_k[q] = key
            dst_i[q] = src_i[i]
        src_k, dst_k = dst_k, src_k
        src_i, dst_i = dst_i, src_i
    if src_k is not keys:
        for i in range(m):
            keys[i] = src_k[i]
            idx[i] = src_i[i]


@njit(**NUMBA_FLAGS)
def rank_features(Zc):
    """Ranks, rank order and distinct values of every row of ``Zc`` (axis, row), no missing.

    One stable radix sort per axis (this is the presort of a rotation tree). Returns (R int32
    (axis, row) dense ranks, order int32 (axis, row) rows by increasing value, ties in row
    order, n_distinct int64 (axis,), uniq float64 concatenated sorted distinct values,
    uniq_off int64 (axis + 1,)): the layout of ``treelab.engine.forest.FeatureArrays``.
    """
    K, m = Zc.shape
    R = np.empty((K, m), dtype=np.int32)
    order = np.empty((K, m), dtype=np.int32)
    n_distinct = np.zeros(K, dtype=np.int64)
    uniq_all = np.empty(K * max(m, 1))
    uniq_off = np.zeros(K + 1, dtype=np.int64)
    keys = np.empty(m, dtype=np.uint64)
    idx = np.empty(m, dtype=np.int64)
    k2 = np.empty(m, dtype=np.uint64)
    i2 = np.empty(m, dtype=np.int64)
    counts = np.zeros((6, 2049), dtype=np.int64)
    pos = 0
    for k in range(K):
        row = np.ascontiguousarray(Zc[k])
        _sorted_keys(row, keys, idx, k2, i2, counts)
        r = -1
        for q in range(m):
            if q == 0 or keys[q] != keys[q - 1]:
                r += 1
                uniq_all[pos + r] = row[idx[q]]
            order[k, q] = idx[q]
            R[k, idx[q]] = r
        n_distinct[k] = r + 1
        pos += r + 1
        uniq_off[k + 1] = pos
    return R, order, n_distinct, uniq_all[:pos].copy(), uniq_off


@njit(**NUMBA_FLAGS)
def weighted_moments(X, wts):
    """Multiplicity-weighted mean and standard deviation of every column of X (row, feature)."""
    n, d = X.shape
    mean = np.zeros(d)
    sd = np.zeros(d)
    tot = 0.0
    for i in range(n):
        if wts[i] > 0:
            tot += wts[i]
            for f in range(d):
                mean[f] += wts[i] * X[i, f]
    if tot == 0.0:
        return mean, sd
    mean /= tot
    for i in range(n):
        if wts[i] > 0:
            for f in range(d):
                dv = X[i, f] - mean[f]
                sd[f] += wts[i] * dv * dv
    for f in range(d):
        sd[f] = np.sqrt(sd[f] / tot)
    return mean, sd


@njit(**NUMBA_FLAGS)
def weighted_covariance(X, rows, cols, scale):
    """Covariance matrix of the columns ``cols`` of ``X[rows] / scale`` (sequential sums)."""
    k = cols.shape[0]
    m = rows.shape[0]
    mean = np.zeros(k)
    for q in range(m):
        for a in range(k):
            mean[a] += X[rows[q], cols[a]] / scale[cols[a]]
    if m > 0:
        mean /= m
    cov = np.zeros((k, k))
    for q in range(m):
        for a in range(k):
            va = X[rows[q], cols[a]] / scale[cols[a]] - mean[a]
            for b in range(a, k):
                cov[a, b] += va * (X[rows[q], cols[b]] / scale[cols[b]] - mean[b])
    for a in range(k):
        for b in range(a, k):
            cov[a, b] /= max(m - 1, 1)
            cov[b, a] = cov[a, b]
    return cov

