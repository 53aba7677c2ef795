"""Rotation trees (Rodriguez, Kuncheva & Alonso 2006), for both tasks: each tree's rotation
(``tree_rotation``: standardised features, random or principal axes per feature group, or the
identity), the rotated features a tree is grown on, and the classifiers' rotation forests.
The regression trees grown on the same rotations are in ``engine.rotation_regression``.

A rotated tree's splits become oblique nodes (``as_oblique``) on rows of
``Forest.projections``, so one prediction path serves every learner (docs/architecture.md).
"""

from __future__ import annotations

import numpy as np

from treelab.engine._resources import run_threads
from treelab.engine.features import FeatureArrays, bin_feature, concat_values
from treelab.engine.forest import Forest, grow_forest
from treelab.engine.kernels import _grow as G
from treelab.engine.kernels import _oblique as O
from treelab.engine.oblique import (
    KIND_OBLIQUE,
    TreeArrays,
    concat_trees,
    row_weights,
    tree_of_forest,
)


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
             row_weight: np.ndarray | None = None, unit: float = 1.0) -> np.ndarray:
    """Rodriguez-Kuncheva rotation: PCA on random feature groups (axes as rows).

    The features are split at random into groups of ``group_size`` (the last may be smaller).
    For each group a sample of 75% of the tree's rows (counted with their multiplicities w,
    each standing for ``unit`` of weight: the 2**-k of fractional sample weights; at least 2)
    is drawn with replacement, and the principal axes of the standardised group
    features on that sample (all of them, by decreasing variance) fill the group's block of
    the rotation, so the rotation is block-diagonal up to a permutation of the features.

    Classification (class codes ``y``): each group first draws a random non-empty subset of
    the classes present and samples the tree's rows of those classes, uniformly over the rows
    repeated by multiplicity (Rodriguez, Kuncheva & Alonso 2006). A tree without a row of
    positive weight (its bootstrap sample drew only rows of sample weight 0) has no class to
    draw: its groups keep the feature axes, and it grows one leaf. Regression (``y`` None):
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
        # no class present (every row of the tree has weight 0): no non-empty subset of them
        # exists, and drawing one would never end
        if classes is not None and classes.shape[0]:
            keep = np.zeros(0, dtype=bool)
            while not keep.any():
                keep = rng.random(classes.shape[0]) < 0.5
            pool = rows[np.isin(y[rows], classes[keep])]
        if pool.shape[0] == 0:  # no row of positive weight: the tree is one leaf anyway
            A[pos:pos + cols.shape[0], cols] = np.eye(cols.shape[0])
            pos += cols.shape[0]
            continue
        # 75% of the pool's weight, not of its units: a row of sample weight 0.3 can stand for
        # 2,458 units of 2**-13, and the sample used to be that many times larger
        size = max(int(round(0.75 * pool.shape[0] * unit)), 2)
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
                      max_bins: int | None = None,
                      bin_weights: np.ndarray | None = None) -> FeatureArrays:
    """Growth-kernel features of a rotation tree: its rows projected on every axis, presorted
    once per axis (one stable sort each); with ``max_bins`` each axis is binned over the
    tree's distinct rows (``engine.forest.bin_feature``), each counted with its entry of
    ``bin_weights`` when given (one per row of ``rows``; 0: the row moves no bin)."""
    Zc = O.project_rows(Z, rows, W)
    R, order, nd, uniq, uniq_off = O.rank_features(Zc)
    if max_bins is not None:
        edges = [bin_feature(R[k], uniq[uniq_off[k]:uniq_off[k + 1]], max_bins, bin_weights)
                 for k in range(R.shape[0])]
        nd = np.array([e.shape[0] for e in edges], dtype=np.int64)
        uniq, uniq_off = concat_values(edges)
    return FeatureArrays(Xc=Zc, R=R, order=order, n_distinct=nd, uniq=uniq, uniq_off=uniq_off,
                         nominal=np.zeros(W.shape[0], dtype=np.uint8))


def tree_rotation(rng: np.random.Generator, Z: np.ndarray, w: np.ndarray, rotation: str,
                  group_size: int, y: np.ndarray | None = None,
                  row_weight: np.ndarray | None = None, unit: float = 1.0) -> np.ndarray:
    """The projections W (axis, real feature) of one rotation tree: W = A / s.

    s is each feature's standard deviation over the tree's rows (weighted by their
    multiplicities w, times ``row_weight`` when given; 1 for a feature constant over those
    rows, compared exactly, as ``engine.oblique.tree_scale`` does) and A the
    orthonormal axes (rows): ``"random"`` (``random_axes``), ``"pca"`` (``pca_axes``; class
    codes ``y`` for classification, None for regression) or ``"identity"`` (standardisation
    only, an ablation of the rotation). One mechanism for the rotation classifier and
    regressor: the draws come from ``rng`` in this order after the tree's rows.
    """
    d = Z.shape[1]
    weight = w if row_weight is None else w * row_weight
    _, sd = O.weighted_moments(Z, weight)
    # constancy compared exactly: the computed deviation of equal values such as 0.1 is a
    # rounding residue (1.4e-15 over 1,000 rows), whose inverse put a common offset of
    # 1e13 or more on every axis the feature enters and rounded the rows' projections together
    Zr = Z[weight > 0]
    varies = (Zr.max(axis=0) > Zr.min(axis=0)) if Zr.shape[0] else np.zeros(d, dtype=bool)
    scale = np.where(varies & (sd > 0), sd, 1.0)
    if rotation == "random":
        A = random_axes(rng, d)
    elif rotation == "pca":
        A = pca_axes(rng, Z, y, w, scale, group_size, row_weight, unit)
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
                       units: np.ndarray | None = None, unit: float = 1.0) -> TreeArrays:
    """One rotation tree: standardise on the tree's rows, rotate, grow the deterministic tree.

    The split ``(x - m) / s . a <= t`` is stored as ``x . (a / s) <= t'``: centring shifts
    every projected value by the same constant, so it moves no split and is folded out, and
    the tree grows on the projected values ``x . (a / s)`` themselves (thresholds are midpoints
    of them), which prediction recomputes bit for bit. ``units`` are the rows' sample-weight
    multiplicities, each standing for ``unit`` of weight (``pca_axes``).
    """
    rng = np.random.default_rng(seed)
    w = row_weights(rng, Z.shape[0], bootstrap, units)
    W = tree_rotation(rng, Z, w, rotation, group_size, y, unit=unit)
    rows = np.flatnonzero(w).astype(np.int64)
    feats = rotation_features(Z, rows, W, max_bins)
    fr = grow_forest(feats, y[rows], n_classes, iparams, np.ones(1),
                     np.array([seed], dtype=np.uint64), G.ROWS_WEIGHTS,
                     np.ascontiguousarray(w[rows], dtype=np.int32), 0, 1)
    return as_oblique(tree_of_forest(fr), W)


def grow_rotation_forest(Z: np.ndarray, y: np.ndarray, n_classes: int, iparams: np.ndarray,
                         seeds: np.ndarray, rotation: str, bootstrap: bool, group_size: int,
                         n_threads: int, max_bins: int | None = None,
                         weights: np.ndarray | None = None, unit: float = 1.0) -> Forest:
    """Rotation trees, one per seed, on real features Z (binned per tree with ``max_bins``;
    sample-weight multiplicities ``weights``, each standing for ``unit`` of weight, multiply
    each tree's rows)."""
    y32 = np.ascontiguousarray(y, dtype=np.int32)

    def one(t):
        return grow_rotation_tree(Z, y32, n_classes, iparams, int(seeds[t]), rotation,
                                  bootstrap, group_size, max_bins, weights, unit)

    trees = run_threads(one, range(len(seeds)), n_threads)
    return concat_trees(trees, np.ones(len(seeds)), seeds, Z.shape[1])


# -- cross-validation decision trees ------------------------------------------------------------
