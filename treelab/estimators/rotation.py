"""Rotation forest (algorithms spec 2.9): deterministic trees on randomly rotated,
standardised real features (the real-feature learners' conditioning, ``estimators.oblique``).
"""

from __future__ import annotations

import numpy as np

from treelab.engine.kernels import _grow as G
from treelab.engine.rotation import grow_rotation_forest
from treelab.estimators._rotation_cost import rotation_work, warn_rotation_cost
from treelab.estimators._spec import TreeSpec, spec_iparams
from treelab.estimators._validation import check_int, check_option, resolve_max_features
from treelab.estimators._weights import units_of, weighted_iparams
from treelab.estimators.oblique import _doc, _RealFeatureLearner
from treelab.estimators.tree import DecisionTree

__all__ = ["RotationForest"]

ROTATIONS = ("random", "pca", "identity")


def _at_least_one_column(Z: np.ndarray) -> np.ndarray:
    """Z, or one constant column when it has none (every feature nominal with no value seen in
    training): a rotation needs an axis, and a constant one never splits, so every tree is a
    leaf, as for the other learners, instead of a failure inside the growth."""
    return Z if Z.shape[1] else np.zeros((Z.shape[0], 1))


@_doc
class RotationForest(_RealFeatureLearner):
    """Rotation forest: deterministic trees on randomly rotated, standardised features.

    For every tree (a bootstrap sample by default) the real features are standardised with
    the tree's own rows (mean 0, standard deviation 1) and rotated onto d orthonormal axes:
    ``rotation="random"`` orthogonalises d vectors of independent standard normals
    (Gram-Schmidt); ``rotation="pca"`` is the Rodriguez-Kuncheva variant (features split at
    random into groups of ``group_size``; for each group, PCA on a bootstrap sample of 75% of
    the tree's rows of a random non-empty subset of the classes, 75% of their summed weight
    with ``sample_weight``); ``rotation="identity"``
    only standardises (an ablation: it grows the axis-aligned tree). A deterministic tree
    then grows on the projected features, choosing among ``max_features`` random axes at every
    node as a random forest does. Every axis is sorted once per tree (the projected values'
    ranks and rank order); the engine's growth routine then partitions the presorted lists
    stably down the tree when at least half the axes are candidates at a node, and otherwise
    summarises the few candidate axes of a node from their ranks (a histogram, or a sort of
    the node's rank keys), which the engine measured to be cheaper in that case.

    A split ``((x - m) / s) . a <= t`` is stored as ``x . (a / s) <= t'`` (node kind 3): the
    centring m shifts every projected value by the same constant and is folded out.

    Cost: every tree projects its rows on d axes over all d real features, and
    ``rotation="random"`` draws them by a d x d QR decomposition, so the work is
    n_estimators x (d^3 + n d^2), cubic in d. A nominal column counts one real feature per
    level (its one-hot block): 2,000 levels make d >= 2,000. ``fit`` estimates the work before
    any and warns (``RotationCostWarning``, naming the largest nominal columns) above 1e11.

    Parameters
    ----------
    n_estimators : int, default 100
        Number of trees.
    rotation : {"random", "pca", "identity"}, default "random"
        How the axes are drawn.
    max_features : int, float, "sqrt", "log2" or None, default "sqrt"
        Candidate axes per node.
    min_samples_leaf : int, default 1
        Smallest number of rows in a non-empty child.
    min_samples_split : int, default 2
        A node with fewer training rows becomes a leaf.
    max_depth : int or None
        Depth limit (root = 0).
    criterion : {"gini", "entropy", "gain_ratio", "parabola"}, default "gini"
        Split criterion on the projected features.
    bootstrap : bool, default True
        Bagging (True) or every tree on all rows.
    group_size : int, default 3
        Features per PCA group (``rotation="pca"`` only).
    %(max_bins)s
        A rotation tree bins each projected axis once, over its own distinct rows.
    %(common)s
    %(ensemble)s

    References
    ----------
    Rodriguez, Kuncheva & Alonso (2006), Rotation forest: a new classifier ensemble method,
    IEEE TPAMI 28.
    """

    def __init__(self, *, n_estimators=100, rotation="random", max_features="sqrt",
                 min_samples_leaf=1, min_samples_split=2, max_depth=None, criterion="gini",
                 bootstrap=True, group_size=3, max_bins=None, curtail_min=1, laplace=False,
                 combine="average", categorical_features=None, random_state=None, n_jobs=None):
        self.n_estimators = n_estimators
        self.rotation = rotation
        self.max_features = max_features
        self.min_samples_leaf = min_samples_leaf
        self.min_samples_split = min_samples_split
        self.max_depth = max_depth
        self.criterion = criterion
        self.bootstrap = bootstrap
        self.group_size = group_size
        self.max_bins = max_bins
        self.curtail_min = curtail_min
        self.laplace = laplace
        self.combine = combine
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.n_jobs = n_jobs

    # every rotation tree standardises each column with its own rows first
    _per_column = True

    def _check_params(self) -> None:
        super()._check_params()
        check_option("rotation", self.rotation, ROTATIONS)
        check_int("group_size", self.group_size, 1)
        resolve_max_features(self.max_features, 10**9)

    def rotation_work(self, n_rows: int, n_real: int) -> float:
        """Estimated operations of growing the forest's rotations (:func:`rotation_work`)."""
        return rotation_work(int(getattr(self, "n_estimators", 1)), self.rotation, n_rows,
                             n_real)

    def _warn_rotation_cost(self, n_rows: int, n_real: int) -> None:
        warn_rotation_cost(self, n_rows, n_real)

    def _real_features(self, Xv) -> np.ndarray:
        return _at_least_one_column(super()._real_features(Xv))

    def _grow(self, Xv, Z, y_codes, seeds, weights):
        Z = _at_least_one_column(Z)
        d = Z.shape[1]
        self._warn_rotation_cost(Z.shape[0], d)
        spec = TreeSpec(n_trees=1, alphas=np.ones(1), criterion=self.criterion, c45=False,
                        min_objs=1, min_samples_split=self.min_samples_split,
                        min_samples_leaf=self.min_samples_leaf, max_depth=self.max_depth,
                        max_features=self.max_features, max_bins=self.max_bins)
        iparams = weighted_iparams(spec_iparams(spec, d)[0], weights)
        # every axis is sorted once per tree and the sorted lists are partitioned stably down
        # the tree, so no node sorts (algorithms spec 2.9)
        iparams[G.P_PRESORT] = 2
        # fractional sample weights are counted in units of 2**-shift of a weight
        unit = 1.0 if weights is None else 2.0 ** -weights.shift
        return grow_rotation_forest(Z, y_codes, self.n_classes_, iparams, seeds, self.rotation,
                                    self.bootstrap, self.group_size, self._n_threads(),
                                    max_bins=self.max_bins, weights=units_of(weights),
                                    unit=unit)

    def single_model(self):
        """The single deterministic tree of the family (unrotated, same criterion), unfitted."""
        return DecisionTree(criterion=self.criterion, c45=False, min_objs=1,
                            min_samples_split=self.min_samples_split,
                            min_samples_leaf=self.min_samples_leaf, max_depth=self.max_depth,
                            max_bins=self.max_bins, curtail_min=self.curtail_min,
                            laplace=self.laplace,
                            categorical_features=self.categorical_features,
                            random_state=self.random_state)
