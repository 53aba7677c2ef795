"""Rotation forest for regression: regression trees on per-tree rotations of the features
(the rotation classifier's rotation, ``engine.rotation.tree_rotation``, grown by the regression
trees' growth routine)."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from treelab.engine.oblique import apply_real_map, fit_real_map
from treelab.engine.rotation_regression import grow_rotation_regression_forest
from treelab.estimators._conditioning import apply_scaling, fit_scaling
from treelab.estimators._regression_base import TreeEnsembleRegressor, _fill_doc
from treelab.estimators._rotation_cost import rotation_work, warn_rotation_cost
from treelab.estimators._spec import TreeSpec, spec_iparams
from treelab.estimators._validation import check_int, check_option
from treelab.estimators.rotation import ROTATIONS

__all__ = ["RotationForestRegressor"]


@_fill_doc
class RotationForestRegressor(TreeEnsembleRegressor):
    """Rotation forest for regression (Rodriguez, Kuncheva & Alonso 2006; for regression,
    Pardo, Diez-Pastor, Garcia-Osorio & Rodriguez 2013): regression trees, each grown on its
    own rotation of the standardised features.

    For every tree (all training rows by default, as Rodriguez et al.; a bootstrap sample with
    ``bootstrap=True``) the features are standardised with the tree's rows (weighted mean and
    standard deviation; a constant feature keeps factor 1) and rotated. ``rotation="pca"``
    (default) is Rodriguez et al.'s rotation: the d features are split at random into
    K = ceil(d / ``group_size``) groups; for each group a sample of 75% of the tree's rows is
    drawn with replacement and all the principal axes of the group's standardised features on
    that sample (by decreasing variance) fill the group's block, so the rotation R is
    block-orthogonal (orthonormal blocks on disjoint feature groups). Rodriguez et al. draw
    each group's sample from a random non-empty subset of the classes; a regression target
    has no classes, so the sample is drawn from all of the tree's rows (the row sample alone,
    the regression adaptation of Pardo et al.). With ``sample_weight`` a row is drawn with
    probability proportional to its weight (rows of weight 0 never). ``rotation="random"``
    uses Haar-random orthonormal axes and ``"identity"`` only standardises (an ablation), as
    in ``RotationForest``.

    Each tree is then a regression tree on the rotated features x R (node tests
    ``x . r_k / s <= t``, stored as oblique nodes): at ``alpha=1`` CART's squared-error tree
    (the tree of ``RegressionTree`` on the rotated features), at smaller alpha a
    VR-Tree (a node is deterministic with probability alpha, else random, as
    ``VRTreesRegressor``). A member predicts the weighted mean target of its
    leaf; the forest the members' mean.

    Nominal features and missing values: as ``RotationForest``, the trees read real features
    (``engine.oblique.RealMap``, fitted as ``real_map_``): a nominal column becomes m one-hot
    columns, a missing numeric value the column's weighted training mean, and a missing
    nominal value 1/m in each of its one-hot columns; d counts the real features.

    Cost: every tree projects its rows on d axes over all d features, n_estimators x n d^2
    (plus d^3 for ``rotation="random"``); ``fit`` warns (``RotationCostWarning``) above 1e11.

    Parameters
    ----------
    n_estimators : int, default 100
        Number of trees.
    rotation : {"pca", "random", "identity"}, default "pca"
        How each tree's axes are drawn (above).
    group_size : int, default 3
        Features per PCA group (``rotation="pca"`` only; Rodriguez et al.'s M = 3).
    max_features : int, float, "sqrt", "log2" or None, default None
        Candidate axes per deterministic node, drawn at random (None: all of them).
    alpha : float in [0, 1], default 1.0
        Probability that a node uses the deterministic test-selection (1: CART).
    random_split : {"pair_midpoint", "pair_distinct", "uniform", "pert"}, default "pair_midpoint"
        Threshold rule of random nodes (alpha < 1).
    bootstrap : bool, default False
        Every tree on all rows (Rodriguez et al.) or on a bootstrap sample, drawn as the other
        bagged regressors draw theirs (so the out-of-bag measures replay it); the tree's
        rotation is then fitted on that sample too.
    %(max_bins)s
    %(shared)s
    The features are first brought near 1 by an exact power of two per column where their
    magnitude lies beyond 2**100 or below 2**-100 (the fitted ``scaling_``), which moves no
    split.

    References
    ----------
    Rodriguez, Kuncheva & Alonso (2006), Rotation forest: a new classifier ensemble method,
    IEEE TPAMI 28(10). Pardo, Diez-Pastor, Garcia-Osorio & Rodriguez (2013), Rotation
    Forests for regression, Applied Mathematics and Computation 219(19).

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> import treelab
    >>> X, y = make_friedman1(300, random_state=0)
    >>> model = treelab.RotationForestRegressor(n_estimators=10, random_state=0).fit(X, y)
    >>> model.member_predict(X[:5]).shape
    (10, 5)
    """

    def __init__(self, *, n_estimators=100, rotation="pca", group_size=3, max_features=None,
                 alpha=1.0, random_split="pair_midpoint", bootstrap=False,
                 criterion="squared_error", min_samples_split=2, min_samples_leaf=1,
                 max_depth=None, max_bins=None, random_state=None, n_jobs=None):
        self.n_estimators = n_estimators
        self.rotation = rotation
        self.group_size = group_size
        self.max_features = max_features
        self.alpha = alpha
        self.random_split = random_split
        self.bootstrap = bootstrap
        self.criterion = criterion
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _check_params(self) -> None:
        super()._check_params()
        check_option("rotation", self.rotation, ROTATIONS)
        check_int("group_size", self.group_size, 1)

    def _spec(self, n_features: int) -> TreeSpec:
        return TreeSpec(
            n_trees=self.n_estimators, alphas=np.full(self.n_estimators, float(self.alpha)),
            criterion="gini", c45=False, min_objs=1, min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf, max_depth=self.max_depth,
            max_features=self.max_features, random_split=self.random_split,
            rows="bootstrap" if self.bootstrap else "all", max_bins=self.max_bins)

    def rotation_work(self, n_rows: int, n_real: int) -> float:
        """Estimated operations of growing the forest's rotations
        (``_rotation_cost.rotation_work``)."""
        return rotation_work(int(self.n_estimators), self.rotation, n_rows, n_real)

    def _fit_encoded(self, Xv: np.ndarray, y: np.ndarray, sw: np.ndarray) -> None:
        # the rotation reads real features, as RotationForest's: a nominal column as one-hot
        # columns, a missing value as the column's weighted training mean (1/m in each
        # one-hot column of a nominal one)
        self.real_map_ = fit_real_map(Xv, self.nominal_features_, self.arity_, sw)
        Z = apply_real_map(self.real_map_, Xv)
        n, d = Z.shape
        # conditioning only (exact powers of two per column, fit_scaling): no split moves
        self.scaling_ = fit_scaling(Z, None, per_column=True, weights=sw)
        Z = apply_scaling(self.scaling_, Z)
        warn_rotation_cost(self, n, d)
        spec = self._spec(d)
        iparams, _ = spec_iparams(spec, d)
        rng = check_random_state(self.random_state)
        seeds = rng.randint(0, np.iinfo(np.int32).max, size=spec.n_trees).astype(np.uint64)
        self.forest_ = grow_rotation_regression_forest(
            Z, y, sw, iparams, spec.alphas, seeds, self.rotation, bool(self.bootstrap),
            int(self.group_size), self._n_threads(), max_bins=self.max_bins,
            poisson=self.criterion == "poisson")
        # a tree whose sample holds only rows of weight 0 answers the weighted mean of every
        # training row (as the other regressors)
        roots = self.forest_.node_offsets[:-1]
        self.forest_.value[roots[self.forest_.weight[roots] <= 0]] = np.sum(sw * y) / np.sum(sw)

    def _encode_predict(self, X) -> np.ndarray:
        Xv = super()._encode_predict(X)  # refuses an unfitted model first
        return apply_scaling(self.scaling_, apply_real_map(self.real_map_, Xv))
