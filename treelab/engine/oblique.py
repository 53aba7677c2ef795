"""Python drivers of the learners that are not axis-aligned presets: MMDT, rotation trees and
cross-validation-selected (CVDT) trees.

They grow into the same flat ``Forest`` as every other learner. Oblique nodes (kind 3) refer to
rows of ``Forest.projections``; a projection of width w acts on the last w columns of the
prediction input, so one prediction path serves all learners (see docs/architecture.md):

- MMDT and rotation trees read *real features* (``RealMap``): numeric columns with missing
  values replaced by the training mean, nominal columns as one-hot blocks (a missing nominal
  value is 1/m in each column of its block; algorithms spec 2.8). Their estimators hand the
  kernels the real features.
- CVDT trees are heterogeneous: an entropy tree splits the raw encoded columns (features
  0..d-1, kinds 1 and 2), an MMDT splits the real features; the estimator hands the kernels the
  raw columns with the real features appended.

Each tree's randomness comes from its own seed (a NumPy generator for rows and rotations, the
kernel's generator for power-iteration starts), so forests do not depend on the thread count.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from treelab.engine._resources import run_threads
from treelab.engine.features import FeatureArrays, bin_feature, concat_values
from treelab.engine.forest import Forest, grow_forest
from treelab.engine.kernels import _grow as G
from treelab.engine.kernels import _oblique as O
from treelab.engine.kernels import _predict as P

KIND_OBLIQUE = O.KIND_OBLIQUE
_NO_DEPTH_LIMIT = np.iinfo(np.int32).max


class RealMap(NamedTuple):
    """How encoded features become real features (one output column per entry).

    ``src[j]`` is the source column of real feature j; ``code[j]`` the nominal code it
    indicates (NaN for a numeric column); ``fill[j]`` the value of a missing source value (the
    training mean of a numeric column, 1/m in a nominal block of m columns).
    """

    src: np.ndarray
    code: np.ndarray
    fill: np.ndarray


def _mean(values: np.ndarray, weights: np.ndarray | None = None) -> float:
    """(Weighted) mean of finite values without overflow: near the largest double their plain
    sum is inf (the fill of a missing value then became inf). Far up, the values are first
    divided by a power of two at least their count (exact there), so the sum stays finite."""
    e = 0
    if np.abs(values).max() > 2.0 ** 960:
        e = int(np.ceil(np.log2(values.size))) + 1
    scaled = np.ldexp(values, -e)
    mean = scaled.mean() if weights is None else np.average(scaled, weights=weights)
    return float(np.ldexp(mean, e))


def fit_real_map(Xv: np.ndarray, nominal: np.ndarray, arity: np.ndarray,
                 weights: np.ndarray | None = None) -> RealMap:
    """The real-feature map of encoded training features ``Xv`` (row, feature); with row
    ``weights`` a numeric column's fill is the weighted mean of its present values (rows of
    weight 0 left out; all of them when no present value has a weight)."""
    src, code, fill = [], [], []
    for f in range(Xv.shape[1]):
        if nominal[f]:
            m = int(arity[f])
            for v in range(m):
                src.append(f)
                code.append(float(v))
                fill.append(1.0 / m)
        else:
            col = Xv[:, f]
            present = ~np.isnan(col)
            src.append(f)
            code.append(np.nan)
            if weights is not None and np.any(weights[present] > 0):
                fill.append(_mean(col[present], weights[present]))
            else:
                fill.append(_mean(col[present]) if present.any() else 0.0)
    return RealMap(np.asarray(src, dtype=np.int64), np.asarray(code, dtype=np.float64),
                   np.asarray(fill, dtype=np.float64))


def apply_real_map(rm: RealMap, Xv: np.ndarray) -> np.ndarray:
    """Real features (row, real feature), C-contiguous float64, no missing values."""
    cols = Xv[:, rm.src]
    missing = np.isnan(cols)
    onehot = ~np.isnan(rm.code)
    out = np.where(onehot, (cols == rm.code).astype(np.float64), cols)
    out = np.where(missing, rm.fill, out)
    return np.ascontiguousarray(out, dtype=np.float64)


class TreeArrays(NamedTuple):
    """One grown tree (tree-local indices; oblique ``feature`` = row of ``projections``)."""

    kind: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    child_start: np.ndarray
    n_children: np.ndarray
    nan_child: np.ndarray
    random: np.ndarray
    depth: np.ndarray
    counts: np.ndarray
    projections: np.ndarray
    ties_feature: int
    ties_test: int
    n_decision: int
    rows_seen: int
    #: per-feature factors an MMDT folded into its directions (``tree_scale``); None otherwise
    scale: np.ndarray | None = None


def tree_of_forest(fr: Forest, t: int = 0) -> TreeArrays:
    """Tree t of a Forest as ``TreeArrays`` (its oblique rows re-based on its own vectors)."""
    lo, hi = fr.node_offsets[t], fr.node_offsets[t + 1]
    kind = fr.kind[lo:hi].copy()
    feature = fr.feature[lo:hi].copy()
    obl = kind == KIND_OBLIQUE
    if obl.any():
        rows = feature[obl].astype(np.int64)
        base = rows.min()
        proj = fr.projections[base: rows.max() + 1]
        feature[obl] -= base
    else:
        proj = np.zeros((0, fr.projections.shape[1]))
    return TreeArrays(kind, feature, fr.threshold[lo:hi].copy(), fr.child_start[lo:hi].copy(),
                      fr.n_children[lo:hi].copy(), fr.nan_child[lo:hi].copy(),
                      fr.random[lo:hi].copy(), fr.depth[lo:hi].copy(), fr.counts[lo:hi].copy(),
                      proj, int(fr.ties_feature[t]), int(fr.ties_test[t]),
                      int(fr.n_decision[t]), int(fr.rows_seen[t]))


def concat_trees(trees: Sequence[TreeArrays], alphas: np.ndarray, seeds: np.ndarray,
                 width: int) -> Forest:
    """Concatenate trees into one Forest; ``width`` is the projections' width (0: none)."""
    T = len(trees)
    sizes = np.array([tr.kind.shape[0] for tr in trees], dtype=np.int64)
    offsets = np.zeros(T + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(sizes)
    features = []
    projs = []
    n_proj = 0
    for tr in trees:
        feat = tr.feature.copy()
        obl = tr.kind == KIND_OBLIQUE
        feat[obl] += n_proj
        features.append(feat)
        if tr.projections.shape[0]:
            projs.append(tr.projections.reshape(-1, width))
            n_proj += tr.projections.shape[0]
    proj = (np.ascontiguousarray(np.concatenate(projs), dtype=np.float64) if projs
            else np.zeros((0, width)))

    def cat(name):
        return np.concatenate([getattr(tr, name) for tr in trees])

    return Forest(
        node_offsets=offsets, kind=cat("kind"), feature=np.concatenate(features).astype(np.int32),
        threshold=cat("threshold"), child_start=cat("child_start"), n_children=cat("n_children"),
        nan_child=cat("nan_child"), random=cat("random"), depth=cat("depth"),
        counts=cat("counts"), alpha=np.asarray(alphas, dtype=np.float64),
        ties_feature=np.array([tr.ties_feature for tr in trees], dtype=np.int64),
        ties_test=np.array([tr.ties_test for tr in trees], dtype=np.int64),
        n_decision=np.array([tr.n_decision for tr in trees], dtype=np.int64),
        rows_seen=np.array([tr.rows_seen for tr in trees], dtype=np.int64),
        seed=np.asarray(seeds, dtype=np.uint64), projections=proj,
    )


def row_weights(rng: np.random.Generator, n: int, bootstrap: bool,
                units: np.ndarray | None = None) -> np.ndarray:
    """Row multiplicities of one tree: a bootstrap sample of n rows, or every row once, times
    the rows' sample-weight ``units`` (integer multiplicities; None: ones). The draws do not
    depend on the units."""
    if not bootstrap:
        w = np.ones(n, dtype=np.int32)
    else:
        w = np.bincount(rng.integers(0, n, size=n), minlength=n).astype(np.int32)
    if units is None:
        return w
    out = w.astype(np.int64) * units
    if out.max(initial=0) > 0xFFFF:
        raise ValueError("a row's sample weight times its bootstrap multiplicity exceeds 65535")
    return out.astype(np.int32)


# -- MMDT ---------------------------------------------------------------------------------------
def tree_scale(Z: np.ndarray, w: np.ndarray, scale: str | None) -> np.ndarray:
    """Per-feature factors f with which one tree scales its features, from its own rows.

    The tree's rows are those with multiplicity w > 0, weighted by w (a bootstrap sample is the
    multiset the tree's means are taken over). ``"standard"``: f = 1 / standard deviation
    (population, weighted by w); ``"minmax"``: f = 1 / (max - min) over the tree's rows; None:
    f = 1. A feature constant over the tree's rows (max == min, compared exactly: a computed
    standard deviation of equal values can be a rounding residue such as 1e-17) keeps f = 1,
    as does a spread whose inverse is not finite. Offsets are not needed: the mean-margins
    split is invariant to shifting a feature (``treelab.engine.kernels._oblique``).
    """
    f = np.ones(Z.shape[1])
    rows = np.flatnonzero(w)
    if scale is None or rows.size == 0:
        return f
    Zr = Z[rows]
    hi, lo = Zr.max(axis=0), Zr.min(axis=0)
    if scale == "minmax":
        span = hi - lo
    else:
        wr = w[rows].astype(np.float64)
        mean = wr @ Zr / wr.sum()
        span = np.sqrt(wr @ (Zr - mean) ** 2 / wr.sum())
    with np.errstate(divide="ignore", over="ignore"):
        inv = 1.0 / span
    ok = (hi > lo) & np.isfinite(span) & (span > 0) & np.isfinite(inv)
    f[ok] = inv[ok]
    return f


def grow_mmdt_tree(Z: np.ndarray, y: np.ndarray, n_classes: int, w: np.ndarray,
                   seed: int, scale: str | None = None) -> TreeArrays:
    """One MMDT on real features Z with row multiplicities w, its features scaled by the
    statistics of its own rows (``tree_scale``; the factors are folded into the directions,
    which then act on Z itself)."""
    f = tree_scale(Z, w, scale)
    out = O.grow_mmdt(Z, w, y, n_classes, np.uint64(seed), _NO_DEPTH_LIMIT, f)
    n_internal = int((out[0] != 0).sum())
    return TreeArrays(*out, 0, 0, n_internal, int(w.sum()), f)


def tree_scales(trees: Sequence[TreeArrays], width: int) -> np.ndarray:
    """(tree, feature) factors of every tree's ``scale`` (NaN rows for trees without)."""
    out = np.full((len(trees), width), np.nan)
    for t, tree in enumerate(trees):
        if tree.scale is not None:
            out[t] = tree.scale
    return out


def grow_mmdt_forest(Z: np.ndarray, y: np.ndarray, n_classes: int, seeds: np.ndarray,
                     bootstrap: bool, n_threads: int, scale: str | None = None,
                     units: np.ndarray | None = None) -> tuple[Forest, np.ndarray]:
    """MMDTs (bagged when ``bootstrap``), one per seed, on real features Z, each scaled by the
    statistics of its own rows (sample-weight ``units`` multiply the rows' multiplicities).
    Returns (forest, factors (tree, feature))."""
    y32 = np.ascontiguousarray(y, dtype=np.int32)

    def one(t):
        w = row_weights(np.random.default_rng(int(seeds[t])), Z.shape[0], bootstrap, units)
        return grow_mmdt_tree(Z, y32, n_classes, w, int(seeds[t]), scale)

    trees = run_threads(one, range(len(seeds)), n_threads)
    return (concat_trees(trees, np.full(len(seeds), np.nan), seeds, Z.shape[1]),
            tree_scales(trees, Z.shape[1]))


# -- rotation trees -----------------------------------------------------------------------------
def gram_schmidt(G_: np.ndarray) -> np.ndarray:
    """Orthonormal rows from the rows of a square matrix (classical Gram-Schmidt applied twice
    per vector, which keeps orthogonality at machine precision)."""
    d = G_.shape[0]
    Q = np.zeros_like(G_, dtype=np.float64)
    for k in range(d):
        v = np.array(G_[k], dtype=np.float64)
        for _ in range(2):
            if k:
                v = v - Q[:k].T @ (Q[:k] @ v)
        Q[k] = v / np.linalg.norm(v)
    return Q


def random_axes(rng: np.random.Generator, d: int) -> np.ndarray:
    """d random orthonormal axes (rows), uniformly (Haar) distributed.

    One Householder QR of the transpose of a d x d matrix G of independent standard normals,
    with the columns of Q signed so that R has a positive diagonal (Mezzadri 2007, "How to
    generate random matrices from the classical compact groups"): the axes ``gram_schmidt``
    gives on the rows of G, to rounding, in one LAPACK call.

    Cost per tree: O(d^3) time and 8 d^2 bytes for the axes, then O(n d^2) to project the rows
    on all d axes, so a rotation forest is cubic in the number of features. Measured on one
    thread of a loaded machine: 0.8 s at d = 1,000 (``gram_schmidt``: 1.35 s); the cube makes
    d = 10,000 about a thousand times that per tree, with 0.8 GB of axes.
    """
    Q, R = np.linalg.qr(rng.standard_normal((d, d)).T)
    signs = np.where(np.diag(R) < 0, -1.0, 1.0)
    return np.ascontiguousarray((Q * signs[None, :]).T)


def pca_axes(rng: np.random.Generator, Z: np.ndarray, y: np.ndarray | None, w: np.ndarray,
             scale: np.ndarray, group_size: int,
             row_weight: np.ndarray | None = None) -> np.ndarray:
    """Rodriguez-Kuncheva rotation: PCA on random feature groups (axes as rows).

    The features are split at random into groups of ``group_size`` (the last may be smaller).
    For each group a sample of 75% of the tree's rows (counted with their multiplicities w,
    at least 2) is drawn with replacement, and the principal axes of the standardised group
    features on that sample (all of them, by decreasing variance) fill the group's block of
    the rotation, so the rotation is block-diagonal up to a permutation of the features.

    Classification (class codes ``y``): each group first draws a random non-empty subset of
    the classes present and samples the tree's rows of those classes, uniformly over the rows
    repeated by multiplicity (Rodriguez, Kuncheva & Alonso 2006). Regression (``y`` None):
    there are no classes, so the sample is drawn from all of the tree's rows (the row sample
    alone, as the regression adaptation of Pardo, Diez-Pastor, Garcia-Osorio & Rodriguez
    2013); with float ``row_weight`` (sample weights) a row is drawn with probability
    proportional to multiplicity x weight, and rows of weight 0 never.
    """
    d = Z.shape[1]
    perm = rng.permutation(d)
    rows = np.repeat(np.flatnonzero(w), w[w > 0])  # the tree's rows with multiplicity
    if row_weight is not None:
        rows = rows[row_weight[rows] > 0]
    classes = np.unique(y[rows]) if y is not None else None
    A = np.zeros((d, d))
    pos = 0
    for g0 in range(0, d, group_size):
        cols = np.sort(perm[g0:g0 + group_size]).astype(np.int64)
        pool = rows
        if classes is not None:
            keep = np.zeros(0, dtype=bool)
            while not keep.any():
                keep = rng.random(classes.shape[0]) < 0.5
            pool = rows[np.isin(y[rows], classes[keep])]
        if pool.shape[0] == 0:  # no row of positive weight: the tree is one leaf anyway
            A[pos:pos + cols.shape[0], cols] = np.eye(cols.shape[0])
            pos += cols.shape[0]
            continue
        size = max(int(round(0.75 * pool.shape[0])), 2)
        if row_weight is None:
            sample = pool[rng.integers(0, pool.shape[0], size=size)]
        else:
            cum = np.cumsum(row_weight[pool])
            at = np.searchsorted(cum, rng.random(size) * cum[-1], side="right")
            sample = pool[np.minimum(at, pool.shape[0] - 1)]
        cov = O.weighted_covariance(Z, sample.astype(np.int64), cols, scale)
        evals, evecs = np.linalg.eigh(cov)
        for j in np.argsort(-evals, kind="stable"):
            A[pos, cols] = evecs[:, j]
            pos += 1
    return A


def rotation_features(Z: np.ndarray, rows: np.ndarray, W: np.ndarray,
                      max_bins: int | None = None) -> FeatureArrays:
    """Growth-kernel features of a rotation tree: its rows projected on every axis, presorted
    once per axis (one stable sort each); with ``max_bins`` each axis is binned over the
    tree's distinct rows (``engine.forest.bin_feature``)."""
    Zc = O.project_rows(Z, rows, W)
    R, order, nd, uniq, uniq_off = O.rank_features(Zc)
    if max_bins is not None:
        edges = [bin_feature(R[k], uniq[uniq_off[k]:uniq_off[k + 1]], max_bins)
                 for k in range(R.shape[0])]
        nd = np.array([e.shape[0] for e in edges], dtype=np.int64)
        uniq, uniq_off = concat_values(edges)
    return FeatureArrays(Xc=Zc, R=R, order=order, n_distinct=nd, uniq=uniq, uniq_off=uniq_off,
                         nominal=np.zeros(W.shape[0], dtype=np.uint8))


def tree_rotation(rng: np.random.Generator, Z: np.ndarray, w: np.ndarray, rotation: str,
                  group_size: int, y: np.ndarray | None = None,
                  row_weight: np.ndarray | None = None) -> np.ndarray:
    """The projections W (axis, real feature) of one rotation tree: W = A / s.

    s is each feature's standard deviation over the tree's rows (weighted by their
    multiplicities w, times ``row_weight`` when given; 1 for a constant feature) and A the
    orthonormal axes (rows): ``"random"`` (``random_axes``), ``"pca"`` (``pca_axes``; class
    codes ``y`` for classification, None for regression) or ``"identity"`` (standardisation
    only, an ablation of the rotation). One mechanism for the rotation classifier and
    regressor: the draws come from ``rng`` in this order after the tree's rows.
    """
    d = Z.shape[1]
    _, sd = O.weighted_moments(Z, w if row_weight is None else w * row_weight)
    scale = np.where(sd > 0, sd, 1.0)
    if rotation == "random":
        A = random_axes(rng, d)
    elif rotation == "pca":
        A = pca_axes(rng, Z, y, w, scale, group_size, row_weight)
    else:  # "identity": standardisation only (an ablation of the rotation)
        A = np.eye(d)
    return np.ascontiguousarray(A / scale[None, :])


def as_oblique(tree: TreeArrays, W: np.ndarray) -> TreeArrays:
    """A tree grown on the projected features as oblique nodes ``x . W[k] <= t``."""
    kind = tree.kind.copy()
    kind[kind == G.KIND_THRESHOLD] = KIND_OBLIQUE
    return tree._replace(kind=kind, projections=W)


def grow_rotation_tree(Z: np.ndarray, y: np.ndarray, n_classes: int, iparams: np.ndarray,
                       seed: int, rotation: str, bootstrap: bool, group_size: int,
                       max_bins: int | None = None,
                       units: np.ndarray | None = None) -> TreeArrays:
    """One rotation tree: standardise on the tree's rows, rotate, grow the deterministic tree.

    The split ``(x - m) / s . a <= t`` is stored as ``x . (a / s) <= t'``: centring shifts
    every projected value by the same constant, so it moves no split and is folded out, and
    the tree grows on the projected values ``x . (a / s)`` themselves (thresholds are midpoints
    of them), which prediction recomputes bit for bit.
    """
    rng = np.random.default_rng(seed)
    w = row_weights(rng, Z.shape[0], bootstrap, units)
    W = tree_rotation(rng, Z, w, rotation, group_size, y)
    rows = np.flatnonzero(w).astype(np.int64)
    feats = rotation_features(Z, rows, W, max_bins)
    fr = grow_forest(feats, y[rows], n_classes, iparams, np.ones(1),
                     np.array([seed], dtype=np.uint64), G.ROWS_WEIGHTS,
                     np.ascontiguousarray(w[rows], dtype=np.int32), 0, 1)
    return as_oblique(tree_of_forest(fr), W)


def grow_rotation_forest(Z: np.ndarray, y: np.ndarray, n_classes: int, iparams: np.ndarray,
                         seeds: np.ndarray, rotation: str, bootstrap: bool, group_size: int,
                         n_threads: int, max_bins: int | None = None,
                         weights: np.ndarray | None = None) -> Forest:
    """Rotation trees, one per seed, on real features Z (binned per tree with ``max_bins``;
    sample-weight multiplicities ``weights`` multiply each tree's rows)."""
    y32 = np.ascontiguousarray(y, dtype=np.int32)

    def one(t):
        return grow_rotation_tree(Z, y32, n_classes, iparams, int(seeds[t]), rotation,
                                  bootstrap, group_size, max_bins, weights)

    trees = run_threads(one, range(len(seeds)), n_threads)
    return concat_trees(trees, np.ones(len(seeds)), seeds, Z.shape[1])


# -- cross-validation decision trees ------------------------------------------------------------
def tree_labels(tree: TreeArrays, X: np.ndarray, min_n: int) -> np.ndarray:
    """Class code each row of X gets from one tree (argmax of the answering node's counts)."""
    offsets = np.array([0, tree.kind.shape[0]], dtype=np.int64)
    first, feat = P.pack_nodes(offsets, tree.kind, tree.feature, tree.child_start)
    anchor = P.answering_nodes(offsets, tree.kind, tree.child_start, tree.n_children,
                               tree.counts, min_n)
    proj = np.ascontiguousarray(tree.projections, dtype=np.float64)
    leaves = np.empty(X.shape[0], dtype=np.int64)
    P._leaves(X, 0, X.shape[0], 0, first, feat, tree.threshold, tree.n_children,
              tree.nan_child, proj, leaves)
    answering = anchor[leaves] if anchor.shape[0] else leaves
    return np.argmax(tree.counts[answering], axis=1)


class CVContext(NamedTuple):
    """What CVDT needs to grow each candidate learner on given row multiplicities."""

    feats: FeatureArrays  # raw encoded features (entropy and random trees)
    Xv: np.ndarray  # raw encoded features (row, feature), for CV predictions
    Z: np.ndarray  # real features (MMDT)
    y: np.ndarray  # int32 class codes
    n_classes: int
    iparams: dict  # learner name -> growth-kernel iparams (axis-aligned candidates)
    min_n: int  # curtailment of CV predictions
    scale: str | None = None  # per-tree scaling of the MMDT candidate (``tree_scale``)


def grow_candidate(ctx: CVContext, name: str, w: np.ndarray, seed: int) -> TreeArrays:
    """Grow one candidate learner on the rows with multiplicities w (an MMDT scales its
    features by the statistics of these rows, in the cross-validation folds as well)."""
    if name == "mmdt":
        return grow_mmdt_tree(ctx.Z, ctx.y, ctx.n_classes, w, seed, ctx.scale)
    alpha = 0.0 if name == "random_tree" else 1.0
    fr = grow_forest(ctx.feats, ctx.y, ctx.n_classes, ctx.iparams[name], np.array([alpha]),
                     np.array([seed], dtype=np.uint64), G.ROWS_WEIGHTS, w, 0, 1)
    return tree_of_forest(fr)


def grow_cvdt_tree(ctx: CVContext, candidates: Sequence[str], seed: int, bootstrap: bool,
                   units: np.ndarray | None = None) -> tuple[TreeArrays, int, np.ndarray]:
    """One CVDT: a 2-fold CV of every candidate on the tree's rows, then the learner with the
    fewest CV errors (ties to the first candidate) grown on all of them.

    The tree's distinct rows are split at random into two halves (a row's bootstrap copies stay
    together, so no row is tested on a fold that trained on it); errors are counted with
    multiplicity. Sample-weight ``units`` multiply the multiplicities: a row of weight 0 is in
    no fold, a weighted row stays whole in one fold and its errors count its weight.
    Returns (tree, chosen index, CV errors per candidate).
    """
    rng = np.random.default_rng(seed)
    n = ctx.y.shape[0]
    w = row_weights(rng, n, bootstrap, units)
    inbag = np.flatnonzero(w)
    fold = np.zeros(n, dtype=np.int8)
    perm = rng.permutation(inbag.shape[0])
    fold[inbag[perm[inbag.shape[0] // 2:]]] = 1
    errors = np.zeros(len(candidates))
    for k in (0, 1):
        train_w = np.where(fold == k, w, 0).astype(np.int32)
        test = inbag[fold[inbag] != k]
        if test.shape[0] == 0 or not train_w.any():
            continue
        for c, name in enumerate(candidates):
            tree = grow_candidate(ctx, name, train_w, seed)
            X = ctx.Z[test] if name == "mmdt" else ctx.Xv[test]
            wrong = tree_labels(tree, np.ascontiguousarray(X), ctx.min_n) != ctx.y[test]
            errors[c] += float(w[test][wrong].sum())
    chosen = int(np.argmin(errors))
    return grow_candidate(ctx, candidates[chosen], w, seed), chosen, errors


def grow_cvdt_forest(ctx: CVContext, candidates: Sequence[str], seeds: np.ndarray,
                     bootstrap: bool, n_threads: int,
                     units: np.ndarray | None = None,
                     ) -> tuple[Forest, np.ndarray, np.ndarray, np.ndarray]:
    """CVDTs, one per seed. Returns (forest, chosen candidate index per tree, CV errors
    (tree, candidate), the MMDT trees' scaling factors (tree, real feature; NaN rows for the
    other learners))."""
    out = run_threads(lambda t: grow_cvdt_tree(ctx, candidates, int(seeds[t]), bootstrap,
                                               units),
                      range(len(seeds)), n_threads)
    trees = [o[0] for o in out]
    forest = concat_trees(trees, np.full(len(seeds), np.nan), seeds, ctx.Z.shape[1])
    return (forest, np.array([o[1] for o in out], dtype=np.int64),
            np.array([o[2] for o in out], dtype=np.float64), tree_scales(trees, ctx.Z.shape[1]))
