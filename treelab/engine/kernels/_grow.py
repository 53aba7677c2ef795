"""One growth routine for every axis-aligned tree, classification and regression.

The per-node test-selection is a parameter, not a copy: with probability ``alpha`` a node uses
the deterministic selection (C4.5/ID3/CART criteria over ``max_features`` candidate features,
exact or Extra-Trees random thresholds), otherwise the random selection (``pair_midpoint``,
``uniform`` or ``pert``); both live in ``_select``, the parameter layout in ``_params``.
Presets (VR-Trees, RD, random forest, Extra-Trees, ...) only change ``iparams``, ``alpha`` and
the construction (which rows and features a tree sees). Regression trees grow in the same node
loop, parametrised by ``grow_tree``'s argument ``regression`` (their node statistics and
deterministic selection: ``_regression_node``).
"""

import numpy as np
from numba import njit

from treelab.engine.kernels._binned import GATHER_ROWS
from treelab.engine.kernels._config import NUMBA_FLAGS
from treelab.engine.kernels._construction import draw_construction
from treelab.engine.kernels._local import (  # noqa: F401 (callers read the limits as _grow.*)
    LOCAL_MAX_FEATURES,
    LOCAL_MAX_FEATURES_RANDOM,
    local_blocks,
    localize,
)
from treelab.engine.kernels._nodes import (  # noqa: F401 (callers read them as _grow.*)
    N8_COLS,
    N8_KIND,
    N8_LOCAL,
    N8_NBUF,
    N8_RND,
    N32_CHILD,
    N32_COLS,
    N32_DEPTH,
    N32_FEATURE,
    N32_NAN,
    N32_NCHILD,
    N32_TF,
    N32_TT,
    N64_COLS,
    N64_END,
    N64_PARENT,
    N64_REF,
    N64_STACK,
    N64_START,
    NO_REFERENCE,
    NODE_CAP_DIVISOR,
    REF_CHILD,
    REF_FEATURE,
    REF_KIND,
    REF_NAN,
    REF_TF,
    REF_TT,
    enlarge,
)
from treelab.engine.kernels._nominal import summarize_nominal
from treelab.engine.kernels._params import (  # noqa: F401 (callers read the layout as _grow.P_*)
    KIND_LEAF,
    KIND_NOMINAL,
    KIND_THRESHOLD,
    N_PARAMS,
    P_BETA_BITS,
    P_BINNED,
    P_C45,
    P_COUNT_SHIFT,
    P_CRITERION,
    P_DET_THRESHOLD,
    P_KEEP_TIES,
    P_LOCAL,
    P_MAX_DEPTH,
    P_MAX_FEATURES,
    P_MIN_LEAF,
    P_MIN_OBJS,
    P_MIN_SPLIT,
    P_PRESORT,
    P_RANDOM_SPLIT,
    P_STOCHASTIC,
    ROWS_ALL,
    ROWS_BOOTSTRAP,
    ROWS_DISJOINT,
    ROWS_WEIGHTS,
    RS_PAIR,
    RS_PERT,
    RS_UNIFORM,
)
from treelab.engine.kernels._partition import partition_nominal, partition_threshold
from treelab.engine.kernels._presort import (  # noqa: F401 (callers read it as _grow.*)
    LIST_MIN_DISTINCT,
    child_scans_lists,
    list_min_distinct,
    partition_lists,
    presort_plan,
)
from treelab.engine.kernels._regression_node import (
    node_statistics,
    regression_buffers,
    regression_select,
)
from treelab.engine.kernels._rng import new_state, rand_float
from treelab.engine.kernels._select import LEAN_REFUSES, deterministic_select, random_select
from treelab.engine.kernels._split import cls_of, row_of
from treelab.engine.kernels._stochastic import stochastic_select
from treelab.engine.kernels._stochastic_modes import MODE_BINNED, beta_from_bits
from treelab.engine.kernels._thresholds import rank_threshold

RANDOM_ATTEMPTS = 10


@njit(**NUMBA_FLAGS)
def grow_tree(Xc, R, order, n_distinct, uniq, uniq_off, nominal, y, n_classes, iparams,
              alpha, table, seed, row_mode, part, tree_id, n_sub, ref_i, ref_t, stochastic,
              general, sw=None, binned=True, Rt=None, regression=None, multiway=True):
    """Grow one tree into flat node arrays.

    Parameters are plain arrays: ``Xc`` (feature, row) float64 values (nominal features hold
    codes 0..m-1, missing = NaN), ``R`` (feature, row) int32 global ranks of continuous values,
    ``n_distinct`` distinct values (continuous) or arity (nominal) per feature, ``uniq`` /
    ``uniq_off`` sorted distinct values per feature, ``y`` int32 class codes, ``iparams`` the
    integer parameters (``P_*``), ``table`` the x*log2(x) table, ``order`` (feature, row) the rows
    of each continuous feature in increasing rank order (missing last), used to presort
    deterministic trees (module ``_presort``). Returns the node arrays,
    per-tree statistics (feature ties, test ties, deterministic decision nodes, rows seen) and
    each node's feature and test ties (kept by all-deterministic trees, alpha >= 1, when
    ``iparams[P_KEEP_TIES]`` asks for them; empty otherwise).

    Reference tree (``ref_i``, ``ref_t``; empty: none): the all-deterministic tree on the same
    rows and features, as ``engine.forest.reference_arrays`` lays it out. Where a deterministic node
    depends only on its rows (every row and feature in, all features candidates, exact
    thresholds), a node reached from the root through deterministic splits only has the rows
    of the reference node at the same place, so it takes that node's test instead of
    searching again: the same tree, bit for bit, without the most expensive searches (the
    top of the tree).

    ``stochastic``: ``None`` for trees that never select stochastically
    (``iparams[P_STOCHASTIC] == 0``), else ``True``. numba compiles one version of this routine
    for each: with ``None`` it drops the stochastic ID3 branch before type inference, so the
    families that never use it do not compile that selection (docs/first_minute.md).

    ``general``: ``True`` for the routine that grows every tree, ``None`` for its lean version,
    compiled without nominal tests, presorted lists, Extra-Trees thresholds and random rules
    other than ``pair_midpoint`` (numba drops those branches as for ``stochastic``), about a
    third less to compile on a first fit that needs none of them (iris-like data;
    ``engine.forest.lean_suffices`` says when, and the lean version refuses the rest).

    ``binned``: ``None`` for a version without the binned split search (``max_bins``; numba
    drops it as for ``stochastic``): fits whose ranks are not bin codes compile neither the
    search nor numba's quicksort it sorts bins with (about 4 CPU-s of a first fit).

    ``Rt``: the bin codes as a (row, feature) uint8 copy of ``R`` (``engine.features.
    row_major_codes``), or None / empty: the binned search's small nodes gather their
    candidates' codes from it (``_binned.gather_codes``) when the tree has no localized blocks.

    Localized subtrees (``iparams[P_LOCAL]``): once a node has few enough rows, its rows'
    values (when the tree reads values) and ranks (when it has deterministic nodes) are copied
    into small feature-major blocks, its row entries renumbered 0..m-1, and its whole subtree
    reads the blocks. Below the top levels every read of ``Xc[f, row]`` otherwise misses the
    cache (one line per value, rows scattered over the column); in the block the node's values
    lie in a few lines. The copy sweeps each column forward once (``localize``). Nothing else
    changes: the same positions, values and ranks give the same tree, bit for bit.

    ``regression``: None for classification trees; for a regression tree the tuple (float64
    targets, float64 non-negative sample weights, ``poisson``). numba drops every
    ``regression is not None`` branch from the classifiers' versions, which compile what they
    compiled before; the regression version is called with ``table`` None (no class
    criterion), which drops the classifiers' deterministic selection from it, and with
    ``stochastic``, ``sw``, ``binned`` and ``Rt`` None. A regression tree is a one-class tree:
    ``y`` holds int32 zeros and ``n_classes`` is 1, so ``counts[node, 0]`` is a node's rows
    with multiplicity, the partitions' class counts are the children's, and the
    ``min_samples_split`` / ``min_samples_leaf`` checks are the classifiers' comparisons.
    What differs:

    - a node's summed weight W and weighted target S (w y, w its multiplicity times its
      sample weight) are taken when it is popped (``_regression_node.node_statistics``); a
      constant target (not a single class) or fewer than 2 ``min_samples_leaf`` rows stop it;
    - sample weights stay float64, outside the 16-bit multiplicity; rows of weight 0 are
      left out of the tree;
    - the deterministic selection is ``_regression_node.regression_select`` (largest squared
      error or half Poisson deviance reduction, CART); its Extra-Trees thresholds partition by
      value, and its threshold +inf splits the non-missing rows (left) from the missing ones;
    - a threshold split of a node without missing rows of its feature sends missing values at
      prediction to its larger child (scikit-learn's rule);
    - presorted lists on the regression rule (every visible feature counts against
      ``max_features``; nodes of at least 16 rows scan them);
    - no localized blocks and no reference tree (both stay classifier-only).

    ``multiway``: True, or None for a version without nominal tests, whose node tables never
    grow (binary splits: at most 2 n - 1 nodes), as the lean version's: numba drops both
    (what a first regression fit on numeric features compiles: no nominal split, no
    ``enlarge``); the classifiers' lean version drops them already, their other versions take
    the default.

    Random nodes, the constructions, the partitions and the node tables are the
    classifiers'. The regression version returns the classifiers' first 13 outputs (node
    arrays, class counts, ties, deterministic decision nodes, rows seen) and then each node's
    weighted mean target ``value`` (S / W; a child no row reaches keeps its parent's) and
    summed weight ``weight`` (W).
    """
    d = Xc.shape[0]
    n = y.shape[0]
    C = n_classes
    # the values are read only by random nodes, nominal tests, Extra-Trees thresholds and
    # stochastic ID3; a tree of exact deterministic tests on continuous features reads ranks
    # alone, so its caller may leave Xc empty (engine.forest.prepare_features(values=False))
    if Xc.shape[1] != n:
        needs_values = alpha < 1.0 or iparams[P_DET_THRESHOLD] != 0 or iparams[P_STOCHASTIC] != 0
        for f in range(d):
            needs_values = needs_values or nominal[f] != 0
        if needs_values or Xc.shape[1] != 0:
            raise ValueError("this tree reads feature values, but Xc holds none")
    state = new_state(seed)
    w, mask = draw_construction(n, d, row_mode, part, tree_id, n_sub, state)
    if regression is not None:
        # (numba drops every ``regression is not None`` branch from the classifiers' versions)
        ry, rsw, poisson = regression
        if multiway is None:
            for f in range(d):
                if nominal[f]:
                    raise ValueError("nominal features need grow_tree(..., multiway=True)")
        for i in range(n):
            if w[i] > 0xFFFF:
                raise ValueError("a row's multiplicity exceeds 65535")
            # sample weights stay float64 (rsw), outside the 16-bit multiplicity; rows of
            # weight 0 are left out of the tree, as scikit-learn's trees leave them out
            if not rsw[i] > 0.0:
                w[i] = 0
    if sw is not None:
        for i in range(n):
            wi = np.int64(w[i]) * np.int64(sw[i])
            # a row's multiplicity is packed into 16 bits of its entry
            if wi > 0xFFFF:
                raise ValueError("a row's sample weight times its bootstrap multiplicity "
                                 "exceeds 65535")
            w[i] = np.int32(wi)
    # counters start as np.int64, not a literal 0: numba would otherwise compile the kernels
    # they are passed to once more for Literal[int](0) (see docs/first_minute.md)
    n_in = np.int64(0)
    rows_seen = 0
    for i in range(n):
        if w[i] > 0:
            n_in += 1
            rows_seen += w[i]
    # every class count, node size and branch size indexes the x log2 x table: it must reach
    # the weighted row count, not only the distinct rows (a stray read is a wrong gain)
    if table is not None:
        if table.shape[0] <= rows_seen:
            raise ValueError("the x log2 x table is smaller than the weighted row count")
    # the rows of a node are buf[n8[node, N8_NBUF], s:e]; a split writes its children's rows
    # into the other buffer, so no partition copies back
    buf = np.empty((2, n_in), dtype=np.int64)
    q = 0
    for i in range(n):
        if w[i] > 0:
            buf[0, q] = (np.int64(i) << 32) | (np.int64(w[i]) << 16) | np.int64(y[i])
            q += 1
    nv = np.int64(0)
    for f in range(d):
        if mask[f]:
            nv += 1
    vis = np.empty(nv, dtype=np.int64)
    q = 0
    for f in range(d):
        if mask[f]:
            vis[q] = f
            q += 1
    max_arity = 1
    for f in range(d):
        if nominal[f] and n_distinct[f] > max_arity:
            max_arity = n_distinct[f]
    # work buffers, allocated once per tree
    # buffers of the deterministic split search; complete-random trees never touch them
    n_det = n_in if alpha > 0.0 else 1
    # a node's distinct ranks of a feature are at most its rows and its feature's distinct
    # values (binned features: bins); its dense histogram spans at most 2 m + 16 ranks and
    # never more than those values, and it sorts keys only where the span exceeds 2 m + 16,
    # so no buffer needs more than max_nd + 16 entries (a bound that matters for binned
    # features, whose max_nd is small)
    max_nd = np.int64(0)
    for f in range(d):
        if not nominal[f] and n_distinct[f] > max_nd:
            max_nd = n_distinct[f]
    n_key = max(min(n_det, max_nd + 16), 1)
    if iparams[P_STOCHASTIC] != 0:
        n_key = max(n_det, 1)  # (kept whole for stochastic ID3, whose summaries it serves)
    keys = np.empty(n_key, dtype=np.int64)
    keys2 = np.empty(n_key, dtype=np.int64)
    # the binned search's class-major integer histogram and its occupied bins (_binned)
    n_bins = max_nd + 1 if iparams[P_BINNED] != 0 and alpha > 0.0 else 0
    if binned is None:
        # (regression trees search bins in their own search, _regression_split)
        if regression is None:
            if iparams[P_BINNED] != 0:
                raise ValueError("binned features need grow_tree(..., binned=True)")
        # typed None: deterministic_select then drops the binned search before type inference
        bhist = None
    else:
        bhist = np.zeros(C * n_bins, dtype=np.int64)
    bocc = np.zeros(n_bins, dtype=np.uint8)
    blst = np.empty(n_bins, dtype=np.int64)
    if Rt is None:
        Rtv = np.empty((0, 0), dtype=np.uint8)
    else:
        Rtv = Rt
    span_cap = min(2 * n_det + 16, max_nd + 16)
    hist = np.zeros(span_cap * C)
    occ = np.zeros(span_cap, dtype=np.uint8)
    n_dist = max(min(n_det, max_nd + 16), max_arity) + 1
    dist_rank = np.empty(n_dist, dtype=np.int64)
    dist_counts = np.zeros((n_dist, C))
    nan_counts = np.zeros(C)
    bufs = np.zeros((3, max(C, max_arity)))
    icounts = np.zeros(2 * C, dtype=np.int64)  # the many-class scans' counts (_scan)
    node_counts = np.zeros(C)
    cmap = np.empty(C, dtype=np.int64)  # class_map of the node being split
    present = np.empty(C)
    all_classes = np.empty(C, dtype=np.int64)
    for c in range(C):
        all_classes[c] = c
    left_counts = np.zeros(C, dtype=np.int64)  # partition_threshold's class counts
    nan_part = np.zeros(C, dtype=np.int64)
    perm = np.empty(nv, dtype=np.int64)
    cand_f = np.empty(nv, dtype=np.int64)
    cand_g = np.empty(nv)
    cand_si = np.empty(nv)
    cand_t = np.empty(nv)
    cand_nan = np.empty(nv, dtype=np.int64)
    cand_kind = np.empty(nv, dtype=np.int64)
    cand_nt = np.empty(nv, dtype=np.int64)
    scratch = np.empty(max(n_det, 1), dtype=np.int64)
    bucket = np.zeros(max_arity + 1, dtype=np.int64)
    used = np.zeros(d, dtype=np.uint8)
    # presorted lists for trees whose every node is deterministic with exact thresholds
    presort, lists, slot_of, sorted_min = presort_plan(iparams, alpha, nominal, n_distinct, vis,
                                                       nv, order, R, w, n_in, general,
                                                       regression)
    if general is None:
        if presort:
            raise ValueError(LEAN_REFUSES)
    yw = np.zeros(n if presort else 1, dtype=np.int64)
    child_of = np.zeros(n if presort else 1, dtype=np.int32)
    if presort:
        for i in range(n):
            yw[i] = (np.int64(w[i]) << 16) | np.int64(y[i])
    fill = np.zeros(max_arity + 2, dtype=np.int64)
    has_nominal = False
    for q in range(nv):
        perm[q] = vis[q]
        if nominal[vis[q]]:
            has_nominal = True
    # localized blocks (none for regression trees, whose search reads the global arrays)
    local_cap, Xl, glob, Rl = local_blocks(iparams[P_LOCAL] != 0, alpha, n_in, Xc, R,
                                           regression)
    if regression is not None:
        # the regression search's per-node statistics and buffers, and each row's weight
        # (multiplicity times sample weight; 0 for rows left out)
        rkeys, nw, ny, nm, hw, hs, hm, wrow = regression_buffers(n, n_in, max_arity, w, rsw)
        random_thr = iparams[P_DET_THRESHOLD] == 1
        binned_search = iparams[P_BINNED] != 0
    # the binned search's buffers for codes gathered from the row-major copy (trees without
    # localized blocks, whose nodes read the blocks instead)
    n_gather = 0
    if Rtv.shape[0] == n and n_bins > 0 and local_cap == 0:
        n_gather = min(iparams[P_MAX_FEATURES], nv)
    gcap = n_in // GATHER_ROWS + 1 if n_gather > 0 else 0
    bg = np.empty((n_gather, gcap), dtype=R.dtype)
    brows = np.empty(gcap, dtype=np.int64)
    # node arrays
    # grows by doubling as the tree needs more: a fully grown tree on n distinct rows has up to
    # 2 n nodes, a typical one far fewer (a random-forest tree on 1,000,000 rows of
    # make_classification: about 0.13 n)
    cap = n_in // NODE_CAP_DIVISOR + 16
    if general is None:
        # the lean version splits on thresholds alone, which leave rows on both sides: at
        # most n_in leaves, 2 n_in - 1 nodes, so its tables never grow and numba compiles no
        # enlarge for it (four versions, about 0.5 CPU-s of a first fit)
        cap = 2 * n_in + 16
    if multiway is None:
        cap = 2 * n_in + 16  # (as the lean version's: binary splits alone)
    # fill value of enlarged node tables, typed (a literal would compile enlarge once more);
    # what the new rows hold does not matter: every node's fields are set when it is created
    zero = np.int64(0)
    # the node tables, one array per dtype (columns N8_*, N32_*, N64_*): each array is a few
    # call sites of grow_tree to compile (its allocation, its growth, its reference counts),
    # about 0.02 CPU-s a site on a first fit (benchmarks/README.md, issue 28, item 4)
    n8 = np.empty((cap, N8_COLS), dtype=np.int8)
    n32 = np.empty((cap, N32_COLS), dtype=np.int32)
    n64 = np.empty((cap, N64_COLS), dtype=np.int64)
    threshold = np.empty(cap)
    counts = np.empty((cap, C), dtype=np.int32)
    if regression is not None:
        # each regression node's weighted mean target (S / W) and summed weight W
        value = np.empty(cap)
        weight = np.empty(cap)
        value[0] = np.nan
        weight[0] = 0.0
    # node of the reference tree (-1: none, N64_REF); each node's ties (N32_TF, N32_TT) are
    # returned by all-deterministic trees only, the ones that can serve as a reference, and
    # only when asked for
    has_ref = ref_i.shape[0] > 0
    keep_ties = alpha >= 1.0 and iparams[P_KEEP_TIES] != 0
    # the root
    for c in range(C):
        counts[0, c] = 0
    for k in range(N8_COLS):
        n8[0, k] = 0
    for k in range(N32_COLS):
        n32[0, k] = 0
    n32[0, N32_FEATURE] = -1
    threshold[0] = np.nan
    n64[0, N64_PARENT] = -1
    n64[0, N64_START] = 0
    n64[0, N64_REF] = 0 if has_ref else -1

    for j in range(n_in):
        counts[0, cls_of(buf[0, j])] += w[row_of(buf[0, j])]
    n64[0, N64_END] = n_in
    n_nodes = 1
    sp = 0
    if n_in > 0:
        n64[0, N64_STACK] = 0
        sp = 1
    min_split = iparams[P_MIN_SPLIT]
    min_leaf = iparams[P_MIN_LEAF]
    max_depth = iparams[P_MAX_DEPTH]
    rule = iparams[P_RANDOM_SPLIT]
    stochastic_mode = iparams[P_STOCHASTIC] - 1
    if iparams[P_BINNED] != 0:
        stochastic_mode |= MODE_BINNED
    ties_feature = 0
    ties_test = 0
    n_decision = 0
    # room for the children of any split before each node is popped (at most max_arity,
    # 2 for thresholds): the node arrays are reassigned only out here, so the loop below
    # has no versions of them to merge, each of which numba counted at every node
    # (the trees are cut to n_nodes at the end, so where they grow changes nothing)
    max_need = max(np.int64(2), np.int64(max_arity))
    # the nominal tests on the path to the node being split, n_path of them: a path holds a
    # nominal feature once at most, and each threshold split leaves both children smaller
    path = np.empty(n_in + d + 2 if has_nominal else 1, dtype=np.int64)
    n_path = np.int64(0)
    while sp > 0:
        if n_nodes + max_need > cap:
            if general is None:
                raise AssertionError("the lean routine's node tables are full")
            if multiway is None:
                raise AssertionError("the binary routine's node tables are full")
            cap = max(2 * cap, n_nodes + max_need)
            n8 = enlarge(n8, cap, zero)
            n32 = enlarge(n32, cap, zero)
            n64 = enlarge(n64, cap, zero)
            threshold = enlarge(threshold, cap, np.nan)
            counts = enlarge(counts, cap, zero)
            if regression is not None:
                value = enlarge(value, cap, np.nan)
                weight = enlarge(weight, cap, np.nan)
        while sp > 0 and n_nodes + max_need <= cap:
            sp -= 1
            node = n64[sp, N64_STACK]
            s = n64[node, N64_START]
            e = n64[node, N64_END]
            n_node = 0.0
            n_nonzero = 0
            for c in range(C):
                node_counts[c] = counts[node, c]
                n_node += node_counts[c]
                if node_counts[c] > 0:
                    n_nonzero += 1
            if regression is not None:
                # a regression tree's node: one "class" (counts[node, 0] is its rows with
                # multiplicity), its statistics taken here; a constant target stops it
                W, S, M, constant = node_statistics(buf, n8[node, N8_NBUF], s, e, ry, rsw,
                                                    nw, ny, nm)
                value[node] = S / W if W > 0.0 else np.nan
                weight[node] = W
                if (M < min_split or n32[node, N32_DEPTH] >= max_depth or constant
                        or M < 2 * min_leaf):
                    continue
            if table is not None:
                if n_node < min_split or n32[node, N32_DEPTH] >= max_depth or n_nonzero <= 1:
                    continue
            # no views of the row buffers or choices between the global arrays and the blocks
            # here: each would raise and lower a reference count at every split node, so the
            # kernels below take the arrays themselves, the buffer's index and ``loc``
            nbuf = n8[node, N8_NBUF]
            # (the lean version, general None, has no nominal features: numba drops this)
            if general is not None and has_nominal:
                # used[f]: f is a nominal test above this node. path[k] holds the nominal
                # feature tested at depth k on the way here (-1: a threshold test); entries
                # from this node's depth down belong to subtrees finished before it (depth
                # first), so they are cleared, and the entries above are its ancestors'
                depth = n32[node, N32_DEPTH]
                while n_path > depth:
                    n_path -= 1
                    if path[n_path] >= 0:
                        used[path[n_path]] = 0
            use_sorted = presort and (e - s) >= sorted_min
            if table is not None:  # (regression trees have no localized blocks)
                if not n8[node, N8_LOCAL] and e - s <= local_cap:
                    localize(buf, nbuf, s, e, vis, nv, nominal, Xc, R, Xl, Rl, glob)
                    n8[node, N8_LOCAL] = 1
            loc = n8[node, N8_LOCAL] != 0
            det = alpha >= 1.0 or (alpha > 0.0 and rand_float(state) < alpha)
            attempts = 1 if det else RANDOM_ATTEMPTS
            split = False
            tf = 0
            tt = 0
            n_kids = 0
            f = -1
            sk = 0
            t = np.nan
            nanc = 0
            r = n64[node, N64_REF] if det and has_ref else -1
            for _ in range(attempts):
                if r >= 0:
                    found = ref_i[r, REF_KIND] != KIND_LEAF
                    sk = ref_i[r, REF_KIND]
                    f = ref_i[r, REF_FEATURE]
                    t = ref_t[r]
                    nanc = ref_i[r, REF_NAN]
                    tf = ref_i[r, REF_TF]
                    tt = ref_i[r, REF_TT]
                elif det and iparams[P_STOCHASTIC] > 0:
                    # a constant condition where ``stochastic`` is None: numba removes the rest of
                    # this branch, and stochastic_select is neither typed nor compiled
                    # (numba's cache of this function does not see edits of the kernels it
                    # calls, e.g. _stochastic.py, _select.py, _split.py, _nominal.py,
                    # _thresholds.py, _partition.py, _presort.py, _binned.py, _local.py,
                    # _construction.py, _scan.py, _nodes.py, _regression_node.py,
                    # _regression_split.py: edit this file too when they change, so that a
                    # stale cache is not reused; last: one register summary for presorted lists
                    # and sorted keys; the nominal partition's cursors, localize's one sweep,
                    # build_lists branch-free; the register loops' shared entry helpers;
                    # localize without nominal features' ranks; the scans' shared split info;
                    # the per-node kernels take the row buffer and its index, not views; the
                    # summaries and scans called, not inlined; the node tables' layout and
                    # enlarge in _nodes.py; the regression trees grown here, their node
                    # statistics and selection in _regression_node.py; the presort plan and
                    # the localized blocks' allocation in _presort.py and _local.py; the
                    # binned regression chains' bitmap in _regression_split.py; PERT's target
                    # pairs for regression in _select.random_select; a regression feature of
                    # one non-missing value and missing rows split apart, _regression_split)
                    if stochastic is None:
                        raise ValueError(
                            "stochastic selection needs grow_tree(..., stochastic=True)")
                    found, f, sk, t, nanc, tf, tt = stochastic_select(
                        beta_from_bits(iparams[P_BETA_BITS]), stochastic_mode, min_split,
                        min_leaf, max_depth - n32[node, N32_DEPTH], nominal, n_distinct, uniq,
                        uniq_off, used, vis, nv, buf[nbuf], s, e, Xl if loc else Xc,
                        Rl if loc else R, node_counts, n_node, state,
                        keys, keys2, hist, occ, dist_rank, dist_counts, nan_counts, table,
                        all_classes)
                elif det:
                    if regression is not None:
                        found, f, sk, t, nanc = regression_select(
                            nominal, n_distinct, uniq, uniq_off, vis, nv, perm,
                            iparams[P_MAX_FEATURES], random_thr, binned_search, buf, nbuf, s, e,
                            Xc, R, rsw, ry, nw, ny, nm, W, S, M, min_leaf, poisson, rkeys, hw, hs,
                            hm, use_sorted, lists, slot_of, wrow, w, state, multiway)
                    if table is not None:
                        found, f, sk, t, nanc, tf, tt = deterministic_select(
                            iparams, nominal, n_distinct, uniq, uniq_off, used, vis, nv, perm,
                            buf, nbuf, s, e, Xc, R, Xl, Rl, loc, node_counts, n_node, table,
                            state, keys, keys2, hist, occ, dist_rank, dist_counts, nan_counts,
                            bufs, icounts, cand_f, cand_g, cand_si, cand_t, cand_nan, cand_kind,
                            cand_nt, use_sorted, lists, slot_of, yw, cmap, present, bhist, bocc,
                            blst, general, Rtv, bg, brows)
                else:
                    if regression is not None:
                        # (PERT pairs two rows of different targets: random_select's target)
                        found, f, sk, t = random_select(rule, nominal, used, nv, perm, buf,
                                                         nbuf, s, e, Xc, Xl, loc, state, general,
                                                         ry)
                    if table is not None:
                        found, f, sk, t = random_select(rule, nominal, used, nv, perm, buf,
                                                         nbuf, s, e, Xc, Xl, loc, state, general)
                if not found:
                    break
                if sk == KIND_THRESHOLD:
                    # deterministic splits know where missing rows go; random splits send them to
                    # the larger child, decided after counting
                    nd_f = n_distinct[f]
                    if regression is not None:
                        # a regression node's Extra-Trees threshold is a value (with bins, it
                        # may fall inside one), and the threshold +inf splits the non-missing
                        # rows (every rank, left) from the missing ones
                        if det and not random_thr:
                            rt = nd_f - 1 if t == np.inf else rank_threshold(f, t, uniq,
                                                                             uniq_off)
                            split_at = partition_threshold(f, rt, nd_f, 1 if nanc == 0 else 0,
                                                           buf, nbuf, s, e, R, Rl, loc,
                                                           left_counts, nan_part)
                        else:
                            split_at = partition_threshold(
                                f, t, np.nan, np.int64(1 if det and nanc == 0 else 0), buf,
                                nbuf, s, e, Xc, Xl, loc, left_counts, nan_part)
                    if table is not None:
                        rt = rank_threshold(f, t, uniq, uniq_off) if det else 0
                        if det:
                            split_at = partition_threshold(f, rt, nd_f, 1 if nanc == 0 else 0,
                                                           buf, nbuf, s, e, R, Rl, loc,
                                                           left_counts, nan_part)
                        else:
                            split_at = partition_threshold(f, t, np.nan, np.int64(0), buf, nbuf,
                                                           s, e, Xc, Xl, loc, left_counts,
                                                           nan_part)
                    nl = 0.0
                    nn = 0.0
                    for c in range(C):
                        nl += left_counts[c]
                        nn += nan_part[c]
                    nr = n_node - nl - nn
                    if not det:
                        nanc = 0 if nl >= nr else 1
                        if nanc == 0 and nn > 0:
                            split_at = partition_threshold(f, t, np.nan, np.int64(1), buf,
                                                           nbuf, s, e, Xc, Xl, loc, left_counts,
                                                           nan_part)
                    if nanc == 0:
                        nl += nn
                    else:
                        nr += nn
                    nr_rows_start = split_at
                    if nl < min_leaf or nr < min_leaf:
                        continue
                    if regression is not None:
                        if nn == 0:
                            # missing values at prediction go to the child with more rows, as
                            # in scikit-learn for features without missing values in training
                            nanc = 0 if 2 * nl >= n_node else 1
                    a = n_nodes
                    for c in range(C):
                        lc = left_counts[c] + (nan_part[c] if nanc == 0 else 0)
                        counts[a, c] = np.int32(lc)
                        counts[a + 1, c] = counts[node, c] - np.int32(lc)
                    n64[a, N64_START] = s
                    n64[a, N64_END] = nr_rows_start
                    n64[a + 1, N64_START] = nr_rows_start
                    n64[a + 1, N64_END] = e
                    n_kids = 2
                else:
                    if general is None:
                        raise ValueError(LEAN_REFUSES)
                    if multiway is None:
                        raise ValueError("nominal tests need grow_tree(..., multiway=True)")
                    arity = n_distinct[f]
                    # (views here cost their counts at nominal splits alone)
                    summarize_nominal(f, arity, buf[nbuf], s, e, Xl if loc else Xc, dist_counts,
                                      nan_counts, all_classes)
                    nn = 0.0
                    for c in range(C):
                        nn += nan_counts[c]
                    if not det:
                        best_b = 0
                        best_n = -1.0
                        for b in range(arity):
                            tot = 0.0
                            for c in range(C):
                                tot += dist_counts[b, c]
                            if tot > best_n:
                                best_n = tot
                                best_b = b
                        nanc = best_b
                    ok = True
                    for b in range(arity):
                        tot = nn if b == nanc else 0.0
                        for c in range(C):
                            tot += dist_counts[b, c]
                        if 0 < tot < min_leaf:
                            ok = False
                    if not ok:
                        continue
                    partition_nominal(f, arity, nanc, buf, nbuf, s, e, Xc, Xl, loc, bucket)
                    a = n_nodes
                    for b in range(arity):
                        for c in range(C):
                            extra = nan_counts[c] if b == nanc else 0.0
                            counts[a + b, c] = np.int32(dist_counts[b, c] + extra)
                        n64[a + b, N64_START] = bucket[b]
                        n64[a + b, N64_END] = bucket[b + 1]
                    n_kids = arity
                split = True
                break
            if not split:
                continue
            if general is not None and has_nominal:
                path[n_path] = f if sk == KIND_NOMINAL else -1
                n_path += 1
                if sk == KIND_NOMINAL:
                    used[f] = 1
            if det:
                n_decision += 1
                ties_feature += tf
                ties_test += tt
                n32[node, N32_TF] = tf
                n32[node, N32_TT] = tt
            if use_sorted:
                if general is None:
                    raise ValueError(LEAN_REFUSES)
                # a child reads its lists only if it is popped as a split candidate with at
                # least sorted_min entries (the checks at the top of the node loop): of two
                # children, those that will not are left out of the partition
                keep_first = True
                keep_second = True
                if n_kids == 2:
                    kid_depth = n32[node, N32_DEPTH] + 1
                    keep_first = child_scans_lists(
                        n64[n_nodes, N64_END] - n64[n_nodes, N64_START], kid_depth, counts,
                        n_nodes, C, sorted_min, min_split, max_depth, table is not None)
                    keep_second = child_scans_lists(
                        n64[n_nodes + 1, N64_END] - n64[n_nodes + 1, N64_START], kid_depth,
                        counts, n_nodes + 1, C, sorted_min, min_split, max_depth,
                        table is not None)
                if keep_first or keep_second:
                    for b in range(n_kids):
                        ch = n_nodes + b
                        fill[b] = n64[ch, N64_START]
                        for j in range(n64[ch, N64_START], n64[ch, N64_END]):
                            r_j = row_of(buf[1 - nbuf, j])
                            child_of[glob[r_j] if loc else r_j] = b
                    for b in range(n_kids):
                        bucket[b] = fill[b]
                    partition_lists(lists, s, e, child_of, bucket, n_kids, fill, scratch,
                                    keep_first, keep_second)
            n8[node, N8_KIND] = sk
            n32[node, N32_FEATURE] = f
            threshold[node] = t
            n32[node, N32_CHILD] = n_nodes
            n32[node, N32_NCHILD] = n_kids
            n32[node, N32_NAN] = nanc
            n8[node, N8_RND] = 0 if det else 1
            for b in range(n_kids - 1, -1, -1):
                ch = n_nodes + b
                # every field of a new node is set here (the tables are not initialized)
                for k in range(N8_COLS):
                    n8[ch, k] = 0
                for k in range(N32_COLS):
                    n32[ch, k] = 0
                n8[ch, N8_NBUF] = 1 - n8[node, N8_NBUF]
                n8[ch, N8_LOCAL] = n8[node, N8_LOCAL]
                n32[ch, N32_FEATURE] = -1
                n32[ch, N32_DEPTH] = n32[node, N32_DEPTH] + 1
                threshold[ch] = np.nan
                n64[ch, N64_PARENT] = node
                if regression is not None:
                    # a child no row reaches (a nominal code absent here) keeps its parent's mean
                    value[ch] = value[node]
                    weight[ch] = 0.0
                n64[ch, N64_REF] = ref_i[r, REF_CHILD] + b if r >= 0 else -1
                if n64[ch, N64_END] > n64[ch, N64_START]:
                    n64[sp, N64_STACK] = ch
                    sp += 1
            n_nodes += n_kids
    n_ties = n_nodes if keep_ties else 0
    # one return layout per version: numba drops the regression's return from the classifiers'
    # versions (regression None) and the classifiers' from the regression's (table None)
    if regression is not None:
        if table is None:
            return (n8[:n_nodes, N8_KIND].copy(), n32[:n_nodes, N32_FEATURE].copy(),
                    threshold[:n_nodes].copy(), n32[:n_nodes, N32_CHILD].copy(),
                    n32[:n_nodes, N32_NCHILD].copy(), n32[:n_nodes, N32_NAN].copy(),
                    n8[:n_nodes, N8_RND].copy(), n32[:n_nodes, N32_DEPTH].copy(),
                    counts[:n_nodes].copy(), ties_feature, ties_test, n_decision, rows_seen,
                    value[:n_nodes].copy(), weight[:n_nodes].copy())
    if table is None:
        raise ValueError("the classifiers' trees need the x log2 x table")
    return (n8[:n_nodes, N8_KIND].copy(), n32[:n_nodes, N32_FEATURE].copy(),
            threshold[:n_nodes].copy(), n32[:n_nodes, N32_CHILD].copy(),
            n32[:n_nodes, N32_NCHILD].copy(), n32[:n_nodes, N32_NAN].copy(),
            n8[:n_nodes, N8_RND].copy(), n32[:n_nodes, N32_DEPTH].copy(),
            counts[:n_nodes].copy(), ties_feature, ties_test, n_decision, rows_seen,
            n32[:n_ties, N32_TF].copy(), n32[:n_ties, N32_TT].copy())
