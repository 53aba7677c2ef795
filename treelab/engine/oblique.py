"""Python drivers of the learners that are not axis-aligned presets: MMDT and
cross-validation-selected (CVDT) trees, and what rotation trees (``engine.rotation``) share with
them.

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
from treelab.engine.features import FeatureArrays
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
