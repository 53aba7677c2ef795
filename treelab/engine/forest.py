"""The fitted forest: flat node arrays for all trees, and the Python driver of the kernels.

``prepare_features`` turns an encoded feature matrix into the arrays the growth kernel reads
(feature-major values, global ranks, distinct values); ``grow_forest`` grows the trees on a pool
of threads (the kernel releases the GIL) and concatenates them. Each tree's randomness comes
from its own seed, so the forest is identical whatever the number of threads. Where a
deterministic node's test depends on its rows alone (``rows_decide``), trees that make no random
draw (``draws_nothing``) are grown once and repeated, and trees mixing random and deterministic
nodes may copy their deterministic top from that one tree (``grow_tree``'s reference tree).
"""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np

from treelab.engine.kernels import _grow as G
from treelab.engine.kernels import _predict as P
from treelab.engine.kernels._criteria import xlogx_table
from treelab.engine.kernels._grow import grow_tree
from treelab.engine.kernels._presort import rank_sorted


class Forest(NamedTuple):
    """Flat arrays of a fitted forest (see docs/architecture.md for every field)."""

    node_offsets: np.ndarray
    kind: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    child_start: np.ndarray
    n_children: np.ndarray
    nan_child: np.ndarray
    random: np.ndarray
    depth: np.ndarray
    counts: np.ndarray
    alpha: np.ndarray
    ties_feature: np.ndarray
    ties_test: np.ndarray
    n_decision: np.ndarray
    rows_seen: np.ndarray
    seed: np.ndarray
    # (n_proj, w) float64 vectors of oblique (kind 3) nodes; empty for axis-aligned forests
    projections: np.ndarray = np.zeros((0, 0))

    @property
    def n_trees(self) -> int:
        return self.node_offsets.shape[0] - 1

    def walk_arrays(self, X: np.ndarray, lanes: bool = True) -> tuple:
        """The prediction kernels' node arguments for rows ``X`` (``_predict.apply_forest``):
        the lockstep walk's codes when the forest and ``X`` allow it (and ``lanes``), else the
        general walk's arrays. Built per call, an O(nodes) pass: cheaper than keeping a second
        copy of every forest."""
        empty = np.empty(0, dtype=np.int64)
        codes = empty
        if lanes and not P.has_nan(X):
            codes = P.lane_codes(self.node_offsets, self.kind, self.feature, self.child_start,
                                 self.threshold)
        if codes.shape[0] > 0:
            first, feat = empty, empty
        else:
            first, feat = P.pack_nodes(self.node_offsets, self.kind, self.feature,
                                       self.child_start)
        return (self.node_offsets, first, feat, self.threshold, self.n_children, self.nan_child,
                self.projections, codes)

    def answering_nodes(self, min_n: int) -> np.ndarray:
        """The node answering for each leaf under curtailment at ``min_n`` training rows;
        empty when every leaf answers itself (``_predict.answering_nodes``)."""
        return P.answering_nodes(self.node_offsets, self.kind, self.child_start,
                                 self.n_children, self.counts, min_n)

    def tree_of_node(self) -> np.ndarray:
        """Tree index of every node."""
        return np.repeat(np.arange(self.n_trees), np.diff(self.node_offsets))


class FeatureArrays(NamedTuple):
    """What the growth kernel reads about the training features."""

    Xc: np.ndarray  # (feature, row) float64
    R: np.ndarray  # (feature, row) int32 ranks; missing = n_distinct
    order: np.ndarray  # (feature, row) int32: rows in increasing rank order (missing last)
    n_distinct: np.ndarray  # int64: distinct non-missing values (binned: bins), or arity of a
    #                          nominal feature
    uniq: np.ndarray  # float64: sorted distinct values of every feature, concatenated (binned
    #                    continuous features: each bin's upper edge, the last +inf)
    uniq_off: np.ndarray  # int64 (d + 1,)
    nominal: np.ndarray  # uint8 (d,)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, looked up on first use (never at import); None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        # the process's own symbols hold libc's: no library search (ctypes.util.find_library
        # runs ldconfig in a subprocess, 30 ms)
        trim = ctypes.CDLL(None).malloc_trim  # glibc only; musl and others lack it
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def release_freed_memory() -> None:
    """Hand memory the process has freed back to the system (glibc's ``malloc_trim``; a no-op
    elsewhere).

    A fit frees large temporaries (the sorts of feature preparation, each tree's growth buffers
    and node arrays once they are joined), but glibc keeps freed blocks below its dynamic mmap
    threshold (up to 32 MB) inside the process, so the resident memory never falls and the
    forest's nodes were held twice at the end of a fit (measured at 1,000,000 x 20, 100 binned
    trees: the fit's own peak fell from 952 MB to 694 MB with the calls in ``prepare_features``
    and ``grow_forest`` alone; benchmarks/README.md, "Scaling and memory").
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def run_threads(fn: Callable, items: Iterable, n_threads: int) -> list:
    """``[fn(x) for x in items]``, on a pool of ``n_threads`` threads when there is more than one
    item (the kernels and NumPy's sorts release the GIL); results in the order of ``items``."""
    items = list(items)
    if n_threads > 1 and len(items) > 1:
        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            return list(pool.map(fn, items))
    return [fn(x) for x in items]


def check_nominal_codes(X: np.ndarray, nominal: np.ndarray, arity: np.ndarray) -> None:
    """Refuse nominal columns whose values are not integer codes 0..arity-1 (or NaN).

    The kernels use a nominal value as an index (branch counts, children), so a float or
    out-of-range code would be a stray memory access; one vectorised pass per nominal column
    checks them before any kernel runs.
    """
    nominal = np.asarray(nominal, dtype=bool)
    if nominal.shape != (X.shape[1],) or np.asarray(arity).shape != (X.shape[1],):
        raise ValueError(f"nominal and arity must have one entry per feature ({X.shape[1]})")
    for f in np.flatnonzero(nominal):
        col = X[:, f]
        v = col[~np.isnan(col)]
        m = int(arity[f])
        if v.size and (v.min() < 0 or v.max() > m - 1 or np.any(v != np.floor(v))):
            raise ValueError(
                f"nominal feature {f} must hold integer codes 0..{m - 1} or NaN, got values "
                f"in [{v.min()}, {v.max()}]"
            )


def prepare_features(X: np.ndarray, nominal: np.ndarray, arity: np.ndarray, ranks: bool = True,
                     n_threads: int = 1, max_bins: int | None = None,
                     order: bool = True, values: bool = True,
                     weights: np.ndarray | None = None) -> FeatureArrays:
    """Ranks and distinct values of every feature, computed once per fit.

    ``X`` is (row, feature) float64 with nominal features coded 0..arity-1 and NaN for missing.
    One stable sort per continuous feature gives both its order and its ranks; features are
    sorted on ``n_threads`` threads (numpy's sort releases the GIL). With ``ranks=False`` (forests
    with no deterministic node) only the values are kept: ranks, orders and distinct values of
    continuous features are left empty, as nothing reads them. With ``max_bins`` the ranks of
    continuous features become bin codes (``bin_feature``; the growth kernel then needs
    ``iparams[P_BINNED] = 1``). With ``order=False`` the sort orders are not kept (only
    presorted lists read them; ``grow_tree`` sorts at each node without them, growing the same
    trees), which saves n x d x 4 bytes. With ``values=False`` the feature-major values ``Xc``
    are left empty (d, 0): trees of exact deterministic tests on continuous features read only
    ranks (``grow_tree`` refuses any other tree without values), which saves n x d x 8 bytes.
    ``weights`` (row multiplicities, the sample weights) make the bins quantiles of the weighted
    rows, so a row of weight k is binned as k copies of it would be.
    """
    n, d = X.shape
    check_nominal_codes(X, nominal, arity)
    values = values or not ranks or bool(np.any(nominal))
    Xc = np.ascontiguousarray(X.T) if values else np.empty((d, 0))
    n_distinct = np.where(nominal, arity, 0).astype(np.int64)
    cont = [f for f in range(d) if not nominal[f]] if ranks else []
    R = np.zeros((d, n if ranks else 0), dtype=np.int32)
    orders = np.zeros((d, n if ranks and order else 0), dtype=np.int32)
    uniqs = [np.arange(arity[f], dtype=np.float64) if nominal[f] else np.zeros(0)
             for f in range(d)]

    def rank_one(f: int) -> None:
        col = Xc[f] if values else np.ascontiguousarray(X[:, f])
        o = np.argsort(col, kind="stable")
        if order:
            orders[f] = o
        buf = np.empty(n)
        k = rank_sorted(col, o, R[f], buf)
        if max_bins is None:
            uniqs[f] = buf[:k].copy()
            n_distinct[f] = k
        else:
            uniqs[f] = bin_feature(R[f], buf[:k], max_bins, weights)
            n_distinct[f] = uniqs[f].shape[0]

    run_threads(rank_one, cont, n_threads)
    uniq, uniq_off = concat_values(uniqs)
    release_freed_memory()
    return FeatureArrays(Xc, R, orders, n_distinct, uniq, uniq_off, nominal.astype(np.uint8))


def concat_values(per_feature: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``FeatureArrays.uniq`` and ``uniq_off`` from each feature's sorted values (or bin
    edges): the values concatenated, and the offset where each feature's values start."""
    offsets = np.zeros(len(per_feature) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([u.shape[0] for u in per_feature])
    return (np.concatenate(per_feature) if per_feature else np.zeros(0)), offsets


def bin_cuts(counts: np.ndarray, max_bins: int) -> np.ndarray:
    """Where to cut a feature's sorted distinct values into at most ``max_bins`` bins of about
    equal row counts: cut j separates distinct values j and j + 1.

    ``counts`` holds the rows of each distinct value in increasing order. With at most
    ``max_bins`` distinct values every value is its own bin; otherwise bin q ends at the first
    distinct value whose cumulative count reaches q n / max_bins (quantiles of the rows, as
    LightGBM and scikit-learn's histogram gradient boosting bin), so a value holding many rows
    is never split and may make some bins coincide: fewer bins, never more.
    """
    k = counts.shape[0]
    if k <= max_bins:
        return np.arange(k - 1, dtype=np.int64)
    cum = np.cumsum(counts)
    targets = cum[-1] * np.arange(1, max_bins, dtype=np.float64) / max_bins
    cuts = np.unique(np.searchsorted(cum, targets, side="left"))
    return cuts[cuts < k - 1]


def bin_feature(R_f: np.ndarray, u: np.ndarray, max_bins: int,
                weights: np.ndarray | None = None) -> np.ndarray:
    """Turn one continuous feature's ranks into bin codes, in place; returns the bins' upper
    edges (the binned split search, ``max_bins``).

    ``R_f`` holds each row's rank among the sorted distinct values ``u`` (missing rows: the
    number of distinct values). The feature is cut into at most ``max_bins`` bins
    (``bin_cuts``); a row's rank becomes its bin (missing rows: the number of bins), and each
    bin's upper edge is the midpoint between its last value and the next bin's first (+inf for
    the last bin). With ``weights`` a distinct value holds the summed weights of its rows, and
    values of rows of weight 0 only are passed over (cut and edge as without those rows). A node
    then counts at most ``max_bins`` values of the feature and its
    thresholds are bin edges: x <= edge_b exactly for the rows of bins 0..b. A feature with no
    value (every row missing) is left as it is.
    """
    k = u.shape[0]
    if k == 0:
        return u.copy()
    counts = np.bincount(R_f, weights=weights, minlength=k + 1)[:k]
    # cut j lies between distinct values at[j] and at[j] + 1; with weights, only values that
    # hold weight are cut between (rows of weight 0 never reach a node), so a row of weight 0
    # moves no bin and no edge
    held = np.arange(k) if weights is None else np.flatnonzero(counts > 0)
    if held.shape[0] == 0:
        return u.copy()
    sub = bin_cuts(counts[held], max_bins)
    cuts, after = held[sub], held[sub + 1]
    nb = cuts.shape[0] + 1
    # rank r -> bin: how many cuts lie below r; the missing rank k -> nb
    code = np.empty(k + 1, dtype=np.int32)
    code[:k] = np.searchsorted(cuts, np.arange(k), side="left")
    code[k] = nb
    R_f[:] = code[R_f]
    # the kernels' exact midpoint (_split.midpoint), so a bin of one value each side gives the
    # exact search's threshold
    lo, hi = u[cuts], u[after]
    mid = lo + (hi - lo) * 0.5
    edges = np.full(nb, np.inf)
    edges[:-1] = np.where(mid >= hi, lo, mid)
    return edges


def rows_decide(iparams: np.ndarray, row_mode: int, n_sub: int, d: int) -> bool:
    """Whether a deterministic node's test depends on nothing but the node's rows (and the
    nominal features used above it): every row and feature in the tree, every feature a
    candidate (``max_features`` >= d), exact thresholds, no stochastic choice. Ties go to the
    lowest feature index and the lowest threshold, never to a draw."""
    return bool(row_mode == G.ROWS_ALL and (n_sub <= 0 or n_sub >= d)
                and iparams[G.P_MAX_FEATURES] >= d and iparams[G.P_DET_THRESHOLD] == 0
                and iparams[G.P_STOCHASTIC] == 0)


def draws_nothing(iparams: np.ndarray, alphas: np.ndarray, row_mode: int, n_sub: int,
                  d: int) -> np.ndarray:
    """Per tree: True when growing it makes no random draw, so its seed cannot matter.

    That holds for a tree whose every node is deterministic (alpha >= 1) where ``rows_decide``:
    e.g. aggregated VR-Trees at alpha = 1, or a random forest with ``max_features=None`` and no
    bootstrap. Such trees are all the same tree.
    """
    if rows_decide(iparams, row_mode, n_sub, d):
        return np.asarray(alphas, dtype=np.float64) >= 1.0
    return np.zeros(len(alphas), dtype=bool)


# A tree with alpha in (0, 1) reaches a row's k-th test through deterministic splits only with
# chance alpha**k, so copying its deterministic top from a reference tree saves about
# alpha / (1 - alpha) levels of deterministic search per tree, while growing the reference
# costs one all-deterministic tree. The reference is grown when the trees' summed saving
# reaches REFERENCE_MIN_SAVING levels: e.g. 100 trees at alpha >= 0.67, 30 at alpha >= 0.87.
# Measured with 100 trees on adult, magic and letter (fit time with / without): 0.62-0.71 at
# alpha 0.9, 0.92-1.04 at 0.6, 0.99-1.05 at 0.3 (small nodes, whose search it cannot save,
# dominate below); with 30 trees on five sets, 0.79-0.89 at alpha 0.8.
REFERENCE_MIN_SAVING = 200.0


def reference_arrays(tree: tuple) -> tuple[np.ndarray, np.ndarray]:
    """An all-deterministic tree, as ``grow_tree`` returns it, laid out as its reference:
    (node, REF_*) int64 columns and the thresholds."""
    kind, feature, threshold, child_start, _, nan_child = tree[:6]
    ref_i = np.empty((kind.shape[0], 6), dtype=np.int64)
    ref_i[:, G.REF_KIND] = kind
    ref_i[:, G.REF_FEATURE] = feature
    ref_i[:, G.REF_CHILD] = child_start
    ref_i[:, G.REF_NAN] = nan_child
    ref_i[:, G.REF_TF] = tree[13]
    ref_i[:, G.REF_TT] = tree[14]
    return ref_i, threshold


def bootstrap_weight_bound(w: np.ndarray) -> float:
    """A bound on the weighted rows of one bootstrap sample (n draws, with replacement, of
    rows of weights ``w``) that no sample exceeds but with probability below 1e-26.

    The sum S of n independent draws lies in [0, n max w]; by Bernstein's inequality
    P(S > E S + t) <= exp(-t^2 / (2 (n var + max t / 3))), and t = 40 sqrt(n E[w^2]) makes the
    exponent at least 60 (E[w^2] >= max^2 / n). Sized by it, a table holds skewed weights (a
    few large class weights) in far less memory than n max w; should a sample exceed it, the
    growth kernel refuses the tree (never reads past the table).
    """
    w = np.asarray(w, dtype=np.float64)
    n = w.shape[0]
    top = float(w.max(initial=0.0))
    if n == 0:
        return 0.0
    mean = float(w.mean())
    rms = float(np.sqrt(np.mean(w * w)))
    return min(n * top, n * mean + 40.0 * np.sqrt(n) * rms + top)


def weighted_rows(n: int, row_mode: int, part: np.ndarray,
                  sample_weight: np.ndarray | None = None) -> int:
    """The most rows, counted with multiplicity, that one tree can see: the bound on every
    class count, node size and branch size the ``xlogx`` table is indexed by. With
    ``ROWS_WEIGHTS`` it is the sum of the multiplicities (a rotation tree grows on its distinct
    bootstrap rows, n rows in all); otherwise n (a bootstrap draws n rows). Integer sample
    weights multiply each row's multiplicity: the bound is then their sum, or for a bootstrap
    ``bootstrap_weight_bound``."""
    if row_mode == G.ROWS_WEIGHTS:
        return max(n, int(np.asarray(part, dtype=np.int64).sum()))
    if sample_weight is not None:
        sw = np.asarray(sample_weight, dtype=np.int64)
        if row_mode == G.ROWS_BOOTSTRAP:
            return int(np.ceil(bootstrap_weight_bound(sw)))
        return int(sw.sum())
    return n


# most rows, counted with their weights, a weighted fit's tree may hold: its x log2 x table
# takes 8 bytes a row (2 GiB here), and class counts are int32
MAX_WEIGHTED_ROWS = 1 << 28

# trees copied into the flat arrays between two returns of their freed memory to the system
JOIN_TRIM_EVERY = 8


def grow_forest(
    feats: FeatureArrays,
    y: np.ndarray,
    n_classes: int,
    iparams: np.ndarray,
    alphas: np.ndarray,
    seeds: np.ndarray,
    row_mode: int,
    part: np.ndarray,
    n_sub: int,
    n_threads: int,
    sample_weight: np.ndarray | None = None,
) -> Forest:
    """Grow ``len(seeds)`` trees and concatenate them into one ``Forest``.

    ``sample_weight``: None, or non-negative integer row weights that multiply every tree's
    row multiplicities (``grow_tree``'s ``sw``; not with ``ROWS_WEIGHTS``, whose callers fold
    them into ``part``)."""
    n = y.shape[0]
    # rows pack (row << 32 | weight << 16 | class): weights and class codes need 16 bits
    if n_classes > 0xFFFF:
        raise ValueError(f"at most {0xFFFF} classes are supported, got {n_classes}")
    if row_mode == G.ROWS_WEIGHTS and part.shape[0] and (part.min() < 0 or part.max() > 0xFFFF):
        raise ValueError("row multiplicities must be in 0..65535")
    sw = None
    if sample_weight is not None:
        if row_mode == G.ROWS_WEIGHTS:
            raise ValueError("fold sample weights into the multiplicities of ROWS_WEIGHTS")
        sw = np.ascontiguousarray(sample_weight, dtype=np.int32)
        if sw.shape != (n,) or (n and (sw.min() < 0 or sw.max() > 0xFFFF)):
            raise ValueError("sample weights must be n integers in 0..65535")
    bound = weighted_rows(n, row_mode, part, sw)
    if sw is not None and bound > MAX_WEIGHTED_ROWS:
        raise ValueError(
            f"sample weights let a tree count up to {bound} rows (their sum, or about that of "
            f"a bootstrap sample), beyond the {MAX_WEIGHTED_ROWS} that the fit's x log2 x "
            "table (8 bytes a row) is allowed; use smaller sample weights")
    table = xlogx_table(bound)
    # unit weights when none are given: one compiled growth routine serves weighted and
    # unweighted fits (multiplying by 1 moves nothing)
    ones = np.ones(n, dtype=np.int32)
    y32 = np.ascontiguousarray(y, dtype=np.int32)
    # None: grow_tree's version without stochastic ID3's selection (compiled on its own)
    stochastic = True if iparams[G.P_STOCHASTIC] > 0 else None

    def one(t: int, alpha: float | None = None, ref=G.NO_REFERENCE, ip=iparams):
        return grow_tree(
            feats.Xc, feats.R, feats.order, feats.n_distinct, feats.uniq,
            feats.uniq_off, feats.nominal, y32, n_classes, ip,
            float(alphas[t]) if alpha is None else alpha, table, np.uint64(seeds[t]), row_mode,
            part, t, n_sub, *ref, stochastic, ones if sw is None else sw,
        )

    T = len(seeds)
    d = feats.Xc.shape[0]
    alphas = np.asarray(alphas, dtype=np.float64)
    # a tree that draws nothing is the same whatever its seed: grown once. Trees mixing
    # random and deterministic nodes copy the tests of their deterministic top from that
    # all-deterministic tree (grow_tree's reference tree)
    same = draws_nothing(iparams, alphas, row_mode, n_sub, d)
    mixed = (alphas > 0.0) & (alphas < 1.0)
    saving = float(np.sum(alphas[mixed] / (1.0 - alphas[mixed])))
    use_reference = (saving >= REFERENCE_MIN_SAVING
                     and rows_decide(iparams, row_mode, n_sub, d))
    reference = None
    if same.any() or use_reference:
        # only a reference keeps each node's ties (reference_arrays reads them)
        ref_params = iparams.copy()
        ref_params[G.P_KEEP_TIES] = int(use_reference)
        reference = one(int(np.argmax(same | mixed)), alpha=1.0, ip=ref_params)
    ref = reference_arrays(reference) if use_reference else G.NO_REFERENCE
    grown = [t for t in range(T) if not same[t]]
    done = dict(zip(grown, run_threads(lambda t: one(t, ref=ref), grown, n_threads),
                    strict=True))
    trees = [reference if same[t] else done[t] for t in range(T)]
    sizes = np.array([tr[0].shape[0] for tr in trees], dtype=np.int64)
    offsets = np.zeros(T + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(sizes)

    stats = [np.array([tr[i] for tr in trees], dtype=np.int64) for i in range(9, 13)]
    # the nine node arrays are joined on the fit's threads (NumPy's copy releases the GIL):
    # joining them one after the other took a quarter of a 100-tree complete-random fit
    # on two threads, most of it spent touching the new memory. Each tree's part is let go as
    # soon as it is copied, so the fit holds its nodes about once, not twice (a forest of
    # 1,000,000 rows and 100 trees is about 330 MB)
    parts = [[tr[i] for tr in trees] for i in range(9)]
    del trees, done, reference
    release_freed_memory()  # the threads' growth buffers

    def join(i: int) -> np.ndarray:
        first = parts[i][0]
        joined = np.empty((int(offsets[-1]),) + first.shape[1:], dtype=first.dtype)
        for t in range(T):
            joined[offsets[t]:offsets[t + 1]] = parts[i][t]
            parts[i][t] = None
            if t % JOIN_TRIM_EVERY == JOIN_TRIM_EVERY - 1:
                release_freed_memory()
        return joined

    kind, feature, threshold, child_start, n_children, nan_child, rnd, depth, counts = (
        run_threads(join, range(9), n_threads))
    return Forest(
        node_offsets=offsets,
        kind=kind,
        feature=feature,
        threshold=threshold,
        child_start=child_start,
        n_children=n_children,
        nan_child=nan_child,
        random=rnd,
        depth=depth,
        counts=counts,
        alpha=alphas,
        ties_feature=stats[0],
        ties_test=stats[1],
        n_decision=stats[2],
        rows_seen=stats[3],
        seed=np.asarray(seeds, dtype=np.uint64),
    )
