"""Growth of complete-random trees (every node random, alpha = 0) on continuous features.

The same trees as ``_grow.grow_tree`` at ``alpha = 0``, bit for bit (the same draws from the
same generator in the same order, the same row order in every node; tested against it and
against a pure-Python reference in tests/test_random_growth.py), grown by a routine that
does only what such a tree needs. ``grow_tree`` is general: every node passes through the
test-selection dispatch, binds row-buffer and value-block views, and calls selection and
partition helpers with array arguments; at a complete-random node, whose own work is a few
random draws and one pass over its rows, numba's reference counting of those arrays (atomic
increments and decrements) took more time than the node (measured with ``perf``: 54% of the
kernel's samples). Here the node loop binds no array: both row buffers are one array
addressed by offsets, the draw and the partition are written out in the loop, and only rare
paths (localizing a subtree, the scan that proves a feature constant) call helpers.

Used by ``engine.forest.grow_forest`` for trees with ``alpha == 0`` whose random threshold
rule is ``pair_midpoint`` or ``uniform`` and whose features are all continuous; every other
tree goes to ``grow_tree``.
"""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS
from treelab.engine.kernels._construction import draw_construction
from treelab.engine.kernels._grow import RANDOM_ATTEMPTS
from treelab.engine.kernels._local import LOCAL_BYTES, LOCAL_MAX_FEATURES_RANDOM, LOCAL_MIN_ROWS
from treelab.engine.kernels._nodes import size_and_splittable
from treelab.engine.kernels._params import (
    KIND_THRESHOLD,
    P_LOCAL,
    P_MAX_DEPTH,
    P_MIN_LEAF,
    P_MIN_SPLIT,
    P_RANDOM_SPLIT,
    RS_PAIR,
    RS_UNIFORM,
)
from treelab.engine.kernels._rng import new_state, rand_int
from treelab.engine.kernels._thresholds import (
    PAIR_DRAWS,
    continuous_available,
    midpoint,
    uniform_threshold,
)

# the threshold rules this routine grows (the others need grow_tree)
RULES = (RS_PAIR, RS_UNIFORM)
# rows whose values localize_rows fetches before copying them
LOCALIZE_CHUNK = 32


@njit(**NUMBA_FLAGS)
def _has_two_values(loc, f, ent, s, e, Xl, Xc):
    """``continuous_available`` on the node's value block (a rare path: called after
    ``PAIR_DRAWS`` failed draws in a row)."""
    if loc:
        return continuous_available(f, ent, s, e, Xl)
    return continuous_available(f, ent, s, e, Xc)


@njit(**NUMBA_FLAGS)
def localize_rows(ent, s, e, vis, nv, Xr, Xl):
    """Copy the visible features of the rows of entries ent[s:e] from the row-major values
    ``Xr`` into the feature-major block ``Xl`` and renumber the entries 0..e-s-1 (keeping
    weight and class).

    A row's values are read together (d x 8 contiguous bytes): a node about to be localized
    holds a sparse subset of the rows (a tenth on W1), so reading them column by column from
    the feature-major values fetched a cache line per value, and that copy was 40% of a
    complete-random tree's time (perf, 100 trees on W1).
    """
    last = Xr.shape[1] - 1
    touched = 0.0
    for j0 in range(0, e - s, LOCALIZE_CHUNK):
        j1 = min(j0 + LOCALIZE_CHUNK, e - s)
        # the rows' lines first, in loads that do not wait on each other: the copy below
        # then hits the cache (one row per miss in turn left the copy waiting on memory)
        for j in range(j0, j1):
            r = np.uint64(ent[s + j] >> 32)
            for k in range(0, last, 8):
                touched += Xr[r, k]
            touched += Xr[r, last]
        for j in range(j0, j1):
            p = ent[s + j]
            r = np.uint64(p >> 32)
            ent[s + j] = (np.int64(j) << 32) | (p & 0xFFFFFFFF)
            for q in range(nv):
                f = vis[q]
                Xl[f, j] = Xr[r, f]
    return touched


@njit(**NUMBA_FLAGS)
def grow_random_tree(Xc, Xr, y, n_classes, iparams, seed, row_mode, part, tree_id, n_sub,
                     sw):
    """Grow one complete-random tree; returns what ``grow_tree`` returns for it.

    ``Xc`` (feature, row) float64 values (missing = NaN, no nominal feature), ``Xr`` the same
    values row-major (row, feature), read to localize subtrees (empty: no subtree is
    localized), ``y`` int32 class codes, ``iparams`` the integer parameters (``P_*``; read:
    minimum split and leaf sizes, maximum depth, the random threshold rule, localized
    subtrees), ``seed`` the tree's
    generator seed, ``row_mode``/``part``/``tree_id``/``n_sub`` its construction, ``sw`` int32
    row weights (ones when none). As in ``grow_tree``: entries pack ``row << 32 | weight << 16
    | class``; a split writes its children's entries into the other half of ``ent`` (left
    block forward, right block backward, branch-free); a random threshold sends missing rows
    to the child with more weight; a split leaving a child lighter than the minimum leaf is
    drawn again, up to ``RANDOM_ATTEMPTS`` times, continuing the feature permutation.
    """
    d = Xc.shape[0]
    n = y.shape[0]
    C = n_classes
    if Xc.shape[1] != n:
        raise ValueError("this tree reads feature values, but Xc holds none")
    state = new_state(seed)
    w, mask = draw_construction(n, d, row_mode, part, tree_id, n_sub, state)
    for i in range(n):
        wi = np.int64(w[i]) * np.int64(sw[i])
        if wi > 0xFFFF:
            raise ValueError("a row's sample weight times its bootstrap multiplicity "
                             "exceeds 65535")
        w[i] = np.int32(wi)
    n_in = np.int64(0)
    rows_seen = np.int64(0)
    for i in range(n):
        if w[i] > 0:
            n_in += 1
            rows_seen += w[i]
    # the node's entries are ent[base + s : base + e], base 0 or n_in
    ent = np.empty(2 * n_in, dtype=np.int64)
    q = 0
    for i in range(n):
        if w[i] > 0:
            ent[q] = (np.int64(i) << 32) | (np.int64(w[i]) << 16) | np.int64(y[i])
            q += 1
    nv = np.int64(0)
    for f in range(d):
        if mask[f]:
            nv += 1
    vis = np.empty(nv, dtype=np.int64)
    perm = np.empty(nv, dtype=np.int64)
    q = 0
    for f in range(d):
        if mask[f]:
            vis[q] = f
            perm[q] = f
            q += 1
    local_cap = np.int64(0)
    if (iparams[P_LOCAL] != 0 and d <= LOCAL_MAX_FEATURES_RANDOM and Xr.shape[0] == n
            and Xr.shape[1] == d):
        local_cap = min(n_in, max(LOCAL_MIN_ROWS, LOCAL_BYTES // (8 * d)))
    Xl = np.empty((d, local_cap))
    sink = np.zeros(1)  # keeps localize_rows's fetching loads
    left_counts = np.zeros(C, dtype=np.int64)
    nan_part = np.zeros(C, dtype=np.int64)
    # every split has two children holding rows (a random threshold lies between two values
    # present at the node), so a tree has at most 2 n_in - 1 nodes; np.empty leaves the pages
    # nobody writes untouched (a tree uses about 0.7 n_in nodes on W1)
    cap = max(2 * n_in, 1)
    kind = np.empty(cap, dtype=np.int8)
    feature = np.empty(cap, dtype=np.int32)
    threshold = np.empty(cap)
    child_start = np.empty(cap, dtype=np.int32)
    n_children = np.empty(cap, dtype=np.int32)
    nan_child = np.empty(cap, dtype=np.int32)
    rnd = np.empty(cap, dtype=np.int8)
    depth = np.empty(cap, dtype=np.int32)
    counts = np.empty((cap, C), dtype=np.int32)
    nstart = np.empty(cap, dtype=np.int64)
    nend = np.empty(cap, dtype=np.int64)
    nbase = np.empty(cap, dtype=np.int64)
    local = np.empty(cap, dtype=np.int8)
    stack = np.empty(cap, dtype=np.int64)
    kind[0] = 0
    feature[0] = -1
    threshold[0] = np.nan
    child_start[0] = 0
    n_children[0] = 0
    nan_child[0] = 0
    rnd[0] = 0
    depth[0] = 0
    for c in range(C):
        counts[0, c] = 0
    for j in range(n_in):
        p = ent[j]
        counts[0, p & 0xFFFF] += np.int32((p >> 16) & 0xFFFF)
    nstart[0] = 0
    nend[0] = n_in
    nbase[0] = 0
    local[0] = 0
    n_nodes = 1
    sp = 0
    if n_in > 0:
        stack[0] = 0
        sp = 1
    min_split = iparams[P_MIN_SPLIT]
    min_leaf = iparams[P_MIN_LEAF]
    max_depth = iparams[P_MAX_DEPTH]
    pair = iparams[P_RANDOM_SPLIT] == RS_PAIR
    while sp > 0:
        sp -= 1
        node = stack[sp]
        s = nstart[node]
        e = nend[node]
        base = nbase[node]
        obase = n_in - base
        n_node, splittable = size_and_splittable(counts, node, C, min_split, depth[node],
                                                 max_depth)
        if not splittable:
            continue  # (the root only: children are pushed when they can split)
        loc = local[node] != 0
        if not loc and e - s <= local_cap:
            sink[0] += localize_rows(ent, base + s, base + e, vis, nv, Xr, Xl)
            loc = True
        m = e - s
        split = False
        f = np.int64(-1)
        t = np.nan
        nanc = 0
        split_at = s
        for _ in range(RANDOM_ATTEMPTS):
            # random_select: features in a partial Fisher-Yates order until one can split
            found = False
            for i in range(nv):
                j = i + rand_int(state, nv - i)
                f = perm[j]
                perm[j] = perm[i]
                perm[i] = f
                if pair:
                    # pair_midpoint: a random row's value, then another row's differing value
                    va = np.nan
                    k = 0
                    ok = True
                    while np.isnan(va):
                        r = (ent[base + s + rand_int(state, m)] >> 32)
                        va = Xl[f, r] if loc else Xc[f, r]
                        k += 1
                        if (k == PAIR_DRAWS and np.isnan(va)
                                and not _has_two_values(loc, f, ent, base + s, base + e, Xl,
                                                        Xc)):
                            ok = False
                            break
                    if not ok:
                        continue
                    k = 0
                    vb = np.nan
                    while True:
                        r = (ent[base + s + rand_int(state, m)] >> 32)
                        vb = Xl[f, r] if loc else Xc[f, r]
                        if not np.isnan(vb) and vb != va:
                            break
                        k += 1
                        if (k == PAIR_DRAWS
                                and not _has_two_values(loc, f, ent, base + s, base + e, Xl,
                                                        Xc)):
                            ok = False
                            break
                    if not ok:
                        continue
                    t = midpoint(va, vb) if va < vb else midpoint(vb, va)
                    found = True
                    break
                # uniform: between the node's smallest and largest value
                lo = np.inf
                hi = -np.inf
                for jj in range(s, e):
                    r = ent[base + jj] >> 32
                    v = Xl[f, r] if loc else Xc[f, r]
                    if v < lo:
                        lo = v
                    if v > hi:
                        hi = v
                if not lo < hi:
                    continue
                t = uniform_threshold(lo, hi, state)
                found = True
                break
            if not found:
                break
            # partition_threshold on values: left block forward, right block backward
            nl = 0
            nr = 0
            n_miss = 0
            lo_at = obase + s
            hi_at = obase + e - 1
            if loc:
                for jj in range(base + s, base + e):
                    p = ent[jj]
                    v = Xl[f, np.uint64(p >> 32)]
                    g = np.int64(v <= t)
                    ent[np.uint64(lo_at + nl)] = p
                    ent[np.uint64(hi_at - nr)] = p
                    nl += g
                    nr += 1 - g
                    n_miss += np.int64(v != v)
            else:
                for jj in range(base + s, base + e):
                    p = ent[jj]
                    v = Xc[f, np.uint64(p >> 32)]
                    g = np.int64(v <= t)
                    ent[np.uint64(lo_at + nl)] = p
                    ent[np.uint64(hi_at - nr)] = p
                    nl += g
                    nr += 1 - g
                    n_miss += np.int64(v != v)
            left_counts[:] = 0
            nan_part[:] = 0
            if n_miss == 0 and 2 * nl > m:
                # the right block is the smaller: count it, the left is the rest
                for jj in range(obase + s + nl, obase + e):
                    p = ent[jj]
                    left_counts[p & 0xFFFF] -= (p >> 16) & 0xFFFF
                for c in range(C):
                    left_counts[c] += counts[node, c]
            else:
                for jj in range(obase + s, obase + s + nl):
                    p = ent[jj]
                    left_counts[p & 0xFFFF] += (p >> 16) & 0xFFFF
            if n_miss > 0:
                for jj in range(obase + s + nl, obase + e):
                    p = ent[jj]
                    v = Xl[f, p >> 32] if loc else Xc[f, p >> 32]
                    if v != v:
                        nan_part[p & 0xFFFF] += (p >> 16) & 0xFFFF
            wl = 0.0
            wn = 0.0
            for c in range(C):
                wl += left_counts[c]
                wn += nan_part[c]
            wr = n_node - wl - wn
            nanc = 0 if wl >= wr else 1
            split_at = s + nl
            if nanc == 0 and wn > 0:
                # missing rows join the left block: partition again with them sent left
                nl = 0
                nr = 0
                for jj in range(s, e):
                    p = ent[base + jj]
                    v = Xl[f, p >> 32] if loc else Xc[f, p >> 32]
                    g = np.int64(v <= t) | np.int64(v != v)
                    ent[obase + s + nl] = p
                    ent[obase + e - 1 - nr] = p
                    nl += g
                    nr += 1 - g
                split_at = s + nl
            if nanc == 0:
                wl += wn
            else:
                wr += wn
            if wl < min_leaf or wr < min_leaf:
                continue
            a = n_nodes
            if a + 2 > cap:  # (cannot happen: both children hold rows)
                raise RuntimeError("complete-random tree outgrew its node bound")
            for c in range(C):
                lc = left_counts[c] + (nan_part[c] if nanc == 0 else 0)
                counts[a, c] = np.int32(lc)
                counts[a + 1, c] = counts[node, c] - np.int32(lc)
            nstart[a] = s
            nend[a] = split_at
            nstart[a + 1] = split_at
            nend[a + 1] = e
            split = True
            break
        if not split:
            continue
        kind[node] = KIND_THRESHOLD
        feature[node] = f
        threshold[node] = t
        child_start[node] = n_nodes
        n_children[node] = 2
        nan_child[node] = nanc
        rnd[node] = 1
        for b in range(1, -1, -1):
            ch = n_nodes + b
            kind[ch] = 0
            feature[ch] = -1
            threshold[ch] = np.nan
            child_start[ch] = 0
            n_children[ch] = 0
            nan_child[ch] = 0
            rnd[ch] = 0
            depth[ch] = depth[node] + 1
            nbase[ch] = obase
            local[ch] = 1 if loc else 0
            # a child that cannot split is a leaf already: not pushed (popping it would
            # draw nothing)
            if size_and_splittable(counts, ch, C, min_split, depth[ch], max_depth)[1]:
                stack[sp] = ch
                sp += 1
        n_nodes += 2
    return (kind[:n_nodes].copy(), feature[:n_nodes].copy(), threshold[:n_nodes].copy(),
            child_start[:n_nodes].copy(), n_children[:n_nodes].copy(),
            nan_child[:n_nodes].copy(), rnd[:n_nodes].copy(), depth[:n_nodes].copy(),
            counts[:n_nodes].copy(), np.int64(0), np.int64(0), np.int64(0), rows_seen,
            np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32))
