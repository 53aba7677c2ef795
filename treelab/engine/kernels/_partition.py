"""Partitions of a node's rows by its chosen test (a threshold on ranks or values, or a
nominal feature's codes), with the class counts of the children."""

import numpy as np

from treelab.engine.kernels._config import inner
from treelab.engine.kernels._split import cls_of, row_of, wt_of


@inner(_nrt=False)
def partition_threshold(f, thr, missing, nan_left, buf, nbuf, s, e, Kg, Kl, loc, left_counts,
                        nan_counts):
    """Write rows[s:e] into out[s:e]: first the rows going left (K[f, row] <= thr, or missing
    when ``nan_left``), then the others; returns the end of the left block and fills the class
    counts of the rows with K <= thr and of the missing rows.

    The node's rows are ``rows = buf[nbuf]``, its children's go to ``out = buf[1 - nbuf]``, and
    ``K`` is the localized block ``Kl`` when ``loc``, else the global array ``Kg``: the growth
    routine passes the arrays it holds, not views of them, because every view it made would
    raise and lower a reference count at each split node (this kernel, compiled without
    numba's runtime, makes its views for nothing).

    ``K`` is either the int32 global ranks (deterministic splits: ``thr`` a rank, ``missing``
    the missing-value rank) or the float64 values (random splits: ``thr`` the threshold,
    ``missing`` NaN); numba compiles one version for each. The counts are int64 arrays,
    taken in a second pass over the written block (measured: counting inside the partition
    loop, in floats, doubled its cost). Measured: ranks are faster where the
    scan already gives the rank threshold, values where the threshold was drawn as a value.
    The loop is branch-free: every entry is written at both cursors of ``out`` and only the
    matching cursor advances (at random nodes the comparison is a coin flip for the branch
    predictor); writing into a second buffer spares copying back.
    """
    rows = buf[nbuf]
    out = buf[1 - nbuf]
    K = Kl if loc else Kg
    nl = 0
    nr = 0
    n_miss = 0
    for j in range(s, e):
        p = rows[j]
        k = K[f, row_of(p)]
        miss = np.int64(k == missing) | np.int64(k != k)
        g = np.int64(k <= thr) | (miss & nan_left)
        out[s + nl] = p
        out[e - 1 - nr] = p
        nl += g
        nr += 1 - g
        n_miss += miss
    # class counts from the written blocks: a separate sequential pass costs less than
    # counting inside the loop above
    left_counts[:] = 0
    nan_counts[:] = 0
    for j in range(s, s + nl):
        left_counts[cls_of(out[j])] += wt_of(out[j])
    if n_miss > 0:
        lo = s if nan_left else s + nl
        hi = s + nl if nan_left else e
        for j in range(lo, hi):
            p = out[j]
            k = K[f, row_of(p)]
            if k == missing or k != k:
                nan_counts[cls_of(p)] += wt_of(p)
                if nan_left:
                    left_counts[cls_of(p)] -= wt_of(p)
    return s + nl


@inner(_nrt=False)
def partition_nominal(f, n_codes, nan_child, buf, nbuf, s, e, Xg, Xl, loc, bucket_start):
    """Stable counting sort of rows[s:e] by nominal code into scratch[s:e]; missing rows join
    ``nan_child``. As in ``partition_threshold``, ``rows = buf[nbuf]``, ``scratch = buf[1 - nbuf]``
    and the values ``Xc`` are ``Xl`` when ``loc``, else ``Xg``.

    ``bucket_start[:n_codes + 1]`` receives the boundaries of each child's block. Each
    child's write cursor is its own cell of ``bucket_start`` (from its block's start to its
    end, the next block's start), shifted into place after the sweep: no cursor array is
    allocated, so the kernel runs without numba's runtime as the other per-node kernels do.
    """
    rows = buf[nbuf]
    scratch = buf[1 - nbuf]
    Xc = Xl if loc else Xg
    bucket_start[: n_codes + 1] = 0
    for j in range(s, e):
        v = Xc[f, row_of(rows[j])]
        b = nan_child if np.isnan(v) else np.int64(v)
        bucket_start[b + 1] += 1
    bucket_start[0] = s
    for b in range(n_codes):
        bucket_start[b + 1] += bucket_start[b]
    for j in range(s, e):
        p = rows[j]
        v = Xc[f, row_of(p)]
        b = nan_child if np.isnan(v) else np.int64(v)
        scratch[bucket_start[b]] = p
        bucket_start[b] += 1
    # cell b now holds the end of block b, the start of block b + 1
    for b in range(n_codes, 0, -1):
        bucket_start[b] = bucket_start[b - 1]
    bucket_start[0] = s
