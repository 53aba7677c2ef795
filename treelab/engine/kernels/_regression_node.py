"""A regression node's part of the one growth routine (``_grow.grow_tree`` with
``regression``): its statistics, the deterministic selection over its weighted target sums,
and the work buffers both use.

The split search itself (squared error or half Poisson deviance, missing rows on the side the
criterion prefers) is ``_regression_split``; this module draws the candidate features and
keeps the best of their splits, as ``_select.deterministic_select`` does for classifiers.
"""

import numpy as np

from treelab.engine.kernels._config import inner
from treelab.engine.kernels._params import KIND_NOMINAL, KIND_THRESHOLD
from treelab.engine.kernels._regression_split import (
    NAN_APART,
    NAN_LEFT,
    best_exact_split,
    best_list_split,
    best_nominal_split,
    score_value_threshold,
    summarize_codes,
)
from treelab.engine.kernels._rng import rand_int
from treelab.engine.kernels._split import row_of, wt_of
from treelab.engine.kernels._thresholds import min_max, split_threshold, uniform_threshold


@inner
def regression_select(nominal, n_distinct, uniq, uniq_off, vis, nv, perm, n_target,
                      random_thr, binned, buf, nbuf, s, e, Xc, R, sw, y, nw, ny, nm, W, S, M,
                      min_leaf, poisson, keys, hw, hs, hm, use_sorted, lists, slot_of, wrow,
                      mult, state, multiway):
    """Deterministic selection at a regression node: among up to ``n_target`` candidate
    features drawn without replacement (a partial Fisher-Yates shuffle of ``perm``, reset to
    the visible features ``vis`` first, where fewer than ``nv`` are asked for), the split of
    largest score (``_regression_split.split_score``: weighted squared-error reduction, CART's
    variance reduction, Breiman et al. 1984, or half Poisson deviance reduction, ``poisson``).

    A candidate is a nominal feature's multiway split (``best_nominal_split``; only where
    ``multiway`` is not None), one uniform random threshold between its node's smallest and
    largest value (``random_thr``, Extra-Trees) or its best exact threshold, from the node's
    presorted list (``use_sorted``) or its ranks (``best_exact_split``). A candidate with
    fewer than two distinct non-missing values at the node is not counted among the
    ``n_target``, except, for the exact threshold search, one value and missing rows (its
    split is those rows apart, as scikit-learn >= 1.8).
    The first best split is kept.

    The node's rows are ``buf[nbuf][s:e]``, its statistics ``W``, ``S``, ``M`` and
    per-position ``nw``, ``ny``, ``nm`` (``node_statistics``). Returns (found, feature, kind,
    threshold, child of the missing rows) as ``deterministic_select``: a threshold split sends the
    missing rows left (child 0) or right (1); the threshold +inf splits the non-missing rows
    (left) from the missing ones (right).
    """
    rows = buf[nbuf]
    sample = n_target < nv
    if sample:
        for i in range(nv):
            perm[i] = vis[i]
    best = -np.inf
    found = False
    f = -1
    sk = KIND_THRESHOLD
    t = np.nan
    nan_mode = 0
    nanc = 0
    n_avail = 0
    for i in range(nv):
        if n_avail >= n_target:
            break
        if sample:
            jj = i + rand_int(state, nv - i)
            fc = perm[jj]
            perm[jj] = perm[i]
            perm[i] = fc
        else:
            fc = vis[i]
        if multiway is not None and nominal[fc]:
            arity = n_distinct[fc]
            Wn, Sn, Mn, present = summarize_codes(fc, arity, rows, s, e, Xc, sw, y, hw, hs, hm)
            if present < 2:
                continue
            n_avail += 1
            ok, score, nb = best_nominal_split(arity, hw, hs, hm, Wn, Sn, Mn, min_leaf,
                                               poisson)
            if ok and score > best:
                best = score
                found = True
                f = fc
                sk = KIND_NOMINAL
                t = np.nan
                nanc = nb
        elif random_thr:
            lo, hi = min_max(fc, rows, s, e, Xc)
            if not lo < hi:
                continue
            n_avail += 1
            tc = uniform_threshold(lo, hi, state)
            ok, score, nan_left = score_value_threshold(fc, tc, rows, s, e, Xc, nw, ny, nm, W,
                                                        S, M, min_leaf, poisson)
            if ok and score > best:
                best = score
                found = True
                f = fc
                sk = KIND_THRESHOLD
                t = tc
                nan_mode = NAN_LEFT if nan_left else 0
        else:
            if use_sorted and slot_of[fc] >= 0:
                avail, ok, score, r_lo, r_hi, mode = best_list_split(
                    lists, slot_of[fc], n_distinct[fc], s, e, wrow, y, mult, W, S, M, min_leaf,
                    poisson)
            else:
                avail, ok, score, r_lo, r_hi, mode = best_exact_split(
                    fc, n_distinct[fc], rows, s, e, R, nw, ny, nm, W, S, M, min_leaf, poisson,
                    keys, hw, hs, hm)
            if not avail:
                continue
            n_avail += 1
            if ok and score > best:
                best = score
                found = True
                f = fc
                sk = KIND_THRESHOLD
                nan_mode = mode
                if mode == NAN_APART:
                    t = np.inf
                else:
                    t = split_threshold(uniq, uniq_off[fc], r_lo, r_hi, binned)
    if sk == KIND_THRESHOLD:
        nanc = 0 if nan_mode == NAN_LEFT else 1
    return found, f, sk, t, nanc


@inner(_nrt=False)
def node_statistics(buf, nbuf, s, e, y, sw, nw, ny, nm):
    """A regression node's summed weight W, summed weighted target S (w y), rows with
    multiplicity M, and whether its targets are all equal; fills each position's weight
    (multiplicity times sample weight), target and multiplicity into ``nw``, ``ny``, ``nm``.
    The node's rows are ``buf[nbuf][s:e]``: the growth routine passes the buffer, not a view
    whose reference count it would raise and lower at every node (compiled without numba's
    runtime, this kernel's own view costs nothing)."""
    rows = buf[nbuf]
    W = 0.0
    S = 0.0
    M = np.int64(0)
    constant = True
    y0 = y[row_of(rows[s])] if e > s else 0.0
    for j in range(e - s):
        p = rows[s + j]
        r = row_of(p)
        mj = wt_of(p)
        wj = mj * sw[r]
        nw[j] = wj
        ny[j] = y[r]
        nm[j] = mj
        W += wj
        S += wj * y[r]
        M += mj
        if y[r] != y0:
            constant = False
    return W, S, M, constant


@inner
def regression_buffers(n, n_in, max_arity, w, sw):
    """Work buffers of a regression tree, allocated once per tree: ``keys`` (sorted ranks),
    ``nw``, ``ny``, ``nm`` (each position's weight, target and multiplicity at the node being
    split), ``hw``, ``hs``, ``hm`` (per-rank or per-code sums: a node's dense histogram spans
    at most 2 m + 16 ranks, ``best_exact_split``; a nominal feature's sums take its arity) and
    ``wrow``, each row's weight, its multiplicity ``w`` times its sample weight ``sw`` (0 for
    rows left out)."""
    m = max(n_in, 1)
    keys = np.empty(m, dtype=np.int64)
    nw = np.empty(m)
    ny = np.empty(m)
    nm = np.empty(m, dtype=np.int64)
    n_hist = max(2 * m + 16, max_arity)
    hw = np.empty(n_hist)
    hs = np.empty(n_hist)
    hm = np.empty(n_hist, dtype=np.int64)
    wrow = np.zeros(n)
    for i in range(n):
        if w[i] > 0:
            wrow[i] = w[i] * sw[i]
    return keys, nw, ny, nm, hw, hs, hm, wrow
