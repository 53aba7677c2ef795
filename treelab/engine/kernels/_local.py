"""Localized subtrees: once a node has few enough rows, its rows' values and ranks are copied
into small feature-major blocks that its whole subtree reads (``_grow.grow_tree`` and
``_random_grow`` say when)."""

import numpy as np

from treelab.engine.kernels._config import inner
from treelab.engine.kernels._split import row_of

# localized subtrees: the blocks of one subtree hold at most LOCAL_BYTES of values and ranks
# (up to 12 bytes a row and feature); measured on 20 features, subtrees of 2,048 to 8,192 rows
# grow fastest. The copy moves every feature of a row, a random node reads one: on 40,000
# rows, complete-random trees gained at 64 features and lost 1.7x at 128, while trees with
# deterministic nodes (which read many features a node) still gained at 128 (not measured
# beyond). The blocks are copied column by column from the feature-major arrays; copying rows
# from row-major copies of the values and ranks was no faster (1,000,000 x 20 binned random
# forest: 11.2-11.4 s against 11.5-11.6 s for 10 trees; 100,000 x 20: 1.76 against 2.14 s for
# 30 trees) and cost n x d x 12 more bytes
LOCAL_BYTES = 1 << 20
LOCAL_MIN_ROWS = 1024
LOCAL_MAX_FEATURES = 128
LOCAL_MAX_FEATURES_RANDOM = 64


@inner(_nrt=False)
def localize(buf, nbuf, s, e, vis, nv, nominal, Xc, R, Xl, Rl, glob):
    """Copy the visible features of rows[s:e] (``rows = buf[nbuf]``, as in
    ``_partition.partition_threshold``) from ``Xc`` and ``R`` into the blocks ``Xl`` and
    ``Rl`` (each only when it has columns: values for trees that read them, ranks for trees
    with deterministic nodes; nominal features have no ranks, and their rows of ``Rl`` are
    left as they were) and renumber the entries 0..e-s-1, keeping weight and class;
    ``glob[j]`` keeps the training row of entry j (presorted lists name rows by their training
    index).

    A node's rows are in increasing order (partitions keep the order), so each feature is
    copied in one forward sweep over its column.
    Safe to reuse the blocks for the next localized subtree: nodes are grown depth first, so
    a subtree is finished before any node outside it is popped.
    """
    rows = buf[nbuf]
    m = e - s
    for j in range(m):
        p = rows[s + j]
        glob[j] = row_of(p)
        rows[s + j] = (np.int64(j) << 32) | (p & 0xFFFFFFFF)
    # one sweep per feature fills both blocks: each entry's training row is loaded once
    values = Xl.shape[1] > 0
    ranks = Rl.shape[1] > 0
    for q in range(nv):
        f = vis[q]
        if values and ranks and not nominal[f]:
            for j in range(m):
                g = glob[j]
                Xl[f, j] = Xc[f, g]
                Rl[f, j] = R[f, g]
        elif values:
            for j in range(m):
                Xl[f, j] = Xc[f, glob[j]]
        elif ranks and not nominal[f]:
            for j in range(m):
                Rl[f, j] = R[f, glob[j]]


@inner
def local_blocks(asked, alpha, n_in, Xc, R, regression):
    """The localized blocks of a tree of ``_grow.grow_tree``: (local_cap, Xl, glob, Rl), the
    most rows a localized subtree holds (0: none), its values' and ranks' blocks and each
    block row's global row. Values only for trees that read them (``Xc`` not empty), ranks
    only for trees with deterministic nodes (``alpha`` > 0); none where not ``asked``
    (``P_LOCAL``), with too many features, or for regression trees (``regression`` not None),
    whose split search reads the global arrays."""
    d = Xc.shape[0]
    local_cap = 0
    max_local = LOCAL_MAX_FEATURES if alpha > 0.0 else LOCAL_MAX_FEATURES_RANDOM
    local_values = Xc.shape[1] > 0
    local_ranks = alpha > 0.0
    entry_bytes = (8 if local_values else 0) + (4 if local_ranks else 0)
    if asked and d <= max_local and entry_bytes > 0:
        local_cap = min(n_in, max(LOCAL_MIN_ROWS, LOCAL_BYTES // (entry_bytes * d)))
    if regression is not None:
        local_cap = 0
    Xl = np.empty((d, local_cap if local_values else 0))
    glob = np.empty(local_cap, dtype=np.int64)
    Rl = np.empty((d, local_cap if local_ranks else 0), dtype=R.dtype)
    return local_cap, Xl, glob, Rl
